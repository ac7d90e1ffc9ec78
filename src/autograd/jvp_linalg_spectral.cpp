// JVP rules of the spectral primitives (src/ops/linalg_spectral.cpp): the JVP derived from
// their backward formulas cannot fix the gauge of the vectors, so they are written out here.
// With dP the tangent of A in the basis of the vectors, each rule solves the differentiated
// defining equation; the vectors' gauge is PyTorch's (FunctionsManual.cpp linalg_eig_jvp,
// svd_jvp, linalg_qr_jvp):
//   eigh  dL = Re diag(dP), dV = V (dP / E), dP = V^H sym(dA) V, E_ij = L_j - L_i, zero diagonal
//         (so V^H dV is skew-Hermitian with a zero diagonal).
//   eig   dP = V^{-1} dA V, dL = diag(dP), dV = V C with C = dP / E off the diagonal and
//         C_ii = -Re (V^H V C)_ii, which keeps the columns of unit norm.
//   svd   dP = U^H dA V, dS = Re diag(dP); U^H dU = (dP S + S dP^H) / F, V^H dV = (S dP + dP^H S) / F
//         off the diagonal (F_ij = S_j^2 - S_i^2), the phase Im dP_ii / S_i split evenly between
//         u_i and v_i; the parts outside the span of U (V) are (I - U U^H) dA V S^{-1} and
//         (I - V V^H) dA^H U S^{-1}. The extra columns of full_matrices get zero tangents.
//   qr    (m >= n) C = dA R^{-1}, W = Q^H C, Omega = the skew-Hermitian matrix with W's strict
//         lower triangle (and i Im diag(W), R's diagonal being real): dR = (W - Omega) R,
//         dQ = C - Q (W - Omega). Wide A = [X | Y]: X = Q R1 as above, dR2 = dQ^H Y + Q^H dY.
// The rules are written with ops, so a tangent differentiates again.
#include <complex>

#include "autograd/linalg_spectral_checks.h"

#include "ember/dispatch.h"
#include "ember/error.h"
#include "ember/forward_ad.h"
#include "ember/linalg/factor.h"
#include "ember/linalg/spectral.h"
#include "ember/ops.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"

