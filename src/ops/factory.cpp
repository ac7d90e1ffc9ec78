// Factories: empty and friends allocate on the requested device's backend.
#include <cmath>

#include "core/convert.h"
#include "core/dtype_dispatch.h"
#include "ember/backend.h"
#include "ember/ops.h"

namespace ember {

namespace {
void check_sizes(IntArrayRef sizes, const char* op) {
  for (int64_t s : sizes)
    EMBER_CHECK(s >= 0, RuntimeError, op, "(): Trying to create tensor with negative dimension ", s,
                ": ", sizes);
}

// Bytes needed for a strided view, with overflow checks.
size_t storage_bytes(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, const char* op) {
  int64_t max_offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
    int64_t span;
    EMBER_CHECK(!__builtin_mul_overflow(sizes[i] - 1, strides[i], &span) &&
                    !__builtin_add_overflow(max_offset, span, &max_offset),
                RuntimeError, op, "(): tensor of shape ", sizes, " is too large");
  }
  int64_t bytes;
  EMBER_CHECK(!__builtin_mul_overflow(max_offset + 1, static_cast<int64_t>(itemsize(dtype)), &bytes),
              RuntimeError, op, "(): tensor of shape ", sizes, " is too large");
  return static_cast<size_t>(bytes);
}
}  // namespace

Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, TensorOptions opts) {
  check_sizes(sizes, "empty_strided");
  EMBER_CHECK(sizes.size() == strides.size(), RuntimeError, "empty_strided(): got ", sizes.size(),
              " sizes but ", strides.size(), " strides");
  ScalarType dtype = opts.dtype_or_default();
  Device device = opts.device_or_default();
  size_t nbytes = storage_bytes(sizes, strides, dtype, "empty_strided");
  Allocator* alloc = backend_for(device.type).allocator();
  auto storage = Storage::make(alloc->allocate(nbytes), nbytes, device, alloc);
  return Tensor(Ref<TensorImpl>::make(std::move(storage), dtype, sizes, strides, 0));
}

Tensor empty(IntArrayRef sizes, TensorOptions opts) {
  check_sizes(sizes, "empty");
  ScalarType dtype = opts.dtype_or_default();
  Device device = opts.device_or_default();
  DimVector strides = contiguous_strides(sizes);
  size_t nbytes = storage_bytes(sizes, strides, dtype, "empty");
  Allocator* alloc = device.is_cpu() ? cpu_allocator() : backend_for(device.type).allocator();
  auto storage = Storage::make(alloc->allocate(nbytes), nbytes, device, alloc);
  return Tensor(Ref<TensorImpl>::make(std::move(storage), dtype, sizes, strides, 0));
}

Tensor zeros(IntArrayRef sizes, TensorOptions opts) {
  Tensor t = empty(sizes, opts);
  t.zero_();
  return t;
}

Tensor ones(IntArrayRef sizes, TensorOptions opts) { return full(sizes, 1, opts); }

Tensor full(IntArrayRef sizes, const Scalar& value, TensorOptions opts) {
  if (!opts.dtype_) opts = opts.dtype(value.natural_dtype());
  Tensor t = empty(sizes, opts);
  t.fill_(value);
  return t;
}

static TensorOptions like_options(const Tensor& t, TensorOptions opts) {
  return TensorOptions(opts.dtype_ ? *opts.dtype_ : t.dtype()).device(opts.device_ ? *opts.device_ : t.device());
}
Tensor empty_like(const Tensor& t, TensorOptions opts) { return empty(t.sizes(), like_options(t, opts)); }
Tensor zeros_like(const Tensor& t, TensorOptions opts) { return zeros(t.sizes(), like_options(t, opts)); }
Tensor ones_like(const Tensor& t, TensorOptions opts) { return ones(t.sizes(), like_options(t, opts)); }
Tensor full_like(const Tensor& t, const Scalar& value, TensorOptions opts) {
  return full(t.sizes(), value, like_options(t, opts));
}

Tensor scalar_tensor(const Scalar& s, TensorOptions opts) {
  if (!opts.dtype_) opts = opts.dtype(s.natural_dtype());
  Tensor t = empty({}, opts);
  if (t.is_cpu()) {
    EMBER_DISPATCH_ALL(t.dtype(), "scalar_tensor", [&] { *t.data_ptr<scalar_t>() = s.to<scalar_t>(); });
  } else {
    t.fill_(s);
  }
  return t;
}

Tensor wrapped_scalar(const Scalar& s) {
  // Python floats become float64 and ints int64 (their full precision); being "wrapped
  // numbers", they still promote like weak scalars.
  ScalarType dt = s.is_bool() ? kBool : s.is_integral() ? kInt64 : s.is_complex() ? kComplexDouble : kDouble;
  Tensor t = scalar_tensor(s, dt);
  t.impl()->set_wrapped_number(true);
  return t;
}

template <typename T>
Tensor tensor(ArrayRef<T> values, TensorOptions opts) {
  Tensor t = empty({static_cast<int64_t>(values.size())}, TensorOptions(scalar_type_of<T>));
  if (!values.empty()) std::memcpy(t.data_ptr(), values.data(), values.size() * sizeof(T));
  ScalarType want = opts.dtype_ ? *opts.dtype_ : scalar_type_of<T>;
  if (want != t.dtype()) t = t.to(want);
  if (opts.device_ && *opts.device_ != kCPU) t = t.to(*opts.device_);
  return t;
}
template Tensor tensor<bool>(ArrayRef<bool>, TensorOptions);
template Tensor tensor<uint8_t>(ArrayRef<uint8_t>, TensorOptions);
template Tensor tensor<int8_t>(ArrayRef<int8_t>, TensorOptions);
template Tensor tensor<int16_t>(ArrayRef<int16_t>, TensorOptions);
template Tensor tensor<int32_t>(ArrayRef<int32_t>, TensorOptions);
template Tensor tensor<int64_t>(ArrayRef<int64_t>, TensorOptions);
template Tensor tensor<Half>(ArrayRef<Half>, TensorOptions);
template Tensor tensor<BFloat16>(ArrayRef<BFloat16>, TensorOptions);
template Tensor tensor<float>(ArrayRef<float>, TensorOptions);
template Tensor tensor<double>(ArrayRef<double>, TensorOptions);
template Tensor tensor<complex64>(ArrayRef<complex64>, TensorOptions);
template Tensor tensor<complex128>(ArrayRef<complex128>, TensorOptions);

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device,
                 void (*deleter)(void*, void*), void* ctx) {
  check_sizes(sizes, "from_blob");
  EMBER_CHECK(sizes.size() == strides.size(), ValueError, "from_blob(): got ", sizes.size(),
              " sizes but ", strides.size(), " strides");
  size_t nbytes = storage_bytes(sizes, strides, dtype, "from_blob");
  auto storage = Storage::make(DataPtr(data, ctx, deleter), nbytes, device, nullptr);
  return Tensor(Ref<TensorImpl>::make(std::move(storage), dtype, sizes, strides, 0));
}

Tensor from_blob(void* data, IntArrayRef sizes, ScalarType dtype) {
  return from_blob(data, sizes, contiguous_strides(sizes), dtype);
}

}  // namespace ember
