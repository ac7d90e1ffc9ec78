// Element types, their properties, and PyTorch's type-promotion lattice.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace ember {

// 16-bit IEEE half. Arithmetic goes through float.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float f) : bits(from_float(f)) {}  // NOLINT: implicit like a built-in float type
  operator float() const { return to_float(bits); }  // NOLINT
  static Half from_bits(uint16_t b) { Half h; h.bits = b; return h; }
  static uint16_t from_float(float f);
  static float to_float(uint16_t h);
};

// bfloat16: the upper half of a float32, rounded to nearest even.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float f) : bits(from_float(f)) {}  // NOLINT
  operator float() const { return to_float(bits); }  // NOLINT
  static BFloat16 from_bits(uint16_t b) { BFloat16 h; h.bits = b; return h; }
  static uint16_t from_float(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);  // NaN stays NaN
    u += 0x7fffu + ((u >> 16) & 1u);
    return static_cast<uint16_t>(u >> 16);
  }
  static float to_float(uint16_t h) {
    uint32_t u = static_cast<uint32_t>(h) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
};

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

// Ordered so that within a category a later type is wider (used by promotion).
enum class ScalarType : int8_t {
  Bool,
  UInt8,
  Int8,
  Int16,
  Int32,
  Int64,
  Half,
  BFloat16,
  Float,
  Double,
  ComplexFloat,
  ComplexDouble,
  Undefined,
};
constexpr int kNumScalarTypes = static_cast<int>(ScalarType::Undefined);

constexpr ScalarType kBool = ScalarType::Bool;
constexpr ScalarType kUInt8 = ScalarType::UInt8;
constexpr ScalarType kInt8 = ScalarType::Int8;
constexpr ScalarType kInt16 = ScalarType::Int16;
constexpr ScalarType kInt32 = ScalarType::Int32;
constexpr ScalarType kInt64 = ScalarType::Int64;
constexpr ScalarType kHalf = ScalarType::Half;
constexpr ScalarType kBFloat16 = ScalarType::BFloat16;
constexpr ScalarType kFloat = ScalarType::Float;
constexpr ScalarType kDouble = ScalarType::Double;
constexpr ScalarType kComplexFloat = ScalarType::ComplexFloat;
constexpr ScalarType kComplexDouble = ScalarType::ComplexDouble;

constexpr size_t itemsize(ScalarType t) {
  constexpr size_t sizes[] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16, 0};
  return sizes[static_cast<int>(t)];
}
constexpr bool is_complex(ScalarType t) {
  return t == kComplexFloat || t == kComplexDouble;
}
constexpr bool is_floating_point(ScalarType t) {
  return t == kHalf || t == kBFloat16 || t == kFloat || t == kDouble;
}
// Integral types; bool counts only when include_bool is set (as in PyTorch).
constexpr bool is_integral(ScalarType t, bool include_bool = false) {
  return (t >= kUInt8 && t <= kInt64) || (include_bool && t == kBool);
}
constexpr bool is_signed(ScalarType t) { return t != kBool && t != kUInt8; }

// Name as Python prints it: "float32", "int64", "complex64", ...
std::string_view dtype_name(ScalarType t);
// Parse "float32" / "float" / "torch.float32"-style names; Undefined when unknown.
ScalarType dtype_from_name(std::string_view name);

// Type promotion as in torch.promote_types.
ScalarType promote_types(ScalarType a, ScalarType b);
// complex64 -> float32, complex128 -> float64, others unchanged.
ScalarType to_real_type(ScalarType t);
// float32 -> complex64, float64 -> complex128, half -> complex64 (no complex32 yet).
ScalarType to_complex_type(ScalarType t);

// The default floating dtype (float32 unless set_default_dtype changes it).
ScalarType get_default_dtype();
void set_default_dtype(ScalarType t);  // float32 or float64, else ValueError
// complex dtype matching the default float dtype.
ScalarType get_default_complex_dtype();

template <typename T> struct CppTypeToScalarType;
#define EMBER_CPP_TYPE(T, S) \
  template <> struct CppTypeToScalarType<T> { static constexpr ScalarType value = S; };
EMBER_CPP_TYPE(bool, kBool)
EMBER_CPP_TYPE(uint8_t, kUInt8)
EMBER_CPP_TYPE(int8_t, kInt8)
EMBER_CPP_TYPE(int16_t, kInt16)
EMBER_CPP_TYPE(int32_t, kInt32)
EMBER_CPP_TYPE(int64_t, kInt64)
EMBER_CPP_TYPE(Half, kHalf)
EMBER_CPP_TYPE(BFloat16, kBFloat16)
EMBER_CPP_TYPE(float, kFloat)
EMBER_CPP_TYPE(double, kDouble)
EMBER_CPP_TYPE(complex64, kComplexFloat)
EMBER_CPP_TYPE(complex128, kComplexDouble)
#undef EMBER_CPP_TYPE
template <typename T>
constexpr ScalarType scalar_type_of = CppTypeToScalarType<T>::value;

}  // namespace ember
