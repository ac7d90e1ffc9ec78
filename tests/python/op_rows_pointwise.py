"""Op-table rows of the pointwise ops (issue #4): unary math, rounding, predicates,
activations, clamping, the binary and ternary ops and the comparisons with tolerances.
Each row is checked against PyTorch 1.13 by test_op_table.py (values, dtypes, shapes,
undeclared dtypes, error inputs)."""
import torch.nn.functional as F

from op_testing import (ALL_BUT_BOOL, ALL_DTYPES, COMPLEX, FLOATING, INTEGRAL, REAL, ErrorSample, OpInfo,
                        Sample, T)

NO_HALF = tuple(d for d in ALL_DTYPES if d != "float16")
REAL_NO_HALF = tuple(d for d in REAL if d != "float16")
FLOAT_NO_HALF = ("bfloat16", "float32", "float64")
INT_AND_FLOAT_NO_HALF = INTEGRAL + FLOAT_NO_HALF
NUMBERS = ALL_BUT_BOOL


def _unary(low=-5.0, high=5.0):
    def samples(dtype):
        return [
            Sample([T((), low, high)], name="scalar"),
            Sample([T((7,), low, high)], name="1d"),
            Sample([T((0, 3), low, high)], name="zero-size"),
            Sample([T((3, 4), low, high, noncontig=True)], name="noncontig"),
            Sample([T((2, 3, 4), low, high, transpose=True)], name="transposed"),
            Sample([T((40000,), low, high)], name="large"),  # threaded and vectorized paths
            Sample([T((1027,), low, high, seed=5)], name="vector-tail"),
        ]
    return samples


def _binary(exclude_zero=False, scalars=(2, 1.5), low=-5.0, high=5.0, low2=None, high2=None):
    low2 = low if low2 is None else low2
    high2 = high if high2 is None else high2

    def samples(dtype):
        b = dict(low=low2, high=high2, exclude_zero=exclude_zero)
        a = dict(low=low, high=high)
        out = [
            Sample([T((), **a), T((), seed=1, **b)], name="scalar"),
            Sample([T((5,), **a), T((5,), seed=1, **b)], name="same-shape"),
            Sample([T((2, 3), **a), T((3,), seed=1, **b)], name="broadcast"),
            Sample([T((4, 1, 3), **a), T((2, 1), seed=1, **b)], name="broadcast-both"),
            Sample([T((0, 3), **a), T((3,), seed=1, **b)], name="zero-size"),
            Sample([T((3, 4), noncontig=True, **a), T((3, 4), seed=1, transpose=True, **b)], name="noncontig"),
            Sample([T((5,), **a), T((), seed=1, **b)], name="0dim-other"),
            Sample([T((50000,), **a), T((50000,), seed=1, **b)], name="large"),
        ]
        if dtype != "bool":
            for s in scalars:
                out.append(Sample([T((2, 3), **a), s], name=f"python-{type(s).__name__}"))
        return out
    return samples


def _fn(name):
    return lambda lib, *a, **k: getattr(lib, name)(*a, **k)


def _nn(name):
    """An op that PyTorch has in torch.nn.functional only; Ember has it as ember.<name>."""
    return lambda lib, *a, **k: (getattr(F, name) if lib.__name__ == "torch" else getattr(lib, name))(*a, **k)


def _inplace(name):
    """The in-place method on a copy (so the input stays usable for the comparison)."""
    return lambda lib, a, *r, **k: getattr(a.clone(), name + "_")(*r, **k)


def _out(name):
    """The out= form, into a tensor of the functional result's dtype."""
    def fn(lib, *a, **k):
        r = getattr(lib, name)(*a, **k)
        o = lib.empty((0,), dtype=r.dtype)
        res = getattr(lib, name)(*a, **k, out=o)
        assert res is o
        return o
    return fn


def _specials(lib, a):
    """a with NaN, +inf, -inf and -0.0 in its first elements (floating dtypes)."""
    if not (a.is_floating_point() or a.is_complex()) or a.numel() < 4:
        return a
    flat = a.flatten().clone()
    flat[0] = float("nan")
    flat[1] = float("inf")
    flat[2] = -float("inf")
    flat[3] = -0.0
    return flat.reshape(a.shape)


def _pow_base(lib, a):
    """a (floating) with the bases where pow's fast paths differ from pow or from each other in
    its first elements: NaN, +-inf, +-0.0, +-1 and negative values."""
    if not a.is_floating_point() or a.numel() < 8:
        return a
    flat = a.flatten().clone()
    for i, v in enumerate((float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1.0, -1.0, -2.5)):
        flat[i] = v
    return flat.reshape(a.shape)


def _with_signbit(lib, r):
    """r and its sign bits (so that -0.0 against 0.0 counts), for real results; not for NaN,
    whose sign PyTorch's bfloat16 vector conversion sets."""
    if r.is_complex():
        return r
    return r, lib.logical_and(lib.signbit(r), lib.logical_not(lib.isnan(r)))  # NaN's sign varies


# Exponents that PyTorch's pow.Tensor_Scalar treats specially (fill, copy, sqrt, rsqrt,
# reciprocal, x*x, x*x*x, 1/(x*x)), and a few that take the general pow.
_POW_FAST_EXPONENTS = (0, 1, 2, 3, 0.5, -0.5, -1, -2, 2.0, 3.0, -1.0, -2.0, 0.0)
_POW_GENERAL_EXPONENTS = (2.5, -1.5, 0.25, 7, 1e-3)


