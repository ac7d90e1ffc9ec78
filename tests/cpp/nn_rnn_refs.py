"""Writes tests/cpp/nn_rnn_refs.h (RNN layers, the cells), nn_lstm_refs.h, nn_gru_refs.h and
nn_attention_refs.h (MultiheadAttention, the Transformer layers): PyTorch's outputs and gradients for the C++
layers (tests/cpp/test_nn_rnn.cpp). Run with /usr/bin/python3 (torch 1.13):

    /usr/bin/python3 tests/cpp/nn_rnn_refs.py

Every layer is float64 with small sizes. Its parameters, in named_parameters order (the k-th
one), are set to 0.5 sin(0.7 i + 0.37 k + 0.1) over their flat index i; inputs to
sin(0.61 i + seed); the loss is the sum of each result times cos(0.29 i + seed). The C++ test
rebuilds the same numbers with the same formulas."""
import os

import torch
import torch.nn as nn

from torch_refs import gw, inp, set_params, value_table

torch.set_default_dtype(torch.float64)
HERE = os.path.dirname(os.path.abspath(__file__))


refs = {}       # name -> tensor
keys = {}       # case -> state_dict keys
reprs = {}      # case -> repr text
rnn_cases = []  # table rows for the C++ test


def record(prefix, m, results, inputs):
    """results: list of (name, tensor, grad seed); inputs: list of (name, tensor)."""
    loss = 0
    for i, (name, t, seed) in enumerate(results):
        if t is None:
            continue
        refs[f"{prefix}/{name}"] = t.detach()
        loss = loss + (t * gw(t.shape, seed)).sum()
    params = list(m.named_parameters())
    grads = torch.autograd.grad(loss, [p for _, p in params] + [t for _, t in inputs])
    for (n, _), g in zip(params, grads):
        refs[f"{prefix}/grad/{n}"] = g
    for (n, _), g in zip(inputs, grads[len(params):]):
        refs[f"{prefix}/grad/{n}"] = g


# ---------------------------------------------------------------- RNN, LSTM, GRU
MODES = {"RNN_TANH": (nn.RNN, {}), "RNN_RELU": (nn.RNN, {"nonlinearity": "relu"}), "LSTM": (nn.LSTM, {}),
         "GRU": (nn.GRU, {})}
CONFIGS = [
    dict(),
    dict(num_layers=2),
    dict(bidirectional=True),
    dict(num_layers=2, bidirectional=True, h0=True),
    dict(batch_first=True, bias=False),
    dict(h0=True, batch_first=True),
    dict(unbatched=True, h0=True),
    dict(unbatched=True, num_layers=2, bidirectional=True),
]
LSTM_CONFIGS = [dict(proj_size=2), dict(proj_size=2, num_layers=2, bidirectional=True, h0=True, batch_first=True),
                dict(proj_size=1, unbatched=True, h0=True)]
I, H, T, B = 3, 4, 5, 2
for mode, (cls, extra) in MODES.items():
    for cfg in CONFIGS + (LSTM_CONFIGS if mode == "LSTM" else []):
        cfg = dict(cfg)
        h0, unbatched = cfg.pop("h0", False), cfg.pop("unbatched", False)
        name = mode.lower() + "".join(f"_{k}{int(v)}" for k, v in sorted(cfg.items())) + \
            ("_h0" if h0 else "") + ("_unbatched" if unbatched else "")
        m = cls(I, H, **extra, **cfg)
        set_params(m)
        bf = cfg.get("batch_first", False)
        x = inp((T, I) if unbatched else ((B, T, I) if bf else (T, B, I)), 1.0)
        D = 2 if cfg.get("bidirectional") else 1
        L = cfg.get("num_layers", 1)
        P = cfg.get("proj_size", 0) or H
        hshape = (D * L, P) if unbatched else (D * L, B, P)
        cshape = (D * L, H) if unbatched else (D * L, B, H)
        inputs = [("input", x)]
        if h0:
            hx = inp(hshape, 2.0)
            inputs.append(("h0", hx))
            if mode == "LSTM":
                cx = inp(cshape, 3.0)
                inputs.append(("c0", cx))
                out, (hn, cn) = m(x, (hx, cx))
            else:
                out, hn = m(x, hx)
                cn = None
        else:
            out, hn = m(x)
            if mode == "LSTM":
                hn, cn = hn
            else:
                cn = None
        record(name, m, [("output", out, 10.0), ("h_n", hn, 11.0), ("c_n", cn, 12.0)], inputs)
        keys[name] = list(m.state_dict().keys())
        reprs[name] = repr(m)
        rnn_cases.append((name, mode, L, cfg.get("bias", True), bf, cfg.get("bidirectional", False),
                          cfg.get("proj_size", 0), unbatched, h0))

