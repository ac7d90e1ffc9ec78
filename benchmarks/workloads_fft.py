"""FFT workloads for benchmarks/run.py (each maker takes the library module, ember or torch,
and returns a zero-argument callable); the rate column is GFLOP/s by the usual 5 n log2 n
convention (2.5 n log2 n for real input). `scipy` runs the same makers against scipy.fft
(run.py reports torch / scipy next to torch / ember).

  fft_c2c_1024, fft_c2c_4096, fft_c2c_1M   complex64 1-D transforms
  fft_prime_1009, fft_prime_10007          complex64, prime lengths (Bluestein)
  fft_rfft_1M                              float32 real input, 2^20
  fft2_512                                 complex64 512 x 512
  fft_batch_4096x256                       complex64, 4096 transforms of 256 along the last dim
"""
import math
import types

import numpy as np


def _data(shape, complex_):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    if complex_:
        x = (x + 1j * rng.standard_normal(shape).astype(np.float32)).astype(np.complex64)
    return x


def _maker(fn_name, shape, complex_=True):
    def maker(lib):
        x = lib.from_numpy(_data(shape, complex_))
        fn = getattr(lib.fft, fn_name)
        return lambda: fn(x)
    return maker


def _flops(shape, real=False):
    n = math.prod(shape)
    return (2.5 if real else 5) * n * math.log2(n)


def scipy_module():
    """scipy.fft behind the names the makers use (None without scipy)."""
    try:
        import scipy.fft
    except ImportError:
        return None
    return types.SimpleNamespace(fft=scipy.fft, from_numpy=lambda a: a)


WORKLOADS = {
    "fft_c2c_1024": (_maker("fft", (1024,)), _flops((1024,)), "GFLOP/s"),
    "fft_c2c_4096": (_maker("fft", (4096,)), _flops((4096,)), "GFLOP/s"),
    "fft_c2c_1M": (_maker("fft", (2 ** 20,)), _flops((2 ** 20,)), "GFLOP/s"),
    "fft_prime_1009": (_maker("fft", (1009,)), _flops((1009,)), "GFLOP/s"),
    "fft_prime_10007": (_maker("fft", (10007,)), _flops((10007,)), "GFLOP/s"),
    "fft_rfft_1M": (_maker("rfft", (2 ** 20,), complex_=False), _flops((2 ** 20,), True), "GFLOP/s"),
    "fft2_512": (_maker("fft2", (512, 512)), _flops((512, 512)), "GFLOP/s"),
    "fft_batch_4096x256": (_maker("fft", (4096, 256)), 4096 * _flops((256,)), "GFLOP/s"),
}
