"""Custom differentiable functions (torch.autograd.Function)."""

import functools

from .. import _C


class FunctionCtx(_C._FunctionContext):
    """The `ctx` a Function's forward and backward share; set any attribute on it."""

    def save_for_backward(self, *tensors):
        self._save(list(tensors))

    @property
    def saved_tensors(self):
        # Raises if a saved tensor was modified in place since, or the graph was freed.
        return self._saved()

    def mark_dirty(self, *tensors):
        self._mark_dirty(list(tensors))

    def mark_non_differentiable(self, *tensors):
        self._mark_non_differentiable(list(tensors))

    def set_materialize_grads(self, value):
        # Undefined output gradients always reach backward as zeros.
        if not value:
            raise NotImplementedError("set_materialize_grads(False) is not supported yet")


class Function:
    """Subclass with static `forward(ctx, *args)` and `backward(ctx, *grad_outputs)` (one
    gradient per forward argument, None for non-tensors), then call `apply(*args)`."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement the backward function for custom autograd.Function.")

    @classmethod
    def apply(cls, *args):
        ctx = FunctionCtx()
        is_tensor = [isinstance(a, _C.Tensor) for a in args]
        ctx.needs_input_grad = tuple(t and a.requires_grad for t, a in zip(is_tensor, args))
        prev = _C._is_grad_enabled()
        _C._set_grad_enabled(False)
        try:
            out = cls.forward(ctx, *args)
        finally:
            _C._set_grad_enabled(prev)
        single = not isinstance(out, tuple)
        outs = (out,) if single else out
        inputs = [a for t, a in zip(is_tensor, args) if t]
        n_args = len(args)

        def backward(*grads):
            r = cls.backward(ctx, *grads)
            r = r if isinstance(r, tuple) else (r,)
            if len(r) != n_args:
                raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number of gradients "
                                   f"(expected {n_args}, got {len(r)})")
            return [g for t, g in zip(is_tensor, r) if t]

        tensor_pos = [i for i, o in enumerate(outs) if isinstance(o, _C.Tensor)]
        recorded = _C._record_function(cls.__name__ + "Backward", inputs, [outs[i] for i in tensor_pos], ctx, backward)
        outs = list(outs)
        for i, t in zip(tensor_pos, recorded):
            outs[i] = t
        return outs[0] if single else tuple(outs)


def once_differentiable(fn):
    """Runs a backward without recording a graph (its result is differentiable once)."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = _C._is_grad_enabled()
        _C._set_grad_enabled(False)
        try:
            return fn(ctx, *args)
        finally:
            _C._set_grad_enabled(prev)
    return wrapper