def _pow_scalar_samples(exponents, ints_too=True):
    def samples(dtype):
        out = []
        for e in exponents:
            if dtype in INTEGRAL and not ints_too and isinstance(e, float):
                continue  # an in-place integer result cannot take a float
            if dtype in INTEGRAL + ("bool",) and isinstance(e, int) and e < 0:
                continue  # integers to negative integer powers raise (an error row covers it)
            out += [Sample([T((13,), -3, 3), e], name=f"exp={e!r}"),
                     Sample([T((1027,), -3, 3, seed=2), e], name=f"exp={e!r}-vector-tail"),
                     Sample([T((20, 6), -3, 3, noncontig=True), e], name=f"exp={e!r}-noncontig")]
        return out
    return samples


# Conversion specials: NaN, infinities, signed zeros, the largest float16 (65504), values
# that round to it or overflow to inf (65520 is the tie that rounds up), float16
# subnormals (6e-8 is about its smallest, 2.9e-8 rounds to 0, 3e-8 up to the smallest),
# ties to even (2049 -> 2048, 2051 -> 2052), float32 extremes and subnormals.
_CONV_VALUES = (float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 65504.0, 65519.0, 65520.0, 1e6, -1e6,
                6e-8, 3e-8, 2.9e-8, 1e-5, -1e-5, 2049.0, 2051.0, 3.4e38, 1e-40, 0.1, -1 / 3, 1.0009765625,
                1.00048828125, 1.000732421875)


def _conv_specials(lib, a):
    if a.numel() < len(_CONV_VALUES):
        return a
    flat = a.flatten().clone()
    # copied in from float64 (PyTorch refuses to store an overflowing number into a half)
    flat[:len(_CONV_VALUES)].copy_(lib.tensor(_CONV_VALUES, dtype=lib.float64))
    return flat.reshape(a.shape)


def _conversions(lib, a):
    if a.is_complex():
        a = a.real
    if a.is_floating_point():
        a = _conv_specials(lib, a)
    out = []
    for d in (lib.float16, lib.bfloat16, lib.float32, lib.float64):
        r = a.to(d)
        out += [r, _with_signbit(lib, r.to(lib.float64))[1]]  # PyTorch 1.13 has no float16 signbit
    # copy_ into an existing tensor, and into a strided one
    o = lib.empty(a.shape, dtype=lib.float16 if a.dtype != lib.float16 else lib.float32)
    o.copy_(a)
    big = lib.zeros(a.shape + (2,), dtype=o.dtype)
    big[..., 0].copy_(a)
    return out + [o, big]


def _pow_out(lib, a, e):
    o = lib.empty(0, dtype=lib.pow(a, e).dtype)
    lib.pow(a, e, out=o)
    return o

_EXACT = {"float16": (0, 0), "bfloat16": (0, 0), "float32": (0, 0), "float64": (0, 0)}
# PyTorch's bfloat16 x ** -0.5 rounds once in its vector loop but rounds the square root
# before dividing in its scalar one (short tensors and tails): one bfloat16 ulp apart.
_EXACT_BUT_BF16_RSQRT = dict(_EXACT, bfloat16=(8e-3, 0))


def _dtype_error(dtype, match="not implemented|not supported|only supported"):
    return lambda: [ErrorSample([T((2, 3), dtype=dtype)], {}, RuntimeError, match)]


ROWS = []

# ---------------------------------------------------------------- unary float math
# name, (low, high) of the inputs, declared dtypes
_FLOAT_UNARY = [
    ("rsqrt", (0.1, 10), NO_HALF), ("reciprocal", (0.5, 5), ALL_DTYPES),
    ("tan", (-1.4, 1.4), NO_HALF), ("asin", (-0.99, 0.99), NO_HALF), ("acos", (-0.99, 0.99), NO_HALF),
    ("atan", (-5, 5), NO_HALF), ("sinh", (-5, 5), NO_HALF), ("cosh", (-5, 5), NO_HALF),
    ("asinh", (-5, 5), NO_HALF), ("acosh", (1.01, 10), NO_HALF), ("atanh", (-0.99, 0.99), NO_HALF),
    ("arcsin", (-0.99, 0.99), NO_HALF), ("arccos", (-0.99, 0.99), NO_HALF), ("arctan", (-5, 5), NO_HALF),
    ("arcsinh", (-5, 5), NO_HALF), ("arccosh", (1.01, 10), NO_HALF), ("arctanh", (-0.99, 0.99), NO_HALF),
    ("log2", (0.1, 10), NO_HALF), ("log10", (0.1, 10), NO_HALF), ("sinc", (-5, 5), NO_HALF),
    ("exp2", (-5, 5), REAL), ("expm1", (-3, 3), REAL_NO_HALF), ("log1p", (-0.9, 5), REAL_NO_HALF),
    ("erf", (-4, 4), REAL_NO_HALF), ("erfc", (-4, 4), REAL_NO_HALF), ("erfinv", (-0.99, 0.99), REAL_NO_HALF),
    ("lgamma", (0.1, 8), REAL_NO_HALF), ("digamma", (0.1, 8), REAL_NO_HALF), ("i0", (-5, 5), REAL_NO_HALF),
]
# Complex inputs of the inverse trigonometric functions: float32 results from std:: and
# PyTorch differ by a few ulp.
_CPLX_TOL = {"complex64": (1e-5, 1e-5)}
for _name, (_lo, _hi), _dtypes in _FLOAT_UNARY:
    _low = _lo if _lo >= 0 or _name not in ("acosh", "arccosh") else 1.01
    ROWS.append(OpInfo(_name, _fn(_name), _dtypes, _unary(_lo, _hi),
                       _dtype_error("complex64") if "complex64" not in _dtypes else lambda: [],
                       tol={**_CPLX_TOL, "bfloat16": (2e-2, 2e-2), "float32": (2e-6, 1e-5)}))
