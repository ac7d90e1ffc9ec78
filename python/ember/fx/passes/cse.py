"""Common-subexpression elimination: a node computing what an earlier node computes (same
opcode, target and arguments) is replaced by that node. Impure nodes and nondeterministic
functions are never merged."""
from ..graph_module import GraphModule

_RANDOM = {"rand", "randn", "randint", "rand_like", "randn_like", "randint_like", "randperm", "bernoulli",
           "multinomial", "normal", "poisson", "dropout", "alpha_dropout", "feature_alpha_dropout", "dropout1d",
           "dropout2d", "dropout3d", "rrelu", "empty", "empty_like", "empty_strided"}


def _key(value):
    """A hashable form of an argument tree (nodes by identity, other leaves by value)."""
    t = type(value)
    if t in (tuple, list):
        return (t.__name__,) + tuple(_key(v) for v in value)
    if t is dict:
        return ("dict",) + tuple((k, _key(v)) for k, v in value.items())
    if t is slice:
        return ("slice", _key(value.start), _key(value.stop), _key(value.step))
    try:
        hash(value)
    except TypeError:
        return ("id", id(value))
    if t in (int, float, bool, str) or value is None:
        return (t.__name__, value)
    return ("id", id(value))


def _mergeable(node):
    if node.op in ("placeholder", "output") or node.is_impure():
        return False
    if node.op == "call_module":
        # Modules may hold state (dropout draws, batch-norm statistics in training).
        return False
    target = node.target
    name = target if isinstance(target, str) else getattr(target, "__name__", "")
    return name not in _RANDOM


def cse(gm):
    """A new GraphModule with common subexpressions merged."""
    g = gm.graph.copy()
    seen = {}
    for node in g.nodes:
        if not _mergeable(node):
            continue
        target = node.target
        key = (node.op, target if isinstance(target, str) else ("id", id(target)), _key(node.args),
               _key(node.kwargs))
        prev = seen.get(key)
        if prev is None:
            seen[key] = node
            continue
        node.replace_all_uses_with(prev)
        g.erase_node(node)
    return GraphModule(gm, g, type(gm).__name__)


__all__ = ["cse"]
