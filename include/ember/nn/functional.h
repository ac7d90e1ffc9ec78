// torch.nn.functional for C++: the functions that have no op of their own. Most of
// nn.functional is an op (ember::conv2d, max_pool2d, layer_norm, cross_entropy_loss,
// interpolate, grid_sampler, ...; include/ember/ops/); these are composites of ops that the
// C++ layers (LocalResponseNorm, LPPool1d/2d, InstanceNorm*, Softmin, GaussianNLLLoss,
// MultiLabelSoftMarginLoss) call too. Arguments, defaults and errors are torch 1.13's;
// reduction is Reduction::None, Mean or Sum (include/ember/ops/loss.h).
#pragma once

#include <cstdint>
#include <optional>

#include "ember/ops.h"

namespace ember::nn::functional {

// softmax(-input) along dim.
Tensor softmin(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);

// input / max(||input||_p over dim, eps).
Tensor normalize(const Tensor& input, double p = 2.0, int64_t dim = 1, double eps = 1e-12);

// input / (k + alpha * mean of the squares over `size` neighbouring channels)^beta; 3-D or
// more input (ValueError otherwise).
Tensor local_response_norm(const Tensor& input, int64_t size, double alpha = 1e-4, double beta = 0.75,
                           double k = 1.0);

// (sum over each window of x^p)^(1/p) (negative window sums clamped to 0, as PyTorch);
// stride empty: the kernel size.
Tensor lp_pool1d(const Tensor& input, double norm_type, int64_t kernel_size, std::optional<int64_t> stride = {},
                 bool ceil_mode = false);
Tensor lp_pool2d(const Tensor& input, double norm_type, IntArrayRef kernel_size, IntArrayRef stride = {},
                 bool ceil_mode = false);

// Normalizes each (sample, channel) over its spatial dims: batch norm of the input seen as
// one sample of N * C channels. With use_input_stats and running statistics, these move by
// momentum towards the batch's (averaged over the samples), in place.
Tensor instance_norm(const Tensor& input, const Tensor& running_mean = {}, const Tensor& running_var = {},
                     const Tensor& weight = {}, const Tensor& bias = {}, bool use_input_stats = true,
                     double momentum = 0.1, double eps = 1e-5);

// 0.5 (log max(var, eps) + (input - target)^2 / max(var, eps)) (+ 0.5 log(2 pi) with full);
// var has input's shape, or one dim less, or a last dim of 1 (ValueError otherwise), and no
// negative entry. The clamp does not change var's gradient.
Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var, bool full = false,
                         double eps = 1e-6, int64_t reduction = Reduction::Mean);

// The mean over classes (the last dim) of the binary cross entropies of sigmoid(input),
// each class weighted by weight (undefined: 1).
Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target, const Tensor& weight = {},
                                   int64_t reduction = Reduction::Mean);

}  // namespace ember::nn::functional
