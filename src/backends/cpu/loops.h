// Loops over an ElementwiseIter on the CPU. A kernel supplies the innermost 1-D loop
// `fn(char** data, const int64_t* strides, int64_t n)`, which reads data[] and must not
// change it (for_each_range advances those pointers from row to row); for_each walks the
// outer dims and splits large iterations across OpenMP threads.
#pragma once

#include <omp.h>

#include <algorithm>

#include "ops/iter.h"

namespace ember::cpu {

constexpr int64_t kGrainSize = 32768;  // elements below which threading does not pay

// Number of threads worth using for `work` elements of cheap work.
inline int threads_for(int64_t work, int64_t grain = kGrainSize) {
  if (work < 2 * grain || omp_in_parallel()) return 1;
  return static_cast<int>(std::min<int64_t>(omp_get_max_threads(), work / grain));
}

// The kernel's 1-D loop, kept out of line: for_each_range calls it from two places, and
// inlining it into both doubled every kernel's code and compile time.
template <typename F>
[[gnu::noinline]] void run_inner_loop(const F& fn, char** data, const int64_t* strides, int64_t n) {
  fn(data, strides, n);
}

// Elements [begin, end) of the iteration, in order.
template <typename F>
void for_each_range(const ElementwiseIter& it, int64_t begin, int64_t end, const F& fn) {
  if (begin >= end) return;  // also keeps zero-size dims out of the index math below
  constexpr int N = ElementwiseIter::kMaxOperands;
  const int nt = it.ntensors();
  const int nd = it.ndim();
  const int64_t* shape = it.loop_shape().data();
  int64_t inner_strides[N];
  for (int i = 0; i < nt; ++i) inner_strides[i] = it.strides(i)[0];
  if (nd == 1) {
    char* ptrs[N];
    for (int i = 0; i < nt; ++i) ptrs[i] = it.data(i) + begin * inner_strides[i];
    run_inner_loop(fn, ptrs, inner_strides, end - begin);
    return;
  }
  // Multi-index and operand pointers of `begin`, then advanced row by row like an odometer
  // (recomputing each row's offsets from the index took more time than adding 32 floats).
  const int64_t* st[N];
  for (int i = 0; i < nt; ++i) st[i] = it.strides(i);
  int64_t idx[ElementwiseIter::kMaxDims];
  int64_t rest = begin;
  for (int d = 0; d < nd; ++d) { idx[d] = rest % shape[d]; rest /= shape[d]; }
  char* ptrs[N];
  for (int i = 0; i < nt; ++i) {
    int64_t off = 0;
    for (int d = 0; d < nd; ++d) off += idx[d] * st[i][d];
    ptrs[i] = it.data(i) + off;
  }
  for (int64_t pos = begin;;) {
    const int64_t n = std::min(shape[0] - idx[0], end - pos);
    run_inner_loop(fn, ptrs, inner_strides, n);
    pos += n;
    if (pos >= end) break;
    if (idx[0] != 0) {  // back to the row's start (only the first row starts inside one)
      for (int i = 0; i < nt; ++i) ptrs[i] -= idx[0] * st[i][0];
      idx[0] = 0;
    }
    for (int d = 1;; ++d) {  // pos < end: the carry stops below nd
      for (int i = 0; i < nt; ++i) ptrs[i] += st[i][d];
      if (++idx[d] < shape[d]) break;
      for (int i = 0; i < nt; ++i) ptrs[i] -= shape[d] * st[i][d];
      idx[d] = 0;
    }
  }
}

template <typename F>
void for_each(const ElementwiseIter& it, const F& fn, int64_t grain = kGrainSize) {
  const int64_t n = it.numel();
  if (n == 0) return;
  int nthreads = threads_for(n, grain);
  if (nthreads <= 1) {
    for_each_range(it, 0, n, fn);
    return;
  }
#pragma omp parallel num_threads(nthreads)
  {
    int t = omp_get_thread_num(), T = omp_get_num_threads();
    int64_t chunk = (n + T - 1) / T;
    chunk = (chunk + 63) & ~int64_t(63);  // keep chunk starts cache-line friendly
    int64_t b = std::min<int64_t>(n, t * chunk), e = std::min<int64_t>(n, b + chunk);
    if (b < e) for_each_range(it, b, e, fn);
  }
}

}  // namespace ember::cpu
