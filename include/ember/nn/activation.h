// Activation and dropout layers (torch.nn.modules.activation, dropout). Elementwise
// activations take inputs of any shape.
#pragma once

#include <cstdint>
#include <string>

#include "ember/nn/module.h"

namespace ember::nn {

// ---------------------------------------------------------------- without parameters
#define EMBER_NN_SIMPLE_ACTIVATION(Name) \
  class Name : public ModuleBase<Name> { \
   public:                               \
    Tensor forward(const Tensor& input); \
  };
EMBER_NN_SIMPLE_ACTIVATION(ReLU)
EMBER_NN_SIMPLE_ACTIVATION(ReLU6)
EMBER_NN_SIMPLE_ACTIVATION(SELU)
EMBER_NN_SIMPLE_ACTIVATION(SiLU)
EMBER_NN_SIMPLE_ACTIVATION(Mish)
EMBER_NN_SIMPLE_ACTIVATION(Sigmoid)
EMBER_NN_SIMPLE_ACTIVATION(Tanh)
EMBER_NN_SIMPLE_ACTIVATION(Hardswish)
EMBER_NN_SIMPLE_ACTIVATION(Hardsigmoid)
EMBER_NN_SIMPLE_ACTIVATION(LogSigmoid)
EMBER_NN_SIMPLE_ACTIVATION(Softsign)
EMBER_NN_SIMPLE_ACTIVATION(Tanhshrink)
#undef EMBER_NN_SIMPLE_ACTIVATION

class LeakyReLU : public ModuleBase<LeakyReLU> {
 public:
  explicit LeakyReLU(double negative_slope = 0.01) : negative_slope(negative_slope) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  double negative_slope;
};

// approximate: "none" (through erf) or "tanh".
class GELU : public ModuleBase<GELU> {
 public:
  explicit GELU(std::string approximate = "none");
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  std::string approximate;
};

class ELU : public ModuleBase<ELU> {
 public:
  explicit ELU(double alpha = 1.0) : alpha(alpha) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  double alpha;
};

class CELU : public ModuleBase<CELU> {
 public:
  explicit CELU(double alpha = 1.0);
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  double alpha;
};

// Clamps to [min_val, max_val] (min_val < max_val).
class Hardtanh : public ModuleBase<Hardtanh> {
 public:
  explicit Hardtanh(double min_val = -1.0, double max_val = 1.0);
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  double min_val, max_val;
};

class Softplus : public ModuleBase<Softplus> {
 public:
  explicit Softplus(double beta = 1.0, double threshold = 20.0) : beta(beta), threshold(threshold) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  double beta, threshold;
};

// Along `dim` (PyTorch's implicit-dim default is not offered: give the dim).
class Softmax : public ModuleBase<Softmax> {
 public:
  explicit Softmax(int64_t dim) : dim(dim) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  int64_t dim;
};

class LogSoftmax : public ModuleBase<LogSoftmax> {
 public:
  explicit LogSoftmax(int64_t dim) : dim(dim) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  int64_t dim;
};

// x if x >= 0 else a x, with a learned slope: one, or one per channel (dim 1).
class PReLU : public ModuleBase<PReLU> {
 public:
  explicit PReLU(int64_t num_parameters = 1, double init = 0.25, TensorOptions options = {});
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  int64_t num_parameters;
  Tensor weight;  // [num_parameters]
};

// 0 where |x| <= lambd, else x shrunk towards 0 by lambd (lambd >= 0).
class Softshrink : public ModuleBase<Softshrink> {
 public:
  explicit Softshrink(double lambd = 0.5);
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  double lambd;
};

// 0 where |x| <= lambd, else x.
class Hardshrink : public ModuleBase<Hardshrink> {
 public:
  explicit Hardshrink(double lambd = 0.5) : lambd(lambd) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  double lambd;
};

// x where x > threshold, else value.
class Threshold : public ModuleBase<Threshold> {
 public:
  Threshold(double threshold, double value) : threshold(threshold), value(value) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  double threshold, value;
};

// Leaky ReLU with a slope drawn from U(lower, upper) per element while training, and their
// mean (lower + upper) / 2 in evaluation mode.
class RReLU : public ModuleBase<RReLU> {
 public:
  explicit RReLU(double lower = 1.0 / 8, double upper = 1.0 / 3);
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  double lower, upper;
};

// a * sigmoid(b), a and b the halves of the input along dim (of even size).
class GLU : public ModuleBase<GLU> {
 public:
  explicit GLU(int64_t dim = -1) : dim(dim) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  int64_t dim;
};

// softmax(-x) along dim.
class Softmin : public ModuleBase<Softmin> {
 public:
  explicit Softmin(int64_t dim) : dim(dim) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  int64_t dim;
};

// Softmax over the channels of (N, C, H, W) or (C, H, W) inputs (dim -3).
class Softmax2d : public ModuleBase<Softmax2d> {
 public:
  Tensor forward(const Tensor& input);
};

// ---------------------------------------------------------------- dropout
// Checks p (ValueError outside [0, 1]) and prints it.
class DropoutNd : public Module {
 public:
  DropoutNd(double p, const char* layer);
  std::string extra_repr() const override;
  double p;
};

// While training, zeroes elements with probability p and scales the rest by 1 / (1 - p);
// the identity in evaluation mode.
class Dropout : public ModuleBase<Dropout, DropoutNd> {
 public:
  explicit Dropout(double p = 0.5) : ModuleBase(p, "Dropout") {}
  Tensor forward(const Tensor& input);
};

// Zeroes whole channels: of (N, C, L) or (C, L) inputs.
class Dropout1d : public ModuleBase<Dropout1d, DropoutNd> {
 public:
  explicit Dropout1d(double p = 0.5) : ModuleBase(p, "Dropout1d") {}
  Tensor forward(const Tensor& input);
};

// Of (N, C, H, W) inputs (a 3-D input is taken as (N, C, L), as PyTorch 1.13 does).
class Dropout2d : public ModuleBase<Dropout2d, DropoutNd> {
 public:
  explicit Dropout2d(double p = 0.5) : ModuleBase(p, "Dropout2d") {}
  Tensor forward(const Tensor& input);
};

// Of (N, C, D, H, W) or (C, D, H, W) inputs.
class Dropout3d : public ModuleBase<Dropout3d, DropoutNd> {
 public:
  explicit Dropout3d(double p = 0.5) : ModuleBase(p, "Dropout3d") {}
  Tensor forward(const Tensor& input);
};

// Dropout that keeps the mean and variance of SELU activations.
class AlphaDropout : public ModuleBase<AlphaDropout, DropoutNd> {
 public:
  explicit AlphaDropout(double p = 0.5) : ModuleBase(p, "AlphaDropout") {}
  Tensor forward(const Tensor& input);
};

// AlphaDropout of whole channels: of (N, C, *) inputs.
class FeatureAlphaDropout : public ModuleBase<FeatureAlphaDropout, DropoutNd> {
 public:
  explicit FeatureAlphaDropout(double p = 0.5) : ModuleBase(p, "FeatureAlphaDropout") {}
  Tensor forward(const Tensor& input);
};

}  // namespace ember::nn
