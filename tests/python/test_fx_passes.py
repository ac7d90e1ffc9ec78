"""ember.fx passes: ShapeProp, DCE, CSE, Conv/BN and Linear/BN fusion, replace_pattern,
constant folding, split_module, operator lists. Every pass leaves its input module unchanged."""
import json
import operator

import pytest

import ember
import ember.fx as fx
import ember.nn as nn
import ember.nn.functional as F
from ember.fx import GraphModule, symbolic_trace
from ember.fx.passes import (ShapeProp, const_fold, cse, dead_code_elimination, export_operator_list, fuse,
                             operator_list, split_module)

from fx_models import MobileNetV2, ResNet18, make_cnn


def same(a, b):
    return a.shape == b.shape and a.dtype == b.dtype and bool(ember.equal(a, b))


def snapshot(m):
    """Everything a pass must not change: the state, the module structure, the code."""
    state = {k: v.clone() for k, v in m.state_dict().items()}
    mods = [(n, type(s).__name__, id(s)) for n, s in m.named_modules()]
    code = getattr(m, "code", None)
    return state, mods, code


def unchanged(m, snap):
    state, mods, code = snap
    now = m.state_dict()
    return (set(now) == set(state) and all(same(now[k], state[k]) for k in state)
            and [(n, type(s).__name__, id(s)) for n, s in m.named_modules()] == mods
            and getattr(m, "code", None) == code)


# ---------------------------------------------------------------- ShapeProp
def test_shape_prop_records_shapes_without_data():
    ember.manual_seed(0)
    model = ResNet18(num_classes=7).eval()
    gm = symbolic_trace(model)
    x = ember.randn(2, 3, 32, 32)
    # Real shapes, recorded by an Interpreter that runs the model for real.
    real = {}

    class Recorder(fx.Interpreter):
        def run_node(self, n):
            r = super().run_node(n)
            if isinstance(r, ember.Tensor):
                real[n.name] = (tuple(r.shape), r.dtype)
            return r

    with ember.no_grad():
        Recorder(gm).run(x)
    snap = snapshot(gm)
    out = ShapeProp(gm).propagate(x.to("meta"))
    assert out.device.type == "meta" and tuple(out.shape) == (2, 7)
    for n in gm.graph.nodes:
        if n.name in real:
            assert (tuple(n.shape), n.dtype) == real[n.name], n.name
            assert n.meta["tensor_meta"].shape == real[n.name][0]
    assert unchanged(gm, snap)
    # The parameters stay on the CPU (ShapeProp works on Meta copies of the layers).
    assert all(p.device.type == "cpu" for p in gm.parameters())
    # Real inputs work too: only their metadata is read.
    ShapeProp(gm).propagate(x)
    assert tuple(gm.graph.nodes[-2].shape) == (2, 7)


# ---------------------------------------------------------------- DCE and CSE
def test_dead_code_elimination_keeps_effects():
    def f(x):
        unused = x.sin() * 2
        x.add_(1)          # in-place: kept
        y = ember.relu(x)
        return y

    gm = symbolic_trace(f)
    snap = snapshot(gm)
    n_before = len(gm.graph.nodes)
    new = dead_code_elimination(gm)
    assert len(gm.graph.nodes) == n_before and unchanged(gm, snap)
    names = [n.name for n in new.graph.nodes]
    assert "sin" not in names and "mul" not in names and "add_" in names
    a, b = ember.randn(4), None
    b = a.clone()
    assert same(new(a), gm(b))


def test_cse_merges_repeated_work():
    def f(x, y):
        a = ember.relu(x + y)
        b = ember.relu(x + y)
        c = x.sum(dim=0) * x.sum(dim=0)
        d = ember.rand_like(x) * 0 + ember.rand_like(x) * 0  # random: never merged
        return a + b + c + d

    gm = symbolic_trace(f)
    snap = snapshot(gm)
    new = cse(gm)
    assert unchanged(gm, snap)
    ops = [n.target for n in new.graph.nodes if n.op in ("call_function", "call_method")]
    assert ops.count(ember.relu) == 1 and ops.count("sum") == 1
    assert sum(1 for t in ops if t is ember.rand_like) == 2
    x, y = ember.randn(3), ember.randn(3)
    assert same(new(x, y), gm(x, y))


