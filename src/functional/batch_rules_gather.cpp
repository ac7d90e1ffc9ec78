// Batch rules for the gather / scatter family where the samples' ranks differ from the usual
// case (batch_rules.cpp's expand_dim_shift_rule handles operands of one rank): 0-dim samples
// and scalar indices, cat with legacy empty tensors, take_along_dim and cross without a dim;
// and take, put (flat indices into each sample) and masked_scatter.
#include "ember/ops.h"
#include "functional/batched.h"

namespace ember::func::detail {

namespace {

bool writes_args(const OpEntry& op) {
  for (const Argument& a : op.schema().arguments)
    if (a.is_write) return true;
  return false;
}

int64_t arg_index(const OpEntry& op, const char* name) {
  const auto& args = op.schema().arguments;
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].name == name) return static_cast<int64_t>(i);
  return -1;
}

// Flat indices of `rows` (physical [B, M]) into samples of n elements, negative ones counted
// from the end; nullopt when one is out of range (the op then raises its own error per
// sample). Indices batched at an outer level cannot be read here: gather checks them.
std::optional<Tensor> wrap_flat_indices(const Tensor& rows, int64_t n) {
  if (rows.numel() == 0) return rows;
  if (n == 0) return std::nullopt;
  if (!has_batch(rows)) {
    const int64_t lo = ember::amin(rows).item().to_int(), hi = ember::amax(rows).item().to_int();
    if (lo < -n || hi >= n) return std::nullopt;
  }
  return ember::where(rows.lt(Scalar(0)), ember::add(rows, Scalar(n)), rows);
}

}  // namespace

// gather / scatter* / take_along_dim with a 0-dim sample among 1-dim ones (dim 0 or -1): the
// 0-dim operands run as one-element vectors, and the result loses that dim again where the op
// gives a 0-dim result (gather's is shaped as its index, scatter's as self).
bool scalar_operands_rule(const OpEntry& op, Stack& stack, int64_t) {
  bool any0 = false, ok = true;
  for_each_tensor(stack, [&](Tensor& t) {
    if (!t.defined()) return;
    ok = ok && t.dim() <= 1;
    any0 = any0 || t.dim() == 0;
  });
  const int64_t dim_at = arg_index(op, "dim");
  if (!ok || !any0 || dim_at < 0 || !stack[static_cast<size_t>(dim_at)].holds<int64_t>()) return false;
  const int64_t d = stack[static_cast<size_t>(dim_at)].get<int64_t>();
  if (d != 0 && d != -1) return false;  // the op's error, per sample
  const std::string& name = op.schema().name;
  const bool by_index = name == "gather" || name == "take_along_dim";
  const int64_t index_at = arg_index(op, name == "take_along_dim" ? "indices" : "index");
  const Tensor shaper = by_index && index_at >= 0 ? stack[static_cast<size_t>(index_at)].tensor() : stack[0].tensor();
  const bool scalar_result = shaper.dim() == 0;
  Stack orig = stack;
  for_each_tensor(stack, [&](Tensor& t) {
    if (t.defined() && t.dim() == 0) t = t.unsqueeze(0);
  });
  redispatch(op, stack);  // back at the layer, with 1-dim samples
  if (writes_args(op)) {
    stack = std::move(orig);
  } else if (scalar_result) {
    for (IValue& v : stack)
      if (v.is_tensor() && v.tensor().defined() && v.tensor().dim() == 1) v = IValue(v.tensor().squeeze(0));
  }
  return true;
}

// cat with legacy empty tensors (1-D, no elements), which cat skips: each becomes an empty
// tensor of the others' rank (its dtype kept, for the result type), so the ranks agree.
bool cat_legacy_empty_rule(const OpEntry& op, Stack& stack, int64_t) {
  if (op.schema().name != "cat" || !stack[0].is_tensor_list()) return false;
  std::vector<Tensor> ts = stack[0].tensor_list();
  auto legacy = [](const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; };
  const Tensor* model = nullptr;
  for (const Tensor& t : ts)
    if (!legacy(t)) {
      if (model && model->dim() != t.dim()) return false;  // the op's error, per sample
      model = &t;
    }
  if (!model || model->dim() == 0) return false;
  const int64_t dim = wrap_dim(stack[1].get<int64_t>(), model->dim(), "cat");
  DimVector sz(model->sizes());
  sz[static_cast<size_t>(dim)] = 0;
  const Tensor like = *model;
  for (Tensor& t : ts)
    if (legacy(t)) t = ember::empty(sz, TensorOptions(t.dtype()).device(like.device()));
  stack[0] = IValue(std::move(ts));
  redispatch(op, stack);  // back at the layer, with operands of one rank
  return true;
}

// take_along_dim(self, indices) without a dim: each flattened sample gathered by its flattened
// indices.
bool take_along_flat_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  if (op.schema().name != "take_along_dim" || !stack[2].is_none()) return false;
  const Tensor self = stack[0].tensor(), index = stack[1].tensor();
  if (index.dtype() != kInt64) return false;
  Tensor r = ember::gather(sample_rows(self, level, B), 1, sample_rows(index, level, B));
  stack.clear();
  stack.emplace_back(make_batched(r, level));
  return true;
}

