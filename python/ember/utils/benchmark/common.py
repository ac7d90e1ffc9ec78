"""Shared pieces of the benchmark utilities: TaskSpec, Measurement and formatting helpers."""

import collections
import contextlib
import dataclasses
import math
import textwrap
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig",
           "ordered_unique", "set_ember_threads"]

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # 25 ns: below this a timer cannot resolve differences.

# A measurement whose interquartile range exceeds these fractions of its median is flagged.
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """What was measured (everything but the globals); hashable, so it keys merges."""
    stmt: str
    setup: str
    global_setup: str = ""
    label: Optional[str] = None
    sub_label: Optional[str] = None
    description: Optional[str] = None
    env: Optional[str] = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """The label, else the statement (one line), else an indented block of it."""
        suffix = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + suffix
        if "\n" not in self.stmt:
            return self.stmt + suffix
        sub = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{sub}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self) -> str:
        if not self.setup or self.setup == "pass":
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, '  ')}"
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        """The task part of a Measurement's or CallgrindStats' repr."""
        parts = [p for p in (self.title, self.description or "", self.setup_str()) if p]
        return "\n".join(p + "\n" if "\n" in p else p for p in parts)


_TASKSPEC_FIELDS = frozenset(f.name for f in dataclasses.fields(TaskSpec))


def _quantile(sorted_values: Tuple[float, ...], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's and torch.quantile's default)."""
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """The result of a Timer measurement: one or more runs of `number_per_run` calls each.

    Statistics are per call (raw time / number_per_run). Fields of the TaskSpec (label,
    sub_label, description, num_threads, ...) can be read directly from the Measurement.
    """
    number_per_run: int
    raw_times: List[float]
    task_spec: TaskSpec
    metadata: Optional[Dict[Any, Any]] = None  # For the user; never read here.

    def __post_init__(self) -> None:
        if not self.raw_times:
            raise ValueError("Measurement needs at least one time in `raw_times`, got an empty list.")
        if self.number_per_run < 1:
            raise ValueError(f"Measurement: number_per_run must be >= 1, got {self.number_per_run}.")
        self._stats: Optional[Tuple[Tuple[float, ...], float, float, float, float]] = None
        self._warnings: Tuple[str, ...] = ()

    def __getattr__(self, name: str) -> Any:
        # Only called when normal lookup fails: forward TaskSpec fields.
        if name in _TASKSPEC_FIELDS:
            return getattr(self.__dict__["task_spec"], name)
        raise AttributeError(f"'Measurement' object has no attribute '{name}'")

    # Statistics --------------------------------------------------------------------------
    def _lazy_init(self) -> Tuple[Tuple[float, ...], float, float, float, float]:
        if self._stats is None:
            s = tuple(sorted(self.times))
            median, p25, p75 = _quantile(s, 0.5), _quantile(s, 0.25), _quantile(s, 0.75)
            self._stats = (s, median, math.fsum(s) / len(s), p25, p75)
            rel_iqr = (p75 - p25) / median if median > 0 else 0.0
            if rel_iqr >= _IQR_GROSS_WARN_THRESHOLD:
                self._warnings = (self._warning(rel_iqr, "This suggests significant environmental influence."),)
            elif rel_iqr >= _IQR_WARN_THRESHOLD:
                self._warnings = (self._warning(rel_iqr, "This could indicate system fluctuation."),)
        return self._stats

    @staticmethod
    def _warning(rel_iqr: float, msg: str) -> str:
        return (f"  WARNING: Interquartile range is {rel_iqr * 100:.1f}% of the median measurement.\n"
                f"           {msg}")

    @property
    def times(self) -> List[float]:
        """Seconds per call for each run."""
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        return self._lazy_init()[1]

    @property
    def mean(self) -> float:
        return self._lazy_init()[2]

    @property
    def iqr(self) -> float:
        _, _, _, p25, p75 = self._lazy_init()
        return p75 - p25

    @property
    def significant_figures(self) -> int:
        """A rough estimate of the digits of the median that are not noise (1 to 4).

        Uses the points of the interquartile range (to ignore the tails) and a fixed z of 1.645
        for a 90% confidence interval of the median; Compare trims to this many digits.
        """
        s, median = self._lazy_init()[:2]
        points = s[len(s) // 4:math.ceil(3 * len(s) / 4)]
        mean = math.fsum(points) / len(points)
        std = math.sqrt(math.fsum((p - mean) ** 2 for p in points) / len(points))
        ci = max(1.645 * std / math.sqrt(len(points)), _MIN_CONFIDENCE_INTERVAL)
        figures = math.floor(math.log10(median / ci)) if median > 0 else 1
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self) -> bool:
        """True when the IQR is at least 10% of the median (a noisy measurement)."""
        self._lazy_init()
        return bool(self._warnings)

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        return self.iqr / self.median < threshold

    @property
    def title(self) -> str:
        return self.task_spec.title

    @property
    def env(self) -> str:
        return "Unspecified env" if self.task_spec.env is None else self.task_spec.env

    @property
    def as_row_name(self) -> str:
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self) -> str:
        s, median, _, p25, p75 = self._lazy_init()
        n = len(s)
        unit, scale = select_unit(median)
        lines = [object.__repr__(self), self.task_spec.summarize()]
        lines.append(f"  {'Median: ' if n > 1 else ''}{median / scale:.2f} {unit}")
        if n >= 4:
            lines.append(f"  IQR:    {(p75 - p25) / scale:.2f} {unit} ({p25 / scale:.2f} to {p75 / scale:.2f})")
        threads = self.task_spec.num_threads
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {threads} thread{'s' if threads > 1 else ''}")
        lines.extend(self._warnings)
        return "\n".join(lines)

    @staticmethod
    def merge(measurements: Iterable["Measurement"]) -> List["Measurement"]:
        """Merges replicates (same TaskSpec) into one Measurement each, in first-seen order.

        Times are normalised to number_per_run=1; metadata is dropped since replicates may
        disagree on it.
        """
        groups: Dict[TaskSpec, List[float]] = collections.OrderedDict()
        count = 0
        for m in measurements:
            if not isinstance(m, Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(m)} instead.")
            groups.setdefault(m.task_spec, []).extend(m.times)
            count += 1
        if count == 0:
            raise ValueError("Measurement.merge needs at least one Measurement, got an empty list.")
        return [Measurement(number_per_run=1, raw_times=times, task_spec=spec)
                for spec, times in groups.items()]


def select_unit(t: float) -> Tuple[str, float]:
    """The unit (ns, us, ms, s) in which `t` seconds reads as a number from 1 to 999."""
    exponent = math.floor(math.log10(t) / 3) if t > 0 else 0
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(exponent, "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[unit]


def unit_to_english(u: str) -> str:
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x: float, n: int) -> float:
    """`x` rounded to `n` significant figures (3.14159, 2 -> 3.1)."""
    if n != int(n) or n < 1:
        raise ValueError(f"trim_sigfig: n must be a positive integer, got {n}")
    if x == 0 or not math.isfinite(x):
        return x
    magnitude = math.ceil(math.log10(abs(x)))
    scale = 10.0 ** (magnitude - n)
    return round(x / scale) * scale


def ordered_unique(elements: Iterable[Any]) -> List[Any]:
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_ember_threads(n: int) -> Iterator[None]:
    """Runs the block with `n` intra-op threads and restores the previous count after."""
    import ember  # deferred: keeps this module importable while ember itself loads

    prior = ember.get_num_threads()
    try:
        ember.set_num_threads(n)
        yield
    finally:
        ember.set_num_threads(prior)
