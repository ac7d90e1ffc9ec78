// Shared pieces of the reduction kernels (kernels/reduce*.cpp): the vector width of this
// build, walks over a ReduceLoop's kept and reduced dims, and thread splitting whose chunk
// bounds depend only on the sizes (so results do not depend on the thread count).
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

#include "backends/cpu/capability.h"
#include "backends/cpu/loops.h"
#include "ops/reduce.h"

namespace ember::cpu {
namespace EMBER_ISA_NAMESPACE {
namespace {

#if defined(__AVX512F__)
constexpr int kVecBytes = 64;
#elif defined(__AVX2__)
constexpr int kVecBytes = 32;
#else
constexpr int kVecBytes = 16;
#endif

// Fewer outputs than this, each reducing at least kChunkMin elements: split each reduction
// into chunks (thread-count independent, so results do not depend on the thread count).
constexpr int64_t kFewOutputs = 8;
constexpr int64_t kChunkMin = 32768;
constexpr int kMaxChunks = 64;

// Multi-index walk over dims `first..n-1` of (sizes, strides): the byte offset of linear
// position `pos` (dim `first` innermost).
struct Walker {
  int n = 0;
  const int64_t* size = nullptr;
  const int64_t* stride = nullptr;
  int64_t idx[ReduceLoop::kMaxDims] = {};
  int64_t offset = 0;
  Walker(int ndim, const int64_t* sizes, const int64_t* strides, int64_t pos)
      : n(ndim), size(sizes), stride(strides) {
    for (int d = 0; d < n; ++d) {
      idx[d] = pos % size[d];
      pos /= size[d];
      offset += idx[d] * stride[d];
    }
  }
  void next() {
    for (int d = 0; d < n; ++d) {
      if (++idx[d] < size[d]) { offset += stride[d]; return; }
      offset -= (size[d] - 1) * stride[d];
      idx[d] = 0;
    }
  }
};

// Offsets of outputs in the loop's kept dims: input and output byte offsets per position.
struct KeptWalker {
  int n;
  const ReduceLoop& L;
  int first;
  int64_t idx[ReduceLoop::kMaxDims] = {};
  int64_t in_off = 0, out_off[ReduceLoop::kMaxOutputs] = {};
  KeptWalker(const ReduceLoop& loop, int first_dim, int64_t pos) : n(loop.nkept), L(loop), first(first_dim) {
    for (int d = first; d < n; ++d) {
      idx[d] = pos % L.kept_size[d];
      pos /= L.kept_size[d];
      in_off += idx[d] * L.kept_in[d];
      for (int j = 0; j < L.nout; ++j) out_off[j] += idx[d] * L.kept_out[j][d];
    }
  }
  void next() {
    for (int d = first; d < n; ++d) {
      if (++idx[d] < L.kept_size[d]) {
        in_off += L.kept_in[d];
        for (int j = 0; j < L.nout; ++j) out_off[j] += L.kept_out[j][d];
        return;
      }
      in_off -= (L.kept_size[d] - 1) * L.kept_in[d];
      for (int j = 0; j < L.nout; ++j) out_off[j] -= (L.kept_size[d] - 1) * L.kept_out[j][d];
      idx[d] = 0;
    }
  }
};

// Runs f(begin, end) over [0, n) split across threads (or inline when one suffices).
template <typename F>
void parallel_range(int64_t n, int64_t work_per_item, const F& f) {
  const int nt = threads_for(n * std::max<int64_t>(work_per_item, 1));
  if (nt <= 1 || n < 2) {
    f(int64_t(0), n);
    return;
  }
#pragma omp parallel num_threads(std::min<int64_t>(nt, n))
  {
    const int64_t t = omp_get_thread_num(), T = omp_get_num_threads();
    const int64_t b = n * t / T, e = n * (t + 1) / T;
    if (b < e) f(b, e);
  }
}

// Chunk bounds of a reduction of n elements: a function of n only.
inline int64_t chunk_length(int64_t n, int64_t granule) {
  int64_t len = std::max<int64_t>(kChunkMin, (n + kMaxChunks - 1) / kMaxChunks);
  return (len + granule - 1) / granule * granule;
}

}  // namespace
}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
