"""Op-table rows of ember.linalg's factorizations and solvers (src/ops/linalg_factor*.cpp) and
the top-level forms (det, inverse, cholesky_solve, ...). Inputs are made well conditioned (or
positive definite) inside each row's function, in both libraries, so values, gradients and
gradgradcheck are stable; reconstruction identities, LAPACK-sized cases and the LinAlgError
cases (whose class cannot be the same object as torch's, which test_error requires) are in
test_linalg_factor.py."""
from op_testing import ErrorSample, OpInfo, Sample, T

FC = ("float32", "float64", "complex64", "complex128")
TOL = {"bfloat16": (3e-2, 1e-1), "float32": (1e-4, 1e-4), "complex64": (1e-4, 1e-4), "float64": (1e-9, 1e-9), "complex128": (1e-9, 1e-9)}
R = dict(low=-1, high=1)


def _eye(lib, x):
    return lib.eye(x.shape[-1], dtype=x.dtype)


def _square_float(x):
    return (x.dim() >= 2 and x.shape[-1] == x.shape[-2]
            and str(x.dtype).split(".")[-1] in ("float32", "float64", "complex64", "complex128"))


def wc(lib, x):
    """Diagonally dominant: far from singular (other inputs pass, for the error samples)."""
    return x + 2 * x.shape[-1] * _eye(lib, x) if _square_float(x) else x


def spd(lib, x):
    """Hermitian positive definite (other inputs pass, for the error samples)."""
    return x @ x.transpose(-2, -1).conj() + x.shape[-1] * _eye(lib, x) if _square_float(x) else x


def _square_samples(sizes=(1, 2, 3, 4, 5, 8, 9)):
    def samples(dtype):
        s = [Sample([T((n, n), **R)], name=f"{n}x{n}") for n in sizes]
        s += [Sample([T((2, 3, 4, 4), **R)], name="batch"),
              Sample([T((2, 10, 10), **R)], name="batch-lapack"),
              Sample([T((3, 3), noncontig=True, **R)], name="noncontig"),
              Sample([T((2, 12, 12), transpose=True, **R)], name="transposed"),
              Sample([T((0, 3, 3), **R)], name="empty-batch"),
              Sample([T((2, 0, 0), **R)], name="0x0")]
        return s
    return samples


def _rhs_samples(vector=True):
    def samples(dtype):
        s = [Sample([T((3, 3), **R), T((3, 2), seed=1, **R)], name="3x3"),
             Sample([T((4, 4), **R), T((2, 4, 3), seed=1, **R)], name="broadcast-A"),
             Sample([T((2, 1, 5, 5), **R), T((3, 5, 2), seed=1, **R)], name="broadcast-both"),
             Sample([T((10, 10), **R), T((10, 4), seed=1, **R)], name="lapack"),
             Sample([T((2, 9, 9), **R), T((9, 3), seed=1, noncontig=True, **R)], name="lapack-broadcast-B"),
             Sample([T((4, 4), **R), T((3, 4), seed=1, **R)], {"left": False}, name="right"),
             Sample([T((11, 11), transpose=True, **R), T((2, 11), seed=1, **R)], {"left": False}, name="right-lapack"),
             Sample([T((0, 3, 3), **R), T((0, 3, 2), seed=1, **R)], name="empty"),
             Sample([T((3, 3), **R), T((3, 0), seed=1, **R)], name="no-columns")]
        if vector:
            s += [Sample([T((4, 4), **R), T((4,), seed=1, **R)], name="vector"),
                  Sample([T((2, 3, 3), **R), T((2, 3), seed=1, **R)], name="batched-vector"),
                  Sample([T((12, 12), **R), T((12,), seed=1, **R)], name="vector-lapack")]
        return s
    return samples


def _sq_errors(api, name="A"):
    return lambda: [
        ErrorSample([T((2, 3))], {}, RuntimeError, f"{api}: {name} must be batches of square matrices, "
                    "but they are 2 by 3 matrices"),
        ErrorSample([T((3,))], {}, RuntimeError, f"{api}: The input tensor {name} must have at least 2 dimensions."),
        ErrorSample([T((3, 3))], {}, RuntimeError, f"{api}: Expected a floating point or complex tensor as input. "
                    "Got Long", dtype="int64"),
    ]


def sym(x):
    return x + x.transpose(-2, -1) if x.dim() >= 2 and x.shape[-1] == x.shape[-2] else x


def _real_diag(lib, x):
    """A factor's diagonal is real: complex samples take |d| (LAPACK's potri reads only its real part)."""
    if not x.is_complex():
        return x
    d = x.diagonal(0, -2, -1)
    return x - lib.diag_embed(d) + lib.diag_embed(d.abs())


