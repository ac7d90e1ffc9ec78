// Normalization layers' ops: layer_norm and batch_norm (native_* ops with CPU kernels in
// kernels/norm.cpp, returning the statistics their backward ops reuse), and group_norm,
// a composite of native_layer_norm over groups.
//
// Inputs are made contiguous: layer norm sees [rows, cols] with cols the normalized
// elements; batch norm sees [n, channels, spatial]. batch_norm in training updates the
// running statistics in place (momentum-weighted, the variance unbiased), as PyTorch does;
// those tensors are not marked as written in the schema because they take no part in
// autograd, so a custom backend's CPU fallback does not copy them back.
#include <cmath>
#include <string>
#include <vector>

#include "backends/cpu/nn_stubs.h"
#include "ember/autograd.h"
#include "ember/dispatch.h"
#include "ember/ops.h"

namespace ember {
namespace normalization_detail {
namespace {

using OptTensor = std::optional<Tensor>;
using Tensor3 = std::tuple<Tensor, Tensor, Tensor>;
using NativeLayerNormSig = Tensor3(const Tensor&, IntArrayRef, const OptTensor&, const OptTensor&, double);
using LayerNormBackwardSig = Tensor3(const Tensor&, const Tensor&, IntArrayRef, const Tensor&, const Tensor&,
                                     const OptTensor&, const OptTensor&);
using LayerNormSig = Tensor(const Tensor&, IntArrayRef, const OptTensor&, const OptTensor&, double, bool);
using NativeBatchNormSig = Tensor3(const Tensor&, const OptTensor&, const OptTensor&, const OptTensor&,
                                   const OptTensor&, bool, double, double);
using BatchNormBackwardSig = Tensor3(const Tensor&, const Tensor&, const OptTensor&, const OptTensor&,
                                     const OptTensor&, const OptTensor&, const OptTensor&, bool, double);
using BatchNormSig = Tensor(const Tensor&, const OptTensor&, const OptTensor&, const OptTensor&, const OptTensor&,
                            bool, double, double, bool);
using GroupNormSig = Tensor(const Tensor&, int64_t, const OptTensor&, const OptTensor&, double, bool);

bool has(const OptTensor& t) { return t.has_value() && t->defined(); }
const char* ptr(const OptTensor& t) { return has(t) ? static_cast<const char*>(t->data_ptr()) : nullptr; }

void check_floating(const char* op, const Tensor& t) {
  EMBER_CHECK(t.is_floating_point(), RuntimeError, op, "(): expected a floating-point input, got ", t.dtype());
}

// A parameter tensor in the input's dtype, contiguous (or nullopt).
OptTensor like_input(const OptTensor& p, const Tensor& input) {
  if (!has(p)) return std::nullopt;
  return p->to(input.dtype()).contiguous();
}

// ---------------------------------------------------------------- layer norm
int64_t check_layer_norm(const Tensor& input, IntArrayRef shape, const OptTensor& weight, const OptTensor& bias) {
  EMBER_CHECK(!shape.empty(), RuntimeError, "Expected normalized_shape to be at least 1-dimensional, i.e., "
              "containing at least one element, but got normalized_shape = ", shape);
  for (const OptTensor* p : {&weight, &bias}) {
    if (!has(*p)) continue;
    EMBER_CHECK((*p)->sizes() == shape, RuntimeError, "Expected ", p == &weight ? "weight" : "bias",
                " to be of same shape as normalized_shape, but got ", p == &weight ? "weight" : "bias",
                " of shape ", (*p)->sizes(), " and normalized_shape = ", shape);
  }
  const int64_t nd = static_cast<int64_t>(shape.size());
  bool ok = input.dim() >= nd;
  for (int64_t i = 0; ok && i < nd; ++i) ok = input.size(input.dim() - nd + i) == shape[i];
  if (!ok) {
    std::string expected = "[*";
    for (int64_t s : shape) expected += ", " + std::to_string(s);
    EMBER_CHECK(false, RuntimeError, "Given normalized_shape=", shape, ", expected input with shape ", expected,
                "], but got input of size", input.sizes());
  }
  check_floating("layer_norm", input);
  int64_t cols = 1;
  for (int64_t s : shape) cols *= s;
  return cols;
}

// mean and rstd have the input's leading dims followed by ones (PyTorch's shapes).
std::vector<int64_t> stat_shape(const Tensor& input, int64_t nd) {
  std::vector<int64_t> s(input.sizes().begin(), input.sizes().end());
  for (int64_t i = input.dim() - nd; i < input.dim(); ++i) s[i] = 1;
  return s;
}

Tensor3 native_layer_norm_k(const Tensor& input, IntArrayRef shape, const OptTensor& weight, const OptTensor& bias,
                            double eps) {
  const int64_t cols = check_layer_norm(input, shape, weight, bias);
  const Tensor x = input.contiguous();
  const auto opts = TensorOptions().dtype(x.dtype()).device(x.device());
  Tensor y = empty(x.sizes(), opts);
  const auto ss = stat_shape(x, static_cast<int64_t>(shape.size()));
  Tensor mean = empty(ss, opts), rstd = empty(ss, opts);
  if (x.is_meta() || x.numel() == 0) return {y, mean, rstd};
  const OptTensor w = like_input(weight, x), b = like_input(bias, x);
  cpu::LayerNormArgs a;
  a.x = static_cast<const char*>(x.data_ptr());
  a.w = ptr(w);
  a.b = ptr(b);
  a.y = static_cast<char*>(y.data_ptr());
  a.mean = static_cast<char*>(mean.data_ptr());
  a.rstd = static_cast<char*>(rstd.data_ptr());
  a.dtype = x.dtype();
  a.rows = x.numel() / cols;
  a.cols = cols;
  a.eps = eps;
  cpu::layer_norm_stub(a);
  return {y, mean, rstd};
}

Tensor3 layer_norm_backward_k(const Tensor& grad_out, const Tensor& input, IntArrayRef shape, const Tensor& mean,
                              const Tensor& rstd, const OptTensor& weight, const OptTensor& bias) {
  const int64_t cols = check_layer_norm(input, shape, weight, bias);
  EMBER_CHECK(grad_out.sizes() == input.sizes(), RuntimeError, "native_layer_norm_backward(): grad_out of shape ",
              grad_out.sizes(), " does not match input of shape ", input.sizes());
  const Tensor x = input.contiguous();
  const Tensor g = grad_out.to(x.dtype()).contiguous();
  const Tensor m = mean.to(x.dtype()).contiguous(), r = rstd.to(x.dtype()).contiguous();
  const auto opts = TensorOptions().dtype(x.dtype()).device(x.device());
  Tensor dx = empty(x.sizes(), opts);
  Tensor dw = has(weight) ? empty(shape, opts) : Tensor();
  Tensor db = has(bias) ? empty(shape, opts) : Tensor();
  if (x.is_meta()) return {dx, dw, db};
  if (x.numel() == 0) {
    if (dw.defined()) dw.zero_();
    if (db.defined()) db.zero_();
    return {dx, dw, db};
  }
  const OptTensor w = like_input(weight, x);
  cpu::LayerNormArgs a;
  a.x = static_cast<const char*>(x.data_ptr());
  a.dy = static_cast<const char*>(g.data_ptr());
  a.w = ptr(w);
  a.mean = static_cast<char*>(const_cast<void*>(m.data_ptr()));
  a.rstd = static_cast<char*>(const_cast<void*>(r.data_ptr()));
  a.y = static_cast<char*>(dx.data_ptr());
  a.dw = dw.defined() ? static_cast<char*>(dw.data_ptr()) : nullptr;
  a.db = db.defined() ? static_cast<char*>(db.data_ptr()) : nullptr;
  a.dtype = x.dtype();
  a.rows = x.numel() / cols;
  a.cols = cols;
  cpu::layer_norm_backward_stub(a);
  return {dx, dw, db};
}

Tensor layer_norm_composite(const Tensor& input, IntArrayRef shape, const OptTensor& weight, const OptTensor& bias,
                            double eps, bool) {
  return std::get<0>(native_layer_norm(input, shape, weight, bias, eps));
}

// ---------------------------------------------------------------- batch norm
int64_t check_batch_norm(const Tensor& input, const OptTensor& weight, const OptTensor& bias,
                         const OptTensor& running_mean, const OptTensor& running_var, bool training) {
  EMBER_CHECK(input.dim() >= 2, ValueError, "batch_norm(): expected 2D or higher input (got ", input.dim(),
              "D input of shape ", input.sizes(), ")");
  check_floating("batch_norm", input);
  const int64_t channels = input.size(1);
  const std::pair<const OptTensor*, const char*> params[] = {
      {&running_mean, "running_mean"}, {&running_var, "running_var"}, {&weight, "weight"}, {&bias, "bias"}};
  for (const auto& [p, name] : params)
    EMBER_CHECK(!has(*p) || (*p)->numel() == channels, RuntimeError, name, " should contain ", channels,
                " elements not ", (*p)->numel());
  if (!training)
    EMBER_CHECK(has(running_mean) && has(running_var), RuntimeError,
                "batch_norm(): running_mean and running_var must be defined in evaluation mode");
  return channels;
}

// Per-channel values as doubles.
std::vector<double> doubles(const Tensor& t) {
  const Tensor d = t.to(kDouble).contiguous();
  const double* p = static_cast<const double*>(d.data_ptr());
  return std::vector<double>(p, p + d.numel());
}
Tensor from_doubles(const std::vector<double>& v, ScalarType dt) {
  return tensor(ArrayRef<double>(v.data(), v.size()), TensorOptions().dtype(kDouble)).to(dt);
}

cpu::ChannelArgs channel_args(const Tensor& x) {
  cpu::ChannelArgs a;
  a.dtype = x.dtype();
  a.n = x.size(0);
  a.channels = x.size(1);
  a.spatial = x.numel() / std::max<int64_t>(1, a.n * a.channels);
  return a;
}

ScalarType stat_dtype(ScalarType dt) { return dt == kDouble ? kDouble : kFloat; }

Tensor3 native_batch_norm_k(const Tensor& input, const OptTensor& weight, const OptTensor& bias,
                            const OptTensor& running_mean, const OptTensor& running_var, bool training, double momentum,
                            double eps) {
  const int64_t channels = check_batch_norm(input, weight, bias, running_mean, running_var, training);
  for (const auto& [p, name] : {std::pair{&running_mean, "running_mean"}, std::pair{&running_var, "running_var"}})
    EMBER_CHECK(!has(*p) || !autograd::requires_grad(**p) || !autograd::GradMode::is_enabled(), RuntimeError,
                "The function 'native_batch_norm' is not differentiable with respect to argument '", name,
                "'. This input cannot have requires_grad True.");
  const Tensor x = input.contiguous();
  Tensor y = empty(x.sizes(), TensorOptions().dtype(x.dtype()).device(x.device()));
  const auto sopts = TensorOptions().dtype(stat_dtype(x.dtype())).device(x.device());
  if (x.is_meta()) return {y, empty({channels}, sopts), empty({channels}, sopts)};
  const int64_t per_channel = channels ? x.numel() / channels : 0;
  if (training)
    EMBER_CHECK(per_channel > 1, ValueError, "Expected more than 1 value per channel when training, got input size ",
                input.sizes());
  std::vector<double> mean(channels), invstd(channels), m2(channels);
  cpu::ChannelArgs a = channel_args(x);
  if (training) {
    a.u = static_cast<const char*>(x.data_ptr());
    a.out0 = mean.data();
    a.out1 = m2.data();
    cpu::channel_stub(a, cpu::ChannelOp::Stats);
    for (int64_t c = 0; c < channels; ++c) invstd[c] = 1.0 / std::sqrt(m2[c] / per_channel + eps);
    autograd::NoGradGuard no_grad;
    if (has(running_mean)) {
      Tensor rm = *running_mean;
      rm.mul_(1 - momentum).add_(from_doubles(mean, rm.dtype()), momentum);
    }
    if (has(running_var)) {
      std::vector<double> unbiased(channels);
      for (int64_t c = 0; c < channels; ++c) unbiased[c] = m2[c] / (per_channel - 1);
      Tensor rv = *running_var;
      rv.mul_(1 - momentum).add_(from_doubles(unbiased, rv.dtype()), momentum);
    }
  } else {
    mean = doubles(*running_mean);
    const std::vector<double> var = doubles(*running_var);
    for (int64_t c = 0; c < channels; ++c) invstd[c] = 1.0 / std::sqrt(var[c] + eps);
  }
  // y = a x + d with a = w invstd, d = b - mean a.
  const std::vector<double> w = has(weight) ? doubles(*weight) : std::vector<double>(channels, 1.0);
  const std::vector<double> b = has(bias) ? doubles(*bias) : std::vector<double>(channels, 0.0);
  std::vector<double> ca(channels), cd(channels);
  for (int64_t c = 0; c < channels; ++c) {
    ca[c] = w[c] * invstd[c];
    cd[c] = b[c] - mean[c] * ca[c];
  }
  if (x.numel()) {
    cpu::ChannelArgs f = channel_args(x);
    f.u = static_cast<const char*>(x.data_ptr());
    f.y = static_cast<char*>(y.data_ptr());
    f.a = ca.data();
    f.d = cd.data();
    cpu::channel_stub(f, cpu::ChannelOp::Affine);
  }
  // In evaluation mode too the statistics used are returned (PyTorch returns empty tensors):
  // the derivative reads them instead of the running statistics, which a later training
  // step may change in place.
  return {y, from_doubles(mean, stat_dtype(x.dtype())), from_doubles(invstd, stat_dtype(x.dtype()))};
}

Tensor3 batch_norm_backward_k(const Tensor& grad_out, const Tensor& input, const OptTensor& weight,
                              const OptTensor& running_mean, const OptTensor& running_var, const OptTensor& save_mean,
                              const OptTensor& save_invstd, bool train, double eps) {
  const int64_t channels = input.dim() >= 2 ? input.size(1) : 0;
  const bool saved = has(save_mean) && has(save_invstd) && save_mean->numel() == channels &&
                     save_invstd->numel() == channels;
  // With the statistics of the forward at hand, the running ones are not needed.
  check_batch_norm(input, weight, std::nullopt, running_mean, running_var, train || saved);
  EMBER_CHECK(grad_out.sizes() == input.sizes(), RuntimeError, "native_batch_norm_backward(): grad_out of shape ",
              grad_out.sizes(), " does not match input of shape ", input.sizes());
  const Tensor x = input.contiguous();
  const Tensor g = grad_out.to(x.dtype()).contiguous();
  const auto opts = TensorOptions().dtype(x.dtype()).device(x.device());
  Tensor dx = empty(x.sizes(), opts);
  // grad_bias is always returned (the op has no bias argument); grad_weight only with a weight.
  const auto popts = TensorOptions().dtype(has(weight) ? weight->dtype() : x.dtype()).device(x.device());
  Tensor dw = has(weight) ? empty({channels}, popts) : Tensor();
  Tensor db = empty({channels}, popts);
  if (x.is_meta()) return {dx, dw, db};
  std::vector<double> mean, invstd;
  if (saved) {
    mean = doubles(*save_mean);
    invstd = doubles(*save_invstd);
  } else {
    EMBER_CHECK(!train, RuntimeError,
                "native_batch_norm_backward(): save_mean and save_invstd are needed in training mode");
    mean = doubles(*running_mean);
    invstd = doubles(*running_var);
    for (double& v : invstd) v = 1.0 / std::sqrt(v + eps);
  }
  const int64_t per_channel = channels ? x.numel() / channels : 0;
  std::vector<double> sum_dy(channels, 0.0), sum_dy_xmu(channels, 0.0);
  if (x.numel()) {
    cpu::ChannelArgs s = channel_args(x);
    s.u = static_cast<const char*>(g.data_ptr());
    s.v = static_cast<const char*>(x.data_ptr());
    s.center = mean.data();
    s.out0 = sum_dy.data();
    s.out1 = sum_dy_xmu.data();
    cpu::channel_stub(s, cpu::ChannelOp::BackwardSums);
  }
  const std::vector<double> w = has(weight) ? doubles(*weight) : std::vector<double>(channels, 1.0);
  // dx = a dy + b x + d (training: the batch statistics depend on x too).
  std::vector<double> ca(channels), cb(channels, 0.0), cd(channels, 0.0);
  for (int64_t c = 0; c < channels; ++c) {
    ca[c] = w[c] * invstd[c];
    if (train) {
      const double k = ca[c] * invstd[c] * invstd[c] * sum_dy_xmu[c] / per_channel;
      cb[c] = -k;
      cd[c] = k * mean[c] - ca[c] * sum_dy[c] / per_channel;
    }
  }
  if (x.numel()) {
    cpu::ChannelArgs f = channel_args(x);
    f.u = static_cast<const char*>(g.data_ptr());
    f.v = train ? static_cast<const char*>(x.data_ptr()) : nullptr;
    f.y = static_cast<char*>(dx.data_ptr());
    f.a = ca.data();
    f.b = cb.data();
    f.d = cd.data();
    cpu::channel_stub(f, cpu::ChannelOp::Affine);
  }
  if (dw.defined()) {
    std::vector<double> gw(channels);
    for (int64_t c = 0; c < channels; ++c) gw[c] = sum_dy_xmu[c] * invstd[c];
    dw.copy_(from_doubles(gw, dw.dtype()));
  }
  db.copy_(from_doubles(sum_dy, db.dtype()));
  return {dx, dw, db};
}

Tensor batch_norm_composite(const Tensor& input, const OptTensor& weight, const OptTensor& bias,
                            const OptTensor& running_mean, const OptTensor& running_var, bool training, double momentum,
                            double eps, bool) {
  return std::get<0>(native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps));
}

// ---------------------------------------------------------------- group norm
Tensor group_norm_composite(const Tensor& input, int64_t num_groups, const OptTensor& weight, const OptTensor& bias,
                            double eps, bool) {
  EMBER_CHECK(input.dim() >= 2, RuntimeError, "group_norm(): expected at least 2D input, got input of shape ",
              input.sizes());
  const int64_t n = input.size(0), channels = input.size(1);
  EMBER_CHECK(num_groups > 0 && channels % num_groups == 0, RuntimeError, "Expected number of channels in input to be "
              "divisible by num_groups, but got input of shape ", input.sizes(), " and num_groups=", num_groups);
  for (const OptTensor* p : {&weight, &bias})
    EMBER_CHECK(!has(*p) || ((*p)->dim() == 1 && (*p)->numel() == channels), RuntimeError, "Expected ",
                p == &weight ? "weight" : "bias", " to be a vector of size equal to the number of channels in input, "
                "but got ", p == &weight ? "weight" : "bias", " of shape ", (*p)->sizes(), " and input of shape ",
                input.sizes());
  const int64_t per_group = n * num_groups != 0 ? input.numel() / (n * num_groups) : 0;
  Tensor y = std::get<0>(native_layer_norm(input.reshape({n, num_groups, per_group}), {per_group}, std::nullopt,
                                           std::nullopt, eps))
                 .reshape(input.sizes());
  if (!has(weight) && !has(bias)) return y;
  std::vector<int64_t> bshape(static_cast<size_t>(input.dim()), 1);
  bshape[1] = channels;
  if (has(weight)) y = mul(y, weight->reshape(bshape));
  if (has(bias)) y = add(y, bias->reshape(bshape));
  return y;
}

}  // namespace
}  // namespace normalization_detail

