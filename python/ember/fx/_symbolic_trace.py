"""Symbolic tracing of Python functions and ember.nn.Modules (torch.fx.symbolic_trace)."""
import builtins
import functools
import inspect
import math
import operator
import types

from .graph import Graph, Node
from .proxy import Proxy, TraceError, _has_proxy

# Functions registered with wrap(): (globals dict of the defining module, name).
_wrapped_fns = []


def wrap(fn_or_name):
    """Makes a module-level function a leaf of symbolic tracing: calls to it with a Proxy
    argument are recorded as call_function nodes instead of being traced through. Call it at
    module scope, with the function or its name."""
    import sys
    frame = sys._getframe(1)
    if frame.f_code.co_name != "<module>":
        raise NotImplementedError("wrap must be called at the top level of a module")
    name = fn_or_name if isinstance(fn_or_name, str) else getattr(fn_or_name, "__name__", None)
    if not isinstance(name, str):
        raise TypeError("wrap() expects a function or a function name")
    _wrapped_fns.append((frame.f_globals, name))
    return fn_or_name


class _Patcher:
    """Swaps attributes for the duration of a trace and restores them, even on error."""

    def __init__(self):
        self._saved = []

    def patch(self, obj, name, new, is_dict=False):
        if is_dict:
            self._saved.append((obj, name, obj.get(name, _MISSING), True))
            obj[name] = new
        else:
            self._saved.append((obj, name, obj.__dict__.get(name, _MISSING) if isinstance(obj, type)
                                else getattr(obj, name, _MISSING), False))
            setattr(obj, name, new)

    def restore(self):
        for obj, name, old, is_dict in reversed(self._saved):
            if is_dict:
                if old is _MISSING:
                    obj.pop(name, None)
                else:
                    obj[name] = old
            elif old is _MISSING:
                delattr(obj, name)
            else:
                setattr(obj, name, old)
        self._saved.clear()


_MISSING = object()


def _leaf_function(orig):
    """A stand-in for orig: records a call_function when an argument is a Proxy."""
    @functools.wraps(orig)
    def wrapper(*args, **kwargs):
        if _has_proxy(args, kwargs):
            for a in list(args) + list(kwargs.values()):
                if isinstance(a, Proxy):
                    return a.tracer.create_proxy("call_function", orig, args, kwargs)
                if type(a) in (tuple, list):
                    for x in a:
                        if isinstance(x, Proxy):
                            return x.tracer.create_proxy("call_function", orig, args, kwargs)
        return orig(*args, **kwargs)
    wrapper.__fx_original__ = orig
    return wrapper


_wrapper_cache = {}


def _cached_wrapper(fn):
    w = _wrapper_cache.get(id(fn))
    if w is None or w.__fx_original__ is not fn:
        w = _wrapper_cache[id(fn)] = _leaf_function(fn)
    return w


def _autowrap_targets():
    """Callables of ember's namespaces that tracing keeps as leaves: Python functions and
    hand-written C functions (the generic ops use the __ember_function__ protocol)."""
    import ember
    out = []
    from ember import _C
    for mod in (ember, ember.nn.functional, ember.special, ember.fft, ember.linalg, _C):
        for name, fn in list(vars(mod).items()):
            if name.startswith("__") or isinstance(fn, type):
                continue
            # ember._C's functions: the Python layers (ember.nn.functional) call them by module
            # attribute, and so reach the wrapper too.
            if isinstance(fn, types.BuiltinFunctionType) or (mod is not _C and isinstance(fn, types.FunctionType)):
                out.append((mod, name, fn))
    return out


def _proxy_in_index(idx):
    """The first Proxy inside an index (a proxy, or tuples, lists and slices holding one)."""
    if isinstance(idx, Proxy):
        return idx
    if type(idx) is slice:
        idx = (idx.start, idx.stop, idx.step)
    if type(idx) in (tuple, list):
        for i in idx:
            p = _proxy_in_index(i)
            if p is not None:
                return p
    return None


def _tensor_getitem(orig):
    """Tensor.__getitem__ while a trace runs: a real tensor (a buffer, a constant) indexed by a
    traced value is recorded, as torch.fx records it through __torch_function__."""
    def getitem(self, idx):
        p = _proxy_in_index(idx)
        if p is not None:
            return p.tracer.create_proxy("call_function", operator.getitem, (self, idx), {})
        return orig(self, idx)
    return getitem


_class_attr_cache = []


