"""RAdam: Adam with a rectified adaptive learning rate."""
import ember
from ember import _C

from .adam import _check_adam_args, _steps_as_tensors
from .optimizer import Optimizer, _call_closure, _gather, _no_grad_step

__all__ = ["RAdam"]


# The per-parameter state, and the order in which the fused op takes it.
_STATE = ("exp_avg", "exp_avg_sq", "step")


def _new_state(p):
    return {"step": ember.tensor(0.0), "exp_avg": ember.zeros_like(p), "exp_avg_sq": ember.zeros_like(p)}


class RAdam(Optimizer):
    """torch.optim.RAdam: while the variance estimate is unreliable (rho_t <= 5) the step is the
    bias-corrected momentum alone; afterwards Adam's step scaled by the rectification term."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None):
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
        _steps_as_tensors(self.state.values())

    @_no_grad_step
    def step(self, closure=None):
        loss = _call_closure(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lists = _gather(self, group, _new_state, _STATE)
            if lists[0]:
                _C._fused_radam_(*lists, lr=group["lr"], beta1=beta1, beta2=beta2, weight_decay=group["weight_decay"],
                                 eps=group["eps"])
        return loss
