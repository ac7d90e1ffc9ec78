// Shared machinery of the unary pointwise ops (ops/unary*.cpp): an op is described once by
// a UnaryDef (name, kernel, result-dtype rule, accepted dtypes) and run through run_unary,
// which checks the dtype before anything is allocated (so Meta tensors raise the same
// errors), builds the ElementwiseIter and calls the CPU stub.
#pragma once

#include "ops/pointwise.h"

namespace ember::unary {

// How the result dtype follows from the input dtype.
enum class Result {
  Keep,   // the input dtype; out= must have exactly that dtype (PyTorch's rule for these ops)
  Float,  // integers and bool compute in the default float dtype; out= may be any wider dtype
  Real,   // Keep, but complex gives its real dtype (abs)
  FloatReal,  // Float, and complex gives its real dtype (angle)
  Bool,   // bool (predicates); out= may be any dtype when the op allows it
};

// Accepted input dtypes as a bit set over ScalarType.
constexpr uint32_t bit(ScalarType t) { return 1u << static_cast<int>(t); }
constexpr uint32_t kBoolBit = bit(ScalarType::Bool);
constexpr uint32_t kInts = bit(ScalarType::UInt8) | bit(ScalarType::Int8) | bit(ScalarType::Int16) |
                           bit(ScalarType::Int32) | bit(ScalarType::Int64);
constexpr uint32_t kFloats = bit(ScalarType::Half) | bit(ScalarType::BFloat16) | bit(ScalarType::Float) |
                             bit(ScalarType::Double);
// PyTorch 1.13 has no CPU float16 kernel for most math ops; Ember refuses float16 where it does.
constexpr uint32_t kFloatsNoHalf = bit(ScalarType::BFloat16) | bit(ScalarType::Float) | bit(ScalarType::Double);
constexpr uint32_t kComplex = bit(ScalarType::ComplexFloat) | bit(ScalarType::ComplexDouble);
constexpr uint32_t kReal = kBoolBit | kInts | kFloats;
constexpr uint32_t kAll = kReal | kComplex;
constexpr uint32_t kNumbers = kInts | kFloats | kComplex;  // all but bool
constexpr uint32_t kHalfBit = bit(ScalarType::Half);
constexpr uint32_t kAllNoHalf = kAll & ~kHalfBit;
constexpr uint32_t kRealNoHalf = kReal & ~kHalfBit;

struct UnaryDef {
  const char* name;
  cpu::UnaryOp op;
  Result result;
  uint32_t dtypes;
  // The message when the dtype is not accepted (default: `"name" not implemented for 'T'`).
  const char* bad_dtype_message = nullptr;
};

// Runs the op: `out` undefined for the functional form, the tensor to write otherwise
// (self for in-place). `name` is what errors say (name or name_).
Tensor run_unary(const UnaryDef& d, const char* name, const Tensor& out, const Tensor& self, bool inplace,
                 const cpu::UnaryParams& p = {});

// Raises the op's dtype error unless `dt` is accepted.
void check_unary_dtype(const UnaryDef& d, const char* name, ScalarType dt);

}  // namespace ember::unary
