// ember::optim against torch.optim: every optimizer's trajectory on a small regression (and
// LBFGS on Rosenbrock, with and without the strong-Wolfe line search) equals PyTorch's numbers
// in optim_refs.h (written by optim_refs.py); state_dict round trips continue identically;
// bad hyper-parameters and state dicts raise torch's errors.
#include <functional>
#include <map>
#include <memory>

#include "ember/autograd.h"
#include "ember/ops/optim.h"
#include "ember/optim.h"
#include "optim_refs.h"
#include "test_util.h"
#include "torch_refs.h"

namespace ember::optim_test {

namespace ag = autograd;
namespace refs = optim_refs;
using namespace optim;  // NOLINT
using testing::find_ref, testing::formula, testing::gw;

Tensor optim_ref(const std::string& name) {
  Tensor t = find_ref(refs::kRefEntries, refs::kValues, name);
  EXPECT_TRUE(t.defined()) << "no reference named " << name;
  return t;
}

double max_diff(const Tensor& a, const Tensor& b) {
  return max(abs(sub(ag::detach(a).to(kDouble), b.to(kDouble)))).item<double>();
}

// The regression of optim_refs.py: W [5, 3], b [3], c [2, 2] (c only in steps k % 3 != 0).
struct Regression {
  std::vector<Tensor> params;
  Tensor x = formula({16, 5}, 0.61, 1.0), y = gw({16, 3}, 2.0);
  Regression() {
    const std::vector<std::vector<int64_t>> shapes = {{5, 3}, {3}, {2, 2}};
    for (size_t k = 0; k < shapes.size(); ++k) {
      Tensor p = formula(shapes[k], 0.7, 0.37 * static_cast<double>(k) + 0.1, 0.5);
      ag::set_requires_grad(p);
      params.push_back(p);
    }
  }
  Tensor loss(int64_t k) const {
    const Tensor r = sub(add(matmul(x, params[0]), params[1]), y);
    Tensor l = mean(mul(r, r));
    if (k % 3 != 0) {
      const Tensor cc = sub(mul(params[2], params[2]), 0.5);
      const Tensor tie = sub(sum(params[2]), sum(params[0]));
      l = add(add(l, mul(sum(mul(cc, cc)), 0.1)), mul(mul(tie, tie), 0.01));
    }
    return l;
  }
  // One training step of opt at step index k (zero_grad to None, backward, step).
  void train(Optimizer& opt, int64_t k) const {
    opt.zero_grad(true);
    ag::backward({loss(k)});
    opt.step();
  }
};

using Factory = std::function<std::unique_ptr<Optimizer>(std::vector<Tensor>)>;

// The optimizers of optim_refs.py's CASES, by name.
const std::map<std::string, Factory>& factories() {
  static const std::map<std::string, Factory> m = {
      {"sgd", [](auto p) { return std::make_unique<SGD>(p, SGDOptions{.lr = 0.1}); }},
      {"sgd_momentum",
       [](auto p) {
         return std::make_unique<SGD>(p, SGDOptions{.lr = 0.1, .momentum = 0.9, .dampening = 0.3, .weight_decay = 0.01});
       }},
      {"sgd_nesterov",
       [](auto p) {
         return std::make_unique<SGD>(p, SGDOptions{.lr = 0.05, .momentum = 0.9, .weight_decay = 0.1, .nesterov = true});
       }},
      {"sgd_maximize",
       [](auto p) { return std::make_unique<SGD>(p, SGDOptions{.lr = 0.02, .momentum = 0.5, .maximize = true}); }},
      {"adam", [](auto p) { return std::make_unique<Adam>(p, AdamOptions{.lr = 0.01}); }},
      {"adam_amsgrad",
       [](auto p) {
         return std::make_unique<Adam>(p, AdamOptions{.lr = 0.01, .betas = {0.8, 0.99}, .weight_decay = 0.1, .amsgrad = true});
       }},
      {"adam_maximize", [](auto p) { return std::make_unique<Adam>(p, AdamOptions{.lr = 0.01, .maximize = true}); }},
      {"adamw", [](auto p) { return std::make_unique<AdamW>(p, AdamWOptions{.lr = 0.01}); }},
      {"adamw_amsgrad",
       [](auto p) { return std::make_unique<AdamW>(p, AdamWOptions{.lr = 0.01, .weight_decay = 0.1, .amsgrad = true}); }},
      {"rmsprop", [](auto p) { return std::make_unique<RMSprop>(p, RMSpropOptions{.lr = 0.01}); }},
      {"rmsprop_centered",
       [](auto p) {
         return std::make_unique<RMSprop>(
             p, RMSpropOptions{.lr = 0.01, .alpha = 0.9, .weight_decay = 0.1, .momentum = 0.9, .centered = true});
       }},
      {"adagrad",
       [](auto p) {
         return std::make_unique<Adagrad>(
             p, AdagradOptions{.lr = 0.1, .lr_decay = 0.01, .weight_decay = 0.1, .initial_accumulator_value = 0.1});
       }},
      {"adadelta",
       [](auto p) {
         return std::make_unique<Adadelta>(p, AdadeltaOptions{.lr = 0.5, .rho = 0.8, .weight_decay = 0.1, .maximize = true});
       }},
      {"adamax",
       [](auto p) {
         return std::make_unique<Adamax>(p, AdamaxOptions{.lr = 0.01, .betas = {0.8, 0.9}, .weight_decay = 0.1});
       }},
      {"nadam",
       [](auto p) {
         return std::make_unique<NAdam>(p, NAdamOptions{.lr = 0.01, .weight_decay = 0.1, .momentum_decay = 0.01});
       }},
      {"radam",
       [](auto p) {
         return std::make_unique<RAdam>(p, RAdamOptions{.lr = 0.01, .betas = {0.8, 0.99}, .weight_decay = 0.1});
       }},
  };
  return m;
}

TEST(Optim, TrajectoriesMatchTorch) {
  for (const char* name : refs::kCases) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(factories().count(name)) << "no C++ optimizer for case " << name;
    Regression prob;
    auto opt = factories().at(name)(prob.params);
    for (int64_t k = 1; k <= 20; ++k) {
      prob.train(*opt, k - 1);
      if (k % 5 != 0) continue;
      for (size_t i = 0; i < prob.params.size(); ++i) {
        const std::string key = std::string(name) + "/step" + std::to_string(k) + "/p" + std::to_string(i);
        // NAdam's float32 mu_product makes its coefficients round differently (~1e-10).
        EXPECT_LT(max_diff(prob.params[i], optim_ref(key)), std::string(name) == "nadam" ? 1e-9 : 1e-10) << key;
      }
    }
  }
}

