// The C++ layers added after the first set (include/ember/nn/pooling.h, padding.h,
// vision.h, distance.h; conv padding modes; InstanceNorm, LocalResponseNorm; more activations
// and losses): outputs and gradients against PyTorch's numbers (nn_layers2_refs.h, written by
// nn_layers2_refs.py with the same layers, weights and inputs), printing, state_dict keys, and
// the errors for bad inputs and options.
#include <cmath>
#include <functional>

#include "ember/autograd.h"
#include "ember/nn.h"
#include "nn_layers2_refs.h"
#include "test_util.h"

namespace ember::nn_layers2_test {

namespace ag = autograd;
using nn::Tensors;
using testing::as_double;
using testing::expect_error;

// nn_layers2_refs.py's det(): integers divided by 50 (in [-1, 1)) or by 103 (in (0, 1)).
Tensor det(IntArrayRef shape, int64_t seed, bool positive = false) {
  const int64_t n = compute_numel(shape);
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = (i * 37 + seed * 11) % 101;
    v[static_cast<size_t>(i)] = positive ? static_cast<double>(k + 1) / 103.0 : static_cast<double>(k) / 50.0 - 1.0;
  }
  return tensor(v).view(shape);
}
Tensor f(IntArrayRef shape, int64_t seed) { return ag::set_requires_grad(det(shape, seed)); }
Tensor p(IntArrayRef shape, int64_t seed) { return ag::set_requires_grad(det(shape, seed, true)); }
Tensor vals(const std::vector<double>& v, IntArrayRef shape) { return tensor(v).view(shape); }
Tensor ints(const std::vector<int64_t>& v, IntArrayRef shape) { return tensor(v).view(shape); }

void expect_close(const std::vector<double>& got, const std::vector<double>& want, const std::string& what,
                  double tol = 1e-9) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * (1 + std::abs(want[i]))) << what << " element " << i;
}

// Sets m's parameters as the script does, runs `run` on the inputs and compares the outputs
// and the gradients of sum_j sum(out_j * det(out_j.shape, 900 + j)) with PyTorch's.
// grad_tol: the relative tolerance of the gradients.
void check(const std::string& key, nn::Module& m, const Tensors& inputs,
           const std::function<Tensors(const Tensors&)>& run, double grad_tol = 1e-9) {
  SCOPED_TRACE(key);
  const auto it = nn_layers2_refs::refs().find(key);
  ASSERT_NE(it, nn_layers2_refs::refs().end()) << "no reference for " << key;
  const nn_layers2_refs::Ref& ref = it->second;
  m.to(kDouble);  // PyTorch's numbers are float64
  Tensors params = m.parameters();
  {
    ag::NoGradGuard no_grad;
    for (size_t k = 0; k < params.size(); ++k) params[k].copy_(det(params[k].sizes(), 10 + static_cast<int64_t>(k)));
  }
  const Tensors outs = run(inputs);
  ASSERT_EQ(outs.size(), ref.outputs.size());
  Tensor loss;
  for (size_t j = 0; j < outs.size(); ++j) {
    EXPECT_EQ(outs[j].sizes(), IntArrayRef(ref.shapes[j])) << "output " << j;
    expect_close(as_double(outs[j]), ref.outputs[j], key + " output " + std::to_string(j));
    if (!ag::requires_grad(outs[j])) continue;
    const Tensor term = sum(mul(outs[j], det(outs[j].sizes(), 900 + static_cast<int64_t>(j))));
    loss = loss.defined() ? add(loss, term) : term;
  }
  Tensors wrt;
  for (const Tensor& x : inputs)
    if (ag::requires_grad(x)) wrt.push_back(x);
  const size_t n_in = wrt.size();
  ASSERT_EQ(n_in, ref.input_grads.size());
  ASSERT_EQ(params.size(), ref.param_grads.size());
  wrt.insert(wrt.end(), params.begin(), params.end());
  if (wrt.empty()) return;
  ASSERT_TRUE(loss.defined());
  const Tensors g = ag::grad({loss}, wrt, {}, std::nullopt, false, true);
  for (size_t i = 0; i < wrt.size(); ++i) {
    const Tensor gi = g[i].defined() ? g[i] : zeros_like(wrt[i]);
    const auto& want = i < n_in ? ref.input_grads[i] : ref.param_grads[i - n_in];
    expect_close(as_double(gi), want, key + (i < n_in ? " input grad " : " param grad ") + std::to_string(i),
                 grad_tol);
  }
}

// A module called on its inputs, one output.
template <class M>
void check1(const std::string& key, M&& m, const Tensors& inputs, double grad_tol = 1e-9) {
  auto mod = std::make_shared<std::decay_t<M>>(std::move(m));
  check(key, *mod, inputs, [&](const Tensors& x) { return mod->call(x); }, grad_tol);
}

std::string repr(const nn::Module& m) { return m.repr(); }

// ---------------------------------------------------------------- convolution padding

TEST(NnLayers2, ConvPaddingModesMatchPyTorch) {
  check1("Conv1dSameEven", nn::Conv1d({.in_channels = 2, .out_channels = 3, .kernel_size = {4}, .padding = "same"}),
         {f({2, 2, 7}, 1)});
  check1("Conv2dSameDilated",
         nn::Conv2d({.in_channels = 2, .out_channels = 2, .kernel_size = {2, 3}, .padding = "same", .dilation = {3, 2}}),
         {f({1, 2, 6, 7}, 2)});
  check1("Conv2dSameReflect", nn::Conv2d({.in_channels = 2, .out_channels = 2, .kernel_size = {3, 4},
                                          .padding = "same", .padding_mode = "reflect"}),
         {f({1, 2, 5, 6}, 3)});
  check1("Conv2dSameCircular", nn::Conv2d({.in_channels = 1, .out_channels = 2, .kernel_size = {2}, .padding = "same",
                                           .bias = false, .padding_mode = "circular"}),
         {f({1, 1, 4, 5}, 4)});
  check1("Conv1dSameReplicate", nn::Conv1d({.in_channels = 2, .out_channels = 2, .kernel_size = {3}, .padding = "same",
                                            .dilation = {2}, .padding_mode = "replicate"}),
         {f({2, 8}, 5)});
  check1("Conv3dValid", nn::Conv3d({.in_channels = 1, .out_channels = 2, .kernel_size = {2}, .stride = {2},
                                    .padding = "valid"}),
         {f({1, 1, 4, 5, 4}, 6)});
}

