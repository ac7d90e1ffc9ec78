"""ember.nn.init and ember.nn.utils against torch (1.13): deterministic initialisers and the
utilities give torch's values and gradients; random initialisers give the same statistics."""
import math
import warnings

import numpy as np
import pytest
import torch

import ember
from ember.nn import init
from ember.nn.utils import rnn


def to_np(t):
    return None if t is None else t.detach().numpy()


def close(e, t, tol=1e-10):
    assert (e is None) == (t is None)
    if e is not None:
        np.testing.assert_allclose(to_np(e), to_np(t), rtol=tol, atol=tol)


def pair(shape, seed=0, requires_grad=False):
    a = np.random.default_rng(seed).standard_normal(shape)
    return ember.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad)


def same_error(fn):
    """fn(lib) raises the same exception type and message (torch's names in ember spelling)."""
    got = []
    for lib in (torch, ember):
        try:
            fn(lib)
        except Exception as ex:  # noqa: BLE001
            got.append((type(ex), str(ex).replace("torch", "ember")))
        else:
            got.append(None)
    assert got[0] is not None and got[0] == got[1]


# ---------------------------------------------------------------- deterministic init
GAINS = [("linear", None), ("conv1d", None), ("conv2d", None), ("conv3d", None), ("conv_transpose1d", None),
         ("conv_transpose2d", None), ("conv_transpose3d", None), ("sigmoid", None), ("tanh", None),
         ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2), ("leaky_relu", 3), ("leaky_relu", math.sqrt(5)),
         ("selu", None)]


@pytest.mark.parametrize("nonlinearity,param", GAINS)
def test_calculate_gain(nonlinearity, param):
    assert init.calculate_gain(nonlinearity, param) == torch.nn.init.calculate_gain(nonlinearity, param)


@pytest.mark.parametrize("shape", [(3, 4), (5, 2, 3), (4, 3, 2, 2), (2, 1, 1, 1, 3), (0, 3)])
def test_fans(shape):
    assert init._calculate_fan_in_and_fan_out(ember.empty(shape)) == \
        torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))


DETERMINISTIC = {
    "constant": (lambda lib, t: lib.nn.init.constant_(t, 0.25), (3, 4)),
    "zeros": (lambda lib, t: lib.nn.init.zeros_(t), (2, 3, 4)),
    "ones": (lambda lib, t: lib.nn.init.ones_(t), (5,)),
    "eye_wide": (lambda lib, t: lib.nn.init.eye_(t), (3, 5)),
    "eye_tall": (lambda lib, t: lib.nn.init.eye_(t), (5, 3)),
    "dirac_1d": (lambda lib, t: lib.nn.init.dirac_(t), (4, 3, 3)),
    "dirac_2d": (lambda lib, t: lib.nn.init.dirac_(t), (3, 5, 3, 2)),
    "dirac_3d": (lambda lib, t: lib.nn.init.dirac_(t), (2, 2, 3, 3, 3)),
    "dirac_groups": (lambda lib, t: lib.nn.init.dirac_(t, groups=2), (6, 2, 3, 3)),
    "dirac_groups3": (lambda lib, t: lib.nn.init.dirac_(t, 3), (6, 4, 5)),
}


@pytest.mark.parametrize("case", sorted(DETERMINISTIC))
def test_deterministic_init_matches_torch(case):
    fn, shape = DETERMINISTIC[case]
    e = ember.nn.Parameter(ember.randn(shape))
    t = torch.nn.Parameter(torch.randn(shape))
    out = fn(ember, e)
    assert out is e and e.requires_grad and e.is_leaf and e.grad_fn is None
    close(e, fn(torch, t), 0)


