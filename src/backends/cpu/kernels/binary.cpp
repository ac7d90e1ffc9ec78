// Elementwise binary kernels: arithmetic (add with alpha, mul, div with its rounding modes,
// remainder, fmod, pow), maximum/minimum and fmax/fmin, atan2, hypot, copysign, nextafter,
// logaddexp(2), xlogy, the bitwise and shift ops, and clamp with one tensor bound. Inputs
// arrive promoted to the compute dtype; each op is one scalar function, run through
// binary_loops.h (vectorized by the compiler, 16-bit floats through float chunks). pow of
// floats runs SLEEF's vector pow; pow with a number for exponent (PowScalar) is a unary
// loop with PyTorch's fast paths (pow_scalar_typed).
#include <cmath>
#include <limits>

#include "backends/cpu/kernels/binary_loops.h"
#include "backends/cpu/stubs.h"
#include "core/dtype_dispatch.h"

namespace ember::cpu {
namespace isa_Default {
void binary_kernel(const ElementwiseIter& it, BinaryOp op, const Scalar& alpha);
}
namespace EMBER_ISA_NAMESPACE {
namespace {

template <typename T>
T floor_divide(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    T q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  } else {
    // Python's floor division: floor of the true quotient, computed from fmod for accuracy.
    if (b == 0) return a / b;
    T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
    if (div == 0) return std::copysign(T(0), a / b);
    T f = std::floor(div);
    if (div - f > T(0.5)) f += 1;
    return f;
  }
}

// -INT_MIN overflows (and INT_MIN / -1 traps on x86): wrap as two's complement instead.
template <typename T>
T negate_wrapping(T a) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U(0) - static_cast<U>(a));
}

// Integer division by zero raises, as in PyTorch, instead of trapping.
template <typename T>
void check_no_zero_divisor(const ElementwiseIter& it) {
  bool zero = false;
  for_each_range(it, 0, it.numel(), [&](char** d, const int64_t* s, int64_t n) {
    for (int64_t i = 0; i < n && !zero; ++i) zero = load<T>(d[2] + i * s[2]) == T(0);
  });
  EMBER_CHECK(!zero, RuntimeError, "ZeroDivisionError");
}

// NaN in either operand gives NaN: a NaN `a` fails the comparison and is kept, a NaN `b` is
// picked by the second select. Two selects and no branch, so the loop vectorizes to compares
// and blends (the branchy form ran 1.6x slower in the AVX-512 build than in the AVX2 one).
template <typename T>
T max_propagate_nan(T a, T b) {
  const T m = a < b ? b : a;
  if constexpr (std::is_floating_point_v<T>) return b != b ? b : m;
  return m;
}
template <typename T>
T min_propagate_nan(T a, T b) {
  const T m = b < a ? b : a;
  if constexpr (std::is_floating_point_v<T>) return b != b ? b : m;
  return m;
}

// Python's modulo: the sign of the divisor.
template <typename T>
T remainder(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    if constexpr (std::is_signed_v<T>) {
      if (b == T(-1)) return 0;  // INT_MIN % -1 traps
    }
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  } else {
    T mod = std::fmod(a, b);
    if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
    return mod;
  }
}

// Integer powers by squaring; negative exponents give 1 / a^|b| truncated (PyTorch's rule).
template <typename T>
T int_pow(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) {
      if (a == 1) return 1;
      if (a == -1) return (-static_cast<int64_t>(b)) % 2 ? T(-1) : T(1);
      return 0;
    }
  }
  using U = std::make_unsigned_t<T>;
  U result = 1, base = static_cast<U>(a);
  auto e = static_cast<std::make_unsigned_t<T>>(b);
  while (e) {
    if (e & 1) result = static_cast<U>(result * base);
    base = static_cast<U>(base * base);
    e = static_cast<decltype(e)>(e >> 1);
  }
  return static_cast<T>(result);
}

