// The backward pass: runs a graph's nodes in reverse topological order on the calling thread.
//
// Dependencies are counted over the nodes that lead to a gradient someone wants (every leaf
// for backward(), the given inputs for grad() and backward(inputs=...)); a node runs once all
// its consumers have sent their gradients, the latest-created first among those ready.
// Each pass keeps its state on the stack, so passes on other threads, and passes started
// from inside a backward function (reentrant), are independent.
#include <queue>
#include <unordered_map>
#include <unordered_set>

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

struct GraphTask {
  bool keep_graph = false;
  bool create_graph = false;
  std::unordered_map<Node*, int> deps;
  std::unordered_map<Node*, std::vector<Tensor>> buffers;
  std::unordered_set<Node*> needed;
  // grad(): the gradient arriving at (node, input) is captured into results[index], and
  // only nodes that feed a wanted one run.
  std::unordered_map<Node*, std::vector<std::pair<uint32_t, size_t>>> captures;
  bool capture_only = false;
  std::vector<Tensor> results;
  // Leaves' gradients (after their hooks), written into .grad once the whole pass succeeded:
  // a pass that raises midway leaves every .grad as it was.
  PendingGrads pending;

  void add_grad(Node* fn, uint32_t nr, const Tensor& g) {
    auto& buf = buffers[fn];
    if (buf.size() < fn->num_inputs()) buf.resize(fn->num_inputs());
    buf[nr] = accumulate(buf[nr], g);
  }
};

// Marks the nodes from which a wanted node can be reached. Iterative, since graphs of
// long loops are deep.
void mark_needed(const std::vector<Node*>& roots, GraphTask& task, const std::unordered_set<Node*>& targets,
                 bool all) {
  std::unordered_map<Node*, int> state;  // 1: open, 2: done
  struct Frame { Node* n; size_t i; };
  for (Node* r : roots) {
    if (state.count(r)) continue;
    std::vector<Frame> stack{{r, 0}};
    state[r] = 1;
    while (!stack.empty()) {
      Frame& f = stack.back();
      const auto& edges = f.n->next_edges();
      if (f.i < edges.size()) {
        Node* c = edges[f.i++].fn.get();
        if (c && !state.count(c)) {
          state[c] = 1;
          stack.push_back({c, 0});
        }
        continue;
      }
      Node* n = f.n;
      stack.pop_back();
      state[n] = 2;
      bool need = all ? true : targets.count(n) > 0;
      for (const Edge& e : n->next_edges())
        if (e.fn && task.needed.count(e.fn.get())) need = true;
      if (need) task.needed.insert(n);
    }
  }
}

void run(GraphTask& task, const std::vector<Edge>& root_edges, const std::vector<Tensor>& root_grads) {
  std::vector<Node*> roots;
  for (const Edge& e : root_edges) roots.push_back(e.fn.get());
  // Dependencies among the needed nodes.
  for (Node* n : task.needed)
    for (const Edge& e : n->next_edges())
      if (e.fn && task.needed.count(e.fn.get())) ++task.deps[e.fn.get()];
  for (size_t i = 0; i < root_edges.size(); ++i)
    if (task.needed.count(roots[i])) task.add_grad(roots[i], root_edges[i].input_nr, root_grads[i]);

  std::priority_queue<Node*, std::vector<Node*>, ByLatest> ready;
  std::unordered_set<Node*> queued;
  for (Node* r : roots)
    if (task.needed.count(r) && task.deps[r] == 0 && queued.insert(r).second) ready.push(r);

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
    std::vector<Tensor> inputs = std::move(task.buffers[n]);
    task.buffers.erase(n);
    inputs.resize(n->num_inputs());
    inputs = n->run_input_hooks(std::move(inputs));
    if (auto it = task.captures.find(n); it != task.captures.end())
      for (auto [nr, idx] : it->second) task.results[idx] = accumulate(task.results[idx], inputs[nr]);
    // grad() skips the nodes whose gradients go nowhere wanted (the inputs' accumulators).
    bool feeds_wanted = !task.capture_only;
    for (const Edge& e : n->next_edges()) feeds_wanted = feeds_wanted || (e.fn && task.needed.count(e.fn.get()));
    std::vector<Tensor> outputs;
    bool any = false;
    for (const Tensor& g : inputs) any = any || g.defined();
    if (any && feeds_wanted) {
      outputs = AnomalyMode::is_enabled() ? apply_with_anomaly_checks(*n, std::move(inputs))
                                          : n->apply(std::move(inputs));
      if (!task.keep_graph) n->release_saved();
    }
    const auto& edges = n->next_edges();
    for (size_t i = 0; i < edges.size(); ++i) {
      Node* c = edges[i].fn.get();
      if (!c || !task.needed.count(c)) continue;
      if (i < outputs.size() && outputs[i].defined()) task.add_grad(c, edges[i].input_nr, outputs[i]);
      if (--task.deps[c] == 0 && queued.insert(c).second) ready.push(c);
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
                  "are required to have the same dtype. Mismatch in dtype: grad_output[", i, "] has a dtype of ",
                  g.dtype(), " and output[", i, "] has a dtype of ", r.dtype(), ".");
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
  std::unordered_set<Node*> targets;
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(requires_grad(inputs[i]), RuntimeError, "One of the differentiated Tensors does not require grad");
    Edge e = gradient_edge(inputs[i]);
    keep_alive.push_back(e.fn);
    if (!is_leaf(inputs[i])) retain_grad(inputs[i]);
    targets.insert(e.fn.get());
  }
  mark_needed(root_nodes, task, targets, inputs.empty());
  run(task, edges, grads);
}

std::vector<Tensor> grad(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                         const std::vector<Tensor>& grad_outputs, std::optional<bool> retain_graph,
                         bool create_graph, bool allow_unused) {
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
  std::unordered_set<Node*> targets;
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(requires_grad(inputs[i]), RuntimeError, "One of the differentiated Tensors does not require grad");
    Edge e = gradient_edge(inputs[i]);
    keep_alive.push_back(e.fn);
    task.captures[e.fn.get()].emplace_back(e.input_nr, i);
    targets.insert(e.fn.get());
  }
  mark_needed(root_nodes, task, targets, false);
  run(task, edges, grads);
  for (size_t i = 0; i < inputs.size(); ++i) {
    EMBER_CHECK(task.results[i].defined() || allow_unused, RuntimeError,
                "One of the differentiated Tensors appears to not have been used in the graph. Set "
                "allow_unused=True if this is the desired behavior.");
  }
  return task.results;
}

}  // namespace ember::autograd
