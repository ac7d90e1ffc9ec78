"""ember.func's reverse-mode transforms and their compositions with vmap, against PyTorch:
grad, grad_and_value, vjp, jacrev, hessian, functional_call; per-sample gradients of an MLP and
a CNN through vmap(grad(loss)) against a loop of PyTorch backward passes; and
ember.autograd.functional.jacobian/hessian with vectorize=True.
"""
import numpy as np
import pytest
import torch

import ember
import ember.nn as enn
import ember.nn.functional as EF
from ember.func import functional_call, grad, grad_and_value, hessian, jacrev, vjp, vmap


def _t(x):
    return torch.from_numpy(x.numpy().copy())


def _e(x):
    return ember.from_numpy(x.detach().numpy().copy())


def _np(x):
    if isinstance(x, ember.Tensor):
        return x.numpy()
    if isinstance(x, torch.Tensor):
        return x.detach().numpy()
    return np.asarray(x)


def _close(a, b, rtol=1e-6, atol=1e-8):
    np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol)


def f_sin(x, y):
    return (x.sin() * y).sum()


def test_grad_and_value_argnums_has_aux():
    x, y = ember.randn(5, dtype=ember.float64), ember.randn(5, dtype=ember.float64)
    tx, ty = _t(x).requires_grad_(), _t(y).requires_grad_()
    f_sin(tx, ty).backward()
    _close(grad(f_sin)(x, y), tx.grad)
    gx, gy = grad(f_sin, argnums=(0, 1))(x, y)
    _close(gx, tx.grad)
    _close(gy, ty.grad)
    g, v = grad_and_value(f_sin)(x, y)
    _close(v, f_sin(tx, ty))
    assert not v.requires_grad and not g.requires_grad
    g, aux = grad(lambda a: (a.exp().sum(), {"m": a.max()}), has_aux=True)(x)
    _close(g, x.exp())
    _close(aux["m"], x.max())
    # a second-order gradient through grad of grad
    _close(grad(grad(lambda a: a.sin().sum()))(ember.tensor(0.3, dtype=ember.float64)),
           -np.sin(0.3) * np.ones(()))


def test_grad_errors():
    x = ember.randn(3)
    with pytest.raises(RuntimeError, match="Expected f\\(\\*args\\) to return a scalar Tensor, got tensor with 1 dims"):
        grad(lambda a: a * 2)(x)
    with pytest.raises(RuntimeError, match="Got argnums=2 but only 1 positional inputs"):
        grad(lambda a: a.sum(), argnums=2)(x)
    with pytest.raises(RuntimeError, match="argnums must be int or Tuple"):
        grad(lambda a: a.sum(), argnums=[0])(x)
    with pytest.raises(RuntimeError, match="output of function f should be a tuple"):
        grad(lambda a: a.sum(), has_aux=True)(x)
    with pytest.raises(RuntimeError, match="floating point or complex"):
        grad(lambda a: a.sum())(ember.arange(3))


def test_grad_of_unused_input_is_zero():
    x, y = ember.randn(3), ember.randn(3)
    gy = grad(lambda a, b: a.sum(), argnums=1)(x, y)
    assert bool((gy == 0).all())


def test_vjp():
    x = ember.randn(4, 3, dtype=ember.float64)
    out, fn = vjp(lambda a: a.tanh() * 2, x)
    ct = ember.randn(4, 3, dtype=ember.float64)
    (g,) = fn(ct)
    tx = _t(x).requires_grad_()
    (tx.tanh() * 2).backward(_t(ct))
    _close(g, tx.grad)
    _close(out, (tx.tanh() * 2))
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        fn(ember.randn(3, 4, dtype=ember.float64))
    out, fn, aux = vjp(lambda a: (a.sum(0), a.mean()), x, has_aux=True)
    _close(aux, x.mean())


def test_jacrev_and_hessian_match_torch():
    w = ember.randn(4, 3, dtype=ember.float64)
    x = ember.randn(3, dtype=ember.float64)
    tw, tx = _t(w), _t(x)
    j = jacrev(lambda a: (w @ a).tanh())(x)
    tj = torch.autograd.functional.jacobian(lambda a: (tw @ a).tanh(), tx)
    _close(j, tj)
    jw, jx = jacrev(lambda m, a: (m @ a).tanh(), argnums=(0, 1))(w, x)
    tjw, tjx = torch.autograd.functional.jacobian(lambda m, a: (m @ a).tanh(), (tw, tx))
    _close(jw, tjw)
    _close(jx, tjx)
    h = hessian(lambda a: (w @ a).tanh().sum())(x)
    th = torch.autograd.functional.hessian(lambda a: (tw @ a).tanh().sum(), tx)
    _close(h, th, rtol=1e-10)
    hh = jacrev(jacrev(lambda a: a.sin().prod()))(x)
    _close(hh, torch.autograd.functional.hessian(lambda a: a.sin().prod(), tx), rtol=1e-10)


