// ember::nn::Module: registration, traversal, modes, conversion, state dicts, hooks and
// printing (include/ember/nn/module.h).
#include "ember/nn/module.h"

#include <cxxabi.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <ostream>
#include <typeinfo>
#include <unordered_set>

#include "ember/autograd.h"
#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "nn/check.h"

namespace ember::nn {

namespace {

using autograd::NoGradGuard;

std::string join_name(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

// PyTorch's _addindent: every line but the first indented by n spaces.
std::string add_indent(const std::string& s, size_t n) {
  std::string out;
  for (char c : s) {
    out.push_back(c);
    if (c == '\n') out.append(n, ' ');
  }
  return out;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (true) {
    const size_t nl = s.find('\n', start);
    lines.push_back(s.substr(start, nl - start));
    if (nl == std::string::npos) return lines;
    start = nl + 1;
  }
}

}  // namespace

// ---------------------------------------------------------------- hooks

void HookHandle::remove() {
  auto hooks = hooks_.lock();
  if (!hooks) return;
  std::erase_if(hooks->pre, [&](const auto& h) { return h.first == id_; });
  std::erase_if(hooks->post, [&](const auto& h) { return h.first == id_; });
  std::erase_if(hooks->backward, [&](const auto& h) { return h.first == id_; });
}

HookHandle Module::register_forward_pre_hook(ForwardPreHook hook) {
  if (!hooks_) hooks_ = std::make_shared<detail::Hooks>();
  const uint64_t id = hooks_->next_id++;
  hooks_->pre.emplace_back(id, std::move(hook));
  return HookHandle(hooks_, id);
}

std::vector<std::pair<HookHandle, const ForwardPreHook*>> Module::forward_pre_hooks() const {
  std::vector<std::pair<HookHandle, const ForwardPreHook*>> out;
  if (hooks_)
    for (const auto& [id, hook] : hooks_->pre) out.emplace_back(HookHandle(hooks_, id), &hook);
  return out;
}

HookHandle Module::register_forward_hook(ForwardHook hook) {
  if (!hooks_) hooks_ = std::make_shared<detail::Hooks>();
  const uint64_t id = hooks_->next_id++;
  hooks_->post.emplace_back(id, std::move(hook));
  return HookHandle(hooks_, id);
}

HookHandle Module::register_full_backward_hook(BackwardHook hook) {
  if (!hooks_) hooks_ = std::make_shared<detail::Hooks>();
  const uint64_t id = hooks_->next_id++;
  hooks_->backward.emplace_back(id, std::move(hook));
  return HookHandle(hooks_, id);
}

// What one forward call leaves for its backward hooks: the output node stores grad_output,
// the input node (which runs after it) calls the hooks.
struct detail::BackwardHookState {
  std::shared_ptr<Module> owner;  // keeps the module alive while the graph is (when it is shared)
  Module* module;
  std::vector<std::pair<uint64_t, BackwardHook>> hooks;  // those registered at forward time, as PyTorch
  size_t num_inputs = 0;
  bool inputs_need_grad = false;
  Tensors grad_output;

