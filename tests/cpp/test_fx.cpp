// ember::fx graph IR: building, editing, copying, DCE, lint.
#include <gtest/gtest.h>

#include "ember/error.h"
#include "ember/fx.h"

namespace fx = ember::fx;
using fx::Arg;
using fx::Graph;
using fx::Node;
using fx::Opcode;

namespace {

// x -> relu -> add(relu, 1.0) -> output
struct FxSmall {
  Graph g;
  Node* x;
  Node* relu;
  Node* add;
  Node* out;
  FxSmall() {
    x = g.placeholder("x");
    relu = g.call_function("relu", {x});
    add = g.call_function("add.Tensor", {relu, 1.0}, {{"alpha", Arg(2)}});
    out = g.output(add);
  }
};

std::vector<std::string> fx_names(const Graph& g) {
  std::vector<std::string> r;
  for (Node* n : g.nodes()) r.push_back(n->name());
  return r;
}

}  // namespace

TEST(Fx, BuildOrderUsersAndNames) {
  FxSmall s;
  EXPECT_EQ(fx_names(s.g), (std::vector<std::string>{"x", "relu", "add", "output"}));
  EXPECT_EQ(s.x->users(), std::vector<Node*>{s.relu});
  EXPECT_EQ(s.relu->users(), std::vector<Node*>{s.add});
  EXPECT_EQ(s.add->users(), std::vector<Node*>{s.out});
  EXPECT_EQ(s.x->prev(), nullptr);
  EXPECT_EQ(s.x->next(), s.relu);
  EXPECT_EQ(s.out->next(), nullptr);
  EXPECT_EQ(s.g.output_node(), s.out);
  // Unique, valid names: a repeated target gets a suffix; keywords and digits are avoided.
  Node* r2 = s.g.call_function("relu", {s.relu});
  Node* k = s.g.call_module("layer1.0.conv", {s.x});
  Node* kw = s.g.call_method("if", {s.x});
  Node* dig = s.g.get_attr("0.weight");
  EXPECT_EQ(r2->name(), "relu_1");
  EXPECT_EQ(k->name(), "layer1_0_conv");
  EXPECT_EQ(kw->name(), "if_1");
  EXPECT_EQ(dig->name(), "_0_weight");
  EXPECT_EQ(s.g.call_function("relu", {s.x})->name(), "relu_2");
  EXPECT_EQ(s.g.call_function("aten::mul.Tensor", {s.x, s.x})->name(), "mul");
  // A repeated argument is one use.
  EXPECT_EQ(s.g.nodes().back()->all_input_nodes(), std::vector<Node*>{s.x});
}

TEST(Fx, NestedArgsAndFormat) {
  Graph g;
  Node* a = g.placeholder("a");
  Node* b = g.placeholder("b");
  Node* c = g.call_function("cat", {Arg::list({a, b}), 1}, {{"out", Arg()}});
  Node* t = g.call_function("f", {Arg::tuple({a, Arg::dict({{"k", b}, {"s", "str"}})}), ember::kFloat, 2.5});
  g.output(Arg::tuple({c, t}));
  EXPECT_EQ(c->all_input_nodes(), (std::vector<Node*>{a, b}));
  EXPECT_EQ(a->users(), (std::vector<Node*>{c, t}));
  EXPECT_EQ(c->format(), "%cat : [#users=1] = call_function[target=cat](args = ([%a, %b], 1), kwargs = {out: None})");
  EXPECT_EQ(t->args()[0].str(), "(%a, {'k': %b, 's': 'str'})");
  EXPECT_EQ(t->args()[1].str(), "ember.float32");
  EXPECT_EQ(Arg(0.1).str(), "0.1");
  EXPECT_EQ(Arg(3.0).str(), "3.0");
  EXPECT_EQ(Arg::tuple({Arg(1)}).str(), "(1,)");
  EXPECT_NO_THROW(g.lint());
  std::string tab = g.print_tabular();
  EXPECT_NE(tab.find("opcode"), std::string::npos);
  EXPECT_NE(tab.find("call_function  cat"), std::string::npos);
}

TEST(Fx, ReplaceAllUsesAndErase) {
  FxSmall s;
  Node* neg = nullptr;
  {
    auto guard = s.g.inserting_after(s.relu);
    neg = s.g.call_function("neg", {s.relu});
  }
  EXPECT_EQ(fx_names(s.g), (std::vector<std::string>{"x", "relu", "neg", "add", "output"}));
  auto changed = s.relu->replace_all_uses_with(neg);
  EXPECT_EQ(changed, (std::vector<Node*>{s.add, neg}));
  // The replacement's own use of relu stays.
  EXPECT_EQ(neg->args()[0].to_node(), s.relu);
  EXPECT_EQ(s.add->args()[0].to_node(), neg);
  EXPECT_EQ(s.relu->users(), std::vector<Node*>{neg});
  EXPECT_THROW(s.g.erase_node(s.relu), ember::RuntimeError);  // still used by neg
  EXPECT_NO_THROW(s.g.lint());
  {
    auto guard = s.g.inserting_before(s.relu);
    Node* first = s.g.call_function("abs", {s.x});
    EXPECT_EQ(first->next(), s.relu);
  }
  // After the guard, nodes go to the end again.
  Node* last = s.g.call_function("sin", {s.x});
  EXPECT_EQ(last->prev(), s.out);
  EXPECT_THROW(s.g.lint(), ember::RuntimeError);  // a node after the output
  s.g.erase_node(last);
  EXPECT_NO_THROW(s.g.lint());
}

