"""Op-table rows of resampling: the upsampling ops behind F.interpolate (antialiased ones too) and
their backward ops, grid_sampler (F.grid_sample) and its backward ops, affine_grid_generator (F.affine_grid)
(src/ops/upsample.cpp, upsample_aa.cpp, grid_sample.cpp; python/ember/nn/_functional_sample.py)."""
import warnings

from op_testing import channels_last as _channels_last, with_strides as _with_strides, ErrorSample, OpInfo, Sample, T

# PyTorch 1.13's CPU dtypes: bfloat16 everywhere but nearest-exact, uint8 for the nearest modes.
NEAREST_DTYPES = ("uint8", "bfloat16", "float32", "float64")
EXACT_DTYPES = ("uint8", "float32", "float64")
LINEAR_DTYPES = ("bfloat16", "float32", "float64")
# bfloat16: PyTorch keeps the weights in bfloat16 (and bicubic, below, every intermediate).
SAMPLE_TOL = {"bfloat16": (2e-2, 4e-2), "float32": (1e-5, 1e-5)}
R = dict(low=-2, high=2)

_SP = {1: (7,), 2: (5, 6), 3: (3, 4, 5)}
_NAMES = {
    ("nearest", 1): "upsample_nearest1d", ("nearest", 2): "upsample_nearest2d", ("nearest", 3): "upsample_nearest3d",
    ("nearest-exact", 1): "_upsample_nearest_exact1d", ("nearest-exact", 2): "_upsample_nearest_exact2d",
    ("nearest-exact", 3): "_upsample_nearest_exact3d", ("linear", 1): "upsample_linear1d",
    ("bilinear", 2): "upsample_bilinear2d", ("bicubic", 2): "upsample_bicubic2d",
    ("trilinear", 3): "upsample_trilinear3d",
}
_INTERPOLATING = ("linear", "bilinear", "bicubic", "trilinear")


def _interp(mode):
    def fn(lib, x, **k):
        return lib.nn.functional.interpolate(x, mode=mode, **k)
    return fn


def _bf16_via_float(fn):
    """PyTorch 1.13's bfloat16 bicubic rounds every intermediate to bfloat16 (errors up to 0.5
    on values in [-5, 5]); the reference computes bfloat16 in float32 and rounds once."""
    def run(lib, x, *a, **k):
        if x.dtype == lib.bfloat16:
            return fn(lib, x.float(), *a, **k).bfloat16()
        return fn(lib, x, *a, **k)
    return run


def _half_via_float(fn, half):
    """PyTorch 1.13 accumulates 16-bit gradients in 16 bits (bicubic and trilinear: errors of
    0.2 and 0.1 for gradients in [-2, 2]); the reference computes in float32 and rounds once
    (float16 only where PyTorch has it)."""
    def run(lib, g, *a, **k):
        if g.dtype == lib.bfloat16 or (half and g.dtype == lib.float16):
            return fn(lib, g.float(), *a, **k).to(g.dtype)
        return fn(lib, g, *a, **k)
    return run


def _interp_samples(mode, sd):
    sp = _SP[sd]

    def samples(dtype):
        acs = (False, True) if mode in _INTERPOLATING else (None,)
        out = []
        for ac in acs:
            k = {} if ac is None else {"align_corners": ac}
            tag = "" if ac is None else f"-ac{int(ac)}"
            out += [
                Sample([T((2, 3, *sp), **R)], {"size": tuple(s + 3 for s in sp), **k}, name="size-up" + tag),
                Sample([T((2, 3, *sp), **R)], {"size": tuple(max(s - 2, 1) for s in sp), **k}, name="size-down" + tag),
                Sample([T((2, 3, *sp), **R)], {"scale_factor": 2, **k}, name="scale2" + tag),
                Sample([T((2, 3, *sp), **R)], {"scale_factor": 1.7, **k}, name="scale1.7" + tag),
                Sample([T((2, 3, *sp), **R)], {"scale_factor": (1.5, 0.7, 2.5)[:sd], **k}, name="per-dim" + tag),
                Sample([T((2, 3, *sp), **R)], {"scale_factor": 0.6, "recompute_scale_factor": True, **k},
                       name="recompute" + tag),
            ]
        k = {} if mode not in _INTERPOLATING else {"align_corners": False}
        out += [
            Sample([T((0, 3, *sp), **R)], {"size": tuple(s + 1 for s in sp), **k}, name="zero-batch"),
            Sample([T((2, 3, *sp), noncontig=True, **R)], {"scale_factor": 1.4, **k}, name="noncontig"),
            # One channel: PyTorch's channels-last kernel (size shortcuts for nearest).
            Sample([T((2, 1, *sp), **R)], {"scale_factor": 1.7, **k}, name="one-channel"),
        ]
        return out
    return samples


