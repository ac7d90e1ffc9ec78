"""Resampling against PyTorch 1.13: F.interpolate (every mode, align_corners, sizes and scale
factors, 1-D/2-D/3-D, channels-last layouts), F.grid_sample (modes x padding modes x
align_corners, grids beyond the input), F.affine_grid, their input and grid gradients, double
backward, the Upsample layers, the deprecated upsample functions, and bad arguments (the same
exception type as PyTorch, with a message that names the problem)."""
import re
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn

RNG = np.random.default_rng(0)
_SP = {1: (7,), 2: (5, 6), 3: (3, 4, 5)}
_MODES = {1: ["nearest", "nearest-exact", "linear", "area"], 2: ["nearest", "nearest-exact", "bilinear", "bicubic",
                                                                 "area"], 3: ["nearest", "nearest-exact", "trilinear",
                                                                              "area"]}
_SIZING = [
    {"size": "up"}, {"size": "down"}, {"size": "same"}, {"scale_factor": 2}, {"scale_factor": 1.7},
    {"scale_factor": 0.45}, {"scale_factor": "per-dim"}, {"scale_factor": 1.7, "recompute_scale_factor": True},
    {"scale_factor": 0.6, "recompute_scale_factor": False},
]


def _lib_fn(lib):
    return lib.nn.functional


def _channels_last(x):
    perm = (0, *range(2, x.dim()), 1)
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return x.permute(*perm).contiguous().permute(*inv)


def _sizing(kw, sp):
    out = dict(kw)
    if out.get("size") == "up":
        out["size"] = tuple(s + 4 for s in sp)
    elif out.get("size") == "down":
        out["size"] = tuple(max(s - 2, 1) for s in sp)
    elif out.get("size") == "same":
        out["size"] = tuple(sp)
    if out.get("scale_factor") == "per-dim":
        out["scale_factor"] = (1.5, 0.7, 2.5)[:len(sp)]
    return out


def _torch_nearest_backward_differs(mode, kw, sp, layout_cl, channels):
    """PyTorch 1.13's nearest backward copies rows when the output is as large as the input or
    twice as large, whatever the scale factor, but its forward for inputs that are not
    channels-last-contiguous maps by the scale: its gradient is then not its forward's. Ember's
    gradient is (test_nearest_gradient_is_the_forwards_adjoint)."""
    if mode != "nearest" or "scale_factor" not in kw or kw.get("recompute_scale_factor"):
        return False
    if layout_cl or (len(sp) > 1 and channels == 1):
        return False
    sf = kw["scale_factor"]
    sfs = list(sf) if isinstance(sf, (list, tuple)) else [sf] * len(sp)
    for s, f in zip(sp, sfs):
        o = int(s * f)
        if (o == s and f != 1) or (o == 2 * s and f != 2):
            return True
    return False


def _cases():
    for sd in (1, 2, 3):
        for mode in _MODES[sd]:
            for ac in ((None,) if mode in ("nearest", "nearest-exact", "area") else (False, True)):
                for kw in _SIZING:
                    for cl in ((False, True) if sd > 1 else (False,)):
                        yield pytest.param(sd, mode, ac, kw, cl, id=f"{sd}d-{mode}-ac{ac}-{kw}-cl{int(cl)}")


@pytest.mark.parametrize("sd,mode,ac,kw,cl", list(_cases()))
def test_interpolate_matches_torch(sd, mode, ac, kw, cl):
    sp = _SP[sd]
    kw = _sizing(kw, sp)
    x0 = RNG.uniform(-3, 3, (2, 3, *sp))
    for dtype, tol in (("float32", 2e-5), ("float64", 1e-12)):
        res = {}
        for lib in (ember, torch):
            x = lib.from_numpy(x0.astype(dtype)).requires_grad_(dtype == "float64")
            xin = _channels_last(x) if cl else x
            y = _lib_fn(lib).interpolate(xin, mode=mode, align_corners=ac, **kw)
            g = None
            if dtype == "float64":
                w = lib.from_numpy(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))
                (g,) = lib.autograd.grad([y], [x], [w])
            res[lib.__name__] = (y, g)
        (ye, ge), (yt, gt) = res["ember"], res["torch"]
        assert tuple(ye.shape) == tuple(yt.shape)
        np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=tol, atol=tol)
        if ye.numel():
            assert tuple(ye.stride()) == tuple(yt.stride()), "layout differs from PyTorch's"
        if ge is not None and not _torch_nearest_backward_differs(mode, kw, sp, cl, 3):
            np.testing.assert_allclose(ge.numpy(), gt.numpy(), rtol=1e-10, atol=1e-10)


