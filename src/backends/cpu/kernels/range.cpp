// arange, linspace and logspace: every element is a function of its index, so the fill is
// split across threads anywhere.
//
// The float32/float64 formulas reproduce PyTorch 1.13's AVX2 CPU kernels bit for bit: its
// vectorized loop handles groups of two vectors (2 * 32 bytes); inside a vector, lane k is
// `base + k * step` where base is the vector's first element, and the remaining n % (2 lanes)
// elements take the scalar formula. Multiplies and adds that PyTorch's build contracts into
// FMAs are written as std::fma here (this project compiles without contraction).
#include <cmath>
#include <complex>

#include "backends/cpu/kernels/basic_loops.h"
#include "backends/cpu/stubs.h"
#include "core/dtype_dispatch.h"

namespace ember::cpu {
namespace isa_Default {
void range_kernel(void* data, ScalarType dtype, int64_t n, RangeKind kind, const Scalar& a,
                  const Scalar& b, double base);
}
namespace EMBER_ISA_NAMESPACE {
namespace {

// Calls fill(begin, end) over [0, n), in parallel when n is large.
template <typename F>
void parallel_fill(int64_t n, int64_t grain, const F& fill) {
  const int nt = threads_for(n, grain);
  if (nt <= 1) {
    fill(int64_t(0), n);
    return;
  }
#pragma omp parallel num_threads(nt)
  {
    const int64_t T = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t chunk = (n + T - 1) / T;
    const int64_t b = std::min(n, t * chunk), e = std::min(n, b + chunk);
    if (b < e) fill(b, e);
  }
}

// GCC contracts a * b + c into an FMA even in ISO C++ mode when the ISA has one; products that
// PyTorch rounds on their own pass through here to keep them separate.
template <typename T>
T rounded(T v) {
  asm("" : "+x"(v));
  return v;
}

// Double to an integer type the way x86 converts it (cvttsd2si: through int32 for types of 32
// bits or less, int64 otherwise; out of range gives the minimum), without C++'s UB.
template <typename T>
T to_int(double v) {
  if constexpr (sizeof(T) <= 4) {
    if (!(v > -2147483649.0 && v < 2147483648.0)) return static_cast<T>(INT32_MIN);
    return static_cast<T>(static_cast<int32_t>(v));
  } else {
    if (!(v > -9223372036854775808.0 && v < 9223372036854775808.0)) return static_cast<T>(INT64_MIN);
    return static_cast<T>(static_cast<int64_t>(v));
  }
}

template <typename T>
constexpr int64_t lanes() { return 32 / static_cast<int64_t>(sizeof(T)); }  // AVX2 vector

// Fills out[b, e) the way PyTorch's vectorized loop does for n elements: below
// nvec = n - n % (2L), groups of L share base_at(first index) and lane k > 0 is
// lane(base, k); the rest take scalar(i). Whole groups run as a short fixed loop that
// vectorizes.
template <int64_t L, typename T, typename BaseAt, typename Lane, typename ScalarAt>
void grouped_fill(T* out, int64_t n, int64_t b, int64_t e, const BaseAt& base_at, const Lane& lane,
                  const ScalarAt& scalar) {
  const int64_t ve = std::min(e, n - n % (2 * L));
  int64_t i = b;
  for (; i < ve && i % L != 0; ++i) out[i] = lane(base_at(i - i % L), i % L);
  for (; i + L <= ve; i += L) {
    const auto base = base_at(i);
    out[i] = base;
    for (int64_t k = 1; k < L; ++k) out[i + k] = lane(base, k);
  }
  for (; i < ve; ++i) out[i] = i % L == 0 ? base_at(i) : lane(base_at(i - i % L), i % L);
  for (; i < e; ++i) out[i] = scalar(i);
}

// k * step for k < L, each product rounded on its own (PyTorch's lanes add these unfused).
template <int64_t L, typename S>
struct Increments {
  S v[L];
  explicit Increments(S step) {
    for (int64_t k = 0; k < L; ++k) v[k] = rounded(static_cast<S>(k) * step);
  }
};

template <typename T>
void arange_fill(T* out, int64_t n, const Scalar& start_s, const Scalar& step_s) {
  if constexpr (std::is_integral_v<T>) {
    // int64 arithmetic, wrapping into narrower types as PyTorch does.
    const uint64_t start = static_cast<uint64_t>(start_s.to<int64_t>());
    const uint64_t step = static_cast<uint64_t>(step_s.to<int64_t>());
    parallel_fill(n, kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) out[i] = static_cast<T>(start + step * static_cast<uint64_t>(i));
    });
  } else if constexpr (is_reduced_float_v<T>) {
    // Accumulates in float; a vector's lanes step from its first element rounded to T.
    constexpr int64_t L = lanes<T>();
    const float start = start_s.to<float>(), step = step_s.to<float>();
    const Increments<L, float> inc(step);
    parallel_fill(n, kGrainSize, [&](int64_t b, int64_t e) {
      grouped_fill<L>(
          out, n, b, e, [&](int64_t i) { return T(std::fma(step, static_cast<float>(i), start)); },
          [&](T base, int64_t k) { return T(static_cast<float>(base) + inc.v[k]); },
          [&](int64_t i) { return T(std::fma(step, static_cast<float>(i), start)); });
    });
  } else {
    // float and double both compute in double; lanes are fused here.
    constexpr int64_t L = lanes<T>();
    const double start = start_s.to<double>(), step = step_s.to<double>();
    auto at = [&](int64_t i) { return static_cast<T>(std::fma(step, static_cast<double>(i), start)); };
    parallel_fill(n, kGrainSize, [&](int64_t b, int64_t e) {
      grouped_fill<L>(
          out, n, b, e, at,
          [&](T base, int64_t k) { return static_cast<T>(std::fma(static_cast<double>(k), step, static_cast<double>(base))); },
          at);
    });
  }
}

template <typename T>
void linspace_fill(T* out, int64_t steps, const Scalar& start_s, const Scalar& end_s) {
  const int64_t half = steps / 2;
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    // Computed in T from both ends: the first half from start, the second from end.
    const T start = start_s.to<T>(), end = end_s.to<T>();
    const T step = (end - start) / static_cast<T>(steps - 1);
    auto at = [&](int64_t i) {
      return i < half ? std::fma(step, static_cast<T>(i), start)
                      : std::fma(-step, static_cast<T>(steps - i - 1), end);
    };
    constexpr int64_t L = lanes<T>();
    const Increments<L, T> inc(step);
    parallel_fill(steps, kGrainSize, [&](int64_t b, int64_t e) {
      grouped_fill<L>(out, steps, b, e, at, [&](T base, int64_t k) { return base + inc.v[k]; }, at);
    });
  } else if constexpr (std::is_integral_v<T>) {
    // The step is a double; values truncate towards zero.
    const T start = start_s.to<T>(), end = end_s.to<T>();
    const double step = (static_cast<double>(end) - static_cast<double>(start)) / static_cast<double>(steps - 1);
    auto at = [&](int64_t i) {
      return i < half ? std::fma(step, static_cast<double>(i), static_cast<double>(start))
                      : std::fma(-step, static_cast<double>(steps - i - 1), static_cast<double>(end));
    };
    constexpr int64_t L = lanes<T>();
    const Increments<L, double> inc(step);
    auto at_int = [&](int64_t i) { return to_int<T>(at(i)); };
    parallel_fill(steps, kGrainSize, [&](int64_t b, int64_t e) {
      grouped_fill<L>(
          out, steps, b, e, at_int,
          [&](T base, int64_t k) { return to_int<T>(static_cast<double>(base) + inc.v[k]); }, at_int);
    });
  } else if constexpr (is_reduced_float_v<T>) {
    // PyTorch steps in the 16-bit type itself, rounding every operand and result to it.
    auto r = [](float v) { return static_cast<float>(T(v)); };
    const float start = r(start_s.to<float>()), end = r(end_s.to<float>());
    const float step = r(r(end - start) / r(static_cast<float>(steps - 1)));
    auto at = [&](int64_t i) {
      return i < half ? r(start + r(step * r(static_cast<float>(i))))
                      : r(end - r(step * r(static_cast<float>(steps - i - 1))));
    };
    constexpr int64_t L = lanes<T>();
    auto at_t = [&](int64_t i) { return T(at(i)); };
    parallel_fill(steps, kGrainSize, [&](int64_t b, int64_t e) {
      grouped_fill<L>(
          out, steps, b, e, at_t,
          [&](T base, int64_t k) { return T(static_cast<float>(base) + r(static_cast<float>(k) * step)); }, at_t);
    });
  } else {  // complex: per component, like the real case
    using R = typename T::value_type;
    const T start = start_s.to<T>(), end = end_s.to<T>();
    const T step = (end - start) / static_cast<R>(steps - 1);
    auto at = [&](int64_t i) {
      if (i < half) {
        const R m = static_cast<R>(i);
        return T(std::fma(step.real(), m, start.real()), std::fma(step.imag(), m, start.imag()));
      }
      const R m = static_cast<R>(steps - i - 1);
      return T(std::fma(-step.real(), m, end.real()), std::fma(-step.imag(), m, end.imag()));
    };
    constexpr int64_t L = lanes<T>();
    const Increments<L, R> re(step.real()), im(step.imag());
    parallel_fill(steps, kGrainSize, [&](int64_t b, int64_t e) {
      grouped_fill<L>(
          out, steps, b, e, at, [&](T base, int64_t k) { return T(base.real() + re.v[k], base.imag() + im.v[k]); },
          at);
    });
  }
}

