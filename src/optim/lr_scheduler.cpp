// Learning-rate schedulers. Each formula is written in the order PyTorch 1.13 evaluates it
// (left to right, the same operations), so that the lrs agree with torch's to the last bit
// and composed schedulers, which multiply the groups' current lrs, do not drift apart.
#include "ember/optim/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numbers>

#include "ember/error.h"

namespace ember::optim {

namespace {

constexpr double kLrsPi = std::numbers::pi;

// Python's "%.5d" % epoch and "%.2f" % epoch, for the verbose messages.
std::string lrs_epoch_str(int64_t epoch) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.5lld", static_cast<long long>(epoch));
  return buf;
}
std::string lrs_epoch_str(double epoch) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f", epoch);
  return buf;
}

// Python's a // b and a % b == 0 for integers (b != 0).
int64_t lrs_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// A PerGroup value as one number per parameter group; `what` names it in the error.
std::vector<double> lrs_expand(const PerGroup& p, size_t groups, const char* what) {
  if (p.scalar) return std::vector<double>(groups, p.values.at(0));
  EMBER_CHECK(p.values.size() == groups, ValueError, "expected ", groups, " values for ", what, ", got ",
              p.values.size());
  return p.values;
}

// The momentum a cycling scheduler drives: "momentum", or betas[0] (Adam and its kin).
double lrs_get_momentum(const ParamGroup& g, bool use_beta1) {
  return use_beta1 ? g.options.at(Value("betas")).items().at(0).to_double() : g.get("momentum");
}
void lrs_set_momentum(ParamGroup& g, bool use_beta1, double m) {
  if (!use_beta1) {
    g.set("momentum", m);
    return;
  }
  Value::List betas = g.options.at(Value("betas")).items();
  betas.at(0) = m;
  g.set("betas", Value::tuple(std::move(betas)));
}

Value lrs_doubles(const std::vector<double>& v) {
  Value::List items;
  for (double x : v) items.emplace_back(x);
  return Value::list(std::move(items));
}

}  // namespace

// ---------------------------------------------------------------------------- StateFields

const Value* StateFields::find(const char* name) const { return in_->find(Value(name)); }

void StateFields::operator()(const char* name, int64_t& v) {
  if (!loading()) return out_->set(name, v);
  if (const Value* x = find(name)) v = x->to_int();
}
void StateFields::operator()(const char* name, double& v) {
  if (!loading()) return out_->set(name, v);
  if (const Value* x = find(name)) v = x->to_double();
}
void StateFields::operator()(const char* name, bool& v) {
  if (!loading()) return out_->set(name, v);
  if (const Value* x = find(name)) v = x->to_bool();
}
void StateFields::operator()(const char* name, std::string& v) {
  if (!loading()) return out_->set(name, v);
  if (const Value* x = find(name)) v = x->to_string();
}
void StateFields::operator()(const char* name, std::vector<double>& v) {
  if (!loading()) return out_->set(name, lrs_doubles(v));
  if (const Value* x = find(name)) {
    std::vector<double> r;
    for (const Value& e : x->items()) r.push_back(e.to_double());
    v = std::move(r);
  }
}
void StateFields::operator()(const char* name, Value& v) {
  if (!loading()) return out_->set(name, v);
  if (const Value* x = find(name)) v = *x;
}
void StateFields::operator()(const char* name, std::vector<std::shared_ptr<LRScheduler>>& v) {
  if (!loading()) {
    Value::List states;
    for (const auto& s : v) states.push_back(s->state_dict());
    return out_->set(name, Value::list(std::move(states)));
  }
  const Value* x = find(name);
  if (!x) return;
  const Value::List& states = x->items();
  EMBER_CHECK(states.size() <= v.size(), IndexError, "list index out of range");
  for (size_t i = 0; i < states.size(); ++i) v[i]->load_state_dict(states[i]);
}

// ---------------------------------------------------------------------------- LRScheduler

void LRScheduler::attach(int64_t last_epoch, bool verbose) {
  last_epoch_ = last_epoch;
  verbose_ = verbose;
  auto& groups = optimizer_->param_groups();
  for (size_t i = 0; i < groups.size(); ++i) {
    if (last_epoch == -1) {
      if (!groups[i].has("initial_lr")) groups[i].set("initial_lr", groups[i].options.at(Value("lr")));
    } else {
      // Python raises KeyError; Ember's convention for a missing key is ValueError.
      EMBER_CHECK(groups[i].has("initial_lr"), ValueError,
                  "param 'initial_lr' is not specified in param_groups[", i, "] when resuming an optimizer");
    }
  }
  base_lrs_.clear();
  for (const auto& g : groups) base_lrs_.push_back(g.get("initial_lr"));
}

void LRScheduler::initial_step() {
  step_count_ = 0;
  step();
}

void LRScheduler::step() {
  ++step_count_;
  ++last_epoch_;
  apply_lrs(get_lr());
}

void LRScheduler::step_epoch(int64_t epoch) {
  ++step_count_;
  last_epoch_ = epoch;
  auto closed = closed_form_lr();
  apply_lrs(closed ? *closed : get_lr(), lrs_epoch_str(epoch));
}

