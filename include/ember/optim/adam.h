// torch.optim.Adam and AdamW for C++: Adam(params, {.lr = 1e-3, .betas = {0.9, 0.999}}).
#pragma once

#include <utility>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct AdamOptions {
  double lr = 1e-3;
  std::pair<double, double> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  bool amsgrad = false;
  bool maximize = false;
  Value to_value() const;
};

// AdamW's defaults differ from Adam's in weight_decay only.
struct AdamWOptions {
  double lr = 1e-3;
  std::pair<double, double> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 1e-2;
  bool amsgrad = false;
  bool maximize = false;
  Value to_value() const;
};

// Bias-corrected moment estimates of the gradient (+ weight_decay * p);
// state: step (a float32 count), exp_avg, exp_avg_sq, max_exp_avg_sq (amsgrad).
class Adam : public Optimizer {
 public:
  Adam(std::vector<Tensor> params, AdamOptions options = {});
  Adam(std::vector<ParamGroup> groups, AdamOptions options = {});
  Tensor step(const std::function<Tensor()>& closure = {}) override;
};

// Adam with decoupled weight decay: p *= 1 - lr * weight_decay before Adam's step.
class AdamW : public Optimizer {
 public:
  AdamW(std::vector<Tensor> params, AdamWOptions options = {});
  AdamW(std::vector<ParamGroup> groups, AdamWOptions options = {});
  Tensor step(const std::function<Tensor()>& closure = {}) override;
};

}  // namespace ember::optim
