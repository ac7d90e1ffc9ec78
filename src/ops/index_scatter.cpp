// Gather and scatter along one dim: gather, scatter (src / value, reduce=), scatter_add,
// scatter_reduce, take_along_dim. Semantics of PyTorch 1.13:
//  - index is int64 with as many dims as self (0-dim counts as 1-dim); outside `dim` it may
//    be smaller than self (and than src), never larger; an empty index skips these checks;
//  - src has self's dtype; a value is converted to it with the overflow check;
//  - every index must lie in [0, self.size(dim)): RuntimeError naming the first bad one.
//    In-place scatters check all of them before writing, so a failed call changes nothing;
//    functional and out= forms check as they write their own output;
//  - an element of self hit several times takes its updates in index order (the last write
//    wins for scatter), so results do not depend on threading;
//  - scatter_reduce: sum/prod/mean/amax/amin; include_self=False first resets every
//    scattered-to element to the reduction's identity; mean divides by the number of
//    values (floor division for integers).
// The CPU kernel and the Meta shape rule are the same functions: they stop after the
// checks on Meta tensors.
#include <cmath>
#include <limits>

#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ops/index_util.h"

namespace ember {
namespace {

using namespace index_util;

void check_index_dtype(const char* op, const Tensor& index) {
  EMBER_CHECK(index.dtype() == kInt64, RuntimeError, op, "(): Expected dtype int64 for index");
}

// PyTorch's gather_shape_check.
void gather_shape_check(const Tensor& self, int64_t dim, const Tensor& index) {
  if (index.numel() == 0) return;
  EMBER_CHECK(nonempty_dim(self) == nonempty_dim(index), RuntimeError,
              "Index tensor must have the same number of dimensions as input tensor");
  for (int64_t d = 0; d < nonempty_dim(self); ++d)
    EMBER_CHECK(d == dim || nonempty_size(index, d) <= nonempty_size(self, d), RuntimeError,
                "Size does not match at dimension ", d, " expected index ", index.sizes(),
                " to be smaller than self ", self.sizes(), " apart from dimension ", dim);
}

// PyTorch's scatter_shape_check.
void scatter_shape_check(const Tensor& self, int64_t dim, const Tensor& index, const Tensor* src) {
  if (index.numel() == 0) return;
  EMBER_CHECK(nonempty_dim(self) == nonempty_dim(index), RuntimeError,
              "Index tensor must have the same number of dimensions as self tensor");
  bool wrong = false;
  for (int64_t d = 0; d < nonempty_dim(self); ++d)
    wrong |= d != dim && nonempty_size(index, d) > nonempty_size(self, d);
  if (src) {
    EMBER_CHECK(nonempty_dim(*src) == nonempty_dim(index), RuntimeError,
                "Index tensor must have the same number of dimensions as src tensor");
    for (int64_t d = 0; d < nonempty_dim(index); ++d) wrong |= nonempty_size(index, d) > nonempty_size(*src, d);
    EMBER_CHECK(!wrong, RuntimeError, "Expected index ", index.sizes(), " to be smaller than self ", self.sizes(),
                " apart from dimension ", dim, " and to be smaller size than src ", src->sizes());
  }
  EMBER_CHECK(!wrong, RuntimeError, "Expected index ", index.sizes(), " to be smaller than self ", self.sizes(),
              " apart from dimension ", dim);
}

[[noreturn]] void raise_out_of_bounds(const Tensor& index, int64_t dim, int64_t size) {
  Tensor idx = contiguous_index(index);
  const int64_t pos = find_out_of_range(idx, 0, size);
  const int64_t v = pos >= 0 ? idx.data_ptr<int64_t>()[pos] : -1;
  EMBER_FAIL(RuntimeError, "index ", v, " is out of bounds for dimension ", dim, " with size ", size);
}

// ---------------------------------------------------------------- gather

// out = gather(self, dim, index); out already has index's shape and self's dtype.
void gather_into(const Tensor& self, int64_t dim, const Tensor& index, Tensor& out) {
  if (out.is_meta() || out.numel() == 0) return;
  Tensor src = unaliased_input(out, self);
  Tensor idx = unaliased_input(out, index);
  cpu::DimIndexLoop l = make_loop(src, idx, out, dim, /*other_is_value=*/false);
  if (!cpu::gather_stub.get()(l)) raise_out_of_bounds(idx, dim, nonempty_size(self, dim));
}

int64_t gather_checks(const Tensor& self, int64_t dim, const Tensor& index) {
  check_devices("gather", {&self, &index});
  dim = wrap_dim(dim, self.dim(), "gather");
  check_index_dtype("gather", index);
  gather_shape_check(self, dim, index);
  return dim;
}

Tensor gather_k(const Tensor& self, int64_t dim, const Tensor& index, bool /*sparse_grad*/) {
  dim = gather_checks(self, dim, index);
  Tensor out = empty(index.sizes(), TensorOptions(self.dtype()).device(self.device()));
  gather_into(self, dim, index, out);
  return out;
}

Tensor& gather_out_k(const Tensor& self, int64_t dim, const Tensor& index, bool /*sparse_grad*/, Tensor& out) {
  dim = gather_checks(self, dim, index);
  prepare_out("gather", out, index.sizes(), self.dtype(), self.device());
  check_no_internal_overlap(out);
  gather_into(self, dim, index, out);
  out.bump_version();
  return out;
}

// ---------------------------------------------------------------- scatter

enum class Reduce { None, Sum, Prod, Mean, Amax, Amin };

cpu::ScatterOp kernel_op(Reduce r) {
  switch (r) {
    case Reduce::None: return cpu::ScatterOp::Assign;
    case Reduce::Sum: case Reduce::Mean: return cpu::ScatterOp::Add;
    case Reduce::Prod: return cpu::ScatterOp::Mul;
    case Reduce::Amax: return cpu::ScatterOp::Max;
    case Reduce::Amin: return cpu::ScatterOp::Min;
  }
  return cpu::ScatterOp::Assign;
}

// scatter(reduce=): "add" or "multiply".
Reduce legacy_reduce(std::string_view r) {
  if (r == "add") return Reduce::Sum;
  if (r == "multiply") return Reduce::Prod;
  EMBER_FAIL(RuntimeError, "reduce argument must be either add or multiply.");
}

Reduce scatter_reduce_kind(std::string_view r) {
  if (r == "sum") return Reduce::Sum;
  if (r == "prod") return Reduce::Prod;
  if (r == "mean") return Reduce::Mean;
  if (r == "amax") return Reduce::Amax;
  if (r == "amin") return Reduce::Amin;
  EMBER_FAIL(RuntimeError, "reduce argument must be either sum, prod, mean, amax or amin.");
}

// The value a reduction starts from when include_self=False.
Scalar identity(Reduce r, ScalarType t) {
  switch (r) {
    case Reduce::Prod: return 1;
    case Reduce::Amax:
      if (t == kBool) return false;
      if (is_floating_point(t)) return -std::numeric_limits<double>::infinity();
      if (t == kUInt8) return 0;
      if (t == kInt8) return -128;
      if (t == kInt16) return -32768;
      if (t == kInt32) return std::numeric_limits<int32_t>::min();
      return std::numeric_limits<int64_t>::min();
    case Reduce::Amin:
      if (t == kBool) return true;
      if (is_floating_point(t)) return std::numeric_limits<double>::infinity();
      if (t == kUInt8) return 255;
      if (t == kInt8) return 127;
      if (t == kInt16) return 32767;
      if (t == kInt32) return std::numeric_limits<int32_t>::max();
      return std::numeric_limits<int64_t>::max();
    default: return 0;
  }
}

struct ScatterArgs {
  int64_t dim;
  const Tensor* index;
  const Tensor* src = nullptr;    // or
  const Scalar* value = nullptr;
  Reduce reduce = Reduce::None;
  bool include_self = true;
  const char* name = "scatter";   // for dtype errors
};

// Checks everything that does not depend on index values; returns the wrapped dim.
int64_t scatter_checks(const Tensor& self, ScatterArgs& a) {
  check_devices(a.name, {&self, a.index, a.src});
  a.dim = wrap_dim(a.dim, self.dim(), a.name);
  check_index_dtype("scatter", *a.index);
  if (a.src)
    EMBER_CHECK(a.src->dtype() == self.dtype(), RuntimeError, "scatter(): Expected self.dtype to be equal to src.dtype");
  scatter_shape_check(self, a.dim, *a.index, a.src);
  const ScalarType t = self.dtype();
  if (a.reduce == Reduce::Mean)
    EMBER_CHECK(t != kBool, RuntimeError, "\"scatter_reduce_mean\" not implemented for '", t, "'");
  if (a.reduce == Reduce::Amax || a.reduce == Reduce::Amin)
    EMBER_CHECK(!is_complex(t), RuntimeError, "\"scatter_reduce_", a.reduce == Reduce::Amax ? "amax" : "amin",
                "\" not implemented for '", t, "'");
  return a.dim;
}

// Writes into `target`, which holds self's values: self itself for in-place ops, or a fresh
// output. All checks not depending on index values have passed. In place, every index is
// checked before anything is written (by the kernel, before its writes); a fresh output is
// checked while it is written (a failed call leaves it half written, as PyTorch does, but
// no input changes).
void scatter_run(Tensor& target, const ScatterArgs& a, bool fresh) {
  const Tensor& index = *a.index;
  if (target.is_meta() || index.numel() == 0) return;
  const int64_t size = nonempty_size(target, a.dim);
  Tensor idx = unaliased_input(target, index);
  Tensor other;
  if (a.src) other = unaliased_input(target, *a.src);
  else other = checked_scalar(*a.value, target.dtype());
  const bool is_value = a.src == nullptr;
  bool checked = false;  // the first pass checks the indices, in the way `fresh` allows
  auto run = [&](const Tensor& t, const Tensor& o, bool value, cpu::ScatterOp op) {
    cpu::DimIndexLoop l = make_loop(t, idx, o, a.dim, value);
    l.check = !checked && fresh;
    l.check_first = !checked && !fresh;
    checked = true;
    if (!cpu::scatter_stub.get()(l, op)) raise_out_of_bounds(idx, a.dim, size);
  };
  if (!a.include_self && a.reduce != Reduce::None)
    run(target, scalar_tensor(identity(a.reduce, target.dtype()), target.dtype()), true, cpu::ScatterOp::Assign);
  run(target, other, is_value, kernel_op(a.reduce));
  if (a.reduce == Reduce::Mean) {
    // Divide by the number of values each element received (itself included), in the
    // element's dtype as PyTorch does; elements that received none keep their value.
    Tensor count = full(target.sizes(), a.include_self ? 1 : 0, TensorOptions(target.dtype()));
    run(count, scalar_tensor(1, target.dtype()), true, cpu::ScatterOp::Add);
    masked_fill_(count, eq(count, Scalar(0)), Scalar(1));
    Tensor q = is_floating_point(target.dtype()) || is_complex(target.dtype()) ? div(target, count)
                                                                               : div(target, count, "floor");
    target.copy_(q);
  }
}

Tensor& scatter_inplace(Tensor& self, ScatterArgs a) {
  scatter_checks(self, a);
  check_no_internal_overlap(self);
  scatter_run(self, a, /*fresh=*/false);
  if (!self.is_meta()) self.bump_version();
  return self;
}

Tensor scatter_functional(const Tensor& self, ScatterArgs a) {
  scatter_checks(self, a);
  Tensor out = self.clone();
  scatter_run(out, a, /*fresh=*/true);
  return out;
}

Tensor& scatter_to_out(const Tensor& self, ScatterArgs a, Tensor& out) {
  scatter_checks(self, a);
  prepare_out(a.name, out, self.sizes(), self.dtype(), self.device());
  check_no_internal_overlap(out);
  const bool fresh = !out.is_same(self);
  if (fresh && !out.is_meta()) out.copy_(unaliased_input(out, self));
  scatter_run(out, a, fresh);
  out.bump_version();
  return out;
}

// ---- the kernels of each overload
ScatterArgs src_args(int64_t dim, const Tensor& index, const Tensor& src, Reduce r = Reduce::None) {
  ScatterArgs a{dim, &index};
  a.src = &src;
  a.reduce = r;
  return a;
}
ScatterArgs value_args(int64_t dim, const Tensor& index, const Scalar& value, Reduce r = Reduce::None) {
  ScatterArgs a{dim, &index};
  a.value = &value;
  a.reduce = r;
  return a;
}

Tensor scatter_src_k(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_functional(self, src_args(dim, index, src));
}
Tensor scatter_value_k(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return scatter_functional(self, value_args(dim, index, value));
}
Tensor scatter_reduce_k(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                        std::string_view reduce) {
  return scatter_functional(self, src_args(dim, index, src, legacy_reduce(reduce)));
}
Tensor scatter_value_reduce_k(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                              std::string_view reduce) {
  return scatter_functional(self, value_args(dim, index, value, legacy_reduce(reduce)));
}
Tensor& scatter_src_ik(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_inplace(self, src_args(dim, index, src));
}
Tensor& scatter_value_ik(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return scatter_inplace(self, value_args(dim, index, value));
}
Tensor& scatter_reduce_ik(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) {
  return scatter_inplace(self, src_args(dim, index, src, legacy_reduce(reduce)));
}
Tensor& scatter_value_reduce_ik(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                                std::string_view reduce) {
  return scatter_inplace(self, value_args(dim, index, value, legacy_reduce(reduce)));
}
Tensor& scatter_src_ok(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, Tensor& out) {
  return scatter_to_out(self, src_args(dim, index, src), out);
}
Tensor& scatter_value_ok(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, Tensor& out) {
  return scatter_to_out(self, value_args(dim, index, value), out);
}
Tensor& scatter_reduce_ok(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                          std::string_view reduce, Tensor& out) {
  return scatter_to_out(self, src_args(dim, index, src, legacy_reduce(reduce)), out);
}
Tensor& scatter_value_reduce_ok(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                                std::string_view reduce, Tensor& out) {
  return scatter_to_out(self, value_args(dim, index, value, legacy_reduce(reduce)), out);
}

Tensor scatter_add_k(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_functional(self, src_args(dim, index, src, Reduce::Sum));
}
Tensor& scatter_add_ik(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return scatter_inplace(self, src_args(dim, index, src, Reduce::Sum));
}
Tensor& scatter_add_ok(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, Tensor& out) {
  return scatter_to_out(self, src_args(dim, index, src, Reduce::Sum), out);
}

ScatterArgs two_args(int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                     bool include_self) {
  ScatterArgs a = src_args(dim, index, src, scatter_reduce_kind(reduce));
  a.include_self = include_self;
  a.name = "scatter_reduce";
  return a;
}
Tensor scatter_reduce_two_k(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                            std::string_view reduce, bool include_self) {
  return scatter_functional(self, two_args(dim, index, src, reduce, include_self));
}
Tensor& scatter_reduce_two_ik(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                              std::string_view reduce, bool include_self) {
  return scatter_inplace(self, two_args(dim, index, src, reduce, include_self));
}
Tensor& scatter_reduce_two_ok(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                              std::string_view reduce, bool include_self, Tensor& out) {
  return scatter_to_out(self, two_args(dim, index, src, reduce, include_self), out);
}

// ---------------------------------------------------------------- take_along_dim

// self and indices broadcast against each other outside `dim` (dim None: both flattened).
std::pair<Tensor, Tensor> take_along_dim_args(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim,
                                              int64_t* wrapped) {
  check_devices("take_along_dim", {&self, &indices});
  EMBER_CHECK(indices.dtype() == kInt64, RuntimeError,
              "torch.take_along_dim(): dtype of indices should be Long but got ", indices.dtype());
  if (!dim) {
    *wrapped = 0;
    return {self.reshape({-1}), indices.reshape({-1})};
  }
  EMBER_CHECK(self.dim() == indices.dim(), RuntimeError,
              "torch.take_along_dim(): input and indices should have the same number of dimensions, but got ",
              self.dim(), " dimensions for input, and ", indices.dim(), " dimensions for indices");
  EMBER_CHECK(self.dim() > 0, IndexError, "Dimension specified as ", *dim, " but tensor has no dimensions");
  const int64_t d = wrap_dim(*dim, self.dim(), "take_along_dim");
  *wrapped = d;
  DimVector a(self.sizes()), b(indices.sizes());
  a[d] = indices.sizes()[d];
  DimVector shape(a.size());
  for (size_t k = 0; k < a.size(); ++k) {
    EMBER_CHECK(a[k] == b[k] || a[k] == 1 || b[k] == 1, RuntimeError, "The size of tensor a (", a[k],
                ") must match the size of tensor b (", b[k], ") at non-singleton dimension ", k);
    shape[k] = a[k] == 1 ? b[k] : a[k];
  }
  Tensor idx = indices.expand(shape);
  shape[d] = self.sizes()[d];
  return {self.expand(shape), idx};
}

Tensor take_along_dim_k(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  int64_t d = 0;
  auto [s, i] = take_along_dim_args(self, indices, dim, &d);
  Tensor out = empty(i.sizes(), TensorOptions(self.dtype()).device(self.device()));
  gather_into(s, d, i, out);
  return out;
}

Tensor& take_along_dim_ok(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim, Tensor& out) {
  int64_t d = 0;
  auto [s, i] = take_along_dim_args(self, indices, dim, &d);
  prepare_out("take_along_dim", out, i.sizes(), self.dtype(), self.device());
  check_no_internal_overlap(out);
  gather_into(s, d, i, out);
  out.bump_version();
  return out;
}

// ---------------------------------------------------------------- signatures
using GatherSig = Tensor(const Tensor&, int64_t, const Tensor&, bool);
using GatherOutSig = Tensor&(const Tensor&, int64_t, const Tensor&, bool, Tensor&);
using ScatterSrcSig = Tensor(const Tensor&, int64_t, const Tensor&, const Tensor&);
using ScatterValueSig = Tensor(const Tensor&, int64_t, const Tensor&, const Scalar&);
using ScatterReduceSig = Tensor(const Tensor&, int64_t, const Tensor&, const Tensor&, std::string_view);
using ScatterValueReduceSig = Tensor(const Tensor&, int64_t, const Tensor&, const Scalar&, std::string_view);
using ScatterSrcInSig = Tensor&(Tensor&, int64_t, const Tensor&, const Tensor&);
using ScatterValueInSig = Tensor&(Tensor&, int64_t, const Tensor&, const Scalar&);
using ScatterReduceInSig = Tensor&(Tensor&, int64_t, const Tensor&, const Tensor&, std::string_view);
using ScatterValueReduceInSig = Tensor&(Tensor&, int64_t, const Tensor&, const Scalar&, std::string_view);
using ScatterSrcOutSig = Tensor&(const Tensor&, int64_t, const Tensor&, const Tensor&, Tensor&);
using ScatterValueOutSig = Tensor&(const Tensor&, int64_t, const Tensor&, const Scalar&, Tensor&);
using ScatterReduceOutSig = Tensor&(const Tensor&, int64_t, const Tensor&, const Tensor&, std::string_view, Tensor&);
using ScatterValueReduceOutSig = Tensor&(const Tensor&, int64_t, const Tensor&, const Scalar&, std::string_view,
                                         Tensor&);
using ScatterTwoSig = Tensor(const Tensor&, int64_t, const Tensor&, const Tensor&, std::string_view, bool);
using ScatterTwoInSig = Tensor&(Tensor&, int64_t, const Tensor&, const Tensor&, std::string_view, bool);
using ScatterTwoOutSig = Tensor&(const Tensor&, int64_t, const Tensor&, const Tensor&, std::string_view, bool,
                                 Tensor&);
using TakeAlongSig = Tensor(const Tensor&, const Tensor&, std::optional<int64_t>);
using TakeAlongOutSig = Tensor&(const Tensor&, const Tensor&, std::optional<int64_t>, Tensor&);

}  // namespace

// ---------------------------------------------------------------- front functions
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  static const TypedOp<GatherSig> op("gather");
  return op.call(self, dim, index, sparse_grad);
}
Tensor& gather_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad) {
  static const TypedOp<GatherOutSig> op("gather.out");
  return op.call(self, dim, index, sparse_grad, out);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  static const TypedOp<ScatterSrcSig> op("scatter.src");
  return op.call(self, dim, index, src);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  static const TypedOp<ScatterValueSig> op("scatter.value");
  return op.call(self, dim, index, value);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) {
  static const TypedOp<ScatterReduceSig> op("scatter.reduce");
  return op.call(self, dim, index, src, reduce);
}
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) {
  static const TypedOp<ScatterValueReduceSig> op("scatter.value_reduce");
  return op.call(self, dim, index, value, reduce);
}
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  static const TypedOp<ScatterSrcInSig> op("scatter_.src");
  return op.call(self, dim, index, src);
}
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  static const TypedOp<ScatterValueInSig> op("scatter_.value");
  return op.call(self, dim, index, value);
}
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce) {
  static const TypedOp<ScatterReduceInSig> op("scatter_.reduce");
  return op.call(self, dim, index, src, reduce);
}
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce) {
  static const TypedOp<ScatterValueReduceInSig> op("scatter_.value_reduce");
  return op.call(self, dim, index, value, reduce);
}
Tensor& scatter_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  static const TypedOp<ScatterSrcOutSig> op("scatter.src_out");
  return op.call(self, dim, index, src, out);
}
Tensor& scatter_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  static const TypedOp<ScatterValueOutSig> op("scatter.value_out");
  return op.call(self, dim, index, value, out);
}
Tensor& scatter_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                    std::string_view reduce) {
  static const TypedOp<ScatterReduceOutSig> op("scatter.reduce_out");
  return op.call(self, dim, index, src, reduce, out);
}
Tensor& scatter_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                    std::string_view reduce) {
  static const TypedOp<ScatterValueReduceOutSig> op("scatter.value_reduce_out");
  return op.call(self, dim, index, value, reduce, out);
}
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  static const TypedOp<ScatterSrcSig> op("scatter_add");
  return op.call(self, dim, index, src);
}
Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  static const TypedOp<ScatterSrcInSig> op("scatter_add_");
  return op.call(self, dim, index, src);
}
Tensor& scatter_add_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  static const TypedOp<ScatterSrcOutSig> op("scatter_add.out");
  return op.call(self, dim, index, src, out);
}
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                      std::string_view reduce, bool include_self) {
  static const TypedOp<ScatterTwoSig> op("scatter_reduce.two");
  return op.call(self, dim, index, src, reduce, include_self);
}
Tensor& scatter_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                        bool include_self) {
  static const TypedOp<ScatterTwoInSig> op("scatter_reduce_.two");
  return op.call(self, dim, index, src, reduce, include_self);
}
Tensor& scatter_reduce_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           std::string_view reduce, bool include_self) {
  static const TypedOp<ScatterTwoOutSig> op("scatter_reduce.two_out");
  return op.call(self, dim, index, src, reduce, include_self, out);
}
Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  static const TypedOp<TakeAlongSig> op("take_along_dim");
  return op.call(self, indices, dim);
}
Tensor& take_along_dim_out(Tensor& out, const Tensor& self, const Tensor& indices, std::optional<int64_t> dim) {
  static const TypedOp<TakeAlongOutSig> op("take_along_dim.out");
  return op.call(self, indices, dim, out);
}

