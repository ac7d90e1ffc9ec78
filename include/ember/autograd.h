// Reverse-mode automatic differentiation.
//
// A tensor that requires grad carries the Autograd dispatch key. Every op called on such a
// tensor goes through the Autograd layer (src/autograd/fallback.cpp), which runs the op below
// the layer and, when grad mode is on, records a Node: the op's backward formula with what it
// saved, and one Edge per differentiable input to the node that produced it (or to the
// input's gradient accumulator when it is a leaf). `backward` and `grad` run the graph in
// reverse topological order (src/autograd/engine.cpp). Gradients follow PyTorch's
// conventions, including the conjugate Wirtinger derivative for complex tensors.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "ember/tensor.h"

namespace ember::autograd {

// ---------------------------------------------------------------- grad modes
// Whether ops record graphs on this thread (on by default).
struct GradMode {
  static bool is_enabled();
  static void set_enabled(bool enabled);
};

// RAII: sets grad mode for a scope and restores the previous one.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) : prev_(GradMode::is_enabled()) { GradMode::set_enabled(enabled); }
  ~AutoGradMode() { GradMode::set_enabled(prev_); }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};
struct NoGradGuard : AutoGradMode {
  NoGradGuard() : AutoGradMode(false) {}
};
struct EnableGradGuard : AutoGradMode {
  EnableGradGuard() : AutoGradMode(true) {}
};

// ---------------------------------------------------------------- anomaly detection
// A process-wide debugging mode (torch.autograd.detect_anomaly). While it is on, every node
// recorded keeps where it was created, and the backward pass checks each node it runs: an
// error raised inside one, or (with check_nan) a gradient it returns that holds NaN, is
// reported with the node's creation traceback. Off, it costs one relaxed load per node.
struct AnomalyMode {
  static bool is_enabled();
  static bool should_check_nan();
  static void set_enabled(bool enabled, bool check_nan = true);
};

// RAII: turns anomaly mode on for a scope and restores the previous setting.
class DetectAnomalyGuard {
 public:
  explicit DetectAnomalyGuard(bool check_nan = true);
  ~DetectAnomalyGuard();
  DetectAnomalyGuard(const DetectAnomalyGuard&) = delete;
  DetectAnomalyGuard& operator=(const DetectAnomalyGuard&) = delete;

 private:
  bool prev_, prev_check_nan_;
};

// How anomaly mode captures a node's creation traceback and reports it. By default C++ keeps
// a native backtrace and appends the report to the error's message; the Python layer installs
// hooks that capture the Python traceback and issue the report as a UserWarning, as PyTorch
// does. Unset members keep their default.
struct AnomalyHooks {
  std::function<std::string()> capture;
  std::function<void(const std::string& report)> warn;
};
void set_anomaly_hooks(AnomalyHooks hooks);

// ---------------------------------------------------------------- the graph
class Node;

// An input slot of a node: gradients flowing along the edge arrive at fn's input `input_nr`.
struct Edge {
  std::shared_ptr<Node> fn;
  uint32_t input_nr = 0;
  bool valid() const { return fn != nullptr; }
};

// A gradient hook: may return a replacement gradient (undefined: keep the gradient).
using GradHook = std::function<Tensor(const Tensor&)>;

// A node's post hook (torch's Node::register_hook, a FunctionPostHook): called after the node
// ran, with grad_inputs, the gradients it produced (one per next edge, w.r.t. the forward op's
// inputs; undefined for an input that gets none) and grad_outputs, the gradients that flowed
// into it (w.r.t. the forward op's outputs, after the tensors' own hooks). Returns nullopt to
// keep grad_inputs, or replacements: as many as grad_inputs, undefined to drop a gradient.
using PostHook = std::function<std::optional<std::vector<Tensor>>(const std::vector<Tensor>& grad_inputs,
                                                                  const std::vector<Tensor>& grad_outputs)>;

// A backward function. Its inputs are the gradients of the forward op's outputs; its outputs
// are the gradients of the forward op's inputs, sent along next_edges() in order.
class Node : public std::enable_shared_from_this<Node> {
 public:
  Node();
  virtual ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  virtual std::string name() const = 0;
  // grads has num_inputs() entries; an undefined entry stands for zeros.
  virtual std::vector<Tensor> apply(std::vector<Tensor> grads) = 0;
  // Drops saved tensors after a backward pass that does not retain the graph.
  virtual void release_saved() {}

  const std::vector<Edge>& next_edges() const { return next_edges_; }
  void add_next_edge(Edge e) { next_edges_.push_back(std::move(e)); }
  void set_next_edges(std::vector<Edge> e) { next_edges_ = std::move(e); }
  uint32_t num_inputs() const { return num_inputs_; }
  void set_num_inputs(uint32_t n) { num_inputs_ = n; }
  // Later nodes run first when several are ready (the order PyTorch uses).
  uint64_t sequence_nr() const { return sequence_nr_; }

