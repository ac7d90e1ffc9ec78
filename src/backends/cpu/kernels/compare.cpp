// Comparisons (eq, ne, lt, le, gt, ge) and logical and/or/xor (inputs in the compute dtype,
// bool output), and
// where (a byte-wise select, so it is instantiated per element size, not per dtype).
#include "backends/cpu/kernels/basic_loops.h"
#include "backends/cpu/stubs.h"
#include "core/dtype_dispatch.h"

namespace ember::cpu {
namespace isa_Default {
void compare_kernel(const ElementwiseIter& it, CompareOp op);
}
namespace EMBER_ISA_NAMESPACE {
namespace {

template <typename T, typename F>
void run_compare(const ElementwiseIter& it, const F& f) {
  for_each(it, [&](char** d, const int64_t* s, int64_t n) { binary_loop<bool, T, T>(d, s, n, f); });
}

template <typename T>
void compare_typed(const ElementwiseIter& it, CompareOp op) {
  // 16-bit floats compare exactly as floats.
  using M = std::conditional_t<is_reduced_float_v<T>, float, T>;
  switch (op) {
    case CompareOp::Eq: return run_compare<T>(it, [](M a, M b) { return a == b; });
    case CompareOp::Ne: return run_compare<T>(it, [](M a, M b) { return a != b; });
    // Logical ops: non-zero is true.
    case CompareOp::LogicalAnd:
      return run_compare<T>(it, [](T a, T b) { return convert<bool>(a) && convert<bool>(b); });
    case CompareOp::LogicalOr:
      return run_compare<T>(it, [](T a, T b) { return convert<bool>(a) || convert<bool>(b); });
    case CompareOp::LogicalXor:
      return run_compare<T>(it, [](T a, T b) { return convert<bool>(a) != convert<bool>(b); });
    default: break;
  }
  if constexpr (is_complex_v<T>) {
    EMBER_FAIL(RuntimeError, "\"", op == CompareOp::Lt ? "lt" : op == CompareOp::Le ? "le" : op == CompareOp::Gt ? "gt" : "ge",
               "\" not implemented for '", scalar_type_of<T>, "'");
  } else {
    switch (op) {
      case CompareOp::Lt: return run_compare<T>(it, [](M a, M b) { return a < b; });
      case CompareOp::Le: return run_compare<T>(it, [](M a, M b) { return a <= b; });
      case CompareOp::Gt: return run_compare<T>(it, [](M a, M b) { return a > b; });
      case CompareOp::Ge: return run_compare<T>(it, [](M a, M b) { return a >= b; });
      default: break;
    }
  }
}

struct Bytes16 { uint64_t lo, hi; };

// out = cond ? a : b, with the condition read as bytes (bool or the deprecated uint8).
template <typename T>
void where_typed(const ElementwiseIter& it) {
  for_each(it, [](char** d, const int64_t* s, int64_t n) {
    constexpr int64_t z = sizeof(T);
    if (s[0] == z && s[1] == 1) {
      auto* __restrict out = reinterpret_cast<T*>(d[0]);
      const auto* __restrict c = reinterpret_cast<const uint8_t*>(d[1]);
      if (s[2] == z && s[3] == z) {
        const auto* __restrict a = reinterpret_cast<const T*>(d[2]);
        const auto* __restrict b = reinterpret_cast<const T*>(d[3]);
        for (int64_t i = 0; i < n; ++i) out[i] = c[i] ? a[i] : b[i];
        return;
      }
      if (s[2] == z && s[3] == 0) {
        const auto* __restrict a = reinterpret_cast<const T*>(d[2]);
        const T b = load<T>(d[3]);
        for (int64_t i = 0; i < n; ++i) out[i] = c[i] ? a[i] : b;
        return;
      }
      if (s[2] == 0 && s[3] == z) {
        const T a = load<T>(d[2]);
        const auto* __restrict b = reinterpret_cast<const T*>(d[3]);
        for (int64_t i = 0; i < n; ++i) out[i] = c[i] ? a : b[i];
        return;
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      const bool c = load<uint8_t>(d[1] + i * s[1]) != 0;
      *reinterpret_cast<T*>(d[0] + i * s[0]) = load<T>(c ? d[2] + i * s[2] : d[3] + i * s[3]);
    }
  });
}

}  // namespace

void compare_kernel(const ElementwiseIter& it, CompareOp op) {
  EMBER_DISPATCH_KERNEL(it.compute_dtype(), "compare", compare_kernel(it, op),
                        [&] { compare_typed<scalar_t>(it, op); });
}

void where_kernel(const ElementwiseIter& it) {
  switch (it.operand(0).element_size()) {
    case 1: return where_typed<uint8_t>(it);
    case 2: return where_typed<uint16_t>(it);
    case 4: return where_typed<uint32_t>(it);
    case 8: return where_typed<uint64_t>(it);
    default: return where_typed<Bytes16>(it);
  }
}

EMBER_REGISTER_STUB(compare_stub, &compare_kernel);
EMBER_REGISTER_STUB(where_stub, &where_kernel);
}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