# ---------------------------------------------------------------- fusion
@pytest.mark.parametrize("make", [lambda: ResNet18(num_classes=10), lambda: make_cnn(ember),
                                  lambda: MobileNetV2(num_classes=10, width=0.5)])
def test_conv_bn_fusion(make):
    ember.manual_seed(1)
    model = make()
    # Non-trivial statistics, so that the folding does something.
    model.train()
    with ember.no_grad():
        for _ in range(2):
            model(ember.randn(4, *((1, 28, 28) if isinstance(model, nn.Sequential) else (3, 32, 32))))
    model.eval()
    x = ember.randn(2, *((1, 28, 28) if isinstance(model, nn.Sequential) else (3, 32, 32)))
    snap = snapshot(model)
    fused = fuse(model)
    assert unchanged(model, snap)
    assert not any(isinstance(m, nn.BatchNorm2d) for n, m in fused.named_modules()
                   if any(nd.op == "call_module" and nd.target == n for nd in fused.graph.nodes))
    with ember.no_grad():
        ref, got = model(x), fused(x)
    assert ember.allclose(got, ref, rtol=1e-5, atol=1e-5), (got - ref).abs().max()


def test_linear_bn_fusion_and_training_mode_untouched():
    ember.manual_seed(2)
    m = nn.Sequential(nn.Linear(6, 5), nn.BatchNorm1d(5), nn.ReLU(), nn.Linear(5, 5, bias=False), nn.BatchNorm1d(5))
    m.train()
    with ember.no_grad():
        m(ember.randn(16, 6))
    # In training mode nothing is fused.
    assert [n.target for n in fuse(m).graph.nodes if n.op == "call_module"] == ["0", "1", "2", "3", "4"]
    m.eval()
    fused = fuse(m)
    assert [n.target for n in fused.graph.nodes if n.op == "call_module"] == ["0", "2", "3"]
    assert fused.get_submodule("3").bias is not None and m[3].bias is None
    x = ember.randn(4, 6)
    with ember.no_grad():
        assert ember.allclose(fused(x), m(x), rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------- subgraph rewriting
def test_replace_pattern_rewrites_every_match():
    def f(x, y, z):
        a = ember.relu(x + y)
        b = ember.relu(a + z)       # overlaps the next match through a: both still replaced
        c = ember.relu(y + z) * 2
        keep = x + y                # an add without relu: untouched
        return a + b + c + keep

    def pattern(p, q):
        return ember.relu(p + q)

    def replacement(p, q):
        return ember.sigmoid(p - q)

    def expected(x, y, z):
        a = ember.sigmoid(x - y)
        b = ember.sigmoid(a - z)
        c = ember.sigmoid(y - z) * 2
        return a + b + c + (x + y)

    gm = symbolic_trace(f)
    matches = fx.replace_pattern(gm, pattern, replacement)
    assert len(matches) == 3
    for m in matches:
        assert m.anchor.op == "call_function"
    gm.graph.lint()
    targets = [n.target for n in gm.graph.nodes if n.op == "call_function"]
    assert ember.relu not in targets and targets.count(ember.sigmoid) == 3
    x, y, z = ember.randn(4), ember.randn(4), ember.randn(4)
    assert ember.allclose(gm(x, y, z), expected(x, y, z))


def test_replace_pattern_non_overlapping_and_escaping_values():
    def f(x):
        a = x.neg()
        b = a.neg()
        c = b.neg()     # neg(neg(.)) matches (a,b) and (b,c) overlap: only one is taken
        return c + a    # a escapes the (a, b) match: that match is invalid

    gm = symbolic_trace(f)
    matches = fx.replace_pattern(gm, lambda v: v.neg().neg(), lambda v: v * 1.0)
    assert len(matches) == 1
    x = ember.randn(3)
    assert same(gm(x), f(x))


def test_replace_pattern_bad_signature_leaves_module_unchanged():
    gm = symbolic_trace(lambda x, y: ember.relu(x + y))
    code = gm.code
    with pytest.raises(ValueError, match="signatures must match"):
        fx.replace_pattern(gm, lambda a, b: ember.relu(a + b), lambda a: ember.sigmoid(a))
    with pytest.raises(TypeError, match="callable"):
        fx.replace_pattern(gm, "relu", lambda a: a)
    assert gm.code == code
    x = ember.randn(3)
    assert same(gm(x, x), ember.relu(x + x))


# ---------------------------------------------------------------- constant folding, split, op list
def test_const_fold():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(ember.randn(4, 4))
            self.b = nn.Parameter(ember.randn(4))

        def forward(self, x):
            scale = (self.w * 2).t()          # constant: folded
            return x @ scale + self.b.exp()   # b.exp() folded too

    m = M()
    gm = symbolic_trace(m)
    snap = snapshot(gm)
    folded = const_fold(gm)
    assert unchanged(gm, snap)
    ops = [n.op for n in folded.graph.nodes]
    assert ops.count("call_method") == 0 and ops.count("get_attr") == 2
    assert any(n.target.startswith("_folded_constant") for n in folded.graph.nodes if n.op == "get_attr")
    x = ember.randn(3, 4)
    with ember.no_grad():
        assert ember.allclose(folded(x), m(x))


def test_split_module():
    ember.manual_seed(3)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 2))
    gm = symbolic_trace(model)
    parts = {"0": 0, "1": 0, "2": 1, "3": 1, "4": 2}
    split = split_module(gm, model, lambda n: parts[n.target])
    calls = [n.target for n in split.graph.nodes if n.op == "call_module"]
    assert calls == ["submod_0", "submod_1", "submod_2"]
    assert [n.target for n in split.submod_1.graph.nodes if n.op == "call_module"] == ["2", "3"]
    x = ember.randn(5, 4)
    with ember.no_grad():
        assert same(split(x), model(x))

    # Out-of-order partitions are run in dependency order; cycles are rejected.
    def f(x):
        a = x.sin()
        b = a.cos()
        return b.exp() + a

    g = symbolic_trace(f)
    order = {"sin": 1, "cos": 0, "exp": 1, "add": 1}
    with pytest.raises(RuntimeError, match="cycle"):
        split_module(g, g, lambda n: order[n.name])
    s = split_module(g, g, lambda n: {"sin": 0, "cos": 1, "exp": 1, "add": 2}[n.name])
    assert same(s(x), f(x))


