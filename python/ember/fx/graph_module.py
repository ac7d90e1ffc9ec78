"""GraphModule: a Graph with the module that owns its parameters, buffers and submodules, made
callable through generated Python code (torch.fx.GraphModule)."""
import linecache
import os

from ..nn.modules.module import Module
from .graph import Graph, python_code

_source_counter = [0]


def _split(target):
    *prefix, field = target.split(".")
    return prefix, field


def _fetch(root, target, what):
    obj = root
    for i, atom in enumerate(target.split(".")):
        if isinstance(obj, dict):
            if atom not in obj:
                break
            obj = obj[atom]
            continue
        if not hasattr(obj, atom):
            raise RuntimeError(f"Node referenced nonexistent target {target!r} ({what}): "
                               f"{'.'.join(target.split('.')[:i]) or 'the root'} has no attribute {atom!r}")
        obj = getattr(obj, atom)
    return obj


def _install(gm, target, value):
    """Sets gm.<a.b.c> = value, creating empty Modules for missing intermediate levels."""
    prefix, field = _split(target)
    mod = gm
    for atom in prefix:
        sub = getattr(mod, atom, None) if atom in mod._modules or hasattr(mod, atom) else None
        if sub is None:
            sub = Module()
            mod.add_module(atom, sub)
        mod = sub
    from ..nn.parameter import Parameter
    import ember
    if isinstance(value, Module):
        mod.add_module(field, value)
    elif isinstance(value, Parameter):
        mod.register_parameter(field, value)
    elif isinstance(value, ember.Tensor):
        mod.register_buffer(field, value)
    else:
        setattr(mod, field, value)


class GraphModule(Module):
    """A module whose forward is `graph` (regenerated as Python by recompile()). The
    submodules, parameters and buffers the graph uses are copied from `root` (a Module, or a
    dict of qualified name to object); a target root lacks is a RuntimeError."""

    def __new__(cls, *args, **kwargs):
        # Each instance gets its own class, so that its generated forward is a class attribute.
        if cls.__dict__.get("_fx_per_instance", False) is False:
            cls = type(cls.__name__, (cls,), {"_fx_per_instance": True})
        return super().__new__(cls)

    def __init__(self, root, graph, class_name="GraphModule", _extra_tensors=None):
        super().__init__()
        type(self).__name__ = class_name
        type(self).__qualname__ = class_name
        if not isinstance(graph, Graph):
            raise TypeError(f"GraphModule: graph must be an ember.fx.Graph, got {type(graph).__name__}")
        extra = dict(_extra_tensors or {})
        if isinstance(root, Module) and hasattr(root, "training"):
            self.training = root.training
        for node in graph.nodes:
            if node.op in ("get_attr", "call_module"):
                target = node.target
                if target in extra:
                    value = extra[target]
                else:
                    value = _fetch(root, target, node.op)
                    if node.op == "call_module" and not isinstance(value, Module):
                        raise RuntimeError(f"Node {node.name!r}: call_module target {target!r} is a "
                                           f"{type(value).__name__}, not a Module")
                _install(self, target, value)
        self._graph = graph
        self.recompile()

    @property
    def graph(self):
        return self._graph

    @graph.setter
    def graph(self, g):
        if not isinstance(g, Graph):
            raise TypeError(f"GraphModule.graph must be an ember.fx.Graph, got {type(g).__name__}")
        object.__setattr__(self, "_graph", g)
        self.recompile()

    @property
    def code(self):
        """The generated Python source of forward."""
        return self._code

    def recompile(self):
        """Regenerates forward from the graph (call after editing the graph)."""
        src, glb = python_code(self._graph)
        _source_counter[0] += 1
        filename = f"<eval_with_key>.{_source_counter[0]}"
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        ns = dict(glb)
        exec(compile(src, filename, "exec"), ns)
        object.__setattr__(self, "_code", src)
        type(self).forward = ns["forward"]
        return src

    def lint(self):
        """Graph.lint plus: every get_attr / call_module target exists on this module."""
        self._graph.lint()
        for node in self._graph.nodes:
            if node.op in ("get_attr", "call_module"):
                _fetch(self, node.target, node.op)

    def __reduce__(self):
        raise TypeError("GraphModule cannot be pickled directly; use to_folder()")

    def __copy__(self):
        return GraphModule(self, self._graph.copy(), type(self).__name__)

    def __deepcopy__(self, memo):
        import copy
        fake = Module()
        fake.__dict__.update({k: copy.deepcopy(v, memo) for k, v in self.__dict__.items()
                              if k not in ("_graph", "_code")})
        return GraphModule(fake, self._graph.copy(), type(self).__name__)

    def __str__(self):
        return super().__str__() + "\n\n" + self._code.strip("\n")

    def print_readable(self):
        print(self._code)
        return self._code

    def to_folder(self, folder, module_name="FxModule"):
        """Writes module.py (a Module class with this forward) and the state it needs into
        folder; `from folder.module import <module_name>` then rebuilds the module."""
        import ember
        os.makedirs(folder, exist_ok=True)
        src, glb = python_code(self._graph)
        lines = ["import math", "import operator", "import os", "import ember", "from ember import device",
                 "from math import inf, nan", ""]
        extra_globals = {k: v for k, v in glb.items()
                         if k not in ("ember", "operator", "math", "device", "inf", "nan")}
        if extra_globals:
            import pickle
            with open(os.path.join(folder, "globals.pkl"), "wb") as f:
                pickle.dump(extra_globals, f)
            lines.append("import pickle")
            lines.append("with open(os.path.join(os.path.dirname(__file__), 'globals.pkl'), 'rb') as _f:")
            lines.append("    globals().update(pickle.load(_f))")
        lines.append(f"\n\nclass {module_name}(ember.nn.Module):")
        lines.append("    def __init__(self):")
        lines.append("        super().__init__()")
        lines.append("        _dir = os.path.dirname(__file__)")
        for name, sub in self._modules.items():
            import pickle
            with open(os.path.join(folder, f"{name}.module.pkl"), "wb") as f:
                pickle.dump(sub, f)
            lines.append(f"        with open(os.path.join(_dir, {name + '.module.pkl'!r}), 'rb') as f:")
            lines.append(f"            self.{name} = pickle.load(f)" if name.isidentifier() else
                         f"            self.add_module({name!r}, pickle.load(f))")
        own = {k: v for k, v in list(self._parameters.items()) + list(self._buffers.items()) if v is not None}
        if own:
            ember.save(own, os.path.join(folder, "state_dict.pt"))
            lines.append("        _state = ember.load(os.path.join(_dir, 'state_dict.pt'))")
            for k in self._parameters:
                lines.append(f"        self.register_parameter({k!r}, ember.nn.Parameter(_state[{k!r}]))")
            for k in self._buffers:
                lines.append(f"        self.register_buffer({k!r}, _state[{k!r}])")
        if self._modules and "import pickle" not in lines:
            lines.insert(0, "import pickle")
        body = "\n".join("    " + ln if ln else ln for ln in src.strip("\n").splitlines())
        text = "\n".join(lines) + "\n\n" + body + "\n"
        with open(os.path.join(folder, "module.py"), "w") as f:
            f.write(text)
        with open(os.path.join(folder, "__init__.py"), "w") as f:
            f.write(f"from .module import {module_name}\n")


__all__ = ["GraphModule"]
