"""Parameter: a Tensor that a Module registers as one of its parameters (torch.nn.Parameter)."""
from collections import OrderedDict

from .. import _C
from .._C import Tensor

__all__ = ["Parameter"]


def _rebuild_parameter(data, requires_grad, backward_hooks=None):
    """Inverse of Parameter.__reduce_ex__ (hooks are not serialised, as in PyTorch)."""
    return Parameter(data, requires_grad)


class Parameter(Tensor):
    """A Tensor that Module.__setattr__ registers as a parameter. Ops on a Parameter return
    plain Tensors; `data` gives the values without autograd history."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        t = Tensor._make_subclass(cls, data, requires_grad)
        # _make_subclass gives a detached leaf; requires_grad is set here so that an integer
        # tensor with requires_grad=True raises as in PyTorch.
        if requires_grad:
            t.requires_grad_(True)
        return t

    def __init__(self, data=None, requires_grad=True):  # Tensor.__init__ must not see the arguments
        pass

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (_rebuild_parameter, (self.data, self.requires_grad, OrderedDict()))
