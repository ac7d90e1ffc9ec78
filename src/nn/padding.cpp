// Padding layers (include/ember/nn/padding.h).
#include "ember/nn/padding.h"

#include "ember/ops.h"
#include "nn/check.h"

namespace ember::nn {

namespace {
std::string pad_layer(const std::string& mode, int64_t dims) {
  return (mode == "reflect" ? "ReflectionPad" : mode == "replicate" ? "ReplicationPad" : "ConstantPad") +
         std::to_string(dims) + "d";
}
}  // namespace

PadNd::PadNd(int64_t dims, const char* mode, std::vector<int64_t> amounts, double value)
    : padding(std::move(amounts)), value(value), dims_(dims), mode_(mode) {
  const std::string layer = pad_layer(mode_, dims);
  padding = detail::expand_param(layer, "padding", padding, static_cast<size_t>(2 * dims));
  // Reflection and replication cannot crop; constant padding crops with negative amounts.
  if (mode_ != "constant") detail::check_positive(layer, "padding", padding, true);
}

Tensor PadNd::pad(const Tensor& input) {
  if (mode_ == "constant") {
    EMBER_CHECK(input.dim() >= dims_, RuntimeError, name(), ": expected an input with at least ", dims_,
                " dims (padding ", padding, " pads the last ", dims_, "), got shape ", input.sizes());
    return constant_pad_nd(input, padding, value);
  }
  detail::check_dims(*this, input, dims_ + 1, dims_ + 2, detail::spatial_layouts(dims_));
  for (int64_t i = 0; i < dims_; ++i) {
    const int64_t d = input.dim() - 1 - i, size = input.size(d);
    const int64_t lo = padding[static_cast<size_t>(2 * i)], hi = padding[static_cast<size_t>(2 * i + 1)];
    if (mode_ == "reflect") {
      EMBER_CHECK(lo < size && hi < size, RuntimeError, name(),
                  ": padding size should be less than the corresponding input dimension, but got padding (", lo, ", ",
                  hi, ") at dimension ", d, " of input of shape ", input.sizes());
    } else {
      EMBER_CHECK(size > 0 || (lo == 0 && hi == 0), RuntimeError, name(), ": cannot replicate dimension ", d,
                  " of size 0 (input of shape ", input.sizes(), ")");
    }
  }
  if (mode_ == "reflect")
    return dims_ == 1 ? reflection_pad1d(input, padding)
           : dims_ == 2 ? reflection_pad2d(input, padding)
                        : reflection_pad3d(input, padding);
  return dims_ == 1   ? replication_pad1d(input, padding)
         : dims_ == 2 ? replication_pad2d(input, padding)
                      : replication_pad3d(input, padding);
}

std::string PadNd::extra_repr() const {
  // ConstantPadNd prints its value; ZeroPad2d (a ConstantPad2d in PyTorch) only the amounts.
  if (mode_ == "constant" && name() != "ZeroPad2d")
    return "padding=" + detail::py_tuple(padding) + ", value=" + detail::py_float(value);
  return detail::py_tuple(padding);
}

}  // namespace ember::nn
