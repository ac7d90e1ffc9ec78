"""Fuzzer: reproducible random benchmark cases (parameters and Ember tensors) from a seed."""

import functools
import itertools
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

__all__ = ["Fuzzer", "FuzzedParameter", "ParameterAlias", "FuzzedTensor"]

_DISTRIBUTIONS = ("loguniform", "uniform")
# Parameter sets tried per case before a Fuzzer gives up on its constraints.
MAX_TRIES = 1000


class FuzzedParameter:
    """A parameter drawn for each case.

    distribution:
      "uniform"    -- uniform on [minval, maxval]; integers if both bounds are ints.
      "loguniform" -- uniform in log space on [minval, maxval], as an int (sizes).
      dict         -- {value: probability} choices (probabilities sum to 1); minval and
                      maxval must then be unset. Values may be ParameterAlias.
    A `strict` parameter is drawn once per case and kept while the others are redrawn to
    meet constraints, so that resampling does not skew it.
    """

    def __init__(self, name: str, minval: Optional[Union[int, float]] = None,
                 maxval: Optional[Union[int, float]] = None,
                 distribution: Optional[Union[str, Dict[Any, float]]] = None, strict: bool = False):
        if not isinstance(name, str) or not name:
            raise ValueError(f"FuzzedParameter: name must be a non-empty str, got {name!r}.")
        self._name = name
        self._minval, self._maxval = minval, maxval
        if isinstance(distribution, dict):
            if minval is not None or maxval is not None:
                raise ValueError(f"FuzzedParameter '{name}': minval and maxval must not be set "
                                 "with an explicit distribution of choices.")
            if not distribution:
                raise ValueError(f"FuzzedParameter '{name}': the distribution has no choices.")
            probs = list(distribution.values())
            if any(p < 0 for p in probs):
                raise ValueError(f"FuzzedParameter '{name}': probabilities cannot be negative.")
            if abs(sum(probs) - 1) > 1e-5:
                raise ValueError(f"FuzzedParameter '{name}': probabilities sum to {sum(probs)}, not 1.")
            self._choices = list(distribution.keys())
            self._probs = np.array(probs, dtype=np.float64) / sum(probs)
        elif distribution in _DISTRIBUTIONS:
            if minval is None or maxval is None:
                raise ValueError(f"FuzzedParameter '{name}': minval and maxval are required "
                                 f"for the {distribution} distribution.")
            if minval > maxval:
                raise ValueError(f"FuzzedParameter '{name}': minval ({minval}) > maxval ({maxval}).")
            if distribution == "loguniform" and minval <= 0:
                raise ValueError(f"FuzzedParameter '{name}': loguniform needs minval > 0, got {minval}.")
        else:
            raise ValueError(f"FuzzedParameter '{name}': distribution must be 'uniform', 'loguniform' "
                             f"or a dict of choices, got {distribution!r}.")
        self._distribution = distribution
        self.strict = strict

    @property
    def name(self) -> str:
        return self._name

    def sample(self, state: np.random.RandomState) -> Any:
        if self._distribution == "loguniform":
            value = int(2 ** state.uniform(low=np.log2(self._minval), high=np.log2(self._maxval)))
            return min(max(value, self._minval), self._maxval)
        if self._distribution == "uniform":
            if isinstance(self._minval, int) and isinstance(self._maxval, int):
                return int(state.randint(low=self._minval, high=self._maxval + 1))
            return float(state.uniform(low=self._minval, high=self._maxval))
        return self._choices[state.choice(len(self._choices), p=self._probs)]


class ParameterAlias:
    """A choice that takes the value of another parameter, e.g. {1: 0.5, ParameterAlias("n"): 0.5}
    for a size that broadcasts half of the time."""

    def __init__(self, alias_to: str):
        self.alias_to = alias_to

    def __repr__(self) -> str:
        return f"ParameterAlias[alias_to: {self.alias_to}]"


def _prod(values, base: int = 1) -> int:
    # Python ints: a NumPy product could overflow and pass the size checks.
    return functools.reduce(lambda a, b: int(a) * int(b), values, base)


