// Shape ops that copy: flip, fliplr, flipud, roll, rot90, repeat, tile, repeat_interleave,
// tril, triu, diag, diag_embed, diagflat, narrow_copy. Semantics (and error classes) of
// PyTorch 1.13. Most are a copy_ from a view of self into a fresh output:
//  - flip reads self through a view with negated strides;
//  - roll copies the 2^k blocks that a shift along k dims cuts self into;
//  - repeat views the output as [r0, s0, r1, s1, ...] and copies self expanded into it;
//  - tril/triu have a kernel (kernels/shape.cpp); diag* write a diagonal view of zeros.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "autograd/out_check.h"
#include "autograd/view.h"
#include "backends/cpu/shape_stubs.h"
#include "ember/dispatch.h"
#include "ember/fx/trace.h"
#include "ember/ops.h"
#include "ops/iter.h"

namespace ember {
namespace {

Tensor new_like(const Tensor& self, IntArrayRef sizes) {
  return empty(sizes, TensorOptions(self.dtype()).device(self.device()));
}

// a * b, a + b with PyTorch's error on overflow (sizes that no tensor can have).
int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r = 0;
  EMBER_CHECK(!__builtin_mul_overflow(a, b, &r), RuntimeError, "numel: integer multiplication overflow");
  return r;
}
int64_t checked_add(int64_t a, int64_t b) {
  int64_t r = 0;
  EMBER_CHECK(!__builtin_add_overflow(a, b, &r), RuntimeError, "integer addition overflow in a size");
  return r;
}

// A view of base's storage with any strides (negative ones included).
Tensor strided_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  auto impl = Ref<TensorImpl>::make(base.storage(), base.dtype(), sizes, strides, offset);
  impl->add_keys(base.key_set());
  impl->set_inference(base.is_inference());
  impl->set_view_base(base.impl()->view_base() ? Ref<TensorImpl>(base.impl()->view_base()) : base.impl_ref());
  Tensor view(std::move(impl));
  if (base.key_set().has(DispatchKey::Autograd)) autograd::record_view(base, view);
  // View methods are not dispatched ops: the C++ tracer learns of them here.
  fx::report_view(base, view);
  return view;
}

void check_cpu_or_meta(const char* op, const Tensor& t) {
  EMBER_CHECK(t.is_cpu() || t.is_meta(), NotImplementedError, op, "(): no kernel for device ", t.device());
}

// PyTorch's resize_output for out= tensors of the op's dtype.
void prepare_out(Tensor& out, const Tensor& self, IntArrayRef shape) {
  EMBER_CHECK(out.defined(), ValueError, "got an undefined out tensor");
  EMBER_CHECK(out.device() == self.device(), RuntimeError, "Expected out tensor on ", self.device(), ", but got it on ",
              out.device());
  EMBER_CHECK(out.dtype() == self.dtype(), RuntimeError, "Expected out tensor to have dtype ", self.dtype(), ", but got ",
              out.dtype(), " instead");
  if (!out.sizes().equals(shape)) resize_(out, shape);
}

// ---------------------------------------------------------------- flip

Tensor flip_k(const Tensor& self, IntArrayRef dims) {
  check_cpu_or_meta("flip", self);
  SmallVector<bool, 8> flipped(static_cast<size_t>(std::max<int64_t>(self.dim(), 1)), false);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, self.dim(), "flip");
    EMBER_CHECK(!flipped[w], RuntimeError, "dim ", w, " appears multiple times in the list of dims");
    flipped[w] = true;
  }
  Tensor out = new_like(self, self.sizes());
  if (self.is_meta() || self.numel() == 0) return out;
  DimVector strides(self.strides());
  int64_t offset = self.storage_offset();
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (!flipped[d]) continue;
    offset += (self.sizes()[d] - 1) * strides[d];
    strides[d] = -strides[d];
  }
  out.copy_(strided_view(self, self.sizes(), strides, offset));
  return out;
}

Tensor fliplr_composite(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 2, RuntimeError, "Input must be >= 2-d.");
  return flip(self, {1});
}
Tensor flipud_composite(const Tensor& self) {
  EMBER_CHECK(self.dim() >= 1, RuntimeError, "Input must be >= 1-d.");
  return flip(self, {0});
}

// ---------------------------------------------------------------- roll

