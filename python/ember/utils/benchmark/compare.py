"""Compare: tables of many Measurements, laid out as torch.utils.benchmark.Compare does.

One table per label. Rows are sub_labels (or statements), in blocks of equal thread count
(and env); columns are descriptions. Replicates (equal TaskSpecs) are merged first. Cells
show the median in one unit per table.
"""

import enum
import math
from typing import Dict, List, Optional, Sequence, Tuple

from . import common

__all__ = ["Colorize", "Compare"]

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


Cell = Optional[common.Measurement]


def _leading_digits(value: float) -> int:
    return math.ceil(math.log10(value)) if value > 0 else 1


class _Column:
    """Formats one column's cells with a common width and number of decimals."""

    def __init__(self, groups: List[Tuple[Cell, ...]], time_scale: float, trim: bool, highlight: bool):
        self.groups = groups  # the column's cells, per thread-count block
        cells = [m for g in groups for m in g if m is not None]
        self._trim = trim
        self._highlight = highlight and any(m.has_warnings for m in cells)
        digits = [_leading_digits(m.median / time_scale) for m in cells]
        unit_digits = max(digits)
        if trim:
            decimals = min(max(m.significant_figures - d, 0) for m, d in zip(cells, digits))
        else:
            decimals = 1
        self._width = unit_digits + decimals + (1 if decimals else 0)
        self._decimals = decimals
        self._suffix_width = 7 if self._highlight else 0

    def format(self, value: Optional[float], sigfigs: int, spread: Optional[float]) -> str:
        if value is None:
            return " " * len(self.format(1.0, sigfigs, None))
        if self._trim:
            value = common.trim_sigfig(value, sigfigs)
        suffix = f" (! {spread * 100:.0f}%)" if self._highlight and spread is not None else ""
        return f"{value:>{self._width}.{self._decimals}f}{suffix:>{self._suffix_width}}"


class _Row:
    def __init__(self, cells: List[Cell], group: int, show_env: bool, env_width: int,
                 time_scale: float, colorize: Colorize, num_threads: Optional[int]):
        self.cells = cells
        self.group = group
        self._show_env = show_env
        self._env_width = env_width
        self._time_scale = time_scale
        self._colorize = colorize
        self._num_threads = num_threads  # set on the first row of a thread-count block
        self.columns: Sequence[_Column] = ()

    def strings(self) -> List[str]:
        first = next(m for m in self.cells if m is not None)
        env = f"({first.env})" if self._show_env else ""
        out = ["  " + env.ljust(self._env_width + 4) + first.as_row_name]
        for m, col in zip(self.cells, self.columns):
            if m is None:
                out.append(col.format(None, 1, None))
            else:
                out.append(col.format(m.median / self._time_scale, m.significant_figures,
                                      m.iqr / m.median if m.has_warnings else None))
        return out

    def separator(self, width: int) -> List[str]:
        if self._num_threads is None:
            return []
        return [f"{self._num_threads} threads: ".ljust(width, "-")]

    @staticmethod
    def _color(segment: str, value: float, best: float) -> str:
        if value <= best * 1.01 or value <= best + 100e-9:
            return BEST + BOLD + segment + TERMINATE * 2
        if value <= best * 1.1:
            return GOOD + BOLD + segment + TERMINATE * 2
        if value >= best * 5:
            return VERY_BAD + BOLD + segment + TERMINATE * 2
        if value >= best * 2:
            return BAD + segment + TERMINATE * 2
        return segment

    def finalize(self, strings: List[str], widths: List[int]) -> List[str]:
        if self._colorize == Colorize.ROWWISE:
            row_best = min(m.median for m in self.cells if m is not None)
            bests: List[Optional[float]] = [row_best] * len(self.cells)
        elif self._colorize == Colorize.COLUMNWISE:
            bests = []
            for col in self.columns:
                medians = [m.median for m in col.groups[self.group] if m is not None]
                bests.append(min(medians) if medians else None)
        else:
            bests = [None] * len(self.cells)
        out = [strings[0].ljust(widths[0])]
        for s, width, m, best in zip(strings[1:], widths[1:], self.cells, bests):
            s = s.center(width)
            if best is not None and m is not None:
                s = self._color(s, m.median, best)
            out.append(s)
        return out


