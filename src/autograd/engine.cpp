// The backward pass: runs a graph's nodes in reverse topological order on the calling thread.
//
// Dependencies are counted over the nodes that lead to a gradient someone wants (every leaf
// for backward(), the given inputs for grad() and backward(inputs=...)); a node runs once all
// its consumers have sent their gradients, the latest-created first among those ready.
// Each pass keeps its state on the stack, so passes on other threads, and passes started
// from inside a backward function (reentrant), are independent.
#include <cstdint>
#include <queue>

#include "autograd/meta.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember::autograd {

namespace {
thread_local int tls_backward_depth = 0;

struct ByLatest {
  bool operator()(Node* a, Node* b) const { return a->sequence_nr() < b->sequence_nr(); }
};

Tensor accumulate(const Tensor& a, const Tensor& b) {
  if (!a.defined()) return b;
  if (!b.defined()) return a;
  return add(a, b);
}

// One pass's state of one node.
struct NodeTask {
  Node* node = nullptr;
  int deps = 0;       // consumers still to send their gradients
  uint8_t visit = 0;  // mark_needed: 0 new, 1 open, 2 done
  bool target = false, needed = false, queued = false;
  std::vector<Tensor> buffer;  // the gradients received so far, by input
  // grad(): the gradient arriving at (node, input) is captured into results[index].
  std::vector<std::pair<uint32_t, size_t>> captures;
};

// Node -> NodeTask, by open addressing into one array: a small backward touches each node a
// handful of times, and the per-entry allocations of five std::unordered_maps were a visible
// part of its cost.
class NodeTable {
 public:
  NodeTask& operator[](Node* n) {
    if ((tasks_.size() + 1) * 2 > slots_.size()) grow();
    uint32_t& slot = slots_[probe(n)];
    if (slot == kEmpty) {
      slot = static_cast<uint32_t>(tasks_.size());
      tasks_.emplace_back().node = n;
    }
    return tasks_[slot];
  }
  NodeTask* find(Node* n) {
    if (slots_.empty()) return nullptr;
    const uint32_t slot = slots_[probe(n)];
    return slot == kEmpty ? nullptr : &tasks_[slot];
  }
  bool needed(Node* n) {
    const NodeTask* t = find(n);
    return t && t->needed;
  }
  std::vector<NodeTask>& tasks() { return tasks_; }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  size_t probe(Node* n) const {
    const size_t mask = slots_.size() - 1;
    size_t i = static_cast<size_t>((reinterpret_cast<uintptr_t>(n) >> 4) * 0x9E3779B97F4A7C15ull >> 32) & mask;
    while (slots_[i] != kEmpty && tasks_[slots_[i]].node != n) i = (i + 1) & mask;
    return i;
  }
  void grow() {
    slots_.assign(slots_.empty() ? 64 : slots_.size() * 2, kEmpty);
    for (size_t k = 0; k < tasks_.size(); ++k) slots_[probe(tasks_[k].node)] = static_cast<uint32_t>(k);
  }
  std::vector<uint32_t> slots_;
  std::vector<NodeTask> tasks_;
};

struct GraphTask {
  bool keep_graph = false;
  bool create_graph = false;
  NodeTable nodes;
  // grad(): only nodes that feed a wanted one run.
  bool capture_only = false;
  std::vector<Tensor> results;
  // Leaves' gradients (after their hooks), written into .grad once the whole pass succeeded:
  // a pass that raises midway leaves every .grad as it was.
  PendingGrads pending;