# In place and out= forms of a few, covering the shared code paths of every float op.
for _name, (_lo, _hi), _cplx in (("log2", (0.1, 10), COMPLEX), ("erf", (-3, 3), ()), ("digamma", (0.5, 5), ())):
    ROWS.append(OpInfo(f"{_name}_inplace", _inplace(_name), FLOAT_NO_HALF + _cplx, _unary(_lo, _hi),
                       lambda: [ErrorSample([T((3,), 0, 3, dtype="int64")], {}, RuntimeError,
                                            "can't be cast")]))
    ROWS.append(OpInfo(f"{_name}_out", _out(_name), REAL_NO_HALF + _cplx, _unary(_lo, _hi)))



def _special_i1_out(lib, a):
    o = lib.empty((0,), dtype=lib.special.i1(a).dtype)
    assert lib.special.i1(a, out=o) is o
    return o


# torch.special.i1: float and double kernels (ints and bool compute as float); the power
# series up to |x| = 30, the asymptotic series beyond.
I1_DTYPES = ("bool",) + INTEGRAL + ("float32", "float64")
ROWS += [
    OpInfo("special_i1", lambda lib, a: lib.special.i1(a), I1_DTYPES,
           lambda d: _unary(-5, 5)(d) + ([Sample([T((40,), -80, 80)]), Sample([T((5,), 0, 0)])]
                                         if d == "float64" else []),
           lambda: [ErrorSample([T((2, 3), dtype=dt)], {}, RuntimeError, "not implemented")
                    for dt in ("float16", "bfloat16", "complex64")],
           tol={"float32": (2e-6, 1e-5), "float64": (1e-12, 1e-12)}),
    OpInfo("special_i1_out", _special_i1_out, I1_DTYPES, _unary(-5, 5)),
]

ROWS += [
    OpInfo("polygamma", lambda lib, a, n=1: lib.polygamma(n, a), REAL_NO_HALF,
           lambda d: [Sample([T((7,), 0.5, 5)], {"n": n}) for n in (0, 1, 2, 3)]
           + [Sample([T((40000,), 0.5, 5)], {"n": 1}), Sample([T((3, 4), 0.5, 5, transpose=True)], {"n": 2})],
           lambda: [ErrorSample([T((3,), 0.5, 5)], {"n": -1}, RuntimeError, "negative n")],
           tol={"float32": (1e-5, 1e-5), "bfloat16": (3e-2, 3e-2)}),
    OpInfo("logit", lambda lib, a, **k: lib.logit(a, **k), REAL_NO_HALF,
           lambda d: _unary(0.01, 0.99)(d) + [Sample([T((9,), -0.5, 1.5)], {"eps": 0.1}),
                                              Sample([T((9,), 0.001, 0.999)], {"eps": None})],
           _dtype_error("complex64")),
    OpInfo("sign", _fn("sign"), REAL, lambda d: _unary()(d) + [Sample([T((6,))], name="specials")],
           lambda: [ErrorSample([T((2,), dtype="complex64")], {}, RuntimeError, "torch.sgn")]),
    OpInfo("sign_specials", lambda lib, a: lib.sign(_specials(lib, a)), REAL, lambda d: [Sample([T((6,))])]),
    OpInfo("sgn", _fn("sgn"), ALL_DTYPES, _unary()),
    OpInfo("square", _fn("square"), ALL_DTYPES, _unary()),
    OpInfo("square_inplace", _inplace("square"), NUMBERS, _unary(),
           lambda: [ErrorSample([T((3,), dtype="bool")], {}, RuntimeError, "can't be cast")]),
    OpInfo("angle", _fn("angle"), ALL_DTYPES, lambda d: [Sample([T((7,))]), Sample([T((3, 4), transpose=True)])]),
    OpInfo("angle_out", _out("angle"), ALL_DTYPES, lambda d: [Sample([T((7,))])]),
    OpInfo("conj_physical", _fn("conj_physical"), ALL_DTYPES, _unary()),
    OpInfo("conj", lambda lib, a: lib.conj(a).clone(), ALL_DTYPES, _unary()),
    OpInfo("positive", _fn("positive"), NUMBERS, _unary(),
           lambda: [ErrorSample([T((2,), dtype="bool")], {}, RuntimeError, "bool")]),
    OpInfo("neg_inplace", _inplace("neg"), NUMBERS, _unary()),
    OpInfo("abs_out", _out("abs"), NUMBERS, _unary()),
]
# out= of a dtype-keeping op must have exactly the result's dtype.
for _name, _dtypes in (("abs", NUMBERS), ("floor", INT_AND_FLOAT_NO_HALF), ("sign", REAL)):
    ROWS.append(OpInfo(f"{_name}_out_dtype", (lambda n: lambda lib, a, o: getattr(lib, n)(a, out=o))(_name),
                       _dtypes, lambda d: [Sample([T((2, 3)), T((2, 3), seed=1)])],
                       lambda: [ErrorSample([T((2,)), T((2,), dtype="float64")], {}, RuntimeError, "Found dtype")]))

