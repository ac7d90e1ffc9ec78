// Advanced indexing: index (self[i, j]), index_put_ (self[i, j] = v), masked_select, nonzero.
//
// Both index ops first turn their index list into a plan: masks become their nonzero()
// indices, 0-dim bool indices insert a size-1 dim (NumPy's rule), int32 indices widen, and
// the index tensors broadcast together. The plan gives the result shape with NumPy/PyTorch's
// placement rule: the broadcast index dims replace the indexed dims in place when those are
// adjacent, and go first when a full slice separates them. That is all a Meta tensor needs
// (unless a mask is on Meta: its nonzero() depends on data). The CPU kernel then walks the
// result as [outer, index, inner] blocks, self's side of the index block given as
// precomputed byte offsets (bounds-checked before any memory is touched).
#include <algorithm>

#include "backends/cpu/stubs.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ops/iter.h"

namespace ember {
namespace {

using IndexSig = Tensor(const Tensor&, ArrayRef<std::optional<Tensor>>);
using IndexPutSig = Tensor&(Tensor&, ArrayRef<std::optional<Tensor>>, const Tensor&, bool);
using MaskedSelectSig = Tensor(const Tensor&, const Tensor&);
using NonzeroSig = Tensor(const Tensor&);

constexpr int kMaxDims = cpu::IndexBlock::kMaxDims;

bool is_mask(ScalarType t) { return t == kBool || t == kUInt8; }

// The index list after masks are expanded: one slot per dim of `self`.
struct IndexPlan {
  Tensor self;                    // with a size-1 dim inserted for each 0-dim bool index
  SmallVector<Tensor, 8> index;   // int64 index broadcast to `shape`, or undefined (full slice)
  DimVector shape;                // broadcast shape of the index tensors
  DimVector result;               // the shape of self[indices]
  int64_t first = 0, last = -1;   // first and last indexed dim of `self`
  bool adjacent = true;           // indexed dims are consecutive: the index dims stay in place
  bool single_mask = false;       // one mask is the only index: positions are all distinct
  bool unknown = false;           // a mask on Meta: nothing after the checks is known
};

IndexPlan make_plan(const char* op, const Tensor& self, ArrayRef<std::optional<Tensor>> indices,
                    bool allow_unknown) {
  EMBER_CHECK(self.defined(), ValueError, op, "(): got an undefined tensor");
  int64_t consumed = 0, nsources = 0;
  bool any_mask = false;
  for (const auto& o : indices) {
    if (!o || !o->defined()) { ++consumed; continue; }
    const Tensor& t = *o;
    EMBER_CHECK(t.dtype() == kInt64 || t.dtype() == kInt32 || is_mask(t.dtype()), IndexError,
                "tensors used as indices must be long, int, byte or bool tensors");
    EMBER_CHECK(t.is_cpu() || t.device() == self.device(), RuntimeError,
                "indices should be either on cpu or on the same device as the indexed tensor (",
                self.device(), ")");
    consumed += is_mask(t.dtype()) ? t.dim() : 1;
    any_mask |= is_mask(t.dtype());
    ++nsources;
  }
  EMBER_CHECK(consumed <= self.dim(), IndexError, "too many indices for tensor of dimension ",
              self.dim(), " (got ", consumed, ")");

  IndexPlan p;
  p.self = self;
  p.single_mask = nsources == 1 && any_mask;
  int64_t d = 0;
  for (const auto& o : indices) {
    if (!o || !o->defined()) { p.index.push_back(Tensor()); ++d; continue; }
    Tensor t = *o;
    if (!is_mask(t.dtype())) {
      p.index.push_back(t.dtype() == kInt32 ? t.to(kInt64) : t);
      ++d;
      continue;
    }
    if (t.dim() == 0) {  // True/False adds a dim of size 1/0 here, as in NumPy
      p.self = p.self.unsqueeze(d);
      t = t.reshape({1});
    }
    for (int64_t j = 0; j < t.dim(); ++j)
      EMBER_CHECK(t.sizes()[j] == p.self.sizes()[d + j], IndexError, "The shape of the mask ", t.sizes(),
                  " at index ", j, " does not match the shape of the indexed tensor ", p.self.sizes(),
                  " at index ", d + j);
    if (t.is_meta()) {
      EMBER_CHECK(allow_unknown, NotImplementedError, op, "(): indexing with a boolean mask on the "
                  "Meta backend is not supported: the result's shape depends on the mask's values "
                  "(Could not run 'nonzero' with arguments from the 'Meta' backend)");
      p.unknown = true;
      return p;
    }
    Tensor nz = nonzero(t);  // [n, k]: column j indexes dim d + j
    for (int64_t j = 0; j < t.dim(); ++j) p.index.push_back(nz.select(1, j));
    d += t.dim();
  }
  const int64_t nd = p.self.dim();
  EMBER_CHECK(nd <= kMaxDims, ValueError, op, "(): at most ", kMaxDims, " dimensions are supported");
  while (static_cast<int64_t>(p.index.size()) < nd) p.index.push_back(Tensor());

  // Broadcast the index tensors together.
  int64_t count = 0;
  bool ok = true;
  for (int64_t k = 0; k < nd; ++k) {
    const Tensor& t = p.index[k];
    if (!t.defined()) continue;
    if (count++ == 0) { p.first = k; p.shape = DimVector(t.sizes()); }
    p.last = k;
    IntArrayRef s = t.sizes();
    size_t n = std::max(p.shape.size(), s.size());
    DimVector r(n);
    for (size_t i = 0; i < n && ok; ++i) {
      int64_t a = i < n - p.shape.size() ? 1 : p.shape[i - (n - p.shape.size())];
      int64_t b = i < n - s.size() ? 1 : s[i - (n - s.size())];
      ok = a == b || a == 1 || b == 1;
      r[i] = a == 1 ? b : a;
    }
    if (ok) p.shape = std::move(r);
  }
  if (!ok) {
    detail::Msg m;
    m << "shape mismatch: indexing tensors could not be broadcast together with shapes ";
    bool sep = false;
    for (const Tensor& t : p.index)
      if (t.defined()) { m << (sep ? ", " : "") << t.sizes(); sep = true; }
    throw IndexError(std::move(m).str());
  }
  EMBER_CHECK(p.shape.size() <= static_cast<size_t>(kMaxDims), ValueError, op,
              "(): index tensors broadcast to more than ", kMaxDims, " dimensions");
  p.adjacent = count == 0 || p.last - p.first + 1 == count;
  IntArrayRef ss = p.self.sizes();
  if (p.adjacent) {
    for (int64_t k = 0; k < p.first; ++k) p.result.push_back(ss[k]);
    for (int64_t s : p.shape) p.result.push_back(s);
    for (int64_t k = p.last + 1; k < nd; ++k) p.result.push_back(ss[k]);
  } else {
    p.result = p.shape;
    for (int64_t k = 0; k < nd; ++k)
      if (!p.index[k].defined()) p.result.push_back(ss[k]);
  }
  EMBER_CHECK(p.result.size() <= static_cast<size_t>(kMaxDims), ValueError, op,
              "(): the result would have more than ", kMaxDims, " dimensions");
  return p;
}

// Byte offsets into plan.self of every index position (int64, contiguous).
Tensor index_offsets(const IndexPlan& p) {
  const int64_t n = compute_numel(p.shape);
  Tensor out = empty({n}, kInt64);
  cpu::IndexOffsets a;
  a.numel = n;
  a.ndim = static_cast<int>(p.shape.size());
  for (int d = 0; d < a.ndim; ++d) a.shape[d] = p.shape[a.ndim - 1 - d];
  const int64_t isz = static_cast<int64_t>(p.self.element_size());
  SmallVector<Tensor, 8> expanded;  // keeps the expanded views alive during the call
  for (int64_t k = 0; k < p.self.dim(); ++k) {
    if (!p.index[k].defined()) continue;
    Tensor e = p.index[k].expand(p.shape);
    const int j = a.nindex++;
    a.data[j] = e.data_ptr<int64_t>();
    for (int d = 0; d < a.ndim; ++d) a.strides[j][d] = e.strides()[a.ndim - 1 - d];
    a.dim_size[j] = p.self.sizes()[k];
    a.dim_stride[j] = p.self.strides()[k] * isz;
    a.dim[j] = k;
    expanded.push_back(std::move(e));
  }
  a.out = out.data_ptr<int64_t>();
  cpu::index_offsets_stub(a);
  return out;
}

// Appends one dim to a block (callers go innermost first), dropping size-1 dims and folding
// a dim into the previous one when both sides step through them as one.
void push_dim(cpu::IndexBlock& b, int64_t size, int64_t dst, int64_t src) {
  b.numel *= size;
  if (size == 1) return;
  if (b.ndim > 0) {
    const int i = b.ndim - 1;
    if (dst == b.dst[i] * b.sizes[i] && src == b.src[i] * b.sizes[i]) {
      b.sizes[i] *= size;
      return;
    }
  }
  b.sizes[b.ndim] = size;
  b.dst[b.ndim] = dst;
  b.src[b.ndim] = src;
  ++b.ndim;
}

// The loop for `other` (the result of index, or the values of index_put_, shaped like the
// result) against plan.self. `self_is_dst` for index_put_.
void run_index_loop(const IndexPlan& p, const Tensor& other, bool self_is_dst, bool accumulate) {
  Tensor offsets = index_offsets(p);
  if (compute_numel(p.result) == 0) return;
  const Tensor& self = p.self;
  const int64_t isz = static_cast<int64_t>(self.element_size());
  cpu::IndexLoop L;
  L.dtype = self.dtype();
  L.offsets = offsets.data_ptr<int64_t>();
  L.offsets_on_dst = self_is_dst;
  L.unique = p.single_mask;
  char* self_ptr = static_cast<char*>(self.data_ptr());
  char* other_ptr = static_cast<char*>(other.data_ptr());
  L.dst = self_is_dst ? self_ptr : other_ptr;
  L.src = self_is_dst ? other_ptr : self_ptr;
  auto push = [&](cpu::IndexBlock& b, int64_t size, int64_t self_stride, int64_t other_stride) {
    if (self_is_dst) push_dim(b, size, self_stride, other_stride);
    else push_dim(b, size, other_stride, self_stride);
  };
  // Result dims: [outer (n_outer), index (shape), inner (the rest)].
  const int64_t n_outer = p.adjacent ? p.first : 0, n_index = static_cast<int64_t>(p.shape.size());
  const int64_t nres = static_cast<int64_t>(p.result.size());
  IntArrayRef os = other.strides();
  SmallVector<int64_t, 8> inner_dims;  // self dim of each inner result dim
  if (p.adjacent) {
    for (int64_t k = p.last + 1; k < self.dim(); ++k) inner_dims.push_back(k);
  } else {
    for (int64_t k = 0; k < self.dim(); ++k)
      if (!p.index[k].defined()) inner_dims.push_back(k);
  }
  for (int64_t r = nres; r-- > n_outer + n_index;) {
    int64_t k = inner_dims[r - n_outer - n_index];
    push(L.inner, p.result[r], self.strides()[k] * isz, os[r] * isz);
  }
  for (int64_t r = n_outer + n_index; r-- > n_outer;) push(L.index, p.result[r], 0, os[r] * isz);
  for (int64_t r = n_outer; r-- > 0;) push(L.outer, p.result[r], self.strides()[r] * isz, os[r] * isz);
  cpu::index_stub(L, accumulate);
}

Tensor index_kernel(const Tensor& self, ArrayRef<std::optional<Tensor>> indices) {
  IndexPlan p = make_plan("index", self, indices, /*allow_unknown=*/false);
  Tensor out = empty(p.result, TensorOptions(self.dtype()).device(self.device()));
  if (self.is_meta()) return out;
  EMBER_CHECK(self.is_cpu(), NotImplementedError, "index(): no kernel for device ", self.device());
  run_index_loop(p, out, /*self_is_dst=*/false, false);
  return out;
}

// Whether the memory spans of two views of one storage intersect.
bool spans_overlap(const Tensor& a, const Tensor& b) {
  if (!a.is_alias_of(b) || a.numel() == 0 || b.numel() == 0) return false;
  auto extent = [](const Tensor& t) {
    int64_t lo = t.storage_offset(), hi = t.storage_offset();
    for (int64_t d = 0; d < t.dim(); ++d) {
      int64_t span = (t.sizes()[d] - 1) * t.strides()[d];
      if (span < 0) lo += span; else hi += span;
    }
    return std::pair<int64_t, int64_t>(lo, hi);
  };
  auto [alo, ahi] = extent(a);
  auto [blo, bhi] = extent(b);
  return alo <= bhi && blo <= ahi;
}

// self[mask] = scalar on the CPU: one masked pass over self instead of nonzero() and a
// scatter (PyTorch takes the same shortcut). Declines (false) whenever the general path
// has something to check or raise.
bool try_masked_fill(Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values,
                     bool accumulate) {
  if (accumulate || values.numel() != 1 || !self.is_cpu() || !values.is_cpu()) return false;
  if (values.dim() > 0 && values.dtype() != self.dtype()) return false;  // raises below
  int64_t pos = -1;
  for (size_t i = 0; i < indices.size(); ++i) {
    const auto& o = indices[i];
    if (!o || !o->defined()) continue;
    if (pos >= 0 || !is_mask(o->dtype()) || o->dim() == 0 || !o->is_cpu()) return false;
    pos = static_cast<int64_t>(i);
  }
  if (pos < 0) return false;
  const Tensor& m = *indices[pos];
  if (m.is_alias_of(self)) return false;  // the mask must be read before anything is written
  const int64_t k = m.dim();
  if (static_cast<int64_t>(indices.size()) - 1 + k > self.dim()) return false;
  for (int64_t j = 0; j < k; ++j)
    if (m.sizes()[j] != self.sizes()[pos + j]) return false;
  if (values.dim() > self.dim() - k + 1) return false;
  Tensor full = m;  // the mask over all of self's dims
  for (int64_t i = 0; i < pos; ++i) full = full.unsqueeze(0);
  while (full.dim() < self.dim()) full = full.unsqueeze(full.dim());
  full = full.expand(self.sizes());
  Tensor v = values.to(self.dtype());
  IterConfig cfg;  // self receives bytes of its own dtype; the mask is read as is
  cfg.promote_inputs = false;
  cfg.cast_inputs = false;
  cfg.check_output_cast = false;
  cfg.output_dtype = self.dtype();
  ElementwiseIter it("index_put_", self, {full}, cfg);
  cpu::masked_fill_stub.get()(it, v.data_ptr());
  it.finish();
  return true;
}

Tensor& index_put_kernel(Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values_in,
                         bool accumulate) {
  EMBER_CHECK(values_in.defined(), ValueError, "index_put_(): got an undefined values tensor");
  EMBER_CHECK(!has_internal_overlap(self), RuntimeError,
              "index_put_(): unsupported operation: more than one element of the written-to tensor "
              "refers to a single memory location. Please clone() the tensor before performing the "
              "operation.");
  Tensor values = values_in;
  if (values.device() != self.device()) {
    EMBER_CHECK(values.dim() == 0 && values.is_cpu(), RuntimeError,
                "index_put_(): expected values on ", self.device(), " like self, got ", values.device());
    values = to_device(values, self.device());
  }
  if (try_masked_fill(self, indices, values, accumulate)) return self;
  // As in PyTorch, values must have self's dtype, except Python numbers and a 0-dim value
  // under a single boolean mask (a masked fill, which converts).
  int64_t defined = 0, masks = 0;
  for (const auto& o : indices) {
    defined += o && o->defined();
    masks += o && o->defined() && is_mask(o->dtype()) && o->dim() > 0;
  }
  const bool mask_fill = !accumulate && values.dim() == 0 && defined == 1 && masks == 1;
  EMBER_CHECK(values.dtype() == self.dtype() || values.impl()->is_wrapped_number() || mask_fill, RuntimeError,
              "Index put requires the source and destination dtypes match, got ", self.dtype(),
              " for the destination and ", values.dtype(), " for the source.");
  IndexPlan p = make_plan("index_put_", self, indices, /*allow_unknown=*/self.is_meta());
  if (p.unknown) return self;
  // Values broadcast to the indexed shape (leading dims may be missing, never extra).
  bool fits = values.dim() <= static_cast<int64_t>(p.result.size());
  for (int64_t i = 1; fits && i <= values.dim(); ++i) {
    int64_t v = values.sizes()[values.dim() - i], r = p.result[p.result.size() - i];
    fits = v == r || v == 1;
  }
  EMBER_CHECK(fits, RuntimeError, "shape mismatch: value tensor of shape ", values.sizes(),
              " cannot be broadcast to indexing result of shape ", IntArrayRef(p.result));
  if (self.is_meta()) return self;
  EMBER_CHECK(self.is_cpu(), NotImplementedError, "index_put_(): no kernel for device ", self.device());
  if (spans_overlap(self, values)) {
    const bool same_view = self.data_ptr() == values.data_ptr() && self.sizes().equals(values.sizes()) &&
                           self.strides().equals(values.strides());
    EMBER_CHECK(same_view, RuntimeError,
                "index_put_(): unsupported operation: some elements of the input tensor and the "
                "written-to tensor refer to a single memory location. Please clone() the tensor "
                "before performing the operation.");
    values = values.clone();  // writes would otherwise change values still to be read
  }
  if (values.dtype() != self.dtype()) values = values.to(self.dtype());
  run_index_loop(p, values.expand(p.result), /*self_is_dst=*/true, accumulate);
  self.bump_version();
  return self;
}

// Composite: broadcast, then index with the mask (one mask: a 1-D result in row-major order).
Tensor masked_select_composite(const Tensor& self, const Tensor& mask) {
  EMBER_CHECK(self.defined() && mask.defined(), ValueError, "masked_select(): got an undefined tensor");
  EMBER_CHECK(is_mask(mask.dtype()), RuntimeError, "masked_select: expected BoolTensor or ByteTensor for mask");
  IntArrayRef a = self.sizes(), b = mask.sizes();
  const size_t n = std::max(a.size(), b.size());
  DimVector shape(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    EMBER_CHECK(x == y || x == 1 || y == 1, RuntimeError, "The size of tensor a (", x,
                ") must match the size of tensor b (", y, ") at non-singleton dimension ", i);
    shape[i] = x == 1 ? y : x;
  }
  EMBER_CHECK(!mask.is_meta() && !self.is_meta(), NotImplementedError,
              "Could not run 'masked_select' with arguments from the 'Meta' backend: the result's "
              "shape depends on the mask's values");
  std::optional<Tensor> m = mask.expand(shape);
  return index(self.expand(shape), ArrayRef<std::optional<Tensor>>(m));
}

Tensor nonzero_cpu(const Tensor& self) {
  EMBER_CHECK(self.defined(), ValueError, "nonzero(): got an undefined tensor");
  return cpu::nonzero_stub.get()(self);
}
Tensor nonzero_meta(const Tensor& self) {
  EMBER_FAIL(NotImplementedError, "Could not run 'nonzero' with arguments from the 'Meta' backend: "
             "the result's shape depends on the tensor's values");
}

}  // namespace

Tensor index(const Tensor& self, ArrayRef<std::optional<Tensor>> indices) {
  static const TypedOp<IndexSig> op("index.Tensor");
  return op.call(self, indices);
}
Tensor& index_put_(Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values,
                   bool accumulate) {
  static const TypedOp<IndexPutSig> op("index_put_");
  return op.call(self, indices, values, accumulate);
}
Tensor masked_select(const Tensor& self, const Tensor& mask) {
  static const TypedOp<MaskedSelectSig> op("masked_select");
  return op.call(self, mask);
}
Tensor nonzero(const Tensor& self) {
  static const TypedOp<NonzeroSig> op("nonzero");
  return op.call(self);
}

EMBER_REGISTER(index_ops) {
  define_op<IndexSig>("index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", Tag::Internal);
  register_kernel<IndexSig, &index_kernel>("index.Tensor", DispatchKey::CPU);
  register_kernel<IndexSig, &index_kernel>("index.Tensor", DispatchKey::Meta);

  define_op<IndexPutSig>(
      "index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)",
      static_cast<uint32_t>(Tag::Inplace));
  register_kernel<IndexPutSig, &index_put_kernel>("index_put_", DispatchKey::CPU);
  register_kernel<IndexPutSig, &index_put_kernel>("index_put_", DispatchKey::Meta);

  define_op<MaskedSelectSig>("masked_select(Tensor self, Tensor mask) -> Tensor");
  register_composite<MaskedSelectSig, &masked_select_composite>("masked_select");

  define_op<NonzeroSig>("nonzero(Tensor self) -> Tensor");
  register_kernel<NonzeroSig, &nonzero_cpu>("nonzero", DispatchKey::CPU);
  register_kernel<NonzeroSig, &nonzero_meta>("nonzero", DispatchKey::Meta);
}

}  // namespace ember
