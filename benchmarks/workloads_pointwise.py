"""Pointwise workloads for benchmarks/run.py (imported there; each maker takes the library
module, ember or torch, and returns a zero-argument callable). All on 16M elements.

  pw_<op>_16M          exp, log, tanh, sigmoid, gelu, gelu_tanh, erf of float32, fresh output
                       (log of |x|, so that it stays finite)
  pw_<op>_16M_out      the same into a preallocated output (out=)
  pw_bf16_muladd_16M   x*y + z in bfloat16, as written (a multiply, then an add)
  pw_bf16_addcmul_16M  torch.addcmul(z, x, y) in bfloat16
  pw_bf16_exp_16M      exp of bfloat16
  pw_muladd_inplace    mul(x, y, out=t) then t.add_(z) in float32 (an in-place chain)
  pow_16M_scalar2      pow(x, 2, out=o) in float32 (the x * x fast path)
  pow_16M_scalar       pow(x, 2.5, out=o) of positive float32 (vector pow)
  pow_16M_tensor       pow(x, y, out=o), both float32 tensors (vector pow)
  pow_64K_scalar2      pow(x, 2) of 65536 float32, fresh output (per-call overhead)
  mul_64K_self         mul(x, x) of the same x, the kernel pow(x, 2) runs
  to_f16_16M           oh.copy_(x): float32 -> float16
  from_f16_16M         o.copy_(xh): float16 -> float32
  to_bf16_16M          ob.copy_(x): float32 -> bfloat16
  lerp_16M             lerp(x, y, 0.3) in float32, fresh output
  add_bias_16Kx32      x + b with x 16384x32 and b of 32 float32 (a bias broadcast over rows)
  pw64K_<op>           leaky_relu (slope 0.1), floor, trunc, frac of 65536 float32 (selects and
                       rounding, vectorized only without trapping math), fresh output
"""
import numpy as np

N16M = 16 << 20
_GELU_TANH = "gelu_tanh"


def _vec(lib, seed, dtype="float32", positive=False):
    g = np.random.default_rng(seed)
    v = g.standard_normal(N16M, dtype=np.float32)
    if positive:
        v = np.abs(v) + np.float32(1e-3)
    t = lib.from_numpy(v)
    return t if dtype == "float32" else t.to(getattr(lib, dtype))


def _fn(lib, op):
    if op in ("gelu", _GELU_TANH):
        f = lib.nn.functional.gelu if lib.__name__ == "torch" else lib.gelu
        if op == _GELU_TANH:
            return lambda x, **k: f(x, approximate="tanh", **k)
        return f
    return getattr(lib, op)


def _unary(op, out):
    def maker(lib):
        x = _vec(lib, 4, positive=op == "log")
        f = _fn(lib, op)
        if out:
            o = lib.empty(N16M)
            if op in ("gelu", _GELU_TANH) and lib.__name__ == "torch":
                return lambda: lib._C._nn.gelu(x, approximate="tanh" if op == _GELU_TANH else "none", out=o)
            return lambda: f(x, out=o)
        return lambda: f(x)
    return maker


def make_bf16_muladd(lib):
    x, y, z = (_vec(lib, s, "bfloat16") for s in (1, 2, 3))
    return lambda: x * y + z


def make_bf16_addcmul(lib):
    x, y, z = (_vec(lib, s, "bfloat16") for s in (1, 2, 3))
    return lambda: lib.addcmul(z, x, y)


def make_bf16_exp(lib):
    x = _vec(lib, 4, "bfloat16")
    return lambda: lib.exp(x)


def make_muladd_inplace(lib):
    x, y, z = (_vec(lib, s) for s in (1, 2, 3))
    t = lib.empty(N16M)

    def f():
        lib.mul(x, y, out=t)
        t.add_(z)
    return f


def make_pow_scalar(exponent):
    def maker(lib):
        x = _vec(lib, 4, positive=True)
        o = lib.empty(N16M)
        return lambda: lib.pow(x, exponent, out=o)
    return maker


