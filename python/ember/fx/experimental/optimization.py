"""optimize_for_inference (torch.fx.experimental.optimization): a traced, eval-only copy of a
model whose 2-D convolutions run as prepacked oneDNN inference primitives.

The passes, in order: trace; drop Dropout layers (identities in eval mode); fold BatchNorm
into the preceding convolution (passes.fuse); turn each float32 Conv2d into a PackedConv2d
(include/ember/fx/packed_conv.h) that owns its weights packed once, and absorb into it a
following residual add (when the other operand is already computed at that point) and ReLU;
finally let every packed convolution whose users are all packed convolutions hand them its
result in oneDNN's blocked layout, so no reorder runs between them. Everything else, graph
outputs included, sees ordinary [N, C, H, W] tensors.
"""
import operator

from ...nn.modules.module import Module
from ..graph_module import GraphModule


class PackedConv2d(Module):
    """relu(conv2d(x) + bias + residual) with prepacked weights; inference only (see
    optimize_for_inference). `relu` and whether a residual is taken are fixed at creation."""

    def __init__(self, conv, relu=False, residual=False):
        super().__init__()
        import ember
        if not isinstance(conv.padding, (tuple, list)):
            raise ValueError(f"PackedConv2d: padding={conv.padding!r} is not supported, only explicit padding")
        self.in_channels, self.out_channels = conv.in_channels, conv.out_channels
        self.kernel_size, self.stride, self.padding = tuple(conv.kernel_size), tuple(conv.stride), tuple(conv.padding)
        self.dilation, self.groups = tuple(conv.dilation), conv.groups
        self.relu, self.residual, self.blocked_out = relu, residual, False
        self.train(False)  # inference only, from the start
        self._packed = ember._C._fx.PackedConv2d(conv.weight.detach(), None if conv.bias is None else conv.bias.detach(),
                                                 list(self.stride), list(self.padding), list(self.dilation),
                                                 self.groups, relu)

    def extra_repr(self):
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, relu={self.relu}, residual={self.residual}, blocked_out={self.blocked_out}")

    def forward(self, x, residual=None):
        import ember
        if self.training:
            raise RuntimeError("PackedConv2d (from optimize_for_inference) is for inference only; the module was "
                               "put in training mode: call .eval() on it, or optimize the model again after training")
        if ember.is_grad_enabled() and (x.requires_grad or (residual is not None and residual.requires_grad)):
            raise RuntimeError("PackedConv2d (from optimize_for_inference) does not support autograd: its input "
                               "requires grad; run it under ember.no_grad() or on inputs that do not require grad")
        if (residual is not None) != self.residual:
            raise ValueError(f"PackedConv2d: built {'with' if self.residual else 'without'} a residual input")
        return self._packed.run(x, residual, self.blocked_out)


def _is_relu(node, modules):
    import ember
    import ember.nn as nn
    import ember.nn.functional as F
    if node.op == "call_module":
        return type(modules.get(node.target)) is nn.ReLU
    if node.op == "call_function":
        return node.target in (ember.relu, F.relu) and len(node.args) == 1
    return node.op == "call_method" and node.target in ("relu", "relu_") and len(node.args) == 1


def _is_add(node):
    import ember
    if node.op == "call_function":
        return node.target in (operator.add, operator.iadd, ember.add) and len(node.args) == 2 and not node.kwargs
    return node.op == "call_method" and node.target in ("add", "add_") and len(node.args) == 2 and not node.kwargs


def _may_write(node, value, modules):
    """Whether node may modify `value` in place (an in-place method, layer or function)."""
    if not any(a is value for a in node.args) and value not in node.kwargs.values():
        return False
    if node.op == "call_method":
        return node.target.endswith("_")
    if node.op == "call_module":
        return bool(getattr(modules.get(node.target), "inplace", False))
    if node.op == "call_function":
        return bool(node.kwargs.get("inplace", False)) or getattr(node.target, "__name__", "").endswith("_") \
            or node.target in (operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.setitem)
    return False


def _only_user(node):
    users = list(node.users)
    return users[0] if len(users) == 1 else None


