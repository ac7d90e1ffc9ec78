// Shape ops that return views of their input (no data is copied): chunk, split,
// split_with_sizes, tensor_split, hsplit/vsplit/dsplit, unbind, movedim/moveaxis,
// swapaxes/swapdims, broadcast_to, broadcast_tensors, meshgrid, atleast_1d/2d/3d, and
// ravel (a view when self's layout allows it, else a copy, like reshape).
//
// They are composites built from the Tensor view methods (ops/view.cpp), so they work on
// every backend; semantics and error messages are PyTorch 1.13's.
#include <algorithm>
#include <vector>

#include "ember/dispatch.h"
#include "ember/ops.h"

namespace ember {
namespace {

using Tensors = std::vector<Tensor>;

// ---------------------------------------------------------------- split family

Tensors split_with_sizes_composite(const Tensor& self, IntArrayRef sizes, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, RuntimeError, "split expects at least a 1-dimensional tensor");
  const int64_t d = wrap_dim(dim, self.dim(), "split_with_sizes");
  const int64_t n = self.sizes()[d];
  int64_t total = 0;
  for (int64_t s : sizes) {
    EMBER_CHECK(s >= 0, RuntimeError, "split_with_sizes expects split_sizes have only non-negative entries, but got "
                "split_sizes=", sizes);
    total += s;
  }
  EMBER_CHECK(total == n, RuntimeError, "split_with_sizes expects split_sizes to sum exactly to ", n,
              " (input tensor's size at dimension ", d, "), but got split_sizes=", sizes);
  Tensors out;
  out.reserve(sizes.size());
  int64_t start = 0;
  for (int64_t s : sizes) {
    out.push_back(self.narrow(d, start, s));
    start += s;
  }
  return out;
}

Tensors split_composite(const Tensor& self, int64_t split_size, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, RuntimeError, "split expects at least a 1-dimensional tensor");
  EMBER_CHECK(split_size >= 0, RuntimeError, "split expects split_size be non-negative, but got split_size=",
              split_size);
  const int64_t d = wrap_dim(dim, self.dim(), "split");
  const int64_t n = self.sizes()[d];
  EMBER_CHECK(split_size != 0 || n == 0, RuntimeError,
              "split_size can only be 0 if dimension size is 0, but got dimension size of ", n);
  const int64_t pieces = split_size == 0 ? 1 : std::max<int64_t>((n + split_size - 1) / split_size, 1);
  Tensors out;
  out.reserve(static_cast<size_t>(pieces));
  for (int64_t i = 0; i < pieces; ++i) {
    const int64_t start = i * split_size;
    out.push_back(self.narrow(d, start, std::min(split_size, n - start)));
  }
  return out;
}

Tensors chunk_composite(const Tensor& self, int64_t chunks, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, RuntimeError, "chunk expects at least a 1-dimensional tensor");
  EMBER_CHECK(chunks > 0, RuntimeError, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  const int64_t d = wrap_dim(dim, self.dim(), "chunk");
  const int64_t n = self.sizes()[d];
  const int64_t split_size = (n + chunks - 1) / chunks;
  if (split_size == 0 && n == 0) {  // `chunks` empty pieces
    return split_with_sizes_composite(self, DimVector(chunks, 0), d);
  }
  return split_composite(self, split_size, d);
}

Tensors tensor_split_sections_composite(const Tensor& self, int64_t sections, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, RuntimeError, "tensor_split expected at least a 1-dimensional tensor, but got a tensor "
              "with ", self.dim(), " dims");
  EMBER_CHECK(sections > 0, RuntimeError, "number of sections must be larger than 0, got ", sections);
  const int64_t d = wrap_dim(dim, self.dim(), "tensor_split");
  const int64_t n = self.sizes()[d], base = n / sections, extra = n % sections;
  Tensors out;
  int64_t start = 0;
  for (int64_t i = 0; i < sections; ++i) {
    const int64_t len = base + (i < extra ? 1 : 0);
    out.push_back(self.slice(d, start, start + len));
    start += len;
  }
  return out;
}

