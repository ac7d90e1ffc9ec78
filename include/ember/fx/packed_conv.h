// A 2-D float32 convolution prepared once for inference: the layer that
// ember.fx.experimental.optimize_for_inference puts in place of Conv2d (+ folded BatchNorm,
// + ReLU, + residual add).
//
// Unlike the convolution op, which serves autograd (forward_training primitives, weights
// reordered from the module's parameter and checked against it on every call), a
// PackedConv2d owns a snapshot of its weights, packed once per input shape into the layout
// oneDNN's inference primitive wants (Winograd-transformed where that is the faster
// algorithm), and runs the bias, an optional residual sum and ReLU inside the primitive.
//
// Activations may travel between packed convolutions in oneDNN's blocked layout nChw16c,
// held by an ordinary contiguous float tensor of shape [N, C/16, H, W, 16] ("blocked"), so
// that no reorder runs between layers; any other consumer gets [N, C, H, W] tensors.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/tensor.h"

namespace ember::fx {

class PackedConv2d {
 public:
  // weight [OC, C/groups, kh, kw] and bias [OC] (copied); relu: max(0, .) after the sum.
  PackedConv2d(const Tensor& weight, const std::optional<Tensor>& bias, std::vector<int64_t> stride,
               std::vector<int64_t> padding, std::vector<int64_t> dilation, int64_t groups, bool relu);

  // relu(conv(x) + bias + residual). x and residual: [N, C, H, W] float32 of any strides, or
  // blocked [N, C/16, H, W, 16]. The result is blocked when `blocked_out` and OC % 16 == 0,
  // else a contiguous [N, OC, OH, OW] tensor.
  Tensor run(const Tensor& x, const std::optional<Tensor>& residual, bool blocked_out) const;

  // The [N, C, H, W] tensor a blocked one holds (a copy); other tensors are returned as they are.
  static Tensor to_dense(const Tensor& t);

  // oneDNN's implementation name for the last input shape run ("" before the first call).
  std::string implementation() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace ember::fx