TEST(NnLayers2, ConvPaddingReprAndErrors) {
  EXPECT_EQ(repr(nn::Conv2d({.in_channels = 2, .out_channels = 3, .kernel_size = {2, 3}, .padding = "same",
                             .dilation = {1, 2}, .padding_mode = "reflect"})),
            "Conv2d(2, 3, kernel_size=(2, 3), stride=(1, 1), padding=same, dilation=(1, 2), padding_mode=reflect)");
  EXPECT_EQ(repr(nn::Conv1d({.in_channels = 2, .out_channels = 3, .kernel_size = {2}, .padding = "valid"})),
            "Conv1d(2, 3, kernel_size=(2,), stride=(1,), padding=valid)");
  EXPECT_EQ(repr(nn::Conv1d({.in_channels = 2, .out_channels = 3, .kernel_size = {2}, .padding = {1}})),
            "Conv1d(2, 3, kernel_size=(2,), stride=(1,), padding=(1,))");
  expect_error<ValueError>(
      [] { nn::Conv2d({.in_channels = 2, .out_channels = 3, .kernel_size = {3}, .padding = "foo"}); },
      "Conv2d: Invalid padding string 'foo', should be one of {'valid', 'same'}");
  expect_error<ValueError>(
      [] { nn::Conv2d({.in_channels = 2, .out_channels = 3, .kernel_size = {3}, .stride = {2}, .padding = "same"}); },
      "padding='same' is not supported for strided convolutions");
  expect_error<ValueError>(
      [] { nn::ConvTranspose2d({.in_channels = 2, .out_channels = 3, .kernel_size = {3}, .padding = "same"}); },
      "not supported for transposed convolutions");
  nn::Conv2d c({.in_channels = 2, .out_channels = 3, .kernel_size = {3}, .padding = "same"});
  EXPECT_EQ(c.named_parameters().keys(), (std::vector<std::string>{"weight", "bias"}));
  expect_error<RuntimeError>([&] { c.forward(zeros({1, 3, 4, 4})); }, "got shape [1, 3, 4, 4]");
}

// ---------------------------------------------------------------- pooling

TEST(NnLayers2, PoolingMatchesPyTorch) {
  {
    auto m = std::make_shared<nn::AdaptiveMaxPool1d>(std::vector<int64_t>{3});
    check("AdaptiveMaxPool1d", *m, {f({2, 2, 7}, 7)}, [&](const Tensors& x) {
      auto [y, i] = m->forward_with_indices(x[0]);
      EXPECT_EQ(as_double((*m)(x[0])), as_double(y));  // forward gives the maxima alone
      return Tensors{y, i};
    });
  }
  check1("AdaptiveMaxPool2d", nn::AdaptiveMaxPool2d({2, 3}), {f({1, 2, 5, 7}, 8)});
  {
    auto m = std::make_shared<nn::AdaptiveMaxPool3d>(std::vector<int64_t>{2});
    check("AdaptiveMaxPool3dUnbatched", *m, {f({1, 4, 4, 5}, 9)}, [&](const Tensors& x) {
      auto [y, i] = m->forward_with_indices(x[0]);
      return Tensors{y, i};
    });
  }
  {
    nn::MaxPool1d pool({.kernel_size = {2}});
    nn::MaxUnpool1d m({.kernel_size = {2}});
    check("MaxUnpool1d", m, {f({1, 2, 8}, 10)}, [&](const Tensors& x) {
      auto [y, i] = pool.forward_with_indices(x[0]);
      return Tensors{m(y, i)};
    });
  }
  {
    nn::MaxPool2d pool({.kernel_size = {2}, .stride = {2}});
    nn::MaxUnpool2d m({.kernel_size = {2}, .stride = {2}});
    check("MaxUnpool2dOutputSize", m, {f({1, 1, 5, 4}, 11)}, [&](const Tensors& x) {
      auto [y, i] = pool.forward_with_indices(x[0]);
      return Tensors{m(y, i, std::vector<int64_t>{5, 5})};
    });
  }
  {
    nn::MaxPool3d pool({.kernel_size = {2}, .stride = {1}});
    nn::MaxUnpool3d m({.kernel_size = {2}, .stride = {1}});
    check("MaxUnpool3d", m, {f({1, 1, 3, 3, 3}, 12)}, [&](const Tensors& x) {
      auto [y, i] = pool.forward_with_indices(x[0]);
      return Tensors{m(y, i)};
    });
  }
  check1("LPPool1d", nn::LPPool1d({.norm_type = 2, .kernel_size = {3}, .stride = {2}}), {f({1, 2, 8}, 13)});
  check1("LPPool1dCeil", nn::LPPool1d({.norm_type = 3, .kernel_size = {2}, .ceil_mode = true}), {p({2, 7}, 14)});
  check1("LPPool2d", nn::LPPool2d({.norm_type = 1.5, .kernel_size = {2, 3}}), {p({1, 2, 5, 7}, 15)});
}