Tensors tensor_split_indices_composite(const Tensor& self, IntArrayRef indices, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, RuntimeError, "tensor_split expected at least a 1-dimensional tensor, but got a tensor "
              "with ", self.dim(), " dims");
  const int64_t d = wrap_dim(dim, self.dim(), "tensor_split");
  Tensors out;
  int64_t start = 0;
  for (int64_t end : indices) {  // Python slicing: negative counts from the end, clamped
    out.push_back(self.slice(d, start, end));
    start = end;
  }
  out.push_back(self.slice(d, start, std::nullopt));
  return out;
}

Tensors tensor_split_tensor_composite(const Tensor& self, const Tensor& spec, int64_t dim) {
  EMBER_CHECK(spec.is_cpu(), RuntimeError, "tensor_split expected tensor_indices_or_sections to be on cpu, but it's on ",
              spec.device());
  EMBER_CHECK(spec.dtype() == kInt64, RuntimeError,
              "tensor_split expected tensor_indices_or_sections to have dtype of long, but got ", spec.dtype());
  EMBER_CHECK(spec.dim() <= 1, RuntimeError, "tensor_split expected tensor_indices_or_sections to be a "
              "zero-dimensional or one-dimensional tensor, but got a tensor with ", spec.dim(), " dims");
  if (spec.dim() == 0) return tensor_split_sections_composite(self, spec.item<int64_t>(), dim);
  Tensor c = spec.contiguous();
  return tensor_split_indices_composite(self, IntArrayRef(c.data_ptr<int64_t>(), static_cast<size_t>(c.numel())), dim);
}

// hsplit / vsplit / dsplit: tensor_split along dim 1 (0 for 1-D), 0 or 2.
Tensors xsplit_sections(const char* name, const Tensor& self, int64_t min_dims, int64_t dim, int64_t sections) {
  EMBER_CHECK(self.dim() >= min_dims, RuntimeError, "torch.", name, " requires a tensor with at least ", min_dims,
              " dimension, but got a tensor with ", self.dim(), " dimensions!");
  const int64_t n = self.sizes()[dim];
  EMBER_CHECK(sections != 0 && n % sections == 0, RuntimeError, "torch.", name, " attempted to split along dimension ",
              dim, ", but the size of the dimension ", n, " is not divisible by the split_size ", sections, "!");
  return tensor_split_sections_composite(self, sections, dim);
}
Tensors xsplit_indices(const char* name, const Tensor& self, int64_t min_dims, int64_t dim, IntArrayRef indices) {
  EMBER_CHECK(self.dim() >= min_dims, RuntimeError, "torch.", name, " requires a tensor with at least ", min_dims,
              " dimension, but got a tensor with ", self.dim(), " dimensions!");
  return tensor_split_indices_composite(self, indices, dim);
}
Tensors hsplit_int(const Tensor& self, int64_t sections) {
  return xsplit_sections("hsplit", self, 1, self.dim() == 1 ? 0 : 1, sections);
}
Tensors hsplit_array(const Tensor& self, IntArrayRef indices) {
  return xsplit_indices("hsplit", self, 1, self.dim() == 1 ? 0 : 1, indices);
}
Tensors vsplit_int(const Tensor& self, int64_t sections) { return xsplit_sections("vsplit", self, 2, 0, sections); }
Tensors vsplit_array(const Tensor& self, IntArrayRef indices) { return xsplit_indices("vsplit", self, 2, 0, indices); }
Tensors dsplit_int(const Tensor& self, int64_t sections) { return xsplit_sections("dsplit", self, 3, 2, sections); }
Tensors dsplit_array(const Tensor& self, IntArrayRef indices) { return xsplit_indices("dsplit", self, 3, 2, indices); }

