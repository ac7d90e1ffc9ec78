// L-BFGS (torch.optim.LBFGS, PyTorch 1.13) with an optional strong-Wolfe line search. Scalars
// (losses, dot products, step sizes) are doubles here; PyTorch keeps some as 0-dim tensors of
// the parameters' dtype, so float32 runs agree to float32 rounding.
#include "ember/optim/lbfgs.h"

#include <algorithm>
#include <cmath>

#include "ember/ops/products.h"
#include "optim/util.h"

namespace ember::optim {

namespace {

double to_d(const Tensor& t) { return t.item<double>(); }
double abs_max(const Tensor& t) { return to_d(max(abs(t))); }

// The minimizer of the cubic through (x1, f1, g1) and (x2, f2, g2), clamped to [lo, hi] (by
// default the interval); the middle when the cubic has none.
double cubic_interpolate(double x1, double f1, double g1, double x2, double f2, double g2,
                         std::optional<std::pair<double, double>> bounds = std::nullopt) {
  const auto [lo, hi] = bounds ? *bounds : (x1 <= x2 ? std::pair(x1, x2) : std::pair(x2, x1));
  const double d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2);
  const double d2_square = d1 * d1 - g1 * g2;
  if (d2_square >= 0) {
    const double d2 = std::sqrt(d2_square);
    const double pos = x1 <= x2 ? x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
                                : x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2));
    return std::min(std::max(pos, lo), hi);
  }
  return (lo + hi) / 2.;
}

struct LineSearch {
  double f;
  Tensor g;
  double t;
  int64_t evals;
};

// A step t along d that meets the strong Wolfe conditions: bracket a minimum (extrapolating t
// with cubics), then zoom in with cubic interpolation.
LineSearch strong_wolfe(const std::function<std::pair<double, Tensor>(double)>& obj, double t, const Tensor& d, double f,
                        const Tensor& g0, double gtd, double c1 = 1e-4, double c2 = 0.9,
                        double tolerance_change = 1e-9, int64_t max_ls = 25) {
  const double d_norm = abs_max(d);
  const Tensor g = g0.clone();
  auto [f_new, g_new] = obj(t);
  int64_t evals = 1;
  double gtd_new = to_d(dot(g_new, d));
  double t_prev = 0, f_prev = f, gtd_prev = gtd;
  Tensor g_prev = g;
  bool done = false;
  int64_t ls_iter = 0;
  std::vector<double> bracket, bracket_f, bracket_gtd;
  std::vector<Tensor> bracket_g;
  while (ls_iter < max_ls) {
    if (f_new > (f + c1 * t * gtd) || (ls_iter > 1 && f_new >= f_prev)) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone()};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    if (std::abs(gtd_new) <= -c2 * gtd) {
      bracket = {t};
      bracket_f = {f_new};
      bracket_g = {g_new};
      done = true;
      break;
    }
    if (gtd_new >= 0) {
      bracket = {t_prev, t};
      bracket_f = {f_prev, f_new};
      bracket_g = {g_prev, g_new.clone()};
      bracket_gtd = {gtd_prev, gtd_new};
      break;
    }
    const double t_next =
        cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new, std::pair(t + 0.01 * (t - t_prev), t * 10));
    t_prev = t, f_prev = f_new, g_prev = g_new.clone(), gtd_prev = gtd_new;
    t = t_next;
    std::tie(f_new, g_new) = obj(t);
    ++evals;
    gtd_new = to_d(dot(g_new, d));
    ++ls_iter;
  }
  if (ls_iter == max_ls) {
    bracket = {0, t};
    bracket_f = {f, f_new};
    bracket_g = {g, g_new};
  }

  bool insuf_progress = false;
  size_t low = bracket_f[0] <= bracket_f.back() ? 0 : 1, high = 1 - low;
  while (!done && ls_iter < max_ls) {
    if (std::abs(bracket[1] - bracket[0]) * d_norm < tolerance_change) break;
    t = cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]);
    // Keep t 10% of the bracket's width away from its ends when progress stalls.
    const double hi = std::max(bracket[0], bracket[1]), lo = std::min(bracket[0], bracket[1]);
    const double eps = 0.1 * (hi - lo);
    if (std::min(hi - t, t - lo) < eps) {
      if (insuf_progress || t >= hi || t <= lo) {
        t = std::abs(t - hi) < std::abs(t - lo) ? hi - eps : lo + eps;
        insuf_progress = false;
      } else {
        insuf_progress = true;
      }
    } else {
      insuf_progress = false;
    }
    std::tie(f_new, g_new) = obj(t);
    ++evals;
    gtd_new = to_d(dot(g_new, d));
    ++ls_iter;
    if (f_new > (f + c1 * t * gtd) || f_new >= bracket_f[low]) {
      bracket[high] = t, bracket_f[high] = f_new, bracket_g[high] = g_new.clone(), bracket_gtd[high] = gtd_new;
      low = bracket_f[0] <= bracket_f[1] ? 0 : 1, high = 1 - low;
    } else {
      if (std::abs(gtd_new) <= -c2 * gtd) {
        done = true;
      } else if (gtd_new * (bracket[high] - bracket[low]) >= 0) {
        bracket[high] = bracket[low], bracket_f[high] = bracket_f[low];
        bracket_g[high] = bracket_g[low], bracket_gtd[high] = bracket_gtd[low];
      }
      bracket[low] = t, bracket_f[low] = f_new, bracket_g[low] = g_new.clone(), bracket_gtd[low] = gtd_new;
    }
  }
  return {bracket_f[low], bracket_g[low], bracket[low], evals};
}

