// The Autograd layer: one boxed kernel that serves every op (registered as the Autograd
// key's fallback). It runs the op below the layer and records an OpBackward node holding the
// op's registered derivative formula and what that formula saves. Views, made outside the
// dispatcher, record a ViewBackward node instead (record_view).
#include <algorithm>
#include <cctype>
#include <complex>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "autograd/forward_ad_impl.h"
#include "autograd/meta.h"
#include "autograd/view.h"
#include "ember/dispatch.h"
#include "ember/error.h"
#include "ember/func.h"
#include "ember/ops.h"

namespace ember::autograd {

// ---------------------------------------------------------------- registry
namespace {
std::mutex& registry_mutex() {
  static std::mutex mu;
  return mu;
}
std::unordered_map<std::string, Derivative>& registry() {
  static auto* m = new std::unordered_map<std::string, Derivative>();
  return *m;
}
}  // namespace

void register_derivative(const std::string& op, Derivative d) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  registry()[op] = std::move(d);
}

namespace {
const Derivative* find_derivative(const std::string& op) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto it = registry().find(op);
  return it == registry().end() ? nullptr : &it->second;
}
// "mul_.Tensor" -> "mul.Tensor": an in-place op differentiates like its functional form.
std::string functional_name(const std::string& op) {
  const size_t dot = op.find('.');
  std::string base = op.substr(0, dot);
  if (!base.empty() && base.back() == '_') base.pop_back();
  return dot == std::string::npos ? base : base + op.substr(dot);
}
// The derivative of an op (or of its functional form, for in-place ops), looked up once per
// op and thread: registry entries never move, and a found one is never replaced.
const Derivative* derivative_of(const OpEntry& op, bool in_place) {
  thread_local std::unordered_map<const OpEntry*, const Derivative*> cache;
  if (auto it = cache.find(&op); it != cache.end()) return it->second;
  const Derivative* d = find_derivative(op.name());
  if (!d && in_place) d = find_derivative(functional_name(op.name()));
  if (d) cache.emplace(&op, d);
  return d;
}
// "max_pool2d.out" -> "MaxPool2DBackward0"
std::string node_name(const std::string& op) {
  std::string base = functional_name(op);
  base = base.substr(0, base.find('.'));
  std::string r;
  bool up = true;
  for (char c : base) {
    if (c == '_') { up = true; continue; }
    r += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    up = false;
  }
  return r + "Backward0";
}
}  // namespace

namespace {
// Whether any overload of the op named `base` ("sum") has a derivative.
bool has_any_derivative(const std::string& base) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  for (const auto& [name, d] : registry())
    if (name == base || name.compare(0, base.size() + 1, base + ".") == 0) return true;
  return false;
}
}  // namespace

const Derivative* derivative_for(const OpEntry& op, bool in_place) { return derivative_of(op, in_place); }

bool has_derivative(const std::string& op) {
  return find_derivative(op) != nullptr || find_derivative(functional_name(op)) != nullptr;
}

Tensor sum_to(const Tensor& g, IntArrayRef sizes) {
  if (g.sizes() == sizes) return g;
  const int64_t lead = g.dim() - static_cast<int64_t>(sizes.size());
  EMBER_CHECK(lead >= 0, RuntimeError, "sum_to: gradient of shape ", g.sizes(), " cannot be summed to ", sizes);
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (size_t i = 0; i < sizes.size(); ++i) {
    const int64_t gs = g.sizes()[lead + static_cast<int64_t>(i)];
    if (sizes[i] == 1 && gs != 1) dims.push_back(lead + static_cast<int64_t>(i));
    else EMBER_CHECK(sizes[i] == gs, RuntimeError, "sum_to: gradient of shape ", g.sizes(),
                     " does not broadcast from ", sizes);
  }
  Tensor r = dims.empty() ? g : sum(g, dims, /*keepdim=*/true);
  return lead > 0 || r.sizes() != sizes ? r.reshape(sizes) : r;
}

// ---------------------------------------------------------------- the op's node
struct InputMeta {
  DimVector sizes;
  ScalarType dtype;
};

class SavedOp {
 public:
  const OpEntry* op = nullptr;
  std::vector<IValue> args;           // non-tensor arguments as passed (tensors: None)
  std::vector<SavedTensor> saved;     // per argument: the saved tensors
  std::vector<Tensor> unpacked;       // per argument, during apply
  std::vector<std::vector<SavedTensor>> saved_lists;  // per argument: a saved Tensor[] (Tensor?[])
  std::vector<std::vector<Tensor>> unpacked_lists;
  SmallVector<int, 6> first_slot;     // per argument: its first slot, or -1
  std::vector<InputMeta> inputs;      // per slot
  SmallVector<bool, 6> needs;         // per slot
  std::vector<SavedTensor> results;   // when the formula saves them
  std::vector<Tensor> unpacked_results;
  std::vector<InputMeta> outputs;     // per result
};

