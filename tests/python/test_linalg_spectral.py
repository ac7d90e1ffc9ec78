"""ember.linalg's spectral part beyond the op table (op_rows_linalg_spectral.py): reconstruction
identities at larger sizes, out=, gradients at degenerate spectra, the phase errors of
gauge-dependent losses, non-finite inputs, gradgradcheck of every decomposition through
gauge-invariant functions, and the top-level forms."""
import numpy as np
import pytest
import torch

import ember

DTYPES = ["float32", "float64", "complex64", "complex128"]
TOL = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-10, "complex128": 1e-10}


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _mH(x):
    return x.transpose(-2, -1).conj()


def _eye(n, dtype):
    return ember.eye(n, dtype=getattr(ember, dtype))


def _close(a, b, dtype, scale=1.0):
    an = a.numpy() if isinstance(a, ember.Tensor) else a
    bn = b.numpy() if isinstance(b, ember.Tensor) else b
    np.testing.assert_allclose(an, bn, atol=TOL[dtype] * scale, rtol=TOL[dtype] * scale)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(3, 40, 40), (64, 64)])
def test_eigh_reconstructs(dtype, shape):
    a = ember.from_numpy(_data(shape, dtype))
    h = a + _mH(a)
    L, V = ember.linalg.eigh(h)
    n = shape[-1]
    _close(h @ V, V * L.to(V.dtype).unsqueeze(-2), dtype, 10 * n)
    _close(_mH(V) @ V, _eye(n, dtype).expand(V.shape), dtype, 10 * n)
    ref = np.linalg.eigvalsh(h.numpy())
    _close(L, ref, dtype, 10 * n)
    assert V.stride()[-2:] == (1, n)  # column-major per matrix, as PyTorch's


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 50, 30), (30, 50), (40, 40)])
@pytest.mark.parametrize("full", [False, True])
def test_svd_reconstructs(dtype, shape, full):
    a = ember.from_numpy(_data(shape, dtype))
    U, S, Vh = ember.linalg.svd(a, full_matrices=full)
    k = min(shape[-2:])
    Uk, Vk = U[..., :, :k], Vh[..., :k, :]
    _close((Uk * S.to(U.dtype).unsqueeze(-2)) @ Vk, a, dtype, 100)
    _close(_mH(U) @ U, _eye(U.shape[-1], dtype).expand(U.shape[:-2] + (U.shape[-1],) * 2), dtype, 100)
    _close(Vh @ _mH(Vh), _eye(Vh.shape[-2], dtype).expand(Vh.shape[:-2] + (Vh.shape[-2],) * 2), dtype, 100)
    _close(S, np.linalg.svd(a.numpy(), compute_uv=False), dtype, 100)
    _close(ember.linalg.svdvals(a), S, dtype, 10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 50, 30), (30, 50), (40, 40)])
@pytest.mark.parametrize("mode", ["reduced", "complete"])
def test_qr_reconstructs(dtype, shape, mode):
    a = ember.from_numpy(_data(shape, dtype))
    Q, R = ember.linalg.qr(a, mode=mode)
    _close(Q @ R, a, dtype, 100)
    _close(_mH(Q) @ Q, _eye(Q.shape[-1], dtype).expand(Q.shape[:-2] + (Q.shape[-1],) * 2), dtype, 100)
    _close(R, ember.triu(R), dtype)
    Rr = ember.linalg.qr(a, mode="r")
    assert Rr.Q.numel() == 0
    _close(Rr.R, R[..., :Rr.R.shape[-2], :], dtype, 10)


@pytest.mark.parametrize("dtype", DTYPES)
def test_eig_reconstructs(dtype):
    a = ember.from_numpy(_data((3, 30, 30), dtype))
    L, V = ember.linalg.eig(a)
    assert L.is_complex() and V.is_complex()
    ac = a.to(V.dtype)
    _close(ac @ V, V * L.unsqueeze(-2), dtype, 1000)
    ref = np.sort_complex(np.linalg.eigvals(a.numpy()).reshape(-1))
    _close(np.sort_complex(ember.linalg.eigvals(a).numpy().reshape(-1)), ref, dtype, 1000)


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_householder_product_inverts_geqrf(dtype):
    # torch.geqrf gives reflectors; their product is the Q of the same matrix
    a = _data((6, 4), dtype)
    refl, tau = torch.geqrf(torch.from_numpy(a))
    q = ember.linalg.householder_product(ember.from_numpy(refl.numpy()), ember.from_numpy(tau.numpy()))
    _close(q, np.linalg.qr(a)[0], dtype, 10)
    _close(ember.orgqr(ember.from_numpy(refl.numpy()), ember.from_numpy(tau.numpy())), q, dtype)


