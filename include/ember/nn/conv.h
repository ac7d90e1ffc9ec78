// Convolution and pooling layers: Conv1d/2d/3d, ConvTranspose1d/2d/3d, MaxPool1d/2d/3d,
// AvgPool1d/2d/3d, AdaptiveAvgPool1d/2d/3d (torch.nn.modules.conv, pooling). Inputs are
// batched (N, C, *spatial) or unbatched (C, *spatial). Spatial parameters take one value
// (used for every spatial dim) or one per dim.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

// ---------------------------------------------------------------- convolution
// A convolution's padding: explicit amounts (one for every spatial dim, or one per dim) or
// PyTorch's modes "valid" (none) and "same" (the output keeps the input's size; stride 1
// only; an odd total goes on the far side, as in PyTorch).
//   .padding = {1}, .padding = {1, 2}, .padding = "same"
struct ConvPadding {
  ConvPadding() : values{0} {}
  ConvPadding(std::initializer_list<int64_t> v) : values(v) {}
  ConvPadding(std::vector<int64_t> v) : values(std::move(v)) {}  // NOLINT: implicit on purpose
  ConvPadding(const char* m) : mode(m) {}                          // NOLINT
  ConvPadding(std::string m) : mode(std::move(m)) {}               // NOLINT
  bool is_mode() const { return !mode.empty(); }
  std::vector<int64_t> values;  // when mode is empty
  std::string mode;             // "same" or "valid", or empty
};

// Fields in declaration order (C++ designated initializers keep it):
//   Conv2d({.in_channels = 3, .out_channels = 8, .kernel_size = {3}, .padding = {1}})
struct ConvOptions {
  int64_t in_channels = 0;
  int64_t out_channels = 0;
  std::vector<int64_t> kernel_size = {};
  std::vector<int64_t> stride = {1};
  ConvPadding padding = {0};
  std::vector<int64_t> dilation = {1};
  int64_t groups = 1;
  bool bias = true;
  // Convolutions only: "zeros", "reflect", "replicate" or "circular".
  std::string padding_mode = "zeros";
  // Transposed convolutions only: extra size added to one side of the output.
  std::vector<int64_t> output_padding = {0};
  TensorOptions options = {};
};

// What Conv1d..ConvTranspose3d share: checks, parameters, initialization, printing.
class ConvNd : public Module {
 public:
  ConvNd(int64_t dims, bool transposed, ConvOptions o);
  void reset_parameters();
  std::string extra_repr() const override;

  ConvOptions options;  // spatial parameters (and explicit padding) expanded to one value per dim
  Tensor weight;        // [out, in / groups, *k]; transposed: [in, out / groups, *k]
  Tensor bias;          // [out], undefined without one

 protected:
  Tensor conv(const Tensor& input);
  Tensor conv_transpose(const Tensor& input, IntArrayRef output_size);

 private:
  void check_input(const Tensor& input) const;
  // The padding per spatial dim as (near, far) amounts, last dim first (F.pad's order).
  std::vector<int64_t> pad_amounts() const;
  int64_t dims_;
  bool transposed_;
};

#define EMBER_NN_CONV_LAYER(Name, dims, transposed, ...)                                                  \
  class Name : public ModuleBase<Name, ConvNd> {                                                          \
   public:                                                                                                \
    explicit Name(ConvOptions o) : ModuleBase(dims, transposed, std::move(o)) {}                          \
    Name(int64_t in_channels, int64_t out_channels, int64_t kernel_size)                                  \
        : Name(ConvOptions{                                                                               \
              .in_channels = in_channels, .out_channels = out_channels, .kernel_size = {kernel_size}}) {} \
    __VA_ARGS__                                                                                           \
  };
#define EMBER_NN_CONV_FORWARD Tensor forward(const Tensor& input) { return conv(input); }
// output_size: the spatial size wanted (a transposed convolution's output size is ambiguous
// for strides above 1); it sets output_padding for this call.
#define EMBER_NN_CONV_T_FORWARD \
  Tensor forward(const Tensor& input, IntArrayRef output_size = {}) { return conv_transpose(input, output_size); }
