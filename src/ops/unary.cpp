// Unary pointwise ops without parameters: functional, in-place (`name_`) and `out=` forms,
// declared from one table. Dtype rules follow PyTorch 1.13 on CPU (ops/unary.h, Result):
//  - neg, abs, sign, rounding, relu... keep the input dtype, and their out= must have exactly
//    that dtype;
//  - the float ops compute integer and bool inputs in the default float dtype; float16 is
//    accepted everywhere (computed in float), which PyTorch 1.13 lacks for some of them;
//  - the predicates (isnan, ..., logical_not) give bool.
#include "ops/unary.h"

#include "ember/ops/pointwise.h"
#include "ember/ops/special.h"

namespace ember {

namespace unary {

void check_unary_dtype(const UnaryDef& d, const char* name, ScalarType dt) {
  if (d.dtypes & bit(dt)) return;
  if (d.bad_dtype_message) EMBER_FAIL(RuntimeError, name, "(): ", d.bad_dtype_message, " Got ", dt, ".");
  EMBER_FAIL(RuntimeError, name, "(): \"", d.name, "\" not implemented for '", dt, "'");
}

Tensor run_unary(const UnaryDef& d, const char* name, const Tensor& out, const Tensor& self, bool inplace,
                 const cpu::UnaryParams& p) {
  EMBER_CHECK(self.defined(), ValueError, name, "(): got an undefined tensor");
  const ScalarType dt = self.dtype();
  check_unary_dtype(d, name, dt);
  IterConfig cfg;
  switch (d.result) {
    case Result::Keep:
    case Result::Real: {
      const ScalarType res = d.result == Result::Real && is_complex(dt) ? to_real_type(dt) : dt;
      // Complex abs may write into a complex out= (checked as a safe cast by the iterator).
      if (out.defined() && !inplace && res == dt)
        EMBER_CHECK(out.dtype() == res, RuntimeError, name, "(): Found dtype ", out.dtype(), " but expected ", res);
      if (res != dt) cfg.output_dtype = res;
      break;
    }
    case Result::Float:
      cfg.int_to_float = true;
      break;
    case Result::FloatReal:
      cfg.int_to_float = true;
      if (is_complex(dt)) cfg.output_dtype = to_real_type(dt);
      break;
    case Result::Bool:
      cfg.output_dtype = kBool;
      cfg.check_output_cast = false;  // logical_not writes 0/1 into any dtype
      break;
  }
  const cpu::UnaryOp op = d.op;
  return run_pointwise(name, out, {self}, cfg, [op, &p](const ElementwiseIter& it) { cpu::unary_stub(it, op, p); });
}

}  // namespace unary

namespace {

using namespace unary;
using cpu::UnaryOp;
using UnarySig = Tensor(const Tensor&);
using UnaryInplaceSig = Tensor&(Tensor&);
using UnaryOutSig = Tensor&(const Tensor&, Tensor&);

constexpr unsigned kInplace = 1, kOut = 2, kBoth = kInplace | kOut;

struct Entry {
  UnaryDef def;
  unsigned forms;
};

// The ops of this file. Index order is free; names are PyTorch's.
constexpr Entry kOps[] = {
    {{"neg", UnaryOp::Neg, Result::Keep, kNumbers,
      "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
      "use the `~` or `logical_not()` operator instead."}, kBoth},
    {{"abs", UnaryOp::Abs, Result::Real, kNumbers}, kBoth},
    {{"sign", UnaryOp::Sign, Result::Keep, kReal,
      "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead."}, kBoth},
    {{"sgn", UnaryOp::Sgn, Result::Keep, kAll}, kBoth},
    {{"exp", UnaryOp::Exp, Result::Float, kAllNoHalf}, kBoth},
    {{"log", UnaryOp::Log, Result::Float, kAllNoHalf}, kBoth},
    {{"sqrt", UnaryOp::Sqrt, Result::Float, kAllNoHalf}, kBoth},
    {{"rsqrt", UnaryOp::Rsqrt, Result::Float, kAllNoHalf}, kBoth},
    {{"reciprocal", UnaryOp::Reciprocal, Result::Float, kAll}, kBoth},
    {{"sin", UnaryOp::Sin, Result::Float, kAllNoHalf}, kBoth},
    {{"cos", UnaryOp::Cos, Result::Float, kAllNoHalf}, kBoth},
    {{"tan", UnaryOp::Tan, Result::Float, kAllNoHalf}, kBoth},
    {{"asin", UnaryOp::Asin, Result::Float, kAllNoHalf}, kBoth},
    {{"acos", UnaryOp::Acos, Result::Float, kAllNoHalf}, kBoth},
    {{"atan", UnaryOp::Atan, Result::Float, kAllNoHalf}, kBoth},
    {{"sinh", UnaryOp::Sinh, Result::Float, kAllNoHalf}, kBoth},
    {{"cosh", UnaryOp::Cosh, Result::Float, kAllNoHalf}, kBoth},
    {{"tanh", UnaryOp::Tanh, Result::Float, kAllNoHalf}, kBoth},
    {{"asinh", UnaryOp::Asinh, Result::Float, kAllNoHalf}, kBoth},
    {{"acosh", UnaryOp::Acosh, Result::Float, kAllNoHalf}, kBoth},
    {{"atanh", UnaryOp::Atanh, Result::Float, kAllNoHalf}, kBoth},
    {{"arcsin", UnaryOp::Asin, Result::Float, kAllNoHalf}, kBoth},
    {{"arccos", UnaryOp::Acos, Result::Float, kAllNoHalf}, kBoth},
    {{"arctan", UnaryOp::Atan, Result::Float, kAllNoHalf}, kBoth},
    {{"arcsinh", UnaryOp::Asinh, Result::Float, kAllNoHalf}, kBoth},
    {{"arccosh", UnaryOp::Acosh, Result::Float, kAllNoHalf}, kBoth},
    {{"arctanh", UnaryOp::Atanh, Result::Float, kAllNoHalf}, kBoth},
    {{"sigmoid", UnaryOp::Sigmoid, Result::Float, kAllNoHalf}, kBoth},
    {{"log2", UnaryOp::Log2, Result::Float, kAllNoHalf}, kBoth},
    {{"log10", UnaryOp::Log10, Result::Float, kAllNoHalf}, kBoth},
    {{"sinc", UnaryOp::Sinc, Result::Float, kAllNoHalf}, kBoth},
    {{"exp2", UnaryOp::Exp2, Result::Float, kReal}, kBoth},
    {{"expm1", UnaryOp::Expm1, Result::Float, kRealNoHalf}, kBoth},
    {{"log1p", UnaryOp::Log1p, Result::Float, kRealNoHalf}, kBoth},
    {{"erf", UnaryOp::Erf, Result::Float, kRealNoHalf}, kBoth},
    {{"erfc", UnaryOp::Erfc, Result::Float, kRealNoHalf}, kBoth},
    {{"erfinv", UnaryOp::Erfinv, Result::Float, kRealNoHalf}, kBoth},
    {{"lgamma", UnaryOp::Lgamma, Result::Float, kRealNoHalf}, kBoth},
    {{"digamma", UnaryOp::Digamma, Result::Float, kRealNoHalf}, kBoth},
    {{"i0", UnaryOp::I0, Result::Float, kRealNoHalf}, kBoth},
    // torch.special.i1: float and double kernels only (ints and bool compute in float).
    {{"special_i1", UnaryOp::I1, Result::Float, kBoolBit | kInts | bit(ScalarType::Float) | bit(ScalarType::Double)},
     kOut},
    {{"angle", UnaryOp::Angle, Result::FloatReal, kAll}, kOut},
    {{"ceil", UnaryOp::Ceil, Result::Keep, kInts | kFloatsNoHalf}, kBoth},
    {{"floor", UnaryOp::Floor, Result::Keep, kInts | kFloatsNoHalf}, kBoth},
    {{"trunc", UnaryOp::Trunc, Result::Keep, kInts | kFloatsNoHalf}, kBoth},
    {{"fix", UnaryOp::Trunc, Result::Keep, kInts | kFloatsNoHalf}, kBoth},
    {{"frac", UnaryOp::Frac, Result::Keep, kFloats}, kBoth},
    {{"conj_physical", UnaryOp::ConjPhysical, Result::Keep, kAll}, kBoth},
    {{"relu", UnaryOp::Relu, Result::Keep, kInts | kFloatsNoHalf}, kBoth},
    {{"bitwise_not", UnaryOp::BitwiseNot, Result::Keep, kBoolBit | kInts,
      "bitwise_not is only supported for integer and boolean tensors."}, kBoth},
    {{"logical_not", UnaryOp::LogicalNot, Result::Bool, kAll}, kBoth},
    {{"isnan", UnaryOp::IsNan, Result::Bool, kAll}, 0},
    {{"isinf", UnaryOp::IsInf, Result::Bool, kAll}, 0},
    {{"isfinite", UnaryOp::IsFinite, Result::Bool, kAll}, 0},
    {{"isposinf", UnaryOp::IsPosInf, Result::Bool, kReal, "isposinf does not support complex inputs."}, kOut},
    {{"isneginf", UnaryOp::IsNegInf, Result::Bool, kReal, "isneginf does not support complex inputs."}, kOut},
    {{"signbit", UnaryOp::SignBit, Result::Bool, kReal, "signbit is not implemented for complex tensors."}, kOut},
    {{"silu", UnaryOp::Silu, Result::Keep, kFloatsNoHalf | kComplex}, kBoth},
    {{"mish", UnaryOp::Mish, Result::Keep, kFloatsNoHalf}, kBoth},
    {{"hardsigmoid", UnaryOp::Hardsigmoid, Result::Keep, kFloatsNoHalf}, kBoth},
    {{"hardswish", UnaryOp::Hardswish, Result::Keep, kFloatsNoHalf}, kBoth},
    {{"softsign", UnaryOp::Softsign, Result::Float, kNumbers}, 0},
};
constexpr int kNumOps = static_cast<int>(sizeof(kOps) / sizeof(kOps[0]));

std::string inplace_name(const char* name) { return std::string(name) + "_"; }

template <int I>
Tensor unary_k(const Tensor& self) {
  return run_unary(kOps[I].def, kOps[I].def.name, Tensor(), self, false);
}
template <int I>
Tensor& unary_inplace_k(Tensor& self) {
  static const std::string name = inplace_name(kOps[I].def.name);
  if (kOps[I].def.op == UnaryOp::Abs)
    EMBER_CHECK(!self.defined() || !self.is_complex(), RuntimeError, name,
                "(): In-place abs is not supported for complex tensors.");
  run_unary(kOps[I].def, name.c_str(), self, self, true);
  return self;
}
template <int I>
Tensor& unary_out_k(const Tensor& self, Tensor& out) {
  run_unary(kOps[I].def, kOps[I].def.name, out, self, false);
  return out;
}

template <int I>
void define_entry() {
  const Entry& e = kOps[I];
  const std::string n = e.def.name;
  // torch.special functions are no Tensor methods.
  const uint32_t pw = static_cast<uint32_t>(Tag::Pointwise) |
                      (n.rfind("special_", 0) == 0 ? static_cast<uint32_t>(Tag::FunctionOnly) : 0);
  define_op<UnarySig>(n + "(Tensor self) -> Tensor", pw);
  register_cpu_meta<UnarySig, &unary_k<I>>(n);
  if (e.forms & kInplace) {
    define_op<UnaryInplaceSig>(n + "_(Tensor(a!) self) -> Tensor(a!)", Tag::Pointwise | Tag::Inplace);
    register_cpu_meta<UnaryInplaceSig, &unary_inplace_k<I>>(n + "_");
  }
  if (e.forms & kOut) {
    define_op<UnaryOutSig>(n + ".out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", pw);
    register_cpu_meta<UnaryOutSig, &unary_out_k<I>>(n + ".out");
  }
}

template <int... I>
void define_all(std::integer_sequence<int, I...>) {
  (define_entry<I>(), ...);
}

// square: x * x in the input dtype, except bool, which PyTorch squares as int64 (pow(x, 2)).
constexpr UnaryDef kSquare{"square", UnaryOp::Square, Result::Keep, kAll};
Tensor square_in(const Tensor& self) {
  return self.defined() && self.dtype() == kBool ? self.to(kInt64) : self;
}
Tensor square_k(const Tensor& self) { return run_unary(kSquare, "square", Tensor(), square_in(self), false); }
Tensor& square_inplace_k(Tensor& self) {
  EMBER_CHECK(!self.defined() || self.dtype() != kBool, RuntimeError,
              "square_(): result type Long can't be cast to the desired output type Bool");
  run_unary(kSquare, "square_", self, self, true);
  return self;
}
Tensor& square_out_k(const Tensor& self, Tensor& out) {
  run_unary(kSquare, "square", out, square_in(self), false);
  return out;
}

// isreal: true where the imaginary part is 0 (everywhere for real dtypes).
Tensor isreal_k(const Tensor& self) {
  EMBER_CHECK(self.defined(), ValueError, "isreal(): got an undefined tensor");
  if (!self.is_complex()) return ones_like(self, kBool);
  return eq(self.imag(), 0);
}

// conj: complex tensors get a conjugated copy (Ember has no lazy conjugate bit); real
// tensors are returned as they are, as in PyTorch.
Tensor conj_k(const Tensor& self) {
  EMBER_CHECK(self.defined(), ValueError, "conj(): got an undefined tensor");
  return self.is_complex() ? conj_physical(self) : self;
}

// positive: self itself; bool is refused as PyTorch does.
Tensor positive_k(const Tensor& self) {
  EMBER_CHECK(self.defined(), ValueError, "positive(): got an undefined tensor");
  EMBER_CHECK(self.dtype() != kBool, RuntimeError, "The `+` operator, on a bool tensor is not supported.");
  return self;
}

}  // namespace

// ---------------------------------------------------------------- front functions
// Those declared in ember/ops.h and tensor.h (neg, abs, exp, ...) and ember/ops/pointwise.h.
#define EMBER_UNARY_CALLS(name)                                              \
  Tensor name(const Tensor& self) {                                          \
    static const TypedOp<UnarySig> op(#name);                                \
    return op.call(self);                                                    \
  }                                                                          \
  Tensor& name##_out(Tensor& out, const Tensor& self) {                      \
    static const TypedOp<UnaryOutSig> op(#name ".out");                      \
    return op.call(self, out);                                               \
  }
#define EMBER_UNARY_METHODS(name)                                            \
  Tensor Tensor::name() const { return ember::name(*this); }                 \
  Tensor& Tensor::name##_() {                                                \
    static const TypedOp<UnaryInplaceSig> op(#name "_");                     \
    return op.call(*this);                                                   \
  }
#define EMBER_UNARY_INPLACE(name)                                            \
  Tensor& name##_(Tensor& self) {                                            \
    static const TypedOp<UnaryInplaceSig> op(#name "_");                     \
    return op.call(self);                                                    \
  }
#define EMBER_UNARY_WITH_METHODS(name) EMBER_UNARY_CALLS(name) EMBER_UNARY_METHODS(name)
#define EMBER_UNARY_FREE(name) EMBER_UNARY_CALLS(name) EMBER_UNARY_INPLACE(name)
EMBER_UNARY_WITH_METHODS(neg)
EMBER_UNARY_WITH_METHODS(abs)
EMBER_UNARY_WITH_METHODS(exp)
EMBER_UNARY_WITH_METHODS(log)
EMBER_UNARY_WITH_METHODS(sqrt)
EMBER_UNARY_WITH_METHODS(sin)
EMBER_UNARY_WITH_METHODS(cos)
EMBER_UNARY_WITH_METHODS(tanh)
EMBER_UNARY_WITH_METHODS(sigmoid)
EMBER_UNARY_WITH_METHODS(relu)
EMBER_POINTWISE_UNARY_OPS(EMBER_UNARY_FREE)
#undef EMBER_UNARY_CALLS
#undef EMBER_UNARY_METHODS
#undef EMBER_UNARY_INPLACE
#undef EMBER_UNARY_WITH_METHODS
#undef EMBER_UNARY_FREE

Tensor angle(const Tensor& self) {
  static const TypedOp<UnarySig> op("angle");
  return op.call(self);
}
Tensor special_i1(const Tensor& self) {
  static const TypedOp<UnarySig> op("special_i1");
  return op.call(self);
}
Tensor& special_i1_out(Tensor& out, const Tensor& self) {
  static const TypedOp<UnaryOutSig> op("special_i1.out");
  return op.call(self, out);
}
Tensor& angle_out(Tensor& out, const Tensor& self) {
  static const TypedOp<UnaryOutSig> op("angle.out");
  return op.call(self, out);
}
#define EMBER_PREDICATE_CALL(name)                                           \
  Tensor name(const Tensor& self) {                                          \
    static const TypedOp<UnarySig> op(#name);                                \
    return op.call(self);                                                    \
  }
EMBER_PREDICATE_CALL(isnan)
EMBER_PREDICATE_CALL(isinf)
EMBER_PREDICATE_CALL(isfinite)
EMBER_PREDICATE_CALL(isposinf)
EMBER_PREDICATE_CALL(isneginf)
EMBER_PREDICATE_CALL(signbit)
EMBER_PREDICATE_CALL(isreal)
EMBER_PREDICATE_CALL(conj)
EMBER_PREDICATE_CALL(positive)
EMBER_PREDICATE_CALL(softsign)
#undef EMBER_PREDICATE_CALL

EMBER_REGISTER(unary_ops) {
  define_all(std::make_integer_sequence<int, kNumOps>());
  const uint32_t pw = static_cast<uint32_t>(Tag::Pointwise);
  define_op<UnarySig>("square(Tensor self) -> Tensor", pw);
  define_op<UnaryInplaceSig>("square_(Tensor(a!) self) -> Tensor(a!)", Tag::Pointwise | Tag::Inplace);
  define_op<UnaryOutSig>("square.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", pw);
  register_cpu_meta<UnarySig, &square_k>("square");
  register_cpu_meta<UnaryInplaceSig, &square_inplace_k>("square_");
  register_cpu_meta<UnaryOutSig, &square_out_k>("square.out");

  define_op<UnarySig>("isreal(Tensor self) -> Tensor", pw);
  register_composite<UnarySig, &isreal_k>("isreal");
  define_op<UnarySig>("conj(Tensor(a) self) -> Tensor(a)", pw);
  register_composite<UnarySig, &conj_k>("conj");
  define_op<UnarySig>("positive(Tensor(a) self) -> Tensor(a)", pw);
  register_composite<UnarySig, &positive_k>("positive");
}

}  // namespace ember
