// AdaptiveMaxPool1d/2d/3d, MaxUnpool1d/2d/3d, LPPool1d/2d (include/ember/nn/pooling.h).
#include "ember/nn/pooling.h"

#include "ember/nn/functional.h"
#include "ember/ops.h"
#include "nn/check.h"

namespace ember::nn {

namespace {
std::string layer_name(const char* kind, int64_t dims) { return kind + std::to_string(dims) + "d"; }
}  // namespace

// ---------------------------------------------------------------- AdaptiveMaxPool

AdaptiveMaxPoolNd::AdaptiveMaxPoolNd(int64_t dims, std::vector<int64_t> size)
    : output_size(std::move(size)), dims_(dims) {
  const std::string layer = layer_name("AdaptiveMaxPool", dims);
  detail::check_positive(layer, "output_size",
                         detail::expand_param(layer, "output_size", output_size, static_cast<size_t>(dims)), true);
}

std::tuple<Tensor, Tensor> AdaptiveMaxPoolNd::forward_with_indices(const Tensor& input) {
  detail::check_dims(*this, input, dims_ + 1, dims_ + 2, detail::spatial_layouts(dims_));
  const auto size = detail::expand_param(name(), "output_size", output_size, static_cast<size_t>(dims_));
  switch (dims_) {
    case 1:
      return adaptive_max_pool1d(input, size);
    case 2:
      return adaptive_max_pool2d(input, size);
    default:
      return adaptive_max_pool3d(input, size);
  }
}

std::string AdaptiveMaxPoolNd::extra_repr() const { return "output_size=" + detail::py_int_or_tuple(output_size); }

// ---------------------------------------------------------------- MaxUnpool

MaxUnpoolNd::MaxUnpoolNd(int64_t dims, MaxUnpoolOptions o) : options(std::move(o)), dims_(dims) {
  const std::string layer = layer_name("MaxUnpool", dims);
  const auto n = static_cast<size_t>(dims);
  auto& op = options;
  if (op.stride.empty()) op.stride = op.kernel_size;
  op.kernel_size = detail::expand_param(layer, "kernel_size", op.kernel_size, n);
  op.stride = detail::expand_param(layer, "stride", op.stride, n);
  op.padding = detail::expand_param(layer, "padding", op.padding, n);
  detail::check_positive(layer, "kernel_size", op.kernel_size);
  detail::check_positive(layer, "stride", op.stride);
  detail::check_positive(layer, "padding", op.padding, true);
}

Tensor MaxUnpoolNd::unpool(const Tensor& input, const Tensor& indices, IntArrayRef output_size) {
  detail::check_dims(*this, input, dims_ + 1, dims_ + 2, detail::spatial_layouts(dims_));
  EMBER_CHECK(indices.sizes() == input.sizes(), RuntimeError, name(),
              ": expected indices of the input's shape ", input.sizes(), ", got shape ", indices.sizes());
  EMBER_CHECK(indices.dtype() == kInt64, TypeError, name(), ": expected int64 indices, got ", indices.dtype());
  const auto& op = options;
  switch (dims_) {
    case 1:
      return functional::max_unpool1d(input, indices, op.kernel_size, op.stride, op.padding, output_size);
    case 2:
      return functional::max_unpool2d(input, indices, op.kernel_size, op.stride, op.padding, output_size);
    default:
      return functional::max_unpool3d(input, indices, op.kernel_size, op.stride, op.padding, output_size);
  }
}

std::string MaxUnpoolNd::extra_repr() const {
  const auto& op = options;
  return "kernel_size=" + detail::py_tuple(op.kernel_size) + ", stride=" + detail::py_tuple(op.stride) +
         ", padding=" + detail::py_tuple(op.padding);
}

// ---------------------------------------------------------------- LPPool

LPPoolNd::LPPoolNd(int64_t dims, LPPoolOptions o) : options(std::move(o)), dims_(dims) {
  const std::string layer = layer_name("LPPool", dims);
  const auto n = static_cast<size_t>(dims);
  detail::check_positive(layer, "kernel_size", detail::expand_param(layer, "kernel_size", options.kernel_size, n));
  if (!options.stride.empty())
    detail::check_positive(layer, "stride", detail::expand_param(layer, "stride", options.stride, n));
  EMBER_CHECK(options.norm_type != 0, ValueError, layer, ": norm_type must not be zero");
}

Tensor LPPoolNd::pool(const Tensor& input) {
  detail::check_dims(*this, input, dims_ + 1, dims_ + 2, detail::spatial_layouts(dims_));
  const auto& op = options;
  const auto n = static_cast<size_t>(dims_);
  const auto k = detail::expand_param(name(), "kernel_size", op.kernel_size, n);
  const auto stride = op.stride.empty() ? k : detail::expand_param(name(), "stride", op.stride, n);
  if (dims_ == 1) return functional::lp_pool1d(input, op.norm_type, k[0], stride[0], op.ceil_mode);
  return functional::lp_pool2d(input, op.norm_type, k, stride, op.ceil_mode);
}

std::string LPPoolNd::extra_repr() const {
  const auto& op = options;
  return "norm_type=" + detail::py_float(op.norm_type) + ", kernel_size=" + detail::py_int_or_tuple(op.kernel_size) +
         ", stride=" + (op.stride.empty() ? std::string("None") : detail::py_int_or_tuple(op.stride)) +
         ", ceil_mode=" + detail::py_bool(op.ceil_mode);
}

}  // namespace ember::nn
