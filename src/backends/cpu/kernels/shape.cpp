// tril / triu (TriangleLoop, backends/cpu/shape_stubs.h). Each row of each matrix is a kept
// run of columns and a zeroed run: memcpy and memset when the columns are contiguous.
// Moving bytes gains nothing from wide vectors: only the Default build defines it.
#include "backends/cpu/capability.h"

#if EMBER_ISA_DEFAULT
#include <omp.h>

#include <algorithm>
#include <cstring>

#include "backends/cpu/loops.h"
#include "backends/cpu/shape_stubs.h"

namespace ember::cpu {
namespace EMBER_ISA_NAMESPACE {
namespace {

using Loop = TriangleLoop;

// Columns [b, e) of a row: copied (keep) or zeroed.
void row_part(const Loop& l, char* o, const char* in, int64_t b, int64_t e, bool keep) {
  if (b >= e) return;
  const int64_t w = l.elem_size;
  if (keep && o == in) return;  // in place: kept elements stay
  if (l.out_col_stride == w && (!keep || l.in_col_stride == w)) {
    if (keep) std::memcpy(o + b * w, in + b * w, static_cast<size_t>((e - b) * w));
    else std::memset(o + b * w, 0, static_cast<size_t>((e - b) * w));
    return;
  }
  for (int64_t j = b; j < e; ++j) {
    char* d = o + j * l.out_col_stride;
    if (keep) std::memcpy(d, in + j * l.in_col_stride, static_cast<size_t>(w));
    else std::memset(d, 0, static_cast<size_t>(w));
  }
}

// Rows [r0, r1) of the flattened (batch, row) space.
void rows(const Loop& l, int64_t r0, int64_t r1) {
  int64_t idx[Loop::kMaxDims] = {};
  int64_t rest = r0 / l.rows;
  int64_t ob = 0, ib = 0;
  for (int d = 0; d < l.nbatch; ++d) {
    idx[d] = rest % l.batch_sizes[d];
    rest /= l.batch_sizes[d];
    ob += idx[d] * l.out_batch_strides[d];
    ib += idx[d] * l.in_batch_strides[d];
  }
  int64_t i = r0 % l.rows;
  for (int64_t r = r0; r < r1; ++r) {
    char* o = l.out + ob + i * l.out_row_stride;
    const char* in = l.in + ib + i * l.in_row_stride;
    // Kept columns: j <= i + k (tril) or j >= i + k (triu).
    if (l.upper) {
      const int64_t first = std::clamp<int64_t>(i + l.k, 0, l.cols);
      row_part(l, o, in, 0, first, false);
      row_part(l, o, in, first, l.cols, true);
    } else {
      const int64_t end = std::clamp<int64_t>(i + l.k + 1, 0, l.cols);
      row_part(l, o, in, 0, end, true);
      row_part(l, o, in, end, l.cols, false);
    }
    if (++i == l.rows) {
      i = 0;
      for (int d = 0; d < l.nbatch; ++d) {
        ob += l.out_batch_strides[d];
        ib += l.in_batch_strides[d];
        if (++idx[d] < l.batch_sizes[d]) break;
        ob -= l.out_batch_strides[d] * l.batch_sizes[d];
        ib -= l.in_batch_strides[d] * l.batch_sizes[d];
        idx[d] = 0;
      }
    }
  }
}

void triangle_kernel(const Loop& l) {
  int64_t batch = 1;
  for (int d = 0; d < l.nbatch; ++d) batch *= l.batch_sizes[d];
  const int64_t nrows = batch * l.rows;
  if (nrows == 0 || l.cols == 0) return;
  const int nt = l.serial ? 1 : threads_for(nrows * l.cols);
  if (nt <= 1) return rows(l, 0, nrows);
#pragma omp parallel num_threads(nt)
  {
    const int64_t t = omp_get_thread_num(), T = omp_get_num_threads();
    rows(l, nrows * t / T, nrows * (t + 1) / T);
  }
}

}  // namespace

EMBER_REGISTER_STUB(triangle_stub, &triangle_kernel);
}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
#endif  // EMBER_ISA_DEFAULT
