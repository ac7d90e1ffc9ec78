// Map-style datasets. An example is a std::vector<Tensor> (the fields of one sample, e.g. an
// image and its label), so that datasets compose without templates. Datasets are shared
// through std::shared_ptr<const Dataset>; get() may be called from several worker threads at
// once and must therefore be safe to call concurrently.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "ember/tensor.h"

namespace ember {
class Generator;
}

namespace ember::data {

using Example = std::vector<Tensor>;

class Dataset {
 public:
  virtual ~Dataset() = default;
  // The example at `index` (0 <= index < size()).
  virtual Example get(int64_t index) const = 0;
  virtual int64_t size() const = 0;
};
using DatasetPtr = std::shared_ptr<const Dataset>;

// Example i is (t[i] for t in tensors): views of the rows. ValueError unless every tensor
// has the same size in dim 0 ("Size mismatch between tensors", as torch).
class TensorDataset : public Dataset {
 public:
  explicit TensorDataset(std::vector<Tensor> tensors);
  Example get(int64_t index) const override;
  int64_t size() const override;
  const std::vector<Tensor>& tensors() const { return tensors_; }

 private:
  std::vector<Tensor> tensors_;
};

// The datasets one after another. Negative indices count from the end, as in torch.
class ConcatDataset : public Dataset {
 public:
  explicit ConcatDataset(std::vector<DatasetPtr> datasets);
  Example get(int64_t index) const override;
  int64_t size() const override { return cumulative_sizes_.empty() ? 0 : cumulative_sizes_.back(); }
  const std::vector<int64_t>& cumulative_sizes() const { return cumulative_sizes_; }
  const std::vector<DatasetPtr>& datasets() const { return datasets_; }

 private:
  std::vector<DatasetPtr> datasets_;
  std::vector<int64_t> cumulative_sizes_;
};

// The examples of `dataset` at `indices` (checked against the dataset's size when read).
class Subset : public Dataset {
 public:
  Subset(DatasetPtr dataset, std::vector<int64_t> indices);
  Example get(int64_t index) const override;
  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }
  const std::vector<int64_t>& indices() const { return indices_; }
  const DatasetPtr& dataset() const { return dataset_; }

 private:
  DatasetPtr dataset_;
  std::vector<int64_t> indices_;
};

// torch.utils.data.random_split: `lengths` are counts summing to the dataset's size, or
// fractions summing to 1 (each floored, the remainder handed out one by one from the first).
// The permutation is drawn from `gen` (the default generator when null).
std::vector<std::shared_ptr<Subset>> random_split(DatasetPtr dataset, const std::vector<double>& lengths,
                                                  Generator* gen = nullptr);

}  // namespace ember::data
