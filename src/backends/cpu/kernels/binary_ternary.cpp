// Three-input pointwise kernels: lerp, addcmul, addcdiv and clamp with tensor bounds
// (binary_loops.h: the 16-bit floats compute in float chunks, large outputs are streamed).
#include <cmath>
#include <complex>
#include <limits>

#include "backends/cpu/kernels/binary_loops.h"
#include "backends/cpu/stubs.h"
#include "core/dtype_dispatch.h"

namespace ember::cpu {
namespace isa_Default {
void ternary_kernel(const ElementwiseIter& it, TernaryOp op, const Scalar& value);
void isclose_kernel(const ElementwiseIter& it, double rtol, double atol, bool equal_nan);
}
namespace EMBER_ISA_NAMESPACE {
namespace {

// PyTorch's lerp: from the nearer end, so that weight 1 gives `end` exactly. Real types
// compute it as PyTorch's vector code does, with one fused multiply-add:
// fma(w, end - self, self) for |w| < 0.5, else fma(w - 1, end - self, end).
template <typename M>
M lerp(M self, M end, M weight) {
  if constexpr (is_complex_v<M>) {
    using R = decltype(std::abs(weight));
    return std::abs(weight) < R(0.5) ? self + weight * (end - self) : end - (end - self) * (M(1) - weight);
  } else {
    const bool small = std::abs(weight) < M(0.5);
    return std::fma(small ? weight : weight - M(1), end - self, small ? self : end);
  }
}

// lerp of float or double runs: a scalar weight (stride 0) picks the formula once, which
// leaves a branch-free loop that the compiler vectorizes.
template <typename T>
void lerp_real_run(char** d, const int64_t* s, int64_t n) {
  if (s[3] == 0) {
    const T w = load<T>(d[3]);
    if (std::abs(w) < T(0.5)) return binary_loop<T, T, T>(d, s, n, [w](T a, T b) { return std::fma(w, b - a, a); });
    const T c = w - T(1);
    return binary_loop<T, T, T>(d, s, n, [c](T a, T b) { return std::fma(c, b - a, b); });
  }
  ternary_loop<T, T, T, T>(d, s, n, [](T a, T b, T w) { return lerp(a, b, w); });
}

template <typename T>
void ternary_typed(const ElementwiseIter& it, TernaryOp op, const Scalar& value_s) {
  using M = opmath_t<T>;
  constexpr bool is_bool = std::is_same_v<T, bool>;
  constexpr bool is_cplx = is_complex_v<T>;
  constexpr bool is_flt = !std::is_integral_v<T> && !is_cplx;
  auto run = [&](auto f) { apply_n<T, 3>(it, f); };
  switch (op) {
    case TernaryOp::Lerp:
      if constexpr (is_vec_float_v<T>) return for_each(it, [](char** d, const int64_t* s, int64_t n) { lerp_real_run<T>(d, s, n); });
      else if constexpr (is_flt || is_cplx) return run([](M a, M b, M w) { return lerp(a, b, w); });
      break;
    case TernaryOp::Addcmul:
      if constexpr (is_bool) {
        const bool v = value_s.to<bool>();
        return run([v](bool a, bool b, bool c) { return a || (v && b && c); });
      } else {
        const M v = value_s.to<M>();
        // Generic lambdas: the 16-bit floats also run them on float vectors (binary_loops.h).
        if (value_s.equal(Scalar(1))) return run([](auto a, auto b, auto c) { return a + b * c; });
        return run([v](auto a, auto b, auto c) { return a + v * b * c; });
      }
    case TernaryOp::Addcdiv:
      if constexpr (is_flt || is_cplx) {
        const M v = value_s.to<M>();
        return run([v](auto a, auto b, auto c) { return a + v * b / c; });
      }
      break;
    case TernaryOp::Clamp:
      // A NaN bound gives NaN; a NaN input stays NaN (PyTorch 1.13).
      if constexpr (is_flt) {
        return run([](M a, M lo, M hi) {
          if (lo != lo || hi != hi) return std::numeric_limits<M>::quiet_NaN();
          return std::min(std::max(a, lo), hi);
        });
      } else if constexpr (!is_bool && !is_cplx) {
        return run([](M a, M lo, M hi) { return std::min(std::max(a, lo), hi); });
      }
      break;
  }
  EMBER_FAIL(RuntimeError, "ternary op ", static_cast<int>(op), " not implemented for '", scalar_type_of<T>, "'");
}

// |a - b| <= atol + rtol |b|, with infinities equal only to themselves and NaN to NaN when
// equal_nan (torch.isclose).
template <typename T>
void isclose_typed(const ElementwiseIter& it, double rtol, double atol, bool equal_nan) {
  using M = std::conditional_t<is_reduced_float_v<T>, float, T>;
  for_each(it, [&](char** d, const int64_t* s, int64_t n) {
    binary_loop<bool, T, T>(d, s, n, [=](T ta, T tb) -> bool {
      const M a = static_cast<M>(ta), b = static_cast<M>(tb);
      if (a == b) return true;
      if constexpr (std::is_integral_v<M>) {
        const double diff = std::abs(static_cast<double>(a) - static_cast<double>(b));
        return diff <= atol + rtol * std::abs(static_cast<double>(b));
      } else {
        if constexpr (is_complex_v<M>) {
          const bool na = a.real() != a.real() || a.imag() != a.imag();
          const bool nb = b.real() != b.real() || b.imag() != b.imag();
          if (na || nb) return equal_nan && na && nb;
        } else {
          if (a != a || b != b) return equal_nan && a != a && b != b;
        }
        const double diff = std::abs(a - b), mb = std::abs(b);
        if (!std::isfinite(diff)) return false;
        return diff <= atol + rtol * mb;
      }
    });
  });
}

}  // namespace

void ternary_kernel(const ElementwiseIter& it, TernaryOp op, const Scalar& value) {
  const ScalarType dt = it.compute_dtype();
#if !EMBER_ISA_DEFAULT
  if (dt == kBFloat16) return ternary_typed<BFloat16>(it, op, value);
  if (dt == kHalf) return ternary_typed<Half>(it, op, value);
#endif
  EMBER_DISPATCH_KERNEL(dt, "ternary", ternary_kernel(it, op, value), [&] { ternary_typed<scalar_t>(it, op, value); });
}

void isclose_kernel(const ElementwiseIter& it, double rtol, double atol, bool equal_nan) {
  EMBER_DISPATCH_KERNEL(it.operand(1).dtype(), "isclose", isclose_kernel(it, rtol, atol, equal_nan),
                        [&] { isclose_typed<scalar_t>(it, rtol, atol, equal_nan); });
}

EMBER_REGISTER_STUB(ternary_stub, &ternary_kernel);
EMBER_REGISTER_STUB(isclose_stub, &isclose_kernel);
}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
