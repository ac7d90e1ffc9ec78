// nn::functional's embedding_bag, scaled_dot_product_attention, multi_head_attention_forward,
// max_unpool1d/2d/3d and dropouts (include/ember/nn/functional.h) against PyTorch 1.13's
// values, gradients, errors and warnings (nn_functional_refs.h, written by
// nn_functional_refs.py with the same formulas for inputs and weights), and the layers that
// now call them.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "ember/autograd.h"
#include "ember/nn.h"
#include "ember/nn/functional.h"
#include "nn_functional_refs.h"
#include "test_util.h"
#include "torch_refs.h"

namespace ember::nn_functional_test {

namespace F = nn::functional;
namespace ag = autograd;
namespace refs = nn_functional_refs;
using testing::as_double;
using testing::expect_error;
using testing::gw;
using testing::inp;

Tensor want(const std::string& name) {
  Tensor t = testing::find_ref(refs::kRefEntries, refs::kValues, name);
  EXPECT_TRUE(t.defined()) << "no reference " << name;
  return t;
}

std::string text(const std::string& name) {
  for (const auto& t : refs::kTexts)
    if (name == t[0]) return t[1];
  ADD_FAILURE() << "no reference text " << name;
  return "";
}

void expect_close(const Tensor& got, const Tensor& want, const std::string& what, double tol = 1e-9) {
  ASSERT_TRUE(got.defined()) << what;
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  const std::vector<double> g = as_double(got), w = as_double(want);
  for (size_t i = 0; i < g.size(); ++i) {
    if (std::isinf(w[i])) {
      EXPECT_EQ(g[i], w[i]) << what << " element " << i;
    } else {
      EXPECT_NEAR(g[i], w[i], tol * (1 + std::abs(w[i]))) << what << " element " << i;
    }
  }
}

// Compares outs with "<name>.out<j>" and the gradients of sum_j sum(out_j * gw(shape, j)) with
// respect to wrt with "<name>.grad<k>", as the generator's record().
void check(const std::string& name, const std::vector<Tensor>& outs, const std::vector<Tensor>& wrt) {
  SCOPED_TRACE(name);
  Tensor loss;
  for (size_t j = 0; j < outs.size(); ++j) {
    expect_close(outs[j], want(name + ".out" + std::to_string(j)), "out" + std::to_string(j));
    if (!ag::requires_grad(outs[j])) continue;
    const Tensor term = sum(mul(outs[j], gw(outs[j].sizes(), static_cast<double>(j))));
    loss = loss.defined() ? add(loss, term) : term;
  }
  if (wrt.empty()) return;
  ASSERT_TRUE(loss.defined());
  const std::vector<Tensor> g = ag::grad({loss}, wrt, {}, std::nullopt, false, true);
  for (size_t k = 0; k < wrt.size(); ++k)
    expect_close(g[k].defined() ? g[k] : zeros_like(wrt[k]), want(name + ".grad" + std::to_string(k)),
                 "grad" + std::to_string(k));
}

// torch's text of an error as Ember writes it: AssertionError is a RuntimeError here, shapes
// print as [2, 3] and dtypes without "torch.", and a Tensor argument's type is "Tensor".
std::string ember_text(std::string s) {
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  };
  if (s.rfind("AssertionError: ", 0) == 0) s = "RuntimeError: " + s.substr(16);
  if (const size_t at = s.find("\n[ torch."); at != std::string::npos) s.erase(at);  // the value torch appends
  replace_all("<class 'torch.Tensor'>", "Tensor");
  for (size_t at = s.find("torch.Size("); at != std::string::npos; at = s.find("torch.Size(")) {
    s.erase(at, 11);
    s.erase(s.find(')', at), 1);
  }
  replace_all("torch.", "");
  return s;
}

void expect_torch_error(const std::function<void()>& f, const std::string& name) {
  testing::expect_torch_error(f, ember_text(text(name)), name);
}

