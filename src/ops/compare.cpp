// Comparisons eq, ne, lt, le, gt, ge (bool results computed in the promoted dtype; the
// ordering ones reject complex) and where(condition, self, other).
#include "ops/pointwise.h"

namespace ember {

namespace {

using cpu::CompareOp;
using CmpSig = Tensor(const Tensor&, const Tensor&);
using CmpOutSig = Tensor&(const Tensor&, const Tensor&, Tensor&);
using CmpScalarSig = Tensor(const Tensor&, const Scalar&);
using CmpScalarOutSig = Tensor&(const Tensor&, const Scalar&, Tensor&);
using CmpInplaceSig = Tensor&(Tensor&, const Tensor&);
using CmpScalarInplaceSig = Tensor&(Tensor&, const Scalar&);
using WhereSig = Tensor(const Tensor&, const Tensor&, const Tensor&);
using WhereOutSig = Tensor&(const Tensor&, const Tensor&, const Tensor&, Tensor&);

constexpr const char* cmp_name(CompareOp op) {
  switch (op) {
    case CompareOp::Eq: return "eq";
    case CompareOp::Ne: return "ne";
    case CompareOp::Lt: return "lt";
    case CompareOp::Le: return "le";
    case CompareOp::Gt: return "gt";
    case CompareOp::Ge: return "ge";
    default: break;  // the logical ops are binary_ops.cpp's
  }
  return "compare";
}

Tensor compare(CompareOp op, const Tensor& out, const Tensor& a, const Tensor& b) {
  const char* name = cmp_name(op);
  IterConfig cfg;
  cfg.output_dtype = kBool;
  ElementwiseIter it(name, out, {a, b}, cfg);
  // The promoted dtype is only known here; the check runs for Meta tensors too.
  EMBER_CHECK(op == CompareOp::Eq || op == CompareOp::Ne || !is_complex(it.compute_dtype()),
              RuntimeError, name, "(): \"", name, "\" not implemented for '", it.compute_dtype(),
              "' (complex numbers are not ordered); got ", a.dtype(), " and ", b.dtype());
  if (!it.is_meta()) {
    EMBER_CHECK(it.device().is_cpu(), NotImplementedError, name, "(): no kernel for device ", it.device());
    cpu::compare_stub(it, op);
  }
  it.finish();
  return it.output();
}

template <CompareOp Op>
Tensor compare_k(const Tensor& a, const Tensor& b) {
  return compare(Op, Tensor(), a, b);
}
template <CompareOp Op>
Tensor& compare_out_k(const Tensor& a, const Tensor& b, Tensor& out) {
  compare(Op, out, a, b);
  return out;
}

// Numbers compare as Python scalars (weakly promoted); in place, self receives 0/1 in its
// own dtype (as PyTorch's eq_ does).
template <CompareOp Op>
Tensor compare_scalar_k(const Tensor& a, const Scalar& b) {
  return compare(Op, Tensor(), a, wrapped_scalar(b));
}
template <CompareOp Op>
Tensor& compare_scalar_out_k(const Tensor& a, const Scalar& b, Tensor& out) {
  compare(Op, out, a, wrapped_scalar(b));
  return out;
}
template <CompareOp Op>
Tensor& compare_inplace_k(Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.defined() && b.defined(), ValueError, cmp_name(Op), "_(): got an undefined tensor");
  Tensor r = compare(Op, Tensor(), a, b);
  EMBER_CHECK(r.sizes().equals(a.sizes()), RuntimeError, cmp_name(Op), "_(): output with shape ", a.sizes(),
              " doesn't match the broadcast shape ", r.sizes());
  a.copy_(r);
  return a;
}
template <CompareOp Op>
Tensor& compare_scalar_inplace_k(Tensor& a, const Scalar& b) {
  return compare_inplace_k<Op>(a, wrapped_scalar(b));
}

template <CompareOp Op>
void define_compare() {
  const std::string n = cmp_name(Op);
  const uint32_t pw = static_cast<uint32_t>(Tag::Pointwise);
  const uint32_t pwi = Tag::Pointwise | Tag::Inplace;
  define_op<CmpSig>(n + ".Tensor(Tensor self, Tensor other) -> Tensor", pw);
  define_op<CmpScalarSig>(n + ".Scalar(Tensor self, Scalar other) -> Tensor", pw);
  define_op<CmpOutSig>(n + ".Tensor_out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", pw);
  define_op<CmpScalarOutSig>(n + ".Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out) -> Tensor(a!)", pw);
  define_op<CmpInplaceSig>(n + "_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)", pwi);
  define_op<CmpScalarInplaceSig>(n + "_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)", pwi);
  register_cpu_meta<CmpSig, &compare_k<Op>>(n + ".Tensor");
  register_cpu_meta<CmpScalarSig, &compare_scalar_k<Op>>(n + ".Scalar");
  register_cpu_meta<CmpOutSig, &compare_out_k<Op>>(n + ".Tensor_out");
  register_cpu_meta<CmpScalarOutSig, &compare_scalar_out_k<Op>>(n + ".Scalar_out");
  register_composite<CmpInplaceSig, &compare_inplace_k<Op>>(n + "_.Tensor");
  register_composite<CmpScalarInplaceSig, &compare_scalar_inplace_k<Op>>(n + "_.Scalar");
}

// where: the condition takes no part in promotion and is read as bytes; PyTorch 1.13 still
// accepts a uint8 condition (deprecated), anything else is an error.
Tensor where_impl(const Tensor& out, const Tensor& cond, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(cond.defined(), ValueError, "where(): got an undefined condition");
  EMBER_CHECK(cond.dtype() == kBool || cond.dtype() == kUInt8, RuntimeError,
              "where(): expected condition to be a boolean tensor, but got a tensor with dtype ",
              cond.dtype());
  IterConfig cfg;
  cfg.skip_promotion = 1;
  return run_pointwise("where", out, {cond, a, b}, cfg, [](const ElementwiseIter& it) { cpu::where_stub(it); });
}

Tensor where_k(const Tensor& cond, const Tensor& a, const Tensor& b) { return where_impl(Tensor(), cond, a, b); }
Tensor& where_out_k(const Tensor& cond, const Tensor& a, const Tensor& b, Tensor& out) {
  where_impl(out, cond, a, b);
  return out;
}

}  // namespace

