// Batch rules of the Vmap layer for the op library; vmap.cpp holds the generic ones (pointwise,
// pass-through) and the loop fallback that serves every op without a rule.
//
// A rule sees the stack of the op's arguments; tensors batched at `level` are logical views whose
// physical tensor (batch dim 0) it substitutes. Rules return false for the cases they do not
// handle (the loop fallback then runs the op per sample, which also raises the op's own errors).
#include <algorithm>

#include "ember/ops.h"
#include "ember/ops/loss.h"
#include "ember/ops/nn.h"
#include "ember/ops/nn_conv.h"
#include "ember/ops/products.h"
#include "functional/batched.h"

namespace ember::func::detail {

namespace {

bool any_batched(Stack& stack, int64_t level, bool skip_first) {
  bool found = false, first = true;
  for_each_tensor(stack, [&](Tensor& t) {
    if (!t.defined()) return;
    if (!(skip_first && first) && batched_at(t, level)) found = true;
    first = false;
  });
  return found;
}

// The first tensor argument (a tensor list's first element), or an undefined tensor.
Tensor first_tensor(Stack& stack) {
  for (IValue& v : stack) {
    if (v.is_tensor()) return v.tensor();
    if (v.is_tensor_list()) return v.tensor_list().empty() ? Tensor() : v.tensor_list()[0];
  }
  return Tensor();
}

std::vector<int64_t> all_dims_after_batch(int64_t rank) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i <= rank; ++i) d.push_back(i);
  return d;
}

bool is_dim_arg(const Argument& a) {
  if (a.type.rfind("int", 0) != 0) return false;
  static const char* names[] = {"dim", "dims", "dim0", "dim1", "source", "destination", "start_dim", "end_dim"};
  return std::any_of(std::begin(names), std::end(names), [&](const char* n) { return a.name == n; });
}

// Moves every dim argument behind the batch dim (logical rank `rank`). A reduction's empty or
// absent dim list (all dims) becomes the list of every logical dim. False when a dim cannot be
// expressed on the physical tensor.
bool shift_dims(const OpEntry& op, Stack& stack, int64_t rank) {
  const auto& args = op.schema().arguments;
  const int64_t dim_rank = op.schema().name == "stack" ? rank + 1 : rank;  // stack's dim indexes its result
  const bool reduction = op.has_tag(Tag::Reduction);
  for (size_t i = 0; i < args.size() && i < stack.size(); ++i) {
    if (!is_dim_arg(args[i])) continue;
    IValue& v = stack[i];
    const bool is_list = args[i].type.find('[') != std::string::npos;
    if (v.is_none() || (v.holds<std::vector<int64_t>>() && v.get<std::vector<int64_t>>().empty())) {
      if (!v.is_none() && !reduction) continue;  // e.g. flip(dims=[]): nothing to move
      if (!reduction || !is_list || rank == 0) return false;
      v = IValue(all_dims_after_batch(rank));
      continue;
    }
    if (rank == 0) return false;  // dim 0/-1 of a 0-dim tensor has no physical counterpart
    if (v.holds<int64_t>()) {
      v = IValue(wrap_dim(v.get<int64_t>(), dim_rank, op.schema().name) + 1);
    } else if (v.holds<std::vector<int64_t>>()) {
      std::vector<int64_t> d = v.get<std::vector<int64_t>>();
      for (int64_t& x : d) x = wrap_dim(x, dim_rank, op.schema().name) + 1;
      v = IValue(std::move(d));
    } else {
      return false;
    }
  }
  return true;
}

void finish(const OpEntry& op, Stack& stack, Stack& orig, bool writes, int64_t level) {
  if (writes) {
    stack = std::move(orig);
  } else {
    wrap_results(stack, level);
  }
}

bool writes_args(const OpEntry& op) {
  for (const Argument& a : op.schema().arguments)
    if (a.is_write) return true;
  return false;
}

// Ops whose 0-dim samples behave as vectors of one element (dims 0 and -1 name that element):
// reductions, scans, sorts, softmax, flip, movedim.
bool takes_scalar_as_vector(const OpEntry& op) {
  static const char* names[] = {"softmax.int", "log_softmax.int", "_softmax", "_log_softmax", "argsort",
                                "argsort.stable", "sort", "sort.stable", "topk", "kthvalue", "mode", "cummax",
                                "cummin", "cumsum", "cumprod", "logcumsumexp", "flip", "movedim.int",
                                "movedim.intlist", "moveaxis.int", "moveaxis.intlist", "swapdims", "logsumexp",
                                "norm.ScalarOpt_dim", "std.correction", "var.correction", "var_mean.correction",
                                "std_mean.correction", "index_select"};
  if (op.schema().name == "aminmax") return false;  // keepdim gives a 0-dim sample one dim, as in PyTorch
  return op.has_tag(Tag::Reduction) ||
         std::any_of(std::begin(names), std::end(names), [&](const char* n) { return op.name() == n; });
}

// A 0-dim sample runs as a view of one element (through the op's rule for 1-dim samples);
// results that kept that dim lose it again. Dims other than 0 and -1 are left to the loop,
// which raises the op's own error.
bool scalar_sample_rule(const OpEntry& op, Stack& stack, int64_t level) {
  if (!takes_scalar_as_vector(op) || !stack[0].is_tensor()) return false;
  const auto& args = op.schema().arguments;
  auto ok_dim = [](int64_t d) { return d == 0 || d == -1; };
  for (size_t i = 0; i < args.size() && i < stack.size(); ++i) {
    if (!is_dim_arg(args[i]) || stack[i].is_none()) continue;
    if (stack[i].holds<int64_t>() && !ok_dim(stack[i].get<int64_t>())) return false;
    if (stack[i].holds<std::vector<int64_t>>())
      for (int64_t d : stack[i].get<std::vector<int64_t>>())
        if (!ok_dim(d)) return false;
  }
  check_written_batched(op, stack, level);
  const bool writes = writes_args(op);
  Stack orig = stack;
  stack[0] = IValue(stack[0].tensor().unsqueeze(0));
  redispatch(op, stack);  // back at the layer, with a 1-dim sample
  if (writes) {
    stack = std::move(orig);
    return true;
  }
  for (IValue& v : stack)
    if (v.is_tensor() && v.tensor().defined() && v.tensor().dim() == 1 && v.tensor().size(0) == 1)
      v = IValue(v.tensor().squeeze(0));
  return true;
}

