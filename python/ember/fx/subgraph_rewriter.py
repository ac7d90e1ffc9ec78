"""replace_pattern: rewrites every non-overlapping occurrence of a pattern graph
(torch.fx.subgraph_rewriter)."""
import inspect
from collections import namedtuple

from .graph import Node

Match = namedtuple("Match", ["anchor", "nodes_map"])


def _traced(fn, what):
    from .graph_module import GraphModule
    from ._symbolic_trace import symbolic_trace
    if isinstance(fn, GraphModule):
        return fn
    if not callable(fn):
        raise TypeError(f"replace_pattern(): {what} must be a callable or a GraphModule, got {type(fn).__name__}")
    return symbolic_trace(fn)


def _placeholders(gm):
    return [n for n in gm.graph.nodes if n.op == "placeholder"]


def _output_args(gm):
    out = next(n for n in gm.graph.nodes if n.op == "output")
    a = out.args[0]
    return list(a) if type(a) in (tuple, list) else [a]


class _Matcher:
    def __init__(self, pattern_gm):
        self.pattern = pattern_gm
        self.placeholders = _placeholders(pattern_gm)
        outs = _output_args(pattern_gm)
        if len(outs) != 1 or not isinstance(outs[0], Node) or outs[0].op == "placeholder":
            raise ValueError("replace_pattern(): the pattern must return exactly one computed value")
        self.anchor = outs[0]

    def match(self, node):
        self.nodes_map = {}
        if not self._match_node(self.anchor, node):
            return None
        # Values computed inside the match must not escape it (the anchor's may).
        matched = {t for p, t in self.nodes_map.items() if p.op != "placeholder"}
        for p, t in self.nodes_map.items():
            if p.op == "placeholder" or p is self.anchor:
                continue
            if any(u not in matched for u in t.users):
                return None
        return Match(node, dict(self.nodes_map))

    def _match_node(self, p, t):
        if p in self.nodes_map:
            return self.nodes_map[p] is t
        if p.op == "placeholder":
            # A pattern input binds to any value, once.
            if t in self.nodes_map.values():
                return any(k is p for k, v in self.nodes_map.items() if v is t)
            self.nodes_map[p] = t
            return True
        if not isinstance(t, Node) or p.op != t.op:
            return False
        if p.op == "get_attr":
            return False if p.target != t.target else self._bind(p, t)
        if p.target is not t.target and p.target != t.target:
            return False
        pa, ta = p.args, t.args
        pk, tk = p.kwargs, t.kwargs
        if len(pa) != len(ta) or set(pk) != set(tk):
            return False
        self.nodes_map[p] = t
        ok = all(self._match_arg(x, y) for x, y in zip(pa, ta)) and all(self._match_arg(pk[k], tk[k]) for k in pk)
        if not ok:
            del self.nodes_map[p]
        return ok

    def _bind(self, p, t):
        self.nodes_map[p] = t
        return True

    def _match_arg(self, p, t):
        if isinstance(p, Node):
            if p.op == "placeholder" and not isinstance(t, Node):
                return False
            return self._match_node(p, t)
        if type(p) in (tuple, list):
            return type(p) is type(t) and len(p) == len(t) and all(self._match_arg(x, y) for x, y in zip(p, t))
        if type(p) is dict:
            return type(t) is dict and set(p) == set(t) and all(self._match_arg(p[k], t[k]) for k in p)
        if isinstance(t, Node):
            return False
        try:
            return type(p) is type(t) and bool(p == t)
        except Exception:
            return p is t


def replace_pattern(gm, pattern, replacement):
    """Replaces each non-overlapping match of pattern in gm's graph (scanned from the end, as
    torch.fx) with replacement; returns the list of Matches (anchor node, pattern node -> node).
    pattern and replacement are functions (or GraphModules) with the same parameters; a mismatch
    raises ValueError before gm is touched. gm is recompiled."""
    pattern_gm = _traced(pattern, "pattern")
    replacement_gm = _traced(replacement, "replacement")
    pp, rp = _placeholders(pattern_gm), _placeholders(replacement_gm)
    if len(pp) != len(rp):
        def sig(f):
            try:
                return str(inspect.signature(f))
            except (TypeError, ValueError):
                return f"({', '.join(p.target for p in _placeholders(_traced(f, 'f')))})"
        raise ValueError(f"replace_pattern(): the pattern takes {len(pp)} inputs {sig(pattern)} but the replacement "
                         f"takes {len(rp)} {sig(replacement)}; their signatures must match")
    if len(_output_args(replacement_gm)) != 1:
        raise ValueError("replace_pattern(): the replacement must return exactly one value, as the pattern does")
    for n in replacement_gm.graph.nodes:
        if n.op == "call_module":
            raise ValueError("replace_pattern(): the replacement may not call modules")

    matcher = _Matcher(pattern_gm)
    graph = gm.graph
    matches, taken = [], set()
    for node in reversed(graph.nodes):
        if node in taken:
            continue
        m = matcher.match(node)
        if m is None:
            continue
        inner = {t for p, t in m.nodes_map.items() if p.op != "placeholder"}
        if inner & taken:
            continue
        taken |= inner
        matches.append(m)

    # Attributes the replacement reads (constants it closed over) are copied into gm.
    for n in replacement_gm.graph.nodes:
        if n.op == "get_attr" and not hasattr(gm, n.target):
            setattr(gm, n.target, getattr(replacement_gm, n.target))

    r_out = _output_args(replacement_gm)[0]
    for m in matches:
        val_map = {}
        for p_ph, r_ph in zip(matcher.placeholders, rp):
            val_map[r_ph] = m.nodes_map[p_ph]
        with graph.inserting_before(m.anchor):
            for n in replacement_gm.graph.nodes:
                if n.op in ("placeholder", "output"):
                    continue
                val_map[n] = graph.node_copy(n, lambda x: val_map[x])
        new_out = val_map[r_out] if isinstance(r_out, Node) else r_out
        if isinstance(new_out, Node):
            m.anchor.replace_all_uses_with(new_out)
        else:
            raise ValueError("replace_pattern(): the replacement must compute its result")
        # Erase the matched nodes, users first.
        inner = [t for p, t in m.nodes_map.items() if p.op != "placeholder"]
        for t in reversed(graph.nodes):
            if t in inner and not t.users:
                graph.erase_node(t)
    gm.recompile()
    return matches


__all__ = ["Match", "replace_pattern"]
