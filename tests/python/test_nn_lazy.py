"""Lazy modules (LazyLinear, LazyConv*, LazyConvTranspose*, LazyBatchNorm*, LazyInstanceNorm*)
and UninitializedParameter / UninitializedBuffer against torch.nn 1.13: shape inference on the
first forward, the class they become, state_dict before and after, errors and repr."""
import copy
import pickle
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn
from ember.nn.modules.lazy import LazyModuleMixin
from ember.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy

pytestmark = pytest.mark.filterwarnings("ignore:Lazy modules are a new feature")

# (lazy class name, constructor args, eager class name, eager constructor args once the input
# is known, input shape)
CASES = {
    "linear": ("LazyLinear", (3,), "Linear", (5, 3), (4, 5)),
    "linear_nobias_3d": ("LazyLinear", (2,), "Linear", (4, 2), (2, 3, 4)),
    "conv1d": ("LazyConv1d", (4, 3), "Conv1d", (2, 4, 3), (2, 2, 7)),
    "conv2d": ("LazyConv2d", (4, 3), "Conv2d", (3, 4, 3), (2, 3, 6, 5)),
    "conv2d_groups": ("LazyConv2d", (4, 3), "Conv2d", (2, 4, 3), (2, 2, 5, 5)),
    "conv3d": ("LazyConv3d", (2, 2), "Conv3d", (3, 2, 2), (1, 3, 4, 4, 3)),
    "conv1d_unbatched": ("LazyConv1d", (3, 2), "Conv1d", (2, 3, 2), (2, 6)),
    "conv_transpose1d": ("LazyConvTranspose1d", (4, 3), "ConvTranspose1d", (2, 4, 3), (2, 2, 5)),
    "conv_transpose2d": ("LazyConvTranspose2d", (3, 3), "ConvTranspose2d", (2, 3, 3), (2, 2, 4, 3)),
    "conv_transpose3d": ("LazyConvTranspose3d", (2, 2), "ConvTranspose3d", (3, 2, 2), (1, 3, 3, 3, 2)),
    "batchnorm1d": ("LazyBatchNorm1d", (), "BatchNorm1d", (4,), (5, 4)),
    "batchnorm1d_3d": ("LazyBatchNorm1d", (), "BatchNorm1d", (3,), (4, 3, 5)),
    "batchnorm2d": ("LazyBatchNorm2d", (), "BatchNorm2d", (3,), (2, 3, 4, 4)),
    "batchnorm3d": ("LazyBatchNorm3d", (), "BatchNorm3d", (2,), (2, 2, 3, 3, 2)),
    "instancenorm1d": ("LazyInstanceNorm1d", (), "InstanceNorm1d", (3,), (2, 3, 6)),
    "instancenorm2d": ("LazyInstanceNorm2d", (), "InstanceNorm2d", (3,), (2, 3, 4, 5)),
    "instancenorm3d": ("LazyInstanceNorm3d", (), "InstanceNorm3d", (2,), (2, 2, 3, 3, 3)),
}
KWARGS = {
    "linear_nobias_3d": dict(bias=False),
    "conv2d_groups": dict(groups=2, padding=1, stride=2),
    "conv_transpose2d": dict(stride=2, output_padding=1, bias=False),
    "conv1d": dict(padding_mode="reflect", padding=1),
}
EAGER_KWARGS = {
    # The lazy instance norms default to affine and running statistics (as torch's).
    "instancenorm1d": dict(affine=True, track_running_stats=True),
    "instancenorm2d": dict(affine=True, track_running_stats=True),
    "instancenorm3d": dict(affine=True, track_running_stats=True),
}


def _np(t):
    return t.detach().numpy()


