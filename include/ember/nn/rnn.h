// Recurrent layers (torch.nn.modules.rnn): RNN, LSTM, GRU and RNNCell, LSTMCell, GRUCell.
//
// Parameters are named as PyTorch's (weight_ih_l0, weight_hh_l1_reverse, bias_ih_l0,
// weight_hr_l0 for an LSTM with projections), in its order, and initialized as its
// reset_parameters: every one ~ U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)). Gates are laid
// out in the rows as PyTorch's: i, f, g, o for LSTM; r, z, n for GRU.
//
// A layer is written with differentiable ops, so autograd (double backward included) goes
// through it: for each (layer, direction), one matmul projects the whole sequence
// (x W_ih^T + b), then each time step is one addmm with W_hh and the gates' pointwise ops.
// A PackedSequence input (include/ember/nn/utils.h) runs each step on the rows still active
// (the first batch_sizes[t]); h_n holds each sequence's state at its last step, and the
// initial states and h_n are in the original batch order (sorted_indices applies to h0,
// unsorted_indices to h_n), as PyTorch's. Call forward() for it: the hooks of operator()
// see Tensors only.
//
// forward returns a std::tuple of Tensors, so that hooks can see the results:
//   RNN, GRU: (output, h_n)
//   LSTM:     (output, h_n, c_n)
//   auto [out, h, c] = (*lstm)(x);            // zero initial state
//   auto [out2, h2, c2] = (*lstm)(x, h, c);   // given initial state
// output: (L, N, D * H_out) ((N, L, D * H_out) with batch_first; (L, D * H_out) for an
// unbatched (L, H_in) input); h_n: (D * num_layers, N, H_out) ((D * num_layers, H_out)
// unbatched), with H_out = proj_size when it is set; c_n: (D * num_layers, N, hidden_size).
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "ember/nn/module.h"
#include "ember/nn/utils.h"

namespace ember::nn {

// The options of RNN, LSTM and GRU (LSTMOptions and GRUOptions name the same struct).
// nonlinearity ("tanh" or "relu") is RNN's only; proj_size (0: none) LSTM's only.
struct RNNOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;
  int64_t num_layers = 1;
  std::string nonlinearity = "tanh";
  bool bias = true;
  bool batch_first = false;
  // Dropout on the outputs of every layer but the last, while training.
  double dropout = 0.0;
  bool bidirectional = false;
  int64_t proj_size = 0;
  TensorOptions options = {};
};
using LSTMOptions = RNNOptions;
using GRUOptions = RNNOptions;

// The parameters, checks and layer loop shared by RNN, LSTM and GRU.
class RNNBase : public Module {
 public:
  // mode: "RNN_TANH", "RNN_RELU", "LSTM" or "GRU" (from the layer and options.nonlinearity).
  RNNBase(const std::string& layer, RNNOptions o);
  void reset_parameters();
  std::string extra_repr() const override;
  // The parameters of each (layer, direction), as PyTorch's all_weights: w_ih, w_hh, then
  // b_ih, b_hh (with bias), then w_hr (with proj_size).
  std::vector<std::vector<Tensor>> all_weights() const;

  RNNOptions options;
  std::string mode;

 protected:
  // h0 / c0: undefined for zeros. Returns output, h_n and (LSTM) c_n.
  std::tuple<Tensor, Tensor, Tensor> run(const Tensor& input, const Tensor& h0, const Tensor& c0);
  std::tuple<PackedSequence, Tensor, Tensor> run_packed(const PackedSequence& input, const Tensor& h0,
                                                        const Tensor& c0);

 private:
  struct Cell;
  Cell make_cell(int64_t idx) const;
  // h0 / c0 checked and as (D * num_layers, N, H) (unbatched ones get N = 1).
  Tensor check_state(const Tensor& s, const Tensor& input, bool batched, int64_t batch, int64_t size,
                     const char* what) const;
  std::vector<std::vector<std::string>> weight_names_;  // per (layer, direction)
  // The tensors under those names, in that order (PyTorch's _flat_weights): bound handles,
  // so that a weight_norm'd weight_hh_l0 is read as its computed tensor.
  std::vector<Tensor> flat_weights_;
  std::vector<size_t> first_weight_;  // per (layer, direction): its first index in flat_weights_
};

// Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu).
class RNN : public ModuleBase<RNN, RNNBase> {
 public:
  explicit RNN(RNNOptions o) : ModuleBase("RNN", std::move(o)) {}
  RNN(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1)
      : RNN(RNNOptions{.input_size = input_size, .hidden_size = hidden_size, .num_layers = num_layers}) {}
  // Returns (output, h_n); h0 undefined: zeros.
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& h0 = {});
  std::tuple<PackedSequence, Tensor> forward(const PackedSequence& input, const Tensor& h0 = {});
};

