"""ember.nn.functional: the functional forms of the layers (torch.nn.functional).

Most entries are ops declared once in C++ (and so also ember.<name>); this module gives
them torch.nn.functional's Python signatures where those differ (inplace= flags, reduction
strings, optional arguments)."""
import warnings

from .. import _C
from ._functional_conv import *  # noqa: F401,F403
from ._functional_loss import *  # noqa: F401,F403
from ._functional_sample import *  # noqa: F401,F403

linear = _C.linear
bilinear = _C.bilinear


# ---------------------------------------------------------------- activations
def _act(name, doc):
    """relu(input, inplace=False)-style wrappers over an op and its in-place method."""
    op = getattr(_C, name)

    def fn(input, inplace=False):
        return getattr(input, name + "_")() if inplace else op(input)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


relu = _act("relu", "max(x, 0), element-wise.")
selu = _act("selu", "Scaled ELU with the self-normalizing constants.")
silu = _act("silu", "x * sigmoid(x).")
mish = _act("mish", "x * tanh(softplus(x)).")
hardsigmoid = _act("hardsigmoid", "relu6(x + 3) / 6.")
hardswish = _act("hardswish", "x * relu6(x + 3) / 6.")
sigmoid = _C.sigmoid
tanh = _C.tanh
softsign = _C.softsign
logsigmoid = _C.log_sigmoid
tanhshrink = _C.tanhshrink
glu = _C.glu
prelu = _C.prelu


def relu_(input):
    return input.relu_()


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return input.hardtanh_(min_val, max_val) if inplace else _C.hardtanh(input, min_val, max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, True)


def elu(input, alpha=1.0, inplace=False):
    return input.elu_(alpha) if inplace else _C.elu(input, alpha)


def elu_(input, alpha=1.0):
    return input.elu_(alpha)


def celu(input, alpha=1.0, inplace=False):
    return input.celu_(alpha) if inplace else _C.celu(input, alpha)


def celu_(input, alpha=1.0):
    return input.celu_(alpha)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return input.leaky_relu_(negative_slope) if inplace else _C.leaky_relu(input, negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    return input.leaky_relu_(negative_slope)


def gelu(input, approximate="none"):
    return _C.gelu(input, approximate=approximate)


def softplus(input, beta=1, threshold=20):
    return _C.softplus(input, beta, threshold)


def softshrink(input, lambd=0.5):
    return _C.softshrink(input, lambd)


def hardshrink(input, lambd=0.5):
    return _C.hardshrink(input, lambd)


def threshold(input, threshold, value, inplace=False):
    return input.threshold_(threshold, value) if inplace else _C.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    return input.threshold_(threshold, value)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    result = _C.rrelu(input, lower, upper, training)
    return input.copy_(result) if inplace else result


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, True)