using namespace normalization_detail;

std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input, IntArrayRef normalized_shape,
                                                     const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias, double eps) {
  static const TypedOp<NativeLayerNormSig> op("native_layer_norm");
  return op.call(input, normalized_shape, weight, bias, eps);
}
std::tuple<Tensor, Tensor, Tensor> native_layer_norm_backward(const Tensor& grad_out, const Tensor& input,
                                                              IntArrayRef normalized_shape, const Tensor& mean,
                                                              const Tensor& rstd, const std::optional<Tensor>& weight,
                                                              const std::optional<Tensor>& bias) {
  static const TypedOp<LayerNormBackwardSig> op("native_layer_norm_backward");
  return op.call(grad_out, input, normalized_shape, mean, rstd, weight, bias);
}
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps) {
  static const TypedOp<LayerNormSig> op("layer_norm");
  return op.call(input, normalized_shape, weight, bias, eps, true);
}
std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const std::optional<Tensor>& weight,
                                                     const std::optional<Tensor>& bias,
                                                     const std::optional<Tensor>& running_mean,
                                                     const std::optional<Tensor>& running_var, bool training,
                                                     double momentum, double eps) {
  static const TypedOp<NativeBatchNormSig> op("native_batch_norm");
  return op.call(input, weight, bias, running_mean, running_var, training, momentum, eps);
}
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(
    const Tensor& grad_out, const Tensor& input, const std::optional<Tensor>& weight,
    const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var,
    const std::optional<Tensor>& save_mean, const std::optional<Tensor>& save_invstd, bool train, double eps) {
  static const TypedOp<BatchNormBackwardSig> op("native_batch_norm_backward");
  return op.call(grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps);
}
Tensor batch_norm(const Tensor& input, const std::optional<Tensor>& weight, const std::optional<Tensor>& bias,
                  const std::optional<Tensor>& running_mean, const std::optional<Tensor>& running_var, bool training,
                  double momentum, double eps) {
  static const TypedOp<BatchNormSig> op("batch_norm");
  return op.call(input, weight, bias, running_mean, running_var, training, momentum, eps, true);
}
Tensor group_norm(const Tensor& input, int64_t num_groups, const std::optional<Tensor>& weight,
                  const std::optional<Tensor>& bias, double eps) {
  static const TypedOp<GroupNormSig> op("group_norm");
  return op.call(input, num_groups, weight, bias, eps, true);
}