std::vector<double> LRScheduler::group_lrs() const {
  std::vector<double> lrs;
  for (const auto& g : optimizer_->param_groups()) lrs.push_back(g.get("lr"));
  return lrs;
}

void LRScheduler::apply_lrs(const std::vector<double>& lrs, const std::string& epoch) {
  auto& groups = optimizer_->param_groups();
  for (size_t i = 0; i < std::min(groups.size(), lrs.size()); ++i) {
    groups[i].set("lr", lrs[i]);
    if (!verbose_) continue;
    if (epoch.empty())
      std::printf("Adjusting learning rate of group %zu to %.4e.\n", i, lrs[i]);
    else
      std::printf("Epoch %s: adjusting learning rate of group %zu to %.4e.\n", epoch.c_str(), i, lrs[i]);
  }
  last_lr_ = group_lrs();
}

void LRScheduler::state_fields(StateFields& f) {
  f("base_lrs", base_lrs_);
  f("last_epoch", last_epoch_);
  f("verbose", verbose_);
  f("_step_count", step_count_);
  // Always False outside step(); kept so the keys are torch's.
  bool within_step = false;
  f("_get_lr_called_within_step", within_step);
  f("_last_lr", last_lr_);
}

Value LRScheduler::state_dict() const {
  Value out = Value::dict();
  StateFields f(&out, nullptr);
  // Saving only reads the fields; one list of fields serves both directions.
  const_cast<LRScheduler*>(this)->state_fields(f);
  return out;
}

void LRScheduler::load_state_dict(const Value& state_dict) {
  EMBER_CHECK(state_dict.is_dict(), TypeError, "load_state_dict expects a dict, got ",
              Value::kind_name(state_dict.kind()));
  StateFields f(nullptr, &state_dict);
  state_fields(f);
}

// ---------------------------------------------------------------------------- LambdaLR, MultiplicativeLR

namespace {
template <class Fn>
void lrs_check_lambdas(const Optimizer& optimizer, const std::vector<Fn>& fns) {
  EMBER_CHECK(fns.size() == optimizer.param_groups().size(), ValueError, "Expected ",
              optimizer.param_groups().size(), " lr_lambdas, but got ", fns.size());
  for (const auto& fn : fns) EMBER_CHECK(static_cast<bool>(fn), TypeError, "lr_lambda must be callable");
}

// Functions are not saved (torch keeps only callable objects' attributes): None per group.
void lrs_lambda_fields(StateFields& f, size_t n) {
  Value nones = Value::list(Value::List(n));
  f("lr_lambdas", nones);
}
}  // namespace

LambdaLR::LambdaLR(Optimizer& optimizer, Fn lr_lambda, int64_t last_epoch, bool verbose)
    : LambdaLR(optimizer, std::vector<Fn>(optimizer.param_groups().size(), std::move(lr_lambda)), last_epoch,
               verbose) {}

LambdaLR::LambdaLR(Optimizer& optimizer, std::vector<Fn> lr_lambdas, int64_t last_epoch, bool verbose)
    : LRScheduler(optimizer), lr_lambdas_(std::move(lr_lambdas)) {
  lrs_check_lambdas(optimizer, lr_lambdas_);
  attach(last_epoch, verbose);
  initial_step();
}

std::vector<double> LambdaLR::get_lr() {
  std::vector<double> lrs;
  for (size_t i = 0; i < base_lrs_.size(); ++i) lrs.push_back(base_lrs_[i] * lr_lambdas_.at(i)(last_epoch_));
  return lrs;
}

void LambdaLR::state_fields(StateFields& f) {
  LRScheduler::state_fields(f);
  lrs_lambda_fields(f, lr_lambdas_.size());
}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, Fn lr_lambda, int64_t last_epoch, bool verbose)
    : MultiplicativeLR(optimizer, std::vector<Fn>(optimizer.param_groups().size(), std::move(lr_lambda)),
                       last_epoch, verbose) {}

MultiplicativeLR::MultiplicativeLR(Optimizer& optimizer, std::vector<Fn> lr_lambdas, int64_t last_epoch, bool verbose)
    : LRScheduler(optimizer), lr_lambdas_(std::move(lr_lambdas)) {
  lrs_check_lambdas(optimizer, lr_lambdas_);
  attach(last_epoch, verbose);
  initial_step();
}

std::vector<double> MultiplicativeLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ > 0)
    for (size_t i = 0; i < lrs.size(); ++i) lrs[i] = lrs[i] * lr_lambdas_.at(i)(last_epoch_);
  return lrs;
}

void MultiplicativeLR::state_fields(StateFields& f) {
  LRScheduler::state_fields(f);
  lrs_lambda_fields(f, lr_lambdas_.size());
}

// ---------------------------------------------------------------------------- StepLR, MultiStepLR

StepLR::StepLR(Optimizer& optimizer, int64_t step_size, double gamma, int64_t last_epoch, bool verbose)
    : LRScheduler(optimizer), step_size_(step_size), gamma_(gamma) {
  attach(last_epoch, verbose);
  initial_step();
}

std::vector<double> StepLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) return lrs;
  EMBER_CHECK(step_size_ != 0, RuntimeError, "integer division or modulo by zero");
  if (last_epoch_ % step_size_ != 0) return lrs;
  for (double& lr : lrs) lr = lr * gamma_;
  return lrs;
}

