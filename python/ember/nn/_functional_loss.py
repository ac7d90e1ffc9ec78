"""nn.functional losses (torch.nn.functional's signatures over the loss ops).

The losses themselves are ops declared in C++ (src/ops/loss.cpp, also ember.<name>); this
module maps torch's Python arguments onto them: reduction strings and the legacy
size_average/reduce flags, the shape warnings and checks torch makes in Python, and the few
losses torch writes in Python (gaussian_nll_loss, multilabel_soft_margin_loss,
triplet_margin_with_distance_loss)."""
import math
import warnings

from .. import _C

__all__ = [
    "l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "cross_entropy", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss", "gaussian_nll_loss", "margin_ranking_loss",
    "hinge_embedding_loss", "soft_margin_loss", "cosine_embedding_loss", "triplet_margin_loss",
    "triplet_margin_with_distance_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss",
    "multi_margin_loss", "ctc_loss",
]


# ---------------------------------------------------------------- reduction arguments (torch.nn._reduction)
def _get_enum(reduction):
    if reduction == "none":
        return 0
    if reduction == "mean":
        return 1
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated, please use reduction='mean' instead.")
        return 1
    if reduction == "sum":
        return 2
    raise ValueError("{} is not a valid value for reduction".format(reduction))


def _legacy_get_string(size_average, reduce, emit_warning=True):
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    if size_average and reduce:
        ret = "mean"
    elif reduce:
        ret = "sum"
    else:
        ret = "none"
    if emit_warning:
        warnings.warn("size_average and reduce args will be deprecated, please use reduction='{}' instead.".format(ret))
    return ret


def _reduction_enum(size_average, reduce, reduction):
    if size_average is not None or reduce is not None:
        return _get_enum(_legacy_get_string(size_average, reduce))
    return _get_enum(reduction)


def _warn_size(input, target):
    if target.size() != input.size():
        warnings.warn("Using a target size ({}) that is different to the input size ({}). This will likely lead to "
                      "incorrect results due to broadcasting. Please ensure they have the same size."
                      .format(target.size(), input.size()), stacklevel=3)


def _infer_size(a, b):
    """The broadcast shape of two sizes, with torch's error."""
    n = max(len(a), len(b))
    out = []
    for i in range(n):
        da = a[i - n + len(a)] if i - n + len(a) >= 0 else 1
        db = b[i - n + len(b)] if i - n + len(b) >= 0 else 1
        if da != db and da != 1 and db != 1:
            raise RuntimeError("The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton "
                               "dimension {}".format(da, db, i))
        out.append(db if da == 1 else da)
    return tuple(out)


def _broadcast(input, target):
    if input.size() == target.size():
        return input, target
    shape = _infer_size(tuple(input.size()), tuple(target.size()))  # torch's message on a mismatch
    return input.expand(shape), target.expand(shape)


# ---------------------------------------------------------------- regression
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    _warn_size(input, target)
    red = _reduction_enum(size_average, reduce, reduction)
    expanded_input, expanded_target = _broadcast(input, target)
    return _C.l1_loss(expanded_input, expanded_target, red)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    _warn_size(input, target)
    red = _reduction_enum(size_average, reduce, reduction)
    expanded_input, expanded_target = _broadcast(input, target)
    return _C.mse_loss(expanded_input, expanded_target, red)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    _warn_size(input, target)
    red = _reduction_enum(size_average, reduce, reduction)
    expanded_input, expanded_target = _broadcast(input, target)
    return _C.smooth_l1_loss(expanded_input, expanded_target, red, beta)


def huber_loss(input, target, reduction="mean", delta=1.0):
    _warn_size(input, target)
    expanded_input, expanded_target = _broadcast(input, target)
    return _C.huber_loss(expanded_input, expanded_target, _get_enum(reduction), delta)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    return _C.poisson_nll_loss(input, target, log_input, full, eps, _get_enum(reduction))


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    # var may have one dim less than input, or a last dim of 1 (one variance per sample).
    if var.size() != input.size():
        if tuple(input.size())[:-1] == tuple(var.size()):
            var = var.unsqueeze(-1)
        elif tuple(input.size())[:-1] == tuple(var.size())[:-1] and var.size(-1) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    # Clamped for stability without changing the gradient (as torch: in place, untracked).
    var = var.clone()
    with _no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _no_grad():
    from ..autograd import no_grad
    return no_grad()


