"""Op-table rows of indexing along a dim and by masks: gather / scatter / scatter_add /
scatter_reduce / take_along_dim, index_select / index_add / index_copy / index_fill,
take / put, masked_fill / masked_scatter, argwhere, where(condition), nonzero(as_tuple),
index_put_ with accumulate.

Index tensors are int64 built the same way for both libraries: from an explicit list, a
seeded NumPy array, or a T(..., dtype="int64") with values in the valid range (which also
gives non-contiguous and transposed indices). Out-of-range indices must raise the exception
class PyTorch raises (it differs between these ops) and leave every input unchanged.
"""
import numpy as np

from op_testing import ALL_DTYPES, COMPLEX, REAL, ErrorSample, OpInfo, Sample, T

NO_BOOL = tuple(d for d in ALL_DTYPES if d != "bool")


def _idx(lib, a):
    """An int64 index of `lib` from a list / NumPy array (or the tensor itself)."""
    if isinstance(a, (list, tuple, np.ndarray, int)):
        return lib.from_numpy(np.array(a, dtype=np.int64))
    return a


def _rand_idx(shape, high, seed, unique=False):
    g = np.random.default_rng(seed)
    if unique:
        return g.permutation(high)[: int(np.prod(shape))].reshape(shape)
    return g.integers(0, high, size=shape)


def _mask(shape, seed=0):
    return np.random.default_rng(seed).random(shape) > 0.5


def _m(lib, m):
    return lib.from_numpy(np.array(m, dtype=bool))


def _out_call(name):
    """lib.name(*args, out=fresh) (out of self's dtype), checking the out tensor is returned."""
    def fn(lib, a, *args, **kw):
        out = lib.empty(0, dtype=a.dtype)
        r = getattr(lib, name)(a, *[_idx(lib, x) if isinstance(x, np.ndarray) else x for x in args], out=out, **kw)
        assert r is out
        return out
    return fn


def _inplace(name):
    """a.clone().name_(...): the in-place form, on a copy."""
    def fn(lib, a, *args, **kw):
        b = a.clone()
        r = getattr(b, name)(*args, **kw)
        assert r is b
        return b
    return fn


# ---------------------------------------------------------------- gather and friends
def _gather(lib, a, dim, idx, **kw):
    return lib.gather(a, dim, _idx(lib, idx), **kw)


def _gather_samples(dtype):
    return [
        Sample([T((3, 4)), 1, [[0, 3], [2, 1], [1, 1]]], name="dim1"),
        Sample([T((3, 4)), 0, [[0, 2, 1, 0], [2, 2, 2, 2]]], name="dim0"),
        Sample([T((3, 4)), -1, [[3]]], name="smaller-index"),
        Sample([T(()), 0, 0], name="scalar"),
        Sample([T(()), 0, [0, 0]], name="scalar-self"),
        Sample([T((5,)), 0, 3], name="scalar-index"),
        Sample([T((3, 4)), 1, np.zeros((3, 0), dtype=np.int64)], name="zero-size"),
        Sample([T((4, 6), noncontig=True), 1, T((4, 3), 0, 5, dtype="int64", seed=3)], name="noncontig"),
        Sample([T((4, 5), transpose=True), 0, T((3, 5), 0, 3, dtype="int64", transpose=True, seed=4)],
               name="transposed"),
        Sample([T((3, 4, 5)), 1, T((2, 4, 5), 0, 3, dtype="int64", seed=5)], name="3d"),
        Sample([T((300, 300)), 1, _rand_idx((300, 300), 300, 1)], name="large-dim1"),
        Sample([T((300, 300)), 0, _rand_idx((300, 300), 300, 2)], name="large-dim0"),
        Sample([T((70000,)), 0, _rand_idx((70000,), 70000, 3)], name="large-1d"),
    ]


def _gather_errors():
    return [
        ErrorSample([T((2, 3)), 1, [[0, 3]]], {}, RuntimeError, "index 3 is out of bounds for dimension 1 with size 3"),
        ErrorSample([T((2, 3)), 1, [[0, -1]]], {}, RuntimeError, "index -1 is out of bounds"),
        ErrorSample([T((2, 3)), 1, [0]], {}, RuntimeError, "same number of dimensions"),
        ErrorSample([T((2, 3)), 1, np.zeros((3, 1), dtype=np.int64)], {}, RuntimeError, "Size does not match"),
        ErrorSample([T((2, 3)), 2, [[0]]], {}, IndexError, "Dimension out of range"),
    ]


def _gather_int32_error():
    return [ErrorSample([T((2, 3)), T((1, 1), 0, 0, dtype="int32")], {}, RuntimeError, "int64")]


# ---------------------------------------------------------------- scatter
def _scatter(lib, a, dim, idx, src, **kw):
    return lib.scatter(a, dim, _idx(lib, idx), src, **kw)