Value tensor_list(const std::vector<Tensor>& ts) {
  Value::List l;
  for (const Tensor& t : ts) l.emplace_back(t);
  return Value::list(std::move(l));
}
std::vector<Tensor> tensors_of(const Value* v) {
  std::vector<Tensor> out;
  if (v && v->is_sequence())
    for (const Value& e : v->items()) out.push_back(e.to_tensor());
  return out;
}
std::vector<double> numbers_of(const Value* v) {
  std::vector<double> out;
  if (v && v->is_sequence())
    for (const Value& e : v->items()) out.push_back(e.is_none() ? 0.0 : e.to_double());
  return out;
}
Value number_list(const std::vector<double>& xs) {
  Value::List l;
  for (double x : xs) l.emplace_back(x);
  return Value::list(std::move(l));
}

}  // namespace

Value LBFGSOptions::to_value() const {
  return Value::dict({{Value("lr"), Value(lr)},
                      {Value("max_iter"), Value(max_iter)},
                      {Value("max_eval"), Value(max_eval ? *max_eval : max_iter * 5 / 4)},
                      {Value("tolerance_grad"), Value(tolerance_grad)},
                      {Value("tolerance_change"), Value(tolerance_change)},
                      {Value("history_size"), Value(history_size)},
                      {Value("line_search_fn"), line_search_fn ? Value(*line_search_fn) : Value()}});
}

LBFGS::LBFGS(std::vector<Tensor> params, LBFGSOptions options) : Optimizer(std::move(params), options.to_value()) {}

Tensor LBFGS::gather_flat_grad() const {
  std::vector<Tensor> views;
  for (const Tensor& p : param_groups_[0].params) {
    const Tensor g = autograd::grad(p);
    views.push_back(g.defined() ? g.reshape({-1}) : zeros({p.numel()}, TensorOptions(p.dtype())));
  }
  return cat(views, 0);
}

void LBFGS::add_grad(double step_size, const Tensor& update) {
  int64_t offset = 0;
  for (const Tensor& p : param_groups_[0].params) {
    const int64_t n = p.numel();
    Tensor(p).add_(update.slice(0, offset, offset + n).view(p.sizes()), step_size);
    offset += n;
  }
}

std::pair<double, Tensor> LBFGS::directional_evaluate(const std::function<Tensor()>& closure,
                                                      const std::vector<Tensor>& x, double t, const Tensor& d) {
  add_grad(t, d);
  const double loss = to_d(detail::call_closure(closure));
  Tensor flat_grad = gather_flat_grad();
  for (size_t i = 0; i < x.size(); ++i) Tensor(param_groups_[0].params[i]).copy_(x[i]);
  return {loss, flat_grad};
}

