#include "ember/tensor_impl.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>

#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/tensor_data.h"

namespace ember {

// ---------------------------------------------------------------- inference mode
// Here, next to the constructor that reads it: tensors made while no thread is in inference
// mode (the usual case) cost one relaxed load of the guard count, not a thread-local lookup.
namespace tensor_impl_inference {
thread_local bool tls_enabled = false;
std::atomic<int> enabled_guards{0};
}  // namespace tensor_impl_inference

bool InferenceMode::is_enabled() { return tensor_impl_inference::tls_enabled; }

InferenceMode::InferenceMode(bool enabled)
    : prev_mode_(tensor_impl_inference::tls_enabled), prev_grad_(autograd::GradMode::is_enabled()),
      prev_excluded_(tls_local_dispatch_keys().excluded) {
  if (enabled) tensor_impl_inference::enabled_guards.fetch_add(1, std::memory_order_relaxed);
  tensor_impl_inference::tls_enabled = enabled;
  autograd::GradMode::set_enabled(!enabled);
  DispatchKeySet& excluded = tls_local_dispatch_keys().excluded;
  excluded = enabled ? excluded.add(DispatchKey::Autograd) : excluded.remove(DispatchKey::Autograd);
}

InferenceMode::~InferenceMode() {
  if (tensor_impl_inference::tls_enabled) tensor_impl_inference::enabled_guards.fetch_sub(1, std::memory_order_relaxed);
  tensor_impl_inference::tls_enabled = prev_mode_;
  autograd::GradMode::set_enabled(prev_grad_);
  tls_local_dispatch_keys().excluded = prev_excluded_;
}

DimVector contiguous_strides(IntArrayRef sizes) {
  DimVector strides(sizes.size());
  int64_t s = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = s;
    s *= std::max<int64_t>(sizes[i], 1);
  }
  return strides;
}

int64_t compute_numel(IntArrayRef sizes) {
  for (int64_t s : sizes)
    if (s == 0) return 0;  // an empty tensor, however large its other dims
  int64_t n = 1;
  for (int64_t s : sizes)
    EMBER_CHECK(!__builtin_mul_overflow(n, s, &n), RuntimeError, "numel: integer multiplication overflow");
  return n;
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
                       int64_t storage_offset)
    : storage_(std::move(storage)),
      sizes_(sizes),
      strides_(strides),
      storage_offset_(storage_offset),
      dtype_(dtype),
      inference_(tensor_impl_inference::enabled_guards.load(std::memory_order_relaxed) != 0 &&
                 tensor_impl_inference::tls_enabled),
      key_set_(backend_key(storage_->device().type)) {
  refresh();
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, int64_t numel, ContiguousTag)
    : storage_(std::move(storage)),
      sizes_(sizes),
      strides_(contiguous_strides(sizes)),
      numel_(numel),
      dtype_(dtype),
      inference_(tensor_impl_inference::enabled_guards.load(std::memory_order_relaxed) != 0 &&
                 tensor_impl_inference::tls_enabled),
      key_set_(backend_key(storage_->device().type)) {}

// ---------------------------------------------------------------- fresh CPU tensors in one block
// Layout: [live count][StorageImpl][TensorImpl][up to 63 bytes of padding][inline data]. The two
// objects keep their own reference counts and die separately (a view keeps the storage after the
// tensor is gone; set_data drops the storage first), so the block counts its live objects and
// the last one's delete frees it. Inline data is 64-byte aligned like the allocator's.
namespace {
struct BlockHeader {
  std::atomic<uint32_t> live{2};
};

constexpr size_t align_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

void release_block(BlockHeader* h) {
  if (h->live.fetch_sub(1, std::memory_order_acq_rel) == 1) std::free(h);
}

class BlockStorage final : public StorageImpl {
 public:
  using StorageImpl::StorageImpl;
  static void* operator new(size_t) = delete;  // only placed into a block
  static void operator delete(void* p);
};

class BlockTensor final : public TensorImpl {
 public:
  BlockTensor(Storage storage, ScalarType dtype, IntArrayRef sizes, int64_t numel)
      : TensorImpl(std::move(storage), dtype, sizes, numel, ContiguousTag{}) {}
  static void* operator new(size_t) = delete;
  static void operator delete(void* p);
};

constexpr size_t kStorageOffset = align_up(sizeof(BlockHeader), alignof(BlockStorage));
constexpr size_t kTensorOffset = align_up(kStorageOffset + sizeof(BlockStorage), alignof(BlockTensor));
constexpr size_t kObjectsEnd = kTensorOffset + sizeof(BlockTensor);
constexpr size_t kDataAlignment = 64;  // what Allocator promises

void BlockStorage::operator delete(void* p) {
  release_block(reinterpret_cast<BlockHeader*>(static_cast<char*>(p) - kStorageOffset));
}
void BlockTensor::operator delete(void* p) {
  release_block(reinterpret_cast<BlockHeader*>(static_cast<char*>(p) - kTensorOffset));
}
}  // namespace

