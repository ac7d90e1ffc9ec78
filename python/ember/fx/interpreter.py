"""Interpreter (runs a GraphModule node by node) and Transformer (rebuilds its graph), each
subclassable per opcode (torch.fx.Interpreter / Transformer)."""
from .graph import Graph, Node
from .graph_module import GraphModule, _fetch
from .proxy import Proxy


_NO_NODES, _FLAT, _NESTED = 0, 1, 2


def _plan(node):
    """(op, target, args, kwargs, mode): the node read once, since reading it through the C++
    binding converts the whole argument tree. mode says how to fetch the arguments: none are
    nodes, the args are a flat tuple (and kwargs hold no nodes), or a general walk."""
    args, kwargs = node.args, node.kwargs
    if not node.all_input_nodes:
        mode = _NO_NODES
    elif all(type(a) is not tuple and type(a) is not list and type(a) is not dict and type(a) is not slice
             for a in args) and not any(type(v) is Node or type(v) in (tuple, list, dict, slice)
                                        for v in kwargs.values()):
        mode = _FLAT
    else:
        mode = _NESTED
    return node.op, node.target, args, kwargs, mode


class Interpreter:
    """Executes module.graph node by node. Override placeholder, get_attr, call_function,
    call_method, call_module, output (each takes target, args, kwargs) or run_node."""

    def __init__(self, module, garbage_collect_values=True):
        self.module = module
        self.submodules = dict(module.named_modules())
        self.garbage_collect_values = garbage_collect_values
        self.env = {}
        self._nodes = list(module.graph.nodes)
        self._plans = {n: _plan(n) for n in self._nodes}
        self._output = next((n for n in self._nodes if n.op == "output"), None)
        # Values to drop after each node: those whose last use it is.
        free_after = {}
        if garbage_collect_values:
            last = {}
            for n in self._nodes:
                for i in n.all_input_nodes:
                    last[i] = n
            for v, user in last.items():
                free_after.setdefault(user, []).append(v)
        self._schedule = [(n, tuple(free_after.get(n, ()))) for n in self._nodes]

    def run(self, *args, initial_env=None, enable_io_processing=True):
        self.env = env = dict(initial_env) if initial_env else {}
        self.args_iter = iter(args)
        run_node = self.run_node
        output = self._output
        for n, dead in self._schedule:
            if n in env:
                continue
            value = env[n] = run_node(n)
            if n is output:
                return value
            for v in dead:
                env.pop(v, None)
        return None

    def run_node(self, n):
        plan = self._plans.get(n)
        if plan is None:
            plan = self._plans[n] = _plan(n)
        op, target, args, kwargs, mode = plan
        if mode == _FLAT:
            env = self.env
            try:
                args = tuple([env[a] if type(a) is Node else a for a in args])
            except KeyError:
                args = self.map_nodes_to_values(args, n)
        elif mode == _NESTED:
            args = self.map_nodes_to_values(args, n)
            kwargs = self.map_nodes_to_values(kwargs, n)
        return getattr(self, op)(target, args, kwargs)

    # ------------------------------------------------------------ per opcode
    def placeholder(self, target, args, kwargs):
        if target.startswith("*"):
            return list(self.args_iter)
        try:
            return next(self.args_iter)
        except StopIteration:
            if args:
                return args[0]
            raise RuntimeError(f"Expected positional argument for parameter {target}, but one was not passed in!")

    def get_attr(self, target, args, kwargs):
        return self.fetch_attr(target)

    def call_function(self, target, args, kwargs):
        return target(*args, **kwargs)

    def call_method(self, target, args, kwargs):
        self_obj, *rest = args
        return getattr(self_obj, target)(*rest, **kwargs)

    def call_module(self, target, args, kwargs):
        return self.submodules[target](*args, **kwargs)

    def output(self, target, args, kwargs):
        return args[0]

    # ------------------------------------------------------------ helpers
    def fetch_attr(self, target):
        return _fetch(self.module, target, "get_attr")

    def fetch_args_kwargs_from_env(self, n):
        plan = self._plans.get(n)
        if plan is None:
            plan = self._plans[n] = _plan(n)
        _, _, args, kwargs, mode = plan
        if mode == _NO_NODES:
            return args, kwargs
        return self.map_nodes_to_values(args, n), self.map_nodes_to_values(kwargs, n)

    def map_nodes_to_values(self, a, n):
        env = self.env

        def load(x):
            t = type(x)
            if t is Node:
                try:
                    return env[x]
                except KeyError:
                    raise RuntimeError(f"Node {n.name} referenced nonexistent value {x.name}! Run Graph.lint() "
                                       "to diagnose such issues") from None
            if t is tuple:
                return tuple([load(y) for y in x])
            if t is list:
                return [load(y) for y in x]
            if t is dict:
                return {k: load(v) for k, v in x.items()}
            if t is slice:
                return slice(load(x.start), load(x.stop), load(x.step))
            return x
        return load(a)


class _TransformerTracer:
    """The proxy factory of a Transformer: nodes go into the new graph."""

    def __init__(self, graph):
        self.graph = graph

    def create_node(self, kind, target, args, kwargs, name=None, type_expr=None):
        return self.graph.create_node(kind, target, args, kwargs, name, type_expr)

    def create_proxy(self, kind, target, args, kwargs, name=None, type_expr=None):
        return Proxy(self.create_node(kind, target, self.create_arg(tuple(args)), self.create_arg(dict(kwargs)),
                                      name, type_expr), self)

    def create_arg(self, a):
        if isinstance(a, Proxy):
            return a.node
        t = type(a)
        if t is tuple or t is list:
            return t(self.create_arg(x) for x in a)
        if t is dict:
            return {k: self.create_arg(v) for k, v in a.items()}
        return a


class Transformer(Interpreter):
    """Builds a new GraphModule by running the graph on Proxies: each opcode method returns the
    Proxy of the node it emits (override them to rewrite)."""

    def __init__(self, module):
        super().__init__(module, garbage_collect_values=False)
        self.new_graph = Graph()
        self.tracer = _TransformerTracer(self.new_graph)

    def placeholder(self, target, args, kwargs):
        default = (args[0],) if args else ()
        return Proxy(self.new_graph.placeholder(target, None, *default), self.tracer)

    def get_attr(self, target, args, kwargs):
        return self.tracer.create_proxy("get_attr", target, args, kwargs)

    def call_function(self, target, args, kwargs):
        return self.tracer.create_proxy("call_function", target, args, kwargs)

    def call_method(self, target, args, kwargs):
        return self.tracer.create_proxy("call_method", target, args, kwargs)

    def call_module(self, target, args, kwargs):
        return self.tracer.create_proxy("call_module", target, args, kwargs)

    def transform(self):
        result = self.run(*[None] * sum(1 for n in self._nodes if n.op == "placeholder" and not n.args))
        self.new_graph.output(self.tracer.create_arg(result))
        return GraphModule(self.module, self.new_graph, type(self.module).__name__)

    def run(self, *args, **kwargs):
        # Placeholders make fresh proxies, whatever the (dummy) inputs.
        self.env = {}
        for n in self._nodes:
            if n.op == "output":
                args_, _ = self.fetch_args_kwargs_from_env(n)
                return args_[0]
            a, k = self.fetch_args_kwargs_from_env(n)
            self.env[n] = getattr(self, n.op)(n.target, a, k)
        return None


__all__ = ["Interpreter", "Transformer"]
