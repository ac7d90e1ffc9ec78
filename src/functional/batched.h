// Internals of vmap shared by the layer (vmap.cpp), the batch rules (batch_rules.cpp) and the
// transforms (transforms.cpp).
#pragma once

#include <optional>
#include <vector>

#include "ember/dispatch.h"
#include "ember/func.h"

namespace ember::func::detail {

struct VmapLevel {
  int64_t level;
  int64_t batch_size;
  Randomness randomness;
};
std::vector<VmapLevel>& vmap_stack();  // this thread's active levels, outermost first

// A batched tensor carries the Vmap key; its physical tensor and level live in a per-thread
// table keyed by its TensorImpl (an entry is replaced when a new batched tensor reuses the
// address, and dropped when its level ends), so that TensorImpl needs no field for vmap.
struct BatchInfo {
  Tensor physical;  // batch dim 0
  int64_t level;
};
const BatchInfo& batch_info(const Tensor& t);  // t must carry the Vmap key
inline bool has_batch(const Tensor& t) { return t.defined() && t.key_set().has(DispatchKey::Vmap); }
inline bool batched_at(const Tensor& t, int64_t level) { return has_batch(t) && batch_info(t).level == level; }
inline const Tensor& physical_of(const Tensor& t) { return batch_info(t).physical; }
// Wraps a physical tensor (batch dim 0) as a batched tensor of `level`.
Tensor make_batched(const Tensor& physical, int64_t level);
// A view of a batched tensor (called by the view ops, src/ops/view.cpp): the same view of its
// physical tensor, behind the batch dim.
Tensor batched_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                    std::optional<ScalarType> dtype);

// Calls op on the stack below the Vmap key of the batched tensors it no longer holds.
void redispatch(const OpEntry& op, Stack& stack);

// f(tensor&) for every tensor argument on the stack, tensor lists' elements included.
template <typename F>
void for_each_tensor(Stack& stack, F&& f) {
  for (IValue& v : stack) {
    if (v.is_tensor()) {
      f(v.tensor());
    } else if (v.is_tensor_list()) {
      for (Tensor& t : v.tensor_list()) f(t);
    }
  }
}

// A batch rule: runs op on the stack, whose tensors of `level` are batched with batch size B;
// returns false to leave the call to the loop fallback (stack untouched).
using BatchRule = bool (*)(const OpEntry& op, Stack& stack, int64_t level, int64_t B);
void register_batch_rules();  // fills the rule table (batch_rules.cpp)
void register_norm_batch_rules();   // normalization (batch_rules_norm.cpp)
void register_index_batch_rules();  // indexing with batched indices (batch_rules_index.cpp)
void register_stats_batch_rules();  // whole-sample statistics, sort-based ops (batch_rules_stats.cpp)
void register_linalg_batch_rules();  // solves with broadcasting operands (batch_rules_linalg.cpp)
void register_gather_batch_rules();  // take, put (batch_rules_gather.cpp)
void register_spatial_batch_rules();  // grid sampling, im2col / col2im, antialiased resampling
void register_dynamic_batch_rules();  // ops whose result shape depends on the values
void register_out_batch_rules();  // in-place products, out= forms (batch_rules_out.cpp)
// Sets op's rule and serves op at the Vmap key (so that the rule wins over a composite).
void set_batch_rule(const OpEntry& op, BatchRule rule);
// The same by op name; nothing when no op has that name.
void set_rule(const char* name, BatchRule rule);
// The Vmap key's kernel (rules, pointwise, loop fallback).
void vmap_layer_kernel(const OpEntry& op, DispatchKeySet ks, Stack& stack);
// The generic rules, for use by specific ones.
bool pointwise_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B);
bool passthrough_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B);
bool leading_dims_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B);
// t's physical tensor at `level` (batch dim 0), or t expanded over a new batch dim of size B
// (stride 0, no copy).
Tensor physical_or_expanded(const Tensor& t, int64_t level, int64_t B);
// A sample as one row of the physical [B, numel] (an unbatched tensor expanded).
Tensor sample_rows(const Tensor& t, int64_t level, int64_t B);
// The batch folded into the channels, for per-sample batch norm and convolution
// (batch_rules_norm.cpp): a physical [B, N, C, *] as [N, B*C, *] (a copy when the layout
// needs one), and back from [N, B*C, *] to [B, N, C, *].
Tensor fold_channels(const Tensor& phys);
Tensor unfold_channels(const Tensor& y, int64_t B);
// Advanced indexing with batched indices (batch_rules_index.cpp): index.Tensor with integral
// indices, and index_select with a batched index.
bool batched_index_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B);
bool batched_index_select_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B);
// gather / scatter / take_along_dim / cat where the samples' ranks differ (batch_rules_gather.cpp):
// 0-dim samples among 1-dim ones, cat's legacy empty tensors, take_along_dim without a dim.
// False when the case is not theirs.
bool scalar_operands_rule(const OpEntry& op, Stack& stack, int64_t level);
bool cat_legacy_empty_rule(const OpEntry& op, Stack& stack, int64_t level);
bool take_along_flat_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B);
bool cross_default_dim_rule(const OpEntry& op, Stack& stack, int64_t level);
// Replaces the stack's results by batched tensors of `level`.
void wrap_results(Stack& stack, int64_t level);
// Raises vmap's error for an in-place write of a batched value into an unbatched tensor.
[[noreturn]] void fail_inplace(const OpEntry& op);
void check_written_batched(const OpEntry& op, const Stack& stack, int64_t level);

}  // namespace ember::func::detail
