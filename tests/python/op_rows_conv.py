"""Op-table rows of convolution, pooling, padding and fold/unfold (src/ops/conv.cpp, pool.cpp,
pad_fold.cpp; python/ember/nn/_functional_conv.py)."""
from op_testing import channels_last as _channels_last, with_strides as _with_strides, ErrorSample, OpInfo, Sample, T

# PyTorch 1.13 convolves every dtype but bool and float16 on the CPU.
CONV_DTYPES = ("uint8", "int8", "int16", "int32", "int64", "bfloat16", "float32", "float64", "complex64",
               "complex128")
POOL_DTYPES = ("bfloat16", "float32", "float64")
# Convolutions sum many products: looser float32/bfloat16 tolerances (bfloat16: PyTorch
# rounds its operands' products differently).
CONV_TOL = {"float32": (1e-4, 1e-4), "bfloat16": (5e-2, 3e-1), "complex64": (1e-4, 1e-4)}
R = dict(low=-2, high=2)


def _f(name):
    return lambda lib, *a, **k: getattr(lib.nn.functional, name)(*a, **k)


def _conv_samples(sd):
    sp = {1: (9,), 2: (7, 6), 3: (5, 4, 5)}[sd]
    k = {1: (3,), 2: (3, 2), 3: (2, 3, 2)}[sd]

    def samples(dtype):
        out = [
            Sample([T((2, 4, *sp), **R), T((6, 4, *k), seed=1, **R), T((6,), seed=2, **R)], name="bias"),
            Sample([T((2, 4, *sp), **R), T((6, 4, *k), seed=1, **R)], name="no-bias"),
            Sample([T((1, 4, *sp), **R), T((6, 2, *k), seed=1, **R), T((6,), seed=2, **R)],
                   {"stride": 2, "padding": 1, "dilation": 2, "groups": 2}, name="batch1-groups-stride-dilation"),
            Sample([T((4, *sp), **R), T((3, 4, *k), seed=1, **R)], {"padding": 1}, name="unbatched"),
            Sample([T((0, 4, *sp), **R), T((6, 4, *k), seed=1, **R)], name="zero-batch"),
            Sample([T((2, 4, *sp), noncontig=True, **R), T((6, 4, *k), seed=1, **R)], name="noncontig"),
            Sample([T((2, 4, *sp), **R), T((4, 1, *k), seed=1, **R)], {"groups": 4}, name="depthwise"),
            Sample([T((2, 4, *sp), **R), T((5, 4, *(2,) * sd), seed=1, **R)], {"padding": "same"},
                   name="same-even-kernel"),
            Sample([T((2, 4, *sp), **R), T((5, 4, *k), seed=1, **R)], {"padding": "same", "dilation": 2},
                   name="same-dilated"),
            Sample([T((2, 4, *sp), **R), T((5, 4, *k), seed=1, **R)], {"padding": "valid"}, name="valid"),
            Sample([T((2, 4, *sp), **R), T((5, 4, *k), seed=1, **R)],
                   {"stride": tuple(range(1, sd + 1)), "padding": tuple(range(sd))}, name="per-dim"),
        ]
        if sd == 2 and dtype in ("float32", "float64"):
            out.append(Sample([T((3, 16, 12, 10), -1, 1), T((24, 16, 3, 3), -1, 1, seed=1), T((24,), seed=2)],
                              {"padding": 1}, name="larger"))
        return out
    return samples