TEST(NnLayers2, PoolingReprAndErrors) {
  EXPECT_EQ(repr(nn::AdaptiveMaxPool2d({2, 3})), "AdaptiveMaxPool2d(output_size=(2, 3))");
  EXPECT_EQ(repr(nn::AdaptiveMaxPool1d({3})), "AdaptiveMaxPool1d(output_size=3)");
  EXPECT_EQ(repr(nn::MaxUnpool2d({.kernel_size = {2}})), "MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))");
  EXPECT_EQ(repr(nn::MaxUnpool1d({.kernel_size = {2}, .stride = {1}})),
            "MaxUnpool1d(kernel_size=(2,), stride=(1,), padding=(0,))");
  EXPECT_EQ(repr(nn::LPPool2d({.norm_type = 2, .kernel_size = {3}})),
            "LPPool2d(norm_type=2.0, kernel_size=3, stride=None, ceil_mode=False)");
  EXPECT_EQ(repr(nn::LPPool1d({.norm_type = 1.5, .kernel_size = {2}, .stride = {1}})),
            "LPPool1d(norm_type=1.5, kernel_size=2, stride=1, ceil_mode=False)");

  nn::AdaptiveMaxPool2d amp({2});
  expect_error<RuntimeError>([&] { amp(zeros({4})); }, "AdaptiveMaxPool2d: expected input of shape (N, C, H, W) or (C, H, W), got shape [4]");
  expect_error<ValueError>([] { nn::AdaptiveMaxPool2d({-2}); }, "output_size must be non-negative");
  expect_error<ValueError>([] { nn::AdaptiveMaxPool2d({1, 2, 3}); }, "expected output_size to have 1 or 2 values");
  nn::MaxUnpool2d un({.kernel_size = {2}});
  const Tensor x = zeros({1, 2, 4, 4});
  expect_error<RuntimeError>([&] { un(x, zeros({1, 2, 4, 3}, kInt64)); },
                             "MaxUnpool2d: expected indices of the input's shape [1, 2, 4, 4], got shape [1, 2, 4, 3]");
  expect_error<ValueError>([&] { un(x, zeros({1, 2, 4, 4}, kInt64), std::vector<int64_t>{3, 3}); },
                           "invalid output_size \"[3, 3]\" (dim 0 must be between 6 and 10)");  // torch's text
  expect_error<ValueError>([] { nn::MaxUnpool2d({.kernel_size = {0}}); }, "kernel_size must be positive");
  nn::LPPool2d lp({.norm_type = 2, .kernel_size = {2}});
  expect_error<RuntimeError>([&] { lp(zeros({4})); }, "LPPool2d: expected input of shape");
  expect_error<ValueError>([] { nn::LPPool1d({.norm_type = 2, .kernel_size = {2, 2}}); },
                           "LPPool1d: expected kernel_size to have 1 or 1 values");
}

// ---------------------------------------------------------------- padding

TEST(NnLayers2, PaddingMatchesPyTorch) {
  check1("ReflectionPad1d", nn::ReflectionPad1d({1, 2}), {f({2, 3, 5}, 16)});
  check1("ReflectionPad2d", nn::ReflectionPad2d({1, 0, 2, 1}), {f({1, 2, 4, 4}, 17)});
  check1("ReflectionPad3d", nn::ReflectionPad3d(1), {f({1, 3, 3, 3}, 18)});
  check1("ReplicationPad1d", nn::ReplicationPad1d(2), {f({1, 2, 3}, 19)});
  check1("ReplicationPad2d", nn::ReplicationPad2d({0, 1, 2, 3}), {f({2, 3, 3}, 20)});
  check1("ReplicationPad3d", nn::ReplicationPad3d({1, 0, 0, 1, 1, 2}), {f({1, 1, 2, 3, 2}, 21)});
  check1("ZeroPad2d", nn::ZeroPad2d({1, -1, 2, 0}), {f({1, 2, 3, 4}, 22)});
  check1("ConstantPad1d", nn::ConstantPad1d(2, 3.5), {f({2, 3}, 23)});
  check1("ConstantPad2d", nn::ConstantPad2d({1, 2, 0, 1}, -1.0), {f({1, 2, 2}, 24)});
  check1("ConstantPad3d", nn::ConstantPad3d(1, 0.5), {f({1, 2, 2, 2}, 25)});
}

TEST(NnLayers2, PaddingReprAndErrors) {
  EXPECT_EQ(repr(nn::ReflectionPad2d(1)), "ReflectionPad2d((1, 1, 1, 1))");
  EXPECT_EQ(repr(nn::ReflectionPad1d({1, 2})), "ReflectionPad1d((1, 2))");
  EXPECT_EQ(repr(nn::ReplicationPad3d(2)), "ReplicationPad3d((2, 2, 2, 2, 2, 2))");
  EXPECT_EQ(repr(nn::ZeroPad2d(2)), "ZeroPad2d((2, 2, 2, 2))");
  EXPECT_EQ(repr(nn::ConstantPad3d(1, 3.5)), "ConstantPad3d(padding=(1, 1, 1, 1, 1, 1), value=3.5)");
  EXPECT_TRUE(nn::ConstantPad1d(1, 0).state_dict().keys().empty());

  expect_error<ValueError>([] { nn::ReflectionPad2d({1, 2, 3}); },
                           "ReflectionPad2d: expected padding to have 1 or 4 values, got [1, 2, 3]");
  expect_error<ValueError>([] { nn::ReplicationPad1d(-1); }, "ReplicationPad1d: padding must be non-negative");
  nn::ReflectionPad1d r(3);
  expect_error<RuntimeError>([&] { r(zeros({1, 2, 3})); },
                             "ReflectionPad1d: padding size should be less than the corresponding input dimension, "
                             "but got padding (3, 3) at dimension 2 of input of shape [1, 2, 3]");
  nn::ReflectionPad2d r2(1);
  expect_error<RuntimeError>([&] { r2(zeros({4})); },
                             "ReflectionPad2d: expected input of shape (N, C, H, W) or (C, H, W), got shape [4]");
  nn::ConstantPad2d c(1, 0.0);
  expect_error<RuntimeError>([&] { c(zeros({3})); }, "ConstantPad2d: expected an input with at least 2 dims");
}