def _interp_errors(mode, sd):
    sp = _SP[sd]

    def errors():
        out = [
            ErrorSample([T((2, 3, *sp))], {"size": (0,) * sd}, RuntimeError,
                        "Input and output sizes should be greater than 0"),
            ErrorSample([T((2, 0, *sp))], {"size": 3}, RuntimeError, rf"Non-empty {sd + 2}D data tensor expected"),
            ErrorSample([T((2, 3, *sp))], {"size": 3, "scale_factor": 2}, ValueError,
                        "only one of size or scale_factor"),
            ErrorSample([T((2, 3, *sp))], {}, ValueError, "either size or scale_factor"),
            ErrorSample([T((2, 3, *sp))], {"size": (3,) * (sd + 1)}, ValueError, "same number of spatial dimensions"),
            ErrorSample([T((2, 3, *sp))], {"scale_factor": (2,) * (sd + 1)}, ValueError,
                        "same number of spatial dimensions"),
            ErrorSample([T((2, 3, *sp))], {"size": 3, "recompute_scale_factor": True}, ValueError,
                        "recompute_scale_factor is not meaningful"),
        ]
        if mode in _INTERPOLATING:
            # one spatial dim too many: "Got 5D input, but bilinear mode needs 4D input" (or, for
            # bicubic and 6-D inputs, the general message)
            out.append(ErrorSample([T((2, 3, *sp, 2))], {"size": 3}, NotImplementedError, "Input Error|mode needs"))
        else:
            out += [ErrorSample([T((2, 3, *sp))], {"size": 3, "align_corners": True}, ValueError,
                                "align_corners option can only be set"),
                    ErrorSample([T((2, 3, *sp))], {"size": 3, "antialias": True}, ValueError,
                                "Anti-alias option is only supported")]
        return out
    return errors


def _upsample_row(mode, sd, dtypes):
    name = _NAMES[(mode, sd)]
    fn = _interp(mode)
    return OpInfo(name, fn, dtypes, _interp_samples(mode, sd), _interp_errors(mode, sd), tol=SAMPLE_TOL,
                  torch_fn=_bf16_via_float(fn) if mode == "bicubic" else None)


ROWS = [
    *[_upsample_row("nearest", sd, NEAREST_DTYPES) for sd in (1, 2, 3)],
    *[_upsample_row("nearest-exact", sd, EXACT_DTYPES) for sd in (1, 2, 3)],
    _upsample_row("linear", 1, LINEAR_DTYPES),
    _upsample_row("bilinear", 2, LINEAR_DTYPES),
    _upsample_row("bicubic", 2, LINEAR_DTYPES),
    _upsample_row("trilinear", 3, LINEAR_DTYPES),
]


# ---------------------------------------------------------------- layouts, modes in other ranks
def _interp_cl(mode, **kw):
    return _with_strides(lambda lib, x, **k: lib.nn.functional.interpolate(_channels_last(lib, x), mode=mode, **kw,
                                                                            **k))


def _cl_samples(sd):
    sp = _SP[sd]
    return lambda d: [Sample([T((2, 3, *sp), **R)], {"scale_factor": 2}),
                      Sample([T((1, 4, *sp), **R)], {"scale_factor": (2.1, 1.0, 0.6)[-sd:]}, name="scales")]


