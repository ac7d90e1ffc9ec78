"""ember.nn.Module, Parameter, containers, Linear/Bilinear/Flatten against torch.nn (1.13): the
same models give the same names, state, repr, hooks, errors and values."""
import copy
import pickle
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ember


def to_np(t):
    return None if t is None else t.detach().numpy()


def close(e, t, tol=1e-10):
    assert (e is None) == (t is None)
    if e is not None:
        np.testing.assert_allclose(to_np(e), to_np(t), rtol=tol, atol=tol)


def copy_weights(e_model, t_model):
    """Gives the ember model the torch model's parameters and buffers (same names)."""
    t_state = t_model.state_dict(keep_vars=True)
    e_state = e_model.state_dict(keep_vars=True)
    assert list(e_state) == list(t_state)
    with ember.no_grad():
        for k, v in t_state.items():
            e_state[k].copy_(ember.from_numpy(v.detach().numpy().copy()))


def affine(x, lin):
    """lin(x) written with matmul, for modules whose forward must not depend on F.linear."""
    return x @ lin.weight.t() + lin.bias


def make_classes(lib):
    nn = lib.nn

    class Affine(nn.Module):
        def __init__(self, n_in, n_out):
            super().__init__()
            self.weight = nn.Parameter(lib.randn(n_out, n_in))
            self.bias = nn.Parameter(lib.randn(n_out))

        def forward(self, x):
            return affine(x, self)

    class Tanh(nn.Module):
        def forward(self, x):
            return lib.tanh(x)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 4)
            self.register_buffer("running", lib.zeros(4))
            self.register_buffer("scratch", lib.ones(2), persistent=False)
            self.scale = nn.Parameter(lib.ones(1))
            self.plain = 5

        def forward(self, x):
            return affine(x, self.lin) * self.scale

        def extra_repr(self):
            return "plain=5"

    class Two(nn.Module):  # two inputs, two outputs
        def __init__(self):
            super().__init__()
            self.a = Affine(3, 2)

        def forward(self, x, y):
            h = self.a(x)
            return h * y, h.sum()

    return Affine, Tanh, Block, Two


def nested(lib):
    nn = lib.nn
    _, Tanh, Block, _ = make_classes(lib)
    lib.manual_seed(0)
    m = nn.Sequential(OrderedDict([
        ("first", Block()),
        ("act", Tanh()),
        ("list", nn.ModuleList([nn.Linear(4, 4), nn.Flatten(), nn.Sequential(nn.Linear(4, 2, bias=False))])),
        ("dict", nn.ModuleDict({"bil": nn.Bilinear(2, 3, 4), "id": nn.Identity(7, k=1)})),
        ("plist", nn.ParameterList([nn.Parameter(lib.ones(2, 3)), lib.zeros(4)])),
        ("pdict", nn.ParameterDict({"p": nn.Parameter(lib.ones(5)), "q": lib.zeros(1, 2, dtype=lib.float64)})),
    ]))
    m.shared = m.first.lin  # the same module twice: reported once
    m.unflat = nn.Unflatten(1, (2, 2))
    m.register_parameter("none_param", None)
    m.register_buffer("none_buf", None)
    return m


@pytest.fixture
def models():
    e, t = nested(ember), nested(torch)
    copy_weights(e, t)
    return e, t


# ---------------------------------------------------------------- names and iteration
NAMED = {
    "named_parameters": lambda m: [n for n, _ in m.named_parameters()],
    "named_parameters_prefix": lambda m: [n for n, _ in m.named_parameters(prefix="model")],
    "named_parameters_norecurse": lambda m: [n for n, _ in m.first.named_parameters(recurse=False)],
    "parameters_shapes": lambda m: [tuple(p.shape) for p in m.parameters()],
    "named_buffers": lambda m: [n for n, _ in m.named_buffers()],
    "buffers_count": lambda m: len(list(m.buffers())),
    "named_children": lambda m: [n for n, _ in m.named_children()],
    "children_types": lambda m: [type(c).__name__ for c in m.children()],
    "named_modules": lambda m: [n for n, _ in m.named_modules()],
    "named_modules_prefix": lambda m: [n for n, _ in m.named_modules(prefix="root")],
    "named_modules_dup": lambda m: [n for n, _ in m.named_modules(remove_duplicate=False)],
    "modules_types": lambda m: [type(x).__name__ for x in m.modules()],
    "state_dict_keys": lambda m: list(m.state_dict().keys()),
    "state_dict_prefix": lambda m: list(m.state_dict(prefix="p.").keys()),
    "metadata": lambda m: dict(m.state_dict()._metadata),
    "dir_has": lambda m: [k in dir(m) for k in ("first", "shared", "none_param", "0", "forward", "training")],
    "len_containers": lambda m: (len(m.list), len(m.dict), len(m.plist), len(m.pdict)),
    "dict_keys": lambda m: (list(m.dict.keys()), list(m.pdict.keys()), "bil" in m.dict, "p" in m.pdict),
}


@pytest.mark.parametrize("name", sorted(NAMED))
def test_names_and_iteration(models, name):
    e, t = models
    assert NAMED[name](e) == NAMED[name](t)


def test_shared_parameters_once():
    for lib in (ember, torch):
        nn = lib.nn
        lin = nn.Linear(2, 2)
        seq = nn.Sequential(lin, lin)
        seq.extra = lin.weight
        assert [n for n, _ in seq.named_parameters()] == ["extra", "0.bias"]  # own parameters first
        assert len(list(seq.modules())) == 2


def test_state_dict_values_round_trip(models):
    e, t = models
    es, ts = e.state_dict(), t.state_dict()
    assert isinstance(es, OrderedDict)
    for k in ts:
        close(es[k], ts[k], 0)
        assert not es[k].requires_grad and type(es[k]) is ember.Tensor
    kv = e.state_dict(keep_vars=True)
    assert isinstance(kv["first.scale"], ember.nn.Parameter) and kv["first.scale"].requires_grad
    # torch -> ember through numpy, and back
    t2 = nested(torch)
    e.load_state_dict({k: ember.from_numpy(v.numpy().copy()) for k, v in t.state_dict().items()})
    t2.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in e.state_dict().items()})
    for (kt, vt), (ke, ve) in zip(t2.state_dict().items(), e.state_dict().items()):
        assert kt == ke
        close(ve, vt, 0)