def _factor(lib, x, upper):
    """A triangular factor with a real diagonal (PyTorch's cholesky_inverse gradient treats the
    factor as a full matrix, which agrees with the triangle's only when the rest is zero)."""
    x = _real_diag(lib, x)
    return x.triu() if upper else x.tril()


def _as6(lib, x):
    """A well-conditioned 6 x 6 matrix in the shape of x (other inputs pass, for the errors)."""
    return wc(lib, x.reshape(6, 6)).reshape(x.shape) if x.numel() == 36 else x


def _f(path):
    def run(lib, *a, **k):
        obj = lib
        for p in path.split("."):
            obj = getattr(obj, p)
        return obj(*a, **k)
    return run


def _out(path, n_out=1):
    """out= form: returns the out tensors after checking they are the objects returned."""
    def run(lib, *a, **k):
        obj = lib
        for p in path.split("."):
            obj = getattr(obj, p)
        r = obj(*a, **k)
        rs = r if isinstance(r, tuple) else (r,)
        outs = tuple(lib.empty((0,), dtype=x.dtype) for x in rs)
        got = obj(*a, out=outs if n_out > 1 else outs[0], **k)
        gots = got if isinstance(got, tuple) else (got,)
        assert all(g is o for g, o in zip(gots, outs))
        return outs if n_out > 1 else outs[0]
    return run


def _matrix_power_samples(d):
    """Negative powers need an inverse (floating types only); PyTorch's CPU has no bool or
    float16 matmul, so those types only take n = 0 and 1."""
    if d in FC:
        ns = (0, 1, 2, 3, 5, -1, -3)
    elif d in ("bool", "float16"):
        ns = (0, 1)
    else:
        ns = (0, 1, 2, 3)
    s = [Sample([T((3, 3), low=-2, high=2), n], name=str(n)) for n in ns]
    if d in FC:
        s += [Sample([T((2, 4, 4), **R), 4]), Sample([T((0, 2, 2), **R), 2])]
    return s


