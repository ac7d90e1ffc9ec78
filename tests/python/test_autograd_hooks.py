"""Node post hooks (grad_fn.register_hook) against torch 1.13: when they run, what they see,
how their results replace the node's gradients, removal, order and errors."""
import numpy as np
import pytest
import torch

import ember


def pair(shape, seed, requires_grad=True):
    a = np.random.default_rng(seed).uniform(-1, 1, size=shape)
    return ember.tensor(a).requires_grad_(requires_grad), torch.tensor(a).requires_grad_(requires_grad)


def as_np(t):
    return None if t is None else t.detach().numpy()


def same(e, t):
    """Tuples of tensors (or None) with the same values."""
    assert len(e) == len(t)
    for a, b in zip(e, t):
        assert (a is None) == (b is None), (e, t)
        if a is not None:
            np.testing.assert_allclose(as_np(a), as_np(b), rtol=1e-12, atol=1e-12)


def run_both(program, hook_factory, seeds=(0, 1)):
    """Runs program(lib, x, w, register) in both libraries; register(node) puts the hook made
    by hook_factory(lib, log) on a node. Returns the logs and the leaves."""
    out = {}
    for lib, (x, w) in ((ember, (pair((3, 4), seeds[0])[0], pair((3, 4), seeds[1])[0])),
                        (torch, (pair((3, 4), seeds[0])[1], pair((3, 4), seeds[1])[1]))):
        log = []
        program(lib, x, w, lambda node: node.register_hook(hook_factory(lib, log)))
        out[lib] = (log, x, w)
    return out[ember], out[torch]


def recorder(lib, log):
    def hook(grad_inputs, grad_outputs):
        log.append((grad_inputs, grad_outputs))
    return hook


def check_logs(e, t):
    assert len(e[0]) == len(t[0])
    for (egi, ego), (tgi, tgo) in zip(e[0], t[0]):
        same(egi, tgi)
        same(ego, tgo)


def test_sees_grad_inputs_and_grad_outputs():
    def program(lib, x, w, register):
        y = x * w
        register(y.grad_fn)
        (y * y).sum().backward()
    e, t = run_both(program, recorder)
    check_logs(e, t)
    assert len(e[0]) == 1 and len(e[0][0][0]) == 2 and len(e[0][0][1]) == 1
    same((e[1].grad, e[2].grad), (t[1].grad, t[2].grad))


def test_none_for_inputs_that_get_no_gradient():
    def program(lib, x, w, register):
        y = x * w.detach()  # the second input does not require grad
        register(y.grad_fn)
        y.sum().backward()
    e, t = run_both(program, recorder)
    check_logs(e, t)
    assert e[0][0][0][1] is None


def test_autograd_grad_computes_only_what_is_wanted():
    # grad() with respect to x only: the node computes nothing for w, whose slot is None.
    def program(lib, x, w, register):
        y = x * w
        register(y.grad_fn)
        lib.autograd.grad(y.sum(), x)
    e, t = run_both(program, recorder)
    check_logs(e, t)
    assert e[0][0][0][1] is None


def test_multi_output_node_has_none_for_unused_outputs():
    def program(lib, x, w, register):
        v, m = lib.var_mean(x * w, 1)  # one node, two outputs; only v is used
        register(v.grad_fn)
        v.sum().backward()
    e, t = run_both(program, recorder)
    check_logs(e, t)
    assert e[0][0][1][1] is None


def test_grad_outputs_are_after_tensor_hooks():
    def program(lib, x, w, register):
        y = x * w
        y.register_hook(lambda g: g * 10)
        register(y.grad_fn)
        y.sum().backward()
    e, t = run_both(program, recorder)
    check_logs(e, t)
    np.testing.assert_allclose(as_np(e[0][0][1][0]), np.full((3, 4), 10.0))


def test_accumulate_grad_node():
    # A leaf's AccumulateGrad (reached through next_functions) has no outputs of its own.
    def program(lib, x, w, register):
        y = x * w
        register(y.grad_fn.next_functions[0][0])
        y.sum().backward()
    e, t = run_both(program, recorder)
    check_logs(e, t)
    assert e[0][0][0] == ()


def test_replacement_changes_the_gradients_sent_on():
    def scaler(lib, log):
        def hook(grad_inputs, grad_outputs):
            return (grad_inputs[0] * 3, None)  # None drops the second input's gradient
        return hook

    def program(lib, x, w, register):
        y = (x * w).exp()
        register(y.grad_fn.next_functions[0][0])  # the mul node
        y.sum().backward()
    e, t = run_both(program, scaler)
    same((e[1].grad, e[2].grad), (t[1].grad, t[2].grad))
    assert e[2].grad is None


