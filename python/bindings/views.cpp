// Metadata, views, copies and conversions: Tensor methods and the ember.* functions of the
// same names (reshape, permute, transpose, clone, ...).
#include <string>

#include "common.h"

namespace ember::py {

namespace {

// ---------------------------------------------------------------- metadata
PyObject* m_size(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("size", "self, dim=None");
  Args a(sig, self, args, nargs, kw);
  const Tensor& t = unwrap(self);
  if (a.has(1)) return PyLong_FromLongLong(t.size(a.to_int(1)));
  return new_size(t.sizes());
  EMBER_PY_END(nullptr)
}
PyObject* m_stride(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("stride", "self, dim=None");
  Args a(sig, self, args, nargs, kw);
  const Tensor& t = unwrap(self);
  if (a.has(1)) return PyLong_FromLongLong(t.stride(a.to_int(1)));
  IntArrayRef st = t.strides();
  PyObject* tup = PyTuple_New(static_cast<Py_ssize_t>(st.size()));
  if (!tup) throw python_error();
  for (size_t i = 0; i < st.size(); ++i) PyTuple_SET_ITEM(tup, static_cast<Py_ssize_t>(i), PyLong_FromLongLong(st[i]));
  return tup;
  EMBER_PY_END(nullptr)
}
PyObject* m_dim(PyObject* self, PyObject*) { return PyLong_FromLongLong(unwrap(self).dim()); }
PyObject* m_storage_offset(PyObject* self, PyObject*) { return PyLong_FromLongLong(unwrap(self).storage_offset()); }
PyObject* m_is_contiguous(PyObject* self, PyObject* const*, Py_ssize_t, PyObject*) {
  return PyBool_FromLong(unwrap(self).is_contiguous());
}
PyObject* m_element_size(PyObject* self, PyObject*) { return PyLong_FromSize_t(unwrap(self).element_size()); }
PyObject* m_data_ptr(PyObject* self, PyObject*) {
  return PyLong_FromVoidPtr(unwrap(self).data_ptr());
}

EMBER_PY_OP(py_numel) {
  EMBER_PY_BEGIN
  static Signature sig("numel", "input");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  return PyLong_FromLongLong(a.tensor(0).numel());
  EMBER_PY_END(nullptr)
}
EMBER_PY_OP(py_is_complex) {
  EMBER_PY_BEGIN
  static Signature sig("is_complex", "input");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  return PyBool_FromLong(a.tensor(0).is_complex());
  EMBER_PY_END(nullptr)
}
EMBER_PY_OP(py_is_floating_point) {
  EMBER_PY_BEGIN
  static Signature sig("is_floating_point", "input");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  return PyBool_FromLong(a.tensor(0).is_floating_point());
  EMBER_PY_END(nullptr)
}
PyObject* f_is_tensor(PyObject*, PyObject* obj) { return PyBool_FromLong(is_tensor(obj)); }

// ---------------------------------------------------------------- views
// Shapes passed as varargs (t.view(2, 3)) or as one sequence (t.view((2, 3))).
DimVector method_sizes(const char* op, PyObject* const* args, Py_ssize_t nargs, PyObject* kw, const char* kwname) {
  DimVector sizes;
  if (kw && PyTuple_GET_SIZE(kw) > 0) {
    EMBER_CHECK(nargs == 0 && PyTuple_GET_SIZE(kw) == 1 &&
                    PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kw, 0), kwname) == 0,
                TypeError, op, "() got an unexpected keyword argument");
    return to_int_list(args[0], kwname, true);
  }
  Py_ssize_t used = parse_varargs_sizes(op, args, nargs, sizes);
  EMBER_CHECK(used == nargs, TypeError, op, "(): expected a sequence of ints or ints as arguments");
  return sizes;
}

