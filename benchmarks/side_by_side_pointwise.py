"""Side-by-side timing of Ember and PyTorch for pow, float16 conversions and lerp (one
thread, one process, same data). Usage:
  OMP_NUM_THREADS=1 PYTHONPATH=build/python python3 benchmarks/side_by_side_pointwise.py [N ...]
Prints microseconds per call (best of several repeats of a loop), Ember vs torch."""
import os
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
import numpy as np
import torch
import ember

torch.set_num_threads(1)
if hasattr(ember, "set_num_threads"):
    ember.set_num_threads(1)


def best(f, n):
    f()
    calls = max(1, int(2e5 // max(n, 1) * 20)) if n < 1 << 20 else 3
    times = []
    for _ in range(7):
        t0 = time.perf_counter()
        for _ in range(calls):
            f()
        times.append((time.perf_counter() - t0) / calls)
    return min(times) * 1e6


def cases(lib, n):
    g = np.random.default_rng(0)
    xn = g.standard_normal(n, dtype=np.float32)
    pn = np.abs(xn) + np.float32(0.1)
    yn = g.uniform(-2, 2, n).astype(np.float32)
    x, p, y = lib.from_numpy(xn.copy()), lib.from_numpy(pn), lib.from_numpy(yn)
    o = lib.empty(n)
    oh = lib.empty(n, dtype=lib.float16)
    ob = lib.empty(n, dtype=lib.bfloat16)
    od = lib.empty(n, dtype=lib.float64)
    xh, xb, xd = x.to(lib.float16), x.to(lib.bfloat16), x.to(lib.float64)
    return {
        "pow(x, 2, out)": lambda: lib.pow(x, 2, out=o),
        "pow(x, 3, out)": lambda: lib.pow(x, 3, out=o),
        "pow(p, 0.5, out)": lambda: lib.pow(p, 0.5, out=o),
        "pow(p, 2.5, out)": lambda: lib.pow(p, 2.5, out=o),
        "pow(p, y, out)": lambda: lib.pow(p, y, out=o),
        "pow(pd, 2.5) f64": lambda: lib.pow(xd.abs(), 2.5),
        "f32->f16 copy_": lambda: oh.copy_(x),
        "f16->f32 copy_": lambda: o.copy_(xh),
        "f32->bf16 copy_": lambda: ob.copy_(x),
        "bf16->f32 copy_": lambda: o.copy_(xb),
        "f64->f16 copy_": lambda: oh.copy_(xd),
        "f16->f64 copy_": lambda: od.copy_(xh),
        "lerp(x, y, 0.3)": lambda: lib.lerp(x, y, 0.3),
        "lerp(x, y, 0.7)": lambda: lib.lerp(x, y, 0.7),
    }


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [65536, 16 << 20]
    for n in sizes:
        ce, ct = cases(ember, n), cases(torch, n)
        print(f"n = {n}")
        print(f"  {'case':20s} {'ember us':>10s} {'torch us':>10s} {'ratio':>7s}")
        for k in ce:
            te, tt = best(ce[k], n), best(ct[k], n)
            print(f"  {k:20s} {te:10.1f} {tt:10.1f} {tt / te:7.2f}")


if __name__ == "__main__":
    main()
