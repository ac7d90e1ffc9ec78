// Joining: cat, cat's out= form, stack, hstack, vstack (row_stack), dstack, column_stack.
// Semantics of PyTorch 1.13:
//  - inputs promote to their common dtype (result_type); out= takes any dtype the result
//    casts to safely;
//  - 1-D tensors of shape [0] are skipped (the legacy rule), though they take part in
//    promotion; if every input is one, the result has shape [0] and `dim` is not checked;
//  - 0-dim inputs, mismatched ranks or sizes outside `dim` are errors naming the tensor.
// Contiguous inputs of the output's dtype are copied as memcpy chunks per outer index,
// threaded when the copy is large; other inputs go through copy_ into a narrowed view.
#include <omp.h>

#include <cstring>
#include <vector>

#include "backends/cpu/loops.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ops/iter.h"

namespace ember {

namespace {

bool legacy_empty(const Tensor& t) { return t.dim() == 1 && t.sizes()[0] == 0; }

// Byte range [lo, hi] of storage a tensor's elements occupy.
std::pair<int64_t, int64_t> extent(const Tensor& t) {
  const int64_t isz = static_cast<int64_t>(t.element_size());
  int64_t lo = t.storage_offset(), hi = t.storage_offset();
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t span = (t.sizes()[d] - 1) * t.strides()[d];
    if (span < 0) lo += span;
    else hi += span;
  }
  return {lo * isz, hi * isz + isz - 1};
}

bool overlaps(const Tensor& a, const Tensor& b) {
  if (a.numel() == 0 || b.numel() == 0 || !a.is_alias_of(b)) return false;
  auto [alo, ahi] = extent(a);
  auto [blo, bhi] = extent(b);
  return alo <= bhi && blo <= ahi;
}

struct CatPlan {
  ScalarType dtype;
  Device device;
  DimVector shape;
  int64_t dim = 0;
  bool all_skipped = false;
};

CatPlan plan_cat(TensorList tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), RuntimeError, "torch.cat(): expected a non-empty list of Tensors");
  CatPlan p;
  const Tensor* ref = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    EMBER_CHECK(t.defined(), ValueError, "torch.cat(): got an undefined tensor at position ", i);
    EMBER_CHECK(t.dim() > 0, RuntimeError, "zero-dimensional tensor (at position ", i, ") cannot be concatenated");
    EMBER_CHECK(t.device() == tensors[0].device(), RuntimeError,
                "Expected all tensors to be on the same device, but found at least two devices, ",
                tensors[0].device(), " and ", t.device(), "! (in torch.cat)");
    if (!ref && !legacy_empty(t)) ref = &t;
  }
  p.device = tensors[0].device();
  EMBER_CHECK(p.device.is_cpu() || p.device.is_meta(), NotImplementedError, "cat(): no kernel for device ", p.device);
  p.dtype = result_type(tensors);
  if (!ref) {
    p.all_skipped = true;
    p.shape = DimVector{0};
    return p;
  }
  const int64_t nd = ref->dim();
  p.dim = wrap_dim(dim, nd);
  p.shape = DimVector(ref->sizes());
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor& t = tensors[i];
    if (legacy_empty(t)) continue;
    EMBER_CHECK(t.dim() == nd, RuntimeError, "Tensors must have same number of dimensions: got ", nd, " and ",
                t.dim());
    for (int64_t d = 0; d < nd; ++d)
      EMBER_CHECK(d == p.dim || t.sizes()[d] == p.shape[d], RuntimeError,
                  "Sizes of tensors must match except in dimension ", p.dim, ". Expected size ", p.shape[d],
                  " but got size ", t.sizes()[d], " for tensor number ", i, " in the list.");
    total += t.sizes()[p.dim];
  }
  p.shape[p.dim] = total;
  return p;
}

// memcpy of every contiguous input's chunk per outer index.
void cat_memcpy(TensorList tensors, const CatPlan& p, const Tensor& out) {
  const int64_t isz = static_cast<int64_t>(out.element_size());
  int64_t outer = 1, inner = isz;
  for (int64_t d = 0; d < p.dim; ++d) outer *= p.shape[d];
  for (int64_t d = p.dim + 1; d < static_cast<int64_t>(p.shape.size()); ++d) inner *= p.shape[d];
  const int64_t row = p.shape[p.dim] * inner;  // bytes of out per outer index
  struct Piece { const char* src; int64_t bytes, offset; };
  std::vector<Piece> pieces;
  pieces.reserve(tensors.size());
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (legacy_empty(t)) continue;
    const int64_t bytes = t.sizes()[p.dim] * inner;
    if (bytes > 0) pieces.push_back({static_cast<const char*>(t.data_ptr()), bytes, offset});
    offset += bytes;
  }
  char* dst = static_cast<char*>(out.data_ptr());
  const int64_t total = outer * row;
  const int nt = cpu::threads_for(total, int64_t(1) << 18);  // ~256 KB per thread at least
  auto copy_rows = [&](int64_t ob, int64_t oe) {
    for (int64_t o = ob; o < oe; ++o)
      for (const Piece& pc : pieces) std::memcpy(dst + o * row + pc.offset, pc.src + o * pc.bytes, pc.bytes);
  };
  if (nt <= 1) return copy_rows(0, outer);
  if (outer >= 4 * nt) {
#pragma omp parallel num_threads(nt)
    {
      const int64_t t = omp_get_thread_num(), T = omp_get_num_threads();
      copy_rows(outer * t / T, outer * (t + 1) / T);
    }
    return;
  }
  // Few large chunks: every thread copies its share of each.
