"""Attention and transformer layers against torch 1.13's: torch's parameters copied into the
ember module through state_dict, then outputs, attention weights, input and parameter
gradients in float64. scaled_dot_product_attention (torch 2.0's API) is checked against the
explicit softmax(q k^T / sqrt(d) + mask) v computed with torch."""
import math

import numpy as np
import pytest
import torch

import ember
import ember.nn as nn
import ember.nn.functional as F

RNG = np.random.default_rng(0)
TOL = dict(rtol=1e-7, atol=1e-9)


def _np(t):
    return t.detach().numpy()


def _pair(a, grad=True):
    a = np.asarray(a)
    e, t = ember.from_numpy(a.copy()), torch.from_numpy(a.copy())
    if grad and a.dtype == np.float64:
        e.requires_grad_()
        t.requires_grad_()
    return e, t


def _randn(*shape):
    return RNG.standard_normal(shape)


def _load(e_mod, t_mod):
    """torch's state_dict into the ember module; the keys must match exactly."""
    sd = t_mod.state_dict()
    assert list(e_mod.state_dict().keys()) == list(sd.keys())
    e_mod.load_state_dict({k: ember.from_numpy(v.detach().numpy().copy()) for k, v in sd.items()})


def _make(cls_name, *args, **kwargs):
    torch.manual_seed(0)
    t_mod = getattr(torch.nn, cls_name)(*args, **kwargs).double()
    e_mod = getattr(nn, cls_name)(*args, **kwargs).double()
    _load(e_mod, t_mod)
    return e_mod, t_mod


def _check_grads(e_out, t_out, e_inputs, t_inputs, e_mod=None, t_mod=None):
    np.testing.assert_allclose(_np(e_out), _np(t_out), **TOL)
    g = _randn(*tuple(t_out.shape))
    e_out.backward(ember.from_numpy(g.copy()))
    t_out.backward(torch.from_numpy(g.copy()))
    for i, (xe, xt) in enumerate(zip(e_inputs, t_inputs)):
        if xt.grad is not None:
            np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), err_msg=f"input {i}", **TOL)
    if e_mod is not None:
        ep = dict(e_mod.named_parameters())
        for n, pt in t_mod.named_parameters():
            if pt.grad is None:
                assert ep[n].grad is None or not np.any(ep[n].grad.numpy()), n
            else:
                np.testing.assert_allclose(ep[n].grad.numpy(), pt.grad.numpy(), err_msg=n, **TOL)


# ---------------------------------------------------------------- scaled_dot_product_attention
def _sdpa_reference(q, k, v, mask=None, is_causal=False):
    s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if is_causal:
        mask = torch.ones(q.shape[-2], k.shape[-2], dtype=torch.bool).tril()
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else s + mask
    return torch.softmax(s, -1) @ v


@pytest.mark.parametrize("mask_kind", [None, "bool", "float", "causal", "bool4d"])
@pytest.mark.parametrize("batch", [(2, 3), (4,)])
def test_sdpa(mask_kind, batch):
    L, S, E, Ev = 5, 7, 8, 6
    (qe, qt), (ke, kt), (ve, vt) = _pair(_randn(*batch, L, E)), _pair(_randn(*batch, S, E)), \
        _pair(_randn(*batch, S, Ev))
    me = mt = None
    causal = mask_kind == "causal"
    if mask_kind == "bool":
        m = RNG.random((L, S)) > 0.3
        m[:, 0] = True
        me, mt = _pair(m)
    elif mask_kind == "bool4d":
        m = RNG.random(batch + (L, S)) > 0.3
        m[..., 0] = True
        me, mt = _pair(m)
    elif mask_kind == "float":
        me, mt = _pair(_randn(L, S), grad=False)
    ye = F.scaled_dot_product_attention(qe, ke, ve, attn_mask=me, is_causal=causal)
    yt = _sdpa_reference(qt, kt, vt, mt, causal)
    _check_grads(ye, yt, (qe, ke, ve), (qt, kt, vt))


def test_sdpa_broadcast_and_errors():
    (qe, qt), (ke, kt), (ve, vt) = _pair(_randn(2, 3, 4, 8)), _pair(_randn(1, 3, 5, 8)), _pair(_randn(1, 3, 5, 8))
    _check_grads(F.scaled_dot_product_attention(qe, ke, ve), _sdpa_reference(qt, kt, vt), (qe, ke, ve),
                 (qt, kt, vt))
    with pytest.raises(RuntimeError, match="is_causal"):
        F.scaled_dot_product_attention(qe, ke, ve, attn_mask=ember.ones((4, 5), dtype=ember.bool), is_causal=True)