def test_nearest_gradient_is_the_forwards_adjoint():
    # out == 2 * in with scale 2.1: PyTorch's forward maps o -> floor(o / 2.1), its backward
    # o -> o // 2. Ember's forward matches PyTorch's, its gradient is that forward's adjoint.
    x0 = RNG.uniform(-1, 1, (1, 3, 5))
    xe = ember.from_numpy(x0).requires_grad_()
    ye = ember.nn.functional.interpolate(xe, scale_factor=2.1)
    yt = torch.nn.functional.interpolate(torch.from_numpy(x0), scale_factor=2.1)
    np.testing.assert_array_equal(ye.detach().numpy(), yt.numpy())
    assert ember.autograd.gradcheck(lambda a: ember.nn.functional.interpolate(a, scale_factor=2.1), (xe,))


def check_interpolate_double_backward(x0, kw):
    """F.interpolate(x0, **kw)'s double backward: the gradient of |grad x|^2 w.r.t. the output
    gradient against PyTorch's, and gradgradcheck."""
    res = []
    for lib in (ember, torch):
        x = lib.from_numpy(x0).requires_grad_()
        y = lib.nn.functional.interpolate(x, **kw)
        w = lib.from_numpy(np.sin(np.arange(y.numel())).reshape(tuple(y.shape))).requires_grad_()
        (g,) = lib.autograd.grad([y], [x], [w], create_graph=True)
        (gg,) = lib.autograd.grad([(g * g).sum()], [w])
        res.append(gg.numpy())
    np.testing.assert_allclose(res[0], res[1], rtol=1e-10, atol=1e-10)
    x = ember.from_numpy(x0).requires_grad_()
    assert ember.autograd.gradgradcheck(lambda a: ember.nn.functional.interpolate(a, **kw), (x,))


@pytest.mark.parametrize("mode,shape,ac", [("linear", (2, 3, 6), False), ("bilinear", (2, 2, 4, 5), True),
                                           ("bicubic", (1, 2, 4, 5), False), ("trilinear", (1, 2, 3, 3, 4), False),
                                           ("nearest", (2, 3, 4, 5), None), ("nearest-exact", (1, 2, 3, 4, 3), None)])
def test_interpolate_double_backward(mode, shape, ac):
    """Interpolation is linear: its gradient's gradient is the interpolation again; against
    PyTorch's and against central differences."""
    x0 = RNG.uniform(-1, 1, shape)
    kw = dict(scale_factor=1.6, mode=mode, align_corners=ac)
    check_interpolate_double_backward(x0, kw)


def test_interpolate_low_precision_and_integers():
    x0 = RNG.uniform(-4, 4, (2, 3, 5, 6)).astype(np.float32)
    for mode, ac in (("nearest", None), ("bilinear", False), ("bilinear", True)):
        e = ember.nn.functional.interpolate(ember.from_numpy(x0).to(ember.bfloat16), scale_factor=1.7, mode=mode,
                                            align_corners=ac)
        t = torch.nn.functional.interpolate(torch.from_numpy(x0).bfloat16(), scale_factor=1.7, mode=mode,
                                            align_corners=ac)
        assert e.dtype == ember.bfloat16
        np.testing.assert_allclose(e.float().numpy(), t.float().numpy(), rtol=2e-2, atol=4e-2)
    u = RNG.integers(0, 256, (2, 3, 5, 6)).astype(np.uint8)
    for mode in ("nearest", "nearest-exact"):
        e = ember.nn.functional.interpolate(ember.from_numpy(u), size=(7, 4), mode=mode)
        t = torch.nn.functional.interpolate(torch.from_numpy(u), size=(7, 4), mode=mode)
        assert e.dtype == ember.uint8
        np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_upsample_ops_on_meta():
    x = ember.empty(2, 3, 5, 6, device="meta")
    assert tuple(ember.upsample_bilinear2d(x, [7, 9], False, None, None).shape) == (2, 3, 7, 9)
    assert tuple(ember.upsample_nearest2d(x, [10, 12], 2.0, 2.0).shape) == (2, 3, 10, 12)
    y = ember.nn.functional.grid_sample(x, ember.empty(2, 4, 3, 2, device="meta"), align_corners=False)
    assert tuple(y.shape) == (2, 3, 4, 3) and y.device == ember.device("meta")


