"""ember.fx workloads for benchmarks/run.py (makers take ember or torch and return a callable;
torch runs torch.fx and torch.fx.experimental.optimization.optimize_for_inference):

  fx_trace_resnet18          symbolic_trace of ResNet-18 (the issue asks < 50 ms)
  fx_resnet18_b1_eager       ResNet-18 inference at batch 1, eval mode, the plain module
  fx_resnet18_b1_fused       the same through fx.experimental.optimize_for_inference: traced, BatchNorm
                             folded, convolutions prepacked with bias/residual/ReLU fused (ember: oneDNN
                             blocked layout between convolutions; torch: its MKLDNN layout pass)
                             (the issue asks >= 1.2x over eager)
  fx_interp_mlp              Interpreter.run of a 64-node elementwise chain on a 1-element tensor

Run this file directly for the three must-reach figures of ember alone:
  PYTHONPATH=build/python python3 benchmarks/workloads_fx.py [--threads N]
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "resnet"))
from resnet18 import make_resnet18  # noqa: E402


def resnet18(lib, num_classes=1000):
    """torchvision's ResNet-18 (examples/resnet/resnet18.py, the ember.fx tests' definition too)."""
    return make_resnet18(lib, num_classes)


def _trained_stats(lib, model):
    """Non-trivial batch-norm statistics (a few training-mode passes), then eval mode."""
    model.train()
    with lib.no_grad():
        for s in range(2):
            model(lib.from_numpy(np.random.default_rng(s).standard_normal((2, 3, 64, 64)).astype(np.float32)))
    return model.eval()


def _input(lib):
    return lib.from_numpy(np.random.default_rng(7).standard_normal((1, 3, 224, 224)).astype(np.float32))


def _fx(lib):
    if lib.__name__ == "torch":
        import torch.fx
        from torch.fx.experimental.optimization import optimize_for_inference
        return torch.fx.symbolic_trace, optimize_for_inference
    import ember.fx
    return ember.fx.symbolic_trace, ember.fx.experimental.optimize_for_inference


def make_trace_resnet18(lib):
    model = resnet18(lib)
    trace, _ = _fx(lib)
    return lambda: trace(model)


def make_resnet18_eager(lib):
    lib.manual_seed(0)
    model = _trained_stats(lib, resnet18(lib))
    x = _input(lib)

    def run():
        with lib.no_grad():
            return model(x)
    return run


def make_resnet18_fused(lib):
    lib.manual_seed(0)
    model = _trained_stats(lib, resnet18(lib))
    _, optimize = _fx(lib)
    fused = optimize(model)
    x = _input(lib)

    def run():
        with lib.no_grad():
            return fused(x)
    return run


def _chain(lib, n=64):
    class Chain(lib.nn.Module):
        def forward(self, x):
            for _ in range(n // 2):
                x = (x * 1.0001).neg()
            return x
    return Chain()


def make_interp(lib):
    trace, _ = _fx(lib)
    gm = trace(_chain(lib))
    interp = lib.fx.Interpreter(gm)
    x = lib.ones(1)
    return lambda: interp.run(x)


WORKLOADS = {
    "fx_trace_resnet18": (make_trace_resnet18, None, None),
    "fx_resnet18_b1_eager": (make_resnet18_eager, None, None),
    "fx_resnet18_b1_fused": (make_resnet18_fused, None, None),
    "fx_interp_chain64": (make_interp, None, None),
}


def _best(fn, repeat, number):
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - t0) / number)
    return min(times), float(np.median(times))


def main():
    import argparse
    import ember
    import ember.fx  # noqa: F401
    ap = argparse.ArgumentParser(description="ember.fx must-reach figures")
    ap.add_argument("--threads", type=int, default=None, help="intra-op threads (default: all cores)")
    opts = ap.parse_args()
    if opts.threads:
        ember.set_num_threads(opts.threads)
    t_trace = _best(make_trace_resnet18(ember), 7, 3)
    # Interleaved rounds, so that both models see the same machine load.
    run_eager, run_fused = make_resnet18_eager(ember), make_resnet18_fused(ember)
    e_times, f_times = [], []
    for _ in range(7):
        e_times.append(_best(run_eager, 1, 3)[0])
        f_times.append(_best(run_fused, 1, 3)[0])
    eager = (min(e_times), float(np.median(e_times)))
    fused = (min(f_times), float(np.median(f_times)))
    # Interpreter overhead per node: Interpreter.run vs the GraphModule's generated code.
    gm = ember.fx.symbolic_trace(_chain(ember))
    nodes = sum(1 for n in gm.graph.nodes if n.op not in ("placeholder", "output"))
    x = ember.ones(1)
    interp = ember.fx.Interpreter(gm)
    # Interleaved rounds, best of each: the two are measured under the same machine load.
    t_code = t_interp = (float("inf"),)
    for _ in range(5):
        t_code = min(t_code, _best(lambda: gm(x), 30, 100))
        t_interp = min(t_interp, _best(lambda: interp.run(x), 30, 100))
    print(f"trace ResNet-18:            {t_trace[0] * 1e3:.2f} ms (median {t_trace[1] * 1e3:.2f} ms)")
    print(f"ResNet-18 b1 eager:         {eager[0] * 1e3:.2f} ms (median {eager[1] * 1e3:.2f} ms)")
    print(f"ResNet-18 b1 optimized:     {fused[0] * 1e3:.2f} ms (median {fused[1] * 1e3:.2f} ms)")
    print(f"  speedup (best / median):  {eager[0] / fused[0]:.2f}x / {eager[1] / fused[1]:.2f}x")
    print(f"Interpreter, {nodes} nodes:    {t_interp[0] * 1e6:.1f} us vs generated code {t_code[0] * 1e6:.1f} us: "
          f"{(t_interp[0] - t_code[0]) / nodes * 1e6:.2f} us/node")


if __name__ == "__main__":
    main()
