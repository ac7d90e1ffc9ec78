// ember::Tensor: a reference-counted handle to a TensorImpl, with PyTorch's method names.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "ember/error.h"
#include "ember/scalar.h"
#include "ember/tensor_impl.h"

namespace ember {

class Tensor;
using TensorList = ArrayRef<Tensor>;

// dtype and device for factories; either may be left to the default.
struct TensorOptions {
  std::optional<ScalarType> dtype_;
  std::optional<Device> device_;

  TensorOptions() = default;
  TensorOptions(ScalarType t) : dtype_(t) {}  // NOLINT: kFloat converts to options
  TensorOptions(Device d) : device_(d) {}     // NOLINT
  TensorOptions(DeviceType d) : device_(Device(d)) {}  // NOLINT
  TensorOptions dtype(ScalarType t) const { auto o = *this; o.dtype_ = t; return o; }
  TensorOptions dtype(std::optional<ScalarType> t) const { auto o = *this; o.dtype_ = t; return o; }
  TensorOptions device(Device d) const { auto o = *this; o.device_ = d; return o; }
  TensorOptions device(std::optional<Device> d) const { auto o = *this; o.device_ = d; return o; }
  ScalarType dtype_or_default() const { return dtype_ ? *dtype_ : get_default_dtype(); }
  Device device_or_default() const { return device_ ? *device_ : kCPU; }
};

class Tensor {
 public:
  Tensor() = default;
  explicit Tensor(Ref<TensorImpl> impl) : impl_(std::move(impl)) {}

  bool defined() const { return static_cast<bool>(impl_); }
  TensorImpl* impl() const { return impl_.get(); }
  const Ref<TensorImpl>& impl_ref() const { return impl_; }
  bool is_same(const Tensor& o) const { return impl_ == o.impl_; }
  uint32_t use_count() const { return impl_ ? impl_->use_count() : 0; }

