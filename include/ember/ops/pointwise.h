// Pointwise ops beyond the basic arithmetic of ember/ops.h: unary math, rounding,
// activations, clamping, and the binary, ternary and comparison ops of torch.*, named and
// defaulted as in PyTorch. `name_` functions work in place, `name_out` write into `out`.
#pragma once

#include <optional>
#include <string_view>

#include "ember/tensor.h"

namespace ember {

// ---------------------------------------------------------------- unary
// Each: name(self), name_out(out, self), name_(self).
#define EMBER_POINTWISE_UNARY_OPS(X)                                                           \
  X(sign) X(sgn) X(rsqrt) X(reciprocal) X(square) X(tan) X(asin) X(acos) X(atan) X(sinh)     \
  X(cosh) X(asinh) X(acosh) X(atanh) X(arcsin) X(arccos) X(arctan) X(arcsinh) X(arccosh)     \
  X(arctanh) X(log2) X(log10) X(sinc) X(exp2) X(expm1) X(log1p) X(erf) X(erfc) X(erfinv)     \
  X(lgamma) X(digamma) X(i0) X(ceil) X(floor) X(trunc) X(fix) X(frac) X(conj_physical)       \
  X(bitwise_not) X(logical_not) X(silu) X(mish) X(hardsigmoid) X(hardswish)
#define EMBER_POINTWISE_UNARY_DECL(name)               \
  Tensor name(const Tensor& self);                     \
  Tensor& name##_out(Tensor& out, const Tensor& self); \
  Tensor& name##_(Tensor& self);
EMBER_POINTWISE_UNARY_OPS(EMBER_POINTWISE_UNARY_DECL)
#undef EMBER_POINTWISE_UNARY_DECL

// Complex to real for complex inputs; 0 or pi for real ones (integers compute as float).
Tensor angle(const Tensor& self);
Tensor& angle_out(Tensor& out, const Tensor& self);
// Predicates (bool results).
Tensor isnan(const Tensor& self);
Tensor isinf(const Tensor& self);
Tensor isfinite(const Tensor& self);
Tensor isposinf(const Tensor& self);
Tensor isneginf(const Tensor& self);
Tensor signbit(const Tensor& self);
Tensor isreal(const Tensor& self);
// A conjugated copy for complex tensors (Ember has no lazy conjugation); self otherwise.
Tensor conj(const Tensor& self);
Tensor positive(const Tensor& self);
Tensor softsign(const Tensor& self);

// Rounding half to even; with decimals, at 10^-decimals.
Tensor round(const Tensor& self, int64_t decimals = 0);
Tensor& round_out(Tensor& out, const Tensor& self, int64_t decimals = 0);
Tensor& round_(Tensor& self, int64_t decimals = 0);
Tensor polygamma(int64_t n, const Tensor& self);
Tensor& polygamma_out(Tensor& out, int64_t n, const Tensor& self);
Tensor logit(const Tensor& self, std::optional<double> eps = std::nullopt);
Tensor& logit_out(Tensor& out, const Tensor& self, std::optional<double> eps = std::nullopt);
// NaN, +inf and -inf replaced (by 0 and the dtype's largest and lowest finite values).
Tensor nan_to_num(const Tensor& self, std::optional<double> nan = std::nullopt,
                  std::optional<double> posinf = std::nullopt, std::optional<double> neginf = std::nullopt);
Tensor& nan_to_num_(Tensor& self, std::optional<double> nan = std::nullopt,
                    std::optional<double> posinf = std::nullopt, std::optional<double> neginf = std::nullopt);

// ---------------------------------------------------------------- clamping
// At least one bound; numbers take part in type promotion as Python scalars do.
Tensor clamp(const Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max = std::nullopt);
Tensor clamp(const Tensor& self, const std::optional<Tensor>& min, const std::optional<Tensor>& max);
Tensor& clamp_(Tensor& self, const std::optional<Scalar>& min, const std::optional<Scalar>& max = std::nullopt);
Tensor& clamp_out(Tensor& out, const Tensor& self, const std::optional<Scalar>& min,
                  const std::optional<Scalar>& max = std::nullopt);
Tensor clamp_min(const Tensor& self, const Scalar& min);
Tensor clamp_max(const Tensor& self, const Scalar& max);

// ---------------------------------------------------------------- activations
// approximate: "none" (exact, through erf) or "tanh".
Tensor gelu(const Tensor& self, std::string_view approximate = "none");
Tensor hardtanh(const Tensor& self, const Scalar& min_val = -1, const Scalar& max_val = 1);
Tensor relu6(const Tensor& self);
Tensor leaky_relu(const Tensor& self, const Scalar& negative_slope = 0.01);
Tensor elu(const Tensor& self, const Scalar& alpha = 1, const Scalar& scale = 1, const Scalar& input_scale = 1);
Tensor selu(const Tensor& self);
Tensor celu(const Tensor& self, const Scalar& alpha = 1.0);
Tensor softplus(const Tensor& self, const Scalar& beta = 1, const Scalar& threshold = 20);

// ---------------------------------------------------------------- binary
// Each: name(self, other) with a tensor or a number, name_out(out, self, other), and
// name_(self, other) for those that PyTorch has in place.
#define EMBER_POINTWISE_BINARY_OPS(X)                                                          \
  X(remainder) X(fmod) X(pow) X(float_power) X(atan2) X(arctan2) X(hypot) X(copysign)          \
  X(nextafter) X(xlogy) X(bitwise_and) X(bitwise_or) X(bitwise_xor) X(bitwise_left_shift)      \
  X(bitwise_right_shift) X(logical_and) X(logical_or) X(logical_xor) X(floor_divide) X(true_divide)
#define EMBER_POINTWISE_BINARY_OPS_NO_INPLACE(X) X(fmax) X(fmin) X(logaddexp) X(logaddexp2)
#define EMBER_POINTWISE_BINARY_DECL(name)                                     \
  Tensor name(const Tensor& self, const Tensor& other);                       \
  Tensor name(const Tensor& self, const Scalar& other);                       \
  Tensor& name##_out(Tensor& out, const Tensor& self, const Tensor& other);
#define EMBER_POINTWISE_BINARY_INPLACE_DECL(name) \
  EMBER_POINTWISE_BINARY_DECL(name)               \
  Tensor& name##_(Tensor& self, const Tensor& other);
EMBER_POINTWISE_BINARY_OPS(EMBER_POINTWISE_BINARY_INPLACE_DECL)
EMBER_POINTWISE_BINARY_OPS_NO_INPLACE(EMBER_POINTWISE_BINARY_DECL)
#undef EMBER_POINTWISE_BINARY_DECL
#undef EMBER_POINTWISE_BINARY_INPLACE_DECL
Tensor pow(const Scalar& self, const Tensor& exponent);

// ---------------------------------------------------------------- ternary
// self + weight * (end - self)
Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight);
Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight);
// self + value * tensor1 * tensor2, self + value * tensor1 / tensor2
Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1);
Tensor& addcmul_out(Tensor& out, const Tensor& self, const Tensor& tensor1, const Tensor& tensor2,
                    const Scalar& value = 1);
Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value = 1);

// ---------------------------------------------------------------- comparison
// |self - other| <= atol + rtol |other| elementwise; allclose: everywhere; equal: same
// shape and values.
Tensor isclose(const Tensor& self, const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
               bool equal_nan = false);
bool allclose(const Tensor& self, const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
              bool equal_nan = false);
bool equal(const Tensor& self, const Tensor& other);

}  // namespace ember
