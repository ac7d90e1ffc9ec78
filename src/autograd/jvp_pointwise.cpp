// JVP rules of the pointwise ops: unary functions, activations, binary and ternary ops.
// Holomorphic functions push t to f'(x) t (no conjugate: forward mode carries the plain
// derivative). Ops without a rule here derive their JVP from the backward formula.
#include <numbers>

#include "ember/dispatch.h"
#include "ember/forward_ad.h"
#include "ember/ops.h"

// A named namespace: library sources are compiled in unity batches.
namespace ember::autograd::forward_ad::pointwise_rules {
namespace {

using Ts = std::vector<Tensor>;

// y = f(x), f' from the input or from the result.
void from_input(const char* op, Tensor (*dydx)(const Tensor& x)) {
  register_jvp(op, [dydx](const JvpContext& c) { return Ts{c.tangent(0) * dydx(c.tensor(0))}; });
}
void from_result(const char* op, Tensor (*dydx)(const Tensor& y)) {
  register_jvp(op, [dydx](const JvpContext& c) { return Ts{c.tangent(0) * dydx(c.result())}; });
}
void linear_unary(const char* op) {  // y = f(x) with f linear: y' = f(t)
  register_jvp(op, [](const JvpContext& c) { return Ts{c.tangent(0)}; });
}
void piecewise_constant(const char* op) {
  register_jvp(op, [](const JvpContext&) { return Ts{Tensor()}; });
}
// a + s * b for tangents that may be undefined (zero).
Tensor axpy(const Tensor& a, const Scalar& s, const Tensor& b) {
  const bool one = !s.is_complex() && s.to<double>() == 1.0;
  if (!b.defined()) return a;
  Tensor sb = one ? b : mul(b, s);
  return a.defined() ? add(a, sb) : sb;
}
Tensor plus(const Tensor& a, const Tensor& b) { return !a.defined() ? b : !b.defined() ? a : add(a, b); }

constexpr double kLn2 = std::numbers::ln2;
constexpr double kLn10 = std::numbers::ln10;

EMBER_REGISTER(jvp_pointwise) {
  // ---- unary
  register_jvp("neg", [](const JvpContext& c) { return Ts{neg(c.tangent(0))}; });
  from_result("exp", [](const Tensor& y) { return y; });
  from_result("exp2", [](const Tensor& y) { return y * kLn2; });
  from_result("expm1", [](const Tensor& y) { return y + 1; });
  register_jvp("log", [](const JvpContext& c) { return Ts{div(c.tangent(0), c.tensor(0))}; });
  register_jvp("log2", [](const JvpContext& c) { return Ts{div(c.tangent(0), c.tensor(0) * kLn2)}; });
  register_jvp("log10", [](const JvpContext& c) { return Ts{div(c.tangent(0), c.tensor(0) * kLn10)}; });
  register_jvp("log1p", [](const JvpContext& c) { return Ts{div(c.tangent(0), c.tensor(0) + 1)}; });
  register_jvp("sqrt", [](const JvpContext& c) { return Ts{div(c.tangent(0), c.result() * 2)}; });
  from_result("rsqrt", [](const Tensor& y) { return pow(y, 3) * -0.5; });
  from_result("reciprocal", [](const Tensor& y) { return neg(y * y); });
  from_input("square", [](const Tensor& x) { return x * 2; });
  from_input("sin", [](const Tensor& x) { return cos(x); });
  from_input("cos", [](const Tensor& x) { return neg(sin(x)); });
  from_result("tan", [](const Tensor& y) { return y * y + 1; });
  from_input("sinh", [](const Tensor& x) { return cosh(x); });
  from_input("cosh", [](const Tensor& x) { return sinh(x); });
  from_result("tanh", [](const Tensor& y) { return 1 - y * y; });
  from_result("sigmoid", [](const Tensor& y) { return y * (1 - y); });
  for (const char* op : {"ceil", "floor", "round", "round.decimals", "trunc", "fix", "sign"}) piecewise_constant(op);
  linear_unary("frac");
  // random fills: the result does not depend smoothly on anything (PyTorch: a zero tangent)
  for (const char* op : {"uniform_", "normal_", "random_", "random_.from", "random_.to", "exponential_",
                         "geometric_", "log_normal_", "cauchy_", "bernoulli_.float", "bernoulli_.Tensor", "bernoulli",
                         "bernoulli.p", "poisson"})
    piecewise_constant(op);
  register_jvp("conj_physical", [](const JvpContext& c) { return Ts{conj_physical(c.tangent(0))}; });
  register_jvp("abs", [](const JvpContext& c) {
    const Tensor& x = c.tensor(0);
    const Tensor& t = c.tangent(0);
    if (!x.is_complex()) return Ts{t * sgn(x)};
    // d|x| = Re(conj(x) t) / |x|, 0 at x == 0 (where the numerator is 0 too)
    const Tensor& r = c.result();
    return Ts{div(mul(conj(x), t).real(), where(eq(r, 0), ones_like(r), r))};
  });

  // ---- activations (real)
  register_jvp("relu", [](const JvpContext& c) { return Ts{c.tangent(0) * gt(c.result(), 0)}; });
  register_jvp("relu6", [](const JvpContext& c) {
    const Tensor& x = c.tensor(0);
    return Ts{c.tangent(0) * logical_and(gt(x, 0), lt(x, 6))};
  });
  register_jvp("leaky_relu", [](const JvpContext& c) {
    return Ts{c.tangent(0) * where(gt(c.tensor(0), 0), ones_like(c.tensor(0)), full_like(c.tensor(0), c.scalar(1)))};
  });
  register_jvp("hardtanh", [](const JvpContext& c) {
    const Tensor& x = c.tensor(0);
    return Ts{c.tangent(0) * logical_and(gt(x, c.scalar(1)), lt(x, c.scalar(2)))};
  });
  register_jvp("silu", [](const JvpContext& c) {
    const Tensor s = sigmoid(c.tensor(0));
    return Ts{c.tangent(0) * (s * (1 + c.tensor(0) * (1 - s)))};
  });
  register_jvp("softplus", [](const JvpContext& c) {  // sigmoid(beta x), 1 past the threshold
    const Tensor& x = c.tensor(0);
    const Tensor bx = x * c.scalar(1);
    return Ts{c.tangent(0) * where(gt(bx, c.scalar(2)), ones_like(x), sigmoid(bx))};
  });

  // ---- binary
  register_jvp("add.Tensor", [](const JvpContext& c) { return Ts{axpy(c.tangent(0), c.scalar(2), c.tangent(1))}; });
  register_jvp("sub.Tensor", [](const JvpContext& c) {
    const Scalar a = c.scalar(2);
    return Ts{axpy(c.tangent(0), a.is_complex() ? Scalar(-a.to<std::complex<double>>()) : Scalar(-a.to<double>()),
                   c.tangent(1))};
  });
  linear_unary("add.Scalar");
  linear_unary("sub.Scalar");
  register_jvp("mul.Tensor", [](const JvpContext& c) {
    const Tensor& ts = c.tangent(0);
    const Tensor& to = c.tangent(1);
    return Ts{plus(ts.defined() ? mul(ts, c.tensor(1)) : Tensor(), to.defined() ? mul(c.tensor(0), to) : Tensor())};
  });
  register_jvp("mul.Scalar", [](const JvpContext& c) { return Ts{mul(c.tangent(0), c.scalar(1))}; });
  register_jvp("div.Tensor_mode", [](const JvpContext& c) {
    if (c.string_arg(2)) return Ts{Tensor()};  // rounded: piecewise constant
    const Tensor& ts = c.tangent(0);
    const Tensor& to = c.tangent(1);
    Tensor num = plus(ts, to.defined() ? neg(mul(c.result(), to)) : Tensor());
    return Ts{div(num, c.tensor(1))};
  });
  register_jvp("div.Scalar_mode", [](const JvpContext& c) {
    if (c.string_arg(2)) return Ts{Tensor()};
    return Ts{div(c.tangent(0), c.scalar(1))};
  });
  register_jvp("true_divide.Tensor", [](const JvpContext& c) {
    Tensor num = plus(c.tangent(0), c.tangent(1).defined() ? neg(mul(c.result(), c.tangent(1))) : Tensor());
    return Ts{div(num, c.tensor(1))};
  });

  // ---- ternary
  register_jvp("where.self", [](const JvpContext& c) {
    const Tensor& cond = c.tensor(0);
    return Ts{where(cond, c.tangent_or_zeros(1), c.tangent_or_zeros(2))};
  });
  register_jvp("addcmul", [](const JvpContext& c) {  // self + v * t1 * t2
    Tensor prod = plus(c.tangent(1).defined() ? mul(c.tangent(1), c.tensor(2)) : Tensor(),
                       c.tangent(2).defined() ? mul(c.tensor(1), c.tangent(2)) : Tensor());
    return Ts{axpy(c.tangent(0), c.scalar(3), prod)};
  });
  register_jvp("addcdiv", [](const JvpContext& c) {  // self + v * t1 / t2
    const Tensor& t2 = c.tensor(2);
    Tensor q = plus(c.tangent(1).defined() ? div(c.tangent(1), t2) : Tensor(),
                    c.tangent(2).defined() ? neg(div(mul(c.tensor(1), c.tangent(2)), mul(t2, t2))) : Tensor());
    return Ts{axpy(c.tangent(0), c.scalar(3), q)};
  });
}

}  // namespace
}  // namespace ember::autograd::forward_ad::pointwise_rules
