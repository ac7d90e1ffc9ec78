// Copy with dtype conversion: every (destination, source) dtype pair.
#include <cstring>

#include "backends/cpu/kernels/basic_loops.h"
#include "backends/cpu/stubs.h"
#include "core/dtype_dispatch.h"

namespace ember::cpu {
namespace isa_Default {
void copy_kernel(const ElementwiseIter& it);
}
namespace EMBER_ISA_NAMESPACE {
namespace {

// Same dtype: only the element size matters.
template <typename T>
void copy_same(const ElementwiseIter& it) {
  for_each(it, [](char** data, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(T) && s[1] == sizeof(T)) {
      std::memcpy(data[0], data[1], static_cast<size_t>(n) * sizeof(T));
      return;
    }
    unary_loop<T, T>(data, s, n, [](T v) { return v; });
  });
}

struct Bytes16 { uint64_t lo, hi; };

}  // namespace

void copy_kernel(const ElementwiseIter& it) {
  ScalarType dst = it.operand(0).dtype(), src = it.operand(1).dtype();
  if (dst == src) {
    switch (itemsize(dst)) {
      case 1: return copy_same<uint8_t>(it);
      case 2: return copy_same<uint16_t>(it);
      case 4: return copy_same<uint32_t>(it);
      case 8: return copy_same<uint64_t>(it);
      default: return copy_same<Bytes16>(it);
    }
  }
  EMBER_DISPATCH_KERNEL(dst, "copy_", copy_kernel(it), [&] {
    using out_t = scalar_t;
    EMBER_DISPATCH_KERNEL(src, "copy_", copy_kernel(it), [&] {
      using in_t = scalar_t;
      for_each(it, [](char** data, const int64_t* s, int64_t n) {
        unary_loop<out_t, in_t>(data, s, n, [](in_t v) { return convert<out_t>(v); });
      });
    });
  });
}

EMBER_REGISTER_STUB(copy_stub, &copy_kernel);
}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
