"""vmap workloads for benchmarks/run.py (each maker takes the library module, ember or torch,
and returns a zero-argument callable) (no rate column: time per call).

  jacobian_tanh_100_vectorize   autograd.functional.jacobian of tanh(W x), W 100x100, vectorize=True
  jacobian_tanh_100_loop        the same with vectorize=False (one backward pass per row)
  hessian_tanh_100_vectorize    autograd.functional.hessian of sum(tanh(W x)), vectorize=True
  per_sample_grads_mlp_128      per-sample gradients of an MLP 784-512-512-10 (ReLU, cross-entropy)
                                for 128 samples: Ember vmap(grad(loss)) with functional_call;
                                PyTorch a loop of 128 backward passes (the usual way without
                                functorch)
"""
import numpy as np


def _w_x(lib):
    rng = np.random.default_rng(0)
    w = lib.from_numpy(rng.standard_normal((100, 100)).astype(np.float32) * 0.1)
    x = lib.from_numpy(rng.standard_normal(100).astype(np.float32))
    return w, x


def _jacobian(vectorize):
    def maker(lib):
        w, x = _w_x(lib)
        return lambda: lib.autograd.functional.jacobian(lambda a: (w @ a).tanh(), x, vectorize=vectorize)
    return maker


def _hessian(lib):
    w, x = _w_x(lib)
    return lambda: lib.autograd.functional.hessian(lambda a: (w @ a).tanh().sum(), x, vectorize=True)


def _mlp(lib):
    rng = np.random.default_rng(0)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    x = lib.from_numpy(rng.standard_normal((128, 784)).astype(np.float32))
    y = lib.from_numpy(rng.integers(0, 10, 128).astype(np.int64))
    return model, x, y


def _per_sample_grads(lib):
    model, x, y = _mlp(lib)
    ce = lib.nn.functional.cross_entropy
    if lib.__name__ == "torch":
        params = list(model.parameters())

        def loop():
            grads = []
            for i in range(128):
                model.zero_grad(set_to_none=True)
                ce(model(x[i : i + 1]), y[i : i + 1]).backward()
                grads.append([p.grad for p in params])
            return grads
        return loop
    from ember.func import functional_call, grad, vmap
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p, xi, yi):
        return ce(functional_call(model, p, (xi.unsqueeze(0),)), yi.unsqueeze(0))

    per_sample = vmap(grad(loss), in_dims=(None, 0, 0))
    return lambda: per_sample(params, x, y)


WORKLOADS = {
    "jacobian_tanh_100_vectorize": (_jacobian(True), None, None),
    "jacobian_tanh_100_loop": (_jacobian(False), None, None),
    "hessian_tanh_100_vectorize": (_hessian, None, None),
    "per_sample_grads_mlp_128": (_per_sample_grads, None, None),
}
