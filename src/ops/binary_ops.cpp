// Binary pointwise ops beyond add/sub/mul/div (binary.cpp): remainder, fmod, pow,
// float_power, atan2, hypot, fmax/fmin, copysign, nextafter, logaddexp(2), xlogy, the
// bitwise and shift ops, floor_divide, true_divide and the logical ops. Each is one table
// row (name, kernel, dtype rule, accepted dtypes, overloads); the Tensor, Scalar and
// Scalar-self overloads, in-place and out= forms are generated from it with PyTorch's
// schema spellings. Numbers take part in promotion as Python scalars do (wrapped_scalar).
#include "ember/ops/pointwise.h"
#include "ops/unary.h"

namespace ember {

namespace {

using unary::kAll;
using unary::kBoolBit;
using unary::kFloats;
using unary::kInts;
using unary::kReal;
using cpu::BinaryOp;
using cpu::CompareOp;

enum class Rule {
  Promote,      // the promoted dtype
  Float,        // integers and bool compute in the default float dtype
  Double,       // float64 (complex128 for complex): float_power
  Logical,      // bool result, any dtype for out= and in-place
};

enum Forms : unsigned {
  kInplace = 1,  // name_.Tensor (and name_.Scalar when there is a Scalar overload)
  kOut = 2,      // name.<Tensor>_out (and the Scalar ones)
};

struct BinaryDef {
  const char* name;
  int kernel;  // a BinaryOp, or a CompareOp for Rule::Logical
  Rule rule;
  uint32_t dtypes;  // accepted promoted dtypes
  unsigned forms;
  // Overload names ("" for none); scalar: (Tensor self, Scalar other); scalar_self:
  // (Scalar self, Tensor other).
  const char* tensor_ov;
  const char* scalar_ov;
  const char* scalar_self_ov;
  const char* bad_dtype_message = nullptr;
};

constexpr int op(BinaryOp o) { return static_cast<int>(o); }
constexpr int op(CompareOp o) { return static_cast<int>(o); }

constexpr BinaryDef kOps[] = {
    {"remainder", op(BinaryOp::Remainder), Rule::Promote, kInts | kFloats, kInplace | kOut, "Tensor", "Scalar", "Scalar_Tensor"},
    {"fmod", op(BinaryOp::Fmod), Rule::Promote, kInts | kFloats, kInplace | kOut, "Tensor", "Scalar", ""},
    {"floor_divide", op(BinaryOp::DivFloor), Rule::Promote, kInts | kFloats, kInplace | kOut, "", "Scalar", ""},
    {"true_divide", op(BinaryOp::Div), Rule::Float, kAll, kInplace | kOut, "Tensor", "Scalar", ""},
    {"pow", op(BinaryOp::Pow), Rule::Promote, unary::kNumbers, kInplace | kOut, "Tensor_Tensor", "Tensor_Scalar", "Scalar"},
    {"float_power", op(BinaryOp::Pow), Rule::Double, kAll, kInplace | kOut, "Tensor_Tensor", "Tensor_Scalar", "Scalar"},
    {"atan2", op(BinaryOp::Atan2), Rule::Float, unary::kRealNoHalf, kInplace | kOut, "", "", ""},
    {"arctan2", op(BinaryOp::Atan2), Rule::Float, unary::kRealNoHalf, kInplace | kOut, "", "", ""},
    {"hypot", op(BinaryOp::Hypot), Rule::Promote, unary::kFloatsNoHalf, kInplace | kOut, "", "", ""},
    {"fmax", op(BinaryOp::Fmax), Rule::Promote, kReal, kOut, "", "", "", "fmax not implemented for complex tensors."},
    {"fmin", op(BinaryOp::Fmin), Rule::Promote, kReal, kOut, "", "", "", "fmin not implemented for complex tensors."},
    {"copysign", op(BinaryOp::Copysign), Rule::Float, kReal, kInplace | kOut, "Tensor", "Scalar", ""},
    {"nextafter", op(BinaryOp::Nextafter), Rule::Promote, unary::kFloatsNoHalf, kInplace | kOut, "", "", ""},
    {"logaddexp", op(BinaryOp::LogAddExp), Rule::Promote, unary::kFloatsNoHalf, kOut, "", "", ""},
    {"logaddexp2", op(BinaryOp::LogAddExp2), Rule::Promote, unary::kFloatsNoHalf, kOut, "", "", ""},
    {"xlogy", op(BinaryOp::Xlogy), Rule::Float, kReal, kInplace | kOut, "Tensor", "Scalar_Other", "Scalar_Self"},
    {"bitwise_and", op(BinaryOp::BitAnd), Rule::Promote, kBoolBit | kInts, kInplace | kOut, "Tensor", "Scalar", "Scalar_Tensor"},
    {"bitwise_or", op(BinaryOp::BitOr), Rule::Promote, kBoolBit | kInts, kInplace | kOut, "Tensor", "Scalar", "Scalar_Tensor"},
    {"bitwise_xor", op(BinaryOp::BitXor), Rule::Promote, kBoolBit | kInts, kInplace | kOut, "Tensor", "Scalar", "Scalar_Tensor"},
    {"bitwise_left_shift", op(BinaryOp::Shl), Rule::Promote, kInts, kInplace | kOut, "Tensor", "Tensor_Scalar", "Scalar_Tensor"},
    {"bitwise_right_shift", op(BinaryOp::Shr), Rule::Promote, kInts, kInplace | kOut, "Tensor", "Tensor_Scalar", "Scalar_Tensor"},
    {"logical_and", op(CompareOp::LogicalAnd), Rule::Logical, kAll, kInplace | kOut, "", "", ""},
    {"logical_or", op(CompareOp::LogicalOr), Rule::Logical, kAll, kInplace | kOut, "", "", ""},
    {"logical_xor", op(CompareOp::LogicalXor), Rule::Logical, kAll, kInplace | kOut, "", "", ""},
};
constexpr int kNumOps = static_cast<int>(sizeof(kOps) / sizeof(kOps[0]));

// The dtype the op computes in, checked against the row (before anything is allocated).
ScalarType compute_dtype(const BinaryDef& d, const char* name, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.defined() && b.defined(), ValueError, name, "(): got an undefined tensor");
  const ScalarType dt = result_type(a, b);
  if (!(d.dtypes & unary::bit(dt))) {
    if (d.bad_dtype_message) EMBER_FAIL(RuntimeError, name, "(): ", d.bad_dtype_message);
    EMBER_FAIL(RuntimeError, name, "(): \"", d.name, "\" not implemented for '", dt, "'");
  }
  return dt;
}

Tensor binary_run(const BinaryDef& d, const char* name, const Tensor& out, const Tensor& a, const Tensor& b,
                  bool inplace) {
  const ScalarType dt = compute_dtype(d, name, a, b);
  IterConfig cfg;
  if (d.rule == Rule::Logical) {
    cfg.output_dtype = kBool;
    cfg.check_output_cast = false;
    const auto cop = static_cast<CompareOp>(d.kernel);
    return run_pointwise(name, out, {a, b}, cfg, [cop](const ElementwiseIter& it) { cpu::compare_stub(it, cop); });
  }
  const auto bop = static_cast<BinaryOp>(d.kernel);
  if (d.rule == Rule::Float) cfg.int_to_float = true;
  if (bop == BinaryOp::Pow && d.rule == Rule::Promote && is_integral(dt, false) && b.dim() == 0 &&
      b.impl()->is_wrapped_number() && !b.is_meta()) {
    EMBER_CHECK(b.item().to_int() >= 0, RuntimeError, "Integers to negative integer powers are not allowed.");
  }
  // A number for exponent (pow.Tensor_Scalar, float_power.Tensor_Scalar, x ** 2) takes the
  // kernel's unary loop with PyTorch's fast paths (x * x for 2, sqrt for 0.5, ...); a tensor
  // exponent, even a 0-dim one, takes pow, as in PyTorch.
  const bool scalar_exp = bop == BinaryOp::Pow && b.dim() == 0 && b.impl()->is_wrapped_number() && !b.is_meta();
  const Scalar alpha = scalar_exp ? b.item() : Scalar(1);
  const BinaryOp kop = scalar_exp ? BinaryOp::PowScalar : bop;
  if (d.rule == Rule::Double) {
    // float_power computes in double (complex128 for complex operands); the output (self for
    // in-place) must have exactly that dtype.
    const ScalarType want = is_complex(dt) ? kComplexDouble : kDouble;
    if (out.defined()) {
      EMBER_CHECK(out.dtype() == want, RuntimeError, "the ", inplace ? "base" : "output", " given to ", name,
                  " has dtype ", out.dtype(), " but the operation's result requires dtype ", want);
    }
    const Tensor a2 = a.dtype() == want ? a : a.to(want), b2 = b.dtype() == want ? b : b.to(want);
    return run_pointwise(name, out, {a2, b2}, cfg,
                         [kop, &alpha](const ElementwiseIter& it) { cpu::binary_stub(it, kop, alpha); });
  }
  auto kernel = [kop, &alpha](const ElementwiseIter& it) { cpu::binary_stub(it, kop, alpha); };
  // The PowScalar kernel reads only the base: when the base already has the result's dtype
  // the exponent need not be an operand, and x ** 2 takes the iterator's one-input fast path.
  if (scalar_exp && a.dtype() == dt) return run_pointwise(name, out, {a}, cfg, kernel);
  return run_pointwise(name, out, {a, b}, cfg, kernel);
}

std::string join(const char* name, const char* ov) {
  return *ov ? std::string(name) + "." + ov : std::string(name);
}
std::string out_name(const char* name, const char* ov) {
  return *ov ? std::string(name) + "." + ov + "_out" : std::string(name) + ".out";
}
std::string inplace_name(const char* name) { return std::string(name) + "_"; }

using TTSig = Tensor(const Tensor&, const Tensor&);
using TSSig = Tensor(const Tensor&, const Scalar&);
using STSig = Tensor(const Scalar&, const Tensor&);
using TTInplaceSig = Tensor&(Tensor&, const Tensor&);
using TSInplaceSig = Tensor&(Tensor&, const Scalar&);
using TTOutSig = Tensor&(const Tensor&, const Tensor&, Tensor&);
using TSOutSig = Tensor&(const Tensor&, const Scalar&, Tensor&);
using STOutSig = Tensor&(const Scalar&, const Tensor&, Tensor&);

template <int I>
Tensor tt_k(const Tensor& a, const Tensor& b) {
  return binary_run(kOps[I], kOps[I].name, Tensor(), a, b, false);
}
template <int I>
Tensor ts_k(const Tensor& a, const Scalar& b) {
  return binary_run(kOps[I], kOps[I].name, Tensor(), a, wrapped_scalar(b), false);
}
template <int I>
Tensor st_k(const Scalar& a, const Tensor& b) {
  return binary_run(kOps[I], kOps[I].name, Tensor(), wrapped_scalar(a), b, false);
}
template <int I>
Tensor& tt_inplace_k(Tensor& a, const Tensor& b) {
  static const std::string name = inplace_name(kOps[I].name);
  binary_run(kOps[I], name.c_str(), a, a, b, true);
  return a;
}
template <int I>
Tensor& ts_inplace_k(Tensor& a, const Scalar& b) {
  static const std::string name = inplace_name(kOps[I].name);
  binary_run(kOps[I], name.c_str(), a, a, wrapped_scalar(b), true);
  return a;
}
template <int I>
Tensor& tt_out_k(const Tensor& a, const Tensor& b, Tensor& out) {
  binary_run(kOps[I], kOps[I].name, out, a, b, false);
  return out;
}
template <int I>
Tensor& ts_out_k(const Tensor& a, const Scalar& b, Tensor& out) {
  binary_run(kOps[I], kOps[I].name, out, a, wrapped_scalar(b), false);
  return out;
}
template <int I>
Tensor& st_out_k(const Scalar& a, const Tensor& b, Tensor& out) {
  binary_run(kOps[I], kOps[I].name, out, wrapped_scalar(a), b, false);
  return out;
}

template <int I>
void define_entry() {
  const BinaryDef& d = kOps[I];
  const uint32_t pw = static_cast<uint32_t>(Tag::Pointwise);
  const uint32_t pwi = Tag::Pointwise | Tag::Inplace;
  const std::string n = d.name;
  auto schema = [](const std::string& full, const char* args, const char* ret = "Tensor") {
    return full + "(" + args + ") -> " + ret;
  };
  const std::string tt = join(d.name, d.tensor_ov);
  define_op<TTSig>(schema(tt, "Tensor self, Tensor other"), pw);
  register_cpu_meta<TTSig, &tt_k<I>>(tt);
  if (*d.scalar_ov) {
    const std::string ts = join(d.name, d.scalar_ov);
    define_op<TSSig>(schema(ts, "Tensor self, Scalar other"), pw);
    register_cpu_meta<TSSig, &ts_k<I>>(ts);
  }
  if (*d.scalar_self_ov) {
    const std::string st = join(d.name, d.scalar_self_ov);
    define_op<STSig>(schema(st, "Scalar self, Tensor other"), pw);
    register_cpu_meta<STSig, &st_k<I>>(st);
  }
  if (d.forms & kInplace) {
    const std::string tti = join((n + "_").c_str(), d.tensor_ov);
    define_op<TTInplaceSig>(schema(tti, "Tensor(a!) self, Tensor other", "Tensor(a!)"), pwi);
    register_cpu_meta<TTInplaceSig, &tt_inplace_k<I>>(tti);
    if (*d.scalar_ov) {
      const std::string tsi = join((n + "_").c_str(), d.scalar_ov);
      define_op<TSInplaceSig>(schema(tsi, "Tensor(a!) self, Scalar other", "Tensor(a!)"), pwi);
      register_cpu_meta<TSInplaceSig, &ts_inplace_k<I>>(tsi);
    }
  }
  if (d.forms & kOut) {
    const std::string tto = out_name(d.name, d.tensor_ov);
    define_op<TTOutSig>(schema(tto, "Tensor self, Tensor other, *, Tensor(a!) out", "Tensor(a!)"), pw);
    register_cpu_meta<TTOutSig, &tt_out_k<I>>(tto);
    if (*d.scalar_ov) {
      const std::string tso = out_name(d.name, d.scalar_ov);
      define_op<TSOutSig>(schema(tso, "Tensor self, Scalar other, *, Tensor(a!) out", "Tensor(a!)"), pw);
      register_cpu_meta<TSOutSig, &ts_out_k<I>>(tso);
    }
    if (*d.scalar_self_ov) {
      const std::string sto = out_name(d.name, d.scalar_self_ov);
      define_op<STOutSig>(schema(sto, "Scalar self, Tensor other, *, Tensor(a!) out", "Tensor(a!)"), pw);
      register_cpu_meta<STOutSig, &st_out_k<I>>(sto);
    }
  }
}

template <int... I>
void define_all(std::integer_sequence<int, I...>) {
  (define_entry<I>(), ...);
}

// Row index by name, for the front functions.
constexpr int row(std::string_view name) {
  for (int i = 0; i < kNumOps; ++i)
    if (std::string_view(kOps[i].name) == name) return i;
  return -1;
}

}  // namespace

