// Copies and conversions: copy_, fill_, zero_, to, clone, contiguous, resize_.
#include <cstring>

#include "backends/cpu/stubs.h"
#include "ember/backend.h"
#include "ember/dispatch.h"
#include "ops/iter.h"

namespace ember {

using CopySig = Tensor&(Tensor&, const Tensor&);
using FillSig = Tensor&(Tensor&, const Scalar&);
using ToDtypeSig = Tensor(const Tensor&, ScalarType, bool);
using ToDeviceSig = Tensor(const Tensor&, Device, bool);
using UnarySig = Tensor(const Tensor&);

Tensor& copy_(Tensor& self, const Tensor& src) {
  static const TypedOp<CopySig> op("copy_");
  return op.call(self, src);
}
Tensor& fill_(Tensor& self, const Scalar& value) {
  static const TypedOp<FillSig> op("fill_.Scalar");
  return op.call(self, value);
}
Tensor to_dtype(const Tensor& self, ScalarType dtype, bool copy) {
  if (self.dtype() == dtype && !copy) return self;
  static const TypedOp<ToDtypeSig> op("to.dtype");
  return op.call(self, dtype, copy);
}
Tensor to_device(const Tensor& self, Device device, bool copy) {
  if (self.device() == device && !copy) return self;
  static const TypedOp<ToDeviceSig> op("to.device");
  return op.call(self, device, copy);
}
Tensor clone(const Tensor& self) {
  static const TypedOp<UnarySig> op("clone");
  return op.call(self);
}
Tensor contiguous(const Tensor& self) {
  if (self.is_contiguous()) return self;
  static const TypedOp<UnarySig> op("contiguous");
  return op.call(self);
}

Tensor& resize_(Tensor& self, IntArrayRef sizes) {
  for (int64_t s : sizes)
    EMBER_CHECK(s >= 0, RuntimeError, "resize_(): negative dimension ", s, " in ", sizes);
  TensorImpl* impl = self.impl();
  int64_t needed = (compute_numel(sizes) + self.storage_offset()) * static_cast<int64_t>(self.element_size());
  const Storage& st = impl->storage();
  if (static_cast<size_t>(needed) > st->nbytes()) {
    EMBER_CHECK(st->allocator() != nullptr, RuntimeError,
                "resize_(): cannot resize a tensor whose memory is owned outside Ember");
    DataPtr fresh = st->allocator()->allocate(static_cast<size_t>(needed));
    if (st->nbytes() && st->data() && fresh.data)
      backend_for(st->device().type).copy_bytes(fresh.data, st->device(), st->data(), st->device(), st->nbytes());
    st->set_data(std::move(fresh), static_cast<size_t>(needed));
  }
  impl->set_sizes_contiguous(sizes);
  self.bump_version();
  return self;
}

namespace {

// src broadcasts to self's shape, any dtype converts.
Tensor& copy_cpu(Tensor& self, const Tensor& src) {
  EMBER_CHECK(src.defined() && self.defined(), ValueError, "copy_(): undefined tensor");
  if (self.is_same(src)) return self;
  Tensor s = src.expand(self.sizes());
  IterConfig cfg;
  cfg.promote_inputs = false;
  cfg.cast_inputs = false;
  cfg.check_output_cast = false;
  cfg.output_dtype = self.dtype();
  ElementwiseIter it("copy_", self, {s}, cfg);
  cpu::copy_stub(it);
  it.finish();
  return self;
}
// Meta tensors have no data: only the broadcast is checked, from any device.
Tensor& copy_meta(Tensor& self, const Tensor& src) {
  EMBER_CHECK(!(src.is_meta() && !self.is_meta()), NotImplementedError,
              "Cannot copy out of meta tensor; no data!");
  src.expand(self.sizes());
  return self;
}

Tensor& fill_composite(Tensor& self, const Scalar& value) {
  EMBER_CHECK(!(value.is_complex() && !self.is_complex()), TypeError,
              "fill_(): cannot fill a ", self.dtype(), " tensor with a complex value");
  return copy_(self, scalar_tensor(value, self.dtype()));
}

Tensor to_dtype_composite(const Tensor& self, ScalarType dtype, bool) {
  Tensor out = empty(self.sizes(), TensorOptions(dtype).device(self.device()));
  return copy_(out, self);
}
Tensor to_device_composite(const Tensor& self, Device device, bool) {
  Tensor out = empty(self.sizes(), TensorOptions(self.dtype()).device(device));
  return copy_(out, self);
}
Tensor clone_composite(const Tensor& self) {
  Tensor out = empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
  return copy_(out, self);
}

}  // namespace

EMBER_REGISTER(copy_ops) {
  define_op<CopySig>("copy_(Tensor(a!) self, Tensor src) -> Tensor(a!)", Tag::Inplace | Tag::Pointwise);
  register_kernel<CopySig, &copy_cpu>("copy_", DispatchKey::CPU);
  register_kernel<CopySig, &copy_meta>("copy_", DispatchKey::Meta);

  define_op<FillSig>("fill_.Scalar(Tensor(a!) self, Scalar value) -> Tensor(a!)", Tag::Inplace | Tag::Pointwise);
  register_composite<FillSig, &fill_composite>("fill_.Scalar");

  define_op<ToDtypeSig>("to.dtype(Tensor self, ScalarType dtype, bool copy=False) -> Tensor", Tag::MethodOnly);
  register_composite<ToDtypeSig, &to_dtype_composite>("to.dtype");
  define_op<ToDeviceSig>("to.device(Tensor self, Device device, bool copy=False) -> Tensor", Tag::MethodOnly);
  register_composite<ToDeviceSig, &to_device_composite>("to.device");
  define_op<UnarySig>("clone(Tensor self) -> Tensor");
  register_composite<UnarySig, &clone_composite>("clone");
  define_op<UnarySig>("contiguous(Tensor(a) self) -> Tensor(a)", Tag::MethodOnly);
  register_composite<UnarySig, &clone_composite>("contiguous");
}

}  // namespace ember
