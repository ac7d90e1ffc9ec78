// JVP rules of the reductions and normalizing ops: sums and means (linear), logsumexp,
// softmax and log_softmax, var and std. Extremes, products and norms derive their JVP from
// the backward formula (which already settles ties as the gradient does).
#include <algorithm>
#include <optional>

#include "ember/dispatch.h"
#include "ember/forward_ad.h"
#include "ember/ops.h"
#include "ember/ops/nn.h"
#include "ember/ops/reduce.h"

namespace ember::autograd::forward_ad::reduce_rules {
namespace {

using Ts = std::vector<Tensor>;

std::vector<int64_t> all_dims(int64_t n) {
  std::vector<int64_t> d(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) d[static_cast<size_t>(i)] = i;
  return d;
}

// The JVP of var over dims: 2 Re sum(conj(x - mean) t) / (N - correction).
Tensor var_jvp(const Tensor& x, const Tensor& t, std::optional<std::vector<int64_t>> dims, int64_t correction,
               bool keepdim) {
  std::vector<int64_t> d = dims && !dims->empty() ? *dims : all_dims(x.dim());
  int64_t n = 1;
  for (int64_t k : d) n *= x.dim() == 0 ? 1 : x.sizes()[static_cast<size_t>(k < 0 ? k + x.dim() : k)];
  if (x.dim() == 0) d.clear();
  const Tensor centered = x - mean(x, d, /*keepdim=*/true);
  Tensor prod = mul(centered.is_complex() ? conj(centered) : centered, t);
  if (prod.is_complex()) prod = prod.real();
  Tensor s = d.empty() ? prod : sum(prod, d, keepdim);
  return mul(s, 2.0 / static_cast<double>(n - correction));
}

std::optional<std::vector<int64_t>> opt_dims(const JvpContext& c, size_t arg) {
  if (c.is_none(arg)) return std::nullopt;
  return c.int_list(arg);
}

EMBER_REGISTER(jvp_reduce) {
  register_jvp("sum", [](const JvpContext& c) { return Ts{sum(c.tangent(0), c.dtype_arg(1))}; });
  register_jvp("sum.dim_IntList", [](const JvpContext& c) {
    return Ts{sum(c.tangent(0), c.int_list(1), c.bool_arg(2), c.dtype_arg(3))};
  });
  register_jvp("mean", [](const JvpContext& c) { return Ts{mean(c.tangent(0), c.dtype_arg(1))}; });
  register_jvp("mean.dim", [](const JvpContext& c) {
    return Ts{mean(c.tangent(0), c.int_list(1), c.bool_arg(2), c.dtype_arg(3))};
  });
  register_jvp("logsumexp", [](const JvpContext& c) {
    const bool keepdim = c.bool_arg(2);
    const Tensor& x = c.tensor(0);
    std::vector<int64_t> dims = c.int_list(1);
    for (int64_t& d : dims) d = d < 0 && x.dim() > 0 ? d + x.dim() : d;
    std::sort(dims.begin(), dims.end());  // unsqueezed in increasing order
    Tensor y = c.result();
    if (!keepdim && x.dim() > 0)
      for (int64_t d : dims.empty() ? all_dims(x.dim()) : dims) y = y.unsqueeze(d);
    // softmax-weighted tangent; a -inf result (all inputs -inf) gets weight 0
    const Tensor w = where(isinf(y), zeros_like(x), exp(x - y));
    return Ts{sum(mul(w, c.tangent(0)), dims.empty() ? all_dims(x.dim()) : dims, keepdim)};
  });
  register_jvp("softmax.int", [](const JvpContext& c) {
    const Tensor& y = c.result();
    const int64_t dim = c.int_arg(1);
    Tensor t = c.tangent(0).to(y.dtype());
    return Ts{mul(y, t - sum(mul(y, t), {dim}, /*keepdim=*/true))};
  });
  register_jvp("log_softmax.int", [](const JvpContext& c) {
    const Tensor& y = c.result();
    const int64_t dim = c.int_arg(1);
    Tensor t = c.tangent(0).to(y.dtype());
    return Ts{t - sum(mul(exp(y), t), {dim}, /*keepdim=*/true)};
  });
  // var / std: (self, unbiased), .dim (self, dim, unbiased, keepdim), .correction (self, dim, *, correction, keepdim)
  auto var_args = [](const JvpContext& c, const std::string& overload) {
    struct A { std::optional<std::vector<int64_t>> dims; int64_t correction; bool keepdim; };
    if (overload.empty()) return A{std::nullopt, c.bool_arg(1) ? 1 : 0, false};
    if (overload == "dim") return A{opt_dims(c, 1), c.bool_arg(2) ? 1 : 0, c.bool_arg(3)};
    return A{opt_dims(c, 1), c.is_none(2) ? 1 : c.int_arg(2), c.bool_arg(3)};
  };
  for (std::string overload : {"", "dim", "correction"}) {
    const std::string suffix = overload.empty() ? "" : "." + overload;
    register_jvp("var" + suffix, [=](const JvpContext& c) {
      auto a = var_args(c, overload);
      return Ts{var_jvp(c.tensor(0), c.tangent(0), a.dims, a.correction, a.keepdim)};
    });
    register_jvp("std" + suffix, [=](const JvpContext& c) {
      auto a = var_args(c, overload);
      const Tensor& s = c.result();
      return Ts{div(var_jvp(c.tensor(0), c.tangent(0), a.dims, a.correction, a.keepdim), s * 2)};
    });
  }
}

}  // namespace
}  // namespace ember::autograd::forward_ad::reduce_rules
