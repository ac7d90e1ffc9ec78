// t[index] and t[index] = value. Basic indexing (ints, slices, None, Ellipsis) becomes a chain
// of views (select, slice, unsqueeze); tensors, lists and bools become the index list of
// ember::index / ember::index_put_. The parsing follows torch's applySlicing so that every
// expression resolves to the same dims as in PyTorch (including its treatment of a
// multi-dimensional mask as one position of the index list).
#include <climits>
#include <vector>

#include "common.h"

namespace ember::py {

namespace {

constexpr int kMaxIndexItems = 64;

// torch's treatSequenceAsTuple: a short non-tuple sequence holding a tensor, a sequence, a
// slice, Ellipsis or None is read as a tuple of indices (NumPy's legacy rule).
bool treat_sequence_as_tuple(PyObject* index) {
  if (PyTuple_Check(index)) return true;
  if (is_tensor(index) || is_numpy_array(index)) return false;
  if (!PySequence_Check(index) || PyUnicode_Check(index) || PyBytes_Check(index)) return false;
  Py_ssize_t n = PySequence_Size(index);
  if (n < 0) {
    PyErr_Clear();
    return false;
  }
  if (n >= 32) return false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    Owned item(PySequence_GetItem(index, i));
    if (!item.p) {
      PyErr_Clear();
      return false;
    }
    PyObject* o = item.p;
    if (is_tensor(o) || PySequence_Check(o) || PySlice_Check(o) || o == Py_Ellipsis || o == Py_None) return true;
  }
  return false;
}

bool is_int_index(PyObject* o) {
  if (PyLong_Check(o)) return !PyBool_Check(o);
  return is_numpy_integer(o);
}

int64_t index_value(PyObject* o) {
  if (PyLong_CheckExact(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (overflow) throw ember::IndexError("index out of range of int64");
    return v;
  }
  Owned i(PyNumber_Index(o));
  if (!i.p) throw python_error();
  long long v = PyLong_AsLongLong(i.p);
  if (v == -1 && PyErr_Occurred()) throw python_error();
  return v;
}

Tensor apply_select(const Tensor& t, int64_t dim, int64_t index) {
  EMBER_CHECK(t.dim() > 0, IndexError,
              "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to "
              "convert a 0-dim tensor to a number");
  int64_t size = t.sizes()[dim];
  EMBER_CHECK(index >= -size && index < size, IndexError, "index ", index, " is out of bounds for dimension ", dim,
              " with size ", size);
  return t.select(dim, index);
}

Tensor apply_slice(const Tensor& t, int64_t dim, PyObject* slice) {
  Py_ssize_t start, stop, step;
  if (PySlice_Unpack(slice, &start, &stop, &step) < 0) throw python_error();
  EMBER_CHECK(step > 0, ValueError, "step must be greater than zero");
  EMBER_CHECK(t.dim() > 0, IndexError,
              "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to "
              "convert a 0-dim tensor to a number");
  int64_t size = t.sizes()[dim];
  if (start == 0 && step == 1 && stop >= size) return t;  // a full slice: no new view
  return t.slice(dim, start, stop, step);
}

// A 1-element (true) or empty (false) int64 index: True/False as indices.
Tensor bool_index(bool v) {
  Tensor r = empty({v ? 1 : 0}, kInt64);
  if (v) r.zero_();
  return r;
}

// Lists, NumPy arrays and other sequences used as an index become tensors (int64 or bool).
Tensor sequence_index(PyObject* o) {
  if (is_numpy_array(o)) return tensor_from_data(o, std::nullopt, std::nullopt, true);
  if (PyFloat_Check(o) || PyComplex_Check(o) || !PySequence_Check(o))
    EMBER_FAIL(IndexError,
               "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
               "(got ", type_name(o), ")");
  return tensor_from_data(o, std::nullopt, std::nullopt, true);
}

struct Parsed {
  Tensor view;                                  // the result of the basic part
  std::vector<std::optional<Tensor>> index;  // advanced indices by position (may be empty)
};

void record(Parsed& p, int64_t& dim, Tensor t) {
  while (static_cast<int64_t>(p.index.size()) < dim) p.index.push_back(std::nullopt);
  p.index.push_back(std::move(t));
  ++dim;
}

Parsed parse_index(const Tensor& self, PyObject* index) {
  PyObject* items_buf[kMaxIndexItems];
  PyObject** items = items_buf;
  Py_ssize_t n = 1;
  Owned seq;
  if (PyTuple_Check(index)) {
    n = PyTuple_GET_SIZE(index);
    items = &PyTuple_GET_ITEM(index, 0);
  } else if (treat_sequence_as_tuple(index)) {
    seq.p = PySequence_Tuple(index);
    if (!seq.p) throw python_error();
    n = PyTuple_GET_SIZE(seq.p);
    items = &PyTuple_GET_ITEM(seq.p, 0);
  } else {
    items_buf[0] = index;
  }

  // Dims the index consumes (None, Ellipsis and bools consume none; masks their ndim).
  int64_t specified = 0;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* o = items[i];
    if (o == Py_None || o == Py_Ellipsis || PyBool_Check(o)) continue;
    if (is_tensor(o)) {
      const Tensor& t = unwrap(o);
      specified += (t.dtype() == kBool || t.dtype() == kUInt8) ? t.dim() : 1;
    } else {
      ++specified;
    }
  }
  EMBER_CHECK(specified <= self.dim(), IndexError, "too many indices for tensor of dimension ", self.dim());

  Parsed p;
  p.view = self;
  int64_t dim = 0;
  bool ellipsis_seen = false;
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* o = items[i];
    if (PyLong_CheckExact(o) || (!PyBool_Check(o) && !is_tensor(o) && is_int_index(o))) {
      p.view = apply_select(p.view, dim, index_value(o));
    } else if (PySlice_Check(o)) {
      p.view = apply_slice(p.view, dim, o);
      ++dim;
    } else if (o == Py_Ellipsis) {
      EMBER_CHECK(!ellipsis_seen, IndexError, "an index can only have a single ellipsis ('...')");
      ellipsis_seen = true;
      dim += self.dim() - specified;
    } else if (o == Py_None) {
      p.view = p.view.unsqueeze(dim);
      ++dim;
    } else if (PyBool_Check(o)) {
      p.view = p.view.unsqueeze(dim);
      record(p, dim, bool_index(o == Py_True));
    } else if (is_tensor(o)) {
      const Tensor& t = unwrap(o);
      ScalarType st = t.dtype();
      if (t.dim() == 0 && is_integral(st, true)) {
        if (st != kUInt8 && st != kBool) {
          p.view = apply_select(p.view, dim, t.item().to_int());
        } else {
          p.view = p.view.unsqueeze(dim);
          record(p, dim, bool_index(t.item().to<bool>()));
        }
      } else {
        record(p, dim, t);
      }
    } else {
      record(p, dim, sequence_index(o));
    }
  }
  return p;
}

