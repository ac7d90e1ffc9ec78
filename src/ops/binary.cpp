// Binary arithmetic: add, sub, mul, div, maximum, minimum; functional, in-place and out=,
// with `.Scalar` overloads for numbers.
#include "ops/pointwise.h"

namespace ember {

namespace {

using AlphaSig = Tensor(const Tensor&, const Tensor&, const Scalar&);
using AlphaInplaceSig = Tensor&(Tensor&, const Tensor&, const Scalar&);
using AlphaOutSig = Tensor&(const Tensor&, const Tensor&, const Scalar&, Tensor&);
using PlainSig = Tensor(const Tensor&, const Tensor&);
using PlainInplaceSig = Tensor&(Tensor&, const Tensor&);
using PlainOutSig = Tensor&(const Tensor&, const Tensor&, Tensor&);
using DivSig = Tensor(const Tensor&, const Tensor&, std::optional<std::string_view>);
using DivInplaceSig = Tensor&(Tensor&, const Tensor&, std::optional<std::string_view>);
using DivOutSig = Tensor&(const Tensor&, const Tensor&, std::optional<std::string_view>, Tensor&);

constexpr IterConfig kArith{};
IterConfig true_div_config() {
  IterConfig c;
  c.int_to_float = true;
  return c;
}

void check_alpha(const char* op, ScalarType dtype, const Scalar& alpha) {
  EMBER_CHECK(!(is_integral(dtype, true) && alpha.is_floating_point()), RuntimeError,
              "For integral input tensors, argument alpha must not be a floating point number.");
  EMBER_CHECK(!(alpha.is_bool() && dtype != kBool), RuntimeError,
              "Boolean alpha only supported for Boolean results.");
  EMBER_CHECK(!(alpha.is_complex() && !is_complex(dtype)), RuntimeError, op,
              "(): complex alpha requires a complex result, got ", dtype);
}

void check_sub(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(!(a.dtype() == kBool && b.dtype() == kBool), RuntimeError,
              "Subtraction, the `-` operator, with two bool tensors is not supported. "
              "Use the `^` or `logical_xor()` operator instead.");
  EMBER_CHECK(a.dtype() != kBool && b.dtype() != kBool, RuntimeError,
              "Subtraction, the `-` operator, with a bool tensor is not supported. "
              "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.");
}

// Rounded division orders its operands: complex is refused before any work.
void check_rounded_div(const Tensor& a, const Tensor& b, cpu::BinaryOp op) {
  if (op == cpu::BinaryOp::Div || !a.defined() || !b.defined()) return;
  const ScalarType dt = result_type(a, b);
  EMBER_CHECK(!is_complex(dt) && dt != kBool, RuntimeError, "div(): \"",
              op == cpu::BinaryOp::DivTrunc ? "div_trunc" : "div_floor", "\" not implemented for '", dt, "'");
}

cpu::BinaryOp div_mode(std::optional<std::string_view> mode) {
  if (!mode) return cpu::BinaryOp::Div;
  if (*mode == "trunc") return cpu::BinaryOp::DivTrunc;
  if (*mode == "floor") return cpu::BinaryOp::DivFloor;
  EMBER_FAIL(RuntimeError, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '",
             *mode, "'");
}

Tensor binary(const char* name, Tensor out, const Tensor& a, const Tensor& b, cpu::BinaryOp op,
              const Scalar& alpha, const IterConfig& cfg) {
  return run_pointwise(name, out, {a, b}, cfg, [&](const ElementwiseIter& it) {
    if (op == cpu::BinaryOp::Add) check_alpha(name, it.compute_dtype(), alpha);
    cpu::binary_stub(it, op, alpha);
  });
}

// add and sub (sub is add with -alpha).
Tensor add_k(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  return binary("add", Tensor(), a, b, cpu::BinaryOp::Add, alpha, kArith);
}
Tensor& add_inplace_k(Tensor& a, const Tensor& b, const Scalar& alpha) {
  binary("add_", a, a, b, cpu::BinaryOp::Add, alpha, kArith);
  return a;
}
Tensor& add_out_k(const Tensor& a, const Tensor& b, const Scalar& alpha, Tensor& out) {
  binary("add", out, a, b, cpu::BinaryOp::Add, alpha, kArith);
  return out;
}
Tensor sub_k(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  check_sub(a, b);
  return binary("sub", Tensor(), a, b, cpu::BinaryOp::Add, -alpha, kArith);
}
Tensor& sub_inplace_k(Tensor& a, const Tensor& b, const Scalar& alpha) {
  check_sub(a, b);
  binary("sub_", a, a, b, cpu::BinaryOp::Add, -alpha, kArith);
  return a;
}
Tensor& sub_out_k(const Tensor& a, const Tensor& b, const Scalar& alpha, Tensor& out) {
  check_sub(a, b);
  binary("sub", out, a, b, cpu::BinaryOp::Add, -alpha, kArith);
  return out;
}

// maximum and minimum order their operands: complex is refused (a RuntimeError, as in PyTorch).
template <cpu::BinaryOp Op>
void check_ordered(const Tensor& a, const Tensor& b) {
  if constexpr (Op == cpu::BinaryOp::Maximum || Op == cpu::BinaryOp::Minimum) {
    EMBER_CHECK(!(a.defined() && a.is_complex()) && !(b.defined() && b.is_complex()), RuntimeError,
                Op == cpu::BinaryOp::Maximum ? "maximum" : "minimum", " not implemented for complex tensors.");
  }
}

template <cpu::BinaryOp Op>
Tensor plain_k(const Tensor& a, const Tensor& b) {
  check_ordered<Op>(a, b);
  return binary(Op == cpu::BinaryOp::Mul ? "mul" : Op == cpu::BinaryOp::Maximum ? "maximum" : "minimum",
                Tensor(), a, b, Op, 1, kArith);
}
template <cpu::BinaryOp Op>
Tensor& plain_inplace_k(Tensor& a, const Tensor& b) {
  binary("mul_", a, a, b, Op, 1, kArith);
  return a;
}
template <cpu::BinaryOp Op>
Tensor& plain_out_k(const Tensor& a, const Tensor& b, Tensor& out) {
  check_ordered<Op>(a, b);
  binary(Op == cpu::BinaryOp::Mul ? "mul" : Op == cpu::BinaryOp::Maximum ? "maximum" : "minimum",
         out, a, b, Op, 1, kArith);
  return out;
}

Tensor div_k(const Tensor& a, const Tensor& b, std::optional<std::string_view> mode) {
  cpu::BinaryOp op = div_mode(mode);
  check_rounded_div(a, b, op);
  return binary("div", Tensor(), a, b, op, 1, op == cpu::BinaryOp::Div ? true_div_config() : kArith);
}
Tensor& div_inplace_k(Tensor& a, const Tensor& b, std::optional<std::string_view> mode) {
  cpu::BinaryOp op = div_mode(mode);
  check_rounded_div(a, b, op);
  binary("div_", a, a, b, op, 1, op == cpu::BinaryOp::Div ? true_div_config() : kArith);
  return a;
}
Tensor& div_out_k(const Tensor& a, const Tensor& b, std::optional<std::string_view> mode, Tensor& out) {
  cpu::BinaryOp op = div_mode(mode);
  check_rounded_div(a, b, op);
  binary("div", out, a, b, op, 1, op == cpu::BinaryOp::Div ? true_div_config() : kArith);
  return out;
}

// The `.Scalar` overloads: the number as a wrapped (weakly promoted) 0-dim tensor.
using AlphaScalarSig = Tensor(const Tensor&, const Scalar&, const Scalar&);
using AlphaScalarInplaceSig = Tensor&(Tensor&, const Scalar&, const Scalar&);
using PlainScalarSig = Tensor(const Tensor&, const Scalar&);
using PlainScalarInplaceSig = Tensor&(Tensor&, const Scalar&);
using DivScalarSig = Tensor(const Tensor&, const Scalar&, std::optional<std::string_view>);
using DivScalarInplaceSig = Tensor&(Tensor&, const Scalar&, std::optional<std::string_view>);
Tensor add_s_k(const Tensor& a, const Scalar& b, const Scalar& alpha) { return add_k(a, wrapped_scalar(b), alpha); }
Tensor& add_s_inplace_k(Tensor& a, const Scalar& b, const Scalar& alpha) { return add_inplace_k(a, wrapped_scalar(b), alpha); }
Tensor sub_s_k(const Tensor& a, const Scalar& b, const Scalar& alpha) { return sub_k(a, wrapped_scalar(b), alpha); }
Tensor& sub_s_inplace_k(Tensor& a, const Scalar& b, const Scalar& alpha) { return sub_inplace_k(a, wrapped_scalar(b), alpha); }
Tensor mul_s_k(const Tensor& a, const Scalar& b) { return plain_k<cpu::BinaryOp::Mul>(a, wrapped_scalar(b)); }
Tensor& mul_s_inplace_k(Tensor& a, const Scalar& b) { return plain_inplace_k<cpu::BinaryOp::Mul>(a, wrapped_scalar(b)); }
Tensor div_s_k(const Tensor& a, const Scalar& b, std::optional<std::string_view> mode) {
  return div_k(a, wrapped_scalar(b), mode);
}
Tensor& div_s_inplace_k(Tensor& a, const Scalar& b, std::optional<std::string_view> mode) {
  return div_inplace_k(a, wrapped_scalar(b), mode);
}

}  // namespace

// ---------------------------------------------------------------- front functions
#define EMBER_CALL(Sig, name, ...)              \
  static const TypedOp<Sig> op(name);           \
  return op.call(__VA_ARGS__)

Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  EMBER_CALL(AlphaSig, "add.Tensor", self, other, alpha);
}
Tensor& add_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  EMBER_CALL(AlphaOutSig, "add.out", self, other, alpha, out);
}
Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha) {
  EMBER_CALL(AlphaSig, "sub.Tensor", self, other, alpha);
}
Tensor& sub_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha) {
  EMBER_CALL(AlphaOutSig, "sub.out", self, other, alpha, out);
}
Tensor mul(const Tensor& self, const Tensor& other) { EMBER_CALL(PlainSig, "mul.Tensor", self, other); }
Tensor& mul_out(Tensor& out, const Tensor& self, const Tensor& other) {
  EMBER_CALL(PlainOutSig, "mul.out", self, other, out);
}
Tensor div(const Tensor& self, const Tensor& other, std::optional<std::string_view> mode) {
  EMBER_CALL(DivSig, "div.Tensor_mode", self, other, mode);
}
Tensor& div_out(Tensor& out, const Tensor& self, const Tensor& other, std::optional<std::string_view> mode) {
  EMBER_CALL(DivOutSig, "div.out_mode", self, other, mode, out);
}
Tensor maximum(const Tensor& self, const Tensor& other) { EMBER_CALL(PlainSig, "maximum", self, other); }
Tensor minimum(const Tensor& self, const Tensor& other) { EMBER_CALL(PlainSig, "minimum", self, other); }

Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return add(self, wrapped_scalar(other), alpha);
}
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha) {
  return sub(self, wrapped_scalar(other), alpha);
}
Tensor mul(const Tensor& self, const Scalar& other) { return mul(self, wrapped_scalar(other)); }
Tensor div(const Tensor& self, const Scalar& other, std::optional<std::string_view> mode) {
  return div(self, wrapped_scalar(other), mode);
}

