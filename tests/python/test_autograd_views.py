"""Views around in-place writes, double backward through views and CopySlices, and backward
passes that fail midway: ember.autograd against torch.autograd (1.13)."""
import numpy as np
import pytest
import torch

import ember
from test_autograd import close, pair


def grads_match(fn, *leaves, tol=1e-12):
    """fn(lib, *leaves) returns a scalar; the gradients of every leaf (shape, seed[, dtype])
    must match torch's."""
    pairs = [pair(*spec) for spec in leaves]
    e_leaves, t_leaves = [p[0] for p in pairs], [p[1] for p in pairs]
    e_out, t_out = fn(ember, *e_leaves), fn(torch, *t_leaves)
    close(e_out, t_out)
    e_g = ember.autograd.grad(e_out, e_leaves, allow_unused=True)
    t_g = torch.autograd.grad(t_out, t_leaves, allow_unused=True)
    for e, t in zip(e_g, t_g):
        close(e, t, tol)


# ---------------------------------------------------------------- 1. views made before an in-place write

def views_then_base_mul(lib, a):
    x = a.clone()
    v, s, t, d, e = x.view(12), x[1:], x.t(), x.diagonal(), x[0].expand(2, 4)
    x.mul_(2)
    w = lib.arange(12, dtype=lib.float64)
    return ((v * w).sum() + s.pow(2).sum() + (t * t.sin()).sum() + d.exp().sum() + (e * 3).sum()
            + x.sum())


def views_then_sibling_write(lib, a, b):
    x = a.clone()
    p, q, c = x[0], x[1:], x[:, 1]
    q.mul_(b[1:])
    return (p * p).sum() + q.pow(3).sum() + c.sum() * 2 + x.pow(2).sum()


def views_of_views_then_writes(lib, a, b):
    x = a.clone()
    r = x[1]
    rr, r2 = r[1:], x.t()[1]
    r.mul_(3)
    first = rr.sum() + r2.sum() * 2  # (r2 * 2) would save r2 in Ember
    x.add_(b)
    return first + rr.pow(2).sum() + r2.exp().sum()


def stale_view_written_in_place(lib, a):
    x = a.clone()
    v = x[:, 1:3]
    x.mul_(a)  # x = a * a
    v.add_(1)  # v is regenerated first, then written
    return v.pow(2).sum() + (x * 3).sum()


def base_written_without_grad(lib, a):
    x = a.clone()
    v = x[1:].t()
    with lib.no_grad():
        x.mul_(2)
    return v.pow(2).sum()


def complex_parts_then_base_mul(lib, a):
    x = a.clone()
    re, im = x.real, x.imag
    x.mul_(2)
    return (re * re).sum() + (im * 3).sum()


