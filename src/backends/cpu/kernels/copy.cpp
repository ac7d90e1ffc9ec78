// Copy with dtype conversion: every (destination, source) dtype pair. Conversions between
// the 16-bit floats and float or double run on this build's vectors in the AVX builds
// (F16C for float16, integer lanes for bfloat16: unary_loops.h); the default build keeps
// the scalar conversions (convert.h), which round the same way.
#include <algorithm>
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

// A transposing copy: the output runs along loop dim 0 while the input runs along another
// dim d. Walking the output in order reads one input cache line per element (x.t().contiguous()
// of 1024x1024 floats: 21 ms, against 0.6 ms in PyTorch), so the two dims are copied in square
// tiles whose input and output lines both stay in L1. False when the layout is not of this kind.
template <typename T>
bool copy_transposed(const ElementwiseIter& it) {
  constexpr int64_t E = sizeof(T);
  constexpr int64_t B = std::max<int64_t>(32, 128 / E);  // tile side: 32 of 4 bytes and wider
  const int nd = it.ndim();
  const int64_t* so = it.strides(0);
  const int64_t* si = it.strides(1);
  if (nd < 2 || so[0] != E || si[0] == E) return false;
  int d = 1;
  while (d < nd && si[d] != E) ++d;
  const int64_t* shape = it.loop_shape().data();
  if (d == nd || shape[0] < B || shape[d] < B) return false;
  // The other dims, walked by a flat index; everything else is tiles of dims 0 and d.
  int64_t rest_shape[ElementwiseIter::kMaxDims], rest_so[ElementwiseIter::kMaxDims], rest_si[ElementwiseIter::kMaxDims];
  int nrest = 0;
  for (int k = 1; k < nd; ++k)
    if (k != d) { rest_shape[nrest] = shape[k]; rest_so[nrest] = so[k]; rest_si[nrest] = si[k]; ++nrest; }
  const int64_t n0 = shape[0], n1 = shape[d], t0 = (n0 + B - 1) / B, t1 = (n1 + B - 1) / B;
  const int64_t units = it.numel() / (n0 * n1) * t0 * t1;
  const int64_t out_d = so[d], in_0 = si[0];
  char* out_base = it.data(0);
  const char* in_base = it.data(1);
  const int nthreads = threads_for(it.numel());
#pragma omp parallel for num_threads(nthreads) schedule(static) if (nthreads > 1)
  for (int64_t u = 0; u < units; ++u) {
    int64_t r = u / (t0 * t1), off_o = 0, off_i = 0;
    for (int k = 0; k < nrest; ++k) {
      const int64_t idx = r % rest_shape[k];
      r /= rest_shape[k];
      off_o += idx * rest_so[k];
      off_i += idx * rest_si[k];
    }
    const int64_t i0 = (u % t0) * B, j0 = (u / t0 % t1) * B;
    const int64_t i1 = std::min(n0, i0 + B), j1 = std::min(n1, j0 + B);
    char* out = out_base + off_o;
    const char* in = in_base + off_i;
    // Rows of the input tile into a buffer first: rows a power of two apart share L1 sets,
    // so reading them element by element across rows would evict each other.
    alignas(64) T tile[B * B];
    for (int64_t i = i0; i < i1; ++i)
      std::memcpy(&tile[(i - i0) * B], in + i * in_0 + j0 * E, static_cast<size_t>((j1 - j0) * E));
    for (int64_t j = j0; j < j1; ++j) {
      T* __restrict o = reinterpret_cast<T*>(out + j * out_d);
      for (int64_t i = i0; i < i1; ++i) o[i] = tile[(i - i0) * B + (j - j0)];
    }
  }
  return true;
}

// Same dtype: only the element size matters.
template <typename T>
void copy_same(const ElementwiseIter& it) {
  if (copy_transposed<T>(it)) return;
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