def optimize_for_inference(model, pass_config=None, tracer=None):
    """A GraphModule computing model(x) for inference (eval mode, no autograd), faster at
    small batches: see the module docstring. model is not modified. pass_config may turn
    passes off: {"remove_dropout": bool, "conv_bn_fuse": bool, "pack_conv": bool}."""
    import ember
    import ember.nn as nn
    from .._symbolic_trace import Tracer
    from ..passes.fuse import fuse
    config = {"remove_dropout": True, "conv_bn_fuse": True, "pack_conv": True}
    for k, v in (pass_config or {}).items():
        if k not in config:
            raise KeyError(f"optimize_for_inference: unknown pass {k!r} (known: {sorted(config)})")
        config[k] = v
    if not isinstance(model, Module):
        raise TypeError(f"optimize_for_inference: expected an ember.nn.Module, got {type(model).__name__}")
    # (bare Modules are the path holders a GraphModule creates; their mode means nothing)
    if any(m.training for m in model.modules() if type(m) is not Module):
        raise RuntimeError("optimize_for_inference: the model (or one of its submodules) is in training mode; "
                           "call model.eval() first, the optimized module is for inference only")
    if isinstance(model, GraphModule):
        gm = model
    else:
        t = (tracer or Tracer)()
        graph = t.trace(model)
        gm = GraphModule(t.root, graph, type(model).__name__, _extra_tensors=t._constant_tensors)
    g = gm.graph.copy()
    modules = dict(gm.named_modules())
    if config["remove_dropout"]:
        for node in g.nodes:
            if node.op == "call_module" and isinstance(modules.get(node.target), nn.modules.dropout._DropoutNd):
                node.replace_all_uses_with(node.args[0])
                g.erase_node(node)
    gm = GraphModule(gm, g, type(gm).__name__)
    if config["conv_bn_fuse"]:
        gm = fuse(gm)
    if not config["pack_conv"]:
        return gm
    g = gm.graph.copy()
    modules = dict(gm.named_modules())
    order = {n: i for i, n in enumerate(g.nodes)}
    packed = {}  # new target -> PackedConv2d
    packed_nodes, erased = set(), set()
    for node in g.nodes:  # a snapshot: skip the adds and ReLUs already fused away
        if node in erased:
            continue
        conv = modules.get(node.target) if node.op == "call_module" else None
        if type(conv) is not nn.Conv2d or conv.padding_mode != "zeros" or isinstance(conv.padding, str) \
                or conv.weight.dtype != ember.float32 or len(node.args) != 1 or node.kwargs:
            continue
        end, residual = node, None
        add = _only_user(end)
        if add is not None and _is_add(add):
            other = add.args[1] if add.args[0] is end else add.args[0]
            # The sum is computed where the convolution runs: the other operand must exist by then.
            if type(other).__name__ == "Node" and other is not end and order[other] < order[node]:
                # ... and keep the value it has at the add: nothing in between may write it.
                nodes = list(g.nodes)
                between = nodes[nodes.index(node) + 1:nodes.index(add)]
                if not any(_may_write(n, other, modules) for n in between):
                    end, residual = add, other
        relu_node = _only_user(end)
        relu = relu_node is not None and _is_relu(relu_node, modules)
        if relu:
            end = relu_node
        target = node.target.replace(".", "_") + "_packed"
        packed[target] = PackedConv2d(conv, relu=relu, residual=residual is not None)
        with g.inserting_before(node):
            new = g.call_module(target, (node.args[0],) if residual is None else (node.args[0], residual))
        end.replace_all_uses_with(new)
        order[new] = order[node]  # where its value exists, for later residual checks
        # Erase from the end of the fused chain back to the convolution (each has no users left).
        for n in ([relu_node] if relu else []) + ([add] if residual is not None else []) + [node]:
            g.erase_node(n)
            erased.add(n)
        packed_nodes.add(new)
    # Blocked outputs where every user reads the value as a packed convolution's input or residual.
    for n in packed_nodes:
        users = list(n.users)
        packed[n.target].blocked_out = bool(users) and all(u in packed_nodes for u in users)
    g.lint()
    return GraphModule(gm, g, type(gm).__name__, _extra_tensors=packed)


__all__ = ["optimize_for_inference", "PackedConv2d"]
