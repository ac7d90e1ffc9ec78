// Attention and transformers (torch.nn.MultiheadAttention and torch.nn.modules.transformer,
// 1.13): MultiheadAttention, TransformerEncoderLayer, TransformerDecoderLayer,
// TransformerEncoder, TransformerDecoder, Transformer. Submodules and parameters are named
// and ordered as PyTorch's (in_proj_weight, out_proj.weight, self_attn.in_proj_bias,
// linear1.weight, norm1.bias, layers.0..., encoder.norm.weight), so state_dicts match key for
// key, and repr prints the same text. Everything is written with differentiable ops.
//
// Masks (attn_mask, key_padding_mask and the layers' *_mask arguments) are optional: an
// undefined Tensor means none. A bool mask marks with true the positions that may NOT be
// attended; a float mask is added to the attention scores.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

#include "ember/nn/activation.h"
#include "ember/nn/container.h"
#include "ember/nn/linear.h"
#include "ember/nn/module.h"
#include "ember/nn/norm.h"

namespace ember::nn {

// The output projection's class in PyTorch (its name shows in repr); a plain Linear.
class NonDynamicallyQuantizableLinear : public Linear {
 public:
  using Linear::Linear;
};

struct MultiheadAttentionOptions {
  int64_t embed_dim = 0;
  int64_t num_heads = 0;  // must divide embed_dim
  double dropout = 0.0;   // on the attention weights, while training
  bool bias = true;       // in_proj_bias and out_proj.bias
  bool add_bias_kv = false;    // bias_k, bias_v [1, 1, embed_dim] appended to the keys and values
  bool add_zero_attn = false;  // a zero key and value appended after the projection
  std::optional<int64_t> kdim = std::nullopt;  // key / value features (default embed_dim); when
  std::optional<int64_t> vdim = std::nullopt;  // either differs: separate q/k/v_proj_weight
  bool batch_first = false;
  TensorOptions options = {};
};

// Attention of num_heads heads of embed_dim / num_heads features each. Parameters: packed
// in_proj_weight [3E, E] (xavier_uniform) or, when kdim or vdim differ from embed_dim,
// q_proj_weight [E, E], k_proj_weight [E, kdim], v_proj_weight [E, vdim]; in_proj_bias [3E]
// (zeros); out_proj (its bias zeros); bias_k and bias_v (xavier_normal).
class MultiheadAttention : public ModuleBase<MultiheadAttention> {
 public:
  explicit MultiheadAttention(const MultiheadAttentionOptions& o);
  MultiheadAttention(int64_t embed_dim, int64_t num_heads)
      : MultiheadAttention(MultiheadAttentionOptions{.embed_dim = embed_dim, .num_heads = num_heads}) {}

  // query (L, N, E), key (S, N, kdim), value (S, N, vdim) ((N, L, E)... with batch_first;
  // (L, E), (S, kdim), (S, vdim) unbatched). key_padding_mask: (N, S) (or (S)), true / -inf
  // for keys to ignore; attn_mask: (L, S) or (N * num_heads, L, S).
  // Returns (output like query, attention weights): the weights are (N, L, S) averaged over
  // the heads, or (N, num_heads, L, S) without average_attn_weights (no N unbatched), and
  // undefined without need_weights.
  std::tuple<Tensor, Tensor> forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                     const Tensor& key_padding_mask = {}, bool need_weights = true,
                                     const Tensor& attn_mask = {}, bool average_attn_weights = true);
  void reset_parameters();

  MultiheadAttentionOptions options;
  int64_t kdim, vdim, head_dim;
  Tensor in_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight, in_proj_bias, bias_k, bias_v;
  std::shared_ptr<NonDynamicallyQuantizableLinear> out_proj;
};

// The options of TransformerEncoderLayer and TransformerDecoderLayer.
struct TransformerLayerOptions {
  int64_t d_model = 0;
  int64_t nhead = 0;
  int64_t dim_feedforward = 2048;
  double dropout = 0.1;
  std::string activation = "relu";  // of the feed-forward block: "relu" or "gelu"
  double layer_norm_eps = 1e-5;
  bool batch_first = false;
  bool norm_first = false;  // LayerNorm before each block (else after each residual sum)
  TensorOptions options = {};
};
using TransformerEncoderLayerOptions = TransformerLayerOptions;
using TransformerDecoderLayerOptions = TransformerLayerOptions;

