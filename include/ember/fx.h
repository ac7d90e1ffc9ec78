// ember::fx: a graph IR of a program's calls (torch.fx's Graph and Node), shared by the C++
// and Python tracers, the interpreters and the passes.
//
// A Graph owns its Nodes in one doubly linked list, in execution order. A Node is one of six
// opcodes; its args/kwargs are Arg trees (numbers, strings, dtypes, nested lists/tuples/dicts)
// whose leaves may be other Nodes of the same graph, and every node keeps the ordered list of
// nodes that use it. Values the IR does not interpret (a Python callable as a target, a slice)
// travel as Opaque handles.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ember/device.h"
#include "ember/dtype.h"

namespace ember::fx {

enum class Opcode : uint8_t { Placeholder, GetAttr, CallFunction, CallModule, CallMethod, Output };
std::string_view opcode_name(Opcode op);        // "placeholder", "call_function", ...
Opcode opcode_from_name(std::string_view name);  // ValueError for an unknown name

class Node;
class Graph;

// A value the IR carries without interpreting it (the Python layer keeps its objects in these).
struct Opaque {
  virtual ~Opaque() = default;
  virtual std::string repr() const = 0;
  virtual bool equals(const Opaque& other) const { return this == &other; }
  virtual size_t hash() const { return reinterpret_cast<size_t>(this); }
};

class Arg {
 public:
  enum class Kind : uint8_t { None, Bool, Int, Double, String, Node, List, Tuple, Dict, Dtype, Device, Opaque };
  Arg() = default;
  Arg(std::nullptr_t) {}                                        // NOLINT
  Arg(bool v) : kind_(Kind::Bool), i_(v) {}                     // NOLINT
  Arg(int v) : kind_(Kind::Int), i_(v) {}                       // NOLINT
  Arg(int64_t v) : kind_(Kind::Int), i_(v) {}                   // NOLINT
  Arg(double v) : kind_(Kind::Double), d_(v) {}                 // NOLINT
  Arg(const char* v) : kind_(Kind::String), s_(v) {}            // NOLINT
  Arg(std::string v) : kind_(Kind::String), s_(std::move(v)) {} // NOLINT
  Arg(Node* n) : kind_(n ? Kind::Node : Kind::None), node_(n) {} // NOLINT
  Arg(ScalarType t) : kind_(Kind::Dtype), i_(static_cast<int64_t>(t)) {}  // NOLINT
  Arg(Device d) : kind_(Kind::Device), s_(d.str()) {}           // NOLINT
  Arg(std::shared_ptr<Opaque> o) : kind_(o ? Kind::Opaque : Kind::None), opaque_(std::move(o)) {}  // NOLINT
  static Arg list(std::vector<Arg> items);
  static Arg tuple(std::vector<Arg> items);
  static Arg dict(std::vector<std::pair<std::string, Arg>> entries);

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_node() const { return kind_ == Kind::Node; }
  bool is_sequence() const { return kind_ == Kind::List || kind_ == Kind::Tuple; }
  bool to_bool() const;
  int64_t to_int() const;
  double to_double() const;  // also of an Int
  const std::string& to_string() const;
  Node* to_node() const;
  ScalarType to_dtype() const;
  Device to_device() const;
  const std::shared_ptr<Opaque>& to_opaque() const;
  // List and Tuple elements, or Dict values (keys() holds the Dict's keys).
  const std::vector<Arg>& items() const { return items_; }
  const std::vector<std::string>& keys() const { return keys_; }

  // Every Node leaf, depth first, left to right (repeats included).
  void for_each_node(const std::function<void(Node*)>& fn) const;
  // A copy with each Node leaf replaced by fn(node).
  Arg map_nodes(const std::function<Arg(Node*)>& fn) const;
  // "%name" for nodes, Python-like literals for the rest.
  std::string str() const;
  bool operator==(const Arg& o) const;
  bool operator!=(const Arg& o) const { return !(*this == o); }
  size_t hash() const;

