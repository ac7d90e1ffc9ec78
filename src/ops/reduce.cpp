// Reductions: sum, mean, max, min (full and over dims), with the shared reduction helpers of
// ops/reduce.h. Dtype rules follow PyTorch 1.13 on CPU:
//  - sum of bool and integers accumulates in int64; `dtype=` casts the input first; sum's
//    out= without a dtype computes in out's dtype.
//  - mean takes floating and complex inputs only (or a floating/complex `dtype=`); it is the
//    sum in the result dtype divided by the number of elements (nan for none).
//  - max/min propagate NaN; the full forms reject empty inputs, the dim forms a zero-size
//    reduced dim; complex is rejected.
#include "ops/reduce.h"

#include <algorithm>

#include "backends/cpu/stubs.h"
#include "ember/dispatch.h"

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

namespace {

using cpu::ReduceOp;

void check_device(const char* op, const Tensor& t) {
  EMBER_CHECK(t.is_cpu() || t.is_meta(), NotImplementedError, op, "(): no kernel for device ", t.device());
}

// Runs the CPU reduction of `in` (already in a dtype the kernel reads) into `out`.
void run_reduce(const Tensor& in, DimMask mask, const Tensor& out, ReduceOp op) {
  if (out.numel() == 0) return;
  ReduceLoop loop = make_reduce_loop(in, mask, {out});
  cpu::reduce_stub(loop, op);
}

// ---------------------------------------------------------------- sum and mean
// The dtype the sum is computed and returned in.
ScalarType sum_dtype(const Tensor& self, std::optional<ScalarType> dtype, const Tensor& out) {
  if (dtype) return *dtype;
  if (out.defined()) return out.dtype();
  return is_integral(self.dtype(), true) ? kInt64 : self.dtype();
}

ScalarType mean_dtype(const Tensor& self, std::optional<ScalarType> dtype) {
  if (dtype) {
    EMBER_CHECK(is_floating_point(*dtype) || is_complex(*dtype), RuntimeError,
                "mean(): could not infer output dtype. Optional dtype must be either a floating point "
                "or complex dtype. Got: ", *dtype);
    return *dtype;
  }
  EMBER_CHECK(self.is_floating_point() || self.is_complex(), RuntimeError,
              "mean(): could not infer output dtype. Input dtype must be either a floating point or "
              "complex dtype. Got: ", self.dtype());
  return self.dtype();
}

// Shared by sum and mean: `dt` is the compute and result dtype; `out` (if given) has passed
// its dtype check (and may differ from dt for mean, which then writes through a temporary).
Tensor sum_mean(const char* name, ReduceOp op, const Tensor& self, IntArrayRef dim, bool all,
                bool keepdim, ScalarType dt, const Tensor& out) {
  EMBER_CHECK(self.defined(), ValueError, name, "(): got an undefined tensor");
  check_device(name, self);
  const DimMask mask = all ? reduce_mask_all(self.dim()) : reduce_mask(name, dim, self.dim());
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
  // The kernel reads the input in dt, or integers and bool straight into int64.
  const bool direct = self.dtype() == dt || (dt == kInt64 && is_integral(self.dtype(), true));
  Tensor in = direct ? self : to_dtype(self, dt);
  run_reduce(in, mask, target, op);
  if (!target.is_same(result)) copy_(result, target);
  if (out.defined()) result.bump_version();
  return result;
}

Tensor sum_k(const Tensor& self, std::optional<ScalarType> dtype) {
  return sum_mean("sum", ReduceOp::Sum, self, {}, true, false, sum_dtype(self, dtype, Tensor()), Tensor());
}
Tensor sum_dim_k(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  return sum_mean("sum", ReduceOp::Sum, self, dim, false, keepdim, sum_dtype(self, dtype, Tensor()), Tensor());
}
Tensor& sum_out_k(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype,
                  Tensor& out) {
  EMBER_CHECK(out.defined(), ValueError, "sum(): got an undefined out tensor");
  if (dtype)
    EMBER_CHECK(out.dtype() == *dtype, RuntimeError, "sum(): Expected out tensor to have dtype ", *dtype,
                ", but got ", out.dtype(), " instead");
  sum_mean("sum", ReduceOp::Sum, self, dim, false, keepdim, sum_dtype(self, dtype, out), out);
  return out;
}

Tensor mean_k(const Tensor& self, std::optional<ScalarType> dtype) {
  EMBER_CHECK(self.defined(), ValueError, "mean(): got an undefined tensor");
  return sum_mean("mean", ReduceOp::Mean, self, {}, true, false, mean_dtype(self, dtype), Tensor());
}
Tensor mean_dim_k(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CHECK(self.defined(), ValueError, "mean(): got an undefined tensor");
  return sum_mean("mean", ReduceOp::Mean, self, dim, false, keepdim, mean_dtype(self, dtype), Tensor());
}
Tensor& mean_out_k(const Tensor& self, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype,
                   Tensor& out) {
  EMBER_CHECK(self.defined() && out.defined(), ValueError, "mean(): got an undefined tensor");
  const ScalarType dt = mean_dtype(self, dtype);
  EMBER_CHECK(can_cast(dt, out.dtype()), RuntimeError, "mean(): result type ", dt,
              " can't be cast to the desired output type ", out.dtype());
  sum_mean("mean", ReduceOp::Mean, self, dim, false, keepdim, dt, out);
  return out;
}

// ---------------------------------------------------------------- max and min
const char* minmax_name(ReduceOp op) { return op == ReduceOp::Max ? "max" : "min"; }

template <ReduceOp Op>
Tensor minmax_all_k(const Tensor& self) {
  const char* name = minmax_name(Op);
  EMBER_CHECK(self.defined(), ValueError, name, "(): got an undefined tensor");
  check_device(name, self);
  EMBER_CHECK(!self.is_complex(), RuntimeError, "\"", name, "_all\" not implemented for '", self.dtype(), "'");
  EMBER_CHECK(self.numel() > 0, RuntimeError, name,
              "(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
              "reduction dim with the 'dim' argument.");
  EMBER_CHECK(self.dim() <= kMaxReduceDims, ValueError, name, "(): at most ", kMaxReduceDims,
              " dimensions are supported, got ", self.dim());
  Tensor out = empty({}, TensorOptions(self.dtype()).device(self.device()));
  if (self.is_meta()) return out;
  run_reduce(self, reduce_mask_all(self.dim()), out, Op);
  return out;
}

template <ReduceOp Op>
std::tuple<Tensor, Tensor> minmax_dim_k(const Tensor& self, int64_t dim, bool keepdim) {
  const char* name = minmax_name(Op);
  EMBER_CHECK(self.defined(), ValueError, name, "(): got an undefined tensor");
  check_device(name, self);
  EMBER_CHECK(!self.is_complex(), RuntimeError, name, "(): does not support complex input");
  const int64_t d = wrap_dim(dim, self.dim());
  const DimMask mask = reduce_mask(name, IntArrayRef(d), self.dim());
  if (self.dim() > 0)
    EMBER_CHECK(self.sizes()[d] > 0, IndexError, name, "(): Expected reduction dim ", d,
                " to have non-zero size.");
  const DimVector shape = reduce_shape(self.sizes(), mask, keepdim);
  Tensor values = empty(shape, TensorOptions(self.dtype()).device(self.device()));
  Tensor indices = empty(shape, TensorOptions(kInt64).device(self.device()));
  if (self.is_meta() || values.numel() == 0) return {values, indices};
  ReduceLoop loop = make_reduce_loop(self, mask, {values, indices}, /*logical_order=*/true);
  cpu::arg_reduce_stub(loop, Op);
  return {values, indices};
}

using FullSig = Tensor(const Tensor&, std::optional<ScalarType>);
using DimSig = Tensor(const Tensor&, IntArrayRef, bool, std::optional<ScalarType>);
using DimOutSig = Tensor&(const Tensor&, IntArrayRef, bool, std::optional<ScalarType>, Tensor&);
using AllSig = Tensor(const Tensor&);
using MinMaxDimSig = std::tuple<Tensor, Tensor>(const Tensor&, int64_t, bool);

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
Tensor max(const Tensor& self) { EMBER_CALL(AllSig, "max", self); }
Tensor min(const Tensor& self) { EMBER_CALL(AllSig, "min", self); }
std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim) {
  EMBER_CALL(MinMaxDimSig, "max.dim", self, dim, keepdim);
}
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim) {
  EMBER_CALL(MinMaxDimSig, "min.dim", self, dim, keepdim);
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
Tensor Tensor::max() const { return ember::max(*this); }
Tensor Tensor::min() const { return ember::min(*this); }
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const { return ember::max(*this, dim, keepdim); }
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const { return ember::min(*this, dim, keepdim); }

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

  define_op<AllSig>("max(Tensor self) -> Tensor", red);
  define_op<AllSig>("min(Tensor self) -> Tensor", red);
  define_op<MinMaxDimSig>("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", red);
  define_op<MinMaxDimSig>("min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", red);
  register_cpu_meta<AllSig, &minmax_all_k<ReduceOp::Max>>("max");
  register_cpu_meta<AllSig, &minmax_all_k<ReduceOp::Min>>("min");
  register_cpu_meta<MinMaxDimSig, &minmax_dim_k<ReduceOp::Max>>("max.dim");
  register_cpu_meta<MinMaxDimSig, &minmax_dim_k<ReduceOp::Min>>("min.dim");
}

}  // namespace ember
