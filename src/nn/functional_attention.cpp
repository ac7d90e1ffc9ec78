// torch.nn.functional's attention for C++ (include/ember/nn/functional.h):
// scaled_dot_product_attention and multi_head_attention_forward, the one implementation that
// nn::MultiheadAttention calls. Written with differentiable ops, so it differentiates twice.
#include <cmath>
#include <limits>

#include "ember/autograd.h"
#include "ember/nn/functional.h"
#include "nn/check.h"

namespace ember::nn::functional {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// A bool mask (true: masked out) as an additive float mask of 0 and -inf.
Tensor float_mask(const Tensor& mask, ScalarType dtype) {
  return masked_fill(zeros(mask.sizes(), TensorOptions(dtype).device(mask.device())), mask, kNegInf);
}

// torch's F.pad(mask, (0, 1)): one more column (false / 0) at the end of the last dim.
Tensor pad_last(const Tensor& mask) {
  std::vector<int64_t> shape(mask.sizes().begin(), mask.sizes().end());
  shape.back() = 1;
  return cat({mask, zeros(shape, TensorOptions(mask.dtype()).device(mask.device()))}, -1);
}

std::string tuple_str(std::initializer_list<int64_t> v) { return detail::py_tuple(std::vector<int64_t>(v)); }

// torch's _mha_shape_check: whether the input is batched.
bool mha_shape_check(const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& key_padding_mask,
                     const Tensor& attn_mask, int64_t num_heads) {
  if (query.dim() == 3) {
    EMBER_CHECK(key.dim() == 3 && value.dim() == 3, RuntimeError,
                "For batched (3-D) `query`, expected `key` and `value` to be 3-D but found ", key.dim(), "-D and ",
                value.dim(), "-D tensors respectively");
    EMBER_CHECK(!key_padding_mask.defined() || key_padding_mask.dim() == 2, RuntimeError,
                "For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but found ",
                key_padding_mask.dim(), "-D tensor instead");
    EMBER_CHECK(!attn_mask.defined() || attn_mask.dim() == 2 || attn_mask.dim() == 3, RuntimeError,
                "For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found ",
                attn_mask.dim(), "-D tensor instead");
    return true;
  }
  EMBER_CHECK(query.dim() == 2, RuntimeError, "query should be unbatched 2D or batched 3D tensor but received ",
              query.dim(), "-D query tensor");
  EMBER_CHECK(key.dim() == 2 && value.dim() == 2, RuntimeError,
              "For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found ", key.dim(), "-D and ",
              value.dim(), "-D tensors respectively");
  EMBER_CHECK(!key_padding_mask.defined() || key_padding_mask.dim() == 1, RuntimeError,
              "For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but found ",
              key_padding_mask.dim(), "-D tensor instead");
  if (attn_mask.defined()) {
    EMBER_CHECK(attn_mask.dim() == 2 || attn_mask.dim() == 3, RuntimeError,
                "For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found ",
                attn_mask.dim(), "-D tensor instead");
    if (attn_mask.dim() == 3) {
      const std::vector<int64_t> expected{num_heads, query.size(0), key.size(0)};
      EMBER_CHECK(attn_mask.sizes() == IntArrayRef(expected), RuntimeError, "Expected `attn_mask` shape to be ",
                  detail::py_tuple(expected), " but got ", attn_mask.sizes());
    }
  }
  return false;
}

void check_static(const char* name, const Tensor& t, int64_t bh, int64_t head_dim) {
  EMBER_CHECK(t.dim() == 3, RuntimeError, "expecting ", name, " of 3 dims (N * num_heads, S, head_dim), got shape ",
              t.sizes());
  EMBER_CHECK(t.size(0) == bh, RuntimeError, "expecting ", name, ".size(0) of ", bh, ", but got ", t.size(0));
  EMBER_CHECK(t.size(2) == head_dim, RuntimeError, "expecting ", name, ".size(2) of ", head_dim, ", but got ",
              t.size(2));
}

Tensor part(const Tensor& t, int64_t i, int64_t e) { return t.defined() ? t.narrow(0, i * e, e) : Tensor(); }

}  // namespace

