// Python access to every dispatcher op from its schema, so that declaring an op in C++ is
// enough to call it as ember.<name>(...) and, when its first argument is `Tensor self`, as
// Tensor.<name>(...). Hand-written bindings (ops.cpp, views.cpp, ...) stay for the hot ops
// and win where both exist.
//
// All overloads of a name form one callable (an `OpPacket`). A call tries the overloads in
// the order they were defined and takes the first whose arguments bind: tensors bind only to
// Tensor parameters and numbers only to Scalar/int/float/bool ones, so overloads such as
// pow.Tensor_Tensor and pow.Tensor_Scalar never compete. Only when no overload binds is a
// one-element tensor accepted for a number. `out=` selects the overloads whose keyword-only
// parameters are written (Tensor(a!)); a tuple fills several of them (values, indices).
#include <algorithm>
#include <map>
#include <memory>

#include "common.h"
#include "ember/dispatch.h"

#include <structmember.h>

namespace ember::py {

namespace {

enum class Kind {
  Tensor, TensorList, OptTensorList, Scalar, Int, Float, Bool, Str, Dtype, Device, IntList,
  FloatList, Generator,
};

struct Param {
  std::string name;
  Kind kind;
  bool optional = false;        // accepts None
  int fixed_len = 0;            // int[2]: a bare int is repeated this many times
  bool kwarg_only = false;
  bool is_write = false;
  bool has_default = false;
  IValue default_value;
};

struct Overload {
  const OpEntry* op;
  std::vector<Param> params;
  std::vector<int> out_params;  // kwarg-only written parameters, filled by out=
  std::vector<int> write_params;
  int npositional = 0;
  PyTypeObject* named_result = nullptr;  // structseq for several named returns
};

[[noreturn]] void bad_schema(const OpEntry& op, const std::string& why) {
  EMBER_FAIL(RuntimeError, "cannot bind op '", op.schema().str(), "' to Python: ", why);
}

Kind kind_of(const OpEntry& op, std::string_view type) {
  if (type == "Tensor") return Kind::Tensor;
  if (type == "Tensor[]") return Kind::TensorList;
  if (type == "Tensor?[]") return Kind::OptTensorList;
  if (type == "Scalar") return Kind::Scalar;
  if (type == "int" || type == "SymInt") return Kind::Int;
  if (type == "float") return Kind::Float;
  if (type == "bool") return Kind::Bool;
  if (type == "str") return Kind::Str;
  if (type == "ScalarType") return Kind::Dtype;
  if (type == "Device") return Kind::Device;
  if (type == "Generator") return Kind::Generator;
  if (type.rfind("int[", 0) == 0) return Kind::IntList;
  if (type.rfind("float[", 0) == 0) return Kind::FloatList;
  bad_schema(op, "unsupported argument type '" + std::string(type) + "'");
}

std::vector<std::string> split_list(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (c != ' ') {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

IValue parse_default(const OpEntry& op, const Param& p, const std::string& text) {
  if (text == "None") return IValue(None{});
  try {
    switch (p.kind) {
      case Kind::Int: return IValue(static_cast<int64_t>(std::stoll(text)));
      case Kind::Float: return IValue(std::stod(text));
      case Kind::Bool: return IValue(text == "True");
      case Kind::Scalar:
        if (text == "True" || text == "False") return IValue(Scalar(text == "True"));
        if (text.find_first_of(".eE") != std::string::npos && text.find("inf") == std::string::npos)
          return IValue(Scalar(std::stod(text)));
        if (text == "inf" || text == "-inf") return IValue(Scalar(std::stod(text)));
        return IValue(Scalar(static_cast<int64_t>(std::stoll(text))));
      case Kind::Str:
        if (text.size() >= 2 && (text.front() == '"' || text.front() == '\''))
          return IValue(text.substr(1, text.size() - 2));
        return IValue(text);
      case Kind::IntList: {
        std::vector<int64_t> v;
        if (text.front() == '[') {
          for (const std::string& e : split_list(std::string_view(text).substr(1, text.size() - 2)))
            v.push_back(std::stoll(e));
        } else {
          v.assign(std::max(p.fixed_len, 1), std::stoll(text));
        }
        return IValue(std::move(v));
      }
      case Kind::FloatList: {
        std::vector<double> v;
        for (const std::string& e : split_list(std::string_view(text).substr(1, text.size() - 2)))
          v.push_back(std::stod(e));
        return IValue(std::move(v));
      }
      default: break;
    }
  } catch (const std::logic_error&) {  // stoll/stod
  }
  bad_schema(op, "unsupported default '" + text + "' for '" + p.name + "'");
}

// ---------------------------------------------------------------- binding one argument
// Why an overload did not bind. Overload resolution fails on most overloads it tries (pow(x, 2)
// first meets pow.Tensor_Tensor), so the common reason, a wrong argument type, is kept as the
// parameter and the object and turned into text only when the call fails as a whole.
struct BindError {
  std::string why;                // a formatted reason
  const char* fixed = nullptr;    // or a constant one
  const Param* param = nullptr;  // or: argument `param` got `obj`
  PyObject* obj = nullptr;
  bool empty() const { return why.empty() && !fixed && !param; }
  void set(std::string w) {
    why = std::move(w);
    fixed = nullptr;
    param = nullptr;
  }
  std::string message() const;
};

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Tensor: return "Tensor";
    case Kind::TensorList: return "tuple of Tensors";
    case Kind::OptTensorList: return "tuple of Tensors or None";
    case Kind::Scalar: return "Number";
    case Kind::Int: return "int";
    case Kind::Float: return "float";
    case Kind::Bool: return "bool";
    case Kind::Str: return "str";
    case Kind::Dtype: return "ember.dtype";
    case Kind::Device: return "ember.device";
    case Kind::IntList: return "tuple of ints";
    case Kind::FloatList: return "tuple of floats";
    case Kind::Generator: return "ember.Generator";
  }
  return "?";
}

bool is_sequence(PyObject* o) { return PyTuple_Check(o) || PyList_Check(o); }

std::string BindError::message() const {
  if (fixed) return fixed;
  if (param)
    return "argument '" + param->name + "' must be " + kind_name(param->kind) + ", not " +
           (obj == Py_None ? std::string("None") : type_name(obj));
  return why;
}

// Converts `o` for parameter p; false (with the reason in err) when it does not fit.
// `loose` also takes one-element tensors for numbers (the second pass).
bool bind_value(const Param& p, PyObject* o, bool loose, IValue& out, BindError& err) {
  auto fail = [&] {
    err.why.clear();
    err.fixed = nullptr;
    err.param = &p;
    err.obj = o;
    return false;
  };
  if (o == Py_None) {
    if (!p.optional) return fail();
    out = IValue(None{});
    return true;
  }
  const bool tensor = is_tensor(o);
  switch (p.kind) {
    case Kind::Tensor:
      if (!tensor) return fail();
      out = IValue(unwrap(o));
      return true;
    case Kind::TensorList:
    case Kind::OptTensorList: {
      if (!is_sequence(o)) return fail();
      Owned fast(PySequence_Fast(o, ""));
      if (!fast.p) throw python_error();
      const Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.p);
      std::vector<Tensor> v;
      v.reserve(n);
      for (Py_ssize_t i = 0; i < n; ++i) {
        PyObject* e = PySequence_Fast_GET_ITEM(fast.p, i);
        if (e == Py_None && p.kind == Kind::OptTensorList) v.emplace_back();
        else if (is_tensor(e)) v.push_back(unwrap(e));
        else return fail();
      }
      out = IValue(std::move(v));
      return true;
    }
    case Kind::Scalar: {
      Scalar s;
      if (tensor && !loose) return fail();
      if (!try_scalar(o, s)) return fail();
      out = IValue(s);
      return true;
    }
    case Kind::Int:
      if (PyBool_Check(o) || (tensor && !loose) || !is_int_like(o)) return fail();
      out = IValue(to_int64(o, p.name.c_str()));
      return true;
    case Kind::Float: {
      Scalar s;
      if (PyBool_Check(o) || (tensor && !loose) || !try_scalar(o, s) || s.is_complex()) return fail();
      out = IValue(s.to_double());
      return true;
    }
    case Kind::Bool:
      if (!PyBool_Check(o)) {
        Scalar s;
        if (!(loose && tensor && try_scalar(o, s) && s.is_bool())) return fail();
        out = IValue(s.to<bool>());
        return true;
      }
      out = IValue(o == Py_True);
      return true;
    case Kind::Str: {
      if (!PyUnicode_Check(o)) return fail();
      Py_ssize_t n = 0;
      const char* c = PyUnicode_AsUTF8AndSize(o, &n);
      if (!c) throw python_error();
      out = IValue(std::string(c, n));
      return true;
    }
    case Kind::Dtype: {
      std::optional<ScalarType> t = try_dtype(o);
      if (!t) return fail();
      out = IValue(*t);
      return true;
    }
    case Kind::Device: {
      std::optional<Device> d = try_device(o);
      if (!d) return fail();
      out = IValue(*d);
      return true;
    }
    case Kind::IntList: {
      if (p.fixed_len > 0 && is_int_like(o) && !tensor && !PyBool_Check(o)) {
        out = IValue(std::vector<int64_t>(p.fixed_len, to_int64(o, p.name.c_str())));
        return true;
      }
      if (!(is_sequence(o) || PyObject_TypeCheck(o, size_type))) return fail();
      Owned fast(PySequence_Fast(o, ""));
      if (!fast.p) throw python_error();
      std::vector<int64_t> v;
      for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast.p); ++i) {
        PyObject* e = PySequence_Fast_GET_ITEM(fast.p, i);
        if (PyBool_Check(e) || !is_int_like(e)) return fail();
        v.push_back(to_int64(e, p.name.c_str()));
      }
      out = IValue(std::move(v));
      return true;
    }
    case Kind::FloatList: {
      if (!is_sequence(o)) return fail();
      Owned fast(PySequence_Fast(o, ""));
      if (!fast.p) throw python_error();
      std::vector<double> v;
      for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast.p); ++i) {
        Scalar s;
        PyObject* e = PySequence_Fast_GET_ITEM(fast.p, i);
        if (is_tensor(e) || !try_scalar(e, s) || s.is_complex()) return fail();
        v.push_back(s.to_double());
      }
      out = IValue(std::move(v));
      return true;
    }
    case Kind::Generator: {
      Generator* g = try_generator(o);
      if (!g) return fail();
      out = IValue(g);
      return true;
    }
  }
  return fail();
}

