"""Graph and Node (the C++ ember::fx IR, bound in ember._C._fx) and Python code generation."""
import builtins
import keyword
import math
import operator

from .._C import _fx

Graph = _fx.Graph
Node = _fx.Node

# operator functions printed as Python syntax: binary "{} + {}", unary "-{}".
_BINARY = {
    operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/", operator.floordiv: "//",
    operator.mod: "%", operator.pow: "**", operator.matmul: "@", operator.and_: "&", operator.or_: "|",
    operator.xor: "^", operator.lshift: "<<", operator.rshift: ">>", operator.eq: "==", operator.ne: "!=",
    operator.lt: "<", operator.le: "<=", operator.gt: ">", operator.ge: ">=",
}
_UNARY = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}


def _ember_path(fn):
    """'ember.relu' when fn is reachable under that name from the ember package, else None."""
    import ember
    name = getattr(fn, "__name__", None)
    if not isinstance(name, str):
        return None
    for path, mod in (("ember", ember), ("ember.nn.functional", ember.nn.functional),
                      ("ember.special", ember.special), ("ember.fft", ember.fft), ("ember.linalg", ember.linalg)):
        if getattr(mod, name, None) is fn:
            return f"{path}.{name}"
    if getattr(operator, name, None) is fn:
        return f"operator.{name}"
    if getattr(builtins, name, None) is fn:
        return name
    if getattr(math, name, None) is fn:
        return f"math.{name}"
    return None


class _CodeGen:
    """Turns a graph into the source of `def forward(self, ...)` plus the globals it needs."""

    def __init__(self, graph):
        import ember
        self.graph = graph
        self.globals = {"ember": ember, "operator": operator, "math": math, "device": ember.device,
                        "inf": math.inf, "nan": math.nan}
        self._names_of = {}

    def global_name(self, obj, hint):
        key = id(obj)
        if key in self._names_of:
            return self._names_of[key]
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in hint) or "obj"
        if base[0].isdigit():
            base = "_" + base
        name, i = base, 0
        while name in self.globals or keyword.iskeyword(name) or hasattr(builtins, name):
            i += 1
            name = f"{base}_{i}"
        self.globals[name] = obj
        self._names_of[key] = name
        return name

    def render(self, a):
        import ember
        if isinstance(a, Node):
            return a.name
        t = type(a)
        if a is None or t is bool or t is int or t is str:
            return repr(a)
        if t is float:
            if math.isnan(a):
                return "nan"
            if math.isinf(a):
                return "inf" if a > 0 else "-inf"
            return repr(a)
        if t is tuple:
            inner = ", ".join(self.render(x) for x in a)
            return f"({inner},)" if len(a) == 1 else f"({inner})"
        if t is list:
            return "[" + ", ".join(self.render(x) for x in a) + "]"
        if t is dict and all(type(k) is str for k in a):
            return "{" + ", ".join(f"{k!r}: {self.render(v)}" for k, v in a.items()) + "}"
        if t is slice:
            return f"slice({self.render(a.start)}, {self.render(a.stop)}, {self.render(a.step)})"
        if a is Ellipsis:
            return "..."
        if isinstance(a, ember.dtype):
            return repr(a)
        if isinstance(a, ember.device):
            return f"device({str(a)!r})"
        if t is complex:
            return f"complex({a.real!r}, {a.imag!r})"
        return self.global_name(a, "_" + t.__name__.lower())

    def target_expr(self, fn):
        path = _ember_path(fn)
        if path is not None:
            return path
        return self.global_name(fn, getattr(fn, "__name__", "fn"))

    def call_expr(self, node):
        args, kwargs = node.args, node.kwargs
        r = self.render
        if node.op == "call_function":
            fn = node.target
            if fn in _BINARY and len(args) == 2 and not kwargs:
                return f"{r(args[0])} {_BINARY[fn]} {r(args[1])}"
            if fn in _UNARY and len(args) == 1 and not kwargs:
                return f"{_UNARY[fn]}{r(args[0])}"
            if fn is operator.getitem and len(args) == 2 and not kwargs:
                return f"{r(args[0])}[{self.index_expr(args[1])}]"
            if fn is builtins.getattr and len(args) == 2 and type(args[1]) is str and args[1].isidentifier() \
                    and not kwargs:
                return f"{r(args[0])}.{args[1]}"
            callee = self.target_expr(fn)
        elif node.op == "call_method":
            callee = f"{r(args[0])}.{node.target}"
            args = args[1:]
        else:  # call_module
            callee = _attr_path("self", node.target)
        parts = [r(a) for a in args] + [f"{k} = {r(v)}" for k, v in kwargs.items()]
        return f"{callee}({', '.join(parts)})"

    def index_expr(self, idx):
        def one(i):
            if type(i) is slice:
                s = "" if i.start is None else self.render(i.start)
                s += ":" + ("" if i.stop is None else self.render(i.stop))
                if i.step is not None:
                    s += ":" + self.render(i.step)
                return s
            return self.render(i)
        if type(idx) is tuple and idx:
            return ", ".join(one(i) for i in idx)
        return one(idx)

    def generate(self):
        nodes = self.graph.nodes
        # The last use of every value, to drop references as soon as possible (as torch.fx).
        last_use = {}
        for n in nodes:
            for i in n.all_input_nodes:
                last_use[i] = n
        frees = {}
        for v, user in last_use.items():
            frees.setdefault(user, []).append(v)
        params, body = [], []
        for n in nodes:
            if n.op == "placeholder":
                p = n.target
                if p.startswith("*"):
                    params.append(p)
                elif n.args:
                    params.append(f"{n.name} = {self.render(n.args[0])}")
                else:
                    params.append(n.name)
                continue
            if n.op == "output":
                body.append(f"return {self.render(n.args[0])}")
                break
            if n.op == "get_attr":
                expr = _attr_path("self", n.target)
            else:
                expr = self.call_expr(n)
            line = f"{n.name} = {expr}"
            dead = [v.name for v in frees.get(n, ())]
            if dead:
                line += ";  " + " = ".join(dead) + " = None"
            body.append(line)
        if not body or not body[-1].startswith("return"):
            body.append("return None")
        src = "\n\n\ndef forward(self" + "".join(", " + p for p in params) + "):\n"
        src += "".join(f"    {b}\n" for b in body)
        return src, self.globals


