"""Parameters to one vector and back (torch.nn.utils.convert_parameters)."""
from ... import _C
from ..._C import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _typename(obj):
    from ..modules.module import _typename as typename
    return typename(obj)


def _check_param_device(param, old_param_device):
    """The device index of the parameters seen so far (-1: CPU); all must share one."""
    device = param.get_device() if getattr(param, "is_cuda", False) else -1
    if old_param_device is not None and device != old_param_device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return device


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated (differentiable)."""
    param_device = None
    vec = []
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        vec.append(param.reshape(-1))
    return _C.cat(vec)


def vector_to_parameters(vec, parameters):
    """Sets each parameter's data to its slice of vec (a view of it, as in PyTorch)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected ember.Tensor, but got: {_typename(vec)}")
    param_device = None
    pointer = 0
    for param in parameters:
        param_device = _check_param_device(param, param_device)
        num_param = param.numel()
        requires_grad = param.requires_grad
        param.data = vec[pointer:pointer + num_param].view_as(param).data
        if requires_grad:  # ember's `.data =` resets the flag; PyTorch keeps it
            param.requires_grad_(True)
        pointer += num_param
