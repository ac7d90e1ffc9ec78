"""ember.utils.benchmark: Timer, Measurement, Compare, Fuzzer and callgrind instruction counts.

Measurement statistics and Compare tables are checked against torch.utils.benchmark on the
same times, and against golden text; the Timer against a sleep of known length; callgrind
counts for repeatability across processes.
"""

import math
import os
import shutil
import textwrap
import time

import numpy as np
import pytest
import torch.utils.benchmark as tb
from torch.utils.benchmark.utils import common as torch_common

import ember
from ember.utils import benchmark
from ember.utils.benchmark import (BinaryOpFuzzer, CallgrindStats, Compare, CopyIfCallgrind, FunctionCount,
                                   FunctionCounts, FuzzedParameter, FuzzedTensor, Fuzzer, Measurement,
                                   ParameterAlias, SpectralOpFuzzer, TaskSpec, Timer, UnaryOpFuzzer)


def measurement(times, number=1, mod=benchmark, **spec):
    spec.setdefault("stmt", "x + y")
    spec.setdefault("setup", "pass")
    return mod.Measurement(number, list(times), mod.TaskSpec(**spec))


def body(m):
    """A Measurement's repr without the first line (which holds the object's address)."""
    return repr(m).split("\n", 1)[1]


# ---------------------------------------------------------------- Measurement

def test_ember_utils_exposes_benchmark():
    assert ember.utils.benchmark is benchmark
    assert benchmark.Timer is Timer


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 37, 100])
def test_measurement_statistics_match_torch(n):
    rng = np.random.default_rng(n)
    times = list(1e-6 * (1 + rng.gamma(2.0, 0.05 * (n % 4 + 1), size=n)))
    ours = measurement(times, number=7, label="op", description="d")
    ref = measurement(times, number=7, mod=torch_common, label="op", description="d")
    assert ours.times == pytest.approx(ref.times, rel=1e-15)
    assert ours.median == pytest.approx(ref.median, rel=1e-12)
    assert ours.mean == pytest.approx(ref.mean, rel=1e-12)
    assert ours.iqr == pytest.approx(ref.iqr, rel=1e-9, abs=1e-18)
    assert ours.significant_figures == ref.significant_figures
    assert ours.has_warnings == ref.has_warnings
    assert ours.meets_confidence(0.05) == ref.meets_confidence(0.05)
    assert body(ours) == body(ref)


def test_measurement_known_values_and_repr():
    m = measurement([2, 4, 6, 8, 100], number=2, label="stats")
    assert m.times == [1, 2, 3, 4, 50]
    assert (m.median, m.mean, m.iqr) == (3, 12, 2)
    assert m.significant_figures == 1
    assert m.has_warnings and not m.meets_confidence(0.5)
    assert m.label == "stats" and m.num_threads == 1 and m.description is None
    m = measurement([1e-6, 1.1e-6, 1.2e-6, 1.05e-6], label="add")
    assert repr(m).startswith("<ember.utils.benchmark.common.Measurement object at 0x")
    assert body(m) == textwrap.dedent("""\
        add
          Median: 1.07 us
          IQR:    0.09 us (1.04 to 1.12)
          4 measurements, 1 runs per measurement, 1 thread""")
    noisy = measurement([1, 2, 3, 4, 50], stmt="f(x)\ng(x)", setup="x = 1", sub_label="s", num_threads=4)
    assert body(noisy) == textwrap.dedent("""\
        stmt: (s)
          f(x)
          g(x)

        setup: x = 1
          Median: 3.00 s
          IQR:    2.00 s (2.00 to 4.00)
          5 measurements, 1 runs per measurement, 4 threads
          WARNING: Interquartile range is 66.7% of the median measurement.
                   This suggests significant environmental influence.""")
    mild = measurement([1.0, 0.8, 1.2, 0.9, 1.1])
    assert mild.has_warnings and "system fluctuation" in repr(mild)