// ---------------------------------------------------------------- normalization

TEST(NnLayers2, InstanceAndLocalResponseNormMatchPyTorch) {
  check1("InstanceNorm1d", nn::InstanceNorm1d(3), {f({2, 3, 5}, 26)});
  {
    auto m = std::make_shared<nn::InstanceNorm2d>(
        nn::InstanceNormOptions{.num_features = 2, .momentum = 0.3, .affine = true, .track_running_stats = true});
    check("InstanceNorm2dAffineRunning", *m, {f({2, 2, 3, 4}, 27)}, [&](const Tensors& x) {
      return Tensors{(*m)(x[0]), m->running_mean.clone(), m->running_var.clone()};
    });
  }
  {
    nn::InstanceNorm3d m({.num_features = 2, .affine = true, .track_running_stats = true});
    m.eval();
    check("InstanceNorm3dEval", m, {f({2, 2, 2, 3, 2}, 28)}, [&](const Tensors& x) { return Tensors{m(x[0])}; });
  }
  check1("InstanceNorm2dUnbatched", nn::InstanceNorm2d({.num_features = 2, .eps = 0.01, .affine = true}),
         {f({2, 3, 4}, 29)});
  check1("LocalResponseNorm3d", nn::LocalResponseNorm(3), {f({2, 5, 4}, 30)});
  check1("LocalResponseNorm4d", nn::LocalResponseNorm({.size = 2, .alpha = 0.1, .beta = 0.5, .k = 2.0}),
         {f({1, 4, 3, 3}, 31)});
}

TEST(NnLayers2, NormReprStateDictAndErrors) {
  EXPECT_EQ(repr(nn::InstanceNorm2d(3)),
            "InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, track_running_stats=False)");
  EXPECT_EQ(repr(nn::LocalResponseNorm(2)), "LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)");
  nn::InstanceNorm1d full({.num_features = 3, .affine = true, .track_running_stats = true});
  EXPECT_EQ(full.state_dict().keys(),
            (std::vector<std::string>{"weight", "bias", "running_mean", "running_var", "num_batches_tracked"}));
  EXPECT_TRUE(nn::InstanceNorm1d(3).state_dict().keys().empty());

  expect_error<ValueError>([] { nn::InstanceNorm2d(0); }, "InstanceNorm2d: num_features must be positive");
  nn::InstanceNorm2d in(3);
  expect_error<ValueError>([&] { in(zeros({4, 4})); }, "InstanceNorm2d: expected 3D or 4D input (got 2D input of shape [4, 4])");
  nn::InstanceNorm2d affine({.num_features = 3, .affine = true});
  expect_error<RuntimeError>([&] { affine(zeros({2, 4, 4, 4})); },
                             "InstanceNorm2d: expected input with 3 channels (num_features) at dim 1, got shape [2, 4, 4, 4]");
  // Running statistics stay as they were after a failed call.
  const Tensor before = full.running_mean.clone();
  expect_error<RuntimeError>([&] { full(zeros({2, 4, 5})); }, "got shape [2, 4, 5]");
  EXPECT_EQ(as_double(full.running_mean), as_double(before));
  nn::InstanceNorm1d one(3);
  expect_error<ValueError>([&] { one(zeros({3, 1})); }, "expected more than 1 spatial element when training");
  nn::LocalResponseNorm lrn(2);
  expect_error<ValueError>([&] { lrn(zeros({2, 2})); },
                           "LocalResponseNorm: expected 3D or higher dimensionality input (got 2 dimensions");
  expect_error<ValueError>([] { nn::LocalResponseNorm(0); }, "size must be positive");
}

// ---------------------------------------------------------------- activations

TEST(NnLayers2, ActivationsMatchPyTorch) {
  check1("Softshrink", nn::Softshrink(0.3), {f({3, 4}, 32)});
  check1("Hardshrink", nn::Hardshrink(0.4), {f({3, 4}, 33)});
  check1("Threshold", nn::Threshold(0.2, -1.0), {f({3, 4}, 34)});
  {
    nn::RReLU m(0.1, 0.3);
    m.eval();
    check("RReLUEval", m, {f({3, 4}, 35)}, [&](const Tensors& x) { return Tensors{m(x[0])}; });
  }
  check1("GLU", nn::GLU(1), {f({2, 4, 3}, 36)});
  check1("Softmin", nn::Softmin(1), {f({2, 4, 3}, 37)});
  check1("Softmax2d", nn::Softmax2d(), {f({1, 3, 2, 2}, 38)});

  // Training RReLU draws slopes in [lower, upper] for negative inputs.
  nn::RReLU r(0.1, 0.3);
  const Tensor x = neg(ones({50}, kDouble));
  for (double v : as_double(r(x))) EXPECT_TRUE(v <= -0.1 + 1e-12 && v >= -0.3 - 1e-12) << v;
  // FeatureAlphaDropout: identity in evaluation, whole channels alike while training.
  nn::FeatureAlphaDropout fad(0.5);
  const Tensor y = fad(ones({4, 6, 5}, kDouble));
  for (int64_t c = 0; c < 6; ++c) {
    const auto ch = as_double(y.select(1, c).select(0, 0));
    for (double v : ch) EXPECT_EQ(v, ch[0]);
  }
  fad.eval();
  EXPECT_EQ(as_double(fad(ones({2, 3}))), std::vector<double>(6, 1.0));
}

