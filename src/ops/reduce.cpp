// Reductions that sum, multiply or test: sum, mean, nansum, nanmean, prod, all, any,
// count_nonzero, with the shared reduction helpers of ops/reduce.h. Dtype rules follow
// PyTorch 1.13 on CPU:
//  - sum, nansum and prod of bool and integers accumulate in int64; `dtype=` casts the input
//    first; out= without a dtype computes in out's dtype.
//  - mean and nanmean take floating and complex inputs only (or a floating/complex `dtype=`);
//    mean is the sum in the result dtype divided by the number of elements (nan for none),
//    nanmean the nansum divided by the number of non-NaN elements.
//  - all and any give bool, or uint8 for uint8 inputs; count_nonzero gives int64.
#include "ops/reduce.h"

#include <algorithm>

#include "backends/cpu/stubs.h"
#include "ember/dispatch.h"
#include "ember/ops/reduce.h"
#include "ops/iter.h"

namespace ember {

// ---------------------------------------------------------------- shared helpers
DimMask reduce_mask_all(int64_t ndim) {
  return ndim >= 64 ? ~DimMask(0) : (DimMask(1) << ndim) - 1;
}

DimMask reduce_mask(const char* op, IntArrayRef dims, int64_t ndim) {
  EMBER_CHECK(ndim <= kMaxReduceDims, ValueError, op, "(): at most ", kMaxReduceDims,
              " dimensions are supported, got ", ndim);
  if (dims.empty()) return reduce_mask_all(ndim);
  DimMask mask = 0;
  for (int64_t d : dims) {
    int64_t w = wrap_dim(d, ndim);
    EMBER_CHECK(!(mask >> w & 1), RuntimeError, op, "(): dim ", w, " appears multiple times in the list of dims");
    mask |= DimMask(1) << w;
  }
  return ndim == 0 ? 0 : mask;
}

DimMask reduce_mask_opt(const char* op, std::optional<IntArrayRef> dims, int64_t ndim) {
  if (!dims) {
    EMBER_CHECK(ndim <= kMaxReduceDims, ValueError, op, "(): at most ", kMaxReduceDims,
                " dimensions are supported, got ", ndim);
    return reduce_mask_all(ndim);
  }
  return reduce_mask(op, *dims, ndim);
}

DimVector reduce_shape(IntArrayRef sizes, DimMask mask, bool keepdim) {
  DimVector shape;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (!(mask >> d & 1)) shape.push_back(sizes[d]);
    else if (keepdim) shape.push_back(1);
  }
  return shape;
}

Tensor reduce_output(const char* op, const Tensor& out, IntArrayRef shape, ScalarType dtype,
                     Device device) {
  if (!out.defined()) return empty(shape, TensorOptions(dtype).device(device));
  EMBER_CHECK(out.device() == device, RuntimeError, op, "(): Expected out tensor on ", device,
              ", but got it on ", out.device());
  EMBER_CHECK(out.dtype() == dtype, RuntimeError, op, "(): Expected out tensor to have dtype ", dtype,
              ", but got ", out.dtype(), " instead");
  if (!out.sizes().equals(shape)) {
    Tensor o = out;
    resize_(o, shape);
  }
  for (int64_t d = 0; d < out.dim(); ++d)
    EMBER_CHECK(!(out.sizes()[d] > 1 && out.strides()[d] == 0), RuntimeError, op,
                "(): unsupported operation: more than one element of the written-to tensor refers "
                "to a single memory location. Please clone() the tensor before performing the operation.");
  return out;
}

void reduce_check_device(const char* op, const Tensor& t) {
  EMBER_CHECK(t.defined(), ValueError, op, "(): got an undefined tensor");
  EMBER_CHECK(t.is_cpu() || t.is_meta(), NotImplementedError, op, "(): no kernel for device ", t.device());
}

