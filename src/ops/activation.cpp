// Activations of torch.nn.functional that are composites of pointwise ops (the hot ones,
// relu/gelu/silu/..., are kernels in unary*.cpp): log_sigmoid, tanhshrink, softshrink,
// hardshrink, threshold, glu, prelu, rrelu. Being composites, they differentiate through
// the ops they are made of and run on every backend.
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ember/random.h"

namespace ember {
namespace activation_detail {
namespace {

using UnarySig = Tensor(const Tensor&);
using LambdSig = Tensor(const Tensor&, const Scalar&);
using ThresholdSig = Tensor(const Tensor&, const Scalar&, const Scalar&);
using ThresholdInplaceSig = Tensor&(Tensor&, const Scalar&, const Scalar&);
using GluSig = Tensor(const Tensor&, int64_t);
using PreluSig = Tensor(const Tensor&, const Tensor&);
using RreluSig = Tensor(const Tensor&, const Scalar&, const Scalar&, bool, Generator*);

void check_floating(const char* op, const Tensor& t) {
  EMBER_CHECK(t.is_floating_point(), RuntimeError, op, "(): expected a floating-point input, got ", t.dtype());
}

// log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), finite for every x.
Tensor log_sigmoid_composite(const Tensor& x) {
  check_floating("log_sigmoid", x);
  return sub(clamp_max(x, 0), log1p(exp(neg(abs(x)))));
}

Tensor tanhshrink_composite(const Tensor& x) { return sub(x, tanh(x)); }

Tensor softshrink_composite(const Tensor& x, const Scalar& lambd) {
  EMBER_CHECK(lambd.to<double>() >= 0, RuntimeError, "lambda must be greater or equal to 0, but found to be ",
              lambd.to<double>(), ".");
  check_floating("softshrink", x);
  // x - clamp(x, -l, l): x - l above l, x + l below -l, 0 between.
  return sub(x, clamp(x, Scalar(-lambd.to<double>()), lambd));
}

Tensor hardshrink_composite(const Tensor& x, const Scalar& lambd) {
  check_floating("hardshrink", x);
  return where(abs(x).gt(lambd), x, Scalar(0));
}

void check_real(const char* op, const Tensor& t) {
  EMBER_CHECK(t.dtype() != kBool && !t.is_complex(), RuntimeError, op, "(): expected a real, non-boolean input, got ",
              t.dtype());
}

Tensor threshold_composite(const Tensor& x, const Scalar& threshold, const Scalar& value) {
  check_real("threshold", x);
  return where(x.le(threshold), full_like(x, value), x);
}

Tensor& threshold_inplace_composite(Tensor& x, const Scalar& threshold, const Scalar& value) {
  check_real("threshold_", x);
  const Tensor mask = x.le(threshold);
  return masked_fill_(x, mask, value);
}

Tensor glu_composite(const Tensor& x, int64_t dim) {
  check_floating("glu", x);
  EMBER_CHECK(x.dim() > 0, RuntimeError, "glu does not support scalars because halving size must be even");
  const int64_t d = wrap_dim(dim, x.dim(), "glu");
  EMBER_CHECK(x.size(d) % 2 == 0, RuntimeError, "Halving dimension must be even, but dimension ", d, " is size ",
              x.size(d));
  const int64_t half = x.size(d) / 2;
  return mul(x.narrow(d, 0, half), sigmoid(x.narrow(d, half, half)));
}

Tensor prelu_composite(const Tensor& x, const Tensor& weight) {
  check_floating("prelu", x);
  const int64_t nw = weight.numel();
  EMBER_CHECK(weight.dim() <= 1, RuntimeError, "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = ",
              weight.dim());
  Tensor w = weight;
  if (nw != 1) {
    EMBER_CHECK(x.dim() > 0, RuntimeError, "Not allow zero-dim input tensor.");
    const int64_t channels = x.dim() >= 2 ? x.size(1) : 1;
    EMBER_CHECK(nw == channels, RuntimeError, "Mismatch of parameter numbers and input channel size. Found parameter "
                "numbers = ", nw, " and channel size = ", channels, ".");
    if (x.dim() >= 2) {
      std::vector<int64_t> shape(static_cast<size_t>(x.dim() - 1), 1);
      shape[0] = nw;
      w = weight.reshape(shape);
    }
  } else {
    w = weight.reshape({});
  }
  return where(x.ge(Scalar(0)), x, mul(w, x));
}

Tensor rrelu_composite(const Tensor& x, const Scalar& lower, const Scalar& upper, bool training, Generator* gen) {
  check_floating("rrelu", x);
  const double lo = lower.to<double>(), hi = upper.to<double>();
  EMBER_CHECK(lo <= hi, RuntimeError, "Lower bound should be less than or equal to the upper bound");
  if (!training) return leaky_relu(x, Scalar((lo + hi) / 2));
  Tensor slope = empty_like(x);
  uniform_(slope, lo, hi, gen);
  return where(x.ge(Scalar(0)), x, mul(x, slope));
}

}  // namespace
}  // namespace activation_detail

using namespace activation_detail;

Tensor log_sigmoid(const Tensor& self) {
  static const TypedOp<UnarySig> op("log_sigmoid");
  return op.call(self);
}
Tensor tanhshrink(const Tensor& self) {
  static const TypedOp<UnarySig> op("tanhshrink");
  return op.call(self);
}
Tensor softshrink(const Tensor& self, const Scalar& lambd) {
  static const TypedOp<LambdSig> op("softshrink");
  return op.call(self, lambd);
}
Tensor hardshrink(const Tensor& self, const Scalar& lambd) {
  static const TypedOp<LambdSig> op("hardshrink");
  return op.call(self, lambd);
}
Tensor threshold(const Tensor& self, const Scalar& threshold, const Scalar& value) {
  static const TypedOp<ThresholdSig> op("threshold");
  return op.call(self, threshold, value);
}
Tensor& threshold_(Tensor& self, const Scalar& threshold, const Scalar& value) {
  static const TypedOp<ThresholdInplaceSig> op("threshold_");
  return op.call(self, threshold, value);
}
Tensor glu(const Tensor& self, int64_t dim) {
  static const TypedOp<GluSig> op("glu");
  return op.call(self, dim);
}
Tensor prelu(const Tensor& self, const Tensor& weight) {
  static const TypedOp<PreluSig> op("prelu");
  return op.call(self, weight);
}
Tensor rrelu(const Tensor& self, const Scalar& lower, const Scalar& upper, bool training, Generator* generator) {
  static const TypedOp<RreluSig> op("rrelu");
  return op.call(self, lower, upper, training, generator);
}

EMBER_REGISTER(activation_ops) {
  define_op<UnarySig>("log_sigmoid(Tensor self) -> Tensor");
  register_composite<UnarySig, &log_sigmoid_composite>("log_sigmoid");
  define_op<UnarySig>("tanhshrink(Tensor self) -> Tensor");
  register_composite<UnarySig, &tanhshrink_composite>("tanhshrink");
  define_op<LambdSig>("softshrink(Tensor self, Scalar lambd=0.5) -> Tensor");
  register_composite<LambdSig, &softshrink_composite>("softshrink");
  define_op<LambdSig>("hardshrink(Tensor self, Scalar lambd=0.5) -> Tensor");
  register_composite<LambdSig, &hardshrink_composite>("hardshrink");
  define_op<ThresholdSig>("threshold(Tensor self, Scalar threshold, Scalar value) -> Tensor");
  register_composite<ThresholdSig, &threshold_composite>("threshold");
  define_op<ThresholdInplaceSig>("threshold_(Tensor(a!) self, Scalar threshold, Scalar value) -> Tensor(a!)",
                                 Tag::Inplace);
  register_composite<ThresholdInplaceSig, &threshold_inplace_composite>("threshold_");
  define_op<GluSig>("glu(Tensor self, int dim=-1) -> Tensor");
  register_composite<GluSig, &glu_composite>("glu");
  define_op<PreluSig>("prelu(Tensor self, Tensor weight) -> Tensor");
  register_composite<PreluSig, &prelu_composite>("prelu");
  define_op<RreluSig>("rrelu(Tensor self, Scalar lower=0.125, Scalar upper=0.3333333333333333, bool training=False, "
                      "Generator? generator=None) -> Tensor", Tag::Random);
  register_composite<RreluSig, &rrelu_composite>("rrelu");
}

}  // namespace ember
