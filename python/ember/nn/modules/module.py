"""Module: the base class of layers (torch.nn.Module), with PyTorch 1.13's semantics.

Parameters, buffers and submodules live in three ordered dicts that __setattr__ and
__getattr__ route to; everything else (state_dict, hooks, repr, dtype conversion) walks
them. One deliberate difference: load_state_dict checks everything before copying, so a
module is left as it was when loading raises.
"""
import functools
import itertools
import warnings
import weakref
from collections import OrderedDict, namedtuple

from ... import _C
from ..._C import Tensor
from ...autograd import Function, no_grad
from ..parameter import Parameter, is_lazy

# Only Module reaches ember.nn (modules/__init__ star-imports this file), as in torch.nn; the
# global hook functions are ember.nn.modules.module.register_module_*.
__all__ = ["Module"]

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


def _typename(obj):
    """torch.typename: 'ember.FloatTensor' for tensors, the qualified class name otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", "") or ""
    name = getattr(type(obj), "__qualname__", type(obj).__name__)
    return name if module in ("builtins", "__builtin__", "") else module + "." + name


def _name_layer(module, error):
    """Prefixes an error raised inside one of Ember's own layers with that layer, e.g.
    'Linear(in_features=4, out_features=3, bias=True): mat1 and mat2 shapes cannot be
    multiplied (2x5 and 4x3)'. Only the innermost module decides, and a user-defined one
    adds nothing: its messages are its own to write."""
    if getattr(error, "_ember_layer", False):
        return
    error._ember_layer = True
    layer = type(module) is not Module and type(module).__module__.startswith("ember.nn.")
    if layer and not isinstance(error, NotImplementedError) and error.args and isinstance(error.args[0], str):
        line = repr(module).split("\n", 1)[0]
        error.args = (f"{line.rstrip('(')}: {error.args[0]}",) + error.args[1:]


class RemovableHandle:
    """What the register_*_hook methods return (torch.utils.hooks.RemovableHandle)."""

    next_id = 0

    def __init__(self, hooks_dict):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id)

    def __setstate__(self, state):
        self.hooks_dict_ref = weakref.ref(OrderedDict() if state[0] is None else state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class _LoadErrors(list):
    """error_msgs of a load_state_dict call: Module._load_from_state_dict queues its copies
    here instead of making them, so that nothing changes unless every check passes."""

    def __init__(self):
        super().__init__()
        self.pending = []


def _addindent(s_, num_spaces):
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    return first + "\n" + "\n".join((num_spaces * " ") + line for line in s)


class _WrappedHook:
    """What register_backward_hook puts on a grad_fn: hook(module, grad_input, grad_output)
    with the module looked up through a weak reference (the graph must not keep it alive)."""

    def __init__(self, hook, module=None):
        self.hook = hook
        functools.update_wrapper(self, hook)  # its __name__ names it in the node hook's errors
        self.module = None if module is None else weakref.ref(module)

    def __call__(self, *args):
        if self.module is None:
            return self.hook(*args)
        module = self.module()
        if module is None:
            raise RuntimeError("You are trying to call the hook of a dead Module!")
        return self.hook(module, *args)

    def __getstate__(self):
        return {"hook": self.hook, "module": None if self.module is None else self.module()}

    def __setstate__(self, state):
        self.hook = state["hook"]
        self.module = None if state["module"] is None else weakref.ref(state["module"])


_DEPRECATED = " is deprecated and will be removed in future versions. "
_USE_FULL = "Please use register_full_backward_hook to get the documented behavior."


def _non_full_hook_problem(inputs, result, grad_fn):
    """Why a non-full backward hook on grad_fn (that of the first output) misses gradients of
    a module called with `inputs` that returned `result`, in PyTorch 1.13's words; None when
    it sees them all."""
    outputs = (result,) if isinstance(result, Tensor) else result
    if not (isinstance(outputs, tuple) and all(isinstance(o, Tensor) for o in outputs)):
        return ("Using non-full backward hooks on a Module that does not return a single Tensor or a tuple of "
                "Tensors" + _DEPRECATED + "This hook will be missing some of the grad_output. " + _USE_FULL)
    inputs = (inputs,) if isinstance(inputs, Tensor) else inputs
    if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
        return ("Using non-full backward hooks on a Module that does not take as input a single Tensor or a tuple "
                "of Tensors" + _DEPRECATED + "This hook will be missing some of the grad_input. " + _USE_FULL)
    output_nodes = {o.grad_fn for o in outputs} - {None}
    if len(output_nodes) > 1:
        return ("Using a non-full backward hook when outputs are generated by different autograd Nodes"
                + _DEPRECATED + "This hook will be missing some grad_output. " + _USE_FULL)
    if output_nodes != {grad_fn}:
        return ("Using a non-full backward hook when outputs are nested in python data structure" + _DEPRECATED
                + "This hook will be missing some grad_output.")
    # The node's inputs must be exactly the module's inputs' nodes (leaves have none, so a
    # module whose inputs are leaves always warns, as in PyTorch).
    if {i.grad_fn for i in inputs} - {None} != {fn for fn, _ in grad_fn.next_functions}:
        return ("Using a non-full backward hook when the forward contains multiple autograd Nodes" + _DEPRECATED
                + "This hook will be missing some grad_input. " + _USE_FULL)
    return None


# ---------------------------------------------------------------- global hooks
_global_backward_hooks = OrderedDict()
# Whether the global backward hooks are full ones (True), the deprecated kind (False) or none
# yet (None): one kind at a time, as in PyTorch.
_global_is_full_backward_hook = None
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()


def register_module_forward_pre_hook(hook):
    """A forward pre-hook run for every module before its own."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook):
    """A forward hook run for every module before its own."""
    handle = RemovableHandle(_global_forward_hooks)
    _global_forward_hooks[handle.id] = hook
    return handle


