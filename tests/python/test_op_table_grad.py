"""Gradients of every op-table row against PyTorch's.

For each row declared for float64 (and complex128), each sample is built in both libraries
with its floating tensor arguments as leaves that require grad. Both libraries must agree
on which results require grad; the gradients of the inputs, for the same random weights on
the differentiable results (autograd.grad with grad_outputs), must match. Where PyTorch
has no derivative (it raises), Ember must raise too.
"""
import numpy as np
import pytest
import torch

import ember
from op_table import ROWS
from op_testing import build, flatten_results, to_numpy

GRAD_DTYPES = ("float64", "complex128")


# Known gaps, each expected to fail until it is closed (strict: a fix makes the test fail
# until the row is taken off this list).
_KNOWN_GAPS = set()


def _cases():
    for row in ROWS:
        for dtype in GRAD_DTYPES:
            if dtype in row.dtypes:
                marks = [pytest.mark.xfail(strict=True, reason="known gap, see _KNOWN_GAPS")] \
                    if (row.name, dtype) in _KNOWN_GAPS else []
                yield pytest.param(row, dtype, id=f"{row.name}-{dtype}", marks=marks)


def _leaves(lib, sample, dtype):
    def leaf(x):
        if isinstance(x, (list, tuple)) and x and all(isinstance(y, (ember.Tensor, torch.Tensor)) for y in x):
            return [leaf(y) for y in x]
        if isinstance(x, (ember.Tensor, torch.Tensor)) and (x.is_floating_point() or x.is_complex()):
            return x.detach().requires_grad_()
        return x
    args = [leaf(build(lib, a, dtype)) for a in sample.args]
    kwargs = {k: leaf(build(lib, v, dtype)) for k, v in sample.kwargs.items()}
    flat = [x for x in flatten_results(args) + flatten_results(list(kwargs.values()))
            if isinstance(x, (ember.Tensor, torch.Tensor)) and x.requires_grad]
    return args, kwargs, flat


def _weights(lib, results, seed):
    rng = np.random.default_rng(seed)
    out = []
    for r in results:
        w = rng.uniform(-1, 1, size=tuple(r.shape))
        if r.is_complex():
            w = w + 1j * rng.uniform(-1, 1, size=tuple(r.shape))
        # to_numpy widens half types: the weight takes the result's own dtype again
        out.append(lib.from_numpy(np.asarray(w, dtype=to_numpy(r.detach()).dtype)).to(r.dtype))
    return out


def _run(lib, row, sample, dtype):
    args, kwargs, inputs = _leaves(lib, sample, dtype)
    fn = row.torch_fn if (lib is torch and row.torch_fn) else row.fn
    res = [r for r in flatten_results(fn(lib, *args, **kwargs)) if isinstance(r, (ember.Tensor, torch.Tensor))]
    diff = [r for r in res if r.requires_grad]
    flags = [r.requires_grad for r in res]
    if not diff or not inputs:
        return flags, None
    grads = lib.autograd.grad(diff, inputs, _weights(lib, diff, 7), allow_unused=True)
    return flags, grads


@pytest.mark.parametrize("row,dtype", list(_cases()))
def test_gradients(row, dtype):
    for i, sample in enumerate(row.samples(dtype)):
        ctx = f"{row.name}[{sample.name or i}] {dtype}"
        try:
            t_flags, t_grads = _run(torch, row, sample, dtype)
        except Exception:  # noqa: BLE001 - PyTorch has no derivative here (or rejects the sample)
            t_flags = None
        if t_flags is None:
            with pytest.raises(Exception):
                _run(ember, row, sample, dtype)
            continue
        e_flags, e_grads = _run(ember, row, sample, dtype)
        assert e_flags == t_flags, f"{ctx}: results require grad {e_flags}, torch {t_flags}"
        if t_grads is None:
            continue
        for k, (e, t) in enumerate(zip(e_grads, t_grads)):
            if t is None or not t.abs().sum().item():
                assert e is None or not e.abs().sum().item(), f"{ctx}: input {k} has a gradient, torch none"
                continue
            assert e is not None, f"{ctx}: input {k} has no gradient"
            assert tuple(e.shape) == tuple(t.shape), f"{ctx}: input {k} grad shape {tuple(e.shape)} vs {tuple(t.shape)}"
            np.testing.assert_allclose(to_numpy(e), to_numpy(t), rtol=1e-6, atol=1e-9, equal_nan=True,
                                       err_msg=f"{ctx}: gradient of input {k}")


# Rows every differentiable sample of which has NaN or infinite results (rows about special
# values): central differences cannot check them; test_gradients compares them with PyTorch.
_NO_FINITE_SAMPLES = {
    ("pow_int", "float64"),
    ("pow_operator_inplace", "float64"),
    ("pow_scalar_general", "float64"),
    ("fmax_nan", "float64"),
    ("amax_nan", "float64"),
    ("var_nan", "float64"),
    ("norm_nan", "float64"),
    ("cummax_nan", "float64"),
    ("median_nan", "float64"),
    ("quantile_nan", "float64"),
    ("sort_specials", "float64"),
    ("topk_specials", "float64"),
}

