"""Recurrent layers (torch.nn.modules.rnn): RNN, LSTM, GRU and their cells.

A layer runs each (layer, direction) as: one matmul projecting the whole sequence
(x W_ih^T + b), then a custom autograd Function that steps through time with only
h W_hh^T and the gate pointwise ops per step. Its backward is hand-written
backpropagation through time, with one matmul at the end for grad W_hh. Padded input is
run as a packed sequence whose batch sizes are all equal."""
import math
import numbers
import warnings

from ... import _C
from ...autograd.function import Function
from .. import functional as F
from .. import init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


def _steps(batch_sizes, reverse):
    """(row offset, batch size) of each time step of packed data, in the order run."""
    out, off = [], 0
    for bs in batch_sizes:
        out.append((off, bs))
        off += bs
    return out[::-1] if reverse else out


def _resize(state, n, source):
    """state cut to its first n rows, or extended by rows len(state):n of source."""
    cur = state.size(0)
    if n < cur:
        return state[:n]
    if n > cur:
        return _C.cat([state, source[cur:n]])
    return state


def _recurrence_graph(mode, steps, reverse, H, xw, h0, c0, w_hh, b_hh, w_hr):
    """_Recurrence's forward with differentiable ops (the cells' formulas), for a backward
    that must itself be differentiable (create_graph). Returns [output, h_n(, c_n)]."""
    lstm = mode == "LSTM"
    h, c = h0, c0
    done = []  # (first row, h, c) of rows that stopped running, as the forward writes them to h_n
    outs = []
    for off, bs in steps:
        cur = h.size(0)
        if bs < cur:
            done.append((bs, h[bs:], c[bs:] if lstm else None))
            h = h[:bs]
            if lstm:
                c = c[:bs]
        elif bs > cur:
            h = _resize(h, bs, h0)
            if lstm:
                c = _resize(c, bs, c0)
        x = xw[off:off + bs]
        if lstm:
            g = _C.addmm(x, h, w_hh.t())
            i, f, gg, o = g.chunk(4, 1)
            c = _C.sigmoid(f) * c + _C.sigmoid(i) * _C.tanh(gg)
            h = _C.sigmoid(o) * _C.tanh(c)
            if w_hr is not None:
                h = _C.mm(h, w_hr.t())
        elif mode == "GRU":
            gh = _C.mm(h, w_hh.t()) if b_hh is None else _C.addmm(b_hh, h, w_hh.t())
            r = _C.sigmoid(x[:, :H] + gh[:, :H])
            z = _C.sigmoid(x[:, H:2 * H] + gh[:, H:2 * H])
            n = _C.tanh(x[:, 2 * H:] + r * gh[:, 2 * H:])
            h = n + z * (h - n)
        else:
            pre = _C.addmm(x, h, w_hh.t())
            h = _C.tanh(pre) if mode == "RNN_TANH" else _C.relu(pre)
        outs.append(h)
    # h_n: the last state run covers the first rows; the rows after it come from where they
    # stopped, the latest write first (the reverse direction's first step drops rows of h0
    # that its last step covers again).
    hs, cs, covered = [h], [c], h.size(0)
    for start, hd, cd in reversed(done):
        if start == covered:
            hs.append(hd)
            cs.append(cd)
            covered += hd.size(0)
    res = [_C.cat(outs[::-1] if reverse else outs), _C.cat(hs) if len(hs) > 1 else h]
    if lstm:
        res.append(_C.cat(cs) if len(cs) > 1 else c)
    return res