// Shifts past the width give 0 (left) or the sign fill (right), as in PyTorch.
template <typename T>
T shift_left(T a, T b) {
  constexpr T bits = static_cast<T>(sizeof(T) * 8);
  using U = std::make_unsigned_t<T>;
  if ((std::is_signed_v<T> && b < 0) || b >= bits) return 0;
  return static_cast<T>(static_cast<U>(a) << b);
}
template <typename T>
T shift_right(T a, T b) {
  constexpr T bits = static_cast<T>(sizeof(T) * 8);
  if ((std::is_signed_v<T> && b < 0) || b >= bits) return std::is_signed_v<T> ? static_cast<T>(a < 0 ? -1 : 0) : T(0);
  return static_cast<T>(a >> b);
}

// log(e^a + e^b) without overflow; equal infinities give themselves.
template <typename M>
M logaddexp(M a, M b) {
  if (std::isinf(a) && a == b) return a;
  const M m = std::max(a, b);
  return m + std::log1p(std::exp(-std::abs(a - b)));
}
template <typename M>
M logaddexp2(M a, M b) {
  if (std::isinf(a) && a == b) return a;
  const M m = std::max(a, b);
  return m + std::log1p(std::exp2(-std::abs(a - b))) / static_cast<M>(M_LN2);
}

// nextafter on the 16-bit formats works on their own bits (through float it would round back).
template <typename H>
H nextafter16(H a, H b) {
  const float fa = a, fb = b;
  if (fa != fa || fb != fb) return H(std::numeric_limits<float>::quiet_NaN());
  if (fa == fb) return b;
  if (fa == 0) return H::from_bits(static_cast<uint16_t>((fb < 0 ? 0x8000 : 0) | 1));
  const bool up = (fa < fb) == (fa > 0);  // away from zero
  return H::from_bits(static_cast<uint16_t>(up ? a.bits + 1 : a.bits - 1));
}

// pow on floats and on this build's float vectors (SLEEF, 1 ulp), for the float chunks of
// the 16-bit floats.
struct PowFloat {
  float operator()(float a, float b) const { return std::pow(a, b); }
  vec::vf operator()(vec::vf a, vec::vf b) const { return vec::pow(a, b); }
};

// bfloat16 rounding of a float (and of each lane of a float vector), for the steps that
// PyTorch rounds to bfloat16 in between (x * x * x is (x * x) rounded, times x).
inline float round_bf16(float x) { return static_cast<float>(BFloat16(x)); }
inline vec::vf round_bf16(vec::vf x) { return vec::bf16_to_float(vec::float_to_bf16(x)); }

