"""Op-table rows of sorting, selection, uniqueness, searching and histograms.

Where equal elements make PyTorch's choice of index implementation-defined (its default sort
is unstable; topk and kthvalue pick any of equal elements), rows compare the values and the
input's values at the returned indices instead of the indices themselves; stable sorts compare
indices exactly.
"""
import numpy as np

from op_testing import FLOATING, INTEGRAL, REAL, ErrorSample, OpInfo, Sample, T, to_numpy

REAL_NO_BOOL = tuple(d for d in REAL if d != "bool")
NAN = float("nan")


def _gathered(lib, a, idx, dim):
    an, inn = to_numpy(a), idx.numpy()
    if an.ndim == 0:
        return lib.from_numpy(np.asarray(an)).to(a.dtype)
    return lib.from_numpy(np.ascontiguousarray(np.take_along_axis(an, inn, axis=dim))).to(a.dtype)


def _sorted_pair(lib, r, a, dim):
    """(values, a at the indices) of a (values, indices) result."""
    v, i = r
    return v, _gathered(lib, a, i, dim)


def _with_specials(lib, a):
    """a (float) with NaN, infinities and signed zeros mixed in."""
    if not a.is_floating_point():
        raise TypeError("special values need a floating dtype")
    a = a.clone()
    flat = a.reshape(-1)
    for p, v in ((0, NAN), (3, float("inf")), (5, -float("inf")), (6, -0.0), (8, 0.0), (11, NAN)):
        if p < flat.numel():
            flat[p] = v
    return a


def _sort_samples(dtype):
    return [Sample([T((9,))]), Sample([T(())]), Sample([T((5, 7))], {"dim": 0}),
            Sample([T((5, 7))], {"dim": 1, "descending": True}), Sample([T((4, 6), noncontig=True)]),
            Sample([T((3, 4, 5), transpose=True)], {"dim": 1}), Sample([T((0, 3))], {"dim": 0}),
            Sample([T((3, 2000), -100, 100)], {"descending": True}, name="long-rows"),
            Sample([T((20000,), -100, 100)], name="radix")]