  Tensors run(Tensors grad_input) const {
    for (const auto& [id, hook] : hooks) {
      if (auto replaced = hook(*module, grad_input, grad_output)) {
        check_hook_count(*module, "input gradients", grad_input.size(), replaced->size());
        grad_input = std::move(*replaced);
      }
    }
    return grad_input;
  }
};

namespace {
// Routes the tensors of `ts` that require grad through one identity node whose backward is
// `on_grads` (given their gradients in order, it returns theirs); returns their positions.
std::vector<size_t> through_identity(Tensors& ts, std::function<Tensors(Tensors)> on_grads) {
  std::vector<size_t> pos;
  Tensors wrapped;
  for (size_t i = 0; i < ts.size(); ++i) {
    if (ts[i].defined() && autograd::requires_grad(ts[i])) {
      pos.push_back(i);
      wrapped.push_back(ts[i]);
    }
  }
  if (pos.empty()) return pos;
  Tensors aliases = autograd::record_function(
      "BackwardHookFunctionBackward", wrapped, wrapped, std::make_shared<autograd::AutogradContext>(),
      [f = std::move(on_grads)](autograd::AutogradContext&, Tensors grads) { return f(std::move(grads)); });
  for (size_t j = 0; j < pos.size(); ++j) ts[pos[j]] = aliases[j];
  return pos;
}
}  // namespace

std::shared_ptr<detail::BackwardHookState> Module::begin_backward_hooks(Tensors& inputs) {
  if (!hooks_ || hooks_->backward.empty() || !autograd::GradMode::is_enabled()) return nullptr;
  auto state = std::make_shared<detail::BackwardHookState>();
  state->owner = weak_from_this().lock();
  state->module = this;
  state->hooks = hooks_->backward;
  state->num_inputs = inputs.size();
  auto pos = std::make_shared<std::vector<size_t>>();
  *pos = through_identity(inputs, [state, pos](Tensors grads) {
    Tensors grad_input(state->num_inputs);
    for (size_t j = 0; j < pos->size(); ++j) grad_input[(*pos)[j]] = grads[j];
    grad_input = state->run(std::move(grad_input));
    Tensors out;
    for (size_t i : *pos) out.push_back(grad_input[i]);
    return out;
  });
  state->inputs_need_grad = !pos->empty();
  return state;
}

Tensors Module::end_backward_hooks(const std::shared_ptr<detail::BackwardHookState>& state, Tensors outputs) {
  const size_t n = outputs.size();
  auto pos = std::make_shared<std::vector<size_t>>();
  *pos = through_identity(outputs, [state, pos, n](Tensors grads) {
    state->grad_output.assign(n, Tensor());
    for (size_t j = 0; j < pos->size(); ++j) state->grad_output[(*pos)[j]] = grads[j];
    // No input requires grad: the hooks run here, with undefined input gradients.
    if (!state->inputs_need_grad) state->run(Tensors(state->num_inputs));
    return grads;
  });
  return outputs;
}

void detail::check_hook_count(const Module& m, const char* what, size_t expected, size_t got) {
  EMBER_CHECK(expected == got, RuntimeError, m.name(), ": a forward hook returned ", got, " ", what, ", expected ",
              expected);
}

Tensors Module::run_forward_pre_hooks(Tensors inputs) {
  if (!hooks_) return inputs;
  const auto pre = hooks_->pre;  // a copy: a hook may remove itself
  for (const auto& [id, hook] : pre) {
    if (auto replaced = hook(*this, inputs)) {
      detail::check_hook_count(*this, "inputs", inputs.size(), replaced->size());
      inputs = std::move(*replaced);
    }
  }
  return inputs;
}

Tensors Module::run_forward_hooks(const Tensors& inputs, Tensors outputs) {
  if (!hooks_) return outputs;
  const auto post = hooks_->post;
  for (const auto& [id, hook] : post) {
    if (auto replaced = hook(*this, inputs, outputs)) outputs = std::move(*replaced);
  }
  return outputs;
}

Tensors Module::call(Tensors inputs) {
  EMBER_FAIL(TypeError, name(), " cannot be called with ", inputs.size(),
             " tensor(s) through call(): its forward takes other arguments; call it directly");
}

// ---------------------------------------------------------------- registration

std::string Module::name() const {
  const char* mangled = typeid(*this).name();
  int status = 0;
  char* demangled = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string full = status == 0 && demangled ? demangled : mangled;
  std::free(demangled);
  // Drop namespaces (outside template arguments): ember::nn::Linear -> Linear.
  const size_t end = full.find('<');
  const size_t colon = full.rfind("::", end);
  return colon == std::string::npos ? full : full.substr(colon + 2);
}

void Module::check_name(const std::string& name, char kind) const {
  const char* what = kind == 'p' ? "parameter" : kind == 'b' ? "buffer" : "module";
  EMBER_CHECK(!name.empty(), ValueError, what, " name can't be empty string \"\"");
  EMBER_CHECK(name.find('.') == std::string::npos, ValueError, what, " name can't contain \".\", got: ", name);
  const bool taken = (kind != 'p' && params_.contains(name)) || (kind != 'b' && buffers_.contains(name)) ||
                     (kind != 'm' && children_.contains(name)) || attrs_.contains(name);
  EMBER_CHECK(!taken, ValueError, "attribute '", name, "' already exists");
}

Tensor Module::register_parameter(std::string name, Tensor t, bool requires_grad) {
  check_name(name, 'p');
  if (t.defined()) {
    EMBER_CHECK(autograd::is_leaf(t), ValueError, "Cannot assign non-leaf Tensor to parameter '", name,
                "'. Model parameters must be created explicitly. To express '", name,
                "' as a function of another Tensor, compute the value in the forward() method.");
    autograd::set_requires_grad(t, requires_grad);
  }
  sync_bound(name, t);
  params_.insert(std::move(name), t);
  return t;
}

Tensor Module::register_buffer(std::string name, Tensor t, bool persistent) {
  check_name(name, 'b');
  std::erase(non_persistent_, name);
  if (!persistent) non_persistent_.push_back(name);
  sync_bound(name, t);
  buffers_.insert(std::move(name), t);
  return t;
}

void Module::register_child(std::string name, std::shared_ptr<Module> module) {
  EMBER_CHECK(module, ValueError, "register_module: module '", name, "' is null");
  check_name(name, 'm');
  children_.insert(std::move(name), std::move(module));
}

bool Module::unregister(const std::string& name) {
  std::erase(non_persistent_, name);
  return params_.erase(name) || buffers_.erase(name) || children_.erase(name) || attrs_.erase(name);
}

void Module::sync_bound(const std::string& name, const Tensor& t) {
  if (const TensorAccess* access = bound_.find(name)) (*access)(*this) = t;
}

Tensor Module::tensor_attr(const std::string& name) const {
  for (const OrderedDict<Tensor>* dict : {&params_, &buffers_, &attrs_})
    if (const Tensor* t = dict->find(name)) return *t;
  return Tensor();
}

void Module::set_tensor_attr(const std::string& name, Tensor t) {
  EMBER_CHECK(!params_.contains(name), TypeError, "cannot assign a plain tensor as parameter '", name,
              "' (torch.nn.Parameter or None expected)");
  EMBER_CHECK(!children_.contains(name), TypeError, "cannot assign a tensor as child module '", name,
              "' (torch.nn.Module or None expected)");
  sync_bound(name, t);
  if (Tensor* b = buffers_.find(name)) *b = std::move(t);
  else attrs_.insert(name, std::move(t));
}

// ---------------------------------------------------------------- traversal

void Module::walk(const std::string& prefix, const std::shared_ptr<Module>& self_ptr, bool include_self,
                  std::unordered_set<const Module*>& memo, std::vector<ModuleEntry>& out) const {
  if (!memo.insert(this).second) return;
  if (include_self) out.push_back({prefix, this, self_ptr});
  for (const auto& [name, child] : children_) child->walk(join_name(prefix, name), child, true, memo, out);
}

OrderedDict<Tensor> Module::named_tensors(bool recurse, bool buffers) const {
  std::vector<ModuleEntry> mods;
  if (recurse) {
    std::unordered_set<const Module*> memo;
    walk("", nullptr, true, memo, mods);
  } else {
    mods.push_back({"", this, nullptr});
  }
  OrderedDict<Tensor> out;
  std::unordered_set<const TensorImpl*> seen;  // a shared tensor is listed once
  for (const ModuleEntry& e : mods) {
    for (const auto& [name, t] : buffers ? e.module->buffers_ : e.module->params_) {
      if (t.defined() && seen.insert(t.impl()).second) out.insert(join_name(e.prefix, name), t);
    }
  }
  return out;
}

OrderedDict<Tensor> Module::named_parameters(bool recurse) const { return named_tensors(recurse, false); }
OrderedDict<Tensor> Module::named_buffers(bool recurse) const { return named_tensors(recurse, true); }
Tensors Module::parameters(bool recurse) const { return named_parameters(recurse).values(); }
Tensors Module::buffers(bool recurse) const { return named_buffers(recurse).values(); }

OrderedDict<std::shared_ptr<Module>> Module::named_children() const {
  OrderedDict<std::shared_ptr<Module>> out;
  std::unordered_set<const Module*> seen;
  for (const auto& [name, child] : children_) {
    if (seen.insert(child.get()).second) out.insert(name, child);
  }
  return out;
}

std::vector<std::shared_ptr<Module>> Module::children() const { return named_children().values(); }

OrderedDict<std::shared_ptr<Module>> Module::named_modules(const std::string& prefix, bool include_self) {
  std::shared_ptr<Module> self;
  if (include_self) {
    self = weak_from_this().lock();
    EMBER_CHECK(self, RuntimeError, name(),
                ": modules() and named_modules() list the module itself, which must be held by a std::shared_ptr "
                "(or pass include_self=false)");
  }
  std::vector<ModuleEntry> mods;
  std::unordered_set<const Module*> memo;
  walk(prefix, self, include_self, memo, mods);
  OrderedDict<std::shared_ptr<Module>> out;
  for (ModuleEntry& e : mods) out.insert(std::move(e.prefix), std::move(e.ptr));
  return out;
}

std::vector<std::shared_ptr<Module>> Module::modules(bool include_self) {
  return named_modules("", include_self).values();
}

// ---------------------------------------------------------------- modes and bulk changes

void Module::train(bool on) {
  training_ = on;
  for (const auto& [name, child] : children_) child->train(on);
}

Module& Module::requires_grad_(bool requires_grad) {
  for (const Tensor& p : parameters()) autograd::set_requires_grad(p, requires_grad);
  return *this;
}

void Module::zero_grad(bool set_to_none) {
  for (const Tensor& p : parameters()) autograd::clear_grad(p, set_to_none);
}

void Module::apply_to_tensors(const std::function<Tensor(const Tensor&)>& fn) {
  for (const auto& [name, child] : children_) child->apply_to_tensors(fn);
  NoGradGuard no_grad;
  for (const auto& [name, p] : params_) {
    if (!p.defined()) continue;
    set_data(p, fn(p));
    if (Tensor g = autograd::grad(p); g.defined()) set_data(g, fn(g));
  }
  for (const auto& [name, b] : buffers_) {
    if (b.defined()) set_data(b, fn(b));
  }
}

Module& Module::to(Device device, ScalarType dtype) {
  EMBER_CHECK(is_floating_point(dtype) || is_complex(dtype), TypeError,
              "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=", dtype);
  apply_to_tensors(
      [&](const Tensor& t) { return t.is_floating_point() || t.is_complex() ? t.to(device, dtype) : t.to(device); });
  return *this;
}

Module& Module::to(ScalarType dtype) {
  EMBER_CHECK(is_floating_point(dtype) || is_complex(dtype), TypeError,
              "nn.Module.to only accepts floating point or complex dtypes, but got desired dtype=", dtype);
  apply_to_tensors([&](const Tensor& t) { return t.is_floating_point() || t.is_complex() ? t.to(dtype) : t; });
  return *this;
}

Module& Module::to(Device device) {
  apply_to_tensors([&](const Tensor& t) { return t.to(device); });
  return *this;
}

Module& Module::apply(const std::function<void(Module&)>& fn) {
  for (const auto& child : children()) child->apply(fn);
  fn(*this);
  return *this;
}

// ---------------------------------------------------------------- state

void Module::collect_state(const std::string& prefix, std::vector<std::pair<std::string, Tensor>>& out) const {
  for (const auto& [name, p] : params_) {
    if (p.defined()) out.emplace_back(prefix + name, p);
  }
  for (const auto& [name, b] : buffers_) {
    if (b.defined() && std::find(non_persistent_.begin(), non_persistent_.end(), name) == non_persistent_.end())
      out.emplace_back(prefix + name, b);
  }
  // Every path, shared modules included (state_dict does not deduplicate).
  for (const auto& [name, child] : children_) child->collect_state(prefix + name + ".", out);
}

StateDict Module::state_dict() const {
  std::vector<std::pair<std::string, Tensor>> entries;
  collect_state("", entries);
  StateDict out;
  for (auto& [key, t] : entries) out.insert(std::move(key), t.detach());
  return out;
}

LoadStateDictResult Module::load_state_dict(const StateDict& dict, bool strict) {
  std::vector<std::pair<std::string, Tensor>> dests;
  collect_state("", dests);
  LoadStateDictResult result;
  std::vector<std::string> errors;
  std::vector<std::pair<Tensor, Tensor>> copies;  // (destination, source converted to its dtype and device)
  std::unordered_set<std::string> expected;
  {
    NoGradGuard no_grad;
    for (const auto& [key, dst] : dests) {
      expected.insert(key);
      const Tensor* src = dict.find(key);
      if (!src) {
        result.missing_keys.push_back(key);
        continue;
      }
      if (!src->defined()) {
        errors.push_back("While copying the parameter named \"" + key +
                         "\", expected a tensor from checkpoint but received an undefined one.");
        continue;
      }
      if (src->sizes() != dst.sizes()) {
        errors.push_back("size mismatch for " + key + ": copying a param with shape " +
                         detail::shape_str(src->sizes()) + " from checkpoint, the shape in current model is " +
                         detail::shape_str(dst.sizes()) + ".");
        continue;
      }
      try {
        copies.emplace_back(dst, src->detach().to(dst.device(), dst.dtype()));
      } catch (const Error& e) {
        errors.push_back("While copying the parameter named \"" + key + "\", whose dimensions in the model are " +
                         detail::shape_str(dst.sizes()) + " and whose dimensions in the checkpoint are " +
                         detail::shape_str(src->sizes()) + ", an exception occurred : (" + e.what() + ").");
      }
    }
  }
  for (const auto& [key, t] : dict) {
    if (!expected.count(key)) result.unexpected_keys.push_back(key);
  }
  auto quoted = [](const std::vector<std::string>& keys) {
    std::string s;
    for (const auto& k : keys) s += (s.empty() ? "\"" : ", \"") + k + "\"";
    return s;
  };
  if (strict && !result.unexpected_keys.empty())
    errors.insert(errors.begin(), "Unexpected key(s) in state_dict: " + quoted(result.unexpected_keys) + ". ");
  if (strict && !result.missing_keys.empty())
    errors.insert(errors.begin(), "Missing key(s) in state_dict: " + quoted(result.missing_keys) + ". ");
  if (!errors.empty()) {
    std::string msg = "Error(s) in loading state_dict for " + name() + ":";
    for (const auto& e : errors) msg += "\n\t" + e;
    throw StateDictError(std::move(msg));
  }
  // Everything was checked and converted: the copies below do not fail.
  NoGradGuard no_grad;
  for (auto& [dst, src] : copies) dst.copy_(src);
  return result;
}

// ---------------------------------------------------------------- printing

std::string Module::repr() const {
  std::vector<std::string> lines;
  const std::string extra = extra_repr();
  if (!extra.empty()) lines = split_lines(extra);
  const size_t n_extra = lines.size();
  for (const auto& [name, child] : children_) lines.push_back("(" + name + "): " + add_indent(child->repr(), 2));
  std::string s = name() + "(";
  if (n_extra == 1 && lines.size() == 1) {
    s += lines[0];
  } else if (!lines.empty()) {
    s += "\n";
    for (const auto& l : lines) s += "  " + l + "\n";
  }
  return s + ")";
}

std::ostream& operator<<(std::ostream& os, const Module& m) { return os << m.repr(); }

namespace detail {

std::string py_float(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  // The shortest digits that read back as v, placed the way Python's repr places them:
  // positional for exponents -5 < e < 16, else d.ddde+XX.
  char buf[64];
  const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  std::string sign;
  if (s[0] == '-') {
    sign = "-";
    s.erase(0, 1);
  }
  const size_t e = s.find('e');
  const int exp = std::atoi(s.c_str() + e + 1);
  std::string digits = s.substr(0, e);
  std::erase(digits, '.');
  if (exp < -4 || exp >= 16) {
    std::string m = digits.substr(0, 1);
    if (digits.size() > 1) m += "." + digits.substr(1);
    const int a = std::abs(exp);
    return sign + m + "e" + (exp < 0 ? "-" : "+") + (a < 10 ? "0" : "") + std::to_string(a);
  }
  if (exp < 0) return sign + "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
  const size_t int_digits = static_cast<size_t>(exp) + 1;
  if (digits.size() <= int_digits) return sign + digits + std::string(int_digits - digits.size(), '0') + ".0";
  return sign + digits.substr(0, int_digits) + "." + digits.substr(int_digits);
}

std::string py_bool(bool v) { return v ? "True" : "False"; }

std::string py_tuple(IntArrayRef v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

std::string py_int_or_tuple(IntArrayRef v) { return v.size() == 1 ? std::to_string(v[0]) : py_tuple(v); }

std::vector<int64_t> expand_param(const std::string& layer, const char* what, IntArrayRef v, size_t n) {
  EMBER_CHECK(v.size() == 1 || v.size() == n, ValueError, layer, ": expected ", what, " to have 1 or ", n,
              " values, got ", v);
  return v.size() == 1 ? std::vector<int64_t>(n, v[0]) : std::vector<int64_t>(v.begin(), v.end());
}

}  // namespace detail

}  // namespace ember::nn