EMBER_NN_CONV_LAYER(Conv1d, 1, false, EMBER_NN_CONV_FORWARD)
EMBER_NN_CONV_LAYER(Conv2d, 2, false, EMBER_NN_CONV_FORWARD)
EMBER_NN_CONV_LAYER(Conv3d, 3, false, EMBER_NN_CONV_FORWARD)
EMBER_NN_CONV_LAYER(ConvTranspose1d, 1, true, EMBER_NN_CONV_T_FORWARD)
EMBER_NN_CONV_LAYER(ConvTranspose2d, 2, true, EMBER_NN_CONV_T_FORWARD)
EMBER_NN_CONV_LAYER(ConvTranspose3d, 3, true, EMBER_NN_CONV_T_FORWARD)
#undef EMBER_NN_CONV_LAYER
#undef EMBER_NN_CONV_FORWARD
#undef EMBER_NN_CONV_T_FORWARD

// ---------------------------------------------------------------- pooling
struct MaxPoolOptions {
  std::vector<int64_t> kernel_size = {};
  std::vector<int64_t> stride = {};  // empty: kernel_size
  std::vector<int64_t> padding = {0};
  std::vector<int64_t> dilation = {1};
  bool ceil_mode = false;
};

struct AvgPoolOptions {
  std::vector<int64_t> kernel_size = {};
  std::vector<int64_t> stride = {};  // empty: kernel_size
  std::vector<int64_t> padding = {0};
  bool ceil_mode = false;
  bool count_include_pad = true;
  std::optional<int64_t> divisor_override = std::nullopt;  // 2-D and 3-D only
};

// What MaxPool1d/2d/3d share (and likewise AvgPoolNd, AdaptiveAvgPoolNd): checks at
// construction, the input check, printing.
class MaxPoolNd : public Module {
 public:
  MaxPoolNd(int64_t dims, MaxPoolOptions o);
  // The maxima and their flat indices within each input plane.
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  std::string extra_repr() const override;
  MaxPoolOptions options;  // as given (stride filled in), as PyTorch prints them

 protected:
  Tensor pool(const Tensor& input);

 private:
  int64_t dims_;
};

class AvgPoolNd : public Module {
 public:
  AvgPoolNd(int64_t dims, AvgPoolOptions o);
  std::string extra_repr() const override;
  AvgPoolOptions options;

 protected:
  Tensor pool(const Tensor& input);

 private:
  int64_t dims_;
};

class AdaptiveAvgPoolNd : public Module {
 public:
  AdaptiveAvgPoolNd(int64_t dims, std::vector<int64_t> output_size);
  std::string extra_repr() const override;
  std::vector<int64_t> output_size;  // as given

 protected:
  Tensor pool(const Tensor& input);

 private:
  int64_t dims_;
};

#define EMBER_NN_POOL_LAYER(Name, Base, Options, dims)           \
  class Name : public ModuleBase<Name, Base> {                   \
   public:                                                       \
    explicit Name(Options o) : ModuleBase(dims, std::move(o)) {} \
    Tensor forward(const Tensor& input) { return pool(input); }  \
  };
EMBER_NN_POOL_LAYER(MaxPool1d, MaxPoolNd, MaxPoolOptions, 1)
EMBER_NN_POOL_LAYER(MaxPool2d, MaxPoolNd, MaxPoolOptions, 2)
EMBER_NN_POOL_LAYER(MaxPool3d, MaxPoolNd, MaxPoolOptions, 3)
EMBER_NN_POOL_LAYER(AvgPool1d, AvgPoolNd, AvgPoolOptions, 1)
EMBER_NN_POOL_LAYER(AvgPool2d, AvgPoolNd, AvgPoolOptions, 2)
EMBER_NN_POOL_LAYER(AvgPool3d, AvgPoolNd, AvgPoolOptions, 3)
// output_size: one value for every spatial dim, or one per dim.
EMBER_NN_POOL_LAYER(AdaptiveAvgPool1d, AdaptiveAvgPoolNd, std::vector<int64_t>, 1)
EMBER_NN_POOL_LAYER(AdaptiveAvgPool2d, AdaptiveAvgPoolNd, std::vector<int64_t>, 2)
EMBER_NN_POOL_LAYER(AdaptiveAvgPool3d, AdaptiveAvgPoolNd, std::vector<int64_t>, 3)
#undef EMBER_NN_POOL_LAYER

}  // namespace ember::nn
