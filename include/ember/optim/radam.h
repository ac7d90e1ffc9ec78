// torch.optim.RAdam for C++.
#pragma once

#include <utility>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct RAdamOptions {
  double lr = 1e-3;
  std::pair<double, double> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  Value to_value() const;
};

// While the variance estimate is unreliable (rho_t <= 5) the step is the bias-corrected
// momentum alone; afterwards Adam's step scaled by the rectification term.
class RAdam : public Optimizer {
 public:
  RAdam(std::vector<Tensor> params, RAdamOptions options = {});
  RAdam(std::vector<ParamGroup> groups, RAdamOptions options = {});
  Tensor step(const std::function<Tensor()>& closure = {}) override;
};

}  // namespace ember::optim
