// The derivative formulas of formulas_pointwise.cpp, formulas_reduce.cpp and
// formulas_shape.cpp against central differences in float64 (and complex128 where the op
// supports it), at points away from where the ops are not differentiable.
#include <functional>
#include <limits>

#include "ember/autograd.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "test_util.h"

namespace ember {
namespace {

namespace ag = autograd;
using testing::as_double;
using testing::uniform;
using V = std::vector<Tensor>;
using Fn = std::function<Tensor(const V&)>;
using C = std::complex<double>;

Tensor input(IntArrayRef shape, unsigned seed, double lo = -1, double hi = 1, ScalarType dt = kDouble) {
  Tensor t = uniform(shape, dt, lo, hi, seed);
  ag::set_requires_grad(t);
  return t;
}
Tensor cinput(IntArrayRef shape, unsigned seed, double lo = -1, double hi = 1) {
  return input(shape, seed, lo, hi, kComplexDouble);
}

// A real scalar that depends on every element (and, for complex y, on its phase) with
// distinct weights, so that misplaced gradients show.
Tensor loss(const Tensor& y) {
  if (y.is_complex()) {
    const Tensor w = uniform(y.sizes(), kComplexDouble, -1, 1, 77), b = uniform(y.sizes(), kComplexDouble, -1, 1, 78);
    return sum(abs(add(mul(y, w), b)));
  }
  return sum(mul(y, uniform(y.sizes(), y.dtype(), 0.5, 1.5, 77)));
}

// Autograd gradients of loss(f(inputs)) against central differences (for complex inputs,
// dL/dRe + i dL/dIm, the conjugate Wirtinger convention).
void check_grads(const Fn& f, V inputs, double tol = 1e-6) {
  auto l = [&] { return loss(f(inputs)); };
  std::vector<Tensor> grads = ag::grad({l()}, inputs, {}, std::nullopt, false, /*allow_unused=*/true);
  const double eps = 1e-6;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const Tensor& x = inputs[k];
    const bool cplx = x.is_complex();
    Tensor flat = ag::detach(x).view({x.numel()});
    Tensor gk = grads[k].defined() ? grads[k] : zeros_like(ag::detach(x));
    std::vector<double> g_re = as_double(cplx ? gk.real() : gk);
    std::vector<double> g_im = cplx ? as_double(gk.imag()) : std::vector<double>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      for (int part = 0; part < (cplx ? 2 : 1); ++part) {
        // Grad mode stays on for l(): it may itself take gradients (second order).
        auto eval = [&](double h) {
          Tensor e = flat.select(0, i);
          Tensor saved = e.clone();
          if (cplx) e.add_(scalar_tensor(part ? Scalar(C(0, h)) : Scalar(h), x.dtype()));
          else e.add_(h);
          const double v = ag::detach(l()).to(kDouble).item<double>();
          e.copy_(saved);
          return v;
        };
        const double num = (eval(eps) - eval(-eps)) / (2 * eps);
        const double got = part ? g_im[static_cast<size_t>(i)] : g_re[static_cast<size_t>(i)];
        EXPECT_NEAR(got, num, tol * std::max(1.0, std::abs(num))) << "input " << k << " element " << i << " part " << part;
      }
    }
  }
}

// Ops without a derivative in PyTorch 1.13 (or that it refuses for these dtypes): as there,
// the forward runs and the backward raises.
void expect_no_derivative(const Fn& f, V inputs) { EXPECT_ANY_THROW(ag::grad({loss(f(inputs))}, inputs)); }

// Ops called by schema name (overloads without a front function of their own).
Tensor op1(const char* name, const Tensor& x) { return TypedOp<Tensor(const Tensor&)>(name).call(x); }
Tensor op_tt(const char* name, const Tensor& a, const Tensor& b) {
  return TypedOp<Tensor(const Tensor&, const Tensor&)>(name).call(a, b);
}
Tensor op_ts(const char* name, const Tensor& a, const Scalar& b) {
  return TypedOp<Tensor(const Tensor&, const Scalar&)>(name).call(a, b);
}
Tensor op_st(const char* name, const Scalar& a, const Tensor& b) {
  return TypedOp<Tensor(const Scalar&, const Tensor&)>(name).call(a, b);
}
Tensor idx(std::initializer_list<int64_t> v) { return tensor(v, kInt64); }

struct Unary {
  const char* name;
  double lo, hi;
};

