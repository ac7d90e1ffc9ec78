// Mask-driven ops: masked_fill, masked_scatter, argwhere, and where(condition).
// Semantics of PyTorch 1.13:
//  - the mask broadcasts to self's shape (the in-place forms never resize self; the
//    functional forms broadcast self and mask together). A mask of another dtype than bool
//    or uint8 is read as "non-zero";
//  - masked_fill takes a number or a 0-dim tensor, converted to self's dtype with the
//    overflow check;
//  - masked_scatter copies source's leading elements, in row-major order, to the
//    positions where the mask is set; too few source elements is a RuntimeError, raised
//    before anything is written.
#include "backends/cpu/stubs.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ops/index_util.h"

namespace ember {
namespace {

using namespace index_util;

// The mask as bool (or uint8), broadcast to self's shape without resizing self.
Tensor mask_for(const Tensor& self, const Tensor& mask) {
  DimVector b = broadcast_pair(self.sizes(), mask.sizes());
  EMBER_CHECK(IntArrayRef(b).equals(self.sizes()), RuntimeError, "output with shape ", self.sizes(),
              " doesn't match the broadcast shape ", IntArrayRef(b));
  Tensor m = mask;
  if (m.dtype() != kBool && m.dtype() != kUInt8) m = m.is_meta() ? empty(m.sizes(), TensorOptions(kBool).device(m.device()))
                                                                 : ne(m, Scalar(0));
  return m.expand(self.sizes());
}

// ---------------------------------------------------------------- masked_fill

Tensor& masked_fill_impl(Tensor& self, const Tensor& mask, const Scalar& value) {
  check_devices("masked_fill_", {&self, &mask});
  Tensor m = mask_for(self, mask);
  Tensor v = checked_scalar(value, self.dtype());
  if (self.is_meta() || self.numel() == 0) return self;
  m = unaliased_input(self, m);
  IterConfig cfg;  // self receives bytes of its own dtype; the mask is read as it is
  cfg.promote_inputs = false;
  cfg.cast_inputs = false;
  cfg.check_output_cast = false;
  cfg.output_dtype = self.dtype();
  ElementwiseIter it("masked_fill_", self, {m}, cfg);
  cpu::masked_fill_stub.get()(it, v.data_ptr());
  it.finish();
  return self;
}

Scalar fill_value(const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, RuntimeError, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with ",
              value.dim(), " dimension(s).");
  EMBER_CHECK(!value.is_meta(), NotImplementedError, "masked_fill(): a value tensor on the Meta device has no value");
  return value.item();
}

// The functional forms broadcast self and the mask together.
Tensor expanded_copy(const Tensor& self, const Tensor& mask) {
  DimVector b = broadcast_pair(self.sizes(), mask.sizes());
  return self.expand(b).clone();
}

Tensor& masked_fill_scalar_ik(Tensor& self, const Tensor& mask, const Scalar& value) {
  return masked_fill_impl(self, mask, value);
}
Tensor& masked_fill_tensor_ik(Tensor& self, const Tensor& mask, const Tensor& value) {
  check_devices("masked_fill_", {&self, &mask});
  return masked_fill_impl(self, mask, fill_value(value));
}
Tensor masked_fill_scalar_k(const Tensor& self, const Tensor& mask, const Scalar& value) {
  check_devices("masked_fill", {&self, &mask});
  Tensor out = expanded_copy(self, mask);
  return masked_fill_impl(out, mask, value);
}
Tensor masked_fill_tensor_k(const Tensor& self, const Tensor& mask, const Tensor& value) {
  check_devices("masked_fill", {&self, &mask});
  const Scalar v = fill_value(value);
  Tensor out = expanded_copy(self, mask);
  return masked_fill_impl(out, mask, v);
}

// ---------------------------------------------------------------- masked_scatter

Tensor& masked_scatter_impl(Tensor& self, const Tensor& mask, const Tensor& source) {
  check_devices("masked_scatter_", {&self, &mask, &source});
  check_no_internal_overlap(self);
  EMBER_CHECK(self.dtype() == source.dtype(), RuntimeError,
              "masked_scatter: expected self and source to have same dtypes but got ", self.dtype(), " and ",
              source.dtype());
  EMBER_CHECK(mask.dim() <= self.dim(), RuntimeError, "expand(", mask.dtype(), "{", mask.sizes(), "}, size=",
              self.sizes(), "): the number of sizes provided (", self.dim(),
              ") must be greater or equal to the number of dimensions in the tensor (", mask.dim(), ")");
  for (int64_t i = 0; i < mask.dim(); ++i) {
    const int64_t ms = mask.sizes()[mask.dim() - 1 - i], ss = self.sizes()[self.dim() - 1 - i];
    EMBER_CHECK(ms == ss || ms == 1, RuntimeError, "The expanded size of the tensor (", ss,
                ") must match the existing size (", ms, ") at non-singleton dimension ", self.dim() - 1 - i,
                ".  Target sizes: ", self.sizes(), ".  Tensor sizes: ", mask.sizes());
  }
  if (self.is_meta() || self.numel() == 0) return self;
  Tensor m = mask.dtype() == kBool ? mask : ne(mask, Scalar(0));
  m = m.expand(self.sizes()).contiguous();
  const int64_t count = sum(m, kInt64).item<int64_t>();
  EMBER_CHECK(count <= source.numel(), RuntimeError, "Number of elements of source < number of ones in mask");
  if (count == 0) return self;
  Tensor values = unaliased_input(self, source).reshape({-1}).narrow(0, 0, count);
  if (values.is_alias_of(self)) values = values.clone();
  std::optional<Tensor> idx = m;
  index_put_(self, ArrayRef<std::optional<Tensor>>(idx), values);
  return self;
}

Tensor masked_scatter_k(const Tensor& self, const Tensor& mask, const Tensor& source) {
  check_devices("masked_scatter", {&self, &mask, &source});
  Tensor out = expanded_copy(self, mask);
  return masked_scatter_impl(out, mask, source);
}

// ---------------------------------------------------------------- argwhere
Tensor argwhere_composite(const Tensor& self) { return nonzero(self); }

using MaskedFillScalarSig = Tensor(const Tensor&, const Tensor&, const Scalar&);
using MaskedFillTensorSig = Tensor(const Tensor&, const Tensor&, const Tensor&);
using MaskedFillScalarInSig = Tensor&(Tensor&, const Tensor&, const Scalar&);
using MaskedFillTensorInSig = Tensor&(Tensor&, const Tensor&, const Tensor&);
using MaskedScatterSig = Tensor(const Tensor&, const Tensor&, const Tensor&);
using MaskedScatterInSig = Tensor&(Tensor&, const Tensor&, const Tensor&);
using ArgwhereSig = Tensor(const Tensor&);

}  // namespace

Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value) {
  static const TypedOp<MaskedFillScalarSig> op("masked_fill.Scalar");
  return op.call(self, mask, value);
}
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value) {
  static const TypedOp<MaskedFillTensorSig> op("masked_fill.Tensor");
  return op.call(self, mask, value);
}
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value) {
  static const TypedOp<MaskedFillScalarInSig> op("masked_fill_.Scalar");
  return op.call(self, mask, value);
}
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Tensor& value) {
  static const TypedOp<MaskedFillTensorInSig> op("masked_fill_.Tensor");
  return op.call(self, mask, value);
}
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source) {
  static const TypedOp<MaskedScatterSig> op("masked_scatter");
  return op.call(self, mask, source);
}
Tensor& masked_scatter_(Tensor& self, const Tensor& mask, const Tensor& source) {
  static const TypedOp<MaskedScatterInSig> op("masked_scatter_");
  return op.call(self, mask, source);
}
Tensor argwhere(const Tensor& self) {
  static const TypedOp<ArgwhereSig> op("argwhere");
  return op.call(self);
}
std::vector<Tensor> where(const Tensor& condition) {
  Tensor nz = nonzero(condition);
  // A 0-dim condition counts as 1-D: index 0 once if it is non-zero (PyTorch).
  if (condition.dim() == 0) return {zeros({nz.sizes()[0]}, kInt64)};
  std::vector<Tensor> out;
  out.reserve(static_cast<size_t>(condition.dim()));
  for (int64_t d = 0; d < condition.dim(); ++d) out.push_back(nz.select(1, d));
  return out;
}

