// ember._C's vmap primitives for ember.func (python/ember/func/_batched.py): vmap levels, batch
// dims, and the level bookkeeping that grad and vjp need under vmap.
#include "common.h"
#include "ember/func.h"

namespace ember::py {

namespace {

PyObject* func_py_tensor_arg(PyObject* o, const char* fn) {
  if (!is_tensor(o)) {
    PyErr_Format(PyExc_TypeError, "%s(): expected a Tensor, got %s", fn, Py_TYPE(o)->tp_name);
    throw python_error();
  }
  return o;
}

std::vector<int64_t> func_py_int_list(PyObject* o) {
  std::vector<int64_t> r;
  Owned seq(PySequence_Fast(o, "expected a sequence of ints"));
  if (!seq.p) throw python_error();
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq.p); ++i) {
    long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq.p, i));
    if (v == -1 && PyErr_Occurred()) throw python_error();
    r.push_back(v);
  }
  return r;
}

PyObject* func_py_increment_nesting(PyObject*, PyObject* args) {
  EMBER_PY_BEGIN
  long long b;
  const char* randomness;
  if (!PyArg_ParseTuple(args, "Ls", &b, &randomness)) return nullptr;
  return PyLong_FromLongLong(func::vmap_increment_nesting(b, func::parse_randomness(randomness)));
  EMBER_PY_END(nullptr)
}
PyObject* func_py_decrement_nesting(PyObject*, PyObject*) {
  EMBER_PY_BEGIN
  func::vmap_decrement_nesting();
  Py_RETURN_NONE;
  EMBER_PY_END(nullptr)
}
// Turns the Vmap key on for every op of this thread (so that random ops and factories see the
// randomness policy); returns whether it was on.
PyObject* func_py_set_vmap_included(PyObject*, PyObject* arg) {
  EMBER_PY_BEGIN
  LocalDispatchKeySet& local = tls_local_dispatch_keys();
  const bool prev = local.included.has(DispatchKey::Vmap);
  if (PyObject_IsTrue(arg)) {
    local.included = local.included.add(DispatchKey::Vmap);
  } else {
    local.included = local.included.remove(DispatchKey::Vmap);
  }
  return PyBool_FromLong(prev);
  EMBER_PY_END(nullptr)
}
PyObject* func_py_add_batch_dim(PyObject*, PyObject* args) {
  EMBER_PY_BEGIN
  PyObject* t;
  long long d, level;
  if (!PyArg_ParseTuple(args, "OLL", &t, &d, &level)) return nullptr;
  return wrap(func::add_batch_dim(unwrap(func_py_tensor_arg(t, "_add_batch_dim")), d, level));
  EMBER_PY_END(nullptr)
}
PyObject* func_py_remove_batch_dim(PyObject*, PyObject* args) {
  EMBER_PY_BEGIN
  PyObject* t;
  long long level, b, d;
  if (!PyArg_ParseTuple(args, "OLLL", &t, &level, &b, &d)) return nullptr;
  return wrap(func::remove_batch_dim(unwrap(func_py_tensor_arg(t, "_remove_batch_dim")), level, b, d));
  EMBER_PY_END(nullptr)
}
PyObject* func_py_is_batched(PyObject*, PyObject* t) {
  EMBER_PY_BEGIN
  return PyBool_FromLong(func::is_batched(unwrap(func_py_tensor_arg(t, "_is_batched"))));
  EMBER_PY_END(nullptr)
}
PyObject* func_py_batch_level(PyObject*, PyObject* t) {
  EMBER_PY_BEGIN
  return PyLong_FromLongLong(func::batch_level(unwrap(func_py_tensor_arg(t, "_batch_level"))));
  EMBER_PY_END(nullptr)
}
PyObject* func_py_vmap_levels(PyObject*, PyObject*) {
  EMBER_PY_BEGIN
  std::vector<int64_t> lv = func::active_vmap_levels();
  Owned list(PyList_New(static_cast<Py_ssize_t>(lv.size())));
  if (!list.p) throw python_error();
  for (size_t i = 0; i < lv.size(); ++i) PyList_SET_ITEM(list.p, static_cast<Py_ssize_t>(i), PyLong_FromLongLong(lv[i]));
  return list.release();
  EMBER_PY_END(nullptr)
}
PyObject* func_py_lift_levels(PyObject*, PyObject* args) {
  EMBER_PY_BEGIN
  PyObject *t, *levels;
  if (!PyArg_ParseTuple(args, "OO", &t, &levels)) return nullptr;
  return wrap(func::lift_levels(unwrap(func_py_tensor_arg(t, "_lift_levels")), func_py_int_list(levels)));
  EMBER_PY_END(nullptr)
}
PyObject* func_py_lower_levels(PyObject*, PyObject* args) {
  EMBER_PY_BEGIN
  PyObject *t, *levels;
  if (!PyArg_ParseTuple(args, "OO", &t, &levels)) return nullptr;
  return wrap(func::lower_levels(unwrap(func_py_tensor_arg(t, "_lower_levels")), func_py_int_list(levels)));
  EMBER_PY_END(nullptr)
}
PyObject* func_py_detach_batched(PyObject*, PyObject* t) {
  EMBER_PY_BEGIN
  return wrap(func::detach_batched(unwrap(func_py_tensor_arg(t, "_detach_batched"))));
  EMBER_PY_END(nullptr)
}
PyObject* func_py_requires_grad_batched(PyObject*, PyObject* t) {
  EMBER_PY_BEGIN
  return PyBool_FromLong(func::requires_grad_batched(unwrap(func_py_tensor_arg(t, "_requires_grad_batched"))));
  EMBER_PY_END(nullptr)
}