ROWS += [
    OpInfo("interpolate_nearest_channels_last", _interp_cl("nearest"), NEAREST_DTYPES, _cl_samples(2)),
    OpInfo("interpolate_nearest_exact_channels_last", _interp_cl("nearest-exact"), EXACT_DTYPES, _cl_samples(2)),
    OpInfo("interpolate_bilinear_channels_last", _interp_cl("bilinear", align_corners=False), LINEAR_DTYPES,
           _cl_samples(2), tol=SAMPLE_TOL),
    OpInfo("interpolate_bicubic_channels_last", _interp_cl("bicubic", align_corners=True), LINEAR_DTYPES,
           _cl_samples(2), tol=SAMPLE_TOL, torch_fn=_bf16_via_float(_interp_cl("bicubic", align_corners=True))),
    OpInfo("interpolate_nearest3d_channels_last", _interp_cl("nearest"), NEAREST_DTYPES, _cl_samples(3)),
    OpInfo("interpolate_trilinear_channels_last", _interp_cl("trilinear", align_corners=True), LINEAR_DTYPES,
           _cl_samples(3), tol=SAMPLE_TOL),
    # area: adaptive average pooling (its dtypes)
    *[OpInfo(f"interpolate_area_{sd}d", _interp("area"), ("bfloat16", "float32", "float64")
             + (("float16",) if sd == 3 else ()),
             lambda d, sd=sd: [Sample([T((2, 3, *_SP[sd]), **R)], {"size": tuple(s + 2 for s in _SP[sd])}),
                               Sample([T((2, 3, *_SP[sd]), **R)], {"scale_factor": 0.6}, name="scale-down")],
             tol={"float16": (1e-3, 1e-3), **SAMPLE_TOL}) for sd in (1, 2, 3)],
    OpInfo("interpolate_area_channels_last", _interp_cl("area"), ("bfloat16", "float32", "float64"),
           lambda d: [Sample([T((2, 3, 5, 6), **R)], {"size": (3, 4)})], tol=SAMPLE_TOL),
]


# ---------------------------------------------------------------- backward ops
def _aten(lib, name):
    return getattr(lib.ops.aten, name) if lib.__name__ == "torch" else getattr(lib._C, name)


def _backward_row(mode, sd, dtypes):
    name = _NAMES[(mode, sd)] + "_backward"
    sp = _SP[sd]
    interp = mode in _INTERPOLATING

    def fn(lib, g, output_size, input_size, *rest):
        return _aten(lib, name)(g, output_size, input_size, *rest)

    def samples(dtype):
        out = []
        for ac in ((False, True) if interp else (None,)):
            lead = [] if ac is None else [ac]
            up = tuple(s + 3 for s in sp)
            out += [
                Sample([T((2, 3, *up), **R), list(up), [2, 3, *sp], *lead, *([None] * sd)], name=f"size-{ac}"),
                Sample([T((2, 3, *(2 * s for s in sp)), **R), [2 * s for s in sp], [2, 3, *sp], *lead,
                        *([2.0] * sd)], name=f"scale2-{ac}"),
                Sample([T((2, 3, *(s + 1 for s in sp)), **R), [s + 1 for s in sp], [2, 3, *sp], *lead,
                        *([1.3] * sd)], name=f"scale1.3-{ac}"),
            ]
        return out

    def errors():
        lead = [False] if interp else []
        return [ErrorSample([T((2, 3, *(4,) * sd)), [5] * sd, [2, 3, *sp], *lead, *([None] * sd)], {}, RuntimeError,
                            "grad_output|Expected")]
    return OpInfo(name, fn, dtypes + (("float16",) if mode == "bicubic" else ()), samples, errors, tol=SAMPLE_TOL,
                  torch_fn=_half_via_float(fn, mode == "bicubic"))


BWD_DTYPES = ("bfloat16", "float32", "float64")
ROWS += [_backward_row(mode, sd, BWD_DTYPES) for (mode, sd) in _NAMES]


# ---------------------------------------------------------------- antialiased resampling
# PyTorch 1.13 has float32 and float64 only, forward and backward.
AA_DTYPES = ("float32", "float64")
_AA_IN = (2, 3, 9, 11)


def _aa_op(name):
    return lambda lib, *a: _aten(lib, name)(*a)


