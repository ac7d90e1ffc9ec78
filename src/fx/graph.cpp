// ember::fx::Graph and Node: the node list, use lists, names, copies, DCE, lint, printing.
#include <algorithm>
#include <array>
#include <cctype>
#include <set>

#include "ember/error.h"
#include "ember/fx.h"

namespace ember::fx {

std::string_view opcode_name(Opcode op) {
  static constexpr std::array<std::string_view, 6> names = {
      "placeholder", "get_attr", "call_function", "call_module", "call_method", "output"};
  return names[static_cast<int>(op)];
}

Opcode opcode_from_name(std::string_view name) {
  for (int i = 0; i < 6; ++i)
    if (opcode_name(static_cast<Opcode>(i)) == name) return static_cast<Opcode>(i);
  EMBER_FAIL(ValueError, "fx: unknown opcode '", name,
             "' (expected placeholder, get_attr, call_function, call_module, call_method or output)");
}

// ---------------------------------------------------------------- Node
Node::Node(Graph* g, Opcode op, std::string name) : graph_(g), op_(op), name_(std::move(name)) {}

Node* Node::prev() const { return prev_ && !prev_->sentinel_ ? prev_ : nullptr; }
Node* Node::next() const { return next_ && !next_->sentinel_ ? next_ : nullptr; }

void Node::set_target(std::string target, std::shared_ptr<Opaque> object) {
  target_ = std::move(target);
  target_object_ = std::move(object);
}

std::vector<Node*> Node::all_input_nodes() const {
  std::vector<Node*> out;
  auto add = [&](Node* n) {
    if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  };
  for (const Arg& a : args_) a.for_each_node(add);
  for (const auto& kv : kwargs_) kv.second.for_each_node(add);
  return out;
}

// Keeps the inputs' users lists in step with args/kwargs after a change.
void Node::relink_inputs(const std::vector<Node*>& before) {
  std::vector<Node*> after = all_input_nodes();
  for (Node* n : after)
    EMBER_CHECK(n->graph_ == graph_ && !n->sentinel_, RuntimeError, "fx: node '", name_,
                "' would refer to node '", n->name_, "' of another graph");
  for (Node* n : before)
    if (std::find(after.begin(), after.end(), n) == after.end()) {
      auto& u = n->users_;
      u.erase(std::remove(u.begin(), u.end(), this), u.end());
    }
  for (Node* n : after)
    if (std::find(n->users_.begin(), n->users_.end(), this) == n->users_.end()) n->users_.push_back(this);
}

void Node::set_args(std::vector<Arg> args) {
  std::vector<Node*> before = all_input_nodes();
  std::vector<Arg> old = std::move(args_);
  args_ = std::move(args);
  try {
    relink_inputs(before);
  } catch (...) {
    args_ = std::move(old);
    throw;
  }
}

void Node::set_kwargs(Kwargs kwargs) {
  std::vector<Node*> before = all_input_nodes();
  Kwargs old = std::move(kwargs_);
  kwargs_ = std::move(kwargs);
  try {
    relink_inputs(before);
  } catch (...) {
    kwargs_ = std::move(old);
    throw;
  }
}

void Node::update_arg(size_t i, Arg a) {
  EMBER_CHECK(i < args_.size(), IndexError, "fx: node '", name_, "' has ", args_.size(), " args, no arg ", i);
  std::vector<Arg> args = args_;
  args[i] = std::move(a);
  set_args(std::move(args));
}

void Node::update_kwarg(const std::string& key, Arg a) {
  Kwargs kw = kwargs_;
  auto it = std::find_if(kw.begin(), kw.end(), [&](const auto& kv) { return kv.first == key; });
  if (it == kw.end()) kw.emplace_back(key, std::move(a));
  else it->second = std::move(a);
  set_kwargs(std::move(kw));
}

void Node::replace_input_with(Node* old_input, Node* new_input) {
  auto f = [&](Node* n) -> Arg { return n == old_input ? new_input : n; };
  std::vector<Arg> args;
  for (const Arg& a : args_) args.push_back(a.map_nodes(f));
  Kwargs kw;
  for (const auto& [k, v] : kwargs_) kw.emplace_back(k, v.map_nodes(f));
  std::vector<Node*> before = all_input_nodes();
  args_ = std::move(args);
  kwargs_ = std::move(kw);
  relink_inputs(before);
}

std::vector<Node*> Node::replace_all_uses_with(Node* replacement) {
  EMBER_CHECK(replacement && replacement->graph_ == graph_, RuntimeError,
              "fx: replace_all_uses_with(): the replacement of '", name_, "' must be a node of the same graph");
  std::vector<Node*> users = users_;
  for (Node* u : users)
    if (u != replacement) u->replace_input_with(this, replacement);
  return users;
}

void Node::unlink() {
  prev_->next_ = next_;
  next_->prev_ = prev_;
  prev_ = next_ = nullptr;
}

void Node::insert_before(Node* pos) {
  prev_ = pos->prev_;
  next_ = pos;
  pos->prev_->next_ = this;
  pos->prev_ = this;
}

void Node::prepend(Node* n) {
  EMBER_CHECK(n && n->graph_ == graph_, RuntimeError, "fx: prepend(): nodes belong to different graphs");
  if (n == this) return;
  n->unlink();
  n->insert_before(this);
}

void Node::append(Node* n) {
  EMBER_CHECK(n && n->graph_ == graph_, RuntimeError, "fx: append(): nodes belong to different graphs");
  if (n == this) return;
  n->unlink();
  n->insert_before(next_);
}

bool Node::is_impure() const {
  if (op_ == Opcode::Placeholder || op_ == Opcode::Output) return true;
  if (op_ == Opcode::CallFunction || op_ == Opcode::CallMethod) {
    // "add_" or "aten::add_.Tensor": an in-place op writes its argument.
    std::string_view t = target_;
    if (auto dot = t.find('.'); dot != std::string_view::npos && op_ == Opcode::CallFunction) t = t.substr(0, dot);
    if (auto colon = t.rfind(':'); colon != std::string_view::npos) t = t.substr(colon + 1);
    return t.size() > 1 && t.back() == '_' && t[t.size() - 2] != '_';
  }
  return false;
}

std::string Node::format() const {
  std::string r = "%" + name_ + " : ";
  if (!type.empty()) r += type + " ";
  r += "[#users=" + std::to_string(users_.size()) + "] = " + std::string(opcode_name(op_)) + "[target=" +
       (target_object_ ? target_object_->repr() : target_) + "]";
  if (op_ == Opcode::Placeholder && args_.empty()) return r;
  r += "(args = " + Arg::tuple(args_).str() + ", kwargs = {";
  for (size_t i = 0; i < kwargs_.size(); ++i)
    r += (i ? ", " : "") + kwargs_[i].first + ": " + kwargs_[i].second.str();
  return r + "})";
}

// ---------------------------------------------------------------- Graph
Graph::Graph() : root_(std::make_shared<Node>(this, Opcode::Placeholder, "")) {
  root_->sentinel_ = true;
  root_->prev_ = root_->next_ = root_.get();
  insert_before_ = root_.get();
}

Graph::~Graph() {
  // Nodes may outlive the graph through Python handles: leave them detached and empty.
  for (auto& [n, p] : owned_) {
    p->graph_ = nullptr;
    p->args_.clear();
    p->kwargs_.clear();
    p->users_.clear();
    p->prev_ = p->next_ = nullptr;
  }
  root_->prev_ = root_->next_ = nullptr;
}

std::vector<Node*> Graph::nodes() const {
  std::vector<Node*> out;
  out.reserve(owned_.size());
  for (Node* n = root_->next_; n != root_.get(); n = n->next_) out.push_back(n);
  return out;
}

Node* Graph::find_node(std::string_view name) const {
  for (Node* n = root_->next_; n != root_.get(); n = n->next_)
    if (n->name_ == name) return n;
  return nullptr;
}

Node* Graph::output_node() const {
  for (Node* n = root_->prev_; n != root_.get(); n = n->prev_)
    if (n->op_ == Opcode::Output) return n;
  return nullptr;
}

namespace {
const std::set<std::string, std::less<>>& reserved_names() {
  static const std::set<std::string, std::less<>> names = {
      // Python keywords
      "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def",
      "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
      "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
      // names generated code relies on
      "self", "ember", "operator", "math", "inf", "nan", "device",
      // builtins a value name would shadow
      "abs", "all", "any", "bool", "bytes", "callable", "chr", "complex", "dict", "dir", "divmod",
      "enumerate", "eval", "exec", "filter", "float", "format", "frozenset", "getattr", "globals", "hasattr",
      "hash", "hex", "id", "input", "int", "isinstance", "issubclass", "iter", "len", "list", "locals", "map",
      "max", "min", "next", "object", "oct", "open", "ord", "pow", "print", "property", "range", "repr",
      "reversed", "round", "set", "setattr", "slice", "sorted", "str", "sum", "super", "tuple", "type",
      "vars", "zip"};
  return names;
}
}  // namespace

bool Graph::is_reserved_name(std::string_view name) { return reserved_names().count(name) != 0; }

// torch.fx's rule: a valid identifier from the candidate, then "_<n>" suffixes until unused.
std::string Graph::unique_name(std::string_view candidate) {
  std::string base;
  for (char c : candidate) base += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (base.empty()) base = "_unnamed";
  if (std::isdigit(static_cast<unsigned char>(base[0]))) base = "_" + base;
  std::string name = base;
  if (names_.count(name) || is_reserved_name(name)) {
    // "add_3" continues from "add"'s counter rather than becoming "add_3_1".
    size_t us = base.rfind('_');
    if (us != std::string::npos && us + 1 < base.size() && us > 0 &&
        std::all_of(base.begin() + us + 1, base.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      base = base.substr(0, us);
    int64_t& k = name_counters_[base];
    do name = base + "_" + std::to_string(++k);
    while (names_.count(name) || is_reserved_name(name));
  }
  names_.insert(name);
  return name;
}

Node* Graph::create_node(Opcode op, std::string target, std::vector<Arg> args, Kwargs kwargs, std::string name,
                         std::string type, std::shared_ptr<Opaque> target_object) {
  if (op == Opcode::Output)
    EMBER_CHECK(args.size() == 1 && kwargs.empty(), RuntimeError, "fx: an output node takes exactly one arg");
  else
    EMBER_CHECK(!target.empty(), RuntimeError, "fx: a ", opcode_name(op), " node needs a target");
  for (const Arg& a : args)
    a.for_each_node([&](Node* n) {
      EMBER_CHECK(n->graph_ == this, RuntimeError, "fx: create_node(): argument node '", n->name_,
                  "' belongs to another graph");
    });
  for (const auto& kv : kwargs)
    kv.second.for_each_node([&](Node* n) {
      EMBER_CHECK(n->graph_ == this, RuntimeError, "fx: create_node(): argument node '", n->name_,
                  "' belongs to another graph");
    });
  if (name.empty()) {
    if (op == Opcode::Output) name = "output";
    else {
      // "aten::conv2d.default" -> conv2d; "layer1.0.conv1" -> layer1_0_conv1
      std::string_view t = target;
      if (op == Opcode::CallFunction) {
        if (auto c = t.rfind("::"); c != std::string_view::npos) t = t.substr(c + 2);
        if (auto d = t.find('.'); d != std::string_view::npos) t = t.substr(0, d);
      }
      name = t;
    }
  }
  auto node = std::make_shared<Node>(this, op, unique_name(name));
  node->target_ = std::move(target);
  node->target_object_ = std::move(target_object);
  node->args_ = std::move(args);
  node->kwargs_ = std::move(kwargs);
  node->type = std::move(type);
  Node* n = node.get();
  owned_.emplace(n, std::move(node));
  n->relink_inputs({});
  n->insert_before(insert_before_);
  return n;
}

Node* Graph::placeholder(const std::string& name, std::string type, std::optional<Arg> default_value) {
  std::vector<Arg> args;
  if (default_value) args.push_back(std::move(*default_value));
  return create_node(Opcode::Placeholder, name, std::move(args), {}, name, std::move(type));
}
Node* Graph::get_attr(const std::string& qualified_name, std::string type) {
  return create_node(Opcode::GetAttr, qualified_name, {}, {}, "", std::move(type));
}
Node* Graph::call_function(const std::string& target, std::vector<Arg> args, Kwargs kwargs, std::string type) {
  return create_node(Opcode::CallFunction, target, std::move(args), std::move(kwargs), "", std::move(type));
}
Node* Graph::call_module(const std::string& target, std::vector<Arg> args, Kwargs kwargs, std::string type) {
  return create_node(Opcode::CallModule, target, std::move(args), std::move(kwargs), "", std::move(type));
}
Node* Graph::call_method(const std::string& method, std::vector<Arg> args, Kwargs kwargs, std::string type) {
  return create_node(Opcode::CallMethod, method, std::move(args), std::move(kwargs), "", std::move(type));
}
Node* Graph::output(Arg result, std::string type) {
  return create_node(Opcode::Output, "output", {std::move(result)}, {}, "output", std::move(type));
}

void Graph::erase_node(Node* n) {
  EMBER_CHECK(n && n->graph_ == this, RuntimeError, "fx: erase_node(): node '", n ? n->name_ : "", "' is not in this graph");
  EMBER_CHECK(n->users_.empty(), RuntimeError, "fx: erase_node(): node '", n->name_, "' still has ",
              n->users_.size(), " user(s), e.g. '", n->users_.empty() ? "" : n->users_[0]->name_, "'");
  if (insert_before_ == n) insert_before_ = n->next_;
  std::vector<Node*> inputs = n->all_input_nodes();
  n->args_.clear();
  n->kwargs_.clear();
  n->relink_inputs(inputs);
  n->unlink();
  n->graph_ = nullptr;
  names_.erase(n->name_);
  owned_.erase(n);  // a Python handle may keep the (now detached) node alive
}

Graph::InsertPoint::InsertPoint(Graph& g, Node* before) : g_(g), prev_(g.insert_before_) {
  g.set_insertion_point(before);
}
Graph::InsertPoint::~InsertPoint() { g_.insert_before_ = prev_; }

Graph::InsertPoint Graph::inserting_before(Node* n) {
  EMBER_CHECK(!n || n->graph_ == this, RuntimeError, "fx: inserting_before(): the node is not in this graph");
  return InsertPoint(*this, n ? n : root_->next_);
}
Graph::InsertPoint Graph::inserting_after(Node* n) {
  EMBER_CHECK(!n || n->graph_ == this, RuntimeError, "fx: inserting_after(): the node is not in this graph");
  return InsertPoint(*this, n ? n->next_ : root_.get());
}

Node* Graph::node_copy(const Node* n, const std::function<Arg(Node*)>& arg_transform) {
  std::vector<Arg> args;
  for (const Arg& a : n->args_) args.push_back(a.map_nodes(arg_transform));
  Kwargs kw;
  for (const auto& [k, v] : n->kwargs_) kw.emplace_back(k, v.map_nodes(arg_transform));
  Node* c = create_node(n->op_, n->target_, std::move(args), std::move(kw), n->name_, n->type, n->target_object_);
  c->shape = n->shape;
  c->dtype = n->dtype;
  c->meta = n->meta;
  return c;
}

Arg Graph::graph_copy(const Graph& g, std::unordered_map<const Node*, Node*>& val_map) {
  auto lookup = [&](Node* x) -> Arg {
    auto it = val_map.find(x);
    EMBER_CHECK(it != val_map.end(), RuntimeError, "fx: graph_copy(): node '", x->name_, "' used before its definition");
    return it->second;
  };
  for (Node* n : g.nodes()) {
    if (n->op_ == Opcode::Output) return n->args_.at(0).map_nodes(lookup);
    val_map[n] = node_copy(n, lookup);
  }
  return Arg();
}

std::shared_ptr<Graph> Graph::copy() const {
  auto g = std::make_shared<Graph>();
  std::unordered_map<const Node*, Node*> val_map;
  Arg out = g->graph_copy(*this, val_map);
  if (Node* o = output_node()) g->output(std::move(out), o->type);
  return g;
}

bool Graph::eliminate_dead_code(const std::function<bool(const Node&)>& is_impure) {
  bool changed = false;
  std::vector<Node*> order = nodes();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node* n = *it;
    if (!n->users_.empty()) continue;
    if (is_impure ? is_impure(*n) : n->is_impure()) continue;
    erase_node(n);
    changed = true;
  }
  return changed;
}

void Graph::lint() const {
  std::unordered_set<const Node*> seen;
  std::unordered_set<std::string> names;
  const Node* output = nullptr;
  size_t count = 0;
  for (const Node* n = root_->next_; n != root_.get(); n = n->next_) {
    ++count;
    EMBER_CHECK(count <= owned_.size() && owned_.count(n), RuntimeError, "fx lint: node '", n->name_,
                "' is linked into the graph but not owned by it");
    EMBER_CHECK(n->graph_ == this, RuntimeError, "fx lint: node '", n->name_, "' does not belong to this graph");
    EMBER_CHECK(n->next_->prev_ == n && n->prev_->next_ == n, RuntimeError, "fx lint: broken links around node '",
                n->name_, "'");
    EMBER_CHECK(!n->name_.empty() && names.insert(n->name_).second, RuntimeError, "fx lint: node name '", n->name_,
                "' is not unique");
    EMBER_CHECK(!output, RuntimeError, "fx lint: node '", n->name_, "' comes after the output node '", output->name_, "'");
    if (n->op_ == Opcode::Output) {
      output = n;
      EMBER_CHECK(n->args_.size() == 1 && n->kwargs_.empty(), RuntimeError, "fx lint: output node '", n->name_,
                  "' must have exactly one arg");
    } else {
      EMBER_CHECK(!n->target_.empty(), RuntimeError, "fx lint: ", opcode_name(n->op_), " node '", n->name_,
                  "' has no target");
    }
    for (Node* in : n->all_input_nodes()) {
      EMBER_CHECK(in->graph_ == this, RuntimeError, "fx lint: node '", n->name_, "' uses node '", in->name_,
                  "' of another graph");
      EMBER_CHECK(seen.count(in), RuntimeError, "fx lint: node '", n->name_, "' uses '", in->name_,
                  "' before its definition");
      EMBER_CHECK(std::count(in->users_.begin(), in->users_.end(), n) == 1, RuntimeError, "fx lint: node '",
                  in->name_, "' does not list its user '", n->name_, "'");
    }
    for (const Node* u : n->users_) {
      auto ins = u->all_input_nodes();
      EMBER_CHECK(u->graph_ == this && std::find(ins.begin(), ins.end(), n) != ins.end(), RuntimeError,
                  "fx lint: node '", n->name_, "' lists '", u->name_, "' as a user, which does not use it");
    }
    seen.insert(n);
  }
  EMBER_CHECK(count == owned_.size(), RuntimeError, "fx lint: ", owned_.size() - count,
              " node(s) owned by the graph are not linked into it");
}

std::string Graph::print_tabular() const {
  std::vector<std::array<std::string, 5>> rows = {{"opcode", "name", "target", "args", "kwargs"}};
  for (const Node* n : nodes()) {
    std::string kw = "{";
    for (size_t i = 0; i < n->kwargs_.size(); ++i)
      kw += (i ? ", " : "") + std::string("'") + n->kwargs_[i].first + "': " + n->kwargs_[i].second.str();
    kw += "}";
    std::string args = Arg::tuple(n->args_).str();
    for (size_t p; (p = args.find('%')) != std::string::npos;) args.erase(p, 1);
    for (size_t p; (p = kw.find('%')) != std::string::npos;) kw.erase(p, 1);
    rows.push_back({std::string(opcode_name(n->op_)), n->name_,
                    n->target_object_ ? n->target_object_->repr() : n->target_, args, kw});
  }
  std::array<size_t, 5> w{};
  for (const auto& r : rows)
    for (size_t c = 0; c < 5; ++c) w[c] = std::max(w[c], r[c].size());
  std::string out;
  auto line = [&](const std::array<std::string, 5>& r) {
    std::string l;
    for (size_t c = 0; c < 5; ++c) l += r[c] + std::string(c < 4 ? w[c] - r[c].size() + 2 : 0, ' ');
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  line(rows[0]);
  std::array<std::string, 5> rule;
  for (size_t c = 0; c < 5; ++c) rule[c] = std::string(w[c], '-');
  line(rule);
  for (size_t i = 1; i < rows.size(); ++i) line(rows[i]);
  return out;
}

std::string Graph::str() const {
  std::string r = "graph():\n";
  for (const Node* n : nodes()) r += "    " + n->format() + "\n";
  return r;
}

std::vector<std::string> operator_list(const Graph& g) {
  std::set<std::string> fns, methods;
  for (const Node* n : g.nodes()) {
    if (n->op() == Opcode::CallFunction) fns.insert(n->target());
    if (n->op() == Opcode::CallMethod) methods.insert("Tensor." + n->target());
  }
  std::vector<std::string> out(fns.begin(), fns.end());
  out.insert(out.end(), methods.begin(), methods.end());
  return out;
}

}  // namespace ember::fx