// ---------------------------------------------------------------- binding a whole call
struct Call {
  PyObject* const* args;
  Py_ssize_t nargs;
  PyObject* kwnames;
  PyObject* out = nullptr;  // the out= value, if given and not None
};

bool kw_matches(PyObject* key, const Param& p, bool first) {
  if (PyUnicode_CompareWithASCIIString(key, p.name.c_str()) == 0) return true;
  // The function form calls its first tensor `input`, as torch.* does.
  return first && p.name == "self" && PyUnicode_CompareWithASCIIString(key, "input") == 0;
}

// Fills `stack` and `objs` (the Python object bound to each parameter, null for defaults).
bool bind_call(const Overload& ov, const Call& c, bool loose, Stack& stack, std::vector<PyObject*>& objs,
               BindError& err) {
  const size_t n = ov.params.size();
  if ((c.out != nullptr) != !ov.out_params.empty()) {
    err.set("");
    err.fixed = c.out ? "out= is not supported here" : nullptr;
    return false;
  }
  if (c.nargs > ov.npositional) {
    err.set("takes " + std::to_string(ov.npositional) + " positional arguments but " +
            std::to_string(c.nargs) + " were given");
    return false;
  }
  stack.assign(n, IValue());
  objs.assign(n, nullptr);
  std::vector<bool> done(n, false);
  int pos = 0;
  for (size_t i = 0; i < n && pos < c.nargs; ++i) {
    if (ov.params[i].kwarg_only) break;
    if (!bind_value(ov.params[i], c.args[pos], loose, stack[i], err)) return false;
    objs[i] = c.args[pos++];
    done[i] = true;
  }
  const Py_ssize_t nkw = c.kwnames ? PyTuple_GET_SIZE(c.kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject* key = PyTuple_GET_ITEM(c.kwnames, k);
    PyObject* value = c.args[c.nargs + k];
    if (PyUnicode_CompareWithASCIIString(key, "out") == 0) continue;
    size_t i = 0;
    while (i < n && !kw_matches(key, ov.params[i], i == 0)) ++i;
    if (i == n || ov.params[i].is_write) {
      err.set("got an unexpected keyword argument '" + std::string(PyUnicode_AsUTF8(key)) + "'");
      return false;
    }
    if (done[i]) {
      err.set("got multiple values for argument '" + ov.params[i].name + "'");
      return false;
    }
    if (!bind_value(ov.params[i], value, loose, stack[i], err)) return false;
    objs[i] = value;
    done[i] = true;
  }
  if (c.out) {
    const size_t want = ov.out_params.size();
    std::vector<PyObject*> outs;
    if (want == 1) {
      outs.push_back(c.out);
    } else if (is_sequence(c.out) && static_cast<size_t>(PySequence_Size(c.out)) == want) {
      for (size_t j = 0; j < want; ++j) outs.push_back(PySequence_Fast_GET_ITEM(c.out, j));
    } else {
      err.set("out= must be a tuple of " + std::to_string(want) + " tensors");
      return false;
    }
    for (size_t j = 0; j < want; ++j) {
      const int i = ov.out_params[j];
      if (!is_tensor(outs[j])) {
        err.set("argument 'out' must be Tensor, not " + type_name(outs[j]));
        return false;
      }
      stack[i] = IValue(unwrap(outs[j]));
      objs[i] = outs[j];
      done[i] = true;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (done[i]) continue;
    if (!ov.params[i].has_default) {
      err.set("missing required argument '" + ov.params[i].name + "'");
      return false;
    }
    stack[i] = ov.params[i].default_value;
  }
  return true;
}

// ---------------------------------------------------------------- results
PyObject* wrap_result(const Overload& ov, Stack& stack, const std::vector<PyObject*>& objs) {
  const auto& rets = ov.op->schema().returns;
  auto one = [&](size_t r) -> PyObject* {
    if (rets[r].is_write && r < ov.write_params.size()) {
      PyObject* o = objs[ov.write_params[r]];
      Py_INCREF(o);
      return o;
    }
    IValue& v = stack[r];
    if (v.is_none()) Py_RETURN_NONE;
    if (v.is_tensor()) return wrap(v.tensor());
    if (v.is_tensor_list()) {
      auto& l = v.tensor_list();
      Owned t(PyTuple_New(static_cast<Py_ssize_t>(l.size())));
      if (!t.p) throw python_error();
      for (size_t i = 0; i < l.size(); ++i) {
        PyObject* e = wrap(l[i]);
        if (!e) throw python_error();
        PyTuple_SET_ITEM(t.p, static_cast<Py_ssize_t>(i), e);
      }
      return t.release();
    }
    if (v.holds<bool>()) return PyBool_FromLong(v.get<bool>());
    if (v.holds<int64_t>()) return PyLong_FromLongLong(v.get<int64_t>());
    if (v.holds<double>()) return PyFloat_FromDouble(v.get<double>());
    if (v.holds<Scalar>()) return scalar_to_py(v.get<Scalar>());
    if (v.holds<ScalarType>()) {
      PyObject* d = dtype_object(v.get<ScalarType>());
      Py_INCREF(d);
      return d;
    }
    EMBER_FAIL(RuntimeError, ov.op->name(), "(): cannot convert its result to Python");
  };
  if (rets.empty()) Py_RETURN_NONE;
  if (rets.size() == 1) return one(0);
  Owned tuple(ov.named_result ? PyStructSequence_New(ov.named_result)
                              : PyTuple_New(static_cast<Py_ssize_t>(rets.size())));
  if (!tuple.p) throw python_error();
  for (size_t r = 0; r < rets.size(); ++r) {
    PyObject* e = one(r);
    if (!e) throw python_error();
    if (ov.named_result) PyStructSequence_SetItem(tuple.p, static_cast<Py_ssize_t>(r), e);
    else PyTuple_SET_ITEM(tuple.p, static_cast<Py_ssize_t>(r), e);
  }
  return tuple.release();
}

// ---------------------------------------------------------------- the OpPacket type
struct OpPacket {
  PyObject_HEAD
  vectorcallfunc vectorcall;
  std::string* name;
  std::vector<Overload>* overloads;
};
PyTypeObject* packet_type = nullptr;

bool large_tensor_in(const Stack& stack) {
  for (const IValue& v : stack)
    if (v.is_tensor() && v.tensor().defined() && worth_releasing_gil(v.tensor())) return true;
  return false;
}

PyObject* run_overload(const Overload& ov, Stack& stack, std::vector<PyObject*>& objs) {
  DispatchKeySet ks;
  for (const IValue& v : stack) {
    if (v.is_tensor() && v.tensor().defined()) ks = ks | v.tensor().key_set();
    if (v.is_tensor_list())
      for (const Tensor& t : std::get<std::vector<Tensor>>(v.value()))
        if (t.defined()) ks = ks | t.key_set();
  }
  const LocalDispatchKeySet& local = tls_local_dispatch_keys();
  ks = (ks | local.included) - local.excluded;
  // The stack owns its tensors, so releasing the GIL is safe.
  maybe_without_gil(large_tensor_in(stack), [&] { ov.op->call_boxed(ks, stack); });
  return wrap_result(ov, stack, objs);
}

std::string got_types(const Call& c) {
  std::string s = "(";
  for (Py_ssize_t i = 0; i < c.nargs; ++i) s += (i ? ", " : "") + type_name(c.args[i]);
  const Py_ssize_t nkw = c.kwnames ? PyTuple_GET_SIZE(c.kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k)
    s += std::string(c.nargs + k ? ", " : "") + PyUnicode_AsUTF8(PyTuple_GET_ITEM(c.kwnames, k)) + "=" +
         type_name(c.args[c.nargs + k]);
  return s + ")";
}

// __ember_function__ (ember.fx.Proxy): an argument of a type that defines it, directly or in
// a list/tuple argument. Looked up only after every overload failed to bind, so ordinary calls
// pay nothing for the protocol.
PyObject* overriding_type(PyObject* o, int depth) {
  if (is_tensor(o) || o == Py_None || PyLong_CheckExact(o) || PyFloat_CheckExact(o) || PyBool_Check(o)) return nullptr;
  if ((PyTuple_Check(o) || PyList_Check(o)) && depth == 0) {
    Owned fast(PySequence_Fast(o, ""));
    if (!fast.p) throw python_error();
    for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(fast.p); ++i)
      if (PyObject* t = overriding_type(PySequence_Fast_GET_ITEM(fast.p, i), depth + 1)) return t;
    return nullptr;
  }
  static PyObject* name = PyUnicode_InternFromString("__ember_function__");
  return _PyType_Lookup(Py_TYPE(o), name) ? reinterpret_cast<PyObject*>(Py_TYPE(o)) : nullptr;
}

