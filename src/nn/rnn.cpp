// RNN, LSTM, GRU and their cells (include/ember/nn/rnn.h).
#include "ember/nn/rnn.h"

#include <cmath>

#include "ember/autograd.h"
#include "ember/nn/init.h"
#include "ember/ops.h"
#include "nn/check.h"

namespace ember::nn {

namespace {

int64_t gate_count(const std::string& mode) { return mode == "LSTM" ? 4 : mode == "GRU" ? 3 : 1; }

// "(2, 3, 4)": Python's tuple, as PyTorch's hidden-size messages print the expected size.
std::string tuple3(int64_t a, int64_t b, int64_t c) { return detail::py_tuple(std::vector<int64_t>{a, b, c}); }

}  // namespace

// One (layer, direction)'s weights and its time step, shared by the padded and packed paths.
struct RNNBase::Cell {
  const std::string* mode;
  bool lstm, gru;
  int64_t H;
  Tensor w_ih_t, b_ih, whh_t, b_hh, whr_t;  // b_hh: GRU's only (the others fold it into b_ih)

  // x W_ih^T + b for every step at once.
  Tensor project(const Tensor& x2) const { return b_ih.defined() ? addmm(b_ih, x2, w_ih_t) : mm(x2, w_ih_t); }
  // One step from the projected input xt: updates h (and c).
  void step(const Tensor& xt, Tensor& h, Tensor& c) const {
    if (lstm) {
      const Tensor g = addmm(xt, h, whh_t);
      const Tensor sg = sigmoid(g);
      const Tensor gi = sg.narrow(1, 0, H), gf = sg.narrow(1, H, H), go = sg.narrow(1, 3 * H, H);
      const Tensor gg = tanh(g.narrow(1, 2 * H, H));
      c = addcmul(mul(gf, c), gi, gg);
      h = mul(go, tanh(c));
      if (whr_t.defined()) h = mm(h, whr_t);
    } else if (gru) {
      const Tensor gh = b_hh.defined() ? addmm(b_hh, h, whh_t) : mm(h, whh_t);
      const Tensor rz = sigmoid(add(xt.narrow(1, 0, 2 * H), gh.narrow(1, 0, 2 * H)));
      const Tensor r = rz.narrow(1, 0, H), z = rz.narrow(1, H, H);
      const Tensor n = tanh(addcmul(xt.narrow(1, 2 * H, H), r, gh.narrow(1, 2 * H, H)));
      h = addcmul(n, z, sub(h, n));  // (1 - z) n + z h
    } else {
      const Tensor pre = addmm(xt, h, whh_t);
      h = *mode == "RNN_TANH" ? tanh(pre) : relu(pre);
    }
  }
};

RNNBase::Cell RNNBase::make_cell(int64_t idx) const {
  const size_t first = first_weight_[static_cast<size_t>(idx)];
  const size_t count = weight_names_[static_cast<size_t>(idx)].size();
  const Tensor* w = flat_weights_.data() + first;
  Cell cell{&mode, mode == "LSTM", mode == "GRU", options.hidden_size, {}, {}, {}, {}, {}};
  cell.w_ih_t = w[0].t();
  cell.whh_t = w[1].t();
  if (options.proj_size > 0) cell.whr_t = w[count - 1].t();
  if (options.bias) {
    cell.b_ih = w[2];
    cell.b_hh = w[3];
    if (!cell.gru) {  // both biases go into the input projection (GRU's r multiplies h W_hn^T + b_hn)
      cell.b_ih = add(cell.b_ih, cell.b_hh);
      cell.b_hh = Tensor();
    }
  }
  return cell;
}

// ---------------------------------------------------------------- RNNBase

RNNBase::RNNBase(const std::string& layer, RNNOptions o) : options(std::move(o)) {
  const auto& op = options;
  EMBER_CHECK(op.input_size >= 0 && op.hidden_size > 0, ValueError, layer,
              ": input_size must be non-negative and hidden_size positive, got ", op.input_size, " and ",
              op.hidden_size);
  EMBER_CHECK(op.num_layers > 0, ValueError, layer, ": num_layers must be positive, got ", op.num_layers);
  EMBER_CHECK(op.dropout >= 0 && op.dropout <= 1, ValueError, layer,
              ": dropout should be a number in range [0, 1] representing the probability of an element being "
              "zeroed, got ",
              detail::py_float(op.dropout));
  EMBER_CHECK(layer == "LSTM" || op.proj_size == 0, ValueError,
              layer, ": proj_size argument is only supported for LSTM, not RNN or GRU");
  EMBER_CHECK(op.proj_size >= 0, ValueError, layer,
              ": proj_size should be a positive integer or zero to disable projections, got ", op.proj_size);
  EMBER_CHECK(op.proj_size < op.hidden_size, ValueError, layer, ": proj_size has to be smaller than hidden_size, got ",
              op.proj_size, " and ", op.hidden_size);
  if (layer == "RNN") {
    EMBER_CHECK(op.nonlinearity == "tanh" || op.nonlinearity == "relu", ValueError, layer,
                ": Unknown nonlinearity '", op.nonlinearity, "' (expected 'tanh' or 'relu')");
    mode = op.nonlinearity == "tanh" ? "RNN_TANH" : "RNN_RELU";
  } else {
    EMBER_CHECK(op.nonlinearity == "tanh", ValueError, layer, ": nonlinearity is only an option of RNN, got '",
                op.nonlinearity, "'");
    mode = layer;
  }
  const int64_t gate_size = gate_count(mode) * op.hidden_size;
  const int64_t dirs = op.bidirectional ? 2 : 1;
  const int64_t real_hidden = op.proj_size > 0 ? op.proj_size : op.hidden_size;
  for (int64_t l = 0; l < op.num_layers; ++l) {
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t in = l == 0 ? op.input_size : real_hidden * dirs;
      const std::string suffix = "_l" + std::to_string(l) + (d == 1 ? "_reverse" : "");
      std::vector<std::pair<std::string, std::vector<int64_t>>> shapes = {{"weight_ih", {gate_size, in}},
                                                                          {"weight_hh", {gate_size, real_hidden}}};
      if (op.bias) {
        shapes.push_back({"bias_ih", {gate_size}});
        shapes.push_back({"bias_hh", {gate_size}});
      }
      if (op.proj_size > 0) shapes.push_back({"weight_hr", {op.proj_size, op.hidden_size}});
      std::vector<std::string> names;
      first_weight_.push_back(flat_weights_.size());
      for (auto& [base, shape] : shapes) {
        names.push_back(base + suffix);
        const size_t i = flat_weights_.size();
        flat_weights_.emplace_back();
        bind_tensor(names.back(), [i](Module& m) -> Tensor& { return static_cast<RNNBase&>(m).flat_weights_[i]; });
        register_parameter(names.back(), empty(shape, op.options));
      }
      weight_names_.push_back(std::move(names));
    }
  }
  reset_parameters();
}