def test_state_dict_buffer_update_and_scalar():
    for lib in (ember, torch):
        m = lib.nn.Module()
        m.register_buffer("b", lib.zeros(3))
        m.b = lib.ones(3)  # a Tensor assigned to a buffer name updates the buffer
        assert list(m.state_dict()) == ["b"] and float(m.state_dict()["b"].sum()) == 3
        m.s = lib.nn.Parameter(lib.tensor(1.0))
        m.load_state_dict({"b": lib.zeros(3), "s": lib.tensor([4.0])})  # 1-element into 0-dim
        assert float(m.s) == 4.0


def _load_error(lib, make_sd, strict=True):
    nn = lib.nn
    lib.manual_seed(0)
    m = nn.Sequential(nn.Linear(3, 4), nn.Linear(4, 2))
    m.register_buffer("buf", lib.zeros(2))
    before = {k: v.clone() for k, v in m.state_dict().items()}
    with pytest.raises(RuntimeError) as info:
        m.load_state_dict(make_sd(lib, m), strict=strict)
    return str(info.value), m, before


LOAD_ERRORS = {
    "missing": lambda lib, m: {k: v for k, v in m.state_dict().items() if k != "1.bias"},
    "unexpected": lambda lib, m: {**m.state_dict(), "2.weight": lib.ones(1), "bogus": lib.ones(1)},
    "size_mismatch": lambda lib, m: {**m.state_dict(), "0.weight": lib.ones(5, 3)},
    "all_three": lambda lib, m: {**{k: lib.ones_like(v) for k, v in m.state_dict().items() if k != "buf"},
                                 "0.bias": lib.ones(7), "extra": lib.ones(1)},
    "not_a_tensor": lambda lib, m: {**m.state_dict(), "1.bias": [1.0, 2.0]},
}


@pytest.mark.parametrize("case", sorted(LOAD_ERRORS))
def test_load_state_dict_errors_leave_module_unchanged(case):
    msg_t, _, _ = _load_error(torch, LOAD_ERRORS[case])
    msg_e, m, before = _load_error(ember, LOAD_ERRORS[case])
    assert msg_e == msg_t.replace("torch.", "ember.").replace("Error(s) in loading state_dict for Sequential",
                                                             "Error(s) in loading state_dict for Sequential")
    assert msg_e.startswith("Error(s) in loading state_dict for Sequential:\n\t")
    for k, v in m.state_dict().items():  # ember's deliberate difference: nothing was copied
        assert bool((v == before[k]).all())


def test_load_state_dict_non_strict():
    results = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Linear(4, 2))
        sd = {"0.weight": lib.ones(4, 3), "0.bias": lib.ones(4), "9.x": lib.ones(1)}
        r = m.load_state_dict(sd, strict=False)
        results.append((r.missing_keys, r.unexpected_keys, repr(r), float(m[0].weight.sum())))
        ok = m.load_state_dict(m.state_dict())
        assert repr(ok) == "<All keys matched successfully>" and ok == ([], [])
    assert results[0] == results[1]
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        ember.nn.Linear(2, 2).load_state_dict([1, 2])