#pragma omp parallel num_threads(nt)
  {
    const int64_t t = omp_get_thread_num(), T = omp_get_num_threads();
    for (int64_t o = 0; o < outer; ++o)
      for (const Piece& pc : pieces) {
        const int64_t b = pc.bytes * t / T, e = pc.bytes * (t + 1) / T;
        if (b < e) std::memcpy(dst + o * row + pc.offset + b, pc.src + o * pc.bytes + b, e - b);
      }
  }
}

void cat_copy(TensorList tensors, const CatPlan& p, Tensor& out) {
  if (p.all_skipped || out.numel() == 0) return;
  bool fast = out.is_contiguous();
  for (const Tensor& t : tensors)
    fast = fast && (legacy_empty(t) || (t.is_contiguous() && t.dtype() == out.dtype()));
  if (fast) return cat_memcpy(tensors, p, out);
  int64_t offset = 0;
  for (const Tensor& t : tensors) {
    if (legacy_empty(t)) continue;
    const int64_t size = t.sizes()[p.dim];
    if (size > 0) {
      Tensor dst = out.narrow(p.dim, offset, size);
      dst.copy_(t);
    }
    offset += size;
  }
}

Tensor cat_k(TensorList tensors, int64_t dim) {
  CatPlan p = plan_cat(tensors, dim);
  Tensor out = empty(p.shape, TensorOptions(p.dtype).device(p.device));
  if (!p.device.is_meta()) cat_copy(tensors, p, out);
  return out;
}

Tensor& cat_out_k(TensorList tensors, int64_t dim, Tensor& out) {
  CatPlan p = plan_cat(tensors, dim);
  EMBER_CHECK(out.defined(), ValueError, "torch.cat(): got an undefined out tensor");
  EMBER_CHECK(out.device() == p.device, RuntimeError, "torch.cat(): Expected out tensor on ", p.device,
              ", but got it on ", out.device());
  EMBER_CHECK(can_cast(p.dtype, out.dtype()), RuntimeError,
              "torch.cat(): input types can't be cast to the desired output type ", out.dtype());
  for (const Tensor& t : tensors)
    EMBER_CHECK(!overlaps(out, t), RuntimeError,
                "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                "single memory location. Please clone() the tensor before performing the operation.");
  if (!out.sizes().equals(p.shape)) resize_(out, p.shape);
  if (p.device.is_meta()) return out;
  cat_copy(tensors, p, out);
  out.bump_version();
  return out;
}

Tensor stack_composite(TensorList tensors, int64_t dim) {
  EMBER_CHECK(!tensors.empty(), RuntimeError, "stack expects a non-empty TensorList");
  for (size_t i = 0; i < tensors.size(); ++i) {
    EMBER_CHECK(tensors[i].defined(), ValueError, "stack(): got an undefined tensor at position ", i);
    EMBER_CHECK(tensors[i].sizes().equals(tensors[0].sizes()), RuntimeError,
                "stack expects each tensor to be equal size, but got ", tensors[0].sizes(), " at entry 0 and ",
                tensors[i].sizes(), " at entry ", i);
  }
  const int64_t d = wrap_dim(dim, tensors[0].dim() + 1);
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) parts.push_back(t.unsqueeze(d));
  return cat(parts, d);
}

using CatSig = Tensor(TensorList, int64_t);
using CatOutSig = Tensor&(TensorList, int64_t, Tensor&);

// ---- hstack, vstack (row_stack), dstack, column_stack: cat after raising every input to at
// least 1, 2 or 3 dims (column_stack: 0-D and 1-D inputs become columns).
enum class StackKind { H, V, D, Column };

const char* stack_name(StackKind k) {
  switch (k) {
    case StackKind::H: return "hstack";
    case StackKind::V: return "vstack";
    case StackKind::D: return "dstack";
    default: return "column_stack";
  }
}

// The inputs as cat sees them, and the dim it joins along.
std::vector<Tensor> stack_inputs(StackKind k, TensorList tensors, int64_t* dim) {
  EMBER_CHECK(!tensors.empty(), RuntimeError, stack_name(k), " expects a non-empty TensorList");
  std::vector<Tensor> parts;
  parts.reserve(tensors.size());
  for (const Tensor& t : tensors) {
    EMBER_CHECK(t.defined(), ValueError, stack_name(k), "(): got an undefined tensor");
    switch (k) {
      case StackKind::H: parts.push_back(atleast_1d(t)); break;
      case StackKind::V: parts.push_back(atleast_2d(t)); break;
      case StackKind::D: parts.push_back(atleast_3d(t)); break;
      case StackKind::Column: parts.push_back(t.dim() <= 1 ? t.reshape({t.numel(), 1}) : t); break;
    }
  }
  switch (k) {
    case StackKind::H: *dim = parts[0].dim() == 1 ? 0 : 1; break;
    case StackKind::V: *dim = 0; break;
    case StackKind::D: *dim = 2; break;
    case StackKind::Column: *dim = 1; break;
  }
  return parts;
}

