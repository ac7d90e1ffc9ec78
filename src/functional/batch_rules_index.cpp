// Batch rules for advanced indexing with batched index tensors: index (x[i]), index_put_
// (x[i] = v) and index_select. (Unbatched indices, gather, scatter and take_along_dim are in
// batch_rules.cpp.)
//
// Each sample indexes its own block: an arange over the batch becomes one more index, in
// front of the per-sample ones, so that one advanced-indexing call serves every sample.
#include "ember/ops.h"
#include "functional/batched.h"

namespace ember::func::detail {

namespace {

bool is_integral_index(const Tensor& t) { return t.dtype() == kInt64 || t.dtype() == kInt32; }

// The physical form of a per-sample advanced index.
struct BatchedIndex {
  std::vector<std::optional<Tensor>> indices;  // for the physical self: batch arange first
  DimVector result;                            // the per-sample (logical) result shape
  int64_t moved_from = 0;                      // the broadcast index dims sit at physical dims 1..m ...
  int64_t moved_to = 0;                        // ... and belong at 1 + first (adjacent indices)
  int64_t m = 0;                               // the broadcast index rank
};

// Plans self[idx] per sample (self's logical sizes `sizes`), with some indices batched at
// `level`; nullopt when an index is a mask or there are more indices than dims (the loop
// then runs the op per sample, with its own errors).
std::optional<BatchedIndex> plan_batched_index(IntArrayRef sizes, const std::vector<Tensor>& idx, int64_t level,
                                               int64_t B) {
  const auto r = static_cast<int64_t>(sizes.size());
  if (static_cast<int64_t>(idx.size()) > r) return std::nullopt;
  int64_t first = -1, last = -1;
  DimVector bshape;
  for (size_t i = 0; i < idx.size(); ++i) {
    if (!idx[i].defined()) continue;
    if (!is_integral_index(idx[i])) return std::nullopt;
    if (first < 0) first = static_cast<int64_t>(i);
    last = static_cast<int64_t>(i);
    bshape = broadcast_shapes(bshape, idx[i].sizes());  // raises the op's own message on a clash
  }
  if (first < 0) return std::nullopt;
  bool adjacent = true;
  for (int64_t i = first; i <= last; ++i) adjacent = adjacent && idx[static_cast<size_t>(i)].defined();
  BatchedIndex p;
  p.m = static_cast<int64_t>(bshape.size());
  DimVector ones(static_cast<size_t>(p.m + 1), 1);
  ones[0] = B;
  p.indices.emplace_back(ember::arange(0, B, 1, TensorOptions(kInt64)).view(ones));
  for (const Tensor& t : idx) {
    if (!t.defined()) {
      p.indices.emplace_back(std::nullopt);
      continue;
    }
    Tensor q = batched_at(t, level) ? physical_of(t) : t;
    if (q.dtype() != kInt64) q = q.to(kInt64);
    if (batched_at(t, level))  // broadcast index dims start right after the batch dim
      for (int64_t k = t.dim(); k < p.m; ++k) q = q.unsqueeze(1);
    p.indices.emplace_back(q);
  }
  // Per sample, adjacent indices put their dims in place of the indexed ones, separated ones
  // in front; the physical call always puts them in front (behind the batch index).
  if (adjacent) {
    for (int64_t d = 0; d < first; ++d) p.result.push_back(sizes[d]);
    for (int64_t s : bshape) p.result.push_back(s);
    for (int64_t d = last + 1; d < r; ++d) p.result.push_back(sizes[d]);
    p.moved_from = 1;
    p.moved_to = 1 + first;
  } else {
    p.result = bshape;
    for (int64_t d = 0; d < r; ++d)
      if (d >= static_cast<int64_t>(idx.size()) || !idx[static_cast<size_t>(d)].defined()) p.result.push_back(sizes[d]);
    p.moved_from = p.moved_to = 1;
  }
  return p;
}

// An unbatched boolean mask among the indices is the integer indices of its set positions,
// one per mask dim (what advanced indexing does with it), so that the plan above serves it;
// nullopt for a batched or 0-dim mask (left to the loop).
std::optional<std::vector<Tensor>> masks_as_indices(const std::vector<Tensor>& idx) {
  std::vector<Tensor> out;
  for (const Tensor& t : idx) {
    if (!t.defined() || (t.dtype() != kBool && t.dtype() != kUInt8)) {
      out.push_back(t);
      continue;
    }
    if (has_batch(t) || t.dim() == 0) return std::nullopt;
    const Tensor nz = ember::nonzero(t);  // [count, mask dims]
    for (int64_t j = 0; j < t.dim(); ++j) out.push_back(nz.select(1, j));
  }
  return out;
}

std::vector<int64_t> dim_range(int64_t start, int64_t n) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(start + i);
  return v;
}

}  // namespace

