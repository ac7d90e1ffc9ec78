// Kernel slots of sorting, selection, uniqueness, searching and histograms (ops/sort*.cpp);
// kernels/sort*.cpp fill them. Row kernels read `rows` contiguous rows of `n` elements (the
// op moves the dim to the end and makes the input contiguous first) and write contiguous
// outputs. Elements order as PyTorch sorts them: NaN after every number (all NaNs equal),
// -0.0 equal to 0.0; complex is not ordered.
#pragma once

#include <cstdint>

#include "backends/cpu/capability.h"
#include "ember/dtype.h"

namespace ember::cpu {

struct SortRows {
  const char* in = nullptr;
  ScalarType dtype = ScalarType::Undefined;
  int64_t rows = 0, n = 0;
  char* values = nullptr;      // [rows, m] of dtype (m: n for sort, k for topk, 1 for selections)
  int64_t* indices = nullptr;  // [rows, m] positions within the row
};

// Sorted rows: ascending or descending; ties always keep their order (a stable sort is a
// valid unstable one).
using SortFn = void (*)(const SortRows&, bool descending);
// The k largest (or smallest) of each row, in order, ties by position.
using TopkFn = void (*)(const SortRows&, int64_t k, bool largest);
// One element per row:
//  - Kth: the k-th smallest (k from 1), ties by position.
//  - Median: the ((n-1)/2)-th smallest, or the first NaN when the row has one.
//  - NanMedian: the median of the non-NaN elements (NaN, first index, when all are NaN).
//  - Mode: the most frequent value (smallest of equally frequent ones), its last position.
enum class SelectOp : int { Kth, Median, NanMedian, Mode };
using SelectFn = void (*)(const SortRows&, SelectOp, int64_t k);
// Quantiles q[0..nq) of each row (float or double) into values [nq, rows]; NaN rows give NaN
// unless ignore_nan (then NaNs are dropped; all-NaN rows give NaN).
enum class Interpolation : int { Linear, Lower, Higher, Midpoint, Nearest };
using QuantileFn = void (*)(const SortRows&, const double* q, int64_t nq, Interpolation, bool ignore_nan);

// Uniqueness over n slices of m contiguous elements (m = 1: elements):
//  - runs: run[i] = the number of the group of equal neighbours holding slice i (NaN equals
//    nothing, -0.0 equals 0.0); returns the number of groups.
//  - slice sort: a stable lexicographic order of the slices (in sort order per element).
using RunsFn = int64_t (*)(const char* data, ScalarType dtype, int64_t n, int64_t m, int64_t* run);
using SliceSortFn = void (*)(const char* data, ScalarType dtype, int64_t n, int64_t m, int64_t* order);

extern Stub<SortFn> sort_stub;
extern Stub<RunsFn> runs_stub;
extern Stub<SliceSortFn> slice_sort_stub;
extern Stub<TopkFn> topk_stub;
extern Stub<SelectFn> select_stub;
extern Stub<QuantileFn> quantile_stub;

// ---- searching and counting (ops/sort_search.cpp)
// For each of the `m` values of each of `rows` rows, the insertion point into the
// corresponding sorted row of `seq` (rows of n, or one row shared when seq_rows == 1);
// `sorter` (optional, int64 [seq_rows, n]) gives the order of an unsorted seq. values and seq
// have the same dtype; the result is int64 or int32.
struct SearchLoop {
  const char* seq = nullptr;
  const int64_t* sorter = nullptr;
  const char* values = nullptr;
  ScalarType dtype = ScalarType::Undefined;
  int64_t seq_rows = 1, n = 0, rows = 1, m = 0;
  void* out = nullptr;
  bool out_int32 = false, right = false;
};
using SearchFn = void (*)(const SearchLoop&);
// Counts of n contiguous elements of `dtype` in `bins` equal-width bins over [lo, hi] (the last
// bin closed; elements outside or NaN are skipped), each adding its weight (of the output's
// dtype, contiguous) or 1, into `out` (float or double, zeroed by the caller).
using HistFn = void (*)(const char* in, ScalarType dtype, int64_t n, const char* weight, int64_t bins, double lo,
                        double hi, char* out, ScalarType out_dtype);
// Counts of n elements into bins given by sorted `edges` (bins + 1 of `dtype`): the last bin
// closed.
using HistEdgesFn = void (*)(const char* in, ScalarType dtype, int64_t n, const char* weight, const char* edges,
                             int64_t bins, char* out, ScalarType out_dtype);
extern Stub<SearchFn> search_stub;
extern Stub<HistFn> hist_stub;
extern Stub<HistEdgesFn> hist_edges_stub;

}  // namespace ember::cpu
