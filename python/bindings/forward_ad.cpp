// ember._C forward-mode AD entry points (include/ember/forward_ad.h); python/ember/autograd/
// forward_ad.py gives them torch.autograd.forward_ad's API.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "common.h"
#include "ember/forward_ad.h"

namespace ember::py {

namespace pyb = pybind11;
namespace fw = autograd::forward_ad;

namespace {
Tensor& dual_tensor_arg(pyb::handle h, const char* fn, const char* name, int pos) {
  EMBER_CHECK(is_tensor(h.ptr()), TypeError, fn, "(): argument '", name, "' (position ", pos, ") must be Tensor, not ",
              Py_TYPE(h.ptr())->tp_name);
  return unwrap(h.ptr());
}
pyb::object dual_to_py(Tensor t) {
  if (!t.defined()) return pyb::none();
  return pyb::reinterpret_steal<pyb::object>(wrap(std::move(t)));
}
}  // namespace

void init_forward_ad(PyObject* mod) {
  pyb::module_ m = pyb::reinterpret_borrow<pyb::module_>(mod);
  m.def("_enter_dual_level", [] { return fw::enter_dual_level(); });
  m.def("_exit_dual_level", [](std::optional<int64_t> level) { fw::exit_dual_level(level); }, pyb::arg("level"));
  m.def("_make_dual",
        [](pyb::handle t, pyb::handle tangent, int64_t level) {
          return dual_to_py(fw::make_dual(dual_tensor_arg(t, "_make_dual", "primal", 1),
                                     dual_tensor_arg(tangent, "_make_dual", "tangent", 2), level));
        },
        pyb::arg("primal"), pyb::arg("tangent"), pyb::arg("level"));
  m.def("_unpack_dual",
        [](pyb::handle t, int64_t level) {
          fw::UnpackedDual u = fw::unpack_dual(dual_tensor_arg(t, "_unpack_dual", "dual", 1), level);
          return pyb::make_tuple(dual_to_py(u.primal), dual_to_py(u.tangent));
        },
        pyb::arg("dual"), pyb::arg("level"));
}

}  // namespace ember::py
