// Learning-rate schedulers (torch.optim.lr_scheduler for C++). A scheduler writes the "lr"
// option of each of its optimizer's parameter groups (and "momentum" or betas[0] for the
// cycling ones) at construction and at every step(); the sequences are PyTorch 1.13's,
// including the recursive ("chainable") forms, so that schedulers compose as in Python.
//
// state_dict() holds the scheduler's own fields under torch's attribute names (never the
// optimizer), so a state saved midway and loaded into a fresh scheduler continues the same
// sequence. Callables (LambdaLR's lambdas, CyclicLR's scale_fn) are not saved, as PyTorch
// does not save plain functions.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ember/optim/optimizer.h"
#include "ember/value.h"

namespace ember::optim {

class LRScheduler;

// A hyper-parameter given once for every parameter group, or once per group (Python's
// number-or-list arguments): `.max_lr = 0.1` or `.max_lr = {0.1, 0.01}`.
struct PerGroup {
  PerGroup() = default;
  PerGroup(double v) : values{v}, scalar(true) {}  // NOLINT: implicit, as a Python number
  PerGroup(std::initializer_list<double> v) : values(v) {}
  PerGroup(std::vector<double> v) : values(std::move(v)) {}

  std::vector<double> values;
  bool scalar = false;
};

// Walks a scheduler's saved fields by name, either writing them into a state dict or
// reading them back (as Python's __dict__.update: absent keys leave a field as it is).
// state_dict and load_state_dict share one list of fields, so they cannot disagree.
class StateFields {
 public:
  bool loading() const { return in_ != nullptr; }
  void operator()(const char* name, int64_t& v);
  void operator()(const char* name, double& v);
  void operator()(const char* name, bool& v);
  void operator()(const char* name, std::string& v);
  void operator()(const char* name, std::vector<double>& v);
  void operator()(const char* name, Value& v);  // any other layout, converted by the caller
  // Nested schedulers: a list of their state dicts.
  void operator()(const char* name, std::vector<std::shared_ptr<LRScheduler>>& v);

 private:
  friend class LRScheduler;
  friend class ReduceLROnPlateau;
  StateFields(Value* out, const Value* in) : out_(out), in_(in) {}
  const Value* find(const char* name) const;

  Value* out_;
  const Value* in_;
};

class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  LRScheduler(const LRScheduler&) = delete;
  LRScheduler& operator=(const LRScheduler&) = delete;

  // Advances last_epoch by one and sets every group's lr (call it after optimizer.step()).
  virtual void step();

  // The lrs set by the last step (one per parameter group).
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  const std::vector<double>& base_lrs() const { return base_lrs_; }
  Optimizer& optimizer() const { return *optimizer_; }
  bool verbose() const { return verbose_; }
  void set_verbose(bool verbose) { verbose_ = verbose; }

  // Every field under torch's name ("last_epoch", "base_lrs", "_step_count", "_last_lr", ...),
  // never the optimizer.
  Value state_dict() const;
  void load_state_dict(const Value& state_dict);

 protected:
  explicit LRScheduler(Optimizer& optimizer) : optimizer_(&optimizer) {}

  // What torch's base __init__ does, called by each concrete constructor once it has checked
  // its arguments and set its fields (a base constructor cannot call the derived get_lr):
  // attach() sets each group's "initial_lr" to its lr when last_epoch is -1 (otherwise every
  // group must have one already: a resumed optimizer) and takes the initial lrs as base_lrs;
  // initial_step() makes the first step.
  void attach(int64_t last_epoch, bool verbose);
  void initial_step();
  // The new lr of each group from the current ones (torch's chainable get_lr); last_epoch
  // has already been advanced.
  virtual std::vector<double> get_lr() = 0;
  // The lrs as a function of last_epoch alone, where the schedule has one: torch's
  // deprecated step(epoch) uses it (SequentialLR restarts its schedulers with step(0)).
  virtual std::optional<std::vector<double>> closed_form_lr() { return std::nullopt; }
  // step(epoch): last_epoch = epoch, then the closed form where there is one.
  virtual void step_epoch(int64_t epoch);
  // Writes lrs into the groups (as many as both have), prints them when verbose ("Epoch
  // <epoch>: ..." when epoch, already formatted, is not empty), and records them as the last lrs.
  void apply_lrs(const std::vector<double>& lrs, const std::string& epoch = {});
  std::vector<double> group_lrs() const;
  // The base's fields, then the scheduler's own (overrides call the base first).
  virtual void state_fields(StateFields& f);