std::optional<std::vector<double>> StepLR::closed_form_lr() {
  EMBER_CHECK(step_size_ != 0, RuntimeError, "integer division or modulo by zero");
  std::vector<double> lrs;
  const double k = static_cast<double>(lrs_floordiv(last_epoch_, step_size_));
  for (double base : base_lrs_) lrs.push_back(base * std::pow(gamma_, k));
  return lrs;
}

void StepLR::state_fields(StateFields& f) {
  f("step_size", step_size_);
  f("gamma", gamma_);
  LRScheduler::state_fields(f);
}

MultiStepLR::MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma, int64_t last_epoch,
                         bool verbose)
    : LRScheduler(optimizer), milestones_(std::move(milestones)), gamma_(gamma) {
  std::sort(milestones_.begin(), milestones_.end());
  attach(last_epoch, verbose);
  initial_step();
}

std::vector<double> MultiStepLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  const auto count = std::count(milestones_.begin(), milestones_.end(), last_epoch_);
  if (count == 0) return lrs;
  for (double& lr : lrs) lr = lr * std::pow(gamma_, static_cast<double>(count));
  return lrs;
}

std::optional<std::vector<double>> MultiStepLR::closed_form_lr() {
  // bisect_right: the milestones at or before last_epoch.
  const auto passed = std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin();
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * std::pow(gamma_, static_cast<double>(passed)));
  return lrs;
}

void MultiStepLR::state_fields(StateFields& f) {
  // torch keeps a Counter: {milestone: times given}.
  Value counts = Value::dict();
  for (int64_t m : milestones_) {
    Value& c = counts[Value(m)];
    c = Value(c.is_none() ? int64_t{1} : c.to_int() + 1);
  }
  f("milestones", counts);
  if (f.loading()) {
    milestones_.clear();
    for (const auto& [m, c] : counts.entries())
      for (int64_t k = 0; k < c.to_int(); ++k) milestones_.push_back(m.to_int());
    std::sort(milestones_.begin(), milestones_.end());
  }
  f("gamma", gamma_);
  LRScheduler::state_fields(f);
}

// ---------------------------------------------------------------------------- ConstantLR, LinearLR, ExponentialLR

ConstantLR::ConstantLR(Optimizer& optimizer, double factor, int64_t total_iters, int64_t last_epoch, bool verbose)
    : LRScheduler(optimizer), factor_(factor), total_iters_(total_iters) {
  EMBER_CHECK(factor <= 1.0 && factor >= 0, ValueError,
              "Constant multiplicative factor expected to be between 0 and 1.");
  attach(last_epoch, verbose);
  initial_step();
}

std::vector<double> ConstantLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr = lr * factor_;
  } else if (last_epoch_ == total_iters_) {
    for (double& lr : lrs) lr = lr * (1.0 / factor_);
  }
  return lrs;
}

std::optional<std::vector<double>> ConstantLR::closed_form_lr() {
  std::vector<double> lrs;
  const double reached = last_epoch_ >= total_iters_ ? 1.0 : 0.0;
  for (double base : base_lrs_) lrs.push_back(base * (factor_ + reached * (1 - factor_)));
  return lrs;
}

void ConstantLR::state_fields(StateFields& f) {
  f("factor", factor_);
  f("total_iters", total_iters_);
  LRScheduler::state_fields(f);
}

LinearLR::LinearLR(Optimizer& optimizer, double start_factor, double end_factor, int64_t total_iters,
                   int64_t last_epoch, bool verbose)
    : LRScheduler(optimizer), start_factor_(start_factor), end_factor_(end_factor), total_iters_(total_iters) {
  EMBER_CHECK(start_factor <= 1.0 && start_factor >= 0, ValueError,
              "Starting multiplicative factor expected to be between 0 and 1.");
  EMBER_CHECK(end_factor <= 1.0 && end_factor >= 0, ValueError,
              "Ending multiplicative factor expected to be between 0 and 1.");
  attach(last_epoch, verbose);
  initial_step();
}

std::vector<double> LinearLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) {
    for (double& lr : lrs) lr = lr * start_factor_;
    return lrs;
  }
  if (last_epoch_ > total_iters_) return lrs;
  const double d = end_factor_ - start_factor_;
  const double ratio =
      1. + d / (static_cast<double>(total_iters_) * start_factor_ + static_cast<double>(last_epoch_ - 1) * d);
  for (double& lr : lrs) lr = lr * ratio;
  return lrs;
}

std::optional<std::vector<double>> LinearLR::closed_form_lr() {
  std::vector<double> lrs;
  const double done = static_cast<double>(std::min(total_iters_, last_epoch_));
  for (double base : base_lrs_)
    lrs.push_back(base * (start_factor_ + (end_factor_ - start_factor_) * done / static_cast<double>(total_iters_)));
  return lrs;
}

void LinearLR::state_fields(StateFields& f) {
  f("start_factor", start_factor_);
  f("end_factor", end_factor_);
  f("total_iters", total_iters_);
  LRScheduler::state_fields(f);
}

ExponentialLR::ExponentialLR(Optimizer& optimizer, double gamma, int64_t last_epoch, bool verbose)
    : LRScheduler(optimizer), gamma_(gamma) {
  attach(last_epoch, verbose);
  initial_step();
}

