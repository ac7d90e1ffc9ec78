"""Forward-mode automatic differentiation (torch.autograd.forward_ad).

Inside a ``dual_level`` a tensor made by ``make_dual`` carries a tangent; every op on it
computes the tangent of its results (C++: include/ember/forward_ad.h). As in PyTorch 1.13
levels do not nest.
"""

from collections import namedtuple

from .. import _C

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual", "dual_level"]

# The live level, -1 when none (module state, as torch's).
_current_level = -1


def enter_dual_level():
    """Enters a new dual level and returns its index; tangents are scoped to it."""
    global _current_level
    new_level = _C._enter_dual_level()
    if new_level != _current_level + 1:
        raise RuntimeError("Entering a new forward AD level but the current level is not valid. Make sure you did "
                           "not modified it directly.")
    _current_level = new_level
    return new_level


def exit_dual_level(*, level=None):
    """Exits the given (default: the current) dual level, dropping its tangents."""
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that was created. This is "
                           "not supported.")
    _C._exit_dual_level(level=level)
    _current_level = level - 1


def make_dual(tensor, tangent, *, level=None):
    """A view of ``tensor`` whose tangent (at ``level``, default the current one) is ``tangent``."""
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: {tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {tangent.dtype}")
    return _C._make_dual(tensor, tangent, level=level)


_UnpackedDualTensor = namedtuple("_UnpackedDualTensor", ["primal", "tangent"])


class UnpackedDualTensor(_UnpackedDualTensor):
    """What unpack_dual returns: the primal (a view without the tangent) and the tangent (or None)."""


def unpack_dual(tensor, *, level=None):
    """(primal, tangent) of a dual tensor at ``level``; the tangent is None when it has none."""
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    primal, dual = _C._unpack_dual(tensor, level=level)
    return UnpackedDualTensor(primal, dual)


class dual_level:
    """Context manager (and decorator) for a dual level: ``with dual_level(): ...``."""

    def __enter__(self):
        return enter_dual_level()

    def __exit__(self, exc_type, exc_value, traceback):
        exit_dual_level()

    def __call__(self, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper
