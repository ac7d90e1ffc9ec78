// View ops: new sizes, strides and offset over the same storage; nothing is copied.
#include <algorithm>
#include <numeric>

#include "autograd/view.h"
#include "ember/fx/trace.h"
#include "ember/ops.h"
#include "functional/batched.h"

namespace ember {

int64_t wrap_dim(int64_t dim, int64_t ndim, std::string_view op) {
  int64_t n = std::max<int64_t>(ndim, 1);  // a 0-dim tensor accepts dims -1 and 0
  EMBER_CHECK(dim >= -n && dim < n, IndexError, op.empty() ? "" : op, op.empty() ? "" : "(): ",
              "Dimension out of range (expected to be in range of [", -n, ", ", n - 1, "], but got ",
              dim, ")");
  return dim < 0 ? dim + n : dim;
}

namespace {

// dtype: for views that reinterpret the elements (view(dtype), view_as_real, ...).
Tensor make_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                 std::optional<ScalarType> dtype = std::nullopt) {
  if (base.key_set().has(DispatchKey::Vmap)) [[unlikely]]  // vmap: the same view of the batched value
    return func::detail::batched_view(base, sizes, strides, offset, dtype);
  auto impl = Ref<TensorImpl>::make(base.storage(), dtype.value_or(base.dtype()), sizes, strides, offset);
  impl->add_keys(base.key_set());
  impl->set_inference(base.is_inference());  // a view is an inference tensor exactly when its base is
  impl->set_view_base(base.impl()->view_base() ? Ref<TensorImpl>(base.impl()->view_base()) : base.impl_ref());
  Tensor view(std::move(impl));
  if (base.key_set().has(DispatchKey::Autograd)) autograd::record_view(base, view);
  // View methods are not dispatched ops: the C++ tracer learns of them here.
  fx::report_view(base, view);
  return view;
}

// Resolves one -1 in a requested shape; RuntimeError if the element count cannot match.
DimVector infer_size(IntArrayRef shape, int64_t numel) {
  DimVector res(shape);
  int64_t known = 1;
  int64_t infer = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      EMBER_CHECK(infer < 0, RuntimeError, "only one dimension can be inferred");
      infer = static_cast<int64_t>(i);
    } else {
      EMBER_CHECK(shape[i] >= 0, RuntimeError, "invalid shape dimension ", shape[i]);
      known *= shape[i];
    }
  }
  if (infer >= 0) {
    EMBER_CHECK(known != 0, RuntimeError, "cannot reshape tensor of 0 elements into shape ", shape,
                " because the unspecified dimension size -1 can be any value and is ambiguous");
    EMBER_CHECK(numel % known == 0, RuntimeError, "shape '", shape, "' is invalid for input of size ", numel);
    res[infer] = numel / known;
  } else {
    EMBER_CHECK(known == numel, RuntimeError, "shape '", shape, "' is invalid for input of size ", numel);
  }
  return res;
}

// Strides for viewing (sizes, strides) as new_sizes without copying, if possible
// (the algorithm of PyTorch's computeStride: chunks of contiguous dims can be re-split).
std::optional<DimVector> view_strides(IntArrayRef sizes, IntArrayRef strides, IntArrayRef new_sizes) {
  if (sizes.empty()) return DimVector(new_sizes.size(), 1);
  int64_t numel = compute_numel(sizes);
  if (numel == 0) {
    if (sizes.equals(new_sizes)) return DimVector(strides);
    return contiguous_strides(new_sizes);
  }
  DimVector out(new_sizes.size());
  int64_t view_d = static_cast<int64_t>(new_sizes.size()) - 1;
  int64_t chunk_base_stride = strides.back();
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t d = static_cast<int64_t>(sizes.size()) - 1; d >= 0; --d) {
    tensor_numel *= sizes[d];
    if (d == 0 || (sizes[d - 1] != 1 && strides[d - 1] != tensor_numel * chunk_base_stride)) {
      while (view_d >= 0 && (view_numel < tensor_numel || new_sizes[view_d] == 1)) {
        out[view_d] = view_numel * chunk_base_stride;
        view_numel *= new_sizes[view_d];
        --view_d;
      }
      if (view_numel != tensor_numel) return std::nullopt;
      if (d > 0) {
        chunk_base_stride = strides[d - 1];
        tensor_numel = 1;
        view_numel = 1;
      }
    }
  }
  if (view_d != -1) return std::nullopt;
  return out;
}

}  // namespace

int64_t Tensor::size(int64_t d) const { return sizes()[wrap_dim(d, dim(), "size")]; }
int64_t Tensor::stride(int64_t d) const { return strides()[wrap_dim(d, dim(), "stride")]; }

Tensor Tensor::view(IntArrayRef new_shape) const {
  DimVector shape = infer_size(new_shape, numel());
  auto st = view_strides(sizes(), strides(), shape);
  EMBER_CHECK(st.has_value(), RuntimeError,
              "view size is not compatible with input tensor's size and stride (at least one "
              "dimension spans across two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(*this, shape, *st, storage_offset());
}

Tensor Tensor::view(ScalarType dtype) const {
  if (dtype == this->dtype()) return alias();
  EMBER_CHECK(itemsize(dtype) == element_size(), RuntimeError, "view(dtype): cannot view a ",
              this->dtype(), " tensor as ", dtype, ": element sizes differ (", element_size(),
              " vs ", itemsize(dtype), " bytes)");
  Tensor t = make_view(*this, sizes(), strides(), storage_offset(), dtype);
  return t;
}

Tensor Tensor::reshape(IntArrayRef new_shape) const {
  DimVector shape = infer_size(new_shape, numel());
  if (auto st = view_strides(sizes(), strides(), shape))
    return make_view(*this, shape, *st, storage_offset());
  return clone().view(shape);
}

Tensor Tensor::flatten(int64_t start_dim, int64_t end_dim) const {
  if (dim() == 0) return reshape({1});
  int64_t s = wrap_dim(start_dim, dim(), "flatten"), e = wrap_dim(end_dim, dim(), "flatten");
  EMBER_CHECK(s <= e, RuntimeError, "flatten() has invalid args: start_dim cannot come after end_dim");
  if (s == e) return *this;
  DimVector shape;
  for (int64_t d = 0; d < s; ++d) shape.push_back(sizes()[d]);
  int64_t prod = 1;
  for (int64_t d = s; d <= e; ++d) prod *= sizes()[d];
  shape.push_back(prod);
  for (int64_t d = e + 1; d < dim(); ++d) shape.push_back(sizes()[d]);
  return reshape(shape);
}

Tensor Tensor::unflatten(int64_t d, IntArrayRef new_sizes) const {
  d = wrap_dim(d, dim(), "unflatten");
  EMBER_CHECK(!new_sizes.empty(), RuntimeError, "unflatten: sizes must be non-empty");
  DimVector inferred = infer_size(new_sizes, sizes()[d]);
  DimVector shape;
  for (int64_t i = 0; i < d; ++i) shape.push_back(sizes()[i]);
  for (int64_t s : inferred) shape.push_back(s);
  for (int64_t i = d + 1; i < dim(); ++i) shape.push_back(sizes()[i]);
  return view(shape);
}

Tensor Tensor::permute(IntArrayRef dims) const {
  EMBER_CHECK(static_cast<int64_t>(dims.size()) == dim(), RuntimeError,
              "permute(): number of dimensions in the tensor input does not match the length of "
              "the desired ordering of dimensions i.e. input.dim() = ", dim(),
              " is not equal to len(dims) = ", dims.size());
  DimVector sz(dims.size()), st(dims.size());
  SmallVector<bool, 8> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = wrap_dim(dims[i], dim(), "permute");
    EMBER_CHECK(!seen[d], RuntimeError, "permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sz[i] = sizes()[d];
    st[i] = strides()[d];
  }
  return make_view(*this, sz, st, storage_offset());
}

Tensor Tensor::transpose(int64_t d0, int64_t d1) const {
  if (dim() == 0) { wrap_dim(d0, 0, "transpose"); wrap_dim(d1, 0, "transpose"); return alias(); }
  d0 = wrap_dim(d0, dim(), "transpose");
  d1 = wrap_dim(d1, dim(), "transpose");
  DimVector sz(sizes()), st(strides());
  std::swap(sz[d0], sz[d1]);
  std::swap(st[d0], st[d1]);
  return make_view(*this, sz, st, storage_offset());
}

Tensor Tensor::t() const {
  EMBER_CHECK(dim() <= 2, RuntimeError, "t() expects a tensor with <= 2 dimensions, but self is ",
              dim(), "D");
  return dim() < 2 ? alias() : transpose(0, 1);
}

Tensor Tensor::mT() const {
  EMBER_CHECK(dim() >= 2, RuntimeError, "tensor.mT is only supported on matrices or batches of "
              "matrices. Got ", dim(), "-D tensor.");
  return transpose(-2, -1);
}

Tensor Tensor::expand(IntArrayRef target) const {
  EMBER_CHECK(static_cast<int64_t>(target.size()) >= dim(), RuntimeError,
              "expand(", dtype(), "{", sizes(), "}, size=", target,
              "): the number of sizes provided (", target.size(),
              ") must be greater or equal to the number of dimensions in the tensor (", dim(), ")");
  int64_t n = static_cast<int64_t>(target.size());
  DimVector sz(n), st(n);
  for (int64_t i = n - 1; i >= 0; --i) {
    int64_t src = i - (n - dim());
    int64_t size = src >= 0 ? sizes()[src] : 1;
    int64_t stride = src >= 0 ? strides()[src] : 0;
    int64_t want = target[i];
    if (want == -1) {
      EMBER_CHECK(src >= 0, RuntimeError, "The expanded size of the tensor (-1) isn't allowed in a "
                  "leading, non-existing dimension ", i);
      want = size;
    }
    EMBER_CHECK(want >= 0, RuntimeError, "expand(): invalid size ", want);
    if (size != want) {
      EMBER_CHECK(size == 1, RuntimeError, "The expanded size of the tensor (", want,
                  ") must match the existing size (", size, ") at non-singleton dimension ", i,
                  ".  Target sizes: ", target, ".  Tensor sizes: ", sizes());
      stride = 0;
    }
    sz[i] = want;
    st[i] = stride;
  }
  return make_view(*this, sz, st, storage_offset());
}

Tensor Tensor::squeeze() const {
  DimVector sz, st;
  for (int64_t d = 0; d < dim(); ++d)
    if (sizes()[d] != 1) { sz.push_back(sizes()[d]); st.push_back(strides()[d]); }
  return make_view(*this, sz, st, storage_offset());
}

Tensor Tensor::squeeze(int64_t d) const {
  d = wrap_dim(d, dim(), "squeeze");
  if (dim() == 0 || sizes()[d] != 1) return alias();
  DimVector sz(sizes()), st(strides());
  sz.erase(d);
  st.erase(d);
  return make_view(*this, sz, st, storage_offset());
}

Tensor Tensor::unsqueeze(int64_t d) const {
  d = wrap_dim(d, dim() + 1, "unsqueeze");
  DimVector sz(sizes()), st(strides());
  int64_t stride = d < dim() ? sizes()[d] * strides()[d] : 1;
  sz.insert(d, 1);
  st.insert(d, stride);
  return make_view(*this, sz, st, storage_offset());
}

Tensor Tensor::narrow(int64_t d, int64_t start, int64_t length) const {
  EMBER_CHECK(dim() > 0, RuntimeError, "narrow() cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim(), "narrow");
  int64_t cur = sizes()[d];
  EMBER_CHECK(start >= -cur && start <= cur, IndexError, "start out of range (expected to be in "
              "range of [", -cur, ", ", cur, "], but got ", start, ")");
  if (start < 0) start += cur;
  EMBER_CHECK(length >= 0 && start <= cur - length, RuntimeError, "start (", start, ") + length (",
              length, ") exceeds dimension size (", cur, ").");
  return slice(d, start, start + length, 1);
}

Tensor Tensor::select(int64_t d, int64_t index) const {
  EMBER_CHECK(dim() > 0, IndexError, "select() cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim(), "select");
  int64_t size = sizes()[d];
  EMBER_CHECK(index >= -size && index < size, IndexError, "select(): index ", index,
              " out of range for tensor of size ", sizes(), " at dimension ", d);
  if (index < 0) index += size;
  DimVector sz(sizes()), st(strides());
  int64_t offset = storage_offset() + index * st[d];
  sz.erase(d);
  st.erase(d);
  return make_view(*this, sz, st, offset);
}

Tensor Tensor::slice(int64_t d, std::optional<int64_t> start_opt, std::optional<int64_t> end_opt,
                     int64_t step) const {
  EMBER_CHECK(dim() > 0, IndexError, "slice() cannot be applied to a 0-dim tensor.");
  d = wrap_dim(d, dim(), "slice");
  EMBER_CHECK(step > 0, ValueError, "slice step must be positive");
  int64_t size = sizes()[d];
  // Python's clamping rules.
  int64_t start = start_opt.value_or(0), end = end_opt.value_or(size);
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  int64_t len = (end - start + step - 1) / step;
  DimVector sz(sizes()), st(strides());
  int64_t offset = storage_offset() + start * st[d];
  sz[d] = len;
  st[d] *= step;
  return make_view(*this, sz, st, offset);
}

Tensor Tensor::as_strided(IntArrayRef sz, IntArrayRef st, std::optional<int64_t> offset_opt) const {
  EMBER_CHECK(sz.size() == st.size(), RuntimeError, "mismatch in length of strides and shape");
  int64_t offset = offset_opt.value_or(storage_offset());
  EMBER_CHECK(offset >= 0, RuntimeError, "Tensor: invalid storage offset ", offset);
  int64_t max_index = offset;
  for (size_t i = 0; i < sz.size(); ++i) {
    EMBER_CHECK(sz[i] >= 0, RuntimeError, "as_strided: negative size ", sz[i]);
    EMBER_CHECK(st[i] >= 0, RuntimeError, "as_strided: Negative strides are not supported at the moment, got strides: ", st);
    if (sz[i] == 0) { max_index = -1; break; }
    max_index += (sz[i] - 1) * st[i];
  }
  int64_t avail = static_cast<int64_t>(storage()->nbytes() / element_size());
  EMBER_CHECK(max_index < avail, RuntimeError, "setStorage: sizes ", sz, ", strides ", st,
              ", storage offset ", offset, ", and itemsize ", element_size(),
              " requiring a storage size of ", (max_index + 1) * static_cast<int64_t>(element_size()),
              " are out of bounds for storage of size ", storage()->nbytes());
  return make_view(*this, sz, st, offset);
}

Tensor Tensor::unfold(int64_t d, int64_t size, int64_t step) const {
  int64_t nd = std::max<int64_t>(dim(), 1);
  d = wrap_dim(d, nd, "unfold");
  int64_t cur = dim() == 0 ? 1 : sizes()[d];
  EMBER_CHECK(size <= cur, RuntimeError, "maximum size for tensor at dimension ", d, " is ", cur,
              " but size is ", size);
  EMBER_CHECK(step > 0, RuntimeError, "step is ", step, " but must be > 0");
  DimVector sz, st;
  for (int64_t i = 0; i < dim(); ++i) {
    if (i == d) {
      sz.push_back((cur - size) / step + 1);
      st.push_back(step * strides()[i]);
    } else {
      sz.push_back(sizes()[i]);
      st.push_back(strides()[i]);
    }
  }
  sz.push_back(size);
  st.push_back(dim() == 0 ? 1 : strides()[d]);
  return make_view(*this, sz, st, storage_offset());
}

Tensor Tensor::diagonal(int64_t offset, int64_t dim1, int64_t dim2) const {
  EMBER_CHECK(dim() >= 2, RuntimeError, "diagonal(): expected a tensor with at least 2 dimensions, got ", dim());
  int64_t d1 = wrap_dim(dim1, dim(), "diagonal"), d2 = wrap_dim(dim2, dim(), "diagonal");
  EMBER_CHECK(d1 != d2, RuntimeError, "diagonal dimensions cannot be identical ", dim1, ", ", dim2);
  int64_t len, off = storage_offset();
  if (offset >= 0) {
    len = std::max<int64_t>(std::min(sizes()[d1], sizes()[d2] - offset), 0);
    if (len > 0) off += offset * strides()[d2];
  } else {
    len = std::max<int64_t>(std::min(sizes()[d1] + offset, sizes()[d2]), 0);
    if (len > 0) off -= offset * strides()[d1];
  }
  DimVector sz, st;
  for (int64_t i = 0; i < dim(); ++i)
    if (i != d1 && i != d2) { sz.push_back(sizes()[i]); st.push_back(strides()[i]); }
  sz.push_back(len);
  st.push_back(strides()[d1] + strides()[d2]);
  return make_view(*this, sz, st, off);
}

Tensor Tensor::view_as_real() const {
  EMBER_CHECK(is_complex(), RuntimeError, "view_as_real is only supported for complex tensors");
  DimVector sz(sizes()), st(strides());
  for (auto& s : st) s *= 2;
  sz.push_back(2);
  st.push_back(1);
  Tensor t = make_view(*this, sz, st, storage_offset() * 2, to_real_type(dtype()));
  return t;
}

Tensor Tensor::view_as_complex() const {
  EMBER_CHECK(dtype() == kFloat || dtype() == kDouble, RuntimeError,
              "view_as_complex is only supported for float and double tensors, but got a tensor of "
              "scalar type: ", dtype());
  EMBER_CHECK(dim() >= 1 && sizes().back() == 2, RuntimeError,
              "Tensor must have a last dimension of size 2");
  EMBER_CHECK(strides().back() == 1, RuntimeError, "Tensor must have a last dimension with stride 1");
  DimVector sz, st;
  for (int64_t i = 0; i + 1 < dim(); ++i) {
    EMBER_CHECK(strides()[i] % 2 == 0, RuntimeError, "Tensor must have a stride divisible by 2 for all but last dimension");
    sz.push_back(sizes()[i]);
    st.push_back(strides()[i] / 2);
  }
  EMBER_CHECK(storage_offset() % 2 == 0, RuntimeError, "Tensor must have a storage_offset divisible by 2");
  Tensor t = make_view(*this, sz, st, storage_offset() / 2, to_complex_type(dtype()));
  return t;
}

Tensor Tensor::real() const { return is_complex() ? view_as_real().select(-1, 0) : alias(); }
Tensor Tensor::imag() const {
  EMBER_CHECK(is_complex(), RuntimeError, "imag is not implemented for tensors with non-complex dtypes.");
  return view_as_real().select(-1, 1);
}

Tensor Tensor::alias() const { return make_view(*this, sizes(), strides(), storage_offset()); }

}  // namespace ember