Tensor& reduce_assign_out(const char* op, Tensor& out, const Tensor& r) {
  EMBER_CHECK(out.defined(), ValueError, op, "(): got an undefined out tensor");
  EMBER_CHECK(out.device() == r.device(), RuntimeError, op, "(): Expected out tensor on ", r.device(),
              ", but got it on ", out.device());
  EMBER_CHECK(can_cast(r.dtype(), out.dtype()), RuntimeError, op, "(): result type ", r.dtype(),
              " can't be cast to the desired output type ", out.dtype());
  if (!out.sizes().equals(r.sizes())) resize_(out, r.sizes());
  copy_(out, r);
  return out;
}

ScalarType sum_result_dtype(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out) {
  if (dtype) return *dtype;
  if (out.defined()) return out.dtype();
  return is_integral(self.dtype(), true) ? kInt64 : self.dtype();
}

ReduceLoop make_reduce_loop(const Tensor& in, DimMask mask, std::initializer_list<Tensor> outs,
                            bool logical_order) {
  ReduceLoop L;
  const int64_t nd = in.dim();
  EMBER_INTERNAL_ASSERT(nd <= ReduceLoop::kMaxDims && outs.size() <= ReduceLoop::kMaxOutputs);
  L.in = static_cast<const char*>(in.data_ptr());
  L.in_dtype = in.dtype();
  L.nout = static_cast<int>(outs.size());
  const Tensor* o = outs.begin();
  L.out_dtype = o[0].dtype();
  for (int k = 0; k < L.nout; ++k) L.out[k] = static_cast<char*>(o[k].data_ptr());
  const int64_t isz = static_cast<int64_t>(in.element_size());

  struct Dim { int64_t size, in, out[ReduceLoop::kMaxOutputs]; };
  Dim kept[ReduceLoop::kMaxDims], red[ReduceLoop::kMaxDims];
  int nk = 0, nr = 0;
  const bool keepdim = o[0].dim() == nd;
  int64_t od = 0;  // dim of the outputs matching input dim d
  for (int64_t d = 0; d < nd; ++d) {
    const int64_t size = in.sizes()[d];
    const bool reduced = mask >> d & 1;
    if (reduced) {
      L.reduce_size *= size;
      if (size != 1) red[nr++] = {size, in.strides()[d] * isz, {0, 0}};
      if (keepdim) ++od;
      continue;
    }
    L.num_outputs *= size;
    if (size != 1) {
      Dim k{size, in.strides()[d] * isz, {0, 0}};
      for (int j = 0; j < L.nout; ++j)
        k.out[j] = o[j].strides()[od] * static_cast<int64_t>(o[j].element_size());
      kept[nk++] = k;
    }
    ++od;
  }
  // Innermost first: kept dims by output stride (then input stride), reduced dims by input
  // stride or, for position-tracking reductions, reversed logical order.
  std::reverse(kept, kept + nk);
  std::reverse(red, red + nr);
  auto abs64 = [](int64_t v) { return v < 0 ? -v : v; };
  std::stable_sort(kept, kept + nk, [&](const Dim& a, const Dim& b) {
    if (abs64(a.out[0]) != abs64(b.out[0])) return abs64(a.out[0]) < abs64(b.out[0]);
    return abs64(a.in) < abs64(b.in);
  });
  if (!logical_order)
    std::stable_sort(red, red + nr, [&](const Dim& a, const Dim& b) { return abs64(a.in) < abs64(b.in); });
  // Fold dim i+1 into i when every operand steps through both as one.
  for (int i = 0; i < nk; ++i) {
    if (L.nkept > 0) {
      int p = L.nkept - 1;
      bool fold = kept[i].in == L.kept_in[p] * L.kept_size[p];
      for (int j = 0; j < L.nout && fold; ++j) fold = kept[i].out[j] == L.kept_out[j][p] * L.kept_size[p];
      if (fold) { L.kept_size[p] *= kept[i].size; continue; }
    }
    L.kept_size[L.nkept] = kept[i].size;
    L.kept_in[L.nkept] = kept[i].in;
    for (int j = 0; j < L.nout; ++j) L.kept_out[j][L.nkept] = kept[i].out[j];
    ++L.nkept;
  }
  for (int i = 0; i < nr; ++i) {
    if (L.nred > 0 && red[i].in == L.red_in[L.nred - 1] * L.red_size[L.nred - 1]) {
      L.red_size[L.nred - 1] *= red[i].size;
      continue;
    }
    L.red_size[L.nred] = red[i].size;
    L.red_in[L.nred] = red[i].in;
    ++L.nred;
  }
  return L;
}

