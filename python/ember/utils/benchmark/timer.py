"""Timer: timeit.Timer with replicates, warm-up and Ember's thread count under control."""

import itertools
import linecache
import math
import statistics
import textwrap
import timeit
from typing import Any, Callable, Dict, List, Optional

from . import common

__all__ = ["Timer", "timer"]

timer = timeit.default_timer

_counter = itertools.count()


def _clean(code: str) -> str:
    """Dedents a snippet and drops the leading newline of a block string, so that snippets
    written inside functions run and print neatly."""
    code = textwrap.dedent(code)
    return (code[1:] if code.startswith("\n") else code).rstrip()


class _Inner:
    """The compiled timing loop: setup once, then `number` runs of stmt between two clock reads.

    The source is registered with linecache so that a traceback from the statement shows its
    line; an exception gets a note with the statement (or setup) text.
    """

    def __init__(self, stmt: str, setup: str, timer_fn: Callable[[], float], globals_: Dict[str, Any]):
        self._stmt, self._setup, self._timer = stmt, setup, timer_fn
        setup_lines = (setup or "pass").splitlines()
        stmt_lines = (stmt or "pass").splitlines()
        # Line 1 is the def; setup follows, then the two clock reads around the loop.
        self._setup_range = (2, 1 + len(setup_lines))
        src = "\n".join(
            ["def inner(_ember_it, _ember_timer):"]
            + ["    " + line for line in setup_lines]
            + ["    _ember_t0 = _ember_timer()", "    for _ember_i in _ember_it:"]
            + ["        " + line for line in stmt_lines]
            + ["    _ember_t1 = _ember_timer()", "    return _ember_t1 - _ember_t0", ""])
        self._filename = f"<ember-timer-{next(_counter)}>"
        try:
            code = compile(src, self._filename, "exec")
        except SyntaxError as e:
            raise SyntaxError(f"invalid statement or setup for Timer:\n  stmt: {stmt!r}\n  setup: {setup!r}\n"
                              f"({e.msg})") from None
        linecache.cache[self._filename] = (len(src), None, src.splitlines(True), self._filename)
        local_ns: Dict[str, Any] = {}
        exec(code, globals_, local_ns)
        self._fn = local_ns["inner"]

    def __call__(self, number: int) -> float:
        try:
            return self._fn(itertools.repeat(None, number), self._timer)
        except Exception as e:
            in_setup = False
            tb = e.__traceback__
            while tb is not None:  # the innermost frame of our source says setup or stmt
                if tb.tb_frame.f_code.co_filename == self._filename:
                    lo, hi = self._setup_range
                    in_setup = lo <= tb.tb_lineno <= hi
                tb = tb.tb_next
            which, text = ("setup", self._setup) if in_setup else ("statement", self._stmt)
            e.add_note(f"(raised while timing {which}:\n{textwrap.indent(text, '    ')}\n)")
            raise


