"""Indexing workloads for benchmarks/run.py: gather, scatter_add, index_select and
index_put_(accumulate=True) over 16M elements (float32 values, int64 random indices), in
the layouts they are used in: along the contiguous dim, along the outer dim, and 1-D
(random access over all of a 64 MB tensor). Each maker takes the library module (ember or
torch) and returns a zero-argument callable; WORKLOADS has run.py's registry format.
"""
import numpy as np

N = 16 << 20
SIDE = 4096  # SIDE * SIDE = N


def _values(lib, shape, seed):
    return lib.from_numpy(np.random.default_rng(seed).standard_normal(shape, dtype=np.float32))


def _index(lib, shape, high, seed):
    return lib.from_numpy(np.random.default_rng(seed).integers(0, high, size=shape, dtype=np.int64))


def make_gather(dim):
    def maker(lib):
        x, i = _values(lib, (SIDE, SIDE), 1), _index(lib, (SIDE, SIDE), SIDE, 2 + dim)
        return lambda: lib.gather(x, dim, i)
    return maker


def make_gather_1d(lib):
    x, i = _values(lib, N, 1), _index(lib, N, N, 4)
    return lambda: lib.gather(x, 0, i)


def make_scatter_add(dim):
    def maker(lib):
        src, i = _values(lib, (SIDE, SIDE), 1), _index(lib, (SIDE, SIDE), SIDE, 2 + dim)
        out = lib.zeros(SIDE, SIDE)
        return lambda: out.scatter_add_(dim, i, src)
    return maker


def make_scatter_add_fresh(dim):
    """The functional form: a new output (PyTorch's scatter_add clones self too)."""
    def maker(lib):
        src, i = _values(lib, (SIDE, SIDE), 1), _index(lib, (SIDE, SIDE), SIDE, 2 + dim)
        base = lib.zeros(SIDE, SIDE)
        return lambda: lib.scatter_add(base, dim, i, src)
    return maker


def make_scatter_add_1d(lib):
    src, i = _values(lib, N, 1), _index(lib, N, N, 4)
    out = lib.zeros(N)
    return lambda: out.scatter_add_(0, i, src)


def make_index_select_1d(lib):
    x, i = _values(lib, N, 1), _index(lib, N, N, 5)
    return lambda: lib.index_select(x, 0, i)


def make_index_select_rows(lib):
    rows = N // 64
    x, i = _values(lib, (rows, 64), 1), _index(lib, rows, rows, 6)
    return lambda: lib.index_select(x, 0, i)


def make_index_put_acc_1d(lib):
    v, i = _values(lib, N, 1), _index(lib, N, N, 7)
    out = lib.zeros(N)
    return lambda: out.index_put_((i,), v, accumulate=True)


def make_index_put_acc_rows(lib):
    rows = N // 64
    v, i = _values(lib, (rows, 64), 1), _index(lib, rows, rows, 8)
    out = lib.zeros(rows, 64)
    return lambda: out.index_put_((i,), v, accumulate=True)


# Bytes each call moves (values read and written, indices read), for the rate column.
_GATHER_BYTES = N * (4 + 8 + 4)
_SCATTER_BYTES = N * (4 + 8 + 4 + 4)  # read src and index, read-modify-write out
WORKLOADS = {
    "gather_16M_dim1": (make_gather(1), _GATHER_BYTES, "GB/s"),
    "gather_16M_dim0": (make_gather(0), _GATHER_BYTES, "GB/s"),
    "gather_16M_1d": (make_gather_1d, _GATHER_BYTES, "GB/s"),
    "scatter_add_16M_dim1": (make_scatter_add(1), _SCATTER_BYTES, "GB/s"),
    "scatter_add_16M_dim0": (make_scatter_add(0), _SCATTER_BYTES, "GB/s"),
    "scatter_add_16M_1d": (make_scatter_add_1d, _SCATTER_BYTES, "GB/s"),
    "scatter_add_16M_dim1_fresh": (make_scatter_add_fresh(1), _SCATTER_BYTES + 8 * N, "GB/s"),
    "index_select_16M_1d": (make_index_select_1d, _GATHER_BYTES, "GB/s"),
    "index_select_16M_rows": (make_index_select_rows, N * 8 + N // 64 * 8, "GB/s"),
    "index_put_acc_16M_1d": (make_index_put_acc_1d, _SCATTER_BYTES, "GB/s"),
    "index_put_acc_16M_rows": (make_index_put_acc_rows, N * 12 + N // 64 * 8, "GB/s"),
}