EMBER_REGISTER(index_masked_ops) {
  define_op<MaskedFillScalarSig>("masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor");
  register_cpu_meta<MaskedFillScalarSig, &masked_fill_scalar_k>("masked_fill.Scalar");
  define_op<MaskedFillTensorSig>("masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor");
  register_cpu_meta<MaskedFillTensorSig, &masked_fill_tensor_k>("masked_fill.Tensor");
  define_op<MaskedFillScalarInSig>("masked_fill_.Scalar(Tensor(a!) self, Tensor mask, Scalar value) -> Tensor(a!)",
                                   Tag::Inplace);
  register_cpu_meta<MaskedFillScalarInSig, &masked_fill_scalar_ik>("masked_fill_.Scalar");
  define_op<MaskedFillTensorInSig>("masked_fill_.Tensor(Tensor(a!) self, Tensor mask, Tensor value) -> Tensor(a!)",
                                   Tag::Inplace);
  register_cpu_meta<MaskedFillTensorInSig, &masked_fill_tensor_ik>("masked_fill_.Tensor");

  define_op<MaskedScatterSig>("masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor");
  register_cpu_meta<MaskedScatterSig, &masked_scatter_k>("masked_scatter");
  define_op<MaskedScatterInSig>("masked_scatter_(Tensor(a!) self, Tensor mask, Tensor source) -> Tensor(a!)",
                                Tag::Inplace);
  register_cpu_meta<MaskedScatterInSig, &masked_scatter_impl>("masked_scatter_");

  // nonzero's result depends on values: no Meta shape (nonzero raises there).
  define_op<ArgwhereSig>("argwhere(Tensor self) -> Tensor");
  register_composite<ArgwhereSig, &argwhere_composite>("argwhere");
}

}  // namespace ember
