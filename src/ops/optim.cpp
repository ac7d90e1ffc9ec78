// The fused optimizer ops (`_fused_sgd_`, `_fused_adam_`, ...): one call per parameter group
// updates every parameter and its state in place. The op checks the lists (lengths, shapes,
// dtypes, devices) before it writes anything, increments the step counters, computes the
// per-parameter coefficients in double exactly as torch.optim's Python does, and hands the
// element loops to optim_stub. Non-contiguous tensors are updated through contiguous copies.
//
// An Autograd kernel of their own refuses parameters that require grad while grad mode is
// on (as any in-place op on a leaf does); optimizers call these ops under no_grad.
#include <algorithm>
#include <array>
#include <cmath>

#include "backends/cpu/optim_stubs.h"
#include "ember/autograd.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ember/ops/optim.h"

namespace ember {
namespace cpu {
Stub<OptimFn> optim_stub;
}

namespace {

using cpu::OptimArgs;
using cpu::OptimKind;
using cpu::OptimTensor;

// The checked lists of one call; `run` applies the kernel.
class FusedUpdate {
 public:
  FusedUpdate(const char* op, TensorList params, TensorList grads) : op_(op), params_(params), grads_(grads) {
    check_length("grads", grads.size());
    for (size_t i = 0; i < params.size(); ++i) {
      const Tensor& p = params[i];
      EMBER_CHECK(p.defined(), RuntimeError, op_, ": params[", i, "] is undefined");
      EMBER_CHECK(is_floating_point(p.dtype()), TypeError, op_, ": expected floating-point parameters, but params[", i,
                  "] has dtype ", p.dtype());
      check_like("grads", i, grads[i]);
    }
  }

  // State list k (0..2); an unused list must be empty.
  void state(int k, const char* name, TensorList list, bool used) {
    if (!used) {
      EMBER_CHECK(list.empty(), RuntimeError, op_, ": ", name, " must be empty with these options");
      return;
    }
    check_length(name, list.size());
    for (size_t i = 0; i < list.size(); ++i) check_like(name, i, list[i]);
    states_[k] = list;
    used_[k] = true;
  }

  // One-element counters (state_steps, mu_products), one per parameter.
  void counters(const char* name, TensorList list) const {
    check_length(name, list.size());
    for (size_t i = 0; i < list.size(); ++i) {
      EMBER_CHECK(list[i].defined() && list[i].numel() == 1, RuntimeError, op_, ": ", name, "[", i,
                  "] must be a one-element tensor");
      EMBER_CHECK(is_floating_point(list[i].dtype()), TypeError, op_, ": ", name, "[", i,
                  "] must be floating point, got ", list[i].dtype());
    }
  }

  bool is_meta() const {
    for (const Tensor& p : params_)
      if (p.is_meta()) return true;
    return false;
  }
  size_t size() const { return params_.size(); }