def test_measurement_merge():
    a = measurement([2, 4], number=2, label="op", description="small")
    b = measurement([5], label="op", description="large")
    c = measurement([12], number=4, label="op", description="small")
    merged = Measurement.merge([a, b, c])
    assert [m.description for m in merged] == ["small", "large"]
    assert merged[0].number_per_run == 1 and merged[0].raw_times == [1, 2, 3]
    assert merged[1].raw_times == [5]
    with pytest.raises(ValueError, match="at least one Measurement"):
        Measurement.merge([])
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        Measurement.merge([a, 1.0])


def test_measurement_rejects_bad_input():
    with pytest.raises(ValueError, match="at least one time"):
        measurement([])
    with pytest.raises(ValueError, match="number_per_run"):
        measurement([1.0], number=0)


def test_select_unit_and_trim_sigfig():
    assert benchmark.select_unit(5e-9) == ("ns", 1e-9)
    assert benchmark.select_unit(5e-6) == ("us", 1e-6)
    assert benchmark.select_unit(1e-3) == ("ms", 1e-3)
    assert benchmark.select_unit(12.0) == ("s", 1.0)
    assert benchmark.trim_sigfig(3.14159, 2) == pytest.approx(3.1)
    assert benchmark.trim_sigfig(123456.0, 3) == pytest.approx(123000.0)
    with pytest.raises(ValueError):
        benchmark.trim_sigfig(1.0, 0)


# ---------------------------------------------------------------- Compare

def compare_data(mod):
    """Two labels; 1 and 4 threads; a noisy cell; a missing cell; units from ns to ms."""
    ms = []
    for threads in (1, 4):
        for sub, base in (("float32", 1e-6), ("float64", 2.5e-6), ("int64", 40e-6)):
            for desc, scale in (("n=1", 1), ("n=1024", 3.7), ("n=1M", 950)):
                if sub == "int64" and desc == "n=1M" and threads == 4:
                    continue
                t = base * scale / threads
                spread = 0.3 if (sub, desc) == ("float64", "n=1024") else 0.02
                times = [t * (1 + spread * f) for f in (-1, -0.5, 0, 0.25, 0.5, 1, 0.1, -0.2)]
                ms.append(measurement(times, number=10, mod=mod, label="add", sub_label=sub,
                                      description=desc, num_threads=threads))
    ms.append(measurement([3e-3, 3.1e-3, 2.9e-3], mod=mod, label="matmul", sub_label="64x64", description="n=1"))
    ms.append(measurement([1.5, 1.6], mod=mod, label="matmul", sub_label="2048x2048", description="n=1"))
    return ms


GOLDEN_PLAIN = """\
[--------------------- add ----------------------]
               |   n=1    |   n=1024  |     n=1M  
1 threads: ---------------------------------------
      float32  |   100.1  |    370.4  |    95095.0
      float64  |   250.3  |    938.9  |   237737.5
      int64    |  4004.0  |  14814.8  |  3803800.0
4 threads: ---------------------------------------
      float32  |    25.0  |     92.6  |    23773.8
      float64  |    62.6  |    234.7  |    59434.4
      int64    |  1001.0  |   3703.7  |           

Times are in nanoseconds (ns).

[-------- matmul --------]
                 |   n=1  
1 threads: ---------------
      64x64      |     3.0
      2048x2048  |  1550.0

Times are in milliseconds (ms).
"""

GOLDEN_TRIMMED_HIGHLIGHTED = """\
[---------------------- add -----------------------]
               |  n=1   |      n=1024     |    n=1M 
1 threads: -----------------------------------------
      float32  |   100  |     400         |    95000
      float64  |   300  |    900 (! 17%)  |   240000
      int64    |  4000  |   15000         |  3800000
4 threads: -----------------------------------------
      float32  |    30  |      90         |    24000
      float64  |    60  |    200 (! 17%)  |    59000
      int64    |  1000  |    3700         |         

Times are in nanoseconds (ns).
(! XX%) Measurement has high variance, where XX is the IQR / median * 100.

[------- matmul -------]
                 |  n=1 
1 threads: -------------
      64x64      |     3
      2048x2048  |  2000

Times are in milliseconds (ms).
"""


def test_compare_matches_golden_text():
    assert str(Compare(compare_data(benchmark))) == GOLDEN_PLAIN
    c = Compare(compare_data(benchmark))
    c.trim_significant_figures()
    c.highlight_warnings()
    assert str(c) == GOLDEN_TRIMMED_HIGHLIGHTED


