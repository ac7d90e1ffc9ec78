// torch.nn.functional's composites for C++ (include/ember/nn/functional.h).
#include "ember/nn/functional.h"

#include <cmath>
#include <limits>
#include <vector>

#include "ember/autograd.h"
#include "nn/check.h"

namespace ember::nn::functional {

namespace {

Tensor reduce(const Tensor& loss, int64_t reduction) {
  if (reduction == Reduction::Mean) return mean(loss);
  if (reduction == Reduction::Sum) return sum(loss);
  return loss;
}

// The window sums of x^p, clamped at 0 where negative, to the power 1/p.
Tensor lp_finish(const Tensor& avg, int64_t window, double norm_type) {
  return pow(mul(mul(sign(avg), relu(abs(avg))), Scalar(window)), 1.0 / norm_type);
}

void check_p(double p) {
  EMBER_CHECK(p >= 0 && p <= 1, ValueError, "dropout probability has to be between 0 and 1, but got ",
              detail::py_float(p));
}

// torch's inplace variants write the result into input (a leaf that requires grad refuses,
// as there).
Tensor finish(const Tensor& input, const Tensor& result, bool inplace) {
  if (!inplace) return result;
  if (!result.is_same(input)) {
    Tensor out = input;
    out.copy_(result);
  }
  return input;
}

// feature_dropout of input, with a batch dim of 1 added around it unless batched.
Tensor channel_dropout(const Tensor& input, double p, bool training, bool batched) {
  if (batched) return feature_dropout(input, p, training);
  return feature_dropout(input.unsqueeze(0), p, training).squeeze(0);
}

// One value for every spatial dim, or one per dim.
std::vector<int64_t> per_dim(const char* fn, const char* what, IntArrayRef v, size_t n) {
  EMBER_CHECK(v.size() == 1 || v.size() == n, ValueError, fn, ": ", what, " must be one value or ", n,
              " values, got ", v);
  return v.size() == 1 ? std::vector<int64_t>(n, v[0]) : std::vector<int64_t>(v.begin(), v.end());
}

// torch.nn.functional._unpool_output_size, after the arguments are expanded per dim.
std::vector<int64_t> unpool_output_size(const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                                        IntArrayRef padding, IntArrayRef output_size) {
  const size_t n = kernel_size.size();
  EMBER_CHECK(input.dim() >= static_cast<int64_t>(n), RuntimeError, "max_unpool", n,
              "d: expected an input with at least ", n, " dims, got shape ", input.sizes());
  std::vector<int64_t> size(n);
  for (size_t d = 0; d < n; ++d)
    size[d] = (input.size(input.dim() - static_cast<int64_t>(n - d)) - 1) * stride[d] + kernel_size[d] -
              2 * padding[d];
  if (output_size.empty()) return size;
  IntArrayRef spatial = output_size;
  if (spatial.size() == n + 2) spatial = spatial.slice(2, n);
  EMBER_CHECK(spatial.size() == n, ValueError, "output_size should be a sequence containing ", n, " or ", n + 2,
              " elements, but it has a length of '", output_size.size(), "'");
  for (size_t d = 0; d < n; ++d) {
    const int64_t lo = size[d] - stride[d], hi = size[d] + stride[d];
    EMBER_CHECK(lo < spatial[d] && spatial[d] < hi, ValueError, "invalid output_size \"", spatial, "\" (dim ", d,
                " must be between ", lo, " and ", hi, ")");
  }
  return std::vector<int64_t>(spatial.begin(), spatial.end());
}

struct UnpoolArgs {
  std::vector<int64_t> stride, padding, size;
};

UnpoolArgs unpool_args(const char* fn, const Tensor& input, IntArrayRef kernel_size, IntArrayRef stride,
                       IntArrayRef padding, IntArrayRef output_size, size_t n) {
  const std::vector<int64_t> k = per_dim(fn, "kernel_size", kernel_size, n);
  UnpoolArgs a;
  a.stride = stride.empty() ? k : per_dim(fn, "stride", stride, n);
  a.padding = per_dim(fn, "padding", padding, n);
  a.size = unpool_output_size(input, k, a.stride, a.padding, output_size);
  return a;
}

}  // namespace

Tensor softmin(const Tensor& input, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax(neg(input), dim, dtype);
}

Tensor normalize(const Tensor& input, double p, int64_t dim, double eps) {
  return div(input, clamp_min(norm(input, Scalar(p), std::vector<int64_t>{dim}, true), eps));
}

Tensor local_response_norm(const Tensor& input, int64_t size, double alpha, double beta, double k) {
  EMBER_CHECK(input.dim() >= 3, ValueError, "Expected 3D or higher dimensionality input (got ", input.dim(),
              " dimensions)");
  if (input.numel() == 0) return input;
  // The mean of the squares over a window of channels, zero-padded: an average pool along
  // the channel dim of x^2 with a unit dim in front (as PyTorch computes it).
  Tensor d = mul(input, input).unsqueeze(1);
  if (input.dim() == 3) {
    d = constant_pad_nd(d, {0, 0, size / 2, (size - 1) / 2});
    d = avg_pool2d(d, {size, 1}, {1}).squeeze(1);
  } else {
    d = d.reshape({input.size(0), 1, input.size(1), input.size(2), -1});
    d = constant_pad_nd(d, {0, 0, 0, 0, size / 2, (size - 1) / 2});
    d = avg_pool3d(d, {size, 1, 1}, {1}).squeeze(1).reshape(input.sizes());
  }
  return div(input, pow(add(mul(d, Scalar(alpha)), Scalar(k)), beta));
}

Tensor lp_pool1d(const Tensor& input, double norm_type, int64_t kernel_size, std::optional<int64_t> stride,
                 bool ceil_mode) {
  const Tensor avg = avg_pool1d(pow(input, norm_type), {kernel_size}, {stride.value_or(kernel_size)}, {0}, ceil_mode);
  return lp_finish(avg, kernel_size, norm_type);
}

Tensor lp_pool2d(const Tensor& input, double norm_type, IntArrayRef kernel_size, IntArrayRef stride, bool ceil_mode) {
  EMBER_CHECK(kernel_size.size() == 1 || kernel_size.size() == 2, ValueError,
              "lp_pool2d: kernel_size must be one or two values, got ", kernel_size);
  const std::vector<int64_t> k = kernel_size.size() == 1 ? std::vector<int64_t>{kernel_size[0], kernel_size[0]}
                                                         : std::vector<int64_t>(kernel_size.begin(), kernel_size.end());
  const std::vector<int64_t> s = stride.empty() ? k : std::vector<int64_t>(stride.begin(), stride.end());
  const Tensor avg = avg_pool2d(pow(input, norm_type), k, s, {0}, ceil_mode);
  return lp_finish(avg, k[0] * k[1], norm_type);
}

Tensor instance_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var, const Tensor& weight,
                     const Tensor& bias, bool use_input_stats, double momentum, double eps) {
  EMBER_CHECK(input.dim() >= 2, ValueError, "instance_norm: expected an input of 2 or more dims (N, C, *), got shape ",
              input.sizes());
  if (use_input_stats) {
    int64_t spatial = 1;
    for (int64_t d = 2; d < input.dim(); ++d) spatial *= input.size(d);
    EMBER_CHECK(spatial > 1, ValueError, "Expected more than 1 spatial element when training, got input size ",
                input.sizes());
  }
  const int64_t n = input.size(0), c = input.size(1);
  // Batch norm of one sample with n * c channels; the statistics repeated per sample.
  auto rep = [&](const Tensor& t) { return t.defined() ? std::optional<Tensor>(repeat(t, {n})) : std::nullopt; };
  const std::optional<Tensor> rm = rep(running_mean), rv = rep(running_var);
  DimVector shape{1, n * c};
  for (int64_t d = 2; d < input.dim(); ++d) shape.push_back(input.size(d));
  const Tensor y = batch_norm(input.reshape(shape), rep(weight), rep(bias), rm, rv, use_input_stats, momentum, eps);
  if (use_input_stats && rm) {
    autograd::NoGradGuard no_grad;
    Tensor mean_out = running_mean, var_out = running_var;
    mean_out.copy_(rm->view({n, c}).mean({0}));
    var_out.copy_(rv->view({n, c}).mean({0}));
  }
  return y.view(input.sizes());
}

