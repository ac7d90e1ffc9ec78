// Math ops as Tensor methods and ember.* functions: arithmetic, unary, comparison, where,
// reductions, matmul, joining, masked selection. Each op is written once (EMBER_PY_OP) and
// serves both forms; `out=` exists only in the function form, as in torch.
#include "common.h"

namespace ember::py {

namespace {

// Returns the `out` object (new reference) after an out= call.
PyObject* return_out(const Args& a, int i) {
  Py_INCREF(a[i]);
  return a[i];
}
PyObject* return_self(PyObject* self) {
  Py_INCREF(self);
  return self;
}

// The "other" operand of a binary op: a tensor, or a number promoted weakly.
// Holds its tensor by value, so it stays valid while the GIL is released.
struct Operand {
  Tensor tensor;
  const Tensor* t = nullptr;  // &tensor when the operand is a tensor
  Scalar s;
  Operand() = default;
  Operand(const Operand& o) : tensor(o.tensor), t(o.t ? &tensor : nullptr), s(o.s) {}
  void set(const Tensor& x) {
    tensor = x;
    t = &tensor;
  }
  bool large() const { return t && worth_releasing_gil(*t); }
};
Operand operand(const Args& a, int i) {
  Operand o;
  if (a.is_tensor(i)) {
    o.set(unwrap(a[i]));
  } else {
    Scalar s;
    if (!a[i] || !try_scalar(a[i], s)) a.type_error(i, "Tensor");
    o.s = s;
  }
  return o;
}
// A tensor for APIs that only take tensors (out= forms): numbers become wrapped scalars.
Tensor as_tensor_operand(const Operand& o) { return o.t ? *o.t : wrapped_scalar(o.s); }

// ---------------------------------------------------------------- add, sub, mul, div
enum class Arith { Add, Sub, Mul, Div, FloorDiv, RSub };

template <Arith K>
Tensor arith(const Tensor& x, const Operand& y, const Scalar& alpha, std::optional<std::string_view> mode) {
  if constexpr (K == Arith::Add) return y.t ? ember::add(x, *y.t, alpha) : ember::add(x, y.s, alpha);
  else if constexpr (K == Arith::Sub) return y.t ? ember::sub(x, *y.t, alpha) : ember::sub(x, y.s, alpha);
  else if constexpr (K == Arith::RSub) return ember::sub(as_tensor_operand(y), x, alpha);
  else if constexpr (K == Arith::Mul) return y.t ? ember::mul(x, *y.t) : ember::mul(x, y.s);
  else if constexpr (K == Arith::Div) return y.t ? ember::div(x, *y.t, mode) : ember::div(x, y.s, mode);
  else {
    // The floor_divide op itself, not div with rounding: like PyTorch's, it has no derivative.
    static const TypedOp<Tensor(const Tensor&, const Tensor&)> tt("floor_divide");
    static const TypedOp<Tensor(const Tensor&, const Scalar&)> ts("floor_divide.Scalar");
    return y.t ? tt.call(x, *y.t) : ts.call(x, y.s);
  }
}

constexpr const char* arith_name(Arith k) {
  return k == Arith::Add ? "add" : k == Arith::Sub ? "sub" : k == Arith::RSub ? "rsub"
       : k == Arith::Mul ? "mul" : k == Arith::Div ? "div" : "floor_divide";
}
constexpr const char* arith_spec(Arith k) {
  return (k == Arith::Add || k == Arith::Sub || k == Arith::RSub) ? "input, other, *, alpha=1, out=None"
       : k == Arith::Div ? "input, other, *, rounding_mode=None, out=None"
                         : "input, other, *, out=None";
}

template <Arith K, bool Method>
PyObject* py_arith(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  // Positional (x, y) and self.op(y) with exact tensors or numbers: skip the parser.
  if (!kwnames && nargs == (Method ? 1 : 2)) {
    PyObject* x = Method ? self : args[0];
    PyObject* y = Method ? args[0] : args[1];
    if (is_tensor(x) && !worth_releasing_gil(unwrap(x))) {
      Operand o;
      if (is_tensor(y)) {
        if (!worth_releasing_gil(unwrap(y))) {
          o.t = &unwrap(y);  // borrowed: the GIL stays held
          return wrap(arith<K>(unwrap(x), o, 1, std::nullopt));
        }
      } else if (try_py_number(y, o.s)) {
        return wrap(arith<K>(unwrap(x), o, 1, std::nullopt));
      }
    }
  }
  static Signature sig(arith_name(K), arith_spec(K));
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  Tensor x = a.tensor(0);
  Operand y = operand(a, 1);
  Scalar alpha = 1;
  std::optional<std::string> mode;
  int out_i = 3;
  if constexpr (K == Arith::Add || K == Arith::Sub || K == Arith::RSub) alpha = a.scalar_or(2, 1);
  else if constexpr (K == Arith::Div) mode = a.str_opt(2);
  else out_i = 2;
  std::optional<std::string_view> mode_view;
  if (mode) mode_view = *mode;
  Tensor out = a.has(out_i) ? a.tensor(out_i) : Tensor();
  Tensor r;
  {
    GilRelease gil(worth_releasing_gil(x) || y.large());
    if (out.defined()) {
      Tensor yt = as_tensor_operand(y);
      if constexpr (K == Arith::Add) add_out(out, x, yt, alpha);
      else if constexpr (K == Arith::Sub) sub_out(out, x, yt, alpha);
      else if constexpr (K == Arith::RSub) sub_out(out, yt, x, alpha);
      else if constexpr (K == Arith::Mul) mul_out(out, x, yt);
      else if constexpr (K == Arith::Div) div_out(out, x, yt, mode_view);
      else div_out(out, x, yt, "floor");
    } else {
      r = arith<K>(x, y, alpha, mode_view);
    }
  }
  if (a.has(out_i)) return return_out(a, out_i);
  return wrap(std::move(r));
  EMBER_PY_END(nullptr)
}

// self.add_(other, *, alpha=1) and friends.
template <Arith K>
PyObject* m_arith_(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  Tensor& x = unwrap(self);
  if (!kwnames && nargs == 1) {
    Scalar s;
    if (is_tensor(args[0])) {
      const Tensor& y = unwrap(args[0]);
      if constexpr (K == Arith::Add) x.add_(y);
      else if constexpr (K == Arith::Sub) x.sub_(y);
      else if constexpr (K == Arith::Mul) x.mul_(y);
      else if constexpr (K == Arith::Div) x.div_(y);
      else x.div_(y, "floor");
      return return_self(self);
    }
    if (try_py_number(args[0], s)) {
      if constexpr (K == Arith::Add) x.add_(s);
      else if constexpr (K == Arith::Sub) x.sub_(s);
      else if constexpr (K == Arith::Mul) x.mul_(s);
      else if constexpr (K == Arith::Div) x.div_(s);
      else x.div_(s, "floor");
      return return_self(self);
    }
  }
  static const std::string name = std::string(arith_name(K)) + "_";
  static Signature sig(name.c_str(), arith_spec(K));
  Args a(sig, self, args, nargs, kwnames);
  Operand y = operand(a, 1);
  Tensor yt = as_tensor_operand(y);
  if constexpr (K == Arith::Add) x.add_(yt, a.scalar_or(2, 1));
  else if constexpr (K == Arith::Sub) x.sub_(yt, a.scalar_or(2, 1));
  else if constexpr (K == Arith::Mul) x.mul_(yt);
  else if constexpr (K == Arith::Div) {
    auto mode = a.str_opt(2);
    std::optional<std::string_view> mv;
    if (mode) mv = *mode;
    x.div_(yt, mv);
  } else {
    x.div_(yt, "floor");
  }
  return return_self(self);
  EMBER_PY_END(nullptr)
}

// ---------------------------------------------------------------- unary
struct UnaryDef {
  const char* name;
  Tensor (*fn)(const Tensor&);
  Tensor& (*out)(Tensor&, const Tensor&);
  Tensor& (Tensor::*inplace)();
};
#define EMBER_UNARY_ROW(n) \
  {#n, static_cast<Tensor (*)(const Tensor&)>(&ember::n), &ember::n##_out, &Tensor::n##_}
constexpr UnaryDef kUnary[] = {
    EMBER_UNARY_ROW(neg), EMBER_UNARY_ROW(abs), EMBER_UNARY_ROW(exp), EMBER_UNARY_ROW(log),
    EMBER_UNARY_ROW(sqrt), EMBER_UNARY_ROW(sin), EMBER_UNARY_ROW(cos), EMBER_UNARY_ROW(tanh),
    EMBER_UNARY_ROW(sigmoid), EMBER_UNARY_ROW(relu)};
#undef EMBER_UNARY_ROW
enum { kNeg, kAbs, kExp, kLog, kSqrt, kSin, kCos, kTanh, kSigmoid, kRelu };

template <int I, bool Method>
PyObject* py_unary(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  if (!kwnames) {
    PyObject* x = Method ? self : (nargs == 1 ? args[0] : nullptr);
    if (nargs == (Method ? 0 : 1) && is_tensor(x) && !worth_releasing_gil(unwrap(x)))
      return wrap(kUnary[I].fn(unwrap(x)));
  }
  static Signature sig(kUnary[I].name, I == kRelu ? "input" : "input, *, out=None");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  Tensor x = a.tensor(0);
  if (I != kRelu && a.has(1)) {
    Tensor out = a.tensor(1);
    {
      GilRelease gil(worth_releasing_gil(x));
      kUnary[I].out(out, x);
    }
    return return_out(a, 1);
  }
  return wrap(maybe_without_gil(worth_releasing_gil(x), [&] { return kUnary[I].fn(x); }));
  EMBER_PY_END(nullptr)
}
// self.exp_() and ember.exp_(input)
template <int I, bool Method>
PyObject* py_unary_(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static const std::string name = std::string(kUnary[I].name) + "_";
  static Signature sig(name.c_str(), "input");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  (a.tensor(0).*kUnary[I].inplace)();
  return return_out(a, 0);
  EMBER_PY_END(nullptr)
}

// ---------------------------------------------------------------- comparisons
struct CompareDef {
  const char* name;
  Tensor (*tt)(const Tensor&, const Tensor&);
  Tensor (*ts)(const Tensor&, const Scalar&);
  Tensor& (*out)(Tensor&, const Tensor&, const Tensor&);
};
#define EMBER_COMPARE_ROW(n, alias)                                                \
  {alias, static_cast<Tensor (*)(const Tensor&, const Tensor&)>(&ember::n),        \
   static_cast<Tensor (*)(const Tensor&, const Scalar&)>(&ember::n), &ember::n##_out}
constexpr CompareDef kCompare[] = {
    EMBER_COMPARE_ROW(eq, "eq"), EMBER_COMPARE_ROW(ne, "ne"), EMBER_COMPARE_ROW(lt, "lt"),
    EMBER_COMPARE_ROW(le, "le"), EMBER_COMPARE_ROW(gt, "gt"), EMBER_COMPARE_ROW(ge, "ge"),
    EMBER_COMPARE_ROW(ne, "not_equal"), EMBER_COMPARE_ROW(lt, "less"), EMBER_COMPARE_ROW(le, "less_equal"),
    EMBER_COMPARE_ROW(gt, "greater"), EMBER_COMPARE_ROW(ge, "greater_equal")};
#undef EMBER_COMPARE_ROW

template <int I, bool Method>
PyObject* py_compare(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static Signature sig(kCompare[I].name, "input, other, *, out=None");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  const Tensor& x = a.tensor(0);
  Operand y = operand(a, 1);
  if (a.has(2)) {
    kCompare[I].out(a.tensor(2), x, as_tensor_operand(y));
    return return_out(a, 2);
  }
  return wrap(y.t ? kCompare[I].tt(x, *y.t) : kCompare[I].ts(x, y.s));
  EMBER_PY_END(nullptr)
}
// self.eq_(other): the comparison written into self (cast to self's dtype).
template <int I>
PyObject* m_compare_(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static const std::string name = std::string(kCompare[I].name) + "_";
  static Signature sig(name.c_str(), "self, other");
  Args a(sig, self, args, nargs, kwnames);
  Tensor& x = unwrap(self);
  Operand y = operand(a, 1);
  Tensor r = y.t ? kCompare[I].tt(x, *y.t) : kCompare[I].ts(x, y.s);
  EMBER_CHECK(r.sizes().equals(x.sizes()), RuntimeError, name, "(): output with shape ", x.sizes(),
              " doesn't match the broadcast shape ", r.sizes());
  x.copy_(r);
  return return_self(self);
  EMBER_PY_END(nullptr)
}

// ---------------------------------------------------------------- maximum, minimum, where
template <bool Max, bool Method>
PyObject* py_maximum(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static Signature sig(Max ? "maximum" : "minimum", "input, other, *, out=None");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  Tensor r = Max ? ember::maximum(a.tensor(0), a.tensor(1)) : ember::minimum(a.tensor(0), a.tensor(1));
  if (a.has(2)) {
    assign_out(sig.name(), a.tensor(2), r);
    return return_out(a, 2);
  }
  return wrap(std::move(r));
  EMBER_PY_END(nullptr)
}

Tensor where3(const Tensor& cond, const Operand& x, const Operand& y) {
  if (x.t && y.t) return ember::where(cond, *x.t, *y.t);
  if (x.t) return ember::where(cond, *x.t, y.s);
  if (y.t) return ember::where(cond, x.s, *y.t);
  return ember::where(cond, x.s, y.s);
}

// nonzero(as_tuple=True): one index tensor per dimension.
PyObject* nonzero_tuple(const Tensor& t) {
  Tensor nz = ember::nonzero(t);
  int64_t nd = std::max<int64_t>(t.dim(), 1);
  PyObject* tup = PyTuple_New(nd);
  if (!tup) throw python_error();
  for (int64_t d = 0; d < nd; ++d) {
    // A 0-dim input counts as 1-D: index 0 once if it is non-zero (PyTorch).
    PyObject* e = wrap(t.dim() == 0 ? zeros({nz.sizes()[0]}, kInt64) : nz.select(1, d));
    if (!e) {
      Py_DECREF(tup);
      throw python_error();
    }
    PyTuple_SET_ITEM(tup, d, e);
  }
  return tup;
}

PyObject* f_where(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static Signature sig("where", "condition, input=None, other=None, *, out=None");
  Args a(sig, nullptr, args, nargs, kwnames);
  const Tensor& cond = a.tensor(0);
  if (!a.has(1) && !a.has(2) && !a.has(3)) return nonzero_tuple(cond);
  Operand x = operand(a, 1), y = operand(a, 2);
  if (a.has(3)) {
    where_out(a.tensor(3), cond, as_tensor_operand(x), as_tensor_operand(y));
    return return_out(a, 3);
  }
  return wrap(where3(cond, x, y));
  EMBER_PY_END(nullptr)
}
PyObject* m_where(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static Signature sig("where", "self, condition, other");
  Args a(sig, self, args, nargs, kwnames);
  Operand x;
  x.t = &unwrap(self);
  return wrap(where3(a.tensor(1), x, operand(a, 2)));
  EMBER_PY_END(nullptr)
}

// ---------------------------------------------------------------- reductions
// dim: None (all), an int, or a sequence of ints.
std::optional<DimVector> dims_arg(const Args& a, int i) {
  if (!a.has(i)) return std::nullopt;
  return a.int_list(i, true);
}

template <bool Mean, bool Method>
PyObject* py_sum(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  if (!kwnames && nargs == (Method ? 0 : 1)) {
    PyObject* x = Method ? self : args[0];
    if (is_tensor(x) && !worth_releasing_gil(unwrap(x)))
      return wrap(Mean ? ember::mean(unwrap(x)) : ember::sum(unwrap(x)));
  }
  static Signature sig(Mean ? "mean" : "sum", "input, dim=None, keepdim=False, *, dtype=None, out=None");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  Tensor x = a.tensor(0);
  auto dims = dims_arg(a, 1);
  bool keepdim = a.bool_or(2, false);
  auto dtype = a.dtype(3);
  // dim=None with keepdim reduces every dim and keeps them all (as size 1), as in PyTorch.
  if (!dims && keepdim) dims = DimVector();
  if (a.has(4)) {
    Tensor out = a.tensor(4);
    DimVector all;
    if (!dims)
      for (int64_t d = 0; d < x.dim(); ++d) all.push_back(d);
    const DimVector& ds = dims ? *dims : all;
    {
      GilRelease gil(worth_releasing_gil(x));
      if (Mean) mean_out(out, x, ds, keepdim, dtype);
      else sum_out(out, x, ds, keepdim, dtype);
    }
    return return_out(a, 4);
  }
  return wrap(maybe_without_gil(worth_releasing_gil(x), [&] {
    if (!dims) return Mean ? ember::mean(x, dtype) : ember::sum(x, dtype);
    return Mean ? ember::mean(x, *dims, keepdim, dtype) : ember::sum(x, *dims, keepdim, dtype);
  }));
  EMBER_PY_END(nullptr)
}

// max(input), max(input, dim, keepdim=False) -> (values, indices), max(input, other).
template <bool Max, bool Method>
PyObject* py_max(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static Signature sig(Max ? "max" : "min", "input, dim=None, keepdim=False, *, other=None, out=None");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  const Tensor& x = a.tensor(0);
  PyObject* other = a.is_tensor(1) ? a[1] : a[3];
  if (other) {
    Tensor r = Max ? ember::maximum(x, unwrap(other)) : ember::minimum(x, unwrap(other));
    if (a.has(4)) {
      assign_out(sig.name(), a.tensor(4), r);
      return return_out(a, 4);
    }
    return wrap(std::move(r));
  }
  if (!a.has(1)) {
    EMBER_CHECK(!a.has(2) && !a.has(4), TypeError, sig.name(), "(): keepdim and out require dim");
    return wrap(Max ? ember::max(x) : ember::min(x));
  }
  auto r = Max ? ember::max(x, a.to_int(1), a.bool_or(2, false)) : ember::min(x, a.to_int(1), a.bool_or(2, false));
  PyTypeObject* rt = Max ? return_type_max : return_type_min;
  if (a.has(4)) {
    PyObject* outs = a[4];
    EMBER_CHECK((PyTuple_Check(outs) || PyList_Check(outs)) && PySequence_Fast_GET_SIZE(outs) == 2 &&
                    is_tensor(PySequence_Fast_GET_ITEM(outs, 0)) && is_tensor(PySequence_Fast_GET_ITEM(outs, 1)),
                TypeError, sig.name(), "(): argument 'out' must be a tuple of two Tensors");
    PyObject* v = PySequence_Fast_GET_ITEM(outs, 0);
    PyObject* i = PySequence_Fast_GET_ITEM(outs, 1);
    assign_out(sig.name(), unwrap(v), std::get<0>(r));
    assign_out(sig.name(), unwrap(i), std::get<1>(r));
    PyObject* o = PyStructSequence_New(rt);
    if (!o) throw python_error();
    Py_INCREF(v);
    Py_INCREF(i);
    PyStructSequence_SetItem(o, 0, v);
    PyStructSequence_SetItem(o, 1, i);
    return o;
  }
  return wrap_pair(rt, std::move(r));
  EMBER_PY_END(nullptr)
}

// ---------------------------------------------------------------- linear algebra
enum class MM { MatMul, Mm, Bmm };
template <MM K, bool Method>
PyObject* py_matmul(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static Signature sig(K == MM::MatMul ? "matmul" : K == MM::Mm ? "mm" : "bmm",
                       K == MM::MatMul ? "input, other, *, out=None" : "input, mat2, *, out=None");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  Tensor x = a.tensor(0);
  Tensor y = a.tensor(1);
  // Anything but a tiny product is worth running without the GIL.
  const bool release = x.numel() * std::max<int64_t>(y.dim() ? y.sizes().back() : 1, 1) >= kReleaseGilNumel;
  if (K == MM::MatMul && a.has(2)) {
    Tensor out = a.tensor(2);
    {
      GilRelease gil(release);
      matmul_out(out, x, y);
    }
    return return_out(a, 2);
  }
  Tensor r = maybe_without_gil(release, [&] {
    return K == MM::MatMul ? ember::matmul(x, y) : K == MM::Mm ? ember::mm(x, y) : ember::bmm(x, y);
  });
  if (a.has(2)) {
    assign_out(sig.name(), a.tensor(2), r);
    return return_out(a, 2);
  }
  return wrap(std::move(r));
  EMBER_PY_END(nullptr)
}

// ---------------------------------------------------------------- joining
template <bool Stack>
PyObject* f_cat(PyObject*, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static Signature sig(Stack ? "stack" : "cat", "tensors, dim=0, *, out=None");
  Args a(sig, nullptr, args, nargs, kwnames);
  std::vector<Tensor> ts = a.tensor_list(0);
  int64_t dim = a.int_or(1, 0);
  int64_t total = 0;
  for (const Tensor& t : ts) total += t.numel();
  const bool release = total >= kReleaseGilNumel;
  if (a.has(2)) {
    Tensor out = a.tensor(2);
    {
      GilRelease gil(release);
      if (Stack) assign_out(sig.name(), out, ember::stack(ts, dim));
      else cat_out(out, ts, dim);
    }
    return return_out(a, 2);
  }
  return wrap(maybe_without_gil(release, [&] { return Stack ? ember::stack(ts, dim) : ember::cat(ts, dim); }));
  EMBER_PY_END(nullptr)
}

PyObject* f_broadcast_tensors(PyObject*, PyObject* args) {
  EMBER_PY_BEGIN
  Py_ssize_t n = PyTuple_GET_SIZE(args);
  PyObject* seq = args;
  if (n == 1 && (PyTuple_Check(PyTuple_GET_ITEM(args, 0)) || PyList_Check(PyTuple_GET_ITEM(args, 0))))
    seq = PyTuple_GET_ITEM(args, 0);
  Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
  PyObject** items = PySequence_Fast_ITEMS(seq);
  DimVector shape;
  for (Py_ssize_t i = 0; i < m; ++i) {
    EMBER_CHECK(is_tensor(items[i]), TypeError, "broadcast_tensors(): expected Tensors, got ", type_name(items[i]));
    shape = broadcast_shapes(shape, unwrap(items[i]).sizes());
  }
  PyObject* tup = PyTuple_New(m);
  if (!tup) throw python_error();
  for (Py_ssize_t i = 0; i < m; ++i) {
    PyObject* e = wrap(unwrap(items[i]).expand(shape));
    if (!e) {
      Py_DECREF(tup);
      throw python_error();
    }
    PyTuple_SET_ITEM(tup, i, e);
  }
  return tup;
  EMBER_PY_END(nullptr)
}

// ---------------------------------------------------------------- selection
EMBER_PY_OP(py_masked_select) {
  EMBER_PY_BEGIN
  static Signature sig("masked_select", "input, mask, *, out=None");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  Tensor r = ember::masked_select(a.tensor(0), a.tensor(1));
  if (a.has(2)) {
    assign_out(sig.name(), a.tensor(2), r);
    return return_out(a, 2);
  }
  return wrap(std::move(r));
  EMBER_PY_END(nullptr)
}
EMBER_PY_OP(py_nonzero) {
  EMBER_PY_BEGIN
  static Signature sig("nonzero", "input, *, out=None, as_tuple=False");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  if (a.bool_or(2, false)) {
    EMBER_CHECK(!a.has(1), RuntimeError, "nonzero(): out= is not supported with as_tuple=True");
    return nonzero_tuple(a.tensor(0));
  }
  Tensor r = ember::nonzero(a.tensor(0));
  if (a.has(1)) {
    assign_out(sig.name(), a.tensor(1), r);
    return return_out(a, 1);
  }
  return wrap(std::move(r));
  EMBER_PY_END(nullptr)
}

// indices: a tuple/list of index tensors or None (a full slice).
std::vector<std::optional<Tensor>> index_list(const Args& a, int i) {
  if (!a[i] || !(PyTuple_Check(a[i]) || PyList_Check(a[i]))) a.type_error(i, "tuple of Tensors");
  std::vector<std::optional<Tensor>> out;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(a[i]);
  PyObject** items = PySequence_Fast_ITEMS(a[i]);
  for (Py_ssize_t k = 0; k < n; ++k) {
    if (items[k] == Py_None) out.emplace_back(std::nullopt);
    else if (is_tensor(items[k])) out.emplace_back(unwrap(items[k]));
    else EMBER_FAIL(TypeError, a.sig.name(), "(): indices must be Tensors or None, not ", type_name(items[k]));
  }
  return out;
}
template <bool Inplace, bool Method>
PyObject* py_index_put(PyObject* self, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames) {
  EMBER_PY_BEGIN
  static Signature sig(Inplace ? "index_put_" : "index_put", "input, indices, values, accumulate=False");
  Args a(sig, EMBER_SELF, args, nargs, kwnames);
  auto idx = index_list(a, 1);
  Tensor values = a.is_tensor(2) ? a.tensor(2) : scalar_tensor(a.scalar(2), a.tensor(0).dtype());
  if (Inplace) {
    index_put_(a.tensor(0), idx, values, a.bool_or(3, false));
    return return_out(a, 0);
  }
  Tensor r = a.tensor(0).clone();
  index_put_(r, idx, values, a.bool_or(3, false));
  return wrap(std::move(r));
  EMBER_PY_END(nullptr)
}

}  // namespace

#define EMBER_ARITH_METHOD(name, K) {name, EMBER_FASTCALL((py_arith<K, true>)), EMBER_METH_KW, nullptr}
#define EMBER_ARITH_FUNCTION(name, K) {name, EMBER_FASTCALL((py_arith<K, false>)), EMBER_METH_KW, nullptr}
#define EMBER_ARITH_INPLACE(name, K) {name, EMBER_FASTCALL(m_arith_<K>), EMBER_METH_KW, nullptr}
#define EMBER_UNARY_METHODS(name, I)                                                  \
  {name, EMBER_FASTCALL((py_unary<I, true>)), EMBER_METH_KW, nullptr},                \
  {name "_", EMBER_FASTCALL((py_unary_<I, true>)), EMBER_METH_KW, nullptr}
#define EMBER_UNARY_FUNCTIONS(name, I)                                                \
  {name, EMBER_FASTCALL((py_unary<I, false>)), EMBER_METH_KW, nullptr},               \
  {name "_", EMBER_FASTCALL((py_unary_<I, false>)), EMBER_METH_KW, nullptr}
#define EMBER_COMPARE_METHODS(I)                                                                  \
  {kCompare[I].name, EMBER_FASTCALL((py_compare<I, true>)), EMBER_METH_KW, nullptr}
#define EMBER_COMPARE_FUNCTION(I) \
  {kCompare[I].name, EMBER_FASTCALL((py_compare<I, false>)), EMBER_METH_KW, nullptr}
#define EMBER_T(fn, ...) EMBER_FASTCALL((fn<__VA_ARGS__>)), EMBER_METH_KW, nullptr

PyMethodDef tensor_op_methods[] = {
    EMBER_ARITH_METHOD("add", Arith::Add),
    EMBER_ARITH_METHOD("sub", Arith::Sub),
    EMBER_ARITH_METHOD("subtract", Arith::Sub),
    EMBER_ARITH_METHOD("mul", Arith::Mul),
    EMBER_ARITH_METHOD("multiply", Arith::Mul),
    EMBER_ARITH_METHOD("div", Arith::Div),
    EMBER_ARITH_METHOD("divide", Arith::Div),
    EMBER_ARITH_METHOD("true_divide", Arith::Div),
    EMBER_ARITH_METHOD("floor_divide", Arith::FloorDiv),
    EMBER_ARITH_INPLACE("add_", Arith::Add),
    EMBER_ARITH_INPLACE("sub_", Arith::Sub),
    EMBER_ARITH_INPLACE("subtract_", Arith::Sub),
    EMBER_ARITH_INPLACE("mul_", Arith::Mul),
    EMBER_ARITH_INPLACE("multiply_", Arith::Mul),
    EMBER_ARITH_INPLACE("div_", Arith::Div),
    EMBER_ARITH_INPLACE("divide_", Arith::Div),
    EMBER_ARITH_INPLACE("true_divide_", Arith::Div),
    EMBER_ARITH_INPLACE("floor_divide_", Arith::FloorDiv),
    EMBER_UNARY_METHODS("neg", kNeg),
    EMBER_UNARY_METHODS("negative", kNeg),
    EMBER_UNARY_METHODS("abs", kAbs),
    EMBER_UNARY_METHODS("absolute", kAbs),
    EMBER_UNARY_METHODS("exp", kExp),
    EMBER_UNARY_METHODS("log", kLog),
    EMBER_UNARY_METHODS("sqrt", kSqrt),
    EMBER_UNARY_METHODS("sin", kSin),
    EMBER_UNARY_METHODS("cos", kCos),
    EMBER_UNARY_METHODS("tanh", kTanh),
    EMBER_UNARY_METHODS("sigmoid", kSigmoid),
    EMBER_UNARY_METHODS("relu", kRelu),
    EMBER_COMPARE_METHODS(0), EMBER_COMPARE_METHODS(1), EMBER_COMPARE_METHODS(2),
    EMBER_COMPARE_METHODS(3), EMBER_COMPARE_METHODS(4), EMBER_COMPARE_METHODS(5),
    EMBER_COMPARE_METHODS(6), EMBER_COMPARE_METHODS(7), EMBER_COMPARE_METHODS(8),
    EMBER_COMPARE_METHODS(9), EMBER_COMPARE_METHODS(10),
    {"eq_", EMBER_T(m_compare_, 0)}, {"ne_", EMBER_T(m_compare_, 1)}, {"lt_", EMBER_T(m_compare_, 2)},
    {"le_", EMBER_T(m_compare_, 3)}, {"gt_", EMBER_T(m_compare_, 4)}, {"ge_", EMBER_T(m_compare_, 5)},
    {"maximum", EMBER_T(py_maximum, true, true)},
    {"minimum", EMBER_T(py_maximum, false, true)},
    {"where", EMBER_FASTCALL(m_where), EMBER_METH_KW, "self.where(condition, other)"},
    {"sum", EMBER_T(py_sum, false, true)},
    {"mean", EMBER_T(py_sum, true, true)},
    {"max", EMBER_T(py_max, true, true)},
    {"min", EMBER_T(py_max, false, true)},
    {"matmul", EMBER_T(py_matmul, MM::MatMul, true)},
    {"mm", EMBER_T(py_matmul, MM::Mm, true)},
    {"bmm", EMBER_T(py_matmul, MM::Bmm, true)},
    EMBER_METHOD("masked_select", py_masked_select),
    EMBER_METHOD("nonzero", py_nonzero),
    {"index_put_", EMBER_T(py_index_put, true, true)},
    {"index_put", EMBER_T(py_index_put, false, true)},
    EMBER_END_TABLE};

PyMethodDef module_op_functions[] = {
    EMBER_ARITH_FUNCTION("add", Arith::Add),
    EMBER_ARITH_FUNCTION("sub", Arith::Sub),
    EMBER_ARITH_FUNCTION("subtract", Arith::Sub),
    EMBER_ARITH_FUNCTION("rsub", Arith::RSub),
    EMBER_ARITH_FUNCTION("mul", Arith::Mul),
    EMBER_ARITH_FUNCTION("multiply", Arith::Mul),
    EMBER_ARITH_FUNCTION("div", Arith::Div),
    EMBER_ARITH_FUNCTION("divide", Arith::Div),
    EMBER_ARITH_FUNCTION("true_divide", Arith::Div),
    EMBER_ARITH_FUNCTION("floor_divide", Arith::FloorDiv),
    EMBER_UNARY_FUNCTIONS("neg", kNeg),
    EMBER_UNARY_FUNCTIONS("negative", kNeg),
    EMBER_UNARY_FUNCTIONS("abs", kAbs),
    EMBER_UNARY_FUNCTIONS("absolute", kAbs),
    EMBER_UNARY_FUNCTIONS("exp", kExp),
    EMBER_UNARY_FUNCTIONS("log", kLog),
    EMBER_UNARY_FUNCTIONS("sqrt", kSqrt),
    EMBER_UNARY_FUNCTIONS("sin", kSin),
    EMBER_UNARY_FUNCTIONS("cos", kCos),
    EMBER_UNARY_FUNCTIONS("tanh", kTanh),
    EMBER_UNARY_FUNCTIONS("sigmoid", kSigmoid),
    EMBER_UNARY_FUNCTIONS("relu", kRelu),
    EMBER_COMPARE_FUNCTION(0), EMBER_COMPARE_FUNCTION(1), EMBER_COMPARE_FUNCTION(2),
    EMBER_COMPARE_FUNCTION(3), EMBER_COMPARE_FUNCTION(4), EMBER_COMPARE_FUNCTION(5),
    EMBER_COMPARE_FUNCTION(6), EMBER_COMPARE_FUNCTION(7), EMBER_COMPARE_FUNCTION(8),
    EMBER_COMPARE_FUNCTION(9), EMBER_COMPARE_FUNCTION(10),
    {"maximum", EMBER_T(py_maximum, true, false)},
    {"minimum", EMBER_T(py_maximum, false, false)},
    {"where", EMBER_FASTCALL(f_where), EMBER_METH_KW, "where(condition, input, other) or where(condition)"},
    {"sum", EMBER_T(py_sum, false, false)},
    {"mean", EMBER_T(py_sum, true, false)},
    {"max", EMBER_T(py_max, true, false)},
    {"min", EMBER_T(py_max, false, false)},
    {"matmul", EMBER_T(py_matmul, MM::MatMul, false)},
    {"mm", EMBER_T(py_matmul, MM::Mm, false)},
    {"bmm", EMBER_T(py_matmul, MM::Bmm, false)},
    {"cat", EMBER_T(f_cat, false)},
    {"concat", EMBER_T(f_cat, false)},
    {"stack", EMBER_T(f_cat, true)},
    {"broadcast_tensors", f_broadcast_tensors, METH_VARARGS, "broadcast_tensors(*tensors)"},
    EMBER_FUNCTION("masked_select", py_masked_select),
    EMBER_FUNCTION("nonzero", py_nonzero),
    {"index_put_", EMBER_T(py_index_put, true, false)},
    {"index_put", EMBER_T(py_index_put, false, false)},
    EMBER_END_TABLE};

}  // namespace ember::py