class Timer:
    """Measures the time of a Python statement, in the manner of torch.utils.benchmark.Timer.

    Like timeit.Timer, but it warms up before measuring, runs with `num_threads` intra-op
    threads (ember.set_num_threads, restored afterwards; default 1 so that results are
    comparable across machines), measures replicates rather than a single total, and tags the
    result with label / sub_label / description / env for Compare.

    `stmt` and `setup` are strings of Python code; `setup` runs once per timing loop and may
    define names for `stmt`. `globals` provides further names (copied; `ember` is added).
    """

    def __init__(
        self,
        stmt: str = "pass",
        setup: str = "pass",
        timer: Callable[[], float] = timer,
        globals: Optional[Dict[str, Any]] = None,
        label: Optional[str] = None,
        sub_label: Optional[str] = None,
        description: Optional[str] = None,
        env: Optional[str] = None,
        num_threads: int = 1,
    ):
        if not isinstance(stmt, str):
            raise ValueError(f"Timer: `stmt` must be a str of Python code, got {type(stmt).__name__}. "
                             "To time a callable f, pass stmt='f()' and globals={'f': f}.")
        if not isinstance(setup, str):
            raise ValueError(f"Timer: `setup` must be a str of Python code, got {type(setup).__name__}.")
        if isinstance(num_threads, bool) or not isinstance(num_threads, int) or num_threads < 1:
            raise ValueError(f"Timer: num_threads must be a positive integer, got {num_threads!r}.")
        import ember

        self._globals = dict(globals or {})  # a copy: exec adds __builtins__
        self._globals.setdefault("ember", ember)
        stmt, setup = _clean(stmt), _clean(setup)
        self._inner = _Inner(stmt, setup, timer, self._globals)
        self._task_spec = common.TaskSpec(stmt=stmt, setup=setup, label=label, sub_label=sub_label,
                                          description=description, env=env, num_threads=num_threads)

    @property
    def task_spec(self) -> common.TaskSpec:
        return self._task_spec

    def _timeit(self, number: int) -> float:
        # No real statement takes under a nanosecond; this also keeps ratios finite.
        return max(self._inner(number), 1e-9)

    def timeit(self, number: int = 1000000) -> common.Measurement:
        """Runs stmt `number` times (after a warm-up of number // 100, at least 2) as one run."""
        _check_count("timeit", "number", number)
        with common.set_ember_threads(self._task_spec.num_threads):
            self._timeit(max(number // 100, 2))
            return common.Measurement(number_per_run=number, raw_times=[self._timeit(number)],
                                      task_spec=self._task_spec)

    def repeat(self, repeat: int = -1, number: int = -1) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange`.")

    def autorange(self, callback: Optional[Callable[[int, float], None]] = None) -> None:
        raise NotImplementedError("See `Timer.blocked_autorange`.")

    def _estimate_block_size(self, min_run_time: float) -> int:
        """Calls per run such that the clock reads cost < 0.01% of a run; doubles as a warm-up."""
        overhead = statistics.median(self._timeit(0) for _ in range(5))
        number = 1
        while True:
            time_taken = self._timeit(number)
            if overhead / time_taken <= 1e-4 and time_taken >= min_run_time / 1000:
                break
            if time_taken > min_run_time or number * 10 > 2 ** 31 - 1:
                break
            number *= 10
        return number

    def _measurement_loop(self, number: int, stop: Callable[[List[float]], bool], min_run_time: float,
                          max_run_time: Optional[float], callback) -> List[float]:
        total, times = 0.0, []
        while True:
            t = self._timeit(number)
            times.append(t)
            total += t
            if callback:
                callback(number, t)
            if total >= min_run_time and stop(times):
                break
            if max_run_time is not None and total > max_run_time:
                break
        return times

    def blocked_autorange(self, callback: Optional[Callable[[int, float], None]] = None,
                          min_run_time: float = 0.2) -> common.Measurement:
        """Runs blocks of a fixed number of calls until `min_run_time` seconds are spent.

        The block size is the smallest power of ten for which timer overhead is negligible (found
        during a warm-up); every block is one replicate of the Measurement.
        """
        _check_time("blocked_autorange", "min_run_time", min_run_time)
        with common.set_ember_threads(self._task_spec.num_threads):
            number = self._estimate_block_size(min_run_time)
            times = self._measurement_loop(number, lambda _: True, min_run_time, None, callback)
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01,
                           max_run_time: float = 10.0,
                           callback: Optional[Callable[[int, float], None]] = None) -> common.Measurement:
        """Like blocked_autorange, but runs until IQR / median < `threshold` (with more than 3
        replicates and at least `min_run_time` spent) or `max_run_time` is exceeded."""
        if not (isinstance(threshold, (int, float)) and threshold > 0):
            raise ValueError(f"adaptive_autorange: threshold must be a positive number, got {threshold!r}.")
        _check_time("adaptive_autorange", "min_run_time", min_run_time)
        _check_time("adaptive_autorange", "max_run_time", max_run_time)
        if max_run_time < min_run_time:
            raise ValueError(f"adaptive_autorange: max_run_time ({max_run_time}) is less than "
                             f"min_run_time ({min_run_time}).")

        def stop(times: List[float]) -> bool:
            return len(times) > 3 and common.Measurement(
                number_per_run=number, raw_times=times, task_spec=self._task_spec
            ).meets_confidence(threshold)

        with common.set_ember_threads(self._task_spec.num_threads):
            number = self._estimate_block_size(min_run_time=0.05)
            times = self._measurement_loop(number, stop, min_run_time, max_run_time, callback)
        return common.Measurement(number_per_run=number, raw_times=times, task_spec=self._task_spec)

    def collect_callgrind(self, number: int = 100, *, repeats: Optional[int] = None,
                          collect_baseline: bool = True, retain_out_file: bool = False):
        """Counts the instructions of `number` runs of stmt with valgrind's callgrind.

        The statement runs in a fresh process under valgrind (so globals must be transferable:
        see valgrind.py); instruction counts, unlike times, repeat from run to run, which makes
        them suited to regression checks on noisy machines. Returns a CallgrindStats, or a tuple
        of `repeats` of them. A baseline (an empty statement) is collected to show the cost of
        the loop itself.
        """
        from . import valgrind

        _check_count("collect_callgrind", "number", number)
        if repeats is not None:
            _check_count("collect_callgrind", "repeats", repeats)
        # Fail here, with the statement in the message, rather than inside valgrind.
        with common.set_ember_threads(self._task_spec.num_threads):
            self._timeit(1)
        result = valgrind.wrapper_singleton().collect_callgrind(
            self._task_spec, self._globals, number=number, repeats=repeats or 1,
            collect_baseline=collect_baseline, retain_out_file=retain_out_file)
        return result[0] if repeats is None else result


def _check_time(method: str, name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{method}: {name} must be a positive number of seconds, got {value!r}.")


def _check_count(method: str, name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{method}: {name} must be a positive integer, got {value!r}.")