Tensor gaussian_nll_loss(const Tensor& input, const Tensor& target, const Tensor& var, bool full, double eps,
                         int64_t reduction) {
  Tensor v = var;
  if (var.sizes() != input.sizes()) {
    const IntArrayRef in = input.sizes(), vs = var.sizes();
    const bool one_less = input.dim() >= 1 && vs == in.slice(0, in.size() - 1);
    const bool last_one = input.dim() >= 1 && var.dim() == input.dim() && var.size(-1) == 1 &&
                          vs.slice(0, vs.size() - 1) == in.slice(0, in.size() - 1);
    EMBER_CHECK(one_less || last_one, ValueError, "var is of incorrect size");
    if (one_less) v = var.unsqueeze(-1);
  }
  EMBER_CHECK(reduction == Reduction::None || reduction == Reduction::Mean || reduction == Reduction::Sum, ValueError,
              reduction, " is not a valid value for reduction");
  EMBER_CHECK(!any(lt(var, Scalar(0))).item<bool>(), ValueError, "var has negative entry/entries");
  // Clamped for stability without changing var's gradient (PyTorch clamps a clone in place,
  // untracked): v plus a constant correction.
  const Tensor vd = v.detach();
  v = add(v, sub(clamp_min(vd, Scalar(eps)), vd));
  Tensor loss = mul(add(log(v), div(pow(sub(input, target), 2.0), v)), Scalar(0.5));
  if (full) loss = add(loss, Scalar(0.5 * std::log(2 * M_PI)));
  return reduce(loss, reduction);
}

