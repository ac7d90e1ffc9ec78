"""ember.autograd.functional against torch.autograd.functional: the same calls give the same
values, shapes, nesting, requires_grad flags and errors."""
import numpy as np
import pytest
import torch

import ember


def leaves(shapes, seed, dtype="float64", requires_grad=False):
    """The same random tensors in both libraries, as (ember tuple, torch tuple)."""
    g = np.random.default_rng(seed)
    es, ts = [], []
    for shape in shapes:
        a = g.uniform(-1, 1, size=shape)
        if dtype.startswith("complex"):
            a = a + 1j * g.uniform(-1, 1, size=shape)
        a = a.astype(dtype)
        es.append(ember.tensor(a).requires_grad_(requires_grad))
        ts.append(torch.tensor(a).requires_grad_(requires_grad))
    return tuple(es), tuple(ts)


def same(e, t, tol=1e-10):
    """Same nesting, and per tensor the same shape, dtype, requires_grad and values."""
    if isinstance(t, (tuple, list)):  # (forward-mode jacobians nest lists, as torch's)
        assert type(e) is type(t) and len(e) == len(t), (type(e), type(t))
        for a, b in zip(e, t):
            same(a, b, tol)
        return
    assert isinstance(e, ember.Tensor), type(e)
    assert tuple(e.shape) == tuple(t.shape)
    assert str(e.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    assert e.requires_grad == t.requires_grad
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


def detached(r):
    return type(r)(detached(x) for x in r) if isinstance(r, (tuple, list)) else r.detach()


def flat(r):
    return [x for el in r for x in flat(el)] if isinstance(r, tuple) else [r]


def same_error(call):
    """call(lib) raises the same exception type and message in both libraries."""
    with pytest.raises(Exception) as te:
        call(torch)
    with pytest.raises(type(te.value)) as ee:
        call(ember)
    assert str(ee.value) == str(te.value).replace("torch.Size", "ember.Size")


# name: (function of lib and inputs, input shapes)
FUNCS = {
    "one_to_one": (lambda lib, x: lib.tanh(x) * lib.exp(x), [(3,)]),
    "matrix": (lambda lib, x: x @ x.reshape(3, 2), [(2, 3)]),
    "scalar_out": (lambda lib, x: lib.dot(x.reshape(-1), lib.sin(x).reshape(-1)), [(2, 2)]),
    "two_to_one": (lambda lib, x, y: x * lib.sin(y) + x, [(3,), (3,)]),
    "one_to_two": (lambda lib, x: (lib.exp(x), lib.dot(x.reshape(-1), x.reshape(-1))), [(2, 2)]),
    "two_to_two": (lambda lib, x, y: (x * y, (x + y).sum() * x), [(3,), (3,)]),
    "unused_input": (lambda lib, x, y: x * 2, [(2,), (2,)]),
    "tuple_of_one": (lambda lib, x: (lib.tanh(x),), [(4,)]),
}
# Functions returning one element, for hessian, vhp and hvp.
SCALAR_FUNCS = {
    "cubic": (lambda lib, x: (x * x * x).sum(), [(3,)]),
    "matrix": (lambda lib, x: lib.tanh(lib.full((4, 2), 0.3, dtype=lib.float64) @ (x * x)).sum(), [(2, 3)]),
    "two_inputs": (lambda lib, x, y: (x * x * y + lib.exp(x) * y).sum(), [(3,), (3,)]),
    "linear": (lambda lib, x: (x * 2).sum(), [(2,)]),
    "one_element": (lambda lib, x: (x * x).sum().reshape(1, 1), [(2,)]),
    "unused_input": (lambda lib, x, y: (x * x).sum(), [(2,), (3,)]),
}


def args_of(lib_inputs, single):
    """The inputs as the function is given them: a bare Tensor when there is one and single."""
    return lib_inputs[0] if single and len(lib_inputs) == 1 else lib_inputs


def variants(funcs):
    for name, (f, shapes) in funcs.items():
        for single in ((True, False) if len(shapes) == 1 else (False,)):
            yield pytest.param(f, shapes, single, id=f"{name}-{'tensor' if single else 'tuple'}")


def random_like(r, seed):
    """A random v in both libraries shaped like the torch structure r (Tensor or tuple)."""
    ts = flat(r)
    ev, tv = leaves([tuple(t.shape) for t in ts], seed, str(ts[0].dtype).split(".")[-1])
    return (ev, tv) if isinstance(r, tuple) else (ev[0], tv[0])


def check_create_graph(er, tr, ex, tx):
    """Differentiating the sum of the results reaches the user's inputs alike."""
    for lib, res, xs in ((ember, er, ex), (torch, tr, tx)):
        parts = [r.sum() for r in flat(res) if r.requires_grad]
        if parts:
            total = parts[0]
            for p in parts[1:]:
                total = total + p
            total.backward()
    for a, b in zip(ex, tx):
        assert (a.grad is None) == (b.grad is None)
        if b.grad is not None:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("f,shapes,single", list(variants(FUNCS)))
def test_vjp_jvp_jacobian_match_torch(f, shapes, single, create_graph):
    ex, tx = leaves(shapes, 1, requires_grad=create_graph)
    ef, tf = (lambda *a: f(ember, *a)), (lambda *a: f(torch, *a))
    eargs, targs = args_of(ex, single), args_of(tx, single)
    outs = tf(*tx)
    ev, tv = random_like(outs, 2)
    er = ember.autograd.functional.vjp(ef, eargs, ev, create_graph=create_graph)
    tr = torch.autograd.functional.vjp(tf, targs, tv, create_graph=create_graph)
    same(er, tr)
    ev, tv = random_like(targs, 3)
    er2 = ember.autograd.functional.jvp(ef, eargs, ev, create_graph=create_graph)
    tr2 = torch.autograd.functional.jvp(tf, targs, tv, create_graph=create_graph)
    same(er2, tr2)
    er3 = ember.autograd.functional.jacobian(ef, eargs, create_graph=create_graph)
    tr3 = torch.autograd.functional.jacobian(tf, targs, create_graph=create_graph)
    same(er3, tr3)
    if create_graph:
        check_create_graph((er, er2, er3), (tr, tr2, tr3), ex, tx)
    else:  # forward mode: one jvp pass vmapped over the inputs' elements
        same(ember.autograd.functional.jacobian(ef, eargs, vectorize=True, strategy="forward-mode"),
             torch.autograd.functional.jacobian(tf, targs, vectorize=True, strategy="forward-mode"))


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("f,shapes,single", list(variants(SCALAR_FUNCS)))
def test_hessian_vhp_hvp_match_torch(f, shapes, single, create_graph):
    ex, tx = leaves(shapes, 4, requires_grad=create_graph)
    ef, tf = (lambda *a: f(ember, *a)), (lambda *a: f(torch, *a))
    eargs, targs = args_of(ex, single), args_of(tx, single)
    er = ember.autograd.functional.hessian(ef, eargs, create_graph=create_graph)
    tr = torch.autograd.functional.hessian(tf, targs, create_graph=create_graph)
    same(er, tr)
    if not create_graph:  # forward over reverse
        # torch 1.13's result keeps the graph of its inner jacobian (requires_grad although
        # create_graph=False); Ember's is detached, as the reverse-mode hessian's
        same(ember.autograd.functional.hessian(ef, eargs, vectorize=True, outer_jacobian_strategy="forward-mode"),
             detached(torch.autograd.functional.hessian(tf, targs, vectorize=True,
                                                        outer_jacobian_strategy="forward-mode")))
    results = [(er, tr)]
    for name in ("vhp", "hvp"):
        ev, tv = random_like(targs, 5)
        er2 = getattr(ember.autograd.functional, name)(ef, eargs, ev, create_graph=create_graph)
        tr2 = getattr(torch.autograd.functional, name)(tf, targs, tv, create_graph=create_graph)
        same(er2, tr2)
        results.append((er2, tr2))
    if create_graph:
        check_create_graph(tuple(r[0] for r in results), tuple(r[1] for r in results), ex, tx)


def test_v_may_be_omitted_for_single_elements():
    ex, tx = leaves([(1,)], 6)
    for name in ("vjp", "jvp", "vhp", "hvp"):
        er = getattr(ember.autograd.functional, name)(lambda x: (x * x * x).sum(), ex[0])
        tr = getattr(torch.autograd.functional, name)(lambda x: (x * x * x).sum(), tx[0])
        same(er, tr)


def test_differentiable_v_and_inputs_with_create_graph():
    (ex, ev), (tx, tv) = leaves([(3,), (3,)], 7, requires_grad=True)
    for lib, x, v in ((ember, ex, ev), (torch, tx, tv)):
        _, r = lib.autograd.functional.hvp(lambda a: (lib.sin(a) * a).sum(), x, v, create_graph=True)
        _, r2 = lib.autograd.functional.jvp(lambda a: lib.exp(a) * a, x, v, create_graph=True)
        (r.sum() + (r2 * r2).sum()).backward()
    same(ex.grad, tx.grad)
    same(ev.grad, tv.grad)


def test_results_leave_caller_graph_alone():
    """Without create_graph nothing returned has history, even for inputs that require grad."""
    (ex,), (tx,) = leaves([(3,)], 8, requires_grad=True)
    for lib, x in ((ember, ex), (torch, tx)):
        out, r = lib.autograd.functional.vjp(lambda a: a * x, x, lib.ones(3))
        assert not out.requires_grad and not r.requires_grad and out.grad_fn is None
        assert x.grad is None


def test_works_under_no_grad_and_keeps_mode():
    (ex,), (tx,) = leaves([(3,)], 9)
    for lib, x in ((ember, ex), (torch, tx)):
        with lib.no_grad():
            j = lib.autograd.functional.jacobian(lambda a: lib.exp(a), x)
            h = lib.autograd.functional.hessian(lambda a: lib.exp(a).sum(), x, create_graph=True)
            assert not lib.is_grad_enabled()
        np.testing.assert_allclose(j.numpy(), np.diag(np.exp(x.numpy())), rtol=1e-12)
        assert h.requires_grad


def lib_exp(lib, x):
    return lib.exp(x)


def test_complex():
    ex, tx = leaves([(3,)], 10, "complex128")
    ev, tv = leaves([(3,)], 11, "complex128")
    f = lambda lib, x: x * lib.exp(x)  # noqa: E731
    for name in ("vjp", "jvp"):
        same(getattr(ember.autograd.functional, name)(lambda x: f(ember, x), ex[0], ev[0]),
             getattr(torch.autograd.functional, name)(lambda x: f(torch, x), tx[0], tv[0]))
    # An omitted v is one, complex included (PyTorch 1.x).
    es, ts = leaves([(1,)], 13, "complex128")
    for name in ("vjp", "jvp", "vhp", "hvp"):
        same(getattr(ember.autograd.functional, name)(lambda x: (x * lib_exp(ember, x)).sum(), es[0]),
             getattr(torch.autograd.functional, name)(lambda x: (x * lib_exp(torch, x)).sum(), ts[0]))
    # Rows are gradients seeded with one, complex outputs included (PyTorch 1.x).
    for g in (lambda lib, x: (x * x).abs(), lambda lib, x: x * lib.exp(x)):
        same(ember.autograd.functional.jacobian(lambda x: g(ember, x), ex[0]),
             torch.autograd.functional.jacobian(lambda x: g(torch, x), tx[0]))
    same(ember.autograd.functional.hessian(lambda x: (x * x).abs().sum(), ex[0]),
         torch.autograd.functional.hessian(lambda x: (x * x).abs().sum(), tx[0]))


def test_argument_type_errors():
    for name in ("vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"):
        same_error(lambda lib: getattr(lib.autograd.functional, name)(lambda x: x.sum(), 3))
        same_error(lambda lib: getattr(lib.autograd.functional, name)(lambda x, y: x.sum(), (lib.ones(1), [1])))
        same_error(lambda lib: getattr(lib.autograd.functional, name)(lambda x: [x.sum()], lib.ones(1)))
        same_error(lambda lib: getattr(lib.autograd.functional, name)(lambda x: (x.sum(), 2), lib.ones(1)))
    for name in ("vjp", "jvp", "vhp", "hvp"):
        same_error(lambda lib: getattr(lib.autograd.functional, name)(lambda x: x.sum(), lib.ones(1), (lib.ones(1), 1)))
    # Inputs are made to require grad, which integer tensors cannot (set_requires_grad's message).
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="can require gradients"):
            lib.autograd.functional.jacobian(lambda x: x, lib.ones(2, dtype=lib.int64))


