"""Op-table rows of the shape ops: flip / roll / rot90 / repeat / tile / repeat_interleave,
tril / triu, diag / diag_embed / diagflat, narrow_copy, the stacks (hstack, vstack, dstack,
column_stack, row_stack), the splits (split, chunk, tensor_split, h/v/dsplit, unbind),
movedim / swapaxes, broadcast_to / broadcast_tensors, meshgrid, atleast_*d and ravel.
Ops returning several tensors are compared element by element.
"""
import numpy as np

from op_testing import ALL_DTYPES, ErrorSample, OpInfo, Sample, T


def _op(name):
    return lambda lib, *a, **k: getattr(lib, name)(*a, **k)


def _method(name):
    return lambda lib, a, *args, **k: getattr(a, name)(*args, **k)


def _out_call(name):
    def fn(lib, first, *args, **kw):
        dt = first.dtype if not isinstance(first, (list, tuple)) else first[0].dtype
        out = lib.empty(0, dtype=dt)
        r = getattr(lib, name)(first, *args, out=out, **kw)
        assert r is out
        return out
    return fn


def _inplace(name):
    def fn(lib, a, *args, **kw):
        b = a.clone()
        r = getattr(b, name)(*args, **kw)
        assert r is b
        return b
    return fn


def _basic(extra=()):
    """2-D, 3-D, non-contiguous, transposed, zero-size and a large sample, plus `extra`."""
    def samples(dtype):
        return [
            Sample([T((3, 4))], name="2d"),
            Sample([T((2, 3, 4))], name="3d"),
            Sample([T((4, 6), noncontig=True)], name="noncontig"),
            Sample([T((3, 4, 5), transpose=True)], name="transposed"),
            Sample([T((0, 3))], name="zero-size"),
            Sample([T((300, 257))], name="large"),
            *extra,
        ]
    return samples


def _with_args(*arg_sets, scalar=None, large=None, zero=True):
    """One sample per (args, kwargs) set over a [2, 3, 4] tensor, contiguous, transposed and
    non-contiguous; a zero-size [2, 0, 4] one with the first set; a 0-dim one with `scalar`
    and a [64, 40, 50] one with `large` arguments."""
    def samples(dtype):
        out = []
        for i, (args, kw) in enumerate(arg_sets):
            out.append(Sample([T((2, 3, 4)), *args], kw, name=f"args{i}"))
            out.append(Sample([T((2, 3, 4), transpose=True), *args], kw, name=f"args{i}-transposed"))
            out.append(Sample([T((2, 3, 4), noncontig=True), *args], kw, name=f"args{i}-noncontig"))
        if zero:
            out.append(Sample([T((2, 0, 4)), *arg_sets[0][0]], arg_sets[0][1], name="zero-size"))
        if scalar is not None:
            out.append(Sample([T(()), *scalar[0]], scalar[1], name="scalar"))
        if large is not None:
            out.append(Sample([T((64, 40, 50)), *large[0]], large[1], name="large"))
        return out
    return samples


def _list_samples(dtype):
    return [
        Sample([[T((2, 3)), T((2, 3), seed=1)]], name="2d"),
        Sample([[T((3,)), T((3,), seed=1)]], name="1d"),
        Sample([[T(()), T((), seed=1)]], name="0d"),
        Sample([[T((2, 3, 4)), T((2, 3, 4), seed=1, transpose=False)]], name="3d"),
        Sample([[T((2, 3), noncontig=True), T((2, 3), seed=1, transpose=True)]], name="noncontig"),
        Sample([[T((300, 200)), T((300, 200), seed=1)]], name="large"),
    ]


def _split_results(fn):
    """A function returning a tuple of views: also checks that each result is a view."""
    def wrapped(lib, a, *args, **kw):
        parts = fn(lib, a, *args, **kw)
        assert isinstance(parts, tuple), type(parts)
        return parts
    return wrapped


def _repeat_samples(dtype):
    return [
        Sample([T((2, 3)), (2, 1)], name="2d"),
        Sample([T((2, 3)), (2, 1, 3)], name="more-dims"),
        Sample([T(()), (2, 3)], name="scalar"),
        Sample([T(()), ()], name="scalar-empty"),
        Sample([T((2, 3)), (2, 0)], name="zero-repeat"),
        Sample([T((4, 6), noncontig=True), (1, 2)], name="noncontig"),
        Sample([T((3, 4), transpose=True), (2, 2)], name="transposed"),
        Sample([T((200, 100)), (3, 2)], name="large"),
    ]


