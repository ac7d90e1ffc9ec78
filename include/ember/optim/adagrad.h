// torch.optim.Adagrad for C++.
#pragma once

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct AdagradOptions {
  double lr = 1e-2;
  double lr_decay = 0;
  double weight_decay = 0;
  double initial_accumulator_value = 0;
  double eps = 1e-10;
  bool maximize = false;
  Value to_value() const;
};

// sum += g^2; p -= lr / (1 + (step - 1) lr_decay) g / (sqrt(sum) + eps). The state (step, sum)
// exists from construction, as in PyTorch.
class Adagrad : public Optimizer {
 public:
  Adagrad(std::vector<Tensor> params, AdagradOptions options = {});
  Adagrad(std::vector<ParamGroup> groups, AdagradOptions options = {});
  Tensor step(const std::function<Tensor()>& closure = {}) override;

 private:
  void init_state();
};

}  // namespace ember::optim
