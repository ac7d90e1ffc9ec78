#include "ops/index_util.h"

#include <cfloat>
#include <cmath>

namespace ember::index_util {

void check_devices(const char* op, std::initializer_list<const Tensor*> tensors) {
  const Tensor* first = nullptr;
  for (const Tensor* t : tensors) {
    if (!t || !t->defined()) continue;
    if (!first) {
      first = t;
      EMBER_CHECK(t->is_cpu() || t->is_meta(), NotImplementedError, op, "(): no kernel for device ", t->device());
      continue;
    }
    EMBER_CHECK(t->device() == first->device(), RuntimeError,
                "Expected all tensors to be on the same device, but found at least two devices, ",
                first->device(), " and ", t->device(), "! (in ", op, ")");
  }
}

void check_no_internal_overlap(const Tensor& t) {
  for (int64_t d = 0; d < t.dim(); ++d)
    EMBER_CHECK(!(t.sizes()[d] > 1 && t.strides()[d] == 0), RuntimeError,
                "unsupported operation: more than one element of the written-to tensor refers to a single "
                "memory location. Please clone() the tensor before performing the operation.");
}

namespace {
// [first, last] element of the storage a tensor touches.
std::pair<int64_t, int64_t> span(const Tensor& t) {
  int64_t lo = t.storage_offset(), hi = t.storage_offset();
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t s = (t.sizes()[d] - 1) * t.strides()[d];
    if (s < 0) lo += s;
    else hi += s;
  }
  const int64_t isz = static_cast<int64_t>(t.element_size());
  return {lo * isz, hi * isz + isz - 1};
}
}  // namespace

Tensor unaliased_input(const Tensor& out, const Tensor& in) {
  if (!in.defined() || in.is_meta() || out.numel() == 0 || in.numel() == 0 || !in.is_alias_of(out)) return in;
  auto [alo, ahi] = span(out);
  auto [blo, bhi] = span(in);
  if (alo > bhi || blo > ahi) return in;
  EMBER_CHECK(!(out.is_contiguous() && in.is_contiguous()), RuntimeError,
              "unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
              "single memory location. Please clone() the tensor before performing the operation.");
  return in.clone();
}

namespace {
// The C++ type names PyTorch's messages use.
const char* c10_name(ScalarType t) {
  switch (t) {
    case kBool: return "bool";
    case kUInt8: return "uint8_t";
    case kInt8: return "int8_t";
    case kInt16: return "int16_t";
    case kInt32: return "int";
    case kInt64: return "int64_t";
    case kHalf: return "at::Half";
    case kBFloat16: return "at::BFloat16";
    case kFloat: return "float";
    case kDouble: return "double";
    case kComplexFloat: return "c10::complex<float>";
    case kComplexDouble: return "c10::complex<double>";
    default: return "?";
  }
}
}  // namespace

// c10's checked_convert: integers may wrap into uint8 (but not beyond), floats must lie in
// the finite range of a floating type (inf and nan pass), a complex value needs a complex
// type unless its imaginary part is zero, and bool takes anything.
Tensor checked_scalar(const Scalar& value, ScalarType dtype) {
  bool ok = true;
  const ScalarType real = to_real_type(dtype);
  double lo = 0, hi = 0;
  switch (real) {
    case kUInt8: lo = 0; hi = 255; break;
    case kInt8: lo = -128; hi = 127; break;
    case kInt16: lo = -32768; hi = 32767; break;
    case kInt32: lo = -2147483648.0; hi = 2147483647.0; break;
    case kInt64: lo = -9223372036854775808.0; hi = 9223372036854775807.0; break;
    case kHalf: lo = -65504; hi = 65504; break;
    case kBFloat16: lo = -3.3895313892515355e38; hi = 3.3895313892515355e38; break;
    case kFloat: lo = -FLT_MAX; hi = FLT_MAX; break;
    default: lo = -INFINITY; hi = INFINITY; break;
  }
  if (dtype != kBool) {
    if (value.is_integral() || value.is_bool()) {
      const int64_t v = value.to_int();
      if (real == kUInt8) ok = v >= -255 && v <= 255;
      else if (real != kInt64) ok = static_cast<double>(v) >= lo && static_cast<double>(v) <= hi;
    } else {
      const complex128 c = value.to_complex();
      if (!is_complex(dtype) && c.imag() != 0) ok = false;
      for (double v : {c.real(), c.imag()}) {
        if (is_floating_point(real) && !std::isfinite(v)) continue;
        ok = ok && v >= lo && v <= hi;
      }
    }
  }
  EMBER_CHECK(ok, RuntimeError, "value cannot be converted to type ", c10_name(dtype), " without overflow");
  return scalar_tensor(value, dtype);
}