class FuzzedTensor:
    """An Ember tensor built for each case.

    size / steps: ints or parameter names; with steps a larger tensor is allocated and sliced
      (t[::step] per dim), which makes it strided.
    probability_contiguous: the chance of a contiguous layout; otherwise the dims are stored in a
      random permuted order (the tensor reads the same but is not contiguous).
    min_elements / max_elements / max_allocation_bytes: constraints; cases outside are redrawn.
    dim_parameter: a parameter that truncates (or pads with 1s) size and steps.
    tensor_constructor: called as f(size=..., dtype=..., **params) instead of rand/randint.
    """

    def __init__(self, name: str, size: Tuple[Union[str, int], ...],
                 steps: Optional[Tuple[Union[str, int], ...]] = None, probability_contiguous: float = 0.5,
                 min_elements: Optional[int] = None, max_elements: Optional[int] = None,
                 max_allocation_bytes: Optional[int] = None, dim_parameter: Optional[str] = None,
                 dtype=None,
                 tensor_constructor: Optional[Callable] = None):
        import ember

        if not 0 <= probability_contiguous <= 1:
            raise ValueError(f"FuzzedTensor '{name}': probability_contiguous must be in [0, 1], "
                             f"got {probability_contiguous}.")
        if steps is not None and len(steps) != len(size):
            raise ValueError(f"FuzzedTensor '{name}': steps {tuple(steps)} and size {tuple(size)} "
                             "differ in length.")
        if min_elements is not None and max_elements is not None and min_elements > max_elements:
            raise ValueError(f"FuzzedTensor '{name}': min_elements ({min_elements}) > max_elements "
                             f"({max_elements}).")
        self._name = name
        self._size = tuple(size)
        self._steps = tuple(steps) if steps is not None else None
        self._probability_contiguous = probability_contiguous
        self._min_elements, self._max_elements = min_elements, max_elements
        self._max_allocation_bytes = max_allocation_bytes
        self._dim_parameter = dim_parameter
        self._dtype = dtype if dtype is not None else ember.float32
        self._tensor_constructor = tensor_constructor

    @property
    def name(self) -> str:
        return self._name

    @staticmethod
    def default_tensor_constructor(size, dtype, **kwargs):
        import ember

        if dtype.is_floating_point or dtype.is_complex:
            return ember.rand(size, dtype=dtype)
        if dtype == ember.bool:
            return ember.randint(0, 2, size, dtype=dtype)
        return ember.randint(1, 127, size, dtype=dtype)

    def _get_size_and_steps(self, params: Dict[str, Any]):
        dim = params[self._dim_parameter] if self._dim_parameter is not None else len(self._size)

        def resolve(values: Sequence) -> Tuple[int, ...]:
            values = tuple(params.get(v, v) if isinstance(v, str) else v for v in values)[:dim]
            for v in values:
                if isinstance(v, str):
                    raise ValueError(f"FuzzedTensor '{self._name}': no parameter named '{v}'.")
            return values + (1,) * (dim - len(values))

        size = resolve(self._size)
        steps = resolve(self._steps or ())
        return size, steps, tuple(s * st for s, st in zip(size, steps))

    def satisfies_constraints(self, params: Dict[str, Any]) -> bool:
        size, _, allocation_size = self._get_size_and_steps(params)
        numel = _prod(size)
        if self._max_elements is not None and numel > self._max_elements:
            return False
        if self._min_elements is not None and numel < self._min_elements:
            return False
        if self._max_allocation_bytes is not None:
            if _prod(allocation_size, base=self._dtype.itemsize) > self._max_allocation_bytes:
                return False
        return True

    def _make_tensor(self, params: Dict[str, Any], state: np.random.RandomState):
        size, steps, allocation_size = self._get_size_and_steps(params)
        constructor = self._tensor_constructor or self.default_tensor_constructor
        raw = constructor(size=allocation_size, dtype=self._dtype, **params)
        dim = len(size)
        order = np.arange(dim)
        if state.rand() > self._probability_contiguous:
            # Store the dims in a shuffled order, then view them back in the logical order.
            while dim > 1 and np.all(order == np.arange(dim)):
                order = state.permutation(dim)
            perm = tuple(int(i) for i in order)
            raw = raw.permute(perm).contiguous().permute(tuple(int(i) for i in np.argsort(order)))
        tensor = raw[tuple(slice(0, n * st, st) for n, st in zip(size, steps))] if dim else raw
        properties = {
            "numel": int(tensor.numel()),
            "order": order,
            "steps": steps,
            "is_contiguous": tensor.is_contiguous(),
            "dtype": str(self._dtype),
        }
        return tensor, properties


