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

// f over the first m elements of float chunks in[0..N) into out.
template <int N, typename F>
inline void chunk_op(float* __restrict out, float (*in)[kChunk], int64_t m, const F& f) {
  if constexpr (N == 2) {
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
    } else {
      plain_loop<T, N>(d, s, n, f);
    }
  }, grain);
}

}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