const std::vector<Tensor>& BackwardContext::tensor_list(size_t arg) const {
  EMBER_INTERNAL_ASSERT(arg < op.unpacked_lists.size(), "derivative of ", op.op->name(), " reads argument ", arg,
                        ", which it does not save");
  return op.unpacked_lists[arg];
}
const Tensor& BackwardContext::tensor(size_t arg) const {
  EMBER_INTERNAL_ASSERT(arg < op.unpacked.size() && op.saved[arg].defined(), "derivative of ", op.op->name(),
                        " reads argument ", arg, ", which it does not save");
  return op.unpacked[arg];
}
Scalar BackwardContext::scalar(size_t arg) const {
  const IValue& v = op.args[arg];
  if (v.holds<Scalar>()) return std::get<Scalar>(v.value());
  if (v.holds<double>()) return Scalar(std::get<double>(v.value()));
  if (v.holds<int64_t>()) return Scalar(std::get<int64_t>(v.value()));
  if (v.holds<bool>()) return Scalar(std::get<bool>(v.value()));
  EMBER_FAIL(RuntimeError, "derivative of ", op.op->name(), ": argument ", arg, " is not a number");
}
int64_t BackwardContext::int_arg(size_t arg) const { return std::get<int64_t>(op.args[arg].value()); }
bool BackwardContext::bool_arg(size_t arg) const { return std::get<bool>(op.args[arg].value()); }
std::vector<int64_t> BackwardContext::int_list(size_t arg) const {
  const IValue& v = op.args[arg];
  if (v.holds<int64_t>()) return {std::get<int64_t>(v.value())};
  return std::get<std::vector<int64_t>>(v.value());
}
bool BackwardContext::is_none(size_t arg) const { return op.args[arg].is_none() && op.first_slot[arg] < 0; }
std::optional<std::string> BackwardContext::string_arg(size_t arg) const {
  if (op.args[arg].is_none()) return std::nullopt;
  return std::get<std::string>(op.args[arg].value());
}
std::optional<ScalarType> BackwardContext::dtype_arg(size_t arg) const {
  if (op.args[arg].is_none()) return std::nullopt;
  return std::get<ScalarType>(op.args[arg].value());
}
const Tensor& BackwardContext::result(size_t i) const {
  EMBER_INTERNAL_ASSERT(i < op.unpacked_results.size(), "derivative of ", op.op->name(), " reads a result it does not save");
  return op.unpacked_results[i];
}
bool BackwardContext::needs_grad(size_t slot) const { return slot < op.needs.size() && op.needs[slot]; }
IntArrayRef BackwardContext::input_sizes(size_t slot) const { return op.inputs[slot].sizes; }
ScalarType BackwardContext::input_dtype(size_t slot) const { return op.inputs[slot].dtype; }
size_t BackwardContext::num_slots() const { return op.inputs.size(); }

namespace {

// A gradient made to fit its input: summed over broadcast dims, real part for a real input,
// the input's dtype.
Tensor fit_grad(const Tensor& g, const InputMeta& in, const std::string& op) {
  Tensor r = g;
  if (r.sizes() != IntArrayRef(in.sizes)) r = sum_to(r, in.sizes);
  if (r.is_complex() && !is_complex(in.dtype)) r = r.real();
  if (r.dtype() != in.dtype) r = r.to(in.dtype);
  EMBER_INTERNAL_ASSERT(r.sizes() == IntArrayRef(in.sizes), "derivative of ", op, " returned shape ", g.sizes(),
                        " for an input of shape ", in.sizes);
  return r;
}

class OpBackward : public Node {
 public:
  OpBackward(SavedOp&& s, const Derivative* d) : s_(std::move(s)), d_(d) {}
  std::string name() const override { return node_name(s_.op->name()); }  // built only when asked for