// The warnings f raised, in order.
std::vector<std::string> warnings_of(const std::function<void()>& f) {
  static std::vector<std::string>* sink = nullptr;
  std::vector<std::string> got;
  sink = &got;
  set_warning_handler([](const std::string& m) { sink->push_back(m); });
  try {
    f();
  } catch (...) {
    set_warning_handler(nullptr);
    throw;
  }
  set_warning_handler(nullptr);
  return got;
}

Tensor ints(const std::vector<int64_t>& v) { return tensor(v); }

// ---------------------------------------------------------------- embedding_bag

TEST(NnFunctional, EmbeddingBagMatchesTorch) {
  {
    const Tensor w = inp({10, 3}, 1.0), psw = inp({8}, 2.0);
    check("eb_sum_psw",
          {F::embedding_bag(ints({1, 2, 4, 5, 4, 3, 2, 9}), w, ints({0, 2, 2, 5}), std::nullopt, 2.0, false, "sum",
                            false, psw)},
          {w, psw});
  }
  {
    const Tensor w = inp({10, 3}, 1.0);
    check("eb_mean_2d_pad",
          {F::embedding_bag(tensor(std::vector<int64_t>{1, 2, 4, 2, 2, 3}).view({2, 3}), w, {}, std::nullopt, 2.0,
                            false, "mean", false, {}, false, -8)},
          {w});
  }
  {
    const Tensor w = inp({10, 3}, 1.0);
    check("eb_max_last",
          {F::embedding_bag(ints({1, 2, 4, 5, 4, 3, 2, 9}), w, ints({0, 3, 5, 8}), std::nullopt, 2.0, false, "max",
                            false, {}, true)},
          {w});
  }
  {
    const Tensor w = inp({5, 2}, 1.0);
    check("eb_sum_freq_pad",
          {F::embedding_bag(ints({1, 1, 4, 1, 0, 3}), w, ints({0, 4}), std::nullopt, 2.0, true, "sum", false, {},
                            false, 0)},
          {w});
  }
  {
    const Tensor w = inp({6, 4}, 1.0);
    const Tensor out = F::embedding_bag(ints({1, 2, 4, 1, 3}), w, ints({0, 1, 3}), 1.2, 1.5);
    expect_close(w, want("eb_mean_maxnorm.after0"), "renormed weight");
    check("eb_mean_maxnorm", {out}, {w});
  }
  {
    // int32 indices and offsets, as torch takes them; empty bags give zeros.
    const Tensor w = inp({6, 2}, 1.0);
    check("eb_mean_empty_bag",
          {F::embedding_bag(ints({3, 4}).to(kInt32), w, ints({0, 0, 2, 2}).to(kInt32))}, {w});
  }
}

TEST(NnFunctional, EmbeddingBagErrors) {
  const Tensor w = zeros({5, 3}), i2 = ints({1, 2});
  expect_torch_error([&] { F::embedding_bag(i2, w, ints({0}), std::nullopt, 2.0, false, "mean", false, ones({2})); },
                     "eb_psw_mode");
  expect_torch_error([&] { F::embedding_bag(i2.view({1, 2}), w, ints({0})); }, "eb_2d_offsets");
  expect_torch_error([&] { F::embedding_bag(i2, w); }, "eb_no_offsets");
  expect_torch_error([&] { F::embedding_bag(i2, w, ints({0}).view({1, 1})); }, "eb_offsets_2d");
  expect_torch_error([&] { F::embedding_bag(ints({1}).view({1, 1, 1}), w); }, "eb_3d");
  expect_torch_error([&] { F::embedding_bag(i2, w, ints({0}), std::nullopt, 2.0, false, "min"); }, "eb_mode");
  expect_torch_error([&] { F::embedding_bag(i2, w, ints({0}), std::nullopt, 2.0, true, "max"); }, "eb_max_freq");
  expect_torch_error([&] { F::embedding_bag(i2, w, ints({0}), std::nullopt, 2.0, false, "max", true); },
                     "eb_max_sparse");
  expect_torch_error([&] { F::embedding_bag(i2, w, ints({1})); }, "eb_offset0");
  expect_torch_error([&] { F::embedding_bag(i2, w, ints({0, 3})); }, "eb_offset_last");
  expect_torch_error([&] { F::embedding_bag(i2, w, zeros({0}, kInt64), std::nullopt, 2.0, false, "mean", false, {},
                                            true); },
                     "eb_last_offset_empty");
  expect_torch_error([&] { F::embedding_bag(i2, w, ints({0}), std::nullopt, 2.0, false, "mean", false, {}, false, 5); },
                     "eb_padding_idx");
  expect_error<ValueError>([&] { F::embedding_bag(i2, w, ints({0}), std::nullopt, 2.0, false, "sum", false, ones({3})); },
                           "embedding_bag: If per_sample_weights ([3]) is not None, then it must have the same shape "
                           "as the input ([2])");
  expect_error<RuntimeError>([&] { F::embedding_bag(i2, w.to(kInt32), ints({0})); },
                             "'weight' to have one of the following scalar types: Half, Float, Double; but got int32");
  expect_error<RuntimeError>([&] { F::embedding_bag(ints({0, 1, 2}), w, ints({0, 2, 1})); },
                             "offsets must be non-decreasing");
}

