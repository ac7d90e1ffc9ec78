// The C++ nn::utils (include/ember/nn/utils.h) against PyTorch: packed and padded sequences
// (values, round trips, gradients), RNN, LSTM and GRU on packed input (outputs, final states,
// parameter and input gradients), weight_norm and spectral_norm on a Linear, on an LSTM's
// weight_hh_l0 and on a custom module's parameters (outputs, gradients, u and v after
// training-mode calls, remove_*), and the errors with torch's messages. The numbers come from tests/cpp/nn_utils_refs.h (written by
// tests/cpp/nn_utils_refs.py from the same deterministic formulas).
#include <algorithm>
#include <cmath>

#include "ember/autograd.h"
#include "ember/nn.h"
#include "nn_utils_refs.h"
#include "test_util.h"
#include "torch_refs.h"

namespace ember::nn_utils_test {

namespace ag = autograd;
namespace refs = nn_utils_refs;
namespace rnn = nn::utils::rnn;
using nn::PackedSequence;
using nn::Tensors;
using refs::kF, refs::kH, refs::kI, refs::kT;
using testing::find_ref, testing::formula, testing::gw, testing::inp, testing::set_params;

// PyTorch's tensor `name` from the generated table.
Tensor ref(const std::string& name) {
  Tensor t = find_ref(refs::kRefEntries, refs::kValues, name);
  EXPECT_TRUE(t.defined()) << "no reference named " << name;
  return t;
}

void expect_close(const Tensor& got, const std::string& name, double tol = 1e-10) {
  const Tensor want = ref(name);
  if (!want.defined()) return;
  ASSERT_TRUE(got.defined()) << name << " is undefined";
  ASSERT_EQ(got.sizes(), want.sizes()) << name;
  if (got.numel() == 0) return;
  EXPECT_LT(max(abs(sub(ag::detach(got).to(kDouble), want))).item<double>(), tol) << name;
}

// f() must raise torch's error `key`.
template <class F>
void expect_torch_error(const F& f, const std::string& key) {
  testing::expect_torch_error(f, refs::errors().at(key), key);
}

std::vector<Tensor> make_seqs() {
  std::vector<Tensor> seqs;
  for (size_t k = 0; k < refs::kLens.size(); ++k) seqs.push_back(inp({refs::kLens[k], kF}, k + 1.0));
  return seqs;
}

// ---------------------------------------------------------------- packing

TEST(NnUtils, PadSequence) {
  const auto seqs = make_seqs();
  expect_close(rnn::pad_sequence(seqs, false, -1.0), "pad_sequence/bf0");
  expect_close(rnn::pad_sequence(seqs, true, -1.0), "pad_sequence/bf1");
}

TEST(NnUtils, PackSequenceAndRoundTrips) {
  const auto seqs = make_seqs();
  const PackedSequence p = rnn::pack_sequence(seqs, false);
  expect_close(p.data, "pack_sequence/data");
  expect_close(p.batch_sizes, "pack_sequence/batch_sizes");
  expect_close(p.sorted_indices, "pack_sequence/sorted_indices");
  expect_close(p.unsorted_indices, "pack_sequence/unsorted_indices");
  EXPECT_EQ(p.batch_sizes.dtype(), kInt64);
  EXPECT_EQ(p.sorted_indices.dtype(), kInt64);

  const PackedSequence ps = rnn::pack_sequence({seqs[0], seqs[2], seqs[1]});
  expect_close(ps.data, "pack_sequence_sorted/data");
  expect_close(ps.batch_sizes, "pack_sequence_sorted/batch_sizes");
  EXPECT_FALSE(ps.sorted_indices.defined());
  EXPECT_FALSE(ps.unsorted_indices.defined());

  for (bool bf : {false, true}) {
    const std::string pre = std::string("pad_packed/bf") + (bf ? "1" : "0");
    auto [padded, lengths] = rnn::pad_packed_sequence(p, bf, 0.5, 6);
    expect_close(padded, pre + "/padded");
    expect_close(lengths, pre + "/lengths");
    EXPECT_EQ(lengths.dtype(), kInt64);
    // Packing the padded batch again (batch_first either way) gives the same PackedSequence.
    const PackedSequence again = rnn::pack_padded_sequence(padded, lengths, bf, false);
    expect_close(again.data, "pack_sequence/data");
    expect_close(again.batch_sizes, "pack_sequence/batch_sizes");
    expect_close(again.sorted_indices, "pack_sequence/sorted_indices");
  }
  // Without total_length the padded length is the longest sequence's; the vector overload.
  auto [padded, lengths] = rnn::pad_packed_sequence(ps);
  EXPECT_EQ(padded.sizes(), IntArrayRef({4, 3, kF}));
  const PackedSequence again = rnn::pack_padded_sequence(padded, std::vector<int64_t>{4, 3, 2});
  expect_close(again.data, "pack_sequence_sorted/data");
}

TEST(NnUtils, PackingGradients) {
  const auto seqs = make_seqs();
  const PackedSequence p = rnn::pack_sequence(seqs, false);
  auto [padded, lengths] = rnn::pad_packed_sequence(p, false, 0.0, 5);
  const Tensor loss = add(sum(mul(padded, gw(padded.sizes(), 1.0))), sum(mul(p.data, gw(p.data.sizes(), 2.0))));
  const Tensors grads = ag::grad({loss}, seqs);
  for (size_t k = 0; k < seqs.size(); ++k) expect_close(grads[k], "grad/seq" + std::to_string(k));

  const Tensor x = inp({3, 5, kF}, 4.0);
  const PackedSequence p2 = rnn::pack_padded_sequence(x, tensor(refs::kLens), true, false);
  expect_close(p2.data, "pack_padded_bf/data");
  expect_close(ag::grad({sum(mul(p2.data, gw(p2.data.sizes(), 3.0)))}, {x})[0], "grad/x_bf");
}

TEST(NnUtils, PackingErrors) {
  const Tensor z = zeros({4, 3, kF}, TensorOptions(kDouble)), z2 = zeros({4, 2, kF}, TensorOptions(kDouble));
  expect_torch_error([&] { rnn::pack_padded_sequence(z, tensor(std::vector<int64_t>{2, 4, 3})); }, "unsorted");
  expect_torch_error([&] { rnn::pack_padded_sequence(z2, tensor(std::vector<int64_t>{3, 0})); }, "zero_length");
  expect_torch_error([&] { rnn::pack_padded_sequence(z2, tensor(std::vector<int64_t>{3, 2, 1})); },
                     "len_mismatch");
  const PackedSequence p = rnn::pack_sequence(make_seqs(), false);
  expect_torch_error([&] { rnn::pad_packed_sequence(p, false, 0.0, 3); }, "total_length");
  expect_torch_error([&] { rnn::pad_sequence({}); }, "empty");
  testing::expect_error<RuntimeError>([&] { rnn::pack_padded_sequence(z, std::vector<int64_t>{5, 4, 3}); },
                                      "Expected sequence length to be at most 4, but got 5");
}

// ---------------------------------------------------------------- RNN layers, packed

TEST(NnUtils, RnnLayersOnPackedInput) {
  for (const auto& c : refs::kRnnCases) {
    SCOPED_TRACE(c.name);
    const std::string mode = c.mode;
    const nn::RNNOptions o{.input_size = kI,
                           .hidden_size = kH,
                           .num_layers = c.num_layers,
                           .bidirectional = c.bidirectional,
                           .options = kDouble};
    std::vector<int64_t> lens = refs::kRnnLens;
    if (c.sorted) std::sort(lens.rbegin(), lens.rend());
    const int64_t B = static_cast<int64_t>(lens.size()), D = c.bidirectional ? 2 : 1;
    const Tensor x = inp({kT, B, kI}, 1.0);
    const Tensor h0 = c.h0 ? inp({D * c.num_layers, B, kH}, 2.0) : Tensor();
    const Tensor c0 = c.h0 && mode == "LSTM" ? inp({D * c.num_layers, B, kH}, 3.0) : Tensor();
    const PackedSequence packed = rnn::pack_padded_sequence(x, lens, false, c.sorted);

    std::shared_ptr<nn::RNNBase> m;
    PackedSequence out;
    Tensor hn, cn;
    if (mode == "LSTM") {
      auto l = std::make_shared<nn::LSTM>(o);
      set_params(*l);
      std::tie(out, hn, cn) = l->forward(packed, h0, c0);
      m = l;
    } else if (mode == "GRU") {
      auto g = std::make_shared<nn::GRU>(o);
      set_params(*g);
      std::tie(out, hn) = g->forward(packed, h0);
      m = g;
    } else {
      auto r = std::make_shared<nn::RNN>(o);
      set_params(*r);
      std::tie(out, hn) = r->forward(packed, h0);
      m = r;
    }
    const std::string pre = c.name;
    EXPECT_TRUE(out.batch_sizes.is_same(packed.batch_sizes));
    expect_close(out.data, pre + "/data");
    expect_close(hn, pre + "/h_n");
    Tensor loss = add(sum(mul(out.data, gw(out.data.sizes(), 10.0))), sum(mul(hn, gw(hn.sizes(), 11.0))));
    if (cn.defined()) {
      expect_close(cn, pre + "/c_n");
      loss = add(loss, sum(mul(cn, gw(cn.sizes(), 12.0))));
    }
    const auto params = m->named_parameters();
    Tensors wrt = params.values();
    std::vector<std::string> names = params.keys();
    wrt.push_back(x), names.push_back("x");
    if (h0.defined()) wrt.push_back(h0), names.push_back("h0");
    if (c0.defined()) wrt.push_back(c0), names.push_back("c0");
    const Tensors grads = ag::grad({loss}, wrt);
    for (size_t i = 0; i < grads.size(); ++i) expect_close(grads[i], pre + "/grad/" + names[i]);
  }
}

// The packed path with every sequence of full length equals the padded one.
TEST(NnUtils, PackedFullLengthMatchesPadded) {
  auto lstm = std::make_shared<nn::LSTM>(
      nn::LSTMOptions{.input_size = kI, .hidden_size = kH, .num_layers = 2, .bidirectional = true, .options = kDouble});
  const Tensor x = inp({kT, 2, kI}, 1.0);
  auto [out, hn, cn] = lstm->forward(x);
  auto [pout, phn, pcn] = lstm->forward(rnn::pack_padded_sequence(x, std::vector<int64_t>{kT, kT}));
  auto [padded, lengths] = rnn::pad_packed_sequence(pout);
  EXPECT_TRUE(allclose(padded, out, 1e-12, 1e-12));
  EXPECT_TRUE(allclose(phn, hn, 1e-12, 1e-12));
  EXPECT_TRUE(allclose(pcn, cn, 1e-12, 1e-12));
}

TEST(NnUtils, RnnPackedErrors) {
  auto gru = std::make_shared<nn::GRU>(nn::GRUOptions{.input_size = kI, .hidden_size = kH, .options = kDouble});
  const PackedSequence p = rnn::pack_padded_sequence(inp({kT, 3, kI}, 1.0), refs::kRnnLens, false, false);
  testing::expect_error<RuntimeError>([&] { gru->forward(p, zeros({1, 2, kH}, TensorOptions(kDouble))); },
                                      "Expected hidden size (1, 3, 4), got [1, 2, 4]");
  const PackedSequence bad = rnn::pack_padded_sequence(inp({kT, 3, 2}, 1.0), refs::kRnnLens, false, false);
  testing::expect_error<RuntimeError>([&] { gru->forward(bad); },
                                      "input.size(-1) must be equal to input_size. Expected 3, got 2");
}

// ---------------------------------------------------------------- weight_norm

TEST(NnUtils, WeightNormMatchesTorch) {
  for (const auto& [tag, dim] : std::vector<std::pair<std::string, std::optional<int64_t>>>{
           {"dim0", 0}, {"dim1", 1}, {"none", std::nullopt}}) {
    SCOPED_TRACE(tag);
    const std::string pre = "weight_norm/" + tag;
    auto lin = std::make_shared<nn::Linear>(nn::LinearOptions{.in_features = 4, .out_features = 3, .options = kDouble});
    set_params(*lin);
    const Tensor old_weight = lin->weight;
    nn::utils::weight_norm(lin, "weight", dim);
    EXPECT_EQ(lin->named_parameters().keys(), (std::vector<std::string>{"bias", "weight_g", "weight_v"}));
    const auto params = lin->named_parameters();
    expect_close(params["weight_g"], pre + "/weight_g");
    EXPECT_TRUE(params["weight_v"].is_alias_of(old_weight));
    const Tensor x = inp({2, 4}, 1.0);
    const Tensor y = (*lin)(x);
    expect_close(y, pre + "/y");
    const Tensors grads = ag::grad({sum(mul(y, gw(y.sizes(), 5.0)))},
                                   {params["weight_g"], params["weight_v"], params["bias"], x});
    expect_close(grads[0], pre + "/grad/weight_g");
    expect_close(grads[1], pre + "/grad/weight_v");
    expect_close(grads[2], pre + "/grad/bias");
    expect_close(grads[3], pre + "/grad/x");

    nn::utils::remove_weight_norm(lin);
    EXPECT_EQ(lin->named_parameters().keys(), (std::vector<std::string>{"bias", "weight"}));
    EXPECT_TRUE(lin->weight.is_same(lin->named_parameters()["weight"]));
    EXPECT_TRUE(ag::is_leaf(lin->weight));
    expect_close(lin->weight, pre + "/removed_weight");
    // Without the hook, the weight stays what it is.
    expect_close((*lin)(x), pre + "/y");
  }
}

TEST(NnUtils, WeightNormErrorsLeaveModuleUnchanged) {
  auto lin = std::make_shared<nn::Linear>(nn::LinearOptions{.in_features = 4, .out_features = 3, .options = kDouble});
  expect_torch_error([&] { nn::utils::remove_weight_norm(lin); }, "remove_weight_norm_missing");
  testing::expect_error<IndexError>([&] { nn::utils::weight_norm(lin, "weight", 2); }, "out of range");
  EXPECT_EQ(lin->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  auto relu = std::make_shared<nn::ReLU>();
  testing::expect_error<IndexError>([&] { nn::utils::weight_norm(relu); }, "'ReLU' object has no attribute 'weight'");
  nn::utils::weight_norm(lin);
  expect_torch_error([&] { nn::utils::weight_norm(lin); }, "weight_norm_twice");
  EXPECT_EQ(lin->named_parameters().keys(), (std::vector<std::string>{"bias", "weight_g", "weight_v"}));
}

// ---------------------------------------------------------------- spectral_norm

TEST(NnUtils, SpectralNormMatchesTorch) {
  for (const auto& [tag, n_iter, dim] :
       std::vector<std::tuple<std::string, int64_t, std::optional<int64_t>>>{{"default", 1, std::nullopt},
                                                                             {"dim1_iter2", 2, 1}}) {
    SCOPED_TRACE(tag);
    const std::string pre = "spectral_norm/" + tag;
    auto lin = std::make_shared<nn::Linear>(nn::LinearOptions{.in_features = 4, .out_features = 3, .options = kDouble});
    set_params(*lin);
    const Tensor old_weight = lin->weight;
    nn::utils::spectral_norm(lin, "weight", n_iter, 1e-12, dim);
    EXPECT_EQ(lin->named_parameters().keys(), (std::vector<std::string>{"bias", "weight_orig"}));
    EXPECT_EQ(lin->named_buffers().keys(), (std::vector<std::string>{"weight_u", "weight_v"}));
    EXPECT_TRUE(lin->named_parameters()["weight_orig"].is_same(old_weight));
    EXPECT_EQ(lin->state_dict().keys(), (std::vector<std::string>{"bias", "weight_orig", "weight_u", "weight_v"}));
    Tensor u = lin->named_buffers()["weight_u"], v = lin->named_buffers()["weight_v"];
    EXPECT_NEAR(norm(u).item<double>(), 1.0, 1e-12);  // a normalized random start
    {
      ag::NoGradGuard no_grad;
      u.copy_(formula(u.sizes(), 0.61, 5.0));
      v.copy_(formula(v.sizes(), 0.61, 6.0));
    }
    const Tensor x1 = inp({2, 4}, 1.0), x2 = inp({2, 4}, 2.0);
    (*lin)(x1);
    const Tensor y = (*lin)(x2);
    expect_close(u, pre + "/u");  // updated in place: the buffers are the same tensors
    expect_close(v, pre + "/v");
    expect_close(y, pre + "/y");
    const auto params = lin->named_parameters();
    const Tensors grads = ag::grad({sum(mul(y, gw(y.sizes(), 5.0)))}, {params["weight_orig"], params["bias"], x2});
    expect_close(grads[0], pre + "/grad/weight_orig");
    expect_close(grads[1], pre + "/grad/bias");
    expect_close(grads[2], pre + "/grad/x");
    lin->eval();  // no power iteration: u stays
    expect_close((*lin)(x1), pre + "/y_eval");
    expect_close(u, pre + "/u_eval");

    nn::utils::remove_spectral_norm(lin);
    EXPECT_EQ(lin->named_parameters().keys(), (std::vector<std::string>{"bias", "weight"}));
    EXPECT_TRUE(lin->named_buffers().empty());
    EXPECT_TRUE(lin->weight.is_same(lin->named_parameters()["weight"]));
    expect_close(lin->weight, pre + "/removed_weight");
  }
}

TEST(NnUtils, SpectralNormErrorsLeaveModuleUnchanged) {
  auto lin = std::make_shared<nn::Linear>(nn::LinearOptions{.in_features = 4, .out_features = 3, .options = kDouble});
  expect_torch_error([&] { nn::utils::remove_spectral_norm(lin); }, "remove_spectral_norm_missing");
  expect_torch_error([&] { nn::utils::spectral_norm(lin, "weight", 0); }, "spectral_norm_iterations");
  EXPECT_EQ(lin->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_TRUE(lin->named_buffers().empty());
  nn::utils::spectral_norm(lin);
  expect_torch_error([&] { nn::utils::spectral_norm(lin); }, "spectral_norm_twice");
  EXPECT_EQ(lin->named_parameters().keys(), (std::vector<std::string>{"bias", "weight_orig"}));
  // Before the first call the member is the unnormalized weight; a call normalizes it.
  EXPECT_TRUE(allclose(lin->weight, lin->named_parameters()["weight_orig"]));
  (*lin)(ones({1, 4}, TensorOptions(kDouble)));
  EXPECT_FALSE(allclose(lin->weight, lin->named_parameters()["weight_orig"]));
}

// ---------------------------------------------------------------- any parameter's name

// A module whose parameters have names no layer uses; its forward reads the bound handles,
// which registration fills.
struct Scaled : nn::ModuleBase<Scaled> {
  Tensor scale, shift;
  Scaled() {
    bind_tensor("scale", &Scaled::scale);
    bind_tensor("shift", &Scaled::shift);
    register_parameter("scale", zeros({3, 4}, TensorOptions(kDouble)));
    register_parameter("shift", zeros({3}, TensorOptions(kDouble)));
  }
  Tensor forward(const Tensor& x) { return add(matmul(x, scale.t()), shift); }
};

// The same module without bound handles: its forward would never see a normalized weight.
struct Unbound : nn::ModuleBase<Unbound> {
  Tensor w;
  Unbound() { w = register_parameter("w", zeros({3, 4}, TensorOptions(kDouble))); }
  Tensor forward(const Tensor& x) { return matmul(x, w.t()); }
};

std::shared_ptr<nn::Module> make_any(const std::string& kind) {
  if (kind == "lstm")
    return std::make_shared<nn::LSTM>(nn::LSTMOptions{.input_size = kI, .hidden_size = kH, .options = kDouble});
  return std::make_shared<Scaled>();
}

Tensors run_any(nn::Module& m, const std::string& kind, const Tensor& x) {
  if (kind == "lstm") {
    auto [out, h, c] = static_cast<nn::LSTM&>(m)(x);
    return {out, h, c};
  }
  return {static_cast<Scaled&>(m)(x)};
}

TEST(NnUtils, NormHooksOnAnyParameterMatchTorch) {
  for (const auto& [kind, pname, dim] : std::vector<std::tuple<std::string, std::string, std::optional<int64_t>>>{
           {"lstm", "weight_hh_l0", 0}, {"scaled", "scale", std::nullopt}, {"scaled", "shift", 0}}) {
    for (const std::string fn : {"weight_norm", "spectral_norm"}) {
      SCOPED_TRACE(fn + " " + kind + " " + pname);
      const std::string pre = fn + "_any/" + kind + "/" + pname;
      auto m = make_any(kind);
      set_params(*m);
      const Tensor x = kind == "lstm" ? inp({kT, 2, kI}, 1.0) : inp({2, 4}, 1.0);
      auto buffer = [&](const char* suffix) { return m->named_buffers()[pname + suffix]; };
      if (fn == "weight_norm") {
        nn::utils::weight_norm(m, pname, dim);
        EXPECT_FALSE(m->named_parameters().contains(pname));
        expect_close(m->named_parameters()[pname + "_g"], pre + "/" + pname + "_g");
        EXPECT_TRUE(m->tensor_attr(pname).defined());
      } else {
        nn::utils::spectral_norm(m, pname, 2, 1e-12, dim.value_or(0));
        EXPECT_EQ(m->named_buffers().keys(), (std::vector<std::string>{pname + "_u", pname + "_v"}));
        {
          ag::NoGradGuard no_grad;
          buffer("_u").copy_(formula(buffer("_u").sizes(), 0.61, 5.0));
          buffer("_v").copy_(formula(buffer("_v").sizes(), 0.61, 6.0));
        }
        run_any(*m, kind, inp(x.sizes(), 2.0));  // a first training call moves u and v
      }
      const Tensors outs = run_any(*m, kind, x);
      Tensor loss = zeros({}, TensorOptions(kDouble));
      for (size_t k = 0; k < outs.size(); ++k) {
        expect_close(outs[k], pre + "/y" + std::to_string(k));
        loss = add(loss, sum(mul(outs[k], gw(outs[k].sizes(), 5.0 + static_cast<double>(k)))));
      }
      const auto params = m->named_parameters();
      Tensors wrt = params.values();
      wrt.push_back(x);
      const Tensors grads = ag::grad({loss}, wrt);
      for (size_t k = 0; k < params.size(); ++k) expect_close(grads[k], pre + "/grad/" + params.keys()[k]);
      expect_close(grads.back(), pre + "/grad/x");
      if (fn == "spectral_norm") {
        expect_close(buffer("_u"), pre + "/u");
        expect_close(buffer("_v"), pre + "/v");
        m->eval();  // no power iteration: u and v stay
        const Tensors evals = run_any(*m, kind, x);
        for (size_t k = 0; k < evals.size(); ++k) expect_close(evals[k], pre + "/y_eval" + std::to_string(k));
        expect_close(buffer("_u"), pre + "/u");
        nn::utils::remove_spectral_norm(m, pname);
        EXPECT_TRUE(m->named_buffers().empty());
      } else {
        nn::utils::remove_weight_norm(m, pname);
      }
      const auto restored_params = m->named_parameters();  // find() points into this dict
      const Tensor* restored = restored_params.find(pname);
      ASSERT_TRUE(restored);
      EXPECT_TRUE(ag::is_leaf(*restored));
      expect_close(*restored, pre + "/removed");
      // The layer reads the restored parameter itself, not a leftover computed tensor.
      EXPECT_TRUE(m->tensor_attr(pname).is_same(*restored));
      if (kind == "scaled") {
        const auto scaled = std::static_pointer_cast<Scaled>(m);
        EXPECT_TRUE((pname == "scale" ? scaled->scale : scaled->shift).is_same(*restored));
      }
    }
  }
}

TEST(NnUtils, NormHooksWrongNameErrorsLeaveModuleUnchanged) {
  auto lin = std::make_shared<nn::Linear>(nn::LinearOptions{.in_features = 4, .out_features = 3, .options = kDouble});
  expect_torch_error([&] { nn::utils::weight_norm(lin, "foo"); }, "weight_norm_no_attribute");
  expect_torch_error([&] { nn::utils::spectral_norm(lin, "foo"); }, "spectral_norm_no_parameter");
  EXPECT_EQ(lin->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  auto bn = std::make_shared<nn::BatchNorm1d>(3);
  expect_torch_error([&] { nn::utils::weight_norm(bn, "running_mean"); }, "weight_norm_buffer");
  expect_torch_error([&] { nn::utils::spectral_norm(bn, "running_mean"); }, "spectral_norm_buffer");
  EXPECT_EQ(bn->named_buffers().keys(), (std::vector<std::string>{"running_mean", "running_var", "num_batches_tracked"}));
  nn::utils::weight_norm(lin);
  expect_torch_error([&] { nn::utils::remove_weight_norm(lin, "bias"); }, "remove_weight_norm_other_name");
  auto lin2 = std::make_shared<nn::Linear>(nn::LinearOptions{.in_features = 4, .out_features = 3, .options = kDouble});
  nn::utils::spectral_norm(lin2);
  expect_torch_error([&] { nn::utils::remove_spectral_norm(lin2, "bias"); }, "remove_spectral_norm_other_name");
  // weight_norm and spectral_norm on different parameters of one module, removed in any order.
  nn::utils::weight_norm(lin2, "bias");
  EXPECT_EQ(lin2->named_parameters().keys(), (std::vector<std::string>{"weight_orig", "bias_g", "bias_v"}));
  nn::utils::remove_spectral_norm(lin2);
  nn::utils::remove_weight_norm(lin2, "bias");
  EXPECT_EQ(lin2->named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  EXPECT_TRUE(lin2->weight.is_same(lin2->named_parameters()["weight"]));
  EXPECT_TRUE(lin2->bias.is_same(lin2->named_parameters()["bias"]));
  // A C++ module that binds no handle to the parameter is refused, and left as it was.
  auto unbound = std::make_shared<Unbound>();
  testing::expect_error<ValueError>([&] { nn::utils::weight_norm(unbound, "w"); },
                                    "weight_norm: Unbound binds no tensor handle to parameter 'w'");
  testing::expect_error<ValueError>([&] { nn::utils::spectral_norm(unbound, "w"); },
                                    "spectral_norm: Unbound binds no tensor handle to parameter 'w'");
  EXPECT_EQ(unbound->named_parameters().keys(), (std::vector<std::string>{"w"}));
}

// Plain tensor attributes: what the hooks set, kept apart from parameters and state.
TEST(NnUtils, PlainTensorAttributes) {
  auto lin = std::make_shared<nn::Linear>(nn::LinearOptions{.in_features = 4, .out_features = 3, .options = kDouble});
  testing::expect_error<TypeError>([&] { lin->set_tensor_attr("weight", ones({3, 4})); },
                                   "cannot assign a plain tensor as parameter 'weight'");
  lin->set_tensor_attr("extra", ones({2}));
  EXPECT_TRUE(lin->tensor_attr("extra").defined());
  EXPECT_FALSE(lin->tensor_attr("missing").defined());
  EXPECT_EQ(lin->state_dict().keys(), (std::vector<std::string>{"weight", "bias"}));
  testing::expect_error<ValueError>([&] { lin->register_parameter("extra", zeros({2})); },
                                    "attribute 'extra' already exists");
  auto bn = std::make_shared<nn::BatchNorm1d>(3);
  const Tensor mean = full({3}, 2.0);
  bn->set_tensor_attr("running_mean", mean);  // a buffer's new value, and its handle's
  EXPECT_TRUE(bn->running_mean.is_same(mean));
  EXPECT_TRUE(bn->named_buffers()["running_mean"].is_same(mean));
}

}  // namespace ember::nn_utils_test
