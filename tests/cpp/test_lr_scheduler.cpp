// The C++ learning-rate schedulers (include/ember/optim/lr_scheduler.h) against PyTorch: the lr
// (and cycled momentum) sequence of every case in tests/cpp/lr_scheduler_refs.h (written by
// tests/cpp/lr_scheduler_refs.py), the same sequence continued by a fresh scheduler that loaded
// a state dict saved midway, torch's state_dict keys, verbose output, and the errors with
// torch's messages.
#include <cmath>
#include <memory>

#include "ember/optim.h"
#include "ember/optim/lr_scheduler.h"
#include "lr_scheduler_refs.h"
#include "test_util.h"
#include "torch_refs.h"

namespace ember::lr_scheduler_test {

namespace refs = lr_scheduler_refs;
using namespace optim;
using testing::find_ref;

// The generator's optimizers: two groups, lr 0.1 and 0.05; SGD with momentum 0.9, Adam with
// betas (0.9, 0.999), or Adagrad (no momentum at all). No parameter has a gradient, so their
// steps leave the parameters alone; the schedulers drive the groups' options.
enum class Kind { SGD, Adam, Adagrad };

std::unique_ptr<Optimizer> make_optimizer(Kind kind = Kind::SGD) {
  std::vector<ParamGroup> groups;
  groups.emplace_back(std::vector<Tensor>{zeros({2})});
  groups.emplace_back(std::vector<Tensor>{zeros({3})}, Value::dict({{"lr", 0.05}}));
  switch (kind) {
    case Kind::SGD: return std::make_unique<SGD>(std::move(groups), SGDOptions{.lr = 0.1, .momentum = 0.9});
    case Kind::Adam: return std::make_unique<Adam>(std::move(groups), AdamOptions{.lr = 0.1});
    case Kind::Adagrad: break;
  }
  return std::make_unique<Adagrad>(std::move(groups), AdagradOptions{.lr = 0.1});
}

std::vector<double> lrs_of(const Optimizer& o) {
  std::vector<double> v;
  for (const auto& g : o.param_groups()) v.push_back(g.get("lr"));
  return v;
}

std::vector<double> momenta_of(const Optimizer& o) {
  std::vector<double> v;
  for (const auto& g : o.param_groups())
    v.push_back(g.has("betas") ? g.options.at("betas").items().at(0).to_double() : g.get("momentum"));
  return v;
}

double metric(int64_t t) { return std::max(1 - 0.1 * static_cast<double>(t), 0.3) + 0.01 * std::sin(t); }

// A scheduler under test, stepped the way its case steps it.
enum class Stepping { Plain, Fractional, Metric, NegatedMetric };

struct Driven {
  std::shared_ptr<LRScheduler> sched;
  std::shared_ptr<ReduceLROnPlateau> plateau;
  Stepping stepping = Stepping::Plain;

