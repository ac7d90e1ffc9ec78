// Unary kernels: the entry point, and the floating-point math (exp, log, trigonometric and
// hyperbolic functions, sigmoid, erf, the smooth activations...). Real floats go through the
// vector forms of vec_math.h at this build's width (bfloat16 and float16 through float);
// complex values through std::, in the Default build only.
#include <cmath>
#include <complex>

#include "backends/cpu/kernels/unary_loops.h"
#include "backends/cpu/stubs.h"

namespace ember::cpu {
namespace isa_Default {
void unary_math(const ElementwiseIter& it, UnaryOp op, const UnaryParams& p);
}
namespace EMBER_ISA_NAMESPACE {
void unary_misc(const ElementwiseIter& it, UnaryOp op, const UnaryParams& p);     // unary_misc.cpp
void unary_special(const ElementwiseIter& it, UnaryOp op, const UnaryParams& p);  // unary_special.cpp

namespace {

[[noreturn]] void not_implemented(UnaryOp op, ScalarType dt) {
  EMBER_FAIL(RuntimeError, "\"", unary_op_name(op), "\" not implemented for '", dt, "'");
}

// ---------------------------------------------------------------- vector forms
// Generic over float and double vectors (V); E is the element type.
template <typename V>
V gelu_v(V x) {
  if constexpr (std::is_same_v<V, vec::vf>) {
    return vec::gelu(x);
  } else {
    return x * 0.5 * vec::erfc(x * -0.70710678118654752440);
  }
}
template <typename V>
V gelu_tanh_v(V x) {
  if constexpr (std::is_same_v<V, vec::vf>) {
    return vec::gelu_tanh(x);
  } else {
    const V u = x * (0.7978845608028654 + 0.0356774081363001 * x * x);
    return x / (1. + vec::exp(-(u + u)));
  }
}
// x tanh(softplus(x)) = x n / (n + 2) with n = e^x (e^x + 2); x itself above 20, where
// softplus is the identity in PyTorch's definition.
template <typename V>
V mish_v(V x) {
  using E = vec::elem_t<V>;
  const V e = vec::exp(x > E(20) ? V{} + E(20) : x);
  const V n = e * (e + E(2));
  const V r = x * n / (n + E(2));
  return x > E(20) ? x : r;
}

template <typename T>
void math_real(const ElementwiseIter& it, UnaryOp op, const UnaryParams& p) {
  auto run = [&](auto vf) { apply<T>(it, [](auto x) { return x; }, vf, kMathGrain); };
  switch (op) {
    case UnaryOp::Exp: return run([](auto v) { return vec::exp(v); });
    case UnaryOp::Log: return run([](auto v) { return vec::log(v); });
    case UnaryOp::Sqrt: return run([](auto v) { return vec::sqrt(v); });
    case UnaryOp::Rsqrt: return run([](auto v) { return 1 / vec::sqrt(v); });
    case UnaryOp::Reciprocal: return run([](auto v) { return 1 / v; });
    case UnaryOp::Sin: return run([](auto v) { return vec::sin(v); });
    case UnaryOp::Cos: return run([](auto v) { return vec::cos(v); });
    case UnaryOp::Tan: return run([](auto v) { return vec::tan(v); });
    case UnaryOp::Asin: return run([](auto v) { return vec::asin(v); });
    case UnaryOp::Acos: return run([](auto v) { return vec::acos(v); });
    case UnaryOp::Atan: return run([](auto v) { return vec::atan(v); });
    case UnaryOp::Sinh: return run([](auto v) { return vec::sinh(v); });
    case UnaryOp::Cosh: return run([](auto v) { return vec::cosh(v); });
    case UnaryOp::Tanh: return run([](auto v) { return vec::tanh(v); });
    case UnaryOp::Asinh: return run([](auto v) { return vec::asinh(v); });
    case UnaryOp::Acosh: return run([](auto v) { return vec::acosh(v); });
    case UnaryOp::Atanh: return run([](auto v) { return vec::atanh(v); });
    case UnaryOp::Exp2: return run([](auto v) { return vec::exp2(v); });
    case UnaryOp::Expm1: return run([](auto v) { return vec::expm1(v); });
    case UnaryOp::Log2: return run([](auto v) { return vec::log2(v); });
    case UnaryOp::Log10: return run([](auto v) { return vec::log10(v); });
    case UnaryOp::Log1p: return run([](auto v) { return vec::log1p(v); });
    case UnaryOp::Lgamma: return run([](auto v) { return vec::lgamma(v); });
    case UnaryOp::Sigmoid: return run([](auto v) { return vec::sigmoid(v); });
    case UnaryOp::Erf: return run([](auto v) { return vec::erf(v); });
    case UnaryOp::Erfc: return run([](auto v) { return vec::erfc(v); });
    case UnaryOp::Gelu: return run([](auto v) { return gelu_v(v); });
    case UnaryOp::GeluTanh: return run([](auto v) { return gelu_tanh_v(v); });
    // x sigmoid(x): the sigmoid form keeps the tiny negative tail (x / (1 + e^-x) overflows).
    case UnaryOp::Silu: return run([](auto v) { return v * vec::sigmoid(v); });
    case UnaryOp::Mish: return run([](auto v) { return mish_v(v); });
    case UnaryOp::Sinc:
      return run([](auto v) {
        using E = vec::elem_t<decltype(v)>;
        using V = decltype(v);
        const V px = v * E(M_PI);
        const V r = vec::sin(px) / px;
        return v == E(0) ? V{} + E(1) : r;
      });
    case UnaryOp::Logit: {
      // With eps, the input is clamped to [eps, 1 - eps] first (NaN stays NaN).
      const bool clamp = p.b != 0;
      const double lo = p.a, hi = 1 - p.a;
      return run([clamp, lo, hi](auto v) {
        using V = decltype(v);
        using E = vec::elem_t<V>;
        if (clamp) {
          v = v < E(lo) ? V{} + E(lo) : v;
          v = v > E(hi) ? V{} + E(hi) : v;
        }
        return vec::log(v / (E(1) - v));
      });
    }
    case UnaryOp::Softplus: {
      const double beta = p.a, threshold = p.b;
      return run([beta, threshold](auto v) {
        using E = vec::elem_t<decltype(v)>;
        const auto xb = v * E(beta);
        const auto r = vec::log1p(vec::exp(xb)) / E(beta);
        return xb > E(threshold) ? v : r;
      });
    }
    case UnaryOp::Elu: {
      // alpha scale (e^{x input_scale} - 1) below 0, scale x above.
      const double neg = p.a * p.b, pos = p.b, in_scale = p.c;
      return run([neg, pos, in_scale](auto v) {
        using E = vec::elem_t<decltype(v)>;
        return v <= E(0) ? vec::expm1(v * E(in_scale)) * E(neg) : v * E(pos);
      });
    }
    default: not_implemented(op, it.compute_dtype());
  }
}

template <typename C>
void math_complex(const ElementwiseIter& it, UnaryOp op) {
  using R = typename C::value_type;
  auto run = [&](auto f) { apply<C>(it, f, NoVec{}, kMathGrain); };
  switch (op) {
    case UnaryOp::Exp: return run([](C z) { return std::exp(z); });
    case UnaryOp::Log: return run([](C z) { return std::log(z); });
    case UnaryOp::Log2: return run([](C z) { return std::log(z) / R(M_LN2); });
    case UnaryOp::Log10: return run([](C z) { return std::log10(z); });
    case UnaryOp::Sqrt: return run([](C z) { return std::sqrt(z); });
    case UnaryOp::Rsqrt: return run([](C z) { return C(1) / std::sqrt(z); });
    case UnaryOp::Reciprocal: return run([](C z) { return C(1) / z; });
    case UnaryOp::Sin: return run([](C z) { return std::sin(z); });
    case UnaryOp::Cos: return run([](C z) { return std::cos(z); });
    case UnaryOp::Tan: return run([](C z) { return std::tan(z); });
    case UnaryOp::Asin: return run([](C z) { return std::asin(z); });
    case UnaryOp::Acos: return run([](C z) { return std::acos(z); });
    case UnaryOp::Atan: return run([](C z) { return std::atan(z); });
    case UnaryOp::Sinh: return run([](C z) { return std::sinh(z); });
    case UnaryOp::Cosh: return run([](C z) { return std::cosh(z); });
    case UnaryOp::Tanh: return run([](C z) { return std::tanh(z); });
    case UnaryOp::Asinh: return run([](C z) { return std::asinh(z); });
    case UnaryOp::Acosh: return run([](C z) { return std::acosh(z); });
    case UnaryOp::Atanh: return run([](C z) { return std::atanh(z); });
    case UnaryOp::Sigmoid: return run([](C z) { return C(1) / (C(1) + std::exp(-z)); });
    case UnaryOp::Silu: return run([](C z) { return z / (C(1) + std::exp(-z)); });
    case UnaryOp::Sinc:
      return run([](C z) {
        if (z == C(0)) return C(1);
        const C pz = z * R(M_PI);
        return std::sin(pz) / pz;
      });
    default: not_implemented(op, it.compute_dtype());
  }
}

}  // namespace

void unary_math(const ElementwiseIter& it, UnaryOp op, const UnaryParams& p) {
  switch (it.compute_dtype()) {
    case kFloat: return math_real<float>(it, op, p);
    case kDouble: return math_real<double>(it, op, p);
    case kBFloat16: return math_real<BFloat16>(it, op, p);
    case kHalf: return math_real<Half>(it, op, p);
#if EMBER_ISA_DEFAULT
    case kComplexFloat: return math_complex<complex64>(it, op);
    case kComplexDouble: return math_complex<complex128>(it, op);
#else
    case kComplexFloat:
    case kComplexDouble: return isa_Default::unary_math(it, op, p);
#endif
    default: not_implemented(op, it.compute_dtype());
  }
}

void unary_kernel(const ElementwiseIter& it, UnaryOp op, const UnaryParams& p) {
  switch (op) {
    case UnaryOp::Exp: case UnaryOp::Log: case UnaryOp::Sqrt: case UnaryOp::Rsqrt:
    case UnaryOp::Reciprocal: case UnaryOp::Sin: case UnaryOp::Cos: case UnaryOp::Tan:
    case UnaryOp::Asin: case UnaryOp::Acos: case UnaryOp::Atan: case UnaryOp::Sinh:
    case UnaryOp::Cosh: case UnaryOp::Tanh: case UnaryOp::Asinh: case UnaryOp::Acosh:
    case UnaryOp::Atanh: case UnaryOp::Exp2: case UnaryOp::Expm1: case UnaryOp::Log2:
    case UnaryOp::Log10: case UnaryOp::Log1p: case UnaryOp::Lgamma: case UnaryOp::Sigmoid:
    case UnaryOp::Erf: case UnaryOp::Erfc: case UnaryOp::Gelu: case UnaryOp::GeluTanh:
    case UnaryOp::Silu: case UnaryOp::Mish: case UnaryOp::Sinc: case UnaryOp::Logit:
    case UnaryOp::Softplus: case UnaryOp::Elu:
      return unary_math(it, op, p);
    case UnaryOp::Erfinv: case UnaryOp::Digamma: case UnaryOp::Polygamma: case UnaryOp::I0:
    case UnaryOp::I1:
      return unary_special(it, op, p);
    default:
      return unary_misc(it, op, p);
  }
}
EMBER_REGISTER_STUB(unary_stub, &unary_kernel);

}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
