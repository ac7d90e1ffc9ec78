// ember::linalg factorizations and solvers through the public C++ API (src/ops/linalg_factor*.cpp):
// reconstruction identities on both kernel paths (n <= 8 unrolled, LAPACK above), errors raising
// ember::LinAlgError with the batch element, and gradients of the primitives. Values against
// torch are in tests/python/op_rows_linalg_factor.py.
#include <gtest/gtest.h>

#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/gradcheck.h"
#include "ember/linalg.h"
#include "ember/ops.h"

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

}  // namespace ember::linalg_factor_test