def _scatter_src_samples(dtype, unique_large=True):
    return [
        Sample([T((3, 5)), 1, [[0, 4], [2, 1], [3, 3]], T((3, 2), seed=1)], name="dim1"),
        Sample([T((3, 5)), 0, [[0, 1, 2, 0, 1], [2, 0, 1, 1, 0]], T((2, 5), seed=1)], name="dim0"),
        Sample([T((3, 5)), 1, [[4]], T((2, 3), seed=1)], name="src-larger"),
        Sample([T(()), 0, 0, T((), seed=1)], name="scalar"),
        Sample([T((3, 4)), 1, np.zeros((0, 2), dtype=np.int64), T((1, 1), seed=1)], name="empty-index"),
        Sample([T((4, 6), noncontig=True), 1, T((4, 3), 0, 5, dtype="int64", seed=3), T((4, 3), seed=1, transpose=True)],
               name="noncontig"),
        Sample([T((3, 4, 5)), 2, T((3, 4, 2), 0, 4, dtype="int64", seed=5), T((3, 4, 2), seed=1)], name="3d"),
        Sample([T((300, 300)), 1, _rand_idx((300, 300), 300, 1), T((300, 300), seed=1)], name="large-dim1"),
        Sample([T((300, 300)), 0, _rand_idx((300, 300), 300, 2), T((300, 300), seed=1)], name="large-dim0"),
        Sample([T((70000,)), 0, _rand_idx((50000,), 70000, 3, unique=unique_large), T((50000,), seed=1)],
               name="large-1d"),
    ]


def _scatter_errors(fn_name="scatter"):
    return lambda: [
        ErrorSample([T((2, 3)), 1, [[0, 3]], T((1, 2), seed=1)], {}, RuntimeError, "index 3 is out of bounds"),
        ErrorSample([T((2, 3)), 1, [[0, -1]], T((1, 2), seed=1)], {}, RuntimeError, "index -1 is out of bounds"),
        ErrorSample([T((2, 3)), 1, [[0, 1, 2, 0]], T((1, 3), seed=1)], {}, RuntimeError, "smaller size than src"),
        ErrorSample([T((2, 3)), 1, [0], T((1, 2), seed=1)], {}, RuntimeError, "same number of dimensions"),
        ErrorSample([T((2, 3)), 1, [[0]], T((1, 1), seed=1, dtype="float64")], {}, RuntimeError,
                    "self.dtype to be equal to src.dtype"),
        ErrorSample([T((2, 3)), 3, [[0]], T((1, 1), seed=1)], {}, IndexError, "Dimension out of range"),
    ]


def _scatter_value(lib, a, dim, idx, value, **kw):
    return lib.scatter(a, dim, _idx(lib, idx), value, **kw)


def _scatter_value_samples(dtype):
    v = 1 if dtype in ("bool",) else 3
    return [
        Sample([T((3, 5)), 1, [[0, 4], [2, 1], [3, 3]], v], name="dim1"),
        Sample([T((3, 5)), 0, [[0, 1, 2, 0, 1]], v], name="dim0"),
        Sample([T(()), 0, 0, v], name="scalar"),
        Sample([T((4, 6), noncontig=True), 1, T((4, 3), 0, 5, dtype="int64", seed=3), v], name="noncontig"),
        Sample([T((300, 300)), 1, _rand_idx((300, 300), 300, 1), v], name="large"),
        Sample([T((70000,)), 0, _rand_idx((50000,), 70000, 3), v], name="large-1d"),
    ]


def _scatter_value_errors():
    return [
        ErrorSample([T((2, 3)), 1, [[0, 3]], 2.0], {}, RuntimeError, "index 3 is out of bounds"),
        ErrorSample([T((2, 3)), 1, [[0]], 1 + 2j], {}, RuntimeError, "value cannot be converted"),
        ErrorSample([T((2, 3), dtype="int8"), 1, [[0]], 300], {}, RuntimeError, "value cannot be converted"),
    ]


def _scatter_reduce_legacy(reduce):
    def fn(lib, a, dim, idx, src):
        return lib.scatter(a, dim, _idx(lib, idx), src, reduce=reduce)
    return fn


def _scatter_reduce_legacy_samples(dtype):
    small = [
        Sample([T((3, 5), -2, 2), 1, [[0, 0], [2, 2], [3, 1]], T((3, 2), -2, 2, seed=1)], name="dim1-dups"),
        Sample([T((3, 5), -2, 2), 0, [[0, 0, 2, 0, 1], [0, 1, 2, 1, 1]], T((2, 5), -2, 2, seed=1)], name="dim0-dups"),
        Sample([T((), -2, 2), 0, 0, T((), -2, 2, seed=1)], name="scalar"),
        Sample([T((200, 300), -1, 1), 1, _rand_idx((200, 300), 300, 1), T((200, 300), -1, 1, seed=1)], name="large"),
    ]
    return small


# scatter_reduce: per reduction its dtypes (PyTorch 1.13: mean lacks bool, amax/amin complex).
def _scatter_reduce(reduce):
    def fn(lib, a, dim, idx, src, **kw):
        return lib.scatter_reduce(a, dim, _idx(lib, idx), src, reduce, **kw)
    return fn


