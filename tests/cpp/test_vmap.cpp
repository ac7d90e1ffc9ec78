// vmap and the composable transforms of ember::func: results against loops and against
// autograd::functional, nesting, and the errors.
#include <gtest/gtest.h>

#include "ember/autograd.h"
#include "ember/autograd_functional.h"
#include "ember/func.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/ops/nn.h"
#include "test_util.h"

namespace ember {
namespace {

using testing::as_double;
using testing::expect_error;
using testing::uniform;

void expect_close(const Tensor& a, const Tensor& b, double tol = 1e-10) {
  ASSERT_EQ(a.sizes().vec(), b.sizes().vec());
  auto x = as_double(a), y = as_double(b);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(x[i], y[i], tol) << "element " << i;
}

Tensor per_sample(const Tensor& w, const Tensor& x) { return ember::softmax(ember::matmul(w, x).tanh(), 0) * x.sum(); }

TEST(Vmap, MatchesLoopAndKeepsLevelsApart) {
  Tensor w = uniform({4, 3}, kDouble), xs = uniform({5, 3}, kDouble, -1, 1, 2);
  auto f = func::vmap([&](const std::vector<Tensor>& a) { return std::vector<Tensor>{per_sample(w, a[0])}; });
  Tensor out = f({xs})[0];
  std::vector<Tensor> rows;
  for (int64_t i = 0; i < 5; ++i) rows.push_back(per_sample(w, xs.select(0, i)));
  expect_close(out, ember::stack(rows, 0));
  EXPECT_EQ(func::current_vmap_level(), 0);
  // in_dims 1 and an unbatched argument; out_dims 1
  auto g = func::vmap([](const std::vector<Tensor>& a) { return std::vector<Tensor>{a[0] * a[1]}; },
                      {1, std::nullopt}, {1});
  Tensor y = uniform({3}, kDouble, -1, 1, 3);
  expect_close(g({xs.t(), y})[0], (xs * y).t());
}

TEST(Vmap, Nested) {
  Tensor x = uniform({2, 3, 4}, kDouble);
  auto inner = func::vmap([](const std::vector<Tensor>& a) { return std::vector<Tensor>{a[0].sum() * a[0]}; });
  auto outer = func::vmap([&](const std::vector<Tensor>& a) { return inner(a); });
  Tensor want = x * x.sum(-1, true);
  expect_close(outer({x})[0], want);
}

TEST(Vmap, Errors) {
  auto id = func::vmap([](const std::vector<Tensor>& a) { return a; });
  expect_error<ValueError>([&] { id({ember::zeros({3}), ember::zeros({4})}); },
                           "Expected all tensors to have the same size in the mapped dimension");
  Tensor y = ember::zeros({2});
  auto bad = func::vmap([&](const std::vector<Tensor>& a) { return std::vector<Tensor>{y.add_(a[0])}; });
  expect_error<RuntimeError>([&] { bad({ember::ones({3, 2})}); }, "vmap: add_(self, *extra_args) is not possible");
  EXPECT_EQ(as_double(y), std::vector<double>({0, 0}));
  auto item = func::vmap([](const std::vector<Tensor>& a) { return std::vector<Tensor>{a[0] * a[0].sum().item()}; });
  expect_error<RuntimeError>([&] { item({ember::ones({3, 2})}); }, "calling .item() on a Tensor");
  EXPECT_EQ(func::current_vmap_level(), 0);  // levels unwind after errors
}

// Rules where the samples' operands differ in rank (batch_rules_linalg.cpp, _gather.cpp) and
// functorch's error for results of value-dependent shape (batch_rules_dynamic.cpp).
TEST(Vmap, BroadcastingSolvesScalarSamplesAndDynamicShapes) {
  Tensor a = uniform({4, 2, 3, 3}, kDouble) + ember::eye(3, std::nullopt, TensorOptions(kDouble)).mul(Scalar(4));
  Tensor b = uniform({3}, kDouble, -1, 1, 9);
  auto solve = func::vmap([&](const std::vector<Tensor>& x) { return std::vector<Tensor>{linalg::solve(x[0], b)}; });
  Tensor got = solve({a})[0];
  std::vector<Tensor> rows;
  for (int64_t i = 0; i < 4; ++i) rows.push_back(linalg::solve(a.select(0, i), b));
  expect_close(got, ember::stack(rows, 0));
  // 0-dim samples of take and std
  Tensor s = uniform({5}, kDouble, -1, 1, 10);
  auto scalar = func::vmap([](const std::vector<Tensor>& x) {
    return std::vector<Tensor>{ember::take(x[0], ember::zeros({2}, TensorOptions(kInt64))), ember::std(x[0], std::nullopt, 0)};
  });
  std::vector<Tensor> r = scalar({s});
  expect_close(r[0], s.unsqueeze(1).expand({5, 2}));
  expect_close(r[1], ember::zeros({5}, TensorOptions(kDouble)));
  EXPECT_EQ(r[0].sizes().vec(), std::vector<int64_t>({5, 2}));
  auto nz = func::vmap([](const std::vector<Tensor>& x) { return std::vector<Tensor>{ember::nonzero(x[0])}; });
  expect_error<RuntimeError>([&] { nz({ember::ones({3, 2})}); },
                             "vmap: We do not support batching operators that can output dynamic shape. Attempted to "
                             "vmap over aten::nonzero");
}

TEST(Func, GradVjpJacrevHessianMatchAutogradFunctional) {
  Tensor w = uniform({4, 4}, kDouble), x = uniform({4}, kDouble, -1, 1, 5);
  func::Fn f = [&](const std::vector<Tensor>& a) { return std::vector<Tensor>{ember::matmul(w, a[0]).tanh().sum()}; };
  func::Fn fv = [&](const std::vector<Tensor>& a) { return std::vector<Tensor>{ember::matmul(w, a[0]).tanh()}; };
  namespace af = autograd::functional;
  auto fn = [&](const std::vector<Tensor>& a) -> af::TensorOrTuple { return fv(a)[0]; };
  auto fs = [&](const std::vector<Tensor>& a) -> af::TensorOrTuple { return f(a)[0]; };
  Tensor jac = af::jacobian(fn, x).blocks[0][0];
  Tensor hes = af::hessian(fs, x).blocks[0][0];
  expect_close(func::grad(f)({x})[0], jac.sum(0));
  expect_close(func::jacrev(fv)({x})[0], jac);
  expect_close(func::hessian(f)({x})[0], hes);
  func::VjpResult r = func::vjp(fv, {x});
  Tensor ct = uniform({4}, kDouble, -1, 1, 6);
  expect_close(r.vjp_fn({ct})[0], ember::matmul(ct, jac));
  // vectorize=true gives the same blocks
  expect_close(af::jacobian(fn, x, false, false, true).blocks[0][0], jac);
  expect_close(af::hessian(fs, x, false, false, true).blocks[0][0], hes);
}

TEST(Func, PerSampleGradients) {
  Tensor w = uniform({3, 4}, kDouble), xs = uniform({6, 4}, kDouble, -1, 1, 7);
  func::Fn loss = [](const std::vector<Tensor>& a) {
    return std::vector<Tensor>{ember::matmul(a[0], a[1]).relu().sin().sum()};
  };
  auto per = func::vmap(func::grad(loss), {std::nullopt, 0});
  Tensor g = per({w, xs})[0];
  ASSERT_EQ(g.sizes().vec(), std::vector<int64_t>({6, 3, 4}));
  for (int64_t i = 0; i < 6; ++i) {
    Tensor wi = autograd::detach(w).clone();
    autograd::set_requires_grad(wi, true);
    Tensor l = ember::matmul(wi, xs.select(0, i)).relu().sin().sum();
    expect_close(g.select(0, i), autograd::grad({l}, {wi})[0]);
  }
}

// grad lifts w (not batched by vmap) without a copy per sample: views of it that keep the
// samples in front (t(), reshape) and ones that do not (narrow of a flattened w) must still
// give each sample its own gradient.
TEST(Func, PerSampleGradientsThroughViewsOfASharedInput) {
  Tensor w = uniform({3, 4}, kDouble), xs = uniform({5, 4}, kDouble, -1, 1, 8);
  auto f = [](const Tensor& wi, const Tensor& x) {
    Tensor flat = wi.reshape({-1});
    return (ember::matmul(x, wi.t()).tanh().sum() + (flat.narrow(0, 1, 6) * flat.narrow(0, 5, 6)).sum() +
            (wi.select(0, 2) * x).exp().sum());
  };
  func::Fn loss = [f](const std::vector<Tensor>& a) { return std::vector<Tensor>{f(a[0], a[1])}; };
  Tensor g = func::vmap(func::grad(loss), {std::nullopt, 0})({w, xs})[0];
  ASSERT_EQ(g.sizes().vec(), std::vector<int64_t>({5, 3, 4}));
  for (int64_t i = 0; i < 5; ++i) {
    Tensor wi = autograd::detach(w).clone();
    autograd::set_requires_grad(wi, true);
    expect_close(g.select(0, i), autograd::grad({f(wi, xs.select(0, i))}, {wi})[0]);
  }
}

}  // namespace
}  // namespace ember