@pytest.mark.parametrize("variant", ["plain", "trim", "highlight", "trim+highlight", "rowwise", "columnwise"])
def test_compare_matches_torch(variant):
    tables = []
    for mod, cls in ((benchmark, Compare), (torch_common, tb.Compare)):
        c = cls(compare_data(mod))
        if "trim" in variant:
            c.trim_significant_figures()
        if "highlight" in variant:
            c.highlight_warnings()
        if variant == "rowwise":
            c.colorize(rowwise=True)
        if variant == "columnwise":
            c.colorize()
        tables.append(str(c))
    assert tables[0] == tables[1]


def test_compare_colors_envs_and_replicates():
    def data(mod):
        out = []
        for env in ("before", "after"):
            for sub, t in (("a", 1e-3), ("b", 3e-3)):
                out.append(measurement([t, t * 1.01, t * 0.99, t], mod=mod, label="L", sub_label=sub,
                                       description="d", env=env))
        return out
    assert str(Compare(data(benchmark))) == str(tb.Compare(data(torch_common)))
    text = str(Compare(data(benchmark)))
    assert "(after)   a" in text and "(before)  a" in text
    # Rowwise: the fastest cell of a row is green; 3x slower is red (dim).
    two = [measurement([1e-3] * 4, label="L", sub_label="r", description="fast"),
           measurement([3e-3] * 4, label="L", sub_label="r", description="slow")]
    c = Compare(two)
    c.colorize(rowwise=True)
    row = [line for line in str(c).splitlines() if line.strip().startswith("r ")][0]
    assert "\033[92m\033[1m" in row and "\033[2m\033[91m" in row
    # Replicates (equal TaskSpecs) are merged into one cell.
    reps = [measurement([1e-3], label="L", description="d"), measurement([2e-3], label="L", description="d"),
            measurement([3e-3], label="L", description="d")]
    assert "|  2.0" in str(Compare(reps))
    # A table without descriptions still renders.
    assert "Times are in microseconds" in str(Compare([measurement([1e-6] * 3, label="nodesc")]))


def test_compare_rejects_bad_input(capsys):
    with pytest.raises(ValueError, match="at least one Measurement"):
        Compare([])
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        Compare([measurement([1.0]), "not a measurement"])
    c = Compare([measurement([1e-6], label="p", description="d")])
    c.print()
    assert capsys.readouterr().out == str(c) + "\n"


# ---------------------------------------------------------------- Timer

def test_timer_measures_sleep_within_5_percent():
    m = Timer("time.sleep(0.05)", globals={"time": time}, label="sleep").blocked_autorange(min_run_time=0.5)
    assert m.number_per_run == 1
    assert len(m.times) >= 9
    error = abs(m.median - 0.05) / 0.05
    print(f"\nsleep(0.05): median {m.median * 1e3:.3f} ms over {len(m.times)} runs, error {error:.2%}")
    assert error < 0.05, repr(m)


def test_timer_timeit_counts_and_warms_up():
    calls = []
    t = Timer("calls.append(1)", globals={"calls": calls})
    m = t.timeit(500)
    assert len(calls) == 5 + 500  # warm-up of number // 100, then the run
    assert m.number_per_run == 500 and len(m.raw_times) == 1
    del calls[:]
    t.timeit(1)
    assert len(calls) == 2 + 1  # the warm-up is at least two runs
    # setup runs once per timing loop and defines names for stmt; globals are copied.
    g = {"log": []}
    t = Timer("x.append(1)", setup="x = []\nlog.append(x)", globals=g)
    t.timeit(10)
    assert [len(x) for x in g["log"]] == [2, 10] and set(g) == {"log"}


def test_timer_defaults_and_task_spec():
    t = Timer("""
        y = x + 1
        z = y * 2
    """, setup="x = ember.ones(3)", label="chain", sub_label="3", description="ember", env="dev")
    m = t.timeit(100)
    assert m.stmt == "y = x + 1\nz = y * 2"  # dedented, outer blank lines dropped
    assert (m.label, m.sub_label, m.description, m.env, m.num_threads) == ("chain", "3", "ember", "dev", 1)
    assert Timer().timeit(10).stmt == "pass"


