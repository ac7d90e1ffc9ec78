// ember._C._fx: the Graph IR of ember::fx (include/ember/fx.h) as Python classes.
//
// Graphs and nodes are pybind11 classes held by shared_ptr (they are cold: a trace builds a
// graph once). Python values in args travel as PyObjectOpaque; numbers, strings, dtypes,
// devices and exact lists/tuples/str-keyed dicts become plain Args, so that C++ passes, the
// JSON schema and C++ code generation can read graphs that Python built.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "common.h"
#include "ember/fx.h"
#include "ember/fx/packed_conv.h"
#include "ember/fx/trace.h"

namespace ember::py {

namespace pyb = pybind11;
using fx::Arg;
using fx::Graph;
using fx::Node;
using fx::Opcode;

namespace {

// A Python object inside the IR; released under the GIL, whatever thread drops it.
struct PyObjectOpaque : fx::Opaque {
  PyObject* obj;
  explicit PyObjectOpaque(PyObject* o) : obj(o) { Py_INCREF(o); }
  ~PyObjectOpaque() override {
    if (!Py_IsInitialized()) return;
    PyGILState_STATE s = PyGILState_Ensure();
    Py_DECREF(obj);
    PyGILState_Release(s);
  }
  std::string repr() const override {
    pyb::gil_scoped_acquire gil;
    // Functions print by qualified name, as torch.fx's tables do.
    PyObject* name = PyObject_GetAttrString(obj, "__qualname__");
    if (name && PyUnicode_Check(name) && (PyFunction_Check(obj) || PyCFunction_Check(obj) || PyType_Check(obj))) {
      std::string r = PyUnicode_AsUTF8(name);
      Py_DECREF(name);
      return r;
    }
    Py_XDECREF(name);
    PyErr_Clear();
    PyObject* r = PyObject_Repr(obj);
    if (!r) {
      PyErr_Clear();
      return "<object>";
    }
    std::string s = PyUnicode_AsUTF8(r);
    Py_DECREF(r);
    return s;
  }
  bool equals(const fx::Opaque& other) const override {
    auto* o = dynamic_cast<const PyObjectOpaque*>(&other);
    if (!o) return false;
    if (o->obj == obj) return true;
    pyb::gil_scoped_acquire gil;
    // Only values compared by value (slices, Ellipsis, numbers); tensors compare by identity.
    if (Py_TYPE(obj) != Py_TYPE(o->obj) || is_tensor(obj)) return false;
    int r = PyObject_RichCompareBool(obj, o->obj, Py_EQ);
    if (r < 0) PyErr_Clear();
    return r == 1;
  }
  size_t hash() const override {
    pyb::gil_scoped_acquire gil;
    if (is_tensor(obj)) return reinterpret_cast<size_t>(obj);
    Py_hash_t h = PyObject_Hash(obj);
    if (h == -1) {
      PyErr_Clear();
      return reinterpret_cast<size_t>(obj);
    }
    return static_cast<size_t>(h);
  }
};

std::shared_ptr<fx::Opaque> opaque_of(PyObject* o) { return std::make_shared<PyObjectOpaque>(o); }

pyb::object node_object(Node* n) { return n ? pyb::cast(n->shared_from_this()) : pyb::none(); }

Arg to_arg(pyb::handle h) {
  PyObject* o = h.ptr();
  if (o == Py_None) return Arg();
  if (PyBool_Check(o)) return Arg(o == Py_True);
  if (PyLong_CheckExact(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (!overflow) return Arg(static_cast<int64_t>(v));
    return Arg(opaque_of(o));
  }
  if (PyFloat_CheckExact(o)) return Arg(PyFloat_AS_DOUBLE(o));
  if (PyUnicode_CheckExact(o)) return Arg(std::string(PyUnicode_AsUTF8(o)));
  if (Py_TYPE(o) == dtype_type) return Arg(reinterpret_cast<PyDtype*>(o)->st);
  if (Py_TYPE(o) == device_type) return Arg(reinterpret_cast<PyDevice*>(o)->d);
  if (pyb::isinstance<Node>(h)) {
    Node* n = h.cast<Node*>();
    EMBER_CHECK(!n->erased(), RuntimeError, "fx: node '", n->name(), "' was erased from its graph");
    return Arg(n);
  }
  if (PyList_CheckExact(o) || PyTuple_CheckExact(o)) {
    std::vector<Arg> items;
    for (pyb::handle e : h) items.push_back(to_arg(e));
    return PyList_CheckExact(o) ? Arg::list(std::move(items)) : Arg::tuple(std::move(items));
  }
  if (PyDict_CheckExact(o)) {
    bool str_keys = true;
    for (auto kv : pyb::reinterpret_borrow<pyb::dict>(h)) str_keys = str_keys && PyUnicode_CheckExact(kv.first.ptr());
    if (str_keys) {
      std::vector<std::pair<std::string, Arg>> entries;
      for (auto kv : pyb::reinterpret_borrow<pyb::dict>(h))
        entries.emplace_back(kv.first.cast<std::string>(), to_arg(kv.second));
      return Arg::dict(std::move(entries));
    }
  }
  return Arg(opaque_of(o));
}

pyb::object from_arg(const Arg& a) {
  switch (a.kind()) {
    case Arg::Kind::None: return pyb::none();
    case Arg::Kind::Bool: return pyb::bool_(a.to_bool());
    case Arg::Kind::Int: return pyb::int_(a.to_int());
    case Arg::Kind::Double: return pyb::float_(a.to_double());
    case Arg::Kind::String: return pyb::str(a.to_string());
    case Arg::Kind::Node: return node_object(a.to_node());
    case Arg::Kind::Dtype: return pyb::reinterpret_borrow<pyb::object>(dtype_object(a.to_dtype()));
    case Arg::Kind::Device: {
      PyObject* d = new_device(a.to_device());
      if (!d) throw python_error();
      return pyb::reinterpret_steal<pyb::object>(d);
    }
    case Arg::Kind::Opaque: {
      if (auto* p = dynamic_cast<PyObjectOpaque*>(a.to_opaque().get()))
        return pyb::reinterpret_borrow<pyb::object>(p->obj);
      return pyb::str(a.to_opaque()->repr());
    }
    case Arg::Kind::List: {
      pyb::list l;
      for (const Arg& e : a.items()) l.append(from_arg(e));
      return l;
    }
    case Arg::Kind::Tuple: {
      pyb::tuple t(a.items().size());
      for (size_t i = 0; i < a.items().size(); ++i) t[i] = from_arg(a.items()[i]);
      return t;
    }
    case Arg::Kind::Dict: {
      pyb::dict d;
      for (size_t i = 0; i < a.items().size(); ++i) d[pyb::str(a.keys()[i])] = from_arg(a.items()[i]);
      return d;
    }
  }
  return pyb::none();
}

std::vector<Arg> to_args(pyb::handle args) {
  std::vector<Arg> out;
  if (args.is_none()) return out;
  EMBER_CHECK(PyTuple_Check(args.ptr()) || PyList_Check(args.ptr()), TypeError,
              "fx: args must be a tuple, not ", type_name(args.ptr()));
  for (pyb::handle e : args) out.push_back(to_arg(e));
  return out;
}

fx::Kwargs to_kwargs(pyb::handle kwargs) {
  fx::Kwargs out;
  if (kwargs.is_none()) return out;
  EMBER_CHECK(PyDict_Check(kwargs.ptr()), TypeError, "fx: kwargs must be a dict, not ", type_name(kwargs.ptr()));
  for (auto kv : pyb::reinterpret_borrow<pyb::dict>(kwargs)) {
    EMBER_CHECK(PyUnicode_Check(kv.first.ptr()), TypeError, "fx: kwargs keys must be str");
    out.emplace_back(kv.first.cast<std::string>(), to_arg(kv.second));
  }
  return out;
}

pyb::tuple args_tuple(const std::vector<Arg>& args) {
  pyb::tuple t(args.size());
  for (size_t i = 0; i < args.size(); ++i) t[i] = from_arg(args[i]);
  return t;
}

pyb::dict kwargs_dict(const fx::Kwargs& kw) {
  pyb::dict d;
  for (const auto& [k, v] : kw) d[pyb::str(k)] = from_arg(v);
  return d;
}

std::string type_string(pyb::handle t) {
  if (t.is_none()) return "";
  if (PyUnicode_Check(t.ptr())) return t.cast<std::string>();
  if (pyb::hasattr(t, "__name__")) return pyb::str(t.attr("__name__")).cast<std::string>();
  return pyb::str(t).cast<std::string>();
}

// "ember.nn.functional.relu": how tables and the C++ view of the graph name a callable.
std::string qualified_name(pyb::handle fn) {
  std::string mod, name;
  if (pyb::hasattr(fn, "__module__") && !fn.attr("__module__").is_none())
    mod = pyb::str(fn.attr("__module__")).cast<std::string>();
  if (pyb::hasattr(fn, "__qualname__")) name = pyb::str(fn.attr("__qualname__")).cast<std::string>();
  else if (pyb::hasattr(fn, "__name__")) name = pyb::str(fn.attr("__name__")).cast<std::string>();
  else name = pyb::str(fn).cast<std::string>();
  if (mod == "ember._C" || mod.empty()) mod = "ember";
  if (mod == "_operator") mod = "operator";
  return mod + "." + name;
}

// The default name of a call_function node: the callable's snake-cased __name__.
std::string function_node_name(pyb::handle fn) {
  std::string n = pyb::hasattr(fn, "__name__") ? pyb::str(fn.attr("__name__")).cast<std::string>() : "fn";
  std::string out;
  for (size_t i = 0; i < n.size(); ++i) {
    char c = n[i];
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (i && (std::islower(static_cast<unsigned char>(n[i - 1])) ||
                (i + 1 < n.size() && std::islower(static_cast<unsigned char>(n[i + 1])))) && out.back() != '_')
        out += '_';
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      out += c;
    }
  }
  // operator.getitem / torch-style dunder names
  while (!out.empty() && out.front() == '_') out.erase(out.begin());
  while (!out.empty() && out.back() == '_' && n.back() == '_' && n.size() > 2 && n[n.size() - 2] == '_') out.pop_back();
  return out.empty() ? "fn" : out;
}

Node* create(Graph& g, const std::string& op_name, pyb::object target, pyb::object args, pyb::object kwargs,
             pyb::object name, pyb::object type_expr) {
  Opcode op = fx::opcode_from_name(op_name);
  std::string tname, nname = name.is_none() ? "" : name.cast<std::string>();
  std::shared_ptr<fx::Opaque> obj;
  if (PyUnicode_Check(target.ptr())) {
    tname = target.cast<std::string>();
    if (nname.empty() && op == Opcode::CallFunction) nname = tname;
  } else {
    EMBER_CHECK(op == Opcode::CallFunction, TypeError, "fx: the target of a ", op_name,
                " node must be a str, not ", type_name(target.ptr()));
    EMBER_CHECK(PyCallable_Check(target.ptr()), TypeError, "fx: the target of a call_function node must be callable, not ",
                type_name(target.ptr()));
    tname = qualified_name(target);
    obj = opaque_of(target.ptr());
    if (nname.empty()) nname = function_node_name(target);
  }
  if (nname.empty() && (op == Opcode::CallModule || op == Opcode::GetAttr)) {
    nname = tname;
  }
  std::vector<Arg> a = to_args(args);
  return g.create_node(op, std::move(tname), std::move(a), to_kwargs(kwargs), std::move(nname), type_string(type_expr),
                       std::move(obj));
}

// `with graph.inserting_before(n):` restores the previous insertion point on exit.
struct InsertCtx {
  std::shared_ptr<Graph> g;
  Node* before;
  Node* saved = nullptr;
};

pyb::object get_meta(Node& n) {
  if (!n.meta) {
    pyb::dict d;
    n.meta = opaque_of(d.ptr());
  }
  return pyb::reinterpret_borrow<pyb::object>(static_cast<PyObjectOpaque*>(n.meta.get())->obj);
}

}  // namespace

void init_fx(PyObject* m) {
  auto mod = pyb::reinterpret_borrow<pyb::module_>(m).def_submodule("_fx", "ember.fx's graph IR");

  pyb::class_<Node, std::shared_ptr<Node>>(mod, "Node")
      .def_property_readonly("name", &Node::name)
      .def_property_readonly("op", [](const Node& n) { return std::string(fx::opcode_name(n.op())); })
      .def_property(
          "target",
          [](const Node& n) -> pyb::object {
            if (auto* p = dynamic_cast<PyObjectOpaque*>(n.target_object().get()))
              return pyb::reinterpret_borrow<pyb::object>(p->obj);
            return pyb::str(n.target());
          },
          [](Node& n, pyb::object t) {
            if (PyUnicode_Check(t.ptr())) n.set_target(t.cast<std::string>());
            else n.set_target(qualified_name(t), opaque_of(t.ptr()));
          })
      .def_property_readonly("_target_name", &Node::target)
      .def_property(
          "args", [](const Node& n) { return args_tuple(n.args()); },
          [](Node& n, pyb::object a) { n.set_args(to_args(a)); })
      .def_property(
          "kwargs", [](const Node& n) { return kwargs_dict(n.kwargs()); },
          [](Node& n, pyb::object k) { n.set_kwargs(to_kwargs(k)); })
      .def_property_readonly("users",
                             [](const Node& n) {
                               // torch.fx keeps users as a dict (an ordered set) of nodes
                               pyb::dict d;
                               for (Node* u : n.users()) d[node_object(u)] = pyb::none();
                               return d;
                             })
      .def_property_readonly("all_input_nodes",
                             [](const Node& n) {
                               pyb::list l;
                               for (Node* i : n.all_input_nodes()) l.append(node_object(i));
                               return l;
                             })
      .def_property_readonly("prev", [](const Node& n) { return node_object(n.prev()); })
      .def_property_readonly("next", [](const Node& n) { return node_object(n.next()); })
      .def_property_readonly("graph",
                             [](const Node& n) -> pyb::object {
                               return n.graph() ? pyb::cast(n.graph()->shared_from_this()) : pyb::none();
                             })
      .def_property_readonly("meta", &get_meta)
      .def_property(
          "type", [](const Node& n) -> pyb::object { if (n.type.empty()) return pyb::none(); return pyb::str(n.type); },
          [](Node& n, pyb::object t) { n.type = type_string(t); })
      .def_property(
          "shape",
          [](const Node& n) -> pyb::object {
            if (!n.shape) return pyb::none();
            return pyb::reinterpret_steal<pyb::object>(new_size(*n.shape));
          },
          [](Node& n, std::optional<std::vector<int64_t>> s) { n.shape = std::move(s); })
      .def_property(
          "dtype",
          [](const Node& n) -> pyb::object {
            if (!n.dtype) return pyb::none();
            return pyb::reinterpret_borrow<pyb::object>(dtype_object(*n.dtype));
          },
          [](Node& n, pyb::object d) {
            if (d.is_none()) n.dtype.reset();
            else {
              EMBER_CHECK(Py_TYPE(d.ptr()) == dtype_type, TypeError, "Node.dtype must be an ember.dtype or None");
              n.dtype = reinterpret_cast<PyDtype*>(d.ptr())->st;
            }
          })
      .def("replace_all_uses_with",
           [](Node& n, Node& r) {
             pyb::list l;
             for (Node* u : n.replace_all_uses_with(&r)) l.append(node_object(u));
             return l;
           })
      .def("replace_input_with", [](Node& n, Node& a, Node& b) { n.replace_input_with(&a, &b); })
      .def("update_arg", [](Node& n, size_t i, pyb::object a) { n.update_arg(i, to_arg(a)); })
      .def("update_kwarg", [](Node& n, const std::string& k, pyb::object a) { n.update_kwarg(k, to_arg(a)); })
      .def("prepend", [](Node& n, Node& x) { n.prepend(&x); })
      .def("append", [](Node& n, Node& x) { n.append(&x); })
      .def("_is_impure_default", &Node::is_impure)
      .def("format_node", &Node::format)
      .def("__repr__", &Node::name);

  pyb::class_<InsertCtx>(mod, "_InsertPoint")
      .def("__enter__",
           [](InsertCtx& c) {
             c.saved = c.g->insertion_point();
             c.g->set_insertion_point(c.before);
           })
      .def("__exit__", [](InsertCtx& c, pyb::args) {
        c.g->set_insertion_point(c.saved);
        return false;
      });

  pyb::class_<Graph, std::shared_ptr<Graph>>(mod, "Graph")
      .def(pyb::init<>())
      .def_property_readonly("nodes",
                             [](const Graph& g) {
                               pyb::list l;
                               for (Node* n : g.nodes()) l.append(node_object(n));
                               return l;
                             })
      .def("__len__", &Graph::size)
      .def("find_node", [](const Graph& g, const std::string& name) { return node_object(g.find_node(name)); })
      .def(
          "create_node",
          [](Graph& g, const std::string& op, pyb::object t, pyb::object a, pyb::object k, pyb::object n,
             pyb::object te) { return node_object(create(g, op, t, a, k, n, te)); },
          pyb::arg("op"), pyb::arg("target"), pyb::arg("args") = pyb::none(),
           pyb::arg("kwargs") = pyb::none(), pyb::arg("name") = pyb::none(), pyb::arg("type_expr") = pyb::none())
      .def(
          "placeholder",
          [](Graph& g, const std::string& name, pyb::object type_expr, pyb::args default_value) {
            std::optional<Arg> d;
            if (default_value.size()) d = to_arg(default_value[0]);
            return node_object(g.placeholder(name, type_string(type_expr), d));
          },
          pyb::arg("name"), pyb::arg("type_expr") = pyb::none())
      .def(
          "get_attr",
          [](Graph& g, const std::string& q, pyb::object t) { return node_object(g.get_attr(q, type_string(t))); },
          pyb::arg("qualified_name"), pyb::arg("type_expr") = pyb::none())
      .def(
          "call_function",
          [](Graph& g, pyb::object fn, pyb::object a, pyb::object k, pyb::object t) {
            return node_object(create(g, "call_function", fn, a, k, pyb::none(), t));
          },
          pyb::arg("the_function"), pyb::arg("args") = pyb::none(), pyb::arg("kwargs") = pyb::none(),
          pyb::arg("type_expr") = pyb::none())
      .def(
          "call_module",
          [](Graph& g, const std::string& name, pyb::object a, pyb::object k, pyb::object t) {
            return node_object(create(g, "call_module", pyb::str(name), a, k, pyb::none(), t));
          },
          pyb::arg("module_name"), pyb::arg("args") = pyb::none(), pyb::arg("kwargs") = pyb::none(),
          pyb::arg("type_expr") = pyb::none())
      .def(
          "call_method",
          [](Graph& g, const std::string& name, pyb::object a, pyb::object k, pyb::object t) {
            return node_object(create(g, "call_method", pyb::str(name), a, k, pyb::none(), t));
          },
          pyb::arg("method_name"), pyb::arg("args") = pyb::none(), pyb::arg("kwargs") = pyb::none(),
          pyb::arg("type_expr") = pyb::none())
      .def(
          "output", [](Graph& g, pyb::object r, pyb::object t) { return node_object(g.output(to_arg(r), type_string(t))); },
          pyb::arg("result"), pyb::arg("type_expr") = pyb::none())
      .def("erase_node", [](Graph& g, Node& n) { g.erase_node(&n); })
      .def(
          "inserting_before",
          [](Graph& g, pyb::object n) {
            Node* at = n.is_none() ? nullptr : n.cast<Node*>();
            EMBER_CHECK(!at || at->graph() == &g, RuntimeError, "fx: inserting_before(): the node is not in this graph");
            auto nodes = g.nodes();
            return InsertCtx{g.shared_from_this(), at ? at : (nodes.empty() ? nullptr : nodes.front())};
          },
          pyb::arg("n") = pyb::none())
      .def(
          "inserting_after",
          [](Graph& g, pyb::object n) {
            Node* at = n.is_none() ? nullptr : n.cast<Node*>();
            EMBER_CHECK(!at || at->graph() == &g, RuntimeError, "fx: inserting_after(): the node is not in this graph");
            return InsertCtx{g.shared_from_this(), at ? at->next() : nullptr};
          },
          pyb::arg("n") = pyb::none())
      .def(
          "node_copy",
          [](Graph& g, Node& n, pyb::object transform) {
            std::function<Arg(Node*)> f = [&](Node* x) -> Arg {
              if (transform.is_none()) return x;
              return to_arg(transform(node_object(x)));
            };
            return node_object(g.node_copy(&n, f));
          },
          pyb::arg("node"), pyb::arg("arg_transform") = pyb::none())
      .def(
          "graph_copy",
          [](Graph& g, const Graph& other, pyb::dict val_map) {
            std::unordered_map<const Node*, Node*> vm;
            for (auto kv : val_map) vm[kv.first.cast<Node*>()] = kv.second.cast<Node*>();
            Arg out = g.graph_copy(other, vm);
            for (auto& [a, b] : vm) val_map[node_object(const_cast<Node*>(a))] = node_object(b);
            return from_arg(out);
          },
          pyb::arg("g"), pyb::arg("val_map"))
      .def("copy", &Graph::copy)
      .def(
          "eliminate_dead_code",
          [](Graph& g, pyb::object is_impure) {
            if (is_impure.is_none()) return g.eliminate_dead_code();
            return g.eliminate_dead_code(
                [&](const Node& n) { return is_impure(node_object(const_cast<Node*>(&n))).cast<bool>(); });
          },
          pyb::arg("is_impure") = pyb::none())
      .def("lint", &Graph::lint)
      .def("_tabular", &Graph::print_tabular)
      .def("print_tabular", [](const Graph& g) { pyb::print(g.print_tabular(), pyb::arg("end") = ""); })
      .def("__str__", &Graph::str)
      .def("operator_list", &fx::operator_list);

  // JSON: Python values inside the graph go through ember.fx.graph._json_encode/_json_decode.
  mod.def("graph_to_json", [](const Graph& g) {
    pyb::object encode = pyb::module_::import("ember.fx.graph").attr("_json_encode");
    return fx::graph_to_json(g, [&](const fx::Opaque& o) -> Arg {
      auto* p = dynamic_cast<const PyObjectOpaque*>(&o);
      EMBER_CHECK(p, ValueError, "fx JSON: cannot serialize ", o.repr());
      Arg a = to_arg(encode(pyb::handle(p->obj)));
      return a;
    });
  });
  mod.def("graph_from_json", [](const std::string& text) {
    pyb::object decode = pyb::module_::import("ember.fx.graph").attr("_json_decode");
    return fx::graph_from_json(text, [&](const Arg& a) -> Arg {
      pyb::object v = decode(from_arg(a));
      return Arg(opaque_of(v.ptr()));
    });
  });
  mod.def("graph_to_cpp", &fx::graph_to_cpp, pyb::arg("graph"), pyb::arg("function_name") = "forward");

  // The C++ tracer on a Python function: every dispatched op it runs is recorded.
  mod.def(
      "trace_dispatch",
      [](pyb::object fn, pyb::sequence example_inputs, std::vector<std::string> names) {
        std::vector<Tensor> in;
        for (pyb::handle h : example_inputs) {
          EMBER_CHECK(is_tensor(h.ptr()), TypeError, "trace_dispatch(): example inputs must be tensors");
          in.push_back(unwrap(h.ptr()));
        }
        fx::TraceResult r = fx::trace(
            [&](const std::vector<Tensor>& proxies) {
              pyb::list args;
              for (const Tensor& t : proxies) args.append(pyb::reinterpret_steal<pyb::object>(wrap(t)));
              pyb::object out = fn(*args);
              std::vector<Tensor> outs;
              auto take = [&](pyb::handle h) {
                EMBER_CHECK(is_tensor(h.ptr()), TypeError, "trace_dispatch(): the function must return tensors, not ",
                            type_name(h.ptr()));
                outs.push_back(unwrap(h.ptr()));
              };
              if (PyTuple_Check(out.ptr()) || PyList_Check(out.ptr()))
                for (pyb::handle h : out) take(h);
              else
                take(out);
              return outs;
            },
            in, {}, names);
        pyb::dict attrs;
        for (const auto& [k, v] : r.attributes) attrs[pyb::str(k)] = pyb::reinterpret_steal<pyb::object>(wrap(v));
        return pyb::make_tuple(r.graph, attrs);
      },
      pyb::arg("fn"), pyb::arg("example_inputs"), pyb::arg("input_names") = std::vector<std::string>{});
  mod.def("run_graph", [](const Graph& g, pyb::sequence inputs, pyb::dict attrs) {
    std::vector<Tensor> in;
    for (pyb::handle h : inputs) in.push_back(unwrap(h.ptr()));
    fx::Attributes a;
    for (auto kv : attrs) a.emplace(kv.first.cast<std::string>(), unwrap(kv.second.ptr()));
    pyb::list out;
    for (const Tensor& t : fx::run_graph(g, in, a)) out.append(pyb::reinterpret_steal<pyb::object>(wrap(t)));
    return out;
  });

  // ember.fx.experimental's inference convolution (include/ember/fx/packed_conv.h).
  pyb::class_<fx::PackedConv2d>(mod, "PackedConv2d")
      .def(pyb::init([](pyb::handle w, pyb::handle b, std::vector<int64_t> stride, std::vector<int64_t> padding,
                        std::vector<int64_t> dilation, int64_t groups, bool relu) {
             EMBER_CHECK(is_tensor(w.ptr()) && (b.is_none() || is_tensor(b.ptr())), TypeError,
                         "PackedConv2d(): weight and bias must be tensors");
             std::optional<Tensor> bias;
             if (!b.is_none()) bias = unwrap(b.ptr());
             return fx::PackedConv2d(unwrap(w.ptr()), bias, std::move(stride), std::move(padding),
                                     std::move(dilation), groups, relu);
           }),
           pyb::arg("weight"), pyb::arg("bias"), pyb::arg("stride"), pyb::arg("padding"), pyb::arg("dilation"),
           pyb::arg("groups"), pyb::arg("relu"))
      .def(
          "run",
          [](const fx::PackedConv2d& c, pyb::handle x, pyb::handle residual, bool blocked_out) {
            EMBER_CHECK(is_tensor(x.ptr()) && (residual.is_none() || is_tensor(residual.ptr())), TypeError,
                        "PackedConv2d.run(): expected tensors, got ", type_name(x.ptr()));
            std::optional<Tensor> r;
            if (!residual.is_none()) r = unwrap(residual.ptr());
            return pyb::reinterpret_steal<pyb::object>(wrap(c.run(unwrap(x.ptr()), r, blocked_out)));
          },
          pyb::arg("x"), pyb::arg("residual") = pyb::none(), pyb::arg("blocked_out") = false)
      .def_property_readonly("implementation", &fx::PackedConv2d::implementation);
  mod.def("to_dense", [](pyb::handle t) {
    EMBER_CHECK(is_tensor(t.ptr()), TypeError, "to_dense(): expected a tensor, got ", type_name(t.ptr()));
    return pyb::reinterpret_steal<pyb::object>(wrap(fx::PackedConv2d::to_dense(unwrap(t.ptr()))));
  });

  mod.def("_is_reserved_name", [](const std::string& s) { return Graph::is_reserved_name(s); });
}

}  // namespace ember::py
