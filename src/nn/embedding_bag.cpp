// EmbeddingBag (include/ember/nn/embedding_bag.h): the layer's checks, then
// nn::functional::embedding_bag (built on embedding and index_add / scatter_reduce).
#include "ember/nn/embedding_bag.h"

#include "ember/autograd.h"
#include "ember/nn/functional.h"
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
  // The layer's own checks name it; functional::embedding_bag does the rest.
  EMBER_CHECK(input.dtype() == kInt64 || input.dtype() == kInt32, TypeError, name(),
              ": expected indices of dtype int64 or int32, got ", input.dtype());
  if (per_sample_weights.defined()) {
    EMBER_CHECK(op.mode == "sum", NotImplementedError, name(),
                ": per_sample_weights is only supported for mode='sum' (got mode='", op.mode, "')");
    EMBER_CHECK(per_sample_weights.sizes() == input.sizes(), ValueError, name(), ": per_sample_weights (",
                per_sample_weights.sizes(), ") must have the same shape as the input (", input.sizes(), ")");
  }
  if (input.dim() == 2) {
    EMBER_CHECK(!offsets.defined(), ValueError, name(),
                ": if input is 2D, then offsets has to be undefined, as input is treated as a mini-batch of fixed "
                "length sequences; got offsets of shape ",
                offsets.sizes());
  } else {
    EMBER_CHECK(input.dim() == 1, ValueError, name(), ": input has to be 1D or 2D, got shape ", input.sizes());
    EMBER_CHECK(offsets.defined() && offsets.dim() == 1, ValueError, name(),
                ": offsets has to be a 1D tensor for 1D input, got ",
                offsets.defined() ? detail::shape_str(offsets.sizes()) : std::string("none"));
  }
  return functional::embedding_bag(input, weight, offsets, op.max_norm, op.norm_type, op.scale_grad_by_freq, op.mode,
                                   false, per_sample_weights, op.include_last_offset, op.padding_idx);
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
