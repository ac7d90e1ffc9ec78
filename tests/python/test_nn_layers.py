"""The layers of ember.nn (activations, normalization, dropout, embeddings) against
torch.nn's: the same constructor arguments and weights, then outputs, parameter and input
gradients, buffers (running statistics) and repr, in train and eval modes."""
import numpy as np
import pytest
import torch

import ember
import ember.nn as nn

RNG = np.random.default_rng(0)


def _copy_params(e_mod, t_mod):
    """torch's parameters and buffers into the ember layer (same names)."""
    for name, t in list(t_mod.named_parameters()) + list(t_mod.named_buffers()):
        target = e_mod.get_parameter(name) if "." not in name and name in dict(e_mod.named_parameters()) else None
        src = ember.from_numpy(t.detach().numpy().copy())
        with ember.no_grad():
            (target if target is not None else dict(e_mod.named_buffers())[name]).copy_(src)


def _compare(e_mod, t_mod, shape, train=True, dtype=np.float64, input_grad=True, steps=1):
    _copy_params(e_mod, t_mod)
    e_mod.train(train)
    t_mod.train(train)
    x0 = RNG.standard_normal(shape).astype(dtype) * 2 + 0.5
    g0 = None
    for _ in range(steps):
        xe = ember.from_numpy(x0.copy()).requires_grad_(input_grad)
        xt = torch.from_numpy(x0.copy()).requires_grad_(input_grad)
        ye, yt = e_mod(xe), t_mod(xt)
        np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-7, atol=1e-9)
        if input_grad:
            if g0 is None:
                g0 = RNG.standard_normal(tuple(yt.shape)).astype(dtype)
            ye.backward(ember.from_numpy(g0.copy()))
            yt.backward(torch.from_numpy(g0.copy()))
            np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-7, atol=1e-9)
    for (n, pe), (_, pt) in zip(e_mod.named_parameters(), t_mod.named_parameters()):
        if pt.grad is not None:
            np.testing.assert_allclose(pe.grad.numpy(), pt.grad.numpy(), rtol=1e-7, atol=1e-9, err_msg=n)
    for (n, be), (_, bt) in zip(e_mod.named_buffers(), t_mod.named_buffers()):
        np.testing.assert_allclose(be.numpy(), bt.numpy(), rtol=1e-10, err_msg=n)
    assert repr(e_mod) == repr(t_mod)


ACTIVATIONS = [
    ("ReLU", ()), ("ReLU6", ()), ("GELU", ()), ("GELU", ("tanh",)), ("SiLU", ()), ("Mish", ()), ("Softplus", (2, 5)),
    ("Softsign", ()), ("Hardtanh", (-2.0, 3.0)), ("Hardsigmoid", ()), ("Hardswish", ()), ("ELU", (0.5,)),
    ("SELU", ()), ("CELU", (2.0,)), ("LeakyReLU", (0.2,)), ("Sigmoid", ()), ("Tanh", ()), ("LogSigmoid", ()),
    ("Tanhshrink", ()), ("Softshrink", (1.0,)), ("Hardshrink", (1.0,)), ("Threshold", (0.5, -1.0)), ("GLU", ()),
    ("Softmax", (1,)), ("LogSoftmax", (1,)), ("Softmin", (0,)), ("Softmax2d", ()), ("PReLU", ()), ("PReLU", (3,)),
    ("RReLU", (0.1, 0.3)),
]


@pytest.mark.parametrize("name,args", ACTIVATIONS, ids=[f"{n}{a}" for n, a in ACTIVATIONS])
def test_activation_layers(name, args):
    shape = (2, 3, 4, 4) if name == "Softmax2d" else (4, 3, 6)
    # RReLU draws random slopes when training: compared in eval mode.
    _compare(getattr(nn, name)(*args).double(), getattr(torch.nn, name)(*args).double(), shape,
             train=name != "RReLU")


@pytest.mark.parametrize("inplace_layer", ["ReLU", "ELU", "LeakyReLU", "Hardtanh", "SiLU", "Threshold"])
def test_inplace_activation_layers(inplace_layer):
    args = (0.5, -1.0) if inplace_layer == "Threshold" else ()
    e, t = getattr(nn, inplace_layer)(*args, inplace=True), getattr(torch.nn, inplace_layer)(*args, inplace=True)
    x0 = RNG.standard_normal((3, 5))
    xe, xt = ember.from_numpy(x0.copy()), torch.from_numpy(x0.copy())
    e(xe), t(xt)
    np.testing.assert_allclose(xe.numpy(), xt.numpy(), rtol=1e-12)
    assert repr(e) == repr(t)


