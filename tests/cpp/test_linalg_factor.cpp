// ember::linalg factorizations and solvers through the public C++ API (src/ops/linalg_factor*.cpp):
// reconstruction identities on both kernel paths (n <= 8 unrolled, LAPACK above), errors raising
// ember::LinAlgError with the batch element, and gradients of the primitives. Values against
// torch are in tests/python/op_rows_linalg_factor.py.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/gradcheck.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"

namespace ember::linalg_factor_test {

double max_err(const Tensor& a, const Tensor& b) { return max(abs(sub(a, b))).item<double>(); }

Tensor well_conditioned(IntArrayRef shape) {
  const int64_t n = shape[shape.size() - 1];
  return add(randn(shape, nullptr, TensorOptions(kDouble)), mul(eye(n, std::nullopt, TensorOptions(kDouble)), n));
}

TEST(LinalgFactor, IdentitiesOnBothPaths) {
  manual_seed(5);
  for (int64_t n : {1, 3, 4, 8, 9, 40}) {
    Tensor A = well_conditioned({3, n, n});
    Tensor I = eye(n, std::nullopt, TensorOptions(kDouble)).expand({3, n, n});
    EXPECT_LT(max_err(matmul(A, linalg::inv(A)), I), 1e-10) << n;
    Tensor B = randn({3, n, 2}, nullptr, TensorOptions(kDouble));
    EXPECT_LT(max_err(matmul(A, linalg::solve(A, B)), B), 1e-10) << n;
    Tensor S = add(matmul(A, A.mT()), I);
    Tensor L = linalg::cholesky(S);
    EXPECT_LT(max_err(matmul(L, L.mT()), S), 1e-9) << n;
    auto [P, Lf, U] = linalg::lu(A);
    EXPECT_LT(max_err(matmul(P, matmul(Lf, U)), A), 1e-10) << n;
    auto [sign, logabs] = linalg::slogdet(A);
    EXPECT_LT(max_err(mul(sign, exp(logabs)), linalg::det(A)), 1e-8 * max(abs(linalg::det(A))).item<double>()) << n;
    EXPECT_LT(max_err(linalg::matrix_power(A, -2), matmul(linalg::inv(A), linalg::inv(A))), 1e-10) << n;
  }
}

TEST(LinalgFactor, SingularInputRaisesLinAlgError) {
  Tensor A = zeros({2, 3, 3}, TensorOptions(kDouble));
  A.select(0, 0).copy_(eye(3, std::nullopt, TensorOptions(kDouble)));
  try {
    linalg::inv(A);
    FAIL() << "expected LinAlgError";
  } catch (const LinAlgError& e) {
    EXPECT_NE(std::string(e.what()).find("(Batch element 1): The diagonal element 1 is zero"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(linalg::cholesky(A), LinAlgError);
  EXPECT_THROW(linalg::solve(A, ones({2, 3}, TensorOptions(kDouble))), LinAlgError);
  auto [X, info] = linalg::inv_ex(A);
  EXPECT_EQ(info.select(0, 1).item<int64_t>(), 1);
  EXPECT_THROW(linalg::inv(ones({2, 3}, TensorOptions(kDouble))), RuntimeError);
  EXPECT_THROW(linalg::inv(ones({3, 3}, TensorOptions(kInt64))), RuntimeError);
}

TEST(LinalgFactor, Gradients) {
  manual_seed(7);
  Tensor A = autograd::set_requires_grad(well_conditioned({2, 4, 4}));
  Tensor B = autograd::set_requires_grad(randn({4, 3}, nullptr, TensorOptions(kDouble)));
  auto f = [](const std::vector<Tensor>& in) { return std::vector<Tensor>{linalg::solve(in[0], in[1])}; };
  EXPECT_TRUE(autograd::gradcheck(f, {A, B}));
  EXPECT_TRUE(autograd::gradgradcheck(f, {A, B}));
  auto g = [](const std::vector<Tensor>& in) { return std::vector<Tensor>{linalg::det(in[0])}; };
  EXPECT_TRUE(autograd::gradcheck(g, {A}));
}

// Large matrices invert through getri (n >= 512); info still names A's own zero pivot.
TEST(LinalgFactor, LargeInverseAndInfo) {
  manual_seed(11);
  const int64_t n = 600;
  Tensor A = well_conditioned({2, n, n});
  A.select(0, 1).select(0, 3).zero_();  // row 3 of the second matrix: singular
  auto [X, info] = linalg::inv_ex(A);
  Tensor I = eye(n, std::nullopt, TensorOptions(kDouble));
  EXPECT_LT(max_err(matmul(A.select(0, 0), X.select(0, 0)), I), 1e-10);
  // A contiguous real A is inverted through the LU of A^T, as PyTorch 1.13 does, whose info
  // it reports: the zero row 3 is A^T's zero column, the fourth pivot.
  auto [LU, piv, linfo] = linalg::lu_factor_ex(A.mT());
  EXPECT_EQ(info.select(0, 0).item<int64_t>(), 0);
  EXPECT_EQ(info.select(0, 1).item<int64_t>(), linfo.select(0, 1).item<int64_t>());
  EXPECT_EQ(info.select(0, 1).item<int64_t>(), 4);
  EXPECT_GT(info.select(0, 1).item<int64_t>(), 0);
  EXPECT_TRUE(all(isnan(X.select(0, 1))).item<bool>());
  // float32 and a transposed (column-major) input take the same path
  Tensor Af = well_conditioned({n, n}).to(kFloat).mT();
  EXPECT_LT(max_err(matmul(Af, linalg::inv(Af)).to(kDouble), I), 1e-3);
}

// The adjugate, entry by entry: adj(A)^T[i][j] = (-1)^(i+j) det(A without row i and column j).
Tensor adjugate_t(const Tensor& A) {
  const int64_t n = A.size(-1);
  Tensor C = zeros({n, n}, TensorOptions(kDouble));
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      std::vector<int64_t> rows, cols;
      for (int64_t k = 0; k < n; ++k) {
        if (k != i) rows.push_back(k);
        if (k != j) cols.push_back(k);
      }
      Tensor ri = tensor(rows, TensorOptions(kInt64)), ci = tensor(cols, TensorOptions(kInt64));
      Tensor M = index_select(index_select(A, 0, ri), 1, ci);
      C.select(0, i).select(0, j).fill_(((i + j) % 2 ? -1.0 : 1.0) * linalg::det(M).item<double>());
    }
  return C;
}

// At exactly singular matrices det's gradient is the adjugate (through an SVD), not an error.
TEST(LinalgFactor, DetGradientAtSingularMatrices) {
  manual_seed(13);
  for (int64_t n : {3, 4, 10}) {  // the unrolled path and LAPACK's
    for (int64_t rank : {n - 1, n - 2}) {
      Tensor A = well_conditioned({n, n});
      for (int64_t r = rank; r < n; ++r) A.select(0, r).zero_();  // exactly singular: det == 0
      A = autograd::set_requires_grad(A);
      Tensor d = linalg::det(A);
      ASSERT_EQ(d.item<double>(), 0.0) << n << " " << rank;
      Tensor g = autograd::grad({d}, {A})[0];
      // the cofactors are bounded by ||A||_2^(n-1); the SVD's zero singular values are ~eps, not 0
      const double scale = std::pow(linalg::matrix_norm(A.detach(), 2).item<double>(), static_cast<double>(n - 1));
      EXPECT_LT(max_err(g, adjugate_t(A.detach())), 1e-12 * scale) << n << " " << rank;
      auto f = [](const std::vector<Tensor>& in) { return std::vector<Tensor>{linalg::det(in[0])}; };
      EXPECT_TRUE(autograd::gradcheck(f, {A})) << n << " " << rank;
      // a batch mixing singular and regular matrices
      Tensor Ab = autograd::set_requires_grad(stack({A.detach(), well_conditioned({n, n})}, 0));
      EXPECT_TRUE(autograd::gradcheck(f, {Ab})) << n << " " << rank;
    }
  }
}

TEST(LinalgFactor, OutForms) {
  manual_seed(17);
  Tensor A = well_conditioned({2, 5, 5});
  Tensor B = randn({2, 5, 3}, nullptr, TensorOptions(kDouble));
  Tensor X = empty({0}, TensorOptions(kDouble)), info = empty({0}, TensorOptions(kInt32));
  auto r = linalg::solve_ex_out(X, info, A, B);
  EXPECT_EQ(&std::get<0>(r), &X);
  EXPECT_LT(max_err(X, linalg::solve(A, B)), 1e-12);
  EXPECT_EQ(info.sizes().vec(), std::vector<int64_t>({2}));
  Tensor sign = empty({0}, TensorOptions(kDouble)), logabs = empty({0}, TensorOptions(kDouble));
  linalg::slogdet_out(sign, logabs, A);
  EXPECT_LT(max_err(mul(sign, exp(logabs)), linalg::det(A)), 1e-8);
  Tensor LU = empty({0}, TensorOptions(kDouble)), piv = empty({0}, TensorOptions(kInt32));
  linalg::lu_factor_out(LU, piv, A);
  EXPECT_LT(max_err(linalg::lu_solve(LU, piv, B), linalg::solve(A, B)), 1e-12);
  Tensor inv = empty({0}, TensorOptions(kDouble));
  EXPECT_LT(max_err(inverse_out(inv, A), linalg::inv(A)), 1e-12);
  Tensor S = add(matmul(A, A.mT()), eye(5, std::nullopt, TensorOptions(kDouble)));
  Tensor L = empty({0}, TensorOptions(kDouble)), V = empty({0}, TensorOptions(kDouble));
  linalg::eigh_out(L, V, S);
  EXPECT_LT(max_err(matmul(mul(V, L.unsqueeze(-2)), V.mT()), S), 1e-9);
  Tensor U = empty({0}, TensorOptions(kDouble)), sv = empty({0}, TensorOptions(kDouble)), Vh = empty({0}, TensorOptions(kDouble));
  linalg::svd_out(U, sv, Vh, A, /*full_matrices=*/false);
  EXPECT_LT(max_err(matmul(mul(U, sv.unsqueeze(-2)), Vh), A), 1e-10);
  Tensor nrm = empty({0}, TensorOptions(kDouble));
  linalg::matrix_norm_out(nrm, A, std::string_view("nuc"));
  EXPECT_LT(max_err(nrm, sv.sum(-1)), 1e-10);
  linalg::vector_norm_out(nrm, B, 2, std::vector<int64_t>{-1});
  EXPECT_LT(max_err(nrm, linalg::vector_norm(B, 2, std::vector<int64_t>{-1})), 1e-12);
  EXPECT_EQ(nrm.sizes().vec(), std::vector<int64_t>({2, 5}));
  // PyTorch's checks: the out dtype must be the result's, and no input may require grad
  Tensor wrong = empty({0}, TensorOptions(kFloat));
  EXPECT_THROW(linalg::svdvals_out(wrong, A), RuntimeError);
  EXPECT_THROW(linalg::tensorinv_out(wrong, A.select(0, 0), 1), RuntimeError);
  Tensor Ag = autograd::set_requires_grad(A.clone());
  EXPECT_THROW(linalg::inv_out(inv, Ag), RuntimeError);
  EXPECT_THROW(linalg::eigvalsh_out(nrm, Ag), RuntimeError);
}

}  // namespace ember::linalg_factor_test
