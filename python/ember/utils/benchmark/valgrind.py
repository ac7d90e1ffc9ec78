"""Instruction counts with valgrind's callgrind: FunctionCounts, CallgrindStats and the runner.

Timer.collect_callgrind writes a script that sets up the statement, warms it up and runs it
`number` times with callgrind collecting only around that loop (client requests in
ember._C), runs it in a fresh interpreter under `valgrind --tool=callgrind`, and reads the
per-function counts back with callgrind_annotate. The child gets a fixed hash seed and thread
count, so counts repeat from run to run.
"""

import collections
import dataclasses
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import types
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Tuple, Union

from . import common

__all__ = ["FunctionCount", "FunctionCounts", "CallgrindStats", "CopyIfCallgrind"]


class FunctionCount(NamedTuple):
    count: int
    function: str


# CPython functions whose counts vary between runs of the same code: dict and attribute
# lookups (their probe sequences depend on hashes and on where objects were allocated), the
# small-object allocator, and the cyclic garbage collector (whose runs depend on counts of
# allocations made anywhere in the process).
_NOISY_SYMBOLS = re.compile(
    r"lookdict|unicodekeys_lookup|dictkeys_generic_lookup|dictkeys_stringlookup|find_name_in_mro|"
    r"_PyType_Lookup|_PyObject_Malloc|_PyObject_Free|pymalloc_|_PyObject_GC_|gc_collect|"
    r"visit_decref|visit_reachable|subtract_refs|move_unreachable|update_refs")
# Code of a stripped interpreter that has no symbol: its static functions, the lookups above
# among them, show up only as addresses and cannot be told apart.
_ANONYMOUS_INTERPRETER = re.compile(r"^\?\?\?:0x[0-9a-fA-F]+ \[(?:[^\]]*/)?(?:lib)?python[0-9.]*(?:\.so[0-9.]*)?\]$")


def _is_noise(function: str) -> bool:
    return bool(_NOISY_SYMBOLS.search(function) or _ANONYMOUS_INTERPRETER.match(function))


_LINEWIDTH = 80


@dataclasses.dataclass(repr=False, eq=False, frozen=True)
class FunctionCounts:
    """Per-function instruction counts, sorted by count (largest first).

    Supports + and - (per function; `a - b` is the change from b to a), * by a number,
    indexing and slicing, `filter`, `transform` (rename functions; equal names are summed),
    `sum` and `denoise`.
    """
    _data: Tuple[FunctionCount, ...]
    inclusive: bool
    truncate_rows: bool = True
    _linewidth: Optional[int] = None  # for tests

    def __iter__(self) -> Iterator[FunctionCount]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __getitem__(self, item: Any) -> Union[FunctionCount, "FunctionCounts"]:
        data = self._data[item]
        if isinstance(data, tuple) and not isinstance(data, FunctionCount):
            return FunctionCounts(data, self.inclusive, truncate_rows=False)
        return data

    def __repr__(self) -> str:
        count_len = max((len(str(c)) for c, _ in self), default=1)
        fn_len = max((self._linewidth or _LINEWIDTH) - count_len - 4, 40)
        lines = []
        for c, fn in self:
            if len(fn) > fn_len:
                left = (fn_len - 5) // 2
                fn = fn[:left] + " ... " + fn[-(fn_len - left - 5):]
            lines.append(f"  {c:>{count_len}}  {fn}")
        if self.truncate_rows and len(lines) > 18:
            lines = lines[:9] + ["...".rjust(count_len + 2)] + lines[-9:]
        if not self.inclusive:
            lines.extend(["", f"Total: {self.sum()}"])
        return "\n".join([object.__repr__(self)] + lines)

    def __add__(self, other: "FunctionCounts") -> "FunctionCounts":
        return self._merge(other, 1)

    def __sub__(self, other: "FunctionCounts") -> "FunctionCounts":
        return self._merge(other, -1)

    def __mul__(self, other: Union[int, float]) -> "FunctionCounts":
        return self._from_dict({fn: int(c * other) for c, fn in self}, self.inclusive)

    def transform(self, map_fn: Callable[[str], str]) -> "FunctionCounts":
        """Renames every function with map_fn; functions that map to one name are summed."""
        counts: Dict[str, int] = collections.defaultdict(int)
        for c, fn in self:
            counts[map_fn(fn)] += c
        return self._from_dict(counts, self.inclusive)

    def filter(self, filter_fn: Callable[[str], bool]) -> "FunctionCounts":
        """Keeps the functions for which filter_fn(name) is true."""
        return FunctionCounts(tuple(fc for fc in self if filter_fn(fc.function)), self.inclusive)

    def sum(self) -> int:
        return sum(c for c, _ in self)

    def denoise(self, min_count: int = 0) -> "FunctionCounts":
        """Drops interpreter noise and tiny entries.

        Noise is CPython internals whose counts vary between identical runs (dict and type
        lookups, the small-object allocator, the garbage collector) and, for an interpreter
        without symbols, its anonymous code (where those functions land). Entries whose count
        is below `min_count` in absolute value are dropped too."""
        return FunctionCounts(
            tuple(fc for fc in self if not _is_noise(fc.function) and abs(fc.count) >= min_count),
            self.inclusive)

    def _merge(self, other: "FunctionCounts", sign: int) -> "FunctionCounts":
        if not isinstance(other, FunctionCounts):
            return NotImplemented
        if self.inclusive != other.inclusive:
            raise ValueError("Cannot merge inclusive and exclusive counts.")
        counts: Dict[str, int] = collections.defaultdict(int)
        for c, fn in self:
            counts[fn] += c
        for c, fn in other:
            counts[fn] += sign * c
        return self._from_dict(counts, self.inclusive)

    @staticmethod
    def _from_dict(counts: Dict[str, int], inclusive: bool) -> "FunctionCounts":
        data = sorted((FunctionCount(c, fn) for fn, c in counts.items() if c), reverse=True)
        return FunctionCounts(tuple(data), inclusive)