// Ops with dim arguments whose first tensor is the only batched one: the dims move by one.
bool dim_shift_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t) {
  Tensor self = first_tensor(stack);
  if (!batched_at(self, level) || any_batched(stack, level, true)) return false;
  if (self.dim() == 0) return scalar_sample_rule(op, stack, level);
  check_written_batched(op, stack, level);
  const bool writes = writes_args(op);
  Stack orig = stack;  // shift_dims may fail halfway: the loop fallback then gets the original
  if (!shift_dims(op, stack, self.dim())) {
    stack = std::move(orig);
    return false;
  }
  for_each_tensor(stack, [&](Tensor& t) {
    if (batched_at(t, level)) t = physical_of(t);
  });
  redispatch(op, stack);
  finish(op, stack, orig, writes, level);
  return true;
}

// Ops whose tensors must agree in rank (cat, gather, scatter, ...): unbatched tensors are
// expanded over the batch, then the dims move by one.
bool expand_dim_shift_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  check_written_batched(op, stack, level);
  Tensor self = first_tensor(stack);
  if (!self.defined()) return false;
  if (take_along_flat_rule(op, stack, level, B) || cross_default_dim_rule(op, stack, level)) return true;
  bool same_rank = true;  // scalar indices, legacy empty tensors in cat: batch_rules_gather.cpp
  for_each_tensor(stack, [&](Tensor& t) { same_rank = same_rank && (!t.defined() || t.dim() == self.dim()); });
  if (!same_rank || self.dim() == 0)
    return scalar_operands_rule(op, stack, level) || cat_legacy_empty_rule(op, stack, level);
  const bool writes = writes_args(op);
  Stack orig = stack;
  if (!shift_dims(op, stack, self.dim())) {
    stack = std::move(orig);
    return false;
  }
  for_each_tensor(stack, [&](Tensor& t) {
    if (t.defined()) t = physical_or_expanded(t, level, B);
  });
  redispatch(op, stack);
  finish(op, stack, orig, writes, level);
  return true;
}

// Full reductions (sum(x), max(x), ...): reduce every logical dim with the op's dim overload.
template <const char* DimOp, bool ListDim>
bool full_reduce_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  Tensor self = first_tensor(stack);
  if (!batched_at(self, level) || stack.size() > 2) return false;
  if (self.dim() == 0) return scalar_sample_rule(op, stack, level);
  const OpEntry* target = Dispatcher::get().find(DimOp);
  if (!target) return false;
  Tensor p = physical_of(self);
  Stack s;
  if (ListDim) {
    s.emplace_back(p);
    s.emplace_back(all_dims_after_batch(self.dim()));
  } else {
    s.emplace_back(p.reshape({B, -1}));
    s.emplace_back(int64_t{1});
  }
  s.emplace_back(false);
  if (stack.size() == 2) s.push_back(static_cast<const IValue&>(stack[1]));  // dtype
  redispatch(*target, s);
  stack = std::move(s);
  wrap_results(stack, level);
  return true;
}
constexpr char kSumDim[] = "sum.dim_IntList";
constexpr char kMeanDim[] = "mean.dim";
constexpr char kAmax[] = "amax";
constexpr char kAmin[] = "amin";
constexpr char kProdDim[] = "prod.dim_int";
constexpr char kAllDim[] = "all.dim";
constexpr char kAnyDim[] = "any.dim";

// argmax / argmin without a dim: the index into each flattened sample (keepdim: a tensor of
// ones of the sample's rank).
bool arg_reduce_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  if (!stack[1].is_none()) return dim_shift_rule(op, stack, level, B);
  const Tensor self = stack[0].tensor();
  if (!batched_at(self, level) || self.numel() == 0) return false;  // the op's error, per sample
  const bool keepdim = stack[2].get<bool>();
  Stack s{IValue(physical_of(self).reshape({B, -1})), IValue(int64_t{1}), IValue(false)};
  redispatch(op, s);
  Tensor r = s[0].tensor();
  if (keepdim) {
    DimVector sz(static_cast<size_t>(self.dim() + 1), 1);
    sz[0] = B;
    r = r.view(sz);
  }
  stack.clear();
  stack.emplace_back(make_batched(r, level));
  return true;
}

// ---------------------------------------------------------------- matrix products

// Product of logical operands a (rank ra) and b (rank rb), as matmul defines it; at least one
// is batched at `level`. Returns the physical result (batch dim 0).
Tensor batched_matmul(const Tensor& a, const Tensor& b, int64_t level) {
  const bool ab = batched_at(a, level), bb = batched_at(b, level);
  Tensor A = ab ? physical_of(a) : a, Bm = bb ? physical_of(b) : b;
  const int64_t ra = a.dim(), rb = b.dim();
  if (ra == 1 && rb == 1) {  // dot products, one per sample
    if (ab && bb) return ember::matmul(A.unsqueeze(1), Bm.unsqueeze(2)).flatten(0, 2);
    return ab ? ember::matmul(A, Bm) : ember::matmul(Bm, A);
  }
  // Batched rows times a fixed matrix is one matrix product over all samples' rows.
  if (ab && !bb && rb == 2) return ember::matmul(A, Bm);
  // A fixed matrix times batched vectors: V A^T, one product.
  if (!ab && bb && ra == 2 && rb == 1) return ember::matmul(Bm, A.mT());
  const bool va = ra == 1, vb = rb == 1;
  if (va) A = ab ? A.unsqueeze(1) : A.unsqueeze(0);
  if (vb) Bm = Bm.unsqueeze(-1);
  const int64_t la = va ? 2 : ra, lb = vb ? 2 : rb, n = std::max(la, lb);
  // Leading dims broadcast from the right: pad a batched operand behind its batch dim.
  if (ab)
    for (int64_t k = la; k < n; ++k) A = A.unsqueeze(1);
  if (bb)
    for (int64_t k = lb; k < n; ++k) Bm = Bm.unsqueeze(1);
  Tensor r = ember::matmul(A, Bm);
  if (va) r = r.squeeze(-2);
  if (vb) r = r.squeeze(-1);
  return r;
}

