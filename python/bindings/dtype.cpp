// ember.dtype, ember.device, ember.Size, ember.return_types and the dtype functions
// (get/set_default_dtype, promote_types, result_type).
#include <cstring>
#include <string>

#include "common.h"

namespace ember::py {

PyTypeObject* dtype_type = nullptr;
PyTypeObject* device_type = nullptr;
PyTypeObject* size_type = nullptr;
PyTypeObject* return_type_max = nullptr;
PyTypeObject* return_type_min = nullptr;

namespace {

PyObject* dtype_objects[kNumScalarTypes] = {};

// ---------------------------------------------------------------- dtype
ScalarType st_of(PyObject* self) { return reinterpret_cast<PyDtype*>(self)->st; }

PyObject* dtype_repr(PyObject* self) {
  std::string s = "ember." + std::string(dtype_name(st_of(self)));
  return PyUnicode_FromString(s.c_str());
}

PyObject* dtype_is_floating_point(PyObject* self, void*) { return PyBool_FromLong(is_floating_point(st_of(self))); }
PyObject* dtype_is_complex(PyObject* self, void*) { return PyBool_FromLong(is_complex(st_of(self))); }
PyObject* dtype_is_signed(PyObject* self, void*) { return PyBool_FromLong(is_signed(st_of(self))); }
PyObject* dtype_itemsize(PyObject* self, void*) { return PyLong_FromSize_t(itemsize(st_of(self))); }

PyObject* dtype_to_real(PyObject* self, PyObject*) {
  PyObject* r = dtype_object(to_real_type(st_of(self)));
  Py_INCREF(r);
  return r;
}
PyObject* dtype_to_complex(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  ScalarType t = st_of(self);
  EMBER_CHECK(is_floating_point(t) || is_complex(t), RuntimeError, "to_complex is only supported for floating point dtypes, got ",
              t);
  PyObject* r = dtype_object(is_complex(t) ? t : to_complex_type(t));
  Py_INCREF(r);
  return r;
  EMBER_PY_END(nullptr)
}
// Pickles as the module attribute of the same name (ember.float32).
PyObject* dtype_reduce(PyObject* self, PyObject*) {
  return PyUnicode_FromString(std::string(dtype_name(st_of(self))).c_str());
}

PyGetSetDef dtype_getset[] = {
    {"is_floating_point", dtype_is_floating_point, nullptr, nullptr, nullptr},
    {"is_complex", dtype_is_complex, nullptr, nullptr, nullptr},
    {"is_signed", dtype_is_signed, nullptr, nullptr, nullptr},
    {"itemsize", dtype_itemsize, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};
PyMethodDef dtype_methods[] = {
    {"to_real", dtype_to_real, METH_NOARGS, nullptr},
    {"to_complex", dtype_to_complex, METH_NOARGS, nullptr},
    {"__reduce__", dtype_reduce, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};
PyType_Slot dtype_slots[] = {
    {Py_tp_repr, reinterpret_cast<void*>(dtype_repr)},
    {Py_tp_str, reinterpret_cast<void*>(dtype_repr)},
    {Py_tp_getset, dtype_getset},
    {Py_tp_methods, dtype_methods},
    {0, nullptr}};
PyType_Spec dtype_spec = {"ember.dtype", sizeof(PyDtype), 0, Py_TPFLAGS_DEFAULT, dtype_slots};

// ---------------------------------------------------------------- device
Device dev_of(PyObject* self) { return reinterpret_cast<PyDevice*>(self)->d; }

PyObject* device_new(PyTypeObject*, PyObject* args, PyObject* kwargs) {
  EMBER_PY_BEGIN
  static Signature sig("device", "type, index=None");
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  std::vector<PyObject*> flat(&PyTuple_GET_ITEM(args, 0), &PyTuple_GET_ITEM(args, 0) + n);
  PyObject* kwnames = nullptr;
  if (kwargs && PyDict_GET_SIZE(kwargs) > 0) {
    kwnames = PyTuple_New(PyDict_GET_SIZE(kwargs));
    Py_ssize_t pos = 0, k = 0;
    PyObject *key, *val;
    while (PyDict_Next(kwargs, &pos, &key, &val)) {
      Py_INCREF(key);
      PyTuple_SET_ITEM(kwnames, k++, key);
      flat.push_back(val);
    }
  }
  PyObject* v[Signature::kMax];
  try {
    sig.parse(nullptr, flat.data(), n, kwnames, v);
  } catch (...) {
    Py_XDECREF(kwnames);
    throw;
  }
  Py_XDECREF(kwnames);
  PyObject* type = v[0];
  if (Py_TYPE(type) == device_type) {
    EMBER_CHECK(!v[1], TypeError, "device(): an index cannot be given with a device object");
    Py_INCREF(type);
    return type;
  }
  if (PyLong_Check(type)) return new_device(*try_device(type));
  EMBER_CHECK(PyUnicode_Check(type), TypeError, "device(): argument 'type' must be str, not ", type_name(type));
  Device d = *try_device(type);
  if (v[1]) {
    EMBER_CHECK(d.index == -1, RuntimeError, "type (string) must not include an index because index was passed explicitly: ",
                d.str());
    int64_t i = to_int64(v[1], "device(): argument 'index'");
    EMBER_CHECK(i >= 0, RuntimeError, "Device index must not be negative");
    EMBER_CHECK(i < 128, RuntimeError, "Device index ", i, " is too large");
    d.index = static_cast<int8_t>(i);
  }
  return new_device(d);
  EMBER_PY_END(nullptr)
}

PyObject* device_repr(PyObject* self) {
  Device d = dev_of(self);
  std::string s = "device(type='" + std::string(device_type_name(d.type)) + "'";
  if (d.index >= 0) s += ", index=" + std::to_string(d.index);
  s += ")";
  return PyUnicode_FromString(s.c_str());
}
PyObject* device_str(PyObject* self) { return PyUnicode_FromString(dev_of(self).str().c_str()); }
PyObject* device_get_type(PyObject* self, void*) {
  return PyUnicode_FromString(std::string(device_type_name(dev_of(self).type)).c_str());
}
PyObject* device_get_index(PyObject* self, void*) {
  Device d = dev_of(self);
  if (d.index < 0) Py_RETURN_NONE;
  return PyLong_FromLong(d.index);
}
PyObject* device_richcompare(PyObject* a, PyObject* b, int op) {
  if ((op != Py_EQ && op != Py_NE) || Py_TYPE(b) != device_type || Py_TYPE(a) != device_type)
    Py_RETURN_NOTIMPLEMENTED;
  bool eq = dev_of(a) == dev_of(b);
  return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}
Py_hash_t device_hash(PyObject* self) {
  Device d = dev_of(self);
  return static_cast<Py_hash_t>(static_cast<int>(d.type) * 256 + d.index + 1);
}
PyObject* device_reduce(PyObject* self, PyObject*) {
  Device d = dev_of(self);
  PyObject* type = device_get_type(self, nullptr);
  if (d.index < 0) return Py_BuildValue("(O(N))", reinterpret_cast<PyObject*>(device_type), type);
  return Py_BuildValue("(O(Ni))", reinterpret_cast<PyObject*>(device_type), type, static_cast<int>(d.index));
}

PyGetSetDef device_getset[] = {
    {"type", device_get_type, nullptr, nullptr, nullptr},
    {"index", device_get_index, nullptr, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};
PyMethodDef device_methods[] = {{"__reduce__", device_reduce, METH_NOARGS, nullptr}, {nullptr, nullptr, 0, nullptr}};
PyType_Slot device_slots[] = {
    {Py_tp_new, reinterpret_cast<void*>(device_new)},
    {Py_tp_repr, reinterpret_cast<void*>(device_repr)},
    {Py_tp_str, reinterpret_cast<void*>(device_str)},
    {Py_tp_richcompare, reinterpret_cast<void*>(device_richcompare)},
    {Py_tp_hash, reinterpret_cast<void*>(device_hash)},
    {Py_tp_getset, device_getset},
    {Py_tp_methods, device_methods},
    {0, nullptr}};
PyType_Spec device_spec = {"ember.device", sizeof(PyDevice), 0, Py_TPFLAGS_DEFAULT, device_slots};

// ---------------------------------------------------------------- Size (a tuple subclass)
PyObject* size_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  EMBER_PY_BEGIN
  EMBER_CHECK(!kwargs || PyDict_GET_SIZE(kwargs) == 0, TypeError, "ember.Size() takes no keyword arguments");
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  EMBER_CHECK(n <= 1, TypeError, "ember.Size() takes at most 1 argument (", static_cast<int64_t>(n), " given)");
  if (n == 0) return new_size({});
  PyObject* seq = PySequence_Fast(PyTuple_GET_ITEM(args, 0), "ember.Size() takes an iterable of 'int'");
  if (!seq) throw python_error();
  DimVector dims;
  Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
  for (Py_ssize_t i = 0; i < m; ++i) {
    PyObject* it = PySequence_Fast_GET_ITEM(seq, i);
    if (!is_int_like(it)) {
      std::string tn = type_name(it);
      Py_DECREF(seq);
      EMBER_FAIL(TypeError, "ember.Size() takes an iterable of 'int' (item ", static_cast<int64_t>(i), " is '", tn, "')");
    }
    try {
      dims.push_back(to_int64(it, "size"));
    } catch (...) {
      Py_DECREF(seq);
      throw;
    }
  }
  Py_DECREF(seq);
  (void)type;
  return new_size(dims);
  EMBER_PY_END(nullptr)
}

PyObject* size_repr(PyObject* self) {
  std::string s = "ember.Size([";
  Py_ssize_t n = PyTuple_GET_SIZE(self);
  for (Py_ssize_t i = 0; i < n; ++i) {
    if (i) s += ", ";
    PyObject* r = PyObject_Repr(PyTuple_GET_ITEM(self, i));
    if (!r) return nullptr;
    s += PyUnicode_AsUTF8(r);
    Py_DECREF(r);
  }
  s += "])";
  return PyUnicode_FromString(s.c_str());
}

PyObject* as_size(PyObject* tuple) {  // steals `tuple`
  if (!tuple || !PyTuple_CheckExact(tuple)) return tuple;
  Py_ssize_t n = PyTuple_GET_SIZE(tuple);
  PyObject* s = size_type->tp_alloc(size_type, n);
  if (!s) {
    Py_DECREF(tuple);
    return nullptr;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* it = PyTuple_GET_ITEM(tuple, i);
    Py_INCREF(it);
    PyTuple_SET_ITEM(s, i, it);
  }
  Py_DECREF(tuple);
  return s;
}

PyObject* size_subscript(PyObject* self, PyObject* key) {
  PyObject* r = PyTuple_Type.tp_as_mapping->mp_subscript(self, key);
  return PySlice_Check(key) ? as_size(r) : r;
}
PyObject* size_add(PyObject* a, PyObject* b) {
  if (!PyTuple_Check(a) || !PyTuple_Check(b)) Py_RETURN_NOTIMPLEMENTED;
  return as_size(PyTuple_Type.tp_as_sequence->sq_concat(a, b));
}
PyObject* size_numel(PyObject* self, PyObject*) {
  int64_t n = 1;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self); ++i) {
    long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(self, i));
    if (v == -1 && PyErr_Occurred()) return nullptr;
    n *= v;
  }
  return PyLong_FromLongLong(n);
}
PyObject* size_reduce(PyObject* self, PyObject*) {
  PyObject* t = PySequence_Tuple(self);
  if (!t) return nullptr;
  return Py_BuildValue("(O(N))", reinterpret_cast<PyObject*>(size_type), t);
}
void size_dealloc(PyObject* self) {
  PyTypeObject* tp = Py_TYPE(self);
  PyTuple_Type.tp_dealloc(self);
  Py_DECREF(tp);
}

PyMethodDef size_methods[] = {
    {"numel", size_numel, METH_NOARGS, nullptr},
    {"__reduce__", size_reduce, METH_NOARGS, nullptr},
    {nullptr, nullptr, 0, nullptr}};
PyType_Slot size_slots[] = {
    {Py_tp_new, reinterpret_cast<void*>(size_new)},
    {Py_tp_repr, reinterpret_cast<void*>(size_repr)},
    {Py_tp_dealloc, reinterpret_cast<void*>(size_dealloc)},
    {Py_mp_subscript, reinterpret_cast<void*>(size_subscript)},
    {Py_nb_add, reinterpret_cast<void*>(size_add)},
    {Py_tp_methods, size_methods},
    {0, nullptr}};
PyType_Spec size_spec = {"ember.Size", 0, 0, Py_TPFLAGS_DEFAULT, size_slots};

// ---------------------------------------------------------------- return_types
PyStructSequence_Field pair_fields[] = {{"values", nullptr}, {"indices", nullptr}, {nullptr, nullptr}};
PyStructSequence_Desc max_desc = {"ember.return_types.max", nullptr, pair_fields, 2};
PyStructSequence_Desc min_desc = {"ember.return_types.min", nullptr, pair_fields, 2};

// As torch prints them: one field per line.
PyObject* pair_repr(PyObject* self) {
  std::string s = Py_TYPE(self)->tp_name;
  s += "(";
  for (int i = 0; i < 2; ++i) {
    PyObject* r = PyObject_Repr(PyStructSequence_GetItem(self, i));
    if (!r) return nullptr;
    s += std::string("\n") + pair_fields[i].name + "=" + PyUnicode_AsUTF8(r) + (i == 0 ? "," : "");
    Py_DECREF(r);
  }
  s += ")";
  return PyUnicode_FromString(s.c_str());
}

// ---------------------------------------------------------------- functions
PyObject* py_get_default_dtype(PyObject*, PyObject*) {
  PyObject* r = dtype_object(get_default_dtype());
  Py_INCREF(r);
  return r;
}
PyObject* py_set_default_dtype(PyObject*, PyObject* arg) {
  EMBER_PY_BEGIN
  auto t = try_dtype(arg);
  EMBER_CHECK(t.has_value(), TypeError, "set_default_dtype(): argument 'd' must be ember.dtype, not ", type_name(arg));
  EMBER_CHECK(is_floating_point(*t), TypeError, "only floating-point types are supported as the default type");
  set_default_dtype(*t);
  Py_RETURN_NONE;
  EMBER_PY_END(nullptr)
}
PyObject* py_promote_types(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("promote_types", "type1, type2");
  Args a(sig, nullptr, args, nargs, kw);
  PyObject* r = dtype_object(promote_types(*a.dtype(0), *a.dtype(1)));
  Py_INCREF(r);
  return r;
  EMBER_PY_END(nullptr)
}
// Numbers take part as weak "wrapped numbers", as in torch.result_type.
Tensor operand_for_result_type(const Args& a, int i) {
  if (a.is_tensor(i)) return a.tensor(i);
  Scalar s;
  if (!a[i] || !try_scalar(a[i], s)) a.type_error(i, "Tensor or Number");
  return wrapped_scalar(s);
}
PyObject* py_result_type(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("result_type", "tensor1, tensor2");
  Args a(sig, nullptr, args, nargs, kw);
  PyObject* r = dtype_object(result_type(operand_for_result_type(a, 0), operand_for_result_type(a, 1)));
  Py_INCREF(r);
  return r;
  EMBER_PY_END(nullptr)
}

PyMethodDef dtype_functions[] = {
    {"get_default_dtype", py_get_default_dtype, METH_NOARGS, "The default floating point dtype."},
    {"set_default_dtype", py_set_default_dtype, METH_O, "Sets the default floating point dtype."},
    {"promote_types", EMBER_FASTCALL(py_promote_types), EMBER_METH_KW, "promote_types(type1, type2) -> dtype"},
    {"result_type", EMBER_FASTCALL(py_result_type), EMBER_METH_KW, "result_type(tensor1, tensor2) -> dtype"},
    {nullptr, nullptr, 0, nullptr}};

PyTypeObject* make_type(PyType_Spec* spec, PyObject* bases = nullptr) {
  PyObject* t = bases ? PyType_FromSpecWithBases(spec, bases) : PyType_FromSpec(spec);
  if (!t) throw python_error();
  return reinterpret_cast<PyTypeObject*>(t);
}

void add_object(PyObject* m, const char* name, PyObject* o) {
  Py_INCREF(o);
  if (PyModule_AddObject(m, name, o) < 0) {
    Py_DECREF(o);
    throw python_error();
  }
}

}  // namespace

