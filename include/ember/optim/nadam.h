// torch.optim.NAdam for C++.
#pragma once

#include <utility>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct NAdamOptions {
  double lr = 2e-3;
  std::pair<double, double> betas = {0.9, 0.999};
  double eps = 1e-8;
  double weight_decay = 0;
  double momentum_decay = 4e-3;
  Value to_value() const;
};

// Adam's moments with Nesterov momentum mu_t = beta1 (1 - 0.5 * 0.96^(t momentum_decay));
// state["mu_product"] is the running product (a float32 tensor, as in PyTorch).
class NAdam : public Optimizer {
 public:
  NAdam(std::vector<Tensor> params, NAdamOptions options = {});
  NAdam(std::vector<ParamGroup> groups, NAdamOptions options = {});
  Tensor step(const std::function<Tensor()>& closure = {}) override;
};

}  // namespace ember::optim
