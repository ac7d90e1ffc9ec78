"""Stochastic gradient descent, with momentum, dampening, Nesterov momentum and weight decay."""
import ember
from ember import _C

from .optimizer import Optimizer, _call_closure, _no_grad_step, _real, required

__all__ = ["SGD"]


class SGD(Optimizer):
    """torch.optim.SGD: p -= lr * d, where d is the gradient (plus weight_decay * p), or its
    momentum buffer buf = momentum * buf + (1 - dampening) * d (d + momentum * buf with
    nesterov). The buffer starts as the first step's d."""

    def __init__(self, params, lr=required, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False):
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for key, value in (("nesterov", False), ("maximize", False), ("foreach", None),
                               ("differentiable", False)):
                group.setdefault(key, value)

    @_no_grad_step
    def step(self, closure=None):
        loss = _call_closure(closure)
        for group in self.param_groups:
            momentum = group["momentum"]
            params, grads, bufs, fresh = [], [], [], []
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                state = self.state[p]
                buf = state.get("momentum_buffer")
                if momentum != 0:
                    if buf is None:
                        buf = ember.empty_like(p)
                        fresh.append(len(params))
                    bufs.append(_real(buf))
                params.append(_real(p))
                grads.append(_real(g))
                state["momentum_buffer"] = buf
            if params:
                _C._fused_sgd_(params, grads, bufs, lr=group["lr"], momentum=momentum, dampening=group["dampening"],
                               weight_decay=group["weight_decay"], nesterov=group["nesterov"],
                               maximize=group["maximize"], fresh=fresh)
        return loss