  void step(int64_t t) const {
    switch (stepping) {
      case Stepping::Plain: return sched->step();
      case Stepping::Fractional:
        return dynamic_cast<CosineAnnealingWarmRestarts&>(*sched).step(refs::kFractions.at(t - 1));
      case Stepping::Metric: return plateau->step(metric(t));
      case Stepping::NegatedMetric: return plateau->step(-metric(t));
    }
  }
  Value state_dict() const { return sched ? sched->state_dict() : plateau->state_dict(); }
  void load_state_dict(const Value& v) const { sched ? sched->load_state_dict(v) : plateau->load_state_dict(v); }
};

template <class S, class... A>
Driven plain(A&&... a) {
  return {std::make_shared<S>(std::forward<A>(a)...), nullptr};
}

struct Case {
  const char* name;
  Kind kind;
  std::function<Driven(Optimizer&)> make;
};

using P = std::shared_ptr<LRScheduler>;

// The generator's cases, in its order.
const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"lambda", Kind::SGD,
       [](Optimizer& o) { return plain<LambdaLR>(o, [](int64_t e) { return std::pow(0.95, e); }); }},
      {"lambda_per_group", Kind::SGD,
       [](Optimizer& o) {
         return plain<LambdaLR>(o, std::vector<LambdaLR::Fn>{[](int64_t e) { return std::pow(0.9, e); },
                                                             [](int64_t e) { return 1.0 / (e + 1); }});
       }},
      {"multiplicative", Kind::SGD,
       [](Optimizer& o) { return plain<MultiplicativeLR>(o, [](int64_t e) { return e % 2 ? 0.9 : 0.98; }); }},
      {"step", Kind::SGD, [](Optimizer& o) { return plain<StepLR>(o, 3, 0.5); }},
      {"multistep", Kind::SGD,
       [](Optimizer& o) { return plain<MultiStepLR>(o, std::vector<int64_t>{12, 3, 7, 7}, 0.5); }},
      {"constant", Kind::SGD, [](Optimizer& o) { return plain<ConstantLR>(o, 0.5, 4); }},
      {"constant_default", Kind::SGD, [](Optimizer& o) { return plain<ConstantLR>(o); }},
      {"linear", Kind::SGD, [](Optimizer& o) { return plain<LinearLR>(o, 0.25, 0.9, 8); }},
      {"linear_down", Kind::SGD, [](Optimizer& o) { return plain<LinearLR>(o, 1.0, 0.1, 10); }},
      {"exponential", Kind::SGD, [](Optimizer& o) { return plain<ExponentialLR>(o, 0.9); }},
      {"cosine", Kind::SGD, [](Optimizer& o) { return plain<CosineAnnealingLR>(o, 10, 0.001); }},
      {"cosine_zero_min", Kind::SGD, [](Optimizer& o) { return plain<CosineAnnealingLR>(o, 7); }},
      {"warm_restarts", Kind::SGD, [](Optimizer& o) { return plain<CosineAnnealingWarmRestarts>(o, 5, 2, 0.001); }},
      {"warm_restarts_mult1", Kind::SGD, [](Optimizer& o) { return plain<CosineAnnealingWarmRestarts>(o, 6); }},
      {"warm_restarts_fractional", Kind::SGD,
       [](Optimizer& o) {
         Driven r = plain<CosineAnnealingWarmRestarts>(o, 3, 2, 0.01);
         r.stepping = Stepping::Fractional;
         return r;
       }},
      {"warm_restarts_fractional_mult1", Kind::SGD,
       [](Optimizer& o) {
         Driven r = plain<CosineAnnealingWarmRestarts>(o, 4);
         r.stepping = Stepping::Fractional;
         return r;
       }},
      {"step_resumed", Kind::SGD,
       [](Optimizer& o) {
         o.param_groups()[0].set("initial_lr", 0.2);
         o.param_groups()[1].set("initial_lr", 0.4);
         return plain<StepLR>(o, 3, 0.5, 4);
       }},
      {"cosine_resumed", Kind::SGD,
       [](Optimizer& o) {
         o.param_groups()[0].set("initial_lr", 0.2);
         o.param_groups()[1].set("initial_lr", 0.4);
         return plain<CosineAnnealingLR>(o, 10, 0.0, 5);
       }},
      {"cyclic_triangular", Kind::SGD,
       [](Optimizer& o) { return plain<CyclicLR>(o, 0.01, 0.1, CyclicLROptions{.step_size_up = 4}); }},
      {"cyclic_triangular2", Kind::SGD,
       [](Optimizer& o) {
         return plain<CyclicLR>(o, PerGroup{0.01, 0.02}, PerGroup{0.1, 0.05},
                                CyclicLROptions{.step_size_up = 3, .step_size_down = 5, .mode = "triangular2"});
       }},
      {"cyclic_exp_range", Kind::SGD,
       [](Optimizer& o) {
         return plain<CyclicLR>(o, 0.01, 0.1,
                                CyclicLROptions{.step_size_up = 5, .mode = "exp_range", .gamma = 0.97,
                                                .base_momentum = {0.7, 0.75}, .max_momentum = 0.95});
       }},
      {"cyclic_scale_fn", Kind::SGD,
       [](Optimizer& o) {
         return plain<CyclicLR>(o, 0.01, 0.1,
                                CyclicLROptions{.step_size_up = 2, .step_size_down = 4,
                                                .scale_fn = [](double x) { return std::pow(0.5, x); },
                                                .scale_mode = "iterations", .cycle_momentum = false});
       }},
      {"onecycle_cos", Kind::SGD,
       [](Optimizer& o) { return plain<OneCycleLR>(o, PerGroup{0.1, 0.2}, OneCycleLROptions{.total_steps = 30}); }},
      {"onecycle_linear", Kind::SGD,
       [](Optimizer& o) {
         return plain<OneCycleLR>(o, 0.1,
                                  OneCycleLROptions{.epochs = 5, .steps_per_epoch = 8, .pct_start = 0.25,
                                                    .anneal_strategy = "linear", .base_momentum = 0.8,
                                                    .max_momentum = 0.9, .div_factor = 10.0,
                                                    .final_div_factor = 100.0});
       }},
      {"onecycle_three_phase", Kind::SGD,
       [](Optimizer& o) {
         return plain<OneCycleLR>(o, 0.1, OneCycleLROptions{.total_steps = 40, .three_phase = true});
       }},
      {"onecycle_adam", Kind::Adam,
       [](Optimizer& o) {
         return plain<OneCycleLR>(o, 0.01, OneCycleLROptions{.total_steps = 30, .pct_start = 0.4});
       }},
      {"onecycle_no_momentum", Kind::SGD,
       [](Optimizer& o) {
         return plain<OneCycleLR>(o, 0.1, OneCycleLROptions{.total_steps = 30, .cycle_momentum = false});
       }},
      {"plateau_min_rel", Kind::SGD,
       [](Optimizer& o) {
         return Driven{nullptr, std::make_shared<ReduceLROnPlateau>(o, ReduceLROnPlateauOptions{.patience = 3}),
                    Stepping::Metric};
       }},
      {"plateau_min_abs", Kind::SGD,
       [](Optimizer& o) {
         return Driven{nullptr,
                    std::make_shared<ReduceLROnPlateau>(
                        o, ReduceLROnPlateauOptions{.factor = 0.5, .patience = 2, .threshold = 0.02,
                                                    .threshold_mode = "abs", .cooldown = 3, .min_lr = {0.01, 0.02}}),
                    Stepping::Metric};
       }},
      {"plateau_max_rel", Kind::SGD,
       [](Optimizer& o) {
         return Driven{nullptr,
                    std::make_shared<ReduceLROnPlateau>(o, ReduceLROnPlateauOptions{.mode = "max", .factor = 0.3,
                                                                                    .patience = 1, .min_lr = 0.001,
                                                                                    .eps = 1e-3}),
                    Stepping::NegatedMetric};
       }},
      {"plateau_max_abs", Kind::SGD,
       [](Optimizer& o) {
         return Driven{nullptr,
                    std::make_shared<ReduceLROnPlateau>(o, ReduceLROnPlateauOptions{.mode = "max", .patience = 0,
                                                                                    .threshold = 0.0,
                                                                                    .threshold_mode = "abs",
                                                                                    .cooldown = 1}),
                    Stepping::NegatedMetric};
       }},
      {"sequential2", Kind::SGD,
       [](Optimizer& o) {
         return plain<SequentialLR>(
             o, std::vector<P>{std::make_shared<ConstantLR>(o, 0.5, 3), std::make_shared<ExponentialLR>(o, 0.9)},
             std::vector<int64_t>{5});
       }},
      {"sequential3", Kind::SGD,
       [](Optimizer& o) {
         return plain<SequentialLR>(o,
                                    std::vector<P>{std::make_shared<LinearLR>(o, 0.1, 1.0, 4),
                                                   std::make_shared<StepLR>(o, 2, 0.7),
                                                   std::make_shared<CosineAnnealingLR>(o, 8, 0.002)},
                                    std::vector<int64_t>{4, 10});
       }},
      {"sequential_restarts", Kind::SGD,
       [](Optimizer& o) {
         return plain<SequentialLR>(o,
                                    std::vector<P>{std::make_shared<ExponentialLR>(o, 0.8),
                                                   std::make_shared<CosineAnnealingWarmRestarts>(o, 4, 1, 0.01)},
                                    std::vector<int64_t>{6});
       }},
      {"chained", Kind::SGD,
       [](Optimizer& o) {
         return plain<ChainedScheduler>(
             std::vector<P>{std::make_shared<ExponentialLR>(o, 0.95), std::make_shared<StepLR>(o, 3, 0.5)});
       }},
      {"chained_warmup", Kind::SGD,
       [](Optimizer& o) {
         return plain<ChainedScheduler>(
             std::vector<P>{std::make_shared<ConstantLR>(o, 0.25, 5),
                            std::make_shared<MultiStepLR>(o, std::vector<int64_t>{8, 14}, 0.3),
                            std::make_shared<CosineAnnealingLR>(o, 12)});
       }},
  };
  return all;
}