Tensor roll_k(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  check_cpu_or_meta("roll", self);
  EMBER_CHECK(!shifts.empty(), RuntimeError, "`shifts` required");
  if (dims.empty()) {  // over the flattened tensor
    EMBER_CHECK(shifts.size() == 1, RuntimeError, "shifts and dimensions must align. shifts: ", shifts.size(),
                ", dims:", dims.size());
    const int64_t shift = shifts[0];
    return roll_k(self.reshape({-1}), IntArrayRef(&shift, 1), DimVector{0}).view(self.sizes());
  }
  EMBER_CHECK(shifts.size() == dims.size(), RuntimeError, "shifts and dimensions must align. shifts: ", shifts.size(),
              ", dims:", dims.size());
  EMBER_CHECK(self.dim() > 0, IndexError, "Dimension specified as ", dims[0], " but tensor has no dimensions");
  DimVector shift(self.dim(), 0);
  for (size_t i = 0; i < dims.size(); ++i) shift[wrap_dim(dims[i], self.dim(), "roll")] += shifts[i];
  Tensor out = new_like(self, self.sizes());
  if (self.is_meta() || self.numel() == 0) return out;
  SmallVector<int64_t, 8> rolled;  // dims with a non-trivial shift, normalized to [0, size)
  for (int64_t d = 0; d < self.dim(); ++d) {
    const int64_t n = self.sizes()[d];
    shift[d] = ((shift[d] % n) + n) % n;
    if (shift[d] != 0) rolled.push_back(d);
  }
  // Element i of a rolled dim goes to (i + s) mod n: self's [0, n-s) lands at [s, n) and
  // self's [n-s, n) at [0, s). Each combination of halves is one block copy.
  const size_t k = rolled.size();
  for (uint64_t mask = 0; mask < (uint64_t(1) << k); ++mask) {
    Tensor src = self, dst = out;
    for (size_t j = 0; j < k; ++j) {
      const int64_t d = rolled[j], n = self.sizes()[d], s = shift[d];
      if (mask & (uint64_t(1) << j)) {
        src = src.narrow(d, n - s, s);
        dst = dst.narrow(d, 0, s);
      } else {
        src = src.narrow(d, 0, n - s);
        dst = dst.narrow(d, s, n - s);
      }
    }
    dst.copy_(src);
  }
  return out;
}

// ---------------------------------------------------------------- rot90

Tensor rot90_composite(const Tensor& self, int64_t k, IntArrayRef dims) {
  const int64_t total = self.dim();
  EMBER_CHECK(dims.size() == 2, RuntimeError, "expected total rotation dims == 2, but got dims = ", dims.size());
  EMBER_CHECK(total >= 2, RuntimeError, "expected total dims >= 2, but got total dims = ", total);
  EMBER_CHECK(dims[0] != dims[1] && std::abs(dims[0] - dims[1]) != total, RuntimeError,
              "expected rotation dims to be different, but got dim0 = ", dims[0], " and dim1 = ", dims[1]);
  EMBER_CHECK(dims[0] < total && dims[0] >= -total, RuntimeError, "Rotation dim0 out of range, dim0 = ", dims[0]);
  EMBER_CHECK(dims[1] < total && dims[1] >= -total, RuntimeError, "Rotation dim1 out of range, dim1 = ", dims[1]);
  const int64_t d0 = wrap_dim(dims[0], total), d1 = wrap_dim(dims[1], total);
  switch (((k % 4) + 4) % 4) {
    case 1: return flip(self, {d1}).transpose(d0, d1);
    case 2: return flip(self, {d0, d1});
    case 3: return flip(self, {d0}).transpose(d0, d1);
    default: return self.clone();
  }
}

// ---------------------------------------------------------------- repeat, tile