TEST(AutogradFormulas, UnaryReal) {
  const Unary cases[] = {
      {"reciprocal", 0.5, 2}, {"rsqrt", 0.5, 2}, {"square", -1, 1}, {"exp2", -1, 1}, {"expm1", -1, 1},
      {"log2", 0.5, 2}, {"log10", 0.5, 2}, {"log1p", -0.5, 1}, {"tan", -1, 1}, {"asin", -0.9, 0.9},
      {"arcsin", -0.9, 0.9}, {"acos", -0.9, 0.9}, {"arccos", -0.9, 0.9}, {"atan", -2, 2}, {"arctan", -2, 2},
      {"sinh", -1, 1}, {"cosh", -1, 1}, {"asinh", -2, 2}, {"arcsinh", -2, 2}, {"acosh", 1.2, 3},
      {"arccosh", 1.2, 3}, {"atanh", -0.9, 0.9}, {"arctanh", -0.9, 0.9}, {"erf", -1.5, 1.5},
      {"erfc", -1.5, 1.5}, {"erfinv", -0.9, 0.9}, {"lgamma", 0.5, 3}, {"digamma", 0.5, 3}, {"sinc", -2, 2},
      {"silu", -3, 3}, {"mish", -3, 3}, {"softsign", -2, 2}, {"selu", -2, 2}, {"relu6", -2, 8},
      {"hardsigmoid", -5, 5}, {"hardswish", -5, 5}, {"frac", -2, 2}, {"sgn", -1, 1}, {"sign", -1, 1},
      {"angle", -1, 1}, {"conj_physical", -1, 1}, {"ceil", -2, 2},
      {"round", -2, 2}, {"trunc", -2, 2}, {"fix", -2, 2},
  };
  unsigned seed = 100;
  for (const Unary& u : cases) {
    SCOPED_TRACE(u.name);
    const std::string n = u.name;
    check_grads([n](const V& v) { return op1(n.c_str(), v[0]); }, {input({2, 3}, seed++, u.lo, u.hi)});
  }
}

TEST(AutogradFormulas, UnaryComplex) {
  const char* const names[] = {"reciprocal", "rsqrt", "square", "tan", "asin", "acos", "atan", "sinh", "cosh",
                               "asinh", "acosh", "atanh", "log2", "log10", "sinc", "sgn", "angle",
                               "conj_physical", "arcsin", "arccosh"};
  unsigned seed = 200;
  for (const char* name : names) {
    SCOPED_TRACE(name);
    const std::string n = name;
    check_grads([n](const V& v) { return op1(n.c_str(), v[0]); }, {cinput({4}, seed++, 0.2, 0.8)});
  }
  check_grads([](const V& v) { return conj(v[0]); }, {cinput({3}, seed++)});
  expect_no_derivative([](const V& v) { return op1("silu", v[0]); }, {cinput({4}, seed++, 0.2, 0.8)});
}

TEST(AutogradFormulas, ParameterizedUnary) {
  check_grads([](const V& v) { return gelu(v[0]); }, {input({6}, 1, -3, 3)});
  check_grads([](const V& v) { return gelu(v[0], "tanh"); }, {input({6}, 2, -3, 3)});
  check_grads([](const V& v) { return softplus(v[0], 2.0, 1.0); }, {input({6}, 3)});
  check_grads([](const V& v) { return elu(v[0], 1.3, 0.7, 1.5); }, {input({6}, 4, -2, 2)});
  check_grads([](const V& v) { return celu(v[0], 0.8); }, {input({6}, 5, -2, 2)});
  check_grads([](const V& v) { return leaky_relu(v[0], 0.2); }, {input({6}, 6)});
  check_grads([](const V& v) { return hardtanh(v[0], -0.5, 0.7); }, {input({6}, 7)});
  check_grads([](const V& v) { return logit(v[0]); }, {input({6}, 8, 0.05, 0.95)});
  check_grads([](const V& v) { return logit(v[0], 0.2); }, {input({6}, 9, 0.05, 0.95)});
  check_grads([](const V& v) { return polygamma(2, v[0]); }, {input({4}, 10, 0.5, 3)});
  check_grads([](const V& v) { return round(v[0], 1); }, {input({4}, 11, 0.01, 0.04)});
  check_grads([](const V& v) { return nan_to_num(v[0]); }, {input({4}, 12)});
}

TEST(AutogradFormulas, Clamp) {
  using ClampSig = Tensor(const Tensor&, const std::optional<Scalar>&, const std::optional<Scalar>&);
  using OptT = std::optional<Tensor>;
  check_grads([](const V& v) { return clamp(v[0], Scalar(-0.3), Scalar(0.4)); }, {input({8}, 1)});
  check_grads([](const V& v) { return clamp(v[0], std::optional<Scalar>(), Scalar(0.2)); }, {input({8}, 2)});
  check_grads([](const V& v) { return TypedOp<ClampSig>("clip").call(v[0], Scalar(-0.2), std::nullopt); }, {input({8}, 3)});
  check_grads([](const V& v) { return clamp(v[0], OptT(v[1]), OptT(v[2])); },
              {input({8}, 4), input({8}, 5, -1, 0), input({8}, 6, 0, 1)});
  check_grads([](const V& v) { return clamp(v[0], OptT(), OptT(v[1])); }, {input({2, 4}, 7), input({4}, 8)});
  check_grads([](const V& v) { return clamp(v[0], OptT(v[1]), OptT()); }, {input({2, 4}, 9), input({4}, 10)});
  // A lower bound above the upper one: the result is the upper bound.
  check_grads([](const V& v) { return clamp(v[0], OptT(v[1]), OptT(v[2])); },
              {input({4}, 11), input({4}, 12, 0.5, 1), input({4}, 13, -0.4, 0.4)});
  check_grads([](const V& v) { return clamp_min(v[0], -0.1); }, {input({8}, 14)});
  check_grads([](const V& v) { return clamp_max(v[0], 0.1); }, {input({8}, 15)});
  check_grads([](const V& v) { return op_tt("clamp_min.Tensor", v[0], v[1]); }, {input({8}, 16), input({8}, 17)});
  check_grads([](const V& v) { return op_tt("clamp_max.Tensor", v[0], v[1]); }, {input({8}, 18), input({8}, 19)});
}

