#!/usr/bin/python3
"""Ember against PyTorch on the same workloads, in one run.

Each Python workload is written once against a module `lib` (ember or torch, whose APIs
match), so both libraries run exactly the same code, timed by ember.utils.benchmark.Timer
(blocked_autorange). Timings alternate between the two libraries round by round and report
medians over all rounds, because this machine is noisy. The C++ workloads come from
build/benchmarks/bench_overhead (Google Benchmark, Ember and libtorch in one binary).

  ratio = torch time / ember time   (> 1 means Ember is faster)

--instructions adds the instructions per call of the Ember workloads, counted by callgrind
(Timer.collect_callgrind, one thread): unlike times they repeat from run to run, so they
show small regressions on a shared machine.

Ember is loaded from $EMBER_BUILD_DIR/python (default: build/python).

Usage: benchmarks/run.py [--filter REGEX] [--json FILE] [--rounds N] [--threads N] [--instructions]
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.abspath(os.environ.get("EMBER_BUILD_DIR") or os.path.join(ROOT, "build"))
sys.path.insert(0, os.path.join(BUILD, "python"))

import numpy as np  # noqa: E402

import ember  # noqa: E402
from ember.utils.benchmark import Measurement, Timer  # noqa: E402

MB = 1 << 20
# Seconds of timing per library and round (blocked_autorange's min_run_time).
MIN_RUN_TIME = 0.1


# ---------------------------------------------------------------- workloads
# Each maker takes the library module and returns a zero-argument callable.
def make_add_1elem(lib):
    x, y = lib.ones(1), lib.ones(1)
    return lambda: x + y


def make_chain10(lib):
    from workloads_autograd import chain10  # shared with ag_chain10_backward
    x, y = lib.full((1,), 0.5), lib.full((1,), 1.5)
    return lambda: chain10(lib, x, y)


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

# Workloads of op families kept in modules of their own (benchmarks/workloads_*.py).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workloads_indexing import WORKLOADS as _INDEXING_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_INDEXING_WORKLOADS)
from workloads_reduce import WORKLOADS as _REDUCE_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_REDUCE_WORKLOADS)
from workloads_loss import WORKLOADS as _LOSS_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_LOSS_WORKLOADS)
from workloads_pointwise import WORKLOADS as _POINTWISE_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_POINTWISE_WORKLOADS)
from workloads_random import WORKLOADS as _RANDOM_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_RANDOM_WORKLOADS)
from workloads_products import WORKLOADS as _PRODUCT_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_PRODUCT_WORKLOADS)
from workloads_autograd import WORKLOADS as _AUTOGRAD_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_AUTOGRAD_WORKLOADS)
from workloads_nn import WORKLOADS as _NN_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_NN_WORKLOADS)
from workloads_conv import WORKLOADS as _CONV_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_CONV_WORKLOADS)
from workloads_data import WORKLOADS as _DATA_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_DATA_WORKLOADS)
from workloads_rnn import WORKLOADS as _RNN_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_RNN_WORKLOADS)
from workloads_attention import WORKLOADS as _ATTENTION_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_ATTENTION_WORKLOADS)
from workloads_fx import WORKLOADS as _FX_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_FX_WORKLOADS)
from workloads_sample import WORKLOADS as _SAMPLE_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_SAMPLE_WORKLOADS)
from workloads_optim import WORKLOADS as _OPTIM_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_OPTIM_WORKLOADS)
from workloads_fft import WORKLOADS as _FFT_WORKLOADS, scipy_module  # noqa: E402
PY_WORKLOADS.update(_FFT_WORKLOADS)
from workloads_linalg_spectral import WORKLOADS as _LINALG_SPECTRAL_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_LINALG_SPECTRAL_WORKLOADS)
from workloads_train import WORKLOADS as _TRAIN_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_TRAIN_WORKLOADS)
from workloads_linalg_factor import WORKLOADS as _LINALG_FACTOR_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_LINALG_FACTOR_WORKLOADS)
from workloads_vmap import WORKLOADS as _VMAP_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_VMAP_WORKLOADS)
from workloads_forward_ad import WORKLOADS as _FORWARD_AD_WORKLOADS  # noqa: E402
PY_WORKLOADS.update(_FORWARD_AD_WORKLOADS)


def copy_bandwidth():
    """The machine's copy bandwidth in bytes/s (read + write of 256 MB, numpy; best run)."""
    src = np.ones(256 * MB // 8)
    dst = np.empty_like(src)
    m = Timer("np.copyto(dst, src)", globals={"np": np, "src": src, "dst": dst},
              num_threads=ember.get_num_threads()).blocked_autorange(min_run_time=0.6)
    return 2 * src.nbytes / min(m.times)


def run_python(names, rounds, threads):
    import torch

    results = []
    for name in names:
        maker, work, unit = PY_WORKLOADS[name]
        fns = {"ember": maker(ember), "torch": maker(torch)}
        measurements = {"ember": [], "torch": []}
        scipy = scipy_module() if name in _FFT_WORKLOADS else None
        if scipy is not None:  # FFT workloads: scipy.fft alongside
            fns["scipy"] = maker(scipy)
            measurements["scipy"] = []
        for r in range(rounds):
            order = ("ember", "torch") if r % 2 == 0 else ("torch", "ember")
            for lib in order + (("scipy",) if scipy is not None else ()):
                timer = Timer("fn()", globals={"fn": fns[lib]}, label=name, description=lib,
                              num_threads=threads)
                measurements[lib].append(timer.blocked_autorange(min_run_time=MIN_RUN_TIME))
        del fns
        # All rounds' runs together: the median per call over every run.
        e, t = (Measurement.merge(measurements[lib])[0].median for lib in ("ember", "torch"))
        results.append({"workload": name, "ember_s": e, "torch_s": t, "ratio": t / e,
                        "rate": (work / e / 1e9, work / t / 1e9, unit) if work else None})
        if scipy is not None:
            sp = Measurement.merge(measurements["scipy"])[0].median
            results[-1].update(scipy_s=sp, scipy_ratio=sp / e)
    return results


# Calls counted per workload under callgrind (about 50x slower than native): enough to make
# the per-call count exact for the small ones, one call for the large ones.
def _callgrind_number(name):
    return 100 if name.startswith("py_") else 1


def run_instructions(names):
    """Instructions per call of the Ember workloads (callgrind, one thread)."""
    results = []
    for name in names:
        # The workload is built in the valgrind process by loading this file there.
        setup = (
            "import importlib.util\n"
            f"_spec = importlib.util.spec_from_file_location('_ember_bench_run', {os.path.abspath(__file__)!r})\n"
            "_run = importlib.util.module_from_spec(_spec)\n"
            "_spec.loader.exec_module(_run)\n"
            f"fn = _run.PY_WORKLOADS[{name!r}][0](ember)")
        number = _callgrind_number(name)
        stats = Timer("fn()", setup=setup, label=name, description="ember").collect_callgrind(number=number)
        base = stats.baseline_exclusive_stats
        results.append({"workload": name, "number": number,
                        "instructions": (stats.counts() - base.sum()) / number,
                        "instructions_denoised": (stats.counts(denoise=True) - base.denoise().sum()) / number})
    return results


def run_cpp(pattern, rounds):
    exe = os.path.join(BUILD, "benchmarks", "bench_overhead")
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
    ap.add_argument("--instructions", action="store_true",
                    help="also count instructions per call of the Ember workloads (valgrind)")
    args = ap.parse_args()
    if args.rounds < 1 or args.threads < 1:
        ap.error("--rounds and --threads must be positive")

    import torch

    torch.set_num_threads(args.threads)
    ember.set_num_threads(args.threads)
    names = [n for n in PY_WORKLOADS if re.search(args.filter, n)]
    results = run_python(names, args.rounds, args.threads) + run_cpp(args.filter, args.rounds)

    print(f"threads: {args.threads}   (ratio = torch time / ember time; > 1: Ember is faster)")
    print(f"{'workload':<20} {'ember':>10} {'torch':>10} {'ratio':>7}   rates (ember / torch)")
    for r in results:
        ratio = f"{r['ratio']:.2f}" if r["ratio"] else "-"
        rate = ""
        if r["rate"]:
            e, t, unit = r["rate"]
            rate = f"{e:.1f} / {t:.1f} {unit}"
        if "scipy_s" in r:
            rate += f"   scipy {fmt_time(r['scipy_s'])}, scipy/ember {r['scipy_ratio']:.2f}"
        print(f"{r['workload']:<20} {fmt_time(r['ember_s']):>10} {fmt_time(r['torch_s']):>10} {ratio:>7}   {rate}")
    if any(r["workload"].startswith("muladd") for r in results):
        bw = copy_bandwidth()
        print(f"machine copy bandwidth (numpy, 256 MB): {bw / 1e9:.1f} GB/s")
        for r in results:
            if r["workload"].startswith("muladd") and r["rate"]:
                print(f"  {r['workload']}: {r['rate'][0] * 1e9 / bw:.0%} of copy bandwidth")

    counts = {}
    if args.instructions:
        print("\ninstructions per call, Ember (callgrind, 1 thread, loop overhead subtracted)")
        print(f"{'workload':<20} {'calls':>6} {'instructions':>14} {'denoised':>14}")
        for c in run_instructions(names):
            counts[c["workload"]] = c
            print(f"{c['workload']:<20} {c['number']:>6} {c['instructions']:>14,.0f} "
                  f"{c['instructions_denoised']:>14,.0f}")
    if args.json:
        rows = []
        for r in results:
            row = {k: r[k] for k in ("workload", "ember_s", "torch_s", "ratio", "scipy_s", "scipy_ratio") if k in r}
            if r["workload"] in counts:
                row["ember_instructions"] = counts[r["workload"]]["instructions"]
            rows.append(row)
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
