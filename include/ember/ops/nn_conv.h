// Convolution, pooling, padding and fold/unfold (torch.nn.functional's conv*, *pool*, pad,
// unfold, fold, pixel_shuffle), named and defaulted as in PyTorch 1.13. Spatial parameters
// take one value (repeated for every spatial dim) or one per dim; inputs may be unbatched
// (C x spatial) where PyTorch accepts that.
#pragma once

#include <optional>
#include <string_view>
#include <tuple>

#include "ember/tensor.h"

namespace ember {

// ---------------------------------------------------------------- convolution
// The one convolution op: input [N, C, *spatial], weight [OC, C/groups, *k] (transposed:
// [C, OC/groups, *k]).
Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                   int64_t groups);
// Gradients of convolution's input, weight and bias for the entries of output_mask (three
// 0/1 values) that are set; the others are empty ([0]). bias_sizes is bias's shape ([OC]).
std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                         const Tensor& weight, IntArrayRef bias_sizes,
                                                         IntArrayRef stride, IntArrayRef padding,
                                                         IntArrayRef dilation, bool transposed,
                                                         IntArrayRef output_padding, int64_t groups,
                                                         IntArrayRef output_mask);

// oneDNN primitive cache statistics (plan hits, plan misses, cached-weight hits), for tests.
std::tuple<int64_t, int64_t, int64_t> conv_cache_stats();

#define EMBER_CONV_DECL(name)                                                                                   \
  Tensor name(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt,      \
              IntArrayRef stride = {1}, IntArrayRef padding = {0}, IntArrayRef dilation = {1}, int64_t groups = 1); \
  /* padding "same" (stride 1 only) or "valid" */                                                               \
  Tensor name(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride, \
              std::string_view padding, IntArrayRef dilation = {1}, int64_t groups = 1);
EMBER_CONV_DECL(conv1d)
EMBER_CONV_DECL(conv2d)
EMBER_CONV_DECL(conv3d)
#undef EMBER_CONV_DECL

#define EMBER_CONV_T_DECL(name)                                                                                  \
  Tensor name(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt,       \
              IntArrayRef stride = {1}, IntArrayRef padding = {0}, IntArrayRef output_padding = {0},            \
              int64_t groups = 1, IntArrayRef dilation = {1});
EMBER_CONV_T_DECL(conv_transpose1d)
EMBER_CONV_T_DECL(conv_transpose2d)
EMBER_CONV_T_DECL(conv_transpose3d)
#undef EMBER_CONV_T_DECL

// ---------------------------------------------------------------- padding
// Pads the last len(pad)/2 dims: pad = (last_left, last_right, second_last_left, ...).
// Negative amounts crop.
Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value = 0);

}  // namespace ember
