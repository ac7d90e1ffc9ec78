// Derivative formulas of the reductions and scans beyond sum and mean (formulas.cpp): prod,
// the extrema (ties share the gradient evenly, as in PyTorch), the value-selecting
// reductions with indices, var/std, norm, logsumexp, nansum and the cumulative ops.
#include <algorithm>
#include <cmath>
#include <limits>

#include "autograd/formula_util.h"
#include "ember/dispatch.h"
#include "ember/ops.h"

// A named namespace: library sources are compiled in unity batches.
namespace ember::autograd::reduce_formulas {
namespace {

using namespace formula;

int64_t wrap(int64_t d, int64_t n) { return d < 0 ? d + n : d; }

// The reduced dims, wrapped and sorted; an empty list (or None) means all of them.
std::vector<int64_t> reduced_dims(IntArrayRef sizes, std::vector<int64_t> dims) {
  const int64_t n = static_cast<int64_t>(sizes.size());
  if (dims.empty())
    for (int64_t d = 0; d < n; ++d) dims.push_back(d);
  for (int64_t& d : dims) d = wrap(d, n);
  std::sort(dims.begin(), dims.end());
  return dims;
}
std::vector<int64_t> opt_dims(const BackwardContext& c, size_t arg) {
  return c.is_none(arg) ? std::vector<int64_t>() : c.int_list(arg);
}
// The input as the op computed with it: cast to its dtype= argument (a complex input cast to
// a real dtype loses its imaginary part, so it gets a real gradient).
Tensor computed_input(const BackwardContext& c, size_t dtype_arg) {
  const Tensor& x = c.tensor(0);
  const auto dt = c.dtype_arg(dtype_arg);
  return dt && *dt != x.dtype() ? x.to(*dt) : x;
}
// A reduced tensor (g, or a saved result) spread back over the input's shape.
Tensor expand_back(const Tensor& t, IntArrayRef sizes, const std::vector<int64_t>& dims, bool keepdim) {
  if (sizes.empty()) return t.reshape(sizes);  // a 0-dim input: dim 0 or -1 reduces nothing
  Tensor r = t;
  if (!keepdim)
    for (int64_t d : dims) r = r.unsqueeze(d);
  return r.expand(sizes);
}
int64_t count(IntArrayRef sizes, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  if (sizes.empty()) return n;  // a 0-dim input: dim 0 or -1 counts its one element
  for (int64_t d : dims) n *= sizes[d];
  return n;
}
Tensor sum_keep(const Tensor& t, const std::vector<int64_t>& dims) {
  return dims.empty() ? t : sum(t, dims, /*keepdim=*/true);
}

// The gradient of a reduction that picks the elements equal to its result: split evenly
// among them (NaN results pick the NaNs).
Tensor evenly_distribute(const Tensor& g, const Tensor& x, const Tensor& y, const std::vector<int64_t>& dims,
                         bool keepdim) {
  const Tensor ye = expand_back(y, x.sizes(), dims, keepdim);
  const Tensor mask = logical_or(eq(x, ye), logical_and(isnan(x), isnan(ye)));
  const Tensor n = sum_keep(mask.to(g.dtype()), dims);
  return where(mask, expand_back(g, x.sizes(), dims, keepdim) / n, zeros_like(x, g.dtype()));
}

// The gradient of a reduction along dim that returns the indices of the elements it picked.
Tensor value_selecting(const Tensor& g, int64_t dim, const Tensor& indices, IntArrayRef sizes, bool keepdim) {
  if (sizes.empty()) return g.reshape(sizes);
  dim = wrap(dim, static_cast<int64_t>(sizes.size()));
  Tensor gg = keepdim ? g : g.unsqueeze(dim);
  Tensor ii = keepdim ? indices : indices.unsqueeze(dim);
  return scatter(zeros(sizes, g.dtype()), dim, ii, gg);
}
// Reductions returning (values, indices): arguments dim and keepdim at these positions.
void define_selecting(const char* op, size_t dim_arg, size_t keepdim_arg) {
  define(op, {}, true, [dim_arg, keepdim_arg](const BackwardContext& c, const Grads& g) {
    return Grads{value_selecting(g[0], c.int_arg(dim_arg), c.result(1), c.input_sizes(0), c.bool_arg(keepdim_arg))};
  });
}

// ---------------------------------------------------------------- prod
// The product of the other elements along dim, exact when x has zeros: exclusive
// cumulative products from both ends.
Tensor prod_others(const Tensor& x, int64_t dim) {
  const int64_t n = x.size(dim);
  const Tensor one = ones_like(x.narrow(dim, 0, 1));
  auto exclusive = [&](const Tensor& t) { return cat({one, cumprod(t, dim).narrow(dim, 0, n - 1)}, dim); };
  return exclusive(x) * flip(exclusive(flip(x, {dim})), {dim});
}
bool has_zero(const Tensor& x) { return any(eq(x, 0)).item().to_int() != 0; }
Tensor prod_grad(const Tensor& g_e, const Tensor& x, const Tensor& y_e, int64_t dim) {
  if (x.numel() == 0) return zeros_like(x, g_e.dtype());
  if (!has_zero(x)) return g_e * cj(y_e / x);
  return g_e * cj(prod_others(x, dim));
}

// ---------------------------------------------------------------- var and std
struct VarArgs {
  std::vector<int64_t> dims;
  int64_t correction;
  bool keepdim;
};
// var(self, unbiased), var.dim(self, dim, unbiased, keepdim), var.correction(self, dim, *,
// correction, keepdim); the same for std, var_mean and std_mean.
VarArgs var_args(const BackwardContext& c, int overload) {
  IntArrayRef sizes = c.input_sizes(0);
  if (overload == 0) return {reduced_dims(sizes, {}), c.bool_arg(1) ? 1 : 0, false};
  const auto dims = reduced_dims(sizes, opt_dims(c, 1));
  if (overload == 1) return {dims, c.bool_arg(2) ? 1 : 0, c.bool_arg(3)};
  return {dims, c.is_none(2) ? 1 : c.int_arg(2), c.bool_arg(3)};
}
Tensor var_grad(const Tensor& g, const Tensor& x, const VarArgs& a) {
  const int64_t n = count(x.sizes(), a.dims);
  const double denom = static_cast<double>(std::max<int64_t>(0, n - a.correction));
  // A 0-dim input: PyTorch leaves out the (zero) centered factor, so the gradient is g 2 / denom
  // (inf for the default correction), not NaN.
  if (x.dim() == 0) return g * (2.0 / denom);
  const Tensor centered = a.dims.empty() ? x - x : x - mean(x, a.dims, /*keepdim=*/true);
  return expand_back(g, x.sizes(), a.dims, a.keepdim) * centered * (2.0 / denom);
}
// d std = d var / (2 std); zero where std is zero.
Tensor std_grad(const Tensor& g, const Tensor& x, const Tensor& s, const VarArgs& a) {
  const Tensor gv = where(eq(s, 0), zeros_like(g), g / (s * 2));
  return var_grad(gv, x, a);
}
Tensor mean_grad(const Tensor& g, IntArrayRef sizes, const VarArgs& a) {
  return expand_back(g, sizes, a.dims, a.keepdim) / static_cast<double>(count(sizes, a.dims));
}

// ---------------------------------------------------------------- norm
Tensor norm_grad(const Tensor& g, const Tensor& x, const Tensor& norm, double p, const std::vector<int64_t>& dims,
                 bool keepdim) {
  const Tensor ge = expand_back(g, x.sizes(), dims, keepdim);
  const Tensor ne = expand_back(norm, x.sizes(), dims, keepdim);
  const Tensor z = zeros_like(x, ge.is_complex() || x.is_complex() ? x.dtype() : ge.dtype());
  if (p == 0.0) return z;
  if (p == 1.0) return ge * sgn(x);
  if (p == 2.0) return where(eq(ne, 0), z, ge * x / ne);
  if (std::isinf(p)) {
    const Tensor mask = eq(abs(x), ne);
    const Tensor n = sum_keep(mask.to(ge.dtype()), dims);
    return where(mask, sgn(x) * ge / n, z);
  }
  Tensor scaled = pow(abs(x), p - 1);
  if (p < 1.0) scaled = where(eq(x, 0), zeros_like(scaled), scaled);
  const Tensor scale = where(eq(ne, 0), zeros_like(ge), ge / pow(ne, p - 1));
  return sgn(x) * scaled * scale;
}
double norm_p(const BackwardContext& c, size_t arg) { return c.is_none(arg) ? 2.0 : c.scalar(arg).to<double>(); }

// ---------------------------------------------------------------- scans
// Along the last dim after moving dim there; the pair (i, j) with j < i masked.
Tensor below_diagonal(int64_t n) {
  const Tensor r = arange(n, kInt64);
  return gt(r.unsqueeze(-1), r.unsqueeze(0));
}
Tensor cumsum_grad(const Tensor& g, int64_t dim) { return flip(cumsum(flip(g, {dim}), dim), {dim}); }
// d y_j / d x_i = prod_{k <= j, k != i} x_k for j >= i; built as an (i, j) matrix when x has
// zeros, else sum_{j >= i} g_j y_j / x_i.
Tensor cumprod_grad(const Tensor& g, const Tensor& x, const Tensor& y, int64_t dim) {
  if (x.numel() == 0) return zeros_like(g);
  if (!has_zero(x)) return cumsum_grad(g * cj(y), dim) / cj(x);
  const int64_t n = x.size(dim);
  const Tensor xm = movedim(x, dim, -1);
  DimVector sq(xm.sizes());
  sq.push_back(n);
  const Tensor lower = below_diagonal(n);
  // others[i, k] = x_k, with 1 at k == i.
  const Tensor others = where(eye(n, std::nullopt, kBool), 1.0, xm.unsqueeze(-2).expand(sq));
  const Tensor p = masked_fill(cumprod(others, -1), lower, 0);
  const Tensor gm = movedim(g, dim, -1).unsqueeze(-1);
  return movedim(matmul(cj(p), gm).squeeze(-1), -1, dim);
}
// d y_j / d x_i = exp(x_i - y_j) for j >= i, which is at most 1: formed directly.
Tensor logcumsumexp_grad(const Tensor& g, const Tensor& x, const Tensor& y, int64_t dim) {
  if (x.numel() == 0) return zeros_like(g);
  const int64_t n = x.size(dim);
  const Tensor xm = movedim(x, dim, -1), ym = movedim(y, dim, -1);
  const Tensor d = masked_fill(xm.unsqueeze(-1) - ym.unsqueeze(-2), below_diagonal(n),
                               -std::numeric_limits<double>::infinity());
  const Tensor gm = movedim(g, dim, -1).unsqueeze(-1);
  return movedim(matmul(exp(d), gm).squeeze(-1), -1, dim);
}

// ---------------------------------------------------------------- quantile
// quantile(self, q, dim, keepdim, *, interpolation) picks, per row and q, sorted elements lo
// and hi around rank q (m - 1) and mixes them; m counts the non-NaN elements for
// nanquantile. The gradient goes to those two elements; for q (linear only) it is
// (sorted[hi] - sorted[lo]) (m - 1). Returns {self's gradient, q's gradient}.
Grads quantile_grad(const BackwardContext& c, const Tensor& g, const Tensor& q, bool ignore_nan) {
  const Tensor& x = c.tensor(0);
  const std::string interp = c.string_arg(4).value_or("linear");
  if (x.dim() == 0) return Grads{sum(g).reshape({}), q.defined() ? zeros_like(q) : Tensor()};
  const bool has_dim = !c.is_none(2);
  const int64_t d = has_dim ? wrap(c.int_arg(2), x.dim()) : 0;
  const Tensor xr = has_dim ? movedim(x, d, -1) : x.reshape({-1});
  // g as [rows..., nq], the rows laid out like xr's.
  const bool vector_q = q.defined() && q.dim() == 1;
  Tensor gq = vector_q ? g : g.unsqueeze(0);
  if (has_dim && c.bool_arg(3)) gq = gq.squeeze(d + 1);
  if (!has_dim) gq = gq.reshape({gq.size(0)});
  gq = movedim(gq, 0, -1);
  const Tensor qv = q.defined() ? q.reshape({-1}).to(x.dtype()) : full({1}, c.scalar(1), x.dtype());
  const int64_t n = xr.size(-1);
  const Tensor m = ignore_nan ? sum(logical_not(isnan(xr)).to(x.dtype()), {-1}, true) : full({1}, Scalar(n), x.dtype());
  Tensor rank = qv * (m - 1);
  // Ranks PyTorch overwrites (masked_fill) pass q no gradient: a negative one (an all-NaN row
  // of nanquantile) becomes 0; in a row with NaN, quantile takes the last sorted element (a
  // NaN), which takes self's gradient.
  Tensor fixed_rank;
  if (ignore_nan) {
    fixed_rank = lt(rank, 0);
    rank = clamp_min(rank, 0);
  } else {
    fixed_rank = gt(sum(isnan(xr).to(x.dtype()), {-1}, true), 0);
    rank = where(fixed_rank, full_like(rank, Scalar(n - 1)), rank);
  }
  Tensor lo = floor(rank), hi = ceil(rank), w_hi = rank - lo;
  if (interp == "lower") w_hi = zeros_like(w_hi);
  else if (interp == "higher") w_hi = ones_like(w_hi);
  else if (interp == "midpoint") w_hi = where(eq(lo, hi), zeros_like(w_hi), full_like(w_hi, 0.5));
  else if (interp == "nearest") {
    lo = hi = round(rank);  // half to even, as the kernel rounds
    w_hi = zeros_like(w_hi);
  }
  const DimVector shape(gq.sizes());
  const Tensor lo_i = lo.to(kInt64).expand(shape), hi_i = hi.to(kInt64).expand(shape);
  const auto [sorted, order] = sort(xr, -1);
  Tensor gs = scatter_add(zeros_like(xr, g.dtype()), -1, lo_i, gq * (1 - w_hi));
  gs = scatter_add(gs, -1, hi_i, gq * w_hi);
  Tensor gx = scatter(zeros_like(xr, g.dtype()), -1, order, gs);
  gx = has_dim ? movedim(gx, -1, d) : gx.reshape(x.sizes());
  Tensor gqv;
  if (q.defined() && c.needs_grad(1)) {
    if (interp != "linear") {
      gqv = zeros_like(q);
    } else {
      const Tensor spread = (gather(sorted, -1, hi_i) - gather(sorted, -1, lo_i)) * (m - 1);
      Tensor t = where(fixed_rank, zeros_like(spread), gq * spread);
      std::vector<int64_t> rows;
      for (int64_t k = 0; k + 1 < t.dim(); ++k) rows.push_back(k);
      gqv = (rows.empty() ? t : sum(t, rows)).reshape(q.sizes());
    }
  }
  return Grads{gx, gqv};
}

EMBER_REGISTER(autograd_formulas_reduce) {
  // ---- prod
  define("prod", {0}, true, [](const BackwardContext& c, const Grads& g) {
    const Tensor x = computed_input(c, 1);
    const Tensor flat = x.reshape({x.numel()});
    const Tensor ge = g[0].reshape({1}).expand({x.numel()});
    return Grads{prod_grad(ge, flat, c.result().reshape({1}), 0).reshape(x.sizes())};
  });
  define("prod.dim_int", {0}, true, [](const BackwardContext& c, const Grads& g) {
    const Tensor x = computed_input(c, 3);
    if (x.dim() == 0) return Grads{g[0]};
    const std::vector<int64_t> dims{wrap(c.int_arg(1), x.dim())};
    const bool keepdim = c.bool_arg(2);
    return Grads{prod_grad(expand_back(g[0], x.sizes(), dims, keepdim), x,
                           expand_back(c.result(), x.sizes(), dims, keepdim), dims[0])};
  });

  // ---- extrema
  for (const char* n : {"max", "min", "median", "nanmedian"}) {
    define(n, {0}, true, [](const BackwardContext& c, const Grads& g) {
      const Tensor& x = c.tensor(0);
      return Grads{evenly_distribute(g[0], x, c.result(), reduced_dims(x.sizes(), {}), false)};
    });
  }
  // amax/amin split among the elements equal to the result; as in PyTorch, a NaN result
  // matches none of them, and its row's gradient becomes NaN (0 * g / 0).
  for (const char* n : {"amax", "amin"}) {
    define(n, {0}, true, [](const BackwardContext& c, const Grads& g) {
      const Tensor& x = c.tensor(0);
      const auto dims = reduced_dims(x.sizes(), c.int_list(1));
      const bool keepdim = c.bool_arg(2);
      const Tensor mask = eq(x, expand_back(c.result(), x.sizes(), dims, keepdim)).to(g[0].dtype());
      return Grads{mask * (expand_back(g[0], x.sizes(), dims, keepdim) / sum_keep(mask, dims))};
    });
  }
  // aminmax has no derivative, as in PyTorch 1.13 (backward raises).
  for (const char* n : {"max.dim", "min.dim", "median.dim", "nanmedian.dim", "mode"}) define_selecting(n, 1, 2);
  define_selecting("kthvalue", 2, 3);
  for (const char* n : {"cummax", "cummin"}) {
    define(n, {}, true, [](const BackwardContext& c, const Grads& g) {
      IntArrayRef sizes = c.input_sizes(0);
      if (sizes.empty()) return Grads{g[0]};
      const int64_t dim = wrap(c.int_arg(1), static_cast<int64_t>(sizes.size()));
      return Grads{scatter_add(zeros(sizes, g[0].dtype()), dim, c.result(1), g[0])};
    });
  }

  // ---- var and std
  for (int ov = 0; ov < 3; ++ov) {
    static const char* const kVar[] = {"var", "var.dim", "var.correction"};
    static const char* const kStd[] = {"std", "std.dim", "std.correction"};
    static const char* const kVarMean[] = {"var_mean", "var_mean.dim", "var_mean.correction"};
    static const char* const kStdMean[] = {"std_mean", "std_mean.dim", "std_mean.correction"};
    define(kVar[ov], {0}, false, [ov](const BackwardContext& c, const Grads& g) {
      return Grads{var_grad(g[0], c.tensor(0), var_args(c, ov))};
    });
    define(kStd[ov], {0}, true, [ov](const BackwardContext& c, const Grads& g) {
      return Grads{std_grad(g[0], c.tensor(0), c.result(), var_args(c, ov))};
    });
    define(kVarMean[ov], {0}, false, [ov](const BackwardContext& c, const Grads& g) {
      const VarArgs a = var_args(c, ov);
      return Grads{var_grad(g[0], c.tensor(0), a) + mean_grad(g[1], c.input_sizes(0), a)};
    });
    define(kStdMean[ov], {0}, true, [ov](const BackwardContext& c, const Grads& g) {
      const VarArgs a = var_args(c, ov);
      return Grads{std_grad(g[0], c.tensor(0), c.result(0), a) + mean_grad(g[1], c.input_sizes(0), a)};
    });
  }

  // ---- norm, logsumexp, nansum
  define("norm.Scalar", {0}, true, [](const BackwardContext& c, const Grads& g) {
    const Tensor& x = c.tensor(0);
    return Grads{norm_grad(g[0], x, c.result(), norm_p(c, 1), reduced_dims(x.sizes(), {}), false)};
  });
  define("norm.ScalarOpt_dtype", {0}, true, [](const BackwardContext& c, const Grads& g) {
    const Tensor x = computed_input(c, 2);
    return Grads{norm_grad(g[0], x, c.result(), norm_p(c, 1), reduced_dims(x.sizes(), {}), false)};
  });
  // The out= forms too: PyTorch differentiates them (its norm and quantile are composites).
  for (const bool has_dtype : {false, true}) {
    for (const char* n : {has_dtype ? "norm.ScalarOpt_dim_dtype" : "norm.ScalarOpt_dim",
                          has_dtype ? "norm.dtype_out" : "norm.out"}) {
      define(n, {0}, true, [has_dtype](const BackwardContext& c, const Grads& g) {
        const Tensor x = has_dtype ? computed_input(c, 4) : c.tensor(0);
        return Grads{norm_grad(g[0], x, c.result(), norm_p(c, 1), reduced_dims(x.sizes(), c.int_list(2)), c.bool_arg(3))};
      });
    }
  }
  define("logsumexp", {0}, true, [](const BackwardContext& c, const Grads& g) {
    const Tensor& x = c.tensor(0);
    const auto dims = reduced_dims(x.sizes(), c.int_list(1));
    const bool keepdim = c.bool_arg(2);
    return Grads{expand_back(g[0], x.sizes(), dims, keepdim) * exp(x - expand_back(c.result(), x.sizes(), dims, keepdim))};
  });
  define("nansum", {0}, false, [](const BackwardContext& c, const Grads& g) {
    const Tensor& x = c.tensor(0);
    const auto dims = reduced_dims(x.sizes(), opt_dims(c, 1));
    const Tensor ge = expand_back(g[0], x.sizes(), dims, c.bool_arg(2));
    return Grads{where(isnan(x), zeros_like(ge), ge)};
  });

  // ---- counts: not differentiable (results do not require grad), as in PyTorch
  register_derivative("histc", Derivative{});

  // ---- quantiles
  for (const bool nan : {false, true}) {
    const std::string base = nan ? "nanquantile" : "quantile";
    for (const std::string& n : {base, base + ".out"})
      define(n, {0, 1}, false, [nan](const BackwardContext& c, const Grads& g) {
        return quantile_grad(c, g[0], c.tensor(1), nan);
      });
    for (const std::string& n : {base + ".scalar", base + ".scalar_out"})
      define(n, {0}, false, [nan](const BackwardContext& c, const Grads& g) {
        return Grads{quantile_grad(c, g[0], Tensor(), nan)[0]};
      });
  }

  // ---- scans
  define("cumsum", {}, false, [](const BackwardContext& c, const Grads& g) {
    IntArrayRef sizes = c.input_sizes(0);
    if (sizes.empty()) return Grads{g[0]};
    return Grads{cumsum_grad(g[0], wrap(c.int_arg(1), static_cast<int64_t>(sizes.size())))};
  });
  define("cumprod", {0}, true, [](const BackwardContext& c, const Grads& g) {
    const Tensor& x = c.tensor(0);
    if (x.dim() == 0) return Grads{g[0]};
    return Grads{cumprod_grad(g[0], x, c.result(), wrap(c.int_arg(1), x.dim()))};
  });
  define("logcumsumexp", {0}, true, [](const BackwardContext& c, const Grads& g) {
    const Tensor& x = c.tensor(0);
    if (x.dim() == 0) return Grads{g[0]};
    return Grads{logcumsumexp_grad(g[0], x, c.result(), wrap(c.int_arg(1), x.dim()))};
  });
}

}  // namespace
}  // namespace ember::autograd::reduce_formulas
