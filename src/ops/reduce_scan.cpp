// Cumulative reductions along one dim: cumsum, cumprod (with dtype=, out= and in-place
// forms), cummax, cummin (values and int64 indices), logcumsumexp. Dtypes follow PyTorch:
// cumsum/cumprod of bool and integers give int64 unless `dtype=` or out= says otherwise (the
// input is converted to that dtype first); logcumsumexp takes floating inputs only.
#include <algorithm>
#include <cstdlib>

#include "backends/cpu/reduce_stubs.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ops/reduce.h"

namespace ember {
namespace {

using cpu::ScanOp;

// The loop scanning `in` along `dim` into `out` (and `indices`), all of in's shape.
cpu::ScanLoop make_scan_loop(const Tensor& in, int64_t dim, const Tensor& out, const Tensor& indices) {
  cpu::ScanLoop L;
  L.in = static_cast<const char*>(in.data_ptr());
  L.out = static_cast<char*>(out.data_ptr());
  L.in_dtype = in.dtype();
  L.out_dtype = out.dtype();
  const int64_t isz = static_cast<int64_t>(in.element_size()), osz = static_cast<int64_t>(out.element_size());
  if (indices.defined()) L.indices = static_cast<char*>(indices.data_ptr());
  if (in.dim() == 0) {
    L.size = 1;
    return L;
  }
  L.size = in.sizes()[dim];
  L.in_step = in.strides()[dim] * isz;
  L.out_step = out.strides()[dim] * osz;
  if (indices.defined()) L.idx_step = indices.strides()[dim] * 8;
  // Other dims, innermost (smallest input stride) first; size-1 dims dropped.
  int order[cpu::ScanLoop::kMaxDims];
  int n = 0;
  for (int64_t d = in.dim() - 1; d >= 0; --d)
    if (d != dim && in.sizes()[d] != 1) order[n++] = static_cast<int>(d);
  std::stable_sort(order, order + n, [&](int a, int b) {
    return std::abs(in.strides()[a]) < std::abs(in.strides()[b]);
  });
  for (int i = 0; i < n; ++i) {
    const int d = order[i];
    L.outer_size[i] = in.sizes()[d];
    L.outer_in[i] = in.strides()[d] * isz;
    L.outer_out[i] = out.strides()[d] * osz;
    if (indices.defined()) L.outer_idx[i] = indices.strides()[d] * 8;
    L.nlines *= in.sizes()[d];
  }
  L.nouter = n;
  return L;
}

// A fresh contiguous result of self's shape, or `out` checked and resized.
Tensor scan_output(const char* name, const Tensor& out, const Tensor& self, ScalarType dt) {
  return reduce_output(name, out, self.sizes(), dt, self.device());
}

void check_scan_input(const char* name, const Tensor& self, int64_t dim) {
  reduce_check_device(name, self);
  EMBER_CHECK(self.dim() <= kMaxReduceDims, ValueError, name, "(): at most ", kMaxReduceDims,
              " dimensions are supported, got ", self.dim());
  wrap_dim(dim, self.dim());
}

// cumsum / cumprod into `out` (or fresh): computed in dt, reading integers straight as int64.
Tensor sum_scan(const char* name, ScanOp op, const Tensor& self, int64_t dim, ScalarType dt, const Tensor& out) {
  check_scan_input(name, self, dim);
  // PyTorch has no bool accumulation (bool inputs count in int64 unless told otherwise).
  EMBER_CHECK(dt != kBool, RuntimeError, "\"", name, "_out_cpu\" not implemented for 'Bool'");
  const int64_t d = self.dim() == 0 ? 0 : wrap_dim(dim, self.dim());
  Tensor result = scan_output(name, out, self, dt);
  if (self.is_meta() || self.numel() == 0) return result;
  const bool direct = self.dtype() == dt || (dt == kInt64 && is_integral(self.dtype(), true));
  const Tensor in = direct ? self : to_dtype(self, dt);
  // In place the scan reads each element before writing it; any other overlap goes through a
  // temporary.
  Tensor target = result.is_alias_of(self) && !result.is_same(self) ? empty_like(result) : result;
  cpu::scan_stub(make_scan_loop(in, d, target, Tensor()), op);
  if (!target.is_same(result)) copy_(result, target);
  if (out.defined()) result.bump_version();
  return result;
}

template <ScanOp Op>
Tensor cumsum_k(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  const char* name = Op == ScanOp::Sum ? "cumsum" : "cumprod";
  return sum_scan(name, Op, self, dim, sum_result_dtype(self, dtype, Tensor()), Tensor());
}
template <ScanOp Op>
Tensor& cumsum_out_k(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, Tensor& out) {
  const char* name = Op == ScanOp::Sum ? "cumsum" : "cumprod";
  EMBER_CHECK(out.defined(), ValueError, name, "(): got an undefined out tensor");
  if (dtype)
    EMBER_CHECK(out.dtype() == *dtype, RuntimeError, "Expected out tensor to have dtype ", *dtype, ", but got ",
                out.dtype(), " instead");
  sum_scan(name, Op, self, dim, sum_result_dtype(self, dtype, out), out);
  return out;
}
template <ScanOp Op>
Tensor& cumsum_inplace_k(Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  const char* name = Op == ScanOp::Sum ? "cumsum_" : "cumprod_";
  EMBER_CHECK(self.defined(), ValueError, name, "(): got an undefined tensor");
  if (dtype)
    EMBER_CHECK(*dtype == self.dtype(), RuntimeError, "Bad in-place call: input tensor dtype ", self.dtype(),
                " and output tensor dtype ", *dtype, " should match");
  sum_scan(name, Op, self, dim, self.dtype(), self);
  return self;
}

template <ScanOp Op>
std::tuple<Tensor, Tensor> cummax_impl(const Tensor& self, int64_t dim, const Tensor& values_out,
                                       const Tensor& indices_out) {
  const char* name = Op == ScanOp::Max ? "cummax" : "cummin";
  check_scan_input(name, self, dim);
  EMBER_CHECK(!self.is_complex(), RuntimeError, "\"", name, "_cpu\" not implemented for '", self.dtype(), "'");
  if (values_out.defined())
    EMBER_CHECK(values_out.dtype() == self.dtype(), RuntimeError, "expected scalar_type ", self.dtype(),
                " but found ", values_out.dtype());
  if (indices_out.defined())
    EMBER_CHECK(indices_out.dtype() == kInt64, RuntimeError, "expected scalar_type Long but found ",
                indices_out.dtype());
  const int64_t d = self.dim() == 0 ? 0 : wrap_dim(dim, self.dim());
  Tensor values = scan_output(name, values_out, self, self.dtype());
  Tensor indices = scan_output(name, indices_out, self, kInt64);
  if (self.is_meta() || self.numel() == 0) return {values, indices};
  const bool alias = values.is_alias_of(self) || indices.is_alias_of(self);
  Tensor v = alias ? empty_like(values) : values, i = alias ? empty_like(indices) : indices;
  cpu::ScanLoop L = make_scan_loop(self, d, v, i);
  cpu::scan_stub(L, Op);
  if (alias) {
    copy_(values, v);
    copy_(indices, i);
  }
  if (values_out.defined()) values.bump_version();
  if (indices_out.defined()) indices.bump_version();
  return {values, indices};
}
template <ScanOp Op>
std::tuple<Tensor, Tensor> cummax_k(const Tensor& self, int64_t dim) {
  return cummax_impl<Op>(self, dim, Tensor(), Tensor());
}
template <ScanOp Op>
std::tuple<Tensor&, Tensor&> cummax_out_k(const Tensor& self, int64_t dim, Tensor& values, Tensor& indices) {
  EMBER_CHECK(values.defined() && indices.defined(), ValueError, "got an undefined out tensor");
  cummax_impl<Op>(self, dim, values, indices);
  return {values, indices};
}

Tensor logcumsumexp_impl(const Tensor& self, int64_t dim, const Tensor& out) {
  check_scan_input("logcumsumexp", self, dim);
  EMBER_CHECK(self.is_floating_point(), RuntimeError, "\"logcumsumexp_out_cpu\" not implemented for '", self.dtype(),
              "'");
  if (out.defined())
    EMBER_CHECK(out.dtype() == self.dtype(), RuntimeError, "expected scalar_type ", self.dtype(), " but found ",
                out.dtype());
  const int64_t d = self.dim() == 0 ? 0 : wrap_dim(dim, self.dim());
  Tensor result = scan_output("logcumsumexp", out, self, self.dtype());
  if (self.is_meta() || self.numel() == 0) return result;
  Tensor target = result.is_alias_of(self) ? empty_like(result) : result;
  cpu::scan_stub(make_scan_loop(self, d, target, Tensor()), ScanOp::LogSumExp);
  if (!target.is_same(result)) copy_(result, target);
  if (out.defined()) result.bump_version();
  return result;
}
Tensor logcumsumexp_k(const Tensor& self, int64_t dim) { return logcumsumexp_impl(self, dim, Tensor()); }
Tensor& logcumsumexp_out_k(const Tensor& self, int64_t dim, Tensor& out) {
  EMBER_CHECK(out.defined(), ValueError, "logcumsumexp(): got an undefined out tensor");
  logcumsumexp_impl(self, dim, out);
  return out;
}

using CumSig = Tensor(const Tensor&, int64_t, std::optional<ScalarType>);
using CumOutSig = Tensor&(const Tensor&, int64_t, std::optional<ScalarType>, Tensor&);
using CumInplaceSig = Tensor&(Tensor&, int64_t, std::optional<ScalarType>);
using CummaxSig = std::tuple<Tensor, Tensor>(const Tensor&, int64_t);
using CummaxOutSig = std::tuple<Tensor&, Tensor&>(const Tensor&, int64_t, Tensor&, Tensor&);
using LcseSig = Tensor(const Tensor&, int64_t);
using LcseOutSig = Tensor&(const Tensor&, int64_t, Tensor&);

}  // namespace

// ---------------------------------------------------------------- front functions
#define EMBER_CALL(Sig, name, ...)    \
  static const TypedOp<Sig> op(name); \
  return op.call(__VA_ARGS__)

Tensor cumsum(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) { EMBER_CALL(CumSig, "cumsum", self, dim, dtype); }
Tensor& cumsum_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  EMBER_CALL(CumOutSig, "cumsum.out", self, dim, dtype, out);
}
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  EMBER_CALL(CumSig, "cumprod", self, dim, dtype);
}
Tensor& cumprod_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  EMBER_CALL(CumOutSig, "cumprod.out", self, dim, dtype, out);
}
std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim) { EMBER_CALL(CummaxSig, "cummax", self, dim); }
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim) { EMBER_CALL(CummaxSig, "cummin", self, dim); }
Tensor logcumsumexp(const Tensor& self, int64_t dim) { EMBER_CALL(LcseSig, "logcumsumexp", self, dim); }
Tensor& logcumsumexp_out(Tensor& out, const Tensor& self, int64_t dim) {
  EMBER_CALL(LcseOutSig, "logcumsumexp.out", self, dim, out);
}
#undef EMBER_CALL