def _scatter_reduce_samples(dtype):
    out = []
    for include_self in (True, False):
        kw = {"include_self": include_self}
        tag = "" if include_self else "-exclude-self"
        out += [
            Sample([T((3, 5), -3, 3), 1, [[0, 0], [2, 2], [3, 1]], T((3, 2), -3, 3, seed=1)], kw, name="dim1" + tag),
            Sample([T((3, 5), -3, 3), 0, [[0, 0, 2, 0, 1], [0, 1, 2, 1, 1]], T((2, 5), -3, 3, seed=1)], kw,
                   name="dim0" + tag),
            Sample([T((), -3, 3), 0, 0, T((), -3, 3, seed=1)], kw, name="scalar" + tag),
            Sample([T((4, 6), -3, 3, noncontig=True), 1, T((4, 3), 0, 5, dtype="int64", seed=3),
                    T((4, 3), -3, 3, seed=1, transpose=True)], kw, name="noncontig" + tag),
            Sample([T((200, 300), -1, 1), 1, _rand_idx((200, 300), 300, 1), T((200, 300), -1, 1, seed=1)], kw,
                   name="large" + tag),
        ]
    return out


def _scatter_reduce_errors():
    return [
        ErrorSample([T((2, 3)), 1, [[0, 3]], T((1, 2), seed=1)], {}, RuntimeError, "index 3 is out of bounds"),
        ErrorSample([T((2, 3)), 1, [[0]], T((1, 1), seed=1, dtype="float64")], {}, RuntimeError, "src.dtype"),
    ]


def _scatter_reduce_bad_reduce(lib, a, dim, idx, src):
    return lib.scatter_reduce(a, dim, _idx(lib, idx), src, "max")


# ---------------------------------------------------------------- take_along_dim
def _take_along_dim(lib, a, idx, dim=None):
    return lib.take_along_dim(a, _idx(lib, idx), dim)


def _take_along_dim_samples(dtype):
    return [
        Sample([T((3, 4)), [[0, 3], [2, 1], [1, 1]], 1], name="dim1"),
        Sample([T((3, 4)), [[0], [2], [1]], 1], name="broadcast-index"),
        Sample([T((3, 1)), [[0, 0, 0, 0]], 0], name="broadcast-self"),
        Sample([T((3, 4)), [5, 0, 11]], name="flattened"),
        Sample([T(()), [0, 0]], name="scalar-flat"),
        Sample([T((4, 6), noncontig=True), T((4, 3), 0, 5, dtype="int64", seed=3), -1], name="noncontig"),
        Sample([T((300, 300)), _rand_idx((300, 300), 300, 1), 0], name="large"),
    ]


def _take_along_dim_errors():
    return [
        ErrorSample([T((2, 3)), [[0], [3]], 1], {}, RuntimeError, "index 3 is out of bounds"),
        ErrorSample([T((2, 3)), [[-1]], 1], {}, RuntimeError, "index -1 is out of bounds"),
        ErrorSample([T((2, 3)), [1], 1], {}, RuntimeError, "same number of dimensions"),
        ErrorSample([T((2, 3)), [[0, 1]], 0], {}, RuntimeError, "must match the size"),
        ErrorSample([T((2, 3)), [7]], {}, RuntimeError, "index 7 is out of bounds"),
    ]


# ---------------------------------------------------------------- index_select & co.
def _index_select(lib, a, dim, idx):
    return lib.index_select(a, dim, _idx(lib, idx))


def _index_select_samples(dtype):
    return [
        Sample([T((4, 5)), 0, [3, 0, 3]], name="dim0"),
        Sample([T((4, 5)), 1, [4, 0, 2, 2]], name="dim1"),
        Sample([T((2, 3, 4)), -1, [1, 3]], name="last"),
        Sample([T((4, 5)), 0, 2], name="scalar-index"),
        Sample([T(()), 0, [0]], name="scalar-self"),
        Sample([T((4, 5)), 1, np.zeros(0, dtype=np.int64)], name="empty-index"),
        Sample([T((0, 5)), 1, [1, 2]], name="zero-size-self"),
        Sample([T((4, 6), noncontig=True), 1, T((3,), 0, 5, dtype="int64", seed=3)], name="noncontig"),
        Sample([T((4, 5), transpose=True), 0, T((6,), 0, 3, dtype="int64", noncontig=True, seed=4)],
               name="transposed"),
        Sample([T((4, 5)), 0, T((3,), 0, 3, dtype="int32", seed=5)], name="int32-index"),
        Sample([T((70000,)), 0, _rand_idx((70000,), 70000, 1)], name="large-1d"),
        Sample([T((1000, 64)), 0, _rand_idx((900,), 1000, 2)], name="large-rows"),
        Sample([T((64, 1000)), 1, _rand_idx((900,), 1000, 3)], name="large-cols"),
    ]


def _index_select_errors():
    return [
        ErrorSample([T((4, 5)), 0, [4]], {}, IndexError, "index out of range in self"),
        ErrorSample([T((4, 5)), 0, [-1]], {}, IndexError, "index out of range in self"),
        # PyTorch's batched path for dim 1 raises a RuntimeError instead.
        ErrorSample([T((4, 5)), 1, [5]], {}, RuntimeError, "out of DATA bounds"),
        ErrorSample([T((4, 5)), 0, [[0]]], {}, IndexError, "supposed to be a vector"),
        ErrorSample([T((4, 5)), 2, [0]], {}, IndexError, "Dimension out of range"),
        ErrorSample([T((0, 5)), 0, [0]], {}, RuntimeError, "axis dim should be positive"),
        ErrorSample([T((5,)), 0, [5]], {}, IndexError, "index out of range in self"),
    ]