void RNNBase::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(options.hidden_size));
  for (Tensor& p : parameters()) init::uniform_(p, -stdv, stdv);
}

std::vector<std::vector<Tensor>> RNNBase::all_weights() const {
  std::vector<std::vector<Tensor>> out;
  for (size_t idx = 0; idx < weight_names_.size(); ++idx) {
    const auto first = flat_weights_.begin() + static_cast<std::ptrdiff_t>(first_weight_[idx]);
    out.emplace_back(first, first + static_cast<std::ptrdiff_t>(weight_names_[idx].size()));
  }
  return out;
}

std::string RNNBase::extra_repr() const {
  const auto& op = options;
  std::string s = std::to_string(op.input_size) + ", " + std::to_string(op.hidden_size);
  if (op.proj_size != 0) s += ", proj_size=" + std::to_string(op.proj_size);
  if (op.num_layers != 1) s += ", num_layers=" + std::to_string(op.num_layers);
  if (!op.bias) s += ", bias=False";
  if (op.batch_first) s += ", batch_first=True";
  if (op.dropout != 0) s += ", dropout=" + detail::py_float(op.dropout);
  if (op.bidirectional) s += ", bidirectional=True";
  return s;
}

Tensor RNNBase::check_state(const Tensor& s, const Tensor& input, bool batched, int64_t batch, int64_t size,
                            const char* what) const {
  const auto& op = options;
  const int64_t layers = op.num_layers * (op.bidirectional ? 2 : 1);
  if (!s.defined()) return zeros({layers, batch, size}, TensorOptions(input.dtype()).device(input.device()));
  const std::string layer = name();
  const int64_t want = batched ? 3 : 2;
  EMBER_CHECK(s.dim() == want, RuntimeError, layer, ": for ", batched ? "batched 3-D" : "unbatched 2-D", " input, ",
              what, " should also be ", want, "-D but got ", s.dim(), "-D tensor of shape ", s.sizes());
  Tensor s3 = batched ? s : s.unsqueeze(1);
  EMBER_CHECK(s3.sizes() == IntArrayRef({layers, batch, size}), RuntimeError, layer, ": Expected ", what, " size ",
              tuple3(layers, batch, size), ", got ", detail::shape_str(s.sizes()),
              batched ? "" : " (unbatched, as (D * num_layers, H))");
  detail::check_same_dtype(*this, s, flat_weights_[0], what);
  return s3;
}