// Self-attention then a feed-forward block (linear1, activation, dropout, linear2), each
// with a residual connection and a LayerNorm.
class TransformerEncoderLayer : public ModuleBase<TransformerEncoderLayer> {
 public:
  explicit TransformerEncoderLayer(const TransformerLayerOptions& o);
  TransformerEncoderLayer(int64_t d_model, int64_t nhead)
      : TransformerEncoderLayer(TransformerLayerOptions{.d_model = d_model, .nhead = nhead}) {}
  // src: (S, N, E) ((N, S, E) with batch_first, (S, E) unbatched).
  Tensor forward(const Tensor& src, const Tensor& src_mask = {}, const Tensor& src_key_padding_mask = {});
  // A new layer with the same options, parameters (copied) and mode: PyTorch's deepcopy.
  std::shared_ptr<TransformerEncoderLayer> clone() const;

  TransformerLayerOptions options;
  std::shared_ptr<MultiheadAttention> self_attn;
  std::shared_ptr<Linear> linear1, linear2;
  std::shared_ptr<Dropout> dropout, dropout1, dropout2;
  std::shared_ptr<LayerNorm> norm1, norm2;
};

// Self-attention, attention over the memory (multihead_attn), then a feed-forward block,
// each with a residual connection and a LayerNorm.
class TransformerDecoderLayer : public ModuleBase<TransformerDecoderLayer> {
 public:
  explicit TransformerDecoderLayer(const TransformerLayerOptions& o);
  TransformerDecoderLayer(int64_t d_model, int64_t nhead)
      : TransformerDecoderLayer(TransformerLayerOptions{.d_model = d_model, .nhead = nhead}) {}
  // tgt: (T, N, E), memory: (S, N, E) (batch first or unbatched likewise).
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {});
  std::shared_ptr<TransformerDecoderLayer> clone() const;

  TransformerLayerOptions options;
  std::shared_ptr<MultiheadAttention> self_attn, multihead_attn;
  std::shared_ptr<Linear> linear1, linear2;
  std::shared_ptr<Dropout> dropout, dropout1, dropout2, dropout3;
  std::shared_ptr<LayerNorm> norm1, norm2, norm3;
};

// num_layers copies of encoder_layer (each starts with its parameters), then norm if given.
class TransformerEncoder : public ModuleBase<TransformerEncoder> {
 public:
  TransformerEncoder(const std::shared_ptr<TransformerEncoderLayer>& encoder_layer, int64_t num_layers,
                     std::shared_ptr<LayerNorm> norm = nullptr);
  Tensor forward(const Tensor& src, const Tensor& mask = {}, const Tensor& src_key_padding_mask = {});

  int64_t num_layers;
  std::shared_ptr<ModuleList> layers;  // of TransformerEncoderLayer
  std::shared_ptr<LayerNorm> norm;     // null without one
};

// num_layers copies of decoder_layer, then norm if given.
class TransformerDecoder : public ModuleBase<TransformerDecoder> {
 public:
  TransformerDecoder(const std::shared_ptr<TransformerDecoderLayer>& decoder_layer, int64_t num_layers,
                     std::shared_ptr<LayerNorm> norm = nullptr);
  Tensor forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask = {}, const Tensor& memory_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {});

  int64_t num_layers;
  std::shared_ptr<ModuleList> layers;  // of TransformerDecoderLayer
  std::shared_ptr<LayerNorm> norm;
};

struct TransformerOptions {
  int64_t d_model = 512;
  int64_t nhead = 8;
  int64_t num_encoder_layers = 6;
  int64_t num_decoder_layers = 6;
  int64_t dim_feedforward = 2048;
  double dropout = 0.1;
  std::string activation = "relu";
  // Used instead of the default stacks when given.
  std::shared_ptr<TransformerEncoder> custom_encoder = nullptr;
  std::shared_ptr<TransformerDecoder> custom_decoder = nullptr;
  double layer_norm_eps = 1e-5;
  bool batch_first = false;
  bool norm_first = false;
  TensorOptions options = {};
};

// An encoder stack and a decoder stack, each ending in a LayerNorm. Every parameter of more
// than one dim is then re-drawn by xavier_uniform_, as PyTorch's _reset_parameters.
class Transformer : public ModuleBase<Transformer> {
 public:
  explicit Transformer(const TransformerOptions& o = {});
  // src: (S, N, E), tgt: (T, N, E) ((N, S, E)... with batch_first; unbatched (S, E), (T, E)).
  Tensor forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask = {}, const Tensor& tgt_mask = {},
                 const Tensor& memory_mask = {}, const Tensor& src_key_padding_mask = {},
                 const Tensor& tgt_key_padding_mask = {}, const Tensor& memory_key_padding_mask = {});
  // A (sz, sz) float mask: -inf above the diagonal (the future), 0 elsewhere.
  static Tensor generate_square_subsequent_mask(int64_t sz, TensorOptions options = {});

  TransformerOptions options;
  std::shared_ptr<TransformerEncoder> encoder;
  std::shared_ptr<TransformerDecoder> decoder;
};

}  // namespace ember::nn
