"""AdamW: Adam with decoupled weight decay."""
from .adam import _adam_step, _check_adam_args, _steps_as_tensors
from .optimizer import Optimizer, _call_closure, _no_grad_step

__all__ = ["AdamW"]


class AdamW(Optimizer):
    """torch.optim.AdamW: p *= 1 - lr * weight_decay, then Adam's step on the plain gradient."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False, *,
                 maximize=False, foreach=None, capturable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, foreach=foreach,
                        maximize=maximize, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for key, value in (("amsgrad", False), ("maximize", False), ("foreach", None), ("capturable", False)):
                group.setdefault(key, value)
        _steps_as_tensors(self.state.values())

    @_no_grad_step
    def step(self, closure=None):
        loss = _call_closure(closure)
        _adam_step(self, decoupled=True)
        return loss