def _attr_path(base, target):
    """'self.layer1.conv' for "layer1.conv"; atoms that are not identifiers ("0") go through
    getattr: getattr(self.layer1, '0')."""
    expr = base
    for atom in target.split("."):
        expr = f"{expr}.{atom}" if atom.isidentifier() and not keyword.iskeyword(atom) else f"getattr({expr}, {atom!r})"
    return expr


def python_code(graph):
    """(source of `forward`, its globals) for a graph."""
    return _CodeGen(graph).generate()


def _graph_python_code(self, root_module="self"):
    src, glb = python_code(self)
    return _PythonCode(src, glb)


class _PythonCode:
    def __init__(self, src, globals_):
        self.src = src
        self.globals = globals_


Graph.python_code = _graph_python_code
Graph.__repr__ = Graph.__str__


def _node_is_impure(node):
    """Placeholders, outputs, in-place ops and setitem have effects beyond their value."""
    if node.op == "call_function" and not isinstance(node.target, str):
        t = node.target
        if t in (operator.setitem, operator.delitem, builtins.print) or getattr(t, "_fx_impure", False):
            return True
        name = getattr(t, "__name__", "")
        return name.endswith("_") and not name.endswith("__")
    if node.op == "call_module":
        return False
    return node._is_impure_default()


Node.is_impure = _node_is_impure


def _eliminate_dead_code(self):
    """Removes nodes whose value is unused and that have no side effects; True if any."""
    return _fx.Graph._eliminate_dead_code_cpp(self, _node_is_impure)


_fx.Graph._eliminate_dead_code_cpp = _fx.Graph.eliminate_dead_code
Graph.eliminate_dead_code = _eliminate_dead_code


