// Copy with dtype conversion: every (destination, source) dtype pair. Conversions between
// the 16-bit floats and float or double run on this build's vectors in the AVX builds
// (F16C for float16, integer lanes for bfloat16: unary_loops.h); the default build keeps
// the scalar conversions (convert.h), which round the same way.
#include <cstring>

#include "backends/cpu/kernels/basic_loops.h"
#include "backends/cpu/kernels/unary_loops.h"
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

#if !EMBER_ISA_DEFAULT
// float or double <-> float16 or bfloat16, a chunk at a time through float: contiguous runs
// convert whole vectors (the tails and strided runs convert one value at a time, with the
// same rounding). double goes through float as convert<> does (PyTorch's double -> half
// also rounds to float first).
template <typename Out, typename In>
void convert_16(const ElementwiseIter& it) {
  for_each(it, [](char** d, const int64_t* s, int64_t n) {
    if (s[0] != static_cast<int64_t>(sizeof(Out)) || s[1] != static_cast<int64_t>(sizeof(In)))
      return unary_loop<Out, In>(d, s, n, [](In v) { return convert<Out>(v); });
    auto* __restrict out = reinterpret_cast<Out*>(d[0]);
    const auto* __restrict in = reinterpret_cast<const In*>(d[1]);
    alignas(64) float buf[kChunk];
    for (int64_t base = 0; base < n; base += kChunk) {
      const int64_t m = std::min(kChunk, n - base);
      if constexpr (std::is_same_v<Out, Half>) {
        // F16C keeps the top bits of a NaN's payload; Half(float) and PyTorch give the
        // quiet NaN 0x7e00 with the sign, so NaNs become float's quiet NaN first.
        for (int64_t k = 0; k < m; ++k) {
          const float v = static_cast<float>(in[base + k]);
          uint32_t u;
          std::memcpy(&u, &v, 4);
          u = (u & 0x7fffffffu) > 0x7f800000u ? (u & 0x80000000u) | 0x7fc00000u : u;
          std::memcpy(&buf[k], &u, 4);
        }
        narrow<Out>(reinterpret_cast<char*>(out + base), sizeof(Out), buf, m);
      } else if constexpr (is_reduced_float_v<Out>) {
        const float* src = buf;
        if constexpr (std::is_same_v<In, float>) {
          src = in + base;
        } else {
          for (int64_t k = 0; k < m; ++k) buf[k] = static_cast<float>(in[base + k]);
        }
        narrow<Out>(reinterpret_cast<char*>(out + base), sizeof(Out), src, m);
      } else if constexpr (std::is_same_v<Out, float>) {
        widen<In>(out + base, reinterpret_cast<const char*>(in + base), sizeof(In), m);
      } else {
        widen<In>(buf, reinterpret_cast<const char*>(in + base), sizeof(In), m);
        for (int64_t k = 0; k < m; ++k) out[base + k] = static_cast<Out>(buf[k]);
      }
    }
  });
}

// Runs the vector conversion for the pairs it covers; false for the others.
bool convert_16_pair(const ElementwiseIter& it, ScalarType dst, ScalarType src) {
  auto from = [&](auto out_tag) {
    using Out = decltype(out_tag);
    switch (src) {
      case kFloat: return convert_16<Out, float>(it), true;
      case kDouble: return convert_16<Out, double>(it), true;
      default: return false;
    }
  };
  auto to = [&](auto in_tag) {
    using In = decltype(in_tag);
    switch (dst) {
      case kFloat: return convert_16<float, In>(it), true;
      case kDouble: return convert_16<double, In>(it), true;
      default: return false;
    }
  };
  if (dst == kHalf) return from(Half{});
  if (dst == kBFloat16) return from(BFloat16{});
  if (src == kHalf) return to(Half{});
  if (src == kBFloat16) return to(BFloat16{});
  return false;
}
#endif

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
#if !EMBER_ISA_DEFAULT
  if (convert_16_pair(it, dst, src)) return;
#endif
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
