// Fold, Unfold, PixelShuffle, PixelUnshuffle, Upsample (include/ember/nn/vision.h).
#include "ember/nn/vision.h"

#include <cmath>

#include "ember/ops.h"
#include "ember/ops/nn_sample.h"
#include "nn/check.h"

namespace ember::nn {

namespace {

// Checks the block parameters; returns them expanded to two values each.
struct Blocks {
  std::vector<int64_t> kernel, dilation, padding, stride;
};
Blocks check_blocks(const std::string& layer, const FoldOptions& o) {
  Blocks b{detail::expand_param(layer, "kernel_size", o.kernel_size, 2),
           detail::expand_param(layer, "dilation", o.dilation, 2), detail::expand_param(layer, "padding", o.padding, 2),
           detail::expand_param(layer, "stride", o.stride, 2)};
  detail::check_positive(layer, "kernel_size", b.kernel);
  detail::check_positive(layer, "dilation", b.dilation);
  detail::check_positive(layer, "padding", b.padding, true);
  detail::check_positive(layer, "stride", b.stride);
  return b;
}

std::string blocks_repr(const FoldOptions& o) {
  return "kernel_size=" + detail::py_int_or_tuple(o.kernel_size) + ", dilation=" + detail::py_int_or_tuple(o.dilation) +
         ", padding=" + detail::py_int_or_tuple(o.padding) + ", stride=" + detail::py_int_or_tuple(o.stride);
}

}  // namespace

// ---------------------------------------------------------------- Fold, Unfold

Fold::Fold(FoldOptions o) : options(std::move(o)) {
  check_blocks("Fold", options);
  detail::check_positive("Fold", "output_size", detail::expand_param("Fold", "output_size", options.output_size, 2));
}

Tensor Fold::forward(const Tensor& input) {
  const Blocks b = check_blocks(name(), options);
  const auto size = detail::expand_param(name(), "output_size", options.output_size, 2);
  detail::check_dims(*this, input, 2, 3, "(N, C * prod(kernel_size), L) or (C * prod(kernel_size), L)");
  const int64_t blocks = b.kernel[0] * b.kernel[1], c = input.size(input.dim() - 2);
  int64_t count = 1;  // blocks per image
  for (size_t d = 0; d < 2; ++d)
    count *= (size[d] + 2 * b.padding[d] - b.dilation[d] * (b.kernel[d] - 1) - 1) / b.stride[d] + 1;
  EMBER_CHECK(c % blocks == 0 && input.size(input.dim() - 1) == count, RuntimeError, name(),
              ": expected input of shape (N, C * ", blocks, ", ", count, ") or (C * ", blocks, ", ", count,
              ") for kernel_size ", b.kernel, " and output_size ", size, ", got shape ", input.sizes());
  return col2im(input, size, b.kernel, b.dilation, b.padding, b.stride);
}

std::string Fold::extra_repr() const {
  return "output_size=" + detail::py_int_or_tuple(options.output_size) + ", " + blocks_repr(options);
}

Unfold::Unfold(FoldOptions o) : options(std::move(o)) { check_blocks("Unfold", options); }

Tensor Unfold::forward(const Tensor& input) {
  const Blocks b = check_blocks(name(), options);
  detail::check_dims(*this, input, 3, 4, detail::spatial_layouts(2));
  for (size_t d = 0; d < 2; ++d) {
    const int64_t in = input.size(input.dim() - 2 + static_cast<int64_t>(d));
    EMBER_CHECK(in + 2 * b.padding[d] >= b.dilation[d] * (b.kernel[d] - 1) + 1, RuntimeError, name(),
                ": the padded input of shape ", input.sizes(), " is smaller than the (dilated) kernel ", b.kernel);
  }
  return im2col(input, b.kernel, b.dilation, b.padding, b.stride);
}

std::string Unfold::extra_repr() const { return blocks_repr(options); }

// ---------------------------------------------------------------- PixelShuffle

PixelShuffle::PixelShuffle(int64_t upscale_factor) : upscale_factor(upscale_factor) {
  EMBER_CHECK(upscale_factor > 0, ValueError, "PixelShuffle: upscale_factor must be positive, got ", upscale_factor);
}

Tensor PixelShuffle::forward(const Tensor& input) {
  const int64_t r = upscale_factor;
  EMBER_CHECK(input.dim() >= 3 && input.size(-3) % (r * r) == 0, RuntimeError, name(),
              ": expected input of shape (*, C * ", r * r, ", H, W) (channels divisible by upscale_factor^2), got shape ",
              input.sizes());
  return pixel_shuffle(input, r);
}

std::string PixelShuffle::extra_repr() const { return "upscale_factor=" + std::to_string(upscale_factor); }

PixelUnshuffle::PixelUnshuffle(int64_t downscale_factor) : downscale_factor(downscale_factor) {
  EMBER_CHECK(downscale_factor > 0, ValueError, "PixelUnshuffle: downscale_factor must be positive, got ",
              downscale_factor);
}

Tensor PixelUnshuffle::forward(const Tensor& input) {
  const int64_t r = downscale_factor;
  EMBER_CHECK(input.dim() >= 3 && input.size(-1) % r == 0 && input.size(-2) % r == 0, RuntimeError, name(),
              ": expected input of shape (*, C, H * ", r, ", W * ", r,
              ") (height and width divisible by downscale_factor), got shape ", input.sizes());
  return pixel_unshuffle(input, r);
}

std::string PixelUnshuffle::extra_repr() const { return "downscale_factor=" + std::to_string(downscale_factor); }

// ---------------------------------------------------------------- Upsample

namespace {
bool interpolating(const std::string& mode) {
  return mode == "linear" || mode == "bilinear" || mode == "bicubic" || mode == "trilinear";
}
}  // namespace

Upsample::Upsample(UpsampleOptions o) : options(std::move(o)) {
  const auto& op = options;
  const std::string& m = op.mode;
  EMBER_CHECK(m == "nearest" || m == "nearest-exact" || m == "area" || interpolating(m), ValueError,
              "Upsample: mode must be one of nearest | linear | bilinear | bicubic | trilinear | area | "
              "nearest-exact, got '",
              m, "'");
  EMBER_CHECK(!(op.align_corners && !interpolating(m)), ValueError,
              "Upsample: align_corners option can only be set with the interpolating modes: linear | bilinear | "
              "bicubic | trilinear");
  EMBER_CHECK(op.size.empty() || op.scale_factor.empty(), ValueError,
              "Upsample: only one of size or scale_factor should be defined");
  EMBER_CHECK(!op.size.empty() || !op.scale_factor.empty(), ValueError,
              "Upsample: either size or scale_factor should be defined");
  EMBER_CHECK(!(op.recompute_scale_factor.value_or(false) && !op.size.empty()), ValueError,
              "Upsample: recompute_scale_factor is not meaningful with an explicit size.");
  detail::check_positive("Upsample", "size", op.size, true);
  for (double s : op.scale_factor)
    EMBER_CHECK(s > 0, ValueError, "Upsample: scale_factor must be positive, got ", detail::py_float(s));
}

Tensor Upsample::forward(const Tensor& input) {
  const auto& op = options;
  const std::string& mode = op.mode;
  const int64_t dims = input.dim() - 2;
  const int64_t needs = mode == "linear" ? 3 : mode == "bilinear" || mode == "bicubic" ? 4 : mode == "trilinear" ? 5 : 0;
  EMBER_CHECK(dims >= 1 && dims <= 3 && (needs == 0 || input.dim() == needs), RuntimeError, name(), ": ", mode,
              " mode needs input of shape ",
              needs == 0   ? "(N, C, L), (N, C, H, W) or (N, C, D, H, W)"
              : needs == 3 ? "(N, C, L)"
              : needs == 4 ? "(N, C, H, W)"
                           : "(N, C, D, H, W)",
              ", got shape ", input.sizes());
  const auto n = static_cast<size_t>(dims);
  std::vector<int64_t> size;
  std::vector<std::optional<double>> scales(n);
  if (!op.size.empty()) {
    size = detail::expand_param(name(), "size", op.size, n);
  } else {
    EMBER_CHECK(op.scale_factor.size() == 1 || op.scale_factor.size() == n, ValueError, name(),
                ": expected scale_factor to have 1 or ", n, " values for input of shape ", input.sizes(), ", got ",
                op.scale_factor.size());
    // area mode pools to a size, so it recomputes the factors too (as F.interpolate).
    const bool recompute = op.recompute_scale_factor.value_or(false) || mode == "area";
    for (size_t d = 0; d < n; ++d) {
      const double s = op.scale_factor.size() == 1 ? op.scale_factor[0] : op.scale_factor[d];
      const auto in = static_cast<double>(input.size(static_cast<int64_t>(d) + 2));
      size.push_back(static_cast<int64_t>(recompute ? std::floor(in * s) : in * s));
      if (!recompute) scales[d] = s;
    }
  }
  const bool align = op.align_corners.value_or(false);
  if (mode == "area")
    return dims == 1 ? adaptive_avg_pool1d(input, size)
           : dims == 2 ? adaptive_avg_pool2d(input, size)
                       : adaptive_avg_pool3d(input, size);
  if (mode == "linear") return upsample_linear1d(input, size, align, scales[0]);
  if (mode == "bilinear") return upsample_bilinear2d(input, size, align, scales[0], scales[1]);
  if (mode == "bicubic") return upsample_bicubic2d(input, size, align, scales[0], scales[1]);
  if (mode == "trilinear") return upsample_trilinear3d(input, size, align, scales[0], scales[1], scales[2]);
  const bool exact = mode == "nearest-exact";
  switch (dims) {
    case 1:
      return exact ? _upsample_nearest_exact1d(input, size, scales[0]) : upsample_nearest1d(input, size, scales[0]);
    case 2:
      return exact ? _upsample_nearest_exact2d(input, size, scales[0], scales[1])
                   : upsample_nearest2d(input, size, scales[0], scales[1]);
    default:
      return exact ? _upsample_nearest_exact3d(input, size, scales[0], scales[1], scales[2])
                   : upsample_nearest3d(input, size, scales[0], scales[1], scales[2]);
  }
}

std::string Upsample::extra_repr() const {
  const auto& op = options;
  std::string info;
  if (!op.scale_factor.empty()) {
    if (op.scale_factor.size() == 1) {
      info = "scale_factor=" + detail::py_float(op.scale_factor[0]);
    } else {
      info = "scale_factor=(";
      for (size_t i = 0; i < op.scale_factor.size(); ++i) info += (i ? ", " : "") + detail::py_float(op.scale_factor[i]);
      info += ")";
    }
  } else {
    info = "size=" + detail::py_int_or_tuple(op.size);
  }
  return info + ", mode=" + op.mode;
}

}  // namespace ember::nn