TEST(AutogradFormulas, Pow) {
  check_grads([](const V& v) { return pow(v[0], v[1]); }, {input({3, 1}, 1, 0.5, 2), input({1, 4}, 2, -1, 2)});
  check_grads([](const V& v) { return op_ts("pow.Tensor_Scalar", v[0], 2.5); }, {input({5}, 3, 0.5, 2)});
  check_grads([](const V& v) { return op_ts("pow.Tensor_Scalar", v[0], 0); }, {input({5}, 4)});
  check_grads([](const V& v) { return op_st("pow.Scalar", 1.7, v[0]); }, {input({5}, 5)});
  check_grads([](const V& v) { return op_tt("float_power.Tensor_Tensor", v[0], v[1]); },
              {input({4}, 6, 0.5, 2), input({4}, 7)});
  check_grads([](const V& v) { return op_ts("float_power.Tensor_Scalar", v[0], -1.5); }, {input({4}, 8, 0.5, 2)});
  check_grads([](const V& v) { return op_st("float_power.Scalar", 2.5, v[0]); }, {input({4}, 9)});
  // 0^e for e > 0: the exponent's gradient is 0 there.
  Tensor x = zeros({2}, kDouble), e = input({2}, 10, 1, 2);
  std::vector<Tensor> g = ag::grad({sum(pow(x, e))}, {e});
  EXPECT_EQ(as_double(g[0]), std::vector<double>(2, 0.0));
  // pow(Tensor, number) from C++ keeps the number in double in its derivative: d/dx x^(1/3)
  // at 8 is 1/12 (a wrapped 0-dim exponent once rounded e - 1 to float32: 0.0833333402).
  Tensor eight = full({1}, 8.0, TensorOptions().dtype(kDouble));
  ag::set_requires_grad(eight);
  EXPECT_NEAR(as_double(ag::grad({sum(pow(eight, 1.0 / 3))}, {eight})[0])[0], 1.0 / 12, 1e-16);
  // complex
  check_grads([](const V& v) { return pow(v[0], v[1]); }, {cinput({4}, 11, 0.2, 0.8), cinput({4}, 12, 0.2, 0.8)});
  check_grads([](const V& v) { return op_ts("pow.Tensor_Scalar", v[0], Scalar(C(1.5, 0.5))); }, {cinput({4}, 13, 0.2, 0.8)});
  check_grads([](const V& v) { return op_ts("pow.Tensor_Scalar", v[0], 3); }, {cinput({4}, 14)});
  check_grads([](const V& v) { return op_st("pow.Scalar", Scalar(C(0.5, 1.0)), v[0]); }, {cinput({4}, 15)});
}

TEST(AutogradFormulas, Binary) {
  const char* const names[] = {"atan2", "arctan2", "hypot", "maximum", "minimum", "fmax", "fmin",
                               "copysign.Tensor", "logaddexp", "logaddexp2", "true_divide.Tensor",
                               "remainder.Tensor", "fmod.Tensor"};
  unsigned seed = 300;
  for (const char* name : names) {
    SCOPED_TRACE(name);
    const std::string n = name;
    check_grads([n](const V& v) { return op_tt(n.c_str(), v[0], v[1]); },
                {input({3, 1}, seed, -3, 3), input({1, 4}, seed + 1, 0.5, 1.5)});
    seed += 2;
  }
  check_grads([](const V& v) { return op_tt("xlogy.Tensor", v[0], v[1]); }, {input({4}, 400), input({4}, 401, 0.5, 2)});
  check_grads([](const V& v) { return op_ts("xlogy.Scalar_Other", v[0], 1.5); }, {input({4}, 402)});
  check_grads([](const V& v) { return op_st("xlogy.Scalar_Self", 1.5, v[0]); }, {input({4}, 403, 0.5, 2)});
  check_grads([](const V& v) { return op_ts("copysign.Scalar", v[0], -1.0); }, {input({4}, 404)});
  check_grads([](const V& v) { return op_ts("true_divide.Scalar", v[0], 3.0); }, {input({4}, 405)});
  check_grads([](const V& v) { return op_ts("remainder.Scalar", v[0], 0.7); }, {input({4}, 406)});
  check_grads([](const V& v) { return op_ts("fmod.Scalar", v[0], 0.7); }, {input({4}, 407)});
  expect_no_derivative([](const V& v) { return op_st("remainder.Scalar_Tensor", 2.5, v[0]); }, {input({4}, 408, 0.6, 1.4)});
  expect_no_derivative([](const V& v) { return op_tt("floor_divide", v[0], v[1]); },
                       {input({3, 1}, 409, -3, 3), input({1, 4}, 410, 0.5, 1.5)});
  check_grads([](const V& v) { return op_tt("true_divide.Tensor", v[0], v[1]); },
              {cinput({3}, 409), cinput({3}, 410, 0.3, 1)});
  // Ties split the gradient evenly; fmax gives it all to self.
  Tensor a = input({3}, 411);
  Tensor b = ag::detach(a).clone();
  ag::set_requires_grad(b);
  std::vector<Tensor> g = ag::grad({sum(maximum(a, b))}, {a, b});
  EXPECT_EQ(as_double(g[0]), std::vector<double>(3, 0.5));
  EXPECT_EQ(as_double(g[1]), std::vector<double>(3, 0.5));
  g = ag::grad({sum(fmax(a, b))}, {a, b});
  EXPECT_EQ(as_double(g[0]), std::vector<double>(3, 1.0));
  EXPECT_EQ(as_double(g[1]), std::vector<double>(3, 0.0));
}