std::tuple<Tensor, Tensor, Tensor> RNNBase::run(const Tensor& input, const Tensor& h0_in, const Tensor& c0_in) {
  const auto& op = options;
  const bool lstm = mode == "LSTM";
  const std::string layer = name();
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, RuntimeError, layer,
              ": expected input of shape (L, N, H_in)", op.batch_first ? " (batch_first: (N, L, H_in))" : "",
              " or unbatched (L, H_in), got shape ", input.sizes());
  EMBER_CHECK(input.size(-1) == op.input_size, RuntimeError, layer,
              ": input.size(-1) must be equal to input_size. Expected ", op.input_size, ", got ", input.size(-1),
              " (input of shape ", input.sizes(), ")");
  EMBER_CHECK(input.is_floating_point(), TypeError, layer, ": expected a floating input, got ", input.dtype());
  const Tensor& w0 = flat_weights_[0];
  detail::check_same_dtype(*this, input, w0);

  const bool batched = input.dim() == 3;
  // Time-major (L, N, H_in).
  Tensor x = !batched ? input.unsqueeze(1) : op.batch_first ? input.transpose(0, 1) : input;
  const int64_t T = x.size(0), B = x.size(1);
  const int64_t dirs = op.bidirectional ? 2 : 1;
  const int64_t H = op.hidden_size, H_out = op.proj_size > 0 ? op.proj_size : H;

  const Tensor h0 = check_state(h0_in, input, batched, B, H_out, lstm ? "hidden[0]" : "hidden");
  const Tensor c0 = lstm ? check_state(c0_in, input, batched, B, H, "hidden[1]") : Tensor();

  Tensors hns, cns;
  for (int64_t l = 0; l < op.num_layers; ++l) {
    if (l > 0 && op.dropout > 0 && is_training()) x = dropout(x, op.dropout, true);
    Tensors dir_outs;
    const Tensor x2 = x.reshape({T * B, x.size(2)});
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t idx = l * dirs + d;
      const Cell cell = make_cell(idx);
      // (T, B, G * H): the whole sequence's input projection, in one matmul.
      const Tensor xw = cell.project(x2).view({T, B, -1});
      Tensor h = h0.select(0, idx), c = lstm ? c0.select(0, idx) : Tensor();
      Tensors outs(static_cast<size_t>(T));
      for (int64_t s = 0; s < T; ++s) {
        const int64_t t = d == 1 ? T - 1 - s : s;
        cell.step(xw.select(0, t), h, c);
        outs[static_cast<size_t>(t)] = h;
      }
      dir_outs.push_back(stack(outs));
      hns.push_back(h);
      if (lstm) cns.push_back(c);
    }
    x = dirs == 1 ? dir_outs[0] : cat(dir_outs, 2);
  }
  Tensor out = x, hn = stack(hns), cn = lstm ? stack(cns) : Tensor();
  if (!batched) {
    out = out.squeeze(1);
    hn = hn.squeeze(1);
    if (lstm) cn = cn.squeeze(1);
  } else if (op.batch_first) {
    out = out.transpose(0, 1);
  }
  return {out, hn, cn};
}

