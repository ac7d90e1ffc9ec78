// ember.save / ember.load (python/ember/serialization.py) in C++: Python containers to and
// from ember::Value, and the calls into ember/serialize.h with the GIL released for I/O.
#include <unordered_map>

#include "common.h"
#include "ember/serialize.h"

namespace ember::py {
namespace {

constexpr int kMaxPyDepth = 100;  // as format.h's kMaxDepth; also stops reference cycles

Value key_to_value(PyObject* o);

// Everything but containers; nullopt when o is none of these.
std::optional<Value> scalar_to_value(PyObject* o) {
  if (o == Py_None) return Value();
  if (PyBool_Check(o)) return Value(o == Py_True);
  if (PyLong_CheckExact(o)) {
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred()) throw python_error();
    EMBER_CHECK(!overflow, ValueError, "ember.save: an int does not fit in 64 bits");
    return Value(static_cast<int64_t>(v));
  }
  if (PyFloat_CheckExact(o)) return Value(PyFloat_AS_DOUBLE(o));
  if (PyUnicode_Check(o)) {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(o, &n);  // fails on lone surrogates
    if (!s) throw python_error();
    return Value(std::string_view(s, static_cast<size_t>(n)));
  }
  return std::nullopt;
}

Value to_value(PyObject* o, int depth) {
  if (auto v = scalar_to_value(o)) return std::move(*v);
  if (is_tensor(o)) return Value(unwrap(o));  // a Parameter is saved as its tensor
  const bool container = PyTuple_CheckExact(o) || PyList_CheckExact(o) || PyDict_Check(o);
  EMBER_CHECK(container, TypeError, "ember.save: cannot save an object of type '", type_name(o),
              "' (supported: Tensor, dict, list, tuple, int, float, bool, str, None)");
  EMBER_CHECK(depth < kMaxPyDepth, ValueError, "ember.save: containers nested deeper than ", kMaxPyDepth,
              " levels (or a container that contains itself)");
  if (PyDict_Check(o)) {  // OrderedDict and other dict subclasses come back as dict
    Value d = Value::dict();
    d.entries().reserve(static_cast<size_t>(PyDict_Size(o)));
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(o, &pos, &key, &value)) d.entries().emplace_back(key_to_value(key), to_value(value, depth + 1));
    return d;
  }
  Value seq = PyTuple_CheckExact(o) ? Value::tuple() : Value::list();
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
  PyObject** items = PySequence_Fast_ITEMS(o);
  seq.items().reserve(static_cast<size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) seq.items().push_back(to_value(items[i], depth + 1));
  return seq;
}

Value key_to_value(PyObject* o) {
  auto v = scalar_to_value(o);
  EMBER_CHECK(v, TypeError, "ember.save: dict keys must be None, bool, int, float or str, not '", type_name(o), "'");
  return std::move(*v);
}

// Tensors met before map to the same Python object, so shared tensors stay shared (`is`). The
// map holds references of its own: a repeated dict key (a file may hold one) drops the value
// first stored, and with it maybe the only other reference to a tensor object met again later.
struct TensorObjects {
  std::unordered_map<const TensorImpl*, PyObject*> map;
  TensorObjects() = default;
  TensorObjects(const TensorObjects&) = delete;
  TensorObjects& operator=(const TensorObjects&) = delete;
  ~TensorObjects() {
    for (auto& [impl, o] : map) Py_DECREF(o);
  }
};

PyObject* to_py(const Value& v, TensorObjects& seen) {
  switch (v.kind()) {
    case Value::Kind::None: Py_RETURN_NONE;
    case Value::Kind::Bool: return PyBool_FromLong(v.to_bool());
    case Value::Kind::Int: return PyLong_FromLongLong(v.to_int());
    case Value::Kind::Double: return PyFloat_FromDouble(v.to_double());
    case Value::Kind::String: {
      const std::string& s = v.to_string();
      return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
    }
    case Value::Kind::Tensor: {
      const Tensor& t = v.to_tensor();
      if (auto it = seen.map.find(t.impl()); it != seen.map.end()) {
        Py_INCREF(it->second);
        return it->second;
      }
      PyObject* o = wrap(t);
      if (o) {
        Py_INCREF(o);
        seen.map.emplace(t.impl(), o);
      }
      return o;
    }
    case Value::Kind::List:
    case Value::Kind::Tuple: {
      const auto& items = v.items();
      const auto n = static_cast<Py_ssize_t>(items.size());
      Owned seq(v.is_tuple() ? PyTuple_New(n) : PyList_New(n));
      if (!seq.p) return nullptr;
      for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* item = to_py(items[static_cast<size_t>(i)], seen);
        if (!item) return nullptr;
        if (v.is_tuple()) PyTuple_SET_ITEM(seq.p, i, item);
        else PyList_SET_ITEM(seq.p, i, item);
      }
      return seq.release();
    }
    case Value::Kind::Dict: {
      Owned d(PyDict_New());
      if (!d.p) return nullptr;
      for (const auto& [key, value] : v.entries()) {
        Owned k(to_py(key, seen));
        if (!k.p) return nullptr;
        Owned val(to_py(value, seen));
        if (!val.p || PyDict_SetItem(d.p, k.p, val.p) < 0) return nullptr;
      }
      return d.release();
    }
  }
  PyErr_SetString(PyExc_RuntimeError, "ember.load: unknown value kind");
  return nullptr;
}

