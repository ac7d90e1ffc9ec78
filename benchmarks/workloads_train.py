"""Training-step workloads for benchmarks/run.py (each maker takes the library module,
ember or torch, and returns a zero-argument callable).

  train_cnn_step_b64   one SGD-with-momentum step of the Fashion-MNIST demo's CNN
                       (examples/fashion_mnist/model.py) at batch 64 on 1x28x28 inputs:
                       forward, cross_entropy, backward, parameter update
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "examples", "fashion_mnist"))
from model import make_cnn  # noqa: E402

BATCH = 64
LR, MOMENTUM = 0.01, 0.9


def _sgd_momentum(lib, params):
    """SGD with momentum written with tensor ops, used until the optimizer is on both sides:
    buf = momentum * buf + g; p -= lr * buf (torch.optim.SGD's update, dampening 0)."""
    if hasattr(lib, "optim") and hasattr(lib.optim, "SGD"):
        opt = lib.optim.SGD(params, lr=LR, momentum=MOMENTUM)
        return opt.zero_grad, opt.step
    bufs = [None] * len(params)

    def zero_grad():
        for p in params:
            p.grad = None

    def step():
        with lib.no_grad():
            for i, p in enumerate(params):
                if bufs[i] is None:
                    bufs[i] = p.grad.clone()
                else:
                    bufs[i].mul_(MOMENTUM).add_(p.grad)
                p.sub_(bufs[i], alpha=LR)
    return zero_grad, step


def make_train_cnn_step(lib):
    lib.manual_seed(0)
    model = make_cnn(lib)
    model.train()
    g = np.random.default_rng(0)
    x = lib.from_numpy(g.standard_normal((BATCH, 1, 28, 28), dtype=np.float32))
    y = lib.from_numpy(g.integers(0, 10, BATCH))
    zero_grad, step = _sgd_momentum(lib, list(model.parameters()))
    loss_fn = lib.nn.CrossEntropyLoss()

    def run():
        zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        step()
    return run


# Multiply-adds of one forward: conv1 (1->32, 3x3 at 28x28), conv2 (32->64, 3x3 at 14x14),
# linear (64*7*7 -> 10); the step is counted as three forwards.
_MACS = BATCH * (28 * 28 * 32 * 9 + 14 * 14 * 64 * 32 * 9 + 64 * 7 * 7 * 10)

# name -> (maker, work per call for the rate column, unit)
WORKLOADS = {
    "train_cnn_step_b64": (make_train_cnn_step, 3 * 2 * _MACS, "GFLOP/s"),
}
