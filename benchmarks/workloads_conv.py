"""Convolution and pooling workloads for benchmarks/run.py (imported there; each maker takes
the library module, ember or torch, and returns a zero-argument callable). All names start
with conv_ so that `--filter conv` selects the family.

  conv2d_b{32,1}_fwd          conv2d of [B, 64, 56, 56] float32 with a [64, 64, 3, 3] weight and
                              bias, padding 1 (a ResNet stage-1 layer)
  conv2d_b{32,1}_fwdbwd       the same forward, then the gradients of input, weight and bias
                              (autograd.grad with a fixed output gradient)
  conv_maxpool2d_3x3s2        max_pool2d(kernel 3, stride 2, padding 1) of [32, 64, 112, 112]
  conv_avgpool2d_3x3s2        avg_pool2d(kernel 3, stride 2, padding 1) of the same
  conv_adaptive_avgpool_1x1   adaptive_avg_pool2d to 1x1 of [32, 512, 7, 7]
"""
import numpy as np


def _randn(lib, shape, seed):
    return lib.from_numpy(np.random.default_rng(seed).standard_normal(shape, dtype=np.float32))


def _conv(batch, backward):
    def maker(lib):
        F = lib.nn.functional
        x = _randn(lib, (batch, 64, 56, 56), 1)
        w = _randn(lib, (64, 64, 3, 3), 2) * 0.05
        b = _randn(lib, (64,), 3)
        if not backward:
            return lambda: F.conv2d(x, w, b, padding=1)
        for t in (x, w, b):
            t.requires_grad_()
        gy = _randn(lib, (batch, 64, 56, 56), 4)

        def step():
            y = F.conv2d(x, w, b, padding=1)
            return lib.autograd.grad([y], [x, w, b], [gy])
        return step
    return maker


def _pool(kind):
    def maker(lib):
        F = lib.nn.functional
        if kind == "adaptive":
            x = _randn(lib, (32, 512, 7, 7), 5)
            return lambda: F.adaptive_avg_pool2d(x, 1)
        x = _randn(lib, (32, 64, 112, 112), 6)
        fn = F.max_pool2d if kind == "max" else F.avg_pool2d
        return lambda: fn(x, 3, 2, 1)
    return maker


def _flops(batch):
    return 2 * batch * 64 * 64 * 9 * 56 * 56


# name -> (maker, work per call for the rate column, unit)
WORKLOADS = {
    "conv2d_b32_fwd": (_conv(32, False), _flops(32), "GFLOP/s"),
    "conv2d_b32_fwdbwd": (_conv(32, True), 3 * _flops(32), "GFLOP/s"),
    "conv2d_b1_fwd": (_conv(1, False), _flops(1), "GFLOP/s"),
    "conv2d_b1_fwdbwd": (_conv(1, True), 3 * _flops(1), "GFLOP/s"),
    "conv_maxpool2d_3x3s2": (_pool("max"), 4 * 32 * 64 * 112 * 112, "GB/s"),
    "conv_avgpool2d_3x3s2": (_pool("avg"), 4 * 32 * 64 * 112 * 112, "GB/s"),
    "conv_adaptive_avgpool_1x1": (_pool("adaptive"), 4 * 32 * 512 * 49, "GB/s"),
}
