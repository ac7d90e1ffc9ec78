// Zero-copy exchange with NumPy (from_numpy, Tensor.numpy, __array__) and DLPack v0.6
// (from_dlpack, Tensor.__dlpack__, to_dlpack). This is the only file that uses NumPy's C API.
#include "common.h"
#include "ember/func.h"

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <dlpack/dlpack.h>

#include <vector>

namespace ember::py {

namespace {

bool numpy_ok = false;

// Releases a Python object from a storage deleter, which may run without the GIL.
void release_pyobject(void* ctx, void*) {
  if (!Py_IsInitialized() || _Py_IsFinalizing()) return;  // the interpreter is gone
  PyGILState_STATE st = PyGILState_Ensure();
  Py_DECREF(static_cast<PyObject*>(ctx));
  PyGILState_Release(st);
}

std::optional<ScalarType> descr_scalar_type(PyArray_Descr* d) {
  switch (d->kind) {
    case 'b': return kBool;
    case 'u': if (d->elsize == 1) return kUInt8; break;
    case 'i':
      switch (d->elsize) {
        case 1: return kInt8;
        case 2: return kInt16;
        case 4: return kInt32;
        case 8: return kInt64;
      }
      break;
    case 'f':
      switch (d->elsize) {
        case 2: return kHalf;
        case 4: return kFloat;
        case 8: return kDouble;
      }
      break;
    case 'c':
      switch (d->elsize) {
        case 8: return kComplexFloat;
        case 16: return kComplexDouble;
      }
      break;
  }
  return std::nullopt;
}

int npy_type(ScalarType t) {
  switch (t) {
    case kBool: return NPY_BOOL;
    case kUInt8: return NPY_UINT8;
    case kInt8: return NPY_INT8;
    case kInt16: return NPY_INT16;
    case kInt32: return NPY_INT32;
    case kInt64: return NPY_INT64;
    case kHalf: return NPY_FLOAT16;
    case kFloat: return NPY_FLOAT32;
    case kDouble: return NPY_FLOAT64;
    case kComplexFloat: return NPY_COMPLEX64;
    case kComplexDouble: return NPY_COMPLEX128;
    default: EMBER_FAIL(TypeError, "Got unsupported ScalarType ", t == kBFloat16 ? "BFloat16" : dtype_name(t));
  }
}

// ---------------------------------------------------------------- DLPack
struct DLPackHolder {
  DLManagedTensor managed;
  Tensor tensor;
  std::vector<int64_t> shape, strides;
};

void dlpack_holder_deleter(DLManagedTensor* m) { delete static_cast<DLPackHolder*>(m->manager_ctx); }

DLDataType dl_dtype(ScalarType t) {
  DLDataType d;
  d.lanes = 1;
  d.bits = static_cast<uint8_t>(itemsize(t) * 8);
  switch (t) {
    case kBool: EMBER_FAIL(RuntimeError, "Bool type is not supported by dlpack");
    case kUInt8: d.code = kDLUInt; break;
    case kInt8: case kInt16: case kInt32: case kInt64: d.code = kDLInt; break;
    case kHalf: case kFloat: case kDouble: d.code = kDLFloat; break;
    case kBFloat16: d.code = kDLBfloat; break;
    case kComplexFloat: case kComplexDouble: d.code = kDLComplex; break;
    default: EMBER_FAIL(RuntimeError, "dtype ", t, " is not supported by dlpack");
  }
  return d;
}

ScalarType from_dl_dtype(DLDataType d) {
  EMBER_CHECK(d.lanes == 1, RuntimeError, "Unsupported dtype in DLTensor: vector types (lanes=", int(d.lanes),
              ") are not supported");
  switch (d.code) {
    case kDLUInt:
      if (d.bits == 8) return kUInt8;
      break;
    case kDLInt:
      switch (d.bits) {
        case 8: return kInt8;
        case 16: return kInt16;
        case 32: return kInt32;
        case 64: return kInt64;
      }
      break;
    case kDLFloat:
      switch (d.bits) {
        case 16: return kHalf;
        case 32: return kFloat;
        case 64: return kDouble;
      }
      break;
    case kDLBfloat:
      if (d.bits == 16) return kBFloat16;
      break;
    case kDLComplex:
      switch (d.bits) {
        case 64: return kComplexFloat;
        case 128: return kComplexDouble;
      }
      break;
    case 6:  // kDLBool in DLPack >= 0.8
      if (d.bits == 8) return kBool;
      break;
  }
  EMBER_FAIL(RuntimeError, "Unsupported dtype in DLTensor: code ", int(d.code), ", bits ", int(d.bits));
}

void dlpack_capsule_destructor(PyObject* cap) {
  // Only a capsule nobody consumed still owns its tensor.
  if (!PyCapsule_IsValid(cap, "dltensor")) return;
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
  if (m && m->deleter) m->deleter(m);
}

PyObject* to_dlpack_capsule(const Tensor& t) {
  EMBER_CHECK(!t.is_meta(), RuntimeError, "Cannot pack tensors on meta");
  EMBER_CHECK(t.is_cpu(), RuntimeError, "to_dlpack: only CPU tensors can be exported, got a tensor on ", t.device());
  DLDataType dt = dl_dtype(t.dtype());
  auto* h = new DLPackHolder;
  h->tensor = t;
  h->shape.assign(t.sizes().begin(), t.sizes().end());
  h->strides.assign(t.strides().begin(), t.strides().end());
  DLTensor& d = h->managed.dl_tensor;
  d.data = t.data_ptr();
  d.device = DLDevice{kDLCPU, 0};
  d.ndim = static_cast<int32_t>(t.dim());
  d.dtype = dt;
  d.shape = h->shape.data();
  d.strides = h->strides.data();
  d.byte_offset = 0;
  h->managed.manager_ctx = h;
  h->managed.deleter = dlpack_holder_deleter;
  PyObject* cap = PyCapsule_New(&h->managed, "dltensor", dlpack_capsule_destructor);
  if (!cap) {
    delete h;
    throw python_error();
  }
  return cap;
}

void dlpack_tensor_deleter(void* ctx, void*) {
  auto* m = static_cast<DLManagedTensor*>(ctx);
  if (!m->deleter) return;
  // Producers such as NumPy release Python objects in their deleter.
  if (Py_IsInitialized() && !_Py_IsFinalizing()) {
    PyGILState_STATE st = PyGILState_Ensure();
    m->deleter(m);
    PyGILState_Release(st);
  } else {
    m->deleter(m);
  }
}

Tensor from_dlpack_capsule(PyObject* cap) {
  EMBER_CHECK(PyCapsule_IsValid(cap, "dltensor"), RuntimeError,
              "from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed only once, so "
              "you might have already constructed a tensor from it once.");
  auto* m = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(cap, "dltensor"));
  const DLTensor& d = m->dl_tensor;
  EMBER_CHECK(d.device.device_type == kDLCPU || d.device.device_type == kDLCUDAHost, RuntimeError,
              "from_dlpack: only CPU tensors can be imported, got DLPack device type ", int(d.device.device_type));
  ScalarType st = from_dl_dtype(d.dtype);
  EMBER_CHECK(d.ndim >= 0 && d.ndim <= 64, RuntimeError, "from_dlpack: invalid ndim ", int(d.ndim));
  DimVector sizes(IntArrayRef(d.shape, static_cast<size_t>(d.ndim)));
  DimVector strides = d.strides ? DimVector(IntArrayRef(d.strides, static_cast<size_t>(d.ndim))) : contiguous_strides(sizes);
  char* data = static_cast<char*>(d.data) + d.byte_offset;
  Tensor t = from_blob(data, sizes, strides, st, kCPU, dlpack_tensor_deleter, m);
  // From here the tensor owns the DLManagedTensor.
  if (PyCapsule_SetName(cap, "used_dltensor") < 0) throw python_error();
  return t;
}

// ---------------------------------------------------------------- Python entry points
PyObject* f_from_numpy(PyObject*, PyObject* arr) {
  EMBER_PY_BEGIN
  return wrap(tensor_from_numpy(arr, true));
  EMBER_PY_END(nullptr)
}

PyObject* m_numpy(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("numpy", "self, *, force=False");
  Args a(sig, self, args, nargs, kw);
  return tensor_to_numpy(self, a.bool_or(1, false));
  EMBER_PY_END(nullptr)
}

// __array__(dtype=None): NumPy's conversion protocol (np.asarray(t)).
PyObject* m_array(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("__array__", "self, dtype=None");
  Args a(sig, self, args, nargs, kw);
  Owned arr(tensor_to_numpy(self, false));
  if (!a.has(1)) return arr.release();
  PyArray_Descr* descr = nullptr;
  if (!PyArray_DescrConverter(a[1], &descr)) throw python_error();
  PyObject* r = PyArray_CastToType(reinterpret_cast<PyArrayObject*>(arr.p), descr, 0);
  if (!r) throw python_error();
  return r;
  EMBER_PY_END(nullptr)
}

// NumPy ufuncs applied to tensors (np.sin(t)) return tensors.
PyObject* m_array_wrap(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject*) {
  EMBER_PY_BEGIN
  EMBER_CHECK(nargs >= 1 && is_numpy_array(args[0]), TypeError, "__array_wrap__ expects a NumPy array");
  return wrap(tensor_from_numpy(args[0], false));
  EMBER_PY_END(nullptr)
}

PyObject* m_dlpack(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("__dlpack__", "self, stream=None");
  Args a(sig, self, args, nargs, kw);
  return to_dlpack_capsule(unwrap(self));
  EMBER_PY_END(nullptr)
}
PyObject* m_dlpack_device(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  const Tensor& t = unwrap(self);
  EMBER_CHECK(t.is_cpu(), RuntimeError, "__dlpack_device__: only CPU tensors are supported, got ", t.device());
  return Py_BuildValue("(ii)", static_cast<int>(kDLCPU), 0);
  EMBER_PY_END(nullptr)
}

PyObject* f_to_dlpack(PyObject*, PyObject* t) {
  EMBER_PY_BEGIN
  EMBER_CHECK(is_tensor(t), TypeError, "to_dlpack(): argument 'tensor' must be Tensor, not ", type_name(t));
  return to_dlpack_capsule(unwrap(t));
  EMBER_PY_END(nullptr)
}

// from_dlpack(ext_tensor): an object with __dlpack__ (NumPy, torch, ...) or a raw capsule.
PyObject* f_from_dlpack(PyObject*, PyObject* obj) {
  EMBER_PY_BEGIN
  if (PyCapsule_CheckExact(obj)) return wrap(from_dlpack_capsule(obj));
  if (is_tensor(obj)) {
    Py_INCREF(obj);
    return obj;
  }
  Owned method(PyObject_GetAttrString(obj, "__dlpack__"));
  if (!method.p) {
    PyErr_Clear();
    EMBER_FAIL(TypeError, "from_dlpack(): expected an object with a __dlpack__ method or a DLPack capsule, got ",
               type_name(obj));
  }
  Owned cap(PyObject_CallNoArgs(method.p));
  if (!cap.p) throw python_error();
  EMBER_CHECK(PyCapsule_CheckExact(cap.p), TypeError, "__dlpack__() did not return a capsule");
  return wrap(from_dlpack_capsule(cap.p));
  EMBER_PY_END(nullptr)
}

}  // namespace