def test_grad_of_vmap_and_vmap_of_jacrev():
    x = ember.randn(5, 3, dtype=ember.float64)
    g = grad(lambda a: vmap(lambda r: (r.sin() * r).sum())(a).sum())(x)
    tx = _t(x).requires_grad_()
    (tx.sin() * tx).sum().backward()
    _close(g, tx.grad)
    w = ember.randn(4, 3, dtype=ember.float64)
    j = vmap(jacrev(lambda a: (w @ a).tanh()))(x)
    want = torch.stack([torch.autograd.functional.jacobian(lambda a: (_t(w) @ a).tanh(), _t(x)[i]) for i in range(5)])
    _close(j, want)
    # vmap over both levels
    jj = vmap(vmap(jacrev(lambda a: a.exp() * a.sum())))(x.view(5, 1, 3).expand(5, 2, 3).contiguous())
    want = torch.stack([torch.autograd.functional.jacobian(lambda a: a.exp() * a.sum(), _t(x)[i]) for i in range(5)])
    _close(jj[:, 0], want)
    _close(jj[:, 1], want)


def _mlp_params(sizes, seed=0):
    rng = np.random.default_rng(seed)
    params = {}
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        params[f"{i}.weight"] = ember.tensor(rng.standard_normal((b, a)) / np.sqrt(a), dtype=ember.float64)
        params[f"{i}.bias"] = ember.tensor(rng.standard_normal(b) * 0.1, dtype=ember.float64)
    return params


def test_per_sample_grads_mlp_match_torch_loop():
    sizes = [20, 16, 16, 5]
    model = enn.Sequential(enn.Linear(20, 16), enn.ReLU(), enn.Linear(16, 16), enn.ReLU(), enn.Linear(16, 5))
    model = model.to(ember.float64)
    names = {"0": "0", "1": "2", "2": "4"}
    params = {f"{names[k.split('.')[0]]}.{k.split('.')[1]}": v for k, v in _mlp_params(sizes).items()}
    x = ember.randn(8, 20, dtype=ember.float64)
    y = ember.tensor([0, 1, 2, 3, 4, 0, 1, 2])

    def loss(p, xi, yi):
        out = functional_call(model, p, (xi.unsqueeze(0),))
        return EF.cross_entropy(out, yi.unsqueeze(0))

    grads = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
    tmodel = torch.nn.Sequential(torch.nn.Linear(20, 16), torch.nn.ReLU(), torch.nn.Linear(16, 16), torch.nn.ReLU(),
                                 torch.nn.Linear(16, 5)).double()
    with torch.no_grad():
        for n, p in tmodel.named_parameters():
            p.copy_(_t(params[n]))
    for i in range(8):
        tmodel.zero_grad()
        torch.nn.functional.cross_entropy(tmodel(_t(x[i : i + 1])), _t(y[i : i + 1])).backward()
        for n, p in tmodel.named_parameters():
            _close(grads[n][i], p.grad, rtol=1e-9, atol=1e-12)
    # the module keeps its own parameters
    assert all(not bool((p == params[n]).all()) for n, p in model.named_parameters() if n.endswith("weight"))