Tensor LBFGS::step(const std::function<Tensor()>& closure) {
  EMBER_CHECK(static_cast<bool>(closure), RuntimeError, "LBFGS requires a closure that re-evaluates the model");
  EMBER_CHECK(param_groups_.size() == 1, ValueError, "LBFGS doesn't support per-parameter options (parameter groups)");
  autograd::NoGradGuard no_grad;
  const ParamGroup& group = param_groups_[0];
  const double lr = group.get("lr"), tolerance_grad = group.get("tolerance_grad");
  const double tolerance_change = group.get("tolerance_change");
  const int64_t max_iter = group.options.at(Value("max_iter")).to_int();
  const int64_t max_eval = group.options.at(Value("max_eval")).to_int();
  const int64_t history_size = group.options.at(Value("history_size")).to_int();
  const Value& ls = group.options.at(Value("line_search_fn"));
  if (!ls.is_none())
    EMBER_CHECK(ls.is_string() && ls.to_string() == "strong_wolfe", RuntimeError, "only 'strong_wolfe' is supported");

  Value& state = state_of(group.params[0]);
  auto get_int = [&](const char* k) { const Value* v = state.find(Value(k)); return v ? v->to_int() : int64_t{0}; };
  int64_t func_evals = get_int("func_evals"), state_n_iter = get_int("n_iter");
  const Tensor orig_loss = detail::call_closure(closure);
  double loss = to_d(orig_loss);
  int64_t current_evals = 1;
  ++func_evals;
  state.set(Value("func_evals"), Value(func_evals));
  state.set(Value("n_iter"), Value(state_n_iter));
  Tensor flat_grad = gather_flat_grad();
  if (abs_max(flat_grad) <= tolerance_grad) return orig_loss;

  Tensor d = detail::state_tensor(state, "d");
  const Value* tv = state.find(Value("t"));
  double t = tv && tv->is_number() ? tv->to_double() : lr;
  std::vector<Tensor> old_dirs = tensors_of(state.find(Value("old_dirs")));
  std::vector<Tensor> old_stps = tensors_of(state.find(Value("old_stps")));
  std::vector<double> ro = numbers_of(state.find(Value("ro")));
  std::vector<double> al = numbers_of(state.find(Value("al")));
  const Value* hv = state.find(Value("H_diag"));
  double H_diag = hv && hv->is_number() ? hv->to_double() : 1.0;
  Tensor prev_flat_grad = detail::state_tensor(state, "prev_flat_grad");
  const Value* plv = state.find(Value("prev_loss"));
  double prev_loss = plv && plv->is_number() ? plv->to_double() : 0.0;

  int64_t n_iter = 0;
  while (n_iter < max_iter) {
    ++n_iter;
    ++state_n_iter;
    if (state_n_iter == 1) {
      d = neg(flat_grad);
      old_dirs.clear(), old_stps.clear(), ro.clear();
      H_diag = 1;
    } else {
      // New curvature pair, kept only when y.s is clearly positive.
      const Tensor y = sub(flat_grad, prev_flat_grad);
      const Tensor s = mul(d, t);
      const double ys = to_d(dot(y, s));
      if (ys > 1e-10) {
        if (static_cast<int64_t>(old_dirs.size()) == history_size) {
          old_dirs.erase(old_dirs.begin()), old_stps.erase(old_stps.begin()), ro.erase(ro.begin());
        }
        old_dirs.push_back(y), old_stps.push_back(s), ro.push_back(1.0 / ys);
        H_diag = ys / to_d(dot(y, y));
      }
      // Two-loop recursion: d = -H g.
      const size_t num_old = old_dirs.size();
      al.resize(static_cast<size_t>(history_size));
      Tensor q = neg(flat_grad);
      for (size_t i = num_old; i-- > 0;) {
        al[i] = to_d(dot(old_stps[i], q)) * ro[i];
        q.add_(old_dirs[i], -al[i]);
      }
      d = mul(q, H_diag);
      for (size_t i = 0; i < num_old; ++i) {
        const double be_i = to_d(dot(old_dirs[i], d)) * ro[i];
        d.add_(old_stps[i], al[i] - be_i);
      }
    }
    if (!prev_flat_grad.defined()) prev_flat_grad = flat_grad.clone();
    else prev_flat_grad.copy_(flat_grad);
    prev_loss = loss;

    t = state_n_iter == 1 ? std::min(1.0, 1.0 / to_d(sum(abs(flat_grad)))) * lr : lr;
    const double gtd = to_d(dot(flat_grad, d));
    if (gtd > -tolerance_change) break;

    int64_t ls_evals = 0;
    bool opt_cond = false;
    if (!ls.is_none()) {
      std::vector<Tensor> x_init;
      for (const Tensor& p : group.params) x_init.push_back(p.clone());
      auto obj = [&](double step) { return directional_evaluate(closure, x_init, step, d); };
      LineSearch r = strong_wolfe(obj, t, d, loss, flat_grad, gtd);
      loss = r.f, flat_grad = r.g, t = r.t, ls_evals = r.evals;
      add_grad(t, d);
      opt_cond = abs_max(flat_grad) <= tolerance_grad;
    } else {
      add_grad(t, d);
      if (n_iter != max_iter) {
        loss = to_d(detail::call_closure(closure));
        flat_grad = gather_flat_grad();
        opt_cond = abs_max(flat_grad) <= tolerance_grad;
        ls_evals = 1;
      }
    }
    current_evals += ls_evals;
    func_evals += ls_evals;

    if (n_iter == max_iter || current_evals >= max_eval || opt_cond) break;
    if (abs_max(mul(d, t)) <= tolerance_change) break;
    if (std::abs(loss - prev_loss) < tolerance_change) break;
  }

  state.set(Value("func_evals"), Value(func_evals));
  state.set(Value("n_iter"), Value(state_n_iter));
  state.set(Value("d"), d.defined() ? Value(d) : Value());
  state.set(Value("t"), Value(t));
  state.set(Value("old_dirs"), tensor_list(old_dirs));
  state.set(Value("old_stps"), tensor_list(old_stps));
  state.set(Value("ro"), number_list(ro));
  state.set(Value("H_diag"), Value(H_diag));
  state.set(Value("prev_flat_grad"), prev_flat_grad.defined() ? Value(prev_flat_grad) : Value());
  state.set(Value("prev_loss"), Value(prev_loss));
  if (!al.empty()) state.set(Value("al"), number_list(al));
  return orig_loss;
}

}  // namespace ember::optim
