"""The optimizer base class, with torch.optim.Optimizer's (PyTorch 1.13) behaviour: param_groups
is a list of dicts, state a dict keyed by parameter, and state_dict() numbers parameters across
groups in order."""
import functools
import warnings
from collections import defaultdict
from itertools import chain

import ember

__all__ = ["Optimizer", "required"]


class _RequiredParameter:
    """Marks a hyper-parameter that every parameter group must set (SGD's lr)."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _typename(obj):
    if isinstance(obj, ember.Tensor):
        return "ember.Tensor"
    module = type(obj).__module__
    return type(obj).__qualname__ if module == "builtins" else f"{module}.{type(obj).__qualname__}"


def _no_grad_step(step):
    """step() runs without recording; only the closure records (torch's decorators)."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        with ember.no_grad():
            return step(self, *args, **kwargs)

    return wrapper


def _call_closure(closure):
    if closure is None:
        return None
    with ember.enable_grad():
        return closure()


def _real(t):
    """Complex tensors are updated as pairs of reals (torch's view_as_real)."""
    return ember.view_as_real(t) if t.is_complex() else t


def _gather(optimizer, group, init, names):
    """The index-aligned lists a fused update takes for one group: its parameters that have a
    gradient, their gradients, then one list per state entry in `names` (tensors as real
    views; "step" and "mu_product" counters as they are). A parameter's state comes from
    init(p) on its first step."""
    params, grads, states = [], [], []
    for p in group["params"]:
        if p.grad is None:
            continue
        state = optimizer.state[p]
        if len(state) == 0:
            state.update(init(p))
        params.append(_real(p))
        grads.append(_real(p.grad))
        states.append(state)
    counters = ("step", "mu_product")
    return [params, grads] + [[s[n] if n in counters else _real(s[n]) for s in states] for n in names]


def _copy_tree(value):
    """A deep copy of a state-dict value: containers rebuilt, tensors cloned."""
    if isinstance(value, ember.Tensor):
        return value.detach().clone()
    if isinstance(value, dict):
        return {k: _copy_tree(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_copy_tree(v) for v in value)
    return value


class Optimizer:
    """Base of all optimizers. `params` is an iterable of tensors or of dicts (parameter groups,
    each with a "params" entry and options that override `defaults`)."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, ember.Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        groups = list(params)
        if len(groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self):
        lines = [self.__class__.__name__ + " ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines.extend(f"    {key}: {group[key]}" for key in sorted(group) if key != "params")
        return "\n".join(lines) + "\n)"

    def add_param_group(self, param_group):
        """Adds a group; options it leaves out come from the defaults."""
        if not isinstance(param_group, dict):
            raise TypeError("param group must be a dict")
        params = param_group["params"]
        if isinstance(params, ember.Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        for p in param_group["params"]:
            if not isinstance(p, ember.Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(p))
            if not self.defaults.get("differentiable", None) and not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required optimization parameter " + name)
            param_group.setdefault(name, default)
        ids = [id(p) for p in param_group["params"]]
        if len(ids) != len(set(ids)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                          "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        taken = {id(p) for g in self.param_groups for p in g["params"]}
        if not taken.isdisjoint(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=False):
        """Clears the gradients: to None, or detached and zeroed in place (torch 1.13's default)."""
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if set_to_none:
                    p.grad = None
                    continue
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def step(self, closure):
        raise NotImplementedError

    def state_dict(self):
        """{"state": {index: state}, "param_groups": [{options..., "params": [indices]}]}; the
        state's tensors are the optimizer's own (not copies), as in torch."""
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(index[id(k)] if isinstance(k, ember.Tensor) else k): v for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Loads a state_dict() result. The group count and sizes are checked before anything
        changes; state tensors are copied onto the parameter's device and, except "step", cast to
        its floating dtype."""
        state_dict = _copy_tree(state_dict)
        groups = self.param_groups
        saved_groups = state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        by_index = dict(zip(chain.from_iterable(s["params"] for s in saved_groups),
                            chain.from_iterable(g["params"] for g in groups)))

        def cast(param, value, key=None):
            if isinstance(value, ember.Tensor):
                if key != "step":
                    if param.is_floating_point():
                        value = value.to(param.dtype)
                    value = value.to(param.device)
                return value
            if isinstance(value, dict):
                return {k: cast(param, v, key=k) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, v) for v in value)
            return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in by_index:
                param = by_index[k]
                state[param] = cast(param, v)
            else:
                state[k] = v
        new_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            new_groups.append(saved)
        self.__setstate__({"state": state, "param_groups": new_groups})