def test_v_errors():
    cases = [
        ("vjp", lambda lib: (lambda x: (x, x), lib.ones(2), (lib.ones(2),))),       # tuple length
        ("vjp", lambda lib: (lambda x: x, lib.ones(2), (lib.ones(2), lib.ones(2)))),  # not a single v
        ("vjp", lambda lib: (lambda x: x, lib.ones(2), lib.ones(3))),                # size
        ("vjp", lambda lib: (lambda x: (x, x), lib.ones(2), (lib.ones(2), lib.ones(2, 1)))),  # entry size
        ("vjp", lambda lib: (lambda x: x, lib.ones(2), None)),                       # v needed
        ("jvp", lambda lib: (lambda x, y: x, (lib.ones(2), lib.ones(3)), (lib.ones(2), lib.ones(2)))),
        ("jvp", lambda lib: (lambda x: x, lib.ones(2), None)),
        ("hvp", lambda lib: (lambda x: x.sum(), lib.ones(2), lib.ones(2, 2))),
        ("vhp", lambda lib: (lambda x: x.sum(), (lib.ones(2),), ())),
        ("hvp", lambda lib: (lambda x: x.sum(), lib.ones(2), None)),
    ]
    for name, make in cases:
        same_error(lambda lib: getattr(lib.autograd.functional, name)(*make(lib)))