def test_timer_sets_and_restores_threads():
    prior = ember.get_num_threads()
    try:
        ember.set_num_threads(3)
        seen = []
        t = Timer("seen.append(ember.get_num_threads())", globals={"seen": seen}, num_threads=2)
        t.timeit(10)
        t.blocked_autorange(min_run_time=0.01)
        t.adaptive_autorange(min_run_time=0.01, max_run_time=0.1)
        assert set(seen) == {2}
        assert ember.get_num_threads() == 3
        with pytest.raises(ZeroDivisionError):
            Timer("1 / 0", num_threads=1).timeit(1)
        assert ember.get_num_threads() == 3
        assert Timer("pass").task_spec.num_threads == 1  # default: one thread, as torch
    finally:
        ember.set_num_threads(prior)


def test_blocked_and_adaptive_autorange():
    blocks = []
    t = Timer("x + y", setup="x = ember.ones(8); y = ember.ones(8)")
    m = t.blocked_autorange(callback=lambda number, elapsed: blocks.append((number, elapsed)), min_run_time=0.05)
    assert m.number_per_run >= 10  # fast statements run in blocks
    assert len(blocks) == len(m.raw_times) and sum(e for _, e in blocks) >= 0.05
    assert 0 < m.median < 1e-3
    a = Timer("time.sleep(0.002)", globals={"time": time}).adaptive_autorange(
        threshold=0.1, min_run_time=0.01, max_run_time=2.0)
    assert len(a.times) > 3
    assert a.meets_confidence(0.1) or sum(a.raw_times) > 2.0
    with pytest.raises(NotImplementedError):
        t.repeat()
    with pytest.raises(NotImplementedError):
        t.autorange()


def test_timer_times_torch_with_the_same_code():
    import torch

    for lib in (ember, torch):
        m = Timer("lib.add(x, x)", setup="x = lib.ones(4)", globals={"lib": lib}, description=lib.__name__)
        assert m.blocked_autorange(min_run_time=0.02).median > 0


def test_statement_errors_name_the_statement():
    with pytest.raises(ZeroDivisionError) as info:
        Timer("a = 1\nb = a / 0", label="div").timeit(3)
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "raised while timing statement" in notes and "b = a / 0" in notes
    # The traceback shows the failing line of the statement.
    import traceback

    assert "b = a / 0" in "".join(traceback.format_exception(info.value))
    with pytest.raises(NameError) as info:
        Timer("pass", setup="x = undefined_name").blocked_autorange()
    assert "raised while timing setup" in "\n".join(info.value.__notes__)
    assert "x = undefined_name" in "\n".join(info.value.__notes__)
    # Ember's own errors keep their type.
    with pytest.raises(RuntimeError) as info:
        Timer("ember.add(a, b)", setup="a = ember.ones(2); b = ember.ones(3)").timeit(1)
    assert "ember.add(a, b)" in "\n".join(info.value.__notes__)
    with pytest.raises(SyntaxError, match="invalid statement"):
        Timer("x +")


def test_timer_rejects_bad_arguments():
    with pytest.raises(ValueError, match="must be a str"):
        Timer(lambda: None)
    with pytest.raises(ValueError, match="setup"):
        Timer("pass", setup=None)
    with pytest.raises(ValueError, match="num_threads"):
        Timer("pass", num_threads=0)
    t = Timer("pass")
    with pytest.raises(ValueError, match="min_run_time must be a positive number"):
        t.blocked_autorange(min_run_time=-1)
    with pytest.raises(ValueError, match="min_run_time"):
        t.blocked_autorange(min_run_time=0)
    with pytest.raises(ValueError, match="number must be a positive integer"):
        t.timeit(0)
    with pytest.raises(ValueError, match="number"):
        t.timeit(-3)
    with pytest.raises(ValueError, match="threshold"):
        t.adaptive_autorange(threshold=0)
    with pytest.raises(ValueError, match="min_run_time"):
        t.adaptive_autorange(min_run_time=-0.5)
    with pytest.raises(ValueError, match="max_run_time .* is less than min_run_time"):
        t.adaptive_autorange(min_run_time=1.0, max_run_time=0.5)
    with pytest.raises(ValueError, match="number"):
        t.collect_callgrind(number=0)
    with pytest.raises(ValueError, match="repeats"):
        t.collect_callgrind(number=1, repeats=0)


