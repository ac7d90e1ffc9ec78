"""ember.optim against torch.optim (1.13): every optimizer and its main options follow torch's
trajectory on the same problem, parameter groups, state dicts that continue a run identically,
repr, zero_grad, and the same exception types for bad input."""
import warnings

import numpy as np
import pytest
import torch

import ember

TOL = {"float32": dict(rtol=2e-4, atol=2e-5), "float64": dict(rtol=1e-10, atol=1e-12)}

# (optimizer, options): the options each optimizer is checked with.
CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3, weight_decay=0.01)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.02, momentum=0.5, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), amsgrad=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, maximize=True, eps=1e-6)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, amsgrad=True, weight_decay=0.1, maximize=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, momentum=0.5)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.9, weight_decay=0.1, alpha=0.9)),
    ("RMSprop", dict(lr=0.01, centered=True, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1, weight_decay=0.1, maximize=True)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1, maximize=True)),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1)),
]


def _ids(configs):
    return [f"{name}-{'-'.join(f'{k}={v}' for k, v in kw.items()) or 'defaults'}" for name, kw in configs]


class Problem:
    """A small regression: W [5, 3], b [3] and an extra [2, 2] tensor c that only enters the
    loss on steps not divisible by 3 (so its gradient is None there and its update skipped)."""

    def __init__(self, lib, dtype, seed=0):
        rng = np.random.RandomState(seed)
        self.lib = lib
        self.dt = getattr(lib, dtype)
        self.x = lib.tensor(rng.randn(16, 5), dtype=self.dt)
        self.y = lib.tensor(rng.randn(16, 3), dtype=self.dt)
        self.params = [lib.tensor(rng.randn(*shape) * 0.5, dtype=self.dt).requires_grad_()
                       for shape in ((5, 3), (3,), (2, 2))]

    def loss(self, step):
        w, b, c = self.params
        r = self.x @ w + b - self.y
        loss = (r * r).mean()
        if step % 3 != 0:
            loss = loss + ((c * c - 0.5) ** 2).sum() * 0.1 + (c.sum() - w.sum()) ** 2 * 0.01
        return loss

    def numpy(self):
        return [p.detach().numpy().copy() for p in self.params]


def run(lib, name, kwargs, dtype, steps=20, groups=None, problem=None):
    prob = problem or Problem(lib, dtype)
    params = groups(prob.params) if groups else prob.params
    opt = getattr(lib.optim, name)(params, **kwargs)
    history = []
    for k in range(steps):
        opt.zero_grad(set_to_none=True)
        prob.loss(k).backward()
        opt.step()
        history.append(prob.numpy())
    return history, opt, prob


def assert_same_trajectory(e_hist, t_hist, dtype):
    for k, (e, t) in enumerate(zip(e_hist, t_hist)):
        for i, (a, b) in enumerate(zip(e, t)):
            np.testing.assert_allclose(a, b, **TOL[dtype], err_msg=f"step {k}, param {i}")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=_ids(CONFIGS))
def test_trajectory(name, kwargs, dtype):
    e_hist, e_opt, _ = run(ember, name, kwargs, dtype)
    t_hist, t_opt, _ = run(torch, name, kwargs, dtype)
    assert_same_trajectory(e_hist, t_hist, dtype)
    # The state has torch's entries, shapes and step counts.
    e_state, t_state = e_opt.state_dict()["state"], t_opt.state_dict()["state"]
    assert sorted(e_state) == sorted(t_state)
    for i in t_state:
        assert list(e_state[i]) == list(t_state[i])
        for key, tv in t_state[i].items():
            ev = e_state[i][key]
            if isinstance(tv, torch.Tensor):
                np.testing.assert_allclose(ev.numpy(), tv.numpy(), **TOL[dtype], err_msg=key)
                assert str(ev.dtype).split(".")[1] == str(tv.dtype).split(".")[1], key
            else:
                assert ev == tv, key


