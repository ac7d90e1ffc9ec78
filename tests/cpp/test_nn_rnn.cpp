// The C++ recurrent and attention layers (include/ember/nn/rnn.h, transformer.h) against
// PyTorch: outputs, final states and the gradients of every parameter and input, from
// tests/cpp/nn_rnn_refs.h (written by tests/cpp/nn_rnn_refs.py, which sets the same
// deterministic parameters and inputs); state_dict keys and repr as torch's; double
// backward; dropout between layers; and the errors for bad inputs and options.
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <map>

#include "ember/autograd.h"
#include "ember/gradcheck.h"
#include "ember/nn.h"
#include "ember/random.h"
#include "nn_attention_refs.h"
#include "nn_gru_refs.h"
#include "nn_lstm_refs.h"
#include "nn_rnn_refs.h"
#include "test_util.h"
#include "torch_refs.h"

namespace ember::nn_rnn_test {

namespace ag = autograd;
namespace refs = nn_rnn_refs;
using refs::kB, refs::kH, refs::kI, refs::kT;
using nn_attention_refs::kE, nn_attention_refs::kHeads, nn_attention_refs::kL, nn_attention_refs::kS;
using testing::expect_error, testing::find_ref, testing::formula, testing::gw, testing::inp, testing::set_params;
using nn::Tensors;

// ---------------------------------------------------------------- PyTorch's numbers
// One generated header per layer family (tests/cpp/nn_rnn_refs.py writes them all).

// PyTorch's tensor `name`, from whichever family's table holds it.
Tensor ref(const std::string& name) {
  for (const Tensor& t : {find_ref(nn_rnn_refs::kRefEntries, nn_rnn_refs::kValues, name),
                          find_ref(nn_lstm_refs::kRefEntries, nn_lstm_refs::kValues, name),
                          find_ref(nn_gru_refs::kRefEntries, nn_gru_refs::kValues, name),
                          find_ref(nn_attention_refs::kRefEntries, nn_attention_refs::kValues, name)})
    if (t.defined()) return t;
  ADD_FAILURE() << "no reference named " << name;
  return Tensor();
}

// The value of a case's entry in the family maps (state_dict keys, reprs); fails the test when
// no family has the case.
template <typename V>
V family_entry(const std::string& name, std::initializer_list<const std::map<std::string, V>*> maps) {
  for (const auto* m : maps) {
    auto it = m->find(name);
    if (it != m->end()) return it->second;
  }
  ADD_FAILURE() << "no case named " << name;
  return V();
}

void expect_close(const Tensor& got, const std::string& name, double tol = 1e-10) {
  const Tensor want = ref(name);
  if (!want.defined()) return;
  ASSERT_TRUE(got.defined()) << name << " is undefined";
  ASSERT_EQ(got.sizes(), want.sizes()) << name;
  if (got.numel() == 0) return;
  const Tensor g = ag::detach(got).to(kDouble);
  // -inf entries (masks) must match exactly; the rest to tol.
  const Tensor finite = isfinite(want);
  EXPECT_TRUE(equal(isfinite(g), finite)) << name;
  const Tensor diff = abs(sub(where(finite, g, zeros_like(g)), where(finite, want, zeros_like(want))));
  EXPECT_LT(max(diff).item<double>(), tol) << name;
}

struct Result {
  std::string name;
  Tensor value;  // undefined: absent (not checked, as the generator skips None)
  double seed;
};

// Compares the results with torch's, then the gradients of sum(result * gw) with respect to
// every parameter (by name) and input.
void check_case(const std::string& prefix, nn::Module& m, const std::vector<Result>& results,
                const std::vector<std::pair<std::string, Tensor>>& inputs) {
  SCOPED_TRACE(prefix);
  Tensor loss;
  for (const auto& r : results) {
    if (!r.value.defined()) continue;
    expect_close(r.value, prefix + "/" + r.name);
    const Tensor term = sum(mul(r.value, gw(r.value.sizes(), r.seed)));
    loss = loss.defined() ? add(loss, term) : term;
  }
  const auto params = m.named_parameters();
  Tensors wrt = params.values();
  for (const auto& in : inputs) wrt.push_back(in.second);
  const Tensors grads = ag::grad({loss}, wrt);
  size_t i = 0;
  for (const auto& [name, p] : params) expect_close(grads[i++], prefix + "/grad/" + name);
  for (const auto& in : inputs) expect_close(grads[i++], prefix + "/grad/" + in.first);
  // state_dict keys and repr as torch's.
  EXPECT_EQ(m.state_dict().keys(),
            family_entry(prefix, {&nn_rnn_refs::state_dict_keys(), &nn_lstm_refs::state_dict_keys(),
                                  &nn_gru_refs::state_dict_keys(), &nn_attention_refs::state_dict_keys()}));
  EXPECT_EQ(m.repr(), family_entry(prefix, {&nn_rnn_refs::reprs(), &nn_lstm_refs::reprs(), &nn_gru_refs::reprs(),
                                            &nn_attention_refs::reprs()}));
}

// ---------------------------------------------------------------- RNN, LSTM, GRU

TEST(NnRnn, LayersMatchTorch) {
  for (const auto& c : refs::kRnnCases) {
    const std::string mode = c.mode;
    nn::RNNOptions o{.input_size = kI,
                     .hidden_size = kH,
                     .num_layers = c.num_layers,
                     .nonlinearity = mode == "RNN_RELU" ? "relu" : "tanh",
                     .bias = c.bias,
                     .batch_first = c.batch_first,
                     .bidirectional = c.bidirectional,
                     .proj_size = c.proj_size,
                     .options = kDouble};
    const int64_t D = c.bidirectional ? 2 : 1, P = c.proj_size > 0 ? c.proj_size : kH;
    const Tensor x = inp(c.unbatched ? IntArrayRef({kT, kI})
                         : c.batch_first ? IntArrayRef({kB, kT, kI})
                                         : IntArrayRef({kT, kB, kI}),
                         1.0);
    std::vector<int64_t> hshape = {D * c.num_layers, kB, P}, cshape = {D * c.num_layers, kB, kH};
    if (c.unbatched) hshape.erase(hshape.begin() + 1), cshape.erase(cshape.begin() + 1);
    std::vector<std::pair<std::string, Tensor>> inputs = {{"input", x}};
    Tensor h0, c0;
    if (c.h0) {
      h0 = inp(hshape, 2.0);
      inputs.push_back({"h0", h0});
      if (mode == "LSTM") {
        c0 = inp(cshape, 3.0);
        inputs.push_back({"c0", c0});
      }
    }
    if (mode == "LSTM") {
      auto m = std::make_shared<nn::LSTM>(o);
      set_params(*m);
      auto [out, hn, cn] = c.h0 ? (*m)(x, h0, c0) : (*m)(x);
      check_case(c.name, *m, {{"output", out, 10.0}, {"h_n", hn, 11.0}, {"c_n", cn, 12.0}}, inputs);
    } else if (mode == "GRU") {
      auto m = std::make_shared<nn::GRU>(o);
      set_params(*m);
      auto [out, hn] = c.h0 ? (*m)(x, h0) : (*m)(x);
      check_case(c.name, *m, {{"output", out, 10.0}, {"h_n", hn, 11.0}}, inputs);
    } else {
      auto m = std::make_shared<nn::RNN>(o);
      set_params(*m);
      auto [out, hn] = c.h0 ? (*m)(x, h0) : (*m)(x);
      check_case(c.name, *m, {{"output", out, 10.0}, {"h_n", hn, 11.0}}, inputs);
    }
  }
}

TEST(NnRnn, CellsMatchTorch) {
  for (const auto& c : refs::kCellCases) {
    const std::string cell = c.cell;
    nn::RNNCellOptions o{.input_size = kI,
                         .hidden_size = kH,
                         .bias = c.bias,
                         .nonlinearity = cell == "rnncell_relu" ? "relu" : "tanh",
                         .options = kDouble};
    const Tensor x = inp(c.batched ? IntArrayRef({kB, kI}) : IntArrayRef({kI}), 1.0);
    const std::vector<int64_t> sshape = c.batched ? std::vector<int64_t>{kB, kH} : std::vector<int64_t>{kH};
    std::vector<std::pair<std::string, Tensor>> inputs = {{"input", x}};
    if (cell == "lstmcell") {
      auto m = std::make_shared<nn::LSTMCell>(o);
      set_params(*m);
      Tensor hx, cx;
      if (c.hx) {
        hx = inp(sshape, 2.0), cx = inp(sshape, 3.0);
        inputs.push_back({"hx", hx});
        inputs.push_back({"cx", cx});
      }
      auto [h, cc] = (*m)(x, hx, cx);
      check_case(c.name, *m, {{"h", h, 10.0}, {"c", cc, 11.0}}, inputs);
      continue;
    }
    Tensor hx;
    if (c.hx) {
      hx = inp(sshape, 2.0);
      inputs.push_back({"hx", hx});
    }
    std::shared_ptr<nn::Module> holder;
    Tensor h;
    if (cell == "grucell") {
      auto m = std::make_shared<nn::GRUCell>(o);
      set_params(*m);
      h = (*m)(x, hx);
      holder = m;
    } else {
      auto m = std::make_shared<nn::RNNCell>(o);
      set_params(*m);
      h = (*m)(x, hx);
      holder = m;
    }
    check_case(c.name, *holder, {{"h", h, 10.0}}, inputs);
  }
}

TEST(NnRnn, InitializationAndAllWeights) {
  manual_seed(0);
  nn::LSTM lstm(nn::LSTMOptions{.input_size = 3, .hidden_size = 16, .num_layers = 2, .bidirectional = true,
                                .proj_size = 4});
  const double bound = 1 / std::sqrt(16.0);
  for (const Tensor& p : lstm.parameters()) {
    EXPECT_LE(max(abs(p)).item<double>(), bound);
    EXPECT_GT(max(abs(p)).item<double>(), bound / 2);  // drawn, not left empty
  }
  const auto aw = lstm.all_weights();
  ASSERT_EQ(aw.size(), 4u);
  ASSERT_EQ(aw[3].size(), 5u);  // w_ih, w_hh, b_ih, b_hh, w_hr
  EXPECT_TRUE(aw[3][0].is_same(lstm.named_parameters()["weight_ih_l1_reverse"]));
  EXPECT_EQ(aw[3][0].sizes(), IntArrayRef({64, 8}));  // 4 gates x 16; 2 directions x proj 4
  EXPECT_EQ(aw[3][4].sizes(), IntArrayRef({4, 16}));
  // Converting the module converts every weight the layers read.
  lstm.to(kDouble);
  auto [out, h, c] = lstm.forward(randn({5, 2, 3}, nullptr, TensorOptions(kDouble)));
  EXPECT_EQ(out.dtype(), kDouble);
  EXPECT_EQ(out.sizes(), IntArrayRef({5, 2, 8}));  // 2 directions x proj_size 4
  EXPECT_EQ(c.sizes(), IntArrayRef({4, 2, 16}));
}

// Dropout between layers: only while training, never after the last layer.
TEST(NnRnn, DropoutBetweenLayers) {
  nn::GRU gru(nn::GRUOptions{.input_size = 3, .hidden_size = 4, .num_layers = 2, .dropout = 0.5, .options = kDouble});
  nn::GRU plain(nn::GRUOptions{.input_size = 3, .hidden_size = 4, .num_layers = 2, .options = kDouble});
  set_params(gru);
  set_params(plain);
  const Tensor x = formula({5, 2, 3}, 0.61, 1.0);
  gru.eval();
  EXPECT_TRUE(allclose(std::get<0>(gru.forward(x)), std::get<0>(plain.forward(x))));
  gru.train();
  manual_seed(1);
  const Tensor a = std::get<0>(gru.forward(x));
  EXPECT_FALSE(allclose(a, std::get<0>(plain.forward(x))));
  manual_seed(1);
  EXPECT_TRUE(equal(a, std::get<0>(gru.forward(x))));  // repeatable under a seed
  // One layer: dropout has nothing to act on (PyTorch warns; here it is simply unused).
  nn::LSTM one(nn::LSTMOptions{.input_size = 3, .hidden_size = 4, .dropout = 0.5, .options = kDouble});
  nn::LSTM one_plain(nn::LSTMOptions{.input_size = 3, .hidden_size = 4, .options = kDouble});
  set_params(one);
  set_params(one_plain);
  EXPECT_TRUE(equal(std::get<0>(one.forward(x)), std::get<0>(one_plain.forward(x))));
}

// Autograd goes through the layers twice (the step ops are differentiable ops).
TEST(NnRnn, DoubleBackward) {
  for (const char* layer : {"LSTM", "GRU", "RNN"}) {
    SCOPED_TRACE(layer);
    nn::RNNOptions o{.input_size = 2, .hidden_size = 2, .bidirectional = true, .proj_size = 0, .options = kDouble};
    std::shared_ptr<nn::Module> keep;
    ag::GradcheckFunction f;
    if (std::string(layer) == "LSTM") {
      o.proj_size = 1;
      auto m = std::make_shared<nn::LSTM>(o);
      keep = m;
      f = [m](const Tensors& in) {
        auto [out, h, c] = m->forward(in[0], in[1], in[2]);
        return Tensors{out, c};
      };
    } else if (std::string(layer) == "GRU") {
      auto m = std::make_shared<nn::GRU>(o);
      keep = m;
      f = [m](const Tensors& in) { return Tensors{std::get<0>(m->forward(in[0], in[1]))}; };
    } else {
      auto m = std::make_shared<nn::RNN>(o);
      keep = m;
      f = [m](const Tensors& in) { return Tensors{std::get<1>(m->forward(in[0], in[1]))}; };
    }
    set_params(*keep);
    const int64_t hsize = std::string(layer) == "LSTM" ? 1 : 2;
    Tensors in = {inp({3, 1, 2}, 1.0), inp({2, 1, hsize}, 2.0)};
    if (std::string(layer) == "LSTM") in.push_back(inp({2, 1, 2}, 3.0));
    EXPECT_TRUE(ag::gradcheck(f, in));
    EXPECT_TRUE(ag::gradgradcheck(f, in));
    // And with respect to a weight: the gradient of the loss is itself differentiable.
    const Tensor w = keep->parameters()[1];
    const Tensor loss = sum(mul(f(in)[0], f(in)[0]));
    const Tensor gw1 = ag::grad({loss}, {w}, {}, std::nullopt, true)[0];
    const Tensor gw2 = ag::grad({sum(mul(gw1, gw1))}, {w})[0];
    EXPECT_TRUE(gw2.defined());
    EXPECT_GT(max(abs(gw2)).item<double>(), 0);
  }
}

TEST(NnRnn, HooksSeeTupleResults) {
  auto lstm = std::make_shared<nn::LSTM>(nn::LSTMOptions{.input_size = 3, .hidden_size = 4, .options = kDouble});
  size_t seen = 0;
  lstm->register_forward_hook([&](nn::Module&, const Tensors& in, const Tensors& out) -> std::optional<Tensors> {
    seen = out.size();
    return std::nullopt;
  });
  auto [out, h, c] = (*lstm)(formula({5, 2, 3}, 0.61, 1.0));
  EXPECT_EQ(seen, 3u);
  EXPECT_EQ(out.sizes(), IntArrayRef({5, 2, 4}));
  // Boxed calls (Sequential, ModuleList): input, h0, c0 as a vector.
  EXPECT_EQ(lstm->call({formula({5, 2, 3}, 0.61, 1.0), ag::detach(h), ag::detach(c)}).size(), 3u);
}

TEST(NnRnn, Errors) {
  nn::LSTM lstm(nn::LSTMOptions{.input_size = 3, .hidden_size = 4, .num_layers = 2, .options = kDouble});
  expect_error<RuntimeError>([&] { lstm.forward(zeros({5, 2, 7}, kDouble)); },
                             "LSTM: input.size(-1) must be equal to input_size. Expected 3, got 7 (input of shape [5, 2, 7])");
  expect_error<RuntimeError>([&] { lstm.forward(zeros({5, 2, 3, 1}, kDouble)); },
                             "LSTM: expected input of shape (L, N, H_in) or unbatched (L, H_in), got shape [5, 2, 3, 1]");
  expect_error<RuntimeError>([&] { lstm.forward(zeros({5, 2, 3}, kDouble), zeros({2, 3, 4}, kDouble), zeros({2, 2, 4}, kDouble)); },
                             "LSTM: Expected hidden[0] size (2, 2, 4), got [2, 3, 4]");
  expect_error<RuntimeError>([&] { lstm.forward(zeros({5, 2, 3}, kDouble), zeros({2, 2, 4}, kDouble), zeros({2, 2, 5}, kDouble)); },
                             "LSTM: Expected hidden[1] size (2, 2, 4), got [2, 2, 5]");
  expect_error<RuntimeError>([&] { lstm.forward(zeros({5, 2, 3}, kDouble), zeros({2, 2, 4}, kDouble)); },
                             "give both h0 and c0");
  expect_error<RuntimeError>([&] { lstm.forward(zeros({5, 3}, kDouble), zeros({2, 1, 4}, kDouble), zeros({2, 1, 4}, kDouble)); },
                             "for unbatched 2-D input, hidden[0] should also be 2-D but got 3-D tensor");
  expect_error<TypeError>([&] { lstm.forward(zeros({5, 2, 3}, kFloat)); }, "LSTM: expected input of dtype float64");
  nn::GRU gru(nn::GRUOptions{.input_size = 3, .hidden_size = 4, .batch_first = true});
  expect_error<RuntimeError>([&] { gru.forward(zeros({2, 5, 3}), zeros({1, 5, 4})); },
                             "GRU: Expected hidden size (1, 2, 4), got [1, 5, 4]");

  expect_error<ValueError>([] { nn::LSTM(nn::LSTMOptions{.input_size = 3, .hidden_size = 4, .dropout = 1.5}); },
                           "dropout should be a number in range [0, 1]");
  expect_error<ValueError>([] { nn::GRU(nn::GRUOptions{.input_size = 3, .hidden_size = 4, .dropout = -0.1}); },
                           "GRU: dropout should be a number in range [0, 1] representing the probability of an element being zeroed, got -0.1");
  expect_error<ValueError>([] { nn::GRU(nn::GRUOptions{.input_size = 3, .hidden_size = 4, .proj_size = 2}); },
                           "proj_size argument is only supported for LSTM, not RNN or GRU");
  expect_error<ValueError>([] { nn::LSTM(nn::LSTMOptions{.input_size = 3, .hidden_size = 4, .proj_size = 4}); },
                           "proj_size has to be smaller than hidden_size");
  expect_error<ValueError>([] { nn::LSTM(nn::LSTMOptions{.input_size = 3, .hidden_size = 4, .proj_size = -1}); },
                           "proj_size should be a positive integer or zero");
  expect_error<ValueError>([] { nn::RNN(nn::RNNOptions{.input_size = 3, .hidden_size = 4, .nonlinearity = "sigmoid"}); },
                           "RNN: Unknown nonlinearity 'sigmoid'");
  expect_error<ValueError>([] { nn::RNN(nn::RNNOptions{.input_size = 3, .hidden_size = 4, .num_layers = 0}); },
                           "RNN: num_layers must be positive, got 0");

  nn::LSTMCell cell(3, 4);
  expect_error<RuntimeError>([&] { cell.forward(zeros({2, 5})); },
                             "LSTMCell: input has inconsistent input_size: got 5 expected 3 (input of shape [2, 5])");
  expect_error<RuntimeError>([&] { cell.forward(zeros({2, 3, 1})); },
                             "LSTMCell: Expected input to be 1-D or 2-D but received 3-D tensor");
  expect_error<RuntimeError>([&] { cell.forward(zeros({2, 3}), zeros({3, 4}), zeros({2, 4})); },
                             "LSTMCell: expected hx of shape [2, 4] for input of shape [2, 3], got [3, 4]");
  nn::GRUCell gcell(3, 4);
  expect_error<RuntimeError>([&] { gcell.forward(zeros({3}), zeros({1, 4})); },
                             "GRUCell: expected hx of shape [4] for input of shape [3], got [1, 4]");
  expect_error<ValueError>([] { nn::RNNCell(nn::RNNCellOptions{.input_size = 3, .hidden_size = 4, .nonlinearity = "gelu"}); },
                           "RNNCell: Unknown nonlinearity 'gelu'");
  // A failed forward changes nothing.
  const auto before = lstm.state_dict();
  EXPECT_EQ(before.size(), 8u);
}

// ---------------------------------------------------------------- MultiheadAttention

// The generator's masks: kpm masks the last key of batch 1; the bool attn_mask masks key j
// for query i when (i + j) % 3 == 0; the float one is 0.1 (i - j).
Tensor bool_kpm(int64_t n, int64_t s) {
  std::vector<double> v(static_cast<size_t>(n * s), 0.0);
  v[static_cast<size_t>(1 * s + s - 1)] = 1;
  return tensor(v).view({n, s}).to(kBool);
}
Tensor bool_attn(int64_t l, int64_t s) {
  std::vector<double> v;
  for (int64_t i = 0; i < l; ++i)
    for (int64_t j = 0; j < s; ++j) v.push_back((i + j) % 3 == 0 ? 1 : 0);
  return tensor(v).view({l, s}).to(kBool);
}
Tensor float_attn(int64_t l, int64_t s) {
  std::vector<double> v;
  for (int64_t i = 0; i < l; ++i)
    for (int64_t j = 0; j < s; ++j) v.push_back(0.1 * static_cast<double>(i - j));
  return tensor(v).view({l, s});
}

struct MhaCase {
  std::string name;
  nn::MultiheadAttentionOptions options;
  std::vector<int64_t> q, k, v;
  bool self_attn = false;
  Tensor kpm = {}, attn_mask = {};
  bool need_weights = true, average = true;
};

TEST(NnAttention, MultiheadAttentionMatchesTorch) {
  auto opts = [](nn::MultiheadAttentionOptions o) {
    o.embed_dim = kE, o.num_heads = kHeads, o.options = kDouble;
    return o;
  };
  Tensor mask3d = mul(repeat(float_attn(kL, kS).unsqueeze(0), {kB * kHeads, 1, 1}),
                      arange(1.0, kB * kHeads + 1.0, 1.0, kDouble).view({-1, 1, 1}));
  const std::vector<MhaCase> cases = {
      {"mha_self", opts({}), {kL, kB, kE}, {}, {}, true},
      {"mha_cross_masks", opts({}), {kL, kB, kE}, {kS, kB, kE}, {kS, kB, kE}, false, bool_kpm(kB, kS),
       float_attn(kL, kS), true, false},
      {"mha_boolmask_bf", opts({.batch_first = true}), {kB, kL, kE}, {kB, kS, kE}, {kB, kS, kE}, false,
       bool_kpm(kB, kS), bool_attn(kL, kS)},
      {"mha_kvdim", opts({.kdim = 3, .vdim = 5, .batch_first = true}), {kB, kL, kE}, {kB, kS, 3}, {kB, kS, 5}, false,
       Tensor(), float_attn(kL, kS), false},
      {"mha_biaskv_zeroattn", opts({.add_bias_kv = true, .add_zero_attn = true}), {kL, kB, kE}, {kS, kB, kE},
       {kS, kB, kE}, false, bool_kpm(kB, kS), bool_attn(kL, kS)},
      {"mha_nobias_unbatched", opts({.bias = false}), {kL, kE}, {kS, kE}, {kS, kE}, false, Tensor(),
       float_attn(kL, kS), true, false},
      {"mha_mask3d", opts({}), {kL, kB, kE}, {kS, kB, kE}, {kS, kB, kE}, false, Tensor(), mask3d},
  };
  for (const auto& c : cases) {
    auto m = std::make_shared<nn::MultiheadAttention>(c.options);
    set_params(*m);
    m->eval();
    const Tensor q = inp(c.q, 1.0);
    const Tensor k = c.self_attn ? q : inp(c.k, 2.0), v = c.self_attn ? q : inp(c.v, 3.0);
    auto [out, w] = (*m)(q, k, v, c.kpm, c.need_weights, c.attn_mask, c.average);
    EXPECT_EQ(w.defined(), c.need_weights) << c.name;
    std::vector<std::pair<std::string, Tensor>> inputs = {{"query", q}};
    if (!c.self_attn) inputs.insert(inputs.end(), {{"key", k}, {"value", v}});
    check_case(c.name, *m, {{"output", out, 10.0}, {"weights", w, 11.0}}, inputs);
  }
}

TEST(NnAttention, InitializationAndDropout) {
  manual_seed(0);
  nn::MultiheadAttention m(nn::MultiheadAttentionOptions{.embed_dim = 8, .num_heads = 2, .dropout = 0.5,
                                                         .add_bias_kv = true});
  EXPECT_EQ(m.named_parameters().keys(), (std::vector<std::string>{"in_proj_weight", "in_proj_bias", "bias_k", "bias_v",
                                                                   "out_proj.weight", "out_proj.bias"}));
  const double xavier = std::sqrt(6.0 / (8 + 24));
  EXPECT_LE(max(abs(m.in_proj_weight)).item<double>(), xavier);
  EXPECT_EQ(max(abs(m.in_proj_bias)).item<double>(), 0);
  EXPECT_EQ(max(abs(m.out_proj->bias)).item<double>(), 0);
  EXPECT_LE(max(abs(m.out_proj->weight)).item<double>(), 1 / std::sqrt(8.0));
  EXPECT_GT(max(abs(m.bias_k)).item<double>(), 0);
  EXPECT_EQ(m.out_proj->name(), "NonDynamicallyQuantizableLinear");
  // Dropout on the weights while training only: they still sum to 1 per row in eval mode.
  const Tensor x = randn({3, 2, 8});
  m.eval();
  auto [o1, w1] = m.forward(x, x, x);
  EXPECT_TRUE(allclose(sum(w1, {-1}), ones({2, 3})));
  m.train();
  auto [o2, w2] = m.forward(x, x, x);
  EXPECT_FALSE(allclose(o1, o2));
}

TEST(NnAttention, Errors) {
  expect_error<ValueError>([] { nn::MultiheadAttention(6, 4); },
                           "MultiheadAttention: embed_dim must be divisible by num_heads, got embed_dim=6 and num_heads=4");
  expect_error<ValueError>(
      [] { nn::MultiheadAttention(nn::MultiheadAttentionOptions{.embed_dim = 4, .num_heads = 2, .dropout = 2}); },
      "dropout probability has to be between 0 and 1, but got 2.0");
  nn::MultiheadAttention m(4, 2);
  const Tensor x = zeros({3, 2, 4});
  expect_error<RuntimeError>([&] { m.forward(zeros({3, 2, 5}), x, x); },
                             "MultiheadAttention: was expecting embedding dimension of 4 (embed_dim), but got query of shape [3, 2, 5]");
  expect_error<RuntimeError>([&] { m.forward(x, zeros({3, 4}), zeros({3, 4})); },
                             "for batched (3-D) query, expected key and value to be 3-D, got shapes [3, 4] and [3, 4]");
  expect_error<RuntimeError>([&] { m.forward(x, zeros({5, 2, 4}), zeros({4, 2, 4})); },
                             "key and value must have the same sequence and batch dims, got shapes [5, 2, 4] and [4, 2, 4]");
  expect_error<RuntimeError>([&] { m.forward(x, x, x, Tensor(), true, zeros({3, 4})); },
                             "The shape of the 2D attn_mask is [3, 4], but should be (3, 3).");
  expect_error<RuntimeError>([&] { m.forward(x, x, x, Tensor(), true, zeros({2, 3, 3})); },
                             "The shape of the 3D attn_mask is [2, 3, 3], but should be (4, 3, 3).");
  expect_error<RuntimeError>([&] { m.forward(x, x, x, zeros({2, 4}, kBool)); },
                             "expecting key_padding_mask shape of (2, 3), but got [2, 4]");
  expect_error<TypeError>([&] { m.forward(x, x, x, zeros({2, 3}, kInt64)); },
                          "only bool and floating types of key_padding_mask are supported, got int64");
  expect_error<RuntimeError>([&] { m.forward(zeros({3, 2, 4, 1}), x, x); },
                             "query should be unbatched 2D or batched 3D tensor, got shape [3, 2, 4, 1]");
  expect_error<ValueError>(
      [] { nn::TransformerEncoderLayer(nn::TransformerLayerOptions{.d_model = 4, .nhead = 2, .activation = "tanh"}); },
      "TransformerEncoderLayer: activation should be relu/gelu, not tanh");
  expect_error<ValueError>([] { nn::TransformerDecoderLayer(6, 4); }, "embed_dim must be divisible by num_heads");
  nn::Transformer t(nn::TransformerOptions{.d_model = 4, .nhead = 2, .num_encoder_layers = 1,
                                           .num_decoder_layers = 1, .dim_feedforward = 6});
  expect_error<RuntimeError>([&] { t.forward(zeros({3, 2, 4}), zeros({3, 3, 4})); },
                             "Transformer: the batch number of src and tgt must be equal, got shapes [3, 2, 4] and [3, 3, 4]");
  expect_error<RuntimeError>([&] { t.forward(zeros({3, 2, 4}), zeros({3, 2, 5})); },
                             "the feature number of src and tgt must be equal to d_model (4)");
}

// ---------------------------------------------------------------- transformer layers

TEST(NnTransformer, LayersMatchTorch) {
  using nn::TransformerLayerOptions;
  const Tensor causal = nn::Transformer::generate_square_subsequent_mask(kL, kDouble);
  expect_close(causal, "transformer/causal_mask");
  auto lo = [](TransformerLayerOptions o) {
    o.d_model = kE, o.nhead = kHeads, o.dim_feedforward = 6, o.options = kDouble;
    return o;
  };
  {
    auto m = std::make_shared<nn::TransformerEncoderLayer>(lo({}));
    set_params(*m);
    m->eval();
    const Tensor x = inp({kS, kB, kE}, 1.0);
    check_case("enc_post_relu", *m, {{"output", (*m)(x, float_attn(kS, kS), bool_kpm(kB, kS)), 10.0}}, {{"x0", x}});
  }
  {
    auto m = std::make_shared<nn::TransformerEncoderLayer>(
        lo({.activation = "gelu", .layer_norm_eps = 1e-3, .batch_first = true, .norm_first = true}));
    set_params(*m);
    m->eval();
    const Tensor x = inp({kB, kS, kE}, 1.0);
    check_case("enc_pre_gelu_bf", *m, {{"output", (*m)(x, Tensor(), bool_kpm(kB, kS)), 10.0}}, {{"x0", x}});
  }
  {
    auto m = std::make_shared<nn::TransformerDecoderLayer>(lo({}));
    set_params(*m);
    m->eval();
    const Tensor t = inp({kL, kB, kE}, 1.0), mem = inp({kS, kB, kE}, 2.0);
    const Tensor out = (*m)(t, mem, causal, Tensor(), Tensor(), bool_kpm(kB, kS));
    check_case("dec_post_relu", *m, {{"output", out, 10.0}}, {{"x0", t}, {"x1", mem}});
  }
  {
    auto m = std::make_shared<nn::TransformerDecoderLayer>(
        lo({.activation = "gelu", .batch_first = true, .norm_first = true}));
    set_params(*m);
    m->eval();
    const Tensor t = inp({kB, kL, kE}, 1.0), mem = inp({kB, kS, kE}, 2.0);
    const Tensor out = (*m)(t, mem, causal, float_attn(kL, kS));
    check_case("dec_pre_gelu_bf", *m, {{"output", out, 10.0}}, {{"x0", t}, {"x1", mem}});
  }
}

TEST(NnTransformer, FullModelMatchesTorch) {
  auto m = std::make_shared<nn::Transformer>(nn::TransformerOptions{.d_model = kE,
                                                                    .nhead = kHeads,
                                                                    .num_encoder_layers = 2,
                                                                    .num_decoder_layers = 2,
                                                                    .dim_feedforward = 6,
                                                                    .options = kDouble});
  set_params(*m);
  m->eval();
  const Tensor src = inp({kS, kB, kE}, 1.0), tgt = inp({kL, kB, kE}, 2.0);
  const Tensor causal = nn::Transformer::generate_square_subsequent_mask(kL, kDouble);
  const Tensor out = (*m)(src, tgt, Tensor(), causal, Tensor(), bool_kpm(kB, kS), Tensor(), bool_kpm(kB, kS));
  check_case("transformer", *m, {{"output", out, 10.0}}, {{"x0", src}, {"x1", tgt}});
}

// The stacks copy their layer (PyTorch's deepcopy): equal values, separate tensors; the
// Transformer re-draws every matrix with xavier_uniform_.
TEST(NnTransformer, ClonesAndInit) {
  auto layer = std::make_shared<nn::TransformerEncoderLayer>(8, 2);
  nn::TransformerEncoder enc(layer, 3, std::make_shared<nn::LayerNorm>(std::vector<int64_t>{8}));
  ASSERT_EQ(enc.layers->size(), 3u);
  auto l1 = enc.layers->at<nn::TransformerEncoderLayer>(1);
  EXPECT_TRUE(equal(l1->linear1->weight, layer->linear1->weight));
  EXPECT_FALSE(l1->linear1->weight.is_same(layer->linear1->weight));
  EXPECT_FALSE(l1->linear1->weight.is_same(enc.layers->at<nn::TransformerEncoderLayer>(2)->linear1->weight));
  EXPECT_EQ(enc.state_dict().size(), 3 * layer->state_dict().size() + 2);
  nn::TransformerDecoder dec(std::make_shared<nn::TransformerDecoderLayer>(8, 2), 2);
  EXPECT_FALSE(dec.named_children().contains("norm"));

  manual_seed(0);
  nn::Transformer t(nn::TransformerOptions{.d_model = 8, .nhead = 2, .num_encoder_layers = 1,
                                           .num_decoder_layers = 1, .dim_feedforward = 16});
  const Tensor w = t.named_parameters()["encoder.layers.0.linear1.weight"];
  EXPECT_LE(max(abs(w)).item<double>(), std::sqrt(6.0 / (8 + 16)));
  EXPECT_GT(max(abs(w)).item<double>(), 1 / std::sqrt(8.0));  // beyond Linear's own bound: re-drawn
  // Unbatched inputs go through the whole model.
  t.eval();
  EXPECT_EQ(t.forward(randn({5, 8}), randn({3, 8})).sizes(), IntArrayRef({3, 8}));
  // Training mode (dropout in every block) runs forward and backward.
  t.train();
  autograd::backward({sum(t.forward(randn({5, 2, 8}), randn({3, 2, 8})))});
  EXPECT_TRUE(ag::grad(t.named_parameters()["decoder.layers.0.multihead_attn.in_proj_weight"]).defined());
  const Tensor mask = nn::Transformer::generate_square_subsequent_mask(3);
  EXPECT_EQ(mask.dtype(), kFloat);
  EXPECT_EQ(mask.select(0, 0).select(0, 1).item<double>(), -testing::kInf);
  EXPECT_EQ(mask.select(0, 1).select(0, 0).item<double>(), 0);
}

}  // namespace ember::nn_rnn_test