std::tuple<PackedSequence, Tensor, Tensor> RNNBase::run_packed(const PackedSequence& input, const Tensor& h0_in,
                                                               const Tensor& c0_in) {
  const auto& op = options;
  const bool lstm = mode == "LSTM";
  const std::string layer = name();
  const Tensor& data = input.data;
  EMBER_CHECK(data.defined() && input.batch_sizes.defined(), RuntimeError, layer,
              ": the PackedSequence has no data or batch_sizes");
  EMBER_CHECK(data.dim() == 2, RuntimeError, layer, ": expected packed data of shape (sum of lengths, H_in), got shape ",
              data.sizes());
  EMBER_CHECK(data.size(1) == op.input_size, RuntimeError, layer,
              ": input.size(-1) must be equal to input_size. Expected ", op.input_size, ", got ", data.size(1));
  EMBER_CHECK(data.is_floating_point(), TypeError, layer, ": expected a floating input, got ", data.dtype());
  detail::check_same_dtype(*this, data, flat_weights_[0]);
  const Tensor bs_t = input.batch_sizes.to(kInt64).contiguous();
  const std::vector<int64_t> bs(bs_t.data_ptr<int64_t>(), bs_t.data_ptr<int64_t>() + bs_t.numel());
  const int64_t T = static_cast<int64_t>(bs.size()), B = T > 0 ? bs[0] : 0;
  std::vector<int64_t> offsets(bs.size() + 1, 0);
  for (size_t t = 0; t < bs.size(); ++t) offsets[t + 1] = offsets[t] + bs[t];
  EMBER_CHECK(T > 0 && offsets.back() == data.size(0), RuntimeError, layer, ": batch_sizes (summing to ",
              offsets.back(), ") do not match the packed data's ", data.size(0), " rows");
  const int64_t dirs = op.bidirectional ? 2 : 1;
  const int64_t H = op.hidden_size, H_out = op.proj_size > 0 ? op.proj_size : H;
  // The states are given in the original batch order; the steps run in the sorted order.
  auto sorted = [&](Tensor s) { return input.sorted_indices.defined() ? index_select(s, 1, input.sorted_indices) : s; };
  const Tensor h0 = sorted(check_state(h0_in, data, true, B, H_out, lstm ? "hidden[0]" : "hidden"));
  const Tensor c0 = lstm ? sorted(check_state(c0_in, data, true, B, H, "hidden[1]")) : Tensor();

  Tensor x = data;
  Tensors hns, cns;
  for (int64_t l = 0; l < op.num_layers; ++l) {
    if (l > 0 && op.dropout > 0 && is_training()) x = dropout(x, op.dropout, true);
    Tensors dir_outs;
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t idx = l * dirs + d;
      const Cell cell = make_cell(idx);
      const Tensor xw = cell.project(x);  // every step's rows at once
      const Tensor h_init = h0.select(0, idx), c_init = lstm ? c0.select(0, idx) : Tensor();
      Tensors outs(static_cast<size_t>(T));
      Tensor h, c;
      if (d == 0) {
        // Forward: rows only drop out (sequences are sorted longest first); a row's state at
        // its last step is set aside when it drops.
        h = h_init;
        c = c_init;
        Tensors done_h, done_c;
        for (int64_t t = 0; t < T; ++t) {
          const int64_t n = bs[static_cast<size_t>(t)];
          if (n < h.size(0)) {
            done_h.push_back(h.narrow(0, n, h.size(0) - n));
            h = h.narrow(0, 0, n);
            if (lstm) {
              done_c.push_back(c.narrow(0, n, c.size(0) - n));
              c = c.narrow(0, 0, n);
            }
          }
          cell.step(xw.narrow(0, offsets[static_cast<size_t>(t)], n), h, c);
          outs[static_cast<size_t>(t)] = h;
        }
        auto finish = [](Tensor s, Tensors& done) {
          if (done.empty()) return s;
          Tensors parts = {s};
          parts.insert(parts.end(), done.rbegin(), done.rend());
          return cat(parts);
        };
        h = finish(h, done_h);
        if (lstm) c = finish(c, done_c);
      } else {
        // Reverse: from the last step, rows join (from the initial state) as their sequences
        // begin, and every sequence ends at step 0.
        for (int64_t t = T - 1; t >= 0; --t) {
          const int64_t n = bs[static_cast<size_t>(t)];
          const int64_t have = h.defined() ? h.size(0) : 0;
          if (n > have) {
            const Tensor hn = h_init.narrow(0, have, n - have);
            h = have ? cat({h, hn}) : hn;
            if (lstm) {
              const Tensor cn = c_init.narrow(0, have, n - have);
              c = have ? cat({c, cn}) : cn;
            }
          }
          cell.step(xw.narrow(0, offsets[static_cast<size_t>(t)], n), h, c);
          outs[static_cast<size_t>(t)] = h;
        }
      }
      dir_outs.push_back(cat(outs));
      hns.push_back(h);
      if (lstm) cns.push_back(c);
    }
    x = dirs == 1 ? dir_outs[0] : cat(dir_outs, 1);
  }
  // h_n back in the original batch order.
  auto unsorted = [&](Tensor s) {
    return input.unsorted_indices.defined() ? index_select(s, 1, input.unsorted_indices) : s;
  };
  Tensor hn = unsorted(stack(hns)), cn = lstm ? unsorted(stack(cns)) : Tensor();
  return {PackedSequence{x, input.batch_sizes, input.sorted_indices, input.unsorted_indices}, hn, cn};
}

