// Grad mode, graph nodes and the autograd state of tensors.
#include <atomic>
#include <utility>

#include "autograd/forward_ad_impl.h"
#include "autograd/meta.h"
#include "autograd/view.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember::autograd {

namespace {
thread_local bool tls_grad_enabled = true;
std::atomic<uint64_t> next_sequence_nr{0};
std::atomic<int64_t> next_hook_id{0};
}  // namespace

bool GradMode::is_enabled() { return tls_grad_enabled; }
void GradMode::set_enabled(bool enabled) { tls_grad_enabled = enabled; }

Node::Node() : sequence_nr_(next_sequence_nr++) {
  if (AnomalyMode::is_enabled()) [[unlikely]] anomaly_trace_ = std::make_unique<std::string>(capture_anomaly_trace());
}
Node::~Node() = default;

void Node::add_input_hook(uint32_t input_nr, GradHook hook) { input_hooks_.emplace_back(input_nr, std::move(hook)); }

std::vector<Tensor> Node::run_input_hooks(std::vector<Tensor> grads) const {
  for (const auto& [nr, hook] : input_hooks_) {
    if (nr >= grads.size() || !grads[nr].defined()) continue;
    Tensor r = hook(grads[nr]);
    if (r.defined()) grads[nr] = std::move(r);
  }
  return grads;
}

int64_t Node::register_hook(PostHook hook) {
  EMBER_CHECK(hook != nullptr, RuntimeError, "register_hook: the hook is empty");
  auto e = std::make_shared<PostHookEntry>();
  e->id = next_hook_id++;
  e->fn = std::move(hook);
  post_hooks_.push_back(e);
  return e->id;
}

void Node::remove_hook(int64_t handle) {
  for (auto it = post_hooks_.begin(); it != post_hooks_.end(); ++it) {
    if ((*it)->id != handle) continue;
    (*it)->alive = false;
    post_hooks_.erase(it);
    return;
  }
}

std::vector<Tensor> Node::run_post_hooks(std::vector<Tensor> grad_inputs, const std::vector<Tensor>& grad_outputs) {
  // A copy: a hook may register or remove hooks of this node while it runs.
  const std::vector<std::shared_ptr<PostHookEntry>> hooks = post_hooks_;
  for (const auto& h : hooks) {
    if (!h->alive) continue;
    std::optional<std::vector<Tensor>> r = h->fn(grad_inputs, grad_outputs);
    if (!r) continue;
    EMBER_CHECK(r->size() == grad_inputs.size(), RuntimeError, "hook of ", name(),
                " has returned an incorrect number of values (got ", r->size(), ", but expected ",
                grad_inputs.size(), ")");
    grad_inputs = std::move(*r);
  }
  return grad_inputs;
}

AutogradMeta* meta_of(const Tensor& t) {
  return t.defined() ? static_cast<AutogradMeta*>(t.impl()->autograd_meta()) : nullptr;
}

AutogradMeta& materialize_meta(const Tensor& t) {
  if (AutogradMeta* m = meta_of(t)) return *m;
  t.impl()->set_autograd_meta(std::make_unique<AutogradMeta>());
  return *meta_of(t);
}

void set_history(const Tensor& t, std::shared_ptr<Node> fn, uint32_t output_nr) {
  AutogradMeta& m = materialize_meta(t);
  m.grad_fn = std::move(fn);
  m.output_nr = output_nr;
  m.requires_grad = false;
  if (t.impl()->view_base()) m.view_version = t.version();
  t.impl()->add_keys(DispatchKeySet(DispatchKey::Autograd));
}

// ---------------------------------------------------------------- tensor state
bool requires_grad(const Tensor& t) {
  const AutogradMeta* m = meta_of(t);
  return m && (m->requires_grad || m->grad_fn);
}