@dataclasses.dataclass(repr=False, eq=False, frozen=True)
class CallgrindStats:
    """The instruction counts of `number_per_run` runs of a statement (and of an empty
    statement, the baseline), as collected by Timer.collect_callgrind."""
    task_spec: common.TaskSpec
    number_per_run: int
    baseline_inclusive_stats: FunctionCounts
    baseline_exclusive_stats: FunctionCounts
    stmt_inclusive_stats: FunctionCounts
    stmt_exclusive_stats: FunctionCounts
    stmt_callgrind_out: Optional[str]

    def __repr__(self) -> str:
        base = self.baseline_exclusive_stats
        threads = self.task_spec.num_threads
        return "\n".join([
            object.__repr__(self),
            self.task_spec.summarize(),
            f"  {'':>25}All{'':>10}Noisy symbols removed",
            f"    Instructions: {self.counts(denoise=False):>12}{'':>15}{self.counts(denoise=True):>12}",
            f"    Baseline:     {base.sum():>12}{'':>15}{base.denoise().sum():>12}",
            f"{self.number_per_run} runs per measurement, {threads} thread{'s' if threads > 1 else ''}",
        ])

    def stats(self, inclusive: bool = False) -> FunctionCounts:
        """Per-function counts; inclusive counts contain those of the callees (hot spots),
        exclusive ones only the function's own instructions (better for diffs)."""
        return self.stmt_inclusive_stats if inclusive else self.stmt_exclusive_stats

    def counts(self, *, denoise: bool = False) -> int:
        """The total instructions of the measured loop."""
        stats = self.stmt_exclusive_stats
        return (stats.denoise() if denoise else stats).sum()

    def delta(self, other: "CallgrindStats", inclusive: bool = False) -> FunctionCounts:
        """Per-function change from `other` (the baseline) to these counts."""
        if not isinstance(other, CallgrindStats):
            raise ValueError(f"delta: expected CallgrindStats, got {type(other).__name__}.")
        return self.stats(inclusive=inclusive) - other.stats(inclusive=inclusive)

    def as_standardized(self) -> "CallgrindStats":
        """Strips directories from source files and libraries in function names, so that
        builds in different directories can be diffed."""
        def strip(stats: FunctionCounts) -> FunctionCounts:
            return stats.transform(_standardize)

        return CallgrindStats(
            task_spec=self.task_spec, number_per_run=self.number_per_run,
            baseline_inclusive_stats=strip(self.baseline_inclusive_stats),
            baseline_exclusive_stats=strip(self.baseline_exclusive_stats),
            stmt_inclusive_stats=strip(self.stmt_inclusive_stats),
            stmt_exclusive_stats=strip(self.stmt_exclusive_stats),
            stmt_callgrind_out=None)  # names no longer match the raw file


