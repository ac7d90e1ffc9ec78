// EmbeddingBag (include/ember/nn/embedding_bag.h): built on embedding and index_add /
// scatter_reduce, so it differentiates like them.
#include "ember/nn/embedding_bag.h"

#include <limits>

#include "ember/autograd.h"
#include "ember/nn/init.h"
#include "ember/ops.h"
#include "nn/check.h"

namespace ember::nn {

EmbeddingBag::EmbeddingBag(const EmbeddingBagOptions& o) : options(o) {
  EMBER_CHECK(o.num_embeddings >= 0 && o.embedding_dim >= 0, ValueError,
              "EmbeddingBag: num_embeddings and embedding_dim must be non-negative, got ", o.num_embeddings, " and ",
              o.embedding_dim);
  EMBER_CHECK(o.mode == "sum" || o.mode == "mean" || o.mode == "max", ValueError,
              "EmbeddingBag: mode has to be one of sum, mean or max, got '", o.mode, "'");
  if (auto& p = options.padding_idx) {
    EMBER_CHECK(*p < o.num_embeddings && *p >= -o.num_embeddings, ValueError, "EmbeddingBag: padding_idx ", *p,
                " must be within num_embeddings (", o.num_embeddings, ")");
    if (*p < 0) *p += o.num_embeddings;
  }
  bind_tensor("weight", &EmbeddingBag::weight);
  weight = register_parameter("weight", empty({o.num_embeddings, o.embedding_dim}, o.options));
  reset_parameters();
}

void EmbeddingBag::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx) {
    autograd::NoGradGuard no_grad;
    weight.select(0, *options.padding_idx).fill_(0);
  }
}

Tensor EmbeddingBag::forward(const Tensor& input, const Tensor& offsets, const Tensor& per_sample_weights) {
  const auto& op = options;
  EMBER_CHECK(input.dtype() == kInt64 || input.dtype() == kInt32, TypeError, name(),
              ": expected indices of dtype int64 or int32, got ", input.dtype());
  if (per_sample_weights.defined()) {
    EMBER_CHECK(op.mode == "sum", NotImplementedError, name(),
                ": per_sample_weights is only supported for mode='sum' (got mode='", op.mode, "')");
    EMBER_CHECK(per_sample_weights.sizes() == input.sizes(), ValueError, name(), ": per_sample_weights (",
                per_sample_weights.sizes(), ") must have the same shape as the input (", input.sizes(), ")");
  }
  // The bag of each index.
  int64_t bags = 0;
  Tensor bag_of;
  const int64_t n = input.numel();
  if (input.dim() == 2) {
    EMBER_CHECK(!offsets.defined(), ValueError, name(),
                ": if input is 2D, then offsets has to be undefined, as input is treated as a mini-batch of fixed "
                "length sequences; got offsets of shape ",
                offsets.sizes());
    bags = input.size(0);
    bag_of = arange(bags, kInt64).unsqueeze(1).expand(input.sizes()).reshape({-1});
  } else {
    EMBER_CHECK(input.dim() == 1, ValueError, name(), ": input has to be 1D or 2D, got shape ", input.sizes());
    EMBER_CHECK(offsets.defined() && offsets.dim() == 1, ValueError, name(),
                ": offsets has to be a 1D tensor for 1D input, got ",
                offsets.defined() ? detail::shape_str(offsets.sizes()) : std::string("none"));
    const Tensor off = offsets.to(kInt64);
    bags = off.numel() - (op.include_last_offset ? 1 : 0);
    EMBER_CHECK(bags >= 0, ValueError, name(), ": include_last_offset needs at least one offset");
    EMBER_CHECK(off.numel() == 0 || off.select(0, 0).item<int64_t>() == 0, RuntimeError, name(),
                ": offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
                "However, got ",
                off.select(0, 0).item<int64_t>());
    // Counting the bag starts at or before each position (starts past the end are empty bags).
    Tensor starts = bags > 1 ? off.narrow(0, 1, bags - 1) : zeros({0}, kInt64);
    starts = masked_select(starts, lt(starts, Scalar(n)));
    bag_of = cumsum(index_add(zeros({n}, kInt64), 0, starts, ones({starts.numel()}, kInt64)), 0);
  }
  const Tensor idx = input.reshape({-1}).to(kInt64);
  if (op.max_norm && n > 0) {  // PyTorch's embedding_renorm_, as Embedding's: not recorded
    autograd::NoGradGuard no_grad;
    const Tensor picked = index_select(weight, 0, idx);
    const Tensor norms = norm(picked, Scalar(op.norm_type), {1});
    const Tensor scale = clamp_max(div(wrapped_scalar(Scalar(*op.max_norm)), add(norms, 1e-7)), 1.0);
    index_copy_(weight, 0, idx, mul(picked, scale.unsqueeze(1)));
  }
  Tensor rows = embedding(weight, idx, -1, op.scale_grad_by_freq);
  const Tensor keep = op.padding_idx ? ne(idx, Scalar(*op.padding_idx)) : ones({n}, kBool);
  if (per_sample_weights.defined()) rows = mul(rows, per_sample_weights.reshape({-1, 1}));
  const int64_t dim = op.embedding_dim;
  const TensorOptions wopt = TensorOptions(weight.dtype());
  const Tensor counts = index_add(zeros({bags}, wopt), 0, bag_of, keep.to(weight.dtype()));
  if (op.mode == "max") {
    rows = where(keep.unsqueeze(1), rows, Scalar(-std::numeric_limits<double>::infinity()));
    const Tensor out = scatter_reduce(full({bags, dim}, -std::numeric_limits<double>::infinity(), wopt), 0,
                                      bag_of.unsqueeze(1).expand({n, dim}), rows, "amax");
    return where(gt(counts, Scalar(0)).unsqueeze(1), out, Scalar(0.0));
  }
  rows = mul(rows, keep.unsqueeze(1).to(weight.dtype()));
  Tensor out = index_add(zeros({bags, dim}, wopt), 0, bag_of, rows);
  if (op.mode == "mean") out = div(out, clamp_min(counts, Scalar(1)).unsqueeze(1));
  return out;
}

std::string EmbeddingBag::extra_repr() const {
  const auto& op = options;
  std::string s = std::to_string(op.num_embeddings) + ", " + std::to_string(op.embedding_dim);
  if (op.max_norm) s += ", max_norm=" + detail::py_float(*op.max_norm);
  if (op.norm_type != 2.0) s += ", norm_type=" + detail::py_float(op.norm_type);
  if (op.scale_grad_by_freq) s += ", scale_grad_by_freq=True";
  s += ", mode=" + op.mode;
  if (op.padding_idx) s += ", padding_idx=" + std::to_string(*op.padding_idx);
  return s;
}

}  // namespace ember::nn