// The override's result, or null (no Python error) when no argument overrides or it returns
// NotImplemented.
PyObject* call_override(PyObject* func, const Call& c) {
  const Py_ssize_t nkw = c.kwnames ? PyTuple_GET_SIZE(c.kwnames) : 0;
  PyObject* type = nullptr;
  for (Py_ssize_t i = 0; i < c.nargs + nkw && !type; ++i) type = overriding_type(c.args[i], 0);
  if (!type) return nullptr;
  Owned args(PyTuple_New(c.nargs));
  Owned kwargs(PyDict_New());
  Owned types(PyTuple_Pack(1, type));
  if (!args.p || !kwargs.p || !types.p) throw python_error();
  for (Py_ssize_t i = 0; i < c.nargs; ++i) {
    Py_INCREF(c.args[i]);
    PyTuple_SET_ITEM(args.p, i, c.args[i]);
  }
  for (Py_ssize_t k = 0; k < nkw; ++k)
    if (PyDict_SetItem(kwargs.p, PyTuple_GET_ITEM(c.kwnames, k), c.args[c.nargs + k]) < 0) throw python_error();
  Owned r(PyObject_CallMethod(type, "__ember_function__", "OOOO", func, types.p, args.p, kwargs.p));
  if (!r.p) throw python_error();
  if (r.p == Py_NotImplemented) return nullptr;
  return r.release();
}