PyObject* value_to_py(const Value& v) {
  TensorObjects seen;
  PyObject* o = to_py(v, seen);
  if (!o) throw python_error();
  return o;
}

std::string str_arg(PyObject* o, const char* what) {
  Py_ssize_t n = 0;
  const char* s = PyUnicode_Check(o) ? PyUnicode_AsUTF8AndSize(o, &n) : nullptr;
  if (!s) {
    if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "%s must be a str, not %s", what, Py_TYPE(o)->tp_name);
    throw python_error();
  }
  return std::string(s, static_cast<size_t>(n));
}

// _save(obj, path): the object is converted (and refused) before the file is touched.
PyObject* save_file(PyObject*, PyObject* args) {
  EMBER_PY_BEGIN
  PyObject *obj, *path_obj;
  if (!PyArg_ParseTuple(args, "OO:_save", &obj, &path_obj)) return nullptr;
  const std::string path = str_arg(path_obj, "path");
  const Value v = to_value(obj, 0);
  {
    GilRelease nogil(true);
    ember::save(v, path);
  }
  Py_RETURN_NONE;
  EMBER_PY_END(nullptr)
}

PyObject* save_bytes(PyObject*, PyObject* obj) {
  EMBER_PY_BEGIN
  const std::string bytes = ember::save_to_bytes(to_value(obj, 0));
  return PyBytes_FromStringAndSize(bytes.data(), static_cast<Py_ssize_t>(bytes.size()));
  EMBER_PY_END(nullptr)
}

// _load_fd(fd, name): reads an open file (Python's open() raises FileNotFoundError & co.).
PyObject* load_fd(PyObject*, PyObject* args) {
  EMBER_PY_BEGIN
  int fd;
  PyObject* name_obj;
  if (!PyArg_ParseTuple(args, "iO:_load_fd", &fd, &name_obj)) return nullptr;
  const std::string name = str_arg(name_obj, "name");
  Value v;
  {
    GilRelease nogil(true);
    v = ember::load_from_fd(fd, name);
  }
  return value_to_py(v);
  EMBER_PY_END(nullptr)
}

// _load_bytes(buffer, name): any object with the buffer protocol (bytes, bytearray, memoryview).
PyObject* load_bytes(PyObject*, PyObject* args) {
  EMBER_PY_BEGIN
  PyObject *data, *name_obj;
  if (!PyArg_ParseTuple(args, "OO:_load_bytes", &data, &name_obj)) return nullptr;
  const std::string name = str_arg(name_obj, "name");
  Py_buffer view;
  if (PyObject_GetBuffer(data, &view, PyBUF_SIMPLE) < 0) throw python_error();
  struct Release {
    Py_buffer* b;
    ~Release() { PyBuffer_Release(b); }
  } release{&view};
  return value_to_py(ember::load_from_bytes(
      std::string_view(static_cast<const char*>(view.buf), static_cast<size_t>(view.len)), name));
  EMBER_PY_END(nullptr)
}

PyMethodDef serialize_functions[] = {
    {"_save", save_file, METH_VARARGS, "Saves an object to a path atomically (ember.save)."},
    {"_save_to_bytes", save_bytes, METH_O, "The bytes ember.save writes for an object."},
    {"_load_fd", load_fd, METH_VARARGS, "Loads from an open file descriptor (ember.load)."},
    {"_load_bytes", load_bytes, METH_VARARGS, "Loads from a bytes-like object (ember.load)."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void init_serialize(PyObject* m) {
  if (PyModule_AddFunctions(m, serialize_functions) < 0) throw python_error();
}

}  // namespace ember::py