class _Recurrence(Function):
    """One direction of one layer over precomputed input projections xw (N, G*H).

    mode: 'LSTM', 'GRU', 'RNN_TANH' or 'RNN_RELU'. LSTM and RNN have both biases folded
    into xw (b_hh is None); GRU keeps b_hh here since r multiplies h W_hn^T + b_hn. An LSTM
    with projections (w_hr of shape (P, H)) carries h = (o * tanh(c)) W_hr^T of size P.
    Returns (output (N, H or P), h_n, c_n) with c_n only for LSTM.

    Its backward is hand-written backpropagation through time over the per-step values the
    forward saved. When the backward itself must be differentiable (create_graph), it instead
    reruns the forward with differentiable ops and differentiates that, so that higher-order
    gradients are right; the saved inputs connect it to the forward's graph."""

    _N_INPUTS = 6  # w_hh, w_hr, xw, h0, c0, b_hh lead the saved tensors; the steps' values follow

    @staticmethod
    def forward(ctx, mode, batch_sizes, reverse, xw, h0, c0, w_hh, b_hh, w_hr=None):
        steps = _steps(batch_sizes, reverse)
        H = w_hh.size(0) // _GATES[mode]
        whh_t = w_hh.t().contiguous()  # row-major (H or P, G*H): the faster matmul layout
        whr_t = w_hr.t().contiguous() if w_hr is not None else None
        lstm = mode == "LSTM"
        h, c = h0, c0
        hn = _C.empty_like(h0)
        cn = _C.empty_like(c0) if lstm else None
        outs, saved = [], []
        for off, bs in steps:
            cur = h.size(0)
            if bs < cur:  # forward direction: sequences that ended keep their last state
                hn[bs:cur] = h[bs:]
                h = h[:bs]
                if lstm:
                    cn[bs:cur] = c[bs:]
                    c = c[:bs]
            elif bs > cur:  # reverse direction: sequences start with their initial state
                h = _resize(h, bs, h0)
                if lstm:
                    c = _resize(c, bs, c0)
            x = xw[off:off + bs]
            h_prev = h
            if lstm:
                g = _C.addmm(x, h, whh_t)
                s = _C.sigmoid(g)
                t = _C.tanh(g[:, 2 * H:3 * H])
                c_prev = c
                c = _C.addcmul(s[:, H:2 * H] * c, s[:, :H], t)
                tc = _C.tanh(c)
                h = s[:, 3 * H:] * tc
                m = None
                if whr_t is not None:
                    m, h = h, _C.mm(h, whr_t)
                saved += (h_prev, s, t, c_prev, tc, m)
            elif mode == "GRU":
                gh = _C.mm(h, whh_t) if b_hh is None else _C.addmm(b_hh, h, whh_t)
                rz = _C.sigmoid(x[:, :2 * H] + gh[:, :2 * H])
                r, z = rz[:, :H], rz[:, H:]
                hh = gh[:, 2 * H:]
                n = _C.tanh(_C.addcmul(x[:, 2 * H:], r, hh))
                h = _C.addcmul(n, z, h - n)
                saved += (h_prev, rz, n, hh)
            else:
                pre = _C.addmm(x, h, whh_t)
                h = _C.tanh(pre) if mode == "RNN_TANH" else _C.relu(pre)
                saved += (h_prev, h)
            outs.append(h)
        hn[:h.size(0)] = h
        if lstm:
            cn[:c.size(0)] = c
        if reverse:
            outs = outs[::-1]
        ctx.mode, ctx.steps, ctx.H = mode, steps, H
        ctx.reverse = reverse
        # Saved through the context (not as attributes), so that a backward pass that does not
        # retain the graph frees them and one that does can run again.
        ctx.save_for_backward(w_hh, w_hr, xw, h0, c0, b_hh, *saved)
        out = _C.cat(outs) if outs else xw.new_zeros((0, h0.size(1)))
        return (out, hn, cn) if lstm else (out, hn)

    @staticmethod
    def backward(ctx, dout, dhn, dcn=None):
        if _C._is_grad_enabled():
            return _Recurrence._differentiable_backward(ctx, dout, dhn, dcn)
        all_saved = ctx.saved_tensors
        w_hh, w_hr = all_saved[0], all_saved[1]
        has_b_hh = all_saved[5] is not None
        mode, steps, H = ctx.mode, ctx.steps, ctx.H
        lstm = mode == "LSTM"
        k = {"LSTM": 6, "GRU": 4}.get(mode, 2)
        flat = all_saved[_Recurrence._N_INPUTS:]
        saved = [flat[j:j + k] for j in range(0, len(flat), k)]
        dh0 = _C.empty_like(dhn)
        dc0 = _C.empty_like(dcn) if lstm else None
        # State gradients start at the last step run; it has batch_sizes of that step.
        dh, dc = dhn[:steps[-1][1]] if steps else dhn, None
        if lstm:
            dc = dcn[:dh.size(0)]
        dgs, dxs, hprevs, dhs, ms = [], [], [], [], []
        for (off, bs), sv in zip(reversed(steps), reversed(saved)):
            cur = dh.size(0)
            if bs > cur:  # sequences whose last step (in run order) is here
                dh = _resize(dh, bs, dhn)
                if lstm:
                    dc = _resize(dc, bs, dcn)
            elif bs < cur:  # rows that began here: their gradient is that of the initial state
                dh0[bs:cur] = dh[bs:]
                dh = dh[:bs]
                if lstm:
                    dc0[bs:cur] = dc[bs:]
                    dc = dc[:bs]
            dh = dh + dout[off:off + bs]
            if lstm:
                h_prev, s, t, c_prev, tc, m = sv
                i, f, o = s[:, :H], s[:, H:2 * H], s[:, 3 * H:]
                if w_hr is not None:  # through the projection: dm = dh W_hr
                    dhs.append(dh)
                    ms.append(m)
                    dh = _C.mm(dh, w_hr)
                dc = dc + dh * o * (1 - tc * tc)
                ds = _C.cat([dc * t, dc * c_prev, dh * tc], 1)  # d i, d f, d o
                sio = _C.cat([i, f, o], 1)
                ds = ds * sio * (1 - sio)
                dt = dc * i * (1 - t * t)
                dg = _C.cat([ds[:, :2 * H], dt, ds[:, 2 * H:]], 1)
                dc = dc * f
                dh = _C.mm(dg, w_hh)
                dx = dg
            elif mode == "GRU":
                h_prev, rz, n, hh = sv
                r, z = rz[:, :H], rz[:, H:]
                dnp = dh * (1 - z) * (1 - n * n)
                drz = _C.cat([dnp * hh, dh * (h_prev - n)], 1) * rz * (1 - rz)
                dx = _C.cat([drz, dnp], 1)
                dg = _C.cat([drz, dnp * r], 1)
                dh = _C.addmm(dh * z, dg, w_hh)
            else:
                h_prev, h = sv
                dg = dh * (1 - h * h) if mode == "RNN_TANH" else dh * (h > 0).to(h.dtype)
                dh = _C.mm(dg, w_hh)
                dx = dg
            dgs.append(dg)
            dxs.append(dx)
            hprevs.append(h_prev)
        dh0[:dh.size(0)] = dh
        if lstm:
            dc0[:dc.size(0)] = dc
        # dxs ran backwards through the run order; dxw goes in the order of the packed rows.
        dxw = _C.cat(dxs) if ctx.reverse else _C.cat(dxs[::-1])
        dg_all, hp_all = _C.cat(dgs), _C.cat(hprevs)
        dw_hh = _C.mm(dg_all.t(), hp_all)
        db_hh = dg_all.sum(0) if has_b_hh else None
        dw_hr = _C.mm(_C.cat(dhs).t(), _C.cat(ms)) if w_hr is not None else None
        return None, None, None, dxw, dh0, dc0, dw_hh, db_hh, dw_hr

    @staticmethod
    def _differentiable_backward(ctx, dout, dhn, dcn):
        """The backward as a graph (create_graph): reruns the forward with differentiable ops
        on the saved inputs and differentiates it with create_graph, so that the gradients
        returned are differentiable in the forward's inputs and in dout, dhn, dcn."""
        from ...autograd import grad as autograd_grad
        w_hh, w_hr, xw, h0, c0, b_hh = ctx.saved_tensors[:_Recurrence._N_INPUTS]
        # Forward argument order after (mode, batch_sizes, reverse).
        args = [xw, h0, c0, w_hh, b_hh, w_hr]
        wanted = [i for i, a in enumerate(args) if a is not None and a.requires_grad]
        # Each input enters through an alias of its own, so that the gradients captured are
        # those of this rerun alone, whatever else the inputs feed.
        aliased = list(args)
        for i in wanted:
            aliased[i] = args[i].view_as(args[i])
        res = _recurrence_graph(ctx.mode, ctx.steps, ctx.reverse, ctx.H, *aliased)
        grads_out = [dout, dhn, dcn][:len(res)]
        roots = [(r, g) for r, g in zip(res, grads_out) if r.requires_grad]
        grads = [None] * len(args)
        if wanted and roots:
            got = autograd_grad([r for r, _ in roots], [aliased[i] for i in wanted], [g for _, g in roots],
                                create_graph=True, allow_unused=True)
            for i, g in zip(wanted, got):
                grads[i] = g
        return (None, None, None, *grads)


