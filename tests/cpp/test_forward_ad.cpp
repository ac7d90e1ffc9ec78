// Forward-mode AD invariants: dual levels, tangents through ops, views and in-place writes,
// JVP rules against the JVP derived from the backward formula, ember::func::jvp, and the
// errors of make_dual / levels. Values are checked against closed forms.
#include <cmath>

#include "ember/autograd.h"
#include "ember/forward_ad.h"
#include "ember/linalg/spectral.h"
#include "test_util.h"

namespace ember {
namespace {

namespace fw = autograd::forward_ad;
using testing::as_double;
using testing::expect_error;
using testing::uniform;

void expect_close(const Tensor& t, const std::vector<double>& want, double tol = 1e-12) {
  std::vector<double> got = as_double(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

TEST(ForwardAD, TangentsThroughOps) {
  Tensor x = uniform({4}, kDouble, -1, 1, 1), v = uniform({4}, kDouble, -1, 1, 2);
  const auto xs = as_double(x), vs = as_double(v);
  fw::DualLevel level;
  Tensor d = fw::make_dual(x, v);
  Tensor y = mul(tanh(d), d);  // y' = (1 - tanh^2) x v + tanh v
  std::vector<double> want;
  for (size_t i = 0; i < xs.size(); ++i) {
    const double th = std::tanh(xs[i]);
    want.push_back(((1 - th * th) * xs[i] + th) * vs[i]);
  }
  expect_close(fw::unpack_dual(y).tangent, want);
  EXPECT_FALSE(fw::unpack_dual(mul(x, x)).tangent.defined());
  EXPECT_FALSE(fw::unpack_dual(fw::unpack_dual(d).primal).tangent.defined());
}

TEST(ForwardAD, RuleMatchesDerivedJvp) {
  // logsumexp has a rule; asinh derives its JVP from the backward formula: both against
  // closed forms
  Tensor x = uniform({3}, kDouble, -1, 1, 3), v = uniform({3}, kDouble, -1, 1, 4);
  const auto xs = as_double(x), vs = as_double(v);
  fw::DualLevel level;
  Tensor d = fw::make_dual(x, v);
  double se = 0, sv = 0;
  for (size_t i = 0; i < 3; ++i) se += std::exp(xs[i]);
  for (size_t i = 0; i < 3; ++i) sv += std::exp(xs[i]) / se * vs[i];
  expect_close(fw::unpack_dual(logsumexp(d, {0})).tangent, {sv});
  std::vector<double> want;
  for (size_t i = 0; i < 3; ++i) want.push_back(vs[i] / std::sqrt(xs[i] * xs[i] + 1));
  expect_close(fw::unpack_dual(asinh(d)).tangent, want);
}

TEST(ForwardAD, ViewsAndInPlace) {
  Tensor x = uniform({2, 3}, kDouble, -1, 1, 5), v = uniform({2, 3}, kDouble, -1, 1, 6);
  const auto vs = as_double(v);
  fw::DualLevel level;
  Tensor d = fw::make_dual(x.clone(), v);
  expect_close(fw::unpack_dual(d.t()).tangent.contiguous(), {vs[0], vs[3], vs[1], vs[4], vs[2], vs[5]});
  Tensor z = zeros({3, 3}, kDouble);
  z.select(0, 1).copy_(d.select(0, 0));  // a plain tensor gets the tangent where it is written
  expect_close(fw::unpack_dual(z).tangent, {0, 0, 0, vs[0], vs[1], vs[2], 0, 0, 0});
  Tensor y = d.clone();
  y.mul_(2.0);
  std::vector<double> twice;
  for (double t : vs) twice.push_back(2 * t);
  expect_close(fw::unpack_dual(y).tangent, twice);
}

TEST(ForwardAD, FuncJvp) {
  Tensor x = uniform({3}, kDouble, -1, 1, 7), v = uniform({3}, kDouble, -1, 1, 8);
  auto [out, tangents] = func::jvp([](const std::vector<Tensor>& in) { return std::vector<Tensor>{exp(in[0])}; },
                                   {x}, {v});
  const auto xs = as_double(x), vs = as_double(v);
  std::vector<double> want;
  for (size_t i = 0; i < 3; ++i) want.push_back(std::exp(xs[i]) * vs[i]);
  expect_close(tangents[0], want);
  expect_close(out[0], as_double(exp(x)));
}

TEST(ForwardAD, Errors) {
  Tensor x = uniform({3}, kDouble);
  expect_error<RuntimeError>([&] { fw::make_dual(x, x); }, "no level exists");
  fw::DualLevel level;
  expect_error<RuntimeError>([&] { fw::make_dual(x, uniform({4}, kDouble)); }, "different size");
  expect_error<ValueError>([&] { fw::make_dual(arange(3), x); }, "Expected primal to be floating point or complex");
  expect_error<RuntimeError>([&] { fw::enter_dual_level(); }, "Nested forward mode AD is not supported");
  Tensor d = fw::make_dual(x, x);
  expect_error<RuntimeError>([&] { fw::unpack_dual(d, 1); }, "Invalid level given to _fw_primal");
  Tensor out = empty({3}, kDouble);
  expect_error<NotImplementedError>([&] { sin_out(out, d); }, "because it is an out= function");
}

// The tangents of gauge-invariant functions of the decompositions' results match central
// differences (the hand-written JVP rules of linalg_eigh, _linalg_svd and linalg_qr).
void expect_jvp_matches_fd(const std::function<std::vector<Tensor>(const Tensor&)>& f, const Tensor& A,
                           const Tensor& dA) {
  std::vector<Tensor> tangents;
  {
    fw::DualLevel level;
    for (const Tensor& r : f(fw::make_dual(A, dA))) tangents.push_back(fw::unpack_dual(r).tangent);
  }
  const double eps = 1e-6;
  std::vector<Tensor> plus = f(add(A, mul(dA, Scalar(eps)))), minus = f(sub(A, mul(dA, Scalar(eps))));
  for (size_t k = 0; k < tangents.size(); ++k) {
    ASSERT_TRUE(tangents[k].defined()) << "result " << k;
    std::vector<double> fd = as_double(div(sub(plus[k], minus[k]), Scalar(2 * eps)));
    std::vector<double> got = as_double(tangents[k]);
    ASSERT_EQ(got.size(), fd.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], fd[i], 1e-6) << "result " << k << " element " << i;
  }
}

TEST(ForwardAD, DecompositionRules) {
  Tensor M = uniform({4, 4}, kDouble, -1, 1, 3), dM = uniform({4, 4}, kDouble, -1, 1, 4);
  Tensor w = arange(1, 5, 1, TensorOptions(kDouble));
  // eigh: eigenvalues, and V diag(w) V^T (independent of the signs of the vectors)
  expect_jvp_matches_fd([&](const Tensor& A) {
    auto [L, V] = linalg::eigh(add(A, A.mT()));
    return std::vector<Tensor>{L, matmul(mul(V, w), V.mT())};
  }, M, dM);
  // svd of a tall and of a wide matrix: S, and U diag(w) Vh over the first k vectors
  for (auto shape : {std::vector<int64_t>{5, 3}, std::vector<int64_t>{3, 5}}) {
    Tensor A = uniform(shape, kDouble, -1, 1, 5), dA = uniform(shape, kDouble, -1, 1, 6);
    for (bool full : {false, true}) {
      expect_jvp_matches_fd([&](const Tensor& X) {
        auto [U, S, Vh] = linalg::svd(X, full);
        return std::vector<Tensor>{S, matmul(mul(U.narrow(-1, 0, 3), w.narrow(0, 0, 3)), Vh.narrow(-2, 0, 3))};
      }, A, dA);
    }
    // qr: unique (R's diagonal is real), so Q and R themselves
    expect_jvp_matches_fd([&](const Tensor& X) {
      auto [Q, R] = linalg::qr(X);
      return std::vector<Tensor>{Q, R};
    }, A, dA);
  }
  fw::DualLevel level;
  Tensor d = fw::make_dual(uniform({4, 3}, kDouble, -1, 1, 7), uniform({4, 3}, kDouble, -1, 1, 8));
  expect_error<RuntimeError>([&] { linalg::qr(d, "r"); }, "which is not computed when mode='r'");
  expect_error<RuntimeError>([&] { linalg::qr(d, "complete"); }, "not differentiable when mode='complete'");
}

TEST(ForwardAD, PrintsTheTangent) {
  Tensor x = tensor({1.0, 2.0}, TensorOptions(kDouble));
  fw::DualLevel level;
  Tensor d = fw::make_dual(x, tensor({0.5, 0.0}, TensorOptions(kDouble)));
  EXPECT_EQ(d.str(),
            "tensor([1., 2.], dtype=ember.float64,\n       tangent=tensor([0.5000, 0.0000], dtype=ember.float64))");
  EXPECT_EQ(fw::unpack_dual(d).primal.str(), "tensor([1., 2.], dtype=ember.float64)");
}

}  // namespace
}  // namespace ember
