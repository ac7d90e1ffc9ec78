// Derivative formulas of the pointwise ops beyond the foundation set (formulas.cpp): unary
// functions, activations, clamping, and the binary and ternary ops. They are written with
// ops so that they differentiate again. Complex inputs get the conjugate Wirtinger gradient:
// a holomorphic f contributes g * conj(f'(x)).
#include <cmath>
#include <limits>
#include <complex>
#include <numbers>

#include "autograd/formula_util.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ember/ops/special.h"

// A named namespace: library sources are compiled in unity batches.
namespace ember::autograd::pointwise_formulas {
namespace {

using namespace formula;

using C = std::complex<double>;

Tensor zeros_of(const Tensor& g) { return zeros_like(g); }
// g where cond holds, 0 elsewhere.
Tensor keep(const Tensor& cond, const Tensor& g) { return where(cond, g, zeros_like(g)); }

// y = f(x): dy/dx from the saved input x or the result y.
void from_input(const char* op, Tensor (*dydx)(const Tensor& x)) {
  define(op, {0}, false, [dydx](const BackwardContext& c, const Grads& g) {
    return Grads{g[0] * cj(dydx(c.tensor(0)))};
  });
}
void from_result(const char* op, Tensor (*dydx)(const Tensor& y)) {
  define(op, {}, true, [dydx](const BackwardContext& c, const Grads& g) {
    return Grads{g[0] * cj(dydx(c.result()))};
  });
}
// Piecewise constant: the gradient is zero almost everywhere.
void zero_grad(const std::string& op) {
  define(op, {}, false, [](const BackwardContext&, const Grads& g) { return Grads{zeros_of(g[0])}; });
}
void identity_grad(const char* op) {
  define(op, {}, false, [](const BackwardContext&, const Grads& g) { return Grads{g[0]}; });
}

constexpr double kPi = std::numbers::pi;
constexpr double kLn2 = std::numbers::ln2;
constexpr double kLn10 = std::numbers::ln10;

// ---------------------------------------------------------------- pow
// d/dx x^e = e x^(e-1), taken as 0 for e == 0 (where x^(e-1) is inf at x == 0).
Tensor pow_self_grad(const Tensor& g, const Tensor& x, const Scalar& e) {
  if (!e.is_complex() && e.to<double>() == 0.0) return zeros_of(g);
  const Scalar em1 = e.is_complex() ? Scalar(e.to<C>() - 1.0) : Scalar(e.to<double>() - 1.0);
  return g * cj(pow(x, em1) * e);
}
Tensor pow_self_grad(const Tensor& g, const Tensor& x, const Tensor& e) {
  return where(eq(e, 0), zeros_like(g), g * cj(e * pow(x, e - 1)));
}
// d/de x^e = x^e log x; taken as 0 at x == 0 for e >= 0, where the limit exists.
Tensor pow_exp_grad(const Tensor& g, const Tensor& x, const Tensor& e, const Tensor& y) {
  const Tensor er = e.is_complex() ? e.real() : e;
  const Tensor at_zero = logical_and(eq(x, 0), ge(er, 0));
  return where(at_zero, zeros_like(g), g * cj(y * log(x)));
}

void define_pow(const std::string& n) {
  define(n + ".Tensor_Scalar", {0}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{pow_self_grad(g[0], c.tensor(0), c.scalar(1))};
  });
  define(n + ".Tensor_Tensor", {0, 1}, true, [](const BackwardContext& c, const Grads& g) {
    Grads r(2);
    if (c.needs_grad(0)) r[0] = pow_self_grad(g[0], c.tensor(0), c.tensor(1));
    if (c.needs_grad(1)) r[1] = pow_exp_grad(g[0], c.tensor(0), c.tensor(1), c.result());
    return r;
  });
  define(n + ".Scalar", {}, true, [](const BackwardContext& c, const Grads& g) {
    const Scalar base = c.scalar(0);
    const Tensor& y = c.result();
    if (base.is_complex()) return Grads{g[0] * cj(y * Scalar(std::log(base.to<C>())))};
    const double b = base.to<double>();
    if (b == 0.0) return Grads{zeros_of(g[0])};  // 0^e: constant for e > 0
    return Grads{g[0] * cj(y * std::log(b))};  // NaN for b < 0, as in PyTorch
  });
}

// ---------------------------------------------------------------- clamping
// clamp(x, lo, hi) = min(max(x, lo), hi): x's gradient where lo <= x <= hi.
Grads clamp_scalar_grad(const BackwardContext& c, const Grads& g) {
  const Tensor& x = c.tensor(0);
  Tensor in = ones_like(x, kBool);
  if (!c.is_none(1)) in = logical_and(in, ge(x, c.scalar(1)));
  if (!c.is_none(2)) in = logical_and(in, le(x, c.scalar(2)));
  return Grads{keep(in, g[0])};
}
// Tensor bounds: each bound takes the gradient where it is the result (a missing bound has
// no slot, so the slots after it shift).
Grads clamp_tensor_grad(const BackwardContext& c, const Grads& g) {
  const Tensor& x = c.tensor(0);
  const bool has_lo = !c.is_none(1), has_hi = !c.is_none(2);
  Grads r(1 + has_lo + has_hi);
  Tensor from_x = ones_like(x, kBool), from_lo, from_hi;
  if (has_lo) {
    const Tensor& lo = c.tensor(1);
    from_x = logical_and(from_x, ge(x, lo));
    from_lo = lt(x, lo);
    if (has_hi) from_lo = logical_and(from_lo, le(lo, c.tensor(2)));
  }
  if (has_hi) {
    const Tensor& hi = c.tensor(2);
    from_x = logical_and(from_x, le(x, hi));
    from_hi = gt(x, hi);
    if (has_lo) from_hi = logical_or(from_hi, gt(c.tensor(1), hi));
  }
  if (c.needs_grad(0)) r[0] = keep(from_x, g[0]);
  if (has_lo && c.needs_grad(1)) r[1] = keep(from_lo, g[0]);
  const size_t hi_slot = has_lo ? 2 : 1;
  if (has_hi && c.needs_grad(hi_slot)) r[hi_slot] = keep(from_hi, g[0]);
  return r;
}

// ---------------------------------------------------------------- maximum and friends
// Ties split the gradient evenly, as PyTorch does.
Grads max_min_grad(const BackwardContext& c, const Grads& g, bool is_max) {
  const Tensor& a = c.tensor(0);
  const Tensor& b = c.tensor(1);
  const Tensor half = g[0] * 0.5;
  const Tensor z = zeros_like(g[0]);
  const Tensor tie = eq(a, b);
  Grads r(2);
  // Each side gets the gradient unless the other side strictly won, so where a NaN makes
  // every comparison false both sides get it, as in PyTorch.
  if (c.needs_grad(0)) r[0] = where(tie, half, where(is_max ? lt(a, b) : gt(a, b), z, g[0]));
  if (c.needs_grad(1)) r[1] = where(tie, half, where(is_max ? gt(a, b) : lt(a, b), z, g[0]));
  return r;
}
// fmax/fmin: self wins ties and wherever other is NaN.
Grads fmax_fmin_grad(const BackwardContext& c, const Grads& g, bool is_max) {
  const Tensor& a = c.tensor(0);
  const Tensor& b = c.tensor(1);
  const Tensor self_wins = logical_or(is_max ? ge(a, b) : le(a, b), isnan(b));
  Grads r(2);
  if (c.needs_grad(0)) r[0] = keep(self_wins, g[0]);
  if (c.needs_grad(1)) r[1] = keep(logical_not(self_wins), g[0]);
  return r;
}

// ---------------------------------------------------------------- activations
Tensor gelu_grad(const Tensor& x, bool tanh_approx) {
  if (tanh_approx) {
    const double k = std::sqrt(2.0 / kPi), a = 0.044715;
    const Tensor x2 = x * x;
    const Tensor t = tanh((x + x2 * x * a) * k);
    const Tensor du = (x2 * (3 * a) + 1) * k;
    return (t + 1) * 0.5 + x * 0.5 * (1 - t * t) * du;
  }
  const Tensor cdf = (erf(x * (1 / std::numbers::sqrt2)) + 1) * 0.5;
  const Tensor pdf = exp(x * x * -0.5) * (std::numbers::inv_sqrtpi * (1 / std::numbers::sqrt2));
  return cdf + x * pdf;
}
// elu(x) = scale * x for x > 0, scale * alpha * (exp(input_scale * x) - 1) otherwise.
Tensor elu_grad(const Tensor& g, const Tensor& x, double alpha, double scale, double input_scale) {
  return where(gt(x, 0), g * scale, g * exp(x * input_scale) * (alpha * scale * input_scale));
}
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;

// ---------------------------------------------------------------- remainder, fmod, division
// a - q(a, b) * b with q piecewise constant: d/db = -q.
Grads rem_grad(const BackwardContext& c, const Grads& g, bool floor_rounding) {
  Grads r(2);
  if (c.needs_grad(0)) r[0] = g[0];
  if (c.needs_grad(1)) {
    const Tensor& a = c.tensor(0);
    const Tensor& b = c.tensor(1);
    const Tensor q = floor_rounding ? floor(a / b) : trunc(a / b);
    r[1] = -g[0] * q;
  }
  return r;
}

EMBER_REGISTER(autograd_formulas_pointwise) {
  // ---- unary functions (those with complex support conjugate the derivative)
  from_result("reciprocal", [](const Tensor& y) { return -(y * y); });
  from_result("rsqrt", [](const Tensor& y) { return y * y * y * -0.5; });
  from_input("square", [](const Tensor& x) { return x * 2; });
  from_result("exp2", [](const Tensor& y) { return y * kLn2; });
  from_result("expm1", [](const Tensor& y) { return y + 1; });
  from_input("log2", [](const Tensor& x) { return reciprocal(x * kLn2); });
  from_input("log10", [](const Tensor& x) { return reciprocal(x * kLn10); });
  from_input("log1p", [](const Tensor& x) { return reciprocal(x + 1); });
  from_result("tan", [](const Tensor& y) { return y * y + 1; });
  for (const char* n : {"asin", "arcsin"}) from_input(n, [](const Tensor& x) { return rsqrt(1 - x * x); });
  for (const char* n : {"acos", "arccos"}) from_input(n, [](const Tensor& x) { return -rsqrt(1 - x * x); });
  for (const char* n : {"atan", "arctan"}) from_input(n, [](const Tensor& x) { return reciprocal(x * x + 1); });
  from_input("sinh", [](const Tensor& x) { return cosh(x); });
  from_input("cosh", [](const Tensor& x) { return sinh(x); });
  for (const char* n : {"asinh", "arcsinh"}) from_input(n, [](const Tensor& x) { return rsqrt(x * x + 1); });
  // sqrt(x - 1) sqrt(x + 1), not sqrt(x^2 - 1), keeps the principal branch for complex x.
  for (const char* n : {"acosh", "arccosh"}) from_input(n, [](const Tensor& x) { return rsqrt(x - 1) * rsqrt(x + 1); });
  for (const char* n : {"atanh", "arctanh"}) from_input(n, [](const Tensor& x) { return reciprocal(1 - x * x); });
  from_input("erf", [](const Tensor& x) { return exp(-(x * x)) * (2 * std::numbers::inv_sqrtpi); });
  from_input("erfc", [](const Tensor& x) { return exp(-(x * x)) * (-2 * std::numbers::inv_sqrtpi); });
  from_result("erfinv", [](const Tensor& y) { return exp(y * y) * (std::sqrt(kPi) / 2); });
  from_input("lgamma", [](const Tensor& x) { return digamma(x); });
  from_input("digamma", [](const Tensor& x) { return polygamma(1, x); });
  from_input("i0", [](const Tensor& x) { return special_i1(x); });
  // i1'(x) = i0(x) - i1(x) / x, whose limit at 0 is 1/2; x is replaced near 0 so that no
  // NaN reaches the gradient (of this or of a second derivative) through the unused branch.
  define("special_i1", {0}, true, [](const BackwardContext& c, const Grads& g) {
    const Tensor& x = c.tensor(0);
    const double eps = x.dtype() == kFloat ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
    const Tensor big = gt(abs(x), eps);
    const Tensor safe = where(big, x, full_like(x, eps));
    return Grads{g[0] * where(big, i0(safe) - c.result() / safe, full_like(x, 0.5))};
  });
  define("polygamma", {1}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{g[0] * polygamma(c.int_arg(0) + 1, c.tensor(1))};
  });
  // polygamma_(self, n) has its arguments the other way round from polygamma(n, self).
  define("polygamma_", {0}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{g[0] * polygamma(c.int_arg(1) + 1, c.tensor(0))};
  });
  // sinc(x) = sin(pi x) / (pi x): (cos(pi x) - sinc(x)) / x, and 0 at x == 0.
  define("sinc", {0}, true, [](const BackwardContext& c, const Grads& g) {
    const Tensor& x = c.tensor(0);
    const Tensor d = (cos(x * kPi) - c.result()) / x;
    return Grads{where(eq(x, 0), zeros_like(g[0]), g[0] * cj(d))};
  });
  // logit(x) = log(x / (1 - x)), x clamped to [eps, 1 - eps] when eps is given.
  define("logit", {0}, false, [](const BackwardContext& c, const Grads& g) {
    const Tensor& x = c.tensor(0);
    const Tensor d = g[0] / (x * (1 - x));
    if (c.is_none(1)) return Grads{d};
    const double eps = c.scalar(1).to<double>();
    return Grads{where(logical_or(lt(x, eps), gt(x, 1 - eps)), zeros_like(g[0]), d)};
  });

  // ---- sign-like, rounding and complex parts
  for (const char* n : {"sign", "floor", "ceil", "round", "round.decimals", "trunc", "fix"}) zero_grad(n);
  identity_grad("frac");
  define("conj_physical", {}, false, [](const BackwardContext&, const Grads& g) { return Grads{cj(g[0])}; });
  // sgn(z) = z / |z|: only the part of g orthogonal to sgn(z) changes it, scaled by 1 / |z|.
  define("sgn", {0}, true, [](const BackwardContext& c, const Grads& g) {
    const Tensor& x = c.tensor(0);
    if (!x.is_complex()) return Grads{zeros_of(g[0])};
    const Tensor& s = c.result();
    const Tensor a = abs(x);
    const Tensor gs = g[0] * conj(s);
    const Tensor re = (gs + conj(gs)) * 0.5;  // Re(g conj(s)), kept complex: real() is not differentiable
    const Tensor d = (g[0] - re * s) / a;
    return Grads{where(eq(a, 0), zeros_like(d), d)};
  });
  // angle(z) = atan2(Im z, Re z): gradient i z / |z|^2 (zero for real inputs).
  define("angle", {0}, false, [](const BackwardContext& c, const Grads& g) {
    const Tensor& x = c.tensor(0);
    if (!x.is_complex()) return Grads{zeros_of(g[0])};
    const Tensor a = abs(x);
    const Tensor d = g[0] * (x * Scalar(C(0, 1))) / (a * a);
    return Grads{where(eq(a, 0), zeros_like(d), d)};
  });
  define("nan_to_num", {0}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{keep(isfinite(c.tensor(0)), g[0])};
  });

  // ---- clamping
  for (const std::string n : {"clamp", "clip"}) {
    define(n, {0}, false, clamp_scalar_grad);
    define(n + ".Tensor", {0, 1, 2}, false, clamp_tensor_grad);
  }
  define("clamp_min", {0}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{keep(ge(c.tensor(0), c.scalar(1)), g[0])};
  });
  define("clamp_max", {0}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{keep(le(c.tensor(0), c.scalar(1)), g[0])};
  });
  for (const bool is_min : {true, false}) {
    define(is_min ? "clamp_min.Tensor" : "clamp_max.Tensor", {0, 1}, false,
           [is_min](const BackwardContext& c, const Grads& g) {
             const Tensor& x = c.tensor(0);
             const Tensor& b = c.tensor(1);
             const Tensor from_x = is_min ? ge(x, b) : le(x, b);
             Grads r(2);
             if (c.needs_grad(0)) r[0] = keep(from_x, g[0]);
             if (c.needs_grad(1)) r[1] = keep(logical_not(from_x), g[0]);
             return r;
           });
  }

  // ---- activations
  define("gelu", {0}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{g[0] * gelu_grad(c.tensor(0), c.string_arg(1).value_or("none") == "tanh")};
  });
  define("silu", {0}, false, [](const BackwardContext& c, const Grads& g) {
    const Tensor& x = c.tensor(0);
    // As in PyTorch, which refuses complex silu in autograd.
    EMBER_CHECK(!x.is_complex(), RuntimeError, "silu does not support automatic differentiation for outputs with "
                "complex dtype.");
    const Tensor s = sigmoid(x);
    return Grads{g[0] * (s * (x * (1 - s) + 1))};
  });
  from_input("mish", [](const Tensor& x) {
    const Tensor t = tanh(softplus(x));
    return t + x * sigmoid(x) * (1 - t * t);
  });
  define("softplus", {0}, false, [](const BackwardContext& c, const Grads& g) {
    const Tensor& x = c.tensor(0);
    const Scalar beta = c.scalar(1);
    const Tensor bx = x * beta;
    return Grads{where(gt(bx, c.scalar(2)), g[0], g[0] * sigmoid(bx))};
  });
  // softsign(x) = x / (1 + |x|); for complex x the |x| part is not holomorphic: its real-valued
  // gradient Re(-g conj(x) / d^2) flows back through abs as that times sgn(x).
  define("softsign", {0}, false, [](const BackwardContext& c, const Grads& g) {
    const Tensor& x = c.tensor(0);
    const Tensor d = abs(x) + 1;
    if (!x.is_complex()) return Grads{g[0] / (d * d)};
    return Grads{g[0] / d - (g[0] * conj(x)).real() / (d * d) * sgn(x)};
  });
  define("hardtanh", {0}, false, [](const BackwardContext& c, const Grads& g) {
    const Tensor& x = c.tensor(0);
    return Grads{keep(logical_and(gt(x, c.scalar(1)), lt(x, c.scalar(2))), g[0])};
  });
  define("relu6", {0}, false, [](const BackwardContext& c, const Grads& g) {
    const Tensor& x = c.tensor(0);
    return Grads{keep(logical_and(gt(x, 0), lt(x, 6)), g[0])};
  });
  define("hardsigmoid", {0}, false, [](const BackwardContext& c, const Grads& g) {
    const Tensor& x = c.tensor(0);
    return Grads{keep(logical_and(gt(x, -3), lt(x, 3)), g[0] / 6)};
  });
  define("hardswish", {0}, false, [](const BackwardContext& c, const Grads& g) {
    const Tensor& x = c.tensor(0);
    return Grads{where(lt(x, -3), zeros_like(g[0]), where(le(x, 3), g[0] * (x / 3 + 0.5), g[0]))};
  });
  define("elu", {0}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{elu_grad(g[0], c.tensor(0), c.scalar(1).to<double>(), c.scalar(2).to<double>(),
                          c.scalar(3).to<double>())};
  });
  define("selu", {0}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{elu_grad(g[0], c.tensor(0), kSeluAlpha, kSeluScale, 1.0)};
  });
  define("celu", {0}, false, [](const BackwardContext& c, const Grads& g) {
    const double alpha = c.scalar(1).to<double>();
    return Grads{elu_grad(g[0], c.tensor(0), alpha, 1.0, 1.0 / alpha)};
  });
  define("leaky_relu", {0}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{where(gt(c.tensor(0), 0), g[0], g[0] * c.scalar(1))};
  });

  // ---- random: the result does not depend smoothly on its inputs (PyTorch: zeros)
  for (const char* n : {"uniform_", "normal_", "random_", "random_.from", "random_.to", "exponential_", "geometric_",
                        "log_normal_", "cauchy_", "bernoulli_.float", "bernoulli_.Tensor", "bernoulli", "bernoulli.p",
                        "poisson"}) {
    define(n, {}, false, [](const BackwardContext& c, const Grads& g) {
      Grads r(c.num_slots());
      for (size_t k = 0; k < r.size(); ++k)
        if (c.needs_grad(k)) r[k] = zeros(c.input_sizes(k), g[0].dtype());
      return r;
    });
  }

  // ---- binary
  define_pow("pow");
  define_pow("float_power");
  for (const char* n : {"atan2", "arctan2"}) {
    define(n, {0, 1}, false, [](const BackwardContext& c, const Grads& g) {
      const Tensor& a = c.tensor(0);
      const Tensor& b = c.tensor(1);
      const Tensor r2 = a * a + b * b;
      Grads r(2);
      if (c.needs_grad(0)) r[0] = g[0] * b / r2;
      if (c.needs_grad(1)) r[1] = g[0] * -a / r2;
      return r;
    });
  }
  define("hypot", {0, 1}, true, [](const BackwardContext& c, const Grads& g) {
    const Tensor& y = c.result();
    Grads r(2);
    if (c.needs_grad(0)) r[0] = g[0] * c.tensor(0) / y;
    if (c.needs_grad(1)) r[1] = g[0] * c.tensor(1) / y;
    return r;
  });
  define("maximum", {0, 1}, false, [](const BackwardContext& c, const Grads& g) { return max_min_grad(c, g, true); });
  define("minimum", {0, 1}, false, [](const BackwardContext& c, const Grads& g) { return max_min_grad(c, g, false); });
  define("fmax", {0, 1}, false, [](const BackwardContext& c, const Grads& g) { return fmax_fmin_grad(c, g, true); });
  define("fmin", {0, 1}, false, [](const BackwardContext& c, const Grads& g) { return fmax_fmin_grad(c, g, false); });
  // copysign(a, b) = |a| sign(b): d/da = result / a (0 at a == 0); b only picks the sign.
  auto copysign_grad = [](const BackwardContext& c, const Grads& g) {
    const Tensor& a = c.tensor(0);
    Grads r(c.num_slots());
    r[0] = where(eq(a, 0), zeros_like(g[0]), g[0] * (c.result() / a));
    if (r.size() > 1 && c.needs_grad(1)) r[1] = zeros_of(g[0]);
    return r;
  };
  define("copysign.Tensor", {0}, true, copysign_grad);
  define("copysign.Scalar", {0}, true, copysign_grad);
  // logaddexp(a, b) = log(e^a + e^b): d/da = 1 / (1 + e^(b - a)); the same in base 2.
  for (auto [name, ex] : {std::pair{"logaddexp", &exp}, std::pair{"logaddexp2", &exp2}}) {
    define(name, {0, 1}, false, [ex = ex](const BackwardContext& c, const Grads& g) {
      const Tensor& a = c.tensor(0);
      const Tensor& b = c.tensor(1);
      Grads r(2);
      if (c.needs_grad(0)) r[0] = g[0] / (ex(b - a) + 1);
      if (c.needs_grad(1)) r[1] = g[0] / (ex(a - b) + 1);
      return r;
    });
  }
  // xlogy(x, y) = x log y, taken as 0 where x == 0.
  define("xlogy.Tensor", {0, 1}, false, [](const BackwardContext& c, const Grads& g) {
    const Tensor& x = c.tensor(0);
    const Tensor& y = c.tensor(1);
    Grads r(2);
    if (c.needs_grad(0)) r[0] = g[0] * xlogy(ne(x, 0), y);
    if (c.needs_grad(1)) r[1] = g[0] * x / y;
    return r;
  });
  define("xlogy.Scalar_Other", {0}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{g[0] * xlogy(ne(c.tensor(0), 0), wrapped_scalar(c.scalar(1)))};
  });
  define("xlogy.Scalar_Self", {1}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{g[0] * c.scalar(0) / c.tensor(1)};
  });
  define("true_divide.Tensor", {0, 1}, false, [](const BackwardContext& c, const Grads& g) {
    const Tensor& a = c.tensor(0);
    const Tensor& b = c.tensor(1);
    Grads r(2);
    if (c.needs_grad(0)) r[0] = g[0] / cj(b);
    if (c.needs_grad(1)) r[1] = -g[0] * cj(a / b / b);
    return r;
  });
  define("true_divide.Scalar", {}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{g[0] / cj(c.scalar(1))};
  });
  // floor_divide and remainder(Scalar, Tensor) have no derivative, as in PyTorch (backward
  // raises).
  define("remainder.Tensor", {0, 1}, false, [](const BackwardContext& c, const Grads& g) { return rem_grad(c, g, true); });
  define("fmod.Tensor", {0, 1}, false, [](const BackwardContext& c, const Grads& g) { return rem_grad(c, g, false); });
  identity_grad("remainder.Scalar");
  identity_grad("fmod.Scalar");

  // ---- ternary
  define("lerp.Scalar", {}, false, [](const BackwardContext& c, const Grads& g) {
    const Scalar w = c.scalar(2);
    const Scalar one_minus = w.is_complex() ? Scalar(1.0 - w.to<C>()) : Scalar(1.0 - w.to<double>());
    Grads r(2);
    if (c.needs_grad(0)) r[0] = g[0] * cj(one_minus);
    if (c.needs_grad(1)) r[1] = g[0] * cj(w);
    return r;
  });
  define("lerp.Tensor", {0, 1, 2}, false, [](const BackwardContext& c, const Grads& g) {
    const Tensor& w = c.tensor(2);
    Grads r(3);
    if (c.needs_grad(0)) r[0] = g[0] * cj(1 - w);
    if (c.needs_grad(1)) r[1] = g[0] * cj(w);
    if (c.needs_grad(2)) r[2] = g[0] * cj(c.tensor(1) - c.tensor(0));
    return r;
  });
  define("addcmul", {1, 2}, false, [](const BackwardContext& c, const Grads& g) {
    const Scalar v = c.scalar(3);
    Grads r(3);
    if (c.needs_grad(0)) r[0] = g[0];
    if (c.needs_grad(1)) r[1] = g[0] * cj(c.tensor(2) * v);
    if (c.needs_grad(2)) r[2] = g[0] * cj(c.tensor(1) * v);
    return r;
  });
  define("addcdiv", {1, 2}, false, [](const BackwardContext& c, const Grads& g) {
    const Scalar v = c.scalar(3);
    const Tensor& t1 = c.tensor(1);
    const Tensor& t2 = c.tensor(2);
    Grads r(3);
    if (c.needs_grad(0)) r[0] = g[0];
    if (c.needs_grad(1)) r[1] = g[0] * cj(v / t2);
    if (c.needs_grad(2)) r[2] = -g[0] * cj(t1 * v / (t2 * t2));
    return r;
  });
}

}  // namespace
}  // namespace ember::autograd::pointwise_formulas
