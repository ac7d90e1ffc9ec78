// ember::fx C++ tracing through the Trace dispatch key, run_graph, JSON round trips.
#include <gtest/gtest.h>

#include "ember/error.h"
#include "ember/fx.h"
#include "ember/fx/trace.h"
#include "ember/nn.h"
#include "ember/ops.h"

namespace fx = ember::fx;
using ember::Tensor;

namespace {

bool fx_same(const Tensor& a, const Tensor& b) {
  return a.sizes().vec() == b.sizes().vec() && a.dtype() == b.dtype() && ember::equal(a, b);
}

std::vector<std::string> fx_targets(const fx::Graph& g) {
  std::vector<std::string> r;
  for (fx::Node* n : g.nodes())
    if (n->op() == fx::Opcode::CallFunction || n->op() == fx::Opcode::CallMethod) r.push_back(n->target());
  return r;
}

}  // namespace

TEST(FxTrace, FunctionRecordsDispatchedOps) {
  Tensor w = ember::randn({3});
  auto f = [&](const std::vector<Tensor>& in) {
    Tensor a = ember::add(in[0], in[1], 2);
    Tensor b = ember::relu(a * w);
    return std::vector<Tensor>{b, ember::sum(b)};
  };
  Tensor x = ember::randn({2, 3}), y = ember::randn({3});
  fx::TraceResult r = fx::trace(f, {x, y}, {}, {"x", "y"});
  EXPECT_NO_THROW(r.graph->lint());
  EXPECT_EQ(fx_targets(*r.graph), (std::vector<std::string>{"add.Tensor", "mul.Tensor", "relu", "sum"}));
  // The captured tensor became an attribute.
  ASSERT_EQ(r.attributes.size(), 1u);
  EXPECT_TRUE(r.attributes.at("_tensor_constant0").is_same(w));
  fx::Node* relu = r.graph->find_node("relu");
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(*relu->shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(*relu->dtype, ember::kFloat);
  // No data was touched: the trace ran on Meta tensors; run_graph reproduces f.
  std::vector<Tensor> want = f({x, y});
  std::vector<Tensor> got = fx::run_graph(*r.graph, {x, y}, r.attributes);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(fx_same(got[0], want[0]));
  EXPECT_TRUE(fx_same(got[1], want[1]));
  // Tracing is off again.
  EXPECT_FALSE(fx::is_tracing());
  EXPECT_FALSE(ember::tls_local_dispatch_keys().included.has(ember::DispatchKey::Trace));
}

TEST(FxTrace, ViewsInPlaceAndMultipleResults) {
  auto f = [](const std::vector<Tensor>& in) {
    Tensor t = in[0].transpose(0, 1);   // a view method: recorded as as_strided
    Tensor c = t.contiguous();
    c.mul_(3);                          // in place: later uses read the mul_ node
    auto [values, indices] = ember::max(c, 1, false);
    return std::vector<Tensor>{values, indices, c};
  };
  Tensor x = ember::randn({3, 4});
  fx::TraceResult r = fx::trace(f, {x});
  auto t = fx_targets(*r.graph);
  EXPECT_EQ(t.front(), "as_strided");
  EXPECT_TRUE(std::any_of(t.begin(), t.end(), [](const std::string& s) { return s.rfind("mul_", 0) == 0; }));
  EXPECT_NE(std::find(t.begin(), t.end(), "getitem"), t.end());
  std::vector<Tensor> want = f({x});
  std::vector<Tensor> got = fx::run_graph(*r.graph, {x}, r.attributes);
  ASSERT_EQ(got.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_TRUE(fx_same(got[i], want[i])) << i;
}

TEST(FxTrace, ModuleParametersBecomeAttributes) {
  ember::manual_seed(0);
  auto model = std::make_shared<ember::nn::Sequential>(ember::nn::Linear(4, 8), ember::nn::ReLU(),
                                                       ember::nn::Linear(8, 2));
  Tensor x = ember::randn({5, 4});
  fx::TraceResult r = fx::trace_module(*model, {x});
  std::vector<std::string> attrs;
  for (fx::Node* n : r.graph->nodes())
    if (n->op() == fx::Opcode::GetAttr) attrs.push_back(n->target());
  EXPECT_EQ(attrs, (std::vector<std::string>{"0.weight", "0.bias", "2.weight", "2.bias"}));
  EXPECT_EQ(r.attributes.size(), 4u);
  std::vector<Tensor> got = fx::run_graph(*r.graph, {x}, r.attributes);
  Tensor want = model->call({x})[0];
  EXPECT_TRUE(fx_same(got[0], want));
  // The module's parameters were not touched (still CPU tensors with their values).
  EXPECT_EQ(model->named_parameters().find("0.weight")->device().type, ember::DeviceType::CPU);
}

TEST(FxTrace, JsonRoundTripIsExact) {
  auto f = [](const std::vector<Tensor>& in) {
    Tensor a = ember::add(ember::abs(in[0]), 0.1);  // positive: pow(., 2.5) stays finite
    Tensor b = ember::pow(a, 2.5);
    return std::vector<Tensor>{ember::sum(b, std::vector<int64_t>{0}, true, ember::kDouble)};
  };
  fx::TraceResult r = fx::trace(f, {ember::randn({3, 2})});
  std::string text = fx::graph_to_json(*r.graph);
  auto back = fx::graph_from_json(text);
  EXPECT_EQ(fx::graph_to_json(*back), text);
  EXPECT_EQ(back->str(), r.graph->str());
  Tensor x = ember::randn({3, 2});
  EXPECT_TRUE(fx_same(fx::run_graph(*back, {x}, r.attributes)[0], f({x})[0]));
}

TEST(FxTrace, JsonRejectsBadInput) {
  auto expect_value_error = [](const std::string& text, const std::string& what) {
    try {
      fx::graph_from_json(text);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const ember::ValueError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  expect_value_error("{", "not valid JSON");
  expect_value_error("[]", "not an object");
  expect_value_error(R"({"format": "other", "version": 1, "nodes": []})", "format");
  expect_value_error(R"({"format": "ember.fx.graph", "version": 2, "nodes": []})", "version 2 is not supported");
  expect_value_error(R"({"format": "ember.fx.graph", "version": 1})", "no \"nodes\"");
  expect_value_error(
      R"({"format": "ember.fx.graph", "version": 1, "nodes": [{"name": "a", "op": "call_function", "target": "relu", "args": [{"node": "x"}], "kwargs": []}]})",
      "not defined before its use");
  expect_value_error(
      R"({"format": "ember.fx.graph", "version": 1, "nodes": [{"name": "a", "op": "jump", "target": "relu", "args": [], "kwargs": []}]})",
      "unknown opcode");
  expect_value_error(
      R"({"format": "ember.fx.graph", "version": 1, "nodes": [{"name": "x", "op": "placeholder", "target": "x", "args": [1.5], "kwargs": []}]})",
      "bare float");
  expect_value_error(
      R"({"format": "ember.fx.graph", "version": 1, "nodes": [{"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": []}, {"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": []}]})",
      "duplicate node name");
}

TEST(FxTrace, GeneratedCppNamesEveryArgument) {
  auto f = [](const std::vector<Tensor>& in) { return std::vector<Tensor>{ember::relu(in[0] + 1.5)}; };
  fx::TraceResult r = fx::trace(f, {ember::randn({2})});
  std::string src = fx::graph_to_cpp(*r.graph, "traced");
  EXPECT_NE(src.find("std::vector<ember::Tensor> traced(const std::vector<ember::Tensor>& inputs"), std::string::npos);
  EXPECT_NE(src.find("ember::fx::call_op(\"relu\""), std::string::npos);
  // call_module nodes have no C++ form.
  fx::Graph g;
  g.output(g.call_module("lin", {g.placeholder("x")}));
  EXPECT_THROW(fx::graph_to_cpp(g), ember::ValueError);
}

namespace {
// Counts the ops it runs.
struct CountingInterpreter : fx::Interpreter {
  using fx::Interpreter::Interpreter;
  int calls = 0;
  ember::Stack call_function(const fx::Node& n, ember::Stack args) override {
    ++calls;
    return fx::Interpreter::call_function(n, std::move(args));
  }
};
// relu -> sigmoid.
struct ReluToSigmoid : fx::Transformer {
  using fx::Transformer::Transformer;
  fx::Node* call_function(fx::Graph& out, const fx::Node& n, std::vector<fx::Arg> args, fx::Kwargs kw) override {
    if (n.target() == "relu") return out.call_function("sigmoid", std::move(args), std::move(kw));
    return fx::Transformer::call_function(out, n, std::move(args), std::move(kw));
  }
};
}  // namespace

TEST(FxTrace, InterpreterAndTransformerSubclasses) {
  auto f = [](const std::vector<Tensor>& in) { return std::vector<Tensor>{ember::relu(in[0] * in[0]).exp()}; };
  Tensor x = ember::randn({4});
  fx::TraceResult r = fx::trace(f, {x});
  CountingInterpreter interp(*r.graph, r.attributes);
  EXPECT_TRUE(fx_same(interp.run({x})[0], f({x})[0]));
  EXPECT_EQ(interp.calls, 3);
  auto g2 = ReluToSigmoid(*r.graph).transform();
  EXPECT_EQ(fx_targets(*g2), (std::vector<std::string>{"mul.Tensor", "sigmoid", "exp"}));
  EXPECT_TRUE(fx_same(fx::run_graph(*g2, {x}, r.attributes)[0], ember::sigmoid(x * x).exp()));
  // The identity Transformer reproduces the graph.
  EXPECT_EQ(fx::Transformer(*r.graph).transform()->str(), r.graph->str());
}