# ---------------------------------------------------------------- grid_sample, affine_grid
def _grid_cases():
    for sd in (2, 3):
        for mode in ("bilinear", "nearest", "bicubic"):
            if sd == 3 and mode == "bicubic":
                continue
            for pad in ("zeros", "border", "reflection"):
                for ac in (False, True):
                    yield pytest.param(sd, mode, pad, ac, id=f"{sd}d-{mode}-{pad}-ac{int(ac)}")


@pytest.mark.parametrize("sd,mode,pad,ac", list(_grid_cases()))
def test_grid_sample_matches_torch(sd, mode, pad, ac):
    xs = (2, 3, 5, 6) if sd == 2 else (2, 3, 4, 5, 3)
    gs = (2, 4, 7, 2) if sd == 2 else (2, 3, 4, 2, 3)
    x0 = RNG.uniform(-3, 3, xs)
    g0 = RNG.uniform(-1.6, 1.6, gs)  # beyond the input on every side
    for dtype, tol in (("float32", 5e-5), ("float64", 1e-11)):
        res = {}
        for lib in (ember, torch):
            x = lib.from_numpy(x0.astype(dtype)).requires_grad_()
            g = lib.from_numpy(g0.astype(dtype)).requires_grad_()
            y = lib.nn.functional.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=ac)
            w = lib.from_numpy(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)).astype(dtype))
            res[lib.__name__] = [y.detach().numpy(), *[t.numpy() for t in lib.autograd.grad([y], [x, g], [w])]]
        for name, e, t in zip(("output", "input grad", "grid grad"), res["ember"], res["torch"]):
            np.testing.assert_allclose(e, t, rtol=tol, atol=tol, err_msg=f"{name} {dtype}")


@pytest.mark.parametrize("mode,pad", [("bilinear", "zeros"), ("bilinear", "reflection"), ("bicubic", "border"),
                                      ("nearest", "zeros")])
def test_grid_sample_double_backward(mode, pad):
    """PyTorch has no double backward for grid_sample; Ember's (through the differentiable
    form) is checked against central differences."""
    x = ember.from_numpy(RNG.uniform(-1, 1, (1, 2, 4, 5))).requires_grad_()
    g = ember.from_numpy(RNG.uniform(-1.2, 1.2, (1, 3, 2, 2))).requires_grad_()
    fn = lambda a, b: ember.nn.functional.grid_sample(a, b, mode=mode, padding_mode=pad, align_corners=False)  # noqa: E731
    assert ember.autograd.gradgradcheck(fn, (x, g))


def test_affine_grid_and_sampling_pipeline():
    for size, theta_shape in (((2, 3, 6, 5), (2, 2, 3)), ((2, 2, 3, 4, 5), (2, 3, 4))):
        th0 = np.eye(theta_shape[1], theta_shape[2])[None] + RNG.uniform(-0.3, 0.3, theta_shape)
        x0 = RNG.uniform(-1, 1, size)
        for ac in (False, True):
            res = {}
            for lib in (ember, torch):
                th = lib.from_numpy(th0).requires_grad_()
                x = lib.from_numpy(x0).requires_grad_()
                grid = lib.nn.functional.affine_grid(th, size, align_corners=ac)
                y = lib.nn.functional.grid_sample(x, grid, align_corners=ac)
                res[lib.__name__] = [grid.detach().numpy(), y.detach().numpy(),
                                     *[t.numpy() for t in lib.autograd.grad([y.square().sum()], [th, x])]]
            for e, t in zip(res["ember"], res["torch"]):
                np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-10)


def test_grid_sample_default_align_corners_warns():
    x = ember.ones(1, 1, 3, 3)
    g = ember.zeros(1, 2, 2, 2)
    with pytest.warns(UserWarning, match="align_corners=False"):
        y = ember.nn.functional.grid_sample(x, g)
    np.testing.assert_array_equal(y.numpy(), ember.nn.functional.grid_sample(x, g, align_corners=False).numpy())
    with pytest.warns(UserWarning, match="align_corners=False"):
        ember.nn.functional.affine_grid(ember.zeros(1, 2, 3), (1, 1, 2, 2))


