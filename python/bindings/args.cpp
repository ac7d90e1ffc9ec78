// Argument parsing and Python <-> Ember value conversions shared by all binding files.
#include <cstring>

#include "common.h"
#include "ember/autograd.h"

namespace ember::py {

std::string type_name(PyObject* o) {
  if (is_tensor(o)) return "Tensor";
  return Py_TYPE(o)->tp_name;
}

// ---------------------------------------------------------------- numbers
bool is_number(PyObject* o) {
  return PyFloat_Check(o) || PyLong_Check(o) || PyComplex_Check(o) || is_numpy_scalar(o);
}

bool try_scalar(PyObject* o, Scalar& s) {
  if (try_py_number(o, s)) return true;
  if (PyFloat_Check(o)) {  // subclasses, numpy.float64
    s = Scalar(PyFloat_AsDouble(o));
    return true;
  }
  if (PyComplex_Check(o)) {
    Py_complex c = PyComplex_AsCComplex(o);
    s = Scalar(complex128(c.real, c.imag));
    return true;
  }
  if (PyLong_Check(o)) {  // subclasses (IntEnum, ...)
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) throw ember::RuntimeError("Overflow when unpacking long");
    if (v == -1 && PyErr_Occurred()) throw python_error();
    s = Scalar(static_cast<int64_t>(v));
    return true;
  }
  if (is_tensor(o)) {
    const Tensor& t = unwrap(o);
    if (t.numel() != 1) return false;
    s = t.item();
    return true;
  }
  return numpy_scalar_to_scalar(o, s);
}

// ---------------------------------------------------------------- dtype and device
std::optional<ScalarType> try_dtype(PyObject* o) {
  if (Py_TYPE(o) == dtype_type) return reinterpret_cast<PyDtype*>(o)->st;
  // Python's own number types, as torch accepts them.
  if (o == reinterpret_cast<PyObject*>(&PyFloat_Type)) return kDouble;
  if (o == reinterpret_cast<PyObject*>(&PyLong_Type)) return kInt64;
  if (o == reinterpret_cast<PyObject*>(&PyBool_Type)) return kBool;
  if (o == reinterpret_cast<PyObject*>(&PyComplex_Type)) return kComplexDouble;
  return std::nullopt;
}

std::optional<Device> try_device(PyObject* o) {
  if (Py_TYPE(o) == device_type) return reinterpret_cast<PyDevice*>(o)->d;
  if (PyUnicode_Check(o)) {
    Py_ssize_t n;
    const char* s = PyUnicode_AsUTF8AndSize(o, &n);
    if (!s) throw python_error();
    return Device(std::string_view(s, static_cast<size_t>(n)));
  }
  if (PyLong_Check(o) && !PyBool_Check(o)) {
    // torch reads a bare int as a CUDA ordinal.
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) throw python_error();
    EMBER_CHECK(v >= 0 && v < 128, RuntimeError, "Device index must not be negative");
    return Device(DeviceType::CUDA, static_cast<int8_t>(v));
  }
  return std::nullopt;
}

// ---------------------------------------------------------------- ints
bool is_int_like(PyObject* o) {
  if (PyLong_Check(o)) return true;
  if (PyFloat_Check(o) || PyComplex_Check(o)) return false;
  if (is_tensor(o)) {
    const Tensor& t = unwrap(o);
    return t.numel() == 1 && is_integral(t.dtype(), true);
  }
  return is_numpy_scalar(o) && PyIndex_Check(o);
}

int64_t to_int64(PyObject* o, const char* what) {
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) throw ember::RuntimeError("Overflow when unpacking long");
    if (v == -1 && PyErr_Occurred()) throw python_error();
    return v;
  }
  if (!is_int_like(o)) EMBER_FAIL(TypeError, what, " must be int, not ", type_name(o));
  PyObject* idx = PyNumber_Index(o);
  if (!idx) throw python_error();
  long long v = PyLong_AsLongLong(idx);
  Py_DECREF(idx);
  if (v == -1 && PyErr_Occurred()) throw python_error();
  return v;
}