def test_sdpa_dropout():
    q = ember.randn(2, 16, 8)
    ember.manual_seed(1)
    y0 = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    assert tuple(y0.shape) == (2, 16, 8)
    assert not np.allclose(y0.numpy(), F.scaled_dot_product_attention(q, q, q).numpy())


# ---------------------------------------------------------------- MultiheadAttention
E, H, L, S, N = 8, 2, 5, 6, 3


def _mha_case(kwargs, q_shape, k_shape, v_shape, self_attn=False, cross_kv=False, fwd=None, masks=None):
    e_mod, t_mod = _make("MultiheadAttention", E, H, **kwargs)
    (qe, qt) = _pair(_randn(*q_shape))
    if self_attn:
        ke, kt, ve, vt = qe, qt, qe, qt
    else:
        ke, kt = _pair(_randn(*k_shape))
        ve, vt = (ke, kt) if cross_kv else _pair(_randn(*v_shape))
    fwd = dict(fwd or {})
    for name, (me, mt) in (masks or {}).items():
        fwd[name] = me
        fwd_t = fwd.setdefault("_t", {})
        fwd_t[name] = mt
    t_fwd = dict(fwd)
    t_fwd.update(t_fwd.pop("_t", {}))
    fwd.pop("_t", None)
    oe, we = e_mod(qe, ke, ve, **fwd)
    ot, wt = t_mod(qt, kt, vt, **t_fwd)
    if wt is None:
        assert we is None
    else:
        np.testing.assert_allclose(_np(we), _np(wt), **TOL)
    inputs_e = (qe,) if self_attn else (qe, ke) if cross_kv else (qe, ke, ve)
    inputs_t = (qt,) if self_attn else (qt, kt) if cross_kv else (qt, kt, vt)
    _check_grads(oe, ot, inputs_e, inputs_t, e_mod, t_mod)
    return e_mod, t_mod


def test_mha_state_dict_and_init():
    e_mod = nn.MultiheadAttention(E, H)
    t_mod = torch.nn.MultiheadAttention(E, H)
    assert list(e_mod.state_dict().keys()) == list(t_mod.state_dict().keys())
    assert not np.any(e_mod.in_proj_bias.numpy()) and not np.any(e_mod.out_proj.bias.numpy())
    bound = math.sqrt(6.0 / (E + 3 * E))
    w = e_mod.in_proj_weight.numpy()
    assert np.all(np.abs(w) <= bound) and w.std() > bound / 4
    e2, t2 = nn.MultiheadAttention(E, H, kdim=5, vdim=3, add_bias_kv=True, bias=False), \
        torch.nn.MultiheadAttention(E, H, kdim=5, vdim=3, add_bias_kv=True, bias=False)
    assert list(e2.state_dict().keys()) == list(t2.state_dict().keys())
    assert e2.in_proj_weight is None and tuple(e2.k_proj_weight.shape) == (E, 5)
    assert isinstance(e2.out_proj, nn.Linear)


def test_mha_self():
    _mha_case({}, (L, N, E), None, None, self_attn=True)


def test_mha_cross():
    _mha_case({}, (L, N, E), (S, N, E), None, cross_kv=True)


def test_mha_distinct_kv():
    _mha_case({}, (L, N, E), (S, N, E), (S, N, E))


def test_mha_kdim_vdim():
    _mha_case({"kdim": 5, "vdim": 3}, (L, N, E), (S, N, 5), (S, N, 3))


def test_mha_no_bias():
    _mha_case({"bias": False}, (L, N, E), None, None, self_attn=True)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("self_attn", [True, False])
def test_mha_batch_first(batch_first, self_attn):
    shape_q = (N, L, E) if batch_first else (L, N, E)
    shape_k = (N, S, E) if batch_first else (S, N, E)
    _mha_case({"batch_first": batch_first}, shape_q, shape_k, shape_k, self_attn=self_attn)


@pytest.mark.parametrize("batch_first", [False, True])
def test_mha_unbatched(batch_first):
    _mha_case({"batch_first": batch_first}, (L, E), (S, E), (S, E))
    _mha_case({"batch_first": batch_first}, (L, E), None, None, self_attn=True,
              fwd={"average_attn_weights": False})