# ---------------------------------------------------------------- softmax family
def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along dim, computed in dtype when given."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return _C.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log(softmax(x)) along dim, computed without forming softmax."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _C.log_softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along dim."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return _C.softmax(-input, dim)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + g) / tau) with g ~ Gumbel(0, 1) drawn as -log(Exp(1)); with hard, the
    one-hot of its argmax carrying the soft sample's gradient (straight through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.")
    gumbels = -_C.empty_like(logits).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = _C.zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# ---------------------------------------------------------------- normalization
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    return _C.layer_norm(input, list(normalized_shape), weight, bias, eps)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    if training:
        size = input.shape
        per_channel = 1
        for i, s in enumerate(size):
            if i != 1:
                per_channel *= s
        if per_channel == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")
    return _C.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, True)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Batch norm of each (sample, channel) pair over its spatial elements: the input viewed
    as one sample of N*C channels; running statistics are the mean over the samples."""
    if input.dim() < 3:
        raise ValueError(f"instance_norm(): expected 3D or higher input (got {input.dim()}D input)")
    n, c = input.shape[0], input.shape[1]
    x = input.reshape(1, n * c, *input.shape[2:])
    rm = running_mean.repeat(n) if running_mean is not None else None
    rv = running_var.repeat(n) if running_var is not None else None
    w = weight.repeat(n) if weight is not None else None
    b = bias.repeat(n) if bias is not None else None
    y = _C.batch_norm(x, w, b, rm, rv, use_input_stats, momentum, eps, True)
    if use_input_stats:
        from ..autograd import no_grad
        with no_grad():
            if running_mean is not None:
                running_mean.copy_(rm.view(n, c).mean(0))
            if running_var is not None:
                running_var.copy_(rv.view(n, c).mean(0))
    return y.view(input.shape)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    return _C.group_norm(input, num_groups, weight, bias, eps)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """x / (k + alpha / size * sum of x^2 over `size` neighbouring channels)^beta."""
    if input.dim() < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.dim()} dimensions)")
    if not input.is_floating_point() and input.dtype != _C.int64:
        raise RuntimeError(f"local_response_norm(): expected a floating-point input, got {input.dtype}")
    if input.numel() == 0:
        return input
    sq = (input * input).transpose(0, 1)  # channels first: pad and sum along dim 0
    c = sq.shape[0]
    front, back = size // 2, (size - 1) // 2
    zeros_front = _C.zeros((front + 1,) + tuple(sq.shape[1:]), dtype=input.dtype)
    zeros_back = _C.zeros((back,) + tuple(sq.shape[1:]), dtype=input.dtype)
    cs = _C.cat([zeros_front, sq, zeros_back]).cumsum(0)
    window = (cs[size:size + c] - cs[:c]).transpose(0, 1)
    return input / (window * (alpha / size) + k) ** beta


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """input / max(||input||_p along dim, eps)."""
    denom = _C.norm(input, p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is None:
        return input / denom
    return _C.div(input, denom, out=out)


# ---------------------------------------------------------------- dropout
def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _apply(input, result, inplace):
    return input.copy_(result) if inplace else result


def dropout(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    if not training:
        return input
    return _apply(input, _C.dropout(input, p, training), inplace)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _apply(input, _C.alpha_dropout(input, p, training), inplace)


def _rank_warning(name, dim, spatial):
    """torch 1.13's deprecation warning for an input of another rank than the layer's two."""
    warnings.warn(f"{name}: Received a {dim}-D input to {name}, which is deprecated and will result in an error in "
                  "a future release. To retain the behavior and silence this warning, please use dropout instead. "
                  f"Note that {name} exists to provide channel-wise dropout on inputs with {spatial} spatial "
                  "dimensions, a channel dimension, and an optional batch dimension (i.e. "
                  f"{spatial + 1}D or {spatial + 2}D inputs).", stacklevel=3)


def _channel_dropout(input, p, training, inplace, batched):
    """feature_dropout, with a batch dim of one around unbatched input."""
    x = input if batched else input.unsqueeze(0)
    y = _C.feature_dropout(x, p, training)
    return _apply(input, y if batched else y.squeeze(0), inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. "
                           "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
                           "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _channel_dropout(input, p, training, inplace, input.dim() == 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    if input.dim() not in (3, 4):
        _rank_warning("dropout2d", input.dim(), 2)
    if input.dim() == 3:
        # torch 1.13 keeps the historical reading of 3-D input as (N, C, L).
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please "
                      "switch to using dropout1d instead.", stacklevel=2)
    return _apply(input, _C.feature_dropout(input, p, training), inplace)


def dropout3d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    if input.dim() not in (4, 5):
        _rank_warning("dropout3d", input.dim(), 3)
    return _channel_dropout(input, p, training, inplace, input.dim() == 5)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _apply(input, _C.feature_alpha_dropout(input, p, training), inplace)


# ---------------------------------------------------------------- embeddings and encodings
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -weight.size(0):
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    return _C.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def _embedding_renorm_(weight, input, max_norm, norm_type):
    """Scales the rows of weight that input refers to down to norm max_norm, in place."""
    from .. import unique
    from ..autograd import no_grad
    with no_grad():
        rows = unique(input.reshape(-1))
        norms = weight.index_select(0, rows).norm(norm_type, 1)
        scale = (max_norm / (norms + 1e-7)).clamp_max(1.0)
        weight.index_copy_(0, rows, weight.index_select(0, rows) * scale.unsqueeze(1))


def one_hot(tensor, num_classes=-1):
    return _C.one_hot(tensor, num_classes)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p along the last dim."""
    return _C.norm(x1 - x2 + eps, p, -1, keepdim=keepdim)


