"""Autograd workloads for benchmarks/run.py (each maker takes the library module, ember or
torch, and returns a zero-argument callable).

  ag_chain10_backward   a chain of 10 elementwise ops on 1-element tensors that require
                        grad, then sum and backward (per-op overhead of recording and of the
                        engine)
  ag_mlp_backward       forward and backward of an MLP 784-512-512-10 (matmul, add, relu)
                        at batch 128, with a mean-squared loss
  ag_jacobian_tanh      autograd.functional.jacobian of x -> tanh(W x), W 100x100 float32
                        (non-vectorized: one backward pass per output element)
  ag_hessian_sum_tanh   autograd.functional.hessian of x -> sum(tanh(W x)) (a backward pass
                        with create_graph, then one double-backward pass per element)
"""
import numpy as np


def chain10(lib, x, y):
    """Ten elementwise ops on x and y (also run.py's per-op overhead workload chain10)."""
    t = lib.add(x, y)
    t = lib.mul(t, y)
    t = lib.sub(t, x)
    t = lib.div(t, y)
    t = lib.exp(t)
    t = lib.tanh(t)
    t = lib.sigmoid(t)
    t = lib.relu(t)
    t = lib.neg(t)
    return lib.abs(t)


def make_chain10_backward(lib):
    x = lib.full((1,), 0.5, requires_grad=True)
    y = lib.full((1,), 1.5)
    return lambda: chain10(lib, x, y).sum().backward()


def make_mlp_backward(lib):
    g = np.random.default_rng(5)

    def param(*shape):
        return lib.from_numpy((g.standard_normal(shape) * 0.05).astype(np.float32)).requires_grad_()
    w1, b1 = param(784, 512), param(512)
    w2, b2 = param(512, 512), param(512)
    w3, b3 = param(512, 10), param(10)
    x = lib.from_numpy(g.standard_normal((128, 784)).astype(np.float32))
    target = lib.from_numpy(g.standard_normal((128, 10)).astype(np.float32))

    def f():
        h = lib.relu(x @ w1 + b1)
        h = lib.relu(h @ w2 + b2)
        d = h @ w3 + b3 - target
        (d * d).mean().backward()
    return f


def _tanh_layer(lib):
    g = np.random.default_rng(7)
    w = lib.from_numpy((g.standard_normal((100, 100)) * 0.1).astype(np.float32))
    x = lib.from_numpy(g.standard_normal(100).astype(np.float32))
    return w, x


def make_jacobian_tanh(lib):
    w, x = _tanh_layer(lib)
    return lambda: lib.autograd.functional.jacobian(lambda a: lib.tanh(w @ a), x)


def make_hessian_sum_tanh(lib):
    w, x = _tanh_layer(lib)
    return lambda: lib.autograd.functional.hessian(lambda a: lib.tanh(w @ a).sum(), x)


# name: (maker, work per call, unit)
WORKLOADS = {
    "ag_chain10_backward": (make_chain10_backward, None, None),
    "ag_mlp_backward": (make_mlp_backward, 2 * 3 * 128 * (784 * 512 + 512 * 512 + 512 * 10), "GFLOP/s"),
    "ag_jacobian_tanh": (make_jacobian_tanh, None, None),
    "ag_hessian_sum_tanh": (make_hessian_sum_tanh, None, None),
}