#define EMBER_COMPARE_FRONT(name)                                                            \
  Tensor name(const Tensor& self, const Tensor& other) {                                     \
    static const TypedOp<CmpSig> op(#name ".Tensor");                                        \
    return op.call(self, other);                                                             \
  }                                                                                          \
  Tensor name(const Tensor& self, const Scalar& other) { return name(self, wrapped_scalar(other)); } \
  Tensor& name##_out(Tensor& out, const Tensor& self, const Tensor& other) {                 \
    static const TypedOp<CmpOutSig> op(#name ".Tensor_out");                                 \
    return op.call(self, other, out);                                                        \
  }                                                                                          \
  Tensor Tensor::name(const Tensor& other) const { return ember::name(*this, other); }       \
  Tensor Tensor::name(const Scalar& other) const { return ember::name(*this, other); }
EMBER_COMPARE_FRONT(eq)
EMBER_COMPARE_FRONT(ne)
EMBER_COMPARE_FRONT(lt)
EMBER_COMPARE_FRONT(le)
EMBER_COMPARE_FRONT(gt)
EMBER_COMPARE_FRONT(ge)
#undef EMBER_COMPARE_FRONT

Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other) {
  static const TypedOp<WhereSig> op("where.self");
  return op.call(condition, self, other);
}
Tensor& where_out(Tensor& out, const Tensor& condition, const Tensor& self, const Tensor& other) {
  static const TypedOp<WhereOutSig> op("where.self_out");
  return op.call(condition, self, other, out);
}
// Numbers promote as Python scalars would (weakly).
Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other) {
  return where(condition, wrapped_scalar(self), other);
}
Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other) {
  return where(condition, self, wrapped_scalar(other));
}
Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other) {
  return where(condition, wrapped_scalar(self), wrapped_scalar(other));
}

EMBER_REGISTER(compare_ops) {
  define_compare<CompareOp::Eq>();
  define_compare<CompareOp::Ne>();
  define_compare<CompareOp::Lt>();
  define_compare<CompareOp::Le>();
  define_compare<CompareOp::Gt>();
  define_compare<CompareOp::Ge>();

  const uint32_t pw = static_cast<uint32_t>(Tag::Pointwise);
  define_op<WhereSig>("where.self(Tensor condition, Tensor self, Tensor other) -> Tensor", pw);
  define_op<WhereOutSig>(
      "where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)", pw);
  for (DispatchKey k : {DispatchKey::CPU, DispatchKey::Meta}) {
    register_kernel<WhereSig, &where_k>("where.self", k);
    register_kernel<WhereOutSig, &where_out_k>("where.self_out", k);
  }
}

}  // namespace ember
