"""nn.functional behaviour that the op table cannot compare value by value with PyTorch:
random dropout masks (statistics, scaling, gradients, seeding), running statistics of
batch and instance norm, implicit softmax dims, the C++-side error paths, pdist (its
tie-breaking gradient) and gumbel_softmax (torch's formula on the same noise)."""
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F


def _np(t):
    return t.detach().numpy()


@pytest.mark.parametrize("name", ["dropout", "alpha_dropout"])
def test_dropout_statistics_and_gradient(name):
    ember.manual_seed(0)
    x = ember.ones(200000, dtype=ember.float64).requires_grad_()
    y = getattr(F, name)(x, 0.3, training=True)
    v = _np(y)
    if name == "dropout":
        dropped = v == 0
        assert abs(dropped.mean() - 0.3) < 0.01
        np.testing.assert_allclose(v[~dropped], 1 / 0.7)
        y.sum().backward()
        np.testing.assert_allclose(_np(x.grad), np.where(dropped, 0, 1 / 0.7))
    else:  # keeps zero mean and unit variance of standard normal input
        ember.manual_seed(1)
        z = ember.randn(200000, dtype=ember.float64)
        w = _np(F.alpha_dropout(z, 0.3, training=True))
        assert abs(w.mean()) < 0.02 and abs(w.std() - 1) < 0.02


def test_dropout_seeded_and_inplace():
    x = ember.randn(1000)
    ember.manual_seed(5)
    a = F.dropout(x, 0.5)
    ember.manual_seed(5)
    b = F.dropout(x.clone(), 0.5, inplace=True)
    np.testing.assert_array_equal(_np(a), _np(b))
    assert F.dropout(x, 0.5, training=False) is x


def test_feature_dropout_zeroes_whole_channels():
    ember.manual_seed(3)
    x = ember.ones(64, 32, 5, 5)
    y = _np(F.dropout2d(x, 0.5))
    per_channel = y.reshape(64, 32, -1)
    assert ((per_channel == 0).all(-1) | (per_channel == 2).all(-1)).all()
    assert 0.4 < (per_channel[..., 0] == 0).mean() < 0.6


@pytest.mark.parametrize("fn,shape", [("dropout2d", (2, 3, 4)), ("dropout2d", (2, 3)), ("dropout2d", (1, 2, 3, 4, 5)),
                                      ("dropout2d", (2, 3, 4, 5)), ("dropout3d", (2, 3, 4)),
                                      ("dropout3d", (2, 3, 4, 5)), ("dropout3d", (1, 2, 3, 4, 5)),
                                      ("dropout1d", (2, 3))])
def test_feature_dropout_rank_rules_match_torch(fn, shape):
    """torch 1.13's warnings for each rank, and the channels it drops together (a (C, L) input
    to dropout1d and a (C, D, H, W) one to dropout3d are one sample; dropout2d reads 3-D as (N, C, L))."""
    results, outs = [], []
    for lib in (ember, torch):
        lib.manual_seed(0)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = getattr(lib.nn.functional, fn)(lib.ones(*shape, dtype=lib.float64) + 1, 0.5)
        results.append(([str(w.message) for w in caught], tuple(y.shape)))
        outs.append(y.numpy())
    assert results[0] == results[1]
    one_sample = (fn, len(shape)) in (("dropout1d", 2), ("dropout3d", 4), ("dropout3d", 3))
    channels = shape[0] if one_sample else shape[0] * shape[1]
    for y in outs:
        per_channel = y.reshape(channels, -1)
        assert ((per_channel == 0).all(-1) | (per_channel == 4).all(-1)).all()


def test_batch_norm_running_stats_match_torch():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 3, 4, 4)) * 3 + 1
    stats = []
    for lib in (ember, torch):
        rm, rv = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        for _ in range(3):
            lib.nn.functional.batch_norm(lib.from_numpy(x.copy()), rm, rv, training=True, momentum=0.2)
        stats.append((rm.numpy(), rv.numpy()))
    np.testing.assert_allclose(stats[0][0], stats[1][0], rtol=1e-12)
    np.testing.assert_allclose(stats[0][1], stats[1][1], rtol=1e-12)


def test_instance_norm_running_stats_match_torch():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((4, 3, 10)) * 2 + 0.5
    stats = []
    for lib in (ember, torch):
        rm, rv = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        y = lib.nn.functional.instance_norm(lib.from_numpy(x.copy()), rm, rv, momentum=0.3)
        stats.append((y.numpy(), rm.numpy(), rv.numpy()))
    for e, t in zip(*stats):
        np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-12)


def test_softmax_implicit_dim_warns_like_torch():
    x = np.random.default_rng(2).standard_normal((2, 3, 4)).astype(np.float32)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        e = F.softmax(ember.from_numpy(x))
    with pytest.warns(UserWarning):
        t = torch.nn.functional.softmax(torch.from_numpy(x))
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6)