Ref<TensorImpl> TensorImpl::make_contiguous_cpu(IntArrayRef sizes, ScalarType dtype, int64_t numel,
                                                size_t nbytes) {
  Allocator* alloc = cpu_allocator();
  const bool inline_data = nbytes <= kInlineBytes && cpu_allocator_caching();
  const size_t block_bytes = kObjectsEnd + (inline_data ? kDataAlignment - 1 + nbytes : 0);
  DataPtr data;
  if (!inline_data) data = alloc->allocate(nbytes);  // may raise: before anything is built
  char* block = static_cast<char*>(std::malloc(block_bytes));
  if (!block) throw std::bad_alloc();
  if (inline_data) {
    // Owned by the block: no deleter.
    auto addr = reinterpret_cast<uintptr_t>(block + kObjectsEnd);
    data = DataPtr(reinterpret_cast<void*>(align_up(addr, kDataAlignment)), nullptr, nullptr);
  }
  auto* header = ::new (block) BlockHeader();
  auto* storage = ::new (block + kStorageOffset) BlockStorage(std::move(data), nbytes, kCPU, alloc);
  try {
    return Ref<TensorImpl>(::new (block + kTensorOffset) BlockTensor(Storage(storage), dtype, sizes, numel));
  } catch (...) {
    // The tensor's constructor released the storage (block count 2 -> 1); the tensor never lived.
    release_block(header);
    throw;
  }
}

void TensorImpl::check_inference_inplace() const {
  EMBER_CHECK(InferenceMode::is_enabled(), RuntimeError,
              "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get "
              "a normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more "
              "details.");
}

void TensorImpl::set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides,
                                       int64_t storage_offset) {
  EMBER_INTERNAL_ASSERT(sizes.size() == strides.size());
  compute_numel(sizes);  // raises on overflow before anything changes
  sizes_ = DimVector(sizes);
  strides_ = DimVector(strides);
  storage_offset_ = storage_offset;
  refresh();
}

void TensorImpl::set_sizes_contiguous(IntArrayRef sizes) {
  compute_numel(sizes);  // raises on overflow before anything changes
  sizes_ = DimVector(sizes);
  strides_ = contiguous_strides(sizes);
  refresh();
}

void TensorImpl::refresh() {
  numel_ = compute_numel(sizes_);
  // Contiguous as in PyTorch: size-1 dims may have any stride; empty tensors always are.
  is_contiguous_ = true;
  if (numel_ == 0) return;
  int64_t expected = 1;
  for (size_t i = sizes_.size(); i-- > 0;) {
    if (sizes_[i] == 1) continue;
    if (strides_[i] != expected) { is_contiguous_ = false; return; }
    expected *= sizes_[i];
  }
}

}  // namespace ember

namespace ember {

void set_data(const Tensor& self, const Tensor& src) {
  if (self.is_same(src)) return;
  TensorImpl* impl = self.impl();
  impl->set_storage(src.storage());
  impl->set_dtype(src.dtype());
  impl->set_sizes_and_strides(src.sizes(), src.strides(), src.storage_offset());
  impl->remove_keys(DispatchKeySet::all_backends());
  impl->add_keys(src.key_set() & DispatchKeySet::all_backends());
}

}  // namespace ember
