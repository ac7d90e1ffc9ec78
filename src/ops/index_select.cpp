// Indexing along one dim with a vector of indices, and into the flattened tensor:
// index_select, index_add, index_copy, index_fill, take, put. Semantics (checks, their
// order, error classes and messages) of PyTorch 1.13, which differ from op to op:
//  - index_select: IndexError "index out of range in self", except on dim 1 of a tensor of
//    2+ dims (PyTorch's batched path): RuntimeError "INDICES element is out of DATA bounds";
//  - index_add: IndexError "index out of range in self"; source slices broadcast to self's;
//  - index_copy: IndexError naming the index; slices must match exactly;
//  - index_fill: negative indices count from the end; an expanded self is allowed;
//  - take / put: indices into the flattened tensor, negative ones count from the end.
// All indices are checked before anything is written. Each op becomes a gather or scatter
// (kernels/index_scatter.cpp) with the index vector viewed along `dim` and broadcast over
// the other dims; an element hit several times takes its updates in index order.
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ops/index_util.h"

namespace ember {
namespace {

using namespace index_util;

// index (0-dim or 1-D, int64, contiguous) viewed along `dim` of `shape`.
Tensor index_along(const Tensor& index, int64_t dim, IntArrayRef shape) {
  DimVector v(shape.size(), 1);
  v[dim] = index.numel();
  return index.reshape(v).expand(shape);
}

// t with dim `from` moved to position `to` (both wrapped).
Tensor move_dim(const Tensor& t, int64_t from, int64_t to) {
  DimVector perm;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (d != from) perm.push_back(d);
  perm.insert(to, from);
  return t.permute(perm);
}

// `shape` with `dim` set to n (a 0-dim shape stays 0-dim).
DimVector with_dim(IntArrayRef shape, int64_t dim, int64_t n) {
  DimVector s(shape);
  if (!s.empty()) s[dim] = n;
  return s;
}

// ---------------------------------------------------------------- index_select

[[noreturn]] void index_select_range_error(bool batched_path, int64_t value, int64_t size) {
  if (batched_path)
    EMBER_FAIL(RuntimeError, "INDICES element is out of DATA bounds, id=", value, " axis_dim=", size);
  EMBER_FAIL(IndexError, "index out of range in self");
}

// Checks; returns the wrapped dim.
int64_t index_select_checks(const Tensor& self, int64_t dim, const Tensor& index) {
  check_devices("index_select", {&self, &index});
  dim = wrap_dim(dim, self.dim(), "index_select");
  EMBER_CHECK(index.dim() <= 1, IndexError, "index_select(): Index is supposed to be a vector");
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32, RuntimeError,
              "index_select(): Expected dtype int32 or int64 for index");
  return dim;
}

void index_select_into(const Tensor& self_in, int64_t dim, const Tensor& index, Tensor& out) {
  const int64_t n = index.numel();
  if (out.is_meta() || n == 0) return;
  const Tensor self = unaliased_input(out, self_in);
  Tensor idx = contiguous_index(index);
  const int64_t size = nonempty_size(self, dim);
  const bool batched = self.dim() > 1 && dim == 1 && out.is_contiguous();
  auto check_all = [&](bool batched_path) {
    const int64_t bad = find_out_of_range(idx, 0, size);
    if (bad >= 0) index_select_range_error(batched_path, idx.data_ptr<int64_t>()[bad], size);
  };
  if (self.dim() == 0) {  // every index must be 0; the result is self
    check_all(false);
    out.copy_(self);
    return;
  }
  if (self.numel() == 0) {
    EMBER_CHECK(self.dim() == 1 || size > 0, RuntimeError, "index_select(): self indexing axis dim should be positive");
    check_all(self.dim() > 1);
    return;
  }
  Tensor iv = index_along(idx, dim, out.sizes());
  cpu::DimIndexLoop l = make_loop(self, iv, out, dim, false);
  if (!cpu::gather_stub.get()(l)) check_all(batched);
}

Tensor index_select_k(const Tensor& self, int64_t dim, const Tensor& index) {
  dim = index_select_checks(self, dim, index);
  Tensor out = empty(with_dim(self.sizes(), dim, index.numel()), TensorOptions(self.dtype()).device(self.device()));
  index_select_into(self, dim, index, out);
  return out;
}

Tensor& index_select_out_k(const Tensor& self, int64_t dim, const Tensor& index, Tensor& out) {
  dim = index_select_checks(self, dim, index);
  EMBER_CHECK(out.defined(), ValueError, "index_select(): got an undefined out tensor");
  EMBER_CHECK(self.dtype() == out.dtype(), RuntimeError, "index_select(): self and result must have the same scalar type");
  check_no_internal_overlap(out);
  prepare_out("index_select", out, with_dim(self.sizes(), dim, index.numel()), self.dtype(), self.device());
  index_select_into(self, dim, index, out);
  out.bump_version();
  return out;
}

// ---------------------------------------------------------------- index_add

// `source` broadcast to self's shape with `dim` of size n (PyTorch adds source slices to
// self slices with broadcasting).
Tensor broadcast_source(const char* op, const Tensor& self, int64_t dim, const Tensor& source, int64_t n) {
  if (self.dim() == 0) return source.reshape({});
  if (source.dim() == 0) return source.reshape(DimVector(self.dim(), 1)).expand(with_dim(self.sizes(), dim, 1));
  DimVector self_slice(self.sizes()), src_slice(source.sizes());
  self_slice.erase(dim);
  src_slice.erase(dim);
  if (self.dim() == 1)
    EMBER_CHECK(source.dim() <= 1, RuntimeError, "source.dim() (", source.dim(), ") must one or zero for given self.dim() (",
                self.dim(), ")");
  // The slices broadcast like the operands of self_slice.add_(source_slice).
  const size_t na = self_slice.size(), nb = src_slice.size(), nn = std::max(na, nb);
  DimVector b(nn);
  for (size_t k = 0; k < nn; ++k) {
    const int64_t x = k < nn - na ? 1 : self_slice[k - (nn - na)], y = k < nn - nb ? 1 : src_slice[k - (nn - nb)];
    EMBER_CHECK(x == y || x == 1 || y == 1, RuntimeError, op, ": the size of tensor a (", x,
                ") must match the size of tensor b (", y, ") at non-singleton dimension ", k);
    b[k] = x == 1 ? y : x;
  }
  EMBER_CHECK(IntArrayRef(b).equals(self_slice), RuntimeError, op, ": output with shape ", IntArrayRef(self_slice),
              " doesn't match the broadcast shape ", IntArrayRef(b));
  // Move dim last, broadcast the slice dims, move it back.
  DimVector target(self_slice);
  target.push_back(n);
  Tensor moved = move_dim(source, dim, source.dim() - 1);
  return move_dim(moved.expand(target), static_cast<int64_t>(target.size()) - 1, dim);
}

int64_t index_add_checks(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  check_devices("index_add", {&self, &index, &source});
  dim = wrap_dim(dim, self.dim(), "index_add");
  EMBER_CHECK(index.dim() <= 1, IndexError, "index_add_(): Index is supposed to be a vector, but got dim: ", index.dim(),
              " with type: ", index.dtype(), " and size: ", index.sizes());
  EMBER_CHECK(index.dtype() == kInt64 || index.dtype() == kInt32, RuntimeError,
              "index_add_(): Expected dtype int32/int64 for index but got: ", index.dtype());
  EMBER_CHECK(self.dtype() == source.dtype(), RuntimeError, "index_add_(): self (", self.dtype(), ") and source (",
              source.dtype(), ") must have the same scalar type");
  const int64_t n = index.numel();
  if (source.dim() == 0) {
    EMBER_CHECK(n == 1, IndexError, "Dimension specified as 0 but tensor has no dimensions");
  } else {
    EMBER_CHECK(dim < source.dim(), RuntimeError, "index_add_(): Indexing dim ", dim,
                " is out of bounds of the source tensor with dim ", source.dim());
    EMBER_CHECK(n == source.sizes()[dim], RuntimeError, "index_add_(): Number of indices (", n,
                ") should be equal to source.size(dim): (", source.sizes()[dim], "), for dim: ", dim);
  }
  return dim;
}

// target (holding self's values) += alpha * source at the indexed slices.
void index_add_run(Tensor& target, int64_t dim, const Tensor& index, const Tensor& source_in, const Scalar& alpha) {
  const int64_t n = index.numel();
  Tensor src = broadcast_source("index_add_", target, dim, source_in, n);
  if (target.is_meta() || n == 0) return;
  Tensor idx = unaliased_input(target, contiguous_index(index));
  const int64_t size = nonempty_size(target, dim);
  EMBER_CHECK(find_out_of_range(idx, 0, size) < 0, IndexError, "index out of range in self");
  if (target.numel() == 0) return;
  src = unaliased_input(target, src);
  // alpha in self's dtype, as PyTorch applies it (an integer tensor truncates 2.5 to 2).
  if (alpha.to_complex() != complex128(1, 0)) src = mul(src, scalar_tensor(alpha, target.dtype()));
  if (target.dim() == 0) {
    Tensor t1 = target.reshape({1}), s1 = src.reshape({1});
    cpu::DimIndexLoop l = make_loop(t1, idx.reshape({1}), s1, 0, false);
    cpu::scatter_stub.get()(l, cpu::ScatterOp::Add);
    return;
  }
  Tensor iv = index_along(idx, dim, src.sizes());
  cpu::DimIndexLoop l = make_loop(target, iv, src, dim, false);
  cpu::scatter_stub.get()(l, cpu::ScatterOp::Add);
}

Tensor& index_add_ik(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  dim = index_add_checks(self, dim, index, source);
  check_no_internal_overlap(self);
  index_add_run(self, dim, index, source, alpha);
  if (!self.is_meta()) self.bump_version();
  return self;
}

Tensor index_add_k(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  dim = index_add_checks(self, dim, index, source);
  Tensor out = self.clone();
  index_add_run(out, dim, index, source, alpha);
  return out;
}

Tensor& index_add_ok(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha,
                     Tensor& out) {
  dim = index_add_checks(self, dim, index, source);
  prepare_out("index_add", out, self.sizes(), self.dtype(), self.device());
  check_no_internal_overlap(out);
  if (!out.is_same(self)) {
    broadcast_source("index_add_", self, dim, source, index.numel());  // shape errors before out changes
    if (!out.is_meta() && index.numel() > 0) {
      Tensor idx = contiguous_index(index);
      EMBER_CHECK(find_out_of_range(idx, 0, nonempty_size(self, dim)) < 0, IndexError, "index out of range in self");
    }
    if (!out.is_meta()) out.copy_(unaliased_input(out, self));
  }
  index_add_run(out, dim, index, source, alpha);
  out.bump_version();
  return out;
}

// ---------------------------------------------------------------- index_copy

int64_t index_copy_checks(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  check_devices("index_copy", {&self, &index, &source});
  dim = wrap_dim(dim, self.dim(), "index_copy");
  EMBER_CHECK(index.dim() < 2, IndexError, "index_copy_(): Index should have dimension 1 or 0 (got ", index.dim(), ")");
  const int64_t n = index.numel();
  if (source.dim() == 0) {
    EMBER_CHECK(n == 1, IndexError, "index_copy_(): When source is scalar, index should have one element (got ", n, ")");
  } else {
    EMBER_CHECK(source.dim() == self.dim() || self.dim() == 0, IndexError,
                "index_copy_(): When source and destination are not scalars, their dimensionality must match. Source "
                "dimensionality (", source.dim(), "), destination dimensionality (", self.dim(), ")");
  }
  EMBER_CHECK(index.dtype() == kInt64, RuntimeError, "index_copy_(): Expected a long tensor for index, but got ",
              index.dtype());
  EMBER_CHECK(self.dtype() == source.dtype(), RuntimeError,
              "index_copy_(): self and source expected to have the same dtype, but got (self) ", self.dtype(),
              " and (source) ", source.dtype());
  DimVector a(self.sizes()), b(source.sizes());
  if (!a.empty()) a.erase(dim);
  if (!b.empty()) b.erase(std::min<int64_t>(dim, static_cast<int64_t>(b.size()) - 1));
  EMBER_CHECK(IntArrayRef(a).equals(b), RuntimeError,
              "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: ",
              IntArrayRef(a), " at dimension ", dim, " and source slice shape: ", IntArrayRef(b), " at dimension 0.");
  EMBER_CHECK(source.dim() == 0 || n == source.sizes()[std::min<int64_t>(dim, source.dim() - 1)], IndexError,
              "index_copy_(): Number of indices (", n, ") should be equal to source.size(dim) (",
              source.sizes()[std::min<int64_t>(dim, source.dim() - 1)], ")");
  return dim;
}

void index_copy_run(Tensor& target, int64_t dim, const Tensor& index, const Tensor& source) {
  if (target.is_meta() || index.numel() == 0 || target.numel() == 0) return;
  Tensor idx = unaliased_input(target, contiguous_index(index));
  const int64_t size = nonempty_size(target, dim), bad = find_out_of_range(idx, 0, size);
  EMBER_CHECK(bad < 0, IndexError, "index_copy_(): index ", bad < 0 ? 0 : idx.data_ptr<int64_t>()[bad],
              " is out of bounds for dimension ", dim, " with size ", size);
  Tensor src = unaliased_input(target, source);
  if (target.dim() == 0 || src.dim() == 0) {
    Tensor t1 = target.dim() == 0 ? target.reshape({1}) : target;
    Tensor s1 = src.reshape(with_dim(DimVector(t1.dim(), 1), 0, 1));
    Tensor iv = index_along(idx, target.dim() == 0 ? 0 : dim, DimVector(t1.dim(), 1));
    cpu::DimIndexLoop l = make_loop(t1, iv, s1, target.dim() == 0 ? 0 : dim, false);
    cpu::scatter_stub.get()(l, cpu::ScatterOp::Assign);
    return;
  }
  Tensor iv = index_along(idx, dim, src.sizes());
  cpu::DimIndexLoop l = make_loop(target, iv, src, dim, false);
  cpu::scatter_stub.get()(l, cpu::ScatterOp::Assign);
}

Tensor& index_copy_ik(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  dim = index_copy_checks(self, dim, index, source);
  check_no_internal_overlap(self);
  index_copy_run(self, dim, index, source);
  if (!self.is_meta()) self.bump_version();
  return self;
}

Tensor index_copy_k(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  dim = index_copy_checks(self, dim, index, source);
  Tensor out = self.clone();
  index_copy_run(out, dim, index, source);
  return out;
}

Tensor& index_copy_ok(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, Tensor& out) {
  dim = index_copy_checks(self, dim, index, source);
  prepare_out("index_copy", out, self.sizes(), self.dtype(), self.device());
  check_no_internal_overlap(out);
  if (!out.is_same(self)) {
    if (!out.is_meta() && index.numel() > 0 && self.numel() > 0) {
      Tensor idx = contiguous_index(index);
      const int64_t size = nonempty_size(self, dim), bad = find_out_of_range(idx, 0, size);
      EMBER_CHECK(bad < 0, IndexError, "index_copy_(): index ", bad < 0 ? 0 : idx.data_ptr<int64_t>()[bad],
                  " is out of bounds for dimension ", dim, " with size ", size);
    }
    if (!out.is_meta()) out.copy_(unaliased_input(out, self));
  }
  index_copy_run(out, dim, index, source);
  out.bump_version();
  return out;
}

// ---------------------------------------------------------------- index_fill

// Checks, then fills (on CPU); self may be expanded (PyTorch only warns).
Tensor& index_fill_impl(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  check_devices("index_fill", {&self, &index});
  EMBER_CHECK(index.dtype() == kInt64, IndexError, "index_fill_(): Expected dtype int64 for index.");
  EMBER_CHECK(self.is_complex() || !value.is_complex(), RuntimeError,
              "index_fill_(): Converting complex Scalar to non-complex type is not supported");
  dim = wrap_dim(dim, std::max<int64_t>(self.dim(), 1), "index_fill");
  EMBER_CHECK(index.dim() <= 1, RuntimeError, "Index has to be a vector/scalar");
  Tensor v = checked_scalar(value, self.dtype());
  if (self.is_meta() || index.numel() == 0 || self.numel() == 0) return self;
  const int64_t size = nonempty_size(self, dim);
  int64_t bad = -1;
  Tensor idx = unaliased_input(self, wrap_negative(index, size, &bad));
  if (bad >= 0) {
    Tensor c = contiguous_index(index);
    EMBER_FAIL(IndexError, "index ", c.data_ptr<int64_t>()[bad], " is out of bounds for dimension ", dim, " with size ",
               size);
  }
  Tensor target = self.dim() == 0 ? self.reshape({1}) : self;
  Tensor iv = index_along(idx, dim, with_dim(target.sizes(), dim, idx.numel()));
  cpu::DimIndexLoop l = make_loop(target, iv, v, dim, true);
  for (int64_t d = 0; d < target.dim(); ++d) l.serial |= target.sizes()[d] > 1 && target.strides()[d] == 0;
  cpu::scatter_stub.get()(l, cpu::ScatterOp::Assign);
  self.bump_version();
  return self;
}

Scalar value_of(const Tensor& value) {
  EMBER_CHECK(value.dim() == 0, RuntimeError,
              "index_fill_ only supports a 0-dimensional value tensor, but got tensor with ", value.dim(),
              " dimension(s).");
  EMBER_CHECK(!value.is_meta(), NotImplementedError, "index_fill(): a value tensor on the Meta device has no value");
  return value.item();
}

Tensor& index_fill_scalar_ik(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  return index_fill_impl(self, dim, index, value);
}
Tensor& index_fill_tensor_ik(Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  return index_fill_impl(self, dim, index, value_of(value));
}
Tensor index_fill_scalar_k(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  Tensor out = self.clone();
  return index_fill_impl(out, dim, index, value);
}
Tensor index_fill_tensor_k(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  Tensor out = self.clone();
  return index_fill_impl(out, dim, index, value_of(value));
}

// ---------------------------------------------------------------- take, put

[[noreturn]] void flat_range_error(const Tensor& index, int64_t pos, int64_t numel) {
  Tensor c = contiguous_index(index);
  EMBER_FAIL(IndexError, "out of range: tried to access index ", c.data_ptr<int64_t>()[pos], " on a tensor of ", numel,
             " elements.");
}

void take_checks(const Tensor& self, const Tensor& index) {
  check_devices("take", {&self, &index});
  EMBER_CHECK(index.dtype() == kInt64, RuntimeError, "take(): Expected a long tensor for index, but got ", index.dtype());
  EMBER_CHECK(!(self.numel() == 0 && index.numel() != 0), IndexError, "take(): tried to take from an empty tensor");
}

// out (index's shape, contiguous) = self.flatten()[index].
void take_into(const Tensor& self, const Tensor& index, Tensor& out) {
  if (out.is_meta() || index.numel() == 0) return;
  int64_t bad = -1;
  Tensor idx = wrap_negative(index, self.numel(), &bad);
  if (bad >= 0) flat_range_error(index, bad, self.numel());
  Tensor flat = self.reshape({-1});
  Tensor o = out.view({-1});
  cpu::DimIndexLoop l = make_loop(flat, idx.view({-1}), o, 0, false);
  EMBER_CHECK(cpu::gather_stub.get()(l), RuntimeError, "take(): index out of range after checking");
}

Tensor take_k(const Tensor& self, const Tensor& index) {
  take_checks(self, index);
  Tensor out = empty(index.sizes(), TensorOptions(self.dtype()).device(self.device()));
  take_into(self, index, out);
  return out;
}

Tensor& take_out_k(const Tensor& self, const Tensor& index, Tensor& out) {
  take_checks(self, index);
  EMBER_CHECK(out.defined() && self.dtype() == out.dtype(), RuntimeError,
              "take(): self and out expected to have the same dtype, but got self.dtype = ", self.dtype(),
              " and out.dtype = ", out.defined() ? out.dtype() : self.dtype());
  check_no_internal_overlap(out);
  prepare_out("take", out, index.sizes(), self.dtype(), self.device());
  if (out.is_contiguous() && !out.is_alias_of(self) && !out.is_alias_of(index)) {
    take_into(self, index, out);
  } else {
    Tensor tmp = empty(index.sizes(), TensorOptions(self.dtype()).device(self.device()));
    take_into(self, index, tmp);
    if (!out.is_meta()) out.copy_(tmp);
  }
  out.bump_version();
  return out;
}

Tensor& put_impl(Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  check_devices("put_", {&self, &index, &source});
  EMBER_CHECK(index.dtype() == kInt64, RuntimeError, "put_(): Expected a long tensor for index, but got ", index.dtype());
  EMBER_CHECK(self.dtype() == source.dtype(), RuntimeError,
              "put_(): self and source expected to have the same dtype, but got self.dtype = ", self.dtype(),
              " and source.dtype = ", source.dtype());
  EMBER_CHECK(source.numel() == index.numel(), IndexError,
              "put_(): Expected source and index to have the same number of elements, but got source.numel() = ",
              source.numel(), ", index.numel() = ", index.numel());
  EMBER_CHECK(!(self.numel() == 0 && index.numel() != 0), IndexError, "put_(): Tried to put elements into an empty tensor");
  check_no_internal_overlap(self);
  if (self.is_meta() || index.numel() == 0) return self;
  int64_t bad = -1;
  Tensor idx = unaliased_input(self, wrap_negative(index, self.numel(), &bad));
  if (bad >= 0) flat_range_error(index, bad, self.numel());
  Tensor src = unaliased_input(self, source).reshape({-1});
  const bool direct = self.is_contiguous();
  Tensor flat = direct ? self.view({-1}) : self.contiguous().view({-1});
  cpu::DimIndexLoop l = make_loop(flat, idx.view({-1}), src, 0, false);
  cpu::scatter_stub.get()(l, accumulate ? cpu::ScatterOp::Add : cpu::ScatterOp::Assign);
  if (!direct) self.copy_(flat.view(self.sizes()));
  self.bump_version();
  return self;
}

Tensor put_k(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  Tensor out = self.clone();
  return put_impl(out, index, source, accumulate);
}

// ---------------------------------------------------------------- signatures
using IndexSelectSig = Tensor(const Tensor&, int64_t, const Tensor&);
using IndexSelectOutSig = Tensor&(const Tensor&, int64_t, const Tensor&, Tensor&);
using IndexAddSig = Tensor(const Tensor&, int64_t, const Tensor&, const Tensor&, const Scalar&);
using IndexAddInSig = Tensor&(Tensor&, int64_t, const Tensor&, const Tensor&, const Scalar&);
using IndexAddOutSig = Tensor&(const Tensor&, int64_t, const Tensor&, const Tensor&, const Scalar&, Tensor&);
using IndexCopySig = Tensor(const Tensor&, int64_t, const Tensor&, const Tensor&);
using IndexCopyInSig = Tensor&(Tensor&, int64_t, const Tensor&, const Tensor&);
using IndexCopyOutSig = Tensor&(const Tensor&, int64_t, const Tensor&, const Tensor&, Tensor&);
using IndexFillScalarSig = Tensor(const Tensor&, int64_t, const Tensor&, const Scalar&);
using IndexFillTensorSig = Tensor(const Tensor&, int64_t, const Tensor&, const Tensor&);
using IndexFillScalarInSig = Tensor&(Tensor&, int64_t, const Tensor&, const Scalar&);
using IndexFillTensorInSig = Tensor&(Tensor&, int64_t, const Tensor&, const Tensor&);
using TakeSig = Tensor(const Tensor&, const Tensor&);
using TakeOutSig = Tensor&(const Tensor&, const Tensor&, Tensor&);
using PutSig = Tensor(const Tensor&, const Tensor&, const Tensor&, bool);
using PutInSig = Tensor&(Tensor&, const Tensor&, const Tensor&, bool);

}  // namespace