def _conv_errors(sd):
    name = f"conv{sd}d"
    sp = {1: (6,), 2: (6, 6), 3: (4, 4, 4)}[sd]
    k = (3,) * sd
    return lambda: [
        ErrorSample([T((2, 4, *sp)), T((6, 2, *k))], {"groups": 4}, RuntimeError, r"divisible by 4.*\[6, 2"),
        ErrorSample([T((2, 4, *sp)), T((6, 4, *k, 2))], {}, RuntimeError, r"dimensional weight \[6, 4"),
        ErrorSample([T((2, 4, *(2,) * sd)), T((6, 4, *k))], {}, RuntimeError,
                    r"Kernel size can't be greater than actual input size"),
        ErrorSample([T((2, 4, *sp)), T((6, 4, *k))], {"padding": -1}, RuntimeError, "negative padding"),
        ErrorSample([T((2, 4, *sp)), T((6, 4, *k))], {"stride": 0}, RuntimeError, "non-positive stride"),
        ErrorSample([T((2, 3, *sp)), T((6, 4, *k))], {}, RuntimeError,
                    r"expected input\[2, 3, .* to have 4 channels"),
        ErrorSample([T((2,) * (sd + 3)), T((6, 4, *k))], {}, RuntimeError,
                    rf"Expected {sd + 1}D \(unbatched\) or {sd + 2}D \(batched\) input to {name}"),
        ErrorSample([T((2, 4, *sp)), T((6, 4, *k))], {"padding": "same", "stride": 2}, RuntimeError,
                    "not supported for strided"),
        ErrorSample([T((2, 4, *sp)), T((6, 4, *k))], {"padding": "full"}, RuntimeError,
                    "Invalid padding string"),
        ErrorSample([T((2, 4, *sp)), T((6, 4, *k)), T((5,))], {}, RuntimeError, "expected bias"),
    ]


def _conv_t_samples(sd):
    sp = {1: (5,), 2: (4, 5), 3: (3, 4, 3)}[sd]
    k = {1: (3,), 2: (3, 2), 3: (2, 3, 2)}[sd]

    def samples(dtype):
        return [
            Sample([T((2, 4, *sp), **R), T((4, 3, *k), seed=1, **R), T((3,), seed=2, **R)], name="bias"),
            Sample([T((1, 4, *sp), **R), T((4, 2, *k), seed=1, **R), T((4,), seed=2, **R)],
                   {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2, "dilation": 1},
                   name="stride-output-padding-groups"),
            Sample([T((2, 4, *sp), **R), T((4, 3, *k), seed=1, **R)], {"dilation": 2, "padding": 1},
                   name="dilated"),
            Sample([T((4, *sp), **R), T((4, 3, *k), seed=1, **R)], {"stride": 3}, name="unbatched"),
            Sample([T((0, 4, *sp), **R), T((4, 3, *k), seed=1, **R)], name="zero-batch"),
            Sample([T((2, 4, *sp), noncontig=True, **R), T((4, 3, *k), seed=1, **R)], name="noncontig"),
        ]
    return samples


def _conv_t_errors(sd):
    sp = {1: (4,), 2: (4, 4), 3: (3, 3, 3)}[sd]
    k = (2,) * sd
    return lambda: [
        ErrorSample([T((2, 4, *sp)), T((4, 3, *k))], {"groups": 3}, RuntimeError, "divisible by 3"),
        ErrorSample([T((2, 5, *sp)), T((4, 3, *k))], {}, RuntimeError, "to have 4 channels"),
        ErrorSample([T((2, 4, *sp)), T((4, 3, *k))], {"padding": -1}, RuntimeError, "negative padding"),
        ErrorSample([T((2, 4, *sp)), T((4, 3, *k))], {"stride": 0}, RuntimeError, "non-positive stride"),
        ErrorSample([T((2, 4, *sp)), T((4, 3, *k))], {"output_padding": 2, "stride": 2}, RuntimeError,
                    "output padding must be smaller than either stride or dilation"),
    ]


def _bf16_via_float(name):
    """PyTorch 1.13's bfloat16 transposed convolution (oneDNN) returns a wrong shape when
    stride > 1 with groups; the reference computes bfloat16 in float32 and rounds once."""
    def fn(lib, *a, **k):
        if a[0].dtype == lib.bfloat16:
            up = [x.float() if isinstance(x, lib.Tensor) else x for x in a]
            return getattr(lib.nn.functional, name)(*up, **k).bfloat16()
        return getattr(lib.nn.functional, name)(*a, **k)
    return fn


def _convolution(lib, x, w, b=None, transposed=False):
    return lib.convolution(x, w, b, [1] * (x.dim() - 2), [1] * (x.dim() - 2), [1] * (x.dim() - 2), transposed,
                           [0] * (x.dim() - 2), 1)


def _conv_channels_last(lib, x, w, b=None):
    return lib.nn.functional.conv2d(_channels_last(lib, x), w, b, padding=1)


def _conv_channels_last_weight(lib, x, w):
    return lib.nn.functional.conv2d(x, _channels_last(lib, w), stride=2)