ROWS = [
    # ---- Cholesky
    OpInfo("linalg_cholesky", lambda lib, x, **k: lib.linalg.cholesky(spd(lib, x), **k), FC,
           lambda d: _square_samples()(d) + [Sample([T((3, 4, 4), **R)], {"upper": True}, name="upper")],
           lambda: _sq_errors("linalg.cholesky")() + [
               ErrorSample([T((3, 3))], {}, RuntimeError, "linalg.cholesky: Low precision dtypes not supported",
                           dtype="bfloat16")],
           tol=TOL),
    OpInfo("linalg_cholesky_ex", lambda lib, x, **k: tuple(lib.linalg.cholesky_ex(spd(lib, x), **k)),
           FC, lambda d: [Sample([T((5, 4, 4), **R)]), Sample([T((3, 10, 10), **R)], {"upper": True})], tol=TOL),
    OpInfo("linalg_cholesky_out", lambda lib, x, **k: _out("linalg.cholesky")(lib, spd(lib, x), **k), FC,
           lambda d: [Sample([T((2, 3, 3), **R)]), Sample([T((9, 9), **R)], {"upper": True})], tol=TOL),
    OpInfo("cholesky", lambda lib, x, **k: lib.cholesky(spd(lib, x), **k), FC,
           lambda d: [Sample([T((3, 3), **R)]), Sample([T((2, 9, 9), **R)], {"upper": True})], tol=TOL),
    # ---- inverse
    OpInfo("linalg_inv", lambda lib, x: lib.linalg.inv(wc(lib, x)), FC, _square_samples(),
           lambda: _sq_errors("linalg.inv")() + [
               ErrorSample([T((3, 3))], {}, RuntimeError, "linalg.inv: Low precision", dtype="bfloat16")],
           tol=TOL),
    OpInfo("linalg_inv_ex", lambda lib, x: tuple(lib.linalg.inv_ex(wc(lib, x))), FC,
           lambda d: [Sample([T((3, 4, 4), **R)]), Sample([T((2, 10, 10), **R)])], tol=TOL),
    OpInfo("linalg_inv_out", lambda lib, x: _out("linalg.inv")(lib, wc(lib, x)), FC,
           lambda d: [Sample([T((3, 3), **R)]), Sample([T((10, 10), **R)])], tol=TOL),
    OpInfo("inverse", lambda lib, x: lib.inverse(wc(lib, x)), FC,
           lambda d: [Sample([T((2, 3, 3), **R)]), Sample([T((9, 9), **R)])], tol=TOL),
    OpInfo("inverse_method", lambda lib, x: wc(lib, x).inverse(), FC, lambda d: [Sample([T((4, 4), **R)])], tol=TOL),
    # ---- determinants
    OpInfo("linalg_det", lambda lib, x: lib.linalg.det(wc(lib, x)), FC, _square_samples(),
           _sq_errors("linalg.det"), tol=TOL),
    OpInfo("linalg_det_raw", lambda lib, x: lib.linalg.det(x), FC,
           lambda d: [Sample([T((3, 3))]), Sample([T((2, 4, 4))]), Sample([T((10, 10))])], tol=TOL),
    OpInfo("linalg_det_out", lambda lib, x: _out("linalg.det")(lib, wc(lib, x)), FC,
           lambda d: [Sample([T((2, 3, 3), **R)])], tol=TOL),
    OpInfo("det", lambda lib, x: lib.det(wc(lib, x)), FC,
           lambda d: [Sample([T((3, 3), **R)]), Sample([T((2, 9, 9), **R)])], tol=TOL),
    OpInfo("det_method", lambda lib, x: wc(lib, x).det(), FC, lambda d: [Sample([T((4, 4), **R)])], tol=TOL),
    OpInfo("linalg_slogdet", lambda lib, x: tuple(lib.linalg.slogdet(wc(lib, x))), FC, _square_samples(),
           _sq_errors("linalg.slogdet"), tol=TOL),
    OpInfo("linalg_slogdet_raw", lambda lib, x: tuple(lib.linalg.slogdet(x)), FC,
           lambda d: [Sample([T((2, 3, 3))]), Sample([T((10, 10))])], tol=TOL),
    OpInfo("linalg_slogdet_out", lambda lib, x: _out("linalg.slogdet", 2)(lib, wc(lib, x)), FC,
           lambda d: [Sample([T((2, 3, 3), **R)])], tol=TOL),
    OpInfo("slogdet", lambda lib, x: tuple(lib.slogdet(wc(lib, x))), FC,
           lambda d: [Sample([T((3, 3), **R)]), Sample([T((9, 9), **R)])], tol=TOL),
    OpInfo("logdet", lambda lib, x: lib.logdet(spd(lib, x)), FC,
           lambda d: [Sample([T((3, 3), **R)]), Sample([T((2, 9, 9), **R)]), Sample([T((4, 4), **R)])], tol=TOL),
    # a negative determinant (NaN for real input); complex ones off the logarithm's branch cut
    OpInfo("logdet_sign", lambda lib, x: lib.logdet(spd(lib, x) * ((0.6 + 0.8j) if x.is_complex() else -1)), FC,
           lambda d: [Sample([T((3, 3), **R)]), Sample([T((10, 10), **R)])], tol=TOL),
    # ---- solve
    OpInfo("linalg_solve", lambda lib, a, b, **k: lib.linalg.solve(wc(lib, a), b, **k), FC, _rhs_samples(),
           lambda: [ErrorSample([T((3, 3)), T((4, 3))], {}, RuntimeError,
                                r"linalg.solve: Incompatible shapes of A and B for the equation AX = B \(3x3 and 4x3\)"),
                    ErrorSample([T((2, 3, 3)), T((4, 3, 2))], {}, RuntimeError, "must match the size"),
                    ErrorSample([T((2, 3)), T((2, 2))], {}, RuntimeError, "must be batches of square matrices"),
                    ErrorSample([T((3, 3)), T((3, 3))], {}, RuntimeError, "Expected a floating point", dtype="int32")],
           tol=TOL),
    OpInfo("linalg_solve_ex", lambda lib, a, b, **k: tuple(lib.linalg.solve_ex(wc(lib, a), b, **k)), FC,
           lambda d: _rhs_samples()(d)[:4], tol=TOL),
    OpInfo("linalg_solve_out", lambda lib, a, b, **k: _out("linalg.solve")(lib, wc(lib, a), b, **k), FC,
           lambda d: _rhs_samples()(d)[:4], tol=TOL),
    # ---- LU
    OpInfo("linalg_lu_factor", lambda lib, x, **k: tuple(lib.linalg.lu_factor(x, **k)), FC,
           lambda d: _square_samples((1, 2, 3, 5, 9))(d) + [Sample([T((3, 5), **R)], name="wide"),
                                                            Sample([T((2, 6, 4), **R)], name="tall")],
           lambda: [ErrorSample([T((3,))], {}, RuntimeError, "torch.lu_factor: Expected tensor with 2 or more dimensions"),
                    ErrorSample([T((3, 3))], {"pivot": False}, RuntimeError, "LU without pivoting is not implemented")],
           tol=TOL),
    OpInfo("linalg_lu_factor_ex", lambda lib, x: tuple(lib.linalg.lu_factor_ex(x)), FC,
           lambda d: [Sample([T((2, 4, 4), **R)]), Sample([T((10, 10), **R)])], tol=TOL),
    OpInfo("linalg_lu_factor_out", lambda lib, x: _out("linalg.lu_factor", 2)(lib, x), FC,
           lambda d: [Sample([T((2, 4, 4), **R)])], tol=TOL),
    OpInfo("linalg_lu", lambda lib, x: tuple(lib.linalg.lu(x)), FC,
           lambda d: [Sample([T((4, 4), **R)]), Sample([T((2, 3, 5), **R)], name="wide"),
                      Sample([T((5, 3), **R)], name="tall"), Sample([T((10, 10), **R)])], tol=TOL),
    OpInfo("lu_unpack", lambda lib, x, **k: tuple(lib.lu_unpack(*lib.linalg.lu_factor(x), **k)), FC,
           lambda d: [Sample([T((2, 4, 4), **R)]), Sample([T((3, 5), **R)]), Sample([T((5, 3), **R)]),
                      Sample([T((3, 3), **R)], {"unpack_pivots": False})], tol=TOL),
    OpInfo("linalg_lu_solve", lambda lib, a, b, **k: lib.linalg.lu_solve(*lib.linalg.lu_factor(wc(lib, a)), b, **k),
           FC, lambda d: _rhs_samples(vector=False)(d) + [
               Sample([T((4, 4), **R), T((4, 2), seed=1, **R)], {"adjoint": True}, name="adjoint"),
               Sample([T((4, 4), **R), T((3, 4), seed=1, **R)], {"adjoint": True, "left": False}, name="adjoint-right")],
           lambda: [ErrorSample([T((3, 3)), T((4, 2))], {}, RuntimeError,
                                r"linalg.lu_solve: Incompatible shapes of A and B for the equation AX = B \(3x3 and 4x2\)")],
           tol=TOL),
    OpInfo("lu_solve", lambda lib, a, b: b.lu_solve(*lib.linalg.lu_factor(wc(lib, a))), FC,
           lambda d: [Sample([T((3, 3), **R), T((3, 2), seed=1, **R)]),
                      Sample([T((2, 9, 9), **R), T((2, 9, 1), seed=1, **R)])], tol=TOL),
    # ---- triangular
    OpInfo("linalg_solve_triangular", lambda lib, a, b, **k: lib.linalg.solve_triangular(wc(lib, a), b, **k), FC,
           lambda d: [Sample(s.args, {**s.kwargs, "upper": u}, name=f"{s.name}-{u}")
                      for s in _rhs_samples(vector=False)(d) for u in (True, False)] + [
               Sample([T((4, 4), **R), T((4, 3), seed=1, **R)], {"upper": False, "unitriangular": True}, name="unit"),
               Sample([T((4, 4), **R), T((2, 4), seed=1, **R)], {"upper": True, "unitriangular": True, "left": False},
                      name="unit-right")],
           lambda: [ErrorSample([T((3, 3)), T((2, 3))], {"upper": True}, RuntimeError,
                                r"linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B"),
                    ErrorSample([T((3, 3)), T((3,))], {"upper": True}, RuntimeError,
                                "linalg.solve_triangular: The input tensor B must have at least 2 dimensions.")],
           tol=TOL),
    OpInfo("triangular_solve", lambda lib, b, a, **k: tuple(lib.triangular_solve(b, wc(lib, a), **k)), FC,
           lambda d: [Sample([T((3, 2), **R), T((3, 3), seed=1, **R)]),
                      Sample([T((2, 4, 2), **R), T((4, 4), seed=1, **R)], {"upper": False}),
                      Sample([T((4, 2), **R), T((4, 4), seed=1, **R)], {"transpose": True}),
                      Sample([T((9, 2), **R), T((9, 9), seed=1, **R)], {"unitriangular": True, "upper": False})],
           lambda: [ErrorSample([T((3, 2)), T((2, 2))], {}, RuntimeError,
                                "Incompatible matrix sizes for triangular_solve: each A matrix is 2 by 2 but each b "
                                "matrix is 3 by 2")],
           tol=TOL),
    OpInfo("cholesky_solve", lambda lib, b, x, **k: lib.cholesky_solve(b, lib.linalg.cholesky(spd(lib, x), **k), **k),
           FC, lambda d: [Sample([T((3, 2), **R), T((3, 3), seed=1, **R)]),
                          Sample([T((2, 4, 2), **R), T((4, 4), seed=1, **R)], {"upper": True}),
                          Sample([T((9, 3), **R), T((2, 9, 9), seed=1, **R)])],
           lambda: [ErrorSample([T((3, 2)), T((2, 2))], {}, RuntimeError,
                                "Incompatible matrix sizes for cholesky_solve: each A matrix is 2 by 2 but each b "
                                "matrix is 3 by 2"),
                    ErrorSample([T((3,)), T((3, 3))], {}, RuntimeError, "b should have at least 2 dimensions")],
           tol=TOL),
    OpInfo("cholesky_inverse", lambda lib, x, **k: lib.cholesky_inverse(lib.linalg.cholesky(spd(lib, x), **k), **k),
           FC, lambda d: [Sample([T((3, 3), **R)]), Sample([T((2, 4, 4), **R)], {"upper": True}),
                          Sample([T((10, 10), **R)])], tol=TOL),
    OpInfo("cholesky_inverse_raw", lambda lib, x, **k: lib.cholesky_inverse(_factor(lib, x, k.get("upper", False)), **k), FC,
           lambda d: [Sample([T((3, 3), low=1, high=2)]), Sample([T((2, 9, 9), low=1, high=2)], {"upper": True})],
           tol=TOL),
    # ---- LDL (no derivative in PyTorch either)
    OpInfo("linalg_ldl_factor", lambda lib, x, **k: tuple(lib.linalg.ldl_factor(sym(x), **k)), FC,
           lambda d: [Sample([T((4, 4), **R)]), Sample([T((2, 9, 9), **R)]),
                      Sample([T((5, 5), **R)], {"hermitian": True})],
           _sq_errors("torch.linalg.ldl_factor_ex"), tol=TOL),
    OpInfo("linalg_ldl_factor_ex", lambda lib, x: tuple(lib.linalg.ldl_factor_ex(sym(x))), FC,
           lambda d: [Sample([T((2, 4, 4), **R)])], tol=TOL),
    OpInfo("linalg_ldl_solve", lambda lib, x, b, **k: lib.linalg.ldl_solve(
               *lib.linalg.ldl_factor(wc(lib, sym(x)), **k), b, **k), FC,
           lambda d: [Sample([T((4, 4), **R), T((4, 2), seed=1, **R)]),
                      Sample([T((2, 9, 9), **R), T((2, 9, 3), seed=1, **R)])], tol=TOL),
    # ---- composites
    OpInfo("linalg_tensorinv", lambda lib, x, **k: lib.linalg.tensorinv(_as6(lib, x), **k),
           FC, lambda d: [Sample([T((2, 3, 6), **R)], {"ind": 2}), Sample([T((6, 2, 3), **R)], {"ind": 1})],
           lambda: [ErrorSample([T((4, 6))], {"ind": 1}, RuntimeError, r"prod\(self.shape\[ind:\]\) == "),
                    ErrorSample([T((4, 4))], {"ind": 0}, RuntimeError, "Expected a strictly positive integer")],
           tol=TOL),
    OpInfo("linalg_tensorsolve", lambda lib, x, b, **k: lib.linalg.tensorsolve(_as6(lib, x), b, **k), FC,
           lambda d: [Sample([T((2, 3, 6), **R), T((2, 3), seed=1, **R)]),
                      Sample([T((6, 2, 3), **R), T((6,), seed=1, **R)]),
                      Sample([T((2, 3, 6), **R), T((6,), seed=1, **R)], {"dims": (0, 1)})],
           lambda: [ErrorSample([T((6, 4)), T((5,))], {}, RuntimeError, r"prod\(self.shape\[other.ndim:\]\)")],
           tol=TOL),
    OpInfo("linalg_matrix_power", lambda lib, x, n: lib.linalg.matrix_power(wc(lib, x), n),
           ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16") + FC, _matrix_power_samples,
           lambda: [ErrorSample([T((2, 3)), 2], {}, RuntimeError, "linalg.matrix_power: A must be batches of square"),
                    ErrorSample([T((3,)), 2], {}, RuntimeError,
                                "linalg.matrix_power: The input tensor A must have at least 2 dimensions."),
                    ErrorSample([T((3, 3)), -1], {}, RuntimeError, "linalg.inv: Expected a floating point",
                                dtype="int64")],
           tol=TOL),
    OpInfo("matrix_power", lambda lib, x, n: x.matrix_power(n),
           ("uint8", "int8", "int16", "int32", "int64", "bfloat16") + FC,
           lambda d: [Sample([T((3, 3), low=-2, high=2), 3]), Sample([T((2, 2, 2), low=-2, high=2), 0])],
           tol=TOL),
]
