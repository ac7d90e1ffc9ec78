"""Parameter: a Tensor that a Module registers as one of its parameters (torch.nn.Parameter)."""
from collections import OrderedDict

from .. import _C
from .._C import Tensor

__all__ = ["Parameter", "UninitializedParameter", "UninitializedBuffer"]


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


# ---------------------------------------------------------------- lazy (uninitialized) tensors
_UNINITIALIZED_MESSAGE = (
    "Attempted to use an uninitialized parameter in {}. This error happens when you are using a `LazyModule` or "
    "explicitly manipulating `ember.nn.parameter.{}` objects. When using LazyModules Call `forward` with a dummy "
    "batch to initialize the parameters before calling ember functions")

# What may be done with an uninitialized tensor besides reading its properties (dtype, device,
# requires_grad, data, ...): PyTorch's UninitializedTensorMixin._allowed_methods.
_ALLOWED_METHODS = frozenset([
    "size", "copy_", "is_floating_point", "half", "float", "double", "char", "short", "int", "long", "cuda", "cpu",
    "to", "get_device", "materialize", "share_memory_"])
# The dtype/device conversions: a buffer's result stays an UninitializedBuffer (as in PyTorch).
_CONVERSIONS = frozenset(["half", "float", "double", "char", "short", "int", "long", "cuda", "cpu", "to"])
# Tensor's special methods that are still fine on an uninitialized tensor.
_SAFE_DUNDERS = frozenset([
    "__class__", "__init__", "__new__", "__getattribute__", "__getattr__", "__setattr__", "__delattr__", "__dir__",
    "__doc__", "__hash__", "__repr__", "__str__", "__reduce__", "__reduce_ex__", "__deepcopy__", "__copy__",
    "__sizeof__", "__subclasshook__", "__init_subclass__", "__module__", "__dict__", "__weakref__", "__getstate__",
    "__setstate__", "__format__", "__class_getitem__"])


def _blocked_tensor_methods():
    """Names of Tensor's methods that raise on an uninitialized tensor (computed once)."""
    global _BLOCKED
    if _BLOCKED is None:
        names = set()
        for name in dir(Tensor):
            if name in _ALLOWED_METHODS or (name.startswith("__") and name in _SAFE_DUNDERS):
                continue
            attr = getattr(Tensor, name, None)
            if callable(attr) and not isinstance(attr, type):
                names.add(name)
        _BLOCKED = frozenset(names)
    return _BLOCKED


_BLOCKED = None


class UninitializedTensorMixin:
    """A parameter or buffer whose shape is not known yet (the lazy modules' state). Its
    properties can be read and it can change dtype or device, be copied into, and be
    materialized; anything else (ops, methods, .shape) raises, as in PyTorch. Its tensor
    carries the Uninitialized dispatch key, so that ops called on it from anywhere raise too."""

    def __deepcopy__(self, memo):
        # Another uninitialized tensor of the same kind, dtype and device.
        if id(self) in memo:
            return memo[id(self)]
        data = Tensor.__getattribute__(self, "data")
        result = type(self)(self.requires_grad, data.device, data.dtype)
        memo[id(self)] = result
        return result

    def materialize(self, shape, device=None, dtype=None):
        """Becomes a Parameter (or plain Tensor) of the given shape, with uninitialized values,
        on the same device and dtype as before unless given."""
        data = Tensor.__getattribute__(self, "data")
        if device is None:
            device = data.device
        if dtype is None:
            dtype = data.dtype
        Tensor.data.__set__(self, _C.empty(tuple(shape), device=device, dtype=dtype))
        _C._set_uninitialized(self, False)
        try:
            self.__class__ = self.cls_to_become
        except TypeError:
            # An object of a Python subclass cannot become ember.Tensor itself (a C type with a
            # deallocator of its own): a buffer becomes a plain subclass, and lazy modules put a
            # Tensor on the same storage in its place.
            self.__class__ = _MaterializedBuffer

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes.")

    def share_memory_(self):
        raise RuntimeError(
            "Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize the "
            "parameters before calling `module.share_memory()`.")

    def __repr__(self):
        return f"<{self.__class__.__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, proto):
        return (self.__class__, (self.requires_grad,))

    def __getattribute__(self, name):
        attr = super().__getattribute__(name)
        if name in _ALLOWED_METHODS:
            if name in _CONVERSIONS and isinstance(self, UninitializedBuffer):
                return UninitializedBuffer._converting(attr)
            return attr
        if name in _blocked_tensor_methods() and not name.startswith("__"):
            raise_on_call = getattr(Tensor, name)
            cls_name = type(self).__name__

            def blocked(*args, **kwargs):
                raise ValueError(_UNINITIALIZED_MESSAGE.format(repr(raise_on_call), cls_name))
            return blocked
        return attr


def _blocked_dunder(name):
    def method(self, *args, **kwargs):
        raise ValueError(_UNINITIALIZED_MESSAGE.format(repr(getattr(Tensor, name)), type(self).__name__))
    method.__name__ = name
    return method


# Operators (x + p, p[0], len(p), bool(p), ...) reach the special methods through the type,
# not __getattribute__: each one raises.
for _name in dir(Tensor):
    if _name.startswith("__") and _name not in _SAFE_DUNDERS and callable(getattr(Tensor, _name, None)):
        setattr(UninitializedTensorMixin, _name, _blocked_dunder(_name))
del _name


def is_lazy(param):
    """Whether param is an uninitialized parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)


def _make_uninitialized(cls, requires_grad, device, dtype):
    t = Tensor._make_subclass(cls, _C.empty(0, device=device, dtype=dtype), requires_grad)
    _C._set_uninitialized(t, True)
    return t


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is not known yet: a lazy module's until its first forward.
    Only its dtype and device can change (materialize gives it a shape and makes it a
    Parameter); the dtype and device it materializes with can be given here."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        return _make_uninitialized(cls, requires_grad, device, dtype)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer whose shape is not known yet (a lazy module's running statistics)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        return _make_uninitialized(cls, requires_grad, device, dtype)

    def __init__(self, requires_grad=False, device=None, dtype=None):
        pass

    @staticmethod
    def _converting(method):
        """A conversion of an uninitialized buffer gives one (PyTorch's subclass rule)."""
        def convert(*args, **kwargs):
            r = method(*args, **kwargs)
            if isinstance(r, Tensor) and not isinstance(r, UninitializedBuffer):
                r = _make_uninitialized_like(r)
            return r
        return convert


def _make_uninitialized_like(t):
    r = Tensor._make_subclass(UninitializedBuffer, t, t.requires_grad)
    _C._set_uninitialized(r, True)
    return r


class _MaterializedBuffer(Tensor):
    """What a materialized UninitializedBuffer is: an ordinary tensor (see materialize)."""


def _replace_materialized_buffers(module):
    """Puts a plain Tensor on the same storage in place of each buffer of module that was
    materialized from an UninitializedBuffer (as PyTorch's become torch.Tensor)."""
    for name, buf in module._buffers.items():
        if type(buf) is _MaterializedBuffer:
            module._buffers[name] = Tensor._make_subclass(Tensor, buf, buf.requires_grad)
