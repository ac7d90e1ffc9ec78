// Unary pointwise ops with parameters: round(decimals), polygamma, logit, nan_to_num and
// the parameterized activations (gelu, hardtanh, relu6, leaky_relu, elu, selu, celu,
// softplus). Each has PyTorch's functional, in-place and out= forms where PyTorch has them.
#include <cmath>
#include <limits>

#include "ember/ops/pointwise.h"
#include "ops/unary.h"

namespace ember {

namespace {

using namespace unary;
using cpu::UnaryOp;
using cpu::UnaryParams;

constexpr uint32_t kPointwise = static_cast<uint32_t>(Tag::Pointwise);
constexpr uint32_t pw_inplace = Tag::Pointwise | Tag::Inplace;

// The tensor written: undefined (functional), self (in-place) or out.
struct Target {
  Tensor out;
  bool inplace;
};
const Target kFunctional{Tensor(), false};

// ---------------------------------------------------------------- round
constexpr UnaryDef kRound{"round", UnaryOp::Round, Result::Keep, kInts | kFloatsNoHalf};
constexpr UnaryDef kRoundDecimals{"round", UnaryOp::Round, Result::Keep, kFloatsNoHalf};

Tensor round_impl(const char* name, Target t, const Tensor& self, std::optional<int64_t> decimals) {
  UnaryParams p;
  p.n = decimals.value_or(0);
  return run_unary(decimals ? kRoundDecimals : kRound, name, t.out, self, t.inplace, p);
}
Tensor round_k(const Tensor& self) { return round_impl("round", kFunctional, self, std::nullopt); }
Tensor& round_inplace_k(Tensor& self) { round_impl("round_", {self, true}, self, std::nullopt); return self; }
Tensor& round_out_k(const Tensor& self, Tensor& out) { round_impl("round", {out, false}, self, std::nullopt); return out; }
Tensor round_dec_k(const Tensor& self, int64_t d) { return round_impl("round", kFunctional, self, d); }
Tensor& round_dec_inplace_k(Tensor& self, int64_t d) { round_impl("round_", {self, true}, self, d); return self; }
Tensor& round_dec_out_k(const Tensor& self, int64_t d, Tensor& out) { round_impl("round", {out, false}, self, d); return out; }

// ---------------------------------------------------------------- polygamma
constexpr UnaryDef kPolygamma{"polygamma", UnaryOp::Polygamma, Result::Float, kRealNoHalf};
Tensor polygamma_impl(const char* name, Target t, int64_t n, const Tensor& self) {
  EMBER_CHECK(n >= 0, RuntimeError, name, "(): polygamma(n, x) does not support negative n.");
  UnaryParams p;
  p.n = n;
  return run_unary(kPolygamma, name, t.out, self, t.inplace, p);
}
Tensor polygamma_k(int64_t n, const Tensor& self) { return polygamma_impl("polygamma", kFunctional, n, self); }
Tensor& polygamma_out_k(int64_t n, const Tensor& self, Tensor& out) {
  polygamma_impl("polygamma", {out, false}, n, self);
  return out;
}
Tensor& polygamma_inplace_k(Tensor& self, int64_t n) {
  polygamma_impl("polygamma_", {self, true}, n, self);
  return self;
}

// ---------------------------------------------------------------- logit
constexpr UnaryDef kLogit{"logit", UnaryOp::Logit, Result::Float, kRealNoHalf};
Tensor logit_impl(const char* name, Target t, const Tensor& self, std::optional<double> eps) {
  UnaryParams p;
  if (eps && *eps >= 0) {  // PyTorch ignores a negative eps
    p.a = *eps;
    p.b = 1;
  }
  return run_unary(kLogit, name, t.out, self, t.inplace, p);
}
Tensor logit_k(const Tensor& self, std::optional<double> eps) { return logit_impl("logit", kFunctional, self, eps); }
Tensor& logit_inplace_k(Tensor& self, std::optional<double> eps) {
  logit_impl("logit_", {self, true}, self, eps);
  return self;
}
Tensor& logit_out_k(const Tensor& self, std::optional<double> eps, Tensor& out) {
  logit_impl("logit", {out, false}, self, eps);
  return out;
}

// ---------------------------------------------------------------- nan_to_num
constexpr UnaryDef kNanToNum{"nan_to_num", UnaryOp::NanToNum, Result::Keep, kReal,
                             "nan_to_num is not supported for complex inputs."};
// The largest finite value of a floating dtype.
double max_finite(ScalarType dt) {
  switch (dt) {
    case kHalf: return 65504.0;
    case kBFloat16: return 3.3895313892515355e38;
    case kFloat: return std::numeric_limits<float>::max();
    default: return std::numeric_limits<double>::max();
  }
}
Tensor nan_to_num_impl(const char* name, Target t, const Tensor& self, std::optional<double> nan,
                       std::optional<double> posinf, std::optional<double> neginf) {
  EMBER_CHECK(self.defined(), ValueError, name, "(): got an undefined tensor");
  UnaryParams p;
  const double big = max_finite(self.dtype());
  p.a = nan.value_or(0.0);
  p.b = posinf.value_or(big);
  p.c = neginf.value_or(-big);
  return run_unary(kNanToNum, name, t.out, self, t.inplace, p);
}
using NanSig = Tensor(const Tensor&, std::optional<double>, std::optional<double>, std::optional<double>);
using NanInplaceSig = Tensor&(Tensor&, std::optional<double>, std::optional<double>, std::optional<double>);
using NanOutSig = Tensor&(const Tensor&, std::optional<double>, std::optional<double>, std::optional<double>, Tensor&);
Tensor nan_to_num_k(const Tensor& self, std::optional<double> a, std::optional<double> b, std::optional<double> c) {
  return nan_to_num_impl("nan_to_num", kFunctional, self, a, b, c);
}
Tensor& nan_to_num_inplace_k(Tensor& self, std::optional<double> a, std::optional<double> b, std::optional<double> c) {
  nan_to_num_impl("nan_to_num_", {self, true}, self, a, b, c);
  return self;
}
Tensor& nan_to_num_out_k(const Tensor& self, std::optional<double> a, std::optional<double> b,
                         std::optional<double> c, Tensor& out) {
  nan_to_num_impl("nan_to_num", {out, false}, self, a, b, c);
  return out;
}

// ---------------------------------------------------------------- activations
// hardtanh (and relu6) clamp in the input's dtype; integers are allowed, as in PyTorch.
constexpr UnaryDef kHardtanh{"hardtanh", UnaryOp::Clamp, Result::Keep, kInts | kFloatsNoHalf};
Tensor hardtanh_impl(const char* name, Target t, const Tensor& self, const Scalar& lo, const Scalar& hi) {
  EMBER_CHECK(self.defined(), ValueError, name, "(): got an undefined tensor");
  EMBER_CHECK(!(self.dtype() == kUInt8 && (lo.to_double() < 0 || hi.to_double() < 0)), RuntimeError, name,
              "(): cannot do hardtanh on an unsigned type with negative limits");
  UnaryParams p;
  p.lo = lo;
  p.hi = hi;
  p.has_lo = p.has_hi = true;
  return run_unary(kHardtanh, name, t.out, self, t.inplace, p);
}
Tensor hardtanh_k(const Tensor& self, const Scalar& lo, const Scalar& hi) {
  return hardtanh_impl("hardtanh", kFunctional, self, lo, hi);
}
Tensor& hardtanh_inplace_k(Tensor& self, const Scalar& lo, const Scalar& hi) {
  hardtanh_impl("hardtanh_", {self, true}, self, lo, hi);
  return self;
}
Tensor& hardtanh_out_k(const Tensor& self, const Scalar& lo, const Scalar& hi, Tensor& out) {
  hardtanh_impl("hardtanh", {out, false}, self, lo, hi);
  return out;
}
Tensor relu6_k(const Tensor& self) { return hardtanh_impl("relu6", kFunctional, self, 0, 6); }
Tensor& relu6_inplace_k(Tensor& self) {
  hardtanh_impl("relu6_", {self, true}, self, 0, 6);
  return self;
}

constexpr UnaryDef kGelu{"gelu", UnaryOp::Gelu, Result::Keep, kFloatsNoHalf};
constexpr UnaryDef kGeluTanh{"gelu", UnaryOp::GeluTanh, Result::Keep, kFloatsNoHalf};
const UnaryDef& gelu_def(const char* name, std::string_view approximate) {
  if (approximate == "none") return kGelu;
  if (approximate == "tanh") return kGeluTanh;
  EMBER_FAIL(RuntimeError, name, "(): approximate argument must be either none or tanh, got '", approximate, "'");
}
Tensor gelu_k(const Tensor& self, std::string_view a) {
  return run_unary(gelu_def("gelu", a), "gelu", Tensor(), self, false);
}
Tensor& gelu_inplace_k(Tensor& self, std::string_view a) {
  run_unary(gelu_def("gelu_", a), "gelu_", self, self, true);
  return self;
}
Tensor& gelu_out_k(const Tensor& self, std::string_view a, Tensor& out) {
  run_unary(gelu_def("gelu", a), "gelu", out, self, false);
  return out;
}

constexpr UnaryDef kLeakyRelu{"leaky_relu", UnaryOp::LeakyRelu, Result::Keep, kFloatsNoHalf};
Tensor leaky_relu_impl(const char* name, Target t, const Tensor& self, const Scalar& slope) {
  UnaryParams p;
  p.a = slope.to_double();
  return run_unary(kLeakyRelu, name, t.out, self, t.inplace, p);
}
Tensor leaky_relu_k(const Tensor& self, const Scalar& s) { return leaky_relu_impl("leaky_relu", kFunctional, self, s); }
Tensor& leaky_relu_inplace_k(Tensor& self, const Scalar& s) {
  leaky_relu_impl("leaky_relu_", {self, true}, self, s);
  return self;
}
Tensor& leaky_relu_out_k(const Tensor& self, const Scalar& s, Tensor& out) {
  leaky_relu_impl("leaky_relu", {out, false}, self, s);
  return out;
}

// elu(x) = scale x for x > 0, alpha scale (e^{input_scale x} - 1) otherwise; selu and celu
// are elus with fixed or derived coefficients.
constexpr UnaryDef kElu{"elu", UnaryOp::Elu, Result::Keep, kFloatsNoHalf};
Tensor elu_impl(const char* name, Target t, const Tensor& self, double alpha, double scale, double input_scale) {
  UnaryParams p;
  p.a = alpha;
  p.b = scale;
  p.c = input_scale;
  return run_unary(kElu, name, t.out, self, t.inplace, p);
}
using EluSig = Tensor(const Tensor&, const Scalar&, const Scalar&, const Scalar&);
using EluInplaceSig = Tensor&(Tensor&, const Scalar&, const Scalar&, const Scalar&);
using EluOutSig = Tensor&(const Tensor&, const Scalar&, const Scalar&, const Scalar&, Tensor&);
Tensor elu_k(const Tensor& self, const Scalar& a, const Scalar& s, const Scalar& i) {
  return elu_impl("elu", kFunctional, self, a.to_double(), s.to_double(), i.to_double());
}
Tensor& elu_inplace_k(Tensor& self, const Scalar& a, const Scalar& s, const Scalar& i) {
  elu_impl("elu_", {self, true}, self, a.to_double(), s.to_double(), i.to_double());
  return self;
}
Tensor& elu_out_k(const Tensor& self, const Scalar& a, const Scalar& s, const Scalar& i, Tensor& out) {
  elu_impl("elu", {out, false}, self, a.to_double(), s.to_double(), i.to_double());
  return out;
}
constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluScale = 1.0507009873554804934193349852946;
Tensor selu_k(const Tensor& self) { return elu_impl("selu", kFunctional, self, kSeluAlpha, kSeluScale, 1.0); }
Tensor& selu_inplace_k(Tensor& self) {
  elu_impl("selu_", {self, true}, self, kSeluAlpha, kSeluScale, 1.0);
  return self;
}
Tensor celu_impl(const char* name, Target t, const Tensor& self, const Scalar& alpha) {
  const double a = alpha.to_double();
  EMBER_CHECK(a != 0, RuntimeError, name, "(): ZeroDivisionError");
  return elu_impl(name, t, self, a, 1.0, 1.0 / a);
}
Tensor celu_k(const Tensor& self, const Scalar& a) { return celu_impl("celu", kFunctional, self, a); }
Tensor& celu_inplace_k(Tensor& self, const Scalar& a) {
  celu_impl("celu_", {self, true}, self, a);
  return self;
}

constexpr UnaryDef kSoftplus{"softplus", UnaryOp::Softplus, Result::Keep, kFloatsNoHalf};
Tensor softplus_impl(const char* name, Target t, const Tensor& self, const Scalar& beta, const Scalar& threshold) {
  UnaryParams p;
  p.a = beta.to_double();
  p.b = threshold.to_double();
  return run_unary(kSoftplus, name, t.out, self, t.inplace, p);
}
Tensor softplus_k(const Tensor& self, const Scalar& b, const Scalar& th) {
  return softplus_impl("softplus", kFunctional, self, b, th);
}
Tensor& softplus_out_k(const Tensor& self, const Scalar& b, const Scalar& th, Tensor& out) {
  softplus_impl("softplus", {out, false}, self, b, th);
  return out;
}

using USig = Tensor(const Tensor&);
using UInplaceSig = Tensor&(Tensor&);
using UOutSig = Tensor&(const Tensor&, Tensor&);
using IntSig = Tensor(const Tensor&, int64_t);
using IntInplaceSig = Tensor&(Tensor&, int64_t);
using IntOutSig = Tensor&(const Tensor&, int64_t, Tensor&);
using EpsSig = Tensor(const Tensor&, std::optional<double>);
using EpsInplaceSig = Tensor&(Tensor&, std::optional<double>);
using EpsOutSig = Tensor&(const Tensor&, std::optional<double>, Tensor&);
using TwoScalarSig = Tensor(const Tensor&, const Scalar&, const Scalar&);
using TwoScalarInplaceSig = Tensor&(Tensor&, const Scalar&, const Scalar&);
using TwoScalarOutSig = Tensor&(const Tensor&, const Scalar&, const Scalar&, Tensor&);
using ScalarSig = Tensor(const Tensor&, const Scalar&);
using ScalarInplaceSig = Tensor&(Tensor&, const Scalar&);
using ScalarOutSig = Tensor&(const Tensor&, const Scalar&, Tensor&);
using StrSig = Tensor(const Tensor&, std::string_view);
using StrInplaceSig = Tensor&(Tensor&, std::string_view);
using StrOutSig = Tensor&(const Tensor&, std::string_view, Tensor&);
using PolySig = Tensor(int64_t, const Tensor&);
using PolyOutSig = Tensor&(int64_t, const Tensor&, Tensor&);

}  // namespace

// ---------------------------------------------------------------- front functions
#define EMBER_CALL(Sig, name, ...)    \
  static const TypedOp<Sig> op(name); \
  return op.call(__VA_ARGS__)
Tensor round(const Tensor& self, int64_t decimals) {
  if (decimals == 0) { EMBER_CALL(USig, "round", self); }
  EMBER_CALL(IntSig, "round.decimals", self, decimals);
}
Tensor& round_out(Tensor& out, const Tensor& self, int64_t decimals) {
  if (decimals == 0) { EMBER_CALL(UOutSig, "round.out", self, out); }
  EMBER_CALL(IntOutSig, "round.decimals_out", self, decimals, out);
}
Tensor& round_(Tensor& self, int64_t decimals) {
  if (decimals == 0) { EMBER_CALL(UInplaceSig, "round_", self); }
  EMBER_CALL(IntInplaceSig, "round_.decimals", self, decimals);
}
Tensor polygamma(int64_t n, const Tensor& self) { EMBER_CALL(PolySig, "polygamma", n, self); }
Tensor& polygamma_out(Tensor& out, int64_t n, const Tensor& self) { EMBER_CALL(PolyOutSig, "polygamma.out", n, self, out); }
Tensor logit(const Tensor& self, std::optional<double> eps) { EMBER_CALL(EpsSig, "logit", self, eps); }
Tensor& logit_out(Tensor& out, const Tensor& self, std::optional<double> eps) {
  EMBER_CALL(EpsOutSig, "logit.out", self, eps, out);
}
Tensor nan_to_num(const Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                  std::optional<double> neginf) {
  EMBER_CALL(NanSig, "nan_to_num", self, nan, posinf, neginf);
}
Tensor& nan_to_num_(Tensor& self, std::optional<double> nan, std::optional<double> posinf,
                    std::optional<double> neginf) {
  EMBER_CALL(NanInplaceSig, "nan_to_num_", self, nan, posinf, neginf);
}
Tensor gelu(const Tensor& self, std::string_view approximate) { EMBER_CALL(StrSig, "gelu", self, approximate); }
Tensor hardtanh(const Tensor& self, const Scalar& lo, const Scalar& hi) { EMBER_CALL(TwoScalarSig, "hardtanh", self, lo, hi); }
Tensor relu6(const Tensor& self) { EMBER_CALL(USig, "relu6", self); }
Tensor leaky_relu(const Tensor& self, const Scalar& s) { EMBER_CALL(ScalarSig, "leaky_relu", self, s); }
Tensor elu(const Tensor& self, const Scalar& a, const Scalar& s, const Scalar& i) { EMBER_CALL(EluSig, "elu", self, a, s, i); }
Tensor selu(const Tensor& self) { EMBER_CALL(USig, "selu", self); }
Tensor celu(const Tensor& self, const Scalar& a) { EMBER_CALL(ScalarSig, "celu", self, a); }
Tensor softplus(const Tensor& self, const Scalar& b, const Scalar& t) { EMBER_CALL(TwoScalarSig, "softplus", self, b, t); }
#undef EMBER_CALL

EMBER_REGISTER(unary_param_ops) {
  define_op<USig>("round(Tensor self) -> Tensor", kPointwise);
  define_op<IntSig>("round.decimals(Tensor self, *, int decimals) -> Tensor", kPointwise);
  define_op<UInplaceSig>("round_(Tensor(a!) self) -> Tensor(a!)", pw_inplace);
  define_op<IntInplaceSig>("round_.decimals(Tensor(a!) self, *, int decimals) -> Tensor(a!)", pw_inplace);
  define_op<UOutSig>("round.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", kPointwise);
  define_op<IntOutSig>("round.decimals_out(Tensor self, *, int decimals, Tensor(a!) out) -> Tensor(a!)", kPointwise);
  register_cpu_meta<USig, &round_k>("round");
  register_cpu_meta<IntSig, &round_dec_k>("round.decimals");
  register_cpu_meta<UInplaceSig, &round_inplace_k>("round_");
  register_cpu_meta<IntInplaceSig, &round_dec_inplace_k>("round_.decimals");
  register_cpu_meta<UOutSig, &round_out_k>("round.out");
  register_cpu_meta<IntOutSig, &round_dec_out_k>("round.decimals_out");

  define_op<PolySig>("polygamma(int n, Tensor self) -> Tensor", kPointwise);
  define_op<PolyOutSig>("polygamma.out(int n, Tensor self, *, Tensor(a!) out) -> Tensor(a!)", kPointwise);
  define_op<IntInplaceSig>("polygamma_(Tensor(a!) self, int n) -> Tensor(a!)", pw_inplace);
  register_cpu_meta<PolySig, &polygamma_k>("polygamma");
  register_cpu_meta<PolyOutSig, &polygamma_out_k>("polygamma.out");
  register_cpu_meta<IntInplaceSig, &polygamma_inplace_k>("polygamma_");

  define_op<EpsSig>("logit(Tensor self, float? eps=None) -> Tensor", kPointwise);
  define_op<EpsInplaceSig>("logit_(Tensor(a!) self, float? eps=None) -> Tensor(a!)", pw_inplace);
  define_op<EpsOutSig>("logit.out(Tensor self, float? eps=None, *, Tensor(a!) out) -> Tensor(a!)", kPointwise);
  register_cpu_meta<EpsSig, &logit_k>("logit");
  register_cpu_meta<EpsInplaceSig, &logit_inplace_k>("logit_");
  register_cpu_meta<EpsOutSig, &logit_out_k>("logit.out");

  define_op<NanSig>("nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor", kPointwise);
  define_op<NanInplaceSig>(
      "nan_to_num_(Tensor(a!) self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor(a!)", pw_inplace);
  define_op<NanOutSig>("nan_to_num.out(Tensor self, float? nan=None, float? posinf=None, float? neginf=None, *, "
                       "Tensor(a!) out) -> Tensor(a!)", kPointwise);
  register_cpu_meta<NanSig, &nan_to_num_k>("nan_to_num");
  register_cpu_meta<NanInplaceSig, &nan_to_num_inplace_k>("nan_to_num_");
  register_cpu_meta<NanOutSig, &nan_to_num_out_k>("nan_to_num.out");

  define_op<TwoScalarSig>("hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor", kPointwise);
  define_op<TwoScalarInplaceSig>("hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> Tensor(a!)", pw_inplace);
  define_op<TwoScalarOutSig>(
      "hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out) -> Tensor(a!)", kPointwise);
  register_cpu_meta<TwoScalarSig, &hardtanh_k>("hardtanh");
  register_cpu_meta<TwoScalarInplaceSig, &hardtanh_inplace_k>("hardtanh_");
  register_cpu_meta<TwoScalarOutSig, &hardtanh_out_k>("hardtanh.out");
  define_op<USig>("relu6(Tensor self) -> Tensor", kPointwise);
  define_op<UInplaceSig>("relu6_(Tensor(a!) self) -> Tensor(a!)", pw_inplace);
  register_cpu_meta<USig, &relu6_k>("relu6");
  register_cpu_meta<UInplaceSig, &relu6_inplace_k>("relu6_");

  define_op<StrSig>("gelu(Tensor self, *, str approximate='none') -> Tensor", kPointwise);
  define_op<StrInplaceSig>("gelu_(Tensor(a!) self, *, str approximate='none') -> Tensor(a!)", pw_inplace);
  define_op<StrOutSig>("gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out) -> Tensor(a!)", kPointwise);
  register_cpu_meta<StrSig, &gelu_k>("gelu");
  register_cpu_meta<StrInplaceSig, &gelu_inplace_k>("gelu_");
  register_cpu_meta<StrOutSig, &gelu_out_k>("gelu.out");

  define_op<ScalarSig>("leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor", kPointwise);
  define_op<ScalarInplaceSig>("leaky_relu_(Tensor(a!) self, Scalar negative_slope=0.01) -> Tensor(a!)", pw_inplace);
  define_op<ScalarOutSig>("leaky_relu.out(Tensor self, Scalar negative_slope=0.01, *, Tensor(a!) out) -> Tensor(a!)", kPointwise);
  register_cpu_meta<ScalarSig, &leaky_relu_k>("leaky_relu");
  register_cpu_meta<ScalarInplaceSig, &leaky_relu_inplace_k>("leaky_relu_");
  register_cpu_meta<ScalarOutSig, &leaky_relu_out_k>("leaky_relu.out");

  define_op<EluSig>("elu(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor", kPointwise);
  define_op<EluInplaceSig>(
      "elu_(Tensor(a!) self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1) -> Tensor(a!)", pw_inplace);
  define_op<EluOutSig>(
      "elu.out(Tensor self, Scalar alpha=1, Scalar scale=1, Scalar input_scale=1, *, Tensor(a!) out) -> Tensor(a!)", kPointwise);
  register_cpu_meta<EluSig, &elu_k>("elu");
  register_cpu_meta<EluInplaceSig, &elu_inplace_k>("elu_");
  register_cpu_meta<EluOutSig, &elu_out_k>("elu.out");
  define_op<USig>("selu(Tensor self) -> Tensor", kPointwise);
  define_op<UInplaceSig>("selu_(Tensor(a!) self) -> Tensor(a!)", pw_inplace);
  register_cpu_meta<USig, &selu_k>("selu");
  register_cpu_meta<UInplaceSig, &selu_inplace_k>("selu_");
  define_op<ScalarSig>("celu(Tensor self, Scalar alpha=1.0) -> Tensor", kPointwise);
  define_op<ScalarInplaceSig>("celu_(Tensor(a!) self, Scalar alpha=1.0) -> Tensor(a!)", pw_inplace);
  register_cpu_meta<ScalarSig, &celu_k>("celu");
  register_cpu_meta<ScalarInplaceSig, &celu_inplace_k>("celu_");

  define_op<TwoScalarSig>("softplus(Tensor self, Scalar beta=1, Scalar threshold=20) -> Tensor", kPointwise);
  define_op<TwoScalarOutSig>(
      "softplus.out(Tensor self, Scalar beta=1, Scalar threshold=20, *, Tensor(a!) out) -> Tensor(a!)", kPointwise);
  register_cpu_meta<TwoScalarSig, &softplus_k>("softplus");
  register_cpu_meta<TwoScalarOutSig, &softplus_out_k>("softplus.out");
}

}  // namespace ember