@pytest.mark.parametrize("driver", ["gelsy", "gelsd", "gelss", "gels"])
def test_lstsq_matches_numpy(driver):
    a, b = _data((2, 20, 6), "float64"), _data((2, 20, 3), "float64", 1)
    r = ember.linalg.lstsq(ember.from_numpy(a), ember.from_numpy(b), driver=driver)
    ref = np.stack([np.linalg.lstsq(a[i], b[i], rcond=None)[0] for i in range(2)])
    _close(r.solution, ref, "float64", 100)
    if driver != "gelsy":
        res = ((a @ ref - b) ** 2).sum(-2)
        _close(r.residuals, res, "float64", 1000)


def test_out_forms():
    a = ember.from_numpy(_data((4, 4), "float64"))
    h = a + a.mT
    L, V = ember.empty(0, dtype=ember.float64), ember.empty(0, dtype=ember.float64)
    r = ember.linalg.eigh(h, out=(L, V))
    assert r[0] is L and r[1] is V and r.eigenvalues is L
    ref = ember.linalg.eigh(h)
    _close(L, ref.eigenvalues, "float64")
    n = ember.empty(0, dtype=ember.float64)
    assert ember.linalg.matrix_norm(a, "nuc", out=n) is n
    _close(n, np.linalg.norm(a.numpy(), "nuc"), "float64", 10)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        ember.linalg.svdvals(a, out=ember.empty(0, dtype=ember.float32))
    x = a.clone().requires_grad_()
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        ember.linalg.svdvals(x, out=ember.empty(0, dtype=ember.float64))


# Every out= overload against torch's out= (values gauge-free where the factors are not unique).
_OUT_CASES = [
    ("eigvalsh", lambda lib, a: ((a + a.mT,), {}), 1),
    ("eigvals", lambda lib, a: ((a,), {}), 1),
    ("svdvals", lambda lib, a: ((a,), {}), 1),
    ("qr", lambda lib, a: ((a,), {"mode": "r"}), 2),
    ("householder_product", lambda lib, a: ((a, a[..., 0, :3]), {}), 1),
    ("vector_norm", lambda lib, a: ((a,), {"ord": 3, "dim": (-1,)}), 1),
    ("matrix_norm", lambda lib, a: ((a,), {"ord": -1}), 1),
    ("matrix_norm", lambda lib, a: ((a,), {"ord": "fro", "dim": (0, -1)}), 1),
    ("norm", lambda lib, a: ((a,), {}), 1),
    ("norm", lambda lib, a: ((a,), {"ord": "nuc", "dim": (-2, -1)}), 1),
    ("multi_dot", lambda lib, a: (([a[0], a[1].mT, a[0]],), {}), 1),
    ("cross", lambda lib, a: ((a[..., :3], a[..., 1:]), {}), 1),
    ("vecdot", lambda lib, a: ((a, a + 1), {}), 1),
    # the C++ out= overloads of pinv, matrix_rank, cond and lstsq (torch's overload names)
    ("pinv", lambda lib, a: ((a,), {}), 1),
    ("pinv", lambda lib, a: ((a, 0.1), {"hermitian": False}), 1),
    ("pinv", lambda lib, a: ((a, lib.full((2,), 0.1, dtype=lib.float64)), {}), 1),
    ("pinv", lambda lib, a: ((a + a.mT,), {"atol": 0.5, "rtol": 0.1, "hermitian": True}), 1),
    ("pinv", lambda lib, a: ((a,), {"atol": lib.full((2,), 0.5, dtype=lib.float64)}), 1),
    ("matrix_rank", lambda lib, a: ((a,), {}), 1),
    ("matrix_rank", lambda lib, a: ((a, 2.5), {}), 1),
    ("matrix_rank", lambda lib, a: ((a, lib.full((2,), 2.5, dtype=lib.float64)), {}), 1),
    ("matrix_rank", lambda lib, a: ((a,), {"atol": 1.0, "rtol": 0.2}), 1),
    ("matrix_rank", lambda lib, a: ((a,), {"rtol": lib.full((2,), 0.3, dtype=lib.float64)}), 1),
    ("cond", lambda lib, a: ((a,), {}), 1),
    ("cond", lambda lib, a: ((a, "fro"), {}), 1),
    ("cond", lambda lib, a: ((a, -1), {}), 1),
    ("lstsq", lambda lib, a: ((a, a[..., :2] + 1), {"driver": "gelsd"}), 4),
]
# out dtypes these refuse: pinv, matrix_rank, cond and lstsq take any dtype the result casts to
_WRONG_OUT = {"pinv": "int32", "matrix_rank": "bool", "cond": "int32", "lstsq": "int32"}


