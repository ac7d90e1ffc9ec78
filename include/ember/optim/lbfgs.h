// torch.optim.LBFGS for C++.
#pragma once

#include <optional>
#include <string>

#include "ember/optim/optimizer.h"

namespace ember::optim {

struct LBFGSOptions {
  double lr = 1;
  int64_t max_iter = 20;
  std::optional<int64_t> max_eval;  // max_iter * 5 / 4 when unset
  double tolerance_grad = 1e-7;
  double tolerance_change = 1e-9;
  int64_t history_size = 100;
  std::optional<std::string> line_search_fn;  // none or "strong_wolfe"
  Value to_value() const;
};

// Limited-memory BFGS over all parameters as one flat vector; step(closure) runs up to
// max_iter iterations, calling the closure (which recomputes the loss and its gradients) as it
// needs. One parameter group only (ValueError otherwise).
class LBFGS : public Optimizer {
 public:
  LBFGS(std::vector<Tensor> params, LBFGSOptions options = {});
  // The closure is required (RuntimeError without one).
  Tensor step(const std::function<Tensor()>& closure) override;

 private:
  Tensor gather_flat_grad() const;
  void add_grad(double step_size, const Tensor& update);
  std::pair<double, Tensor> directional_evaluate(const std::function<Tensor()>& closure,
                                                 const std::vector<Tensor>& x, double t, const Tensor& d);
};

}  // namespace ember::optim