def test_single_output_errors():
    for name in ("hessian", "vhp", "hvp"):
        v = (lambda lib: ()) if name == "hessian" else (lambda lib: (lib.ones(2),))
        same_error(lambda lib: getattr(lib.autograd.functional, name)(lambda x: (x.sum(),), lib.ones(2), *v(lib)))
        same_error(lambda lib: getattr(lib.autograd.functional, name)(lambda x: x * 2, lib.ones(2), *v(lib)))


STRICT_CASES = [
    # (function, func, inputs, v or None, create_graph)
    ("vjp", lambda lib: lambda x: x.detach() * 2, [(2,)], (2,), False),         # output without grad
    ("vjp", lambda lib: lambda x, y: x * 2, [(2,), (2,)], (2,), False),          # unused input
    ("vjp", lambda lib: lambda x: x * 2, [(2,)], (2,), True),                    # constant vjp
    ("jvp", lambda lib: lambda x, y: x * 2, [(2,), (2,)], [(2,), (2,)], False),
    ("jvp", lambda lib: lambda x: x * 2, [(2,)], (2,), True),
    ("jvp", lambda lib: lambda x: x.detach() * x.detach(), [(2,)], (2,), False),
    ("jacobian", lambda lib: lambda x, y: x * 2, [(2,), (2,)], None, False),
    ("jacobian", lambda lib: lambda x: x * 2, [(2,)], None, True),
    ("jacobian", lambda lib: lambda x: (x * 2, lib.ones(2)), [(2,)], None, False),
    ("hessian", lambda lib: lambda x: (x * 2).sum(), [(2,)], None, False),       # linear
    ("hessian", lambda lib: lambda x: lib.ones(1), [(2,)], None, False),
    ("hessian", lambda lib: lambda x, y: (x * x).sum(), [(2,), (2,)], None, False),
    ("hessian", lambda lib: lambda x: (x * x).sum(), [(2,)], None, True),        # constant hessian
    ("vhp", lambda lib: lambda x: (x * 2).sum(), [(2,)], (2,), False),
    ("vhp", lambda lib: lambda x: (x * x).sum(), [(2,)], (2,), True),
    ("vhp", lambda lib: lambda x, y: (x * x).sum() + y.sum(), [(2,), (2,)], [(2,), (2,)], False),
    ("hvp", lambda lib: lambda x: (x * 2).sum(), [(2,)], (2,), False),
    ("hvp", lambda lib: lambda x: (x * x).sum(), [(2,)], (2,), True),
]


