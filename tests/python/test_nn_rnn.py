"""Recurrent layers against torch.nn in float64: outputs, final states, input gradients
and every parameter gradient."""
import re
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn
from ember.nn.utils import rnn as eru

RTOL, ATOL = 1e-7, 1e-9


def _rng(seed):
    return np.random.default_rng(seed)


def _pair(cls_name, *args, **kwargs):
    """(ember layer, torch layer) of the same class, ember holding torch's parameters."""
    t = getattr(torch.nn, cls_name)(*args, **kwargs).double()
    e = getattr(nn, cls_name)(*args, **kwargs).double()
    names_e = dict(e.named_parameters())
    assert set(names_e) == {n for n, _ in t.named_parameters()}
    for name, p in t.named_parameters():
        with ember.no_grad():
            names_e[name].copy_(ember.from_numpy(p.detach().numpy().copy()))
    return e, t


def _both(a, grad=True):
    e = ember.from_numpy(a.copy())
    t = torch.from_numpy(a.copy())
    if grad:
        e.requires_grad_()
        t.requires_grad_()
    return e, t


def _close(e, t):
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=RTOL, atol=ATOL)


def _flat(out):
    """The tensors of a layer's result, in order."""
    if isinstance(out, (eru.PackedSequence, torch.nn.utils.rnn.PackedSequence)):
        return [out.data]
    if isinstance(out, (tuple, list)):
        return [x for o in out for x in _flat(o)]
    return [out]


def _backward_compare(e_mod, t_mod, oe, ot, leaves, seed=5):
    fe, ft = _flat(oe), _flat(ot)
    assert len(fe) == len(ft)
    g = _rng(seed)
    le, lt = 0, 0
    for a, b in zip(fe, ft):
        _close(a, b)
        w = g.standard_normal(tuple(b.shape))
        le = le + (a * ember.from_numpy(w)).sum()
        lt = lt + (b * torch.from_numpy(w)).sum()
    le.backward()
    lt.backward()
    for a, b in leaves:
        _close(a.grad, b.grad)
    te = dict(t_mod.named_parameters())
    for name, p in e_mod.named_parameters():
        _close(p.grad, te[name].grad)


CONFIGS = [
    dict(num_layers=1),
    dict(num_layers=2),
    dict(num_layers=2, bidirectional=True),
    dict(num_layers=1, bidirectional=True, batch_first=True),
    dict(num_layers=2, bias=False),
    dict(num_layers=2, batch_first=True, bias=False, bidirectional=True),
]
KINDS = [("RNN", {}), ("RNN", {"nonlinearity": "relu"}), ("LSTM", {}), ("GRU", {})]


def _state(kind, shape, seed):
    g = _rng(seed)
    if kind == "LSTM":
        (he, ht), (ce, ct) = _both(g.standard_normal(shape)), _both(g.standard_normal(shape))
        return (he, ce), (ht, ct), [(he, ht), (ce, ct)]
    he, ht = _both(g.standard_normal(shape))
    return he, ht, [(he, ht)]


@pytest.mark.parametrize("kind,extra", KINDS, ids=["rnn_tanh", "rnn_relu", "lstm", "gru"])
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
@pytest.mark.parametrize("with_state", [False, True])
def test_layer_padded(kind, extra, cfg, with_state):
    e, t = _pair(kind, 5, 4, **cfg, **extra)
    T, B = 6, 3
    shape = (B, T, 5) if cfg.get("batch_first") else (T, B, 5)
    xe, xt = _both(_rng(1).standard_normal(shape))
    leaves = [(xe, xt)]
    D = 2 if cfg.get("bidirectional") else 1
    if with_state:
        se, st, sl = _state(kind, (cfg["num_layers"] * D, B, 4), 2)
        oe, ot = e(xe, se), t(xt, st)
        leaves += sl
    else:
        oe, ot = e(xe), t(xt)
    _backward_compare(e, t, oe, ot, leaves)


