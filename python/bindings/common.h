// Shared pieces of the Python bindings: the Tensor object, error translation, argument
// parsing and conversions between Python objects and Ember values.
//
// The hot types (Tensor, dtype, device, Size) are plain CPython types rather than pybind11
// classes: creating a pybind11 instance and dispatching through its overload machinery costs
// more than a small op itself. pybind11 is used for the module boilerplate and cold classes.
#pragma once

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "ember/ops.h"

namespace ember::py {

// Thrown by helpers when a Python exception is already set.
struct python_error : std::exception {
  const char* what() const noexcept override { return "a Python error is set"; }
};

// Translates the C++ exception in flight into a Python exception. Call only from a catch block.
void set_python_error();

#define EMBER_PY_BEGIN try {
#define EMBER_PY_END(ret)           \
  }                                 \
  catch (...) {                     \
    ::ember::py::set_python_error(); \
    return ret;                      \
  }

// An owned reference, released at scope exit.
struct Owned {
  PyObject* p = nullptr;
  Owned() = default;
  explicit Owned(PyObject* o) : p(o) {}
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { Py_XDECREF(p); }
  PyObject* release() {
    PyObject* r = p;
    p = nullptr;
    return r;
  }
};

// ---------------------------------------------------------------- Tensor objects
struct PyTensor {
  PyObject_HEAD
  Tensor t;
  PyObject* weakrefs;
  PyObject* dict;
};

extern PyTypeObject* tensor_type;  // ember.Tensor

inline bool is_tensor(PyObject* o) {
  return Py_TYPE(o) == tensor_type || PyType_IsSubtype(Py_TYPE(o), tensor_type);
}
inline Tensor& unwrap(PyObject* o) { return reinterpret_cast<PyTensor*>(o)->t; }
// A new ember.Tensor owning t; None for an undefined tensor.
PyObject* wrap(Tensor t);
// A new object of `type` (ember.Tensor or a subclass) owning t.
PyObject* wrap_as(PyTypeObject* type, Tensor t);
// ember.return_types.<name>(values, indices).
PyObject* wrap_pair(PyTypeObject* type, std::tuple<Tensor, Tensor> r);

// ---------------------------------------------------------------- dtype, device, Size
extern PyTypeObject* dtype_type;
extern PyTypeObject* device_type;
extern PyTypeObject* size_type;
struct PyDtype {
  PyObject_HEAD
  ScalarType st;
};
struct PyDevice {
  PyObject_HEAD
  Device d;
};
// The module-level singleton for a dtype (borrowed reference).
PyObject* dtype_object(ScalarType t);
PyObject* new_device(Device d);
PyObject* new_size(IntArrayRef sizes);
// ember.return_types.max / min.
extern PyTypeObject* return_type_max;
extern PyTypeObject* return_type_min;

// ---------------------------------------------------------------- conversions
// Python name of an object's type, for messages: "list", "Tensor", ...
std::string type_name(PyObject* o);

// Numbers (bool, int, float, complex, NumPy scalars, one-element tensors) to a Scalar;
// false when `o` is none of these.
bool try_scalar(PyObject* o, Scalar& s);
// The fast part of try_scalar: exact Python bool/int/float/complex only.
inline bool try_py_number(PyObject* o, Scalar& s) {
  if (PyFloat_CheckExact(o)) {
    s = Scalar(PyFloat_AS_DOUBLE(o));
    return true;
  }
  if (PyLong_CheckExact(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) throw ember::RuntimeError("Overflow when unpacking long");
    if (v == -1 && PyErr_Occurred()) throw python_error();
    s = Scalar(static_cast<int64_t>(v));
    return true;
  }
  if (PyBool_Check(o)) {
    s = Scalar(o == Py_True);
    return true;
  }
  return false;
}
bool is_number(PyObject* o);
// bool, int, float or complex, by the Scalar's kind (new reference).
PyObject* scalar_to_py(const Scalar& s);
// The ember.Generator behind `o`, or null when `o` is not one (random.cpp).
Generator* try_generator(PyObject* o);

std::optional<ScalarType> try_dtype(PyObject* o);     // ember.dtype or float/int/bool/complex
std::optional<Device> try_device(PyObject* o);        // ember.device, "cpu", "meta:0", ...
// ints (Python or NumPy), integer one-element tensors; TypeError otherwise.
int64_t to_int64(PyObject* o, const char* what);
bool is_int_like(PyObject* o);
// A sequence of ints (tuple, list, Size); with allow_int a bare int is a one-element list.
DimVector to_int_list(PyObject* o, const char* what, bool allow_int);

