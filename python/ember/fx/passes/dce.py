"""Dead-code elimination as a pass: a new GraphModule without unused side-effect-free nodes."""
from ..graph_module import GraphModule


def dead_code_elimination(gm):
    g = gm.graph.copy()
    g.eliminate_dead_code()
    return GraphModule(gm, g, type(gm).__name__)


__all__ = ["dead_code_elimination"]