def _index_select_float_index(lib, a):
    return lib.index_select(a, 0, lib.tensor([0.0]))


def _index_add(lib, a, dim, idx, src, **kw):
    return lib.index_add(a, dim, _idx(lib, idx), src, **kw)


def _index_add_samples(dtype):
    alpha = {"bool": True}.get(dtype, 2)
    return [
        Sample([T((4, 5)), 0, [3, 0, 3], T((3, 5), seed=1)], name="dim0-dups"),
        Sample([T((4, 5)), 1, [4, 0], T((4, 2), seed=1)], name="dim1"),
        Sample([T((4, 5)), 1, [4, 0], T((4, 2), seed=1)], {"alpha": alpha}, name="alpha"),
        Sample([T((4, 5)), 0, [1, 2], T((2, 1), seed=1)], name="broadcast-source"),
        Sample([T(()), 0, [0], T((), seed=1)], name="scalar"),
        Sample([T((5,)), 0, 2, T((), seed=1)], name="scalar-index-and-source"),
        Sample([T((4, 5)), 0, np.zeros(0, dtype=np.int64), T((0, 5), seed=1)], name="empty-index"),
        Sample([T((4, 6), noncontig=True), 1, [5, 1, 1], T((4, 3), seed=1, transpose=True)], name="noncontig"),
        Sample([T((4, 5)), 0, T((3,), 0, 3, dtype="int32", seed=5), T((3, 5), seed=1)], name="int32-index"),
        Sample([T((70000,), -1, 1), 0, _rand_idx((50000,), 70000, 1), T((50000,), -1, 1, seed=1)], name="large-1d"),
        Sample([T((500, 64), -1, 1), 0, _rand_idx((900,), 500, 2), T((900, 64), -1, 1, seed=1)], name="large-rows"),
    ]


def _index_add_errors():
    return [
        ErrorSample([T((4, 5)), 0, [4], T((1, 5), seed=1)], {}, IndexError, "index out of range in self"),
        ErrorSample([T((4, 5)), 0, [-1], T((1, 5), seed=1)], {}, IndexError, "index out of range in self"),
        ErrorSample([T((4, 5)), 0, [0], T((2, 5), seed=1)], {}, RuntimeError, "Number of indices"),
        ErrorSample([T((4, 5)), 0, [0, 1], T((2, 4), seed=1)], {}, RuntimeError, "must match the size of tensor b"),
        ErrorSample([T((4, 5)), 0, [0], T((1, 5), seed=1, dtype="float64")], {}, RuntimeError, "same scalar type"),
        ErrorSample([T((4, 5)), 0, [[0]], T((1, 5), seed=1)], {}, IndexError, "supposed to be a vector"),
    ]


def _index_copy(lib, a, dim, idx, src):
    return lib.index_copy(a, dim, _idx(lib, idx), src)


def _index_copy_samples(dtype):
    return [
        Sample([T((4, 5)), 0, [3, 0], T((2, 5), seed=1)], name="dim0"),
        Sample([T((4, 5)), 1, [4, 0, 2], T((4, 3), seed=1)], name="dim1"),
        Sample([T((4, 5)), 0, [1, 1], T((2, 5), seed=1)], name="dups-last-wins"),
        Sample([T(()), 0, [0], T((), seed=1)], name="scalar"),
        Sample([T((5,)), 0, 2, T((), seed=1)], name="scalar-source"),
        Sample([T((4, 6), noncontig=True), 1, [5, 1], T((4, 2), seed=1, transpose=True)], name="noncontig"),
        Sample([T((4, 5)), 0, np.zeros(0, dtype=np.int64), T((0, 5), seed=1)], name="empty-index"),
        Sample([T((70000,)), 0, _rand_idx((50000,), 70000, 1, unique=True), T((50000,), seed=1)], name="large-1d"),
        Sample([T((500, 64)), 0, _rand_idx((300,), 500, 2, unique=True), T((300, 64), seed=1)], name="large-rows"),
    ]


def _index_copy_errors():
    return [
        ErrorSample([T((4, 5)), 0, [4], T((1, 5), seed=1)], {}, IndexError, "index 4 is out of bounds"),
        ErrorSample([T((4, 5)), 0, [-1], T((1, 5), seed=1)], {}, IndexError, "index -1 is out of bounds"),
        ErrorSample([T((4, 5)), 0, [0, 1], T((2, 4), seed=1)], {}, RuntimeError, "same slice shapes"),
        ErrorSample([T((4, 5)), 0, [0, 1], T((3, 5), seed=1)], {}, IndexError, "Number of indices"),
        ErrorSample([T((4, 5)), 0, [0], T((1, 5), seed=1, dtype="float64")], {}, RuntimeError, "same dtype"),
        ErrorSample([T((4, 5)), 0, [0, 1], T((5,), seed=1)], {}, IndexError, "dimensionality must match"),
    ]


