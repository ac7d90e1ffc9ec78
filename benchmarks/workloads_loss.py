"""Loss workloads for benchmarks/run.py (imported there; each maker takes the library module,
ember or torch, and returns a zero-argument callable).

  loss_ce_<N>x<C>[_bwd]   cross_entropy (mean) of float32 logits (N, C) against class indices;
                          _bwd: forward and backward (the logits require grad)
  loss_nll_<N>x<C>[_bwd]  nll_loss (mean) of float32 log-probabilities (N, C)
  loss_mse_1M[_bwd]       mse_loss (mean) of 1M float32 against 1M float32
  loss_bce_logits_1M      binary_cross_entropy_with_logits (mean) of 1M float32 logits
"""
import numpy as np

M1 = 1 << 20


def _floats(lib, shape, seed, grad=False):
    x = lib.from_numpy(np.random.default_rng(seed).standard_normal(shape, dtype=np.float32))
    return x.requires_grad_() if grad else x


def _classes(lib, n, c, seed):
    return lib.from_numpy(np.random.default_rng(seed).integers(0, c, size=n, dtype=np.int64))


def _classification(fn_name, n, c, backward):
    def maker(lib):
        x = _floats(lib, (n, c), 1, grad=backward)
        if fn_name == "nll_loss":  # log-probabilities
            x = lib.from_numpy((x.detach().numpy() - np.log(np.exp(x.detach().numpy()).sum(1, keepdims=True))))
            if backward:
                x.requires_grad_()
        t = _classes(lib, n, c, 2)
        fn = getattr(lib.nn.functional, fn_name)
        if backward:
            return lambda: fn(x, t).backward()
        return lambda: fn(x, t)
    return maker


def _elementwise(fn_name, backward):
    def maker(lib):
        x = _floats(lib, (M1,), 3, grad=backward)
        y = _floats(lib, (M1,), 4)
        if fn_name == "binary_cross_entropy_with_logits":
            y = lib.from_numpy(np.random.default_rng(5).random(M1, dtype=np.float32))
        fn = getattr(lib.nn.functional, fn_name)
        if backward:
            return lambda: fn(x, y).backward()
        return lambda: fn(x, y)
    return maker


WORKLOADS = {}
for _n, _c in ((256, 1000), (4096, 10)):
    for _bwd in (False, True):
        _sfx = "_bwd" if _bwd else ""
        WORKLOADS[f"loss_ce_{_n}x{_c}{_sfx}"] = (_classification("cross_entropy", _n, _c, _bwd), None, None)
        WORKLOADS[f"loss_nll_{_n}x{_c}{_sfx}"] = (_classification("nll_loss", _n, _c, _bwd), None, None)
for _bwd in (False, True):
    _sfx = "_bwd" if _bwd else ""
    # mse reads two arrays; bce_with_logits reads two (the intermediates are Ember's own business)
    WORKLOADS[f"loss_mse_1M{_sfx}"] = (_elementwise("mse_loss", _bwd), None if _bwd else 2 * 4 * M1, None if _bwd else "GB/s")
    WORKLOADS[f"loss_bce_logits_1M{_sfx}"] = (_elementwise("binary_cross_entropy_with_logits", _bwd),
                                              None if _bwd else 2 * 4 * M1, None if _bwd else "GB/s")
