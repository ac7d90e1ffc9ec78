"""Op-table rows of the reductions: sums and products, logical reductions, extremes,
statistics (var/std/norm/logsumexp), cumulative ops and order statistics (median, mode,
quantile). Rows named after an op's full API corner (sum_dtype, max_out, ...) complement the
basic sum/mean/max/min rows of op_table.py.
"""
import math

import numpy as np

from op_testing import (ALL_DTYPES, COMPLEX, FLOATING, INTEGRAL, REAL, ErrorSample, OpInfo, Sample, T,
                        to_numpy)

REAL_NO_BOOL = tuple(d for d in REAL if d != "bool")
FLOAT_COMPLEX = FLOATING + COMPLEX
NAN = float("nan")

# Sums of many terms: float16/bfloat16 results round at their own precision.
SUM_TOL = {"float32": (1e-5, 1e-4), "bfloat16": (2e-2, 1e-1), "float16": (2e-3, 2e-2),
           "complex64": (1e-5, 1e-4)}
STAT_TOL = {"float32": (2e-5, 2e-5), "bfloat16": (3e-2, 3e-2), "float16": (3e-3, 3e-3),
            "complex64": (2e-5, 2e-5)}


def _dims_samples(large=True, zero_size=True):
    """Reduction samples over dims: all, one dim, a dim list, keepdim, non-contiguous,
    transposed, 0-dim, zero-size, and a large one for the threaded/vectorized paths."""
    def samples(dtype):
        out = [
            Sample([T(())], name="scalar"),
            Sample([T(())], {"dim": 0}, name="scalar-dim"),
            Sample([T((5, 7))], name="all"),
            Sample([T((5, 7))], {"dim": 1}, name="inner"),
            Sample([T((5, 7))], {"dim": 0, "keepdim": True}, name="outer-keepdim"),
            Sample([T((3, 4, 5))], {"dim": (0, 2)}, name="dim-list"),
            Sample([T((4, 6), noncontig=True)], {"dim": 1}, name="noncontig"),
            Sample([T((3, 4, 5), transpose=True)], {"dim": -1}, name="transposed"),
        ]
        if zero_size:
            out.append(Sample([T((0, 3))], {"dim": 1}, name="zero-size"))
        if large:
            out.append(Sample([T((300, 257), -1, 1)], {"dim": 0}, name="large-outer"))
            out.append(Sample([T((70000,), -1, 1)], name="large-all"))
        return out
    return samples


def _large_if_wide(dtype, samples):
    """Samples summing many terms, for dtypes whose sums PyTorch accumulates accurately: its
    16-bit float norms accumulate in the 16-bit type (Ember's in float32), so long sums differ."""
    return samples if dtype not in ("float16", "bfloat16") else []


def _op(name):
    return lambda lib, *a, **k: getattr(lib, name)(*a, **k)


def _out(name, dtype_of=None):
    """Calls lib.name(..., out=fresh) and returns out (dtype_of: the out dtype, else the input's)."""
    def fn(lib, a, *args, **kw):
        out = lib.empty(0, dtype=getattr(lib, dtype_of) if dtype_of else a.dtype)
        r = getattr(lib, name)(a, *args, out=out, **kw)
        assert r is out
        return out
    return fn


def _gathered(lib, a, idx, dim):
    """a's values at idx along dim (through NumPy): checks indices without depending on ties."""
    an, inn = to_numpy(a), idx.numpy()
    if an.ndim == 0:
        return lib.from_numpy(np.asarray(an)).to(a.dtype)
    return lib.from_numpy(np.ascontiguousarray(np.take_along_axis(an, inn, axis=dim))).to(a.dtype)


def _values_and_gathered(name):
    """(values, a[indices]) of an op returning (values, indices) along `dim`."""
    def fn(lib, a, *args, dim=-1, **kw):
        v, i = getattr(lib, name)(a, *args, dim=dim, **kw)
        keep = kw.get("keepdim", False) or a.dim() == 0
        ii = i if keep else i.unsqueeze(dim)
        g = _gathered(lib, a, ii, dim)
        return v, g if keep else g.squeeze(dim)
    return fn


def _with_nans(lib, a, positions):
    """a with NaN written at flat positions (float dtypes only: the row is about NaN)."""
    if not a.is_floating_point():
        raise TypeError("NaN samples need a floating dtype")
    a = a.clone()
    flat = a.reshape(-1)
    for p in positions:
        flat[p] = NAN
    return a


