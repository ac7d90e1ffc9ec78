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


def make_train_cnn_step(lib):
    lib.manual_seed(0)
    model = make_cnn(lib)
    model.train()
    g = np.random.default_rng(0)
    x = lib.from_numpy(g.standard_normal((BATCH, 1, 28, 28), dtype=np.float32))
    y = lib.from_numpy(g.integers(0, 10, BATCH))
    opt = lib.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    loss_fn = lib.nn.CrossEntropyLoss()

    def run():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
    return run


# Multiply-adds of one forward: conv1 (1->32, 3x3 at 28x28), conv2 (32->64, 3x3 at 14x14),
# linear (64*7*7 -> 10); the step is counted as three forwards.
_MACS = BATCH * (28 * 28 * 32 * 9 + 14 * 14 * 64 * 32 * 9 + 64 * 7 * 7 * 10)

# name -> (maker, work per call for the rate column, unit)
WORKLOADS = {
    "train_cnn_step_b64": (make_train_cnn_step, 3 * 2 * _MACS, "GFLOP/s"),
}