Tensor torch_table(const std::string& name) { return find_ref(refs::kRefEntries, refs::kValues, name); }

// Row t of table `name` (groups' values after t steps).
std::vector<double> row(const Tensor& table, int64_t t) {
  return testing::as_double(table.select(0, t));
}

// Exact: the schedulers evaluate torch's formulas in torch's order, so every lr is torch's double.
void expect_row(const std::vector<double>& got, const std::vector<double>& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_EQ(got[i], want[i]) << what << " group " << i;
}

// Steps `run` from step `from` to the table's end, comparing each step with torch's.
void follow(const Driven& run, Optimizer& o, const std::string& name, int64_t from) {
  const Tensor lr = torch_table(name + "/lr"), momentum = torch_table(name + "/momentum");
  ASSERT_TRUE(lr.defined()) << name;
  for (int64_t t = from; t < lr.size(0); ++t) {
    o.step();
    run.step(t);
    expect_row(lrs_of(o), row(lr, t), name + " lr at step " + std::to_string(t));
    if (momentum.defined())
      expect_row(momenta_of(o), row(momentum, t), name + " momentum at step " + std::to_string(t));
    if (run.sched) expect_row(run.sched->get_last_lr(), row(lr, t), name + " get_last_lr");
    if (run.plateau) expect_row(run.plateau->get_last_lr(), row(lr, t), name + " get_last_lr");
  }
}

