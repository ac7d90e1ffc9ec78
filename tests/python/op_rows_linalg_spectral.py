"""Op-table rows of ember.linalg's spectral part (src/ops/linalg_spectral*.cpp): decompositions,
least squares, pinv, matrix_rank, norms and products, and the top-level svd, qr, pinverse,
matrix_exp.

Decompositions whose factors are defined only up to a phase (eigh, eig, svd) are compared
through quantities that do not depend on it: the eigenvalues, and V diag(w) V^H or
U diag(w) V^H for fixed distinct weights w (or |V|); the same quantities carry the gradient
checks, so the losses are gauge invariant. Hermitian inputs are made as A + A^H (eigh reads
one triangle, so a gradient through the raw matrix is not defined). Reconstruction
identities at larger sizes, out=, degenerate spectra and the phase errors are in
test_linalg_spectral.py."""
from op_testing import ALL_DTYPES, COMPLEX, FLOATING, ErrorSample, OpInfo, Sample, T

LA = ("float32", "float64") + COMPLEX
TOL = {"float32": (1e-4, 1e-4), "complex64": (1e-4, 1e-4), "float64": (1e-9, 1e-9), "complex128": (1e-9, 1e-9)}
R = dict(low=-2, high=2)
INT = ("uint8", "int8", "int16", "int32", "int64")
NORM = FLOATING + COMPLEX  # the norms that need no decomposition take 16-bit floats too


def _mH(x):
    return x.transpose(-2, -1).conj()


def _herm(A):
    # non-square inputs pass through (the error samples)
    return A + _mH(A) if A.dim() >= 2 and A.shape[-1] == A.shape[-2] else A


def _weights(lib, n, like):
    w = lib.arange(1, n + 1, dtype=lib.float64) * 0.7
    return w.to(like.real.dtype if like.is_complex() else like.dtype)


def _square(dtype):
    return [Sample([T((4, 4), **R)], name="4x4"),
            Sample([T((2, 3, 3), **R)], name="batch"),
            Sample([T((1, 1), **R)], name="1x1"),
            Sample([T((0, 3, 3), **R)], name="zero-batch"),
            Sample([T((5, 5), noncontig=True, **R)], name="noncontig"),
            Sample([T((4, 4), transpose=True, **R)], name="transposed")]


def _rect(dtype):
    return [Sample([T((4, 3), **R)], name="tall"),
            Sample([T((3, 5), **R)], name="wide"),
            Sample([T((2, 4, 4), **R)], name="batch-square"),
            Sample([T((0, 3, 2), **R)], name="zero-batch"),
            Sample([T((4, 6), noncontig=True, **R)], name="noncontig"),
            Sample([T((3, 4), transpose=True, **R)], name="transposed")]


# ---------------------------------------------------------------- eigh / eigvalsh
def _eigh(lib, A, **k):
    H = _herm(A)
    L, V = lib.linalg.eigh(H, **k)
    w = _weights(lib, H.shape[-1], H)
    return L, (V * w.to(V.dtype)) @ _mH(V)


def _eigh_lower_view(lib, A):
    # a non-contiguous Hermitian input (the transpose of a Hermitian matrix is Hermitian)
    H = _herm(A).transpose(-2, -1)
    L, V = lib.linalg.eigh(H, UPLO="U")
    w = _weights(lib, H.shape[-1], H)
    return L, (V * w.to(V.dtype)) @ _mH(V)


def _eigvalsh(lib, A, **k):
    return lib.linalg.eigvalsh(_herm(A), **k)


# ---------------------------------------------------------------- eig / eigvals
def _sorted_eigs(lib, L):
    # order by real part, then imaginary part (both libraries' geev orders may differ)
    key = L.real * 1000 + L.imag
    idx = lib.argsort(key, dim=-1)
    return lib.gather(L, -1, idx), idx


def _eig(lib, A):
    L, V = lib.linalg.eig(A)
    Ls, idx = _sorted_eigs(lib, L)
    Vabs = lib.gather(V.abs(), -1, idx.unsqueeze(-2).expand(V.shape))
    return Ls, Vabs


def _eigvals(lib, A):
    return _sorted_eigs(lib, lib.linalg.eigvals(A))[0]