INIT_ERRORS = {
    "fan_1d": lambda lib: lib.nn.init._calculate_fan_in_and_fan_out(lib.ones(3)),
    "xavier_1d": lambda lib: lib.nn.init.xavier_uniform_(lib.ones(3)),
    "gain_unknown": lambda lib: lib.nn.init.calculate_gain("swish"),
    "gain_bad_slope": lambda lib: lib.nn.init.calculate_gain("leaky_relu", True),
    "gain_bad_slope_str": lambda lib: lib.nn.init.calculate_gain("leaky_relu", "x"),
    "kaiming_mode": lambda lib: lib.nn.init.kaiming_uniform_(lib.ones(2, 2), mode="fan_avg"),
    "kaiming_nonlinearity": lambda lib: lib.nn.init.kaiming_normal_(lib.ones(2, 2), nonlinearity="gelu"),
    "eye_3d": lambda lib: lib.nn.init.eye_(lib.ones(2, 2, 2)),
    "dirac_2d": lambda lib: lib.nn.init.dirac_(lib.ones(2, 2)),
    "dirac_groups": lambda lib: lib.nn.init.dirac_(lib.ones(5, 2, 3), groups=2),
    "orthogonal_1d": lambda lib: lib.nn.init.orthogonal_(lib.ones(3)),
    "sparse_3d": lambda lib: lib.nn.init.sparse_(lib.ones(2, 2, 2), 0.5),
}


@pytest.mark.parametrize("case", sorted(INIT_ERRORS))
def test_init_errors_match_torch(case):
    same_error(INIT_ERRORS[case])