TEST(AutogradFormulas, Ternary) {
  check_grads([](const V& v) { return lerp(v[0], v[1], 0.3); }, {input({3, 1}, 1), input({4}, 2)});
  check_grads([](const V& v) { return lerp(v[0], v[1], v[2]); }, {input({3}, 3), input({3}, 4), input({3}, 5)});
  check_grads([](const V& v) { return addcmul(v[0], v[1], v[2], 0.7); }, {input({3, 1}, 6), input({4}, 7), input({3, 4}, 8)});
  check_grads([](const V& v) { return addcdiv(v[0], v[1], v[2], 0.7); }, {input({3}, 9), input({3}, 10), input({3}, 11, 0.5, 2)});
  check_grads([](const V& v) { return lerp(v[0], v[1], v[2]); }, {cinput({3}, 12), cinput({3}, 13), cinput({3}, 14)});
  check_grads([](const V& v) { return lerp(v[0], v[1], Scalar(C(0.3, 0.2))); }, {cinput({3}, 15), cinput({3}, 16)});
  check_grads([](const V& v) { return addcmul(v[0], v[1], v[2], Scalar(C(0.5, -1))); },
              {cinput({3}, 17), cinput({3}, 18), cinput({3}, 19)});
  check_grads([](const V& v) { return addcdiv(v[0], v[1], v[2], 2); }, {cinput({3}, 20), cinput({3}, 21), cinput({3}, 22, 0.3, 1)});
}

TEST(AutogradFormulas, Prod) {
  Tensor z1 = input({3, 4}, 1, 0.5, 1.5);
  {
    ag::NoGradGuard ng;
    ag::detach(z1).select(0, 1).select(0, 2).fill_(0.0);
  }
  Tensor z2 = input({3, 4}, 2, 0.5, 1.5);
  {
    ag::NoGradGuard ng;
    ag::detach(z2).select(1, 1).narrow(0, 0, 2).fill_(0.0);
  }
  for (const Tensor& x : {input({3, 4}, 3, 0.5, 1.5), z1, z2}) {
    check_grads([](const V& v) { return prod(v[0]); }, {x});
    check_grads([](const V& v) { return prod(v[0], 1); }, {x});
    check_grads([](const V& v) { return prod(v[0], 0, true); }, {x});
  }
  check_grads([](const V& v) { return prod(v[0], 0); }, {cinput({3, 2}, 4)});
}

TEST(AutogradFormulas, Extrema) {
  check_grads([](const V& v) { return max(v[0]); }, {input({3, 4}, 1)});
  check_grads([](const V& v) { return min(v[0]); }, {input({3, 4}, 2)});
  check_grads([](const V& v) { return median(v[0]); }, {input({3, 3}, 3)});
  check_grads([](const V& v) { return nanmedian(v[0]); }, {input({3, 3}, 4)});
  check_grads([](const V& v) { return amax(v[0], {1}); }, {input({3, 4}, 5)});
  check_grads([](const V& v) { return amin(v[0], {0}, true); }, {input({3, 4}, 6)});
  check_grads([](const V& v) { return amax(v[0]); }, {input({3, 4}, 7)});
  check_grads([](const V& v) { return std::get<0>(max(v[0], 1)); }, {input({3, 4}, 8)});
  check_grads([](const V& v) { return std::get<0>(min(v[0], 0, true)); }, {input({3, 4}, 9)});
  check_grads([](const V& v) { return std::get<0>(median(v[0], 1)); }, {input({3, 5}, 10)});
  check_grads([](const V& v) { return std::get<0>(nanmedian(v[0], 0, true)); }, {input({3, 5}, 11)});
  check_grads([](const V& v) { return std::get<0>(mode(v[0], 1)); }, {input({3, 5}, 12)});
  check_grads([](const V& v) { return std::get<0>(kthvalue(v[0], 2, 1)); }, {input({3, 5}, 13)});
  check_grads([](const V& v) { return std::get<0>(cummax(v[0], 1)); }, {input({3, 5}, 14)});
  check_grads([](const V& v) { return std::get<0>(cummin(v[0], 0)); }, {input({3, 5}, 15)});
  expect_no_derivative([](const V& v) {
    auto [lo, hi] = aminmax(v[0], 1);
    return add(lo, mul(hi, 3.0));
  }, {input({3, 5}, 16)});
  expect_no_derivative([](const V& v) {
    auto [lo, hi] = aminmax(v[0]);
    return add(lo, mul(hi, 3.0));
  }, {input({3, 5}, 17)});
  // Ties share the gradient evenly.
  Tensor x = tensor({1.0, 3.0, 3.0, 2.0}, kDouble);
  ag::set_requires_grad(x);
  EXPECT_EQ(as_double(ag::grad({amax(x)}, {x})[0]), (std::vector<double>{0, 0.5, 0.5, 0}));
  EXPECT_EQ(as_double(ag::grad({max(x)}, {x})[0]), (std::vector<double>{0, 0.5, 0.5, 0}));
}