@pytest.mark.parametrize("kind,extra", KINDS, ids=["rnn_tanh", "rnn_relu", "lstm", "gru"])
@pytest.mark.parametrize("with_state", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_layer_unbatched(kind, extra, with_state, batch_first):
    e, t = _pair(kind, 5, 4, num_layers=2, bidirectional=True, batch_first=batch_first, **extra)
    xe, xt = _both(_rng(3).standard_normal((7, 5)))
    leaves = [(xe, xt)]
    if with_state:
        se, st, sl = _state(kind, (4, 4), 4)
        oe, ot = e(xe, se), t(xt, st)
        leaves += sl
    else:
        oe, ot = e(xe), t(xt)
    assert tuple(_flat(oe)[0].shape) == (7, 8)
    _backward_compare(e, t, oe, ot, leaves)


@pytest.mark.parametrize("kind,extra", KINDS, ids=["rnn_tanh", "rnn_relu", "lstm", "gru"])
@pytest.mark.parametrize("cfg", [dict(num_layers=1), dict(num_layers=2, bidirectional=True),
                                 dict(num_layers=2, bias=False, bidirectional=True)],
                         ids=["l1", "l2_bi", "l2_bi_nobias"])
@pytest.mark.parametrize("with_state", [False, True])
@pytest.mark.parametrize("enforce_sorted", [False, True])
def test_layer_packed(kind, extra, cfg, with_state, enforce_sorted):
    e, t = _pair(kind, 5, 4, **cfg, **extra)
    lengths = [3, 6, 1, 4] if not enforce_sorted else [6, 4, 3, 1]
    xe, xt = _both(_rng(6).standard_normal((6, 4, 5)))
    pe = eru.pack_padded_sequence(xe, lengths, enforce_sorted=enforce_sorted)
    pt = torch.nn.utils.rnn.pack_padded_sequence(xt, lengths, enforce_sorted=enforce_sorted)
    leaves = [(xe, xt)]
    D = 2 if cfg.get("bidirectional") else 1
    if with_state:
        se, st, sl = _state(kind, (cfg["num_layers"] * D, 4, 4), 7)
        oe, ot = e(pe, se), t(pt, st)
        leaves += sl
    else:
        oe, ot = e(pe), t(pt)
    assert isinstance(oe[0], eru.PackedSequence)
    assert oe[0].batch_sizes.tolist() == ot[0].batch_sizes.tolist()
    pad_e, len_e = eru.pad_packed_sequence(oe[0])
    pad_t, len_t = torch.nn.utils.rnn.pad_packed_sequence(ot[0])
    _close(pad_e, pad_t)
    assert len_e.tolist() == len_t.tolist()
    _backward_compare(e, t, oe, ot, leaves)


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_dropout_eval_and_train_shapes(kind):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e, t = _pair(kind, 5, 4, num_layers=3, dropout=0.5)
    e.eval()
    t.eval()
    xe, xt = _both(_rng(8).standard_normal((4, 2, 5)))
    _backward_compare(e, t, e(xe), t(xt), [(xe, xt)])
    e.train()
    out = e(xe)
    assert tuple(_flat(out)[0].shape) == (4, 2, 4)


@pytest.mark.parametrize("cls,extra", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu"}),
                                       ("LSTMCell", {}), ("GRUCell", {})],
                         ids=["rnn_tanh", "rnn_relu", "lstm", "gru"])
@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_state", [False, True])
def test_cells(cls, extra, bias, batched, with_state):
    e, t = _pair(cls, 5, 4, bias=bias, **extra)
    xe, xt = _both(_rng(9).standard_normal((3, 5) if batched else (5,)))
    leaves = [(xe, xt)]
    if with_state:
        shape = (3, 4) if batched else (4,)
        se, st, sl = _state("LSTM" if cls == "LSTMCell" else "x", shape, 10)
        oe, ot = e(xe, se), t(xt, st)
        leaves += sl
    else:
        oe, ot = e(xe), t(xt)
    _backward_compare(e, t, oe, ot, leaves)