# ---------------------------------------------------------------- svd
def _svd(lib, A, full_matrices=True, **k):
    U, S, Vh = lib.linalg.svd(A, full_matrices=full_matrices, **k)
    k = S.shape[-1]
    w = _weights(lib, k, A)
    U, Vh = U[..., :, :k], Vh[..., :k, :]
    return S, (U * w.to(U.dtype)) @ Vh


def _svd_old(lib, A, some=True):
    U, S, V = lib.svd(A, some=some)
    k = S.shape[-1]
    w = _weights(lib, k, A)
    return S, (U[..., :, :k] * w.to(U.dtype)) @ _mH(V[..., :, :k])


def _svd_no_uv(lib, A):
    return lib.svd(A, compute_uv=False)


def _qr(default_mode):
    def run(lib, A, mode=default_mode):
        return lib.linalg.qr(A, mode=mode)
    return run


def _fn(name):
    def run(lib, *a, **k):
        return getattr(lib.linalg, name)(*a, **k)
    return run


def _top(name):
    def run(lib, *a, **k):
        return getattr(lib, name)(*a, **k)
    return run


def _matrix_exp_torch(name):
    # PyTorch 1.13's bfloat16 matrix_exp returns NaN/inf (its degree-18 polynomial overflows in
    # bfloat16): the reference computes in float32 and rounds, as Ember does.
    def run(lib, A):
        fn = lib.linalg.matrix_exp if name == "linalg" else lib.matrix_exp
        return fn(A.float()).to(A.dtype) if A.dtype == lib.bfloat16 else fn(A)
    return run


def _hh(lib, A, tau):
    return lib.linalg.householder_product(A, tau)


def _pinv_herm(lib, A, **k):
    return lib.linalg.pinv(_herm(A), hermitian=True, **k)


def _rank_herm(lib, A, **k):
    return lib.linalg.matrix_rank(_herm(A), hermitian=True, **k)


def _low_rank(lib, A, B):
    return lib.linalg.matrix_rank(A @ B)


def _lstsq(driver):
    def run(lib, A, B, **k):
        if driver is not None:
            k["driver"] = driver
        return tuple(lib.linalg.lstsq(A, B, **k))
    return run


def _vector_norm_dtype(lib, x):
    return lib.linalg.vector_norm(x, dtype=lib.float64)


def _multi_dot(lib, *ts):
    return lib.linalg.multi_dot(list(ts))


