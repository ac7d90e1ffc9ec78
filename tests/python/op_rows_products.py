"""Op-table rows of the matrix and vector products (src/ops/matmul.cpp, products.cpp)."""
from op_testing import ALL_BUT_BOOL, ALL_DTYPES, ErrorSample, OpInfo, Sample, T

# As matmul: float16 has no CPU kernel in PyTorch 1.13; bool is rejected.
PRODUCT_DTYPES = tuple(d for d in ALL_BUT_BOOL if d != "float16")
# Products sum many terms: float32/bfloat16 get looser tolerances than pointwise ops.
PRODUCT_TOL = {"float32": (1e-5, 1e-4), "bfloat16": (3e-2, 5e-1), "complex64": (1e-5, 1e-4)}
R = dict(low=-2, high=2)


def _torch_beta0(name):
    """PyTorch 1.13's baddbmm with beta=0 reads its uninitialized result (NaN garbage leaks
    in, now and then); the reference then uses beta=1 on a zero self, which is the same sum."""
    def fn(lib, s, a, b, **k):
        if name == "baddbmm" and k.get("beta", 1) == 0:
            return lib.baddbmm(lib.zeros_like(lib.baddbmm(s, a, b)), a, b, alpha=k.get("alpha", 1))
        return getattr(lib, name)(s, a, b, **k)
    return fn


def _fused(name, shapes, extra_samples=(), dtypes=PRODUCT_DTYPES, errors=None):
    """Rows for name(self, a, b, beta=, alpha=) and its out= and in-place forms."""
    s_shape, a_shape, b_shape = shapes

    def samples(dtype):
        integral = dtype in ("bool", "uint8", "int8", "int16", "int32", "int64")
        beta, alpha = (2, 3) if integral else (0.5, 1.5)
        return [
            Sample([T(s_shape, **R), T(a_shape, seed=1, **R), T(b_shape, seed=2, **R)]),
            Sample([T(s_shape, **R), T(a_shape, seed=1, **R), T(b_shape, seed=2, **R)],
                   {"beta": beta, "alpha": alpha}, name="coefficients"),
            Sample([T((), **R), T(a_shape, seed=1, **R), T(b_shape, seed=2, **R)], name="broadcast-self"),
            Sample([T(s_shape, **R), T(a_shape, seed=1, **R), T(b_shape, seed=2, **R)], {"beta": 0},
                   name="beta0"),
            *extra_samples,
        ]

    def inplace_samples(dtype):
        # An integer self cannot hold a promoted floating result (both libraries raise).
        integral = dtype in ("bool", "uint8", "int8", "int16", "int32", "int64")
        return [s for s in samples(dtype) if not (integral and s.name == "promote")]

    def default_errors():
        return [
            ErrorSample([T(s_shape), T(a_shape), T(b_shape, dtype="float64")], {}, RuntimeError, ""),
            ErrorSample([T((7, 7, 7)), T(a_shape), T(b_shape)], {}, RuntimeError, ""),
            ErrorSample([T(s_shape), T((3, 5, 1, 1)), T(b_shape)], {}, RuntimeError, ""),
        ]
    return [
        OpInfo(name, lambda lib, s, a, b, **k: getattr(lib, name)(s, a, b, **k), dtypes, samples,
               errors or default_errors, tol=PRODUCT_TOL, torch_fn=_torch_beta0(name)),
        # out= of the result's shape, zero-filled: PyTorch 1.13 reads a fresh out= with beta=0
        # for bfloat16 (its NaN garbage leaks into the result).
        OpInfo(f"{name}_out",
               lambda lib, s, a, b, **k: getattr(lib, name)(s, a, b, out=lib.zeros_like(getattr(lib, name)(s, a, b)),
                                                           **k),
               dtypes, samples, tol=PRODUCT_TOL),
        OpInfo(f"{name}_inplace",
               lambda lib, s, a, b, **k: getattr(s.expand(getattr(lib, name)(s, a, b).shape).clone(), name + "_")(a, b, **k),
               dtypes, inplace_samples, tol=PRODUCT_TOL),
    ]


def _vector(n, low=-2, high=2, **k):
    return T((n,), low, high, **k)


