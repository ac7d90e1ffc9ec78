// Loss functions written with other ops (composites: autograd differentiates them through
// the ops they call, to any order, and they run on Meta tensors and every backend). They
// follow torch 1.13's ATen definitions (Loss.cpp, LossNLL.cpp, LossCTC.cpp) step by step,
// including which dtypes they accept and their error messages.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ember/autograd.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ember/ops/loss.h"

namespace ember {
namespace loss_detail {
namespace {

void check_reduction(int64_t reduction) {
  EMBER_CHECK(reduction >= Reduction::None && reduction <= Reduction::Sum, ValueError, reduction,
              " is not a valid value for reduction");
}

Tensor apply_reduction(const Tensor& loss, int64_t reduction) {
  if (reduction == Reduction::Mean) return mean(loss);
  if (reduction == Reduction::Sum) return sum(loss);
  return loss;
}

// Torch's CPU kernels of these losses exist for floating dtypes only.
void check_floating(const char* kernel, ScalarType dt) {
  EMBER_CHECK(is_floating_point(dt), RuntimeError, "\"", kernel, "\" not implemented for '", dt, "'");
}

// Data-dependent checks (index ranges, input ranges) need values: Meta tensors have none.
bool has_values(const Tensor& t) { return !t.is_meta() && t.numel() > 0; }

bool any_true(const Tensor& mask) { return any(mask).item<bool>(); }

// Torch has no derivative for some arguments (class weights, soft_margin's target) and
// refuses them when they require grad; so does Ember, with torch's message.
void check_not_differentiable(const char* fn, const char* arg, const Tensor* t) {
  EMBER_CHECK(!(t && t->defined() && autograd::GradMode::is_enabled() && autograd::requires_grad(*t)), RuntimeError,
              "The function '", fn, "' is not differentiable with respect to argument '", arg,
              "'. This input cannot have requires_grad True.");
}
const Tensor* opt(const std::optional<Tensor>& t) { return t ? &*t : nullptr; }

Tensor one_minus(const Tensor& t) { return sub(wrapped_scalar(Scalar(int64_t{1})), t); }

Tensor log_softmax_of(const Tensor& x, int64_t dim) { return log_softmax(x, dim); }

// ---------------------------------------------------------------- regression
Tensor mse_loss_composite(const Tensor& self, const Tensor& target, int64_t reduction) {
  check_reduction(reduction);
  const ScalarType dt = result_type(self, target);
  check_floating("mse_cpu", dt);
  const Tensor d = sub(self, target);
  // Reduced, on one contiguous float/double block, the sum of squares reads d once: as the
  // square of its 2-norm (a threaded reduction) when nothing is differentiated (the norm's
  // gradient is undefined at 0), else as a dot product. A single-threaded BLAS dot of data
  // that two threads just wrote costs 2.5x more than the norm on two threads.
  if (reduction != Reduction::None && (dt == kFloat || dt == kDouble) && d.is_contiguous() && !d.is_meta()) {
    const bool differentiated = autograd::GradMode::is_enabled() &&
                                (autograd::requires_grad(self) || autograd::requires_grad(target));
    Tensor ss;
    if (differentiated) {
      const Tensor flat = d.reshape({-1});
      ss = dot(flat, flat);
    } else {
      const Tensor n = norm(d);
      ss = mul(n, n);
    }
    return reduction == Reduction::Sum ? ss : div(ss, Scalar(d.numel()));
  }
  return apply_reduction(mul(d, d), reduction);
}

Tensor l1_loss_composite(const Tensor& self, const Tensor& target, int64_t reduction) {
  check_reduction(reduction);
  return apply_reduction(abs(sub(self, target)), reduction);
}

Tensor smooth_l1_loss_composite(const Tensor& self, const Tensor& target, int64_t reduction, double beta) {
  check_reduction(reduction);
  EMBER_CHECK(beta >= 0, RuntimeError, "smooth_l1_loss does not support negative values for beta.");
  if (beta == 0) return l1_loss_composite(self, target, reduction);  // torch's special case
  check_floating("smooth_l1_cpu", result_type(self, target));
  const Tensor z = abs(sub(self, target));
  const Tensor loss = where(lt(z, Scalar(beta)), mul(mul(z, z), Scalar(0.5 / beta)), sub(z, Scalar(0.5 * beta)));
  return apply_reduction(loss, reduction);
}

Tensor huber_loss_composite(const Tensor& self, const Tensor& target, int64_t reduction, double delta) {
  check_reduction(reduction);
  EMBER_CHECK(delta > 0, RuntimeError, "huber_loss does not support non-positive values for delta.");
  check_floating("huber_cpu", result_type(self, target));
  const Tensor z = abs(sub(self, target));
  const Tensor loss =
      where(lt(z, Scalar(delta)), mul(mul(z, z), Scalar(0.5)), mul(sub(z, Scalar(0.5 * delta)), Scalar(delta)));
  return apply_reduction(loss, reduction);
}

Tensor poisson_nll_loss_composite(const Tensor& input, const Tensor& target, bool log_input, bool full, double eps,
                                  int64_t reduction) {
  check_reduction(reduction);
  Tensor loss = log_input ? sub(exp(input), mul(target, input)) : sub(input, mul(target, log(add(input, Scalar(eps)))));
  if (full) {
    // Stirling's approximation of log(target!), for targets above 1.
    const Tensor stirling = add(sub(mul(target, log(target)), target),
                                mul(log(mul(target, Scalar(2 * M_PI))), Scalar(0.5)));
    loss = add(loss, masked_fill(stirling, le(target, Scalar(1)), Scalar(0)));
  }
  return apply_reduction(loss, reduction);
}

// ---------------------------------------------------------------- nll_loss, cross_entropy
struct ClassInfo {
  int64_t class_dim;  // 0 for a (C) input, else 1
  int64_t n_classes;
};

// The shape checks of torch's nll_loss_nd, nll_loss and nll_loss2d, in that order.
ClassInfo check_nll_shapes(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight) {
  EMBER_CHECK(self.dim() >= 1, ValueError, "Expected 1 or more dimensions (got ", self.dim(), ")");
  const int64_t nd = self.dim();
  if (nd != 1) {
    EMBER_CHECK(target.dim() >= 1, RuntimeError, "0D or 1D target tensor expected, multi-target not supported");
    EMBER_CHECK(self.sizes()[0] == target.sizes()[0], ValueError, "Expected input batch_size (", self.sizes()[0],
                ") to match target batch_size (", target.sizes()[0], ").");
  }
  if (nd <= 2) {
    EMBER_CHECK(target.dim() <= 1, RuntimeError, "0D or 1D target tensor expected, multi-target not supported");
    const bool no_batch_dim = nd == 1 && target.dim() == 0;
    EMBER_CHECK(no_batch_dim || self.sizes()[0] == target.sizes()[0], RuntimeError, "size mismatch (got input: ",
                self.sizes(), ", target: ", target.sizes(), ")");
  } else if (nd == 4) {
    EMBER_CHECK(target.dim() == 3, RuntimeError,
                "only batches of spatial targets supported (3D tensors) but got targets of dimension: ", target.dim());
    EMBER_CHECK(self.sizes()[2] == target.sizes()[1] && self.sizes()[3] == target.sizes()[2], RuntimeError,
                "size mismatch (got input: ", self.sizes(), " , target: ", target.sizes(), ")");
  } else {
    DimVector expected{self.sizes()[0]};
    for (int64_t d = 2; d < nd; ++d) expected.push_back(self.sizes()[d]);
    EMBER_CHECK(target.sizes().equals(expected), RuntimeError, "Expected target size ", IntArrayRef(expected),
                ", got ", target.sizes());
  }
  const int64_t class_dim = nd == 1 ? 0 : 1;
  const int64_t n_classes = self.sizes()[class_dim];
  EMBER_CHECK(!weight || !weight->defined() || (weight->dim() == 1 && weight->numel() == n_classes), RuntimeError,
              "weight tensor should be defined either for all ", n_classes, " classes or no classes but got weight "
              "tensor of shape: ", weight && weight->defined() ? weight->sizes() : IntArrayRef());
  return {class_dim, n_classes};
}

// Class-index targets: int64 (uint8 accepted, as torch's kernel does).
Tensor class_targets(const char* op, const Tensor& target) {
  EMBER_CHECK(target.dtype() == kInt64 || target.dtype() == kUInt8, RuntimeError, op,
              ": expected scalar type Long but found ", target.dtype());
  return target.dtype() == kInt64 ? target : target.to(kInt64);
}

// Whether some target may equal ignore_index (so a mask is needed), after checking that
// every other target is a class: one min/max pass, and the mask only when needed.
bool check_class_range(const Tensor& t, int64_t n_classes, int64_t ignore_index) {
  const bool ignore_is_class = ignore_index >= 0 && ignore_index < n_classes;
  if (!has_values(t)) return t.numel() > 0;
  const auto [mn, mx] = aminmax(t);
  const int64_t lo = mn.item<int64_t>(), hi = mx.item<int64_t>();
  if (lo >= 0 && hi < n_classes) return ignore_is_class;
  const Tensor bad = logical_and(ne(t, Scalar(ignore_index)), logical_or(lt(t, Scalar(0)), ge(t, Scalar(n_classes))));
  if (any_true(bad)) {
    const int64_t first = masked_select(t, bad).select(0, 0).item<int64_t>();
    EMBER_FAIL(IndexError, "Target ", first, " is out of bounds.");
  }
  return true;  // out-of-range values are all ignore_index
}

Tensor nll_loss_composite(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight_opt,
                          int64_t reduction, int64_t ignore_index) {
  check_reduction(reduction);
  const auto [class_dim, n_classes] = check_nll_shapes(self, target, weight_opt);
  check_floating("nll_loss_out_frame", self.dtype());
  check_not_differentiable("nll_loss_forward", "weight", opt(weight_opt));
  const Tensor t = class_targets("nll_loss", target);
  const bool masked = check_class_range(t, n_classes, ignore_index);
  const bool weighted = weight_opt && weight_opt->defined();

  // -self[target] along the class dim, as a gather; ignored targets read class 0 and are
  // masked out of the loss and of the weights.
  Tensor ignored, safe = t;
  if (masked) {
    ignored = eq(t, Scalar(ignore_index));
    safe = masked_fill(t, ignored, Scalar(0));
  }
  Tensor loss = neg(gather(self, class_dim, safe.unsqueeze(class_dim)).squeeze(class_dim));
  Tensor w;
  if (weighted) {
    w = take(*weight_opt, safe);
    loss = mul(loss, w);
  }
  if (masked) {
    loss = masked_fill(loss, ignored, Scalar(0));
    if (weighted) w = masked_fill(w, ignored, Scalar(0));
  }
  if (reduction != Reduction::Mean) return apply_reduction(loss, reduction);
  if (!weighted && !masked) return mean(loss);
  // Mean over the total weight of the targets taken into account (their count unweighted);
  // 0 / 0 is NaN as in torch.
  const Tensor total = weighted ? sum(w) : sum(logical_not(ignored)).to(loss.dtype());
  return div(sum(loss), total);
}

// The weight viewed along the class dim of an input of `nd` dims.
Tensor class_weight_view(const Tensor& weight, int64_t nd, int64_t class_dim) {
  if (nd <= 1) return weight;
  DimVector shape(nd, 1);
  shape[class_dim] = weight.numel();
  return weight.view(shape);
}

Tensor cross_entropy_prob_target(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                 int64_t reduction, double label_smoothing) {
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  const int64_t n_classes = self.sizes()[class_dim];
  const bool weighted = weight && weight->defined();
  EMBER_CHECK(!weighted || (weight->dim() == 1 && weight->numel() == n_classes), RuntimeError,
              "cross_entropy: weight tensor should be defined either for all ", n_classes, " classes or no classes "
              "but got weight tensor of shape: ", weighted ? weight->sizes() : IntArrayRef());
  const Tensor input = log_softmax_of(self, class_dim);
  Tensor tgt = target;
  if (label_smoothing > 0.0) {
    EMBER_CHECK(label_smoothing <= 1.0, RuntimeError, "label_smoothing must be between 0.0 and 1.0. Got: ",
                label_smoothing);
    tgt = add(mul(target, Scalar(1 - label_smoothing)), Scalar(label_smoothing / static_cast<double>(n_classes)));
  }
  Tensor prod = mul(input, tgt);
  if (weighted) prod = mul(prod, class_weight_view(*weight, input.dim(), class_dim));
  switch (reduction) {
    case Reduction::Mean:
      if (input.numel() == 0) return mul(sum(prod), Scalar(std::numeric_limits<double>::quiet_NaN()));
      return div(neg(sum(prod)), Scalar(input.numel() / n_classes));
    case Reduction::Sum:
      return neg(sum(prod));
    default:
      return neg(sum(prod, DimVector{class_dim}));
  }
}

Tensor cross_entropy_label_smoothing(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                     int64_t reduction, int64_t ignore_index, double label_smoothing) {
  const int64_t class_dim = self.dim() == 1 ? 0 : 1;
  const int64_t n_classes = self.sizes()[class_dim];
  const Tensor input = log_softmax_of(self, class_dim);
  const Tensor nll = nll_loss_composite(input, target, weight, reduction, ignore_index);
  const bool weighted = weight && weight->defined();
  const Tensor ignore_mask = eq(target, Scalar(ignore_index));
  // The uniform part of the smoothed target: -sum_c w_c * log p_c, zero for ignored targets.
  Tensor smooth = weighted ? neg(sum(mul(input, class_weight_view(*weight, input.dim(), class_dim)), DimVector{class_dim}))
                           : neg(sum(input, DimVector{class_dim}));
  smooth = masked_fill(smooth, ignore_mask, Scalar(0));
  Tensor ret;
  switch (reduction) {
    case Reduction::Mean:
      if (weighted) {
        // Normalized by the weights of the targets taken into account, like nll_loss.
        const Tensor safe = masked_fill(class_targets("cross_entropy", target), ignore_mask, Scalar(0));
        ret = div(sum(smooth), sum(masked_fill(take(*weight, safe), ignore_mask, Scalar(0))));
      } else {
        ret = div(sum(smooth), sum(logical_not(ignore_mask)).to(smooth.dtype()));
      }
      break;
    case Reduction::Sum: ret = sum(smooth); break;
    default: ret = smooth; break;
  }
  return add(mul(nll, Scalar(1 - label_smoothing)), mul(ret, Scalar(label_smoothing / static_cast<double>(n_classes))));
}

Tensor cross_entropy_loss_composite(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                    int64_t reduction, int64_t ignore_index, double label_smoothing) {
  check_reduction(reduction);
  check_floating("log_softmax", self.dtype());
  if (self.sizes().equals(target.sizes())) {
    // Same shapes: class probabilities.
    EMBER_CHECK(is_floating_point(target.dtype()), RuntimeError,
                "Expected floating point type for target with class probabilities, got ", target.dtype());
    EMBER_CHECK(ignore_index < 0, RuntimeError, "ignore_index is not supported for floating point target");
    return cross_entropy_prob_target(self, target, weight, reduction, label_smoothing);
  }
  if (label_smoothing > 0.0) {
    EMBER_CHECK(label_smoothing <= 1.0, RuntimeError, "label_smoothing must be between 0.0 and 1.0. Got: ",
                label_smoothing);
    EMBER_CHECK(self.dim() >= 1, ValueError, "Expected 1 or more dimensions (got ", self.dim(), ")");
    return cross_entropy_label_smoothing(self, target, weight, reduction, ignore_index, label_smoothing);
  }
  EMBER_CHECK(self.dim() >= 1, ValueError, "Expected 1 or more dimensions (got ", self.dim(), ")");
  return nll_loss_composite(log_softmax_of(self, self.dim() == 1 ? 0 : 1), target, weight, reduction, ignore_index);
}

// ---------------------------------------------------------------- binary
Tensor binary_cross_entropy_composite(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                      int64_t reduction) {
  check_reduction(reduction);
  check_floating("binary_cross_entropy", self.dtype());
  check_not_differentiable("binary_cross_entropy", "weight", opt(weight));
  EMBER_CHECK(self.sizes().equals(target.sizes()), ValueError, "Using a target size (", target.sizes(),
              ") that is different to the input size (", self.sizes(), ") is deprecated. Please ensure they have "
              "the same size.");
  if (has_values(self))
    EMBER_CHECK(!any_true(logical_or(lt(self, Scalar(0)), gt(self, Scalar(1)))), RuntimeError,
                "all elements of input should be between 0 and 1");
  // -(y log x + (1 - y) log(1 - x)) with both logs clamped at -100, as torch does. Where x is
  // 0 or 1 the log's argument is replaced first, so that the gradient there is 0, not NaN
  // (torch's formula gives (x - y) / 1e-12 there).
  const Tensor x_pos = gt(self, Scalar(0)), x_lt1 = lt(self, Scalar(1));
  const Tensor log_x = where(x_pos, clamp_min(log(where(x_pos, self, Scalar(1))), Scalar(-100)), Scalar(-100));
  const Tensor log_1mx =
      where(x_lt1, clamp_min(log1p(neg(where(x_lt1, self, Scalar(0)))), Scalar(-100)), Scalar(-100));
  Tensor loss = sub(mul(sub(target, Scalar(1)), log_1mx), mul(target, log_x));
  if (weight && weight->defined()) loss = mul(loss, *weight);
  EMBER_CHECK(loss.sizes().equals(self.sizes()), RuntimeError, "binary_cross_entropy: weight of shape ",
              weight ? weight->sizes() : IntArrayRef(), " does not broadcast to the input's shape ", self.sizes());
  return apply_reduction(loss, reduction);
}

Tensor binary_cross_entropy_with_logits_composite(const Tensor& self, const Tensor& target,
                                                  const std::optional<Tensor>& weight,
                                                  const std::optional<Tensor>& pos_weight, int64_t reduction) {
  check_reduction(reduction);
  check_floating("binary_cross_entropy_with_logits", self.dtype());
  check_not_differentiable("binary_cross_entropy_with_logits", "weight", opt(weight));
  check_not_differentiable("binary_cross_entropy_with_logits", "pos_weight", opt(pos_weight));
  EMBER_CHECK(self.sizes().equals(target.sizes()), ValueError, "Target size (", target.sizes(),
              ") must be the same as input size (", self.sizes(), ")");
  // log(1 + exp(-x)) as torch computes it, m + log(exp(-m) + exp(-x - m)) with m = max(-x, 0):
  // no overflow, and the right gradient at x = 0 (-1/2) whichever side clamp_min's takes.
  const Tensor neg_x = neg(self);
  const Tensor m = clamp_min(neg_x, Scalar(0));
  const Tensor softplus_neg = add(log(add(exp(neg(m)), exp(sub(neg_x, m)))), m);
  // loss = (1 - t) * x + (1 + (pos_weight - 1) * t) * log(1 + exp(-x))
  Tensor loss;
  if (pos_weight && pos_weight->defined()) {
    const Tensor log_weight = add(mul(sub(*pos_weight, Scalar(1)), target), Scalar(1));
    loss = addcmul(mul(log_weight, softplus_neg), one_minus(target), self);
  } else {
    loss = addcmul(softplus_neg, one_minus(target), self);
  }
  if (weight && weight->defined()) loss = mul(loss, *weight);
  return apply_reduction(loss, reduction);
}

Tensor kl_div_composite(const Tensor& self, const Tensor& target, int64_t reduction, bool log_target) {
  check_reduction(reduction);
  EMBER_CHECK(!self.is_complex() && !target.is_complex(), RuntimeError, "kl_div: Complex inputs not supported.");
  EMBER_CHECK(!is_integral(self.dtype(), true) && !is_integral(target.dtype(), true), RuntimeError,
              "kl_div: Integral inputs not supported.");
  const Tensor loss = log_target ? mul(exp(target), sub(target, self)) : sub(xlogy(target, target), mul(target, self));
  return apply_reduction(loss, reduction);
}

Tensor soft_margin_loss_composite(const Tensor& self, const Tensor& target, int64_t reduction) {
  check_reduction(reduction);
  const ScalarType dt = result_type(self, target);
  EMBER_CHECK(is_floating_point(dt) || is_complex(dt), RuntimeError, "\"soft_margin_loss\" not implemented for '", dt,
              "'");
  check_not_differentiable("soft_margin_loss", "target", &target);
  EMBER_CHECK(!(is_complex(dt) && autograd::GradMode::is_enabled() && autograd::requires_grad(self)), RuntimeError,
              "soft_margin_loss does not support automatic differentiation for outputs with complex dtype.");
  const Tensor e = exp(neg(mul(self, target)));
  // log1p has no complex kernel (as in torch 1.13, whose complex log1p is log(1 + x) too).
  return apply_reduction(is_complex(dt) ? log(add(e, Scalar(1))) : log1p(e), reduction);
}

// ---------------------------------------------------------------- margins
Tensor margin_ranking_loss_composite(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                                     int64_t reduction) {
  check_reduction(reduction);
  const Tensor out = clamp_min(add(mul(neg(target), sub(input1, input2)), Scalar(margin)), Scalar(0));
  return apply_reduction(out, reduction);
}

Tensor hinge_embedding_loss_composite(const Tensor& self, const Tensor& target, double margin, int64_t reduction) {
  check_reduction(reduction);
  // ATen's `margin - self` fills a tensor of self's dtype with margin: integer inputs keep
  // their dtype (and a truncated margin).
  const Tensor margin_clamp = clamp_min(sub(full_like(self, Scalar(margin)), self), Scalar(0));
  const Tensor zeros = zeros_like(self);
  const Tensor out = add(where(ne(target, Scalar(1)), margin_clamp, zeros), where(ne(target, Scalar(-1)), self, zeros));
  return apply_reduction(out, reduction);
}

Tensor cosine_embedding_loss_composite(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                                       int64_t reduction) {
  check_reduction(reduction);
  const int64_t targ_dim = target.dim();
  EMBER_CHECK(targ_dim == 1 || targ_dim == 0, RuntimeError,
              "0D or 1D target tensor expected, multi-target not supported");
  if (targ_dim == 1)
    EMBER_CHECK(input1.dim() == 2 && input2.dim() == 2, RuntimeError,
                "1D target tensor expects 2D input tensors, but found inputs with sizes ", input1.sizes(), " and ",
                input2.sizes(), ".");
  else
    EMBER_CHECK(input1.dim() == 1 && input2.dim() == 1, RuntimeError,
                "0D target tensor expects 1D input tensors, but found inputs with sizes ", input1.sizes(), " and ",
                input2.sizes(), ".");
  constexpr double kEps = 1e-12;
  const DimVector d{targ_dim};
  const Tensor prod_sum = sum(mul(input1, input2), d);
  const Tensor mag1 = add(sum(mul(input1, input1), d), Scalar(kEps));
  const Tensor mag2 = add(sum(mul(input2, input2), d), Scalar(kEps));
  const Tensor cos = div(prod_sum, sqrt(mul(mag1, mag2)));
  const Tensor zeros = zeros_like(cos);
  const Tensor pos = one_minus(cos);
  const Tensor negative = clamp_min(sub(cos, Scalar(margin)), Scalar(0));
  const Tensor out = add(where(eq(target, Scalar(1)), pos, zeros), where(eq(target, Scalar(-1)), negative, zeros));
  return apply_reduction(out, reduction);
}

// torch.pairwise_distance: the p-norm of x1 - x2 + eps over the last dim.
Tensor pairwise_distance_of(const Tensor& x1, const Tensor& x2, double p, double eps) {
  const int64_t last = std::max(x1.dim(), x2.dim()) - 1;
  return norm(add(sub(x1, x2), Scalar(eps)), Scalar(p), DimVector{last}, false);
}

Tensor triplet_margin_loss_composite(const Tensor& anchor, const Tensor& positive, const Tensor& negative,
                                     double margin, double p, double eps, bool swap, int64_t reduction) {
  check_reduction(reduction);
  EMBER_CHECK(anchor.dim() == positive.dim() && positive.dim() == negative.dim(), RuntimeError,
              "All inputs should have same dimension but got ", anchor.dim(), "D, ", positive.dim(), "D and ",
              negative.dim(), "D inputs.");
  const Tensor dist_pos = pairwise_distance_of(anchor, positive, p, eps);
  Tensor dist_neg = pairwise_distance_of(anchor, negative, p, eps);
  if (swap) dist_neg = minimum(dist_neg, pairwise_distance_of(positive, negative, p, eps));
  return apply_reduction(clamp_min(sub(add(dist_pos, Scalar(margin)), dist_neg), Scalar(0)), reduction);
}

void check_margin_input(const Tensor& self) {
  const int64_t nd = self.dim();
  EMBER_CHECK((nd == 2 && self.sizes()[1] != 0) || (nd == 1 && self.sizes()[0] != 0) || nd == 0, RuntimeError,
              "Expected non-empty vector or matrix with optional 0-dim batch size, but got: ", self.sizes());
}

Tensor multilabel_margin_loss_composite(const Tensor& self, const Tensor& target, int64_t reduction) {
  check_reduction(reduction);
  check_margin_input(self);
  const int64_t nd = self.dim();
  const int64_t nframe = nd <= 1 ? 1 : self.sizes()[0];
  const int64_t dim = nd == 0 ? 1 : self.sizes()[nd - 1];
  if (nd <= 1)
    EMBER_CHECK(target.dim() <= 1 && target.numel() == dim, RuntimeError, "inconsistent size ", target.sizes(),
                " for argument #2 'target'");
  else
    EMBER_CHECK(target.dim() == 2 && target.sizes()[0] == nframe && target.sizes()[1] == dim, RuntimeError,
                "inconsistent size ", target.sizes(), " for argument #2 'target'");
  check_floating("multilabel_margin_loss_forward_out_frame", self.dtype());
  EMBER_CHECK(target.dtype() == kInt64, RuntimeError, "multilabel_margin_loss: expected scalar type Long but found ",
              target.dtype());
  const Tensor x = self.reshape({nframe, dim});
  const Tensor t = target.reshape({nframe, dim});
  // Each row's targets are the entries before its first negative one.
  const Tensor valid = eq(cumsum(lt(t, Scalar(0)), 1), Scalar(0));
  if (has_values(t))
    EMBER_CHECK(!any_true(logical_and(valid, ge(t, Scalar(dim)))), RuntimeError,
                "argument #2 'target' is out of range");
  const Tensor safe = where(valid, t, Scalar(0));
  // is_target[n, i]: class i is one of row n's targets.
  const Tensor classes = arange(Scalar(dim), TensorOptions(kInt64).device(self.device()));
  const Tensor is_target = any(logical_and(eq(safe.unsqueeze(2), classes), valid.unsqueeze(2)), 1);
  // Hinge terms [n, j, i] = max(0, 1 - (x[target j] - x[i])) over targets j and non-targets i.
  const Tensor x_t = gather(x, 1, safe);
  const Tensor hinge = clamp_min(add(sub(x.unsqueeze(1), x_t.unsqueeze(2)), Scalar(1)), Scalar(0));
  const Tensor pair = logical_and(valid.unsqueeze(2), logical_not(is_target).unsqueeze(1));
  Tensor loss = div(sum(where(pair, hinge, Scalar(0)), DimVector{1, 2}), Scalar(dim));
  if (reduction == Reduction::None) return target.dim() <= 1 ? loss.reshape({}) : loss;
  return apply_reduction(loss, reduction);
}

Tensor multi_margin_loss_composite(const Tensor& self, const Tensor& target, const Scalar& p_s, const Scalar& margin,
                                   const std::optional<Tensor>& weight, int64_t reduction) {
  check_reduction(reduction);
  const double p = p_s.to_double();
  EMBER_CHECK(p == 1 || p == 2, RuntimeError, "only p == 1 and p == 2 supported");
  check_margin_input(self);
  const int64_t nd = self.dim();
  const int64_t nframe = nd <= 1 ? 1 : self.sizes()[0];
  const int64_t dim = nd == 0 ? 1 : self.sizes()[nd - 1];
  EMBER_CHECK(target.dim() <= 1 && target.numel() == nframe, RuntimeError, "inconsistent target size, got: ",
              target.sizes());
  const bool weighted = weight && weight->defined();
  EMBER_CHECK(!weighted || (weight->dim() <= 1 && weight->numel() == dim), RuntimeError,
              "inconsistent weight size, expected ", dim, " but got ", weighted ? weight->sizes() : IntArrayRef());
  check_floating("multi_margin_loss_cpu_kernel", self.dtype());
  check_not_differentiable("multi_margin_loss", "weight", opt(weight));
  EMBER_CHECK(target.dtype() == kInt64, RuntimeError, "multi_margin_loss: expected scalar type Long but found ",
              target.dtype());
  const Tensor x = self.reshape({nframe, dim});
  const Tensor t = target.reshape({nframe, 1});
  if (has_values(t))
    EMBER_CHECK(!any_true(logical_or(lt(t, Scalar(0)), ge(t, Scalar(dim)))), RuntimeError, "target out of range");
  // max(0, margin - x[y] + x[i])^p * w[y] over i != y, divided by the number of classes.
  Tensor z = clamp_min(add(sub(x, gather(x, 1, t)), margin), Scalar(0));
  if (p == 2) z = mul(z, z);
  if (weighted) z = mul(z, take(*weight, t));
  const Tensor classes = arange(Scalar(dim), TensorOptions(kInt64).device(self.device()));
  z = where(eq(classes, t), Scalar(0), z);
  const Tensor loss = div(sum(z, DimVector{1}), Scalar(dim));
  if (reduction == Reduction::None) return target.dim() == 0 ? loss.reshape({}) : loss;
  return apply_reduction(loss, reduction);
}

}  // namespace
}  // namespace loss_detail

namespace loss_detail {
namespace {

// ---------------------------------------------------------------- ctc_loss
// Stands in for log(0) in the alpha recursion: finite, so that logsumexp's gradient stays
// finite at unreachable states (exp(-inf - -inf) would be NaN), and far below any real
// log-likelihood; results below kUnreachable mean no alignment exists (infinite loss).
constexpr double kLogZero = -1e30;
constexpr double kUnreachable = -1e29;

std::vector<int64_t> host_lengths(const Tensor& lengths, const char* name) {
  EMBER_CHECK(is_integral(lengths.dtype(), false), RuntimeError, name, " must be integral");
  const Tensor l = lengths.to(kCPU).to(kInt64).contiguous().flatten();
  const int64_t* p = l.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + l.numel());
}

Tensor ctc_loss_impl(const Tensor& log_probs_in, const Tensor& targets_in, IntArrayRef input_lengths,
                     IntArrayRef target_lengths, int64_t blank, int64_t reduction, bool zero_infinity) {
  check_reduction(reduction);
  const bool batched = log_probs_in.dim() == 3;
  const Tensor lp = batched ? log_probs_in : log_probs_in.unsqueeze(1);
  EMBER_CHECK(lp.dim() == 3, RuntimeError, "ctc_loss: expected log_probs of 2 or 3 dimensions (T, [N,] C) but got ",
              log_probs_in.sizes());
  EMBER_CHECK(lp.dtype() == kFloat || lp.dtype() == kDouble, RuntimeError, "\"ctc_loss_cpu\" not implemented for '",
              lp.dtype(), "'");
  EMBER_CHECK(is_integral(targets_in.dtype(), false), RuntimeError,
              "Expected tensor for argument #2 'targets' to have scalar type Long; but got ", targets_in.dtype(),
              " instead (while checking arguments for ctc_loss_cpu)");
  const Tensor targets = targets_in.to(kInt64);
  EMBER_CHECK(targets.dim() >= 1 && targets.dim() <= 2, RuntimeError,
              "Expected 1 to 2 dimensions, but got ", targets.dim(), "-dimensional tensor for argument #2 'targets' "
              "(while checking arguments for ctc_loss_cpu)");
  const int64_t T = lp.sizes()[0], N = lp.sizes()[1], C = lp.sizes()[2];
  EMBER_CHECK(0 <= blank && blank < C, RuntimeError, "blank must be in label range");
  EMBER_CHECK(static_cast<int64_t>(input_lengths.size()) == N, RuntimeError, "input_lengths must be of size batch_size");
  EMBER_CHECK(static_cast<int64_t>(target_lengths.size()) == N, RuntimeError,
              "target_lengths must be of size batch_size");
  int64_t max_len = 0, total = 0;
  for (int64_t b = 0; b < N; ++b) {
    EMBER_CHECK(target_lengths[b] >= 0, RuntimeError, "ctc_loss: target_lengths must be non-negative, got ",
                target_lengths[b]);
    EMBER_CHECK(input_lengths[b] >= 0 && input_lengths[b] <= T, RuntimeError,
                "Expected input_lengths to have value at most ", T, ", but got value ", input_lengths[b],
                " (while checking arguments for ctc_loss_cpu)");
    max_len = std::max(max_len, target_lengths[b]);
    total += target_lengths[b];
  }
  const TensorOptions lopt = TensorOptions(kInt64).device(lp.device());
  const Tensor tl = tensor(target_lengths).to(lp.device());
  const Tensor il = tensor(input_lengths).to(lp.device());
  // Padded targets [N, max_len]: from a concatenation through per-sample offsets.
  Tensor padded;
  const Tensor k = arange(Scalar(max_len), lopt);  // [max_len]
  if (targets.dim() == 1) {
    EMBER_CHECK(targets.sizes()[0] == total, RuntimeError, "Expected tensor for argument #2 'targets' to have size ",
                total, " at dimension 0, but got size ", targets.sizes()[0],
                " (while checking arguments for ctc_loss_cpu)");
    const Tensor offsets = sub(cumsum(tl, 0), tl).unsqueeze(1);
    const Tensor idx = clamp_max(add(offsets, k), Scalar(std::max<int64_t>(total - 1, 0)));
    padded = total > 0 ? take(targets, idx) : zeros({N, max_len}, lopt);
  } else {
    EMBER_CHECK(targets.sizes()[0] == N, RuntimeError, "Expected tensor for argument #2 'targets' to have size ", N,
                " at dimension 0, but got size ", targets.sizes()[0], " (while checking arguments for ctc_loss_cpu)");
    EMBER_CHECK(targets.sizes()[1] >= max_len, RuntimeError, "Expected tensor to have size at least ", max_len,
                " at dimension 1, but got size ", targets.sizes()[1],
                " for argument #2 'targets' (while checking arguments for ctc_loss_cpu)");
    padded = targets.narrow(1, 0, max_len);
  }
  const Tensor in_target = lt(k, tl.unsqueeze(1));  // [N, max_len]
  padded = where(in_target, padded, Scalar(blank));
  if (has_values(padded))
    EMBER_CHECK(!any_true(logical_or(lt(padded, Scalar(0)), ge(padded, Scalar(C)))), IndexError,
                "ctc_loss: target labels must be in [0, ", C, ")");
  // Extended labels [N, S]: blank, l1, blank, l2, ..., blank.
  const int64_t S = 2 * max_len + 1;
  const Tensor blanks = full({N, max_len + 1}, Scalar(blank), lopt);
  const Tensor ext = cat({stack({blanks.narrow(1, 0, max_len), padded}, 2).view({N, 2 * max_len}),
                          blanks.narrow(1, 0, 1)}, 1);
  // A label may be reached from two states back when it differs from the label there.
  const Tensor s_idx = arange(Scalar(S), lopt);
  Tensor skip = logical_and(eq(remainder(s_idx, Scalar(2)), Scalar(1)), ge(s_idx, Scalar(3)));
  if (S >= 3) {
    const Tensor prev2 = cat({full({N, 2}, Scalar(-1), lopt), ext.narrow(1, 0, S - 2)}, 1);
    skip = logical_and(skip, ne(ext, prev2));
  }
  const Tensor sl = add(mul(tl, Scalar(2)), Scalar(1)).unsqueeze(1);  // [N, 1]: states in use

  Tensor ll;  // log-likelihood per sample
  if (T == 0) {
    ll = full({N}, Scalar(kLogZero), TensorOptions(lp.dtype()).device(lp.device()));
  } else {
    // Emissions [T, N, S] = log_probs at each state's label, one gather for all steps.
    const Tensor em = gather(lp, 2, ext.unsqueeze(0).expand({T, N, S}));
    const TensorOptions fopt = TensorOptions(lp.dtype()).device(lp.device());
    const Tensor lowest = full({N, 2}, Scalar(kLogZero), fopt);
    // Added to the state two back: 0 where that transition exists, log(0) elsewhere.
    const Tensor skip_penalty = where(skip, Scalar(0.0), Scalar(kLogZero)).to(lp.dtype());
    // active[t, n]: step t is inside sample n's input.
    const Tensor active = lt(arange(Scalar(T), lopt).unsqueeze(1), il).unsqueeze(2);  // [T, N, 1]
    Tensor alpha = where(lt(s_idx, minimum(sl, full({N, 1}, Scalar(2), lopt))), em.select(0, 0), Scalar(kLogZero));
    for (int64_t t = 1; t < T; ++t) {
      // alpha shifted right by one and two states, as views of one padded copy.
      const Tensor padded_alpha = cat({lowest, alpha}, 1);
      const Tensor from_prev = padded_alpha.narrow(1, 1, S);
      const Tensor from_skip = add(padded_alpha.narrow(1, 0, S), skip_penalty);
      const Tensor next = add(logsumexp(stack({alpha, from_prev, from_skip}, 0), DimVector{0}), em.select(0, t));
      // Samples whose input ended keep their last alpha.
      alpha = where(active.select(0, t), next, alpha);
    }
    // End in the last blank or the last label.
    const Tensor last = gather(alpha, 1, sub(sl, Scalar(1)));
    const Tensor before = gather(alpha, 1, clamp_min(sub(sl, Scalar(2)), Scalar(0)));
    ll = where(gt(tl, Scalar(0)).unsqueeze(1), logaddexp(last, before), last).squeeze(1);
  }
  const double inf = std::numeric_limits<double>::infinity();
  // No input: the empty target has probability 1, any other 0.
  ll = where(eq(il, Scalar(0)), where(eq(tl, Scalar(0)), Scalar(0.0), Scalar(kLogZero)), ll);
  Tensor res = where(lt(ll, Scalar(kUnreachable)), Scalar(inf), neg(ll));
  if (zero_infinity) res = where(eq(res, Scalar(inf)), Scalar(0.0), res);
  if (reduction == Reduction::Mean) return mean(div(res, clamp_min(tl, Scalar(1)).to(res.dtype())));
  if (reduction == Reduction::Sum) return sum(res);
  return batched ? res : res.squeeze(0);
}

Tensor ctc_loss_tensor_composite(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                                 const Tensor& target_lengths, int64_t blank, int64_t reduction, bool zero_infinity) {
  const std::vector<int64_t> il = host_lengths(input_lengths, "input_lengths");
  const std::vector<int64_t> tl = host_lengths(target_lengths, "target_lengths");
  return ctc_loss_impl(log_probs, targets, il, tl, blank, reduction, zero_infinity);
}

Tensor ctc_loss_list_composite(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                               IntArrayRef target_lengths, int64_t blank, int64_t reduction, bool zero_infinity) {
  return ctc_loss_impl(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity);
}

using PairSig = Tensor(const Tensor&, const Tensor&, int64_t);
using PairParamSig = Tensor(const Tensor&, const Tensor&, int64_t, double);
using PoissonSig = Tensor(const Tensor&, const Tensor&, bool, bool, double, int64_t);
using NllSig = Tensor(const Tensor&, const Tensor&, const std::optional<Tensor>&, int64_t, int64_t);
using CrossEntropySig = Tensor(const Tensor&, const Tensor&, const std::optional<Tensor>&, int64_t, int64_t, double);
using BceSig = Tensor(const Tensor&, const Tensor&, const std::optional<Tensor>&, int64_t);
using BceLogitsSig = Tensor(const Tensor&, const Tensor&, const std::optional<Tensor>&, const std::optional<Tensor>&,
                            int64_t);
using KlDivSig = Tensor(const Tensor&, const Tensor&, int64_t, bool);
using TripleSig = Tensor(const Tensor&, const Tensor&, const Tensor&, double, int64_t);
using HingeSig = Tensor(const Tensor&, const Tensor&, double, int64_t);
using TripletSig = Tensor(const Tensor&, const Tensor&, const Tensor&, double, double, double, bool, int64_t);
using MultiMarginSig = Tensor(const Tensor&, const Tensor&, const Scalar&, const Scalar&, const std::optional<Tensor>&,
                              int64_t);
using CtcTensorSig = Tensor(const Tensor&, const Tensor&, const Tensor&, const Tensor&, int64_t, int64_t, bool);
using CtcListSig = Tensor(const Tensor&, const Tensor&, IntArrayRef, IntArrayRef, int64_t, int64_t, bool);

}  // namespace
}  // namespace loss_detail


Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  static const TypedOp<loss_detail::PairSig> op("mse_loss");
  return op.call(self, target, reduction);
}
Tensor l1_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  static const TypedOp<loss_detail::PairSig> op("l1_loss");
  return op.call(self, target, reduction);
}
Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction, double beta) {
  static const TypedOp<loss_detail::PairParamSig> op("smooth_l1_loss");
  return op.call(self, target, reduction, beta);
}
Tensor huber_loss(const Tensor& self, const Tensor& target, int64_t reduction, double delta) {
  static const TypedOp<loss_detail::PairParamSig> op("huber_loss");
  return op.call(self, target, reduction, delta);
}
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full, double eps,
                        int64_t reduction) {
  static const TypedOp<loss_detail::PoissonSig> op("poisson_nll_loss");
  return op.call(input, target, log_input, full, eps, reduction);
}
Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight, int64_t reduction,
                int64_t ignore_index) {
  static const TypedOp<loss_detail::NllSig> op("nll_loss");
  return op.call(self, target, weight, reduction, ignore_index);
}
Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                          int64_t reduction, int64_t ignore_index, double label_smoothing) {
  static const TypedOp<loss_detail::CrossEntropySig> op("cross_entropy_loss");
  return op.call(self, target, weight, reduction, ignore_index, label_smoothing);
}
Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                            int64_t reduction) {
  static const TypedOp<loss_detail::BceSig> op("binary_cross_entropy");
  return op.call(self, target, weight, reduction);
}
Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight,
                                        const std::optional<Tensor>& pos_weight, int64_t reduction) {
  static const TypedOp<loss_detail::BceLogitsSig> op("binary_cross_entropy_with_logits");
  return op.call(self, target, weight, pos_weight, reduction);
}
Tensor kl_div(const Tensor& self, const Tensor& target, int64_t reduction, bool log_target) {
  static const TypedOp<loss_detail::KlDivSig> op("kl_div");
  return op.call(self, target, reduction, log_target);
}
Tensor soft_margin_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  static const TypedOp<loss_detail::PairSig> op("soft_margin_loss");
  return op.call(self, target, reduction);
}
Tensor multilabel_margin_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  static const TypedOp<loss_detail::PairSig> op("multilabel_margin_loss");
  return op.call(self, target, reduction);
}
Tensor multi_margin_loss(const Tensor& self, const Tensor& target, const Scalar& p, const Scalar& margin,
                         const std::optional<Tensor>& weight, int64_t reduction) {
  static const TypedOp<loss_detail::MultiMarginSig> op("multi_margin_loss");
  return op.call(self, target, p, margin, weight, reduction);
}
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                           int64_t reduction) {
  static const TypedOp<loss_detail::TripleSig> op("margin_ranking_loss");
  return op.call(input1, input2, target, margin, reduction);
}
Tensor hinge_embedding_loss(const Tensor& self, const Tensor& target, double margin, int64_t reduction) {
  static const TypedOp<loss_detail::HingeSig> op("hinge_embedding_loss");
  return op.call(self, target, margin, reduction);
}
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin,
                             int64_t reduction) {
  static const TypedOp<loss_detail::TripleSig> op("cosine_embedding_loss");
  return op.call(input1, input2, target, margin, reduction);
}
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin,
                           double p, double eps, bool swap, int64_t reduction) {
  static const TypedOp<loss_detail::TripletSig> op("triplet_margin_loss");
  return op.call(anchor, positive, negative, margin, p, eps, swap, reduction);
}
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank, int64_t reduction, bool zero_infinity) {
  static const TypedOp<loss_detail::CtcTensorSig> op("ctc_loss.Tensor");
  return op.call(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity);
}
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths, IntArrayRef target_lengths,
                int64_t blank, int64_t reduction, bool zero_infinity) {
  static const TypedOp<loss_detail::CtcListSig> op("ctc_loss.IntList");
  return op.call(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity);
}