# ---------------------------------------------------------------- JSON
def _resolve(path):
    """The object named by a dotted path such as 'ember.nn.functional.relu'."""
    import importlib
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for p in parts[i:]:
            obj = getattr(obj, p)
        return obj
    if len(parts) == 1 and hasattr(builtins, path):
        return getattr(builtins, path)
    raise ValueError(f"fx JSON: cannot resolve {path!r}")


def _callable_path(fn):
    path = _ember_path(fn)
    if path is None:
        mod, qual = getattr(fn, "__module__", None), getattr(fn, "__qualname__", None)
        if mod and qual and "<" not in qual:
            path = f"{mod}.{qual}"
    if path is not None and "." not in path:
        return path  # a builtin
    try:
        if path is not None and _resolve(path) is fn:
            return path
    except (ValueError, AttributeError):
        pass
    raise ValueError(f"fx JSON: cannot serialize {fn!r}: it is not reachable by an importable name")


def _json_encode(obj):
    """A JSON-able stand-in for a Python value inside a graph (the C++ writer calls this)."""
    if type(obj) is slice:
        return {"slice": [obj.start, obj.stop, obj.step]}
    if obj is Ellipsis:
        return {"ellipsis": True}
    if type(obj) is complex:
        return {"complex": [obj.real, obj.imag]}
    if type(obj) is int:  # beyond int64
        return {"bigint": str(obj)}
    if callable(obj):
        return {"callable": _callable_path(obj)}
    raise ValueError(f"fx JSON: cannot serialize a value of type {type(obj).__name__}: {obj!r}")


def _json_decode(v):
    if type(v) is dict and len(v) == 1:
        (tag, payload), = v.items()
        if tag == "slice" and type(payload) is list and len(payload) == 3:
            return slice(*payload)
        if tag == "ellipsis":
            return Ellipsis
        if tag == "complex" and type(payload) is list and len(payload) == 2:
            return complex(*payload)
        if tag == "bigint" and type(payload) is str:
            return int(payload)
        if tag == "callable" and type(payload) is str:
            return _resolve(payload)
    raise ValueError(f"fx JSON: malformed opaque value {v!r}")


def graph_to_json(graph):
    """The graph as JSON text (schema "ember.fx.graph", version 1): exact round trips through
    graph_from_json."""
    return _fx.graph_to_json(graph)


def graph_from_json(text):
    """A Graph from graph_to_json's text; ValueError for malformed input or a newer version."""
    return _fx.graph_from_json(text)


def graph_to_cpp(graph, function_name="forward"):
    """C++ source of a function running the graph through the dispatcher (see ember/fx.h).
    The graph must hold dispatcher ops only (what the C++ tracer records); for a graph of
    Python calls (layers, methods, Python functions) use lower_to_cpp."""
    for node in graph.nodes:
        what = None
        if node.op == "call_module":
            what = f"calls module '{node.target}'"
        elif node.op == "call_method" and node.target != "as_strided":
            what = f"calls method '{node.target}'"
        elif node.op == "call_function" and not isinstance(node.target, str):
            what = f"calls the Python function {getattr(node.target, '__qualname__', repr(node.target))}"
        if what is not None:
            raise ValueError(f"graph_to_cpp(): {node.op} node '{node.name}' {what}, which has no C++ form; "
                             "lower the module to dispatcher ops first with ember.fx.lower_to_cpp(module, "
                             "example_inputs)")
    return _fx.graph_to_cpp(graph, function_name)


def lower_to_cpp(module, example_inputs, function_name="forward"):
    """(source, attributes): C++ source of a function computing module(*example_inputs) (a
    GraphModule, any Module or function), and the tensors it reads (parameters, buffers,
    constants) by name. The module runs once under the C++ tracer on Meta copies of the
    inputs, so layers, methods and item accesses become the dispatcher ops they execute; like
    any trace it is specialized to the path those inputs take."""
    names = None
    graph = getattr(module, "graph", None)
    if isinstance(graph, Graph):
        names = [n.name for n in graph.nodes if n.op == "placeholder"]
    inputs = list(example_inputs)
    g, attrs = _fx.trace_dispatch(module, inputs, names if names and len(names) == len(inputs) else [])
    return _fx.graph_to_cpp(g, function_name), dict(attrs)
