"""Optimizer workloads for benchmarks/run.py (each maker takes the library module, ember or
torch, and returns a zero-argument callable). torch runs its default implementation (1.13:
the single-tensor loop, foreach=False); ember runs its fused multi-tensor ops.

  optim_adam_10M          Adam step over 10M float32 parameters in 100 tensors, grads set
  optim_sgd_momentum_10M  SGD (momentum 0.9) step over the same parameters
  train_mlp_step          MLP 784-512-512-10 on a batch of 128: forward, cross_entropy,
                          backward, SGD momentum step
"""
import numpy as np

NPARAM, NTENSOR = 10_000_000, 100


def _params(lib):
    rng = np.random.default_rng(0)
    n = NPARAM // NTENSOR
    params = []
    for _ in range(NTENSOR):
        p = lib.from_numpy(rng.standard_normal(n, dtype=np.float32)).requires_grad_()
        p.grad = lib.from_numpy(rng.standard_normal(n, dtype=np.float32))
        params.append(p)
    return params


def _step(make_opt):
    def maker(lib):
        params = _params(lib)
        opt = make_opt(lib, params)
        opt.step()  # the state exists from here on
        return opt.step
    return maker


def _mlp(lib):
    lib.manual_seed(0)
    nn = lib.nn
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    rng = np.random.default_rng(1)
    x = lib.from_numpy(rng.standard_normal((128, 784), dtype=np.float32))
    y = lib.from_numpy(rng.integers(0, 10, 128).astype(np.int64))
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def run():
        opt.zero_grad()
        lib.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return run


_MLP_FLOP = 3 * 2 * 128 * (784 * 512 + 512 * 512 + 512 * 10)  # forward + backward matmuls

# name -> (maker, work per call for the rate column, unit). Adam reads p, g, m, v and writes
# p, m, v; SGD reads p, g, buf and writes p, buf (bytes per step at one pass).
WORKLOADS = {
    "optim_adam_10M": (_step(lambda lib, p: lib.optim.Adam(p, lr=1e-3)), 28 * NPARAM, "GB/s"),
    "optim_sgd_momentum_10M": (_step(lambda lib, p: lib.optim.SGD(p, lr=0.01, momentum=0.9)), 20 * NPARAM, "GB/s"),
    "train_mlp_step": (_mlp, _MLP_FLOP, "GFLOP/s"),
}
