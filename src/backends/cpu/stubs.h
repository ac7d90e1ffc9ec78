// The CPU kernel slots, one per kernel family; kernels/*.cpp fill them per ISA.
#pragma once

#include "backends/cpu/capability.h"
#include "ember/scalar.h"
#include "ops/iter.h"

namespace ember::cpu {

enum class BinaryOp : int { Add, Mul, Div, DivTrunc, DivFloor, Maximum, Minimum };
enum class UnaryOp : int { Neg, Abs, Exp, Log, Sqrt, Sin, Cos, Tanh, Sigmoid, Relu };
enum class CompareOp : int { Eq, Ne, Lt, Le, Gt, Ge };

// Operand 0 receives operand 1 converted to its dtype.
using CopyFn = void (*)(const ElementwiseIter&);
// out = a op b (Add: a + alpha * b). Operands share the compute dtype.
using BinaryFn = void (*)(const ElementwiseIter&, BinaryOp, const Scalar& alpha);
using UnaryFn = void (*)(const ElementwiseIter&, UnaryOp);
// Operand 0 is bool; inputs share the compute dtype.
using CompareFn = void (*)(const ElementwiseIter&, CompareOp);
// out = cond ? a : b; cond is bool, a and b share out's dtype.
using WhereFn = void (*)(const ElementwiseIter&);

extern Stub<CopyFn> copy_stub;
extern Stub<BinaryFn> binary_stub;
extern Stub<UnaryFn> unary_stub;
extern Stub<CompareFn> compare_stub;
extern Stub<WhereFn> where_stub;

}  // namespace ember::cpu
