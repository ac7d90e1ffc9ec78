"""Reverse-mode automatic differentiation (torch.autograd's API).

The engine and the derivative formulas are C++ (src/autograd/); this module gives them
PyTorch's Python names: grad modes as context managers and decorators, `backward` and
`grad`.
"""

import functools
import warnings

from .. import _C
from .function import Function, FunctionCtx, once_differentiable  # noqa: F401
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: F401
from . import functional  # noqa: F401
from . import forward_ad  # noqa: F401

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "Function",
           "once_differentiable", "gradcheck", "gradgradcheck", "inference_mode", "detect_anomaly",
           "set_detect_anomaly"]


def is_grad_enabled():
    """Whether ops record graphs on this thread."""
    return _C._is_grad_enabled()


class _GradMode:
    """A context manager that sets grad mode for its block; also a function decorator."""

    _mode = None

    def __enter__(self):
        self._prev = _C._is_grad_enabled()
        _C._set_grad_enabled(self._mode)
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)
        return wrapper


class no_grad(_GradMode):
    """Ops in this block record no graph (their results do not require grad)."""
    _mode = False


class enable_grad(_GradMode):
    """Ops in this block record graphs, even inside no_grad."""
    _mode = True


class set_grad_enabled(_GradMode):
    """Sets grad mode to `mode`: at once when called, and back when used as a context manager exits."""

    def __init__(self, mode):
        self._prev = _C._is_grad_enabled()
        self._mode = bool(mode)
        _C._set_grad_enabled(self._mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._prev)
        return False

    def __call__(self, fn):
        _C._set_grad_enabled(self._prev)
        mode = self._mode

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)
        return wrapper


class inference_mode:
    """Inference mode for a block (also a function decorator): like no_grad, and the tensors made
    are inference tensors, which skip autograd's bookkeeping. mode=False turns it off inside."""

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def __enter__(self):
        self._guard = _C._InferenceMode(self.mode)
        return self

    def __exit__(self, *exc):
        del self._guard
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(self.mode):
                return fn(*args, **kwargs)
        return wrapper


def is_inference_mode_enabled():
    """Whether inference mode is on for this thread."""
    return _C._is_inference_mode_enabled()


class detect_anomaly:
    """Anomaly detection for a block (also a function decorator): backward errors, and with
    check_nan gradients holding NaN, are reported with the traceback of the forward call that
    made the failing node."""

    def __init__(self, check_nan=True):
        self.check_nan = check_nan
        self.prev = _C._is_anomaly_enabled()
        self.prev_check_nan = _C._is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                      "enabled for debugging.", stacklevel=2)

    def __enter__(self):
        _C._set_anomaly_enabled(True, self.check_nan)
        return self

    def __exit__(self, *exc):
        _C._set_anomaly_enabled(self.prev, self.prev_check_nan)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(self.check_nan):
                return fn(*args, **kwargs)
        return wrapper


class set_detect_anomaly:
    """Turns anomaly detection on or off at once; used as a context manager, restores the previous
    setting on exit."""

    def __init__(self, mode, check_nan=True):
        self.prev = _C._is_anomaly_enabled()
        self.prev_check_nan = _C._is_anomaly_check_nan_enabled()
        _C._set_anomaly_enabled(bool(mode), bool(check_nan))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        _C._set_anomaly_enabled(self.prev, self.prev_check_nan)
        return False


def is_anomaly_enabled():
    return _C._is_anomaly_enabled()


def is_anomaly_check_nan_enabled():
    return _C._is_anomaly_check_nan_enabled()


def _as_list(x):
    if x is None:
        return []
    if isinstance(x, _C.Tensor):
        return [x]
    return list(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulates the gradients of `tensors` into the .grad of the leaves (or of `inputs`)."""
    tensors = _as_list(tensors)
    grads = _as_list(grad_tensors)
    if grads and len(grads) != len(tensors):
        raise RuntimeError(f"got {len(grads)} gradients for {len(tensors)} tensors")
    inputs = _as_list(inputs)
    if inputs is not None and grad_tensors is None:
        grads = []
    _C._backward(tensors, grads or None, retain_graph, create_graph, inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=False, is_grads_batched=False):
    """The gradients of `outputs` with respect to `inputs`, returned as a tuple. With
    is_grads_batched the first dim of each grad_output is a batch dim: one backward pass,
    vmapped over it, gives a batch of vector-Jacobian products."""
    outputs = _as_list(outputs)
    inputs = _as_list(inputs)
    grad_outputs = _as_list(grad_outputs)
    if grad_outputs and len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad_outputs has {len(grad_outputs)} tensors for {len(outputs)} outputs")
    return _C._run_grad(outputs, inputs, grad_outputs or None, retain_graph, create_graph, allow_unused,
                        is_grads_batched)