PyObject* dtype_object(ScalarType t) { return dtype_objects[static_cast<int>(t)]; }

PyObject* new_device(Device d) {
  PyObject* o = device_type->tp_alloc(device_type, 0);
  if (!o) throw python_error();
  reinterpret_cast<PyDevice*>(o)->d = d;
  return o;
}

PyObject* new_size(IntArrayRef sizes) {
  PyObject* s = size_type->tp_alloc(size_type, static_cast<Py_ssize_t>(sizes.size()));
  if (!s) throw python_error();
  for (size_t i = 0; i < sizes.size(); ++i) {
    PyObject* v = PyLong_FromLongLong(sizes[i]);
    if (!v) {
      Py_DECREF(s);
      throw python_error();
    }
    PyTuple_SET_ITEM(s, static_cast<Py_ssize_t>(i), v);
  }
  return s;
}

PyObject* wrap_pair(PyTypeObject* type, std::tuple<Tensor, Tensor> r) {
  PyObject* o = PyStructSequence_New(type);
  if (!o) throw python_error();
  PyObject* a = wrap(std::move(std::get<0>(r)));
  PyObject* b = a ? wrap(std::move(std::get<1>(r))) : nullptr;
  if (!b) {
    Py_XDECREF(a);
    Py_DECREF(o);
    throw python_error();
  }
  PyStructSequence_SetItem(o, 0, a);
  PyStructSequence_SetItem(o, 1, b);
  return o;
}