ROWS = [
    *_fused("addmm", ((3, 4), (3, 5), (5, 4)),
            [Sample([T((4,), **R), T((3, 5), transpose=True, seed=1, **R), T((5, 4), transpose=True, seed=2, **R)],
                    name="transposed"),
             Sample([T((3, 4), **R), T((3, 0), seed=1, **R), T((0, 4), seed=2, **R)], name="empty-k"),
             Sample([T((60, 70), -1, 1), T((60, 80), -1, 1, seed=1), T((80, 70), -1, 1, seed=2)], name="blas"),
             # linear's shape: a bias row, which oneDNN adds as it writes the float32 product
             Sample([T((70,), -1, 1), T((60, 80), -1, 1, seed=1), T((80, 70), -1, 1, seed=2, transpose=True)],
                    name="bias-row"),
             Sample([T((1, 70), -1, 1), T((60, 80), -1, 1, seed=1, transpose=True), T((80, 70), -1, 1, seed=2)],
                    name="bias-row-2d")]),
    *_fused("addmv", ((3,), (3, 5), (5,)),
            [Sample([T((3,), **R), T((3, 5), transpose=True, seed=1, **R), T((5,), seed=2, **R)],
                    name="transposed")]),
    # addr is elementwise in PyTorch: every dtype, with promotion.
    *_fused("addr", ((3, 4), (3,), (4,)), [
        Sample([T((3, 4), **R), T((3,), seed=1, **R), T((4,), dtype="float64", seed=2, **R)], name="promote"),
        Sample([T((3, 4), **R), T((3,), seed=1, **R), T((4,), seed=2, **R)], {"beta": False, "alpha": True},
               name="bool-coefficients")],
        dtypes=ALL_DTYPES,
        errors=lambda: [ErrorSample([T((3, 4)), T((3, 1)), T((4,))], {}, RuntimeError, "Expected 1-D argument vec1"),
                        ErrorSample([T((3, 4), dtype="int64"), T((3,), dtype="int64"), T((4,), dtype="int64")],
                                    {"alpha": 0.5}, RuntimeError, "alpha must not be a floating point"),
                        ErrorSample([T((5, 4)), T((3,)), T((4,))], {}, RuntimeError, "")]),
    *_fused("baddbmm", ((2, 3, 4), (2, 3, 5), (2, 5, 4)),
            [Sample([T((3, 4), **R), T((2, 3, 5), seed=1, **R), T((2, 5, 4), seed=2, **R)],
                    name="broadcast-2d-self")]),
    *_fused("addbmm", ((3, 4), (2, 3, 5), (2, 5, 4))),
    OpInfo("dot", lambda lib, a, b: lib.dot(a, b), PRODUCT_DTYPES,
           lambda d: [Sample([_vector(5), _vector(5, seed=1)]), Sample([_vector(0), _vector(0, seed=1)]),
                      Sample([T((6,), -2, 2, noncontig=True), _vector(6, seed=1)], name="noncontig")],
           lambda: [ErrorSample([_vector(3), _vector(4)], {}, RuntimeError, "inconsistent tensor size"),
                    ErrorSample([T((2, 3)), _vector(3)], {}, RuntimeError, "1D tensors expected")],
           tol=PRODUCT_TOL,
           # Debian's PyTorch 1.13 returns 0 for complex dot products (broken cdotu call).
           torch_fn=lambda lib, a, b: (a * b).sum() if a.is_complex() else lib.dot(a, b)),
    OpInfo("vdot", lambda lib, a, b: lib.vdot(a, b), PRODUCT_DTYPES,
           lambda d: [Sample([_vector(5), _vector(5, seed=1)])],
           lambda: [ErrorSample([_vector(3), _vector(4)], {}, RuntimeError, "inconsistent tensor size")],
           tol=PRODUCT_TOL,
           torch_fn=lambda lib, a, b: (a.conj() * b).sum() if a.is_complex() else lib.vdot(a, b)),
    OpInfo("mv", lambda lib, a, b: lib.mv(a, b), PRODUCT_DTYPES,
           lambda d: [Sample([T((3, 5), **R), _vector(5, seed=1)]),
                      Sample([T((3, 5), transpose=True, **R), _vector(5, seed=1)], name="transposed"),
                      Sample([T((0, 5), **R), _vector(5, seed=1)], name="empty")],
           lambda: [ErrorSample([T((3, 5)), _vector(4)], {}, RuntimeError, "size mismatch")],
           tol=PRODUCT_TOL),
    OpInfo("outer", lambda lib, a, b: lib.outer(a, b), ALL_DTYPES,
           lambda d: [Sample([_vector(3), _vector(4, seed=1)]), Sample([_vector(0), _vector(4, seed=1)])],
           lambda: [ErrorSample([T((2, 2)), _vector(4)], {}, RuntimeError, "")], tol=PRODUCT_TOL),
    OpInfo("ger", lambda lib, a, b: lib.ger(a, b), ALL_DTYPES,
           lambda d: [Sample([_vector(3), _vector(4, seed=1)])], tol=PRODUCT_TOL),
]