TEST(AutogradFormulas, VarStd) {
  using VarUnbiasedSig = Tensor(const Tensor&, bool);
  using VarDimSig = Tensor(const Tensor&, std::optional<IntArrayRef>, bool, bool);
  using VarMeanDimSig = std::tuple<Tensor, Tensor>(const Tensor&, std::optional<IntArrayRef>, bool, bool);
  const std::vector<int64_t> d1{1}, d0{0};
  for (const Tensor& x : {input({3, 4}, 1), cinput({3, 4}, 2)}) {
    check_grads([](const V& v) { return var(v[0]); }, {x});
    check_grads([&](const V& v) { return var(v[0], IntArrayRef(d1), 0, true); }, {x});
    check_grads([&](const V& v) { return ember::std(v[0], IntArrayRef(d0), 2); }, {x});
    check_grads([](const V& v) { return ember::std(v[0]); }, {x});
    check_grads([](const V& v) { return TypedOp<VarUnbiasedSig>("var").call(v[0], false); }, {x});
    check_grads([](const V& v) { return TypedOp<VarUnbiasedSig>("std").call(v[0], true); }, {x});
    check_grads([&](const V& v) { return TypedOp<VarDimSig>("std.dim").call(v[0], IntArrayRef(d1), true, false); }, {x});
    check_grads([&](const V& v) { return TypedOp<VarDimSig>("var.dim").call(v[0], IntArrayRef(d0), false, true); }, {x});
    check_grads([&](const V& v) {
      auto [s, m] = var_mean(v[0], IntArrayRef(d1));
      return add(s, mul(m, 2.0));
    }, {x});
    check_grads([&](const V& v) {
      auto [s, m] = std_mean(v[0], IntArrayRef(d0), 0, true);
      return add(s, mul(m, 2.0));
    }, {x});
    check_grads([&](const V& v) {
      auto [s, m] = TypedOp<VarMeanDimSig>("std_mean.dim").call(v[0], std::nullopt, true, false);
      return add(s, mul(m, 2.0));
    }, {x});
  }
}

TEST(AutogradFormulas, NormLogsumexpNansum) {
  const double inf = std::numeric_limits<double>::infinity();
  for (double p : {2.0, 1.0, 3.0, 0.5, inf, -inf}) {
    SCOPED_TRACE(p);
    check_grads([p](const V& v) { return norm(v[0], p); }, {input({3, 4}, 1, 0.2, 1)});
    check_grads([p](const V& v) { return norm(v[0], Scalar(p), {1}, false); }, {input({3, 4}, 2)});
    check_grads([p](const V& v) { return norm(v[0], Scalar(p), {0}, true); }, {cinput({3, 2}, 3, 0.2, 1)});
  }
  check_grads([](const V& v) { return norm(v[0], std::nullopt, {0, 1}, false, kDouble); }, {input({3, 4}, 4)});
  check_grads([](const V& v) { return logsumexp(v[0], {1}); }, {input({3, 4}, 5)});
  check_grads([](const V& v) { return logsumexp(v[0], {0, 1}, true); }, {input({3, 4}, 6)});
  check_grads([](const V& v) { return nansum(v[0]); }, {input({3, 4}, 7)});
  check_grads([](const V& v) { return nansum(v[0], IntArrayRef({1}), true); }, {input({3, 4}, 8)});
  // NaNs get no gradient.
  Tensor x = tensor({1.0, std::nan(""), 2.0}, kDouble);
  ag::set_requires_grad(x);
  EXPECT_EQ(as_double(ag::grad({nansum(x)}, {x})[0]), (std::vector<double>{1, 0, 1}));
}

TEST(AutogradFormulas, Scans) {
  check_grads([](const V& v) { return cumsum(v[0], 1); }, {input({3, 4}, 1)});
  check_grads([](const V& v) { return cumsum(v[0], 0); }, {cinput({3, 2}, 2)});
  check_grads([](const V& v) { return cumprod(v[0], 1); }, {input({3, 4}, 3)});
  check_grads([](const V& v) { return cumprod(v[0], 0); }, {cinput({3, 2}, 4)});
  Tensor z = input({2, 5}, 5);
  {
    ag::NoGradGuard ng;
    ag::detach(z).select(1, 2).fill_(0.0);
    ag::detach(z).select(0, 1).select(0, 4).fill_(0.0);
  }
  check_grads([](const V& v) { return cumprod(v[0], 1); }, {z});
  check_grads([](const V& v) { return cumprod(v[0], -1); }, {cinput({2, 3}, 6)});
  check_grads([](const V& v) { return logcumsumexp(v[0], 1); }, {input({3, 4}, 7)});
  check_grads([](const V& v) { return logcumsumexp(v[0], 0); }, {input({3, 4}, 8, -20, 20)});
}