void init_dtype(PyObject* m) {
  dtype_type = make_type(&dtype_spec);
  // Instances come only from here: ember.dtype cannot be called.
  device_type = make_type(&device_spec);
  PyObject* bases = PyTuple_Pack(1, reinterpret_cast<PyObject*>(&PyTuple_Type));
  size_type = make_type(&size_spec, bases);
  Py_DECREF(bases);
  add_object(m, "dtype", reinterpret_cast<PyObject*>(dtype_type));
  add_object(m, "device", reinterpret_cast<PyObject*>(device_type));
  add_object(m, "Size", reinterpret_cast<PyObject*>(size_type));

  for (int i = 0; i < kNumScalarTypes; ++i) {
    PyObject* o = dtype_type->tp_alloc(dtype_type, 0);
    if (!o) throw python_error();
    reinterpret_cast<PyDtype*>(o)->st = static_cast<ScalarType>(i);
    dtype_objects[i] = o;  // kept for the life of the process
    add_object(m, std::string(dtype_name(static_cast<ScalarType>(i))).c_str(), o);
  }
  struct Alias { const char* name; ScalarType t; };
  const Alias aliases[] = {{"float", kFloat}, {"double", kDouble}, {"half", kHalf}, {"long", kInt64},
                           {"int", kInt32}, {"short", kInt16}, {"cfloat", kComplexFloat},
                           {"cdouble", kComplexDouble}};
  for (const Alias& a : aliases) add_object(m, a.name, dtype_object(a.t));

  return_type_max = PyStructSequence_NewType(&max_desc);
  return_type_min = PyStructSequence_NewType(&min_desc);
  if (!return_type_max || !return_type_min) throw python_error();
  return_type_max->tp_repr = pair_repr;
  return_type_min->tp_repr = pair_repr;
  PyObject* rt = PyDict_New();
  if (!rt) throw python_error();
  PyDict_SetItemString(rt, "max", reinterpret_cast<PyObject*>(return_type_max));
  PyDict_SetItemString(rt, "min", reinterpret_cast<PyObject*>(return_type_min));
  if (PyModule_AddObject(m, "_return_types", rt) < 0) throw python_error();

  if (PyModule_AddFunctions(m, dtype_functions) < 0) throw python_error();
}

}  // namespace ember::py
