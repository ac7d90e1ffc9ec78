"""The pytrees of ember.func (vmap, grad, vjp, jacrev in _batched.py; jvp, jacfwd in
_forward.py): tuples, lists, namedtuples and dicts nest; anything else is a leaf.

A spec is None for a leaf, else (kind, keys, child specs): keys are a dict's keys, or the
number of children of a sequence. Specs compare with ==.
"""


def _is_node(x):
    return isinstance(x, (tuple, list, dict))


def _children(x):
    if isinstance(x, dict):
        return list(x.values())
    return list(x)


def tree_flatten(tree):
    """(leaves, spec)."""
    if not _is_node(tree):
        return [tree], None
    leaves, specs = [], []
    for c in _children(tree):
        lv, sp = tree_flatten(c)
        leaves.extend(lv)
        specs.append(sp)
    keys = list(tree.keys()) if isinstance(tree, dict) else len(tree)
    return leaves, (type(tree), keys, specs)


def tree_unflatten(leaves, spec):
    return _build(iter(leaves), spec)


# A module-level function, not a closure over the leaves: a recursive closure is a reference
# cycle, which would keep every leaf (batched inputs, results) alive until the garbage
# collector runs, so that their memory could not be reused by the next call.
def _build(it, sp):
    if sp is None:
        return next(it)
    kind, keys, specs = sp
    vals = [_build(it, s) for s in specs]
    if kind is dict or issubclass(kind, dict):
        return kind(zip(keys, vals))
    if kind is tuple or kind is list:
        return kind(vals)
    if hasattr(kind, "_fields"):  # namedtuple
        return kind(*vals)
    return kind(vals)


def spec_str(spec):
    """The structure as functorch's TreeSpec prints it: "TreeSpec(tuple, None, [*, *])", leaves `*`."""
    if spec is None:
        return "*"
    kind, keys, specs = spec
    inner = ", ".join(spec_str(s) for s in specs)
    if kind is dict or issubclass(kind, dict):
        return f"TreeSpec(dict, {keys!r}, [{inner}])"
    if hasattr(kind, "_fields"):
        return f"TreeSpec(namedtuple, {kind!r}, [{inner}])"
    return f"TreeSpec({'list' if issubclass(kind, list) else 'tuple'}, None, [{inner}])"


def broadcast_flatten(prefix, tree):
    """Flattens `prefix` against `tree`: a leaf of prefix applies to the whole subtree. None on mismatch."""
    if not _is_node(prefix):
        return [prefix] * len(tree_flatten(tree)[0])
    if not _is_node(tree) or type(prefix) is not type(tree) and not (
            isinstance(prefix, (tuple, list)) and isinstance(tree, (tuple, list))):
        return None
    if isinstance(tree, dict):
        if not isinstance(prefix, dict) or set(prefix.keys()) != set(tree.keys()):
            return None
        pairs = [(prefix[k], tree[k]) for k in tree.keys()]
    else:
        if len(prefix) != len(tree):
            return None
        pairs = list(zip(prefix, tree))
    out = []
    for p, t in pairs:
        sub = broadcast_flatten(p, t)
        if sub is None:
            return None
        out.extend(sub)
    return out
