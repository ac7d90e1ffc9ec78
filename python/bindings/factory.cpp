// Factories: tensor(data) with torch's dtype inference, as_tensor, the Tensor constructor,
// empty/zeros/ones/full (+ _like), arange, linspace, logspace, eye, scalar_tensor, empty_strided.
#include <cstring>

#include "common.h"
#include "core/dtype_dispatch.h"

namespace ember::py {

namespace {

// ---------------------------------------------------------------- tensor(data)
bool is_data_sequence(PyObject* o) {
  if (PyList_Check(o) || PyTuple_Check(o)) return true;
  if (is_tensor(o) || PyUnicode_Check(o) || PyBytes_Check(o) || PyByteArray_Check(o) || PyDict_Check(o)) return false;
  if (is_numpy_scalar(o)) return false;
  return PySequence_Check(o) != 0;
}

[[noreturn]] void invalid_data(PyObject* o) {
  EMBER_FAIL(TypeError, "new(): invalid data type '", Py_TYPE(o)->tp_name, "'");
}

// dtype of one leaf of the data, as torch infers it.
ScalarType leaf_dtype(PyObject* o) {
  if (PyFloat_CheckExact(o)) return get_default_dtype();
  // numpy.float64 and numpy.complex128 subclass Python's float and complex but keep their
  // dtype, as in torch.
  if (auto st = numpy_dtype_to_scalar_type(o)) return *st;
  if (PyFloat_Check(o)) return get_default_dtype();
  if (PyBool_Check(o)) return kBool;
  if (PyLong_Check(o)) return kInt64;
  if (PyComplex_Check(o)) return get_default_complex_dtype();
  if (is_tensor(o)) return unwrap(o).dtype();
  if (is_numpy_scalar(o)) {
    EMBER_FAIL(TypeError, "can't convert np.ndarray of type ", Py_TYPE(o)->tp_name,
               ". The only supported types are: float64, float32, float16, complex64, complex128, int64, int32, "
               "int16, int8, uint8, and bool.");
  }
  invalid_data(o);
}

struct DataInfo {
  DimVector shape;
  std::optional<ScalarType> dtype;  // promoted over all leaves (none when there are none)
};

void promote_into(DataInfo& info, ScalarType t) {
  info.dtype = info.dtype ? promote_types(*info.dtype, t) : t;
}

// Shape from the first element at each level; dtype over every leaf.
void infer_shape(PyObject* o, DataInfo& info) {
  Owned holder;  // keeps the current element alive
  PyObject* cur = o;
  while (is_data_sequence(cur)) {
    if (is_numpy_array(cur)) {
      Owned shape(PyObject_GetAttrString(cur, "shape"));
      if (!shape.p) throw python_error();
      for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(shape.p); ++i)
        info.shape.push_back(PyLong_AsLongLong(PyTuple_GET_ITEM(shape.p, i)));
      return;
    }
    Py_ssize_t n = PySequence_Size(cur);
    if (n < 0) throw python_error();
    info.shape.push_back(n);
    if (n == 0) return;
    PyObject* first = PySequence_GetItem(cur, 0);
    if (!first) throw python_error();
    Py_XDECREF(holder.p);
    holder.p = first;
    cur = first;
  }
}

void infer_dtype(PyObject* o, DataInfo& info, int depth) {
  EMBER_CHECK(depth < 64, ValueError, "tensor(): data is nested too deeply");
  if (is_numpy_array(o)) {
    auto st = numpy_dtype_to_scalar_type(o);
    if (!st) leaf_dtype(o);  // raises the unsupported-type error
    promote_into(info, *st);
    return;
  }
  if (is_data_sequence(o)) {
    Owned seq(PySequence_Fast(o, "tensor(): expected a sequence"));
    if (!seq.p) throw python_error();
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.p);
    PyObject** items = PySequence_Fast_ITEMS(seq.p);
    for (Py_ssize_t i = 0; i < n; ++i) infer_dtype(items[i], info, depth + 1);
    return;
  }
  promote_into(info, leaf_dtype(o));
}

// Writes the leaves into contiguous memory of dtype T, checking the shape on the way.
template <typename T>
struct Filler {
  const DimVector& shape;
  char* out;

