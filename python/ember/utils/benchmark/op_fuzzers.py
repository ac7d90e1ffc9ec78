"""Ready-made Fuzzers for unary, binary and spectral (FFT-like) ops, as in torch's op_fuzzers.

Each case is a 1- to 3-d tensor (x, and y for binary ops) of 4 Ki to 32 Mi elements, with sizes
that are arbitrary or powers of two (or, for spectral ops, products of 2, 3 and 5), and
sometimes strided or non-contiguous; at most 1 GiB is allocated per tensor.
"""

import math

from .fuzzer import FuzzedParameter, FuzzedTensor, Fuzzer, ParameterAlias

__all__ = ["UnaryOpFuzzer", "BinaryOpFuzzer", "SpectralOpFuzzer"]

_MIN_DIM_SIZE = 16
_MAX_DIM_SIZE = 16 * 1024 ** 2
_POW_TWO_SIZES = tuple(2 ** i for i in range(int(math.log2(_MIN_DIM_SIZE)), int(math.log2(_MAX_DIM_SIZE)) + 1))
_MIN_ELEMENTS = 4 * 1024
_MAX_ELEMENTS = 32 * 1024 ** 2
# Unlike torch's, the allocation before slicing for steps is bounded too: steps of 16 in three
# dims could otherwise ask for 4096 times max_elements.
_MAX_ALLOCATION_BYTES = 1024 ** 3
_STEP_CHOICES = {1: 0.8, 2: 0.06, 4: 0.06, 8: 0.04, 16: 0.04}


def _dims(name: str):
    return FuzzedParameter(name, distribution={1: 0.3, 2: 0.4, 3: 0.3}, strict=True)


def _sizes(regular_sizes, probability_regular: float, max_size: int):
    """k0..k2: each an arbitrary (loguniform) size or one of `regular_sizes`."""
    any_sizes = [FuzzedParameter(f"k_any_{i}", minval=_MIN_DIM_SIZE, maxval=max_size, distribution="loguniform")
                 for i in range(3)]
    regular = [FuzzedParameter(f"k_regular_{i}", distribution={s: 1 / len(regular_sizes) for s in regular_sizes})
               for i in range(3)]
    choices = [FuzzedParameter(f"k{i}", distribution={ParameterAlias(f"k_regular_{i}"): probability_regular,
                                                      ParameterAlias(f"k_any_{i}"): 1 - probability_regular},
                               strict=True)
               for i in range(3)]
    return any_sizes + regular + choices


def _default_dtype(dtype, fallback: str):
    import ember

    return dtype if dtype is not None else getattr(ember, fallback)


def _tensor(name, size, steps, dim_parameter, dtype, min_elements=_MIN_ELEMENTS):
    return FuzzedTensor(name, size=size, steps=steps, probability_contiguous=0.75, min_elements=min_elements,
                        max_elements=_MAX_ELEMENTS, max_allocation_bytes=_MAX_ALLOCATION_BYTES,
                        dim_parameter=dim_parameter, dtype=dtype)


class UnaryOpFuzzer(Fuzzer):
    def __init__(self, seed, dtype=None):
        super().__init__(
            parameters=[
                _dims("dim"),
                _sizes(_POW_TWO_SIZES, 0.2, _MAX_DIM_SIZE),
                [FuzzedParameter(f"x_step_{i}", distribution=_STEP_CHOICES) for i in range(3)],
                FuzzedParameter("random_value", minval=0, maxval=2 ** 32 - 1, distribution="uniform"),
            ],
            tensors=[
                _tensor("x", ("k0", "k1", "k2"), ("x_step_0", "x_step_1", "x_step_2"), "dim",
                        _default_dtype(dtype, "float32")),
            ],
            seed=seed,
        )


class BinaryOpFuzzer(Fuzzer):
    """x and y; each dim of y is x's or 1 (so that some cases broadcast)."""

    def __init__(self, seed, dtype=None):
        dtype = _default_dtype(dtype, "float32")
        super().__init__(
            parameters=[
                _dims("dim"),
                _sizes(_POW_TWO_SIZES, 0.2, _MAX_DIM_SIZE),
                [FuzzedParameter(f"y_k{i}", distribution={ParameterAlias(f"k{i}"): 0.8, 1: 0.2}, strict=True)
                 for i in range(3)],
                [FuzzedParameter(f"{name}_step_{i}", distribution=_STEP_CHOICES)
                 for i in range(3) for name in ("x", "y")],
                FuzzedParameter("random_value", minval=0, maxval=2 ** 32 - 1, distribution="uniform"),
            ],
            tensors=[
                _tensor("x", ("k0", "k1", "k2"), ("x_step_0", "x_step_1", "x_step_2"), "dim", dtype),
                _tensor("y", ("y_k0", "y_k1", "y_k2"), ("y_step_0", "y_step_1", "y_step_2"), "dim", dtype,
                        min_elements=None),
            ],
            seed=seed,
        )


_SPECTRAL_MAX_DIM_SIZE = 16 * 1024


def _regular_sizes(upper: int, lower: int):
    """Sizes 2^i 3^j 5^k in (lower, upper]: the fast sizes of FFT libraries."""
    out = set()
    for i in range(int(math.log2(upper)) + 1):
        for j in range(int(math.log(upper, 3)) + 1):
            for k in range(int(math.log(upper, 5)) + 1):
                n = 2 ** i * 3 ** j * 5 ** k
                if lower < n <= upper:
                    out.add(n)
    return tuple(sorted(out))


_SPECTRAL_SIZES = _regular_sizes(_SPECTRAL_MAX_DIM_SIZE, _MIN_DIM_SIZE)


class SpectralOpFuzzer(Fuzzer):
    """Sizes that are products of 2, 3 and 5 with probability `probability_regular`."""

    def __init__(self, *, seed, dtype=None, probability_regular: float = 1.0):
        if not 0 <= probability_regular <= 1:
            raise ValueError(f"SpectralOpFuzzer: probability_regular must be in [0, 1], got {probability_regular}.")
        super().__init__(
            parameters=[
                _dims("ndim"),
                _sizes(_SPECTRAL_SIZES, probability_regular, _SPECTRAL_MAX_DIM_SIZE),
                [FuzzedParameter(f"step_{i}", distribution=_STEP_CHOICES) for i in range(3)],
            ],
            tensors=[
                _tensor("x", ("k0", "k1", "k2"), ("step_0", "step_1", "step_2"), "ndim",
                        _default_dtype(dtype, "float64")),
            ],
            seed=seed,
        )
