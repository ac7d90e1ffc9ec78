// ember.Tensor: the object, its number/mapping/sequence slots (the hot operator paths),
// properties, Python conversions (item, tolist, bool, int, float, ...) and repr.
#include <cstring>
#include <string>
#include <vector>

#include "common.h"

#include <structmember.h>
#include "core/dtype_dispatch.h"
#include "ember/func.h"
#include "ember/tensor_data.h"

namespace ember::py {

PyTypeObject* tensor_type = nullptr;

PyObject* wrap_as(PyTypeObject* type, Tensor t) {
  if (!t.defined()) Py_RETURN_NONE;
  PyObject* o = type->tp_alloc(type, 0);
  if (!o) return nullptr;
  new (&reinterpret_cast<PyTensor*>(o)->t) Tensor(std::move(t));
  return o;
}

PyObject* wrap(Tensor t) { return wrap_as(tensor_type, std::move(t)); }

namespace {

void tensor_dealloc(PyObject* self) {
  PyTypeObject* tp = Py_TYPE(self);
  auto* p = reinterpret_cast<PyTensor*>(self);
  if (p->weakrefs) PyObject_ClearWeakRefs(self);
  Py_CLEAR(p->dict);
  p->t.~Tensor();
  tp->tp_free(self);
  Py_DECREF(tp);
}

// ---------------------------------------------------------------- operators
// Numbers for operators: exact Python numbers first (the fast path), then subclasses and
// NumPy scalars. Tensors and everything else are not scalars here.
inline bool operand_scalar(PyObject* o, Scalar& s) {
  if (try_py_number(o, s)) return true;
  if (is_tensor(o)) return false;
  if (PyFloat_Check(o) || PyLong_Check(o) || PyComplex_Check(o) || is_numpy_scalar(o)) return try_scalar(o, s);
  return false;
}

// The binary operators. Add..MatMul are the hot ones; the others map to the ops PyTorch's
// Tensor uses for them (** pow, % remainder, & | ^ bitwise, << >> shifts).
enum class Bin { Add, Sub, Mul, Div, FloorDiv, MatMul, Pow, Mod, And, Or, Xor, LShift, RShift };

// tensor <op> tensor, tensor <op> number (b a Tensor or a Scalar)
template <Bin op, typename B>
Tensor apply(const Tensor& a, const B& b) {
  if constexpr (op == Bin::Add) return ember::add(a, b);
  else if constexpr (op == Bin::Sub) return ember::sub(a, b);
  else if constexpr (op == Bin::Mul) return ember::mul(a, b);
  else if constexpr (op == Bin::Div) return ember::div(a, b);
  else if constexpr (op == Bin::FloorDiv) return ember::div(a, b, "floor");
  else if constexpr (op == Bin::MatMul) return ember::matmul(a, b);
  else if constexpr (op == Bin::Pow) return ember::pow(a, b);
  else if constexpr (op == Bin::Mod) return ember::remainder(a, b);
  else if constexpr (op == Bin::And) return ember::bitwise_and(a, b);
  else if constexpr (op == Bin::Or) return ember::bitwise_or(a, b);
  else if constexpr (op == Bin::Xor) return ember::bitwise_xor(a, b);
  else if constexpr (op == Bin::LShift) return ember::bitwise_left_shift(a, b);
  else return ember::bitwise_right_shift(a, b);
}
// number <op> tensor
template <Bin op>
Tensor apply_reflected(const Scalar& a, const Tensor& b) {
  if constexpr (op == Bin::Add || op == Bin::Mul || op == Bin::And || op == Bin::Or || op == Bin::Xor)
    return apply<op>(b, a);  // commutative
  else if constexpr (op == Bin::Pow) return ember::pow(a, b);
  else return apply<op>(wrapped_scalar(a), b);
}
// tensor <op>= tensor or number
template <Bin op, typename B>
void apply_inplace(Tensor& self, const B& b) {
  if constexpr (op == Bin::Add) self.add_(b);
  else if constexpr (op == Bin::Sub) self.sub_(b);
  else if constexpr (op == Bin::Mul) self.mul_(b);
  else if constexpr (op == Bin::Div) self.div_(b);
  else if constexpr (op == Bin::FloorDiv) self.div_(b, "floor");
  else if constexpr (std::is_same_v<B, Scalar>) apply_inplace<op>(self, wrapped_scalar(b));
  else if constexpr (op == Bin::Pow) ember::pow_(self, b);
  else if constexpr (op == Bin::Mod) ember::remainder_(self, b);
  else if constexpr (op == Bin::And) ember::bitwise_and_(self, b);
  else if constexpr (op == Bin::Or) ember::bitwise_or_(self, b);
  else if constexpr (op == Bin::Xor) ember::bitwise_xor_(self, b);
  else if constexpr (op == Bin::LShift) ember::bitwise_left_shift_(self, b);
  else ember::bitwise_right_shift_(self, b);
}

template <Bin op>
PyObject* nb_binary(PyObject* a, PyObject* b) {
  EMBER_PY_BEGIN
  Scalar s;
  if (is_tensor(a)) {
    if (is_tensor(b)) {
      const Tensor& x = unwrap(a);
      const Tensor& y = unwrap(b);
      if (!worth_releasing_gil(x) && !worth_releasing_gil(y)) return wrap(apply<op>(x, y));
      return wrap(maybe_without_gil(true, [x = x, y = y] { return apply<op>(x, y); }));
    }
    if constexpr (op != Bin::MatMul) {
      if (operand_scalar(b, s)) {
        const Tensor& x = unwrap(a);
        if (!worth_releasing_gil(x)) return wrap(apply<op>(x, s));
        return wrap(maybe_without_gil(true, [x = x, s] { return apply<op>(x, s); }));
      }
    }
  } else if constexpr (op != Bin::MatMul) {
    if (operand_scalar(a, s)) {
      const Tensor& y = unwrap(b);
      return wrap(maybe_without_gil(worth_releasing_gil(y), [&s, y = y] { return apply_reflected<op>(s, y); }));
    }
  }
  Py_RETURN_NOTIMPLEMENTED;
  EMBER_PY_END(nullptr)
}

template <Bin op>
PyObject* nb_inplace(PyObject* a, PyObject* b) {
  EMBER_PY_BEGIN
  Tensor self = unwrap(a);  // owned: the GIL may be released below
  Scalar s;
  if (is_tensor(b)) {
    Tensor o = unwrap(b);
    GilRelease gil(worth_releasing_gil(self));
    apply_inplace<op>(self, o);
  } else if (operand_scalar(b, s)) {
    GilRelease gil(worth_releasing_gil(self));
    apply_inplace<op>(self, s);
  } else {
    Py_RETURN_NOTIMPLEMENTED;
  }
  Py_INCREF(a);
  return a;
  EMBER_PY_END(nullptr)
}

// ** and **=: a third (modulo) operand is not supported, as in PyTorch.
PyObject* nb_power(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return nb_binary<Bin::Pow>(a, b);
}
PyObject* nb_inplace_power(PyObject* a, PyObject* b, PyObject* mod) {
  if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return nb_inplace<Bin::Pow>(a, b);
}

PyObject* nb_negative(PyObject* a) {
  EMBER_PY_BEGIN
  return wrap(ember::neg(unwrap(a)));
  EMBER_PY_END(nullptr)
}
PyObject* nb_absolute(PyObject* a) {
  EMBER_PY_BEGIN
  return wrap(ember::abs(unwrap(a)));
  EMBER_PY_END(nullptr)
}
PyObject* nb_invert(PyObject* a) {
  EMBER_PY_BEGIN
  const Tensor& t = unwrap(a);
  EMBER_CHECK(is_integral(t.dtype(), /*include_bool=*/true), TypeError,
              "~ (operator.invert) is only implemented on integer and Boolean-type tensors, got ", t.dtype());
  return wrap(ember::bitwise_not(t));
  EMBER_PY_END(nullptr)
}
PyObject* nb_positive(PyObject* a) {
  EMBER_PY_BEGIN
  EMBER_CHECK(unwrap(a).dtype() != kBool, RuntimeError, "The `+` operator, on a bool tensor is not supported.");
  Py_INCREF(a);
  return a;
  EMBER_PY_END(nullptr)
}

// ---------------------------------------------------------------- comparisons
PyObject* tensor_richcompare(PyObject* a, PyObject* b, int op) {
  EMBER_PY_BEGIN
  // Python swaps operands for reflected comparisons, so `a` may be the number.
  if (!is_tensor(a)) {
    std::swap(a, b);
    static const int swapped[] = {Py_GT, Py_GE, Py_EQ, Py_NE, Py_LT, Py_LE};
    op = swapped[op];
  }
  const Tensor& x = unwrap(a);
  Scalar s;
  if (is_tensor(b)) {
    const Tensor& y = unwrap(b);
    switch (op) {
      case Py_LT: return wrap(ember::lt(x, y));
      case Py_LE: return wrap(ember::le(x, y));
      case Py_EQ: return wrap(ember::eq(x, y));
      case Py_NE: return wrap(ember::ne(x, y));
      case Py_GT: return wrap(ember::gt(x, y));
      default: return wrap(ember::ge(x, y));
    }
  }
  if (operand_scalar(b, s)) {
    switch (op) {
      case Py_LT: return wrap(ember::lt(x, s));
      case Py_LE: return wrap(ember::le(x, s));
      case Py_EQ: return wrap(ember::eq(x, s));
      case Py_NE: return wrap(ember::ne(x, s));
      case Py_GT: return wrap(ember::gt(x, s));
      default: return wrap(ember::ge(x, s));
    }
  }
  Py_RETURN_NOTIMPLEMENTED;
  EMBER_PY_END(nullptr)
}

Py_hash_t tensor_hash(PyObject* self) {
  auto h = static_cast<Py_hash_t>(reinterpret_cast<uintptr_t>(self) >> 4);
  return h == -1 ? -2 : h;
}

// ---------------------------------------------------------------- conversions to Python

void check_one_element(const Tensor& t) {
  EMBER_CHECK(t.numel() == 1, ValueError, "only one element tensors can be converted to Python scalars");
}

int nb_bool(PyObject* self) {
  EMBER_PY_BEGIN
  const Tensor& t = unwrap(self);
  func::check_not_batched(t, "bool");
  EMBER_CHECK(t.numel() != 0, RuntimeError, "Boolean value of Tensor with no values is ambiguous");
  EMBER_CHECK(t.numel() == 1, RuntimeError, "Boolean value of Tensor with more than one value is ambiguous");
  return t.item().to<bool>() ? 1 : 0;
  EMBER_PY_END(-1)
}
PyObject* nb_int(PyObject* self) {
  EMBER_PY_BEGIN
  const Tensor& t = unwrap(self);
  check_one_element(t);
  Scalar s = t.item();
  if (s.is_floating_point()) return PyLong_FromDouble(s.to_double());  // truncates; raises on nan/inf
  return PyLong_FromLongLong(s.to_int());
  EMBER_PY_END(nullptr)
}
PyObject* nb_float(PyObject* self) {
  EMBER_PY_BEGIN
  const Tensor& t = unwrap(self);
  check_one_element(t);
  return PyFloat_FromDouble(t.item().to_double());
  EMBER_PY_END(nullptr)
}
PyObject* nb_index(PyObject* self) {
  EMBER_PY_BEGIN
  const Tensor& t = unwrap(self);
  EMBER_CHECK(t.numel() == 1 && is_integral(t.dtype(), true), TypeError,
              "only integer tensors of a single element can be converted to an index");
  return PyLong_FromLongLong(t.item().to_int());
  EMBER_PY_END(nullptr)
}

// Nested lists of Python numbers, walking the strides.
template <typename T>
PyObject* element_to_py(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  if constexpr (std::is_same_v<T, bool>) return PyBool_FromLong(v);
  else if constexpr (std::is_integral_v<T>) return PyLong_FromLongLong(static_cast<long long>(v));
  else if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>)
    return PyComplex_FromDoubles(static_cast<double>(v.real()), static_cast<double>(v.imag()));
  else return PyFloat_FromDouble(static_cast<double>(v));
}

template <typename T>
PyObject* tolist_rec(const char* p, IntArrayRef sizes, IntArrayRef strides, size_t d) {
  if (d == sizes.size()) return element_to_py<T>(p);
  PyObject* list = PyList_New(sizes[d]);
  if (!list) return nullptr;
  const int64_t step = strides[d] * static_cast<int64_t>(sizeof(T));
  for (int64_t i = 0; i < sizes[d]; ++i) {
    PyObject* item = tolist_rec<T>(p + i * step, sizes, strides, d + 1);
    if (!item) {
      Py_DECREF(list);
      return nullptr;
    }
    PyList_SET_ITEM(list, i, item);
  }
  return list;
}

PyObject* tensor_tolist(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  Tensor t = unwrap(self);
  func::check_not_batched(t, "tolist");
  EMBER_CHECK(!t.is_meta(), NotImplementedError, "Cannot copy out of meta tensor; no data!");
  if (!t.is_cpu()) t = t.cpu();
  PyObject* r = EMBER_DISPATCH_ALL(t.dtype(), "tolist", [&]() -> PyObject* {
    return tolist_rec<scalar_t>(static_cast<const char*>(t.data_ptr()), t.sizes(), t.strides(), 0);
  });
  if (!r) throw python_error();
  return r;
  EMBER_PY_END(nullptr)
}

PyObject* tensor_item(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  return scalar_to_py(unwrap(self).item());
  EMBER_PY_END(nullptr)
}
PyObject* tensor_complex(PyObject* self, PyObject*) {
  EMBER_PY_BEGIN
  const Tensor& t = unwrap(self);
  check_one_element(t);
  complex128 c = t.item().to_complex();
  return PyComplex_FromDoubles(c.real(), c.imag());
  EMBER_PY_END(nullptr)
}

// ---------------------------------------------------------------- sequence protocol
Py_ssize_t tensor_len(PyObject* self) {
  EMBER_PY_BEGIN
  const Tensor& t = unwrap(self);
  EMBER_CHECK(t.dim() > 0, TypeError, "len() of a 0-d tensor");
  return static_cast<Py_ssize_t>(t.sizes()[0]);
  EMBER_PY_END(-1)
}

PyObject* tensor_iter(PyObject* self) {
  EMBER_PY_BEGIN
  const Tensor& t = unwrap(self);
  EMBER_CHECK(t.dim() > 0, TypeError, "iteration over a 0-d tensor");
  int64_t n = t.sizes()[0];
  PyObject* tup = PyTuple_New(n);
  if (!tup) throw python_error();
  for (int64_t i = 0; i < n; ++i) {
    PyObject* e = wrap(t.select(0, i));
    if (!e) {
      Py_DECREF(tup);
      throw python_error();
    }
    PyTuple_SET_ITEM(tup, i, e);
  }
  PyObject* it = PyObject_GetIter(tup);
  Py_DECREF(tup);
  return it;
  EMBER_PY_END(nullptr)
}

// ---------------------------------------------------------------- repr
PyObject* tensor_repr(PyObject* self) {
  EMBER_PY_BEGIN
  std::string s = unwrap(self).str();
  return PyUnicode_FromStringAndSize(s.data(), static_cast<Py_ssize_t>(s.size()));
  EMBER_PY_END(nullptr)
}

PyObject* tensor_format(PyObject* self, PyObject* spec) {
  EMBER_PY_BEGIN
  const Tensor& t = unwrap(self);
  if (t.dim() == 0 && !t.is_meta()) {
    PyObject* v = scalar_to_py(t.item());
    if (!v) return nullptr;
    PyObject* r = PyObject_Format(v, spec);
    Py_DECREF(v);
    return r;
  }
  if (!PyUnicode_Check(spec) || PyUnicode_GET_LENGTH(spec) != 0)
    EMBER_FAIL(TypeError, "unsupported format string passed to Tensor.__format__");
  return PyObject_Str(self);
  EMBER_PY_END(nullptr)
}

// ---------------------------------------------------------------- properties
PyObject* get_shape(PyObject* self, void*) {
  EMBER_PY_BEGIN
  return new_size(unwrap(self).sizes());
  EMBER_PY_END(nullptr)
}
PyObject* get_dtype(PyObject* self, void*) {
  PyObject* d = dtype_object(unwrap(self).dtype());
  Py_INCREF(d);
  return d;
}
PyObject* get_device(PyObject* self, void*) {
  EMBER_PY_BEGIN
  return new_device(unwrap(self).device());
  EMBER_PY_END(nullptr)
}
PyObject* get_ndim(PyObject* self, void*) { return PyLong_FromLongLong(unwrap(self).dim()); }
PyObject* get_T(PyObject* self, void*) {
  EMBER_PY_BEGIN
  const Tensor& t = unwrap(self);
  DimVector dims(static_cast<size_t>(t.dim()));
  for (int64_t i = 0; i < t.dim(); ++i) dims[static_cast<size_t>(i)] = t.dim() - 1 - i;
  return wrap(t.permute(dims));
  EMBER_PY_END(nullptr)
}
PyObject* get_mT(PyObject* self, void*) {
  EMBER_PY_BEGIN
  return wrap(unwrap(self).mT());
  EMBER_PY_END(nullptr)
}
PyObject* get_real(PyObject* self, void*) {
  EMBER_PY_BEGIN
  return wrap(unwrap(self).real());
  EMBER_PY_END(nullptr)
}
PyObject* get_imag(PyObject* self, void*) {
  EMBER_PY_BEGIN
  return wrap(unwrap(self).imag());
  EMBER_PY_END(nullptr)
}
// t.real = v and t.imag = v write through the view.
int set_part(PyObject* self, PyObject* value, bool imag) {
  EMBER_PY_BEGIN
  EMBER_CHECK(value, TypeError, "cannot delete ", imag ? "imag" : "real");
  Tensor part = imag ? unwrap(self).imag() : unwrap(self).real();
  Scalar s;
  if (is_tensor(value)) part.copy_(unwrap(value));
  else if (try_scalar(value, s)) part.fill_(s);
  else EMBER_FAIL(TypeError, "can't assign a ", type_name(value), " to a Tensor");
  return 0;
  EMBER_PY_END(-1)
}
int set_real(PyObject* self, PyObject* value, void*) { return set_part(self, value, false); }
int set_imag(PyObject* self, PyObject* value, void*) { return set_part(self, value, true); }
PyObject* get_is_cpu(PyObject* self, void*) { return PyBool_FromLong(unwrap(self).is_cpu()); }
PyObject* get_is_meta(PyObject* self, void*) { return PyBool_FromLong(unwrap(self).is_meta()); }
PyObject* get_is_cuda(PyObject* self, void*) {
  return PyBool_FromLong(unwrap(self).device().type == DeviceType::CUDA);
}
PyObject* get_data(PyObject* self, void*) {
  EMBER_PY_BEGIN
  return wrap(unwrap(self).detach());
  EMBER_PY_END(nullptr)
}
int set_data(PyObject* self, PyObject* value, void*) {
  EMBER_PY_BEGIN
  EMBER_CHECK(value && is_tensor(value), TypeError, "Tensor.data must be set to a Tensor");
  // In place, as torch: the tensor keeps requires_grad, .grad and every reference to it.
  set_data(unwrap(self), unwrap(value));
  return 0;
  EMBER_PY_END(-1)
}
PyObject* get_itemsize(PyObject* self, void*) { return PyLong_FromSize_t(unwrap(self).element_size()); }
PyObject* get_nbytes(PyObject* self, void*) { return PyLong_FromSize_t(unwrap(self).nbytes()); }

PyGetSetDef tensor_getset[] = {
    {"shape", get_shape, nullptr, nullptr, nullptr},
    {"dtype", get_dtype, nullptr, nullptr, nullptr},
    {"device", get_device, nullptr, nullptr, nullptr},
    {"ndim", get_ndim, nullptr, nullptr, nullptr},
    {"T", get_T, nullptr, nullptr, nullptr},
    {"mT", get_mT, nullptr, nullptr, nullptr},
    {"real", get_real, set_real, nullptr, nullptr},
    {"imag", get_imag, set_imag, nullptr, nullptr},
    {"is_cpu", get_is_cpu, nullptr, nullptr, nullptr},
    {"is_meta", get_is_meta, nullptr, nullptr, nullptr},
    {"is_cuda", get_is_cuda, nullptr, nullptr, nullptr},
    {"data", get_data, set_data, nullptr, nullptr},
    {"itemsize", get_itemsize, nullptr, nullptr, nullptr},
    {"nbytes", get_nbytes, nullptr, nullptr, nullptr},
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, nullptr, nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

PyMemberDef tensor_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(PyTensor, weakrefs), READONLY, nullptr},
    {"__dictoffset__", T_PYSSIZET, offsetof(PyTensor, dict), READONLY, nullptr},
    {nullptr, 0, 0, 0, nullptr}};