NORMS = [
    ("LayerNorm", ((6,),), (4, 5, 6)), ("LayerNorm", ((5, 6),), (4, 5, 6)),
    ("LayerNorm", (6,), (4, 6), {"elementwise_affine": False}),
    ("GroupNorm", (2, 6), (4, 6, 5)), ("GroupNorm", (3, 6), (4, 6, 2, 3), {"affine": False}),
    ("LocalResponseNorm", (3,), (2, 5, 4)),
    ("BatchNorm1d", (3,), (8, 3)), ("BatchNorm1d", (3,), (8, 3, 5)), ("BatchNorm2d", (3,), (4, 3, 5, 5)),
    ("BatchNorm3d", (2,), (3, 2, 3, 3, 3)), ("BatchNorm2d", (3,), (4, 3, 2, 2), {"momentum": None}),
    ("BatchNorm1d", (3,), (8, 3), {"affine": False, "track_running_stats": False}),
    ("InstanceNorm1d", (3,), (4, 3, 7)), ("InstanceNorm2d", (3,), (4, 3, 5, 5), {"affine": True}),
    ("InstanceNorm1d", (3,), (4, 3, 7), {"track_running_stats": True}), ("InstanceNorm3d", (2,), (2, 2, 3, 3, 3)),
]


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("spec", NORMS, ids=[f"{s[0]}{s[1]}{s[3] if len(s) > 3 else ''}" for s in NORMS])
def test_normalization_layers(spec, train):
    name, args, shape = spec[:3]
    kwargs = spec[3] if len(spec) > 3 else {}
    e = getattr(nn, name)(*args, **kwargs).double()
    t = getattr(torch.nn, name)(*args, **kwargs).double()
    # parameters other than the initial ones, so that a swapped weight and bias would show
    with torch.no_grad():
        for p in t.parameters():
            p.copy_(torch.from_numpy(RNG.standard_normal(tuple(p.shape))))
    _compare(e, t, shape, train=train, steps=2)


def test_batch_norm_layer_errors():
    with pytest.raises(ValueError, match="expected 4D input"):
        nn.BatchNorm2d(3)(ember.zeros(2, 3))
    with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 4"):
        nn.BatchNorm1d(4)(ember.zeros(2, 3))
    with pytest.raises(ValueError, match="num_channels must be divisible by num_groups"):
        nn.GroupNorm(4, 6)


@pytest.mark.parametrize("name", ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
                                  "FeatureAlphaDropout"])
def test_dropout_layers(name):
    shape = {"Dropout1d": (4, 3, 5), "Dropout3d": (2, 3, 2, 2, 2)}.get(name, (4, 3, 5, 5))
    e, t = getattr(nn, name)(0.3), getattr(torch.nn, name)(0.3)
    assert repr(e) == repr(t)
    _compare(e, t, shape, train=False)
    e.train()
    x = ember.ones(*shape)
    y = e(x).numpy()
    assert (y != 1).any() and y.shape == shape
    with pytest.raises(ValueError, match="between 0 and 1"):
        getattr(nn, name)(1.5)


@pytest.mark.parametrize("kwargs", [{}, {"padding_idx": 1}, {"padding_idx": -2}, {"max_norm": 1.0},
                                    {"scale_grad_by_freq": True}])
def test_embedding_layer(kwargs):
    e, t = nn.Embedding(10, 4, **kwargs).double(), torch.nn.Embedding(10, 4, **kwargs).double()
    _copy_params(e, t)
    idx = RNG.integers(0, 10, (3, 5))
    ye, yt = e(ember.from_numpy(idx)), t(torch.from_numpy(idx))
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-12)
    g = RNG.standard_normal((3, 5, 4))
    ye.backward(ember.from_numpy(g)), yt.backward(torch.from_numpy(g))
    np.testing.assert_allclose(e.weight.grad.numpy(), t.weight.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(e.weight.detach().numpy(), t.weight.detach().numpy(), rtol=1e-6)  # max_norm renorm
    assert repr(e) == repr(t)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_layer(mode):
    e, t = nn.EmbeddingBag(10, 3, mode=mode).double(), torch.nn.EmbeddingBag(10, 3, mode=mode).double()
    _copy_params(e, t)
    idx, off = RNG.integers(0, 10, 9), np.array([0, 2, 2, 7])
    ye = e(ember.from_numpy(idx), ember.from_numpy(off))
    yt = t(torch.from_numpy(idx), torch.from_numpy(off))
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-12)
    g = RNG.standard_normal((4, 3))
    ye.backward(ember.from_numpy(g)), yt.backward(torch.from_numpy(g))
    np.testing.assert_allclose(e.weight.grad.numpy(), t.weight.grad.numpy(), rtol=1e-12)
    assert repr(e) == repr(t)


def test_embedding_from_pretrained():
    w = RNG.standard_normal((5, 2))
    e = nn.Embedding.from_pretrained(ember.from_numpy(w.copy()))
    t = torch.nn.Embedding.from_pretrained(torch.from_numpy(w.copy()))
    assert e.weight.requires_grad == t.weight.requires_grad is False
    np.testing.assert_array_equal(e(ember.tensor([1, 3])).numpy(), t(torch.tensor([1, 3])).numpy())


