// Extremes: max, min (full, along a dim with indices, elementwise with another tensor),
// amax, amin, aminmax, argmax, argmin. NaN propagates (the index of the first NaN wins);
// ties go to the first occurrence; complex inputs are rejected, as in PyTorch 1.13.
#include <algorithm>

#include "backends/cpu/stubs.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ops/reduce.h"

namespace ember {
namespace {

using cpu::ReduceOp;

const char* minmax_name(ReduceOp op) { return op == ReduceOp::Max ? "max" : "min"; }

template <ReduceOp Op>
Tensor minmax_all_k(const Tensor& self) {
  const char* name = minmax_name(Op);
  reduce_check_device(name, self);
  EMBER_CHECK(!self.is_complex(), RuntimeError, "\"", name, "_all\" not implemented for '", self.dtype(), "'");
  EMBER_CHECK(self.numel() > 0, RuntimeError, name,
              "(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
              "reduction dim with the 'dim' argument.");
  return reduce_into(name, Op, self, reduce_mask_opt(name, std::nullopt, self.dim()), false, self.dtype(), Tensor(),
                     true);
}

// Values and int64 indices of the extreme along `dim` into fresh tensors or the given outs.
std::tuple<Tensor, Tensor> arg_reduce(const char* name, ReduceOp op, const Tensor& self, int64_t dim, bool keepdim,
                                      const Tensor& values_out, const Tensor& indices_out) {
  reduce_check_device(name, self);
  EMBER_CHECK(!self.is_complex(), RuntimeError, name, "(): does not support complex input");
  const int64_t d = wrap_dim(dim, self.dim());
  const DimMask mask = reduce_mask(name, IntArrayRef(d), self.dim());
  if (self.dim() > 0)
    EMBER_CHECK(self.sizes()[d] > 0, IndexError, name, "(): Expected reduction dim ", d, " to have non-zero size.");
  const DimVector shape = reduce_shape(self.sizes(), mask, keepdim);
  Tensor values = reduce_output(name, values_out, shape, self.dtype(), self.device());
  Tensor indices = reduce_output(name, indices_out, shape, kInt64, self.device());
  if (self.is_meta() || values.numel() == 0) return {values, indices};
  // Outputs that alias the input are written through temporaries.
  const bool alias = values.is_alias_of(self) || indices.is_alias_of(self);
  Tensor v = alias ? empty(shape, TensorOptions(self.dtype())) : values;
  Tensor i = alias ? empty(shape, TensorOptions(kInt64)) : indices;
  ReduceLoop loop = make_reduce_loop(self, mask, {v, i}, /*logical_order=*/true);
  cpu::arg_reduce_stub(loop, op);
  if (alias) {
    copy_(values, v);
    copy_(indices, i);
  }
  if (values_out.defined()) values.bump_version();
  if (indices_out.defined()) indices.bump_version();
  return {values, indices};
}

template <ReduceOp Op>
std::tuple<Tensor, Tensor> minmax_dim_k(const Tensor& self, int64_t dim, bool keepdim) {
  return arg_reduce(minmax_name(Op), Op, self, dim, keepdim, Tensor(), Tensor());
}

template <ReduceOp Op>
std::tuple<Tensor&, Tensor&> minmax_dim_out_k(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                              Tensor& indices) {
  EMBER_CHECK(values.defined() && indices.defined(), ValueError, minmax_name(Op), "(): got an undefined out tensor");
  arg_reduce(minmax_name(Op), Op, self, dim, keepdim, values, indices);
  return {values, indices};
}

// max(self, other) is maximum (NaN-propagating, broadcasting, promoting).
template <ReduceOp Op>
Tensor minmax_other_k(const Tensor& self, const Tensor& other) {
  return Op == ReduceOp::Max ? maximum(self, other) : minimum(self, other);
}
template <ReduceOp Op>
Tensor& minmax_other_out_k(const Tensor& self, const Tensor& other, Tensor& out) {
  return reduce_assign_out(minmax_name(Op), out, minmax_other_k<Op>(self, other));
}

// ---------------------------------------------------------------- amax, amin, aminmax
template <ReduceOp Op>
Tensor amax_impl(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  const char* name = Op == ReduceOp::Max ? "amax" : "amin";
  reduce_check_device(name, self);
  EMBER_CHECK(!self.is_complex(), RuntimeError, "\"", Op == ReduceOp::Max ? "max" : "min",
              "_values_cpu\" not implemented for '", self.dtype(), "'");
  if (out.defined())
    EMBER_CHECK(out.dtype() == self.dtype(), RuntimeError, "Expected the dtype for input and out to match, but got ",
                self.dtype(), " for input's dtype and ", out.dtype(), " for out's dtype.");
  const DimMask mask = reduce_mask(name, dim, self.dim());
  if (self.numel() == 0) {
    EMBER_CHECK(!dim.empty(), RuntimeError, name,
                "(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
                "with the 'dim' argument.");
    for (int64_t d = 0; d < self.dim(); ++d)
      EMBER_CHECK(!(mask >> d & 1) || self.sizes()[d] > 0, IndexError, name, "(): Expected reduction dim ", d,
                  " to have non-zero size.");
  }
  return reduce_into(name, Op, self, mask, keepdim, self.dtype(), out, true);
}
template <ReduceOp Op>
Tensor amax_k(const Tensor& self, IntArrayRef dim, bool keepdim) { return amax_impl<Op>(self, dim, keepdim, Tensor()); }
template <ReduceOp Op>
Tensor& amax_out_k(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  EMBER_CHECK(out.defined(), ValueError, "amax(): got an undefined out tensor");
  amax_impl<Op>(self, dim, keepdim, out);
  return out;
}

std::tuple<Tensor, Tensor> aminmax_impl(const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                                        const Tensor& min_out, const Tensor& max_out) {
  reduce_check_device("aminmax", self);
  EMBER_CHECK(!self.is_complex(), RuntimeError, "\"aminmax_cpu\" not implemented for '", self.dtype(), "'");
  DimMask mask;
  if (dim) {
    const int64_t d = wrap_dim(*dim, self.dim());
    mask = reduce_mask("aminmax", IntArrayRef(d), self.dim());
    if (self.dim() > 0)
      EMBER_CHECK(self.sizes()[d] > 0, IndexError, "aminmax: Expected reduction dim ", d, " to have non-zero size.");
  } else {
    mask = reduce_mask_opt("aminmax", std::nullopt, self.dim());
    EMBER_CHECK(self.numel() > 0, RuntimeError,
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.");
  }
  for (const Tensor& o : {min_out, max_out})
    if (o.defined())
      EMBER_CHECK(o.dtype() == self.dtype(), RuntimeError, "Expected out tensor to have dtype ", self.dtype(),
                  ", but got ", o.dtype(), " instead");
  // PyTorch 1.13 keeps a size-1 dim for a 0-dim input reduced over dim 0 with keepdim.
  const Tensor in = self.dim() == 0 && dim && keepdim ? self.reshape({1}) : self;
  const DimMask m = in.dim() != self.dim() ? DimMask(1) : mask;
  Tensor lo = reduce_into("aminmax", ReduceOp::Min, in, m, keepdim, self.dtype(), min_out, true);
  Tensor hi = reduce_into("aminmax", ReduceOp::Max, in, m, keepdim, self.dtype(), max_out, true);
  return {lo, hi};
}
std::tuple<Tensor, Tensor> aminmax_k(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return aminmax_impl(self, dim, keepdim, Tensor(), Tensor());
}
std::tuple<Tensor&, Tensor&> aminmax_out_k(const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                                           Tensor& min, Tensor& max) {
  EMBER_CHECK(min.defined() && max.defined(), ValueError, "aminmax(): got an undefined out tensor");
  aminmax_impl(self, dim, keepdim, min, max);
  return {min, max};
}

// ---------------------------------------------------------------- argmax, argmin
template <ReduceOp Op>
Tensor argmax_impl(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const Tensor& out) {
  const char* name = Op == ReduceOp::Max ? "argmax" : "argmin";
  reduce_check_device(name, self);
  EMBER_CHECK(!self.is_complex() && self.dtype() != kBool, RuntimeError, "\"", name, "_cpu\" not implemented for '",
              self.dtype(), "'");
  if (out.defined())
    EMBER_CHECK(out.dtype() == kInt64, RuntimeError, "Expected out tensor to have dtype long int, but got ",
                out.dtype(), " instead");
  if (dim) {
    auto [v, i] = arg_reduce(name, Op, self, *dim, keepdim, Tensor(), out);
    return i;
  }
  EMBER_CHECK(self.numel() > 0, IndexError, name,
              "(): Expected reduction dim to be specified for input.numel() == 0.");
  // Over every element: the index into the flattened input; keepdim keeps all dims as 1.
  auto [v, i] = arg_reduce(name, Op, self.reshape({-1}), 0, false, Tensor(), Tensor());
  DimVector shape(keepdim ? static_cast<size_t>(self.dim()) : 0, 1);
  Tensor r = i.reshape(shape);
  if (!out.defined()) return r;
  Tensor o = out;
  return reduce_assign_out(name, o, r);
}
template <ReduceOp Op>
Tensor argmax_k(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  return argmax_impl<Op>(self, dim, keepdim, Tensor());
}
template <ReduceOp Op>
Tensor& argmax_out_k(const Tensor& self, std::optional<int64_t> dim, bool keepdim, Tensor& out) {
  EMBER_CHECK(out.defined(), ValueError, "argmax(): got an undefined out tensor");
  argmax_impl<Op>(self, dim, keepdim, out);
  return out;
}

using AllSig = Tensor(const Tensor&);
using MinMaxDimSig = std::tuple<Tensor, Tensor>(const Tensor&, int64_t, bool);
using MinMaxDimOutSig = std::tuple<Tensor&, Tensor&>(const Tensor&, int64_t, bool, Tensor&, Tensor&);
using OtherSig = Tensor(const Tensor&, const Tensor&);
using OtherOutSig = Tensor&(const Tensor&, const Tensor&, Tensor&);
using AmaxSig = Tensor(const Tensor&, IntArrayRef, bool);
using AmaxOutSig = Tensor&(const Tensor&, IntArrayRef, bool, Tensor&);
using AminmaxSig = std::tuple<Tensor, Tensor>(const Tensor&, std::optional<int64_t>, bool);
using AminmaxOutSig = std::tuple<Tensor&, Tensor&>(const Tensor&, std::optional<int64_t>, bool, Tensor&, Tensor&);
using ArgSig = Tensor(const Tensor&, std::optional<int64_t>, bool);
using ArgOutSig = Tensor&(const Tensor&, std::optional<int64_t>, bool, Tensor&);

}  // namespace

// ---------------------------------------------------------------- front functions
#define EMBER_CALL(Sig, name, ...)    \
  static const TypedOp<Sig> op(name); \
  return op.call(__VA_ARGS__)

Tensor max(const Tensor& self) { EMBER_CALL(AllSig, "max", self); }
Tensor min(const Tensor& self) { EMBER_CALL(AllSig, "min", self); }
std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim) {
  EMBER_CALL(MinMaxDimSig, "max.dim", self, dim, keepdim);
}
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim) {
  EMBER_CALL(MinMaxDimSig, "min.dim", self, dim, keepdim);
}
std::tuple<Tensor&, Tensor&> max_out(Tensor& values, Tensor& indices, const Tensor& self, int64_t dim, bool keepdim) {
  EMBER_CALL(MinMaxDimOutSig, "max.dim_max", self, dim, keepdim, values, indices);
}
std::tuple<Tensor&, Tensor&> min_out(Tensor& values, Tensor& indices, const Tensor& self, int64_t dim, bool keepdim) {
  EMBER_CALL(MinMaxDimOutSig, "min.dim_min", self, dim, keepdim, values, indices);
}
Tensor amax(const Tensor& self, IntArrayRef dim, bool keepdim) { EMBER_CALL(AmaxSig, "amax", self, dim, keepdim); }
Tensor& amax_out(Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim) {
  EMBER_CALL(AmaxOutSig, "amax.out", self, dim, keepdim, out);
}
Tensor amin(const Tensor& self, IntArrayRef dim, bool keepdim) { EMBER_CALL(AmaxSig, "amin", self, dim, keepdim); }
Tensor& amin_out(Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim) {
  EMBER_CALL(AmaxOutSig, "amin.out", self, dim, keepdim, out);
}
std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  EMBER_CALL(AminmaxSig, "aminmax", self, dim, keepdim);
}
Tensor argmax(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  EMBER_CALL(ArgSig, "argmax", self, dim, keepdim);
}
Tensor argmin(const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  EMBER_CALL(ArgSig, "argmin", self, dim, keepdim);
}
Tensor& argmax_out(Tensor& out, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  EMBER_CALL(ArgOutSig, "argmax.out", self, dim, keepdim, out);
}
Tensor& argmin_out(Tensor& out, const Tensor& self, std::optional<int64_t> dim, bool keepdim) {
  EMBER_CALL(ArgOutSig, "argmin.out", self, dim, keepdim, out);
}
#undef EMBER_CALL