ROWS = [
    # ---------------------------------------------------------------- sort, argsort, msort
    OpInfo("sort", lambda lib, a, **k: tuple(lib.sort(a, stable=True, **k)), REAL, _sort_samples,
           lambda: [ErrorSample([T((2, 3), dtype="complex64")], {}, RuntimeError, "not implemented"),
                    ErrorSample([T((2, 3))], {"dim": 2}, IndexError, "Dimension out of range")]),
    OpInfo("sort_default", lambda lib, a, **k: _sorted_pair(lib, lib.sort(a, **k), a, k.get("dim", -1)), REAL,
           _sort_samples),
    OpInfo("sort_specials", lambda lib, a, **k: tuple(lib.sort(_with_specials(lib, a), stable=True, **k)), FLOATING,
           lambda d: [Sample([T((3, 4))], {"dim": 1}), Sample([T((12,))], {"descending": True}),
                      Sample([T((60,))], {"descending": True}), Sample([T((60,))])]),
    OpInfo("sort_out", lambda lib, a: tuple(lib.sort(a, 1, out=(lib.empty(0, dtype=a.dtype),
                                                                lib.empty(0, dtype=lib.int64)))),
           REAL, lambda d: [Sample([T((5, 7), -100, 100)])]),
    OpInfo("argsort", lambda lib, a, **k: lib.argsort(a, stable=True, **k), REAL, _sort_samples),
    OpInfo("argsort_default", lambda lib, a, dim=-1, **k: _gathered(lib, a, lib.argsort(a, dim, **k), dim), REAL,
           lambda d: [Sample([T((5, 7))], {"dim": 0}), Sample([T((5, 7))], {"descending": True})]),
    OpInfo("msort", lambda lib, a: lib.msort(a), REAL,
           lambda d: [Sample([T((7, 5))]), Sample([T(())]), Sample([T((4, 6), transpose=True)]), Sample([T((0, 2))])]),
    # ---------------------------------------------------------------- topk, kthvalue
    OpInfo("topk", lambda lib, a, k, dim=-1, **kw: _sorted_pair(lib, lib.topk(a, k, dim, **kw), a, dim), REAL_NO_BOOL,
           lambda d: [Sample([T((9,)), 3]), Sample([T(()), 1]), Sample([T((5, 7)), 2], {"dim": 0}),
                      Sample([T((5, 7)), 3], {"largest": False}), Sample([T((5, 7)), 0]), Sample([T((5, 7)), 7]),
                      Sample([T((4, 6), noncontig=True), 2]), Sample([T((3, 4, 5), transpose=True), 2], {"dim": 1}),
                      Sample([T((0, 3)), 2]), Sample([T((3, 20000), -1000, 1000), 10], name="select"),
                      Sample([T((3, 20000), -1000, 1000), 5000], {"largest": False}, name="select-many")],
           lambda: [ErrorSample([T((2, 3)), 4], {}, RuntimeError, "k out of range"),
                    ErrorSample([T((2, 3)), -1], {}, RuntimeError, "k out of range"),
                    ErrorSample([T((2, 3), dtype="complex64"), 1], {}, RuntimeError, "not implemented")]),
    OpInfo("topk_specials", lambda lib, a, k, **kw: _sorted_pair(lib, lib.topk(_with_specials(lib, a), k, **kw),
                                                                 _with_specials(lib, a), -1),
           FLOATING,
           lambda d: [Sample([T((3, 4)), 2]), Sample([T((12,)), 3], {"largest": False}), Sample([T((12,)), 12])]),
    OpInfo("topk_unsorted", lambda lib, a, k: lib.sort(lib.topk(a, k, sorted=False)[0])[0], REAL_NO_BOOL,
           lambda d: [Sample([T((5, 30)), 4])]),
    OpInfo("topk_out", lambda lib, a: _sorted_pair(lib, lib.topk(a, 2, out=(lib.empty(0, dtype=a.dtype),
                                                                            lib.empty(0, dtype=lib.int64))), a, -1),
           REAL_NO_BOOL, lambda d: [Sample([T((5, 7))])]),
    OpInfo("kthvalue", lambda lib, a, k, dim=-1, **kw: _sorted_pair(lib, lib.kthvalue(a, k, dim, **kw), a,
                                                                   dim) if kw.get("keepdim") else
           tuple(lib.kthvalue(a, k, dim, **kw))[0], REAL_NO_BOOL,
           lambda d: [Sample([T((9,)), 3]), Sample([T(()), 1]), Sample([T((5, 7)), 2], {"dim": 0}),
                      Sample([T((5, 7)), 7], {"keepdim": True}), Sample([T((4, 6), noncontig=True), 1]),
                      Sample([T((3, 20000), -1000, 1000), 777]), Sample([T((0, 3)), 1])],
           lambda: [ErrorSample([T((2, 3)), 4], {}, RuntimeError, "out of range"),
                    ErrorSample([T((2, 3)), 0], {}, RuntimeError, "out of range")]),
    OpInfo("kthvalue_out", lambda lib, a: tuple(lib.kthvalue(a, 2, out=(lib.empty(0, dtype=a.dtype),
                                                                        lib.empty(0, dtype=lib.int64))))[0],
           REAL_NO_BOOL, lambda d: [Sample([T((5, 7))])]),
    # ---------------------------------------------------------------- unique
    OpInfo("unique", lambda lib, a, **k: lib.unique(a, **k), REAL,
           lambda d: [Sample([T((), -3, 3)]), Sample([T((5, 7), -3, 3)]), Sample([T((0,))]),
                      Sample([T((5, 7), -3, 3)], {"return_inverse": True}),
                      Sample([T((5, 7), -3, 3)], {"return_counts": True}),
                      Sample([T((4, 6), -3, 3, noncontig=True)], {"return_inverse": True, "return_counts": True}),
                      Sample([T((3000,), -100, 100)], {"return_counts": True})],
           lambda: [ErrorSample([T((2, 3), dtype="complex64")], {}, RuntimeError, "not implemented")]),
    OpInfo("unique_dim", lambda lib, a, **k: lib.unique(a, **k), REAL,
           lambda d: [Sample([T((5, 3), -1, 1)], {"dim": 0, "return_inverse": True, "return_counts": True}),
                      Sample([T((3, 6), 0, 1)], {"dim": 1, "return_counts": True}),
                      Sample([T((4, 2, 3), 0, 1)], {"dim": 2, "return_inverse": True}),
                      Sample([T((), -1, 1)], {"dim": 0})],
           lambda: [ErrorSample([T((2, 3))], {"dim": 2}, IndexError, "Dimension out of range")]),
    OpInfo("unique_consecutive", lambda lib, a, **k: lib.unique_consecutive(a, **k), REAL,
           lambda d: [Sample([T((), -1, 1)]), Sample([T((30,), -1, 1)]), Sample([T((0,))]),
                      Sample([T((5, 7), -1, 1)], {"return_inverse": True, "return_counts": True}),
                      Sample([T((6, 3), 0, 1)], {"dim": 0, "return_inverse": True, "return_counts": True}),
                      Sample([T((3, 6), 0, 1)], {"dim": 1, "return_counts": True})],
           lambda: [ErrorSample([T((2, 3), dtype="complex64")], {}, RuntimeError, "not implemented")]),
    OpInfo("unique_method", lambda lib, a: a.unique(return_counts=True), REAL,
           lambda d: [Sample([T((5, 7), -3, 3)])]),
    # ---------------------------------------------------------------- searchsorted, bucketize
    OpInfo("searchsorted", lambda lib, s, v, **k: lib.searchsorted(lib.sort(s)[0], v, **k), REAL_NO_BOOL,
           lambda d: [Sample([T((9,)), T((5,), seed=1)]), Sample([T((9,)), T((5,), seed=1)], {"right": True}),
                      Sample([T((9,)), T((3, 4), seed=1)], {"side": "right"}),
                      Sample([T((3, 9)), T((3, 4), seed=1)]), Sample([T((9,)), T((), seed=1)]),
                      Sample([T((9,)), T((0,), seed=1)]), Sample([T((9,)), T((5,), seed=1)], {"out_int32": True}),
                      Sample([T((9,)), 2.5]), Sample([T((9,)), T((4, 6), seed=1, noncontig=True)]),
                      Sample([T((1000,), -100, 100), T((3000,), -120, 120, seed=1)])],
           lambda: [ErrorSample([T((2, 3)), T((3, 3))], {}, RuntimeError, "first N-1 dimensions"),
                    ErrorSample([T((3,)), T((2,))], {"side": "middle"}, RuntimeError, "side can only be"),
                    ErrorSample([T((3,)), T((2,))], {"side": "left", "right": True}, RuntimeError, "opposites"),
                    ErrorSample([T(()), T((2,))], {}, RuntimeError, "positive dimension")]),
    OpInfo("searchsorted_sorter", lambda lib, s, v: lib.searchsorted(s, v, sorter=lib.argsort(s, stable=True)),
           REAL_NO_BOOL, lambda d: [Sample([T((9,)), T((5,), seed=1)]), Sample([T((2, 9)), T((2, 5), seed=1)])]),
    OpInfo("searchsorted_mixed", lambda lib, s, v: lib.searchsorted(lib.sort(s)[0], v.to(lib.float64)),
           REAL, lambda d: [Sample([T((9,)), T((5,), seed=1)])]),
    OpInfo("bucketize", lambda lib, v, b, **k: lib.bucketize(v, lib.sort(b)[0], **k), REAL_NO_BOOL,
           lambda d: [Sample([T((5,), seed=1), T((9,))]), Sample([T((3, 4), seed=1), T((9,))], {"right": True}),
                      Sample([T((), seed=1), T((9,))], {"out_int32": True}), Sample([2, T((9,))])],
           lambda: [ErrorSample([T((2,)), T((2, 3))], {}, RuntimeError, "must be 1 dimension")]),
    # ---------------------------------------------------------------- histograms, bincount
    OpInfo("histc", lambda lib, a, **k: lib.histc(a, **k), FLOATING,
           lambda d: [Sample([T((50,))], {"bins": 7}), Sample([T((50,))], {"bins": 4, "min": -2, "max": 3}),
                      Sample([T((5, 7))], {"bins": 5, "min": -10, "max": 10}), Sample([T((0,))], {"bins": 3}),
                      # float16 has no PyTorch histc; its float32 reference bins elements near
                      # edges differently from float16 arithmetic, so many elements are left out.
                      *([Sample([T((3000,), -1, 1)], {"bins": 100, "min": -1, "max": 1})] if d != "float16" else [])],
           lambda: [ErrorSample([T((5,))], {"bins": 0}, RuntimeError, "bins must be > 0"),
                    ErrorSample([T((5,))], {"min": 3, "max": 1}, RuntimeError, "max must be larger than min"),
                    ErrorSample([T((5,))], {"min": float("inf"), "max": 1}, RuntimeError, "not finite"),
                    ErrorSample([T((5,), dtype="int64")], {}, RuntimeError, "not implemented")],
           tol={"bfloat16": (0, 0), "float16": (0, 0)}),
    OpInfo("histc_const", lambda lib, a: lib.histc(a * 0 + 2, bins=3), FLOATING,
           lambda d: [Sample([T((5,))])]),
    OpInfo("histogram", lambda lib, a, bins, w=None, **k: tuple(lib.histogram(a, bins, **k, **(
        {"weight": w} if w is not None else {}))), ("float32", "float64"),
           lambda d: [Sample([T((50,)), 7]), Sample([T((5, 7)), 4], {"range": (-2.0, 3.0)}),
                      Sample([T((50,)), 5], {"density": True}), Sample([T((0,)), 3]),
                      Sample([T((50,)), 6], {"weight": T((50,), 0, 1, seed=2)}),
                      Sample([T((50,)), T((4,), seed=3)], {}),
                      Sample([T((3000,), -1, 1), 100], {"range": (-1.0, 1.0)})],
           lambda: [ErrorSample([T((5,)), 0], {}, RuntimeError, "bins must be > 0"),
                    ErrorSample([T((5,)), 3], {"range": (2.0, 1.0)}, RuntimeError, "min should not exceed max"),
                    ErrorSample([T((5,)), 3, T((4,))], {}, RuntimeError, "weight tensor"),
                    ErrorSample([T((5,), dtype="int64"), 3], {}, RuntimeError, "not implemented")]),
    OpInfo("histogram_edges", lambda lib, a, e: tuple(lib.histogram(a, lib.sort(e)[0])), FLOATING,
           lambda d: [Sample([T((50,)), T((6,), seed=4)])]),
    OpInfo("bincount", lambda lib, a, w=None, **k: lib.bincount(a, w, **k), INTEGRAL,
           lambda d: [Sample([T((30,), 0, 9)]), Sample([T((30,), 0, 9)], {"minlength": 15}),
                      Sample([T((0,), 0, 9)]), Sample([T((0,), 0, 9)], {"minlength": 3}),
                      Sample([T((30,), 0, 9), T((30,), dtype="float32", seed=1)]),
                      Sample([T((30,), 0, 9), T((30,), dtype="float64", seed=1)]),
                      Sample([T((30,), 0, 9), T((30,), dtype="int32", seed=1)])],
           lambda: [ErrorSample([T((4,), -5, -1)], {}, RuntimeError, "non-negative", dtype="int64"),
                    ErrorSample([T((2, 3), 0, 3)], {}, RuntimeError, "1-d", dtype="int64"),
                    ErrorSample([T((4,), 0, 3)], {"minlength": -1}, RuntimeError, "minlength", dtype="int64"),
                    ErrorSample([T((4,), 0, 3), T((3,), dtype="float32")], {}, RuntimeError, "same length",
                                dtype="int64"),
                    ErrorSample([T((4,))], {}, RuntimeError, "not implemented")],
           tol={"float32": (1e-5, 1e-5)}),
]

# Private ops (not exposed to Python) are tested from C++ (tests/cpp/test_sort.cpp).
COVERED_ELSEWHERE = {"_unique", "_unique2"}