# ---------------------------------------------------------------- rounding
for _name in ("ceil", "floor", "trunc", "fix"):
    ROWS.append(OpInfo(_name, _fn(_name), INT_AND_FLOAT_NO_HALF, _unary(-50, 50), _dtype_error("bool")))
ROWS += [
    OpInfo("round", lambda lib, a, **k: lib.round(a, **k), INT_AND_FLOAT_NO_HALF,
           lambda d: _unary(-50, 50)(d) + ([Sample([T((9,), -50, 50)], {"decimals": 1}),
                                             Sample([T((9,), -500, 500)], {"decimals": -2}),
                                             Sample([T((3, 4), -5, 5, transpose=True)], {"decimals": 2})]
                                            if d in FLOATING else []),
           lambda: [ErrorSample([T((3,), dtype="int64")], {"decimals": 1}, RuntimeError, "not implemented")]),
    OpInfo("round_half_even", lambda lib, a: lib.round(lib.floor(a * 4) / 2), REAL_NO_HALF,
           lambda d: [Sample([T((40,), -20, 20)])]),
    OpInfo("frac", _fn("frac"), FLOATING, _unary(-50, 50), _dtype_error("int64")),
    OpInfo("round_inplace", _inplace("round"), INT_AND_FLOAT_NO_HALF, _unary(-50, 50)),
]

# ---------------------------------------------------------------- predicates and nan_to_num
for _name, _dtypes, _err in (("isnan", ALL_DTYPES, None), ("isinf", ALL_DTYPES, None),
                             ("isfinite", ALL_DTYPES, None), ("isposinf", REAL, "complex"),
                             ("isneginf", REAL, "complex"), ("signbit", REAL, "complex"),
                             ("isreal", ALL_DTYPES, None), ("logical_not", ALL_DTYPES, None)):
    ROWS.append(OpInfo(_name, (lambda n: lambda lib, a: getattr(lib, n)(_specials(lib, a)))(_name), _dtypes,
                       _unary(), _dtype_error("complex64", _err) if _err else lambda: []))
ROWS += [
    OpInfo("logical_not_out", lambda lib, a: lib.logical_not(a, out=lib.empty(a.shape, dtype=lib.float32)),
           ALL_DTYPES, _unary()),
    OpInfo("bitwise_not", _fn("bitwise_not"), ("bool",) + INTEGRAL, _unary(-100, 100), _dtype_error("float32")),
    OpInfo("nan_to_num", lambda lib, a, **k: lib.nan_to_num(_specials(lib, a), **k), REAL,
           lambda d: [Sample([T((7,))]), Sample([T((7,))], {"nan": 1.5, "posinf": 9.0}),
                      Sample([T((7,))], {"neginf": -3.0}), Sample([T((3, 4), transpose=True)]),
                      Sample([T((40000,))])],
           _dtype_error("complex64")),
    OpInfo("nan_to_num_inplace", lambda lib, a: _specials(lib, a).clone().nan_to_num_(), REAL,
           lambda d: [Sample([T((7,))])]),
]

# ---------------------------------------------------------------- activations
ROWS += [
    OpInfo("gelu", lambda lib, a, **k: _nn("gelu")(lib, a, **k), FLOAT_NO_HALF,
           lambda d: _unary(-8, 8)(d) + [Sample([T((40000,), -8, 8)], {"approximate": "tanh"}),
                                         Sample([T((7,), -8, 8)], {"approximate": "none"})],
           lambda: [ErrorSample([T((3,))], {"approximate": "sigmoid"}, RuntimeError, "approximate"),
                    ErrorSample([T((3,), dtype="int64")], {}, RuntimeError, "not implemented")],
           tol={"bfloat16": (2e-2, 2e-2)}),
    OpInfo("silu", lambda lib, a: _nn("silu")(lib, a), FLOAT_NO_HALF + COMPLEX, _unary(-8, 8),
           tol={"complex64": (1e-4, 1e-4)}),
    OpInfo("mish", lambda lib, a: _nn("mish")(lib, a), FLOAT_NO_HALF, _unary(-8, 25),
           tol={"float32": (2e-6, 1e-5)}),
    OpInfo("softplus", lambda lib, a, **k: _nn("softplus")(lib, a, **k), FLOAT_NO_HALF,
           lambda d: _unary(-8, 25)(d) + [Sample([T((9,), -8, 8)], {"beta": 2, "threshold": 5})]),
    OpInfo("softsign", lambda lib, a: _nn("softsign")(lib, a), NUMBERS, _unary()),
    OpInfo("hardsigmoid", lambda lib, a: _nn("hardsigmoid")(lib, a), FLOAT_NO_HALF, _unary()),
    OpInfo("hardswish", lambda lib, a: _nn("hardswish")(lib, a), FLOAT_NO_HALF, _unary()),
    OpInfo("hardtanh", lambda lib, a, **k: _nn("hardtanh")(lib, a, **k), ("int8", "int16", "int32", "int64") + FLOAT_NO_HALF,
           lambda d: _unary()(d) + [Sample([T((9,))], {"min_val": -2, "max_val": 3})],
           lambda: [ErrorSample([T((3,), dtype="uint8")], {}, RuntimeError, "unsigned")]),
    OpInfo("relu6", lambda lib, a: _nn("relu6")(lib, a), INT_AND_FLOAT_NO_HALF, _unary(-10, 10)),
    OpInfo("elu", lambda lib, a, **k: _nn("elu")(lib, a, **k), FLOAT_NO_HALF,
           lambda d: _unary()(d) + [Sample([T((9,))], {"alpha": 0.5})]),
    OpInfo("selu", lambda lib, a: _nn("selu")(lib, a), FLOAT_NO_HALF, _unary()),
    OpInfo("celu", lambda lib, a, **k: _nn("celu")(lib, a, **k), FLOAT_NO_HALF,
           lambda d: _unary()(d) + [Sample([T((9,))], {"alpha": 2.0})]),
    OpInfo("leaky_relu", lambda lib, a, **k: _nn("leaky_relu")(lib, a, **k), FLOAT_NO_HALF,
           lambda d: _unary()(d) + [Sample([T((9,))], {"negative_slope": 0.2})]),
]

