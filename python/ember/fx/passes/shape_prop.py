"""ShapeProp: records each node's output shape and dtype by running the graph on Meta tensors,
which carry shapes and dtypes but no data, so no arithmetic is done and no data is read."""
from collections import OrderedDict, namedtuple

from ..interpreter import Interpreter

TensorMetadata = namedtuple("TensorMetadata", ["shape", "dtype", "requires_grad", "stride", "is_contiguous"])


def _to_meta(v):
    import ember
    if isinstance(v, ember.Tensor) and v.device.type != "meta":
        return ember.empty_strided(tuple(v.shape), tuple(v.stride()), dtype=v.dtype, device="meta")
    if type(v) in (tuple, list):
        return type(v)(_to_meta(x) for x in v)
    return v


def _meta_clone(m):
    """A shallow copy of module m whose parameters and buffers (recursively) are Meta tensors;
    m itself is not changed."""
    import copy
    c = copy.copy(m)
    d = c.__dict__
    d["_parameters"] = OrderedDict((k, None if v is None else _to_meta(v)) for k, v in m._parameters.items())
    d["_buffers"] = OrderedDict((k, None if v is None else _to_meta(v)) for k, v in m._buffers.items())
    d["_modules"] = OrderedDict((k, None if v is None else _meta_clone(v)) for k, v in m._modules.items())
    return c


def _meta_of(t):
    import ember
    if isinstance(t, ember.Tensor):
        return TensorMetadata(tuple(t.shape), t.dtype, t.requires_grad, tuple(t.stride()), t.is_contiguous())
    return None


class ShapeProp(Interpreter):
    """ShapeProp(gm).propagate(*example_inputs): sets node.shape and node.dtype (and
    node.meta['tensor_meta']) for every node whose value is a tensor. The inputs may be real or
    Meta tensors; only their shapes, strides and dtypes are used."""

    def __init__(self, module):
        super().__init__(module)
        self._meta_modules = {}
        self._meta_attrs = {}

    def call_module(self, target, args, kwargs):
        m = self._meta_modules.get(target)
        if m is None:
            m = self._meta_modules[target] = _meta_clone(self.submodules[target])
        return m(*args, **kwargs)

    def get_attr(self, target, args, kwargs):
        v = self._meta_attrs.get(target)
        if v is None:
            v = self._meta_attrs[target] = _to_meta(self.fetch_attr(target))
        return v

    def run_node(self, n):
        result = super().run_node(n)
        tm = _meta_of(result)
        if tm is not None:
            n.shape = list(tm.shape)
            n.dtype = tm.dtype
            n.type = "Tensor"
            n.meta["tensor_meta"] = tm
        elif type(result) in (tuple, list):
            n.meta["tensor_meta"] = type(result)(_meta_of(r) for r in result)
        return result

    def propagate(self, *args):
        return self.run(*[_to_meta(a) for a in args])


__all__ = ["ShapeProp", "TensorMetadata"]