// ---------------------------------------------------------------- front functions
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index) {
  static const TypedOp<IndexSelectSig> op("index_select");
  return op.call(self, dim, index);
}
Tensor& index_select_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index) {
  static const TypedOp<IndexSelectOutSig> op("index_select.out");
  return op.call(self, dim, index, out);
}
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  static const TypedOp<IndexAddSig> op("index_add");
  return op.call(self, dim, index, source, alpha);
}
Tensor& index_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha) {
  static const TypedOp<IndexAddInSig> op("index_add_");
  return op.call(self, dim, index, source, alpha);
}
Tensor& index_add_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                      const Scalar& alpha) {
  static const TypedOp<IndexAddOutSig> op("index_add.out");
  return op.call(self, dim, index, source, alpha, out);
}
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  static const TypedOp<IndexCopySig> op("index_copy");
  return op.call(self, dim, index, source);
}
Tensor& index_copy_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  static const TypedOp<IndexCopyInSig> op("index_copy_");
  return op.call(self, dim, index, source);
}
Tensor& index_copy_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source) {
  static const TypedOp<IndexCopyOutSig> op("index_copy.out");
  return op.call(self, dim, index, source, out);
}
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  static const TypedOp<IndexFillScalarSig> op("index_fill.int_Scalar");
  return op.call(self, dim, index, value);
}
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  static const TypedOp<IndexFillTensorSig> op("index_fill.int_Tensor");
  return op.call(self, dim, index, value);
}
Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value) {
  static const TypedOp<IndexFillScalarInSig> op("index_fill_.int_Scalar");
  return op.call(self, dim, index, value);
}
Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& value) {
  static const TypedOp<IndexFillTensorInSig> op("index_fill_.int_Tensor");
  return op.call(self, dim, index, value);
}
Tensor take(const Tensor& self, const Tensor& index) {
  static const TypedOp<TakeSig> op("take");
  return op.call(self, index);
}
Tensor& take_out(Tensor& out, const Tensor& self, const Tensor& index) {
  static const TypedOp<TakeOutSig> op("take.out");
  return op.call(self, index, out);
}
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  static const TypedOp<PutSig> op("put");
  return op.call(self, index, source, accumulate);
}
Tensor& put_(Tensor& self, const Tensor& index, const Tensor& source, bool accumulate) {
  static const TypedOp<PutInSig> op("put_");
  return op.call(self, index, source, accumulate);
}