  Optimizer* optimizer_;
  int64_t last_epoch_ = -1;
  std::vector<double> base_lrs_;
  std::vector<double> last_lr_;
  int64_t step_count_ = 0;
  bool verbose_ = false;

  friend class SequentialLR;
};

// lr = initial lr * lr_lambda(epoch); one function for all groups or one per group.
class LambdaLR : public LRScheduler {
 public:
  using Fn = std::function<double(int64_t)>;
  LambdaLR(Optimizer& optimizer, Fn lr_lambda, int64_t last_epoch = -1, bool verbose = false);
  LambdaLR(Optimizer& optimizer, std::vector<Fn> lr_lambdas, int64_t last_epoch = -1, bool verbose = false);

 protected:
  std::vector<double> get_lr() override;
  void state_fields(StateFields& f) override;
  std::vector<Fn> lr_lambdas_;
};

// lr *= lr_lambda(epoch) at every step after the first.
class MultiplicativeLR : public LRScheduler {
 public:
  using Fn = std::function<double(int64_t)>;
  MultiplicativeLR(Optimizer& optimizer, Fn lr_lambda, int64_t last_epoch = -1, bool verbose = false);
  MultiplicativeLR(Optimizer& optimizer, std::vector<Fn> lr_lambdas, int64_t last_epoch = -1,
                   bool verbose = false);

 protected:
  std::vector<double> get_lr() override;
  void state_fields(StateFields& f) override;
  std::vector<Fn> lr_lambdas_;
};

// lr *= gamma every step_size epochs.
class StepLR : public LRScheduler {
 public:
  StepLR(Optimizer& optimizer, int64_t step_size, double gamma = 0.1, int64_t last_epoch = -1,
         bool verbose = false);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  void state_fields(StateFields& f) override;
  int64_t step_size_;
  double gamma_;
};

// lr *= gamma at each milestone (a milestone given k times multiplies by gamma^k).
class MultiStepLR : public LRScheduler {
 public:
  MultiStepLR(Optimizer& optimizer, std::vector<int64_t> milestones, double gamma = 0.1,
              int64_t last_epoch = -1, bool verbose = false);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  void state_fields(StateFields& f) override;
  std::vector<int64_t> milestones_;  // sorted, repeats kept (torch's Counter)
  double gamma_;
};

// lr * factor until epoch total_iters, then lr.
class ConstantLR : public LRScheduler {
 public:
  ConstantLR(Optimizer& optimizer, double factor = 1.0 / 3, int64_t total_iters = 5, int64_t last_epoch = -1,
             bool verbose = false);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  void state_fields(StateFields& f) override;
  double factor_;
  int64_t total_iters_;
};

// The factor moves linearly from start_factor to end_factor over total_iters epochs.
class LinearLR : public LRScheduler {
 public:
  LinearLR(Optimizer& optimizer, double start_factor = 1.0 / 3, double end_factor = 1.0, int64_t total_iters = 5,
           int64_t last_epoch = -1, bool verbose = false);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  void state_fields(StateFields& f) override;
  double start_factor_, end_factor_;
  int64_t total_iters_;
};

// lr *= gamma every epoch.
class ExponentialLR : public LRScheduler {
 public:
  ExponentialLR(Optimizer& optimizer, double gamma, int64_t last_epoch = -1, bool verbose = false);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  void state_fields(StateFields& f) override;
  double gamma_;
};

// Half a cosine from the initial lr down to eta_min over T_max epochs (and back up after,
// torch's recursive form).
class CosineAnnealingLR : public LRScheduler {
 public:
  CosineAnnealingLR(Optimizer& optimizer, int64_t T_max, double eta_min = 0.0, int64_t last_epoch = -1,
                    bool verbose = false);

