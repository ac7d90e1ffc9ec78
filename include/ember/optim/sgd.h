// torch.optim.SGD for C++: SGD(params, {.lr = 0.1, .momentum = 0.9}).
#pragma once

#include <limits>

#include "ember/optim/optimizer.h"

namespace ember::optim {

// lr has no default, as in PyTorch: a group that sets none (and options that set none) raise.
struct SGDOptions {
  double lr = std::numeric_limits<double>::quiet_NaN();
  double momentum = 0;
  double dampening = 0;
  double weight_decay = 0;
  bool nesterov = false;
  bool maximize = false;
  // The defaults dict, with torch's keys in torch's order (foreach None, differentiable false).
  Value to_value() const;
};

// p -= lr * d, d the gradient (+ weight_decay * p) or its momentum buffer
// buf = momentum * buf + (1 - dampening) * d (d + momentum * buf with nesterov).
class SGD : public Optimizer {
 public:
  SGD(std::vector<Tensor> params, SGDOptions options);
  SGD(std::vector<ParamGroup> groups, SGDOptions options);
  Tensor step(const std::function<Tensor()>& closure = {}) override;
};

}  // namespace ember::optim