def test_init_warnings():
    for lib in (torch, ember):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            t = lib.ones(0, 3)
            assert lib.nn.init.kaiming_uniform_(t) is t
            lib.nn.init.trunc_normal_(lib.empty(10), mean=10.0, std=1.0, a=-2.0, b=2.0)
        assert [str(x.message) for x in w] == ["Initializing zero-element tensors is a no-op",
                                              "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                                              "The distribution of values may be incorrect."]


# ---------------------------------------------------------------- random init statistics
N = (400, 500)  # 200,000 samples: the mean and std below are good to ~1%


def _stats(lib, fn, shape=N):
    lib.manual_seed(123)
    t = lib.empty(shape)
    out = fn(lib, t)
    assert out is t
    a = t.numpy().astype(np.float64)
    return a.mean(), a.std(), a.min(), a.max()


RANDOM = {
    "uniform": lambda lib, t: lib.nn.init.uniform_(t, -2.0, 3.0),
    "uniform_default": lambda lib, t: lib.nn.init.uniform_(t),
    "normal": lambda lib, t: lib.nn.init.normal_(t, 1.5, 0.5),
    "trunc_normal": lambda lib, t: lib.nn.init.trunc_normal_(t),
    "trunc_normal_shifted": lambda lib, t: lib.nn.init.trunc_normal_(t, mean=1.0, std=2.0, a=0.0, b=3.0),
    "xavier_uniform": lambda lib, t: lib.nn.init.xavier_uniform_(t, gain=2.0),
    "xavier_normal": lambda lib, t: lib.nn.init.xavier_normal_(t),
    "kaiming_uniform": lambda lib, t: lib.nn.init.kaiming_uniform_(t),
    "kaiming_uniform_sqrt5": lambda lib, t: lib.nn.init.kaiming_uniform_(t, a=math.sqrt(5)),
    "kaiming_uniform_fan_out_relu": lambda lib, t: lib.nn.init.kaiming_uniform_(t, mode="fan_out", nonlinearity="relu"),
    "kaiming_normal": lambda lib, t: lib.nn.init.kaiming_normal_(t, a=0.1),
    "kaiming_normal_fan_out": lambda lib, t: lib.nn.init.kaiming_normal_(t, mode="FAN_OUT", nonlinearity="tanh"),
    "orthogonal": lambda lib, t: lib.nn.init.orthogonal_(t[:40], gain=2.0),
}


@pytest.mark.parametrize("case", sorted(RANDOM))
def test_random_init_statistics(case):
    if case == "orthogonal":  # a (40 x 500) slice: rows orthonormal, entries ~ N(0, gain^2/500)
        ember.manual_seed(0)
        t = ember.empty(40, 500)
        init.orthogonal_(t, gain=2.0)
        gram = (t @ t.t()).numpy()
        np.testing.assert_allclose(gram, 4 * np.eye(40), atol=1e-4)
        return
    e_mean, e_std, e_min, e_max = _stats(ember, RANDOM[case])
    t_mean, t_std, t_min, t_max = _stats(torch, RANDOM[case])
    spread = max(t_std, 1e-3)
    assert abs(e_mean - t_mean) < 0.02 * spread + 1e-4
    assert abs(e_std - t_std) < 0.02 * t_std
    # bounds: the same support (uniform and truncated: reached to within 1%)
    if "uniform" in case or "trunc" in case:
        assert abs(e_min - t_min) < 0.01 * spread and abs(e_max - t_max) < 0.01 * spread


@pytest.mark.parametrize("case", sorted(RANDOM) + ["sparse"])
def test_random_init_repeatable_with_manual_seed(case):
    fn = (lambda lib, t: lib.nn.init.sparse_(t, 0.3)) if case == "sparse" else RANDOM[case]
    runs = []
    for _ in range(2):
        ember.manual_seed(7)
        t = ember.nn.Parameter(ember.empty(20, 30))
        fn(ember, t)
        assert t.is_leaf and t.requires_grad and t.grad_fn is None  # ran under no_grad
        runs.append(t.tolist())
    assert runs[0] == runs[1]
    ember.manual_seed(8)
    t = ember.empty(20, 30)
    fn(ember, t)
    assert t.tolist() != runs[0]


@pytest.mark.parametrize("shape,gain", [((5, 7), 1), ((7, 5), 1), ((6, 6), 0.5), ((4, 3, 2), 1), ((3, 2, 2, 2), 3),
                                        ((1, 5), 1), ((64, 32), 1)])
def test_orthogonal_is_orthogonal(shape, gain):
    ember.manual_seed(1)
    t = ember.nn.Parameter(ember.empty(shape))
    assert init.orthogonal_(t, gain) is t and t.grad_fn is None
    m = t.detach().reshape(shape[0], -1).numpy().astype(np.float64)
    rows, cols = m.shape
    gram = m @ m.T if rows <= cols else m.T @ m
    np.testing.assert_allclose(gram, gain ** 2 * np.eye(min(rows, cols)), atol=2e-5 * gain ** 2)
    d = ember.empty(8, 8, dtype=ember.float64)
    init.orthogonal_(d)
    np.testing.assert_allclose(d.numpy() @ d.numpy().T, np.eye(8), atol=1e-12)


def test_sparse_zeros_per_column():
    ember.manual_seed(0)
    t = init.sparse_(ember.empty(10, 50), sparsity=0.25, std=2.0)
    a = t.numpy()
    assert ((a == 0).sum(0) == 3).all()  # ceil(0.25 * 10) in every column
    nz = a[a != 0]
    assert abs(nz.std() - 2.0) < 0.25


# ---------------------------------------------------------------- clip_grad
def _params_with_grads(lib, seed=0):
    rng = np.random.default_rng(seed)
    ps = []
    for shape in [(3, 4), (5,), (2, 2, 2)]:
        p = lib.nn.Parameter(lib.tensor(rng.standard_normal(shape)))
        p.grad = lib.tensor(rng.standard_normal(shape) * 3)
        ps.append(p)
    ps.append(lib.nn.Parameter(lib.ones(2, dtype=lib.float64)))  # no grad: skipped
    return ps


@pytest.mark.parametrize("max_norm", [0.5, 1e6])
@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, math.inf, "inf"])
def test_clip_grad_norm(norm_type, max_norm):
    nt = float(norm_type)
    e, t = _params_with_grads(ember), _params_with_grads(torch)
    en = ember.nn.utils.clip_grad_norm_(e, max_norm, nt)
    tn = torch.nn.utils.clip_grad_norm_(t, max_norm, nt)
    close(en, tn, 1e-12)
    for a, b in zip(e, t):
        close(a.grad, b.grad, 1e-12)


