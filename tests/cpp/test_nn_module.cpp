// The C++ module API (include/ember/nn.h): registration and traversal, modes, conversion,
// state dicts, hooks, printing, containers, every layer against its functional op (outputs
// and parameter gradients), initialization, gradient utilities, a small training run, and
// the errors for bad inputs and hyper-parameters.
#include <cmath>
#include <sstream>

#include "ember/autograd.h"
#include "ember/nn.h"
#include "ember/random.h"
#include "test_util.h"

namespace ember::nn_module_test {

namespace ag = autograd;
using testing::as_double;
using testing::expect_error;
using nn::Tensors;

double max_abs_diff(const Tensor& a, const Tensor& b) {
  EXPECT_EQ(a.sizes(), b.sizes());
  if (a.numel() == 0) return 0;
  return max(abs(sub(a.to(kDouble), b.to(kDouble)))).item<double>();
}

Tensor randn_d(IntArrayRef shape) { return randn(shape, nullptr, TensorOptions(kDouble)); }

// The module's output y equals ref (computed by the functional op from the module's own
// parameters), and both send the same gradient to every parameter.
void expect_same_as_functional(nn::Module& m, const Tensor& y, const Tensor& ref) {
  EXPECT_LT(max_abs_diff(y, ref), 1e-12) << m.name();
  Tensors params = m.parameters();
  if (params.empty()) return;
  Tensor w = randn_like(ag::detach(y));
  Tensors g = ag::grad({sum(mul(y, w))}, params, {}, std::nullopt, false, true);
  Tensors g_ref = ag::grad({sum(mul(ref, w))}, params, {}, std::nullopt, false, true);
  for (size_t i = 0; i < params.size(); ++i) {
    ASSERT_TRUE(g[i].defined()) << m.name() << " parameter " << i << " got no gradient";
    EXPECT_LT(max_abs_diff(g[i], g_ref[i]), 1e-12) << m.name() << " parameter " << i;
  }
}

// A module written the way a user would: parameters, a buffer, children.
struct Block : nn::ModuleBase<Block> {
  Tensor scale, count;
  std::shared_ptr<nn::Linear> fc;
  std::shared_ptr<nn::BatchNorm1d> bn;
  Block() {
    scale = register_parameter("scale", ones({3}, kDouble));
    count = register_buffer("count", zeros({1}, kDouble));
    register_buffer("scratch", zeros({2}, kDouble), /*persistent=*/false);
    fc = register_module("fc", nn::Linear(nn::LinearOptions{.in_features = 4, .out_features = 3, .options = kDouble}));
    bn = register_module("bn", nn::BatchNorm1d(nn::BatchNormOptions{.num_features = 3, .options = kDouble}));
  }
  Tensor forward(const Tensor& x) { return mul((*bn)((*fc)(x)), scale); }
};

// ---------------------------------------------------------------- registration, traversal

TEST(NnModule, RegistrationNamesAndRecursion) {
  auto b = std::make_shared<Block>();
  EXPECT_EQ(b->name(), "Block");
  EXPECT_EQ(b->named_parameters().keys(),
            (std::vector<std::string>{"scale", "fc.weight", "fc.bias", "bn.weight", "bn.bias"}));
  EXPECT_EQ(b->named_parameters(false).keys(), std::vector<std::string>{"scale"});
  EXPECT_EQ(b->named_buffers().keys(), (std::vector<std::string>{"count", "scratch", "bn.running_mean",
                                                                 "bn.running_var", "bn.num_batches_tracked"}));
  EXPECT_EQ(b->named_children().keys(), (std::vector<std::string>{"fc", "bn"}));
  EXPECT_EQ(b->named_modules().keys(), (std::vector<std::string>{"", "fc", "bn"}));
  EXPECT_EQ(b->named_modules("net", false).keys(), (std::vector<std::string>{"net.fc", "net.bn"}));
  EXPECT_EQ(b->modules().size(), 3u);
  EXPECT_TRUE(b->parameters()[1].is_same(b->fc->weight));  // registry and member are one tensor
  for (const Tensor& p : b->parameters()) EXPECT_TRUE(ag::requires_grad(p));
  EXPECT_FALSE(ag::requires_grad(b->count));

  // Names: not empty, no dots, not taken by another kind of member.
  expect_error<ValueError>([&] { b->register_parameter("", zeros({1})); }, "can't be empty");
  expect_error<ValueError>([&] { b->register_buffer("a.b", zeros({1})); }, "can't contain \".\"");
  expect_error<ValueError>([&] { b->register_buffer("scale", zeros({1})); }, "attribute 'scale' already exists");
  expect_error<ValueError>([&] { b->register_module("count", std::make_shared<nn::ReLU>()); },
                           "attribute 'count' already exists");
  Tensor leaf = ones({2}, kDouble);
  ag::set_requires_grad(leaf);
  expect_error<ValueError>([&] { b->register_parameter("w2", mul(leaf, 2)); }, "non-leaf Tensor to parameter 'w2'");
  // Registering a name again replaces the entry in place; an undefined tensor is skipped.
  b->register_parameter("scale", zeros({3}, kDouble));
  EXPECT_EQ(b->named_parameters().keys().front(), "scale");
  b->register_parameter("none", Tensor());
  EXPECT_EQ(b->parameters().size(), 5u);
  // Listing the module itself needs it to be held by a shared_ptr.
  nn::ReLU on_stack;
  expect_error<RuntimeError>([&] { on_stack.modules(); }, "std::shared_ptr");
  EXPECT_TRUE(on_stack.modules(false).empty());
}

TEST(NnModule, SharedParametersAndModulesListedOnce) {
  auto lin = std::make_shared<nn::Linear>(2, 2);
  auto seq = std::make_shared<nn::Sequential>(lin, nn::ReLU(), lin);
  EXPECT_EQ(seq->named_parameters().keys(), (std::vector<std::string>{"0.weight", "0.bias"}));
  EXPECT_EQ(seq->named_modules().keys(), (std::vector<std::string>{"", "0", "1"}));
  EXPECT_EQ(seq->children().size(), 2u);
  EXPECT_EQ(seq->size(), 3u);  // but forward runs all three
  // state_dict lists every path.
  EXPECT_EQ(seq->state_dict().keys(), (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  // A tensor registered in two modules is listed once too.
  auto other = std::make_shared<nn::Sequential>(std::make_shared<nn::Linear>(2, 2));
  other->at<nn::Linear>(0)->register_parameter("weight", lin->weight);
  auto both = std::make_shared<nn::ModuleList>(seq, other);
  EXPECT_EQ(both->named_parameters().keys(), (std::vector<std::string>{"0.0.weight", "0.0.bias", "1.0.bias"}));
}

// ---------------------------------------------------------------- modes and bulk changes

TEST(NnModule, TrainEvalRequiresGradZeroGrad) {
  auto b = std::make_shared<Block>();
  EXPECT_TRUE(b->is_training() && b->fc->is_training());
  b->eval();
  EXPECT_FALSE(b->is_training() || b->fc->is_training() || b->bn->is_training());
  b->train();
  EXPECT_TRUE(b->bn->is_training());

  b->requires_grad_(false);
  for (const Tensor& p : b->parameters()) EXPECT_FALSE(ag::requires_grad(p));
  b->requires_grad_();
  Tensor x = randn_d({5, 4});
  ag::backward({sum((*b)(x))});
  for (const Tensor& p : b->parameters()) EXPECT_TRUE(ag::grad(p).defined());
  Tensor g = ag::grad(b->fc->weight);
  b->zero_grad(/*set_to_none=*/false);
  EXPECT_TRUE(ag::grad(b->fc->weight).is_same(g));  // zeroed in place
  EXPECT_EQ(max(abs(g)).item<double>(), 0.0);
  b->zero_grad();
  for (const Tensor& p : b->parameters()) EXPECT_FALSE(ag::grad(p).defined());
}

TEST(NnModule, ToConvertsInPlaceKeepingIdentity) {
  auto b = std::make_shared<Block>();
  b->to(kFloat);  // Block was built in float64
  Tensor w = b->fc->weight;
  ag::backward({sum((*b)(randn({5, 4})))});
  b->to(kDouble);
  EXPECT_TRUE(b->fc->weight.is_same(w));
  EXPECT_TRUE(b->parameters()[1].is_same(w));
  EXPECT_EQ(w.dtype(), kDouble);
  EXPECT_TRUE(ag::requires_grad(w) && ag::is_leaf(w));
  EXPECT_EQ(ag::grad(w).dtype(), kDouble);
  EXPECT_EQ(b->bn->running_mean.dtype(), kDouble);
  EXPECT_EQ(b->bn->num_batches_tracked.dtype(), kInt64);  // integer buffers keep their dtype
  // The converted module still trains.
  b->zero_grad();
  ag::backward({sum((*b)(randn_d({5, 4})))});
  EXPECT_EQ(ag::grad(w).dtype(), kDouble);
  expect_error<TypeError>([&] { b->to(kInt64); }, "only accepts floating point or complex dtypes");
  b->to(kMeta);
  EXPECT_TRUE(w.is_meta() && b->bn->running_var.is_meta() && ag::grad(w).is_meta());
  EXPECT_EQ((*b->fc)(randn_d({5, 4}).to(kMeta)).sizes(), IntArrayRef({5, 3}));
}

TEST(NnModule, ApplyVisitsChildrenFirst) {
  auto b = std::make_shared<Block>();
  std::vector<std::string> seen;
  b->apply([&](nn::Module& m) { seen.push_back(m.name()); });
  EXPECT_EQ(seen, (std::vector<std::string>{"Linear", "BatchNorm1d", "Block"}));
  // The usual use: re-initializing every Linear.
  b->apply([](nn::Module& m) {
    if (auto* lin = dynamic_cast<nn::Linear*>(&m)) nn::init::zeros_(lin->weight);
  });
  EXPECT_EQ(max(abs(b->fc->weight)).item<double>(), 0.0);
}

// ---------------------------------------------------------------- state dicts

TEST(NnModule, StateDictRoundTrip) {
  manual_seed(3);
  auto a = std::make_shared<Block>(), c = std::make_shared<Block>();
  Tensor x = randn_d({6, 4});
  (*a)(x);  // updates a's running statistics
  nn::StateDict sd = a->state_dict();
  EXPECT_EQ(sd.keys(), (std::vector<std::string>{"scale", "count", "fc.weight", "fc.bias", "bn.weight", "bn.bias",
                                                 "bn.running_mean", "bn.running_var", "bn.num_batches_tracked"}));
  EXPECT_FALSE(ag::requires_grad(sd["fc.weight"]));  // detached ...
  EXPECT_TRUE(sd["fc.weight"].is_alias_of(a->fc->weight));  // ... views of the module's tensors
  nn::LoadStateDictResult r = c->load_state_dict(sd);
  EXPECT_TRUE(r.missing_keys.empty() && r.unexpected_keys.empty());
  EXPECT_FALSE(c->fc->weight.is_alias_of(a->fc->weight));  // copied
  EXPECT_EQ(c->bn->num_batches_tracked.item<int64_t>(), 1);
  a->eval();
  c->eval();
  EXPECT_EQ(max_abs_diff((*a)(x), (*c)(x)), 0.0);
  // Values are converted to the destination's dtype.
  nn::StateDict sf;
  for (const auto& [k, t] : sd) sf.insert(k, t.is_floating_point() ? t.to(kFloat) : t);
  c->load_state_dict(sf);
  EXPECT_EQ(c->fc->weight.dtype(), kDouble);
}

TEST(NnModule, LoadStateDictReportsAndFailsAtomically) {
  auto m = std::make_shared<nn::Sequential>(nn::Linear(4, 3), nn::ReLU(), nn::Linear(3, 2));
  const nn::StateDict before = [&] {
    nn::StateDict s;
    for (const auto& [k, t] : m->state_dict()) s.insert(k, t.clone());
    return s;
  }();
  auto unchanged = [&] {
    for (const auto& [k, t] : m->state_dict()) EXPECT_EQ(max_abs_diff(t, before[k]), 0.0) << k;
  };
  nn::StateDict sd;
  sd.insert("0.weight", zeros({3, 4}));
  sd.insert("extra", zeros({1}));
  // Strict: missing and unexpected keys raise, and nothing is copied.
  try {
    m->load_state_dict(sd);
    ADD_FAILURE() << "expected a StateDictError";
  } catch (const nn::StateDictError& e) {
    EXPECT_EQ(std::string(e.what()),
              "Error(s) in loading state_dict for Sequential:\n\tMissing key(s) in state_dict: \"0.bias\", "
              "\"2.weight\", \"2.bias\". \n\tUnexpected key(s) in state_dict: \"extra\". ");
  }
  unchanged();
  // Non-strict: the matching entries are loaded and the rest reported.
  nn::LoadStateDictResult r = m->load_state_dict(sd, /*strict=*/false);
  EXPECT_EQ(r.missing_keys, (std::vector<std::string>{"0.bias", "2.weight", "2.bias"}));
  EXPECT_EQ(r.unexpected_keys, std::vector<std::string>{"extra"});
  EXPECT_EQ(max(abs(m->at<nn::Linear>(0)->weight)).item<double>(), 0.0);
  // A shape mismatch raises even when not strict, and leaves the module unchanged, also the
  // entries checked before it.
  m->at<nn::Linear>(0)->weight.detach().copy_(before["0.weight"]);
  nn::StateDict bad = before;
  bad["0.bias"] = ones({3});
  bad["2.weight"] = zeros({2, 4});
  expect_error<nn::StateDictError>([&] { m->load_state_dict(bad, false); },
                                   "size mismatch for 2.weight: copying a param with shape [2, 4] from checkpoint, "
                                   "the shape in current model is [2, 3].");
  expect_error<RuntimeError>([&] { m->load_state_dict(bad); }, "Error(s) in loading state_dict for Sequential");
  unchanged();
}

// ---------------------------------------------------------------- hooks

TEST(NnModule, ForwardHooksAlterInputsAndOutputsAndAreRemovable) {
  auto lin = std::make_shared<nn::Linear>(nn::LinearOptions{.in_features = 3, .out_features = 2, .options = kDouble});
  Tensor x = randn_d({4, 3});
  const Tensor plain = lin->forward(x);
  int pre_calls = 0;
  nn::HookHandle pre = lin->register_forward_pre_hook([&](nn::Module& m, const Tensors& in) -> std::optional<Tensors> {
    ++pre_calls;
    EXPECT_EQ(&m, lin.get());
    return Tensors{mul(in[0], 2)};
  });
  nn::HookHandle post = lin->register_forward_hook(
      [&](nn::Module&, const Tensors& in, const Tensors& out) -> std::optional<Tensors> {
        EXPECT_EQ(max_abs_diff(in[0], mul(x, 2)), 0.0);  // the inputs after the pre-hook
        return Tensors{add(out[0], 1)};
      });
  int observed = 0;
  lin->register_forward_hook([&](nn::Module&, const Tensors&, const Tensors&) -> std::optional<Tensors> {
    ++observed;  // returns nothing: the output stays
    return std::nullopt;
  });
  Tensor expected = add(lin->forward(mul(x, 2)), 1);
  EXPECT_EQ(max_abs_diff((*lin)(x), expected), 0.0);
  EXPECT_EQ(max_abs_diff(lin->call({x})[0], expected), 0.0);  // the boxed call runs hooks too
  // Hooks of a module inside a Sequential run when the Sequential calls it.
  auto seq = std::make_shared<nn::Sequential>(lin);
  EXPECT_EQ(max_abs_diff((*seq)(x), expected), 0.0);
  EXPECT_EQ(pre_calls, 3);
  EXPECT_EQ(observed, 3);
  lin->forward(x);  // forward() alone runs no hooks
  EXPECT_EQ(pre_calls, 3);
  pre.remove();
  post.remove();
  post.remove();  // a second remove is a no-op
  EXPECT_EQ(max_abs_diff((*lin)(x), plain), 0.0);
  EXPECT_EQ(observed, 4);
  // A hook must keep the number of tensors.
  lin->register_forward_pre_hook([](nn::Module&, const Tensors& in) -> std::optional<Tensors> {
    return Tensors{in[0], in[0]};
  });
  expect_error<RuntimeError>([&] { (*lin)(x); }, "Linear: a forward hook returned 2 inputs, expected 1");
}

TEST(NnModule, HooksOnMultiInputAndTupleOutputForwards) {
  // Non-tensor arguments pass through; tuple results are seen as a vector.
  struct Split : nn::ModuleBase<Split> {
    std::tuple<Tensor, Tensor> forward(const Tensor& a, double k, const Tensor& b) { return {mul(a, k), add(b, k)}; }
  };
  auto s = std::make_shared<Split>();
  s->register_forward_pre_hook([](nn::Module&, const Tensors& in) -> std::optional<Tensors> {
    EXPECT_EQ(in.size(), 2u);
    return Tensors{in[1], in[0]};  // swaps the tensors
  });
  s->register_forward_hook([](nn::Module&, const Tensors&, const Tensors& out) -> std::optional<Tensors> {
    return Tensors{out[1], out[0]};
  });
  Tensor a = full({2}, 1.0, kDouble), b = full({2}, 5.0, kDouble);
  auto [y0, y1] = (*s)(a, 3.0, b);
  EXPECT_EQ(as_double(y0), (std::vector<double>{4, 4}));   // add(a, 3)
  EXPECT_EQ(as_double(y1), (std::vector<double>{15, 15}));  // mul(b, 3)
  expect_error<TypeError>([&] { s->call({a, b}); }, "Split cannot be called with 2 tensor(s) through call()");
}

TEST(NnModule, FullBackwardHooksSeeAndReplaceGradients) {
  auto lin = std::make_shared<nn::Linear>(nn::LinearOptions{.in_features = 3, .out_features = 2, .options = kDouble});
  Tensor x = randn_d({4, 3}), w = randn_d({4, 2});
  ag::set_requires_grad(x);
  Tensors grad_in, grad_out;
  int calls = 0;
  nn::HookHandle h = lin->register_full_backward_hook(
      [&](nn::Module& m, const Tensors& gi, const Tensors& go) -> std::optional<Tensors> {
        EXPECT_EQ(&m, lin.get());
        ++calls;
        grad_in = gi;
        grad_out = go;
        return std::nullopt;
      });
  ag::backward({sum(mul((*lin)(x), w))});
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(max_abs_diff(grad_out[0], w), 0.0);  // dL/dy
  Tensor dx = matmul(w, ag::detach(lin->weight));
  EXPECT_LT(max_abs_diff(grad_in[0], dx), 1e-12);  // dL/dx
  EXPECT_LT(max_abs_diff(ag::grad(x), dx), 1e-12);
  const Tensor dw = ag::grad(lin->weight);
  EXPECT_LT(max_abs_diff(dw, matmul(w.t(), x)), 1e-12);

  // A replacement changes the input's gradient only.
  h.remove();
  nn::HookHandle triple =
      lin->register_full_backward_hook([](nn::Module&, const Tensors& gi, const Tensors&) -> std::optional<Tensors> {
        return Tensors{mul(gi[0], 3)};
      });
  lin->zero_grad();
  ag::set_grad(x, Tensor());
  ag::backward({sum(mul((*lin)(x), w))});
  EXPECT_EQ(calls, 1);  // the removed hook did not run
  EXPECT_LT(max_abs_diff(ag::grad(x), mul(dx, 3)), 1e-12);
  EXPECT_LT(max_abs_diff(ag::grad(lin->weight), dw), 1e-12);

  triple.remove();
  // Inputs that do not require grad: the hook still runs, with undefined input gradients.
  auto relu = std::make_shared<nn::Sequential>(lin, nn::ReLU());
  int seq_calls = 0;
  relu->register_full_backward_hook([&](nn::Module&, const Tensors& gi, const Tensors& go) -> std::optional<Tensors> {
    ++seq_calls;
    EXPECT_FALSE(gi[0].defined());
    EXPECT_EQ(go[0].sizes(), IntArrayRef({4, 2}));
    return std::nullopt;
  });
  ag::backward({sum((*relu)(randn_d({4, 3})))});
  EXPECT_EQ(seq_calls, 1);
  // Without grad mode nothing is recorded.
  ag::NoGradGuard no_grad;
  EXPECT_FALSE(ag::requires_grad((*relu)(x)));
}

// ---------------------------------------------------------------- printing

TEST(NnModule, ReprMatchesPyTorch) {
  auto seq = std::make_shared<nn::Sequential>(nn::Linear(4, 3), nn::ReLU());
  EXPECT_EQ(seq->repr(), "Sequential(\n  (0): Linear(in_features=4, out_features=3, bias=True)\n  (1): ReLU()\n)");
  std::ostringstream os;
  os << *seq;
  EXPECT_EQ(os.str(), seq->repr());
  struct Net : nn::ModuleBase<Net> {
    Net() {
      register_module("fc", nn::Linear(2, 2, false));
      register_module("body", std::make_shared<nn::Sequential>(nn::Conv2d(3, 8, 3), nn::BatchNorm2d(8)));
    }
    Tensor forward(const Tensor& x) { return x; }
  };
  EXPECT_EQ(Net().repr(),
            "Net(\n"
            "  (fc): Linear(in_features=2, out_features=2, bias=False)\n"
            "  (body): Sequential(\n"
            "    (0): Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1))\n"
            "    (1): BatchNorm2d(8, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)\n"
            "  )\n"
            ")");
  auto repr = [](const nn::Module& m) { return m.repr(); };
  EXPECT_EQ(repr(nn::Conv2d({.in_channels = 3, .out_channels = 8, .kernel_size = {3}, .padding = {1}})),
            "Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))");
  EXPECT_EQ(repr(nn::ConvTranspose1d({.in_channels = 4, .out_channels = 2, .kernel_size = {3}, .stride = {2},
                                      .groups = 2, .bias = false, .output_padding = {1}})),
            "ConvTranspose1d(4, 2, kernel_size=(3,), stride=(2,), output_padding=(1,), groups=2, bias=False)");
  EXPECT_EQ(repr(nn::Conv2d({.in_channels = 2, .out_channels = 2, .kernel_size = {3}, .padding = {1},
                             .padding_mode = "circular"})),
            "Conv2d(2, 2, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), padding_mode=circular)");
  EXPECT_EQ(repr(nn::BatchNorm1d({.num_features = 3, .momentum = std::nullopt})),
            "BatchNorm1d(3, eps=1e-05, momentum=None, affine=True, track_running_stats=True)");
  EXPECT_EQ(repr(nn::MaxPool2d({.kernel_size = {2}})),
            "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)");
  EXPECT_EQ(repr(nn::AvgPool1d({.kernel_size = {2}})), "AvgPool1d(kernel_size=(2,), stride=(2,), padding=(0,))");
  EXPECT_EQ(repr(nn::AvgPool2d({.kernel_size = {2}})), "AvgPool2d(kernel_size=2, stride=2, padding=0)");
  EXPECT_EQ(repr(nn::AdaptiveAvgPool2d({1, 1})), "AdaptiveAvgPool2d(output_size=(1, 1))");
  EXPECT_EQ(repr(nn::LayerNorm({4})), "LayerNorm((4,), eps=1e-05, elementwise_affine=True)");
  EXPECT_EQ(repr(nn::GroupNorm(2, 4)), "GroupNorm(2, 4, eps=1e-05, affine=True)");
  EXPECT_EQ(repr(nn::Dropout()), "Dropout(p=0.5, inplace=False)");
  EXPECT_EQ(repr(nn::GELU()), "GELU(approximate='none')");
  EXPECT_EQ(repr(nn::Embedding({.num_embeddings = 10, .embedding_dim = 3, .padding_idx = 0})),
            "Embedding(10, 3, padding_idx=0)");
  EXPECT_EQ(repr(nn::Hardtanh()), "Hardtanh(min_val=-1.0, max_val=1.0)");
  EXPECT_EQ(repr(nn::LeakyReLU()), "LeakyReLU(negative_slope=0.01)");
  EXPECT_EQ(repr(nn::ELU()), "ELU(alpha=1.0)");
  EXPECT_EQ(repr(nn::Softmax(1)), "Softmax(dim=1)");
  EXPECT_EQ(repr(nn::Flatten()), "Flatten(start_dim=1, end_dim=-1)");
  EXPECT_EQ(repr(nn::Unflatten(1, {2, 5})), "Unflatten(dim=1, unflattened_size=(2, 5))");
  EXPECT_EQ(repr(nn::Bilinear(2, 3, 4)), "Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)");
  EXPECT_EQ(repr(nn::PReLU()), "PReLU(num_parameters=1)");
  EXPECT_EQ(repr(nn::CrossEntropyLoss()), "CrossEntropyLoss()");
  EXPECT_EQ(repr(nn::Identity()), "Identity()");
  EXPECT_EQ(repr(nn::ParameterList({zeros({2, 3})})),
            "ParameterList(  (0): Parameter containing: [ember.float32 of size 2x3])");
  EXPECT_EQ(repr(nn::ParameterDict({{"a", zeros({2})}, {"b", zeros({1, 2}, kDouble)}})),
            "ParameterDict(\n    (a): Parameter containing: [ember.float32 of size 2]\n"  // 4 spaces, as PyTorch
            "    (b): Parameter containing: [ember.float64 of size 1x2]\n)");
  // Python's float spelling.
  for (auto [v, s] : std::vector<std::pair<double, std::string>>{
           {0.1, "0.1"}, {1e-5, "1e-05"}, {1e-4, "0.0001"}, {1.0, "1.0"}, {-2.5, "-2.5"}, {1e16, "1e+16"},
           {123456789012345.0, "123456789012345.0"}, {0.0, "0.0"}, {1.5e-7, "1.5e-07"}, {3e20, "3e+20"}})
    EXPECT_EQ(nn::detail::py_float(v), s);
}

// ---------------------------------------------------------------- containers

TEST(NnModule, Containers) {
  manual_seed(5);
  auto seq = std::make_shared<nn::Sequential>(nn::Linear(4, 8), std::make_shared<nn::Tanh>());
  seq->push_back(nn::Linear(8, 2));
  EXPECT_EQ(seq->size(), 3u);
  EXPECT_EQ((*seq)[-1]->name(), "Linear");
  EXPECT_TRUE((*seq)[-1] == (*seq)[2]);
  auto l0 = seq->at<nn::Linear>(0);
  Tensor x = randn({5, 4});
  Tensor expected = seq->at<nn::Linear>(2)->forward(tanh(l0->forward(x)));
  EXPECT_EQ(max_abs_diff((*seq)(x), expected), 0.0);
  size_t n = 0;
  for (const auto& m : *seq) n += m->name().empty() ? 0 : 1;
  EXPECT_EQ(n, 3u);
  expect_error<IndexError>([&] { (*seq)[3]; }, "Sequential: index 3 is out of range for 3 entries");
  expect_error<TypeError>([&] { seq->at<nn::Conv2d>(1); }, "entry 1 is a Tanh");
  // Entries held by a base type are checked when called: a ModuleList has no forward.
  std::shared_ptr<nn::Module> not_callable = std::make_shared<nn::ModuleList>();
  nn::Sequential bad(std::make_shared<nn::Identity>(), not_callable);
  expect_error<TypeError>([&] { bad(x); }, "ModuleList cannot be called with 1 tensor(s)");
  static_assert(!nn::detail::SequentialEntry<nn::Bilinear>);  // pushing it would not compile
  static_assert(nn::detail::SequentialEntry<nn::ConvNd> && nn::detail::SequentialEntry<nn::Conv2d>);
  nn::Sequential named({{"enc", std::make_shared<nn::Linear>(2, 2)}, {"act", std::make_shared<nn::ReLU>()}});
  EXPECT_EQ(named.named_children().keys(), (std::vector<std::string>{"enc", "act"}));
  EXPECT_EQ(max_abs_diff(nn::Sequential().forward(x), x), 0.0);  // empty: the identity

  nn::ModuleList list(nn::Linear(1, 1), nn::ReLU());
  list.insert(1, std::make_shared<nn::Tanh>());
  list.insert(-1, std::make_shared<nn::Sigmoid>());
  EXPECT_EQ(list.named_children().keys(), (std::vector<std::string>{"0", "1", "2", "3"}));
  std::vector<std::string> names;
  for (const auto& m : list) names.push_back(m->name());
  EXPECT_EQ(names, (std::vector<std::string>{"Linear", "Tanh", "Sigmoid", "ReLU"}));
  list.extend(nn::ModuleList(nn::Identity()));
  EXPECT_EQ(list[-1]->name(), "Identity");
  EXPECT_EQ(list.parameters().size(), 2u);

  nn::ModuleDict dict({{"a", std::make_shared<nn::ReLU>()}});
  dict.insert("b", nn::Linear(2, 3));
  EXPECT_TRUE(dict.contains("b") && !dict.contains("c"));
  EXPECT_EQ(dict.at<nn::Linear>("b")->options.out_features, 3);
  EXPECT_EQ(dict.keys(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(dict.pop("a")->name(), "ReLU");
  EXPECT_EQ(dict.named_parameters().keys(), (std::vector<std::string>{"b.weight", "b.bias"}));
  expect_error<IndexError>([&] { dict["zz"]; }, "key 'zz' not found");

  nn::ParameterList plist({zeros({2}), ones({3})});
  plist.append(ones({1}));
  EXPECT_EQ(plist.size(), 3u);
  EXPECT_TRUE(ag::requires_grad(plist[-1]));
  EXPECT_EQ(plist.named_parameters().keys(), (std::vector<std::string>{"0", "1", "2"}));
  nn::ParameterDict pdict;
  pdict.insert("w", zeros({2}));
  pdict.update({{"v", ones({2})}});
  EXPECT_EQ(pdict.keys(), (std::vector<std::string>{"w", "v"}));
  EXPECT_TRUE(pdict.pop("w").defined());
  EXPECT_EQ(pdict.state_dict().keys(), std::vector<std::string>{"v"});
  // Lists and dicts of parameters are not callable.
  expect_error<TypeError>([&] { plist.call({x}); }, "ParameterList cannot be called");
}

// ---------------------------------------------------------------- layers against functional ops

TEST(NnModuleLayers, LinearBilinearEmbeddingAndShapes) {
  manual_seed(7);
  auto lin = std::make_shared<nn::Linear>(nn::LinearOptions{.in_features = 5, .out_features = 3, .options = kDouble});
  Tensor x = randn_d({2, 4, 5});
  expect_same_as_functional(*lin, (*lin)(x), linear(x, lin->weight, lin->bias));
  // U(-1/sqrt(fan_in), 1/sqrt(fan_in)) initialization.
  EXPECT_LE(max(abs(lin->weight)).item<double>(), 1 / std::sqrt(5.0));
  EXPECT_LE(max(abs(lin->bias)).item<double>(), 1 / std::sqrt(5.0));
  auto nobias = std::make_shared<nn::Linear>(
      nn::LinearOptions{.in_features = 5, .out_features = 3, .bias = false, .options = kDouble});
  EXPECT_EQ(nobias->parameters().size(), 1u);
  expect_same_as_functional(*nobias, (*nobias)(x), linear(x, nobias->weight));

  auto bil = std::make_shared<nn::Bilinear>(
      nn::BilinearOptions{.in1_features = 3, .in2_features = 4, .out_features = 2, .options = kDouble});
  Tensor a = randn_d({5, 3}), b = randn_d({5, 4});
  expect_same_as_functional(*bil, (*bil)(a, b), bilinear(a, b, bil->weight, bil->bias));
  EXPECT_EQ(bil->call({a, b})[0].sizes(), IntArrayRef({5, 2}));

  auto emb = std::make_shared<nn::Embedding>(
      nn::EmbeddingOptions{.num_embeddings = 10, .embedding_dim = 3, .padding_idx = -1, .options = kDouble});
  EXPECT_EQ(*emb->options.padding_idx, 9);
  EXPECT_EQ(max(abs(emb->weight.select(0, 9))).item<double>(), 0.0);
  Tensor idx = tensor<int64_t>({1, 9, 3, 1}).view({2, 2});
  expect_same_as_functional(*emb, (*emb)(idx), embedding(emb->weight, idx, 9));
  // max_norm: the rows looked up are scaled down in place to that norm; the others stay.
  auto capped = std::make_shared<nn::Embedding>(
      nn::EmbeddingOptions{.num_embeddings = 6, .embedding_dim = 4, .max_norm = 0.5, .options = kDouble});
  EXPECT_EQ(capped->repr(), "Embedding(6, 4, max_norm=0.5)");
  Tensor before = capped->weight.detach().clone();
  Tensor looked_up = tensor<int64_t>({0, 2, 2});
  Tensor out = (*capped)(looked_up);
  Tensor row_norms = norm(capped->weight.detach(), Scalar(2.0), {1});
  for (int64_t r = 0; r < 6; ++r) {
    const double before_norm = norm(before.select(0, r)).item<double>();
    if (r == 0 || r == 2) {
      EXPECT_NEAR(row_norms.select(0, r).item<double>(), std::min(before_norm, 0.5), 1e-6);
    } else {
      EXPECT_EQ(max_abs_diff(capped->weight.detach().select(0, r), before.select(0, r)), 0.0);
    }
  }
  EXPECT_EQ(max_abs_diff(out, index_select(capped->weight.detach(), 0, looked_up)), 0.0);
  EXPECT_TRUE(ag::requires_grad(capped->weight) && ag::is_leaf(capped->weight));
  EXPECT_EQ(nn::Embedding(nn::EmbeddingOptions{.num_embeddings = 2, .embedding_dim = 2, .max_norm = 1.0,
                                               .norm_type = 1.0})
                .repr(),
            "Embedding(2, 2, max_norm=1.0, norm_type=1.0)");
  Tensor table = eye(3, std::nullopt, kDouble);
  const uint64_t offset = default_generator().offset();
  auto pre = nn::Embedding::from_pretrained(table);
  EXPECT_EQ(default_generator().offset(), offset);  // nothing drawn
  EXPECT_TRUE(pre->weight.is_alias_of(table));       // shared, as PyTorch's Parameter(embeddings)
  EXPECT_FALSE(ag::requires_grad(pre->weight));
  EXPECT_EQ(as_double((*pre)(tensor<int64_t>({2}))), (std::vector<double>{0, 0, 1}));

  EXPECT_EQ(max_abs_diff(nn::Identity()(x), x), 0.0);
  EXPECT_EQ(nn::Flatten()(x).sizes(), IntArrayRef({2, 20}));
  EXPECT_EQ(nn::Flatten(0, 1)(x).sizes(), IntArrayRef({8, 5}));
  EXPECT_EQ(nn::Unflatten(-1, {5, 1})(x).sizes(), IntArrayRef({2, 4, 5, 1}));
  EXPECT_EQ(nn::Unflatten(1, {2, -1})(x).sizes(), IntArrayRef({2, 2, 2, 5}));
}

TEST(NnModuleLayers, ConvolutionsAndPooling) {
  manual_seed(8);
  for (int64_t d = 1; d <= 3; ++d) {
    std::vector<int64_t> shape = {2, 4};
    for (int64_t i = 0; i < d; ++i) shape.push_back(7 - i);
    Tensor x = randn_d(shape);
    nn::ConvOptions o{.in_channels = 4, .out_channels = 6, .kernel_size = {3}, .stride = {2}, .padding = {1},
                      .dilation = {1}, .groups = 2, .options = kDouble};
    std::shared_ptr<nn::ConvNd> conv, convt;
    Tensor y, yt, ref, ref_t;
    std::vector<int64_t> s(static_cast<size_t>(d), 2), p(static_cast<size_t>(d), 1), dil(static_cast<size_t>(d), 1);
    nn::ConvOptions ot = o;
    ot.output_padding = {1};
    if (d == 1) {
      auto c = std::make_shared<nn::Conv1d>(o);
      auto ct = std::make_shared<nn::ConvTranspose1d>(ot);
      y = (*c)(x), yt = (*ct)(x), conv = c, convt = ct;
      ref = conv1d(x, c->weight, c->bias, s, p, dil, 2);
      ref_t = conv_transpose1d(x, ct->weight, ct->bias, s, p, {1}, 2);
    } else if (d == 2) {
      auto c = std::make_shared<nn::Conv2d>(o);
      auto ct = std::make_shared<nn::ConvTranspose2d>(ot);
      y = (*c)(x), yt = (*ct)(x), conv = c, convt = ct;
      ref = conv2d(x, c->weight, c->bias, s, p, dil, 2);
      ref_t = conv_transpose2d(x, ct->weight, ct->bias, s, p, {1}, 2);
    } else {
      auto c = std::make_shared<nn::Conv3d>(o);
      auto ct = std::make_shared<nn::ConvTranspose3d>(ot);
      y = (*c)(x), yt = (*ct)(x), conv = c, convt = ct;
      ref = conv3d(x, c->weight, c->bias, s, p, dil, 2);
      ref_t = conv_transpose3d(x, ct->weight, ct->bias, s, p, {1}, 2);
      // output_size picks the output padding: 13 is the size without it, 14 with.
      EXPECT_EQ(ct->forward(x, {13, 11, 9}).sizes(), IntArrayRef({2, 6, 13, 11, 9}));
      expect_error<ValueError>([&] { ct->forward(x, {15, 11, 9}); }, "valid sizes range from 13 to 14");
    }
    EXPECT_EQ(conv->weight.sizes()[1], 2);   // in / groups
    EXPECT_EQ(convt->weight.sizes()[0], 4);  // transposed: [in, out / groups, *k]
    expect_same_as_functional(*conv, y, ref);
    expect_same_as_functional(*convt, yt, ref_t);
    // Unbatched inputs.
    EXPECT_EQ(conv->call({x.select(0, 0)})[0].sizes(), y.select(0, 0).sizes());
  }
  // Non-zero padding modes pad first, then convolve without padding.
  Tensor x = randn_d({1, 2, 5, 6});
  for (std::string mode : {"reflect", "replicate", "circular"}) {
    nn::Conv2d c({.in_channels = 2, .out_channels = 3, .kernel_size = {3}, .padding = {1}, .padding_mode = mode,
                  .options = kDouble});
    Tensor padded = mode == "reflect" ? reflection_pad2d(x, {1, 1, 1, 1})
                    : mode == "replicate" ? replication_pad2d(x, {1, 1, 1, 1})
                                          : cat({x.narrow(3, 5, 1), x, x.narrow(3, 0, 1)}, 3);
    if (mode == "circular") padded = cat({padded.narrow(2, 4, 1), padded, padded.narrow(2, 0, 1)}, 2);
    expect_same_as_functional(c, c(x), conv2d(padded, c.weight, c.bias));
  }

  Tensor img = randn_d({2, 3, 8, 8});
  nn::MaxPool2d mp({.kernel_size = {3}, .stride = {2}, .padding = {1}});
  EXPECT_EQ(max_abs_diff(mp(img), max_pool2d(img, {3}, {2}, {1})), 0.0);
  auto [vals, idx] = mp.forward_with_indices(img);
  EXPECT_EQ(max_abs_diff(vals, mp(img)), 0.0);
  EXPECT_EQ(idx.dtype(), kInt64);
  Tensor seq1d = img.select(1, 0);  // (N, C, L)
  EXPECT_EQ(max_abs_diff(nn::MaxPool1d({.kernel_size = {2}})(seq1d), max_pool1d(seq1d, {2})), 0.0);
  Tensor vol = randn_d({1, 2, 4, 4, 4});
  EXPECT_EQ(max_abs_diff(nn::MaxPool3d({.kernel_size = {2}, .ceil_mode = true})(vol),
                         max_pool3d(vol, {2}, {}, {0}, {1}, true)),
            0.0);
  EXPECT_EQ(max_abs_diff(nn::AvgPool1d({.kernel_size = {3}, .stride = {1}})(seq1d), avg_pool1d(seq1d, {3}, {1})), 0.0);
  EXPECT_EQ(max_abs_diff(nn::AvgPool2d({.kernel_size = {2}, .divisor_override = 3})(img),
                         avg_pool2d(img, {2}, {}, {0}, false, true, 3)),
            0.0);
  EXPECT_EQ(max_abs_diff(nn::AvgPool3d({.kernel_size = {2}})(vol), avg_pool3d(vol, {2})), 0.0);
  EXPECT_EQ(max_abs_diff(nn::AdaptiveAvgPool1d({3})(seq1d), adaptive_avg_pool1d(seq1d, {3})), 0.0);
  EXPECT_EQ(max_abs_diff(nn::AdaptiveAvgPool2d({1})(img), adaptive_avg_pool2d(img, {1, 1})), 0.0);
  EXPECT_EQ(max_abs_diff(nn::AdaptiveAvgPool3d({2, 1, 2})(vol), adaptive_avg_pool3d(vol, {2, 1, 2})), 0.0);
}

TEST(NnModuleLayers, Normalization) {
  manual_seed(9);
  Tensor x = randn_d({4, 3, 5, 5});
  nn::BatchNorm2d bn({.num_features = 3, .momentum = 0.2, .options = kDouble});
  nn::init::uniform_(bn.weight);
  Tensor rm = zeros({3}, kDouble), rv = ones({3}, kDouble);
  Tensor ref = batch_norm(x, bn.weight, bn.bias, rm, rv, true, 0.2, 1e-5);
  expect_same_as_functional(bn, bn(x), ref);  // updates the running statistics as the op did
  EXPECT_EQ(max_abs_diff(bn.running_mean, rm), 0.0);
  EXPECT_EQ(max_abs_diff(bn.running_var, rv), 0.0);
  EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), 1);
  bn.eval();
  expect_same_as_functional(bn, bn(x), batch_norm(x, bn.weight, bn.bias, rm, rv, false, 0.2, 1e-5));
  EXPECT_EQ(bn.num_batches_tracked.item<int64_t>(), 1);  // evaluation leaves the statistics alone
  // momentum = None: a cumulative average of the batch statistics.
  nn::BatchNorm1d cum({.num_features = 3, .momentum = std::nullopt, .options = kDouble});
  Tensor x1 = randn_d({6, 3}), x2 = randn_d({6, 3});
  cum(x1);
  cum(x2);
  Tensor batch_means = stack({mean(x1, {0}), mean(x2, {0})});
  EXPECT_LT(max_abs_diff(cum.running_mean, mean(batch_means, {0})), 1e-12);
  // Without running statistics, batch statistics are used in evaluation too.
  nn::BatchNorm3d nostats({.num_features = 2, .affine = false, .track_running_stats = false, .options = kDouble});
  nostats.eval();
  Tensor v = randn_d({2, 2, 3, 3, 3});
  EXPECT_EQ(nostats.parameters().size() + nostats.buffers().size(), 0u);
  EXPECT_EQ(max_abs_diff(nostats(v), batch_norm(v, {}, {}, {}, {}, true, 0.1, 1e-5)), 0.0);

  nn::LayerNorm ln({.normalized_shape = {5, 5}, .eps = 1e-3, .options = kDouble});
  nn::init::normal_(ln.weight);
  expect_same_as_functional(ln, ln(x), layer_norm(x, {5, 5}, ln.weight, ln.bias, 1e-3));
  nn::GroupNorm gn({.num_groups = 3, .num_channels = 3, .options = kDouble});
  nn::init::normal_(gn.bias);
  expect_same_as_functional(gn, gn(x), group_norm(x, 3, gn.weight, gn.bias));
}

TEST(NnModuleLayers, ActivationsDropoutAndLosses) {
  manual_seed(10);
  Tensor x = randn_d({3, 4});
  auto same = [&](nn::Module& m, const Tensor& y, const Tensor& ref) { expect_same_as_functional(m, y, ref); };
  { nn::ReLU m; same(m, m(x), relu(x)); }
  { nn::ReLU6 m; same(m, m(x), relu6(x)); }
  { nn::SELU m; same(m, m(x), selu(x)); }
  { nn::SiLU m; same(m, m(x), silu(x)); }
  { nn::Mish m; same(m, m(x), mish(x)); }
  { nn::Sigmoid m; same(m, m(x), sigmoid(x)); }
  { nn::Tanh m; same(m, m(x), tanh(x)); }
  { nn::Hardswish m; same(m, m(x), hardswish(x)); }
  { nn::Hardsigmoid m; same(m, m(x), hardsigmoid(x)); }
  { nn::LogSigmoid m; same(m, m(x), log_sigmoid(x)); }
  { nn::Softsign m; same(m, m(x), softsign(x)); }
  { nn::Tanhshrink m; same(m, m(x), tanhshrink(x)); }
  { nn::LeakyReLU m(0.2); same(m, m(x), leaky_relu(x, 0.2)); }
  { nn::GELU m("tanh"); same(m, m(x), gelu(x, "tanh")); }
  { nn::ELU m(0.5); same(m, m(x), elu(x, 0.5)); }
  { nn::CELU m(0.5); same(m, m(x), celu(x, 0.5)); }
  { nn::Hardtanh m(-0.5, 0.5); same(m, m(x), hardtanh(x, -0.5, 0.5)); }
  { nn::Softplus m(2, 10); same(m, m(x), softplus(x, 2, 10)); }
  { nn::Softmax m(1); same(m, m(x), softmax(x, 1)); }
  { nn::LogSoftmax m(0); same(m, m(x), log_softmax(x, 0)); }
  {
    nn::PReLU m(4, 0.1, kDouble);
    same(m, m(x), prelu(x, m.weight));
  }

  Tensor big = ones({8, 16, 4, 4}, kDouble);
  for (auto m : std::vector<std::shared_ptr<nn::Module>>{
           std::make_shared<nn::Dropout>(0.5), std::make_shared<nn::Dropout2d>(0.5),
           std::make_shared<nn::Dropout3d>(0.5), std::make_shared<nn::AlphaDropout>(0.5)}) {
    Tensor y = m->call({big})[0];
    EXPECT_GT(max_abs_diff(y, big), 0.0) << m->name();  // training: something dropped
    m->eval();
    EXPECT_EQ(max_abs_diff(m->call({big})[0], big), 0.0) << m->name();  // evaluation: the identity
  }
  // Channel dropout zeroes whole channels.
  Tensor y = nn::Dropout2d(0.5)(big);
  Tensor per_channel = amax(y, {2, 3});
  EXPECT_EQ(max_abs_diff(amin(y, {2, 3}), per_channel), 0.0);
  nn::Dropout1d d1(0.5);
  EXPECT_EQ(d1(ones({16, 4}, kDouble)).sizes(), IntArrayRef({16, 4}));

  Tensor logits = randn_d({5, 3}), labels = tensor<int64_t>({0, 2, 1, 2, 0}), t = randn_d({5, 3});
  Tensor w = tensor({1.f, 2.f, 0.5f});
  {
    nn::MSELoss m(Reduction::Sum);
    same(m, m(logits, t), mse_loss(logits, t, Reduction::Sum));
  }
  { nn::L1Loss m; same(m, m(logits, t), l1_loss(logits, t)); }
  {
    nn::CrossEntropyLoss m({.weight = w, .label_smoothing = 0.1});
    EXPECT_EQ(m.named_buffers().keys(), std::vector<std::string>{"weight"});
    m.to(kDouble);
    EXPECT_EQ(w.dtype(), kDouble);  // the buffer, the option and w are one tensor
    same(m, m(logits, labels), cross_entropy_loss(logits, labels, w, Reduction::Mean, -100, 0.1));
    Tensor probs = softmax(t, 1);
    same(m, m(logits, probs), cross_entropy_loss(logits, probs, w, Reduction::Mean, -100, 0.1));
  }
  {
    nn::NLLLoss m({.ignore_index = 2, .reduction = Reduction::None});
    Tensor lp = log_softmax(logits, 1);
    same(m, m(lp, labels), nll_loss(lp, labels, {}, Reduction::None, 2));
  }
  {
    Tensor targets = rand({5, 3}, nullptr, kDouble), pw = tensor({1.0, 3.0, 2.0}, kDouble);
    nn::BCEWithLogitsLoss m({.pos_weight = pw});
    same(m, m(logits, targets), binary_cross_entropy_with_logits(logits, targets, {}, pw));
  }
}

// ---------------------------------------------------------------- training

TEST(NnModule, SmallMlpLearnsWithSgd) {
  manual_seed(11);
  // y = sin(3 x0) + x1^2 on 64 points.
  Tensor x = rand({64, 2}, nullptr, kDouble) * 2 - 1;
  Tensor target = add(sin(mul(x.select(1, 0), 3)), mul(x.select(1, 1), x.select(1, 1))).unsqueeze(1);
  auto mlp = std::make_shared<nn::Sequential>(
      nn::Linear({.in_features = 2, .out_features = 32, .options = kDouble}), nn::Tanh(),
      nn::Linear({.in_features = 32, .out_features = 1, .options = kDouble}));
  nn::MSELoss loss_fn;
  std::vector<double> losses;
  for (int step = 0; step < 200; ++step) {
    mlp->zero_grad();
    Tensor loss = loss_fn((*mlp)(x), target);
    ag::backward({loss});
    losses.push_back(loss.item<double>());
    nn::utils::clip_grad_norm_(mlp->parameters(), 10.0);
    ag::NoGradGuard no_grad;
    for (Tensor p : mlp->parameters()) p.sub_(ag::grad(p), 0.1);
  }
  EXPECT_LT(losses.back(), losses.front() * 0.3) << losses.front() << " -> " << losses.back();
  for (size_t i = 10; i < losses.size(); i += 10) EXPECT_LT(losses[i], losses[i - 10]);
}

// ---------------------------------------------------------------- initialization and utilities

TEST(NnModuleInit, InitializersAndGain) {
  manual_seed(12);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("relu"), std::sqrt(2.0));
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("tanh"), 5.0 / 3);
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("leaky_relu", 0.2), std::sqrt(2.0 / 1.04));
  EXPECT_DOUBLE_EQ(nn::init::calculate_gain("conv2d"), 1.0);
  expect_error<ValueError>([] { nn::init::calculate_gain("swish"); }, "Unsupported nonlinearity swish");
  Tensor w = empty({200, 100, 3}, kDouble);
  EXPECT_EQ(nn::init::calculate_fan_in_and_fan_out(w), std::make_pair(int64_t{300}, int64_t{600}));
  nn::init::xavier_uniform_(w, 2.0);
  EXPECT_LE(max(abs(w)).item<double>(), 2.0 * std::sqrt(6.0 / 900));
  nn::init::kaiming_uniform_(w, 0, "fan_out", "relu");
  EXPECT_LE(max(abs(w)).item<double>(), std::sqrt(2.0) * std::sqrt(3.0 / 600));
  nn::init::kaiming_normal_(w);
  EXPECT_NEAR(ember::std(w).item<double>(), std::sqrt(2.0 / 300), 0.002);
  nn::init::xavier_normal_(w);
  EXPECT_NEAR(ember::std(w).item<double>(), std::sqrt(2.0 / 900), 0.002);
  nn::init::trunc_normal_(w, 0, 1, -0.5, 0.5);
  EXPECT_LE(max(abs(w)).item<double>(), 0.5);
  expect_error<ValueError>([&] { nn::init::kaiming_uniform_(w, 0, "fan_avg"); }, "Mode fan_avg not supported");
  expect_error<ValueError>([] { nn::init::xavier_uniform_(empty({3})); }, "fewer than 2 dimensions");
  // Initializers do not record, even on parameters.
  Tensor p = empty({3, 3}, kDouble);
  ag::set_requires_grad(p);
  nn::init::eye_(p);
  EXPECT_TRUE(ag::is_leaf(p));
  EXPECT_EQ(max_abs_diff(p, eye(3, std::nullopt, kDouble)), 0.0);
  nn::init::constant_(p, 0.5);
  EXPECT_EQ(as_double(p.flatten())[4], 0.5);
  EXPECT_EQ(sum(nn::init::ones_(empty({2, 2}))).item<double>(), 4.0);
  EXPECT_EQ(sum(nn::init::zeros_(ones({2, 2}))).item<double>(), 0.0);
  Tensor d = nn::init::dirac_(empty({4, 2, 3, 3}, kDouble), 2);
  EXPECT_EQ(sum(d).item<double>(), 4.0);
  EXPECT_EQ(d.select(0, 1).select(0, 1).select(0, 1).select(0, 1).item<double>(), 1.0);
  for (auto shape : {std::vector<int64_t>{6, 4}, std::vector<int64_t>{3, 2, 4}}) {
    Tensor q = nn::init::orthogonal_(empty(shape, kDouble), 2.0).flatten(1);
    Tensor gram = q.size(0) >= q.size(1) ? matmul(q.t(), q) : matmul(q, q.t());
    EXPECT_LT(max_abs_diff(gram, mul(eye(gram.size(0), std::nullopt, kDouble), 4.0)), 1e-10);
  }
  // sparse_: the normal draw, then ceil(0.3 * 10) = 3 zeros in every column.
  manual_seed(7);
  Tensor sp = nn::init::sparse_(empty({10, 6}, kDouble), 0.3, 0.5);
  manual_seed(7);
  Tensor drawn = empty({10, 6}, kDouble);
  normal_(drawn, 0.0, 0.5, nullptr);
  const Tensor zero = eq(sp, 0.0);
  EXPECT_EQ(as_double(sum(zero, std::vector<int64_t>{0})), std::vector<double>(6, 3.0));
  EXPECT_EQ(max_abs_diff(where(zero, zeros_like(drawn), drawn), sp), 0.0);
  EXPECT_EQ(sum(eq(nn::init::sparse_(empty({4, 3}, kDouble), 2.0), 0.0)).item<int64_t>(), 12);  // capped at rows
  expect_error<ValueError>([] { nn::init::sparse_(empty({3}), 0.1); }, "Only tensors with 2 dimensions are supported");
}

