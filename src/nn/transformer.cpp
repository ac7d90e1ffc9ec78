// MultiheadAttention and the transformer layers and stacks (include/ember/nn/transformer.h).
#include "ember/nn/transformer.h"

#include <cmath>
#include <limits>

#include "ember/autograd.h"
#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/ops.h"
#include "nn/check.h"

namespace ember::nn {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

void check_mask_dtype(const std::string& layer, const Tensor& mask, const char* what) {
  if (!mask.defined()) return;
  EMBER_CHECK(mask.dtype() == kBool || mask.is_floating_point(), TypeError, layer, ": only bool and floating types of ",
              what, " are supported, got ", mask.dtype());
}

Tensor activation_fn(const std::string& name, const Tensor& x) { return name == "relu" ? relu(x) : gelu(x); }

void check_layer_options(const char* layer, const TransformerLayerOptions& o) {
  EMBER_CHECK(o.activation == "relu" || o.activation == "gelu", ValueError, layer,
              ": activation should be relu/gelu, not ", o.activation);
  EMBER_CHECK(o.dim_feedforward > 0, ValueError, layer, ": dim_feedforward must be positive, got ", o.dim_feedforward);
}

MultiheadAttentionOptions attn_options(const TransformerLayerOptions& o) {
  return {.embed_dim = o.d_model,
          .num_heads = o.nhead,
          .dropout = o.dropout,
          .batch_first = o.batch_first,
          .options = o.options};
}

std::shared_ptr<LayerNorm> layer_norm_of(const TransformerLayerOptions& o) {
  return std::make_shared<LayerNorm>(
      LayerNormOptions{.normalized_shape = {o.d_model}, .eps = o.layer_norm_eps, .options = o.options});
}

// PyTorch's deepcopy of a layer: same options, parameters copied, same mode.
template <class L>
std::shared_ptr<L> copy_layer(const L& layer) {
  auto c = std::make_shared<L>(layer.options);
  c->load_state_dict(layer.state_dict());
  c->train(layer.is_training());
  return c;
}

}  // namespace

// ---------------------------------------------------------------- MultiheadAttention

MultiheadAttention::MultiheadAttention(const MultiheadAttentionOptions& o) : options(o) {
  EMBER_CHECK(o.embed_dim > 0 && o.num_heads > 0, ValueError,
              "MultiheadAttention: embed_dim and num_heads must be positive, got ", o.embed_dim, " and ", o.num_heads);
  EMBER_CHECK(o.embed_dim % o.num_heads == 0, ValueError, "MultiheadAttention: embed_dim must be divisible by num_heads, got embed_dim=",
              o.embed_dim, " and num_heads=", o.num_heads);
  EMBER_CHECK(o.dropout >= 0 && o.dropout <= 1, ValueError,
              "MultiheadAttention: dropout probability has to be between 0 and 1, but got ", detail::py_float(o.dropout));
  kdim = o.kdim.value_or(o.embed_dim);
  vdim = o.vdim.value_or(o.embed_dim);
  EMBER_CHECK(kdim > 0 && vdim > 0, ValueError, "MultiheadAttention: kdim and vdim must be positive, got ", kdim,
              " and ", vdim);
  head_dim = o.embed_dim / o.num_heads;
  const int64_t E = o.embed_dim;
  bind_tensor("in_proj_weight", &MultiheadAttention::in_proj_weight);
  bind_tensor("q_proj_weight", &MultiheadAttention::q_proj_weight);
  bind_tensor("k_proj_weight", &MultiheadAttention::k_proj_weight);
  bind_tensor("v_proj_weight", &MultiheadAttention::v_proj_weight);
  bind_tensor("in_proj_bias", &MultiheadAttention::in_proj_bias);
  bind_tensor("bias_k", &MultiheadAttention::bias_k);
  bind_tensor("bias_v", &MultiheadAttention::bias_v);
  // Registration order is PyTorch's, for state_dict order.
  if (kdim == E && vdim == E) {
    in_proj_weight = register_parameter("in_proj_weight", empty({3 * E, E}, o.options));
  } else {
    q_proj_weight = register_parameter("q_proj_weight", empty({E, E}, o.options));
    k_proj_weight = register_parameter("k_proj_weight", empty({E, kdim}, o.options));
    v_proj_weight = register_parameter("v_proj_weight", empty({E, vdim}, o.options));
  }
  if (o.bias) in_proj_bias = register_parameter("in_proj_bias", empty({3 * E}, o.options));
  out_proj = register_module(
      "out_proj", std::make_shared<NonDynamicallyQuantizableLinear>(
                      LinearOptions{.in_features = E, .out_features = E, .bias = o.bias, .options = o.options}));
  if (o.add_bias_kv) {
    bias_k = register_parameter("bias_k", empty({1, 1, E}, o.options));
    bias_v = register_parameter("bias_v", empty({1, 1, E}, o.options));
  }
  reset_parameters();
}

