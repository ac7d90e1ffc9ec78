// autograd::functional: vjp, jvp, jacobian, hessian, vhp and hvp of functions whose
// derivatives have closed forms, result structure, create_graph and PyTorch's errors.
#include "ember/autograd.h"
#include "ember/autograd_functional.h"
#include "test_util.h"

namespace ember {
namespace {

namespace ag = autograd;
namespace agf = autograd::functional;
using testing::as_double;
using testing::expect_error;
using testing::uniform;

void expect_values(const Tensor& t, const std::vector<double>& want, IntArrayRef shape) {
  EXPECT_EQ(t.sizes(), shape);
  std::vector<double> got = as_double(t);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << "element " << i;
}

// diag(d) of an n-vector d, as a flat row-major n x n list.
std::vector<double> diag(const std::vector<double>& d) {
  std::vector<double> r(d.size() * d.size(), 0.0);
  for (size_t i = 0; i < d.size(); ++i) r[i * d.size() + i] = d[i];
  return r;
}
std::vector<double> scaled(std::vector<double> a, const std::vector<double>& b, double c) {
  for (size_t i = 0; i < a.size(); ++i) a[i] *= b[i] * c;
  return a;
}

TEST(AutogradFunctional, ProductsOfSquare) {
  Tensor x = uniform({3}, kDouble, -1, 1, 1), v = uniform({3}, kDouble, -1, 1, 2);
  const std::vector<double> xs = as_double(x), vs = as_double(v);
  auto square = [](const std::vector<Tensor>& in) { return mul(in[0], in[0]); };  // a single Tensor
  auto [out, vjp] = agf::vjp(square, x, v);
  EXPECT_FALSE(out.is_tuple);
  EXPECT_FALSE(vjp.is_tuple);
  expect_values(out[0], scaled(xs, xs, 1), {3});
  expect_values(vjp[0], scaled(xs, vs, 2), {3});  // J = diag(2x)
  auto [out2, jvp] = agf::jvp(square, x, v);
  expect_values(jvp[0], scaled(xs, vs, 2), {3});
  EXPECT_FALSE(ag::requires_grad(out2[0]) || ag::requires_grad(jvp[0]) || ag::requires_grad(vjp[0]));
  agf::Jacobian j = agf::jacobian(square, x);
  ASSERT_EQ(j.blocks.size(), 1u);
  expect_values(j.blocks[0][0], diag(scaled({1, 1, 1}, xs, 2)), {3, 3});
}

TEST(AutogradFunctional, JacobianOfTuples) {
  Tensor x = uniform({2}, kDouble, -1, 1, 3), y = uniform({2}, kDouble, -1, 1, 4);
  const std::vector<double> xs = as_double(x), ys = as_double(y);
  auto f = [](const std::vector<Tensor>& in) { return std::vector<Tensor>{mul(in[0], in[1]), sum(in[0])}; };
  agf::Jacobian j = agf::jacobian(f, {x, y});
  EXPECT_TRUE(j.outputs_tuple && j.inputs_tuple);
  ASSERT_EQ(j.blocks.size(), 2u);
  expect_values(j.blocks[0][0], diag(ys), {2, 2});
  expect_values(j.blocks[0][1], diag(xs), {2, 2});
  expect_values(j.blocks[1][0], {1, 1}, {2});  // a 0-d output: the block has the input's shape
  expect_values(j.blocks[1][1], {0, 0}, {2});
  // vjp with v per output: v0 * y + v1 for x, v0 * x for y.
  Tensor v0 = uniform({2}, kDouble, -1, 1, 5), v1 = scalar_tensor(0.5, kDouble);
  auto [out, g] = agf::vjp(f, {x, y}, agf::TensorOrTuple{v0, v1});
  const std::vector<double> v0s = as_double(v0);
  expect_values(g[0], {v0s[0] * ys[0] + 0.5, v0s[1] * ys[1] + 0.5}, {2});
  expect_values(g[1], {v0s[0] * xs[0], v0s[1] * xs[1]}, {2});
}

TEST(AutogradFunctional, HessianAndProductsOfCubic) {
  Tensor x = uniform({3}, kDouble, -1, 1, 6), v = uniform({3}, kDouble, -1, 1, 7);
  const std::vector<double> xs = as_double(x), vs = as_double(v);
  auto cubic = [](const std::vector<Tensor>& in) { return sum(mul(mul(in[0], in[0]), in[0])); };
  agf::Jacobian h = agf::hessian(cubic, x);
  EXPECT_FALSE(h.outputs_tuple || h.inputs_tuple);
  expect_values(h.blocks[0][0], diag(scaled({1, 1, 1}, xs, 6)), {3, 3});  // H = diag(6x)
  EXPECT_FALSE(ag::requires_grad(h.blocks[0][0]));
  expect_values(agf::hvp(cubic, x, v).second[0], scaled(xs, vs, 6), {3});
  expect_values(agf::vhp(cubic, x, v).second[0], scaled(xs, vs, 6), {3});
}

TEST(AutogradFunctional, HessianOfTwoInputs) {
  Tensor x = uniform({2}, kDouble, -1, 1, 8), y = uniform({2}, kDouble, -1, 1, 9);
  const std::vector<double> xs = as_double(x), ys = as_double(y);
  // f = sum(x^2 y): H_xx = diag(2y), H_xy = H_yx = diag(2x), H_yy = 0.
  auto f = [](const std::vector<Tensor>& in) { return sum(mul(mul(in[0], in[0]), in[1])); };
  agf::Jacobian h = agf::hessian(f, {x, y});
  expect_values(h.blocks[0][0], diag(scaled({1, 1}, ys, 2)), {2, 2});
  expect_values(h.blocks[0][1], diag(scaled({1, 1}, xs, 2)), {2, 2});
  expect_values(h.blocks[1][0], diag(scaled({1, 1}, xs, 2)), {2, 2});
  expect_values(h.blocks[1][1], {0, 0, 0, 0}, {2, 2});
}

TEST(AutogradFunctional, CreateGraphResultsAreDifferentiable) {
  Tensor x = uniform({3}, kDouble, -1, 1, 10);
  ag::set_requires_grad(x);
  auto cubic = [](const std::vector<Tensor>& in) { return sum(mul(mul(in[0], in[0]), in[0])); };
  Tensor h = agf::hessian(cubic, x, /*create_graph=*/true).blocks[0][0];
  ASSERT_TRUE(ag::requires_grad(h));
  // d/dx sum(diag(6x)) = 6 everywhere.
  expect_values(ag::grad({sum(h)}, {x})[0], {6, 6, 6}, {3});
  // Without create_graph nothing returned reaches x.
  EXPECT_FALSE(ag::requires_grad(agf::jacobian(cubic, x).blocks[0][0]));
}

TEST(AutogradFunctional, Errors) {
  Tensor x = uniform({3}, kDouble, -1, 1, 11), y = uniform({3}, kDouble, -1, 1, 12);
  auto twice_x = [](const std::vector<Tensor>& in) { return mul(in[0], 2); };
  expect_error<RuntimeError>([&] { agf::vjp(twice_x, x, Tensor(zeros({2}, kDouble))); },
                             "v has invalid size: should be ember.Size([3]) but got ember.Size([2]).");
  expect_error<RuntimeError>([&] { agf::vjp(twice_x, x); }, "The vector v can only be None if the user-provided");
  expect_error<RuntimeError>([&] { agf::jacobian(twice_x, {x, y}, false, /*strict=*/true); },
                             "Output 0 of the user-provided function is independent of input 1. This is not "
                             "allowed in strict mode.");
  expect_error<RuntimeError>([&] { agf::hessian([](const std::vector<Tensor>& in) { return sum(mul(in[0], 2)); }, x,
                                                false, /*strict=*/true); },
                             "While computing the hessian, found that the jacobian of the user-provided function "
                             "with respect to input 0 is independent of the input.");
  expect_error<RuntimeError>([&] { agf::hvp(twice_x, x, y); }, "The Tensor returned by the function given to hvp "
                             "should contain a single element");
  // vectorize=true works (tests/cpp/test_vmap.cpp); forward mode needs it.
  expect_error<NotImplementedError>([&] { agf::jacobian(twice_x, x, false, false, false, "forward-mode"); },
                                    "only implemented for `vectorize=True`");
  // Without strict, independence gives zeros.
  expect_values(agf::jacobian(twice_x, {x, y}).blocks[0][1], std::vector<double>(9, 0.0), {3, 3});
}

TEST(AutogradFunctional, ForwardModeJacobianAndHessian) {
  Tensor W = uniform({4, 3}, kDouble, -1, 1, 11), x = uniform({3}, kDouble, -1, 1, 12);
  auto f = [&](const std::vector<Tensor>& in) { return std::vector<Tensor>{tanh(matmul(W, in[0])), sum(in[1])}; };
  Tensor y = uniform({2}, kDouble, -1, 1, 13);
  agf::Jacobian rev = agf::jacobian(f, {x, y});
  agf::Jacobian fwd = agf::jacobian(f, {x, y}, false, false, true, "forward-mode");
  EXPECT_TRUE(fwd.outputs_tuple && fwd.inputs_tuple);
  for (size_t i = 0; i < 2; ++i)
    for (size_t j = 0; j < 2; ++j)
      expect_values(fwd.blocks[i][j], as_double(rev.blocks[i][j]), rev.blocks[i][j].sizes());
  auto g = [&](const std::vector<Tensor>& in) { return sum(tanh(matmul(W, mul(in[0], in[0])))); };
  agf::Jacobian hrev = agf::hessian(g, x);
  agf::Jacobian hfwd = agf::hessian(g, x, false, false, true, "forward-mode");
  expect_values(hfwd.blocks[0][0], as_double(hrev.blocks[0][0]), {3, 3});
  expect_error<NotImplementedError>([&] { agf::jacobian(f, {x, y}, false, false, false, "forward-mode"); },
                                    "only implemented for `vectorize=True`");
}

TEST(AutogradFunctional, GradIsGradsBatched) {
  Tensor x = ag::set_requires_grad(uniform({3}, kDouble, -1, 1, 14).detach(), true);
  Tensor y = mul(sin(x), x);
  Tensor seeds = uniform({4, 3}, kDouble, -1, 1, 15);
  std::vector<Tensor> batched = ag::grad({y}, {x}, {seeds}, true, false, false, /*is_grads_batched=*/true);
  ASSERT_EQ(batched[0].sizes(), IntArrayRef({4, 3}));
  for (int64_t b = 0; b < 4; ++b) {
    Tensor one = ag::grad({y}, {x}, {seeds.select(0, b)}, true)[0];
    expect_values(batched[0].select(0, b), as_double(one), {3});
  }
  expect_error<RuntimeError>([&] { ag::grad({y}, {x}, {uniform({4, 2}, kDouble)}, true, false, false, true); },
                             "we interpret the first dimension of each grad_output as the batch dimension");
}

}  // namespace
}  // namespace ember