def _as_array(x):
    return np.asarray(to_numpy(x) if isinstance(x, ember.Tensor) else x)


def _repeats_a_write(name, args, kwargs):
    """Whether a sample of scatter / index_copy / put (or their in-place forms) writes one
    element twice: then which write survives decides the result, and the gradient formula
    (PyTorch's) credits every write, so central differences cannot agree (PyTorch's
    gradcheck fails on such samples too). test_gradients still compares them with PyTorch."""
    base = name.removesuffix("_inplace")
    if base == "put" and not kwargs.get("accumulate", False):
        written = _as_array(args[1]).reshape(-1, 1) % max(_as_array(args[0]).size, 1)
    elif base == "index_copy":
        target = _as_array(args[0])
        written = _as_array(args[2]).reshape(-1, 1) % (target.shape[args[1]] if target.ndim else 1)
    elif base == "scatter" and _as_array(args[2]).ndim > 0:
        index = _as_array(args[2])
        coords = list(np.indices(index.shape))
        coords[args[1]] = index  # each index element writes the element at these coordinates
        written = np.stack([c.ravel() for c in coords], axis=1)
    else:
        return False
    return len(np.unique(written, axis=0)) < len(written)


# Rows whose gradients are not derivatives by design (embedding's padding_idx row gets none,
# scale_grad_by_freq divides each row's by its index's count): compared with PyTorch only.
_NOT_DERIVATIVES = {"embedding_padding_scale"}


def _gradcheck_cases():
    for row in ROWS:
        for dtype in GRAD_DTYPES:
            if dtype in row.dtypes and row.name not in _NOT_DERIVATIVES:
                yield pytest.param(row, dtype, id=f"{row.name}-{dtype}")


# (eps, atol) of gradcheck for results of these dtypes (float64: torch's defaults).
_LOW_PRECISION = {ember.float32: (1e-3, 1e-3), ember.complex64: (1e-3, 1e-3),
                  ember.float16: (1e-1, 5e-2), ember.bfloat16: (1e-1, 2e-1)}


def _with_inputs(x, tensors):
    """x (args or kwargs values) with its leaves requiring grad replaced, in order, from tensors."""
    if isinstance(x, (list, tuple)):
        return type(x)(_with_inputs(y, tensors) for y in x)
    if isinstance(x, ember.Tensor) and x.requires_grad:
        return next(tensors)
    return x


@pytest.mark.parametrize("row,dtype", list(_gradcheck_cases()))
def test_gradcheck(row, dtype):
    """Ember's gradients against its own central differences, and its double backward the
    same way (fast mode); rows PyTorch cannot differentiate are checked by test_gradients."""
    checked = nonfinite = repeated = 0
    for i, sample in enumerate(row.samples(dtype)):
        try:
            t_flags, _ = _run(torch, row, sample, dtype)
        except Exception:  # noqa: BLE001 - PyTorch has no derivative here (or rejects the sample)
            continue
        args, kwargs, inputs = _leaves(ember, sample, dtype)
        if not inputs or not any(t_flags):  # not differentiable: test_gradients checks the flags
            continue
        if _repeats_a_write(row.name, args, kwargs):
            repeated += 1
            continue

        def fn(*xs):
            it = iter(xs)
            a = _with_inputs(args, it)
            kw = dict(zip(kwargs, _with_inputs(list(kwargs.values()), it)))
            return tuple(r for r in flatten_results(row.fn(ember, *a, **kw)) if isinstance(r, ember.Tensor))

        # Central differences are undefined where results are NaN or infinite (var of one
        # element, an empty median, NaN-propagating rows): test_gradients compares those
        # samples' gradients with PyTorch's.
        results = fn(*inputs)
        if not all(np.isfinite(to_numpy(r.detach())).all() for r in results):
            nonfinite += 1
            continue
        ctx = f"{row.name}[{sample.name or i}] {dtype}"
        # Results of lower precision round away differences of eps=1e-6: step and tolerance
        # follow the least precise floating result.
        tol = max((_LOW_PRECISION.get(r.dtype, (1e-6, 1e-5)) for r in results
                   if r.is_floating_point() or r.is_complex()), default=(1e-6, 1e-5))
        opts = dict(eps=tol[0], atol=tol[1], rtol=1e-3, fast_mode=True)
        assert ember.autograd.gradcheck(fn, tuple(inputs), **opts), ctx
        assert ember.autograd.gradgradcheck(fn, tuple(inputs), **opts), ctx
        checked += 1
    # A row whose differentiable samples all have non-finite results is listed (and stays
    # listed only while that holds).
    assert checked > 0 or repeated == 0, f"{row.name} {dtype}: every sample writes an element twice"
    only_nonfinite = checked == 0 and nonfinite > 0
    assert only_nonfinite == ((row.name, dtype) in _NO_FINITE_SAMPLES), \
        f"{row.name} {dtype}: {checked} samples checked, {nonfinite} with non-finite results; update _NO_FINITE_SAMPLES"
