"""Writes tests/cpp/nn_utils_refs.h: PyTorch's results for the C++ nn::utils (packed sequences,
RNN layers on packed input, weight_norm, spectral_norm; tests/cpp/test_nn_utils.cpp). Run with
/usr/bin/python3 (torch 1.13):

    /usr/bin/python3 tests/cpp/nn_utils_refs.py

Everything is float64 with small sizes. A module's k-th parameter (named_parameters order) is
set to 0.5 sin(0.7 i + 0.37 k + 0.1) over its flat index i; inputs to sin(0.61 i + seed);
each loss is the sum of results times cos(0.29 i + seed). The C++ test rebuilds the same
numbers with the same formulas. Errors are recorded as torch's messages."""
import os

import torch
import torch.nn as nn
from torch.nn.utils import rnn as rnn_utils

from torch_refs import formula, gw, inp, set_params, value_table

torch.set_default_dtype(torch.float64)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_utils_refs.h")


refs = {}    # name -> tensor
errors = {}  # name -> torch's message


def add(name, t):
    refs[name] = t.detach().to(torch.float64)


def error(name, fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the message is what is recorded
        errors[name] = f"{type(e).__name__}: {e}"
        return
    raise AssertionError(f"{name} did not raise")


# ---------------------------------------------------------------- packing
F = 2
LENS = [4, 2, 3]  # unsorted, distinct (torch's sort is not stable)
seqs = [inp((n, F), k + 1.0) for k, n in enumerate(LENS)]
for bf in (False, True):
    add(f"pad_sequence/bf{int(bf)}", rnn_utils.pad_sequence(seqs, batch_first=bf, padding_value=-1.0))

packed = rnn_utils.pack_sequence(seqs, enforce_sorted=False)
for field in ("data", "batch_sizes", "sorted_indices", "unsorted_indices"):
    add(f"pack_sequence/{field}", getattr(packed, field))
sorted_seqs = [seqs[0], seqs[2], seqs[1]]
packed_sorted = rnn_utils.pack_sequence(sorted_seqs)
add("pack_sequence_sorted/data", packed_sorted.data)
add("pack_sequence_sorted/batch_sizes", packed_sorted.batch_sizes)
for bf in (False, True):
    padded, lengths = rnn_utils.pad_packed_sequence(packed, batch_first=bf, padding_value=0.5, total_length=6)
    add(f"pad_packed/bf{int(bf)}/padded", padded)
    add(f"pad_packed/bf{int(bf)}/lengths", lengths)

# Gradients: through pack_sequence and pad_packed_sequence back to the sequences, and through
# pack_padded_sequence (batch_first) back to the padded batch.
padded, _ = rnn_utils.pad_packed_sequence(packed, total_length=5)
loss = (padded * gw(padded.shape, 1.0)).sum() + (packed.data * gw(packed.data.shape, 2.0)).sum()
for k, g in enumerate(torch.autograd.grad(loss, seqs)):
    add(f"grad/seq{k}", g)
x_bf = inp((3, 5, F), 4.0)
p2 = rnn_utils.pack_padded_sequence(x_bf, torch.tensor(LENS), batch_first=True, enforce_sorted=False)
add("pack_padded_bf/data", p2.data)
add("grad/x_bf", torch.autograd.grad((p2.data * gw(p2.data.shape, 3.0)).sum(), x_bf)[0])

error("unsorted", lambda: rnn_utils.pack_padded_sequence(torch.zeros(4, 3, F), torch.tensor([2, 4, 3])))
error("zero_length", lambda: rnn_utils.pack_padded_sequence(torch.zeros(4, 2, F), torch.tensor([3, 0])))
error("len_mismatch", lambda: rnn_utils.pack_padded_sequence(torch.zeros(4, 2, F), torch.tensor([3, 2, 1])))
error("total_length", lambda: rnn_utils.pad_packed_sequence(packed, total_length=3))
error("empty", lambda: rnn_utils.pad_sequence([]))

# ---------------------------------------------------------------- RNN layers on packed input
I, H, T = 3, 4, 5
RNN_LENS = [5, 2, 4]
rnn_cases = []
for mode, cls in (("RNN", nn.RNN), ("LSTM", nn.LSTM), ("GRU", nn.GRU)):
    for layers, bidir, h0_given, sort in ((2, True, True, False), (1, False, False, True)):
        name = f"{mode.lower()}_l{layers}_bi{int(bidir)}_h0{int(h0_given)}_sorted{int(sort)}"
        rnn_cases.append((name, mode, layers, bidir, h0_given, sort))
        m = cls(I, H, num_layers=layers, bidirectional=bidir)
        set_params(m)
        lens = sorted(RNN_LENS, reverse=True) if sort else RNN_LENS
        B = len(lens)
        x = inp((T, B, I), 1.0)
        D = 2 if bidir else 1
        h0 = inp((D * layers, B, H), 2.0)
        c0 = inp((D * layers, B, H), 3.0)
        pk = rnn_utils.pack_padded_sequence(x, torch.tensor(lens), enforce_sorted=sort)
        if mode == "LSTM":
            out, (hn, cn) = m(pk, (h0, c0)) if h0_given else m(pk)
        else:
            out, hn = m(pk, h0) if h0_given else m(pk)
            cn = None
        results = [("data", out.data, 10.0), ("h_n", hn, 11.0), ("c_n", cn, 12.0)]
        loss = 0
        for rname, t, seed in results:
            if t is not None:
                add(f"{name}/{rname}", t)
                loss = loss + (t * gw(t.shape, seed)).sum()
        params = list(m.named_parameters())
        inputs = [("x", x)] + ([("h0", h0)] + ([("c0", c0)] if mode == "LSTM" else []) if h0_given else [])
        grads = torch.autograd.grad(loss, [p for _, p in params] + [t for _, t in inputs])
        for (n, _), g in zip(params + inputs, grads):
            add(f"{name}/grad/{n}", g)

# ---------------------------------------------------------------- weight_norm
for tag, dim in (("dim0", 0), ("dim1", 1), ("none", None)):
    lin = nn.Linear(4, 3)
    set_params(lin)
    nn.utils.weight_norm(lin, dim=dim)
    add(f"weight_norm/{tag}/weight_g", lin.weight_g)
    x = inp((2, 4), 1.0)
    y = lin(x)
    add(f"weight_norm/{tag}/y", y)
    loss = (y * gw(y.shape, 5.0)).sum()
    names = ["weight_g", "weight_v", "bias"]
    grads = torch.autograd.grad(loss, [getattr(lin, n) for n in names] + [x])
    for n, g in zip(names + ["x"], grads):
        add(f"weight_norm/{tag}/grad/{n}", g)
    nn.utils.remove_weight_norm(lin)
    add(f"weight_norm/{tag}/removed_weight", lin.weight)

lin = nn.Linear(4, 3)
nn.utils.weight_norm(lin)
error("weight_norm_twice", lambda: nn.utils.weight_norm(lin))
error("remove_weight_norm_missing", lambda: nn.utils.remove_weight_norm(nn.Linear(4, 3)))

# ---------------------------------------------------------------- spectral_norm
for tag, n_iter, dim in (("default", 1, None), ("dim1_iter2", 2, 1)):
    lin = nn.Linear(4, 3)
    set_params(lin)
    nn.utils.spectral_norm(lin, n_power_iterations=n_iter, dim=dim)
    with torch.no_grad():  # u and v start random: set them (unnormalized) in both
        lin.weight_u.copy_(formula(lin.weight_u.shape, 0.61, 5.0))
        lin.weight_v.copy_(formula(lin.weight_v.shape, 0.61, 6.0))
    x1, x2 = inp((2, 4), 1.0), inp((2, 4), 2.0)
    lin(x1)
    y = lin(x2)
    add(f"spectral_norm/{tag}/u", lin.weight_u)
    add(f"spectral_norm/{tag}/v", lin.weight_v)
    add(f"spectral_norm/{tag}/y", y)
    names = ["weight_orig", "bias"]
    grads = torch.autograd.grad((y * gw(y.shape, 5.0)).sum(), [getattr(lin, n) for n in names] + [x2])
    for n, g in zip(names + ["x"], grads):
        add(f"spectral_norm/{tag}/grad/{n}", g)
    lin.eval()
    add(f"spectral_norm/{tag}/y_eval", lin(x1))
    add(f"spectral_norm/{tag}/u_eval", lin.weight_u)
    nn.utils.remove_spectral_norm(lin)
    add(f"spectral_norm/{tag}/removed_weight", lin.weight)

lin = nn.Linear(4, 3)
nn.utils.spectral_norm(lin)
error("spectral_norm_twice", lambda: nn.utils.spectral_norm(lin))
error("spectral_norm_iterations", lambda: nn.utils.spectral_norm(nn.Linear(4, 3), n_power_iterations=0))
error("remove_spectral_norm_missing", lambda: nn.utils.remove_spectral_norm(nn.Linear(4, 3)))


# ---------------------------------------------------------------- any parameter's name
# weight_norm on an LSTM's weight_hh_l0 (dim 0) and spectral_norm on its weight_ih_l0 (2
# power iterations); both on a module whose parameters are called scale and shift.
class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.empty(3, 4))
        self.shift = nn.Parameter(torch.empty(3))

    def forward(self, x):
        return x @ self.scale.t() + self.shift


