// Kernel slots of the pointwise ops (unary, binary, comparisons, ternary); the op side is
// src/ops/unary*.cpp, binary*.cpp, compare.cpp and pointwise*.cpp, the kernels
// kernels/unary*.cpp, binary*.cpp and compare*.cpp.
#pragma once

#include "backends/cpu/capability.h"
#include "ember/scalar.h"
#include "ops/iter.h"

namespace ember::cpu {

// Unary ops. Operand 0 has the compute dtype, except: abs and angle of complex give the real
// dtype, and the predicates (IsNan ... LogicalNot) write bool.
#define EMBER_UNARY_OPS(X)                                                                         \
  X(Neg) X(Abs) X(Exp) X(Log) X(Sqrt) X(Sin) X(Cos) X(Tanh) X(Sigmoid) X(Relu) X(Sign) X(Sgn)      \
  X(Reciprocal) X(Rsqrt) X(Square) X(Exp2) X(Expm1) X(Log2) X(Log10) X(Log1p) X(Tan) X(Asin)      \
  X(Acos) X(Atan) X(Sinh) X(Cosh) X(Asinh) X(Acosh) X(Atanh) X(Logit) X(Erf) X(Erfc) X(Erfinv)    \
  X(Lgamma) X(Digamma) X(Polygamma) X(I0) X(I1) X(Sinc) X(Ceil) X(Floor) X(Round) X(Trunc) X(Frac)      \
  X(NanToNum) X(Clamp) X(ConjPhysical) X(Angle) X(Gelu) X(GeluTanh) X(Silu) X(Mish)   \
  X(Softplus) X(Softsign) X(Hardsigmoid) X(Hardswish) X(Elu) X(LeakyRelu) X(BitwiseNot)          \
  X(IsNan) X(IsInf) X(IsPosInf) X(IsNegInf) X(IsFinite) X(SignBit) X(LogicalNot)
#define EMBER_ENUM_ENTRY(name) name,
enum class UnaryOp : int { EMBER_UNARY_OPS(EMBER_ENUM_ENTRY) };

// Parameters of the unary ops that take some; unused fields are ignored.
struct UnaryParams {
  // Logit: a = eps (when b != 0). NanToNum: a, b, c = replacements of nan, +inf, -inf.
  // Softplus: a = beta, b = threshold. Elu: a = alpha, b = scale, c = input_scale.
  // LeakyRelu: a = negative_slope.
  double a = 0, b = 0, c = 0;
  int64_t n = 0;  // Round: decimals; Polygamma: n
  // Clamp bounds (Scalars, so that int64 bounds stay exact).
  Scalar lo, hi;
  bool has_lo = false, has_hi = false;
};

// Binary ops: out = a op b, inputs in the compute dtype (Add: a + alpha * b). ClampMin and
// ClampMax are clamp with one tensor bound. PowScalar is pow with a number for exponent
// (torch's pow.Tensor_Scalar): out = a ** alpha, with PyTorch's fast paths for exponents
// 0, 1, 2, 3, 0.5, -0.5, -1 and -2; operand b (the exponent broadcast) is not read.
#define EMBER_BINARY_OPS(X)                                                                        \
  X(Add) X(Mul) X(Div) X(DivTrunc) X(DivFloor) X(Maximum) X(Minimum) X(Remainder) X(Fmod) X(Pow)  \
  X(Atan2) X(Hypot) X(Fmax) X(Fmin) X(Copysign) X(Nextafter) X(LogAddExp) X(LogAddExp2) X(Xlogy)   \
  X(BitAnd) X(BitOr) X(BitXor) X(Shl) X(Shr) X(ClampMin) X(ClampMax) X(PowScalar)
enum class BinaryOp : int { EMBER_BINARY_OPS(EMBER_ENUM_ENTRY) };

// Comparisons and the logical ops: bool out, inputs in the compute dtype.
#define EMBER_COMPARE_OPS(X) X(Eq) X(Ne) X(Lt) X(Le) X(Gt) X(Ge) X(LogicalAnd) X(LogicalOr) X(LogicalXor)
enum class CompareOp : int { EMBER_COMPARE_OPS(EMBER_ENUM_ENTRY) };

// out = f(a, b, c) in the compute dtype. Lerp: a + c (b - a). Addcmul: a + value b c.
// Addcdiv: a + value b / c. Clamp: min(max(a, b), c), NaN when a bound is NaN.
#define EMBER_TERNARY_OPS(X) X(Lerp) X(Addcmul) X(Addcdiv) X(Clamp)
enum class TernaryOp : int { EMBER_TERNARY_OPS(EMBER_ENUM_ENTRY) };
#undef EMBER_ENUM_ENTRY

using BinaryFn = void (*)(const ElementwiseIter&, BinaryOp, const Scalar& alpha);
using UnaryFn = void (*)(const ElementwiseIter&, UnaryOp, const UnaryParams&);
using CompareFn = void (*)(const ElementwiseIter&, CompareOp);
using TernaryFn = void (*)(const ElementwiseIter&, TernaryOp, const Scalar& value);
// Bool out: |a - b| <= atol + rtol |b| (NaNs equal when equal_nan), inputs in one dtype.
using IsCloseFn = void (*)(const ElementwiseIter&, double rtol, double atol, bool equal_nan);

extern Stub<TernaryFn> ternary_stub;
extern Stub<IsCloseFn> isclose_stub;

const char* unary_op_name(UnaryOp op);

}  // namespace ember::cpu