def test_replacement_under_create_graph_is_differentiable():
    def program(lib, x, w, register):
        y = x * w
        register(y.grad_fn)
        (gx,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        gx.sum().backward()

    def doubler(lib, log):
        return lambda gi, go: tuple(None if g is None else g * 2 for g in gi)
    e, t = run_both(program, doubler)
    same((e[1].grad, e[2].grad), (t[1].grad, t[2].grad))


def test_hooks_run_in_order_each_on_the_previous_result():
    def chain(lib, log):
        def first(gi, go):
            log.append("first")
            return (gi[0] + 1, gi[1])

        def second(gi, go):
            log.append(gi[0])
        return first, second

    for lib, (x, w) in ((ember, (pair((3, 4), 0)[0], pair((3, 4), 1)[0])),
                        (torch, (pair((3, 4), 0)[1], pair((3, 4), 1)[1]))):
        log = []
        y = x * w
        first, second = chain(lib, log)
        y.grad_fn.register_hook(first)
        y.grad_fn.register_hook(second)
        y.sum().backward()
        assert log[0] == "first"
        np.testing.assert_allclose(as_np(log[1]), as_np(w) + 1)
        np.testing.assert_allclose(as_np(x.grad), as_np(w) + 1)


def test_remove_and_context_manager():
    x, _ = pair((3,), 0)
    w, _ = pair((3,), 1)
    calls = []
    y = x * w
    handle = y.grad_fn.register_hook(lambda gi, go: calls.append("removed"))
    kept = y.grad_fn.register_hook(lambda gi, go: calls.append("kept"))
    handle.remove()
    handle.remove()  # twice is fine
    y.sum().backward(retain_graph=True)
    assert calls == ["kept"]
    with kept:
        pass
    y.sum().backward()
    assert calls == ["kept"]


def test_handle_does_not_keep_the_graph_alive():
    x, _ = pair((3,), 0)
    y = x * 2
    handle = y.grad_fn.register_hook(lambda gi, go: None)
    del y
    handle.remove()  # the node is gone: nothing to do


def test_hook_runs_on_every_backward_through_the_node():
    x, _ = pair((3,), 0)
    calls = []
    y = x.exp()
    y.grad_fn.register_hook(lambda gi, go: calls.append(1))
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert calls == [1, 1]


def test_hook_not_run_for_node_outside_the_pass():
    # backward(inputs=...) and grad() skip nodes that lead nowhere wanted, hooks included.
    for lib in (ember, torch):
        x = lib.ones(3, requires_grad=True)
        w = lib.ones(3, requires_grad=True)
        calls = []
        a = x.exp()
        b = a * w
        a.grad_fn.register_hook(lambda gi, go: calls.append("a"))
        b.grad_fn.register_hook(lambda gi, go: calls.append("b"))
        lib.autograd.grad(b.sum(), w)
        assert calls == ["b"], lib


def test_hook_on_custom_function_node():
    class Double(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x, _ = pair((3,), 0)
    seen = []
    y = Double.apply(x)
    y.grad_fn.register_hook(lambda gi, go: seen.append((gi, go)) or (gi[0] + 1,))
    y.sum().backward()
    np.testing.assert_allclose(as_np(seen[0][0][0]), np.full(3, 2.0))
    np.testing.assert_allclose(as_np(x.grad), np.full(3, 3.0))


ERRORS = {
    "wrong_count": lambda gi, go: (gi[0],),
    "not_a_tuple": lambda gi, go: [gi[0], gi[1]],
    "a_tensor": lambda gi, go: gi[0],
    "replace_none": None,  # filled below: needs the library
    "changed_dtype": lambda gi, go: (gi[0].double(), gi[1]),
    "changed_size": lambda gi, go: (gi[0][:2], gi[1]),
    "not_a_tensor": lambda gi, go: (1, gi[1]),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_as_torch(case):
    results = {}
    for lib in (ember, torch):
        x = lib.ones(3, 4, requires_grad=True)
        w = lib.ones(3, 4, requires_grad=case != "replace_none")
        y = x * w
        if case == "replace_none":
            def rep(gi, go, lib=lib):
                return (gi[0], lib.ones(3, 4))
            hook = rep
        else:
            hook = ERRORS[case]
        def myhook(gi, go, hook=hook):
            return hook(gi, go)
        y.grad_fn.register_hook(myhook)
        with pytest.raises(Exception) as info:
            y.sum().backward()
        msg = str(info.value).replace("torch.", "ember.")
        results[lib] = (info.type, msg)
    assert results[ember] == results[torch]


def test_error_in_hook_propagates_and_leaves_grads_unchanged():
    x, _ = pair((3,), 0)
    y = x * 2

    def bad(gi, go):
        raise ValueError("boom")
    y.grad_fn.register_hook(bad)
    with pytest.raises(ValueError, match="boom"):
        y.sum().backward()
    assert x.grad is None


def test_grad_fn_equality_and_hash():
    x, _ = pair((3,), 0)
    y = x * 2
    a, b = y.grad_fn, y.grad_fn
    assert a == b and hash(a) == hash(b)
    assert y.grad_fn != (x + 1).grad_fn
    assert len({a, b}) == 1
