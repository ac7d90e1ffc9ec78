// Pointwise ops with three operands or tensor-valued options: clamp/clip (number or tensor
// bounds), clamp_min, clamp_max, lerp, addcmul, addcdiv; and the comparisons that reduce to
// one answer or take tolerances: isclose, allclose, equal.
#include "ember/ops/pointwise.h"
#include "ops/unary.h"

namespace ember {

namespace {

using cpu::BinaryOp;
using cpu::TernaryOp;
using OptScalar = std::optional<Scalar>;
using OptTensor = std::optional<Tensor>;

constexpr uint32_t pw = static_cast<uint32_t>(Tag::Pointwise);
constexpr uint32_t pwi = Tag::Pointwise | Tag::Inplace;

// PyTorch 1.13 has no float16 clamp, lerp, addcmul or addcdiv on the CPU; Ember follows.
void check_no_half(const char* name, const char* op, ScalarType dt) {
  EMBER_CHECK(dt != kHalf, RuntimeError, name, "(): \"", op, "\" not implemented for '", dt, "'");
}

void check_clamp_dtype(const char* name, ScalarType dt) {
  EMBER_CHECK(dt != kBool, RuntimeError, name, "(): \"clamp\" not implemented for 'Bool'");
  check_no_half(name, "clamp", dt);
  EMBER_CHECK(!is_complex(dt), RuntimeError, name, "(): clamp is not supported for complex types");
}

// ---------------------------------------------------------------- clamp with numbers
// The bounds take part in promotion (clamp(int_tensor, 0.5) is float); the kernel clamps in
// the promoted dtype.
Tensor clamp_scalar(const char* name, const Tensor& out, const Tensor& self, const OptScalar& lo,
                    const OptScalar& hi) {
  EMBER_CHECK(self.defined(), ValueError, name, "(): got an undefined tensor");
  EMBER_CHECK(lo || hi, RuntimeError, "torch.clamp: At least one of 'min' or 'max' must not be None");
  SmallVector<Tensor, 3> ops{self};
  if (lo) ops.push_back(wrapped_scalar(*lo));
  if (hi) ops.push_back(wrapped_scalar(*hi));
  const ScalarType dt = result_type(TensorList(ops.data(), ops.size()));
  check_clamp_dtype(name, dt);
  cpu::UnaryParams p;
  if (lo) { p.lo = *lo; p.has_lo = true; }
  if (hi) { p.hi = *hi; p.has_hi = true; }
  const Tensor x = self.dtype() == dt ? self : self.to(dt);
  return run_pointwise(name, out, {x}, IterConfig{},
                       [&p](const ElementwiseIter& it) { cpu::unary_stub(it, cpu::UnaryOp::Clamp, p); });
}

// ---------------------------------------------------------------- clamp with tensors
Tensor clamp_tensor(const char* name, const Tensor& out, const Tensor& self, const OptTensor& lo,
                    const OptTensor& hi) {
  EMBER_CHECK(self.defined(), ValueError, name, "(): got an undefined tensor");
  const bool has_lo = lo && lo->defined(), has_hi = hi && hi->defined();
  EMBER_CHECK(has_lo || has_hi, RuntimeError, "torch.clamp: At least one of 'min' or 'max' must not be None");
  SmallVector<Tensor, 3> ops{self};
  if (has_lo) ops.push_back(*lo);
  if (has_hi) ops.push_back(*hi);
  const ScalarType dt = result_type(TensorList(ops.data(), ops.size()));
  // One bound is maximum/minimum in PyTorch, which also take bool and float16.
  if (has_lo && has_hi) check_clamp_dtype(name, dt);
  EMBER_CHECK(!is_complex(dt), RuntimeError, name, "(): clamp is not supported for complex types");
  if (has_lo && has_hi)
    return run_pointwise(name, out, {self, *lo, *hi}, IterConfig{},
                         [](const ElementwiseIter& it) { cpu::ternary_stub(it, TernaryOp::Clamp, 1); });
  const BinaryOp bop = has_lo ? BinaryOp::ClampMin : BinaryOp::ClampMax;
  return run_pointwise(name, out, {self, has_lo ? *lo : *hi}, IterConfig{},
                       [bop](const ElementwiseIter& it) { cpu::binary_stub(it, bop, 1); });
}

// Kernels for clamp and its alias clip (N: the op's name).
template <const char* N>
Tensor clamp_k(const Tensor& self, const OptScalar& lo, const OptScalar& hi) {
  return clamp_scalar(N, Tensor(), self, lo, hi);
}
template <const char* N>
Tensor& clamp_inplace_k(Tensor& self, const OptScalar& lo, const OptScalar& hi) {
  static const std::string name = std::string(N) + "_";
  clamp_scalar(name.c_str(), self, self, lo, hi);
  return self;
}
template <const char* N>
Tensor& clamp_out_k(const Tensor& self, const OptScalar& lo, const OptScalar& hi, Tensor& out) {
  clamp_scalar(N, out, self, lo, hi);
  return out;
}
template <const char* N>
Tensor clamp_t_k(const Tensor& self, const OptTensor& lo, const OptTensor& hi) {
  return clamp_tensor(N, Tensor(), self, lo, hi);
}
template <const char* N>
Tensor& clamp_t_inplace_k(Tensor& self, const OptTensor& lo, const OptTensor& hi) {
  static const std::string name = std::string(N) + "_";
  clamp_tensor(name.c_str(), self, self, lo, hi);
  return self;
}
template <const char* N>
Tensor& clamp_t_out_k(const Tensor& self, const OptTensor& lo, const OptTensor& hi, Tensor& out) {
  clamp_tensor(N, out, self, lo, hi);
  return out;
}
constexpr char kClamp[] = "clamp";
constexpr char kClip[] = "clip";

// clamp_min / clamp_max: one bound.
template <bool Min>
Tensor clamp1_k(const Tensor& self, const Scalar& b) {
  return clamp_scalar(Min ? "clamp_min" : "clamp_max", Tensor(), self, Min ? OptScalar(b) : std::nullopt,
                      Min ? std::nullopt : OptScalar(b));
}
template <bool Min>
Tensor& clamp1_inplace_k(Tensor& self, const Scalar& b) {
  clamp_scalar(Min ? "clamp_min_" : "clamp_max_", self, self, Min ? OptScalar(b) : std::nullopt,
               Min ? std::nullopt : OptScalar(b));
  return self;
}
template <bool Min>
Tensor& clamp1_out_k(const Tensor& self, const Scalar& b, Tensor& out) {
  clamp_scalar(Min ? "clamp_min" : "clamp_max", out, self, Min ? OptScalar(b) : std::nullopt,
               Min ? std::nullopt : OptScalar(b));
  return out;
}
template <bool Min>
Tensor clamp1_t_k(const Tensor& self, const Tensor& b) {
  return clamp_tensor(Min ? "clamp_min" : "clamp_max", Tensor(), self, Min ? OptTensor(b) : std::nullopt,
                      Min ? std::nullopt : OptTensor(b));
}
template <bool Min>
Tensor& clamp1_t_inplace_k(Tensor& self, const Tensor& b) {
  clamp_tensor(Min ? "clamp_min_" : "clamp_max_", self, self, Min ? OptTensor(b) : std::nullopt,
               Min ? std::nullopt : OptTensor(b));
  return self;
}
template <bool Min>
Tensor& clamp1_t_out_k(const Tensor& self, const Tensor& b, Tensor& out) {
  clamp_tensor(Min ? "clamp_min" : "clamp_max", out, self, Min ? OptTensor(b) : std::nullopt,
               Min ? std::nullopt : OptTensor(b));
  return out;
}

// ---------------------------------------------------------------- lerp
// self + weight (end - self); all operands of one floating or complex dtype.
Tensor lerp_impl(const char* name, const Tensor& out, const Tensor& self, const Tensor& end, const Tensor& weight,
                 bool weight_is_scalar) {
  EMBER_CHECK(self.defined() && end.defined() && weight.defined(), ValueError, name, "(): got an undefined tensor");
  EMBER_CHECK(end.dtype() == self.dtype(), RuntimeError, name, "(): expected dtype ", self.dtype(),
              " for `end` but got dtype ", end.dtype());
  if (!weight_is_scalar)
    EMBER_CHECK(weight.dtype() == self.dtype(), RuntimeError, name, "(): expected dtype ", self.dtype(),
                " for `weight` but got dtype ", weight.dtype());
  const ScalarType dt = self.dtype();
  EMBER_CHECK(is_floating_point(dt) || is_complex(dt), RuntimeError, name, "(): \"lerp\" not implemented for '", dt, "'");
  check_no_half(name, "lerp", dt);
  const Tensor w = weight_is_scalar && weight.dtype() != dt ? weight.to(dt) : weight;
  return run_pointwise(name, out, {self, end, w}, IterConfig{},
                       [](const ElementwiseIter& it) { cpu::ternary_stub(it, TernaryOp::Lerp, 1); });
}
Tensor lerp_s_k(const Tensor& self, const Tensor& end, const Scalar& w) {
  return lerp_impl("lerp", Tensor(), self, end, wrapped_scalar(w), true);
}
Tensor lerp_t_k(const Tensor& self, const Tensor& end, const Tensor& w) {
  return lerp_impl("lerp", Tensor(), self, end, w, false);
}
Tensor& lerp_s_inplace_k(Tensor& self, const Tensor& end, const Scalar& w) {
  lerp_impl("lerp_", self, self, end, wrapped_scalar(w), true);
  return self;
}
Tensor& lerp_t_inplace_k(Tensor& self, const Tensor& end, const Tensor& w) {
  lerp_impl("lerp_", self, self, end, w, false);
  return self;
}
Tensor& lerp_s_out_k(const Tensor& self, const Tensor& end, const Scalar& w, Tensor& out) {
  lerp_impl("lerp", out, self, end, wrapped_scalar(w), true);
  return out;
}
Tensor& lerp_t_out_k(const Tensor& self, const Tensor& end, const Tensor& w, Tensor& out) {
  lerp_impl("lerp", out, self, end, w, false);
  return out;
}

// ---------------------------------------------------------------- addcmul, addcdiv
// self + value * tensor1 * tensor2 (or / tensor2), in the promoted dtype of the three.
template <bool Div>
Tensor addc_impl(const char* name, const Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2,
                 const Scalar& value) {
  EMBER_CHECK(self.defined() && t1.defined() && t2.defined(), ValueError, name, "(): got an undefined tensor");
  const Tensor all[] = {self, t1, t2};
  const ScalarType dt = result_type(TensorList(all, 3));
  if constexpr (Div) {
    EMBER_CHECK(!is_integral(t1.dtype(), true) || !is_integral(t2.dtype(), true), RuntimeError,
                "Integer division with addcdiv is no longer supported, and in a future release addcdiv will "
                "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
                "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer "
                "inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv "
                "behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes.");
  }
  EMBER_CHECK(dt != kBool, RuntimeError, name, "(): \"", Div ? "addcdiv" : "addcmul", "\" not implemented for 'Bool'");
  check_no_half(name, Div ? "addcdiv" : "addcmul", dt);
  // A float value on integers is truncated toward zero, as in PyTorch.
  const TernaryOp op = Div ? TernaryOp::Addcdiv : TernaryOp::Addcmul;
  return run_pointwise(name, out, {self, t1, t2}, IterConfig{},
                       [op, &value](const ElementwiseIter& it) { cpu::ternary_stub(it, op, value); });
}
using AddcSig = Tensor(const Tensor&, const Tensor&, const Tensor&, const Scalar&);
using AddcInplaceSig = Tensor&(Tensor&, const Tensor&, const Tensor&, const Scalar&);
using AddcOutSig = Tensor&(const Tensor&, const Tensor&, const Tensor&, const Scalar&, Tensor&);
template <bool Div>
Tensor addc_k(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& v) {
  return addc_impl<Div>(Div ? "addcdiv" : "addcmul", Tensor(), self, a, b, v);
}
template <bool Div>
Tensor& addc_inplace_k(Tensor& self, const Tensor& a, const Tensor& b, const Scalar& v) {
  addc_impl<Div>(Div ? "addcdiv_" : "addcmul_", self, self, a, b, v);
  return self;
}
template <bool Div>
Tensor& addc_out_k(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& v, Tensor& out) {
  addc_impl<Div>(Div ? "addcdiv" : "addcmul", out, self, a, b, v);
  return out;
}

// ---------------------------------------------------------------- isclose, allclose, equal
Tensor isclose_k(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  EMBER_CHECK(self.defined() && other.defined(), ValueError, "isclose(): got an undefined tensor");
  EMBER_CHECK(self.dtype() == other.dtype(), RuntimeError, self.dtype(), " did not match ", other.dtype());
  EMBER_CHECK(!(equal_nan && is_complex(self.dtype())), RuntimeError,
              "isclose with equal_nan=True is not supported for complex inputs.");
  EMBER_CHECK(rtol >= 0, RuntimeError, "rtol must be greater than or equal to zero, but got ", rtol);
  EMBER_CHECK(atol >= 0, RuntimeError, "atol must be greater than or equal to zero, but got ", atol);
  IterConfig cfg;
  cfg.output_dtype = kBool;
  return run_pointwise("isclose", Tensor(), {self, other}, cfg, [=](const ElementwiseIter& it) {
    cpu::isclose_stub(it, rtol, atol, equal_nan);
  });
}

// Every element of a bool tensor true (read on the CPU).
bool all_true(const Tensor& t) {
  EMBER_CHECK(!t.is_meta(), NotImplementedError, "cannot compute a Python bool from Meta tensors");
  const Tensor c = t.to(kCPU).contiguous();
  const bool* p = c.data_ptr<bool>();
  for (int64_t i = 0; i < c.numel(); ++i)
    if (!p[i]) return false;
  return true;
}

bool allclose_k(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  return all_true(isclose(self, other, rtol, atol, equal_nan));
}

bool equal_k(const Tensor& self, const Tensor& other) {
  EMBER_CHECK(self.defined() && other.defined(), ValueError, "equal(): got an undefined tensor");
  if (!self.sizes().equals(other.sizes())) return false;
  return all_true(eq(self, other));
}

using ClampSig = Tensor(const Tensor&, const OptScalar&, const OptScalar&);
using ClampInplaceSig = Tensor&(Tensor&, const OptScalar&, const OptScalar&);
using ClampOutSig = Tensor&(const Tensor&, const OptScalar&, const OptScalar&, Tensor&);
using ClampTSig = Tensor(const Tensor&, const OptTensor&, const OptTensor&);
using ClampTInplaceSig = Tensor&(Tensor&, const OptTensor&, const OptTensor&);
using ClampTOutSig = Tensor&(const Tensor&, const OptTensor&, const OptTensor&, Tensor&);
using C1Sig = Tensor(const Tensor&, const Scalar&);
using C1InplaceSig = Tensor&(Tensor&, const Scalar&);
using C1OutSig = Tensor&(const Tensor&, const Scalar&, Tensor&);
using C1TSig = Tensor(const Tensor&, const Tensor&);
using C1TInplaceSig = Tensor&(Tensor&, const Tensor&);
using C1TOutSig = Tensor&(const Tensor&, const Tensor&, Tensor&);
using LerpSSig = Tensor(const Tensor&, const Tensor&, const Scalar&);
using LerpTSig = Tensor(const Tensor&, const Tensor&, const Tensor&);
using LerpSInplaceSig = Tensor&(Tensor&, const Tensor&, const Scalar&);
using LerpTInplaceSig = Tensor&(Tensor&, const Tensor&, const Tensor&);
using LerpSOutSig = Tensor&(const Tensor&, const Tensor&, const Scalar&, Tensor&);
using LerpTOutSig = Tensor&(const Tensor&, const Tensor&, const Tensor&, Tensor&);
using IsCloseSig = Tensor(const Tensor&, const Tensor&, double, double, bool);
using AllCloseSig = bool(const Tensor&, const Tensor&, double, double, bool);
using EqualSig = bool(const Tensor&, const Tensor&);

template <const char* N>
void define_clamp() {
  const std::string n = N;
  define_op<ClampSig>(n + "(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", pw);
  define_op<ClampTSig>(n + ".Tensor(Tensor self, Tensor? min=None, Tensor? max=None) -> Tensor", pw);
  define_op<ClampInplaceSig>(n + "_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)", pwi);
  define_op<ClampTInplaceSig>(n + "_.Tensor(Tensor(a!) self, Tensor? min=None, Tensor? max=None) -> Tensor(a!)", pwi);
  define_op<ClampOutSig>(n + ".out(Tensor self, Scalar? min=None, Scalar? max=None, *, Tensor(a!) out) -> Tensor(a!)", pw);
  define_op<ClampTOutSig>(
      n + ".Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out) -> Tensor(a!)", pw);
  register_cpu_meta<ClampSig, &clamp_k<N>>(n);
  register_cpu_meta<ClampTSig, &clamp_t_k<N>>(n + ".Tensor");
  register_cpu_meta<ClampInplaceSig, &clamp_inplace_k<N>>(n + "_");
  register_cpu_meta<ClampTInplaceSig, &clamp_t_inplace_k<N>>(n + "_.Tensor");
  register_cpu_meta<ClampOutSig, &clamp_out_k<N>>(n + ".out");
  register_cpu_meta<ClampTOutSig, &clamp_t_out_k<N>>(n + ".Tensor_out");
}

template <bool Min>
void define_clamp1() {
  const std::string n = Min ? "clamp_min" : "clamp_max";
  const std::string arg = Min ? "min" : "max";
  define_op<C1Sig>(n + "(Tensor self, Scalar " + arg + ") -> Tensor", pw);
  define_op<C1TSig>(n + ".Tensor(Tensor self, Tensor " + arg + ") -> Tensor", pw);
  define_op<C1InplaceSig>(n + "_(Tensor(a!) self, Scalar " + arg + ") -> Tensor(a!)", pwi);
  define_op<C1TInplaceSig>(n + "_.Tensor(Tensor(a!) self, Tensor " + arg + ") -> Tensor(a!)", pwi);
  define_op<C1OutSig>(n + ".out(Tensor self, Scalar " + arg + ", *, Tensor(a!) out) -> Tensor(a!)", pw);
  define_op<C1TOutSig>(n + ".Tensor_out(Tensor self, Tensor " + arg + ", *, Tensor(a!) out) -> Tensor(a!)", pw);
  register_cpu_meta<C1Sig, &clamp1_k<Min>>(n);
  register_cpu_meta<C1TSig, &clamp1_t_k<Min>>(n + ".Tensor");
  register_cpu_meta<C1InplaceSig, &clamp1_inplace_k<Min>>(n + "_");
  register_cpu_meta<C1TInplaceSig, &clamp1_t_inplace_k<Min>>(n + "_.Tensor");
  register_cpu_meta<C1OutSig, &clamp1_out_k<Min>>(n + ".out");
  register_cpu_meta<C1TOutSig, &clamp1_t_out_k<Min>>(n + ".Tensor_out");
}

template <bool Div>
void define_addc() {
  const std::string n = Div ? "addcdiv" : "addcmul";
  define_op<AddcSig>(n + "(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor", pw);
  define_op<AddcInplaceSig>(
      n + "_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)", pwi);
  define_op<AddcOutSig>(
      n + ".out(Tensor self, Tensor tensor1, Tensor tensor2, *, Scalar value=1, Tensor(a!) out) -> Tensor(a!)", pw);
  register_cpu_meta<AddcSig, &addc_k<Div>>(n);
  register_cpu_meta<AddcInplaceSig, &addc_inplace_k<Div>>(n + "_");
  register_cpu_meta<AddcOutSig, &addc_out_k<Div>>(n + ".out");
}

}  // namespace

// ---------------------------------------------------------------- front functions
#define EMBER_CALL(Sig, name, ...)    \
  static const TypedOp<Sig> op(name); \
  return op.call(__VA_ARGS__)
Tensor clamp(const Tensor& self, const OptScalar& min, const OptScalar& max) { EMBER_CALL(ClampSig, "clamp", self, min, max); }
Tensor clamp(const Tensor& self, const OptTensor& min, const OptTensor& max) {
  EMBER_CALL(ClampTSig, "clamp.Tensor", self, min, max);
}
Tensor& clamp_(Tensor& self, const OptScalar& min, const OptScalar& max) { EMBER_CALL(ClampInplaceSig, "clamp_", self, min, max); }
Tensor& clamp_out(Tensor& out, const Tensor& self, const OptScalar& min, const OptScalar& max) {
  EMBER_CALL(ClampOutSig, "clamp.out", self, min, max, out);
}
Tensor clamp_min(const Tensor& self, const Scalar& min) { EMBER_CALL(C1Sig, "clamp_min", self, min); }
Tensor clamp_max(const Tensor& self, const Scalar& max) { EMBER_CALL(C1Sig, "clamp_max", self, max); }
Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight) { EMBER_CALL(LerpTSig, "lerp.Tensor", self, end, weight); }
Tensor lerp(const Tensor& self, const Tensor& end, const Scalar& weight) { EMBER_CALL(LerpSSig, "lerp.Scalar", self, end, weight); }
Tensor addcmul(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  EMBER_CALL(AddcSig, "addcmul", self, t1, t2, value);
}
Tensor& addcmul_out(Tensor& out, const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  EMBER_CALL(AddcOutSig, "addcmul.out", self, t1, t2, value, out);
}
Tensor addcdiv(const Tensor& self, const Tensor& t1, const Tensor& t2, const Scalar& value) {
  EMBER_CALL(AddcSig, "addcdiv", self, t1, t2, value);
}
Tensor isclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  EMBER_CALL(IsCloseSig, "isclose", self, other, rtol, atol, equal_nan);
}
bool allclose(const Tensor& self, const Tensor& other, double rtol, double atol, bool equal_nan) {
  EMBER_CALL(AllCloseSig, "allclose", self, other, rtol, atol, equal_nan);
}
bool equal(const Tensor& self, const Tensor& other) { EMBER_CALL(EqualSig, "equal", self, other); }
#undef EMBER_CALL