// x ** e for a number e (torch's pow.Tensor_Scalar), with PyTorch 1.13's special cases
// (ATen/native/Pow.cpp and cpu/PowKernel.cpp): e == 0 gives 1 and e == 1 a copy for every
// dtype; for float, double, bfloat16 and complex, e == 0.5, -0.5 and -1 are sqrt, 1 / sqrt
// and 1 / x (so sqrt(-0.0) = -0.0 and sqrt(-inf) = nan, unlike pow), and e == 2, 3 and -2
// are x * x, x * x * x and 1 / (x * x) (bfloat16 rounds each product, and compares the
// exponent rounded to bfloat16, as PyTorch does); anything else is pow with the exponent
// in the dtype (float for float32, rounded to float16 or bfloat16 for those). PyTorch has no
// special cases for float16 (pow of the exponent rounded to float16): Ember takes the
// same fast paths there but keeps pow's results for -0.0 and -inf, which are exact.
// Integers stay exact (int_pow).
template <typename T>
void pow_scalar_typed(const ElementwiseIter& it, const Scalar& e) {
  using M = opmath_t<T>;
  constexpr bool is_int = std::is_integral_v<T>;
  constexpr bool is_cplx = is_complex_v<T>;
  if constexpr (is_int || is_cplx) {
    if (e.equal(Scalar(0))) return apply<T>(it, [](M) { return M(1); }, NoVec{});
    if (e.equal(Scalar(1))) return apply<T>(it, [](M x) { return x; }, NoVec{});
  }
  if constexpr (is_int) {
    const T ex = e.to<T>();
    return apply<T>(it, [ex](T a) { return int_pow<T>(a, ex); }, NoVec{});
  } else if constexpr (is_cplx) {
    if (e.equal(Scalar(0.5))) return apply<T>(it, [](M x) { return std::sqrt(x); }, NoVec{});
    if (e.equal(Scalar(-0.5))) return apply<T>(it, [](M x) { return M(1) / std::sqrt(x); }, NoVec{});
    if (e.equal(Scalar(-1))) return apply<T>(it, [](M x) { return M(1) / x; }, NoVec{});
    if (e.equal(Scalar(2))) return apply<T>(it, [](M x) { return x * x; }, NoVec{});
    if (e.equal(Scalar(3))) return apply<T>(it, [](M x) { return x * x * x; }, NoVec{});
    if (e.equal(Scalar(-2))) return apply<T>(it, [](M x) { return M(1) / (x * x); }, NoVec{});
    const M ex = e.to<M>();
    return apply<T>(it, [ex](M x) { return std::pow(x, ex); }, NoVec{});
  } else {
    using V = std::conditional_t<std::is_same_v<M, double>, vec::vd, vec::vf>;
    constexpr bool is_half = std::is_same_v<T, Half>;
    constexpr bool is_bf16 = std::is_same_v<T, BFloat16>;
    constexpr M inf = std::numeric_limits<M>::infinity();
    auto sq = [](auto x) { return x * x; };
    auto cube = [](auto x) {
      if constexpr (is_bf16) return round_bf16(x * x) * x;
      else return x * x * x;
    };
    auto rsq = [](auto x) {
      if constexpr (is_bf16) return M(1) / round_bf16(x * x);
      else return M(1) / (x * x);
    };
    auto recip = [](auto x) { return M(1) / x; };
    if (e.equal(Scalar(0))) return apply<T>(it, [](M) { return M(1); }, [](V) { return V{} + M(1); });
    if (e.equal(Scalar(1))) return apply<T>(it, [](M x) { return x; }, [](V x) { return x; });
    // float16: pow's values at -0.0 (+0 and +inf) and -inf (+inf and +0).
    auto sqrt_s = [](M x) {
      if constexpr (is_half) return x == -inf ? inf : std::sqrt(x + M(0));
      else return std::sqrt(x);
    };
    auto sqrt_v = [](V x) {
      if constexpr (is_half) return x == -inf ? V{} + inf : vec::sqrt(x + M(0));
      else return vec::sqrt(x);
    };
    auto rsqrt_s = [](M x) {
      if constexpr (is_half) return x == -inf ? M(0) : M(1) / std::sqrt(x + M(0));
      else return M(1) / std::sqrt(x);
    };
    auto rsqrt_v = [](V x) {
      if constexpr (is_half) return x == -inf ? V{} : M(1) / vec::sqrt(x + M(0));
      else return M(1) / vec::sqrt(x);
    };
    // PyTorch compares 0.5, -0.5 and -1 before rounding the exponent, 2, 3 and -2 after.
    if constexpr (!is_half) {
      if (e.equal(Scalar(0.5))) return apply<T>(it, sqrt_s, sqrt_v);
      if (e.equal(Scalar(-0.5))) return apply<T>(it, rsqrt_s, rsqrt_v);
      if (e.equal(Scalar(-1))) return apply<T>(it, recip, recip);
    }
    const M ex = is_reduced_float_v<T> ? static_cast<M>(e.to<T>()) : static_cast<M>(e.to<double>());
    const double exd = is_reduced_float_v<T> ? static_cast<double>(ex) : e.to<double>();
    if (exd == 2) return apply<T>(it, sq, sq);
    if (exd == 3) return apply<T>(it, cube, cube);
    if (exd == -2) return apply<T>(it, rsq, rsq);
    if constexpr (is_half) {
      if (exd == 0.5) return apply<T>(it, sqrt_s, sqrt_v);
      if (exd == -0.5) return apply<T>(it, rsqrt_s, rsqrt_v);
      if (exd == -1) return apply<T>(it, recip, recip);
    }
    return apply<T>(it, [ex](M x) { return static_cast<M>(std::pow(x, ex)); },
                    [ex](V x) { return vec::pow(x, V{} + ex); }, kMathGrain);
  }
}

