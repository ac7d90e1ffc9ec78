// Batch rules for statistics of whole samples and the sort-based ops: std / var / std_mean /
// var_mean, median / nanmedian, norm(p), aminmax, count_nonzero and repeat_interleave without
// a dim, quantile / nanquantile, msort, bucketize / searchsorted with batched boundaries, and
// histc / histogram. (Reductions over given dims move their dims by one, batch_rules.cpp.)
#include "ember/ops.h"
#include "functional/batched.h"

namespace ember::func::detail {

namespace {

const OpEntry& op_named(const std::string& name) {
  const OpEntry* op = Dispatcher::get().find(name);
  EMBER_INTERNAL_ASSERT(op, "vmap: no op named ", name);
  return *op;
}

// std(self, unbiased), var, std_mean, var_mean: the .dim overload over each flattened sample.
bool full_stat_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  if (stack.size() != 2 || !batched_at(stack[0].tensor(), level)) return false;
  Stack s{IValue(sample_rows(stack[0].tensor(), level, B)), IValue(std::vector<int64_t>{1}),
          static_cast<const IValue&>(stack[1]), IValue(false)};
  redispatch(op_named(op.schema().name + ".dim"), s);
  stack = std::move(s);
  wrap_results(stack, level);
  return true;
}

// median(self), nanmedian(self): the .dim overload's values over each flattened sample; the
// median of an empty floating sample is NaN.
bool full_median_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  const Tensor self = stack[0].tensor();
  if (!batched_at(self, level) || (self.numel() == 0 && !is_floating_point(self.dtype()))) return false;
  if (self.numel() == 0) {
    stack.clear();
    const TensorOptions opts = TensorOptions(self.dtype()).device(self.device());
    stack.emplace_back(make_batched(ember::full({B}, Scalar(std::numeric_limits<double>::quiet_NaN()), opts), level));
    return true;
  }
  Stack s{IValue(sample_rows(self, level, B)), IValue(int64_t{1}), IValue(false)};
  redispatch(op_named(op.schema().name + ".dim"), s);
  stack.clear();
  stack.emplace_back(make_batched(s[0].tensor(), level));
  return true;
}

// msort(self) = sort(self, dim 0).values; a 0-dim sample is its own result.
bool msort_rule(const OpEntry&, Stack& stack, int64_t level, int64_t) {
  const Tensor self = stack[0].tensor();
  if (stack.size() != 1 || !batched_at(self, level)) return false;
  const Tensor& p = physical_of(self);
  Tensor r = self.dim() == 0 ? ember::clone(p) : std::get<0>(ember::sort(p, 1));
  stack[0] = IValue(make_batched(r, level));
  return true;
}

