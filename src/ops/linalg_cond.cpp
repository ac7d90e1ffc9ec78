// torch.linalg.cond: the condition number of each matrix in the norm `p`. For p = None/2/-2 it
// is the ratio of the extreme singular values (any m x n matrix); for 1, -1, inf, -inf, "fro"
// and "nuc" it is ||A|| ||A^-1|| (square matrices), infinite for a singular matrix. A
// composite of svdvals, inv_ex and matrix_norm, so it is differentiable (PyTorch 1.13's own
// backward fails for the inverse norms because it fills the inverse in place).
#include <cmath>
#include <limits>

#include "ember/dispatch.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/ops/indexing.h"
#include "ops/linalg_factor_util.h"

namespace ember {
namespace linalg_cond_ops {
namespace {

using CondSig = Tensor(const Tensor&, const std::optional<Scalar>&);
using CondStrSig = Tensor(const Tensor&, std::string_view);

// Condition numbers of 0 x 0 matrices are 0 (NumPy leaves them undefined); an empty batch
// gives an empty result.
Tensor empty_matrices(const Tensor& A) {
  const ScalarType real = A.is_complex() ? to_real_type(A.dtype()) : A.dtype();
  return zeros(A.sizes().slice(0, static_cast<size_t>(A.dim() - 2)), TensorOptions(real));
}

// ord_text: how PyTorch prints the order in its message (1, -1, inf, -inf, fro, nuc).
template <typename Ord, typename Text>
Tensor inverse_norm_cond(const Tensor& A, const Ord& ord, const Text& ord_text,
                         double singular_value = std::numeric_limits<double>::infinity()) {
  EMBER_CHECK(A.size(-1) == A.size(-2), RuntimeError, "linalg.cond(ord=", ord_text,
              "): A must be batches of square matrices, but they are ", A.size(-2), " by ", A.size(-1), " matrices");
  // Singular matrices: infinite, as PyTorch (NaN for "nuc", whose singular values of a
  // non-finite inverse PyTorch reports as NaN); their inverse is zeroed so that no LAPACK call
  // sees non-finite input.
  auto [inverse, info] = linalg::inv_ex(A);
  const Tensor singular = info.gt(0);
  inverse = masked_fill(inverse, singular.unsqueeze(-1).unsqueeze(-1), 0.0);
  const Tensor r = linalg::matrix_norm(A, ord).mul(linalg::matrix_norm(inverse, ord));
  return masked_fill(r, singular, singular_value);
}

Tensor cond_k(const Tensor& A, const std::optional<Scalar>& p) {
  EMBER_CHECK(A.dim() >= 2, RuntimeError, "linalg.cond: The input tensor must have at least 2 dimensions.");
  const double ord = p ? p->to<double>() : 2.0;
  const bool valid = ord == 2 || ord == -2 || ord == 1 || ord == -1 || std::isinf(ord);
  EMBER_CHECK(valid, RuntimeError, "linalg.cond got an invalid norm type: ", ord);
  if (std::abs(ord) == 2) {
    if (A.numel() == 0) return empty_matrices(A);
    const Tensor s = linalg::svdvals(A);
    const Tensor s_max = s.narrow(-1, 0, 1), s_min = s.narrow(-1, s.size(-1) - 1, 1);
    return (ord == 2 ? s_max.div(s_min) : s_min.div(s_max)).squeeze(-1);
  }
  return inverse_norm_cond(A, Scalar(ord), ord);
}

Tensor cond_str_k(const Tensor& A, std::string_view p) {
  EMBER_CHECK(A.dim() >= 2, RuntimeError, "linalg.cond: The input tensor must have at least 2 dimensions.");
  EMBER_CHECK(p == "fro" || p == "nuc", RuntimeError, "linalg.cond got an invalid norm type: ", p);
  return inverse_norm_cond(A, p, p, p == "nuc" ? std::numeric_limits<double>::quiet_NaN()
                                               : std::numeric_limits<double>::infinity());
}

// out=: differentiable as PyTorch's (a copy into out), in any dtype the result casts to.
Tensor& cond_out_k(const Tensor& A, const std::optional<Scalar>& p, Tensor& out) {
  linalg_factor_ops::set_out_cast("linalg.cond", "result", out, cond_k(A, p));
  return out;
}
Tensor& cond_str_out_k(const Tensor& A, std::string_view p, Tensor& out) {
  linalg_factor_ops::set_out_cast("linalg.cond", "result", out, cond_str_k(A, p));
  return out;
}
using CondOutSig = Tensor&(const Tensor&, const std::optional<Scalar>&, Tensor&);
using CondStrOutSig = Tensor&(const Tensor&, std::string_view, Tensor&);

EMBER_REGISTER(linalg_cond_ops) {
  const uint32_t fo = static_cast<uint32_t>(Tag::FunctionOnly);
  define_op<CondSig>("linalg_cond(Tensor self, Scalar? p=None) -> Tensor", fo);
  register_composite<CondSig, &cond_k>("linalg_cond");
  define_op<CondStrSig>("linalg_cond.p_str(Tensor self, str p) -> Tensor", fo);
  register_composite<CondStrSig, &cond_str_k>("linalg_cond.p_str");
  define_op<CondOutSig>("linalg_cond.out(Tensor self, Scalar? p=None, *, Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<CondOutSig, &cond_out_k>("linalg_cond.out");
  define_op<CondStrOutSig>("linalg_cond.p_str_out(Tensor self, str p, *, Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<CondStrOutSig, &cond_str_out_k>("linalg_cond.p_str_out");
}

}  // namespace
}  // namespace linalg_cond_ops

namespace linalg {
Tensor cond(const Tensor& A, const std::optional<Scalar>& p) {
  static const TypedOp<linalg_cond_ops::CondSig> op("linalg_cond");
  return op.call(A, p);
}
Tensor cond(const Tensor& A, std::string_view p) {
  static const TypedOp<linalg_cond_ops::CondStrSig> op("linalg_cond.p_str");
  return op.call(A, p);
}
Tensor& cond_out(Tensor& out, const Tensor& A, const std::optional<Scalar>& p) {
  static const TypedOp<linalg_cond_ops::CondOutSig> op("linalg_cond.out");
  return op.call(A, p, out);
}
Tensor& cond_out(Tensor& out, const Tensor& A, std::string_view p) {
  static const TypedOp<linalg_cond_ops::CondStrOutSig> op("linalg_cond.p_str_out");
  return op.call(A, p, out);
}
}  // namespace linalg

}  // namespace ember