Tensors unbind_composite(const Tensor& self, int64_t dim) {
  EMBER_CHECK(self.dim() > 0, IndexError, "Dimension specified as ", dim, " but tensor has no dimensions");
  const int64_t d = wrap_dim(dim, self.dim(), "unbind");
  Tensors out;
  out.reserve(static_cast<size_t>(self.sizes()[d]));
  for (int64_t i = 0; i < self.sizes()[d]; ++i) out.push_back(self.select(d, i));
  return out;
}

// ---------------------------------------------------------------- moving dims

Tensor movedim_composite(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  EMBER_CHECK(source.size() == destination.size(), RuntimeError, "movedim: Invalid source or destination dims: source (",
              source, " dims) should contain the same number of dims as destination (", destination, " dims)");
  const int64_t nd = self.dim();
  const int64_t n = std::max<int64_t>(nd, 1);
  SmallVector<int64_t, 8> perm(static_cast<size_t>(n), -1);
  SmallVector<bool, 8> src_used(static_cast<size_t>(n), false), dst_used(static_cast<size_t>(n), false);
  for (size_t i = 0; i < source.size(); ++i) {
    const int64_t s = wrap_dim(source[i], nd, "movedim"), t = wrap_dim(destination[i], nd, "movedim");
    EMBER_CHECK(!src_used[s], RuntimeError, "movedim: repeated dim in `source` (", source, ")");
    EMBER_CHECK(!dst_used[t], RuntimeError, "movedim: repeated dim in `destination` (", destination, ")");
    src_used[s] = dst_used[t] = true;
    perm[t] = s;
  }
  if (nd == 0) return self.alias();
  // The other dims keep their order in the free destination slots.
  int64_t next = 0;
  for (int64_t t = 0; t < nd; ++t) {
    if (perm[t] >= 0) continue;
    while (src_used[next]) ++next;
    perm[t] = next++;
  }
  return self.permute(IntArrayRef(perm.data(), perm.size()));
}

Tensor movedim_int_composite(const Tensor& self, int64_t source, int64_t destination) {
  return movedim_composite(self, IntArrayRef(source), IntArrayRef(destination));
}

Tensor swapaxes_composite(const Tensor& self, int64_t a, int64_t b) { return self.transpose(a, b); }

// ---------------------------------------------------------------- broadcasting

Tensor broadcast_to_composite(const Tensor& self, IntArrayRef size) { return self.expand(size); }

Tensors broadcast_tensors_composite(TensorList tensors) {
  DimVector shape;
  for (const Tensor& t : tensors) shape = broadcast_pair(shape, t.sizes());
  Tensors out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(t.expand(shape));
  return out;
}

Tensors meshgrid_indexing_composite(TensorList tensors, std::string_view indexing) {
  EMBER_CHECK(!tensors.empty(), RuntimeError, "meshgrid expects a non-empty TensorList");
  for (size_t i = 0; i + 1 < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].dtype() == tensors[i + 1].dtype(), RuntimeError,
                "meshgrid expects all tensors to have the same dtype");
    EMBER_CHECK(tensors[i].device() == tensors[i + 1].device(), RuntimeError,
                "meshgrid expects all tensors to have the same device");
  }
  for (const Tensor& t : tensors)
    EMBER_CHECK(t.dim() <= 1, RuntimeError, "torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a "
                "tensor with ", t.dim(), " dimensions");
  EMBER_CHECK(indexing == "xy" || indexing == "ij", RuntimeError,
              "torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: ", indexing);
  // "xy" swaps the roles of the first two inputs (NumPy's Cartesian indexing).
  std::vector<Tensor> in(tensors.begin(), tensors.end());
  const bool swap = indexing == "xy" && in.size() >= 2;
  if (swap) std::swap(in[0], in[1]);
  const size_t n = in.size();
  DimVector shape(n);
  for (size_t i = 0; i < n; ++i) shape[i] = in[i].numel();
  Tensors out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    DimVector view(n, 1);
    view[i] = shape[i];
    out.push_back(in[i].view(view).expand(shape));
  }
  if (swap) std::swap(out[0], out[1]);
  return out;
}

Tensors meshgrid_composite(TensorList tensors) { return meshgrid_indexing_composite(tensors, "ij"); }