Tensor repeat_k(const Tensor& self, IntArrayRef repeats) {
  check_cpu_or_meta("repeat", self);
  EMBER_CHECK(static_cast<int64_t>(repeats.size()) >= self.dim(), RuntimeError,
              "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
  const int64_t n = static_cast<int64_t>(repeats.size()), lead = n - self.dim();
  DimVector padded(n), target(n);
  for (int64_t i = 0; i < n; ++i) {
    padded[i] = i < lead ? 1 : self.sizes()[i - lead];
    target[i] = checked_mul(padded[i], repeats[i]);
  }
  for (int64_t i = 0; i < n; ++i)
    EMBER_CHECK(target[i] >= 0, RuntimeError, "Trying to create tensor with negative dimension ", target[i], ": ",
                IntArrayRef(target));
  int64_t numel = 1;
  for (int64_t t : target) numel = checked_mul(numel, t);
  Tensor out = new_like(self, target);
  if (self.is_meta() || out.numel() == 0) return out;
  // out viewed as [r0, s0, r1, s1, ...] receives self viewed as [1, s0, 1, s1, ...].
  Tensor x = self.reshape(padded);
  DimVector interleaved(2 * n);
  for (int64_t i = 0; i < n; ++i) {
    x = x.unsqueeze(2 * i);
    interleaved[2 * i] = repeats[i];
    interleaved[2 * i + 1] = padded[i];
  }
  out.view(interleaved).copy_(x.expand(interleaved));
  return out;
}

Tensor tile_composite(const Tensor& self, IntArrayRef dims) {
  DimVector reps(dims);
  while (static_cast<int64_t>(reps.size()) < self.dim()) reps.insert(0, 1);
  return repeat(self, reps);
}

// ---------------------------------------------------------------- repeat_interleave

// [0]*r0 + [1]*r1 + ...: the index form (repeats is 1-D int32/int64).
Tensor repeat_interleave_index_k(const Tensor& repeats, std::optional<int64_t> output_size) {
  check_cpu_or_meta("repeat_interleave", repeats);
  EMBER_CHECK(repeats.dim() == 1, RuntimeError, "repeat_interleave only accept 1D vector as repeat");
  EMBER_CHECK(repeats.dtype() == kInt64 || repeats.dtype() == kInt32, RuntimeError,
              "\"repeat_interleave_cpu\" not implemented for '", repeats.dtype(), "'");
  EMBER_CHECK(!repeats.is_meta(), NotImplementedError,
              "repeat_interleave(): the result's size depends on the values of repeats, which a Meta tensor has not");
  Tensor r = repeats.to(kInt64).contiguous();
  const int64_t* p = r.data_ptr<int64_t>();
  const int64_t n = r.numel();
  int64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    EMBER_CHECK(p[i] >= 0, RuntimeError, "repeats can not be negative");
    total = checked_add(total, p[i]);
  }
  EMBER_CHECK(!output_size || *output_size == total, RuntimeError, "allocated size does not match required size");
  Tensor out = empty({total}, kInt64);
  int64_t* o = out.data_ptr<int64_t>();
  for (int64_t i = 0, pos = 0; i < n; ++i)
    for (int64_t j = 0; j < p[i]; ++j) o[pos++] = i;
  return repeats.dtype() == kInt64 ? out : out.to(repeats.dtype());
}

// With a dim, self needs one (PyTorch's IndexError for 0-dim tensors).
void check_interleave_dim(const Tensor& self, std::optional<int64_t> dim) {
  EMBER_CHECK(!dim || self.dim() > 0, IndexError, "Dimension specified as ", dim.value_or(0),
              " but tensor has no dimensions");
}

Tensor repeat_interleave_tensor_composite(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                                          std::optional<int64_t> output_size) {
  check_interleave_dim(self, dim);
  Tensor input = dim ? self : self.reshape({-1});
  const int64_t d = dim ? wrap_dim(*dim, self.dim(), "repeat_interleave") : 0;
  const int64_t size = input.dim() == 0 ? 1 : input.sizes()[d];
  Tensor reps = repeats;
  if (repeats.dim() == 0 || (repeats.dim() == 1 && repeats.sizes()[0] == 1)) {
    reps = repeats.reshape({1}).expand({size});
  } else {
    EMBER_CHECK(repeats.dim() == 1, RuntimeError, "repeats must be 0-dim or 1-dim tensor");
    EMBER_CHECK(repeats.sizes()[0] == size, RuntimeError, "repeats must have the same size as input along dim");
  }
  Tensor idx = repeat_interleave(reps.contiguous(), output_size);
  return index_select(input, d, idx);
}