PyMethodDef conversion_methods[] = {
    {"item", tensor_item, METH_NOARGS, "The value of a one-element tensor as a Python number."},
    {"tolist", tensor_tolist, METH_NOARGS, "The tensor as (nested) lists of Python numbers."},
    {"__complex__", tensor_complex, METH_NOARGS, nullptr},
    {"__format__", tensor_format, METH_O, nullptr},
    {nullptr, nullptr, 0, nullptr}};

// The method tables of all areas, concatenated once at import.
PyMethodDef* all_methods() {
  static std::vector<PyMethodDef> defs;
  for (PyMethodDef* table : {conversion_methods, tensor_view_methods, tensor_op_methods,
                             tensor_interop_methods, tensor_random_methods})
    for (PyMethodDef* d = table; d->ml_name; ++d) defs.push_back(*d);
  defs.push_back({nullptr, nullptr, 0, nullptr});
  return defs.data();
}

}  // namespace

void init_tensor_type(PyObject* m) {
  static PyType_Slot slots[] = {
      {Py_tp_new, reinterpret_cast<void*>(tensor_new)},
      {Py_tp_dealloc, reinterpret_cast<void*>(tensor_dealloc)},
      {Py_tp_repr, reinterpret_cast<void*>(tensor_repr)},
      {Py_tp_str, reinterpret_cast<void*>(tensor_repr)},
      {Py_tp_hash, reinterpret_cast<void*>(tensor_hash)},
      {Py_tp_richcompare, reinterpret_cast<void*>(tensor_richcompare)},
      {Py_tp_iter, reinterpret_cast<void*>(tensor_iter)},
      {Py_tp_getset, tensor_getset},
      {Py_tp_members, tensor_members},
      {Py_tp_methods, all_methods()},
      {Py_tp_doc, const_cast<char*>("A multi-dimensional array of one dtype on one device.")},
      {Py_nb_add, reinterpret_cast<void*>(nb_binary<Bin::Add>)},
      {Py_nb_subtract, reinterpret_cast<void*>(nb_binary<Bin::Sub>)},
      {Py_nb_multiply, reinterpret_cast<void*>(nb_binary<Bin::Mul>)},
      {Py_nb_true_divide, reinterpret_cast<void*>(nb_binary<Bin::Div>)},
      {Py_nb_floor_divide, reinterpret_cast<void*>(nb_binary<Bin::FloorDiv>)},
      {Py_nb_matrix_multiply, reinterpret_cast<void*>(nb_binary<Bin::MatMul>)},
      {Py_nb_inplace_add, reinterpret_cast<void*>(nb_inplace<Bin::Add>)},
      {Py_nb_inplace_subtract, reinterpret_cast<void*>(nb_inplace<Bin::Sub>)},
      {Py_nb_inplace_multiply, reinterpret_cast<void*>(nb_inplace<Bin::Mul>)},
      {Py_nb_inplace_true_divide, reinterpret_cast<void*>(nb_inplace<Bin::Div>)},
      {Py_nb_inplace_floor_divide, reinterpret_cast<void*>(nb_inplace<Bin::FloorDiv>)},
      {Py_nb_power, reinterpret_cast<void*>(nb_power)},
      {Py_nb_remainder, reinterpret_cast<void*>(nb_binary<Bin::Mod>)},
      {Py_nb_and, reinterpret_cast<void*>(nb_binary<Bin::And>)},
      {Py_nb_or, reinterpret_cast<void*>(nb_binary<Bin::Or>)},
      {Py_nb_xor, reinterpret_cast<void*>(nb_binary<Bin::Xor>)},
      {Py_nb_lshift, reinterpret_cast<void*>(nb_binary<Bin::LShift>)},
      {Py_nb_rshift, reinterpret_cast<void*>(nb_binary<Bin::RShift>)},
      {Py_nb_inplace_power, reinterpret_cast<void*>(nb_inplace_power)},
      {Py_nb_inplace_remainder, reinterpret_cast<void*>(nb_inplace<Bin::Mod>)},
      {Py_nb_inplace_and, reinterpret_cast<void*>(nb_inplace<Bin::And>)},
      {Py_nb_inplace_or, reinterpret_cast<void*>(nb_inplace<Bin::Or>)},
      {Py_nb_inplace_xor, reinterpret_cast<void*>(nb_inplace<Bin::Xor>)},
      {Py_nb_inplace_lshift, reinterpret_cast<void*>(nb_inplace<Bin::LShift>)},
      {Py_nb_inplace_rshift, reinterpret_cast<void*>(nb_inplace<Bin::RShift>)},
      {Py_nb_invert, reinterpret_cast<void*>(nb_invert)},
      {Py_nb_negative, reinterpret_cast<void*>(nb_negative)},
      {Py_nb_absolute, reinterpret_cast<void*>(nb_absolute)},
      {Py_nb_positive, reinterpret_cast<void*>(nb_positive)},
      {Py_nb_bool, reinterpret_cast<void*>(nb_bool)},
      {Py_nb_int, reinterpret_cast<void*>(nb_int)},
      {Py_nb_float, reinterpret_cast<void*>(nb_float)},
      {Py_nb_index, reinterpret_cast<void*>(nb_index)},
      {Py_mp_length, reinterpret_cast<void*>(tensor_len)},
      {Py_sq_length, reinterpret_cast<void*>(tensor_len)},
      {Py_mp_subscript, reinterpret_cast<void*>(tensor_getitem)},
      {Py_mp_ass_subscript, reinterpret_cast<void*>(tensor_setitem)},
      {0, nullptr}};
  static PyType_Spec spec = {"ember.Tensor", sizeof(PyTensor), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, slots};
  PyObject* t = PyType_FromSpec(&spec);
  if (!t) throw python_error();
  tensor_type = reinterpret_cast<PyTypeObject*>(t);
  // NumPy defers binary operators with an array on the left to Tensor's reflected methods.
  PyObject* prio = PyFloat_FromDouble(1000.0);
  if (!prio || PyObject_SetAttrString(t, "__array_priority__", prio) < 0) throw python_error();
  Py_DECREF(prio);
  Py_INCREF(t);
  if (PyModule_AddObject(m, "Tensor", t) < 0) throw python_error();
  for (PyMethodDef* fns : {module_view_functions, module_op_functions})
    if (PyModule_AddFunctions(m, fns) < 0) throw python_error();
}

PyObject* scalar_to_py(const Scalar& s) {
  switch (s.kind()) {
    case Scalar::Kind::Bool: return PyBool_FromLong(s.to<bool>());
    case Scalar::Kind::Int: return PyLong_FromLongLong(s.to_int());
    case Scalar::Kind::Double: return PyFloat_FromDouble(s.to_double());
    default: {
      complex128 c = s.to_complex();
      return PyComplex_FromDoubles(c.real(), c.imag());
    }
  }
}

}  // namespace ember::py