Tensor rosenbrock_loss(const Tensor& p, const Tensor& q) {
  auto term = [&](int64_t i) {
    const Tensor x = p.select(0, i), y = q.select(0, 0).select(0, 0);
    const Tensor a = add(neg(x), 1.0), b = sub(y, mul(x, x));
    return add(mul(a, a), mul(mul(b, b), 100.0));
  };
  return add(term(0), term(1));
}

TEST(Optim, LbfgsRosenbrockMatchesTorch) {
  for (const bool wolfe : {false, true}) {
    const std::string name = wolfe ? "lbfgs_strong_wolfe" : "lbfgs_plain";
    SCOPED_TRACE(name);
    Tensor p = tensor({-1.5, 1.2}), q = tensor({2.0}).reshape({1, 1});
    ag::set_requires_grad(p);
    ag::set_requires_grad(q);
    LBFGSOptions options;
    options.lr = wolfe ? 1.0 : 0.1;
    options.max_iter = 5;
    options.history_size = 4;
    if (wolfe) options.line_search_fn = "strong_wolfe";
    LBFGS opt({p, q}, options);
    auto closure = [&] {
      opt.zero_grad();
      Tensor loss = rosenbrock_loss(p, q);
      ag::backward({loss});
      return loss;
    };
    for (int k = 1; k <= 4; ++k) {
      const Tensor loss = opt.step(closure);
      const std::string pre = name + "/step" + std::to_string(k);
      EXPECT_LT(max_diff(loss.reshape({1}), optim_ref(pre + "/loss")), 1e-10) << pre;
      EXPECT_LT(max_diff(p, optim_ref(pre + "/p0")), 1e-10) << pre;
      EXPECT_LT(max_diff(q, optim_ref(pre + "/p1")), 1e-10) << pre;
    }
    const Tensor evals = optim_ref(name + "/evals");
    const Value sd = opt.state_dict();
    const Value& st = sd.at(Value("state")).at(Value(int64_t{0}));
    EXPECT_EQ(st.at(Value("func_evals")).to_int(), static_cast<int64_t>(evals.select(0, 0).item<double>()));
    EXPECT_EQ(st.at(Value("n_iter")).to_int(), static_cast<int64_t>(evals.select(0, 1).item<double>()));
  }
}

