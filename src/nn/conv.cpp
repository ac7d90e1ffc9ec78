// Convolution and pooling layers (include/ember/nn/conv.h).
#include "ember/nn/conv.h"

#include <cmath>

#include "ember/nn/init.h"
#include "ember/ops.h"
#include "nn/check.h"

namespace ember::nn {

namespace {

std::string conv_name(int64_t dims, bool transposed) {
  return std::string(transposed ? "ConvTranspose" : "Conv") + std::to_string(dims) + "d";
}

bool all_equal(IntArrayRef v, int64_t x) {
  for (int64_t e : v) {
    if (e != x) return false;
  }
  return true;
}

// Circular padding by F.pad's amounts (near, far per dim, from the last): the far end wraps
// to the front and the near end to the back.
Tensor circular_pad(Tensor x, IntArrayRef pad) {
  const auto n = static_cast<int64_t>(pad.size() / 2);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = x.dim() - 1 - i, size = x.size(d);
    const int64_t lo = pad[static_cast<size_t>(2 * i)], hi = pad[static_cast<size_t>(2 * i + 1)];
    EMBER_CHECK(lo <= size && hi <= size, RuntimeError, "circular padding of ", std::max(lo, hi),
                " is larger than the input's size ", size);
    x = cat({x.narrow(d, size - lo, lo), x, x.narrow(d, 0, hi)}, d);
  }
  return x;
}

}  // namespace

// ---------------------------------------------------------------- ConvNd

ConvNd::ConvNd(int64_t dims, bool transposed, ConvOptions o)
    : options(std::move(o)), dims_(dims), transposed_(transposed) {
  const std::string layer = conv_name(dims, transposed);
  ConvOptions& op = options;
  const auto n = static_cast<size_t>(dims);
  EMBER_CHECK(op.in_channels > 0 && op.out_channels > 0, ValueError, layer,
              ": in_channels and out_channels must be positive, got ", op.in_channels, " and ", op.out_channels);
  EMBER_CHECK(op.groups > 0, ValueError, layer, ": groups must be a positive integer, got ", op.groups);
  EMBER_CHECK(op.in_channels % op.groups == 0, ValueError, layer, ": in_channels (", op.in_channels,
              ") must be divisible by groups (", op.groups, ")");
  EMBER_CHECK(op.out_channels % op.groups == 0, ValueError, layer, ": out_channels (", op.out_channels,
              ") must be divisible by groups (", op.groups, ")");
  op.kernel_size = detail::expand_param(layer, "kernel_size", op.kernel_size, n);
  op.stride = detail::expand_param(layer, "stride", op.stride, n);
  op.dilation = detail::expand_param(layer, "dilation", op.dilation, n);
  if (op.padding.is_mode()) {
    // PyTorch's checks and messages.
    EMBER_CHECK(op.padding.mode == "same" || op.padding.mode == "valid", ValueError, layer,
                ": Invalid padding string '", op.padding.mode, "', should be one of {'valid', 'same'}");
    EMBER_CHECK(!transposed, ValueError, layer, ": padding='", op.padding.mode,
                "' is not supported for transposed convolutions");
    EMBER_CHECK(op.padding.mode != "same" || all_equal(op.stride, 1), ValueError, layer,
                ": padding='same' is not supported for strided convolutions");
  } else {
    op.padding.values = detail::expand_param(layer, "padding", op.padding.values, n);
    detail::check_positive(layer, "padding", op.padding.values, true);
  }
  op.output_padding = detail::expand_param(layer, "output_padding", op.output_padding, n);
  detail::check_positive(layer, "kernel_size", op.kernel_size);
  detail::check_positive(layer, "stride", op.stride);
  detail::check_positive(layer, "dilation", op.dilation);
  detail::check_positive(layer, "output_padding", op.output_padding, true);
  const std::string& mode = op.padding_mode;
  EMBER_CHECK(mode == "zeros" || mode == "reflect" || mode == "replicate" || mode == "circular", ValueError, layer,
              ": padding_mode must be one of 'zeros', 'reflect', 'replicate' or 'circular', got '", mode, "'");
  if (transposed) {
    EMBER_CHECK(mode == "zeros", ValueError, layer, ": only \"zeros\" padding mode is supported, got '", mode, "'");
  } else {
    EMBER_CHECK(all_equal(op.output_padding, 0), ValueError, layer,
                ": output_padding is for transposed convolutions only, got ", op.output_padding);
  }
  DimVector shape;
  shape.push_back(transposed ? op.in_channels : op.out_channels);
  shape.push_back((transposed ? op.out_channels : op.in_channels) / op.groups);
  for (int64_t k : op.kernel_size) shape.push_back(k);
  bind_tensor("weight", &ConvNd::weight);
  bind_tensor("bias", &ConvNd::bias);
  weight = register_parameter("weight", empty(shape, op.options));
  if (op.bias) bias = register_parameter("bias", empty({op.out_channels}, op.options));
  reset_parameters();
}