// ---------------------------------------------------------------- helpers for other files
bool is_numpy_array(PyObject* o) { return numpy_ok && PyArray_Check(o); }
bool is_numpy_scalar(PyObject* o) { return numpy_ok && PyArray_IsScalar(o, Generic); }
bool is_numpy_integer(PyObject* o) { return numpy_ok && PyArray_IsScalar(o, Integer); }

bool numpy_scalar_to_scalar(PyObject* o, Scalar& s) {
  if (!is_numpy_scalar(o)) return false;
  if (PyArray_IsScalar(o, Bool)) {
    int r = PyObject_IsTrue(o);
    if (r < 0) throw python_error();
    s = Scalar(r == 1);
    return true;
  }
  if (PyArray_IsScalar(o, Integer)) {
    Owned i(PyNumber_Index(o));
    if (!i.p) throw python_error();
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(i.p, &overflow);
    if (overflow) throw ember::RuntimeError("Overflow when unpacking long");
    s = Scalar(static_cast<int64_t>(v));
    return true;
  }
  if (PyArray_IsScalar(o, Floating)) {
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) throw python_error();
    s = Scalar(v);
    return true;
  }
  if (PyArray_IsScalar(o, ComplexFloating)) {
    Py_complex c = PyComplex_AsCComplex(o);
    if (c.real == -1.0 && PyErr_Occurred()) throw python_error();
    s = Scalar(complex128(c.real, c.imag));
    return true;
  }
  return false;
}