def _tile_samples(dtype):
    return [
        Sample([T((2, 3)), (2,)], name="fewer-dims"),
        Sample([T((2, 3)), (2, 1, 1)], name="more-dims"),
        Sample([T((2, 3)), ()], name="empty"),
        Sample([T(()), (3,)], name="scalar"),
        Sample([T((4, 6), noncontig=True), (2, 2)], name="noncontig"),
        Sample([T((200, 100)), (3,)], name="large"),
    ]


def _ri_samples(dtype):
    return [
        Sample([T((2, 3)), 2], name="flat"),
        Sample([T((2, 3)), 2], {"dim": 0}, name="dim0"),
        Sample([T((2, 3)), 3], {"dim": -1}, name="dim-last"),
        Sample([T((2, 3)), "T[1,2]"], {"dim": 0}, name="tensor-repeats"),
        Sample([T((2, 3)), "T[2]"], {"dim": 1}, name="one-repeat-broadcast"),
        Sample([T((2, 3)), "T[0,3,1]"], {"dim": 1, "output_size": 4}, name="output-size"),
        Sample([T(()), 3], name="scalar"),
        Sample([T((4, 6), noncontig=True), 2], {"dim": 1}, name="noncontig"),
        Sample([T((300, 100)), 3], {"dim": 0}, name="large"),
    ]


def _repeat_interleave(lib, a, r, **kw):
    if isinstance(r, str):  # "T[...]": a repeats tensor
        r = lib.tensor(eval(r[1:]))
    return lib.repeat_interleave(a, r, **kw)


def _tri_samples(dtype):
    return [
        Sample([T((4, 5))], name="square-ish"),
        Sample([T((4, 5)), 1], name="k1"),
        Sample([T((4, 5)), -2], name="k-2"),
        Sample([T((4, 5)), 10], name="k-large"),
        Sample([T((4, 5)), -10], name="k-small"),
        Sample([T((2, 3, 4))], name="batched"),
        Sample([T((3, 4, 5), transpose=True), 1], name="transposed"),
        Sample([T((4, 6), noncontig=True)], name="noncontig"),
        Sample([T((2, 0, 3))], name="zero-size"),
        Sample([T((400, 300)), 5], name="large"),
    ]


def _tri_errors():
    return [ErrorSample([T((3,))], {}, IndexError, "Dimension out of range")]


def _diag_samples(dtype):
    return [
        Sample([T((4,))], name="1d"),
        Sample([T((4,)), 2], name="1d-k2"),
        Sample([T((4,)), -1], name="1d-k-1"),
        Sample([T((3, 5))], name="2d"),
        Sample([T((3, 5)), 2], name="2d-k2"),
        Sample([T((3, 5)), -1], name="2d-k-1"),
        Sample([T((4, 6), noncontig=True), 1], name="noncontig"),
        Sample([T((0,))], name="empty"),
        Sample([T((500,))], name="large"),
    ]


def _stack_out_samples(dtype):
    return [Sample([[T((2, 3)), T((2, 3), seed=1)]])]


def _atleast_samples(dtype):
    return [
        Sample([T(())], name="0d"),
        Sample([T((3,))], name="1d"),
        Sample([T((2, 3))], name="2d"),
        Sample([T((2, 3, 4))], name="3d"),
        Sample([T((1, 2, 3, 4))], name="4d"),
        Sample([T(()), T((3,), seed=1)], name="varargs"),
        Sample([[T(()), T((2, 3), seed=1)]], name="sequence"),
    ]


def _meshgrid_samples(dtype):
    return [
        Sample([T((3,)), T((2,), seed=1)], {"indexing": "ij"}, name="ij"),
        Sample([T((3,)), T((2,), seed=1)], {"indexing": "xy"}, name="xy"),
        Sample([T((3,)), T((2,), seed=1), T((4,), seed=2)], {"indexing": "xy"}, name="xy-3"),
        Sample([T(()), T((2,), seed=1)], {"indexing": "ij"}, name="scalar"),
        Sample([[T((3,)), T((2,), seed=1)]], {"indexing": "ij"}, name="list"),
        Sample([T((3,))], {"indexing": "xy"}, name="single"),
    ]


