// Searching and histograms: searchsorted/bucketize (binary search per value), histc (bins by
// linear interpolation over [lo, hi]) and histogram with explicit edges (binary search over
// them). The comparisons are PyTorch's, so NaN values land past the end and are never binned.
#include <algorithm>
#include <cmath>

#include "backends/cpu/kernels/basic_loops.h"
#include "backends/cpu/kernels/reduce_walk.h"
#include "backends/cpu/sort_stubs.h"
#include "core/dtype_dispatch.h"

namespace ember::cpu {
namespace isa_Default {
void search_kernel(const SearchLoop& s);
void hist_kernel(const char* in, ScalarType dtype, int64_t n, const char* weight, int64_t bins, double lo, double hi,
                 char* out, ScalarType out_dtype);
void hist_edges_kernel(const char* in, ScalarType dtype, int64_t n, const char* weight, const char* edges, int64_t bins,
                       char* out, ScalarType out_dtype);
}  // namespace isa_Default
namespace EMBER_ISA_NAMESPACE {
namespace {

template <typename T>
void search_typed(const SearchLoop& s) {
  using M = opmath_t<T>;
  const T* seq = reinterpret_cast<const T*>(s.seq);
  const T* vals = reinterpret_cast<const T*>(s.values);
  const int64_t total = s.rows * s.m;
  parallel_range(total, 32, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      const int64_t r = s.seq_rows == 1 ? 0 : i / s.m;
      const T* row = seq + r * s.n;
      const int64_t* order = s.sorter ? s.sorter + r * s.n : nullptr;
      const M v = static_cast<M>(vals[i]);
      int64_t lo = 0, hi = s.n;
      while (lo < hi) {
        const int64_t mid = lo + ((hi - lo) >> 1);
        const M x = static_cast<M>(row[order ? order[mid] : mid]);
        const bool go_right = s.right ? !(x > v) : !(x >= v);
        if (go_right) lo = mid + 1;
        else hi = mid;
      }
      if (s.out_int32) static_cast<int32_t*>(s.out)[i] = static_cast<int32_t>(lo);
      else static_cast<int64_t*>(s.out)[i] = lo;
    }
  });
}

// The bin of v in [left, right] by linear interpolation, in T's arithmetic: the 16-bit float
// types round after every operation, as PyTorch's Half/BFloat16 operators do.
template <typename T>
int64_t linear_bin(T v, T left, T right, int64_t bins) {
  if constexpr (is_reduced_float_v<T>) {
    const T d = T(static_cast<float>(v) - static_cast<float>(left));
    const T m = T(static_cast<float>(d) * static_cast<float>(T(static_cast<float>(bins))));
    const T width = T(static_cast<float>(right) - static_cast<float>(left));
    return static_cast<int64_t>(static_cast<float>(T(static_cast<float>(m) / static_cast<float>(width))));
  } else {
    return static_cast<int64_t>((v - left) * static_cast<T>(bins) / (right - left));
  }
}

template <typename T>
void hist_typed(const char* in, int64_t n, const char* weight, int64_t bins, double lo, double hi, char* out) {
  using M = opmath_t<T>;
  const T* x = reinterpret_cast<const T*>(in);
  const T* w = reinterpret_cast<const T*>(weight);
  T* h = reinterpret_cast<T*>(out);
  const T tl = static_cast<T>(lo), tr = static_cast<T>(hi);
  const M left = static_cast<M>(tl), right = static_cast<M>(tr);
  for (int64_t i = 0; i < n; ++i) {
    const M v = static_cast<M>(x[i]);
    if (!(v >= left && v <= right)) continue;
    int64_t pos = linear_bin<T>(x[i], tl, tr, bins);
    if (pos == bins) pos -= 1;
    h[pos] = static_cast<T>(static_cast<M>(h[pos]) + (w ? static_cast<M>(w[i]) : M(1)));
  }
}

template <typename T>
void hist_edges_typed(const char* in, int64_t n, const char* weight, const char* edges_p, int64_t bins, char* out) {
  using M = opmath_t<T>;
  const T* x = reinterpret_cast<const T*>(in);
  const T* w = reinterpret_cast<const T*>(weight);
  const T* edges = reinterpret_cast<const T*>(edges_p);
  T* h = reinterpret_cast<T*>(out);
  const M left = static_cast<M>(edges[0]), right = static_cast<M>(edges[bins]);
  for (int64_t i = 0; i < n; ++i) {
    const M v = static_cast<M>(x[i]);
    if (!(v >= left && v <= right)) continue;
    int64_t pos = std::upper_bound(edges, edges + bins + 1, v, [](M a, T e) { return a < static_cast<M>(e); }) - edges - 1;
    if (pos == bins) pos -= 1;
    h[pos] = static_cast<T>(static_cast<M>(h[pos]) + (w ? static_cast<M>(w[i]) : M(1)));
  }
}

}  // namespace

void search_kernel(const SearchLoop& s) {
  EMBER_DISPATCH_KERNEL(s.dtype, "searchsorted", search_kernel(s), [&] {
    if constexpr (is_complex_v<scalar_t> || std::is_same_v<scalar_t, bool>)
      EMBER_FAIL(RuntimeError, "\"searchsorted_out_cpu\" not implemented for '", s.dtype, "'");
    else search_typed<scalar_t>(s);
  });
}
void hist_kernel(const char* in, ScalarType dtype, int64_t n, const char* weight, int64_t bins, double lo, double hi,
                 char* out, ScalarType out_dtype) {
  EMBER_DISPATCH_KERNEL(dtype, "histc", hist_kernel(in, dtype, n, weight, bins, lo, hi, out, out_dtype), [&] {
    if constexpr (std::is_floating_point_v<opmath_t<scalar_t>>) {
      EMBER_INTERNAL_ASSERT(out_dtype == dtype, "histc into ", out_dtype);
      hist_typed<scalar_t>(in, n, weight, bins, lo, hi, out);
    } else {
      EMBER_FAIL(RuntimeError, "\"histogram_cpu\" not implemented for '", dtype, "'");
    }
  });
}
void hist_edges_kernel(const char* in, ScalarType dtype, int64_t n, const char* weight, const char* edges, int64_t bins,
                       char* out, ScalarType out_dtype) {
  EMBER_DISPATCH_KERNEL(dtype, "histogram", hist_edges_kernel(in, dtype, n, weight, edges, bins, out, out_dtype), [&] {
    if constexpr (std::is_floating_point_v<opmath_t<scalar_t>>) {
      EMBER_INTERNAL_ASSERT(out_dtype == dtype, "histogram into ", out_dtype);
      hist_edges_typed<scalar_t>(in, n, weight, edges, bins, out);
    } else {
      EMBER_FAIL(RuntimeError, "\"histogramdd\" not implemented for '", dtype, "'");
    }
  });
}

EMBER_REGISTER_STUB(search_stub, &search_kernel);
EMBER_REGISTER_STUB(hist_stub, &hist_kernel);
EMBER_REGISTER_STUB(hist_edges_stub, &hist_edges_kernel);

}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
