// The ember._C extension module: error translation and the assembly of all binding areas.
#include <pybind11/pybind11.h>

#include <new>

#include "common.h"
#include "ember/dispatch.h"
#include "ember/parallel.h"

namespace ember::py {

// ember._C.LinAlgError, a RuntimeError subclass (created at module init).
PyObject* linalg_error_type = nullptr;

void set_python_error() {
  try {
    throw;
  } catch (const python_error&) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "unknown error in ember._C");
  } catch (pybind11::error_already_set& e) {
    e.restore();
  } catch (const ember::IndexError& e) {
    PyErr_SetString(PyExc_IndexError, e.what());
  } catch (const ember::ValueError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const ember::TypeError& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
  } catch (const ember::NotImplementedError& e) {
    PyErr_SetString(PyExc_NotImplementedError, e.what());
  } catch (const ember::LinAlgError& e) {
    PyErr_SetString(linalg_error_type ? linalg_error_type : PyExc_RuntimeError, e.what());
  } catch (const ember::Error& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const pybind11::builtin_exception& e) {
    e.set_error();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception in ember._C");
  }
}

namespace {
// ember::warn from C++ becomes a UserWarning; an error raised by the warnings filter
// propagates as the op's exception.
void warn_in_python(const std::string& message) {
  PyGILState_STATE gil = PyGILState_Ensure();
  const int rc = PyErr_WarnEx(PyExc_UserWarning, message.c_str(), 1);
  PyGILState_Release(gil);
  if (rc < 0) throw python_error();
}

// The full names of every op declared to the dispatcher (for coverage tests and tooling).
PyObject* registered_ops(PyObject*, PyObject*) {
  EMBER_PY_BEGIN
  Owned list(PyList_New(0));
  if (!list.p) throw python_error();
  for (const OpEntry* op : Dispatcher::get().all_ops()) {
    if (!op->is_defined()) continue;
    Owned name(PyUnicode_FromString(op->name().c_str()));
    if (!name.p || PyList_Append(list.p, name.p) < 0) throw python_error();
  }
  return list.release();
  EMBER_PY_END(nullptr)
}
PyObject* get_num_threads(PyObject*, PyObject*) { return PyLong_FromLong(ember::get_num_threads()); }
PyObject* set_num_threads(PyObject*, PyObject* arg) {
  EMBER_PY_BEGIN
  long n = PyLong_AsLong(arg);
  if (n == -1 && PyErr_Occurred()) throw python_error();
  ember::set_num_threads(static_cast<int>(n));
  Py_RETURN_NONE;
  EMBER_PY_END(nullptr)
}

PyMethodDef module_functions[] = {
    {"get_num_threads", get_num_threads, METH_NOARGS, "Threads used for intra-op parallelism."},
    {"set_num_threads", set_num_threads, METH_O, "Sets the threads used for intra-op parallelism."},
    {"_registered_ops", registered_ops, METH_NOARGS, "Full names of all ops known to the dispatcher."},
    {nullptr, nullptr, 0, nullptr}};
}  // namespace

}  // namespace ember::py

PYBIND11_MODULE(_C, m) {
  using namespace ember::py;
  // pybind11-bound functions (the cold ones) translate Ember errors the same way.
  pybind11::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const ember::Error&) {
      set_python_error();
    } catch (const python_error&) {
      set_python_error();
    }
  });
  PyObject* mod = m.ptr();
  try {
    init_dtype(mod);
    init_tensor_type(mod);
    init_factories(mod);
    init_interop(mod);
    init_random(mod);
    init_benchmark(mod);
    init_autograd(mod);
    init_serialize(mod);
    init_data(mod);
    init_func(mod);
    init_forward_ad(mod);
    init_fx(mod);
    if (PyModule_AddFunctions(mod, module_functions) < 0) throw python_error();
    ember::set_warning_handler(warn_in_python);
    linalg_error_type = PyErr_NewException("ember.linalg.LinAlgError", PyExc_RuntimeError, nullptr);
    if (!linalg_error_type || PyModule_AddObjectRef(mod, "LinAlgError", linalg_error_type) < 0)
      throw python_error();
    init_generic_ops(mod);
  } catch (const python_error&) {
    throw pybind11::error_already_set();  // keeps the Python error that was set
  }
}