TEST(Optim, ParamGroupsTakeTheirOwnOptions) {
  // Group 0: lr 0.05 with Nesterov momentum; group 1: the defaults plus weight decay. Each
  // parameter must move exactly as a single-group SGD with its group's options.
  Regression a, b;
  SGD grouped({ParamGroup({a.params[0]}, Value::dict({{Value("lr"), Value(0.05)}, {Value("nesterov"), Value(true)}})),
               ParamGroup({a.params[1], a.params[2]}, Value::dict({{Value("weight_decay"), Value(0.1)}}))},
              {.lr = 0.1, .momentum = 0.9});
  SGD first({b.params[0]}, {.lr = 0.05, .momentum = 0.9, .nesterov = true});
  SGD rest({b.params[1], b.params[2]}, {.lr = 0.1, .momentum = 0.9, .weight_decay = 0.1});
  for (int64_t k = 0; k < 6; ++k) {
    a.train(grouped, k);
    first.zero_grad();
    rest.zero_grad();
    ag::backward({b.loss(k)});
    first.step();
    rest.step();
  }
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(max_diff(a.params[i], b.params[i]), 0.0) << i;
  EXPECT_EQ(grouped.param_groups()[0].get("lr"), 0.05);
  EXPECT_EQ(grouped.param_groups()[1].get("lr"), 0.1);
}

TEST(Optim, StateDictRoundTripContinuesIdentically) {
  for (const char* name : refs::kCases) {
    SCOPED_TRACE(name);
    Regression prob, other;
    auto opt = factories().at(name)(prob.params);
    for (int64_t k = 0; k < 10; ++k) prob.train(*opt, k);
    {
      ag::NoGradGuard no_grad;
      for (size_t i = 0; i < 3; ++i) Tensor(other.params[i]).copy_(prob.params[i]);
    }
    const Value sd = opt->state_dict();
    auto fresh = factories().at(name)(other.params);
    fresh->load_state_dict(sd);
    EXPECT_EQ(fresh->state_dict().at(Value("param_groups")), sd.at(Value("param_groups")));
    for (int64_t k = 10; k < 20; ++k) {
      prob.train(*opt, k);
      other.train(*fresh, k);
    }
    // NAdam's float32 mu_product loads as float64 (cast to the parameter's dtype, as torch does).
    const double tol = std::string(name) == "nadam" ? 1e-10 : 0.0;
    for (size_t i = 0; i < 3; ++i) EXPECT_LE(max_diff(prob.params[i], other.params[i]), tol) << i;
    // The loaded state is a copy: the fresh optimizer never wrote the saved tensors.
    const Value& saved = sd.at(Value("state"));
    const Value fresh_sd = fresh->state_dict();
    const Value& live = fresh_sd.at(Value("state"));
    for (const auto& [k, v] : saved.entries()) {
      for (const auto& [key, t] : v.entries()) {
        if (t.is_tensor()) {
          EXPECT_FALSE(t.to_tensor().is_same(live.at(k).at(key).to_tensor())) << key.repr();
        }
      }
    }
  }
}