TEST(LRScheduler, SequencesMatchTorch) {
  for (const Case& c : cases()) {
    auto o = make_optimizer(c.kind);
    const Driven run = c.make(*o);
    const Tensor lr = torch_table(std::string(c.name) + "/lr");
    ASSERT_TRUE(lr.defined()) << c.name;
    expect_row(lrs_of(*o), row(lr, 0), std::string(c.name) + " after construction");
    const Tensor momentum = torch_table(std::string(c.name) + "/momentum");
    if (momentum.defined()) expect_row(momenta_of(*o), row(momentum, 0), std::string(c.name) + " momentum");
    follow(run, *o, c.name, 1);
  }
}

// A state dict saved halfway, loaded (with the optimizer's state dict) into a scheduler built
// anew, continues torch's sequence.
TEST(LRScheduler, StateDictSavedMidwayContinues) {
  for (const Case& c : cases()) {
    auto o = make_optimizer(c.kind);
    const Driven run = c.make(*o);
    const int64_t steps = torch_table(std::string(c.name) + "/lr").size(0) - 1, half = steps / 2;
    for (int64_t t = 1; t <= half; ++t) run.step(t);
    const Value state = run.state_dict(), optimizer_state = o->state_dict();

    auto fresh = make_optimizer(c.kind);
    const Driven resumed = c.make(*fresh);
    fresh->load_state_dict(optimizer_state);  // the groups' lrs (and momenta) as they were
    resumed.load_state_dict(state);
    EXPECT_EQ(resumed.state_dict(), state) << c.name;
    follow(resumed, *fresh, c.name, half + 1);
  }
}

// The keys are torch's, but for the entries torch keeps functions in: CyclicLR's weak reference
// to its scale method is left out, OneCycleLR names its strategy as torch 2 does, and CyclicLR
// records use_beta1 (it cycles betas[0] too).
TEST(LRScheduler, StateDictKeysAreTorchs) {
  for (const Case& c : cases()) {
    auto o = make_optimizer(c.kind);
    const Driven run = c.make(*o);
    const int64_t steps = torch_table(std::string(c.name) + "/lr").size(0) - 1;
    for (int64_t t = 1; t <= steps; ++t) run.step(t);
    std::vector<std::string> want;
    for (const std::string& k : refs::state_keys().at(c.name)) {
      if (k == "_scale_fn_ref") continue;
      want.push_back(k == "anneal_func" ? "_anneal_func_type" : k);
    }
    std::vector<std::string> got;
    const Value state = run.state_dict();
    for (const auto& [k, v] : state.entries())
      if (!(std::string(c.name).starts_with("cyclic") && k.to_string() == "use_beta1")) got.push_back(k.to_string());
    EXPECT_EQ(got, want) << c.name;
  }
}