void MultiheadAttention::reset_parameters() {
  if (in_proj_weight.defined()) {
    init::xavier_uniform_(in_proj_weight);
  } else {
    init::xavier_uniform_(q_proj_weight);
    init::xavier_uniform_(k_proj_weight);
    init::xavier_uniform_(v_proj_weight);
  }
  if (in_proj_bias.defined()) {
    init::zeros_(in_proj_bias);
    init::zeros_(out_proj->bias);
  }
  if (bias_k.defined()) init::xavier_normal_(bias_k);
  if (bias_v.defined()) init::xavier_normal_(bias_v);
}

std::tuple<Tensor, Tensor> MultiheadAttention::forward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                       const Tensor& key_padding_mask, bool need_weights,
                                                       const Tensor& attn_mask, bool average_attn_weights) {
  const std::string layer = name();
  const int64_t E = options.embed_dim;
  // ---- shapes (PyTorch's checks, with the shapes in the message)
  EMBER_CHECK(query.dim() == 2 || query.dim() == 3, RuntimeError, layer,
              ": query should be unbatched 2D or batched 3D tensor, got shape ", query.sizes());
  const bool batched = query.dim() == 3;
  EMBER_CHECK(key.dim() == query.dim() && value.dim() == query.dim(), RuntimeError, layer, ": for ",
              batched ? "batched (3-D)" : "unbatched (2-D)", " query, expected key and value to be ",
              query.dim(), "-D, got shapes ", key.sizes(), " and ", value.sizes());
  EMBER_CHECK(query.size(-1) == E, RuntimeError, layer, ": was expecting embedding dimension of ", E,
              " (embed_dim), but got query of shape ", query.sizes());
  EMBER_CHECK(key.size(-1) == kdim && value.size(-1) == vdim, RuntimeError, layer,
              ": expected key with last dimension ", kdim, " (kdim) and value with ", vdim, " (vdim), got shapes ",
              key.sizes(), " and ", value.sizes());
  EMBER_CHECK(key.sizes().slice(0, key.dim() - 1) == value.sizes().slice(0, value.dim() - 1), RuntimeError, layer,
              ": key and value must have the same sequence and batch dims, got shapes ", key.sizes(), " and ",
              value.sizes());
  const int64_t bdim = options.batch_first ? 0 : 1;
  EMBER_CHECK(!batched || key.size(bdim) == query.size(bdim), RuntimeError, layer,
              ": query and key must have the same batch size, got shapes ", query.sizes(), " and ", key.sizes());
  detail::check_same_dtype(*this, query, out_proj->weight, "query");
  detail::check_same_dtype(*this, key, out_proj->weight, "key");
  detail::check_same_dtype(*this, value, out_proj->weight, "value");
  check_mask_dtype(layer, key_padding_mask, "key_padding_mask");
  if (attn_mask.defined() && attn_mask.dtype() != kUInt8) check_mask_dtype(layer, attn_mask, "attn_mask");

  // torch's layer: batch-first input goes to the functional time-major, each distinct
  // tensor transposed once (so self-attention stays one tensor and one projection).
  Tensor q = query, k = key, v = value;
  const bool transposed = batched && options.batch_first;
  if (transposed) {
    q = query.transpose(1, 0);
    k = key.is_same(query) ? q : key.transpose(1, 0);
    v = value.is_same(key) ? k : value.is_same(query) ? q : value.transpose(1, 0);
  }
  const functional::MultiheadAttentionForwardFuncOptions fo{.embed_dim_to_check = E,
                                                            .num_heads = options.num_heads,
                                                            .in_proj_weight = in_proj_weight,
                                                            .in_proj_bias = in_proj_bias,
                                                            .bias_k = bias_k,
                                                            .bias_v = bias_v,
                                                            .add_zero_attn = options.add_zero_attn,
                                                            .dropout_p = options.dropout,
                                                            .out_proj_weight = out_proj->weight,
                                                            .out_proj_bias = out_proj->bias,
                                                            .training = is_training(),
                                                            .key_padding_mask = key_padding_mask,
                                                            .need_weights = need_weights,
                                                            .attn_mask = attn_mask,
                                                            .use_separate_proj_weight = !in_proj_weight.defined(),
                                                            .q_proj_weight = q_proj_weight,
                                                            .k_proj_weight = k_proj_weight,
                                                            .v_proj_weight = v_proj_weight,
                                                            .average_attn_weights = average_attn_weights};
  auto [out, w] = functional::multi_head_attention_forward(q, k, v, fo);
  if (transposed) out = out.transpose(1, 0);
  return {out, w};
}