def test_param_groups_with_different_options():
    def sgd_groups(params):
        return [{"params": [params[0]], "lr": 0.05, "momentum": 0.9, "nesterov": True},
                {"params": params[1:], "weight_decay": 0.1}]

    def adam_groups(params):
        return [{"params": params[:2], "betas": (0.5, 0.9), "amsgrad": True}, {"params": params[2:]}]

    for name, kwargs, groups in (("SGD", dict(lr=0.1, momentum=0.5), sgd_groups),
                                 ("Adam", dict(lr=0.01), adam_groups)):
        e_hist, e_opt, _ = run(ember, name, kwargs, "float64", groups=groups)
        t_hist, t_opt, _ = run(torch, name, kwargs, "float64", groups=groups)
        assert_same_trajectory(e_hist, t_hist, "float64")
        assert len(e_opt.param_groups) == 2
        assert [{k: v for k, v in g.items() if k != "params"} for g in e_opt.param_groups] == \
            [{k: v for k, v in g.items() if k != "params"} for g in t_opt.param_groups]


def test_group_options_changed_between_steps():
    """Schedulers change param_groups[i]["lr"]; the next step uses the new value."""
    hist = {}
    for lib in (ember, torch):
        prob = Problem(lib, "float64")
        opt = lib.optim.Adam(prob.params, lr=0.01)
        out = []
        for k in range(6):
            opt.zero_grad()
            prob.loss(k).backward()
            opt.step()
            opt.param_groups[0]["lr"] *= 0.5
            out.append(prob.numpy())
        hist[lib] = out
    assert_same_trajectory(hist[ember], hist[torch], "float64")


@pytest.mark.parametrize("name,kwargs", [c for c in CONFIGS if c[0] != "SGD" or c[1].get("momentum")] +
                         [("LBFGS", dict(history_size=3, max_iter=3))],
                         ids=_ids([c for c in CONFIGS if c[0] != "SGD" or c[1].get("momentum")]) + ["LBFGS"])
def test_state_dict_round_trip(name, kwargs):
    """10 steps, state_dict into a fresh optimizer over copies of the parameters: both continue
    identically (and as torch does over 20 steps)."""
    lbfgs = name == "LBFGS"
    prob = Problem(ember, "float64")
    opt = getattr(ember.optim, name)(prob.params, **kwargs)

    def step(o, p, k):
        def closure():
            o.zero_grad(set_to_none=True)
            loss = p.loss(1 if lbfgs else k)
            loss.backward()
            return loss
        if lbfgs:
            o.step(closure)
        else:
            closure()
            o.step()

    for k in range(10):
        step(opt, prob, k)
    sd = opt.state_dict()
    other = Problem(ember, "float64")
    with ember.no_grad():
        for q, p in zip(other.params, prob.params):
            q.copy_(p)
    fresh = getattr(ember.optim, name)(other.params, **kwargs)
    fresh.load_state_dict(sd)
    assert fresh.state_dict()["param_groups"] == sd["param_groups"]
    for k in range(10, 20):
        step(opt, prob, k)
        step(fresh, other, k)
        for a, b in zip(prob.numpy(), other.numpy()):
            if name == "NAdam":  # mu_product loads as float64 (cast like torch's), was float32
                np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
            else:
                np.testing.assert_array_equal(a, b)
    # The loaded state is a copy: stepping the fresh optimizer left sd's tensors alone.
    if not lbfgs:
        t_hist, _, _ = run(torch, name, kwargs, "float64")
        for a, b in zip(prob.numpy(), t_hist[-1]):
            np.testing.assert_allclose(a, b, **TOL["float64"])


def test_state_dict_layout_matches_torch():
    sds = {}
    for lib in (ember, torch):
        prob = Problem(lib, "float64")
        opt = lib.optim.SGD([{"params": prob.params[:1]}, {"params": prob.params[1:], "lr": 0.5}], lr=0.1,
                            momentum=0.9)
        prob.loss(0).backward()
        opt.step()
        sds[lib] = opt.state_dict()
    e, t = sds[ember], sds[torch]
    assert e["param_groups"] == t["param_groups"]
    assert sorted(e["state"]) == sorted(t["state"]) == [0, 1]  # c had no gradient at step 0
    assert list(e["state"][0]) == ["momentum_buffer"]


