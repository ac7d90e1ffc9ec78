// The IDX file format of MNIST and Fashion-MNIST (http://yann.lecun.com/exdb/mnist/).
#pragma once

#include <string>

#include "ember/tensor.h"

namespace ember::data {

// Reads an IDX file, plain or gzip-compressed (told apart by the magic bytes), into a CPU
// tensor of its element type (uint8, int8, int16, int32, float32, float64; big-endian values
// converted). Every malformed input (bad magic, unknown type, 0 or more than 8 dims, sizes
// that overflow, truncated or trailing data, corrupt gzip) raises a RuntimeError naming the
// file and the problem; memory grows only with data actually read.
Tensor read_idx(const std::string& path);

}  // namespace ember::data