TEST(NnFunctional, EmbeddingBagLayerCallsTheFunction) {
  // The layer's result is the function's on its weight and options.
  nn::EmbeddingBag bag({.num_embeddings = 6, .embedding_dim = 2, .mode = "max", .include_last_offset = true,
                        .padding_idx = 1});
  const Tensor idx = ints({1, 2, 5, 0, 1}), off = ints({0, 2, 2, 5});
  const Tensor expected = F::embedding_bag(idx, bag.weight, off, std::nullopt, 2.0, false, "max", false, {}, true, 1);
  expect_close(bag(idx, off), expected, "EmbeddingBag", 0);
  EXPECT_EQ(bag(idx, off).sizes(), IntArrayRef({3, 2}));
}

// ---------------------------------------------------------------- scaled_dot_product_attention

Tensor bool_mask(int64_t l, int64_t s) {  // the generator's: false where (i + 2 j) % 3 == 1
  const Tensor i = arange(l, kInt64).unsqueeze(1), j = arange(s, kInt64).unsqueeze(0);
  return ne(remainder(add(i, mul(j, Scalar(2))), Scalar(3)), Scalar(1));
}

TEST(NnFunctional, ScaledDotProductAttentionMatchesTorch) {
  struct Case {
    const char* name;
    std::vector<int64_t> q, k, v;
    Tensor mask;
    bool causal;
  };
  const std::vector<Case> cases = {
      {"sdpa_plain", {2, 3, 4, 5}, {2, 3, 6, 5}, {2, 3, 6, 7}, {}, false},
      {"sdpa_bool", {3, 4, 5}, {3, 6, 5}, {3, 6, 2}, bool_mask(4, 6), false},
      {"sdpa_float_bcast", {2, 3, 4, 5}, {1, 3, 6, 5}, {1, 3, 6, 7}, testing::formula({2, 1, 4, 6}, 0.61, 4.0), false},
      {"sdpa_causal", {2, 5, 3}, {2, 5, 3}, {2, 5, 4}, {}, true},
  };
  for (const Case& c : cases) {
    const Tensor q = inp(c.q, 1.0), k = inp(c.k, 2.0), v = inp(c.v, 3.0);
    check(c.name, {F::scaled_dot_product_attention(q, k, v, c.mask, 0.0, c.causal)}, {q, k, v});
  }
}

TEST(NnFunctional, ScaledDotProductAttentionDropoutAndErrors) {
  const Tensor q = ones({2, 4, 3}), k = ones({2, 5, 3}), v = arange(30, TensorOptions(kDouble)).view({2, 5, 3});
  // Equal scores: uniform weights; dropout zeroes some and scales the rest by 1 / (1 - p).
  manual_seed(0);
  const Tensor plain = F::scaled_dot_product_attention(q, k, v.to(kFloat));
  const Tensor dropped = F::scaled_dot_product_attention(q, k, v.to(kFloat), {}, 0.5);
  EXPECT_EQ(dropped.sizes(), plain.sizes());
  EXPECT_FALSE(allclose(plain, dropped));
  expect_error<RuntimeError>([&] { F::scaled_dot_product_attention(q, k, k, ones({4, 5}, kBool), 0.0, true); },
                             "Explicit attn_mask should not be set when is_causal=True");
  expect_error<RuntimeError>([&] { F::scaled_dot_product_attention(q, ones({2, 5, 4}), k); },
                             "query and key must have the same last dim, got 3 and 4");
  expect_error<RuntimeError>([&] { F::scaled_dot_product_attention(q, k, ones({2, 4, 3})); },
                             "key and value must have the same sequence length, got 5 and 4");
  expect_error<RuntimeError>([&] { F::scaled_dot_product_attention(ones({3}), k, k); },
                             "expected query, key and value of at least 2 dims");
}