  std::vector<Tensor> apply(std::vector<Tensor> grads) override {
    EMBER_CHECK(d_, NotImplementedError, "the derivative for '", s_.op->name(), "' is not implemented.");
    for (size_t i = 0; i < grads.size(); ++i)
      if (!grads[i].defined() && i < s_.outputs.size() && s_.outputs[i].dtype != ScalarType::Undefined)
        grads[i] = zeros(s_.outputs[i].sizes, s_.outputs[i].dtype);
    auto self = shared_from_this();
    s_.unpacked.assign(s_.saved.size(), Tensor());
    for (size_t a = 0; a < s_.saved.size(); ++a) s_.unpacked[a] = s_.saved[a].unpack(self);
    s_.unpacked_lists.assign(s_.saved_lists.size(), {});
    for (size_t a = 0; a < s_.saved_lists.size(); ++a)
      for (const SavedTensor& t : s_.saved_lists[a]) s_.unpacked_lists[a].push_back(t.unpack(self));
    s_.unpacked_results.clear();
    const bool history = GradMode::is_enabled() || forward_ad::is_active();
    for (const SavedTensor& r : s_.results) s_.unpacked_results.push_back(r.unpack(self, history));
    std::vector<Tensor> out = d_->formula(BackwardContext{s_}, grads);
    s_.unpacked.clear();
    s_.unpacked_lists.clear();
    s_.unpacked_results.clear();
    out.resize(s_.inputs.size());
    for (size_t k = 0; k < out.size(); ++k) {
      if (!s_.needs[k]) out[k] = Tensor();
      else if (out[k].defined()) out[k] = fit_grad(out[k], s_.inputs[k], s_.op->name());
    }
    return out;
  }
  int first_slot(size_t arg) const { return arg < s_.first_slot.size() ? s_.first_slot[arg] : -1; }
  void save_results(ArrayRef<Tensor> results) {
    s_.results.reserve(results.size());
    for (const Tensor& r : results) s_.results.emplace_back(r, true, nullptr);
  }
  // Forward AD set the results' tangents after they were saved: the saved aliases get them
  // too, so that the formula's ops compute tangents (forward-over-reverse).
  void attach_result_tangents(ArrayRef<Tensor> results) {
    for (size_t i = 0; i < s_.results.size() && i < results.size(); ++i)
      if (s_.results[i].data().defined()) forward_ad::detail::copy_tangent(results[i], s_.results[i].data());
  }
  void release_saved() override {
    for (SavedTensor& t : s_.saved)
      if (t.defined()) t.release();
    for (SavedTensor& t : s_.results) t.release();
    for (auto& l : s_.saved_lists)
      for (SavedTensor& t : l)
        if (t.defined()) t.release();
  }

