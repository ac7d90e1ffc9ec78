// Raw memory of a tensor, shared by all views of it, and the allocator interface.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "ember/device.h"
#include "ember/ref.h"

namespace ember {

// Owned memory with the function that frees it. Memory from outside (NumPy, DLPack, a user
// buffer) carries its own deleter and context.
struct DataPtr {
  void* data = nullptr;
  void* ctx = nullptr;
  void (*deleter)(void* ctx, void* data) = nullptr;

  DataPtr() = default;
  DataPtr(void* d, void* c, void (*del)(void*, void*)) : data(d), ctx(c), deleter(del) {}
  DataPtr(const DataPtr&) = delete;
  DataPtr& operator=(const DataPtr&) = delete;
  DataPtr(DataPtr&& o) noexcept : data(o.data), ctx(o.ctx), deleter(o.deleter) {
    o.data = o.ctx = nullptr;
    o.deleter = nullptr;
  }
  DataPtr& operator=(DataPtr&& o) noexcept {
    if (this != &o) {
      reset();
      data = o.data; ctx = o.ctx; deleter = o.deleter;
      o.data = o.ctx = nullptr; o.deleter = nullptr;
    }
    return *this;
  }
  ~DataPtr() { reset(); }
  void reset() {
    if (deleter) deleter(ctx, data);
    data = ctx = nullptr;
    deleter = nullptr;
  }
};

// Every device provides one. Memory must be 64-byte aligned.
class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual DataPtr allocate(size_t nbytes) = 0;
};

// Statistics of the caching CPU allocator. The data of tiny fresh tensors, stored inline in
// their TensorImpl's heap block (TensorImpl::make_contiguous_cpu), is not the allocator's and
// is not counted.
struct AllocatorStats {
  uint64_t allocations = 0;   // calls to allocate
  uint64_t cache_hits = 0;    // served from the cache without asking the system
  uint64_t bytes_in_use = 0;  // handed out and not yet freed (rounded to size classes)
  uint64_t bytes_cached = 0;  // freed blocks kept for reuse
  uint64_t peak_bytes_in_use = 0;
};

Allocator* cpu_allocator();
// Caching on by default; EMBER_CPU_ALLOCATOR_CACHE=0 in the environment turns it off (and with
// it the inline data of tiny tensors, so that every byte is a heap block of its own for ASan).
void set_cpu_allocator_caching(bool enabled);
bool cpu_allocator_caching();
AllocatorStats cpu_allocator_stats();
void cpu_allocator_empty_cache();  // returns cached blocks to the system

class StorageImpl : public RefCounted {
 public:
  StorageImpl(DataPtr ptr, size_t nbytes, Device device, Allocator* allocator)
      : ptr_(std::move(ptr)), nbytes_(nbytes), device_(device), allocator_(allocator) {}
  void* data() const { return ptr_.data; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  Allocator* allocator() const { return allocator_; }
  // Shared by all views: in-place ops bump it so that saved tensors can detect changes.
  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bump_version() { version_.fetch_add(1, std::memory_order_relaxed); }
  // Replaces the memory (resize_ of a tensor that owns its storage).
  void set_data(DataPtr ptr, size_t nbytes) { ptr_ = std::move(ptr); nbytes_ = nbytes; }

 private:
  DataPtr ptr_;
  size_t nbytes_;
  Device device_;
  Allocator* allocator_;  // null for memory from outside
  std::atomic<uint32_t> version_{0};
};

using Storage = Ref<StorageImpl>;

}  // namespace ember
