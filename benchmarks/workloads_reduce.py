"""Reduction and sort workloads for benchmarks/run.py (imported there; each maker takes the
library module, ember or torch, and returns a zero-argument callable).

  red_<op>_<all|inner|outer>  sum, mean, max, var, logsumexp of a 4096x4096 float32 tensor:
                              over every element, along dim 1 (contiguous rows) and along
                              dim 0 (strided columns); max along a dim returns values and indices
  red_rows<R>_<op>            sum, mean, amax along dim 1 of 512K float32 in rows of R = 32,
                              64, 256 (many short rows: the per-row cost dominates)
  red_cols32_<op>             sum, amax along dim 0 of 512K float32 in 32 columns (a narrow tile)
  sum_16M_numpy               sum of 16M float32 in a NumPy buffer that is 16-byte but not
                              64-byte aligned (as NumPy's own allocations often are)
  red16_<dtype>_<op>          16-bit float reductions of a 4096x4096 tensor (from float32):
                              mean (all), sum(1), sum(0), max(1) with indices and argmax(1)
                              (of 1024x4096); PyTorch 1.13 has no 16-bit prod on the CPU
  sort_1M, topk_1M            1M float32 (topk: k = 100)
  sort_rows, topk_rows        1024 rows of 1024 float32, along the rows (topk: k = 10)
"""
import numpy as np

N = 4096
N16M = 16 << 20


def _matrix(lib):
    g = np.random.default_rng(11)
    return lib.from_numpy(g.standard_normal((N, N), dtype=np.float32))


def _reduction(op, layout):
    def maker(lib):
        x = _matrix(lib)
        fn = getattr(lib, op)
        if layout == "all":
            if op == "logsumexp":
                return lambda: fn(x, (0, 1))
            return lambda: fn(x)
        dim = 1 if layout == "inner" else 0
        return lambda: fn(x, dim)
    return maker


def _reduction16(dtype, op):
    def maker(lib):
        x = _matrix(lib)
        if op == "argmax1":
            x = x[:1024]
        x = x.to(getattr(lib, dtype)).contiguous()
        if op == "mean":
            return lambda: x.mean()
        if op == "sum1":
            return lambda: x.sum(1)
        if op == "sum0":
            return lambda: x.sum(0)
        if op == "max1":
            return lambda: x.max(1)
        return lambda: x.argmax(1)
    return maker


def _misaligned_numpy(n, seed):
    """n float32 values in a NumPy buffer whose address is 16 (mod 64)."""
    raw = np.empty(n + 64, dtype=np.float32)
    shift = ((16 - raw.ctypes.data % 64) % 64) // 4
    a = raw[shift:shift + n]
    assert a.ctypes.data % 64 == 16
    a[:] = np.random.default_rng(seed).standard_normal(n, dtype=np.float32)
    return a


def _short_rows(rows_len, op):
    def maker(lib):
        x = _vector(lib, 1 << 19, 12).reshape(-1, rows_len)
        fn = getattr(lib, op)
        return lambda: fn(x, 1)
    return maker


def _narrow_columns(op):
    def maker(lib):
        x = _vector(lib, 1 << 19, 13).reshape(-1, 32)
        fn = getattr(lib, op)
        return lambda: fn(x, 0)
    return maker


def make_sum_numpy(lib):
    x = lib.from_numpy(_misaligned_numpy(N16M, 5))
    return lambda: lib.sum(x)


def _vector(lib, n, seed):
    return lib.from_numpy(np.random.default_rng(seed).standard_normal(n, dtype=np.float32))


def make_sort_1m(lib):
    x = _vector(lib, 1 << 20, 7)
    return lambda: lib.sort(x)


def make_topk_1m(lib):
    x = _vector(lib, 1 << 20, 8)
    return lambda: lib.topk(x, 100)


def make_sort_rows(lib):
    x = _vector(lib, 1 << 20, 9).reshape(1024, 1024)
    return lambda: lib.sort(x)


def make_topk_rows(lib):
    x = _vector(lib, 1 << 20, 10).reshape(1024, 1024)
    return lambda: lib.topk(x, 10)


# name -> (maker, bytes moved per call for the rate column, unit)
WORKLOADS = {}
for _op in ("sum", "mean", "max", "var", "logsumexp"):
    for _layout in ("all", "inner", "outer"):
        WORKLOADS[f"red_{_op}_{_layout}"] = (_reduction(_op, _layout), 4 * N * N, "GB/s")
for _dtype in ("float16", "bfloat16"):
    for _op in ("mean", "sum1", "sum0", "max1", "argmax1"):
        _rows = 1024 if _op == "argmax1" else N
        WORKLOADS[f"red16_{_dtype}_{_op}"] = (_reduction16(_dtype, _op), 2 * _rows * N, "GB/s")
for _len in (32, 64, 256):
    for _op in ("sum", "mean", "amax"):
        WORKLOADS[f"red_rows{_len}_{_op}"] = (_short_rows(_len, _op), 4 << 19, "GB/s")
for _op in ("sum", "amax"):
    WORKLOADS[f"red_cols32_{_op}"] = (_narrow_columns(_op), 4 << 19, "GB/s")
WORKLOADS["sum_16M_numpy"] = (make_sum_numpy, 4 * N16M, "GB/s")
WORKLOADS["sort_1M"] = (make_sort_1m, None, None)
WORKLOADS["topk_1M"] = (make_topk_1m, None, None)
WORKLOADS["sort_rows"] = (make_sort_rows, None, None)
WORKLOADS["topk_rows"] = (make_topk_rows, None, None)
