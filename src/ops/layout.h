// Memory layouts of 4-D and 5-D activations, shared by the nn ops that keep PyTorch's
// channels-last results (conv, pooling, upsampling).
#pragma once

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

}  // namespace ember::layout
