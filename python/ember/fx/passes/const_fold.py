"""Constant folding: nodes that depend on no placeholder (only on attributes and literals) are
computed once, and their results become attributes of the new module."""
from ..graph_module import GraphModule
from ..interpreter import Interpreter
from .cse import _RANDOM


def const_fold(gm):
    """A new GraphModule in which every pure, deterministic node whose inputs are all constant
    is replaced by a get_attr of its precomputed value (attributes `_folded_constant<i>`)."""
    g = gm.graph.copy()
    constant = set()
    for node in g.nodes:
        if node.op == "get_attr":
            constant.add(node)
        elif node.op in ("call_function", "call_method", "call_module") and not node.is_impure():
            target = node.target
            name = target if isinstance(target, str) else getattr(target, "__name__", "")
            if name in _RANDOM or node.op == "call_module":
                continue
            if all(i in constant for i in node.all_input_nodes):
                constant.add(node)
    # Fold the constant nodes that something non-constant uses (the frontier).
    frontier = [n for n in g.nodes if n in constant and n.op != "get_attr"
                and any(u not in constant for u in n.users)]
    if not frontier:
        return GraphModule(gm, g, type(gm).__name__)
    evaluator = Interpreter(GraphModule(gm, g.copy(), type(gm).__name__), garbage_collect_values=False)
    by_name = {n.name: n for n in evaluator.module.graph.nodes}
    values = {}
    env = evaluator.env = {}
    for n in evaluator.module.graph.nodes:
        if n.name in {c.name for c in constant}:
            env[n] = evaluator.run_node(n)
    for node in frontier:
        values[node.name] = env[by_name[node.name]]
    extra = {}
    i = 0
    for node in frontier:
        while hasattr(gm, f"_folded_constant{i}"):
            i += 1
        attr = f"_folded_constant{i}"
        i += 1
        extra[attr] = values[node.name]
        with g.inserting_before(node):
            new = g.get_attr(attr)
        node.replace_all_uses_with(new)
    g.eliminate_dead_code()
    return GraphModule(gm, g, type(gm).__name__, _extra_tensors=extra)


__all__ = ["const_fold"]
