"""Conv/BatchNorm and Linear/BatchNorm fusion for inference: a convolution (or linear layer)
whose only user is an eval-mode batch norm becomes one layer with folded weights,

    w' = w * gamma / sqrt(var + eps)        b' = (b - mean) * gamma / sqrt(var + eps) + beta
"""
import copy
from collections import OrderedDict

from ..graph_module import GraphModule


def _fold(weight, bias, bn, channel_dims):
    import ember
    with ember.no_grad():
        var_rsqrt = ember.rsqrt(bn.running_var + bn.eps)
        gamma = bn.weight if bn.weight is not None else ember.ones_like(bn.running_var)
        beta = bn.bias if bn.bias is not None else ember.zeros_like(bn.running_var)
        scale = gamma * var_rsqrt
        if bias is None:
            bias = ember.zeros_like(bn.running_mean)
        w = weight * scale.reshape([-1] + [1] * channel_dims)
        b = (bias - bn.running_mean) * scale + beta
    return w, b


def _fused_copy(layer, bn, channel_dims):
    """A copy of layer (sharing nothing mutable with it) carrying the folded weight and bias."""
    import ember.nn as nn
    fused = copy.copy(layer)
    fused.__dict__ = dict(layer.__dict__)
    fused.__dict__["_parameters"] = OrderedDict(layer._parameters)
    w, b = _fold(layer.weight, layer.bias, bn, channel_dims)
    fused.__dict__["_parameters"]["weight"] = nn.Parameter(w.detach(), requires_grad=layer.weight.requires_grad)
    fused.__dict__["_parameters"]["bias"] = nn.Parameter(b.detach(), requires_grad=layer.weight.requires_grad)
    return fused


def fuse(gm, inplace=False):
    """A new GraphModule where each Conv{1,2,3}d -> BatchNorm{1,2,3}d and Linear -> BatchNorm1d
    pair (eval mode, the layer's output used only by the norm) is one fused layer. gm itself (and
    its layers) is not modified. Accepts a Module too (it is traced first)."""
    import ember.nn as nn
    from .._symbolic_trace import symbolic_trace
    if not isinstance(gm, GraphModule):
        gm = symbolic_trace(gm)
    modules = dict(gm.named_modules())
    pairs = [((nn.Conv1d, nn.Conv2d, nn.Conv3d), (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)),
             ((nn.Linear,), (nn.BatchNorm1d,))]
    g = gm.graph.copy()
    replacements = {}
    for node in g.nodes:
        if node.op != "call_module" or not node.args or type(node.args[0]).__name__ != "Node":
            continue
        prev = node.args[0]
        if prev.op != "call_module" or len(prev.users) != 1:
            continue
        layer, bn = modules.get(prev.target), modules.get(node.target)
        for layer_types, bn_types in pairs:
            if isinstance(layer, layer_types) and isinstance(bn, bn_types) and not bn.training \
                    and bn.track_running_stats and bn.running_mean is not None:
                if isinstance(layer, nn.Linear) and layer.out_features != bn.num_features:
                    continue
                channel_dims = 1 if isinstance(layer, nn.Linear) else layer.weight.dim() - 1
                replacements[prev.target] = _fused_copy(layer, bn, channel_dims)
                node.replace_all_uses_with(prev)
                g.erase_node(node)
                break
    new = GraphModule(gm, g, type(gm).__name__)
    for target, fused in replacements.items():
        *path, name = target.split(".")
        parent = new
        for p in path:
            # Intermediate containers are shared with gm: copy them before replacing a child.
            child = parent._modules[p]
            c = copy.copy(child)
            c.__dict__ = dict(child.__dict__)
            c.__dict__["_modules"] = OrderedDict(child._modules)
            parent._modules[p] = c
            parent = c
        parent._modules[name] = fused
    return new


__all__ = ["fuse"]