Tensor repeat_interleave_int_composite(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                                       std::optional<int64_t> output_size) {
  EMBER_CHECK(repeats >= 0, RuntimeError, "repeats can not be negative");
  check_interleave_dim(self, dim);
  Tensor input = dim ? self : self.reshape({-1});
  const int64_t d = dim ? wrap_dim(*dim, self.dim(), "repeat_interleave") : 0;
  const int64_t total = checked_mul(input.sizes()[d], repeats);
  checked_mul(input.numel(), repeats);
  EMBER_CHECK(!output_size || *output_size == total, RuntimeError, "allocated size does not match required size");
  // Each slice along d repeated: [.., s, r, ..] flattened to [.., s * r, ..].
  DimVector shape(input.sizes());
  shape.insert(d + 1, repeats);
  DimVector result(input.sizes());
  result[d] = total;
  return input.unsqueeze(d + 1).expand(shape).reshape(result);
}

// ---------------------------------------------------------------- tril, triu

void triangle_into(const Tensor& self, Tensor& out, int64_t k, bool upper, bool serial) {
  if (out.is_meta() || out.numel() == 0) return;
  cpu::TriangleLoop l;
  const int64_t w = static_cast<int64_t>(self.element_size()), nd = self.dim();
  l.out = static_cast<char*>(out.data_ptr());
  l.in = static_cast<const char*>(self.data_ptr());
  l.elem_size = w;
  l.rows = self.sizes()[nd - 2];
  l.cols = self.sizes()[nd - 1];
  l.out_row_stride = out.strides()[nd - 2] * w;
  l.out_col_stride = out.strides()[nd - 1] * w;
  l.in_row_stride = self.strides()[nd - 2] * w;
  l.in_col_stride = self.strides()[nd - 1] * w;
  for (int64_t d = nd - 3; d >= 0; --d) {
    const int i = l.nbatch++;
    l.batch_sizes[i] = self.sizes()[d];
    l.out_batch_strides[i] = out.strides()[d] * w;
    l.in_batch_strides[i] = self.strides()[d] * w;
  }
  l.k = k;
  l.upper = upper;
  l.serial = serial;
  cpu::triangle_stub.get()(l);
}

void check_matrix(const char* op, const Tensor& self) {
  check_cpu_or_meta(op, self);
  wrap_dim(-2, self.dim(), op);  // at least 2 dims (IndexError as in PyTorch)
}

template <bool Upper>
Tensor triangle_k(const Tensor& self, int64_t diagonal) {
  check_matrix(Upper ? "triu" : "tril", self);
  Tensor out = new_like(self, self.sizes());
  triangle_into(self, out, diagonal, Upper, false);
  return out;
}

template <bool Upper>
Tensor& triangle_ik(Tensor& self, int64_t diagonal) {
  check_matrix(Upper ? "triu_" : "tril_", self);
  triangle_into(self, self, diagonal, Upper, has_internal_overlap(self));
  if (!self.is_meta()) self.bump_version();
  return self;
}

template <bool Upper>
Tensor& triangle_ok(const Tensor& self, int64_t diagonal, Tensor& out) {
  check_matrix(Upper ? "triu" : "tril", self);
  prepare_out(out, self, self.sizes());
  EMBER_CHECK(!has_internal_overlap(out), RuntimeError,
              "unsupported operation: more than one element of the written-to tensor refers to a single memory "
              "location. Please clone() the tensor before performing the operation.");
  if (!out.is_same(self) && out.is_alias_of(self) && !out.is_meta()) {
    Tensor tmp = triangle_k<Upper>(self, diagonal);
    out.copy_(tmp);
  } else {
    triangle_into(self, out, diagonal, Upper, false);
  }
  out.bump_version();
  return out;
}

// ---------------------------------------------------------------- diag, diag_embed, diagflat

Tensor diag_composite(const Tensor& self, int64_t diagonal) {
  EMBER_CHECK(self.dim() == 1 || self.dim() == 2, RuntimeError, "matrix or a vector expected");
  if (self.dim() == 2) return self.diagonal(diagonal).clone();
  EMBER_CHECK(diagonal != INT64_MIN, RuntimeError, "diag(): diagonal ", diagonal, " is out of range");
  checked_mul(checked_add(self.sizes()[0], std::abs(diagonal)), checked_add(self.sizes()[0], std::abs(diagonal)));
  return diag_embed(self, diagonal, 0, 1);
}

