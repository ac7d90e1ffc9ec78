// ember::nn::Module: the C++ module system (torch.nn.Module's semantics, libtorch's shape).
//
// Ownership. Modules are held by std::shared_ptr (Module derives from
// enable_shared_from_this). A module owns its registered parameters, buffers and child
// modules; a layer also keeps typed handles to them as members (Linear::weight), which are
// the same tensors and modules as the registered ones. Register a replacement instead of
// assigning the member: the registry is what parameters(), state_dict() and to() walk.
//
// Forward and hooks. Each layer has a plain, typed `forward(...)` (its own signature), and
// derives from ModuleBase<Derived>, whose templated operator() calls that forward with the
// module's hooks around it:
//     auto lin = std::make_shared<nn::Linear>(4, 3);
//     Tensor y = (*lin)(x);        // pre-hooks, forward, forward hooks
//     Tensor z = lin->forward(x);  // forward only, as calling .forward() in Python
// Hooks see the Tensor arguments and results as std::vector<Tensor> (other arguments pass
// through untouched) and may replace them; the types stay checked at compile time. For code
// that holds only a shared_ptr<Module> (Sequential, loops over ModuleList) there is the boxed
// `call(std::vector<Tensor>)`, which ModuleBase implements for forwards that take 1 to 3
// tensors. Full backward hooks see the gradients of those tensor inputs and results: the
// call routes them through identity autograd nodes that capture the gradients.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ember/tensor.h"

namespace ember::nn {

using Tensors = std::vector<Tensor>;

// ---------------------------------------------------------------- OrderedDict
// A map from names to values that keeps insertion order (Python's OrderedDict), with
// constant-time lookup by name. Inserting an existing name replaces its value in place.
template <class V>
class OrderedDict {
 public:
  using Item = std::pair<std::string, V>;

  V& insert(std::string key, V value) {
    if (auto it = index_.find(key); it != index_.end()) return items_[it->second].second = std::move(value);
    index_.emplace(key, items_.size());
    items_.emplace_back(std::move(key), std::move(value));
    return items_.back().second;
  }
  const V* find(const std::string& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &items_[it->second].second;
  }
  V* find(const std::string& key) { return const_cast<V*>(std::as_const(*this).find(key)); }
  bool contains(const std::string& key) const { return index_.count(key) != 0; }
  // IndexError naming the key when it is absent.
  const V& operator[](const std::string& key) const {
    const V* v = find(key);
    EMBER_CHECK(v, IndexError, "key '", key, "' not found");
    return *v;
  }
  V& operator[](const std::string& key) { return const_cast<V&>(std::as_const(*this)[key]); }
  // Removes the key (and returns whether it was there); later items move up.
  bool erase(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    const size_t pos = it->second;
    index_.erase(it);
    items_.erase(items_.begin() + static_cast<std::ptrdiff_t>(pos));
    for (size_t i = pos; i < items_.size(); ++i) index_[items_[i].first] = i;
    return true;
  }
  void clear() { items_.clear(); index_.clear(); }

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  const std::vector<Item>& items() const { return items_; }
  auto begin() const { return items_.begin(); }
  auto end() const { return items_.end(); }
  std::vector<std::string> keys() const {
    std::vector<std::string> k;
    for (const auto& it : items_) k.push_back(it.first);
    return k;
  }
  std::vector<V> values() const {
    std::vector<V> v;
    for (const auto& it : items_) v.push_back(it.second);
    return v;
  }