def test_state_dict_overridable_hooks():
    class WithExtra(ember.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = ember.nn.Parameter(ember.zeros(2))
            self.state = None

        def get_extra_state(self):
            return {"note": 7}

        def set_extra_state(self, state):
            self.state = state

        def _save_to_state_dict(self, destination, prefix, keep_vars):
            super()._save_to_state_dict(destination, prefix, keep_vars)
            destination[prefix + "custom"] = ember.ones(1)

        def _load_from_state_dict(self, state_dict, prefix, *args):
            state_dict.pop(prefix + "custom", None)
            super()._load_from_state_dict(state_dict, prefix, *args)

    outer = ember.nn.Sequential(WithExtra())
    sd = outer.state_dict()
    assert list(sd) == ["0.w", "0._extra_state", "0.custom"]
    sd["0.w"] = ember.ones(2)
    outer.load_state_dict(sd)
    assert outer[0].state == {"note": 7} and float(outer[0].w.sum()) == 2
    # the extra state is not set either when loading fails
    outer[0].state = None
    with pytest.raises(RuntimeError):
        outer.load_state_dict({**sd, "0.w": ember.ones(3)})
    assert outer[0].state is None and float(outer[0].w.sum()) == 2
    calls = []
    outer[0].register_load_state_dict_post_hook(lambda mod, keys: calls.append(tuple(keys)))
    outer.load_state_dict(sd)
    assert calls == [([], [])]


# ---------------------------------------------------------------- registration and errors
def _err(fn):
    """(type, message) of what fn raises, with torch's names in ember's spelling."""
    try:
        fn()
    except Exception as ex:  # noqa: BLE001 - the type is what is compared
        return type(ex), str(ex).replace("torch", "ember")
    return None, None


def _module(lib):
    m = lib.nn.Module()
    m.p = lib.nn.Parameter(lib.ones(2))
    m.register_buffer("b", lib.zeros(2))
    m.sub = lib.nn.Module()
    m.attr = 1
    return m


ERRORS = {
    "param_name_type": lambda lib: _module(lib).register_parameter(1, None),
    "param_name_dot": lambda lib: _module(lib).register_parameter("a.b", None),
    "param_name_empty": lambda lib: _module(lib).register_parameter("", None),
    "param_exists": lambda lib: _module(lib).register_parameter("attr", None),
    "param_exists_buffer": lambda lib: _module(lib).register_parameter("b", None),
    "param_not_parameter": lambda lib: _module(lib).register_parameter("q", lib.ones(2)),
    "buffer_name_type": lambda lib: _module(lib).register_buffer(3, None),
    "buffer_name_dot": lambda lib: _module(lib).register_buffer("x.y", None),
    "buffer_name_empty": lambda lib: _module(lib).register_buffer("", None),
    "buffer_exists": lambda lib: _module(lib).register_buffer("p", lib.ones(1)),
    "buffer_not_tensor": lambda lib: _module(lib).register_buffer("c", 3),
    "module_not_module": lambda lib: _module(lib).add_module("x", 3),
    "module_name_type": lambda lib: _module(lib).add_module(2, lib.nn.Module()),
    "module_name_dot": lambda lib: _module(lib).add_module("a.b", lib.nn.Module()),
    "module_name_empty": lambda lib: _module(lib).register_module("", lib.nn.Module()),
    "module_exists": lambda lib: _module(lib).add_module("attr", lib.nn.Module()),
    "set_tensor_as_param": lambda lib: setattr(_module(lib), "p", lib.ones(2)),
    "set_int_as_module": lambda lib: setattr(_module(lib), "sub", 3),
    "set_int_as_buffer": lambda lib: setattr(_module(lib), "b", 3),
    "param_before_init": lambda lib: _uninit(lib).register_parameter("w", None),
    "setattr_param_before_init": lambda lib: setattr(_uninit(lib), "w", lib.nn.Parameter(lib.ones(1))),
    "setattr_module_before_init": lambda lib: setattr(_uninit(lib), "m", lib.nn.Module()),
    "getattr_missing": lambda lib: _module(lib).missing,
    "delattr_missing": lambda lib: delattr(_module(lib), "missing"),
    "forward_missing": lambda lib: _module(lib)(1),
    "train_not_bool": lambda lib: _module(lib).train("yes"),
    "to_int_dtype": lambda lib: _module(lib).to(lib.int64),
    "get_submodule_missing": lambda lib: _module(lib).get_submodule("sub.nope"),
    "get_submodule_not_module": lambda lib: _module(lib).get_submodule("p"),
    "get_parameter_not_param": lambda lib: _module(lib).get_parameter("b"),
    "get_parameter_missing": lambda lib: _module(lib).get_parameter("sub.w"),
    "get_buffer_not_buffer": lambda lib: _module(lib).get_buffer("p"),
    "sequential_index": lambda lib: lib.nn.Sequential(lib.nn.Module())[3],
    "sequential_add": lambda lib: lib.nn.Sequential() + lib.nn.ModuleList(),
    "sequential_mul": lambda lib: lib.nn.Sequential() * 0,
    "sequential_insert": lambda lib: lib.nn.Sequential(lib.nn.Module()).insert(5, lib.nn.Module()),
    "modulelist_index": lambda lib: lib.nn.ModuleList([lib.nn.Module()])[-2],
    "modulelist_extend": lambda lib: lib.nn.ModuleList().extend(3),
    "moduledict_update": lambda lib: lib.nn.ModuleDict().update(3),
    "moduledict_pair": lambda lib: lib.nn.ModuleDict().update([("a", lib.nn.Module(), 1)]),
    "moduledict_missing": lambda lib: lib.nn.ModuleDict()["x"],
    "paramlist_call": lambda lib: lib.nn.ParameterList()(1),
    "paramlist_extend_tensor": lambda lib: lib.nn.ParameterList().extend(lib.ones(2)),
    "paramlist_index": lambda lib: lib.nn.ParameterList([lib.ones(1)])[1],
    "paramdict_call": lambda lib: lib.nn.ParameterDict()(1),
    "paramdict_key": lambda lib: lib.nn.ParameterDict()[1],
    "unflatten_sizes": lambda lib: lib.nn.Unflatten(1, (2, 2.0)),
    "unflatten_type": lambda lib: lib.nn.Unflatten(1, 4),
    "unflatten_named": lambda lib: lib.nn.Unflatten("x", (2, 2)),
    "unflatten_dim": lambda lib: lib.nn.Unflatten(1.0, (2, 2)),
}


def _uninit(lib):
    class Bad(lib.nn.Module):
        def __init__(self):
            pass
    return Bad()


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_match_torch(case):
    t_type, t_msg = _err(lambda: ERRORS[case](torch))
    e_type, e_msg = _err(lambda: ERRORS[case](ember))
    assert t_type is not None
    assert (e_type, e_msg) == (t_type, t_msg)


def test_setattr_routing():
    for lib in (torch, ember):
        m = _module(lib)
        m.p = None  # a parameter name accepts None
        assert "p" in m._parameters and m.p is None
        m.b = None
        assert "b" in m._buffers and m.b is None
        m.sub = None
        assert "sub" in m._modules
        # a Parameter moves a name from the buffers / modules / __dict__ to the parameters
        m.b = lib.nn.Parameter(lib.ones(1))
        assert "b" in m._parameters and "b" not in m._buffers
        m.attr = lib.nn.Parameter(lib.ones(1))
        assert "attr" in m._parameters and "attr" not in m.__dict__
        m.sub = lib.nn.Linear(1, 1)
        with pytest.raises(TypeError, match="as parameter 'p'"):
            m.p = lib.nn.Linear(1, 1)
        m.attr2 = 3
        m.attr2 = lib.nn.Linear(1, 1)  # a module moves a name out of __dict__
        assert "attr2" in m._modules and "attr2" not in m.__dict__
        m.t = lib.ones(1)  # a plain tensor is a plain attribute
        assert "t" in m.__dict__ and "t" not in m._buffers
        del m.b, m.p, m.t, m.attr2
        assert "b" not in m._parameters and "p" not in m._parameters and not hasattr(m, "t")
        assert "attr2" not in m._modules
        m.register_buffer("nb", lib.ones(1), persistent=False)
        assert "nb" not in m.state_dict()
        del m.nb
        assert "nb" not in m._non_persistent_buffers_set


def test_get_submodule_parameter_buffer(models):
    e, t = models
    for m in (e, t):
        assert m.get_submodule("") is m
        assert m.get_submodule("list.2.0") is m.list[2][0]
        assert m.get_parameter("first.lin.weight") is m.first.lin.weight
        assert m.get_buffer("first.running") is m.first.running


# ---------------------------------------------------------------- modes, grads, conversion
def test_train_eval_propagates(models):
    e, t = models
    for m in (e, t):
        assert m.eval() is m
        m.first.train()
    assert [x.training for x in e.modules()] == [x.training for x in t.modules()]
    assert not e.training and e.first.training and e.first.lin.training and not e.list[0].training
    e.train()
    assert all(x.training for x in e.modules())


def test_requires_grad_and_zero_grad():
    lin = ember.nn.Linear(3, 2)
    assert lin.requires_grad_(False) is lin and not lin.weight.requires_grad
    lin.requires_grad_()
    (affine(ember.ones(4, 3), lin)).sum().backward()
    g = lin.weight.grad
    assert g is not None and float(g.abs().sum()) > 0
    lin.zero_grad()  # 1.13's default: zeroed in place (g sees it), not dropped
    assert lin.weight.grad is not None and float(g.abs().sum()) == 0
    lin.zero_grad(set_to_none=True)
    assert lin.weight.grad is None and lin.bias.grad is None


@pytest.mark.parametrize("how", ["to_dtype", "to_kw", "to_tensor", "double", "to_device_dtype", "type"])
def test_to_float64_converts_parameters_and_grads(how):
    convert = {
        "to_dtype": lambda m, lib: m.to(lib.float64),
        "to_kw": lambda m, lib: m.to(dtype=lib.float64, non_blocking=True),
        "to_tensor": lambda m, lib: m.to(lib.zeros(1, dtype=lib.float64)),
        "double": lambda m, lib: m.double(),
        "to_device_dtype": lambda m, lib: m.to("cpu", lib.float64),
        "type": lambda m, lib: m.type(lib.float64),
    }[how]
    lib = ember
    m = lib.nn.Sequential(lib.nn.Linear(3, 2))
    m.register_buffer("count", lib.zeros(1, dtype=lib.int64))
    m.register_buffer("avg", lib.zeros(2))
    w = m[0].weight
    affine(lib.ones(1, 3), m[0]).sum().backward()
    assert convert(m, lib) is m
    assert m[0].weight is w  # the same Parameter object (an optimizer may hold it)
    assert w.dtype is lib.float64 and w.requires_grad and type(w) is lib.nn.Parameter
    assert w.grad.dtype is lib.float64 and float(w.grad.sum()) == 6.0
    assert m.avg.dtype is lib.float64
    expected_int = lib.float64 if how == "type" else lib.int64  # type() casts integers too, as torch
    assert m.count.dtype is expected_int
    affine(lib.ones(1, 3, dtype=lib.float64), m[0]).sum().backward()  # still a working leaf
    assert float(w.grad.sum()) == 12.0
    m.float()
    assert w.dtype is lib.float32 and m.count.dtype is (lib.float32 if how == "type" else lib.int64)
    assert m.half().avg.dtype is lib.float16 and m.bfloat16().avg.dtype is lib.bfloat16
    assert m.cpu() is m


def test_apply_and_repr_of_children_order():
    seen = []
    m = ember.nn.Sequential(ember.nn.Linear(1, 1), ember.nn.Sequential(ember.nn.Identity()))
    assert m.apply(lambda mod: seen.append(type(mod).__name__)) is m
    assert seen == ["Linear", "Identity", "Sequential", "Sequential"]


# ---------------------------------------------------------------- repr
def test_repr_nested_matches_torch(models):
    e, t = models
    assert repr(e) == repr(t).replace("torch.", "ember.")


REPRS = {
    "linear": lambda lib: lib.nn.Linear(3, 4),
    "linear_nobias": lambda lib: lib.nn.Linear(3, 4, bias=False),
    "bilinear": lambda lib: lib.nn.Bilinear(2, 3, 4),
    "identity": lambda lib: lib.nn.Identity(3),
    "flatten": lambda lib: lib.nn.Flatten(0, 2),
    "unflatten": lambda lib: lib.nn.Unflatten(1, (2, 5)),
    "unflatten_list": lambda lib: lib.nn.Unflatten(-1, [3, 1]),
    "unflatten_named": lambda lib: lib.nn.Unflatten("f", (("a", 2), ("b", 2))),
    "empty_sequential": lambda lib: lib.nn.Sequential(),
    "empty_module": lambda lib: lib.nn.Module(),
    "modulelist_nested": lambda lib: lib.nn.ModuleList([lib.nn.ModuleList([lib.nn.Linear(1, 1)]), lib.nn.Identity()]),
    "moduledict": lambda lib: lib.nn.ModuleDict([("z", lib.nn.Flatten()), ("a", lib.nn.Linear(2, 1))]),
    "paramlist": lambda lib: lib.nn.ParameterList([lib.ones(2, 3), lib.ones(4, dtype=lib.float64), "s"]),
    "paramdict": lambda lib: lib.nn.ParameterDict({"b": lib.ones(2), "a": lib.ones(1, 1, dtype=lib.float64)}),
    "paramdict_one": lambda lib: lib.nn.ParameterDict({"x": lib.ones(3)}),
    "param": lambda lib: lib.nn.Parameter(lib.tensor([1.0, 2.0])),
    "param_no_grad": lambda lib: lib.nn.Parameter(lib.tensor([[1.5]]), requires_grad=False),
    "seq_in_dict": lambda lib: lib.nn.ModuleDict({"s": lib.nn.Sequential(lib.nn.Linear(1, 2), lib.nn.Sequential(
        lib.nn.Flatten()))}),
}


@pytest.mark.parametrize("case", sorted(REPRS))
def test_repr_matches_torch(case):
    e, t = REPRS[case](ember), REPRS[case](torch)
    assert repr(e) == repr(t).replace("torch.", "ember.")
    assert str(e) == str(t).replace("torch.", "ember.")


# ---------------------------------------------------------------- Parameter
def test_parameter_basics():
    p = ember.nn.Parameter(ember.ones(2, 3))
    assert isinstance(p, ember.Tensor) and type(p) is ember.nn.Parameter
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    assert type(p * 2) is ember.Tensor and type(p.detach()) is ember.Tensor and type(p.data) is ember.Tensor
    assert type(ember.nn.Parameter()) is ember.nn.Parameter and ember.nn.Parameter().shape == (0,)
    assert not ember.nn.Parameter(ember.ones(1), requires_grad=False).requires_grad
    q = ember.nn.Parameter(ember.ones(2, dtype=ember.int64), requires_grad=False)
    assert q.dtype is ember.int64
    with pytest.raises(RuntimeError, match="floating point and complex"):
        ember.nn.Parameter(ember.ones(2, dtype=ember.int64))
    src = ember.ones(2)
    shared = ember.nn.Parameter(src)
    with ember.no_grad():
        shared.mul_(3)
    assert float(src.sum()) == 6  # a Parameter shares its data's storage, as in torch


def test_parameter_deepcopy_and_pickle():
    p = ember.nn.Parameter(ember.tensor([1.0, 2.0]))
    p.grad = ember.ones(2)
    q = copy.deepcopy(p)
    assert type(q) is ember.nn.Parameter and q.requires_grad and q.grad is None
    with ember.no_grad():
        q.add_(1)
    assert p.tolist() == [1.0, 2.0] and q.tolist() == [2.0, 3.0]
    r = pickle.loads(pickle.dumps(ember.nn.Parameter(ember.tensor([5.0]), requires_grad=False)))
    assert type(r) is ember.nn.Parameter and not r.requires_grad and r.tolist() == [5.0]


def test_module_deepcopy_and_pickle(models):
    e, _ = models
    e2 = copy.deepcopy(e)
    assert e2.shared is e2.first.lin  # sharing kept inside the copy
    for (n1, p1), (n2, p2) in zip(e.named_parameters(), e2.named_parameters()):
        assert n1 == n2 and p1 is not p2 and type(p2) is ember.nn.Parameter
        close(p1, p2, 0)
    with ember.no_grad():
        e2.first.lin.weight.fill_(9)
    assert float(e.first.lin.weight.max()) < 9
    lib_only = ember.nn.Sequential(ember.nn.Linear(2, 3), ember.nn.ModuleDict({"b": ember.nn.Bilinear(1, 2, 3)}))
    lib_only.register_buffer("buf", ember.arange(3.0))
    e3 = pickle.loads(pickle.dumps(lib_only))
    assert repr(e3) == repr(lib_only) and list(e3.state_dict()) == list(lib_only.state_dict())
    for k, v in lib_only.state_dict().items():
        close(e3.state_dict()[k], v, 0)
    assert type(e3[0].weight) is ember.nn.Parameter and e3[0].weight.requires_grad


# ---------------------------------------------------------------- containers
def test_sequential_api():
    for lib in (torch, ember):
        nn = lib.nn
        a, b, c = nn.Identity(), nn.Flatten(), nn.Linear(1, 1)
        s = nn.Sequential(a, b, c)
        assert s[0] is a and s[-1] is c and len(s) == 3 and list(s) == [a, b, c]
        sl = s[1:]
        assert type(sl) is nn.Sequential and list(sl._modules) == ["1", "2"] and list(sl) == [b, c]
        s[1] = nn.Identity()
        assert type(s[1]) is nn.Identity
        del s[0]
        assert list(s._modules) == ["0", "1"] and s[1] is c
        s.append(a).insert(0, b)
        assert list(s) == [b, s[1], c, a]
        s.extend([c])
        assert len(s) == 5
        del s[1:3]
        assert list(s._modules) == ["0", "1", "2"]
        assert s.pop(0) is b and len(s) == 2
        s2 = s + nn.Sequential(b)
        assert list(s2) == [a, c, b]
        s += nn.Sequential(b)
        assert len(s) == 3
        assert len(s * 2) == 6 and len(2 * s) == 6
        s *= 2
        assert len(s) == 6 and s[3] is s[0]
        assert "0" not in dir(s)
        od = nn.Sequential(OrderedDict([("x", a), ("y", c)]))
        assert list(od._modules) == ["x", "y"] and od.x is a and od[1] is c


def test_sequential_forward():
    s = ember.nn.Sequential(ember.nn.Flatten(), ember.nn.Identity(), ember.nn.Unflatten(1, (3, 2)))
    x = ember.arange(12.0).reshape(2, 2, 3)
    y = s(x)
    assert y.shape == (2, 3, 2) and y.flatten().tolist() == list(range(12))
    t = torch.nn.Flatten(0, 1)(torch.arange(24.0).reshape(2, 3, 4))
    assert ember.nn.Flatten(0, 1)(ember.arange(24.0).reshape(2, 3, 4)).tolist() == t.tolist()


def test_modulelist_api():
    for lib in (torch, ember):
        nn = lib.nn
        a, b, c = nn.Identity(), nn.Flatten(), nn.Linear(1, 1)
        ml = nn.ModuleList([a])
        ml.append(b).extend([c])
        assert list(ml) == [a, b, c] and ml[-1] is c
        sub = ml[::2]
        assert type(sub) is nn.ModuleList and list(sub) == [a, c]
        ml.insert(1, c)
        assert list(ml) == [a, c, b, c] and list(ml._modules) == ["0", "1", "2", "3"]
        del ml[1]
        assert list(ml) == [a, b, c]
        ml[0] = b
        assert ml[0] is b
        ml += [a]
        assert len(ml) == 4
        assert list(ml + nn.ModuleList([a])) [-1] is a
        assert ml.pop(-1) is a and len(ml) == 3
        del ml[0:2]
        assert list(ml) == [c] and list(ml._modules) == ["0"]
        assert len(list(ml.parameters())) == 2


def test_moduledict_api():
    for lib in (torch, ember):
        nn = lib.nn
        a, b = nn.Identity(), nn.Linear(1, 1)
        md = nn.ModuleDict({"b": b, "a": a})
        assert list(md.keys()) == ["b", "a"]  # a plain dict keeps its order here
        md.update([("c", nn.Flatten())])
        md["d"] = a
        assert list(md) == ["b", "a", "c", "d"] and "c" in md and "z" not in md
        assert [k for k, _ in md.items()] == list(md.keys()) and list(md.values())[0] is b
        assert md.pop("c") is not None and len(md) == 3
        del md["d"]
        md.update(nn.ModuleDict({"e": a}))
        assert list(md) == ["b", "a", "e"]
        md.clear()
        assert len(md) == 0


def test_parameterlist_and_dict_api():
    for lib in (torch, ember):
        nn = lib.nn
        pl = nn.ParameterList([lib.ones(2), nn.Parameter(lib.zeros(3))])
        assert all(type(p) is nn.Parameter for p in pl) and len(pl) == 2
        pl.append(lib.ones(1)).extend([lib.ones(4)])
        pl += [lib.ones(5)]
        assert [p.numel() for p in pl] == [2, 3, 1, 4, 5]
        assert [p.numel() for p in pl[1:4:2]] == [3, 4]
        pl[0] = lib.full((2,), 7.0)
        assert type(pl[0]) is nn.Parameter and float(pl[-5].sum()) == 14
        assert [n for n, _ in pl.named_parameters()] == ["0", "1", "2", "3", "4"]
        pd = nn.ParameterDict({"b": lib.ones(1), "a": lib.ones(2)})
        assert list(pd) == ["a", "b"]  # a plain dict is sorted, as in torch 1.13
        pd["c"] = lib.ones(3)
        assert type(pd["c"]) is nn.Parameter and "c" in pd and len(pd) == 3
        assert pd.get("zz") is None and pd.setdefault("d", lib.ones(4)).numel() == 4
        assert pd.pop("a").numel() == 2 and list(pd.keys()) == ["b", "c", "d"]
        k, v = pd.popitem()
        assert k == "d" and v.numel() == 4
        merged = pd | nn.ParameterDict(OrderedDict(z=lib.ones(1)))
        assert list(merged) == ["b", "c", "z"]
        pd |= OrderedDict(y=lib.ones(1))
        assert list(pd) == ["b", "c", "y"] and list(pd.copy()) == ["b", "c", "y"]
        assert [n for n, _ in pd.named_parameters()] == ["b", "c", "y"]
        assert list(reversed(pd)) == ["y", "c", "b"]
        assert list(pd.fromkeys(["u", "v"], lib.ones(1)).keys()) == ["u", "v"]
        pd.clear()
        assert len(pd) == 0 and list(pd.parameters()) == []


# ---------------------------------------------------------------- hooks
def _hooked_run(lib, model_fn, x_np, inputs_require_grad=True, modify=None, n_inputs=1):
    """Runs model(*inputs) with every kind of hook and returns what the hooks saw."""
    lib.manual_seed(0)
    model = model_fn(lib)
    log = []

    def pre(mod, inp):
        log.append(("pre", type(mod).__name__, len(inp)))

    def fwd(mod, inp, out):
        log.append(("fwd", type(mod).__name__, tuple(np.round(to_np(out if not isinstance(out, tuple) else out[0]), 10).ravel())))

    def bwd(mod, gin, gout):
        log.append(("bwd", type(mod).__name__, tuple(map(to_np, gin)), tuple(map(to_np, gout))))
        if modify is not None:
            return tuple(None if g is None else g * modify for g in gin)

    handles = []
    for m in model.modules():
        handles += [m.register_forward_pre_hook(pre), m.register_forward_hook(fwd),
                    m.register_full_backward_hook(bwd)]
    xs = [lib.tensor(x_np[i], requires_grad=inputs_require_grad and i == 0) for i in range(n_inputs)]
    out = model(*xs)
    loss = (out[0] * 2).sum() + out[1] if isinstance(out, tuple) else (out * out).sum()
    loss.backward()
    grads = [to_np(x.grad) for x in xs] + [to_np(p.grad) for p in model.parameters()]
    for h in handles:
        h.remove()
    model(*xs)  # removed hooks do not run
    return log, grads


def _copyable(model_fn):
    """model_fn with the torch model's weights given to the ember model."""
    cache = {}

    def make(lib):
        m = model_fn(lib)
        if lib is torch:
            cache["t"] = m
        else:
            copy_weights(m, cache["t"])
        return m
    return make


HOOK_MODELS = {
    "affine": lambda lib: make_classes(lib)[0](3, 2).double(),
    "linear_seq": lambda lib: lib.nn.Sequential(make_classes(lib)[0](3, 4), make_classes(lib)[1](),
                                                make_classes(lib)[0](4, 2)).double(),
    "two_in_two_out": lambda lib: make_classes(lib)[3]().double(),
    "linear": lambda lib: lib.nn.Linear(3, 2).double(),
    "seq_linear": lambda lib: lib.nn.Sequential(lib.nn.Linear(3, 4), make_classes(lib)[1](), lib.nn.Linear(4, 2)).double(),
}


@pytest.mark.parametrize("modify", [None, 0.5])
@pytest.mark.parametrize("requires_grad", [True, False])
@pytest.mark.parametrize("case", sorted(HOOK_MODELS))
def test_hooks_match_torch(case, requires_grad, modify):
    rng = np.random.default_rng(1)
    n_inputs = 2 if case == "two_in_two_out" else 1
    xs = [rng.standard_normal((5, 3)), rng.standard_normal((5, 2))][:n_inputs]
    make = _copyable(HOOK_MODELS[case])
    t_log, t_grads = _hooked_run(torch, make, xs, requires_grad, modify, n_inputs)
    e_log, e_grads = _hooked_run(ember, make, xs, requires_grad, modify, n_inputs)
    assert [entry[:2] for entry in e_log] == [entry[:2] for entry in t_log]
    assert len([x for x in e_log if x[0] == "bwd"]) > 0
    for el, tl in zip(e_log, t_log):
        if el[0] == "bwd":
            for eg, tg in zip(el[2] + el[3], tl[2] + tl[3]):
                assert (eg is None) == (tg is None)
                if eg is not None:
                    np.testing.assert_allclose(eg, tg, rtol=1e-10, atol=1e-12)
        else:
            assert el[2] == tl[2]
    for eg, tg in zip(e_grads, t_grads):
        assert (eg is None) == (tg is None)
        if eg is not None:
            np.testing.assert_allclose(eg, tg, rtol=1e-10, atol=1e-12)


def test_forward_hooks_replace_input_and_output():
    for lib in (torch, ember):
        m = lib.nn.Identity()
        h1 = m.register_forward_pre_hook(lambda mod, inp: inp[0] + 1)  # a non-tuple becomes (x,)
        h2 = m.register_forward_hook(lambda mod, inp, out: out * 10)
        assert m(lib.tensor([1.0])).tolist() == [20.0]
        h1.remove()
        assert m(lib.tensor([1.0])).tolist() == [10.0]
        with h2:
            pass
        assert m(lib.tensor([1.0])).tolist() == [1.0]


def test_backward_hook_wrong_count_and_global_hooks():
    names = []
    for lib in (torch, ember):
        m = lib.nn.Flatten(0)
        m.register_full_backward_hook(lambda *a: None)
        fn = m(lib.ones(2, 2, requires_grad=True)).grad_fn
        names.append(type(fn).__name__ if lib is torch else fn.name())  # torch's custom nodes lack name()
        with lib.no_grad():  # no node without grad mode
            assert m(lib.ones(2, 2, requires_grad=True)).grad_fn is None
    assert names == ["BackwardHookFunctionBackward"] * 2
    m = make_classes(ember)[0](3, 2)
    m.register_full_backward_hook(lambda mod, gin, gout: (gin[0], gin[0]))
    with pytest.raises(RuntimeError, match="invalid number of grad_input, got 2, but expected 1"):
        m(ember.ones(1, 3, requires_grad=True)).sum().backward()
    from ember.nn.modules import module as mm
    calls = []
    h = mm.register_module_forward_hook(lambda mod, inp, out: calls.append(type(mod).__name__))
    try:
        ember.nn.Sequential(ember.nn.Identity())(ember.ones(1))
    finally:
        h.remove()
    assert calls == ["Identity", "Sequential"]


# ---------------------------------------------------------------- register_backward_hook
def _tuple_module(lib, kind):
    class M(lib.nn.Module):
        def forward(self, a, b):
            if kind == "tuple":
                return a * b, a + b
            if kind == "tuple_int":
                return a * b, 3
            if kind == "dict":
                return {"x": a * b}
            return a * b
    return M()


NON_FULL_MODELS = {
    # (model factory, input shapes, how many inputs require grad)
    "linear": (lambda lib: lib.nn.Linear(3, 2).double(), [(4, 3)]),
    "linear_nobias": (lambda lib: lib.nn.Linear(3, 2, bias=False).double(), [(4, 3)]),
    "linear_1d": (lambda lib: lib.nn.Linear(3, 2).double(), [(3,)]),
    "linear_3d": (lambda lib: lib.nn.Linear(3, 2).double(), [(2, 4, 3)]),
    "sequential": (lambda lib: lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2),
                                                 lib.nn.Tanh()).double(), [(4, 3)]),
    "tuple": (lambda lib: _tuple_module(lib, "tuple"), [(3,), (3,)]),
    "tuple_int": (lambda lib: _tuple_module(lib, "tuple_int"), [(3,), (3,)]),
    "dict": (lambda lib: _tuple_module(lib, "dict"), [(3,), (3,)]),
    "single": (lambda lib: _tuple_module(lib, "single"), [(3,), (3,)]),
}


