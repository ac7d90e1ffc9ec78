"""Named-tuple results of ops that return several tensors (like torch.return_types)."""

from ._C import _return_types as _rt

max = _rt["max"]  # noqa: A001  (values, indices) of ember.max(input, dim)
min = _rt["min"]  # noqa: A001  (values, indices) of ember.min(input, dim)

__all__ = ["max", "min"]