std::vector<double> ExponentialLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ != 0)
    for (double& lr : lrs) lr = lr * gamma_;
  return lrs;
}

std::optional<std::vector<double>> ExponentialLR::closed_form_lr() {
  std::vector<double> lrs;
  for (double base : base_lrs_) lrs.push_back(base * std::pow(gamma_, static_cast<double>(last_epoch_)));
  return lrs;
}

void ExponentialLR::state_fields(StateFields& f) {
  f("gamma", gamma_);
  LRScheduler::state_fields(f);
}

// ---------------------------------------------------------------------------- CosineAnnealingLR

CosineAnnealingLR::CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min, int64_t last_epoch,
                                     bool verbose)
    : LRScheduler(optimizer), T_max_(T_max), eta_min_(eta_min) {
  attach(last_epoch, verbose);
  initial_step();
}

std::vector<double> CosineAnnealingLR::get_lr() {
  std::vector<double> lrs = group_lrs();
  if (last_epoch_ == 0) return lrs;
  EMBER_CHECK(T_max_ != 0, RuntimeError, "integer division or modulo by zero");
  const double e = static_cast<double>(last_epoch_), T = static_cast<double>(T_max_);
  if (step_count_ == 1 && last_epoch_ > 0) {
    // Constructed with a last_epoch: jump straight to the closed form.
    for (size_t i = 0; i < lrs.size(); ++i)
      lrs[i] = eta_min_ + (base_lrs_.at(i) - eta_min_) * (1 + std::cos(e * kLrsPi / T)) / 2;
  } else if ((last_epoch_ - 1 - T_max_) % (2 * T_max_) == 0) {
    // The restart point of the recursion (the quotient below would be 0/0).
    for (size_t i = 0; i < lrs.size(); ++i)
      lrs[i] = lrs[i] + (base_lrs_.at(i) - eta_min_) * (1 - std::cos(kLrsPi / T)) / 2;
  } else {
    const double ratio = (1 + std::cos(kLrsPi * e / T)) / (1 + std::cos(kLrsPi * (e - 1) / T));
    for (double& lr : lrs) lr = ratio * (lr - eta_min_) + eta_min_;
  }
  return lrs;
}

std::optional<std::vector<double>> CosineAnnealingLR::closed_form_lr() {
  EMBER_CHECK(T_max_ != 0, RuntimeError, "float division by zero");
  std::vector<double> lrs;
  const double e = static_cast<double>(last_epoch_), T = static_cast<double>(T_max_);
  for (double base : base_lrs_) lrs.push_back(eta_min_ + (base - eta_min_) * (1 + std::cos(kLrsPi * e / T)) / 2);
  return lrs;
}

void CosineAnnealingLR::state_fields(StateFields& f) {
  f("T_max", T_max_);
  f("eta_min", eta_min_);
  LRScheduler::state_fields(f);
}

// ---------------------------------------------------------------------------- CosineAnnealingWarmRestarts

CosineAnnealingWarmRestarts::CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult,
                                                         double eta_min, int64_t last_epoch, bool verbose)
    : LRScheduler(optimizer),
      T_0_(T_0),
      T_i_(T_0),
      T_mult_(T_mult),
      eta_min_(eta_min),
      T_cur_(static_cast<double>(last_epoch)) {
  EMBER_CHECK(T_0 > 0, ValueError, "Expected positive integer T_0, but got ", T_0);
  EMBER_CHECK(T_mult >= 1, ValueError, "Expected integer T_mult >= 1, but got ", T_mult);
  attach(last_epoch, verbose);
  initial_step();
}

std::vector<double> CosineAnnealingWarmRestarts::get_lr() {
  std::vector<double> lrs;
  for (double base : base_lrs_)
    lrs.push_back(eta_min_ + (base - eta_min_) * (1 + std::cos(kLrsPi * T_cur_ / static_cast<double>(T_i_))) / 2);
  return lrs;
}

// torch's step(epoch=None) of this scheduler: it never advances _step_count. A float epoch
// prints as one ("%.2f"), as in Python, whatever its value.
void CosineAnnealingWarmRestarts::step_to(std::optional<double> epoch, bool is_float) {
  if (!epoch && last_epoch_ < 0) epoch = 0.0;
  double e;
  if (!epoch) {
    e = static_cast<double>(last_epoch_ + 1);
    T_cur_ = T_cur_ + 1;
    if (T_cur_ >= static_cast<double>(T_i_)) {
      T_cur_ = T_cur_ - static_cast<double>(T_i_);
      T_i_ = T_i_ * T_mult_;
    }
  } else {
    e = *epoch;
    EMBER_CHECK(e >= 0, ValueError, "Expected non-negative epoch, but got ", Value(e).repr());
    const double T0 = static_cast<double>(T_0_);
    if (e >= T0) {
      if (T_mult_ == 1) {
        T_cur_ = std::fmod(e, T0);
      } else {
        const double m = static_cast<double>(T_mult_);
        const auto n = static_cast<int64_t>(std::log(e / T0 * (m - 1) + 1) / std::log(m));
        int64_t mult_n = 1;
        for (int64_t k = 0; k < n; ++k) mult_n *= T_mult_;
        T_cur_ = e - T0 * static_cast<double>(mult_n - 1) / static_cast<double>(T_mult_ - 1);
        T_i_ = T_0_ * mult_n;
      }
    } else {
      T_i_ = T_0_;
      T_cur_ = e;
    }
  }
  last_epoch_ = static_cast<int64_t>(std::floor(e));
  apply_lrs(get_lr(), is_float ? lrs_epoch_str(e) : lrs_epoch_str(static_cast<int64_t>(e)));
}

