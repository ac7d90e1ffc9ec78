"""Adamax: Adam with the infinity norm."""
import ember
from ember import _C

from .adam import _check_adam_args, _steps_as_tensors
from .optimizer import Optimizer, _call_closure, _gather, _no_grad_step

__all__ = ["Adamax"]


# The per-parameter state, and the order in which the fused op takes it.
_STATE = ("exp_avg", "exp_inf", "step")


def _new_state(p):
    return {"step": ember.tensor(0.0), "exp_avg": ember.zeros_like(p), "exp_inf": ember.zeros_like(p)}


class Adamax(Optimizer):
    """torch.optim.Adamax: m = beta1 * m + (1 - beta1) * g; u = max(beta2 * u, |g| + eps);
    p -= lr / (1 - beta1^t) * m / u."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
        _steps_as_tensors(self.state.values())

    @_no_grad_step
    def step(self, closure=None):
        loss = _call_closure(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lists = _gather(self, group, _new_state, _STATE)
            if lists[0]:
                _C._fused_adamax_(*lists, lr=group["lr"], beta1=beta1, beta2=beta2,
                                  eps=group["eps"], weight_decay=group["weight_decay"], maximize=group["maximize"])
        return loss