# ---------------------------------------------------------------- cells
cell_cases = []
CELLS = {"rnncell_tanh": (nn.RNNCell, {}), "rnncell_relu": (nn.RNNCell, {"nonlinearity": "relu"}),
         "lstmcell": (nn.LSTMCell, {}), "grucell": (nn.GRUCell, {})}
for cname, (cls, extra) in CELLS.items():
    for bias, hx, batched in [(True, False, True), (True, True, True), (False, True, True), (True, True, False)]:
        name = f"{cname}_bias{int(bias)}_hx{int(hx)}_batched{int(batched)}"
        m = cls(I, H, bias=bias, **extra)
        set_params(m)
        x = inp((B, I) if batched else (I,), 1.0)
        sshape = (B, H) if batched else (H,)
        inputs = [("input", x)]
        if cname == "lstmcell":
            if hx:
                h, c = inp(sshape, 2.0), inp(sshape, 3.0)
                inputs += [("hx", h), ("cx", c)]
                h1, c1 = m(x, (h, c))
            else:
                h1, c1 = m(x)
            results = [("h", h1, 10.0), ("c", c1, 11.0)]
        else:
            if hx:
                h = inp(sshape, 2.0)
                inputs.append(("hx", h))
                h1 = m(x, h)
            else:
                h1 = m(x)
            results = [("h", h1, 10.0)]
        record(name, m, results, inputs)
        keys[name] = list(m.state_dict().keys())
        reprs[name] = repr(m)
        cell_cases.append((name, cname, bias, hx, batched))

# The recurrent family is written to its own header; the attention family starts afresh.
rnn_refs, rnn_keys, rnn_reprs = dict(refs), dict(keys), dict(reprs)
refs.clear()
keys.clear()
reprs.clear()

# ---------------------------------------------------------------- MultiheadAttention
E, NH, L_, S_ = 4, 2, 3, 5


def mha_case(name, kwargs, q_shape, k_shape, v_shape, self_attn=False, kpm=None, attn_mask=None, need_weights=True,
             average=True):
    m = nn.MultiheadAttention(E, NH, **kwargs)
    set_params(m)
    m.eval()
    q = inp(q_shape, 1.0)
    k = q if self_attn else inp(k_shape, 2.0)
    v = q if self_attn else inp(v_shape, 3.0)
    out, w = m(q, k, v, key_padding_mask=kpm, need_weights=need_weights, attn_mask=attn_mask,
               average_attn_weights=average)
    inputs = [("query", q)] if self_attn else [("query", q), ("key", k), ("value", v)]
    record(name, m, [("output", out, 10.0), ("weights", w, 11.0)], inputs)
    keys[name] = list(m.state_dict().keys())
    reprs[name] = repr(m)


# Masks are rebuilt in C++ from the same rules: kpm masks the last key of batch 1; the bool
# attn_mask masks key j for query i when (i + j) % 3 == 0 (never a whole row); the float one
# is 0.1 * (i - j).
def bool_kpm(n, s):
    m = torch.zeros(n, s, dtype=torch.bool)
    m[1, s - 1] = True
    return m


def bool_attn(l, s):
    i = torch.arange(l).unsqueeze(1)
    j = torch.arange(s).unsqueeze(0)
    return (i + j) % 3 == 0