TEST(Fx, DeadCodeElimination) {
  FxSmall s;
  Node* dead = s.g.call_function("sin", {s.x});
  Node* dead2 = s.g.call_function("cos", {dead});
  Node* inplace = s.g.call_function("relu_", {s.x});
  s.out->prepend(dead);
  s.out->prepend(dead2);
  s.out->prepend(inplace);
  EXPECT_TRUE(s.g.eliminate_dead_code());
  EXPECT_EQ(fx_names(s.g), (std::vector<std::string>{"x", "relu", "add", "relu_", "output"}));
  EXPECT_FALSE(s.g.eliminate_dead_code());
  // A custom purity rule.
  EXPECT_TRUE(s.g.eliminate_dead_code([](const Node& n) { return n.op() == Opcode::Output || n.op() == Opcode::Placeholder; }));
  EXPECT_EQ(fx_names(s.g), (std::vector<std::string>{"x", "relu", "add", "output"}));
}

TEST(Fx, CopyKeepsStructure) {
  FxSmall s;
  s.relu->shape = std::vector<int64_t>{2, 3};
  s.relu->dtype = ember::kFloat;
  auto c = s.g.copy();
  EXPECT_EQ(fx_names(*c), fx_names(s.g));
  EXPECT_EQ(c->str(), s.g.str());
  Node* crelu = c->find_node("relu");
  ASSERT_NE(crelu, nullptr);
  EXPECT_NE(crelu, s.relu);
  EXPECT_EQ(crelu->shape, s.relu->shape);
  EXPECT_EQ(crelu->graph(), c.get());
  EXPECT_NO_THROW(c->lint());
  // graph_copy into a graph with its own inputs: a map for the placeholders first.
  Graph h;
  Node* y = h.placeholder("y");
  Node* y2 = h.call_function("mul", {y, y});
  std::unordered_map<const Node*, Node*> vm{{s.x, y2}};
  // x is pre-mapped, but graph_copy copies every node; drop the placeholder afterwards.
  Arg out = h.graph_copy(s.g, vm);
  h.output(out);
  EXPECT_EQ(out.to_node()->op(), Opcode::CallFunction);
  Node* copied_x = vm.at(s.x);
  EXPECT_EQ(copied_x->op(), Opcode::Placeholder);
  copied_x->replace_all_uses_with(y2);
  h.erase_node(copied_x);
  EXPECT_NO_THROW(h.lint());
  EXPECT_EQ(h.find_node("relu")->args()[0].to_node(), y2);
}

TEST(Fx, LintAndBadInput) {
  FxSmall s;
  Graph other;
  Node* z = other.placeholder("z");
  EXPECT_THROW(s.g.call_function("neg", {z}), ember::RuntimeError);
  EXPECT_THROW(s.relu->set_args({z}), ember::RuntimeError);
  EXPECT_EQ(s.relu->args()[0].to_node(), s.x);  // unchanged after the failed edit
  s.g.output(Arg());  // a second output: lint catches it
  EXPECT_THROW(s.g.lint(), ember::RuntimeError);
  EXPECT_THROW(s.g.create_node(Opcode::CallFunction, ""), ember::RuntimeError);
  EXPECT_THROW(fx::opcode_from_name("call"), ember::ValueError);
  EXPECT_EQ(fx::opcode_from_name("call_module"), Opcode::CallModule);
  // Use before definition.
  Graph g;
  Node* a = g.placeholder("a");
  Node* b = g.call_function("neg", {a});
  Node* c = g.call_function("exp", {b});
  g.output(c);
  EXPECT_NO_THROW(g.lint());
  b->prepend(c);
  EXPECT_THROW(g.lint(), ember::RuntimeError);
  c->prepend(b);
  EXPECT_NO_THROW(g.lint());
}

TEST(Fx, OperatorList) {
  FxSmall s;
  s.g.output_node()->prepend(s.g.call_method("view", {s.x, -1}));
  EXPECT_EQ(fx::operator_list(s.g), (std::vector<std::string>{"add.Tensor", "relu", "Tensor.view"}));
}

TEST(Fx, NodesOutliveGraph) {
  std::shared_ptr<Node> keep;
  {
    FxSmall s;
    keep = s.relu->shared_from_this();
  }
  EXPECT_TRUE(keep->erased());
  EXPECT_TRUE(keep->args().empty());
}
