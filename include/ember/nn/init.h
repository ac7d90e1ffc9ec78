// Parameter initialization (torch.nn.init) and gradient utilities (torch.nn.utils'
// clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters).
//
// The initializers work in place without recording (under NoGradGuard) and return their
// tensor; the random ones draw from `gen`, or the default generator (ember::manual_seed
// makes them repeatable, and they draw exactly as python/ember/nn/init.py does).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "ember/tensor.h"

namespace ember {
class Generator;
}

namespace ember::nn::init {

// The recommended gain for a nonlinearity: "linear", "conv1d".."conv3d",
// "conv_transpose1d".."conv_transpose3d", "sigmoid", "tanh", "relu", "leaky_relu" (param:
// the negative slope, default 0.01), "selu". ValueError for others.
double calculate_gain(std::string_view nonlinearity, std::optional<double> param = std::nullopt);
// (fan_in, fan_out) of a weight [out, in, *kernel]: in * kernel, out * kernel (ValueError
// below 2 dims).
std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& t);

Tensor uniform_(Tensor t, double a = 0.0, double b = 1.0, Generator* gen = nullptr);
Tensor normal_(Tensor t, double mean = 0.0, double std = 1.0, Generator* gen = nullptr);
// Normal(mean, std) truncated to [a, b], by the inverse CDF of a uniform draw.
Tensor trunc_normal_(Tensor t, double mean = 0.0, double std = 1.0, double a = -2.0, double b = 2.0,
                     Generator* gen = nullptr);
Tensor constant_(Tensor t, const Scalar& value);
Tensor ones_(Tensor t);
Tensor zeros_(Tensor t);
// The identity matrix (2-D tensors only).
Tensor eye_(Tensor t);
// The identity of a convolution (3- to 5-D weight), per group of output channels.
Tensor dirac_(Tensor t, int64_t groups = 1);
Tensor xavier_uniform_(Tensor t, double gain = 1.0, Generator* gen = nullptr);
Tensor xavier_normal_(Tensor t, double gain = 1.0, Generator* gen = nullptr);
// mode: "fan_in" or "fan_out"; a: leaky_relu's negative slope. Zero-element tensors are
// left as they are.
Tensor kaiming_uniform_(Tensor t, double a = 0.0, std::string_view mode = "fan_in",
                        std::string_view nonlinearity = "leaky_relu", Generator* gen = nullptr);
Tensor kaiming_normal_(Tensor t, double a = 0.0, std::string_view mode = "fan_in",
                       std::string_view nonlinearity = "leaky_relu", Generator* gen = nullptr);
// A (semi-)orthogonal matrix (dims after the first flattened) from the QR decomposition of
// a normal draw, times gain. Ember has no linalg.qr yet, so this runs Householder
// reflections with ops, as python/ember/nn/init.py does.
Tensor orthogonal_(Tensor t, double gain = 1.0, Generator* gen = nullptr);
// N(0, std) with ceil(sparsity * rows) zeros in every column, at rows drawn by one randperm
// per column (2-D only): python/ember/nn/init.py's draws, in its order.
Tensor sparse_(Tensor t, double sparsity, double std = 0.01, Generator* gen = nullptr);

}  // namespace ember::nn::init

namespace ember::nn::utils {

// Scales the gradients of `parameters` together so that their total norm (of order
// norm_type; INFINITY for the max norm) is at most max_norm; returns the total norm before
// clipping. Parameters without a gradient are skipped. error_if_nonfinite: RuntimeError
// when the total norm is NaN or infinite (instead of scaling by it).
Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
// Clamps every gradient to [-clip_value, clip_value] in place.
void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value);
// The parameters flattened and concatenated into one vector (differentiable).
Tensor parameters_to_vector(const std::vector<Tensor>& parameters);
// Copies consecutive slices of vec into the parameters (PyTorch rebinds their .data to
// views of vec instead; here they keep their own memory). ValueError unless vec is 1-D with
// as many elements as the parameters together.
void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters);

}  // namespace ember::nn::utils
