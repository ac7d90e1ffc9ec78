"""Op-table rows of the random ops (src/ops/random*.cpp).

Random values cannot match PyTorch's, so each row returns what both libraries must agree on:
the result's dtype and shape (as `zeros_like(result)`) and a support check that must hold
for every element (bounds, integrality, values in {0, 1}, indices of positive weights). The
table then checks, per dtype, that both libraries accept or both refuse it, and the error
rows check exception classes and messages against PyTorch. Distributions themselves
(moments, quantiles, reproducibility across thread counts) are tested in
test_random_distributions.py.
"""
from op_testing import COMPLEX, FLOATING, REAL, ErrorSample, OpInfo, Sample, T

# Dtypes of PyTorch 1.13's CPU kernels.
FLOAT_COMPLEX = FLOATING + COMPLEX                      # uniform_, normal_, rand, randn
BERNOULLI_SELF = tuple(d for d in REAL if d != "float16")  # bernoulli_ (no half on CPU)
PROBS = ("bfloat16", "float32", "float64")              # bernoulli(p), poisson, multinomial
GEOMETRIC = tuple(d for d in REAL if d != "bool")


def _and(lib, *conds):
    # ember.Tensor has no & | ~ operators yet: the functional forms work in both libraries.
    out = conds[0]
    for c in conds[1:]:
        out = lib.logical_and(out, c)
    return out


def _real(lib, r):
    return lib.view_as_real(r) if r.is_complex() else r


def _checked(lib, r, ok):
    """dtype and shape of r (as zeros) and the elementwise support check."""
    return lib.zeros_like(r), ok


def _integral_values(r):
    d = r.double()
    return d == d.floor()


def _zero_or_one(lib, r):
    return lib.logical_or(r == 0, r == 1)


def _fill_samples(low=-5.0, high=5.0):
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


def _inplace(name, check, *args, **kwargs):
    """Row fn for x.clone().<name>(*args, **kwargs) with the support check `check(lib, r)`;
    error samples pass arguments of their own instead."""
    def fn(lib, x, *a, **k):
        call_args, call_kwargs = (a, k) if (a or k) else (args, kwargs)
        r = getattr(x.clone(), name)(*call_args, **call_kwargs)
        return _checked(lib, r, check(lib, r))
    return fn


def _in_range(lo, hi):
    return lambda lib, r: _and(lib, _real(lib, r) >= lo, _real(lib, r) < hi)


def _err(args, exc, match, dtype="float32", **kwargs):
    return ErrorSample(args, kwargs, exc, match, dtype)


def _multinomial(lib, w, n, **k):
    """Draws from weights whose even-numbered categories are zeroed: indices must be in range
    and never pick a zero weight (n is at most the number of positive weights without
    replacement)."""
    keep = lib.remainder(lib.arange(w.shape[-1]), 2).to(w.dtype)
    w = w * keep
    r = lib.multinomial(w, n, **k)
    return _checked(lib, r, _and(lib, r >= 0, r < w.shape[-1], w.gather(-1, r) > 0))