// ---------------------------------------------------------------- atleast_nd, ravel

Tensor atleast_1d_composite(const Tensor& self) { return self.dim() == 0 ? self.reshape({1}) : self.alias(); }
Tensor atleast_2d_composite(const Tensor& self) {
  if (self.dim() == 0) return self.reshape({1, 1});
  if (self.dim() == 1) return self.unsqueeze(0);
  return self.alias();
}
Tensor atleast_3d_composite(const Tensor& self) {
  if (self.dim() == 0) return self.reshape({1, 1, 1});
  if (self.dim() == 1) return self.unsqueeze(0).unsqueeze(-1);
  if (self.dim() == 2) return self.unsqueeze(-1);
  return self.alias();
}
template <Tensor (*F)(const Tensor&)>
Tensors atleast_seq(TensorList tensors) {
  Tensors out;
  out.reserve(tensors.size());
  for (const Tensor& t : tensors) out.push_back(F(t));
  return out;
}

Tensor ravel_composite(const Tensor& self) { return self.reshape({-1}); }

using SplitSig = Tensors(const Tensor&, int64_t, int64_t);
using SplitSizesSig = Tensors(const Tensor&, IntArrayRef, int64_t);
using SplitTensorSig = Tensors(const Tensor&, const Tensor&, int64_t);
using XsplitIntSig = Tensors(const Tensor&, int64_t);
using XsplitArraySig = Tensors(const Tensor&, IntArrayRef);
using UnbindSig = Tensors(const Tensor&, int64_t);
using MovedimSig = Tensor(const Tensor&, IntArrayRef, IntArrayRef);
using MovedimIntSig = Tensor(const Tensor&, int64_t, int64_t);
using BroadcastToSig = Tensor(const Tensor&, IntArrayRef);
using ListToListSig = Tensors(TensorList);
using MeshgridSig = Tensors(TensorList, std::string_view);
using UnarySig = Tensor(const Tensor&);


// ---------------------------------------------------------------- in-place view ops
// Rebind self to a view of itself: only sizes and strides change, the data stays (PyTorch
// leaves the version counter alone too).
Tensor& rebind_to(Tensor& self, const Tensor& view) {
  self.impl()->set_sizes_and_strides(view.sizes(), view.strides(), view.storage_offset());
  return self;
}
Tensor& transpose_inplace(Tensor& self, int64_t dim0, int64_t dim1) {
  return rebind_to(self, self.transpose(dim0, dim1));
}
Tensor& t_inplace(Tensor& self) { return rebind_to(self, self.t()); }
Tensor& squeeze_inplace(Tensor& self) { return rebind_to(self, self.squeeze()); }
Tensor& squeeze_dim_inplace(Tensor& self, int64_t dim) { return rebind_to(self, self.squeeze(dim)); }
Tensor& unsqueeze_inplace(Tensor& self, int64_t dim) { return rebind_to(self, self.unsqueeze(dim)); }

}  // namespace