Tensor reduce_into(const char* name, cpu::ReduceOp op, const Tensor& self, DimMask mask, bool keepdim,
                   ScalarType dt, const Tensor& out, bool direct, double param) {
  const DimVector shape = reduce_shape(self.sizes(), mask, keepdim);
  Tensor result;
  Tensor target;  // what the kernel writes
  if (out.defined() && out.dtype() != dt) {
    result = reduce_output(name, out, shape, out.dtype(), self.device());
    target = empty(shape, TensorOptions(dt).device(self.device()));
  } else {
    result = reduce_output(name, out, shape, dt, self.device());
    target = result.is_alias_of(self) && self.numel() > 0
                 ? empty(shape, TensorOptions(dt).device(self.device())) : result;
  }
  if (self.is_meta()) return result;
  Tensor in = direct || self.dtype() == dt ? self : to_dtype(self, dt);
  if (target.numel() > 0) {
    ReduceLoop loop = make_reduce_loop(in, mask, {target});
    loop.param = param;
    cpu::reduce_stub(loop, op);
  }
  if (!target.is_same(result)) copy_(result, target);
  if (out.defined()) result.bump_version();
  return result;
}

namespace {

using cpu::ReduceOp;

// ---------------------------------------------------------------- sum, mean, nansum, prod
ScalarType mean_dtype(const char* name, const Tensor& self, std::optional<ScalarType> dtype) {
  if (dtype) {
    EMBER_CHECK(is_floating_point(*dtype) || is_complex(*dtype), RuntimeError, name,
                "(): could not infer output dtype. Optional dtype must be either a floating point "
                "or complex dtype. Got: ", *dtype);
    return *dtype;
  }
  EMBER_CHECK(self.is_floating_point() || self.is_complex(), RuntimeError, name,
              "(): could not infer output dtype. Input dtype must be either a floating point or "
              "complex dtype. Got: ", self.dtype());
  return self.dtype();
}

// Sum-like reductions (sum, mean, nansum, prod): dt is the compute and result dtype. The
// kernels read integers and bool straight into int64.
Tensor sum_like(const char* name, ReduceOp op, const Tensor& self, DimMask mask, bool keepdim, ScalarType dt,
                const Tensor& out) {
  const bool direct = dt == kInt64 && is_integral(self.dtype(), true);
  return reduce_into(name, op, self, mask, keepdim, dt, out, direct);
}

void check_out_dtype(const char* name, const Tensor& out, std::optional<ScalarType> dtype) {
  EMBER_CHECK(out.defined(), ValueError, name, "(): got an undefined out tensor");
  if (dtype)
    EMBER_CHECK(out.dtype() == *dtype, RuntimeError, name, "(): Expected out tensor to have dtype ", *dtype,
                ", but got ", out.dtype(), " instead");
}

Tensor sum_k(const Tensor& self, std::optional<ScalarType> dtype) {
  reduce_check_device("sum", self);
  return sum_like("sum", ReduceOp::Sum, self, reduce_mask_opt("sum", std::nullopt, self.dim()), false,
                  sum_result_dtype(self, dtype, Tensor()), Tensor());
}
Tensor sum_dim_k(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  reduce_check_device("sum", self);
  return sum_like("sum", ReduceOp::Sum, self, reduce_mask("sum", dim, self.dim()), keepdim,
                  sum_result_dtype(self, dtype, Tensor()), Tensor());
}
Tensor& sum_out_k(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype,
                  Tensor& out) {
  reduce_check_device("sum", self);
  check_out_dtype("sum", out, dtype);
  sum_like("sum", ReduceOp::Sum, self, reduce_mask("sum", dim, self.dim()), keepdim,
           sum_result_dtype(self, dtype, out), out);
  return out;
}

Tensor mean_impl(const Tensor& self, DimMask mask, bool keepdim, std::optional<ScalarType> dtype, const Tensor& out) {
  const ScalarType dt = mean_dtype("mean", self, dtype);
  if (out.defined())
    EMBER_CHECK(can_cast(dt, out.dtype()), RuntimeError, "mean(): result type ", dt,
                " can't be cast to the desired output type ", out.dtype());
  return sum_like("mean", ReduceOp::Mean, self, mask, keepdim, dt, out);
}
Tensor mean_k(const Tensor& self, std::optional<ScalarType> dtype) {
  reduce_check_device("mean", self);
  return mean_impl(self, reduce_mask_opt("mean", std::nullopt, self.dim()), false, dtype, Tensor());
}
Tensor mean_dim_k(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  reduce_check_device("mean", self);
  return mean_impl(self, reduce_mask("mean", dim, self.dim()), keepdim, dtype, Tensor());
}
Tensor& mean_out_k(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype,
                   Tensor& out) {
  reduce_check_device("mean", self);
  EMBER_CHECK(out.defined(), ValueError, "mean(): got an undefined out tensor");
  mean_impl(self, reduce_mask("mean", dim, self.dim()), keepdim, dtype, out);
  return out;
}

// nansum: NaNs count as zero; integers have none, so they take the plain sum.
Tensor nansum_impl(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype,
                   const Tensor& out) {
  reduce_check_device("nansum", self);
  EMBER_CHECK(!self.is_complex() && !(dtype && is_complex(*dtype)), RuntimeError,
              "nansum does not support complex inputs");
  const DimMask mask = reduce_mask_opt("nansum", dim, self.dim());
  const ScalarType dt = sum_result_dtype(self, dtype, out);
  const bool floating = is_floating_point(dt);
  return sum_like("nansum", floating ? ReduceOp::NanSum : ReduceOp::Sum, self, mask, keepdim, dt, out);
}
Tensor nansum_k(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  return nansum_impl(self, dim, keepdim, dtype, Tensor());
}
Tensor& nansum_out_k(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                     std::optional<ScalarType> dtype, Tensor& out) {
  check_out_dtype("nansum", out, dtype);
  nansum_impl(self, dim, keepdim, dtype, out);
  return out;
}

// nanmean = nansum / (number of non-NaN elements), as PyTorch defines it.
// `record`: the sum goes through the dispatched nansum, so that autograd records it; the out=
// form sums internally, so that out stays outside the graph (as PyTorch's nanmean.out).
Tensor nanmean_impl(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype,
                    bool record) {
  reduce_check_device("nanmean", self);
  EMBER_CHECK(self.is_floating_point(), RuntimeError,
              "nanmean(): expected input to have floating point dtype but got ", self.dtype());
  if (dtype)
    EMBER_CHECK(is_floating_point(*dtype), RuntimeError, "nanmean(): expected a floating point dtype but got ", *dtype);
  const DimMask mask = reduce_mask_opt("nanmean", dim, self.dim());
  DimVector dims;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (mask >> d & 1) dims.push_back(d);
  Tensor total = record ? ember::nansum(self, dim, keepdim, dtype) : nansum_impl(self, dim, keepdim, dtype, Tensor());
  if (self.dim() == 0) dims.clear();
  Tensor count = ember::sum(ember::eq(self, self), dims, keepdim);
  return div(total, count);
}
Tensor nanmean_k(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  return nanmean_impl(self, dim, keepdim, dtype, /*record=*/true);
}
Tensor& nanmean_out_k(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                      std::optional<ScalarType> dtype, Tensor& out) {
  check_out_dtype("nanmean", out, dtype);
  return reduce_assign_out("nanmean", out, nanmean_impl(self, dim, keepdim, dtype, /*record=*/false));
}

Tensor prod_impl(const Tensor& self, DimMask mask, bool keepdim, std::optional<ScalarType> dtype, const Tensor& out) {
  return sum_like("prod", ReduceOp::Prod, self, mask, keepdim, sum_result_dtype(self, dtype, out), out);
}
Tensor prod_k(const Tensor& self, std::optional<ScalarType> dtype) {
  reduce_check_device("prod", self);
  return prod_impl(self, reduce_mask_opt("prod", std::nullopt, self.dim()), false, dtype, Tensor());
}
Tensor prod_dim_k(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  reduce_check_device("prod", self);
  return prod_impl(self, reduce_mask("prod", IntArrayRef(dim), self.dim()), keepdim, dtype, Tensor());
}
Tensor& prod_out_k(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype, Tensor& out) {
  reduce_check_device("prod", self);
  check_out_dtype("prod", out, dtype);
  prod_impl(self, reduce_mask("prod", IntArrayRef(dim), self.dim()), keepdim, dtype, out);
  return out;
}

// ---------------------------------------------------------------- all, any, count_nonzero
// The kernels test the bits of bool, 8-bit, 32-bit and 64-bit real inputs directly; the
// other dtypes (16-bit, complex) are compared with zero first, which keeps the kernel
// instantiations, and the build, small.
Tensor nonzero_test_input(const Tensor& self) {
  switch (self.dtype()) {
    case kBool: case kUInt8: case kInt8: case kInt32: case kInt64: case kFloat: case kDouble: return self;
    default: return ne(self, 0);
  }
}

template <ReduceOp Op>
Tensor logical_impl(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const Tensor& out) {
  const char* name = Op == ReduceOp::And ? "all" : "any";
  reduce_check_device(name, self);
  const ScalarType dt = self.dtype() == kUInt8 ? kUInt8 : kBool;
  if (out.defined())
    EMBER_CHECK(out.dtype() == kBool || out.dtype() == kUInt8, RuntimeError, name,
                " only supports bool tensor for result, got: ", out.dtype());
  const DimMask mask = dim ? reduce_mask(name, IntArrayRef(*dim), self.dim()) : reduce_mask_opt(name, std::nullopt, self.dim());
  return reduce_into(name, Op, nonzero_test_input(self), mask, keepdim, out.defined() ? out.dtype() : dt, out, true);
}
template <ReduceOp Op>
Tensor logical_all_k(const Tensor& self) { return logical_impl<Op>(self, std::nullopt, false, Tensor()); }
template <ReduceOp Op>
Tensor logical_dim_k(const Tensor& self, int64_t dim, bool keepdim) { return logical_impl<Op>(self, dim, keepdim, Tensor()); }
template <ReduceOp Op>
Tensor& logical_out_k(const Tensor& self, int64_t dim, bool keepdim, Tensor& out) {
  EMBER_CHECK(out.defined(), ValueError, "got an undefined out tensor");
  logical_impl<Op>(self, dim, keepdim, out);
  return out;
}
template <ReduceOp Op>
Tensor& logical_all_out_k(const Tensor& self, Tensor& out) {
  EMBER_CHECK(out.defined(), ValueError, "got an undefined out tensor");
  logical_impl<Op>(self, std::nullopt, false, out);
  return out;
}

Tensor count_nonzero_impl(const Tensor& self, DimMask mask) {
  return reduce_into("count_nonzero", ReduceOp::CountNonzero, nonzero_test_input(self), mask, false, kInt64, Tensor(),
                     true);
}
Tensor count_nonzero_k(const Tensor& self, std::optional<int64_t> dim) {
  reduce_check_device("count_nonzero", self);
  const DimMask mask = dim ? reduce_mask("count_nonzero", IntArrayRef(*dim), self.dim())
                           : reduce_mask_opt("count_nonzero", std::nullopt, self.dim());
  return count_nonzero_impl(self, mask);
}
Tensor count_nonzero_dims_k(const Tensor& self, IntArrayRef dim) {
  reduce_check_device("count_nonzero", self);
  return count_nonzero_impl(self, reduce_mask("count_nonzero", dim, self.dim()));
}

using FullSig = Tensor(const Tensor&, std::optional<ScalarType>);
using DimSig = Tensor(const Tensor&, IntArrayRef, bool, std::optional<ScalarType>);
using DimOutSig = Tensor&(const Tensor&, IntArrayRef, bool, std::optional<ScalarType>, Tensor&);
using OptDimSig = Tensor(const Tensor&, std::optional<IntArrayRef>, bool, std::optional<ScalarType>);
using OptDimOutSig = Tensor&(const Tensor&, std::optional<IntArrayRef>, bool, std::optional<ScalarType>, Tensor&);
using IntDimSig = Tensor(const Tensor&, int64_t, bool, std::optional<ScalarType>);
using IntDimOutSig = Tensor&(const Tensor&, int64_t, bool, std::optional<ScalarType>, Tensor&);
using AllSig = Tensor(const Tensor&);
using AllOutSig = Tensor&(const Tensor&, Tensor&);
using LogicalDimSig = Tensor(const Tensor&, int64_t, bool);
using LogicalOutSig = Tensor&(const Tensor&, int64_t, bool, Tensor&);
using CountSig = Tensor(const Tensor&, std::optional<int64_t>);
using CountDimsSig = Tensor(const Tensor&, IntArrayRef);

}  // namespace