ROWS = [
    # ---------------------------------------------------------------- in place
    OpInfo("uniform_", _inplace("uniform_", _in_range(-2, 3), -2, 3), FLOAT_COMPLEX, _fill_samples(),
           lambda: [_err([T((3,))], RuntimeError, "uniform_ expects to return a \\[from, to\\) range",
                         **{"from": 3.0, "to": 1.0}),
                    _err([T((3,))], RuntimeError, "to is out of bounds", dtype="float16", to=1e6),
                    _err([T((3,))], RuntimeError, "check_uniform_bounds", dtype="int64"),
                    _err([T((3,))], TypeError, "generator", generator=3)]),
    OpInfo("uniform_default", _inplace("uniform_", _in_range(0, 1)), FLOAT_COMPLEX, _fill_samples()),
    OpInfo("normal_", _inplace("normal_", lambda lib, r: lib.isfinite(r), 3.0, 0.5), FLOAT_COMPLEX, _fill_samples(),
           lambda: [_err([T((3,)), 0.0, -1.0], RuntimeError, "normal expects std >= 0.0, but found std -1"),
                    _err([T((3,))], RuntimeError, "normal_kernel_cpu", dtype="int32")]),
    OpInfo("exponential_", _inplace("exponential_", lambda lib, r: r >= 0, 2.0), FLOATING, _fill_samples(),
           lambda: [_err([T((3,)), -1.0], RuntimeError, "exponential_ expects lambda >= 0.0"),
                    _err([T((3,))], RuntimeError, "exponential_cpu", dtype="int64"),
                    _err([T((3,))], RuntimeError, "exponential_cpu", dtype="complex64")]),
    OpInfo("geometric_", _inplace("geometric_", lambda lib, r: _and(lib, r >= 1, _integral_values(r)), 0.4), GEOMETRIC,
           _fill_samples(),
           lambda: [_err([T((3,)), 0.0], RuntimeError, "geometric_ expects p to be in \\(0, 1\\), but got p=0"),
                    _err([T((3,)), 1.0], RuntimeError, "geometric_ expects p to be in \\(0, 1\\)", dtype="int32"),
                    _err([T((3,)), 0.5], RuntimeError, "geometric_cpu", dtype="bool")]),
    OpInfo("log_normal_", _inplace("log_normal_", lambda lib, r: r > 0, 0.5, 0.5), FLOATING, _fill_samples(),
           lambda: [_err([T((3,)), 0.0, 0.0], RuntimeError, "log_normal_ expects std > 0.0"),
                    _err([T((3,))], RuntimeError, "log_normal_cpu", dtype="int32")]),
    OpInfo("cauchy_", _inplace("cauchy_", lambda lib, r: lib.logical_not(lib.isnan(r)), 1.0, 0.5), FLOATING, _fill_samples(),
           lambda: [_err([T((3,))], RuntimeError, "cauchy_cpu", dtype="int64")]),
    OpInfo("random_", _inplace("random_", lambda lib, r: _and(lib, r >= 0, _integral_values(r))), REAL, _fill_samples(),
           lambda: [_err([T((3,))], RuntimeError, "random_kernel_cpu", dtype="complex64"),
                    _err([T((3,)), 2.5], TypeError, "")]),
    OpInfo("random_to", _inplace("random_", _in_range(0, 2), 2), REAL, _fill_samples(),
           lambda: [_err([T((3,)), 257], RuntimeError, "to - 1 is out of bounds", dtype="uint8"),
                    _err([T((3,)), 3], RuntimeError, "check_random_bounds", dtype="complex64")]),
    OpInfo("random_from_to", _inplace("random_", lambda lib, r: _and(lib, r >= 3, r < 7, _integral_values(r)), 3, 7),
           GEOMETRIC, _fill_samples(),
           lambda: [_err([T((3,)), 5, 5], RuntimeError, "random_ expects 'from' to be less than 'to'"),
                    _err([T((3,)), 0, 70000], RuntimeError, "to - 1 is out of bounds", dtype="float16")]),
    OpInfo("random_from_none", _inplace("random_", lambda lib, r: _and(lib, r >= 1, _integral_values(r)), 1, None),
           REAL, _fill_samples(),
           lambda: [_err([T((3,)), -3, None], RuntimeError, "from is out of bounds", dtype="uint8"),
                    _err([T((3,)), 3000, None], RuntimeError, "to_inc", dtype="float16"),
                    _err([T((3,)), 0, None], RuntimeError, "random_from_to_impl", dtype="complex128")]),
    OpInfo("bernoulli_", _inplace("bernoulli_", _zero_or_one, 0.3), BERNOULLI_SELF,
           _fill_samples(),
           lambda: [_err([T((3,)), 2.0], RuntimeError, "bernoulli_ expects p to be in \\[0, 1\\], but got p=2"),
                    _err([T((3,)), 0.5], RuntimeError, "bernoulli_scalar_cpu_", dtype="float16")]),
    OpInfo("bernoulli_tensor_p",
           lambda lib, x, p: (lambda r: _checked(lib, r, _zero_or_one(lib, r)))(x.clone().bernoulli_(p)),
           BERNOULLI_SELF,
           lambda d: [Sample([T((3, 4)), T((4,), 0, 1, dtype="float32")], name="broadcast-p"),
                      Sample([T((0, 2)), T((), 0, 1, dtype="float64")], name="zero-size"),
                      Sample([T((20000, 2), transpose=True), T((20000, 2), 0, 1, dtype="float32", seed=1, noncontig=True)],
                             name="transposed")],
           lambda: [_err([T((3,)), T((3,), dtype="float16")], RuntimeError, "bernoulli_tensor_cpu_p_"),
                    _err([T((3,)), T((2,), 0, 1)], RuntimeError, ""),
                    _err([T((3,)), T((3,), 0.5, 2)], RuntimeError, "Expected p_in >= 0 && p_in <= 1")]),
    # ---------------------------------------------------------------- sampling
    OpInfo("bernoulli",
           lambda lib, p, **k: (lambda r: _checked(lib, r, _zero_or_one(lib, r)))(lib.bernoulli(p, **k)), PROBS,
           lambda d: [Sample([T((), 0, 1)]), Sample([T((5, 7), 0, 1)]), Sample([T((0, 3), 0, 1)]),
                      Sample([T((4, 6), 0, 1, noncontig=True)]), Sample([T((40000,), 0, 1)])],
           lambda: [_err([T((3,), 0, 2)], RuntimeError, "Expected p_in >= 0 && p_in <= 1"),
                    _err([T((3,), 0, 1)], RuntimeError, "bernoulli_tensor_cpu_self_", dtype="float16"),
                    _err([T((3,), 0, 1)], RuntimeError, "bernoulli_tensor_cpu_p_", dtype="int64"),
                    _err([T((3,), 0, 1), T((3,), 0, 1)], TypeError, "")]),
    OpInfo("bernoulli_p",
           lambda lib, x, p=0.25: (lambda r: _checked(lib, r, _zero_or_one(lib, r)))(lib.bernoulli(x, p)),
           BERNOULLI_SELF, _fill_samples(),
           lambda: [_err([T((3,))], RuntimeError, "bernoulli_ expects p to be in \\[0, 1\\]", p=1.5)]),
    OpInfo("bernoulli_out",
           lambda lib, p: (lambda o: _checked(lib, o, _zero_or_one(lib, o)))(lib.bernoulli(p, out=lib.empty(0))),
           PROBS, lambda d: [Sample([T((4, 5), 0, 1)]), Sample([T((3, 4), 0, 1, transpose=True)])]),
    OpInfo("normal_tensor_float",
           lambda lib, m, **k: (lambda r: _checked(lib, r, lib.isfinite(r)))(lib.normal(m, **k)), FLOAT_COMPLEX,
           lambda d: [Sample([T(())]), Sample([T((5, 7))], {"std": 2.0}), Sample([T((0, 3))]),
                      Sample([T((4, 6), noncontig=True)]), Sample([T((40000,))], {"std": 0.5})],
           lambda: [_err([T((3,))], RuntimeError, "normal expects std >= 0.0", std=-1.0),
                    _err([T((3,))], RuntimeError, "normal_kernel_cpu", dtype="int64")]),
    OpInfo("normal_float_tensor",
           lambda lib, s: (lambda r: _checked(lib, r, lib.isfinite(r)))(lib.normal(2.0, s)), FLOATING,
           lambda d: [Sample([T((), 0, 3)]), Sample([T((5, 7), 0, 3)]), Sample([T((0, 3), 0, 3)]),
                      Sample([T((3, 4), 0, 3, transpose=True)])],
           lambda: [_err([T((3,), -2, -1)], RuntimeError, "normal expects all elements of std >= 0.0"),
                    _err([T((3,), 0, 1)], RuntimeError, "non-complex", dtype="complex64"),
                    _err([T((3,), 0, 3)], RuntimeError, "normal_kernel_cpu", dtype="int32")]),
    OpInfo("normal_tensor_tensor",
           lambda lib, m, s: (lambda r: _checked(lib, r, lib.isfinite(r)))(lib.normal(m, s)), FLOATING,
           lambda d: [Sample([T((3, 1)), T((4,), 0, 2, seed=1)], name="broadcast"),
                      Sample([T(()), T((), 0, 2, seed=1)], name="scalar"),
                      Sample([T((5,)), T((5,), 0, 2, dtype="float64", seed=1)], name="std-float64"),
                      Sample([T((0, 3)), T((3,), 0, 2, seed=1)], name="zero-size"),
                      Sample([T((3, 4), noncontig=True), T((3, 4), 0, 2, seed=1, transpose=True)], name="noncontig")],
           lambda: [_err([T((3,)), T((4,), 0, 1)], RuntimeError, "size of tensor a|cannot be broadcast"),
                    _err([T((3,)), T((3,), -1, -0.5)], RuntimeError, "normal expects all elements of std >= 0.0"),
                    _err([T((3,), dtype="int64"), T((3,), 0, 1)], RuntimeError, "normal_kernel_cpu")]),
    OpInfo("normal_out",
           lambda lib, m, s: (lambda o: _checked(lib, o, lib.isfinite(o)))(lib.normal(m, s, out=lib.empty(0))),
           REAL, lambda d: [Sample([T((3, 1)), T((4,), 0, 2, seed=1)])],
           lambda: [_err([T((3,), dtype="complex64"), T((3,), 0, 1)], RuntimeError, "can't be cast")]),
    OpInfo("normal_size",
           lambda lib, x, mean=1.0, std=2.0: (lambda r: _checked(lib, r, lib.isfinite(r)))(
               lib.normal(mean, std, (4, 3), dtype=x.dtype)),
           FLOAT_COMPLEX, lambda d: [Sample([T((1,))])],
           lambda: [_err([T((1,))], RuntimeError, "normal_kernel_cpu", dtype="int64"),
                    _err([T((1,))], RuntimeError, "normal expects std >= 0.0", std=-1.0)]),
    OpInfo("poisson",
           lambda lib, rate: (lambda r: _checked(lib, r, _and(lib, r >= 0, _integral_values(r))))(lib.poisson(rate)),
           PROBS,
           lambda d: [Sample([T((), 0, 20)]), Sample([T((5, 7), 0, 20)]), Sample([T((0, 3), 0, 20)]),
                      Sample([T((4, 6), 0, 50, noncontig=True)]), Sample([T((20000,), 0, 40)])],
           lambda: [_err([T((3,), -2, -1)], RuntimeError, "invalid Poisson rate"),
                    _err([T((3,), 0, 2)], RuntimeError, "poisson_cpu", dtype="float16"),
                    _err([T((3,), 0, 2)], RuntimeError, "poisson_cpu", dtype="int64")]),
    OpInfo("multinomial", _multinomial, PROBS,
           lambda d: [Sample([T((6,), 0.1, 1), 3], name="1d"),
                      Sample([T((6,), 0.1, 1), 20], {"replacement": True}, name="1d-replacement"),
                      Sample([T((50, 9), 0.1, 1), 4], name="2d"),
                      Sample([T((50, 9), 0.1, 1, transpose=True), 30], {"replacement": True}, name="transposed"),
                      Sample([T((0, 3), 0.1, 1), 1], name="zero-rows")],
           lambda: [_err([T((2, 2, 2), 0, 1), 1], RuntimeError, "prob_dist must be 1 or 2 dim"),
                    _err([T((3,), 0, 1), 0], RuntimeError, "cannot sample n_sample <= 0 samples"),
                    _err([T((3,), 0, 1), 4], RuntimeError, "without replacement"),
                    _err([T((3,), -1, -0.5), 1], RuntimeError, "probability tensor contains"),
                    _err([T((3,), -1, -0.5), 1], RuntimeError, "encountering probability entry < 0",
                         replacement=True),
                    _err([T((2, 0), 0, 1), 1], RuntimeError, "sum of probabilities <= 0", replacement=True),
                    _err([T((3,), 0, 1), 1], RuntimeError, "only supports floating-point dtypes", dtype="int64"),
                    _err([T((3,), 0, 1), 1], RuntimeError, "half", dtype="float16"),
                    _err([T((3,), 0, 1), 1.5], TypeError, "")]),
    OpInfo("multinomial_out",
           lambda lib, w, n, out_dtype="int64": (lambda o: _checked(lib, o, _and(lib, o >= 0, o < w.shape[-1])))(
               lib.multinomial(w, n, out=lib.empty(0, dtype=getattr(lib, out_dtype)))),
           PROBS, lambda d: [Sample([T((5, 8), 0, 1), 3])],
           lambda: [_err([T((3,), 0, 1), 1], RuntimeError, "multinomial expects Long tensor out", out_dtype="int32")]),
    # ---------------------------------------------------------------- factories
    OpInfo("rand",
           lambda lib, x: (lambda r: _checked(lib, r, _in_range(0, 1)(lib, r)))(lib.rand(3, 4, dtype=x.dtype)),
           FLOAT_COMPLEX, lambda d: [Sample([T((1,))])]),
    OpInfo("randn",
           lambda lib, x: (lambda r: _checked(lib, r, lib.isfinite(r)))(lib.randn((2, 5), dtype=x.dtype)),
           FLOAT_COMPLEX, lambda d: [Sample([T((1,))])]),
    OpInfo("randint",
           lambda lib, x, low=1, high=2: (lambda r: _checked(lib, r, _in_range(low, high)(lib, r)))(
               lib.randint(low, high, (9,), dtype=x.dtype)),
           REAL, lambda d: [Sample([T((1,))])],
           lambda: [_err([T((1,))], RuntimeError, "random_ expects 'from' to be less than 'to'", low=5, high=5),
                    _err([T((1,))], RuntimeError, "to - 1 is out of bounds", dtype="uint8", low=0, high=300)]),
    OpInfo("randperm",
           lambda lib, x: (lambda r: _checked(lib, r, r.sort().values == lib.arange(50).to(r.dtype)))(
               lib.randperm(50, dtype=x.dtype)),
           GEOMETRIC, lambda d: [Sample([T((1,))])]),
    OpInfo("rand_like",
           lambda lib, x: (lambda r: _checked(lib, r, _in_range(0, 1)(lib, r)))(lib.rand_like(x)),
           FLOAT_COMPLEX, lambda d: [Sample([T((2, 3))]), Sample([T((3, 4), transpose=True)])]),
    OpInfo("randn_like", lambda lib, x: (lambda r: _checked(lib, r, lib.isfinite(r)))(lib.randn_like(x)),
           FLOAT_COMPLEX, lambda d: [Sample([T((2, 3))])]),
    OpInfo("randint_like",
           lambda lib, x: (lambda r: _checked(lib, r, _in_range(2, 5)(lib, r)))(lib.randint_like(x, 2, 5)),
           GEOMETRIC, lambda d: [Sample([T((2, 3))]), Sample([T((0,))])]),
]

# Value distributions are compared with PyTorch's statistically, not element by element.
COVERED_ELSEWHERE = {"uniform", "normal", "random", "bernoulli", "exponential", "geometric", "log_normal", "cauchy",
                     "poisson", "multinomial", "rand", "randn", "randint", "randperm", "rand_like", "randn_like",
                     "randint_like"}