@pytest.mark.parametrize("case", range(len(_OUT_CASES)))
def test_out_overloads_match_torch(case):
    name, args, nout = _OUT_CASES[case]
    data = _data((2, 4, 4), "float64")
    results = []
    for lib in (ember, torch):
        pos, kw = args(lib, lib.from_numpy(data.copy()))
        fn = getattr(lib.linalg, name)
        ref = fn(*pos, **kw)
        refs = (ref,) if nout == 1 else tuple(ref)
        outs = tuple(lib.empty(0, dtype=r.dtype) for r in refs)
        got = fn(*pos, **kw, out=outs[0] if nout == 1 else outs)
        gots = (got,) if nout == 1 else tuple(got)
        assert all(g is o for g, o in zip(gots, outs))
        results.append([o.numpy() for o in outs])
    for e, t in zip(*results):
        _close(e, t, "float64", 100)
    pos, kw = args(ember, ember.from_numpy(data.copy()))
    wrong = ember.empty(0, dtype=getattr(ember, _WRONG_OUT.get(name, "float32")))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype|to be safely castable from"):
        getattr(ember.linalg, name)(*pos, **kw, out=wrong if nout == 1 else (wrong,) * nout)


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float32", "complex128"])
@pytest.mark.parametrize("name", ["pinv", "matrix_rank", "cond"])
def test_out_dtype_casts_match_torch(name, dtype):
    # torch casts these results into any out dtype they cast to safely, and names the others
    data = _data((2, 4, 4), "float64")
    got = []
    for lib in (ember, torch):
        out = lib.empty(0, dtype=getattr(lib, dtype))
        try:
            getattr(lib.linalg, name)(lib.from_numpy(data.copy()), out=out)
            got.append(out.numpy())
        except RuntimeError as e:
            got.append(str(e))
    if isinstance(got[1], str):
        assert got[0] == got[1]
    else:
        assert got[0].dtype == got[1].dtype
        _close(got[0], got[1], "float32" if dtype == "float32" else "float64", 100)


def _out_with_grad_input(lib, name, data):
    a = lib.from_numpy(data.copy()).requires_grad_()
    args = (a, a.detach()) if name == "lstsq" else (a,)
    ref = getattr(lib.linalg, name)(*args)
    outs = tuple(lib.empty(0, dtype=r.dtype) for r in (tuple(ref) if name == "lstsq" else (ref,)))
    try:
        getattr(lib.linalg, name)(*args, out=outs if name == "lstsq" else outs[0])
    except RuntimeError as e:
        assert "don't support automatic differentiation" in str(e)
        return "raised", None
    if not outs[0].requires_grad:
        return "values", None
    (g,) = lib.autograd.grad([outs[0].sum()], [a])
    return "differentiable", g.detach().numpy()


@pytest.mark.parametrize("name", ["pinv", "matrix_rank", "cond", "lstsq"])
def test_out_with_grad_inputs_as_torch(name):
    # pinv and lstsq refuse inputs that require grad; matrix_rank takes them (an integer
    # result), and so does cond, whose out is a differentiable copy
    data = _data((3, 3), "float64")
    e, t = (_out_with_grad_input(lib, name, data) for lib in (ember, torch))
    assert e[0] == t[0]
    if t[1] is not None:
        np.testing.assert_allclose(e[1], t[1], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["svd", "qr"])
