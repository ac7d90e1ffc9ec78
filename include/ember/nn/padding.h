// Padding layers (torch.nn.modules.padding): ReflectionPad1d/2d/3d, ReplicationPad1d/2d/3d,
// ZeroPad2d, ConstantPad1d/2d/3d. padding is one amount for every side, or (left, right)
// for 1-D, (left, right, top, bottom) for 2-D, (left, right, top, bottom, front, back) for
// 3-D: the last dim's pair first, as F.pad takes them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

// What the padding layers share: the amounts (expanded to 2 per padded dim), the input
// check and printing.
class PadNd : public Module {
 public:
  // mode: "reflect", "replicate" or "constant".
  PadNd(int64_t dims, const char* mode, std::vector<int64_t> padding, double value = 0.0);
  std::string extra_repr() const override;
  std::vector<int64_t> padding;  // 2 * dims amounts
  double value;                  // constant padding only

 protected:
  Tensor pad(const Tensor& input);

 private:
  int64_t dims_;
  std::string mode_;
};

#define EMBER_NN_PAD_LAYER(Name, dims, mode)                                                    \
  class Name : public ModuleBase<Name, PadNd> {                                                 \
   public:                                                                                      \
    explicit Name(int64_t padding) : ModuleBase(dims, mode, std::vector<int64_t>{padding}) {}   \
    explicit Name(std::vector<int64_t> padding) : ModuleBase(dims, mode, std::move(padding)) {} \
    Tensor forward(const Tensor& input) { return pad(input); }                                  \
  };
EMBER_NN_PAD_LAYER(ReflectionPad1d, 1, "reflect")   // (N, C, W) or (C, W)
EMBER_NN_PAD_LAYER(ReflectionPad2d, 2, "reflect")   // (N, C, H, W) or (C, H, W)
EMBER_NN_PAD_LAYER(ReflectionPad3d, 3, "reflect")   // (N, C, D, H, W) or (C, D, H, W)
EMBER_NN_PAD_LAYER(ReplicationPad1d, 1, "replicate")
EMBER_NN_PAD_LAYER(ReplicationPad2d, 2, "replicate")
EMBER_NN_PAD_LAYER(ReplicationPad3d, 3, "replicate")
EMBER_NN_PAD_LAYER(ZeroPad2d, 2, "constant")  // any input with at least 2 dims
#undef EMBER_NN_PAD_LAYER

// Pads with `value`; any input with at least 1, 2 or 3 dims. Negative amounts crop.
#define EMBER_NN_CONSTANT_PAD_LAYER(Name, dims)                                                                   \
  class Name : public ModuleBase<Name, PadNd> {                                                                   \
   public:                                                                                                        \
    Name(int64_t padding, double value) : ModuleBase(dims, "constant", std::vector<int64_t>{padding}, value) {}   \
    Name(std::vector<int64_t> padding, double value) : ModuleBase(dims, "constant", std::move(padding), value) {} \
    Tensor forward(const Tensor& input) { return pad(input); }                                                    \
  };
EMBER_NN_CONSTANT_PAD_LAYER(ConstantPad1d, 1)
EMBER_NN_CONSTANT_PAD_LAYER(ConstantPad2d, 2)
EMBER_NN_CONSTANT_PAD_LAYER(ConstantPad3d, 3)
#undef EMBER_NN_CONSTANT_PAD_LAYER

}  // namespace ember::nn