ROWS = [
    OpInfo("linalg_eigh", _eigh, LA, _square,
           lambda: [ErrorSample([T((3, 4))], {}, RuntimeError, "must be batches of square matrices"),
                    ErrorSample([T((4,))], {}, RuntimeError, "must have at least 2 dimensions"),
                    ErrorSample([T((3, 3))], {"UPLO": "X"}, RuntimeError, "Expected UPLO argument to be 'L' or 'U'"),
                    ErrorSample([T((3, 3), dtype="int64")], {}, RuntimeError, "not implemented for 'Long'")],
           tol=TOL),
    OpInfo("linalg_eigh_upper_view", _eigh_lower_view, LA,
           lambda d: [Sample([T((4, 4), **R)]), Sample([T((2, 3, 3), **R)])], tol=TOL),
    OpInfo("linalg_eigvalsh", _eigvalsh, LA,
           lambda d: _square(d) + [Sample([T((4, 4), **R)], {"UPLO": "U"}, name="upper")],
           lambda: [ErrorSample([T((3, 3), dtype="float16")], {}, RuntimeError, "not implemented for 'Half'")],
           tol=TOL),
    OpInfo("linalg_eig", _eig, LA, lambda d: [s for s in _square(d) if s.name != "zero-batch"],
           lambda: [ErrorSample([T((3, 4))], {}, RuntimeError, "must be batches of square matrices"),
                    ErrorSample([T((3, 3), dtype="int64")], {}, RuntimeError, "Unknown Complex ScalarType for Long")],
           tol=TOL),
    OpInfo("linalg_eigvals", _eigvals, LA, _square,
           lambda: [ErrorSample([T((2, 3))], {}, RuntimeError, "must be batches of square matrices")], tol=TOL),
    OpInfo("linalg_svd", _svd, LA, _rect,
           lambda: [ErrorSample([T((4,))], {}, RuntimeError, "must have at least 2 dimensions"),
                    ErrorSample([T((3, 3), dtype="int64")], {}, RuntimeError,
                                "Expected a floating point or complex tensor as input. Got Long"),
                    ErrorSample([T((3, 3))], {"driver": "gesvd"}, RuntimeError, "only supported on CUDA")],
           tol=TOL),
    OpInfo("linalg_svd_reduced", lambda lib, A: _svd(lib, A, False), LA, _rect, tol=TOL),
    OpInfo("linalg_svdvals", _fn("svdvals"), LA, _rect,
           lambda: [ErrorSample([T((3, 3), dtype="float16")], {}, RuntimeError, "not implemented for 'Half'")],
           tol=TOL),
    OpInfo("svd", _svd_old, LA, _rect, tol=TOL),
    OpInfo("svd_complete", lambda lib, A: _svd_old(lib, A, some=False), LA, _rect, tol=TOL),
    OpInfo("svd_no_uv", _svd_no_uv, LA, _rect, tol=TOL),
    OpInfo("linalg_qr", _qr("reduced"), LA, _rect,
           lambda: [ErrorSample([T((3,))], {}, RuntimeError, "must have at least 2 dimensions"),
                    ErrorSample([T((3, 3), dtype="int64")], {}, RuntimeError,
                                "Expected a floating point or complex tensor as input. Got Long"),
                    ErrorSample([T((3, 3))], {"mode": "bad"}, RuntimeError, "qr received unrecognized mode 'bad'")],
           tol=TOL),
    OpInfo("linalg_qr_complete", _qr("complete"), LA,
           lambda d: [s for s in _rect(d) if s.name != "tall"], tol=TOL),
    OpInfo("linalg_qr_complete_tall", _qr("complete"), LA, lambda d: [Sample([T((5, 3), **R)])], tol=TOL),
    OpInfo("linalg_qr_r", _qr("r"), LA, _rect, tol=TOL),
    OpInfo("qr", _top("qr"), LA, _rect, tol=TOL),
    OpInfo("qr_some_false", lambda lib, A: lib.qr(A, some=False), LA,
           lambda d: [s for s in _rect(d) if s.name != "tall"], tol=TOL),
    OpInfo("linalg_householder_product", _hh, LA,
           lambda d: [Sample([T((5, 3), **R), T((3,), seed=1, low=0.2, high=1)]),
                      Sample([T((4, 4), **R), T((2,), seed=1, low=0.2, high=1)], name="fewer-reflectors"),
                      Sample([T((2, 4, 3), **R), T((2, 3), seed=1, low=0.2, high=1)], name="batch"),
                      Sample([T((5, 3), noncontig=True, **R), T((3,), seed=1, low=0.2, high=1)], name="noncontig")],
           lambda: [ErrorSample([T((3, 2)), T((3,))], {}, RuntimeError,
                                "input.shape\\[-1\\] must be greater than or equal to tau.shape\\[-1\\]"),
                    ErrorSample([T((2, 3)), T((1,))], {}, RuntimeError,
                                "input.shape\\[-2\\] must be greater than or equal to input.shape\\[-1\\]")],
           tol=TOL),
    OpInfo("linalg_pinv", _fn("pinv"), LA,
           # tolerances below the smallest singular value: the pseudo-inverse is smooth there
           # (its gradient, PyTorch's formula, assumes the rank does not change)
           lambda d: _rect(d) + [Sample([T((4, 3), **R)], {"rtol": 0.01}, name="rtol"),
                                 Sample([T((4, 3), **R)], {"atol": 0.05}, name="atol"),
                                 Sample([T((3, 4), **R)], {"atol": 0.05, "rtol": 0.01}, name="atol-rtol")],
           lambda: [ErrorSample([T((3,))], {}, RuntimeError, "expected a tensor with 2 or more dimensions"),
                    ErrorSample([T((3, 3), dtype="int64")], {}, RuntimeError, "float, double, cfloat or cdouble")],
           tol=TOL),
    OpInfo("linalg_pinv_hermitian", _pinv_herm, LA, lambda d: [Sample([T((4, 4), **R)]), Sample([T((2, 3, 3), **R)])],
           tol=TOL),
    OpInfo("pinverse", _top("pinverse"), LA, lambda d: [Sample([T((4, 3), **R)]), Sample([T((3, 5), **R)], {"rcond": 0.01})],
           tol=TOL),
    OpInfo("linalg_matrix_rank", _fn("matrix_rank"), LA,
           lambda d: _rect(d) + [Sample([T((4, 3), **R)], {"atol": 1.0}, name="atol"),
                                 Sample([T((4, 3), **R)], {"rtol": 0.5}, name="rtol"),
                                 Sample([T((4, 3), **R)], {"tol": 2.0}, name="tol")],
           lambda: [ErrorSample([T((3,))], {}, RuntimeError, "must have at least 2 dimensions")], tol=TOL),
    OpInfo("linalg_matrix_rank_hermitian", _rank_herm, LA, lambda d: [Sample([T((4, 4), **R)])], tol=TOL),
    OpInfo("linalg_matrix_rank_deficient", _low_rank, LA,
           lambda d: [Sample([T((5, 2), **R), T((2, 4), seed=1, **R)]),
                      Sample([T((3, 6, 3), **R), T((3, 3, 6), seed=1, **R)])], tol=TOL),
    OpInfo("linalg_lstsq", _lstsq(None), LA,
           lambda d: [Sample([T((5, 3), **R), T((5, 2), seed=1, **R)]),
                      Sample([T((2, 4, 4), **R), T((2, 4, 1), seed=1, **R)], name="batch"),
                      Sample([T((3, 5), **R), T((3, 2), seed=1, **R)], name="wide")],
           lambda: [ErrorSample([T((3, 3)), T((4, 4))], {}, RuntimeError, "input.size\\(-2\\) should match other.size\\(-2\\)"),
                    ErrorSample([T((3, 3)), T((3, 3))], {"driver": "bad"}, RuntimeError,
                                "parameter `driver` should be one of")],
           tol=TOL),
    *[OpInfo(f"linalg_lstsq_{drv}", _lstsq(drv), LA,
             lambda d: [Sample([T((5, 3), **R), T((5, 2), seed=1, **R)]),
                        Sample([T((2, 4, 3), **R), T((1, 4, 2), seed=1, **R)], name="broadcast")],
             tol=TOL)
      for drv in ("gelsy", "gelsd", "gelss", "gels")],
    OpInfo("linalg_vector_norm", _fn("vector_norm"), NORM,
           lambda d: [Sample([T((3, 4), **R)]),
                      Sample([T((3, 4), **R)], {"ord": 1}, name="1"),
                      Sample([T((3, 4), **R)], {"ord": float("inf"), "dim": 1}, name="inf"),
                      Sample([T((3, 4), **R)], {"ord": float("-inf"), "dim": (0,)}, name="-inf"),
                      Sample([T((3, 4), **R)], {"ord": 0, "dim": 0, "keepdim": True}, name="0"),
                      Sample([T((2, 3, 4), **R)], {"ord": 3.5, "dim": (0, 2)}, name="p"),
                      Sample([T((3, 4), noncontig=True, **R)], {"ord": 2, "dim": -1}, name="noncontig"),
                      Sample([T((), **R)], name="scalar"),
                      Sample([T((0, 3), **R)], {"dim": 1}, name="zero-size")],
           lambda: [ErrorSample([T((3,), dtype="int64")], {}, RuntimeError,
                                "Expected a floating point or complex tensor as input. Got Long")],
           tol=TOL),
    OpInfo("linalg_vector_norm_dtype", _vector_norm_dtype, FLOATING, lambda d: [Sample([T((3, 4), **R)])], tol=TOL),
    OpInfo("linalg_matrix_norm", _fn("matrix_norm"), NORM,
           lambda d: [Sample([T((3, 4), **R)], name="fro"),
                      Sample([T((3, 4), **R)], {"ord": 1}, name="1"),
                      Sample([T((3, 4), **R)], {"ord": -1}, name="-1"),
                      Sample([T((3, 4), **R)], {"ord": float("inf")}, name="inf"),
                      Sample([T((3, 4), **R)], {"ord": float("-inf")}, name="-inf"),
                      Sample([T((2, 3, 4), **R)], {"ord": 1, "dim": (0, 2), "keepdim": True}, name="dims-keepdim"),
                      Sample([T((4, 5), noncontig=True, **R)], {"ord": float("inf")}, name="noncontig")],
           lambda: [ErrorSample([T((3, 3))], {"ord": 3}, RuntimeError, "linalg.matrix_norm: Order 3 not supported."),
                    ErrorSample([T((3, 3))], {"ord": "bad"}, RuntimeError, "linalg.matrix_norm: Order bad not supported."),
                    ErrorSample([T((3,))], {}, RuntimeError, "must have at least 2 dimensions")],
           tol=TOL),
    OpInfo("linalg_matrix_norm_svd", _fn("matrix_norm"), LA,
           lambda d: [Sample([T((3, 4), **R)], {"ord": "nuc"}, name="nuc"),
                      Sample([T((3, 4), **R)], {"ord": 2}, name="2"),
                      Sample([T((3, 4), **R)], {"ord": -2}, name="-2"),
                      Sample([T((2, 3, 4), **R)], {"ord": "nuc", "dim": (2, 0)}, name="nuc-dims"),
                      Sample([T((2, 3, 4), **R)], {"ord": 2, "keepdim": True}, name="2-keepdim")],
           lambda: [ErrorSample([T((3, 3), dtype="float16")], {"ord": "nuc"}, RuntimeError,
                                "Low precision dtypes not supported. Got Half")],
           tol=TOL),
    OpInfo("linalg_norm", _fn("norm"), NORM,
           lambda d: [Sample([T((3, 4), **R)], name="default"),
                      Sample([T((2, 3, 4), **R)], name="default-3d"),
                      Sample([T((4,), **R)], {"ord": 3}, name="vector-ord"),
                      Sample([T((3, 4), **R)], {"ord": "fro"}, name="fro"),
                      Sample([T((2, 3, 4), **R)], {"ord": 1, "dim": (1, 2)}, name="matrix-dims"),
                      Sample([T((2, 3, 4), **R)], {"dim": 1, "keepdim": True}, name="vector-dim")],
           lambda: [ErrorSample([T((2, 2, 2))], {"ord": 2}, RuntimeError,
                                "If dim is not specified but ord is, the input must be 1D or 2D"),
                    ErrorSample([T((3, 3))], {"ord": "x"}, RuntimeError, "Order x not supported")],
           tol=TOL),
    OpInfo("linalg_norm_svd", _fn("norm"), LA,
           lambda d: [Sample([T((3, 4), **R)], {"ord": "nuc"}, name="nuc"),
                      Sample([T((3, 4), **R)], {"ord": 2}, name="matrix-2"),
                      Sample([T((2, 3, 4), **R)], {"ord": -2, "dim": (0, 2)}, name="matrix-dims")],
           tol=TOL),
    OpInfo("linalg_multi_dot", _multi_dot, INT + ("bfloat16",) + LA,
           lambda d: [Sample([T((3, 4), **R), T((4, 5), seed=1, **R)], name="two"),
                      Sample([T((2, 6), **R), T((6, 3), seed=1, **R), T((3, 5), seed=2, **R), T((5, 2), seed=3, **R)],
                             name="four"),
                      Sample([T((4,), **R), T((4, 3), seed=1, **R), T((3,), seed=2, **R)], name="vectors"),
                      Sample([T((4,), **R), T((4,), seed=1, **R)], name="dot"),
                      Sample([T((3, 4), noncontig=True, **R), T((4, 2), seed=1, transpose=True, **R)], name="noncontig")],
           lambda: [ErrorSample([T((3,))], {}, RuntimeError, "expected at least 2 tensors but got 1"),
                    ErrorSample([T((3, 2)), T((3, 3))], {}, RuntimeError,
                                "tensors 0 and 1 with shapes \\[3, 2\\] and \\[3, 3\\] cannot be multiplied"),
                    ErrorSample([T((3, 2, 2)), T((2, 3))], {}, RuntimeError, "the first tensor must be 1D or 2D but got 3D")],
           tol=TOL),
    OpInfo("linalg_matrix_exp", _fn("matrix_exp"), LA + ("bfloat16",),
           lambda d: _square(d) + [Sample([T((3, 3), low=-8, high=8)], name="large-norm")],
           lambda: [ErrorSample([T((3, 4))], {}, RuntimeError, "must be batches of square matrices"),
                    ErrorSample([T((3, 3), dtype="int64")], {}, RuntimeError,
                                "Expected a floating point or complex tensor as input. Got Long")],
           tol=TOL, torch_fn=_matrix_exp_torch("linalg")),
    OpInfo("matrix_exp", _top("matrix_exp"), LA + ("bfloat16",), lambda d: [Sample([T((3, 3), **R)]), Sample([T((2, 2, 2), **R)])],
           tol=TOL, torch_fn=_matrix_exp_torch("top")),
    OpInfo("linalg_cross", _fn("cross"), INT + ("bfloat16",) + LA,
           lambda d: [Sample([T((4, 3)), T((4, 3), seed=1)]),
                      Sample([T((3, 2)), T((3, 1), seed=1)], {"dim": 0}, name="dim0-broadcast"),
                      Sample([T((2, 4, 3)), T((1, 4, 3), seed=1)], name="broadcast"),
                      Sample([T((3, 3), noncontig=True), T((3, 3), seed=1)], {"dim": 0}, name="noncontig")],
           lambda: [ErrorSample([T((3, 2)), T((3, 2))], {}, RuntimeError, "must have length 3. Got 2 and 2")],
           tol=TOL),
    OpInfo("linalg_vecdot", _fn("vecdot"), NORM,
           lambda d: [Sample([T((4, 5)), T((4, 5), seed=1)]),
                      Sample([T((3, 4)), T((4,), seed=1)], name="broadcast"),
                      Sample([T((3, 4)), T((3, 4), seed=1)], {"dim": 0}, name="dim0")],
           lambda: [ErrorSample([T((3,)), T((4,))], {}, RuntimeError, "")], tol=TOL),
    OpInfo("linalg_vander", _fn("vander"), INT + LA,
           lambda d: [Sample([T((4,), low=-2, high=2)]),
                      Sample([T((2, 3), low=-2, high=2)], name="batch"),
                      Sample([T((3,), low=-2, high=2)], {"N": 5}, name="N")],
           lambda: [ErrorSample([T((3,))], {"N": 1}, RuntimeError, "N must be greater than 1.")], tol=TOL),
    OpInfo("linalg_diagonal", _fn("diagonal"), ALL_DTYPES,
           lambda d: [Sample([T((3, 4))]),
                      Sample([T((2, 3, 4))], {"offset": 1}, name="offset"),
                      Sample([T((2, 3, 4))], {"dim1": 0, "dim2": 2, "offset": -1}, name="dims")], tol=TOL),
]