TEST(NnModuleInit, GradientUtilities) {
  Tensor a = zeros({2}, kDouble), b = zeros({2, 2}, kDouble), c = zeros({1}, kDouble);
  for (const Tensor& t : {a, b, c}) ag::set_requires_grad(t);
  ag::set_grad(a, tensor({3.0, 0.0}));
  ag::set_grad(b, full({2, 2}, 2.0, kDouble));  // c has no gradient
  Tensor total = nn::utils::clip_grad_norm_({a, b, c}, 1.0);
  EXPECT_DOUBLE_EQ(total.item<double>(), 5.0);
  EXPECT_NEAR(norm(cat({ag::grad(a), ag::grad(b).flatten()})).item<double>(), 1.0, 1e-6);
  Tensor inf_total = nn::utils::clip_grad_norm_({a, b}, 10.0, INFINITY);
  EXPECT_NEAR(inf_total.item<double>(), 0.6, 1e-6);
  EXPECT_EQ(nn::utils::clip_grad_norm_({c}, 1.0).item<double>(), 0.0);
  ag::set_grad(a, tensor({testing::kNaN, 1.0}));
  expect_error<RuntimeError>([&] { nn::utils::clip_grad_norm_({a}, 1.0, 2.0, true); }, "is non-finite");
  ag::set_grad(a, tensor({-3.0, 0.5}));
  nn::utils::clip_grad_value_({a, c}, 1.0);
  EXPECT_EQ(as_double(ag::grad(a)), (std::vector<double>{-1.0, 0.5}));

  Tensor vec = nn::utils::parameters_to_vector({a, b});
  EXPECT_EQ(vec.sizes(), IntArrayRef({6}));
  EXPECT_TRUE(ag::requires_grad(vec));
  nn::utils::vector_to_parameters(arange(6, kDouble), {a, b});
  EXPECT_EQ(as_double(b.flatten()), (std::vector<double>{2, 3, 4, 5}));
  EXPECT_TRUE(ag::is_leaf(b) && ag::requires_grad(b));
  expect_error<ValueError>([&] { nn::utils::vector_to_parameters(arange(5, kDouble), {a, b}); },
                           "expected a 1-D vector of 6 elements");
}