EMBER_REGISTER(index_select_ops) {
  define_op<IndexSelectSig>("index_select(Tensor self, int dim, Tensor index) -> Tensor");
  register_cpu_meta<IndexSelectSig, &index_select_k>("index_select");
  define_op<IndexSelectOutSig>(
      "index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out) -> Tensor(a!)");
  register_cpu_meta<IndexSelectOutSig, &index_select_out_k>("index_select.out");

  define_op<IndexAddSig>("index_add(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor");
  register_cpu_meta<IndexAddSig, &index_add_k>("index_add");
  define_op<IndexAddOutSig>("index_add.out(Tensor self, int dim, Tensor index, Tensor source, *, Scalar alpha=1, "
                            "Tensor(a!) out) -> Tensor(a!)");
  register_cpu_meta<IndexAddOutSig, &index_add_ok>("index_add.out");
  define_op<IndexAddInSig>(
      "index_add_(Tensor(a!) self, int dim, Tensor index, Tensor source, *, Scalar alpha=1) -> Tensor(a!)",
      Tag::Inplace);
  register_cpu_meta<IndexAddInSig, &index_add_ik>("index_add_");

  define_op<IndexCopySig>("index_copy(Tensor self, int dim, Tensor index, Tensor source) -> Tensor");
  register_cpu_meta<IndexCopySig, &index_copy_k>("index_copy");
  define_op<IndexCopyOutSig>(
      "index_copy.out(Tensor self, int dim, Tensor index, Tensor source, *, Tensor(a!) out) -> Tensor(a!)");
  register_cpu_meta<IndexCopyOutSig, &index_copy_ok>("index_copy.out");
  define_op<IndexCopyInSig>("index_copy_(Tensor(a!) self, int dim, Tensor index, Tensor source) -> Tensor(a!)",
                            Tag::Inplace);
  register_cpu_meta<IndexCopyInSig, &index_copy_ik>("index_copy_");

  define_op<IndexFillScalarSig>("index_fill.int_Scalar(Tensor self, int dim, Tensor index, Scalar value) -> Tensor");
  register_cpu_meta<IndexFillScalarSig, &index_fill_scalar_k>("index_fill.int_Scalar");
  define_op<IndexFillTensorSig>("index_fill.int_Tensor(Tensor self, int dim, Tensor index, Tensor value) -> Tensor");
  register_cpu_meta<IndexFillTensorSig, &index_fill_tensor_k>("index_fill.int_Tensor");
  define_op<IndexFillScalarInSig>(
      "index_fill_.int_Scalar(Tensor(a!) self, int dim, Tensor index, Scalar value) -> Tensor(a!)", Tag::Inplace);
  register_cpu_meta<IndexFillScalarInSig, &index_fill_scalar_ik>("index_fill_.int_Scalar");
  define_op<IndexFillTensorInSig>(
      "index_fill_.int_Tensor(Tensor(a!) self, int dim, Tensor index, Tensor value) -> Tensor(a!)", Tag::Inplace);
  register_cpu_meta<IndexFillTensorInSig, &index_fill_tensor_ik>("index_fill_.int_Tensor");

  define_op<TakeSig>("take(Tensor self, Tensor index) -> Tensor");
  register_cpu_meta<TakeSig, &take_k>("take");
  define_op<TakeOutSig>("take.out(Tensor self, Tensor index, *, Tensor(a!) out) -> Tensor(a!)");
  register_cpu_meta<TakeOutSig, &take_out_k>("take.out");

  define_op<PutSig>("put(Tensor self, Tensor index, Tensor source, bool accumulate=False) -> Tensor");
  register_cpu_meta<PutSig, &put_k>("put");
  define_op<PutInSig>("put_(Tensor(a!) self, Tensor index, Tensor source, bool accumulate=False) -> Tensor(a!)",
                      Tag::Inplace);
  register_cpu_meta<PutInSig, &put_impl>("put_");
}

}  // namespace ember