// ---------------------------------------------------------------- multi_head_attention_forward

struct MhaCase {
  const char* name;
  std::vector<int64_t> q = {}, k = {}, v = {};
  int64_t heads = 2, E = 6;
  std::vector<int64_t> separate = {};  // kdim, vdim
  bool bias = true, bias_kv = false, zero_attn = false;
  Tensor kpm = {}, attn_mask = {};
  bool need_weights = true, average = true;
  std::vector<std::vector<int64_t>> statics = {};
  std::string same = "";
};

// Builds the case's arguments as the generator's mha() (inputs from seed 1, parameters from
// seed 10 in its order), runs the function and compares.
void run_mha(const MhaCase& c) {
  std::vector<Tensor> args{inp(c.q, 1.0)};
  if (c.same.empty()) args.insert(args.end(), {inp(c.k, 2.0), inp(c.v, 3.0)});
  if (c.same == "kv") args.push_back(inp(c.k, 2.0));
  const Tensor query = args[0];
  const Tensor key = c.same == "qkv" ? query : args[1];
  const Tensor value = c.same == "qkv" ? query : c.same == "kv" ? key : args[2];
  double seed = 10.0;
  auto param = [&](IntArrayRef shape) {
    args.push_back(inp(shape, seed));
    seed += 1.0;
    return args.back();
  };
  const int64_t E = c.E;
  F::MultiheadAttentionForwardFuncOptions o{.embed_dim_to_check = E, .num_heads = c.heads};
  if (c.separate.empty()) {
    o.in_proj_weight = param({3 * E, E});
  } else {
    o.use_separate_proj_weight = true;
    o.q_proj_weight = param({E, E});
    o.k_proj_weight = param({E, c.separate[0]});
    o.v_proj_weight = param({E, c.separate[1]});
  }
  if (c.bias) o.in_proj_bias = param({3 * E});
  if (c.bias_kv) o.bias_k = param({1, 1, E}), o.bias_v = param({1, 1, E});
  o.out_proj_weight = param({E, E});
  if (c.bias) o.out_proj_bias = param({E});
  if (!c.statics.empty()) o.static_k = param(c.statics[0]), o.static_v = param(c.statics[1]);
  o.add_zero_attn = c.zero_attn;
  o.training = false;
  o.key_padding_mask = c.kpm;
  o.need_weights = c.need_weights;
  o.attn_mask = c.attn_mask;
  o.average_attn_weights = c.average;
  auto [out, w] = F::multi_head_attention_forward(query, key, value, o);
  EXPECT_EQ(w.defined(), c.need_weights) << c.name;
  std::vector<Tensor> outs{out};
  if (w.defined()) outs.push_back(w);
  check(c.name, outs, args);
}