def test_operator_list(tmp_path):
    class Wrapper(nn.Module):
        def __init__(self):
            super().__init__()
            self.cnn = make_cnn(ember).eval()

        def forward(self, x):
            return ember.relu(self.cnn(x).view(2, -1)) + 1

    gm = symbolic_trace(Wrapper())
    ops = operator_list(gm)
    assert ops == sorted(ops)
    assert ops == ["Tensor.view", "ember.nn.BatchNorm2d", "ember.nn.Conv2d", "ember.nn.Dropout", "ember.nn.Flatten",
                   "ember.nn.Linear", "ember.nn.MaxPool2d", "ember.nn.ReLU", "ember.relu", "operator.add"]
    path = tmp_path / "ops.json"
    assert export_operator_list(gm, str(path)) == ops
    assert json.loads(path.read_text()) == {"version": 1, "operators": ops}


def test_failed_fusion_leaves_module_intact():
    # A graph that uses an attribute its module lacks: GraphModule construction fails and the
    # source module is untouched.
    model = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2)).eval()
    gm = symbolic_trace(model)
    snap = snapshot(gm)
    node = next(n for n in gm.graph.nodes if n.op == "call_module")
    bad = gm.graph.copy()
    for n in bad.nodes:
        if n.op == "call_module" and n.target == node.target:
            n.args = (n.args[0],)
    with bad.inserting_before(bad.nodes[-1]):
        bad.get_attr("nope.weight")
    with pytest.raises(RuntimeError, match="nope"):
        GraphModule(gm, bad)
    assert unchanged(gm, snap)