def lstm_outputs(m, x):
    out, (h, c) = m(x)
    return [out, h, c]


ANY_NAME_CASES = [("lstm", "weight_hh_l0", 0), ("scaled", "scale", None), ("scaled", "shift", 0)]
for kind, pname, dim in ANY_NAME_CASES:
    for fn in ("weight_norm", "spectral_norm"):
        pre = f"{fn}_any/{kind}/{pname}"
        m = nn.LSTM(I, H) if kind == "lstm" else Scaled()
        set_params(m)
        x = inp((T, 2, I), 1.0) if kind == "lstm" else inp((2, 4), 1.0)
        run = lstm_outputs if kind == "lstm" else (lambda m, x: [m(x)])
        if fn == "weight_norm":
            nn.utils.weight_norm(m, pname, dim=dim)
            add(f"{pre}/{pname}_g", getattr(m, pname + "_g"))
        else:
            nn.utils.spectral_norm(m, pname, n_power_iterations=2, dim=dim or 0)
            with torch.no_grad():
                getattr(m, pname + "_u").copy_(formula(getattr(m, pname + "_u").shape, 0.61, 5.0))
                getattr(m, pname + "_v").copy_(formula(getattr(m, pname + "_v").shape, 0.61, 6.0))
            run(m, inp(x.shape, 2.0))  # a first training call moves u and v
        outs = run(m, x)
        loss = sum((o * gw(o.shape, 5.0 + k)).sum() for k, o in enumerate(outs))
        for k, o in enumerate(outs):
            add(f"{pre}/y{k}", o)
        names = [n for n, _ in m.named_parameters()]
        grads = torch.autograd.grad(loss, [getattr(m, n) for n in names] + [x])
        for n, g in zip(names + ["x"], grads):
            add(f"{pre}/grad/{n}", g)
        if fn == "spectral_norm":
            add(f"{pre}/u", getattr(m, pname + "_u"))
            add(f"{pre}/v", getattr(m, pname + "_v"))
            m.eval()
            for k, o in enumerate(run(m, x)):
                add(f"{pre}/y_eval{k}", o)
            nn.utils.remove_spectral_norm(m, pname)
        else:
            nn.utils.remove_weight_norm(m, pname)
        add(f"{pre}/removed", getattr(m, pname))

