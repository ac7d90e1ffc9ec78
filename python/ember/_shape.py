"""Python-level call forms of shape ops that PyTorch spells in Python rather than in an op
schema: sizes as varargs (``t.repeat(2, 3)``, ``t.flip(0, 1)``, ``t.tile(2, 2)``), and
``meshgrid`` / ``atleast_1d`` (and 2d, 3d) taking tensors as varargs. The ops themselves
are the schema-bound ``ember._C`` callables these wrap."""
import warnings

from . import _C


def _varargs_sizes_method(name):
    op = _C.Tensor.__dict__[name]

    def method(self, *sizes, **kwargs):
        if kwargs or (len(sizes) == 1 and isinstance(sizes[0], (list, tuple))):
            return op(self, *sizes, **kwargs)
        return op(self, sizes)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"{name}(*sizes) or {name}(sizes)\n\n" + (op.__doc__ or "")
    return method


for _name in ("repeat", "tile", "flip"):
    setattr(_C.Tensor, _name, _varargs_sizes_method(_name))


def meshgrid(*tensors, indexing=None):
    """meshgrid(*tensors, indexing=None): coordinate grids; indexing "ij" (the default, with a
    warning as in PyTorch) or "xy"."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    return _C.meshgrid(list(tensors), indexing=indexing)


def _atleast(op):
    def f(*tensors):
        if len(tensors) == 1:
            tensors = tensors[0]
            if not isinstance(tensors, (list, tuple)):
                return op(tensors)
        return op(list(tensors))

    f.__name__ = f.__qualname__ = op.__name__
    f.__doc__ = f"{op.__name__}(*tensors): one tensor, or a tuple for several (or a sequence)."
    return f


atleast_1d = _atleast(_C.atleast_1d)
atleast_2d = _atleast(_C.atleast_2d)
atleast_3d = _atleast(_C.atleast_3d)
