// ember._C autograd entry points: tensor state (requires_grad, grad, grad_fn, hooks), the
// backward passes and grad mode. python/ember/autograd/ builds the public API on these, and
// python/ember/_tensor.py the Tensor properties and methods.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "common.h"
#include "ember/autograd.h"
#include "ember/autograd_functional.h"
#include "ember/dispatch.h"
#include "ember/gradcheck.h"

namespace ember::py {

namespace pyb = pybind11;
namespace ag = autograd;
namespace agf = autograd::functional;

namespace {

Tensor& as_tensor(pyb::handle h) {
  EMBER_CHECK(is_tensor(h.ptr()), TypeError, "expected a Tensor, got ", Py_TYPE(h.ptr())->tp_name);
  return unwrap(h.ptr());
}
pyb::object to_py(Tensor t) { return pyb::reinterpret_steal<pyb::object>(wrap(std::move(t))); }
std::vector<Tensor> tensors(const pyb::handle& seq, bool allow_none) {
  std::vector<Tensor> r;
  if (seq.is_none()) return r;
  for (pyb::handle h : seq) {
    if (h.is_none() && allow_none) r.emplace_back();
    else r.push_back(as_tensor(h));
  }
  return r;
}

// ---- autograd.functional: python/ember/autograd/functional.py passes a Tensor-or-tuple as
// (is_tuple, tuple of Tensors), and gets the results nested as torch returns them.
agf::TensorOrTuple tensor_or_tuple(bool is_tuple, const pyb::handle& seq) {
  agf::TensorOrTuple r(tensors(seq, false));
  r.is_tuple = is_tuple;
  return r;
}
std::optional<agf::TensorOrTuple> optional_v(const pyb::handle& v) {
  if (v.is_none()) return std::nullopt;
  return tensor_or_tuple(true, v);
}
// fn returns (is_tuple, outputs), its outputs already checked to be Tensors.
agf::Function py_function(pyb::object fn) {
  return [fn = std::move(fn)](const std::vector<Tensor>& args) {
    pyb::tuple a(args.size());
    for (size_t i = 0; i < args.size(); ++i) a[i] = to_py(args[i]);
    pyb::tuple r = fn(*a);
    return tensor_or_tuple(r[0].cast<bool>(), r[1]);
  };
}
pyb::object to_py(const agf::TensorOrTuple& t) {
  if (!t.is_tuple) return to_py(t[0]);
  pyb::tuple r(t.size());
  for (size_t i = 0; i < t.size(); ++i) r[i] = to_py(t[i]);
  return r;
}
pyb::object to_py(const agf::Jacobian& j) {
  auto row = [&](size_t i) {
    agf::TensorOrTuple r(j.blocks[i]);
    r.is_tuple = j.inputs_tuple;
    return to_py(r);
  };
  if (!j.outputs_tuple) return row(0);
  pyb::tuple r(j.blocks.size());
  for (size_t i = 0; i < j.blocks.size(); ++i) r[i] = row(i);
  return r;
}
using ProductFn = std::pair<agf::TensorOrTuple, agf::TensorOrTuple> (*)(
    const agf::Function&, const agf::TensorOrTuple&, const std::optional<agf::TensorOrTuple>&, bool, bool);
void def_product(pyb::module_& m, const char* name, ProductFn f) {
  m.def(name, [f](pyb::object fn, bool is_tuple, pyb::handle inputs, pyb::handle v, bool create_graph, bool strict) {
    auto [out, res] = f(py_function(std::move(fn)), tensor_or_tuple(is_tuple, inputs), optional_v(v), create_graph,
                        strict);
    return pyb::make_tuple(to_py(out), to_py(res));
  });
}

// ---- grad_fn.register_hook: a Python post hook, hook(grad_inputs, grad_outputs) -> None or a
// tuple of replacements, checked as PyTorch 1.13 checks them (python_hook.cpp's check_result).
std::string hook_name(const pyb::handle& hook) {
  if (pyb::hasattr(hook, "__name__")) return pyb::str(hook.attr("__name__")).cast<std::string>();
  return "<unknown>";
}
pyb::tuple to_py_tuple(const std::vector<Tensor>& ts) {
  pyb::tuple r(ts.size());
  for (size_t i = 0; i < ts.size(); ++i) r[i] = ts[i].defined() ? to_py(ts[i]) : pyb::none();
  return r;
}
// A type's short name ('Tensor', 'list'), as PyTorch's messages print it.
std::string short_type_name(pyb::handle o) {
  return pyb::str(pyb::handle(reinterpret_cast<PyObject*>(Py_TYPE(o.ptr()))).attr("__name__")).cast<std::string>();
}
[[noreturn]] void raise_py(PyObject* type, const std::string& msg) {
  PyErr_SetString(type, msg.c_str());
  throw pyb::error_already_set();
}
ag::PostHook py_post_hook(pyb::object hook) {
  // The hook is shared so that the std::function (copied by the engine) never copies a
  // Python reference without the GIL.
  auto h = std::make_shared<pyb::object>(std::move(hook));
  return [h](const std::vector<Tensor>& grad_inputs,
             const std::vector<Tensor>& grad_outputs) -> std::optional<std::vector<Tensor>> {
    pyb::gil_scoped_acquire gil;
    pyb::tuple prev = to_py_tuple(grad_inputs);
    pyb::object r = (*h)(prev, to_py_tuple(grad_outputs));
    if (r.is_none()) return std::nullopt;
    if (!PyTuple_Check(r.ptr()))
      raise_py(PyExc_TypeError, "expected tuple, but hook returned '" + short_type_name(r) + "'");
    pyb::tuple res = pyb::reinterpret_borrow<pyb::tuple>(r);
    const std::string name = hook_name(*h);
    if (res.size() != prev.size())
      raise_py(PyExc_RuntimeError, "hook '" + name + "' has returned an incorrect number of values (got " +
                                       std::to_string(res.size()) + ", but expected " +
                                       std::to_string(prev.size()) + ")");
    std::vector<Tensor> out(res.size());
    for (size_t i = 0; i < res.size(); ++i) {
      pyb::handle v = res[i];
      if (v.is_none()) continue;
      if (!grad_inputs[i].defined()) raise_py(PyExc_RuntimeError, "can't replace a None gradient with a non-None value");
      if (!is_tensor(v.ptr()))
        raise_py(PyExc_TypeError, "expected Variable, but hook returned '" + short_type_name(v) + "'");
      const Tensor& t = unwrap(v.ptr());
      const Tensor& o = grad_inputs[i];
      if (t.dtype() != o.dtype() || t.device() != o.device())
        raise_py(PyExc_RuntimeError, "hook '" + name + "' has changed the type of value (was " +
                                         pyb::str(prev[i].attr("type")()).cast<std::string>() + " got " +
                                         pyb::str(v.attr("type")()).cast<std::string>() + ")");
      if (t.sizes() != o.sizes()) raise_py(PyExc_RuntimeError, "hook '" + name + "' has changed the size of value");
      out[i] = t;
    }
    return out;
  };
}

// What grad_fn.register_hook returns: remove() takes the hook off the node, if it still lives.
struct NodeHookHandle {
  std::weak_ptr<ag::Node> node;
  int64_t id;
  void remove() const {
    if (auto n = node.lock()) n->remove_hook(id);
  }
};

// ---- nn.UninitializedParameter / UninitializedBuffer (python/ember/nn/parameter.py): their
// tensors carry the Uninitialized key, whose fallback rejects every op as PyTorch's
// __torch_function__ does, except the conversions and copies that lazy modules rely on
// (Module.to / .double(), load_state_dict), which run below the key.
void uninitialized_fallback(const OpEntry& op, DispatchKeySet ks, Stack& stack) {
  const std::string& name = op.schema().name;
  if (name == "to" || name == "copy_") {
    ExcludeKeyGuard guard(DispatchKey::Uninitialized);
    op.call_boxed(ks.remove(DispatchKey::Uninitialized), stack);
    return;
  }
  EMBER_FAIL(ValueError, "Attempted to use an uninitialized parameter in ", name,
             ". This error happens when you are using a `LazyModule` or explicitly manipulating "
             "`ember.nn.parameter.UninitializedParameter` or `UninitializedBuffer` objects. When using LazyModules "
             "Call `forward` with a dummy batch to initialize the parameters before calling ember functions");
}

}  // namespace

void init_autograd(PyObject* mod) {
  pyb::module_ m = pyb::reinterpret_borrow<pyb::module_>(mod);
  pyb::class_<ag::Node, std::shared_ptr<ag::Node>>(m, "_Node")
      .def("name", &ag::Node::name)
      .def_property_readonly("next_functions", [](const ag::Node& n) {
        pyb::tuple r(n.next_edges().size());
        for (size_t i = 0; i < n.next_edges().size(); ++i) {
          const ag::Edge& e = n.next_edges()[i];
          r[i] = pyb::make_tuple(e.fn ? pyb::cast(e.fn) : pyb::none(), e.input_nr);
        }
        return r;
      })
      // Two grad_fn objects are equal when they are the same node (wrappers may differ).
      .def("__eq__", [](const ag::Node& a, pyb::handle b) {
        return pyb::isinstance<ag::Node>(b) && &a == &b.cast<const ag::Node&>();
      })
      .def("__hash__", [](const ag::Node& n) { return std::hash<const void*>()(&n); })
      .def("register_hook",
           [](const std::shared_ptr<ag::Node>& n, pyb::object hook) {
             return NodeHookHandle{n, n->register_hook(py_post_hook(std::move(hook)))};
           })
      .def("__repr__", [](const ag::Node& n) { return "<" + n.name() + " object>"; });
  pyb::class_<NodeHookHandle>(m, "_NodeHookHandle")
      .def("remove", &NodeHookHandle::remove)
      .def("__enter__", [](pyb::object self) { return self; })
      .def("__exit__", [](const NodeHookHandle& h, pyb::args) { h.remove(); });

  m.def("_requires_grad", [](pyb::handle t) { return ag::requires_grad(as_tensor(t)); });
  m.def("_set_requires_grad", [](pyb::handle t, bool v) { ag::set_requires_grad(as_tensor(t), v); });
  m.def("_is_leaf", [](pyb::handle t) { return ag::is_leaf(as_tensor(t)); });
  m.def("_grad_fn", [](pyb::handle t) { return ag::grad_fn(as_tensor(t)); });
  m.def("_output_nr", [](pyb::handle t) { return ag::output_nr(as_tensor(t)); });
  m.def("_grad", [](pyb::handle t) { return to_py(ag::grad(as_tensor(t))); });
  m.def("_set_grad", [](pyb::handle t, pyb::handle g) {
    ag::set_grad(as_tensor(t), g.is_none() ? Tensor() : as_tensor(g));
  });
  m.def("_retain_grad", [](pyb::handle t) { ag::retain_grad(as_tensor(t)); });
  m.def("_retains_grad", [](pyb::handle t) { return ag::retains_grad(as_tensor(t)); });
  m.def("_detach_", [](pyb::handle t) { ag::detach_(as_tensor(t)); });
  Dispatcher::get().set_fallback(DispatchKey::Uninitialized, &uninitialized_fallback);
  m.def("_set_uninitialized", [](pyb::handle t, bool v) {
    const DispatchKeySet k(DispatchKey::Uninitialized);
    if (v) as_tensor(t).impl()->add_keys(k);
    else as_tensor(t).impl()->remove_keys(k);
  });
  m.def("_is_uninitialized", [](pyb::handle t) {
    return as_tensor(t).key_set().has(DispatchKey::Uninitialized);
  });
  m.def("_register_hook", [](pyb::handle t, pyb::object hook) {
    return ag::register_hook(as_tensor(t), [hook](const Tensor& g) {
      pyb::gil_scoped_acquire gil;
      pyb::object r = hook(to_py(g));
      return r.is_none() ? Tensor() : as_tensor(r);
    });
  });
  m.def("_remove_hook", [](pyb::handle t, int64_t h) { ag::remove_hook(as_tensor(t), h); });
  m.def("_backward", [](pyb::handle roots, pyb::handle grads, std::optional<bool> retain_graph, bool create_graph,
                        pyb::handle inputs) {
    ag::backward(tensors(roots, false), tensors(grads, true), retain_graph, create_graph, tensors(inputs, false));
  });
  m.def("_run_grad", [](pyb::handle outputs, pyb::handle inputs, pyb::handle grad_outputs,
                        std::optional<bool> retain_graph, bool create_graph, bool allow_unused,
                        bool is_grads_batched) {
    std::vector<Tensor> r = ag::grad(tensors(outputs, false), tensors(inputs, false), tensors(grad_outputs, true),
                                     retain_graph, create_graph, allow_unused, is_grads_batched);
    pyb::tuple out(r.size());
    for (size_t i = 0; i < r.size(); ++i) out[i] = to_py(r[i]);
    return out;
  });
  // ember.autograd.Function: the context (Python code may set attributes on it) and the
  // recording of a forward's outputs.
  pyb::class_<ag::AutogradContext, std::shared_ptr<ag::AutogradContext>>(m, "_FunctionContext", pyb::dynamic_attr())
      .def(pyb::init<>())
      .def("_save", [](ag::AutogradContext& c, pyb::handle ts) { c.save_for_backward(tensors(ts, true)); })
      .def("_saved", [](const ag::AutogradContext& c) {
        std::vector<Tensor> v = c.get_saved_variables();
        pyb::tuple r(v.size());
        for (size_t i = 0; i < v.size(); ++i) r[i] = to_py(v[i]);
        return r;
      })
      .def("_mark_dirty", [](ag::AutogradContext& c, pyb::handle ts) { c.mark_dirty(tensors(ts, false)); })
      .def("_mark_non_differentiable",
           [](ag::AutogradContext& c, pyb::handle ts) { c.mark_non_differentiable(tensors(ts, false)); });
  m.def("_record_function", [](const std::string& name, pyb::handle inputs, pyb::handle outputs,
                               std::shared_ptr<ag::AutogradContext> ctx, pyb::object backward) {
    auto bw = [backward](ag::AutogradContext&, std::vector<Tensor> grads) {
      pyb::gil_scoped_acquire gil;
      pyb::tuple args(grads.size());
      for (size_t i = 0; i < grads.size(); ++i) args[i] = to_py(grads[i]);
      pyb::object r = backward(*args);
      return tensors(r, true);
    };
    std::vector<Tensor> outs = ag::record_function(name, tensors(inputs, true), tensors(outputs, true), ctx, bw);
    pyb::tuple r(outs.size());
    for (size_t i = 0; i < outs.size(); ++i) r[i] = to_py(outs[i]);
    return r;
  });
  def_product(m, "_functional_vjp", agf::vjp);
  def_product(m, "_functional_jvp", agf::jvp);
  def_product(m, "_functional_vhp", agf::vhp);
  def_product(m, "_functional_hvp", agf::hvp);
  m.def("_functional_jacobian", [](pyb::object fn, bool is_tuple, pyb::handle inputs, bool create_graph, bool strict,
                                   bool vectorize, const std::string& strategy) {
    return to_py(agf::jacobian(py_function(std::move(fn)), tensor_or_tuple(is_tuple, inputs), create_graph, strict,
                               vectorize, strategy));
  });
  m.def("_functional_hessian", [](pyb::object fn, bool is_tuple, pyb::handle inputs, bool create_graph, bool strict,
                                  bool vectorize, const std::string& strategy) {
    return to_py(agf::hessian(py_function(std::move(fn)), tensor_or_tuple(is_tuple, inputs), create_graph, strict,
                              vectorize, strategy));
  });
  // gradcheck / gradgradcheck: func takes and returns lists of tensors (python/ember/autograd/
  // gradcheck.py puts the non-tensor arguments back). GradcheckError maps to the Python class.
  m.def("_gradcheck", [](pyb::object func, pyb::handle inputs, pyb::handle grad_outputs, bool second_order,
                         double eps, double atol, double rtol, bool raise_exception, bool check_undefined_grad,
                         double nondet_tol, bool check_grad_dtypes, bool fast_mode, bool non_contig) {
    ag::GradcheckFunction f = [func](const std::vector<Tensor>& xs) {
      pyb::list args;
      for (const Tensor& x : xs) args.append(to_py(x));
      return tensors(func(args), false);
    };
    ag::GradcheckOptions o{eps, atol, rtol, raise_exception, check_undefined_grad, nondet_tol, check_grad_dtypes,
                           fast_mode};
    try {
      if (!second_order) return ag::gradcheck(f, tensors(inputs, false), o);
      std::optional<std::vector<Tensor>> gs;
      if (!grad_outputs.is_none()) gs = tensors(grad_outputs, false);
      return ag::gradgradcheck(f, tensors(inputs, false), gs, o, non_contig);
    } catch (const ag::GradcheckError& e) {
      pyb::object cls = pyb::module_::import("ember.autograd.gradcheck").attr("GradcheckError");
      PyErr_SetString(cls.ptr(), e.what());
      throw pyb::error_already_set();
    }
  });
  m.def("_is_grad_enabled", [] { return ag::GradMode::is_enabled(); });
  m.def("_set_grad_enabled", [](bool v) { ag::GradMode::set_enabled(v); });

  // Anomaly mode: nodes keep the Python traceback of their creation, and reports are
  // UserWarnings (as PyTorch's are).
  m.def("_set_anomaly_enabled", [](bool v, bool check_nan) { ag::AnomalyMode::set_enabled(v, check_nan); });
  m.def("_is_anomaly_enabled", [] { return ag::AnomalyMode::is_enabled(); });
  m.def("_is_anomaly_check_nan_enabled", [] { return ag::AnomalyMode::should_check_nan(); });
  ag::set_anomaly_hooks({[]() -> std::string {
                           pyb::gil_scoped_acquire gil;
                           pyb::object stack = pyb::module_::import("traceback").attr("format_stack")();
                           return pyb::str("").attr("join")(stack).cast<std::string>();
                         },
                         [](const std::string& report) {
                           pyb::gil_scoped_acquire gil;
                           if (PyErr_WarnEx(PyExc_UserWarning, report.c_str(), 1) < 0) throw pyb::error_already_set();
                         }});

  // Inference mode: ember.inference_mode holds one of these while its block runs.
  pyb::class_<InferenceMode>(m, "_InferenceMode").def(pyb::init<bool>());
  m.def("_is_inference_mode_enabled", [] { return InferenceMode::is_enabled(); });
  m.def("_is_inference", [](pyb::handle t) { return as_tensor(t).is_inference(); });
  m.def("_version", [](pyb::handle t) {
    const Tensor& x = as_tensor(t);
    EMBER_CHECK(!x.is_inference(), RuntimeError, "Inference tensors do not track version counter.");
    return x.version();
  });
}

// requires_grad=True of a factory: marks the new tensor after the factory made it.
PyObject* apply_requires_grad(PyObject* result, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  if (!result || !kwnames) return result;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(kwnames); ++i) {
    if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, i), "requires_grad") != 0) continue;
    const int flag = PyObject_IsTrue(args[nargs + i]);
    if (flag < 0) {
      Py_DECREF(result);
      return nullptr;
    }
    if (flag && is_tensor(result)) {
      try {
        ag::set_requires_grad(unwrap(result), true);
      } catch (...) {
        Py_DECREF(result);
        set_python_error();
        return nullptr;
      }
    }
  }
  return result;
}

}  // namespace ember::py