template <typename T>
void binary_typed(const ElementwiseIter& it, BinaryOp op, const Scalar& alpha_s) {
  using M = opmath_t<T>;
  constexpr bool is_bool = std::is_same_v<T, bool>;
  constexpr bool is_int = std::is_integral_v<T> && !is_bool;
  constexpr bool is_cplx = is_complex_v<T>;
  constexpr bool is_flt = !std::is_integral_v<T> && !is_cplx;
  auto run = [&](auto f) { apply_n<T, 2>(it, f); };
  switch (op) {
    case BinaryOp::Add:
      if constexpr (is_bool) {
        return run([](bool a, bool b) { return a || b; });
      } else {
        // Generic lambdas: the 16-bit floats also run them on float vectors (binary_loops.h).
        if (alpha_s.equal(Scalar(1))) return run([](auto a, auto b) { return a + b; });
        const M alpha = alpha_s.to<M>();
        return run([alpha](auto a, auto b) { return a + alpha * b; });
      }
    case BinaryOp::Mul:
      if constexpr (is_bool) return run([](bool a, bool b) { return a && b; });
      else return run([](auto a, auto b) { return a * b; });
    case BinaryOp::Div:
      if constexpr (!is_bool) return run([](auto a, auto b) { return a / b; });
      break;
#if EMBER_ISA_DEFAULT
    case BinaryOp::DivTrunc:
      if constexpr (is_int) {
        check_no_zero_divisor<T>(it);
        return run([](T a, T b) { return std::is_signed_v<T> && b == T(-1) ? negate_wrapping(a) : static_cast<T>(a / b); });
      } else if constexpr (is_flt) {
        // 16-bit floats round the quotient to T before truncating, as PyTorch does.
        return run([](M a, M b) { return std::trunc(static_cast<M>(T(a / b))); });
      }
      break;
    case BinaryOp::DivFloor:
      if constexpr (is_int) {
        check_no_zero_divisor<T>(it);
        return run([](T a, T b) { return std::is_signed_v<T> && b == T(-1) ? negate_wrapping(a) : floor_divide<T>(a, b); });
      } else if constexpr (is_flt) {
        return run([](M a, M b) { return floor_divide<M>(a, b); });
      }
      break;
    case BinaryOp::Remainder:
      if constexpr (is_int) check_no_zero_divisor<T>(it);
      if constexpr (is_int || is_flt) return run([](M a, M b) { return remainder<M>(a, b); });
      break;
    case BinaryOp::Fmod:
      if constexpr (is_int) {
        check_no_zero_divisor<T>(it);
        return run([](T a, T b) { return std::is_signed_v<T> && b == T(-1) ? T(0) : static_cast<T>(a % b); });
      } else if constexpr (is_flt) {
        return run([](M a, M b) { return std::fmod(a, b); });
      }
      break;
#endif
    case BinaryOp::Pow:
      if constexpr (is_int) {
        return run([](T a, T b) { return int_pow<T>(a, b); });
      } else if constexpr (is_vec_float_v<T>) {
        return for_each(it, [](char** d, const int64_t* s, int64_t n) {
          vec_binary_run<T>(d, s, n, [](auto a, auto b) { return vec::pow(a, b); });
        }, kMathGrain);
      } else if constexpr (is_reduced_float_v<T>) {
        return apply_n<T, 2>(it, PowFloat{}, kMathGrain);
      } else if constexpr (!is_bool) {
        return run([](M a, M b) { return static_cast<M>(std::pow(a, b)); });
      }
      break;
    case BinaryOp::PowScalar:
      if constexpr (!is_bool) return pow_scalar_typed<T>(it, alpha_s);
      break;
    case BinaryOp::Maximum:
    case BinaryOp::ClampMin:
      if constexpr (!is_cplx) return run([](M a, M b) { return max_propagate_nan(a, b); });
      break;
    case BinaryOp::Minimum:
    case BinaryOp::ClampMax:
      if constexpr (!is_cplx) return run([](M a, M b) { return min_propagate_nan(a, b); });
      break;
    case BinaryOp::LogAddExp:
      if constexpr (is_flt) return run([](M a, M b) { return logaddexp(a, b); });
      break;
#if EMBER_ISA_DEFAULT  // the AVX builds have no loops for these (see the end of this function)
    case BinaryOp::Fmax:
      if constexpr (is_flt) return run([](M a, M b) { return std::fmax(a, b); });
      else if constexpr (!is_cplx) return run([](M a, M b) { return a < b ? b : a; });
      break;
    case BinaryOp::Fmin:
      if constexpr (is_flt) return run([](M a, M b) { return std::fmin(a, b); });
      else if constexpr (!is_cplx) return run([](M a, M b) { return b < a ? b : a; });
      break;
    case BinaryOp::Atan2:
      if constexpr (is_flt) return run([](M a, M b) { return std::atan2(a, b); });
      break;
    case BinaryOp::Hypot:
      if constexpr (is_flt) return run([](M a, M b) { return std::hypot(a, b); });
      break;
    case BinaryOp::Copysign:
      if constexpr (is_flt) return run([](M a, M b) { return std::copysign(a, b); });
      break;
    case BinaryOp::Nextafter:
      if constexpr (is_reduced_float_v<T>) {
        return for_each(it, [](char** d, const int64_t* s, int64_t n) {
          binary_loop<T, T, T>(d, s, n, [](T a, T b) { return nextafter16(a, b); });
        });
      } else if constexpr (is_flt) {
        return run([](M a, M b) { return std::nextafter(a, b); });
      }
      break;
    case BinaryOp::LogAddExp2:
      if constexpr (is_flt) return run([](M a, M b) { return logaddexp2(a, b); });
      break;
    case BinaryOp::Xlogy:
      if constexpr (is_flt) {
        return run([](M x, M y) {
          if (y != y) return y;
          if (x == 0) return M(0);
          return static_cast<M>(x * std::log(y));
        });
      }
      break;
    case BinaryOp::BitAnd:
      if constexpr (is_bool) return run([](bool a, bool b) { return a && b; });
      else if constexpr (is_int) return run([](T a, T b) { return static_cast<T>(a & b); });
      break;
    case BinaryOp::BitOr:
      if constexpr (is_bool) return run([](bool a, bool b) { return a || b; });
      else if constexpr (is_int) return run([](T a, T b) { return static_cast<T>(a | b); });
      break;
    case BinaryOp::BitXor:
      if constexpr (is_bool) return run([](bool a, bool b) { return a != b; });
      else if constexpr (is_int) return run([](T a, T b) { return static_cast<T>(a ^ b); });
      break;
    case BinaryOp::Shl:
      if constexpr (is_int) return run([](T a, T b) { return shift_left(a, b); });
      break;
    case BinaryOp::Shr:
      if constexpr (is_int) return run([](T a, T b) { return shift_right(a, b); });
      break;
#endif
    default: break;
  }
#if !EMBER_ISA_DEFAULT
  // Ops without a loop in this build (the `#if EMBER_ISA_DEFAULT` cases above) are scalar
  // libm calls or rarely hot; their AVX copies were a third of this file's compile time. On
  // 256K elements, one thread: floor_divide, remainder, atan2, fmax, copysign and int64
  // floor_divide kept their speed; int64 bitwise_and 70 -> 79 us, << 72 -> 115 us (torch: 78,
  // 115 us).
  return isa_Default::binary_kernel(it, op, alpha_s);
#else
  EMBER_FAIL(RuntimeError, "binary op ", static_cast<int>(op), " not implemented for '", scalar_type_of<T>, "'");
#endif
}

}  // namespace

void binary_kernel(const ElementwiseIter& it, BinaryOp op, const Scalar& alpha) {
  const ScalarType dt = it.compute_dtype();
#if !EMBER_ISA_DEFAULT
  // The 16-bit floats compute through this build's float vectors.
  if (dt == kBFloat16) return binary_typed<BFloat16>(it, op, alpha);
  if (dt == kHalf) return binary_typed<Half>(it, op, alpha);
#endif
  EMBER_DISPATCH_KERNEL(dt, "binary", binary_kernel(it, op, alpha), [&] { binary_typed<scalar_t>(it, op, alpha); });
}
EMBER_REGISTER_STUB(binary_stub, &binary_kernel);
}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
