// PairwiseDistance and CosineSimilarity (include/ember/nn/distance.h).
#include "ember/nn/distance.h"

#include "ember/ops.h"

namespace ember::nn {

Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p, double eps, bool keepdim) {
  return norm(add(sub(x1, x2), eps), Scalar(p), std::vector<int64_t>{-1}, keepdim);
}

Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim, double eps) {
  EMBER_CHECK(!x1.is_complex() && !x2.is_complex(), RuntimeError,
              "cosine_similarity(): complex inputs are not supported");
  const Tensor n1 = clamp_min(norm(x1, Scalar(2), std::vector<int64_t>{dim}, true), eps);
  const Tensor n2 = clamp_min(norm(x2, Scalar(2), std::vector<int64_t>{dim}, true), eps);
  // dim counts in the broadcast shape, as the sum below sees it.
  return sum(mul(div(x1, n1), div(x2, n2)), std::vector<int64_t>{dim});
}

Tensor PairwiseDistance::forward(const Tensor& x1, const Tensor& x2) {
  return pairwise_distance(x1, x2, options.p, options.eps, options.keepdim);
}

Tensor CosineSimilarity::forward(const Tensor& x1, const Tensor& x2) {
  return cosine_similarity(x1, x2, options.dim, options.eps);
}

}  // namespace ember::nn