PyObject* func_py_vmap_op_coverage(PyObject*, PyObject*) {
  EMBER_PY_BEGIN
  Owned d(PyDict_New());
  if (!d.p) throw python_error();
  for (const auto& [name, kind] : func::vmap_op_coverage()) {
    Owned v(PyUnicode_FromString(kind.c_str()));
    if (!v.p || PyDict_SetItemString(d.p, name.c_str(), v.p) < 0) throw python_error();
  }
  return d.release();
  EMBER_PY_END(nullptr)
}
PyObject* func_py_vmap_fallback_counts(PyObject*, PyObject*) {
  EMBER_PY_BEGIN
  Owned d(PyDict_New());
  if (!d.p) throw python_error();
  for (const auto& [name, n] : func::vmap_fallback_counts()) {
    Owned v(PyLong_FromLongLong(n));
    if (!v.p || PyDict_SetItemString(d.p, name.c_str(), v.p) < 0) throw python_error();
  }
  return d.release();
  EMBER_PY_END(nullptr)
}

PyMethodDef func_functions[] = {
    {"_vmap_increment_nesting", func_py_increment_nesting, METH_VARARGS, "Enters a vmap level; returns it."},
    {"_vmap_decrement_nesting", func_py_decrement_nesting, METH_NOARGS, "Leaves the innermost vmap level."},
    {"_vmap_set_included", func_py_set_vmap_included, METH_O, "Turns the Vmap key on or off for this thread."},
    {"_add_batch_dim", func_py_add_batch_dim, METH_VARARGS, "(tensor, in_dim, level) -> batched tensor"},
    {"_remove_batch_dim", func_py_remove_batch_dim, METH_VARARGS, "(tensor, level, batch_size, out_dim) -> tensor"},
    {"_is_batched", func_py_is_batched, METH_O, "Whether a tensor is a vmap batched tensor."},
    {"_batch_level", func_py_batch_level, METH_O, "The vmap level of a batched tensor (0 when not batched)."},
    {"_vmap_levels", func_py_vmap_levels, METH_NOARGS, "The active vmap levels, outermost first."},
    {"_lift_levels", func_py_lift_levels, METH_VARARGS, "Moves the batch dims of the given levels into the value."},
    {"_lower_levels", func_py_lower_levels, METH_VARARGS, "Makes the leading dims batch dims of the given levels."},
    {"_detach_batched", func_py_detach_batched, METH_O, "detach() keeping the batch levels."},
    {"_requires_grad_batched", func_py_requires_grad_batched, METH_O, "Whether the tensor under the levels requires grad."},
    {"_vmap_op_coverage", func_py_vmap_op_coverage, METH_NOARGS,
     "{op name: 'rule' | 'random' | 'composite' | 'pointwise' | 'loop'}: how vmap serves each op."},
    {"_vmap_fallback_counts", func_py_vmap_fallback_counts, METH_NOARGS,
     "{op name: runs}: the ops the per-sample loop fallback has run in this process."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void init_func(PyObject* m) {
  if (PyModule_AddFunctions(m, func_functions) < 0) throw python_error();
  // The fallback's performance warning becomes a UserWarning (raising if filters make it an error).
  func::set_vmap_warning_handler([](const std::string& msg) {
    PyGILState_STATE g = PyGILState_Ensure();
    const int rc = PyErr_WarnEx(PyExc_UserWarning, msg.c_str(), 1);
    PyGILState_Release(g);
    if (rc < 0) throw python_error();
  });
}

}  // namespace ember::py
