// Tracing C++ code into an ember::fx::Graph through the Trace dispatch key, and the runtime
// the generated C++ source (graph_to_cpp in ember/fx.h) calls.
//
// While a trace runs, the thread includes DispatchKey::Trace, so every dispatched op reaches
// the Trace layer's fallback: it records a call_function node (target: the op's full name,
// such as "add.Tensor"; args and kwargs as the schema splits them) and redispatches below
// Trace on Meta tensors, so shapes and dtypes are computed and no data is touched. Inputs are
// Meta "proxy" tensors; parameters and buffers of a traced module become get_attr nodes, other
// tensors the code captures become attributes named "_tensor_constant<i>". View methods
// (view, permute, slicing, ...) are not dispatched ops: they report to the tracer from where
// views are made and are recorded as Tensor.as_strided calls.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ember/dispatch.h"
#include "ember/fx.h"

namespace ember::nn {
class Module;
}

namespace ember::fx {

using Attributes = std::unordered_map<std::string, Tensor>;

struct TraceResult {
  std::shared_ptr<Graph> graph;
  // What get_attr nodes read: the module's parameters and buffers, captured constants.
  Attributes attributes;
};

// Traces fn on Meta tensors shaped like example_inputs (their data is not read). attributes
// names tensors fn reads that should become get_attr nodes rather than constants.
TraceResult trace(const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& fn,
                  const std::vector<Tensor>& example_inputs, const Attributes& attributes = {},
                  const std::vector<std::string>& input_names = {});
// Traces module.call(inputs); parameters and buffers become get_attr nodes by their dotted
// names.
TraceResult trace_module(nn::Module& module, const std::vector<Tensor>& example_inputs);

// Runs a graph whose call_function targets are op names, node by node. Subclass and override
// an opcode's method to change how its nodes run; each returns the node's results (one value
// for most nodes; several for ops with several results, read by getitem nodes).
class Interpreter {
 public:
  explicit Interpreter(const Graph& g, Attributes attributes = {}) : graph_(g), attributes_(std::move(attributes)) {}
  virtual ~Interpreter() = default;
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);

 protected:
  virtual Stack placeholder(const Node& n, const Tensor& input);
  virtual Stack get_attr(const Node& n);
  // args: boxed by the op's schema, one per schema argument.
  virtual Stack call_function(const Node& n, Stack args);
  virtual Stack call_method(const Node& n, Stack args);
  virtual Stack call_module(const Node& n, Stack args);
  // The value of a node's (single) result.
  IValue value(const Node* n) const;

  const Graph& graph_;
  Attributes attributes_;
  std::unordered_map<const Node*, Stack> env_;
};

// Rebuilds a graph node by node; override an opcode's method to emit something else. Each
// gets the node and its args/kwargs already mapped into the new graph.
class Transformer {
 public:
  explicit Transformer(const Graph& g) : graph_(g) {}
  virtual ~Transformer() = default;
  std::shared_ptr<Graph> transform();

 protected:
  virtual Node* placeholder(Graph& out, const Node& n, std::vector<Arg> args);
  virtual Node* get_attr(Graph& out, const Node& n);
  virtual Node* call_function(Graph& out, const Node& n, std::vector<Arg> args, Kwargs kwargs);
  virtual Node* call_method(Graph& out, const Node& n, std::vector<Arg> args, Kwargs kwargs);
  virtual Node* call_module(Graph& out, const Node& n, std::vector<Arg> args, Kwargs kwargs);

  const Graph& graph_;
};

// Interpreter(g, attributes).run(inputs).
std::vector<Tensor> run_graph(const Graph& g, const std::vector<Tensor>& inputs, const Attributes& attributes = {});

// Runs one op by its full name on boxed arguments (all of the schema's, in order); returns the
// results (for in-place and out= ops, the arguments). Generated C++ calls this.
Stack call_op(std::string_view full_name, Stack args);

// True while the calling thread is tracing.
bool is_tracing();
// Records a view made while this thread traces (called through report_view).
void record_view(const Tensor& base, const Tensor& view);
namespace detail {
extern std::atomic<int> live_traces;  // traces running on any thread
}  // namespace detail
// Where views are made: reports the view while a trace runs. A relaxed load of a global first,
// so that code that never traces pays no thread-local lookup per view.
inline void report_view(const Tensor& base, const Tensor& view) {
  if (detail::live_traces.load(std::memory_order_relaxed) != 0) record_view(base, view);
}

}  // namespace ember::fx