_OBJECT_SUFFIX = re.compile(r"\s\[(?:[^\[\]]*/)?([^\[\]/]*)\]$")
_SOURCE_ROOT = re.compile(r"(?:^|/)((?:src|include|python|tests|benchmarks|Python|Objects|Modules|Include|Parser)/.*)$")


def _standardize(function: str) -> str:
    """`/a/b/src/ops/x.cpp:f(int) [/a/b/lib/libember.so]` -> `src/ops/x.cpp:f(int) [libember.so]`."""
    m = _OBJECT_SUFFIX.search(function)
    suffix = f" [{m.group(1)}]" if m else ""
    function = function[:m.start()] if m else function
    path, sep, name = function.partition(":")
    if sep and "/" in path:
        m = _SOURCE_ROOT.search(path)
        path = m.group(1) if m else os.path.basename(path)
    return path + sep + name + suffix


class CopyIfCallgrind:
    """Marks a global to be pickled into the callgrind process (collect_callgrind runs the
    statement in another interpreter). `setup` runs there before it is unpickled (imports)."""

    def __init__(self, value: Any, *, setup: Optional[str] = None):
        try:
            pickle.dumps(value)
        except Exception as e:
            raise ValueError(f"CopyIfCallgrind: the value cannot be pickled ({e}).") from None
        self.value = value
        self.setup = setup


_PLAIN_TYPES = (bool, int, float, complex, str, bytes, type(None))


def _globals_code(globals_: Dict[str, Any], data_dir: str) -> str:
    """Code that recreates the Timer's globals in the child process."""
    import ember

    lines = []
    for name, value in globals_.items():
        if name == "__builtins__" or (name == "ember" and value is ember):
            continue
        if isinstance(value, types.ModuleType):
            lines.append(f"import {value.__name__}" if name == value.__name__
                         else f"import {value.__name__} as {name}")
        elif isinstance(value, ember.Tensor):
            if not value.is_contiguous() or value.device.type != "cpu":
                raise ValueError(f"collect_callgrind: global '{name}' is a non-contiguous or non-CPU tensor; "
                                 "create it in `setup` instead.")
            path = os.path.join(data_dir, f"{name}.npy")
            try:
                arr = value.numpy()
            except Exception as e:
                raise ValueError(f"collect_callgrind: cannot transfer tensor global '{name}' ({e}); "
                                 "create it in `setup` instead.") from None
            import numpy as np

            np.save(path, arr)
            lines.append(f"import numpy as _np\n{name} = ember.from_numpy(_np.load({path!r}))")
        elif isinstance(value, (CopyIfCallgrind,) + _PLAIN_TYPES):
            setup = None
            if isinstance(value, CopyIfCallgrind):
                value, setup = value.value, value.setup
            if setup:
                lines.append(textwrap.dedent(setup))
            path = os.path.join(data_dir, f"{name}.pkl")
            with open(path, "wb") as f:
                pickle.dump(value, f)
            lines.append(f"with open({path!r}, 'rb') as _f:\n    {name} = pickle.load(_f)")
        else:
            raise ValueError(
                f"collect_callgrind: cannot transfer global '{name}' of type {type(value).__name__} to the "
                "valgrind process. Globals may be modules, contiguous CPU tensors, numbers, strings, or "
                "values wrapped in CopyIfCallgrind (pickled); otherwise create the object in `setup`.")
    return "\n".join(lines)


def _unrolled(stmt: str, number: int, indent: int) -> str:
    """`number` copies of stmt, in blocks of 100 inside a loop: a Python `for` per run would add
    more instructions than a small statement takes."""
    block = 100
    loops = number // block
    if loops == 1:
        loops = 0
    rest = number - block * loops
    out = ""
    if loops:
        out += f"for _ in range({loops}):\n" + textwrap.indent("\n".join([stmt] * block), "    ") + "\n"
    if rest:
        out += "\n".join([stmt] * rest) + "\n"
    return textwrap.indent(out, " " * indent)


