#include "ember/optim/optimizer.h"

#include <unordered_map>
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

namespace {

// A deep copy of a loaded state value: containers rebuilt, tensors copied onto the parameter's
// device and, except "step", cast to its floating dtype (torch's cast in load_state_dict).
Value cast_state(const Tensor& param, const Value& v, std::string_view key) {
  if (v.is_tensor()) {
    Tensor t = v.to_tensor();
    if (!t.defined()) return v;
    if (param.defined() && key != "step") {
      if (param.is_floating_point()) t = t.to(param.dtype());
      t = t.to(param.device());
    }
    return Value(t.is_same(v.to_tensor()) ? t.detach().clone() : t.detach());
  }
  if (v.is_dict()) {
    Value::Dict out;
    for (const auto& [k, e] : v.entries())
      out.emplace_back(k, cast_state(param, e, k.is_string() ? std::string_view(k.to_string()) : std::string_view()));
    return Value::dict(std::move(out));
  }
  if (v.is_sequence()) {
    Value::List out;
    for (const Value& e : v.items()) out.push_back(cast_state(param, e, {}));
    return v.is_tuple() ? Value::tuple(std::move(out)) : Value::list(std::move(out));
  }
  return v;
}

const Value& state_dict_entry(const Value& dict, const char* key) {
  EMBER_CHECK(dict.is_dict(), TypeError, "an optimizer state dict must be a dict, got ", Value::kind_name(dict.kind()));
  const Value* v = dict.find(Value(key));
  EMBER_CHECK(v, IndexError, "optimizer state dict has no entry '", key, "'");
  return *v;
}

}  // namespace

Value Optimizer::state_dict() const {
  std::unordered_map<const TensorImpl*, int64_t> index;
  Value::List groups;
  for (const ParamGroup& g : param_groups_) {
    Value::Dict packed;
    for (const auto& [k, v] : g.options.entries())
      if (!(k.is_string() && k.to_string() == "params")) packed.emplace_back(k, v);
    Value::List ids;
    for (const Tensor& p : g.params) {
      auto [it, fresh] = index.emplace(p.impl(), static_cast<int64_t>(index.size()));
      ids.emplace_back(it->second);
    }
    packed.emplace_back(Value("params"), Value::list(std::move(ids)));
    groups.push_back(Value::dict(std::move(packed)));
  }
  Value::Dict state;
  for (const auto& [k, v] : state_) {
    if (k.is_tensor()) {
      auto it = index.find(k.to_tensor().impl());
      if (it != index.end()) {
        state.emplace_back(Value(it->second), v);
        continue;
      }
    }
    state.emplace_back(k, v);
  }
  return Value::dict({{Value("state"), Value::dict(std::move(state))},
                      {Value("param_groups"), Value::list(std::move(groups))}});
}

void Optimizer::load_state_dict(const Value& state_dict) {
  const Value& saved_groups = state_dict_entry(state_dict, "param_groups");
  const Value& saved_state = state_dict_entry(state_dict, "state");
  EMBER_CHECK(saved_groups.is_sequence(), TypeError, "a state dict's param_groups must be a list");
  EMBER_CHECK(saved_state.is_dict(), TypeError, "a state dict's state must be a dict");
  EMBER_CHECK(saved_groups.items().size() == param_groups_.size(), ValueError,
              "loaded state dict has a different number of parameter groups");
  // Saved parameter index -> this optimizer's parameter, group by group.
  std::vector<std::pair<Value, Tensor>> by_index;
  for (size_t i = 0; i < param_groups_.size(); ++i) {
    const Value& ids = state_dict_entry(saved_groups.items()[i], "params");
    EMBER_CHECK(ids.is_sequence(), TypeError, "a saved parameter group's params must be a list");
    EMBER_CHECK(ids.items().size() == param_groups_[i].params.size(), ValueError,
                "loaded state dict contains a parameter group that doesn't match the size of optimizer's group");
    for (size_t j = 0; j < ids.items().size(); ++j) by_index.emplace_back(ids.items()[j], param_groups_[i].params[j]);
  }
  // Everything is built first, then swapped in: a failure leaves the optimizer as it was.
  Value::Dict state;
  for (const auto& [k, v] : saved_state.entries()) {
    const Tensor* param = nullptr;
    for (const auto& [id, p] : by_index)
      if (id == k) {
        param = &p;
        break;
      }
    if (param) state.emplace_back(Value(*param), cast_state(*param, v, {}));
    else state.emplace_back(k, cast_state(Tensor(), v, {}));
  }
  std::vector<Value> options;
  for (size_t i = 0; i < param_groups_.size(); ++i) {
    Value::Dict o;
    for (const auto& [k, v] : saved_groups.items()[i].entries())
      if (!(k.is_string() && k.to_string() == "params")) o.emplace_back(k, v);
    options.push_back(Value::dict(std::move(o)));
  }
  for (size_t i = 0; i < param_groups_.size(); ++i) param_groups_[i].options = std::move(options[i]);
  state_ = std::move(state);
}

}  // namespace ember::optim