  void leaf(PyObject* o) {
    Scalar s;
    if (PyFloat_CheckExact(o)) s = Scalar(PyFloat_AS_DOUBLE(o));
    else if (is_tensor(o)) {
      const Tensor& t = unwrap(o);
      EMBER_CHECK(t.numel() == 1, ValueError, "only one element tensors can be converted to Python scalars");
      s = t.item();
    } else if (!try_scalar(o, s)) {
      invalid_data(o);
    }
    T v = s.to<T>();
    std::memcpy(out, &v, sizeof(T));
    out += sizeof(T);
  }

  void fill(PyObject* o, size_t dim) {
    if (dim == shape.size()) {
      if (is_data_sequence(o) && !is_numpy_array(o))
        EMBER_FAIL(ValueError, "expected a number at dim ", static_cast<int64_t>(dim), " but got a sequence");
      if (is_numpy_array(o)) {  // a 0-d array leaf
        Tensor t = tensor_from_numpy_copy(o);
        EMBER_CHECK(t.numel() == 1, ValueError, "only one element tensors can be converted to Python scalars");
        T v = t.item().template to<T>();
        std::memcpy(out, &v, sizeof(T));
        out += sizeof(T);
        return;
      }
      leaf(o);
      return;
    }
    if (is_numpy_array(o)) {
      // A whole block from NumPy: convert through a tensor and copy its elements.
      Tensor t = tensor_from_numpy_copy(o);
      DimVector want(IntArrayRef(shape.data() + dim, shape.size() - dim));
      EMBER_CHECK(t.sizes().equals(want), ValueError, "expected sequence of shape ", IntArrayRef(want),
                  " at dim ", static_cast<int64_t>(dim), " (got ", t.sizes(), ")");
      Tensor c = t.to(scalar_type_of<T>).contiguous();
      size_t nbytes = static_cast<size_t>(c.numel()) * sizeof(T);
      if (nbytes) std::memcpy(out, c.data_ptr(), nbytes);
      out += nbytes;
      return;
    }
    if (!is_data_sequence(o))
      EMBER_FAIL(ValueError, "expected sequence of length ", shape[dim], " at dim ", static_cast<int64_t>(dim),
                 " (got ", Py_TYPE(o)->tp_name, ")");
    Owned seq(PySequence_Fast(o, "tensor(): expected a sequence"));
    if (!seq.p) throw python_error();
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq.p);
    EMBER_CHECK(n == shape[dim], ValueError, "expected sequence of length ", shape[dim], " at dim ",
                static_cast<int64_t>(dim), " (got ", static_cast<int64_t>(n), ")");
    PyObject** items = PySequence_Fast_ITEMS(seq.p);
    if (dim + 1 == shape.size()) {
      for (Py_ssize_t i = 0; i < n; ++i) {
        if (is_data_sequence(items[i]))
          EMBER_FAIL(ValueError, "expected a number at dim ", static_cast<int64_t>(dim + 1), " but got a sequence");
        leaf(items[i]);
      }
    } else {
      for (Py_ssize_t i = 0; i < n; ++i) fill(items[i], dim + 1);
    }
  }
};

Tensor from_python_data(PyObject* data, std::optional<ScalarType> dtype) {
  DataInfo info;
  infer_shape(data, info);
  if (!dtype) {
    infer_dtype(data, info, 0);
    dtype = info.dtype.value_or(get_default_dtype());
  }
  Tensor t = empty(info.shape, *dtype);
  EMBER_DISPATCH_ALL(*dtype, "tensor", [&] {
    Filler<scalar_t> f{info.shape, static_cast<char*>(t.data_ptr())};
    f.fill(data, 0);
  });
  return t;
}

}  // namespace

Tensor tensor_from_data(PyObject* data, std::optional<ScalarType> dtype, std::optional<Device> device,
                        bool copy_tensors) {
  Tensor t;
  if (is_tensor(data)) {
    t = unwrap(data);
    if (copy_tensors) t = t.clone();
  } else if (is_numpy_array(data)) {
    t = tensor_from_numpy_copy(data);
  } else {
    t = from_python_data(data, dtype);
  }
  if (dtype && t.dtype() != *dtype) t = t.to(*dtype);
  if (device && t.device() != *device) t = t.to(*device);
  return t;
}