std::optional<ScalarType> numpy_dtype_to_scalar_type(PyObject* o) {
  if (is_numpy_array(o)) return descr_scalar_type(PyArray_DESCR(reinterpret_cast<PyArrayObject*>(o)));
  if (is_numpy_scalar(o)) {
    PyArray_Descr* d = PyArray_DescrFromScalar(o);
    if (!d) throw python_error();
    auto r = descr_scalar_type(d);
    Py_DECREF(d);
    return r;
  }
  return std::nullopt;
}

Tensor tensor_from_numpy(PyObject* obj, bool warn_readonly) {
  EMBER_CHECK(is_numpy_array(obj), TypeError, "expected np.ndarray (got ", type_name(obj), ")");
  auto* arr = reinterpret_cast<PyArrayObject*>(obj);
  PyArray_Descr* d = PyArray_DESCR(arr);
  auto st = descr_scalar_type(d);
  if (!st) {
    Owned tn(PyObject_Str(reinterpret_cast<PyObject*>(d->typeobj)));
    const char* name = tn.p ? PyUnicode_AsUTF8(tn.p) : nullptr;
    std::string s = name ? name : "?";
    // "<class 'numpy.uint16'>" -> "numpy.uint16"
    if (s.rfind("<class '", 0) == 0 && s.size() > 10) s = s.substr(8, s.size() - 10);
    EMBER_FAIL(TypeError, "can't convert np.ndarray of type ", s,
               ". The only supported types are: float64, float32, float16, complex64, complex128, int64, int32, "
               "int16, int8, uint8, and bool.");
  }
  EMBER_CHECK(PyArray_ISNOTSWAPPED(arr), ValueError,
              "given numpy array has byte order different from the native byte order. Conversion between byte "
              "orders is currently not supported.");
  const int nd = PyArray_NDIM(arr);
  const int64_t elsize = d->elsize;
  DimVector sizes(static_cast<size_t>(nd)), strides(static_cast<size_t>(nd));
  for (int i = 0; i < nd; ++i) {
    sizes[static_cast<size_t>(i)] = PyArray_DIM(arr, i);
    int64_t s = PyArray_STRIDE(arr, i);
    EMBER_CHECK(s >= 0, ValueError,
                "At least one stride in the given numpy array is negative, and tensors with negative strides are not "
                "currently supported. (You can probably work around this by making a copy of your array  with "
                "array.copy().) ");
    EMBER_CHECK(s % elsize == 0, ValueError,
                "given numpy array strides not a multiple of the element byte size. Copy the numpy array to "
                "reallocate the memory.");
    strides[static_cast<size_t>(i)] = s / elsize;
  }
  if (warn_readonly && !PyArray_ISWRITEABLE(arr)) {
    if (PyErr_WarnEx(PyExc_UserWarning,
                     "The given NumPy array is not writable, and Ember does not support non-writable tensors. This "
                     "means writing to this tensor will result in undefined behavior. You may want to copy the array "
                     "to protect its data or make it writable before converting it to a tensor.",
                     1) < 0)
      throw python_error();
  }
  Py_INCREF(obj);
  try {
    return from_blob(PyArray_DATA(arr), sizes, strides, *st, kCPU, release_pyobject, obj);
  } catch (...) {
    Py_DECREF(obj);
    throw;
  }
}