  // coef[i] are parameter i's coefficients. One kernel call per dtype; a list that holds a
  // tensor twice (torch warns about such groups and updates it twice) runs one parameter at a
  // time, so that the second update sees the first, as in torch's loop.
  void run(const OptimArgs& args, const std::vector<std::array<double, 3>>& coef) {
    std::vector<size_t> all(params_.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    std::vector<const void*> data;
    for (const Tensor& p : params_)
      if (p.numel()) data.push_back(p.data_ptr());
    std::sort(data.begin(), data.end());
    if (std::adjacent_find(data.begin(), data.end()) == data.end()) {
      run_some(args, coef, all);
    } else {
      for (size_t i : all) run_some(args, coef, {i});
    }
  }

 private:
  void run_some(OptimArgs args, const std::vector<std::array<double, 3>>& coef, const std::vector<size_t>& which) {
    std::vector<std::pair<Tensor, Tensor>> write_back;  // (original, contiguous work copy)
    std::vector<Tensor> keep;                           // contiguous gradients
    auto writable = [&](const Tensor& t) -> char* {
      if (t.is_contiguous()) return static_cast<char*>(t.data_ptr());
      Tensor c = t.contiguous();
      write_back.emplace_back(t, c);
      return static_cast<char*>(c.data_ptr());
    };
    std::vector<ScalarType> dtypes;
    for (size_t i : which)
      if (std::find(dtypes.begin(), dtypes.end(), params_[i].dtype()) == dtypes.end())
        dtypes.push_back(params_[i].dtype());
    for (ScalarType dt : dtypes) {
      std::vector<OptimTensor> ts;
      for (size_t i : which) {
        const Tensor& p = params_[i];
        if (p.dtype() != dt || p.numel() == 0) continue;
        OptimTensor t;
        t.param = writable(p);
        const Tensor& g = grads_[i];
        if (g.is_contiguous()) {
          t.grad = static_cast<const char*>(g.data_ptr());
        } else {
          keep.push_back(g.contiguous());
          t.grad = static_cast<const char*>(keep.back().data_ptr());
        }
        for (int k = 0; k < 3; ++k)
          if (used_[k]) t.state[k] = writable(states_[k][i]);
        t.numel = p.numel();
        for (int c = 0; c < 3; ++c) t.coef[c] = coef[i][static_cast<size_t>(c)];
        ts.push_back(t);
      }
      if (ts.empty()) continue;
      args.dtype = dt;
      args.tensors = ts.data();
      args.ntensors = static_cast<int64_t>(ts.size());
      cpu::optim_stub(args);
    }
    for (auto& [orig, work] : write_back) orig.copy_(work);
    // Every written tensor changed (the copies above bumped theirs already).
    auto bump = [&](const Tensor& t) {
      if (t.is_contiguous() && t.numel() > 0) t.bump_version();
    };
    for (size_t i : which) {
      bump(params_[i]);
      for (int k = 0; k < 3; ++k)
        if (used_[k]) bump(states_[k][i]);
    }
  }

  void check_length(const char* name, size_t n) const {
    EMBER_CHECK(n == params_.size(), RuntimeError, op_, ": Tensor lists must have the same number of tensors, got ",
                params_.size(), " params and ", n, " ", name);
  }
  void check_like(const char* name, size_t i, const Tensor& t) const {
    const Tensor& p = params_[i];
    EMBER_CHECK(t.defined(), RuntimeError, op_, ": ", name, "[", i, "] is undefined");
    EMBER_CHECK(t.sizes() == p.sizes(), RuntimeError, op_, ": ", name, "[", i, "] has shape ", t.sizes(),
                " but params[", i, "] has shape ", p.sizes());
    EMBER_CHECK(t.dtype() == p.dtype(), TypeError, op_, ": ", name, "[", i, "] has dtype ", t.dtype(),
                " but params[", i, "] has dtype ", p.dtype());
    EMBER_CHECK(t.device() == p.device(), RuntimeError, op_, ": ", name, "[", i, "] is on ", t.device(),
                " but params[", i, "] is on ", p.device());
  }

  const char* op_;
  TensorList params_, grads_;
  TensorList states_[3];
  bool used_[3] = {false, false, false};
};

// Adds 1 to a step counter and returns the new count (float32 counters count in float32,
// as torch's state['step'] tensors do).
double next_step(const Tensor& s) {
  if (s.is_cpu() && s.dtype() == kFloat) {
    float* v = static_cast<float*>(s.data_ptr());
    *v = *v + 1.0f;
    s.bump_version();
    return *v;
  }
  Tensor(s).add_(1);
  return s.item<double>();
}

double pow_d(double b, double e) { return std::pow(b, e); }

// ---------------------------------------------------------------- kernels (CPU and Meta)
void fused_sgd(TensorList params, TensorList grads, TensorList bufs, double lr, double momentum, double dampening,
               double weight_decay, bool nesterov, bool maximize, IntArrayRef fresh) {
  FusedUpdate u("_fused_sgd_", params, grads);
  u.state(0, "momentum_buffers", bufs, momentum != 0);
  std::vector<std::array<double, 3>> coef(u.size(), {0, 0, 0});
  for (int64_t i : fresh) {
    EMBER_CHECK(i >= 0 && i < static_cast<int64_t>(u.size()), IndexError, "_fused_sgd_: fresh index ", i,
                " is out of range for ", u.size(), " parameters");
    coef[static_cast<size_t>(i)][0] = 1;
  }
  if (u.is_meta()) return;
  OptimArgs a;
  a.kind = OptimKind::SGD;
  a.hyper[0] = lr;
  a.hyper[1] = momentum;
  a.hyper[2] = dampening;
  a.hyper[7] = weight_decay;
  a.flags = (maximize ? cpu::kOptimMaximize : 0) | (weight_decay != 0 ? cpu::kOptimWeightDecay : 0) |
            (momentum != 0 ? cpu::kOptimMomentum : 0) | (momentum != 0 && nesterov ? cpu::kOptimNesterov : 0);
  u.run(a, coef);
}

void fused_adam(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                TensorList max_exp_avg_sqs, TensorList steps, double lr, double beta1, double beta2,
                double weight_decay, double eps, bool amsgrad, bool maximize, bool decoupled) {
  FusedUpdate u("_fused_adam_", params, grads);
  u.state(0, "exp_avgs", exp_avgs, true);
  u.state(1, "exp_avg_sqs", exp_avg_sqs, true);
  u.state(2, "max_exp_avg_sqs", max_exp_avg_sqs, amsgrad);
  u.counters("state_steps", steps);
  if (u.is_meta()) return;
  std::vector<std::array<double, 3>> coef(u.size());
  for (size_t i = 0; i < u.size(); ++i) {
    const double step = next_step(steps[i]);
    const double bc1 = 1 - pow_d(beta1, step), bc2 = 1 - pow_d(beta2, step);
    coef[i] = {-(lr / bc1), std::sqrt(bc2), 0};
  }
  OptimArgs a;
  a.kind = OptimKind::Adam;
  a.hyper[0] = lr;
  a.hyper[1] = beta1;
  a.hyper[2] = beta2;
  a.hyper[3] = eps;
  a.hyper[7] = weight_decay;
  a.flags = (maximize ? cpu::kOptimMaximize : 0) | (amsgrad ? cpu::kOptimAmsgrad : 0) |
            (decoupled ? cpu::kOptimDecoupled : (weight_decay != 0 ? cpu::kOptimWeightDecay : 0));
  u.run(a, coef);
}

void fused_adagrad(TensorList params, TensorList grads, TensorList sums, TensorList steps, double lr,
                   double lr_decay, double weight_decay, double eps, bool maximize) {
  FusedUpdate u("_fused_adagrad_", params, grads);
  u.state(0, "state_sums", sums, true);
  u.counters("state_steps", steps);
  if (u.is_meta()) return;
  std::vector<std::array<double, 3>> coef(u.size());
  for (size_t i = 0; i < u.size(); ++i) {
    const double step = next_step(steps[i]);
    coef[i] = {-(lr / (1 + (step - 1) * lr_decay)), 0, 0};
  }
  OptimArgs a;
  a.kind = OptimKind::Adagrad;
  a.hyper[0] = eps;
  a.hyper[7] = weight_decay;
  a.flags = (maximize ? cpu::kOptimMaximize : 0) | (weight_decay != 0 ? cpu::kOptimWeightDecay : 0);
  u.run(a, coef);
}

void fused_rmsprop(TensorList params, TensorList grads, TensorList square_avgs, TensorList grad_avgs,
                   TensorList bufs, double lr, double alpha, double eps, double weight_decay, double momentum,
                   bool centered, bool maximize) {
  FusedUpdate u("_fused_rmsprop_", params, grads);
  u.state(0, "square_avgs", square_avgs, true);
  u.state(1, "grad_avgs", grad_avgs, centered);
  u.state(2, "momentum_buffers", bufs, momentum > 0);
  if (u.is_meta()) return;
  OptimArgs a;
  a.kind = OptimKind::RMSprop;
  a.hyper[0] = lr;
  a.hyper[1] = alpha;
  a.hyper[2] = eps;
  a.hyper[3] = momentum;
  a.hyper[7] = weight_decay;
  a.flags = (maximize ? cpu::kOptimMaximize : 0) | (weight_decay != 0 ? cpu::kOptimWeightDecay : 0) |
            (centered ? cpu::kOptimCentered : 0) | (momentum > 0 ? cpu::kOptimMomentum : 0);
  u.run(a, std::vector<std::array<double, 3>>(u.size(), {0, 0, 0}));
}

void fused_adadelta(TensorList params, TensorList grads, TensorList square_avgs, TensorList acc_deltas, double lr,
                    double rho, double eps, double weight_decay, bool maximize) {
  FusedUpdate u("_fused_adadelta_", params, grads);
  u.state(0, "square_avgs", square_avgs, true);
  u.state(1, "acc_deltas", acc_deltas, true);
  if (u.is_meta()) return;
  OptimArgs a;
  a.kind = OptimKind::Adadelta;
  a.hyper[0] = lr;
  a.hyper[1] = rho;
  a.hyper[2] = eps;
  a.hyper[7] = weight_decay;
  a.flags = (maximize ? cpu::kOptimMaximize : 0) | (weight_decay != 0 ? cpu::kOptimWeightDecay : 0);
  u.run(a, std::vector<std::array<double, 3>>(u.size(), {0, 0, 0}));
}

void fused_adamax(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_infs, TensorList steps,
                  double lr, double beta1, double beta2, double eps, double weight_decay, bool maximize) {
  FusedUpdate u("_fused_adamax_", params, grads);
  u.state(0, "exp_avgs", exp_avgs, true);
  u.state(1, "exp_infs", exp_infs, true);
  u.counters("state_steps", steps);
  if (u.is_meta()) return;
  std::vector<std::array<double, 3>> coef(u.size());
  for (size_t i = 0; i < u.size(); ++i) {
    const double step = next_step(steps[i]);
    coef[i] = {-(lr / (1 - pow_d(beta1, step))), 0, 0};
  }
  OptimArgs a;
  a.kind = OptimKind::Adamax;
  a.hyper[0] = beta1;
  a.hyper[1] = beta2;
  a.hyper[2] = eps;
  a.hyper[7] = weight_decay;
  a.flags = (maximize ? cpu::kOptimMaximize : 0) | (weight_decay != 0 ? cpu::kOptimWeightDecay : 0);
  u.run(a, coef);
}

// mu_product *= mu, in the counter's dtype (torch keeps it a float32 tensor); returns the new
// value and mu_product * mu * mu_next computed the same way.
std::pair<double, double> next_mu_product(const Tensor& t, double mu, double mu_next) {
  if (t.dtype() == kFloat || !(t.is_cpu())) {
    const float prod = static_cast<float>(t.item<double>()) * static_cast<float>(mu);
    const float next = (prod * static_cast<float>(mu)) * static_cast<float>(mu_next);
    Tensor(t).fill_(static_cast<double>(prod));
    return {prod, next};
  }
  const double prod = t.item<double>() * mu;
  Tensor(t).fill_(prod);
  return {prod, prod * mu * mu_next};
}

void fused_nadam(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                 TensorList mu_products, TensorList steps, double lr, double beta1, double beta2, double weight_decay,
                 double momentum_decay, double eps) {
  FusedUpdate u("_fused_nadam_", params, grads);
  u.state(0, "exp_avgs", exp_avgs, true);
  u.state(1, "exp_avg_sqs", exp_avg_sqs, true);
  u.counters("mu_products", mu_products);
  u.counters("state_steps", steps);
  if (u.is_meta()) return;
  std::vector<std::array<double, 3>> coef(u.size());
  for (size_t i = 0; i < u.size(); ++i) {
    const double step = next_step(steps[i]);
    const double bc2 = 1 - pow_d(beta2, step);
    const double mu = beta1 * (1. - 0.5 * pow_d(0.96, step * momentum_decay));
    const double mu_next = beta1 * (1. - 0.5 * pow_d(0.96, (step + 1) * momentum_decay));
    const auto [prod, prod_next] = next_mu_product(mu_products[i], mu, mu_next);
    coef[i] = {bc2, -lr * (1. - mu) / (1. - prod), -lr * mu_next / (1. - prod_next)};
  }
  OptimArgs a;
  a.kind = OptimKind::NAdam;
  a.hyper[0] = beta1;
  a.hyper[1] = beta2;
  a.hyper[2] = eps;
  a.hyper[7] = weight_decay;
  a.flags = weight_decay != 0 ? cpu::kOptimWeightDecay : 0;
  u.run(a, coef);
}

void fused_radam(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs, TensorList steps,
                 double lr, double beta1, double beta2, double weight_decay, double eps) {
  FusedUpdate u("_fused_radam_", params, grads);
  u.state(0, "exp_avgs", exp_avgs, true);
  u.state(1, "exp_avg_sqs", exp_avg_sqs, true);
  u.counters("state_steps", steps);
  if (u.is_meta()) return;
  std::vector<std::array<double, 3>> coef(u.size());
  const double rho_inf = 2 / (1 - beta2) - 1;
  for (size_t i = 0; i < u.size(); ++i) {
    const double step = next_step(steps[i]);
    const double bc1 = 1 - pow_d(beta1, step), bc2 = 1 - pow_d(beta2, step);
    const double rho_t = rho_inf - 2 * step * pow_d(beta2, step) / bc2;
    if (rho_t > 5.) {
      const double rect =
          std::sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t));
      coef[i] = {bc1, std::sqrt(bc2), rect};
    } else {
      coef[i] = {bc1, 0, 0};
    }
  }
  OptimArgs a;
  a.kind = OptimKind::RAdam;
  a.hyper[0] = lr;
  a.hyper[1] = beta1;
  a.hyper[2] = beta2;
  a.hyper[3] = eps;
  a.hyper[7] = weight_decay;
  a.flags = weight_decay != 0 ? cpu::kOptimWeightDecay : 0;
  u.run(a, coef);
}

// ---------------------------------------------------------------- signatures and the Autograd layer
using SgdSig = void(TensorList, TensorList, TensorList, double, double, double, double, bool, bool, IntArrayRef);
using AdamSig = void(TensorList, TensorList, TensorList, TensorList, TensorList, TensorList, double, double, double,
                     double, double, bool, bool, bool);
using AdagradSig = void(TensorList, TensorList, TensorList, TensorList, double, double, double, double, bool);
using RmspropSig = void(TensorList, TensorList, TensorList, TensorList, TensorList, double, double, double, double,
                        double, bool, bool);
using AdadeltaSig = void(TensorList, TensorList, TensorList, TensorList, double, double, double, double, bool);
using AdamaxSig = void(TensorList, TensorList, TensorList, TensorList, TensorList, double, double, double, double,
                       double, bool);
using NadamSig = void(TensorList, TensorList, TensorList, TensorList, TensorList, TensorList, double, double, double,
                      double, double, double);
using RadamSig = void(TensorList, TensorList, TensorList, TensorList, TensorList, double, double, double, double,
                      double);

constexpr char kSgd[] = "_fused_sgd_";
constexpr char kAdam[] = "_fused_adam_";
constexpr char kAdagrad[] = "_fused_adagrad_";
constexpr char kRmsprop[] = "_fused_rmsprop_";
constexpr char kAdadelta[] = "_fused_adadelta_";
constexpr char kAdamax[] = "_fused_adamax_";
constexpr char kNadam[] = "_fused_nadam_";
constexpr char kRadam[] = "_fused_radam_";

template <typename Sig, const char* Name>
struct FusedAutograd;
template <const char* Name, typename... Rest>
struct FusedAutograd<void(TensorList, Rest...), Name> {
  // The parameters are written in place: with grad mode on, one that requires grad is a
  // leaf modified in place. Otherwise the op runs below the layer.
  static void kernel(TensorList params, Rest... rest) {
    if (autograd::GradMode::is_enabled())
      for (const Tensor& p : params)
        EMBER_CHECK(!autograd::requires_grad(p), RuntimeError,
                    "a leaf Variable that requires grad is being used in an in-place operation.");
    static const TypedOp<void(TensorList, Rest...)> op(Name);
    ExcludeKeyGuard guard(DispatchKey::Autograd);
    op.call(params, rest...);
  }
};

template <typename Sig, const char* Name, Sig* Fn>
void define_fused(const char* schema) {
  define_op<Sig>(schema, Tag::Inplace | Tag::FunctionOnly);
  register_cpu_meta<Sig, Fn>(Name);
  register_kernel<Sig, &FusedAutograd<Sig, Name>::kernel>(Name, DispatchKey::Autograd);
}

}  // namespace