namespace {


PyObject* f_tensor(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("tensor", "data, *, dtype=None, device=None, requires_grad=False, pin_memory=False");
  Args a(sig, nullptr, args, nargs, kw);
  if (a.is_tensor(0)) {
    if (PyErr_WarnEx(PyExc_UserWarning,
                     "To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() "
                     "rather than ember.tensor(sourceTensor).",
                     1) < 0)
      throw python_error();
  }
  return wrap(tensor_from_data(a[0], a.dtype(1), a.device(2), true));
  EMBER_PY_END(nullptr)
}

PyObject* f_as_tensor(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("as_tensor", "data, dtype=None, device=None");
  Args a(sig, nullptr, args, nargs, kw);
  auto dtype = a.dtype(1);
  auto device = a.device(2);
  if (a.is_tensor(0)) {
    const Tensor& t = a.tensor(0);
    Tensor r = t.to(device.value_or(t.device()), dtype.value_or(t.dtype()));
    return wrap_or_self(a[0], std::move(r));
  }
  if (is_numpy_array(a[0])) {
    // Shares the array's memory when nothing needs converting.
    Tensor t;
    try {
      t = tensor_from_numpy(a[0], false);
    } catch (const ember::ValueError&) {  // negative strides, foreign byte order: copy
      t = tensor_from_numpy_copy(a[0]);
    }
    return wrap(t.to(device.value_or(t.device()), dtype.value_or(t.dtype())));
  }
  return wrap(tensor_from_data(a[0], dtype, device, false));
  EMBER_PY_END(nullptr)
}

PyObject* f_make_subclass(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("_make_subclass", "cls, data, require_grad=False");
  Args a(sig, nullptr, args, nargs, kw);
  PyObject* cls = a[0];
  EMBER_CHECK(PyType_Check(cls) && PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(cls), tensor_type), TypeError,
              "_make_subclass(): cls must be a subclass of ember.Tensor");
  Tensor t = a.tensor(1).detach();
  if (a.bool_or(2, false)) autograd::set_requires_grad(t, true);
  return wrap_as(reinterpret_cast<PyTypeObject*>(cls), t);
  EMBER_PY_END(nullptr)
}

// ---------------------------------------------------------------- sized factories
constexpr const char* kSizedSpec =
    "size=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False, "
    "memory_format=None";

// Sizes either as varargs ints or as the `size` argument; returns the parsed arguments.
struct SizedArgs {
  DimVector sizes;
  Owned size_obj;
  PyObject* buf[Signature::kMax];
};
void parse_sized(const Signature& sig, PyObject* const*& args, Py_ssize_t& nargs, PyObject* kw, SizedArgs& s) {
  if (nargs >= 1 && !PyTuple_Check(args[0]) && !PyList_Check(args[0])) {
    Py_ssize_t used = parse_varargs_sizes(sig.name(), args, nargs, s.sizes);
    EMBER_CHECK(used == nargs, TypeError, sig.name(), "(): sizes must be ints, got ", type_name(args[used]));
    Py_ssize_t nkw = kw ? PyTuple_GET_SIZE(kw) : 0;
    EMBER_CHECK(nkw < Signature::kMax, TypeError, sig.name(), "(): too many arguments");
    s.size_obj.p = new_size(s.sizes);
    s.buf[0] = s.size_obj.p;
    for (Py_ssize_t i = 0; i < nkw; ++i) s.buf[1 + i] = args[nargs + i];
    args = s.buf;
    nargs = 1;
  }
}

enum class Fill { Empty, Zeros, Ones };
template <Fill F>
PyObject* f_sized(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig(F == Fill::Empty ? "empty" : F == Fill::Zeros ? "zeros" : "ones", kSizedSpec);
  SizedArgs s;
  parse_sized(sig, args, nargs, kw, s);
  Args a(sig, nullptr, args, nargs, kw);
  DimVector sizes = a.has(0) ? a.int_list(0) : DimVector();
  EMBER_CHECK(a.has(0), TypeError, sig.name(), "() missing required argument 'size'");
  TensorOptions o = a.options(2, 4);
  if (a.has(1)) {
    Tensor& out = a.tensor(1);
    if (!out.sizes().equals(sizes)) resize_(out, sizes);
    if (F == Fill::Zeros) out.zero_();
    else if (F == Fill::Ones) out.fill_(1);
    Py_INCREF(a[1]);
    return a[1];
  }
  if (F == Fill::Empty) return wrap(empty(sizes, o));
  if (F == Fill::Zeros) return wrap(zeros(sizes, o));
  return wrap(ones(sizes, o));
  EMBER_PY_END(nullptr)
}