Tensor& diag_out_composite(const Tensor& self, int64_t diagonal, Tensor& out) {
  EMBER_CHECK(self.dim() == 1 || self.dim() == 2, RuntimeError, "matrix or a vector expected");
  EMBER_CHECK(out.defined(), ValueError, "diag(): got an undefined out tensor");
  EMBER_CHECK(out.dtype() == self.dtype(), RuntimeError, "expected scalar type ", self.dtype(), " but found ",
              out.dtype());
  autograd::check_out_inputs("diag", {self});
  Tensor r = diag_composite(self, diagonal);
  if (!out.sizes().equals(r.sizes())) resize_(out, r.sizes());
  out.copy_(r);
  return out;
}

Tensor diag_embed_composite(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  const int64_t nd = self.dim() + 1;
  const int64_t d1 = wrap_dim(dim1, nd, "diag_embed"), d2 = wrap_dim(dim2, nd, "diag_embed");
  EMBER_CHECK(d1 != d2, RuntimeError, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  EMBER_CHECK(offset != INT64_MIN, RuntimeError, "diag_embed(): offset ", offset, " is out of range");
  const int64_t n = checked_add(self.sizes().back(), std::abs(offset));
  // Built with differentiable ops (no copy_ into a view of zeros, which autograd cannot
  // follow): x on the diagonal of its last dim squared, padded by |offset| rows and columns,
  // then those two dims moved to dim1 and dim2. where (not a product with eye) keeps inf and
  // NaN off the rest of the matrix.
  const int64_t m = self.sizes().back(), k = std::abs(offset);
  const TensorOptions opts = TensorOptions(self.dtype()).device(self.device());
  DimVector sq(self.sizes());
  sq.push_back(m);
  Tensor out = where(eye(m, std::nullopt, TensorOptions(kBool).device(self.device())), self.unsqueeze(-1).expand(sq),
                     zeros(sq, opts));
  if (k > 0) {
    DimVector cols(sq), rows(sq);
    cols.back() = k;
    rows[rows.size() - 2] = k;
    rows.back() = n;
    const Tensor zc = zeros(cols, opts), zr = zeros(rows, opts);
    out = offset > 0 ? cat({cat({zc, out}, -1), zr}, -2) : cat({zr, cat({out, zc}, -1)}, -2);
  }
  return movedim(out, DimVector{nd - 2, nd - 1}, DimVector{d1, d2}).contiguous();
}

Tensor diagflat_composite(const Tensor& self, int64_t offset) { return diag(self.reshape({-1}), offset); }

// ---------------------------------------------------------------- narrow_copy

Tensor narrowed(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  EMBER_CHECK(self.dim() > 0, RuntimeError, "narrow() cannot be applied to a 0-dim tensor.");
  EMBER_CHECK(dim < self.dim(), RuntimeError, "narrow_copy(): dim ", dim, " is out of range for a tensor of ",
              self.dim(), " dims");
  return self.narrow(dim, start, length);
}

Tensor narrow_copy_composite(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  return narrowed(self, dim, start, length).clone();
}

Tensor& narrow_copy_out_composite(const Tensor& self, int64_t dim, int64_t start, int64_t length, Tensor& out) {
  autograd::check_out_inputs("narrow_copy", {self});
  Tensor v = narrowed(self, dim, start, length);
  prepare_out(out, self, v.sizes());
  out.copy_(v);
  return out;
}

using FlipSig = Tensor(const Tensor&, IntArrayRef);
using UnarySig = Tensor(const Tensor&);
using RollSig = Tensor(const Tensor&, IntArrayRef, IntArrayRef);
using Rot90Sig = Tensor(const Tensor&, int64_t, IntArrayRef);
using RepeatSig = Tensor(const Tensor&, IntArrayRef);
using RepeatIndexSig = Tensor(const Tensor&, std::optional<int64_t>);
using RepeatTensorSig = Tensor(const Tensor&, const Tensor&, std::optional<int64_t>, std::optional<int64_t>);
using RepeatIntSig = Tensor(const Tensor&, int64_t, std::optional<int64_t>, std::optional<int64_t>);
using TriSig = Tensor(const Tensor&, int64_t);
using TriInSig = Tensor&(Tensor&, int64_t);
using TriOutSig = Tensor&(const Tensor&, int64_t, Tensor&);
using DiagEmbedSig = Tensor(const Tensor&, int64_t, int64_t, int64_t);
using NarrowCopySig = Tensor(const Tensor&, int64_t, int64_t, int64_t);
using NarrowCopyOutSig = Tensor&(const Tensor&, int64_t, int64_t, int64_t, Tensor&);

}  // namespace

