// The loops every unary kernel goes through. An op supplies a scalar function and, for
// float and double, optionally a vector one (vec_math.h); `apply` then picks the path:
//  - float/double with a vector form: contiguous runs are processed in place, strided runs
//    are gathered into a small stack buffer, and the last partial vector is padded, so every
//    layout goes through the same vector code and gives bit-identical results;
//  - bfloat16/float16: converted to float a chunk at a time (in registers where the ISA
//    allows), computed in float, rounded once;
//  - everything else: the scalar function in basic_loops.h's inner loop, which the compiler
//    vectorizes for the simple ops.
#pragma once

#include <cstring>
#include <type_traits>

#include "backends/cpu/kernels/basic_loops.h"
#include "backends/cpu/kernels/vec_math.h"
#include "backends/cpu/pointwise_stubs.h"
#include "core/convert.h"

namespace ember::cpu {
namespace EMBER_ISA_NAMESPACE {

// Marks an op without a vector form.
struct NoVec {};

template <typename T>
constexpr bool is_vec_float_v = std::is_same_v<T, float> || std::is_same_v<T, double>;

// Only outputs of 1 GiB and more bypass the cache with streaming stores. At 32 MB and more
// (the earlier threshold) they made the 16M out= workloads slower on this project's VM, in
// A/B runs of benchmarks/run.py: muladd_16M_out 0.93-0.95x -> 0.98-0.99x torch, exp_16M_out
// 1.28-1.56x -> 1.72-1.95x, to_f16_16M 0.98x -> 1.03-1.42x; fresh outputs unchanged.
constexpr int64_t kStreamBytes = int64_t(1) << 30;
constexpr int64_t kChunk = 256;  // elements gathered per strided or converted block

inline bool stream_output(const ElementwiseIter& it, int64_t threshold = kStreamBytes) {
  return it.numel() * static_cast<int64_t>(it.operand(0).element_size()) >= threshold;
}

// When the output sits just above the input modulo 4 KiB, each store makes the CPU suspect
// a dependency with the loads that follow it ("4K aliasing"), which made exp 3x slower on
// such array pairs. Then compute a block into a stack buffer first and copy it out after,
// so that loads and stores to aliasing addresses are far apart in time.
constexpr int64_t kAliasWindow = 512;  // bytes
constexpr int64_t kBounceBytes = 4096;

inline bool aliases_4k(const void* out, const void* in) {
  auto d = static_cast<int64_t>((reinterpret_cast<uintptr_t>(out) - reinterpret_cast<uintptr_t>(in)) & 4095u);
  return out != in && d > 0 && d < kAliasWindow;
}

// Copies n elements to out with streaming stores where out is aligned to a vector.
template <typename T>
void stream_copy(T* out, const T* buf, int64_t n) {
  constexpr int N = vec::kBytes / static_cast<int>(sizeof(T));
  int64_t i = 0;
  if (reinterpret_cast<uintptr_t>(out) % vec::kBytes == 0) {
    for (; i + N <= n; i += N) vec::stream(out + i, vec::load<vec::vf>(buf + i));
  }
  if (i < n) std::memcpy(out + i, buf + i, static_cast<size_t>(n - i) * sizeof(T));
}

template <typename T, typename F>
void vec_block(T* out, const T* in, int64_t n, const F& f, bool stream = false);

template <typename T, typename F>
void vec_block_bounced(T* out, const T* in, int64_t n, const F& f, bool stream) {
  constexpr int64_t M = kBounceBytes / static_cast<int64_t>(sizeof(T));
  alignas(64) T buf[M];
  for (int64_t b = 0; b < n; b += M) {
    const int64_t m = std::min(M, n - b);
    vec_block<T>(buf, in + b, m, f);
    if (stream) stream_copy(out + b, buf, m);
    else std::memcpy(out + b, buf, static_cast<size_t>(m) * sizeof(T));
  }
  if (stream) _mm_sfence();
}

// out[i] = f(in[i]) for contiguous arrays (out may equal in). The last partial vector is
// computed on a padded copy so that it matches the full vectors bit for bit.
template <typename T, typename F>
void vec_block(T* out, const T* in, int64_t n, const F& f, bool stream) {
  using V = vec::Vec<T>;
  constexpr int N = vec::width<T>;
  if (n > kBounceBytes / static_cast<int64_t>(sizeof(T)) && aliases_4k(out, in))
    return vec_block_bounced<T>(out, in, n, f, stream);
  int64_t i = 0;
  if (stream) {
    // Align the output for streaming stores (the head goes through the padded path below).
    int64_t head = (-(reinterpret_cast<uintptr_t>(out) / sizeof(T))) & (N - 1);
    if (reinterpret_cast<uintptr_t>(out) % sizeof(T) == 0 && head < n) {
      if (head) vec_block<T>(out, in, head, f);
      i = head;
      for (; i + N <= n; i += N) vec::stream(out + i, f(vec::load<V>(in + i)));
      _mm_sfence();
    }
  }
  for (; i + 2 * N <= n; i += 2 * N) {
    V a = vec::load<V>(in + i), b = vec::load<V>(in + i + N);
    vec::store(out + i, f(a));
    vec::store(out + i + N, f(b));
  }
  for (; i + N <= n; i += N) vec::store(out + i, f(vec::load<V>(in + i)));
  if (i < n) {
    alignas(64) T buf[N] = {};
    std::memcpy(buf, in + i, static_cast<size_t>(n - i) * sizeof(T));
    vec::store(buf, f(vec::load<V>(buf)));
    std::memcpy(out + i, buf, static_cast<size_t>(n - i) * sizeof(T));
  }
}

// A 1-D run of T -> T through vec_block, whatever the strides.
template <typename T, typename F>
void vec_run(char** d, const int64_t* s, int64_t n, const F& f, bool stream) {
  if (s[0] == sizeof(T) && s[1] == sizeof(T)) {
    vec_block<T>(reinterpret_cast<T*>(d[0]), reinterpret_cast<const T*>(d[1]), n, f, stream);
    return;
  }
  if (s[1] == 0) {  // a broadcast input: one value
    T v = load<T>(d[1]);
    vec_block<T>(&v, &v, 1, f);
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(d[0] + i * s[0]) = v;
    return;
  }
  alignas(64) T buf[kChunk];
  for (int64_t base = 0; base < n; base += kChunk) {
    const int64_t m = std::min(kChunk, n - base);
    const char* in = d[1] + base * s[1];
    char* out = d[0] + base * s[0];
    for (int64_t k = 0; k < m; ++k) buf[k] = load<T>(in + k * s[1]);
    if (s[0] == sizeof(T)) {
      vec_block<T>(reinterpret_cast<T*>(out), buf, m, f);
    } else {
      vec_block<T>(buf, buf, m, f);
      for (int64_t k = 0; k < m; ++k) *reinterpret_cast<T*>(out + k * s[0]) = buf[k];
    }
  }
}

// ---------------------------------------------------------------- 16-bit floats <-> float
// One vector of 16-bit floats to and from float, in registers: bfloat16 by integer shifts
// (vec_math.h), float16 by F16C where the build has it.
template <typename H>
constexpr bool has_vec_convert = std::is_same_v<H, BFloat16>
#if defined(__F16C__) || defined(__AVX512F__)
                                 || std::is_same_v<H, Half>
#endif
    ;

template <typename H>
inline vec::vf to_float_vec(const void* p) {
  if constexpr (std::is_same_v<H, BFloat16>) {
    return vec::bf16_to_float(vec::load<vec::vh>(p));
  } else {
#if defined(__AVX512F__)
    // maskz: GCC 12 warns about the undefined source operand of the plain forms.
    return (vec::vf)_mm512_maskz_cvtph_ps(__mmask16(0xffff), _mm256_loadu_si256(static_cast<const __m256i*>(p)));
#elif defined(__F16C__)
    return (vec::vf)_mm256_cvtph_ps(_mm_loadu_si128(static_cast<const __m128i*>(p)));
#else
    static_assert(sizeof(H) == 0, "no vector float16 conversion in this build");
#endif
  }
}

template <typename H>
inline void from_float_vec(void* p, vec::vf v) {
  if constexpr (std::is_same_v<H, BFloat16>) {
    vec::store(p, vec::float_to_bf16(v));
  } else {
#if defined(__AVX512F__)
    _mm256_storeu_si256(static_cast<__m256i*>(p), _mm512_maskz_cvtps_ph(__mmask16(0xffff), (__m512)v,
                                                                        _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#elif defined(__F16C__)
    _mm_storeu_si128(static_cast<__m128i*>(p), _mm256_cvtps_ph((__m256)v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#else
    static_assert(sizeof(H) == 0, "no vector float16 conversion in this build");
#endif
  }
}

// m elements at p (byte stride `stride`) into buf as float.
template <typename H>
void widen(float* buf, const char* p, int64_t stride, int64_t m) {
  constexpr int N = vec::width<float>;
  int64_t k = 0;
  if (stride == 0) {  // a broadcast value
    const float v = static_cast<float>(load<H>(p));
    for (; k < m; ++k) buf[k] = v;
    return;
  }
  if constexpr (has_vec_convert<H>) {
    if (stride == sizeof(H))
      for (; k + N <= m; k += N) vec::store(buf + k, to_float_vec<H>(p + k * sizeof(H)));
  }
  for (; k < m; ++k) buf[k] = static_cast<float>(load<H>(p + k * stride));
}

// m floats from buf rounded into H at p (byte stride `stride`).
template <typename H>
void narrow(char* p, int64_t stride, const float* buf, int64_t m) {
  constexpr int N = vec::width<float>;
  int64_t k = 0;
  if constexpr (has_vec_convert<H>) {
    if (stride == sizeof(H))
      for (; k + N <= m; k += N) from_float_vec<H>(p + k * sizeof(H), vec::load<vec::vf>(buf + k));
  }
  for (; k < m; ++k) *reinterpret_cast<H*>(p + k * stride) = H(buf[k]);
}

// out = f(in...) over n contiguous 16-bit floats, each input contiguous (stride sizeof(H))
// or broadcast (stride 0), entirely in registers; f takes and returns float vectors. The
// tail goes through padded buffers, so it rounds exactly like the full vectors.
template <typename H, int NIn, typename F>
void fused_run(char** d, const int64_t* s, int64_t n, const F& f) {
  constexpr int W = vec::width<float>;
  vec::vf splats[NIn] = {};  // read only for broadcast inputs (initialized: GCC cannot tell)
  for (int j = 0; j < NIn; ++j)
    if (s[j + 1] == 0) splats[j] = vec::splat(static_cast<float>(load<H>(d[j + 1])));
  auto input = [&](int j, int64_t i) {
    return s[j + 1] == 0 ? splats[j] : to_float_vec<H>(d[j + 1] + i * static_cast<int64_t>(sizeof(H)));
  };
  auto compute = [&](int64_t i) {
    if constexpr (NIn == 1) return f(input(0, i));
    else if constexpr (NIn == 2) return f(input(0, i), input(1, i));
    else return f(input(0, i), input(1, i), input(2, i));
  };
  int64_t i = 0;
  for (; i + W <= n; i += W) from_float_vec<H>(d[0] + i * static_cast<int64_t>(sizeof(H)), compute(i));
  if (i < n) {
    const int64_t m = n - i;
    alignas(64) H tail_in[NIn][W] = {};
    alignas(64) H tail_out[W];
    char* ptrs[NIn + 1];
    int64_t strides[NIn + 1];
    ptrs[0] = reinterpret_cast<char*>(tail_out);
    strides[0] = sizeof(H);
    for (int j = 0; j < NIn; ++j) {
      if (s[j + 1] != 0) std::memcpy(tail_in[j], d[j + 1] + i * static_cast<int64_t>(sizeof(H)), static_cast<size_t>(m) * sizeof(H));
      ptrs[j + 1] = s[j + 1] == 0 ? d[j + 1] : reinterpret_cast<char*>(tail_in[j]);
      strides[j + 1] = s[j + 1];
    }
    fused_run<H, NIn>(ptrs, strides, W, f);
    std::memcpy(d[0] + i * static_cast<int64_t>(sizeof(H)), tail_out, static_cast<size_t>(m) * sizeof(H));
  }
}

// Whether a run can take fused_run: contiguous output, inputs contiguous or broadcast.
template <typename H>
inline bool fusable(const int64_t* s, int nin) {
  if (s[0] != sizeof(H)) return false;
  for (int j = 1; j <= nin; ++j)
    if (s[j] != 0 && s[j] != sizeof(H)) return false;
  return true;
}

// ---------------------------------------------------------------- the driver
// Work per element relative to a copy: transcendental ops thread at smaller sizes.
constexpr int64_t kMathGrain = kGrainSize / 4;

// out = f(in) with out and in of dtype T; vf is the vector form (or NoVec). f receives the
// op-math type (float for the 16-bit floats).
template <typename T, typename F, typename VF>
void apply(const ElementwiseIter& it, const F& f, const VF& vf, int64_t grain = kGrainSize) {
  constexpr bool has_vec = !std::is_same_v<VF, NoVec>;
  if constexpr (is_vec_float_v<T> && has_vec) {
    const bool stream = stream_output(it);
    for_each(it, [&](char** d, const int64_t* s, int64_t n) { vec_run<T>(d, s, n, vf, stream); }, grain);
  } else if constexpr (is_reduced_float_v<T>) {
    for_each(it, [&](char** d, const int64_t* s, int64_t n) {
      if constexpr (has_vec && has_vec_convert<T>) {
        if (fusable<T>(s, 1)) return fused_run<T, 1>(d, s, n, vf);
      }
      alignas(64) float buf[kChunk];
      for (int64_t base = 0; base < n; base += kChunk) {
        const int64_t m = std::min(kChunk, n - base);
        widen<T>(buf, d[1] + base * s[1], s[1], m);
        if constexpr (has_vec) {
          vec_block<float>(buf, buf, m, vf);
        } else {
          for (int64_t k = 0; k < m; ++k) buf[k] = static_cast<float>(f(buf[k]));
        }
        narrow<T>(d[0] + base * s[0], s[0], buf, m);
      }
    }, grain);
  } else {
    for_each(it, [&](char** d, const int64_t* s, int64_t n) { unary_loop<T, T>(d, s, n, f); }, grain);
  }
}

// out = f(in) with different dtypes (predicates into bool, complex into real); no vectors.
template <typename Out, typename In, typename F>
void apply_to(const ElementwiseIter& it, const F& f) {
  for_each(it, [&](char** d, const int64_t* s, int64_t n) {
    if constexpr (is_reduced_float_v<In>) {
      unary_loop<Out, In>(d, s, n, [&](In x) { return f(static_cast<float>(x)); });
    } else {
      unary_loop<Out, In>(d, s, n, f);
    }
  });
}

}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