Tensor scaled_dot_product_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                    const Tensor& attn_mask, double dropout_p, bool is_causal) {
  EMBER_CHECK(!(is_causal && attn_mask.defined()), RuntimeError,
              "scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
  EMBER_CHECK(query.dim() >= 2 && key.dim() >= 2 && value.dim() >= 2, RuntimeError,
              "scaled_dot_product_attention: expected query, key and value of at least 2 dims");
  const int64_t L = query.size(-2), E = query.size(-1), S = key.size(-2);
  EMBER_CHECK(key.size(-1) == E, RuntimeError,
              "scaled_dot_product_attention: query and key must have the same last dim, got ", E, " and ",
              key.size(-1));
  EMBER_CHECK(value.size(-2) == S, RuntimeError,
              "scaled_dot_product_attention: key and value must have the same sequence length, got ", S, " and ",
              value.size(-2));
  Tensor mask;
  if (is_causal) {
    mask = float_mask(logical_not(tril(ones({L, S}, TensorOptions(kBool).device(query.device())))), query.dtype());
  } else if (attn_mask.defined()) {
    mask = attn_mask.dtype() == kBool ? float_mask(logical_not(attn_mask), query.dtype()) : attn_mask;
  }
  // Scaling q (L E elements per batch) costs less than scaling the scores (L S).
  Tensor s = matmul(mul(query, Scalar(1.0 / std::sqrt(static_cast<double>(E)))), key.transpose(-2, -1));
  if (mask.defined()) s = add(s, mask);
  Tensor w = softmax(s, -1);
  if (dropout_p > 0.0) w = ember::dropout(w, dropout_p, true);
  return matmul(w, value);
}

std::tuple<Tensor, Tensor> multi_head_attention_forward(const Tensor& query_in, const Tensor& key_in,
                                                        const Tensor& value_in,
                                                        const MultiheadAttentionForwardFuncOptions& o) {
  const int64_t num_heads = o.num_heads;
  const bool batched = mha_shape_check(query_in, key_in, value_in, o.key_padding_mask, o.attn_mask, num_heads);
  // Self-attention (one tensor for all three) projects with one matmul, as torch.
  const bool kv_same = key_in.is_same(value_in), qkv_same = kv_same && query_in.is_same(key_in);
  Tensor query = query_in, key = key_in, value = value_in, kpm = o.key_padding_mask;
  if (!batched) {  // a batch of one, squeezed again at the end
    query = query.unsqueeze(1), key = key.unsqueeze(1), value = value.unsqueeze(1);
    if (kpm.defined()) kpm = kpm.unsqueeze(0);
  }
  const int64_t tgt_len = query.size(0), bsz = query.size(1), embed_dim = query.size(2);
  int64_t src_len = key.size(0);
  EMBER_CHECK(!kpm.defined() || kpm.dtype() == kBool || kpm.is_floating_point(), RuntimeError,
              "only bool and floating types of key_padding_mask are supported");
  EMBER_CHECK(embed_dim == o.embed_dim_to_check, RuntimeError, "was expecting embedding dimension of ",
              o.embed_dim_to_check, ", but got ", embed_dim);
  EMBER_CHECK(num_heads > 0, RuntimeError, "num_heads must be positive, got ", num_heads);
  const int64_t head_dim = embed_dim / num_heads;
  EMBER_CHECK(head_dim * num_heads == embed_dim, RuntimeError, "embed_dim ", embed_dim, " not divisible by num_heads ",
              num_heads);
  if (o.use_separate_proj_weight) {
    EMBER_CHECK(key.sizes().slice(0, 2) == value.sizes().slice(0, 2), RuntimeError, "key's sequence and batch dims ",
                key.sizes().slice(0, 2), " do not match value's ", value.sizes().slice(0, 2));
  } else {
    EMBER_CHECK(key.sizes() == value.sizes(), RuntimeError, "key shape ", key.sizes(), " does not match value shape ",
                value.sizes());
  }

  // ---- in-projection
  const int64_t E = embed_dim;
  const Tensor& b = o.in_proj_bias;
  Tensor q, k, v;
  if (!o.use_separate_proj_weight) {
    EMBER_CHECK(o.in_proj_weight.defined(), RuntimeError,
                "use_separate_proj_weight is False but in_proj_weight is None");
    const Tensor& w = o.in_proj_weight;
    if (qkv_same) {
      const std::vector<Tensor> qkv = chunk(linear(query, w, detail::opt(b)), 3, -1);
      q = qkv[0], k = qkv[1], v = qkv[2];
    } else if (kv_same) {
      q = linear(query, w.narrow(0, 0, E), detail::opt(part(b, 0, E)));
      const Tensor b_kv = b.defined() ? b.narrow(0, E, 2 * E) : Tensor();
      const std::vector<Tensor> kv = chunk(linear(key, w.narrow(0, E, 2 * E), detail::opt(b_kv)), 2, -1);
      k = kv[0], v = kv[1];
    } else {
      q = linear(query, part(w, 0, E), detail::opt(part(b, 0, E)));
      k = linear(key, part(w, 1, E), detail::opt(part(b, 1, E)));
      v = linear(value, part(w, 2, E), detail::opt(part(b, 2, E)));
    }
  } else {
    EMBER_CHECK(o.q_proj_weight.defined(), RuntimeError, "use_separate_proj_weight is True but q_proj_weight is None");
    EMBER_CHECK(o.k_proj_weight.defined(), RuntimeError, "use_separate_proj_weight is True but k_proj_weight is None");
    EMBER_CHECK(o.v_proj_weight.defined(), RuntimeError, "use_separate_proj_weight is True but v_proj_weight is None");
    q = linear(query, o.q_proj_weight, detail::opt(part(b, 0, E)));
    k = linear(key, o.k_proj_weight, detail::opt(part(b, 1, E)));
    v = linear(value, o.v_proj_weight, detail::opt(part(b, 2, E)));
  }

  // ---- attn_mask: float or bool, 3-D
  Tensor attn_mask = o.attn_mask;
  if (attn_mask.defined()) {
    if (attn_mask.dtype() == kUInt8) {
      warn("Byte tensor for attn_mask in nn.MultiheadAttention is deprecated. Use bool tensor instead.");
      attn_mask = attn_mask.to(kBool);
    } else {
      EMBER_CHECK(attn_mask.is_floating_point() || attn_mask.dtype() == kBool, RuntimeError,
                  "Only float, byte, and bool types are supported for attn_mask, not ", attn_mask.dtype());
    }
    if (attn_mask.dim() == 2) {
      EMBER_CHECK(attn_mask.sizes() == IntArrayRef({tgt_len, src_len}), RuntimeError,
                  "The shape of the 2D attn_mask is ", attn_mask.sizes(), ", but should be ",
                  tuple_str({tgt_len, src_len}), ".");
      attn_mask = attn_mask.unsqueeze(0);
    } else if (attn_mask.dim() == 3) {
      EMBER_CHECK(attn_mask.sizes() == IntArrayRef({bsz * num_heads, tgt_len, src_len}), RuntimeError,
                  "The shape of the 3D attn_mask is ", attn_mask.sizes(), ", but should be ",
                  tuple_str({bsz * num_heads, tgt_len, src_len}), ".");
    } else {
      EMBER_FAIL(RuntimeError, "attn_mask's dimension ", attn_mask.dim(), " is not supported");
    }
  }

  // ---- bias_k / bias_v: one more key and value (the batch dim is the second)
  if (o.bias_k.defined() && o.bias_v.defined()) {
    EMBER_CHECK(!o.static_k.defined(), RuntimeError, "bias cannot be added to static key.");
    EMBER_CHECK(!o.static_v.defined(), RuntimeError, "bias cannot be added to static value.");
    k = cat({k, repeat(o.bias_k, {1, bsz, 1})}, 0);
    v = cat({v, repeat(o.bias_v, {1, bsz, 1})}, 0);
    if (attn_mask.defined()) attn_mask = pad_last(attn_mask);
    if (kpm.defined()) kpm = pad_last(kpm);
  } else {
    EMBER_CHECK(!o.bias_k.defined() && !o.bias_v.defined(), RuntimeError,
                "bias_k and bias_v must both be given or both be None");
  }

  // ---- heads: (N * heads, seq, head_dim), batch index outer and head index inner
  const int64_t bh = bsz * num_heads;
  q = q.reshape({tgt_len, bh, head_dim}).transpose(0, 1);
  if (o.static_k.defined()) {
    check_static("static_k", o.static_k, bh, head_dim);
    k = o.static_k;
  } else {
    k = k.reshape({k.size(0), bh, head_dim}).transpose(0, 1);
  }
  if (o.static_v.defined()) {
    check_static("static_v", o.static_v, bh, head_dim);
    v = o.static_v;
  } else {
    v = v.reshape({v.size(0), bh, head_dim}).transpose(0, 1);
  }
  if (o.add_zero_attn) {
    k = cat({k, zeros({bh, 1, head_dim}, TensorOptions(k.dtype()).device(k.device()))}, 1);
    v = cat({v, zeros({bh, 1, head_dim}, TensorOptions(v.dtype()).device(v.device()))}, 1);
    if (attn_mask.defined()) attn_mask = pad_last(attn_mask);
    if (kpm.defined()) kpm = pad_last(kpm);
  }
  src_len = k.size(1);

  // ---- one mask, broadcastable to (N * heads, L, S)
  if (kpm.defined()) {
    EMBER_CHECK(kpm.sizes() == IntArrayRef({bsz, src_len}), RuntimeError, "expecting key_padding_mask shape of ",
                tuple_str({bsz, src_len}), ", but got ", kpm.sizes());
    kpm = kpm.reshape({bsz, 1, 1, src_len}).expand({bsz, num_heads, 1, src_len}).reshape({bh, 1, src_len});
    if (!attn_mask.defined()) {
      attn_mask = kpm;
    } else if (attn_mask.dtype() == kBool) {
      attn_mask = logical_or(attn_mask, kpm);
    } else {
      // torch masks a float attn_mask with a bool key_padding_mask; a float one is added.
      attn_mask = kpm.dtype() == kBool ? masked_fill(attn_mask, kpm, kNegInf) : add(attn_mask, kpm);
    }
  }
  if (attn_mask.defined() && attn_mask.dtype() == kBool) attn_mask = float_mask(attn_mask, q.dtype());
  const double dropout_p = o.training ? o.dropout_p : 0.0;

  // ---- attention and out-projection
  const Tensor q_scaled = div(q, Scalar(std::sqrt(static_cast<double>(head_dim))));
  const Tensor kt = k.transpose(-2, -1);
  Tensor w = attn_mask.defined() ? baddbmm(attn_mask.expand({bh, tgt_len, src_len}), q_scaled, kt)
                                 : bmm(q_scaled, kt);
  w = softmax(w, -1);
  if (dropout_p > 0.0) w = ember::dropout(w, dropout_p, true);
  Tensor out = bmm(w, v).transpose(0, 1).reshape({tgt_len * bsz, embed_dim});
  out = linear(out, o.out_proj_weight, detail::opt(o.out_proj_bias)).view({tgt_len, bsz, -1});
  if (!batched) out = out.squeeze(1);
  if (!o.need_weights) return {out, Tensor()};
  w = w.view({bsz, num_heads, tgt_len, src_len});
  if (o.average_attn_weights) w = div(sum(w, {1}), Scalar(num_heads));
  if (!batched) w = w.squeeze(0);
  return {out, w};
}

}  // namespace ember::nn::functional
