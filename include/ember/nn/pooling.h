// More pooling layers (torch.nn.modules.pooling): AdaptiveMaxPool1d/2d/3d, MaxUnpool1d/2d/3d,
// LPPool1d/2d. The others are in conv.h. Inputs are batched (N, C, *spatial) or unbatched
// (C, *spatial); spatial parameters take one value (for every spatial dim) or one per dim.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

// The maxima over adaptive windows that tile the input into output_size cells.
// forward_with_indices also returns each maximum's flat index within its input plane
// (PyTorch's return_indices=True).
class AdaptiveMaxPoolNd : public Module {
 public:
  AdaptiveMaxPoolNd(int64_t dims, std::vector<int64_t> output_size);
  std::tuple<Tensor, Tensor> forward_with_indices(const Tensor& input);
  std::string extra_repr() const override;
  std::vector<int64_t> output_size;  // as given

 protected:
  Tensor pool(const Tensor& input) { return std::get<0>(forward_with_indices(input)); }

 private:
  int64_t dims_;
};

struct MaxUnpoolOptions {
  std::vector<int64_t> kernel_size = {};
  std::vector<int64_t> stride = {};  // empty: kernel_size
  std::vector<int64_t> padding = {0};
};

// The inverse of MaxPoolNd: puts each value at the index forward_with_indices returned and
// zeroes the rest. output_size (spatial, or with N and C) picks among the sizes the pooled
// input may have come from; by default the smallest.
class MaxUnpoolNd : public Module {
 public:
  MaxUnpoolNd(int64_t dims, MaxUnpoolOptions o);
  std::string extra_repr() const override;
  MaxUnpoolOptions options;  // expanded to one value per dim, as PyTorch prints them

 protected:
  Tensor unpool(const Tensor& input, const Tensor& indices, IntArrayRef output_size);

 private:
  int64_t dims_;
};

struct LPPoolOptions {
  double norm_type = 2.0;
  std::vector<int64_t> kernel_size = {};
  std::vector<int64_t> stride = {};  // empty: kernel_size (printed as None)
  bool ceil_mode = false;
};

// Power-average pooling: (sum over each window of x^p)^(1/p).
class LPPoolNd : public Module {
 public:
  LPPoolNd(int64_t dims, LPPoolOptions o);
  std::string extra_repr() const override;
  LPPoolOptions options;  // as given

 protected:
  Tensor pool(const Tensor& input);

 private:
  int64_t dims_;
};

#define EMBER_NN_POOL2_LAYER(Name, Base, Options, dims, ...)     \
  class Name : public ModuleBase<Name, Base> {                   \
   public:                                                       \
    explicit Name(Options o) : ModuleBase(dims, std::move(o)) {} \
    __VA_ARGS__                                                  \
  };
#define EMBER_NN_POOL2_FORWARD Tensor forward(const Tensor& input) { return pool(input); }
#define EMBER_NN_UNPOOL_FORWARD                                                           \
  Tensor forward(const Tensor& input, const Tensor& indices, IntArrayRef output_size = {}) { \
    return unpool(input, indices, output_size);                                           \
  }
// output_size: one value for every spatial dim, or one per dim.
EMBER_NN_POOL2_LAYER(AdaptiveMaxPool1d, AdaptiveMaxPoolNd, std::vector<int64_t>, 1, EMBER_NN_POOL2_FORWARD)
EMBER_NN_POOL2_LAYER(AdaptiveMaxPool2d, AdaptiveMaxPoolNd, std::vector<int64_t>, 2, EMBER_NN_POOL2_FORWARD)
EMBER_NN_POOL2_LAYER(AdaptiveMaxPool3d, AdaptiveMaxPoolNd, std::vector<int64_t>, 3, EMBER_NN_POOL2_FORWARD)
EMBER_NN_POOL2_LAYER(MaxUnpool1d, MaxUnpoolNd, MaxUnpoolOptions, 1, EMBER_NN_UNPOOL_FORWARD)
EMBER_NN_POOL2_LAYER(MaxUnpool2d, MaxUnpoolNd, MaxUnpoolOptions, 2, EMBER_NN_UNPOOL_FORWARD)
EMBER_NN_POOL2_LAYER(MaxUnpool3d, MaxUnpoolNd, MaxUnpoolOptions, 3, EMBER_NN_UNPOOL_FORWARD)
EMBER_NN_POOL2_LAYER(LPPool1d, LPPoolNd, LPPoolOptions, 1, EMBER_NN_POOL2_FORWARD)
EMBER_NN_POOL2_LAYER(LPPool2d, LPPoolNd, LPPoolOptions, 2, EMBER_NN_POOL2_FORWARD)
#undef EMBER_NN_POOL2_LAYER
#undef EMBER_NN_POOL2_FORWARD
#undef EMBER_NN_UNPOOL_FORWARD

}  // namespace ember::nn