def _first_tensor(out):
    while not isinstance(out, (ember.Tensor, torch.Tensor)):
        out = next(v for v in out.values()) if isinstance(out, dict) else out[0]
    return out


def _non_full_run(lib, make, case, modify):
    shapes = NON_FULL_MODELS[case][1]
    model = make(lib)
    log = []

    def hook(mod, gin, gout):
        log.append((type(mod).__name__, tuple(map(to_np, gin)), tuple(map(to_np, gout))))
        if modify is not None:
            return tuple(None if g is None else g * modify for g in gin)

    handle = model.register_backward_hook(hook)
    rng = np.random.default_rng(3)
    xs = [lib.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]
    import warnings as w_
    with w_.catch_warnings(record=True) as caught:
        w_.simplefilter("always")
        out = model(*xs)
    messages = [str(c.message) for c in caught]
    first = _first_tensor(out)
    (first * lib.tensor(rng.standard_normal(tuple(first.shape)))).sum().backward()
    grads = [x.grad for x in xs] + [p.grad for p in model.parameters()]
    handle.remove()
    model(*xs)  # the removed hook is not registered again
    return log, messages, grads


@pytest.mark.parametrize("modify", [None, 0.5])
@pytest.mark.parametrize("case", sorted(NON_FULL_MODELS))
def test_register_backward_hook_matches_torch(case, modify):
    """The deprecated hook sees the grad_inputs of the node that made the module's (first)
    output, and its result replaces them; torch's warnings where it sees less than a full hook."""
    make = _copyable(NON_FULL_MODELS[case][0])
    t_log, t_msgs, t_grads = _non_full_run(torch, make, case, modify)
    e_log, e_msgs, e_grads = _non_full_run(ember, make, case, modify)
    assert e_msgs == t_msgs
    assert len(e_log) == len(t_log) == 1
    for (en, egi, ego), (tn, tgi, tgo) in zip(e_log, t_log):
        assert en == tn
        assert len(egi) == len(tgi) and len(ego) == len(tgo)
        for eg, tg in zip(egi + ego, tgi + tgo):
            assert (eg is None) == (tg is None)
            if eg is not None:
                np.testing.assert_allclose(eg, tg, rtol=1e-10, atol=1e-12)
    for eg, tg in zip(e_grads, t_grads):
        close(eg, tg)