// ---------------------------------------------------------------- encoder and decoder layers

TransformerEncoderLayer::TransformerEncoderLayer(const TransformerLayerOptions& o) : options(o) {
  check_layer_options("TransformerEncoderLayer", o);
  self_attn = register_module("self_attn", std::make_shared<MultiheadAttention>(attn_options(o)));
  linear1 = register_module("linear1", std::make_shared<Linear>(LinearOptions{
                                           .in_features = o.d_model, .out_features = o.dim_feedforward, .options = o.options}));
  dropout = register_module("dropout", std::make_shared<Dropout>(o.dropout));
  linear2 = register_module("linear2", std::make_shared<Linear>(LinearOptions{
                                           .in_features = o.dim_feedforward, .out_features = o.d_model, .options = o.options}));
  norm1 = register_module("norm1", layer_norm_of(o));
  norm2 = register_module("norm2", layer_norm_of(o));
  dropout1 = register_module("dropout1", std::make_shared<Dropout>(o.dropout));
  dropout2 = register_module("dropout2", std::make_shared<Dropout>(o.dropout));
}

Tensor TransformerEncoderLayer::forward(const Tensor& src, const Tensor& src_mask, const Tensor& src_key_padding_mask) {
  check_mask_dtype(name(), src_key_padding_mask, "key_padding_mask");
  auto sa = [&](const Tensor& x) {
    return (*dropout1)(std::get<0>((*self_attn)(x, x, x, src_key_padding_mask, false, src_mask)));
  };
  auto ff = [&](const Tensor& x) {
    return (*dropout2)((*linear2)((*dropout)(activation_fn(options.activation, (*linear1)(x)))));
  };
  Tensor x = src;
  if (options.norm_first) {
    x = add(x, sa((*norm1)(x)));
    x = add(x, ff((*norm2)(x)));
  } else {
    x = (*norm1)(add(x, sa(x)));
    x = (*norm2)(add(x, ff(x)));
  }
  return x;
}

std::shared_ptr<TransformerEncoderLayer> TransformerEncoderLayer::clone() const { return copy_layer(*this); }