@pytest.mark.parametrize("name,make,shapes,vshape,create_graph", STRICT_CASES)
def test_strict_errors(name, make, shapes, vshape, create_graph):
    ex, tx = leaves(shapes, 12)
    inputs = {ember: ex if len(ex) > 1 else ex[0], torch: tx if len(tx) > 1 else tx[0]}

    def call(lib):
        fn = getattr(lib.autograd.functional, name)
        args = [make(lib), inputs[lib]]
        if vshape is not None:
            args.append(tuple(lib.ones(s, dtype=lib.float64) for s in vshape) if isinstance(vshape, list)
                        else lib.ones(vshape, dtype=lib.float64))
        return fn(*args, create_graph=create_graph, strict=True)
    same_error(call)
    # Without strict the same call gives zeros where torch does.
    same(getattr(ember.autograd.functional, name)(*([make(ember), inputs[ember]] + (
        [] if vshape is None else [tuple(ember.ones(s, dtype=ember.float64) for s in vshape)
                                   if isinstance(vshape, list) else ember.ones(vshape, dtype=ember.float64)])),
        create_graph=create_graph),
        getattr(torch.autograd.functional, name)(*([make(torch), inputs[torch]] + (
            [] if vshape is None else [tuple(torch.ones(s, dtype=torch.float64) for s in vshape)
                                       if isinstance(vshape, list) else torch.ones(vshape, dtype=torch.float64)])),
            create_graph=create_graph))