TEST(Optim, StateDictLayoutIsTorchs) {
  Regression prob;
  SGD opt({ParamGroup({prob.params[0]}), ParamGroup({prob.params[1], prob.params[2]}, Value::dict({{Value("lr"), Value(0.5)}}))},
          {.lr = 0.1, .momentum = 0.9});
  prob.train(opt, 0);
  const Value sd = opt.state_dict();
  const Value& groups = sd.at(Value("param_groups"));
  ASSERT_EQ(groups.items().size(), 2u);
  EXPECT_EQ(groups.items()[0].repr(),
            "{'lr': 0.1, 'momentum': 0.9, 'dampening': 0.0, 'weight_decay': 0.0, 'nesterov': False, "
            "'maximize': False, 'foreach': None, 'differentiable': False, 'params': [0]}");
  EXPECT_EQ(groups.items()[1].at(Value("params")).repr(), "[1, 2]");
  EXPECT_EQ(groups.items()[1].at(Value("lr")).to_double(), 0.5);
  // c had no gradient at step 0: only parameters 0 and 1 have state.
  const Value& state = sd.at(Value("state"));
  ASSERT_EQ(state.entries().size(), 2u);
  EXPECT_EQ(state.entries()[0].first, Value(int64_t{0}));
  EXPECT_TRUE(state.entries()[0].second.at(Value("momentum_buffer")).is_tensor());

  Adam adam(prob.params);
  prob.train(adam, 1);
  const Value adam_sd = adam.state_dict();
  const Value& st = adam_sd.at(Value("state")).at(Value(int64_t{0}));
  EXPECT_EQ(st.at(Value("step")).to_tensor().dtype(), kFloat);
  EXPECT_EQ(st.at(Value("step")).to_tensor().item<double>(), 1.0);
  EXPECT_EQ(st.repr().substr(0, 10), "{'step': T");
}

TEST(Optim, LoadStateDictCastsAndChecks) {
  Regression prob;
  Adam opt(prob.params, {.lr = 0.01});
  prob.train(opt, 1);
  Value sd = opt.state_dict();
  // A float32 moment is cast to the parameter's float64; the float32 step count stays float32.
  Value& st0 = sd.at(Value("state")).at(Value(int64_t{0}));
  st0.set(Value("exp_avg"), Value(st0.at(Value("exp_avg")).to_tensor().to(kFloat)));
  Regression other;
  Adam fresh(other.params, {.lr = 0.01});
  fresh.load_state_dict(sd);
  const Value fresh_sd = fresh.state_dict();
  const Value& loaded = fresh_sd.at(Value("state")).at(Value(int64_t{0}));
  EXPECT_EQ(loaded.at(Value("exp_avg")).to_tensor().dtype(), kDouble);
  EXPECT_EQ(loaded.at(Value("step")).to_tensor().dtype(), kFloat);

  // Errors, with nothing changed.
  SGD two({ParamGroup({other.params[0]}), ParamGroup({other.params[1], other.params[2]})}, {.lr = 0.1});
  const Value before = two.state_dict();
  testing::expect_error<ValueError>([&] { two.load_state_dict(sd); }, "loaded state dict has a different number of parameter groups");
  Adam small({other.params[0], other.params[1]});
  testing::expect_error<ValueError>([&] { small.load_state_dict(sd); }, "loaded state dict contains a parameter group that doesn't match the size of optimizer's group");
  EXPECT_EQ(two.state_dict().repr(), before.repr());
}