ROWS = [
    *[OpInfo(f"conv{sd}d", _f(f"conv{sd}d"), CONV_DTYPES, _conv_samples(sd), _conv_errors(sd), tol=CONV_TOL)
      for sd in (1, 2, 3)],
    *[OpInfo(f"conv_transpose{sd}d", _f(f"conv_transpose{sd}d"), CONV_DTYPES, _conv_t_samples(sd),
             _conv_t_errors(sd), tol=CONV_TOL, torch_fn=_bf16_via_float(f"conv_transpose{sd}d"))
      for sd in (1, 2, 3)],
    OpInfo("conv2d_channels_last", _with_strides(_conv_channels_last), CONV_DTYPES,
           lambda d: [Sample([T((2, 8, 6, 5), **R), T((4, 8, 3, 3), seed=1, **R), T((4,), seed=2, **R)]),
                      Sample([T((1, 16, 9, 7), **R), T((16, 16, 3, 3), seed=1, **R)], name="batch1")],
           tol=CONV_TOL),
    OpInfo("conv2d_channels_last_weight", _with_strides(_conv_channels_last_weight), CONV_DTYPES,
           lambda d: [Sample([T((2, 8, 6, 5), **R), T((4, 8, 3, 3), seed=1, **R)])], tol=CONV_TOL),
    OpInfo("conv3d_channels_last", _with_strides(lambda lib, x, w: lib.nn.functional.conv3d(_channels_last(lib, x), w)),
           CONV_DTYPES,
           lambda d: [Sample([T((2, 8, 4, 5, 4), **R), T((4, 8, 2, 2, 2), seed=1, **R)])], tol=CONV_TOL),
    OpInfo("convolution", _convolution, CONV_DTYPES,
           lambda d: [Sample([T((2, 3, 5, 5), **R), T((4, 3, 3, 3), seed=1, **R), T((4,), seed=2, **R)]),
                      Sample([T((2, 3, 5, 5), **R), T((3, 4, 3, 3), seed=1, **R), T((4,), seed=2, **R)],
                             {"transposed": True}, name="transposed")],
           tol=CONV_TOL),
    OpInfo("constant_pad_nd", lambda lib, x, p, **k: lib.constant_pad_nd(x, p, **k),
           ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
            "complex64", "complex128"),
           lambda d: [Sample([T((2, 3, 4)), [1, 2]]),
                      Sample([T((2, 3, 4)), [1, 2, 0, 1, 2, 1]], {"value": 1}),
                      Sample([T((2, 3, 4)), [-1, 2, 1, -2]], name="crop"),
                      Sample([T((2, 3, 4), noncontig=True), [2, 2]], name="noncontig"),
                      Sample([T((0, 3)), [1, 1]], name="zero-size")],
           lambda: [ErrorSample([T((2, 3)), [1, 2, 3]], {}, RuntimeError, "Length of pad must be even"),
                    ErrorSample([T((2, 3)), [1, 1, 1, 1, 1, 1]], {}, RuntimeError, "no more than twice"),
                    ErrorSample([T((2, 3)), [-2, -2]], {}, RuntimeError, "negative output size")]),
]


# ---------------------------------------------------------------- pooling
_SP = {1: (9,), 2: (7, 8), 3: (5, 6, 5)}


def _max_pool_samples(sd):
    sp = _SP[sd]

    def samples(dtype):
        return [
            Sample([T((2, 3, *sp)), 2], name="k2"),
            Sample([T((2, 3, *sp)), 3], {"stride": 2, "padding": 1}, name="k3s2p1"),
            Sample([T((1, 3, *sp)), 2], {"stride": 1, "dilation": 2, "ceil_mode": True}, name="batch1-dilated-ceil"),
            Sample([T((3, *sp)), 3], {"stride": 2, "ceil_mode": True}, name="unbatched-ceil"),
            Sample([T((0, 3, *sp)), 2], name="zero-batch"),
            Sample([T((2, 3, *sp), noncontig=True), tuple(range(2, sd + 2))], name="noncontig-per-dim"),
            Sample([T((2, 3, *sp)), 2], {"return_indices": True}, name="indices"),
        ]
    return samples


