// Kernel slots of the shape family (ops/shape.cpp): tril/triu.
#pragma once

#include <cstdint>

#include "backends/cpu/capability.h"

namespace ember::cpu {

// A batch of matrices: out[b][i][j] = keep(i, j) ? in[b][i][j] : 0, where keep is j - i <= k
// (tril) or j - i >= k (triu). `in` may be `out` (in place: only the zeros are written).
// Strides in bytes; the batch dims are listed innermost first.
struct TriangleLoop {
  static constexpr int kMaxDims = 25;
  char* out = nullptr;
  const char* in = nullptr;
  int64_t elem_size = 0;
  int nbatch = 0;
  int64_t batch_sizes[kMaxDims] = {};
  int64_t out_batch_strides[kMaxDims] = {};
  int64_t in_batch_strides[kMaxDims] = {};
  int64_t rows = 0, cols = 0;
  int64_t out_row_stride = 0, out_col_stride = 0, in_row_stride = 0, in_col_stride = 0;
  int64_t k = 0;
  bool upper = false;
  bool serial = false;  // out has elements reachable twice (an expanded tensor): no threads
};
using TriangleFn = void (*)(const TriangleLoop&);
extern Stub<TriangleFn> triangle_stub;

}  // namespace ember::cpu
