// linear and bilinear: composites of the matrix products, so autograd, Meta tensors and
// every backend get them from addmm / matmul.
#include "ember/dispatch.h"
#include "ember/ops.h"

namespace ember {
namespace nn_linear_detail {
namespace {

using LinearSig = Tensor(const Tensor&, const Tensor&, const std::optional<Tensor>&);
using BilinearSig = Tensor(const Tensor&, const Tensor&, const Tensor&, const std::optional<Tensor>&);

bool has(const std::optional<Tensor>& t) { return t.has_value() && t->defined(); }

Tensor linear_composite(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  const Tensor wt = weight.t();
  if (!has(bias)) return matmul(input, wt);
  // One addmm (the bias added by the GEMM's beta) for a batch of rows: 2-D input, or a
  // contiguous N-D one viewed as rows.
  if (input.dim() == 2 && weight.dim() == 2) return addmm(*bias, input, wt);
  if (input.dim() > 2 && weight.dim() == 2 && input.is_contiguous()) {
    const int64_t in = input.size(-1);
    std::vector<int64_t> out_shape(input.sizes().begin(), input.sizes().end());
    out_shape.back() = weight.size(0);
    return addmm(*bias, input.view({-1, in}), wt).view(out_shape);
  }
  return add(matmul(input, wt), *bias);
}

Tensor bilinear_composite(const Tensor& x1, const Tensor& x2, const Tensor& weight, const std::optional<Tensor>& bias) {
  EMBER_CHECK(x1.dim() == x2.dim(), RuntimeError, "bilinear(): input dimensions do not match: got ", x1.dim(),
              " and ", x2.dim());
  for (int64_t d = 0; d + 1 < x1.dim(); ++d)
    EMBER_CHECK(x1.size(d) == x2.size(d), RuntimeError, "bilinear(): input batch dimensions do not match: got ",
                x1.sizes(), " and ", x2.sizes());
  EMBER_CHECK(weight.dim() == 3, RuntimeError, "bilinear(): weight must be 3-dimensional, got ", weight.dim(),
              " dimensions");
  EMBER_CHECK(x1.dim() >= 1 && x1.size(-1) == weight.size(1), RuntimeError,
              "bilinear(): input1 size does not match weight size: got ", x1.dim() ? x1.size(-1) : 0,
              " but expected ", weight.size(1));
  EMBER_CHECK(x2.size(-1) == weight.size(2), RuntimeError, "bilinear(): input2 size does not match weight size: got ",
              x2.size(-1), " but expected ", weight.size(2));
  if (has(bias))
    EMBER_CHECK(bias->dim() == 1 && bias->size(0) == weight.size(0), RuntimeError,
                "bilinear(): bias size does not match weight size: got ", bias->dim() ? bias->size(-1) : 0,
                " but expected ", weight.size(0));
  const int64_t out = weight.size(0), in1 = weight.size(1), in2 = weight.size(2);
  std::vector<int64_t> out_shape(x1.sizes().begin(), x1.sizes().end());
  out_shape.back() = out;
  // (B, in1) @ (in1, out * in2) -> (B, out, in2), then contracted with x2 over in2.
  const Tensor a = x1.reshape({-1, in1});
  const Tensor b = x2.reshape({-1, 1, in2});
  const Tensor w = weight.permute({1, 0, 2}).reshape({in1, out * in2});
  Tensor y = matmul(matmul(a, w).view({-1, out, in2}), b.transpose(1, 2)).view({-1, out});
  if (has(bias)) y = add(y, *bias);
  return y.view(out_shape);
}

}  // namespace
}  // namespace nn_linear_detail

using namespace nn_linear_detail;

Tensor linear(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias) {
  static const TypedOp<LinearSig> op("linear");
  return op.call(input, weight, bias);
}
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight, const std::optional<Tensor>& bias) {
  static const TypedOp<BilinearSig> op("bilinear");
  return op.call(input1, input2, weight, bias);
}

EMBER_REGISTER(nn_linear_ops) {
  define_op<LinearSig>("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", Tag::FunctionOnly);
  register_composite<LinearSig, &linear_composite>("linear");
  define_op<BilinearSig>("bilinear(Tensor input1, Tensor input2, Tensor weight, Tensor? bias=None) -> Tensor",
                         Tag::FunctionOnly);
  register_composite<BilinearSig, &bilinear_composite>("bilinear");
}

}  // namespace ember
