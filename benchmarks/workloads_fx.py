"""ember.fx workloads for benchmarks/run.py (makers take ember or torch and return a callable;
torch runs torch.fx and torch.fx.experimental.optimization.fuse):

  fx_trace_resnet18          symbolic_trace of ResNet-18 (the issue asks < 50 ms)
  fx_resnet18_b1_eager       ResNet-18 inference at batch 1, eval mode, the plain module
  fx_resnet18_b1_fused       the same traced and Conv/BN-fused (the issue asks >= 1.2x over eager)
  fx_interp_mlp              Interpreter.run of a 64-node elementwise chain on a 1-element tensor

Run this file directly for the three must-reach figures of ember alone:
  PYTHONPATH=build/python python3 benchmarks/workloads_fx.py [--threads N]
"""
import time

import numpy as np


def resnet18(lib, num_classes=1000):
    """torchvision's ResNet-18, written against lib.nn (ember or torch)."""
    nn = lib.nn

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride=1):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU(inplace=True)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.downsample = None
            if stride != 1 or cin != cout:
                self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

        def forward(self, x):
            identity = x
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            if self.downsample is not None:
                identity = self.downsample(x)
            out += identity
            return self.relu(out)

    class ResNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            self.layer1 = nn.Sequential(BasicBlock(64, 64), BasicBlock(64, 64))
            self.layer2 = nn.Sequential(BasicBlock(64, 128, 2), BasicBlock(128, 128))
            self.layer3 = nn.Sequential(BasicBlock(128, 256, 2), BasicBlock(256, 256))
            self.layer4 = nn.Sequential(BasicBlock(256, 512, 2), BasicBlock(512, 512))
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(512, num_classes)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(lib.flatten(self.avgpool(x), 1))

    return ResNet()


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
        from torch.fx.experimental.optimization import fuse
        return torch.fx.symbolic_trace, fuse
    import ember.fx
    return ember.fx.symbolic_trace, ember.fx.passes.fuse


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
    trace, fuse = _fx(lib)
    fused = fuse(trace(model)) if lib.__name__ != "torch" else fuse(model)
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
    print(f"ResNet-18 b1 traced+fused:  {fused[0] * 1e3:.2f} ms (median {fused[1] * 1e3:.2f} ms)")
    print(f"  speedup (best / median):  {eager[0] / fused[0]:.2f}x / {eager[1] / fused[1]:.2f}x")
    print(f"Interpreter, {nodes} nodes:    {t_interp[0] * 1e6:.1f} us vs generated code {t_code[0] * 1e6:.1f} us: "
          f"{(t_interp[0] - t_code[0]) / nodes * 1e6:.2f} us/node")


if __name__ == "__main__":
    main()
