"""Attention in ember.nn.functional: scaled_dot_product_attention (torch 2.0's signature) and
multi_head_attention_forward (torch 1.13's).

The heads are batched: q, k and v become (batch * heads, seq, head_dim) tensors, with the
batch index outer and the head index inner, as PyTorch orders them (so a 3-D attn_mask of
shape (N * num_heads, L, S) means the same thing here). A packed self-attention projection
is one matmul, and its q, k and v stay (batch, heads, seq, head_dim) views of it, which the
products read in place (matmul's two-level batch strides), forward and backward."""
import math
import warnings

from .. import _C

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _float_mask(mask, dtype):
    """A bool mask (True: masked out) as an additive float mask of 0 and -inf."""
    return _C.zeros(tuple(mask.shape), dtype=dtype).masked_fill(mask, float("-inf"))


def _scores(q, k, mask, scale):
    """scale * q @ k^T (+ mask) for 3-D q (B, L, E), k (B, S, E); mask broadcastable to (B, L, S)."""
    kt = k.transpose(1, 2)
    if mask is None:
        # beta=0: the scale rides on the product (alpha), the zero `self` is never read.
        return _C.baddbmm(_C.zeros((1, 1, 1), dtype=q.dtype), q, kt, beta=0, alpha=scale)
    return _C.baddbmm(mask, q, kt, alpha=scale)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False):
    """softmax(query @ key^T / sqrt(E) + mask) @ value over the last two dims, with any leading
    batch dims. A bool attn_mask marks the positions that take part (True); a float one is added
    to the scores. is_causal masks out the keys after each query (upper triangle)."""
    if is_causal and attn_mask is not None:
        raise RuntimeError("scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError("scaled_dot_product_attention: expected query, key and value of at least 2 dims")
    L, E = query.shape[-2], query.shape[-1]
    S = key.shape[-2]
    if key.shape[-1] != E:
        raise RuntimeError(f"scaled_dot_product_attention: query and key must have the same last dim, "
                           f"got {E} and {key.shape[-1]}")
    if value.shape[-2] != S:
        raise RuntimeError(f"scaled_dot_product_attention: key and value must have the same sequence length, "
                           f"got {S} and {value.shape[-2]}")
    scale = 1.0 / math.sqrt(E)
    if is_causal:
        attn_mask = _C.ones((L, S), dtype=_C.bool).tril()
    mask = None
    if attn_mask is not None:
        mask = _float_mask(attn_mask.logical_not(), query.dtype) if attn_mask.dtype == _C.bool else attn_mask
    batch = tuple(query.shape[:-2])
    if tuple(key.shape[:-2]) == batch and tuple(value.shape[:-2]) == batch:
        # One batched product over the flattened batch dims.
        q, k, v = query.reshape(-1, L, E), key.reshape(-1, S, E), value.reshape(-1, S, value.shape[-1])
        if mask is not None:
            if all(d == 1 for d in mask.shape[:-2]):  # one mask for every batch: a broadcast view
                mask = mask.reshape(1, L, S).expand(q.shape[0], L, S)
            else:
                mask = mask.expand(batch + (L, S)).reshape(-1, L, S)
        w = _C.softmax(_scores(q, k, mask, scale), -1)
        if dropout_p > 0.0:
            w = _C.dropout(w, dropout_p, True)
        return _C.bmm(w, v).reshape(batch + (L, value.shape[-1]))
    # Broadcast batch dims: the general matmul.
    s = _C.matmul(query * scale, key.transpose(-2, -1))
    if mask is not None:
        s = s + mask
    w = _C.softmax(s, -1)
    if dropout_p > 0.0:
        w = _C.dropout(w, dropout_p, True)
    return _C.matmul(w, value)


def _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads):
    """torch's shape checks; returns whether the input is batched."""
    if query.dim() == 3:
        if key.dim() != 3 or value.dim() != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None and attn_mask.dim() not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.dim()}-D tensor instead")
        return True
    if query.dim() == 2:
        if key.dim() != 2 or value.dim() != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.dim()}-D and {value.dim()}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.dim() != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.dim()}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.dim() not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D "
                                     f"but found {attn_mask.dim()}-D tensor instead")
            if attn_mask.dim() == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                         f"{tuple(attn_mask.shape)}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.dim()}-D "
                         "query tensor")


def _heads(t, bf, num_heads):
    """(S, N, E) (or (N, S, E) when bf) -> (N * heads, S, head_dim), contiguous."""
    a, b, e = t.shape
    hd = e // num_heads
    t = t.reshape(a, b, num_heads, hd)
    t = t.permute(0, 2, 1, 3) if bf else t.permute(1, 2, 0, 3)
    n, s = (a, b) if bf else (b, a)
    return t.reshape(n * num_heads, s, hd)