@pytest.mark.filterwarnings("ignore:Using a non-full backward hook")
def test_register_backward_hook_mixing_and_errors():
    from ember.nn.modules import module as mm
    for lib in (ember, torch):
        m = lib.nn.Linear(3, 2)
        m.register_backward_hook(lambda *a: None)
        with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full backward hooks on a "
                                               "single Module. Please use only one of them."):
            m.register_full_backward_hook(lambda *a: None)
        m = lib.nn.Linear(3, 2)
        m.register_full_backward_hook(lambda *a: None)
        with pytest.raises(RuntimeError, match="Cannot use both regular backward hooks and full backward hooks"):
            m.register_backward_hook(lambda *a: None)
    # A wrong number of grad_input values: the node hook's error, naming the module hook.
    msgs = []
    for lib in (ember, torch):
        m = lib.nn.Linear(3, 2)

        def bad(mod, gin, gout):
            return gin[:1]
        m.register_backward_hook(bad)
        with pytest.raises(RuntimeError) as info:
            m(lib.ones(2, 3, requires_grad=True)).sum().backward()
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1] == "hook 'bad' has returned an incorrect number of values (got 1, but expected 3)"
    # No grad mode: nothing is registered and nothing warns.
    m = ember.nn.Linear(3, 2)
    m.register_backward_hook(lambda *a: pytest.fail("must not run"))
    import warnings as w_
    with w_.catch_warnings():
        w_.simplefilter("error")
        with ember.no_grad():
            m(ember.ones(2, 3))
    # Global hooks: one kind at a time.
    calls = []
    h = mm.register_module_backward_hook(lambda mod, gin, gout: calls.append(type(mod).__name__))
    try:
        with pytest.raises(RuntimeError, match="as a global Module hook"):
            mm.register_module_full_backward_hook(lambda *a: None)
        seq = ember.nn.Sequential(ember.nn.Linear(3, 2), ember.nn.Tanh())
        with pytest.warns(UserWarning):
            y = seq(ember.ones(2, 3, requires_grad=True))
        y.sum().backward()
    finally:
        h.remove()
        mm._global_is_full_backward_hook = None
    # Tanh and Sequential share the output node: both hooks run on it, then the Linear's (torch's order).
    assert calls == ["Tanh", "Sequential", "Linear"]


