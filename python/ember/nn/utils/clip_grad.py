"""Gradient clipping (torch.nn.utils.clip_grad)."""
import math
import warnings

from ... import _C
from ..._C import Tensor
from ...autograd import no_grad

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_"]


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scales the gradients in place so that their joint norm (that of the vector of all of
    them) is at most max_norm; returns that norm before clipping."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    norm_type = float(norm_type)
    if len(grads) == 0:
        return _C.tensor(0.0)
    with no_grad():
        if norm_type == math.inf:
            norms = [g.detach().abs().max() for g in grads]
            total_norm = norms[0] if len(norms) == 1 else _C.stack(norms).max()
        else:
            total_norm = _C.stack([g.detach().norm(norm_type) for g in grads]).norm(norm_type)
        if error_if_nonfinite and bool((total_norm.isnan() | total_norm.isinf()).item()):
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is "
                               "non-finite, so it cannot be clipped. To disable this error and scale the "
                               "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
        clip_coef = max_norm / (total_norm + 1e-6)
        clip_coef_clamped = clip_coef.clamp(max=1.0)
        for g in grads:
            g.detach().mul_(clip_coef_clamped)
    return total_norm


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    warnings.warn("torch.nn.utils.clip_grad_norm is now deprecated in favor of torch.nn.utils.clip_grad_norm_.",
                  stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite)


def clip_grad_value_(parameters, clip_value):
    """Clamps every gradient to [-clip_value, clip_value] in place."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    clip_value = float(clip_value)
    with no_grad():
        for p in parameters:
            if p.grad is not None:
                p.grad.clamp_(min=-clip_value, max=clip_value)