_SCRIPT = """\
import gc
import os
import pickle
import sys

import ember
from ember import _C as _callgrind


def _fail(msg):
    with open({error_log!r}, "wt") as f:
        f.write(msg)
    sys.exit(1)


if os.path.realpath(sys.executable) != {executable!r}:
    _fail("interpreter mismatch: " + os.path.realpath(sys.executable) + " vs. " + {executable!r})
if os.path.realpath(ember.__file__) != {ember_file!r}:
    _fail("ember mismatch: " + os.path.realpath(ember.__file__) + " vs. " + {ember_file!r})
if not _callgrind._running_on_valgrind():
    _fail("the script is not running under valgrind")
ember.set_num_threads({num_threads})

# globals
{load_globals}

# setup
{setup}

_callgrind._valgrind_start_instrumentation()
for _ in range({warmup}):
{warmup_stmt}
gc.collect()

# Pass 0 of each loop runs uncollected: CPython 3.11 specializes bytecode on its first
# executions, so the first pass over the unrolled block costs more than the later ones.
for _pass in range({repeats} + 1):
    if _pass:
        _callgrind._valgrind_toggle()
{blocked_stmt}
    if _pass:
        _callgrind._valgrind_toggle_and_dump_stats()
    gc.collect()

for _pass in range(2 if {collect_baseline} else 0):
    if _pass:
        _callgrind._valgrind_toggle()
{blocked_pass}
    if _pass:
        _callgrind._valgrind_toggle_and_dump_stats()
_callgrind._valgrind_stop_instrumentation()
"""


def _missing_valgrind_message(tool: str) -> str:
    return (f"collect_callgrind needs `{tool}`, which was not found on PATH. Install the `valgrind` "
            "package (e.g. `apt-get install valgrind` or `dnf install valgrind`); it provides "
            "valgrind, callgrind_annotate and callgrind_control.")


class _ValgrindWrapper:
    def _validate(self) -> None:
        from ember import _C

        if not _C._valgrind_supported_platform():
            raise OSError("collect_callgrind is not supported on this platform (ember was built without "
                          "valgrind/callgrind.h or not for Linux on x86-64 / AArch64).")
        for tool in ("valgrind", "callgrind_annotate"):
            if shutil.which(tool) is None:
                raise OSError(_missing_valgrind_message(tool))

    def collect_callgrind(self, task_spec: common.TaskSpec, globals_: Dict[str, Any], *, number: int,
                          repeats: int, collect_baseline: bool,
                          retain_out_file: bool) -> Tuple[CallgrindStats, ...]:
        self._validate()
        results = self._invoke(task_spec, globals_, number, repeats, collect_baseline, retain_out_file)
        empty = (FunctionCounts((), inclusive=True), FunctionCounts((), inclusive=False), None)
        baseline = results[repeats] if collect_baseline else empty
        return tuple(CallgrindStats(task_spec=task_spec, number_per_run=number,
                                    baseline_inclusive_stats=baseline[0], baseline_exclusive_stats=baseline[1],
                                    stmt_inclusive_stats=inc, stmt_exclusive_stats=exc, stmt_callgrind_out=out)
                     for inc, exc, out in results[:repeats])

    def _invoke(self, task_spec, globals_, number, repeats, collect_baseline, retain_out_file):
        import ember

        work = tempfile.mkdtemp(prefix="ember_callgrind_")
        try:
            data_dir = os.path.join(work, "data")
            os.makedirs(data_dir)
            script = os.path.join(work, "timer_callgrind.py")
            out_file = os.path.join(work, "callgrind.out")
            error_log = os.path.join(work, "error.txt")
            with open(script, "wt") as f:
                f.write(_SCRIPT.format(
                    error_log=error_log,
                    executable=os.path.realpath(sys.executable),
                    ember_file=os.path.realpath(ember.__file__),
                    num_threads=task_spec.num_threads,
                    load_globals=_globals_code(globals_, data_dir),
                    setup=task_spec.setup or "pass",
                    warmup=min(number, 10),
                    warmup_stmt=textwrap.indent(task_spec.stmt or "pass", "    "),
                    repeats=repeats,
                    blocked_stmt=_unrolled(task_spec.stmt or "pass", number, 4),
                    collect_baseline=bool(collect_baseline),
                    blocked_pass=_unrolled("pass", number, 4)))

            env = dict(os.environ)
            # Same hashes and threads every run; ember found where this process found it.
            env["PYTHONHASHSEED"] = "0"
            env["OMP_NUM_THREADS"] = str(task_spec.num_threads)
            ember_root = os.path.dirname(os.path.dirname(os.path.realpath(ember.__file__)))
            paths = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
            env["PYTHONPATH"] = os.pathsep.join([ember_root] + paths)
            env.pop("PYTHONSTARTUP", None)
            cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", "--dump-line=yes",
                   "--dump-instr=no", "--instr-atstart=no", "--collect-atstart=no",
                   os.path.realpath(sys.executable), script]
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, cwd=work)
            if proc.returncode:
                report = ""
                if os.path.exists(error_log):
                    with open(error_log) as f:
                        report = f.read()
                if not report:
                    report = proc.stdout.decode(errors="replace")[-4000:]
                raise OSError(f"Failed to collect callgrind profile:\n{report}")

            results = []
            for i in range(repeats + (1 if collect_baseline else 0)):
                path = f"{out_file}.{i + 1}"  # callgrind numbers its dumps from 1
                if not os.path.exists(path):
                    raise OSError(f"callgrind wrote no profile {path}:\n"
                                  + proc.stdout.decode(errors="replace")[-4000:])
                contents = None
                if retain_out_file and i < repeats:
                    with open(path) as f:
                        contents = f.read()
                results.append((_annotate(path, inclusive=True), _annotate(path, inclusive=False), contents))
            return results
        finally:
            shutil.rmtree(work, ignore_errors=True)