TEST(NnFunctional, MultiHeadAttentionForwardMatchesTorch) {
  const int64_t L = 4, S = 5, N = 2, E = 6;
  Tensor kpm = zeros({N, S}, kBool);
  {
    ag::NoGradGuard no_grad;
    kpm.select(0, 1).select(0, S - 1).fill_(true);
  }
  const Tensor not_mask = logical_not(bool_mask(L, S));
  run_mha({.name = "mha_self", .q = {L, N, E}, .kpm = kpm.narrow(1, 0, L),
           .attn_mask = testing::formula({L, L}, 0.61, 5.0), .same = "qkv"});
  run_mha({.name = "mha_kv_biaskv_zero", .q = {L, N, E}, .k = {S, N, E}, .bias_kv = true, .zero_attn = true,
           .kpm = kpm, .attn_mask = not_mask, .average = false, .same = "kv"});
  run_mha({.name = "mha_separate", .q = {L, N, E}, .k = {S, N, 4}, .v = {S, N, 5}, .separate = {4, 5}, .kpm = kpm,
           .attn_mask = testing::formula({N * 2, L, S}, 0.61, 6.0)});
  run_mha({.name = "mha_nobias_noweights", .q = {L, N, E}, .k = {S, N, E}, .v = {S, N, E}, .bias = false,
           .need_weights = false});
  run_mha({.name = "mha_unbatched", .q = {L, E}, .k = {S, E}, .v = {S, E}, .kpm = kpm.select(0, 1),
           .attn_mask = not_mask});
  run_mha({.name = "mha_static", .q = {L, N, E}, .k = {S, N, E}, .v = {S, N, E}, .heads = 3,
           .statics = {{N * 3, 3, 2}, {N * 3, 3, 2}}});
}

TEST(NnFunctional, MultiHeadAttentionForwardErrorsAndWarnings) {
  const Tensor q3 = zeros({3, 2, 4}), m3 = zeros({2, 4});
  auto call = [](const Tensor& q, const Tensor& k, const Tensor& v,
                 const std::function<void(F::MultiheadAttentionForwardFuncOptions&)>& set = {}) {
    F::MultiheadAttentionForwardFuncOptions o{.embed_dim_to_check = 4, .num_heads = 2, .in_proj_weight = zeros({12, 4}),
                                              .out_proj_weight = zeros({4, 4})};
    if (set) set(o);
    return F::multi_head_attention_forward(q, k, v, o);
  };
  using O = F::MultiheadAttentionForwardFuncOptions;
  expect_torch_error([&] { call(zeros({3, 2, 4, 1}), q3, q3); }, "mha_query_4d");
  expect_torch_error([&] { call(q3, m3, m3); }, "mha_key_2d");
  expect_torch_error([&] { call(q3, q3, q3, [](O& o) { o.key_padding_mask = zeros({2, 3, 1}, kBool); }); },
                     "mha_kpm_3d");
  expect_torch_error([&] { call(q3, q3, q3, [](O& o) { o.attn_mask = zeros({1, 1, 3, 3}); }); }, "mha_attn_4d");
  expect_torch_error([&] { call(zeros({3, 4}), q3, q3); }, "mha_unbatched_key_3d");
  expect_torch_error(
      [&] { call(zeros({3, 4}), zeros({3, 4}), zeros({3, 4}), [](O& o) { o.key_padding_mask = zeros({1, 3}, kBool); }); },
      "mha_unbatched_kpm_2d");
  expect_torch_error([&] { call(q3, q3, q3, [](O& o) { o.key_padding_mask = zeros({2, 3}, kInt64); }); },
                     "mha_kpm_dtype");
  expect_torch_error([&] { call(q3, q3, q3, [](O& o) { o.embed_dim_to_check = 5; }); }, "mha_embed_dim");
  expect_torch_error([&] { call(q3, q3, q3, [](O& o) { o.num_heads = 3; }); }, "mha_heads");
  expect_torch_error([&] { call(q3, q3, q3, [](O& o) { o.in_proj_weight = {}; }); }, "mha_no_in_proj");
  expect_torch_error([&] { call(q3, q3, q3, [](O& o) { o.use_separate_proj_weight = true; }); }, "mha_no_q_proj");
  expect_torch_error([&] { call(q3, q3, q3, [](O& o) { o.attn_mask = zeros({3, 3}, kInt64); }); }, "mha_attn_dtype");
  expect_torch_error([&] { call(q3, q3, q3, [](O& o) { o.attn_mask = zeros({3, 3, 3}); }); }, "mha_attn_3d_bad");
  expect_torch_error([&] {
    call(q3, q3, q3, [](O& o) { o.bias_k = zeros({1, 1, 4}), o.bias_v = zeros({1, 1, 4}), o.static_k = zeros({4, 3, 2}); });
  }, "mha_static_bias");
  expect_torch_error([&] { call(q3, q3, q3, [](O& o) { o.static_k = zeros({3, 3, 2}); }); }, "mha_static_k_size0");
  expect_torch_error([&] { call(q3, q3, q3, [](O& o) { o.static_v = zeros({4, 3, 3}); }); }, "mha_static_v_size2");
  expect_error<RuntimeError>([&] { call(q3, q3, q3, [](O& o) { o.bias_k = zeros({1, 1, 4}); }); },
                             "bias_k and bias_v must both be given or both be None");
  expect_error<RuntimeError>([&] { call(q3, q3, q3, [](O& o) { o.attn_mask = zeros({3, 4}); }); },
                             "The shape of the 2D attn_mask is [3, 4], but should be (3, 3).");
  expect_error<RuntimeError>([&] { call(q3, q3, q3, [](O& o) { o.key_padding_mask = zeros({2, 4}, kBool); }); },
                             "expecting key_padding_mask shape of (2, 3), but got [2, 4]");
  // A byte mask warns and works as a bool one.
  const std::vector<std::string> w =
      warnings_of([&] { call(q3, q3, q3, [](O& o) { o.attn_mask = zeros({3, 3}, kUInt8); }); });
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0], text("mha_byte_mask.0"));
}