// quantile / nanquantile(self, q, dim, keepdim, interpolation): the reduced dim moves by one
// (without a dim, each sample is flattened first); a 1-D q puts its dim in front of the
// result, which then moves behind the batch dim. Per-sample q (batched): every sample is
// taken at all B * Q quantiles in one call, and sample b keeps its own Q (the diagonal).
bool quantile_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  Tensor self = stack[0].tensor();
  if (stack[1].is_tensor() && batched_at(stack[1].tensor(), level)) {
    const Tensor q = stack[1].tensor();
    if (q.dim() > 1 || B == 0) return false;  // the op's error, per sample
    const int64_t Q = q.numel();
    if (!batched_at(self, level)) self = make_batched(physical_or_expanded(self, level, B), level);
    Stack s = stack;
    s[0] = IValue(self);
    s[1] = IValue(physical_of(q).reshape({B * Q}));  // unbatched: back here through the rule below
    redispatch(op, s);
    Tensor r = physical_of(s[0].tensor());  // [B, B*Q, ...]
    DimVector sz{B, B, Q};
    for (int64_t d = 2; d < r.dim(); ++d) sz.push_back(r.size(d));
    r = ember::movedim(r.reshape(sz).diagonal(0, 0, 1), -1, 0);  // [B, Q, ...]
    if (q.dim() == 0) r = r.squeeze(1);
    stack.clear();
    stack.emplace_back(make_batched(r, level));
    return true;
  }
  if (!batched_at(self, level)) return false;
  const bool keepdim = stack[3].get<bool>();
  const bool flatten = stack[2].is_none() || self.dim() == 0;
  if (self.dim() == 0 && !stack[2].is_none()) {
    const int64_t d = stack[2].get<int64_t>();
    if ((d != 0 && d != -1) || keepdim) return false;  // the op's own error or shape, per sample
  }
  const bool q_dim = stack[1].is_tensor() && stack[1].tensor().dim() == 1;
  Stack s = stack;
  if (flatten) {
    s[0] = IValue(sample_rows(self, level, B));
    s[2] = IValue(int64_t{1});
    s[3] = IValue(false);
  } else {
    s[0] = IValue(physical_of(self));
    s[2] = IValue(wrap_dim(stack[2].get<int64_t>(), self.dim(), op.schema().name) + 1);
  }
  redispatch(op, s);
  Tensor r = s[0].tensor();
  if (q_dim) r = ember::movedim(r, 1, 0);  // [Q, B, ...] -> [B, Q, ...]
  if (flatten && keepdim) {  // every dim of the sample kept, of size 1
    DimVector sz{B};
    if (q_dim) sz.push_back(r.size(1));
    for (int64_t d = 0; d < self.dim(); ++d) sz.push_back(1);
    r = r.reshape(sz);
  }
  stack.clear();
  stack.emplace_back(make_batched(r, level));
  return true;
}

// searchsorted(sorted_sequence, self, out_int32, right, side, sorter) and bucketize(self,
// boundaries, ...). A 1-D sequence shared by all samples searches the physical values as they
// are; a per-sample 1-D sequence becomes one row of [B, n], searched by that sample's
// flattened values; N-D sequences (leading dims matching the values') take the batch as one
// more leading dim.
Tensor search_physical(const Tensor& seq, const Tensor& values, const std::optional<Tensor>& sorter, bool out_int32,
                       bool right, const IValue& side, int64_t level, int64_t B) {
  const bool seq_b = batched_at(seq, level) || (sorter && batched_at(*sorter, level));
  Stack s{IValue(seq), IValue(values), IValue(out_int32), IValue(right), side,
          sorter ? IValue(*sorter) : IValue()};
  if (seq.dim() == 1 && !seq_b) {
    s[1] = IValue(physical_or_expanded(values, level, B));
  } else if (seq.dim() == 1) {
    s[0] = IValue(physical_or_expanded(seq, level, B));
    s[1] = IValue(sample_rows(values, level, B));
    if (sorter) s[5] = IValue(physical_or_expanded(*sorter, level, B));
  } else {
    s[0] = IValue(physical_or_expanded(seq, level, B));
    s[1] = IValue(physical_or_expanded(values, level, B));
    if (sorter) s[5] = IValue(physical_or_expanded(*sorter, level, B));
  }
  redispatch(op_named("searchsorted.Tensor"), s);
  Tensor r = s[0].tensor();
  if (seq.dim() == 1 && seq_b) {
    DimVector sz{B};
    for (int64_t x : values.sizes()) sz.push_back(x);
    r = r.view(sz);
  }
  return r;
}

// The searched value of a Scalar overload as the 0-dim tensor the op makes of it, in the type
// it is compared in.
Tensor scalar_value(const Scalar& v, const Tensor& seq) {
  const Tensor t = ember::scalar_tensor(v, TensorOptions().device(seq.device()));
  return t.to(ember::result_type(seq, t));
}