 private:
  SavedOp s_;
  const Derivative* d_;
};

template <typename F>
void for_each_tensor(Stack& stack, size_t n, F&& f) {
  for (size_t i = 0; i < n && i < stack.size(); ++i) {
    if (stack[i].is_tensor()) f(i, stack[i].tensor());
    else if (stack[i].is_tensor_list())
      for (const Tensor& t : stack[i].tensor_list()) f(i, t);
  }
}

// An in-place op wrote the view `w`: moves the op's node (fn, whose input `slot` is w's old
// value) onto w's base, and makes w a view of the base's new value (defined with the views).
void rebase_view_history(const Tensor& w, const std::shared_ptr<Node>& fn, size_t slot);

// An inference tensor may not be saved for the gradient of another input. (Ember's formulas
// save the same inputs whichever gradients are wanted; PyTorch saves an input only for the
// gradients that use it, and an inference tensor never gets a gradient of its own this way:
// it lacks the Autograd key, so ops on inference tensors alone record nothing.)
void check_inference_save(const SavedOp& s, int slot, const Tensor& t) {
  if (!t.defined() || !t.is_inference()) return;
  for (size_t k = 0; k < s.needs.size(); ++k)
    if (s.needs[k] && static_cast<int>(k) != slot) check_savable(t);
}

// A fresh result that takes no part in autograd drops the key it may have copied.
void strip_key(const Tensor& t) {
  if (t.defined() && !requires_grad(t) && !forward_ad::detail::get_tangent(t).defined()) t.impl()->remove_keys(DispatchKeySet(DispatchKey::Autograd));
}

void record_op(const OpEntry& op, DispatchKeySet ks, Stack& stack) {
  const auto& args = op.schema().arguments;
  const size_t nargs = std::min(args.size(), stack.size());
  bool any_requires = false;
  for_each_tensor(stack, nargs, [&](size_t, const Tensor& t) { any_requires = any_requires || requires_grad(t); });
  SmallVector<size_t, 4> written;  // (inline: recording an op is a few allocations in all)
  for (size_t i = 0; i < nargs; ++i)
    if (args[i].is_write) written.push_back(i);
  const bool record = any_requires && GradMode::is_enabled();

  auto run_below = [&] {
    ExcludeKeyGuard guard(DispatchKey::Autograd);
    op.call_boxed(ks.remove(DispatchKey::Autograd), stack);
  };
  if (!record) {
    run_below();
    if (written.empty()) for_each_tensor(stack, stack.size(), [](size_t, const Tensor& t) { strip_key(t); });
    return;
  }

  const bool is_out = std::any_of(written.begin(), written.end(), [&](size_t w) { return args[w].kwarg_only; });
  // An out= form with a derivative of its own is differentiated like an in-place op (PyTorch's
  // composite out= forms, such as norm and quantile, are differentiable).
  if (is_out && !find_derivative(op.name())) {
    // out= forms of differentiable ops refuse inputs that require grad (as PyTorch's do); those
    // of ops without a derivative (all, argmax, ...) or into outputs that cannot carry
    // gradients just run.
    bool differentiable_out = false;
    for (size_t w : written)
      differentiable_out = differentiable_out || is_differentiable_dtype(stack[w].tensor().dtype());
    EMBER_CHECK(!(differentiable_out && has_any_derivative(op.schema().name)), RuntimeError, op.schema().name,
                "(): functions with out=... arguments don't support automatic differentiation, but one of the "
                "arguments requires grad.");
    run_below();
    return;
  }
  for (size_t w : written) {
    const Tensor& t = stack[w].tensor();
    EMBER_CHECK(!(meta_of(t) && meta_of(t)->inference_view), RuntimeError,
                "A view was created in inference mode and is being modified inplace in normal mode. Given that this "
                "use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the "
                "view and the inplace either both inside the inference_mode block (if you don't want the inplace to "
                "be tracked) or both outside (if you want the inplace to be tracked).");
    EMBER_CHECK(!(is_leaf(t) && requires_grad(t)), RuntimeError,
                "a leaf Variable that requires grad is being used in an in-place operation.");
    if (TensorImpl* base = t.impl()->view_base()) {
      const Tensor b{Ref<TensorImpl>(base)};
      EMBER_CHECK(!(is_leaf(b) && requires_grad(b)), RuntimeError,
                  "a view of a leaf Variable that requires grad is being used in an in-place operation.");
    }
  }
  const Derivative* d = derivative_of(op, !written.empty());
  if (d && !d->formula) {  // registered without a formula: the results are not differentiable
    run_below();
    if (written.empty()) for_each_tensor(stack, stack.size(), [](size_t, const Tensor& t) { strip_key(t); });
    return;
  }

  SavedOp s;
  s.op = &op;
  s.args.resize(nargs);
  s.saved.resize(nargs);
  s.first_slot.resize(nargs, -1);
  s.inputs.reserve(nargs);  // one slot per tensor argument, mostly
  std::vector<Edge> edges;
  edges.reserve(nargs);
  for (size_t i = 0; i < nargs; ++i) {
    if (!stack[i].is_tensor() && !stack[i].is_tensor_list()) {
      s.args[i] = stack[i];
      continue;
    }
    s.first_slot[i] = static_cast<int>(s.inputs.size());
    auto add_slot = [&](const Tensor& t) {
      s.inputs.push_back({t.defined() ? DimVector(t.sizes()) : DimVector(), t.defined() ? t.dtype() : kFloat});
      Edge e = t.defined() && requires_grad(t) ? gradient_edge(t) : Edge{};
      s.needs.push_back(e.valid());
      edges.push_back(std::move(e));
    };
    if (stack[i].is_tensor()) add_slot(stack[i].tensor());
    else for (const Tensor& t : stack[i].tensor_list()) add_slot(t);
  }
  if (d) {
    for (size_t a : d->saves) {
      if (a < nargs && stack[a].is_tensor_list()) {  // None entries of a Tensor?[] stay undefined
        s.saved_lists.resize(nargs);
        int slot = s.first_slot[a];
        for (const Tensor& t : stack[a].tensor_list()) {
          check_inference_save(s, slot++, t);
          s.saved_lists[a].emplace_back(t, false, nullptr);
        }
        continue;
      }
      if (a >= nargs || !stack[a].is_tensor()) continue;
      const Tensor& t = stack[a].tensor();
      check_inference_save(s, s.first_slot[a], t);
      const bool overwritten = std::find(written.begin(), written.end(), a) != written.end();
      // The copy of an overwritten argument keeps its history (a CloneBackward), so that the
      // formulas that read it differentiate again through it.
      s.saved[a] = SavedTensor(overwritten ? clone(t) : t, false, nullptr);
    }
  }

  run_below();

  SmallVector<Tensor, 2> results;  // inline: one heap block fewer per recorded op
  if (written.empty()) {
    for (IValue& v : stack)
      if (v.is_tensor()) results.push_back(v.tensor());
  } else {
    for (size_t w : written) results.push_back(stack[w].tensor());
  }
  bool any_differentiable = false;
  for (const Tensor& r : results) any_differentiable = any_differentiable || (r.defined() && is_differentiable_dtype(r.dtype()));
  if (!any_differentiable) {
    if (written.empty())
      for (const Tensor& r : results)
        if (r.defined()) strip_key(r);
    return;
  }
  // An op may leave results undefined (gradients it was not asked for): they get no history.
  for (const Tensor& r : results)
    s.outputs.push_back(r.defined() ? decltype(s.outputs)::value_type{DimVector(r.sizes()), r.dtype()}
                                    : decltype(s.outputs)::value_type{DimVector(), ScalarType::Undefined});
  auto node = std::make_shared<OpBackward>(std::move(s), d);
  node->set_next_edges(std::move(edges));
  node->set_num_inputs(static_cast<uint32_t>(results.size()));
  for (size_t i = 0; i < results.size(); ++i) {
    const Tensor& r = results[i];
    if (r.defined() && is_differentiable_dtype(r.dtype())) set_history(r, node, static_cast<uint32_t>(i));
    else if (written.empty() && r.defined()) strip_key(r);
  }
  if (d && d->saves_result) node->save_results(results);
  if (written.size() == 1 && stack[written[0]].tensor().impl()->view_base() && node->first_slot(written[0]) >= 0)
    rebase_view_history(stack[written[0]].tensor(), node, static_cast<size_t>(node->first_slot(written[0])));
}

// Whether the op's formula saved its results (which then need the results' tangents).
bool d_saves_results(const OpEntry& op, const forward_ad::detail::PendingJvp& p) {
  const Derivative* d = derivative_of(op, !p.written.empty());
  return d && d->saves_result && p.written.empty();
}

// Every op at the Autograd key: recorded for reverse mode, and, when a dual level is live and
// an input has a tangent, given the tangents of its results (forward_ad.cpp). Without a live
// level the forward part costs one relaxed load.
void autograd_fallback(const OpEntry& op, DispatchKeySet ks, Stack& stack) {
  if (forward_ad::is_active()) [[unlikely]] {
    forward_ad::detail::PendingJvp p;
    if (forward_ad::detail::prepare(op, stack, p)) {
      record_op(op, ks, stack);
      forward_ad::detail::finish(op, stack, p);
      if (d_saves_results(op, p)) {
        for (IValue& v : stack) {
          if (!v.is_tensor()) continue;
          if (auto* n = dynamic_cast<OpBackward*>(grad_fn(v.tensor()).get())) {
            std::vector<Tensor> results;
            for (IValue& w : stack)
              if (w.is_tensor()) results.push_back(w.tensor());
            n->attach_result_tangents(results);
            break;
          }
        }
      }
      return;
    }
  }
  record_op(op, ks, stack);
}

}  // namespace

