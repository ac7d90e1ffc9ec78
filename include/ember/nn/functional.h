// torch.nn.functional for C++: the functions that have no op of their own, or whose
// torch.nn.functional signature differs from the op's. Most of nn.functional is an op
// (ember::conv2d, max_pool2d, layer_norm, cross_entropy_loss, interpolate, grid_sampler, ...;
// include/ember/ops/); these are composites of ops that the C++ layers (LocalResponseNorm,
// LPPool1d/2d, InstanceNorm*, Softmin, GaussianNLLLoss, MultiLabelSoftMarginLoss, the
// dropouts, MaxUnpool*, EmbeddingBag, MultiheadAttention) call too, so each is the one
// implementation. Arguments, defaults and errors are torch 1.13's (its AssertionErrors are
// RuntimeErrors here); reduction is Reduction::None, Mean or Sum (include/ember/ops/loss.h).
// Within this namespace dropout, alpha_dropout, feature_alpha_dropout and max_unpool2d/3d
// hide the ops of the same name (ember::dropout(input, p, train), ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

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

// ---------------------------------------------------------------- dropout
// ValueError unless 0 <= p <= 1. inplace writes the result into input and returns input.
Tensor dropout(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
Tensor alpha_dropout(const Tensor& input, double p = 0.5, bool training = false, bool inplace = false);
Tensor feature_alpha_dropout(const Tensor& input, double p = 0.5, bool training = false, bool inplace = false);
// Whole channels: dropout1d of (N, C, L) or (C, L) (RuntimeError otherwise); dropout3d of
// (N, C, D, H, W) or (C, D, H, W) (other ranks warn and are taken as unbatched); dropout2d
// of (N, C, H, W), and, as torch 1.13 does with a warning, of 3-D input as (N, C, L) (other
// ranks warn and are taken as batched).
Tensor dropout1d(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
Tensor dropout2d(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);
Tensor dropout3d(const Tensor& input, double p = 0.5, bool training = true, bool inplace = false);

// ---------------------------------------------------------------- max_unpool
// The inverse of max_pool with return_indices: input (N, C, *spatial) or (C, *spatial), each
// value put at its index and the rest zero. kernel_size, stride (empty: kernel_size) and
// padding take one value per spatial dim or one for all. output_size (spatial, or with N and
// C in front) picks among the sizes the pooled input may have come from, each within a
// stride of the default (ValueError otherwise); empty: the default,
// (in - 1) * stride + kernel_size - 2 * padding.
Tensor max_unpool1d(const Tensor& input, const Tensor& indices, IntArrayRef kernel_size, IntArrayRef stride = {},
                    IntArrayRef padding = {0}, IntArrayRef output_size = {});
Tensor max_unpool2d(const Tensor& input, const Tensor& indices, IntArrayRef kernel_size, IntArrayRef stride = {},
                    IntArrayRef padding = {0}, IntArrayRef output_size = {});
Tensor max_unpool3d(const Tensor& input, const Tensor& indices, IntArrayRef kernel_size, IntArrayRef stride = {},
                    IntArrayRef padding = {0}, IntArrayRef output_size = {});

// ---------------------------------------------------------------- embedding_bag
// Sums, means or maxima ("sum", "mean", "max") of bags of rows of weight: the rows of a 2-D
// input (offsets undefined), or the segments of a 1-D input starting at offsets (offsets[0]
// must be 0; with include_last_offset its last entry ends the last bag). An empty bag gives
// zeros; entries equal to padding_idx (negative: from the end) take no part. max_norm renorms
// the rows looked up in place first, unrecorded (as embedding's). per_sample_weights (mode
// "sum" only) has input's shape and scales each row. scale_grad_by_freq divides each row's
// gradient by its count in input (torch 1.13's CPU kernel divides by another index's count).
// sparse goes to embedding, which has no sparse gradients (NotImplementedError).
// Result: (bags, embedding_dim).
Tensor embedding_bag(const Tensor& input, const Tensor& weight, const Tensor& offsets = {},
                     std::optional<double> max_norm = std::nullopt, double norm_type = 2.0,
                     bool scale_grad_by_freq = false, const std::string& mode = "mean", bool sparse = false,
                     const Tensor& per_sample_weights = {}, bool include_last_offset = false,
                     std::optional<int64_t> padding_idx = std::nullopt);

// ---------------------------------------------------------------- attention
// softmax(query key^T / sqrt(E) + mask) value over the last two dims (query (..., L, E), key
// (..., S, E), value (..., S, Ev)), leading dims broadcast. A bool attn_mask marks with true
// the positions that take part (torch 2.0's meaning); a float one is added to the scores.
// is_causal masks out the keys after each query (RuntimeError with an attn_mask too).
// dropout_p > 0 drops attention weights (always: there is no training flag, as in torch).
Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask = {}, double dropout_p = 0.0, bool is_causal = false);

// multi_head_attention_forward's arguments after query, key and value (libtorch's name), with
// torch 1.13's defaults; an undefined Tensor is None. embed_dim_to_check, num_heads,
// in_proj_weight (unless use_separate_proj_weight), add_zero_attn, dropout_p and
// out_proj_weight have no default in torch.
struct MultiheadAttentionForwardFuncOptions {
  int64_t embed_dim_to_check = 0;
  int64_t num_heads = 0;
  Tensor in_proj_weight = {};  // [3E, E]
  Tensor in_proj_bias = {};    // [3E]
  Tensor bias_k = {};          // [1, 1, E], appended to the keys (with bias_v to the values)
  Tensor bias_v = {};
  bool add_zero_attn = false;
  double dropout_p = 0.0;
  Tensor out_proj_weight = {};
  Tensor out_proj_bias = {};
  bool training = true;
  Tensor key_padding_mask = {};  // (N, S) or (S): true / -inf for keys to ignore
  bool need_weights = true;
  Tensor attn_mask = {};  // (L, S) or (N * num_heads, L, S): true / -inf where not to attend
  bool use_separate_proj_weight = false;
  Tensor q_proj_weight = {};  // [E, E], [E, kdim], [E, vdim] with use_separate_proj_weight
  Tensor k_proj_weight = {};
  Tensor v_proj_weight = {};
  Tensor static_k = {};  // (N * num_heads, S, head_dim): used as the keys instead of projecting
  Tensor static_v = {};
  bool average_attn_weights = true;
};

// Multi-head attention on query (L, N, E), key (S, N, kdim), value (S, N, vdim), or
// unbatched (L, E), (S, kdim), (S, vdim). Returns (output (L, N, E) or (L, E), attention
// weights (N, L, S) averaged over the heads or (N, num_heads, L, S), without N unbatched;
// undefined without need_weights).
std::tuple<Tensor, Tensor> multi_head_attention_forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                        const MultiheadAttentionForwardFuncOptions& options);

}  // namespace ember::nn::functional
