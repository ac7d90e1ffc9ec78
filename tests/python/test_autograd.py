"""ember.autograd against torch.autograd: the same programs give the same gradients, graph
attributes, errors and printing."""
import numpy as np
import pytest
import torch

import ember


def pair(shape, seed, dtype="float64", requires_grad=True, lo=-1.0, hi=1.0):
    """The same random leaf in both libraries."""
    g = np.random.default_rng(seed)
    a = g.uniform(lo, hi, size=shape)
    if dtype.startswith("complex"):
        a = a + 1j * g.uniform(lo, hi, size=shape)
    a = a.astype(dtype)
    e = ember.tensor(a).requires_grad_(requires_grad)
    t = torch.tensor(a).requires_grad_(requires_grad)
    return e, t


def close(e, t, tol=1e-12):
    assert (e is None) == (t is None)
    if e is None:
        return
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


# Programs written once against a module `lib` (ember or torch) and leaves x, y.
PROGRAMS = {
    "square_sum": lambda lib, x, y: (x * x).sum(),
    "broadcast_arith": lambda lib, x, y: ((x + y * 2.5) / (y.abs() + 1) - x).mean(),
    "pointwise_chain": lambda lib, x, y: (lib.tanh(x) * lib.sigmoid(y) + lib.exp(-x) * lib.sin(y) + lib.cos(x)).sum(),
    "log_sqrt": lambda lib, x, y: (lib.log(x.abs() + 1) * lib.sqrt(y * y + 1)).sum(),
    "relu_where": lambda lib, x, y: lib.where(x > 0, lib.relu(y), x * y).sum(),
    "matmul": lambda lib, x, y: lib.tanh(x @ y.t()).sum(),
    "reductions": lambda lib, x, y: (x.sum(1) * y.mean(0).sum() + x.sum(dim=(0, 1))).sum(),
    "views": lambda lib, x, y: (x.t()[1] * y[:, 0]).sum() + x.permute(1, 0).reshape(-1)[::2].sum(),
    "expand": lambda lib, x, y: (x[:, :1].expand(3, 3) * y[:, :3]).sum(),
    "reuse": lambda lib, x, y: ((x * y) * (x * y) + x).sum(),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_gradients_match_torch(name):
    f = PROGRAMS[name]
    ex, tx = pair((3, 4), 1)
    ey, ty = pair((3, 4), 2)
    eo, to = f(ember, ex, ey), f(torch, tx, ty)
    close(eo, to)
    eo.backward()
    to.backward()
    close(ex.grad, tx.grad)
    close(ey.grad, ty.grad)


def test_complex_gradients_follow_torch():
    ex, tx = pair((4,), 3, "complex128")
    ey, ty = pair((4,), 4, "complex128")
    for lib, x, y in ((ember, ex, ey), (torch, tx, ty)):
        (lib.abs(x * y + x) + lib.abs(lib.exp(y))).sum().backward()
    close(ex.grad, tx.grad)
    close(ey.grad, ty.grad)


def test_real_and_imag_views_of_complex():
    ez, tz = pair((3,), 9, "complex128")
    for x in (ez, tz):
        (x.real * x.imag * 3 + x.real * x.real).sum().backward()
    close(ez.grad, tz.grad)
    ew, tw = pair((2, 2), 10, "complex128")
    for lib, x in ((ember, ew), (torch, tw)):
        (lib.view_as_real(x) * lib.view_as_real(x)).sum().backward()
    close(ew.grad, tw.grad)


def test_grad_create_graph_second_derivative():
    ex, tx = pair((5,), 5)
    res = []
    for lib, x in ((ember, ex), (torch, tx)):
        y = (x * x * x + lib.sin(x)).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        assert g.requires_grad
        (h,) = lib.autograd.grad(g.sum(), x)
        res.append((g, h))
    close(res[0][0], res[1][0])
    close(res[0][1], res[1][1])


def test_graph_attributes_and_printing():
    x = ember.ones(2, requires_grad=True)
    assert x.is_leaf and x.requires_grad and x.grad is None and x.grad_fn is None
    assert repr(x) == "tensor([1., 1.], requires_grad=True)"
    y = x * 2
    assert not y.is_leaf and y.requires_grad
    assert y.grad_fn.name() == "MulBackward0"
    assert repr(y) == "tensor([2., 2.], grad_fn=<MulBackward0>)"
    # As in torch, the Python number becomes a wrapped tensor operand: ((AccumulateGrad, 0), (None, 0)).
    t = torch.ones(2, requires_grad=True) * 2
    def names(fn):  # torch spells its accumulator torch::autograd::AccumulateGrad
        return [(f and f.name().split("::")[-1], n) for f, n in fn.next_functions]
    assert names(y.grad_fn) == names(t.grad_fn)
    z = y.sum()
    assert z.grad_fn.next_functions[0][0].name() == "MulBackward0"


def test_factories_take_requires_grad():
    for t in (ember.ones(2, requires_grad=True), ember.zeros(2, 3, requires_grad=True), ember.randn(3, requires_grad=True),
              ember.tensor([1.0, 2.0], requires_grad=True), ember.full((2,), 3.0, requires_grad=True),
              ember.arange(3.0, requires_grad=True), ember.rand_like(ember.ones(2), requires_grad=True)):
        assert t.requires_grad and t.is_leaf
    with pytest.raises(RuntimeError, match="only Tensors of floating point and complex dtype"):
        ember.ones(2, dtype=ember.int64, requires_grad=True)


def test_grad_modes():
    x = ember.ones(2, requires_grad=True)
    with ember.no_grad():
        assert not ember.is_grad_enabled()
        y = x * 2
        with ember.enable_grad():
            z = x * 2
    assert ember.is_grad_enabled()
    assert not y.requires_grad and z.requires_grad

    @ember.no_grad()
    def f(t):
        return t * 2
    assert not f(x).requires_grad
    with ember.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad


def test_accumulation_retain_grad_hooks_and_detach():
    ex, tx = pair((3,), 6)
    for lib, x in ((ember, ex), (torch, tx)):
        y = x * 3
        y.retain_grad()
        h = x.register_hook(lambda g: g * 10)
        (y * y).sum().backward()
        h.remove()
        (x * 2).sum().backward()
        assert y.retains_grad
    close(ex.grad, tx.grad)
    d = ex.detach()
    assert not d.requires_grad and d.is_leaf
    z = ex * 2
    z.detach_()
    assert z.is_leaf and not z.requires_grad


def test_errors_match_torch():
    x = ember.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad is being used in an in-place operation"):
        x.mul_(2)
    y = (x * 2).exp()
    s = y.sum()
    s.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        s.backward()
    y2 = x.exp()
    w = (y2 * y2).sum()
    y2.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        w.backward()
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        (x * 2).backward()
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        ember.ones(2).sum().backward()
    u = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        ember.autograd.grad((x * 2).sum(), [x, u])
    g = ember.autograd.grad((x * 2).sum(), [x, u], allow_unused=True)
    assert g[1] is None
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
        ember.mul(x, x, out=ember.empty(3))


def test_backward_with_gradient_and_inputs():
    ex, tx = pair((3,), 7)
    ey, ty = pair((3,), 8)
    for lib, x, y in ((ember, ex, ey), (torch, tx, ty)):
        out = x * y + x
        out.backward(lib.ones(3, dtype=lib.float64) * 2, inputs=[x])
        assert y.grad is None
    close(ex.grad, tx.grad)


def _scaled_exp(lib):
    class ScaledExp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            y = lib.exp(x) * k
            ctx.save_for_backward(y)
            ctx.k = k
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y, None
    return ScaledExp


def test_custom_function_matches_torch():
    ex, tx = pair((4,), 11)
    res = []
    for lib, x in ((ember, ex), (torch, tx)):
        f = _scaled_exp(lib)
        y = f.apply(x, 2.0)
        assert y.grad_fn.name().endswith("ScaledExpBackward") or "ScaledExpBackward" in y.grad_fn.name()
        assert x.requires_grad and y.requires_grad
        (y * y).sum().backward()
        res.append(x.grad)
    close(res[0], res[1])
    with ember.no_grad():
        assert not _scaled_exp(ember).apply(ex, 1.0).requires_grad


def test_custom_function_checks_saved_versions():
    x = ember.ones(3, requires_grad=True)
    y = _scaled_exp(ember).apply(x * 1, 1.0)
    with ember.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_gradcheck_and_gradgradcheck():
    x, _ = pair((3,), 12)
    y, _ = pair((3,), 13)
    z, _ = pair((2,), 14, "complex128")
    assert ember.autograd.gradcheck(lambda a, b: ember.tanh(a) * b + a.exp(), (x, y))
    assert ember.autograd.gradcheck(lambda c: (c * c).abs() + c.exp(), (z,))
    assert ember.autograd.gradgradcheck(lambda a, b: ember.sin(a) * b * a, (x, y))
    assert ember.autograd.gradgradcheck(lambda c: c * c * c, (z,))

    class WrongGrad(ember.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * a

        @staticmethod
        def backward(ctx, g):
            return g  # should be 2 a g

    with pytest.raises(ember.autograd.GradcheckError, match="Jacobian mismatch"):
        ember.autograd.gradcheck(WrongGrad.apply, (x,))
    assert not ember.autograd.gradcheck(WrongGrad.apply, (x,), raise_exception=False)


def test_accumulating_into_an_expanded_first_gradient():
    # sum's gradient is an expanded tensor; .grad must not keep it, or the next accumulation
    # (in place) writes into overlapping memory.
    def run(lib):
        a = lib.ones(3, requires_grad=True)
        (a + 1).sum().backward()
        (a * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        return a.grad.tolist()
    assert run(ember) == run(torch) == [2.0, 3.0, 4.0]


# grad(is_grads_batched=True): graphs of leaves (shapes), outputs, and the shapes of the batched
# grad_outputs (None: the implicit seed of a single element is refused by vmap, as in torch).
BATCHED_GRAPHS = {
    "elementwise": ([(3,)], lambda lib, x: [x.sin() * x], [(4, 3)]),
    "matmul": ([(2, 3), (3, 4)], lambda lib, a, b: [(a @ b).tanh()], [(5, 2, 4)]),
    "two_outputs": ([(3,)], lambda lib, x: [x.exp(), (x * x).sum()], [(2, 3), (2,)]),
    "unused_input": ([(3,), (2,)], lambda lib, x, y: [x * 2], [(3, 3)]),
    "reduction": ([(2, 3)], lambda lib, x: [x.softmax(-1).sum(0)], [(6, 3)]),
}


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name,dtype", [(n, d) for n in BATCHED_GRAPHS for d in ("float64", "complex128")
                                        if not (n == "reduction" and d == "complex128")])  # torch: no complex softmax
def test_grad_is_grads_batched(name, dtype, create_graph):
    shapes, f, gshapes = BATCHED_GRAPHS[name]
    leaves = [pair(s, i, dtype) for i, s in enumerate(shapes)]
    gos = [pair(s, 10 + i, dtype, requires_grad=False) for i, s in enumerate(gshapes)]
    res = {}
    for k, lib in enumerate((ember, torch)):
        xs = [lv[k] for lv in leaves]
        outs = f(lib, *xs)
        res[lib] = lib.autograd.grad(outs, xs, [g[k] for g in gos], create_graph=create_graph, allow_unused=True,
                                     is_grads_batched=True)
    for e, t in zip(res[ember], res[torch]):
        close(e, t)
        if t is not None:
            assert tuple(e.shape) == tuple(t.shape)
            assert e.requires_grad == t.requires_grad
    if create_graph:  # the batched gradients differentiate again
        for lib in (ember, torch):
            parts = [(r.abs() ** 2).sum() for r in res[lib] if r is not None and r.requires_grad]
            if parts:  # (a linear graph's gradients are constants)
                sum(parts[1:], parts[0]).backward()
        for lv in leaves:
            close(lv[0].grad, lv[1].grad, 1e-10)


def test_grad_is_grads_batched_errors():
    def check(make):
        with pytest.raises(Exception) as te:
            make(torch)
        with pytest.raises(type(te.value)) as ee:
            make(ember)
        assert str(ee.value) == str(te.value).replace("torch.", "ember.")

    def graph(lib):
        x = lib.ones(3, dtype=lib.float64, requires_grad=True)
        return x, x.sin() * 2

    def run(gos, outs=lambda y: y, inputs=lambda x: x, **kw):
        def make(lib):
            x, y = graph(lib)
            return lib.autograd.grad(outs(y), inputs(x), gos(lib), is_grads_batched=True, **kw)
        return make

    check(run(lambda lib: lib.ones(2, 4, dtype=lib.float64)))  # shape without the batch dim
    check(run(lambda lib: lib.ones(2, 3, 1, dtype=lib.float64)))
    check(run(lambda lib: None))  # implicit seeds only for single elements
    check(run(lambda lib: None, outs=lambda y: y.sum()))  # a 0-dim seed has no batch dim
    check(run(lambda lib: lib.ones(2, 3, dtype=lib.complex128)))
    check(run(lambda lib: [lib.ones(2, 3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)],
              outs=lambda y: [y, y.sum()]))  # batch sizes differ
    check(run(lambda lib: lib.ones(2, 3, dtype=lib.float64),
              inputs=lambda x: [x, lib_ones_requiring_grad(x)]))
    # the graph is freed after one batched pass unless retained
    for lib in (ember, torch):
        x, y = graph(lib)
        lib.autograd.grad(y, x, lib.eye(3, dtype=lib.float64), is_grads_batched=True)
        with pytest.raises(RuntimeError, match="backward through the graph a second time"):
            lib.autograd.grad(y, x, lib.eye(3, dtype=lib.float64), is_grads_batched=True)
        x, y = graph(lib)
        g1 = lib.autograd.grad(y, x, lib.eye(3, dtype=lib.float64), retain_graph=True, is_grads_batched=True)[0]
        g2 = lib.autograd.grad(y, x, lib.eye(3, dtype=lib.float64), is_grads_batched=True)[0]
        np.testing.assert_array_equal(g1.numpy(), g2.numpy())


def lib_ones_requiring_grad(like):
    lib = torch if isinstance(like, torch.Tensor) else ember
    return lib.ones(2, dtype=lib.float64, requires_grad=True)
