"""Benchmark utilities mirroring torch.utils.benchmark (PyTorch 1.8).

Timer measures Python statements (wall time with replicates, or instruction counts under
callgrind); Measurement holds the results; Compare prints them as tables; Fuzzer draws
reproducible random inputs. See docs/BENCHMARKING.md.
"""

from .common import Measurement, TaskSpec, select_unit, trim_sigfig  # noqa: F401
from .compare import Colorize, Compare  # noqa: F401
from .fuzzer import FuzzedParameter, FuzzedTensor, Fuzzer, ParameterAlias  # noqa: F401
from .op_fuzzers import BinaryOpFuzzer, SpectralOpFuzzer, UnaryOpFuzzer  # noqa: F401
from .timer import Timer  # noqa: F401
from .valgrind import CallgrindStats, CopyIfCallgrind, FunctionCount, FunctionCounts  # noqa: F401

__all__ = [
    "Timer", "Measurement", "TaskSpec", "select_unit", "trim_sigfig", "Compare", "Colorize",
    "Fuzzer", "FuzzedParameter", "FuzzedTensor", "ParameterAlias",
    "UnaryOpFuzzer", "BinaryOpFuzzer", "SpectralOpFuzzer",
    "CallgrindStats", "FunctionCounts", "FunctionCount", "CopyIfCallgrind",
]
