// Sorting and order statistics along a dim: sort, argsort, msort, topk, kthvalue, median,
// nanmedian, mode, quantile, nanquantile.
//
// Each op moves its dim last and makes the input contiguous (free when the dim is already the
// innermost of a contiguous tensor), runs a row kernel (kernels/sort.cpp) into contiguous
// buffers, and moves the dim back. NaN sorts after every number (before, descending); sort is
// always stable, which is also a valid unstable sort. Meta inputs stop after the shape work.
#include <algorithm>
#include <cmath>
#include <string>

#include "backends/cpu/sort_stubs.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ops/reduce.h"

namespace ember {
namespace {

void check_sortable(const char* name, const Tensor& self) {
  reduce_check_device(name, self);
  EMBER_CHECK(!self.is_complex(), RuntimeError, "\"", name, "_cpu\" not implemented for '", self.dtype(), "'");
  EMBER_CHECK(self.dim() <= kMaxReduceDims, ValueError, name, "(): at most ", kMaxReduceDims,
              " dimensions are supported, got ", self.dim());
}

// self with dim `d` moved last, as contiguous rows of n.
struct Rows {
  Tensor in;                // contiguous [rows, n] (a view of it)
  int64_t rows = 1, n = 1;
  DimVector moved;          // sizes with d last
  DimVector perm;           // the permutation that moved d last
  int64_t d = 0;
  bool last = true;
};

Rows to_rows(const Tensor& self, int64_t d) {
  Rows r;
  if (self.dim() == 0) {
    r.in = self.reshape({1, 1});
    r.moved = {1};
    r.perm = {0};
    return r;
  }
  r.d = d;
  r.last = d == self.dim() - 1;
  for (int64_t i = 0; i < self.dim(); ++i)
    if (i != d) r.perm.push_back(i);
  r.perm.push_back(d);
  for (int64_t i : r.perm) r.moved.push_back(self.sizes()[i]);
  r.n = self.sizes()[d];
  r.rows = r.n == 0 ? 0 : self.numel() / r.n;
  if (!self.is_meta()) {
    const Tensor moved = r.last ? self : self.permute(r.perm);
    r.in = moved.contiguous();
  }
  return r;
}

// A [rows, m] buffer back in the input's dim order (dim d of size m), as a view.
Tensor from_rows(const Rows& r, const Tensor& buf, int64_t m, int64_t ndim) {
  if (ndim == 0) return buf.reshape({});
  DimVector shape = r.moved;
  shape.back() = m;
  Tensor v = buf.view(shape);
  if (r.last) return v;
  DimVector inv(static_cast<size_t>(ndim));
  for (int64_t i = 0; i < ndim; ++i) inv[static_cast<size_t>(r.perm[static_cast<size_t>(i)])] = i;
  return v.permute(inv);
}

// `src` into a fresh contiguous tensor or into `out` (checked for dtype, resized).
Tensor deliver(const char* name, const Tensor& src, const Tensor& out) {
  Tensor r = reduce_output(name, out, src.sizes(), src.dtype(), src.device());
  if (!src.is_meta() && !r.is_same(src)) copy_(r, src);
  if (out.defined()) r.bump_version();
  return r;
}

// Output shape of an op on a Meta input with dim d of size m.
DimVector with_dim(const Tensor& self, int64_t d, int64_t m) {
  DimVector s(self.sizes());
  if (!s.empty()) s[static_cast<size_t>(d)] = m;
  return s;
}

// ---------------------------------------------------------------- sort, argsort, msort
std::tuple<Tensor, Tensor> sort_impl(const Tensor& self, int64_t dim, bool descending, const Tensor& values_out,
                                     const Tensor& indices_out) {
  check_sortable("sort", self);
  const int64_t d = wrap_dim(dim, self.dim());
  if (values_out.defined())
    EMBER_CHECK(values_out.dtype() == self.dtype(), RuntimeError, "Expected out tensor to have dtype ", self.dtype(),
                ", but got ", values_out.dtype(), " instead");
  if (indices_out.defined())
    EMBER_CHECK(indices_out.dtype() == kInt64, RuntimeError, "Expected out tensor to have dtype long int, but got ",
                indices_out.dtype(), " instead");
  if (self.is_meta()) {
    return {deliver("sort", empty(self.sizes(), TensorOptions(self.dtype()).device(self.device())), values_out),
            deliver("sort", empty(self.sizes(), TensorOptions(kInt64).device(self.device())), indices_out)};
  }
  const Rows r = to_rows(self, d);
  Tensor vals = empty({r.rows, r.n}, TensorOptions(self.dtype()));
  Tensor idx = empty({r.rows, r.n}, TensorOptions(kInt64));
  if (self.numel() > 0) {
    cpu::SortRows s{static_cast<const char*>(r.in.data_ptr()), self.dtype(), r.rows, r.n,
                    static_cast<char*>(vals.data_ptr()), idx.data_ptr<int64_t>()};
    cpu::sort_stub(s, descending);
  }
  Tensor v = from_rows(r, vals, r.n, self.dim()), i = from_rows(r, idx, r.n, self.dim());
  if (r.last && !values_out.defined() && !indices_out.defined()) return {v, i};
  return {deliver("sort", v, values_out), deliver("sort", i, indices_out)};
}

std::tuple<Tensor, Tensor> sort_k(const Tensor& self, int64_t dim, bool descending) {
  return sort_impl(self, dim, descending, Tensor(), Tensor());
}
std::tuple<Tensor, Tensor> sort_stable_k(const Tensor& self, std::optional<bool>, int64_t dim, bool descending) {
  return sort_impl(self, dim, descending, Tensor(), Tensor());
}
std::tuple<Tensor&, Tensor&> sort_values_k(const Tensor& self, int64_t dim, bool descending, Tensor& values,
                                           Tensor& indices) {
  EMBER_CHECK(values.defined() && indices.defined(), ValueError, "sort(): got an undefined out tensor");
  sort_impl(self, dim, descending, values, indices);
  return {values, indices};
}
std::tuple<Tensor&, Tensor&> sort_values_stable_k(const Tensor& self, std::optional<bool>, int64_t dim,
                                                  bool descending, Tensor& values, Tensor& indices) {
  return sort_values_k(self, dim, descending, values, indices);
}
Tensor argsort_k(const Tensor& self, int64_t dim, bool descending) {
  return std::get<1>(sort_impl(self, dim, descending, Tensor(), Tensor()));
}
Tensor argsort_stable_k(const Tensor& self, bool, int64_t dim, bool descending) {
  return std::get<1>(sort_impl(self, dim, descending, Tensor(), Tensor()));
}
Tensor msort_k(const Tensor& self) {
  EMBER_CHECK(self.defined(), ValueError, "msort(): got an undefined tensor");
  return std::get<0>(sort_impl(self, 0, false, Tensor(), Tensor()));
}
Tensor& msort_out_k(const Tensor& self, Tensor& out) {
  EMBER_CHECK(self.defined() && out.defined(), ValueError, "msort(): got an undefined tensor");
  Tensor v = std::get<0>(sort_impl(self, 0, false, Tensor(), Tensor()));
  deliver("msort", v, out);
  return out;
}

// ---------------------------------------------------------------- topk
std::tuple<Tensor, Tensor> topk_impl(const Tensor& self, int64_t k, int64_t dim, bool largest, const Tensor& values_out,
                                     const Tensor& indices_out) {
  check_sortable("topk", self);
  EMBER_CHECK(self.dtype() != kBool, RuntimeError, "\"topk_cpu\" not implemented for 'Bool'");
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
  EMBER_CHECK(k >= 0 && k <= n, RuntimeError, "selected index k out of range");
  if (self.is_meta()) {
    const DimVector shape = with_dim(self, d, k);
    return {deliver("topk", empty(shape, TensorOptions(self.dtype()).device(self.device())), values_out),
            deliver("topk", empty(shape, TensorOptions(kInt64).device(self.device())), indices_out)};
  }
  const Rows r = to_rows(self, d);
  Tensor vals = empty({r.rows, k}, TensorOptions(self.dtype()));
  Tensor idx = empty({r.rows, k}, TensorOptions(kInt64));
  if (r.rows > 0 && k > 0) {
    cpu::SortRows s{static_cast<const char*>(r.in.data_ptr()), self.dtype(), r.rows, r.n,
                    static_cast<char*>(vals.data_ptr()), idx.data_ptr<int64_t>()};
    cpu::topk_stub(s, k, largest);
  }
  Tensor v = from_rows(r, vals, k, self.dim()), i = from_rows(r, idx, k, self.dim());
  if (r.last && !values_out.defined() && !indices_out.defined()) return {v, i};
  return {deliver("topk", v, values_out), deliver("topk", i, indices_out)};
}
std::tuple<Tensor, Tensor> topk_k(const Tensor& self, int64_t k, int64_t dim, bool largest, bool) {
  return topk_impl(self, k, dim, largest, Tensor(), Tensor());
}
std::tuple<Tensor&, Tensor&> topk_out_k(const Tensor& self, int64_t k, int64_t dim, bool largest, bool, Tensor& values,
                                        Tensor& indices) {
  EMBER_CHECK(values.defined() && indices.defined(), ValueError, "topk(): got an undefined out tensor");
  topk_impl(self, k, dim, largest, values, indices);
  return {values, indices};
}

// ---------------------------------------------------------------- kthvalue, median, nanmedian, mode
const char* select_name(cpu::SelectOp op) {
  switch (op) {
    case cpu::SelectOp::Kth: return "kthvalue";
    case cpu::SelectOp::Median: return "median";
    case cpu::SelectOp::NanMedian: return "nanmedian";
    case cpu::SelectOp::Mode: return "mode";
  }
  return "";
}

// One element per row along dim (values and indices), keepdim or not.
std::tuple<Tensor, Tensor> select_impl(cpu::SelectOp op, const Tensor& self, int64_t k, int64_t dim, bool keepdim,
                                       const Tensor& values_out, const Tensor& indices_out) {
  const char* name = select_name(op);
  check_sortable(name, self);
  EMBER_CHECK(self.dtype() != kBool || op == cpu::SelectOp::Mode, RuntimeError, "\"", name,
              "_cpu\" not implemented for 'Bool'");
  const int64_t d = wrap_dim(dim, self.dim());
  const int64_t n = self.dim() == 0 ? 1 : self.sizes()[d];
  if (op == cpu::SelectOp::Kth)
    EMBER_CHECK(k >= 1 && k <= n, RuntimeError, "kthvalue(): selected number k out of range for dimension ", d);
  else if (self.dim() > 0)
    EMBER_CHECK(n > 0, IndexError, name,
                "(): Expected reduction dim ", d, " to have non-zero size.");
  if (values_out.defined())
    EMBER_CHECK(values_out.dtype() == self.dtype(), RuntimeError, "Expected out tensor to have dtype ", self.dtype(),
                ", but got ", values_out.dtype(), " instead");
  if (indices_out.defined())
    EMBER_CHECK(indices_out.dtype() == kInt64, RuntimeError, "Expected out tensor to have dtype long int, but got ",
                indices_out.dtype(), " instead");
  const DimMask mask = self.dim() == 0 ? 0 : DimMask(1) << d;
  const DimVector shape = reduce_shape(self.sizes(), mask, keepdim);
  if (self.is_meta()) {
    return {deliver(name, empty(shape, TensorOptions(self.dtype()).device(self.device())), values_out),
            deliver(name, empty(shape, TensorOptions(kInt64).device(self.device())), indices_out)};
  }
  const Rows r = to_rows(self, d);
  Tensor vals = empty({r.rows}, TensorOptions(self.dtype()));
  Tensor idx = empty({r.rows}, TensorOptions(kInt64));
  if (r.rows > 0) {
    cpu::SortRows s{static_cast<const char*>(r.in.data_ptr()), self.dtype(), r.rows, r.n,
                    static_cast<char*>(vals.data_ptr()), idx.data_ptr<int64_t>()};
    cpu::select_stub(s, op, k);
  }
  // Rows are the other dims in order: exactly the keepdim=False shape.
  Tensor v = vals.view(shape), i = idx.view(shape);
  if (!values_out.defined() && !indices_out.defined()) return {v, i};
  return {deliver(name, v, values_out), deliver(name, i, indices_out)};
}

std::tuple<Tensor, Tensor> kthvalue_k(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  return select_impl(cpu::SelectOp::Kth, self, k, dim, keepdim, Tensor(), Tensor());
}
std::tuple<Tensor&, Tensor&> kthvalue_out_k(const Tensor& self, int64_t k, int64_t dim, bool keepdim, Tensor& values,
                                            Tensor& indices) {
  EMBER_CHECK(values.defined() && indices.defined(), ValueError, "kthvalue(): got an undefined out tensor");
  select_impl(cpu::SelectOp::Kth, self, k, dim, keepdim, values, indices);
  return {values, indices};
}
template <cpu::SelectOp Op>
std::tuple<Tensor, Tensor> select_dim_k(const Tensor& self, int64_t dim, bool keepdim) {
  return select_impl(Op, self, 0, dim, keepdim, Tensor(), Tensor());
}
template <cpu::SelectOp Op>
std::tuple<Tensor&, Tensor&> select_dim_out_k(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                              Tensor& indices) {
  EMBER_CHECK(values.defined() && indices.defined(), ValueError, select_name(Op), "(): got an undefined out tensor");
  select_impl(Op, self, 0, dim, keepdim, values, indices);
  return {values, indices};
}
// median() / nanmedian() over every element: NaN for an empty input.
template <cpu::SelectOp Op>
Tensor median_all_k(const Tensor& self) {
  const char* name = select_name(Op);
  check_sortable(name, self);
  EMBER_CHECK(self.dtype() != kBool, RuntimeError, "\"", name, "_cpu\" not implemented for 'Bool'");
  if (self.numel() == 0) {
    Tensor r = empty({}, TensorOptions(self.dtype()).device(self.device()));
    if (!self.is_meta()) fill_(r, std::numeric_limits<double>::quiet_NaN());
    return r;
  }
  return std::get<0>(select_impl(Op, self.reshape({-1}), 0, 0, false, Tensor(), Tensor()));
}

// ---------------------------------------------------------------- quantile, nanquantile
cpu::Interpolation parse_interpolation(const char* name, std::string_view s) {
  if (s == "linear") return cpu::Interpolation::Linear;
  if (s == "lower") return cpu::Interpolation::Lower;
  if (s == "higher") return cpu::Interpolation::Higher;
  if (s == "midpoint") return cpu::Interpolation::Midpoint;
  if (s == "nearest") return cpu::Interpolation::Nearest;
  EMBER_FAIL(RuntimeError, name, "() interpolation must be one of linear, lower, higher, midpoint or nearest. Got ", s);
}

// q as a tensor (0-dim or 1-D) or a number (scalar_q).
Tensor quantile_impl(const char* name, const Tensor& self, const Tensor& q, std::optional<double> scalar_q,
                     std::optional<int64_t> dim, bool keepdim, std::string_view interpolation, bool ignore_nan,
                     const Tensor& out) {
  reduce_check_device(name, self);
  EMBER_CHECK(self.numel() > 0, RuntimeError, name, "() input tensor must be non-empty");
  if (!scalar_q)
    EMBER_CHECK(q.dim() <= 1, RuntimeError, name, "() q must be a scalar or 1D tensor");
  EMBER_CHECK(self.dtype() == kFloat || self.dtype() == kDouble, RuntimeError, name,
              "() input tensor must be either float or double dtype");
  if (!scalar_q)
    EMBER_CHECK(q.dtype() == self.dtype(), RuntimeError, name, "() q tensor must be same dtype as the input tensor");
  if (out.defined())
    EMBER_CHECK(out.dtype() == self.dtype(), RuntimeError, name, "() out tensor must be same dtype as the input tensor");
  if (!scalar_q)
    EMBER_CHECK(q.device() == self.device(), RuntimeError, name,
                "() q tensor must be on the same device as the input tensor");
  const cpu::Interpolation interp = parse_interpolation(name, interpolation);
  std::vector<double> qs;
  if (scalar_q) {
    qs.push_back(*scalar_q);
  } else if (!q.is_meta()) {
    const Tensor qc = q.to(kDouble).contiguous();
    qs.assign(qc.data_ptr<double>(), qc.data_ptr<double>() + qc.numel());
  }
  for (double v : qs) EMBER_CHECK(v >= 0 && v <= 1, RuntimeError, name, "() q values must be in the range [0, 1]");
  // The reduced shape: over dim, or over every element (kept as all-ones with keepdim).
  Tensor in = self;
  int64_t d = 0;
  DimVector shape;
  if (dim) {
    d = wrap_dim(*dim, self.dim());
    shape = reduce_shape(self.sizes(), self.dim() == 0 ? 0 : DimMask(1) << d, keepdim);
  } else {
    in = self.reshape({-1});
    if (keepdim) shape.resize(static_cast<size_t>(self.dim()), 1);
  }
  DimVector full;
  const bool vector_q = !scalar_q && q.dim() == 1;
  if (vector_q) full.push_back(q.numel());
  for (int64_t v : shape) full.push_back(v);
  if (self.is_meta()) return deliver(name, empty(full, TensorOptions(self.dtype()).device(self.device())), out);
  const Rows r = to_rows(in, in.dim() == 0 ? 0 : (dim ? d : 0));
  const int64_t nq = static_cast<int64_t>(qs.size());
  Tensor vals = empty({nq, r.rows}, TensorOptions(self.dtype()));
  if (r.rows > 0 && nq > 0) {
    cpu::SortRows s{static_cast<const char*>(r.in.data_ptr()), self.dtype(), r.rows, r.n,
                    static_cast<char*>(vals.data_ptr()), nullptr};
    cpu::quantile_stub(s, qs.data(), nq, interp, ignore_nan);
  }
  return deliver(name, vals.view(full), out);
}

template <bool IgnoreNan>
Tensor quantile_k(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                  std::string_view interpolation) {
  return quantile_impl(IgnoreNan ? "nanquantile" : "quantile", self, q, std::nullopt, dim, keepdim, interpolation,
                       IgnoreNan, Tensor());
}
template <bool IgnoreNan>
Tensor quantile_scalar_k(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                         std::string_view interpolation) {
  return quantile_impl(IgnoreNan ? "nanquantile" : "quantile", self, Tensor(), q, dim, keepdim, interpolation,
                       IgnoreNan, Tensor());
}
template <bool IgnoreNan>
Tensor& quantile_out_k(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                       std::string_view interpolation, Tensor& out) {
  EMBER_CHECK(out.defined(), ValueError, "quantile(): got an undefined out tensor");
  quantile_impl(IgnoreNan ? "nanquantile" : "quantile", self, q, std::nullopt, dim, keepdim, interpolation, IgnoreNan,
                out);
  return out;
}
template <bool IgnoreNan>
Tensor& quantile_scalar_out_k(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                              std::string_view interpolation, Tensor& out) {
  EMBER_CHECK(out.defined(), ValueError, "quantile(): got an undefined out tensor");
  quantile_impl(IgnoreNan ? "nanquantile" : "quantile", self, Tensor(), q, dim, keepdim, interpolation, IgnoreNan, out);
  return out;
}

using SortSig = std::tuple<Tensor, Tensor>(const Tensor&, int64_t, bool);
using SortStableSig = std::tuple<Tensor, Tensor>(const Tensor&, std::optional<bool>, int64_t, bool);
using SortValuesSig = std::tuple<Tensor&, Tensor&>(const Tensor&, int64_t, bool, Tensor&, Tensor&);
using SortValuesStableSig = std::tuple<Tensor&, Tensor&>(const Tensor&, std::optional<bool>, int64_t, bool, Tensor&,
                                                         Tensor&);
using ArgsortSig = Tensor(const Tensor&, int64_t, bool);
using ArgsortStableSig = Tensor(const Tensor&, bool, int64_t, bool);
using MsortSig = Tensor(const Tensor&);
using MsortOutSig = Tensor&(const Tensor&, Tensor&);
using TopkSig = std::tuple<Tensor, Tensor>(const Tensor&, int64_t, int64_t, bool, bool);
using TopkOutSig = std::tuple<Tensor&, Tensor&>(const Tensor&, int64_t, int64_t, bool, bool, Tensor&, Tensor&);
using KthSig = std::tuple<Tensor, Tensor>(const Tensor&, int64_t, int64_t, bool);
using KthOutSig = std::tuple<Tensor&, Tensor&>(const Tensor&, int64_t, int64_t, bool, Tensor&, Tensor&);
using SelectDimSig = std::tuple<Tensor, Tensor>(const Tensor&, int64_t, bool);
using SelectDimOutSig = std::tuple<Tensor&, Tensor&>(const Tensor&, int64_t, bool, Tensor&, Tensor&);
using MedianSig = Tensor(const Tensor&);
using QuantileSig = Tensor(const Tensor&, const Tensor&, std::optional<int64_t>, bool, std::string_view);
using QuantileScalarSig = Tensor(const Tensor&, double, std::optional<int64_t>, bool, std::string_view);
using QuantileOutSig = Tensor&(const Tensor&, const Tensor&, std::optional<int64_t>, bool, std::string_view, Tensor&);
using QuantileScalarOutSig = Tensor&(const Tensor&, double, std::optional<int64_t>, bool, std::string_view, Tensor&);

}  // namespace

// ---------------------------------------------------------------- front functions
#define EMBER_CALL(Sig, name, ...)    \
  static const TypedOp<Sig> op(name); \
  return op.call(__VA_ARGS__)

std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim, bool descending) {
  EMBER_CALL(SortSig, "sort", self, dim, descending);
}
std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> stable, int64_t dim, bool descending) {
  EMBER_CALL(SortStableSig, "sort.stable", self, stable, dim, descending);
}
std::tuple<Tensor&, Tensor&> sort_out(Tensor& values, Tensor& indices, const Tensor& self, std::optional<bool> stable,
                                      int64_t dim, bool descending) {
  EMBER_CALL(SortValuesStableSig, "sort.values_stable", self, stable, dim, descending, values, indices);
}
Tensor argsort(const Tensor& self, int64_t dim, bool descending) { EMBER_CALL(ArgsortSig, "argsort", self, dim, descending); }
Tensor argsort(const Tensor& self, bool stable, int64_t dim, bool descending) {
  EMBER_CALL(ArgsortStableSig, "argsort.stable", self, stable, dim, descending);
}
Tensor msort(const Tensor& self) { EMBER_CALL(MsortSig, "msort", self); }
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted) {
  EMBER_CALL(TopkSig, "topk", self, k, dim, largest, sorted);
}
std::tuple<Tensor&, Tensor&> topk_out(Tensor& values, Tensor& indices, const Tensor& self, int64_t k, int64_t dim,
                                      bool largest, bool sorted) {
  EMBER_CALL(TopkOutSig, "topk.values", self, k, dim, largest, sorted, values, indices);
}
std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim, bool keepdim) {
  EMBER_CALL(KthSig, "kthvalue", self, k, dim, keepdim);
}
Tensor median(const Tensor& self) { EMBER_CALL(MedianSig, "median", self); }
std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim) {
  EMBER_CALL(SelectDimSig, "median.dim", self, dim, keepdim);
}
Tensor nanmedian(const Tensor& self) { EMBER_CALL(MedianSig, "nanmedian", self); }
std::tuple<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim) {
  EMBER_CALL(SelectDimSig, "nanmedian.dim", self, dim, keepdim);
}
std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim, bool keepdim) {
  EMBER_CALL(SelectDimSig, "mode", self, dim, keepdim);
}
Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                std::string_view interpolation) {
  EMBER_CALL(QuantileSig, "quantile", self, q, dim, keepdim, interpolation);
}
Tensor quantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim, std::string_view interpolation) {
  EMBER_CALL(QuantileScalarSig, "quantile.scalar", self, q, dim, keepdim, interpolation);
}
Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  EMBER_CALL(QuantileSig, "nanquantile", self, q, dim, keepdim, interpolation);
}
Tensor nanquantile(const Tensor& self, double q, std::optional<int64_t> dim, bool keepdim,
                   std::string_view interpolation) {
  EMBER_CALL(QuantileScalarSig, "nanquantile.scalar", self, q, dim, keepdim, interpolation);
}
#undef EMBER_CALL