 private:
  Kind kind_ = Kind::None;
  int64_t i_ = 0;
  double d_ = 0;
  std::string s_;
  Node* node_ = nullptr;
  std::vector<Arg> items_;
  std::vector<std::string> keys_;
  std::shared_ptr<Opaque> opaque_;
};
using Kwargs = std::vector<std::pair<std::string, Arg>>;

class Node : public std::enable_shared_from_this<Node> {
 public:
  const std::string& name() const { return name_; }
  Opcode op() const { return op_; }
  // The op name (call_function), the qualified attribute or module name (get_attr,
  // call_module), the method name (call_method), the argument name (placeholder), "output".
  const std::string& target() const { return target_; }
  // The callable behind target (a Python function), when the graph came from Python.
  const std::shared_ptr<Opaque>& target_object() const { return target_object_; }
  void set_target(std::string target, std::shared_ptr<Opaque> object = nullptr);
  const std::vector<Arg>& args() const { return args_; }
  const Kwargs& kwargs() const { return kwargs_; }
  void set_args(std::vector<Arg> args);
  void set_kwargs(Kwargs kwargs);
  void update_arg(size_t i, Arg a);
  void update_kwarg(const std::string& key, Arg a);
  // Nodes whose args or kwargs refer to this one, each once, in the order they started to.
  const std::vector<Node*>& users() const { return users_; }
  // The distinct nodes this one refers to, in order of first appearance.
  std::vector<Node*> all_input_nodes() const;
  // Neighbours in the graph's order; null at either end.
  Node* prev() const;
  Node* next() const;
  Graph* graph() const { return graph_; }
  bool erased() const { return graph_ == nullptr; }

  // Makes every user refer to `replacement` instead; returns the users changed.
  std::vector<Node*> replace_all_uses_with(Node* replacement);
  void replace_input_with(Node* old_input, Node* new_input);
  // Moves n to just before / after this node (n must belong to the same graph).
  void prepend(Node* n);
  void append(Node* n);
  // Placeholders, outputs and in-place calls (a name ending in '_') have effects beyond their value.
  bool is_impure() const;
  // "%relu : [#users=1] = call_function[target=relu](args = (%x,), kwargs = {})"
  std::string format() const;

  // Annotations, filled by tracers and ShapeProp: a type name ("Tensor"), and for tensors
  // the shape and dtype.
  std::string type;
  std::optional<std::vector<int64_t>> shape;
  std::optional<ScalarType> dtype;
  // Free-form metadata of the Python layer (a dict), carried along by copies.
  std::shared_ptr<Opaque> meta;

  Node(Graph* g, Opcode op, std::string name);  // use Graph::create_node

 private:
  friend class Graph;
  void relink_inputs(const std::vector<Node*>& before);
  void unlink();
  void insert_before(Node* pos);  // pos: a node of the graph or its sentinel

  Graph* graph_;
  Opcode op_;
  std::string name_;
  std::string target_;
  std::shared_ptr<Opaque> target_object_;
  std::vector<Arg> args_;
  Kwargs kwargs_;
  std::vector<Node*> users_;
  Node* prev_ = nullptr;
  Node* next_ = nullptr;
  bool sentinel_ = false;
};

class Graph : public std::enable_shared_from_this<Graph> {
 public:
  Graph();
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // The nodes in order (a snapshot: erasing while walking it is safe).
  std::vector<Node*> nodes() const;
  size_t size() const { return owned_.size(); }
  Node* find_node(std::string_view name) const;  // null when absent
  Node* output_node() const;                      // null when the graph has none

