// torch.optim.Adamax for C++.
#pragma once

#include <utility>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct AdamaxOptions {
  double lr = 2e-3;
  std::pair<double, double> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  bool maximize = false;
  Value to_value() const;
};

// m = beta1 m + (1 - beta1) g; u = max(beta2 u, |g| + eps); p -= lr / (1 - beta1^t) m / u.
class Adamax : public Optimizer {
 public:
  Adamax(std::vector<Tensor> params, AdamaxOptions options = {});
  Adamax(std::vector<ParamGroup> groups, AdamaxOptions options = {});
  Tensor step(const std::function<Tensor()>& closure = {}) override;
};

}  // namespace ember::optim