def _index_fill(lib, a, dim, idx, value):
    return lib.index_fill(a, dim, _idx(lib, idx), value)


def _index_fill_tensor(lib, a, dim, idx, value):
    return lib.index_fill(a, dim, _idx(lib, idx), lib.tensor(value))


def _index_fill_samples(dtype):
    v = True if dtype == "bool" else (1 + 2j if dtype in COMPLEX else 3)
    return [
        Sample([T((4, 5)), 0, [3, 0, 3], v], name="dim0"),
        Sample([T((4, 5)), 1, [-1, 0], v], name="negative"),
        Sample([T(()), 0, [0, -1], v], name="scalar"),
        Sample([T((4, 6), noncontig=True), 1, [5, 1], v], name="noncontig"),
        Sample([T((4, 5)), 1, 2, v], name="scalar-index"),
        Sample([T((300, 300)), 1, _rand_idx((100,), 300, 1), v], name="large"),
    ]


def _index_fill_errors():
    return [
        ErrorSample([T((4, 5)), 0, [4], 1.0], {}, IndexError, "index 4 is out of bounds"),
        ErrorSample([T((4, 5)), 0, [-5], 1.0], {}, IndexError, "index -5 is out of bounds"),
        ErrorSample([T((4, 5)), 0, [[0]], 1.0], {}, RuntimeError, "vector/scalar"),
        ErrorSample([T((4, 5)), 0, [0], 1 + 2j], {}, RuntimeError, "complex Scalar to non-complex"),
        ErrorSample([T((4, 5), dtype="int32"), 0, [0], 2 ** 40], {}, RuntimeError, "value cannot be converted"),
    ]


# ---------------------------------------------------------------- take, put
def _take(lib, a, idx):
    return lib.take(a, _idx(lib, idx))


def _take_samples(dtype):
    return [
        Sample([T((3, 4)), [[0, 11], [-1, -12]]], name="2d-index"),
        Sample([T((3, 4)), 5], name="scalar-index"),
        Sample([T(()), [0, -1]], name="scalar-self"),
        Sample([T((4, 6), noncontig=True), T((2, 3), 0, 11, dtype="int64", transpose=True)], name="noncontig"),
        Sample([T((0,)), np.zeros(0, dtype=np.int64)], name="empty"),
        Sample([T((300, 300)), _rand_idx((70000,), 90000, 1)], name="large"),
    ]


def _take_errors():
    return [
        ErrorSample([T((2, 3)), [6]], {}, IndexError, "tried to access index 6 on a tensor of 6 elements"),
        ErrorSample([T((2, 3)), [-7]], {}, IndexError, "tried to access index -7"),
        ErrorSample([T((0,)), [0]], {}, IndexError, "empty tensor"),
    ]


def _put(lib, a, idx, src, **kw):
    return lib.put(a, _idx(lib, idx), src, **kw)


def _put_samples(dtype):
    return [
        Sample([T((3, 4)), [[0, 11], [-1, 5]], T((2, 2), seed=1)], name="2d"),
        Sample([T((3, 4)), [0, 0, 3], T((3,), seed=1)], {"accumulate": True}, name="accumulate-dups"),
        Sample([T((3, 4)), [0, 0], T((2,), seed=1)], name="dups-last-wins"),
        Sample([T(()), [0], T((1,), seed=1)], name="scalar"),
        Sample([T((4, 6), noncontig=True), [1, 7], T((2,), seed=1)], name="noncontig-self"),
        Sample([T((300, 300)), _rand_idx((70000,), 90000, 1, unique=True), T((70000,), seed=1)], name="large"),
        Sample([T((300, 300), -1, 1), _rand_idx((70000,), 90000, 2), T((70000,), -1, 1, seed=1)],
               {"accumulate": True}, name="large-accumulate"),
    ]


def _put_errors():
    return [
        ErrorSample([T((2, 3)), [6], T((1,), seed=1)], {}, IndexError, "tried to access index 6"),
        ErrorSample([T((2, 3)), [0, 1], T((3,), seed=1)], {}, IndexError, "same number of elements"),
        ErrorSample([T((2, 3)), [0], T((1,), seed=1, dtype="float64")], {}, RuntimeError, "same dtype"),
    ]


def _put_inplace(lib, a, idx, src, **kw):
    b = a.clone()
    r = b.put_(_idx(lib, idx), src, **kw)
    assert r is b
    return b


# ---------------------------------------------------------------- masks
def _masked_fill(lib, a, m, value):
    return lib.masked_fill(a, _m(lib, m), value)


def _masked_fill_samples(dtype):
    v = True if dtype == "bool" else (1 - 1j if dtype in COMPLEX else 2)
    return [
        Sample([T((3, 4)), _mask((3, 4)), v], name="same-shape"),
        Sample([T((3, 4)), _mask((4,), 1), v], name="broadcast-mask"),
        Sample([T((4,)), _mask((3, 4), 2), v], name="broadcast-self"),
        Sample([T(()), True, v], name="scalar"),
        Sample([T((4, 6), noncontig=True), _mask((4, 6), 3), v], name="noncontig"),
        Sample([T((0, 3)), _mask((0, 3)), v], name="zero-size"),
        Sample([T((300, 300)), _mask((300, 300), 4), v], name="large"),
    ]


