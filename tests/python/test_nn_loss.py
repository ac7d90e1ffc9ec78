"""Losses beyond the op table (op_rows_loss.py): nn.functional's argument handling (reduction
strings, legacy size_average/reduce, warnings), arguments torch refuses to differentiate,
larger gradients against torch, and the loss layers against torch.nn's."""
import warnings

import numpy as np
import pytest
import torch

import ember

EF, TF = ember.nn.functional, torch.nn.functional
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _pair(shape, seed=0, low=-2.0, high=2.0, dtype=np.float32):
    a = np.random.default_rng(seed).uniform(low, high, size=shape).astype(dtype)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


def _labels(n, c, seed=1):
    a = np.random.default_rng(seed).integers(0, c, size=n)
    return ember.from_numpy(a.copy()), torch.from_numpy(a.copy())


def _close(e, t, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=rtol, atol=atol)


def _messages(fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in caught]


# ---------------------------------------------------------------- reduction arguments
@pytest.mark.parametrize("name", ["l1_loss", "mse_loss", "smooth_l1_loss", "soft_margin_loss"])
def test_legacy_size_average_reduce(name):
    (ex, tx), (ey, ty) = _pair((3, 4)), _pair((3, 4), 1)
    for size_average, reduce in [(None, False), (False, None), (True, True), (False, True)]:
        kw = dict(size_average=size_average, reduce=reduce)
        e_msgs = _messages(lambda: getattr(EF, name)(ex, ey, **kw))
        t_msgs = _messages(lambda: getattr(TF, name)(tx, ty, **kw))
        assert e_msgs == t_msgs
        _close(getattr(EF, name)(ex, ey, **kw), getattr(TF, name)(tx, ty, **kw))


def test_reduction_strings():
    (ex, tx), (ey, ty) = _pair((3, 4)), _pair((3, 4), 1)
    with pytest.raises(ValueError, match="bogus is not a valid value for reduction"):
        EF.mse_loss(ex, ey, reduction="bogus")
    assert _messages(lambda: EF.mse_loss(ex, ey, reduction="elementwise_mean")) == \
        _messages(lambda: TF.mse_loss(tx, ty, reduction="elementwise_mean"))
    # kl_div's 'mean' warns that it is not 'batchmean'
    assert _messages(lambda: EF.kl_div(ex, ey)) == _messages(lambda: TF.kl_div(tx, ty))
    with pytest.raises(ValueError, match="x is not valid"):
        EF.gaussian_nll_loss(ex, ey, ey.abs(), reduction="x")


@pytest.mark.parametrize("name", ["l1_loss", "mse_loss", "smooth_l1_loss", "huber_loss"])
def test_target_size_warning(name):
    (ex, tx), (ey, ty) = _pair((3, 4)), _pair((4,), 1)
    e_msgs = _messages(lambda: getattr(EF, name)(ex, ey))
    t_msgs = _messages(lambda: getattr(TF, name)(tx, ty))
    assert len(e_msgs) == len(t_msgs) == 1
    assert e_msgs[0].replace("ember.Size", "torch.Size") == t_msgs[0]


# ---------------------------------------------------------------- derivatives torch does not have
@pytest.mark.parametrize("call", [
    lambda F, x, t, w, p: F.nll_loss(x.log_softmax(1) if hasattr(x, "log_softmax") else x, t, weight=w),
    lambda F, x, t, w, p: F.cross_entropy(x, t, weight=w),
    lambda F, x, t, w, p: F.cross_entropy(x, t, weight=w, label_smoothing=0.1),
    lambda F, x, t, w, p: F.binary_cross_entropy(p, p.detach() * 0.5, weight=w),
    lambda F, x, t, w, p: F.binary_cross_entropy_with_logits(x, p.detach(), weight=w),
    lambda F, x, t, w, p: F.binary_cross_entropy_with_logits(x, p.detach(), pos_weight=w),
    lambda F, x, t, w, p: F.multi_margin_loss(x, t, weight=w),
    lambda F, x, t, w, p: F.soft_margin_loss(x, w.expand(3, 4)),
])
def test_non_differentiable_arguments(call):
    def run(lib, F):
        x = lib.from_numpy(np.random.default_rng(0).standard_normal((3, 4))).requires_grad_()
        t = lib.from_numpy(np.array([0, 3, 1]))
        w = lib.from_numpy(np.random.default_rng(1).uniform(0.1, 1, 4)).requires_grad_()
        p = lib.from_numpy(np.random.default_rng(2).uniform(0.1, 0.9, (3, 4))).requires_grad_()
        with pytest.raises(RuntimeError) as info:
            call(F, x, t, w, p)
        with lib.no_grad():  # without grad mode nothing is refused
            call(F, x, t, w, p)
        return str(info.value)
    assert run(ember, EF) == run(torch, TF)