EMBER_REGISTER(sort_ops) {
  define_op<SortSig>("sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)");
  define_op<SortStableSig>("sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> "
                           "(Tensor values, Tensor indices)");
  define_op<SortValuesSig>("sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(a!) values, "
                           "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)");
  define_op<SortValuesStableSig>("sort.values_stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False, "
                                 "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)");
  register_cpu_meta<SortSig, &sort_k>("sort");
  register_cpu_meta<SortStableSig, &sort_stable_k>("sort.stable");
  register_cpu_meta<SortValuesSig, &sort_values_k>("sort.values");
  register_cpu_meta<SortValuesStableSig, &sort_values_stable_k>("sort.values_stable");
  define_op<ArgsortSig>("argsort(Tensor self, int dim=-1, bool descending=False) -> Tensor");
  define_op<ArgsortStableSig>("argsort.stable(Tensor self, *, bool stable, int dim=-1, bool descending=False) -> Tensor");
  register_cpu_meta<ArgsortSig, &argsort_k>("argsort");
  register_cpu_meta<ArgsortStableSig, &argsort_stable_k>("argsort.stable");
  define_op<MsortSig>("msort(Tensor self) -> Tensor");
  define_op<MsortOutSig>("msort.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  register_cpu_meta<MsortSig, &msort_k>("msort");
  register_cpu_meta<MsortOutSig, &msort_out_k>("msort.out");

  define_op<TopkSig>("topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True) -> "
                     "(Tensor values, Tensor indices)");
  define_op<TopkOutSig>("topk.values(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True, *, "
                        "Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)");
  register_cpu_meta<TopkSig, &topk_k>("topk");
  register_cpu_meta<TopkOutSig, &topk_out_k>("topk.values");
  define_op<KthSig>("kthvalue(Tensor self, int k, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)");
  define_op<KthOutSig>("kthvalue.values(Tensor self, int k, int dim=-1, bool keepdim=False, *, Tensor(a!) values, "
                       "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)");
  register_cpu_meta<KthSig, &kthvalue_k>("kthvalue");
  register_cpu_meta<KthOutSig, &kthvalue_out_k>("kthvalue.values");

  const uint32_t red = static_cast<uint32_t>(Tag::Reduction);
  for (const char* n : {"median", "nanmedian"}) {
    const std::string s(n);
    define_op<MedianSig>(s + "(Tensor self) -> Tensor", red);
    define_op<SelectDimSig>(s + ".dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", red);
    define_op<SelectDimOutSig>(s + ".dim_values(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) values, "
                                   "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)", red);
  }
  register_cpu_meta<MedianSig, &median_all_k<cpu::SelectOp::Median>>("median");
  register_cpu_meta<SelectDimSig, &select_dim_k<cpu::SelectOp::Median>>("median.dim");
  register_cpu_meta<SelectDimOutSig, &select_dim_out_k<cpu::SelectOp::Median>>("median.dim_values");
  register_cpu_meta<MedianSig, &median_all_k<cpu::SelectOp::NanMedian>>("nanmedian");
  register_cpu_meta<SelectDimSig, &select_dim_k<cpu::SelectOp::NanMedian>>("nanmedian.dim");
  register_cpu_meta<SelectDimOutSig, &select_dim_out_k<cpu::SelectOp::NanMedian>>("nanmedian.dim_values");
  define_op<SelectDimSig>("mode(Tensor self, int dim=-1, bool keepdim=False) -> (Tensor values, Tensor indices)", red);
  define_op<SelectDimOutSig>("mode.values(Tensor self, int dim=-1, bool keepdim=False, *, Tensor(a!) values, "
                             "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)", red);
  register_cpu_meta<SelectDimSig, &select_dim_k<cpu::SelectOp::Mode>>("mode");
  register_cpu_meta<SelectDimOutSig, &select_dim_out_k<cpu::SelectOp::Mode>>("mode.values");

  for (const char* n : {"quantile", "nanquantile"}) {
    const std::string s(n);
    define_op<QuantileSig>(s + "(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, "
                               "str interpolation='linear') -> Tensor", red);
    define_op<QuantileScalarSig>(s + ".scalar(Tensor self, float q, int? dim=None, bool keepdim=False, *, "
                                     "str interpolation='linear') -> Tensor", red);
    define_op<QuantileOutSig>(s + ".out(Tensor self, Tensor q, int? dim=None, bool keepdim=False, *, "
                                  "str interpolation='linear', Tensor(a!) out) -> Tensor(a!)", red);
    define_op<QuantileScalarOutSig>(s + ".scalar_out(Tensor self, float q, int? dim=None, bool keepdim=False, *, "
                                        "str interpolation='linear', Tensor(a!) out) -> Tensor(a!)", red);
  }
  register_cpu_meta<QuantileSig, &quantile_k<false>>("quantile");
  register_cpu_meta<QuantileScalarSig, &quantile_scalar_k<false>>("quantile.scalar");
  register_cpu_meta<QuantileOutSig, &quantile_out_k<false>>("quantile.out");
  register_cpu_meta<QuantileScalarOutSig, &quantile_scalar_out_k<false>>("quantile.scalar_out");
  register_cpu_meta<QuantileSig, &quantile_k<true>>("nanquantile");
  register_cpu_meta<QuantileScalarSig, &quantile_scalar_k<true>>("nanquantile.scalar");
  register_cpu_meta<QuantileOutSig, &quantile_out_k<true>>("nanquantile.out");
  register_cpu_meta<QuantileScalarOutSig, &quantile_scalar_out_k<true>>("nanquantile.scalar_out");
}

}  // namespace ember