template <int RA, int RB>
bool product_rule(const OpEntry&, Stack& stack, int64_t level, int64_t) {
  if (stack.size() != 2 || !stack[0].is_tensor() || !stack[1].is_tensor()) return false;
  const Tensor a = stack[0].tensor(), b = stack[1].tensor();
  if (!a.defined() || !b.defined()) return false;
  if ((RA && a.dim() != RA) || (RB && b.dim() != RB)) return false;  // the op raises per sample
  if (!RA && (a.dim() == 0 || b.dim() == 0)) return false;
  if (a.dtype() != b.dtype()) return false;
  Tensor r = batched_matmul(a, b, level);
  stack.clear();
  stack.emplace_back(make_batched(r, level));
  return true;
}

// addmm(self, mat1, mat2, beta, alpha) = beta self + alpha mat1 @ mat2, through the product rule.
bool addmm_rule(const OpEntry&, Stack& stack, int64_t level, int64_t) {
  const Tensor self = stack[0].tensor(), m1 = stack[1].tensor(), m2 = stack[2].tensor();
  if (m1.dim() != 2 || m2.dim() != 2 || m1.dtype() != m2.dtype() || self.dtype() != m1.dtype()) return false;
  const Scalar beta = stack[3].get<Scalar>(), alpha = stack[4].get<Scalar>();
  Tensor prod = batched_at(m1, level) || batched_at(m2, level) ? make_batched(batched_matmul(m1, m2, level), level)
                                                                  : ember::mm(m1, m2);
  if (alpha.to<double>() != 1.0) prod = ember::mul(prod, alpha);
  Tensor r = beta.to<double>() == 0.0 ? prod : ember::add(prod, self, beta);
  stack.clear();
  stack.emplace_back(r);
  return true;
}

// addmv, baddbmm, addbmm: beta self + alpha (the product through its rule; addbmm sums the
// per-sample batch of products). self broadcasts to the product, as the ops require.
template <int Kind>  // 0 addmv (mv), 1 baddbmm (bmm), 2 addbmm (bmm summed)
bool add_product_rule(const OpEntry&, Stack& stack, int64_t level, int64_t) {
  const Tensor self = stack[0].tensor(), m1 = stack[1].tensor(), m2 = stack[2].tensor();
  const int64_t r1 = Kind == 0 ? 2 : 3, r2 = Kind == 0 ? 1 : 3;
  if (m1.dim() != r1 || m2.dim() != r2 || m1.dtype() != m2.dtype() || self.dtype() != m1.dtype()) return false;
  const Scalar beta = stack[3].get<Scalar>(), alpha = stack[4].get<Scalar>();
  Tensor prod = make_batched(batched_matmul(m1, m2, level), level);
  if (!batched_at(m1, level) && !batched_at(m2, level)) prod = ember::matmul(m1, m2);
  if (Kind == 2) prod = ember::sum(prod, {0});
  if (self.dim() > prod.dim()) return false;
  for (int64_t d = 1; d <= self.dim(); ++d)
    if (self.size(-d) != 1 && self.size(-d) != prod.size(-d)) return false;  // the op's error, per sample
  if (alpha.to<double>() != 1.0) prod = ember::mul(prod, alpha);
  Tensor r = beta.to<double>() == 0.0 ? prod : ember::add(prod, self, beta);
  stack.clear();
  stack.emplace_back(r);
  return true;
}

// vdot(a, b) = dot(conj(a), b).
bool vdot_rule(const OpEntry&, Stack& stack, int64_t, int64_t) {
  const Tensor a = stack[0].tensor(), b = stack[1].tensor();
  if (a.dim() != 1 || b.dim() != 1 || a.dtype() != b.dtype() || a.size(0) != b.size(0)) return false;
  Tensor r = ember::dot(a.is_complex() ? ember::conj(a) : a, b);
  stack.clear();
  stack.emplace_back(r);
  return true;
}

// ---------------------------------------------------------------- indexing, convolution

// x[indices] with an unbatched index list: the batch dim stays in front when the indexed dims
// are adjacent (else advanced indexing would move them before it).
// Otherwise (batched indices, an unbatched self, separated indices) the batch becomes one
// more index (batched_index_rule).
bool index_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  if (stack.size() != 2 || !stack[0].is_tensor()) return false;
  if (!batched_at(stack[0].tensor(), level)) return batched_index_rule(op, stack, level, B);
  std::vector<Tensor>& idx = stack[1].tensor_list();
  int first = -1, last = -1;
  for (size_t i = 0; i < idx.size(); ++i) {
    if (!idx[i].defined()) continue;
    if (batched_at(idx[i], level)) return batched_index_rule(op, stack, level, B);
    if (first < 0) first = static_cast<int>(i);
    last = static_cast<int>(i);
  }
  for (int i = first; i >= 0 && i <= last; ++i)
    if (!idx[static_cast<size_t>(i)].defined()) return batched_index_rule(op, stack, level, B);
  std::vector<Tensor> pidx{Tensor()};
  pidx.insert(pidx.end(), idx.begin(), idx.end());
  stack[0] = IValue(physical_of(stack[0].tensor()));
  stack[1] = IValue(std::move(pidx));
  redispatch(op, stack);
  wrap_results(stack, level);
  return true;
}

