// The row walk of for_each_range (loops.h), shared by every kernel.
#include "backends/cpu/loops.h"

namespace ember::cpu {

void for_each_row(const ElementwiseIter& it, int64_t begin, int64_t end, RowFn row, const void* ctx) {
  if (begin >= end) return;  // also keeps zero-size dims out of the index math below
  constexpr int N = ElementwiseIter::kMaxOperands;
  const int nt = it.ntensors();
  const int nd = it.ndim();
  const int64_t* shape = it.loop_shape().data();
  const int64_t* st[N];
  int64_t inner_strides[N];
  for (int i = 0; i < nt; ++i) {
    st[i] = it.strides(i);
    inner_strides[i] = st[i][0];
  }
  char* ptrs[N];
  if (nd == 1) {
    for (int i = 0; i < nt; ++i) ptrs[i] = it.data(i) + begin * inner_strides[i];
    row(ctx, ptrs, inner_strides, end - begin);
    return;
  }
  // Multi-index and operand pointers of `begin`, then advanced row by row like an odometer
  // (recomputing each row's offsets from the index took more time than adding 32 floats).
  // The kernels read data[] and must not change it.
  int64_t idx[ElementwiseIter::kMaxDims];
  int64_t rest = begin;
  for (int d = 0; d < nd; ++d) {
    idx[d] = rest % shape[d];
    rest /= shape[d];
  }
  for (int i = 0; i < nt; ++i) {
    int64_t off = 0;
    for (int d = 0; d < nd; ++d) off += idx[d] * st[i][d];
    ptrs[i] = it.data(i) + off;
  }
  for (int64_t pos = begin;;) {
    const int64_t n = std::min(shape[0] - idx[0], end - pos);
    row(ctx, ptrs, inner_strides, n);
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

}  // namespace ember::cpu