def test_prob_target_weight_is_differentiable():
    (ex, tx), (ep, tp) = _pair((5, 4), 0), _pair((5, 4), 1, 0, 1)
    (ew, tw) = _pair((4,), 2, 0.1, 1)
    for x in (ex, tx, ep, tp, ew, tw):
        x.requires_grad_()
    e = EF.cross_entropy(ex, ep, weight=ew, label_smoothing=0.2)
    t = TF.cross_entropy(tx, tp, weight=tw, label_smoothing=0.2)
    for eg, tg in zip(ember.autograd.grad(e, [ex, ep, ew]), torch.autograd.grad(t, [tx, tp, tw])):
        _close(eg, tg)


# ---------------------------------------------------------------- larger cases against torch
@pytest.mark.parametrize("kwargs", [{}, {"label_smoothing": 0.1}, {"ignore_index": 3, "label_smoothing": 0.3},
                                    {"reduction": "sum", "ignore_index": 0}])
@pytest.mark.parametrize("shape", [(256, 1000), (4096, 10), (8, 7, 5, 3)])
def test_cross_entropy_large(shape, kwargs):
    (ex, tx) = _pair(shape, 0, -4, 4)
    t = np.random.default_rng(1).integers(0, shape[1], size=(shape[0],) + shape[2:])
    et, tt = ember.from_numpy(t.copy()), torch.from_numpy(t.copy())
    ex.requires_grad_()
    tx.requires_grad_()
    e, tr = EF.cross_entropy(ex, et, **kwargs), TF.cross_entropy(tx, tt, **kwargs)
    _close(e, tr, rtol=2e-5)
    e.backward()
    tr.backward()
    _close(ex.grad, tx.grad, rtol=1e-4, atol=1e-7)


def test_nll_loss_all_ignored_is_nan():
    (ex, tx) = _pair((3, 4))
    t = np.full(3, -100)
    assert np.isnan(EF.nll_loss(ex, ember.from_numpy(t)).item())
    assert np.isnan(TF.nll_loss(tx, torch.from_numpy(t)).item())


@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_ctc_loss_against_torch(reduction, zero_infinity):
    T_, N, C = 30, 4, 6
    logits = np.random.default_rng(3).standard_normal((T_, N, C))
    targets = np.random.default_rng(4).integers(1, C, size=(N, 12))
    il, tl = [30, 25, 10, 30], [12, 7, 9, 0]  # sample 2 cannot align 9 labels in 10 steps with repeats
    targets[2, :9] = 2  # repeats need blanks in between: infeasible in 10 steps
    res = {}
    for lib, F in ((ember, EF), (torch, TF)):
        x = lib.from_numpy(logits.copy()).requires_grad_()
        lp = x.log_softmax(2) if hasattr(x, "log_softmax") else x - x.logsumexp(2, True)
        loss = F.ctc_loss(lp, lib.from_numpy(targets.copy()), lib.tensor(il), lib.tensor(tl), reduction=reduction,
                          zero_infinity=zero_infinity)
        g = None
        if zero_infinity:  # (torch's gradient of an infinite loss is NaN)
            w = lib.from_numpy(np.linspace(0.5, 1.5, loss.numel()).reshape(tuple(loss.shape)))
            (g,) = lib.autograd.grad((loss * w).sum(), [x])
        res[lib.__name__] = (loss.detach().numpy(), g)
    np.testing.assert_allclose(res["ember"][0], res["torch"][0], rtol=1e-9)
    if zero_infinity:
        np.testing.assert_allclose(res["ember"][1].numpy(), res["torch"][1].numpy(), rtol=1e-7, atol=1e-10)