DimVector to_int_list(PyObject* o, const char* what, bool allow_int) {
  DimVector out;
  if (PyTuple_Check(o) || PyList_Check(o)) {
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    PyObject** items = PySequence_Fast_ITEMS(o);
    out.resize(static_cast<size_t>(n));
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* it = items[i];
      if (!is_int_like(it))
        EMBER_FAIL(TypeError, what, " must be tuple of ints, but found element of type ",
                   type_name(it), " at pos ", static_cast<int64_t>(i));
      out[static_cast<size_t>(i)] = to_int64(it, what);
    }
    return out;
  }
  if (allow_int && is_int_like(o)) {
    out.push_back(to_int64(o, what));
    return out;
  }
  EMBER_FAIL(TypeError, what, " must be tuple of ints, not ", type_name(o));
}

Py_ssize_t parse_varargs_sizes(const char* op, PyObject* const* args, Py_ssize_t nargs, DimVector& sizes) {
  sizes.clear();
  if (nargs == 0) return 0;
  if (nargs >= 1 && (PyTuple_Check(args[0]) || PyList_Check(args[0]))) {
    sizes = to_int_list(args[0], "size", false);
    return 1;
  }
  Py_ssize_t i = 0;
  for (; i < nargs && is_int_like(args[i]); ++i) sizes.push_back(to_int64(args[i], "size"));
  if (i == 0)
    EMBER_FAIL(TypeError, op, "(): argument 'size' must be tuple of ints, but found element of type ",
               type_name(args[0]), " at pos 0");
  return i;
}

// ---------------------------------------------------------------- Signature
Signature::Signature(const char* name, const char* spec) : name_(name) {
  bool kwonly = false;
  bool optional_seen = false;
  const char* p = spec;
  while (*p) {
    while (*p == ' ' || *p == ',') ++p;
    if (!*p) break;
    const char* start = p;
    while (*p && *p != ',') ++p;
    std::string tok(start, p);
    while (!tok.empty() && tok.back() == ' ') tok.pop_back();
    if (tok == "*") {
      kwonly = true;
      continue;
    }
    bool opt = false;
    if (auto eq = tok.find('='); eq != std::string::npos) {
      opt = true;
      tok.resize(eq);
    }
    EMBER_INTERNAL_ASSERT(n_ < kMax, "too many parameters in signature of ", name);
    names_[n_] = tok;
    interned_[n_] = PyUnicode_InternFromString(tok.c_str());
    if (tok == "out") out_index_ = n_;
    if (!kwonly) npos_ = n_ + 1;
    if (!opt && !optional_seen) nrequired_ = n_ + 1;
    optional_seen |= opt;
    ++n_;
  }
}

void Signature::parse(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                      PyObject** out) const {
  for (int i = 0; i < n_; ++i) out[i] = nullptr;
  int offset = self ? 1 : 0;
  if (self) out[0] = self;
  int max_pos = npos_ - offset;
  if (nargs > max_pos) {
    int min_pos = nrequired_ - offset;
    if (min_pos == max_pos)
      EMBER_FAIL(TypeError, name_, "() takes ", max_pos, " positional argument", max_pos == 1 ? "" : "s",
                 " but ", static_cast<int64_t>(nargs), nargs == 1 ? " was" : " were", " given");
    EMBER_FAIL(TypeError, name_, "() takes from ", min_pos, " to ", max_pos, " positional arguments but ",
               static_cast<int64_t>(nargs), nargs == 1 ? " was" : " were", " given");
  }
  for (Py_ssize_t i = 0; i < nargs; ++i) out[i + offset] = args[i];
  if (kwnames) {
    Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t k = 0; k < nkw; ++k) {
      PyObject* key = PyTuple_GET_ITEM(kwnames, k);
      int found = -1;
      for (int i = offset; i < n_; ++i) {
        if (interned_[i] == key) { found = i; break; }
      }
      if (found < 0) {
        for (int i = offset; i < n_; ++i) {
          if (PyUnicode_Compare(interned_[i], key) == 0) { found = i; break; }
        }
      }
      if (found < 0 || (self && found == out_index_)) {
        const char* k8 = PyUnicode_AsUTF8(key);
        EMBER_FAIL(TypeError, name_, "() got an unexpected keyword argument '", k8 ? k8 : "?", "'");
      }
      if (out[found])
        EMBER_FAIL(TypeError, name_, "() got multiple values for argument '", names_[found], "'");
      out[found] = args[nargs + k];
    }
  }
  for (int i = 0; i < n_; ++i) {
    if (out[i] == Py_None && i >= nrequired_) out[i] = nullptr;
  }
  for (int i = offset; i < nrequired_; ++i) {
    if (!out[i])
      EMBER_FAIL(TypeError, name_, "() missing required argument '", names_[i], "' (pos ", i + 1 - offset, ")");
  }
}

