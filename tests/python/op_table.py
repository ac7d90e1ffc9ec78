"""The op table: one row per public op, compared against PyTorch by test_op_table.py.

A row names the op, how to call it in either library, the dtypes Ember declares for it,
sample inputs per dtype (scalar, zero-size, non-contiguous, broadcast cases) and error
inputs. Every new op adds its row here.
"""
import glob
import importlib
import os

from op_testing import (ALL_BUT_BOOL, ALL_DTYPES, COMPLEX, ErrorSample, FLOATING, OpInfo, REAL,
                        Sample, T)

# Integer and bool inputs compute in the default float dtype; float16 is missing as in
# PyTorch 1.13's CPU kernels.
FLOAT_RESULT_UNARY = tuple(d for d in ALL_DTYPES if d != "float16")


def _unary_samples(low=-5.0, high=5.0):
    def samples(dtype):
        return [
            Sample([T((), low, high)], name="scalar"),
            Sample([T((7,), low, high)], name="1d"),
            Sample([T((0, 3), low, high)], name="zero-size"),
            Sample([T((3, 4), low, high, noncontig=True)], name="noncontig"),
            Sample([T((2, 3, 4), low, high, transpose=True)], name="transposed"),
            Sample([T((40000,), low, high)], name="large"),  # threaded and vectorized paths
        ]
    return samples


def _binary_samples(exclude_zero=False, scalars=(2, 1.5)):
    def samples(dtype):
        out = [
            Sample([T((), exclude_zero=exclude_zero), T((), seed=1, exclude_zero=exclude_zero)], name="scalar"),
            Sample([T((5,)), T((5,), seed=1, exclude_zero=exclude_zero)], name="same-shape"),
            Sample([T((2, 3)), T((3,), seed=1, exclude_zero=exclude_zero)], name="broadcast"),
            Sample([T((4, 1, 3)), T((2, 1), seed=1, exclude_zero=exclude_zero)], name="broadcast-both"),
            Sample([T((0, 3)), T((3,), seed=1, exclude_zero=exclude_zero)], name="zero-size"),
            Sample([T((3, 4), noncontig=True), T((3, 4), seed=1, transpose=True, exclude_zero=exclude_zero)],
                   name="noncontig"),
            Sample([T((5,)), T((), seed=1, exclude_zero=exclude_zero)], name="0dim-other"),
            Sample([T((50000,)), T((50000,), seed=1, exclude_zero=exclude_zero)], name="large"),
        ]
        if dtype not in ("bool",):
            for s in scalars:
                out.append(Sample([T((2, 3)), s], name=f"python-{type(s).__name__}"))
        out.append(Sample([T((3,)), T((3,), dtype="float64", seed=2, exclude_zero=exclude_zero)],
                          name="promote-float64"))
        out.append(Sample([T((3,)), T((), dtype="int64", seed=3, exclude_zero=exclude_zero)],
                          name="promote-0dim-int64"))
        return out
    return samples


def _broadcast_error(name):
    return lambda: [ErrorSample([T((2, 3)), T((4,))], {}, RuntimeError, "size of tensor a")]


def _op(name):
    return lambda lib, *a, **k: getattr(lib, name)(*a, **k)