# ---------------------------------------------------------------- clamp
ROWS += [
    OpInfo("clamp", lambda lib, a, **k: lib.clamp(a, **k), ("bool",) + INT_AND_FLOAT_NO_HALF,
           lambda d: [Sample([T((7,))], {"min": -1, "max": 2}), Sample([T((7,))], {"min": 0}),
                      Sample([T((7,))], {"max": 1}), Sample([T((3, 4), transpose=True)], {"min": -1, "max": 1}),
                      Sample([T((7,))], {"min": 3, "max": 1}), Sample([T((40000,))], {"min": -2.5, "max": 2.5}),
                      Sample([T(())], {"min": 0.5})],
           lambda: [ErrorSample([T((3,))], {}, RuntimeError, "At least one"),
                    ErrorSample([T((3,), dtype="complex64")], {"min": 0}, RuntimeError, "complex"),
                    ErrorSample([T((3,), dtype="float16")], {"min": 0}, RuntimeError, "not implemented")]),
    OpInfo("clamp_tensor", lambda lib, a, lo, hi: lib.clamp(a, lo, hi), INT_AND_FLOAT_NO_HALF,
           lambda d: [Sample([T((2, 3)), T((3,), -5, 0, seed=1), T((2, 1), 0, 5, seed=2)]),
                      Sample([T((40000,)), T((40000,), -5, 0, seed=1), T((), 0, 5, seed=2)])]),
    OpInfo("clamp_tensor_one", lambda lib, a, b: (lib.clamp(a, min=b), lib.clamp(a, max=b)), REAL,
           lambda d: [Sample([T((2, 3)), T((3,), seed=1)]), Sample([T((3, 4), noncontig=True), T((), seed=1)])]),
    OpInfo("clip", lambda lib, a, **k: lib.clip(a, **k), ("bool",) + INT_AND_FLOAT_NO_HALF,
           lambda d: [Sample([T((7,))], {"min": -1, "max": 2})]),
    OpInfo("clamp_min", lambda lib, a: (lib.clamp_min(a, 0.5), a.clone().clamp_min_(1)), INT_AND_FLOAT_NO_HALF,
           lambda d: [Sample([T((7,))])]),
    OpInfo("clamp_max", lambda lib, a, b: (lib.clamp_max(a, b), lib.clamp_max(a, 1)), ("bool",) + INT_AND_FLOAT_NO_HALF,
           lambda d: [Sample([T((2, 3)), T((3,), seed=1)])]),
    OpInfo("clamp_inplace", lambda lib, a: a.clone().clamp_(-1, 1), INT_AND_FLOAT_NO_HALF, _unary()),
    OpInfo("clamp_inplace_promote", lambda lib, a: a.clone().clamp_(min=0.5), FLOAT_NO_HALF, _unary(),
           lambda: [ErrorSample([T((3,), dtype="int64")], {}, RuntimeError, "can't be cast")]),
]

