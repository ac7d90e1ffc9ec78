"""NAdam: Adam with Nesterov momentum."""
import ember
from ember import _C

from .adam import _check_adam_args, _steps_as_tensors
from .optimizer import Optimizer, _call_closure, _gather, _no_grad_step

__all__ = ["NAdam"]


# The per-parameter state, and the order in which the fused op takes it.
_STATE = ("exp_avg", "exp_avg_sq", "mu_product", "step")


def _new_state(p):
    return {"step": ember.tensor(0.0), "mu_product": ember.tensor(1.0), "exp_avg": ember.zeros_like(p),
            "exp_avg_sq": ember.zeros_like(p)}


class NAdam(Optimizer):
    """torch.optim.NAdam: Adam's moments with the momentum schedule
    mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay)); state["mu_product"] is the running product."""

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 foreach=None):
        _check_adam_args(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        foreach=foreach)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
        _steps_as_tensors(self.state.values())
        for s in self.state.values():
            if "mu_product" in s and not isinstance(s["mu_product"], ember.Tensor):
                s["mu_product"] = ember.tensor(s["mu_product"])

    @_no_grad_step
    def step(self, closure=None):
        loss = _call_closure(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lists = _gather(self, group, _new_state, _STATE)
            if lists[0]:
                _C._fused_nadam_(*lists, lr=group["lr"], beta1=beta1, beta2=beta2, weight_decay=group["weight_decay"],
                                 momentum_decay=group["momentum_decay"], eps=group["eps"])
        return loss