  void add_grad(NodeTask& t, uint32_t nr, const Tensor& g) {
    if (t.buffer.size() < t.node->num_inputs()) t.buffer.resize(t.node->num_inputs());
    t.buffer[nr] = accumulate(t.buffer[nr], g);
  }
};

// Marks the nodes from which a wanted node (a target, or any node when `all`) can be
// reached. Iterative, since graphs of long loops are deep.
void mark_needed(const std::vector<Node*>& roots, GraphTask& task, bool all) {
  struct Frame { Node* n; size_t i; };
  for (Node* r : roots) {
    if (task.nodes[r].visit) continue;
    std::vector<Frame> stack{{r, 0}};
    task.nodes[r].visit = 1;
    while (!stack.empty()) {
      Frame& f = stack.back();
      const auto& edges = f.n->next_edges();
      if (f.i < edges.size()) {
        Node* c = edges[f.i++].fn.get();
        if (c && !task.nodes[c].visit) {
          task.nodes[c].visit = 1;
          stack.push_back({c, 0});  // f is not used after this
        }
        continue;
      }
      Node* n = f.n;
      stack.pop_back();
      NodeTask& t = *task.nodes.find(n);  // the lookups below insert nothing
      bool need = all || t.target;
      for (const Edge& e : n->next_edges()) need = need || (e.fn && task.nodes.needed(e.fn.get()));
      t.visit = 2;
      t.needed = need;
    }
  }
}

// Runs a node that has post hooks (Node::register_hook). Its hooks see grad_inputs with one
// entry per next edge, undefined where the edge leads nowhere or to nothing this pass wants
// (PyTorch computes no gradient there), and the node's incoming gradients as grad_outputs.
// As in PyTorch, the hooks run even when every incoming gradient is undefined.
std::vector<Tensor> run_with_post_hooks(GraphTask& task, Node& n, std::vector<Tensor> inputs, bool any) {
  const std::vector<Tensor> grad_outputs = inputs;
  std::vector<Tensor> outputs;
  if (any) {
    outputs = AnomalyMode::is_enabled() ? apply_with_anomaly_checks(n, std::move(inputs)) : n.apply(std::move(inputs));
    if (!task.keep_graph) n.release_saved();
  }
  const auto& edges = n.next_edges();
  outputs.resize(edges.size());
  for (size_t i = 0; i < edges.size(); ++i)
    if (!edges[i].fn || !task.nodes.needed(edges[i].fn.get())) outputs[i] = Tensor();
  return n.run_post_hooks(std::move(outputs), grad_outputs);
}

void run(GraphTask& task, const std::vector<Edge>& root_edges, const std::vector<Tensor>& root_grads) {
  // Every node reachable from the roots is in the table from here on: lookups only.
  NodeTable& nodes = task.nodes;
  for (NodeTask& t : nodes.tasks())
    if (t.needed)
      for (const Edge& e : t.node->next_edges())
        if (NodeTask* c = e.fn ? nodes.find(e.fn.get()) : nullptr; c && c->needed) ++c->deps;
  for (size_t i = 0; i < root_edges.size(); ++i)
    if (NodeTask* t = nodes.find(root_edges[i].fn.get()); t->needed)
      task.add_grad(*t, root_edges[i].input_nr, root_grads[i]);

  std::priority_queue<Node*, std::vector<Node*>, ByLatest> ready;
  for (const Edge& e : root_edges)
    if (NodeTask* t = nodes.find(e.fn.get()); t->needed && t->deps == 0 && !t->queued) {
      t->queued = true;
      ready.push(t->node);
    }

  AutoGradMode mode(task.create_graph);
  ++tls_backward_depth;
  struct DepthGuard { ~DepthGuard() { --tls_backward_depth; } } depth_guard;
  struct PendingGuard {
    PendingGrads* outer;
    ~PendingGuard() { swap_pending_grads(outer); }
  } pending_guard{swap_pending_grads(&task.pending)};
  while (!ready.empty()) {
    Node* n = ready.top();
    ready.pop();
    NodeTask& t = *nodes.find(n);
    std::vector<Tensor> inputs = std::move(t.buffer);
    t.buffer = {};
    inputs.resize(n->num_inputs());
    inputs = n->run_input_hooks(std::move(inputs));
    for (auto [nr, idx] : t.captures) task.results[idx] = accumulate(task.results[idx], inputs[nr]);
    // grad() skips the nodes whose gradients go nowhere wanted (the inputs' accumulators).
    bool feeds_wanted = !task.capture_only;
    for (const Edge& e : n->next_edges()) feeds_wanted = feeds_wanted || (e.fn && nodes.needed(e.fn.get()));
    std::vector<Tensor> outputs;
    bool any = false;
    for (const Tensor& g : inputs) any = any || g.defined();
    if (n->has_post_hooks() && feeds_wanted) [[unlikely]] {
      outputs = run_with_post_hooks(task, *n, std::move(inputs), any);
    } else if (any && feeds_wanted) {
      outputs = AnomalyMode::is_enabled() ? apply_with_anomaly_checks(*n, std::move(inputs))
                                          : n->apply(std::move(inputs));
      if (!task.keep_graph) n->release_saved();
    }
    const auto& edges = n->next_edges();
    for (size_t i = 0; i < edges.size(); ++i) {
      NodeTask* c = edges[i].fn ? nodes.find(edges[i].fn.get()) : nullptr;
      if (!c || !c->needed) continue;
      if (i < outputs.size() && outputs[i].defined()) task.add_grad(*c, edges[i].input_nr, outputs[i]);
      if (--c->deps == 0 && !c->queued) {
        c->queued = true;
        ready.push(c->node);
      }
    }
  }
  swap_pending_grads(pending_guard.outer);  // the guard restores it again: harmless
  for (auto& [acc, g] : task.pending) acc->accumulate(std::move(g));
}

// The roots' edges and gradients (ones for scalars when none are given).
void prepare_roots(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots,
                   std::vector<Edge>& edges, std::vector<Tensor>& grads) {
  EMBER_CHECK(grad_roots.empty() || grad_roots.size() == roots.size(), RuntimeError, "got ", grad_roots.size(),
              " gradients for ", roots.size(), " tensors");
  for (size_t i = 0; i < roots.size(); ++i) {
    const Tensor& r = roots[i];
    Edge e = gradient_edge(r);
    EMBER_CHECK(e.valid(), RuntimeError, "element ", i, " of tensors does not require grad and does not have a grad_fn");
    Tensor g = grad_roots.empty() ? Tensor() : grad_roots[i];
    if (!g.defined()) {
      EMBER_CHECK(r.numel() == 1, RuntimeError, "grad can be implicitly created only for scalar outputs");
      EMBER_CHECK(!r.is_complex(), RuntimeError, "grad can be implicitly created only for real scalar outputs");
      g = ones_like(r);
    } else {
      EMBER_CHECK(g.sizes() == r.sizes(), RuntimeError, "Mismatch in shape: grad_output[", i, "] has a shape of ",
                  g.sizes(), " and output[", i, "] has a shape of ", r.sizes(), ".");
      EMBER_CHECK(g.is_complex() == r.is_complex(), RuntimeError, "For complex Tensors, both grad_output and output "
                  "are required to have the same dtype. Mismatch in dtype: grad_output[", i, "] has a dtype of ember.",
                  g.dtype(), " and output[", i, "] has a dtype of ember.", r.dtype(), ".");
    }
    edges.push_back(e);
    grads.push_back(g);
  }
}

}  // namespace

