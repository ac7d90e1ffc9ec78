// Distances between pairs of inputs (torch.nn.modules.distance): PairwiseDistance and
// CosineSimilarity, and the functions they call (torch.nn.functional's
// pairwise_distance and cosine_similarity). Composites of differentiable ops, so they
// differentiate to any order. Their repr is the bare name, as PyTorch's.
#pragma once

#include <cstdint>

#include "ember/nn/module.h"

namespace ember::nn {

// ||x1 - x2 + eps||_p over the last dim of the broadcast inputs (p may be negative).
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2.0, double eps = 1e-6, bool keepdim = false);

// sum(x1 / max(||x1||, eps) * x2 / max(||x2||, eps)) over dim, with the inputs broadcast
// (PyTorch 1.13 clamps each norm, not their product).
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-8);

struct PairwiseDistanceOptions {
  double p = 2.0;
  double eps = 1e-6;
  bool keepdim = false;
};

class PairwiseDistance : public ModuleBase<PairwiseDistance> {
 public:
  explicit PairwiseDistance(PairwiseDistanceOptions o = {}) : options(o) {}
  Tensor forward(const Tensor& x1, const Tensor& x2);
  PairwiseDistanceOptions options;
};

struct CosineSimilarityOptions {
  int64_t dim = 1;
  double eps = 1e-8;
};

class CosineSimilarity : public ModuleBase<CosineSimilarity> {
 public:
  explicit CosineSimilarity(CosineSimilarityOptions o = {}) : options(o) {}
  Tensor forward(const Tensor& x1, const Tensor& x2);
  CosineSimilarityOptions options;
};

}  // namespace ember::nn