PyObject* packet_call(PyObject* self, PyObject* const* args, size_t nargsf, PyObject* kwnames) {
  EMBER_PY_BEGIN
  auto* p = reinterpret_cast<OpPacket*>(self);
  Call c{args, static_cast<Py_ssize_t>(PyVectorcall_NARGS(nargsf)), kwnames};
  const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k)
    if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(kwnames, k), "out") == 0 &&
        args[c.nargs + k] != Py_None)
      c.out = args[c.nargs + k];
  Stack stack;
  std::vector<PyObject*> objs;
  BindError err, first_err;
  for (bool loose : {false, true}) {
    for (const Overload& ov : *p->overloads) {
      if (bind_call(ov, c, loose, stack, objs, err)) return run_overload(ov, stack, objs);
      if (first_err.empty()) first_err = err;
    }
  }
  if (PyObject* r = call_override(self, c)) return r;
  const auto& ovs = *p->overloads;
  if (ovs.size() == 1)
    EMBER_FAIL(TypeError, *p->name, "(): ", first_err.empty() ? "invalid arguments" : first_err.message());
  std::string msg = *p->name + "() received an invalid combination of arguments - got " + got_types(c) +
                    ", but expected one of:";
  for (const Overload& ov : ovs) msg += "\n * " + ov.op->schema().str();
  EMBER_FAIL(TypeError, msg);
  EMBER_PY_END(nullptr)
}

