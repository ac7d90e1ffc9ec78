// The C++ DataLoader (include/ember/data/dataloader.h). An epoch owns its batches' indices and
// its worker threads; workers claim batches in order from a shared counter, at most
// num_workers * prefetch_factor ahead of the consumer, and file each result (a batch or the
// exception that loading it threw) under its number, so the consumer sees sampler order.
#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "ember/data/dataloader.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "ember/parallel.h"

namespace ember::data {

Batch default_collate(std::vector<Example> examples) {
  EMBER_CHECK(!examples.empty(), ValueError, "default_collate: the batch is empty");
  size_t fields = examples[0].size();
  for (const auto& e : examples)
    EMBER_CHECK(e.size() == fields, RuntimeError, "each element in list of batch should be of equal size");
  Batch out;
  out.reserve(fields);
  std::vector<Tensor> column(examples.size());
  for (size_t f = 0; f < fields; ++f) {
    for (size_t i = 0; i < examples.size(); ++i) column[i] = std::move(examples[i][f]);
    out.push_back(stack(column, 0));
  }
  return out;
}

namespace detail {

class Epoch {
 public:
  Epoch(DatasetPtr dataset, CollateFn collate, std::vector<std::vector<int64_t>> batches, int64_t num_workers,
        int64_t prefetch_factor)
      : dataset_(std::move(dataset)), collate_(std::move(collate)), batches_(std::move(batches)),
        window_(static_cast<size_t>(num_workers * prefetch_factor)) {
    for (int64_t w = 0; w < num_workers; ++w) workers_.emplace_back([this] { work(); });
  }

  ~Epoch() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }

  // The next batch, nullopt at the end; rethrows what loading the batch threw.
  std::optional<Batch> next() {
    if (consumed_ >= batches_.size()) return std::nullopt;
    if (workers_.empty()) return load(consumed_++);
    Result r;
    {
      std::unique_lock<std::mutex> lock(mu_);
      size_t k = consumed_;
      cv_.wait(lock, [&] { return results_.count(k) != 0; });
      r = std::move(results_[k]);
      results_.erase(k);
      ++consumed_;
    }
    cv_.notify_all();  // the window moved: a worker may claim another batch
    if (r.error) std::rethrow_exception(r.error);
    return std::move(r.batch);
  }

 private:
  struct Result {
    Batch batch;
    std::exception_ptr error;
  };

  Batch load(size_t k) const {
    std::vector<Example> examples;
    examples.reserve(batches_[k].size());
    for (int64_t i : batches_[k]) examples.push_back(dataset_->get(i));
    return collate_ ? collate_(std::move(examples)) : default_collate(std::move(examples));
  }

  void work() {
    set_num_threads(1);  // as torch's workers: the workers are the parallelism (per-thread setting)
    for (;;) {
      size_t k;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [&] { return stop_ || claimed_ >= batches_.size() || claimed_ < consumed_ + window_; });
        if (stop_ || claimed_ >= batches_.size()) return;
        k = claimed_++;
      }
      Result r;
      try {
        r.batch = load(k);
      } catch (...) {
        r.error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lock(mu_);
        results_[k] = std::move(r);
      }
      cv_.notify_all();
    }
  }

  DatasetPtr dataset_;
  CollateFn collate_;
  std::vector<std::vector<int64_t>> batches_;
  size_t window_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<size_t, Result> results_;
  size_t claimed_ = 0;   // next batch a worker will load
  size_t consumed_ = 0;  // next batch the consumer takes (changed under mu_ when there are workers)
  bool stop_ = false;
  std::vector<std::thread> workers_;  // last: started after everything they use exists
};

}  // namespace detail

DataLoader::DataLoader(DatasetPtr dataset, DataLoaderOptions options)
    : dataset_(std::move(dataset)), options_(std::move(options)) {
  EMBER_CHECK(dataset_ != nullptr, ValueError, "DataLoader: the dataset is null");
  EMBER_CHECK(options_.num_workers >= 0, ValueError,
              "num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.");
  EMBER_CHECK(options_.prefetch_factor > 0, ValueError, "prefetch_factor option should be positive, got ",
              options_.prefetch_factor);
  EMBER_CHECK(!(options_.sampler && options_.shuffle), ValueError, "sampler option is mutually exclusive with shuffle");
  if (options_.seed) own_generator_ = std::make_unique<Generator>(*options_.seed);
  Generator* gen = own_generator_ ? own_generator_.get() : options_.generator;
  SamplerPtr sampler = options_.sampler;
  if (!sampler) {
    if (options_.shuffle)
      sampler = std::make_shared<RandomSampler>(dataset_->size(), false, std::nullopt, gen);
    else
      sampler = std::make_shared<SequentialSampler>(dataset_->size());
  }
  batch_sampler_ = std::make_shared<BatchSampler>(std::move(sampler), options_.batch_size, options_.drop_last);
}

DataLoader::~DataLoader() = default;

DataLoader::Iterator DataLoader::begin() {
  return Iterator(std::make_shared<detail::Epoch>(dataset_, options_.collate, batch_sampler_->batches(),
                                                  options_.num_workers, options_.prefetch_factor));
}

DataLoader::Iterator::Iterator(std::shared_ptr<detail::Epoch> epoch) : epoch_(std::move(epoch)) { advance(); }

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  advance();
  return *this;
}

void DataLoader::Iterator::advance() {
  current_.clear();
  auto b = epoch_->next();
  if (b) {
    current_ = std::move(*b);
  } else {
    done_ = true;
    epoch_.reset();  // joins the workers now rather than when the iterator goes
  }
}

}  // namespace ember::data