void CosineAnnealingWarmRestarts::step() { step_to(std::nullopt, false); }
void CosineAnnealingWarmRestarts::step(double epoch) { step_to(epoch, true); }
void CosineAnnealingWarmRestarts::step_epoch(int64_t epoch) { step_to(static_cast<double>(epoch), false); }

void CosineAnnealingWarmRestarts::state_fields(StateFields& f) {
  f("T_0", T_0_);
  f("T_i", T_i_);
  f("T_mult", T_mult_);
  f("eta_min", eta_min_);
  f("T_cur", T_cur_);
  LRScheduler::state_fields(f);
}

// ---------------------------------------------------------------------------- CyclicLR

CyclicLR::CyclicLR(Optimizer& optimizer, PerGroup base_lr, PerGroup max_lr, CyclicLROptions o)
    : LRScheduler(optimizer) {
  auto& groups = optimizer.param_groups();
  const size_t n = groups.size();
  std::vector<double> base_lrs = lrs_expand(base_lr, n, "base_lr");
  if (o.last_epoch == -1)
    for (size_t i = 0; i < n; ++i) groups[i].set("lr", base_lrs[i]);
  max_lrs_ = lrs_expand(max_lr, n, "max_lr");
  const double up = static_cast<double>(o.step_size_up);
  const double down = o.step_size_down ? static_cast<double>(*o.step_size_down) : up;
  total_size_ = up + down;
  EMBER_CHECK(total_size_ != 0, RuntimeError, "float division by zero");
  step_ratio_ = up / total_size_;
  EMBER_CHECK(o.mode == "triangular" || o.mode == "triangular2" || o.mode == "exp_range" || o.scale_fn, ValueError,
              "mode is invalid and scale_fn is None");
  mode_ = o.mode;
  gamma_ = o.gamma;
  scale_fn_custom_ = std::move(o.scale_fn);
  scale_mode_ = scale_fn_custom_ ? o.scale_mode : (mode_ == "exp_range" ? "iterations" : "cycle");
  cycle_momentum_ = o.cycle_momentum;
  if (cycle_momentum_) {
    // torch 1.13 cycles "momentum" only; betas[0] as torch 2 does, for Adam and its kin.
    const Value& defaults = optimizer.defaults();
    EMBER_CHECK(defaults.contains(Value("momentum")) || defaults.contains(Value("betas")), ValueError,
                "optimizer must support momentum with `cycle_momentum` option enabled");
    use_beta1_ = defaults.contains(Value("betas"));
    const std::vector<double> base_m = lrs_expand(o.base_momentum, n, "base_momentum");
    if (o.last_epoch == -1)
      for (size_t i = 0; i < n; ++i) lrs_set_momentum(groups[i], use_beta1_, base_m[i]);
    for (const auto& g : groups) base_momentums_.push_back(lrs_get_momentum(g, use_beta1_));
    max_momentums_ = lrs_expand(o.max_momentum, n, "max_momentum");
  }
  attach(o.last_epoch, o.verbose);
  initial_step();
  base_lrs_ = std::move(base_lrs);
}

double CyclicLR::scale_fn(double x) const {
  if (scale_fn_custom_) return scale_fn_custom_(x);
  if (mode_ == "triangular") return 1.;
  if (mode_ == "triangular2") return 1 / std::pow(2., x - 1);
  return std::pow(gamma_, x);
}

std::vector<double> CyclicLR::get_lr() {
  const double e = static_cast<double>(last_epoch_);
  const double cycle = std::floor(1 + e / total_size_);
  const double x = 1. + e / total_size_ - cycle;
  const double scale_factor = x <= step_ratio_ ? x / step_ratio_ : (x - 1) / (step_ratio_ - 1);
  const double scale = scale_fn(scale_mode_ == "cycle" ? cycle : e);
  std::vector<double> lrs;
  for (size_t i = 0; i < base_lrs_.size(); ++i) {
    const double base_height = (max_lrs_.at(i) - base_lrs_[i]) * scale_factor;
    lrs.push_back(base_lrs_[i] + base_height * scale);
  }
  if (cycle_momentum_) {
    auto& groups = optimizer_->param_groups();
    for (size_t i = 0; i < std::min(groups.size(), base_momentums_.size()); ++i) {
      const double base_height = (max_momentums_.at(i) - base_momentums_[i]) * scale_factor;
      lrs_set_momentum(groups[i], use_beta1_, max_momentums_[i] - base_height * scale);
    }
  }
  return lrs;
}