# ---------------------------------------------------------------- layers and deprecated forms
@pytest.mark.parametrize("name,args,kwargs,shape", [
    ("Upsample", (), {"scale_factor": 2}, (2, 3, 4, 5)),
    ("Upsample", (), {"size": (7, 3), "mode": "bilinear", "align_corners": True}, (2, 3, 4, 5)),
    ("Upsample", (), {"scale_factor": (1.5, 2.0, 0.5), "mode": "trilinear"}, (1, 2, 4, 4, 6)),
    ("Upsample", (), {"size": 9, "mode": "linear"}, (2, 3, 5)),
    ("Upsample", (), {"scale_factor": 1.5, "mode": "bicubic", "recompute_scale_factor": True}, (1, 2, 4, 5)),
    ("UpsamplingNearest2d", (), {"scale_factor": 3}, (2, 3, 4, 5)),
    ("UpsamplingNearest2d", ((6, 7),), {}, (2, 3, 4, 5)),
    ("UpsamplingBilinear2d", (), {"scale_factor": 2}, (2, 3, 4, 5)),
    ("UpsamplingBilinear2d", (8,), {}, (2, 3, 4, 5)),
])
def test_upsample_layers(name, args, kwargs, shape):
    e_mod = getattr(nn, name)(*args, **kwargs)
    t_mod = getattr(torch.nn, name)(*args, **kwargs)
    assert repr(e_mod) == repr(t_mod)
    x0 = RNG.uniform(-1, 1, shape)
    xe, xt = ember.from_numpy(x0).requires_grad_(), torch.from_numpy(x0).requires_grad_()
    ye, yt = e_mod(xe), t_mod(xt)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-12)
    ye.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,kw", [("upsample", {"scale_factor": 2, "mode": "bilinear", "align_corners": False}),
                                     ("upsample", {"size": (3, 7)}), ("upsample_nearest", {"scale_factor": 2}),
                                     ("upsample_bilinear", {"size": (6, 9)})])