// A packet is a descriptor like a function: Tensor.<op> binds the tensor as `self`.
PyObject* packet_get(PyObject* self, PyObject* obj, PyObject*) {
  if (!obj || obj == Py_None) {
    Py_INCREF(self);
    return self;
  }
  return PyMethod_New(self, obj);
}

PyObject* packet_repr(PyObject* self) {
  return PyUnicode_FromFormat("<ember op '%s'>", reinterpret_cast<OpPacket*>(self)->name->c_str());
}

PyObject* packet_doc(PyObject* self, void*) {
  auto* p = reinterpret_cast<OpPacket*>(self);
  std::string doc;
  for (const Overload& ov : *p->overloads) doc += ov.op->schema().str() + "\n";
  return PyUnicode_FromString(doc.c_str());
}
PyObject* packet_name(PyObject* self, void*) {
  return PyUnicode_FromString(reinterpret_cast<OpPacket*>(self)->name->c_str());
}
PyObject* packet_overloads(PyObject* self, void*) {
  auto* p = reinterpret_cast<OpPacket*>(self);
  Owned l(PyList_New(0));
  if (!l.p) return nullptr;
  for (const Overload& ov : *p->overloads) {
    Owned s(PyUnicode_FromString(ov.op->schema().str().c_str()));
    if (!s.p || PyList_Append(l.p, s.p) < 0) return nullptr;
  }
  return l.release();
}