def _pool_errors(name, sd):
    sp = _SP[sd]
    return lambda: [
        ErrorSample([T((2, 3, *sp)), 3], {"padding": -1}, RuntimeError, "pad must be non-negative"),
        ErrorSample([T((2, 3, *sp)), 2], {"padding": 2}, RuntimeError, "pad should be at most half of kernel size"),
        ErrorSample([T((2, 3, *sp)), 3], {"stride": 0}, RuntimeError, "stride should not be zero"),
        ErrorSample([T((2, 3, *(1,) * sd)), 3], {}, RuntimeError, "Output size is too small"),
        ErrorSample([T((2, 3, *sp)), (2,) * (sd + 1)], {}, RuntimeError, "kernel_size must either be a single int"),
        ErrorSample([T((2, 3, *sp), dtype="int32"), 2], {}, RuntimeError, "not implemented for"),
    ]


def _max_pool_errors(sd):
    base = _pool_errors(f"max_pool{sd}d", sd)
    # PyTorch 1.13's max_pool1d returns an empty result where the others find it too small.
    return lambda: [e for e in base() if sd > 1 or "too small" not in e.match] + [
        ErrorSample([T((2, 3, *_SP[sd])), 2], {"dilation": 0}, RuntimeError, "dilation")]


def _avg_pool_samples(sd):
    sp = _SP[sd]

    def samples(dtype):
        out = [
            Sample([T((2, 3, *sp)), 2], name="k2"),
            Sample([T((2, 3, *sp)), 3], {"stride": 2, "padding": 1}, name="k3s2p1"),
            Sample([T((2, 3, *sp)), 3], {"stride": 2, "padding": 1, "count_include_pad": False, "ceil_mode": True},
                   name="exclude-pad-ceil"),
            Sample([T((3, *sp)), 2], {"stride": 1}, name="unbatched"),
            Sample([T((0, 3, *sp)), 2], name="zero-batch"),
            Sample([T((2, 3, *sp), noncontig=True), tuple(range(2, sd + 2))], name="noncontig-per-dim"),
        ]
        if sd > 1:
            out.append(Sample([T((2, 3, *sp)), 3], {"padding": 1, "divisor_override": 5}, name="divisor"))
        return out
    return samples


def _adaptive_samples(sd):
    sp = _SP[sd]

    def samples(dtype):
        return [
            Sample([T((2, 3, *sp)), 3], name="3"),
            Sample([T((2, 3, *sp)), 1], name="global"),
            Sample([T((3, *sp)), tuple(range(2, sd + 2))], name="unbatched-per-dim"),
            Sample([T((2, 3, *sp), noncontig=True), tuple(s + 1 for s in sp)], name="upsample-noncontig"),
            Sample([T((0, 3, *sp)), 2], name="zero-batch"),
        ]
    return samples


def _adaptive_errors(name, sd):
    # (PyTorch 1.13's adaptive_avg_pool1d/2d accept zero channels.)
    zero_channels = name.startswith("adaptive_max") or sd == 3
    return lambda: [ErrorSample([T((3,) * (sd + 3)), 2], {}, RuntimeError, "")] + (
        [ErrorSample([T((2, 0, *_SP[sd])), 2], {}, RuntimeError, "non-zero size")] if zero_channels else [])


def _pool_channels_last(name, **kw):
    return _with_strides(lambda lib, x: getattr(lib.nn.functional, name)(_channels_last(lib, x), **kw))


def _max_unpool(sd):
    def fn(lib, x, **k):
        F = lib.nn.functional
        y, idx = getattr(F, f"max_pool{sd}d")(x, 2, return_indices=True, **k)
        return getattr(F, f"max_unpool{sd}d")(y, idx, 2, output_size=x.shape[-sd:], **k)
    return fn


def _lp_pool(sd):
    return lambda lib, x, *a, **k: getattr(lib.nn.functional, f"lp_pool{sd}d")(x, *a, **k)


POOL_TOL = {"bfloat16": (2e-2, 2e-2), "float32": (1e-5, 1e-5), "float16": (1e-3, 1e-3)}

