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
#include <memory>
#include <optional>
#include <string>
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
  uint32_t num_inputs() const { return num_inputs_; }
  void set_num_inputs(uint32_t n) { num_inputs_ = n; }
  // Later nodes run first when several are ready (the order PyTorch uses).
  uint64_t sequence_nr() const { return sequence_nr_; }

  // Hooks on the gradients that arrive at input `input_nr` (a non-leaf tensor's hooks).
  void add_input_hook(uint32_t input_nr, GradHook hook);
  std::vector<Tensor> run_input_hooks(std::vector<Tensor> grads) const;

 protected:
  std::vector<Edge> next_edges_;
  uint32_t num_inputs_ = 1;
  uint64_t sequence_nr_;
  std::vector<std::pair<uint32_t, GradHook>> input_hooks_;
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
// an error.
std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs = {},
                         std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                         bool allow_unused = false);

// ---------------------------------------------------------------- derivative formulas
// What a backward formula sees: the forward op's arguments as they were passed (tensors
// among them as saved, unpacked with a version check), its results, and which inputs need
// a gradient.
class SavedOp;
struct BackwardContext {
  const SavedOp& op;
  // The forward arguments in schema order; tensors are the saved ones.
  const Tensor& tensor(size_t arg) const;
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

}  // namespace ember::autograd