# ---------------------------------------------------------------- Fuzzer

def small_fuzzer(seed, **kw):
    return Fuzzer(
        parameters=[
            FuzzedParameter("dim", distribution={1: 0.3, 2: 0.4, 3: 0.3}, strict=True),
            [FuzzedParameter(f"k{i}", minval=2, maxval=64, distribution="loguniform") for i in range(3)],
            FuzzedParameter("step", distribution={1: 0.5, 2: 0.3, 3: 0.2}),
            FuzzedParameter("alpha", minval=-1.0, maxval=1.0, distribution="uniform"),
            FuzzedParameter("n_int", minval=0, maxval=5, distribution="uniform"),
            FuzzedParameter("y_k0", distribution={ParameterAlias("k0"): 0.5, 1: 0.5}),
        ],
        tensors=[
            FuzzedTensor("x", size=("k0", "k1", "k2"), steps=("step", 1, "step"), probability_contiguous=0.5,
                         min_elements=4, max_elements=4096, dim_parameter="dim", dtype=kw.get("dtype", ember.float32)),
            FuzzedTensor("y", size=("y_k0", 3), dtype=ember.int64),
        ],
        constraints=kw.get("constraints"),
        seed=seed,
    )


def snapshot(fuzzer, n):
    out = []
    for tensors, props, params in fuzzer.take(n):
        out.append((
            {k: (tuple(v.shape), tuple(v.stride()), v.numpy().tolist()) for k, v in tensors.items()},
            {k: {p: (q.tolist() if isinstance(q, np.ndarray) else q) for p, q in d.items()} for k, d in props.items()},
            params,
        ))
    return out


def test_fuzzer_is_deterministic_for_a_seed():
    a = snapshot(small_fuzzer(123), 20)
    assert snapshot(small_fuzzer(123), 20) == a
    f = small_fuzzer(123)
    assert snapshot(f, 20) == snapshot(f, 20)  # take restarts from the seed
    assert snapshot(small_fuzzer(124), 20) != a


def test_fuzzer_cases_follow_their_specification():
    seen_dims, seen_contiguous = set(), set()
    for tensors, props, params in small_fuzzer(7).take(60):
        x, y = tensors["x"], tensors["y"]
        dim = params["dim"]
        seen_dims.add(dim)
        assert all(2 <= params[f"k{i}"] <= 64 for i in range(3))
        assert -1.0 <= params["alpha"] <= 1.0 and isinstance(params["alpha"], float)
        assert params["n_int"] in range(6) and isinstance(params["n_int"], int)
        assert params["y_k0"] in (1, params["k0"])
        size = tuple(params[f"k{i}"] for i in range(3))[:dim]
        assert tuple(x.shape) == size
        assert 4 <= x.numel() <= 4096 and props["x"]["numel"] == x.numel()
        assert x.dtype == ember.float32 and props["x"]["dtype"] == "ember.float32"
        assert props["x"]["is_contiguous"] == x.is_contiguous()
        seen_contiguous.add(x.is_contiguous())
        vals = x.numpy()
        assert ((vals >= 0) & (vals < 1)).all()
        assert tuple(y.shape) == (params["y_k0"], 3) and y.dtype == ember.int64
        assert ((y.numpy() >= 1) & (y.numpy() < 127)).all()
    assert seen_dims == {1, 2, 3} and seen_contiguous == {True, False}