void CyclicLR::state_fields(StateFields& f) {
  f("max_lrs", max_lrs_);
  f("total_size", total_size_);
  f("step_ratio", step_ratio_);
  f("mode", mode_);
  f("gamma", gamma_);
  Value no_fn;  // a function is not saved
  f("_scale_fn_custom", no_fn);
  f("scale_mode", scale_mode_);
  f("cycle_momentum", cycle_momentum_);
  if (cycle_momentum_) {
    f("use_beta1", use_beta1_);
    f("base_momentums", base_momentums_);
    f("max_momentums", max_momentums_);
  }
  LRScheduler::state_fields(f);
}

// ---------------------------------------------------------------------------- OneCycleLR

OneCycleLR::OneCycleLR(Optimizer& optimizer, PerGroup max_lr, OneCycleLROptions o) : LRScheduler(optimizer) {
  if (o.total_steps) {
    EMBER_CHECK(*o.total_steps > 0, ValueError, "Expected positive integer total_steps, but got ", *o.total_steps);
    total_steps_ = *o.total_steps;
  } else {
    EMBER_CHECK(o.epochs && o.steps_per_epoch, ValueError,
                "You must define either total_steps OR (epochs AND steps_per_epoch)");
    EMBER_CHECK(*o.epochs > 0, ValueError, "Expected positive integer epochs, but got ", *o.epochs);
    EMBER_CHECK(*o.steps_per_epoch > 0, ValueError, "Expected positive integer steps_per_epoch, but got ",
                *o.steps_per_epoch);
    total_steps_ = *o.epochs * *o.steps_per_epoch;
  }
  const double total = static_cast<double>(total_steps_);
  const double last = static_cast<double>(total_steps_ - 1);
  if (o.three_phase) {
    phases_ = {{o.pct_start * total - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {2 * o.pct_start * total - 2, "max_lr", "initial_lr", "base_momentum", "max_momentum"},
               {last, "initial_lr", "min_lr", "max_momentum", "max_momentum"}};
  } else {
    phases_ = {{o.pct_start * total - 1, "initial_lr", "max_lr", "max_momentum", "base_momentum"},
               {last, "max_lr", "min_lr", "base_momentum", "max_momentum"}};
  }
  EMBER_CHECK(o.pct_start >= 0 && o.pct_start <= 1, ValueError,
              "Expected float between 0 and 1 pct_start, but got ", Value(o.pct_start).repr());
  EMBER_CHECK(o.anneal_strategy == "cos" || o.anneal_strategy == "linear", ValueError,
              "anneal_strategy must by one of 'cos' or 'linear', instead got ", o.anneal_strategy);
  anneal_strategy_ = o.anneal_strategy;

  auto& groups = optimizer.param_groups();
  const size_t n = groups.size();
  const std::vector<double> max_lrs = lrs_expand(max_lr, n, "max_lr");
  if (o.last_epoch == -1) {
    for (size_t i = 0; i < n; ++i) {
      const double initial = max_lrs[i] / o.div_factor;
      groups[i].set("initial_lr", initial);
      groups[i].set("max_lr", max_lrs[i]);
      groups[i].set("min_lr", initial / o.final_div_factor);
    }
  }
  cycle_momentum_ = o.cycle_momentum;
  if (cycle_momentum_) {
    const Value& defaults = optimizer.defaults();
    EMBER_CHECK(defaults.contains(Value("momentum")) || defaults.contains(Value("betas")), ValueError,
                "optimizer must support momentum with `cycle_momentum` option enabled");
    use_beta1_ = defaults.contains(Value("betas"));
    const std::vector<double> max_m = lrs_expand(o.max_momentum, n, "max_momentum");
    const std::vector<double> base_m = lrs_expand(o.base_momentum, n, "base_momentum");
    if (o.last_epoch == -1) {
      for (size_t i = 0; i < n; ++i) {
        lrs_set_momentum(groups[i], use_beta1_, max_m[i]);
        groups[i].set("max_momentum", max_m[i]);
        groups[i].set("base_momentum", base_m[i]);
      }
    }
  }
  attach(o.last_epoch, o.verbose);
  initial_step();
}

double OneCycleLR::anneal(double start, double end, double pct) const {
  if (anneal_strategy_ == "cos") {
    const double cos_out = std::cos(kLrsPi * pct) + 1;
    return end + (start - end) / 2.0 * cos_out;
  }
  return (end - start) * pct + start;
}

std::vector<double> OneCycleLR::get_lr() {
  const int64_t step_num = last_epoch_;
  EMBER_CHECK(step_num <= total_steps_, ValueError, "Tried to step ", step_num + 1,
              " times. The specified number of total steps is ", total_steps_);
  std::vector<double> lrs;
  const double s = static_cast<double>(step_num);
  for (auto& group : optimizer_->param_groups()) {
    double start_step = 0, lr = 0, momentum = 0;
    for (size_t i = 0; i < phases_.size(); ++i) {
      const Phase& phase = phases_[i];
      if (s <= phase.end_step || i == phases_.size() - 1) {
        EMBER_CHECK(phase.end_step != start_step, RuntimeError, "float division by zero");
        const double pct = (s - start_step) / (phase.end_step - start_step);
        lr = anneal(group.get(phase.start_lr), group.get(phase.end_lr), pct);
        if (cycle_momentum_) momentum = anneal(group.get(phase.start_momentum), group.get(phase.end_momentum), pct);
        break;
      }
      start_step = phase.end_step;
    }
    lrs.push_back(lr);
    if (cycle_momentum_) lrs_set_momentum(group, use_beta1_, momentum);
  }
  return lrs;
}

void OneCycleLR::state_fields(StateFields& f) {
  f("total_steps", total_steps_);
  Value phases = Value::list();
  for (const Phase& p : phases_)
    phases.items().push_back(Value::dict({{"end_step", p.end_step},
                                          {"start_lr", p.start_lr},
                                          {"end_lr", p.end_lr},
                                          {"start_momentum", p.start_momentum},
                                          {"end_momentum", p.end_momentum}}));
  f("_schedule_phases", phases);
  if (f.loading()) {
    phases_.clear();
    for (const Value& p : phases.items())
      phases_.push_back({p.at("end_step").to_double(), p.at("start_lr").to_string(), p.at("end_lr").to_string(),
                         p.at("start_momentum").to_string(), p.at("end_momentum").to_string()});
  }
  // The strategy's name, where torch 1.13 keeps a bound method (as torch 2 does).
  f("_anneal_func_type", anneal_strategy_);
  f("cycle_momentum", cycle_momentum_);
  if (cycle_momentum_) f("use_beta1", use_beta1_);
  LRScheduler::state_fields(f);
}

// ---------------------------------------------------------------------------- SequentialLR

namespace {
Optimizer& lrs_check_sequential(Optimizer& optimizer, const std::vector<std::shared_ptr<LRScheduler>>& schedulers,
                                 const std::vector<int64_t>& milestones) {
  for (size_t i = 0; i < schedulers.size(); ++i) {
    EMBER_CHECK(schedulers[i], ValueError, "SequentialLR got a null scheduler at index ", i);
    EMBER_CHECK(&schedulers[i]->optimizer() == &optimizer, ValueError,
                "Sequential Schedulers expects all schedulers to belong to the same optimizer, but got "
                "schedulers at index ",
                i, " to be different than the optimizer passed in.");
  }
  EMBER_CHECK(milestones.size() + 1 == schedulers.size(), ValueError,
              "Sequential Schedulers expects number of schedulers provided to be one more than the number of "
              "milestone points, but got number of schedulers ",
              schedulers.size(), " and the number of milestones to be equal to ", milestones.size());
  return optimizer;
}
}  // namespace

SequentialLR::SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
                           std::vector<int64_t> milestones, int64_t last_epoch, bool verbose)
    : LRScheduler(lrs_check_sequential(optimizer, schedulers, milestones)),
      schedulers_(std::move(schedulers)),
      milestones_(std::move(milestones)) {
  verbose_ = verbose;  // unused, as in torch
  last_epoch_ = last_epoch + 1;
  for (auto& g : optimizer.param_groups()) {
    EMBER_CHECK(g.has("initial_lr"), ValueError, "'initial_lr'");
    g.set("lr", g.options.at(Value("initial_lr")));
  }
  // Undo the first step each scheduler made when it was built; only the first one starts now.
  for (auto& s : schedulers_) s->last_epoch_ -= 1;
  schedulers_[0]->initial_step();
  last_lr_ = schedulers_[0]->get_last_lr();
}