// index_select: a batched self with an unbatched index moves dim; a batched index indexes.
bool index_select_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  return dim_shift_rule(op, stack, level, B) || batched_index_select_rule(op, stack, level, B);
}

// convolution with per-sample weights: B groups of channels. The input [B, N, C, *] becomes
// [N, B*C, *], the weight [B, O, C/g, *] (transposed: [B, C, O/g, *]) one of B*O (B*C) rows
// and the bias one of B*O; with groups B*g each sample's channels meet only its own weight.
bool convolution_weight_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  const Tensor in = stack[0].tensor(), w = stack[1].tensor();
  const std::optional<Tensor> bias = stack[2].is_none() ? std::nullopt : std::optional<Tensor>(stack[2].tensor());
  const bool transposed = stack[6].get<bool>();
  const int64_t groups = stack[8].get<int64_t>();
  const bool has_n = in.dim() == w.dim();
  if ((!has_n && in.dim() != w.dim() - 1) || w.dim() < 3 || groups < 1) return false;
  if (in.size(has_n ? 1 : 0) != (transposed ? w.size(0) : w.size(1) * groups)) return false;  // the op's error
  if (bias && (bias->dim() != 1 || bias->size(0) != (transposed ? w.size(1) * groups : w.size(0)))) return false;
  Tensor x = physical_or_expanded(in, level, B);  // [B, (N,) C, *]
  if (x.stride(0) == 0) x = ember::contiguous(x);  // expanded over the batch: see fold_channels
  if (!has_n) x = x.unsqueeze(1);
  x = ember::movedim(x, 0, 1);
  DimVector xs{x.size(0), B * x.size(2)};
  for (int64_t d = 3; d < x.dim(); ++d) xs.push_back(x.size(d));
  x = x.reshape(xs);
  const Tensor wp = physical_or_expanded(w, level, B);
  DimVector ws{B * wp.size(1)};
  for (int64_t d = 2; d < wp.dim(); ++d) ws.push_back(wp.size(d));
  Stack s = stack;
  s[0] = IValue(x);
  s[1] = IValue(wp.reshape(ws));
  if (bias) s[2] = IValue(physical_or_expanded(*bias, level, B).reshape({-1}));
  s[8] = IValue(B * groups);
  redispatch(op, s);
  Tensor r = s[0].tensor();  // [N, B*O, *]
  DimVector rs{r.size(0), B, r.size(1) / B};
  for (int64_t d = 2; d < r.dim(); ++d) rs.push_back(r.size(d));
  r = ember::movedim(r.reshape(rs), 1, 0);
  if (!has_n) r = r.squeeze(1);
  stack.clear();
  stack.emplace_back(make_batched(r, level));
  return true;
}

// convolution_backward with batched operands (a vmapped backward pass: jacrev, per-sample
// weights): the same grouping as convolution_weight_rule, so each sample's gradients are its own.
bool convolution_backward_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  const Tensor g = stack[0].tensor(), in = stack[1].tensor(), w = stack[2].tensor();
  const int64_t groups = stack[9].get<int64_t>();
  if (in.dim() != w.dim() || g.dim() != in.dim() || w.dim() < 3 || groups < 1) return false;
  Stack s = stack;
  s[0] = IValue(fold_channels(physical_or_expanded(g, level, B)));
  s[1] = IValue(fold_channels(physical_or_expanded(in, level, B)));
  const Tensor wp = physical_or_expanded(w, level, B);
  DimVector ws{B * wp.size(1)};
  for (int64_t d = 2; d < wp.dim(); ++d) ws.push_back(wp.size(d));
  s[2] = IValue(wp.reshape(ws));
  std::vector<int64_t> bias_sizes = stack[3].get<std::vector<int64_t>>();
  if (!bias_sizes.empty()) bias_sizes[0] *= B;
  s[3] = IValue(std::move(bias_sizes));
  s[9] = IValue(B * groups);
  redispatch(op, s);
  const Tensor gi = s[0].tensor(), gw = s[1].tensor(), gb = s[2].tensor();
  stack.clear();
  stack.emplace_back(gi.defined() ? IValue(make_batched(unfold_channels(gi, B), level)) : IValue(Tensor()));
  if (gw.defined()) {
    DimVector sz{B, gw.size(0) / B};
    for (int64_t d = 1; d < gw.dim(); ++d) sz.push_back(gw.size(d));
    stack.emplace_back(make_batched(gw.reshape(sz), level));
  } else {
    stack.emplace_back(Tensor());
  }
  stack.emplace_back(gb.defined() ? IValue(make_batched(gb.reshape({B, -1}), level)) : IValue(Tensor()));
  return true;
}

// convolution with a batched input and an unbatched weight: the batch folds into N.
bool convolution_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  if (!stack[0].is_tensor() || !batched_at(stack[0].tensor(), level) || any_batched(stack, level, true))
    return convolution_weight_rule(op, stack, level, B);
  const Tensor in = stack[0].tensor();
  const Tensor& w = stack[1].tensor();
  Tensor p = physical_of(in);
  const bool has_n = in.dim() == w.dim();
  if (!has_n && in.dim() != w.dim() - 1) return false;
  stack[0] = IValue(has_n ? p.flatten(0, 1) : p);
  redispatch(op, stack);
  Tensor r = stack[0].tensor();
  if (has_n) {
    DimVector sz{B, in.size(0)};
    for (int64_t d = 1; d < r.dim(); ++d) sz.push_back(r.size(d));
    r = r.view(sz);
  }
  stack.clear();
  stack.emplace_back(make_batched(r, level));
  return true;
}