namespace ember::autograd::forward_ad::linalg_spectral_rules {
namespace {

using Ts = std::vector<Tensor>;

Tensor mH(const Tensor& t) { return t.is_complex() ? conj(t).mT() : t.mT(); }
Tensor re(const Tensor& t) { return t.is_complex() ? t.real() : t; }
const Scalar kI{std::complex<double>(0.0, 1.0)};

// X with its diagonal zeroed.
Tensor off_diag(const Tensor& X) {
  const int64_t n = X.size(-1);
  const TensorOptions o = TensorOptions(to_real_type(X.dtype())).device(X.device());
  return mul(X, sub(ones({n, n}, o), eye(n, std::nullopt, o)));
}

// x_j - x_i (i: row, j: column) with ones on the diagonal, so that dividing by it leaves the
// diagonal alone.
Tensor gaps(const Tensor& x) {
  const TensorOptions o = TensorOptions(x.dtype()).device(x.device());
  return add(sub(x.unsqueeze(-2), x.unsqueeze(-1)), eye(x.size(-1), std::nullopt, o));
}

// X R^{-1} for square invertible R.
Tensor solve_right(const Tensor& X, const Tensor& R) { return linalg::solve(R, X, /*left=*/false); }

Tensor tangent_as(const JvpContext& c, const Tensor& like) {
  Tensor t = c.tangent_or_zeros(0);
  return t.dtype() == like.dtype() ? t : t.to(like.dtype());
}

Ts eigh_jvp(const JvpContext& c) {
  EMBER_CHECK(c.bool_arg(2), RuntimeError,
              "linalg_eigh: forward AD needs the eigenvectors; call linalg.eigh rather than compute_v=False");
  const Tensor& L = c.result(0);
  const Tensor& V = c.result(1);
  Tensor dA = tangent_as(c, V);
  dA = mul(add(dA, mH(dA)), Scalar(0.5));  // A is read as Hermitian
  Tensor dP = matmul(matmul(mH(V), dA), V);
  Tensor dL = re(dP.diagonal(0, -2, -1));
  Tensor dV = matmul(V, off_diag(div(dP, gaps(L).to(V.dtype()))));
  return Ts{dL, dV};
}

Ts eig_jvp(const JvpContext& c) {
  const Tensor& L = c.result(0);
  const Tensor& V = c.result(1);
  Tensor dA = tangent_as(c, V);
  Tensor dP = linalg::solve(V, matmul(dA, V));
  Tensor dL = dP.diagonal(0, -2, -1);
  Tensor C = off_diag(div(dP, gaps(L)));
  // the columns keep unit norm: Re (V^H dV)_ii = 0
  Tensor d = re(matmul(matmul(mH(V), V), C).diagonal(0, -2, -1));
  C = sub(C, diag_embed(d.to(C.dtype())));
  return Ts{dL, matmul(V, C)};
}

Ts svd_jvp(const JvpContext& c) {
  EMBER_CHECK(c.bool_arg(2), RuntimeError,
              "linalg_svd: forward AD needs the singular vectors; call linalg.svd rather than compute_uv=False");
  const bool full = c.bool_arg(1);
  const Tensor& S = c.result(1);
  const int64_t k = S.size(-1);
  Tensor U = c.result(0), Vh = c.result(2);
  const int64_t m = U.size(-2), n = Vh.size(-1);
  if (full) {
    U = U.narrow(-1, 0, k);
    Vh = Vh.narrow(-2, 0, k);
  }
  const ScalarType dt = U.dtype();
  Tensor dA = tangent_as(c, U);
  Tensor V = mH(Vh);
  Tensor dP = matmul(matmul(mH(U), dA), V);
  Tensor dPh = mH(dP);
  Tensor dS = re(dP.diagonal(0, -2, -1));
  Tensor Sc = S.to(dt);
  Tensor S2 = mul(S, S);
  Tensor F = gaps(S2).to(dt);
  Tensor OmU = off_diag(div(add(mul(dP, Sc.unsqueeze(-2)), mul(Sc.unsqueeze(-1), dPh)), F));
  Tensor OmV = off_diag(div(add(mul(Sc.unsqueeze(-1), dP), mul(dPh, Sc.unsqueeze(-2))), F));
  if (U.is_complex()) {
    Tensor phase = mul(div(dP.diagonal(0, -2, -1).imag(), mul(S, Scalar(2.0))).to(dt), kI);
    OmU = add(OmU, diag_embed(phase));
    OmV = sub(OmV, diag_embed(phase));
  }
  Tensor Sinv = reciprocal(S).to(dt).unsqueeze(-2);
  Tensor dU = matmul(U, OmU);
  if (m > k) dU = add(dU, mul(sub(matmul(dA, V), matmul(U, dP)), Sinv));
  Tensor dV = matmul(V, OmV);
  if (n > k) dV = add(dV, mul(sub(matmul(mH(dA), U), matmul(V, dPh)), Sinv));
  Tensor dVh = mH(dV);
  if (full) {
    if (m > k) dU = cat({dU, zeros_like(c.result(0).narrow(-1, k, m - k))}, -1);
    if (n > k) dVh = cat({dVh, zeros_like(c.result(2).narrow(-2, k, n - k))}, -2);
  }
  return Ts{dU, dS, dVh};
}

// (dQ, dR) of A = Q R with R square (m >= n) for a tangent dA of A.
std::pair<Tensor, Tensor> qr_square(const Tensor& dA, const Tensor& Q, const Tensor& R) {
  Tensor C = solve_right(dA, R);
  Tensor W = matmul(mH(Q), C);
  Tensor low = tril(W, -1);
  Tensor Om = sub(low, mH(low));
  if (W.is_complex()) Om = add(Om, diag_embed(mul(W.diagonal(0, -2, -1).imag().to(W.dtype()), kI)));
  Tensor WmO = sub(W, Om);
  return {sub(C, matmul(Q, WmO)), triu(matmul(WmO, R))};
}

Ts qr_jvp(const JvpContext& c) {
  const std::string mode = c.string_arg(1).value_or("reduced");
  const Tensor& Q = c.result(0);
  const Tensor& R = c.result(1);
  check_qr_differentiable(mode, Q, R);
  const int64_t m = Q.size(-2), n = R.size(-1);
  Tensor dA = tangent_as(c, Q);
  if (m >= n) {
    auto [dQ, dR] = qr_square(dA, Q, R);
    return Ts{dQ, dR};
  }
  auto [dQ, dR1] = qr_square(dA.narrow(-1, 0, m), Q, R.narrow(-1, 0, m));
  Tensor Y = c.tensor(0).narrow(-1, m, n - m);
  Tensor dR2 = add(matmul(mH(dQ), Y.to(Q.dtype())), matmul(mH(Q), dA.narrow(-1, m, n - m)));
  return Ts{dQ, cat({dR1, dR2}, -1)};
}

EMBER_REGISTER(jvp_linalg_spectral) {
  register_jvp("_linalg_eigh", &eigh_jvp);
  register_jvp("linalg_eig", &eig_jvp);
  register_jvp("_linalg_svd", &svd_jvp);
  register_jvp("linalg_qr", &qr_jvp);
}

}  // namespace
}  // namespace ember::autograd::forward_ad::linalg_spectral_rules