template <StackKind K>
Tensor stack_kind_composite(TensorList tensors) {
  int64_t dim = 0;
  std::vector<Tensor> parts = stack_inputs(K, tensors, &dim);
  return cat(parts, dim);
}

template <StackKind K>
Tensor& stack_kind_out_composite(TensorList tensors, Tensor& out) {
  int64_t dim = 0;
  std::vector<Tensor> parts = stack_inputs(K, tensors, &dim);
  return cat_out(out, parts, dim);
}

using StackListSig = Tensor(TensorList);
using StackListOutSig = Tensor&(TensorList, Tensor&);

}  // namespace

// An empty list has no tensor to pick a backend from: raise PyTorch's error here.
void check_nonempty(TensorList tensors) {
  EMBER_CHECK(!tensors.empty(), RuntimeError, "torch.cat(): expected a non-empty list of Tensors");
}

Tensor cat(TensorList tensors, int64_t dim) {
  check_nonempty(tensors);
  static const TypedOp<CatSig> op("cat");
  return op.call(tensors, dim);
}
Tensor& cat_out(Tensor& out, TensorList tensors, int64_t dim) {
  check_nonempty(tensors);
  static const TypedOp<CatOutSig> op("cat.out");
  return op.call(tensors, dim, out);
}
Tensor stack(TensorList tensors, int64_t dim) {
  static const TypedOp<CatSig> op("stack");
  return op.call(tensors, dim);
}

#define EMBER_STACK_FRONT(name)                                             \
  Tensor name(TensorList tensors) {                                         \
    static const TypedOp<StackListSig> op(#name);                           \
    return op.call(tensors);                                                \
  }                                                                         \
  Tensor& name##_out(Tensor& out, TensorList tensors) {                     \
    static const TypedOp<StackListOutSig> op(#name ".out");                 \
    return op.call(tensors, out);                                           \
  }
EMBER_STACK_FRONT(hstack)
EMBER_STACK_FRONT(vstack)
EMBER_STACK_FRONT(row_stack)
EMBER_STACK_FRONT(dstack)
EMBER_STACK_FRONT(column_stack)
#undef EMBER_STACK_FRONT

EMBER_REGISTER(join_ops) {
  define_op<CatSig>("cat(Tensor[] tensors, int dim=0) -> Tensor");
  define_op<CatOutSig>("cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out) -> Tensor(a!)");
  register_kernel<CatSig, &cat_k>("cat", DispatchKey::CPU);
  register_kernel<CatSig, &cat_k>("cat", DispatchKey::Meta);
  register_kernel<CatOutSig, &cat_out_k>("cat.out", DispatchKey::CPU);
  register_kernel<CatOutSig, &cat_out_k>("cat.out", DispatchKey::Meta);
  // stack is cat of unsqueezed inputs: a composite, so every backend that has cat has it.
  define_op<CatSig>("stack(Tensor[] tensors, int dim=0) -> Tensor");
  register_composite<CatSig, &stack_composite>("stack");

  // hstack & co. are cat of reshaped inputs: composites too.
  define_op<StackListSig>("hstack(Tensor[] tensors) -> Tensor");
  register_composite<StackListSig, &stack_kind_composite<StackKind::H>>("hstack");
  define_op<StackListOutSig>("hstack.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)");
  register_composite<StackListOutSig, &stack_kind_out_composite<StackKind::H>>("hstack.out");
  define_op<StackListSig>("vstack(Tensor[] tensors) -> Tensor");
  register_composite<StackListSig, &stack_kind_composite<StackKind::V>>("vstack");
  define_op<StackListOutSig>("vstack.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)");
  register_composite<StackListOutSig, &stack_kind_out_composite<StackKind::V>>("vstack.out");
  define_op<StackListSig>("row_stack(Tensor[] tensors) -> Tensor");
  register_composite<StackListSig, &stack_kind_composite<StackKind::V>>("row_stack");
  define_op<StackListOutSig>("row_stack.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)");
  register_composite<StackListOutSig, &stack_kind_out_composite<StackKind::V>>("row_stack.out");
  define_op<StackListSig>("dstack(Tensor[] tensors) -> Tensor");
  register_composite<StackListSig, &stack_kind_composite<StackKind::D>>("dstack");
  define_op<StackListOutSig>("dstack.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)");
  register_composite<StackListOutSig, &stack_kind_out_composite<StackKind::D>>("dstack.out");
  define_op<StackListSig>("column_stack(Tensor[] tensors) -> Tensor");
  register_composite<StackListSig, &stack_kind_composite<StackKind::Column>>("column_stack");
  define_op<StackListOutSig>("column_stack.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)");
  register_composite<StackListOutSig, &stack_kind_out_composite<StackKind::Column>>("column_stack.out");
}

}  // namespace ember
