// Shared by the random ops (random.cpp, random_factory.cpp, random_dist.cpp): PyTorch's
// argument checks and the fill of a tensor from the generator's Philox stream.
#pragma once

#include "backends/cpu/stubs.h"
#include "ember/ops.h"
#include "ember/random.h"

namespace ember::random_util {

inline Generator& gen_or_default(Generator* g) { return g ? *g : default_generator(); }

// Fills `self` (a CPU or Meta tensor) with p's distribution, in place: complex tensors
// through their real view, strided ones through a contiguous temporary. Meta tensors and
// empty ones draw nothing.
Tensor& fill_random(Tensor& self, const cpu::RandomParams& p, Generator* gen);

// The finite range of a real dtype, as doubles.
void dtype_limits(ScalarType t, double& lo, double& hi);

// PyTorch's checks, with its messages.
void check_uniform(ScalarType dtype, double from, double to);
void check_normal(ScalarType dtype, double std);
// random_(from, to): [from, to) non-empty and representable in the dtype.
void check_random_range(ScalarType dtype, int64_t from, int64_t to);
// Probabilities in [0, 1] (NaN fails), read from a tensor on any device.
void check_probabilities(const Tensor& p);

// A dtype for a factory: the one asked for, else `fallback`.
inline ScalarType dtype_or(std::optional<ScalarType> dtype, ScalarType fallback) {
  return dtype ? *dtype : fallback;
}
inline TensorOptions options(std::optional<ScalarType> dtype, std::optional<Device> device, ScalarType fallback) {
  return TensorOptions(dtype_or(dtype, fallback)).device(device);
}

// An out= tensor resized to `shape` (same device as `device` required).
void resize_out(const char* op, Tensor& out, IntArrayRef shape, Device device);

}  // namespace ember::random_util