def test_per_sample_grads_cnn_match_torch_loop():
    torch.manual_seed(0)
    tmodel = torch.nn.Sequential(torch.nn.Conv2d(1, 3, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                                 torch.nn.Linear(3 * 4 * 4, 4)).double()
    model = enn.Sequential(enn.Conv2d(1, 3, 3), enn.ReLU(), enn.Flatten(), enn.Linear(48, 4)).to(ember.float64)
    params = {n: _e(p) for n, p in tmodel.named_parameters()}
    x = ember.randn(5, 1, 6, 6, dtype=ember.float64)
    y = ember.tensor([0, 1, 2, 3, 1])

    def loss(p, xi, yi):
        return EF.cross_entropy(functional_call(model, p, (xi.unsqueeze(0),)), yi.unsqueeze(0))

    grads = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
    for i in range(5):
        tmodel.zero_grad()
        torch.nn.functional.cross_entropy(tmodel(_t(x[i : i + 1])), _t(y[i : i + 1])).backward()
        for n, p in tmodel.named_parameters():
            _close(grads[n][i], p.grad, rtol=1e-9, atol=1e-12)


def _views_of_weight(lib):
    def f(w, xi):
        flat = w.view(-1)  # a reshape of the weight
        d = w[:, :4].diagonal()  # a strided view
        return ((w @ xi).tanh().sum() + (flat[::3] * flat[1::3]).sum() + (w[1] * xi).sum() + (d ** 2).sum()
                + w.t()[2].exp().sum() + (w.unsqueeze(0).expand(2, 4, 6) * 0.5).sum())
    return f


@pytest.mark.parametrize("argnums", [0, (0, 1)])
def test_per_sample_grads_through_views_of_an_unbatched_input(argnums):
    # grad lifts an input not batched by vmap without copying it per sample: every kind of
    # view of it must still give each sample its own gradient.
    rng = np.random.default_rng(3)
    w = ember.tensor(rng.standard_normal((4, 6)), dtype=ember.float64)
    x = ember.tensor(rng.standard_normal((5, 6)), dtype=ember.float64)
    got = vmap(grad(_views_of_weight(ember), argnums=argnums), in_dims=(None, 0))(w, x)
    got = got if isinstance(got, tuple) else (got,)
    for i in range(5):
        tw, tx = _t(w).requires_grad_(), _t(x[i]).requires_grad_()
        wanted = torch.autograd.grad(_views_of_weight(torch)(tw, tx), [tw, tx][:len(got)])
        for g, want in zip(got, wanted):
            _close(g[i], want, rtol=1e-10, atol=1e-12)
    # the same through a loop of ember grads
    for i in range(5):
        _close(got[0][i], grad(_views_of_weight(ember))(w, x[i]), rtol=1e-10, atol=1e-12)


def test_functional_call_restores_module():
    lin = enn.Linear(3, 2)
    w0 = lin.weight.clone()
    new = {"weight": ember.zeros(2, 3), "bias": ember.ones(2)}
    out = functional_call(lin, new, (ember.randn(4, 3),))
    assert bool((out == 1).all())
    assert bool((lin.weight == w0).all())
    with pytest.raises(RuntimeError, match="missing keys"):
        functional_call(lin, {"weight": ember.zeros(2, 3)}, (ember.randn(4, 3),), strict=True)


@pytest.mark.parametrize("create_graph", [False, True])
def test_autograd_functional_vectorize(create_graph):
    w = ember.randn(6, 6, dtype=ember.float64)
    x = ember.randn(6, dtype=ember.float64)
    tw, tx = _t(w), _t(x)
    f = lambda a: (w @ a).tanh()  # noqa: E731
    tf = lambda a: (tw @ a).tanh()  # noqa: E731
    j = ember.autograd.functional.jacobian(f, x, vectorize=True, create_graph=create_graph)
    _close(j, torch.autograd.functional.jacobian(tf, tx, vectorize=True), rtol=1e-12)
    _close(j, ember.autograd.functional.jacobian(f, x), rtol=1e-12)
    h = ember.autograd.functional.hessian(lambda a: f(a).sum(), x, vectorize=True, create_graph=create_graph)
    _close(h, torch.autograd.functional.hessian(lambda a: tf(a).sum(), tx, vectorize=True), rtol=1e-10)
    # tuples of inputs and outputs
    js = ember.autograd.functional.jacobian(lambda a, b: (a * b, a.sum() * b), (x, x * 2), vectorize=True)
    tjs = torch.autograd.functional.jacobian(lambda a, b: (a * b, a.sum() * b), (tx, tx * 2), vectorize=True)
    for r, tr in zip(js, tjs):
        for a, b in zip(r, tr):
            _close(a, b)
    with pytest.raises(RuntimeError, match="`strict=True` and `vectorized=True` are not supported together"):
        ember.autograd.functional.jacobian(f, x, vectorize=True, strict=True)


def test_transform_results_are_freed_without_the_garbage_collector():
    # Rebuilding result trees through a recursive closure made a reference cycle that kept
    # every result alive until the collector ran: 342 MB a call for the per-sample gradients
    # of benchmarks/workloads_vmap.py.
    import gc
    import weakref
    from ember.func import jvp
    x = ember.randn(4, 3)
    calls = {"vmap": lambda: vmap(ember.sin)(x), "grad": lambda: grad(lambda a: a.sin().sum())(x),
             "jvp": lambda: jvp(ember.sin, (x,), (ember.ones_like(x),))[1],
             "vmap_tuple": lambda: vmap(lambda a: (a.sin(), a.cos()))(x)[0]}
    gc.disable()
    try:
        for name, call in calls.items():
            ref = weakref.ref(call())
            assert ref() is None, name
    finally:
        gc.enable()