Tensor Tensor::max() const { return ember::max(*this); }
Tensor Tensor::min() const { return ember::min(*this); }
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const { return ember::max(*this, dim, keepdim); }
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const { return ember::min(*this, dim, keepdim); }

EMBER_REGISTER(reduce_minmax_ops) {
  const uint32_t red = static_cast<uint32_t>(Tag::Reduction);
  define_op<AllSig>("max(Tensor self) -> Tensor", red);
  define_op<AllSig>("min(Tensor self) -> Tensor", red);
  define_op<MinMaxDimSig>("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", red);
  define_op<MinMaxDimSig>("min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", red);
  define_op<MinMaxDimOutSig>("max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, "
                             "Tensor(b!) max_values) -> (Tensor(a!) values, Tensor(b!) indices)", red);
  define_op<MinMaxDimOutSig>("min.dim_min(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) min, "
                             "Tensor(b!) min_indices) -> (Tensor(a!) values, Tensor(b!) indices)", red);
  define_op<OtherSig>("max.other(Tensor self, Tensor other) -> Tensor");
  define_op<OtherSig>("min.other(Tensor self, Tensor other) -> Tensor");
  define_op<OtherOutSig>("max.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)");
  define_op<OtherOutSig>("min.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)");
  register_cpu_meta<AllSig, &minmax_all_k<ReduceOp::Max>>("max");
  register_cpu_meta<AllSig, &minmax_all_k<ReduceOp::Min>>("min");
  register_cpu_meta<MinMaxDimSig, &minmax_dim_k<ReduceOp::Max>>("max.dim");
  register_cpu_meta<MinMaxDimSig, &minmax_dim_k<ReduceOp::Min>>("min.dim");
  register_cpu_meta<MinMaxDimOutSig, &minmax_dim_out_k<ReduceOp::Max>>("max.dim_max");
  register_cpu_meta<MinMaxDimOutSig, &minmax_dim_out_k<ReduceOp::Min>>("min.dim_min");
  register_composite<OtherSig, &minmax_other_k<ReduceOp::Max>>("max.other");
  register_composite<OtherSig, &minmax_other_k<ReduceOp::Min>>("min.other");
  register_composite<OtherOutSig, &minmax_other_out_k<ReduceOp::Max>>("max.out");
  register_composite<OtherOutSig, &minmax_other_out_k<ReduceOp::Min>>("min.out");

  define_op<AmaxSig>("amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", red);
  define_op<AmaxOutSig>("amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)", red);
  define_op<AmaxSig>("amin(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor", red);
  define_op<AmaxOutSig>("amin.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)", red);
  register_cpu_meta<AmaxSig, &amax_k<ReduceOp::Max>>("amax");
  register_cpu_meta<AmaxOutSig, &amax_out_k<ReduceOp::Max>>("amax.out");
  register_cpu_meta<AmaxSig, &amax_k<ReduceOp::Min>>("amin");
  register_cpu_meta<AmaxOutSig, &amax_out_k<ReduceOp::Min>>("amin.out");
  define_op<AminmaxSig>("aminmax(Tensor self, *, int? dim=None, bool keepdim=False) -> (Tensor min, Tensor max)", red);
  define_op<AminmaxOutSig>("aminmax.out(Tensor self, *, int? dim=None, bool keepdim=False, Tensor(a!) min, "
                           "Tensor(b!) max) -> (Tensor(a!) min, Tensor(b!) max)", red);
  register_cpu_meta<AminmaxSig, &aminmax_k>("aminmax");
  register_cpu_meta<AminmaxOutSig, &aminmax_out_k>("aminmax.out");

  define_op<ArgSig>("argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", red);
  define_op<ArgOutSig>("argmax.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)", red);
  define_op<ArgSig>("argmin(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", red);
  define_op<ArgOutSig>("argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)", red);
  register_cpu_meta<ArgSig, &argmax_k<ReduceOp::Max>>("argmax");
  register_cpu_meta<ArgOutSig, &argmax_out_k<ReduceOp::Max>>("argmax.out");
  register_cpu_meta<ArgSig, &argmax_k<ReduceOp::Min>>("argmin");
  register_cpu_meta<ArgOutSig, &argmax_out_k<ReduceOp::Min>>("argmin.out");
}

}  // namespace ember