def _heads_attention(lib, t, heads=2):
    n, length, e3 = t.shape
    q, k, v = t.view(n, length, 3, heads, e3 // (3 * heads)).permute(2, 0, 3, 1, 4).unbind(0)
    return lib.matmul(lib.matmul(q, k.transpose(-2, -1)), v)


ROWS = [
    # ---------------------------------------------------------------- arithmetic
    OpInfo("add", _op("add"), ALL_DTYPES, _binary_samples(), _broadcast_error("add")),
    OpInfo("add_alpha", lambda lib, a, b, alpha=2: lib.add(a, b, alpha=alpha), ALL_DTYPES,
           lambda d: [Sample([T((2, 3)), T((3,), seed=1)])],
           lambda: [ErrorSample([T((2,), dtype="int64"), T((2,), dtype="int64")], {"alpha": 1.5}, RuntimeError,
                                "alpha must not be a floating point")]),
    OpInfo("sub", _op("sub"), ALL_BUT_BOOL, _binary_samples(),
           lambda: [ErrorSample([T((2,), dtype="bool"), T((2,), dtype="bool")], {}, RuntimeError,
                                "Subtraction, the `-` operator, with two bool tensors")]),
    OpInfo("mul", _op("mul"), ALL_DTYPES, _binary_samples(), _broadcast_error("mul")),
    OpInfo("div", _op("div"), ALL_DTYPES, _binary_samples(exclude_zero=True),
           lambda: [ErrorSample([T((2,)), T((2,))], {"rounding_mode": "round"}, RuntimeError, "rounding_mode")]),
    OpInfo("div_trunc", lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"), REAL[1:],
           _binary_samples(exclude_zero=True, scalars=(2,))),
    OpInfo("div_floor", lambda lib, a, b: lib.div(a, b, rounding_mode="floor"), REAL[1:],
           _binary_samples(exclude_zero=True, scalars=(2,))),
    OpInfo("maximum", _op("maximum"), REAL, _binary_samples(scalars=())),
    OpInfo("minimum", _op("minimum"), REAL, _binary_samples(scalars=())),
    OpInfo("operator_add", lambda lib, a, b: a + b, ALL_DTYPES, _binary_samples()),
    OpInfo("operator_rsub", lambda lib, a: 3 - a, ALL_BUT_BOOL, lambda d: [Sample([T((2, 3))])]),
    OpInfo("operator_rtruediv", lambda lib, a: 2.5 / a, ALL_DTYPES,
           lambda d: [Sample([T((2, 3), exclude_zero=True)])]),
    # ---------------------------------------------------------------- unary
    OpInfo("neg", _op("neg"), ALL_BUT_BOOL, _unary_samples()),
    OpInfo("abs", _op("abs"), ALL_BUT_BOOL, _unary_samples()),
    OpInfo("exp", _op("exp"), FLOAT_RESULT_UNARY, _unary_samples(-3, 3)),
    OpInfo("log", _op("log"), FLOAT_RESULT_UNARY, _unary_samples(0.1, 10)),
    OpInfo("sqrt", _op("sqrt"), FLOAT_RESULT_UNARY, _unary_samples(0, 10)),
    OpInfo("sin", _op("sin"), FLOAT_RESULT_UNARY, _unary_samples()),
    OpInfo("cos", _op("cos"), FLOAT_RESULT_UNARY, _unary_samples()),
    OpInfo("tanh", _op("tanh"), FLOAT_RESULT_UNARY, _unary_samples()),
    # complex sigmoid is ill-conditioned near its poles: float32 rounding shows at 1e-4
    OpInfo("sigmoid", _op("sigmoid"), FLOAT_RESULT_UNARY, _unary_samples(), tol={"complex64": (1e-4, 1e-4)}),
    OpInfo("relu", _op("relu"), tuple(d for d in REAL if d not in ("bool", "float16")), _unary_samples()),
    # ---------------------------------------------------------------- comparison, selection
    *[OpInfo(n, _op(n), ALL_DTYPES if n in ("eq", "ne") else REAL, _binary_samples(scalars=(2, 1.5)))
      for n in ("eq", "ne", "lt", "le", "gt", "ge")],
    OpInfo("where", lambda lib, c, a, b: lib.where(c, a, b), ALL_DTYPES,
           lambda d: [Sample([T((2, 3), dtype="bool"), T((2, 3)), T((3,), seed=1)]),
                      Sample([T((3, 1), dtype="bool"), T((1, 4)), T((), seed=1)]),
                      Sample([T((0,), dtype="bool"), T((0,)), T((0,), seed=1)])],
           lambda: [ErrorSample([T((2,), dtype="float32"), T((2,)), T((2,))], {}, RuntimeError, "")]),
    # ---------------------------------------------------------------- reductions
    OpInfo("sum", lambda lib, a, **k: lib.sum(a, **k), ALL_DTYPES,
           lambda d: [Sample([T(())]), Sample([T((5, 7))]), Sample([T((0, 3))]),
                      Sample([T((4, 6), noncontig=True)], {"dim": 1}),
                      Sample([T((3, 4, 5))], {"dim": (0, 2), "keepdim": True}),
                      Sample([T((3, 4, 5), transpose=True)], {"dim": -1}),
                      Sample([T((100000,), -1, 1)])],
           lambda: [ErrorSample([T((2, 3))], {"dim": 2}, IndexError, "Dimension out of range")],
           tol={"float32": (1e-5, 1e-4), "bfloat16": (2e-2, 1e-1), "float16": (2e-3, 2e-2)}),
    OpInfo("mean", lambda lib, a, **k: lib.mean(a, **k), FLOATING + COMPLEX,
           lambda d: [Sample([T((5, 7))]), Sample([T((3, 4, 5))], {"dim": (0, 2), "keepdim": True}),
                      Sample([T((4, 6), noncontig=True)], {"dim": 0})],
           lambda: [ErrorSample([T((2, 3), dtype="int64")], {}, RuntimeError, "")],
           tol={"float32": (1e-5, 1e-5), "bfloat16": (2e-2, 1e-2), "float16": (2e-3, 2e-3)}),
    OpInfo("max", lambda lib, a: lib.max(a), REAL,
           lambda d: [Sample([T(())]), Sample([T((5, 7))]), Sample([T((4, 6), noncontig=True)])],
           lambda: [ErrorSample([T((0,))], {}, RuntimeError, "")]),
    OpInfo("max_dim", lambda lib, a, d, keepdim=False: tuple(lib.max(a, d, keepdim=keepdim)), REAL,
           lambda d: [Sample([T((5, 7)), 1]), Sample([T((5, 7)), 0], {"keepdim": True}),
                      Sample([T((3, 4), transpose=True), -1])]),
    OpInfo("min", lambda lib, a: lib.min(a), REAL,
           lambda d: [Sample([T(())]), Sample([T((5, 7))]), Sample([T((4, 6), noncontig=True)])]),
    OpInfo("min_dim", lambda lib, a, d, keepdim=False: tuple(lib.min(a, d, keepdim=keepdim)), REAL,
           lambda d: [Sample([T((5, 7)), 1]), Sample([T((5, 7)), 0], {"keepdim": True})]),
    # ---------------------------------------------------------------- matmul
    OpInfo("matmul", _op("matmul"), tuple(d for d in ALL_BUT_BOOL if d != "float16"),
           lambda d: [Sample([T((3,), -2, 2), T((3,), -2, 2, seed=1)], name="dot"),
                      Sample([T((2, 3), -2, 2), T((3, 4), -2, 2, seed=1)], name="mm"),
                      Sample([T((3,), -2, 2), T((3, 4), -2, 2, seed=1)], name="vm"),
                      Sample([T((2, 3), -2, 2), T((3,), -2, 2, seed=1)], name="mv"),
                      Sample([T((5, 2, 3), -2, 2), T((3, 4), -2, 2, seed=1)], name="batched"),
                      Sample([T((2, 1, 2, 3), -2, 2), T((3, 3, 2), -2, 2, seed=1)], name="broadcast"),
                      Sample([T((3, 4), -2, 2, transpose=True), T((4, 5), -2, 2, seed=1)], name="transposed"),
                      Sample([T((0, 3), -2, 2), T((3, 4), -2, 2, seed=1)], name="zero-size"),
                      Sample([T((70, 90), -1, 1), T((90, 65), -1, 1, seed=1)], name="blas"),
                      # batch dims that fold into no single stride: two-level batch GEMM
                      Sample([T((2, 3, 4, 5), -2, 2, transpose=True), T((2, 3, 5, 3), -2, 2, seed=1)],
                             name="batch-strided"),
                      Sample([T((2, 3, 4, 5), -2, 2, noncontig=True), T((3, 5, 2), -2, 2, seed=1, transpose=True)],
                             name="batch-strided-broadcast")],
           lambda: [ErrorSample([T((2, 3)), T((4, 5))], {}, RuntimeError, "")],
           tol={"float32": (1e-5, 1e-4), "bfloat16": (3e-2, 5e-1), "complex64": (1e-5, 1e-4)},
           # Debian's PyTorch 1.13 returns 0 for complex vector dot products (its OpenBLAS
           # cdotu/zdotu call is broken); the reference computes those as (a * b).sum().
           torch_fn=lambda lib, a, b: (a * b).sum() if a.dim() == 1 and b.dim() == 1 and a.is_complex()
           else lib.matmul(a, b)),
    # Attention's heads read in place from a packed (N, L, 3 * heads * head_dim) projection:
    # the products see (N, heads, L, head_dim) views whose batch dims have two strides.
    OpInfo("matmul_heads", lambda lib, t: _heads_attention(lib, t), tuple(d for d in ALL_BUT_BOOL if d != "float16"),
           lambda d: [Sample([T((2, 5, 24), -2, 2)]), Sample([T((3, 1, 12), -2, 2)], name="one-position")],
           tol={"float32": (1e-5, 1e-4), "bfloat16": (3e-2, 5e-1), "complex64": (1e-5, 1e-4)}),
    # A matrix shared by a batch (batch stride 0): folded into one product over the batch.
    OpInfo("matmul_expanded",
           lambda lib, a, b, side: lib.matmul(a.expand(4, *a.shape), b) if side == "a"
           else lib.matmul(a, b.expand(4, *b.shape)),
           tuple(d for d in ALL_BUT_BOOL if d != "float16"),
           lambda d: [Sample([T((4, 2, 3), -2, 2), T((3, 5), -2, 2, seed=1)], {"side": "b"}, name="rows"),
                      Sample([T((4, 1, 3), -2, 2), T((3, 5), -2, 2, seed=1, transpose=True)], {"side": "b"},
                             name="vectors"),
                      Sample([T((4, 2, 3), -2, 2, transpose=True), T((3, 5), -2, 2, seed=1)], {"side": "b"},
                             name="unfoldable"),
                      Sample([T((2, 3), -2, 2), T((4, 3, 1), -2, 2, seed=1)], {"side": "a"}, name="columns"),
                      Sample([T((2, 3), -2, 2), T((4, 3, 5), -2, 2, seed=1)], {"side": "a"}, name="no-fold")],
           tol={"float32": (1e-5, 1e-4), "bfloat16": (3e-2, 5e-1), "complex64": (1e-5, 1e-4)}),
    # ---------------------------------------------------------------- joining
    OpInfo("cat", lambda lib, ts, **k: lib.cat(ts, **k), ALL_DTYPES,
           lambda d: [Sample([[T((2, 3)), T((4, 3), seed=1)]]),
                      Sample([[T((2, 3)), T((2, 5), seed=1, noncontig=True)]], {"dim": 1}),
                      Sample([[T((2, 3)), T((0,), seed=1)]], name="legacy-empty"),
                      Sample([[T((2, 3))]], {"dim": -1})],
           lambda: [ErrorSample([[T((2, 3)), T((2, 4))]], {}, RuntimeError, "")]),
    OpInfo("stack", lambda lib, ts, **k: lib.stack(ts, **k), ALL_DTYPES,
           lambda d: [Sample([[T((2, 3)), T((2, 3), seed=1)]]),
                      Sample([[T((2, 3)), T((2, 3), seed=1, transpose=True)]], {"dim": 2})],
           lambda: [ErrorSample([[T((2, 3)), T((3, 2))]], {}, RuntimeError, "")]),
    # ---------------------------------------------------------------- copies, conversion
    OpInfo("clone", lambda lib, a: a.clone(), ALL_DTYPES, _unary_samples()),
    OpInfo("contiguous", lambda lib, a: a.contiguous(), ALL_DTYPES, _unary_samples()),
    *[OpInfo(f"to_{target}", (lambda tgt: lambda lib, a: a.to(getattr(lib, tgt)))(target), ALL_DTYPES,
             _unary_samples(-3, 3)) for target in ALL_DTYPES],
    OpInfo("copy_", lambda lib, a, b: a.clone().copy_(b), ALL_DTYPES,
           lambda d: [Sample([T((2, 3)), T((3,), dtype="float64", seed=1)]),
                      Sample([T((2, 3)), T((2, 3), dtype="int32", seed=1, transpose=True)])],
           lambda: [ErrorSample([T((2, 3)), T((4,))], {}, RuntimeError, "")]),
    OpInfo("fill_", lambda lib, a, v: a.clone().fill_(v), ALL_DTYPES,
           lambda d: [Sample([T((2, 3)), 1]), Sample([T((4, 6), noncontig=True), 0])]),
    # ---------------------------------------------------------------- views
    OpInfo("view", lambda lib, a: a.view(3, -1), ALL_DTYPES, lambda d: [Sample([T((2, 6))])],
           lambda: [ErrorSample([T((2, 6), transpose=True)], {}, RuntimeError, "view size is not compatible")]),
    OpInfo("reshape", lambda lib, a: a.reshape(-1, 4), ALL_DTYPES,
           lambda d: [Sample([T((2, 6))]), Sample([T((6, 2), transpose=True)])],
           lambda: [ErrorSample([T((2, 5))], {}, RuntimeError, "invalid for input of size")]),
    OpInfo("permute", lambda lib, a: a.permute(2, 0, 1), ALL_DTYPES, lambda d: [Sample([T((2, 3, 4))])]),
    OpInfo("transpose", lambda lib, a: a.transpose(0, -1), ALL_DTYPES, lambda d: [Sample([T((2, 3, 4))])]),
    OpInfo("expand", lambda lib, a: a.expand(4, 2, 3), ALL_DTYPES, lambda d: [Sample([T((2, 1))])]),
    OpInfo("squeeze", lambda lib, a: a.squeeze(), ALL_DTYPES, lambda d: [Sample([T((2, 1, 3, 1))])]),
    OpInfo("unsqueeze", lambda lib, a: a.unsqueeze(-1), ALL_DTYPES, lambda d: [Sample([T((2, 3))])]),
    OpInfo("flatten", lambda lib, a: a.flatten(1), ALL_DTYPES, lambda d: [Sample([T((2, 3, 4))])]),
    OpInfo("narrow", lambda lib, a: a.narrow(1, 1, 2), ALL_DTYPES, lambda d: [Sample([T((2, 4))])]),
    OpInfo("select", lambda lib, a: a.select(1, -1), ALL_DTYPES, lambda d: [Sample([T((2, 4))])],
           lambda: [ErrorSample([T((2, 0))], {}, IndexError, "out of range|out of bounds")]),
    OpInfo("unfold", lambda lib, a: a.unfold(1, 2, 1), ALL_DTYPES, lambda d: [Sample([T((2, 5))])]),
    OpInfo("diagonal", lambda lib, a: a.diagonal(1), ALL_DTYPES, lambda d: [Sample([T((3, 4))])]),
    OpInfo("real", lambda lib, a: a.real, ALL_DTYPES, lambda d: [Sample([T((3, 4))])]),
    OpInfo("imag", lambda lib, a: a.imag, COMPLEX, lambda d: [Sample([T((3, 4))])]),
    OpInfo("t", lambda lib, a: a.t(), ALL_DTYPES, lambda d: [Sample([T((3, 4))])],
           lambda: [ErrorSample([T((2, 3, 4))], {}, RuntimeError, "t\\(\\) expects a tensor with <= 2 dimensions")]),
]

# Each op family keeps its rows in a module of its own, op_rows_<family>.py, with a ROWS
# list and optionally a COVERED_ELSEWHERE set (ops tested by dedicated tests instead).
COVERED_ELSEWHERE = set()
for _path in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "op_rows_*.py"))):
    _module = importlib.import_module(os.path.splitext(os.path.basename(_path))[0])
    ROWS.extend(_module.ROWS)
    COVERED_ELSEWHERE |= set(getattr(_module, "COVERED_ELSEWHERE", ()))
_names = [r.name for r in ROWS]
assert len(_names) == len(set(_names)), "op-table rows must have unique names"
