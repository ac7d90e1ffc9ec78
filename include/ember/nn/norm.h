// Normalization layers: BatchNorm1d/2d/3d, InstanceNorm1d/2d/3d, LayerNorm, GroupNorm,
// LocalResponseNorm (torch.nn.modules.batchnorm, instancenorm, normalization). Affine weights start at 1, biases at 0.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

// What BatchNorm and InstanceNorm share (PyTorch's _NormBase): the [C] affine parameters and
// the running-statistics buffers, registered under torch's names and reset as torch does.
class NormBase : public Module {
 public:
  void reset_running_stats();
  void reset_parameters();

  Tensor weight, bias;                                     // [C] with affine
  Tensor running_mean, running_var, num_batches_tracked;  // buffers with track_running_stats

 protected:
  // kind: "BatchNorm" or "InstanceNorm", for the errors.
  NormBase(const char* kind, int64_t dims, int64_t num_features, double eps, bool affine, bool track_running_stats,
           const TensorOptions& options);
};

struct BatchNormOptions {
  int64_t num_features = 0;
  double eps = 1e-5;
  // Weight of the batch statistics in the running ones; nullopt: a cumulative average.
  std::optional<double> momentum = 0.1;
  bool affine = true;
  bool track_running_stats = true;
  TensorOptions options = {};
};

// Batch norm over channel dim 1. Training: normalizes with the batch's statistics and (with
// track_running_stats) updates running_mean, running_var and num_batches_tracked; evaluation:
// uses the running statistics (the batch's when they are not tracked).
class BatchNormNd : public NormBase {
 public:
  BatchNormNd(int64_t dims, BatchNormOptions o);
  std::string extra_repr() const override;

  BatchNormOptions options;

 protected:
  Tensor normalize(const Tensor& input);

 private:
  int64_t dims_;  // the input dims accepted: 2 or 3 (BatchNorm1d), 4, 5
};

#define EMBER_NN_BATCH_NORM(Name, dims)                                                           \
  class Name : public ModuleBase<Name, BatchNormNd> {                                             \
   public:                                                                                        \
    explicit Name(BatchNormOptions o) : ModuleBase(dims, std::move(o)) {}                         \
    explicit Name(int64_t num_features) : Name(BatchNormOptions{.num_features = num_features}) {} \
    Tensor forward(const Tensor& input) { return normalize(input); }                              \
  };
EMBER_NN_BATCH_NORM(BatchNorm1d, 1)  // (N, C) or (N, C, L)
EMBER_NN_BATCH_NORM(BatchNorm2d, 2)  // (N, C, H, W)
EMBER_NN_BATCH_NORM(BatchNorm3d, 3)  // (N, C, D, H, W)
#undef EMBER_NN_BATCH_NORM

// InstanceNorm's defaults differ from BatchNorm's: no affine map, no running statistics.
struct InstanceNormOptions {
  int64_t num_features = 0;
  double eps = 1e-5;
  double momentum = 0.1;
  bool affine = false;
  bool track_running_stats = false;
  TensorOptions options = {};
};

// Normalizes each (sample, channel) over its spatial elements, then a per-channel affine
// map. With track_running_stats, training updates running_mean / running_var with the
// statistics averaged over the samples (num_batches_tracked is registered, as in PyTorch, but
// not counted) and evaluation uses them.
class InstanceNormNd : public NormBase {
 public:
  InstanceNormNd(int64_t dims, InstanceNormOptions o);
  std::string extra_repr() const override;

  InstanceNormOptions options;

 protected:
  Tensor normalize(const Tensor& input);

 private:
  int64_t dims_;  // spatial dims: 1, 2 or 3
};

#define EMBER_NN_INSTANCE_NORM(Name, dims)                                                              \
  class Name : public ModuleBase<Name, InstanceNormNd> {                                                \
   public:                                                                                              \
    explicit Name(InstanceNormOptions o) : ModuleBase(dims, std::move(o)) {}                            \
    explicit Name(int64_t num_features) : Name(InstanceNormOptions{.num_features = num_features}) {}    \
    Tensor forward(const Tensor& input) { return normalize(input); }                                    \
  };
EMBER_NN_INSTANCE_NORM(InstanceNorm1d, 1)  // (N, C, L) or (C, L)
EMBER_NN_INSTANCE_NORM(InstanceNorm2d, 2)  // (N, C, H, W) or (C, H, W)
EMBER_NN_INSTANCE_NORM(InstanceNorm3d, 3)  // (N, C, D, H, W) or (C, D, H, W)
#undef EMBER_NN_INSTANCE_NORM

struct LayerNormOptions {
  std::vector<int64_t> normalized_shape = {};
  double eps = 1e-5;
  bool elementwise_affine = true;
  TensorOptions options = {};
};

// Normalizes over the last len(normalized_shape) dims, then an elementwise affine map.
class LayerNorm : public ModuleBase<LayerNorm> {
 public:
  explicit LayerNorm(LayerNormOptions o);
  explicit LayerNorm(std::vector<int64_t> normalized_shape)
      : LayerNorm(LayerNormOptions{.normalized_shape = std::move(normalized_shape)}) {}
  // input: [*, *normalized_shape].
  Tensor forward(const Tensor& input);
  void reset_parameters();
  std::string extra_repr() const override;

  LayerNormOptions options;
  Tensor weight, bias;  // normalized_shape, with elementwise_affine
};

struct GroupNormOptions {
  int64_t num_groups = 0;
  int64_t num_channels = 0;
  double eps = 1e-5;
  bool affine = true;
  TensorOptions options = {};
};

// Normalizes each group of num_channels / num_groups channels, then a per-channel affine map.
class GroupNorm : public ModuleBase<GroupNorm> {
 public:
  explicit GroupNorm(GroupNormOptions o);
  GroupNorm(int64_t num_groups, int64_t num_channels)
      : GroupNorm(GroupNormOptions{.num_groups = num_groups, .num_channels = num_channels}) {}
  // input: (N, C, *).
  Tensor forward(const Tensor& input);
  void reset_parameters();
  std::string extra_repr() const override;

  GroupNormOptions options;
  Tensor weight, bias;  // [C], with affine
};

struct LocalResponseNormOptions {
  int64_t size = 0;
  double alpha = 1e-4;
  double beta = 0.75;
  double k = 1.0;
};

// x / (k + alpha / size * (sum of x^2 over `size` neighbouring channels))^beta; input
// (N, C, *) with at least 3 dims.
class LocalResponseNorm : public ModuleBase<LocalResponseNorm> {
 public:
  explicit LocalResponseNorm(LocalResponseNormOptions o);
  explicit LocalResponseNorm(int64_t size) : LocalResponseNorm(LocalResponseNormOptions{.size = size}) {}
  Tensor forward(const Tensor& input);
  std::string extra_repr() const override;
  LocalResponseNormOptions options;
};

}  // namespace ember::nn
