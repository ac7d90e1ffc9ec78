// torch.nn.init and the gradient utilities of torch.nn.utils (include/ember/nn/init.h),
// following python/ember/nn/init.py and nn/utils step by step so that both draw the same
// numbers for a seed.
#include "ember/nn/init.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "ember/autograd.h"
#include "ember/ops.h"

namespace ember::nn::init {

using autograd::NoGradGuard;

double calculate_gain(std::string_view nonlinearity, std::optional<double> param) {
  for (std::string_view linear : {"linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                                  "conv_transpose3d", "sigmoid"}) {
    if (nonlinearity == linear) return 1.0;
  }
  if (nonlinearity == "tanh") return 5.0 / 3;
  if (nonlinearity == "relu") return std::sqrt(2.0);
  if (nonlinearity == "leaky_relu") {
    const double slope = param.value_or(0.01);
    return std::sqrt(2.0 / (1 + slope * slope));
  }
  if (nonlinearity == "selu") return 3.0 / 4;
  EMBER_FAIL(ValueError, "Unsupported nonlinearity ", nonlinearity);
}

std::pair<int64_t, int64_t> calculate_fan_in_and_fan_out(const Tensor& t) {
  EMBER_CHECK(t.dim() >= 2, ValueError,
              "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions");
  int64_t receptive = 1;
  for (int64_t d = 2; d < t.dim(); ++d) receptive *= t.size(d);
  return {t.size(1) * receptive, t.size(0) * receptive};
}

Tensor uniform_(Tensor t, double a, double b, Generator* gen) {
  NoGradGuard no_grad;
  ember::uniform_(t, a, b, gen);
  return t;
}

Tensor normal_(Tensor t, double mean, double std, Generator* gen) {
  NoGradGuard no_grad;
  ember::normal_(t, mean, std, gen);
  return t;
}

Tensor trunc_normal_(Tensor t, double mean, double std, double a, double b, Generator* gen) {
  auto cdf = [](double x) { return (1.0 + std::erf(x / std::sqrt(2.0))) / 2.0; };
  NoGradGuard no_grad;
  const double lo = cdf((a - mean) / std), hi = cdf((b - mean) / std);
  ember::uniform_(t, 2 * lo - 1, 2 * hi - 1, gen);
  ember::erfinv_(t);
  t.mul_(std * std::sqrt(2.0));
  t.add_(mean);
  ember::clamp_(t, Scalar(a), Scalar(b));
  return t;
}

Tensor constant_(Tensor t, const Scalar& value) {
  NoGradGuard no_grad;
  t.fill_(value);
  return t;
}

Tensor ones_(Tensor t) { return constant_(std::move(t), 1.0); }

Tensor zeros_(Tensor t) {
  NoGradGuard no_grad;
  t.zero_();
  return t;
}

Tensor eye_(Tensor t) {
  EMBER_CHECK(t.dim() == 2, ValueError, "Only tensors with 2 dimensions are supported");
  NoGradGuard no_grad;
  t.copy_(ember::eye(t.size(0), t.size(1), TensorOptions(t.dtype()).device(t.device())));
  return t;
}

Tensor dirac_(Tensor t, int64_t groups) {
  EMBER_CHECK(t.dim() >= 3 && t.dim() <= 5, ValueError, "Only tensors with 3, 4, or 5 dimensions are supported");
  EMBER_CHECK(groups > 0 && t.size(0) % groups == 0, ValueError, "dim 0 must be divisible by groups");
  const int64_t out_per_group = t.size(0) / groups;
  const int64_t min_dim = std::min(out_per_group, t.size(1));
  NoGradGuard no_grad;
  t.zero_();
  for (int64_t g = 0; g < groups; ++g) {
    for (int64_t d = 0; d < min_dim; ++d) {
      Tensor e = t.select(0, g * out_per_group + d).select(0, d);
      for (int64_t k = 2; k < t.dim(); ++k) e = e.select(0, t.size(k) / 2);  // the kernel's centre
      e.fill_(1);
    }
  }
  return t;
}

Tensor xavier_uniform_(Tensor t, double gain, Generator* gen) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(t);
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  const double a = std::sqrt(3.0) * std;  // the uniform bound with that standard deviation
  return uniform_(std::move(t), -a, a, gen);
}

Tensor xavier_normal_(Tensor t, double gain, Generator* gen) {
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(t);
  const double std = gain * std::sqrt(2.0 / static_cast<double>(fan_in + fan_out));
  return normal_(std::move(t), 0.0, std, gen);
}

namespace {
double kaiming_std(const Tensor& t, double a, std::string_view mode, std::string_view nonlinearity) {
  EMBER_CHECK(mode == "fan_in" || mode == "fan_out", ValueError, "Mode ", mode,
              " not supported, please use one of ['fan_in', 'fan_out']");
  const auto [fan_in, fan_out] = calculate_fan_in_and_fan_out(t);
  const int64_t fan = mode == "fan_in" ? fan_in : fan_out;
  return calculate_gain(nonlinearity, a) / std::sqrt(static_cast<double>(fan));
}
}  // namespace

Tensor kaiming_uniform_(Tensor t, double a, std::string_view mode, std::string_view nonlinearity, Generator* gen) {
  if (t.numel() == 0) return t;  // PyTorch warns that this is a no-op
  const double bound = std::sqrt(3.0) * kaiming_std(t, a, mode, nonlinearity);
  return uniform_(std::move(t), -bound, bound, gen);
}

Tensor kaiming_normal_(Tensor t, double a, std::string_view mode, std::string_view nonlinearity, Generator* gen) {
  if (t.numel() == 0) return t;
  return normal_(std::move(t), 0.0, kaiming_std(t, a, mode, nonlinearity), gen);
}

namespace {
// Reduced QR of a (m x n, m >= n) by Householder reflections: Q (m x n) and R's diagonal.
std::pair<Tensor, Tensor> householder_qr(const Tensor& a) {
  const int64_t m = a.size(0), n = a.size(1);
  Tensor r = a.clone();
  std::vector<Tensor> vs;
  std::vector<double> diag;
  for (int64_t k = 0; k < n; ++k) {
    Tensor x = r.narrow(0, k, m - k).select(1, k);
    const double norm = ember::norm(x).item<double>();
    const double x0 = x.select(0, 0).item<double>();
    const double alpha = x0 >= 0 ? -norm : norm;  // reflect away from x0 to avoid cancellation
    Tensor v = x.clone();
    v.select(0, 0).fill_(x0 - alpha);
    const double vnorm = ember::norm(v).item<double>();
    if (vnorm == 0.0) {  // the column is already zero below the diagonal
      vs.emplace_back();
      diag.push_back(x0);
      continue;
    }
    v = v / vnorm;
    Tensor rk = r.narrow(0, k, m - k);
    rk.sub_(ember::outer(v, ember::matmul(v, rk)) * 2);
    vs.push_back(v);
    diag.push_back(alpha);
  }
  Tensor q = ember::eye(m, n, TensorOptions(a.dtype()));
  for (int64_t k = n - 1; k >= 0; --k) {  // Q = H_0 ... H_{n-1} applied to I's first n columns
    const Tensor& v = vs[static_cast<size_t>(k)];
    if (!v.defined()) continue;
    Tensor qk = q.narrow(0, k, m - k);
    qk.sub_(ember::outer(v, ember::matmul(v, qk)) * 2);
  }
  return {q, ember::tensor(diag).to(a.dtype())};
}
}  // namespace

Tensor orthogonal_(Tensor t, double gain, Generator* gen) {
  EMBER_CHECK(t.dim() >= 2, ValueError, "Only tensors with 2 or more dimensions are supported");
  if (t.numel() == 0) return t;
  const int64_t rows = t.size(0), cols = t.numel() / rows;
  NoGradGuard no_grad;
  Tensor flat = ember::empty({rows, cols}, TensorOptions(t.dtype()));
  ember::normal_(flat, 0, 1, gen);
  if (rows < cols) flat = flat.t();
  auto [q, d] = householder_qr(flat.contiguous());
  q = q * ember::sign(d);  // makes the decomposition unique (R with a positive diagonal)
  if (rows < cols) q = q.t();
  t.view(q.sizes()).copy_(q);
  t.mul_(gain);
  return t;
}

Tensor sparse_(Tensor t, double sparsity, double std, Generator* gen) {
  EMBER_CHECK(t.dim() == 2, ValueError, "Only tensors with 2 dimensions are supported");
  const int64_t rows = t.size(0), cols = t.size(1);
  const int64_t num_zeros =
      std::min(rows, static_cast<int64_t>(std::ceil(sparsity * static_cast<double>(rows))));
  NoGradGuard no_grad;
  ember::normal_(t, 0, std, gen);
  for (int64_t c = 0; c < cols; ++c) {
    Tensor column = t.select(1, c);
    index_fill_(column, 0, randperm(rows, gen).narrow(0, 0, num_zeros), Scalar(0.0));
  }
  return t;
}

}  // namespace ember::nn::init