void ConvNd::reset_parameters() {
  // Linear's initialization, with the fan-in of the weight (in / groups * kernel; for a
  // transposed weight, out / groups * kernel, as PyTorch).
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
    const double bound = fan_in > 0 ? 1 / std::sqrt(static_cast<double>(fan_in)) : 0;
    init::uniform_(bias, -bound, bound);
  }
}

void ConvNd::check_input(const Tensor& input) const {
  const bool shape_ok = (input.dim() == dims_ + 1 || input.dim() == dims_ + 2) &&
                        input.size(input.dim() - dims_ - 1) == options.in_channels;
  EMBER_CHECK(shape_ok, RuntimeError, name(), ": expected input of shape ", detail::spatial_layouts(dims_),
              " with C = ", options.in_channels, " (in_channels), got shape ", input.sizes());
  detail::check_same_dtype(*this, input, weight);
}

std::vector<int64_t> ConvNd::pad_amounts() const {
  const auto& op = options;
  std::vector<int64_t> pad;
  for (int64_t d = dims_ - 1; d >= 0; --d) {
    const auto i = static_cast<size_t>(d);
    if (op.padding.mode == "valid") {
      pad.insert(pad.end(), {0, 0});
    } else if (op.padding.mode == "same") {
      const int64_t total = op.dilation[i] * (op.kernel_size[i] - 1);
      pad.insert(pad.end(), {total / 2, total - total / 2});
    } else {
      pad.insert(pad.end(), {op.padding.values[i], op.padding.values[i]});
    }
  }
  return pad;
}

Tensor ConvNd::conv(const Tensor& input) {
  check_input(input);
  const auto& op = options;
  auto run = [&](const Tensor& x, auto padding) -> Tensor {
    switch (dims_) {
      case 1:
        return conv1d(x, weight, detail::opt(bias), op.stride, padding, op.dilation, op.groups);
      case 2:
        return conv2d(x, weight, detail::opt(bias), op.stride, padding, op.dilation, op.groups);
      default:
        return conv3d(x, weight, detail::opt(bias), op.stride, padding, op.dilation, op.groups);
    }
  };
  const std::string& mode = op.padding_mode;
  if (mode == "zeros") {
    if (op.padding.is_mode()) return run(input, std::string_view(op.padding.mode));
    return run(input, IntArrayRef(op.padding.values));
  }
  // Pad first, then convolve without padding (as PyTorch's _conv_forward).
  const std::vector<int64_t> pad = pad_amounts();
  Tensor x;
  if (mode == "circular")
    x = circular_pad(input, pad);
  else if (mode == "reflect")
    x = dims_ == 1 ? reflection_pad1d(input, pad) : dims_ == 2 ? reflection_pad2d(input, pad) : reflection_pad3d(input, pad);
  else
    x = dims_ == 1   ? replication_pad1d(input, pad)
        : dims_ == 2 ? replication_pad2d(input, pad)
                     : replication_pad3d(input, pad);
  return run(x, IntArrayRef(std::vector<int64_t>(static_cast<size_t>(dims_), 0)));
}