class Fuzzer:
    """Draws benchmark cases: each case is (tensors, tensor_properties, params).

    constraints are callables taking the dict of parameters; a set for which any returns False
    (or which breaks a tensor's element limits) is redrawn, at most MAX_TRIES times per case,
    after which ValueError is raised. The same seed gives the same cases, tensor values included
    (ember's generator is seeded from it).
    """

    def __init__(self, parameters: List[Union[FuzzedParameter, List[FuzzedParameter]]],
                 tensors: List[Union[FuzzedTensor, List[FuzzedTensor]]],
                 constraints: Optional[List[Callable[[Dict[str, Any]], bool]]] = None,
                 seed: Optional[int] = None):
        if seed is None:
            seed = int(np.random.RandomState().randint(0, 2 ** 32 - 1, dtype=np.int64))
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2 ** 32:
            raise ValueError(f"Fuzzer: seed must be an integer in [0, 2**32), got {seed!r}.")
        self._seed = int(seed)
        self._parameters = self._unpack(parameters, FuzzedParameter, "parameters")
        self._tensors = self._unpack(tensors, FuzzedTensor, "tensors")
        self._constraints = tuple(constraints or ())
        for c in self._constraints:
            if not callable(c):
                raise ValueError(f"Fuzzer: constraints must be callables, got {c!r}.")
        p_names = [p.name for p in self._parameters]
        t_names = [t.name for t in self._tensors]
        for names, what in ((p_names, "parameter"), (t_names, "tensor")):
            dup = {n for n in names if names.count(n) > 1}
            if dup:
                raise ValueError(f"Fuzzer: duplicate {what} names: {sorted(dup)}")
        overlap = set(p_names) & set(t_names)
        if overlap:
            raise ValueError(f"Duplicate names in parameters and tensors: {sorted(overlap)}")
        self._rejections = 0
        self._total_generated = 0

    @staticmethod
    def _unpack(values, cls, what: str):
        flat = tuple(itertools.chain(*[[v] if isinstance(v, cls) else v for v in values]))
        for v in flat:
            if not isinstance(v, cls):
                raise ValueError(f"Fuzzer: {what} must be {cls.__name__} objects, got {type(v).__name__}.")
        return flat

    def take(self, n: int) -> Iterator[Tuple[Dict[str, Any], Dict[str, Dict[str, Any]], Dict[str, Any]]]:
        """Yields n cases: (tensors by name, their properties by name, parameters)."""
        import ember

        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"Fuzzer.take: n must be a non-negative integer, got {n!r}.")
        state = np.random.RandomState(self._seed)
        ember.manual_seed(int(state.randint(low=0, high=2 ** 63 - 1, dtype=np.int64)))
        for _ in range(n):
            params = self._generate(state)
            tensors, properties = {}, {}
            for t in self._tensors:
                tensors[t.name], properties[t.name] = t._make_tensor(params, state)
            yield tensors, properties, params

    @property
    def rejection_rate(self) -> float:
        return self._rejections / self._total_generated if self._total_generated else 0.0

    def _generate(self, state: np.random.RandomState) -> Dict[str, Any]:
        strict: Dict[str, Any] = {}
        for _ in range(MAX_TRIES):
            candidate = {}
            for p in self._parameters:
                if p.strict and p.name in strict:
                    candidate[p.name] = strict[p.name]
                else:
                    candidate[p.name] = p.sample(state)
                    if p.strict:
                        strict[p.name] = candidate[p.name]
            candidate = self._resolve_aliases(candidate)
            self._total_generated += 1
            if all(f(candidate) for f in self._constraints) and \
                    all(t.satisfies_constraints(candidate) for t in self._tensors):
                return candidate
            self._rejections += 1
        raise ValueError(f"Fuzzer: no parameters met the constraints in {MAX_TRIES} tries; "
                         "the constraints may be impossible to satisfy.")

    @staticmethod
    def _resolve_aliases(params: Dict[str, Any]) -> Dict[str, Any]:
        params = dict(params)
        pending = sum(isinstance(v, ParameterAlias) for v in params.values())
        while pending:
            for k, v in params.items():
                if isinstance(v, ParameterAlias):
                    if v.alias_to not in params:
                        raise ValueError(f"ParameterAlias of '{k}' names an unknown parameter '{v.alias_to}'.")
                    params[k] = params[v.alias_to]
            now = sum(isinstance(v, ParameterAlias) for v in params.values())
            if now == pending:
                raise ValueError(f"ParameterAlias cycle detected\n{params}")
            pending = now
        return params