TEST(NnLayers2, DistancesMatchPyTorch) {
  check1("PairwiseDistance", nn::PairwiseDistance(), {f({3, 4}, 39), f({3, 4}, 40)});
  check1("PairwiseDistanceP1Keepdim", nn::PairwiseDistance({.p = 1.0, .eps = 1e-3, .keepdim = true}),
         {f({3, 4}, 41), f({4}, 42)});
  check1("PairwiseDistanceNegativeP", nn::PairwiseDistance({.p = -1.5}), {f({4}, 43), f({4}, 44)});
  check1("CosineSimilarity", nn::CosineSimilarity(), {f({3, 4}, 45), f({3, 4}, 46)});
  check1("CosineSimilarityDim0Broadcast", nn::CosineSimilarity({.dim = 0, .eps = 1e-6}),
         {f({3, 4, 2}, 47), f({3, 1, 2}, 48)});
  EXPECT_EQ(repr(nn::PairwiseDistance()), "PairwiseDistance()");
  EXPECT_EQ(repr(nn::CosineSimilarity()), "CosineSimilarity()");
  expect_error<RuntimeError>([] { nn::cosine_similarity(ones({2, 3}, kComplexDouble), ones({2, 3})); },
                             "cosine_similarity(): complex inputs are not supported");
}

TEST(NnLayers2, FunctionalCompositesMatchPyTorch) {
  namespace F = nn::functional;
  nn::Identity id;
  auto run = [&](const std::string& key, const Tensors& inputs, const std::function<Tensors(const Tensors&)>& fn) {
    check(key, id, inputs, fn);
  };
  run("F_softmin", {f({2, 4, 3}, 90)}, [](const Tensors& x) { return Tensors{F::softmin(x[0], 1)}; });
  run("F_normalize", {f({3, 4}, 91)}, [](const Tensors& x) { return Tensors{F::normalize(x[0], 3.0, 0, 1e-3)}; });
  run("F_local_response_norm4d", {f({2, 5, 3, 2}, 92)},
      [](const Tensors& x) { return Tensors{F::local_response_norm(x[0], 3, 0.01, 0.6, 1.5)}; });
  run("F_local_response_norm3d", {f({2, 5, 4}, 93)},
      [](const Tensors& x) { return Tensors{F::local_response_norm(x[0], 2)}; });
  run("F_lp_pool1d", {p({2, 3, 7}, 94)}, [](const Tensors& x) { return Tensors{F::lp_pool1d(x[0], 2.0, 3, 2, true)}; });
  run("F_lp_pool2d", {p({2, 3, 6, 5}, 95)}, [](const Tensors& x) { return Tensors{F::lp_pool2d(x[0], 1.5, {2, 3})}; });
  run("F_instance_norm", {f({2, 3, 5}, 96)}, [](const Tensors& x) {
    return Tensors{F::instance_norm(x[0], {}, {}, det({3}, 97), det({3}, 98), true, 0.1, 1e-3)};
  });
  run("F_instance_norm_running", {f({2, 3, 2, 2}, 99), det({3}, 104), det({3}, 105, true)}, [](const Tensors& x) {
    return Tensors{F::instance_norm(x[0], x[1], x[2], {}, {}, true, 0.3), x[1], x[2]};
  });
  run("F_instance_norm_eval", {f({2, 3, 4}, 100)}, [](const Tensors& x) {
    return Tensors{F::instance_norm(x[0], det({3}, 104), det({3}, 105, true), {}, {}, false)};
  });
  run("F_gaussian_nll_loss", {f({3, 2}, 101), det({3, 2}, 102), p({3}, 103)}, [](const Tensors& x) {
    return Tensors{F::gaussian_nll_loss(x[0], x[1], x[2], true, 1e-3, Reduction::Sum)};
  });
  run("F_multilabel_soft_margin_loss", {f({2, 3}, 106), vals({1, 0, 0, 1, 1, 0}, {2, 3})}, [](const Tensors& x) {
    return Tensors{F::multilabel_soft_margin_loss(x[0], x[1], det({3}, 107, true), Reduction::None)};
  });
  // torch's errors.
  expect_error<ValueError>([] { F::local_response_norm(ones({2, 3}), 2); },
                           "Expected 3D or higher dimensionality input (got 2 dimensions)");
  expect_error<ValueError>([] { F::gaussian_nll_loss(ones({2, 3}), ones({2, 3}), ones({3, 3})); },
                           "var is of incorrect size");
  expect_error<ValueError>([] { F::gaussian_nll_loss(ones({2, 3}), ones({2, 3}), full({2}, -1.0)); },
                           "var has negative entry/entries");
  expect_error<ValueError>([] { F::instance_norm(ones({2, 3, 1})); },
                           "Expected more than 1 spatial element when training, got input size [2, 3, 1]");
}

TEST(NnLayers2, ActivationReprAndErrors) {
  EXPECT_EQ(repr(nn::Softshrink()), "Softshrink(0.5)");
  EXPECT_EQ(repr(nn::Hardshrink(0.25)), "Hardshrink(0.25)");
  EXPECT_EQ(repr(nn::Threshold(0.1, 20)), "Threshold(threshold=0.1, value=20.0)");
  EXPECT_EQ(repr(nn::RReLU()), "RReLU(lower=0.125, upper=0.3333333333333333)");
  EXPECT_EQ(repr(nn::GLU()), "GLU(dim=-1)");
  EXPECT_EQ(repr(nn::Softmin(1)), "Softmin(dim=1)");
  EXPECT_EQ(repr(nn::Softmax2d()), "Softmax2d()");
  EXPECT_EQ(repr(nn::FeatureAlphaDropout(0.2)), "FeatureAlphaDropout(p=0.2, inplace=False)");

  expect_error<ValueError>([] { nn::Softshrink(-1); }, "Softshrink: lambda must be greater or equal to 0");
  expect_error<ValueError>([] { nn::RReLU(0.5, 0.1); }, "RReLU: lower bound (0.5) should be less than or equal");
  expect_error<ValueError>([] { nn::FeatureAlphaDropout(1.5); }, "FeatureAlphaDropout: dropout probability");
  nn::GLU g(1);
  expect_error<RuntimeError>([&] { g(zeros({2, 3})); },
                             "GLU: halving dimension must be even, but dimension 1 is size 3 (input of shape [2, 3])");
  nn::Softmax2d s;
  expect_error<RuntimeError>([&] { s(zeros({2, 3})); }, "Softmax2d: expected input of shape (N, C, H, W) or (C, H, W), got shape [2, 3]");
}