def _bool_mask(shape):
    m = RNG.random(shape) > 0.4
    m[..., 0] = False  # every row keeps a key
    return m


@pytest.mark.parametrize("kind", ["bool2d", "float2d", "bool3d", "float3d"])
def test_mha_attn_mask(kind):
    shape = (L, S) if kind.endswith("2d") else (N * H, L, S)
    m = _bool_mask(shape) if kind.startswith("bool") else _randn(*shape)
    _mha_case({}, (L, N, E), (S, N, E), None, cross_kv=True, masks={"attn_mask": _pair(m, grad=False)})


@pytest.mark.parametrize("kind", ["bool", "float"])
@pytest.mark.parametrize("with_attn_mask", [False, True])
def test_mha_key_padding_mask(kind, with_attn_mask):
    kpm = _bool_mask((N, S))
    if kind == "float":
        kpm = np.where(kpm, -1e9, 0.0) + 0.25 * _randn(N, S)
    masks = {"key_padding_mask": _pair(kpm, grad=False)}
    if with_attn_mask:
        masks["attn_mask"] = _pair(_bool_mask((L, S)) if kind == "bool" else _randn(L, S), grad=False)
    if kind == "float" and with_attn_mask:
        # torch 1.13 masked_fill()s a float attn_mask with the key_padding_mask: bool only.
        masks["key_padding_mask"] = _pair(_bool_mask((N, S)), grad=False)
    _mha_case({}, (L, N, E), (S, N, E), None, cross_kv=True, masks=masks)


@pytest.mark.parametrize("add_bias_kv", [False, True])
@pytest.mark.parametrize("add_zero_attn", [False, True])
@pytest.mark.parametrize("batch_first", [False, True])
def test_mha_bias_kv_zero_attn(add_bias_kv, add_zero_attn, batch_first):
    kw = {"add_bias_kv": add_bias_kv, "add_zero_attn": add_zero_attn, "batch_first": batch_first}
    q_shape = (N, L, E) if batch_first else (L, N, E)
    masks = {"attn_mask": _pair(_bool_mask((L, S)), grad=False),
             "key_padding_mask": _pair(_bool_mask((N, S)), grad=False)}
    _mha_case(kw, q_shape, (N, S, E) if batch_first else (S, N, E), None, cross_kv=True, masks=masks)
    _mha_case(kw, q_shape, None, None, self_attn=True)


@pytest.mark.parametrize("need_weights,average", [(False, True), (True, False), (True, True)])
def test_mha_weights_options(need_weights, average):
    _mha_case({}, (L, N, E), None, None, self_attn=True,
              fwd={"need_weights": need_weights, "average_attn_weights": average})


def test_mha_eval_dropout_and_train_dropout():
    e_mod, t_mod = _make("MultiheadAttention", E, H, dropout=0.5)
    e_mod.eval()
    t_mod.eval()
    qe, qt = _pair(_randn(L, N, E))
    np.testing.assert_allclose(_np(e_mod(qe, qe, qe)[0]), _np(t_mod(qt, qt, qt)[0]), **TOL)
    e_mod.train()
    o1 = e_mod(qe, qe, qe)[1]
    assert not np.allclose(_np(o1), _np(t_mod(qt, qt, qt)[1]))


