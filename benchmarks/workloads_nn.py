"""nn.functional workloads for benchmarks/run.py (each maker takes the library module,
ember or torch, and returns a zero-argument callable).

  nn_softmax_rows        softmax over the last dim of (256, 1000) float32 (classifier logits)
  nn_softmax_attn        softmax over the last dim of (16, 4, 128, 128) float32 (attention scores)
  nn_softmax_dim0        softmax over dim 0 of (1000, 256) float32 (strided columns)
  nn_log_softmax_rows    log_softmax of (256, 1000)
  nn_softmax_attn_bwd    softmax of the attention scores, forward + backward
  nn_log_softmax_rows_bwd  log_softmax of (256, 1000), forward + backward
  nn_layer_norm          layer_norm over the last dim of (16, 128, 256) with weight and bias
                         (the transformer layer of the nn issue); _bwd: forward + backward
  nn_batch_norm          batch_norm of (32, 64, 56, 56) in training mode; _bwd: forward + backward
  nn_batch_norm_eval     the same in evaluation mode (running statistics)
"""
import numpy as np


def _randn(lib, shape, seed, grad=False):
    x = lib.from_numpy(np.random.default_rng(seed).standard_normal(shape, dtype=np.float32))
    return x.requires_grad_() if grad else x


def _fwd(op, shape, dim):
    def maker(lib):
        x = _randn(lib, shape, 1)
        fn = getattr(lib, op)
        return lambda: fn(x, dim)
    return maker


def _fwd_bwd(op, shape, dim):
    def maker(lib):
        x = _randn(lib, shape, 1, grad=True)
        g = _randn(lib, shape, 2)
        fn = getattr(lib, op)

        def run():
            x.grad = None
            fn(x, dim).backward(g)
        return run
    return maker


def _norm(kind, backward):
    def maker(lib):
        F = lib.nn.functional
        if kind == "layer":
            x = _randn(lib, (16, 128, 256), 1, grad=backward)
            w, b = _randn(lib, (256,), 2, grad=backward), _randn(lib, (256,), 3, grad=backward)
            fn = lambda: F.layer_norm(x, (256,), w, b)  # noqa: E731
        else:
            x = _randn(lib, (32, 64, 56, 56), 1, grad=backward)
            w, b = _randn(lib, (64,), 2, grad=backward), _randn(lib, (64,), 3, grad=backward)
            rm, rv = lib.zeros(64), lib.ones(64)
            training = kind == "batch"
            fn = lambda: F.batch_norm(x, rm, rv, w, b, training=training)  # noqa: E731
        if not backward:
            return fn
        g = _randn(lib, tuple(x.shape), 4)

        def run():
            x.grad = w.grad = b.grad = None
            fn().backward(g)
        return run
    return maker


WORKLOADS = {
    "nn_softmax_rows": (_fwd("softmax", (256, 1000), -1), 256 * 1000, "Gelem/s"),
    "nn_softmax_attn": (_fwd("softmax", (16, 4, 128, 128), -1), 16 * 4 * 128 * 128, "Gelem/s"),
    "nn_softmax_dim0": (_fwd("softmax", (1000, 256), 0), 256 * 1000, "Gelem/s"),
    "nn_log_softmax_rows": (_fwd("log_softmax", (256, 1000), -1), 256 * 1000, "Gelem/s"),
    "nn_softmax_attn_bwd": (_fwd_bwd("softmax", (16, 4, 128, 128), -1), 16 * 4 * 128 * 128, "Gelem/s"),
    "nn_log_softmax_rows_bwd": (_fwd_bwd("log_softmax", (256, 1000), -1), 256 * 1000, "Gelem/s"),
    "nn_layer_norm": (_norm("layer", False), 16 * 128 * 256, "Gelem/s"),
    "nn_layer_norm_bwd": (_norm("layer", True), 16 * 128 * 256, "Gelem/s"),
    "nn_batch_norm": (_norm("batch", False), 32 * 64 * 56 * 56, "Gelem/s"),
    "nn_batch_norm_bwd": (_norm("batch", True), 32 * 64 * 56 * 56, "Gelem/s"),
    "nn_batch_norm_eval": (_norm("eval", False), 32 * 64 * 56 * 56, "Gelem/s"),
}