bool searchsorted_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  const bool scalar = op.schema().name == "searchsorted" && !stack[1].is_tensor();
  const Tensor seq = stack[0].tensor();
  const Tensor values = scalar ? scalar_value(stack[1].get<Scalar>(), seq) : stack[1].tensor();
  const std::optional<Tensor> sorter =
      stack[5].is_none() || !stack[5].tensor().defined() ? std::nullopt : std::optional<Tensor>(stack[5].tensor());
  if (seq.dim() == 0 || (seq.dim() > 1 && values.dim() != seq.dim())) return false;  // the op's errors, per sample
  if (sorter && !sorter->sizes().equals(seq.sizes())) return false;
  Tensor r = search_physical(seq, values, sorter, stack[2].get<bool>(), stack[3].get<bool>(), stack[4], level, B);
  stack.clear();
  stack.emplace_back(make_batched(r, level));
  return true;
}

// bucketize(self, boundaries, out_int32, right) = searchsorted(boundaries, self, ...), with
// 1-D boundaries (the op's error, per sample, otherwise).
bool bucketize_rule(const OpEntry&, Stack& stack, int64_t level, int64_t B) {
  const Tensor boundaries = stack[1].tensor();
  if (boundaries.dim() != 1) return false;
  const Tensor values = stack[0].is_tensor() ? stack[0].tensor() : scalar_value(stack[0].get<Scalar>(), boundaries);
  if (!stack[0].is_tensor() && !batched_at(boundaries, level)) return false;
  Tensor r = search_physical(boundaries, values, std::nullopt, stack[2].get<bool>(), stack[3].get<bool>(), IValue(),
                             level, B);
  stack.clear();
  stack.emplace_back(make_batched(r, level));
  return true;
}

// Reductions with an optional single dim (aminmax, count_nonzero) and repeat_interleave's
// optional dim: without a dim, or for a 0-dim sample, each sample is one row of [B, numel]
// (reduced or repeated along dim 1); a given dim moves by one.
bool optional_dim_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  const Tensor self = stack[0].tensor();
  const std::string& name = op.schema().name;
  const size_t dim_at = name == "repeat_interleave" ? 2 : 1;
  if (!batched_at(self, level) || stack.size() <= dim_at) return false;
  const bool aminmax = name == "aminmax";
  const bool keepdim = aminmax && stack[2].get<bool>();
  const bool rows = stack[dim_at].is_none() || self.dim() == 0;
  Stack s = stack;
  if (rows) {
    if (!stack[dim_at].is_none()) {
      const int64_t d = stack[dim_at].get<int64_t>();
      if (d != 0 && d != -1) return false;  // the op's error, per sample
    }
    s[0] = IValue(sample_rows(self, level, B));
    s[dim_at] = IValue(int64_t{1});
  } else {
    s[0] = IValue(physical_of(self));
    s[dim_at] = IValue(wrap_dim(stack[dim_at].get<int64_t>(), self.dim(), name) + 1);
  }
  redispatch(op, s);
  // A kept reduced sample has a dim of one per dim of the sample (one for a 0-dim sample).
  if (rows && keepdim) {
    DimVector sz(static_cast<size_t>(std::max<int64_t>(self.dim(), 1) + 1), 1);
    sz[0] = B;
    for (IValue& v : s) v = IValue(v.tensor().reshape(sz));
  }
  stack = std::move(s);
  wrap_results(stack, level);
  return true;
}

// norm(self, p) and norm(self, p, dtype) over the whole sample: norm over dim 1 of [B, numel].
bool full_norm_rule(const OpEntry&, Stack& stack, int64_t level, int64_t B) {
  const Tensor self = stack[0].tensor();
  if (!batched_at(self, level)) return false;
  const bool dtype = stack.size() == 3;
  Stack s{IValue(sample_rows(self, level, B)), static_cast<const IValue&>(stack[1]), IValue(std::vector<int64_t>{1}),
          IValue(false)};
  if (dtype) s.push_back(static_cast<const IValue&>(stack[2]));
  redispatch(op_named(dtype ? "norm.ScalarOpt_dim_dtype" : "norm.ScalarOpt_dim"), s);
  stack = std::move(s);
  wrap_results(stack, level);
  return true;
}