  // Hooks on the gradients that arrive at input `input_nr` (a non-leaf tensor's hooks).
  void add_input_hook(uint32_t input_nr, GradHook hook);
  std::vector<Tensor> run_input_hooks(std::vector<Tensor> grads) const;
  // Where the node was created, when anomaly mode was on then; null otherwise.
  const std::string* anomaly_trace() const { return anomaly_trace_.get(); }

  // Post hooks, run in registration order each time a backward pass runs the node, each on
  // what the previous one returned. register_hook returns a handle for remove_hook (removing
  // one twice, or one that is not there, does nothing).
  int64_t register_hook(PostHook hook);
  void remove_hook(int64_t handle);
  bool has_post_hooks() const { return !post_hooks_.empty(); }
  // grad_inputs as the hooks leave them; raises when one returns the wrong number of values.
  std::vector<Tensor> run_post_hooks(std::vector<Tensor> grad_inputs, const std::vector<Tensor>& grad_outputs);

 protected:
  std::vector<Edge> next_edges_;
  uint32_t num_inputs_ = 1;
  uint64_t sequence_nr_;
  std::vector<std::pair<uint32_t, GradHook>> input_hooks_;
  std::unique_ptr<std::string> anomaly_trace_;

 private:
  struct PostHookEntry {
    int64_t id;
    PostHook fn;
    bool alive = true;  // false once removed: a pass that already copied the list skips it
  };
  std::vector<std::shared_ptr<PostHookEntry>> post_hooks_;
};

// ---------------------------------------------------------------- tensors
bool requires_grad(const Tensor& t);
// requires_grad_: only floating and complex tensors, and only leaves, may change it.
const Tensor& set_requires_grad(const Tensor& t, bool requires_grad = true);
bool is_leaf(const Tensor& t);
std::shared_ptr<Node> grad_fn(const Tensor& t);
// Which output of grad_fn the tensor is.
uint32_t output_nr(const Tensor& t);
// The accumulated gradient (.grad); undefined until a backward pass reaches the tensor.
Tensor grad(const Tensor& t);
void set_grad(const Tensor& t, const Tensor& g);
// zero_grad for one tensor: drops .grad (set_to_none), or detaches it and zeroes it in place.
void clear_grad(const Tensor& t, bool set_to_none);
// Keeps .grad of a non-leaf tensor in backward passes.
void retain_grad(const Tensor& t);
bool retains_grad(const Tensor& t);
// A tensor on the same storage that is outside every graph.
Tensor detach(const Tensor& t);
// Makes t a leaf that does not require grad (detach_).
void detach_(const Tensor& t);
// Hook on the gradient of t; returns a handle for remove_hook.
int64_t register_hook(const Tensor& t, GradHook hook);
void remove_hook(const Tensor& t, int64_t handle);

// The edge along which t's gradient flows: (grad_fn, output_nr), or t's gradient
// accumulator for a leaf that requires grad, or an invalid edge.
Edge gradient_edge(const Tensor& t);

// ---------------------------------------------------------------- backward passes
// Accumulates the gradients of roots into the .grad of the leaves they depend on (or only of
// `inputs` when given). grad_roots may be empty for scalar roots (a gradient of ones).
// retain_graph defaults to create_graph.
void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
              const std::vector<Tensor>& inputs = {});

// The gradients of outputs with respect to inputs, returned rather than accumulated.
// allow_unused: an input the outputs do not depend on gets an undefined tensor instead of
// an error. is_grads_batched: the first dim of each grad_output is a batch dim, and the
// backward pass is vmapped over it (results get the batch dim first).
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {},
                         std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                         bool allow_unused = false, bool is_grads_batched = false);

// ---------------------------------------------------------------- derivative formulas
// What a backward formula sees: the forward op's arguments as they were passed (tensors
// among them as saved, unpacked with a version check), its results, and which inputs need
// a gradient.
class SavedOp;
struct BackwardContext {
  const SavedOp& op;
  // The forward arguments in schema order; tensors are the saved ones.
  const Tensor& tensor(size_t arg) const;
  // A saved Tensor[] (or Tensor?[], None entries undefined) argument.
  const std::vector<Tensor>& tensor_list(size_t arg) const;
  Scalar scalar(size_t arg) const;
  int64_t int_arg(size_t arg) const;
  bool bool_arg(size_t arg) const;
  std::vector<int64_t> int_list(size_t arg) const;
  bool is_none(size_t arg) const;
  std::optional<std::string> string_arg(size_t arg) const;
  std::optional<ScalarType> dtype_arg(size_t arg) const;
  const Tensor& result(size_t i = 0) const;
  // Tensor inputs are numbered in slots: one per Tensor argument, one per element of a
  // Tensor[] argument, in schema order.
  bool needs_grad(size_t slot) const;
  IntArrayRef input_sizes(size_t slot) const;
  ScalarType input_dtype(size_t slot) const;
  size_t num_slots() const;
};
// Gradients of the tensor inputs (by slot; an entry may stay undefined when its input needs
// none) from the gradients of the results. They are summed to the input's shape where the
// op broadcast, and cast to the input's dtype (the real part for a real input).
using Formula = std::function<std::vector<Tensor>(const BackwardContext&, const std::vector<Tensor>& grads)>;

