"""ember.linalg factorizations and solvers beyond the op table: reconstruction identities at
LAPACK sizes, the small-matrix kernels against LAPACK, error messages naming the batch element,
`_ex` info, NaN input, thread-count independence, and gradcheck / gradgradcheck of every
differentiable primitive and flag."""
import numpy as np
import pytest
import torch

import ember

DTYPES = ["float32", "float64", "complex64", "complex128"]
TOL = {"float32": 2e-4, "complex64": 2e-4, "float64": 1e-10, "complex128": 1e-10}


def rand(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dtype)


def mm(a, b):
    """a @ b through torch (numpy's complex matmul can hang when numpy, torch and Ember's
    OpenBLAS builds share a process)."""
    return (torch.from_numpy(np.ascontiguousarray(a)) @ torch.from_numpy(np.ascontiguousarray(b))).numpy()


def H(a):
    return np.conj(np.swapaxes(a, -1, -2))


def well_conditioned(shape, dtype, seed=0):
    a = rand(shape, dtype, seed)
    return a + shape[-1] * np.eye(shape[-1], dtype=dtype)


def spd(shape, dtype, seed=0):
    a = rand(shape, dtype, seed)
    return mm(a, H(a)) + shape[-1] * np.eye(shape[-1], dtype=dtype)


def E(a):
    return ember.from_numpy(np.ascontiguousarray(a))


def N(t):
    return t.numpy()


def close(a, b, dtype, scale=1.0):
    np.testing.assert_allclose(a, b, rtol=TOL[dtype] * scale, atol=TOL[dtype] * scale)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [2, 3, 4, 8, 9, 64, 200])
def test_identities(dtype, n):
    A = well_conditioned((2, n, n), dtype)
    S = spd((2, n, n), dtype)
    B = rand((2, n, 3), dtype, seed=1)
    eye = np.eye(n)
    L = N(ember.linalg.cholesky(E(S)))
    close(mm(L, H(L)), S, dtype, n)
    assert np.all(np.triu(L, 1) == 0)
    U = N(ember.linalg.cholesky(E(S), upper=True))
    close(mm(H(U), U), S, dtype, n)
    X = N(ember.linalg.inv(E(A)))
    close(mm(A, X), np.broadcast_to(eye, A.shape), dtype, n)
    tA = torch.from_numpy(A)
    if n <= 9:  # larger determinants overflow single precision (slogdet covers them)
        close(N(ember.linalg.det(E(A))), torch.linalg.det(tA).numpy(), dtype, n)
    sign, logabs = ember.linalg.slogdet(E(A))
    ns, nl = (t.numpy() for t in torch.linalg.slogdet(tA))
    close(N(sign), ns, dtype, n)
    close(N(logabs), nl, dtype, n)
    Xs = N(ember.linalg.solve(E(A), E(B)))
    close(mm(A, Xs), B, dtype, n)
    P, Lf, Uf = (N(t) for t in ember.linalg.lu(E(A)))
    close(mm(mm(P, Lf), Uf), A, dtype, n)
    LU, piv = ember.linalg.lu_factor(E(A))
    close(N(ember.linalg.lu_solve(LU, piv, E(B))), Xs, dtype, n)
    Xt = N(ember.linalg.solve_triangular(E(np.triu(A)), E(B), upper=True))
    close(mm(np.triu(A), Xt), B, dtype, n)
    close(N(ember.cholesky_solve(E(B), E(L))), torch.linalg.solve(torch.from_numpy(S), torch.from_numpy(B)).numpy(),
          dtype, n)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 7, 4), (1, 1), (4, 1), (1, 4)])
def test_lu_rectangular(shape):
    A = rand(shape, "float64")
    P, L, U = (N(t) for t in ember.linalg.lu(E(A)))
    np.testing.assert_allclose(mm(mm(P, L), U), A, atol=1e-12)
    tP, tL, tU = torch.linalg.lu(torch.from_numpy(A))
    np.testing.assert_allclose(L, tL.numpy(), atol=1e-12)
    np.testing.assert_allclose(U, tU.numpy(), atol=1e-12)
    np.testing.assert_array_equal(P, tP.numpy())