PyObject* m_view(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  if (nargs == 1 && !kw) {
    if (auto dt = try_dtype(args[0])) return wrap(unwrap(self).view(*dt));
  }
  return wrap(unwrap(self).view(method_sizes("view", args, nargs, kw, "size")));
  EMBER_PY_END(nullptr)
}
PyObject* m_view_as(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("view_as", "self, other");
  Args a(sig, self, args, nargs, kw);
  return wrap(a.tensor(0).view_as(a.tensor(1)));
  EMBER_PY_END(nullptr)
}
PyObject* m_reshape(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  return wrap(unwrap(self).reshape(method_sizes("reshape", args, nargs, kw, "shape")));
  EMBER_PY_END(nullptr)
}
PyObject* f_reshape(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("reshape", "input, shape");
  Args a(sig, nullptr, args, nargs, kw);
  return wrap(a.tensor(0).reshape(a.int_list(1)));
  EMBER_PY_END(nullptr)
}
PyObject* m_reshape_as(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("reshape_as", "self, other");
  Args a(sig, self, args, nargs, kw);
  return wrap(a.tensor(0).reshape_as(a.tensor(1)));
  EMBER_PY_END(nullptr)
}
PyObject* m_expand(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  return wrap(unwrap(self).expand(method_sizes("expand", args, nargs, kw, "size")));
  EMBER_PY_END(nullptr)
}
PyObject* m_expand_as(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("expand_as", "self, other");
  Args a(sig, self, args, nargs, kw);
  return wrap(a.tensor(0).expand_as(a.tensor(1)));
  EMBER_PY_END(nullptr)
}
EMBER_PY_OP(py_broadcast_to) {
  EMBER_PY_BEGIN
  static Signature sig("broadcast_to", "input, size");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  return wrap(a.tensor(0).expand(a.int_list(1)));
  EMBER_PY_END(nullptr)
}
PyObject* m_permute(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  return wrap(unwrap(self).permute(method_sizes("permute", args, nargs, kw, "dims")));
  EMBER_PY_END(nullptr)
}
PyObject* f_permute(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("permute", "input, dims");
  Args a(sig, nullptr, args, nargs, kw);
  return wrap(a.tensor(0).permute(a.int_list(1)));
  EMBER_PY_END(nullptr)
}
EMBER_PY_OP(py_flatten) {
  EMBER_PY_BEGIN
  static Signature sig("flatten", "input, start_dim=0, end_dim=-1");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  return wrap(a.tensor(0).flatten(a.int_or(1, 0), a.int_or(2, -1)));
  EMBER_PY_END(nullptr)
}
EMBER_PY_OP(py_unflatten) {
  EMBER_PY_BEGIN
  static Signature sig("unflatten", "input, dim, sizes");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  return wrap(a.tensor(0).unflatten(a.to_int(1), a.int_list(2, false)));
  EMBER_PY_END(nullptr)
}
EMBER_PY_OP(py_transpose) {
  EMBER_PY_BEGIN
  static Signature sig("transpose", "input, dim0, dim1");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  return wrap(a.tensor(0).transpose(a.to_int(1), a.to_int(2)));
  EMBER_PY_END(nullptr)
}
EMBER_PY_OP(py_t) {
  EMBER_PY_BEGIN
  static Signature sig("t", "input");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  return wrap(a.tensor(0).t());
  EMBER_PY_END(nullptr)
}
EMBER_PY_OP(py_squeeze) {
  EMBER_PY_BEGIN
  static Signature sig("squeeze", "input, dim=None");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  const Tensor& t = a.tensor(0);
  return wrap(a.has(1) ? t.squeeze(a.to_int(1)) : t.squeeze());
  EMBER_PY_END(nullptr)
}
EMBER_PY_OP(py_unsqueeze) {
  EMBER_PY_BEGIN
  static Signature sig("unsqueeze", "input, dim");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  return wrap(a.tensor(0).unsqueeze(a.to_int(1)));
  EMBER_PY_END(nullptr)
}
EMBER_PY_OP(py_narrow) {
  EMBER_PY_BEGIN
  static Signature sig("narrow", "input, dim, start, length");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  return wrap(a.tensor(0).narrow(a.to_int(1), a.to_int(2), a.to_int(3)));
  EMBER_PY_END(nullptr)
}
EMBER_PY_OP(py_select) {
  EMBER_PY_BEGIN
  static Signature sig("select", "input, dim, index");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  return wrap(a.tensor(0).select(a.to_int(1), a.to_int(2)));
  EMBER_PY_END(nullptr)
}
EMBER_PY_OP(py_as_strided) {
  EMBER_PY_BEGIN
  static Signature sig("as_strided", "input, size, stride, storage_offset=None");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  return wrap(a.tensor(0).as_strided(a.int_list(1), a.int_list(2), a.int_opt(3)));
  EMBER_PY_END(nullptr)
}
PyObject* m_unfold(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("unfold", "self, dimension, size, step");
  Args a(sig, self, args, nargs, kw);
  return wrap(a.tensor(0).unfold(a.to_int(1), a.to_int(2), a.to_int(3)));
  EMBER_PY_END(nullptr)
}
EMBER_PY_OP(py_diagonal) {
  EMBER_PY_BEGIN
  static Signature sig("diagonal", "input, offset=0, dim1=0, dim2=1");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  return wrap(a.tensor(0).diagonal(a.int_or(1, 0), a.int_or(2, 0), a.int_or(3, 1)));
  EMBER_PY_END(nullptr)
}
EMBER_PY_OP(py_view_as_real) {
  EMBER_PY_BEGIN
  static Signature sig("view_as_real", "input");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  return wrap(a.tensor(0).view_as_real());
  EMBER_PY_END(nullptr)
}
EMBER_PY_OP(py_view_as_complex) {
  EMBER_PY_BEGIN
  static Signature sig("view_as_complex", "input");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  return wrap(a.tensor(0).view_as_complex());
  EMBER_PY_END(nullptr)
}
EMBER_PY_OP(py_detach) {
  EMBER_PY_BEGIN
  static Signature sig("detach", "input");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  return wrap(a.tensor(0).detach());
  EMBER_PY_END(nullptr)
}