PyGetSetDef packet_getset[] = {
    {"__doc__", packet_doc, nullptr, nullptr, nullptr},
    {"__name__", packet_name, nullptr, nullptr, nullptr},
    {"__qualname__", packet_name, nullptr, nullptr, nullptr},
    {"overloads", packet_overloads, nullptr, "The schemas tried, in order.", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMemberDef packet_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(OpPacket, vectorcall), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

void make_packet_type() {
  static PyType_Slot slots[] = {
      {Py_tp_call, reinterpret_cast<void*>(PyVectorcall_Call)},
      {Py_tp_descr_get, reinterpret_cast<void*>(packet_get)},
      {Py_tp_repr, reinterpret_cast<void*>(packet_repr)},
      {Py_tp_getset, packet_getset},
      {Py_tp_members, packet_members},
      {0, nullptr}};
  static PyType_Spec spec = {"ember._C.OpPacket", sizeof(OpPacket), 0,
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR,
                             slots};
  packet_type = reinterpret_cast<PyTypeObject*>(PyType_FromSpec(&spec));
  if (!packet_type) throw python_error();
}

// ---------------------------------------------------------------- building the overloads
Overload make_overload(const OpEntry& op) {
  Overload ov{&op, {}, {}, {}, 0, nullptr};
  for (const Argument& a : op.schema().arguments) {
    Param p;
    p.name = a.name;
    std::string type = a.type;
    if (!type.empty() && type.back() == '?') {
      p.optional = true;
      type.pop_back();
    }
    if (type.size() > 2 && type.back() == ']' && type[type.size() - 2] != '[' && type.rfind("Tensor", 0) != 0) {
      size_t lb = type.find('[');
      p.fixed_len = std::stoi(type.substr(lb + 1, type.size() - lb - 2));
    }
    p.kind = kind_of(op, type);
    p.kwarg_only = a.kwarg_only;
    p.is_write = a.is_write;
    if (a.default_value) {
      p.has_default = true;
      p.default_value = parse_default(op, p, *a.default_value);
    }
    const int i = static_cast<int>(ov.params.size());
    if (p.is_write) {
      ov.write_params.push_back(i);
      if (p.kwarg_only) ov.out_params.push_back(i);
    }
    if (!p.kwarg_only) ++ov.npositional;
    ov.params.push_back(std::move(p));
  }
  const auto& rets = op.schema().returns;
  const bool named = rets.size() > 1 &&
                     std::all_of(rets.begin(), rets.end(), [](const Argument& r) { return !r.name.empty(); });
  if (named) {
    // Field names and descriptors must outlive the type: they are kept for the process.
    auto* fields = new std::vector<PyStructSequence_Field>();
    for (const Argument& r : rets) fields->push_back({strdup(r.name.c_str()), nullptr});
    fields->push_back({nullptr, nullptr});
    auto* desc = new PyStructSequence_Desc{strdup(("ember.return_types." + op.schema().name).c_str()), nullptr,
                                           fields->data(), static_cast<int>(rets.size())};
    ov.named_result = PyStructSequence_NewType(desc);
    if (!ov.named_result) throw python_error();
  }
  return ov;
}

bool has_self(const Overload& ov) {
  return !ov.params.empty() && ov.params[0].name == "self" && ov.params[0].kind == Kind::Tensor;
}


// Adds a packet for each op name that has none yet; safe to run again after more ops were
// registered (a C++ extension loaded later).
void expose_ops(PyObject* m) {
  std::vector<const OpEntry*> ops = Dispatcher::get().all_ops();
  std::sort(ops.begin(), ops.end(),
            [](const OpEntry* a, const OpEntry* b) { return a->definition_order() < b->definition_order(); });
  std::map<std::string, std::vector<Overload>> groups;
  std::vector<std::string> order;
  for (const OpEntry* op : ops) {
    const std::string& name = op->schema().name;
    if (name.empty() || op->has_tag(Tag::Internal)) continue;
    auto [it, inserted] = groups.try_emplace(name);
    if (inserted) order.push_back(name);
    it->second.push_back(make_overload(*op));
  }
  PyObject* tensor_dict = tensor_type->tp_dict;
  PyObject* rt = PyObject_GetAttrString(m, "_return_types");
  if (!rt) throw python_error();
  Owned rt_owner(rt);
  for (const std::string& name : order) {
    auto& ovs = groups[name];
    // Private in-place names (`_fused_adam_`) are never methods: they stay ember._C functions.
    const bool method_only = (name.back() == '_' && name[0] != '_') || std::all_of(ovs.begin(), ovs.end(), [](const Overload& ov) {
                               return ov.op->has_tag(Tag::MethodOnly);
                             });
    const bool want_function = !method_only && !PyObject_HasAttrString(m, name.c_str());
    // Private names (`_softmax_backward_data`) are ember._C functions, as torch._* are.
    const bool want_method = name[0] != '_' && !PyDict_GetItemString(tensor_dict, name.c_str()) &&
                             std::any_of(ovs.begin(), ovs.end(), [](const Overload& ov) {
                               return has_self(ov) && !ov.op->has_tag(Tag::FunctionOnly);
                             });
    if (!want_function && !want_method) continue;
    for (const Overload& ov : ovs)
      if (ov.named_result && !PyDict_GetItemString(rt, name.c_str()))
        PyDict_SetItemString(rt, name.c_str(), reinterpret_cast<PyObject*>(ov.named_result));
    auto* p = PyObject_New(OpPacket, packet_type);
    if (!p) throw python_error();
    p->vectorcall = packet_call;
    p->name = new std::string(name);  // packets live as long as the module
    p->overloads = new std::vector<Overload>(std::move(ovs));
    PyObject* obj = reinterpret_cast<PyObject*>(p);
    if (want_function && PyModule_AddObjectRef(m, name.c_str(), obj) < 0) throw python_error();
    if (want_method && PyDict_SetItemString(tensor_dict, name.c_str(), obj) < 0) throw python_error();
    Py_DECREF(obj);
  }
  PyType_Modified(tensor_type);
}

PyObject* py_expose_ops(PyObject* m, PyObject*) {
  EMBER_PY_BEGIN
  expose_ops(m);
  Py_RETURN_NONE;
  EMBER_PY_END(nullptr)
}

PyMethodDef generic_functions[] = {
    {"_expose_new_ops", py_expose_ops, METH_NOARGS,
     "Makes ops registered since import (by a loaded C++ extension) callable from Python."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void init_generic_ops(PyObject* m) {
  make_packet_type();
  if (PyModule_AddFunctions(m, generic_functions) < 0) throw python_error();
  expose_ops(m);
}

}  // namespace ember::py