Tensor multilabel_soft_margin_loss(const Tensor& input, const Tensor& target, const Tensor& weight,
                                   int64_t reduction) {
  Tensor loss = neg(add(mul(target, log_sigmoid(input)), mul(add(neg(target), Scalar(1)), log_sigmoid(neg(input)))));
  if (weight.defined()) loss = mul(loss, weight);
  const int64_t class_dim = input.dim() - 1;
  loss = div(sum(loss, std::vector<int64_t>{class_dim}), Scalar(input.size(class_dim)));
  return reduce(loss, reduction);
}

// ---------------------------------------------------------------- dropout

Tensor dropout(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  return finish(input, ember::dropout(input, p, training), inplace);
}

Tensor alpha_dropout(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  return finish(input, ember::alpha_dropout(input, p, training), inplace);
}

Tensor feature_alpha_dropout(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  return finish(input, ember::feature_alpha_dropout(input, p, training), inplace);
}

Tensor dropout1d(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  const int64_t dim = input.dim();
  EMBER_CHECK(dim == 2 || dim == 3, RuntimeError, "dropout1d: Expected 2D or 3D input, but received a ", dim,
              "D input. Note that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
              "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).");
  return finish(input, channel_dropout(input, p, training, dim == 3), inplace);
}

Tensor dropout2d(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  const int64_t dim = input.dim();
  if (dim != 3 && dim != 4) {
    warn("dropout2d: Received a " + std::to_string(dim) +
         "-D input to dropout2d, which is deprecated and will result in an error in a "
         "future release. To retain the behavior and silence this warning, please use "
         "dropout instead. Note that dropout2d exists to provide channel-wise dropout on "
         "inputs with 2 spatial dimensions, a channel dimension, and an optional batch "
         "dimension (i.e. 3D or 4D inputs).");
  }
  // torch 1.13 keeps the historical reading of 3-D input as (N, C, L), not as unbatched.
  if (dim == 3) {
    warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior is "
         "desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior will "
         "change in a future release to interpret the input as one without a batch dimension, i.e. shape (C, H, "
         "W). To maintain the 1D channel-wise dropout behavior, please switch to using dropout1d instead.");
  }
  return finish(input, feature_dropout(input, p, training), inplace);
}