// ---------------------------------------------------------------- copies and conversions
PyObject* m_contiguous(PyObject* self, PyObject* const*, Py_ssize_t, PyObject*) {
  EMBER_PY_BEGIN
  return wrap_or_self(self, unwrap(self).contiguous());
  EMBER_PY_END(nullptr)
}
EMBER_PY_OP(py_clone) {
  EMBER_PY_BEGIN
  static Signature sig("clone", "input, *, memory_format=None");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  return wrap(a.tensor(0).clone());
  EMBER_PY_END(nullptr)
}

// to(dtype, ...), to(device, dtype=None, ...), to(other, ...), to(dtype=..., device=...).
PyObject* m_to(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("to", "self, arg0=None, arg1=None, non_blocking=False, copy=False, *, dtype=None, device=None, memory_format=None");
  Args a(sig, self, args, nargs, kw);
  const Tensor& t = unwrap(self);
  std::optional<ScalarType> dtype = a.dtype(5);
  std::optional<Device> device = a.device(6);
  bool copy = a.bool_or(4, false);
  if (a.has(1)) {
    PyObject* x = a[1];
    if (auto d = try_dtype(x)) {
      EMBER_CHECK(!dtype && !a.has(2), TypeError, "to() received an invalid combination of arguments");
      dtype = d;
      if (a.has(2)) a.type_error(2, "bool");
    } else if (is_tensor(x)) {
      EMBER_CHECK(!dtype && !device, TypeError, "to() received an invalid combination of arguments");
      dtype = unwrap(x).dtype();
      device = unwrap(x).device();
      if (a.has(2)) copy = a.to_bool(2) || copy;  // to(other, non_blocking, copy) shifts by one
    } else if (auto dv = try_device(x)) {
      EMBER_CHECK(!device, TypeError, "to() received an invalid combination of arguments");
      device = dv;
      if (a.has(2)) {
        auto d2 = try_dtype(a[2]);
        if (!d2) a.type_error(2, "ember.dtype");
        dtype = d2;
      }
    } else {
      a.type_error(1, "ember.dtype, ember.device or Tensor");
    }
  }
  Tensor r = t.to(device.value_or(t.device()), dtype.value_or(t.dtype()), copy);
  return wrap_or_self(self, std::move(r));
  EMBER_PY_END(nullptr)
}
PyObject* m_cpu(PyObject* self, PyObject* const*, Py_ssize_t, PyObject*) {
  EMBER_PY_BEGIN
  return wrap_or_self(self, unwrap(self).cpu());
  EMBER_PY_END(nullptr)
}
template <ScalarType T>
PyObject* m_cast(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("cast", "self, memory_format=None");
  Args a(sig, self, args, nargs, kw);
  return wrap_or_self(self, unwrap(self).to(T));
  EMBER_PY_END(nullptr)
}
// Legacy type names: t.type() -> "ember.FloatTensor"; t.type("ember.LongTensor") casts.
constexpr const char* kLegacyNames[] = {"Bool", "Byte", "Char", "Short", "Int", "Long", "Half",
                                        "BFloat16", "Float", "Double", "ComplexFloat", "ComplexDouble"};