// index.Tensor(self, indices) with integral indices, any of them (or self) batched.
bool batched_index_rule(const OpEntry&, Stack& stack, int64_t level, int64_t B) {
  const auto idx = masks_as_indices(stack[1].tensor_list());
  const Tensor self = stack[0].tensor();
  if (!idx) return false;
  auto plan = plan_batched_index(self.sizes(), *idx, level, B);
  if (!plan) return false;
  Tensor r = ember::index(physical_or_expanded(self, level, B), plan->indices);
  if (plan->moved_to != plan->moved_from)
    r = ember::movedim(r, dim_range(plan->moved_from, plan->m), dim_range(plan->moved_to, plan->m));
  stack.clear();
  stack.emplace_back(make_batched(r, level));
  return true;
}

namespace {

// index_put_(self, indices, values, accumulate) under vmap: self must be batched (writing
// per-sample values or positions into an unbatched tensor raises vmap's error).
bool batched_index_put_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  check_written_batched(op, stack, level);
  const Tensor self = stack[0].tensor(), values = stack[2].tensor();
  const auto idx = masks_as_indices(stack[1].tensor_list());
  const bool accumulate = stack[3].get<bool>();
  // Unbatched indices take the same path (the batch arange keeps the samples apart), and so do
  // unbatched masks.
  if (!idx) return false;
  auto plan = plan_batched_index(self.sizes(), *idx, level, B);
  if (!plan) return false;
  // values broadcast to the per-sample result shape, then laid out as the physical call's
  // result: [B, broadcast index dims, the other dims].
  const auto rank = static_cast<int64_t>(plan->result.size());
  Tensor v = batched_at(values, level) ? physical_of(values) : values.unsqueeze(0);
  if (values.dim() > rank) return false;  // the op's own error, per sample
  for (int64_t k = values.dim(); k < rank; ++k) v = v.unsqueeze(1);
  DimVector full{B};
  for (int64_t s : plan->result) full.push_back(s);
  v = v.expand(full);
  if (plan->moved_to != plan->moved_from)
    v = ember::movedim(v, dim_range(plan->moved_to, plan->m), dim_range(plan->moved_from, plan->m));
  Tensor p = physical_of(self);
  ember::index_put_(p, plan->indices, v, accumulate);
  stack.resize(1);  // index_put_ returns self
  return true;
}

}  // namespace

// index_select(self, dim, index) with a batched index: self[:, ..., index] per sample, the
// index as a vector (a 0-dim index selects one element along dim, keeping the dim).
bool batched_index_select_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  const Tensor self = stack[0].tensor(), index = stack[2].tensor();
  if (!batched_at(index, level) || index.dim() > 1 || !is_integral_index(index)) return false;
  const int64_t dim = wrap_dim(stack[1].get<int64_t>(), std::max<int64_t>(self.dim(), 1), "index_select");
  if (self.dim() == 0) return false;
  std::vector<Tensor> idx(static_cast<size_t>(dim + 1));
  idx[static_cast<size_t>(dim)] = index.reshape({-1});
  Stack s{IValue(self), IValue(std::move(idx))};
  if (!batched_index_rule(op, s, level, B)) return false;
  stack = std::move(s);
  return true;
}

namespace {

}  // namespace

void register_index_batch_rules() {
  set_rule("index_put_", &batched_index_put_rule);
}

}  // namespace ember::func::detail