def test_functional_mha_separate_weights_and_static_kv():
    torch.manual_seed(0)
    t_mod = torch.nn.MultiheadAttention(E, H, kdim=5, vdim=3).double()
    args = [t_mod.q_proj_weight, t_mod.k_proj_weight, t_mod.v_proj_weight, t_mod.in_proj_bias,
            t_mod.out_proj.weight, t_mod.out_proj.bias]
    e_args = [ember.from_numpy(_np(a).copy()) for a in args]
    (qe, qt), (ke, kt), (ve, vt) = _pair(_randn(L, N, E)), _pair(_randn(S, N, 5)), _pair(_randn(S, N, 3))

    def run(mod, q, k, v, a, **kw):
        return mod.multi_head_attention_forward(q, k, v, E, H, None, a[3], None, None, False, 0.0, a[4], a[5],
                                                use_separate_proj_weight=True, q_proj_weight=a[0],
                                                k_proj_weight=a[1], v_proj_weight=a[2], **kw)
    oe, we = run(F, qe, ke, ve, e_args)
    ot, wt = run(torch.nn.functional, qt, kt, vt, args)
    np.testing.assert_allclose(_np(we), _np(wt), **TOL)
    _check_grads(oe, ot, (qe, ke, ve), (qt, kt, vt))
    # static_k / static_v replace the projected keys and values
    sk, sv = _randn(N * H, S, E // H), _randn(N * H, S, E // H)
    oe, _ = run(F, qe, ke, ve, e_args, static_k=ember.from_numpy(sk.copy()), static_v=ember.from_numpy(sv.copy()))
    ot, _ = run(torch.nn.functional, qt, kt, vt, args, static_k=torch.from_numpy(sk.copy()),
                static_v=torch.from_numpy(sv.copy()))
    np.testing.assert_allclose(_np(oe), _np(ot), **TOL)


def test_mha_errors():
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(10, 3)
    m = nn.MultiheadAttention(E, H)
    q = ember.randn(L, N, E)
    k = ember.randn(S, N, E)
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is .*, but should be \(5, 6\)"):
        m(q, k, k, attn_mask=ember.zeros((L, L)))
    with pytest.raises(RuntimeError, match=r"The shape of the 3D attn_mask is .*, but should be \(6, 5, 6\)"):
        m(q, k, k, attn_mask=ember.zeros((H, L, S)))
    with pytest.raises(AssertionError, match="expected `attn_mask` to be `None`, 2-D or 3-D"):
        m(q, k, k, attn_mask=ember.zeros((1, N * H, L, S)))
    with pytest.raises(AssertionError, match="expecting key_padding_mask shape of"):
        m(q, k, k, key_padding_mask=ember.zeros((N, L), dtype=ember.bool))
    with pytest.raises(AssertionError, match="expected `key_padding_mask` to be `None` or 2-D"):
        m(q, k, k, key_padding_mask=ember.zeros((S,), dtype=ember.bool))
    with pytest.raises(AssertionError, match="only bool and floating types of key_padding_mask"):
        m(q, k, k, key_padding_mask=ember.zeros((N, S), dtype=ember.int64))
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 8, but got 4"):
        m(ember.randn(L, N, 4), k, k)
    with pytest.raises(AssertionError, match="query should be unbatched 2D or batched 3D"):
        m(ember.randn(1, L, N, E), k, k)


# ---------------------------------------------------------------- transformer layers
D, NH, FF = 8, 2, 16


def _layer_inputs(batch_first, shape_seq, unbatched=False):
    if unbatched:
        return _pair(_randn(shape_seq, D))
    return _pair(_randn(N, shape_seq, D) if batch_first else _randn(shape_seq, N, D))


ENC_CASES = [dict(activation=a, norm_first=nf, batch_first=bf) for a in ("relu", "gelu")
             for nf in (False, True) for bf in (False, True)]


@pytest.mark.parametrize("kw", ENC_CASES, ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()))
@pytest.mark.parametrize("train", [False, True])
def test_encoder_layer(kw, train):
    e_mod, t_mod = _make("TransformerEncoderLayer", D, NH, FF, dropout=0.0 if train else 0.3, **kw)
    e_mod.train(train)
    t_mod.train(train)
    xe, xt = _layer_inputs(kw["batch_first"], L)
    mask = _bool_mask((L, L))
    kpm = _bool_mask((N, L))
    me, mt = _pair(mask, grad=False)
    ke, kt = _pair(kpm, grad=False)
    _check_grads(e_mod(xe, src_mask=me, src_key_padding_mask=ke), t_mod(xt, src_mask=mt, src_key_padding_mask=kt),
                 (xe,), (xt,), e_mod, t_mod)


def test_encoder_layer_callable_activation_and_unbatched():
    e_mod, t_mod = _make("TransformerEncoderLayer", D, NH, FF, dropout=0.0)
    e_mod.activation = F.gelu
    t_mod.activation = torch.nn.functional.gelu
    xe, xt = _layer_inputs(False, L, unbatched=True)
    _check_grads(e_mod(xe), t_mod(xt), (xe,), (xt,), e_mod, t_mod)
    e2 = nn.TransformerEncoderLayer(D, NH, FF, activation=F.gelu)
    assert e2.activation is F.gelu and e2.activation_relu_or_gelu == 2
    e3 = nn.TransformerEncoderLayer(D, NH, FF, activation=lambda x: x * 2)
    assert e3.activation_relu_or_gelu == 0
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(D, NH, FF, activation="tanh")


DEC_CASES = [dict(activation=a, norm_first=nf, batch_first=bf) for a in ("relu", "gelu")
             for nf in (False, True) for bf in (False, True)]