TEST(Optim, BadHyperParametersRaiseTorchsErrors) {
  Regression prob;
  const auto& p = prob.params;
  testing::expect_error<ValueError>([&] { SGD(p, {.lr = -0.1}); }, "Invalid learning rate: -0.1");
  testing::expect_error<ValueError>([&] { SGD(p, {.lr = 0.1, .momentum = -0.5}); }, "Invalid momentum value: -0.5");
  testing::expect_error<ValueError>([&] { SGD(p, {.lr = 0.1, .nesterov = true}); }, "Nesterov momentum requires a momentum and zero dampening");
  testing::expect_error<ValueError>([&] { SGD(p, {}); }, "parameter group didn't specify a value of required optimization parameter lr");
  testing::expect_error<ValueError>([&] { Adam(p, {.betas = {1.0, 0.999}}); }, "Invalid beta parameter at index 0: 1.0");
  testing::expect_error<ValueError>([&] { Adam(p, {.betas = {0.9, -0.1}}); }, "Invalid beta parameter at index 1: -0.1");
  testing::expect_error<ValueError>([&] { Adam(p, {.eps = -1e-08}); }, "Invalid epsilon value: -1e-08");
  testing::expect_error<ValueError>([&] { AdamW(p, {.weight_decay = -0.1}); }, "Invalid weight_decay value: -0.1");
  testing::expect_error<ValueError>([&] { RMSprop(p, {.alpha = -0.5}); }, "Invalid alpha value: -0.5");
  testing::expect_error<ValueError>([&] { Adagrad(p, {.lr_decay = -1}); }, "Invalid lr_decay value: -1.0");
  testing::expect_error<ValueError>([&] { Adadelta(p, {.rho = 1.5}); }, "Invalid rho value: 1.5");
  testing::expect_error<ValueError>([&] { Adamax(p, {.betas = {0.9, 1.0}}); }, "Invalid beta parameter at index 1: 1.0");
  testing::expect_error<ValueError>([&] { NAdam(p, {.momentum_decay = -1}); }, "Invalid momentum_decay value: -1.0");
  testing::expect_error<ValueError>([&] { RAdam(p, {.lr = -1}); }, "Invalid learning rate: -1.0");
  // A parameter in two groups; LBFGS with groups; a non-leaf.
  testing::expect_error<ValueError>([&] { Adam({ParamGroup({p[0], p[1]}), ParamGroup({p[1]})}); }, "some parameters appear in more than one parameter group");
  LBFGS lbfgs({p[0]});
  lbfgs.add_param_group(ParamGroup({p[1]}));
  testing::expect_error<ValueError>([&] { lbfgs.step([&] { return prob.loss(1); }); }, "LBFGS doesn't support per-parameter options (parameter groups)");
  testing::expect_error<ValueError>([&] { SGD({mul(p[0], 2.0)}, {.lr = 0.1}); }, "can't optimize a non-leaf Tensor");
}

TEST(Optim, FusedOpsRefuseMismatchedLists) {
  ag::NoGradGuard no_grad;
  std::vector<Tensor> params = {zeros({3}), zeros({2, 2})}, grads = {ones({3}), ones({2, 2})};
  std::vector<Tensor> steps = {zeros({}), zeros({})};
  testing::expect_error<RuntimeError>([&] { _fused_adam_(params, {grads[0]}, {zeros({3}), zeros({2, 2})}, {zeros({3}), zeros({2, 2})}, {}, steps,
                                0.1, 0.9, 0.999, 0, 1e-8, false, false); }, "same number of tensors");
  testing::expect_error<RuntimeError>([&] { _fused_adam_(params, grads, {zeros({3}), zeros({4})}, {zeros({3}), zeros({2, 2})}, {}, steps, 0.1,
                                0.9, 0.999, 0, 1e-8, false, false); }, "has shape");
  EXPECT_EQ(steps[0].item<double>(), 0.0);  // nothing was written
  // A non-contiguous parameter is updated in place through a copy.
  Tensor base = arange(6.0, TensorOptions(kFloat)).reshape({2, 3});
  _fused_sgd_({base.t()}, {ones({3, 2})}, {}, 0.5, 0, 0, 0, false, false);
  EXPECT_EQ(sum(base).item<double>(), 15.0 - 3.0);
}

}  // namespace ember::optim_test
