// torch.optim.RMSprop for C++.
#pragma once

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct RMSpropOptions {
  double lr = 1e-2;
  double alpha = 0.99;
  double eps = 1e-8;
  double weight_decay = 0;
  double momentum = 0;
  bool centered = false;
  bool maximize = false;
  Value to_value() const;
};

// v = alpha v + (1 - alpha) g^2 (centered: minus the squared running mean of g);
// p -= lr g / (sqrt(v) + eps), through a momentum buffer when momentum > 0.
class RMSprop : public Optimizer {
 public:
  RMSprop(std::vector<Tensor> params, RMSpropOptions options = {});
  RMSprop(std::vector<ParamGroup> groups, RMSpropOptions options = {});
  Tensor step(const std::function<Tensor()>& closure = {}) override;
};

}  // namespace ember::optim
