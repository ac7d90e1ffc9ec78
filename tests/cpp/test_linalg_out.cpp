// ember::linalg's C++ out= forms of the spectral part and cond (src/ops/linalg_spectral_composite.cpp,
// linalg_cond.cpp): pinv, matrix_rank, lstsq, cond and the top-level svd and qr, PyTorch's dtype
// and autograd rules for them, and the overload set of the `ord` argument (a string literal,
// an integer, a double) of matrix_norm, norm and cond and their _out forms. Values against
// torch are in tests/python/test_linalg_spectral.py; here each result is checked against the
// functional form or a formula.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"

namespace ember::linalg_out_test {

double max_err(const Tensor& a, const Tensor& b) { return max(abs(sub(a, b))).item<double>(); }
Tensor empty_of(ScalarType t) { return empty({0}, TensorOptions(t)); }

Tensor well_conditioned(IntArrayRef shape) {
  const int64_t n = shape[shape.size() - 1];
  return add(randn(shape, nullptr, TensorOptions(kDouble)), mul(eye(n, std::nullopt, TensorOptions(kDouble)), n));
}

TEST(LinalgOut, OrdLiteralsAndNumbersPickTheirOverloads) {
  manual_seed(3);
  Tensor A = well_conditioned({3, 4, 4});
  const Tensor s = linalg::svdvals(A);
  const Tensor fro = sqrt(A.mul(A).sum(std::vector<int64_t>{-2, -1}));
  const Tensor col_sum = amax(abs(A).sum(std::vector<int64_t>{-2}), {-1});
  // a literal is the string form, a number the Scalar form (each alone was ambiguous)
  EXPECT_LT(max_err(linalg::matrix_norm(A, "nuc"), s.sum(-1)), 1e-10);
  EXPECT_LT(max_err(linalg::matrix_norm(A, "fro"), fro), 1e-10);
  EXPECT_LT(max_err(linalg::matrix_norm(A), fro), 1e-10);
  EXPECT_LT(max_err(linalg::matrix_norm(A, 2), s.select(-1, 0)), 1e-10);
  EXPECT_LT(max_err(linalg::matrix_norm(A, 2.0), s.select(-1, 0)), 1e-10);
  EXPECT_LT(max_err(linalg::matrix_norm(A, 1), col_sum), 1e-10);
  EXPECT_LT(max_err(linalg::matrix_norm(A, "fro", {0, -1}), linalg::matrix_norm(A, std::string_view("fro"), {0, -1})),
            1e-12);
  Tensor out = empty_of(kDouble);
  EXPECT_EQ(&linalg::matrix_norm_out(out, A, "nuc"), &out);
  EXPECT_LT(max_err(out, s.sum(-1)), 1e-10);
  linalg::matrix_norm_out(out, A, "fro");
  EXPECT_LT(max_err(out, fro), 1e-10);
  linalg::matrix_norm_out(out, A, 2);
  EXPECT_LT(max_err(out, s.select(-1, 0)), 1e-10);
  linalg::matrix_norm_out(out, A, -2.0);
  EXPECT_LT(max_err(out, s.select(-1, 3)), 1e-10);
  // norm: 0 is the number of nonzero entries (as a null pointer it also converted to string_view)
  Tensor x = A.select(0, 0).select(0, 0).clone();
  x.select(0, 1).fill_(0.0);
  EXPECT_EQ(linalg::norm(x, 0).item<double>(), 3.0);
  EXPECT_LT(max_err(linalg::norm(A, "fro", std::vector<int64_t>{-2, -1}), fro), 1e-10);
  EXPECT_LT(max_err(linalg::norm(A, "nuc", std::vector<int64_t>{-2, -1}), s.sum(-1)), 1e-10);
  linalg::norm_out(out, x, 0);
  EXPECT_EQ(out.item<double>(), 3.0);
  linalg::norm_out(out, A, "nuc", std::vector<int64_t>{-2, -1});
  EXPECT_LT(max_err(out, s.sum(-1)), 1e-10);
  linalg::norm_out(out, A, 2, std::vector<int64_t>{-2, -1});
  EXPECT_LT(max_err(out, s.select(-1, 0)), 1e-10);
  // cond: ||A|| ||A^-1|| in the named norm, the singular-value ratio for 2
  const Tensor Ai = linalg::inv(A);
  EXPECT_LT(max_err(linalg::cond(A, "fro"), linalg::matrix_norm(A, "fro").mul(linalg::matrix_norm(Ai, "fro"))), 1e-8);
  EXPECT_LT(max_err(linalg::cond(A, 1), linalg::matrix_norm(A, 1).mul(linalg::matrix_norm(Ai, 1))), 1e-8);
  const Tensor ratio = s.select(-1, 0).div(s.select(-1, 3));
  EXPECT_LT(max_err(linalg::cond(A), ratio), 1e-8);
  EXPECT_LT(max_err(linalg::cond(A, 2), ratio), 1e-8);
  EXPECT_EQ(&linalg::cond_out(out, A, "nuc"), &out);
  EXPECT_LT(max_err(out, linalg::matrix_norm(A, "nuc").mul(linalg::matrix_norm(Ai, "nuc"))), 1e-8);
  linalg::cond_out(out, A, -1);
  EXPECT_LT(max_err(out, linalg::matrix_norm(A, -1).mul(linalg::matrix_norm(Ai, -1))), 1e-8);
  linalg::cond_out(out, A);
  EXPECT_LT(max_err(out, ratio), 1e-8);
  EXPECT_EQ(out.sizes().vec(), std::vector<int64_t>({3}));
}

TEST(LinalgOut, PinvRankLstsq) {
  manual_seed(11);
  Tensor A = randn({2, 5, 3}, nullptr, TensorOptions(kDouble));
  Tensor out = empty_of(kDouble);
  EXPECT_EQ(&linalg::pinv_out(out, A), &out);
  EXPECT_LT(max_err(out, linalg::pinv(A)), 1e-12);
  EXPECT_LT(max_err(matmul(out, A), eye(3, std::nullopt, TensorOptions(kDouble)).expand({2, 3, 3})), 1e-10);
  linalg::pinv_out(out, A, std::optional<Tensor>(full({2}, 1e-3, TensorOptions(kDouble))), std::nullopt, false);
  EXPECT_LT(max_err(out, linalg::pinv(A, 1e-3)), 1e-12);
  // the rank: a rank-2 product, with a tolerance above the largest singular value giving 0
  Tensor R = matmul(randn({2, 5, 2}, nullptr, TensorOptions(kDouble)), randn({2, 2, 4}, nullptr, TensorOptions(kDouble)));
  Tensor rank = empty_of(kInt64);
  EXPECT_EQ(&linalg::matrix_rank_out(rank, R), &rank);
  EXPECT_EQ(rank.dtype(), kInt64);
  EXPECT_EQ(rank.sum().item<int64_t>(), 4);
  linalg::matrix_rank_out(rank, R, std::optional<Tensor>(full({}, 1e6, TensorOptions(kDouble))), std::nullopt, false);
  EXPECT_EQ(rank.sum().item<int64_t>(), 0);
  Tensor B = randn({2, 5, 2}, nullptr, TensorOptions(kDouble));
  Tensor sol = empty_of(kDouble), res = empty_of(kDouble), rk = empty_of(kInt64), sv = empty_of(kDouble);
  auto r = linalg::lstsq_out(sol, res, rk, sv, A, B, std::nullopt, "gelsd");
  EXPECT_EQ(&std::get<0>(r), &sol);
  EXPECT_EQ(&std::get<3>(r), &sv);
  EXPECT_LT(max_err(sol, matmul(linalg::pinv(A), B)), 1e-10);
  EXPECT_LT(max_err(res, mul(sub(matmul(A, sol), B), sub(matmul(A, sol), B)).sum(std::vector<int64_t>{-2})), 1e-10);
  EXPECT_EQ(rk.sum().item<int64_t>(), 6);
  EXPECT_LT(max_err(sv, linalg::svdvals(A)), 1e-10);
}

TEST(LinalgOut, TopLevelSvdAndQr) {
  manual_seed(13);
  Tensor A = randn({2, 4, 3}, nullptr, TensorOptions(kDouble));
  Tensor U = empty_of(kDouble), S = empty_of(kDouble), V = empty_of(kDouble);
  auto r = svd_out(U, S, V, A);
  EXPECT_EQ(&std::get<2>(r), &V);
  EXPECT_LT(max_err(matmul(mul(U, S.unsqueeze(-2)), V.mT()), A), 1e-10);
  Tensor Q = empty_of(kDouble), Rf = empty_of(kDouble);
  qr_out(Q, Rf, A, /*some=*/false);
  EXPECT_EQ(Q.sizes().vec(), std::vector<int64_t>({2, 4, 4}));
  EXPECT_LT(max_err(matmul(Q, Rf), A), 1e-10);
}

// PyTorch's rules: pinv, matrix_rank, cond and lstsq take any out dtype the result casts to
// safely (not an integer one for a float result, not bool for the rank); pinv, lstsq, svd and
// qr refuse inputs that require grad, while matrix_rank (integer-valued) and cond (whose out=
// is a differentiable copy) take them.
TEST(LinalgOut, DtypeAndAutogradRules) {
  manual_seed(19);
  Tensor A = well_conditioned({3, 3});
  Tensor f32 = empty_of(kFloat), c128 = empty_of(kComplexDouble), i32 = empty_of(kInt32), b = empty_of(kBool);
  linalg::pinv_out(f32, A);
  EXPECT_EQ(f32.dtype(), kFloat);
  EXPECT_LT(max_err(f32.to(kDouble), linalg::pinv(A)), 1e-5);
  linalg::pinv_out(c128, A);
  EXPECT_LT(max_err(c128.real(), linalg::pinv(A)), 1e-12);
  EXPECT_THROW(linalg::pinv_out(i32, A), RuntimeError);
  linalg::matrix_rank_out(i32, A);
  EXPECT_EQ(i32.item<int64_t>(), 3);
  linalg::matrix_rank_out(f32, A);
  EXPECT_EQ(f32.item<double>(), 3.0);
  EXPECT_THROW(linalg::matrix_rank_out(b, A), RuntimeError);
  linalg::cond_out(f32, A, "fro");
  EXPECT_NEAR(f32.item<double>(), linalg::cond(A, "fro").item<double>(), 1e-4 * f32.item<double>());
  EXPECT_THROW(linalg::cond_out(i32, A), RuntimeError);
  Tensor sol = empty_of(kDouble), res = empty_of(kDouble), rk = empty_of(kInt64), sv = empty_of(kDouble);
  EXPECT_THROW(linalg::lstsq_out(sol, res, b, sv, A, A), RuntimeError);
  Tensor d = empty_of(kDouble);
  EXPECT_THROW(svd_out(d, f32, sv, A), RuntimeError);  // the top-level forms: the result's own dtype

  Tensor Ag = autograd::set_requires_grad(A.clone());
  EXPECT_THROW(linalg::pinv_out(d, Ag), RuntimeError);
  EXPECT_THROW(linalg::lstsq_out(sol, res, rk, sv, Ag, A), RuntimeError);
  Tensor U = empty_of(kDouble), S = empty_of(kDouble), V = empty_of(kDouble);
  EXPECT_THROW(svd_out(U, S, V, Ag), RuntimeError);
  EXPECT_THROW(qr_out(U, S, Ag), RuntimeError);
  Tensor rank = empty_of(kInt64);
  linalg::matrix_rank_out(rank, Ag);
  EXPECT_EQ(rank.item<int64_t>(), 3);
  Tensor c = empty_of(kDouble);
  linalg::cond_out(c, Ag, 1);
  EXPECT_TRUE(autograd::requires_grad(c));  // a copy recorded by autograd, as PyTorch's
  EXPECT_NEAR(c.item<double>(), linalg::cond(A, 1).item<double>(), 1e-10);
}

}  // namespace ember::linalg_out_test