EMBER_REGISTER(reduce_scan_ops) {
  for (const char* n : {"cumsum", "cumprod"}) {
    const std::string s(n);
    define_op<CumSig>(s + "(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor");
    define_op<CumOutSig>(s + ".out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)");
    define_op<CumInplaceSig>(s + "_(Tensor(a!) self, int dim, *, ScalarType? dtype=None) -> Tensor(a!)",
                             static_cast<uint32_t>(Tag::Inplace));
  }
  register_cpu_meta<CumSig, &cumsum_k<ScanOp::Sum>>("cumsum");
  register_cpu_meta<CumOutSig, &cumsum_out_k<ScanOp::Sum>>("cumsum.out");
  register_cpu_meta<CumInplaceSig, &cumsum_inplace_k<ScanOp::Sum>>("cumsum_");
  register_cpu_meta<CumSig, &cumsum_k<ScanOp::Prod>>("cumprod");
  register_cpu_meta<CumOutSig, &cumsum_out_k<ScanOp::Prod>>("cumprod.out");
  register_cpu_meta<CumInplaceSig, &cumsum_inplace_k<ScanOp::Prod>>("cumprod_");

  define_op<CummaxSig>("cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)");
  define_op<CummaxOutSig>("cummax.out(Tensor self, int dim, *, Tensor(a!) values, Tensor(b!) indices) -> "
                          "(Tensor(a!) values, Tensor(b!) indices)");
  define_op<CummaxSig>("cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)");
  define_op<CummaxOutSig>("cummin.out(Tensor self, int dim, *, Tensor(a!) values, Tensor(b!) indices) -> "
                          "(Tensor(a!) values, Tensor(b!) indices)");
  register_cpu_meta<CummaxSig, &cummax_k<ScanOp::Max>>("cummax");
  register_cpu_meta<CummaxOutSig, &cummax_out_k<ScanOp::Max>>("cummax.out");
  register_cpu_meta<CummaxSig, &cummax_k<ScanOp::Min>>("cummin");
  register_cpu_meta<CummaxOutSig, &cummax_out_k<ScanOp::Min>>("cummin.out");

  define_op<LcseSig>("logcumsumexp(Tensor self, int dim) -> Tensor");
  define_op<LcseOutSig>("logcumsumexp.out(Tensor self, int dim, *, Tensor(a!) out) -> Tensor(a!)");
  register_cpu_meta<LcseSig, &logcumsumexp_k>("logcumsumexp");
  register_cpu_meta<LcseOutSig, &logcumsumexp_out_k>("logcumsumexp.out");
}

}  // namespace ember