def register_module_backward_hook(hook):
    """A (deprecated, non-full) backward hook common to all modules: see
    Module.register_backward_hook."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is True:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    _global_is_full_backward_hook = False
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook):
    """A full backward hook run for every module before its own."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is False:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    _global_is_full_backward_hook = True
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


# ---------------------------------------------------------------- full backward hooks
class BackwardHookFunction(Function):
    """Identity on a group of tensors; its backward hands their gradients to `hook`. One such
    node on the module's inputs and one on its outputs bracket the module's graph."""

    @staticmethod
    def forward(ctx, hook, *tensors):
        ctx.hook = hook
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.hook(grads))


class _BackwardHook:
    """The state of one call of a module with full backward hooks: the gradients of its
    outputs (seen first in backward) wait here for those of its inputs."""

    def __init__(self, module, user_hooks):
        self.module, self.user_hooks = module, user_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_index = self.output_index = None

    @staticmethod
    def _pack(indices, values, size):
        res = [None] * size
        for i, v in zip(indices, values):
            res[i] = v
        return tuple(res)

    def _wrap(self, args, on_grads):
        """Passes the tensors of args through one BackwardHookFunction; returns the new args
        and the positions of the tensors (None when none requires grad or grad mode is off:
        then no node is made)."""
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        needs = [args[i].requires_grad for i in index]
        if not (any(needs) and _C._is_grad_enabled()):
            return args, None
        new = BackwardHookFunction.apply(on_grads, *[args[i] for i in index])
        out = list(args)
        for i, t, n in zip(index, new, needs):
            # Ember's Function marks every output as requiring grad; keep the inputs' flags.
            out[i] = t if n else args[i]
        return tuple(out), index

    def _on_input_grads(self, grads):
        # Tensors that did not require grad get zeros here, as in PyTorch (materialized grads).
        if self.grad_outputs is None:  # gradient reached the input without passing the output
            return grads
        res = self._pack(self.input_index, grads, self.n_inputs)
        for hook in self.user_hooks:
            out = hook(self.module, res, self.grad_outputs)
            if out is None:
                continue
            if not isinstance(out, tuple):
                out = tuple(out) if isinstance(out, list) else (out,)
            if len(out) != len(res):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                   f"got {len(out)}, but expected {len(res)}")
            res = out
        self.grad_outputs = None
        return [res[i] for i in self.input_index]

    def _on_output_grads(self, grads):
        self.grad_outputs = self._pack(self.output_index, grads, self.n_outputs)
        if self.input_index is None:  # no input requires grad: the hooks run from here
            grad_inputs = self._pack([], [], self.n_inputs)
            for hook in self.user_hooks:
                res = hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all gradients.")
            self.grad_outputs = None
        return grads

    def setup_input_hook(self, args):
        res, self.input_index = self._wrap(args, self._on_input_grads)
        self.n_inputs = len(args)
        return res

    def setup_output_hook(self, result):
        is_tuple = isinstance(result, tuple)
        args = result if is_tuple else (result,)
        res, self.output_index = self._wrap(args, self._on_output_grads)
        self.n_outputs = len(args)
        return res if is_tuple else res[0]


