"""Tests generated from the op table (op_table.py), checked against PyTorch:

- every declared dtype: each sample's values, result dtype and shape match PyTorch's (where
  PyTorch 1.13 lacks the dtype on CPU, against PyTorch computing in a wider dtype, cast);
- every undeclared dtype: Ember raises, and so does PyTorch (the declaration is honest);
- every error input: Ember raises the same exception class as PyTorch, with a message that
  matches the row's pattern, and leaves its inputs unchanged.
"""
import re
import subprocess
import sys

import numpy as np
import pytest
import torch

import ember
from op_table import COVERED_ELSEWHERE, ROWS
from op_testing import ALL_DTYPES, build, compare, run_both, to_numpy


def _cases():
    for row in ROWS:
        for dtype in ALL_DTYPES:
            yield pytest.param(row, dtype, id=f"{row.name}-{dtype}")


@pytest.mark.parametrize("row,dtype", list(_cases()))
def test_op(row, dtype):
    samples = row.samples(dtype)
    assert samples, f"{row.name} has no samples"
    if dtype in row.dtypes:
        for i, sample in enumerate(samples):
            ctx = f"{row.name}[{sample.name or i}] {dtype}"
            (e_res, e_exc), (t_res, t_exc) = run_both(row, sample, dtype)
            if t_exc is not None and e_exc is None:
                # PyTorch 1.13 lacks this dtype on CPU: compare with PyTorch computing in a
                # wider dtype and casting back.
                up = _upcast_reference(row, sample, dtype)
                if up is None:
                    continue  # neither exists in a wider dtype: nothing to compare against
                compare(e_res, up, row.tol, ctx + " (vs upcast reference)")
                continue
            assert e_exc is None, f"{ctx}: Ember raised {type(e_exc).__name__}: {e_exc}"
            compare(e_res, t_res, row.tol, ctx)
    else:
        sample = samples[0]
        (e_res, e_exc), (t_res, t_exc) = run_both(row, sample, dtype)
        assert e_exc is not None, f"{row.name} {dtype}: undeclared dtype but Ember did not raise"
        assert isinstance(e_exc, (TypeError, RuntimeError, NotImplementedError)), \
            f"{row.name} {dtype}: raised {type(e_exc).__name__}: {e_exc}"
        assert t_exc is not None, \
            f"{row.name} {dtype}: PyTorch supports this dtype; declare and implement it"


def _upcast_reference(row, sample, dtype):
    wide = row.ref_upcast if dtype not in ("complex64", "complex128") else "complex128"
    args = [build(torch, a, dtype) for a in sample.args]
    kwargs = {k: build(torch, v, dtype) for k, v in sample.kwargs.items()}
    up = lambda x: x.to(getattr(torch, wide)) if isinstance(x, torch.Tensor) and x.is_floating_point() else x
    try:
        res = row.fn(torch, *[up(a) for a in args], **{k: up(v) for k, v in kwargs.items()})
    except Exception:  # noqa: BLE001
        return None
    cast = lambda x: x.to(getattr(torch, dtype)) if isinstance(x, torch.Tensor) and x.dtype == getattr(torch, wide) else x
    return tuple(cast(r) for r in res) if isinstance(res, tuple) else cast(res)


def _error_cases():
    for row in ROWS:
        for i, err in enumerate(row.errors()):
            yield pytest.param(row, err, id=f"{row.name}-error{i}")


@pytest.mark.parametrize("row,err", list(_error_cases()))
def test_error(row, err):
    t_args = [build(torch, a, err.dtype) for a in err.args]
    with pytest.raises(Exception) as t_info:
        row.fn(torch, *t_args, **err.kwargs)
    e_args = [build(ember, a, err.dtype) for a in err.args]
    before = [to_numpy(a).copy() for a in e_args if isinstance(a, ember.Tensor)]
    with pytest.raises(Exception) as e_info:
        row.fn(ember, *e_args, **err.kwargs)
    assert isinstance(e_info.value, err.exc), f"Ember raised {type(e_info.value).__name__}: {e_info.value}"
    assert type(e_info.value) is type(t_info.value), \
        f"Ember raised {type(e_info.value).__name__}, PyTorch {type(t_info.value).__name__}: {t_info.value}"
    if err.match:
        assert re.search(err.match, str(e_info.value)), f"message {str(e_info.value)!r} !~ {err.match!r}"
    after = [to_numpy(a) for a in e_args if isinstance(a, ember.Tensor)]
    for b, a in zip(before, after):
        np.testing.assert_array_equal(a, b, err_msg="a failed op changed its input")


def test_every_dispatched_op_has_a_row():
    """Each op the dispatcher knows maps to a row (by base name), so new ops add rows."""
    covered = {r.name.split("_")[0] for r in ROWS} | {r.name for r in ROWS}
    missing = []
    # Listed by a fresh interpreter: other tests load extra op libraries into this one.
    listing = subprocess.run([sys.executable, "-c", "import ember; print(*ember._C._registered_ops())"],
                             capture_output=True, text=True, check=True)
    for name in listing.stdout.split():
        base = name.split(".")[0].rstrip("_")
        if base not in covered and base not in _COVERED_ELSEWHERE | COVERED_ELSEWHERE:
            missing.append(name)
    assert not missing, f"ops without an op-table row: {missing}"


# Ops checked by dedicated tests instead of the table (random values cannot match PyTorch's).
_COVERED_ELSEWHERE = {"bernoulli", "normal", "uniform", "random", "randperm", "rand", "randn", "randint",
                      "index", "index_put", "masked_select", "nonzero", "resize", "mm", "bmm"}
