// Batch rules for normalization: batch norm (and instance norm, which runs through it) and
// layer norm (group norm decomposes into layer norm), forward and backward.
//
// Batch norm has per-sample semantics under vmap, as in functorch: each sample normalizes its
// own N x spatial values per channel. The batch folds into the channels: a physical input
// [B, N, C, *] becomes [N, B*C, *], and the per-channel tensors (weight, bias, running and
// saved statistics) become vectors of B*C. In training, running statistics are updated in
// place, so they must be batched when the input is (functorch's error otherwise).
#include "ember/ops.h"
#include "ember/autograd.h"
#include "ember/ops/nn.h"
#include "functional/batched.h"

namespace ember::func::detail {

namespace {

using OptT = std::optional<Tensor>;

OptT opt_arg(const IValue& v) { return v.is_none() || !v.tensor().defined() ? OptT() : OptT(v.tensor()); }

// A per-channel tensor (logical [C]) as one vector of B*C, or nullopt.
OptT fold_vector(const OptT& t, int64_t level, int64_t B) {
  if (!t) return std::nullopt;
  return physical_or_expanded(*t, level, B).reshape({-1});
}

// The logical per-channel tensors must be vectors of C elements and the input at least 2-D;
// anything else is left to the per-sample loop, which raises batch norm's own errors.
bool batch_norm_shapes_ok(const Tensor& input, std::initializer_list<const OptT*> per_channel) {
  if (input.dim() < 2) return false;
  for (const OptT* p : per_channel)
    if (*p && ((*p)->dim() != 1 || (*p)->numel() != input.size(1))) return false;
  return true;
}

bool batched_opt(const OptT& t, int64_t level) { return t && batched_at(*t, level); }

// native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)
//   -> (y, save_mean, save_invstd)
bool native_batch_norm_rule(const OpEntry&, Stack& stack, int64_t level, int64_t B) {
  const Tensor input = stack[0].tensor();
  const OptT weight = opt_arg(stack[1]), bias = opt_arg(stack[2]), rm = opt_arg(stack[3]), rv = opt_arg(stack[4]);
  const bool training = stack[5].get<bool>();
  const double momentum = stack[6].get<double>(), eps = stack[7].get<double>();
  if (!batch_norm_shapes_ok(input, {&weight, &bias, &rm, &rv})) return false;
  if (training && input.numel() / std::max<int64_t>(1, input.size(1)) <= 1) return false;  // the op's error
  const bool in_b = batched_at(input, level);
  if (training && ((rm && !batched_at(*rm, level)) || (rv && !batched_at(*rv, level)))) {
    EMBER_CHECK(!in_b, RuntimeError, "Batch norm got a batched tensor as input while the running_mean or running_var, "
                "which will be updated in place, were not batched.\nIf you are using a module and do not need eval "
                "mode, please set `track_running_stats` to be False.If you are using a prebuilt module and do not "
                "need eval mode, please see the functorch website for resources on how to patch your module to work "
                "with vmap");
    return false;  // unbatched input and statistics, batched weight or bias: per sample
  }
  const Tensor x = fold_channels(physical_or_expanded(input, level, B));
  // Running statistics are written in place: through a view of the physical tensor where
  // one exists, else through a contiguous copy written back afterwards.
  OptT frm, frv;
  std::vector<std::pair<Tensor, Tensor>> write_back;
  for (auto [src, dst] : {std::pair{&rm, &frm}, std::pair{&rv, &frv}}) {
    if (!*src) continue;
    if (!batched_at(**src, level)) {  // evaluation mode: read only
      *dst = fold_vector(*src, level, B);
      continue;
    }
    const Tensor& p = physical_of(**src);
    if (p.is_contiguous()) {
      *dst = p.view({-1});
    } else {
      Tensor c = ember::contiguous(p);
      *dst = c.view({-1});
      if (training) write_back.emplace_back(p, c);
    }
  }
  auto [y, mean, invstd] = ember::native_batch_norm(x, fold_vector(weight, level, B), fold_vector(bias, level, B),
                                                    frm, frv, training, momentum, eps);
  for (auto& [p, c] : write_back) {
    autograd::NoGradGuard no_grad;
    p.copy_(c);
  }
  const int64_t C = input.size(1);
  stack.clear();
  stack.emplace_back(make_batched(unfold_channels(y, B), level));
  stack.emplace_back(make_batched(mean.view({B, C}), level));
  stack.emplace_back(make_batched(invstd.view({B, C}), level));
  return true;
}

// native_batch_norm_backward(grad_out, input, weight, running_mean, running_var, save_mean,
// save_invstd, train, eps) -> (grad_input, grad_weight, grad_bias): folded the same way, so
// that every sample's statistics and parameter gradients stay its own.
bool native_batch_norm_backward_rule(const OpEntry&, Stack& stack, int64_t level, int64_t B) {
  const Tensor g = stack[0].tensor(), input = stack[1].tensor();
  const OptT weight = opt_arg(stack[2]), rm = opt_arg(stack[3]), rv = opt_arg(stack[4]);
  OptT sm = opt_arg(stack[5]), si = opt_arg(stack[6]);
  const bool train = stack[7].get<bool>();
  const double eps = stack[8].get<double>();
  if (sm && sm->numel() == 0) sm.reset();  // "no saved statistics", as the op reads an empty tensor
  if (si && si->numel() == 0) si.reset();
  if (!batch_norm_shapes_ok(input, {&weight, &rm, &rv, &sm, &si}) || !g.sizes().equals(input.sizes())) return false;
  const int64_t C = input.size(1);
  auto [dx, dw, db] = ember::native_batch_norm_backward(
      fold_channels(physical_or_expanded(g, level, B)), fold_channels(physical_or_expanded(input, level, B)),
      fold_vector(weight, level, B), fold_vector(rm, level, B), fold_vector(rv, level, B), fold_vector(sm, level, B),
      fold_vector(si, level, B), train, eps);
  stack.clear();
  stack.emplace_back(make_batched(unfold_channels(dx, B), level));
  stack.emplace_back(dw.defined() ? IValue(make_batched(dw.view({B, C}), level)) : IValue(Tensor()));
  stack.emplace_back(make_batched(db.view({B, C}), level));
  return true;
}

// native_layer_norm(input, normalized_shape, weight, bias, eps) -> (y, mean, rstd). The
// leading dims are rows, so a batched input is more rows; a batched weight or bias (the
// per-sample affine) is applied after an unweighted normalization, as its own pointwise ops.
bool native_layer_norm_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  const Tensor input = stack[0].tensor();
  const OptT weight = opt_arg(stack[2]), bias = opt_arg(stack[3]);
  if (!batched_opt(weight, level) && !batched_opt(bias, level)) return passthrough_rule(op, stack, level, B);
  const std::vector<int64_t> shape = stack[1].get<std::vector<int64_t>>();
  const auto k = static_cast<int64_t>(shape.size());
  if (k == 0 || input.dim() < k) return false;
  for (const OptT* p : {&weight, &bias})
    if (*p && !(*p)->sizes().equals(IntArrayRef(shape))) return false;  // the op's error, per sample
  for (int64_t i = 0; i < k; ++i)
    if (input.size(input.dim() - k + i) != shape[static_cast<size_t>(i)]) return false;
  auto [y, mean, rstd] = ember::native_layer_norm(input, shape, std::nullopt, std::nullopt, stack[4].get<double>());
  if (weight) y = ember::mul(y, *weight);
  if (bias) y = ember::add(y, *bias);
  stack.clear();
  stack.emplace_back(y);
  stack.emplace_back(mean);
  stack.emplace_back(rstd);
  return true;
}

// native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias)
//   -> (grad_input, grad_weight, grad_bias). grad_input treats the batch as more rows; the
// parameter gradients are sums over each sample's rows only.
bool native_layer_norm_backward_rule(const OpEntry&, Stack& stack, int64_t level, int64_t B) {
  const Tensor g = stack[0].tensor(), input = stack[1].tensor(), mean = stack[3].tensor(), rstd = stack[4].tensor();
  const OptT weight = opt_arg(stack[5]), bias = opt_arg(stack[6]);
  const std::vector<int64_t> shape = stack[2].get<std::vector<int64_t>>();
  const auto k = static_cast<int64_t>(shape.size());
  if (k == 0 || input.dim() < k || !g.sizes().equals(input.sizes())) return false;
  if (batched_opt(weight, level)) return false;  // per sample (the forward rule does not produce this case)
  const Tensor gp = physical_or_expanded(g, level, B), xp = physical_or_expanded(input, level, B);
  const Tensor mp = physical_or_expanded(mean, level, B), rp = physical_or_expanded(rstd, level, B);
  // The op's own parameter gradients would sum over every sample: only its grad_input is used.
  const Tensor dx = std::get<0>(ember::native_layer_norm_backward(gp, xp, shape, mp, rp, weight, std::nullopt));
  // Rows of one sample: every physical dim but the batch dim and the normalized ones.
  std::vector<int64_t> rows;
  for (int64_t d = 1; d < gp.dim() - k; ++d) rows.push_back(d);
  auto per_sample_sum = [&](const Tensor& t) {
    return rows.empty() ? t : ember::sum(t, rows);
  };
  Tensor dw, db;
  if (weight) dw = per_sample_sum(ember::mul(gp, ember::mul(ember::sub(xp, mp), rp)));
  if (bias) db = per_sample_sum(gp);
  stack.clear();
  stack.emplace_back(make_batched(dx, level));
  stack.emplace_back(dw.defined() ? IValue(make_batched(dw, level)) : IValue(Tensor()));
  stack.emplace_back(db.defined() ? IValue(make_batched(db, level)) : IValue(Tensor()));
  return true;
}

}  // namespace

Tensor fold_channels(const Tensor& phys) {
  // An unbatched operand expanded over the batch is copied first: a view that moves its
  // stride-0 batch dim from the front would send every sample's gradient to all of them.
  Tensor t = ember::movedim(phys.dim() > 0 && phys.stride(0) == 0 ? ember::contiguous(phys) : phys, 0, 1);
  DimVector sz{t.size(0), t.size(1) * t.size(2)};
  for (int64_t d = 3; d < t.dim(); ++d) sz.push_back(t.size(d));
  return t.reshape(sz);
}

Tensor unfold_channels(const Tensor& y, int64_t B) {
  DimVector sz{y.size(0), B, y.size(1) / B};
  for (int64_t d = 2; d < y.dim(); ++d) sz.push_back(y.size(d));
  return ember::movedim(y.reshape(sz), 1, 0);
}

void register_norm_batch_rules() {
  set_rule("native_batch_norm", &native_batch_norm_rule);
  set_rule("native_batch_norm_backward", &native_batch_norm_backward_rule);
  set_rule("native_layer_norm", &native_layer_norm_rule);
  set_rule("native_layer_norm_backward", &native_layer_norm_backward_rule);
}

}  // namespace ember::func::detail
