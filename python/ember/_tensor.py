"""Pure-Python parts of ember.Tensor: pickling and copy support."""

import numbers

from . import _C

# NumPy integer types of each element size, used to move raw bytes in and out.
_BYTES_DTYPES = {1: _C.uint8, 2: _C.int16, 4: _C.int32, 8: _C.int64}


def _raw_view(t):
    """A contiguous CPU tensor whose elements hold t's bytes (complex128 stays itself)."""
    t = t.cpu().contiguous()
    if t.dtype is _C.complex128 or t.dtype is _C.bool:
        return t
    return t.view(_BYTES_DTYPES[t.element_size()])


def _rebuild_tensor(raw, dtype, shape, device):
    """Inverse of Tensor.__reduce_ex__."""
    if device == "meta":
        return _C.empty(shape, dtype=dtype, device="meta")
    t = _C.from_numpy(raw.copy())
    if t.dtype is not dtype:
        t = t.view(dtype)
    t = t.reshape(shape)
    return t if device == "cpu" else t.to(device)


def _reduce_ex(self, protocol):
    # Data travels as a NumPy array of same-sized integers, so every dtype (bfloat16 too) and
    # pickle protocol works; subclasses are rebuilt as ember.Tensor.
    device = str(self.device)
    raw = None if device == "meta" else _raw_view(self).numpy()
    return (_rebuild_tensor, (raw, self.dtype, tuple(self.shape), device))


def _deepcopy(self, memo):
    if id(self) in memo:
        return memo[id(self)]
    new = self.clone()
    if type(self) is not _C.Tensor:
        new = _C._make_subclass(type(self), new)
    if getattr(self, "__dict__", None):
        import copy
        new.__dict__.update(copy.deepcopy(self.__dict__, memo))
    memo[id(self)] = new
    return new


def _contains(self, element):
    """`element in t`: whether any element of t equals it (a number or a tensor)."""
    if isinstance(element, (_C.Tensor, numbers.Number)):
        return bool((element == self).any().item())
    raise RuntimeError("Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                       f"{type(element)}.")


def _reversed(self):
    """reversed(t): t flipped along its first dim (a 0-dim tensor is returned as is)."""
    return self if self.dim() == 0 else self.flip(0)


def install(cls):
    cls.__reduce_ex__ = _reduce_ex
    cls.__deepcopy__ = _deepcopy
    cls.__copy__ = lambda self: self.clone()  # noqa: E731 - torch.Tensor has no shallow copy either
    # torch.polygamma takes n first; the method form is self.polygamma(n).
    cls.polygamma = lambda self, n: _C.polygamma(n, self)  # noqa: E731
    cls.__contains__ = _contains
    cls.__reversed__ = _reversed
    _install_autograd(cls)


class _RemovableHandle:
    """What Tensor.register_hook returns: .remove() takes the hook off."""

    def __init__(self, tensor, handle):
        self._tensor, self._handle = tensor, handle

    def remove(self):
        if self._tensor is not None:
            _C._remove_hook(self._tensor, self._handle)
            self._tensor = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _install_autograd(cls):
    def _set_requires_grad(self, value):
        _C._set_requires_grad(self, bool(value))

    def requires_grad_(self, requires_grad=True):
        _C._set_requires_grad(self, bool(requires_grad))
        return self

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        if inputs is None:  # the common case, straight to C++ (it costs ~5% of a small backward)
            _C._backward([self], None if gradient is None else [gradient], retain_graph, create_graph, None)
            return
        from . import autograd
        autograd.backward(self, gradient, retain_graph, create_graph, inputs)

    def register_hook(self, hook):
        return _RemovableHandle(self, _C._register_hook(self, hook))

    def detach_(self):
        _C._detach_(self)
        return self

    def retain_grad(self):
        _C._retain_grad(self)

    cls.requires_grad = property(_C._requires_grad, _set_requires_grad)
    cls.grad = property(_C._grad, _C._set_grad)
    cls.grad_fn = property(_C._grad_fn)
    cls.is_leaf = property(_C._is_leaf)
    cls.retains_grad = property(_C._retains_grad)
    cls.output_nr = property(_C._output_nr)
    cls._version = property(_C._version)
    cls.is_inference = lambda self: _C._is_inference(self)  # noqa: E731
    cls.requires_grad_ = requires_grad_
    cls.backward = backward
    cls.register_hook = register_hook
    cls.detach_ = detach_
    cls.retain_grad = retain_grad