std::tuple<Tensor, Tensor> RNN::forward(const Tensor& input, const Tensor& h0) {
  auto [out, hn, cn] = run(input, h0, Tensor());
  return {out, hn};
}

std::tuple<Tensor, Tensor, Tensor> LSTM::forward(const Tensor& input, const Tensor& h0, const Tensor& c0) {
  EMBER_CHECK(h0.defined() == c0.defined(), RuntimeError, name(),
              ": give both h0 and c0 (the initial hidden and cell states) or neither");
  return run(input, h0, c0);
}

std::tuple<PackedSequence, Tensor> RNN::forward(const PackedSequence& input, const Tensor& h0) {
  auto [out, hn, cn] = run_packed(input, h0, Tensor());
  return {out, hn};
}

std::tuple<PackedSequence, Tensor, Tensor> LSTM::forward(const PackedSequence& input, const Tensor& h0,
                                                         const Tensor& c0) {
  EMBER_CHECK(h0.defined() == c0.defined(), RuntimeError, name(),
              ": give both h0 and c0 (the initial hidden and cell states) or neither");
  return run_packed(input, h0, c0);
}

std::tuple<PackedSequence, Tensor> GRU::forward(const PackedSequence& input, const Tensor& h0) {
  auto [out, hn, cn] = run_packed(input, h0, Tensor());
  return {out, hn};
}

std::tuple<Tensor, Tensor> GRU::forward(const Tensor& input, const Tensor& h0) {
  auto [out, hn, cn] = run(input, h0, Tensor());
  return {out, hn};
}

// ---------------------------------------------------------------- cells

RNNCellBase::RNNCellBase(const std::string& layer, RNNCellOptions o, int64_t num_chunks) : options(std::move(o)) {
  const auto& op = options;
  EMBER_CHECK(op.input_size >= 0 && op.hidden_size > 0, ValueError, layer,
              ": input_size must be non-negative and hidden_size positive, got ", op.input_size, " and ",
              op.hidden_size);
  bind_tensor("weight_ih", &RNNCellBase::weight_ih);
  bind_tensor("weight_hh", &RNNCellBase::weight_hh);
  bind_tensor("bias_ih", &RNNCellBase::bias_ih);
  bind_tensor("bias_hh", &RNNCellBase::bias_hh);
  weight_ih = register_parameter("weight_ih", empty({num_chunks * op.hidden_size, op.input_size}, op.options));
  weight_hh = register_parameter("weight_hh", empty({num_chunks * op.hidden_size, op.hidden_size}, op.options));
  if (op.bias) {
    bias_ih = register_parameter("bias_ih", empty({num_chunks * op.hidden_size}, op.options));
    bias_hh = register_parameter("bias_hh", empty({num_chunks * op.hidden_size}, op.options));
  }
  reset_parameters();
}

void RNNCellBase::reset_parameters() {
  const double stdv = 1.0 / std::sqrt(static_cast<double>(options.hidden_size));
  for (Tensor& p : parameters()) init::uniform_(p, -stdv, stdv);
}

std::string RNNCellBase::extra_repr() const {
  std::string s = std::to_string(options.input_size) + ", " + std::to_string(options.hidden_size);
  if (!options.bias) s += ", bias=False";
  if (options.nonlinearity != "tanh") s += ", nonlinearity=" + options.nonlinearity;
  return s;
}

bool RNNCellBase::check_input(const Tensor& input) const {
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, RuntimeError, name(),
              ": Expected input to be 1-D or 2-D but received ", input.dim(), "-D tensor of shape ", input.sizes());
  EMBER_CHECK(input.size(-1) == options.input_size, RuntimeError, name(),
              ": input has inconsistent input_size: got ", input.size(-1), " expected ", options.input_size,
              " (input of shape ", input.sizes(), ")");
  detail::check_same_dtype(*this, input, weight_ih);
  return input.dim() == 2;
}

void RNNCellBase::check_state(const Tensor& input, const Tensor& hx, const char* what) const {
  const bool ok = input.dim() == 2 ? hx.sizes() == IntArrayRef({input.size(0), options.hidden_size})
                                   : hx.sizes() == IntArrayRef({options.hidden_size});
  EMBER_CHECK(ok, RuntimeError, name(), ": expected ", what, " of shape ",
              input.dim() == 2 ? "[" + std::to_string(input.size(0)) + ", " + std::to_string(options.hidden_size) + "]"
                               : "[" + std::to_string(options.hidden_size) + "]",
              " for input of shape ", input.sizes(), ", got ", hx.sizes());
  detail::check_same_dtype(*this, hx, weight_ih, what);
}