# ---------------------------------------------------------------- classification
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    return _C.nll_loss(input, target, weight, _reduction_enum(size_average, reduce, reduction), ignore_index)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    return _C.cross_entropy_loss(input, target, weight, _reduction_enum(size_average, reduce, reduction),
                                 ignore_index, label_smoothing)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    red = _reduction_enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError("Using a target size ({}) that is different to the input size ({}) is deprecated. "
                         "Please ensure they have the same size.".format(target.size(), input.size()))
    if weight is not None:
        weight = weight.expand(_infer_size(tuple(target.size()), tuple(weight.size())))
    return _C.binary_cross_entropy(input, target, weight, red)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    red = _reduction_enum(size_average, reduce, reduction)
    if target.size() != input.size():
        raise ValueError("Target size ({}) must be the same as input size ({})".format(target.size(), input.size()))
    return _C.binary_cross_entropy_with_logits(input, target, weight, pos_weight, red)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if size_average is not None or reduce is not None:
        red = _get_enum(_legacy_get_string(size_average, reduce))
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.")
        # 'batchmean': the sum divided by the batch size.
        red = _get_enum("sum") if reduction == "batchmean" else _get_enum(reduction)
    reduced = _C.kl_div(input, target, red, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input.size()[0]
    return reduced


def _logsigmoid(x):
    # log(sigmoid(x)) = -(max(-x, 0) + log1p(exp(-|x|))), finite for any x.
    f = getattr(_C, "log_sigmoid", None) or getattr(_C, "logsigmoid", None)
    if f is not None:
        return f(x)
    if not x.is_floating_point():
        raise RuntimeError('"log_sigmoid_cpu" not implemented for \'{}\''.format(str(x.dtype).split(".")[-1]))
    return -((-x).clamp_min(0) + (-x.abs()).exp().log1p())


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    if size_average is not None or reduce is not None:
        reduction = _legacy_get_string(size_average, reduce)
    loss = -(target * _logsigmoid(input) + (1 - target) * _logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    C = input.size(class_dim)
    loss = loss.sum(dim=class_dim) / C  # one loss per sample
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _C.multilabel_margin_loss(input, target, _reduction_enum(size_average, reduce, reduction))


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _C.soft_margin_loss(input, target, _reduction_enum(size_average, reduce, reduction))


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    red = _reduction_enum(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return _C.multi_margin_loss(input, target, p, margin, weight, red)


# ---------------------------------------------------------------- embeddings and ranking
def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    red = _reduction_enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           "input1: {}, input2: {}, target: {} ".format(input1.size(), input2.size(), target.size()))
    return _C.margin_ranking_loss(input1, input2, target, margin, red)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    return _C.hinge_embedding_loss(input, target, margin, _reduction_enum(size_average, reduce, reduction))


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    return _C.cosine_embedding_loss(input1, input2, target, margin, _reduction_enum(size_average, reduce, reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    red = _reduction_enum(size_average, reduce, reduction)
    return _C.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, red)


def _pairwise_distance(x1, x2, p=2.0, eps=1e-6):
    f = getattr(_C, "pairwise_distance", None)
    if f is not None:
        return f(x1, x2, p, eps)
    return _C.norm(x1 - x2 + eps, p, [max(x1.dim(), x2.dim()) - 1])


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if distance_function is None:
        distance_function = _pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = _C.minimum(dist_neg, distance_function(positive, negative))
    loss = (margin + dist_pos - dist_neg).clamp_min(0)
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return loss.mean()
    return loss


# ---------------------------------------------------------------- sequences
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean", zero_infinity=False):
    return _C.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, _get_enum(reduction), zero_infinity)