def _close(e, t, tol=1e-10):
    np.testing.assert_allclose(_np(e), _np(t), rtol=tol, atol=tol)


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
def test_matches_eager_torch_after_first_forward(case, train):
    lazy_name, args, eager_name, eager_args, shape = CASES[case]
    kw = KWARGS.get(case, {})
    lazy = getattr(nn, lazy_name)(*args, **kw).double()
    assert lazy.has_uninitialized_params()
    g = np.random.default_rng(0)
    x = g.standard_normal(shape)
    if not train:
        lazy.eval()
    with ember.no_grad():
        lazy(ember.from_numpy(x.copy()))  # the dry run materializes (and, in train mode, updates stats)
    assert type(lazy) is getattr(nn, eager_name)
    assert not isinstance(lazy, LazyModuleMixin)
    ref = getattr(torch.nn, eager_name)(*eager_args, **kw, **EAGER_KWARGS.get(case, {})).double()
    ref.load_state_dict({k: torch.from_numpy(v.detach().numpy().copy()) for k, v in lazy.state_dict().items()})
    assert repr(lazy) == repr(ref)
    ref.train(train)
    xe = ember.from_numpy(x.copy()).requires_grad_()
    xt = torch.from_numpy(x.copy()).requires_grad_()
    oe, ot = lazy(xe), ref(xt)
    _close(oe, ot)
    w = g.standard_normal(tuple(ot.shape))
    (oe * ember.from_numpy(w)).sum().backward()
    (ot * torch.from_numpy(w)).sum().backward()
    _close(xe.grad, xt.grad)
    tp = dict(ref.named_parameters())
    for name, p in lazy.named_parameters():
        _close(p.grad, tp[name].grad)
    tb = dict(ref.named_buffers())
    for name, b in lazy.named_buffers():
        _close(b, tb[name])


@pytest.mark.parametrize("case", sorted(CASES))
def test_uninitialized_state_and_repr_as_torch(case):
    lazy_name, args, _, _, _ = CASES[case]
    kw = KWARGS.get(case, {})
    e = getattr(nn, lazy_name)(*args, **kw)
    t = getattr(torch.nn, lazy_name)(*args, **kw)
    assert repr(e) == repr(t)
    se, st = e.state_dict(), t.state_dict()
    assert list(se) == list(st)
    for k in st:
        assert type(se[k]).__name__ == type(st[k]).__name__
        assert repr(se[k]) == repr(st[k]) if is_lazy(se[k]) else True
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [repr(p) for _, p in e.named_parameters()] == [repr(p) for _, p in t.named_parameters()]


def test_first_forward_with_grad_and_class_conversion():
    m = nn.LazyLinear(3)
    assert isinstance(m, LazyModuleMixin) and m.cls_to_become is nn.Linear
    assert repr(m) == "LazyLinear(in_features=0, out_features=3, bias=True)"
    x = ember.randn(2, 5, requires_grad=True)
    y = m(x)
    assert type(m) is nn.Linear and tuple(m.weight.size()) == (3, 5) and type(m.weight) is nn.Parameter
    assert m.in_features == 5 and repr(m) == "Linear(in_features=5, out_features=3, bias=True)"
    assert not hasattr(m, "_initialize_hook") and not m._forward_pre_hooks and not m._load_state_dict_pre_hooks
    y.sum().backward()
    assert tuple(m.weight.grad.shape) == (3, 5) and tuple(x.grad.shape) == (2, 5)
    # The init is Linear's: U(-1/sqrt(in), 1/sqrt(in)).
    assert float(m.weight.abs().max()) <= 1 / np.sqrt(5)


def test_nested_and_dtype_before_dry_run():
    net = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(1))
    net = net.double()
    assert net[0].weight.dtype is ember.float64 and type(net[0].weight) is UninitializedParameter
    out = net(ember.ones(3, 7, dtype=ember.float64))
    assert tuple(out.shape) == (3, 1) and out.dtype is ember.float64
    assert [type(m).__name__ for m in net] == ["Linear", "ReLU", "Linear"]
    assert tuple(net[2].weight.shape) == (1, 4)
    bn = nn.LazyBatchNorm1d().double()
    assert type(bn.running_mean) is UninitializedBuffer and bn.running_mean.dtype is ember.float64
    bn(ember.ones(2, 3, dtype=ember.float64))
    assert type(bn.running_mean) is ember.Tensor and bn.running_mean.dtype is ember.float64


