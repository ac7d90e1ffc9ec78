#include "ember/optim/optimizer.h"

#include <unordered_set>

#include "ember/autograd.h"
#include "ember/error.h"

namespace ember::optim {

Optimizer::Optimizer(std::vector<ParamGroup> groups, Value defaults) : defaults_(std::move(defaults)) {
  EMBER_CHECK(defaults_.is_dict(), TypeError, "optimizer defaults must be a dict");
  EMBER_CHECK(!groups.empty(), ValueError, "optimizer got an empty parameter list");
  for (auto& g : groups) add_param_group(std::move(g));
}

Optimizer::Optimizer(std::vector<Tensor> params, Value defaults)
    : Optimizer(std::vector<ParamGroup>{ParamGroup(std::move(params))}, std::move(defaults)) {}

void Optimizer::add_param_group(ParamGroup group) {
  EMBER_CHECK(!group.params.empty(), ValueError, "optimizer got an empty parameter list");
  std::unordered_set<const TensorImpl*> seen;
  for (const auto& g : param_groups_)
    for (const auto& p : g.params) seen.insert(p.impl());
  for (const auto& p : group.params) {
    EMBER_CHECK(p.defined(), TypeError, "optimizer can only optimize defined Tensors");
    EMBER_CHECK(autograd::is_leaf(p), ValueError, "can't optimize a non-leaf Tensor");
    EMBER_CHECK(seen.insert(p.impl()).second, ValueError,
                "some parameters appear in more than one parameter group");
  }
  EMBER_CHECK(group.options.is_dict(), TypeError, "a parameter group's options must be a dict");
  for (const auto& [key, value] : defaults_.entries())
    if (!group.options.contains(key)) group.options.set(key, value);
  param_groups_.push_back(std::move(group));
}

void Optimizer::zero_grad(bool set_to_none) {
  for (const auto& group : param_groups_)
    for (const Tensor& p : group.params) autograd::clear_grad(p, set_to_none);
}

Value& Optimizer::state_of(const Tensor& param) {
  for (auto& [k, v] : state_)
    if (k.to_tensor().is_same(param)) return v;
  state_.emplace_back(Value(param), Value::dict());
  return state_.back().second;
}

const Value* Optimizer::find_state(const Tensor& param) const {
  for (const auto& [k, v] : state_)
    if (k.to_tensor().is_same(param)) return &v;
  return nullptr;
}

}  // namespace ember::optim