def test_fuzzed_tensor_layouts():
    params = [FuzzedParameter("n", distribution={8: 1.0})]
    always = Fuzzer(params, [FuzzedTensor("t", size=("n", "n", 4), probability_contiguous=0.0)], seed=1)
    for tensors, props, _ in always.take(5):
        t = tensors["t"]
        assert not t.is_contiguous() and tuple(props["t"]["order"]) != (0, 1, 2)
        assert sorted(props["t"]["order"].tolist()) == [0, 1, 2]
        assert t.contiguous().is_contiguous()
    never = Fuzzer(params, [FuzzedTensor("t", size=("n", 4), probability_contiguous=1.0)], seed=1)
    assert all(tensors["t"].is_contiguous() for tensors, _, _ in never.take(5))
    strided = Fuzzer(params, [FuzzedTensor("t", size=("n", 4), steps=(2, 3), probability_contiguous=1.0)], seed=1)
    (tensors, props, _), = strided.take(1)
    assert tuple(tensors["t"].shape) == (8, 4) and tuple(tensors["t"].stride()) == (24, 3)
    assert props["t"]["steps"] == (2, 3)
    for dtype in (ember.float64, ember.float16, ember.complex64, ember.int8, ember.bool):
        f = Fuzzer(params, [FuzzedTensor("t", size=("n",), dtype=dtype)], seed=0)
        (tensors, _, _), = f.take(1)
        assert tensors["t"].dtype == dtype
    custom = Fuzzer(params, [FuzzedTensor("t", size=("n",),
                                          tensor_constructor=lambda size, dtype, **kw: ember.full(size, kw["n"]))], seed=0)
    (tensors, _, _), = custom.take(1)
    assert tensors["t"].numpy().tolist() == [8.0] * 8


def test_fuzzer_constraints():
    f = small_fuzzer(3, constraints=[lambda p: p["k0"] >= p["k1"]])
    for _, _, params in f.take(30):
        assert params["k0"] >= params["k1"]
    assert 0 < f.rejection_rate < 1
    impossible = small_fuzzer(3, constraints=[lambda p: p["k0"] > 1000])
    start = time.perf_counter()
    with pytest.raises(ValueError, match="no parameters met the constraints in 1000 tries"):
        next(impossible.take(1))
    assert time.perf_counter() - start < 10
    # Tensor limits that no size can meet fail the same way.
    tiny = Fuzzer([FuzzedParameter("n", minval=10, maxval=20, distribution="uniform")],
                  [FuzzedTensor("t", size=("n",), max_elements=5)], seed=0)
    with pytest.raises(ValueError, match="constraints"):
        list(tiny.take(1))


def test_fuzzer_rejects_bad_specifications():
    with pytest.raises(ValueError, match="distribution must be"):
        FuzzedParameter("p", 0, 1, distribution="normal")
    with pytest.raises(ValueError, match="minval and maxval are required"):
        FuzzedParameter("p", distribution="uniform")
    with pytest.raises(ValueError, match="must not be set"):
        FuzzedParameter("p", 0, 1, distribution={1: 1.0})
    with pytest.raises(ValueError, match="sum to"):
        FuzzedParameter("p", distribution={1: 0.5, 2: 0.2})
    with pytest.raises(ValueError, match="negative"):
        FuzzedParameter("p", distribution={1: 1.5, 2: -0.5})
    with pytest.raises(ValueError, match="minval .* > maxval"):
        FuzzedParameter("p", 5, 1, distribution="uniform")
    with pytest.raises(ValueError, match="loguniform needs minval > 0"):
        FuzzedParameter("p", 0, 10, distribution="loguniform")
    with pytest.raises(ValueError, match="probability_contiguous"):
        FuzzedTensor("t", size=(2,), probability_contiguous=1.5)
    with pytest.raises(ValueError, match="differ in length"):
        FuzzedTensor("t", size=(2, 3), steps=(1,))
    p = FuzzedParameter("p", 1, 4, distribution="uniform")
    with pytest.raises(ValueError, match="Duplicate names"):
        Fuzzer([p], [FuzzedTensor("p", size=(2,))])
    with pytest.raises(ValueError, match="duplicate parameter names"):
        Fuzzer([p, p], [])
    with pytest.raises(ValueError, match="seed"):
        Fuzzer([p], [], seed=-1)
    with pytest.raises(ValueError, match="cycle"):
        next(Fuzzer([FuzzedParameter("a", distribution={ParameterAlias("b"): 1.0}),
                     FuzzedParameter("b", distribution={ParameterAlias("a"): 1.0})], [], seed=0).take(1))
    with pytest.raises(ValueError, match="no parameter named 'm'"):
        next(Fuzzer([p], [FuzzedTensor("t", size=("m",))], seed=0).take(1))
    with pytest.raises(ValueError, match="non-negative"):
        next(Fuzzer([p], [], seed=0).take(-1))