def test_top_level_out_forms_match_torch(name):
    data = _data((2, 4, 3), "float64")
    got = []
    for lib in (ember, torch):
        a = lib.from_numpy(data.copy())
        n = 3 if name == "svd" else 2
        outs = tuple(lib.empty(0, dtype=lib.float64) for _ in range(n))
        r = getattr(lib, name)(a, name == "svd", out=outs)  # reduced svd, complete qr
        assert all(x is o for x, o in zip(r, outs))
        # gauge-free: the reconstruction, and |S| or |diag R|
        if name == "svd":
            U, S, V = outs
            got.append(((U * S.unsqueeze(-2)) @ V.mT).numpy())
            got.append(S.numpy())
        else:
            Q, R = outs
            got.append((Q @ R).numpy())
            got.append(R.diagonal(0, -2, -1).abs().numpy())
    _close(got[0], got[2], "float64", 100)
    _close(got[1], got[3], "float64", 100)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        getattr(ember, name)(ember.from_numpy(data.copy()), out=(ember.empty(0, dtype=ember.float32),) * n)


def _grad_both(fn, a):
    ga = []
    for lib in (ember, torch):
        x = lib.from_numpy(a.copy()).requires_grad_()
        y = fn(lib, x)
        (g,) = (ember if lib is ember else torch).autograd.grad([y.sum()], [x])
        ga.append(g.detach().numpy() if lib is torch else g.numpy())
    return ga


def test_degenerate_values_have_finite_gradients():
    # repeated eigenvalues / singular values: a loss on the values alone is well defined
    a = np.diag([2.0, 2.0, 2.0, -1.0])
    e, t = _grad_both(lambda lib, x: lib.linalg.eigvalsh(x) * lib.arange(1, 5, dtype=lib.float64), a)
    assert np.isfinite(e).all()
    np.testing.assert_allclose(e, t, atol=1e-12)
    e, t = _grad_both(lambda lib, x: lib.linalg.svdvals(x), np.eye(4))
    assert np.isfinite(e).all()
    np.testing.assert_allclose(e, t, atol=1e-12)
    e, t = _grad_both(lambda lib, x: lib.linalg.matrix_norm(x, "nuc"), np.eye(3))
    np.testing.assert_allclose(e, t, atol=1e-12)


@pytest.mark.parametrize("case", ["eigh", "svd", "eig"])
def test_phase_dependent_loss_raises(case):
    a = _data((4, 4), "complex128")
    msgs = {"eigh": "linalg_eigh_backward: The eigenvectors in the complex case are specified up to multiplication",
            "svd": "svd_backward: The singular vectors in the complex case are specified up to multiplication",
            "eig": "linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication"}
    for lib in (ember, torch):
        x = lib.from_numpy(a.copy()).requires_grad_()
        if case == "eigh":
            v = lib.linalg.eigh(x + _mH(x))[1]
        elif case == "svd":
            v = lib.linalg.svd(x)[0]
        else:
            v = lib.linalg.eig(x)[1]
        with pytest.raises(RuntimeError, match=msgs[case]):
            lib.autograd.grad([v.real.sum()], [x])


def test_qr_backward_errors():
    x = ember.from_numpy(_data((5, 3), "float64")).requires_grad_()
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete' and nrows > ncols"):
        ember.autograd.grad([ember.linalg.qr(x, mode="complete").Q.sum()], [x])
    with pytest.raises(RuntimeError, match="not computed when mode='r'"):
        ember.autograd.grad([ember.linalg.qr(x, mode="r").R.sum()], [x])