def test_device_and_dtype_arguments():
    m = nn.LazyConv2d(2, 3, dtype=ember.float64)
    assert m.weight.dtype is ember.float64 and m.weight.device == ember.device("cpu")
    m(ember.ones(1, 2, 4, 4, dtype=ember.float64))
    assert m.weight.dtype is ember.float64 and tuple(m.weight.shape) == (2, 2, 3, 3)


def test_state_dict_round_trip_before_and_after_init():
    # Uninitialized into uninitialized: stays lazy.
    a, b = nn.LazyLinear(3), nn.LazyLinear(3)
    assert str(b.load_state_dict(a.state_dict())) == "<All keys matched successfully>"
    assert type(b.weight) is UninitializedParameter and type(b) is nn.LazyLinear
    # Initialized into uninitialized: materialized with the saved values; the class changes at
    # the next forward, as in torch.
    lin = nn.Linear(5, 3)
    b.load_state_dict(lin.state_dict())
    assert type(b) is nn.LazyLinear and type(b.weight) is nn.Parameter
    _close(b.weight, lin.weight)
    x = ember.randn(2, 5)
    _close(b(x), lin(x))
    assert type(b) is nn.Linear
    # After init, the state is a regular one.
    c = nn.LazyLinear(3)
    c(ember.ones(1, 5))
    d = nn.Linear(5, 3)
    d.load_state_dict(c.state_dict())
    _close(d.weight, c.weight)
    # Buffers too.
    bn = nn.LazyBatchNorm2d()
    sd = bn.state_dict()
    assert type(sd["running_mean"]) is UninitializedBuffer
    assert sd["num_batches_tracked"].item() == 0
    ref = nn.BatchNorm2d(4)
    ref.running_mean.fill_(0.5)
    bn.load_state_dict(ref.state_dict())
    _close(bn.running_mean, ref.running_mean)


def test_loading_uninitialized_into_initialized_raises_as_torch():
    msgs = []
    for lib in (ember, torch):
        with pytest.raises(RuntimeError) as info:
            lib.nn.Linear(5, 3).load_state_dict(lib.nn.LazyLinear(3).state_dict())
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
    assert msgs[0].startswith("Can't access the shape of an uninitialized parameter or buffer.")


OPS = {
    "shape": lambda lib, p: p.shape,
    "dim": lambda lib, p: p.dim(),
    "numel": lambda lib, p: p.numel(),
    "method_add": lambda lib, p: p.add(1),
    "operator_add": lambda lib, p: p + 1,
    "reflected_mul": lambda lib, p: lib.ones(2) * p,
    "function_add": lambda lib, p: lib.add(p, 1),
    "linear": lambda lib, p: lib.nn.functional.linear(lib.ones(2, 2), p),
    "sum": lambda lib, p: p.sum(),
    "detach": lambda lib, p: p.detach(),
    "clone": lambda lib, p: p.clone(),
    "len": lambda lib, p: len(p),
    "requires_grad_": lambda lib, p: p.requires_grad_(),
    "bool": lambda lib, p: bool(p),
    "share_memory_": lambda lib, p: p.share_memory_(),
}


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("cls", ["UninitializedParameter", "UninitializedBuffer"])
def test_using_uninitialized_raises_as_torch(op, cls):
    kinds = []
    for lib in (ember, torch):
        p = getattr(lib.nn.parameter, cls)()
        with pytest.raises(Exception) as info:
            OPS[op](lib, p)
        kinds.append((info.type, str(info.value).split(" in ")[0].split(".")[0]))
    assert kinds[0] == kinds[1]


