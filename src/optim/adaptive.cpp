// RMSprop, Adagrad, Adadelta, Adamax, NAdam and RAdam: each step() collects a group's
// parameters with gradients and their state, creating the state on a parameter's first step
// (Adagrad: at construction), and runs the group's fused update.
#include "ember/ops/optim.h"
#include "ember/optim/adadelta.h"
#include "ember/optim/adagrad.h"
#include "ember/optim/adamax.h"
#include "ember/optim/nadam.h"
#include "ember/optim/radam.h"
#include "ember/optim/rmsprop.h"
#include "optim/util.h"

namespace ember::optim {

namespace {

// A group's parameters that have gradients, as real views, with their state dicts.
struct GroupLists {
  std::vector<Tensor> orig, params, grads;  // params and grads as real views
  std::vector<Value*> states;
};

GroupLists with_grads(const ParamGroup& group, const std::function<Value&(const Tensor&)>& state_of) {
  GroupLists l;
  for (const Tensor& p : group.params) {
    const Tensor g = autograd::grad(p);
    if (!g.defined()) continue;
    l.orig.push_back(p);
    l.params.push_back(detail::real_view(p));
    l.grads.push_back(detail::real_view(g));
  }
  // Every parameter's state exists before any is referred to: creating one may move the others.
  for (const Tensor& p : l.orig) state_of(p);
  for (const Tensor& p : l.orig) l.states.push_back(&state_of(p));
  return l;
}

// state[key] as a real view.
Tensor state_entry(Value& state, const char* key) { return detail::real_view(state.at(Value(key)).to_tensor()); }

void add_zeros(Value& state, const char* key, const Tensor& p) { state.set(Value(key), Value(zeros_like(p))); }

}  // namespace

// ---------------------------------------------------------------- RMSprop
Value RMSpropOptions::to_value() const {
  detail::check_arg(0.0 <= lr, "learning rate", lr);
  detail::check_arg(0.0 <= eps, "epsilon value", eps);
  detail::check_arg(0.0 <= momentum, "momentum value", momentum);
  detail::check_arg(0.0 <= weight_decay, "weight_decay value", weight_decay);
  detail::check_arg(0.0 <= alpha, "alpha value", alpha);
  return Value::dict({{Value("lr"), Value(lr)}, {Value("momentum"), Value(momentum)}, {Value("alpha"), Value(alpha)},
                      {Value("eps"), Value(eps)}, {Value("centered"), Value(centered)},
                      {Value("weight_decay"), Value(weight_decay)}, {Value("foreach"), Value()},
                      {Value("maximize"), Value(maximize)}, {Value("differentiable"), Value(false)}});
}

RMSprop::RMSprop(std::vector<Tensor> params, RMSpropOptions options)
    : Optimizer(std::move(params), options.to_value()) {}
RMSprop::RMSprop(std::vector<ParamGroup> groups, RMSpropOptions options)
    : Optimizer(std::move(groups), options.to_value()) {}

Tensor RMSprop::step(const std::function<Tensor()>& closure) {
  Tensor loss = detail::call_closure(closure);
  autograd::NoGradGuard no_grad;
  for (const ParamGroup& group : param_groups_) {
    const double momentum = group.get("momentum");
    const bool centered = detail::flag(group, "centered");
    GroupLists l = with_grads(group, [this](const Tensor& p) -> Value& { return state_of(p); });
    std::vector<Tensor> square_avgs, grad_avgs, bufs;
    for (size_t i = 0; i < l.params.size(); ++i) {
      Value& s = *l.states[i];
      if (s.entries().empty()) {
        s.set(Value("step"), Value(int64_t{0}));
        add_zeros(s, "square_avg", l.orig[i]);
        if (momentum > 0) add_zeros(s, "momentum_buffer", l.orig[i]);
        if (centered) add_zeros(s, "grad_avg", l.orig[i]);
      }
      square_avgs.push_back(state_entry(s, "square_avg"));
      if (momentum > 0) bufs.push_back(state_entry(s, "momentum_buffer"));
      if (centered) grad_avgs.push_back(state_entry(s, "grad_avg"));
      s.set(Value("step"), Value(s.at(Value("step")).to_int() + 1));
    }
    if (!l.params.empty())
      _fused_rmsprop_(l.params, l.grads, square_avgs, grad_avgs, bufs, group.get("lr"), group.get("alpha"),
                      group.get("eps"), group.get("weight_decay"), momentum, centered, detail::flag(group, "maximize"));
  }
  return loss;
}

// ---------------------------------------------------------------- Adagrad
Value AdagradOptions::to_value() const {
  detail::check_arg(0.0 <= lr, "learning rate", lr);
  detail::check_arg(0.0 <= lr_decay, "lr_decay value", lr_decay);
  detail::check_arg(0.0 <= weight_decay, "weight_decay value", weight_decay);
  detail::check_arg(0.0 <= initial_accumulator_value, "initial_accumulator_value value", initial_accumulator_value);
  detail::check_arg(0.0 <= eps, "epsilon value", eps);
  return Value::dict({{Value("lr"), Value(lr)}, {Value("lr_decay"), Value(lr_decay)}, {Value("eps"), Value(eps)},
                      {Value("weight_decay"), Value(weight_decay)},
                      {Value("initial_accumulator_value"), Value(initial_accumulator_value)},
                      {Value("foreach"), Value()}, {Value("maximize"), Value(maximize)}});
}

Adagrad::Adagrad(std::vector<Tensor> params, AdagradOptions options)
    : Optimizer(std::move(params), options.to_value()) {
  init_state();
}
Adagrad::Adagrad(std::vector<ParamGroup> groups, AdagradOptions options)
    : Optimizer(std::move(groups), options.to_value()) {
  init_state();
}

void Adagrad::init_state() {
  for (const ParamGroup& group : param_groups_) {
    const double init = group.get("initial_accumulator_value");
    for (const Tensor& p : group.params) {
      Value& s = state_of(p);
      s.set(Value("step"), Value(detail::step_counter()));
      // A complex accumulator starts at init + init i (torch's full_like of complex(init, init)).
      Tensor sum = zeros_like(p);
      detail::real_view(sum).fill_(init);
      s.set(Value("sum"), Value(sum));
    }
  }
}

Tensor Adagrad::step(const std::function<Tensor()>& closure) {
  Tensor loss = detail::call_closure(closure);
  autograd::NoGradGuard no_grad;
  for (const ParamGroup& group : param_groups_) {
    GroupLists l = with_grads(group, [this](const Tensor& p) -> Value& { return state_of(p); });
    std::vector<Tensor> sums, steps;
    for (Value* s : l.states) {
      sums.push_back(state_entry(*s, "sum"));
      steps.push_back(s->at(Value("step")).to_tensor());
    }
    if (!l.params.empty())
      _fused_adagrad_(l.params, l.grads, sums, steps, group.get("lr"), group.get("lr_decay"),
                      group.get("weight_decay"), group.get("eps"), detail::flag(group, "maximize"));
  }
  return loss;
}

// ---------------------------------------------------------------- Adadelta
Value AdadeltaOptions::to_value() const {
  detail::check_arg(0.0 <= lr, "learning rate", lr);
  detail::check_arg(0.0 <= rho && rho <= 1.0, "rho value", rho);
  detail::check_arg(0.0 <= eps, "epsilon value", eps);
  detail::check_arg(0.0 <= weight_decay, "weight_decay value", weight_decay);
  return Value::dict({{Value("lr"), Value(lr)}, {Value("rho"), Value(rho)}, {Value("eps"), Value(eps)},
                      {Value("weight_decay"), Value(weight_decay)}, {Value("maximize"), Value(maximize)},
                      {Value("foreach"), Value()}});
}

Adadelta::Adadelta(std::vector<Tensor> params, AdadeltaOptions options)
    : Optimizer(std::move(params), options.to_value()) {}
Adadelta::Adadelta(std::vector<ParamGroup> groups, AdadeltaOptions options)
    : Optimizer(std::move(groups), options.to_value()) {}

Tensor Adadelta::step(const std::function<Tensor()>& closure) {
  Tensor loss = detail::call_closure(closure);
  autograd::NoGradGuard no_grad;
  for (const ParamGroup& group : param_groups_) {
    GroupLists l = with_grads(group, [this](const Tensor& p) -> Value& { return state_of(p); });
    std::vector<Tensor> square_avgs, acc_deltas;
    for (size_t i = 0; i < l.params.size(); ++i) {
      Value& s = *l.states[i];
      if (s.entries().empty()) {
        s.set(Value("step"), Value(int64_t{0}));
        add_zeros(s, "square_avg", l.orig[i]);
        add_zeros(s, "acc_delta", l.orig[i]);
      }
      square_avgs.push_back(state_entry(s, "square_avg"));
      acc_deltas.push_back(state_entry(s, "acc_delta"));
      s.set(Value("step"), Value(s.at(Value("step")).to_int() + 1));
    }
    if (!l.params.empty())
      _fused_adadelta_(l.params, l.grads, square_avgs, acc_deltas, group.get("lr"), group.get("rho"),
                       group.get("eps"), group.get("weight_decay"), detail::flag(group, "maximize"));
  }
  return loss;
}

// ---------------------------------------------------------------- Adamax, NAdam, RAdam
namespace {
template <typename O>
void check_adam_family(const O& o) {
  detail::check_arg(0.0 <= o.lr, "learning rate", o.lr);
  detail::check_arg(0.0 <= o.eps, "epsilon value", o.eps);
  detail::check_betas(o.betas);
  detail::check_arg(0.0 <= o.weight_decay, "weight_decay value", o.weight_decay);
}

// exp_avg and a second moment (exp_inf or exp_avg_sq), created with a float32 step counter.
void moments(GroupLists& l, const char* second, bool mu_product, std::vector<Tensor>& m, std::vector<Tensor>& v,
             std::vector<Tensor>& steps, std::vector<Tensor>* mus) {
  for (size_t i = 0; i < l.params.size(); ++i) {
    Value& s = *l.states[i];
    if (s.entries().empty()) {
      s.set(Value("step"), Value(detail::step_counter()));
      if (mu_product) s.set(Value("mu_product"), Value(ones({}, TensorOptions(kFloat))));
      add_zeros(s, "exp_avg", l.orig[i]);
      add_zeros(s, second, l.orig[i]);
    }
    m.push_back(state_entry(s, "exp_avg"));
    v.push_back(state_entry(s, second));
    steps.push_back(s.at(Value("step")).to_tensor());
    if (mus) mus->push_back(s.at(Value("mu_product")).to_tensor());
  }
}
}  // namespace

Value AdamaxOptions::to_value() const {
  check_adam_family(*this);
  return Value::dict({{Value("lr"), Value(lr)}, {Value("betas"), detail::pair_value(betas)}, {Value("eps"), Value(eps)},
                      {Value("weight_decay"), Value(weight_decay)}, {Value("foreach"), Value()},
                      {Value("maximize"), Value(maximize)}});
}

Adamax::Adamax(std::vector<Tensor> params, AdamaxOptions options) : Optimizer(std::move(params), options.to_value()) {}
Adamax::Adamax(std::vector<ParamGroup> groups, AdamaxOptions options)
    : Optimizer(std::move(groups), options.to_value()) {}

Tensor Adamax::step(const std::function<Tensor()>& closure) {
  Tensor loss = detail::call_closure(closure);
  autograd::NoGradGuard no_grad;
  for (const ParamGroup& group : param_groups_) {
    const auto [beta1, beta2] = detail::betas(group);
    GroupLists l = with_grads(group, [this](const Tensor& p) -> Value& { return state_of(p); });
    std::vector<Tensor> m, u, steps;
    moments(l, "exp_inf", false, m, u, steps, nullptr);
    if (!l.params.empty())
      _fused_adamax_(l.params, l.grads, m, u, steps, group.get("lr"), beta1, beta2, group.get("eps"),
                     group.get("weight_decay"), detail::flag(group, "maximize"));
  }
  return loss;
}

Value NAdamOptions::to_value() const {
  check_adam_family(*this);
  detail::check_arg(0.0 <= momentum_decay, "momentum_decay value", momentum_decay);
  return Value::dict({{Value("lr"), Value(lr)}, {Value("betas"), detail::pair_value(betas)}, {Value("eps"), Value(eps)},
                      {Value("weight_decay"), Value(weight_decay)}, {Value("momentum_decay"), Value(momentum_decay)},
                      {Value("foreach"), Value()}});
}

NAdam::NAdam(std::vector<Tensor> params, NAdamOptions options) : Optimizer(std::move(params), options.to_value()) {}
NAdam::NAdam(std::vector<ParamGroup> groups, NAdamOptions options) : Optimizer(std::move(groups), options.to_value()) {}

Tensor NAdam::step(const std::function<Tensor()>& closure) {
  Tensor loss = detail::call_closure(closure);
  autograd::NoGradGuard no_grad;
  for (const ParamGroup& group : param_groups_) {
    const auto [beta1, beta2] = detail::betas(group);
    GroupLists l = with_grads(group, [this](const Tensor& p) -> Value& { return state_of(p); });
    std::vector<Tensor> m, v, steps, mus;
    moments(l, "exp_avg_sq", true, m, v, steps, &mus);
    if (!l.params.empty())
      _fused_nadam_(l.params, l.grads, m, v, mus, steps, group.get("lr"), beta1, beta2, group.get("weight_decay"),
                    group.get("momentum_decay"), group.get("eps"));
  }
  return loss;
}

Value RAdamOptions::to_value() const {
  check_adam_family(*this);
  return Value::dict({{Value("lr"), Value(lr)}, {Value("betas"), detail::pair_value(betas)}, {Value("eps"), Value(eps)},
                      {Value("weight_decay"), Value(weight_decay)}, {Value("foreach"), Value()}});
}

RAdam::RAdam(std::vector<Tensor> params, RAdamOptions options) : Optimizer(std::move(params), options.to_value()) {}
RAdam::RAdam(std::vector<ParamGroup> groups, RAdamOptions options) : Optimizer(std::move(groups), options.to_value()) {}

Tensor RAdam::step(const std::function<Tensor()>& closure) {
  Tensor loss = detail::call_closure(closure);
  autograd::NoGradGuard no_grad;
  for (const ParamGroup& group : param_groups_) {
    const auto [beta1, beta2] = detail::betas(group);
    GroupLists l = with_grads(group, [this](const Tensor& p) -> Value& { return state_of(p); });
    std::vector<Tensor> m, v, steps;
    moments(l, "exp_avg_sq", false, m, v, steps, nullptr);
    if (!l.params.empty())
      _fused_radam_(l.params, l.grads, m, v, steps, group.get("lr"), beta1, beta2, group.get("weight_decay"),
                    group.get("eps"));
  }
  return loss;
}

}  // namespace ember::optim
