// Derivatives of the neural-network ops: softmax and log_softmax (through their backward
// ops, which have derivatives of their own for double backward), layer and batch norm
// (through their fused backward ops; no double backward yet).
#include <algorithm>
#include <tuple>
#include <vector>

#include "autograd/formula_util.h"
#include "ember/dispatch.h"
#include "ember/ops.h"

// A named namespace: library sources are compiled in unity batches.
namespace ember::autograd::nn_formulas {
namespace {

using namespace formula;

std::optional<Tensor> optional_arg(const BackwardContext& c, size_t arg) {
  return c.is_none(arg) ? std::nullopt : std::optional<Tensor>(c.tensor(arg));
}

// Normalization gradients written with differentiable ops, for create_graph (the fused
// backward ops have no derivatives of their own). x is normalized over `dims` with its own
// statistics, recomputed here so that the graph reaches x through them, or with fixed ones
// (batch norm in evaluation mode: the running mean and 1 / sqrt(var + eps)). weight has the
// kept dims' shape.
std::tuple<Tensor, Tensor, Tensor> norm_grads(const Tensor& g, const Tensor& x, const std::vector<int64_t>& dims,
                                              const std::optional<Tensor>& weight,
                                              const std::optional<Tensor>& fixed_mean,
                                              const std::optional<Tensor>& fixed_invstd, double eps) {
  std::vector<int64_t> kept, bshape(static_cast<size_t>(x.dim()), 1);
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) kept.push_back(d);
  }
  const bool layer = kept.empty() || kept.back() < dims.front();  // normalized dims last
  // Per-normalized-element parameters (layer norm) or per-channel ones (batch norm).
  auto param_view = [&](const Tensor& p) {
    if (layer) return p;
    std::vector<int64_t> s(static_cast<size_t>(x.dim()), 1);
    s[1] = p.numel();
    return p.reshape(s);
  };
  // Parameter gradients reduce over the dims the parameters do not have.
  const std::vector<int64_t>& param_reduce = layer ? kept : dims;
  auto reduce = [&](const Tensor& t) { return param_reduce.empty() ? t : sum(t, param_reduce); };
  Tensor mu, invstd;
  if (fixed_mean) {
    mu = param_view(fixed_mean->to(x.dtype()));
    invstd = param_view(fixed_invstd->to(x.dtype()));
  } else {
    mu = mean(x, dims, true);
    const Tensor xc = sub(x, mu);
    invstd = rsqrt(add(mean(mul(xc, xc), dims, true), Scalar(eps)));
  }
  const Tensor xhat = mul(sub(x, mu), invstd);
  const Tensor gw = weight ? mul(g, param_view(*weight)) : g;
  const Tensor dx = fixed_mean ? mul(gw, invstd)
                                 : mul(invstd, sub(sub(gw, mean(gw, dims, true)), mul(xhat, mean(mul(gw, xhat), dims, true))));
  return {dx, weight ? reduce(mul(g, xhat)) : Tensor(), reduce(g)};
}

std::vector<int64_t> last_dims(int64_t ndim, int64_t n) {
  std::vector<int64_t> d;
  for (int64_t i = ndim - n; i < ndim; ++i) d.push_back(i);
  return d;
}

int64_t softmax_dim(const BackwardContext& c, const Tensor& like, size_t arg) {
  return like.dim() == 0 ? 0 : wrap_dim(c.int_arg(arg), like.dim());
}

}  // namespace