Tensor dropout3d(const Tensor& input, double p, bool training, bool inplace) {
  check_p(p);
  const int64_t dim = input.dim();
  if (dim != 4 && dim != 5) {
    warn("dropout3d: Received a " + std::to_string(dim) +
         "-D input to dropout3d, which is deprecated and will result in an error in a "
         "future release. To retain the behavior and silence this warning, please use "
         "dropout instead. Note that dropout3d exists to provide channel-wise dropout on "
         "inputs with 3 spatial dimensions, a channel dimension, and an optional batch "
         "dimension (i.e. 4D or 5D inputs).");
  }
  return finish(input, channel_dropout(input, p, training, dim == 5), inplace);
}

// ---------------------------------------------------------------- max_unpool

Tensor max_unpool1d(const Tensor& input, const Tensor& indices, IntArrayRef kernel_size, IntArrayRef stride,
                    IntArrayRef padding, IntArrayRef output_size) {
  const UnpoolArgs a = unpool_args("max_unpool1d", input, kernel_size, stride, padding, output_size, 1);
  // As torch: the 2-D op over a trailing unit dim.
  return ember::max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), {a.size[0], 1}).squeeze(-1);
}

Tensor max_unpool2d(const Tensor& input, const Tensor& indices, IntArrayRef kernel_size, IntArrayRef stride,
                    IntArrayRef padding, IntArrayRef output_size) {
  const UnpoolArgs a = unpool_args("max_unpool2d", input, kernel_size, stride, padding, output_size, 2);
  return ember::max_unpool2d(input, indices, a.size);
}

Tensor max_unpool3d(const Tensor& input, const Tensor& indices, IntArrayRef kernel_size, IntArrayRef stride,
                    IntArrayRef padding, IntArrayRef output_size) {
  const UnpoolArgs a = unpool_args("max_unpool3d", input, kernel_size, stride, padding, output_size, 3);
  return ember::max_unpool3d(input, indices, a.size, a.stride, a.padding);
}

// ---------------------------------------------------------------- embedding_bag