// ---------------------------------------------------------------- front functions
Tensor flip(const Tensor& self, IntArrayRef dims) {
  static const TypedOp<FlipSig> op("flip");
  return op.call(self, dims);
}
Tensor fliplr(const Tensor& self) {
  static const TypedOp<UnarySig> op("fliplr");
  return op.call(self);
}
Tensor flipud(const Tensor& self) {
  static const TypedOp<UnarySig> op("flipud");
  return op.call(self);
}
Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims) {
  static const TypedOp<RollSig> op("roll");
  return op.call(self, shifts, dims);
}
Tensor rot90(const Tensor& self, int64_t k, IntArrayRef dims) {
  static const TypedOp<Rot90Sig> op("rot90");
  return op.call(self, k, dims);
}
Tensor repeat(const Tensor& self, IntArrayRef repeats) {
  static const TypedOp<RepeatSig> op("repeat");
  return op.call(self, repeats);
}
Tensor tile(const Tensor& self, IntArrayRef dims) {
  static const TypedOp<RepeatSig> op("tile");
  return op.call(self, dims);
}
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size) {
  static const TypedOp<RepeatIndexSig> op("repeat_interleave.Tensor");
  return op.call(repeats, output_size);
}
Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  static const TypedOp<RepeatTensorSig> op("repeat_interleave.self_Tensor");
  return op.call(self, repeats, dim, output_size);
}
Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim,
                         std::optional<int64_t> output_size) {
  static const TypedOp<RepeatIntSig> op("repeat_interleave.self_int");
  return op.call(self, repeats, dim, output_size);
}
Tensor tril(const Tensor& self, int64_t diagonal) {
  static const TypedOp<TriSig> op("tril");
  return op.call(self, diagonal);
}
Tensor triu(const Tensor& self, int64_t diagonal) {
  static const TypedOp<TriSig> op("triu");
  return op.call(self, diagonal);
}
Tensor& tril_(Tensor& self, int64_t diagonal) {
  static const TypedOp<TriInSig> op("tril_");
  return op.call(self, diagonal);
}
Tensor& triu_(Tensor& self, int64_t diagonal) {
  static const TypedOp<TriInSig> op("triu_");
  return op.call(self, diagonal);
}
Tensor& tril_out(Tensor& out, const Tensor& self, int64_t diagonal) {
  static const TypedOp<TriOutSig> op("tril.out");
  return op.call(self, diagonal, out);
}
Tensor& triu_out(Tensor& out, const Tensor& self, int64_t diagonal) {
  static const TypedOp<TriOutSig> op("triu.out");
  return op.call(self, diagonal, out);
}
Tensor diag(const Tensor& self, int64_t diagonal) {
  static const TypedOp<TriSig> op("diag");
  return op.call(self, diagonal);
}
Tensor& diag_out(Tensor& out, const Tensor& self, int64_t diagonal) {
  static const TypedOp<TriOutSig> op("diag.out");
  return op.call(self, diagonal, out);
}
Tensor diag_embed(const Tensor& self, int64_t offset, int64_t dim1, int64_t dim2) {
  static const TypedOp<DiagEmbedSig> op("diag_embed");
  return op.call(self, offset, dim1, dim2);
}
Tensor diagflat(const Tensor& self, int64_t offset) {
  static const TypedOp<TriSig> op("diagflat");
  return op.call(self, offset);
}
Tensor narrow_copy(const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  static const TypedOp<NarrowCopySig> op("narrow_copy");
  return op.call(self, dim, start, length);
}
Tensor& narrow_copy_out(Tensor& out, const Tensor& self, int64_t dim, int64_t start, int64_t length) {
  static const TypedOp<NarrowCopyOutSig> op("narrow_copy.out");
  return op.call(self, dim, start, length, out);
}