Tensor ConvNd::conv_transpose(const Tensor& input, IntArrayRef output_size) {
  check_input(input);
  const auto& op = options;
  std::vector<int64_t> output_padding = op.output_padding;
  if (!output_size.empty()) {
    EMBER_CHECK(
        output_size.size() == static_cast<size_t>(dims_) || output_size.size() == static_cast<size_t>(dims_) + 2,
        ValueError, name(), ": output_size must have ", dims_, " or ", dims_ + 2, " elements, got ", output_size);
    const IntArrayRef spatial =
        output_size.slice(output_size.size() - static_cast<size_t>(dims_), static_cast<size_t>(dims_));
    for (int64_t d = 0; d < dims_; ++d) {
      const auto i = static_cast<size_t>(d);
      const int64_t in = input.size(input.dim() - dims_ + d);
      const int64_t least = (in - 1) * op.stride[i] - 2 * op.padding.values[i] + op.dilation[i] * (op.kernel_size[i] - 1) + 1;
      EMBER_CHECK(spatial[i] >= least && spatial[i] < least + op.stride[i], ValueError, name(),
                  ": requested an output size of ", spatial, ", but valid sizes range from ", least, " to ",
                  least + op.stride[i] - 1, " (for an input of ",
                  input.sizes().slice(static_cast<size_t>(input.dim() - dims_), static_cast<size_t>(dims_)), ")");
      output_padding[i] = spatial[i] - least;
    }
  }
  switch (dims_) {
    case 1:
      return conv_transpose1d(input, weight, detail::opt(bias), op.stride, op.padding.values, output_padding, op.groups,
                              op.dilation);
    case 2:
      return conv_transpose2d(input, weight, detail::opt(bias), op.stride, op.padding.values, output_padding, op.groups,
                              op.dilation);
    default:
      return conv_transpose3d(input, weight, detail::opt(bias), op.stride, op.padding.values, output_padding, op.groups,
                              op.dilation);
  }
}

std::string ConvNd::extra_repr() const {
  const auto& op = options;
  std::string s = std::to_string(op.in_channels) + ", " + std::to_string(op.out_channels) +
                  ", kernel_size=" + detail::py_tuple(op.kernel_size) + ", stride=" + detail::py_tuple(op.stride);
  if (op.padding.is_mode())
    s += ", padding=" + op.padding.mode;
  else if (!all_equal(op.padding.values, 0))
    s += ", padding=" + detail::py_tuple(op.padding.values);
  if (!all_equal(op.dilation, 1)) s += ", dilation=" + detail::py_tuple(op.dilation);
  if (!all_equal(op.output_padding, 0)) s += ", output_padding=" + detail::py_tuple(op.output_padding);
  if (op.groups != 1) s += ", groups=" + std::to_string(op.groups);
  if (!bias.defined()) s += ", bias=False";
  if (op.padding_mode != "zeros") s += ", padding_mode=" + op.padding_mode;
  return s;
}

// ---------------------------------------------------------------- pooling

namespace {
std::string pool_name(const char* kind, int64_t dims) { return kind + std::to_string(dims) + "d"; }

void check_pool_params(const std::string& layer, int64_t dims, IntArrayRef kernel, IntArrayRef stride,
                       IntArrayRef padding) {
  const auto n = static_cast<size_t>(dims);
  const auto k = detail::expand_param(layer, "kernel_size", kernel, n);
  detail::check_positive(layer, "kernel_size", k);
  detail::check_positive(layer, "stride", detail::expand_param(layer, "stride", stride, n));
  const auto p = detail::expand_param(layer, "padding", padding, n);
  detail::check_positive(layer, "padding", p, true);
  for (size_t i = 0; i < n; ++i) {
    EMBER_CHECK(p[i] <= k[i] / 2, ValueError, layer,
                ": padding should be at most half of the kernel size, got padding ", padding, " and kernel_size ",
                kernel);
  }
}
}  // namespace

MaxPoolNd::MaxPoolNd(int64_t dims, MaxPoolOptions o) : options(std::move(o)), dims_(dims) {
  const std::string layer = pool_name("MaxPool", dims);
  if (options.stride.empty()) options.stride = options.kernel_size;
  check_pool_params(layer, dims, options.kernel_size, options.stride, options.padding);
  detail::check_positive(layer, "dilation",
                         detail::expand_param(layer, "dilation", options.dilation, static_cast<size_t>(dims)));
}

Tensor MaxPoolNd::pool(const Tensor& input) {
  detail::check_dims(*this, input, dims_ + 1, dims_ + 2, detail::spatial_layouts(dims_));
  const auto& o = options;
  switch (dims_) {
    case 1:
      return max_pool1d(input, o.kernel_size, o.stride, o.padding, o.dilation, o.ceil_mode);
    case 2:
      return max_pool2d(input, o.kernel_size, o.stride, o.padding, o.dilation, o.ceil_mode);
    default:
      return max_pool3d(input, o.kernel_size, o.stride, o.padding, o.dilation, o.ceil_mode);
  }
}

