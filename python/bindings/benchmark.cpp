// Callgrind client requests for ember.utils.benchmark's instruction counts: the timer script
// runs under `valgrind --tool=callgrind --instr-atstart=no --collect-atstart=no` and switches
// instrumentation and collection on only around the measured loop. Outside valgrind the
// requests are a few no-op instructions.
#include "common.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>) && defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#include <valgrind/callgrind.h>
#define EMBER_HAVE_CALLGRIND 1
#endif
#endif
#ifndef EMBER_HAVE_CALLGRIND
#define EMBER_HAVE_CALLGRIND 0
#endif

namespace ember::py {

namespace {

PyObject* supported_platform(PyObject*, PyObject*) { return PyBool_FromLong(EMBER_HAVE_CALLGRIND); }

PyObject* running_on_valgrind(PyObject*, PyObject*) {
#if EMBER_HAVE_CALLGRIND
  return PyBool_FromLong(RUNNING_ON_VALGRIND ? 1 : 0);
#else
  Py_RETURN_FALSE;
#endif
}

PyObject* start_instrumentation(PyObject*, PyObject*) {
#if EMBER_HAVE_CALLGRIND
  CALLGRIND_START_INSTRUMENTATION;
#endif
  Py_RETURN_NONE;
}

PyObject* stop_instrumentation(PyObject*, PyObject*) {
#if EMBER_HAVE_CALLGRIND
  CALLGRIND_STOP_INSTRUMENTATION;
#endif
  Py_RETURN_NONE;
}

PyObject* zero_stats(PyObject*, PyObject*) {
#if EMBER_HAVE_CALLGRIND
  CALLGRIND_ZERO_STATS;
#endif
  Py_RETURN_NONE;
}

PyObject* toggle_collect(PyObject*, PyObject*) {
#if EMBER_HAVE_CALLGRIND
  CALLGRIND_TOGGLE_COLLECT;
#endif
  Py_RETURN_NONE;
}

// Stops collecting and writes the counts so far to the next callgrind.out.N (which zeroes them).
PyObject* toggle_and_dump_stats(PyObject*, PyObject*) {
#if EMBER_HAVE_CALLGRIND
  CALLGRIND_TOGGLE_COLLECT;
  CALLGRIND_DUMP_STATS;
#endif
  Py_RETURN_NONE;
}

PyMethodDef functions[] = {
    {"_valgrind_supported_platform", supported_platform, METH_NOARGS,
     "Whether this build can send callgrind client requests."},
    {"_running_on_valgrind", running_on_valgrind, METH_NOARGS, "Whether the process runs under valgrind."},
    {"_valgrind_start_instrumentation", start_instrumentation, METH_NOARGS, "CALLGRIND_START_INSTRUMENTATION."},
    {"_valgrind_stop_instrumentation", stop_instrumentation, METH_NOARGS, "CALLGRIND_STOP_INSTRUMENTATION."},
    {"_valgrind_zero_stats", zero_stats, METH_NOARGS, "CALLGRIND_ZERO_STATS."},
    {"_valgrind_toggle", toggle_collect, METH_NOARGS, "CALLGRIND_TOGGLE_COLLECT."},
    {"_valgrind_toggle_and_dump_stats", toggle_and_dump_stats, METH_NOARGS,
     "CALLGRIND_TOGGLE_COLLECT, then CALLGRIND_DUMP_STATS."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void init_benchmark(PyObject* m) {
  if (PyModule_AddFunctions(m, functions) < 0) throw python_error();
}

}  // namespace ember::py