  // ---- metadata
  int64_t dim() const { return impl_->dim(); }
  int64_t ndimension() const { return dim(); }
  IntArrayRef sizes() const { return impl_->sizes(); }
  IntArrayRef strides() const { return impl_->strides(); }
  IntArrayRef shape() const { return sizes(); }
  int64_t size(int64_t d) const;    // negative dims count from the end
  int64_t stride(int64_t d) const;
  int64_t numel() const { return impl_->numel(); }
  int64_t storage_offset() const { return impl_->storage_offset(); }
  ScalarType dtype() const { return impl_->dtype(); }
  ScalarType scalar_type() const { return impl_->dtype(); }
  Device device() const { return impl_->device(); }
  size_t element_size() const { return itemsize(dtype()); }
  size_t nbytes() const { return static_cast<size_t>(numel()) * element_size(); }
  bool is_contiguous() const { return impl_->is_contiguous(); }
  bool is_complex() const { return ember::is_complex(dtype()); }
  bool is_floating_point() const { return ember::is_floating_point(dtype()); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_meta() const { return device().is_meta(); }
  bool is_inference() const { return impl_->is_inference(); }  // see InferenceMode
  DispatchKeySet key_set() const { return impl_->key_set(); }
  uint32_t version() const { return impl_->version(); }
  void bump_version() const { impl_->bump_version(); }
  const Storage& storage() const { return impl_->storage(); }
  bool is_alias_of(const Tensor& o) const { return storage().get() == o.storage().get(); }

  void* data_ptr() const { return impl_->data(); }
  template <typename T>
  T* data_ptr() const;  // checks that T matches the dtype
  // Value of a one-element tensor.
  Scalar item() const;
  template <typename T>
  T item() const { return item().to<T>(); }

  // ---- views (share storage with self)
  Tensor view(IntArrayRef sizes) const;
  Tensor view(ScalarType dtype) const;  // reinterpret the bytes (same element size)
  Tensor view_as(const Tensor& other) const { return view(other.sizes()); }
  Tensor reshape(IntArrayRef sizes) const;  // a view when possible, else a copy
  Tensor reshape_as(const Tensor& other) const { return reshape(other.sizes()); }
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const;
  Tensor permute(IntArrayRef dims) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  Tensor t() const;   // 2-D transpose (0-D and 1-D returned as is)
  Tensor mT() const;  // transpose of the last two dims
  Tensor expand(IntArrayRef sizes) const;
  Tensor expand_as(const Tensor& other) const { return expand(other.sizes()); }
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor slice(int64_t dim, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor as_strided(IntArrayRef sizes, IntArrayRef strides,
                    std::optional<int64_t> storage_offset = std::nullopt) const;
  Tensor unfold(int64_t dim, int64_t size, int64_t step) const;
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor real() const;  // a view for complex tensors; self for real ones
  Tensor imag() const;  // complex tensors only
  Tensor view_as_real() const;
  Tensor view_as_complex() const;
  Tensor alias() const;  // a new handle on the same view
  Tensor detach() const;  // an alias outside every autograd graph
  // ---- copies
  Tensor contiguous() const;
  Tensor clone() const;
  Tensor to(ScalarType dtype, bool copy = false) const;
  Tensor to(Device device, bool copy = false) const;
  Tensor to(Device device, ScalarType dtype, bool copy = false) const;
  Tensor to(TensorOptions opts, bool copy = false) const;
  Tensor cpu() const { return to(kCPU); }

  // ---- in-place
  Tensor& copy_(const Tensor& src);
  Tensor& fill_(const Scalar& value);
  Tensor& zero_();

  // ---- ops as methods (see ops.h for the functions)
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor add(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  Tensor sub(const Scalar& other, const Scalar& alpha = 1) const;
  Tensor mul(const Tensor& other) const;
  Tensor mul(const Scalar& other) const;
  Tensor div(const Tensor& other, std::optional<std::string_view> rounding_mode = std::nullopt) const;
  Tensor div(const Scalar& other, std::optional<std::string_view> rounding_mode = std::nullopt) const;
  Tensor& add_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& add_(const Scalar& other, const Scalar& alpha = 1);
  Tensor& sub_(const Tensor& other, const Scalar& alpha = 1);
  Tensor& sub_(const Scalar& other, const Scalar& alpha = 1);
  Tensor& mul_(const Tensor& other);
  Tensor& mul_(const Scalar& other);
  Tensor& div_(const Tensor& other, std::optional<std::string_view> rounding_mode = std::nullopt);
  Tensor& div_(const Scalar& other, std::optional<std::string_view> rounding_mode = std::nullopt);

  Tensor neg() const;
  Tensor abs() const;
  Tensor exp() const;
  Tensor log() const;
  Tensor sqrt() const;
  Tensor sin() const;
  Tensor cos() const;
  Tensor tanh() const;
  Tensor sigmoid() const;
  Tensor relu() const;
  Tensor& neg_();
  Tensor& abs_();
  Tensor& exp_();
  Tensor& log_();
  Tensor& sqrt_();
  Tensor& sin_();
  Tensor& cos_();
  Tensor& tanh_();
  Tensor& sigmoid_();
  Tensor& relu_();

  Tensor eq(const Tensor& other) const;
  Tensor ne(const Tensor& other) const;
  Tensor lt(const Tensor& other) const;
  Tensor le(const Tensor& other) const;
  Tensor gt(const Tensor& other) const;
  Tensor ge(const Tensor& other) const;
  Tensor eq(const Scalar& other) const;
  Tensor ne(const Scalar& other) const;
  Tensor lt(const Scalar& other) const;
  Tensor le(const Scalar& other) const;
  Tensor gt(const Scalar& other) const;
  Tensor ge(const Scalar& other) const;

  Tensor sum(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor sum(IntArrayRef dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor mean(IntArrayRef dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) const;
  Tensor max() const;
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  Tensor min() const;
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  Tensor matmul(const Tensor& other) const;

  std::string str() const;  // as PyTorch prints it

 private:
  Ref<TensorImpl> impl_;
};

// Arithmetic operators, as in libtorch.
Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator+(const Tensor& a, const Scalar& b);
Tensor operator-(const Tensor& a, const Scalar& b);
Tensor operator*(const Tensor& a, const Scalar& b);
Tensor operator/(const Tensor& a, const Scalar& b);
Tensor operator+(const Scalar& a, const Tensor& b);
Tensor operator-(const Scalar& a, const Tensor& b);
Tensor operator*(const Scalar& a, const Tensor& b);
Tensor operator/(const Scalar& a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor& operator+=(Tensor& a, const Tensor& b);
Tensor& operator-=(Tensor& a, const Tensor& b);
Tensor& operator*=(Tensor& a, const Tensor& b);
Tensor& operator/=(Tensor& a, const Tensor& b);
Tensor& operator+=(Tensor& a, const Scalar& b);
Tensor& operator-=(Tensor& a, const Scalar& b);
Tensor& operator*=(Tensor& a, const Scalar& b);
Tensor& operator/=(Tensor& a, const Scalar& b);

// Wrap a negative dim and check its range; `op` names the caller in the error.
int64_t wrap_dim(int64_t dim, int64_t ndim, std::string_view op = "");

template <typename T>
T* Tensor::data_ptr() const {
  EMBER_CHECK(scalar_type_of<T> == dtype(), TypeError, "data_ptr<", dtype_name(scalar_type_of<T>),
              ">() called on a tensor of dtype ", dtype());
  return static_cast<T*>(data_ptr());
}

}  // namespace ember
