"""split_module: cuts a GraphModule into submodules by a partition callback (torch.fx's)."""
from ..graph import Graph
from ..graph_module import GraphModule


class _Partition:
    def __init__(self, pid):
        self.pid = pid
        self.nodes = []
        self.inputs = []
        self.outputs = []
        self.deps = set()


def split_module(m, root_m, split_callback):
    """A GraphModule whose forward calls submodules `submod_<p>`, one per partition p =
    split_callback(node) of m's call/get_attr nodes; each holds its partition's nodes in graph
    order. Partitions run in dependency order; a cycle between partitions is a RuntimeError."""
    parts, node_part = {}, {}
    nodes = m.graph.nodes
    for n in nodes:
        if n.op in ("placeholder", "output"):
            continue
        pid = split_callback(n)
        part = parts.get(pid)
        if part is None:
            part = parts[pid] = _Partition(pid)
        part.nodes.append(n)
        node_part[n] = pid

    def add(lst, x):
        if x not in lst:
            lst.append(x)

    for part in parts.values():
        for n in part.nodes:
            for i in n.all_input_nodes:
                if i.op == "placeholder":
                    add(part.inputs, i)
                elif node_part[i] != part.pid:
                    add(part.inputs, i)
                    add(parts[node_part[i]].outputs, i)
                    part.deps.add(node_part[i])
    out_node = next((n for n in nodes if n.op == "output"), None)
    if out_node is not None:
        for i in out_node.all_input_nodes:
            if i.op != "placeholder":
                add(parts[node_part[i]].outputs, i)
    # Kahn's algorithm, ties by first appearance.
    order, done = [], set()
    pending = list(parts.values())
    while pending:
        ready = next((p for p in pending if p.deps <= done), None)
        if ready is None:
            raise RuntimeError("split_module(): the partitions depend on each other in a cycle: "
                               + ", ".join(str(p.pid) for p in pending))
        order.append(ready)
        done.add(ready.pid)
        pending.remove(ready)

    submods = {}
    main = Graph()
    env = {}
    for n in nodes:
        if n.op == "placeholder":
            env[n] = main.node_copy(n)
    for part in order:
        sub = Graph()
        local = {}
        for i in part.inputs:
            local[i] = sub.placeholder(i.name)
        for n in part.nodes:
            local[n] = sub.node_copy(n, lambda x: local[x])
        outs = [local[o] for o in part.outputs]
        sub.output(outs[0] if len(outs) == 1 else tuple(outs))
        name = f"submod_{part.pid}"
        submods[name] = GraphModule(root_m, sub, name)
        call = main.call_module(name, tuple(env[i] for i in part.inputs))
        if len(part.outputs) == 1:
            env[part.outputs[0]] = call
        else:
            import operator
            for k, o in enumerate(part.outputs):
                env[o] = main.call_function(operator.getitem, (call, k))
    if out_node is not None:
        def remap(a):
            t = type(a)
            if t in (tuple, list):
                return t(remap(x) for x in a)
            if t is dict:
                return {k: remap(v) for k, v in a.items()}
            return env[a] if type(a).__name__ == "Node" else a
        main.output(remap(out_node.args[0]))
    return GraphModule(submods, main, "GraphModule")


__all__ = ["split_module"]