// masked_fill(self, mask, value): self expanded over the batch, the mask (and a Tensor value,
// 0-dim per sample) padded behind the batch dim to broadcast against each sample.
bool masked_fill_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  check_written_batched(op, stack, level);
  const Tensor self = stack[0].tensor(), mask = stack[1].tensor();
  const bool writes = writes_args(op);
  if ((writes && mask.dim() > self.dim()) || mask.dtype() != kBool) return false;  // the op's errors, per sample
  Stack orig = writes ? stack : Stack();
  const int64_t rank = std::max(self.dim(), mask.dim());  // out of place, self broadcasts with the mask
  auto pad = [&](const Tensor& t) {
    if (!batched_at(t, level)) return t;
    Tensor p = physical_of(t);
    for (int64_t k = t.dim(); k < rank; ++k) p = p.unsqueeze(1);
    return p;
  };
  Tensor sp = writes ? physical_of(self) : physical_or_expanded(self, level, B);
  for (int64_t k = self.dim(); k < rank; ++k) sp = sp.unsqueeze(1);
  stack[0] = IValue(sp);
  stack[1] = IValue(pad(mask));
  if (stack[2].is_tensor()) {
    if (stack[2].tensor().dim() != 0) return false;
    stack[2] = IValue(pad(stack[2].tensor()));
  }
  redispatch(op, stack);
  finish(op, stack, orig, writes, level);
  return true;
}

// roll(self, shifts, dims): dims move by one; without dims a sample rolls flattened.
bool roll_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  const Tensor self = stack[0].tensor();
  if (!batched_at(self, level)) return false;
  if (self.dim() == 0 && stack[2].get<std::vector<int64_t>>().empty()) {  // nothing to roll
    stack.clear();
    stack.emplace_back(make_batched(ember::clone(physical_of(self)), level));
    return true;
  }
  if (self.dim() == 0) return false;
  if (!stack[2].get<std::vector<int64_t>>().empty()) return dim_shift_rule(op, stack, level, B);
  const std::vector<int64_t> shifts = stack[1].get<std::vector<int64_t>>();
  if (shifts.size() != 1) return false;
  Tensor r = ember::roll(self.reshape({-1}), shifts, {0}).view(self.sizes());
  stack.clear();
  stack.emplace_back(r);
  return true;
}

// repeat(self, repeats): the sample is first given the repeats' rank behind the batch dim.
bool repeat_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t) {
  const Tensor self = stack[0].tensor();
  std::vector<int64_t> reps = stack[1].get<std::vector<int64_t>>();
  if (!batched_at(self, level) || static_cast<int64_t>(reps.size()) < self.dim()) return false;
  Tensor p = physical_of(self);
  for (auto k = static_cast<int64_t>(reps.size()); k > self.dim(); --k) p = p.unsqueeze(1);
  reps.insert(reps.begin(), 1);
  stack[0] = IValue(p);
  stack[1] = IValue(std::move(reps));
  redispatch(op, stack);
  wrap_results(stack, level);
  return true;
}

// _upsample(self [N, C, *], ...) and _upsample_backward(grad [N, C, *], input_size, ...): the
// batch folds into N (the backward's input_size names N too).
template <bool Backward>
bool fold_into_n_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  const Tensor self = stack[0].tensor();
  if (!batched_at(self, level) || self.dim() < 3) return false;
  if (Backward) {
    std::vector<int64_t> sizes = stack[1].get<std::vector<int64_t>>();
    if (sizes.empty()) return false;
    sizes[0] *= B;
    stack[1] = IValue(std::move(sizes));
  }
  stack[0] = IValue(physical_of(self).flatten(0, 1));
  redispatch(op, stack);
  Tensor r = stack[0].tensor();
  DimVector rs{B, r.size(0) / B};
  for (int64_t d = 1; d < r.dim(); ++d) rs.push_back(r.size(d));
  stack[0] = IValue(make_batched(r.reshape(rs), level));
  return true;
}

// index_add / index_copy / index_fill with a batched index: self[..., index, ...] = source
// (summed for index_add, times alpha) through index_put_'s rule, on a batched copy of self
// (or self itself, in place).
bool index_update_batched_index(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  const Tensor self = stack[0].tensor(), index = stack[2].tensor();
  if (index.dim() > 1 || (index.dtype() != kInt64 && index.dtype() != kInt32)) return false;
  const std::string& name = op.schema().name;
  const int64_t dim = wrap_dim(stack[1].get<int64_t>(), self.dim(), name);
  const bool add = name.rfind("index_add", 0) == 0;
  Tensor values;
  if (name.rfind("index_fill", 0) == 0) {
    values = stack[3].is_tensor() ? stack[3].tensor() : ember::full({}, stack[3].get<Scalar>(), self.dtype());
    if (values.dim() != 0) return false;
  } else {
    values = stack[3].tensor();
    if (values.dim() != self.dim() || values.dtype() != self.dtype()) return false;  // the op's errors, per sample
    if (index.dim() == 0) return false;
    if (add && stack.size() > 4 && stack[4].get<Scalar>().to<double>() != 1.0)
      values = ember::mul(values, stack[4].get<Scalar>());
  }
  const bool writes = writes_args(op);
  // A copy of self to write into (never self's own physical tensor, a leaf under grad).
  Tensor target = self;
  if (!writes) {
    Tensor c = ember::clone(physical_or_expanded(self, level, B));
    target = make_batched(c.is_contiguous() ? c : ember::contiguous(c), level);
  }
  std::vector<std::optional<Tensor>> idx(static_cast<size_t>(dim + 1));
  idx[static_cast<size_t>(dim)] = index.dim() == 0 ? index.unsqueeze(0) : index;
  ember::index_put_(target, idx, values, add);
  stack.clear();
  stack.emplace_back(target);
  return true;
}