// histc(self, bins, min, max) of float / double samples: every sample's bin of each element,
// (x - lo) * bins / (hi - lo) truncated in the sample's type as the kernel computes it, with
// the sample's own range when min == max, counted by one scatter_add into [B, bins].
bool histc_rule(const OpEntry&, Stack& stack, int64_t level, int64_t B) {
  const Tensor self = stack[0].tensor();
  const int64_t bins = stack[1].get<int64_t>();
  const double min = stack[2].get<Scalar>().to<double>(), max = stack[3].get<Scalar>().to<double>();
  if (!batched_at(self, level) || bins <= 0 || (self.dtype() != kFloat && self.dtype() != kDouble)) return false;
  const Tensor x = sample_rows(self, level, B);
  if (has_batch(x)) return false;  // the ranges of an outer level's samples cannot be read here
  const TensorOptions opts = TensorOptions(kDouble).device(x.device());
  Tensor lo = ember::full({B, 1}, Scalar(min), opts), hi = ember::full({B, 1}, Scalar(max), opts);
  if (min == max && self.numel() > 0) {
    auto [mn, mx] = ember::aminmax(x, 1, true);
    lo = mn.to(kDouble);
    hi = mx.to(kDouble);
  }
  const Tensor same = lo.eq(hi);
  lo = ember::sub(lo, same.to(kDouble));
  hi = ember::add(hi, same.to(kDouble));
  // Non-finite or empty ranges: the op's errors, per sample.
  if (!ember::all(ember::isfinite(lo)).item().to<bool>() || !ember::all(ember::isfinite(hi)).item().to<bool>() ||
      !ember::all(lo.lt(hi)).item().to<bool>())
    return false;
  const Tensor left = lo.to(self.dtype()), right = hi.to(self.dtype());
  const Tensor inside = ember::logical_and(x.ge(left), x.le(right));
  Tensor pos = ember::div(ember::mul(ember::sub(x, left), Scalar(bins)), ember::sub(right, left)).to(kInt64);
  pos = ember::where(inside, ember::clamp_max(pos, Scalar(bins - 1)), ember::zeros_like(pos));
  const Tensor counts = ember::scatter_add(ember::zeros({B, bins}, TensorOptions(self.dtype()).device(x.device())), 1,
                                           pos, inside.to(self.dtype()));
  stack.clear();
  stack.emplace_back(make_batched(counts, level));
  return true;
}