def test_what_uninitialized_allows():
    for lib in (ember, torch):
        p = lib.nn.parameter.UninitializedParameter()
        assert repr(p) == str(p) == "<UninitializedParameter>"
        assert p.requires_grad and p.dtype is lib.float32 and p.grad is None and p.is_leaf
        assert tuple(p.size()) == (0,) and tuple(p.data.shape) == (0,)
        assert p.is_floating_point()
        q = p.double()
        assert type(q) is lib.Tensor and q.dtype is lib.float64
        b = lib.nn.parameter.UninitializedBuffer()
        assert repr(b) == "<UninitializedBuffer>" and not b.requires_grad
        assert type(b.double()) is lib.nn.parameter.UninitializedBuffer
        assert type(b.to(lib.float64)) is lib.nn.parameter.UninitializedBuffer
        assert p.data.sum().item() == 0  # .data is a plain empty tensor
        p.materialize((2, 3))
        assert type(p) is lib.nn.Parameter and tuple(p.shape) == (2, 3) and p.requires_grad
        b.materialize((4,), dtype=lib.float64)
        # torch's becomes torch.Tensor; Ember's a plain subclass (see UninitializedBuffer), which
        # lazy modules replace by an ember.Tensor (test_nested_and_dtype_before_dry_run).
        assert isinstance(b, lib.Tensor) and not is_lazy(b) and b.dtype is lib.float64
        assert tuple(b.shape) == (4,) and b.zero_().sum().item() == 0


def test_uninitialized_message_names_the_op():
    p = UninitializedParameter()
    with pytest.raises(ValueError, match="Attempted to use an uninitialized parameter in .*add"):
        ember.add(p, 1)
    with pytest.raises(ValueError, match="uninitialized parameter in .*dim"):
        p.dim()
    with pytest.raises(ValueError, match="UninitializedBuffer"):
        UninitializedBuffer().numel()


def test_parameters_based_things_before_init():
    for lib in (ember, torch):
        m = lib.nn.LazyLinear(3)
        with pytest.raises(ValueError):
            sum(p.numel() for p in m.parameters())
        with pytest.raises(RuntimeError, match="Can't share memory on an uninitialized parameter"):
            m.share_memory()


def test_copy_pickle_and_deepcopy():
    m = nn.LazyLinear(3)
    m2 = copy.deepcopy(m)
    assert type(m2.weight) is UninitializedParameter and type(m2) is nn.LazyLinear
    p = pickle.loads(pickle.dumps(UninitializedParameter(requires_grad=False)))
    assert type(p) is UninitializedParameter and not p.requires_grad
    m2(ember.ones(2, 4))
    assert type(m2) is nn.Linear and type(m) is nn.LazyLinear


def test_mixin_errors_as_torch():
    class NoInit(LazyModuleMixin, nn.Module):
        def __init__(self):
            super().__init__()
            self.w = UninitializedParameter()

    class Partial(LazyModuleMixin, nn.Module):
        def __init__(self):
            super().__init__()
            self.w = UninitializedParameter()

        def initialize_parameters(self, x):
            pass

    with pytest.raises(NotImplementedError, match="initialize_parameters is not implemented for NoInit"):
        NoInit()(ember.ones(1))
    with pytest.raises(RuntimeError, match="module Partial has not been fully initialized"):
        Partial()(ember.ones(1))
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.LazyConv2d(4, 3, groups=2)(ember.ones(1, 3, 5, 5))
    with pytest.raises(RuntimeError, match="Expected 3D \\(unbatched\\) or 4D \\(batched\\) input to LazyConv2d"):
        nn.LazyConv2d(4, 3)(ember.ones(3, 5))


def test_lazy_warning():
    for lib in (ember, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            lib.nn.LazyLinear(3)
        assert [str(x.message) for x in w] == [
            "Lazy modules are a new feature under heavy development so changes to the API or functionality can "
            "happen at any moment."]
