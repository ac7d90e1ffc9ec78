// The CPU allocator: 64-byte aligned blocks, with a cache of freed blocks keyed by size
// class so that a loop producing fresh outputs reuses memory instead of paying page faults.
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "ember/error.h"
#include "ember/storage.h"

namespace ember {
namespace {

constexpr size_t kAlignment = 64;
constexpr size_t kMaxCachedBytes = size_t(4) << 30;  // freed memory kept at most

// Size classes: multiples of 64 bytes up to 4 KiB, then 8 steps per power of two
// (at most 12.5% waste).
size_t round_size(size_t n) {
  if (n <= 4096) return (n + 63) & ~size_t(63);
  int msb = 63 - __builtin_clzll(n);
  size_t step = size_t(1) << (msb - 3);
  return (n + step - 1) & ~(step - 1);
}

class CachingCpuAllocator final : public Allocator {
 public:
  CachingCpuAllocator() {
    const char* env = std::getenv("EMBER_CPU_ALLOCATOR_CACHE");
    caching_.store(!(env && std::strcmp(env, "0") == 0), std::memory_order_relaxed);
  }
  ~CachingCpuAllocator() override { empty_cache(); }

  DataPtr allocate(size_t nbytes) override {
    size_t size = round_size(nbytes == 0 ? 1 : nbytes);
    void* p = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++stats_.allocations;
      if (caching_.load(std::memory_order_relaxed)) p = take_cached(size);
      stats_.bytes_in_use += size;
      if (stats_.bytes_in_use > stats_.peak_bytes_in_use)
        stats_.peak_bytes_in_use = stats_.bytes_in_use;
    }
    if (!p) {
      p = std::aligned_alloc(kAlignment, size);
      if (!p) {
        std::lock_guard<std::mutex> lock(mu_);
        stats_.bytes_in_use -= size;
        EMBER_FAIL(RuntimeError, "CPU out of memory: failed to allocate ", nbytes, " bytes");
      }
    }
    return DataPtr(p, reinterpret_cast<void*>(size), &CachingCpuAllocator::free_block);
  }

  void set_caching(bool on) {
    if (!on) empty_cache();
    std::lock_guard<std::mutex> lock(mu_);
    caching_.store(on, std::memory_order_relaxed);
  }
  // Lock-free: asked for every fresh tensor (TensorImpl::make_contiguous_cpu).
  bool caching() const { return caching_.load(std::memory_order_relaxed); }
  AllocatorStats stats() {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }
  void empty_cache() {
    std::unordered_map<size_t, std::vector<void*>> blocks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      blocks.swap(free_);
      stats_.bytes_cached = 0;
    }
    for (auto& [size, ptrs] : blocks)
      for (void* p : ptrs) std::free(p);
  }

 private:
  static void free_block(void* ctx, void* data);

  void release(void* p, size_t size) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stats_.bytes_in_use -= size;
      if (caching_.load(std::memory_order_relaxed) && stats_.bytes_cached + size <= kMaxCachedBytes) {
        free_[size].push_back(p);
        stats_.bytes_cached += size;
        return;
      }
    }
    std::free(p);
  }

  // The most recently freed block of the class: the likeliest to be in the CPU cache.
  void* take_cached(size_t size) {
    auto it = free_.find(size);
    if (it == free_.end() || it->second.empty()) return nullptr;
    void* p = it->second.back();
    it->second.pop_back();
    stats_.bytes_cached -= size;
    ++stats_.cache_hits;
    return p;
  }

  std::mutex mu_;
  std::atomic<bool> caching_{true};  // written under mu_
  std::unordered_map<size_t, std::vector<void*>> free_;  // size class -> blocks
  AllocatorStats stats_;
};

CachingCpuAllocator& instance() {
  // Never destroyed: storages may be freed during static destruction.
  static auto* a = new CachingCpuAllocator();
  return *a;
}

void CachingCpuAllocator::free_block(void* ctx, void* data) {
  instance().release(data, reinterpret_cast<size_t>(ctx));
}

}  // namespace

Allocator* cpu_allocator() { return &instance(); }
void set_cpu_allocator_caching(bool enabled) { instance().set_caching(enabled); }
bool cpu_allocator_caching() { return instance().caching(); }
AllocatorStats cpu_allocator_stats() { return instance().stats(); }
void cpu_allocator_empty_cache() { instance().empty_cache(); }

}  // namespace ember
