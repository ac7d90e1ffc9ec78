// Activation and dropout layers (include/ember/nn/activation.h).
#include "ember/nn/activation.h"

#include "ember/nn/functional.h"
#include "ember/nn/init.h"
#include "ember/ops.h"
#include "nn/check.h"

namespace ember::nn {

Tensor ReLU::forward(const Tensor& input) { return relu(input); }
Tensor ReLU6::forward(const Tensor& input) { return relu6(input); }
Tensor SELU::forward(const Tensor& input) { return selu(input); }
Tensor SiLU::forward(const Tensor& input) { return silu(input); }
Tensor Mish::forward(const Tensor& input) { return mish(input); }
Tensor Sigmoid::forward(const Tensor& input) { return sigmoid(input); }
Tensor Tanh::forward(const Tensor& input) { return tanh(input); }
Tensor Hardswish::forward(const Tensor& input) { return hardswish(input); }
Tensor Hardsigmoid::forward(const Tensor& input) { return hardsigmoid(input); }
Tensor LogSigmoid::forward(const Tensor& input) { return log_sigmoid(input); }
Tensor Softsign::forward(const Tensor& input) { return softsign(input); }
Tensor Tanhshrink::forward(const Tensor& input) { return tanhshrink(input); }

Tensor LeakyReLU::forward(const Tensor& input) { return leaky_relu(input, negative_slope); }
std::string LeakyReLU::extra_repr() const { return "negative_slope=" + detail::py_float(negative_slope); }

GELU::GELU(std::string approximate) : approximate(std::move(approximate)) {
  EMBER_CHECK(this->approximate == "none" || this->approximate == "tanh", ValueError,
              "GELU: approximate must be 'none' or 'tanh', got '", this->approximate, "'");
}
Tensor GELU::forward(const Tensor& input) { return gelu(input, approximate); }
std::string GELU::extra_repr() const { return "approximate='" + approximate + "'"; }

Tensor ELU::forward(const Tensor& input) { return elu(input, alpha); }
std::string ELU::extra_repr() const { return "alpha=" + detail::py_float(alpha); }

CELU::CELU(double alpha) : alpha(alpha) { EMBER_CHECK(alpha != 0, ValueError, "CELU: alpha must not be zero"); }
Tensor CELU::forward(const Tensor& input) { return celu(input, alpha); }
std::string CELU::extra_repr() const { return "alpha=" + detail::py_float(alpha); }

Hardtanh::Hardtanh(double min_val, double max_val) : min_val(min_val), max_val(max_val) {
  EMBER_CHECK(max_val > min_val, ValueError, "Hardtanh: max_val (", detail::py_float(max_val),
              ") must be greater than min_val (", detail::py_float(min_val), ")");
}
Tensor Hardtanh::forward(const Tensor& input) { return hardtanh(input, min_val, max_val); }
std::string Hardtanh::extra_repr() const {
  return "min_val=" + detail::py_float(min_val) + ", max_val=" + detail::py_float(max_val);
}

Tensor Softplus::forward(const Tensor& input) { return softplus(input, beta, threshold); }
std::string Softplus::extra_repr() const {
  return "beta=" + detail::py_float(beta) + ", threshold=" + detail::py_float(threshold);
}

Tensor Softmax::forward(const Tensor& input) {
  const int64_t n = std::max<int64_t>(input.dim(), 1);
  EMBER_CHECK(dim >= -n && dim < n, RuntimeError, name(), ": dim ", dim, " is out of range for an input of shape ",
              input.sizes());
  return softmax(input, dim);
}
std::string Softmax::extra_repr() const { return "dim=" + std::to_string(dim); }

Tensor LogSoftmax::forward(const Tensor& input) {
  const int64_t n = std::max<int64_t>(input.dim(), 1);
  EMBER_CHECK(dim >= -n && dim < n, RuntimeError, name(), ": dim ", dim, " is out of range for an input of shape ",
              input.sizes());
  return log_softmax(input, dim);
}
std::string LogSoftmax::extra_repr() const { return "dim=" + std::to_string(dim); }

PReLU::PReLU(int64_t num_parameters, double init, TensorOptions options) : num_parameters(num_parameters) {
  EMBER_CHECK(num_parameters > 0, ValueError, "PReLU: num_parameters must be positive, got ", num_parameters);
  bind_tensor("weight", &PReLU::weight);
  weight = register_parameter("weight", empty({num_parameters}, options));
  init::constant_(weight, init);
}
Tensor PReLU::forward(const Tensor& input) {
  EMBER_CHECK(num_parameters == 1 || (input.dim() >= 2 && input.size(1) == num_parameters) ||
                  (input.dim() == 1 && input.size(0) == num_parameters),
              RuntimeError, name(), ": expected input with ", num_parameters,
              " channels (num_parameters) at dim 1, got shape ", input.sizes());
  detail::check_same_dtype(*this, input, weight);
  return prelu(input, weight);
}
std::string PReLU::extra_repr() const { return "num_parameters=" + std::to_string(num_parameters); }

Softshrink::Softshrink(double lambd) : lambd(lambd) {
  EMBER_CHECK(lambd >= 0, ValueError, "Softshrink: lambda must be greater or equal to 0, but found to be ",
              detail::py_float(lambd));
}
Tensor Softshrink::forward(const Tensor& input) { return softshrink(input, lambd); }
std::string Softshrink::extra_repr() const { return detail::py_float(lambd); }

Tensor Hardshrink::forward(const Tensor& input) { return hardshrink(input, lambd); }
std::string Hardshrink::extra_repr() const { return detail::py_float(lambd); }

Tensor Threshold::forward(const Tensor& input) { return ember::threshold(input, threshold, value); }
std::string Threshold::extra_repr() const {
  return "threshold=" + detail::py_float(threshold) + ", value=" + detail::py_float(value);
}

RReLU::RReLU(double lower, double upper) : lower(lower), upper(upper) {
  EMBER_CHECK(lower <= upper, ValueError, "RReLU: lower bound (", detail::py_float(lower),
              ") should be less than or equal to the upper bound (", detail::py_float(upper), ")");
}
Tensor RReLU::forward(const Tensor& input) { return rrelu(input, lower, upper, is_training()); }
std::string RReLU::extra_repr() const {
  return "lower=" + detail::py_float(lower) + ", upper=" + detail::py_float(upper);
}

Tensor GLU::forward(const Tensor& input) {
  const int64_t n = input.dim();
  EMBER_CHECK(n > 0 && dim >= -n && dim < n, RuntimeError, name(), ": dim ", dim,
              " is out of range for an input of shape ", input.sizes());
  const int64_t d = dim < 0 ? dim + n : dim;
  EMBER_CHECK(input.size(d) % 2 == 0, RuntimeError, name(), ": halving dimension must be even, but dimension ", d,
              " is size ", input.size(d), " (input of shape ", input.sizes(), ")");
  return glu(input, dim);
}
std::string GLU::extra_repr() const { return "dim=" + std::to_string(dim); }

Tensor Softmin::forward(const Tensor& input) {
  const int64_t n = std::max<int64_t>(input.dim(), 1);
  EMBER_CHECK(dim >= -n && dim < n, RuntimeError, name(), ": dim ", dim, " is out of range for an input of shape ",
              input.sizes());
  return functional::softmin(input, dim);
}
std::string Softmin::extra_repr() const { return "dim=" + std::to_string(dim); }

Tensor Softmax2d::forward(const Tensor& input) {
  detail::check_dims(*this, input, 3, 4, "(N, C, H, W) or (C, H, W)");
  return softmax(input, -3);
}

// ---------------------------------------------------------------- dropout

DropoutNd::DropoutNd(double p, const char* layer) : p(p) {
  EMBER_CHECK(p >= 0 && p <= 1, ValueError, layer, ": dropout probability has to be between 0 and 1, but got ",
              detail::py_float(p));
}

std::string DropoutNd::extra_repr() const { return "p=" + detail::py_float(p) + ", inplace=False"; }

Tensor Dropout::forward(const Tensor& input) { return functional::dropout(input, p, is_training()); }

Tensor Dropout1d::forward(const Tensor& input) {
  detail::check_dims(*this, input, 2, 3, "(N, C, L) or (C, L)");
  return functional::dropout1d(input, p, is_training());
}

Tensor Dropout2d::forward(const Tensor& input) {
  detail::check_dims(*this, input, 3, 4, "(N, C, H, W) or (N, C, L)");
  return functional::dropout2d(input, p, is_training());
}

Tensor Dropout3d::forward(const Tensor& input) {
  detail::check_dims(*this, input, 4, 5, "(N, C, D, H, W) or (C, D, H, W)");
  return functional::dropout3d(input, p, is_training());
}

Tensor AlphaDropout::forward(const Tensor& input) { return functional::alpha_dropout(input, p, is_training()); }

Tensor FeatureAlphaDropout::forward(const Tensor& input) {
  detail::check_dims(*this, input, 2, 64, "(N, C, *)");
  return functional::feature_alpha_dropout(input, p, is_training());
}

}  // namespace ember::nn
