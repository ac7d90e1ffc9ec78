// The functional ops of neural-network layers (torch.nn.functional's aten ops): linear maps,
// activations beyond the pointwise ones, softmax, normalization, dropout and embeddings.
// Convolution, pooling and losses have headers of their own.
#pragma once

#include <optional>
#include <tuple>

#include "ember/tensor.h"

namespace ember {

class Generator;

// ---------------------------------------------------------------- linear maps
// input (*, in) @ weight(out, in)^T + bias(out).
Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt);
// y[..., k] = input1[..., :] @ weight[k] @ input2[..., :] + bias[k].
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const std::optional<Tensor>& bias = std::nullopt);

// ---------------------------------------------------------------- activations
Tensor log_sigmoid(const Tensor& self);
Tensor tanhshrink(const Tensor& self);
Tensor softshrink(const Tensor& self, const Scalar& lambd = 0.5);
Tensor hardshrink(const Tensor& self, const Scalar& lambd = 0.5);
// x if x > threshold else value.
Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value);
Tensor& threshold_(Tensor& self, const Scalar& threshold, const Scalar& value);
// First half of `dim` times sigmoid of the second half.
Tensor glu(const Tensor& self, int64_t dim = -1);
// x if x >= 0 else weight * x; weight has one element or one per channel (dim 1).
Tensor prelu(const Tensor& self, const Tensor& weight);
// Leaky ReLU with a random slope in [lower, upper] per element when training, their mean otherwise.
Tensor rrelu(const Tensor& self, const Scalar& lower = 1.0 / 8, const Scalar& upper = 1.0 / 3,
             bool training = false, Generator* generator = nullptr);

}  // namespace ember

namespace ember {

// ---------------------------------------------------------------- softmax
// exp(x) / sum(exp(x)) along dim (computed in `dtype` when given); log_softmax its log.
Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
// The gradients of softmax / log_softmax given their result `output`, cast to input_dtype.
Tensor _softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype);
Tensor _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                  ScalarType input_dtype);

}  // namespace ember

namespace ember {

// ---------------------------------------------------------------- normalization
// Over the last dims given by normalized_shape: (x - mean) / sqrt(var + eps) * weight + bias.
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight = std::nullopt,
                  const std::optional<Tensor>& bias = std::nullopt, double eps = 1e-5);
// (result, mean, rstd); mean and rstd keep the leading dims, the normalized ones as 1.
std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, double eps);
// (grad_input, grad_weight, grad_bias); the last two undefined without weight / bias.
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              IntArrayRef normalized_shape, const Tensor& mean,
                                                              const Tensor& rstd, const std::optional<Tensor>& weight,
                                                              const std::optional<Tensor>& bias);
// Per channel (dim 1): batch statistics when training (updating running_mean / running_var
// in place with `momentum`), the running ones otherwise.
Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool training,
                  double momentum, double eps);
// (result, save_mean, save_invstd): the statistics used, the batch's or (evaluation mode)
// the running ones; PyTorch returns empty tensors for the latter.
std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias,
                                                     const std::optional<Tensor>& running_mean,
                                                     const std::optional<Tensor>& running_var, bool training,
                                                     double momentum, double eps);
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd, bool train, double eps);
// Layer norm over groups of channels, then a per-channel affine map.
Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight = std::nullopt,
                  const std::optional<Tensor>& bias = std::nullopt, double eps = 1e-5);

}  // namespace ember

namespace ember {

// ---------------------------------------------------------------- dropout
// Zeroes elements (feature_: whole channels) with probability p and scales the rest by
// 1 / (1 - p) when train; alpha_ variants keep SELU's self-normalizing statistics.
Tensor dropout(const Tensor& input, double p, bool train);
Tensor feature_dropout(const Tensor& input, double p, bool train);
Tensor alpha_dropout(const Tensor& input, double p, bool train);
Tensor feature_alpha_dropout(const Tensor& input, double p, bool train);

// ---------------------------------------------------------------- embeddings
// weight[indices]: indices' shape followed by the embedding dim.
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1,
                 bool scale_grad_by_freq = false, bool sparse = false);
Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                int64_t padding_idx, bool scale_grad_by_freq);
// int64 one-hot encoding along a new last dim (num_classes = -1: max + 1).
Tensor one_hot(const Tensor& self, int64_t num_classes = -1);

}  // namespace ember