class _Table:
    def __init__(self, results: List[common.Measurement], colorize: Colorize, trim: bool, highlight: bool):
        self.results = results
        self.label = results[0].label
        self._highlight = highlight
        self.time_unit, self.time_scale = common.select_unit(min(m.median for m in results))

        row_keys = common.ordered_unique(self._row_key(m) for m in results)
        # Blocks of equal thread count and env; a stable sort keeps the statements' order.
        row_keys.sort(key=lambda k: (k[0], k[1]))
        self.column_keys = common.ordered_unique(m.description for m in results)
        row_pos = {k: i for i, k in enumerate(row_keys)}
        col_pos = {k: j for j, k in enumerate(self.column_keys)}
        grid: List[List[Cell]] = [[None] * len(self.column_keys) for _ in row_keys]
        for m in results:
            grid[row_pos[self._row_key(m)]][col_pos[m.description]] = m

        envs = {m.env for m in results}
        render_env = len(envs) > 1
        env_width = max(len(e) for e in envs) if render_env else 0

        self.rows: List[_Row] = []
        groups: List[List[List[Cell]]] = []
        prior_threads, prior_env = None, None
        for (threads, env, _), cells in zip(row_keys, grid):
            new_block = threads != prior_threads
            if new_block:
                prior_threads, prior_env = threads, None
                groups.append([])
            self.rows.append(_Row(cells, len(groups) - 1, render_env and env != prior_env, env_width,
                                  self.time_scale, colorize, threads if new_block else None))
            groups[-1].append(cells)
            prior_env = env
        columns = [_Column([tuple(r[j] for r in g) for g in groups], self.time_scale, trim, highlight)
                   for j in range(len(self.column_keys))]
        for r in self.rows:
            r.columns = columns

    @staticmethod
    def _row_key(m: common.Measurement) -> Tuple[int, str, str]:
        return m.num_threads, m.env, m.as_row_name

    def render(self) -> str:
        header = [""] + [k if k is not None else "" for k in self.column_keys]
        body = [r.strings() for r in self.rows]
        widths = [max(len(s) for s in col) for col in zip(header, *body)]
        lines = ["  |  ".join(s.center(w) for s, w in zip(header, widths))]
        width = len(lines[0])
        for strings, row in zip(body, self.rows):
            lines.extend(row.separator(width))
            lines.append("  |  ".join(row.finalize(strings, widths)))
        title = f" {self.label or ''} ".center(width - 2, "-")
        text = f"[{title}]\n" + "\n".join(lines) + "\n\n"
        text += f"Times are in {common.unit_to_english(self.time_unit)}s ({self.time_unit}).\n"
        if self._highlight and any(m.has_warnings for m in self.results):
            text += "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
        return text


class Compare:
    """Prints Measurements as comparison tables.

    >>> c = Compare(measurements)
    >>> c.trim_significant_figures(); c.colorize(rowwise=True); c.print()
    """

    def __init__(self, results: List[common.Measurement]):
        self._results: List[common.Measurement] = []
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False
        results = list(results)
        if not results:
            raise ValueError("Compare needs at least one Measurement, got an empty list.")
        self.extend_results(results)

    def extend_results(self, results: List[common.Measurement]) -> None:
        results = list(results)
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        """Rounds each cell to its measurement's significant figures."""
        self._trim_significant_figures = True

    def colorize(self, rowwise: bool = False) -> None:
        """Colours cells relative to the best of their column (or, rowwise, their row)."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self) -> None:
        """Marks noisy cells with (! XX%), the IQR as a percentage of the median."""
        self._highlight_warnings = True

    def __str__(self) -> str:
        return "\n".join(self._render())

    def print(self) -> None:
        print(str(self))

    def _render(self) -> List[str]:
        merged = common.Measurement.merge(self._results)
        by_label: Dict[Optional[str], List[common.Measurement]] = {}
        for m in merged:
            by_label.setdefault(m.label, []).append(m)
        return [_Table(group, self._colorize, self._trim_significant_figures, self._highlight_warnings).render()
                for group in by_label.values()]
