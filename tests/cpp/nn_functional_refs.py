"""Writes tests/cpp/nn_functional_refs.h: PyTorch 1.13's numbers for the C++
nn::functional functions tested in tests/cpp/test_nn_functional.cpp (embedding_bag,
scaled_dot_product_attention, multi_head_attention_forward, max_unpool1d/2d/3d, the dropouts).

Run with the PyTorch-carrying interpreter from the repository root:

    /usr/bin/python3 tests/cpp/nn_functional_refs.py

Inputs and weights are torch_refs.py's formulas (float64), rebuilt by the C++ test: a case's
k-th floating argument is inp(shape, k + 1). Each case records its outputs ("<case>.out<j>"),
and the gradients of sum_j sum(out_j * gw(out_j.shape, j)) with respect to its floating
arguments ("<case>.grad<k>"); functions that change an argument in place record it after
the call ("<case>.after<k>"). Errors and warnings are recorded as "Type: message" text.
"""
import math
import os
import sys
import warnings

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_refs import gw, inp, value_table  # noqa: E402

REFS = {}
TEXTS = []  # (name, text)


def record(name, fn, args):
    """fn(*args) -> list of outputs; args: tensors (floating ones require grad) or other values."""
    floats = [a for a in args if isinstance(a, torch.Tensor) and a.is_floating_point() and a.requires_grad]
    outs = [o for o in fn(*args) if o is not None]
    for j, o in enumerate(outs):
        REFS[f"{name}.out{j}"] = o.detach()
    loss = sum((o * gw(tuple(o.shape), j)).sum() for j, o in enumerate(outs) if o.requires_grad)
    if floats:
        grads = torch.autograd.grad(loss, floats, allow_unused=True)
        for k, g in enumerate(grads):
            REFS[f"{name}.grad{k}"] = g if g is not None else torch.zeros_like(floats[k])
    return outs


