// Forward-mode automatic differentiation (torch.autograd.forward_ad).
//
// Inside a dual level a tensor may carry a tangent (make_dual). Dual tensors carry the
// Autograd dispatch key, and the Autograd layer (src/autograd/fallback.cpp) computes the
// tangent of every op's results whose inputs have tangents, with the op's JVP rule
// (src/autograd/jvp_*.cpp) or, for ops with only a backward formula, a JVP derived from it
// (the VJP u -> J^T u is linear, so J t is the gradient of <J^T u, t> with respect to u).
// As in PyTorch 1.13 only one level may be live at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ember/tensor.h"

namespace ember {
class IValue;
}

namespace ember::autograd::forward_ad {

// Enters a new dual level and returns its index (0: levels do not nest).
int64_t enter_dual_level();
// Leaves the innermost level (the given one, which must be it); its tangents are dropped.
void exit_dual_level(std::optional<int64_t> level = std::nullopt);

// RAII: a dual level for a scope (torch.autograd.forward_ad.dual_level).
class DualLevel {
 public:
  DualLevel() : level_(enter_dual_level()) {}
  ~DualLevel() { exit_dual_level(level_); }
  DualLevel(const DualLevel&) = delete;
  DualLevel& operator=(const DualLevel&) = delete;
  int64_t level() const { return level_; }

 private:
  int64_t level_;
};

// A view of `tensor` whose tangent at `level` (default: the current one) is `tangent`, copied
// to the primal's layout when its strides differ.
Tensor make_dual(const Tensor& tensor, const Tensor& tangent, std::optional<int64_t> level = std::nullopt);

struct UnpackedDual {
  Tensor primal;   // a view of the dual tensor without its tangent
  Tensor tangent;  // undefined when the tensor has none at the level
};
UnpackedDual unpack_dual(const Tensor& tensor, std::optional<int64_t> level = std::nullopt);

// Whether a dual level is live (and this thread is not computing a JVP rule).
bool is_active();

// ---------------------------------------------------------------- JVP rules
// What a JVP rule sees: the op's arguments as passed (tensor arguments are the primals; for an
// in-place op, the written argument's value before the write), their tangents, the results.
// Ops run inside a rule compute no tangents of their own.
struct JvpContext {
  const std::vector<IValue>& args;
  const std::vector<std::vector<Tensor>>& tangents;  // per argument: one per tensor (list element)
  const std::vector<Tensor>& results;

  const Tensor& tensor(size_t arg) const;
  const std::vector<Tensor>& tensor_list(size_t arg) const;
  // The tangent of a Tensor argument, undefined when it has none (a zero tangent).
  const Tensor& tangent(size_t arg) const;
  // The tangent of a Tensor argument, zeros when it has none.
  Tensor tangent_or_zeros(size_t arg) const;
  const std::vector<Tensor>& tangent_list(size_t arg) const;
  Scalar scalar(size_t arg) const;
  int64_t int_arg(size_t arg) const;
  double double_arg(size_t arg) const;
  bool bool_arg(size_t arg) const;
  std::vector<int64_t> int_list(size_t arg) const;
  bool is_none(size_t arg) const;
  std::optional<ScalarType> dtype_arg(size_t arg) const;
  std::optional<std::string> string_arg(size_t arg) const;
  const Tensor& result(size_t i = 0) const { return results[i]; }
};
// Tangents of the results (one per result; undefined: zero). They are broadcast to the
// result's shape and cast to its dtype (the real part for a real result).
using JvpRule = std::function<std::vector<Tensor>(const JvpContext&)>;
// Registers the JVP of an op ("mul.Tensor"); in-place ops use their functional op's rule.
void register_jvp(const std::string& op, JvpRule rule);
bool has_jvp(const std::string& op);

}  // namespace ember::autograd::forward_ad

namespace ember::func {
// functorch's jvp: (f(primals), J(primals) tangents), one tangent per primal (same shapes);
// outputs that do not depend on the primals get zero tangents.
std::pair<std::vector<Tensor>, std::vector<Tensor>> jvp(
    const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& primals,
    const std::vector<Tensor>& tangents);
}  // namespace ember::func
