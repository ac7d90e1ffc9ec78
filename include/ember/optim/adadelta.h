// torch.optim.Adadelta for C++.
#pragma once

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct AdadeltaOptions {
  double lr = 1.0;
  double rho = 0.9;
  double eps = 1e-6;
  double weight_decay = 0;
  bool maximize = false;
  Value to_value() const;
};

// v = rho v + (1 - rho) g^2; delta = sqrt(u + eps) / sqrt(v + eps) g;
// u = rho u + (1 - rho) delta^2; p -= lr delta.
class Adadelta : public Optimizer {
 public:
  Adadelta(std::vector<Tensor> params, AdadeltaOptions options = {});
  Adadelta(std::vector<ParamGroup> groups, AdadeltaOptions options = {});
  Tensor step(const std::function<Tensor()>& closure = {}) override;
};

}  // namespace ember::optim
