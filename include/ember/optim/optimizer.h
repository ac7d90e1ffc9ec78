// The optimizer base class (torch.optim.Optimizer for C++). Parameter groups carry their
// hyper-parameters by name in a Value dict, as a Python param_group dict does, so that
// learning-rate schedulers and state dicts treat every optimizer alike.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "ember/tensor.h"
#include "ember/value.h"

namespace ember::optim {

struct ParamGroup {
  std::vector<Tensor> params;
  // "lr", "momentum", "betas" (a tuple), "weight_decay", ... as the Python optimizer names them.
  Value options = Value::dict();

  ParamGroup() = default;
  ParamGroup(std::vector<Tensor> params, Value options = Value::dict())
      : params(std::move(params)), options(std::move(options)) {}

  // A number-valued option (lr, momentum, ...); raises naming the option when absent.
  double get(std::string_view name) const { return options.at(Value(name)).to_double(); }
  void set(std::string_view name, Value value) { options.set(Value(name), std::move(value)); }
  bool has(std::string_view name) const { return options.contains(Value(name)); }
};

class Optimizer {
 public:
  // `defaults` fills the options a group leaves out. Raises ValueError for an empty parameter
  // list and for a parameter given twice (within or across groups).
  Optimizer(std::vector<ParamGroup> groups, Value defaults);
  Optimizer(std::vector<Tensor> params, Value defaults);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One update; `closure` re-evaluates the model and returns the loss (LBFGS needs it, the
  // others call it once when given). Returns the closure's loss or an undefined tensor.
  virtual Tensor step(const std::function<Tensor()>& closure = {}) = 0;

  void zero_grad(bool set_to_none = true);
  void add_param_group(ParamGroup group);

  std::vector<ParamGroup>& param_groups() { return param_groups_; }
  const std::vector<ParamGroup>& param_groups() const { return param_groups_; }
  const Value& defaults() const { return defaults_; }

  // {"state": {index: {name: value}}, "param_groups": [{options..., "params": [indices]}]}, the
  // layout of torch.optim's state_dict (parameters numbered across groups in order).
  Value state_dict() const;
  // Checks the group count and sizes (ValueError with torch's messages) and builds the new
  // state before changing anything. State tensors are copies, on the parameter's device and,
  // except "step", in its floating dtype; each group's options become the saved ones.
  void load_state_dict(const Value& state_dict);

 protected:
  // Per-parameter state ("step", "exp_avg", ...), a dict per parameter that has any.
  Value& state_of(const Tensor& param);
  const Value* find_state(const Tensor& param) const;

  std::vector<ParamGroup> param_groups_;
  Value defaults_;
  Value::Dict state_;  // keys are the parameters (Tensor values), values are dicts
};

}  // namespace ember::optim