// ---------------------------------------------------------------- front functions
#define EMBER_CALL(Sig, name, ...)    \
  static const TypedOp<Sig> op(name); \
  return op.call(__VA_ARGS__)

Tensor sum(const Tensor& self, std::optional<ScalarType> dtype) { EMBER_CALL(FullSig, "sum", self, dtype); }
Tensor sum(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CALL(DimSig, "sum.dim_IntList", self, dim, keepdim, dtype);
}
Tensor& sum_out(Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CALL(DimOutSig, "sum.IntList_out", self, dim, keepdim, dtype, out);
}
Tensor mean(const Tensor& self, std::optional<ScalarType> dtype) { EMBER_CALL(FullSig, "mean", self, dtype); }
Tensor mean(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CALL(DimSig, "mean.dim", self, dim, keepdim, dtype);
}
Tensor& mean_out(Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CALL(DimOutSig, "mean.out", self, dim, keepdim, dtype, out);
}
Tensor nansum(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CALL(OptDimSig, "nansum", self, dim, keepdim, dtype);
}
Tensor& nansum_out(Tensor& out, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  EMBER_CALL(OptDimOutSig, "nansum.out", self, dim, keepdim, dtype, out);
}
Tensor nanmean(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CALL(OptDimSig, "nanmean", self, dim, keepdim, dtype);
}
Tensor& nanmean_out(Tensor& out, const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim,
                    std::optional<ScalarType> dtype) {
  EMBER_CALL(OptDimOutSig, "nanmean.out", self, dim, keepdim, dtype, out);
}
Tensor prod(const Tensor& self, std::optional<ScalarType> dtype) { EMBER_CALL(FullSig, "prod", self, dtype); }
Tensor prod(const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CALL(IntDimSig, "prod.dim_int", self, dim, keepdim, dtype);
}
Tensor& prod_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CALL(IntDimOutSig, "prod.int_out", self, dim, keepdim, dtype, out);
}
Tensor all(const Tensor& self) { EMBER_CALL(AllSig, "all", self); }
Tensor all(const Tensor& self, int64_t dim, bool keepdim) { EMBER_CALL(LogicalDimSig, "all.dim", self, dim, keepdim); }
Tensor& all_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim) {
  EMBER_CALL(LogicalOutSig, "all.out", self, dim, keepdim, out);
}
Tensor any(const Tensor& self) { EMBER_CALL(AllSig, "any", self); }
Tensor any(const Tensor& self, int64_t dim, bool keepdim) { EMBER_CALL(LogicalDimSig, "any.dim", self, dim, keepdim); }
Tensor& any_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim) {
  EMBER_CALL(LogicalOutSig, "any.out", self, dim, keepdim, out);
}
Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim) {
  EMBER_CALL(CountSig, "count_nonzero", self, dim);
}
Tensor count_nonzero(const Tensor& self, IntArrayRef dim) {
  EMBER_CALL(CountDimsSig, "count_nonzero.dim_IntList", self, dim);
}
#undef EMBER_CALL