def make_pow_small(lib):
    x = lib.from_numpy(np.random.default_rng(4).standard_normal(65536, dtype=np.float32))
    return lambda: lib.pow(x, 2)


def make_mul_small(lib):
    x = lib.from_numpy(np.random.default_rng(4).standard_normal(65536, dtype=np.float32))
    return lambda: lib.mul(x, x)


def _small_unary(op):
    def maker(lib):
        x = lib.from_numpy(np.random.default_rng(6).standard_normal(65536, dtype=np.float32))
        if op == "leaky_relu":
            f = lib.nn.functional.leaky_relu
            return lambda: f(x, 0.1)
        f = getattr(lib, op)
        return lambda: f(x)
    return maker


def make_add_bias(lib):
    g = np.random.default_rng(7)
    x = lib.from_numpy(g.standard_normal((16384, 32), dtype=np.float32))
    b = lib.from_numpy(g.standard_normal(32, dtype=np.float32))
    return lambda: lib.add(x, b)


def make_pow_tensor(lib):
    x = _vec(lib, 4, positive=True)
    y = _vec(lib, 5)
    o = lib.empty(N16M)
    return lambda: lib.pow(x, y, out=o)


def make_copy(dst_dtype, src_dtype):
    def maker(lib):
        x = _vec(lib, 4, src_dtype)
        o = lib.empty(N16M, dtype=getattr(lib, dst_dtype))
        return lambda: o.copy_(x)
    return maker


def make_lerp(lib):
    x, y = _vec(lib, 1), _vec(lib, 2)
    return lambda: lib.lerp(x, y, 0.3)


# name -> (maker, bytes moved per call, unit)
WORKLOADS = {}
for _op in ("exp", "log", "tanh", "sigmoid", "gelu", _GELU_TANH, "erf"):
    WORKLOADS[f"pw_{_op}_16M"] = (_unary(_op, False), 2 * 4 * N16M, "GB/s")
    WORKLOADS[f"pw_{_op}_16M_out"] = (_unary(_op, True), 2 * 4 * N16M, "GB/s")
WORKLOADS["pw_bf16_muladd_16M"] = (make_bf16_muladd, 6 * 2 * N16M, "GB/s")
WORKLOADS["pw_bf16_addcmul_16M"] = (make_bf16_addcmul, 4 * 2 * N16M, "GB/s")
WORKLOADS["pw_bf16_exp_16M"] = (make_bf16_exp, 2 * 2 * N16M, "GB/s")
WORKLOADS["pw_muladd_inplace_16M"] = (make_muladd_inplace, 6 * 4 * N16M, "GB/s")
WORKLOADS["pow_16M_scalar2"] = (make_pow_scalar(2), 2 * 4 * N16M, "GB/s")
WORKLOADS["pow_16M_scalar"] = (make_pow_scalar(2.5), 2 * 4 * N16M, "GB/s")
WORKLOADS["pow_64K_scalar2"] = (make_pow_small, 2 * 4 * 65536, "GB/s")
WORKLOADS["mul_64K_self"] = (make_mul_small, 2 * 4 * 65536, "GB/s")
WORKLOADS["pow_16M_tensor"] = (make_pow_tensor, 3 * 4 * N16M, "GB/s")
WORKLOADS["to_f16_16M"] = (make_copy("float16", "float32"), 6 * N16M, "GB/s")
WORKLOADS["from_f16_16M"] = (make_copy("float32", "float16"), 6 * N16M, "GB/s")
WORKLOADS["to_bf16_16M"] = (make_copy("bfloat16", "float32"), 6 * N16M, "GB/s")
WORKLOADS["lerp_16M"] = (make_lerp, 3 * 4 * N16M, "GB/s")
WORKLOADS["add_bias_16Kx32"] = (make_add_bias, 2 * 4 * 16384 * 32, "GB/s")
for _op in ("leaky_relu", "floor", "trunc", "frac"):
    WORKLOADS[f"pw64K_{_op}"] = (_small_unary(_op), 2 * 4 * 65536, "GB/s")