template <typename T>
void logspace_fill(T* out, int64_t steps, const Scalar& start_s, const Scalar& end_s, double base) {
  const int64_t half = steps / 2;
  constexpr int64_t kPowGrain = 2048;  // pow is expensive: thread sooner
  if constexpr (is_complex_v<T>) {
    using R = typename T::value_type;
    const T start = start_s.to<T>(), end = end_s.to<T>();
    const T step = (end - start) / static_cast<R>(steps - 1);
    const T log_base = std::log(T(static_cast<R>(base), 0));  // complex pow: exp(x log(base)), in T
    parallel_fill(steps, kPowGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const T x = i < half ? start + step * static_cast<R>(i) : end - step * static_cast<R>(steps - i - 1);
        out[i] = std::exp(x * log_base);
      }
    });
  } else {
    // Exponents in double (the difference end - start in T); integer types other than uint8
    // use a float base (PyTorch's uint8 goes through its floating-point branch).
    const T start = start_s.to<T>(), end = end_s.to<T>();
    double diff;  // integers subtract in int, floats in T
    if constexpr (std::is_integral_v<T>) diff = static_cast<double>(end) - static_cast<double>(start);
    else diff = static_cast<double>(static_cast<opmath_t<T>>(T(end - start)));
    const double step = diff / static_cast<double>(steps - 1);
    const double b0 = std::is_integral_v<T> && !std::is_same_v<T, uint8_t> ? static_cast<double>(static_cast<float>(base)) : base;
    const double s = static_cast<double>(static_cast<opmath_t<T>>(start));
    const double en = static_cast<double>(static_cast<opmath_t<T>>(end));
    parallel_fill(steps, kPowGrain, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const double x = i < half ? s + rounded(step * static_cast<double>(i))
                                  : en - rounded(step * static_cast<double>(steps - i - 1));
        const double v = std::pow(b0, x);
        if constexpr (std::is_integral_v<T>) out[i] = to_int<T>(v);
        else out[i] = static_cast<T>(v);
      }
    });
  }
}

template <typename T>
void range_typed(void* data, int64_t n, RangeKind kind, const Scalar& a, const Scalar& b, double base) {
  T* out = static_cast<T*>(data);
  if constexpr (std::is_same_v<T, bool>) {
    EMBER_FAIL(RuntimeError, "range kernels do not support bool");  // the front rejects bool
  } else {
    switch (kind) {
      case RangeKind::Arange:
        if constexpr (is_complex_v<T>) EMBER_FAIL(RuntimeError, "arange does not support complex");
        else arange_fill(out, n, a, b);
        return;
      case RangeKind::Linspace: return linspace_fill(out, n, a, b);
      case RangeKind::Logspace: return logspace_fill(out, n, a, b, base);
    }
  }
}

}  // namespace

void range_kernel(void* data, ScalarType dtype, int64_t n, RangeKind kind, const Scalar& a,
                  const Scalar& b, double base) {
  EMBER_DISPATCH_KERNEL(dtype, "range", range_kernel(data, dtype, n, kind, a, b, base),
                        [&] { range_typed<scalar_t>(data, n, kind, a, b, base); });
}
EMBER_REGISTER_STUB(range_stub, &range_kernel);
}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