std::tuple<Tensor, Tensor> MaxPoolNd::forward_with_indices(const Tensor& input) {
  detail::check_dims(*this, input, dims_ + 1, dims_ + 2, detail::spatial_layouts(dims_));
  const auto& o = options;
  switch (dims_) {
    case 1:
      return max_pool1d_with_indices(input, o.kernel_size, o.stride, o.padding, o.dilation, o.ceil_mode);
    case 2:
      return max_pool2d_with_indices(input, o.kernel_size, o.stride, o.padding, o.dilation, o.ceil_mode);
    default:
      return max_pool3d_with_indices(input, o.kernel_size, o.stride, o.padding, o.dilation, o.ceil_mode);
  }
}

std::string MaxPoolNd::extra_repr() const {
  const auto& o = options;
  return "kernel_size=" + detail::py_int_or_tuple(o.kernel_size) + ", stride=" + detail::py_int_or_tuple(o.stride) +
         ", padding=" + detail::py_int_or_tuple(o.padding) + ", dilation=" + detail::py_int_or_tuple(o.dilation) +
         ", ceil_mode=" + detail::py_bool(o.ceil_mode);
}

AvgPoolNd::AvgPoolNd(int64_t dims, AvgPoolOptions o) : options(std::move(o)), dims_(dims) {
  const std::string layer = pool_name("AvgPool", dims);
  if (options.stride.empty()) options.stride = options.kernel_size;
  check_pool_params(layer, dims, options.kernel_size, options.stride, options.padding);
  EMBER_CHECK(!options.divisor_override || dims > 1, ValueError, layer,
              ": divisor_override is for 2-D and 3-D pooling");
  EMBER_CHECK(!options.divisor_override || *options.divisor_override != 0, ValueError, layer,
              ": divisor_override must not be zero");
  if (dims == 1) {  // PyTorch keeps AvgPool1d's parameters as 1-tuples
    options.kernel_size = detail::expand_param(layer, "kernel_size", options.kernel_size, 1);
    options.stride = detail::expand_param(layer, "stride", options.stride, 1);
    options.padding = detail::expand_param(layer, "padding", options.padding, 1);
  }
}

Tensor AvgPoolNd::pool(const Tensor& input) {
  detail::check_dims(*this, input, dims_ + 1, dims_ + 2, detail::spatial_layouts(dims_));
  const auto& o = options;
  switch (dims_) {
    case 1:
      return avg_pool1d(input, o.kernel_size, o.stride, o.padding, o.ceil_mode, o.count_include_pad);
    case 2:
      return avg_pool2d(input, o.kernel_size, o.stride, o.padding, o.ceil_mode, o.count_include_pad,
                        o.divisor_override);
    default:
      return avg_pool3d(input, o.kernel_size, o.stride, o.padding, o.ceil_mode, o.count_include_pad,
                        o.divisor_override);
  }
}

std::string AvgPoolNd::extra_repr() const {
  const auto& o = options;
  auto show = [&](IntArrayRef v) { return dims_ == 1 ? detail::py_tuple(v) : detail::py_int_or_tuple(v); };
  return "kernel_size=" + show(o.kernel_size) + ", stride=" + show(o.stride) + ", padding=" + show(o.padding);
}

AdaptiveAvgPoolNd::AdaptiveAvgPoolNd(int64_t dims, std::vector<int64_t> size)
    : output_size(std::move(size)), dims_(dims) {
  const std::string layer = pool_name("AdaptiveAvgPool", dims);
  detail::check_positive(layer, "output_size",
                         detail::expand_param(layer, "output_size", output_size, static_cast<size_t>(dims)), true);
}

Tensor AdaptiveAvgPoolNd::pool(const Tensor& input) {
  detail::check_dims(*this, input, dims_ + 1, dims_ + 2, detail::spatial_layouts(dims_));
  const auto size = detail::expand_param(name(), "output_size", output_size, static_cast<size_t>(dims_));
  switch (dims_) {
    case 1:
      return adaptive_avg_pool1d(input, size);
    case 2:
      return adaptive_avg_pool2d(input, size);
    default:
      return adaptive_avg_pool3d(input, size);
  }
}

std::string AdaptiveAvgPoolNd::extra_repr() const { return "output_size=" + detail::py_int_or_tuple(output_size); }

}  // namespace ember::nn
