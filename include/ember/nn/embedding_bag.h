// EmbeddingBag (torch.nn.modules.sparse): sums, means or maxima of bags of embeddings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ember/nn/module.h"

namespace ember::nn {

struct EmbeddingBagOptions {
  int64_t num_embeddings = 0;
  int64_t embedding_dim = 0;
  // Rows looked up are first scaled down in place to this norm_type-norm, as Embedding's.
  std::optional<double> max_norm = std::nullopt;
  double norm_type = 2.0;
  bool scale_grad_by_freq = false;
  std::string mode = "mean";  // "sum", "mean" or "max"
  bool include_last_offset = false;  // offsets has one more entry: the end of the last bag
  std::optional<int64_t> padding_idx = std::nullopt;  // entries equal to it take no part
  TensorOptions options = {};
};

// weight [num_embeddings, embedding_dim] ~ N(0, 1) (the padding_idx row zero).
class EmbeddingBag : public ModuleBase<EmbeddingBag> {
 public:
  explicit EmbeddingBag(const EmbeddingBagOptions& o);
  EmbeddingBag(int64_t num_embeddings, int64_t embedding_dim)
      : EmbeddingBag(EmbeddingBagOptions{.num_embeddings = num_embeddings, .embedding_dim = embedding_dim}) {}
  // input: (B, L) indices, one bag per row (offsets undefined), or (N) indices cut into bags
  // at offsets (1-D, starting at 0). per_sample_weights (mode "sum" only) has input's shape.
  // Result: (B, embedding_dim); an empty bag gives zeros.
  Tensor forward(const Tensor& input, const Tensor& offsets = {}, const Tensor& per_sample_weights = {});
  void reset_parameters();
  std::string extra_repr() const override;

  EmbeddingBagOptions options;  // padding_idx made non-negative
  Tensor weight;
};

}  // namespace ember::nn