def test_load_state_dict_casts_to_parameter_dtype():
    prob = Problem(ember, "float64")
    opt = ember.optim.Adam(prob.params, lr=0.01)
    prob.loss(1).backward()
    opt.step()
    sd = opt.state_dict()
    sd["state"][0]["exp_avg"] = sd["state"][0]["exp_avg"].float()
    opt2 = ember.optim.Adam(Problem(ember, "float64").params, lr=0.01)
    opt2.load_state_dict(sd)
    st = opt2.state[opt2.param_groups[0]["params"][0]]
    assert st["exp_avg"].dtype == ember.float64
    assert st["step"].dtype == ember.float32 and st["step"].item() == 1.0
    # A copy: later steps of opt2 do not touch the dict it was given.
    before = sd["state"][1]["exp_avg"].numpy().copy()
    opt2.zero_grad()
    Problem(ember, "float64").loss(1).backward()
    np.testing.assert_array_equal(sd["state"][1]["exp_avg"].numpy(), before)


def rosenbrock(x, y):
    return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_lbfgs_rosenbrock(line_search, dtype):
    results = {}
    for lib in (ember, torch):
        dt = getattr(lib, dtype)
        xy = [lib.tensor([-1.5, 1.2], dtype=dt).requires_grad_(), lib.tensor([[2.0]], dtype=dt).requires_grad_()]
        opt = lib.optim.LBFGS(xy, lr=1 if line_search else 0.1, max_iter=5, history_size=4,
                              line_search_fn=line_search)

        def closure():
            opt.zero_grad()
            loss = rosenbrock(xy[0][0], xy[1][0, 0]) + rosenbrock(xy[0][1], xy[1][0, 0])
            loss.backward()
            return loss

        out = []
        for _ in range(4):
            loss = opt.step(closure)
            out.append((float(loss), [p.detach().numpy().copy() for p in xy]))
        state = opt.state[xy[0]]
        results[lib] = out, state["func_evals"], state["n_iter"]
    (e_out, e_evals, e_iter), (t_out, t_evals, t_iter) = results[ember], results[torch]
    assert (e_evals, e_iter) == (t_evals, t_iter)
    tol = TOL[dtype] if dtype == "float64" else dict(rtol=1e-3, atol=1e-4)
    for (el, ep), (tl, tp) in zip(e_out, t_out):
        np.testing.assert_allclose(el, tl, **tol)
        for a, b in zip(ep, tp):
            np.testing.assert_allclose(a, b, **tol)


def test_lbfgs_converges():
    xy = ember.tensor([-1.2, 1.0], dtype=ember.float64).requires_grad_()
    opt = ember.optim.LBFGS([xy], line_search_fn="strong_wolfe", max_iter=100)

    def closure():
        opt.zero_grad()
        loss = rosenbrock(xy[0], xy[1])
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(xy.detach().numpy(), [1.0, 1.0], atol=1e-3)


@pytest.mark.parametrize("name,kwargs", [("Adam", dict(lr=0.05)), ("RMSprop", dict(lr=0.05, centered=True)),
                                         ("Adagrad", dict(lr=0.1)), ("SGD", dict(lr=0.1, momentum=0.9)),
                                         ("AdamW", dict(lr=0.05))])