def error(name, fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - recording whatever torch raises
        TEXTS.append((name, f"{type(e).__name__}: {e}"))
        return
    raise AssertionError(f"{name}: torch raised nothing")


def warning(name, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    for i, w in enumerate(caught):
        TEXTS.append((f"{name}.{i}", str(w.message)))


def ints(values):
    return torch.tensor(values, dtype=torch.int64)


# ---------------------------------------------------------------- embedding_bag
def eb(name, input, offsets, shape, psw=None, **kw):
    w = inp(shape, 1.0)
    args = [w] if psw is None else [w, inp(psw, 2.0)]

    def run(w, *p):
        return [F.embedding_bag(input, w, offsets, per_sample_weights=p[0] if p else None, **kw)]
    record(name, run, args)
    if kw.get("max_norm") is not None:
        REFS[f"{name}.after0"] = w.detach().clone()


eb("eb_sum_psw", ints([1, 2, 4, 5, 4, 3, 2, 9]), ints([0, 2, 2, 5]), (10, 3), psw=(8,), mode="sum")
eb("eb_mean_2d_pad", ints([[1, 2, 4], [2, 2, 3]]), None, (10, 3), padding_idx=-8)
eb("eb_max_last", ints([1, 2, 4, 5, 4, 3, 2, 9]), ints([0, 3, 5, 8]), (10, 3), mode="max", include_last_offset=True)


# scale_grad_by_freq: torch 1.13's CPU embedding_bag backward divides by the count of another
# index than the row's (e.g. by 3 for rows seen once, for indices [1, 1, 4, 1, 0, 3]), so the
# reference is the documented meaning, from embedding (whose backward is right): each row's
# gradient divided by how often it occurs in the input.
def eb_by_embedding(w):
    idx, bag_of = ints([1, 1, 4, 1, 0, 3]), ints([0, 0, 0, 0, 1, 1])
    rows = F.embedding(idx, w, padding_idx=0, scale_grad_by_freq=True) * (idx != 0).unsqueeze(1)
    return [torch.zeros(2, 2, dtype=torch.float64).index_add(0, bag_of, rows)]


record("eb_sum_freq_pad", eb_by_embedding, [inp((5, 2), 1.0)])
eb("eb_mean_maxnorm", ints([1, 2, 4, 1, 3]), ints([0, 1, 3]), (6, 4), max_norm=1.2, norm_type=1.5)
eb("eb_mean_empty_bag", ints([3, 4]), ints([0, 0, 2, 2]), (6, 2))
w_eb = torch.zeros(5, 3)
error("eb_psw_mode", lambda: F.embedding_bag(ints([1, 2]), w_eb, ints([0]), mode="mean",
                                             per_sample_weights=torch.ones(2)))
error("eb_2d_offsets", lambda: F.embedding_bag(ints([[1, 2]]), w_eb, ints([0])))
error("eb_no_offsets", lambda: F.embedding_bag(ints([1, 2]), w_eb))
error("eb_offsets_2d", lambda: F.embedding_bag(ints([1, 2]), w_eb, ints([[0]])))
error("eb_3d", lambda: F.embedding_bag(ints([[[1]]]), w_eb))
error("eb_mode", lambda: F.embedding_bag(ints([1, 2]), w_eb, ints([0]), mode="min"))
error("eb_max_freq", lambda: F.embedding_bag(ints([1, 2]), w_eb, ints([0]), mode="max", scale_grad_by_freq=True))
error("eb_max_sparse", lambda: F.embedding_bag(ints([1, 2]), w_eb, ints([0]), mode="max", sparse=True))
error("eb_offset0", lambda: F.embedding_bag(ints([1, 2]), w_eb, ints([1])))
error("eb_offset_last", lambda: F.embedding_bag(ints([1, 2]), w_eb, ints([0, 3])))
error("eb_last_offset_empty", lambda: F.embedding_bag(ints([1, 2]), w_eb, ints([]), include_last_offset=True))
error("eb_padding_idx", lambda: F.embedding_bag(ints([1, 2]), w_eb, ints([0]), padding_idx=5))


# ---------------------------------------------------------------- scaled_dot_product_attention
def sdpa(name, qs, ks, vs, mask=None, is_causal=False):
    def run(q, k, v):
        return list(F._scaled_dot_product_attention(q, k, v, mask, 0.0, False, is_causal))[:1]
    record(name, run, [inp(qs, 1.0), inp(ks, 2.0), inp(vs, 3.0)])


def bool_mask(l, s):  # key j is masked out for query i when (i + 2 j) % 3 == 1; never a whole row
    i = torch.arange(l).unsqueeze(1)
    j = torch.arange(s).unsqueeze(0)
    return (i + 2 * j) % 3 != 1


sdpa("sdpa_plain", (2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7))
sdpa("sdpa_bool", (3, 4, 5), (3, 6, 5), (3, 6, 2), bool_mask(4, 6))
sdpa("sdpa_float_bcast", (2, 3, 4, 5), (1, 3, 6, 5), (1, 3, 6, 7), inp((2, 1, 4, 6), 4.0).detach())
sdpa("sdpa_causal", (2, 5, 3), (2, 5, 3), (2, 5, 4), is_causal=True)


# ---------------------------------------------------------------- multi_head_attention_forward
def mha(name, q, k, v, heads, E, separate=None, bias=True, bias_kv=False, zero_attn=False, kpm=None,
        attn_mask=None, need_weights=True, average=True, static=None, same=""):
    """same: "qkv" (one tensor for all three), "kv" (key is value) or "" (three tensors)."""
    args = [inp(q, 1.0)]
    if same == "":
        args += [inp(k, 2.0), inp(v, 3.0)]
    elif same == "kv":
        args += [inp(k, 2.0)]
    seed = 10.0
    params = {}

    def param(n, shape):
        nonlocal seed
        params[n] = len(args)
        args.append(inp(shape, seed))
        seed += 1.0

    if separate is None:
        param("in_proj_weight", (3 * E, E))
    else:
        param("q_proj_weight", (E, E))
        param("k_proj_weight", (E, separate[0]))
        param("v_proj_weight", (E, separate[1]))
    if bias:
        param("in_proj_bias", (3 * E,))
    if bias_kv:
        param("bias_k", (1, 1, E))
        param("bias_v", (1, 1, E))
    param("out_proj_weight", (E, E))
    if bias:
        param("out_proj_bias", (E,))
    if static is not None:
        param("static_k", static[0])
        param("static_v", static[1])

    def run(*a):
        query = a[0]
        key, value = (query, query) if same == "qkv" else (a[1], a[1]) if same == "kv" else (a[1], a[2])
        get = {n: a[i] for n, i in params.items()}
        return list(F.multi_head_attention_forward(
            query, key, value, E, heads, get.get("in_proj_weight"), get.get("in_proj_bias"), get.get("bias_k"),
            get.get("bias_v"), zero_attn, 0.0, get["out_proj_weight"], get.get("out_proj_bias"), training=False,
            key_padding_mask=kpm, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=separate is not None, q_proj_weight=get.get("q_proj_weight"),
            k_proj_weight=get.get("k_proj_weight"), v_proj_weight=get.get("v_proj_weight"),
            static_k=get.get("static_k"), static_v=get.get("static_v"), average_attn_weights=average))
    record(name, run, args)


L, S, N, E, H = 4, 5, 2, 6, 2
kpm_bool = torch.zeros(N, S, dtype=torch.bool)
kpm_bool[1, S - 1] = True
mha("mha_self", (L, N, E), None, None, H, E, same="qkv", kpm=kpm_bool[:, :L],
    attn_mask=inp((L, L), 5.0).detach())
mha("mha_kv_biaskv_zero", (L, N, E), (S, N, E), None, H, E, same="kv", bias_kv=True, zero_attn=True,
    kpm=kpm_bool, attn_mask=~bool_mask(L, S), average=False)
mha("mha_separate", (L, N, E), (S, N, 4), (S, N, 5), H, E, separate=(4, 5), kpm=kpm_bool,
    attn_mask=inp((N * H, L, S), 6.0).detach())
mha("mha_nobias_noweights", (L, N, E), (S, N, E), (S, N, E), H, E, bias=False, need_weights=False)
mha("mha_unbatched", (L, E), (S, E), (S, E), H, E, kpm=kpm_bool[1], attn_mask=~bool_mask(L, S))
mha("mha_static", (L, N, E), (S, N, E), (S, N, E), 3, E, static=((N * 3, 3, 2), (N * 3, 3, 2)))

q3, m3 = torch.zeros(3, 2, 4), torch.zeros(2, 4)
w12, w4 = torch.zeros(12, 4), torch.zeros(4, 4)


def mha_call(q, k, v, **kw):
    base = dict(embed_dim_to_check=4, num_heads=2, in_proj_weight=w12, in_proj_bias=None, bias_k=None,
                bias_v=None, add_zero_attn=False, dropout_p=0.0, out_proj_weight=w4, out_proj_bias=None)
    base.update(kw)
    return F.multi_head_attention_forward(q, k, v, **base)


error("mha_query_4d", lambda: mha_call(torch.zeros(3, 2, 4, 1), q3, q3))
error("mha_key_2d", lambda: mha_call(q3, m3, m3))
error("mha_kpm_3d", lambda: mha_call(q3, q3, q3, key_padding_mask=torch.zeros(2, 3, 1, dtype=torch.bool)))
error("mha_attn_4d", lambda: mha_call(q3, q3, q3, attn_mask=torch.zeros(1, 1, 3, 3)))
error("mha_unbatched_key_3d", lambda: mha_call(torch.zeros(3, 4), q3, q3))
error("mha_unbatched_kpm_2d", lambda: mha_call(torch.zeros(3, 4), torch.zeros(3, 4), torch.zeros(3, 4),
                                               key_padding_mask=torch.zeros(1, 3, dtype=torch.bool)))
error("mha_kpm_dtype", lambda: mha_call(q3, q3, q3, key_padding_mask=torch.zeros(2, 3, dtype=torch.int64)))
error("mha_embed_dim", lambda: mha_call(q3, q3, q3, embed_dim_to_check=5))
error("mha_heads", lambda: mha_call(q3, q3, q3, num_heads=3))
error("mha_no_in_proj", lambda: mha_call(q3, q3, q3, in_proj_weight=None))
error("mha_no_q_proj", lambda: mha_call(q3, q3, q3, use_separate_proj_weight=True))
error("mha_attn_dtype", lambda: mha_call(q3, q3, q3, attn_mask=torch.zeros(3, 3, dtype=torch.int64)))
error("mha_attn_3d_bad", lambda: mha_call(q3, q3, q3, attn_mask=torch.zeros(3, 3, 3)))
error("mha_static_bias", lambda: mha_call(q3, q3, q3, bias_k=torch.zeros(1, 1, 4), bias_v=torch.zeros(1, 1, 4),
                                          static_k=torch.zeros(4, 3, 2)))
error("mha_static_k_size0", lambda: mha_call(q3, q3, q3, static_k=torch.zeros(3, 3, 2)))
error("mha_static_v_size2", lambda: mha_call(q3, q3, q3, static_v=torch.zeros(4, 3, 3)))
warning("mha_byte_mask", lambda: mha_call(q3, q3, q3, attn_mask=torch.zeros(3, 3, dtype=torch.uint8)))


# ---------------------------------------------------------------- max_unpool
def unpool(name, dims, shape, kernel, stride=None, padding=0, output_size=None):
    pool = getattr(F, f"max_pool{dims}d")
    x = inp(shape, 1.0)
    _, idx = pool(x.detach(), kernel, stride, padding, return_indices=True)
    REFS[f"{name}.indices"] = idx.to(torch.float64)

    def run(x):
        y, _ = pool(x, kernel, stride, padding, return_indices=True)
        return [getattr(F, f"max_unpool{dims}d")(y, idx, kernel, stride, padding, output_size)]
    record(name, run, [x])


unpool("unpool1d", 1, (2, 3, 8), 2)
unpool("unpool1d_size", 1, (3, 9), 3, 2, 1, output_size=[10])
unpool("unpool2d_size", 2, (1, 2, 5, 4), 2, output_size=[1, 2, 5, 5])
unpool("unpool2d_pad", 2, (2, 6, 7), (3, 2), (2, 1), (1, 0), output_size=[6, 7])
unpool("unpool3d", 3, (1, 4, 3, 4), 2, 1)
y1, i1 = F.max_pool1d(torch.zeros(1, 1, 8), 2, return_indices=True)
error("unpool_size_len", lambda: F.max_unpool1d(y1, i1, 2, output_size=[1, 8]))
error("unpool_size_range", lambda: F.max_unpool1d(y1, i1, 2, output_size=[10]))
error("unpool_size_range2d", lambda: F.max_unpool2d(torch.zeros(1, 1, 2, 2), torch.zeros(1, 1, 2, 2, dtype=torch.long),
                                                    2, output_size=[4, 2]))

# ---------------------------------------------------------------- dropout
x_d = torch.ones(2, 3)
for p_bad in (-0.1, 1.5):
    error(f"dropout_p{p_bad}", lambda: F.dropout(x_d, p_bad))
error("dropout1d_1d", lambda: F.dropout1d(torch.ones(3)))
error("dropout1d_4d", lambda: F.dropout1d(torch.ones(1, 2, 3, 4)))
error("dropout2d_1d", lambda: F.dropout2d(torch.ones(3)))
error("alpha_p", lambda: F.alpha_dropout(x_d, 2.0))
error("feature_alpha_1d", lambda: F.feature_alpha_dropout(torch.ones(3), 0.5, True))
warning("dropout2d_3d", lambda: F.dropout2d(torch.ones(2, 3, 4)))
warning("dropout2d_2d", lambda: F.dropout2d(torch.ones(2, 3)))
warning("dropout2d_5d", lambda: F.dropout2d(torch.ones(1, 2, 3, 4, 5)))
warning("dropout3d_3d", lambda: F.dropout3d(torch.ones(2, 3, 4)))
warning("dropout3d_4d", lambda: F.dropout3d(torch.ones(2, 3, 4, 5)))


def cpp_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def main():
    lines = ["// Generated by tests/cpp/nn_functional_refs.py with PyTorch " + torch.__version__ + "; do not edit.",
             "// PyTorch's numbers, errors and warnings for tests/cpp/test_nn_functional.cpp (see the script).",
             "#pragma once", "", "#include <cstdint>", "#include <limits>", "", "namespace ember::nn_functional_refs {",
             "", "inline constexpr double kInf = std::numeric_limits<double>::infinity();", "", "// clang-format off"]
    lines += value_table(REFS)
    lines += ["// name, \"Type: message\" of an error or the text of a warning (name.i: the i-th)",
              "inline constexpr const char* kTexts[][2] = {"]
    lines += [f"    {{{cpp_str(n)}, {cpp_str(t)}}}," for n, t in TEXTS]
    lines += ["};", "// clang-format on", "", "}  // namespace ember::nn_functional_refs", ""]
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_functional_refs.h")
    with open(out, "w") as fh:
        fh.write("\n".join(lines))
    print(f"wrote {len(REFS)} tensors and {len(TEXTS)} texts to {out}")


if __name__ == "__main__":
    main()