def test_parameter_names_shapes_and_init():
    e = nn.LSTM(10, 20, num_layers=2, bidirectional=True)
    t = torch.nn.LSTM(10, 20, num_layers=2, bidirectional=True)
    assert [(n, tuple(p.shape)) for n, p in e.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in t.named_parameters()]
    bound = 1 / np.sqrt(20)
    for p in e.parameters():
        a = p.detach().numpy()
        assert np.all(np.abs(a) <= bound) and a.std() > 0.1 * bound
    assert [len(w) for w in e.all_weights] == [4, 4, 4, 4]


@pytest.mark.parametrize("args,kwargs", [
    (("LSTM", 10, 20), dict(num_layers=2, batch_first=True)),
    (("GRU", 10, 20), dict(bias=False, bidirectional=True, dropout=0.5, num_layers=2)),
    (("RNN", 3, 4), dict(nonlinearity="relu")),
    (("RNNCell", 3, 4), dict(nonlinearity="relu", bias=False)),
    (("LSTMCell", 3, 4), {}),
    (("GRUCell", 3, 4), dict(bias=False)),
])
def test_repr(args, kwargs):
    assert repr(getattr(nn, args[0])(*args[1:], **kwargs)) == repr(getattr(torch.nn, args[0])(*args[1:], **kwargs))


def _message(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001
        return type(exc).__name__, str(exc)
    return None


@pytest.mark.parametrize("case", ["input_size", "hidden", "lstm_hidden1", "hidden_dim", "input_dim",
                                  "proj_rnn", "nonlinearity", "dropout_range", "cell_dim"])
def test_errors(case):
    def build(lib):
        m = lib.nn
        x = lambda *s: lib.zeros(s, dtype=lib.float64)  # noqa: E731
        if case == "input_size":
            return lambda: m.RNN(10, 20, 2).double()(x(5, 3, 7))
        if case == "hidden":
            return lambda: m.GRU(10, 20, 2).double()(x(5, 3, 10), x(1, 3, 20))
        if case == "lstm_hidden1":
            return lambda: m.LSTM(10, 20).double()(x(5, 3, 10), (x(1, 3, 20), x(1, 2, 20)))
        if case == "hidden_dim":
            return lambda: m.RNN(10, 20).double()(x(5, 3, 10), x(3, 20))
        if case == "input_dim":
            return lambda: m.LSTM(10, 20).double()(x(5, 3, 2, 10))
        if case == "proj_rnn":
            return lambda: m.RNN(10, 20, proj_size=5)
        if case == "nonlinearity":
            return lambda: m.RNN(10, 20, nonlinearity="sigmoid")
        if case == "dropout_range":
            return lambda: m.GRU(10, 20, dropout=1.5)
        return lambda: m.GRUCell(10, 20).double()(x(2, 3, 10))
    me, mt = _message(build(ember)), _message(build(torch))
    assert mt is not None and me[0] == mt[0]
    # Errors raised in forward carry the layer's name first (ember.nn names the failing layer).
    assert me[1] == mt[1] or re.fullmatch(r"(RNN|LSTM|GRU|GRUCell)\(.*\): " + re.escape(mt[1]), me[1]), (me, mt)


def test_dropout_warning_and_proj_size():
    for lib in (ember, torch):
        with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
            lib.nn.LSTM(3, 4, dropout=0.2)
    with pytest.raises(ValueError, match="proj_size has to be smaller than hidden_size"):
        nn.LSTM(3, 4, proj_size=4)


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: "-".join(f"{k}{v}" for k, v in c.items()))
@pytest.mark.parametrize("with_state", [False, True])
def test_lstm_proj_size(cfg, with_state):
    """LSTM with projections: h has proj_size features, c keeps hidden_size."""
    e, t = _pair("LSTM", 5, 4, proj_size=3, **cfg)
    assert repr(e) == repr(t)
    T, B = 6, 3
    shape = (B, T, 5) if cfg.get("batch_first") else (T, B, 5)
    xe, xt = _both(_rng(1).standard_normal(shape))
    leaves = [(xe, xt)]
    if with_state:
        L = cfg["num_layers"] * (2 if cfg.get("bidirectional") else 1)
        g = _rng(2)
        (he, ht), (ce, ct) = _both(g.standard_normal((L, B, 3))), _both(g.standard_normal((L, B, 4)))
        oe, ot = e(xe, (he, ce)), t(xt, (ht, ct))
        leaves += [(he, ht), (ce, ct)]
    else:
        oe, ot = e(xe), t(xt)
    _backward_compare(e, t, oe, ot, leaves)


