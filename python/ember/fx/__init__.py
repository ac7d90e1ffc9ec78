"""ember.fx: graph capture and transformation (torch.fx).

symbolic_trace(module) records a Module's forward as a Graph (the C++ ember::fx IR) inside a
GraphModule, whose generated Python `code` re-executes it; Interpreter and Transformer run and
rebuild graphs; ember.fx.passes holds the standard passes. See docs/FX.md.
"""
from .graph import Graph, Node, graph_from_json, graph_to_cpp, graph_to_json, lower_to_cpp, python_code  # noqa: F401
from .proxy import Attribute, Proxy, TraceError  # noqa: F401
from .graph_module import GraphModule  # noqa: F401
from ._symbolic_trace import Tracer, symbolic_trace, wrap  # noqa: F401
from .interpreter import Interpreter, Transformer  # noqa: F401
from . import subgraph_rewriter  # noqa: F401
from .subgraph_rewriter import replace_pattern  # noqa: F401
from . import passes  # noqa: F401
from . import experimental  # noqa: F401

__all__ = ["Graph", "Node", "GraphModule", "Proxy", "TraceError", "Tracer", "symbolic_trace", "wrap",
           "Interpreter", "Transformer", "graph_to_json", "graph_from_json", "graph_to_cpp", "lower_to_cpp", "replace_pattern", "subgraph_rewriter", "passes"]