EMBER_REGISTER(normalization_ops) {
  define_op<NativeLayerNormSig>("native_layer_norm(Tensor input, int[] normalized_shape, Tensor? weight, "
                                "Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)", Tag::FunctionOnly);
  register_cpu_meta<NativeLayerNormSig, &native_layer_norm_k>("native_layer_norm");
  define_op<LayerNormBackwardSig>("native_layer_norm_backward(Tensor grad_out, Tensor input, int[] normalized_shape, "
                                  "Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias) -> (Tensor, Tensor, Tensor)",
                                  Tag::FunctionOnly);
  register_cpu_meta<LayerNormBackwardSig, &layer_norm_backward_k>("native_layer_norm_backward");
  define_op<LayerNormSig>("layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
                          "float eps=1e-05, bool cudnn_enable=True) -> Tensor", Tag::FunctionOnly);
  register_composite<LayerNormSig, &layer_norm_composite>("layer_norm");
  define_op<NativeBatchNormSig>("native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
                                "Tensor? running_var, bool training, float momentum, float eps) -> "
                                "(Tensor, Tensor, Tensor)", Tag::FunctionOnly);
  register_cpu_meta<NativeBatchNormSig, &native_batch_norm_k>("native_batch_norm");
  define_op<BatchNormBackwardSig>("native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, "
                                  "Tensor? running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, "
                                  "bool train, float eps) -> (Tensor, Tensor, Tensor)", Tag::FunctionOnly);
  register_cpu_meta<BatchNormBackwardSig, &batch_norm_backward_k>("native_batch_norm_backward");
  define_op<BatchNormSig>("batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
                          "Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor",
                          Tag::FunctionOnly);
  register_composite<BatchNormSig, &batch_norm_composite>("batch_norm");
  define_op<GroupNormSig>("group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, "
                          "float eps=1e-05, bool cudnn_enabled=True) -> Tensor", Tag::FunctionOnly);
  register_composite<GroupNormSig, &group_norm_composite>("group_norm");
}

}  // namespace ember