namespace ember::nn::utils {

using autograd::NoGradGuard;

Tensor clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type,
                       bool error_if_nonfinite) {
  std::vector<Tensor> grads;
  for (const Tensor& p : parameters) {
    if (Tensor g = autograd::grad(p); g.defined()) grads.push_back(g);
  }
  if (grads.empty()) return scalar_tensor(0.0, TensorOptions(kFloat));
  NoGradGuard no_grad;
  std::vector<Tensor> norms;
  for (const Tensor& g : grads)
    norms.push_back(std::isinf(norm_type) ? ember::max(ember::abs(g.detach())) : ember::norm(g.detach(), norm_type));
  Tensor total = norms.size() == 1       ? norms[0]
                 : std::isinf(norm_type) ? ember::max(ember::stack(norms))
                                         : ember::norm(ember::stack(norms), norm_type);
  const double total_value = total.item<double>();
  EMBER_CHECK(!error_if_nonfinite || std::isfinite(total_value), RuntimeError, "The total norm of order ", norm_type,
              " for gradients from `parameters` is non-finite, so it cannot be clipped. To disable this "
              "error and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`");
  Tensor coef = ember::clamp(max_norm / (total + 1e-6), std::optional<Scalar>(), Scalar(1.0));
  for (Tensor& g : grads) g.mul_(coef);
  return total;
}