// ---------------------------------------------------------------- front functions
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim) {
  static const TypedOp<SplitSig> op("split.Tensor");
  return op.call(self, split_size, dim);
}
std::vector<Tensor> split(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  static const TypedOp<SplitSizesSig> op("split.sizes");
  return op.call(self, split_sizes, dim);
}
std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim) {
  static const TypedOp<SplitSizesSig> op("split_with_sizes");
  return op.call(self, split_sizes, dim);
}
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim) {
  static const TypedOp<SplitSig> op("chunk");
  return op.call(self, chunks, dim);
}
std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim) {
  static const TypedOp<SplitSig> op("tensor_split.sections");
  return op.call(self, sections, dim);
}
std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim) {
  static const TypedOp<SplitSizesSig> op("tensor_split.indices");
  return op.call(self, indices, dim);
}
std::vector<Tensor> tensor_split(const Tensor& self, const Tensor& tensor_indices_or_sections, int64_t dim) {
  static const TypedOp<SplitTensorSig> op("tensor_split.tensor_indices_or_sections");
  return op.call(self, tensor_indices_or_sections, dim);
}
std::vector<Tensor> hsplit(const Tensor& self, int64_t sections) {
  static const TypedOp<XsplitIntSig> op("hsplit.int");
  return op.call(self, sections);
}
std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices) {
  static const TypedOp<XsplitArraySig> op("hsplit.array");
  return op.call(self, indices);
}
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections) {
  static const TypedOp<XsplitIntSig> op("vsplit.int");
  return op.call(self, sections);
}
std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices) {
  static const TypedOp<XsplitArraySig> op("vsplit.array");
  return op.call(self, indices);
}
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections) {
  static const TypedOp<XsplitIntSig> op("dsplit.int");
  return op.call(self, sections);
}
std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices) {
  static const TypedOp<XsplitArraySig> op("dsplit.array");
  return op.call(self, indices);
}
std::vector<Tensor> unbind(const Tensor& self, int64_t dim) {
  static const TypedOp<UnbindSig> op("unbind.int");
  return op.call(self, dim);
}
Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  static const TypedOp<MovedimSig> op("movedim.intlist");
  return op.call(self, source, destination);
}
Tensor movedim(const Tensor& self, int64_t source, int64_t destination) {
  static const TypedOp<MovedimIntSig> op("movedim.int");
  return op.call(self, source, destination);
}
Tensor moveaxis(const Tensor& self, IntArrayRef source, IntArrayRef destination) {
  static const TypedOp<MovedimSig> op("moveaxis.intlist");
  return op.call(self, source, destination);
}
Tensor moveaxis(const Tensor& self, int64_t source, int64_t destination) {
  static const TypedOp<MovedimIntSig> op("moveaxis.int");
  return op.call(self, source, destination);
}
Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1) {
  static const TypedOp<MovedimIntSig> op("swapaxes");
  return op.call(self, axis0, axis1);
}
Tensor swapdims(const Tensor& self, int64_t dim0, int64_t dim1) {
  static const TypedOp<MovedimIntSig> op("swapdims");
  return op.call(self, dim0, dim1);
}
Tensor broadcast_to(const Tensor& self, IntArrayRef size) {
  static const TypedOp<BroadcastToSig> op("broadcast_to");
  return op.call(self, size);
}
std::vector<Tensor> broadcast_tensors(TensorList tensors) {
  static const TypedOp<ListToListSig> op("broadcast_tensors");
  return op.call(tensors);
}
std::vector<Tensor> meshgrid(TensorList tensors, std::string_view indexing) {
  EMBER_CHECK(!tensors.empty(), RuntimeError, "meshgrid expects a non-empty TensorList");
  static const TypedOp<MeshgridSig> op("meshgrid.indexing");
  return op.call(tensors, indexing);
}
Tensor atleast_1d(const Tensor& self) {
  static const TypedOp<UnarySig> op("atleast_1d");
  return op.call(self);
}
Tensor atleast_2d(const Tensor& self) {
  static const TypedOp<UnarySig> op("atleast_2d");
  return op.call(self);
}
Tensor atleast_3d(const Tensor& self) {
  static const TypedOp<UnarySig> op("atleast_3d");
  return op.call(self);
}
std::vector<Tensor> atleast_1d(TensorList tensors) {
  static const TypedOp<ListToListSig> op("atleast_1d.Sequence");
  return op.call(tensors);
}
std::vector<Tensor> atleast_2d(TensorList tensors) {
  static const TypedOp<ListToListSig> op("atleast_2d.Sequence");
  return op.call(tensors);
}
std::vector<Tensor> atleast_3d(TensorList tensors) {
  static const TypedOp<ListToListSig> op("atleast_3d.Sequence");
  return op.call(tensors);
}
Tensor ravel(const Tensor& self) {
  static const TypedOp<UnarySig> op("ravel");
  return op.call(self);
}

