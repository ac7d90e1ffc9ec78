#include "ember/dtype.h"

#include <atomic>

#include "core/torch_names.h"
#include "ember/error.h"

namespace ember {

namespace {
constexpr std::string_view kNames[] = {"bool",    "uint8",    "int8",    "int16",
                                       "int32",   "int64",    "float16", "bfloat16",
                                       "float32", "float64",  "complex64", "complex128",
                                       "undefined"};
std::atomic<ScalarType> g_default_dtype{kFloat};
}  // namespace

std::string_view dtype_name(ScalarType t) {
  int i = static_cast<int>(t);
  return (i >= 0 && i <= kNumScalarTypes) ? kNames[i] : "invalid";
}

ScalarType dtype_from_name(std::string_view name) {
  if (name.rfind("torch.", 0) == 0) name.remove_prefix(6);
  if (name.rfind("ember.", 0) == 0) name.remove_prefix(6);
  for (int i = 0; i < kNumScalarTypes; ++i)
    if (kNames[i] == name) return static_cast<ScalarType>(i);
  struct Alias { std::string_view name; ScalarType t; };
  static constexpr Alias aliases[] = {
      {"float", kFloat}, {"double", kDouble}, {"half", kHalf}, {"long", kInt64},
      {"int", kInt32},   {"short", kInt16},   {"cfloat", kComplexFloat},
      {"cdouble", kComplexDouble}};
  for (auto& a : aliases)
    if (a.name == name) return a.t;
  return ScalarType::Undefined;
}

ScalarType promote_types(ScalarType a, ScalarType b) {
  if (a == b) return a;
  EMBER_CHECK(a != ScalarType::Undefined && b != ScalarType::Undefined, TypeError,
              "promote_types: undefined dtype");
  // The lattice of torch.promote_types, indexed [a][b] in enum order.
  constexpr ScalarType b1 = kBool, u1 = kUInt8, i1 = kInt8, i2 = kInt16, i4 = kInt32,
                       i8 = kInt64, f2 = kHalf, bf = kBFloat16, f4 = kFloat, f8 = kDouble,
                       c4 = kComplexFloat, c8 = kComplexDouble;
  static constexpr ScalarType table[12][12] = {
      /*       b1  u1  i1  i2  i4  i8  f2  bf  f4  f8  c4  c8 */
      /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8, c4, c8},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8, c4, c8},
      /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8, c4, c8},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8, c4, c8},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8, c8, c8},
      /* c4 */ {c4, c4, c4, c4, c4, c4, c4, c4, c4, c8, c4, c8},
      /* c8 */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8},
  };
  return table[static_cast<int>(a)][static_cast<int>(b)];
}

ScalarType to_real_type(ScalarType t) {
  if (t == kComplexFloat) return kFloat;
  if (t == kComplexDouble) return kDouble;
  return t;
}

ScalarType to_complex_type(ScalarType t) {
  switch (t) {
    case kDouble: case kComplexDouble: return kComplexDouble;
    case kHalf: case kBFloat16: case kFloat: case kComplexFloat: return kComplexFloat;
    default: EMBER_FAIL(TypeError, "no complex dtype corresponds to ", t);
  }
}

ScalarType get_default_dtype() { return g_default_dtype.load(std::memory_order_relaxed); }
void set_default_dtype(ScalarType t) {
  EMBER_CHECK(t == kFloat || t == kDouble || t == kHalf || t == kBFloat16, TypeError,
              "only floating-point types are supported as the default type, got ", t);
  g_default_dtype.store(t);
}
ScalarType get_default_complex_dtype() {
  return get_default_dtype() == kDouble ? kComplexDouble : kComplexFloat;
}

// IEEE half conversions with round-to-nearest-even, subnormals, infinities and NaN.
uint16_t Half::from_float(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t mag = x & 0x7fffffffu;
  if (mag >= 0x7f800000u) return static_cast<uint16_t>(sign | (mag > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (mag >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow to inf
  if (mag < 0x38800000u) {  // result is subnormal or zero
    if (mag < 0x33000000u) return static_cast<uint16_t>(sign);
    uint32_t e = mag >> 23;
    uint32_t m = (mag & 0x7fffffu) | 0x800000u;
    uint32_t drop = 126 - e;  // value = m * 2^(e-150) = (m >> drop) * 2^-24
    uint32_t r = m >> drop;
    uint32_t rem = m & ((1u << drop) - 1u);
    uint32_t half = 1u << (drop - 1);
    if (rem > half || (rem == half && (r & 1u))) ++r;
    return static_cast<uint16_t>(sign | r);
  }
  uint32_t r = mag - 0x38000000u;  // rebias exponent 127 -> 15
  uint32_t out = r >> 13;
  uint32_t rem = r & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (out & 1u))) ++out;
  return static_cast<uint16_t>(sign | out);
}

float Half::to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1fu;
  uint32_t m = h & 0x3ffu;
  uint32_t x;
  if (e == 0) {
    if (m == 0) {
      x = sign;
    } else {  // subnormal: normalize
      int shift = 0;
      while (!(m & 0x400u)) { m <<= 1; ++shift; }
      m &= 0x3ffu;
      x = sign | ((113u - shift) << 23) | (m << 13);
    }
  } else if (e == 31) {
    x = sign | 0x7f800000u | (m << 13);
  } else {
    x = sign | ((e + 112u) << 23) | (m << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

const char* torch_type_name(ScalarType t) {
  switch (t) {
    case kFloat: return "Float";
    case kDouble: return "Double";
    case kComplexFloat: return "ComplexFloat";
    case kComplexDouble: return "ComplexDouble";
    case kHalf: return "Half";
    case kBFloat16: return "BFloat16";
    case kInt64: return "Long";
    case kInt32: return "Int";
    case kInt16: return "Short";
    case kInt8: return "Char";
    case kUInt8: return "Byte";
    case kBool: return "Bool";
    default: return "Undefined";
  }
}

}  // namespace ember
