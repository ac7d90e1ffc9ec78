"""Forward-mode AD workloads for benchmarks/run.py (each maker takes the library module,
ember or torch, and returns a zero-argument callable); times only (no rate).

  fwad_tanh_Wx_100          jvp of tanh(W x), W 100 x 100, inside a fresh dual level
  fwad_mlp_784_512_512_10   jvp of an MLP 784-512-512-10 (ReLU) forward, batch 64, with
                            tangents on every weight and bias
  jacobian_tanh_100_forward autograd.functional.jacobian of tanh(W x), W 100 x 100 (scaled by
                            0.1), vectorize=True, strategy="forward-mode"
  hessian_tanh_100_forward  autograd.functional.hessian of sum(tanh(W x)), vectorize=True,
                            outer_jacobian_strategy="forward-mode" (forward over reverse)
  grad_batched_tanh_100     autograd.grad of tanh(W x) with is_grads_batched=True over the
                            100 rows of the identity (the vectorized reverse Jacobian)
  overhead_add_small        x + y on 16-element float32 tensors (no tangents, no grad)
  overhead_mul_small        x * y, likewise
  overhead_add_small_grad   x + y with x requiring grad (through the Autograd layer)
"""
import numpy as np


def _arr(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def make_tanh_wx(lib):
    rng = np.random.default_rng(0)
    W, x, v = (lib.from_numpy(_arr(rng, *s)) for s in ((100, 100), (100,), (100,)))
    fw = lib.autograd.forward_ad

    def run():
        with fw.dual_level():
            y = lib.tanh(W @ fw.make_dual(x, v))
            return fw.unpack_dual(y).tangent
    return run


def make_mlp(lib):
    rng = np.random.default_rng(1)
    sizes = [784, 512, 512, 10]
    params = []
    for a, b in zip(sizes, sizes[1:]):
        params.append((lib.from_numpy(_arr(rng, b, a) * 0.05), lib.from_numpy(_arr(rng, b) * 0.05)))
    tangents = [(lib.from_numpy(_arr(rng, *w.shape)), lib.from_numpy(_arr(rng, *b.shape))) for w, b in params]
    x = lib.from_numpy(_arr(rng, 64, 784))
    fw = lib.autograd.forward_ad
    F = lib.nn.functional

    def run():
        with fw.dual_level():
            h = x
            for i, ((w, b), (tw, tb)) in enumerate(zip(params, tangents)):
                h = F.linear(h, fw.make_dual(w, tw), fw.make_dual(b, tb))
                if i < len(params) - 1:
                    h = F.relu(h)
            return fw.unpack_dual(h).tangent
    return run


def _w_x(lib):
    rng = np.random.default_rng(0)
    w = lib.from_numpy(rng.standard_normal((100, 100)).astype(np.float32) * 0.1)
    x = lib.from_numpy(rng.standard_normal(100).astype(np.float32))
    return w, x


def make_jacobian_forward(lib):
    w, x = _w_x(lib)
    return lambda: lib.autograd.functional.jacobian(lambda a: (w @ a).tanh(), x, vectorize=True,
                                                    strategy="forward-mode")


def make_hessian_forward(lib):
    w, x = _w_x(lib)
    return lambda: lib.autograd.functional.hessian(lambda a: (w @ a).tanh().sum(), x, vectorize=True,
                                                   outer_jacobian_strategy="forward-mode")


def make_grad_batched(lib):
    w, x = _w_x(lib)
    eye = lib.eye(100)

    def run():
        xr = x.detach().requires_grad_()
        return lib.autograd.grad((w @ xr).tanh(), xr, eye, is_grads_batched=True)[0]
    return run


def _binary_small(name, requires_grad=False):
    def maker(lib):
        rng = np.random.default_rng(2)
        x, y = lib.from_numpy(_arr(rng, 16)), lib.from_numpy(_arr(rng, 16))
        if requires_grad:
            x.requires_grad_()
        op = getattr(lib, name)
        return lambda: op(x, y)
    return maker


WORKLOADS = {
    "fwad_tanh_Wx_100": (make_tanh_wx, None, None),
    "fwad_mlp_784_512_512_10": (make_mlp, None, None),
    "jacobian_tanh_100_forward": (make_jacobian_forward, None, None),
    "hessian_tanh_100_forward": (make_hessian_forward, None, None),
    "grad_batched_tanh_100": (make_grad_batched, None, None),
    "overhead_add_small": (_binary_small("add"), None, None),
    "overhead_mul_small": (_binary_small("mul"), None, None),
    "overhead_add_small_grad": (_binary_small("add", requires_grad=True), None, None),
}