// ---------------------------------------------------------------- blocks, pixels, resampling

TEST(NnLayers2, VisionLayersMatchPyTorch) {
  check1("Fold", nn::Fold({.output_size = {4, 5}, .kernel_size = {2, 3}, .padding = {1, 0}}), {f({1, 12, 15}, 39)});
  check1("Unfold", nn::Unfold({.kernel_size = {2, 3}, .dilation = {1, 2}, .padding = {1}, .stride = {2, 1}}),
         {f({1, 2, 5, 6}, 40)});
  check1("PixelShuffle", nn::PixelShuffle(2), {f({1, 8, 2, 3}, 41)});
  check1("PixelUnshuffle", nn::PixelUnshuffle(2), {f({1, 2, 4, 6}, 42)});
  check1("UpsampleNearest", nn::Upsample({.scale_factor = {2}}), {f({1, 2, 3}, 43)});
  check1("UpsampleBilinearAlign", nn::Upsample({.size = {5, 4}, .mode = "bilinear", .align_corners = true}),
         {f({1, 1, 3, 2}, 44)});
  check1("UpsampleBicubic", nn::Upsample({.scale_factor = {1.5}, .mode = "bicubic"}), {f({1, 1, 4, 4}, 45)});
  check1("UpsampleTrilinear", nn::Upsample({.scale_factor = {2, 1.5, 1}, .mode = "trilinear"}), {f({1, 1, 2, 2, 2}, 46)});
  check1("UpsampleLinear", nn::Upsample({.scale_factor = {2.5}, .mode = "linear"}), {f({1, 2, 3}, 47)});
  check1("UpsampleNearestExact", nn::Upsample({.size = {5}, .mode = "nearest-exact"}), {f({1, 1, 3}, 48)});
  check1("UpsampleArea", nn::Upsample({.size = {2, 3}, .mode = "area"}), {f({1, 1, 5, 6}, 49)});
  check1("UpsampleRecompute",
         nn::Upsample({.scale_factor = {1.7}, .mode = "bilinear", .recompute_scale_factor = true}),
         {f({1, 1, 3, 3}, 50)});
  check1("UpsamplingNearest2d", nn::UpsamplingNearest2d({4}, {}), {f({1, 1, 2, 3}, 51)});
  check1("UpsamplingBilinear2d", nn::UpsamplingBilinear2d({}, {2}), {f({1, 1, 2, 3}, 52)});
}

TEST(NnLayers2, VisionReprAndErrors) {
  EXPECT_EQ(repr(nn::Fold({.output_size = {3}, .kernel_size = {2}})),
            "Fold(output_size=3, kernel_size=2, dilation=1, padding=0, stride=1)");
  EXPECT_EQ(repr(nn::Unfold({.kernel_size = {2, 3}})), "Unfold(kernel_size=(2, 3), dilation=1, padding=0, stride=1)");
  EXPECT_EQ(repr(nn::PixelShuffle(2)), "PixelShuffle(upscale_factor=2)");
  EXPECT_EQ(repr(nn::PixelUnshuffle(2)), "PixelUnshuffle(downscale_factor=2)");
  EXPECT_EQ(repr(nn::Upsample({.scale_factor = {2}})), "Upsample(scale_factor=2.0, mode=nearest)");
  EXPECT_EQ(repr(nn::Upsample({.size = {3}, .mode = "bilinear", .align_corners = true})),
            "Upsample(size=3, mode=bilinear)");
  EXPECT_EQ(repr(nn::Upsample({.scale_factor = {2, 1.5}})), "Upsample(scale_factor=(2.0, 1.5), mode=nearest)");
  EXPECT_EQ(repr(nn::UpsamplingNearest2d({}, {2})), "UpsamplingNearest2d(scale_factor=2.0, mode=nearest)");
  EXPECT_EQ(repr(nn::UpsamplingBilinear2d({4}, {})), "UpsamplingBilinear2d(size=4, mode=bilinear)");

  nn::Fold fold({.output_size = {4, 5}, .kernel_size = {2, 3}});
  expect_error<RuntimeError>([&] { fold(zeros({1, 12, 7})); },
                             "Fold: expected input of shape (N, C * 6, 9) or (C * 6, 9) for kernel_size [2, 3] and "
                             "output_size [4, 5], got shape [1, 12, 7]");
  nn::Unfold unfold({.kernel_size = {2}});
  expect_error<RuntimeError>([&] { unfold(zeros({2, 2})); }, "Unfold: expected input of shape (N, C, H, W) or (C, H, W)");
  nn::PixelShuffle ps(2);
  expect_error<RuntimeError>([&] { ps(zeros({1, 3, 2, 2})); }, "PixelShuffle: expected input of shape (*, C * 4, H, W)");
  nn::PixelUnshuffle pu(2);
  expect_error<RuntimeError>([&] { pu(zeros({1, 3, 3, 2})); }, "got shape [1, 3, 3, 2]");
  expect_error<ValueError>([] { nn::PixelShuffle(0); }, "upscale_factor must be positive");
  expect_error<ValueError>([] { nn::Upsample({.size = {2}, .scale_factor = {2}}); },
                           "only one of size or scale_factor should be defined");
  expect_error<ValueError>([] { nn::Upsample(nn::UpsampleOptions{}); }, "either size or scale_factor should be defined");
  expect_error<ValueError>([] { nn::Upsample({.size = {2}, .align_corners = true}); },
                           "align_corners option can only be set with the interpolating modes");
  expect_error<ValueError>([] { nn::Upsample({.size = {2}, .mode = "cubic"}); }, "mode must be one of");
  nn::Upsample bilinear({.size = {4}, .mode = "bilinear"});
  expect_error<RuntimeError>([&] { bilinear(zeros({1, 2, 3})); },
                             "Upsample: bilinear mode needs input of shape (N, C, H, W), got shape [1, 2, 3]");
}