# ---------------------------------------------------------------- binary
_EXC = dict(exclude_zero=True)
ROWS += [
    OpInfo("remainder", _fn("remainder"), INT_AND_FLOAT_NO_HALF + ("float16",), _binary(**_EXC),
           lambda: [ErrorSample([T((2,), dtype="int64"), T((2,), 0, 0, dtype="int64")], {}, RuntimeError,
                                "ZeroDivisionError"),
                    ErrorSample([T((2,), dtype="complex64"), T((2,), dtype="complex64")], {}, RuntimeError,
                                "not implemented")],
           tol={"float32": (1e-5, 1e-5), "bfloat16": (3e-2, 5e-2), "float16": (3e-3, 3e-3)}),
    OpInfo("remainder_scalar_self", lambda lib, b: lib.remainder(3, b), INTEGRAL + FLOATING,
           lambda d: [Sample([T((5,), exclude_zero=True)])]),
    OpInfo("fmod", _fn("fmod"), INTEGRAL + FLOATING, _binary(**_EXC),
           lambda: [ErrorSample([T((2,), dtype="int32"), T((2,), 0, 0, dtype="int32")], {}, RuntimeError,
                                "ZeroDivisionError")],
           tol={"float32": (1e-5, 1e-5), "bfloat16": (3e-2, 5e-2), "float16": (3e-3, 3e-3)}),
    OpInfo("floor_divide", _fn("floor_divide"), INTEGRAL + FLOATING, _binary(**_EXC),
           lambda: [ErrorSample([T((2,), dtype="bool"), T((2,), dtype="bool")], {}, RuntimeError, "")]),
    OpInfo("true_divide", _fn("true_divide"), ALL_DTYPES, _binary(**_EXC)),
    OpInfo("pow", _fn("pow"), NUMBERS, _binary(low=0.5, high=3, low2=-2, high2=3, scalars=(2, 0.5, 3)),
           lambda: [ErrorSample([T((2,), dtype="int64"), -1], {}, RuntimeError, "negative integer powers"),
                    ErrorSample([T((2,), dtype="bool"), T((2,), dtype="bool")], {}, RuntimeError, "")],
           tol={"float32": (1e-5, 1e-5), "bfloat16": (3e-2, 5e-2), "float16": (3e-3, 3e-3),
                "complex64": (1e-5, 1e-5)}),
    OpInfo("pow_int", _fn("pow"), NUMBERS, lambda d: [Sample([T((9,), -3, 3), T((9,), -2, 4, seed=1)])]),
    # The fast paths of a number exponent, bit for bit (signs of zero included).
    OpInfo("pow_fast_paths", lambda lib, a, e: _with_signbit(lib, lib.pow(_pow_base(lib, a), e)), ALL_DTYPES,
           _pow_scalar_samples(_POW_FAST_EXPONENTS), tol=_EXACT_BUT_BF16_RSQRT),
    OpInfo("pow_fast_paths_out", lambda lib, a, e: _with_signbit(lib, _pow_out(lib, _pow_base(lib, a), e)),
           ALL_DTYPES, _pow_scalar_samples(_POW_FAST_EXPONENTS), tol=_EXACT_BUT_BF16_RSQRT),
    OpInfo("pow_operator_inplace", lambda lib, a, e: (_pow_base(lib, a) ** e, _pow_base(lib, a).pow_(e)),
           NUMBERS, _pow_scalar_samples((2, 3, 0.5, -0.5, -1, -2, 2.5), ints_too=False),
           tol=_EXACT_BUT_BF16_RSQRT),
    OpInfo("pow_scalar_general", lambda lib, a, e: lib.pow(_pow_base(lib, a), e), ALL_DTYPES,
           _pow_scalar_samples(_POW_GENERAL_EXPONENTS),
           tol={"float32": (1e-5, 1e-5), "bfloat16": (3e-2, 5e-2), "float16": (3e-3, 3e-3),
                "complex64": (1e-5, 1e-5)}),
    OpInfo("float_power_fast_paths", lambda lib, a, e: _with_signbit(lib, lib.float_power(_pow_base(lib, a), e)),
           ALL_DTYPES, _pow_scalar_samples(_POW_FAST_EXPONENTS), tol=_EXACT),
    OpInfo("convert_16bit_floats", _conversions, ALL_DTYPES,
           lambda d: [Sample([T((1027,), -70000, 70000)], name="vector-tail"),
                      Sample([T((30, 40), -3, 3, noncontig=True)], name="noncontig"),
                      Sample([T((300,), -1e-4, 1e-4)], name="subnormals"),
                      Sample([T((5,))], name="short")],
           tol=_EXACT),
    OpInfo("pow_scalar_base", lambda lib, b: (lib.pow(2, b), lib.pow(1.5, b)), ALL_DTYPES,
           lambda d: [Sample([T((5,), 0, 4)])], tol={"float32": (1e-5, 1e-5), "bfloat16": (3e-2, 5e-2)}),
    OpInfo("float_power", _fn("float_power"), ALL_DTYPES, _binary(low=0.5, high=3, low2=-2, high2=3)),
    OpInfo("float_power_inplace", lambda lib, a, b: a.clone().float_power_(b), ("float64", "complex128"),
           lambda d: [Sample([T((5,), 0.5, 3), T((5,), -2, 2, seed=1)])],
           lambda: [ErrorSample([T((2,), 0.5, 3, dtype="float32"), T((2,), dtype="float32")], {}, RuntimeError,
                                "requires dtype")]),
    OpInfo("atan2", _fn("atan2"), REAL_NO_HALF, _binary(scalars=()),
           lambda: [ErrorSample([T((2,), dtype="complex64"), T((2,), dtype="complex64")], {}, RuntimeError,
                                "not implemented")]),
    OpInfo("arctan2", _fn("arctan2"), REAL_NO_HALF, _binary(scalars=())),
    OpInfo("hypot", _fn("hypot"), FLOAT_NO_HALF, _binary(scalars=())),
    OpInfo("fmax", _fn("fmax"), REAL, _binary(scalars=())),
    OpInfo("fmin", _fn("fmin"), REAL, _binary(scalars=()),
           lambda: [ErrorSample([T((2,), dtype="complex64"), T((2,), dtype="complex64")], {}, RuntimeError,
                                "complex")]),
    OpInfo("fmax_nan", lambda lib, a, b: (lib.fmax(_specials(lib, a), b), lib.maximum(_specials(lib, a), b),
                                         lib.fmin(_specials(lib, a), b), lib.minimum(_specials(lib, a), b)),
           REAL, lambda d: [Sample([T((6,)), T((6,), seed=1)])]),
    OpInfo("copysign", _fn("copysign"), REAL, _binary(scalars=(-1, 2.5))),
    OpInfo("nextafter", _fn("nextafter"), FLOAT_NO_HALF, _binary(scalars=()), tol={"bfloat16": (0, 0),
                                                                                    "float32": (0, 0)}),
    OpInfo("logaddexp", _fn("logaddexp"), FLOAT_NO_HALF, _binary(scalars=())),
    OpInfo("logaddexp2", _fn("logaddexp2"), FLOAT_NO_HALF, _binary(scalars=())),
    OpInfo("xlogy", _fn("xlogy"), REAL, _binary(low=0, high=3, low2=0.1, high2=5, scalars=(2, 0.5))),
    OpInfo("xlogy_scalar_self", lambda lib, b: lib.xlogy(2, b), REAL, lambda d: [Sample([T((5,), 0.1, 5)])]),
    *[OpInfo(n, _fn(n), ("bool",) + INTEGRAL, _binary(low=-100, high=100, scalars=(3,)),
             lambda: [ErrorSample([T((2,)), T((2,))], {}, RuntimeError, "not implemented")])
      for n in ("bitwise_and", "bitwise_or", "bitwise_xor")],
    *[OpInfo(n, _fn(n), INTEGRAL, _binary(low=-20, high=20, low2=0, high2=10, scalars=(2,)),
             lambda: [ErrorSample([T((2,)), T((2,))], {}, RuntimeError, "not implemented")])
      for n in ("bitwise_left_shift", "bitwise_right_shift")],
    OpInfo("bitwise_shift_wide", lambda lib, a, b: (lib.bitwise_left_shift(a, b), lib.bitwise_right_shift(a, b)),
           INTEGRAL, lambda d: [Sample([T((9,), -20, 20), T((9,), 0, 31, seed=1)])]),
    *[OpInfo(n, _fn(n), ALL_DTYPES, _binary(scalars=())) for n in ("logical_and", "logical_or", "logical_xor")],
    OpInfo("logical_and_out", lambda lib, a, b: lib.logical_and(a, b, out=lib.empty(0, dtype=lib.float64)),
           ALL_DTYPES, lambda d: [Sample([T((2, 3)), T((3,), seed=1)])]),
    OpInfo("maximum_out", lambda lib, a, b: lib.maximum(a, b, out=lib.empty(0, dtype=a.dtype)), REAL,
           lambda d: [Sample([T((2, 3)), T((3,), seed=1)])],
           lambda: [ErrorSample([T((2,), dtype="complex64"), T((2,), dtype="complex64")], {}, RuntimeError,
                                "complex")]),
]
for _name in ("remainder", "fmod", "atan2", "copysign", "bitwise_and", "xlogy"):
    _d = {"bitwise_and": ("bool",) + INTEGRAL, "atan2": FLOAT_NO_HALF, "xlogy": FLOATING}.get(_name, FLOATING)
    ROWS.append(OpInfo(f"{_name}_inplace", (lambda n: lambda lib, a, b: getattr(a.clone(), n + "_")(b))(_name),
                       _d, lambda d: [Sample([T((2, 3)), T((3,), 0.5, 4, seed=1)]),
                                      Sample([T((50000,)), T((50000,), 0.5, 4, seed=1)])]))
    ROWS.append(OpInfo(f"{_name}_out", (lambda n: lambda lib, a, b: getattr(lib, n)(a, b, out=lib.empty(0, dtype=a.dtype)))(_name),
                       _d, lambda d: [Sample([T((2, 3)), T((3,), 0.5, 4, seed=1)])]))

