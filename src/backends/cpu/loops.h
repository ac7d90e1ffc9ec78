// Loops over an ElementwiseIter on the CPU. A kernel supplies the innermost 1-D loop
// `fn(char** data, const int64_t* strides, int64_t n)`, which reads data[] and must not
// change it (for_each_row advances those pointers from row to row); for_each walks the
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

// Calls row(ctx, data, strides, n) for each run along dim 0 of the elements [begin, end) of
// the iteration, in order; data[] holds the operands' pointers, strides[] their dim-0
// strides. Out of line (loops.cpp): the walk over the outer dims is the same for every
// kernel, and inlined into each one it grew the kernels' code by a fifth.
using RowFn = void (*)(const void* ctx, char** data, const int64_t* strides, int64_t n);
void for_each_row(const ElementwiseIter& it, int64_t begin, int64_t end, RowFn row, const void* ctx);

// The kernel's 1-D loop behind a plain function pointer: one out-of-line copy per kernel.
template <typename F>
void run_row(const void* fn, char** data, const int64_t* strides, int64_t n) {
  (*static_cast<const F*>(fn))(data, strides, n);
}

// Elements [begin, end) of the iteration, in order.
template <typename F>
void for_each_range(const ElementwiseIter& it, int64_t begin, int64_t end, const F& fn) {
  for_each_row(it, begin, end, &run_row<F>, &fn);
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