EMBER_REGISTER(shape_view_ops) {
  constexpr uint32_t kView = static_cast<uint32_t>(Tag::View);
  define_op<SplitSig>("split.Tensor(Tensor(a -> *) self, int split_size, int dim=0) -> Tensor(a)[]", kView);
  register_composite<SplitSig, &split_composite>("split.Tensor");
  define_op<SplitSizesSig>("split.sizes(Tensor(a -> *) self, int[] split_size, int dim=0) -> Tensor(a)[]", kView);
  register_composite<SplitSizesSig, &split_with_sizes_composite>("split.sizes");
  define_op<SplitSizesSig>("split_with_sizes(Tensor(a -> *) self, int[] split_sizes, int dim=0) -> Tensor(a)[]", kView);
  register_composite<SplitSizesSig, &split_with_sizes_composite>("split_with_sizes");
  define_op<SplitSig>("chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]", kView);
  register_composite<SplitSig, &chunk_composite>("chunk");
  define_op<SplitSig>("tensor_split.sections(Tensor(a -> *) self, int sections, int dim=0) -> Tensor(a)[]", kView);
  register_composite<SplitSig, &tensor_split_sections_composite>("tensor_split.sections");
  define_op<SplitSizesSig>("tensor_split.indices(Tensor(a -> *) self, int[] indices, int dim=0) -> Tensor(a)[]", kView);
  register_composite<SplitSizesSig, &tensor_split_indices_composite>("tensor_split.indices");
  define_op<SplitTensorSig>("tensor_split.tensor_indices_or_sections(Tensor(a -> *) self, Tensor "
                            "tensor_indices_or_sections, int dim=0) -> Tensor(a)[]", kView);
  register_composite<SplitTensorSig, &tensor_split_tensor_composite>("tensor_split.tensor_indices_or_sections");
  define_op<XsplitIntSig>("hsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]", kView);
  register_composite<XsplitIntSig, &hsplit_int>("hsplit.int");
  define_op<XsplitArraySig>("hsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]", kView);
  register_composite<XsplitArraySig, &hsplit_array>("hsplit.array");
  define_op<XsplitIntSig>("vsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]", kView);
  register_composite<XsplitIntSig, &vsplit_int>("vsplit.int");
  define_op<XsplitArraySig>("vsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]", kView);
  register_composite<XsplitArraySig, &vsplit_array>("vsplit.array");
  define_op<XsplitIntSig>("dsplit.int(Tensor(a -> *) self, int sections) -> Tensor(a)[]", kView);
  register_composite<XsplitIntSig, &dsplit_int>("dsplit.int");
  define_op<XsplitArraySig>("dsplit.array(Tensor(a -> *) self, int[] indices) -> Tensor(a)[]", kView);
  register_composite<XsplitArraySig, &dsplit_array>("dsplit.array");
  define_op<UnbindSig>("unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]", kView);
  register_composite<UnbindSig, &unbind_composite>("unbind.int");

  define_op<MovedimSig>("movedim.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)", kView);
  register_composite<MovedimSig, &movedim_composite>("movedim.intlist");
  define_op<MovedimIntSig>("movedim.int(Tensor(a) self, int source, int destination) -> Tensor(a)", kView);
  register_composite<MovedimIntSig, &movedim_int_composite>("movedim.int");
  define_op<MovedimSig>("moveaxis.intlist(Tensor(a) self, int[] source, int[] destination) -> Tensor(a)", kView);
  register_composite<MovedimSig, &movedim_composite>("moveaxis.intlist");
  define_op<MovedimIntSig>("moveaxis.int(Tensor(a) self, int source, int destination) -> Tensor(a)", kView);
  register_composite<MovedimIntSig, &movedim_int_composite>("moveaxis.int");
  define_op<MovedimIntSig>("swapaxes(Tensor(a) self, int axis0, int axis1) -> Tensor(a)", kView);
  register_composite<MovedimIntSig, &swapaxes_composite>("swapaxes");
  define_op<MovedimIntSig>("swapdims(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", kView);
  register_composite<MovedimIntSig, &swapaxes_composite>("swapdims");
  using SwapInplaceSig = Tensor&(Tensor&, int64_t, int64_t);
  using SelfInplaceSig = Tensor&(Tensor&);
  using DimInplaceSig = Tensor&(Tensor&, int64_t);
  define_op<SwapInplaceSig>("transpose_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)");
  register_composite<SwapInplaceSig, &transpose_inplace>("transpose_");
  define_op<SwapInplaceSig>("swapaxes_(Tensor(a!) self, int axis0, int axis1) -> Tensor(a!)");
  register_composite<SwapInplaceSig, &transpose_inplace>("swapaxes_");
  define_op<SwapInplaceSig>("swapdims_(Tensor(a!) self, int dim0, int dim1) -> Tensor(a!)");
  register_composite<SwapInplaceSig, &transpose_inplace>("swapdims_");
  define_op<SelfInplaceSig>("t_(Tensor(a!) self) -> Tensor(a!)");
  register_composite<SelfInplaceSig, &t_inplace>("t_");
  define_op<SelfInplaceSig>("squeeze_(Tensor(a!) self) -> Tensor(a!)");
  register_composite<SelfInplaceSig, &squeeze_inplace>("squeeze_");
  define_op<DimInplaceSig>("squeeze_.dim(Tensor(a!) self, int dim) -> Tensor(a!)");
  register_composite<DimInplaceSig, &squeeze_dim_inplace>("squeeze_.dim");
  define_op<DimInplaceSig>("unsqueeze_(Tensor(a!) self, int dim) -> Tensor(a!)");
  register_composite<DimInplaceSig, &unsqueeze_inplace>("unsqueeze_");

  define_op<BroadcastToSig>("broadcast_to(Tensor(a) self, int[] size) -> Tensor(a)", kView);
  register_composite<BroadcastToSig, &broadcast_to_composite>("broadcast_to");
  define_op<ListToListSig>("broadcast_tensors(Tensor[] tensors) -> Tensor[]", kView);
  register_composite<ListToListSig, &broadcast_tensors_composite>("broadcast_tensors");
  define_op<ListToListSig>("meshgrid(Tensor[] tensors) -> Tensor[]", kView);
  register_composite<ListToListSig, &meshgrid_composite>("meshgrid");
  define_op<MeshgridSig>("meshgrid.indexing(Tensor[] tensors, *, str indexing) -> Tensor[]", kView);
  register_composite<MeshgridSig, &meshgrid_indexing_composite>("meshgrid.indexing");

  define_op<UnarySig>("atleast_1d(Tensor self) -> Tensor", kView);
  register_composite<UnarySig, &atleast_1d_composite>("atleast_1d");
  define_op<ListToListSig>("atleast_1d.Sequence(Tensor[] tensors) -> Tensor[]", kView);
  register_composite<ListToListSig, &atleast_seq<&atleast_1d_composite>>("atleast_1d.Sequence");
  define_op<UnarySig>("atleast_2d(Tensor self) -> Tensor", kView);
  register_composite<UnarySig, &atleast_2d_composite>("atleast_2d");
  define_op<ListToListSig>("atleast_2d.Sequence(Tensor[] tensors) -> Tensor[]", kView);
  register_composite<ListToListSig, &atleast_seq<&atleast_2d_composite>>("atleast_2d.Sequence");
  define_op<UnarySig>("atleast_3d(Tensor self) -> Tensor", kView);
  register_composite<UnarySig, &atleast_3d_composite>("atleast_3d");
  define_op<ListToListSig>("atleast_3d.Sequence(Tensor[] tensors) -> Tensor[]", kView);
  register_composite<ListToListSig, &atleast_seq<&atleast_3d_composite>>("atleast_3d.Sequence");

  // A view when self's layout allows it, else a copy (like reshape): not tagged View.
  define_op<UnarySig>("ravel(Tensor(a) self) -> Tensor(a)");
  register_composite<UnarySig, &ravel_composite>("ravel");
}

}  // namespace ember