// Long short-term memory (with proj_size, h_t = (o_t * tanh(c_t)) W_hr^T).
class LSTM : public ModuleBase<LSTM, RNNBase> {
 public:
  explicit LSTM(LSTMOptions o) : ModuleBase("LSTM", std::move(o)) {}
  LSTM(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1)
      : LSTM(LSTMOptions{.input_size = input_size, .hidden_size = hidden_size, .num_layers = num_layers}) {}
  // Returns (output, h_n, c_n); h0 and c0 are given both or neither (undefined: zeros).
  std::tuple<Tensor, Tensor, Tensor> forward(const Tensor& input, const Tensor& h0 = {}, const Tensor& c0 = {});
  std::tuple<PackedSequence, Tensor, Tensor> forward(const PackedSequence& input, const Tensor& h0 = {},
                                                     const Tensor& c0 = {});
};

// Gated recurrent unit.
class GRU : public ModuleBase<GRU, RNNBase> {
 public:
  explicit GRU(GRUOptions o) : ModuleBase("GRU", std::move(o)) {}
  GRU(int64_t input_size, int64_t hidden_size, int64_t num_layers = 1)
      : GRU(GRUOptions{.input_size = input_size, .hidden_size = hidden_size, .num_layers = num_layers}) {}
  // Returns (output, h_n); h0 undefined: zeros.
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& h0 = {});
  std::tuple<PackedSequence, Tensor> forward(const PackedSequence& input, const Tensor& h0 = {});
};

// ---------------------------------------------------------------- cells
struct RNNCellOptions {
  int64_t input_size = 0;
  int64_t hidden_size = 0;
  bool bias = true;
  std::string nonlinearity = "tanh";  // RNNCell's only: "tanh" or "relu"
  TensorOptions options = {};
};
using LSTMCellOptions = RNNCellOptions;
using GRUCellOptions = RNNCellOptions;

// weight_ih [chunks * hidden, input], weight_hh [chunks * hidden, hidden], bias_ih and
// bias_hh [chunks * hidden] with bias; all ~ U(-1/sqrt(hidden), 1/sqrt(hidden)).
class RNNCellBase : public Module {
 public:
  RNNCellBase(const std::string& layer, RNNCellOptions o, int64_t num_chunks);
  void reset_parameters();
  std::string extra_repr() const override;

  RNNCellOptions options;
  Tensor weight_ih, weight_hh, bias_ih, bias_hh;  // biases undefined without bias

 protected:
  // Checks input (1-D or 2-D, input_size features) and a state; returns whether batched.
  bool check_input(const Tensor& input) const;
  void check_state(const Tensor& input, const Tensor& hx, const char* what) const;
  // input W_ih^T + b_ih and hx W_hh^T + b_hh.
  Tensor gates_ih(const Tensor& input) const;
  Tensor gates_hh(const Tensor& hx) const;
};

// h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu). input: (N, input_size) or
// (input_size); hx likewise with hidden_size (undefined: zeros).
class RNNCell : public ModuleBase<RNNCell, RNNCellBase> {
 public:
  explicit RNNCell(RNNCellOptions o);
  RNNCell(int64_t input_size, int64_t hidden_size)
      : RNNCell(RNNCellOptions{.input_size = input_size, .hidden_size = hidden_size}) {}
  Tensor forward(const Tensor& input, const Tensor& hx = {});
};

// One LSTM step: returns (h', c'); hx and cx are given both or neither.
class LSTMCell : public ModuleBase<LSTMCell, RNNCellBase> {
 public:
  explicit LSTMCell(LSTMCellOptions o);
  LSTMCell(int64_t input_size, int64_t hidden_size)
      : LSTMCell(LSTMCellOptions{.input_size = input_size, .hidden_size = hidden_size}) {}
  std::tuple<Tensor, Tensor> forward(const Tensor& input, const Tensor& hx = {}, const Tensor& cx = {});
};

// One GRU step: returns h'.
class GRUCell : public ModuleBase<GRUCell, RNNCellBase> {
 public:
  explicit GRUCell(GRUCellOptions o);
  GRUCell(int64_t input_size, int64_t hidden_size)
      : GRUCell(GRUCellOptions{.input_size = input_size, .hidden_size = hidden_size}) {}
  Tensor forward(const Tensor& input, const Tensor& hx = {});
};

}  // namespace ember::nn