// In-place methods.
Tensor& Tensor::add_(const Tensor& other, const Scalar& alpha) {
  EMBER_CALL(AlphaInplaceSig, "add_.Tensor", *this, other, alpha);
}
Tensor& Tensor::sub_(const Tensor& other, const Scalar& alpha) {
  EMBER_CALL(AlphaInplaceSig, "sub_.Tensor", *this, other, alpha);
}
Tensor& Tensor::mul_(const Tensor& other) { EMBER_CALL(PlainInplaceSig, "mul_.Tensor", *this, other); }
Tensor& Tensor::div_(const Tensor& other, std::optional<std::string_view> mode) {
  EMBER_CALL(DivInplaceSig, "div_.Tensor_mode", *this, other, mode);
}
Tensor& Tensor::add_(const Scalar& other, const Scalar& alpha) { return add_(wrapped_scalar(other), alpha); }
Tensor& Tensor::sub_(const Scalar& other, const Scalar& alpha) { return sub_(wrapped_scalar(other), alpha); }
Tensor& Tensor::mul_(const Scalar& other) { return mul_(wrapped_scalar(other)); }
Tensor& Tensor::div_(const Scalar& other, std::optional<std::string_view> mode) {
  return div_(wrapped_scalar(other), mode);
}
#undef EMBER_CALL

