// The loops of the binary and ternary kernels: out = f(a, b) or f(a, b, c), all operands of
// one dtype T, f taking the op-math type (float for the 16-bit floats).
//  - bfloat16/float16: a chunk of each input is widened to float in registers, f runs over
//    the float chunks (the compiler vectorizes it), and the result is rounded back;
//    or, for the ops whose function also takes float vectors, entirely in registers;
//  - otherwise basic_loops.h's inner loops, which the compiler vectorizes.
#pragma once

#include "backends/cpu/kernels/unary_loops.h"

namespace ember::cpu {
namespace EMBER_ISA_NAMESPACE {

// f over the first m elements of float chunks in[0..N) into out. Functions that also take
// float vectors (the math ops, which the compiler cannot vectorize) run on vectors, the
// last partial vector on zero-padded copies.
template <int N, typename F>
inline void chunk_op(float* __restrict out, float (*in)[kChunk], int64_t m, const F& f) {
  if constexpr (N == 2 && std::is_invocable_v<const F&, vec::vf, vec::vf>) {
    using vec::vf;
    constexpr int W = vec::width<float>;
    int64_t k = 0;
    for (; k + W <= m; k += W) vec::store(out + k, f(vec::load<vf>(in[0] + k), vec::load<vf>(in[1] + k)));
    if (k < m) {
      alignas(64) float a[W] = {}, b[W] = {}, o[W];
      std::memcpy(a, in[0] + k, static_cast<size_t>(m - k) * sizeof(float));
      std::memcpy(b, in[1] + k, static_cast<size_t>(m - k) * sizeof(float));
      vec::store(o, f(vec::load<vf>(a), vec::load<vf>(b)));
      std::memcpy(out + k, o, static_cast<size_t>(m - k) * sizeof(float));
    }
  } else if constexpr (N == 2) {
    const float* __restrict a = in[0];
    const float* __restrict b = in[1];
    for (int64_t k = 0; k < m; ++k) out[k] = f(a[k], b[k]);
  } else {
    const float* __restrict a = in[0];
    const float* __restrict b = in[1];
    const float* __restrict c = in[2];
    for (int64_t k = 0; k < m; ++k) out[k] = f(a[k], b[k], c[k]);
  }
}

// out = vf(a, b) for float or double, on this build's vectors whatever the strides:
// contiguous inputs are read in place, strided and broadcast ones gathered a chunk at a
// time, and the last partial vector is computed on zero-padded copies, so every layout
// gives the same bits. For the math ops (pow), whose scalar forms do not vectorize.
template <typename T, typename VF>
void vec_binary_run(char** d, const int64_t* s, int64_t n, const VF& vf) {
  using V = vec::Vec<T>;
  constexpr int W = vec::width<T>;
  alignas(64) T buf[3][kChunk];
  for (int64_t base = 0; base < n; base += kChunk) {
    const int64_t m = std::min(kChunk, n - base);
    const T* in[2];
    for (int j = 0; j < 2; ++j) {
      const char* p = d[j + 1] + base * s[j + 1];
      if (s[j + 1] == static_cast<int64_t>(sizeof(T))) {
        in[j] = reinterpret_cast<const T*>(p);
      } else {
        for (int64_t k = 0; k < m; ++k) buf[j][k] = load<T>(p + k * s[j + 1]);
        in[j] = buf[j];
      }
    }
    const bool direct = s[0] == static_cast<int64_t>(sizeof(T));
    T* out = direct ? reinterpret_cast<T*>(d[0] + base * s[0]) : buf[2];
    int64_t k = 0;
    for (; k + W <= m; k += W) vec::store(out + k, vf(vec::load<V>(in[0] + k), vec::load<V>(in[1] + k)));
    if (k < m) {
      alignas(64) T a[W] = {}, b[W] = {}, o[W];
      std::memcpy(a, in[0] + k, static_cast<size_t>(m - k) * sizeof(T));
      std::memcpy(b, in[1] + k, static_cast<size_t>(m - k) * sizeof(T));
      vec::store(o, vf(vec::load<V>(a), vec::load<V>(b)));
      std::memcpy(out + k, o, static_cast<size_t>(m - k) * sizeof(T));
    }
    if (!direct)
      for (int64_t j = 0; j < m; ++j) *reinterpret_cast<T*>(d[0] + (base + j) * s[0]) = buf[2][j];
  }
}

// Binary and ternary float32/float64 loops stream outputs from 32 MB on: each 4 KiB block is
// computed into an L1 buffer, then copied out with streaming stores, which skip reading the
// output lines first. Interleaved A/B in one process (2026-12-05, x*y+z with out=, 16M
// float32): 1 thread 1.07-1.16x torch (1.00-1.04x with normal stores); 2 threads 0.87-1.12x
// (0.94-1.00x), the host's bandwidth swinging between runs. Unary loops store from registers
// and measured slower streamed (exp out= 1.48x vs 1.74x), so they keep kStreamBytes.
constexpr int64_t kStreamBytesBlocked = int64_t(32) << 20;

// plain_loop with the output (contiguous) streamed past the cache, block by block.
template <typename T, int N, typename F>
void plain_loop_streamed(char** d, const int64_t* s, int64_t n, const F& f) {
  constexpr int64_t M = kBounceBytes / static_cast<int64_t>(sizeof(T));
  alignas(64) T buf[M];
  const int64_t bs[4] = {static_cast<int64_t>(sizeof(T)), s[1], s[2], N == 3 ? s[3] : 0};
  for (int64_t b = 0; b < n; b += M) {
    const int64_t m = std::min(M, n - b);
    char* p[4] = {reinterpret_cast<char*>(buf), d[1] + b * s[1], d[2] + b * s[2],
                  N == 3 ? d[3] + b * s[3] : nullptr};
    if constexpr (N == 2) binary_loop<T, T, T>(p, bs, m, f);
    else ternary_loop<T, T, T, T>(p, bs, m, f);
    stream_copy(reinterpret_cast<T*>(d[0]) + b, buf, m);
  }
  _mm_sfence();
}

// The inner loop on operands already in T.
template <typename T, int N, typename F>
inline void plain_loop(char** d, const int64_t* s, int64_t n, const F& f) {
  if constexpr (N == 2) binary_loop<T, T, T>(d, s, n, f);
  else ternary_loop<T, T, T, T>(d, s, n, f);
}

// out = f(in_1, ..., in_N) over the iterator (N = 2 or 3).
template <typename T, int N, typename F>
void apply_n(const ElementwiseIter& it, const F& f, int64_t grain = kGrainSize) {
  static_assert(N == 2 || N == 3);
  const bool stream = stream_output(it);
  const bool stream_blocked = is_vec_float_v<T> && stream_output(it, kStreamBytesBlocked);
  for_each(it, [&](char** d, const int64_t* s, int64_t n) {
    if constexpr (is_reduced_float_v<T>) {
      // Ops whose function also takes float vectors run fused in registers.
      if constexpr (has_vec_convert<T> && (N == 2 ? std::is_invocable_v<const F&, vec::vf, vec::vf>
                                                  : std::is_invocable_v<const F&, vec::vf, vec::vf, vec::vf>)) {
        if (fusable<T>(s, N)) return fused_run<T, N>(d, s, n, f);
      }
      alignas(64) float in[N][kChunk];
      alignas(64) float out[kChunk];
      alignas(64) T narrowed[kChunk];
      for (int64_t base = 0; base < n; base += kChunk) {
        const int64_t m = std::min(kChunk, n - base);
        for (int j = 0; j < N; ++j) widen<T>(in[j], d[j + 1] + base * s[j + 1], s[j + 1], m);
        chunk_op<N>(out, in, m, f);
        char* o = d[0] + base * s[0];
        if (stream && s[0] == sizeof(T)) {
          narrow<T>(reinterpret_cast<char*>(narrowed), sizeof(T), out, m);
          stream_copy(reinterpret_cast<T*>(o), narrowed, m);
        } else {
          narrow<T>(o, s[0], out, m);
        }
      }
      if (stream) _mm_sfence();
    } else if (stream_blocked && s[0] == sizeof(T)) {
      plain_loop_streamed<T, N>(d, s, n, f);
    } else {
      plain_loop<T, N>(d, s, n, f);
    }
  }, grain);
}

}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