def test_clip_grad_norm_edge_cases():
    e, t = _params_with_grads(ember), _params_with_grads(torch)
    close(ember.nn.utils.clip_grad_norm_(e[0], 1.0), torch.nn.utils.clip_grad_norm_(t[0], 1.0), 1e-12)
    close(e[0].grad, t[0].grad, 1e-12)
    empty = ember.nn.utils.clip_grad_norm_([ember.nn.Parameter(ember.ones(2))], 1.0)
    assert empty.item() == 0.0 and empty.dtype is ember.float32
    bad = ember.nn.Parameter(ember.ones(2))
    bad.grad = ember.tensor([float("nan"), 1.0])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from `parameters` is non-finite"):
        ember.nn.utils.clip_grad_norm_([bad], 1.0, error_if_nonfinite=True)
    assert math.isnan(ember.nn.utils.clip_grad_norm_([bad], 1.0).item())


@pytest.mark.parametrize("clip", [0.5, 2, 100.0])
def test_clip_grad_value(clip):
    e, t = _params_with_grads(ember), _params_with_grads(torch)
    assert ember.nn.utils.clip_grad_value_(e, clip) is None
    torch.nn.utils.clip_grad_value_(t, clip)
    for a, b in zip(e, t):
        close(a.grad, b.grad, 0)
    single = _params_with_grads(ember)[0]
    ember.nn.utils.clip_grad_value_(single, 0.1)
    assert float(single.grad.abs().max()) <= 0.1


# ---------------------------------------------------------------- convert_parameters
def test_parameters_to_vector_and_back():
    e, t = _params_with_grads(ember), _params_with_grads(torch)
    ev = ember.nn.utils.parameters_to_vector(e)
    tv = torch.nn.utils.parameters_to_vector(t)
    close(ev, tv, 0)
    (ev * ev).sum().backward()
    (tv * tv).sum().backward()
    for a, b in zip(e, t):
        close(a.grad, b.grad, 1e-12)
    new = np.arange(tv.numel(), dtype=np.float64)
    evec = ember.tensor(new)
    ember.nn.utils.vector_to_parameters(evec, e)
    torch.nn.utils.vector_to_parameters(torch.tensor(new), t)
    for a, b in zip(e, t):
        close(a, b, 0)
        assert a.requires_grad and type(a) is ember.nn.Parameter
    with ember.no_grad():
        evec.zero_()
    assert float(e[0].abs().sum()) == 0  # the parameters are views of the vector, as in torch
    same_error(lambda lib: lib.nn.utils.vector_to_parameters([1.0], _params_with_grads(lib)))


