"""Adam (and the shared step of AdamW)."""
import ember
from ember import _C

from .optimizer import Optimizer, _call_closure, _no_grad_step, _real

__all__ = ["Adam"]


def _check_adam_args(lr, betas, eps, weight_decay):
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _steps_as_tensors(state_values):
    """Old state dicts count steps with numbers; torch 1.13 keeps float32 tensors."""
    values = list(state_values)
    if values and "step" in values[0] and not isinstance(values[0]["step"], ember.Tensor):
        for s in values:
            s["step"] = ember.tensor(float(s["step"]))


def _adam_step(optimizer, decoupled):
    for group in optimizer.param_groups:
        amsgrad = group["amsgrad"]
        beta1, beta2 = group["betas"]
        params, grads, exp_avgs, exp_avg_sqs, max_sqs, steps = [], [], [], [], [], []
        for p in group["params"]:
            g = p.grad
            if g is None:
                continue
            state = optimizer.state[p]
            if len(state) == 0:
                state["step"] = ember.tensor(0.0)
                state["exp_avg"] = ember.zeros_like(p)
                state["exp_avg_sq"] = ember.zeros_like(p)
                if amsgrad:
                    state["max_exp_avg_sq"] = ember.zeros_like(p)
            params.append(_real(p))
            grads.append(_real(g))
            exp_avgs.append(_real(state["exp_avg"]))
            exp_avg_sqs.append(_real(state["exp_avg_sq"]))
            if amsgrad:
                max_sqs.append(_real(state["max_exp_avg_sq"]))
            steps.append(state["step"])
        if params:
            _C._fused_adam_(params, grads, exp_avgs, exp_avg_sqs, max_sqs, steps, lr=group["lr"], beta1=beta1,
                            beta2=beta2, weight_decay=group["weight_decay"], eps=group["eps"], amsgrad=amsgrad,
                            maximize=group["maximize"], decoupled_weight_decay=decoupled)


class Adam(Optimizer):
    """torch.optim.Adam: moment estimates m, v of the gradient (plus weight_decay * p), bias
    corrected; p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps). amsgrad uses
    the running maximum of v."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, amsgrad=amsgrad, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` cannot be `differentiable`")
            if not all(p.is_floating_point() for g in self.param_groups for p in g["params"]):
                raise RuntimeError("FusedAdam requires all the params to be floating point")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for key, value in (("amsgrad", False), ("maximize", False), ("foreach", None), ("capturable", False),
                               ("differentiable", False), ("fused", False)):
                group.setdefault(key, value)
        _steps_as_tensors(self.state.values())

    @_no_grad_step
    def step(self, closure=None):
        loss = _call_closure(closure)
        _adam_step(self, decoupled=False)
        return loss