def test_module_call_without_forward_message():
    with pytest.raises(NotImplementedError, match=r'Module \[Module\] is missing the required "forward" function'):
        ember.nn.Module()(ember.ones(1))


# ---------------------------------------------------------------- layers
def test_linear_and_bilinear_init_ranges():
    ember.manual_seed(0)
    lin = ember.nn.Linear(100, 50)
    bound = 1 / np.sqrt(100)
    w = lin.weight.detach().numpy()
    assert w.shape == (50, 100) and np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert abs(w.std() - bound / np.sqrt(3)) < 0.005
    assert np.abs(lin.bias.detach().numpy()).max() <= bound
    assert lin.weight.dtype is ember.float32
    l64 = ember.nn.Linear(2, 3, bias=False, dtype=ember.float64)
    assert l64.weight.dtype is ember.float64 and l64.bias is None and list(l64.state_dict()) == ["weight"]
    bil = ember.nn.Bilinear(20, 3, 10)
    b = 1 / np.sqrt(20)
    assert bil.weight.shape == (10, 20, 3) and np.abs(bil.weight.detach().numpy()).max() <= b
    ember.manual_seed(5)
    a = ember.nn.Linear(4, 4).weight.tolist()
    ember.manual_seed(5)
    assert ember.nn.Linear(4, 4).weight.tolist() == a