TEST(NnFunctional, MultiheadAttentionLayerCallsTheFunction) {
  // Batch-first self-attention through the layer equals the function on time-major views, in
  // eval mode; in training, dropout on the weights changes the result.
  manual_seed(0);
  nn::MultiheadAttention m(nn::MultiheadAttentionOptions{.embed_dim = 4, .num_heads = 2, .dropout = 0.5,
                                                         .add_bias_kv = true, .batch_first = true});
  m.eval();
  const Tensor x = randn({2, 3, 4});
  auto [out, w] = m(x, x, x);
  const Tensor xt = x.transpose(0, 1);
  auto [f_out, f_w] = F::multi_head_attention_forward(
      xt, xt, xt,
      {.embed_dim_to_check = 4, .num_heads = 2, .in_proj_weight = m.in_proj_weight, .in_proj_bias = m.in_proj_bias,
       .bias_k = m.bias_k, .bias_v = m.bias_v, .dropout_p = 0.5, .out_proj_weight = m.out_proj->weight,
       .out_proj_bias = m.out_proj->bias, .training = false});
  expect_close(out, f_out.transpose(0, 1), "output", 1e-6);
  expect_close(w, f_w, "weights", 1e-6);
  m.train();
  EXPECT_FALSE(allclose(std::get<0>(m(x, x, x)), out));
}

// ---------------------------------------------------------------- max_unpool