Tensor embedding_bag(const Tensor& input, const Tensor& weight, const Tensor& offsets, std::optional<double> max_norm,
                     double norm_type, bool scale_grad_by_freq, const std::string& mode, bool sparse,
                     const Tensor& per_sample_weights, bool include_last_offset, std::optional<int64_t> padding_idx) {
  // torch's checks, in its order.
  EMBER_CHECK(!per_sample_weights.defined() || per_sample_weights.sizes() == input.sizes(), ValueError,
              "embedding_bag: If per_sample_weights (", per_sample_weights.sizes(),
              ") is not None, then it must have the same shape as the input (", input.sizes(), ")");
  const int64_t n = input.numel();
  int64_t bags = 0;
  Tensor bag_of;  // the bag of each index
  if (input.dim() == 2) {
    EMBER_CHECK(!offsets.defined(), ValueError,
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length "
                "sequences. However, found offsets of type Tensor");
    bags = input.size(0);
    bag_of = arange(bags, kInt64).unsqueeze(1).expand(input.sizes()).reshape({-1});
  } else {
    EMBER_CHECK(input.dim() == 1, ValueError, "input has to be 1D or 2D Tensor, but got Tensor of dimension ",
                input.dim());
    EMBER_CHECK(offsets.defined(), ValueError, "offsets has to be a 1D Tensor but got None");
    EMBER_CHECK(offsets.dim() == 1, ValueError, "offsets has to be a 1D Tensor");
  }
  if (mode == "max") {
    EMBER_CHECK(!scale_grad_by_freq, ValueError, "max mode does not support scaling the gradient by the frequency");
    EMBER_CHECK(!sparse, ValueError, "max mode does not support sparse weights");
  } else {
    EMBER_CHECK(mode == "sum" || mode == "mean", ValueError, "mode has to be one of sum, mean or max");
  }
  EMBER_CHECK(weight.dtype() == kHalf || weight.dtype() == kFloat || weight.dtype() == kDouble, RuntimeError,
              "Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, Float, "
              "Double; but got ",
              weight.dtype(), " instead (while checking arguments for embedding_bag)");
  EMBER_CHECK(input.dtype() == kInt64 || input.dtype() == kInt32, RuntimeError,
              "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but "
              "got ",
              input.dtype(), " instead (while checking arguments for embedding_bag)");
  EMBER_CHECK(weight.dim() == 2, RuntimeError, "embedding_bag: expected a 2-D weight, got shape ", weight.sizes());
  const Tensor idx = input.reshape({-1}).to(kInt64);
  if (max_norm && n > 0) {  // embedding's renorm, in place and unrecorded
    autograd::NoGradGuard no_grad;
    const Tensor rows = std::get<0>(unique(idx));
    const Tensor picked = index_select(weight, 0, rows);
    const Tensor scale = clamp_max(
        div(wrapped_scalar(Scalar(*max_norm)), add(norm(picked, Scalar(norm_type), {1}), 1e-7)), 1.0);
    Tensor w = weight;
    index_copy_(w, 0, rows, mul(picked, scale.unsqueeze(1)));
  }
  EMBER_CHECK(!per_sample_weights.defined() || mode == "sum", NotImplementedError,
              "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' "
              "(got mode='",
              mode, "'). Please open a feature request on GitHub.");
  if (input.dim() == 1) {
    const Tensor off = offsets.to(kInt64);
    EMBER_CHECK(!include_last_offset || off.numel() >= 1, RuntimeError,
                "include_last_offset: number of offset should be at least 1");
    bags = off.numel() - (include_last_offset ? 1 : 0);
    EMBER_CHECK(off.numel() == 0 || off.select(0, 0).item<int64_t>() == 0, RuntimeError,
                "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
                "However, got ",
                off.select(0, 0).item<int64_t>());
    if (off.numel() > 0) {
      const int64_t last = off.select(0, -1).item<int64_t>();
      EMBER_CHECK(last <= n, RuntimeError, "offsets[-1] can not be greater than input's length ", n,
                  " but got offsets[-1] of ", last);
      EMBER_CHECK(off.numel() < 2 || all(ge(diff(off), Scalar(0))).item<bool>(), RuntimeError,
                  "embedding_bag: offsets must be non-decreasing, got ", off.numel(), " offsets that are not");
    }
    // Counting the bag starts at or before each position (starts at the end are empty bags).
    Tensor starts = bags > 1 ? off.narrow(0, 1, bags - 1) : zeros({0}, kInt64);
    starts = masked_select(starts, lt(starts, Scalar(n)));
    bag_of = cumsum(index_add(zeros({n}, kInt64), 0, starts, ones({starts.numel()}, kInt64)), 0);
  }
  const int64_t num = weight.size(0), dim = weight.size(1);
  std::optional<int64_t> pad = padding_idx;
  if (pad) {
    EMBER_CHECK(*pad < num && *pad >= -num, RuntimeError, "padding_idx must be within the number of embeddings, -",
                num, " through ", num - 1, ", but got ", *pad);
    if (*pad < 0) *pad += num;
  }
  Tensor rows = embedding(weight, idx, -1, scale_grad_by_freq, sparse);
  const Tensor keep = pad ? ne(idx, Scalar(*pad)) : ones({n}, kBool);
  if (per_sample_weights.defined()) rows = mul(rows, per_sample_weights.reshape({-1, 1}));
  const TensorOptions wopt = TensorOptions(weight.dtype()).device(weight.device());
  const Tensor counts = index_add(zeros({bags}, wopt), 0, bag_of, keep.to(weight.dtype()));
  constexpr double kNegInf = -std::numeric_limits<double>::infinity();
  if (mode == "max") {
    rows = where(keep.unsqueeze(1), rows, Scalar(kNegInf));
    const Tensor out =
        scatter_reduce(full({bags, dim}, kNegInf, wopt), 0, bag_of.unsqueeze(1).expand({n, dim}), rows, "amax");
    return where(gt(counts, Scalar(0)).unsqueeze(1), out, Scalar(0.0));
  }
  rows = mul(rows, keep.unsqueeze(1).to(weight.dtype()));
  Tensor out = index_add(zeros({bags, dim}, wopt), 0, bag_of, rows);
  if (mode == "mean") out = div(out, clamp_min(counts, Scalar(1)).unsqueeze(1));
  return out;
}

}  // namespace ember::nn::functional