def _forward_unimplemented(self, *input):
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


def _parse_to(*args, **kwargs):
    """Module.to's arguments: (device, dtype, non_blocking, memory_format) as torch._C._nn._parse_to."""
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    memory_format = kwargs.pop("memory_format", None)
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError(f"to() received an invalid combination of arguments: unexpected {sorted(kwargs)}")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        t = rest.pop(0)
        device, dtype = t.device, t.dtype
    elif rest and isinstance(rest[0], _C.dtype):
        dtype = rest.pop(0)
    elif rest and (rest[0] is None or isinstance(rest[0], (str, int, _C.device))):
        device = rest.pop(0)
        if rest and (rest[0] is None or isinstance(rest[0], _C.dtype)):
            dtype = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest:
        raise TypeError("to() received an invalid combination of arguments: "
                        + ", ".join(type(a).__name__ for a in args))
    if device is not None and not isinstance(device, _C.device):
        device = _C.device(device)
    return device, dtype, non_blocking, memory_format


class Module:
    """Base class of every layer. Subclasses call super().__init__() and define forward."""

    dump_patches = False
    _version = 1
    training: bool

    def __init__(self):
        # object.__setattr__ skips Module.__setattr__'s routing for the bookkeeping itself.
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_backward_hooks", OrderedDict())
        object.__setattr__(self, "_is_full_backward_hook", None)
        object.__setattr__(self, "_forward_hooks", OrderedDict())
        object.__setattr__(self, "_forward_pre_hooks", OrderedDict())
        object.__setattr__(self, "_state_dict_hooks", OrderedDict())
        object.__setattr__(self, "_load_state_dict_pre_hooks", OrderedDict())
        object.__setattr__(self, "_load_state_dict_post_hooks", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())

    forward = _forward_unimplemented

    # ------------------------------------------------------------ registration
    def register_buffer(self, name, tensor, persistent=True):
        """Adds a buffer (state that is not a parameter); non-persistent ones stay out of
        state_dict."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        elif not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        elif "." in name:
            raise KeyError('buffer name can\'t contain "."')
        elif name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        elif hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        elif tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(ember Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Adds a parameter; None registers the name without a tensor."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        elif not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        elif "." in name:
            raise KeyError('parameter name can\'t contain "."')
        elif name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        elif hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(ember.nn.Parameter or None required)")
        elif param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters "
                             f"must be created explicitly. To express '{name}' as a function of another "
                             "Tensor, compute the value in the forward() method.")
        else:
            self._parameters[name] = param

    def add_module(self, name, module):
        """Adds a child module (None keeps the name without a module)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        elif not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        elif hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        elif "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        elif name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    def register_module(self, name, module):
        """Alias of add_module."""
        self.add_module(name, module)

    def get_submodule(self, target):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    def get_extra_state(self):
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called. "
                           "Please file an issue to report this bug.")

    def set_extra_state(self, state):
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called. "
                           "Please file an issue to report this bug.")

    # ------------------------------------------------------------ conversion
    def _apply(self, fn):
        for module in self.children():
            module._apply(fn)
        for key, param in self._parameters.items():
            if param is None:
                continue
            # The Parameter object stays (optimizers hold it); its data is replaced. Ember's
            # `.data =` also resets requires_grad and grad, so both are put back.
            with no_grad():
                applied = fn(param)
            requires_grad, grad = param.requires_grad, param.grad
            if applied is not param:
                param.data = applied
                if requires_grad:
                    # Through the class: an uninitialized (lazy) parameter refuses its methods.
                    Tensor.requires_grad_(param, True)
            if grad is not None:
                with no_grad():
                    grad_applied = fn(grad)
                param.grad = grad_applied if grad_applied is not grad else grad
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn):
        """Calls fn on every submodule (children first) and then on self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def cpu(self):
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        return self._apply(lambda t: t.cuda(device) if device is not None else t.cuda())

    def type(self, dst_type):
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to_empty(self, *, device):
        return self._apply(lambda t: _C.empty_like(t, device=device))

    def to(self, *args, **kwargs):
        """to(device=None, dtype=None, non_blocking=False), to(dtype), to(tensor): moves
        parameters and buffers, casting only the floating and complex ones."""
        device, dtype, non_blocking, _ = _parse_to(*args, **kwargs)
        if dtype is not None:
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError("nn.Module.to only accepts floating point or complex "
                                f"dtypes, but got desired dtype={dtype}")

        def convert(t):
            kw = {}
            if device is not None:
                kw["device"] = device
            if dtype is not None and (t.is_floating_point() or t.is_complex()):
                kw["dtype"] = dtype
            return t.to(**kw) if kw else t

        return self._apply(convert)

    # ------------------------------------------------------------ hooks
    def register_backward_hook(self, hook):
        """hook(module, grad_input, grad_output) -> new grad_input or None: the deprecated
        backward hook, kept with PyTorch 1.13's behaviour. Each forward registers it on the
        grad_fn of the module's (first) output, the last op of forward; grad_input is what that
        node computes for its own inputs (which may not be the module's), grad_output what
        flows into it. register_full_backward_hook is the documented kind."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a "
                               "single Module. Please use only one of them.")
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_full_backward_hook(self, hook):
        """hook(module, grad_input, grad_output) -> new grad_input or None, run when the
        gradients of the module's inputs are computed."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a "
                               "single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_forward_pre_hook(self, hook):
        """hook(module, input) -> new input or None, run before forward."""
        handle = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle.id] = hook
        return handle

    def register_forward_hook(self, hook):
        """hook(module, input, output) -> new output or None, run after forward."""
        handle = RemovableHandle(self._forward_hooks)
        self._forward_hooks[handle.id] = hook
        return handle

    def _call_impl(self, *input, **kwargs):
        try:
            if not (self._backward_hooks or self._forward_hooks or self._forward_pre_hooks
                    or _global_backward_hooks or _global_forward_hooks or _global_forward_pre_hooks):
                return self.forward(*input, **kwargs)
            return self._call_with_hooks(input, kwargs)
        except (RuntimeError, ValueError, TypeError, IndexError, AssertionError) as e:
            _name_layer(self, e)
            raise

    def _call_with_hooks(self, input, kwargs):
        for hook in (*_global_forward_pre_hooks.values(), *self._forward_pre_hooks.values()):
            result = hook(self, input)
            if result is not None:
                input = result if isinstance(result, tuple) else (result,)
        full_backward_hooks, non_full_backward_hooks = self._get_backward_hooks()
        bw_hook = None
        if full_backward_hooks:
            bw_hook = _BackwardHook(self, full_backward_hooks)
            input = bw_hook.setup_input_hook(input)
        result = self.forward(*input, **kwargs)
        for hook in (*_global_forward_hooks.values(), *self._forward_hooks.values()):
            hook_result = hook(self, input, result)
            if hook_result is not None:
                result = hook_result
        if bw_hook:
            result = bw_hook.setup_output_hook(result)
        if non_full_backward_hooks:
            var = result
            while not isinstance(var, Tensor):
                if isinstance(var, dict):
                    var = next(v for v in var.values() if isinstance(v, Tensor))
                else:
                    var = var[0]
            grad_fn = var.grad_fn
            if grad_fn is not None:
                for hook in non_full_backward_hooks:
                    grad_fn.register_hook(_WrappedHook(hook, self))
                self._maybe_warn_non_full_backward_hook(input, result, grad_fn)
        return result

    def _get_backward_hooks(self):
        """(full, non-full) backward hooks of this module and the global ones."""
        full, non_full = [], []
        if _global_is_full_backward_hook is True:
            full += _global_backward_hooks.values()
        elif _global_is_full_backward_hook is False:
            non_full += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full += self._backward_hooks.values()
        elif self._is_full_backward_hook is False:
            non_full += self._backward_hooks.values()
        return full, non_full

    def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn):
        """PyTorch's UserWarning where the deprecated hook sees less than a full hook would."""
        message = _non_full_hook_problem(inputs, result, grad_fn)
        if message:
            warnings.warn(message)

    __call__ = _call_impl

    # ------------------------------------------------------------ attributes
    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_forward_pre_hooks", "_state_dict_hooks", "_load_state_dict_pre_hooks",
                     "_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                object.__setattr__(self, name, OrderedDict())
        if "_non_persistent_buffers_set" not in self.__dict__:
            object.__setattr__(self, "_non_persistent_buffers_set", set())
        if "_is_full_backward_hook" not in self.__dict__:
            object.__setattr__(self, "_is_full_backward_hook", None)

    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        def remove_from(*dicts_or_sets):
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(ember.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, self._parameters, self._buffers, self._non_persistent_buffers_set)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                    "(ember.nn.Module or None expected)")
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                if buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                        "(ember.Tensor or None expected)")
                    buffers[name] = value
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    # ------------------------------------------------------------ state_dict
    def _register_state_dict_hook(self, hook):
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Saves this module's own parameters and persistent buffers (not its children's)."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if getattr(self.__class__, "get_extra_state", Module.get_extra_state) is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An OrderedDict of parameters and persistent buffers by dotted name (detached unless
        keep_vars); its `_metadata` holds each module's `version`."""
        if args:
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
            warnings.warn("Positional args are being deprecated, use kwargs instead.")
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            hook_result = hook(self, destination, prefix, local_metadata)
            if hook_result is not None:
                destination = hook_result
        return destination

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = functools.partial(hook, self) if with_module else hook
        return handle

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys), run after the module's state is loaded."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                              missing_keys, unexpected_keys, error_msgs):
        """Loads this module's own entries of state_dict (not its children's). Under
        load_state_dict the copies are queued on error_msgs and made only when no error
        was found anywhere; called directly, it copies at once as PyTorch's does."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        pending = getattr(error_msgs, "pending", None)
        persistent_buffers = {k: v for k, v in self._buffers.items()
                              if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent_buffers.items())
                       if v is not None}
        for name, param in local_state.items():
            key = prefix + name
            if key in state_dict:
                input_param = state_dict[key]
                if not isinstance(input_param, Tensor):
                    error_msgs.append(f'While copying the parameter named "{key}", expected ember.Tensor or '
                                      f"Tensor-like object from checkpoint but received {type(input_param)}")
                    continue
                # An uninitialized (lazy) parameter has no shape to check: loading one into an
                # initialized module raises when input_param.shape is read, as in PyTorch.
                is_param_lazy = is_lazy(param)
                if not is_param_lazy and len(param.shape) == 0 and len(input_param.shape) == 1:
                    input_param = input_param[0]
                if not is_param_lazy and input_param.shape != param.shape:
                    error_msgs.append(f"size mismatch for {key}: copying a param with shape {input_param.shape} "
                                      f"from checkpoint, the shape in current model is {param.shape}.")
                    continue
                if pending is not None:
                    pending.append((key, param, input_param))
                else:
                    _copy_param(key, param, input_param, error_msgs)
            elif strict:
                missing_keys.append(key)
        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if getattr(self.__class__, "set_extra_state", Module.set_extra_state) is not Module.set_extra_state:
            if extra_state_key in state_dict:
                if pending is not None:
                    pending.append((extra_state_key, self, state_dict[extra_state_key]))
                else:
                    self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra_state_key:
                    input_name = key[len(prefix):].split(".", 1)[0]
                    if input_name not in self._modules and input_name not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True):
        """Copies state_dict's entries into the parameters and buffers. With strict, missing or
        unexpected keys are errors; any error raises RuntimeError and leaves the module as it
        was. Returns _IncompatibleKeys(missing_keys, unexpected_keys)."""
        if not isinstance(state_dict, dict) and not hasattr(state_dict, "keys"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], _LoadErrors()
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata
        post_hooks = []

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)},
                         child_prefix)
            post_hooks.extend((module, h) for h in module._load_state_dict_post_hooks.values())

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if not error_msgs:
            for key, target, value in error_msgs.pending:
                if isinstance(target, Module):
                    target.set_extra_state(value)
                else:
                    _copy_param(key, target, value, error_msgs)
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)))
        incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)
        for module, hook in post_hooks:
            out = hook(module, incompatible_keys)
            assert out is None, ("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                 "expected to return new values, if incompatible_keys need to be modified, "
                                 "it should be done inplace.")
        return incompatible_keys

    # ------------------------------------------------------------ iteration
    def _named_members(self, get_members_fn, prefix="", recurse=True):
        memo = set()
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                memo.add(v)
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True):
        """(name, parameter) pairs; a parameter shared by several modules comes once."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix=prefix, recurse=recurse)

    def buffers(self, recurse=True):
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True):
        yield from self._named_members(lambda m: m._buffers.items(), prefix=prefix, recurse=recurse)

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_children(self):
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            submodule_prefix = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # ------------------------------------------------------------ modes and grads
    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=False):
        """Zeroes the parameters' gradients (or drops them with set_to_none)."""
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def share_memory(self):
        # Nothing to move (no shared-memory tensors here); an uninitialized (lazy) parameter or
        # buffer refuses, as in PyTorch.
        for t in itertools.chain(self.parameters(), self.buffers()):
            if is_lazy(t):
                t.share_memory_()
        return self

    # ------------------------------------------------------------ printing
    def _get_name(self):
        return self.__class__.__name__

    def extra_repr(self):
        """The layer's own line in repr (its arguments); subclasses override it."""
        return ""

    def __repr__(self):
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            child_lines.append("(" + key + "): " + _addindent(repr(module), 2))
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        return main_str + ")"

    def __dir__(self):
        keys = (dir(self.__class__) + list(self.__dict__.keys()) + list(self._parameters.keys())
                + list(self._modules.keys()) + list(self._buffers.keys()))
        return sorted(key for key in keys if not key[0].isdigit())


def _copy_param(key, param, input_param, error_msgs):
    try:
        with no_grad():
            param.copy_(input_param)
    except Exception as ex:
        error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                          f"{param.size()} and whose dimensions in the checkpoint are {input_param.size()}, "
                          f"an exception occurred : {ex.args}.")