 private:
  std::vector<Item> items_;
  std::unordered_map<std::string, size_t> index_;
};

class Module;
using StateDict = OrderedDict<Tensor>;

// What load_state_dict did not match (in model order and in the dict's order).
struct LoadStateDictResult {
  std::vector<std::string> missing_keys;
  std::vector<std::string> unexpected_keys;
};

// load_state_dict's error: a RuntimeError (as PyTorch raises) whose message lists every
// problem found, "Error(s) in loading state_dict for Linear:\n\tsize mismatch for weight: ...".
class StateDictError : public RuntimeError {
  using RuntimeError::RuntimeError;
};

// ---------------------------------------------------------------- hooks
// A forward pre-hook gets the module and its tensor inputs; it may return replacements
// (as many tensors), or nothing to keep them.
using ForwardPreHook = std::function<std::optional<Tensors>(Module&, const Tensors& inputs)>;
// A forward hook gets the inputs (after the pre-hooks) and the outputs; it may return
// replacement outputs (as many tensors), or nothing.
using ForwardHook = std::function<std::optional<Tensors>(Module&, const Tensors& inputs, const Tensors& outputs)>;
// A full backward hook runs when the gradients of the module's tensor inputs have been
// computed; it gets them (undefined for inputs that do not require grad, or all undefined
// when none does) and those of the outputs, and may return replacement input gradients
// (as many tensors). As torch's register_full_backward_hook.
using BackwardHook =
    std::function<std::optional<Tensors>(Module&, const Tensors& grad_input, const Tensors& grad_output)>;

namespace detail {
struct Hooks {
  uint64_t next_id = 0;
  std::vector<std::pair<uint64_t, ForwardPreHook>> pre;
  std::vector<std::pair<uint64_t, ForwardHook>> post;
  std::vector<std::pair<uint64_t, BackwardHook>> backward;
  bool empty() const { return pre.empty() && post.empty() && backward.empty(); }
};
struct BackwardHookState;  // one forward call's, shared by its two identity nodes (module.cpp)
}  // namespace detail

// Returned by hook registration; remove() unregisters the hook (a no-op when it is already
// gone, or its module is).
class HookHandle {
 public:
  HookHandle() = default;
  void remove();

 private:
  friend class Module;
  HookHandle(std::weak_ptr<detail::Hooks> hooks, uint64_t id) : hooks_(std::move(hooks)), id_(id) {}
  std::weak_ptr<detail::Hooks> hooks_;
  uint64_t id_ = 0;
};

// ---------------------------------------------------------------- Module
class Module : public std::enable_shared_from_this<Module> {
 public:
  Module() = default;
  virtual ~Module() = default;
  // Movable (so that `Sequential(Linear(4, 3), ReLU())` can take modules by value) but not
  // copyable: a copy would share parameters without saying so.
  Module(Module&&) = default;
  Module& operator=(Module&&) = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  // The class name without namespaces ("Linear"); repr and error messages use it.
  virtual std::string name() const;

  // ---- registration. Names may not be empty, contain '.', or be taken by another kind of
  // member (ValueError, where PyTorch raises KeyError). Registering a name again replaces
  // the entry in place. An undefined tensor stands for Python's None: kept, but skipped by
  // every listing and by state_dict.
  // The tensor becomes a parameter: it must be a leaf; its requires_grad is set.
  Tensor register_parameter(std::string name, Tensor t, bool requires_grad = true);
  // Non-persistent buffers are left out of state_dict.
  Tensor register_buffer(std::string name, Tensor t, bool persistent = true);
  template <class M>
  std::shared_ptr<M> register_module(std::string name, std::shared_ptr<M> module) {
    static_assert(std::is_base_of_v<Module, M>, "register_module needs a Module");
    register_child(std::move(name), module);
    return module;
  }
  // A module passed by value is moved into a new shared_ptr.
  template <class M,
            class = std::enable_if_t<std::is_base_of_v<Module, std::decay_t<M>> && !std::is_lvalue_reference_v<M>>>
  std::shared_ptr<std::decay_t<M>> register_module(std::string name, M&& module) {
    return register_module(std::move(name), std::make_shared<std::decay_t<M>>(std::move(module)));
  }

  // ---- plain tensor attributes: Python's `module.name = tensor` for a name that is not a
  // parameter or buffer. weight_norm and spectral_norm (nn/utils.h) put the tensor they
  // compute there in place of the parameter they replace. They are not listed, saved or
  // converted by to(). A layer reads them through typed handles bound to their names with
  // bind_tensor (Linear::weight; RNN binds the entries of its flat weights).
  // The parameter, buffer or plain attribute `name` (undefined when there is none).
  Tensor tensor_attr(const std::string& name) const;
  // Sets a buffer's value, or the plain attribute (created if needed), and the typed handle
  // bound to the name. TypeError for a parameter's or a submodule's name (as assigning a
  // plain tensor to either in Python).
  void set_tensor_attr(const std::string& name, Tensor t);
  // Whether a typed handle is bound to `name`: code that replaces a parameter by a
  // computed tensor needs one, or the layer would keep reading the old tensor.
  bool has_bound_tensor(const std::string& name) const { return bound_.contains(name); }

