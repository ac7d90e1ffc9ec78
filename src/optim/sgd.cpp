#include "ember/optim/sgd.h"

#include "ember/ops/optim.h"
#include "optim/util.h"

namespace ember::optim {

Value SGDOptions::to_value() const {
  // lr stays unset (None) when not given, so that each group must give one.
  return Value::dict({{Value("lr"), std::isnan(lr) ? Value() : Value(lr)},
                      {Value("momentum"), Value(momentum)},
                      {Value("dampening"), Value(dampening)},
                      {Value("weight_decay"), Value(weight_decay)},
                      {Value("nesterov"), Value(nesterov)},
                      {Value("maximize"), Value(maximize)},
                      {Value("foreach"), Value()},
                      {Value("differentiable"), Value(false)}});
}

namespace {
const SGDOptions& sgd_checked(const SGDOptions& o) {
  if (!std::isnan(o.lr)) detail::check_arg(o.lr >= 0.0, "learning rate", o.lr);
  detail::check_arg(o.momentum >= 0.0, "momentum value", o.momentum);
  detail::check_arg(o.weight_decay >= 0.0, "weight_decay value", o.weight_decay);
  EMBER_CHECK(!o.nesterov || (o.momentum > 0 && o.dampening == 0), ValueError,
              "Nesterov momentum requires a momentum and zero dampening");
  return o;
}
}  // namespace

SGD::SGD(std::vector<Tensor> params, SGDOptions options)
    : SGD(std::vector<ParamGroup>{ParamGroup(std::move(params))}, options) {}

SGD::SGD(std::vector<ParamGroup> groups, SGDOptions options) : Optimizer(std::move(groups), sgd_checked(options).to_value()) {
  for (const ParamGroup& g : param_groups_)
    EMBER_CHECK(!g.options.at(Value("lr")).is_none(), ValueError,
                "parameter group didn't specify a value of required optimization parameter lr");
}

Tensor SGD::step(const std::function<Tensor()>& closure) {
  Tensor loss = detail::call_closure(closure);
  autograd::NoGradGuard no_grad;
  for (const ParamGroup& group : param_groups_) {
    const double momentum = group.get("momentum");
    std::vector<Tensor> params, grads, bufs;
    std::vector<int64_t> fresh;
    for (const Tensor& p : group.params) {
      const Tensor g = autograd::grad(p);
      if (!g.defined()) continue;
      Value& state = state_of(p);
      Tensor buf = detail::state_tensor(state, "momentum_buffer");
      if (momentum != 0) {
        if (!buf.defined()) {
          buf = empty_like(p);
          fresh.push_back(static_cast<int64_t>(params.size()));
        }
        bufs.push_back(detail::real_view(buf));
      }
      params.push_back(detail::real_view(p));
      grads.push_back(detail::real_view(g));
      state.set(Value("momentum_buffer"), buf.defined() ? Value(buf) : Value());
    }
    if (!params.empty())
      _fused_sgd_(params, grads, bufs, group.get("lr"), momentum, group.get("dampening"), group.get("weight_decay"),
                  detail::flag(group, "nesterov"), detail::flag(group, "maximize"), fresh);
  }
  return loss;
}

}  // namespace ember::optim