PyObject* f_full(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("full", "size, fill_value, *, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False");
  Args a(sig, nullptr, args, nargs, kw);
  DimVector sizes = a.int_list(0);
  Scalar v = a.scalar(1);
  if (a.has(2)) {
    Tensor& out = a.tensor(2);
    if (!out.sizes().equals(sizes)) resize_(out, sizes);
    out.fill_(v);
    Py_INCREF(a[2]);
    return a[2];
  }
  return wrap(full(sizes, v, a.options(3, 5)));
  EMBER_PY_END(nullptr)
}

PyObject* f_empty_strided(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("empty_strided", "size, stride, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False");
  Args a(sig, nullptr, args, nargs, kw);
  return wrap(empty_strided(a.int_list(0), a.int_list(1), a.options(2, 4)));
  EMBER_PY_END(nullptr)
}

enum class Like { Empty, Zeros, Ones, Full };
template <Like L>
PyObject* f_like(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig(L == Like::Empty ? "empty_like" : L == Like::Zeros ? "zeros_like" : L == Like::Ones ? "ones_like" : "full_like",
                       L == Like::Full ? "input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None"
                                       : "input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None");
  Args a(sig, nullptr, args, nargs, kw);
  const int o = L == Like::Full ? 1 : 0;
  const Tensor& t = a.tensor(0);
  TensorOptions opts = a.options(1 + o, 3 + o);
  if (L == Like::Empty) return wrap(empty_like(t, opts));
  if (L == Like::Zeros) return wrap(zeros_like(t, opts));
  if (L == Like::Ones) return wrap(ones_like(t, opts));
  return wrap(full_like(t, a.scalar(1), opts));
  EMBER_PY_END(nullptr)
}

PyObject* write_out_or_wrap(const Args& a, int out_i, Tensor r) {
  if (a.has(out_i)) {
    assign_out(a.sig.name(), a.tensor(out_i), r);
    Py_INCREF(a[out_i]);
    return a[out_i];
  }
  return wrap(std::move(r));
}

// arange(end) / arange(start, end, step=1)
PyObject* f_arange(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("arange", "start, end=None, step=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False");
  Args a(sig, nullptr, args, nargs, kw);
  TensorOptions o = a.options(4, 6);
  Tensor r = a.has(1) ? arange(a.scalar(0), a.scalar(1), a.scalar_or(2, 1), o) : arange(a.scalar(0), o);
  EMBER_CHECK(a.has(1) || !a.has(2), TypeError, "arange(): step given without end");
  return write_out_or_wrap(a, 3, std::move(r));
  EMBER_PY_END(nullptr)
}

template <bool Log>
PyObject* f_space(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig(Log ? "logspace" : "linspace",
                       Log ? "start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False"
                           : "start, end, steps, *, out=None, dtype=None, layout=None, device=None, requires_grad=False");
  Args a(sig, nullptr, args, nargs, kw);
  const int o = Log ? 1 : 0;
  TensorOptions opts = a.options(4 + o, 6 + o);
  Tensor r = Log ? logspace(a.scalar(0), a.scalar(1), a.to_int(2), a.double_or(3, 10.0), opts)
                 : linspace(a.scalar(0), a.scalar(1), a.to_int(2), opts);
  return write_out_or_wrap(a, 3 + o, std::move(r));
  EMBER_PY_END(nullptr)
}

PyObject* f_eye(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("eye", "n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False");
  Args a(sig, nullptr, args, nargs, kw);
  Tensor r = eye(a.to_int(0), a.int_opt(1), a.options(3, 5));
  return write_out_or_wrap(a, 2, std::move(r));
  EMBER_PY_END(nullptr)
}

PyObject* f_scalar_tensor(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("scalar_tensor", "s, *, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False");
  Args a(sig, nullptr, args, nargs, kw);
  TensorOptions o = a.options(1, 3);
  // torch.scalar_tensor defaults to the default float dtype, not the number's.
  if (!o.dtype_) o.dtype_ = get_default_dtype();
  return wrap(scalar_tensor(a.scalar(0), o));
  EMBER_PY_END(nullptr)
}

}  // namespace