def float_attn(l, s):
    i = torch.arange(l, dtype=torch.float64).unsqueeze(1)
    j = torch.arange(s, dtype=torch.float64).unsqueeze(0)
    return 0.1 * (i - j)


mha_case("mha_self", {}, (L_, B, E), None, None, self_attn=True)
mha_case("mha_cross_masks", {}, (L_, B, E), (S_, B, E), (S_, B, E), kpm=bool_kpm(B, S_),
         attn_mask=float_attn(L_, S_), average=False)
mha_case("mha_boolmask_bf", {"batch_first": True}, (B, L_, E), (B, S_, E), (B, S_, E), kpm=bool_kpm(B, S_),
         attn_mask=bool_attn(L_, S_))
mha_case("mha_kvdim", {"kdim": 3, "vdim": 5, "batch_first": True}, (B, L_, E), (B, S_, 3), (B, S_, 5),
         attn_mask=float_attn(L_, S_), need_weights=False)
mha_case("mha_biaskv_zeroattn", {"add_bias_kv": True, "add_zero_attn": True}, (L_, B, E), (S_, B, E), (S_, B, E),
         kpm=bool_kpm(B, S_), attn_mask=bool_attn(L_, S_))
mha_case("mha_nobias_unbatched", {"bias": False}, (L_, E), (S_, E), (S_, E), attn_mask=float_attn(L_, S_),
         average=False)
mha_case("mha_mask3d", {}, (L_, B, E), (S_, B, E), (S_, B, E),
         attn_mask=float_attn(L_, S_).unsqueeze(0).repeat(B * NH, 1, 1) * torch.arange(1., B * NH + 1).view(-1, 1, 1))


# ---------------------------------------------------------------- transformer layers
def layer_case(name, cls, kwargs, shapes, masks):
    m = cls(E, NH, dim_feedforward=6, **kwargs)
    set_params(m)
    m.eval()
    xs = [inp(s, 1.0 + i) for i, s in enumerate(shapes)]
    out = m(*xs, **masks)
    record(name, m, [("output", out, 10.0)], [(f"x{i}", x) for i, x in enumerate(xs)])
    keys[name] = list(m.state_dict().keys())
    reprs[name] = repr(m)


causal = nn.Transformer.generate_square_subsequent_mask(L_)
layer_case("enc_post_relu", nn.TransformerEncoderLayer, {}, [(S_, B, E)],
           {"src_mask": float_attn(S_, S_), "src_key_padding_mask": bool_kpm(B, S_)})
layer_case("enc_pre_gelu_bf", nn.TransformerEncoderLayer, {"norm_first": True, "activation": "gelu",
                                                           "batch_first": True, "layer_norm_eps": 1e-3},
           [(B, S_, E)], {"src_key_padding_mask": bool_kpm(B, S_)})
layer_case("dec_post_relu", nn.TransformerDecoderLayer, {}, [(L_, B, E), (S_, B, E)],
           {"tgt_mask": causal, "memory_key_padding_mask": bool_kpm(B, S_)})
layer_case("dec_pre_gelu_bf", nn.TransformerDecoderLayer, {"norm_first": True, "activation": "gelu",
                                                           "batch_first": True},
           [(B, L_, E), (B, S_, E)], {"tgt_mask": causal, "memory_mask": float_attn(L_, S_)})

# The full model: 2 encoder and 2 decoder layers.
tm = nn.Transformer(d_model=E, nhead=NH, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=6)
set_params(tm)
tm.eval()
src, tgt = inp((S_, B, E), 1.0), inp((L_, B, E), 2.0)
tout = tm(src, tgt, tgt_mask=causal, src_key_padding_mask=bool_kpm(B, S_), memory_key_padding_mask=bool_kpm(B, S_))
record("transformer", tm, [("output", tout, 10.0)], [("x0", src), ("x1", tgt)])
keys["transformer"] = list(tm.state_dict().keys())
reprs["transformer"] = repr(tm)
refs["transformer/causal_mask"] = causal


