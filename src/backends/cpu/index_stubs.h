// Kernel slots of the gather/scatter family: gather, scatter*, index_select, index_add,
// index_copy, index_fill, take, put_, take_along_dim (ops/index_scatter.cpp and
// ops/index_select.cpp). Every one of them is a loop over the shape of an index tensor in
// which one dim of `self` is addressed through the index instead of the loop counter.
#pragma once

#include <cstdint>

#include "backends/cpu/capability.h"
#include "ember/dtype.h"

namespace ember::cpu {

enum class ScatterOp : int { Assign, Add, Mul, Max, Min };

// The loop over the index's shape. Three operands with byte strides per loop dim:
// self (stride 0 along the indexed dim: the index supplies that coordinate), the index
// (int64), and `other`: the output of a gather, or the source of a scatter (all strides 0
// for a single value).
struct DimIndexLoop {
  static constexpr int kMaxDims = 25;
  int ndim = 0;  // dims innermost first
  int64_t sizes[kMaxDims] = {};
  int64_t self_strides[kMaxDims] = {};
  int64_t index_strides[kMaxDims] = {};
  int64_t other_strides[kMaxDims] = {};
  // The loop dim the index runs along: a scatter never splits it across threads, so each
  // element of self receives its updates in index order (deterministic). -1 when it was
  // dropped (size 1).
  int indexed = -1;
  char* self = nullptr;
  const char* index = nullptr;
  char* other = nullptr;
  int64_t dim_size = 0;    // valid indices are [0, dim_size)
  int64_t dim_stride = 0;  // self's byte stride along the indexed dim
  ScalarType dtype = ScalarType::Undefined;
  bool serial = false;  // self has elements written through several positions (index_fill_ on
                        // an expanded tensor): no threads
  // Scatter: check indices while writing (a fresh output may be left half written), or all
  // of them before anything is written (in place). Neither: they were checked already.
  bool check = false;
  bool check_first = false;
};

// other[i] = self[.., index[i], ..]. Returns false (other then partly written) when an index
// lies outside [0, dim_size).
using GatherFn = bool (*)(const DimIndexLoop&);
// self[.., index[i], ..] op= other[i]. Returns false on an index outside [0, dim_size) when
// `check` (self then partly written) or `check_first` (self unchanged) is set; with neither,
// the indices must have been checked.
using ScatterFn = bool (*)(const DimIndexLoop&, ScatterOp);
// The position of the first of n contiguous int64 values outside [lo, hi), or -1.
using FindOutOfRangeFn = int64_t (*)(const int64_t* data, int64_t n, int64_t lo, int64_t hi);
// mn = min(mn, data[0..n)), mx = max(mx, data[0..n)), single-threaded.
using IndexMinMaxFn = void (*)(const int64_t* data, int64_t n, int64_t& mn, int64_t& mx);

extern Stub<GatherFn> gather_stub;
extern Stub<ScatterFn> scatter_stub;
extern Stub<FindOutOfRangeFn> find_out_of_range_stub;
extern Stub<IndexMinMaxFn> index_min_max_stub;

}  // namespace ember::cpu