EMBER_REGISTER(nn_formulas) {
  // softmax(self, dim, dtype): the result is saved; the gradient goes through the fused op.
  define("softmax.int", {}, true, [](const BackwardContext& c, const Grads& g) {
    const Tensor& y = c.result();
    return Grads{_softmax_backward_data(g[0].to(y.dtype()), y, softmax_dim(c, y, 1), y.dtype())};
  });
  define("log_softmax.int", {}, true, [](const BackwardContext& c, const Grads& g) {
    const Tensor& y = c.result();
    return Grads{_log_softmax_backward_data(g[0].to(y.dtype()), y, softmax_dim(c, y, 1), y.dtype())};
  });
  // gi = y * (g - sum(g * y)): d/dg = y * (gg - sum(gg * y)); d/dy = gg * (g - s) - g * sum(gg * y).
  define("_softmax_backward_data", {0, 1}, false, [](const BackwardContext& c, const Grads& gg) {
    const Tensor& g = c.tensor(0);
    const Tensor& y = c.tensor(1);
    const int64_t d = softmax_dim(c, y, 2);
    const Tensor ggc = gg[0].to(y.dtype());
    const Tensor s = sum(mul(g, y), {d}, true);
    const Tensor ggy = sum(mul(ggc, y), {d}, true);
    return Grads{_softmax_backward_data(ggc, y, d, y.dtype()), sub(mul(ggc, sub(g, s)), mul(g, ggy))};
  });
  // gi = g - exp(y) * sum(g): d/dg = gg - sum(gg * exp(y)); d/dy = -gg * exp(y) * sum(g).
  define("_log_softmax_backward_data", {0, 1}, false, [](const BackwardContext& c, const Grads& gg) {
    const Tensor& g = c.tensor(0);
    const Tensor& y = c.tensor(1);
    const int64_t d = softmax_dim(c, y, 2);
    const Tensor ggc = gg[0].to(y.dtype());
    const Tensor e = exp(y);
    return Grads{sub(ggc, sum(mul(ggc, e), {d}, true)), neg(mul(mul(ggc, e), sum(g, {d}, true)))};
  });

  // native_layer_norm(input, normalized_shape, weight?, bias?, eps) -> (y, mean, rstd): slots
  // input, then weight and bias when given.
  define("native_layer_norm", {0, 2, 3}, true, [](const BackwardContext& c, const Grads& g) {
    const bool hw = !c.is_none(2), hb = !c.is_none(3);
    Grads r(1 + hw + hb);
    if (!g[0].defined()) return r;
    const Tensor& x = c.tensor(0);
    const auto shape = c.int_list(1);
    Tensor dx, dw, db;
    if (GradMode::is_enabled()) {
      std::tie(dx, dw, db) = norm_grads(g[0], x, last_dims(x.dim(), static_cast<int64_t>(shape.size())),
                                        optional_arg(c, 2), std::nullopt, std::nullopt, c.scalar(4).to<double>());
    } else {
      std::tie(dx, dw, db) = native_layer_norm_backward(g[0], x, shape, c.result(1), c.result(2), optional_arg(c, 2),
                                                        optional_arg(c, 3));
    }
    r[0] = dx;
    if (hw) r[1] = dw;
    if (hb) r[1 + hw] = db;
    return r;
  });
  // native_batch_norm(input, weight?, bias?, running_mean?, running_var?, training, momentum,
  // eps) -> (y, save_mean, save_invstd). The statistics used come from the results (the
  // running statistics change in place during training, so they are not saved); the
  // running statistics have slots but no gradient.
  define("native_batch_norm", {0, 1}, true, [](const BackwardContext& c, const Grads& g) {
    const bool hw = !c.is_none(1), hb = !c.is_none(2);
    Grads r(1 + hw + hb + !c.is_none(3) + !c.is_none(4));
    if (!g[0].defined()) return r;
    const bool training = c.bool_arg(5);
    const Tensor& x = c.tensor(0);
    Tensor dx, dw, db;
    if (GradMode::is_enabled()) {
      std::vector<int64_t> dims;
      for (int64_t d = 0; d < x.dim(); ++d)
        if (d != 1) dims.push_back(d);
      const std::optional<Tensor> fixed_mean = training ? std::nullopt : std::optional<Tensor>(c.result(1));
      const std::optional<Tensor> fixed_invstd = training ? std::nullopt : std::optional<Tensor>(c.result(2));
      std::tie(dx, dw, db) = norm_grads(g[0], x, dims, optional_arg(c, 1), fixed_mean, fixed_invstd,
                                        c.scalar(7).to<double>());
    } else {
      std::tie(dx, dw, db) = native_batch_norm_backward(g[0], x, optional_arg(c, 1), std::nullopt, std::nullopt,
                                                        c.result(1), c.result(2), training, c.scalar(7).to<double>());
    }
    r[0] = dx;
    if (hw) r[1] = dw;
    if (hb) r[1 + hw] = db;
    return r;
  });
  // embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse): slots weight, indices.
  define("embedding", {1}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{embedding_dense_backward(g[0], c.tensor(1), c.input_sizes(0)[0], c.int_arg(2), c.bool_arg(3)),
                 Tensor()};
  });
}

}  // namespace ember::autograd::nn_formulas
