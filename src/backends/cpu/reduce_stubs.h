// Kernel slots of the statistical and cumulative reductions (ops/reduce_stats.cpp,
// ops/reduce_scan.cpp); kernels/reduce_stats.cpp and kernels/reduce_scan.cpp fill them.
#pragma once

#include "backends/cpu/capability.h"
#include "ops/reduce.h"

namespace ember::cpu {

// Reductions computed block by block (a block fits in cache and is read twice) and combined
// exactly, so they are numerically stable in one pass over memory:
//  - Var, Std: out[0] the variance (or its square root) with correction = loop.param, in the
//    real dtype of in_dtype; with nout == 2, out[1] the mean in in_dtype. Each block is
//    shifted by its own mean (two passes over the cached block), blocks combine by Chan's
//    formula.
//  - LogSumExp: out[0] = log(sum(exp(x))) in in_dtype, each block shifted by its maximum.
// in_dtype is floating (float16, bfloat16, float32, float64).
enum class StatOp : int { Var, Std, LogSumExp };
using StatReduceFn = void (*)(const ReduceLoop&, StatOp);
extern Stub<StatReduceFn> stat_reduce_stub;

// Cumulative ops along one dim: out[i] = op(out[i-1], in[i]) for each line of `size`
// elements. Lines are numbered 0..nlines-1 over the other dims (sizes/strides below,
// innermost first). out and in have the same shape; indices (cummax/cummin) is int64.
enum class ScanOp : int { Sum, Prod, Max, Min, LogSumExp };
struct ScanLoop {
  static constexpr int kMaxDims = kMaxReduceDims;
  const char* in = nullptr;
  char* out = nullptr;
  char* indices = nullptr;  // cummax/cummin only
  ScalarType in_dtype = ScalarType::Undefined;   // Sum/Prod: the output dtype, or any
  ScalarType out_dtype = ScalarType::Undefined;  // integral/bool into int64
  int64_t size = 0;                              // along the scanned dim
  int64_t in_step = 0, out_step = 0, idx_step = 0;  // byte strides along it
  int nouter = 0;
  int64_t outer_size[kMaxDims] = {};
  int64_t outer_in[kMaxDims] = {}, outer_out[kMaxDims] = {}, outer_idx[kMaxDims] = {};
  int64_t nlines = 1;
};
using ScanFn = void (*)(const ScanLoop&, ScanOp);
extern Stub<ScanFn> scan_stub;

}  // namespace ember::cpu
