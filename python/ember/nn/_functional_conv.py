"""nn.functional ops of convolution, pooling, padding and unfold/fold (torch.nn.functional's
signatures; the ops themselves are declared in C++: src/ops/conv.cpp, pool.cpp, pad_fold.cpp)."""
from .. import _C

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "pad",
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
    "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d", "adaptive_avg_pool1d",
    "adaptive_avg_pool2d", "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d",
    "adaptive_max_pool3d", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d_with_indices", "max_unpool1d", "max_unpool2d", "max_unpool3d", "lp_pool1d", "lp_pool2d",
    "unfold", "fold", "pixel_shuffle", "pixel_unshuffle",
]


def _stride(stride):
    """torch's stride=None (or an empty list) means the kernel size."""
    if stride is None:
        return []
    return stride


def _max_pool(n):
    op = getattr(_C, f"max_pool{n}d")
    op_idx = getattr(_C, f"max_pool{n}d_with_indices")

    def max_pool(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
        if return_indices:
            return tuple(op_idx(input, kernel_size, _stride(stride), padding, dilation, ceil_mode))
        return op(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)

    def with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
        return tuple(op_idx(input, kernel_size, _stride(stride), padding, dilation, ceil_mode))
    max_pool.__name__ = f"max_pool{n}d"
    with_indices.__name__ = f"max_pool{n}d_with_indices"
    return max_pool, with_indices


max_pool1d, max_pool1d_with_indices = _max_pool(1)
max_pool2d, max_pool2d_with_indices = _max_pool(2)
max_pool3d, max_pool3d_with_indices = _max_pool(3)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _C.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _C.avg_pool2d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _C.avg_pool3d(input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad, divisor_override)


def _output_size(input, output_size, n):
    """torch's adaptive output_size: an int, or a tuple whose None entries keep the input's size."""
    if isinstance(output_size, int):
        return [output_size] * n
    sizes = list(output_size)
    return [input.shape[input.dim() - n + i] if v is None else v for i, v in enumerate(sizes)]


def adaptive_avg_pool1d(input, output_size):
    return _C.adaptive_avg_pool1d(input, _output_size(input, output_size, 1))


def adaptive_avg_pool2d(input, output_size):
    return _C.adaptive_avg_pool2d(input, _output_size(input, output_size, 2))


def adaptive_avg_pool3d(input, output_size):
    return _C.adaptive_avg_pool3d(input, _output_size(input, output_size, 3))


def _adaptive_max(n):
    op = getattr(_C, f"adaptive_max_pool{n}d")

    def with_indices(input, output_size, return_indices=False):
        return tuple(op(input, _output_size(input, output_size, n)))

    def pool(input, output_size, return_indices=False):
        out = with_indices(input, output_size)
        return out if return_indices else out[0]
    pool.__name__ = f"adaptive_max_pool{n}d"
    with_indices.__name__ = f"adaptive_max_pool{n}d_with_indices"
    return pool, with_indices


adaptive_max_pool1d, adaptive_max_pool1d_with_indices = _adaptive_max(1)
adaptive_max_pool2d, adaptive_max_pool2d_with_indices = _adaptive_max(2)
adaptive_max_pool3d, adaptive_max_pool3d_with_indices = _adaptive_max(3)


def _tuple(v, n):
    return [v] * n if isinstance(v, int) else list(v)


def _unpool_output_size(input, kernel_size, stride, padding, output_size, n):
    """torch.nn.functional._unpool_output_size: the size max_pool came from by default."""
    default = [(input.shape[input.dim() - n + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        return default
    output_size = list(output_size)
    if len(output_size) == n + 2:
        output_size = output_size[2:]
    if len(output_size) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, "
                         f"but it has a length of '{len(output_size)}'")
    for d in range(n):
        lo = default[d] - stride[d]
        hi = default[d] + stride[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
    return output_size


def _unpool_args(input, kernel_size, stride, padding, output_size, n):
    kernel_size = _tuple(kernel_size, n)
    stride = _tuple(stride, n) if stride is not None else kernel_size
    padding = _tuple(padding, n)
    return stride, padding, _unpool_output_size(input, kernel_size, stride, padding, output_size, n)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    stride, padding, size = _unpool_args(input, kernel_size, stride, padding, output_size, 1)
    return _C.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), [size[0], 1]).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    stride, padding, size = _unpool_args(input, kernel_size, stride, padding, output_size, 2)
    return _C.max_unpool2d(input, indices, size)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    stride, padding, size = _unpool_args(input, kernel_size, stride, padding, output_size, 3)
    return _C.max_unpool3d(input, indices, size, stride, padding)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling, as torch writes it: (sum over the window of x^p)^(1/p)."""
    if stride is not None:
        out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool1d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kernel_size).pow(1.0 / norm_type)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    kw, kh = _tuple(kernel_size, 2)
    if stride is not None:
        out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg_pool2d(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    return (out.sign() * out.abs().relu()).mul(kw * kh).pow(1.0 / norm_type)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extracts sliding local blocks (im2col): [N, C * prod(kernel_size), L]."""
    return _C.im2col(input, _tuple(kernel_size, 2), _tuple(dilation, 2), _tuple(padding, 2), _tuple(stride, 2))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sums sliding local blocks into a tensor (col2im)."""
    return _C.col2im(input, _tuple(output_size, 2), _tuple(kernel_size, 2), _tuple(dilation, 2),
                     _tuple(padding, 2), _tuple(stride, 2))


pixel_shuffle = _C.pixel_shuffle
pixel_unshuffle = _C.pixel_unshuffle

# The convolution ops bind PyTorch's overloads (int or tuple padding, or 'same' / 'valid').
conv1d = _C.conv1d
conv2d = _C.conv2d
conv3d = _C.conv3d


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _C.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _C.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _C.conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def _pad_circular(input, pad):
    """Circular padding: each padded dim gathers its wrapped-around source positions."""
    import ember
    out = input
    for i in range(len(pad) // 2):
        d = input.dim() - 1 - i
        size, lo, hi = input.shape[d], pad[2 * i], pad[2 * i + 1]
        if lo > size or hi > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if lo or hi:
            index = ember.tensor([(j - lo) % size for j in range(size + lo + hi)], dtype=ember.int64)
            out = ember.index_select(out, d, index)
    return out


def pad(input, pad, mode="constant", value=None):
    """torch.nn.functional.pad: pad lists (left, right) pairs starting from the last dim."""
    if mode == "constant":
        return _C.constant_pad_nd(input, list(pad), 0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    # PyTorch 1.13: 1, 2 or 3 padded dims of a batched or unbatched input.
    n, dim = len(pad) // 2, input.dim()
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if not ((n == 1 and dim in (2, 3)) or (n == 2 and dim in (3, 4)) or (n == 3 and dim in (4, 5))):
        raise NotImplementedError("Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now")
    if mode == "circular":
        return _pad_circular(input, list(pad))
    return getattr(_C, f"{'reflection' if mode == 'reflect' else 'replication'}_pad{n}d")(input, list(pad))