# ---------------------------------------------------------------- write
def write_header(file, namespace, what, preamble, refs, keys, reprs):
    lines = [f"// Generated by tests/cpp/nn_rnn_refs.py with torch {torch.__version__}; do not edit.",
             f"// PyTorch's results for tests/cpp/test_nn_rnn.cpp: {what} (see the script for the formulas).",
             "#pragma once", "", "#include <cstdint>", "#include <limits>", "#include <map>", "#include <string>",
             "#include <vector>", "", f"namespace ember::{namespace} {{", "",
             "inline constexpr double kInf = std::numeric_limits<double>::infinity();", ""]
    lines += preamble + value_table(refs)
    lines += ["inline const std::map<std::string, std::vector<std::string>>& state_dict_keys() {",
              "  static const std::map<std::string, std::vector<std::string>> m = {"]
    for k, ks in keys.items():
        lines.append(f'      {{"{k}", {{{", ".join(chr(34) + s + chr(34) for s in ks)}}}}},')
    lines += ["  };", "  return m;", "}", "", "inline const std::map<std::string, std::string>& reprs() {",
              "  static const std::map<std::string, std::string> m = {"]
    for k, r in reprs.items():
        lines.append(f'      {{"{k}", R"REPR({r})REPR"}},')
    lines += ["  };", "  return m;", "}", "", f"}}  // namespace ember::{namespace}", ""]
    path = os.path.join(HERE, file)
    with open(path, "w") as f:
        f.write("\n".join(lines))
    print(f"wrote {path}: {len(refs)} tensors")


b = lambda v: "true" if v else "false"  # noqa: E731
rnn_preamble = [
    "// mode, num_layers, bias, batch_first, bidirectional, proj_size, unbatched, with h0 (and c0)",
    "struct RnnCase {", "  const char* name;", "  const char* mode;", "  int64_t num_layers;", "  bool bias;",
    "  bool batch_first;", "  bool bidirectional;", "  int64_t proj_size;", "  bool unbatched;", "  bool h0;",
    "};", "",
    "struct CellCase {", "  const char* name;", "  const char* cell;", "  bool bias;", "  bool hx;",
    "  bool batched;", "};", "",
    f"inline constexpr int64_t kI = {I}, kH = {H}, kT = {T}, kB = {B};", "",
    "inline const std::vector<RnnCase> kRnnCases = {"]
for c in rnn_cases:
    rnn_preamble.append(f'    {{"{c[0]}", "{c[1]}", {c[2]}, {b(c[3])}, {b(c[4])}, {b(c[5])}, {c[6]}, {b(c[7])}, '
                        f'{b(c[8])}}},')
rnn_preamble += ["};", "", "inline const std::vector<CellCase> kCellCases = {"]
for c in cell_cases:
    rnn_preamble.append(f'    {{"{c[0]}", "{c[1]}", {b(c[2])}, {b(c[3])}, {b(c[4])}}},')
rnn_preamble += ["};", ""]
# One header per layer family, each under the 1,500-line mark: RNN (with the cells and the
# case tables), LSTM, GRU.
family = {c[0]: {"LSTM": "lstm", "GRU": "gru"}.get(c[1], "rnn") for c in rnn_cases}
family.update({c[0]: "rnn" for c in cell_cases})
for fam, what, pre in (("rnn", "RNN layers and the cells", rnn_preamble), ("lstm", "LSTM layers", []),
                       ("gru", "GRU layers", [])):
    def mine(d):
        return {k: v for k, v in d.items() if family[k.split("/")[0]] == fam}
    write_header(f"nn_{fam}_refs.h", f"nn_{fam}_refs", what, pre, mine(rnn_refs), mine(rnn_keys), mine(rnn_reprs))
write_header("nn_attention_refs.h", "nn_attention_refs", "attention and Transformer layers",
             [f"// Batch size: nn_rnn_refs::kB ({B}).",
              f"inline constexpr int64_t kE = {E}, kHeads = {NH}, kL = {L_}, kS = {S_};", ""],
             refs, keys, reprs)