# ---------------------------------------------------------------- ternary
ROWS += [
    OpInfo("lerp", lambda lib, a, b, w: lib.lerp(a, b, w), FLOAT_NO_HALF + COMPLEX,
           lambda d: [Sample([T((2, 3)), T((3,), seed=1), 0.3]), Sample([T((5,)), T((5,), seed=1), 0.75]),
                      Sample([T((2, 3)), T((2, 3), seed=1), T((3,), 0, 1, seed=2)]),
                      Sample([T((40000,)), T((40000,), seed=1), T((40000,), 0, 1, seed=2)]),
                      Sample([T((0, 3)), T((3,), seed=1), 0.5])],
           lambda: [ErrorSample([T((2,)), T((2,), dtype="float64"), 0.5], {}, RuntimeError, "expected dtype"),
                    ErrorSample([T((2,)), T((2,)), T((2,), dtype="float64")], {}, RuntimeError, "expected dtype")],
           # float and double bit for bit (PyTorch's fused multiply-add); bfloat16 rounds a
           # number weight to bfloat16 first, where PyTorch keeps it in float
           tol={"bfloat16": (2e-2, 3e-2), "float32": (0, 0), "float64": (0, 0)}),
    OpInfo("lerp_inplace", lambda lib, a, b: a.clone().lerp_(b, 0.25), FLOAT_NO_HALF + COMPLEX,
           lambda d: [Sample([T((2, 3)), T((3,), seed=1)])]),
    OpInfo("addcmul", lambda lib, a, b, c, **k: lib.addcmul(a, b, c, **k),
           INTEGRAL + FLOAT_NO_HALF + COMPLEX,
           lambda d: [Sample([T((2, 3)), T((3,), seed=1), T((2, 1), seed=2)]),
                      Sample([T((5,)), T((5,), seed=1), T((5,), seed=2)], {"value": 2}),
                      Sample([T((40000,)), T((40000,), seed=1), T((40000,), seed=2)]),
                      Sample([T((3, 4), transpose=True), T((3, 4), seed=1, noncontig=True), T((), seed=2)]),
                      Sample([T((0, 3)), T((3,), seed=1), T((3,), seed=2)])],
           lambda: [ErrorSample([T((2, 3)), T((4,)), T((3,))], {}, RuntimeError, "size of tensor"),
                    ErrorSample([T((2,), dtype="bool"), T((2,), dtype="bool"), T((2,), dtype="bool")], {},
                                RuntimeError, "not implemented")],
           tol={"bfloat16": (2e-2, 5e-2)}),
    OpInfo("addcmul_float_value", lambda lib, a, b, c: (lib.addcmul(a, b, c, value=1.7), lib.addcmul(a, b, c, value=-1.5)),
           INTEGRAL + FLOAT_NO_HALF + COMPLEX, lambda d: [Sample([T((5,)), T((5,), seed=1), T((5,), seed=2)])],
           tol={"bfloat16": (2e-2, 1e-1)}),
    OpInfo("addcmul_inplace", lambda lib, a, b, c: a.clone().addcmul_(b, c, value=2), INTEGRAL + FLOAT_NO_HALF + COMPLEX,
           lambda d: [Sample([T((2, 3)), T((3,), seed=1), T((2, 3), seed=2)])], tol={"bfloat16": (2e-2, 5e-2)}),
    OpInfo("addcdiv", lambda lib, a, b, c, **k: lib.addcdiv(a, b, c, **k), FLOAT_NO_HALF + COMPLEX,
           lambda d: [Sample([T((2, 3)), T((3,), seed=1), T((2, 1), seed=2, exclude_zero=True)]),
                      Sample([T((5,)), T((5,), seed=1), T((5,), seed=2, exclude_zero=True)], {"value": -0.5}),
                      Sample([T((40000,)), T((40000,), seed=1), T((40000,), seed=2, exclude_zero=True)])],
           lambda: [ErrorSample([T((2,), dtype="int64"), T((2,), dtype="int64"), T((2,), dtype="int64")], {},
                                RuntimeError, "Integer division")],
           tol={"bfloat16": (2e-2, 5e-2), "float32": (1e-5, 1e-5)}),
    # x*y+z as written (a multiply, then an add), in every dtype it exists in.
    OpInfo("muladd", lambda lib, a, b, c: a * b + c, ALL_DTYPES,
           lambda d: [Sample([T((40000,)), T((40000,), seed=1), T((40000,), seed=2)]),
                      Sample([T((3, 4), transpose=True), T((4,), seed=1), T((), seed=2)])]),
]