def _layer_class_functions(targets):
    """(class, name, function) for the ember.nn layer classes that keep a functional as a class
    attribute (ReLU._fn = F.relu): a tracer that traces through such a layer must find the
    recording wrapper there too, as it does in the namespaces."""
    import ember.nn as nn
    if not _class_attr_cache:
        wanted = {id(fn): fn for _, _, fn in targets}
        seen, todo = set(), [nn.Module]
        while todo:
            cls = todo.pop()
            for sub in cls.__subclasses__():
                if sub not in seen:
                    seen.add(sub)
                    todo.append(sub)
        for cls in seen:
            if not cls.__module__.startswith("ember.nn"):
                continue
            for name, fn in vars(cls).items():
                if not name.startswith("__") and id(fn) in wanted and wanted[id(fn)] is fn:
                    _class_attr_cache.append((cls, name, fn))
        _class_attr_cache.append(None)  # computed (possibly empty)
    return [e for e in _class_attr_cache if e is not None]


class Tracer:
    """Records the operations a Module's forward (or a function) applies to its inputs.

    is_leaf_module decides which submodules are recorded as call_module nodes (by default
    the standard ember.nn layers) rather than traced through."""

    def __init__(self, autowrap_modules=(math,), autowrap_functions=()):
        self._autowrap_modules = tuple(autowrap_modules)
        self._autowrap_functions = tuple(autowrap_functions)
        self.graph = None
        self.root = None

    # ------------------------------------------------------------ customization points
    def is_leaf_module(self, m, module_qualified_name):
        import ember.nn as nn
        mod = type(m).__module__
        return (mod.startswith("ember.nn") and not mod.startswith("ember.fx")
                and not isinstance(m, nn.Sequential) and not isinstance(m, nn.ModuleList)
                and not isinstance(m, nn.ModuleDict))

    def path_of_module(self, mod):
        path = self._module_paths.get(id(mod))
        if path is None:
            raise NameError("module is not installed as a submodule")
        return path

    def call_module(self, m, forward, args, kwargs):
        module_qualified_name = self.path_of_module(m)
        if not self.is_leaf_module(m, module_qualified_name):
            return forward(*args, **kwargs)
        return self.create_proxy("call_module", module_qualified_name, args, kwargs)

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None):
        args_ = self.create_arg(tuple(args))
        kwargs_ = self.create_arg(dict(kwargs))
        node = self.create_node(kind, target, args_, kwargs_, name, type_expr)
        return self.proxy(node)

    def proxy(self, node):
        return Proxy(node, self)

    def create_arg(self, a):
        """A value as it is stored in a node's args: proxies become their nodes, parameters
        and tensors of the root get_attr nodes, other tensors attributes of the root."""
        import ember
        if isinstance(a, Proxy):
            return a.node
        t = type(a)
        if t is tuple or t is list:
            return t(self.create_arg(x) for x in a)
        if t is dict:
            return {k: self.create_arg(v) for k, v in a.items()}
        if t is slice:
            start, stop, step = (self.create_arg(x) for x in (a.start, a.stop, a.step))
            if any(isinstance(x, Node) for x in (start, stop, step)):
                # A bound computed by the trace (x[:, :p.size(0)]): the IR tracks nodes only
                # in its own argument kinds, so the slice is built by a node of its own.
                return self.create_node("call_function", builtins.slice, (start, stop, step), {})
            return a
        if isinstance(a, tuple) and hasattr(a, "_fields"):  # namedtuple
            return t(*[self.create_arg(x) for x in a])
        if isinstance(a, ember.Tensor):
            qualname = self._tensor_names.get(id(a))
            if qualname is None:
                i = 0
                while hasattr(self.root, f"_tensor_constant{i}") or f"_tensor_constant{i}" in self._constant_tensors:
                    i += 1
                qualname = f"_tensor_constant{i}"
                self._constant_tensors[qualname] = a
                self._tensor_names[id(a)] = qualname
            return self.create_node("get_attr", qualname, (), {})
        if isinstance(a, ember.nn.Module):
            raise TraceError(f"ember.fx: a Module ({type(a).__name__}) cannot be an argument of a traced call")
        return a

    def getattr(self, attr, attr_val, parameter_proxy_cache):
        """A module attribute read during tracing: parameters become get_attr proxies."""
        import ember.nn as nn
        if isinstance(attr_val, nn.Parameter):
            qualname = self._tensor_names.get(id(attr_val))
            if qualname is not None:
                if qualname not in parameter_proxy_cache:
                    parameter_proxy_cache[qualname] = self.proxy(self.create_node("get_attr", qualname, (), {}))
                return parameter_proxy_cache[qualname]
        return attr_val

    # ------------------------------------------------------------ the trace
    def trace(self, root, concrete_args=None):
        """The Graph of root's forward (root: an ember.nn.Module or a function)."""
        import ember
        import ember.nn as nn
        if isinstance(root, nn.Module):
            self.root = root
            fn = type(root).forward
            bound_self = (root,)
        elif callable(root):
            self.root = nn.Module()
            fn = root
            bound_self = ()
        else:
            raise TypeError(f"symbolic_trace(): expected a Module or a function, got {type(root).__name__}")
        self.graph = Graph()
        self._module_paths = {id(m): name for name, m in self.root.named_modules()}
        self._tensor_names = {}
        for name, p in self.root.named_parameters():
            self._tensor_names.setdefault(id(p), name)
        for name, b in self.root.named_buffers():
            self._tensor_names.setdefault(id(b), name)
        self._constant_tensors = {}
        concrete_args = dict(concrete_args or {})

        sig = inspect.signature(fn)
        params = list(sig.parameters.values())[len(bound_self):]
        unknown = set(concrete_args) - {p.name for p in params}
        if unknown:
            raise TypeError(f"symbolic_trace(): concrete_args names no parameter of the function: {sorted(unknown)}")
        args = []
        kwargs = {}
        for p in params:
            if p.kind == p.VAR_POSITIONAL or p.kind == p.VAR_KEYWORD:
                raise TraceError(f"symbolic_trace(): *args/**kwargs parameters ('{p.name}') are not supported")
            if p.name in concrete_args:
                value = concrete_args[p.name]
                self.graph.placeholder(p.name, None, value)
                val = value
            else:
                default = () if p.default is p.empty else (p.default,)
                val = self.proxy(self.graph.placeholder(p.name, None, *default))
            if p.kind == p.KEYWORD_ONLY:
                kwargs[p.name] = val
            else:
                args.append(val)

        patcher = _Patcher()
        parameter_proxy_cache = {}
        tracer = self
        orig_call = nn.Module.__call__
        orig_getattr = nn.Module.__getattr__

        def module_call(mod, *a, **k):
            def forward(*a2, **k2):
                return orig_call(mod, *a2, **k2)
            return tracer.call_module(mod, forward, a, k)

        def module_getattr(mod, name):
            return tracer.getattr(name, orig_getattr(mod, name), parameter_proxy_cache)

        try:
            patcher.patch(nn.Module, "__call__", module_call)
            patcher.patch(nn.Module, "__getattr__", module_getattr)
            targets = _autowrap_targets()
            for mod, name, fn_ in targets:
                patcher.patch(mod, name, _cached_wrapper(fn_))
            for cls, name, fn_ in _layer_class_functions(targets):
                patcher.patch(cls, name, _cached_wrapper(fn_))
            patcher.patch(ember.Tensor, "__getitem__", _tensor_getitem(ember.Tensor.__getitem__))
            for mod in self._autowrap_modules:
                for name, fn_ in list(vars(mod).items()):
                    if callable(fn_) and not name.startswith("_") and not isinstance(fn_, type):
                        patcher.patch(mod, name, _cached_wrapper(fn_))
            for glb, name in _wrapped_fns:
                if name in glb:
                    patcher.patch(glb, name, _cached_wrapper(glb[name]), is_dict=True)
                elif hasattr(builtins, name):
                    patcher.patch(glb, name, _cached_wrapper(getattr(builtins, name)), is_dict=True)
            fn_globals = getattr(fn, "__globals__", {})
            for f in self._autowrap_functions:
                name = f.__name__
                if fn_globals.get(name) is f:
                    patcher.patch(fn_globals, name, _cached_wrapper(f), is_dict=True)
            result = fn(*bound_self, *args, **kwargs)
        finally:
            patcher.restore()
        self.graph.output(self.create_arg(result))
        return self.graph


def symbolic_trace(root, concrete_args=None):
    """A GraphModule that computes what root (a Module or a function) computes, its forward
    recorded by a Tracer. concrete_args: parameters given fixed values (specializing the code)."""
    from .graph_module import GraphModule
    import ember.nn as nn
    tracer = Tracer()
    graph = tracer.trace(root, concrete_args)
    name = type(root).__name__ if isinstance(root, nn.Module) else getattr(root, "__name__", "GraphModule")
    # Tensors the code closed over become attributes of the traced module.
    return GraphModule(tracer.root, graph, name, _extra_tensors=tracer._constant_tensors)


__all__ = ["Tracer", "symbolic_trace", "wrap", "TraceError"]
