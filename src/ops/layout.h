// Memory layouts of 4-D and 5-D activations, shared by the nn ops that keep PyTorch's
// channels-last results (conv, pooling, upsampling), and their loop over planes.
#pragma once

#include <omp.h>

#include <cstdint>

#include "ember/tensor.h"

namespace ember::layout {

// True for a non-contiguous 4-D or 5-D tensor with more than one channel whose strides are
// channels-last (NHWC / NDHWC, batch outermost), ignoring the strides of size-1 dims.
inline bool is_channels_last(const Tensor& t) {
  if ((t.dim() != 4 && t.dim() != 5) || t.is_contiguous() || t.size(1) == 1 || t.stride(1) != 1) return false;
  int64_t acc = t.size(1);
  for (int64_t d = t.dim() - 1; d >= 2; --d) {
    if (t.size(d) != 1 && t.stride(d) != acc) return false;
    acc *= t.size(d);
  }
  return t.size(0) == 1 || t.stride(0) == acc;
}

// Runs f(plane) for every (batch x channel) plane, in parallel when the work is large enough
// to pay for the threads and no parallel region is running already.
template <typename F>
void for_planes(int64_t planes, int64_t work_per_plane, const F& f) {
  const bool par = !omp_in_parallel() && planes > 1 && planes * work_per_plane > 32768;
#pragma omp parallel for schedule(static) if (par)
  for (int64_t p = 0; p < planes; ++p) f(p);
}

}  // namespace ember::layout