Tensor RNNCellBase::gates_ih(const Tensor& input) const { return linear(input, weight_ih, detail::opt(bias_ih)); }
Tensor RNNCellBase::gates_hh(const Tensor& hx) const { return linear(hx, weight_hh, detail::opt(bias_hh)); }

RNNCell::RNNCell(RNNCellOptions o) : ModuleBase("RNNCell", std::move(o), 1) {
  EMBER_CHECK(options.nonlinearity == "tanh" || options.nonlinearity == "relu", ValueError,
              "RNNCell: Unknown nonlinearity '", options.nonlinearity, "' (expected 'tanh' or 'relu')");
}

Tensor RNNCell::forward(const Tensor& input, const Tensor& hx) {
  const bool batched = check_input(input);
  if (hx.defined()) check_state(input, hx, "hx");
  const Tensor x = batched ? input : input.unsqueeze(0);
  // A zero state still goes through W_hh, so that it gets a (zero) gradient, as in PyTorch.
  const Tensor h0 = hx.defined() ? (batched ? hx : hx.unsqueeze(0))
                                 : zeros({x.size(0), options.hidden_size}, TensorOptions(x.dtype()).device(x.device()));
  const Tensor pre = add(gates_ih(x), gates_hh(h0));
  const Tensor h = options.nonlinearity == "tanh" ? tanh(pre) : relu(pre);
  return batched ? h : h.squeeze(0);
}

LSTMCell::LSTMCell(LSTMCellOptions o) : ModuleBase("LSTMCell", std::move(o), 4) {
  EMBER_CHECK(options.nonlinearity == "tanh", ValueError, "LSTMCell: nonlinearity is only an option of RNNCell");
}

std::tuple<Tensor, Tensor> LSTMCell::forward(const Tensor& input, const Tensor& hx, const Tensor& cx) {
  const bool batched = check_input(input);
  EMBER_CHECK(hx.defined() == cx.defined(), RuntimeError, name(),
              ": give both hx and cx (the hidden and cell states) or neither");
  const int64_t H = options.hidden_size;
  const Tensor x = batched ? input : input.unsqueeze(0);
  Tensor h, c;
  if (hx.defined()) {
    check_state(input, hx, "hx");
    check_state(input, cx, "cx");
    h = batched ? hx : hx.unsqueeze(0);
    c = batched ? cx : cx.unsqueeze(0);
  } else {
    h = c = zeros({x.size(0), H}, TensorOptions(x.dtype()).device(x.device()));
  }
  const Tensor g = add(gates_ih(x), gates_hh(h));
  const Tensor sg = sigmoid(g);
  const Tensor c2 = addcmul(mul(sg.narrow(1, H, H), c), sg.narrow(1, 0, H), tanh(g.narrow(1, 2 * H, H)));
  const Tensor h2 = mul(sg.narrow(1, 3 * H, H), tanh(c2));
  if (batched) return {h2, c2};
  return {h2.squeeze(0), c2.squeeze(0)};
}

GRUCell::GRUCell(GRUCellOptions o) : ModuleBase("GRUCell", std::move(o), 3) {
  EMBER_CHECK(options.nonlinearity == "tanh", ValueError, "GRUCell: nonlinearity is only an option of RNNCell");
}

Tensor GRUCell::forward(const Tensor& input, const Tensor& hx) {
  const bool batched = check_input(input);
  if (hx.defined()) check_state(input, hx, "hx");
  const int64_t H = options.hidden_size;
  const Tensor x = batched ? input : input.unsqueeze(0);
  const Tensor h = hx.defined() ? (batched ? hx : hx.unsqueeze(0))
                                : zeros({x.size(0), H}, TensorOptions(x.dtype()).device(x.device()));
  const Tensor gi = gates_ih(x), gh = gates_hh(h);
  const Tensor rz = sigmoid(add(gi.narrow(1, 0, 2 * H), gh.narrow(1, 0, 2 * H)));
  const Tensor n = tanh(addcmul(gi.narrow(1, 2 * H, H), rz.narrow(1, 0, H), gh.narrow(1, 2 * H, H)));
  const Tensor h2 = addcmul(n, rz.narrow(1, H, H), sub(h, n));
  return batched ? h2 : h2.squeeze(0);
}

}  // namespace ember::nn
