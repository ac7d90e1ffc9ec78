// Linear maps and reshaping layers: Identity, Linear, Bilinear, Flatten, Unflatten, and
// Embedding (torch.nn.modules.linear, flatten, sparse). Parameters are initialized as
// PyTorch does (reset_parameters), drawing from the default generator.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

// Returns its input.
class Identity : public ModuleBase<Identity> {
 public:
  Tensor forward(const Tensor& input) { return input; }
};

struct LinearOptions {
  int64_t in_features = 0;
  int64_t out_features = 0;
  bool bias = true;
  TensorOptions options = {};  // dtype and device of the parameters
};

// y = x W^T + b; W: [out_features, in_features] ~ U(-1/sqrt(in), 1/sqrt(in)), b likewise.
class Linear : public ModuleBase<Linear> {
 public:
  explicit Linear(const LinearOptions& o);
  Linear(int64_t in_features, int64_t out_features, bool bias = true)
      : Linear(LinearOptions{.in_features = in_features, .out_features = out_features, .bias = bias}) {}

  // input: [*, in_features] of the parameters' dtype.
  Tensor forward(const Tensor& input);
  void reset_parameters();
  std::string extra_repr() const override;

  LinearOptions options;
  Tensor weight, bias;  // bias undefined without one
};

struct BilinearOptions {
  int64_t in1_features = 0;
  int64_t in2_features = 0;
  int64_t out_features = 0;
  bool bias = true;
  TensorOptions options = {};
};

// y_k = x1^T W_k x2 + b_k; W: [out, in1, in2] ~ U(-1/sqrt(in1), 1/sqrt(in1)).
class Bilinear : public ModuleBase<Bilinear> {
 public:
  explicit Bilinear(const BilinearOptions& o);
  Bilinear(int64_t in1_features, int64_t in2_features, int64_t out_features, bool bias = true)
      : Bilinear(BilinearOptions{
            .in1_features = in1_features, .in2_features = in2_features, .out_features = out_features, .bias = bias}) {}

  // input1: [*, in1_features], input2: [*, in2_features] with the same leading dims.
  Tensor forward(const Tensor& input1, const Tensor& input2);
  void reset_parameters();
  std::string extra_repr() const override;

  BilinearOptions options;
  Tensor weight, bias;
};

// Flattens dims start_dim..end_dim into one.
class Flatten : public ModuleBase<Flatten> {
 public:
  explicit Flatten(int64_t start_dim = 1, int64_t end_dim = -1) : start_dim(start_dim), end_dim(end_dim) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  int64_t start_dim, end_dim;
};

// Splits dim into unflattened_size (one entry may be -1).
class Unflatten : public ModuleBase<Unflatten> {
 public:
  Unflatten(int64_t dim, std::vector<int64_t> unflattened_size);
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  int64_t dim;
  std::vector<int64_t> unflattened_size;
};

struct EmbeddingOptions {
  int64_t num_embeddings = 0;
  int64_t embedding_dim = 0;
  std::optional<int64_t> padding_idx = std::nullopt;  // negative counts from the end
  // Rows looked up are first scaled down in place to this norm_type-norm, as PyTorch's.
  std::optional<double> max_norm = std::nullopt;
  double norm_type = 2.0;
  bool scale_grad_by_freq = false;
  TensorOptions options = {};
};

// A lookup table: weight [num_embeddings, embedding_dim] ~ N(0, 1), with the padding_idx row
// zero (and getting no gradient).
class Embedding : public ModuleBase<Embedding> {
 public:
  explicit Embedding(const EmbeddingOptions& o);
  // With the given weight ([num_embeddings, embedding_dim], shared, not initialized), as
  // PyTorch's _weight.
  Embedding(const EmbeddingOptions& o, const Tensor& weight);
  Embedding(int64_t num_embeddings, int64_t embedding_dim)
      : Embedding(EmbeddingOptions{.num_embeddings = num_embeddings, .embedding_dim = embedding_dim}) {}
  // An embedding whose weight shares `embeddings`' memory (2-D); freeze: its weight does not
  // require grad.
  static std::shared_ptr<Embedding> from_pretrained(const Tensor& embeddings, bool freeze = true,
                                                    std::optional<int64_t> padding_idx = std::nullopt);

  // indices: int64 or int32, any shape; the result has an extra last dim.
  Tensor forward(const Tensor& indices);
  void reset_parameters();
  std::string extra_repr() const override;

  EmbeddingOptions options;  // padding_idx made non-negative
  Tensor weight;
};

}  // namespace ember::nn