TEST(LRScheduler, LambdasAreNotSaved) {
  auto o = make_optimizer();
  LambdaLR s(*o, [](int64_t e) { return 1.0 / (e + 1); });
  EXPECT_EQ(s.state_dict().at("lr_lambdas"), Value::list({Value(), Value()}));
  EXPECT_EQ(s.state_dict().at("base_lrs"), Value::list({0.1, 0.05}));
}

// CyclicLR cycles betas[0] of an optimizer with betas (torch 2's behaviour; torch 1.13 refuses
// such optimizers) exactly as it cycles SGD's momentum, and leaves betas[1] alone.
TEST(LRScheduler, CyclicCyclesBeta1) {
  auto o = make_optimizer(Kind::Adam);
  CyclicLR s(*o, 0.01, 0.1, {.step_size_up = 4});
  const Tensor lr = torch_table("cyclic_triangular/lr"), momentum = torch_table("cyclic_triangular/momentum");
  for (int64_t t = 0; t < lr.size(0); ++t) {
    if (t) s.step();
    expect_row(lrs_of(*o), row(lr, t), "lr");
    expect_row(momenta_of(*o), row(momentum, t), "beta1");
    for (const auto& g : o->param_groups()) EXPECT_EQ(g.options.at("betas").items().at(1).to_double(), 0.999);
  }
}

// The optimizer's updates use the lr the scheduler set: p -= lr * grad with lr 0.1, 0.05, 0.025.
TEST(LRScheduler, DrivesTheOptimizersUpdates) {
  Tensor p = ones({3}, TensorOptions(kDouble));
  autograd::set_requires_grad(p);
  SGD sgd({p}, {.lr = 0.1});
  StepLR s(sgd, 1, 0.5);
  for (int i = 0; i < 3; ++i) {
    autograd::set_grad(p, ones({3}, TensorOptions(kDouble)));
    sgd.step();
    s.step();
  }
  for (double v : testing::as_double(p)) EXPECT_DOUBLE_EQ(v, 1 - 0.1 - 0.05 - 0.025);
  EXPECT_EQ(s.get_last_lr(), std::vector<double>{0.0125});
}

TEST(LRScheduler, PlateauStepsOnATensor) {
  auto o = make_optimizer();
  ReduceLROnPlateau s(*o, {.patience = 0});
  s.step(full({}, 1.0));
  s.step(tensor(std::vector<double>{2.0}));  // one element, as Python's float()
  EXPECT_EQ(s.num_bad_epochs(), 0);
  EXPECT_EQ(s.get_last_lr(), (std::vector<double>{0.1 * 0.1, 0.05 * 0.1}));
  testing::expect_error<ValueError>([&] { s.step(zeros({2})); }, "only one element tensors");
}

TEST(LRScheduler, VerboseOutputIsTorchs) {
  const auto& texts = refs::verbose_texts();
  {
    auto o = make_optimizer();
    ::testing::internal::CaptureStdout();
    StepLR s(*o, 2, 0.5, -1, true);
    for (int i = 0; i < 3; ++i) s.step();
    EXPECT_EQ(::testing::internal::GetCapturedStdout(), texts.at("step"));
  }
  {
    auto o = make_optimizer();
    ::testing::internal::CaptureStdout();
    CosineAnnealingWarmRestarts s(*o, 3, 1, 0.0, -1, true);
    s.step();
    s.step(1.5);
    EXPECT_EQ(::testing::internal::GetCapturedStdout(), texts.at("restarts"));
  }
  {
    auto o = make_optimizer();
    ::testing::internal::CaptureStdout();
    ReduceLROnPlateau s(*o, {.patience = 1, .verbose = true});
    for (int i = 0; i < 4; ++i) s.step(1.0);
    EXPECT_EQ(::testing::internal::GetCapturedStdout(), texts.at("plateau"));
  }
}

// f() must raise torch's error `key`.
template <class F>
void expect_torch_error(const F& f, const std::string& key) {
  testing::expect_torch_error(f, refs::errors().at(key), key);
}