// ---------------------------------------------------------------- Args
void Args::type_error(int i, const char* expected) const {
  EMBER_FAIL(TypeError, sig.name(), "(): argument '", sig.param(i), "' (position ", i + 1, ") must be ",
             expected, ", not ", v[i] ? type_name(v[i]) : std::string("None"));
}

Scalar Args::scalar(int i) const {
  Scalar s;
  if (!v[i] || !try_scalar(v[i], s)) type_error(i, "Number");
  return s;
}

int64_t Args::to_int(int i) const {
  if (!v[i] || !is_int_like(v[i])) type_error(i, "int");
  return to_int64(v[i], sig.param(i).c_str());
}

double Args::to_double(int i) const {
  if (v[i] && PyFloat_Check(v[i])) return PyFloat_AS_DOUBLE(v[i]);
  Scalar s;
  if (!v[i] || !try_scalar(v[i], s) || s.is_complex()) type_error(i, "float");
  return s.to_double();
}

bool Args::to_bool(int i) const {
  if (v[i] == Py_True) return true;
  if (v[i] == Py_False) return false;
  if (v[i] && (PyLong_Check(v[i]) || is_numpy_scalar(v[i]))) {
    int r = PyObject_IsTrue(v[i]);
    if (r < 0) throw python_error();
    return r != 0;
  }
  type_error(i, "bool");
}

DimVector Args::int_list(int i, bool allow_int) const {
  if (!v[i]) type_error(i, "tuple of ints");
  std::string what = std::string(sig.name()) + "(): argument '" + sig.param(i) + "'";
  return to_int_list(v[i], what.c_str(), allow_int);
}

std::optional<ScalarType> Args::dtype(int i) const {
  if (!v[i]) return std::nullopt;
  if (auto t = try_dtype(v[i])) return t;
  type_error(i, "ember.dtype");
}

std::optional<Device> Args::device(int i) const {
  if (!v[i]) return std::nullopt;
  if (auto d = try_device(v[i])) return d;
  type_error(i, "ember.device");
}

std::optional<std::string> Args::str_opt(int i) const {
  if (!v[i]) return std::nullopt;
  if (!PyUnicode_Check(v[i])) type_error(i, "str");
  const char* s = PyUnicode_AsUTF8(v[i]);
  if (!s) throw python_error();
  return std::string(s);
}

std::vector<Tensor> Args::tensor_list(int i) const {
  if (!v[i] || !(PyTuple_Check(v[i]) || PyList_Check(v[i]))) type_error(i, "tuple of Tensors");
  Py_ssize_t n = PySequence_Fast_GET_SIZE(v[i]);
  PyObject** items = PySequence_Fast_ITEMS(v[i]);
  std::vector<Tensor> out;
  out.reserve(static_cast<size_t>(n));
  for (Py_ssize_t k = 0; k < n; ++k) {
    if (!py::is_tensor(items[k]))
      EMBER_FAIL(TypeError, sig.name(), "(): argument '", sig.param(i), "' (position ", i + 1,
                 ") must be tuple of Tensors, but found element of type ", type_name(items[k]),
                 " at pos ", static_cast<int64_t>(k));
    out.push_back(unwrap(items[k]));
  }
  return out;
}

// ---------------------------------------------------------------- out=
void assign_out(const char* op, Tensor& out, const Tensor& result) {
  // The result was computed functionally; an out= form refuses inputs that require grad, as
  // PyTorch's out= forms of differentiable ops do (copying would make out differentiable).
  EMBER_CHECK(!(autograd::requires_grad(result) && autograd::GradMode::is_enabled()), RuntimeError, op,
              "(): functions with out=... arguments don't support automatic differentiation, but one of the "
              "arguments requires grad.");
  ScalarType from = result.dtype(), to = out.dtype();
  // torch's canCast: no float into an integral, no complex into a non-complex, no non-bool
  // into bool.
  bool ok = !(is_complex(from) && !is_complex(to)) &&
            !(is_floating_point(from) && is_integral(to, true)) &&
            !(from != kBool && to == kBool);
  EMBER_CHECK(ok, RuntimeError, "result type ", dtype_name(from), " can't be cast to the desired output type ",
              dtype_name(to));
  if (!out.sizes().equals(result.sizes())) resize_(out, result.sizes());
  out.copy_(result);
}

}  // namespace ember::py