// histogram(self, bins, range | edges, weight, density) -> (hist, bin_edges) of float / double
// samples: each sample's edges as one row of [B, bins + 1] (its own data range, a given range,
// or the edges tensor), every element's bin found by one searchsorted over the rows (the
// kernel's upper bound), and the counts (or weights) summed by one scatter_add.
bool histogram_rule(const OpEntry&, Stack& stack, int64_t level, int64_t B) {
  const Tensor self = stack[0].tensor();
  const bool given_edges = stack[1].is_tensor();
  const size_t w_at = given_edges ? 2 : 3;
  std::optional<Tensor> weight;
  if (!stack[w_at].is_none() && stack[w_at].tensor().defined()) weight = stack[w_at].tensor();
  const bool density = stack[w_at + 1].get<bool>();
  if (self.dtype() != kFloat && self.dtype() != kDouble) return false;
  if (weight && (!weight->sizes().equals(self.sizes()) || weight->dtype() != self.dtype())) return false;
  const Tensor x = sample_rows(self, level, B);
  if (has_batch(x)) return false;  // an outer level's ranges cannot be read here
  const TensorOptions opts = TensorOptions(self.dtype()).device(x.device());
  Tensor edges;
  if (given_edges) {
    const Tensor e = stack[1].tensor();
    if (e.dim() != 1 || e.numel() == 0 || e.dtype() != self.dtype()) return false;  // the op's errors, per sample
    edges = physical_or_expanded(e, level, B);
  } else {
    const int64_t bins = stack[1].get<int64_t>();
    if (bins <= 0) return false;
    std::vector<Tensor> rows;
    auto row = [&](double lo, double hi) {
      if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi) return false;
      if (lo == hi) {  // an empty range widens, as the op does
        lo -= 0.5;
        hi += 0.5;
      }
      rows.push_back(ember::linspace(lo, hi, bins + 1, opts));
      return true;
    };
    if (!stack[2].is_none()) {
      const std::vector<double> r = stack[2].get<std::vector<double>>();
      if (r.size() != 2 || !row(r[0], r[1])) return false;
      edges = rows[0].unsqueeze(0).expand({B, bins + 1});
    } else if (self.numel() == 0) {
      if (!row(0.0, 1.0)) return false;
      edges = rows[0].unsqueeze(0).expand({B, bins + 1});
    } else {
      auto [mn, mx] = ember::aminmax(x, 1);
      const Tensor lo = mn.to(kDouble).contiguous(), hi = mx.to(kDouble).contiguous();
      for (int64_t b = 0; b < B; ++b)
        if (!row(lo.data_ptr<double>()[b], hi.data_ptr<double>()[b])) return false;
      edges = B > 0 ? ember::stack(rows, 0) : ember::empty({0, bins + 1}, opts);
    }
  }
  const int64_t bins = edges.size(1) - 1;
  const Tensor left = edges.narrow(1, 0, 1), right = edges.narrow(1, bins, 1);
  const Tensor inside = ember::logical_and(x.ge(left), x.le(right));
  Tensor pos = ember::sub(ember::searchsorted(edges.contiguous(), x.contiguous(), false, true), Scalar(1));
  pos = ember::clamp(pos, Scalar(0), Scalar(std::max<int64_t>(bins - 1, 0)));
  pos = ember::where(inside, pos, ember::zeros_like(pos));
  Tensor add = inside.to(self.dtype());
  if (weight) add = ember::mul(add, sample_rows(*weight, level, B));
  Tensor hist = bins == 0 ? ember::zeros({B, 0}, opts) : ember::scatter_add(ember::zeros({B, bins}, opts), 1, pos, add);
  if (density) {
    const Tensor widths = ember::sub(edges.narrow(1, 1, bins), edges.narrow(1, 0, bins));
    hist = ember::div(ember::div(hist, ember::sum(hist, {1}, true)), widths);
  }
  stack.clear();
  stack.emplace_back(make_batched(hist, level));
  stack.emplace_back(make_batched(ember::clone(edges), level));
  return true;
}

}  // namespace

void register_stats_batch_rules() {
  for (const char* n : {"std", "var", "std_mean", "var_mean"}) set_rule(n, &full_stat_rule);
  for (const char* n : {"median", "nanmedian"}) set_rule(n, &full_median_rule);
  set_rule("msort", &msort_rule);
  for (const char* n : {"quantile", "quantile.scalar", "nanquantile", "nanquantile.scalar"})
    set_rule(n, &quantile_rule);
  for (const char* n : {"searchsorted.Tensor", "searchsorted.Scalar"}) set_rule(n, &searchsorted_rule);
  for (const char* n : {"bucketize.Tensor", "bucketize.Scalar"}) set_rule(n, &bucketize_rule);
  for (const char* n : {"aminmax", "count_nonzero", "repeat_interleave.self_int"}) set_rule(n, &optional_dim_rule);
  for (const char* n : {"norm.Scalar", "norm.ScalarOpt_dtype"}) set_rule(n, &full_norm_rule);
  set_rule("histc", &histc_rule);
  for (const char* n : {"histogram.bins_tensor", "histogram.bin_ct"}) set_rule(n, &histogram_rule);
}

}  // namespace ember::func::detail