def _aa_samples(dtype):
    out = []
    for ac in (False, True):
        out += [
            Sample([T(_AA_IN, **R), [4, 3], ac, None, None], name=f"down-ac{int(ac)}"),
            Sample([T(_AA_IN, **R), [3, 3], ac, 0.35, 0.25], name=f"scales-ac{int(ac)}"),
            Sample([T((1, 2, 4, 5), **R), [7, 9], ac, None, None], name=f"up-ac{int(ac)}"),
            Sample([T((1, 2, 6, 5), **R), [2, 8], ac, None, 1.7], name=f"mixed-ac{int(ac)}"),
            Sample([T((1, 2, 6, 5), **R), [1, 1], ac, None, None], name=f"to-one-ac{int(ac)}"),
        ]
    return out + [
        Sample([T((0, 3, 6, 5), **R), [3, 2], False, None, None], name="zero-batch"),
        Sample([T(_AA_IN, noncontig=True, **R), [4, 3], False, None, None], name="noncontig"),
        Sample([T((1, 2, 5, 5), **R), [5, 5], False, 0.9, 0.9], name="same-size-scaled"),
    ]


def _aa_errors():
    return [
        ErrorSample([T(_AA_IN), [0, 3], False, None, None], {}, RuntimeError,
                    r"Input and output sizes should be greater than 0, but got input \(H: 9, W: 11\) "
                    r"output \(H: 0, W: 3\)"),
        ErrorSample([T(_AA_IN), [3, 3, 3], False, None, None], {}, RuntimeError,
                    "It is expected output_size equals to 2, but got size 3"),
        ErrorSample([T((3, 9, 11)), [3, 3], False, None, None], {}, RuntimeError,
                    "It is expected input_size equals to 4, but got size 3"),
        ErrorSample([T((2, 0, 9, 11)), [3, 3], False, None, None], {}, RuntimeError,
                    r"Non-empty 4D data tensor expected but got a tensor with sizes \[2, 0, 9, 11\]"),
    ]


def _aa_backward_samples(dtype):
    out = []
    for ac in (False, True):
        out += [
            Sample([T((2, 3, 4, 3), **R), [4, 3], list(_AA_IN), ac, None, None], name=f"down-ac{int(ac)}"),
            Sample([T((2, 3, 3, 3), **R), [3, 3], list(_AA_IN), ac, 0.35, 0.25], name=f"scales-ac{int(ac)}"),
            Sample([T((1, 2, 7, 9), **R), [7, 9], [1, 2, 4, 5], ac, None, None], name=f"up-ac{int(ac)}"),
        ]
    return out + [Sample([T((0, 3, 3, 2), **R), [3, 2], [0, 3, 6, 5], False, None, None], name="zero-batch")]


def _aa_backward_errors():
    return [
        ErrorSample([T((2, 3, 4, 4)), [4, 3], list(_AA_IN), False, None, None], {}, RuntimeError,
                    r"Expected grad_output to have the same shape as output; output.size\(3\) = 3 but got "
                    r"grad_output.size\(3\) = 4"),
        ErrorSample([T((2, 3, 4, 3, 1)), [4, 3], list(_AA_IN), False, None, None], {}, RuntimeError,
                    "Expected grad_output to be a tensor of dimension 4 but got: dimension 5"),
        ErrorSample([T((2, 3, 4, 3)), [4, 3], [2, 3, 9], False, None, None], {}, RuntimeError,
                    "It is expected input_size equals to 4, but got size 3"),
    ]


ROWS += [
    *[OpInfo(f"_upsample_{m}2d_aa", _aa_op(f"_upsample_{m}2d_aa"), AA_DTYPES, _aa_samples, _aa_errors,
             tol=SAMPLE_TOL) for m in ("bilinear", "bicubic")],
    *[OpInfo(f"_upsample_{m}2d_aa_backward", _aa_op(f"_upsample_{m}2d_aa_backward"), AA_DTYPES,
             _aa_backward_samples, _aa_backward_errors, tol=SAMPLE_TOL) for m in ("bilinear", "bicubic")],
    # Layouts through F.interpolate: bilinear keeps channels-last, bicubic does not.
    *[OpInfo(f"interpolate_{m}_antialias_channels_last", _interp_cl(m, align_corners=False, antialias=True),
             AA_DTYPES, lambda d: [Sample([T((2, 3, 9, 11), **R)], {"scale_factor": 0.4}),
                                   Sample([T((1, 4, 6, 5), **R)], {"size": (9, 2)}, name="mixed")], tol=SAMPLE_TOL)
      for m in ("bilinear", "bicubic")],
    # The backward ops keep a channels-last gradient's layout for bilinear, as PyTorch.
    *[OpInfo(f"_upsample_{m}2d_aa_backward_channels_last",
             _with_strides(lambda lib, g, *a, m=m: _aa_op(f"_upsample_{m}2d_aa_backward")(lib, _channels_last(lib, g),
                                                                                          *a)),
             AA_DTYPES, lambda d: [Sample([T((2, 3, 4, 3), **R), [4, 3], list(_AA_IN), False, None, None])],
             tol=SAMPLE_TOL) for m in ("bilinear", "bicubic")],
]