 protected:
  std::vector<double> get_lr() override;
  std::optional<std::vector<double>> closed_form_lr() override;
  void state_fields(StateFields& f) override;
  int64_t T_max_;
  double eta_min_;
};

// SGDR: cosine annealing restarted after T_0 epochs, then T_0 * T_mult, ...
class CosineAnnealingWarmRestarts : public LRScheduler {
 public:
  CosineAnnealingWarmRestarts(Optimizer& optimizer, int64_t T_0, int64_t T_mult = 1, double eta_min = 0.0,
                              int64_t last_epoch = -1, bool verbose = false);

  void step() override;
  // Jumps to a (possibly fractional) epoch: step(epoch + i / iters) within an epoch.
  void step(double epoch);
  double T_cur() const { return T_cur_; }
  int64_t T_i() const { return T_i_; }

 protected:
  std::vector<double> get_lr() override;
  void step_epoch(int64_t epoch) override;
  void state_fields(StateFields& f) override;
  void step_to(std::optional<double> epoch, bool is_float);
  int64_t T_0_, T_i_, T_mult_;
  double eta_min_;
  double T_cur_;
};

struct CyclicLROptions {
  int64_t step_size_up = 2000;
  std::optional<int64_t> step_size_down{};  // step_size_up when not given
  std::string mode = "triangular";        // "triangular", "triangular2" or "exp_range"
  double gamma = 1.0;                     // exp_range's gamma ** iterations
  // Replaces mode's scaling; its argument is the cycle number or the iteration (scale_mode).
  std::function<double(double)> scale_fn{};
  std::string scale_mode = "cycle";  // "cycle" or "iterations"; only with scale_fn
  // Cycles "momentum" (or betas[0] of an optimizer with betas) inversely to the lr.
  bool cycle_momentum = true;
  PerGroup base_momentum = 0.8;
  PerGroup max_momentum = 0.9;
  int64_t last_epoch = -1;
  bool verbose = false;
};

// The lr cycles between base_lr and max_lr (Smith, 2017); a step is one batch.
class CyclicLR : public LRScheduler {
 public:
  CyclicLR(Optimizer& optimizer, PerGroup base_lr, PerGroup max_lr, CyclicLROptions options = {});

 protected:
  std::vector<double> get_lr() override;
  void state_fields(StateFields& f) override;
  double scale_fn(double x) const;
  std::vector<double> max_lrs_;
  double total_size_, step_ratio_;
  std::string mode_;
  double gamma_;
  std::function<double(double)> scale_fn_custom_;
  std::string scale_mode_;
  bool cycle_momentum_;
  bool use_beta1_ = false;
  std::vector<double> base_momentums_, max_momentums_;
};

struct OneCycleLROptions {
  // total_steps, or epochs and steps_per_epoch.
  std::optional<int64_t> total_steps{};
  std::optional<int64_t> epochs{};
  std::optional<int64_t> steps_per_epoch{};
  double pct_start = 0.3;              // share of the steps spent raising the lr
  std::string anneal_strategy = "cos";  // "cos" or "linear"
  bool cycle_momentum = true;           // "momentum", or betas[0] of an optimizer with betas
  PerGroup base_momentum = 0.85;
  PerGroup max_momentum = 0.95;
  double div_factor = 25.0;        // initial lr = max_lr / div_factor
  double final_div_factor = 1e4;   // min lr = initial lr / final_div_factor
  bool three_phase = false;        // up, back down to the initial lr, then to the min lr
  int64_t last_epoch = -1;
  bool verbose = false;
};

// The 1cycle policy (Smith & Topin, 2018); a step is one batch, total_steps steps in all.
class OneCycleLR : public LRScheduler {
 public:
  OneCycleLR(Optimizer& optimizer, PerGroup max_lr, OneCycleLROptions options = {});
  int64_t total_steps() const { return total_steps_; }

  struct Phase {
    double end_step;
    // Names of the group options the phase anneals between ("initial_lr", "max_lr", ...).
    std::string start_lr, end_lr, start_momentum, end_momentum;
  };