// ---------------------------------------------------------------- front functions
void _fused_sgd_(TensorList params, TensorList grads, TensorList momentum_buffers, double lr, double momentum,
                 double dampening, double weight_decay, bool nesterov, bool maximize, IntArrayRef fresh) {
  static const TypedOp<SgdSig> op(kSgd);
  op.call(params, grads, momentum_buffers, lr, momentum, dampening, weight_decay, nesterov, maximize, fresh);
}
void _fused_adam_(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                  TensorList max_exp_avg_sqs, TensorList state_steps, double lr, double beta1, double beta2,
                  double weight_decay, double eps, bool amsgrad, bool maximize, bool decoupled_weight_decay) {
  static const TypedOp<AdamSig> op(kAdam);
  op.call(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr, beta1, beta2, weight_decay, eps,
          amsgrad, maximize, decoupled_weight_decay);
}
void _fused_adagrad_(TensorList params, TensorList grads, TensorList state_sums, TensorList state_steps, double lr,
                     double lr_decay, double weight_decay, double eps, bool maximize) {
  static const TypedOp<AdagradSig> op(kAdagrad);
  op.call(params, grads, state_sums, state_steps, lr, lr_decay, weight_decay, eps, maximize);
}
void _fused_rmsprop_(TensorList params, TensorList grads, TensorList square_avgs, TensorList grad_avgs,
                     TensorList momentum_buffers, double lr, double alpha, double eps, double weight_decay,
                     double momentum, bool centered, bool maximize) {
  static const TypedOp<RmspropSig> op(kRmsprop);
  op.call(params, grads, square_avgs, grad_avgs, momentum_buffers, lr, alpha, eps, weight_decay, momentum, centered,
          maximize);
}
void _fused_adadelta_(TensorList params, TensorList grads, TensorList square_avgs, TensorList acc_deltas, double lr,
                      double rho, double eps, double weight_decay, bool maximize) {
  static const TypedOp<AdadeltaSig> op(kAdadelta);
  op.call(params, grads, square_avgs, acc_deltas, lr, rho, eps, weight_decay, maximize);
}
void _fused_adamax_(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_infs,
                    TensorList state_steps, double lr, double beta1, double beta2, double eps, double weight_decay,
                    bool maximize) {
  static const TypedOp<AdamaxSig> op(kAdamax);
  op.call(params, grads, exp_avgs, exp_infs, state_steps, lr, beta1, beta2, eps, weight_decay, maximize);
}
void _fused_nadam_(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                   TensorList mu_products, TensorList state_steps, double lr, double beta1, double beta2,
                   double weight_decay, double momentum_decay, double eps) {
  static const TypedOp<NadamSig> op(kNadam);
  op.call(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, lr, beta1, beta2, weight_decay,
          momentum_decay, eps);
}
void _fused_radam_(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                   TensorList state_steps, double lr, double beta1, double beta2, double weight_decay, double eps) {
  static const TypedOp<RadamSig> op(kRadam);
  op.call(params, grads, exp_avgs, exp_avg_sqs, state_steps, lr, beta1, beta2, weight_decay, eps);
}

