// Block, pixel and resampling layers: Fold, Unfold (torch.nn.modules.fold), PixelShuffle,
// PixelUnshuffle (pixelshuffle), Upsample, UpsamplingNearest2d, UpsamplingBilinear2d
// (upsampling). Spatial parameters take one value (for both dims) or one per dim.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

struct FoldOptions {
  std::vector<int64_t> output_size = {};  // Fold only
  std::vector<int64_t> kernel_size = {};
  std::vector<int64_t> dilation = {1};
  std::vector<int64_t> padding = {0};
  std::vector<int64_t> stride = {1};
};

// Sums sliding blocks back into an image (col2im): (N, C * kh * kw, L) or (C * kh * kw, L)
// -> (N, C, *output_size) or (C, *output_size).
class Fold : public ModuleBase<Fold> {
 public:
  explicit Fold(FoldOptions o);
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  FoldOptions options;  // as given
};

// Extracts sliding blocks (im2col): (N, C, H, W) -> (N, C * kh * kw, L).
class Unfold : public ModuleBase<Unfold> {
 public:
  explicit Unfold(FoldOptions o);  // output_size unused
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  FoldOptions options;
};

// (*, C * r^2, H, W) -> (*, C, H * r, W * r).
class PixelShuffle : public ModuleBase<PixelShuffle> {
 public:
  explicit PixelShuffle(int64_t upscale_factor);
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  int64_t upscale_factor;
};

// (*, C, H * r, W * r) -> (*, C * r^2, H, W).
class PixelUnshuffle : public ModuleBase<PixelUnshuffle> {
 public:
  explicit PixelUnshuffle(int64_t downscale_factor);
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  int64_t downscale_factor;
};

// Exactly one of size and scale_factor (one value for every spatial dim, or one per dim).
struct UpsampleOptions {
  std::vector<int64_t> size = {};
  std::vector<double> scale_factor = {};
  // "nearest", "nearest-exact", "linear" (3-D input), "bilinear", "bicubic" (4-D),
  // "trilinear" (5-D) or "area".
  std::string mode = "nearest";
  std::optional<bool> align_corners = std::nullopt;  // interpolating modes only; default false
  // Compute the output size from scale_factor and resample by the sizes alone.
  std::optional<bool> recompute_scale_factor = std::nullopt;
};

// F.interpolate of (N, C, *spatial) inputs.
class Upsample : public ModuleBase<Upsample> {
 public:
  explicit Upsample(UpsampleOptions o);
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  UpsampleOptions options;
};

// Upsample with mode "nearest".
class UpsamplingNearest2d : public ModuleBase<UpsamplingNearest2d, Upsample> {
 public:
  UpsamplingNearest2d(std::vector<int64_t> size, std::vector<double> scale_factor)
      : ModuleBase(UpsampleOptions{.size = std::move(size), .scale_factor = std::move(scale_factor)}) {}
  Tensor forward(const Tensor& input) { return Upsample::forward(input); }
};

// Upsample with mode "bilinear" and align_corners.
class UpsamplingBilinear2d : public ModuleBase<UpsamplingBilinear2d, Upsample> {
 public:
  UpsamplingBilinear2d(std::vector<int64_t> size, std::vector<double> scale_factor)
      : ModuleBase(UpsampleOptions{.size = std::move(size),
                                   .scale_factor = std::move(scale_factor),
                                   .mode = "bilinear",
                                   .align_corners = true}) {}
  Tensor forward(const Tensor& input) { return Upsample::forward(input); }
};

}  // namespace ember::nn