@pytest.mark.parametrize("dtype", DTYPES)
def test_small_kernels_match_lapack(dtype):
    """The unrolled n <= 8 path against torch (LAPACK) on many matrices, pivoting included."""
    for n in range(1, 9):
        A = rand((50, n, n), dtype, seed=n)
        B = rand((50, n, 2), dtype, seed=n + 10)
        tA, tB = torch.from_numpy(A), torch.from_numpy(B)
        close(N(ember.linalg.det(E(A))), torch.linalg.det(tA).numpy(), dtype, 1e3)
        close(N(ember.linalg.inv(E(A))), torch.linalg.inv(tA).numpy(), dtype, 1e4)
        close(N(ember.linalg.solve(E(A), E(B))), torch.linalg.solve(tA, tB).numpy(), dtype, 1e4)


def test_singular_errors_name_the_batch_element():
    A = np.broadcast_to(np.eye(3), (4, 3, 3)).copy()
    A[3, 1, 1] = 0
    for big in (False, True):
        M = A if not big else np.kron(A, np.eye(4))  # 12 x 12 goes to LAPACK
        before = M.copy()
        with pytest.raises(ember.linalg.LinAlgError, match=r"linalg.inv: \(Batch element 3\): The diagonal element "
                           + ("2" if not big else "5") + " is zero, the inversion could not be completed"):
            ember.linalg.inv(E(M))
        with pytest.raises(RuntimeError, match=r"torch.linalg.solve: \(Batch element 3\): The solver failed"):
            ember.linalg.solve(E(M), E(np.ones(M.shape[:-1])))
        with pytest.raises(ember.linalg.LinAlgError, match=r"linalg.cholesky: \(Batch element 3\): The "
                           "factorization could not be completed because the input is not positive-definite"):
            ember.linalg.cholesky(E(M))
        with pytest.raises(RuntimeError, match=r"torch.linalg.lu_factor: \(Batch element 3\): U\["):
            ember.linalg.lu_factor(E(M))
        np.testing.assert_array_equal(M, before)
    assert issubclass(ember.linalg.LinAlgError, RuntimeError)
    with pytest.raises(ember.linalg.LinAlgError, match="^cholesky_inverse: The diagonal element 1 is zero"):
        ember.cholesky_inverse(E(np.zeros((3, 3))))
    with pytest.raises(ember.linalg.LinAlgError, match="^linalg.inv: The diagonal element 1 is zero"):
        ember.linalg.inv(E(np.zeros((3, 3))))


@pytest.mark.parametrize("layout", ["contiguous", "column_major", "complex"])
@pytest.mark.parametrize("n", [4, 12])
def test_inv_info_of_singular_matrices_matches_torch(layout, n):
    """torch 1.13 inverts a contiguous real A through the LU of A^T (else of A), whose first
    zero pivot can differ from A's: inv_ex's info, and the message, follow it."""
    rng = np.random.default_rng(n)
    A = rng.integers(-2, 3, (60, n, n)).astype(np.float64)
    A[0::3, :, 2] = 0
    A[1::3, 3] = 2 * A[1::3, 0]
    A[2::3, :, 1] = A[2::3, :, 0]
    if layout == "complex":
        A = A.astype(np.complex128)
    e, t = E(A), torch.from_numpy(A)
    if layout == "column_major":
        e, t = E(np.swapaxes(A, -1, -2).copy()).mT, torch.from_numpy(np.swapaxes(A, -1, -2).copy()).mT
    np.testing.assert_array_equal(N(ember.linalg.inv_ex(e).info), torch.linalg.inv_ex(t).info.numpy())
    with pytest.raises(ember.linalg.LinAlgError) as got:
        ember.linalg.inv(e)
    with pytest.raises(torch.linalg.LinAlgError) as want:
        torch.linalg.inv(t)
    assert str(got.value) == str(want.value)
    # invertible matrices: the same values on either route
    W = well_conditioned((3, n, n), "float64" if layout != "complex" else "complex128", seed=n)
    w = E(W) if layout != "column_major" else E(np.swapaxes(W, -1, -2).copy()).mT
    close(N(ember.linalg.inv(w)), np.linalg.inv(N(w)), "float64", 1e3)


def test_ex_forms_return_info():
    A = np.broadcast_to(np.eye(3), (4, 3, 3)).copy()
    A[3, 1, 1] = 0
    tA = torch.from_numpy(A)
    for name in ("inv_ex", "cholesky_ex", "lu_factor_ex"):
        e = getattr(ember.linalg, name)(E(A))
        t = getattr(torch.linalg, name)(tA)
        np.testing.assert_array_equal(N(e.info), t.info.numpy())
        assert e.info.dtype == ember.int32
    np.testing.assert_array_equal(N(ember.linalg.solve_ex(E(A), E(np.ones((4, 3)))).info), [0, 0, 0, 2])
    with pytest.raises(ember.linalg.LinAlgError, match="linalg.inv_ex"):
        ember.linalg.inv_ex(E(A), check_errors=True)
    r = ember.linalg.cholesky_ex(E(A))
    assert type(r).__name__ == "linalg_cholesky_ex" and r.L is r[0]