struct Derivative {
  // Empty: the op's results are not differentiable (they never require grad).
  Formula formula;
  // Which tensor arguments (schema positions) and whether the results are saved for the
  // formula; everything else the formula reads must be a non-tensor argument.
  std::vector<size_t> saves;
  bool saves_result = false;
};
// Registers the derivative of an op ("mul.Tensor"); ops without one raise at backward time
// ("the derivative for '<op>' is not implemented").
void register_derivative(const std::string& op, Derivative d);
bool has_derivative(const std::string& op);

// Sums g over the dims that were broadcast to reach g's shape from `sizes`.
Tensor sum_to(const Tensor& g, IntArrayRef sizes);

// ---------------------------------------------------------------- custom functions
// What a custom function's forward leaves for its backward.
class AutogradContext {
 public:
  void save_for_backward(std::vector<Tensor> tensors);
  // The saved tensors; raises if one was modified in place since it was saved, or if the
  // graph was freed by an earlier backward pass.
  std::vector<Tensor> get_saved_variables() const;
  // Inputs the forward modified in place; outputs that are not differentiable.
  void mark_dirty(const std::vector<Tensor>& tensors);
  void mark_non_differentiable(const std::vector<Tensor>& tensors);
  // Whether input i (counting the forward's tensor arguments) needs a gradient.
  bool needs_input_grad(size_t i) const { return i < needs_input_grad_.size() && needs_input_grad_[i]; }
  // Anything else backward needs (sizes, flags), by name.
  std::map<std::string, Scalar> saved_data;

 private:
  friend std::vector<Tensor> record_function(const std::string&, const std::vector<Tensor>&, std::vector<Tensor>,
                                             std::shared_ptr<AutogradContext>, std::function<std::vector<Tensor>(
                                                 AutogradContext&, std::vector<Tensor>)>);
  friend class FunctionNode;
  std::vector<Tensor> saved_;
  std::vector<uint32_t> saved_versions_;
  std::vector<bool> needs_input_grad_;
  std::vector<TensorImpl*> dirty_, non_differentiable_;
  bool released_ = false;
};

// Gives the outputs of a custom forward (run without recording) their history: a node whose
// backward maps the gradients of the outputs to those of `inputs` (one entry per input; an
// undefined entry for an input that gets none). Returns the outputs, where an input
// returned unchanged comes back as a new alias.
std::vector<Tensor> record_function(const std::string& name, const std::vector<Tensor>& inputs,
                                    std::vector<Tensor> outputs, std::shared_ptr<AutogradContext> ctx,
                                    std::function<std::vector<Tensor>(AutogradContext&, std::vector<Tensor>)> backward);

// A custom differentiable function, as torch::autograd::Function<T>:
//   struct Square : Function<Square> {
//     static Tensor forward(AutogradContext* ctx, const Tensor& x) { ctx->save_for_backward({x}); return mul(x, x); }
//     static std::vector<Tensor> backward(AutogradContext* ctx, std::vector<Tensor> g) {
//       return {mul(g[0], mul(ctx->get_saved_variables()[0], 2))};
//     }
//   };
//   Tensor y = Square::apply(x);
// backward returns one gradient per Tensor argument of forward, in order.
template <class T>
struct Function {
  template <typename... Args>
  static auto apply(Args&&... args) {
    auto ctx = std::make_shared<AutogradContext>();
    std::vector<Tensor> inputs;
    auto collect = [&](const auto& a) {
      if constexpr (std::is_same_v<std::decay_t<decltype(a)>, Tensor>) inputs.push_back(a);
    };
    (collect(args), ...);
    using Out = decltype(T::forward(ctx.get(), std::forward<Args>(args)...));
    Out out = [&] {
      AutoGradMode no_grad(false);
      return T::forward(ctx.get(), std::forward<Args>(args)...);
    }();
    std::vector<Tensor> outs;
    if constexpr (std::is_same_v<Out, Tensor>) outs = {out};
    else outs = out;
    auto backward = [](AutogradContext& c, std::vector<Tensor> g) { return T::backward(&c, std::move(g)); };
    outs = record_function("CppNode", inputs, std::move(outs), ctx, backward);
    if constexpr (std::is_same_v<Out, Tensor>) return outs[0];
    else return outs;
  }
};

}  // namespace ember::autograd

namespace ember {

// RAII: inference mode (c10::InferenceMode) for a scope, restoring the previous state. On:
// grad mode is off and the Autograd layer is skipped even under EnableGradGuard, and tensors
// made are inference tensors (Tensor::is_inference). Off (enabled=false): grad mode on and the
// Autograd layer back, as PyTorch's InferenceMode(false) does.
class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true);
  ~InferenceMode();
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;
  // Per thread.
  static bool is_enabled();

 private:
  bool prev_mode_, prev_grad_;
  DispatchKeySet prev_excluded_;
};

}  // namespace ember
