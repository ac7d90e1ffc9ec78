// Unary kernels without transcendental math: sign and magnitude (neg, abs, sign, sgn,
// square, angle, conj), rounding (ceil, floor, round, trunc, frac), clamping (clamp, relu,
// the piecewise-linear activations), nan_to_num, bitwise_not, and the predicates that write
// bool (isnan, isinf, isfinite, signbit, logical_not...). The compiler vectorizes the simple
// loops; the 16-bit floats go through float chunks (unary_loops.h).
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

#include "backends/cpu/kernels/unary_loops.h"
#include "backends/cpu/stubs.h"
#include "core/dtype_dispatch.h"

namespace ember::cpu {
namespace isa_Default {
void unary_misc(const ElementwiseIter& it, UnaryOp op, const UnaryParams& p);
}
namespace EMBER_ISA_NAMESPACE {
namespace {

// -INT_MIN overflows: wrap as two's complement (PyTorch returns INT_MIN for both neg and abs).
template <typename T>
T negate_wrapping(T a) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U(0) - static_cast<U>(a));
}

// Round half to even at 10^-decimals, as PyTorch: x * 10^d rounded, then divided back (for
// negative decimals, divided then multiplied, so that the scale stays exact).
template <typename M>
M round_decimals(M x, M scale, bool negative) {
  return negative ? std::nearbyint(x / scale) * scale : std::nearbyint(x * scale) / scale;
}

inline bool sign_bit(float x) {
  int32_t i;
  std::memcpy(&i, &x, sizeof(i));
  return i < 0;
}
inline bool sign_bit(double x) {
  int64_t i;
  std::memcpy(&i, &x, sizeof(i));
  return i < 0;
}

template <typename T>
void misc_typed(const ElementwiseIter& it, UnaryOp op, const UnaryParams& p) {
  using M = opmath_t<T>;  // float for the 16-bit floats
  constexpr bool is_bool = std::is_same_v<T, bool>;
  constexpr bool is_cplx = is_complex_v<T>;
  constexpr bool is_int = std::is_integral_v<T> && !is_bool;
  constexpr bool is_flt = !std::is_integral_v<T> && !is_cplx;  // the 16-bit floats too
  auto run = [&](auto f) { apply<T>(it, f, NoVec{}); };
  auto pred = [&](auto f) { apply_to<bool, T>(it, f); };
  switch (op) {
    // ---- sign and magnitude
    case UnaryOp::Neg:
      if constexpr (is_int) return run([](T x) { return negate_wrapping(x); });
      else if constexpr (!is_bool) return run([](M x) { return -x; });
      break;
    case UnaryOp::Abs:
      if constexpr (is_cplx) {
        return apply_to<typename T::value_type, T>(it, [](T z) { return std::abs(z); });
      } else if constexpr (std::is_unsigned_v<T>) {
        return run([](T x) { return x; });
      } else if constexpr (is_int) {
        return run([](T x) { return x < 0 ? negate_wrapping(x) : x; });
      } else if constexpr (is_flt) {
        return run([](M x) { return std::abs(x); });
      }
      break;
    case UnaryOp::Sign:
    case UnaryOp::Sgn:
      if constexpr (is_bool) {
        return run([](bool x) { return x; });
      } else if constexpr (std::is_unsigned_v<T>) {
        return run([](T x) { return static_cast<T>(x > 0); });
      } else if constexpr (is_cplx) {
        // z / |z|, 0 at 0 (and NaN stays NaN).
        return run([](T z) { auto a = std::abs(z); return a == 0 ? T(0) : z / a; });
      } else {
        // (0 < x) - (x < 0): NaN gives 0, as in PyTorch.
        return run([](M x) { return static_cast<M>((M(0) < x) - (x < M(0))); });
      }
    case UnaryOp::Square:
      if constexpr (!is_bool) return run([](M x) { return static_cast<M>(x * x); });
      break;
    // ---- rounding: integers are already integral
    case UnaryOp::Ceil:
    case UnaryOp::Floor:
    case UnaryOp::Trunc:
    case UnaryOp::Round:
      if constexpr (is_int) {
        return run([](T x) { return x; });
      } else if constexpr (is_flt) {
        if (op == UnaryOp::Ceil) return run([](M x) { return std::ceil(x); });
        if (op == UnaryOp::Floor) return run([](M x) { return std::floor(x); });
        if (op == UnaryOp::Trunc) return run([](M x) { return std::trunc(x); });
        if (p.n == 0) return run([](M x) { return std::nearbyint(x); });
        const bool negative = p.n < 0;
        const M scale = static_cast<M>(std::pow(10.0, static_cast<double>(negative ? -p.n : p.n)));
        return run([scale, negative](M x) { return round_decimals(x, scale, negative); });
      }
      break;
    case UnaryOp::Frac:
      if constexpr (is_flt) return run([](M x) { return x - std::trunc(x); });
      break;
    // ---- clamping
    case UnaryOp::Clamp:
      if constexpr (!is_bool && !is_cplx) {
        // min(max(x, lo), hi) with std::'s NaN behaviour: a NaN input stays NaN.
        const M lo = p.has_lo ? p.lo.to<M>() : M(0), hi = p.has_hi ? p.hi.to<M>() : M(0);
        if (p.has_lo && p.has_hi) return run([lo, hi](M x) { return std::min(std::max(x, lo), hi); });
        if (p.has_lo) return run([lo](M x) { return std::max(x, lo); });
        return run([hi](M x) { return std::min(x, hi); });
      }
      break;
    case UnaryOp::Relu:
      // clamp_min(x, 0): NaN and -0.0 pass through, as in PyTorch.
      if constexpr (std::is_unsigned_v<T>) return run([](T x) { return x; });
      else if constexpr (!is_bool && !is_cplx) return run([](M x) { return x < M(0) ? M(0) : x; });
      break;
    case UnaryOp::LeakyRelu:
      if constexpr (is_flt) {
        const M slope = static_cast<M>(p.a);
        // Both sides computed, so that the loop vectorizes as a select (GCC does not
        // speculate the conditional read of the captured slope).
        return run([slope](M x) {
          const M y = x * slope;
          return x > M(0) ? x : y;
        });
      }
      break;
    case UnaryOp::Hardsigmoid:
      if constexpr (is_flt) return run([](M x) { return std::min(std::max(x + M(3), M(0)), M(6)) / M(6); });
      break;
    case UnaryOp::Hardswish:
      if constexpr (is_flt) return run([](M x) { return x * std::min(std::max(x + M(3), M(0)), M(6)) / M(6); });
      break;
    // ---- predicates (bool out)
    case UnaryOp::IsNan:
      if constexpr (is_cplx) return pred([](T z) { return z.real() != z.real() || z.imag() != z.imag(); });
      else if constexpr (is_flt) return pred([](M x) { return x != x; });
      else return pred([](T) { return false; });
    case UnaryOp::IsInf:
      if constexpr (is_cplx) return pred([](T z) { return std::isinf(z.real()) || std::isinf(z.imag()); });
      else if constexpr (is_flt) return pred([](M x) { return std::isinf(x); });
      else return pred([](T) { return false; });
    case UnaryOp::IsFinite:
      if constexpr (is_cplx) return pred([](T z) { return std::isfinite(z.real()) && std::isfinite(z.imag()); });
      else if constexpr (is_flt) return pred([](M x) { return std::isfinite(x); });
      else return pred([](T) { return true; });
#if EMBER_ISA_DEFAULT  // the AVX builds have no loops for these (see the end of this function)
    // ---- rarely hot
    case UnaryOp::ConjPhysical:
      if constexpr (is_cplx) return run([](T z) { return std::conj(z); });
      else return run([](T x) { return x; });
    case UnaryOp::Angle:
      if constexpr (is_cplx) {
        return apply_to<typename T::value_type, T>(it, [](T z) { return std::arg(z); });
      } else if constexpr (is_flt) {
        return run([](M x) { return x != x ? x : x < M(0) ? static_cast<M>(M_PI) : M(0); });
      }
      break;
    case UnaryOp::Softsign:
      if constexpr (is_flt || is_cplx) return run([](M x) { return x / (M(1) + std::abs(x)); });
      break;
    case UnaryOp::NanToNum:
      if constexpr (is_flt) {
        const M nan = static_cast<M>(p.a), pinf = static_cast<M>(p.b), ninf = static_cast<M>(p.c);
        return run([nan, pinf, ninf](M x) {
          return x != x ? nan : x == std::numeric_limits<M>::infinity() ? pinf
                 : x == -std::numeric_limits<M>::infinity() ? ninf : x;
        });
      } else if constexpr (!is_cplx) {
        return run([](T x) { return x; });
      }
      break;
    case UnaryOp::BitwiseNot:
      if constexpr (is_bool) return run([](bool x) { return !x; });
      else if constexpr (is_int) return run([](T x) { return static_cast<T>(~x); });
      break;
    case UnaryOp::IsPosInf:
      if constexpr (is_flt) return pred([](M x) { return x == std::numeric_limits<M>::infinity(); });
      else if constexpr (!is_cplx) return pred([](T) { return false; });
      break;
    case UnaryOp::IsNegInf:
      if constexpr (is_flt) return pred([](M x) { return x == -std::numeric_limits<M>::infinity(); });
      else if constexpr (!is_cplx) return pred([](T) { return false; });
      break;
    case UnaryOp::SignBit:
      // The sign bit read as a signed integer (GCC 12 crashes vectorizing std::signbit).
      if constexpr (is_flt) return pred([](M x) { return sign_bit(x); });
      else if constexpr (std::is_signed_v<T>) return pred([](T x) { return x < 0; });
      else if constexpr (!is_cplx) return pred([](T) { return false; });
      break;
    case UnaryOp::LogicalNot:
      return pred([](T x) { return !convert<bool>(x); });
#endif
    default:
      break;
  }
#if !EMBER_ISA_DEFAULT
  // Ops without a loop in this build (the `#if EMBER_ISA_DEFAULT` cases above) are rarely hot
  // and run the Default build's kernels (on 256K float32, one thread: nan_to_num as fast as
  // before, logical_not/signbit/isposinf/softsign 1.5-1.9x slower and still 1.8-3.9x faster
  // than torch). frac keeps its loop here: without SSE4.1, trunc is a libm call per element.
  return isa_Default::unary_misc(it, op, p);
#else
  EMBER_FAIL(RuntimeError, "\"", unary_op_name(op), "\" not implemented for '", scalar_type_of<T>, "'");
#endif
}

}  // namespace

void unary_misc(const ElementwiseIter& it, UnaryOp op, const UnaryParams& p) {
  // Predicates dispatch on the input (operand 1); the rest on the compute dtype.
  const ScalarType dt = it.operand(1).dtype();
#if !EMBER_ISA_DEFAULT
  if (dt == kBFloat16) return misc_typed<BFloat16>(it, op, p);
  if (dt == kHalf) return misc_typed<Half>(it, op, p);
#endif
  EMBER_DISPATCH_KERNEL(dt, "unary", unary_misc(it, op, p), [&] { misc_typed<scalar_t>(it, op, p); });
}

}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