# ---------------------------------------------------------------- comparisons with tolerances
ROWS += [
    OpInfo("isclose", lambda lib, a, b, **k: lib.isclose(a, b, **k), ALL_DTYPES,
           lambda d: [Sample([T((5,)), T((5,), seed=1)]), Sample([T((5,)), T((5,))]),
                      Sample([T((2, 3)), T((3,), seed=1)], {"rtol": 0.5, "atol": 0.5})],
           lambda: [ErrorSample([T((2,)), T((2,), dtype="float64")], {}, RuntimeError, "did not match"),
                    ErrorSample([T((2,)), T((2,))], {"rtol": -1.0}, RuntimeError, "rtol")]),
    OpInfo("isclose_nan", lambda lib, a, **k: lib.isclose(_specials(lib, a), _specials(lib, a), **k), ALL_DTYPES,
           lambda d: [Sample([T((6,))])] + ([Sample([T((6,))], {"equal_nan": True})] if d not in COMPLEX else [])),
    OpInfo("allclose", lambda lib, a, b, **k: lib.allclose(a, b, **k), ALL_DTYPES,
           lambda d: [Sample([T((5,)), T((5,), seed=1)]), Sample([T((5,)), T((5,))]),
                      Sample([T((5,)), T((5,), seed=1)], {"atol": 20.0})]),
    OpInfo("equal", lambda lib, a, b: (lib.equal(a, b), lib.equal(a, a.clone()), lib.equal(a, a[:0])), ALL_DTYPES,
           lambda d: [Sample([T((5,)), T((5,), seed=1)]), Sample([T((2, 3), transpose=True), T((2, 3))])]),
    OpInfo("compare_scalar", lambda lib, a: (lib.eq(a, 1), lib.ne(a, 1), lib.lt(a, 1.5), lib.ge(a, 2)), REAL,
           lambda d: [Sample([T((9,))])]),
    OpInfo("compare_inplace", lambda lib, a, b: (a.clone().lt_(b), a.clone().eq_(b)), REAL,
           lambda d: [Sample([T((2, 3)), T((3,), seed=1)])]),
    OpInfo("add_scalar_ops", lambda lib, a: (lib.add(a, 2, alpha=3), lib.sub(a, 1), lib.mul(a, 0.5),
                                             lib.div(a, 4, rounding_mode="floor")), REAL[1:],
           lambda d: [Sample([T((9,))])]),
]