def test_deprecated_upsample_functions(name, kw):
    x0 = RNG.uniform(-1, 1, (2, 3, 4, 5))
    with pytest.warns(UserWarning, match="deprecated"):
        e = getattr(ember.nn.functional, name)(ember.from_numpy(x0), **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = getattr(torch.nn.functional, name)(torch.from_numpy(x0), **kw)
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- bad arguments
def _zeros(lib, shape, dtype="float32"):
    return lib.zeros(shape, dtype=getattr(lib, dtype))


_BAD = [
    ("both size and scale", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4, 4)), size=3, scale_factor=2),
     "only one of size or scale_factor"),
    ("neither", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4, 4))), "either size or scale_factor"),
    ("bad mode", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4, 4)), size=3, mode="cubic"),
     r"\(got cubic\)"),
    ("bilinear on 3-D", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4)), size=3, mode="bilinear"),
     "Got 3D input, but bilinear mode needs 4D input"),
    ("linear on 4-D", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4, 4)), size=3, mode="linear"),
     "Got 4D input, but linear mode needs 3D input"),
    ("trilinear on 4-D", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4, 4)), size=3, mode="trilinear"),
     "Got 4D input, but trilinear mode needs 5D input"),
    ("bicubic on 5-D", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4, 4, 4)), size=3, mode="bicubic"),
     r"Only 3D, 4D and 5D input Tensors supported \(got 5D\).*\(got bicubic\)"),
    ("2-D input", lambda L: L.nn.functional.interpolate(_zeros(L, (2, 4)), size=3), r"\(got 2D\)"),
    ("align_corners with nearest",
     lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4, 4)), size=3, align_corners=True),
     "align_corners option can only be set"),
    ("size length", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4, 4)), size=(3, 3, 3)),
     "same number of spatial dimensions"),
    ("scale length", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4, 4)), scale_factor=(2.0,)),
     "same number of spatial dimensions"),
    ("zero output", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4, 4)), size=(0, 3), mode="bilinear"),
     r"greater than 0, but got input \(H: 4, W: 4\) output \(H: 0, W: 3\)"),
    ("negative scale", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4)), scale_factor=-1.0),
     r"input \(W: 4\) and output \(W: -4\)"),
    ("no channels", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 0, 4, 4)), size=3),
     r"Non-empty 4D data tensor expected but got a tensor with sizes \[1, 0, 4, 4\]"),
    ("antialias nearest", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4, 4)), size=3, antialias=True),
     "Anti-alias option is only supported"),
    ("antialias trilinear", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4, 4, 4)), size=3,
                                                                     mode="trilinear", antialias=True),
     "Anti-alias option is only supported"),
    ("antialias 3-D bicubic", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4)), size=3, mode="bicubic",
                                                                    antialias=True),
     "Anti-alias option is only supported"),
    ("antialias area", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4, 4)), size=3, mode="area",
                                                             antialias=True), "Anti-alias option is only supported"),
    ("antialias bfloat16", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4, 4), "bfloat16"), size=3,
                                                                 mode="bilinear", antialias=True),
     "\"compute_indices_weights_aa\" not implemented for '(BFloat16|bfloat16)'"),
    ("antialias int64", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4, 4), "int64"), size=3,
                                                              mode="bicubic", antialias=True),
     "not implemented for '(Long|int64)'"),
    ("int32 input", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4, 4), "int32"), size=3),
     "not implemented for"),
    ("float16 bilinear", lambda L: L.nn.functional.interpolate(_zeros(L, (1, 2, 4, 4), "float16"), size=3,
                                                               mode="bilinear"), "not implemented for"),
    ("grid batch", lambda L: L.nn.functional.grid_sample(_zeros(L, (1, 2, 4, 4)), _zeros(L, (2, 3, 3, 2)),
                                                         align_corners=False), "same batch size"),
    ("grid last dim", lambda L: L.nn.functional.grid_sample(_zeros(L, (1, 2, 4, 4)), _zeros(L, (1, 3, 3, 3)),
                                                            align_corners=False),
     "expected grid to have size 2 in last dimension"),
    ("grid rank", lambda L: L.nn.functional.grid_sample(_zeros(L, (1, 2, 4, 4)), _zeros(L, (1, 3, 3, 1, 2)),
                                                        align_corners=False),
     "expected 4D input and grid with same number of dimensions"),
    ("bicubic 5-D", lambda L: L.nn.functional.grid_sample(_zeros(L, (1, 2, 4, 4, 4)), _zeros(L, (1, 3, 3, 1, 3)),
                                                          mode="bicubic", align_corners=False),
     "bicubic interpolation only supports 4D input"),
    ("grid mode", lambda L: L.nn.functional.grid_sample(_zeros(L, (1, 2, 4, 4)), _zeros(L, (1, 3, 3, 2)),
                                                        mode="area"), "expected mode to be"),
    ("grid padding", lambda L: L.nn.functional.grid_sample(_zeros(L, (1, 2, 4, 4)), _zeros(L, (1, 3, 3, 2)),
                                                           padding_mode="circular"), "expected padding_mode to be"),
    ("grid dtype", lambda L: L.nn.functional.grid_sample(_zeros(L, (1, 2, 4, 4)), _zeros(L, (1, 3, 3, 2), "float64"),
                                                         align_corners=False), "dtype|scalar type"),
    ("empty input plane", lambda L: L.nn.functional.grid_sample(_zeros(L, (1, 2, 0, 4)), _zeros(L, (1, 3, 3, 2)),
                                                                align_corners=False), "non-empty spatial"),
    ("affine size", lambda L: L.nn.functional.affine_grid(_zeros(L, (1, 2, 3)), (1, 2, 3), align_corners=False),
     "only supports 4D and 5D sizes"),
    ("affine theta", lambda L: L.nn.functional.affine_grid(_zeros(L, (1, 3, 3)), (1, 2, 3, 3), align_corners=False),
     "Nx2x3"),
    ("affine int theta", lambda L: L.nn.functional.affine_grid(_zeros(L, (1, 2, 3), "int64"), (1, 2, 3, 3),
                                                               align_corners=False), "floating point"),
    ("affine zero size", lambda L: L.nn.functional.affine_grid(_zeros(L, (1, 2, 3)), (1, 2, 0, 3),
                                                               align_corners=False), "positive output size"),
]