def _masked_fill_errors():
    return [
        ErrorSample([T((2, 3)), [True, False], 1.0], {}, RuntimeError, "must match the size"),
        ErrorSample([T((2, 3)), [True, False, True], 1 + 2j], {}, RuntimeError, "value cannot be converted"),
        ErrorSample([T((2, 3), dtype="uint8"), [True, False, True], 300], {}, RuntimeError, "value cannot be converted"),
    ]


def _masked_fill_tensor(lib, a, m, value):
    return lib.masked_fill(a, _m(lib, m), lib.tensor(value))


def _masked_fill_inplace(lib, a, m, value):
    b = a.clone()
    r = b.masked_fill_(_m(lib, m), value)
    assert r is b
    return b


def _masked_scatter(lib, a, m, src):
    return lib.masked_scatter(a, _m(lib, m), src)


def _masked_scatter_samples(dtype):
    return [
        Sample([T((3, 4)), _mask((3, 4)), T((12,), seed=1)], name="same-shape"),
        Sample([T((3, 4)), _mask((4,), 1), T((3, 5), seed=1)], name="broadcast-mask"),
        Sample([T((4,)), _mask((3, 1), 2), T((20,), seed=1)], name="broadcast-self"),
        Sample([T(()), True, T((2,), seed=1)], name="scalar"),
        Sample([T((4, 6), noncontig=True), _mask((4, 6), 3), T((6, 4), seed=1, transpose=True)], name="noncontig"),
        Sample([T((300, 300)), _mask((300, 300), 4), T((90000,), seed=1)], name="large"),
    ]


def _masked_scatter_errors():
    return [
        ErrorSample([T((2, 3)), [True, True, True], T((5,), seed=1)], {}, RuntimeError, "Number of elements of source"),
        ErrorSample([T((2, 3)), [True, True, True], T((6,), seed=1, dtype="float64")], {}, RuntimeError, "same dtypes"),
    ]


def _masked_scatter_inplace(lib, a, m, src):
    b = a.clone()
    r = b.masked_scatter_(_m(lib, m), src)
    assert r is b
    return b


def _masked_scatter_inplace_errors():
    return [
        ErrorSample([T((2, 3)), [True, False], T((6,), seed=1)], {}, RuntimeError, "expanded size"),
        ErrorSample([T((2, 3)), [True, True, True], T((5,), seed=1)], {}, RuntimeError, "Number of elements of source"),
    ]


def _nz_samples(dtype):
    return [
        Sample([T((), -1, 1)], name="scalar"),
        Sample([T((3, 4), -1, 1)], name="2d"),
        Sample([T((0, 3))], name="zero-size"),
        Sample([T((4, 6), -1, 1, noncontig=True)], name="noncontig"),
        Sample([T((3, 4, 5), -1, 1, transpose=True)], name="transposed"),
        Sample([T((300, 300), -1, 1)], name="large"),
    ]


def _index_put_acc(lib, a, idx, values):
    b = a.clone()
    r = b.index_put_((_idx(lib, idx),), values, accumulate=True)
    assert r is b
    return b


def _index_put_acc_samples(dtype):
    return [
        Sample([T((5, 3)), [0, 4, 0, 0], T((4, 3), seed=1)], name="dups"),
        Sample([T((5,)), [1, 1], T((), seed=1)], name="broadcast-value"),
        Sample([T((70000,), -1, 1), _rand_idx((50000,), 70000, 1), T((50000,), -1, 1, seed=1)], name="large"),
    ]


def _index_put_acc_errors():
    return [ErrorSample([T((5, 3)), [5], T((1, 3), seed=1)], {}, IndexError, "index 5 is out of bounds"),
            ErrorSample([T((5, 3)), [1], T((1, 3), seed=1, dtype="float64")], {}, RuntimeError,
                        "source and destination dtypes match, got float32 for the destination and float64")]


