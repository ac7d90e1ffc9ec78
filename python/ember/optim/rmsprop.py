"""RMSprop, plain or centered, with optional momentum."""
import ember
from ember import _C

from .optimizer import Optimizer, _call_closure, _no_grad_step, _real

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """torch.optim.RMSprop: v = alpha * v + (1 - alpha) * g^2 (centered: minus the square of
    the gradient's running mean); p -= lr * g / (sqrt(v) + eps), through a momentum buffer
    when momentum > 0."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 foreach=None, maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, foreach=foreach, maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for key, value in (("momentum", 0), ("centered", False), ("foreach", None), ("maximize", False),
                               ("differentiable", False)):
                group.setdefault(key, value)

    @_no_grad_step
    def step(self, closure=None):
        loss = _call_closure(closure)
        for group in self.param_groups:
            momentum, centered = group["momentum"], group["centered"]
            params, grads, square_avgs, grad_avgs, bufs = [], [], [], [], []
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["square_avg"] = ember.zeros_like(p)
                    if momentum > 0:
                        state["momentum_buffer"] = ember.zeros_like(p)
                    if centered:
                        state["grad_avg"] = ember.zeros_like(p)
                params.append(_real(p))
                grads.append(_real(g))
                square_avgs.append(_real(state["square_avg"]))
                if momentum > 0:
                    bufs.append(_real(state["momentum_buffer"]))
                if centered:
                    grad_avgs.append(_real(state["grad_avg"]))
                state["step"] += 1
            if params:
                _C._fused_rmsprop_(params, grads, square_avgs, grad_avgs, bufs, lr=group["lr"], alpha=group["alpha"],
                                   eps=group["eps"], weight_decay=group["weight_decay"], momentum=momentum,
                                   centered=centered, maximize=group["maximize"])
        return loss