@pytest.mark.parametrize("name,fn,match", _BAD, ids=[b[0] for b in _BAD])
def test_bad_arguments(name, fn, match):
    with pytest.raises(Exception) as t_info:
        fn(torch)
    with pytest.raises(Exception) as e_info:
        fn(ember)
    assert type(e_info.value) is type(t_info.value), f"Ember {type(e_info.value).__name__}: {e_info.value}; " \
                                                     f"PyTorch {type(t_info.value).__name__}: {t_info.value}"
    assert re.search(match, str(e_info.value)), str(e_info.value)


# ---------------------------------------------------------------- antialias
# Downscaling by 2, 3.5 and 4, to sizes that are not integer fractions, upscaling, mixed; on a
# 28x36 input.
_AA_SIZING = [
    {"scale_factor": 0.5}, {"scale_factor": 1 / 3.5}, {"scale_factor": 0.25}, {"size": (11, 13)}, {"size": (5, 17)},
    {"scale_factor": 2.0}, {"size": (31, 45)}, {"scale_factor": (0.3, 1.6)}, {"size": (28, 36)},
    {"scale_factor": 0.45, "recompute_scale_factor": True},
]


def _aa_cases():
    for mode in ("bilinear", "bicubic"):
        for ac in (False, True):
            for kw in _AA_SIZING:
                for cl in (False, True):
                    yield pytest.param(mode, ac, kw, cl, id=f"{mode}-ac{int(ac)}-{kw}-cl{int(cl)}")


@pytest.mark.parametrize("mode,ac,kw,cl", list(_aa_cases()))
def test_interpolate_antialias_matches_torch(mode, ac, kw, cl):
    x0 = RNG.uniform(-3, 3, (2, 3, 28, 36))
    for dtype, tol in (("float32", 3e-5), ("float64", 1e-12)):
        res = {}
        for lib in (ember, torch):
            x = lib.from_numpy(x0.astype(dtype)).requires_grad_()
            y = _lib_fn(lib).interpolate(_channels_last(x) if cl else x, mode=mode, align_corners=ac, antialias=True,
                                         **kw)
            w = lib.from_numpy(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)).astype(dtype))
            (g,) = lib.autograd.grad([y], [x], [w])
            res[lib.__name__] = (y.detach(), g)
        (ye, ge), (yt, gt) = res["ember"], res["torch"]
        assert tuple(ye.shape) == tuple(yt.shape) and ye.numpy().dtype == yt.numpy().dtype
        np.testing.assert_allclose(ye.numpy(), yt.numpy(), rtol=tol, atol=tol, err_msg=f"values {dtype}")
        assert tuple(ye.stride()) == tuple(yt.stride()), "layout differs from PyTorch's"
        np.testing.assert_allclose(ge.numpy(), gt.numpy(), rtol=tol, atol=tol, err_msg=f"input grad {dtype}")


def test_antialias_upscaling_is_plain_bilinear():
    # With a filter no wider than the input grid, antialias changes nothing (bilinear).
    x = ember.from_numpy(RNG.uniform(-1, 1, (1, 2, 5, 6)))
    a = ember.nn.functional.interpolate(x, size=(12, 13), mode="bilinear", align_corners=False, antialias=True)
    b = ember.nn.functional.interpolate(x, size=(12, 13), mode="bilinear", align_corners=False)
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode,scale", [("bilinear", 0.4), ("bicubic", 0.3), ("bicubic", 1.7)])
def test_interpolate_antialias_double_backward(mode, scale):
    """The gradient is linear in the output gradient: its own gradient is the forward again."""
    x0 = RNG.uniform(-1, 1, (1, 2, 9, 10))
    kw = dict(scale_factor=scale, mode=mode, align_corners=False, antialias=True)
    check_interpolate_double_backward(x0, kw)


def test_antialias_ops_on_meta():
    # Private names, like _upsample_nearest_exact2d, live in ember._C (torch: torch._C._nn).
    x = ember.empty(2, 3, 8, 9, device="meta")
    y = ember._C._upsample_bilinear2d_aa(x, [3, 4], False, None, None)
    assert tuple(y.shape) == (2, 3, 3, 4) and y.device == ember.device("meta")
    g = ember._C._upsample_bicubic2d_aa_backward(ember.empty(2, 3, 3, 4, device="meta"), [3, 4], [2, 3, 8, 9],
                                                 True, None, None)
    assert tuple(g.shape) == (2, 3, 8, 9) and g.device == ember.device("meta")
