"""Ember: a deep-learning framework with PyTorch's semantics and a C++ core.

The extension module ``ember._C`` holds the Tensor type and the ops; this package
re-exports them under the names PyTorch uses (``ember.tensor``, ``ember.float32``, ...).
"""

from . import _C
from ._C import *  # noqa: F401,F403  (Tensor, dtypes, device, Size, ops, factories)
from ._C import Tensor, Generator, default_generator  # noqa: F401
from . import return_types  # noqa: F401
from . import _tensor
from . import utils  # noqa: F401
from . import functional  # noqa: F401
from . import autograd  # noqa: F401
from . import special  # noqa: F401
from . import fft  # noqa: F401
from . import linalg  # noqa: F401
from . import func  # noqa: F401
from .func import vmap  # noqa: F401  (torch.vmap)
from .autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled  # noqa: F401
from .autograd import (inference_mode, is_anomaly_check_nan_enabled, is_anomaly_enabled,  # noqa: F401
                       is_inference_mode_enabled)
from ._C import _is_inference as is_inference  # noqa: F401  (torch.is_inference)
from ._C import _log_softmax_backward_data, _softmax_backward_data  # noqa: F401  (torch's private names)
from .functional import chain_matmul, einsum, imag, real, tensordot  # noqa: F401
from .serialization import load, save  # noqa: F401

__version__ = "0.1.0"



def load_library(path):
    """Loads a shared library of C++ ops (like torch.ops.load_library): ops it registers
    become ember.<name> functions and Tensor methods."""
    import ctypes
    ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
    _C._expose_new_ops()
    g = globals()
    for name in dir(_C):
        if not name.startswith("_") and name not in g:
            g[name] = getattr(_C, name)


# torch.nn.Parameter-style subclasses build themselves with Tensor._make_subclass(cls, data).
Tensor._make_subclass = staticmethod(_C._make_subclass)
_tensor.install(Tensor)
# Varargs call forms of shape ops (t.repeat(2, 3), meshgrid(a, b), atleast_1d(a, b)).
from ._shape import atleast_1d, atleast_2d, atleast_3d, meshgrid  # noqa: E402,F401
# norm, unique, unique_consecutive: torch.functional's Python signatures over the op schemas.
from . import _reduce_sort  # noqa: E402
_reduce_sort.install(globals(), Tensor)

from . import nn  # noqa: E402,F401
from .nn.functional import pdist  # noqa: E402,F401  (torch.pdist)
from . import optim  # noqa: E402,F401
from . import fx  # noqa: E402,F401  (torch.fx, reachable after import torch)