@pytest.mark.parametrize("n", [3, 12])
def test_nan_input(n):
    A = np.full((2, n, n), np.nan)
    assert np.isnan(N(ember.linalg.det(E(A)))).all()
    assert np.isnan(N(ember.linalg.inv_ex(E(A)).inverse)).all()
    assert np.isnan(N(ember.linalg.solve_ex(E(A), E(np.ones((2, n)))).result)).all()
    assert np.isnan(N(ember.linalg.cholesky_ex(E(A)).L)).any()
    s, la = ember.linalg.slogdet(E(A))
    assert np.isnan(N(la)).all()


def test_threads_do_not_change_results():
    A = rand((20000, 4, 4), "float64")
    prev = ember.get_num_threads()
    try:
        ember.set_num_threads(1)
        one = [N(ember.linalg.inv(E(A))), N(ember.linalg.det(E(A)))]
        ember.set_num_threads(2)
        two = [N(ember.linalg.inv(E(A))), N(ember.linalg.det(E(A)))]
    finally:
        ember.set_num_threads(prev)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


def test_singular_det_and_logdet():
    assert N(ember.linalg.det(E(np.zeros((3, 3))))) == 0
    s, la = ember.linalg.slogdet(E(np.zeros((3, 3))))
    assert N(s) == 0 and N(la) == -np.inf
    assert np.isnan(N(ember.logdet(E(-np.eye(3)))))
    assert N(ember.logdet(E(np.zeros((3, 3))))) == -np.inf
    np.testing.assert_allclose(N(ember.linalg.det(E(np.zeros((2, 0, 0))))), [1, 1])


def _cofactors(a):
    """adj(a)^T entry by entry: (-1)^(i+j) det(a without row i and column j)."""
    n = a.shape[-1]
    c = np.zeros_like(a)
    for i in range(n):
        for j in range(n):
            m = np.delete(np.delete(a, i, 0), j, 1)
            c[i, j] = (-1) ** (i + j) * torch.linalg.det(torch.from_numpy(np.ascontiguousarray(m))).item()
    return c


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
@pytest.mark.parametrize("n", [3, 9])
def test_det_gradient_at_singular_matrices(dtype, n):
    """At an exactly singular A, det's gradient is the conjugate cofactor matrix (through an SVD;
    zero at rank n-2, as torch). torch 1.13 returns zeros at rank n-1 too, which its own
    gradcheck rejects, so rank n-1 is checked against the cofactors and by gradcheck.
    slogdet's gradient there is not finite (NaN; torch's NaN or inf)."""
    for rank in (n - 1, n - 2):
        a = well_conditioned((n, n), dtype, seed=rank)
        a[rank:] = 0
        A = _leaf(a)
        d = ember.linalg.det(A)
        assert N(d) == 0
        (g,) = ember.autograd.grad([d], [A], [ember.ones_like(d)])
        ref = np.conj(_cofactors(a))
        scale = torch.linalg.matrix_norm(torch.from_numpy(a), 2).item() ** (n - 1)  # bounds the cofactors
        np.testing.assert_allclose(N(g), ref, rtol=1e-9, atol=1e-12 * scale)
        assert ember.autograd.gradcheck(ember.linalg.det, [A])
        batch = _leaf(np.stack([a, well_conditioned((n, n), dtype, seed=7)]))
        assert ember.autograd.gradcheck(ember.linalg.det, [batch])
        tA = torch.from_numpy(a).requires_grad_()
        (tg,) = torch.autograd.grad([torch.linalg.slogdet(tA)[1]], [tA])
        (eg,) = ember.autograd.grad([ember.linalg.slogdet(A)[1]], [A])
        assert not np.isfinite(N(eg)).any() and not torch.isfinite(tg).any()
        if rank == n - 2:
            td = torch.linalg.det(tA)
            (tg,) = torch.autograd.grad([td], [tA], [torch.ones_like(td)])
            np.testing.assert_allclose(N(g), tg.numpy(), atol=1e-12 * scale)


