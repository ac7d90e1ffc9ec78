// Loss modules (torch.nn.modules.loss): forward(input, target). reduction is
// ember::Reduction::Mean (default), Sum or None. Class weights are buffers named "weight"
// (and "pos_weight"), as in PyTorch, so they follow to() and state_dict.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "ember/nn/module.h"
#include "ember/ops/loss.h"

namespace ember::nn {

// Checks reduction (ValueError).
class LossBase : public Module {
 public:
  LossBase(const char* layer, int64_t reduction);
  int64_t reduction;
};

// Mean squared error; target has input's shape (PyTorch only warns when they differ and
// broadcasts; here that is a RuntimeError).
class MSELoss : public ModuleBase<MSELoss, LossBase> {
 public:
  explicit MSELoss(int64_t reduction = Reduction::Mean) : ModuleBase("MSELoss", reduction) {}
  Tensor forward(const Tensor& input, const Tensor& target);
};

// Mean absolute error; target has input's shape.
class L1Loss : public ModuleBase<L1Loss, LossBase> {
 public:
  explicit L1Loss(int64_t reduction = Reduction::Mean) : ModuleBase("L1Loss", reduction) {}
  Tensor forward(const Tensor& input, const Tensor& target);
};

struct CrossEntropyLossOptions {
  Tensor weight = {};  // [C] class weights, or undefined
  int64_t ignore_index = -100;
  int64_t reduction = Reduction::Mean;
  double label_smoothing = 0.0;  // in [0, 1]
};

// input: (C), (N, C) or (N, C, d1, ...) logits; target: class indices of shape (), (N) or
// (N, d1, ...), or class probabilities of input's shape.
class CrossEntropyLoss : public ModuleBase<CrossEntropyLoss, LossBase> {
 public:
  explicit CrossEntropyLoss(CrossEntropyLossOptions o = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  CrossEntropyLossOptions options;
};

struct NLLLossOptions {
  Tensor weight = {};
  int64_t ignore_index = -100;
  int64_t reduction = Reduction::Mean;
};

// input: log-probabilities (C), (N, C) or (N, C, d1, ...); target: class indices.
class NLLLoss : public ModuleBase<NLLLoss, LossBase> {
 public:
  explicit NLLLoss(NLLLossOptions o = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  NLLLossOptions options;
};

struct BCEWithLogitsLossOptions {
  Tensor weight = {};      // broadcast to the input
  int64_t reduction = Reduction::Mean;
  Tensor pos_weight = {};  // weight of the positive examples, per class (the last dim)
};

// Binary cross entropy of sigmoid(input); target (probabilities) has input's shape.
class BCEWithLogitsLoss : public ModuleBase<BCEWithLogitsLoss, LossBase> {
 public:
  explicit BCEWithLogitsLoss(BCEWithLogitsLossOptions o = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  BCEWithLogitsLossOptions options;
};

// ---------------------------------------------------------------- more losses
// Each takes its functional op's options; target checks name the layer and the shapes.

// Mean absolute error below beta, squared error (scaled by 1 / (2 beta)) within it.
class SmoothL1Loss : public ModuleBase<SmoothL1Loss, LossBase> {
 public:
  explicit SmoothL1Loss(int64_t reduction = Reduction::Mean, double beta = 1.0);
  Tensor forward(const Tensor& input, const Tensor& target);
  double beta;
};

// Squared error within delta, delta-scaled absolute error beyond.
class HuberLoss : public ModuleBase<HuberLoss, LossBase> {
 public:
  explicit HuberLoss(int64_t reduction = Reduction::Mean, double delta = 1.0);
  Tensor forward(const Tensor& input, const Tensor& target);
  double delta;
};

struct PoissonNLLLossOptions {
  bool log_input = true;  // input is log(rate)
  bool full = false;      // add the Stirling term
  double eps = 1e-8;
  int64_t reduction = Reduction::Mean;
};

class PoissonNLLLoss : public ModuleBase<PoissonNLLLoss, LossBase> {
 public:
  explicit PoissonNLLLoss(PoissonNLLLossOptions o = {});
  Tensor forward(const Tensor& log_input, const Tensor& target);
  PoissonNLLLossOptions options;
};

struct GaussianNLLLossOptions {
  bool full = false;  // add log(2 pi) / 2
  double eps = 1e-6;  // var is clamped to it (without changing its gradient)
  int64_t reduction = Reduction::Mean;
};

// 0.5 (log var + (input - target)^2 / var); var has input's shape, or one dim less, or a
// last dim of 1.
class GaussianNLLLoss : public ModuleBase<GaussianNLLLoss, LossBase> {
 public:
  explicit GaussianNLLLoss(GaussianNLLLossOptions o = {});
  Tensor forward(const Tensor& input, const Tensor& target, const Tensor& var);
  GaussianNLLLossOptions options;
};

// KL divergence of target from the distribution whose log-probabilities are input
// (PyTorch's 'batchmean' is Reduction::Sum divided by the batch size).
class KLDivLoss : public ModuleBase<KLDivLoss, LossBase> {
 public:
  explicit KLDivLoss(int64_t reduction = Reduction::Mean, bool log_target = false);
  Tensor forward(const Tensor& input, const Tensor& target);
  bool log_target;
};

struct BCELossOptions {
  Tensor weight = {};  // broadcast to the input
  int64_t reduction = Reduction::Mean;
};

// Binary cross entropy of probabilities; target has input's shape.
class BCELoss : public ModuleBase<BCELoss, LossBase> {
 public:
  explicit BCELoss(BCELossOptions o = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  BCELossOptions options;
};

// x where the target is 1, max(0, margin - x) where it is -1.
class HingeEmbeddingLoss : public ModuleBase<HingeEmbeddingLoss, LossBase> {
 public:
  explicit HingeEmbeddingLoss(double margin = 1.0, int64_t reduction = Reduction::Mean);
  Tensor forward(const Tensor& input, const Tensor& target);
  double margin;
};

// Multi-class multi-label hinge loss; target: (C) or (N, C) int64 class indices, ending at
// the first negative entry.
class MultiLabelMarginLoss : public ModuleBase<MultiLabelMarginLoss, LossBase> {
 public:
  explicit MultiLabelMarginLoss(int64_t reduction = Reduction::Mean)
      : ModuleBase("MultiLabelMarginLoss", reduction) {}
  Tensor forward(const Tensor& input, const Tensor& target);
};

// log(1 + exp(-y x)) for targets y of +-1.
class SoftMarginLoss : public ModuleBase<SoftMarginLoss, LossBase> {
 public:
  explicit SoftMarginLoss(int64_t reduction = Reduction::Mean) : ModuleBase("SoftMarginLoss", reduction) {}
  Tensor forward(const Tensor& input, const Tensor& target);
};

struct MultiLabelSoftMarginLossOptions {
  Tensor weight = {};  // [C]
  int64_t reduction = Reduction::Mean;
};

// Binary cross entropy of sigmoid(input) averaged over the classes; input and target (0 or
// 1) of shape (N, C) or (C).
class MultiLabelSoftMarginLoss : public ModuleBase<MultiLabelSoftMarginLoss, LossBase> {
 public:
  explicit MultiLabelSoftMarginLoss(MultiLabelSoftMarginLossOptions o = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  MultiLabelSoftMarginLossOptions options;
};

// 1 - cos(x1, x2) where the target is 1, max(0, cos(x1, x2) - margin) where it is -1.
class CosineEmbeddingLoss : public ModuleBase<CosineEmbeddingLoss, LossBase> {
 public:
  explicit CosineEmbeddingLoss(double margin = 0.0, int64_t reduction = Reduction::Mean);
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target);
  double margin;
};

// max(0, -y (x1 - x2) + margin).
class MarginRankingLoss : public ModuleBase<MarginRankingLoss, LossBase> {
 public:
  explicit MarginRankingLoss(double margin = 0.0, int64_t reduction = Reduction::Mean);
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target);
  double margin;
};

struct MultiMarginLossOptions {
  int64_t p = 1;  // 1 or 2
  double margin = 1.0;
  Tensor weight = {};  // [C]
  int64_t reduction = Reduction::Mean;
};

// Multi-class hinge loss; input (N, C) or (C), target int64 class indices (N) or ().
class MultiMarginLoss : public ModuleBase<MultiMarginLoss, LossBase> {
 public:
  explicit MultiMarginLoss(MultiMarginLossOptions o = {});
  Tensor forward(const Tensor& input, const Tensor& target);
  MultiMarginLossOptions options;
};

struct TripletMarginLossOptions {
  double margin = 1.0;
  double p = 2.0;
  double eps = 1e-6;
  bool swap = false;
  int64_t reduction = Reduction::Mean;
};

// max(0, d(a, p) - d(a, n) + margin) with the p-norm distance; (N, D) or (D) inputs.
class TripletMarginLoss : public ModuleBase<TripletMarginLoss, LossBase> {
 public:
  explicit TripletMarginLoss(TripletMarginLossOptions o = {});
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative);
  TripletMarginLossOptions options;
};

struct TripletMarginWithDistanceLossOptions {
  // Empty: the pairwise 2-norm distance (F.pairwise_distance).
  std::function<Tensor(const Tensor&, const Tensor&)> distance_function = {};
  double margin = 1.0;
  bool swap = false;
  int64_t reduction = Reduction::Mean;
};

class TripletMarginWithDistanceLoss : public ModuleBase<TripletMarginWithDistanceLoss, LossBase> {
 public:
  explicit TripletMarginWithDistanceLoss(TripletMarginWithDistanceLossOptions o = {});
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative);
  TripletMarginWithDistanceLossOptions options;
};

struct CTCLossOptions {
  int64_t blank = 0;
  int64_t reduction = Reduction::Mean;
  bool zero_infinity = false;
};

// Connectionist temporal classification: log_probs (T, N, C) or (T, C); targets padded
// (N, S) or concatenated; lengths as int64 tensors.
class CTCLoss : public ModuleBase<CTCLoss, LossBase> {
 public:
  explicit CTCLoss(CTCLossOptions o = {});
  Tensor forward(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                 const Tensor& target_lengths);
  CTCLossOptions options;
};

}  // namespace ember::nn
