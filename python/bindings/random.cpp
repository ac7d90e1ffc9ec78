// Random numbers: ember.Generator, the default generator's seeding and state, and the random
// factories (rand, randn, randint, randperm, *_like), whose Python signatures differ from
// their schemas. They call the dispatcher ops through the C++ front functions.
#include "common.h"
#include "ember/random.h"

namespace ember::py {

namespace {

struct PyGenerator {
  PyObject_HEAD
  Generator* gen;
  bool owned;
};
PyTypeObject* generator_type = nullptr;

Generator& gen_of(PyObject* self) { return *reinterpret_cast<PyGenerator*>(self)->gen; }

// Seeds are taken modulo 2**64, so negative ones work as in torch.
uint64_t seed_arg(PyObject* o) {
  EMBER_CHECK(PyLong_Check(o) || is_numpy_integer(o), TypeError, "manual_seed expected a long, but got ",
              type_name(o));
  Owned i(PyNumber_Index(o));
  if (!i.p) throw python_error();
  unsigned long long v = PyLong_AsUnsignedLongLongMask(i.p);
  if (v == static_cast<unsigned long long>(-1) && PyErr_Occurred()) throw python_error();
  return v;
}

PyObject* generator_new(PyTypeObject* type, PyObject* args, PyObject* kwargs) {
  EMBER_PY_BEGIN
  PyObject* device = nullptr;
  static const char* kwlist[] = {"device", nullptr};
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O:Generator", const_cast<char**>(kwlist), &device))
    throw python_error();
  if (device && device != Py_None) {
    auto d = try_device(device);
    EMBER_CHECK(d.has_value(), TypeError, "Generator(): device must be an ember.device or str");
    EMBER_CHECK(d->is_cpu(), RuntimeError, "Generator(): only CPU generators are supported, got ", d->str());
  }
  PyObject* o = type->tp_alloc(type, 0);
  if (!o) throw python_error();
  auto* g = reinterpret_cast<PyGenerator*>(o);
  g->gen = new Generator();
  g->owned = true;
  return o;
  EMBER_PY_END(nullptr)
}

void generator_dealloc(PyObject* self) {
  auto* g = reinterpret_cast<PyGenerator*>(self);
  if (g->owned) delete g->gen;
  PyTypeObject* tp = Py_TYPE(self);
  tp->tp_free(self);
  Py_DECREF(tp);
}

PyObject* g_manual_seed(PyObject* self, PyObject* seed) {
  EMBER_PY_BEGIN
  gen_of(self).manual_seed(seed_arg(seed));
  Py_INCREF(self);
  return self;
  EMBER_PY_END(nullptr)
}
PyObject* g_seed(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  return PyLong_FromUnsignedLongLong(gen_of(self).seed());
  EMBER_PY_END(nullptr)
}
PyObject* g_initial_seed(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  return PyLong_FromUnsignedLongLong(gen_of(self).initial_seed());
  EMBER_PY_END(nullptr)
}
PyObject* g_get_state(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  return wrap(gen_of(self).get_state());
  EMBER_PY_END(nullptr)
}
PyObject* g_set_state(PyObject* self, PyObject* state) {
  EMBER_PY_BEGIN
  EMBER_CHECK(is_tensor(state), TypeError, "set_state(): expected a ByteTensor (uint8 Tensor), got ", type_name(state));
  gen_of(self).set_state(unwrap(state));
  Py_INCREF(self);
  return self;
  EMBER_PY_END(nullptr)
}
PyObject* g_device(PyObject* self, void*) {
  EMBER_PY_BEGIN
  return new_device(gen_of(self).device());
  EMBER_PY_END(nullptr)
}

PyMethodDef generator_methods[] = {
    {"manual_seed", g_manual_seed, METH_O, "Sets the seed; returns the generator."},
    {"seed", g_seed, METH_NOARGS, "Seeds from a non-deterministic source; returns the seed."},
    {"initial_seed", g_initial_seed, METH_NOARGS, nullptr},
    {"get_state", g_get_state, METH_NOARGS, "The state as a uint8 tensor."},
    {"set_state", g_set_state, METH_O, nullptr},
    EMBER_END_TABLE};
PyGetSetDef generator_getset[] = {{"device", g_device, nullptr, nullptr, nullptr},
                                  {nullptr, nullptr, nullptr, nullptr, nullptr}};
PyType_Slot generator_slots[] = {
    {Py_tp_new, reinterpret_cast<void*>(generator_new)},
    {Py_tp_dealloc, reinterpret_cast<void*>(generator_dealloc)},
    {Py_tp_methods, generator_methods},
    {Py_tp_getset, generator_getset},
    {Py_tp_doc, const_cast<char*>("Generator(device='cpu'): a Philox random number generator.")},
    {0, nullptr}};
PyType_Spec generator_spec = {"ember.Generator", sizeof(PyGenerator), 0, Py_TPFLAGS_DEFAULT, generator_slots};

PyObject* default_generator_obj = nullptr;

// ---------------------------------------------------------------- module functions
PyObject* f_manual_seed(PyObject*, PyObject* seed) {
  EMBER_PY_BEGIN
  manual_seed(seed_arg(seed));
  Py_INCREF(default_generator_obj);
  return default_generator_obj;
  EMBER_PY_END(nullptr)
}
PyObject* f_seed(PyObject*, PyObject*) {
  EMBER_PY_BEGIN
  return PyLong_FromUnsignedLongLong(seed());
  EMBER_PY_END(nullptr)
}
PyObject* f_initial_seed(PyObject*, PyObject*) {
  EMBER_PY_BEGIN
  return PyLong_FromUnsignedLongLong(initial_seed());
  EMBER_PY_END(nullptr)
}
PyObject* f_get_rng_state(PyObject*, PyObject*) {
  EMBER_PY_BEGIN
  return wrap(get_rng_state());
  EMBER_PY_END(nullptr)
}
PyObject* f_set_rng_state(PyObject*, PyObject* state) {
  EMBER_PY_BEGIN
  EMBER_CHECK(is_tensor(state), TypeError, "set_rng_state(): expected a ByteTensor (uint8 Tensor), got ",
              type_name(state));
  set_rng_state(unwrap(state));
  Py_RETURN_NONE;
  EMBER_PY_END(nullptr)
}


// out= runs the op's out form (the dtype comes from `out`, as in torch); a dtype given as
// well must match it.
template <typename Fresh, typename Out>
PyObject* with_out(const Args& a, int out_i, int dtype_i, const Fresh& fresh, const Out& into) {
  if (!a.has(out_i) || a[out_i] == Py_None) return wrap(fresh());
  Tensor& out = a.tensor(out_i);
  const std::optional<ScalarType> dt = a.dtype(dtype_i);
  EMBER_CHECK(!dt || *dt == out.dtype(), RuntimeError, "dtype ", *dt, " does not match dtype of out parameter (",
              out.dtype(), ")");
  into(out);
  Py_INCREF(a[out_i]);
  return a[out_i];
}

// rand(*size, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False)
template <bool Normal>
PyObject* f_rand(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig(Normal ? "randn" : "rand",
                       "size=None, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False");
  DimVector sizes;
  Owned size_obj;
  PyObject* buf[Signature::kMax];
  if (nargs >= 1 && !PyTuple_Check(args[0]) && !PyList_Check(args[0])) {
    Py_ssize_t used = parse_varargs_sizes(sig.name(), args, nargs, sizes);
    EMBER_CHECK(used == nargs, TypeError, sig.name(), "(): sizes must be ints, got ", type_name(args[used]));
    Py_ssize_t nkw = kw ? PyTuple_GET_SIZE(kw) : 0;
    EMBER_CHECK(nkw < Signature::kMax, TypeError, sig.name(), "(): too many arguments");
    size_obj.p = new_size(sizes);
    buf[0] = size_obj.p;
    for (Py_ssize_t i = 0; i < nkw; ++i) buf[1 + i] = args[nargs + i];
    args = buf;
    nargs = 1;
  }
  Args a(sig, nullptr, args, nargs, kw);
  EMBER_CHECK(a.has(0), TypeError, sig.name(), "() missing required argument 'size'");
  sizes = a.int_list(0);
  TensorOptions o = a.options(3, 5);
  Generator* g = a.generator(1);
  return with_out(
      a, 2, 3, [&] { return Normal ? randn(sizes, g, o) : rand(sizes, g, o); },
      [&](Tensor& out) { Normal ? randn_out(out, sizes, g) : rand_out(out, sizes, g); });
  EMBER_PY_END(nullptr)
}

// randint(high, size) / randint(low, high, size)
PyObject* f_randint(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("randint", "low, high, size=None, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False");
  Args a(sig, nullptr, args, nargs, kw);
  int64_t low = 0, high;
  DimVector sizes;
  if (!a.has(2)) {  // (high, size): the second positional is the size
    high = a.to_int(0);
    sizes = a.int_list(1, false);
  } else {
    low = a.to_int(0);
    high = a.to_int(1);
    sizes = a.int_list(2, false);
  }
  TensorOptions o = a.options(5, 7);
  if (!o.dtype_) o.dtype_ = kInt64;
  Generator* g = a.generator(3);
  return with_out(
      a, 4, 5, [&] { return randint(low, high, sizes, g, o); },
      [&](Tensor& out) { randint_out(out, low, high, sizes, g); });
  EMBER_PY_END(nullptr)
}

PyObject* f_randperm(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("randperm", "n, *, generator=None, out=None, dtype=None, layout=None, device=None, requires_grad=False, pin_memory=False");
  Args a(sig, nullptr, args, nargs, kw);
  TensorOptions o = a.options(3, 5);
  if (!o.dtype_) o.dtype_ = kInt64;
  const int64_t n = a.to_int(0);
  Generator* g = a.generator(1);
  return with_out(
      a, 2, 3, [&] { return randperm(n, g, o); }, [&](Tensor& out) { randperm_out(out, n, g); });
  EMBER_PY_END(nullptr)
}

enum class RandLike { Rand, Randn };
template <RandLike K>
PyObject* f_rand_like(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig(K == RandLike::Rand ? "rand_like" : "randn_like",
                       "input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None");
  Args a(sig, nullptr, args, nargs, kw);
  const Tensor& t = a.tensor(0);
  TensorOptions o = a.options(1, 3);
  o = o.dtype(o.dtype_.value_or(t.dtype())).device(o.device_.value_or(t.device()));
  return wrap(K == RandLike::Rand ? rand_like(t, o) : randn_like(t, o));
  EMBER_PY_END(nullptr)
}

// randint_like(input, high) / randint_like(input, low, high)
PyObject* f_randint_like(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kw) {
  EMBER_PY_BEGIN
  static Signature sig("randint_like", "input, low, high=None, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None");
  Args a(sig, nullptr, args, nargs, kw);
  const Tensor& t = a.tensor(0);
  int64_t low = 0, high = a.to_int(1);
  if (a.has(2)) {
    low = high;
    high = a.to_int(2);
  }
  TensorOptions o = a.options(3, 5);
  o = o.dtype(o.dtype_.value_or(t.dtype())).device(o.device_.value_or(t.device()));
  return wrap(randint_like(t, low, high, o));
  EMBER_PY_END(nullptr)
}

}  // namespace

Generator* try_generator(PyObject* o) {
  return generator_type && PyObject_TypeCheck(o, generator_type) ? reinterpret_cast<PyGenerator*>(o)->gen
                                                                 : nullptr;
}

Generator* Args::generator(int i) const {
  if (!v[i]) return nullptr;
  if (!PyObject_TypeCheck(v[i], generator_type)) type_error(i, "ember.Generator");
  return reinterpret_cast<PyGenerator*>(v[i])->gen;
}

// The samplers (uniform_, normal_, bernoulli, random_, ...) are dispatcher ops bound from their
// schemas (generic.cpp); the factories below keep hand-written bindings for torch's varargs
// sizes and its layout/requires_grad arguments.
PyMethodDef tensor_random_methods[] = {EMBER_END_TABLE};

PyMethodDef module_random_functions[] = {
    {"manual_seed", f_manual_seed, METH_O, "Seeds the default generator; returns it."},
    {"seed", f_seed, METH_NOARGS, "Seeds the default generator non-deterministically; returns the seed."},
    {"initial_seed", f_initial_seed, METH_NOARGS, nullptr},
    {"get_rng_state", f_get_rng_state, METH_NOARGS, "The default generator's state as a uint8 tensor."},
    {"set_rng_state", f_set_rng_state, METH_O, nullptr},
    {"rand", EMBER_FASTCALL(factory<f_rand<false>>), EMBER_METH_KW, "rand(*size, generator=None, dtype=None, device=None)"},
    {"randn", EMBER_FASTCALL(factory<f_rand<true>>), EMBER_METH_KW, "randn(*size, generator=None, dtype=None, device=None)"},
    {"randint", EMBER_FASTCALL(factory<f_randint>), EMBER_METH_KW, "randint(low=0, high, size, generator=None, dtype=None)"},
    {"randperm", EMBER_FASTCALL(factory<f_randperm>), EMBER_METH_KW, "randperm(n, generator=None, dtype=int64)"},
    {"rand_like", EMBER_FASTCALL(factory<f_rand_like<RandLike::Rand>>), EMBER_METH_KW, nullptr},
    {"randn_like", EMBER_FASTCALL(factory<f_rand_like<RandLike::Randn>>), EMBER_METH_KW, nullptr},
    {"randint_like", EMBER_FASTCALL(factory<f_randint_like>), EMBER_METH_KW, nullptr},
    EMBER_END_TABLE};

void init_random(PyObject* m) {
  PyObject* t = PyType_FromSpec(&generator_spec);
  if (!t) throw python_error();
  generator_type = reinterpret_cast<PyTypeObject*>(t);
  if (PyModule_AddObject(m, "Generator", t) < 0) throw python_error();
  Py_INCREF(t);
  PyObject* g = generator_type->tp_alloc(generator_type, 0);
  if (!g) throw python_error();
  reinterpret_cast<PyGenerator*>(g)->gen = &default_generator();
  reinterpret_cast<PyGenerator*>(g)->owned = false;
  default_generator_obj = g;
  Py_INCREF(g);
  if (PyModule_AddObject(m, "default_generator", g) < 0) throw python_error();
  if (PyModule_AddFunctions(m, module_random_functions) < 0) throw python_error();
}

}  // namespace ember::py