ScalarType legacy_type(std::string_view name) {
  std::string_view n = name;
  for (std::string_view prefix : {"ember.", "torch."})
    if (n.substr(0, prefix.size()) == prefix) n.remove_prefix(prefix.size());
  for (int i = 0; i < kNumScalarTypes; ++i)
    if (n == std::string(kLegacyNames[i]) + "Tensor") return static_cast<ScalarType>(i);
  ScalarType st = dtype_from_name(name);
  EMBER_CHECK(st != ScalarType::Undefined, ValueError, "invalid type: '", name, "'");
  return st;
}
PyObject* m_type(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("type", "self, dtype=None, non_blocking=False");
  Args a(sig, self, args, nargs, kw);
  const Tensor& t = unwrap(self);
  if (!a.has(1)) {
    std::string s = std::string("ember.") + kLegacyNames[static_cast<int>(t.dtype())] + "Tensor";
    return PyUnicode_FromString(s.c_str());
  }
  if (PyUnicode_Check(a[1])) return wrap_or_self(self, t.to(legacy_type(PyUnicode_AsUTF8(a[1]))));
  return wrap_or_self(self, t.to(*a.dtype(1)));
  EMBER_PY_END(nullptr)
}

PyObject* m_copy_(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("copy_", "self, src, non_blocking=False");
  Args a(sig, self, args, nargs, kw);
  unwrap(self).copy_(a.tensor(1));
  Py_INCREF(self);
  return self;
  EMBER_PY_END(nullptr)
}
PyObject* m_fill_(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("fill_", "self, value");
  Args a(sig, self, args, nargs, kw);
  if (a.is_tensor(1)) {
    const Tensor& v = a.tensor(1);
    EMBER_CHECK(v.dim() == 0, RuntimeError, "fill_ only supports 0-dimension value tensor but got tensor with ",
                v.dim(), " dimensions.");
    unwrap(self).fill_(v.item());
  } else {
    unwrap(self).fill_(a.scalar(1));
  }
  Py_INCREF(self);
  return self;
  EMBER_PY_END(nullptr)
}
PyObject* m_zero_(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  unwrap(self).zero_();
  Py_INCREF(self);
  return self;
  EMBER_PY_END(nullptr)
}
PyObject* m_resize_(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  DimVector sizes = method_sizes("resize_", args, nargs, kw, "size");
  resize_(unwrap(self), sizes);
  Py_INCREF(self);
  return self;
  EMBER_PY_END(nullptr)
}

// new_empty(size, *, dtype=None, device=None) and friends: dtype and device default to self's.
enum class NewKind { Empty, Zeros, Ones, Full };
template <NewKind K>
PyObject* m_new(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig(K == NewKind::Empty ? "new_empty" : K == NewKind::Zeros ? "new_zeros"
                       : K == NewKind::Ones ? "new_ones" : "new_full",
                       K == NewKind::Full ? "self, size, fill_value, *, dtype=None, device=None, requires_grad=False"
                                          : "self, size, *, dtype=None, device=None, requires_grad=False");
  const Tensor& t = unwrap(self);
  // Varargs sizes (t.new_zeros(2, 3)) for all but new_full: repack them as one Size.
  Owned size_obj;
  PyObject* buf[Signature::kMax];
  if (K != NewKind::Full && nargs > 0 && is_int_like(args[0])) {
    DimVector sizes;
    Py_ssize_t used = parse_varargs_sizes(sig.name(), args, nargs, sizes);
    EMBER_CHECK(used == nargs, TypeError, sig.name(), "(): expected ints as sizes");
    Py_ssize_t nkw = kw ? PyTuple_GET_SIZE(kw) : 0;
    EMBER_CHECK(nkw < Signature::kMax, TypeError, sig.name(), "(): too many arguments");
    size_obj.p = new_size(sizes);
    buf[0] = size_obj.p;
    for (Py_ssize_t i = 0; i < nkw; ++i) buf[1 + i] = args[nargs + i];
    args = buf;
    nargs = 1;
  }
  Args a(sig, self, args, nargs, kw);
  DimVector sizes = a.int_list(1);
  const int di = K == NewKind::Full ? 3 : 2;
  TensorOptions o = a.options(di, di + 1);
  o = o.dtype(o.dtype_.value_or(t.dtype())).device(o.device_.value_or(t.device()));
  if (K == NewKind::Empty) return wrap(empty(sizes, o));
  if (K == NewKind::Zeros) return wrap(zeros(sizes, o));
  if (K == NewKind::Ones) return wrap(ones(sizes, o));
  return wrap(full(sizes, a.scalar(2), o));
  EMBER_PY_END(nullptr)
}
PyObject* m_new_tensor(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("new_tensor", "self, data, *, dtype=None, device=None, requires_grad=False");
  Args a(sig, self, args, nargs, kw);
  const Tensor& t = unwrap(self);
  return wrap(tensor_from_data(a[1], a.dtype(2).value_or(t.dtype()), a.device(3).value_or(t.device()), true));
  EMBER_PY_END(nullptr)
}