# ---------------------------------------------------------------- grid sampling
GRID_DTYPES = ("float32", "float64")
_GRID_IN = {2: (2, 3, 4, 5), 3: (2, 2, 3, 4, 3)}
_GRID = {2: (2, 3, 4, 2), 3: (2, 2, 3, 2, 3)}
G = dict(low=-1.3, high=1.3, seed=1)  # grids reaching beyond the input


def _grid_sample(lib, x, grid, **k):
    return lib.nn.functional.grid_sample(x, grid, **k)


def _grid_samples(sd, mode):
    def samples(dtype):
        out = [Sample([T(_GRID_IN[sd], **R), T(_GRID[sd], **G)],
                      {"mode": mode, "padding_mode": pad, "align_corners": ac}, name=f"{pad}-ac{int(ac)}")
               for pad in ("zeros", "border", "reflection") for ac in (False, True)]
        out += [
            Sample([T((0, *_GRID_IN[sd][1:]), **R), T((0, *_GRID[sd][1:]), **G)],
                   {"mode": mode, "align_corners": False}, name="zero-batch"),
            Sample([T(_GRID_IN[sd], noncontig=True, **R), T(_GRID[sd], noncontig=True, **G)],
                   {"mode": mode, "padding_mode": "border", "align_corners": False}, name="noncontig"),
            Sample([T((2, 3, *(1,) * sd), **R), T(_GRID[sd], **G)],
                   {"mode": mode, "padding_mode": "reflection", "align_corners": True}, name="unit-input"),
        ]
        return out
    return samples


def _grid_errors(sd):
    x, g = _GRID_IN[sd], _GRID[sd]
    return lambda: [
        ErrorSample([T(x), T((3, *g[1:]))], {"align_corners": False}, RuntimeError, "same batch size"),
        ErrorSample([T(x), T((*g[:-1], sd + 1))], {"align_corners": False}, RuntimeError,
                    f"expected grid to have size {sd} in last dimension"),
        ErrorSample([T(x), T((*g[:-1], 1, sd))], {"align_corners": False}, RuntimeError,
                    f"expected {sd + 2}D input and grid with same number of dimensions"),
        ErrorSample([T((*x[:2], 0, *x[3:])), T(g)], {"align_corners": False}, RuntimeError, "non-empty spatial"),
        ErrorSample([T(x), T(g)], {"mode": "cubic"}, ValueError, "expected mode to be"),
        ErrorSample([T(x), T(g)], {"padding_mode": "wrap"}, ValueError, "expected padding_mode to be"),
        ErrorSample([T(x), T(g, dtype="float64")], {"align_corners": False}, RuntimeError, "dtype|scalar type"),
    ] + ([ErrorSample([T(x), T(g)], {"mode": "bicubic", "align_corners": False}, RuntimeError,
                      "bicubic interpolation only supports 4D input")] if sd == 3 else [])


def _grid_backward(sd):
    def fn(lib, g, x, grid, mode, pad, ac):
        mask = [True, True] if lib.__name__ == "torch" else [1, 1]
        return tuple(_aten(lib, f"grid_sampler_{sd}d_backward")(g, x, grid, mode, pad, ac, mask))
    return fn


def _grid_backward_samples(sd):
    def samples(dtype):
        out_shape = (*_GRID_IN[sd][:2], *_GRID[sd][1:-1])
        return [Sample([T(out_shape, seed=2, **R), T(_GRID_IN[sd], **R), T(_GRID[sd], **G), mode, pad, ac],
                       name=f"{mode}-{pad}-{ac}")
                for mode in ((0, 1, 2) if sd == 2 else (0, 1)) for pad in (0, 2) for ac in (False, True)]
    return samples