POOL_ROWS = []
for _sd in (1, 2, 3):
    POOL_ROWS += [
        OpInfo(f"max_pool{_sd}d", _f(f"max_pool{_sd}d"), POOL_DTYPES, _max_pool_samples(_sd), _max_pool_errors(_sd)),
        OpInfo(f"max_pool{_sd}d_with_indices", _f(f"max_pool{_sd}d_with_indices"), POOL_DTYPES,
               _max_pool_samples(_sd)),
        OpInfo(f"avg_pool{_sd}d", _f(f"avg_pool{_sd}d"), POOL_DTYPES + ("int64",), _avg_pool_samples(_sd),
               _pool_errors(f"avg_pool{_sd}d", _sd), tol=POOL_TOL),
        OpInfo(f"adaptive_avg_pool{_sd}d", _f(f"adaptive_avg_pool{_sd}d"),
               POOL_DTYPES + (("float16",) if _sd == 3 else ()), _adaptive_samples(_sd),
               _adaptive_errors(f"adaptive_avg_pool{_sd}d", _sd), tol=POOL_TOL),
        OpInfo(f"adaptive_max_pool{_sd}d", lambda lib, x, o, sd=_sd: getattr(lib.nn.functional,
               f"adaptive_max_pool{sd}d")(x, o, return_indices=True), POOL_DTYPES, _adaptive_samples(_sd),
               _adaptive_errors(f"adaptive_max_pool{_sd}d", _sd)),
        OpInfo(f"max_unpool{_sd}d", _max_unpool(_sd), POOL_DTYPES,
               lambda d, sd=_sd: [Sample([T((2, 3, *(4,) * sd))]), Sample([T((3, *(6,) * sd))], name="unbatched")]),
    ]
POOL_ROWS += [
    OpInfo("max_pool2d_channels_last", _pool_channels_last("max_pool2d", kernel_size=3, stride=2, padding=1),
           POOL_DTYPES, lambda d: [Sample([T((2, 8, 7, 6))])]),
    OpInfo("avg_pool2d_channels_last", _pool_channels_last("avg_pool2d", kernel_size=3, stride=2, padding=1),
           POOL_DTYPES + ("int64",), lambda d: [Sample([T((2, 8, 7, 6))])], tol=POOL_TOL),
    OpInfo("adaptive_avg_pool2d_channels_last", _pool_channels_last("adaptive_avg_pool2d", output_size=1),
           ("float16", "complex64", "complex128") + POOL_DTYPES, lambda d: [Sample([T((2, 8, 7, 6))])], tol=POOL_TOL),
    OpInfo("max_pool2d_large", _f("max_pool2d"), POOL_DTYPES,
           lambda d: [Sample([T((4, 16, 40, 40)), 3], {"stride": 2, "padding": 1})]),
    OpInfo("lp_pool1d", _lp_pool(1), ("bool", "int64", "float32", "float64", "bfloat16"),
           lambda d: [Sample([T((2, 3, 9), 0.5, 2), 2, 3]), Sample([T((2, 3, 9), 0.5, 2), 1.5, 2], {"stride": 1})],
           tol=POOL_TOL),
    OpInfo("lp_pool2d", _lp_pool(2), ("bool", "int64", "float32", "float64", "bfloat16"),
           lambda d: [Sample([T((2, 3, 7, 8), 0.5, 2), 2, 3]),
                      Sample([T((2, 3, 7, 8), 0.5, 2), 3, (2, 3)], {"stride": 1, "ceil_mode": True})],
           tol=POOL_TOL),
]

# ---------------------------------------------------------------- padding, fold, pixel shuffle
ALL_BUT_BOOL = ("uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
                "complex64", "complex128")


def _pad_row(op, mode, sd, dtypes):
    def samples(dtype):
        return [
            Sample([T((2, 3, *(5,) * sd)), (1, 2) * sd], name="batched"),
            # (PyTorch 1.13's circular padding of an unbatched input fails when differentiated.)
            Sample([T((3, *(4,) * sd) if mode != "circular" else (1, 3, *(4,) * sd)), (2, 0) * sd],
                   name="unbatched"),
            Sample([T((2, 3, *(5,) * sd), noncontig=True), (3, 1) * sd], name="noncontig"),
        ]

    def errors():
        out = [ErrorSample([T((2, 3, *(5,) * sd)), (1,) * (2 * sd + 1)], {}, RuntimeError, "divisible by 2"),
               ErrorSample([T((5,) * (sd + 3)), (1,) * (2 * sd)], {}, NotImplementedError, "Only 2D")]
        if mode == "reflect":
            out.append(ErrorSample([T((2, 3, *(3,) * sd)), (3, 3) * sd], {}, RuntimeError,
                                   "Padding size should be less than the corresponding input dimension"))
        return out
    return OpInfo(op, lambda lib, x, p: lib.nn.functional.pad(x, p, mode=mode), dtypes, samples, errors)