// torch's copy_to: leading size-1 dims of the value are dropped so that, e.g., a [1, 3]
// value fits a [3] destination.
Tensor strip_leading_ones(const Tensor& v) {
  IntArrayRef s = v.sizes();
  size_t k = 0;
  while (k < s.size() && s[k] == 1) ++k;
  if (k == 0) return v;
  return v.reshape(s.slice(k, s.size() - k));
}

}  // namespace

PyObject* tensor_getitem(PyObject* self, PyObject* index) {
  EMBER_PY_BEGIN
  const Tensor& t = unwrap(self);
  // Fast paths: t[i], t[a:b], t[None], t[...].
  if (PyLong_CheckExact(index)) return wrap(apply_select(t, 0, index_value(index)));
  if (PySlice_Check(index)) {
    Tensor r = apply_slice(t, 0, index);
    return wrap(r.is_same(t) ? t.alias() : std::move(r));
  }
  if (index == Py_None) return wrap(t.unsqueeze(0));
  if (index == Py_Ellipsis) return wrap(t.alias());
  Parsed p = parse_index(t, index);
  if (p.index.empty()) return wrap(p.view.is_same(t) ? t.alias() : std::move(p.view));
  return wrap(ember::index(p.view, ArrayRef<std::optional<Tensor>>(p.index.data(), p.index.size())));
  EMBER_PY_END(nullptr)
}

int tensor_setitem(PyObject* self, PyObject* index, PyObject* value) {
  EMBER_PY_BEGIN
  EMBER_CHECK(value, TypeError, "Tensor does not support deleting items");
  Tensor& t = unwrap(self);
  Scalar s;
  bool is_scalar = false;
  Tensor v;
  if (is_tensor(value)) {
    v = unwrap(value);
  } else if (try_scalar(value, s)) {
    is_scalar = true;
  } else {
    EMBER_FAIL(TypeError, "can't assign a ", type_name(value), " to a ember.", dtype_name(t.dtype()), " Tensor");
  }
  Parsed p;
  if (PyLong_CheckExact(index)) p.view = apply_select(t, 0, index_value(index));
  else p = parse_index(t, index);
  if (p.index.empty()) {
    if (is_scalar) p.view.fill_(s);
    else if (p.view.sizes().equals(v.sizes())) p.view.copy_(v);
    else if (v.dim() == 0) p.view.fill_(v.item());
    else p.view.copy_(strip_leading_ones(v));
    return 0;
  }
  if (is_scalar) v = scalar_tensor(s, TensorOptions(t.dtype()).device(t.device()));
  else if (v.dim() > 0) v = strip_leading_ones(v);
  ember::index_put_(p.view, ArrayRef<std::optional<Tensor>>(p.index.data(), p.index.size()), v);
  return 0;
  EMBER_PY_END(-1)
}

}  // namespace ember::py