TEST(AutogradFormulas, JoinAndRearrange) {
  check_grads([](const V& v) { return cat({v[0], mul(v[1], 2.0), v[2]}, 1); },
              {input({2, 3}, 1), input({2, 1}, 2), input({2, 2}, 3)});
  Tensor fixed = uniform({2, 2}, kDouble, -1, 1, 4);
  check_grads([&](const V& v) { return cat({fixed, v[0]}, -2); }, {input({3, 2}, 5)});
  check_grads([](const V& v) { return stack({v[0], v[1]}, 1); }, {input({2, 3}, 6), input({2, 3}, 7)});
  check_grads([](const V& v) { return hstack({v[0], v[1]}); }, {input({2, 3}, 8), input({2, 1}, 9)});
  check_grads([](const V& v) { return flip(v[0], {0, 2}); }, {input({2, 3, 2}, 10)});
  check_grads([](const V& v) { return roll(v[0], {1, -2}, {0, 1}); }, {input({3, 4}, 11)});
  check_grads([](const V& v) { return roll(v[0], {5}); }, {input({3, 4}, 12)});
  check_grads([](const V& v) { return repeat(v[0], {2, 1, 3}); }, {input({2, 3}, 13)});
  check_grads([](const V& v) { return tile(v[0], {2, 2}); }, {input({3}, 14)});
  check_grads([](const V& v) { return tril(v[0], 1); }, {input({3, 4}, 15)});
  check_grads([](const V& v) { return triu(v[0], -1); }, {cinput({3, 3}, 16)});
}

TEST(AutogradFormulas, IndexGatherScatter) {
  const Tensor i3 = idx({2, 0, 2});
  check_grads([&](const V& v) { return index_select(v[0], 1, i3); }, {input({2, 4}, 1)});
  const Tensor gi = tensor({0L, 2L, 1L, 1L, 0L, 0L}, kInt64).reshape({2, 3});
  check_grads([&](const V& v) { return gather(v[0], 1, gi); }, {input({2, 4}, 2)});
  const Tensor si = tensor({0L, 2L, 1L, 3L, 0L, 2L}, kInt64).reshape({2, 3});  // no repeats in a row
  check_grads([&](const V& v) { return scatter(v[0], 1, si, v[1]); }, {input({2, 4}, 3), input({2, 3}, 4)});
  check_grads([&](const V& v) { return scatter(v[0], 1, si, Scalar(0.5)); }, {input({2, 4}, 5)});
  check_grads([&](const V& v) { return scatter_add(v[0], 1, gi, v[1]); }, {input({2, 4}, 6), input({2, 3}, 7)});
  check_grads([&](const V& v) { return index_add(v[0], 0, i3, v[1], 2.0); }, {input({3, 2}, 8), input({3, 2}, 9)});
  const Tensor i2 = idx({2, 0});
  check_grads([&](const V& v) { return index_copy(v[0], 0, i2, v[1]); }, {input({3, 2}, 10), input({2, 2}, 11)});
  check_grads([&](const V& v) { return index_fill(v[0], 1, i2, Scalar(1.5)); }, {input({2, 3}, 12)});
  check_grads([&](const V& v) { return index_fill(v[0], 1, idx({2, 0, 2}), v[1]); }, {input({2, 3}, 13), input({}, 14)});
  check_grads([&](const V& v) { return take(v[0], idx({5, 0, 5, 3})); }, {input({2, 3}, 15)});
  check_grads([&](const V& v) { return put(v[0], idx({4, 0}), v[1]); }, {input({2, 3}, 16), input({2}, 17)});
  check_grads([&](const V& v) { return put(v[0], idx({4, 4, 1}), v[1], true); }, {input({2, 3}, 18), input({3}, 19)});
}

TEST(AutogradFormulas, Masks) {
  const Tensor mask = tensor({true, false, true, false, false, true}, kBool).reshape({2, 3});
  const Tensor row = tensor({false, true, true}, kBool);
  check_grads([&](const V& v) { return masked_fill(v[0], mask, Scalar(2.0)); }, {input({2, 3}, 1)});
  check_grads([&](const V& v) { return masked_fill(v[0], row, v[1]); }, {input({2, 3}, 2), input({}, 3)});
  check_grads([&](const V& v) { return masked_scatter(v[0], mask, v[1]); }, {input({2, 3}, 4), input({5}, 5)});
}

TEST(AutogradFormulas, Sorting) {
  check_grads([](const V& v) { return std::get<0>(sort(v[0], 1)); }, {input({3, 4}, 1)});
  check_grads([](const V& v) { return std::get<0>(sort(v[0], 0, true)); }, {input({3, 4}, 2)});
  check_grads([](const V& v) { return std::get<0>(sort(v[0], true, 1, false)); }, {input({3, 4}, 3)});
  check_grads([](const V& v) { return std::get<0>(topk(v[0], 2, 1)); }, {input({3, 4}, 4)});
  check_grads([](const V& v) { return std::get<0>(topk(v[0], 2, 0, false)); }, {input({3, 4}, 5)});
  check_grads([](const V& v) { return msort(v[0]); }, {input({3, 4}, 6)});
}