EMBER_REGISTER(pointwise_ternary_ops) {
  define_clamp<kClamp>();
  define_clamp<kClip>();
  define_clamp1<true>();
  define_clamp1<false>();

  define_op<LerpSSig>("lerp.Scalar(Tensor self, Tensor end, Scalar weight) -> Tensor", pw);
  define_op<LerpTSig>("lerp.Tensor(Tensor self, Tensor end, Tensor weight) -> Tensor", pw);
  define_op<LerpSInplaceSig>("lerp_.Scalar(Tensor(a!) self, Tensor end, Scalar weight) -> Tensor(a!)", pwi);
  define_op<LerpTInplaceSig>("lerp_.Tensor(Tensor(a!) self, Tensor end, Tensor weight) -> Tensor(a!)", pwi);
  define_op<LerpSOutSig>("lerp.Scalar_out(Tensor self, Tensor end, Scalar weight, *, Tensor(a!) out) -> Tensor(a!)", pw);
  define_op<LerpTOutSig>("lerp.Tensor_out(Tensor self, Tensor end, Tensor weight, *, Tensor(a!) out) -> Tensor(a!)", pw);
  register_cpu_meta<LerpSSig, &lerp_s_k>("lerp.Scalar");
  register_cpu_meta<LerpTSig, &lerp_t_k>("lerp.Tensor");
  register_cpu_meta<LerpSInplaceSig, &lerp_s_inplace_k>("lerp_.Scalar");
  register_cpu_meta<LerpTInplaceSig, &lerp_t_inplace_k>("lerp_.Tensor");
  register_cpu_meta<LerpSOutSig, &lerp_s_out_k>("lerp.Scalar_out");
  register_cpu_meta<LerpTOutSig, &lerp_t_out_k>("lerp.Tensor_out");

  define_addc<false>();
  define_addc<true>();

  define_op<IsCloseSig>(
      "isclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> Tensor", pw);
  register_cpu_meta<IsCloseSig, &isclose_k>("isclose");
  define_op<AllCloseSig>(
      "allclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> bool", 0u);
  register_composite<AllCloseSig, &allclose_k>("allclose");
  define_op<EqualSig>("equal(Tensor self, Tensor other) -> bool", 0u);
  register_composite<EqualSig, &equal_k>("equal");
}

}  // namespace ember