// ---------------------------------------------------------------- EmbeddingBag

TEST(NnLayers2, EmbeddingBagMatchesPyTorch) {
  check1("EmbeddingBagMean2d", nn::EmbeddingBag(10, 3), {ints({1, 2, 4, 4, 3, 9}, {2, 3})});
  check1("EmbeddingBagSumOffsets", nn::EmbeddingBag({.num_embeddings = 10, .embedding_dim = 3, .mode = "sum"}),
         {ints({1, 2, 4, 5, 4, 3}, {6}), ints({0, 2, 2}, {3}), p({6}, 87)});
  check1("EmbeddingBagMaxPadding", nn::EmbeddingBag({.num_embeddings = 10, .embedding_dim = 3, .mode = "max",
                                                     .include_last_offset = true, .padding_idx = 4}),
         {ints({1, 4, 2, 4, 9, 0}, {6}), ints({0, 3, 4, 6}, {4})});
  check1("EmbeddingBagMeanPadding", nn::EmbeddingBag({.num_embeddings = 10, .embedding_dim = 3, .padding_idx = -8}),
         {ints({2, 2, 5, 2, 7, 1}, {3, 2})});
}

TEST(NnLayers2, EmbeddingBagReprAndErrors) {
  EXPECT_EQ(repr(nn::EmbeddingBag(10, 3)), "EmbeddingBag(10, 3, mode=mean)");
  EXPECT_EQ(repr(nn::EmbeddingBag({.num_embeddings = 10, .embedding_dim = 3, .max_norm = 1.0, .norm_type = 1.0,
                                   .scale_grad_by_freq = true, .mode = "sum", .padding_idx = -1})),
            "EmbeddingBag(10, 3, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True, mode=sum, padding_idx=9)");
  EXPECT_EQ(nn::EmbeddingBag(4, 2).state_dict().keys(), std::vector<std::string>{"weight"});
  expect_error<ValueError>([] { nn::EmbeddingBag({.num_embeddings = 4, .embedding_dim = 2, .mode = "min"}); },
                           "EmbeddingBag: mode has to be one of sum, mean or max, got 'min'");
  expect_error<ValueError>([] { nn::EmbeddingBag({.num_embeddings = 4, .embedding_dim = 2, .padding_idx = 4}); },
                           "padding_idx 4 must be within num_embeddings (4)");
  nn::EmbeddingBag bag(4, 2);
  expect_error<ValueError>([&] { bag(zeros({2, 3}, kInt64), zeros({2}, kInt64)); },
                           "EmbeddingBag: if input is 2D, then offsets has to be undefined");
  expect_error<ValueError>([&] { bag(zeros({3}, kInt64)); }, "EmbeddingBag: offsets has to be a 1D tensor for 1D input");
  expect_error<RuntimeError>([&] { bag(zeros({3}, kInt64), ones({1}, kInt64)); }, "offsets[0] has to be 0");
  expect_error<NotImplementedError>([&] { bag(zeros({3}, kInt64), zeros({1}, kInt64), ones({3})); },
                                    "per_sample_weights is only supported for mode='sum'");
  expect_error<TypeError>([&] { bag(zeros({3})); }, "expected indices of dtype int64 or int32");
}

// ---------------------------------------------------------------- losses

