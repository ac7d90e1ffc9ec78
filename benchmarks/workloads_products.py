"""Matrix-product workloads for benchmarks/run.py, on the shapes of one transformer layer:
batch 16, sequence 128, model width 256, 4 heads of 64 (each maker takes the library
module, ember or torch, and returns a zero-argument callable).

  tf_linear_qkv      x[16,128,256] @ W[256,768] (matmul, 3-D by 2-D)
  tf_addmm_ffn       bias + x[2048,256] @ W[256,1024] (addmm)
  tf_mm_ffn_out      h[2048,1024] @ W[1024,256] (mm)
  tf_scores_matmul   q[16,4,128,64] @ k^T[16,4,64,128] (matmul, 4-D batched)
  tf_scores_bmm      the same as bmm over 64 batches
  tf_scores_einsum   einsum("bhqd,bhkd->bhqk", q, k)
  tf_context_einsum  einsum("bhqk,bhkd->bhqd", p, v)
"""
import numpy as np

B, S, D, H = 16, 128, 256, 4
HD = D // H


def _t(lib, *shape, seed=0):
    g = np.random.default_rng(seed)
    return lib.from_numpy(g.standard_normal(shape, dtype=np.float32))


def make_linear_qkv(lib):
    x, w = _t(lib, B, S, D), _t(lib, D, 3 * D, seed=1)
    return lambda: lib.matmul(x, w)


def make_addmm_ffn(lib):
    x, w, b = _t(lib, B * S, D), _t(lib, D, 4 * D, seed=1), _t(lib, 4 * D, seed=2)
    return lambda: lib.addmm(b, x, w)


def make_mm_ffn_out(lib):
    h, w = _t(lib, B * S, 4 * D), _t(lib, 4 * D, D, seed=1)
    return lambda: lib.mm(h, w)


def make_scores_matmul(lib):
    q, k = _t(lib, B, H, S, HD), _t(lib, B, H, S, HD, seed=1)
    kt = k.transpose(-2, -1)
    return lambda: lib.matmul(q, kt)


def make_scores_bmm(lib):
    q, k = _t(lib, B * H, S, HD), _t(lib, B * H, S, HD, seed=1)
    kt = k.transpose(1, 2)
    return lambda: lib.bmm(q, kt)


def make_scores_einsum(lib):
    q, k = _t(lib, B, H, S, HD), _t(lib, B, H, S, HD, seed=1)
    return lambda: lib.einsum("bhqd,bhkd->bhqk", q, k)


def make_context_einsum(lib):
    p, v = _t(lib, B, H, S, S), _t(lib, B, H, S, HD, seed=1)
    return lambda: lib.einsum("bhqk,bhkd->bhqd", p, v)


WORKLOADS = {
    "tf_linear_qkv": (make_linear_qkv, 2 * B * S * D * 3 * D, "GFLOP/s"),
    "tf_addmm_ffn": (make_addmm_ffn, 2 * B * S * D * 4 * D, "GFLOP/s"),
    "tf_mm_ffn_out": (make_mm_ffn_out, 2 * B * S * 4 * D * D, "GFLOP/s"),
    "tf_scores_matmul": (make_scores_matmul, 2 * B * H * S * S * HD, "GFLOP/s"),
    "tf_scores_bmm": (make_scores_bmm, 2 * B * H * S * S * HD, "GFLOP/s"),
    "tf_scores_einsum": (make_scores_einsum, 2 * B * H * S * S * HD, "GFLOP/s"),
    "tf_context_einsum": (make_context_einsum, 2 * B * H * S * S * HD, "GFLOP/s"),
}