CONV_POOL = [
    ("Conv1d", (3, 4, 3), (2, 3, 9)), ("Conv2d", (3, 4, 3), (2, 3, 7, 7)),
    ("Conv2d", (4, 6, (3, 2)), (2, 4, 7, 6), {"stride": 2, "padding": 1, "groups": 2, "bias": False}),
    ("Conv2d", (3, 4, 3), (2, 3, 7, 7), {"padding": "same", "dilation": 2}),
    ("Conv2d", (3, 4, 3), (2, 3, 7, 7), {"padding": 1, "padding_mode": "reflect"}),
    ("Conv2d", (3, 4, 3), (2, 3, 7, 7), {"padding": 2, "padding_mode": "circular"}),
    ("Conv3d", (2, 3, 2), (1, 2, 4, 4, 4)),
    ("ConvTranspose1d", (3, 4, 3), (2, 3, 5), {"stride": 2}),
    ("ConvTranspose2d", (4, 2, 3), (2, 4, 5, 5), {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}),
    ("ConvTranspose3d", (2, 3, 2), (1, 2, 3, 3, 3)),
    ("MaxPool1d", (3,), (2, 3, 9)), ("MaxPool2d", (3, 2), (2, 3, 8, 8), {"padding": 1, "ceil_mode": True}),
    ("MaxPool3d", (2,), (1, 2, 4, 4, 4)), ("AvgPool1d", (3,), (2, 3, 9)),
    ("AvgPool2d", (3, 2, 1), (2, 3, 8, 8), {"count_include_pad": False}), ("AvgPool3d", (2,), (1, 2, 4, 4, 4)),
    ("AdaptiveAvgPool1d", (4,), (2, 3, 9)), ("AdaptiveAvgPool2d", ((2, 3),), (2, 3, 7, 8)),
    ("AdaptiveAvgPool3d", (2,), (1, 2, 5, 4, 4)), ("AdaptiveMaxPool1d", (4,), (2, 3, 9)),
    ("AdaptiveMaxPool2d", (2,), (2, 3, 7, 8)), ("LPPool1d", (2, 3), (2, 3, 9)), ("LPPool2d", (2, 2), (2, 3, 8, 8)),
    ("ConstantPad1d", (2, 0.5), (2, 3, 4)), ("ConstantPad2d", ((1, 0, 2, 1), 1.5), (2, 3, 4, 4)),
    ("ZeroPad2d", (2,), (2, 3, 4, 4)), ("ReflectionPad1d", (2,), (2, 3, 5)), ("ReflectionPad2d", (1,), (2, 3, 4, 4)),
    ("ReplicationPad1d", ((1, 2),), (2, 3, 5)), ("ReplicationPad2d", (1,), (2, 3, 4, 4)),
    ("ReplicationPad3d", (1,), (1, 2, 3, 3, 3)), ("Fold", ((4, 5), (2, 2)), (2, 12, 12)),
    ("Unfold", ((2, 3),), (2, 3, 5, 6), {"padding": 1}), ("PixelShuffle", (2,), (2, 8, 3, 3)),
    ("PixelUnshuffle", (2,), (2, 2, 4, 6)),
]


@pytest.mark.parametrize("spec", CONV_POOL, ids=[f"{s[0]}{s[1]}{s[3] if len(s) > 3 else ''}" for s in CONV_POOL])
def test_conv_pool_pad_layers(spec):
    name, args, shape = spec[:3]
    kwargs = spec[3] if len(spec) > 3 else {}
    _compare(getattr(nn, name)(*args, **kwargs).double(), getattr(torch.nn, name)(*args, **kwargs).double(), shape)


def test_max_pool_indices_and_unpool_layers():
    x0 = RNG.standard_normal((2, 3, 6, 6))
    out = []
    for lib in (ember, torch):
        pool, unpool = lib.nn.MaxPool2d(2, return_indices=True), lib.nn.MaxUnpool2d(2)
        y, idx = pool(lib.from_numpy(x0.copy()))
        out.append((y.numpy(), idx.numpy(), unpool(y, idx).numpy(), repr(unpool).replace("torch", "ember")))
    for e, t in zip(*out):
        if isinstance(e, str):
            assert e == t
        else:
            np.testing.assert_array_equal(e, t)


def test_conv_layer_errors():
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.Conv2d(3, 4, 3, groups=2)
    with pytest.raises(ValueError, match="padding='same' is not supported for strided convolutions"):
        nn.Conv2d(3, 4, 3, stride=2, padding="same")
    with pytest.raises(RuntimeError):
        nn.Conv2d(3, 4, 3)(ember.zeros(1, 2, 5, 5))  # wrong channel count