TEST(AutogradFormulas, Products) {
  for (ScalarType dt : {kDouble, kComplexDouble}) {
    SCOPED_TRACE(is_complex(dt) ? "complex128" : "float64");
    auto in = [dt](IntArrayRef shape, unsigned seed) { return input(shape, seed, -1, 1, dt); };
    check_grads([](const V& v) { return dot(v[0], v[1]); }, {in({4}, 1), in({4}, 2)});
    check_grads([](const V& v) { return vdot(v[0], v[1]); }, {in({4}, 3), in({4}, 4)});
    check_grads([](const V& v) { return mv(v[0], v[1]); }, {in({3, 4}, 5), in({4}, 6)});
    check_grads([](const V& v) { return addmm(v[0], v[1], v[2], 0.5, 2); }, {in({1, 2}, 7), in({3, 4}, 8), in({4, 2}, 9)});
    check_grads([](const V& v) { return addmv(v[0], v[1], v[2], 2, 0.5); }, {in({3}, 10), in({3, 4}, 11), in({4}, 12)});
    check_grads([](const V& v) { return baddbmm(v[0], v[1], v[2], 1, 1.5); },
                {in({2, 3, 2}, 13), in({2, 3, 4}, 14), in({2, 4, 2}, 15)});
    check_grads([](const V& v) { return addbmm(v[0], v[1], v[2], 0.5, 1); },
                {in({3, 2}, 16), in({2, 3, 4}, 17), in({2, 4, 2}, 18)});
  }
  check_grads([](const V& v) { return addmm(v[0], v[1], v[2], Scalar(C(0.5, 1)), Scalar(C(1, -2))); },
              {cinput({3, 2}, 19), cinput({3, 4}, 20), cinput({4, 2}, 21)});
  const Tensor ti = tensor({0L, 2L, 1L, 1L}, kInt64).reshape({1, 4});
  check_grads([&](const V& v) { return take_along_dim(v[0], ti, 1); }, {input({3, 3}, 22)});
  check_grads([&](const V& v) { return take_along_dim(v[0], ti, 0); }, {input({3, 1}, 23)});
  check_grads([&](const V& v) { return take_along_dim(v[0], ti); }, {input({3, 3}, 24)});
}

TEST(AutogradFormulas, ScatterReduce) {
  const Tensor si = tensor({0L, 2L, 0L, 3L, 3L, 3L}, kInt64).reshape({2, 3});
  for (const char* reduce : {"sum", "mean", "amax", "amin"}) {
    for (bool include_self : {true, false}) {
      SCOPED_TRACE(std::string(reduce) + (include_self ? " include_self" : ""));
      const std::string r = reduce;
      check_grads([&](const V& v) { return scatter_reduce(v[0], 1, si, v[1], r, include_self); },
                  {input({2, 4}, 1), input({2, 3}, 2)});
    }
  }
}

// Composite ops decompose into ops with formulas.
TEST(AutogradFormulas, Composites) {
  check_grads([](const V& v) { return diag(v[0], -1); }, {input({3, 4}, 2)});
  check_grads([](const V& v) { return trace(v[0]); }, {input({3, 3}, 5)});
  check_grads([](const V& v) { return kron(v[0], v[1]); }, {input({2, 2}, 6), input({2, 3}, 7)});
  check_grads([](const V& v) { return cross(v[0], v[1], 1); }, {input({2, 3}, 8), input({2, 3}, 9)});
  check_grads([](const V& v) { return diff(v[0], 2, 1); }, {input({2, 5}, 10)});
  check_grads([](const V& v) { return trapezoid(v[0], v[1]); }, {input({2, 4}, 11), input({2, 4}, 12)});
  check_grads([](const V& v) { return rot90(v[0]); }, {input({2, 3}, 13)});
  check_grads([](const V& v) { return outer(v[0], v[1]); }, {input({2}, 14), input({3}, 15)});
  check_grads([](const V& v) { return addr(v[0], v[1], v[2], 0.5, 2); }, {input({2, 3}, 16), input({2}, 17), input({3}, 18)});
  check_grads([](const V& v) { return dstack({v[0], v[1]}); }, {input({2, 3}, 20), input({2, 3}, 21)});
  check_grads([](const V& v) { return column_stack({v[0], v[1]}); }, {input({3}, 22), input({3, 2}, 23)});
  check_grads([](const V& v) { return repeat_interleave(v[0], 2, 0); }, {input({2, 3}, 24)});
  check_grads([](const V& v) { return cdist(v[0], v[1]); }, {input({3, 2}, 25), input({4, 2}, 26)});
  check_grads([](const V& v) { return einsum("bij,jk->bki", {v[0], v[1]}); }, {input({2, 3, 4}, 27), input({4, 2}, 28)});
  check_grads([](const V& v) { return tensordot(v[0], v[1], 1); }, {input({2, 3}, 29), input({3, 2}, 30)});
  check_grads([](const V& v) { return chain_matmul({v[0], v[1], v[2]}); }, {input({2, 3}, 31), input({3, 4}, 32), input({4, 2}, 33)});
  check_grads([](const V& v) { return std::get<0>(max(v[0], 0)); }, {input({3, 2}, 34)});
  check_grads([](const V& v) { return op_tt("max.other", v[0], v[1]); }, {input({3}, 35), input({3}, 36)});
}

TEST(AutogradFormulas, RandomOpsHaveZeroGradient) {
  Tensor x = input({3}, 1, 0.2, 0.8);
  Tensor y = mul(x, 1.0);
  uniform_(y);
  Tensor b = bernoulli(x);
  std::vector<Tensor> g = ag::grad({sum(add(mul(y, 2.0), b))}, {x});
  EXPECT_EQ(as_double(g[0]), std::vector<double>(3, 0.0));
}

TEST(AutogradFormulas, InPlaceForms) {
  // In-place ops reuse the functional formula (polygamma_ has its own: other argument order).
  check_grads([](const V& v) {
    Tensor y = mul(v[0], 1.0);
    TypedOp<Tensor&(Tensor&, int64_t)>("polygamma_").call(y, 1);
    return y;
  }, {input({4}, 1, 0.5, 2)});
  check_grads([](const V& v) {
    Tensor y = mul(v[0], 1.0);
    clamp_(y, Scalar(-0.3), Scalar(0.5));
    return y;
  }, {input({4}, 2)});
  check_grads([](const V& v) {
    Tensor y = mul(v[0], 1.0);
    index_add_(y, 0, idx({1, 1}), v[1]);
    return y;
  }, {input({3}, 3), input({2}, 4)});
}