def _is_regular(n):
    for f in (2, 3, 5):
        while n % f == 0:
            n //= f
    return n == 1


def test_ready_made_fuzzers():
    def cases(fuzzer):
        return [(params, {k: (tuple(v.shape), tuple(v.stride()), float(v.double().sum().item()))
                          for k, v in tensors.items()})
                for tensors, _, params in fuzzer.take(2)]

    for seed in (0, 1):
        unary = cases(UnaryOpFuzzer(seed=seed))
        assert cases(UnaryOpFuzzer(seed=seed)) == unary
        for params, t in unary:
            assert 4 * 1024 <= math.prod(t["x"][0]) <= 32 * 1024 ** 2
            assert len(t["x"][0]) == params["dim"]

        for tensors, _, params in BinaryOpFuzzer(seed=seed).take(2):
            x, y = tensors["x"], tensors["y"]
            assert x.dtype == y.dtype == ember.float32
            assert all(b in (a, 1) for a, b in zip(x.shape, y.shape))
            assert tuple((x + y).shape) == tuple(x.shape)  # y broadcasts against x

        spectral = SpectralOpFuzzer(seed=seed)
        for tensors, _, params in spectral.take(2):
            x = tensors["x"]
            assert x.dtype == ember.float64 and len(x.shape) == params["ndim"]
            assert all(_is_regular(n) and 16 < n <= 16 * 1024 for n in x.shape)
    assert cases(BinaryOpFuzzer(seed=5)) == cases(BinaryOpFuzzer(seed=5))
    assert UnaryOpFuzzer(seed=0, dtype=ember.float64)._tensors[0]._dtype == ember.float64


# ---------------------------------------------------------------- FunctionCounts

def test_function_counts_arithmetic():
    a = FunctionCounts((FunctionCount(100, "lib.so:f"), FunctionCount(30, "lib.so:g")), inclusive=False)
    b = FunctionCounts((FunctionCount(60, "lib.so:f"), FunctionCount(30, "lib.so:g"),
                        FunctionCount(5, "lib.so:h")), inclusive=False)
    d = a - b
    assert list(d) == [FunctionCount(40, "lib.so:f"), FunctionCount(-5, "lib.so:h")]
    assert (a + b).sum() == 225 and (a * 2).sum() == 260
    assert len(a) == 2 and a[0] == FunctionCount(100, "lib.so:f") and isinstance(a[:1], FunctionCounts)
    assert a.filter(lambda fn: fn.endswith("g")).sum() == 30
    assert a.transform(lambda fn: "all").sum() == 130 and len(a.transform(lambda fn: "all")) == 1
    with pytest.raises(ValueError, match="inclusive and exclusive"):
        a - FunctionCounts((), inclusive=True)
    text = repr(d)
    assert text.splitlines()[1:] == ["  40  lib.so:f", "  -5  lib.so:h", "", "Total: 35"]
    noisy = FunctionCounts((FunctionCount(500, "???:ember::add(...) [/x/libember.so]"),
                            FunctionCount(90, "Objects/dictobject.c:lookdict_unicode [/usr/bin/python3.11]"),
                            FunctionCount(70, "???:0x00000000005513f0 [/usr/bin/python3.11]"),
                            FunctionCount(20, "???:0x0000000000001000 [/x/_C.cpython-311-x86_64-linux-gnu.so]"),
                            FunctionCount(3, "???:tiny [/x/libember.so]")), inclusive=False)
    assert [fc.count for fc in noisy.denoise()] == [500, 20, 3]
    assert [fc.count for fc in noisy.denoise(min_count=10)] == [500, 20]


# ---------------------------------------------------------------- callgrind


def needs_valgrind(test):
    has_valgrind = shutil.which("valgrind") is not None and shutil.which("callgrind_annotate") is not None
    return pytest.mark.timing(pytest.mark.skipif(not has_valgrind, reason="valgrind is not installed")(test))