def _wide_t(dtype):
    """Rows of 1001 values near 1 (products stay finite); complex ones of 300 values of modulus
    about 0.96, whose products stay well above the subnormals (for gradcheck)."""
    return T((20, 300), 0.6, 0.75) if dtype in COMPLEX else T((20, 1001), 0.9, 1.1)


def _wide(lib, name, a, nan, shift, dim):
    """name(a, dim) for the *_wide rows: `shift` drops a's first column (rows start 2 or 4 bytes
    past their alignment), `nan` puts NaN in a tail position and in the middle of rows."""
    if nan:
        a = _with_nans(lib, a, (5, 1001 + 1000, 4 * 1001 + 300, 19 * 1001 + 998))
    if shift:
        a = a[:, 1:]
    r = getattr(lib, name)(a, dim)
    return tuple(r) if name in ("max", "min") else r


ROWS = [
    # ---------------------------------------------------------------- sum, mean: full API
    OpInfo("sum_dtype", lambda lib, a, **k: lib.sum(a, dtype=lib.float64, **k), ALL_DTYPES,
           lambda d: [Sample([T((5, 7))]), Sample([T((5, 7))], {"dim": 1}), Sample([T(())])],
           lambda: [ErrorSample([T((2, 3))], {"dim": (0, 0)}, RuntimeError, "appears multiple times")]),
    OpInfo("sum_out", lambda lib, a, **k: _out("sum")(lib, a, (1,), **k), ALL_DTYPES,
           lambda d: [Sample([T((5, 7))]), Sample([T((5, 7))], {"keepdim": True})], tol=SUM_TOL),
    OpInfo("sum_int_out_float", lambda lib, a: _out("sum", "float64")(lib, a, 0), ALL_DTYPES,
           lambda d: [Sample([T((5, 7))])]),
    OpInfo("mean_out", lambda lib, a, dim=0, **k: _out("mean")(lib, a, dim, **k), FLOAT_COMPLEX,
           lambda d: [Sample([T((5, 7))]), Sample([T((4, 6), noncontig=True)], {"keepdim": True})],
           lambda: [ErrorSample([T((2, 3), dtype="int64")], {}, RuntimeError, "could not infer output dtype"),
                    ErrorSample([T((2, 3))], {"dim": 2}, IndexError, "Dimension out of range")],
           tol=SUM_TOL),
    OpInfo("mean_dtype", lambda lib, a, **k: lib.mean(a, dtype=lib.float64, **k), ALL_DTYPES,
           lambda d: [Sample([T((5, 7))]), Sample([T((5, 7))], {"dim": (0, 1)})]),
    OpInfo("mean_large", _op("mean"), FLOAT_COMPLEX, _dims_samples(zero_size=False), tol=SUM_TOL),
    # ---------------------------------------------------------------- nansum, nanmean, prod
    OpInfo("nansum", _op("nansum"), REAL, _dims_samples(), tol=SUM_TOL,
           errors=lambda: [ErrorSample([T((2, 3), dtype="complex64")], {}, RuntimeError, "complex"),
                           ErrorSample([T((2, 3))], {"dim": 3}, IndexError, "Dimension out of range")]),
    OpInfo("nansum_nan", lambda lib, a, **k: lib.nansum(_with_nans(lib, a, (0, 3, 4)), **k), FLOATING,
           lambda d: [Sample([T((3, 5))]), Sample([T((3, 5))], {"dim": 1}),
                      Sample([T((3, 5))], {"dim": 0, "keepdim": True})], tol=SUM_TOL),
    OpInfo("nansum_out", lambda lib, a: _out("nansum")(lib, a, 1), REAL, lambda d: [Sample([T((5, 7))])],
           tol=SUM_TOL),
    OpInfo("nansum_dtype", lambda lib, a: lib.nansum(a, 0, dtype=lib.float64), REAL,
           lambda d: [Sample([T((5, 7))])]),
    OpInfo("nanmean", _op("nanmean"), FLOATING, _dims_samples(), tol=SUM_TOL,
           errors=lambda: [ErrorSample([T((2, 3), dtype="int64")], {}, RuntimeError, "floating point")]),
    OpInfo("nanmean_nan", lambda lib, a, **k: lib.nanmean(_with_nans(lib, a, (0, 1, 2, 7)), **k), FLOATING,
           lambda d: [Sample([T((3, 5))]), Sample([T((3, 5))], {"dim": 1}), Sample([T((3, 5))], {"dim": 0})],
           tol=SUM_TOL),
    OpInfo("nanmean_out", lambda lib, a: _out("nanmean")(lib, a, 1), FLOATING, lambda d: [Sample([T((5, 7))])],
           tol=SUM_TOL),
    OpInfo("prod", _op("prod"), ALL_DTYPES,
           lambda d: [Sample([T((), 0.5, 1.5)]), Sample([T((5, 7), 0.5, 1.5)]), Sample([T((0, 3))]),
                      Sample([T((5, 7), 0.5, 1.5)], {"dim": 1}),
                      Sample([T((5, 7), 0.5, 1.5)], {"dim": 0, "keepdim": True}),
                      Sample([T((4, 6), 0.5, 1.5, noncontig=True)], {"dim": 1}),
                      Sample([T((3, 4, 5), 0.5, 1.5, transpose=True)], {"dim": -1}),
                      Sample([T((3, 4), -3, 3)], {"dim": 1}, name="ints-wrap"),
                      Sample([T((200, 130), 0.9, 1.1)], {"dim": 0}, name="large")],
           lambda: [ErrorSample([T((2, 3))], {"dim": 2}, IndexError, "Dimension out of range")],
           tol={"float32": (1e-5, 1e-5), "bfloat16": (3e-2, 3e-2), "float16": (3e-3, 3e-3), "complex64": (1e-5, 1e-5)}),
    OpInfo("prod_dtype", lambda lib, a: lib.prod(a, 1, dtype=lib.float64), ALL_DTYPES, lambda d: [Sample([T((3, 4), -2, 2)])]),
    OpInfo("prod_out", lambda lib, a: _out("prod")(lib, a, 1), ALL_DTYPES, lambda d: [Sample([T((3, 4), -2, 2)])],
           tol={"bfloat16": (3e-2, 3e-2), "float16": (3e-3, 3e-3)}),
    # ---------------------------------------------------------------- all, any, count_nonzero
    *[OpInfo(n, _op(n), ALL_DTYPES,
             lambda d: [Sample([T(())]), Sample([T((5, 7), -1, 1)]), Sample([T((0, 3))]),
                        Sample([T((5, 7), -1, 1)], {"dim": 1}), Sample([T((5, 7), 0, 1)], {"dim": 0, "keepdim": True}),
                        Sample([T((4, 6), -1, 1, noncontig=True)], {"dim": 1}),
                        Sample([T((3, 4, 5), -1, 1, transpose=True)], {"dim": -1}),
                        Sample([T((0, 3))], {"dim": 1}), Sample([T((300, 200), 0, 1)], {"dim": 0})],
             lambda: [ErrorSample([T((2, 3))], {"dim": 2}, IndexError, "Dimension out of range")])
      for n in ("all", "any")],
    OpInfo("all_out", lambda lib, a, out_dtype="bool": _out("all", out_dtype)(lib, a, 1), ALL_DTYPES,
           lambda d: [Sample([T((5, 7), -1, 1)])],
           lambda: [ErrorSample([T((2, 3))], {"out_dtype": "float32"}, RuntimeError, "bool tensor for result")]),
    OpInfo("count_nonzero", _op("count_nonzero"), ALL_DTYPES,
           lambda d: [Sample([T(())]), Sample([T((5, 7), -1, 1)]), Sample([T((0, 3))]),
                      Sample([T((5, 7), -1, 1)], {"dim": 1}), Sample([T((3, 4, 5), -1, 1)], {"dim": (0, 2)}),
                      Sample([T((4, 6), -1, 1, noncontig=True)], {"dim": 0})],
           lambda: [ErrorSample([T((2, 3))], {"dim": (1, 1)}, RuntimeError, "appears multiple times")]),
    # ---------------------------------------------------------------- extremes
    *[OpInfo(n, _op(n), REAL, _dims_samples(),
             lambda n=n: [ErrorSample([T((0,))], {}, RuntimeError, "Expected reduction dim"),
                          ErrorSample([T((0, 3))], {"dim": 0}, IndexError, "non-zero size"),
                          ErrorSample([T((2, 3), dtype="complex64")], {}, RuntimeError, "not implemented")])
      for n in ("amax", "amin")],
    OpInfo("amax_nan", lambda lib, a, **k: lib.amax(_with_nans(lib, a, (1, 8)), **k), FLOATING,
           lambda d: [Sample([T((3, 5))]), Sample([T((3, 5))], {"dim": 1}), Sample([T((3, 5))], {"dim": 0})]),
    OpInfo("amin_out", lambda lib, a, out_dtype=None: _out("amin", out_dtype)(lib, a, 1), REAL,
           lambda d: [Sample([T((5, 7))])],
           lambda: [ErrorSample([T((2, 3))], {"out_dtype": "float64"}, RuntimeError, "dtype for input and out")]),
    OpInfo("aminmax", lambda lib, a, **k: tuple(lib.aminmax(a, **k)), REAL,
           lambda d: [Sample([T(())]), Sample([T((5, 7))]), Sample([T((5, 7))], {"dim": 1}),
                      Sample([T((5, 7))], {"dim": 0, "keepdim": True}), Sample([T(())], {"dim": 0, "keepdim": True}),
                      Sample([T((4, 6), noncontig=True)], {"dim": -1}), Sample([T((0, 3))], {"dim": 1}),
                      Sample([T((300, 200))], {"dim": 0})],
           lambda: [ErrorSample([T((0,))], {}, RuntimeError, "empty"),
                    ErrorSample([T((3, 0))], {"dim": 1}, IndexError, "non-zero size")]),
    *[OpInfo(n, _op(n), REAL_NO_BOOL,
             lambda d: [Sample([T(())]), Sample([T((5, 7))]), Sample([T((5, 7))], {"dim": 1}),
                        Sample([T((5, 7))], {"dim": 0, "keepdim": True}), Sample([T((5, 7))], {"keepdim": True}),
                        Sample([T((4, 6), noncontig=True)], {"dim": 1}),
                        Sample([T((3, 4, 5), transpose=True)], {"dim": 1}), Sample([T((0, 3))], {"dim": 1}),
                        Sample([T((70000,), -1, 1)]), Sample([T((300, 200), -1, 1)], {"dim": 0})],
             lambda: [ErrorSample([T((0,))], {}, IndexError, "numel\\(\\) == 0"),
                      ErrorSample([T((3, 0))], {"dim": 1}, IndexError, "non-zero size"),
                      ErrorSample([T((2, 3), dtype="bool")], {}, RuntimeError, "not implemented")])
      for n in ("argmax", "argmin")],
    OpInfo("argmax_nan", lambda lib, a, **k: lib.argmax(_with_nans(lib, a, (3, 9)), **k), FLOATING,
           lambda d: [Sample([T((3, 5))]), Sample([T((3, 5))], {"dim": 1}), Sample([T((3, 5))], {"dim": 0})]),
    OpInfo("argmin_out", lambda lib, a: _out("argmin", "int64")(lib, a, 1), REAL_NO_BOOL,
           lambda d: [Sample([T((5, 7))])]),
    OpInfo("max_out", lambda lib, a, d: tuple(lib.max(a, d, out=(lib.empty(0, dtype=a.dtype),
                                                                  lib.empty(0, dtype=lib.int64)))), REAL,
           lambda d: [Sample([T((5, 7)), 1]), Sample([T((4, 6), noncontig=True), 0])],
           lambda: [ErrorSample([T((2, 3)), 5], {}, IndexError, "Dimension out of range")]),
    OpInfo("min_out", lambda lib, a, d: tuple(lib.min(a, d, out=(lib.empty(0, dtype=a.dtype),
                                                                  lib.empty(0, dtype=lib.int64)))), REAL,
           lambda d: [Sample([T((5, 7)), 1])]),
    OpInfo("max_other", lambda lib, a, b: lib.max(a, b), REAL,
           lambda d: [Sample([T((2, 3)), T((3,), seed=1)])]),
    OpInfo("max_dim_large", lambda lib, a, d: tuple(lib.max(a, d)), REAL,
           lambda d: [Sample([T((300, 257)), 0]), Sample([T((3, 70000)), 1])]),
    # The vector paths of every floating dtype (16-bit floats widened to float32 in registers):
    # many rows of more than 4 x 64 lanes with a tail, along the contiguous dim and across it,
    # from a 64-byte aligned start and from one 2 bytes past it, with and without NaN.
    *[OpInfo(f"{n}_wide", lambda lib, a, n=n, nan=False, shift=False, **k: _wide(lib, n, a, nan, shift, **k),
             dtypes,
             lambda d: [Sample([_wide_t(d)], {"dim": 1}), Sample([_wide_t(d)], {"dim": 0}),
                        Sample([_wide_t(d)], {"dim": 1, "shift": True}), Sample([_wide_t(d)], {"dim": 0, "shift": True}),
                        *([Sample([_wide_t(d)], {"dim": 1, "nan": True}),
                           Sample([_wide_t(d)], {"dim": 0, "nan": True})] if d in FLOATING else [])],
             tol=SUM_TOL if n in ("sum", "mean", "prod") else {})
      for n, dtypes in (("sum", ALL_DTYPES), ("mean", FLOAT_COMPLEX), ("prod", ALL_DTYPES), ("amax", REAL),
                        ("amin", REAL), ("max", REAL), ("min", REAL), ("argmax", REAL_NO_BOOL),
                        ("argmin", REAL_NO_BOOL))],
    # ---------------------------------------------------------------- var, std, var_mean, std_mean
    *[OpInfo(n, _op(n), FLOAT_COMPLEX, _dims_samples(),
             lambda n=n: [ErrorSample([T((2, 3), dtype="int64")], {}, RuntimeError, "floating point"),
                          ErrorSample([T((2, 3))], {"dim": 2}, IndexError, "Dimension out of range")],
             tol=STAT_TOL)
      for n in ("var", "std", "var_mean", "std_mean")],
    *[OpInfo(f"{n}_correction", lambda lib, a, n=n, **k: getattr(lib, n)(a, **k), FLOAT_COMPLEX,
             lambda d: [Sample([T((5, 7))], {"dim": 1, "correction": 0}),
                        Sample([T((5, 7))], {"dim": (0, 1), "correction": 2, "keepdim": True}),
                        Sample([T((5, 7))], {"dim": None, "correction": 0}),
                        Sample([T((1, 3))], {"dim": 0, "correction": 1}, name="too-few")],
             tol=STAT_TOL)
      for n in ("var", "std", "var_mean", "std_mean")],
    *[OpInfo(f"{n}_unbiased", lambda lib, a, *args, n=n, **k: getattr(lib, n)(a, *args, **k), FLOAT_COMPLEX,
             lambda d: [Sample([T((5, 7)), False]), Sample([T((5, 7)), 1, False, True]),
                        Sample([T((5, 7))], {"unbiased": False, "dim": 0})],
             tol=STAT_TOL)
      for n in ("var", "std", "var_mean", "std_mean")],
    OpInfo("var_offset", lambda lib, a, **k: lib.var(a + 1e4, **k), ALL_DTYPES,
           lambda d: [Sample([T((70000,), -1, 1)]), Sample([T((300, 200), -1, 1)], {"dim": 0}),
                      Sample([T((200, 300), -1, 1)], {"dim": 1})],
           tol={"float32": (2e-3, 1e-5)}),  # float32 rounding of x + 1e4 itself is ~5e-4 relative
    OpInfo("var_nan", lambda lib, a, **k: lib.var(_with_nans(lib, a, (2,)), **k), FLOATING,
           lambda d: [Sample([T((3, 5))]), Sample([T((3, 5))], {"dim": 1})], tol=STAT_TOL),
    OpInfo("var_out", lambda lib, a: _out("var")(lib, a, 1), FLOAT_COMPLEX, lambda d: [Sample([T((5, 7))])], tol=STAT_TOL),
    OpInfo("std_out_float64", lambda lib, a: _out("std", "float64")(lib, a, 1), FLOAT_COMPLEX,
           lambda d: [Sample([T((5, 7))])], tol=STAT_TOL),
    # ---------------------------------------------------------------- norm
    *[OpInfo(f"norm_p{p}", lambda lib, a, p=p, **k: lib.norm(a, p, **k), FLOAT_COMPLEX,
             lambda d: [Sample([T(())]), Sample([T((5, 7))]), Sample([T((5, 7))], {"dim": 1}),
                        Sample([T((5, 7))], {"dim": (0, 1), "keepdim": True}),
                        Sample([T((4, 6), noncontig=True)], {"dim": 0}),
                        Sample([T((3, 4, 5), transpose=True)], {"dim": -1}),
                        Sample([T((0, 3))], {"dim": 1}), *_large_if_wide(d, [Sample([T((300, 200), -1, 1)], {"dim": 0})])],
             lambda: [ErrorSample([T((2, 3), dtype="int64")], {}, RuntimeError, "floating point or complex")],
             tol=STAT_TOL)
      for p in (2, 1, 0, 3, 0.5, math.inf, -math.inf)],
    OpInfo("norm", _op("norm"), FLOAT_COMPLEX,
           lambda d: [Sample([T((5, 7))]), Sample([T((5, 7))], {"dim": 1}), Sample([T((5, 7))], {"p": "fro"}),
                      Sample([T((5, 7))], {"p": "fro", "dim": (0, 1)}), Sample([T((5, 7))], {"p": 2, "dim": 1}),
                      Sample([T((5, 7))], {"p": 1, "dim": 1, "keepdim": True}),
                      *_large_if_wide(d, [Sample([T((70000,), -1, 1)])])],
           lambda: [ErrorSample([T((2, 3))], {"p": "fro", "dtype": "float64"}, ValueError, "dtype argument"),
                    ErrorSample([T((2, 3))], {"p": "abc"}, RuntimeError, "only valid string values")],
           tol=STAT_TOL),
    OpInfo("norm_dtype", lambda lib, a, **k: lib.norm(a, 2, dim=1, dtype=lib.float64, **k), ALL_DTYPES,
           lambda d: [Sample([T((5, 7))])]),
    # PyTorch 1.13's norm(out=float32) of a complex128 input returns garbage: the reference is
    # the norm without out=, converted.
    OpInfo("norm_out", lambda lib, a: _out("norm", "float32")(lib, a, 2, 1), FLOAT_COMPLEX,
           lambda d: [Sample([T((5, 7))])], tol=STAT_TOL,
           torch_fn=lambda lib, a: (lib.norm(a.to(lib.complex64 if a.is_complex() else lib.float32), 2, 1)
                                    if a.is_floating_point() or a.is_complex() else _out("norm", "float32")(lib, a, 2, 1))),
    OpInfo("norm_nan", lambda lib, a, **k: lib.norm(_with_nans(lib, a, (4,)), **k), FLOATING,
           lambda d: [Sample([T((3, 5))], {"p": 2, "dim": 1}), Sample([T((3, 5))], {"p": math.inf, "dim": 1})]),
    # ---------------------------------------------------------------- logsumexp
    OpInfo("logsumexp", lambda lib, a, dim=1, **k: lib.logsumexp(a, dim, **k), REAL,
           lambda d: [Sample([T(())], {"dim": 0}), Sample([T((5, 7))]), Sample([T((5, 7))], {"dim": 0}),
                      Sample([T((5, 7))], {"dim": (0, 1), "keepdim": True}),
                      Sample([T((4, 6), noncontig=True)], {"dim": 1}),
                      Sample([T((3, 4, 5), transpose=True)], {"dim": -1}),
                      Sample([T((0, 3))], {"dim": 0}), Sample([T((0, 3))], {"dim": 1}),
                      Sample([T((300, 257), -20, 20)], {"dim": 0}), Sample([T((3, 70000), -20, 20)], {"dim": 1}),
                      Sample([T((5, 9), -200, 200)], {"dim": 1}, name="wide-range")],
           lambda: [ErrorSample([T((2, 3), dtype="complex64")], {"dim": 1}, RuntimeError, "floating point type"),
                    ErrorSample([T((2, 3))], {"dim": 2}, IndexError, "Dimension out of range")],
           tol=STAT_TOL),
    OpInfo("logsumexp_special", lambda lib, a, which: lib.logsumexp(_special(lib, a, which), 1), FLOATING,
           lambda d: [Sample([T((3, 5)), w]) for w in ("nan", "inf", "-inf", "all-inf")]),
    OpInfo("logsumexp_out", lambda lib, a, out_dtype="float64": _out("logsumexp", out_dtype)(lib, a, (1,)), REAL,
           lambda d: [Sample([T((5, 7))])],
           lambda: [ErrorSample([T((2, 3), dtype="int64")], {"out_dtype": "int64"}, RuntimeError,
                                "floating point type")],
           # PyTorch 1.13 rounds each exp() to a 16-bit input's type before summing into a wider
           # out=; Ember computes in out's precision, as the reference here does.
           torch_fn=lambda lib, a, out_dtype="float64": _out("logsumexp", out_dtype)(
               lib, a if a.is_complex() else a.to(lib.float64), (1,))),
    # ---------------------------------------------------------------- cumulative
    *[OpInfo(n, lambda lib, a, d, n=n, **k: getattr(lib, n)(a, d, **k), ALL_DTYPES,
             lambda d, n=n: [Sample([T(()), 0]), Sample([T((5, 7), *((0.5, 1.5) if n == "cumprod" else ())), 1]),
                             Sample([T((5, 7), *((0.5, 1.5) if n == "cumprod" else ())), 0]),
                             Sample([T((4, 6), *((0.5, 1.5) if n == "cumprod" else ()), noncontig=True), 1]),
                             Sample([T((3, 4, 5), *((0.5, 1.5) if n == "cumprod" else ()), transpose=True), 1]),
                             Sample([T((0, 3)), 0]),
                             Sample([T((2000, 3), *((0.999, 1.001) if n == "cumprod" else (-1, 1))), 0],
                                    name="long")],
             lambda: [ErrorSample([T((2, 3)), 2], {}, IndexError, "Dimension out of range")],
             tol={"float32": (1e-5, 1e-4), "bfloat16": (3e-2, 1e-1), "float16": (3e-3, 3e-2),
                  "complex64": (1e-5, 1e-4)})
      for n in ("cumsum", "cumprod")],
    OpInfo("cumsum_dtype", lambda lib, a: lib.cumsum(a, 1, dtype=lib.float64), ALL_DTYPES, lambda d: [Sample([T((5, 7))])]),
    OpInfo("cumsum_out", lambda lib, a, dtype=None: _out("cumsum")(lib, a, 0, **({"dtype": getattr(lib, dtype)}
                                                                               if dtype else {})),
           ALL_DTYPES[1:], lambda d: [Sample([T((5, 7))])],
           lambda: [ErrorSample([T((2, 3))], {"dtype": "float64"}, RuntimeError, "Expected out tensor to have dtype")]),
    OpInfo("cumsum_", lambda lib, a: a.clone().cumsum_(1), ALL_DTYPES[1:],
           lambda d: [Sample([T((5, 7))]), Sample([T((4, 6), noncontig=True)])]),
    OpInfo("cumprod_", lambda lib, a: a.clone().cumprod_(0), ALL_DTYPES[1:],
           lambda d: [Sample([T((5, 7), 0.5, 1.5)])]),
    *[OpInfo(n, lambda lib, a, d, n=n: tuple(getattr(lib, n)(a, d)), REAL,
             lambda d: [Sample([T((5, 7)), 1]), Sample([T(()), 0]), Sample([T((5, 7)), 0]),
                        Sample([T((4, 6), noncontig=True), 1]), Sample([T((3, 4, 5), transpose=True), 2]),
                        Sample([T((0, 3)), 0]), Sample([T((300, 3)), 0])],
             lambda n=n: [ErrorSample([T((2, 3), dtype="complex64"), 1], {}, RuntimeError, "not implemented"),
                          ErrorSample([T((2, 3)), 2], {}, IndexError, "Dimension out of range")])
      for n in ("cummax", "cummin")],
    OpInfo("cummax_nan", lambda lib, a: tuple(lib.cummax(_with_nans(lib, a, (1, 3)), 0)), FLOATING,
           lambda d: [Sample([T((6,))])]),
    OpInfo("cummin_out", lambda lib, a: tuple(lib.cummin(a, 1, out=(lib.empty(0, dtype=a.dtype),
                                                                     lib.empty(0, dtype=lib.int64)))), REAL,
           lambda d: [Sample([T((5, 7))])]),
    OpInfo("logcumsumexp", lambda lib, a, d: lib.logcumsumexp(a, d), FLOATING,
           lambda d: [Sample([T(()), 0]), Sample([T((5, 7)), 1]), Sample([T((5, 7)), 0]),
                      Sample([T((4, 6), noncontig=True), 1]), Sample([T((0, 3)), 0]),
                      Sample([T((5, 9), -200, 200), 1], name="wide-range"), Sample([T((500, 3), -20, 20), 0])],
           lambda: [ErrorSample([T((2, 3), dtype="int64"), 1], {}, RuntimeError, "not implemented")],
           tol=STAT_TOL),
    OpInfo("logcumsumexp_out", lambda lib, a: _out("logcumsumexp")(lib, a, 1), FLOATING,
           lambda d: [Sample([T((5, 7))])], tol=STAT_TOL),
    # ---------------------------------------------------------------- median, nanmedian, mode, quantile
    *[OpInfo(n, lambda lib, a, n=n: getattr(lib, n)(a), REAL_NO_BOOL,
             lambda d: [Sample([T(())]), Sample([T((5, 7))]), Sample([T((4, 6), noncontig=True)]), Sample([T((0,))]),
                        Sample([T((101, 99), -1000, 1000)])])
      for n in ("median", "nanmedian")],
    *[OpInfo(f"{n}_dim", _values_and_gathered(n), REAL_NO_BOOL,
             lambda d: [Sample([T(())], {"dim": 0}), Sample([T((5, 7))], {"dim": 1}),
                        Sample([T((5, 7))], {"dim": 0, "keepdim": True}),
                        Sample([T((4, 6), noncontig=True)], {"dim": 1}),
                        Sample([T((3, 4, 5), transpose=True)], {"dim": 1}), Sample([T((0, 3))], {"dim": 1})],
             lambda n=n: [ErrorSample([T((0, 3))], {"dim": 0}, IndexError, "non-zero size"),
                          ErrorSample([T((2, 3), dtype="bool")], {"dim": 0}, RuntimeError, "not implemented")])
      for n in ("median", "nanmedian")],
    OpInfo("median_nan", lambda lib, a, **k: tuple(lib.median(_with_nans(lib, a, (2, 4, 7)), **k)), FLOATING,
           lambda d: [Sample([T((3, 5))], {"dim": 1}), Sample([T((3, 5))], {"dim": 0})]),
    OpInfo("nanmedian_nan", lambda lib, a, **k: tuple(lib.nanmedian(_with_nans(lib, a, (2, 4, 7, 0, 1)), **k)), FLOATING,
           lambda d: [Sample([T((3, 5))], {"dim": 1}), Sample([T((3, 5))], {"dim": 0})]),
    OpInfo("median_out", lambda lib, a: tuple(lib.median(a, 1, out=(lib.empty(0, dtype=a.dtype),
                                                                      lib.empty(0, dtype=lib.int64)))),
           REAL_NO_BOOL, lambda d: [Sample([T((5, 7))])]),
    OpInfo("mode", _values_and_gathered("mode"), REAL,
           lambda d: [Sample([T((5, 9), -2, 2)]), Sample([T((), -2, 2)]), Sample([T((5, 9), -2, 2)], {"dim": 0}),
                      Sample([T((5, 9), -2, 2)], {"dim": 1, "keepdim": True}),
                      Sample([T((4, 6), -2, 2, noncontig=True)], {"dim": 1}), Sample([T((0, 3))], {"dim": 1}),
                      Sample([T((3, 400), -3, 3)], {"dim": 1})],
           lambda: [ErrorSample([T((0, 3))], {"dim": 0}, IndexError, "non-zero size"),
                    ErrorSample([T((2, 3), dtype="complex64")], {}, RuntimeError, "not implemented")]),
    OpInfo("mode_out", lambda lib, a: tuple(lib.mode(a, 1, out=(lib.empty(0, dtype=a.dtype),
                                                                  lib.empty(0, dtype=lib.int64))))[0],
           REAL, lambda d: [Sample([T((5, 9), -2, 2)])]),
    *[OpInfo(n, lambda lib, a, q, n=n, **k: getattr(lib, n)(a, q, **k), ("float32", "float64"),
             lambda d: [Sample([T((5, 7)), 0.3]), Sample([T((5, 7)), T((4,), 0, 1, seed=3)], {"dim": 1}),
                        Sample([T((5, 7)), T((), 0, 1, seed=4)], {"dim": 0, "keepdim": True}),
                        Sample([T((5, 7)), 0.5], {"keepdim": True}),
                        Sample([T(()), 0.25]), Sample([T((4, 6), noncontig=True), 1.0], {"dim": 1}),
                        *[Sample([T((5, 8)), T((3,), 0, 1, seed=5)], {"dim": 1, "interpolation": i})
                          for i in ("lower", "higher", "midpoint", "nearest")],
                        Sample([T((5, 5)), T((3,), 0, 1, seed=6)], {"dim": 0, "interpolation": "nearest"})],
             lambda n=n: [ErrorSample([T((0,)), 0.5], {}, RuntimeError, "non-empty"),
                          ErrorSample([T((3,)), 1.5], {}, RuntimeError, "in the range \\[0, 1\\]"),
                          ErrorSample([T((3,)), 0.5], {"interpolation": "cubic"}, RuntimeError, "interpolation"),
                          ErrorSample([T((3,), dtype="int64"), 0.5], {}, RuntimeError, "float or double"),
                          ErrorSample([T((3,)), T((2, 2), 0, 1)], {}, RuntimeError, "scalar or 1D")])
      for n in ("quantile", "nanquantile")],
    *[OpInfo(f"{n}_nan", lambda lib, a, q, n=n, **k: getattr(lib, n)(_with_nans(lib, a, (0, 3, 6)), q, **k),
             ("float32", "float64"),
             lambda d: [Sample([T((3, 5)), 0.4], {"dim": 1}), Sample([T((3, 5)), T((3,), 0, 1, seed=2)], {"dim": 0}),
                        Sample([T((3, 5)), 0.7])])
      for n in ("quantile", "nanquantile")],
    OpInfo("quantile_out", lambda lib, a: _out("quantile")(lib, a, 0.5, 1), ("float32", "float64"),
           lambda d: [Sample([T((5, 7))])]),
]


def _special(lib, a, which):
    """a (float) with rows made to hold special values for logsumexp."""
    if not a.is_floating_point():
        raise TypeError("special values need a floating dtype")
    a = a.clone()
    if which == "nan":
        a[0, 1] = NAN
    elif which == "inf":
        a[1, 2] = math.inf
    elif which == "-inf":
        a[2, 0] = -math.inf
    else:
        a[1] = -math.inf
    return a