  // ---- traversal. Names are dotted paths ("0.weight") in registration order. As in
  // PyTorch, a tensor or module reachable along several paths is listed once, under the
  // first; state_dict lists every path.
  Tensors parameters(bool recurse = true) const;
  OrderedDict<Tensor> named_parameters(bool recurse = true) const;
  Tensors buffers(bool recurse = true) const;
  OrderedDict<Tensor> named_buffers(bool recurse = true) const;
  std::vector<std::shared_ptr<Module>> children() const;
  OrderedDict<std::shared_ptr<Module>> named_children() const;
  // Self first (its name is the prefix), then every descendant depth-first. Listing self
  // needs the module to be held by a shared_ptr (RuntimeError otherwise).
  std::vector<std::shared_ptr<Module>> modules(bool include_self = true);
  OrderedDict<std::shared_ptr<Module>> named_modules(const std::string& prefix = "", bool include_self = true);

  // ---- modes and bulk changes
  // Sets training mode on this module and every descendant (layers such as Dropout and
  // BatchNorm read it).
  virtual void train(bool on = true);
  void eval() { train(false); }
  bool is_training() const { return training_; }
  Module& requires_grad_(bool requires_grad = true);
  // Drops every parameter's gradient, or, without set_to_none, zeroes it in place.
  void zero_grad(bool set_to_none = true);
  // Converts floating and complex parameters and buffers (and gradients) to dtype, in place:
  // every parameter keeps its identity (handles held elsewhere see the new data), stays a
  // leaf and keeps requires_grad. dtype must be floating or complex (TypeError).
  Module& to(ScalarType dtype);
  // Moves every parameter and buffer (and gradient) to device, the same way.
  Module& to(Device device);
  Module& to(Device device, ScalarType dtype);
  // Calls fn on every descendant, then on this module (children first, as PyTorch).
  Module& apply(const std::function<void(Module&)>& fn);

  // ---- state
  // Parameters and persistent buffers by dotted name, detached (they share memory with the
  // module's tensors).
  StateDict state_dict() const;
  // Copies the dict's tensors into the parameters and persistent buffers of the same name.
  // Every entry is checked first (shapes, conversion to the destination's dtype and device;
  // with strict, also missing and unexpected keys), so an error (StateDictError listing all
  // problems) leaves the module unchanged. Returns the keys that did not match.
  LoadStateDictResult load_state_dict(const StateDict& dict, bool strict = true);

  // ---- hooks (run by ModuleBase::operator() and call(), in registration order)
  HookHandle register_forward_pre_hook(ForwardPreHook hook);
  HookHandle register_forward_hook(ForwardHook hook);
  HookHandle register_full_backward_hook(BackwardHook hook);
  bool has_hooks() const { return hooks_ && !hooks_->empty(); }
  // The forward pre-hooks in order, each with a handle that removes it (Python's
  // _forward_pre_hooks); target<T>() tells what a hook is.
  std::vector<std::pair<HookHandle, const ForwardPreHook*>> forward_pre_hooks() const;
  Tensors run_forward_pre_hooks(Tensors inputs);
  Tensors run_forward_hooks(const Tensors& inputs, Tensors outputs);
  // With backward hooks (and grad mode on), routes the inputs, then the outputs, through
  // identity nodes that capture their gradients and run the hooks (torch's BackwardHook);
  // begin returns null, and changes nothing, otherwise.
  std::shared_ptr<detail::BackwardHookState> begin_backward_hooks(Tensors& inputs);
  Tensors end_backward_hooks(const std::shared_ptr<detail::BackwardHookState>& state, Tensors outputs);

  // Boxed forward: tensors in, tensors out, hooks included. ModuleBase provides it for
  // forwards that take 1 to 3 tensors; the default raises TypeError.
  virtual Tensors call(Tensors inputs);

  // ---- printing, as PyTorch's repr: "Name(extra_repr)", or one line per child:
  //   Sequential(
  //     (0): Linear(in_features=4, out_features=3, bias=True)
  //     (1): ReLU()
  //   )
  virtual std::string extra_repr() const { return ""; }
  std::string repr() const;