_TOTAL = re.compile(r"^\s*([0-9,]+)\s+(\([^)]*\)\s+)?PROGRAM TOTALS")
_HEADER = re.compile(r"^\s*Ir\s+(\S+\s+)?file:function")
_FUNCTION = re.compile(r"^\s*([0-9,]+)\s+(?:\([^)]*\)\s+)?(.+:.+)$")


def _annotate(path: str, inclusive: bool) -> FunctionCounts:
    """Per-function counts of one callgrind.out file, read with callgrind_annotate."""
    proc = subprocess.run(["callgrind_annotate", f"--inclusive={'yes' if inclusive else 'no'}",
                           "--threshold=100", "--show-percs=no", "--auto=no", path],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = proc.stdout.decode(errors="replace")
    if proc.returncode:
        raise OSError(f"callgrind_annotate failed on {path}:\n{text[-4000:]}")
    total: Optional[int] = None
    counts: List[FunctionCount] = []
    state = "total"
    for line in text.splitlines():
        if state == "total":
            m = _TOTAL.match(line)
            if m:
                total = int(m.group(1).replace(",", ""))
                state = "header"
        elif state == "header":
            if _HEADER.match(line):
                state = "body"
        else:
            m = _FUNCTION.match(line)
            if m:
                count = int(m.group(1).replace(",", ""))
                # With several dumps callgrind adds top-level entries that repeat the total.
                if inclusive and count == total and "???:0x" in m.group(2):
                    continue
                counts.append(FunctionCount(count, m.group(2)))
            elif line.strip() == "" or re.match(r"^-+$", line.strip()):
                if counts and line.strip() == "":
                    break
            else:
                break
    if state != "body":
        raise OSError(f"could not parse the callgrind_annotate output of {path}:\n{text[:2000]}")
    return FunctionCounts(tuple(sorted(counts, reverse=True)), inclusive=inclusive)


_SINGLETON: Optional[_ValgrindWrapper] = None


def wrapper_singleton() -> _ValgrindWrapper:
    global _SINGLETON
    if _SINGLETON is None:
        _SINGLETON = _ValgrindWrapper()
    return _SINGLETON