EMBER_REGISTER(loss_ops) {
  // Function-only, like torch._C._nn's losses; reduction: 0 none, 1 mean, 2 sum.
  define_op<loss_detail::PairSig>("mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor", Tag::FunctionOnly);
  register_composite<loss_detail::PairSig, &loss_detail::mse_loss_composite>("mse_loss");
  define_op<loss_detail::PairSig>("l1_loss(Tensor self, Tensor target, int reduction=1) -> Tensor", Tag::FunctionOnly);
  register_composite<loss_detail::PairSig, &loss_detail::l1_loss_composite>("l1_loss");
  define_op<loss_detail::PairParamSig>("smooth_l1_loss(Tensor self, Tensor target, int reduction=1, float beta=1.0) -> Tensor",
                          Tag::FunctionOnly);
  register_composite<loss_detail::PairParamSig, &loss_detail::smooth_l1_loss_composite>("smooth_l1_loss");
  define_op<loss_detail::PairParamSig>("huber_loss(Tensor self, Tensor target, int reduction=1, float delta=1.0) -> Tensor",
                          Tag::FunctionOnly);
  register_composite<loss_detail::PairParamSig, &loss_detail::huber_loss_composite>("huber_loss");
  define_op<loss_detail::PoissonSig>("poisson_nll_loss(Tensor input, Tensor target, bool log_input, bool full, float eps, "
                        "int reduction) -> Tensor", Tag::FunctionOnly);
  register_composite<loss_detail::PoissonSig, &loss_detail::poisson_nll_loss_composite>("poisson_nll_loss");
  define_op<loss_detail::NllSig>("nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
                    "int ignore_index=-100) -> Tensor", Tag::FunctionOnly);
  register_composite<loss_detail::NllSig, &loss_detail::nll_loss_composite>("nll_loss");
  define_op<loss_detail::CrossEntropySig>("cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, "
                             "int ignore_index=-100, float label_smoothing=0.0) -> Tensor", Tag::FunctionOnly);
  register_composite<loss_detail::CrossEntropySig, &loss_detail::cross_entropy_loss_composite>("cross_entropy_loss");
  define_op<loss_detail::BceSig>("binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=1) -> Tensor",
                    Tag::FunctionOnly);
  register_composite<loss_detail::BceSig, &loss_detail::binary_cross_entropy_composite>("binary_cross_entropy");
  define_op<loss_detail::BceLogitsSig>("binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None, "
                          "Tensor? pos_weight=None, int reduction=1) -> Tensor", Tag::FunctionOnly);
  register_composite<loss_detail::BceLogitsSig, &loss_detail::binary_cross_entropy_with_logits_composite>("binary_cross_entropy_with_logits");
  define_op<loss_detail::KlDivSig>("kl_div(Tensor self, Tensor target, int reduction=1, *, bool log_target=False) -> Tensor",
                      Tag::FunctionOnly);
  register_composite<loss_detail::KlDivSig, &loss_detail::kl_div_composite>("kl_div");
  define_op<loss_detail::PairSig>("soft_margin_loss(Tensor self, Tensor target, int reduction=1) -> Tensor", Tag::FunctionOnly);
  register_composite<loss_detail::PairSig, &loss_detail::soft_margin_loss_composite>("soft_margin_loss");
  define_op<loss_detail::PairSig>("multilabel_margin_loss(Tensor self, Tensor target, int reduction=1) -> Tensor",
                     Tag::FunctionOnly);
  register_composite<loss_detail::PairSig, &loss_detail::multilabel_margin_loss_composite>("multilabel_margin_loss");
  define_op<loss_detail::MultiMarginSig>("multi_margin_loss(Tensor self, Tensor target, Scalar p=1, Scalar margin=1, "
                            "Tensor? weight=None, int reduction=1) -> Tensor", Tag::FunctionOnly);
  register_composite<loss_detail::MultiMarginSig, &loss_detail::multi_margin_loss_composite>("multi_margin_loss");
  define_op<loss_detail::TripleSig>("margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, float margin=0.0, "
                       "int reduction=1) -> Tensor", Tag::FunctionOnly);
  register_composite<loss_detail::TripleSig, &loss_detail::margin_ranking_loss_composite>("margin_ranking_loss");
  define_op<loss_detail::HingeSig>("hinge_embedding_loss(Tensor self, Tensor target, float margin=1.0, int reduction=1) -> Tensor",
                      Tag::FunctionOnly);
  register_composite<loss_detail::HingeSig, &loss_detail::hinge_embedding_loss_composite>("hinge_embedding_loss");
  define_op<loss_detail::TripleSig>("cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0.0, "
                       "int reduction=1) -> Tensor", Tag::FunctionOnly);
  register_composite<loss_detail::TripleSig, &loss_detail::cosine_embedding_loss_composite>("cosine_embedding_loss");
  define_op<loss_detail::TripletSig>("triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, float margin=1.0, "
                        "float p=2, float eps=1e-06, bool swap=False, int reduction=1) -> Tensor", Tag::FunctionOnly);
  register_composite<loss_detail::TripletSig, &loss_detail::triplet_margin_loss_composite>("triplet_margin_loss");
  define_op<loss_detail::CtcTensorSig>("ctc_loss.Tensor(Tensor log_probs, Tensor targets, Tensor input_lengths, "
                          "Tensor target_lengths, int blank=0, int reduction=1, bool zero_infinity=False) -> Tensor",
                          Tag::FunctionOnly);
  register_composite<loss_detail::CtcTensorSig, &loss_detail::ctc_loss_tensor_composite>("ctc_loss.Tensor");
  define_op<loss_detail::CtcListSig>("ctc_loss.IntList(Tensor log_probs, Tensor targets, int[] input_lengths, "
                        "int[] target_lengths, int blank=0, int reduction=1, bool zero_infinity=False) -> Tensor",
                        Tag::FunctionOnly);
  register_composite<loss_detail::CtcListSig, &loss_detail::ctc_loss_list_composite>("ctc_loss.IntList");
}

}  // namespace ember