ROWS = [
    OpInfo("gather", _gather, ALL_DTYPES, _gather_samples, _gather_errors),
    OpInfo("gather_out", _out_call("gather"), ALL_DTYPES,
           lambda d: [Sample([T((3, 4)), 1, np.array([[0, 3], [2, 1]])]),
                      Sample([T((300, 300)), 0, _rand_idx((300, 300), 300, 2)], name="large")]),
    OpInfo("gather_int32_index", lambda lib, a, i: lib.gather(a, 1, i), (),
           lambda d: [Sample([T((2, 3)), T((1, 1), 0, 0, dtype="int32")])], _gather_int32_error),
    OpInfo("scatter", _scatter, ALL_DTYPES, _scatter_src_samples, _scatter_errors()),
    OpInfo("scatter_value", _scatter_value, ALL_DTYPES, _scatter_value_samples, _scatter_value_errors),
    OpInfo("scatter_inplace", lambda lib, a, dim, idx, src: _inplace("scatter_")(lib, a, dim, _idx(lib, idx), src),
           ALL_DTYPES, _scatter_src_samples, _scatter_errors()),
    OpInfo("scatter_value_inplace",
           lambda lib, a, dim, idx, v: _inplace("scatter_")(lib, a, dim, _idx(lib, idx), v),
           ALL_DTYPES, _scatter_value_samples, _scatter_value_errors),
    OpInfo("scatter_out", _out_call("scatter"), ALL_DTYPES,
           lambda d: [Sample([T((3, 5)), 1, np.array([[0, 4], [2, 1]]), T((2, 2), seed=1)])]),
    OpInfo("scatter_reduce_add", _scatter_reduce_legacy("add"), ALL_DTYPES, _scatter_reduce_legacy_samples,
           lambda: [ErrorSample([T((2, 3)), 1, [[0, 3]], T((1, 2), seed=1)], {}, RuntimeError, "out of bounds")],
           tol={"float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2)}),
    OpInfo("scatter_reduce_multiply", _scatter_reduce_legacy("multiply"), ALL_DTYPES, _scatter_reduce_legacy_samples,
           tol={"float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2)}),
    OpInfo("scatter_value_reduce",
           lambda lib, a, dim, idx, src: lib.scatter(a, dim, _idx(lib, idx), 2, reduce="multiply"),
           ALL_DTYPES, _scatter_reduce_legacy_samples,
           lambda: [ErrorSample([T((2, 3)), 1, [[3]], T((1, 1))], {}, RuntimeError, "index 3 is out of bounds")]),
    OpInfo("scatter_bad_reduce", lambda lib, a, dim, idx, src: lib.scatter(a, dim, _idx(lib, idx), src, reduce="mean"),
           (), lambda d: [Sample([T((2, 3)), 1, [[0]], T((1, 1))])],
           lambda: [ErrorSample([T((2, 3)), 1, [[0]], T((1, 1))], {}, RuntimeError, "either add or multiply")]),
    OpInfo("scatter_add", lambda lib, a, dim, idx, src: lib.scatter_add(a, dim, _idx(lib, idx), src), ALL_DTYPES,
           lambda d: _scatter_src_samples(d, unique_large=False), _scatter_errors(),
           tol={"float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2)}),
    OpInfo("scatter_add_inplace",
           lambda lib, a, dim, idx, src: _inplace("scatter_add_")(lib, a, dim, _idx(lib, idx), src), ALL_DTYPES,
           lambda d: _scatter_src_samples(d, unique_large=False), _scatter_errors(),
           tol={"float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2)}),
    OpInfo("scatter_add_out", _out_call("scatter_add"), ALL_DTYPES,
           lambda d: [Sample([T((3, 5)), 1, np.array([[0, 0], [2, 1]]), T((2, 2), seed=1)])]),
    *[OpInfo(f"scatter_reduce_{r}", _scatter_reduce(r), dts, _scatter_reduce_samples, _scatter_reduce_errors,
             tol={"float16": (3e-3, 3e-3), "bfloat16": (3e-2, 3e-2), "float32": (1e-5, 1e-5)})
      for r, dts in (("sum", ALL_DTYPES), ("prod", ALL_DTYPES), ("mean", NO_BOOL), ("amax", REAL),
                     ("amin", REAL))],
    # The in-place form (sum); the functional rows are scatter_reduce_<reduce> above.
    OpInfo("scatter_reduce", lambda lib, a, dim, idx, src, **kw: _inplace("scatter_reduce_")(
           lib, a, dim, _idx(lib, idx), src, "sum", **kw), ALL_DTYPES, _scatter_reduce_samples,
           _scatter_reduce_errors, tol={"float16": (3e-3, 3e-3), "bfloat16": (3e-2, 3e-2)}),
    OpInfo("scatter_reduce_bad_reduce", _scatter_reduce_bad_reduce, (),
           lambda d: [Sample([T((2, 3)), 1, [[0]], T((1, 1))])],
           lambda: [ErrorSample([T((2, 3)), 1, [[0]], T((1, 1))], {}, RuntimeError, "sum, prod, mean, amax or amin")]),
    OpInfo("scatter_reduce_out", lambda lib, a, dim, idx, src: _out_call("scatter_reduce")(
           lib, a, dim, _idx(lib, idx), src, "amax", include_self=False), REAL,
           lambda d: [Sample([T((3, 5)), 1, [[0, 0], [2, 1]], T((2, 2), seed=1)])]),
    OpInfo("take_along_dim", _take_along_dim, ALL_DTYPES, _take_along_dim_samples, _take_along_dim_errors),
    OpInfo("take_along_dim_out", lambda lib, a, idx, dim: _out_call("take_along_dim")(lib, a, _idx(lib, idx), dim),
           ALL_DTYPES, lambda d: [Sample([T((3, 4)), [[0], [3], [1]], 1])]),
    OpInfo("index_select", _index_select, ALL_DTYPES, _index_select_samples, _index_select_errors),
    OpInfo("index_select_out", lambda lib, a, dim, idx: _out_call("index_select")(lib, a, dim, _idx(lib, idx)),
           ALL_DTYPES, lambda d: [Sample([T((4, 5)), 1, [4, 0, 2]]),
                                  Sample([T((1000, 64)), 0, _rand_idx((900,), 1000, 2)], name="large")]),
    OpInfo("index_select_float_index", _index_select_float_index, (), lambda d: [Sample([T((2, 3))])],
           lambda: [ErrorSample([T((2, 3))], {}, RuntimeError, "int32 or int64")]),
    OpInfo("index_add", _index_add, ALL_DTYPES, _index_add_samples, _index_add_errors,
           tol={"float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2), "float32": (1e-5, 1e-5)}),
    OpInfo("index_add_inplace", lambda lib, a, dim, idx, src, **kw: _inplace("index_add_")(
           lib, a, dim, _idx(lib, idx), src, **kw), ALL_DTYPES, _index_add_samples, _index_add_errors,
           tol={"float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2), "float32": (1e-5, 1e-5)}),
    OpInfo("index_add_out", lambda lib, a, dim, idx, src: _out_call("index_add")(lib, a, dim, _idx(lib, idx), src,
                                                                                 alpha=3 if a.dtype != lib.bool else 1),
           ALL_DTYPES, lambda d: [Sample([T((4, 5)), 0, [3, 0, 3], T((3, 5), seed=1)])]),
    OpInfo("index_copy", _index_copy, ALL_DTYPES, _index_copy_samples, _index_copy_errors),
    OpInfo("index_copy_inplace", lambda lib, a, dim, idx, src: _inplace("index_copy_")(lib, a, dim, _idx(lib, idx), src),
           ALL_DTYPES, _index_copy_samples, _index_copy_errors),
    OpInfo("index_copy_out", lambda lib, a, dim, idx, src: _out_call("index_copy")(lib, a, dim, _idx(lib, idx), src),
           ALL_DTYPES, lambda d: [Sample([T((4, 5)), 1, [4, 0], T((4, 2), seed=1)])]),
    OpInfo("index_fill", _index_fill, ALL_DTYPES, _index_fill_samples, _index_fill_errors),
    OpInfo("index_fill_tensor", _index_fill_tensor, ALL_DTYPES, _index_fill_samples,
           lambda: [ErrorSample([T((4, 5)), 0, [4], 1.0], {}, IndexError, "index 4 is out of bounds")]),
    OpInfo("index_fill_inplace", lambda lib, a, dim, idx, v: _inplace("index_fill_")(lib, a, dim, _idx(lib, idx), v),
           ALL_DTYPES, _index_fill_samples, _index_fill_errors),
    OpInfo("index_fill_value_dims", lambda lib, a: lib.index_fill(a, 0, lib.tensor([0]), lib.tensor([1.0])),
           (), lambda d: [Sample([T((2, 3))])],
           lambda: [ErrorSample([T((2, 3))], {}, RuntimeError, "0-dimensional value tensor")]),
    OpInfo("take", _take, ALL_DTYPES, _take_samples, _take_errors),
    OpInfo("take_out", lambda lib, a, idx: _out_call("take")(lib, a, _idx(lib, idx)), ALL_DTYPES,
           lambda d: [Sample([T((3, 4)), [[0, 11], [-1, 5]]])]),
    OpInfo("put", _put, ALL_DTYPES, _put_samples, _put_errors,
           tol={"float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2), "float32": (1e-5, 1e-5)}),
    OpInfo("put_inplace", _put_inplace, ALL_DTYPES, _put_samples, _put_errors,
           tol={"float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2), "float32": (1e-5, 1e-5)}),
    OpInfo("masked_fill", _masked_fill, ALL_DTYPES, _masked_fill_samples, _masked_fill_errors),
    OpInfo("masked_fill_tensor", _masked_fill_tensor, ALL_DTYPES, _masked_fill_samples,
           lambda: [ErrorSample([T((2, 3)), [True, False, True], [1.0]], {}, RuntimeError, "0-dimensional value")]),
    OpInfo("masked_fill_inplace", _masked_fill_inplace, ALL_DTYPES,
           lambda d: [s for s in _masked_fill_samples(d) if s.name != "broadcast-self"],
           lambda: [ErrorSample([T((3,)), [[True], [False]], 1.0], {}, RuntimeError, "doesn't match the broadcast shape")]),
    OpInfo("masked_scatter", _masked_scatter, ALL_DTYPES, _masked_scatter_samples, _masked_scatter_errors),
    OpInfo("masked_scatter_inplace", _masked_scatter_inplace, ALL_DTYPES,
           lambda d: [s for s in _masked_scatter_samples(d) if s.name != "broadcast-self"],
           _masked_scatter_inplace_errors),
    OpInfo("argwhere", lambda lib, a: lib.argwhere(a), ALL_DTYPES, _nz_samples),
    OpInfo("where_condition", lambda lib, a: lib.where(a), ALL_DTYPES, _nz_samples),
    OpInfo("nonzero_as_tuple", lambda lib, a: lib.nonzero(a, as_tuple=True), ALL_DTYPES, _nz_samples),
    OpInfo("index_put_accumulate", _index_put_acc, ALL_DTYPES, _index_put_acc_samples, _index_put_acc_errors,
           tol={"float16": (2e-3, 2e-3), "bfloat16": (2e-2, 2e-2), "float32": (1e-5, 1e-5)}),
]