error("weight_norm_no_attribute", lambda: nn.utils.weight_norm(nn.Linear(4, 3), "foo"))
error("weight_norm_buffer", lambda: nn.utils.weight_norm(nn.BatchNorm1d(3), "running_mean"))
error("spectral_norm_no_parameter", lambda: nn.utils.spectral_norm(nn.Linear(4, 3), "foo"))
error("spectral_norm_buffer", lambda: nn.utils.spectral_norm(nn.BatchNorm1d(3), "running_mean"))
error("remove_weight_norm_other_name",
      lambda: nn.utils.remove_weight_norm(nn.utils.weight_norm(nn.Linear(4, 3)), "bias"))
error("remove_spectral_norm_other_name",
      lambda: nn.utils.remove_spectral_norm(nn.utils.spectral_norm(nn.Linear(4, 3)), "bias"))


# ---------------------------------------------------------------- write
def cstr(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


b = lambda v: "true" if v else "false"  # noqa: E731
lines = ["// Generated by tests/cpp/nn_utils_refs.py with torch " + torch.__version__ + "; do not edit.",
         "// PyTorch's results for tests/cpp/test_nn_utils.cpp (see the script for the formulas).",
         "#pragma once", "", "#include <cstdint>", "#include <map>", "#include <string>", "#include <vector>", "",
         "namespace ember::nn_utils_refs {", "",
         f"inline constexpr int64_t kF = {F}, kI = {I}, kH = {H}, kT = {T};",
         f"inline const std::vector<int64_t> kLens = {{{', '.join(map(str, LENS))}}};",
         f"inline const std::vector<int64_t> kRnnLens = {{{', '.join(map(str, RNN_LENS))}}};", "",
         "// name, mode, num_layers, bidirectional, with h0 (and c0), lengths sorted (enforce_sorted)",
         "struct RnnCase {", "  const char* name;", "  const char* mode;", "  int64_t num_layers;",
         "  bool bidirectional;", "  bool h0;", "  bool sorted;", "};", "",
         "inline const std::vector<RnnCase> kRnnCases = {"]
for c in rnn_cases:
    lines.append(f'    {{"{c[0]}", "{c[1]}", {c[2]}, {b(c[3])}, {b(c[4])}, {b(c[5])}}},')
lines += ["};", ""] + value_table(refs)
lines += ["// torch's \"ErrorType: message\" for each error case",
          "inline const std::map<std::string, std::string>& errors() {",
          "  static const std::map<std::string, std::string> m = {"]
for k, msg in errors.items():
    lines.append(f"      {{{cstr(k)}, {cstr(msg)}}},")
lines += ["  };", "  return m;", "}", "", "}  // namespace ember::nn_utils_refs", ""]
with open(OUT, "w") as f:
    f.write("\n".join(lines))
print(f"wrote {OUT}: {len(refs)} tensors, {len(errors)} errors")
