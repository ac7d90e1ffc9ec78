"""Named-tuple results of ops that return several tensors (like torch.return_types).

max and min are defined by hand; the others come from the op schemas' named returns
(ember.return_types.sort, ...), looked up when first used."""

from ._C import _return_types as _rt

max = _rt["max"]  # noqa: A001  (values, indices) of ember.max(input, dim)
min = _rt["min"]  # noqa: A001  (values, indices) of ember.min(input, dim)


def __getattr__(name):
    try:
        return _rt[name]
    except KeyError:
        raise AttributeError(f"module 'ember.return_types' has no attribute '{name}'") from None


def __dir__():
    return sorted(set(globals()) | set(_rt))
