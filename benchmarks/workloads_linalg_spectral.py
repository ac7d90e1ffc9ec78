"""Spectral linear-algebra workloads for benchmarks/run.py (each maker takes the library
module, ember or torch, and returns a zero-argument callable). No rate column: the cost of
LAPACK's iterations depends on the input, so no flop count is claimed.

  linalg_eigh_{256,1024}_{f32,f64}   symmetric eigendecomposition (values and vectors)
  linalg_svd_{256,1024}_{f32,f64}    reduced SVD (U, S, Vh)
  linalg_qr_{256,1024}_{f32,f64}     reduced QR (Q, R)
  linalg_svdvals_batch_64x32         singular values of 64 matrices of 32 x 32 (float32)
"""
import numpy as np


def _data(n, dtype, sym=False, batch=()):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(batch + (n, n)).astype(dtype)
    if sym:
        a = a + np.swapaxes(a, -1, -2)
    return a


def _maker(fn_name, n, dtype, sym=False, batch=(), **kw):
    def maker(lib):
        x = lib.from_numpy(_data(n, dtype, sym, batch))
        fn = getattr(lib.linalg, fn_name)
        return lambda: fn(x, **kw)
    return maker


WORKLOADS = {}
for _n in (256, 1024):
    for _dt, _tag in ((np.float32, "f32"), (np.float64, "f64")):
        WORKLOADS[f"linalg_eigh_{_n}_{_tag}"] = (_maker("eigh", _n, _dt, sym=True), None, None)
        WORKLOADS[f"linalg_svd_{_n}_{_tag}"] = (_maker("svd", _n, _dt, full_matrices=False), None, None)
        WORKLOADS[f"linalg_qr_{_n}_{_tag}"] = (_maker("qr", _n, _dt), None, None)
WORKLOADS["linalg_svdvals_batch_64x32"] = (_maker("svdvals", 32, np.float32, batch=(64,)), None, None)