ROWS = [
    # ---------------------------------------------------------------- flips and rotations
    OpInfo("flip", _op("flip"), ALL_DTYPES,
           _with_args((((0,),), {}), (((0, 2),), {}), (((-1, 1),), {}), (((),), {}),
                      scalar=(((0,),), {}), large=(((0, 2),), {})),
           lambda: [ErrorSample([T((2, 3)), (0, 0)], {}, RuntimeError, "appears multiple times"),
                    ErrorSample([T((2, 3)), (2,)], {}, IndexError, "Dimension out of range")]),
    OpInfo("flip_method", lambda lib, a, *dims: a.flip(*dims), ALL_DTYPES,
           lambda d: [Sample([T((2, 3, 4)), 0, 2]), Sample([T((2, 3, 4)), (1,)]), Sample([T((2, 3)), [0, 1]])]),
    OpInfo("fliplr", _op("fliplr"), ALL_DTYPES, _basic(),
           lambda: [ErrorSample([T((3,))], {}, RuntimeError, "Input must be >= 2-d")]),
    OpInfo("flipud", _op("flipud"), ALL_DTYPES, _basic((Sample([T((5,))], name="1d"),)),
           lambda: [ErrorSample([T(())], {}, RuntimeError, "Input must be >= 1-d")]),
    OpInfo("roll", _op("roll"), ALL_DTYPES,
           _with_args(((1, 0), {}), ((-2, 1), {}), (((1, 2), (0, 2)), {}), ((5,), {}), (((1, 1), (1, 1)), {}),
                      scalar=((1,), {}), large=(((7, -3), (0, 2)), {})),
           lambda: [ErrorSample([T((2, 3)), (1, 2), (0,)], {}, RuntimeError, "shifts and dimensions must align"),
                    ErrorSample([T((2, 3)), 1, 2], {}, IndexError, "Dimension out of range"),
                    ErrorSample([T(()), 1, 0], {}, IndexError, "no dimensions")]),
    OpInfo("rot90", _op("rot90"), ALL_DTYPES,
           _with_args(((), {}), ((1, (0, 2)), {}), ((2, (1, 2)), {}), ((-1, (2, 1)), {}), ((4,), {}),
                      large=((3, (0, 1)), {})),
           lambda: [ErrorSample([T((2, 3)), 1, (0, 0)], {}, RuntimeError, "rotation dims to be different"),
                    ErrorSample([T((2, 3)), 1, (0,)], {}, RuntimeError, "total rotation dims == 2"),
                    ErrorSample([T((3,))], {}, RuntimeError, "total dims >= 2")]),
    # ---------------------------------------------------------------- repeats
    OpInfo("repeat", lambda lib, a, reps: a.repeat(reps), ALL_DTYPES, _repeat_samples,
           lambda: [ErrorSample([T((2, 3)), (2,)], {}, RuntimeError, "can not be smaller"),
                    ErrorSample([T((2, 3)), (-1, 1)], {}, RuntimeError, "negative dimension"),
                    ErrorSample([T((2, 3)), (2 ** 40, 2 ** 40)], {}, RuntimeError, "overflow")]),
    OpInfo("repeat_varargs", lambda lib, a: a.repeat(2, 1, 3), ALL_DTYPES, lambda d: [Sample([T((2, 3))])]),
    OpInfo("tile", _op("tile"), ALL_DTYPES, _tile_samples,
           lambda: [ErrorSample([T((2, 3)), (-1,)], {}, RuntimeError, "negative dimension")]),
    OpInfo("tile_method", lambda lib, a: a.tile(2, 2), ALL_DTYPES, lambda d: [Sample([T((2, 3))])]),
    OpInfo("repeat_interleave", _repeat_interleave, ALL_DTYPES, _ri_samples,
           lambda: [ErrorSample([T((2, 3)), -1], {}, RuntimeError, "can not be negative"),
                    ErrorSample([T((2, 3)), 2 ** 62], {"dim": 0}, RuntimeError, "overflow"),
                    ErrorSample([T(()), 2], {"dim": 0}, IndexError, "no dimensions"),
                    ErrorSample([T((2, 3)), "T[1,2]"], {"dim": 1}, RuntimeError, "same size as input along dim"),
                    ErrorSample([T((2, 3)), "T[1,-2]"], {"dim": 0}, RuntimeError, "can not be negative"),
                    ErrorSample([T((2, 3)), "T[1.0,2.0]"], {"dim": 0}, RuntimeError, "not implemented"),
                    ErrorSample([T((2, 3)), "T[[1,2]]"], {"dim": 0}, RuntimeError, "0-dim or 1-dim"),
                    ErrorSample([T((2, 3)), "T[1,2]"], {"dim": 0, "output_size": 4}, RuntimeError,
                                "allocated size does not match")]),
    OpInfo("repeat_interleave_index", lambda lib, a: lib.repeat_interleave(a), ("int32", "int64"),
           lambda d: [Sample([T((5,), 0, 3)]), Sample([T((0,))]), Sample([T((4000,), 0, 5)], name="large")],
           lambda: [ErrorSample([T((2,), dtype="int64", low=-2, high=-1)], {}, RuntimeError, "can not be negative"),
                    ErrorSample([T((), dtype="int64")], {}, RuntimeError, "1D vector")]),
    OpInfo("repeat_interleave_method", lambda lib, a: a.repeat_interleave(2, dim=1), ALL_DTYPES,
           lambda d: [Sample([T((2, 3))])]),
    # ---------------------------------------------------------------- triangles and diagonals
    OpInfo("tril", _op("tril"), ALL_DTYPES, _tri_samples, _tri_errors),
    OpInfo("triu", _op("triu"), ALL_DTYPES, _tri_samples, _tri_errors),
    OpInfo("tril_inplace", _inplace("tril_"), ALL_DTYPES, _tri_samples, _tri_errors),
    OpInfo("triu_inplace", _inplace("triu_"), ALL_DTYPES, _tri_samples, _tri_errors),
    OpInfo("tril_out", _out_call("tril"), ALL_DTYPES, lambda d: [Sample([T((4, 5)), 1]), Sample([T((2, 3, 4))])]),
    OpInfo("triu_out", _out_call("triu"), ALL_DTYPES, lambda d: [Sample([T((4, 5)), -1])],
           lambda: [ErrorSample([T((3,))], {}, IndexError, "Dimension out of range")]),
    OpInfo("diag", _op("diag"), ALL_DTYPES, _diag_samples,
           lambda: [ErrorSample([T(())], {}, RuntimeError, "matrix or a vector expected"),
                    ErrorSample([T((3,)), 2 ** 62], {}, RuntimeError, "overflow"),
                    ErrorSample([T((2, 2, 2))], {}, RuntimeError, "matrix or a vector expected")]),
    OpInfo("diag_out", _out_call("diag"), ALL_DTYPES, lambda d: [Sample([T((4,)), 1]), Sample([T((3, 5)), -1])]),
    OpInfo("diag_embed", _op("diag_embed"), ALL_DTYPES,
           lambda d: [Sample([T((3,))]), Sample([T((2, 3)), 1]), Sample([T((2, 3)), -1, 0, 2]),
                      Sample([T((2, 3)), 0, -3, -1]), Sample([T((4, 6), noncontig=True), 2]),
                      Sample([T((2, 0))]), Sample([T((50, 60))], name="large")],
           lambda: [ErrorSample([T((2, 3)), 0, 0, 0], {}, RuntimeError, "cannot be identical"),
                    ErrorSample([T((2, 3)), 0, 0, 3], {}, IndexError, "Dimension out of range")]),
    OpInfo("diagflat", _op("diagflat"), ALL_DTYPES,
           lambda d: [Sample([T((2, 3))]), Sample([T((2, 3)), -1]), Sample([T(())]), Sample([T((0,))]),
                      Sample([T((4, 6), noncontig=True), 2])]),
    OpInfo("narrow_copy", _op("narrow_copy"), ALL_DTYPES,
           lambda d: [Sample([T((3, 5)), 1, 1, 3]), Sample([T((3, 5)), 0, -2, 2]), Sample([T((3, 5)), 1, 5, 0]),
                      Sample([T((4, 6), noncontig=True), 1, 0, 2]), Sample([T((300, 300)), 1, 10, 200])],
           lambda: [ErrorSample([T((3, 5)), 1, 2, 4], {}, RuntimeError, "exceeds dimension size"),
                    ErrorSample([T(()), 0, 0, 1], {}, RuntimeError, "0-dim")]),
    OpInfo("narrow_copy_out", _out_call("narrow_copy"), ALL_DTYPES, lambda d: [Sample([T((3, 5)), 1, 1, 3])]),
    # ---------------------------------------------------------------- stacks
    *[OpInfo(n, _op(n), ALL_DTYPES, _list_samples,
             lambda n=n: [ErrorSample([[]], {}, RuntimeError, "expects a non-empty TensorList")])
      for n in ("hstack", "vstack", "row_stack", "dstack")],
    OpInfo("column_stack", _op("column_stack"), ALL_DTYPES,
           lambda d: _list_samples(d) + [Sample([[T((3, 2)), T((3,), seed=1)]], name="matrix-and-vector")],
           lambda: [ErrorSample([[T((2, 3)), T((3,), seed=1)]], {}, RuntimeError, "Sizes of tensors must match")]),
    OpInfo("hstack_mixed", _op("hstack"), ALL_DTYPES,
           lambda d: [Sample([[T((3,)), T((2,), seed=1, dtype="float64")]])]),
    *[OpInfo(n + "_out", _out_call(n), ALL_DTYPES, _stack_out_samples)
      for n in ("hstack", "vstack", "row_stack", "dstack", "column_stack")],
    # ---------------------------------------------------------------- splits (tuples of views)
    OpInfo("split", _split_results(_op("split")), ALL_DTYPES,
           _with_args(((2,), {}), ((2, 1), {}), (([1, 2], 1), {}), ((10, -1), {}), large=((7, 2), {})),
           lambda: [ErrorSample([T((7,)), 0], {}, RuntimeError, "split_size can only be 0"),
                    ErrorSample([T((7,)), [3, 3]], {}, RuntimeError, "to sum exactly to 7"),
                    ErrorSample([T(()), 1], {}, RuntimeError, "at least a 1-dimensional")]),
    OpInfo("split_with_sizes", _split_results(_method("split_with_sizes")), ALL_DTYPES,
           _with_args((([1, 1],), {}), (([1, 0, 2], 1), {}), large=(([30, 34],), {})),
           lambda: [ErrorSample([T((7,)), [3, -1, 5]], {}, RuntimeError, "non-negative entries")]),
    OpInfo("chunk", _split_results(_op("chunk")), ALL_DTYPES,
           _with_args(((2,), {}), ((3, 2), {}), ((10, -1), {}), large=((7, 1), {})),
           lambda: [ErrorSample([T((7,)), 0], {}, RuntimeError, "greater than 0"),
                    ErrorSample([T(()), 1], {}, RuntimeError, "at least a 1-dimensional")]),
    OpInfo("tensor_split", _split_results(_op("tensor_split")), ALL_DTYPES,
           _with_args(((3,), {}), (([1, 5],), {"dim": 2}), (([3, 1, -1], 1), {}), large=((6, 2), {})),
           lambda: [ErrorSample([T((7,)), 0], {}, RuntimeError, "larger than 0"),
                    ErrorSample([T(()), 2], {}, RuntimeError, "at least a 1-dimensional")]),
    OpInfo("tensor_split_tensor", _split_results(lambda lib, a, spec, dim=0: lib.tensor_split(
           a, lib.tensor(spec), dim)), ALL_DTYPES,
           lambda d: [Sample([T((7, 3)), 3]), Sample([T((7, 3)), [1, 4]]), Sample([T((3, 7)), [2], 1])],
           lambda: [ErrorSample([T((7,)), [[1]]], {}, RuntimeError, "zero-dimensional or one-dimensional"),
                    ErrorSample([T((7,)), [1.0]], {}, RuntimeError, "dtype of long")]),
    OpInfo("hsplit", _split_results(_op("hsplit")), ALL_DTYPES,
           lambda d: [Sample([T((6,)), 3]), Sample([T((2, 6)), 2]), Sample([T((2, 6)), [1, 4]]),
                      Sample([T((2, 6, 3)), [5]])],
           lambda: [ErrorSample([T((2, 6)), 4], {}, RuntimeError, "not divisible"),
                    ErrorSample([T(())], {"sections": 1}, RuntimeError, "at least 1 dimension")]),
    OpInfo("vsplit", _split_results(_op("vsplit")), ALL_DTYPES,
           lambda d: [Sample([T((4, 3)), 2]), Sample([T((4, 3)), [1, 3]])],
           lambda: [ErrorSample([T((4,)), 2], {}, RuntimeError, "at least 2 dimension")]),
    OpInfo("dsplit", _split_results(_op("dsplit")), ALL_DTYPES,
           lambda d: [Sample([T((2, 3, 4)), 2]), Sample([T((2, 3, 4)), [3]])],
           lambda: [ErrorSample([T((2, 3)), 1], {}, RuntimeError, "at least 3 dimension")]),
    OpInfo("unbind", _split_results(_op("unbind")), ALL_DTYPES,
           _with_args(((), {}), ((1,), {}), ((-1,), {})),
           lambda: [ErrorSample([T(())], {}, IndexError, "no dimensions"),
                    ErrorSample([T((2, 3)), 2], {}, IndexError, "Dimension out of range")]),
    # ---------------------------------------------------------------- dims and broadcasting (views)
    OpInfo("movedim", _op("movedim"), ALL_DTYPES,
           _with_args(((0, 2), {}), (((0, 1), (2, 0)), {}), ((-1, 0), {}), scalar=((0, 0), {})),
           lambda: [ErrorSample([T((2, 3, 4)), (0, 0), (1, 2)], {}, RuntimeError, "repeated dim in `source`"),
                    ErrorSample([T((2, 3, 4)), (0, 1), (1, 1)], {}, RuntimeError, "repeated dim in `destination`"),
                    ErrorSample([T((2, 3, 4)), (0,), (1, 2)], {}, RuntimeError, "same number of dims"),
                    ErrorSample([T((2, 3, 4)), 3, 0], {}, IndexError, "Dimension out of range")]),
    OpInfo("moveaxis", _op("moveaxis"), ALL_DTYPES, _with_args(((2, 0), {}), (((0, 2), (1, 0)), {}))),
    OpInfo("swapaxes", _op("swapaxes"), ALL_DTYPES, _with_args(((0, 2), {}), ((-1, 1), {})),
           lambda: [ErrorSample([T((2, 3)), 0, 2], {}, IndexError, "Dimension out of range")]),
    OpInfo("swapdims", _op("swapdims"), ALL_DTYPES, _with_args(((1, 2), {}))),
    OpInfo("broadcast_to", _op("broadcast_to"), ALL_DTYPES,
           lambda d: [Sample([T((2, 3)), (4, 2, 3)]), Sample([T((3, 1)), (3, 5)]), Sample([T(()), (2, 2)]),
                      Sample([T((2, 3)), (-1, 3)])],
           lambda: [ErrorSample([T((2, 3)), (3,)], {}, RuntimeError, ""),
                    ErrorSample([T((2, 3)), (2, 4)], {}, RuntimeError, "")]),
    OpInfo("broadcast_tensors", _op("broadcast_tensors"), ALL_DTYPES,
           lambda d: [Sample([T((2, 3)), T((3,), seed=1)]), Sample([T((3, 1)), T((1, 4), seed=1), T((), seed=2)])],
           lambda: [ErrorSample([T((2, 3)), T((2,), seed=1)], {}, RuntimeError, "")]),
    OpInfo("meshgrid", _op("meshgrid"), ALL_DTYPES, _meshgrid_samples,
           lambda: [ErrorSample([T((3,)), T((2, 2), seed=1)], {"indexing": "ij"}, RuntimeError, "0D or 1D"),
                    ErrorSample([T((3,))], {"indexing": "foo"}, RuntimeError, "indexing must be one of"),
                    ErrorSample([T((3,)), T((2,), dtype="float64")], {"indexing": "ij"}, RuntimeError, "same dtype")]),
    *[OpInfo(n, _op(n), ALL_DTYPES, _atleast_samples) for n in ("atleast_1d", "atleast_2d", "atleast_3d")],
    OpInfo("ravel", _op("ravel"), ALL_DTYPES, _basic((Sample([T(())], name="scalar"),))),
]