_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class RNNBase(Module):
    """The parameters, checks and layer loop shared by RNN, LSTM and GRU."""

    __constants__ = ["mode", "input_size", "hidden_size", "num_layers", "bias", "batch_first",
                     "dropout", "bidirectional", "proj_size"]

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0., bidirectional=False, proj_size=0, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        gate_size = _GATES[mode] * hidden_size
        num_directions = 2 if bidirectional else 1
        real_hidden_size = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input_size = input_size if layer == 0 else real_hidden_size * num_directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_input_size)),
                          ("weight_hh", (gate_size, real_hidden_size))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = []
                for base, shape in shapes:
                    name = f"{base}_l{layer}{suffix}"
                    setattr(self, name, Parameter(_C.empty(shape, **factory_kwargs)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self):
        """No-op (cuDNN's flat weight buffer has no counterpart here)."""

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def check_input(self, input, batch_sizes):
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.size(-1)}")

    def get_expected_hidden_size(self, input, batch_sizes):
        if batch_sizes is not None:
            mini_batch = int(batch_sizes[0])
        else:
            mini_batch = input.size(0) if self.batch_first else input.size(1)
        num_directions = 2 if self.bidirectional else 1
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * num_directions, mini_batch, size)

    def get_expected_cell_size(self, input, batch_sizes):
        expected = self.get_expected_hidden_size(input, batch_sizes)
        return expected[:2] + (self.hidden_size,)

    def check_hidden_size(self, hx, expected_hidden_size, msg="Expected hidden size {}, got {}"):
        if tuple(hx.size()) != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input, hidden, batch_sizes):
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if self.proj_size != 0:
            s += ", proj_size={proj_size}"
        if self.num_layers != 1:
            s += ", num_layers={num_layers}"
        if self.bias is not True:
            s += ", bias={bias}"
        if self.batch_first is not False:
            s += ", batch_first={batch_first}"
        if self.dropout != 0:
            s += ", dropout={dropout}"
        if self.bidirectional is not False:
            s += ", bidirectional={bidirectional}"
        return s.format(**self.__dict__)

    def _run(self, data, batch_sizes, h0, c0):
        """The layers over packed data (N, input_size): (output (N, D*H), h_n, c_n or None)."""
        lstm = self.mode == "LSTM"
        D = 2 if self.bidirectional else 1
        hns, cns = [], []
        x = data
        for layer in range(self.num_layers):
            if layer > 0 and self.dropout > 0 and self.training:
                x = F.dropout(x, self.dropout, True)
            outs = []
            for d in range(D):
                idx = layer * D + d
                names = self._all_weights[idx]
                w_ih, w_hh = getattr(self, names[0]), getattr(self, names[1])
                w_hr = getattr(self, names[-1]) if self.proj_size > 0 else None
                b_hh = None
                if self.bias:
                    b_ih, b_hh = getattr(self, names[2]), getattr(self, names[3])
                    if self.mode != "GRU":  # both biases go into the input projection
                        b_ih, b_hh = b_ih + b_hh, None
                    xw = _C.addmm(b_ih, x, w_ih.t())
                else:
                    xw = _C.mm(x, w_ih.t())
                res = _Recurrence.apply(self.mode, batch_sizes, d == 1, xw, h0[idx],
                                        c0[idx] if lstm else None, w_hh, b_hh, w_hr)
                outs.append(res[0])
                hns.append(res[1])
                if lstm:
                    cns.append(res[2])
            x = outs[0] if D == 1 else _C.cat(outs, 1)
        return x, _C.stack(hns), (_C.stack(cns) if lstm else None)

    def _forward(self, input, hx):
        """Shared forward; hx is None, a tensor, or (h, c) for LSTM."""
        lstm = self.mode == "LSTM"
        orig_input = input
        D = 2 if self.bidirectional else 1
        if isinstance(orig_input, PackedSequence):
            input, batch_sizes_t, sorted_indices, unsorted_indices = orig_input
            batch_sizes = [int(b) for b in batch_sizes_t.tolist()]
            max_batch_size = batch_sizes[0]
            is_batched = True
        else:
            batch_sizes_t = sorted_indices = unsorted_indices = None
            is_batched = input.dim() == 3
            batch_dim = 0 if self.batch_first else 1
            if not is_batched:
                input = input.unsqueeze(batch_dim)
            max_batch_size = input.size(0) if self.batch_first else input.size(1)
        if hx is None:
            def zeros(size):
                return _C.zeros((self.num_layers * D, max_batch_size, size), dtype=input.dtype, device=input.device)
            h_zeros = zeros(self.proj_size if self.proj_size > 0 else self.hidden_size)
            hx = (h_zeros, zeros(self.hidden_size)) if lstm else h_zeros
        else:
            if batch_sizes_t is None:
                if lstm:
                    want = 3 if is_batched else 2
                    if hx[0].dim() != want or hx[1].dim() != want:
                        kind = "batched 3-D" if is_batched else "unbatched 2-D"
                        raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but got "
                                           f"({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
                    if not is_batched:
                        hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
                else:
                    if is_batched and hx.dim() != 3:
                        raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {hx.dim()}-D tensor")
                    if not is_batched:
                        if hx.dim() != 2:
                            raise RuntimeError(
                                f"For unbatched 2-D input, hx should also be 2-D but got {hx.dim()}-D tensor")
                        hx = hx.unsqueeze(1)
            if lstm:
                hx = (self.permute_hidden(hx[0], sorted_indices), self.permute_hidden(hx[1], sorted_indices))
            else:
                hx = self.permute_hidden(hx, sorted_indices)
        if lstm:
            self.check_input(input, batch_sizes_t)
            self.check_hidden_size(hx[0], self.get_expected_hidden_size(input, batch_sizes_t),
                                   "Expected hidden[0] size {}, got {}")
            self.check_hidden_size(hx[1], self.get_expected_cell_size(input, batch_sizes_t),
                                   "Expected hidden[1] size {}, got {}")
        else:
            self.check_forward_args(input, hx, batch_sizes_t)
        h0, c0 = hx if lstm else (hx, None)

        if batch_sizes_t is not None:
            out, hn, cn = self._run(input, batch_sizes, h0, c0)
            output = PackedSequence(out, batch_sizes_t, sorted_indices, unsorted_indices)
        else:
            x = input.transpose(0, 1) if self.batch_first else input
            T, B = x.size(0), x.size(1)
            out, hn, cn = self._run(x.reshape(T * B, x.size(2)), [B] * T, h0, c0)
            output = out.reshape(T, B, out.size(1))
            if self.batch_first:
                output = output.transpose(0, 1)
            if not is_batched:
                output = output.squeeze(batch_dim)
                hn = hn.squeeze(1)
                if lstm:
                    cn = cn.squeeze(1)
        hn = self.permute_hidden(hn, unsorted_indices)
        if lstm:
            return output, (hn, self.permute_hidden(cn, unsorted_indices))
        return output, hn


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif self.nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'")
        super().__init__(mode, *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx)