// ---------------------------------------------------------------- front functions
#define EMBER_BINARY_FRONT(name)                                                      \
  Tensor name(const Tensor& self, const Tensor& other) {                              \
    constexpr int i = row(#name);                                                     \
    static const TypedOp<TTSig> op(join(#name, kOps[i].tensor_ov));                   \
    return op.call(self, other);                                                      \
  }                                                                                   \
  /* A number goes to the op's Scalar overload where it has one (as at::pow(Tensor, Scalar)):  \
     its derivative keeps the number in double, where a wrapped 0-dim tensor would round. */   \
  Tensor name(const Tensor& self, const Scalar& other) {                              \
    constexpr int i = row(#name);                                                     \
    if constexpr (*kOps[i].scalar_ov != '\0') {                                       \
      static const TypedOp<TSSig> op(join(#name, kOps[i].scalar_ov));                 \
      return op.call(self, other);                                                    \
    } else {                                                                          \
      return name(self, wrapped_scalar(other));                                       \
    }                                                                                 \
  }                                                                                   \
  Tensor& name##_out(Tensor& out, const Tensor& self, const Tensor& other) {          \
    constexpr int i = row(#name);                                                     \
    static const TypedOp<TTOutSig> op(out_name(#name, kOps[i].tensor_ov));            \
    return op.call(self, other, out);                                                 \
  }                                                                                   \

#define EMBER_BINARY_FRONT_INPLACE(name)                                              \
  EMBER_BINARY_FRONT(name)                                                            \
  Tensor& name##_(Tensor& self, const Tensor& other) {                                \
    constexpr int i = row(#name);                                                     \
    static_assert(kOps[i].forms & kInplace);                                          \
    static const TypedOp<TTInplaceSig> op(join(#name "_", kOps[i].tensor_ov));        \
    return op.call(self, other);                                                      \
  }
EMBER_POINTWISE_BINARY_OPS(EMBER_BINARY_FRONT_INPLACE)
EMBER_POINTWISE_BINARY_OPS_NO_INPLACE(EMBER_BINARY_FRONT)
#undef EMBER_BINARY_FRONT
#undef EMBER_BINARY_FRONT_INPLACE

Tensor pow(const Scalar& self, const Tensor& exponent) {
  static const TypedOp<STSig> op("pow.Scalar");
  return op.call(self, exponent);
}

EMBER_REGISTER(binary_more_ops) { define_all(std::make_integer_sequence<int, kNumOps>()); }

}  // namespace ember
