// Containers (torch.nn's Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict).
// Their entries are ordinary registered members, so traversal, state_dict and repr treat
// them like any child or parameter; list entries are named "0", "1", ...
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

namespace detail {

// Iterates the values of an OrderedDict's items.
template <class It>
class ValueIterator {
 public:
  explicit ValueIterator(It it) : it_(it) {}
  const auto& operator*() const { return it_->second; }
  const auto* operator->() const { return &it_->second; }
  ValueIterator& operator++() {
    ++it_;
    return *this;
  }
  bool operator==(const ValueIterator& o) const { return it_ == o.it_; }

 private:
  It it_;
};

template <class T>
struct shared_module : std::false_type {};
template <class T>
struct shared_module<std::shared_ptr<T>> : std::bool_constant<std::is_base_of_v<Module, T>> {};

// A module argument: a shared_ptr to a module, or a module passed by value (moved in).
template <class M>
concept ModuleArg = shared_module<std::decay_t<M>>::value ||
                    (std::is_base_of_v<Module, std::decay_t<M>> && !std::is_lvalue_reference_v<M>);

template <class M>
auto to_shared(M&& m) {
  if constexpr (shared_module<std::decay_t<M>>::value) return std::forward<M>(m);
  else return std::make_shared<std::decay_t<M>>(std::move(m));
}

// What Sequential accepts: a module whose forward takes one Tensor. Types that declare no
// forward (Module, a family's base such as ConvNd) are checked when called (call() raises).
template <class T>
concept SequentialEntry = !requires { &T::forward; } || requires(T& t, const Tensor& x) { t.forward(x); };

// Python's index rule: -size <= i < size (IndexError naming the container otherwise).
size_t wrap_index(const char* container, int64_t i, size_t size);

// An index's element as M (TypeError when it is another kind of module).
template <class M>
std::shared_ptr<M> cast_module(const char* container, const std::string& key, const std::shared_ptr<Module>& m) {
  auto typed = std::dynamic_pointer_cast<M>(m);
  EMBER_CHECK(typed, TypeError, container, ": entry ", key, " is a ", m->name(), ", not the type asked for");
  return typed;
}

}  // namespace detail

// ---------------------------------------------------------------- Sequential
// Calls its modules in order, each on the previous one's result. Every entry's forward must
// take one Tensor and return one (checked at compile time for typed entries).
//   auto net = std::make_shared<Sequential>(Linear(4, 8), ReLU(), Linear(8, 2));
class Sequential : public ModuleBase<Sequential> {
 public:
  Sequential() = default;
  template <detail::ModuleArg... Ms>
  explicit Sequential(Ms&&... modules) {
    (push_back(std::forward<Ms>(modules)), ...);
  }
  // Named entries (PyTorch's Sequential(OrderedDict)).
  explicit Sequential(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& named);

  template <detail::ModuleArg M>
  auto push_back(M&& module) {
    return push_back(std::to_string(size()), std::forward<M>(module));
  }
  template <detail::ModuleArg M>
  auto push_back(std::string name, M&& module) {
    auto m = detail::to_shared(std::forward<M>(module));
    using T = typename decltype(m)::element_type;
    static_assert(detail::SequentialEntry<T>, "Sequential chains modules whose forward takes one Tensor");
    return register_module(std::move(name), std::move(m));
  }

  std::shared_ptr<Module> operator[](int64_t i) const;
  template <class M>
  std::shared_ptr<M> at(int64_t i) const {
    return detail::cast_module<M>("Sequential", std::to_string(i), (*this)[i]);
  }
  size_t size() const { return local_modules().size(); }
  bool empty() const { return size() == 0; }
  auto begin() const { return detail::ValueIterator(local_modules().begin()); }
  auto end() const { return detail::ValueIterator(local_modules().end()); }

  // The input, passed through every module (each through call(), so hooks run).
  Tensor forward(const Tensor& input);
};

// ---------------------------------------------------------------- ModuleList
// An indexable list of modules; it has no forward.
class ModuleList : public Module {
 public:
  ModuleList() = default;
  template <detail::ModuleArg... Ms>
  explicit ModuleList(Ms&&... modules) {
    (push_back(std::forward<Ms>(modules)), ...);
  }