def _heads3(t, bf, num_heads):
    """The packed (S, N, 3E) projection -> q, k, v as (N, heads, S, head_dim) views, no copy: the
    products read the heads in place (two batch strides)."""
    a, b, e3 = t.shape
    t = t.view(a, b, 3, num_heads, e3 // (3 * num_heads))
    return (t.permute(2, 0, 3, 1, 4) if bf else t.permute(2, 1, 3, 0, 4)).unbind(0)


def _mha(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v,
         add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training, key_padding_mask, need_weights,
         attn_mask, use_separate_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight, static_k, static_v,
         average_attn_weights, batch_first):
    """multi_head_attention_forward on (L, N, E) inputs, or (N, L, E) ones when batch_first
    (the output then is (N, L, E) too)."""
    is_batched = _check_shapes(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        bf = False
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    else:
        bf = batch_first
    if bf:
        bsz, tgt_len, embed_dim = query.shape
        src_len = key.shape[1]
    else:
        tgt_len, bsz, embed_dim = query.shape
        src_len = key.shape[0]
    if key_padding_mask is not None and key_padding_mask.dtype != _C.bool and \
            not key_padding_mask.is_floating_point():
        raise AssertionError("only bool and floating types of key_padding_mask are supported")
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's "
                                 f"{tuple(value.shape[:2])}")
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")

    # attn_mask: checked, float or bool, and 3-D.
    if attn_mask is not None:
        if attn_mask.dtype == _C.uint8:
            warnings.warn("Byte tensor for attn_mask in nn.MultiheadAttention is deprecated. Use bool tensor "
                          "instead.")
            attn_mask = attn_mask.to(_C.bool)
        elif not (attn_mask.is_floating_point() or attn_mask.dtype == _C.bool):
            raise AssertionError(f"Only float, byte, and bool types are supported for attn_mask, not "
                                 f"{attn_mask.dtype}")
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")

    # In-projection, then heads: (N * heads, seq, head_dim).
    has_bias_kv = bias_k is not None and bias_v is not None
    if not has_bias_kv and (bias_k is not None or bias_v is not None):
        raise AssertionError("bias_k and bias_v must both be given or both be None")
    if has_bias_kv and (static_k is not None or static_v is not None):
        raise AssertionError("bias cannot be added to static key.")
    E = embed_dim
    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        if query is key and key is value:
            qkv = _C.linear(query, in_proj_weight, in_proj_bias)
            if not has_bias_kv and static_k is None and static_v is None and not add_zero_attn:
                q, k, v = _heads3(qkv, bf, num_heads)
                qkv = None
            else:
                q, k, v = qkv.chunk(3, -1)
        elif key is value:
            b_q = b_kv = None
            if in_proj_bias is not None:
                b_q, b_kv = in_proj_bias[:E], in_proj_bias[E:]
            q = _C.linear(query, in_proj_weight[:E], b_q)
            k, v = _C.linear(key, in_proj_weight[E:], b_kv).chunk(2, -1)
            qkv = True
        else:
            w_q, w_k, w_v = in_proj_weight.chunk(3)
            b_q = b_k = b_v = None
            if in_proj_bias is not None:
                b_q, b_k, b_v = in_proj_bias.chunk(3)
            q, k, v = _C.linear(query, w_q, b_q), _C.linear(key, w_k, b_k), _C.linear(value, w_v, b_v)
            qkv = True
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        b_q = b_k = b_v = None
        if in_proj_bias is not None:
            b_q, b_k, b_v = in_proj_bias.chunk(3)
        q, k, v = _C.linear(query, q_proj_weight, b_q), _C.linear(key, k_proj_weight, b_k), \
            _C.linear(value, v_proj_weight, b_v)
        qkv = True
    if qkv is not None:
        # Not split yet: (seq, N, E) or (N, seq, E) projections.
        seq_dim = 1 if bf else 0
        if has_bias_kv:
            rep = (bsz, 1, 1) if bf else (1, bsz, 1)
            bk, bv = bias_k.reshape(1, 1, E), bias_v.reshape(1, 1, E)
            k = _C.cat([k, bk.repeat(*rep)], seq_dim)
            v = _C.cat([v, bv.repeat(*rep)], seq_dim)
            if attn_mask is not None:
                attn_mask = _pad_last(attn_mask)
            if key_padding_mask is not None:
                key_padding_mask = _pad_last(key_padding_mask)
        q = _heads(q, bf, num_heads)
        k = _heads(k, bf, num_heads) if static_k is None else static_k
        v = _heads(v, bf, num_heads) if static_v is None else static_v
        if static_k is not None:
            _check_static("static_k", static_k, bsz * num_heads, head_dim)
        if static_v is not None:
            _check_static("static_v", static_v, bsz * num_heads, head_dim)
    if add_zero_attn:
        zeros = _C.zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype)
        k = _C.cat([k, zeros], 1)
        v = _C.cat([v, zeros], 1)
        if attn_mask is not None:
            attn_mask = _pad_last(attn_mask)
        if key_padding_mask is not None:
            key_padding_mask = _pad_last(key_padding_mask)
    heads4 = q.dim() == 4  # (N, heads, L, head_dim) views of the packed projection
    src_len = k.shape[-2]

    # One additive float mask, broadcastable to (N * heads, L, S).
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                 f"{tuple(key_padding_mask.shape)}")
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(bsz, num_heads, 1, src_len) \
            .reshape(bsz * num_heads, 1, src_len)
        if attn_mask is None:
            attn_mask = kpm
        elif attn_mask.dtype == _C.bool:
            attn_mask = attn_mask.logical_or(kpm)
        else:
            attn_mask = attn_mask.masked_fill(kpm, float("-inf")) if kpm.dtype == _C.bool else attn_mask + kpm
    if attn_mask is not None and attn_mask.dtype == _C.bool:
        attn_mask = _float_mask(attn_mask, q.dtype)
    if not training:
        dropout_p = 0.0
    if heads4:
        return _mha_heads4(q, k, v, attn_mask, dropout_p, out_proj_weight, out_proj_bias, is_batched, bf,
                           need_weights, average_attn_weights)
    if attn_mask is not None and attn_mask.shape[0] != bsz * num_heads:
        attn_mask = attn_mask.expand(bsz * num_heads, attn_mask.shape[1], attn_mask.shape[2])

    w = _C.softmax(_scores(q, k, attn_mask, 1.0 / math.sqrt(head_dim)), -1)
    if dropout_p > 0.0:
        w = _C.dropout(w, dropout_p, True)
    out = _C.bmm(w, v).reshape(bsz, num_heads, tgt_len, head_dim)
    out = out.permute(0, 2, 1, 3) if bf else out.permute(2, 0, 1, 3)
    out = _C.linear(out.reshape(out.shape[0], out.shape[1], embed_dim), out_proj_weight, out_proj_bias)
    if not is_batched:
        out = out.squeeze(1)
    if not need_weights:
        return out, None
    w = w.reshape(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        w = w.sum(1) / num_heads
    if not is_batched:
        w = w.squeeze(0)
    return out, w


def _mha_heads4(q, k, v, attn_mask, dropout_p, out_proj_weight, out_proj_bias, is_batched, bf, need_weights,
                average_attn_weights):
    """The attention of _mha on (N, heads, L, head_dim) strided views; attn_mask (1 or N * heads,
    L or 1, S) additive float, or None."""
    bsz, num_heads, tgt_len, head_dim = q.shape
    src_len = k.shape[2]
    # Scaling q (N L E elements) is cheaper than scaling the scores (N heads L S).
    s = _C.matmul(q * (1.0 / math.sqrt(head_dim)), k.transpose(-2, -1))
    if attn_mask is not None:
        lead = (bsz, num_heads) if attn_mask.shape[0] > 1 else (1, 1)
        s = s + attn_mask.reshape(lead + (attn_mask.shape[1], src_len))
    w = _C.softmax(s, -1)
    if dropout_p > 0.0:
        w = _C.dropout(w, dropout_p, True)
    out = _C.matmul(w, v)  # (N, heads, L, head_dim)
    out = out.transpose(1, 2) if bf else out.permute(2, 0, 1, 3)
    out = _C.linear(out.reshape(out.shape[0], out.shape[1], num_heads * head_dim), out_proj_weight, out_proj_bias)
    if not is_batched:
        out = out.squeeze(1)
    if not need_weights:
        return out, None
    if average_attn_weights:
        w = w.sum(1) / num_heads
    if not is_batched:
        w = w.squeeze(0)
    return out, w


def _pad_last(mask):
    """One more column (of False / 0) at the end of the last dim."""
    z = _C.zeros(tuple(mask.shape[:-1]) + (1,), dtype=mask.dtype)
    return _C.cat([mask, z], -1)


def _check_static(name, t, bh, head_dim):
    if t.shape[0] != bh:
        raise AssertionError(f"expecting {name}.size(0) of {bh}, but got {t.shape[0]}")
    if t.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {t.shape[2]}")


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True):
    """Multi-head attention on (L, N, E) query and (S, N, E) key/value (or unbatched (L, E) and
    (S, E)); returns (output, attention weights or None), as torch.nn.functional's."""
    return _mha(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v,
                add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training, key_padding_mask,
                need_weights, attn_mask, use_separate_proj_weight, q_proj_weight, k_proj_weight, v_proj_weight,
                static_k, static_v, average_attn_weights, False)