void SequentialLR::step() {
  ++last_epoch_;
  const size_t idx = std::upper_bound(milestones_.begin(), milestones_.end(), last_epoch_) - milestones_.begin();
  LRScheduler& s = *schedulers_.at(idx);
  if (idx > 0 && milestones_[idx - 1] == last_epoch_)
    s.step_epoch(0);
  else
    s.step();
  last_lr_ = s.get_last_lr();
}

std::vector<double> SequentialLR::get_lr() { return last_lr_; }

void SequentialLR::step_epoch(int64_t) {
  EMBER_FAIL(TypeError, "step() takes 1 positional argument but 2 were given");
}

void SequentialLR::state_fields(StateFields& f) {
  Value milestones = Value::list();
  for (int64_t m : milestones_) milestones.items().emplace_back(m);
  f("_milestones", milestones);
  if (f.loading()) {
    milestones_.clear();
    for (const Value& m : milestones.items()) milestones_.push_back(m.to_int());
  }
  f("last_epoch", last_epoch_);
  f("_last_lr", last_lr_);
  f("_schedulers", schedulers_);
}

// ---------------------------------------------------------------------------- ChainedScheduler

namespace {
Optimizer& lrs_check_chained(const std::vector<std::shared_ptr<LRScheduler>>& schedulers) {
  EMBER_CHECK(!schedulers.empty(), IndexError, "list index out of range");
  for (size_t i = 0; i < schedulers.size(); ++i) {
    EMBER_CHECK(schedulers[i], ValueError, "ChainedScheduler got a null scheduler at index ", i);
    EMBER_CHECK(&schedulers[i]->optimizer() == &schedulers[0]->optimizer(), ValueError,
                "ChainedScheduler expects all schedulers to belong to the same optimizer, but got schedulers at "
                "index 0 and ",
                i, " to be different");
  }
  return schedulers[0]->optimizer();
}
}  // namespace

ChainedScheduler::ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers)
    : LRScheduler(lrs_check_chained(schedulers)), schedulers_(std::move(schedulers)) {
  last_lr_ = group_lrs();
}

void ChainedScheduler::step() {
  for (auto& s : schedulers_) s->step();
  last_lr_ = group_lrs();
}

