// Helpers shared by the gather/scatter family (index_scatter.cpp, index_select.cpp,
// index_masked.cpp): argument checks, aliasing rules, and building a DimIndexLoop.
#pragma once

#include <string_view>

#include "backends/cpu/index_stubs.h"
#include "ember/ops.h"

namespace ember::index_util {

// 0-dim tensors count as one dim of size 1 (PyTorch's ensure_nonempty_dim/size).
inline int64_t nonempty_dim(const Tensor& t) { return t.dim() == 0 ? 1 : t.dim(); }
inline int64_t nonempty_size(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.sizes()[d]; }
inline int64_t nonempty_stride(const Tensor& t, int64_t d) { return t.dim() == 0 ? 0 : t.strides()[d]; }

// All tensors on one device, which must be the CPU or Meta (where these ops have kernels).
void check_devices(const char* op, std::initializer_list<const Tensor*> tensors);

// RuntimeError unless some element of t is reachable through two index tuples.
void check_no_internal_overlap(const Tensor& t);

// `in` as it may be read while `out` is written: PyTorch refuses an input that provably
// shares memory with the output (both dense and their spans intersect); an input that
// merely shares the storage is copied first, so that writes cannot change what is read.
Tensor unaliased_input(const Tensor& out, const Tensor& in);

// A one-element CPU tensor of `dtype` holding `value`, converted with PyTorch's overflow
// check ("value cannot be converted to type int without overflow").
Tensor checked_scalar(const Scalar& value, ScalarType dtype);

// int64, contiguous (int32 indices are widened).
Tensor contiguous_index(const Tensor& index);

// The first element of an int64 contiguous tensor outside [lo, hi), or -1.
int64_t find_out_of_range(const Tensor& index, int64_t lo, int64_t hi);

// Indices in [-size, size) with the negative ones wrapped, as a new int64 tensor; the first
// value outside that range is returned in `bad` (else bad_pos = -1).
Tensor wrap_negative(const Tensor& index, int64_t size, int64_t* bad_pos);

// The loop of a gather (other = the output) or scatter (other = the source, or a
// one-element tensor broadcast to all positions) over the shape of `index`, whose dims
// match self's. Along `dim`, self's coordinate comes from the index.
cpu::DimIndexLoop make_loop(const Tensor& self, const Tensor& index, const Tensor& other, int64_t dim,
                            bool other_is_value);

// Resizes an out= tensor to `shape` (PyTorch's resize_output): checks its device and, if
// `dtype` is given, that it matches.
void prepare_out(const char* op, Tensor& out, IntArrayRef shape, ScalarType dtype, Device device);

}  // namespace ember::index_util
