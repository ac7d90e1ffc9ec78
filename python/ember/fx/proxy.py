"""Proxy: the stand-in value symbolic tracing passes through a program; every operation on it
records a node instead of computing (torch.fx.Proxy)."""
import dis
import inspect
import operator
import os
import sys

from .graph import Node

_FX_DIR = os.path.dirname(os.path.abspath(__file__))


class TraceError(ValueError):
    """A program cannot be traced symbolically (control flow or conversion on a Proxy)."""


def _user_frame():
    """The innermost frame outside ember.fx and ember's own Python package internals."""
    f = sys._getframe(1)
    while f is not None and os.path.dirname(os.path.abspath(f.f_code.co_filename)) == _FX_DIR:
        f = f.f_back
    return f


def _where(frame):
    if frame is None:
        return ""
    info = inspect.getframeinfo(frame, context=1)
    code = info.code_context[0].strip() if info.code_context else ""
    return f"\n  File \"{info.filename}\", line {info.lineno}, in {info.function}\n    {code}"


def _raise_trace_error(what):
    raise TraceError(what + _where(_user_frame()))


class Proxy:
    """A value being traced; `node` is the graph node that produces it."""

    __slots__ = ("node", "tracer")

    def __init__(self, node, tracer):
        self.node = node
        self.tracer = tracer

    def __repr__(self):
        return f"Proxy({self.node.name})"

    def __getattr__(self, k):
        # Deferred: `x.view(...)` becomes a call_method, `x.shape` a getattr call.
        return Attribute(self, k)

    def __call__(self, *args, **kwargs):
        return self.tracer.create_proxy("call_method", "__call__", (self,) + args, kwargs)

    def __iter__(self):
        # `a, b = proxy`: the unpacking's length is in the caller's bytecode.
        frame = _user_frame()
        if frame is not None:
            # UNPACK_SEQUENCE itself calls __iter__, so it is the frame's current instruction.
            for inst in dis.get_instructions(frame.f_code):
                if inst.offset == frame.f_lasti:
                    if inst.opname == "UNPACK_SEQUENCE":
                        return iter([self[j] for j in range(inst.argval)])
                    break
        _raise_trace_error("Proxy object cannot be iterated. This can be attempted when the Proxy is used in a "
                           "loop or as a *args or **kwargs function argument. See the ember.fx docs on "
                           "docs/FX.md for a more detailed explanation of what types of control flow can be "
                           "traced, and check out the Proxy docstring for help troubleshooting Proxy iteration "
                           "errors")

    def __bool__(self):
        _raise_trace_error("symbolically traced variables cannot be used as inputs to control flow")

    def __len__(self):
        _raise_trace_error("'len' is not supported in symbolic tracing by default. If you want this call to be "
                           "recorded, please call ember.fx.wrap('len') at module scope")

    def __index__(self):
        _raise_trace_error("symbolically traced variables cannot be used as an index or a Python int")

    def __int__(self):
        _raise_trace_error("symbolically traced variables cannot be converted to int")

    def __float__(self):
        _raise_trace_error("symbolically traced variables cannot be converted to float")

    def __contains__(self, item):
        _raise_trace_error("symbolically traced variables cannot be used with 'in'")

    def __hash__(self):
        return id(self)

    def __setitem__(self, key, value):
        self.tracer.create_proxy("call_function", operator.setitem, (self, key, value), {})

    @classmethod
    def __ember_function__(cls, func, types, args=(), kwargs=None):
        """Called by ember's op bindings when an argument is a Proxy: records the call."""
        tracer = _find_tracer(args, kwargs or {})
        return tracer.create_proxy("call_function", func, args, kwargs or {})


def _find_tracer(args, kwargs):
    found = []

    def visit(a):
        if isinstance(a, Proxy):
            found.append(a.tracer)
        elif isinstance(a, (tuple, list)):
            for x in a:
                visit(x)
        elif isinstance(a, dict):
            for x in a.values():
                visit(x)
    visit(args)
    visit(kwargs)
    if not found:
        raise RuntimeError("ember.fx: no Proxy among the arguments")
    return found[0]


def _has_proxy(args, kwargs):
    for a in args:
        if isinstance(a, Proxy) or (type(a) in (tuple, list) and _has_proxy(a, {})):
            return True
    for a in kwargs.values():
        if isinstance(a, Proxy) or (type(a) in (tuple, list) and _has_proxy(a, {})):
            return True
    return False


# Methods that would need a concrete value.
_CONCRETE_METHODS = {"item", "tolist", "numpy", "__array__", "data_ptr"}


class Attribute(Proxy):
    """`proxy.name`: a call_method when called, a getattr node when used as a value."""

    __slots__ = ("root", "attr", "_node")

    def __init__(self, root, attr):
        object.__setattr__(self, "root", root)
        object.__setattr__(self, "attr", attr)
        object.__setattr__(self, "tracer", root.tracer)
        object.__setattr__(self, "_node", None)

    @property
    def node(self):
        if self._node is None:
            object.__setattr__(self, "_node", self.tracer.create_proxy(
                "call_function", getattr, (self.root, self.attr), {}).node)
        return self._node

    def __call__(self, *args, **kwargs):
        if self.attr in _CONCRETE_METHODS:
            _raise_trace_error(f"calling .{self.attr}() on a symbolically traced value needs its concrete value, "
                               "which tracing does not have")
        return self.tracer.create_proxy("call_method", self.attr, (self.root,) + args, kwargs)


def _binary(op, reflected):
    if reflected:
        def impl(self, other):
            return self.tracer.create_proxy("call_function", op, (other, self), {})
    else:
        def impl(self, other):
            return self.tracer.create_proxy("call_function", op, (self, other), {})
    return impl


def _unary(op):
    def impl(self):
        return self.tracer.create_proxy("call_function", op, (self,), {})
    return impl


for _name, _op in [("add", operator.add), ("sub", operator.sub), ("mul", operator.mul),
                   ("truediv", operator.truediv), ("floordiv", operator.floordiv), ("mod", operator.mod),
                   ("pow", operator.pow), ("matmul", operator.matmul), ("and", operator.and_),
                   ("or", operator.or_), ("xor", operator.xor), ("lshift", operator.lshift),
                   ("rshift", operator.rshift)]:
    setattr(Proxy, f"__{_name}__", _binary(_op, False))
    setattr(Proxy, f"__r{_name}__", _binary(_op, True))
for _name, _op in [("eq", operator.eq), ("ne", operator.ne), ("lt", operator.lt), ("le", operator.le),
                   ("gt", operator.gt), ("ge", operator.ge), ("getitem", operator.getitem)]:
    setattr(Proxy, f"__{_name}__", _binary(_op, False))
for _name, _op in [("neg", operator.neg), ("pos", operator.pos), ("invert", operator.invert), ("abs", abs)]:
    setattr(Proxy, f"__{_name}__", _unary(_op))
Proxy.__hash__ = lambda self: id(self)  # __eq__ above would otherwise remove hashing
del _name, _op

__all__ = ["Proxy", "Attribute", "TraceError", "Node"]