class LSTM(RNNBase):
    """Long short-term memory; gates i, f, g, o in the rows of W_ih and W_hh."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx)


class GRU(RNNBase):
    """Gated recurrent unit; gates r, z, n in the rows of W_ih and W_hh."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx)


class RNNCellBase(Module):
    __constants__ = ["input_size", "hidden_size", "bias"]

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_C.empty((num_chunks * hidden_size, input_size), **factory_kwargs))
        self.weight_hh = Parameter(_C.empty((num_chunks * hidden_size, hidden_size), **factory_kwargs))
        if bias:
            self.bias_ih = Parameter(_C.empty(num_chunks * hidden_size, **factory_kwargs))
            self.bias_hh = Parameter(_C.empty(num_chunks * hidden_size, **factory_kwargs))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = "{input_size}, {hidden_size}"
        if "bias" in self.__dict__ and self.bias is not True:
            s += ", bias={bias}"
        if "nonlinearity" in self.__dict__ and self.nonlinearity != "tanh":
            s += ", nonlinearity={nonlinearity}"
        return s.format(**self.__dict__)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _batched(self, input):
        if input.dim() not in (1, 2):
            raise AssertionError(f"{type(self).__name__}: Expected input to be 1-D or 2-D but received "
                                 f"{input.dim()}-D tensor")
        return input.dim() == 2

    def _zeros(self, input):
        return _C.zeros((input.size(0), self.hidden_size), dtype=input.dtype, device=input.device)


