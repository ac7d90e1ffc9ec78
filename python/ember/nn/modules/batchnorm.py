"""BatchNorm1d/2d/3d and InstanceNorm1d/2d/3d (torch.nn.modules.batchnorm / instancenorm)."""
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module
from ... import _C

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
           "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
           "LazyInstanceNorm3d"]


class _NormBase(Module):
    """Parameters and running statistics shared by batch and instance norm."""
    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        if affine:
            self.weight = Parameter(_C.empty((num_features,), dtype=dtype, device=device))
            self.bias = Parameter(_C.empty((num_features,), dtype=dtype, device=device))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _C.zeros((num_features,), dtype=dtype, device=device))
            self.register_buffer("running_var", _C.ones((num_features,), dtype=dtype, device=device))
            self.register_buffer("num_batches_tracked", _C.tensor(0, dtype=_C.int64, device=device))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self):
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def extra_repr(self):
        return ("{num_features}, eps={eps}, momentum={momentum}, affine={affine}, "
                "track_running_stats={track_running_stats}".format(**self.__dict__))


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        exponential_average_factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
            if self.momentum is None:  # cumulative moving average
                exponential_average_factor = 1.0 / float(self.num_batches_tracked.item())
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_running = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if use_running else None,
                            self.running_var if use_running else None, self.weight, self.bias, bn_training,
                            exponential_average_factor, self.eps)


def _dim_checker(expected, names):
    def check(self, input):
        if input.dim() not in expected:
            raise ValueError(f"expected {names} input (got {input.dim()}D input)")
    return check


class BatchNorm1d(_BatchNorm):
    """Batch norm over (N, C) or (N, C, L) inputs."""
    _check_input_dim = _dim_checker((2, 3), "2D or 3D")


class BatchNorm2d(_BatchNorm):
    """Batch norm over (N, C, H, W) inputs."""
    _check_input_dim = _dim_checker((4,), "4D")


class BatchNorm3d(_BatchNorm):
    """Batch norm over (N, C, D, H, W) inputs."""
    _check_input_dim = _dim_checker((5,), "5D")


class _InstanceNorm(_NormBase):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)

    def forward(self, input):
        self._check_input_dim(input)
        batched = input.dim() == self._batched_dim
        x = input if batched else input.unsqueeze(0)
        if self.affine and x.size(1) != self.num_features:
            raise ValueError(f"expected input's size at dim=1 to match num_features ({self.num_features}), but got: "
                             f"{x.size(1)}.")
        y = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                            self.training or not self.track_running_stats, self.momentum, self.eps)
        return y if batched else y.squeeze(0)


class InstanceNorm1d(_InstanceNorm):
    """Instance norm over (N, C, L) or (C, L) inputs."""
    _batched_dim = 3
    _check_input_dim = _dim_checker((2, 3), "2D or 3D")


class InstanceNorm2d(_InstanceNorm):
    """Instance norm over (N, C, H, W) or (C, H, W) inputs."""
    _batched_dim = 4
    _check_input_dim = _dim_checker((3, 4), "3D or 4D")


class InstanceNorm3d(_InstanceNorm):
    """Instance norm over (N, C, D, H, W) or (C, D, H, W) inputs."""
    _batched_dim = 5
    _check_input_dim = _dim_checker((4, 5), "4D or 5D")


# ---------------------------------------------------------------- lazy norms
class _LazyNormBase(LazyModuleMixin, _NormBase):
    """num_features inferred from the first input's dim 1. As in PyTorch, affine and
    track_running_stats default to True for the lazy instance norms too."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, eps, momentum, False, False, **factory_kwargs)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(**factory_kwargs)
            self.bias = UninitializedParameter(**factory_kwargs)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(**factory_kwargs)
            self.running_var = UninitializedBuffer(**factory_kwargs)
            self.num_batches_tracked = _C.tensor(0, dtype=_C.int64, device=device)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))
                self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


def _lazy_norm(name, base):
    class LazyNorm(_LazyNormBase, base.__bases__[0]):
        cls_to_become = base
        _check_input_dim = base._check_input_dim

    if hasattr(base, "_batched_dim"):
        LazyNorm._batched_dim = base._batched_dim
    LazyNorm.__name__ = LazyNorm.__qualname__ = name
    LazyNorm.__doc__ = (f"A {base.__name__} whose num_features is inferred from the first input's dim 1; it becomes "
                        f"a {base.__name__} after that first forward.")
    return LazyNorm


LazyBatchNorm1d = _lazy_norm("LazyBatchNorm1d", BatchNorm1d)
LazyBatchNorm2d = _lazy_norm("LazyBatchNorm2d", BatchNorm2d)
LazyBatchNorm3d = _lazy_norm("LazyBatchNorm3d", BatchNorm3d)
LazyInstanceNorm1d = _lazy_norm("LazyInstanceNorm1d", InstanceNorm1d)
LazyInstanceNorm2d = _lazy_norm("LazyInstanceNorm2d", InstanceNorm2d)
LazyInstanceNorm3d = _lazy_norm("LazyInstanceNorm3d", InstanceNorm3d)