  template <detail::ModuleArg M>
  auto push_back(M&& module) {
    return register_module(std::to_string(size()), detail::to_shared(std::forward<M>(module)));
  }
  // Inserts before index (0 <= index <= size, or negative from the end); later entries are
  // renumbered.
  void insert(int64_t index, std::shared_ptr<Module> module);
  void extend(const ModuleList& other);

  std::shared_ptr<Module> operator[](int64_t i) const;
  template <class M>
  std::shared_ptr<M> at(int64_t i) const {
    return detail::cast_module<M>("ModuleList", std::to_string(i), (*this)[i]);
  }
  size_t size() const { return local_modules().size(); }
  bool empty() const { return size() == 0; }
  auto begin() const { return detail::ValueIterator(local_modules().begin()); }
  auto end() const { return detail::ValueIterator(local_modules().end()); }
};

// ---------------------------------------------------------------- ModuleDict
// Modules by name, in insertion order; it has no forward.
class ModuleDict : public Module {
 public:
  ModuleDict() = default;
  explicit ModuleDict(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& items) { update(items); }

  template <detail::ModuleArg M>
  auto insert(std::string key, M&& module) {
    return register_module(std::move(key), detail::to_shared(std::forward<M>(module)));
  }
  void update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& items);
  // Removes and returns the entry (IndexError when absent).
  std::shared_ptr<Module> pop(const std::string& key);
  void clear();

  std::shared_ptr<Module> operator[](const std::string& key) const { return local_modules()[key]; }
  template <class M>
  std::shared_ptr<M> at(const std::string& key) const {
    return detail::cast_module<M>("ModuleDict", "'" + key + "'", (*this)[key]);
  }
  bool contains(const std::string& key) const { return local_modules().contains(key); }
  std::vector<std::string> keys() const { return local_modules().keys(); }
  std::vector<std::shared_ptr<Module>> values() const { return local_modules().values(); }
  size_t size() const { return local_modules().size(); }
  bool empty() const { return size() == 0; }
  // Iterates (name, module) pairs.
  auto begin() const { return local_modules().begin(); }
  auto end() const { return local_modules().end(); }
};

// ---------------------------------------------------------------- ParameterList
// An indexable list of parameters (each made to require grad, as nn.Parameter does).
class ParameterList : public Module {
 public:
  ParameterList() = default;
  explicit ParameterList(const std::vector<Tensor>& params) { extend(params); }

  Tensor append(Tensor param) { return register_parameter(std::to_string(size()), std::move(param)); }
  void extend(const std::vector<Tensor>& params);

  Tensor operator[](int64_t i) const;
  size_t size() const { return local_parameters().size(); }
  bool empty() const { return size() == 0; }
  auto begin() const { return detail::ValueIterator(local_parameters().begin()); }
  auto end() const { return detail::ValueIterator(local_parameters().end()); }

  std::string extra_repr() const override;
};

// ---------------------------------------------------------------- ParameterDict
// Parameters by name, in insertion order.
class ParameterDict : public Module {
 public:
  ParameterDict() = default;
  explicit ParameterDict(const std::vector<std::pair<std::string, Tensor>>& items) { update(items); }

  Tensor insert(std::string key, Tensor param) { return register_parameter(std::move(key), std::move(param)); }
  void update(const std::vector<std::pair<std::string, Tensor>>& items);
  Tensor pop(const std::string& key);
  void clear();

  Tensor operator[](const std::string& key) const { return local_parameters()[key]; }
  bool contains(const std::string& key) const { return local_parameters().contains(key); }
  std::vector<std::string> keys() const { return local_parameters().keys(); }
  std::vector<Tensor> values() const { return local_parameters().values(); }
  size_t size() const { return local_parameters().size(); }
  bool empty() const { return size() == 0; }
  auto begin() const { return local_parameters().begin(); }
  auto end() const { return local_parameters().end(); }

  std::string extra_repr() const override;
};

}  // namespace ember::nn