# PyTorch 1.13's CPU kernels: reflect and replicate lack integer types except as noted.
PAD_ROWS = [
    *[_pad_row(f"reflection_pad{sd}d", "reflect", sd, ("bfloat16", "float32", "float64", "complex64", "complex128")
               + (("float16",) if sd == 3 else ())) for sd in (1, 2, 3)],
    *[_pad_row(f"replication_pad{sd}d", "replicate", sd, ("bfloat16", "float32", "float64", "complex64",
                                                             "complex128")) for sd in (1, 2, 3)],
    _pad_row("pad_circular", "circular", 2, ("bool",) + ALL_BUT_BOOL),
    OpInfo("pad_constant", lambda lib, x, p, **k: lib.nn.functional.pad(x, p, **k), ("bool",) + ALL_BUT_BOOL,
           lambda d: [Sample([T((2, 3, 4)), (1, 2)], {"value": 2}), Sample([T((2, 3, 4)), (-1, 1, 2, -1)])]),
    OpInfo("im2col", lambda lib, x, *a, **k: lib.nn.functional.unfold(x, *a, **k),
           ("float16", "bfloat16", "float32", "float64", "complex64", "complex128"),
           lambda d: [Sample([T((2, 3, 6, 7)), 2]),
                      Sample([T((2, 3, 6, 7)), (2, 3)], {"dilation": (1, 2), "padding": 1, "stride": (2, 1)}),
                      Sample([T((3, 5, 5), noncontig=True), 3], name="unbatched-noncontig")],
           lambda: [ErrorSample([T((2, 3, 2, 2)), 3], {}, RuntimeError, "must be at least one"),
                    ErrorSample([T((2, 3, 4, 5, 6)), 3], {}, RuntimeError, "Expected 3D or 4D")],
           tol={"float16": (1e-3, 1e-3)}),
    OpInfo("col2im", lambda lib, x, *a, **k: lib.nn.functional.fold(x, *a, **k),
           ("float16", "bfloat16", "float32", "float64", "complex64", "complex128"),
           lambda d: [Sample([T((2, 12, 30)), (6, 7), 2]),
                      Sample([T((2, 18, 20)), (6, 7), (2, 3)], {"dilation": (1, 2), "padding": 1, "stride": (2, 1)}),
                      Sample([T((27, 9)), (5, 5), 3], name="unbatched")],
           lambda: [ErrorSample([T((2, 13, 30)), (6, 7), 2], {}, RuntimeError, "divisible by the product"),
                    ErrorSample([T((2, 12, 29)), (6, 7), 2], {}, RuntimeError, "sliding blocks")],
           tol={"float16": (1e-3, 1e-3), "bfloat16": (2e-2, 5e-2)}),
    OpInfo("pixel_shuffle", lambda lib, x, r: lib.nn.functional.pixel_shuffle(x, r),
           ("bool",) + ALL_BUT_BOOL,
           lambda d: [Sample([T((2, 8, 3, 4)), 2]), Sample([T((9, 2, 3)), 3], name="unbatched"),
                      Sample([T((2, 2, 4, 3, 4)), 2], name="extra-batch")],
           lambda: [ErrorSample([T((2, 7, 3, 4)), 2], {}, RuntimeError, "divisible by the square"),
                    ErrorSample([T((8, 3)), 2], {}, RuntimeError, "at least 3 dimensions")]),
    OpInfo("pixel_unshuffle", lambda lib, x, r: lib.nn.functional.pixel_unshuffle(x, r),
           ("bool",) + ALL_BUT_BOOL,
           lambda d: [Sample([T((2, 2, 6, 4)), 2]), Sample([T((2, 6, 9)), 3], name="unbatched")],
           lambda: [ErrorSample([T((2, 2, 5, 4)), 2], {}, RuntimeError, "height to be divisible")]),
]

ROWS += POOL_ROWS + PAD_ROWS

# Internal ops, reached through the rows above (their gradients are checked by the op table).
COVERED_ELSEWHERE = {"convolution_backward", "_max_pool", "_avg_pool", "_avg_pool_backward", "_adaptive_avg_pool",
                     "_adaptive_avg_pool_backward", "_adaptive_max_pool"}