def _affine(lib, theta, size, align_corners=False, functional=False):
    if functional:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return lib.nn.functional.affine_grid(theta, size, align_corners=align_corners)
    return lib.affine_grid_generator(theta, size, align_corners)


# affine_grid_generator takes any dtype bmm takes; F.affine_grid insists on floating point.
AFFINE_DTYPES = ("uint8", "int8", "int16", "int32", "int64", "bfloat16", "float32", "float64", "complex64",
                 "complex128")

ROWS += [
    OpInfo("grid_sampler_2d", _grid_sample, GRID_DTYPES, _grid_samples(2, "bilinear"), _grid_errors(2),
           tol=SAMPLE_TOL),
    OpInfo("grid_sampler_2d_nearest", _grid_sample, GRID_DTYPES, _grid_samples(2, "nearest")),
    OpInfo("grid_sampler_2d_bicubic", _grid_sample, GRID_DTYPES, _grid_samples(2, "bicubic"), tol=SAMPLE_TOL),
    OpInfo("grid_sampler_3d", _grid_sample, GRID_DTYPES, _grid_samples(3, "bilinear"), _grid_errors(3),
           tol=SAMPLE_TOL),
    OpInfo("grid_sampler_3d_nearest", _grid_sample, GRID_DTYPES, _grid_samples(3, "nearest")),
    OpInfo("grid_sampler", lambda lib, x, g, *a: lib.grid_sampler(x, g, *a), GRID_DTYPES,
           lambda d: [Sample([T(_GRID_IN[2], **R), T(_GRID[2], **G), 0, 1, False], name="2d"),
                      Sample([T(_GRID_IN[3], **R), T(_GRID[3], **G), 1, 2, True], name="3d")]),
    OpInfo("grid_sample_channels_last",
           lambda lib, x, g, **k: lib.nn.functional.grid_sample(_channels_last(lib, x), g, **k), GRID_DTYPES,
           lambda d: [Sample([T(_GRID_IN[2], **R), T(_GRID[2], **G)], {"align_corners": False})], tol=SAMPLE_TOL),
    OpInfo("grid_sampler_2d_backward", _grid_backward(2), GRID_DTYPES, _grid_backward_samples(2), tol=SAMPLE_TOL),
    OpInfo("grid_sampler_3d_backward", _grid_backward(3), GRID_DTYPES, _grid_backward_samples(3), tol=SAMPLE_TOL),
    OpInfo("affine_grid_generator", _affine, AFFINE_DTYPES,
           lambda d: [Sample([T((2, 2, 3), -1, 1), [2, 3, 4, 5]], name="2d"),
                      Sample([T((2, 2, 3), -1, 1), [2, 3, 4, 5], True], name="2d-ac"),
                      Sample([T((2, 3, 4), -1, 1), [2, 1, 3, 4, 2]], name="3d"),
                      Sample([T((2, 3, 4), -1, 1), [2, 1, 3, 4, 2], True], name="3d-ac")]
           + ([Sample([T((1, 2, 3), -1, 1), [1, 1, 4, 5], True], {"functional": True}, name="functional")]
              if d in ("bfloat16", "float32", "float64") else []),
           lambda: [
               ErrorSample([T((2, 2, 3)), [2, 3, 4]], {"functional": True}, NotImplementedError,
                           "only supports 4D and 5D sizes"),
               ErrorSample([T((2, 3, 3)), [2, 3, 4, 5]], {"functional": True}, ValueError, "Nx2x3"),
               ErrorSample([T((2, 2, 3)), [2, 3, 4, 5, 6]], {"functional": True}, ValueError, "Nx3x4"),
               ErrorSample([T((2, 2, 3), dtype="int64"), [2, 3, 4, 5]], {"functional": True}, ValueError,
                           "floating point"),
               ErrorSample([T((2, 2, 3)), [2, 3, 0, 5]], {"functional": True}, ValueError, "positive output size"),
               ErrorSample([T((3, 2, 3)), [2, 3, 4, 5]], {}, RuntimeError, ""),
           ], tol={"bfloat16": (2e-2, 2e-2)}),
]

# Internal ops, reached through the rows above (their gradients are checked by the op table).
COVERED_ELSEWHERE = {"_upsample", "_upsample_backward", "_grid_sampler_differentiable"}
