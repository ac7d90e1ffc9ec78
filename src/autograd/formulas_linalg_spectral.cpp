// Derivative formulas of the spectral primitives (src/ops/linalg_spectral.cpp), written with
// ops so they differentiate again. Conventions as PyTorch's (FunctionsManual.cpp:
// linalg_eig_backward, svd_backward, linalg_qr_backward), derived here:
//   eigh  A = V diag(L) V^H:  gA = V (diag(gL) + skew(V^H gV) / E) V^H, E_ij = L_j - L_i;
//         the Hermitian part only, since A is read as Hermitian.
//   eig   A V = V diag(L):    gA = V^{-H} (diag(gL) + (V^H gV - V^H V Re diag(V^H gV)) / conj(E)) V^H.
//   svd   A = U diag(S) Vh:   gA = U [skew(U^H gU) / F S + S skew(V^H gV) / F + diag(gS)] Vh
//         + (I - U U^H) gU S^{-1} Vh + U S^{-1} gVh (I - V V^H),  F_ij = S_j^2 - S_i^2.
//   qr    A = Q R (m >= n):   gA = [gQ + Q sym(triu(gR R^H - Q^H gQ))] R^{-H}; wide A splits as [X | Y].
// When only the values receive a gradient (eigvalsh, svdvals) the division by the spectral
// gaps is skipped, so repeated eigenvalues / singular values give finite gradients; with a
// gradient on the vectors they are undefined there, as in PyTorch. Complex eigen- and singular
// vectors are defined up to a phase: a loss that depends on it raises PyTorch's error.
// householder_product and lstsq differentiate a composite of the same value (the product of
// reflectors; pinv(A) B) by a nested backward pass.
#include "autograd/formula_util.h"
#include "autograd/linalg_spectral_checks.h"
#include "ember/dispatch.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"

