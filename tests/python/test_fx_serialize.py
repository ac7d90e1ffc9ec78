"""ember.fx: JSON round trips, the C++ tracer (Trace dispatch key) from Python, and generated
C++ source compiled against include/ and libember and run."""
import json
import operator
import os
import shutil
import subprocess

import pytest

import ember
import ember.fx as fx
import ember.nn as nn
import ember.nn.functional as F
from ember import _C
from ember.fx import graph_from_json, graph_to_json, symbolic_trace

from fx_models import zoo

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


@pytest.mark.parametrize("name", sorted(zoo()))
def test_json_round_trip_exact(name):
    model, x = zoo()[name]
    gm = symbolic_trace(model)
    text = graph_to_json(gm.graph)
    doc = json.loads(text)
    assert doc["format"] == "ember.fx.graph" and doc["version"] == 1
    g2 = graph_from_json(text)
    assert graph_to_json(g2) == text
    assert str(g2) == str(gm.graph)
    # The same callables come back (by identity), so the rebuilt module computes the same.
    for a, b in zip(gm.graph.nodes, g2.nodes):
        assert a.target is b.target or a.target == b.target
    rebuilt = fx.GraphModule(model, g2)
    with ember.no_grad():
        assert bool(ember.equal(rebuilt(x), model(x)))


def test_json_values_round_trip():
    g = fx.Graph()
    x = g.placeholder("x")
    out = g.call_function(ember.sum, (x,), {"dim": (0, -1), "keepdim": True, "dtype": ember.float64})
    odd = g.call_function(ember.full, ((2,), 0.1 + 0.2), {"device": ember.device("cpu")})
    sl = g.call_function(__import__("operator").getitem, (x, (slice(None, 2, None), Ellipsis, None)))
    lst = g.call_function(ember.cat, ([x, sl], 0))
    g.output({"a": out, "b": [odd, lst], "c": (1.5e300, -0.0, float("inf"), 2 ** 70, "s")})
    text = graph_to_json(g)
    g2 = graph_from_json(text)
    assert graph_to_json(g2) == text
    n2 = {n.name: n for n in g2.nodes}
    assert n2["sum_1"].kwargs == {"dim": (0, -1), "keepdim": True, "dtype": ember.float64}
    assert n2["full"].args[1] == 0.1 + 0.2 and n2["full"].kwargs["device"] == ember.device("cpu")
    assert n2["getitem"].args[1] == (slice(None, 2, None), Ellipsis, None)
    c = n2["output"].args[0]["c"]
    assert c[0] == 1.5e300 and str(c[1]) == "-0.0" and c[2] == float("inf") and c[3] == 2 ** 70


def test_json_rejects_bad_input():
    g = fx.Graph()
    x = g.placeholder("x")
    g.output(g.call_function(lambda t: t, (x,)))
    with pytest.raises(ValueError, match="not reachable by an importable name"):
        graph_to_json(g)
    good = graph_to_json(symbolic_trace(lambda t: ember.relu(t)).graph)
    doc = json.loads(good)
    for bad, match in [
        ("not json", "not valid JSON"),
        (json.dumps({**doc, "version": 99}), "version 99 is not supported"),
        (json.dumps({**doc, "format": "torch"}), "format"),
        (json.dumps({k: v for k, v in doc.items() if k != "nodes"}), "nodes"),
        (good.replace('"t"', '"nope"', 1), "not defined before its use"),
        (json.dumps({**doc, "nodes": [doc["nodes"][0], {**doc["nodes"][1], "target_object":
                                                        {"dict": [["callable", "ember.no_such_fn"]]}},
                                      doc["nodes"][2]]}), "no_such_fn"),
        (good.replace('"op": "output"', '"op": "jump"'), "unknown opcode"),
    ]:
        with pytest.raises((ValueError, AttributeError), match=match):
            graph_from_json(bad)


def _cxx():
    return shutil.which("g++") or shutil.which("c++")


def _libember():
    d = os.path.dirname(_C.__file__)
    for cand in (os.path.join(d, "..", "..", "lib"), os.path.join(d, "..", "..", "..", "lib")):
        if os.path.exists(os.path.join(cand, "libember.so")):
            return os.path.abspath(cand)
    return None