Tensor Tensor::sum(std::optional<ScalarType> dtype) const { return ember::sum(*this, dtype); }
Tensor Tensor::sum(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::sum(*this, dim, keepdim, dtype);
}
Tensor Tensor::mean(std::optional<ScalarType> dtype) const { return ember::mean(*this, dtype); }
Tensor Tensor::mean(IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) const {
  return ember::mean(*this, dim, keepdim, dtype);
}

EMBER_REGISTER(reduce_ops) {
  const uint32_t red = static_cast<uint32_t>(Tag::Reduction);
  define_op<FullSig>("sum(Tensor self, *, ScalarType? dtype=None) -> Tensor", red);
  define_op<DimSig>("sum.dim_IntList(Tensor self, int[1] dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", red);
  define_op<DimOutSig>("sum.IntList_out(Tensor self, int[1] dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)", red);
  register_cpu_meta<FullSig, &sum_k>("sum");
  register_cpu_meta<DimSig, &sum_dim_k>("sum.dim_IntList");
  register_cpu_meta<DimOutSig, &sum_out_k>("sum.IntList_out");

  define_op<FullSig>("mean(Tensor self, *, ScalarType? dtype=None) -> Tensor", red);
  define_op<DimSig>("mean.dim(Tensor self, int[1] dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", red);
  define_op<DimOutSig>("mean.out(Tensor self, int[1] dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)", red);
  register_cpu_meta<FullSig, &mean_k>("mean");
  register_cpu_meta<DimSig, &mean_dim_k>("mean.dim");
  register_cpu_meta<DimOutSig, &mean_out_k>("mean.out");

  define_op<OptDimSig>("nansum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", red);
  define_op<OptDimOutSig>("nansum.out(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)", red);
  register_cpu_meta<OptDimSig, &nansum_k>("nansum");
  register_cpu_meta<OptDimOutSig, &nansum_out_k>("nansum.out");
  define_op<OptDimSig>("nanmean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", red);
  define_op<OptDimOutSig>("nanmean.out(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)", red);
  register_composite<OptDimSig, &nanmean_k>("nanmean");
  register_composite<OptDimOutSig, &nanmean_out_k>("nanmean.out");

  define_op<FullSig>("prod(Tensor self, *, ScalarType? dtype=None) -> Tensor", red);
  define_op<IntDimSig>("prod.dim_int(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", red);
  define_op<IntDimOutSig>("prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)", red);
  register_cpu_meta<FullSig, &prod_k>("prod");
  register_cpu_meta<IntDimSig, &prod_dim_k>("prod.dim_int");
  register_cpu_meta<IntDimOutSig, &prod_out_k>("prod.int_out");

  define_op<AllSig>("all(Tensor self) -> Tensor", red);
  define_op<LogicalDimSig>("all.dim(Tensor self, int dim, bool keepdim=False) -> Tensor", red);
  define_op<LogicalOutSig>("all.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)", red);
  define_op<AllOutSig>("all.all_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", red);
  register_cpu_meta<AllSig, &logical_all_k<ReduceOp::And>>("all");
  register_cpu_meta<LogicalDimSig, &logical_dim_k<ReduceOp::And>>("all.dim");
  register_cpu_meta<LogicalOutSig, &logical_out_k<ReduceOp::And>>("all.out");
  register_cpu_meta<AllOutSig, &logical_all_out_k<ReduceOp::And>>("all.all_out");
  define_op<AllSig>("any(Tensor self) -> Tensor", red);
  define_op<LogicalDimSig>("any.dim(Tensor self, int dim, bool keepdim=False) -> Tensor", red);
  define_op<LogicalOutSig>("any.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)", red);
  define_op<AllOutSig>("any.all_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", red);
  register_cpu_meta<AllSig, &logical_all_k<ReduceOp::Or>>("any");
  register_cpu_meta<LogicalDimSig, &logical_dim_k<ReduceOp::Or>>("any.dim");
  register_cpu_meta<LogicalOutSig, &logical_out_k<ReduceOp::Or>>("any.out");
  register_cpu_meta<AllOutSig, &logical_all_out_k<ReduceOp::Or>>("any.all_out");

  define_op<CountSig>("count_nonzero(Tensor self, int? dim=None) -> Tensor", red);
  define_op<CountDimsSig>("count_nonzero.dim_IntList(Tensor self, int[] dim) -> Tensor", red);
  register_cpu_meta<CountSig, &count_nonzero_k>("count_nonzero");
  register_cpu_meta<CountDimsSig, &count_nonzero_dims_k>("count_nonzero.dim_IntList");
}

}  // namespace ember