@pytest.mark.parametrize("fn,leaves", [
    (views_then_base_mul, [((3, 4), 1)]),
    (views_then_sibling_write, [((3, 4), 2), ((3, 4), 3)]),
    (views_of_views_then_writes, [((3, 4), 4), ((3, 4), 5)]),
    (stale_view_written_in_place, [((3, 4), 6)]),
    (base_written_without_grad, [((3, 4), 7)]),
    (complex_parts_then_base_mul, [((2, 3), 8, "complex128")]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_views_made_before_in_place_write(fn, leaves):
    grads_match(fn, *leaves)


def test_regenerated_view_grad_fn():
    for lib in (ember, torch):
        a = lib.ones(3, 4, dtype=lib.float64, requires_grad=True)
        x = a.clone()
        v, s, t = x.view(12), x[1:], x.t()
        x.mul_(2)
        names = [n.grad_fn.name() for n in (v, s, t)]
        assert names == ["AsStridedBackward0"] * 3, (lib.__name__, names)
        assert v.grad_fn.next_functions[0][0].name() == "MulBackward0"
        # a sibling written in place: the others, and the written view itself, replay on CopySlices
        y = a.clone()
        p, q = y[0], y[1]
        q.add_(1)
        names = [n.name().replace("torch::autograd::", "") for n in (p.grad_fn, q.grad_fn, y.grad_fn,
                                                                      p.grad_fn.next_functions[0][0])]
        assert names == ["AsStridedBackward0", "AsStridedBackward0", "CopySlices", "CopySlices"]


# ---------------------------------------------------------------- 2. double backward through views

def strided_views(lib, x):
    return x[1:, ::2].t().pow(3).sum(1) + x.permute(1, 0)[2].sin().sum() * x[0, 0]


def expanded(lib, x):
    return (x[0].expand(3, 4).pow(2) * x.t()[:, :1].t()).sum(0)


def unfolded(lib, x):
    return x.reshape(-1).unfold(0, 3, 2).pow(3).sum(1)


def copy_slices_mul(lib, x):
    y = x.clone()
    y[1:].mul_(x[:-1])
    return y.pow(2).sin()


def copy_slices_setitem(lib, x):
    y = x.clone()
    y[0] = x[1].pow(2)
    y[:, 2].exp_()
    return y.cos() * y


@pytest.mark.parametrize("fn", [strided_views, expanded, unfolded, copy_slices_mul, copy_slices_setitem],
                         ids=lambda f: f.__name__)
def test_double_backward_through_views(fn):
    e, t = pair((3, 4), 11)
    assert ember.autograd.gradgradcheck(lambda x: fn(ember, x), (e,))
    # second derivatives against torch's, for the same output and gradient weights
    results = []
    for lib, x in ((ember, e), (torch, t)):
        out = fn(lib, x)
        rng = np.random.default_rng(3)
        w = lib.tensor(rng.uniform(-1, 1, size=tuple(out.shape)))
        g, = lib.autograd.grad(out, x, grad_outputs=w, create_graph=True)
        v = lib.tensor(rng.uniform(-1, 1, size=tuple(g.shape)))
        gg, = lib.autograd.grad(g, x, grad_outputs=v)
        results.append((g, gg))
    close(results[0][0], results[1][0])
    close(results[0][1], results[1][1], 1e-10)


# ---------------------------------------------------------------- 3. passes that fail midway

class _Raising:
    """A custom Function whose backward raises (a node without a derivative)."""

    @staticmethod
    def make(lib):
        class Raising(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, g):
                raise NotImplementedError("no backward")
        return Raising


def saved_input_modified(lib, a, b):
    s = (b * 1).sigmoid()
    r = (a * 2).sum() + (s * 3).sum()
    s.mul_(2)
    return r


def saved_result_modified(lib, a, b):
    t = b.exp()
    r = (a * 2).sum() + t.sum() + (a * b).sum()
    t.add_(1)
    return r


def raising_tensor_hook(lib, a, b):
    c = b * 1
    c.register_hook(lambda g: 1 / 0)
    return (a * 2).sum() + (c * 3).sum()


def raising_leaf_hook(lib, a, b):
    b.register_hook(lambda g: 1 / 0)
    return (a * 2).sum() + (b * 3).sum()


def raising_custom_function_last(lib, a, b):
    return (a * 2).sum() + _Raising.make(lib).apply(b).sum()


def raising_custom_function_first(lib, a, b):
    return _Raising.make(lib).apply(b).sum() + (a * 2).sum()


def op_without_derivative(lib, a, b):
    return (a * 2).sum() + lib.aminmax(b * a)[0]


@pytest.mark.parametrize("fn,exc", [
    (saved_input_modified, RuntimeError),
    (saved_result_modified, RuntimeError),
    (raising_tensor_hook, ZeroDivisionError),
    (raising_leaf_hook, ZeroDivisionError),
    (raising_custom_function_last, NotImplementedError),
    (raising_custom_function_first, NotImplementedError),
    (op_without_derivative, (NotImplementedError, RuntimeError)),
], ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("create_graph", [False, True])
def test_failed_backward_changes_no_grad(fn, exc, create_graph):
    (ea, ta), (eb, tb) = pair((3,), 21), pair((3,), 22)
    for lib, a, b in ((ember, ea, eb), (torch, ta, tb)):
        a.grad = lib.full((3,), 5.0, dtype=lib.float64)
        out = fn(lib, a, b)
        with pytest.raises(exc):
            out.backward(create_graph=create_graph)
        if lib is ember:  # PyTorch may keep what it accumulated before the error; Ember keeps nothing
            close(a.grad, torch.full((3,), 5.0, dtype=torch.float64))
            assert b.grad is None
    # once the program is fixed, the same leaves accumulate what torch's do
    ea.grad, ta.grad = None, None
    for a, b in ((ea, eb), (ta, tb)):
        ((a * b.detach()).sum() * 2).backward()
    close(ea.grad, ta.grad)


def test_bad_gradient_shape_changes_no_grad():
    for lib in (ember, torch):
        a = lib.ones(3, dtype=lib.float64, requires_grad=True)
        a.grad = lib.ones(3, dtype=lib.float64)
        y = a * 2
        with pytest.raises(RuntimeError, match="Mismatch in shape"):
            y.backward(lib.ones(4, dtype=lib.float64))
        assert a.grad.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("shape,view", [
    ((3, 4), lambda a: a.t()), ((3, 4, 5), lambda a: a.permute(2, 0, 1)), ((3, 4, 5), lambda a: a.transpose(0, 2)),
    ((3, 4, 5), lambda a: a.unsqueeze(1).permute(3, 1, 0, 2)),
], ids=["t", "permute", "transpose", "size1_permute"])
def test_permuted_view_gradient(shape, view):
    """A view that only reorders dims gets its gradient back as a permute (no copy): values,
    contiguous .grad, and double backward through it, as torch."""
    ea, ta = pair(shape, 7)
    for lib, a in ((ember, ea), (torch, ta)):
        w = lib.arange(a.numel(), dtype=lib.float64).reshape(view(a).shape)
        g, = lib.autograd.grad((view(a) * w).pow(2).sum(), a, create_graph=True)
        g.sum().backward()
    close(ea.grad, ta.grad)
    assert ea.grad.is_contiguous()


def test_linear_weight_gradient_layout():
    """linear's weight enters as W.t(); its gradient comes out in W's layout, equal to torch's."""
    (ex, tx), (ew, tw), (eb, tb) = pair((8, 5), 1), pair((3, 5), 2), pair((3,), 3)
    for lib, x, w, b in ((ember, ex, ew, eb), (torch, tx, tw, tb)):
        lib.nn.functional.linear(x, w, b).pow(2).sum().backward()
    for e, t in ((ex, tx), (ew, tw), (eb, tb)):
        close(e.grad, t.grad)
        assert e.grad.is_contiguous()