# Compiles generated source `src` (defining `fn`) with a main that loads x and the attributes,
# calls fn and saves its two results; returns them as a dict {"y0", "y1"}.
def _compile_and_run(tmp_path, lib, src, fn, x, attrs):
    main = r'''
#include <ember/fx/trace.h>
#include <ember/serialize.h>
#include <ember/value.h>
std::vector<ember::Tensor> FN(const std::vector<ember::Tensor>&, const ember::fx::Attributes&);
int main(int argc, char** argv) {
  (void)argc;
  ember::Value in = ember::load(argv[1]);
  ember::fx::Attributes attrs;
  for (const auto& [k, v] : in.entries())
    if (k.to_string().rfind("a_", 0) == 0) attrs.emplace(k.to_string().substr(2), v.to_tensor());
  auto out = FN({in.at("x").to_tensor()}, attrs);
  ember::save(ember::Value::dict({{"y0", out[0]}, {"y1", out[1]}}), argv[2]);
  return 0;
}
'''.replace("FN", fn)
    (tmp_path / f"{fn}.cpp").write_text(src)
    (tmp_path / "main.cpp").write_text(main)
    ember.save({"x": x, **{f"a_{k}": v for k, v in attrs.items()}}, str(tmp_path / "in.safetensors"))
    exe = tmp_path / fn
    cmd = [_cxx(), "-std=c++20", "-O0", f"-I{REPO}/include", str(tmp_path / f"{fn}.cpp"), str(tmp_path / "main.cpp"),
           f"-L{lib}", "-lember", f"-Wl,-rpath,{lib}", "-fopenmp", "-o", str(exe)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    r = subprocess.run([str(exe), str(tmp_path / "in.safetensors"), str(tmp_path / "out.safetensors")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return ember.load(str(tmp_path / "out.safetensors"))


def test_trace_dispatch_records_ops_and_reruns():
    w = ember.randn(4, 3)

    def f(x, b):
        h = ember.relu(x @ w + b)
        return h.sum(dim=1), h * 2

    x, b = ember.randn(5, 4), ember.randn(3)
    g, attrs = _C._fx.trace_dispatch(f, [x, b], ["x", "b"])
    g.lint()
    targets = [n.target for n in g.nodes if n.op == "call_function"]
    assert "relu" in targets and "matmul" in targets
    assert all(n.dtype == ember.float32 for n in g.nodes if n.op == "call_function" and n.target != "getitem")
    # w and the wrapped number 2 are captured constants.
    assert sorted(attrs) == ["_tensor_constant0", "_tensor_constant1"]
    assert any(v.data_ptr() == w.data_ptr() and v.shape == w.shape for v in attrs.values())
    got = _C._fx.run_graph(g, [x, b], attrs)
    want = f(x, b)
    assert all(bool(ember.equal(a, e)) for a, e in zip(got, want))


@pytest.mark.skipif(_cxx() is None, reason="needs a C++ compiler")
def test_generated_cpp_compiles_and_matches(tmp_path):
    lib = _libember()
    if lib is None:
        pytest.skip("libember.so not found next to the Python package")
    w = ember.randn(4, 3)

    def f(x):
        h = ember.relu(x @ w + 0.5)
        return ember.softmax(h, 1), h.sum()

    x = ember.randn(5, 4)
    g, attrs = _C._fx.trace_dispatch(f, [x], ["x"])
    src = fx.graph_to_cpp(g, "traced_fn")
    out = _compile_and_run(tmp_path, lib, src, "traced_fn", x, attrs)
    y0, y1 = f(x)
    assert bool(ember.equal(out["y0"], y0)) and bool(ember.equal(out["y1"], y1))


class _SmallNet(nn.Module):
    """Layers with parameters and buffers, a method call and item accesses: a Python graph that
    is not only dispatcher ops."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 3, 5)

    def forward(self, x):
        h = F.relu(self.bn(self.conv(x)))
        h = h[:, :, 1:4, 2].flatten(1)
        parts = h.chunk(2, dim=1)
        return self.fc(h).softmax(-1), parts[0] - parts[1].mean()


def test_graph_to_cpp_names_nodes_without_cpp_form():
    gm = fx.symbolic_trace(_SmallNet().eval())
    with pytest.raises(ValueError, match=r"call_module node 'conv' calls module 'conv'.*lower_to_cpp"):
        fx.graph_to_cpp(gm.graph)
    g = fx.Graph()
    x = g.placeholder("x")
    g.output(g.call_method("flatten", (x,)))
    with pytest.raises(ValueError, match="call_method node 'flatten' calls method 'flatten'"):
        fx.graph_to_cpp(g)
    g = fx.Graph()
    x = g.placeholder("x")
    g.output(g.call_function(operator.getitem, (x, 0)))
    with pytest.raises(ValueError, match="call_function node 'getitem' calls the Python function getitem"):
        fx.graph_to_cpp(g)


@pytest.mark.skipif(_cxx() is None, reason="needs a C++ compiler")
def test_lowered_graph_module_compiles_and_matches(tmp_path):
    lib = _libember()
    if lib is None:
        pytest.skip("libember.so not found next to the Python package")
    ember.manual_seed(0)
    model = _SmallNet()
    model.train()
    with ember.no_grad():
        model(ember.randn(4, 2, 5, 5))  # non-trivial running statistics
    model.eval()
    gm = fx.symbolic_trace(model)
    x = ember.randn(3, 2, 5, 5)
    src, attrs = fx.lower_to_cpp(gm, [x], "net")
    assert "std::vector<ember::Tensor> net(" in src and "v_x = inputs.at(0)" in src
    out = _compile_and_run(tmp_path, lib, src, "net", x, attrs)
    with ember.no_grad():
        y0, y1 = model(x)
    assert ember.allclose(out["y0"], y0, rtol=1e-6, atol=1e-6) and ember.allclose(out["y1"], y1, rtol=1e-6, atol=1e-6)
