"""Adadelta."""
import ember
from ember import _C

from .optimizer import Optimizer, _call_closure, _no_grad_step, _real

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """torch.optim.Adadelta: v = rho * v + (1 - rho) * g^2; delta = sqrt(u + eps) / sqrt(v + eps) * g;
    u = rho * u + (1 - rho) * delta^2; p -= lr * delta."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, maximize=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize, foreach=foreach)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)

    @_no_grad_step
    def step(self, closure=None):
        loss = _call_closure(closure)
        for group in self.param_groups:
            params, grads, square_avgs, acc_deltas = [], [], [], []
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["square_avg"] = ember.zeros_like(p)
                    state["acc_delta"] = ember.zeros_like(p)
                params.append(_real(p))
                grads.append(_real(g))
                square_avgs.append(_real(state["square_avg"]))
                acc_deltas.append(_real(state["acc_delta"]))
                state["step"] += 1
            if params:
                _C._fused_adadelta_(params, grads, square_avgs, acc_deltas, lr=group["lr"], rho=group["rho"],
                                    eps=group["eps"], weight_decay=group["weight_decay"], maximize=group["maximize"])
        return loss