PyObject* f_broadcast_shapes(PyObject*, PyObject* args) {
  EMBER_PY_BEGIN
  DimVector shape;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); ++i) {
    DimVector s = to_int_list(PyTuple_GET_ITEM(args, i), "broadcast_shapes(): shape", true);
    shape = broadcast_shapes(shape, s);
  }
  return new_size(shape);
  EMBER_PY_END(nullptr)
}

}  // namespace

PyMethodDef tensor_view_methods[] = {
    {"size", EMBER_FASTCALL(m_size), EMBER_METH_KW, "size(dim=None) -> Size or int"},
    {"stride", EMBER_FASTCALL(m_stride), EMBER_METH_KW, "stride(dim=None) -> tuple or int"},
    {"dim", m_dim, METH_NOARGS, "Number of dimensions."},
    {"ndimension", m_dim, METH_NOARGS, "Number of dimensions."},
    EMBER_METHOD("numel", py_numel),
    EMBER_METHOD("nelement", py_numel),
    {"storage_offset", m_storage_offset, METH_NOARGS, nullptr},
    {"is_contiguous", EMBER_FASTCALL(m_is_contiguous), EMBER_METH_KW, nullptr},
    {"element_size", m_element_size, METH_NOARGS, nullptr},
    {"data_ptr", m_data_ptr, METH_NOARGS, "Address of the first element."},
    EMBER_METHOD("is_complex", py_is_complex),
    EMBER_METHOD("is_floating_point", py_is_floating_point),
    {"view", EMBER_FASTCALL(m_view), EMBER_METH_KW, "view(*shape) or view(dtype)"},
    {"view_as", EMBER_FASTCALL(m_view_as), EMBER_METH_KW, nullptr},
    {"reshape", EMBER_FASTCALL(m_reshape), EMBER_METH_KW, "reshape(*shape)"},
    {"reshape_as", EMBER_FASTCALL(m_reshape_as), EMBER_METH_KW, nullptr},
    {"expand", EMBER_FASTCALL(m_expand), EMBER_METH_KW, "expand(*sizes)"},
    {"expand_as", EMBER_FASTCALL(m_expand_as), EMBER_METH_KW, nullptr},
    EMBER_METHOD("broadcast_to", py_broadcast_to),
    {"permute", EMBER_FASTCALL(m_permute), EMBER_METH_KW, "permute(*dims)"},
    EMBER_METHOD("flatten", py_flatten),
    EMBER_METHOD("unflatten", py_unflatten),
    EMBER_METHOD("transpose", py_transpose),
    EMBER_METHOD("swapaxes", py_transpose),
    EMBER_METHOD("swapdims", py_transpose),
    EMBER_METHOD("t", py_t),
    EMBER_METHOD("squeeze", py_squeeze),
    EMBER_METHOD("unsqueeze", py_unsqueeze),
    EMBER_METHOD("narrow", py_narrow),
    EMBER_METHOD("select", py_select),
    EMBER_METHOD("as_strided", py_as_strided),
    {"unfold", EMBER_FASTCALL(m_unfold), EMBER_METH_KW, "unfold(dimension, size, step)"},
    EMBER_METHOD("diagonal", py_diagonal),
    EMBER_METHOD("detach", py_detach),
    {"contiguous", EMBER_FASTCALL(m_contiguous), EMBER_METH_KW, nullptr},
    EMBER_METHOD("clone", py_clone),
    {"to", EMBER_FASTCALL(m_to), EMBER_METH_KW, "to(dtype) / to(device, dtype=None) / to(other)"},
    {"cpu", EMBER_FASTCALL(m_cpu), EMBER_METH_KW, nullptr},
    {"float", EMBER_FASTCALL(m_cast<kFloat>), EMBER_METH_KW, nullptr},
    {"double", EMBER_FASTCALL(m_cast<kDouble>), EMBER_METH_KW, nullptr},
    {"half", EMBER_FASTCALL(m_cast<kHalf>), EMBER_METH_KW, nullptr},
    {"bfloat16", EMBER_FASTCALL(m_cast<kBFloat16>), EMBER_METH_KW, nullptr},
    {"int", EMBER_FASTCALL(m_cast<kInt32>), EMBER_METH_KW, nullptr},
    {"long", EMBER_FASTCALL(m_cast<kInt64>), EMBER_METH_KW, nullptr},
    {"short", EMBER_FASTCALL(m_cast<kInt16>), EMBER_METH_KW, nullptr},
    {"char", EMBER_FASTCALL(m_cast<kInt8>), EMBER_METH_KW, nullptr},
    {"byte", EMBER_FASTCALL(m_cast<kUInt8>), EMBER_METH_KW, nullptr},
    {"bool", EMBER_FASTCALL(m_cast<kBool>), EMBER_METH_KW, nullptr},
    {"cfloat", EMBER_FASTCALL(m_cast<kComplexFloat>), EMBER_METH_KW, nullptr},
    {"cdouble", EMBER_FASTCALL(m_cast<kComplexDouble>), EMBER_METH_KW, nullptr},
    {"type", EMBER_FASTCALL(m_type), EMBER_METH_KW, nullptr},
    {"copy_", EMBER_FASTCALL(m_copy_), EMBER_METH_KW, "copy_(src): copies src into self (broadcasting, casting)"},
    {"fill_", EMBER_FASTCALL(m_fill_), EMBER_METH_KW, nullptr},
    {"zero_", m_zero_, METH_NOARGS, nullptr},
    {"resize_", EMBER_FASTCALL(m_resize_), EMBER_METH_KW, nullptr},
    {"new_empty", EMBER_FASTCALL(m_new<NewKind::Empty>), EMBER_METH_KW, nullptr},
    {"new_zeros", EMBER_FASTCALL(m_new<NewKind::Zeros>), EMBER_METH_KW, nullptr},
    {"new_ones", EMBER_FASTCALL(m_new<NewKind::Ones>), EMBER_METH_KW, nullptr},
    {"new_full", EMBER_FASTCALL(m_new<NewKind::Full>), EMBER_METH_KW, nullptr},
    {"new_tensor", EMBER_FASTCALL(m_new_tensor), EMBER_METH_KW, nullptr},
    EMBER_END_TABLE};