namespace ember::autograd::linalg_spectral_formulas {
namespace {

using namespace formula;

Tensor mH(const Tensor& t) { return t.is_complex() ? conj(t).mT() : t.mT(); }

Tensor eye_like(const Tensor& t, int64_t n) { return eye(n, std::nullopt, TensorOptions(t.dtype()).device(t.device())); }

// Off-diagonal entries of X (diagonal zeroed).
Tensor off_diag(const Tensor& X) {
  const int64_t n = X.size(-1);
  Tensor mask = sub(ones({n, n}, TensorOptions(to_real_type(X.dtype())).device(X.device())),
                    eye(n, std::nullopt, TensorOptions(to_real_type(X.dtype())).device(X.device())));
  return mul(X, mask);
}

bool all_zero(const Tensor& t) {
  NoGradGuard g;
  return t.numel() == 0 || !any(t.ne(Scalar(0))).item<bool>();
}

void check_phase(const Tensor& diag, const char* msg) {
  if (!diag.is_complex()) return;
  NoGradGuard g;
  Tensor im = diag.imag();
  EMBER_CHECK(allclose(im, zeros_like(im), 1e-2, 1e-3), RuntimeError, msg);
}

// X R^{-H} for square invertible R: (R^{-1} X^H)^H.
Tensor solve_right_adjoint(const Tensor& X, const Tensor& R) { return mH(linalg::solve(R, mH(X))); }

// The gradient with respect to `ins` of f(ins) paired with g, by a backward pass through f
// (which records its ops); with create_graph that pass records too.
Grads vjp_of(const std::function<Tensor(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& ins, const Tensor& g) {
  const bool cg = GradMode::is_enabled();
  std::vector<Tensor> xs;
  for (const Tensor& t : ins) {
    if (cg && requires_grad(t)) {
      xs.push_back(t);
    } else {
      Tensor d = t.detach();
      set_requires_grad(d, true);
      xs.push_back(d);
    }
  }
  EnableGradGuard eg;
  Tensor y = f(xs);
  return grad({y}, xs, {g}, cg, cg, true);
}

// Q = H_0 ... H_{k-1} I_{m x n}, H_i = I - tau_i v_i v_i^H, v_i: column i of `input` below the
// diagonal with a unit at i (LAPACK's orgqr), as ops.
Tensor householder_composite(const Tensor& input, const Tensor& tau) {
  const int64_t m = input.size(-2), n = input.size(-1), k = tau.size(-1);
  const TensorOptions ro = TensorOptions(to_real_type(input.dtype())).device(input.device());
  Tensor Q = eye(m, n, TensorOptions(input.dtype()).device(input.device()));
  DimVector qs(input.sizes());
  Q = Q.expand(qs);
  Tensor rows = arange(0, m, 1, ro);
  for (int64_t i = k - 1; i >= 0; --i) {
    Tensor below = rows.gt(Scalar(i)).to(ro.dtype_or_default()), unit = rows.eq(Scalar(i)).to(ro.dtype_or_default());
    Tensor v = add(mul(input.select(-1, i), below), unit).unsqueeze(-1);  // (..., m, 1)
    Tensor t = tau.select(-1, i).unsqueeze(-1).unsqueeze(-1);
    Q = sub(Q, mul(t, matmul(v, matmul(mH(v), Q))));
  }
  return Q;
}

Tensor qr_backward_square(const Tensor& gQ, const Tensor& gR, const Tensor& Q, const Tensor& R) {
  Tensor M = sub(matmul(gR, mH(R)), matmul(mH(Q), gQ));
  Tensor up = triu(M, 1);
  Tensor sym = add(up, mH(up));
  Tensor d = M.diagonal(0, -2, -1);
  sym = add(sym, diag_embed(d.is_complex() ? d.real() : d).to(M.dtype()));
  return solve_right_adjoint(add(gQ, matmul(Q, sym)), R);
}

EMBER_REGISTER(autograd_formulas_linalg_spectral) {
  define("_linalg_eigh", {}, true, [](const BackwardContext& c, const Grads& g) {
    EMBER_CHECK(c.bool_arg(2), RuntimeError,
                "linalg_eigh: the derivative needs the eigenvectors; call linalg.eigh rather than compute_v=False");
    const Tensor& L = c.result(0);
    const Tensor& V = c.result(1);
    const Tensor gL = g[0].to(V.dtype());
    if (all_zero(g[1])) return Grads{matmul(mul(V, gL.unsqueeze(-2)), mH(V))};
    Tensor VhgV = matmul(mH(V), g[1]);
    check_phase(VhgV.diagonal(0, -2, -1),
                "linalg_eigh_backward: The eigenvectors in the complex case are specified up to multiplication by "
                "e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined.");
    const int64_t n = L.size(-1);
    Tensor E = add(sub(L.unsqueeze(-2), L.unsqueeze(-1)), eye_like(L, n));  // L_j - L_i, 1 on the diagonal
    Tensor inner = off_diag(div(mul(sub(VhgV, mH(VhgV)), Scalar(0.5)), E.to(V.dtype())));
    inner = add(inner, diag_embed(gL));
    return Grads{matmul(matmul(V, inner), mH(V))};
  });

  define("_linalg_svd", {}, true, [](const BackwardContext& c, const Grads& g) {
    EMBER_CHECK(c.bool_arg(2), RuntimeError,
                "linalg_svd: the derivative needs the singular vectors; call linalg.svd rather than compute_uv=False");
    const bool full = c.bool_arg(1);
    const Tensor& S = c.result(1);
    const int64_t k = S.size(-1);
    Tensor U = c.result(0), Vh = c.result(2), gU = g[0], gVh = g[2];
    if (full) {
      U = U.narrow(-1, 0, k);
      Vh = Vh.narrow(-2, 0, k);
      gU = gU.narrow(-1, 0, k);
      gVh = gVh.narrow(-2, 0, k);
    }
    const ScalarType dt = U.dtype();
    const Tensor gS = g[1].to(dt);
    if (all_zero(gU) && all_zero(gVh)) return Grads{matmul(mul(U, gS.unsqueeze(-2)), Vh)};
    const int64_t m = U.size(-2), n = Vh.size(-1);
    Tensor UhgU = matmul(mH(U), gU);
    Tensor VhgV = matmul(Vh, mH(gVh));  // V^H gV
    check_phase(add(UhgU.diagonal(0, -2, -1), VhgV.diagonal(0, -2, -1)),
                "svd_backward: The singular vectors in the complex case are specified up to multiplication by "
                "e^{i phi}. The specified loss function depends on this phase term, making it ill-defined.");
    Tensor S2 = mul(S, S);
    Tensor F = add(sub(S2.unsqueeze(-2), S2.unsqueeze(-1)), eye_like(S, k)).to(dt);
    Tensor Sc = S.to(dt);
    Tensor JU = off_diag(div(sub(UhgU, mH(UhgU)), F));
    Tensor JV = off_diag(div(sub(VhgV, mH(VhgV)), F));
    Tensor core = add(mul(JU, Sc.unsqueeze(-2)), mul(Sc.unsqueeze(-1), JV));
    Tensor d = gS;
    if (U.is_complex()) {  // the phase of each pair (u_i, v_i): i Im(u_i^H gu_i) / s_i
      Tensor im = UhgU.diagonal(0, -2, -1).imag();
      d = add(d, mul(div(im, S).to(dt), Scalar(std::complex<double>(0.0, 1.0))));
    }
    core = add(core, diag_embed(d));
    Tensor gA = matmul(matmul(U, core), Vh);
    Tensor Sinv = reciprocal(S).to(dt);
    if (m > k) gA = add(gA, matmul(mul(sub(gU, matmul(U, UhgU)), Sinv.unsqueeze(-2)), Vh));
    if (n > k) gA = add(gA, matmul(mul(U, Sinv.unsqueeze(-2)), sub(gVh, matmul(mH(VhgV), Vh))));
    return Grads{gA};
  });

  define("linalg_qr", {}, true, [](const BackwardContext& c, const Grads& g) {
    const std::string mode = c.string_arg(1).value_or("reduced");
    const Tensor& Q = c.result(0);
    const Tensor& R = c.result(1);
    check_qr_differentiable(mode, Q, R);
    const int64_t m = Q.size(-2), n = R.size(-1);
    Tensor gQ = g[0], gR = triu(g[1]);
    if (m >= n) return Grads{qr_backward_square(gQ, gR, Q, R)};
    // A = [X | Y] with X = Q R1 square and Y = Q R2.
    Tensor R1 = R.narrow(-1, 0, m), R2 = R.narrow(-1, m, n - m);
    Tensor gR1 = gR.narrow(-1, 0, m), gR2 = gR.narrow(-1, m, n - m);
    Tensor Y = matmul(Q, R2);
    Tensor gX = qr_backward_square(add(gQ, matmul(Y, mH(gR2))), gR1, Q, R1);
    return Grads{cat({gX, matmul(Q, gR2)}, -1)};
  });

  define("linalg_eig", {}, true, [](const BackwardContext& c, const Grads& g) {
    const Tensor& L = c.result(0);
    const Tensor& V = c.result(1);
    const Tensor gL = g[0];
    Tensor inner;
    if (all_zero(g[1])) {
      inner = diag_embed(gL);
    } else {
      Tensor VhgV = matmul(mH(V), g[1]);
      Tensor dg = VhgV.diagonal(0, -2, -1);
      check_phase(dg, "linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication "
                      "by e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined.");
      const int64_t n = L.size(-1);
      Tensor E = add(conj(sub(L.unsqueeze(-2), L.unsqueeze(-1))), eye_like(L, n));
      Tensor corr = matmul(matmul(mH(V), V), diag_embed(dg.real().to(V.dtype())));
      inner = add(off_diag(div(sub(VhgV, corr), E)), diag_embed(gL));
    }
    return Grads{linalg::solve(mH(V), matmul(inner, mH(V)))};
  });

  // PyTorch's pinv_backward: the derivative of P = A^+ at constant rank,
  //   gA = -P^H G P^H + (I - A P) G^H P P^H + P^H P G^H (I - P A).
  define("linalg_pinv.atol_rtol_tensor", {0}, true, [](const BackwardContext& c, const Grads& g) {
    const Tensor& A = c.tensor(0);
    const Tensor& P = c.result(0);
    Grads r(c.num_slots());
    const Tensor Ph = mH(P), Gh = mH(g[0]);
    Tensor t1 = matmul(matmul(Ph, g[0]), Ph).neg();
    Tensor GhPPh = matmul(matmul(Gh, P), Ph);
    Tensor t2 = sub(GhPPh, matmul(matmul(A, P), GhPPh));
    Tensor t3 = matmul(matmul(Ph, P), sub(Gh, matmul(matmul(Gh, P), A)));
    r[0] = add(add(t1, t2), t3);
    return r;
  });

  define("linalg_householder_product", {0, 1}, false, [](const BackwardContext& c, const Grads& g) {
    return vjp_of([](const std::vector<Tensor>& x) { return householder_composite(x[0], x[1]); },
                  {c.tensor(0), c.tensor(1)}, g[0]);
  });

  define("_linalg_lstsq", {0, 1}, false, [](const BackwardContext& c, const Grads& g) {
    const Tensor& A = c.tensor(0);
    const Tensor& B = c.tensor(1);
    const bool vector_case = A.dim() - 1 == B.dim();
    return vjp_of(
        [vector_case](const std::vector<Tensor>& x) {
          Tensor P = linalg::pinv(x[0], std::optional<double>(), std::optional<double>(), false);
          return vector_case ? matmul(P, x[1].unsqueeze(-1)).squeeze(-1) : matmul(P, x[1]);
        },
        {A, B}, g[0]);
  });
}

}  // namespace
}  // namespace ember::autograd::linalg_spectral_formulas