def test_complex_parameters_follow_torch(name, kwargs):
    hist = {}
    for lib in (ember, torch):
        rng = np.random.RandomState(3)
        z = lib.tensor(rng.randn(4) + 1j * rng.randn(4), dtype=lib.complex128).requires_grad_()
        w = lib.tensor(rng.randn(4) + 1j * rng.randn(4), dtype=lib.complex128)
        opt = getattr(lib.optim, name)([z], **kwargs)
        out = []
        for _ in range(5):
            opt.zero_grad()
            ((z - w) * (z - w).conj()).real.sum().backward()
            opt.step()
            out.append(z.detach().numpy().copy())
        hist[lib] = out
    for a, b in zip(hist[ember], hist[torch]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16_bit_parameters_step_like_float32(dtype):
    """Half-precision parameters and gradients follow the float32 trajectory to their precision."""
    rng = np.random.RandomState(4)
    init = [rng.randn(5, 3), rng.randn(7)]
    # Gradients of magnitude 0.5 or more: 1e-3 g^2 of a tiny g is lost in float16's subnormals.
    grads = [[np.sign(v) * (0.5 + np.abs(v)) for v in (rng.randn(5, 3), rng.randn(7))] for _ in range(3)]
    for name, kwargs in CONFIGS[::3]:
        if name != "SGD":  # an eps that 16-bit types can hold (1e-8 is 0 in float16)
            kwargs = dict(kwargs, eps=1e-3)
        result = {}
        for dt in (dtype, "float32"):
            params = [ember.tensor(v, dtype=getattr(ember, dt)).requires_grad_() for v in init]
            opt = getattr(ember.optim, name)(params, **kwargs)
            for g in grads:
                for p, v in zip(params, g):
                    p.grad = ember.tensor(v, dtype=getattr(ember, dt))
                opt.step()
            result[dt] = [p.detach().float().numpy() for p in params]
            if dt == dtype:
                assert all(p.dtype == getattr(ember, dtype) for p in params)
        for a, b in zip(result[dtype], result["float32"]):
            np.testing.assert_allclose(a, b, rtol=0.02, atol=0.02, err_msg=name)


@pytest.mark.parametrize("name,kwargs", [("Adam", dict(lr=0.01)), ("SGD", dict(lr=0.1)), ("Adagrad", dict(lr=0.1))])
def test_parameter_repeated_in_a_group_is_updated_twice(name, kwargs):
    """torch warns about such a group and applies the update twice, the second on the first's
    result; the fused op then updates one parameter at a time."""
    hist = {}
    for lib in (ember, torch):
        prob = Problem(lib, "float64")
        w, b, c = prob.params
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            opt = getattr(lib.optim, name)([w, b, w, c], **kwargs)
        out = []
        for k in range(4):
            opt.zero_grad(set_to_none=True)
            prob.loss(k).backward()
            opt.step()
            out.append(prob.numpy())
        hist[lib] = out
    assert_same_trajectory(hist[ember], hist[torch], "float64")


def test_zero_grad_and_repr_match_torch():
    for set_to_none in (False, True):
        grads = {}
        for lib in (ember, torch):
            prob = Problem(lib, "float64")
            opt = lib.optim.SGD(prob.params, lr=0.1)
            prob.loss(1).backward()
            opt.zero_grad(set_to_none=set_to_none)
            grads[lib] = [None if p.grad is None else p.grad.numpy() for p in prob.params]
        for a, b in zip(grads[ember], grads[torch]):
            assert (a is None) == (b is None)
            if a is not None:
                np.testing.assert_array_equal(a, b)
    for name, kwargs in CONFIGS[::2] + [("LBFGS", dict(line_search_fn="strong_wolfe"))]:
        reprs = [repr(getattr(lib.optim, name)(Problem(lib, "float64").params, **kwargs)) for lib in (ember, torch)]
        assert reprs[0] == reprs[1]


def test_defaults_and_exports_match_torch():
    for name in ("SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam", "LBFGS"):
        kw = dict(lr=0.1) if name == "SGD" else {}
        e = getattr(ember.optim, name)(Problem(ember, "float64").params, **kw)
        t = getattr(torch.optim, name)(Problem(torch, "float64").params, **kw)
        assert e.defaults == t.defaults, name
        assert issubclass(getattr(ember.optim, name), ember.optim.Optimizer)
    assert isinstance(ember.optim.SGD(Problem(ember, "float64").params, lr=0.1, foreach=True), ember.optim.SGD)


def _raises_like_torch(fn):
    errors = []
    for lib in (ember, torch):
        with pytest.raises(Exception) as info:
            fn(lib)
        errors.append(info.value)
    assert type(errors[0]) is type(errors[1]), f"ember {errors[0]!r}, torch {errors[1]!r}"
    if isinstance(errors[1], ValueError):
        assert str(errors[0]) == str(errors[1])
    return errors


BAD_ARGS = [
    ("SGD", dict(lr=-0.1)),
    ("SGD", dict(lr=0.1, momentum=-0.5)),
    ("SGD", dict(lr=0.1, nesterov=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)),
    ("SGD", dict()),
    ("Adam", dict(lr=-0.1)),
    ("Adam", dict(betas=(1.0, 0.999))),
    ("Adam", dict(betas=(0.9, -0.1))),
    ("Adam", dict(eps=-1e-8)),
    ("AdamW", dict(weight_decay=-0.1)),
    ("RMSprop", dict(alpha=-0.5)),
    ("Adagrad", dict(lr_decay=-1.0)),
    ("Adagrad", dict(initial_accumulator_value=-1.0)),
    ("Adadelta", dict(rho=1.5)),
    ("Adamax", dict(betas=(0.9, 1.0))),
    ("NAdam", dict(momentum_decay=-1.0)),
    ("RAdam", dict(betas=(-0.1, 0.9))),
]


@pytest.mark.parametrize("name,kwargs", BAD_ARGS, ids=_ids(BAD_ARGS))
def test_bad_hyper_parameters(name, kwargs):
    _raises_like_torch(lambda lib: getattr(lib.optim, name)(Problem(lib, "float64").params, **kwargs))


def test_bad_parameters():
    _raises_like_torch(lambda lib: lib.optim.SGD(Problem(lib, "float64").params[0], lr=0.1))
    _raises_like_torch(lambda lib: lib.optim.Adam([]))
    _raises_like_torch(lambda lib: lib.optim.Adam([1.0]))
    _raises_like_torch(lambda lib: lib.optim.Adam([{"params": set(Problem(lib, "float64").params)}]))
    _raises_like_torch(lambda lib: lib.optim.Adam([Problem(lib, "float64").params[0] * 2]))

    def twice(lib):
        p = Problem(lib, "float64").params
        return lib.optim.Adam([{"params": p[:2]}, {"params": p[1:]}])
    _raises_like_torch(twice)

    def add_twice(lib):
        p = Problem(lib, "float64").params
        opt = lib.optim.SGD(p, lr=0.1)
        opt.add_param_group({"params": p[0], "lr": 0.5})
    _raises_like_torch(add_twice)
    _raises_like_torch(lambda lib: lib.optim.LBFGS([{"params": [p]} for p in Problem(lib, "float64").params]))
    # Within one group a repeated parameter only warns (torch 1.13).
    for lib in (ember, torch):
        p = Problem(lib, "float64").params
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.optim.SGD([p[0], p[0]], lr=0.1)
        assert any("duplicate parameters" in str(w.message) for w in caught)


def test_bad_state_dicts():
    def trained(lib, name="Adam", groups=False, **kw):
        p = Problem(lib, "float64")
        params = [{"params": p.params[:1]}, {"params": p.params[1:]}] if groups else p.params
        opt = getattr(lib.optim, name)(params, **kw)
        p.loss(1).backward()
        opt.step()
        return opt, p

    def fewer_groups(lib):
        opt, _ = trained(lib, groups=True)
        other, _ = trained(lib)
        other.load_state_dict(opt.state_dict())
    _raises_like_torch(fewer_groups)

    def group_size(lib):
        opt, p = trained(lib)
        other = lib.optim.Adam(p.params[:2])
        other.load_state_dict(opt.state_dict())
    _raises_like_torch(group_size)

    def other_optimizer(lib):
        sgd, p = trained(lib, "SGD", lr=0.1, momentum=0.9)
        adam = lib.optim.Adam(p.params)
        adam.load_state_dict(sgd.state_dict())
        p.loss(1).backward()
        adam.step()
    _raises_like_torch(other_optimizer)

    # A failed load leaves the optimizer as it was.
    opt, _ = trained(ember, groups=True)
    before = opt.state_dict()
    with pytest.raises(ValueError):
        opt.load_state_dict(trained(ember)[0].state_dict())
    assert opt.state_dict()["param_groups"] == before["param_groups"]


def test_fused_ops_check_their_lists():
    p = [ember.zeros(3, requires_grad=True), ember.zeros(2, 2, requires_grad=True)]
    g = [ember.ones(3), ember.ones(2, 2)]
    steps = [ember.tensor(0.0), ember.tensor(0.0)]
    kw = dict(lr=0.1, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False)
    with ember.no_grad():
        with pytest.raises(RuntimeError, match="same number of tensors"):
            ember._C._fused_adam_(p, g[:1], [ember.zeros(3), ember.zeros(2, 2)], [ember.zeros(3), ember.zeros(2, 2)],
                                  [], steps, **kw)
        with pytest.raises(RuntimeError, match="has shape"):
            ember._C._fused_adam_(p, g, [ember.zeros(3), ember.zeros(4)], [ember.zeros(3), ember.zeros(2, 2)], [],
                                  steps, **kw)
        with pytest.raises(TypeError, match="dtype"):
            ember._C._fused_sgd_(p, [ember.ones(3, dtype=ember.float64), g[1]], [], lr=0.1)
        with pytest.raises(TypeError, match="floating-point"):
            ember._C._fused_sgd_([ember.zeros(3, dtype=ember.int64)], [ember.zeros(3, dtype=ember.int64)], [],
                                 lr=0.1)
        # Nothing was written by the failed calls.
        assert steps[0].item() == 0.0 and p[0].sum().item() == 0.0
        # Meta tensors: the checks only.
        m = [ember.empty(3, device="meta")]
        ember._C._fused_sgd_(m, [ember.empty(3, device="meta")], [ember.empty(3, device="meta")], lr=0.1,
                             momentum=0.9)
    # With grad mode on, parameters that require grad are leaves written in place.
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        ember._C._fused_sgd_(p, g, [], lr=0.1)


def test_fused_sgd_non_contiguous_and_mixed_dtypes():
    base = ember.arange(12.0).reshape(3, 4)
    p_t = base.t()  # a non-contiguous parameter
    p_d = ember.arange(3.0, dtype=ember.float64)
    g_t = ember.ones(4, 3)
    with ember.no_grad():
        ember._C._fused_sgd_([p_t, p_d], [g_t, ember.ones(3, dtype=ember.float64)], [], lr=0.5)
    np.testing.assert_array_equal(base.numpy(), np.arange(12.0).reshape(3, 4) - 0.5)
    np.testing.assert_array_equal(p_d.numpy(), np.arange(3.0) - 0.5)


def test_large_lists_thread_and_match_single_tensor_updates():
    """Enough elements for the threaded path; each tensor's result equals its own update."""
    rng = np.random.RandomState(5)
    shapes = [(300, 257), (1000,), (7, 11, 13), (65536,)]
    e_params = [ember.tensor(rng.randn(*s), dtype=ember.float32).requires_grad_() for s in shapes]
    t_params = [torch.tensor(p.detach().numpy()).requires_grad_() for p in e_params]
    grads = [rng.randn(*s).astype(np.float32) for s in shapes]
    for params, lib in ((e_params, ember), (t_params, torch)):
        opt = lib.optim.Adam(params, lr=0.01, weight_decay=0.01)
        for _ in range(3):
            for p, g in zip(params, grads):
                p.grad = lib.tensor(g)
            opt.step()
    for a, b in zip(e_params, t_params):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)