// ---------------------------------------------------------------- errors

TEST(NnModuleErrors, BadInputsNameTheLayerAndShapes) {
  nn::Linear lin(4, 3);
  expect_error<RuntimeError>([&] { lin(zeros({2, 5})); },
                             "Linear: expected input with last dimension 4 (in_features), got shape [2, 5]");
  expect_error<TypeError>([&] { lin(zeros({2, 4}, kDouble)); },
                          "Linear: expected input of dtype float32 (the dtype of the layer's parameters), got float64");
  nn::Conv2d conv(3, 8, 3);
  expect_error<RuntimeError>([&] { conv(zeros({1, 4, 8, 8})); },
                             "Conv2d: expected input of shape (N, C, H, W) or (C, H, W) with C = 3 (in_channels), "
                             "got shape [1, 4, 8, 8]");
  expect_error<RuntimeError>([&] { conv(zeros({8, 8})); }, "got shape [8, 8]");
  expect_error<ValueError>([] { nn::BatchNorm2d(3)(zeros({2, 3, 4})); },
                           "BatchNorm2d: expected 4D input (got 3D input of shape [2, 3, 4])");
  expect_error<RuntimeError>([] { nn::BatchNorm1d(3)(zeros({2, 4})); },
                             "BatchNorm1d: expected input with 3 channels (num_features) at dim 1, got shape [2, 4]");
  expect_error<RuntimeError>(
      [] { nn::LayerNorm({4})(zeros({2, 5})); },
      "LayerNorm: expected input with trailing dimensions [4] (normalized_shape), got shape [2, 5]");
  expect_error<RuntimeError>([] { nn::GroupNorm(2, 4)(zeros({2, 6})); },
                             "GroupNorm: expected input of shape (N, C, *) with C = 4");
  expect_error<TypeError>([] { nn::Embedding(5, 2)(zeros({3})); },
                          "Embedding: expected indices of dtype int64 or int32, got float32");
  expect_error<RuntimeError>([] { nn::MaxPool2d({.kernel_size = {2}})(zeros({4, 4})); },
                             "MaxPool2d: expected input of shape (N, C, H, W) or (C, H, W), got shape [4, 4]");
  expect_error<RuntimeError>([] { nn::Flatten(2)(zeros({3, 4})); }, "Flatten: start_dim 2 and end_dim -1 must be dims");
  expect_error<RuntimeError>([] { nn::Unflatten(1, {3, 3})(zeros({2, 8})); },
                             "Unflatten: cannot unflatten dim 1 of size 8 into (3, 3)");
  expect_error<RuntimeError>([] { nn::Softmax(2)(zeros({2, 2})); }, "Softmax: dim 2 is out of range");
  expect_error<RuntimeError>([] { nn::MSELoss()(zeros({2, 3}), zeros({2, 1})); },
                             "MSELoss: expected target of the input's shape [2, 3], got shape [2, 1]");
  expect_error<RuntimeError>([] { nn::CrossEntropyLoss()(zeros({2, 3}), tensor<int64_t>({0, 1, 2})); },
                             "CrossEntropyLoss: expected target of shape [2] (class indices) or [2, 3] (class "
                             "probabilities) for input of shape [2, 3], got shape [3]");
  expect_error<TypeError>([] { nn::NLLLoss()(zeros({2, 3}), zeros({2})); },
                          "NLLLoss: expected class indices of dtype int64");
  expect_error<ValueError>([] { nn::BCEWithLogitsLoss()(zeros({2}), zeros({2, 1})); },
                           "BCEWithLogitsLoss: Target size ([2, 1]) must be the same as input size ([2])");
  expect_error<RuntimeError>([] { nn::Bilinear(2, 3, 4)(zeros({5, 2}), zeros({4, 3})); },
                             "the same leading dimensions");
}

