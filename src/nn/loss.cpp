// Loss modules (include/ember/nn/loss.h).
#include "ember/nn/loss.h"

#include <cmath>

#include "ember/nn/functional.h"
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

// ---------------------------------------------------------------- more losses

namespace {

Tensor reduce(const Tensor& loss, int64_t reduction) {
  if (reduction == Reduction::Mean) return mean(loss);
  if (reduction == Reduction::Sum) return sum(loss);
  return loss;
}

// The three tensors of a ranking or triplet loss agree in shape.
void check_same_shapes(const Module& m, const char* names, const Tensor& a, const Tensor& b, const Tensor& c) {
  EMBER_CHECK(a.sizes() == b.sizes() && a.sizes() == c.sizes(), RuntimeError, m.name(), ": expected ", names,
              " of one shape, got shapes ", a.sizes(), ", ", b.sizes(), " and ", c.sizes());
}

}  // namespace

SmoothL1Loss::SmoothL1Loss(int64_t reduction, double beta) : ModuleBase("SmoothL1Loss", reduction), beta(beta) {
  EMBER_CHECK(beta >= 0, ValueError, "SmoothL1Loss: beta must be non-negative, got ", detail::py_float(beta));
}
Tensor SmoothL1Loss::forward(const Tensor& input, const Tensor& target) {
  check_floating(*this, input);
  check_same_shape(*this, input, target);
  return smooth_l1_loss(input, target, reduction, beta);
}

HuberLoss::HuberLoss(int64_t reduction, double delta) : ModuleBase("HuberLoss", reduction), delta(delta) {
  EMBER_CHECK(delta > 0, ValueError, "HuberLoss: delta must be positive, got ", detail::py_float(delta));
}
Tensor HuberLoss::forward(const Tensor& input, const Tensor& target) {
  check_floating(*this, input);
  check_same_shape(*this, input, target);
  return huber_loss(input, target, reduction, delta);
}

PoissonNLLLoss::PoissonNLLLoss(PoissonNLLLossOptions o) : ModuleBase("PoissonNLLLoss", o.reduction), options(o) {}
Tensor PoissonNLLLoss::forward(const Tensor& log_input, const Tensor& target) {
  check_floating(*this, log_input);
  check_same_shape(*this, log_input, target);
  return poisson_nll_loss(log_input, target, options.log_input, options.full, options.eps, reduction);
}

GaussianNLLLoss::GaussianNLLLoss(GaussianNLLLossOptions o) : ModuleBase("GaussianNLLLoss", o.reduction), options(o) {
  EMBER_CHECK(options.eps > 0, ValueError, "GaussianNLLLoss: eps must be positive, got ", detail::py_float(options.eps));
}
Tensor GaussianNLLLoss::forward(const Tensor& input, const Tensor& target, const Tensor& var) {
  check_floating(*this, input);
  check_same_shape(*this, input, target);
  const IntArrayRef in = input.sizes(), vs = var.sizes();
  const bool fits = vs == in || (input.dim() >= 1 && vs == in.slice(0, in.size() - 1)) ||
                    (input.dim() >= 1 && var.dim() == input.dim() && var.size(-1) == 1 &&
                     vs.slice(0, vs.size() - 1) == in.slice(0, in.size() - 1));
  // PyTorch's ValueError, with the layer and the shapes.
  EMBER_CHECK(fits, ValueError, name(), ": var is of incorrect size: expected ", in,
              ", the same without its last dim, or a last dim of 1, got ", vs);
  EMBER_CHECK(!any(lt(var, Scalar(0))).item<bool>(), ValueError, name(), ": var has negative entry/entries");
  return functional::gaussian_nll_loss(input, target, var, options.full, options.eps, reduction);
}

KLDivLoss::KLDivLoss(int64_t reduction, bool log_target) : ModuleBase("KLDivLoss", reduction), log_target(log_target) {}
Tensor KLDivLoss::forward(const Tensor& input, const Tensor& target) {
  check_floating(*this, input);
  check_same_shape(*this, input, target);
  return kl_div(input, target, reduction, log_target);
}