void clip_grad_value_(const std::vector<Tensor>& parameters, double clip_value) {
  NoGradGuard no_grad;
  for (const Tensor& p : parameters) {
    if (Tensor g = autograd::grad(p); g.defined()) ember::clamp_(g, Scalar(-clip_value), Scalar(clip_value));
  }
}

Tensor parameters_to_vector(const std::vector<Tensor>& parameters) {
  std::vector<Tensor> flat;
  for (const Tensor& p : parameters) flat.push_back(p.reshape({-1}));
  return ember::cat(flat);
}

void vector_to_parameters(const Tensor& vec, const std::vector<Tensor>& parameters) {
  int64_t total = 0;
  for (const Tensor& p : parameters) total += p.numel();
  EMBER_CHECK(vec.defined() && vec.dim() == 1 && vec.numel() == total, ValueError,
              "vector_to_parameters: expected a 1-D vector of ", total, " elements (the parameters' total), got shape ",
              vec.defined() ? vec.sizes() : IntArrayRef());
  NoGradGuard no_grad;
  int64_t offset = 0;
  for (const Tensor& p : parameters) {
    Tensor dst = p;
    dst.copy_(vec.narrow(0, offset, p.numel()).view(p.sizes()));
    offset += p.numel();
  }
}

}  // namespace ember::nn::utils
