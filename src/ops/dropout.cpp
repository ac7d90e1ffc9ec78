// Dropout family: dropout, feature_dropout (whole channels), alpha_dropout and
// feature_alpha_dropout (keeping SELU's mean and variance). Composites of a Bernoulli mask
// and pointwise ops, so they differentiate through the mask and run on every backend. In
// evaluation mode (or p == 0) they return the input itself, as PyTorch does.
#include <cmath>

#include "ember/dispatch.h"
#include "ember/ops.h"

namespace ember {
namespace dropout_detail {
namespace {

using DropoutSig = Tensor(const Tensor&, double, bool);

void check_p(const char* op, double p) {
  EMBER_CHECK(p >= 0 && p <= 1, ValueError, op, "(): dropout probability has to be between 0 and 1, but got ", p);
}

// A mask of keep-probability 1 - p, of the input's shape, or (N, C, 1, ...) for whole channels.
Tensor keep_mask(const Tensor& input, double p, bool per_channel) {
  Tensor mask;
  if (per_channel) {
    EMBER_CHECK(input.dim() >= 2, RuntimeError, "Feature dropout requires at least 2 dimensions in the input");
    std::vector<int64_t> shape(static_cast<size_t>(input.dim()), 1);
    shape[0] = input.size(0);
    shape[1] = input.size(1);
    mask = empty(shape, TensorOptions().dtype(input.dtype()).device(input.device()));
  } else {
    mask = empty_like(input);
  }
  bernoulli_(mask, 1 - p);
  return mask;
}

Tensor dropout_impl(const char* op, const Tensor& input, double p, bool train, bool per_channel) {
  check_p(op, p);
  if (!train || p == 0 || input.numel() == 0) return input;
  if (p == 1) return mul(input, zeros({}, input.dtype()));
  EMBER_CHECK(input.is_floating_point(), RuntimeError, op, "(): expected a floating-point input, got ", input.dtype());
  return mul(input, keep_mask(input, p, per_channel).div_(Scalar(1 - p)));
}

// Dropped elements become SELU's negative saturation value alpha'; a and b restore the
// mean and variance: y = a * (x * mask + alpha' * (1 - mask)) + b.
Tensor alpha_dropout_impl(const char* op, const Tensor& input, double p, bool train, bool per_channel) {
  check_p(op, p);
  if (!train || p == 0 || input.numel() == 0) return input;
  if (p == 1) return mul(input, zeros({}, input.dtype()));
  EMBER_CHECK(input.is_floating_point(), RuntimeError, op, "(): expected a floating-point input, got ", input.dtype());
  constexpr double kAlpha = 1.7580993408473766;  // -selu(-inf) = scale * alpha of SELU
  const double a = 1.0 / std::sqrt((kAlpha * kAlpha * p + 1) * (1 - p));
  const Tensor mask = keep_mask(input, p, per_channel);
  const Tensor b = mul(add(mask, Scalar(-1)), Scalar(kAlpha * a)).add_(Scalar(kAlpha * a * p));
  return add(mul(mul(input, mask), Scalar(a)), b);
}

Tensor dropout_k(const Tensor& x, double p, bool train) { return dropout_impl("dropout", x, p, train, false); }
Tensor feature_dropout_k(const Tensor& x, double p, bool train) {
  return dropout_impl("feature_dropout", x, p, train, true);
}
Tensor alpha_dropout_k(const Tensor& x, double p, bool train) {
  return alpha_dropout_impl("alpha_dropout", x, p, train, false);
}
Tensor feature_alpha_dropout_k(const Tensor& x, double p, bool train) {
  return alpha_dropout_impl("feature_alpha_dropout", x, p, train, true);
}

}  // namespace
}  // namespace dropout_detail

using namespace dropout_detail;

Tensor dropout(const Tensor& input, double p, bool train) {
  static const TypedOp<DropoutSig> op("dropout");
  return op.call(input, p, train);
}
Tensor feature_dropout(const Tensor& input, double p, bool train) {
  static const TypedOp<DropoutSig> op("feature_dropout");
  return op.call(input, p, train);
}
Tensor alpha_dropout(const Tensor& input, double p, bool train) {
  static const TypedOp<DropoutSig> op("alpha_dropout");
  return op.call(input, p, train);
}
Tensor feature_alpha_dropout(const Tensor& input, double p, bool train) {
  static const TypedOp<DropoutSig> op("feature_alpha_dropout");
  return op.call(input, p, train);
}

EMBER_REGISTER(dropout_ops) {
  for (const char* n : {"dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout"})
    define_op<DropoutSig>(std::string(n) + "(Tensor input, float p, bool train) -> Tensor",
                          static_cast<uint32_t>(Tag::FunctionOnly) | static_cast<uint32_t>(Tag::Random));
  register_composite<DropoutSig, &dropout_k>("dropout");
  register_composite<DropoutSig, &feature_dropout_k>("feature_dropout");
  register_composite<DropoutSig, &alpha_dropout_k>("alpha_dropout");
  register_composite<DropoutSig, &feature_alpha_dropout_k>("feature_alpha_dropout");
}

}  // namespace ember
