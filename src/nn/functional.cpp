// torch.nn.functional's composites for C++ (include/ember/nn/functional.h).
#include "ember/nn/functional.h"

#include <cmath>
#include <vector>

#include "ember/autograd.h"

namespace ember::nn::functional {

namespace {

Tensor reduce(const Tensor& loss, int64_t reduction) {
  if (reduction == Reduction::Mean) return mean(loss);
  if (reduction == Reduction::Sum) return sum(loss);
  return loss;
}

// The window sums of x^p, clamped at 0 where negative, to the power 1/p.
Tensor lp_finish(const Tensor& avg, int64_t window, double norm_type) {
  return pow(mul(mul(sign(avg), relu(abs(avg))), Scalar(window)), 1.0 / norm_type);
}

}  // namespace

Tensor softmin(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax(neg(input), dim, dtype);
}

Tensor normalize(const Tensor& input, double p, int64_t dim, double eps) {
  return div(input, clamp_min(norm(input, Scalar(p), std::vector<int64_t>{dim}, true), eps));
}

Tensor local_response_norm(const Tensor& input, int64_t size, double alpha, double beta, double k) {
  EMBER_CHECK(input.dim() >= 3, ValueError, "Expected 3D or higher dimensionality input (got ", input.dim(),
              " dimensions)");
  if (input.numel() == 0) return input;
  // The mean of the squares over a window of channels, zero-padded: an average pool along
  // the channel dim of x^2 with a unit dim in front (as PyTorch computes it).
  Tensor d = mul(input, input).unsqueeze(1);
  if (input.dim() == 3) {
    d = constant_pad_nd(d, {0, 0, size / 2, (size - 1) / 2});
    d = avg_pool2d(d, {size, 1}, {1}).squeeze(1);
  } else {
    d = d.reshape({input.size(0), 1, input.size(1), input.size(2), -1});
    d = constant_pad_nd(d, {0, 0, 0, 0, size / 2, (size - 1) / 2});
    d = avg_pool3d(d, {size, 1, 1}, {1}).squeeze(1).reshape(input.sizes());
  }
  return div(input, pow(add(mul(d, Scalar(alpha)), Scalar(k)), beta));
}

Tensor lp_pool1d(const Tensor& input, double norm_type, int64_t kernel_size, std::optional<int64_t> stride,
                 bool ceil_mode) {
  const Tensor avg = avg_pool1d(pow(input, norm_type), {kernel_size}, {stride.value_or(kernel_size)}, {0}, ceil_mode);
  return lp_finish(avg, kernel_size, norm_type);
}

Tensor lp_pool2d(const Tensor& input, double norm_type, IntArrayRef kernel_size, IntArrayRef stride, bool ceil_mode) {
  EMBER_CHECK(kernel_size.size() == 1 || kernel_size.size() == 2, ValueError,
              "lp_pool2d: kernel_size must be one or two values, got ", kernel_size);
  const std::vector<int64_t> k = kernel_size.size() == 1 ? std::vector<int64_t>{kernel_size[0], kernel_size[0]}
                                                         : std::vector<int64_t>(kernel_size.begin(), kernel_size.end());
  const std::vector<int64_t> s = stride.empty() ? k : std::vector<int64_t>(stride.begin(), stride.end());
  const Tensor avg = avg_pool2d(pow(input, norm_type), k, s, {0}, ceil_mode);
  return lp_finish(avg, k[0] * k[1], norm_type);
}

Tensor instance_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                     const Tensor& bias, bool use_input_stats, double momentum, double eps) {
  EMBER_CHECK(input.dim() >= 2, ValueError, "instance_norm: expected an input of 2 or more dims (N, C, *), got shape ",
              input.sizes());
  if (use_input_stats) {
    int64_t spatial = 1;
    for (int64_t d = 2; d < input.dim(); ++d) spatial *= input.size(d);
    EMBER_CHECK(spatial > 1, ValueError, "Expected more than 1 spatial element when training, got input size ",
                input.sizes());
  }
  const int64_t n = input.size(0), c = input.size(1);
  // Batch norm of one sample with n * c channels; the statistics repeated per sample.
  auto rep = [&](const Tensor& t) { return t.defined() ? std::optional<Tensor>(repeat(t, {n})) : std::nullopt; };
  const std::optional<Tensor> rm = rep(running_mean), rv = rep(running_var);
  DimVector shape{1, n * c};
  for (int64_t d = 2; d < input.dim(); ++d) shape.push_back(input.size(d));
  const Tensor y = batch_norm(input.reshape(shape), rep(weight), rep(bias), rm, rv, use_input_stats, momentum, eps);
  if (use_input_stats && rm) {
    autograd::NoGradGuard no_grad;
    Tensor mean_out = running_mean, var_out = running_var;
    mean_out.copy_(rm->view({n, c}).mean({0}));
    var_out.copy_(rv->view({n, c}).mean({0}));
  }
  return y.view(input.sizes());
}

Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var, bool full, double eps,
                         int64_t reduction) {
  Tensor v = var;
  if (var.sizes() != input.sizes()) {
    const IntArrayRef in = input.sizes(), vs = var.sizes();
    const bool one_less = input.dim() >= 1 && vs == in.slice(0, in.size() - 1);
    const bool last_one = input.dim() >= 1 && var.dim() == input.dim() && var.size(-1) == 1 &&
                          vs.slice(0, vs.size() - 1) == in.slice(0, in.size() - 1);
    EMBER_CHECK(one_less || last_one, ValueError, "var is of incorrect size");
    if (one_less) v = var.unsqueeze(-1);
  }
  EMBER_CHECK(reduction == Reduction::None || reduction == Reduction::Mean || reduction == Reduction::Sum, ValueError,
              reduction, " is not a valid value for reduction");
  EMBER_CHECK(!any(lt(var, Scalar(0))).item<bool>(), ValueError, "var has negative entry/entries");
  // Clamped for stability without changing var's gradient (PyTorch clamps a clone in place,
  // untracked): v plus a constant correction.
  const Tensor vd = v.detach();
  v = add(v, sub(clamp_min(vd, Scalar(eps)), vd));
  Tensor loss = mul(add(log(v), div(pow(sub(input, target), 2.0), v)), Scalar(0.5));
  if (full) loss = add(loss, Scalar(0.5 * std::log(2 * M_PI)));
  return reduce(loss, reduction);
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                                   int64_t reduction) {
  Tensor loss = neg(add(mul(target, log_sigmoid(input)), mul(add(neg(target), Scalar(1)), log_sigmoid(neg(input)))));
  if (weight.defined()) loss = mul(loss, weight);
  const int64_t class_dim = input.dim() - 1;
  loss = div(sum(loss, std::vector<int64_t>{class_dim}), Scalar(input.size(class_dim)));
  return reduce(loss, reduction);
}

}  // namespace ember::nn::functional
