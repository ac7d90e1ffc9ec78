"""What the generators of PyTorch reference headers share (nn_rnn_refs.py, nn_utils_refs.py):
the deterministic formulas that tests/cpp/torch_refs.h rebuilds in C++, and the writer of the
flat value table the C++ tests read.

A module's k-th parameter (named_parameters order) is 0.5 sin(0.7 i + 0.37 k + 0.1) over its
flat index i; inputs are sin(0.61 i + seed); losses weight results by cos(0.29 i + seed)."""
import math

import torch


def formula(shape, a, b, scale=1.0, fn=torch.sin):
    n = math.prod(shape)
    return (fn(torch.arange(n, dtype=torch.float64) * a + b) * scale).reshape(shape)


def set_params(m):
    with torch.no_grad():
        for k, (_, p) in enumerate(m.named_parameters()):
            p.copy_(formula(p.shape, 0.7, 0.37 * k + 0.1, 0.5))


def inp(shape, seed):
    return formula(shape, 0.61, seed).requires_grad_()


def gw(shape, seed):
    return formula(shape, 0.29, seed, fn=torch.cos)


def num(v):
    """A C++ double literal (kInf is defined by the header)."""
    v = float(v)
    if math.isinf(v):
        return "-kInf" if v < 0 else "kInf"
    return repr(v)


def value_table(refs):
    """C++ lines: every tensor of refs (name -> tensor) in one flat kValues array (a constant
    array compiles fast; a map of vectors does not) and kRefEntries naming each one's slice."""
    flat, entries = [], []
    for k, t in refs.items():
        entries.append((k, len(flat), list(t.shape)))
        flat.extend(t.reshape(-1).tolist())
    lines = ["inline constexpr double kValues[] = {"]
    for i in range(0, len(flat), 6):
        lines.append("    " + ", ".join(num(v) for v in flat[i:i + 6]) + ",")
    lines += ["};", "", "// name, offset into kValues, shape (up to 4 dims; -1 ends it)",
              "struct RefEntry {", "  const char* name;", "  int64_t offset;", "  int64_t shape[5];", "};", "",
              "inline constexpr RefEntry kRefEntries[] = {"]
    for k, off, shape in entries:
        lines.append(f'    {{"{k}", {off}, {{{", ".join(str(d) for d in shape + [-1])}}}}},')
    return lines + ["};", ""]
