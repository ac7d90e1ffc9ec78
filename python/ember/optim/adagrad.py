"""Adagrad."""
import ember
from ember import _C

from .adam import _steps_as_tensors
from .optimizer import Optimizer, _call_closure, _no_grad_step, _real

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """torch.optim.Adagrad: sum += g^2; p -= lr / (1 + (t - 1) * lr_decay) * g / (sqrt(sum) + eps).
    The state exists from construction (sum starts at initial_accumulator_value)."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = ember.tensor(0.0)
                init = complex(initial_accumulator_value, initial_accumulator_value) if p.is_complex() \
                    else initial_accumulator_value
                state["sum"] = ember.full_like(p, init)

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
            params, grads, sums, steps = [], [], [], []
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                state = self.state[p]
                params.append(_real(p))
                grads.append(_real(g))
                sums.append(_real(state["sum"]))
                steps.append(state["step"])
            if params:
                _C._fused_adagrad_(params, grads, sums, steps, lr=group["lr"], lr_decay=group["lr_decay"],
                                   weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"])
        return loss