BCELoss::BCELoss(BCELossOptions o) : ModuleBase("BCELoss", o.reduction), options(std::move(o)) {
  if (options.weight.defined()) register_buffer("weight", options.weight);
}
Tensor BCELoss::forward(const Tensor& input, const Tensor& target) {
  check_floating(*this, input);
  // PyTorch's own check, and its ValueError.
  EMBER_CHECK(input.sizes() == target.sizes(), ValueError, name(), ": Using a target size (", target.sizes(),
              ") that is different to the input size (", input.sizes(), ") is deprecated. Please ensure they have "
              "the same size.");
  return binary_cross_entropy(input, target, detail::opt(options.weight), reduction);
}

HingeEmbeddingLoss::HingeEmbeddingLoss(double margin, int64_t reduction)
    : ModuleBase("HingeEmbeddingLoss", reduction), margin(margin) {}
Tensor HingeEmbeddingLoss::forward(const Tensor& input, const Tensor& target) {
  check_same_shape(*this, input, target);
  return hinge_embedding_loss(input, target, margin, reduction);
}

Tensor MultiLabelMarginLoss::forward(const Tensor& input, const Tensor& target) {
  check_floating(*this, input);
  EMBER_CHECK(input.dim() <= 2 && input.sizes() == target.sizes(), RuntimeError, name(),
              ": expected input of shape (C) or (N, C) and a target of its shape, got shapes ", input.sizes(), " and ",
              target.sizes());
  EMBER_CHECK(target.dtype() == kInt64, TypeError, name(), ": expected int64 class indices, got ", target.dtype());
  return multilabel_margin_loss(input, target, reduction);
}

Tensor SoftMarginLoss::forward(const Tensor& input, const Tensor& target) {
  check_floating(*this, input);
  check_same_shape(*this, input, target);
  return soft_margin_loss(input, target, reduction);
}

MultiLabelSoftMarginLoss::MultiLabelSoftMarginLoss(MultiLabelSoftMarginLossOptions o)
    : ModuleBase("MultiLabelSoftMarginLoss", o.reduction), options(std::move(o)) {
  if (options.weight.defined()) register_buffer("weight", options.weight);
}
Tensor MultiLabelSoftMarginLoss::forward(const Tensor& input, const Tensor& target) {
  check_floating(*this, input);
  EMBER_CHECK(input.dim() >= 1, RuntimeError, name(), ": expected input of shape (N, C) or (C), got shape ",
              input.sizes());
  check_same_shape(*this, input, target);
  return functional::multilabel_soft_margin_loss(input, target, options.weight, reduction);
}

CosineEmbeddingLoss::CosineEmbeddingLoss(double margin, int64_t reduction)
    : ModuleBase("CosineEmbeddingLoss", reduction), margin(margin) {}
Tensor CosineEmbeddingLoss::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
  check_floating(*this, input1);
  EMBER_CHECK(input1.sizes() == input2.sizes() && input1.dim() >= 1 && input1.dim() <= 2 &&
                  target.dim() == input1.dim() - 1 && (target.dim() == 0 || target.size(0) == input1.size(0)),
              RuntimeError, name(), ": expected inputs of one shape (N, D) or (D) and a target of shape (N) or (), got ",
              input1.sizes(), ", ", input2.sizes(), " and ", target.sizes());
  return cosine_embedding_loss(input1, input2, target, margin, reduction);
}

MarginRankingLoss::MarginRankingLoss(double margin, int64_t reduction)
    : ModuleBase("MarginRankingLoss", reduction), margin(margin) {}
Tensor MarginRankingLoss::forward(const Tensor& input1, const Tensor& input2, const Tensor& target) {
  check_same_shapes(*this, "input1, input2 and target", input1, input2, target);
  return margin_ranking_loss(input1, input2, target, margin, reduction);
}

