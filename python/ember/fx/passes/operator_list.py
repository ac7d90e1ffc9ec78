"""The operators a graph needs, for a runtime that ships only those (a minimal operator list)."""
import json


def _target_name(node):
    t = node.target
    if isinstance(t, str):
        return t
    from ..graph import _ember_path
    return _ember_path(t) or node._target_name


def operator_list(gm):
    """Sorted distinct names: functions ("ember.relu", "operator.add"), Tensor methods
    ("Tensor.view") and module types ("ember.nn.Conv2d") the graph calls."""
    ops = set()
    modules = dict(gm.named_modules())
    for node in gm.graph.nodes:
        if node.op == "call_function":
            ops.add(_target_name(node))
        elif node.op == "call_method":
            ops.add("Tensor." + node.target)
        elif node.op == "call_module":
            cls = type(modules[node.target])
            mod = cls.__module__
            prefix = "ember.nn" if mod.startswith("ember.nn.") else mod
            ops.add(f"{prefix}.{cls.__qualname__}")
    return sorted(ops)


def export_operator_list(gm, path):
    """Writes {"version": 1, "operators": [...]} to path (JSON) and returns the list."""
    ops = operator_list(gm)
    with open(path, "w") as f:
        json.dump({"version": 1, "operators": ops}, f, indent=1)
    return ops


__all__ = ["operator_list", "export_operator_list"]
