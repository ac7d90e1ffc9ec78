"""Linear-algebra factorization and solver workloads for benchmarks/run.py (each maker takes the
library module, ember or torch, and returns a zero-argument callable). Rates are GFLOP/s by
the usual operation counts (LU 2/3 n^3, Cholesky 1/3 n^3, inverse 2 n^3, solve 2/3 n^3 + 2 n^2 k).

  chol_{256,1024}_{f32,f64}     linalg.cholesky of a positive definite matrix
  solve_{256,1024}_{f32,f64}    linalg.solve with 16 right-hand sides
  det_{256,1024}_{f32,f64}      linalg.det
  inv_{256,1024}_{f32,f64}      linalg.inv
  {inv,det,solve}_1000x{3,4}_{f32,f64}   1000 small matrices at once (solve: one rhs vector each)
"""
import numpy as np


def _matrix(shape, spd, dtype):
    rng = np.random.default_rng(0)
    n = shape[-1]
    a = rng.standard_normal(shape)
    if spd:
        a = a @ np.swapaxes(a, -1, -2) + n * np.eye(n)
    else:
        a = a + np.sqrt(n) * np.eye(n)
    return a.astype(dtype)


def _maker(fn, shape, dtype, spd=False, rhs=None):
    def maker(lib):
        A = lib.from_numpy(_matrix(shape, spd, dtype))
        f = getattr(lib.linalg, fn)
        if rhs is None:
            return lambda: f(A)
        B = lib.from_numpy(np.random.default_rng(1).standard_normal(rhs).astype(dtype))
        return lambda: f(A, B)
    return maker


_DT = {"f32": np.float32, "f64": np.float64}
WORKLOADS = {}
for _n in (256, 1024):
    for _s, _d in _DT.items():
        WORKLOADS[f"chol_{_n}_{_s}"] = (_maker("cholesky", (_n, _n), _d, spd=True), _n ** 3 / 3, "GFLOP/s")
        WORKLOADS[f"solve_{_n}_{_s}"] = (_maker("solve", (_n, _n), _d, rhs=(_n, 16)), 2 * _n ** 3 / 3 + 32 * _n ** 2,
                                        "GFLOP/s")
        WORKLOADS[f"det_{_n}_{_s}"] = (_maker("det", (_n, _n), _d), 2 * _n ** 3 / 3, "GFLOP/s")
        WORKLOADS[f"inv_{_n}_{_s}"] = (_maker("inv", (_n, _n), _d), 2 * _n ** 3, "GFLOP/s")
for _n in (3, 4):
    for _s, _d in _DT.items():
        WORKLOADS[f"inv_1000x{_n}_{_s}"] = (_maker("inv", (1000, _n, _n), _d), 1000 * 2 * _n ** 3, "GFLOP/s")
        WORKLOADS[f"det_1000x{_n}_{_s}"] = (_maker("det", (1000, _n, _n), _d), 1000 * 2 * _n ** 3 / 3, "GFLOP/s")
        WORKLOADS[f"solve_1000x{_n}_{_s}"] = (_maker("solve", (1000, _n, _n), _d, rhs=(1000, _n)),
                                             1000 * (2 * _n ** 3 / 3 + 2 * _n ** 2), "GFLOP/s")