TEST(NnLayers2, LossesMatchPyTorch) {
  const std::vector<double> pm = {1, -1, -1, 1, 1, -1};
  check1("SmoothL1Loss", nn::SmoothL1Loss(Reduction::Mean, 0.5), {f({2, 3}, 53), det({2, 3}, 54)});
  check1("HuberLoss", nn::HuberLoss(Reduction::Sum, 0.7), {f({2, 3}, 55), det({2, 3}, 56)});
  check1("PoissonNLLLoss", nn::PoissonNLLLoss({.full = true}), {f({2, 3}, 57), vals({0, 1, 2, 3, 4, 5}, {2, 3})});
  check1("PoissonNLLLossRates", nn::PoissonNLLLoss({.log_input = false, .reduction = Reduction::None}),
         {p({2, 3}, 58), vals({0, 1, 2, 3, 4, 5}, {2, 3})});
  check1("GaussianNLLLoss", nn::GaussianNLLLoss({.full = true}), {f({3, 2}, 59), det({3, 2}, 60), p({3}, 61)});
  check1("KLDivLoss", nn::KLDivLoss(Reduction::Sum), {f({2, 3}, 62), det({2, 3}, 63, true)});
  check1("KLDivLossLogTarget", nn::KLDivLoss(Reduction::None, true), {f({2, 3}, 64), det({2, 3}, 65)});
  check1("BCELoss", nn::BCELoss({.weight = det({3}, 66, true)}), {p({2, 3}, 67), det({2, 3}, 68, true)});
  check1("HingeEmbeddingLoss", nn::HingeEmbeddingLoss(0.5), {f({2, 3}, 69), vals(pm, {2, 3})});
  check1("MultiLabelMarginLoss", nn::MultiLabelMarginLoss(), {f({2, 4}, 70), ints({3, 0, -1, 1, 1, 2, 3, 0}, {2, 4})});
  check1("SoftMarginLoss", nn::SoftMarginLoss(), {f({2, 3}, 71), vals(pm, {2, 3})});
  check1("MultiLabelSoftMarginLoss", nn::MultiLabelSoftMarginLoss({.weight = det({3}, 72, true)}),
         {f({2, 3}, 73), vals({1, 0, 0, 1, 1, 0}, {2, 3})});
  check1("CosineEmbeddingLoss", nn::CosineEmbeddingLoss(0.2), {f({3, 4}, 74), f({3, 4}, 75), vals({1, -1, -1}, {3})});
  check1("MarginRankingLoss", nn::MarginRankingLoss(0.1), {f({5}, 76), f({5}, 77), vals({1, -1, 1, -1, 1}, {5})});
  check1("MultiMarginLoss", nn::MultiMarginLoss({.p = 2, .margin = 0.5, .weight = det({4}, 78, true)}),
         {f({3, 4}, 79), ints({0, 3, 2}, {3})});
  check1("TripletMarginLoss", nn::TripletMarginLoss({.margin = 0.5, .p = 1.5, .swap = true}),
         {f({3, 4}, 80), f({3, 4}, 81), f({3, 4}, 82)});
  check1("TripletMarginWithDistanceLoss", nn::TripletMarginWithDistanceLoss({.margin = 2.0, .reduction = Reduction::Sum}),
         {f({3, 4}, 83), f({3, 4}, 84), f({3, 4}, 85)});
  {
    nn::CTCLoss m;
    check("CTCLoss", m,
          {f({6, 2, 4}, 86), ints({1, 2, 2, 3, 1, 0}, {2, 3}), ints({6, 5}, {2}), ints({3, 2}, {2})},
          [&](const Tensors& x) { return Tensors{m(log_softmax(x[0], 2), x[1], x[2], x[3])}; });
  }
  // A custom distance replaces the pairwise one.
  nn::TripletMarginWithDistanceLoss l1({.distance_function = [](const Tensor& a, const Tensor& b) {
                                          return sum(abs(sub(a, b)), {1});
                                        },
                                        .margin = 1.0});
  const Tensor a = det({2, 3}, 1), pos = det({2, 3}, 2), n = det({2, 3}, 3);
  const Tensor want = mean(clamp_min(add(sub(sum(abs(sub(a, pos)), {1}), sum(abs(sub(a, n)), {1})), Scalar(1.0)), Scalar(0)));
  EXPECT_NEAR(l1(a, pos, n).item<double>(), want.item<double>(), 1e-12);
}

TEST(NnLayers2, LossReprStateDictAndErrors) {
  EXPECT_EQ(repr(nn::SmoothL1Loss()), "SmoothL1Loss()");
  EXPECT_EQ(repr(nn::TripletMarginLoss()), "TripletMarginLoss()");
  EXPECT_EQ(nn::BCELoss({.weight = ones({3})}).state_dict().keys(), std::vector<std::string>{"weight"});
  EXPECT_EQ(nn::MultiMarginLoss({.weight = ones({3})}).state_dict().keys(), std::vector<std::string>{"weight"});
  EXPECT_TRUE(nn::CTCLoss().state_dict().keys().empty());

  expect_error<ValueError>([] { nn::MultiMarginLoss({.p = 3}); }, "MultiMarginLoss: only p == 1 and p == 2 supported");
  expect_error<ValueError>([] { nn::SmoothL1Loss(Reduction::Mean, -1); }, "SmoothL1Loss: beta must be non-negative");
  expect_error<ValueError>([] { nn::HuberLoss(7); }, "HuberLoss: 7 is not a valid value for reduction");
  expect_error<ValueError>([] { nn::TripletMarginWithDistanceLoss({.margin = 0}); },
                           "TripletMarginWithDistanceLoss: margin must be greater than 0, got 0.0");
  nn::SmoothL1Loss sl;
  expect_error<RuntimeError>([&] { sl(zeros({3}), zeros({2})); },
                             "SmoothL1Loss: expected target of the input's shape [3], got shape [2]");
  nn::BCELoss bce;
  expect_error<ValueError>([&] { bce(zeros({3}), zeros({2})); }, "BCELoss: Using a target size ([2])");
  nn::MarginRankingLoss mr;
  expect_error<RuntimeError>([&] { mr(zeros({3}), zeros({2}), zeros({3})); },
                             "MarginRankingLoss: expected input1, input2 and target of one shape, got shapes [3], [2] and [3]");
  nn::TripletMarginLoss tm;
  expect_error<RuntimeError>([&] { tm(zeros({2, 3}), zeros({2, 4}), zeros({2, 3})); }, "got shapes [2, 3], [2, 4] and [2, 3]");
  nn::CosineEmbeddingLoss ce;
  expect_error<RuntimeError>([&] { ce(zeros({2, 3}), zeros({2, 4}), ones({2})); }, "CosineEmbeddingLoss: expected inputs");
  nn::GaussianNLLLoss g;
  expect_error<ValueError>([&] { g(zeros({2, 3}), zeros({2, 3}), ones({3, 2})); }, "GaussianNLLLoss: var is of incorrect size");
  expect_error<ValueError>([&] { g(zeros({2, 3}), zeros({2, 3}), neg(ones({2, 3}))); }, "var has negative entry");
  nn::CTCLoss ctc;
  expect_error<RuntimeError>([&] { ctc(zeros({5, 4}), zeros({2}, kInt64), zeros({2}, kInt64), zeros({2}, kInt64)); },
                             "CTCLoss: expected 1 input and target lengths");
  nn::MultiLabelMarginLoss mlm;
  expect_error<TypeError>([&] { mlm(zeros({2, 3}), zeros({2, 3})); }, "MultiLabelMarginLoss: expected int64 class indices");
}

}  // namespace ember::nn_layers2_test
