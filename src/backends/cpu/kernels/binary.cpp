// Elementwise binary arithmetic: add (with alpha), mul, div (true, trunc, floor), maximum,
// minimum. Inputs arrive already promoted to the compute dtype.
#include <cmath>

#include "backends/cpu/kernels/basic_loops.h"
#include "backends/cpu/stubs.h"
#include "core/dtype_dispatch.h"

namespace ember::cpu {
namespace isa_Default {
void binary_kernel(const ElementwiseIter& it, BinaryOp op, const Scalar& alpha);
}
namespace EMBER_ISA_NAMESPACE {
namespace {

template <typename T, typename F>
void run(const ElementwiseIter& it, const F& f) {
  if constexpr (is_reduced_float_v<T>) {
    // 16-bit floats compute in float and round once.
    for_each(it, [&](char** d, const int64_t* s, int64_t n) {
      binary_loop<T, T, T>(d, s, n, [&](T a, T b) { return T(f(float(a), float(b))); });
    });
  } else {
    for_each(it, [&](char** d, const int64_t* s, int64_t n) { binary_loop<T, T, T>(d, s, n, f); });
  }
}

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

template <typename T>
T max_propagate_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
  }
  return a < b ? b : a;
}
template <typename T>
T min_propagate_nan(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) ? a : b;
  }
  return b < a ? b : a;
}

template <typename T>
void binary_typed(const ElementwiseIter& it, BinaryOp op, const Scalar& alpha_s) {
  using M = opmath_t<T>;
  switch (op) {
    case BinaryOp::Add: {
      if constexpr (std::is_same_v<T, bool>) {
        return run<T>(it, [](bool a, bool b) { return a || b; });
      } else {
        if (alpha_s.equal(Scalar(1))) return run<T>(it, [](M a, M b) { return a + b; });
        const M alpha = alpha_s.to<M>();
        return run<T>(it, [alpha](M a, M b) { return a + alpha * b; });
      }
    }
    case BinaryOp::Mul:
      if constexpr (std::is_same_v<T, bool>) return run<T>(it, [](bool a, bool b) { return a && b; });
      else return run<T>(it, [](M a, M b) { return a * b; });
    case BinaryOp::Div:
      if constexpr (std::is_same_v<T, bool>) EMBER_FAIL(TypeError, "div: bool is not supported");
      else return run<T>(it, [](M a, M b) { return a / b; });
    case BinaryOp::DivTrunc:
      if constexpr (is_complex_v<T> || std::is_same_v<T, bool>) {
        EMBER_FAIL(TypeError, "div with rounding_mode='trunc' is not supported for ", scalar_type_of<T>);
      } else if constexpr (std::is_integral_v<T>) {
        check_no_zero_divisor<T>(it);
        return run<T>(it, [](T a, T b) { return std::is_signed_v<T> && b == T(-1) ? negate_wrapping(a) : static_cast<T>(a / b); });
      } else {
        // 16-bit floats round the quotient to T before truncating, as PyTorch does.
        return run<T>(it, [](M a, M b) { return std::trunc(static_cast<M>(T(a / b))); });
      }
    case BinaryOp::DivFloor:
      if constexpr (is_complex_v<T> || std::is_same_v<T, bool>) {
        EMBER_FAIL(TypeError, "div with rounding_mode='floor' is not supported for ", scalar_type_of<T>);
      } else if constexpr (std::is_integral_v<T>) {
        check_no_zero_divisor<T>(it);
        return run<T>(it, [](T a, T b) { return std::is_signed_v<T> && b == T(-1) ? negate_wrapping(a) : floor_divide<T>(a, b); });
      } else {
        return run<T>(it, [](M a, M b) { return floor_divide<M>(a, b); });
      }
    case BinaryOp::Maximum:
      if constexpr (is_complex_v<T>) EMBER_FAIL(TypeError, "maximum not implemented for complex tensors.");
      else return run<T>(it, [](M a, M b) { return max_propagate_nan(a, b); });
    case BinaryOp::Minimum:
      if constexpr (is_complex_v<T>) EMBER_FAIL(TypeError, "minimum not implemented for complex tensors.");
      else return run<T>(it, [](M a, M b) { return min_propagate_nan(a, b); });
  }
}

}  // namespace

void binary_kernel(const ElementwiseIter& it, BinaryOp op, const Scalar& alpha) {
  EMBER_DISPATCH_KERNEL(it.compute_dtype(), "binary", binary_kernel(it, op, alpha),
                        [&] { binary_typed<scalar_t>(it, op, alpha); });
}
EMBER_REGISTER_STUB(binary_stub, &binary_kernel);
}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
