"""Attention and transformer workloads for benchmarks/run.py (imported there; each maker takes
the library module, ember or torch, and returns a zero-argument callable). Both libraries get
the same weights and inputs.

  attn_enc_layer        TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024,
                        dropout=0.0, batch_first=True) in train mode on (16, 128, 256) float32
  attn_enc_layer_bwd    the same, forward + backward
  attn_mha_self         MultiheadAttention(256, 4, batch_first=True) self-attention on (16, 128, 256),
                        need_weights=False; _bwd: forward + backward
  attn_sdpa             scaled_dot_product_attention on (16, 4, 128, 64) q, k, v with a causal mask
                        (torch: the same formula spelled out, as 1.13 lacks the function)
"""
import math

import numpy as np

N, L, D, H, FF = 16, 128, 256, 4, 1024


def _randn(lib, shape, seed, grad=False):
    x = lib.from_numpy(np.random.default_rng(seed).standard_normal(shape, dtype=np.float32))
    return x.requires_grad_() if grad else x


def _same_weights(lib, module):
    """Deterministic weights from numpy, the same for both libraries."""
    g = np.random.default_rng(3)
    with lib.no_grad():
        for _, p in sorted(module.named_parameters()):
            p.copy_(lib.from_numpy((g.standard_normal(tuple(p.shape)) * 0.05).astype(np.float32)))
    return module


def _layer(kind, backward):
    def maker(lib):
        if kind == "enc":
            mod = lib.nn.TransformerEncoderLayer(D, H, dim_feedforward=FF, dropout=0.0, batch_first=True)
            fwd = lambda x: mod(x)  # noqa: E731
        else:
            mod = lib.nn.MultiheadAttention(D, H, batch_first=True)
            fwd = lambda x: mod(x, x, x, need_weights=False)[0]  # noqa: E731
        _same_weights(lib, mod).train()
        x = _randn(lib, (N, L, D), 1, grad=backward)
        if not backward:
            return lambda: fwd(x)
        g = _randn(lib, (N, L, D), 2)

        def run():
            x.grad = None
            for p in mod.parameters():
                p.grad = None
            fwd(x).backward(g)
        return run
    return maker


def make_sdpa(lib):
    q, k, v = (_randn(lib, (N, H, L, D // H), s) for s in (4, 5, 6))
    if lib.__name__ == "ember":
        return lambda: lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    mask = lib.full((L, L), float("-inf")).triu(1)
    scale = 1.0 / math.sqrt(D // H)
    return lambda: lib.softmax(lib.baddbmm(mask, (q * scale).view(-1, L, D // H),
                                           k.view(-1, L, D // H).transpose(1, 2)), -1) \
        .bmm(v.view(-1, L, D // H)).view(N, H, L, D // H)


# Forward FLOPs of the encoder layer: in-projection, scores, weights @ v, out-projection, FFN.
_ENC_FLOPS = 2 * N * L * D * 3 * D + 2 * 2 * N * L * L * D + 2 * N * L * D * D + 2 * 2 * N * L * D * FF
_MHA_FLOPS = 2 * N * L * D * 3 * D + 2 * 2 * N * L * L * D + 2 * N * L * D * D

# name -> (maker, flops per call for the rate column, unit); backward counted as twice forward.
WORKLOADS = {
    "attn_enc_layer": (_layer("enc", False), _ENC_FLOPS, "GFLOP/s"),
    "attn_enc_layer_bwd": (_layer("enc", True), 3 * _ENC_FLOPS, "GFLOP/s"),
    "attn_mha_self": (_layer("mha", False), _MHA_FLOPS, "GFLOP/s"),
    "attn_mha_self_bwd": (_layer("mha", True), 3 * _MHA_FLOPS, "GFLOP/s"),
    "attn_sdpa": (make_sdpa, 2 * 2 * N * L * L * D, "GFLOP/s"),
}