def test_lstm_proj_size_packed_and_errors():
    e, t = _pair("LSTM", 5, 4, proj_size=2, num_layers=2, bidirectional=True)
    g = _rng(7)
    seqs = [g.standard_normal((n, 5)) for n in (5, 3, 2)]
    pe = eru.pack_sequence([ember.from_numpy(s.copy()) for s in seqs])
    pt = torch.nn.utils.rnn.pack_sequence([torch.from_numpy(s.copy()) for s in seqs])
    _backward_compare(e, t, e(pe), t(pt), [])
    # A hidden state of hidden_size (not proj_size) features is refused, as in torch.
    bad = (np.zeros((4, 3, 4)), np.zeros((4, 3, 4)))
    msgs = []
    for lib, mod in ((ember, e), (torch, t)):
        with pytest.raises(RuntimeError) as info:
            mod(lib.from_numpy(np.zeros((6, 3, 5))), tuple(lib.from_numpy(a) for a in bad))
        msgs.append(str(info.value))
    assert msgs[0] == "LSTM(5, 4, proj_size=2, num_layers=2, bidirectional=True): " + msgs[1]


# ---------------------------------------------------------------- double backward
DOUBLE_KINDS = [("RNN", {}), ("RNN", {"nonlinearity": "relu"}), ("LSTM", {}), ("LSTM", {"proj_size": 1}),
                ("GRU", {})]
DOUBLE_IDS = ["rnn_tanh", "rnn_relu", "lstm", "lstm_proj", "gru"]
DOUBLE_CONFIGS = {
    "l2_bi_hx": dict(num_layers=2, bidirectional=True),
    "batch_first_hx": dict(num_layers=1, batch_first=True),
    "packed_hx": dict(num_layers=2, bidirectional=True, packed=True),
}


def _run_cfg(lib, mod, kind, cfg, x, state):
    if cfg.get("packed"):
        pack = eru.pack_padded_sequence if lib is ember else torch.nn.utils.rnn.pack_padded_sequence
        x = pack(x, [3, 2], enforce_sorted=True)
    out, hn = mod(x, state)
    outs = [out.data if cfg.get("packed") else out]
    return outs + (list(hn) if isinstance(hn, tuple) else [hn])


def _double_setup(kind, extra, cfg, lib_pair=True):
    layer_cfg = {k: v for k, v in cfg.items() if k != "packed"}
    e, t = _pair(kind, 2, 2, **layer_cfg, **extra)
    T, B = 3, 2
    shape = (B, T, 2) if cfg.get("batch_first") else (T, B, 2)
    L = cfg["num_layers"] * (2 if cfg.get("bidirectional") else 1)
    g = _rng(11)
    x = g.standard_normal(shape)
    hsize = extra.get("proj_size", 2)
    states = [g.standard_normal((L, B, hsize))] + ([g.standard_normal((L, B, 2))] if kind == "LSTM" else [])
    return e, t, x, states