TransformerDecoderLayer::TransformerDecoderLayer(const TransformerLayerOptions& o) : options(o) {
  check_layer_options("TransformerDecoderLayer", o);
  self_attn = register_module("self_attn", std::make_shared<MultiheadAttention>(attn_options(o)));
  multihead_attn = register_module("multihead_attn", std::make_shared<MultiheadAttention>(attn_options(o)));
  linear1 = register_module("linear1", std::make_shared<Linear>(LinearOptions{
                                           .in_features = o.d_model, .out_features = o.dim_feedforward, .options = o.options}));
  dropout = register_module("dropout", std::make_shared<Dropout>(o.dropout));
  linear2 = register_module("linear2", std::make_shared<Linear>(LinearOptions{
                                           .in_features = o.dim_feedforward, .out_features = o.d_model, .options = o.options}));
  norm1 = register_module("norm1", layer_norm_of(o));
  norm2 = register_module("norm2", layer_norm_of(o));
  norm3 = register_module("norm3", layer_norm_of(o));
  dropout1 = register_module("dropout1", std::make_shared<Dropout>(o.dropout));
  dropout2 = register_module("dropout2", std::make_shared<Dropout>(o.dropout));
  dropout3 = register_module("dropout3", std::make_shared<Dropout>(o.dropout));
}

Tensor TransformerDecoderLayer::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                        const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                        const Tensor& memory_key_padding_mask) {
  auto sa = [&](const Tensor& x) {
    return (*dropout1)(std::get<0>((*self_attn)(x, x, x, tgt_key_padding_mask, false, tgt_mask)));
  };
  auto mha = [&](const Tensor& x) {
    return (*dropout2)(std::get<0>((*multihead_attn)(x, memory, memory, memory_key_padding_mask, false, memory_mask)));
  };
  auto ff = [&](const Tensor& x) {
    return (*dropout3)((*linear2)((*dropout)(activation_fn(options.activation, (*linear1)(x)))));
  };
  Tensor x = tgt;
  if (options.norm_first) {
    x = add(x, sa((*norm1)(x)));
    x = add(x, mha((*norm2)(x)));
    x = add(x, ff((*norm3)(x)));
  } else {
    x = (*norm1)(add(x, sa(x)));
    x = (*norm2)(add(x, mha(x)));
    x = (*norm3)(add(x, ff(x)));
  }
  return x;
}

std::shared_ptr<TransformerDecoderLayer> TransformerDecoderLayer::clone() const { return copy_layer(*this); }

// ---------------------------------------------------------------- stacks

TransformerEncoder::TransformerEncoder(const std::shared_ptr<TransformerEncoderLayer>& encoder_layer,
                                       int64_t num_layers, std::shared_ptr<LayerNorm> norm_)
    : num_layers(num_layers) {
  EMBER_CHECK(encoder_layer, ValueError, "TransformerEncoder: encoder_layer must not be null");
  EMBER_CHECK(num_layers >= 0, ValueError, "TransformerEncoder: num_layers must be non-negative, got ", num_layers);
  layers = register_module("layers", std::make_shared<ModuleList>());
  for (int64_t i = 0; i < num_layers; ++i) layers->push_back(encoder_layer->clone());
  if (norm_) norm = register_module("norm", std::move(norm_));
}

Tensor TransformerEncoder::forward(const Tensor& src, const Tensor& mask, const Tensor& src_key_padding_mask) {
  check_mask_dtype(name(), src_key_padding_mask, "key_padding_mask");
  Tensor x = src;
  for (const auto& m : *layers)
    x = (*std::static_pointer_cast<TransformerEncoderLayer>(m))(x, mask, src_key_padding_mask);
  return norm ? (*norm)(x) : x;
}

TransformerDecoder::TransformerDecoder(const std::shared_ptr<TransformerDecoderLayer>& decoder_layer,
                                       int64_t num_layers, std::shared_ptr<LayerNorm> norm_)
    : num_layers(num_layers) {
  EMBER_CHECK(decoder_layer, ValueError, "TransformerDecoder: decoder_layer must not be null");
  EMBER_CHECK(num_layers >= 0, ValueError, "TransformerDecoder: num_layers must be non-negative, got ", num_layers);
  layers = register_module("layers", std::make_shared<ModuleList>());
  for (int64_t i = 0; i < num_layers; ++i) layers->push_back(decoder_layer->clone());
  if (norm_) norm = register_module("norm", std::move(norm_));
}