def _has_linear():
    return hasattr(ember.nn.functional, "linear") and hasattr(ember.nn.functional, "bilinear")


LAYER_CASES = {
    "linear": (lambda lib: lib.nn.Linear(3, 4), [(2, 3)]),
    "linear_nobias": (lambda lib: lib.nn.Linear(3, 4, bias=False), [(5, 3)]),
    "linear_3d": (lambda lib: lib.nn.Linear(3, 2), [(2, 5, 3)]),
    "linear_1d": (lambda lib: lib.nn.Linear(3, 2), [(3,)]),
    "bilinear": (lambda lib: lib.nn.Bilinear(3, 2, 4), [(5, 3), (5, 2)]),
    "bilinear_nobias": (lambda lib: lib.nn.Bilinear(3, 2, 4, bias=False), [(5, 3), (5, 2)]),
    "seq_linear": (lambda lib: lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Flatten(0), lib.nn.Unflatten(0, (2, 4)),
                                                 lib.nn.Linear(4, 1)), [(2, 3)]),
}


@pytest.mark.parametrize("case", sorted(LAYER_CASES))
def test_layers_match_torch(case):
    if not _has_linear():
        pytest.fail("ember.nn.functional.linear/bilinear are not available yet")
    make, shapes = LAYER_CASES[case]
    t = make(torch).double()
    e = make(ember).double()
    copy_weights(e, t)
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal(s) for s in shapes]
    tx = [torch.tensor(x, requires_grad=True) for x in xs]
    ex = [ember.tensor(x, requires_grad=True) for x in xs]
    to, eo = t(*tx), e(*ex)
    close(eo, to)
    (to * to).sum().backward()
    (eo * eo).sum().backward()
    for a, b in zip(ex, tx):
        close(a.grad, b.grad)
    for (n1, p1), (n2, p2) in zip(e.named_parameters(), t.named_parameters()):
        assert n1 == n2
        close(p1.grad, p2.grad)
