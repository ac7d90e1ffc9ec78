"""Anomaly detection and inference mode against torch: the same programs give the same flags,
errors, warnings and tensor kinds in both libraries."""
import warnings

import pytest
import torch

import ember

LIBS = [ember, torch]


def outcome(fn):
    """What running fn gives: ("ok", value) or (exception type name, message), plus the
    messages of the warnings it issued (anomaly mode's own "has been enabled" one left out)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = ("ok", fn())
        except Exception as e:  # noqa: BLE001 - the outcome is compared, whatever it is
            r = (type(e).__name__, str(e))
    msgs = [str(x.message) for x in w if "Anomaly Detection has been enabled" not in str(x.message)]
    return r, msgs


def same(fn):
    """Runs fn(lib) in both libraries and checks that they agree; returns ember's outcome."""
    e, t = outcome(lambda: fn(ember)), outcome(lambda: fn(torch))
    assert e[0] == t[0]
    assert len(e[1]) == len(t[1])
    return e


# ---------------------------------------------------------------- anomaly detection
def test_anomaly_flags():
    def flags(lib):
        r = [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        with lib.autograd.detect_anomaly(check_nan=False):
            r += [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
            with lib.autograd.detect_anomaly():
                r += [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
            r += [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        r += [lib.is_anomaly_enabled()]
        s = lib.autograd.set_detect_anomaly(True, check_nan=False)  # takes effect at once
        r += [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()]
        lib.autograd.set_detect_anomaly(False)
        r += [lib.is_anomaly_enabled()]
        with lib.autograd.set_detect_anomaly(True):
            r += [lib.is_anomaly_enabled()]
        r += [lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled(), s is not None]
        return r
    assert same(flags)[0][1] == [False, True, True, False, True, True, True, False, False, True, False, False, True,
                                 False, True, True]


@pytest.mark.parametrize("lib", LIBS, ids=["ember", "torch"])
def test_detect_anomaly_warns_that_it_is_slow(lib):
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled. This mode will increase the runtime"):
        with lib.autograd.detect_anomaly():
            pass


def nan_program(lib):
    a = lib.zeros(2, requires_grad=True)
    b = a * lib.tensor([float("inf"), 1.0])  # FORWARD-LINE: inf * 0 gives NaN in backward
    (b * 0).sum().backward()
    return str(a.grad.tolist())


@pytest.mark.parametrize("lib", LIBS, ids=["ember", "torch"])
def test_nan_gradient_names_node_and_forward_call(lib):
    with pytest.warns(UserWarning) as record:
        with pytest.raises(RuntimeError, match=r"^Function 'MulBackward0' returned nan values in its 0th output\.$"):
            with lib.autograd.detect_anomaly():
                nan_program(lib)
    reports = [str(w.message) for w in record if "Error detected" in str(w.message)]
    assert len(reports) == 1
    assert reports[0].startswith("Error detected in MulBackward0. Traceback of forward call that caused the error:\n")
    assert "test_autograd_anomaly.py" in reports[0] and "FORWARD-LINE" in reports[0]


def test_nan_gradient_without_check_nan_or_anomaly_mode():
    def run(lib):
        with lib.autograd.detect_anomaly(check_nan=False):
            return nan_program(lib)
    assert same(run) == (("ok", "[nan, 0.0]"), [])
    assert same(nan_program) == (("ok", "[nan, 0.0]"), [])


def test_node_made_outside_anomaly_mode_has_no_forward_trace():
    def run(lib):
        a = lib.zeros(2, requires_grad=True)
        c = (a * lib.tensor([float("inf"), 1.0])) * 0
        with lib.autograd.set_detect_anomaly(True):
            c.sum().backward()
    (kind, msg), warns = same(run)
    assert (kind, msg) == ("RuntimeError", "Function 'MulBackward0' returned nan values in its 0th output.")
    assert warns == ["Error detected in MulBackward0. No forward pass information available. Enable detect anomaly "
                     "during forward pass for more information."]


def test_error_inside_a_node_reports_its_forward_call():
    def run(lib):
        with lib.autograd.set_detect_anomaly(True):
            x = lib.ones(2, requires_grad=True)
            y = (x * x).sum()  # SECOND-BACKWARD
            y.backward()
            y.backward()
    (kind, msg), warns = same(run)
    assert kind == "RuntimeError" and msg.startswith("Trying to backward through the graph a second time")
    assert warns[0].startswith("Error detected in MulBackward0. Traceback of forward call that caused the error:")
    assert "SECOND-BACKWARD" in warns[0]


def custom_functions(lib):
    class NanGrad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    class Raises(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            raise ValueError("boom")
    return NanGrad, Raises


@pytest.mark.parametrize("which", [0, 1])
def test_custom_function_nodes_are_checked(which):
    def run(lib):
        fn = custom_functions(lib)[which]
        with lib.autograd.detect_anomaly():
            x = lib.ones(2, requires_grad=True)
            fn.apply(x).sum().backward()  # CUSTOM-FORWARD
    (kind, msg), warns = same(run)
    name = ["NanGradBackward", "RaisesBackward"][which]
    if which == 0:
        assert (kind, msg) == ("RuntimeError", f"Function '{name}' returned nan values in its 0th output.")
    else:
        assert (kind, msg) == ("ValueError", "boom")
    assert warns[0].startswith(f"Error detected in {name}. Traceback of forward call that caused the error:")
    assert "CUSTOM-FORWARD" in warns[0]


def test_detect_anomaly_as_decorator():
    # torch 1.13's detect_anomaly is a context manager only; Ember's is also a decorator, as
    # later PyTorch releases' is.
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        @ember.autograd.detect_anomaly()
        def f():
            assert ember.is_anomaly_enabled()
            return nan_program(ember)
    with pytest.warns(UserWarning, match="Error detected in MulBackward0"):
        with pytest.raises(RuntimeError, match="returned nan values"):
            f()
    assert not ember.is_anomaly_enabled()


def test_anomaly_mode_keeps_gradients_and_grad():
    def run(lib):
        with lib.autograd.detect_anomaly():
            x = lib.tensor([1.0, 2.0], requires_grad=True)
            y = (x.exp() * x.sum()).sum()
            (g,) = lib.autograd.grad(y, x, create_graph=True)
            g.sum().backward()
            return g.tolist(), x.grad.tolist()
    (_, e), _ = outcome(lambda: run(ember))
    (_, t), _ = outcome(lambda: run(torch))
    assert e == pytest.approx(t)


# ---------------------------------------------------------------- inference mode
def test_inference_mode_flags():
    def flags(lib):
        r = [lib.is_inference_mode_enabled()]
        with lib.inference_mode():
            r += [lib.is_inference_mode_enabled(), lib.is_grad_enabled()]
            with lib.enable_grad():
                r += [lib.is_inference_mode_enabled(), lib.is_grad_enabled()]
            with lib.no_grad():
                r += [lib.is_inference_mode_enabled()]
            with lib.inference_mode(False):
                r += [lib.is_inference_mode_enabled(), lib.is_grad_enabled()]
            r += [lib.is_inference_mode_enabled()]
        with lib.no_grad():
            with lib.inference_mode(mode=False):
                r += [lib.is_inference_mode_enabled(), lib.is_grad_enabled()]
            r += [lib.is_grad_enabled()]
        r += [lib.is_inference_mode_enabled(), lib.is_grad_enabled()]
        return r
    assert same(flags)[0][1] == [False, True, False, True, True, True, False, True, True, False, True, False, False,
                                 True]


def test_which_tensors_are_inference_tensors():
    def kinds(lib):
        n = lib.ones(3)
        with lib.inference_mode():
            x = lib.ones(3)
            inside = [x.is_inference(), (n * 2).is_inference(), n.view(3).is_inference(), n[1:].is_inference(),
                      x[1:].is_inference(), n.is_inference()]
            with lib.inference_mode(False):
                inside.append(lib.ones(1).is_inference())
        outside = [x.is_inference(), (x * 2).is_inference(), x.clone().is_inference(), x.view(3).is_inference(),
                   x.t().is_inference(), x.unsqueeze(0).is_inference(), x.detach().is_inference(),
                   x.reshape(3, 1).is_inference(), lib.zeros(3).copy_(x).is_inference()]
        return inside, outside
    assert same(kinds)[0][1] == ([True, True, False, False, True, False, False],
                                 [True, False, False, True, True, True, True, True, False])


@pytest.mark.parametrize("lib", LIBS, ids=["ember", "torch"])
def test_inference_mode_decorator(lib):
    @lib.inference_mode()
    def make():
        return lib.ones(2) * 3

    @lib.inference_mode(False)
    def grad_on():
        return lib.is_grad_enabled()
    assert make().is_inference() and lib.is_inference(make()) and not lib.is_inference_mode_enabled()
    with lib.no_grad():
        assert grad_on()


def test_no_graph_inside_inference_mode():
    def run(lib):
        a = lib.ones(3, requires_grad=True)
        with lib.inference_mode():
            b = a * 2
            with lib.enable_grad():
                c = a * 2
            leaf = lib.ones(3, requires_grad=True)
            d = leaf * 2
            a_view = a[:2]
        return [b.requires_grad, b.grad_fn is None, c.requires_grad, c.is_inference(), leaf.requires_grad,
                leaf.is_inference(), d.requires_grad, a_view.is_inference()]
    assert same(run)[0][1] == [False, True, False, True, True, True, False, False]


INPLACE_MSG = (r"^Inplace update to inference tensor outside InferenceMode is not allowed\.You can make a clone to "
               r"get a normal tensor before doing inplace update\.See https://github\.com/pytorch/rfcs/pull/17 for "
               r"more details\.$")


@pytest.mark.parametrize("write", ["add_", "setitem", "out", "copy_", "zero_", "view_mul_"])
@pytest.mark.parametrize("lib", LIBS, ids=["ember", "torch"])
def test_inplace_on_inference_tensor_outside_inference_mode(lib, write):
    with lib.inference_mode():
        x = lib.ones(3)
    do = {"add_": lambda: x.add_(1), "setitem": lambda: x.__setitem__(0, 2.0),
          "out": lambda: lib.add(lib.ones(3), 1, out=x), "copy_": lambda: x.copy_(lib.zeros(3)),
          "zero_": lambda: x.zero_(), "view_mul_": lambda: x[1:].mul_(2)}[write]
    with pytest.raises(RuntimeError, match=INPLACE_MSG):
        do()
    with lib.inference_mode():  # allowed inside
        do()


@pytest.mark.parametrize("lib", LIBS, ids=["ember", "torch"])
def test_inplace_on_normal_tensor_inside_inference_mode(lib):
    n = lib.ones(3)
    with lib.inference_mode():
        n.add_(1)
        n.view(3).mul_(2)
    assert n._version > 0 and n.tolist() == [4.0, 4.0, 4.0]
    with lib.inference_mode():
        x = lib.ones(3)
    assert lib.ones(3).add_(x).tolist() == [2.0, 2.0, 2.0]  # a normal tensor may take an inference one


@pytest.mark.parametrize("lib", LIBS, ids=["ember", "torch"])
def test_inference_tensors_have_no_version_counter(lib):
    with lib.inference_mode():
        x = lib.ones(3)
        with pytest.raises(RuntimeError, match=r"^Inference tensors do not track version counter\.$"):
            x._version
    with pytest.raises(RuntimeError, match=r"^Inference tensors do not track version counter\.$"):
        x[1:]._version


@pytest.mark.parametrize("lib", LIBS, ids=["ember", "torch"])
def test_requires_grad_on_inference_tensor(lib):
    with lib.inference_mode():
        x = lib.ones(3)
        y = lib.ones(3).requires_grad_()  # allowed inside
        assert y.requires_grad
    with pytest.raises(RuntimeError, match=r"^Setting requires_grad=True on inference tensor outside InferenceMode "
                                           r"is not allowed\.$"):
        x.requires_grad_()
    assert not x.requires_grad_(False).requires_grad
    # Inference tensors lack the Autograd key: ops on them alone record nothing, even outside
    # inference mode and when they require grad ...
    assert lib.sin(y).grad_fn is None and (y * y).grad_fn is None and y.sum().grad_fn is None
    with pytest.raises(RuntimeError, match=SAVE_MSG):  # ... and they cannot be saved for another input
        y * lib.ones(3, requires_grad=True)


SAVE_MSG = (r"^Inference tensors cannot be saved for backward\. To work around you can make a clone to get a normal "
            r"tensor and use it in autograd\.$")


@pytest.mark.parametrize("lib", LIBS, ids=["ember", "torch"])
def test_inference_tensor_saved_for_backward(lib):
    with lib.inference_mode():
        x = lib.tensor([1.0, 2.0, 3.0])
    a = lib.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=SAVE_MSG):
        a * x  # mul saves both inputs
    assert (x.exp() * a).requires_grad  # exp(x) is a normal tensor ...
    with pytest.raises(RuntimeError, match=SAVE_MSG):
        x.view(3) * a  # ... a view of x is not
    (a + x).sum().backward()  # add saves nothing
    assert a.grad.tolist() == [1.0, 1.0, 1.0]
    (a * x.clone()).sum().backward()
    assert a.grad.tolist() == [2.0, 3.0, 4.0]
    with lib.no_grad():
        assert not (a * x).requires_grad  # nothing is recorded, so nothing is saved


@pytest.mark.parametrize("lib", LIBS, ids=["ember", "torch"])
def test_inference_tensor_saved_by_custom_function(lib):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, v, k):
            ctx.save_for_backward(k)
            return v * k

        @staticmethod
        def backward(ctx, g):
            (k,) = ctx.saved_tensors
            return g * k, None
    with lib.inference_mode():
        k = lib.ones(2)
    with pytest.raises(RuntimeError, match=SAVE_MSG):
        Scale.apply(lib.ones(2, requires_grad=True), k)
    assert Scale.apply(lib.ones(2), k).tolist() == [1.0, 1.0]  # nothing needs a gradient: nothing saved


VIEW_MSG = (r"^A view was created in inference mode and is being modified inplace in normal mode\. Given that this "
            r"use case is ambiguous and error-prone, it is forbidden\.")


@pytest.mark.parametrize("lib", LIBS, ids=["ember", "torch"])
def test_view_of_tensor_requiring_grad_made_in_inference_mode(lib):
    a = lib.ones(3, requires_grad=True)
    h = a * 2
    with lib.inference_mode():
        v, hv = a.view(3), h[1:]
    # It requires grad but has no history, and leads no gradient anywhere.
    assert (v.requires_grad, v.is_leaf, v.grad_fn, v.is_inference(), hv.requires_grad, hv.grad_fn) == (
        True, True, None, False, True, None)
    r = v * 2
    assert r.grad_fn.name() == "MulBackward0" and r.grad_fn.next_functions[0][0] is None
    r.sum().backward()
    assert a.grad is None and v.grad is None
    for t in (v, hv):
        with pytest.raises(RuntimeError, match=VIEW_MSG):
            t.mul_(2)
    with lib.inference_mode():
        v.mul_(2)
    with lib.no_grad():
        v.mul_(2)
    assert a.tolist() == [4.0, 4.0, 4.0]