def test_strategy_and_vectorize():
    x = {ember: ember.ones(2), torch: torch.ones(2)}
    f = lambda lib: lambda a: a * a  # noqa: E731
    g = lambda lib: lambda a: (a * a * a).sum()  # noqa: E731
    same_error(lambda lib: lib.autograd.functional.jacobian(f(lib), x[lib], strategy="bad"))
    same_error(lambda lib: lib.autograd.functional.hessian(g(lib), x[lib], outer_jacobian_strategy="bad"))
    same_error(lambda lib: lib.autograd.functional.jacobian(f(lib), x[lib], strategy="forward-mode"))
    same_error(lambda lib: lib.autograd.functional.jacobian(f(lib), x[lib], strategy="forward-mode",
                                                            create_graph=True))
    same_error(lambda lib: lib.autograd.functional.jacobian(f(lib), x[lib], strategy="forward-mode", strict=True))
    same_error(lambda lib: lib.autograd.functional.hessian(g(lib), x[lib], outer_jacobian_strategy="forward-mode"))
    same_error(lambda lib: lib.autograd.functional.jacobian(f(lib), x[lib], vectorize=True, strict=True))
    same_error(lambda lib: lib.autograd.functional.hessian(g(lib), x[lib], outer_jacobian_strategy="forward-mode",
                                                           vectorize=True, strict=True))
    # vectorize=True (vmap over the backward pass, or over the forward-mode pass) gives torch's results
    for lib_call in (lambda lib: lib.autograd.functional.jacobian(f(lib), x[lib], vectorize=True),
                     lambda lib: lib.autograd.functional.hessian(g(lib), x[lib], vectorize=True),
                     lambda lib: lib.autograd.functional.jacobian(f(lib), x[lib], vectorize=True,
                                                                  strategy="forward-mode"),
                     lambda lib: lib.autograd.functional.hessian(g(lib), x[lib], vectorize=True,
                                                                 outer_jacobian_strategy="forward-mode")):
        np.testing.assert_allclose(lib_call(ember).numpy(), lib_call(torch).detach().numpy())


def test_errors_inside_func_propagate():
    def boom(x):
        raise KeyError("boom")
    for name in ("vjp", "jacobian", "hessian"):
        with pytest.raises(KeyError, match="boom"):
            getattr(ember.autograd.functional, name)(boom, ember.ones(1))
    assert ember.is_grad_enabled()