@pytest.mark.parametrize("kw", DEC_CASES, ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()))
@pytest.mark.parametrize("train", [False, True])
def test_decoder_layer(kw, train):
    e_mod, t_mod = _make("TransformerDecoderLayer", D, NH, FF, dropout=0.0 if train else 0.3, **kw)
    e_mod.train(train)
    t_mod.train(train)
    xe, xt = _layer_inputs(kw["batch_first"], L)
    me_, mt_ = _layer_inputs(kw["batch_first"], S)
    tm = ember.from_numpy(nn.Transformer.generate_square_subsequent_mask(L).numpy())
    tmt = torch.nn.Transformer.generate_square_subsequent_mask(L).double()
    ke, kt = _pair(_bool_mask((N, S)), grad=False)
    ye = e_mod(xe, me_, tgt_mask=tm.double(), memory_key_padding_mask=ke)
    yt = t_mod(xt, mt_, tgt_mask=tmt, memory_key_padding_mask=kt)
    _check_grads(ye, yt, (xe, me_), (xt, mt_), e_mod, t_mod)


@pytest.mark.parametrize("batch_first", [False, True])
def test_encoder_decoder_stacks(batch_first):
    torch.manual_seed(0)
    t_layer = torch.nn.TransformerEncoderLayer(D, NH, FF, dropout=0.0, batch_first=batch_first)
    t_mod = torch.nn.TransformerEncoder(t_layer, 2, norm=torch.nn.LayerNorm(D), enable_nested_tensor=False).double()
    e_layer = nn.TransformerEncoderLayer(D, NH, FF, dropout=0.0, batch_first=batch_first)
    e_mod = nn.TransformerEncoder(e_layer, 2, norm=nn.LayerNorm(D)).double()
    _load(e_mod, t_mod)
    assert e_mod.layers[0] is not e_mod.layers[1]
    xe, xt = _layer_inputs(batch_first, L)
    _check_grads(e_mod(xe), t_mod(xt), (xe,), (xt,), e_mod, t_mod)

    t_dl = torch.nn.TransformerDecoderLayer(D, NH, FF, dropout=0.0, batch_first=batch_first)
    t_dec = torch.nn.TransformerDecoder(t_dl, 2).double()
    e_dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(D, NH, FF, dropout=0.0, batch_first=batch_first),
                                  2).double()
    _load(e_dec, t_dec)
    xe, xt = _layer_inputs(batch_first, L)
    me, mt = _layer_inputs(batch_first, S)
    _check_grads(e_dec(xe, me), t_dec(xt, mt), (xe, me), (xt, mt), e_dec, t_dec)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer(batch_first, norm_first):
    kw = dict(d_model=D, nhead=NH, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=FF, dropout=0.0,
              batch_first=batch_first, norm_first=norm_first)
    e_mod, t_mod = _make("Transformer", **kw)
    src_e, src_t = _layer_inputs(batch_first, S)
    tgt_e, tgt_t = _layer_inputs(batch_first, L)
    tm_t = torch.nn.Transformer.generate_square_subsequent_mask(L).double()
    tm_e = ember.from_numpy(tm_t.numpy().copy())
    ke, kt = _pair(_bool_mask((N, S)), grad=False)
    ye = e_mod(src_e, tgt_e, tgt_mask=tm_e, src_key_padding_mask=ke, memory_key_padding_mask=ke)
    yt = t_mod(src_t, tgt_t, tgt_mask=tm_t, src_key_padding_mask=kt, memory_key_padding_mask=kt)
    _check_grads(ye, yt, (src_e, tgt_e), (src_t, tgt_t), e_mod, t_mod)


def test_transformer_init_mask_and_errors():
    e_mod = nn.Transformer(D, NH, 1, 1, FF)
    t_mod = torch.nn.Transformer(D, NH, 1, 1, FF)
    assert list(e_mod.state_dict().keys()) == list(t_mod.state_dict().keys())
    m = nn.Transformer.generate_square_subsequent_mask(4).numpy()
    np.testing.assert_array_equal(m, torch.nn.Transformer.generate_square_subsequent_mask(4).numpy())
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        e_mod(ember.randn(S, 2, D), ember.randn(L, 3, D))
    with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
        e_mod(ember.randn(S, 2, 4), ember.randn(L, 2, 4))
    e_un = e_mod(ember.randn(S, D), ember.randn(L, D))
    assert tuple(e_un.shape) == (L, D)
