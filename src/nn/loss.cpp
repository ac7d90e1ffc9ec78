// Loss modules (include/ember/nn/loss.h).
#include "ember/nn/loss.h"

#include "ember/ops.h"
#include "nn/check.h"

namespace ember::nn {

namespace {

void check_floating(const Module& m, const Tensor& input) {
  EMBER_CHECK(input.is_floating_point(), TypeError, m.name(), ": expected a floating point input, got ", input.dtype());
}

void check_same_shape(const Module& m, const Tensor& input, const Tensor& target) {
  EMBER_CHECK(input.sizes() == target.sizes(), RuntimeError, m.name(), ": expected target of the input's shape ",
              input.sizes(), ", got shape ", target.sizes());
}

// Class-index targets have input's shape without the class dim (dim 1; dim 0 of a 1-D input).
void check_class_target(const Module& m, const Tensor& input, const Tensor& target, const Tensor& weight,
                        bool allow_probabilities) {
  check_floating(m, input);
  EMBER_CHECK(input.dim() >= 1, RuntimeError, m.name(),
              ": expected input of shape (C), (N, C) or (N, C, d1, ...), got shape ", input.sizes());
  const int64_t class_dim = input.dim() == 1 ? 0 : 1;
  std::vector<int64_t> expected(input.sizes().begin(), input.sizes().end());
  expected.erase(expected.begin() + class_dim);
  if (allow_probabilities && target.is_floating_point()) {
    check_same_shape(m, input, target);
  } else {
    EMBER_CHECK(target.dtype() == kInt64 || target.dtype() == kUInt8, TypeError, m.name(),
                ": expected class indices of dtype int64", allow_probabilities ? " (or probabilities)" : "", ", got ",
                target.dtype());
    EMBER_CHECK(target.sizes() == IntArrayRef(expected), RuntimeError, m.name(), ": expected target of shape ",
                expected, " (class indices", allow_probabilities ? ") or " : ")",
                allow_probabilities ? detail::shape_str(input.sizes()) + " (class probabilities)" : "",
                " for input of shape ", input.sizes(), ", got shape ", target.sizes());
  }
  if (weight.defined()) {
    EMBER_CHECK(weight.dim() == 1 && weight.size(0) == input.size(class_dim), RuntimeError, m.name(),
                ": expected a weight of shape [", input.size(class_dim), "] (one per class), got shape ",
                weight.sizes());
  }
}

}  // namespace

LossBase::LossBase(const char* layer, int64_t reduction) : reduction(reduction) {
  EMBER_CHECK(reduction == Reduction::None || reduction == Reduction::Mean || reduction == Reduction::Sum, ValueError,
              layer, ": ", reduction, " is not a valid value for reduction (Reduction::None, Mean or Sum)");
}

Tensor MSELoss::forward(const Tensor& input, const Tensor& target) {
  check_floating(*this, input);
  check_same_shape(*this, input, target);
  return mse_loss(input, target, reduction);
}

Tensor L1Loss::forward(const Tensor& input, const Tensor& target) {
  check_same_shape(*this, input, target);
  return l1_loss(input, target, reduction);
}

CrossEntropyLoss::CrossEntropyLoss(CrossEntropyLossOptions o)
    : ModuleBase("CrossEntropyLoss", o.reduction), options(std::move(o)) {
  EMBER_CHECK(options.label_smoothing >= 0 && options.label_smoothing <= 1, ValueError,
              "CrossEntropyLoss: label_smoothing must be between 0.0 and 1.0, got ",
              detail::py_float(options.label_smoothing));
  if (options.weight.defined()) register_buffer("weight", options.weight);
}

Tensor CrossEntropyLoss::forward(const Tensor& input, const Tensor& target) {
  check_class_target(*this, input, target, options.weight, true);
  return cross_entropy_loss(input, target, detail::opt(options.weight), reduction, options.ignore_index,
                            options.label_smoothing);
}

NLLLoss::NLLLoss(NLLLossOptions o) : ModuleBase("NLLLoss", o.reduction), options(std::move(o)) {
  if (options.weight.defined()) register_buffer("weight", options.weight);
}

Tensor NLLLoss::forward(const Tensor& input, const Tensor& target) {
  check_class_target(*this, input, target, options.weight, false);
  return nll_loss(input, target, detail::opt(options.weight), reduction, options.ignore_index);
}

BCEWithLogitsLoss::BCEWithLogitsLoss(BCEWithLogitsLossOptions o)
    : ModuleBase("BCEWithLogitsLoss", o.reduction), options(std::move(o)) {
  if (options.weight.defined()) register_buffer("weight", options.weight);
  if (options.pos_weight.defined()) register_buffer("pos_weight", options.pos_weight);
}

Tensor BCEWithLogitsLoss::forward(const Tensor& input, const Tensor& target) {
  check_floating(*this, input);
  // PyTorch's own check, and its ValueError.
  EMBER_CHECK(input.sizes() == target.sizes(), ValueError, name(), ": Target size (", target.sizes(),
              ") must be the same as input size (", input.sizes(), ")");
  return binary_cross_entropy_with_logits(input, target, detail::opt(options.weight), detail::opt(options.pos_weight),
                                          reduction);
}

}  // namespace ember::nn