// ---------------------------------------------------------------- views
namespace {

int64_t min_offset(IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] > 0 && strides[i] < 0) offset += (sizes[i] - 1) * strides[i];
  return offset;
}
int64_t max_offset(IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] > 0 && strides[i] > 0) offset += (sizes[i] - 1) * strides[i];
  return offset;
}

// Whether several elements of a strided geometry may share a storage location (unfold,
// expand): then each dim's stride must step past everything the smaller strides reach.
bool may_overlap(IntArrayRef sizes, IntArrayRef strides) {
  std::vector<std::pair<int64_t, int64_t>> dims;  // (|stride|, size) of dims with size > 1
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] > 1) dims.emplace_back(std::abs(strides[i]), sizes[i]);
  std::sort(dims.begin(), dims.end());
  int64_t reach = 0;
  for (auto [st, n] : dims) {
    if (st <= reach) return true;
    reach += (n - 1) * st;
  }
  return false;
}

// Where a view lies in its base's storage, in elements.
struct ViewGeometry {
  ViewGeometry(const Tensor& base, const Tensor& view)
      : base_sizes(base.sizes()), base_strides(base.strides()), base_offset(base.storage_offset()),
        sizes(view.sizes()), strides(view.strides()), offset(view.storage_offset()), dtype(base.dtype()) {}
  // The storage range [lo, hi] that the base and the view (with sizes vs) cover.
  std::pair<int64_t, int64_t> span(IntArrayRef vs) const {
    return {std::min(min_offset(base_sizes, base_strides, base_offset), min_offset(vs, strides, offset)),
            std::max(max_offset(base_sizes, base_strides, base_offset), max_offset(vs, strides, offset))};
  }
  DimVector base_sizes, base_strides;
  int64_t base_offset;
  DimVector sizes, strides;
  int64_t offset;
  ScalarType dtype;
};

// Storage positions [0, hi - lo] of the elements of a geometry, flat: where the elements of a
// gradient go in (index_add, index_copy) and come out of (index_select) a buffer laid out
// like the storage. Written with ops, a backward built on them differentiates again.
Tensor storage_positions(int64_t lo, int64_t hi, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  return arange(hi - lo + 1, kInt64).as_strided(sizes, strides, offset - lo).reshape({-1});
}

// The gradient of a strided view with respect to its base: the view's gradient written
// into zeros laid out like the base's storage (stride-0 dims of the view summed first).
// Overlapping geometries, and gradients that must differentiate again (create_graph), go
// through storage positions instead: the view's elements that share a location add up
// there, and base elements that share one split its gradient evenly (as PyTorch's
// as_strided backward does), so that the base's own backward sums it back.
class ViewBackward : public Node {
 public:
  // as_strided: a view's history regenerated after its storage was written in place.
  ViewBackward(const Tensor& base, const Tensor& view, bool as_strided = false)
      : geo_(base, view), as_strided_(as_strided) {}
  std::string name() const override { return as_strided_ ? "AsStridedBackward0" : "ViewBackward0"; }