PyMethodDef module_view_functions[] = {
    EMBER_FUNCTION("numel", py_numel),
    EMBER_FUNCTION("is_complex", py_is_complex),
    EMBER_FUNCTION("is_floating_point", py_is_floating_point),
    {"is_tensor", f_is_tensor, METH_O, "True if obj is an ember.Tensor."},
    {"reshape", EMBER_FASTCALL(f_reshape), EMBER_METH_KW, "reshape(input, shape)"},
    {"permute", EMBER_FASTCALL(f_permute), EMBER_METH_KW, "permute(input, dims)"},
    EMBER_FUNCTION("broadcast_to", py_broadcast_to),
    EMBER_FUNCTION("flatten", py_flatten),
    EMBER_FUNCTION("unflatten", py_unflatten),
    EMBER_FUNCTION("transpose", py_transpose),
    EMBER_FUNCTION("swapaxes", py_transpose),
    EMBER_FUNCTION("swapdims", py_transpose),
    EMBER_FUNCTION("t", py_t),
    EMBER_FUNCTION("squeeze", py_squeeze),
    EMBER_FUNCTION("unsqueeze", py_unsqueeze),
    EMBER_FUNCTION("narrow", py_narrow),
    EMBER_FUNCTION("select", py_select),
    EMBER_FUNCTION("as_strided", py_as_strided),
    EMBER_FUNCTION("diagonal", py_diagonal),
    EMBER_FUNCTION("view_as_real", py_view_as_real),
    EMBER_FUNCTION("view_as_complex", py_view_as_complex),
    EMBER_FUNCTION("detach", py_detach),
    EMBER_FUNCTION("clone", py_clone),
    {"broadcast_shapes", f_broadcast_shapes, METH_VARARGS, "broadcast_shapes(*shapes) -> Size"},
    EMBER_END_TABLE};

}  // namespace ember::py