def test_non_finite_inputs():
    nan = ember.full((3, 3), float("nan"), dtype=ember.float64)
    with pytest.raises(ember.linalg.LinAlgError, match="linalg.eigh: The algorithm failed to converge"):
        ember.linalg.eigh(nan)
    with pytest.raises(ember.linalg.LinAlgError, match="linalg.svd: The algorithm failed to converge"):
        ember.linalg.svd(nan)
    with pytest.raises(RuntimeError, match="input tensor should not contain infs or NaNs"):
        ember.linalg.eig(nan)
    assert ember.isnan(ember.linalg.qr(nan).R).any().item()
    assert ember.isnan(ember.linalg.matrix_exp(nan)).all().item()
    sol = ember.linalg.lstsq(nan, ember.ones(3, 2, dtype=ember.float64)).solution
    assert ember.isnan(sol).all().item()
    assert isinstance(ember.linalg.LinAlgError("x"), RuntimeError)


def _gauge_free(name):
    """Functions of the decompositions that do not depend on the eigen/singular vectors' phase."""
    def eigh(x):
        L, V = ember.linalg.eigh(x + _mH(x))
        w = ember.arange(1, x.shape[-1] + 1, dtype=ember.float64).to(V.dtype)
        return L, (V * w) @ _mH(V)

    def svd(x):
        U, S, Vh = ember.linalg.svd(x, full_matrices=False)
        w = ember.arange(1, S.shape[-1] + 1, dtype=ember.float64).to(U.dtype)
        return S, (U * w) @ Vh

    def eig(x):
        L, V = ember.linalg.eig(x)
        return L, V.abs()

    def qr(x):
        return tuple(ember.linalg.qr(x))

    return {"eigh": eigh, "svd": svd, "eig": eig, "qr": qr,
            "pinv": ember.linalg.pinv, "matrix_exp": ember.linalg.matrix_exp,
            "svdvals": ember.linalg.svdvals, "eigvals": ember.linalg.eigvals,
            "nuc": lambda x: ember.linalg.matrix_norm(x, "nuc"),
            "spectral": lambda x: ember.linalg.matrix_norm(x, 2)}[name]


_SQUARE_ONLY = ("eigh", "eig", "matrix_exp", "eigvals")
_GRAD_CASES = [(name, shape) for name in ("eigh", "svd", "eig", "qr", "pinv", "matrix_exp", "svdvals", "eigvals", "nuc",
                                          "spectral")
               for shape in ((3, 3), (4, 3), (3, 4)) if name not in _SQUARE_ONLY or shape[0] == shape[1]]


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("name,shape", _GRAD_CASES)
def test_gradcheck_gradgradcheck(dtype, name, shape):
    x = ember.from_numpy(_data(shape, dtype, seed=3)).requires_grad_()
    fn = _gauge_free(name)
    assert ember.autograd.gradcheck(fn, (x,))
    assert ember.autograd.gradgradcheck(fn, (x,))


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gradcheck_householder_and_lstsq(dtype):
    a = ember.from_numpy(_data((5, 3), dtype)).requires_grad_()
    tau = ember.from_numpy(_data((3,), dtype, 1) * 0.5).requires_grad_()
    assert ember.autograd.gradcheck(ember.linalg.householder_product, (a, tau))
    assert ember.autograd.gradgradcheck(ember.linalg.householder_product, (a, tau))
    b = ember.from_numpy(_data((5, 2), dtype, 2)).requires_grad_()
    sol = lambda a, b: ember.linalg.lstsq(a, b).solution  # noqa: E731
    assert ember.autograd.gradcheck(sol, (a, b))
    assert ember.autograd.gradgradcheck(sol, (a, b))


def test_top_level_forms():
    a = ember.from_numpy(_data((4, 3), "float64"))
    t = torch.from_numpy(a.numpy())
    U, S, V = a.svd()
    _close(U @ ember.diag(S) @ V.mT, a, "float64", 10)
    U0, S0, V0 = ember.svd(a, compute_uv=False)
    assert (U0 == 0).all().item() and tuple(U0.shape) == tuple(torch.svd(t, compute_uv=False).U.shape)
    Q, R = a.qr()
    _close(Q @ R, a, "float64", 10)
    _close(a.pinverse(), torch.pinverse(t).numpy(), "float64", 10)
    s = ember.from_numpy(_data((3, 3), "float64"))
    _close(s.matrix_exp(), torch.matrix_exp(torch.from_numpy(s.numpy())).numpy(), "float64", 10)
    _close(ember.norm(s, "nuc"), torch.norm(torch.from_numpy(s.numpy()), "nuc").numpy(), "float64", 10)