 protected:
  // This module's own registries, in order, with shared entries under each name (what
  // containers iterate).
  const OrderedDict<Tensor>& local_parameters() const { return params_; }
  const OrderedDict<std::shared_ptr<Module>>& local_modules() const { return children_; }
  // Removes a parameter, buffer, module or plain tensor attribute by name; returns whether
  // there was one.
  bool unregister(const std::string& name);
  // Binds the typed handle `member` (of this module, a D) to `name`: registering a parameter
  // or buffer of that name, or setting the attribute, assigns the handle too. Layers bind
  // their handles in their constructors. The accessor form serves handles kept elsewhere
  // (RNN's per-layer weights).
  using TensorAccess = std::function<Tensor&(Module&)>;
  void bind_tensor(std::string name, TensorAccess access) { bound_.insert(std::move(name), std::move(access)); }
  template <class D>
  void bind_tensor(std::string name, Tensor D::*member) {
    static_assert(std::is_base_of_v<Module, D>, "bind_tensor needs a member of a Module");
    bind_tensor(std::move(name), [member](Module& m) -> Tensor& { return static_cast<D&>(m).*member; });
  }

 private:
  struct ModuleEntry {
    std::string prefix;
    const Module* module;
    std::shared_ptr<Module> ptr;  // null for the module walk() started from
  };
  // Depth-first, each module once (memo), as PyTorch's named_modules.
  void walk(const std::string& prefix, const std::shared_ptr<Module>& self_ptr, bool include_self,
            std::unordered_set<const Module*>& memo, std::vector<ModuleEntry>& out) const;
  OrderedDict<Tensor> named_tensors(bool recurse, bool buffers) const;
  // Parameters and persistent buffers along every path (state_dict's entries).
  void collect_state(const std::string& prefix, std::vector<std::pair<std::string, Tensor>>& out) const;
  void register_child(std::string name, std::shared_ptr<Module> module);
  // Checks a new member's name: kind is 'p'arameter, 'b'uffer or 'm'odule.
  void check_name(const std::string& name, char kind) const;
  void apply_to_tensors(const std::function<Tensor(const Tensor&)>& fn);
  // Assigns t to the handle bound to name, if any.
  void sync_bound(const std::string& name, const Tensor& t);