  std::vector<Tensor> apply(std::vector<Tensor> grads) override {
    Tensor g = grads[0];
    if (const size_t lead = shared_broadcast_dims(); lead > 0) return {per_index_grad(g, lead)};
    const ViewGeometry& v = geo_;
    const bool reshape_only = compute_numel(v.base_sizes) == compute_numel(v.sizes) &&
                              IntArrayRef(v.base_strides) == IntArrayRef(contiguous_strides(v.base_sizes)) &&
                              IntArrayRef(v.strides) == IntArrayRef(contiguous_strides(v.sizes)) &&
                              v.offset == v.base_offset;
    if (reshape_only) return {g.reshape(geo_.base_sizes)};
    if (auto order = permutation_of_base(geo_)) return {g.permute(*order)};
    DimVector vs(geo_.sizes);
    for (size_t i = 0; i < vs.size(); ++i) {
      if (geo_.strides[i] == 0 && vs[i] > 1) {
        g = sum(g, {static_cast<int64_t>(i)}, /*keepdim=*/true);
        vs[i] = 1;
      }
    }
    const auto [lo, hi] = geo_.span(vs);
    const bool base_overlaps = may_overlap(geo_.base_sizes, geo_.base_strides);
    // A gradient batched by vmap cannot be copied into unbatched zeros: it takes the functional path.
    if (base_overlaps || may_overlap(vs, geo_.strides) || (GradMode::is_enabled() && requires_grad(g)) ||
        func::is_batched(g)) {
      const Tensor vpos = storage_positions(lo, hi, vs, geo_.strides, geo_.offset);
      const Tensor bpos = storage_positions(lo, hi, geo_.base_sizes, geo_.base_strides, geo_.base_offset);
      const Tensor at = index_select(index_add(zeros({hi - lo + 1}, geo_.dtype), 0, vpos, g.reshape({-1})), 0, bpos);
      if (!base_overlaps) return {at.reshape(geo_.base_sizes)};
      const Tensor count = index_add(zeros({hi - lo + 1}, geo_.dtype), 0, bpos, ones({bpos.numel()}, geo_.dtype));
      return {div(at, index_select(count, 0, bpos)).reshape(geo_.base_sizes)};
    }
    Tensor buf = zeros({hi - lo + 1}, geo_.dtype);
    Tensor dst = buf.as_strided(vs, geo_.strides, geo_.offset - lo);
    dst.copy_(g);
    return {buf.as_strided(geo_.base_sizes, geo_.base_strides, geo_.base_offset - lo)};
  }

 private:
  // When the view only reorders the base's dims (t(), transpose, permute), the order of the
  // view's dims that gives back the base: its gradient is then g permuted, a view, not a copy.
  static std::optional<DimVector> permutation_of_base(const ViewGeometry& v) {
    const size_t n = v.sizes.size();
    if (n != v.base_sizes.size() || n < 2 || v.offset != v.base_offset ||
        may_overlap(v.base_sizes, v.base_strides))
      return std::nullopt;
    DimVector order(n, -1);  // order[base dim] = view dim
    for (size_t i = 0; i < n; ++i) {
      size_t j = 0;
      // A size-1 dim's stride is arbitrary: match it by size alone.
      while (j < n && (order[j] >= 0 || v.base_sizes[j] != v.sizes[i] ||
                       (v.sizes[i] > 1 && v.base_strides[j] != v.strides[i])))
        ++j;
      if (j == n) return std::nullopt;
      order[j] = static_cast<int64_t>(i);
    }
    return order;
  }

  // Leading dims that the base and the view both broadcast (stride 0, same size) while the
  // base overlaps: a per-sample input that grad lifted out of vmap without copying it
  // (src/functional/transforms.cpp), whose views keep the sample dims in front. Each index
  // of those dims is its own element, so the gradient maps index by index.
  size_t shared_broadcast_dims() const {
    const ViewGeometry& v = geo_;
    size_t n = 0;
    while (n < v.sizes.size() && n < v.base_sizes.size() && v.sizes[n] == v.base_sizes[n] && v.sizes[n] > 1 &&
           v.strides[n] == 0 && v.base_strides[n] == 0)
      ++n;
    return n > 0 && may_overlap(v.base_sizes, v.base_strides) ? n : 0;
  }