# _linalg_eigvals through linalg_eigvals; _linalg_eigh, _linalg_svd, _linalg_lstsq through eigh, svd, lstsq.
COVERED_ELSEWHERE = {"_linalg_eigvals", "_linalg_eigh", "_linalg_svd", "_linalg_lstsq"}


# ---------------------------------------------------------------- cond (src/ops/linalg_cond.cpp)
def _cond_torch(lib, A, p=None):
    """PyTorch 1.13's cond(p) for the inverse-based orders fills the inverse in place, so its
    backward raises; the same quantity through inv (the samples are non-singular) is the oracle."""
    if p is None or p in (2, -2):
        return lib.linalg.cond(A, p)
    return lib.linalg.matrix_norm(A, p) * lib.linalg.matrix_norm(lib.linalg.inv(A), p)


ROWS += [
    OpInfo("linalg_cond", _fn("cond"), LA,
           lambda d: [*_rect(d),
                      *[Sample([T((3, 3), **R)], {"p": p}, name=f"p={p}")
                        for p in (-2, 1, -1, float("inf"), -float("inf"), "fro", "nuc")],
                      Sample([T((2, 3, 3), **R)], {"p": 1}, name="batch-1"),
                      Sample([T((0, 3, 3), **R)], {"p": "fro"}, name="zero-batch-fro")],
           lambda: [ErrorSample([T((3,))], {}, RuntimeError, "must have at least 2 dimensions"),
                    ErrorSample([T((2, 3))], {"p": 1}, RuntimeError,
                                r"linalg.cond\(ord=1\): A must be batches of square matrices, but they are 2 by 3"),
                    ErrorSample([T((2, 3))], {"p": "nuc"}, RuntimeError, r"linalg.cond\(ord=nuc\)"),
                    ErrorSample([T((3, 3))], {"p": 3}, RuntimeError, "invalid norm type: 3"),
                    ErrorSample([T((3, 3))], {"p": "abc"}, RuntimeError, "invalid norm type: abc")],
           tol=TOL, torch_fn=_cond_torch),
]