@pytest.mark.parametrize("kind,extra", DOUBLE_KINDS, ids=DOUBLE_IDS)
@pytest.mark.parametrize("cfg_name", sorted(DOUBLE_CONFIGS))
def test_gradgradcheck(kind, extra, cfg_name):
    """Second derivatives of every layer type in float64, with respect to the input, the
    initial states and every parameter, against finite differences."""
    cfg = DOUBLE_CONFIGS[cfg_name]
    e, _, x, states = _double_setup(kind, extra, cfg)
    names = [n for n, _ in e.named_parameters()]
    params = [p.detach().clone().requires_grad_() for _, p in e.named_parameters()]
    inputs = [ember.from_numpy(x.copy()).requires_grad_()] + \
        [ember.from_numpy(s.copy()).requires_grad_() for s in states] + params
    n_states = len(states)

    def fn(xi, *rest):
        st, ws = rest[:n_states], rest[n_states:]
        for n, w in zip(names, ws):
            e._parameters[n] = w
        state = tuple(st) if kind == "LSTM" else st[0]
        return tuple(_run_cfg(ember, e, kind, cfg, xi, state))

    assert ember.autograd.gradgradcheck(fn, inputs, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("kind,extra", DOUBLE_KINDS, ids=DOUBLE_IDS)
@pytest.mark.parametrize("cfg_name", sorted(DOUBLE_CONFIGS))
def test_double_backward_matches_torch(kind, extra, cfg_name):
    """The gradient of a function of the first gradients (the squared input, state and
    weight gradients) with respect to the weights, input and states, as torch gives it."""
    cfg = DOUBLE_CONFIGS[cfg_name]
    e, t, x, states = _double_setup(kind, extra, cfg)
    results = {}
    for lib, mod in ((ember, e), (torch, t)):
        xi = lib.from_numpy(x.copy()).requires_grad_()
        st = [lib.from_numpy(s.copy()).requires_grad_() for s in states]
        state = tuple(st) if kind == "LSTM" else st[0]
        outs = _run_cfg(lib, mod, kind, cfg, xi, state)
        g = _rng(12)
        loss = sum((o * lib.from_numpy(g.standard_normal(tuple(o.shape)))).sum() for o in outs)
        params = [p for _, p in mod.named_parameters()]
        firsts = lib.autograd.grad(loss, [xi, *st, *params], create_graph=True)
        total = sum((f * f).sum() for f in firsts)
        total.backward()
        results[lib] = [xi.grad] + [s.grad for s in st] + [p.grad for p in params]
    for a, b in zip(results[ember], results[torch]):
        _close(a, b)


@pytest.mark.parametrize("kind,extra", KINDS + [("LSTM", {"proj_size": 2})],
                         ids=["rnn_tanh", "rnn_relu", "lstm", "gru", "lstm_proj"])
def test_backward_twice_with_retain_graph(kind, extra):
    e, t = _pair(kind, 5, 4, num_layers=2, bidirectional=True, **extra)
    xe, xt = _both(_rng(8).standard_normal((4, 3, 5)))
    for lib, mod, xi in ((ember, e, xe), (torch, t, xt)):
        out = mod(xi)[0]
        w = lib.from_numpy(_rng(9).standard_normal(tuple(out.shape)))
        loss = (out * w).sum()
        loss.backward(retain_graph=True)
        loss.backward()
    _close(xe.grad, xt.grad)
    te = dict(t.named_parameters())
    for name, p in e.named_parameters():
        _close(p.grad, te[name].grad)
    # Without retain_graph, a second backward is refused, as in torch.
    out = e(xe)[0]
    loss = out.sum()
    loss.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()


def test_create_graph_on_the_fast_path_is_not_taken():
    """A plain backward keeps the hand-written BPTT: its gradients carry no graph."""
    e, _ = _pair("LSTM", 3, 2)
    x = ember.from_numpy(_rng(10).standard_normal((4, 2, 3))).requires_grad_()
    (gx,) = ember.autograd.grad(e(x)[0].sum(), x)
    assert gx.grad_fn is None
    (gx,) = ember.autograd.grad(e(x)[0].sum(), x, create_graph=True)
    assert gx.grad_fn is not None