bool in_backward_pass() { return tls_backward_depth > 0; }

void backward(const std::vector<Tensor>& roots, const std::vector<Tensor>& grad_roots,
              std::optional<bool> retain_graph, bool create_graph, const std::vector<Tensor>& inputs) {
  GraphTask task;
  task.create_graph = create_graph;
  task.keep_graph = retain_graph.value_or(create_graph);
  std::vector<Edge> edges;
  std::vector<Tensor> grads;
  prepare_roots(roots, grad_roots, edges, grads);
  std::vector<Node*> root_nodes;
  for (const Edge& e : edges) root_nodes.push_back(e.fn.get());
  std::vector<std::shared_ptr<Node>> keep_alive;  // accumulators created for `inputs`
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(requires_grad(inputs[i]), RuntimeError, "One of the differentiated Tensors does not require grad");
    Edge e = gradient_edge(inputs[i]);
    keep_alive.push_back(e.fn);
    if (!is_leaf(inputs[i])) retain_grad(inputs[i]);
    task.nodes[e.fn.get()].target = true;
  }
  mark_needed(root_nodes, task, inputs.empty());
  run(task, edges, grads);
}

namespace functional {
// functional.cpp: grad(is_grads_batched=true), a backward pass vmapped over the seeds.
std::vector<Tensor> grad_batched(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                                 const std::vector<Tensor>& grad_outputs, std::optional<bool> retain_graph,
                                 bool create_graph, bool allow_unused);
}  // namespace functional

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, std::optional<bool> retain_graph,
                         bool create_graph, bool allow_unused, bool is_grads_batched) {
  if (is_grads_batched) return functional::grad_batched(outputs, inputs, grad_outputs, retain_graph, create_graph,
                                                        allow_unused);
  EMBER_CHECK(!inputs.empty(), RuntimeError, "grad requires at least one input tensor");
  GraphTask task;
  task.create_graph = create_graph;
  task.keep_graph = retain_graph.value_or(create_graph);
  task.capture_only = true;
  task.results.resize(inputs.size());
  std::vector<Edge> edges;
  std::vector<Tensor> grads;
  prepare_roots(outputs, grad_outputs, edges, grads);
  std::vector<Node*> root_nodes;
  for (const Edge& e : edges) root_nodes.push_back(e.fn.get());
  std::vector<std::shared_ptr<Node>> keep_alive;
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(requires_grad(inputs[i]), RuntimeError, "One of the differentiated Tensors does not require grad");
    Edge e = gradient_edge(inputs[i]);
    keep_alive.push_back(e.fn);
    NodeTask& t = task.nodes[e.fn.get()];
    t.captures.emplace_back(e.input_nr, i);
    t.target = true;
  }
  mark_needed(root_nodes, task, false);
  run(task, edges, grads);
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(task.results[i].defined() || allow_unused, RuntimeError,
                "One of the differentiated Tensors appears to not have been used in the graph. Set "
                "allow_unused=True if this is the desired behavior.");
  }
  return task.results;
}

}  // namespace ember::autograd
