// Loss modules (torch.nn.modules.loss): forward(input, target). reduction is
// ember::Reduction::Mean (default), Sum or None. Class weights are buffers named "weight"
// (and "pos_weight"), as in PyTorch, so they follow to() and state_dict.
#pragma once

#include <cstdint>
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

}  // namespace ember::nn