// cross(self, other) without a dim: torch.cross's default, the first dim of size 3 of the
// samples' broadcast shape, made explicit (the rule for a given dim then serves).
bool cross_default_dim_rule(const OpEntry& op, Stack& stack, int64_t) {
  if (op.schema().name != "cross" || !stack[2].is_none()) return false;
  const Tensor a = stack[0].tensor(), b = stack[1].tensor();
  if (a.dim() != b.dim()) return false;  // the op's error, per sample
  DimVector shape;
  try {
    shape = broadcast_shapes(a.sizes(), b.sizes());
  } catch (const std::exception&) {
    return false;
  }
  for (size_t d = 0; d < shape.size(); ++d)
    if (shape[d] == 3) {
      stack[2] = IValue(static_cast<int64_t>(d));
      redispatch(op, stack);  // back at the layer, with the dim
      return true;
    }
  return false;
}

namespace {

// masked_scatter(self, mask, source) and masked_scatter_: a sample's source elements fill, in
// order, the positions its mask sets. Position k of a sample (self and mask broadcast to one
// shape, flattened) takes the source element numbered by the set positions before it, so that
// one gather serves every sample.
bool masked_scatter_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  check_written_batched(op, stack, level);
  Tensor self = stack[0].tensor();
  const Tensor mask = stack[1].tensor(), source = stack[2].tensor();
  const bool writes = writes_args(op);
  if (mask.dtype() != kBool || source.dtype() != self.dtype()) return false;  // the op's errors, per sample
  DimVector shape;
  try {
    shape = broadcast_shapes(self.sizes(), mask.sizes());
  } catch (const std::exception&) {
    return false;
  }
  if (writes && !self.sizes().equals(shape)) return false;
  int64_t n = 1;
  for (int64_t x : shape) n *= x;
  auto rows = [&](const Tensor& t) {
    Tensor p = physical_or_expanded(t, level, B);
    for (auto k = t.dim(); k < static_cast<int64_t>(shape.size()); ++k) p = p.unsqueeze(1);
    DimVector full{B};
    for (int64_t x : shape) full.push_back(x);
    return p.expand(full).reshape({B, n});
  };
  const Tensor m = rows(mask), x = rows(self), src = sample_rows(source, level, B);
  const int64_t S = source.numel();
  if (!has_batch(m) && m.numel() > 0) {  // more set positions than source elements: the op's error
    const int64_t most = ember::amax(ember::sum(m.to(kInt64), {1})).item().to_int();
    if (most > S) return false;
  }
  Tensor r = x;
  if (S > 0 && n > 0) {
    const Tensor pos = ember::clamp_max(ember::clamp_min(ember::sub(ember::cumsum(m, 1, kInt64), Scalar(1)), Scalar(0)),
                                        Scalar(S - 1));
    r = ember::where(m, ember::gather(src, 1, pos), x);
  }
  DimVector full{B};
  for (int64_t v : shape) full.push_back(v);
  const Tensor result = make_batched(r.reshape(full), level);
  stack.clear();
  if (writes) {
    ember::copy_(self, result);
    stack.emplace_back(self);
  } else {
    stack.emplace_back(result);
  }
  return true;
}

// take(self, index): self's flat elements, shaped as index.
bool take_rule(const OpEntry&, Stack& stack, int64_t level, int64_t B) {
  const Tensor self = stack[0].tensor(), index = stack[1].tensor();
  if (index.dtype() != kInt64) return false;
  const auto idx = wrap_flat_indices(sample_rows(index, level, B), self.numel());
  if (!idx) return false;
  Tensor r = ember::gather(sample_rows(self, level, B), 1, *idx);
  DimVector sz{B};
  for (int64_t s : index.sizes()) sz.push_back(s);
  stack.clear();
  stack.emplace_back(make_batched(r.view(sz), level));
  return true;
}

// put(self, index, source, accumulate) and put_: self's flat elements at index set to (or
// accumulating) source's. The flat indices are turned into coordinates of the sample, so that
// the write goes through index_put_ into the physical tensor whatever its layout.
bool put_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  check_written_batched(op, stack, level);
  const Tensor self = stack[0].tensor(), index = stack[1].tensor(), source = stack[2].tensor();
  const bool accumulate = stack[3].get<bool>(), writes = writes_args(op);
  if (index.dtype() != kInt64 || source.numel() != index.numel() || source.dtype() != self.dtype()) return false;
  const auto flat = wrap_flat_indices(sample_rows(index, level, B), self.numel());
  if (!flat) return false;
  Tensor target;
  if (writes) {
    target = physical_of(self);
  } else {
    target = ember::clone(physical_or_expanded(self, level, B));
    if (!target.is_contiguous()) target = ember::contiguous(target);
  }
  std::vector<std::optional<Tensor>> idx{ember::arange(0, B, 1, TensorOptions(kInt64)).view({B, 1})};
  Tensor rest = *flat;
  for (int64_t d = self.dim() - 1; d >= 0; --d) {  // row-major coordinates, last dim first
    const int64_t n = self.size(d);
    const Tensor q = ember::div(rest, Scalar(n), "floor");
    idx.insert(idx.begin() + 1, ember::sub(rest, ember::mul(q, Scalar(n))));
    rest = q;
  }
  ember::index_put_(target, idx, sample_rows(source, level, B), accumulate);
  if (writes) {
    stack.resize(1);
  } else {
    stack.clear();
    stack.emplace_back(make_batched(target, level));
  }
  return true;
}

}  // namespace

void register_gather_batch_rules() {
  set_rule("take", &take_rule);
  for (const char* n : {"put", "put_"}) set_rule(n, &put_rule);
  for (const char* n : {"masked_scatter", "masked_scatter_"}) set_rule(n, &masked_scatter_rule);
}

}  // namespace ember::func::detail