 protected:
  std::vector<double> get_lr() override;
  void state_fields(StateFields& f) override;
  double anneal(double start, double end, double pct) const;
  int64_t total_steps_;
  std::vector<Phase> phases_;
  std::string anneal_strategy_;
  bool cycle_momentum_;
  bool use_beta1_ = false;
};

// Runs schedulers one after another: schedulers[i] from epoch milestones[i - 1] on, restarted
// there (its step(0)). All must drive `optimizer`. As in torch it keeps last_epoch and the last
// lrs but no base_lrs of its own.
class SequentialLR : public LRScheduler {
 public:
  SequentialLR(Optimizer& optimizer, std::vector<std::shared_ptr<LRScheduler>> schedulers,
               std::vector<int64_t> milestones, int64_t last_epoch = -1, bool verbose = false);
  void step() override;
  const std::vector<std::shared_ptr<LRScheduler>>& schedulers() const { return schedulers_; }

 protected:
  std::vector<double> get_lr() override;
  void step_epoch(int64_t epoch) override;
  void state_fields(StateFields& f) override;
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
  std::vector<int64_t> milestones_;
};

// Steps every scheduler of the list at each step (their factors compose). All must drive the
// same optimizer. As in torch it keeps only the last lrs (no last_epoch or base_lrs).
class ChainedScheduler : public LRScheduler {
 public:
  explicit ChainedScheduler(std::vector<std::shared_ptr<LRScheduler>> schedulers);
  void step() override;
  const std::vector<std::shared_ptr<LRScheduler>>& schedulers() const { return schedulers_; }

 protected:
  std::vector<double> get_lr() override;
  void step_epoch(int64_t epoch) override;
  void state_fields(StateFields& f) override;
  std::vector<std::shared_ptr<LRScheduler>> schedulers_;
};

struct ReduceLROnPlateauOptions {
  std::string mode = "min";  // "min": lower metrics are better; "max": higher
  double factor = 0.1;       // lr *= factor on a plateau
  int64_t patience = 10;     // bad epochs tolerated before reducing
  double threshold = 1e-4;
  std::string threshold_mode = "rel";  // "rel": best * (1 -+ threshold); "abs": best -+ threshold
  int64_t cooldown = 0;                // epochs to wait after a reduction
  PerGroup min_lr = 0.0;
  double eps = 1e-8;  // reductions smaller than eps are skipped
  bool verbose = false;
};

// Reduces the lr when a metric has stopped improving. Not an LRScheduler (as in PyTorch 1.13):
// it steps on a metric, not on epochs.
class ReduceLROnPlateau {
 public:
  explicit ReduceLROnPlateau(Optimizer& optimizer, ReduceLROnPlateauOptions options = {});
  ReduceLROnPlateau(const ReduceLROnPlateau&) = delete;
  ReduceLROnPlateau& operator=(const ReduceLROnPlateau&) = delete;

  void step(double metrics);
  // A one-element tensor (a loss), as Python's float(metrics).
  void step(const Tensor& metrics);

  // The groups' lrs after the last step (their lrs at construction before any).
  const std::vector<double>& get_last_lr() const { return last_lr_; }
  int64_t last_epoch() const { return last_epoch_; }
  double best() const { return best_; }
  int64_t num_bad_epochs() const { return num_bad_epochs_; }
  int64_t cooldown_counter() const { return cooldown_counter_; }
  bool in_cooldown() const { return cooldown_counter_ > 0; }
  bool is_better(double a, double best) const;
  Optimizer& optimizer() const { return *optimizer_; }

  Value state_dict() const;
  void load_state_dict(const Value& state_dict);

 private:
  void fields(StateFields& f);
  void check_modes();  // and sets mode_worse
  void reduce_lr(int64_t epoch);

  Optimizer* optimizer_;
  double factor_;
  std::vector<double> min_lrs_;
  int64_t patience_;
  bool verbose_;
  int64_t cooldown_, cooldown_counter_ = 0;
  std::string mode_;
  double threshold_;
  std::string threshold_mode_;
  double best_, mode_worse_;
  int64_t num_bad_epochs_ = 0;
  double eps_;
  int64_t last_epoch_ = 0;
  std::vector<double> last_lr_;
};

}  // namespace ember::optim