  // The gradient of the base when its `lead` leading dims are shared with the view: the
  // gradient of the remaining geometry, for each index of the leading dims.
  Tensor per_index_grad(Tensor g, size_t lead) const {
    const ViewGeometry& v = geo_;
    ViewGeometry sub = v;
    for (size_t i = 0; i < lead; ++i)
      for (DimVector* d : {&sub.sizes, &sub.strides, &sub.base_sizes, &sub.base_strides}) d->erase(0);
    const DimVector& out_sizes = v.base_sizes;
    if (sub.sizes == sub.base_sizes && sub.strides == sub.base_strides && sub.offset == sub.base_offset)
      return g;  // the same geometry: an alias
    if (auto order = permutation_of_base(sub)) {
      DimVector perm;
      for (size_t i = 0; i < lead; ++i) perm.push_back(static_cast<int64_t>(i));
      for (int64_t o : *order) perm.push_back(o + static_cast<int64_t>(lead));
      return g.permute(perm);
    }
    // Else through storage positions, one row per index of the leading dims.
    int64_t rows = 1;
    for (size_t i = 0; i < lead; ++i) rows *= v.sizes[i];
    const auto [lo, hi] = sub.span(sub.sizes);
    const Tensor vpos = storage_positions(lo, hi, sub.sizes, sub.strides, sub.offset);
    const Tensor bpos = storage_positions(lo, hi, sub.base_sizes, sub.base_strides, sub.base_offset);
    Tensor at = index_add(zeros({rows, hi - lo + 1}, v.dtype), 1, vpos, g.reshape({rows, -1}));
    at = index_select(at, 1, bpos);
    if (may_overlap(sub.base_sizes, sub.base_strides)) {
      const Tensor count = index_add(zeros({hi - lo + 1}, v.dtype), 0, bpos, ones({bpos.numel()}, v.dtype));
      at = div(at, index_select(count, 0, bpos));
    }
    return at.reshape(out_sizes);
  }

  ViewGeometry geo_;
  bool as_strided_;
};

// Views between complex and real numbers: real, imag, view_as_real, view_as_complex.
enum class ComplexView { Real, Imag, AsReal, AsComplex, Other };

ComplexView classify(const Tensor& base, const Tensor& view) {
  const bool to_real = base.is_complex() && !view.is_complex() && view.element_size() * 2 == base.element_size();
  const bool to_complex = !base.is_complex() && view.is_complex() && base.element_size() * 2 == view.element_size();
  DimVector twice;
  for (int64_t s : base.strides()) twice.push_back(2 * s);
  if (to_real && view.sizes() == base.sizes() && view.strides() == IntArrayRef(twice)) {
    if (view.storage_offset() == 2 * base.storage_offset()) return ComplexView::Real;
    if (view.storage_offset() == 2 * base.storage_offset() + 1) return ComplexView::Imag;
  }
  if (to_real && view.dim() == base.dim() + 1 && view.sizes().back() == 2 && view.strides().back() == 1)
    return ComplexView::AsReal;
  if (to_complex && base.dim() == view.dim() + 1 && base.sizes().back() == 2) return ComplexView::AsComplex;
  return ComplexView::Other;
}

class ComplexViewBackward : public Node {
 public:
  ComplexViewBackward(ComplexView kind, ScalarType base_dtype) : kind_(kind), base_dtype_(base_dtype) {}
  std::string name() const override {
    switch (kind_) {
      case ComplexView::Real: return "RealBackward0";
      case ComplexView::Imag: return "ImagBackward0";
      case ComplexView::AsReal: return "ViewAsRealBackward0";
      case ComplexView::AsComplex: return "ViewAsComplexBackward0";
      default: return "ViewAsTypeBackward0";
    }
  }
  std::vector<Tensor> apply(std::vector<Tensor> grads) override {
    const Tensor& g = grads[0];
    switch (kind_) {
      case ComplexView::Real: return {g.to(base_dtype_)};
      case ComplexView::Imag: return {mul(g.to(base_dtype_), Scalar(std::complex<double>(0, 1)))};
      case ComplexView::AsReal: return {g.contiguous().view_as_complex()};
      case ComplexView::AsComplex: return {g.view_as_real()};
      default:
        EMBER_FAIL(NotImplementedError, "the derivative of a view that reinterprets its elements as another "
                   "dtype is not implemented");
    }
  }

 private:
  ComplexView kind_;
  ScalarType base_dtype_;
};

// The gradient of a base that an in-place op wrote through one of its views: the base's
// gradient outside the view's elements passes on; inside, it goes through the op's node, whose
// gradient for the view's old value is written back into the slice.
class CopySlices : public Node {
 public:
  CopySlices(const Tensor& base, const Tensor& view, std::shared_ptr<Node> fn, size_t slot)
      : geo_(base, view), fn_(std::move(fn)), slot_(slot) {}
  std::string name() const override { return "CopySlices"; }