Tensor TransformerDecoder::forward(const Tensor& tgt, const Tensor& memory, const Tensor& tgt_mask,
                                   const Tensor& memory_mask, const Tensor& tgt_key_padding_mask,
                                   const Tensor& memory_key_padding_mask) {
  Tensor x = tgt;
  for (const auto& m : *layers)
    x = (*std::static_pointer_cast<TransformerDecoderLayer>(m))(x, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                                                                memory_key_padding_mask);
  return norm ? (*norm)(x) : x;
}

// ---------------------------------------------------------------- Transformer

Transformer::Transformer(const TransformerOptions& o) : options(o) {
  const TransformerLayerOptions lo{.d_model = o.d_model,
                                   .nhead = o.nhead,
                                   .dim_feedforward = o.dim_feedforward,
                                   .dropout = o.dropout,
                                   .activation = o.activation,
                                   .layer_norm_eps = o.layer_norm_eps,
                                   .batch_first = o.batch_first,
                                   .norm_first = o.norm_first,
                                   .options = o.options};
  if (o.custom_encoder)
    encoder = register_module("encoder", o.custom_encoder);
  else
    encoder = register_module("encoder", std::make_shared<TransformerEncoder>(
                                             std::make_shared<TransformerEncoderLayer>(lo), o.num_encoder_layers,
                                             layer_norm_of(lo)));
  if (o.custom_decoder)
    decoder = register_module("decoder", o.custom_decoder);
  else
    decoder = register_module("decoder", std::make_shared<TransformerDecoder>(
                                             std::make_shared<TransformerDecoderLayer>(lo), o.num_decoder_layers,
                                             layer_norm_of(lo)));
  for (Tensor& p : parameters())
    if (p.dim() > 1) init::xavier_uniform_(p);
  options.custom_encoder = nullptr;  // held as encoder / decoder; not twice
  options.custom_decoder = nullptr;
}

Tensor Transformer::forward(const Tensor& src, const Tensor& tgt, const Tensor& src_mask, const Tensor& tgt_mask,
                            const Tensor& memory_mask, const Tensor& src_key_padding_mask,
                            const Tensor& tgt_key_padding_mask, const Tensor& memory_key_padding_mask) {
  EMBER_CHECK(src.dim() == tgt.dim() && (src.dim() == 2 || src.dim() == 3), RuntimeError, name(),
              ": expected src and tgt both 3-D (batched) or both 2-D (unbatched), got shapes ", src.sizes(), " and ",
              tgt.sizes());
  const int64_t bdim = options.batch_first ? 0 : 1;
  EMBER_CHECK(src.dim() == 2 || src.size(bdim) == tgt.size(bdim), RuntimeError, name(),
              ": the batch number of src and tgt must be equal, got shapes ", src.sizes(), " and ", tgt.sizes());
  EMBER_CHECK(src.size(-1) == options.d_model && tgt.size(-1) == options.d_model, RuntimeError, name(),
              ": the feature number of src and tgt must be equal to d_model (", options.d_model, "), got shapes ",
              src.sizes(), " and ", tgt.sizes());
  const Tensor memory = (*encoder)(src, src_mask, src_key_padding_mask);
  return (*decoder)(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask, memory_key_padding_mask);
}

Tensor Transformer::generate_square_subsequent_mask(int64_t sz, TensorOptions options) {
  EMBER_CHECK(sz >= 0, ValueError, "Transformer.generate_square_subsequent_mask: sz must be non-negative, got ", sz);
  return triu(full({sz, sz}, kNegInf, options), 1);
}

}  // namespace ember::nn
