// Reductions: the device-agnostic half (which dims, output shape and dtype, output
// allocation) and the loop description a backend runs.
//
// An op first turns its `dim` argument into a mask (reduce_mask), derives the output shape
// (reduce_shape) and allocates or checks its outputs (reduce_output); on Meta tensors it stops
// there, so the same code is the op's shape and dtype inference. A CPU kernel then gets a
// ReduceLoop: kept dims (one output element each) and reduced dims, both with byte strides,
// size-1 dims dropped and dims that step as one folded together.
#pragma once

#include <cstdint>
#include <optional>

#include "ember/tensor.h"

namespace ember {

using DimMask = uint64_t;  // bit d set: dim d is reduced
constexpr int kMaxReduceDims = 25;

// Wraps dims (negative count from the end) and rejects repeats; an empty list means every
// dim (as torch 1.13's sum(dim=[]) does). A 0-dim tensor accepts dim 0 and -1 and reduces
// nothing.
DimMask reduce_mask(const char* op, IntArrayRef dims, int64_t ndim);
DimMask reduce_mask_all(int64_t ndim);
// Sizes after reducing the masked dims: kept as 1 with keepdim, else removed.
DimVector reduce_shape(IntArrayRef sizes, DimMask mask, bool keepdim);
// A fresh contiguous output (out undefined) or `out` checked for dtype and device and resized
// to `shape` when it differs.
Tensor reduce_output(const char* op, const Tensor& out, IntArrayRef shape, ScalarType dtype,
                     Device device);

struct ReduceLoop {
  static constexpr int kMaxDims = kMaxReduceDims;
  static constexpr int kMaxOutputs = 2;  // values and indices

  const char* in = nullptr;
  char* out[kMaxOutputs] = {};
  int nout = 1;
  ScalarType in_dtype = ScalarType::Undefined;
  ScalarType out_dtype = ScalarType::Undefined;  // of out[0]; out[1] (indices) is int64

  // Kept dims, innermost (smallest output stride) first: size, input and output byte strides.
  int nkept = 0;
  int64_t kept_size[kMaxDims] = {};
  int64_t kept_in[kMaxDims] = {};
  int64_t kept_out[kMaxOutputs][kMaxDims] = {};
  // Reduced dims, innermost first (smallest input stride first, or the logical order).
  int nred = 0;
  int64_t red_size[kMaxDims] = {};
  int64_t red_in[kMaxDims] = {};

  double param = 0;         // an op's parameter (the p of a p-norm)
  int64_t num_outputs = 1;  // product of kept sizes
  int64_t reduce_size = 1;  // product of reduced sizes (elements reduced into one output)
};

namespace cpu { enum class ReduceOp : int; }

// NotImplementedError unless `t` is on the CPU or Meta (the devices with reduction kernels).
void reduce_check_device(const char* op, const Tensor& t);
// As reduce_mask, with None meaning every dim.
DimMask reduce_mask_opt(const char* op, std::optional<IntArrayRef> dims, int64_t ndim);
// The dtype sum and prod compute and return in: `dtype` if given, else out's dtype, else
// int64 for integral and bool inputs, else the input's.
ScalarType sum_result_dtype(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out);

// Writes the result `r` of a composite into `out`, resized to r's shape; r's dtype must cast
// safely to out's (RuntimeError otherwise, before out is touched).
Tensor& reduce_assign_out(const char* op, Tensor& out, const Tensor& r);

// Reduction `op` of self over `mask` into a fresh result of dtype `dt` or into `out`. The
// kernel reads self as it is when `direct`, else converted to dt. An `out` of another dtype
// (already checked as a safe cast) is written through a temporary of dtype dt. Meta inputs
// stop after the shape and dtype work.
Tensor reduce_into(const char* name, cpu::ReduceOp op, const Tensor& self, DimMask mask, bool keepdim,
                   ScalarType dt, const Tensor& out, bool direct, double param = 0);

// The loop reducing the masked dims of `in` into `outs` (shaped as reduce_shape with or
// without keepdim). With logical_order the reduced dims keep the input's dim order (last dim
// innermost), so that position-tracking reductions (argmax, max.dim) see elements in index
// order; otherwise they are ordered by stride for memory locality.
ReduceLoop make_reduce_loop(const Tensor& in, DimMask mask, std::initializer_list<Tensor> outs,
                            bool logical_order = false);

}  // namespace ember
