// BatchNorm1d/2d/3d, InstanceNorm1d/2d/3d, LayerNorm, GroupNorm, LocalResponseNorm
// (include/ember/nn/norm.h).
#include "ember/nn/norm.h"

#include "ember/autograd.h"
#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/ops.h"
#include "nn/check.h"

namespace ember::nn {

// ---------------------------------------------------------------- BatchNorm

NormBase::NormBase(const char* kind, int64_t dims, int64_t num_features, double eps, bool affine,
                   bool track_running_stats, const TensorOptions& options) {
  EMBER_CHECK(num_features > 0, ValueError, kind, dims, "d: num_features must be positive, got ", num_features);
  EMBER_CHECK(eps > 0, ValueError, kind, dims, "d: eps must be positive, got ", eps);
  bind_tensor("weight", &NormBase::weight);
  bind_tensor("bias", &NormBase::bias);
  bind_tensor("running_mean", &NormBase::running_mean);
  bind_tensor("running_var", &NormBase::running_var);
  bind_tensor("num_batches_tracked", &NormBase::num_batches_tracked);
  if (affine) {
    weight = register_parameter("weight", empty({num_features}, options));
    bias = register_parameter("bias", empty({num_features}, options));
  }
  if (track_running_stats) {
    running_mean = register_buffer("running_mean", zeros({num_features}, options));
    running_var = register_buffer("running_var", ones({num_features}, options));
    num_batches_tracked =
        register_buffer("num_batches_tracked", scalar_tensor(0, TensorOptions(kInt64).device(options.device_)));
  }
  reset_parameters();
}

void NormBase::reset_running_stats() {
  if (!running_mean.defined()) return;
  autograd::NoGradGuard no_grad;
  running_mean.zero_();
  running_var.fill_(1);
  num_batches_tracked.zero_();
}

void NormBase::reset_parameters() {
  reset_running_stats();
  if (weight.defined()) {
    init::ones_(weight);
    init::zeros_(bias);
  }
}

BatchNormNd::BatchNormNd(int64_t dims, BatchNormOptions o)
    : NormBase("BatchNorm", dims, o.num_features, o.eps, o.affine, o.track_running_stats, o.options),
      options(std::move(o)),
      dims_(dims) {}

Tensor BatchNormNd::normalize(const Tensor& input) {
  const bool dims_ok = dims_ == 1 ? input.dim() == 2 || input.dim() == 3 : input.dim() == dims_ + 2;
  EMBER_CHECK(dims_ok, ValueError, name(), ": expected ",
              dims_ == 1   ? "2D or 3D"
              : dims_ == 2 ? "4D"
                           : "5D",
              " input (got ", input.dim(), "D input of shape ", input.sizes(), ")");
  EMBER_CHECK(input.size(1) == options.num_features, RuntimeError, name(), ": expected input with ",
              options.num_features, " channels (num_features) at dim 1, got shape ", input.sizes());
  if (weight.defined())
    detail::check_same_dtype(*this, input, weight);
  else if (running_mean.defined())
    detail::check_same_dtype(*this, input, running_mean);

  double factor = options.momentum.value_or(0.0);
  if (is_training() && options.track_running_stats) {
    autograd::NoGradGuard no_grad;
    num_batches_tracked.add_(1);
    if (!options.momentum) factor = 1.0 / num_batches_tracked.item<double>();  // cumulative average
  }
  // Batch statistics when training, or when there are no running ones to use.
  const bool use_batch_stats = is_training() || !running_mean.defined();
  const bool pass_running = !is_training() || options.track_running_stats;
  return ember::batch_norm(
      input, detail::opt(weight), detail::opt(bias), pass_running ? detail::opt(running_mean) : std::nullopt,
      pass_running ? detail::opt(running_var) : std::nullopt, use_batch_stats, factor, options.eps);
}

std::string BatchNormNd::extra_repr() const {
  const auto& op = options;
  return std::to_string(op.num_features) + ", eps=" + detail::py_float(op.eps) +
         ", momentum=" + (op.momentum ? detail::py_float(*op.momentum) : "None") +
         ", affine=" + detail::py_bool(op.affine) + ", track_running_stats=" + detail::py_bool(op.track_running_stats);
}

// ---------------------------------------------------------------- InstanceNorm

InstanceNormNd::InstanceNormNd(int64_t dims, InstanceNormOptions o)
    : NormBase("InstanceNorm", dims, o.num_features, o.eps, o.affine, o.track_running_stats, o.options),
      options(std::move(o)),
      dims_(dims) {}

Tensor InstanceNormNd::normalize(const Tensor& input) {
  EMBER_CHECK(input.dim() == dims_ + 1 || input.dim() == dims_ + 2, ValueError, name(), ": expected ", dims_ + 1,
              "D or ", dims_ + 2, "D input (got ", input.dim(), "D input of shape ", input.sizes(), ")");
  const bool batched = input.dim() == dims_ + 2;
  const Tensor x = batched ? input : input.unsqueeze(0);
  const int64_t n = x.size(0), c = x.size(1);
  // Without parameters or statistics any channel count works (PyTorch only warns).
  EMBER_CHECK(c == options.num_features || (!options.affine && !options.track_running_stats), RuntimeError, name(),
              ": expected input with ", options.num_features, " channels (num_features) at dim ", batched ? 1 : 0,
              ", got shape ", input.sizes());
  if (weight.defined())
    detail::check_same_dtype(*this, input, weight);
  else if (running_mean.defined())
    detail::check_same_dtype(*this, input, running_mean);
  const bool use_input_stats = is_training() || !options.track_running_stats;
  if (use_input_stats) {
    EMBER_CHECK(x.numel() / std::max<int64_t>(n * c, 1) > 1, ValueError, name(),
                ": expected more than 1 spatial element when training, got input of shape ", input.sizes());
  }
  const Tensor y = functional::instance_norm(x, running_mean, running_var, weight, bias, use_input_stats,
                                             options.momentum, options.eps);
  return batched ? y : y.squeeze(0);
}

std::string InstanceNormNd::extra_repr() const {
  const auto& op = options;
  return std::to_string(op.num_features) + ", eps=" + detail::py_float(op.eps) +
         ", momentum=" + detail::py_float(op.momentum) + ", affine=" + detail::py_bool(op.affine) +
         ", track_running_stats=" + detail::py_bool(op.track_running_stats);
}

// ---------------------------------------------------------------- LayerNorm

LayerNorm::LayerNorm(LayerNormOptions o) : options(std::move(o)) {
  EMBER_CHECK(!options.normalized_shape.empty(), ValueError, "LayerNorm: normalized_shape must be non-empty");
  detail::check_positive("LayerNorm", "normalized_shape", options.normalized_shape);
  bind_tensor("weight", &LayerNorm::weight);
  bind_tensor("bias", &LayerNorm::bias);
  if (options.elementwise_affine) {
    weight = register_parameter("weight", empty(options.normalized_shape, options.options));
    bias = register_parameter("bias", empty(options.normalized_shape, options.options));
  }
  reset_parameters();
}

void LayerNorm::reset_parameters() {
  if (!options.elementwise_affine) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor LayerNorm::forward(const Tensor& input) {
  const auto& ns = options.normalized_shape;
  const auto n = static_cast<int64_t>(ns.size());
  EMBER_CHECK(
      input.dim() >= n && input.sizes().slice(static_cast<size_t>(input.dim() - n), ns.size()) == IntArrayRef(ns),
      RuntimeError, name(), ": expected input with trailing dimensions ", ns, " (normalized_shape), got shape ",
      input.sizes());
  if (weight.defined()) detail::check_same_dtype(*this, input, weight);
  return layer_norm(input, ns, detail::opt(weight), detail::opt(bias), options.eps);
}

std::string LayerNorm::extra_repr() const {
  return detail::py_tuple(options.normalized_shape) + ", eps=" + detail::py_float(options.eps) +
         ", elementwise_affine=" + detail::py_bool(options.elementwise_affine);
}

// ---------------------------------------------------------------- GroupNorm

GroupNorm::GroupNorm(GroupNormOptions o) : options(std::move(o)) {
  EMBER_CHECK(options.num_groups > 0 && options.num_channels > 0, ValueError,
              "GroupNorm: num_groups and num_channels must be positive, got ", options.num_groups, " and ",
              options.num_channels);
  EMBER_CHECK(options.num_channels % options.num_groups == 0, ValueError, "GroupNorm: num_channels (",
              options.num_channels, ") must be divisible by num_groups (", options.num_groups, ")");
  bind_tensor("weight", &GroupNorm::weight);
  bind_tensor("bias", &GroupNorm::bias);
  if (options.affine) {
    weight = register_parameter("weight", empty({options.num_channels}, options.options));
    bias = register_parameter("bias", empty({options.num_channels}, options.options));
  }
  reset_parameters();
}

void GroupNorm::reset_parameters() {
  if (!options.affine) return;
  init::ones_(weight);
  init::zeros_(bias);
}

Tensor GroupNorm::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() >= 2 && input.size(1) == options.num_channels, RuntimeError, name(),
              ": expected input of shape (N, C, *) with C = ", options.num_channels, " (num_channels), got shape ",
              input.sizes());
  if (weight.defined()) detail::check_same_dtype(*this, input, weight);
  return group_norm(input, options.num_groups, detail::opt(weight), detail::opt(bias), options.eps);
}

std::string GroupNorm::extra_repr() const {
  return std::to_string(options.num_groups) + ", " + std::to_string(options.num_channels) +
         ", eps=" + detail::py_float(options.eps) + ", affine=" + detail::py_bool(options.affine);
}

// ---------------------------------------------------------------- LocalResponseNorm

LocalResponseNorm::LocalResponseNorm(LocalResponseNormOptions o) : options(o) {
  EMBER_CHECK(options.size > 0, ValueError, "LocalResponseNorm: size must be positive, got ", options.size);
}

Tensor LocalResponseNorm::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() >= 3, ValueError, name(),
              ": expected 3D or higher dimensionality input (got ", input.dim(), " dimensions, shape ", input.sizes(),
              ")");
  EMBER_CHECK(input.is_floating_point(), TypeError, name(), ": expected a floating point input, got ", input.dtype());
  return functional::local_response_norm(input, options.size, options.alpha, options.beta, options.k);
}

std::string LocalResponseNorm::extra_repr() const {
  return std::to_string(options.size) + ", alpha=" + detail::py_float(options.alpha) +
         ", beta=" + detail::py_float(options.beta) + ", k=" + detail::py_float(options.k);
}

}  // namespace ember::nn