// NumPy (interop.cpp).
bool is_numpy_array(PyObject* o);
bool is_numpy_scalar(PyObject* o);
bool is_numpy_integer(PyObject* o);  // a NumPy integer scalar (not bool)
bool numpy_scalar_to_scalar(PyObject* o, Scalar& s);
Tensor tensor_from_numpy(PyObject* arr, bool warn_readonly);  // shares memory
Tensor tensor_from_numpy_copy(PyObject* arr);                  // copies (any strides, byte order)
std::optional<ScalarType> numpy_dtype_to_scalar_type(PyObject* arr);  // nullopt if unsupported
PyObject* tensor_to_numpy(PyObject* self, bool force);

// tensor(data) (factory.cpp), used by setitem and the Tensor constructor too.
Tensor tensor_from_data(PyObject* data, std::optional<ScalarType> dtype, std::optional<Device> device,
                        bool copy_tensors);

// ---------------------------------------------------------------- argument parsing
// A Python-visible signature: "input, other, *, alpha=1, out=None". Names after '*' are
// keyword-only; a name with '=' is optional. For methods the first parameter is self.
// Parameters named "out" exist only in the function form (as in torch).
class Signature {
 public:
  static constexpr int kMax = 12;
  Signature(const char* name, const char* spec);
  const char* name() const { return name_; }
  int size() const { return n_; }

  // Fills out[0..size()) with borrowed references, nullptr for absent optional ones (an
  // explicit None for an optional parameter counts as absent). `self` (methods) fills slot 0.
  // Throws TypeError on a mismatch.
  void parse(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
             PyObject** out) const;
  const std::string& param(int i) const { return names_[i]; }

 private:
  const char* name_;
  int n_ = 0;
  int npos_ = 0;       // positional parameters (before '*')
  int nrequired_ = 0;  // leading required parameters
  int out_index_ = -1;
  std::string names_[kMax];
  PyObject* interned_[kMax] = {};
};

// Parsed arguments with typed accessors whose errors name the op and parameter.
struct Args {
  const Signature& sig;
  PyObject* v[Signature::kMax];

  Args(const Signature& s, PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kw)
      : sig(s) {
    s.parse(self, args, nargs, kw, v);
  }
  bool has(int i) const { return v[i] != nullptr; }
  PyObject* operator[](int i) const { return v[i]; }
  bool is_tensor(int i) const { return v[i] && py::is_tensor(v[i]); }

  [[noreturn]] void type_error(int i, const char* expected) const;
  Tensor& tensor(int i) const {
    if (!v[i] || !py::is_tensor(v[i])) type_error(i, "Tensor");
    return unwrap(v[i]);
  }
  Tensor* tensor_opt(int i) const { return v[i] ? &tensor(i) : nullptr; }
  Scalar scalar(int i) const;
  Scalar scalar_or(int i, Scalar d) const { return v[i] ? scalar(i) : d; }
  int64_t to_int(int i) const;
  int64_t int_or(int i, int64_t d) const { return v[i] ? to_int(i) : d; }
  std::optional<int64_t> int_opt(int i) const {
    return v[i] ? std::optional<int64_t>(to_int(i)) : std::nullopt;
  }
  double to_double(int i) const;
  double double_or(int i, double d) const { return v[i] ? to_double(i) : d; }
  bool to_bool(int i) const;
  bool bool_or(int i, bool d) const { return v[i] ? to_bool(i) : d; }
  DimVector int_list(int i, bool allow_int = true) const;
  std::optional<ScalarType> dtype(int i) const;
  std::optional<Device> device(int i) const;
  std::optional<std::string> str_opt(int i) const;
  std::vector<Tensor> tensor_list(int i) const;
  Generator* generator(int i) const;
  TensorOptions options(int dtype_i, int device_i) const {
    TensorOptions o;
    o.dtype_ = dtype(dtype_i);
    o.device_ = device(device_i);
    return o;
  }
};

// Sizes given either as varargs ints (zeros(2, 3)) or as one sequence (zeros((2, 3))); the
// positional args from `first` on. Returns how many positional args it consumed.
Py_ssize_t parse_varargs_sizes(const char* op, PyObject* const* args, Py_ssize_t nargs, DimVector& sizes);