def pdist(input, p=2):
    """||x_i - x_j||_p for the rows i < j of a 2-D input, in row-major order (torch.pdist):
    two index_selects and a norm, so it differentiates like them."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.size(0)
    first = [i for i in range(n) for _ in range(i + 1, n)]
    second = [j for i in range(n) for j in range(i + 1, n)]
    rows = _C.tensor(first, dtype=_C.int64), _C.tensor(second, dtype=_C.int64)
    diff = input.index_select(0, rows[0]) - input.index_select(0, rows[1])
    if p != float("inf"):
        return _C.norm(diff, p, -1)
    # torch's backward gives every tied maximum the whole gradient (a norm's splits it).
    d = diff.abs()
    top = d.amax(-1, keepdim=True).detach()
    return top.squeeze(-1) + ((d - d.detach()) * (d == top)).sum(-1)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """x1 . x2 / max(||x1|| ||x2||, eps) along dim (PyTorch 1.13 clamps each norm at eps)."""
    if x1.is_complex() or x2.is_complex():
        raise RuntimeError("cosine_similarity(): complex inputs are not supported")
    n1 = _C.norm(x1, 2, dim, keepdim=True).clamp_min(eps)
    n2 = _C.norm(x2, 2, dim, keepdim=True).clamp_min(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of embeddings: the rows of a 2-D input, or the segments of a
    1-D input that start at `offsets`. Built on embedding and index_add / scatter_reduce, so it
    differentiates like them; entries equal to padding_idx take no part."""
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if weight.dtype not in (_C.float16, _C.float32, _C.float64):
        raise RuntimeError(f"embedding_bag(): expected a float16, float32 or float64 weight, got {weight.dtype}")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                      f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                      f"on GitHub.")
        if per_sample_weights.shape != input.shape:
            raise ValueError(f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights.shape)}) is not None, "
                             f"then it must have the same shape as the input ({tuple(input.shape)})")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type Tensor")
        nbags, length = input.shape
        bag_of = _C.arange(nbags).repeat_interleave(length)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        if include_last_offset and offsets.numel() == 0:
            raise RuntimeError("include_last_offset: number of offset should be at least 1")
        nbags = offsets.numel() - (1 if include_last_offset else 0)
        n = input.numel()
        if offsets.numel() and int(offsets[0]) != 0:
            raise RuntimeError(f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                               f"position 0. However, got {int(offsets[0])}")
        if offsets.numel() and int(offsets[-1]) > n:
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of "
                               f"{int(offsets[-1])}")
        starts = offsets[1:nbags]
        starts = starts[starts < n]
        bag_of = _C.zeros(n, dtype=_C.int64).index_add_(0, starts, _C.ones(starts.numel(), dtype=_C.int64)).cumsum(0)
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    idx = input.reshape(-1)
    if padding_idx is not None:
        num = weight.size(0)
        if not -num <= padding_idx < num:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} through {num - 1}, "
                               f"but got {padding_idx}")
        if padding_idx < 0:
            padding_idx += num
    rows = embedding(idx, weight, None, max_norm, norm_type, scale_grad_by_freq, sparse)
    keep = (idx != padding_idx) if padding_idx is not None else _C.ones(idx.numel(), dtype=_C.bool)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1, 1)
    dim = weight.size(1)
    counts = _C.zeros(nbags).index_add_(0, bag_of, keep.to(_C.float32))
    if mode == "max":
        rows = _C.where(keep.unsqueeze(1), rows, float("-inf"))
        out = _C.full((nbags, dim), float("-inf"), dtype=weight.dtype).scatter_reduce(
            0, bag_of.unsqueeze(1).expand(-1, dim), rows, "amax")
        return _C.where((counts > 0).unsqueeze(1), out, 0.0)
    rows = rows * keep.unsqueeze(1).to(weight.dtype)
    out = _C.zeros((nbags, dim), dtype=weight.dtype).index_add(0, bag_of, rows)
    if mode == "mean":
        out = out / counts.clamp_min(1).unsqueeze(1).to(weight.dtype)
    return out
from ._functional_attention import *  # noqa: F401,F403