# ---------------------------------------------------------------- weight_norm
class _Affine:
    @staticmethod
    def make(lib, n_in=3, n_out=4):
        class Affine(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.weight = lib.nn.Parameter(lib.randn(n_out, n_in, dtype=lib.float64))
                self.bias = lib.nn.Parameter(lib.randn(n_out, dtype=lib.float64))

            def forward(self, x):
                return x @ self.weight.t() + self.bias
        return Affine()


def _affine_pair():
    t = _Affine.make(torch)
    e = _Affine.make(ember)
    with ember.no_grad():
        e.weight.copy_(ember.tensor(t.weight.detach().numpy()))
        e.bias.copy_(ember.tensor(t.bias.detach().numpy()))
    return e, t


@pytest.mark.parametrize("dim", [0, 1, None, -1])
def test_weight_norm_matches_torch(dim):
    e, t = _affine_pair()
    ember.nn.utils.weight_norm(e, dim=dim)
    torch.nn.utils.weight_norm(t, dim=dim)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    close(e.weight_g, t.weight_g, 1e-12)
    close(e.weight_v, t.weight_v, 1e-12)
    ex, tx = pair((5, 3), 2)
    with ember.no_grad():
        e.weight_g.mul_(2)
    with torch.no_grad():
        t.weight_g.mul_(2)
    eo, to = e(ex), t(tx)  # the pre-hook recomputes weight from the changed g
    close(eo, to, 1e-12)
    (eo * eo).sum().backward()
    (to * to).sum().backward()
    close(e.weight_g.grad, t.weight_g.grad, 1e-10)
    close(e.weight_v.grad, t.weight_v.grad, 1e-10)
    ember.nn.utils.remove_weight_norm(e)
    torch.nn.utils.remove_weight_norm(t)
    assert type(e.weight) is ember.nn.Parameter and "weight_g" not in e._parameters
    close(e.weight, t.weight, 1e-12)


def test_weight_norm_errors():
    same_error(lambda lib: lib.nn.utils.weight_norm(lib.nn.utils.weight_norm(_Affine.make(lib))))
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        ember.nn.utils.remove_weight_norm(_Affine.make(ember))


# ---------------------------------------------------------------- spectral_norm
def _spectral_pair(n_iter, dim, shape=(4, 3)):
    torch.manual_seed(0)
    t = torch.nn.Module()
    t.weight = torch.nn.Parameter(torch.randn(*shape, dtype=torch.float64))
    e = ember.nn.Module()
    e.weight = ember.nn.Parameter(ember.tensor(t.weight.detach().numpy()))
    torch.nn.utils.spectral_norm(t, n_power_iterations=n_iter, dim=dim)
    ember.nn.utils.spectral_norm(e, n_power_iterations=n_iter, dim=dim)
    with ember.no_grad():  # the same random start
        e.weight_u.copy_(ember.tensor(t.weight_u.numpy()))
        e.weight_v.copy_(ember.tensor(t.weight_v.numpy()))
    return e, t


@pytest.mark.parametrize("n_iter,dim,shape", [(1, 0, (4, 3)), (3, 0, (4, 3)), (2, 1, (3, 5, 2)), (1, 0, (2, 3, 2))])
def test_spectral_norm_matches_torch(n_iter, dim, shape):
    e, t = _spectral_pair(n_iter, dim, shape)
    assert list(e.state_dict()) == list(t.state_dict()) == ["weight_orig", "weight_u", "weight_v"]
    assert e.state_dict()._metadata[""] == t.state_dict()._metadata[""]
    for step in range(2):  # training: each forward runs power iterations and updates u, v
        t._forward_pre_hooks[next(iter(t._forward_pre_hooks))](t, ())
        e._forward_pre_hooks[next(iter(e._forward_pre_hooks))](e, ())
        close(e.weight, t.weight, 1e-12)
        close(e.weight_u, t.weight_u, 1e-12)
        close(e.weight_v, t.weight_v, 1e-12)
    (e.weight * e.weight).sum().backward()
    (t.weight * t.weight).sum().backward()
    close(e.weight_orig.grad, t.weight_orig.grad, 1e-10)
    # eval: u and v stay
    u = e.weight_u.clone()
    e.eval()
    t.eval()
    e._forward_pre_hooks[next(iter(e._forward_pre_hooks))](e, ())
    t._forward_pre_hooks[next(iter(t._forward_pre_hooks))](t, ())
    assert bool((e.weight_u == u).all())
    close(e.weight, t.weight, 1e-12)
    ember.nn.utils.remove_spectral_norm(e)
    torch.nn.utils.remove_spectral_norm(t)
    assert list(e.state_dict()) == ["weight"] and type(e.weight) is ember.nn.Parameter
    close(e.weight, t.weight, 1e-12)


def test_spectral_norm_in_a_forward_and_errors():
    e = _Affine.make(ember)
    ember.nn.utils.spectral_norm(e)
    out = e(ember.ones(2, 3, dtype=ember.float64))
    out.sum().backward()
    assert e.weight_orig.grad is not None
    sigma = np.linalg.svd(e.weight_orig.detach().numpy(), compute_uv=False)[0]
    for _ in range(50):
        e(ember.ones(1, 3, dtype=ember.float64))
    np.testing.assert_allclose(np.linalg.svd(e.weight.detach().numpy(), compute_uv=False)[0], 1.0, rtol=1e-6)
    assert sigma > 0
    same_error(lambda lib: lib.nn.utils.spectral_norm(lib.nn.utils.spectral_norm(_Affine.make(lib))))
    same_error(lambda lib: lib.nn.utils.spectral_norm(_Affine.make(lib), n_power_iterations=0))
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in"):
        ember.nn.utils.remove_spectral_norm(_Affine.make(ember))


# ---------------------------------------------------------------- any parameter's name
# weight_norm and spectral_norm on parameters not called weight: an LSTM's (read through its
# flat weights) and a custom module's, against torch's layer loaded with the same values.
def _copy_params(e, t):
    with ember.no_grad():
        for (ne, pe), (nt, pt) in zip(e.named_parameters(), t.named_parameters()):
            assert ne == nt
            pe.copy_(ember.tensor(pt.detach().numpy()))


def _lstm_pair():
    torch.manual_seed(0)
    t = torch.nn.LSTM(3, 4, num_layers=2, dtype=torch.float64)
    e = ember.nn.LSTM(3, 4, num_layers=2, dtype=ember.float64)
    _copy_params(e, t)
    return e, t


class _Scaled:
    @staticmethod
    def make(lib):
        class Scaled(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = lib.nn.Parameter(lib.randn(4, 3, dtype=lib.float64))
                self.shift = lib.nn.Parameter(lib.randn(4, dtype=lib.float64))

            def forward(self, x):
                return x @ self.scale.t() + self.shift
        return Scaled()


def _scaled_pair():
    torch.manual_seed(1)
    e, t = _Scaled.make(ember), _Scaled.make(torch)
    _copy_params(e, t)
    return e, t


def _run_lstm(m, x):
    out, (h, c) = m(x)
    return out, (out * out).sum() + (h * c).sum()


def _run_scaled(m, x):
    out = m(x)
    return out, (out * out).sum()


def _compare_step(e, t, run, shape, seed):
    """One forward and backward of both modules: outputs and every parameter's gradient."""
    ex, tx = pair(shape, seed, requires_grad=True)
    eo, eloss = run(e, ex)
    to, tloss = run(t, tx)
    close(eo, to, 1e-10)
    e.zero_grad()
    t.zero_grad()
    eloss.backward()
    tloss.backward()
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    for (n, pe), (_, pt) in zip(e.named_parameters(), t.named_parameters()):
        close(pe.grad, pt.grad, 1e-9)
    close(ex.grad, tx.grad, 1e-9)


ANY_NAME_CASES = [
    ("lstm", "weight_hh_l0", 0), ("lstm", "weight_ih_l1", 1), ("lstm", "bias_hh_l1", None),
    ("scaled", "scale", 1), ("scaled", "shift", 0),
]
_MAKERS = {"lstm": (_lstm_pair, _run_lstm, (5, 2, 3)), "scaled": (_scaled_pair, _run_scaled, (6, 3))}


@pytest.mark.parametrize("kind,name,dim", ANY_NAME_CASES)
def test_weight_norm_any_parameter_matches_torch(kind, name, dim):
    make, run, shape = _MAKERS[kind]
    e, t = make()
    ember.nn.utils.weight_norm(e, name=name, dim=dim)
    torch.nn.utils.weight_norm(t, name=name, dim=dim)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert name + "_g" in e._parameters and name not in e._parameters
    close(getattr(e, name + "_g"), getattr(t, name + "_g"), 1e-12)
    close(getattr(e, name), getattr(t, name), 1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch: LSTM weights not in one contiguous chunk
        _compare_step(e, t, run, shape, 2)
        with ember.no_grad():
            getattr(e, name + "_g").mul_(1.5)
        with torch.no_grad():
            getattr(t, name + "_g").mul_(1.5)
        _compare_step(e, t, run, shape, 3)  # the pre-hook recomputes from the changed g
    ember.nn.utils.remove_weight_norm(e, name)
    torch.nn.utils.remove_weight_norm(t, name)
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert type(getattr(e, name)) is ember.nn.Parameter
    close(getattr(e, name), getattr(t, name), 1e-12)


@pytest.mark.parametrize("kind,name,dim", ANY_NAME_CASES)
def test_spectral_norm_any_parameter_matches_torch(kind, name, dim):
    if dim is None or (name.startswith("bias") or name == "shift"):
        dim = 0
    make, run, shape = _MAKERS[kind]
    e, t = make()
    torch.nn.utils.spectral_norm(t, name=name, n_power_iterations=2, dim=dim)
    ember.nn.utils.spectral_norm(e, name=name, n_power_iterations=2, dim=dim)
    assert list(e.state_dict()) == list(t.state_dict())
    assert [n for n, _ in e.named_buffers()] == [n for n, _ in t.named_buffers()] == [name + "_u", name + "_v"]
    close(getattr(e, name), getattr(t, name), 0)  # the unnormalized weight until the first call
    with ember.no_grad():  # the same random start
        getattr(e, name + "_u").copy_(ember.tensor(getattr(t, name + "_u").numpy()))
        getattr(e, name + "_v").copy_(ember.tensor(getattr(t, name + "_v").numpy()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in (4, 5):  # training: power iteration updates u and v in place
            _compare_step(e, t, run, shape, seed)
            close(getattr(e, name + "_u"), getattr(t, name + "_u"), 1e-12)
            close(getattr(e, name + "_v"), getattr(t, name + "_v"), 1e-12)
        e.eval()
        t.eval()
        u = getattr(e, name + "_u").clone()
        _compare_step(e, t, run, shape, 6)  # eval: u and v stay
        assert bool((getattr(e, name + "_u") == u).all())
    ember.nn.utils.remove_spectral_norm(e, name)
    torch.nn.utils.remove_spectral_norm(t, name)
    assert list(e.state_dict()) == list(t.state_dict())
    close(getattr(e, name), getattr(t, name), 1e-12)


def test_norm_hooks_missing_or_wrong_name_errors():
    same_error(lambda lib: lib.nn.utils.weight_norm(lib.nn.Linear(4, 3), name="foo"))
    same_error(lambda lib: lib.nn.utils.weight_norm(lib.nn.BatchNorm1d(3), name="running_mean"))
    same_error(lambda lib: lib.nn.utils.spectral_norm(lib.nn.Linear(4, 3), name="foo"))
    same_error(lambda lib: lib.nn.utils.spectral_norm(lib.nn.BatchNorm1d(3), name="running_mean"))
    same_error(lambda lib: lib.nn.utils.spectral_norm(lib.nn.Linear(4, 3, bias=False), name="bias"))
    same_error(lambda lib: lib.nn.utils.remove_weight_norm(lib.nn.utils.weight_norm(lib.nn.Linear(4, 3)), "bias"))
    same_error(lambda lib: lib.nn.utils.remove_spectral_norm(lib.nn.utils.spectral_norm(lib.nn.Linear(4, 3)), "bias"))
    same_error(lambda lib: lib.nn.utils.weight_norm(lib.nn.utils.weight_norm(lib.nn.LSTM(2, 3), "weight_hh_l0"),
                                                    "weight_hh_l0"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # lazy modules are a new feature
        same_error(lambda lib: lib.nn.utils.weight_norm(lib.nn.LazyLinear(3)))
        same_error(lambda lib: lib.nn.utils.spectral_norm(lib.nn.LazyLinear(3)))


# ---------------------------------------------------------------- rnn
SEQ_LENGTHS = [[5, 3, 4], [4, 4, 2, 1], [1], [3, 2, 2]]


def _seqs(lengths, feat=(2,), seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal((n,) + feat) for n in lengths]
    return ([ember.tensor(a, requires_grad=True) for a in arrays],
            [torch.tensor(a, requires_grad=True) for a in arrays])


def _grads_match(es, ts):
    for a, b in zip(es, ts):
        close(a.grad, b.grad, 1e-12)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths", SEQ_LENGTHS)
def test_pad_sequence(lengths, batch_first):
    es, ts = _seqs(lengths, (2, 3))
    e = rnn.pad_sequence(es, batch_first=batch_first, padding_value=-1.5)
    t = torch.nn.utils.rnn.pad_sequence(ts, batch_first=batch_first, padding_value=-1.5)
    close(e, t, 0)
    w = np.random.default_rng(9).standard_normal(tuple(t.shape))
    (e * ember.tensor(w)).sum().backward()
    (t * torch.tensor(w)).sum().backward()
    _grads_match(es, ts)


@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("lengths", SEQ_LENGTHS)
def test_pack_pad_round_trip(lengths, batch_first, enforce_sorted):
    if enforce_sorted and lengths != sorted(lengths, reverse=True):
        lengths = sorted(lengths, reverse=True)
    es, ts = _seqs(lengths)
    e_pad = rnn.pad_sequence(es, batch_first=batch_first)
    t_pad = torch.nn.utils.rnn.pad_sequence(ts, batch_first=batch_first)
    ep = rnn.pack_padded_sequence(e_pad, ember.tensor(lengths), batch_first, enforce_sorted)
    tp = torch.nn.utils.rnn.pack_padded_sequence(t_pad, torch.tensor(lengths), batch_first, enforce_sorted)
    assert isinstance(ep, rnn.PackedSequence) and isinstance(ep, tuple) and ep._fields == tp._fields
    close(ep.data, tp.data, 0)
    assert ep.batch_sizes.tolist() == tp.batch_sizes.tolist() and ep.batch_sizes.dtype is ember.int64
    for name in ("sorted_indices", "unsorted_indices"):
        a, b = getattr(ep, name), getattr(tp, name)
        assert (a is None) == (b is None) and (a is None or a.tolist() == b.tolist())
    total = max(lengths) + 2
    eo, el = rnn.pad_packed_sequence(ep, batch_first, padding_value=0.5, total_length=total)
    to, tl = torch.nn.utils.rnn.pad_packed_sequence(tp, batch_first, padding_value=0.5, total_length=total)
    close(eo, to, 0)
    assert el.tolist() == tl.tolist()
    w = np.random.default_rng(4).standard_normal(tuple(to.shape))
    (eo * ember.tensor(w)).sum().backward()
    (to * torch.tensor(w)).sum().backward()
    _grads_match(es, ts)


@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_sequence_and_unpack(enforce_sorted):
    lengths = [4, 3, 1] if enforce_sorted else [2, 5, 3]
    es, ts = _seqs(lengths, (3,))
    ep = rnn.pack_sequence(es, enforce_sorted=enforce_sorted)
    tp = torch.nn.utils.rnn.pack_sequence(ts, enforce_sorted=enforce_sorted)
    close(ep.data, tp.data, 0)
    assert ep.batch_sizes.tolist() == tp.batch_sizes.tolist()
    (ep.data * ep.data).sum().backward()
    (tp.data * tp.data).sum().backward()
    _grads_match(es, ts)
    eu = rnn.unpack_sequence(ep)
    tu = torch.nn.utils.rnn.unpack_sequence(tp)
    assert len(eu) == len(tu)
    for a, b in zip(eu, tu):
        close(a, b, 0)
    assert ep.double().data.dtype is ember.float64 and ep.to(ember.float32).data.dtype is ember.float32
    assert rnn.invert_permutation(ember.tensor([2, 0, 1])).tolist() == \
        torch.nn.utils.rnn.invert_permutation(torch.tensor([2, 0, 1])).tolist()


def test_unpad_sequence():
    es, ts = _seqs([3, 1, 2])
    for batch_first in (False, True):
        e = rnn.unpad_sequence(rnn.pad_sequence(es, batch_first), ember.tensor([3, 1, 2]), batch_first)
        t = torch.nn.utils.rnn.unpad_sequence(torch.nn.utils.rnn.pad_sequence(ts, batch_first),
                                              torch.tensor([3, 1, 2]), batch_first)
        for a, b in zip(e, t):
            close(a, b, 0)


RNN_ERRORS = {
    "unsorted": lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(4, 2), lib.tensor([2, 3])),
    "zero_length": lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(4, 2), lib.tensor([3, 0])),
    "batch_mismatch": lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(4, 2), lib.tensor([3, 2, 1])),
    "total_length": lambda lib: lib.nn.utils.rnn.pad_packed_sequence(
        lib.nn.utils.rnn.pack_sequence([lib.ones(3), lib.ones(2)]), total_length=2),
    "pad_not_iterable": lambda lib: lib.nn.utils.rnn.pad_sequence(3),
}


@pytest.mark.parametrize("case", sorted(RNN_ERRORS))
def test_rnn_errors_match_torch(case):
    same_error(RNN_ERRORS[case])
