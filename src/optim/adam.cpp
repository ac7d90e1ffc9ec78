#include "ember/optim/adam.h"

#include "ember/ops/optim.h"
#include "optim/util.h"

namespace ember::optim {

namespace {
template <typename O>
Value adam_defaults(const O& o, bool adamw) {
  detail::check_arg(0.0 <= o.lr, "learning rate", o.lr);
  detail::check_arg(0.0 <= o.eps, "epsilon value", o.eps);
  detail::check_betas(o.betas);
  detail::check_arg(0.0 <= o.weight_decay, "weight_decay value", o.weight_decay);
  Value::Dict d = {{Value("lr"), Value(o.lr)},
                   {Value("betas"), detail::pair_value(o.betas)},
                   {Value("eps"), Value(o.eps)},
                   {Value("weight_decay"), Value(o.weight_decay)},
                   {Value("amsgrad"), Value(o.amsgrad)}};
  // torch's key order: Adam lists maximize before foreach, AdamW after.
  if (adamw) {
    d.emplace_back(Value("foreach"), Value());
    d.emplace_back(Value("maximize"), Value(o.maximize));
    d.emplace_back(Value("capturable"), Value(false));
  } else {
    d.emplace_back(Value("maximize"), Value(o.maximize));
    d.emplace_back(Value("foreach"), Value());
    d.emplace_back(Value("capturable"), Value(false));
    d.emplace_back(Value("differentiable"), Value(false));
    d.emplace_back(Value("fused"), Value(false));
  }
  return Value::dict(std::move(d));
}

// One fused call per group; the state is created on a parameter's first step.
void adam_update(std::vector<ParamGroup>& groups, const std::function<Value&(const Tensor&)>& state_of,
                 bool decoupled) {
  for (const ParamGroup& group : groups) {
    const bool amsgrad = detail::flag(group, "amsgrad");
    const auto [beta1, beta2] = detail::betas(group);
    std::vector<Tensor> params, grads, exp_avgs, exp_avg_sqs, max_sqs, steps;
    for (const Tensor& p : group.params) {
      const Tensor g = autograd::grad(p);
      if (!g.defined()) continue;
      Value& state = state_of(p);
      if (state.entries().empty()) {
        state.set(Value("step"), Value(detail::step_counter()));
        state.set(Value("exp_avg"), Value(zeros_like(p)));
        state.set(Value("exp_avg_sq"), Value(zeros_like(p)));
        if (amsgrad) state.set(Value("max_exp_avg_sq"), Value(zeros_like(p)));
      }
      params.push_back(detail::real_view(p));
      grads.push_back(detail::real_view(g));
      exp_avgs.push_back(detail::real_view(state.at(Value("exp_avg")).to_tensor()));
      exp_avg_sqs.push_back(detail::real_view(state.at(Value("exp_avg_sq")).to_tensor()));
      if (amsgrad) max_sqs.push_back(detail::real_view(state.at(Value("max_exp_avg_sq")).to_tensor()));
      steps.push_back(state.at(Value("step")).to_tensor());
    }
    if (!params.empty())
      _fused_adam_(params, grads, exp_avgs, exp_avg_sqs, max_sqs, steps, group.get("lr"), beta1, beta2,
                   group.get("weight_decay"), group.get("eps"), amsgrad, detail::flag(group, "maximize"), decoupled);
  }
}
}  // namespace

Value AdamOptions::to_value() const { return adam_defaults(*this, false); }
Value AdamWOptions::to_value() const { return adam_defaults(*this, true); }

Adam::Adam(std::vector<Tensor> params, AdamOptions options) : Optimizer(std::move(params), options.to_value()) {}
Adam::Adam(std::vector<ParamGroup> groups, AdamOptions options) : Optimizer(std::move(groups), options.to_value()) {}

Tensor Adam::step(const std::function<Tensor()>& closure) {
  Tensor loss = detail::call_closure(closure);
  autograd::NoGradGuard no_grad;
  adam_update(param_groups_, [this](const Tensor& p) -> Value& { return state_of(p); }, false);
  return loss;
}

AdamW::AdamW(std::vector<Tensor> params, AdamWOptions options) : Optimizer(std::move(params), options.to_value()) {}
AdamW::AdamW(std::vector<ParamGroup> groups, AdamWOptions options)
    : Optimizer(std::move(groups), options.to_value()) {}

Tensor AdamW::step(const std::function<Tensor()>& closure) {
  Tensor loss = detail::call_closure(closure);
  autograd::NoGradGuard no_grad;
  adam_update(param_groups_, [this](const Tensor& p) -> Value& { return state_of(p); }, true);
  return loss;
}

}  // namespace ember::optim