// ---------------------------------------------------------------- the GIL
// Ops on large tensors run with the GIL released so that other Python threads (data loading,
// ...) progress meanwhile; small ones keep it, as releasing costs more than they take.
constexpr int64_t kReleaseGilNumel = 1 << 15;
inline bool worth_releasing_gil(const Tensor& t) { return t.numel() >= kReleaseGilNumel; }
// Runs f() without the GIL when `release`. f must own (copy) the tensors it uses: another
// thread may rebind a Python tensor (t.data = ...) while the GIL is released.
class GilRelease {
 public:
  explicit GilRelease(bool release) : st_(release ? PyEval_SaveThread() : nullptr) {}
  GilRelease(const GilRelease&) = delete;
  GilRelease& operator=(const GilRelease&) = delete;
  ~GilRelease() {
    if (st_) PyEval_RestoreThread(st_);
  }

 private:
  PyThreadState* st_;
};
template <typename F>
decltype(auto) maybe_without_gil(bool release, F&& f) {
  GilRelease gil(release);
  return f();
}

// ---------------------------------------------------------------- out= and identity helpers
// Writes `result` into `out` the way torch's out= does (resize if needed, no unsafe casts).
void assign_out(const char* op, Tensor& out, const Tensor& result);
// Returns `self_obj` (new reference) when r is the same tensor, else a new wrapper.
inline PyObject* wrap_or_self(PyObject* self_obj, Tensor r) {
  if (r.is_same(unwrap(self_obj))) {
    Py_INCREF(self_obj);
    return self_obj;
  }
  return wrap(std::move(r));
}

// ---------------------------------------------------------------- per-area initialisation
// Each adds its types and functions to the module; methods go into the Tensor method table.
void init_dtype(PyObject* m);
void init_tensor_type(PyObject* m);  // creates ember._C.Tensor from the collected tables
void init_factories(PyObject* m);
void init_interop(PyObject* m);
void init_random(PyObject* m);
void init_benchmark(PyObject* m);  // callgrind client requests (benchmark.cpp)
void init_autograd(PyObject* m);   // requires_grad, grad, backward (autograd.cpp)
void init_serialize(PyObject* m);  // _save, _load_fd, ... for ember.save/load (serialize.cpp)
void init_data(PyObject* m);       // _read_idx for ember.utils.data.read_idx (data.cpp)
void init_func(PyObject* m);       // vmap levels and batch dims for ember.func (func.cpp)
void init_forward_ad(PyObject* m);  // _make_dual, _unpack_dual, dual levels (forward_ad.cpp)
void init_fx(PyObject* m);         // ember._C._fx: Graph and Node of ember.fx (fx.cpp)
// Exposes every dispatcher op that no hand-written binding covers (generic.cpp); runs last.
void init_generic_ops(PyObject* m);

// Method tables contributed by the op areas, gathered by init_tensor_type.
extern PyMethodDef tensor_view_methods[];    // views.cpp
extern PyMethodDef tensor_op_methods[];      // ops.cpp
extern PyMethodDef tensor_interop_methods[]; // interop.cpp
extern PyMethodDef tensor_random_methods[];  // random.cpp
extern PyMethodDef module_view_functions[];    // views.cpp
extern PyMethodDef module_op_functions[];      // ops.cpp
extern PyMethodDef module_factory_functions[]; // factory.cpp
extern PyMethodDef module_interop_functions[]; // interop.cpp
extern PyMethodDef module_random_functions[];  // random.cpp

// Indexing (indexing.cpp), the mapping slots of Tensor.
PyObject* tensor_getitem(PyObject* self, PyObject* index);
int tensor_setitem(PyObject* self, PyObject* index, PyObject* value);

// The Tensor constructor and _make_subclass (factory.cpp).
PyObject* tensor_new(PyTypeObject* type, PyObject* args, PyObject* kwargs);

#define EMBER_FASTCALL(fn) reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fn))
// Factories take requires_grad=True (keyword-only) and apply it to the tensor they made.
PyObject* apply_requires_grad(PyObject* result, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames);
template <PyObject* (*F)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*)>
PyObject* factory(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  return apply_requires_grad(F(self, args, nargs, kwnames), args, nargs, kwnames);
}
#define EMBER_METH_KW (METH_FASTCALL | METH_KEYWORDS)
// One implementation serves Tensor.op (Method: self is the tensor) and ember.op (self is
// the module, the tensor comes as the first argument).
#define EMBER_PY_OP(fn) \
  template <bool Method> \
  PyObject* fn(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames)
#define EMBER_SELF (Method ? self : nullptr)
#define EMBER_METHOD(name, fn) {name, EMBER_FASTCALL(fn<true>), EMBER_METH_KW, nullptr}
#define EMBER_FUNCTION(name, fn) {name, EMBER_FASTCALL(fn<false>), EMBER_METH_KW, nullptr}
#define EMBER_END_TABLE {nullptr, nullptr, 0, nullptr}

}  // namespace ember::py
