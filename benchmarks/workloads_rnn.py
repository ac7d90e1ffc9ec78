"""Recurrent-layer workloads for benchmarks/run.py (each maker takes the library module,
ember or torch, and returns a zero-argument callable).

  rnn_lstm_fwd_bwd   LSTM(256, 256, num_layers=2) on (seq 64, batch 32, 256) float32,
                     forward + backward (sum of the output)
  rnn_gru_fwd_bwd    the same with GRU
  rnn_lstm_fwd       the LSTM forward alone, without gradients
"""
import numpy as np

T, B, I, H, L = 64, 32, 256, 256, 2


def _layer(lib, kind):
    lib.manual_seed(0)
    layer = getattr(lib.nn, kind)(I, H, num_layers=L)
    x = lib.from_numpy(np.random.default_rng(1).standard_normal((T, B, I), dtype=np.float32))
    return layer, x


def _fwd_bwd(kind):
    def maker(lib):
        layer, x = _layer(lib, kind)
        x.requires_grad_()

        def run():
            layer.zero_grad()
            x.grad = None
            layer(x)[0].sum().backward()
        return run
    return maker


def _fwd(kind):
    def maker(lib):
        layer, x = _layer(lib, kind)

        def run():
            with lib.no_grad():
                layer(x)
        return run
    return maker


# Multiply-adds of the matmuls (input projection + recurrence), forward only.
_MACS = {k: L * T * B * g * H * (I + H) for k, g in (("LSTM", 4), ("GRU", 3))}

# name -> (maker, work per call for the rate column, unit): GFLOP/s of the forward matmuls
# (fwd + bwd counts three times the forward's).
WORKLOADS = {
    "rnn_lstm_fwd_bwd": (_fwd_bwd("LSTM"), 3 * 2 * _MACS["LSTM"], "GFLOP/s"),
    "rnn_gru_fwd_bwd": (_fwd_bwd("GRU"), 3 * 2 * _MACS["GRU"], "GFLOP/s"),
    "rnn_lstm_fwd": (_fwd("LSTM"), 2 * _MACS["LSTM"], "GFLOP/s"),
}
