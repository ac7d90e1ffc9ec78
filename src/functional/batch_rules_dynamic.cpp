// Batch rules for ops whose result shape depends on the values (nonzero, unique, masked_select,
// bincount, repeat_interleave of a repeats tensor). As in functorch, vmap raises for the ones
// whose samples would give results of different shapes, with an error that says why, instead
// of looping; where the shape is fixed per sample (masked_select with an unbatched mask) or
// turns out equal for every sample (bincount, repeat_interleave), one call serves the batch.
#include "ember/ops.h"
#include "functional/batched.h"

namespace ember::func::detail {

namespace {

[[noreturn]] void fail_dynamic(const OpEntry& op) {
  EMBER_FAIL(RuntimeError, "vmap: We do not support batching operators that can output dynamic shape. Attempted to "
             "vmap over aten::", op.schema().name, ". Please voice your support in "
             "https://github.com/pytorch/functorch/issues/256");
}

bool dynamic_rule(const OpEntry& op, Stack&, int64_t, int64_t) { fail_dynamic(op); }

// masked_select(self, mask): a batched mask selects a different number of elements per sample
// (functorch's error). With an unbatched mask every sample selects the same positions of
// self broadcast against the mask.
bool masked_select_rule(const OpEntry&, Stack& stack, int64_t level, int64_t B) {
  const Tensor self = stack[0].tensor(), mask = stack[1].tensor();
  EMBER_CHECK(!batched_at(mask, level), RuntimeError, "vmap: Attempted to vmap over `mask` in "
              "torch.masked_select(self, mask) We cannot support this because for each batch this would return a "
              "differently shaped Tensor. Please voice your support in "
              "https://github.com/pytorch/functorch/issues/256");
  if (mask.dtype() != kBool) return false;  // the op's error, per sample
  DimVector shape;
  try {
    shape = broadcast_shapes(self.sizes(), mask.sizes());
  } catch (const std::exception&) {
    return false;  // the op's error, per sample
  }
  Tensor p = physical_of(self);
  for (int64_t k = self.dim(); k < static_cast<int64_t>(shape.size()); ++k) p = p.unsqueeze(1);
  DimVector full{B};
  for (int64_t x : shape) full.push_back(x);
  const Tensor m = mask.expand(shape);
  Tensor r = ember::masked_select(p.expand(full), m.unsqueeze(0).expand(full));
  stack.clear();
  stack.emplace_back(make_batched(r.view({B, -1}), level));
  return true;
}

// The largest value of each row of rows (physical [B, n]), or nullopt for empty rows.
std::vector<int64_t> row_max(const Tensor& rows) {
  std::vector<int64_t> out;
  if (rows.size(1) == 0) return out;
  const Tensor m = ember::amax(rows, {1}).to(kInt64).contiguous();
  const int64_t* p = m.data_ptr<int64_t>();
  out.assign(p, p + m.numel());
  return out;
}

// bincount(self, weights, minlength): each sample counts into its own block of L bins, L =
// max(minlength, largest value + 1); samples needing different L raise the dynamic-shape error.
bool bincount_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  const Tensor self = stack[0].tensor();
  const std::optional<Tensor> weights =
      stack[1].is_none() || !stack[1].tensor().defined() ? std::nullopt : std::optional<Tensor>(stack[1].tensor());
  const int64_t minlength = stack[2].get<int64_t>();
  if (self.dim() != 1 || minlength < 0 || (self.dtype() != kInt64 && self.dtype() != kInt32)) return false;
  if (weights && !weights->sizes().equals(self.sizes())) return false;  // the op's errors, per sample
  const Tensor rows = physical_or_expanded(self, level, B);
  if (has_batch(rows) || (weights && has_batch(physical_or_expanded(*weights, level, B)))) return false;
  if (rows.numel() > 0 && ember::amin(rows).item().to_int() < 0) return false;
  int64_t L = minlength;
  const std::vector<int64_t> maxes = row_max(rows);
  for (size_t b = 0; b < maxes.size(); ++b) {
    const int64_t need = std::max(minlength, maxes[b] + 1);
    if (b == 0) L = need;
    if (need != L) fail_dynamic(op);
  }
  std::optional<Tensor> w;
  if (weights) w = physical_or_expanded(*weights, level, B).reshape({-1});
  // Every sample empty without a minlength: no bins, in the op's result type.
  const Tensor flat =
      L == 0 ? rows.reshape({-1})
             : ember::add(rows, ember::arange(0, B * L, L, TensorOptions(rows.dtype())).view({B, 1})).reshape({-1});
  Tensor r = ember::bincount(flat, w, B * L).view({B, L});
  stack.clear();
  stack.emplace_back(make_batched(r, level));
  return true;
}

// repeat_interleave(repeats, output_size): i repeated repeats[i] times per sample. One call over
// the flattened repeats gives every sample's run in turn, each index offset by the sample's
// place; samples with different totals raise the dynamic-shape error.
bool repeat_index_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  const Tensor repeats = stack[0].tensor();
  if (repeats.dim() != 1 || repeats.dtype() != kInt64) return false;
  const Tensor rows = physical_of(repeats);
  if (has_batch(rows) || (rows.numel() > 0 && ember::amin(rows).item().to_int() < 0)) return false;
  const int64_t n = repeats.size(0);
  const Tensor totals = ember::sum(rows, {1}).contiguous();
  const int64_t* t = totals.data_ptr<int64_t>();
  const int64_t T = B > 0 ? t[0] : 0;
  for (int64_t b = 1; b < B; ++b)
    if (t[b] != T) fail_dynamic(op);
  if (!stack[1].is_none() && stack[1].get<int64_t>() != T) return false;  // the op's error, per sample
  Tensor r = ember::repeat_interleave(rows.reshape({-1}), std::optional<int64_t>(B * T));
  if (n > 0) r = ember::sub(r, ember::mul(ember::div(r, Scalar(n), "floor"), Scalar(n)));
  stack.clear();
  stack.emplace_back(make_batched(r.view({B, T}), level));
  return true;
}

}  // namespace

void register_dynamic_batch_rules() {
  for (const char* n : {"nonzero", "argwhere", "_unique", "_unique2", "unique_dim", "unique_consecutive"})
    set_rule(n, &dynamic_rule);
  set_rule("masked_select", &masked_select_rule);
  set_rule("bincount", &bincount_rule);
  set_rule("repeat_interleave.Tensor", &repeat_index_rule);
}

}  // namespace ember::func::detail