@needs_valgrind
def test_callgrind_counts_repeat_within_one_percent():
    t = Timer("x + y", setup="x = ember.ones(8); y = ember.ones(8)", label="add")
    runs = [t.collect_callgrind(number=100) for _ in range(3)]  # each in a fresh process
    counts = [s.counts() for s in runs]
    spread = (max(counts) - min(counts)) / min(counts)
    denoised = [s.counts(denoise=True) for s in runs]
    spread_denoised = (max(denoised) - min(denoised)) / min(denoised)
    print(f"\ncallgrind x + y, 100 runs: {counts} (spread {spread:.3%}); "
          f"denoised {denoised} (spread {spread_denoised:.3%})")
    assert spread <= 0.01 and spread_denoised <= 0.01
    s = runs[0]
    assert isinstance(s, CallgrindStats) and s.number_per_run == 100
    # The loop runs ember's add: it shows up inclusively, and costs far more than the empty loop.
    inclusive = s.stats(inclusive=True)
    assert any("ember::add(" in fn for _, fn in inclusive)
    assert s.counts() > 20 * s.baseline_exclusive_stats.sum() > 0
    assert s.stats().sum() == s.counts()
    delta = runs[1].delta(runs[0])
    assert abs(delta.sum()) <= 0.01 * counts[0]
    text = repr(s)
    assert "Instructions:" in text and "100 runs per measurement, 1 thread" in text
    std = s.as_standardized()
    assert std.counts() == s.counts() and std.counts(denoise=True) == s.counts(denoise=True)
    assert any(fn.endswith(" [libember.so]") for _, fn in std.stats())
    assert not any("/" in fn for _, fn in std.stats() if fn.startswith("???:"))


@needs_valgrind
def test_callgrind_repeats_globals_and_delta():
    x = ember.ones(4)
    t = Timer("ember.mul(x, k)", globals={"x": x, "k": 3, "np": np, "box": CopyIfCallgrind([1, 2])})
    first, second = t.collect_callgrind(number=20, repeats=2, retain_out_file=True)
    assert first.counts() > 0 and "events: Ir" in first.stmt_callgrind_out
    # Repeats in one process may differ by a few percent (CPython 3.11 retries bytecode
    # specializations on a back-off schedule); the same repeat of two processes does not.
    assert abs(first.counts() - second.counts()) <= 0.05 * first.counts()
    # A bigger statement costs more; delta says where.
    bigger = Timer("ember.mul(x, k); ember.add(x, x)", globals={"x": x, "k": 3}).collect_callgrind(
        number=20, collect_baseline=False)
    assert bigger.baseline_exclusive_stats.sum() == 0
    d = bigger.delta(first, inclusive=True)
    assert any("ember::add(" in fn and c > 0 for c, fn in d)
    with pytest.raises(ValueError, match="cannot transfer global 'obj'"):
        Timer("obj", globals={"obj": object()}).collect_callgrind(number=1)
    with pytest.raises(ValueError, match="non-contiguous"):
        Timer("v", globals={"v": ember.ones(2, 3).t()}).collect_callgrind(number=1)
    with pytest.raises(ValueError, match="pickled"):
        CopyIfCallgrind(lambda: None)


@needs_valgrind
def test_callgrind_statement_errors_surface_before_valgrind():
    with pytest.raises(ZeroDivisionError) as info:
        Timer("1 / 0").collect_callgrind(number=5)
    assert "1 / 0" in "\n".join(info.value.__notes__)


def test_callgrind_without_valgrind_names_the_package(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # no valgrind on PATH
    with pytest.raises(OSError, match=r"Install the `valgrind` package"):
        Timer("pass").collect_callgrind(number=1)


def test_callgrind_bindings_are_inert_outside_valgrind():
    C = ember._C
    assert C._valgrind_supported_platform() is True
    assert C._running_on_valgrind() is False
    for fn in (C._valgrind_toggle, C._valgrind_toggle, C._valgrind_zero_stats,
               C._valgrind_start_instrumentation, C._valgrind_stop_instrumentation):
        assert fn() is None


def test_docs_example_runs():
    """The guide's first example (docs/BENCHMARKING.md) works as written."""
    path = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "BENCHMARKING.md")
    with open(path) as f:
        text = f.read()
    start = text.index("```python\n") + len("```python\n")
    code = text[start:text.index("```", start)]
    exec(compile(code, "BENCHMARKING.md", "exec"), {})