class RNNCell(RNNCellBase):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        is_batched = self._batched(input)
        if not is_batched:
            input = input.unsqueeze(0)
        hx = self._zeros(input) if hx is None else (hx if is_batched else hx.unsqueeze(0))
        pre = F.linear(input, self.weight_ih, self.bias_ih) + F.linear(hx, self.weight_hh, self.bias_hh)
        if self.nonlinearity == "tanh":
            ret = _C.tanh(pre)
        elif self.nonlinearity == "relu":
            ret = _C.relu(pre)
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return ret if is_batched else ret.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: returns (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        is_batched = self._batched(input)
        if not is_batched:
            input = input.unsqueeze(0)
        if hx is None:
            zeros = self._zeros(input)
            hx = (zeros, zeros)
        elif not is_batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        gates = F.linear(input, self.weight_ih, self.bias_ih) + F.linear(hx[0], self.weight_hh, self.bias_hh)
        i, f, g, o = gates.chunk(4, 1)
        c = _C.sigmoid(f) * hx[1] + _C.sigmoid(i) * _C.tanh(g)
        h = _C.sigmoid(o) * _C.tanh(c)
        return (h, c) if is_batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: returns h'."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        is_batched = self._batched(input)
        if not is_batched:
            input = input.unsqueeze(0)
        hx = self._zeros(input) if hx is None else (hx if is_batched else hx.unsqueeze(0))
        xr, xz, xn = F.linear(input, self.weight_ih, self.bias_ih).chunk(3, 1)
        hr, hz, hn = F.linear(hx, self.weight_hh, self.bias_hh).chunk(3, 1)
        r = _C.sigmoid(xr + hr)
        z = _C.sigmoid(xz + hz)
        n = _C.tanh(xn + r * hn)
        h = n + z * (hx - n)
        return h if is_batched else h.squeeze(0)