Tensor tensor_from_numpy_copy(PyObject* obj) {
  EMBER_CHECK(is_numpy_array(obj), TypeError, "expected np.ndarray (got ", type_name(obj), ")");
  auto* arr = reinterpret_cast<PyArrayObject*>(obj);
  PyArray_Descr* native = PyArray_DescrNewByteorder(PyArray_DESCR(arr), NPY_NATIVE);
  if (!native) throw python_error();
  // A fresh C-contiguous native-order copy, owned only by the tensor that wraps it.
  Owned copy(PyArray_FromArray(arr, native, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED | NPY_ARRAY_ENSURECOPY |
                                                NPY_ARRAY_WRITEABLE));
  if (!copy.p) throw python_error();
  return tensor_from_numpy(copy.p, false);
}

PyObject* tensor_to_numpy(PyObject* self, bool force) {
  Tensor t = unwrap(self);
  func::check_not_batched(t, "numpy");
  if (!t.is_cpu()) {
    EMBER_CHECK(force && !t.is_meta(), TypeError, "can't convert ", t.device().str(),
                " device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.");
    t = t.cpu();
  }
  int type = npy_type(t.dtype());
  EMBER_CHECK(numpy_ok, RuntimeError, "Numpy is not available");
  const int nd = static_cast<int>(t.dim());
  std::vector<npy_intp> dims(static_cast<size_t>(nd)), strides(static_cast<size_t>(nd));
  const int64_t el = static_cast<int64_t>(t.element_size());
  for (int i = 0; i < nd; ++i) {
    dims[static_cast<size_t>(i)] = t.sizes()[static_cast<size_t>(i)];
    strides[static_cast<size_t>(i)] = t.strides()[static_cast<size_t>(i)] * el;
  }
  if (t.numel() == 0) {  // nothing to share: NumPy allocates its own (empty) buffer
    PyObject* arr = PyArray_New(&PyArray_Type, nd, dims.data(), type, nullptr, nullptr, 0, 0, nullptr);
    if (!arr) throw python_error();
    return arr;
  }
  PyObject* arr = PyArray_New(&PyArray_Type, nd, dims.data(), type, strides.data(), t.data_ptr(),
                              static_cast<int>(el), NPY_ARRAY_WRITEABLE, nullptr);
  if (!arr) throw python_error();
  // The array keeps the tensor (and so its memory) alive; a forced copy gets its own owner.
  PyObject* base = self;
  if (!t.is_same(unwrap(self))) {
    base = wrap(t);
    if (!base) {
      Py_DECREF(arr);
      throw python_error();
    }
  } else {
    Py_INCREF(base);
  }
  if (PyArray_SetBaseObject(reinterpret_cast<PyArrayObject*>(arr), base) < 0) {
    Py_DECREF(arr);
    throw python_error();
  }
  return arr;
}

