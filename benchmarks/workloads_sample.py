"""Resampling workloads for benchmarks/run.py (imported there; each maker takes the library
module, ember or torch, and returns a zero-argument callable). All names start with sample_
so that `--filter sample` selects the family.

  sample_bilinear2x_fwd        interpolate(scale_factor=2, mode="bilinear") of [8, 64, 64, 64] float32
  sample_bilinear2x_fwdbwd     the same forward, then the input gradient (autograd.grad with a
                               fixed output gradient)
  sample_grid_bilinear_fwd     grid_sample (bilinear, zeros, align_corners=False) of
                               [8, 32, 64, 64] float32 at a [8, 64, 64, 2] grid in [-1.1, 1.1]
  sample_grid_bilinear_fwdbwd  the same forward, then the gradients of input and grid
  sample_aa_bilinear4x_fwd     interpolate(size=(64, 64), mode="bilinear", antialias=True) of
                               [8, 3, 256, 256] float32 (a 4x antialiased downscale)
  sample_aa_bilinear4x_fwdbwd  the same forward, then the input gradient
"""
import numpy as np


def _randn(lib, shape, seed):
    return lib.from_numpy(np.random.default_rng(seed).standard_normal(shape, dtype=np.float32))


def _bilinear(backward):
    def maker(lib):
        F = lib.nn.functional
        x = _randn(lib, (8, 64, 64, 64), 1)
        if not backward:
            return lambda: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
        x.requires_grad_()
        gy = _randn(lib, (8, 64, 128, 128), 2)

        def step():
            y = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
            return lib.autograd.grad([y], [x], [gy])
        return step
    return maker


def _grid(backward):
    def maker(lib):
        F = lib.nn.functional
        x = _randn(lib, (8, 32, 64, 64), 3)
        rng = np.random.default_rng(4)
        grid = lib.from_numpy(rng.uniform(-1.1, 1.1, (8, 64, 64, 2)).astype(np.float32))
        if not backward:
            return lambda: F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
        x.requires_grad_()
        grid.requires_grad_()
        gy = _randn(lib, (8, 32, 64, 64), 5)

        def step():
            y = F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
            return lib.autograd.grad([y], [x, grid], [gy])
        return step
    return maker


def _aa_bilinear(backward):
    def maker(lib):
        F = lib.nn.functional
        x = _randn(lib, (8, 3, 256, 256), 6)
        kw = dict(size=(64, 64), mode="bilinear", align_corners=False, antialias=True)
        if not backward:
            return lambda: F.interpolate(x, **kw)
        x.requires_grad_()
        gy = _randn(lib, (8, 3, 64, 64), 7)

        def step():
            y = F.interpolate(x, **kw)
            return lib.autograd.grad([y], [x], [gy])
        return step
    return maker


# name -> (maker, work per call for the rate column, unit): bytes of input read and output written
_UP = 4 * 8 * 64 * (64 * 64 + 128 * 128)
_GRID = 4 * (8 * 32 * 64 * 64 * 2 + 8 * 64 * 64 * 2)
_AA = 4 * 8 * 3 * (256 * 256 + 64 * 64)
WORKLOADS = {
    "sample_bilinear2x_fwd": (_bilinear(False), _UP, "GB/s"),
    "sample_bilinear2x_fwdbwd": (_bilinear(True), 2 * _UP, "GB/s"),
    "sample_grid_bilinear_fwd": (_grid(False), _GRID, "GB/s"),
    "sample_grid_bilinear_fwdbwd": (_grid(True), 2 * _GRID, "GB/s"),
    "sample_aa_bilinear4x_fwd": (_aa_bilinear(False), _AA, "GB/s"),
    "sample_aa_bilinear4x_fwdbwd": (_aa_bilinear(True), 2 * _AA, "GB/s"),
}
