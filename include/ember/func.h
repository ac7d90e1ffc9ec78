// Composable function transforms, as torch.func (functorch): vmap, grad, grad_and_value, vjp,
// jacrev, hessian.
//
// vmap runs a function written for one sample on a batch. A batched tensor is a TensorImpl
// holding the per-sample (logical) geometry over the storage of its physical tensor, whose
// dim 0 is the batch dim, tagged with its vmap level and the Vmap dispatch key. Ops on it
// reach the Vmap dispatch key, whose kernel peels the innermost level off and runs a batch
// rule on the physical tensors, or a loop over the samples (src/functional/).
//
// Autograd runs on physical tensors: grad and vjp inside vmap differentiate the physical
// inputs (expanded over the batch when unbatched), so each sample gets its own gradient.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/tensor.h"

namespace ember::func {

// What random ops do inside vmap: raise, draw per sample, or draw once for the whole batch.
enum class Randomness { Error, Different, Same };
Randomness parse_randomness(std::string_view s);  // "error" | "different" | "same"

// ---- the pieces vmap is made of (Python's vmap composes them with its pytrees)
// Enters a vmap level of this batch size; returns the level (1 for the outermost).
int64_t vmap_increment_nesting(int64_t batch_size, Randomness randomness = Randomness::Error);
void vmap_decrement_nesting();
// The innermost active level (0 outside vmap) and its batch size.
int64_t current_vmap_level();
int64_t vmap_batch_size(int64_t level);
// t as a batched tensor of `level`, batched along t's dim in_dim.
Tensor add_batch_dim(const Tensor& t, int64_t in_dim, int64_t level);
// The batched tensor's physical value with the batch dim moved to out_dim; an unbatched t is
// expanded to batch_size along out_dim.
Tensor remove_batch_dim(const Tensor& t, int64_t level, int64_t batch_size, int64_t out_dim);
bool is_batched(const Tensor& t);
int64_t batch_level(const Tensor& t);  // 0 when not batched
// make(physical) batched like t (the *_like factories: inside vmap, the new tensor is batched
// like the one it is made like, so that random fills and in-place writes stay per sample).
Tensor like_batched(const Tensor& t, const std::function<Tensor(const Tensor&)>& make);
// Raises functorch's error for reading a batched tensor's values (item, bool, tolist).
void check_not_batched(const Tensor& t, std::string_view what);
// Where the fallback's one-time "no batching rule" performance warning goes (stderr by default).
void set_vmap_warning_handler(std::function<void(const std::string&)> handler);
// How the Vmap layer serves each defined op, by full name: "rule" (a batch rule, which may
// still hand some argument combinations to the loop), "random" (the randomness policy),
// "composite" (decomposes into ops that are batched one by one), "pointwise" (the generic
// pointwise rule) or "loop" (the per-sample loop fallback). For inventories and tests.
std::vector<std::pair<std::string, std::string>> vmap_op_coverage();
// The ops the loop fallback has run in this process (full names), with how many times.
std::vector<std::pair<std::string, int64_t>> vmap_fallback_counts();

// ---- the pieces of grad and vjp inside vmap. Autograd runs on physical ("plain") tensors:
// `levels` are vmap levels (ascending) whose batch dims become leading dims of the plain tensor.
// The active levels, ascending.
std::vector<int64_t> active_vmap_levels();
// t with the batch dims of `levels` moved into its value: logical sizes [B_l for l in levels] +
// t.sizes() (expanded where t is not batched at l); t's other (newer) levels stay batched.
Tensor lift_levels(const Tensor& t, const std::vector<int64_t>& levels);
// The inverse: the leading dims of t's value become batch dims of `levels` again.
Tensor lower_levels(const Tensor& t, const std::vector<int64_t>& levels);
// A tensor on the same data outside every graph, keeping its batch levels.
Tensor detach_batched(const Tensor& t);
// Whether t, or the physical tensor under its batch levels, requires grad.
bool requires_grad_batched(const Tensor& t);

// ---- transforms of functions of a list of tensors
using Fn = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

// in_dims: one per input (nullopt: not batched; empty vector: 0 for all); out_dims: one per
// output (empty: 0 for all). chunk_size runs the batch in chunks of that many samples.
Fn vmap(Fn f, std::vector<std::optional<int64_t>> in_dims = {}, std::vector<int64_t> out_dims = {},
        Randomness randomness = Randomness::Error, std::optional<int64_t> chunk_size = std::nullopt);
// f returns {scalar output, aux...}; the result is the gradients for argnums, then (has_aux) aux.
Fn grad(Fn f, std::vector<int64_t> argnums = {0}, bool has_aux = false);
// As grad, with the output value (then aux) after the gradients.
Fn grad_and_value(Fn f, std::vector<int64_t> argnums = {0}, bool has_aux = false);

struct VjpResult {
  std::vector<Tensor> outputs;
  Fn vjp_fn;  // cotangents (one per output) -> one gradient per primal
  std::vector<Tensor> aux;
};
// f returns its outputs (with has_aux, the last one is aux).
VjpResult vjp(Fn f, const std::vector<Tensor>& primals, bool has_aux = false);
// Jacobian of every output with respect to every argnum, output-major: block i * nargs + j has
// shape output_i.sizes() + input_j.sizes(). Rows come from one vmap over the vjp.
Fn jacrev(Fn f, std::vector<int64_t> argnums = {0});
// jacrev of jacrev: f returns one tensor; block j * nargs + k = d2 f / d arg_j d arg_k.
Fn hessian(Fn f, std::vector<int64_t> argnums = {0});

}  // namespace ember::func
