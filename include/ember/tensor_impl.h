// The object behind a Tensor handle: storage plus a strided view of it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "ember/array_ref.h"
#include "ember/dispatch_key.h"
#include "ember/dtype.h"
#include "ember/ref.h"
#include "ember/storage.h"

namespace ember {

// What autograd keeps on a tensor (requires_grad, grad, grad_fn); defined by autograd.
struct AutogradMetaBase {
  virtual ~AutogradMetaBase() = default;
  // "requires_grad=True" or "grad_fn=<MulBackward0>" for printing; empty when neither.
  virtual std::string print_suffix() const = 0;
};

class TensorImpl : public RefCounted {
 public:
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, IntArrayRef strides,
             int64_t storage_offset);

  // A fresh C-contiguous CPU tensor (sizes already checked, nbytes = numel * itemsize) with
  // memory from the CPU allocator. Small-tensor code makes one per op, so the TensorImpl and
  // its StorageImpl share one heap block, and data of at most kInlineBytes sits in that block
  // too while the allocator caches (tensor_impl.cpp); one malloc instead of three.
  static Ref<TensorImpl> make_contiguous_cpu(IntArrayRef sizes, ScalarType dtype, int64_t numel,
                                             size_t nbytes);
  static constexpr size_t kInlineBytes = 256;

  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t dim() const { return static_cast<int64_t>(sizes_.size()); }
  int64_t numel() const { return numel_; }
  int64_t storage_offset() const { return storage_offset_; }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return storage_->device(); }
  const Storage& storage() const { return storage_; }
  DispatchKeySet key_set() const { return key_set_; }
  bool is_contiguous() const { return is_contiguous_; }

  // Address of the first element (null for Meta tensors).
  char* data() const {
    char* base = static_cast<char*>(storage_->data());
    return base ? base + storage_offset_ * static_cast<int64_t>(itemsize(dtype_)) : nullptr;
  }

  // Rebinds this tensor to a new view of the same storage.
  void set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides,
                             int64_t storage_offset);
  void set_sizes_contiguous(IntArrayRef sizes);
  void set_storage(Storage s) { storage_ = std::move(s); }
  void set_dtype(ScalarType t) { dtype_ = t; }  // only for reinterpreting views

  uint32_t version() const { return storage_->version(); }
  // Called after every in-place write; raises for an inference tensor outside inference mode
  // (after the write, as PyTorch does).
  void bump_version() {
    if (inference_) [[unlikely]] check_inference_inplace();
    storage_->bump_version();
  }

  // An inference tensor (made in InferenceMode, or a view of one): it never takes part in
  // autograd, and outside inference mode it may not be written in place or saved for backward.
  bool is_inference() const { return inference_; }
  void set_inference(bool v) { inference_ = v; }

  // A Python number converted to a 0-dim tensor: weaker in type promotion.
  bool is_wrapped_number() const { return wrapped_number_; }
  void set_wrapped_number(bool v) { wrapped_number_ = v; }

  // The tensor whose storage a view was made from (the first non-view one), so that autograd
  // can follow in-place writes through views; null for tensors that are not views.
  TensorImpl* view_base() const { return view_base_.get(); }
  void set_view_base(Ref<TensorImpl> base) { view_base_ = std::move(base); }

  AutogradMetaBase* autograd_meta() const { return autograd_meta_.get(); }
  void set_autograd_meta(std::unique_ptr<AutogradMetaBase> m) { autograd_meta_ = std::move(m); }

  void add_keys(DispatchKeySet ks) { key_set_ = key_set_ | ks; }
  void remove_keys(DispatchKeySet ks) { key_set_ = key_set_ - ks; }

 protected:
  // C-contiguous strides of sizes, numel given: no refresh() (make_contiguous_cpu).
  struct ContiguousTag {};
  TensorImpl(Storage storage, ScalarType dtype, IntArrayRef sizes, int64_t numel, ContiguousTag);

 private:
  void refresh();  // numel and contiguity after a shape change
  void check_inference_inplace() const;

  Storage storage_;
  DimVector sizes_;
  DimVector strides_;
  int64_t storage_offset_ = 0;
  int64_t numel_ = 1;
  ScalarType dtype_;
  bool is_contiguous_ = true;
  bool wrapped_number_ = false;
  bool inference_;  // set from InferenceMode when made; views take their base's
  DispatchKeySet key_set_;
  std::unique_ptr<AutogradMetaBase> autograd_meta_;
  Ref<TensorImpl> view_base_;
};

// Strides of a C-contiguous tensor of these sizes.
DimVector contiguous_strides(IntArrayRef sizes);
// The product of sizes (1 for a 0-dim shape, 0 when any size is 0); RuntimeError when it
// overflows int64.
int64_t compute_numel(IntArrayRef sizes);

}  // namespace ember
