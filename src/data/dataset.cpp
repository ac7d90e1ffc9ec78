// Map-style datasets, the samplers and random_split (include/ember/data/dataset.h, sampler.h).
#include <algorithm>
#include <cmath>

#include "ember/data/dataset.h"
#include "ember/data/sampler.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "ember/ops/random.h"
#include "ember/random.h"

namespace ember::data {

namespace {
// The int64 values of a 1-D tensor (randperm, randint, multinomial results).
std::vector<int64_t> data_index_list(const Tensor& t) {
  Tensor c = t.to(kInt64).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

// A private generator seeded from `gen` (or the default one): torch's samplers draw one
// 63-bit seed per epoch this way, so that the default generator advances by one draw.
Generator data_epoch_generator(Generator* gen) {
  Tensor s = empty({}, kInt64);
  random_(s, gen);
  return Generator(static_cast<uint64_t>(s.item<int64_t>()));
}
}  // namespace

// ---------------------------------------------------------------- datasets
TensorDataset::TensorDataset(std::vector<Tensor> tensors) : tensors_(std::move(tensors)) {
  EMBER_CHECK(!tensors_.empty(), ValueError, "TensorDataset needs at least one tensor");
  for (const auto& t : tensors_) {
    EMBER_CHECK(t.defined() && t.dim() > 0, ValueError, "TensorDataset: tensors must have at least one dimension");
    EMBER_CHECK(t.size(0) == tensors_[0].size(0), ValueError, "Size mismatch between tensors");
  }
}

int64_t TensorDataset::size() const { return tensors_[0].size(0); }

Example TensorDataset::get(int64_t index) const {
  int64_t n = size();
  EMBER_CHECK(index >= -n && index < n, IndexError, "index ", index, " is out of bounds for dimension 0 with size ", n);
  Example e;
  e.reserve(tensors_.size());
  for (const auto& t : tensors_) e.push_back(t.select(0, index));
  return e;
}

ConcatDataset::ConcatDataset(std::vector<DatasetPtr> datasets) : datasets_(std::move(datasets)) {
  EMBER_CHECK(!datasets_.empty(), ValueError, "datasets should not be an empty iterable");
  int64_t total = 0;
  for (const auto& d : datasets_) {
    EMBER_CHECK(d != nullptr, ValueError, "ConcatDataset: a dataset is null");
    total += d->size();
    cumulative_sizes_.push_back(total);
  }
}

Example ConcatDataset::get(int64_t index) const {
  int64_t n = size();
  if (index < 0) {
    EMBER_CHECK(-index <= n, ValueError, "absolute value of index should not exceed dataset length");
    index += n;
  }
  EMBER_CHECK(index < n, IndexError, "ConcatDataset index ", index, " out of range for length ", n);
  auto it = std::upper_bound(cumulative_sizes_.begin(), cumulative_sizes_.end(), index);
  size_t d = static_cast<size_t>(it - cumulative_sizes_.begin());
  int64_t start = d == 0 ? 0 : cumulative_sizes_[d - 1];
  return datasets_[d]->get(index - start);
}

Subset::Subset(DatasetPtr dataset, std::vector<int64_t> indices)
    : dataset_(std::move(dataset)), indices_(std::move(indices)) {
  EMBER_CHECK(dataset_ != nullptr, ValueError, "Subset: the dataset is null");
}

Example Subset::get(int64_t index) const {
  int64_t n = size();
  EMBER_CHECK(index >= -n && index < n, IndexError, "Subset index ", index, " out of range for length ", n);
  return dataset_->get(indices_[static_cast<size_t>(index < 0 ? index + n : index)]);
}

std::vector<std::shared_ptr<Subset>> random_split(DatasetPtr dataset, const std::vector<double>& lengths,
                                                  Generator* gen) {
  EMBER_CHECK(dataset != nullptr, ValueError, "random_split: the dataset is null");
  int64_t n = dataset->size();
  double sum = 0;
  for (double l : lengths) sum += l;
  std::vector<int64_t> counts;
  // Fractions as torch 1.13 tells them apart: a sum close to 1 and at most 1.
  if (std::abs(sum - 1) <= 1e-9 * std::max(1.0, std::abs(sum)) && sum <= 1) {
    for (size_t i = 0; i < lengths.size(); ++i) {
      EMBER_CHECK(lengths[i] >= 0 && lengths[i] <= 1, ValueError, "Fraction at index ", i, " is not between 0 and 1");
      counts.push_back(static_cast<int64_t>(std::floor(static_cast<double>(n) * lengths[i])));
    }
    int64_t assigned = 0;
    for (int64_t c : counts) assigned += c;
    for (int64_t i = 0; i < n - assigned; ++i) counts[static_cast<size_t>(i) % counts.size()] += 1;
  } else {
    for (double l : lengths) {
      EMBER_CHECK(l >= 0 && l == std::floor(l), ValueError, "random_split: lengths must be non-negative integers or fractions summing to 1, got ", l);
      counts.push_back(static_cast<int64_t>(l));
    }
  }
  int64_t total = 0;
  for (int64_t c : counts) total += c;
  EMBER_CHECK(total == n, ValueError, "Sum of input lengths does not equal the length of the input dataset!");
  std::vector<int64_t> perm = data_index_list(randperm(total, gen));
  std::vector<std::shared_ptr<Subset>> out;
  int64_t offset = 0;
  for (int64_t c : counts) {
    out.push_back(std::make_shared<Subset>(
        dataset, std::vector<int64_t>(perm.begin() + offset, perm.begin() + offset + c)));
    offset += c;
  }
  return out;
}

// ---------------------------------------------------------------- samplers
SequentialSampler::SequentialSampler(int64_t n) : n_(n) {
  EMBER_CHECK(n >= 0, ValueError, "SequentialSampler: the size must be non-negative, got ", n);
}

std::vector<int64_t> SequentialSampler::indices() {
  std::vector<int64_t> v(static_cast<size_t>(n_));
  for (int64_t i = 0; i < n_; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

RandomSampler::RandomSampler(int64_t n, bool replacement, std::optional<int64_t> num_samples, Generator* gen)
    : n_(n), num_samples_(num_samples.value_or(n)), replacement_(replacement), gen_(gen) {
  EMBER_CHECK(n >= 0, ValueError, "RandomSampler: the size must be non-negative, got ", n);
  EMBER_CHECK(num_samples_ > 0, ValueError, "num_samples should be a positive integer value, but got num_samples=",
              num_samples_);
}

std::vector<int64_t> RandomSampler::indices() {
  Generator own = gen_ ? Generator() : data_epoch_generator(nullptr);
  Generator* g = gen_ ? gen_ : &own;
  std::vector<int64_t> out;
  out.reserve(static_cast<size_t>(num_samples_));
  EMBER_CHECK(n_ > 0, ValueError, "RandomSampler: cannot sample from an empty dataset");
  // Drawn in the chunks torch uses (32 with replacement, whole permutations without).
  if (replacement_) {
    for (int64_t left = num_samples_; left > 0; left -= 32) {
      auto part = data_index_list(randint(0, n_, {std::min<int64_t>(left, 32)}, g, kInt64));
      out.insert(out.end(), part.begin(), part.end());
    }
  } else {
    for (int64_t left = num_samples_; left > 0; left -= n_) {
      auto part = data_index_list(randperm(n_, g));
      out.insert(out.end(), part.begin(), part.begin() + std::min(left, n_));
    }
  }
  return out;
}

SubsetRandomSampler::SubsetRandomSampler(std::vector<int64_t> indices, Generator* gen)
    : indices_(std::move(indices)), gen_(gen) {}

std::vector<int64_t> SubsetRandomSampler::indices() {
  auto perm = data_index_list(randperm(static_cast<int64_t>(indices_.size()), gen_));
  std::vector<int64_t> out;
  out.reserve(perm.size());
  for (int64_t p : perm) out.push_back(indices_[static_cast<size_t>(p)]);
  return out;
}

WeightedRandomSampler::WeightedRandomSampler(std::vector<double> weights, int64_t num_samples, bool replacement,
                                             Generator* gen)
    : weights_(std::move(weights)), num_samples_(num_samples), replacement_(replacement), gen_(gen) {
  EMBER_CHECK(num_samples > 0, ValueError, "num_samples should be a positive integer value, but got num_samples=",
              num_samples);
}

std::vector<int64_t> WeightedRandomSampler::indices() {
  return data_index_list(multinomial(tensor(weights_), num_samples_, replacement_, gen_));
}

DistributedSampler::DistributedSampler(int64_t dataset_size, int64_t num_replicas, int64_t rank, bool shuffle,
                                       uint64_t seed, bool drop_last)
    : dataset_size_(dataset_size), num_replicas_(num_replicas), rank_(rank), shuffle_(shuffle), seed_(seed),
      drop_last_(drop_last) {
  EMBER_CHECK(num_replicas > 0, ValueError, "DistributedSampler: num_replicas must be positive, got ", num_replicas);
  EMBER_CHECK(rank >= 0 && rank < num_replicas, ValueError, "Invalid rank ", rank,
              ", rank should be in the interval [0, ", num_replicas - 1, "]");
  EMBER_CHECK(dataset_size >= 0, ValueError, "DistributedSampler: the size must be non-negative");
  if (drop_last && dataset_size % num_replicas != 0)
    num_samples_ = (dataset_size - num_replicas + num_replicas - 1) / num_replicas;  // ceil((n - r) / r)
  else
    num_samples_ = (dataset_size + num_replicas - 1) / num_replicas;
  total_size_ = num_samples_ * num_replicas;
}

std::vector<int64_t> DistributedSampler::indices() {
  std::vector<int64_t> all;
  if (shuffle_) {
    Generator g(seed_ + static_cast<uint64_t>(epoch_));
    all = data_index_list(randperm(dataset_size_, &g));
  } else {
    all = SequentialSampler(dataset_size_).indices();
  }
  // Padded by repeating the list from the start (several times over if need be), or cut.
  size_t total = static_cast<size_t>(total_size_);
  if (all.size() < total) {
    EMBER_CHECK(!all.empty(), ValueError, "DistributedSampler: cannot pad an empty dataset");
    size_t n = all.size();
    for (size_t i = n; i < total; ++i) all.push_back(all[i % n]);
  }
  all.resize(total);
  std::vector<int64_t> out;
  for (size_t i = static_cast<size_t>(rank_); i < total; i += static_cast<size_t>(num_replicas_)) out.push_back(all[i]);
  return out;
}

BatchSampler::BatchSampler(SamplerPtr sampler, int64_t batch_size, bool drop_last)
    : sampler_(std::move(sampler)), batch_size_(batch_size), drop_last_(drop_last) {
  EMBER_CHECK(sampler_ != nullptr, ValueError, "BatchSampler: the sampler is null");
  EMBER_CHECK(batch_size > 0, ValueError, "batch_size should be a positive integer value, but got batch_size=",
              batch_size);
}

std::vector<std::vector<int64_t>> BatchSampler::batches() {
  std::vector<int64_t> idx = sampler_->indices();
  std::vector<std::vector<int64_t>> out;
  size_t bs = static_cast<size_t>(batch_size_);
  for (size_t i = 0; i < idx.size(); i += bs) {
    size_t end = std::min(idx.size(), i + bs);
    if (drop_last_ && end - i < bs) break;
    out.emplace_back(idx.begin() + static_cast<std::ptrdiff_t>(i), idx.begin() + static_cast<std::ptrdiff_t>(end));
  }
  return out;
}

int64_t BatchSampler::size() const {
  int64_t n = sampler_->size();
  return drop_last_ ? n / batch_size_ : (n + batch_size_ - 1) / batch_size_;
}

}  // namespace ember::data
