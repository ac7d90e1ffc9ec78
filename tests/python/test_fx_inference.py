"""ember.fx.experimental.optimize_for_inference: prepacked oneDNN convolutions with BatchNorm
folded and bias, residual add and ReLU fused; results equal the eager model within 1e-4, the
input model is untouched, and training mode or autograd are refused."""
import operator

import numpy as np
import pytest

import ember
import ember.nn as nn
import ember.nn.functional as F
from ember.fx import symbolic_trace
from ember.fx.experimental import PackedConv2d, optimize_for_inference

from fx_models import MobileNetV2, ResNet18, make_cnn


def with_stats(model, shape):
    """Non-trivial BatchNorm statistics (two training passes), then eval mode."""
    model.train()
    with ember.no_grad():
        for _ in range(2):
            model(ember.randn(*shape))
    return model.eval()


def packed_nodes(gm):
    mods = dict(gm.named_modules())
    return [n for n in gm.graph.nodes if n.op == "call_module" and isinstance(mods[n.target], PackedConv2d)]


class Residual(nn.Module):
    """Every fusion case: conv+relu, conv+add, add with the other operand computed later (the
    add then fuses into that one), functional and method relu, a channel count not a multiple
    of 16, a graph output that is a convolution's direct result."""

    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(3, 32, 3, padding=1)
        self.b = nn.Conv2d(32, 32, 3, padding=1, bias=False)
        self.c = nn.Conv2d(32, 32, 1)
        self.d = nn.Conv2d(32, 24, 3, stride=2, padding=1)
        self.e = nn.Conv2d(24, 24, 3, padding=2, dilation=2, groups=3)

    def forward(self, x):
        h = F.relu(self.a(x))
        y = self.b(h) + self.c(h)           # c is computed after b: the add fuses into c
        y = y.relu()
        z = self.d(y)
        return self.e(z) + z, z


@pytest.mark.parametrize("name,make,shape", [
    ("resnet18", lambda: ResNet18(num_classes=10), (1, 3, 64, 64)),
    ("resnet18_b3", lambda: ResNet18(num_classes=10, width=16), (3, 3, 40, 40)),
    ("mobilenet_v2", lambda: MobileNetV2(num_classes=10, width=0.5), (1, 3, 64, 64)),
    ("fashion_mnist_cnn", lambda: make_cnn(ember), (2, 1, 28, 28)),
    ("residual", Residual, (2, 3, 20, 20)),
])
def test_matches_eager(name, make, shape):
    ember.manual_seed(3)
    model = with_stats(make(), (2,) + shape[1:]) if name != "residual" else make().eval()
    x = ember.randn(*shape)
    state = {k: v.clone() for k, v in model.state_dict().items()}
    opt = optimize_for_inference(model)
    # the input model keeps its state and modules
    assert all(bool(ember.equal(v, state[k])) for k, v in model.state_dict().items())
    assert not any(isinstance(m, PackedConv2d) for m in model.modules())
    with ember.no_grad():
        ref = model(x)
        for _ in range(2):  # the second call reuses the packed plans
            got = opt(x)
    refs, gots = (ref, got) if isinstance(ref, tuple) else ((ref,), (got,))
    for r, g in zip(refs, gots):
        assert g.shape == r.shape and g.dtype == r.dtype and g.is_contiguous()
        assert ember.allclose(g, r, rtol=1e-4, atol=1e-4), (name, (g - r).abs().max())
    n_conv = sum(isinstance(m, nn.Conv2d) for m in model.modules())
    assert len(packed_nodes(opt)) == n_conv
    assert not any(isinstance(m, (nn.BatchNorm2d, nn.Dropout)) for m in opt.modules())


def test_resnet_fuses_relu_and_residual_and_keeps_blocked_activations():
    model = with_stats(ResNet18(num_classes=10, width=16), (2, 3, 32, 32))
    opt = optimize_for_inference(model)
    mods = dict(opt.named_modules())
    nodes = packed_nodes(opt)
    # every add and every ReLU of ResNet-18 went into a convolution
    assert not [n for n in opt.graph.nodes if n.op == "call_function" and n.target in (operator.add, operator.iadd)]
    assert not [n for n in opt.graph.nodes if n.op == "call_module" and isinstance(mods[n.target], nn.ReLU)]
    assert sum(mods[n.target].residual for n in nodes) == 8
    assert sum(mods[n.target].relu for n in nodes) == 17  # conv1, 8 first convs, 8 residual ends
    # blocked exactly where all users are packed convolutions: not conv1 (-> maxpool), not the last block
    blocked = {n.name for n in nodes if mods[n.target].blocked_out}
    assert len(blocked) == len(nodes) - 2
    assert all(all(u in set(nodes) for u in n.users) == (n.name in blocked) for n in nodes)


