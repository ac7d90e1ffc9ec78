// Derivatives of the resampling ops (src/ops/upsample.cpp, upsample_aa.cpp, grid_sample.cpp).
//
// _upsample and _upsample_backward are adjoint linear maps: each one's gradient is the other,
// so interpolation differentiates to any order. grid_sampler_2d/3d take their gradients from
// the fused backward op; when those must differentiate again (create_graph), they come from
// the same sampling written with differentiable ops (_grid_sampler_differentiable) instead,
// through a nested backward pass whose graph joins the outer one.
#include "autograd/formula_util.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ember/ops/nn_sample.h"

// A named namespace: library sources are compiled in unity batches.
namespace ember::autograd::sample_formulas {
namespace {

using namespace formula;
using OptD = std::optional<double>;
using UpSig = Tensor(const Tensor&, IntArrayRef, int64_t, bool, OptD, OptD, OptD);
using AaFwdSig = Tensor(const Tensor&, IntArrayRef, bool, OptD, OptD);
using AaBwdSig = Tensor(const Tensor&, IntArrayRef, IntArrayRef, bool, OptD, OptD);

OptD opt_scale(const BackwardContext& c, size_t arg) {
  return c.is_none(arg) ? std::nullopt : OptD(c.scalar(arg).to<double>());
}

// grid_sampler_{2,3}d(input, grid, interpolation_mode, padding_mode, align_corners)
Grads grid_sampler_grads(const BackwardContext& c, const Grads& g) {
  Grads r(2);
  const bool gi = c.needs_grad(0), gg = c.needs_grad(1);
  if (!gi && !gg) return r;
  const Tensor& x = c.tensor(0);
  const Tensor& grid = c.tensor(1);
  const int64_t mode = c.int_arg(2), pad = c.int_arg(3);
  const bool ac = c.bool_arg(4);
  if (!GradMode::is_enabled()) {
    const int64_t mask[2] = {gi, gg};
    auto [dx, dgrid] = grid_sampler_backward(g[0], x, grid, mode, pad, ac, IntArrayRef(mask, 2));
    if (gi) r[0] = dx;
    if (gg) r[1] = dgrid;
    return r;
  }
  // create_graph: differentiate the sampling written with differentiable ops. The inputs are
  // used as they are, so the gradients' graph reaches their histories.
  static const TypedOp<Tensor(const Tensor&, const Tensor&, int64_t, int64_t, bool)> op(
      "_grid_sampler_differentiable");
  const Tensor y = op.call(x, grid, mode, pad, ac);
  std::vector<Tensor> inputs;
  if (gi) inputs.push_back(x);
  if (gg) inputs.push_back(grid);
  std::vector<Tensor> d = grad({y}, inputs, {g[0]}, true, true, true);
  size_t k = 0;
  for (size_t slot = 0; slot < 2; ++slot) {
    if (!c.needs_grad(slot)) continue;
    r[slot] = d[k].defined() ? d[k] : zeros_like(slot == 0 ? x : grid);
    ++k;
  }
  return r;
}

// _upsample_{bilinear,bicubic}2d_aa and their backward ops, adjoint linear maps too, so each
// one's gradient is the other.
template <bool Cubic>
void define_aa() {
  static const std::string fwd = Cubic ? "_upsample_bicubic2d_aa" : "_upsample_bilinear2d_aa",
                           bwd = fwd + "_backward";
  // fwd(self, output_size, align_corners, scales_h, scales_w)
  define(fwd, {}, false, [](const BackwardContext& c, const Grads& g) {
    static const TypedOp<AaBwdSig> op(bwd);
    return Grads{op.call(g[0], c.int_list(1), c.input_sizes(0), c.bool_arg(2), opt_scale(c, 3), opt_scale(c, 4))};
  });
  // bwd(grad_output, output_size, input_size, align_corners, scales_h, scales_w)
  define(bwd, {}, false, [](const BackwardContext& c, const Grads& g) {
    static const TypedOp<AaFwdSig> op(fwd);
    return Grads{op.call(g[0], c.int_list(1), c.bool_arg(3), opt_scale(c, 4), opt_scale(c, 5))};
  });
}

}  // namespace

EMBER_REGISTER(autograd_formulas_sample) {
  // _upsample(self, output_size, mode, align_corners, scales_d, scales_h, scales_w)
  define("_upsample", {}, false, [](const BackwardContext& c, const Grads& g) {
    static const TypedOp<UpSig> op("_upsample_backward");
    return Grads{op.call(g[0], c.input_sizes(0), c.int_arg(2), c.bool_arg(3), opt_scale(c, 4), opt_scale(c, 5),
                         opt_scale(c, 6))};
  });
  // _upsample_backward(grad_output, input_size, mode, align_corners, scales...): the output
  // size is the gradient's spatial size.
  define("_upsample_backward", {}, false, [](const BackwardContext& c, const Grads& g) {
    static const TypedOp<UpSig> op("_upsample");
    IntArrayRef gs = c.input_sizes(0);
    const std::vector<int64_t> out(gs.begin() + 2, gs.end());
    return Grads{op.call(g[0], out, c.int_arg(2), c.bool_arg(3), opt_scale(c, 4), opt_scale(c, 5), opt_scale(c, 6))};
  });
  define_aa<false>();
  define_aa<true>();
  define("grid_sampler_2d", {0, 1}, false, grid_sampler_grads);
  define("grid_sampler_3d", {0, 1}, false, grid_sampler_grads);
}

}  // namespace ember::autograd::sample_formulas
