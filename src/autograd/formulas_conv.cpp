// Derivative formulas of convolution, pooling, padding and fold/unfold (src/ops/conv.cpp,
// pool.cpp, pad_fold.cpp).
//
// A convolution y = F(x, w) (+ bias) is bilinear; convolution_backward computes the
// transposed maps B_x(g, w) and B_w(g, x) of its two partial maps. With complex operands the
// gradients are B_x(g, conj w) and B_w(g, conj x). convolution_backward is itself bilinear in
// (g, w) and (g, x), so its derivative is written with F and B again:
//   d/dg: F(ggI, conj w) + F(conj x, ggW) + ggb,  d/dw: B_w(conj g, ggI),  d/dx: B_x(conj g, ggW),
// which differentiates again to any order.
#include "autograd/formula_util.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ember/ops/nn_conv.h"

// A named namespace: library sources are compiled in unity batches.
namespace ember::autograd::conv_formulas {
namespace {

using namespace formula;

// The convolution parameters as read from a forward or backward call, starting at `first`
// (stride, padding, dilation, transposed, output_padding, groups).
struct ConvArgs {
  std::vector<int64_t> stride, padding, dilation, output_padding;
  bool transposed;
  int64_t groups;
  ConvArgs(const BackwardContext& c, size_t first)
      : stride(c.int_list(first)), padding(c.int_list(first + 1)), dilation(c.int_list(first + 2)),
        output_padding(c.int_list(first + 4)), transposed(c.bool_arg(first + 3)), groups(c.int_arg(first + 5)) {}
  Tensor forward(const Tensor& x, const Tensor& w) const {
    return convolution(x, w, std::nullopt, stride, padding, dilation, transposed, output_padding, groups);
  }
  std::tuple<Tensor, Tensor, Tensor> backward(const Tensor& g, const Tensor& x, const Tensor& w,
                                              IntArrayRef bias_sizes, bool gi, bool gw, bool gb) const {
    const int64_t mask[3] = {gi, gw, gb};
    return convolution_backward(g, x, w, bias_sizes, stride, padding, dilation, transposed, output_padding, groups,
                                IntArrayRef(mask, 3));
  }
};

// The bias's gradient broadcast back over y's shape (channel dim 1).
Tensor bias_view(const Tensor& gb, int64_t dim) {
  DimVector s(static_cast<size_t>(dim), 1);
  s[1] = -1;
  return gb.view(s);
}

// Max pooling: each output's gradient goes to the input element its index names within its
// plane (the last `sd` dims of the input form a plane).
Tensor scatter_to_planes(const Tensor& g, const Tensor& indices, IntArrayRef input_sizes, int64_t sd) {
  const int64_t dim = static_cast<int64_t>(input_sizes.size());
  int64_t planes = 1, plane = 1;
  for (int64_t d = 0; d < dim; ++d) (d < dim - sd ? planes : plane) *= input_sizes[d];
  int64_t out_plane = 1;
  for (int64_t d = indices.dim() - sd; d < indices.dim(); ++d) out_plane *= indices.size(d);
  Tensor z = zeros({planes, plane}, g.dtype());
  return scatter_add(z, 1, indices.reshape({planes, out_plane}), g.reshape({planes, out_plane})).view(input_sizes);
}

// The trailing dims an adaptive pooling backward maps (leading ones of equal size map 1:1).
std::vector<int64_t> trailing_sizes(const Tensor& t) {
  const int64_t sd = std::min<int64_t>(3, t.dim() - 1);
  return std::vector<int64_t>(t.sizes().begin() + (t.dim() - sd), t.sizes().end());
}

EMBER_REGISTER(autograd_formulas_conv) {
  // convolution(input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups)
  define("convolution", {0, 1}, false, [](const BackwardContext& c, const Grads& g) {
    const ConvArgs a(c, 3);
    Grads r(c.num_slots());
    const bool has_bias = !c.is_none(2);
    const bool nb = has_bias && c.num_slots() > 2 && c.needs_grad(2);
    if (!c.needs_grad(0) && !c.needs_grad(1) && !nb) return r;
    const Tensor& x = c.tensor(0);
    const Tensor& w = c.tensor(1);
    DimVector bias_sizes;
    if (has_bias) bias_sizes.push_back(c.input_sizes(2)[0]);
    auto [gi, gw, gb] = a.backward(g[0], cj(x), cj(w), bias_sizes, c.needs_grad(0), c.needs_grad(1), nb);
    r[0] = gi;
    r[1] = gw;
    if (nb) r[2] = gb;
    return r;
  });
  // convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
  // transposed, output_padding, groups, output_mask) -> (grad_input, grad_weight, grad_bias)
  define("convolution_backward", {0, 1, 2}, false, [](const BackwardContext& c, const Grads& gg) {
    const ConvArgs a(c, 4);
    const std::vector<int64_t> mask = c.int_list(10);
    const Tensor& g = c.tensor(0);
    const Tensor& x = c.tensor(1);
    const Tensor& w = c.tensor(2);
    // Results that were not computed (empty placeholders) pass no gradient on.
    auto used = [&](size_t k) { return mask[k] != 0 && gg[k].defined(); };
    Grads r(3);
    if (c.needs_grad(0)) {
      Tensor acc;
      auto add_to = [&](const Tensor& t) { acc = acc.defined() ? acc + t : t; };
      if (used(0)) add_to(a.forward(gg[0], cj(w)));
      if (used(1)) add_to(a.forward(cj(x), gg[1]));
      if (used(2)) add_to(bias_view(gg[2], g.dim()).expand(g.sizes()));
      r[0] = acc.defined() ? acc : zeros(g.sizes(), g.dtype());
    }
    if (c.needs_grad(1) && used(1)) r[1] = std::get<0>(a.backward(cj(g), x, gg[1], {}, true, false, false));
    if (c.needs_grad(2) && used(0)) r[2] = std::get<1>(a.backward(cj(g), gg[0], w, {}, false, true, false));
    return r;
  });

  // ---- pooling
  // _max_pool(self, kernel_size, stride, padding, dilation, ceil_mode, return_indices)
  define("_max_pool", {}, true, [](const BackwardContext& c, const Grads& g) {
    const int64_t sd = static_cast<int64_t>(c.int_list(1).size());
    return Grads{scatter_to_planes(g[0], c.result(1), c.input_sizes(0), sd)};
  });
  define("_adaptive_max_pool", {}, true, [](const BackwardContext& c, const Grads& g) {
    const int64_t sd = static_cast<int64_t>(c.int_list(1).size());
    return Grads{scatter_to_planes(g[0], c.result(1), c.input_sizes(0), sd)};
  });
  // _avg_pool(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override):
  // linear; its gradient op's gradient is the pooling again.
  define("_avg_pool", {0}, false, [](const BackwardContext& c, const Grads& g) {
    static const TypedOp<Tensor(const Tensor&, const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, bool, bool,
                                std::optional<int64_t>)>
        op("_avg_pool_backward");
    const std::optional<int64_t> div = c.is_none(6) ? std::nullopt : std::optional<int64_t>(c.int_arg(6));
    return Grads{op.call(g[0], c.tensor(0), c.int_list(1), c.int_list(2), c.int_list(3), c.bool_arg(4),
                         c.bool_arg(5), div)};
  });
  define("_avg_pool_backward", {}, false, [](const BackwardContext& c, const Grads& g) {
    static const TypedOp<Tensor(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, bool, bool,
                                std::optional<int64_t>)>
        op("_avg_pool");
    const std::optional<int64_t> div = c.is_none(7) ? std::nullopt : std::optional<int64_t>(c.int_arg(7));
    Grads r(2);
    if (c.needs_grad(0))
      r[0] = op.call(g[0], c.int_list(2), c.int_list(3), c.int_list(4), c.bool_arg(5), c.bool_arg(6), div);
    return r;
  });
  define("_adaptive_avg_pool", {0}, false, [](const BackwardContext& c, const Grads& g) {
    static const TypedOp<Tensor(const Tensor&, const Tensor&)> op("_adaptive_avg_pool_backward");
    return Grads{op.call(g[0], c.tensor(0))};
  });
  define("_adaptive_avg_pool_backward", {0}, false, [](const BackwardContext& c, const Grads& g) {
    static const TypedOp<Tensor(const Tensor&, IntArrayRef)> op("_adaptive_avg_pool");
    Grads r(2);
    if (c.needs_grad(0)) r[0] = op.call(g[0], trailing_sizes(c.tensor(0)));
    return r;
  });

  // constant_pad_nd(self, pad, value): the gradient is the same padding undone (cropped).
  define("constant_pad_nd", {}, false, [](const BackwardContext& c, const Grads& g) {
    std::vector<int64_t> back = c.int_list(1);
    for (int64_t& p : back) p = -p;
    return Grads{constant_pad_nd(g[0], back, 0)};
  });
  // im2col(self, kernel_size, dilation, padding, stride) and col2im(self, output_size, ...)
  // are adjoint linear maps: each one's gradient is the other.
  define("im2col", {}, false, [](const BackwardContext& c, const Grads& g) {
    static const TypedOp<Tensor(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef)> op(
        "col2im");
    IntArrayRef s = c.input_sizes(0);
    const std::vector<int64_t> out{s[s.size() - 2], s[s.size() - 1]};
    return Grads{op.call(g[0], out, c.int_list(1), c.int_list(2), c.int_list(3), c.int_list(4))};
  });
  define("col2im", {}, false, [](const BackwardContext& c, const Grads& g) {
    static const TypedOp<Tensor(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef)> op("im2col");
    return Grads{op.call(g[0], c.int_list(2), c.int_list(3), c.int_list(4), c.int_list(5))};
  });
}

}  // namespace
}  // namespace ember::autograd::conv_formulas