std::vector<double> ChainedScheduler::get_lr() { return last_lr_; }

void ChainedScheduler::step_epoch(int64_t) {
  EMBER_FAIL(TypeError, "step() takes 1 positional argument but 2 were given");
}

void ChainedScheduler::state_fields(StateFields& f) {
  f("_last_lr", last_lr_);
  f("_schedulers", schedulers_);
}

// ---------------------------------------------------------------------------- ReduceLROnPlateau

ReduceLROnPlateau::ReduceLROnPlateau(Optimizer& optimizer, ReduceLROnPlateauOptions o)
    : optimizer_(&optimizer),
      factor_(o.factor),
      patience_(o.patience),
      verbose_(o.verbose),
      cooldown_(o.cooldown),
      mode_(std::move(o.mode)),
      threshold_(o.threshold),
      threshold_mode_(std::move(o.threshold_mode)),
      eps_(o.eps) {
  EMBER_CHECK(factor_ < 1.0, ValueError, "Factor should be < 1.0.");
  const size_t n = optimizer.param_groups().size();
  if (o.min_lr.scalar) {
    min_lrs_.assign(n, o.min_lr.values.at(0));
  } else {
    EMBER_CHECK(o.min_lr.values.size() == n, ValueError, "expected ", n, " min_lrs, got ", o.min_lr.values.size());
    min_lrs_ = o.min_lr.values;
  }
  check_modes();
  best_ = mode_worse_;
  for (const auto& g : optimizer.param_groups()) last_lr_.push_back(g.get("lr"));
}

void ReduceLROnPlateau::check_modes() {
  EMBER_CHECK(mode_ == "min" || mode_ == "max", ValueError, "mode ", mode_, " is unknown!");
  EMBER_CHECK(threshold_mode_ == "rel" || threshold_mode_ == "abs", ValueError, "threshold mode ", threshold_mode_,
              " is unknown!");
  const double inf = std::numeric_limits<double>::infinity();
  mode_worse_ = mode_ == "min" ? inf : -inf;
}

bool ReduceLROnPlateau::is_better(double a, double best) const {
  if (mode_ == "min" && threshold_mode_ == "rel") return a < best * (1. - threshold_);
  if (mode_ == "min") return a < best - threshold_;
  if (threshold_mode_ == "rel") return a > best * (threshold_ + 1.);
  return a > best + threshold_;
}

void ReduceLROnPlateau::step(const Tensor& metrics) {
  EMBER_CHECK(metrics.numel() == 1, ValueError, "only one element tensors can be converted to Python scalars");
  step(metrics.item<double>());
}

void ReduceLROnPlateau::step(double metrics) {
  const int64_t epoch = last_epoch_ + 1;
  last_epoch_ = epoch;
  if (is_better(metrics, best_)) {
    best_ = metrics;
    num_bad_epochs_ = 0;
  } else {
    num_bad_epochs_ += 1;
  }
  if (in_cooldown()) {
    cooldown_counter_ -= 1;
    num_bad_epochs_ = 0;  // bad epochs in cooldown do not count
  }
  if (num_bad_epochs_ > patience_) {
    reduce_lr(epoch);
    cooldown_counter_ = cooldown_;
    num_bad_epochs_ = 0;
  }
  last_lr_.clear();
  for (const auto& g : optimizer_->param_groups()) last_lr_.push_back(g.get("lr"));
}

void ReduceLROnPlateau::reduce_lr(int64_t epoch) {
  auto& groups = optimizer_->param_groups();
  for (size_t i = 0; i < groups.size(); ++i) {
    const double old_lr = groups[i].get("lr");
    const double new_lr = std::max(old_lr * factor_, min_lrs_.at(i));
    if (old_lr - new_lr > eps_) {
      groups[i].set("lr", new_lr);
      if (verbose_)
        std::printf("Epoch %s: reducing learning rate of group %zu to %.4e.\n", lrs_epoch_str(epoch).c_str(), i,
                    new_lr);
    }
  }
}

void ReduceLROnPlateau::fields(StateFields& f) {
  f("factor", factor_);
  f("min_lrs", min_lrs_);
  f("patience", patience_);
  f("verbose", verbose_);
  f("cooldown", cooldown_);
  f("cooldown_counter", cooldown_counter_);
  f("mode", mode_);
  f("threshold", threshold_);
  f("threshold_mode", threshold_mode_);
  f("best", best_);
  f("num_bad_epochs", num_bad_epochs_);
  f("mode_worse", mode_worse_);
  f("eps", eps_);
  f("last_epoch", last_epoch_);
  f("_last_lr", last_lr_);
}

Value ReduceLROnPlateau::state_dict() const {
  Value out = Value::dict();
  StateFields f(&out, nullptr);
  const_cast<ReduceLROnPlateau*>(this)->fields(f);  // saving only reads
  return out;
}

void ReduceLROnPlateau::load_state_dict(const Value& state_dict) {
  EMBER_CHECK(state_dict.is_dict(), TypeError, "load_state_dict expects a dict, got ",
              Value::kind_name(state_dict.kind()));
  StateFields f(nullptr, &state_dict);
  fields(f);
  check_modes();
}

}  // namespace ember::optim