EMBER_REGISTER(optim_ops) {
  define_fused<SgdSig, kSgd, &fused_sgd>(
      "_fused_sgd_(Tensor(a!)[] params, Tensor[] grads, Tensor(b!)[] momentum_buffers, *, float lr, "
      "float momentum=0., float dampening=0., float weight_decay=0., bool nesterov=False, bool maximize=False, "
      "int[] fresh=[]) -> ()");
  define_fused<AdamSig, kAdam, &fused_adam>(
      "_fused_adam_(Tensor(a!)[] params, Tensor[] grads, Tensor(b!)[] exp_avgs, Tensor(c!)[] exp_avg_sqs, "
      "Tensor(d!)[] max_exp_avg_sqs, Tensor(e!)[] state_steps, *, float lr, float beta1, float beta2, "
      "float weight_decay, float eps, bool amsgrad, bool maximize, bool decoupled_weight_decay=False) -> ()");
  define_fused<AdagradSig, kAdagrad, &fused_adagrad>(
      "_fused_adagrad_(Tensor(a!)[] params, Tensor[] grads, Tensor(b!)[] state_sums, Tensor(c!)[] state_steps, *, "
      "float lr, float lr_decay, float weight_decay, float eps, bool maximize) -> ()");
  define_fused<RmspropSig, kRmsprop, &fused_rmsprop>(
      "_fused_rmsprop_(Tensor(a!)[] params, Tensor[] grads, Tensor(b!)[] square_avgs, Tensor(c!)[] grad_avgs, "
      "Tensor(d!)[] momentum_buffers, *, float lr, float alpha, float eps, float weight_decay, float momentum, "
      "bool centered, bool maximize) -> ()");
  define_fused<AdadeltaSig, kAdadelta, &fused_adadelta>(
      "_fused_adadelta_(Tensor(a!)[] params, Tensor[] grads, Tensor(b!)[] square_avgs, Tensor(c!)[] acc_deltas, *, "
      "float lr, float rho, float eps, float weight_decay, bool maximize) -> ()");
  define_fused<AdamaxSig, kAdamax, &fused_adamax>(
      "_fused_adamax_(Tensor(a!)[] params, Tensor[] grads, Tensor(b!)[] exp_avgs, Tensor(c!)[] exp_infs, "
      "Tensor(d!)[] state_steps, *, float lr, float beta1, float beta2, float eps, float weight_decay, "
      "bool maximize) -> ()");
  define_fused<NadamSig, kNadam, &fused_nadam>(
      "_fused_nadam_(Tensor(a!)[] params, Tensor[] grads, Tensor(b!)[] exp_avgs, Tensor(c!)[] exp_avg_sqs, "
      "Tensor(d!)[] mu_products, Tensor(e!)[] state_steps, *, float lr, float beta1, float beta2, "
      "float weight_decay, float momentum_decay, float eps) -> ()");
  define_fused<RadamSig, kRadam, &fused_radam>(
      "_fused_radam_(Tensor(a!)[] params, Tensor[] grads, Tensor(b!)[] exp_avgs, Tensor(c!)[] exp_avg_sqs, "
      "Tensor(d!)[] state_steps, *, float lr, float beta1, float beta2, float weight_decay, float eps) -> ()");
}

}  // namespace ember
