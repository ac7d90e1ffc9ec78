// ember.utils.data's native part: the IDX reader (ember::data::read_idx).
#include "common.h"
#include "ember/data/idx.h"

namespace ember::py {

namespace {

PyObject* read_idx(PyObject*, PyObject* arg) {
  EMBER_PY_BEGIN
  Owned fs(PyOS_FSPath(arg));  // str or os.PathLike
  if (!fs.p) throw python_error();
  EMBER_CHECK(PyUnicode_Check(fs.p), TypeError, "read_idx(): path must be a str or os.PathLike of str, got ",
              type_name(arg));
  const char* s = PyUnicode_AsUTF8(fs.p);
  if (!s) throw python_error();
  std::string path(s);
  // File reading and inflating take long enough to let other threads run.
  Tensor t = maybe_without_gil(true, [&] { return data::read_idx(path); });
  return wrap(std::move(t));
  EMBER_PY_END(nullptr)
}

PyMethodDef data_functions[] = {
    {"_read_idx", read_idx, METH_O, "Reads an IDX file (plain or gzip) into a tensor."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void init_data(PyObject* m) {
  if (PyModule_AddFunctions(m, data_functions) < 0) throw python_error();
}

}  // namespace ember::py
