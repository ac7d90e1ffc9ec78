#!/usr/bin/python3
"""Ember against PyTorch on the same workloads, in one run.

Each Python workload is written once against a module `lib` (ember or torch, whose APIs
match), so both libraries run exactly the same code. Timings alternate between the two
libraries round by round and report medians, because this machine is noisy. The C++
workloads come from build/benchmarks/bench_overhead (Google Benchmark, Ember and libtorch in
one binary).

  ratio = torch time / ember time   (> 1 means Ember is faster)

Usage: benchmarks/run.py [--filter REGEX] [--json FILE] [--rounds N] [--threads N]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "build", "python"))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import ember  # noqa: E402

MB = 1 << 20


def _per_call(fn, min_time=0.05):
    """Seconds per call of fn, with enough calls to fill min_time."""
    fn()
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= min_time:
            return dt / n
        n *= 2 if dt <= 0 else max(2, int(min_time / dt * 1.2))


# ---------------------------------------------------------------- workloads
# Each maker takes the library module and returns a zero-argument callable.
def make_add_1elem(lib):
    x, y = lib.ones(1), lib.ones(1)
    return lambda: x + y


def make_chain10(lib):
    x, y = lib.full((1,), 0.5), lib.full((1,), 1.5)

    def chain():
        t = lib.add(x, y)
        t = lib.mul(t, y)
        t = lib.sub(t, x)
        t = lib.div(t, y)
        t = lib.exp(t)
        t = lib.tanh(t)
        t = lib.sigmoid(t)
        t = lib.relu(t)
        t = lib.neg(t)
        return lib.abs(t)
    return chain


N16M = 16 * MB


def _vec(lib, seed):
    g = np.random.default_rng(seed)
    return lib.from_numpy(g.standard_normal(N16M, dtype=np.float32))


def make_muladd_fresh(lib):
    x, y, z = _vec(lib, 1), _vec(lib, 2), _vec(lib, 3)
    return lambda: x * y + z


def make_muladd_out(lib):
    x, y, z = _vec(lib, 1), _vec(lib, 2), _vec(lib, 3)
    t, o = lib.empty(N16M), lib.empty(N16M)

    def f():
        lib.mul(x, y, out=t)
        lib.add(t, z, out=o)
    return f


def make_exp_fresh(lib):
    x = _vec(lib, 4)
    return lambda: lib.exp(x)


def make_exp_out(lib):
    x, o = _vec(lib, 4), lib.empty(N16M)
    return lambda: lib.exp(x, out=o)


def make_sum(lib):
    x = _vec(lib, 5)
    return lambda: lib.sum(x)


def make_matmul(n):
    def maker(lib):
        g = np.random.default_rng(n)
        a = lib.from_numpy(g.standard_normal((n, n), dtype=np.float32))
        b = lib.from_numpy(g.standard_normal((n, n), dtype=np.float32))
        return lambda: lib.matmul(a, b)
    return maker


# name -> (maker, bytes moved or flops per call for the rate column, unit)
PY_WORKLOADS = {
    "py_add_1elem": (make_add_1elem, None, None),
    "py_chain10": (make_chain10, None, None),
    # x*y+z: mul reads 2 and writes 1 array, add the same: 6 passes over 64 MB.
    "muladd_16M_fresh": (make_muladd_fresh, 6 * 4 * N16M, "GB/s"),
    "muladd_16M_out": (make_muladd_out, 6 * 4 * N16M, "GB/s"),
    "exp_16M_fresh": (make_exp_fresh, 2 * 4 * N16M, "GB/s"),
    "exp_16M_out": (make_exp_out, 2 * 4 * N16M, "GB/s"),
    "sum_16M": (make_sum, 4 * N16M, "GB/s"),
}
for _n in (64, 256, 1024, 2048):
    PY_WORKLOADS[f"matmul_{_n}"] = (make_matmul(_n), 2 * _n ** 3, "GFLOP/s")


def copy_bandwidth():
    """The machine's copy bandwidth in bytes/s (read + write of 256 MB, numpy)."""
    src = np.ones(256 * MB // 8)
    dst = np.empty_like(src)
    best = min(_per_call(lambda: np.copyto(dst, src), 0.2) for _ in range(3))
    return 2 * src.nbytes / best


def run_python(names, rounds):
    results = []
    for name in names:
        maker, work, unit = PY_WORKLOADS[name]
        fns = {"ember": maker(ember), "torch": maker(torch)}
        times = {"ember": [], "torch": []}
        for r in range(rounds):
            order = ("ember", "torch") if r % 2 == 0 else ("torch", "ember")
            for lib in order:
                times[lib].append(_per_call(fns[lib]))
        del fns
        e, t = statistics.median(times["ember"]), statistics.median(times["torch"])
        results.append({"workload": name, "ember_s": e, "torch_s": t, "ratio": t / e,
                        "rate": (work / e / 1e9, work / t / 1e9, unit) if work else None})
    return results


def run_cpp(pattern, rounds):
    exe = os.path.join(ROOT, "build", "benchmarks", "bench_overhead")
    if not os.path.exists(exe):
        print(f"(skipping C++ workloads: {exe} not built; `make bench` builds it)", file=sys.stderr)
        return []
    out = subprocess.run([exe, "--benchmark_format=json", f"--benchmark_repetitions={rounds}",
                          "--benchmark_report_aggregates_only=true"],
                         check=True, capture_output=True, text=True).stdout
    medians = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("aggregate_name") == "median":
            scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[b["time_unit"]]
            medians[b["run_name"]] = b["real_time"] * scale
    results = []
    for key in sorted(k for k in medians if k.startswith("BM_ember_")):
        base = key[len("BM_ember_"):]
        name = "cpp_" + base
        if pattern and not re.search(pattern, name):
            continue
        e, t = medians[key], medians.get("BM_torch_" + base)
        results.append({"workload": name, "ember_s": e, "torch_s": t,
                        "ratio": (t / e) if t else None, "rate": None})
    return results


def fmt_time(s):
    if s is None:
        return "-"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if s >= scale:
            return f"{s / scale:.3g} {unit}"
    return f"{s / 1e-9:.3g} ns"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--filter", default="", help="regex selecting workloads")
    ap.add_argument("--json", help="write results to this file")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds per workload")
    ap.add_argument("--threads", type=int, default=os.cpu_count(),
                    help="threads for both libraries (default: all cores)")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    ember.set_num_threads(args.threads)
    names = [n for n in PY_WORKLOADS if re.search(args.filter, n)]
    results = run_python(names, args.rounds) + run_cpp(args.filter, args.rounds)

    print(f"threads: {args.threads}   (ratio = torch time / ember time; > 1: Ember is faster)")
    print(f"{'workload':<20} {'ember':>10} {'torch':>10} {'ratio':>7}   rates (ember / torch)")
    for r in results:
        ratio = f"{r['ratio']:.2f}" if r["ratio"] else "-"
        rate = ""
        if r["rate"]:
            e, t, unit = r["rate"]
            rate = f"{e:.1f} / {t:.1f} {unit}"
        print(f"{r['workload']:<20} {fmt_time(r['ember_s']):>10} {fmt_time(r['torch_s']):>10} {ratio:>7}   {rate}")
    if any(r["workload"].startswith("muladd") for r in results):
        bw = copy_bandwidth()
        print(f"machine copy bandwidth (numpy, 256 MB): {bw / 1e9:.1f} GB/s")
        for r in results:
            if r["workload"].startswith("muladd") and r["rate"]:
                print(f"  {r['workload']}: {r['rate'][0] * 1e9 / bw:.0%} of copy bandwidth")
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{k: r[k] for k in ("workload", "ember_s", "torch_s", "ratio")} for r in results],
                      f, indent=2)


if __name__ == "__main__":
    main()