  OrderedDict<Tensor> params_;
  OrderedDict<Tensor> buffers_;
  std::vector<std::string> non_persistent_;
  OrderedDict<std::shared_ptr<Module>> children_;
  OrderedDict<Tensor> attrs_;           // plain tensor attributes
  OrderedDict<TensorAccess> bound_;     // typed handles by name
  bool training_ = true;
  std::shared_ptr<detail::Hooks> hooks_;
};

std::ostream& operator<<(std::ostream& os, const Module& m);

// ---------------------------------------------------------------- ModuleBase
namespace detail {

template <class R>
struct is_tensor_tuple : std::false_type {};
template <class... Ts>
struct is_tensor_tuple<std::tuple<Ts...>> : std::bool_constant<(std::is_same_v<Ts, Tensor> && ...)> {};
// What hooks can see and replace: Tensor, std::vector<Tensor> or std::tuple<Tensor, ...>.
template <class R>
inline constexpr bool is_outputs_v =
    std::is_same_v<R, Tensor> || std::is_same_v<R, Tensors> || is_tensor_tuple<R>::value;

template <class R>
Tensors outputs_to_vector(R&& r) {
  using D = std::decay_t<R>;
  if constexpr (std::is_same_v<D, Tensor>) return {std::forward<R>(r)};
  else if constexpr (std::is_same_v<D, Tensors>) return std::forward<R>(r);
  else return std::apply([](auto&&... t) { return Tensors{std::forward<decltype(t)>(t)...}; }, std::forward<R>(r));
}

// RuntimeError unless a hook kept the number of tensors.
void check_hook_count(const Module& m, const char* what, size_t expected, size_t got);

template <class R>
R outputs_from_vector(const Module& m, Tensors v, size_t expected) {
  if constexpr (std::is_same_v<R, Tensors>) {
    return v;
  } else {
    check_hook_count(m, "outputs", expected, v.size());
    if constexpr (std::is_same_v<R, Tensor>) {
      return std::move(v[0]);
    } else {
      return [&]<size_t... I>(std::index_sequence<I...>) {
        return R{std::move(v[I])...};
      }(std::make_index_sequence<std::tuple_size_v<R>>());
    }
  }
}

template <class T>
inline constexpr bool is_tensor_arg_v = std::is_same_v<std::decay_t<T>, Tensor>;

// forward(args...) with the module's hooks around it: the Tensor arguments go through the
// pre-hooks and are put back in their places, the results through the forward hooks.
template <class F, class... Args>
auto call_with_hooks(Module& m, F&& forward, const Args&... args) {
  Tensors inputs;
  ([&] { if constexpr (is_tensor_arg_v<Args>) inputs.push_back(args); }(), ...);
  inputs = m.run_forward_pre_hooks(std::move(inputs));
  const auto backward_state = m.begin_backward_hooks(inputs);
  size_t k = 0;
  auto pick = [&](const auto& a) -> const auto& {
    if constexpr (is_tensor_arg_v<decltype(a)>) return inputs[k++];
    else return a;
  };
  // A braced list evaluates left to right, so tensors go back in order.
  std::tuple<const Args&...> call_args{pick(args)...};
  using R = std::decay_t<decltype(std::apply(forward, call_args))>;
  static_assert(is_outputs_v<R>,
                "operator() runs hooks, which need forward to return Tensor, std::vector<Tensor> or a "
                "std::tuple of Tensors; call forward() directly");
  R out = std::apply(forward, call_args);
  Tensors outs = outputs_to_vector(std::move(out));
  const size_t n = outs.size();
  outs = m.run_forward_hooks(inputs, std::move(outs));
  if (backward_state) outs = m.end_backward_hooks(backward_state, std::move(outs));
  return outputs_from_vector<R>(m, std::move(outs), n);
}

}  // namespace detail

// The base of every layer: Derived defines `forward(...)`, and gets operator() (forward
// with hooks) and the boxed call(). Base is Module, or an intermediate class that shares
// code between layers (ConvNd for Conv1d/2d/3d).
template <class Derived, class Base = Module>
class ModuleBase : public Base {
 public:
  using Base::Base;

  template <class... Args>
  decltype(auto) operator()(Args&&... args) {
    Derived& self = static_cast<Derived&>(*this);
    if (!this->has_hooks()) return self.forward(std::forward<Args>(args)...);
    return detail::call_with_hooks(
        *this, [&self](const auto&... a) { return self.forward(a...); }, args...);
  }

  Tensors call(Tensors in) override {
    if (in.size() == 1) {
      if constexpr (requires(Derived& d, const Tensor& a) {
                      { d.forward(a) };
                      requires detail::is_outputs_v<std::decay_t<decltype(d.forward(a))>>;
                    })
        return detail::outputs_to_vector((*this)(in[0]));
    } else if (in.size() == 2) {
      if constexpr (requires(Derived& d, const Tensor& a) {
                      { d.forward(a, a) };
                      requires detail::is_outputs_v<std::decay_t<decltype(d.forward(a, a))>>;
                    })
        return detail::outputs_to_vector((*this)(in[0], in[1]));
    } else if (in.size() == 3) {
      if constexpr (requires(Derived& d, const Tensor& a) {
                      { d.forward(a, a, a) };
                      requires detail::is_outputs_v<std::decay_t<decltype(d.forward(a, a, a))>>;
                    })
        return detail::outputs_to_vector((*this)(in[0], in[1], in[2]));
    }
    return Base::call(std::move(in));
  }
};

// ---------------------------------------------------------------- printing helpers
// Python's spelling of values in extra_repr, so that C++ and Python print modules alike.
namespace detail {
std::string py_float(double v);              // 0.1, 1e-05, 1.0 (Python's repr of a float)
std::string py_bool(bool v);                 // True, False
std::string py_tuple(IntArrayRef v);         // (3,), (3, 3)
std::string py_int_or_tuple(IntArrayRef v);  // 3 for one value, else a tuple
// A tuple of n values from one value (repeated) or n values; `what` names the argument in
// the ValueError.
std::vector<int64_t> expand_param(const std::string& layer, const char* what, IntArrayRef v, size_t n);
}  // namespace detail

}  // namespace ember::nn
