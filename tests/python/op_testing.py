"""Machinery of the op table: building the same inputs for Ember and PyTorch, running an
op in both, and comparing results (values, dtype, shape) or raised exceptions."""
import dataclasses
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch

import ember

ALL_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
              "float32", "float64", "complex64", "complex128")
INTEGRAL = ("uint8", "int8", "int16", "int32", "int64")
FLOATING = ("float16", "bfloat16", "float32", "float64")
COMPLEX = ("complex64", "complex128")
ALL_BUT_BOOL = tuple(d for d in ALL_DTYPES if d != "bool")
REAL = tuple(d for d in ALL_DTYPES if d not in COMPLEX)

# Default tolerances (rtol, atol) by dtype of the result.
TOLERANCES = {
    "float16": (1e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2), "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7),
}


@dataclasses.dataclass
class T:
    """A tensor argument described once and built identically for both libraries."""
    shape: Tuple[int, ...]
    low: float = -5.0
    high: float = 5.0
    noncontig: bool = False      # built as a strided view of a larger tensor
    transpose: bool = False      # built as the transpose of the reversed shape
    dtype: Optional[str] = None  # overrides the sample dtype (e.g. a bool condition)
    exclude_zero: bool = False   # for divisors
    seed: int = 0


@dataclasses.dataclass
class Sample:
    args: Sequence[Any]
    kwargs: Dict[str, Any] = dataclasses.field(default_factory=dict)
    name: str = ""


@dataclasses.dataclass
class ErrorSample:
    args: Sequence[Any]
    kwargs: Dict[str, Any]
    exc: type            # the exception class both libraries must raise
    match: str = ""      # regex the Ember message must match
    dtype: str = "float32"


@dataclasses.dataclass
class OpInfo:
    name: str
    # fn(lib, *args, **kwargs): runs the op with module `lib` (ember or torch)
    fn: Callable
    dtypes: Sequence[str]
    samples: Callable[[str], List[Sample]]
    errors: Callable[[], List[ErrorSample]] = lambda: []
    tol: Dict[str, Tuple[float, float]] = dataclasses.field(default_factory=dict)
    # Dtypes Ember supports beyond PyTorch 1.13's CPU: compared against PyTorch in this dtype
    ref_upcast: str = "float32"
    # The PyTorch side when it must differ from fn (works around a PyTorch bug; say which)
    torch_fn: Optional[Callable] = None


def _numpy_values(t: T, dtype: str):
    rng = np.random.default_rng(abs(hash((t.shape, t.seed))) % (2 ** 32))
    full = tuple(reversed(t.shape)) if t.transpose else t.shape
    if t.noncontig:
        full = full[:-1] + (full[-1] * 2,) if full else (2,)
    if dtype == "bool":
        return rng.random(full) > 0.5
    if dtype in INTEGRAL:
        low = max(t.low, 0) if dtype == "uint8" else t.low
        vals = np.asarray(rng.integers(int(low), int(t.high) + 1, size=full))
        if t.exclude_zero:
            vals[vals == 0] = 1
        return vals
    vals = np.asarray(rng.uniform(t.low, t.high, size=full))
    if dtype in COMPLEX:
        vals = np.asarray(vals + 1j * rng.uniform(t.low, t.high, size=full))
    if t.exclude_zero:
        vals[np.abs(vals) < 0.1] = 0.5
    return vals


def build(lib, arg, dtype: str):
    """Turns a T (or a list of T) into a tensor of `lib`; other arguments pass through."""
    if isinstance(arg, (list, tuple)) and arg and all(isinstance(a, T) for a in arg):
        return [build(lib, a, dtype) for a in arg]
    if not isinstance(arg, T):
        return arg
    dt = arg.dtype or dtype
    vals = _numpy_values(arg, dt)
    np_dtype = {"bfloat16": np.float32}.get(dt, dt)
    base = lib.from_numpy(np.array(vals, dtype=np_dtype, order="C")).clone()
    base = base.to(getattr(lib, dt))
    if arg.transpose:
        base = base.permute(*reversed(range(base.dim())))
    if arg.noncontig:
        base = base[..., ::2] if base.dim() else base
    assert tuple(base.shape) == tuple(arg.shape), (base.shape, arg.shape)
    return base


def to_numpy(x):
    """Values of a result as numpy (float16/bfloat16 widened to float32)."""
    if isinstance(x, torch.Tensor):
        if x.dtype in (torch.bfloat16, torch.float16):
            x = x.to(torch.float32)
        return x.detach().resolve_conj().numpy()
    if isinstance(x, ember.Tensor):
        if x.dtype in (ember.bfloat16, ember.float16):
            x = x.to(ember.float32)
        return x.numpy()
    return np.asarray(x)


def dtype_name(dt) -> str:
    return str(dt).split(".")[-1]


def flatten_results(r):
    if isinstance(r, (tuple, list)):
        out = []
        for x in r:
            out.extend(flatten_results(x))
        return out
    return [r]


def compare(e_res, t_res, tol, ctx):
    e_list, t_list = flatten_results(e_res), flatten_results(t_res)
    assert len(e_list) == len(t_list), f"{ctx}: {len(e_list)} results vs {len(t_list)}"
    for e, t in zip(e_list, t_list):
        if isinstance(t, torch.Tensor):
            assert isinstance(e, ember.Tensor), f"{ctx}: expected a tensor, got {type(e)}"
            assert dtype_name(e.dtype) == dtype_name(t.dtype), \
                f"{ctx}: dtype {dtype_name(e.dtype)} vs torch {dtype_name(t.dtype)}"
            assert tuple(e.shape) == tuple(t.shape), f"{ctx}: shape {tuple(e.shape)} vs {tuple(t.shape)}"
            en, tn = to_numpy(e), to_numpy(t)
            rtol, atol = tol.get(dtype_name(t.dtype), TOLERANCES.get(dtype_name(t.dtype), (0, 0)))
            np.testing.assert_allclose(en, tn, rtol=rtol, atol=atol, equal_nan=True, err_msg=ctx)
        else:
            assert e == t or (e != e and t != t), f"{ctx}: {e!r} vs {t!r}"


def run_both(op: OpInfo, sample: Sample, dtype: str):
    """Results (or raised exceptions) of the sample in both libraries."""
    out = {}
    for lib in (ember, torch):
        args = [build(lib, a, dtype) for a in sample.args]
        kwargs = {k: build(lib, v, dtype) for k, v in sample.kwargs.items()}
        fn = op.torch_fn if (lib is torch and op.torch_fn) else op.fn
        try:
            out[lib.__name__] = (fn(lib, *args, **kwargs), None)
        except Exception as exc:  # noqa: BLE001 - compared below
            out[lib.__name__] = (None, exc)
    return out["ember"], out["torch"]


def channels_last(lib, x):
    """x in channels-last memory order (NHWC / NDHWC strides), same values."""
    perm = (0, *range(2, x.dim()), 1)
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return x.permute(*perm).contiguous().permute(*inv)


def with_strides(fn):
    """fn's result and its strides (layouts must match PyTorch's too)."""
    def run(lib, *a, **k):
        y = fn(lib, *a, **k)
        return y, lib.tensor(list(y.stride()), dtype=lib.int64)
    return run