def test_packed_conv_against_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 32, 9, 11)).astype(np.float32)
    for groups, stride, dil in [(1, 1, 1), (1, 2, 1), (4, 1, 2), (16, 1, 1)]:
        w = rng.standard_normal((48, 32 // groups, 3, 3)).astype(np.float32)
        b = rng.standard_normal(48).astype(np.float32)
        conv = nn.Conv2d(32, 48, 3, stride, dil, dil, groups).eval()
        with ember.no_grad():
            conv.weight.copy_(ember.from_numpy(w))
            conv.bias.copy_(ember.from_numpy(b))
        ty = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), stride, dil,
                                        dil, groups)
        r = rng.standard_normal(tuple(ty.shape)).astype(np.float32)
        want = torch.relu(ty + torch.from_numpy(r)).numpy()
        p = PackedConv2d(conv, relu=True, residual=True).eval()
        got = p(ember.from_numpy(x), ember.from_numpy(r))
        np.testing.assert_allclose(got.numpy(), want, rtol=1e-4, atol=1e-4)
        # blocked output ([N, C/16, H, W, 16]), read back by to_dense
        p.blocked_out = True
        blk = p(ember.from_numpy(x), ember.from_numpy(r))
        assert tuple(blk.shape) == (2, 3) + tuple(ty.shape[2:]) + (16,)
        np.testing.assert_allclose(ember._C._fx.to_dense(blk).numpy(), want, rtol=1e-4, atol=1e-4)
        # a blocked input and residual, and a non-contiguous input
        q = PackedConv2d(nn.Conv2d(48, 16, 1).eval(), residual=True).eval()
        q_ref = q(ember._C._fx.to_dense(blk), ember._C._fx.to_dense(blk)[:, :16].contiguous())
        blk16 = ember.from_numpy(ember._C._fx.to_dense(blk)[:, :16].numpy().reshape(2, 1, 16, *ty.shape[2:])
                                 .transpose(0, 1, 3, 4, 2).copy())
        np.testing.assert_allclose(q(blk, blk16).numpy(), q_ref.numpy(), rtol=1e-5, atol=1e-5)
        xt = ember.from_numpy(np.ascontiguousarray(x.transpose(0, 1, 3, 2))).transpose(2, 3)
        p.blocked_out = False
        np.testing.assert_allclose(p(xt, ember.from_numpy(r)).numpy(), want, rtol=1e-4, atol=1e-4)


def test_residual_written_in_between_is_not_fused():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Conv2d(16, 16, 3, padding=1)

        def forward(self, x):
            x = x * 1.0
            y = self.a(x)
            x.relu_()           # the add must see x after this
            return y + x

    model = M().eval()
    opt = optimize_for_inference(model)
    assert [n.target for n in opt.graph.nodes if n.op == "call_function"].count(operator.add) == 1
    x = ember.randn(1, 16, 6, 6)
    with ember.no_grad():
        assert ember.allclose(opt(x), model(x), rtol=1e-4, atol=1e-4)


def test_refuses_training_mode_and_autograd():
    model = ResNet18(num_classes=10, width=16)
    with pytest.raises(RuntimeError, match="training mode.*eval"):
        optimize_for_inference(model.train())
    opt = optimize_for_inference(model.eval())
    x = ember.randn(1, 3, 32, 32, requires_grad=True)
    with pytest.raises(RuntimeError, match="does not support autograd"):
        opt(x)
    with ember.no_grad():
        opt(x)  # fine without autograd
    opt(x.detach())
    opt.train()
    with pytest.raises(RuntimeError, match="inference only.*eval"):
        opt(x.detach())


def test_bad_input_and_options():
    conv = nn.Conv2d(8, 16, 3).eval()
    p = PackedConv2d(conv)
    with pytest.raises(RuntimeError, match="expected input with 8 channels"):
        p(ember.randn(1, 4, 8, 8))
    with pytest.raises(ValueError, match="float32"):
        p(ember.randn(1, 8, 8, 8, dtype=ember.float64))
    with pytest.raises(ValueError, match="without a residual"):
        p(ember.randn(1, 8, 8, 8), ember.randn(1, 16, 6, 6))
    pr = PackedConv2d(conv, residual=True)
    with pytest.raises(RuntimeError, match="residual"):
        pr(ember.randn(1, 8, 8, 8), ember.randn(1, 16, 5, 5))
    with pytest.raises(ValueError, match="padding='same'"):
        PackedConv2d(nn.Conv2d(8, 16, 3, padding="same"))
    with pytest.raises(KeyError, match="unknown pass"):
        optimize_for_inference(conv, {"mkldnn": True})
    # passes can be turned off: then the result is fuse()'s
    m = with_stats(make_cnn(ember), (2, 1, 28, 28))
    only_fused = optimize_for_inference(m, {"pack_conv": False})
    assert not packed_nodes(only_fused)
    x = ember.randn(2, 1, 28, 28)
    with ember.no_grad():
        assert ember.allclose(only_fused(x), m(x), rtol=1e-5, atol=1e-5)


def test_traced_module_input():
    model = with_stats(ResNet18(num_classes=10, width=16), (2, 3, 32, 32))
    gm = symbolic_trace(model)
    code = gm.code
    opt = optimize_for_inference(gm)
    assert gm.code == code
    x = ember.randn(1, 3, 32, 32)
    with ember.no_grad():
        assert ember.allclose(opt(x), model(x), rtol=1e-4, atol=1e-4)
