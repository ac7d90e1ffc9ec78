"""Fast paths of the ops on the Fashion-MNIST demo's training step (benchmarks/
workloads_train.py) against PyTorch, on the inputs where a fast path could differ from the
generic code: NaNs, ties, windows at the plane's edge, and the cases that must fall back."""
import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F


def _pair(a):
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


def _pool_input(shape, dtype, seed):
    g = np.random.default_rng(seed)
    # Small integers: many ties inside a window; a few NaNs (two in some windows) and -inf.
    a = g.integers(-3, 4, shape).astype(dtype)
    flat = a.reshape(-1)
    flat[g.choice(flat.size, flat.size // 10, replace=False)] = np.nan
    flat[g.choice(flat.size, flat.size // 20, replace=False)] = -np.inf
    return a


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kernel,stride,padding,ceil_mode,size", [
    (2, 2, 0, False, (28, 28)),   # the demo's pooling (fast path)
    (2, 2, 0, False, (7, 9)),     # odd sizes: the last row and column are dropped
    (3, 2, 0, False, (9, 8)),     # 3x3 fast path
    (2, 2, 0, True, (7, 9)),      # ceil_mode: the last window leaves the plane (generic loop)
    (3, 2, 1, False, (9, 8)),     # padding (generic loop)
    ((2, 3), 2, 0, False, (8, 9)),  # non-square kernel (generic loop)
])
def test_max_pool2d_indices_nan_ties(dtype, kernel, stride, padding, ceil_mode, size):
    a = _pool_input((3, 4, *size), dtype, 0)
    for want_idx in (True, False):
        e, t = _pair(a)
        kw = dict(stride=stride, padding=padding, ceil_mode=ceil_mode, return_indices=want_idx)
        ye, yt = F.max_pool2d(e, kernel, **kw), torch.nn.functional.max_pool2d(t, kernel, **kw)
        if want_idx:
            np.testing.assert_array_equal(ye[1].numpy(), yt[1].numpy())
            ye, yt = ye[0], yt[0]
        np.testing.assert_array_equal(ye.numpy(), yt.numpy())


def test_max_pool2d_gradient_follows_indices():
    a = _pool_input((2, 3, 10, 10), np.float32, 1)
    a[np.isnan(a)] = 0  # finite values: the gradient of every window goes to its first maximum
    e, t = _pair(a)
    e.requires_grad_()
    t.requires_grad_()
    g = np.random.default_rng(2).standard_normal((2, 3, 5, 5)).astype(np.float32)
    (F.max_pool2d(e, 2) * ember.from_numpy(g)).sum().backward()
    (torch.nn.functional.max_pool2d(t, 2) * torch.from_numpy(g)).sum().backward()
    np.testing.assert_array_equal(e.grad.numpy(), t.grad.numpy())