TEST(LRScheduler, ErrorsAreTorchs) {
  auto o = make_optimizer();
  Optimizer& sgd = *o;
  expect_torch_error([&] { ConstantLR(sgd, 1.5); }, "constant_factor");
  expect_torch_error([&] { LinearLR(sgd, -0.1); }, "linear_start");
  expect_torch_error([&] { LinearLR(sgd, 1.0 / 3, 2.0); }, "linear_end");
  expect_torch_error([&] { LambdaLR(sgd, std::vector<LambdaLR::Fn>{[](int64_t) { return 1.0; }}); },
                     "lambda_count");
  expect_torch_error([&] { StepLR(*make_optimizer(), 3, 0.1, 5); }, "resume_without_initial_lr");
  expect_torch_error([&] { CosineAnnealingWarmRestarts(sgd, 0); }, "restarts_T_0");
  expect_torch_error([&] { CosineAnnealingWarmRestarts(sgd, 3, 0); }, "restarts_T_mult");
  expect_torch_error([&] { CosineAnnealingWarmRestarts(sgd, 3).step(-1.5); }, "restarts_negative_epoch");
  expect_torch_error([&] { CyclicLR(sgd, 0.01, 0.1, {.mode = "square"}); }, "cyclic_mode");
  expect_torch_error([&] { CyclicLR(sgd, PerGroup{0.01}, 0.1); }, "cyclic_base_lr_count");
  expect_torch_error([&] { CyclicLR(sgd, 0.01, 0.1, {.max_momentum = {0.9, 0.9, 0.9}}); },
                     "cyclic_max_momentum_count");
  expect_torch_error([&] { CyclicLR(*make_optimizer(Kind::Adagrad), 0.01, 0.1); }, "cyclic_no_momentum");
  expect_torch_error([&] { OneCycleLR(sgd, 0.1); }, "onecycle_no_steps");
  expect_torch_error([&] { OneCycleLR(sgd, 0.1, {.total_steps = 0}); }, "onecycle_total_steps");
  expect_torch_error([&] { OneCycleLR(sgd, 0.1, {.epochs = -1, .steps_per_epoch = 3}); }, "onecycle_epochs");
  expect_torch_error([&] { OneCycleLR(sgd, 0.1, {.epochs = 2, .steps_per_epoch = 0}); },
                     "onecycle_steps_per_epoch");
  expect_torch_error([&] { OneCycleLR(sgd, 0.1, {.total_steps = 10, .pct_start = 1.5}); }, "onecycle_pct_start");
  expect_torch_error([&] { OneCycleLR(sgd, 0.1, {.total_steps = 10, .anneal_strategy = "exp"}); },
                     "onecycle_anneal");
  expect_torch_error([&] { OneCycleLR(sgd, PerGroup{0.1, 0.2, 0.3}, {.total_steps = 10}); },
                     "onecycle_max_lr_count");
  expect_torch_error([&] { OneCycleLR(*make_optimizer(Kind::Adagrad), 0.1, {.total_steps = 10}); },
                     "onecycle_no_momentum");
  expect_torch_error(
      [&] {
        OneCycleLR s(sgd, 0.1, {.total_steps = 5});
        for (int i = 0; i < 6; ++i) s.step();
      },
      "onecycle_past_end");
  expect_torch_error([&] { ReduceLROnPlateau(sgd, {.factor = 1.0}); }, "plateau_factor");
  expect_torch_error([&] { ReduceLROnPlateau(sgd, {.mode = "avg"}); }, "plateau_mode");
  expect_torch_error([&] { ReduceLROnPlateau(sgd, {.threshold_mode = "pct"}); }, "plateau_threshold_mode");
  expect_torch_error([&] { ReduceLROnPlateau(sgd, {.min_lr = {0.1}}); }, "plateau_min_lr_count");
  expect_torch_error(
      [&] {
        auto a = make_optimizer();
        SequentialLR(*a, {std::make_shared<ConstantLR>(*a), std::make_shared<ExponentialLR>(*a, 0.9)}, {3, 6});
      },
      "sequential_milestones");
  expect_torch_error(
      [&] {
        auto a = make_optimizer(), b = make_optimizer();
        SequentialLR(*a, {std::make_shared<ConstantLR>(*a), std::make_shared<ExponentialLR>(*b, 0.9)}, {3});
      },
      "sequential_other_optimizer");
  expect_torch_error(
      [&] {
        auto a = make_optimizer(), b = make_optimizer();
        ChainedScheduler({std::make_shared<ConstantLR>(*a), std::make_shared<ExponentialLR>(*b, 0.9)});
      },
      "chained_other_optimizer");
  testing::expect_error<IndexError>([] { ChainedScheduler(std::vector<P>{}); }, "list index out of range");
}

}  // namespace ember::lr_scheduler_test