  // Creates a node at the insertion point (the end, unless an InsertPoint says otherwise).
  // An empty name derives one from the target; names are made unique and valid identifiers.
  Node* create_node(Opcode op, std::string target, std::vector<Arg> args = {}, Kwargs kwargs = {},
                    std::string name = "", std::string type = "", std::shared_ptr<Opaque> target_object = nullptr);
  Node* placeholder(const std::string& name, std::string type = "", std::optional<Arg> default_value = std::nullopt);
  Node* get_attr(const std::string& qualified_name, std::string type = "");
  Node* call_function(const std::string& target, std::vector<Arg> args = {}, Kwargs kwargs = {}, std::string type = "");
  Node* call_module(const std::string& target, std::vector<Arg> args = {}, Kwargs kwargs = {}, std::string type = "");
  Node* call_method(const std::string& method, std::vector<Arg> args = {}, Kwargs kwargs = {}, std::string type = "");
  Node* output(Arg result, std::string type = "");
  // RuntimeError if the node still has users or belongs to another graph.
  void erase_node(Node* n);

  // RAII: nodes are created before `n` (or after it) until the guard goes away.
  class InsertPoint {
   public:
    InsertPoint(Graph& g, Node* before);
    ~InsertPoint();
    InsertPoint(const InsertPoint&) = delete;
    InsertPoint& operator=(const InsertPoint&) = delete;

   private:
    Graph& g_;
    Node* prev_;
  };
  InsertPoint inserting_before(Node* n = nullptr);  // null: at the start
  InsertPoint inserting_after(Node* n = nullptr);   // null: at the end
  Node* insertion_point() const { return insert_before_; }  // the sentinel means the end
  void set_insertion_point(Node* before) { insert_before_ = before ? before : root_.get(); }

  // A copy of n (from any graph) in this graph, its Node args mapped by arg_transform.
  Node* node_copy(const Node* n, const std::function<Arg(Node*)>& arg_transform);
  // Copies every node of g but its output into this graph, recording old -> new in val_map;
  // returns g's output value mapped into this graph.
  Arg graph_copy(const Graph& g, std::unordered_map<const Node*, Node*>& val_map);
  std::shared_ptr<Graph> copy() const;

  // Erases nodes without users, last to first, unless is_impure (default Node::is_impure)
  // says they have effects. Returns whether anything was erased.
  bool eliminate_dead_code(const std::function<bool(const Node&)>& is_impure = {});
  // Checks the invariants (ownership, links, unique names, defs before uses, users lists,
  // one trailing output); RuntimeError naming the first violation.
  void lint() const;
  std::string print_tabular() const;
  std::string str() const;

  // The names a Python code generator must not use for values (keywords, builtins, "self").
  static bool is_reserved_name(std::string_view name);

 private:
  friend class Node;
  std::string unique_name(std::string_view candidate);

  std::shared_ptr<Node> root_;  // sentinel of the circular list
  Node* insert_before_;
  std::unordered_map<const Node*, std::shared_ptr<Node>> owned_;
  std::unordered_set<std::string> names_;
  std::unordered_map<std::string, int64_t> name_counters_;
};

// ---------------------------------------------------------------- JSON and C++ source
// Opaque values (Python objects) are written through an encoder that turns them into plain
// Args and read back through a decoder (the Python layer supplies both); without one they are
// a ValueError.
using OpaqueEncoder = std::function<Arg(const Opaque&)>;
using OpaqueDecoder = std::function<Arg(const Arg&)>;
constexpr int64_t kGraphJsonVersion = 1;
std::string graph_to_json(const Graph& g, const OpaqueEncoder& enc = {});
// ValueError for malformed JSON, another format, a newer version, or a graph that fails lint.
std::shared_ptr<Graph> graph_from_json(std::string_view text, const OpaqueDecoder& dec = {});

// C++ source of `std::vector<ember::Tensor> <name>(const std::vector<ember::Tensor>& inputs,
// const ember::fx::Attributes& attrs)` running the graph's call_function nodes as dispatcher ops
// (targets are op names such as "add.Tensor"; get_attr reads attrs). Compile it against
// include/ and link libember. ValueError for other opcodes or opaque arguments.
std::string graph_to_cpp(const Graph& g, const std::string& function_name = "forward");

// The distinct ops a graph calls (call_function targets, then call_method names prefixed
// "Tensor."), sorted: what a runtime must provide to execute it.
std::vector<std::string> operator_list(const Graph& g);

}  // namespace ember::fx
