// Higher-order derivatives of whole functions, as torch.autograd.functional: vector-Jacobian
// and Jacobian-vector products, Jacobians, Hessians and their products with vectors. All are
// built on autograd::grad (reverse mode); jvp uses forward-mode AD (include/ember/forward_ad.h),
// except with strict or create_graph, where it keeps PyTorch 1.13's double-backward trick (its
// strict checks and which results require grad come from that graph); hvp the double-backward
// trick.
//
// Inputs that do not require grad are differentiated through a detached copy, so results
// never carry history unless create_graph is true. With strict, an output that does not
// depend on an input raises (instead of giving zeros), with PyTorch's messages.
#pragma once

#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/tensor.h"

namespace ember::autograd::functional {

// A Tensor or a tuple of Tensors, the shape of torch.autograd.functional's arguments and
// results. is_tuple only affects error messages and how results nest (see Jacobian); C++
// callers read `tensors`.
struct TensorOrTuple {
  std::vector<Tensor> tensors;
  bool is_tuple = true;

  TensorOrTuple() = default;
  TensorOrTuple(Tensor t) : tensors{std::move(t)}, is_tuple(false) {}  // NOLINT: a single Tensor
  TensorOrTuple(std::vector<Tensor> ts) : tensors(std::move(ts)) {}     // NOLINT: a tuple
  TensorOrTuple(std::initializer_list<Tensor> ts) : tensors(ts) {}
  size_t size() const { return tensors.size(); }
  const Tensor& operator[](size_t i) const { return tensors[i]; }
};

// The differentiated function. A callable returning std::vector<Tensor> (a tuple) or Tensor
// (a single output) converts to it.
using Function = std::function<TensorOrTuple(const std::vector<Tensor>&)>;

// blocks[i][j] = d output i / d input j, of shape output_i.sizes() + input_j.sizes(). Python
// returns blocks[0][0] when neither side is a tuple, a tuple over the side that is, and a
// tuple of tuples when both are (outer: outputs; for a Hessian both sides are the inputs).
struct Jacobian {
  std::vector<std::vector<Tensor>> blocks;
  bool outputs_tuple = false;
  bool inputs_tuple = false;
};

// (func(inputs), v^T J). v may be omitted when func returns one single-element Tensor.
std::pair<TensorOrTuple, TensorOrTuple> vjp(const Function& func, const TensorOrTuple& inputs,
                                            const std::optional<TensorOrTuple>& v = std::nullopt,
                                            bool create_graph = false, bool strict = false);
// (func(inputs), J v). v may be omitted when there is one single-element input.
std::pair<TensorOrTuple, TensorOrTuple> jvp(const Function& func, const TensorOrTuple& inputs,
                                            const std::optional<TensorOrTuple>& v = std::nullopt,
                                            bool create_graph = false, bool strict = false);
// One backward pass per output element, or with vectorize=true one pass vmapped over them.
// strategy "forward-mode" (vectorize=true only, as PyTorch): one forward-mode pass vmapped over
// the inputs' elements; for hessian, forward over reverse (outer_jacobian_strategy).
Jacobian jacobian(const Function& func, const TensorOrTuple& inputs, bool create_graph = false,
                  bool strict = false, bool vectorize = false, const std::string& strategy = "reverse-mode");
// func returns one single-element Tensor; the Jacobian of its gradient.
Jacobian hessian(const Function& func, const TensorOrTuple& inputs, bool create_graph = false, bool strict = false,
                 bool vectorize = false, const std::string& outer_jacobian_strategy = "reverse-mode");
// (func(inputs), v^T H) and (func(inputs), H v) for a func returning one single-element Tensor.
std::pair<TensorOrTuple, TensorOrTuple> vhp(const Function& func, const TensorOrTuple& inputs,
                                            const std::optional<TensorOrTuple>& v = std::nullopt,
                                            bool create_graph = false, bool strict = false);
std::pair<TensorOrTuple, TensorOrTuple> hvp(const Function& func, const TensorOrTuple& inputs,
                                            const std::optional<TensorOrTuple>& v = std::nullopt,
                                            bool create_graph = false, bool strict = false);

}  // namespace ember::autograd::functional