TEST(NnModuleErrors, BadHyperParametersRaiseAtConstruction) {
  expect_error<ValueError>([] { nn::Dropout(1.5); },
                           "Dropout: dropout probability has to be between 0 and 1, but got 1.5");
  expect_error<ValueError>([] { nn::Dropout2d(-0.1); }, "Dropout2d: dropout probability");
  expect_error<ValueError>([] { nn::Conv2d(3, 8, 0); }, "Conv2d: kernel_size must be positive, got [0, 0]");
  expect_error<ValueError>([] { nn::Conv1d({.in_channels = 3, .out_channels = 6, .kernel_size = {3}, .groups = 2}); },
                           "Conv1d: in_channels (3) must be divisible by groups (2)");
  expect_error<ValueError>(
      [] { nn::ConvTranspose2d({.in_channels = 4, .out_channels = 6, .kernel_size = {3}, .groups = 4}); },
                           "ConvTranspose2d: out_channels (6) must be divisible by groups (4)");
  expect_error<ValueError>([] { nn::Conv2d({.in_channels = 3, .out_channels = 6, .kernel_size = {3, 3, 3}}); },
                           "Conv2d: expected kernel_size to have 1 or 2 values, got [3, 3, 3]");
  expect_error<ValueError>(
      [] { nn::Conv2d({.in_channels = 1, .out_channels = 1, .kernel_size = {3}, .padding_mode = "wrap"}); },
                           "padding_mode must be one of");
  expect_error<ValueError>(
      [] { nn::Conv2d({.in_channels = 1, .out_channels = 1, .kernel_size = {3}, .output_padding = {1}}); },
                           "output_padding is for transposed convolutions only");
  expect_error<ValueError>([] { nn::MaxPool2d({.kernel_size = {0}}); }, "MaxPool2d: kernel_size must be positive");
  expect_error<ValueError>([] { nn::AvgPool2d({.kernel_size = {2}, .padding = {2}}); },
                           "padding should be at most half");
  expect_error<ValueError>([] { nn::GroupNorm(3, 4); },
                           "GroupNorm: num_channels (4) must be divisible by num_groups (3)");
  expect_error<ValueError>([] { nn::BatchNorm2d(0); }, "BatchNorm2d: num_features must be positive");
  expect_error<ValueError>([] { nn::Embedding({.num_embeddings = 3, .embedding_dim = 2, .padding_idx = 3}); },
                           "Embedding: padding_idx 3 must be within num_embeddings (3)");
  expect_error<ValueError>([] { nn::GELU("erf"); }, "GELU: approximate must be 'none' or 'tanh'");
  expect_error<ValueError>([] { nn::Hardtanh(1, -1); }, "Hardtanh: max_val (-1.0) must be greater than min_val (1.0)");
  expect_error<ValueError>([] { nn::Linear(-1, 2); }, "Linear: in_features and out_features must be non-negative");
  expect_error<ValueError>([] { nn::CrossEntropyLoss({.label_smoothing = 2}); }, "label_smoothing must be between");
  expect_error<ValueError>([] { nn::MSELoss(7); }, "MSELoss: 7 is not a valid value for reduction");
}

}  // namespace ember::nn_module_test