// index_add / index_copy / index_fill(self, dim, index, source or value) with an unbatched
// index: self and a source are expanded over the batch (an in-place self must be batched),
// and dim moves by one; a batched fill value is left to the loop.
bool index_update_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  check_written_batched(op, stack, level);
  const Tensor self = stack[0].tensor(), index = stack[2].tensor();
  const bool fill = op.schema().name.rfind("index_fill", 0) == 0;  // index_fill, index_fill_
  // A 0-dim self (and source) index as one-element vectors; a 0-dim index names one element.
  if (self.dim() == 0 || (!fill && stack[3].tensor().dim() == 0 && self.dim() == 1)) {
    const int64_t d = stack[1].get<int64_t>();
    if (d != 0 && d != -1) return false;  // the op's error, per sample
    Stack orig = stack;
    if (self.dim() == 0) stack[0] = IValue(self.unsqueeze(0));
    if (!fill && stack[3].tensor().dim() == 0) stack[3] = IValue(stack[3].tensor().unsqueeze(0));
    if (index.dim() == 0) stack[2] = IValue(index.unsqueeze(0));
    redispatch(op, stack);  // back at the layer, with 1-dim samples
    if (writes_args(op)) {
      stack = std::move(orig);
    } else if (self.dim() == 0) {
      stack[0] = IValue(stack[0].tensor().squeeze(0));
    }
    return true;
  }
  if (batched_at(index, level)) return index_update_batched_index(op, stack, level, B);
  const bool writes = writes_args(op);
  Stack orig = stack;
  stack[1] = IValue(wrap_dim(stack[1].get<int64_t>(), self.dim(), op.schema().name) + 1);
  stack[0] = IValue(physical_or_expanded(self, level, B));
  if (!writes) stack[0] = IValue(ember::contiguous(stack[0].tensor()));  // written by the op's copy
  if (stack.size() > 3 && stack[3].is_tensor()) {
    const Tensor src = stack[3].tensor();
    if (fill) {  // one fill value for every sample
      if (batched_at(src, level)) {
        stack = std::move(orig);
        return false;
      }
    } else if (src.dim() != self.dim()) {
      stack = std::move(orig);
      return false;  // the op's error, per sample
    } else {
      stack[3] = IValue(physical_or_expanded(src, level, B));
    }
  }
  redispatch(op, stack);
  finish(op, stack, orig, writes, level);
  return true;
}

// clone and contiguous: a row-major physical copy, so that the samples are row-major too
// (reshape's copy path relies on it; cloning a permuted physical tensor would keep its order).
bool copy_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t) {
  if (stack.size() != 1 || !batched_at(stack[0].tensor(), level)) return false;
  Tensor p = physical_of(stack[0].tensor());
  Tensor r = ember::clone(p);
  if (!r.is_contiguous()) r = ember::contiguous(r);
  stack[0] = IValue(make_batched(r, level));
  return true;
}

// nll_loss with class-index targets: one unreduced call over every sample's rows, then each
// sample's reduction (a mean divides by that sample's total target weight, as nll_loss does).
// A sample [N, C, d1, ...] (targets [N, d1, ...]) gives rows with the classes last. Per-sample
// class weights (batched) are gathered by each row's target and applied after an unweighted call.
bool nll_loss_rule(const OpEntry&, Stack& stack, int64_t level, int64_t B) {
  const Tensor self = stack[0].tensor(), target = stack[1].tensor();
  std::optional<Tensor> weight;
  if (!stack[2].is_none() && stack[2].tensor().defined()) weight = stack[2].tensor();
  const bool weight_b = weight && batched_at(*weight, level);
  if (self.dim() < 1 || target.dim() != self.dim() - 1) return false;
  for (int64_t d = 0; d < target.dim(); ++d)
    if (target.size(d) != self.size(d < 1 ? d : d + 1)) return false;  // the op's error, per sample
  const int64_t reduction = stack[3].get<int64_t>(), ignore = stack[4].get<int64_t>();
  Tensor p = physical_or_expanded(self, level, B);
  if (self.dim() > 2) p = ember::movedim(p, 2, -1);
  const Tensor t = physical_or_expanded(target, level, B);
  const int64_t c = self.size(self.dim() == 1 ? 0 : 1), n = self.numel() / std::max<int64_t>(c, 1);
  if (weight_b && (weight->dim() != 1 || weight->size(0) != c)) return false;  // the op's error, per sample
  Tensor loss = ember::nll_loss(p.reshape({B * n, c}), t.reshape({B * n}), weight_b ? std::nullopt : weight,
                                Reduction::None, ignore);
  loss = loss.view({B, n});
  const Tensor tf = t.reshape({B, n});
  const Tensor kept = ember::ne(tf, Scalar(ignore));
  Tensor picked;  // each row's class weight, 0 for ignored targets
  if (weight_b) {
    picked = ember::mul(ember::gather(physical_of(*weight), 1, ember::where(kept, tf, ember::zeros_like(tf))),
                        kept.to(loss.dtype()));
    loss = ember::mul(loss, picked);
  } else if (weight) {
    const Tensor safe = ember::where(kept, tf, ember::zeros_like(tf)).flatten();
    picked = ember::mul(kept.to(loss.dtype()), ember::index_select(*weight, 0, safe).view({B, n}));
  } else {
    picked = kept.to(loss.dtype());
  }
  Tensor r;
  if (reduction == Reduction::None) {
    DimVector sz{B};
    for (int64_t s : target.sizes()) sz.push_back(s);
    r = loss.view(sz);
  } else if (reduction == Reduction::Sum) {
    r = ember::sum(loss, {1});
  } else {
    r = ember::div(ember::sum(loss, {1}), ember::sum(picked, {1}));
  }
  stack.clear();
  stack.emplace_back(make_batched(r, level));
  return true;
}