def test_softmax_double_backward_matches_torch():
    rng = np.random.default_rng(3)
    x0, w0 = rng.standard_normal((3, 5)), rng.standard_normal((3, 5))
    grads = []
    for lib in (ember, torch):
        x = lib.from_numpy(x0.copy()).requires_grad_()
        (g,) = lib.autograd.grad((lib.log_softmax(x, 1) * lib.from_numpy(w0)).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        grads.append(gg.detach().numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10, atol=1e-12)


def test_layer_norm_meta_shapes():
    x = ember.empty(4, 6, device="meta")
    y = F.layer_norm(x, (6,))
    assert y.shape == (4, 6) and y.device.type == "meta"
    out, mean, rstd = ember.native_layer_norm(x, [6], None, None, 1e-5)
    assert mean.shape == (4, 1) and rstd.shape == (4, 1)


def test_batch_norm_training_backward_with_running_stats():
    """The running statistics change in place during the forward; the backward must not
    read them (a training step with momentum, twice)."""
    rng = np.random.default_rng(4)
    x0, w0, g0 = rng.standard_normal((4, 3, 5)), rng.standard_normal(3), rng.standard_normal((4, 3, 5))
    out = []
    for lib in (ember, torch):
        rm, rv = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        x = lib.from_numpy(x0.copy()).requires_grad_()
        w = lib.from_numpy(w0.copy()).requires_grad_()
        for _ in range(2):
            lib.nn.functional.batch_norm(x, rm, rv, w, None, training=True).backward(lib.from_numpy(g0))
        out.append([x.grad.numpy(), w.grad.numpy(), rm.numpy(), rv.numpy()])
    for e, t in zip(*out):
        np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-12)


def test_backward_op_with_undefined_results_records_under_grad_mode():
    """native_layer_norm_backward without weight and bias leaves two results undefined; called
    on tensors that require grad, autograd records it without touching them."""
    x = ember.randn(3, 4, dtype=ember.float64).requires_grad_()
    y, mean, rstd = ember.native_layer_norm(x, [4], None, None, 1e-5)
    dx, dw, db = ember.native_layer_norm_backward(ember.ones_like(y), x, [4], mean, rstd, None, None)
    assert dx.shape == (3, 4) and dw is None and db is None


@pytest.mark.parametrize("threads", [1, 2])
def test_linear_bias_in_the_gemm_epilogue_matches_float64(threads):
    # float32 addmm with a bias row runs oneDNN's matmul with the bias in its epilogue (at one
    # thread from this size on; blas.cpp gemm_bias); the result must match the float64 product.
    old = ember.get_num_threads()
    ember.set_num_threads(threads)
    try:
        for m, k, n in ((60, 80, 70), (256, 256, 768), (1, 64, 33)):
            x, w, b = ember.randn(m, k), ember.randn(n, k), ember.randn(n)
            got = ember.nn.functional.linear(x, w, b)
            want = ember.nn.functional.linear(x.double(), w.double(), b.double())
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-4)
            got = ember.addmm(b, x, w.t())
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-4)
    finally:
        ember.set_num_threads(old)


# ---------------------------------------------------------------- pdist, gumbel_softmax
@pytest.mark.parametrize("p", [0, 1, 2, 3.5, float("inf")])
def test_pdist_matches_torch(p):
    a = np.random.default_rng(3).standard_normal((5, 3))
    a[3] = a[1]  # a zero distance
    a[4] = a[2] + np.array([1.0, -1.0, 0.5])  # a tie for the maximum (p = inf)
    e, t = ember.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    ye, yt = F.pdist(e, p), torch.pdist(t, p)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(4).standard_normal(tuple(yt.shape))
    ye.backward(ember.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_pdist_shapes_and_errors():
    assert tuple(F.pdist(ember.ones(1, 4)).shape) == tuple(torch.pdist(torch.ones(1, 4)).shape) == (0,)
    assert ember.pdist is F.pdist  # torch.pdist is torch.nn.functional.pdist too
    for lib, fn in ((torch, torch.pdist), (ember, F.pdist)):
        with pytest.raises(RuntimeError, match="pdist only supports 2D tensors, got: 1D"):
            fn(lib.ones(3))
        with pytest.raises(RuntimeError, match="pdist only supports floating-point dtypes"):
            fn(lib.ones(2, 3, dtype=lib.int64))
        with pytest.raises(RuntimeError, match="pdist only supports non-negative p values"):
            fn(lib.ones(2, 3), -1)


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("dim", [-1, 0])
def test_gumbel_softmax_is_torchs_formula_on_the_same_noise(hard, dim):
    """ember's draws differ from torch's: the same Gumbel noise, drawn as F.gumbel_softmax does
    (-log of an Exp(1) sample of the logits' shape), goes through torch's formula."""
    a = np.random.default_rng(5).standard_normal((4, 6))
    ember.manual_seed(11)
    noise = -ember.empty(4, 6, dtype=ember.float64).exponential_().log()
    ember.manual_seed(11)
    e = ember.tensor(a, requires_grad=True)
    ye = F.gumbel_softmax(e, tau=0.7, hard=hard, dim=dim)
    t = torch.tensor(a, requires_grad=True)
    soft = ((t + torch.tensor(noise.numpy())) / 0.7).softmax(dim)
    yt = soft
    if hard:
        yt = torch.zeros_like(t).scatter_(dim, soft.max(dim, keepdim=True)[1], 1.0) - soft.detach() + soft
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = np.random.default_rng(6).standard_normal((4, 6))
    ye.backward(ember.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)
    if hard:
        assert set(np.unique(ye.detach().numpy())) == {0.0, 1.0}


def test_gumbel_softmax_eps_warns_like_torch():
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match="`eps` parameter is deprecated and has no effect."):
            lib.nn.functional.gumbel_softmax(lib.zeros(2, 3), eps=1e-5)
