"""Random-number workloads for benchmarks/run.py (imported there; each maker takes the
library module, ember or torch, and returns a zero-argument callable).

  normal_16M   x.normal_() on 16M float32 (in place, Box-Muller)
  rand_16M     rand(16M) float32 (a fresh tensor each call, uniform [0, 1))
  randn_16M    randn(16M) float32
  uniform_16M  x.uniform_(-1, 1) on 16M float32
  exponential_16M  x.exponential_() on 16M float32
Rates count the bytes written (4 per element).
"""
N16M = 16 << 20


def make_normal_(lib):
    x = lib.empty(N16M)
    return lambda: x.normal_()


def make_rand(lib):
    return lambda: lib.rand(N16M)


def make_randn(lib):
    return lambda: lib.randn(N16M)


def make_uniform_(lib):
    x = lib.empty(N16M)
    return lambda: x.uniform_(-1, 1)


def make_exponential_(lib):
    x = lib.empty(N16M)
    return lambda: x.exponential_()


WORKLOADS = {
    "normal_16M": (make_normal_, 4 * N16M, "GB/s"),
    "rand_16M": (make_rand, 4 * N16M, "GB/s"),
    "randn_16M": (make_randn, 4 * N16M, "GB/s"),
    "uniform_16M": (make_uniform_, 4 * N16M, "GB/s"),
    "exponential_16M": (make_exponential_, 4 * N16M, "GB/s"),
}