// cross_entropy on batched operands, as the composite computes it but with ops that each have
// a rule (the composite's range checks read target values, which vmap cannot do): log_softmax
// along the class dim, then nll_loss for class indices (plus the label-smoothing term), or the
// weighted sum against class probabilities.
bool cross_entropy_rule(const OpEntry&, Stack& stack, int64_t, int64_t) {
  const Tensor self = stack[0].tensor(), target = stack[1].tensor();
  const std::optional<Tensor> weight =
      stack[2].is_none() || !stack[2].tensor().defined() ? std::nullopt : std::optional<Tensor>(stack[2].tensor());
  const int64_t reduction = stack[3].get<int64_t>(), ignore = stack[4].get<int64_t>();
  const double ls = stack[5].get<double>();
  if (self.dim() < 1 || !is_floating_point(self.dtype()) || ls < 0.0 || ls > 1.0 || reduction < 0 || reduction > 2)
    return false;  // the op's errors, per sample
  const int64_t class_dim = self.dim() == 1 ? 0 : 1, n_classes = self.size(class_dim);
  if (weight && (weight->dim() != 1 || weight->numel() != n_classes)) return false;
  auto class_weight = [&]() {
    DimVector sz(static_cast<size_t>(self.dim()), 1);
    sz[static_cast<size_t>(class_dim)] = n_classes;
    return weight->view(sz);
  };
  const Tensor logp = ember::log_softmax(self, class_dim);
  Tensor r;
  if (self.sizes().equals(target.sizes())) {  // class probabilities
    if (!is_floating_point(target.dtype()) || ignore >= 0) return false;
    Tensor tgt = ls > 0.0 ? ember::add(ember::mul(target, Scalar(1 - ls)), Scalar(ls / static_cast<double>(n_classes)))
                          : target;
    Tensor prod = ember::mul(logp, tgt);
    if (weight) prod = ember::mul(prod, class_weight());
    if (reduction == Reduction::Mean) {
      r = self.numel() == 0 ? ember::mul(ember::sum(prod), Scalar(std::numeric_limits<double>::quiet_NaN()))
                            : ember::div(ember::neg(ember::sum(prod)), Scalar(self.numel() / n_classes));
    } else if (reduction == Reduction::Sum) {
      r = ember::neg(ember::sum(prod));
    } else {
      r = ember::neg(ember::sum(prod, {class_dim}));
    }
  } else {
    if (target.dtype() != kInt64 && target.dtype() != kUInt8) return false;  // the op's error, per sample
    const Tensor t = target.dtype() == kInt64 ? target : target.to(kInt64);
    r = ember::nll_loss(logp, t, weight, reduction, ignore);
    if (ls > 0.0) {
      const Tensor ignored = t.eq(Scalar(ignore));
      Tensor smooth = ember::neg(ember::sum(weight ? ember::mul(logp, class_weight()) : logp, {class_dim}));
      smooth = ember::masked_fill(smooth, ignored, Scalar(0));
      Tensor ret = smooth;
      if (reduction == Reduction::Sum) {
        ret = ember::sum(smooth);
      } else if (reduction == Reduction::Mean) {
        const Tensor total =
            weight ? ember::sum(ember::masked_fill(ember::take(*weight, ember::masked_fill(t, ignored, Scalar(0))),
                                                   ignored, Scalar(0)))
                   : ember::sum(ember::logical_not(ignored)).to(smooth.dtype());
        ret = ember::div(ember::sum(smooth), total);
      }
      r = ember::add(ember::mul(r, Scalar(1 - ls)), ember::mul(ret, Scalar(ls / static_cast<double>(n_classes))));
    }
  }
  stack.clear();
  stack.emplace_back(r);
  return true;
}

// embedding: batched indices into an unbatched table are one lookup over every sample's
// indices. Per-sample tables (a batched weight) are stacked into one of B * V rows and each
// sample's indices offset into its own block, and not with an index outside [0, V), which would
// read the next sample's table (the per-sample loop then raises embedding's own IndexError). A
// padding_idx names one row of every block: its lookups are taken out of the graph instead,
// so that the padding rows get no gradient, as embedding's backward does.
bool embedding_rule(const OpEntry&, Stack& stack, int64_t level, int64_t B) {
  const Tensor weight = stack[0].tensor(), indices = stack[1].tensor();
  const int64_t padding_idx = stack[2].get<int64_t>();
  const bool scale_grad_by_freq = stack[3].get<bool>(), sparse = stack[4].get<bool>();
  if (weight.dim() != 2 || (indices.dtype() != kInt64 && indices.dtype() != kInt32)) return false;
  const Tensor idx = physical_or_expanded(indices, level, B);
  Tensor r;
  if (!batched_at(weight, level)) {
    r = ember::embedding(weight, idx, padding_idx, scale_grad_by_freq, sparse);
  } else {
    const Tensor& w = physical_of(weight);
    const int64_t V = w.size(1);
    if (idx.numel() == 0) return false;
    if (ember::amin(idx).item().to_int() < 0 || ember::amax(idx).item().to_int() >= V) return false;
    DimVector block(static_cast<size_t>(idx.dim()), 1);
    block[0] = B;
    const Tensor first = ember::arange(0, B * V, V, TensorOptions(idx.dtype())).view(block);
    r = ember::embedding(w.reshape({B * V, w.size(2)}), ember::add(idx, first), -1, scale_grad_by_freq, sparse);
    if (padding_idx >= 0) r = ember::where(idx.eq(Scalar(padding_idx)).unsqueeze(-1), r.detach(), r);
  }
  stack.clear();
  stack.emplace_back(make_batched(r, level));
  return true;
}

}  // namespace

void set_rule(const char* name, BatchRule rule) {
  if (const OpEntry* op = Dispatcher::get().find(name)) set_batch_rule(*op, rule);
}

Tensor physical_or_expanded(const Tensor& t, int64_t level, int64_t B) {
  if (batched_at(t, level)) return physical_of(t);
  DimVector sz{B};
  for (int64_t s : t.sizes()) sz.push_back(s);
  return t.unsqueeze(0).expand(sz);
}

Tensor sample_rows(const Tensor& t, int64_t level, int64_t B) {
  return physical_or_expanded(t, level, B).reshape({B, t.numel()});
}