EMBER_REGISTER(shape_ops) {
  define_op<FlipSig>("flip(Tensor self, int[] dims) -> Tensor");
  register_cpu_meta<FlipSig, &flip_k>("flip");
  define_op<UnarySig>("fliplr(Tensor self) -> Tensor");
  register_composite<UnarySig, &fliplr_composite>("fliplr");
  define_op<UnarySig>("flipud(Tensor self) -> Tensor");
  register_composite<UnarySig, &flipud_composite>("flipud");
  define_op<RollSig>("roll(Tensor self, int[1] shifts, int[1] dims=[]) -> Tensor");
  register_cpu_meta<RollSig, &roll_k>("roll");
  define_op<Rot90Sig>("rot90(Tensor self, int k=1, int[] dims=[0,1]) -> Tensor");
  register_composite<Rot90Sig, &rot90_composite>("rot90");

  define_op<RepeatSig>("repeat(Tensor self, int[] repeats) -> Tensor", Tag::MethodOnly);
  register_cpu_meta<RepeatSig, &repeat_k>("repeat");
  define_op<RepeatSig>("tile(Tensor self, int[] dims) -> Tensor");
  register_composite<RepeatSig, &tile_composite>("tile");
  define_op<RepeatIndexSig>("repeat_interleave.Tensor(Tensor repeats, *, int? output_size=None) -> Tensor");
  register_cpu_meta<RepeatIndexSig, &repeat_interleave_index_k>("repeat_interleave.Tensor");
  define_op<RepeatTensorSig>("repeat_interleave.self_Tensor(Tensor self, Tensor repeats, int? dim=None, *, "
                             "int? output_size=None) -> Tensor");
  register_composite<RepeatTensorSig, &repeat_interleave_tensor_composite>("repeat_interleave.self_Tensor");
  define_op<RepeatIntSig>("repeat_interleave.self_int(Tensor self, int repeats, int? dim=None, *, "
                          "int? output_size=None) -> Tensor");
  register_composite<RepeatIntSig, &repeat_interleave_int_composite>("repeat_interleave.self_int");

  define_op<TriSig>("tril(Tensor self, int diagonal=0) -> Tensor");
  register_cpu_meta<TriSig, &triangle_k<false>>("tril");
  define_op<TriOutSig>("tril.out(Tensor self, int diagonal=0, *, Tensor(a!) out) -> Tensor(a!)");
  register_cpu_meta<TriOutSig, &triangle_ok<false>>("tril.out");
  define_op<TriInSig>("tril_(Tensor(a!) self, int diagonal=0) -> Tensor(a!)", Tag::Inplace);
  register_cpu_meta<TriInSig, &triangle_ik<false>>("tril_");
  define_op<TriSig>("triu(Tensor self, int diagonal=0) -> Tensor");
  register_cpu_meta<TriSig, &triangle_k<true>>("triu");
  define_op<TriOutSig>("triu.out(Tensor self, int diagonal=0, *, Tensor(a!) out) -> Tensor(a!)");
  register_cpu_meta<TriOutSig, &triangle_ok<true>>("triu.out");
  define_op<TriInSig>("triu_(Tensor(a!) self, int diagonal=0) -> Tensor(a!)", Tag::Inplace);
  register_cpu_meta<TriInSig, &triangle_ik<true>>("triu_");

  define_op<TriSig>("diag(Tensor self, int diagonal=0) -> Tensor");
  register_composite<TriSig, &diag_composite>("diag");
  define_op<TriOutSig>("diag.out(Tensor self, int diagonal=0, *, Tensor(a!) out) -> Tensor(a!)");
  register_composite<TriOutSig, &diag_out_composite>("diag.out");
  define_op<DiagEmbedSig>("diag_embed(Tensor self, int offset=0, int dim1=-2, int dim2=-1) -> Tensor");
  register_composite<DiagEmbedSig, &diag_embed_composite>("diag_embed");
  define_op<TriSig>("diagflat(Tensor self, int offset=0) -> Tensor");
  register_composite<TriSig, &diagflat_composite>("diagflat");

  define_op<NarrowCopySig>("narrow_copy(Tensor self, int dim, int start, int length) -> Tensor");
  // Kernels rather than a composite: narrow_copy has no derivative, as in PyTorch, so autograd
  // must record the op itself (its backward raises) instead of the differentiable view.
  register_cpu_meta<NarrowCopySig, &narrow_copy_composite>("narrow_copy");
  define_op<NarrowCopyOutSig>(
      "narrow_copy.out(Tensor self, int dim, int start, int length, *, Tensor(a!) out) -> Tensor(a!)");
  register_composite<NarrowCopyOutSig, &narrow_copy_out_composite>("narrow_copy.out");
}

}  // namespace ember