ROWS += [
    OpInfo("einsum", lambda lib, eq, *ts: lib.einsum(eq, *ts), PRODUCT_DTYPES,
           lambda d: [Sample(["ij,jk->ik", T((3, 4), **R), T((4, 5), seed=1, **R)], name="mm"),
                      Sample(["bhqd,bhkd->bhqk", T((2, 3, 4, 5), **R), T((2, 3, 6, 5), seed=1, **R)],
                             name="attention"),
                      Sample(["ii->i", T((4, 4), **R)], name="diagonal"),
                      Sample(["ii", T((4, 4), **R)], name="trace"),
                      Sample(["i,j", T((3,), **R), T((4,), seed=1, **R)], name="implicit-outer"),
                      Sample(["...ij,...jk", T((2, 3, 4), **R), T((4, 5), seed=1, **R)], name="ellipsis"),
                      Sample(["bij,bjk,bkl->bil", T((2, 3, 4), **R), T((2, 4, 5), seed=1, **R),
                              T((2, 5, 2), seed=2, **R)], name="three"),
                      Sample(["ij->", T((3, 4), **R)], name="sum"),
                      Sample(["ij->ji", T((3, 4), **R)], name="transpose"),
                      Sample(["ij,ij->i", T((3, 4), transpose=True, **R), T((3, 4), seed=1, **R)], name="rowdot")],
           lambda: [ErrorSample(["ij,jk->ik", T((3, 4)), T((5, 6))], {}, RuntimeError, ""),
                    ErrorSample(["ij,jk->ik", T((3, 4))], {}, RuntimeError, "operands"),
                    ErrorSample(["ijk->i", T((3, 4))], {}, RuntimeError, "subscripts"),
                    ErrorSample(["ij->iz", T((3, 4))], {}, RuntimeError, "output subscript")],
           tol=PRODUCT_TOL),
    OpInfo("tensordot", lambda lib, a, b, **k: lib.tensordot(a, b, **k), PRODUCT_DTYPES,
           lambda d: [Sample([T((3, 4, 5), **R), T((4, 5, 2), seed=1, **R)]),
                      Sample([T((3, 4, 5), **R), T((5, 3), seed=1, **R)], {"dims": ([0, 2], [1, 0])}),
                      Sample([T((3, 4), **R), T((4, 2), seed=1, **R)], {"dims": 1}),
                      Sample([T((3,), **R), T((2,), seed=1, **R)], {"dims": 0})],
           lambda: [ErrorSample([T((3, 4)), T((5, 2))], {"dims": 1}, RuntimeError, "contracted dimensions")],
           tol=PRODUCT_TOL),
    OpInfo("kron", lambda lib, a, b: lib.kron(a, b), ALL_DTYPES,
           lambda d: [Sample([T((2, 3), **R), T((3, 2), seed=1, **R)]), Sample([T((2,), **R), T((2, 3), seed=1, **R)]),
                      Sample([T((0, 2), **R), T((2,), seed=1, **R)])]),
    OpInfo("cross", lambda lib, a, b, **k: lib.cross(a, b, **k), ALL_BUT_BOOL,
           lambda d: [Sample([T((4, 3), **R), T((4, 3), seed=1, **R)], {"dim": 1}),
                      Sample([T((3, 5), **R), T((3, 5), seed=1, **R)]),
                      Sample([T((2, 4, 3), **R), T((1, 4, 3), seed=1, **R)], {"dim": -1}, name="broadcast")],
           lambda: [ErrorSample([T((4, 2)), T((4, 2))], {"dim": 1}, RuntimeError, "")]),
    OpInfo("chain_matmul", lambda lib, *ms: lib.chain_matmul(*ms), PRODUCT_DTYPES,
           lambda d: [Sample([T((3, 10), **R), T((10, 2), seed=1, **R), T((2, 8), seed=2, **R)]),
                      Sample([T((3, 4), **R)], name="one")],
           lambda: [ErrorSample([T((3, 4)), T((5, 6))], {}, RuntimeError, "")], tol=PRODUCT_TOL),
    OpInfo("trace", lambda lib, a: lib.trace(a), tuple(d for d in ALL_BUT_BOOL if d not in ("float16", "bfloat16")),
           lambda d: [Sample([T((3, 4))]), Sample([T((4, 4), transpose=True)]), Sample([T((0, 3))])],
           lambda: [ErrorSample([T((2, 3, 4))], {}, RuntimeError, "expected a matrix")]),
    OpInfo("diff", lambda lib, a, **k: lib.diff(a, **k), ALL_DTYPES,
           lambda d: [Sample([T((5,))]), Sample([T((3, 5))], {"n": 2, "dim": 0}),
                      Sample([T((3, 4), transpose=True)], {"prepend": T((3, 1), seed=1), "append": T((3, 2), seed=2)}),
                      Sample([T((2, 3))], {"n": 5}), Sample([T((4,))], {"n": -1}, name="negative-order")],
           lambda: [ErrorSample([T(())], {}, RuntimeError, "at least one-dimensional")]),
    OpInfo("trapezoid", lambda lib, y, *a, **k: lib.trapezoid(y, *a, **k), ALL_BUT_BOOL,
           lambda d: [Sample([T((5,))]), Sample([T((3, 5))], {"dx": 0.5, "dim": 0}),
                      Sample([T((3, 5)), T((5,), dtype="float64", seed=1)]),
                      Sample([T((0,))], name="empty")],
           lambda: [ErrorSample([T((3, 5)), T((4,), seed=1)], {}, RuntimeError, "")]),
    OpInfo("cumulative_trapezoid", lambda lib, y, *a, **k: lib.cumulative_trapezoid(y, *a, **k), ALL_BUT_BOOL,
           lambda d: [Sample([T((5,))]), Sample([T((3, 5))], {"dx": 0.5, "dim": 0}),
                      Sample([T((3, 5)), T((5,), dtype="float64", seed=1)]),
                      Sample([T((3, 5)), T((3, 5), seed=1)], name="x-per-row"),
                      Sample([T((2, 1))], name="one-sample"), Sample([T((0,))], name="empty")],
           lambda: [ErrorSample([T((3, 5)), T((4,), seed=1)], {}, RuntimeError, "one `x` value for each sample"),
                    ErrorSample([T((3,), dtype="bool")], {}, RuntimeError, "bool is not supported")]),
    OpInfo("cdist", lambda lib, a, b, **k: lib.cdist(a, b, **k), ("float32", "float64"),
           lambda d: [Sample([T((4, 3)), T((5, 3), seed=1)]),
                      Sample([T((30, 3)), T((27, 3), seed=1)], name="euclid-by-mm"),
                      Sample([T((4, 3)), T((5, 3), seed=1)], {"compute_mode": "use_mm_for_euclid_dist"}, name="mm"),
                      Sample([T((30, 3)), T((27, 3), seed=1)], {"compute_mode": "donot_use_mm_for_euclid_dist"},
                             name="no-mm"),
                      *[Sample([T((4, 3)), T((5, 3), seed=1)], {"p": p}, name=f"p{p}") for p in (0, 1, 1.5, 3)],
                      Sample([T((4, 3)), T((5, 3), seed=1)], {"p": float("inf")}, name="p-inf"),
                      Sample([T((2, 1, 4, 3)), T((5, 6, 3), seed=1, noncontig=True)], name="batch-broadcast"),
                      Sample([T((0, 3)), T((5, 3), seed=1)], name="no-rows"),
                      Sample([T((2, 0)), T((3, 0), seed=1)], name="no-columns")],
           lambda: [ErrorSample([T((4,)), T((5, 4))], {}, RuntimeError, "at least 2D tensors, X1 got: 1D"),
                    ErrorSample([T((3, 4)), T((3, 5))], {}, RuntimeError, "same number of columns. X1: 4 X2: 5"),
                    ErrorSample([T((3, 4)), T((3, 4))], {"p": -1.0}, RuntimeError, "non-negative p"),
                    ErrorSample([T((3, 4)), T((3, 4))], {}, RuntimeError, "floating-point dtypes, X1 got: int64",
                                dtype="int64"),
                    ErrorSample([T((3, 4)), T((3, 4))], {}, RuntimeError, "not implemented for 'float16'",
                                dtype="float16"),
                    ErrorSample([T((3, 4)), T((3, 4))], {"compute_mode": "bad"}, ValueError,
                                "bad is not a valid value")],
           tol={"float32": (1e-4, 1e-4)}),
]