def test_conv_signatures_match_torch():
    """Conv1d-3d take torch's arguments (output_padding is ConvTranspose's only), so a
    positional device or dtype lands where it does in torch."""
    import inspect
    for name in ("Conv1d", "Conv2d", "Conv3d", "ConvTranspose2d"):
        e, t = inspect.signature(getattr(nn, name)), inspect.signature(getattr(torch.nn, name))
        assert [(p.name, p.default) for p in e.parameters.values()] == \
            [(p.name, p.default) for p in t.parameters.values()]
    for lib in (torch, ember):
        with pytest.raises(TypeError, match="output_padding"):
            lib.nn.Conv2d(3, 4, 3, output_padding=1)


def test_hardtanh_deprecated_min_value_max_value():
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match="keyword argument min_value is deprecated and rename to min_val"):
            m = lib.nn.Hardtanh(min_value=-0.5, max_value=2.0)
        assert (m.min_val, m.max_val) == (-0.5, 2.0)
    with pytest.warns(UserWarning, match="max_value is deprecated"):
        e, t = nn.Hardtanh(max_value=2.0), torch.nn.Hardtanh(max_value=2.0)
    _compare(e.double(), t.double(), (4, 5))


DISTANCES = [("PairwiseDistance", {}, (5, 4), (5, 4)), ("PairwiseDistance", {"p": 1.0, "keepdim": True}, (5, 4), (4,)),
             ("PairwiseDistance", {"p": -1.5, "eps": 1e-3}, (4,), (4,)), ("CosineSimilarity", {}, (5, 4), (5, 4)),
             ("CosineSimilarity", {"dim": 0, "eps": 1e-6}, (3, 4, 2), (3, 1, 2))]


@pytest.mark.parametrize("name,kwargs,s1,s2", DISTANCES)
def test_distance_layers(name, kwargs, s1, s2):
    e, t = getattr(nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
    assert repr(e) == repr(t)
    a, b = RNG.standard_normal(s1), RNG.standard_normal(s2)
    ea, eb = ember.from_numpy(a.copy()).requires_grad_(), ember.from_numpy(b.copy()).requires_grad_()
    ta, tb = torch.from_numpy(a.copy()).requires_grad_(), torch.from_numpy(b.copy()).requires_grad_()
    ye, yt = e(ea, eb), t(ta, tb)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-10, atol=1e-12)
    g = RNG.standard_normal(tuple(yt.shape))
    ye.backward(ember.from_numpy(g.copy()))
    yt.backward(torch.from_numpy(g.copy()))
    np.testing.assert_allclose(ea.grad.numpy(), ta.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(eb.grad.numpy(), tb.grad.numpy(), rtol=1e-9, atol=1e-12)


class _UserNet(nn.Module):
    """A user-defined module: its own errors are left as they are."""

    def __init__(self):
        super().__init__()
        self.inner = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(2, 1))

    def forward(self, x):
        if x.dim() != 2:
            raise ValueError("my net wants matrices")
        return self.inner(x)


@pytest.mark.parametrize("build,shape,prefix", [
    (lambda m: m.Linear(4, 3), (2, 5), "Linear(in_features=4, out_features=3, bias=True): "),
    (lambda m: m.Conv2d(3, 8, 3), (1, 5, 8, 8), "Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1)): "),
    (lambda m: m.LayerNorm(6), (2, 5), "LayerNorm((6,), eps=1e-05, elementwise_affine=True): "),
    (lambda m: m.GroupNorm(2, 4), (2, 6, 3), "GroupNorm(2, 4, eps=1e-05, affine=True): "),
    (lambda m: m.LSTM(5, 4), (6, 3, 7), "LSTM(5, 4): "),
    (lambda m: m.Sequential(m.Linear(4, 3), m.ReLU(), m.Linear(2, 1)), (2, 4),
     "Linear(in_features=2, out_features=1, bias=True): "),
], ids=["linear", "conv", "layer_norm", "group_norm", "lstm", "nested"])
def test_layer_errors_name_the_layer(build, shape, prefix):
    """A shape error inside a layer is torch's error (type and text, which give the expected
    and the actual shape) prefixed by the innermost layer with its configuration."""
    with pytest.raises(Exception) as t_info:
        build(torch.nn)(torch.randn(*shape))
    with pytest.raises(Exception) as e_info:
        build(nn)(ember.randn(*shape))
    assert type(e_info.value) is type(t_info.value)
    assert str(e_info.value) == prefix + str(t_info.value)


def test_layer_errors_leave_user_messages_alone():
    net = _UserNet()
    with pytest.raises(ValueError, match="^my net wants matrices$"):
        net(ember.randn(3))
    with pytest.raises(RuntimeError, match=r"^Linear\(in_features=2, out_features=1, bias=True\): "):
        net(ember.randn(2, 4))