PyMethodDef tensor_interop_methods[] = {
    {"numpy", EMBER_FASTCALL(m_numpy), EMBER_METH_KW, "A NumPy array sharing this tensor's memory."},
    {"__array__", EMBER_FASTCALL(m_array), EMBER_METH_KW, nullptr},
    {"__array_wrap__", EMBER_FASTCALL(m_array_wrap), EMBER_METH_KW, nullptr},
    {"__dlpack__", EMBER_FASTCALL(m_dlpack), EMBER_METH_KW, "A DLPack capsule sharing this tensor's memory."},
    {"__dlpack_device__", m_dlpack_device, METH_NOARGS, nullptr},
    EMBER_END_TABLE};

PyMethodDef module_interop_functions[] = {
    {"from_numpy", f_from_numpy, METH_O, "A tensor sharing the memory of a NumPy array."},
    {"from_dlpack", f_from_dlpack, METH_O, "A tensor sharing the memory of a DLPack-exporting object or capsule."},
    {"to_dlpack", f_to_dlpack, METH_O, "A DLPack capsule sharing the tensor's memory."},
    EMBER_END_TABLE};

void init_interop(PyObject* m) {
  // NumPy is optional: without it the interop functions raise and numbers stay Python's.
  if (_import_array() < 0) {
    PyErr_Clear();
    numpy_ok = false;
  } else {
    numpy_ok = true;
  }
  if (PyModule_AddFunctions(m, module_interop_functions) < 0) throw python_error();
}

}  // namespace ember::py
