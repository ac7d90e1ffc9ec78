// Resampling: the upsampling ops behind torch.nn.functional.interpolate (nearest,
// nearest-exact, linear/bilinear/trilinear, bicubic, antialiased bilinear/bicubic), grid_sampler (F.grid_sample) and
// affine_grid_generator (F.affine_grid), named, defaulted and checked as in PyTorch 1.13.
// Scales are PyTorch's: a positive scale s maps output coordinate o to input o / s (unless
// align_corners); none (or s <= 0) maps it by input_size / output_size.
#pragma once

#include <optional>
#include <tuple>

#include "ember/tensor.h"

namespace ember {

using OptScale = std::optional<double>;

// ---------------------------------------------------------------- upsampling
// self [N, C, *spatial]; output_size has one entry per spatial dim.
Tensor upsample_nearest1d(const Tensor& self, IntArrayRef output_size, OptScale scales = std::nullopt);
Tensor upsample_nearest2d(const Tensor& self, IntArrayRef output_size, OptScale scales_h = std::nullopt,
                          OptScale scales_w = std::nullopt);
Tensor upsample_nearest3d(const Tensor& self, IntArrayRef output_size, OptScale scales_d = std::nullopt,
                          OptScale scales_h = std::nullopt, OptScale scales_w = std::nullopt);
// Nearest with the pixel-centre map (PIL's and scikit-image's nearest).
Tensor _upsample_nearest_exact1d(const Tensor& self, IntArrayRef output_size, OptScale scales = std::nullopt);
Tensor _upsample_nearest_exact2d(const Tensor& self, IntArrayRef output_size, OptScale scales_h = std::nullopt,
                                 OptScale scales_w = std::nullopt);
Tensor _upsample_nearest_exact3d(const Tensor& self, IntArrayRef output_size, OptScale scales_d = std::nullopt,
                                 OptScale scales_h = std::nullopt, OptScale scales_w = std::nullopt);
Tensor upsample_linear1d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                         OptScale scales = std::nullopt);
Tensor upsample_bilinear2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                           OptScale scales_h = std::nullopt, OptScale scales_w = std::nullopt);
Tensor upsample_bicubic2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                          OptScale scales_h = std::nullopt, OptScale scales_w = std::nullopt);
Tensor upsample_trilinear3d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                            OptScale scales_d = std::nullopt, OptScale scales_h = std::nullopt,
                            OptScale scales_w = std::nullopt);
// Antialiased bilinear and bicubic (F.interpolate(antialias=True), PIL's resize): when
// downscaling, each output averages every input its filter (widened by the scale) covers.
Tensor _upsample_bilinear2d_aa(const Tensor& self, IntArrayRef output_size, bool align_corners,
                               OptScale scales_h = std::nullopt, OptScale scales_w = std::nullopt);
Tensor _upsample_bicubic2d_aa(const Tensor& self, IntArrayRef output_size, bool align_corners,
                              OptScale scales_h = std::nullopt, OptScale scales_w = std::nullopt);
// Their gradients (the adjoint maps) for an input of input_size [N, C, H, W].
Tensor _upsample_bilinear2d_aa_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                        bool align_corners, OptScale scales_h = std::nullopt,
                                        OptScale scales_w = std::nullopt);
Tensor _upsample_bicubic2d_aa_backward(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size,
                                       bool align_corners, OptScale scales_h = std::nullopt,
                                       OptScale scales_w = std::nullopt);
// The gradients (adjoint maps) of the other modes are the dispatcher ops "<name>_backward(grad_output,
// output_size, input_size, [align_corners,] scales...)", as in PyTorch.

// ---------------------------------------------------------------- grid sampling
// input [N, C, H, W] (or [N, C, D, H, W]), grid [N, H_out, W_out, 2] (or [..., 3]) of
// normalized (x, y[, z]) coordinates in [-1, 1]. interpolation_mode: 0 bilinear, 1 nearest,
// 2 bicubic (4-D only); padding_mode: 0 zeros, 1 border, 2 reflection.
Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                    bool align_corners);
// Gradients of input and grid for the entries of output_mask (two 0/1 values) that are set;
// the others are empty.
std::tuple<Tensor, Tensor> grid_sampler_backward(const Tensor& grad_output, const Tensor& input, const Tensor& grid,
                                                 int64_t interpolation_mode, int64_t padding_mode,
                                                 bool align_corners, IntArrayRef output_mask);
// theta [N, 2, 3] (or [N, 3, 4]) applied to the normalized coordinates of an output of
// `size` [N, C, H, W] (or [N, C, D, H, W]): the grid [N, H, W, 2] (or [N, D, H, W, 3]).
Tensor affine_grid_generator(const Tensor& theta, IntArrayRef size, bool align_corners);

}  // namespace ember
