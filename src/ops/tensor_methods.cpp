// Tensor methods and operators that forward to the functions in ops.h.
#include "core/dtype_dispatch.h"
#include "ember/func.h"
#include "ember/ops.h"

namespace ember {

Scalar Tensor::item() const {
  func::check_not_batched(*this, "item");
  EMBER_CHECK(numel() == 1, RuntimeError, "a Tensor with ", numel(),
              " elements cannot be converted to Scalar");
  EMBER_CHECK(!is_meta(), NotImplementedError, "item() cannot be called on a meta tensor");
  Tensor t = is_cpu() ? *this : to(kCPU);
  return EMBER_DISPATCH_ALL(t.dtype(), "item", [&]() -> Scalar {
    return Scalar(*static_cast<const scalar_t*>(t.data_ptr()));
  });
}

Tensor Tensor::contiguous() const { return ember::contiguous(*this); }
Tensor Tensor::clone() const { return ember::clone(*this); }
Tensor Tensor::to(ScalarType dtype, bool copy) const { return to_dtype(*this, dtype, copy); }
Tensor Tensor::to(Device device, bool copy) const { return to_device(*this, device, copy); }
Tensor Tensor::to(Device device, ScalarType dtype, bool copy) const {
  if (device == this->device()) return to_dtype(*this, dtype, copy);
  return to_dtype(to_device(*this, device, copy), dtype);
}
Tensor Tensor::to(TensorOptions opts, bool copy) const {
  return to(opts.device_.value_or(device()), opts.dtype_.value_or(dtype()), copy);
}

Tensor& Tensor::copy_(const Tensor& src) { return ember::copy_(*this, src); }
Tensor& Tensor::fill_(const Scalar& value) { return ember::fill_(*this, value); }
Tensor& Tensor::zero_() { return ember::fill_(*this, 0); }

Tensor Tensor::add(const Tensor& o, const Scalar& alpha) const { return ember::add(*this, o, alpha); }
Tensor Tensor::add(const Scalar& o, const Scalar& alpha) const { return ember::add(*this, o, alpha); }
Tensor Tensor::sub(const Tensor& o, const Scalar& alpha) const { return ember::sub(*this, o, alpha); }
Tensor Tensor::sub(const Scalar& o, const Scalar& alpha) const { return ember::sub(*this, o, alpha); }
Tensor Tensor::mul(const Tensor& o) const { return ember::mul(*this, o); }
Tensor Tensor::mul(const Scalar& o) const { return ember::mul(*this, o); }
Tensor Tensor::div(const Tensor& o, std::optional<std::string_view> m) const { return ember::div(*this, o, m); }
Tensor Tensor::div(const Scalar& o, std::optional<std::string_view> m) const { return ember::div(*this, o, m); }

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, a); }
Tensor operator-(const Scalar& a, const Tensor& b) { return sub(wrapped_scalar(a), b); }
Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, a); }
Tensor operator/(const Scalar& a, const Tensor& b) { return div(wrapped_scalar(a), b); }
Tensor operator-(const Tensor& a) { return neg(a); }
Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Tensor& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Tensor& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Tensor& b) { return a.div_(b); }
Tensor& operator+=(Tensor& a, const Scalar& b) { return a.add_(b); }
Tensor& operator-=(Tensor& a, const Scalar& b) { return a.sub_(b); }
Tensor& operator*=(Tensor& a, const Scalar& b) { return a.mul_(b); }
Tensor& operator/=(Tensor& a, const Scalar& b) { return a.div_(b); }

}  // namespace ember