  std::vector<Tensor> apply(std::vector<Tensor> grads) override {
    const auto [lo, hi] = geo_.span(geo_.sizes);
    if (GradMode::is_enabled()) return apply_with_ops(grads[0], lo, hi);
    Tensor buf = zeros({hi - lo + 1}, grads[0].dtype());
    buf.as_strided(geo_.base_sizes, geo_.base_strides, geo_.base_offset - lo).copy_(grads[0]);
    Tensor slice = buf.as_strided(geo_.sizes, geo_.strides, geo_.offset - lo);
    std::vector<Tensor> fn_grads = fn_->apply({slice.clone()});
    fn_grads.resize(fn_->next_edges().size());
    if (fn_grads[slot_].defined()) slice.copy_(fn_grads[slot_]);
    else slice.zero_();
    std::vector<Tensor> out{buf.as_strided(geo_.base_sizes, geo_.base_strides, geo_.base_offset - lo).clone()};
    for (size_t i = 0; i < fn_grads.size(); ++i)
      if (i != slot_) out.push_back(fn_grads[i]);
    return out;
  }
  // fn_'s saved tensors go with this node, unless a gradient graph (create_graph) also holds
  // fn_ as the grad_fn of a saved result it unpacked: the engine releases it when it runs it.
  void release_saved() override {
    if (fn_.use_count() == 1) fn_->release_saved();
  }

 private:
  // apply's steps through storage positions, for a gradient that differentiates again.
  std::vector<Tensor> apply_with_ops(const Tensor& g, int64_t lo, int64_t hi) {
    const Tensor bpos = storage_positions(lo, hi, geo_.base_sizes, geo_.base_strides, geo_.base_offset);
    const Tensor vpos = storage_positions(lo, hi, geo_.sizes, geo_.strides, geo_.offset);
    Tensor buf = index_copy(zeros({hi - lo + 1}, g.dtype()), 0, bpos, g.reshape({-1}));
    std::vector<Tensor> fn_grads = fn_->apply({index_select(buf, 0, vpos).reshape(geo_.sizes)});
    fn_grads.resize(fn_->next_edges().size());
    const Tensor in_slice = fn_grads[slot_].defined() ? fn_grads[slot_].to(g.dtype()) : zeros(geo_.sizes, g.dtype());
    buf = index_copy(buf, 0, vpos, in_slice.reshape({-1}));
    std::vector<Tensor> out{index_select(buf, 0, bpos).reshape(geo_.base_sizes)};
    for (size_t i = 0; i < fn_grads.size(); ++i)
      if (i != slot_) out.push_back(fn_grads[i]);
    return out;
  }

  ViewGeometry geo_;
  std::shared_ptr<Node> fn_;
  size_t slot_;
};

void rebase_view_history(const Tensor& w, const std::shared_ptr<Node>& fn, size_t slot) {
  const Tensor base{Ref<TensorImpl>(w.impl()->view_base())};
  if (base.dtype() != w.dtype()) return;  // views as another dtype (real, imag) keep the op on the view
  auto cs = std::make_shared<CopySlices>(base, w, fn, slot);
  cs->add_next_edge(gradient_edge(base));
  for (size_t i = 0; i < fn->next_edges().size(); ++i)
    if (i != slot) cs->add_next_edge(fn->next_edges()[i]);
  set_history(base, cs, 0);
  auto view_node = std::make_shared<ViewBackward>(base, w, /*as_strided=*/true);
  view_node->add_next_edge({cs, 0});
  set_history(w, view_node, 0);
}

}  // namespace

void record_view(const Tensor& base, const Tensor& view) {
  const bool dual = forward_ad::detail::propagate_to_view(base, view);
  if (InferenceMode::is_enabled() && requires_grad(base) && !view.is_inference()) {
    AutogradMeta& m = materialize_meta(view);
    m.requires_grad = true;
    m.inference_view = true;
    return;
  }
  if (!requires_grad(base) || !GradMode::is_enabled()) {
    if (!dual) view.impl()->remove_keys(DispatchKeySet(DispatchKey::Autograd));
    return;
  }
  std::shared_ptr<Node> node;
  if (view.dtype() == base.dtype()) node = std::make_shared<ViewBackward>(base, view);
  else node = std::make_shared<ComplexViewBackward>(classify(base, view), base.dtype());
  node->add_next_edge(gradient_edge(base));
  set_history(view, std::move(node), 0);
}

void regenerate_view_history(const Tensor& view) {
  const Tensor base{Ref<TensorImpl>(view.impl()->view_base())};
  if (!requires_grad(base)) {  // nothing to replay on: the view keeps its history
    materialize_meta(view).view_version = view.version();
    return;
  }
  std::shared_ptr<Node> node;
  if (view.dtype() == base.dtype()) node = std::make_shared<ViewBackward>(base, view, /*as_strided=*/true);
  else node = std::make_shared<ComplexViewBackward>(classify(base, view), base.dtype());
  node->add_next_edge(gradient_edge(base));
  set_history(view, std::move(node), 0);
}

EMBER_REGISTER(autograd_fallback) { Dispatcher::get().set_fallback(DispatchKey::Autograd, &autograd_fallback); }

}  // namespace ember::autograd