// ember.Tensor(*sizes) / Tensor(data) / Tensor(tensor) / Tensor(): the legacy constructor,
// always of the default dtype.
PyObject* tensor_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  EMBER_PY_BEGIN
  std::optional<Device> device;
  if (kwargs && PyDict_GET_SIZE(kwargs) > 0) {
    PyObject* dev = PyDict_GetItemString(kwargs, "device");
    EMBER_CHECK(dev && PyDict_GET_SIZE(kwargs) == 1, TypeError, "Tensor(): only the 'device' keyword is accepted");
    device = try_device(dev);
    EMBER_CHECK(device.has_value(), TypeError, "Tensor(): device must be an ember.device or str");
  }
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  TensorOptions o = TensorOptions(get_default_dtype()).device(device.value_or(kCPU));
  if (n == 0) return wrap_as(type, empty({0}, o));
  PyObject* first = PyTuple_GET_ITEM(args, 0);
  if (n == 1 && is_tensor(first)) return wrap_as(type, unwrap(first).alias());
  if (n == 1 && Py_TYPE(first) == size_type) return wrap_as(type, empty(to_int_list(first, "size", false), o));
  if (n == 1 && !is_int_like(first)) {
    return wrap_as(type, tensor_from_data(first, get_default_dtype(), device, true));
  }
  DimVector sizes;
  for (Py_ssize_t i = 0; i < n; ++i) sizes.push_back(to_int64(PyTuple_GET_ITEM(args, i), "Tensor(): size"));
  return wrap_as(type, empty(sizes, o));
  EMBER_PY_END(nullptr)
}

PyMethodDef module_factory_functions[] = {
    {"tensor", EMBER_FASTCALL(factory<f_tensor>), EMBER_METH_KW, "tensor(data, *, dtype=None, device=None) -> Tensor (a copy)"},
    {"as_tensor", EMBER_FASTCALL(f_as_tensor), EMBER_METH_KW, "as_tensor(data, dtype=None, device=None): shares memory when it can"},
    {"_make_subclass", EMBER_FASTCALL(f_make_subclass), EMBER_METH_KW, nullptr},
    {"empty", EMBER_FASTCALL(factory<f_sized<Fill::Empty>>), EMBER_METH_KW, "empty(*size, dtype=None, device=None)"},
    {"zeros", EMBER_FASTCALL(factory<f_sized<Fill::Zeros>>), EMBER_METH_KW, "zeros(*size, dtype=None, device=None)"},
    {"ones", EMBER_FASTCALL(factory<f_sized<Fill::Ones>>), EMBER_METH_KW, "ones(*size, dtype=None, device=None)"},
    {"full", EMBER_FASTCALL(factory<f_full>), EMBER_METH_KW, "full(size, fill_value, dtype=None, device=None)"},
    {"empty_strided", EMBER_FASTCALL(factory<f_empty_strided>), EMBER_METH_KW, nullptr},
    {"empty_like", EMBER_FASTCALL(factory<f_like<Like::Empty>>), EMBER_METH_KW, nullptr},
    {"zeros_like", EMBER_FASTCALL(factory<f_like<Like::Zeros>>), EMBER_METH_KW, nullptr},
    {"ones_like", EMBER_FASTCALL(factory<f_like<Like::Ones>>), EMBER_METH_KW, nullptr},
    {"full_like", EMBER_FASTCALL(factory<f_like<Like::Full>>), EMBER_METH_KW, nullptr},
    {"arange", EMBER_FASTCALL(factory<f_arange>), EMBER_METH_KW, "arange(end) / arange(start, end, step=1)"},
    {"linspace", EMBER_FASTCALL(factory<f_space<false>>), EMBER_METH_KW, nullptr},
    {"logspace", EMBER_FASTCALL(factory<f_space<true>>), EMBER_METH_KW, nullptr},
    {"eye", EMBER_FASTCALL(factory<f_eye>), EMBER_METH_KW, nullptr},
    {"scalar_tensor", EMBER_FASTCALL(f_scalar_tensor), EMBER_METH_KW, nullptr},
    EMBER_END_TABLE};

void init_factories(PyObject* m) {
  if (PyModule_AddFunctions(m, module_factory_functions) < 0) throw python_error();
}

}  // namespace ember::py
