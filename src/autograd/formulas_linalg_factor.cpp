// Derivative formulas of the linalg factorizations and solvers (src/ops/linalg_factor.cpp).
// Written with ops (solves, products, triangles), so they differentiate again. Gradients are
// conjugate Wirtinger derivatives; M^H is written mH(M). The composites (cholesky, solve, lu,
// cholesky_solve, ...) need none: they record these primitives. ldl_factor and ldl_solve have
// no derivative, as in PyTorch.
#include "autograd/formula_util.h"
#include "ember/dispatch.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"

namespace ember::autograd::linalg_factor_formulas {
namespace {

using namespace formula;

Tensor mH(const Tensor& t) { return cj(t.mT()); }

// x[..., None, None]
Tensor as_matrix_scale(const Tensor& x) { return x.unsqueeze(-1).unsqueeze(-1); }

// The gradient of A = L U (square, unit lower L) from those of L and U:
// L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H. Either gradient may be undefined.
Tensor lu_core(const Tensor& L, const Tensor& U, const Tensor& gL, const Tensor& gU) {
  Tensor phi;
  if (gL.defined()) phi = tril(matmul(mH(L), gL), -1);
  if (gU.defined()) {
    Tensor u = triu(matmul(gU, mH(U)));
    phi = phi.defined() ? add(phi, u) : u;
  }
  Tensor x = linalg::solve_triangular(mH(U), phi, /*upper=*/false, /*left=*/false);
  return linalg::solve_triangular(mH(L), x, /*upper=*/true, /*left=*/true, /*unitriangular=*/true);
}

// The gradient of A = P L U (any shape) from that of the packed LU.
Tensor lu_factor_backward(const Tensor& LU, const Tensor& pivots, const Tensor& gLU) {
  auto [P, L, U] = lu_unpack(LU, pivots);
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  Tensor gL = tril(gLU.narrow(-1, 0, k), -1), gU = triu(gLU.narrow(-2, 0, k));
  if (m == n) return matmul(P, lu_core(L, U, gL, gU));
  if (m < n) {  // A = P L [U1 U2]: U2 = L^-1 P^T A2
    Tensor U1 = U.narrow(-1, 0, m), U2 = U.narrow(-1, m, n - m), gU2 = gU.narrow(-1, m, n - m);
    Tensor W = linalg::solve_triangular(mH(L), gU2, true, true, true);
    Tensor gL1 = sub(gL, tril(matmul(W, mH(U2)), -1));
    return matmul(P, cat({lu_core(L, U1, gL1, gU.narrow(-1, 0, m)), W}, -1));
  }
  // m > n: P^T A = [L1; L2] U: L2 = (P^T A)_2 U^-1
  Tensor L1 = L.narrow(-2, 0, n), L2 = L.narrow(-2, n, m - n), gL2 = gL.narrow(-2, n, m - n);
  Tensor V = linalg::solve_triangular(mH(U), gL2, false, false);
  Tensor gU1 = sub(gU, triu(matmul(mH(L2), V)));
  return matmul(P, cat({lu_core(L1, U, gL.narrow(-2, 0, n), gU1), V}, -2));
}

EMBER_REGISTER(autograd_formulas_linalg_factor) {
  // A = L L^H: gA = L^-H Phi(L^H gL) L^-1, Phi taking the lower triangle with the diagonal
  // halved, then made Hermitian (only one triangle of A is read).
  define("linalg_cholesky_ex", {}, true, [](const BackwardContext& c, const Grads& g) {
    if (!g[0].defined()) return Grads{Tensor()};
    Tensor L = c.result(0), gL = g[0];
    if (c.bool_arg(1)) {  // upper: A = U^H U with U = L^H
      L = mH(L);
      gL = mH(gL);
    }
    Tensor phi = tril(matmul(mH(L), gL));
    phi = sub(phi, mul(diag_embed(phi.diagonal(0, -2, -1)), 0.5));
    Tensor x = linalg::solve_triangular(mH(L), phi, true, true);
    Tensor gA = linalg::solve_triangular(L, x, false, false);
    return Grads{mul(add(gA, mH(gA)), 0.5)};
  });
  // d(A^-1) = -A^-1 dA A^-1
  define("linalg_inv_ex", {}, true, [](const BackwardContext& c, const Grads& g) {
    if (!g[0].defined()) return Grads{Tensor()};
    Tensor xh = mH(c.result(0));
    return Grads{neg(matmul(xh, matmul(g[0], xh)))};
  });
  // d det = det tr(A^-1 dA): gA = g conj(det) A^-H, the conjugate adjugate. Where det is exactly
  // zero A^-1 does not exist, but the adjugate does: with A = U S V^H it is
  // conj(det U det V^H) U diag(prod_{j != i} S_j) V^H (zero when two singular values vanish).
  // Those batch elements take it from an SVD; the others invert A, with the singular ones
  // replaced by I there so that no inverse fails or turns NaN, even under double backward.
  define("linalg_det", {0}, true, [](const BackwardContext& c, const Grads& g) {
    const Tensor& A = c.tensor(0);
    const Tensor& det = c.result(0);
    const Tensor scale = as_matrix_scale(mul(g[0], cj(det)));
    const Tensor singular = det.eq(0);
    if (!any(singular).item<bool>()) return Grads{mul(scale, mH(linalg::inv(A)))};
    const int64_t n = A.size(-1);
    const Tensor mask = as_matrix_scale(singular);
    const Tensor eye_n = eye(n, std::nullopt, TensorOptions(A.dtype()));
    const Tensor regular = mul(scale, mH(linalg::inv(where(mask, eye_n, A))));
    auto [U, S, Vh] = linalg::svd(A);
    // prod_{j != i} S_j as (prod_{j < i} S_j) (prod_{j > i} S_j), exact when some S_j are zero
    DimVector one_shape(S.sizes());
    one_shape.back() = 1;
    const Tensor one = ones(one_shape, TensorOptions(S.dtype()));
    const Tensor before = cumprod(cat({one, S.narrow(-1, 0, n - 1)}, -1), -1);
    const Tensor after = flip(cumprod(flip(cat({S.narrow(-1, 1, n - 1), one}, -1), {-1}), -1), {-1});
    const Tensor alpha = cj(mul(linalg::det(U), linalg::det(Vh)));
    const Tensor D = mul(mul(alpha, g[0]).unsqueeze(-1), mul(before, after));
    const Tensor adjugate = matmul(mul(U, D.unsqueeze(-2)), Vh);
    return Grads{where(mask, adjugate, regular)};
  });
  // d logabsdet = Re t, d sign = i sign Im t with t = tr(A^-1 dA); only logabsdet for real A.
  define("linalg_slogdet", {0}, true, [](const BackwardContext& c, const Grads& g) {
    const Tensor& A = c.tensor(0);
    Tensor h = g[1];
    if (A.is_complex()) {
      Tensor gl = h.defined() ? h.to(A.dtype()) : zeros(c.result(0).sizes(), TensorOptions(A.dtype()));
      if (g[0].defined()) {
        Tensor im = mul(cj(g[0]), c.result(0)).imag();
        gl = sub(gl, mul(im.to(A.dtype()), Scalar(std::complex<double>(0, 1))));
      }
      h = gl;
    } else if (!h.defined()) {
      return Grads{Tensor()};
    }
    // inv_ex: a singular A gives NaN, as PyTorch's LU solve there, not a LinAlgError
    return Grads{mul(as_matrix_scale(h), mH(std::get<0>(linalg::inv_ex(A))))};
  });
  // A X = B: gB = A^-H g, gA = -gB X^H; X A = B: gB = g A^-H, gA = -X^H gB.
  define("linalg_solve_ex", {0}, true, [](const BackwardContext& c, const Grads& g) {
    if (!g[0].defined()) return Grads{Tensor(), Tensor()};
    const Tensor& A = c.tensor(0);
    const Tensor& X = c.result(0);
    const bool left = c.bool_arg(2);
    IntArrayRef bs = c.input_sizes(1), as = c.input_sizes(0);
    const bool vec = bs.size() == 1 || (bs.size() + 1 == as.size() && bs.equals(as.slice(0, as.size() - 1)));
    Tensor gB = linalg::solve(mH(A), g[0], left);
    Tensor gA;
    if (c.needs_grad(0)) {
      if (vec) gA = left ? mul(gB.unsqueeze(-1), cj(X).unsqueeze(-2)) : mul(cj(X).unsqueeze(-1), gB.unsqueeze(-2));
      else gA = left ? matmul(gB, mH(X)) : matmul(mH(X), gB);
      gA = neg(gA);
    }
    return Grads{gA, gB};
  });
  define("linalg_lu_factor_ex", {}, true, [](const BackwardContext& c, const Grads& g) {
    if (!g[0].defined()) return Grads{Tensor()};
    return Grads{lu_factor_backward(c.result(0), c.result(1), g[0])};
  });
  // gB solves the adjoint system; gA as for solve, pulled back to LU through A = P L U:
  // gL = tril(P^T gA U^H, -1), gU = triu(L^H P^T gA).
  define("linalg_lu_solve", {0, 1}, true, [](const BackwardContext& c, const Grads& g) {
    if (!g[0].defined()) return Grads{Tensor(), Tensor(), Tensor()};
    const Tensor& LU = c.tensor(0);
    const Tensor& piv = c.tensor(1);
    const Tensor& X = c.result(0);
    const bool left = c.bool_arg(3), adjoint = c.bool_arg(4);
    Tensor gB = linalg::lu_solve(LU, piv, g[0], left, !adjoint);
    Tensor gLU;
    if (c.needs_grad(0)) {
      Tensor gA = left ? (adjoint ? matmul(X, mH(gB)) : matmul(gB, mH(X)))
                       : (adjoint ? matmul(mH(gB), X) : matmul(mH(X), gB));
      auto [P, L, U] = lu_unpack(LU, piv);
      Tensor ptg = neg(matmul(P.mT(), gA));
      gLU = add(tril(matmul(ptg, mH(U)), -1), triu(matmul(mH(L), ptg)));
    }
    return Grads{gLU, Tensor(), gB};
  });
  // Like solve, with gA restricted to the triangle that was read.
  define("linalg_solve_triangular", {0}, true, [](const BackwardContext& c, const Grads& g) {
    if (!g[0].defined()) return Grads{Tensor(), Tensor()};
    const Tensor& A = c.tensor(0);
    const Tensor& X = c.result(0);
    const bool upper = c.bool_arg(2), left = c.bool_arg(3), unit = c.bool_arg(4);
    Tensor gB = linalg::solve_triangular(mH(A), g[0], !upper, left, unit);
    Tensor gA;
    if (c.needs_grad(0)) {
      gA = neg(left ? matmul(gB, mH(X)) : matmul(mH(X), gB));
      gA = upper ? triu(gA, unit ? 1 : 0) : tril(gA, unit ? -1 : 0);
    }
    return Grads{gA, gB};
  });
}

}  // namespace
}  // namespace ember::autograd::linalg_factor_formulas