EMBER_REGISTER(binary_ops) {
  using cpu::BinaryOp;
  const uint32_t pw = static_cast<uint32_t>(Tag::Pointwise);
  const uint32_t pw_inplace = Tag::Pointwise | Tag::Inplace;

  define_op<AlphaSig>("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", pw);
  define_op<AlphaInplaceSig>("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", pw_inplace);
  define_op<AlphaOutSig>("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)", pw);
  register_cpu_meta<AlphaSig, &add_k>("add.Tensor");
  register_cpu_meta<AlphaInplaceSig, &add_inplace_k>("add_.Tensor");
  register_cpu_meta<AlphaOutSig, &add_out_k>("add.out");

  define_op<AlphaSig>("sub.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", pw);
  define_op<AlphaInplaceSig>("sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", pw_inplace);
  define_op<AlphaOutSig>("sub.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)", pw);
  register_cpu_meta<AlphaSig, &sub_k>("sub.Tensor");
  register_cpu_meta<AlphaInplaceSig, &sub_inplace_k>("sub_.Tensor");
  register_cpu_meta<AlphaOutSig, &sub_out_k>("sub.out");

  define_op<PlainSig>("mul.Tensor(Tensor self, Tensor other) -> Tensor", pw);
  define_op<PlainInplaceSig>("mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", pw_inplace);
  define_op<PlainOutSig>("mul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", pw);
  register_cpu_meta<PlainSig, &plain_k<BinaryOp::Mul>>("mul.Tensor");
  register_cpu_meta<PlainInplaceSig, &plain_inplace_k<BinaryOp::Mul>>("mul_.Tensor");
  register_cpu_meta<PlainOutSig, &plain_out_k<BinaryOp::Mul>>("mul.out");

  define_op<DivSig>("div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode=None) -> Tensor", pw);
  define_op<DivInplaceSig>("div_.Tensor_mode(Tensor(a!) self, Tensor other, *, str? rounding_mode=None) -> Tensor(a!)", pw_inplace);
  define_op<DivOutSig>("div.out_mode(Tensor self, Tensor other, *, str? rounding_mode=None, Tensor(a!) out) -> Tensor(a!)", pw);
  register_cpu_meta<DivSig, &div_k>("div.Tensor_mode");
  register_cpu_meta<DivInplaceSig, &div_inplace_k>("div_.Tensor_mode");
  register_cpu_meta<DivOutSig, &div_out_k>("div.out_mode");

  define_op<PlainSig>("maximum(Tensor self, Tensor other) -> Tensor", pw);
  define_op<PlainSig>("minimum(Tensor self, Tensor other) -> Tensor", pw);
  define_op<PlainOutSig>("maximum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", pw);
  define_op<PlainOutSig>("minimum.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", pw);
  register_cpu_meta<PlainSig, &plain_k<BinaryOp::Maximum>>("maximum");
  register_cpu_meta<PlainSig, &plain_k<BinaryOp::Minimum>>("minimum");
  register_cpu_meta<PlainOutSig, &plain_out_k<BinaryOp::Maximum>>("maximum.out");
  register_cpu_meta<PlainOutSig, &plain_out_k<BinaryOp::Minimum>>("minimum.out");

  define_op<AlphaScalarSig>("add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", pw);
  define_op<AlphaScalarInplaceSig>("add_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)", pw_inplace);
  define_op<AlphaScalarSig>("sub.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", pw);
  define_op<AlphaScalarInplaceSig>("sub_.Scalar(Tensor(a!) self, Scalar other, Scalar alpha=1) -> Tensor(a!)", pw_inplace);
  define_op<PlainScalarSig>("mul.Scalar(Tensor self, Scalar other) -> Tensor", pw);
  define_op<PlainScalarInplaceSig>("mul_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", pw_inplace);
  define_op<DivScalarSig>("div.Scalar_mode(Tensor self, Scalar other, *, str? rounding_mode=None) -> Tensor", pw);
  define_op<DivScalarInplaceSig>(
      "div_.Scalar_mode(Tensor(a!) self, Scalar other, *, str? rounding_mode=None) -> Tensor(a!)", pw_inplace);
  register_cpu_meta<AlphaScalarSig, &add_s_k>("add.Scalar");
  register_cpu_meta<AlphaScalarInplaceSig, &add_s_inplace_k>("add_.Scalar");
  register_cpu_meta<AlphaScalarSig, &sub_s_k>("sub.Scalar");
  register_cpu_meta<AlphaScalarInplaceSig, &sub_s_inplace_k>("sub_.Scalar");
  register_cpu_meta<PlainScalarSig, &mul_s_k>("mul.Scalar");
  register_cpu_meta<PlainScalarInplaceSig, &mul_s_inplace_k>("mul_.Scalar");
  register_cpu_meta<DivScalarSig, &div_s_k>("div.Scalar_mode");
  register_cpu_meta<DivScalarInplaceSig, &div_s_inplace_k>("div_.Scalar_mode");
}

}  // namespace ember