Tensor contiguous_index(const Tensor& index) {
  Tensor t = index.dtype() == kInt64 ? index : index.to(kInt64);
  return t.contiguous();
}

int64_t find_out_of_range(const Tensor& index, int64_t lo, int64_t hi) {
  if (index.numel() == 0 || index.is_meta()) return -1;
  return cpu::find_out_of_range_stub.get()(index.data_ptr<int64_t>(), index.numel(), lo, hi);
}

Tensor wrap_negative(const Tensor& index, int64_t size, int64_t* bad_pos) {
  Tensor t = contiguous_index(index);
  *bad_pos = -1;
  if (t.is_meta() || t.numel() == 0) return t;
  *bad_pos = find_out_of_range(t, -size, size);
  if (*bad_pos >= 0) return t;
  const int64_t* p = t.data_ptr<int64_t>();
  const int64_t n = t.numel();
  bool any_negative = false;
  for (int64_t i = 0; i < n && !any_negative; ++i) any_negative = p[i] < 0;
  if (!any_negative) return t;
  Tensor w = t.is_same(index) || t.is_alias_of(index) ? t.clone() : t;
  int64_t* q = w.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i)
    if (q[i] < 0) q[i] += size;
  return w;
}

cpu::DimIndexLoop make_loop(const Tensor& self, const Tensor& index, const Tensor& other, int64_t dim,
                            bool other_is_value) {
  cpu::DimIndexLoop l;
  const int64_t nd = nonempty_dim(index);
  const int64_t ssz = static_cast<int64_t>(self.element_size()), osz = static_cast<int64_t>(other.element_size());
  EMBER_INTERNAL_ASSERT(nd <= cpu::DimIndexLoop::kMaxDims, "too many dims");
  l.self = static_cast<char*>(self.data_ptr());
  l.index = static_cast<const char*>(index.data_ptr());
  l.other = static_cast<char*>(other.data_ptr());
  l.dtype = self.dtype();
  l.dim_size = nonempty_size(self, dim);
  l.dim_stride = nonempty_stride(self, dim) * ssz;
  // Innermost first; size-1 dims dropped; neighbours that every operand steps through as
  // one are folded (never the indexed dim).
  for (int64_t d = nd - 1; d >= 0; --d) {
    const int64_t size = nonempty_size(index, d);
    if (size == 1) continue;
    const int64_t ss = d == dim ? 0 : nonempty_stride(self, d) * ssz;
    const int64_t is = nonempty_stride(index, d) * 8;
    const int64_t os = other_is_value ? 0 : nonempty_stride(other, d) * osz;
    if (l.ndim > 0 && d != dim && l.indexed != l.ndim - 1) {
      const int i = l.ndim - 1;
      if (ss == l.self_strides[i] * l.sizes[i] && is == l.index_strides[i] * l.sizes[i] &&
          os == l.other_strides[i] * l.sizes[i]) {
        l.sizes[i] *= size;
        continue;
      }
    }
    const int i = l.ndim++;
    l.sizes[i] = size;
    l.self_strides[i] = ss;
    l.index_strides[i] = is;
    l.other_strides[i] = os;
    if (d == dim) l.indexed = i;
  }
  if (l.ndim == 0) {  // a single position
    l.ndim = 1;
    l.sizes[0] = 1;
  }
  return l;
}

void prepare_out(const char* op, Tensor& out, IntArrayRef shape, ScalarType dtype, Device device) {
  EMBER_CHECK(out.defined(), ValueError, op, "(): got an undefined out tensor");
  EMBER_CHECK(out.device() == device, RuntimeError, op, "(): Expected out tensor on ", device, ", but got it on ",
              out.device());
  EMBER_CHECK(out.dtype() == dtype, RuntimeError, "Expected out tensor to have dtype ", dtype, ", but got ",
              out.dtype(), " instead");
  if (!out.sizes().equals(shape)) resize_(out, shape);
}

}  // namespace ember::index_util