void register_batch_rules() {
  // Random ops apply the randomness policy before a composite (rand = empty + uniform_) could
  // decompose at the layer.
  for (const OpEntry* op : Dispatcher::get().all_ops())
    if (op->has_tag(Tag::Random)) register_boxed_kernel(op->name(), DispatchKey::Vmap, &vmap_layer_kernel);
  // Reductions with dims, and other ops whose only batched operand is self.
  for (const OpEntry* op : Dispatcher::get().all_ops()) {
    if (!op->has_tag(Tag::Reduction)) continue;
    for (const Argument& a : op->schema().arguments)
      if (is_dim_arg(a)) {
        set_batch_rule(*op, &dim_shift_rule);
        break;
      }
  }
  for (const char* n : {"softmax.int", "log_softmax.int", "_softmax", "_log_softmax", "argsort", "argsort.stable",
                        "sort", "sort.stable", "topk", "kthvalue", "mode", "cummax", "cummin", "cumsum", "cumprod",
                        "logcumsumexp", "flip", "narrow_copy", "chunk", "split.sizes",
                        "split_with_sizes", "split.Tensor", "unbind.int", "tensor_split.sections",
                        "tensor_split.indices", "glu", "movedim.int", "movedim.intlist", "moveaxis.int",
                        "moveaxis.intlist", "swapdims", "repeat_interleave.self_int", "logsumexp",
                        "norm.ScalarOpt_dim", "std.correction", "var.correction", "var_mean.correction",
                        "std_mean.correction", "cumsum_", "cumprod_", "_fft_r2c", "_fft_c2r", "_fft_c2c"})
    set_rule(n, &dim_shift_rule);
  for (const char* n : {"cat", "stack", "gather", "scatter.src", "scatter.value", "scatter.reduce", "scatter_.src",
                        "scatter_.value", "scatter_add", "scatter_add_", "scatter_reduce.two", "scatter_reduce_.two",
                        "scatter.value_reduce", "scatter_.reduce", "scatter_.value_reduce",
                        "take_along_dim", "_softmax_backward_data", "_log_softmax_backward_data", "diff", "cross"})
    set_rule(n, &expand_dim_shift_rule);
  set_rule("sum", &full_reduce_rule<kSumDim, true>);
  set_rule("mean", &full_reduce_rule<kMeanDim, true>);
  set_rule("max", &full_reduce_rule<kAmax, true>);
  set_rule("min", &full_reduce_rule<kAmin, true>);
  set_rule("prod", &full_reduce_rule<kProdDim, false>);
  set_rule("all", &full_reduce_rule<kAllDim, false>);
  set_rule("any", &full_reduce_rule<kAnyDim, false>);
  set_rule("matmul", &product_rule<0, 0>);
  set_rule("mm", &product_rule<2, 2>);
  set_rule("mv", &product_rule<2, 1>);
  set_rule("dot", &product_rule<1, 1>);
  set_rule("bmm", &product_rule<3, 3>);
  set_rule("addmm", &addmm_rule);
  set_rule("index.Tensor", &index_rule);
  set_rule("index_select", &index_select_rule);
  set_rule("convolution", &convolution_rule);
  set_rule("convolution_backward", &convolution_backward_rule);
  set_rule("nll_loss", &nll_loss_rule);
  set_rule("cross_entropy_loss", &cross_entropy_rule);
  set_rule("embedding", &embedding_rule);
  // Ops that treat leading dims as batch dims (the batch dim is one more of them).
  set_rule("clone", &copy_rule);
  set_rule("contiguous", &copy_rule);
  set_rule("addmv", &add_product_rule<0>);
  set_rule("baddbmm", &add_product_rule<1>);
  set_rule("addbmm", &add_product_rule<2>);
  set_rule("vdot", &vdot_rule);
  for (const char* n : {"masked_fill.Scalar", "masked_fill.Tensor", "masked_fill_.Scalar", "masked_fill_.Tensor"})
    set_rule(n, &masked_fill_rule);
  set_rule("roll", &roll_rule);
  set_rule("argmax", &arg_reduce_rule);
  set_rule("argmin", &arg_reduce_rule);
  for (const char* n : {"index_add", "index_add_", "index_copy", "index_copy_", "index_fill.int_Scalar",
                        "index_fill.int_Tensor", "index_fill_.int_Scalar", "index_fill_.int_Tensor"})
    set_rule(n, &index_update_rule);
  set_rule("repeat", &repeat_rule);
  for (const char* n : {"tril", "triu", "tril_", "triu_", "to.dtype", "to.device", "constant_pad_nd"})
    set_rule(n, &passthrough_rule);
  set_rule("_upsample", &fold_into_n_rule<false>);
  set_rule("_upsample_backward", &fold_into_n_rule<true>);
  // Leading dims are batch dims: pooling (its internal ops take any number of planes) and its
  // backward ops, and linalg's decompositions, inverses and solves.
  for (const char* n : {"_max_pool", "_avg_pool", "_adaptive_avg_pool", "_adaptive_max_pool",
                        "_avg_pool_backward", "_adaptive_avg_pool_backward", "_linalg_eigh", "_linalg_svd",
                        "_linalg_eigvals", "linalg_eig", "linalg_qr", "linalg_det", "linalg_slogdet", "linalg_inv_ex",
                        "linalg_cholesky_ex", "linalg_lu_factor_ex", "linalg_solve_triangular",
                        "linalg_ldl_factor_ex"})
    set_rule(n, &leading_dims_rule);
  register_norm_batch_rules();
  register_index_batch_rules();
  register_stats_batch_rules();
  register_linalg_batch_rules();
  register_gather_batch_rules();
  register_spatial_batch_rules();
  register_dynamic_batch_rules();
  register_out_batch_rules();  // last: it serves the out= forms of ops that have rules by now
}

}  // namespace ember::func::detail
