// Samplers: the order in which a DataLoader visits a dataset. indices() returns one epoch's
// indices; a random sampler draws a new order on every call. Generators are not owned: a
// sampler given one must not outlive it (null means the default generator).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace ember {
class Generator;
}

namespace ember::data {

class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual std::vector<int64_t> indices() = 0;
  virtual int64_t size() const = 0;
};
using SamplerPtr = std::shared_ptr<Sampler>;

// 0, 1, ..., n-1.
class SequentialSampler : public Sampler {
 public:
  explicit SequentialSampler(int64_t n);
  std::vector<int64_t> indices() override;
  int64_t size() const override { return n_; }

 private:
  int64_t n_;
};

// A permutation of 0..n-1 (repeated while num_samples exceeds n), or num_samples draws with
// replacement. Without a generator each epoch seeds a private one from the default generator,
// as torch does, so ember::manual_seed makes the orders reproducible.
class RandomSampler : public Sampler {
 public:
  RandomSampler(int64_t n, bool replacement = false, std::optional<int64_t> num_samples = std::nullopt,
                Generator* gen = nullptr);
  std::vector<int64_t> indices() override;
  int64_t size() const override { return num_samples_; }

 private:
  int64_t n_, num_samples_;
  bool replacement_;
  Generator* gen_;
};

// The given indices in a random order.
class SubsetRandomSampler : public Sampler {
 public:
  explicit SubsetRandomSampler(std::vector<int64_t> indices, Generator* gen = nullptr);
  std::vector<int64_t> indices() override;
  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }

 private:
  std::vector<int64_t> indices_;
  Generator* gen_;
};

// num_samples indices drawn with probabilities proportional to `weights` (multinomial).
class WeightedRandomSampler : public Sampler {
 public:
  WeightedRandomSampler(std::vector<double> weights, int64_t num_samples, bool replacement = true,
                        Generator* gen = nullptr);
  std::vector<int64_t> indices() override;
  int64_t size() const override { return num_samples_; }

 private:
  std::vector<double> weights_;
  int64_t num_samples_;
  bool replacement_;
  Generator* gen_;
};

// A DistributedSampler's share of the dataset for one replica: the (shuffled with seed +
// epoch) indices padded by repetition to a multiple of num_replicas (or cut to one with
// drop_last), then every num_replicas-th from `rank`.
class DistributedSampler : public Sampler {
 public:
  DistributedSampler(int64_t dataset_size, int64_t num_replicas, int64_t rank, bool shuffle = true,
                     uint64_t seed = 0, bool drop_last = false);
  std::vector<int64_t> indices() override;
  int64_t size() const override { return num_samples_; }
  void set_epoch(int64_t epoch) { epoch_ = epoch; }
  int64_t total_size() const { return total_size_; }

 private:
  int64_t dataset_size_, num_replicas_, rank_;
  bool shuffle_;
  uint64_t seed_;
  bool drop_last_;
  int64_t epoch_ = 0, num_samples_, total_size_;
};

// Groups a sampler's indices into batches of batch_size (the last one smaller unless drop_last).
class BatchSampler {
 public:
  BatchSampler(SamplerPtr sampler, int64_t batch_size, bool drop_last);
  std::vector<std::vector<int64_t>> batches();
  int64_t size() const;
  const SamplerPtr& sampler() const { return sampler_; }

 private:
  SamplerPtr sampler_;
  int64_t batch_size_;
  bool drop_last_;
};

}  // namespace ember::data
