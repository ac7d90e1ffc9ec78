// embedding (rows of a weight matrix picked by an index tensor) and one_hot.
// embedding's CPU/Meta kernel is an index_select; its derivative (formulas_nn.cpp) sums the
// gradient rows per index with index_add, leaving padding_idx's row zero and dividing by
// each index's count with scale_grad_by_freq, as PyTorch's embedding_dense_backward.
#include "ember/dispatch.h"
#include "ember/ops.h"

namespace ember {
namespace embedding_detail {
namespace {

using EmbeddingSig = Tensor(const Tensor&, const Tensor&, int64_t, bool, bool);
using BackwardSig = Tensor(const Tensor&, const Tensor&, int64_t, int64_t, bool);
using OneHotSig = Tensor(const Tensor&, int64_t);

void check_indices(const char* op, const Tensor& indices) {
  EMBER_CHECK(indices.dtype() == kInt64 || indices.dtype() == kInt32, RuntimeError, "Expected tensor for argument "
              "#1 'indices' to have one of the following scalar types: Long, Int; but got ", indices.dtype(),
              " instead (while checking arguments for ", op, ")");
}

Tensor embedding_k(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool, bool sparse) {
  EMBER_CHECK(weight.dim() == 2, RuntimeError, "'weight' must be 2-D");
  EMBER_CHECK(!sparse, NotImplementedError, "embedding(): sparse gradients are not supported");
  check_indices("embedding", indices);
  std::vector<int64_t> shape(indices.sizes().begin(), indices.sizes().end());
  shape.push_back(weight.size(1));
  return index_select(weight, 0, indices.reshape({-1})).view(shape);
}

Tensor embedding_backward_k(const Tensor& grad, const Tensor& indices, int64_t num_weights, int64_t padding_idx,
                            bool scale_grad_by_freq) {
  check_indices("embedding_backward", indices);
  const Tensor idx = indices.reshape({-1}).to(kInt64);
  const int64_t dim = grad.size(-1);
  Tensor rows = grad.reshape({-1, dim});
  if (scale_grad_by_freq) {
    const Tensor counts = bincount(idx, std::nullopt, num_weights);
    rows = div(rows, index_select(counts, 0, idx).unsqueeze(1).to(grad.dtype()));
  }
  Tensor g = index_add(zeros({num_weights, dim}, TensorOptions().dtype(grad.dtype()).device(grad.device())), 0, idx,
                       rows);
  if (padding_idx >= 0 && padding_idx < num_weights) g.select(0, padding_idx).zero_();
  return g;
}

Tensor one_hot_k(const Tensor& self, int64_t num_classes) {
  EMBER_CHECK(self.dtype() == kInt64, RuntimeError, "one_hot is only applicable to index tensor.");
  EMBER_CHECK(num_classes >= -1, RuntimeError, "num_classes should be positive");
  std::vector<int64_t> shape(self.sizes().begin(), self.sizes().end());
  if (self.numel() == 0) {
    EMBER_CHECK(num_classes > 0, RuntimeError, "Can not infer total number of classes from empty tensor.");
    shape.push_back(num_classes);
    return zeros(shape, TensorOptions().dtype(kInt64).device(self.device()));
  }
  EMBER_CHECK(min(self).item<int64_t>() >= 0, RuntimeError, "Class values must be non-negative.");
  const int64_t top = max(self).item<int64_t>();
  if (num_classes == -1) num_classes = top + 1;
  EMBER_CHECK(top < num_classes, RuntimeError, "Class values must be smaller than num_classes.");
  shape.push_back(num_classes);
  return scatter(zeros(shape, TensorOptions().dtype(kInt64).device(self.device())), -1, self.unsqueeze(-1), Scalar(1));
}

}  // namespace
}  // namespace embedding_detail

using namespace embedding_detail;

Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx, bool scale_grad_by_freq,
                 bool sparse) {
  static const TypedOp<EmbeddingSig> op("embedding");
  return op.call(weight, indices, padding_idx, scale_grad_by_freq, sparse);
}
Tensor embedding_dense_backward(const Tensor& grad_output, const Tensor& indices, int64_t num_weights,
                                int64_t padding_idx, bool scale_grad_by_freq) {
  static const TypedOp<BackwardSig> op("embedding_dense_backward");
  return op.call(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq);
}
Tensor one_hot(const Tensor& self, int64_t num_classes) {
  static const TypedOp<OneHotSig> op("one_hot");
  return op.call(self, num_classes);
}

EMBER_REGISTER(embedding_ops) {
  define_op<EmbeddingSig>("embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq=False, "
                          "bool sparse=False) -> Tensor", Tag::FunctionOnly);
  register_cpu_meta<EmbeddingSig, &embedding_k>("embedding");
  define_op<BackwardSig>("embedding_dense_backward(Tensor grad_output, Tensor indices, int num_weights, "
                         "int padding_idx, bool scale_grad_by_freq) -> Tensor", Tag::FunctionOnly);
  register_composite<BackwardSig, &embedding_backward_k>("embedding_dense_backward");
  define_op<OneHotSig>("one_hot(Tensor self, int num_classes=-1) -> Tensor", Tag::FunctionOnly);
  register_composite<OneHotSig, &one_hot_k>("one_hot");
}

}  // namespace ember