TEST(NnFunctional, MaxUnpoolMatchesTorch) {
  struct Case {
    const char* name;
    int dims;
    std::vector<int64_t> shape, kernel, stride, padding, output_size;
  };
  const std::vector<Case> cases = {
      {"unpool1d", 1, {2, 3, 8}, {2}, {}, {0}, {}},
      {"unpool1d_size", 1, {3, 9}, {3}, {2}, {1}, {10}},
      {"unpool2d_size", 2, {1, 2, 5, 4}, {2}, {}, {0}, {1, 2, 5, 5}},
      {"unpool2d_pad", 2, {2, 6, 7}, {3, 2}, {2, 1}, {1, 0}, {6, 7}},
      {"unpool3d", 3, {1, 4, 3, 4}, {2}, {1}, {0}, {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Tensor x = inp(c.shape, 1.0);
    Tensor y, idx;
    if (c.dims == 1) std::tie(y, idx) = max_pool1d_with_indices(x, c.kernel, c.stride, c.padding);
    if (c.dims == 2) std::tie(y, idx) = max_pool2d_with_indices(x, c.kernel, c.stride, c.padding);
    if (c.dims == 3) std::tie(y, idx) = max_pool3d_with_indices(x, c.kernel, c.stride, c.padding);
    expect_close(idx, want(std::string(c.name) + ".indices"), "indices", 0);
    const Tensor out = c.dims == 1   ? F::max_unpool1d(y, idx, c.kernel, c.stride, c.padding, c.output_size)
                       : c.dims == 2 ? F::max_unpool2d(y, idx, c.kernel, c.stride, c.padding, c.output_size)
                                     : F::max_unpool3d(y, idx, c.kernel, c.stride, c.padding, c.output_size);
    check(c.name, {out}, {x});
  }
}

TEST(NnFunctional, MaxUnpoolErrors) {
  auto [y, i] = max_pool1d_with_indices(zeros({1, 1, 8}), {2});
  expect_torch_error([&] { F::max_unpool1d(y, i, {2}, {}, {0}, {1, 8}); }, "unpool_size_len");
  expect_torch_error([&] { F::max_unpool1d(y, i, {2}, {}, {0}, {10}); }, "unpool_size_range");
  expect_torch_error([&] { F::max_unpool2d(zeros({1, 1, 2, 2}), zeros({1, 1, 2, 2}, kInt64), {2}, {}, {0}, {4, 2}); },
                     "unpool_size_range2d");
  expect_error<ValueError>([&] { F::max_unpool2d(zeros({1, 1, 2, 2}), zeros({1, 1, 2, 2}, kInt64), {2, 2, 2}); },
                           "max_unpool2d: kernel_size must be one value or 2 values, got [2, 2, 2]");
  // The layer's output_size errors are the function's.
  nn::MaxUnpool1d layer({.kernel_size = {2}});
  expect_torch_error([&] { layer(y, i, std::vector<int64_t>{10}); }, "unpool_size_range");
}

// ---------------------------------------------------------------- dropout

TEST(NnFunctional, DropoutErrorsAndWarnings) {
  const Tensor x = ones({2, 3});
  expect_torch_error([&] { F::dropout(x, -0.1); }, "dropout_p-0.1");
  expect_torch_error([&] { F::dropout(x, 1.5); }, "dropout_p1.5");
  expect_torch_error([&] { F::dropout1d(ones({3})); }, "dropout1d_1d");
  expect_torch_error([&] { F::dropout1d(ones({1, 2, 3, 4})); }, "dropout1d_4d");
  expect_torch_error([&] { warnings_of([&] { F::dropout2d(ones({3})); }); }, "dropout2d_1d");
  expect_torch_error([&] { F::alpha_dropout(x, 2.0); }, "alpha_p");
  expect_torch_error([&] { F::feature_alpha_dropout(ones({3}), 0.5, true); }, "feature_alpha_1d");
  const std::vector<std::pair<std::string, std::function<void()>>> warn_cases = {
      {"dropout2d_3d", [] { F::dropout2d(ones({2, 3, 4})); }},
      {"dropout2d_2d", [] { F::dropout2d(ones({2, 3})); }},
      {"dropout2d_5d", [] { F::dropout2d(ones({1, 2, 3, 4, 5})); }},
      {"dropout3d_3d", [] { F::dropout3d(ones({2, 3, 4})); }},
      {"dropout3d_4d", [] { F::dropout3d(ones({2, 3, 4, 5})); }},
      {"dropout1d_2d", [] { F::dropout1d(ones({2, 3})); }},
  };
  for (const auto& [name, f] : warn_cases) {
    const std::vector<std::string> got = warnings_of(f);
    std::vector<std::string> expected;
    for (const auto& t : refs::kTexts)
      if (std::string(t[0]).rfind(name + ".", 0) == 0) expected.emplace_back(t[1]);
    EXPECT_EQ(got, expected) << name;
  }
}

// Every channel (the dims after the first `lead`) of y is all zeros or all x * scale.
void expect_whole_channels(const Tensor& x, const Tensor& y, int64_t channels, double scale, const std::string& what) {
  const Tensor xs = x.reshape({channels, -1}), ys = y.reshape({channels, -1});
  int64_t dropped = 0;
  for (int64_t c = 0; c < channels; ++c) {
    const Tensor yc = ys.select(0, c);
    if (all(eq(yc, Scalar(0))).item<bool>()) {
      ++dropped;
    } else {
      EXPECT_TRUE(allclose(yc, mul(xs.select(0, c), scale))) << what << " channel " << c;
    }
  }
  EXPECT_GT(dropped, 0) << what;
  EXPECT_LT(dropped, channels) << what;
}

TEST(NnFunctional, DropoutRanksTrainingAndInplace) {
  manual_seed(0);
  const double p = 0.5, scale = 2.0;
  // dropout1d: (C, L) is one sample; dropout3d: (C, D, H, W) too; dropout2d: 3-D is (N, C, L).
  const Tensor x2 = add(rand({64, 5}), 1.0);
  expect_whole_channels(x2, F::dropout1d(x2, p), 64, scale, "dropout1d unbatched");
  const Tensor x3 = add(rand({8, 16, 5}), 1.0);
  expect_whole_channels(x3, F::dropout1d(x3, p), 128, scale, "dropout1d batched");
  warnings_of([&] { expect_whole_channels(x3, F::dropout2d(x3, p), 128, scale, "dropout2d (N, C, L)"); });
  const Tensor x4 = add(rand({64, 2, 2, 3}), 1.0);
  expect_whole_channels(x4, F::dropout2d(x4, p), 64 * 2, scale, "dropout2d");
  expect_whole_channels(x4, F::dropout3d(x4, p), 64, scale, "dropout3d unbatched");
  const Tensor x5 = add(rand({4, 16, 2, 2, 3}), 1.0);
  expect_whole_channels(x5, F::dropout3d(x5, p), 64, scale, "dropout3d batched");
  // Evaluation: the input's values; alpha dropouts default to training=False, as torch.
  EXPECT_TRUE(equal(F::dropout(x4, p, false), x4));
  EXPECT_TRUE(equal(F::dropout1d(x2, p, false), x2));
  EXPECT_TRUE(equal(F::dropout2d(x4, p, false), x4));
  EXPECT_TRUE(equal(F::dropout3d(x5, p, false), x5));
  EXPECT_TRUE(equal(F::alpha_dropout(x4), x4));
  EXPECT_TRUE(equal(F::feature_alpha_dropout(x4), x4));
  // feature_alpha_dropout while training: a dropped channel is one constant, a kept one varies.
  const Tensor fa = F::feature_alpha_dropout(x4, p, true).reshape({128, -1});
  const int64_t constant = eq(amax(fa, {1}), amin(fa, {1})).sum().item<int64_t>();
  EXPECT_GT(constant, 0);
  EXPECT_LT(constant, 128);
  // inplace: the result is written into the input, which is returned.
  Tensor y = add(rand({32, 4}), 1.0);
  const Tensor before = y.clone();
  const Tensor r = F::dropout1d(y, p, true, true);
  EXPECT_TRUE(r.is_same(y));
  expect_whole_channels(before, y, 32, scale, "dropout1d inplace");
  Tensor z = add(rand({100}), 1.0);
  const Tensor rz = F::dropout(z, p, true, true);
  EXPECT_TRUE(rz.is_same(z));
  EXPECT_GT(eq(z, Scalar(0)).sum().item<int64_t>(), 0);
  // Gradients flow through the kept channels only, scaled as the values.
  const Tensor g = ag::set_requires_grad(ones({16, 3}));
  const Tensor out = F::dropout1d(g, p);
  const Tensor dg = ag::grad({sum(out)}, {g})[0];
  EXPECT_TRUE(equal(dg, out.detach()));
}

TEST(NnFunctional, DropoutLayersCallTheFunctions) {
  // The layers' rank checks name them; 3-D input to Dropout2d warns as the function does.
  nn::Dropout2d d2(0.5);
  const std::vector<std::string> w = warnings_of([&] { d2(ones({2, 3, 4})); });
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0], text("dropout2d_3d.0"));
  expect_error<RuntimeError>([] { nn::Dropout1d(0.5)(ones({3})); }, "Dropout1d: expected input of shape");
  nn::Dropout3d d3(0.5);
  d3.eval();
  EXPECT_TRUE(equal(d3(ones({2, 3, 4, 5})), ones({2, 3, 4, 5})));
}

}  // namespace ember::nn_functional_test