MultiMarginLoss::MultiMarginLoss(MultiMarginLossOptions o)
    : ModuleBase("MultiMarginLoss", o.reduction), options(std::move(o)) {
  EMBER_CHECK(options.p == 1 || options.p == 2, ValueError, "MultiMarginLoss: only p == 1 and p == 2 supported, got ",
              options.p);
  EMBER_CHECK(!options.weight.defined() || options.weight.dim() == 1, ValueError,
              "MultiMarginLoss: weight must be one-dimensional, got shape ", options.weight.sizes());
  if (options.weight.defined()) register_buffer("weight", options.weight);
}
Tensor MultiMarginLoss::forward(const Tensor& input, const Tensor& target) {
  check_class_target(*this, input, target, options.weight, false);
  EMBER_CHECK(input.dim() <= 2, RuntimeError, name(), ": expected input of shape (N, C) or (C), got shape ",
              input.sizes());
  return multi_margin_loss(input, target, options.p, options.margin, detail::opt(options.weight), reduction);
}

TripletMarginLoss::TripletMarginLoss(TripletMarginLossOptions o)
    : ModuleBase("TripletMarginLoss", o.reduction), options(o) {}
Tensor TripletMarginLoss::forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
  check_floating(*this, anchor);
  check_same_shapes(*this, "anchor, positive and negative", anchor, positive, negative);
  EMBER_CHECK(anchor.dim() == 1 || anchor.dim() == 2, RuntimeError, name(),
              ": expected inputs of shape (N, D) or (D), got shape ", anchor.sizes());
  const auto& o = options;
  return triplet_margin_loss(anchor, positive, negative, o.margin, o.p, o.eps, o.swap, reduction);
}

TripletMarginWithDistanceLoss::TripletMarginWithDistanceLoss(TripletMarginWithDistanceLossOptions o)
    : ModuleBase("TripletMarginWithDistanceLoss", o.reduction), options(std::move(o)) {
  EMBER_CHECK(options.margin > 0, ValueError, "TripletMarginWithDistanceLoss: margin must be greater than 0, got ",
              detail::py_float(options.margin));
}
Tensor TripletMarginWithDistanceLoss::forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) {
  check_same_shapes(*this, "anchor, positive and negative", anchor, positive, negative);
  auto distance = [&](const Tensor& a, const Tensor& b) {
    if (options.distance_function) return options.distance_function(a, b);
    // F.pairwise_distance: the 2-norm of a - b + eps along the last dim.
    return norm(add(sub(a, b), Scalar(1e-6)), Scalar(2.0), {std::max<int64_t>(a.dim() - 1, 0)});
  };
  const Tensor d_pos = distance(anchor, positive);
  Tensor d_neg = distance(anchor, negative);
  if (options.swap) d_neg = minimum(d_neg, distance(positive, negative));
  return reduce(clamp_min(add(sub(d_pos, d_neg), Scalar(options.margin)), Scalar(0)), reduction);
}

CTCLoss::CTCLoss(CTCLossOptions o) : ModuleBase("CTCLoss", o.reduction), options(o) {}
Tensor CTCLoss::forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                        const Tensor& target_lengths) {
  check_floating(*this, log_probs);
  EMBER_CHECK(log_probs.dim() == 2 || log_probs.dim() == 3, RuntimeError, name(),
              ": expected log_probs of shape (T, N, C) or (T, C), got shape ", log_probs.sizes());
  const int64_t n = log_probs.dim() == 3 ? log_probs.size(1) : 1;
  EMBER_CHECK(input_lengths.numel() == n && target_lengths.numel() == n, RuntimeError, name(), ": expected ", n,
              " input and target lengths (one per sample of log_probs of shape ", log_probs.sizes(), "), got shapes ",
              input_lengths.sizes(), " and ", target_lengths.sizes());
  return ctc_loss(log_probs, targets, input_lengths, target_lengths, options.blank, reduction, options.zero_infinity);
}

}  // namespace ember::nn