EMBER_REGISTER(index_scatter_ops) {
  define_op<GatherSig>("gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor");
  register_cpu_meta<GatherSig, &gather_k>("gather");
  define_op<GatherOutSig>(
      "gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False, Tensor(a!) out) -> Tensor(a!)");
  register_cpu_meta<GatherOutSig, &gather_out_k>("gather.out");

  // scatter: overloads in PyTorch's order (a tensor binds .src, a number .value).
  define_op<ScatterSrcSig>("scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor");
  register_cpu_meta<ScatterSrcSig, &scatter_src_k>("scatter.src");
  define_op<ScatterValueSig>("scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor");
  register_cpu_meta<ScatterValueSig, &scatter_value_k>("scatter.value");
  define_op<ScatterReduceSig>("scatter.reduce(Tensor self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor");
  register_cpu_meta<ScatterReduceSig, &scatter_reduce_k>("scatter.reduce");
  define_op<ScatterValueReduceSig>(
      "scatter.value_reduce(Tensor self, int dim, Tensor index, Scalar value, *, str reduce) -> Tensor");
  register_cpu_meta<ScatterValueReduceSig, &scatter_value_reduce_k>("scatter.value_reduce");
  define_op<ScatterSrcOutSig>(
      "scatter.src_out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out) -> Tensor(a!)");
  register_cpu_meta<ScatterSrcOutSig, &scatter_src_ok>("scatter.src_out");
  define_op<ScatterValueOutSig>(
      "scatter.value_out(Tensor self, int dim, Tensor index, Scalar value, *, Tensor(a!) out) -> Tensor(a!)");
  register_cpu_meta<ScatterValueOutSig, &scatter_value_ok>("scatter.value_out");
  define_op<ScatterReduceOutSig>("scatter.reduce_out(Tensor self, int dim, Tensor index, Tensor src, *, str reduce, "
                                 "Tensor(a!) out) -> Tensor(a!)");
  register_cpu_meta<ScatterReduceOutSig, &scatter_reduce_ok>("scatter.reduce_out");
  define_op<ScatterValueReduceOutSig>("scatter.value_reduce_out(Tensor self, int dim, Tensor index, Scalar value, *, "
                                      "str reduce, Tensor(a!) out) -> Tensor(a!)");
  register_cpu_meta<ScatterValueReduceOutSig, &scatter_value_reduce_ok>("scatter.value_reduce_out");
  define_op<ScatterSrcInSig>("scatter_.src(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)",
                             Tag::Inplace);
  register_cpu_meta<ScatterSrcInSig, &scatter_src_ik>("scatter_.src");
  define_op<ScatterValueInSig>("scatter_.value(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)",
                               Tag::Inplace);
  register_cpu_meta<ScatterValueInSig, &scatter_value_ik>("scatter_.value");
  define_op<ScatterReduceInSig>(
      "scatter_.reduce(Tensor(a!) self, int dim, Tensor index, Tensor src, *, str reduce) -> Tensor(a!)",
      Tag::Inplace);
  register_cpu_meta<ScatterReduceInSig, &scatter_reduce_ik>("scatter_.reduce");
  define_op<ScatterValueReduceInSig>(
      "scatter_.value_reduce(Tensor(a!) self, int dim, Tensor index, Scalar value, *, str reduce) -> Tensor(a!)",
      Tag::Inplace);
  register_cpu_meta<ScatterValueReduceInSig, &scatter_value_reduce_ik>("scatter_.value_reduce");

  define_op<ScatterSrcSig>("scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor");
  register_cpu_meta<ScatterSrcSig, &scatter_add_k>("scatter_add");
  define_op<ScatterSrcOutSig>(
      "scatter_add.out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out) -> Tensor(a!)");
  register_cpu_meta<ScatterSrcOutSig, &scatter_add_ok>("scatter_add.out");
  define_op<ScatterSrcInSig>("scatter_add_(Tensor(a!) self, int dim, Tensor index, Tensor src) -> Tensor(a!)",
                             Tag::Inplace);
  register_cpu_meta<ScatterSrcInSig, &scatter_add_ik>("scatter_add_");

  define_op<ScatterTwoSig>("scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, "
                           "bool include_self=True) -> Tensor");
  register_cpu_meta<ScatterTwoSig, &scatter_reduce_two_k>("scatter_reduce.two");
  define_op<ScatterTwoOutSig>("scatter_reduce.two_out(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, "
                              "bool include_self=True, Tensor(a!) out) -> Tensor(a!)");
  register_cpu_meta<ScatterTwoOutSig, &scatter_reduce_two_ok>("scatter_reduce.two_out");
  define_op<ScatterTwoInSig>("scatter_reduce_.two(Tensor(a!) self, int dim, Tensor index, Tensor src, str reduce, *, "
                             "bool include_self=True) -> Tensor(a!)",
                             Tag::Inplace);
  register_cpu_meta<ScatterTwoInSig, &scatter_reduce_two_ik>("scatter_reduce_.two");

  define_op<TakeAlongSig>("take_along_dim(Tensor self, Tensor indices, int? dim=None) -> Tensor");
  register_cpu_meta<TakeAlongSig, &take_along_dim_k>("take_along_dim");
  define_op<TakeAlongOutSig>(
      "take_along_dim.out(Tensor self, Tensor indices, int? dim=None, *, Tensor(a!) out) -> Tensor(a!)");
  register_cpu_meta<TakeAlongOutSig, &take_along_dim_ok>("take_along_dim.out");
}

}  // namespace ember