TEST(AutogradFormulas, Quantile) {
  const Tensor qs = tensor({0.1, 0.5, 0.85}, kDouble);
  for (const char* interp : {"linear", "lower", "higher", "midpoint", "nearest"}) {
    SCOPED_TRACE(interp);
    const std::string ip = interp;
    check_grads([&](const V& v) { return quantile(v[0], qs, 1, false, ip); }, {input({3, 5}, 1)});
    check_grads([&](const V& v) { return quantile(v[0], 0.3, 0, true, ip); }, {input({4, 3}, 2)});
    check_grads([&](const V& v) { return nanquantile(v[0], 0.6, std::nullopt, false, ip); }, {input({2, 3}, 3)});
  }
  check_grads([](const V& v) { return quantile(v[0], v[1], 1, true); },
              {input({3, 5}, 4), input({2}, 5, 0.1, 0.9)});
  check_grads([](const V& v) { return quantile(v[0], v[1]); }, {input({2, 3}, 6), input({}, 7, 0.1, 0.9)});
  // NaNs are skipped by nanquantile and get no gradient.
  Tensor x = tensor({1.0, std::nan(""), 3.0, 2.0}, kDouble);
  ag::set_requires_grad(x);
  EXPECT_EQ(as_double(ag::grad({nanquantile(x, 0.25)}, {x})[0]), (std::vector<double>{0.5, 0, 0, 0.5}));
}

// float32 inputs take the same paths (gradients built in the gradient's dtype).
TEST(AutogradFormulas, Float32) {
  const Tensor si = tensor({0L, 2L, 0L, 3L, 3L, 3L}, kInt64).reshape({2, 3});
  const std::vector<Fn> fns = {
      [](const V& v) { return sum(mul(pow(v[0], 2.5), gelu(v[0]))); },
      [](const V& v) { return sum(clamp(v[0], Scalar(0.3), Scalar(0.7))); },
      [](const V& v) { return sum(mul(std::get<0>(max(v[0], 1)), 2.0)); },
      [](const V& v) { return sum(mul(amax(v[0], {0}), 3.0)); },
      [](const V& v) { return add(ember::std(v[0]), norm(v[0], 3)); },
      [](const V& v) { return sum(mul(cumprod(v[0], 1), logcumsumexp(v[0], 0))); },
      [](const V& v) { return sum(mul(prod(v[0], 0), quantile(v[0], 0.3, 0))); },
      [&](const V& v) { return sum(mul(scatter_reduce(v[0], 1, si, v[0].narrow(1, 0, 3), "amax"), 2.0)); },
      [](const V& v) { return sum(mul(std::get<0>(sort(v[0], 1)), arange(4, kFloat))); },
  };
  for (size_t k = 0; k < fns.size(); ++k) {
    SCOPED_TRACE(k);
    Tensor x64 = input({2, 4}, static_cast<unsigned>(k), 0.2, 0.9);
    Tensor x32 = ag::detach(x64).to(kFloat);
    ag::set_requires_grad(x32);
    std::vector<double> g64 = as_double(ag::grad({fns[k]({x64})}, {x64})[0]);
    Tensor g32 = ag::grad({fns[k]({x32})}, {x32})[0];
    EXPECT_EQ(g32.dtype(), kFloat);
    std::vector<double> got = as_double(g32);
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], g64[i], 1e-4 * std::max(1.0, std::abs(g64[i])));
  }
}

TEST(AutogradFormulas, SecondOrder) {
  // Formulas are made of ops, so their gradients have gradients too.
  auto second = [](const Fn& f, const Tensor& x) {
    check_grads([&](const V& v) {
      std::vector<Tensor> g = ag::grad({loss(f(v))}, {v[0]}, {}, std::nullopt, /*create_graph=*/true);
      return g[0];
    }, {x}, 1e-5);
  };
  second([](const V& v) { return asin(v[0]); }, input({4}, 1, -0.8, 0.8));
  second([](const V& v) { return gelu(v[0], "tanh"); }, input({4}, 2));
  second([](const V& v) { return pow(v[0], 3.5); }, input({4}, 3, 0.5, 1.5));
  second([](const V& v) { return logsumexp(v[0], {0}); }, input({4}, 4));
  second([](const V& v) { return var(v[0]); }, input({4}, 5));
  second([](const V& v) { return sgn(v[0]); }, cinput({3}, 6, 0.2, 0.8));
  second([](const V& v) { return angle(v[0]); }, cinput({3}, 7, 0.2, 0.8));
  second([](const V& v) { return norm(v[0], 3); }, input({4}, 8, 0.2, 1));
  second([](const V& v) { return prod(v[0], 1); }, input({2, 3}, 9, 0.5, 1.5));
  second([](const V& v) { return cumprod(v[0], 0); }, input({4}, 10, 0.5, 1.5));
  second([](const V& v) { return logcumsumexp(v[0], 0); }, input({4}, 11));
  second([](const V& v) { return mul(v[0], atan2(v[0], full({4}, 0.7, kDouble))); }, input({4}, 12));
}

}  // namespace
}  // namespace ember
