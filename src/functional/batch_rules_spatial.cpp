// Batch rules for the spatial ops whose operands all lead with N: grid_sampler_2d / _3d and
// their backward ops, im2col / col2im (unfold / fold), and antialiased resampling
// (_upsample_bilinear2d_aa, _upsample_bicubic2d_aa and their backward ops). The batch folds
// into N: physical [B, N, ...] operands become [B*N, ...] (an unbatched operand is expanded
// over the batch first), and each result [B*N, ...] is viewed back as [B, N, ...].
#include "ember/ops.h"
#include "functional/batched.h"

namespace ember::func::detail {

namespace {

// NOps: the leading tensor arguments, all of rank Rank per sample. NoN: whether the op also
// takes samples without N (rank Rank - 1), which the physical batch then serves as N (one
// operand only). SizeAt: an int[] argument whose first entry is N (the backward's input_size),
// or -1.
template <int NOps, int Rank, bool NoN, int SizeAt>
bool fold_n_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  const Tensor first = stack[0].tensor();
  const bool has_n = first.dim() == Rank;
  if (!has_n && !(NoN && NOps == 1 && first.dim() == Rank - 1)) return false;  // the op's error, per sample
  Stack s = stack;
  for (size_t i = 0; i < NOps; ++i) {
    if (!stack[i].is_tensor() || !stack[i].tensor().defined()) continue;
    const Tensor t = stack[i].tensor();
    if (t.dim() != first.dim() || (has_n && t.size(0) != first.size(0))) return false;
    const Tensor p = physical_or_expanded(t, level, B);
    s[i] = IValue(has_n ? p.flatten(0, 1) : p);
  }
  if (SizeAt >= 0) {
    std::vector<int64_t> sizes = stack[SizeAt].template get<std::vector<int64_t>>();
    if (sizes.size() != static_cast<size_t>(Rank)) return false;
    sizes[0] *= B;
    s[SizeAt] = IValue(std::move(sizes));
  }
  redispatch(op, s);
  for (IValue& v : s) {
    if (!v.is_tensor() || !v.tensor().defined()) continue;
    Tensor r = v.tensor();
    if (has_n) {
      DimVector sz{B, r.size(0) / B};
      for (int64_t d = 1; d < r.dim(); ++d) sz.push_back(r.size(d));
      r = r.view(sz);
    }
    v = IValue(make_batched(r, level));
  }
  stack = std::move(s);
  return true;
}

}  // namespace

void register_spatial_batch_rules() {
  set_rule("grid_sampler_2d", &fold_n_rule<2, 4, false, -1>);
  set_rule("grid_sampler_3d", &fold_n_rule<2, 5, false, -1>);
  set_rule("grid_sampler_2d_backward", &fold_n_rule<3, 4, false, -1>);
  set_rule("grid_sampler_3d_backward", &fold_n_rule<3, 5, false, -1>);
  set_rule("im2col", &fold_n_rule<1, 4, true, -1>);
  set_rule("col2im", &fold_n_rule<1, 3, true, -1>);
  for (const char* n : {"_upsample_bilinear2d_aa", "_upsample_bicubic2d_aa"})
    set_rule(n, &fold_n_rule<1, 4, false, -1>);
  for (const char* n : {"_upsample_bilinear2d_aa_backward", "_upsample_bicubic2d_aa_backward"})
    set_rule(n, &fold_n_rule<1, 4, false, 2>);
}

}  // namespace ember::func::detail