def _gc(fn, inputs):
    assert ember.autograd.gradcheck(fn, inputs)
    assert ember.autograd.gradgradcheck(fn, inputs)


def _leaf(a):
    return E(a).requires_grad_()


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gradcheck_lapack_path(dtype):
    """n = 9 takes LAPACK where n <= 8 takes the unrolled kernels (test_gradcheck)."""
    n = 9
    A = _leaf(well_conditioned((n, n), dtype))
    for fn in (ember.linalg.det, ember.linalg.inv, lambda a: ember.linalg.slogdet(a)[1]):
        assert ember.autograd.gradcheck(fn, [A])
    assert ember.autograd.gradcheck(lambda a, b: ember.linalg.solve(a, b), [A, _leaf(rand((n, 2), dtype, 1))])


@pytest.mark.parametrize("dtype", ["float64", "complex128"])
def test_gradcheck(dtype):
    n = 3
    A = _leaf(well_conditioned((2, n, n), dtype))
    S = spd((n, n), dtype)
    B = _leaf(rand((n, 2), dtype, seed=1))
    v = _leaf(rand((2, n), dtype, seed=2))
    _gc(lambda a: ember.linalg.det(a), [A])
    _gc(lambda a: ember.linalg.slogdet(a), [A])
    _gc(lambda a: ember.linalg.inv(a), [A])
    _gc(lambda a, b: ember.linalg.solve(a, b), [A, B])
    _gc(lambda a, b: ember.linalg.solve(a, b, left=False), [A, _leaf(rand((2, n), dtype, 4))])
    _gc(lambda a, b: ember.linalg.solve(a, b), [A, v])
    for upper in (False, True):
        _gc(lambda s: ember.linalg.cholesky((s + s.transpose(-2, -1).conj()) / 2, upper=upper),
            [_leaf(S)])
        for left in (True, False):
            for unit in (False, True):
                _gc(lambda a, b: ember.linalg.solve_triangular(a, b, upper=upper, left=left, unitriangular=unit),
                    [A, B if left else _leaf(rand((2, n), dtype, 3))])
    LU, piv = ember.linalg.lu_factor(A.detach())
    for left in (True, False):
        for adjoint in (False, True):
            _gc(lambda lu, b: ember.linalg.lu_solve(lu, piv, b, left=left, adjoint=adjoint),
                [LU.clone().requires_grad_(), B if left else _leaf(rand((2, n), dtype, 3))])
    for shape in [(n, n), (n, n + 2), (n + 2, n)]:
        _gc(lambda a: ember.linalg.lu_factor(a)[0], [_leaf(rand(shape, dtype, 5))])
    _gc(lambda a: ember.linalg.lu(a)[1:], [_leaf(rand((n + 1, n), dtype, 6))])


def test_out_forms_and_methods():
    A = well_conditioned((3, 3), "float64")
    out = ember.empty(0, dtype=ember.float64)
    assert ember.linalg.inv(E(A), out=out) is out
    np.testing.assert_allclose(N(out), torch.linalg.inv(torch.from_numpy(A)).numpy())
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype double, but got float instead"):
        ember.linalg.inv(E(A), out=ember.empty(0))
    t = E(A)
    tA = torch.from_numpy(A)
    np.testing.assert_allclose(N(t.det()), tA.det().numpy())
    np.testing.assert_allclose(N(t.inverse()), tA.inverse().numpy())
    np.testing.assert_allclose(N(t.matrix_power(-2)), tA.matrix_power(-2).numpy())
    x = E(A).requires_grad_()
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        ember.linalg.inv(x, out=ember.empty(0, dtype=ember.float64))


def test_lu_unpack_flags():
    """unpack_data / unpack_pivots False return empty tensors in their place (the unpack_data
    sample is not in the op table: PyTorch 1.13's backward rejects its empty gradients)."""
    LU, piv = ember.linalg.lu_factor(E(rand((2, 4, 4), "float64")))
    P, L, U = ember.lu_unpack(LU, piv, unpack_data=False)
    assert tuple(L.shape) == (0,) and tuple(U.shape) == (0,) and tuple(P.shape) == (2, 4, 4)
    P2, L2, U2 = ember.lu_unpack(LU, piv, unpack_pivots=False)
    assert tuple(P2.shape) == (0,)
    np.testing.assert_array_equal(N(P), N(ember.lu_unpack(LU, piv)[0]))
