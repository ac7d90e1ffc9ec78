// Kernel slots of the neural-network ops (ops/softmax.cpp, ops/normalization.cpp);
// kernels/softmax.cpp and kernels/norm.cpp fill them.
#pragma once

#include <cstdint>

#include "backends/cpu/capability.h"
#include "ember/dtype.h"

namespace ember::cpu {

// Softmax over the middle dim of a contiguous [outer, size, inner] tensor, all operands of
// one floating dtype (16-bit types compute in float).
//  forward:  out = softmax(in) or log_softmax(in)
//  backward: out = y * (in - sum(in * y))  or  in - exp(y) * sum(in)   (in: the gradient,
//            y: the forward's result)
struct SoftmaxArgs {
  const char* in = nullptr;
  const char* y = nullptr;  // backward only
  char* out = nullptr;
  ScalarType dtype = ScalarType::Undefined;
  int64_t outer = 1, size = 1, inner = 1;
  bool log = false;
};
using SoftmaxFn = void (*)(const SoftmaxArgs&);
extern Stub<SoftmaxFn> softmax_stub;
extern Stub<SoftmaxFn> softmax_backward_stub;

}  // namespace ember::cpu

namespace ember::cpu {

// Layer norm over `rows` contiguous rows of `cols` elements, one floating dtype throughout
// (16-bit types compute in float; mean and rstd are stored in dtype, as PyTorch's).
//  forward:  mean, rstd = 1 / sqrt(var + eps) per row; y = (x - mean) * rstd * w + b
//            (w, b of `cols` elements, either may be null)
//  backward: dx = rstd * (dy w - mean(dy w) - xhat mean(dy w xhat)); dw = sum_rows dy xhat,
//            db = sum_rows dy (dx, dw, db each computed only when non-null)
struct LayerNormArgs {
  const char* x = nullptr;
  const char* w = nullptr;
  const char* b = nullptr;
  const char* dy = nullptr;
  char* y = nullptr;      // forward: the result; backward: dx
  char* mean = nullptr;   // forward writes, backward reads
  char* rstd = nullptr;
  char* dw = nullptr;
  char* db = nullptr;
  ScalarType dtype = ScalarType::Undefined;
  int64_t rows = 0, cols = 0;
  double eps = 0;
};
using LayerNormFn = void (*)(const LayerNormArgs&);
extern Stub<LayerNormFn> layer_norm_stub;
extern Stub<LayerNormFn> layer_norm_backward_stub;

// Per-channel passes of batch norm over a contiguous [n, channels, spatial] tensor (float
// or double data of `dtype`; 16-bit types compute in float). Per-channel values are double.
//  Stats:        out0 = mean(u), out1 = sum((u - mean)^2)
//  BackwardSums: out0 = sum(u), out1 = sum(u * (v - center))
//  Affine:       y = a * u + b * v + d   (v and b null: y = a * u + d)
enum class ChannelOp : int { Stats, BackwardSums, Affine };
struct ChannelArgs {
  const char* u = nullptr;
  const char* v = nullptr;
  char* y = nullptr;
  const double* center = nullptr;
  const double* a = nullptr;
  const double* b = nullptr;
  const double* d = nullptr;
  double* out0 = nullptr;
  double* out1 = nullptr;
  ScalarType dtype = ScalarType::Undefined;
  int64_t n = 1, channels = 1, spatial = 1;
};
using ChannelFn = void (*)(const ChannelArgs&, ChannelOp);
extern Stub<ChannelFn> channel_stub;

}  // namespace ember::cpu
