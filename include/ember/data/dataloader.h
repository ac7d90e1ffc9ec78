// DataLoader: batches of a map-style dataset in a sampler's order, loaded by worker threads.
//
//   data::DataLoader loader(dataset, {.batch_size = 64, .shuffle = true, .num_workers = 2});
//   for (const data::Batch& batch : loader) { ... batch[0] (images), batch[1] (labels) ... }
//
// Each begin() starts an epoch. With workers, up to num_workers * prefetch_factor batches are
// loaded ahead; batches come out in the sampler's order, so a seed gives the same batches for
// any number of workers. An exception thrown while loading a batch is rethrown from the
// operator++ (or begin) that reaches that batch. Destroying the iterator stops and joins the
// workers, also in the middle of an epoch.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "ember/data/dataset.h"
#include "ember/data/sampler.h"
#include "ember/random.h"

namespace ember::data {

using Batch = std::vector<Tensor>;
using CollateFn = std::function<Batch(std::vector<Example>)>;

// Stacks field j of every example into batch[j]. RuntimeError when examples have different
// numbers of fields (and stack's error for different shapes).
Batch default_collate(std::vector<Example> examples);

struct DataLoaderOptions {
  int64_t batch_size = 1;
  bool shuffle = false;
  bool drop_last = false;
  int64_t num_workers = 0;
  int64_t prefetch_factor = 2;  // batches in flight per worker
  // Shuffling draws from a generator of the loader's own seeded with this (reproducible
  // across runs, a new order each epoch); else from `generator`; else the default generator.
  std::optional<uint64_t> seed = std::nullopt;
  Generator* generator = nullptr;  // not owned
  SamplerPtr sampler = nullptr;    // replaces the sequential / random order; excludes shuffle
  CollateFn collate = nullptr;     // default_collate when empty
};

namespace detail {
class Epoch;
}

class DataLoader {
 public:
  struct Sentinel {};
  class Iterator {
   public:
    const Batch& operator*() const { return current_; }
    const Batch* operator->() const { return &current_; }
    Iterator& operator++();
    bool operator==(Sentinel) const { return done_; }

   private:
    friend class DataLoader;
    explicit Iterator(std::shared_ptr<detail::Epoch> epoch);
    void advance();
    std::shared_ptr<detail::Epoch> epoch_;
    Batch current_;
    bool done_ = false;
  };

  // ValueError for a batch_size or prefetch_factor below 1, negative num_workers, and shuffle
  // together with a sampler (torch's message).
  DataLoader(DatasetPtr dataset, DataLoaderOptions options = {});
  ~DataLoader();
  DataLoader(const DataLoader&) = delete;
  DataLoader& operator=(const DataLoader&) = delete;

  Iterator begin();
  Sentinel end() const { return {}; }
  // Batches per epoch.
  int64_t size() const { return batch_sampler_->size(); }
  const DatasetPtr& dataset() const { return dataset_; }
  const DataLoaderOptions& options() const { return options_; }

 private:
  DatasetPtr dataset_;
  DataLoaderOptions options_;
  std::unique_ptr<Generator> own_generator_;
  std::shared_ptr<BatchSampler> batch_sampler_;
};

}  // namespace ember::data