# ---------------------------------------------------------------- layers
def _t(lib, a):
    return lib.from_numpy(np.array(a).copy())


def _layer_cases():
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    p = rng.uniform(0.05, 0.95, (4, 5))
    w5 = rng.uniform(0.2, 2, 5)
    cls = rng.integers(0, 5, 4)
    sign = np.where(rng.standard_normal(4) > 0, 1.0, -1.0)
    mlm = np.array([[1, 3, -1, 0, 0], [0, -1, 0, 0, 0], [4, 3, 2, 1, 0], [-1, 0, 0, 0, 0]])
    lg = rng.standard_normal((6, 2, 5))
    lp = lg - np.log(np.exp(lg).sum(-1, keepdims=True))
    return [
        ("L1Loss", {}, (x, y)), ("MSELoss", {"reduction": "sum"}, (x, y)),
        ("MSELoss", {"size_average": False}, (x, y)),
        ("CrossEntropyLoss", {"weight": w5, "label_smoothing": 0.1, "ignore_index": 2}, (x, cls)),
        ("CrossEntropyLoss", {"reduction": "none"}, (x, p)),
        ("NLLLoss", {"weight": w5, "reduction": "sum"}, (x, cls)),
        ("BCELoss", {"weight": w5}, (p, p[::-1])),
        ("BCEWithLogitsLoss", {"weight": w5, "pos_weight": w5[::-1]}, (x, p)),
        ("KLDivLoss", {"reduction": "batchmean", "log_target": True}, (x, y)),
        ("SmoothL1Loss", {"beta": 0.5}, (x, y)), ("HuberLoss", {"delta": 0.5, "reduction": "none"}, (x, y)),
        ("PoissonNLLLoss", {"log_input": False, "full": True}, (p, 3 * p)),
        ("GaussianNLLLoss", {"full": True}, (x, y, p)),
        ("MarginRankingLoss", {"margin": 0.3}, (x[:, 0], y[:, 0], sign)),
        ("HingeEmbeddingLoss", {"margin": 2.0}, (x, np.sign(y))),
        ("SoftMarginLoss", {}, (x, np.sign(y))),
        ("CosineEmbeddingLoss", {"margin": 0.2}, (x, y, sign)),
        ("TripletMarginLoss", {"margin": 0.5, "p": 1.0, "swap": True}, (x, y, p)),
        ("TripletMarginWithDistanceLoss", {"swap": True}, (x, y, p)),
        ("MultiLabelMarginLoss", {}, (x, mlm)),
        ("MultiLabelSoftMarginLoss", {"weight": w5}, (x, (p > 0.5).astype(np.float64))),
        ("MultiMarginLoss", {"p": 2, "margin": 0.5, "weight": w5}, (x, cls)),
        ("CTCLoss", {"blank": 0, "zero_infinity": True}, (lp, np.array([[1, 2, 2], [3, 1, 4]]), [6, 5], [3, 2])),
    ]


@pytest.mark.parametrize("name,kwargs,args", _layer_cases(), ids=lambda v: v if isinstance(v, str) else "")
def test_layer(name, kwargs, args):
    out = {}
    for lib in (ember, torch):
        kw = {k: _t(lib, v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        layer = getattr(lib.nn, name)(**kw)
        a = [_t(lib, v) if isinstance(v, np.ndarray) else v for v in args]
        out[lib.__name__] = (layer(*a), layer)
    (e, el), (t, tl) = out["ember"], out["torch"]
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-10, atol=1e-12)
    assert el.reduction == tl.reduction
    # weight and pos_weight are buffers, as in torch
    assert sorted(n for n, _ in el.named_buffers()) == sorted(n for n, _ in tl.named_buffers())
    assert sorted(el.state_dict()) == sorted(tl.state_dict())


def test_layer_errors():
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        ember.nn.MultiMarginLoss(p=3)
    loss = ember.nn.CrossEntropyLoss(reduction="avg")
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        loss(ember.zeros(2, 3), ember.tensor([0, 1]))
