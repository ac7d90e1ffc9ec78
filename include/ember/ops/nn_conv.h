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

// ---------------------------------------------------------------- pooling
// stride empty: kernel_size. The *_with_indices forms also return each maximum's flat index
// within its input plane.
#define EMBER_POOL_DECL(n)                                                                                          \
  Tensor max_pool##n##d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {0}, \
                        IntArrayRef dilation = {1}, bool ceil_mode = false);                                        \
  std::tuple<Tensor, Tensor> max_pool##n##d_with_indices(const Tensor& self, IntArrayRef kernel_size,               \
                                                         IntArrayRef stride = {}, IntArrayRef padding = {0},        \
                                                         IntArrayRef dilation = {1}, bool ceil_mode = false);       \
  Tensor adaptive_avg_pool##n##d(const Tensor& self, IntArrayRef output_size);                                     \
  std::tuple<Tensor, Tensor> adaptive_max_pool##n##d(const Tensor& self, IntArrayRef output_size);
EMBER_POOL_DECL(1)
EMBER_POOL_DECL(2)
EMBER_POOL_DECL(3)
#undef EMBER_POOL_DECL
Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true);
Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {}, IntArrayRef padding = {0},
                  bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt);
Tensor max_unpool2d(const Tensor& self, const Tensor& indices, IntArrayRef output_size);
Tensor max_unpool3d(const Tensor& self, const Tensor& indices, IntArrayRef output_size, IntArrayRef stride,
                    IntArrayRef padding);

// ---------------------------------------------------------------- padding
// Pads the last len(pad)/2 dims: pad = (last_left, last_right, second_last_left, ...).
// Negative amounts crop.
Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value = 0);
// padding: (left, right) per padded dim, from the last; the last 1/2/3 dims are padded.
Tensor reflection_pad1d(const Tensor& self, IntArrayRef padding);
Tensor reflection_pad2d(const Tensor& self, IntArrayRef padding);
Tensor reflection_pad3d(const Tensor& self, IntArrayRef padding);
Tensor replication_pad1d(const Tensor& self, IntArrayRef padding);
Tensor replication_pad2d(const Tensor& self, IntArrayRef padding);
Tensor replication_pad3d(const Tensor& self, IntArrayRef padding);

// ---------------------------------------------------------------- blocks and pixels
// F.unfold: [N, C, H, W] -> [N, C * kh * kw, L]; F.fold (col2im) sums the blocks back.
Tensor im2col(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
              IntArrayRef stride);
Tensor col2im(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
              IntArrayRef padding, IntArrayRef stride);
Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor);
Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor);

}  // namespace ember