const Tensor& set_requires_grad(const Tensor& t, bool flag) {
  AutogradMeta* m = meta_of(t);
  if (m && m->grad_fn) {
    EMBER_CHECK(flag, RuntimeError,
                "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().");
    return t;
  }
  if (flag) {
    EMBER_CHECK(is_differentiable_dtype(t.dtype()), RuntimeError,
                "only Tensors of floating point and complex dtype can require gradients (got ", t.dtype(), ")");
    EMBER_CHECK(!t.is_inference() || InferenceMode::is_enabled(), RuntimeError,
                "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
    materialize_meta(t).requires_grad = true;
    // Inference tensors never take the Autograd key (as in PyTorch): ops on them alone record
    // nothing, even when they require grad.
    if (!t.is_inference()) t.impl()->add_keys(DispatchKeySet(DispatchKey::Autograd));
    // A leaf that requires grad roots its own history: views of it refer to it, not to the
    // tensor it may itself view.
    t.impl()->set_view_base(Ref<TensorImpl>());
  } else if (m) {
    m->requires_grad = false;
    t.impl()->remove_keys(DispatchKeySet(DispatchKey::Autograd));
  }
  return t;
}

bool is_leaf(const Tensor& t) {
  const AutogradMeta* m = meta_of(t);
  return !m || !m->grad_fn;
}

namespace variable_detail {
// A view with a history whose storage was written since that history was set gets it
// regenerated from its base's current history (as PyTorch does when grad_fn is read).
AutogradMeta* fresh_meta(const Tensor& t) {
  AutogradMeta* m = meta_of(t);
  if (m && m->grad_fn && t.impl()->view_base() && m->view_version != t.version()) regenerate_view_history(t);
  return m;
}
}  // namespace variable_detail

std::shared_ptr<Node> grad_fn(const Tensor& t) {
  const AutogradMeta* m = variable_detail::fresh_meta(t);
  return m ? m->grad_fn : nullptr;
}

uint32_t output_nr(const Tensor& t) {
  const AutogradMeta* m = meta_of(t);
  return m ? m->output_nr : 0;
}

Tensor grad(const Tensor& t) {
  AutogradMeta* m = meta_of(t);
  if (!m) return Tensor();
  if (m->grad_fn) return m->retained ? *m->retained : Tensor();
  std::lock_guard<std::mutex> lock(m->mutex);
  return m->grad;
}

void set_grad(const Tensor& t, const Tensor& g) {
  if (g.defined()) {
    EMBER_CHECK(g.sizes() == t.sizes(), RuntimeError, "assigned grad has data of a different size: ",
                g.sizes(), " vs the tensor's ", t.sizes());
    EMBER_CHECK(g.dtype() == t.dtype(), RuntimeError, "assigned grad has data of a different type: ",
                g.dtype(), " vs the tensor's ", t.dtype());
    EMBER_CHECK(g.device() == t.device(), RuntimeError, "assigned grad has data located on a different device");
  }
  AutogradMeta& m = materialize_meta(t);
  if (m.grad_fn) {
    if (!m.retained) m.retained = std::make_shared<Tensor>();
    *m.retained = g;
    return;
  }
  std::lock_guard<std::mutex> lock(m.mutex);
  m.grad = g;
}

void clear_grad(const Tensor& t, bool set_to_none) {
  Tensor g = grad(t);
  if (!g.defined()) return;
  if (set_to_none) {
    set_grad(t, Tensor());
    return;
  }
  // As PyTorch: the gradient leaves any graph it was part of, then is zeroed in place.
  if (grad_fn(g))
    detach_(g);
  else
    set_requires_grad(g, false);
  g.zero_();
}

void retain_grad(const Tensor& t) {
  EMBER_CHECK(requires_grad(t), RuntimeError, "can't retain_grad on Tensor that has requires_grad=False");
  AutogradMeta& m = materialize_meta(t);
  if (!m.grad_fn || m.retained) return;  // leaves keep their grad anyway
  m.retained = std::make_shared<Tensor>();
  std::weak_ptr<Tensor> slot = m.retained;
  m.grad_fn->add_input_hook(m.output_nr, [slot](const Tensor& g) {
    if (auto s = slot.lock()) {
      NoGradGuard no_grad;
      *s = s->defined() ? add(*s, g) : clone(g);
    }
    return Tensor();
  });
}

bool retains_grad(const Tensor& t) {
  const AutogradMeta* m = meta_of(t);
  return m && m->grad_fn && m->retained;
}

Tensor detach(const Tensor& t) {
  Tensor r;
  {
    NoGradGuard no_grad;
    r = t.alias();
  }
  // Outside every graph, and a plain tensor even when t is an uninitialized (lazy) parameter:
  // its .data, as PyTorch's, may be used in ops.
  r.impl()->remove_keys(DispatchKeySet(DispatchKey::Autograd).add(DispatchKey::Uninitialized));
  r.impl()->set_autograd_meta(nullptr);
  r.impl()->set_view_base(Ref<TensorImpl>());  // not a view as far as autograd is concerned
  return r;
}

void detach_(const Tensor& t) {
  if (AutogradMeta* m = meta_of(t)) {
    m->grad_fn = nullptr;
    m->output_nr = 0;
    m->requires_grad = false;
  }
  t.impl()->remove_keys(DispatchKeySet(DispatchKey::Autograd));
}

int64_t register_hook(const Tensor& t, GradHook hook) {
  EMBER_CHECK(requires_grad(t), RuntimeError, "cannot register a hook on a tensor that doesn't require gradient");
  AutogradMeta& m = materialize_meta(t);
  const int64_t id = next_hook_id++;
  auto alive = std::make_shared<bool>(true);
  m.hook_alive[id] = alive;
  GradHook wrapped = [alive, h = std::move(hook)](const Tensor& g) { return *alive ? h(g) : Tensor(); };
  if (m.grad_fn) m.grad_fn->add_input_hook(m.output_nr, std::move(wrapped));
  else m.leaf_hooks.push_back(std::move(wrapped));
  return id;
}

void remove_hook(const Tensor& t, int64_t handle) {
  AutogradMeta* m = meta_of(t);
  if (!m) return;
  auto it = m->hook_alive.find(handle);
  if (it == m->hook_alive.end()) return;
  *it->second = false;
  m->hook_alive.erase(it);
}

Edge gradient_edge(const Tensor& t) {
  AutogradMeta* m = variable_detail::fresh_meta(t);
  if (!m) return {};
  if (m->grad_fn) return {m->grad_fn, m->output_nr};
  if (!m->requires_grad || m->inference_view) return {};
  std::lock_guard<std::mutex> lock(m->mutex);
  std::shared_ptr<Node> acc = m->grad_accumulator.lock();
  if (!acc) {
    acc = std::make_shared<AccumulateGrad>(t);
    m->grad_accumulator = acc;
  }
  return {acc, 0};
}

// ---------------------------------------------------------------- AccumulateGrad
AccumulateGrad::AccumulateGrad(Tensor leaf) : leaf_(std::move(leaf)) {}

namespace variable_detail {
thread_local PendingGrads* tls_pending = nullptr;
}  // namespace variable_detail

PendingGrads* swap_pending_grads(PendingGrads* pending) {
  return std::exchange(variable_detail::tls_pending, pending);
}

std::vector<Tensor> AccumulateGrad::apply(std::vector<Tensor> grads) {
  Tensor g = std::move(grads[0]);
  if (!g.defined()) return {};
  for (const GradHook& h : materialize_meta(leaf_).leaf_hooks) {
    Tensor r = h(g);
    if (r.defined()) g = std::move(r);
  }
  if (PendingGrads* p = variable_detail::tls_pending)
    p->emplace_back(std::static_pointer_cast<AccumulateGrad>(shared_from_this()), std::move(g));
  else
    accumulate(std::move(g));
  return {};
}

void AccumulateGrad::accumulate(Tensor g) {
  if (!g.defined()) return;
  AutogradMeta& m = materialize_meta(leaf_);
  std::lock_guard<std::mutex> lock(m.mutex);
  if (GradMode::is_enabled()) {  // create_graph: keep the gradient's own graph
    m.grad = m.grad.defined() ? add(m.grad, g) : g;
  } else if (!m.grad.defined()) {
    // The engine's buffer is the only owner of a fresh gradient; anything else is copied so
    // that .grad never aliases a tensor the caller holds.
    // An expanded gradient (sum's) is copied too: later accumulation writes into it in place.
    m.grad = g.use_count() == 1 && !requires_grad(g) && g.is_contiguous() ? g : clone(detach(g));
  } else if (requires_grad(m.grad)) {
    m.grad = add(m.grad, g);
  } else {
    m.grad.add_(g);
  }
}

// ---------------------------------------------------------------- saved tensors
SavedTensor::SavedTensor(const Tensor& t, bool is_output, const std::shared_ptr<Node>&)
    : was_defined_(t.defined()), is_output_(is_output) {
  if (!t.defined()) return;
  version_ = t.version();
  requires_grad_ = requires_grad(t);
  output_nr_ = output_nr(t);
  data_ = is_output ? detach(t) : t;
}

Tensor SavedTensor::unpack(const std::shared_ptr<Node>& owner, bool history) const {
  if (!was_defined_) return Tensor();
  EMBER_CHECK(data_.defined(), RuntimeError,
              "Trying to backward through the graph a second time (or directly access saved tensors after "
              "they have already been freed). Saved intermediate values of the graph are freed when you call "
              ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
              "graph a second time or if you need to access saved tensors after calling backward.");
  EMBER_CHECK(data_.version() == version_, RuntimeError,
              "one of the variables needed for gradient computation has been modified by an inplace "
              "operation: [", data_.dtype(), " ", data_.sizes(), "], which is ",
              is_output_ ? "output " : "an input ", is_output_ ? std::to_string(output_nr_) + " of " : "of ",
              owner ? owner->name() : std::string("a backward function"), ", is at version ", data_.version(),
              "; expected version ", version_, " instead.");
  if (!is_output_ || !requires_grad_ || !owner || !history) return data_;
  // An output gets its grad_fn back, so that a formula that uses it differentiates again.
  Tensor t = detach(data_);
  set_history(t, owner, output_nr_);
  forward_ad::detail::copy_tangent(data_, t);  // forward-over-reverse reads the output's tangent
  return t;
}

void check_savable(const Tensor& t) {
  EMBER_CHECK(!t.is_inference(), RuntimeError,
              "Inference tensors cannot be saved for backward. To work around you can make a clone to get a normal "
              "tensor and use it in autograd.");
}

}  // namespace ember::autograd

namespace ember {
Tensor Tensor::detach() const { return autograd::detach(*this); }
}  // namespace ember
