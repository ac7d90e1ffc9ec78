// Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict (include/ember/nn/container.h).
#include "ember/nn/container.h"

#include "ember/ops.h"

namespace ember::nn {

size_t detail::wrap_index(const char* container, int64_t i, size_t size) {
  const auto n = static_cast<int64_t>(size);
  EMBER_CHECK(i >= -n && i < n, IndexError, container, ": index ", i, " is out of range for ", n, " entries");
  return static_cast<size_t>(i < 0 ? i + n : i);
}

// ---------------------------------------------------------------- Sequential

Sequential::Sequential(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& named) {
  for (const auto& [name, m] : named) push_back(name, m);
}

std::shared_ptr<Module> Sequential::operator[](int64_t i) const {
  return local_modules().items()[detail::wrap_index("Sequential", i, size())].second;
}

Tensor Sequential::forward(const Tensor& input) {
  Tensor x = input;
  for (const auto& [name, m] : local_modules()) {
    Tensors out = m->call({x});
    EMBER_CHECK(out.size() == 1, RuntimeError, "Sequential: module (", name, "): ", m->name(), " returned ", out.size(),
                " tensors; Sequential passes on exactly one");
    x = std::move(out[0]);
  }
  return x;
}

// ---------------------------------------------------------------- ModuleList

void ModuleList::insert(int64_t index, std::shared_ptr<Module> module) {
  const auto n = static_cast<int64_t>(size());
  EMBER_CHECK(index >= -n && index <= n, IndexError, "ModuleList: insert index ", index, " is out of range for ", n,
              " entries");
  const size_t pos = static_cast<size_t>(index < 0 ? index + n : index);
  std::vector<std::shared_ptr<Module>> all = local_modules().values();
  all.insert(all.begin() + static_cast<std::ptrdiff_t>(pos), std::move(module));
  // Renumber: re-register every entry under its new index.
  for (size_t i = 0; i + 1 < all.size(); ++i) unregister(std::to_string(i));
  for (size_t i = 0; i < all.size(); ++i) register_module(std::to_string(i), all[i]);
}

void ModuleList::extend(const ModuleList& other) {
  for (const auto& m : other.local_modules().values()) push_back(m);
}

std::shared_ptr<Module> ModuleList::operator[](int64_t i) const {
  return local_modules().items()[detail::wrap_index("ModuleList", i, size())].second;
}

// ---------------------------------------------------------------- ModuleDict

void ModuleDict::update(const std::vector<std::pair<std::string, std::shared_ptr<Module>>>& items) {
  for (const auto& [key, m] : items) insert(key, m);
}

std::shared_ptr<Module> ModuleDict::pop(const std::string& key) {
  std::shared_ptr<Module> m = (*this)[key];
  unregister(key);
  return m;
}

void ModuleDict::clear() {
  for (const auto& key : keys()) unregister(key);
}

// ---------------------------------------------------------------- ParameterList

void ParameterList::extend(const std::vector<Tensor>& params) {
  for (const Tensor& p : params) append(p);
}

Tensor ParameterList::operator[](int64_t i) const {
  return local_parameters().items()[detail::wrap_index("ParameterList", i, size())].second;
}

namespace {
// One line per entry, as PyTorch's: "  (0): Parameter containing: [ember.float32 of size 2x3]".
std::string parameter_lines(const OrderedDict<Tensor>& params) {
  std::string s;
  for (const auto& [key, p] : params) {
    if (!s.empty()) s += "\n";
    std::string size;
    for (int64_t d = 0; d < p.dim(); ++d) size += (d ? "x" : "") + std::to_string(p.size(d));
    s += "  (" + key + "): Parameter containing: [ember." + std::string(dtype_name(p.dtype())) + " of size " + size +
         (p.is_cpu() ? "" : " (" + p.device().str() + ")") + "]";
  }
  return s;
}
}  // namespace

std::string ParameterList::extra_repr() const { return parameter_lines(local_parameters()); }

// ---------------------------------------------------------------- ParameterDict

void ParameterDict::update(const std::vector<std::pair<std::string, Tensor>>& items) {
  for (const auto& [key, p] : items) insert(key, p);
}

Tensor ParameterDict::pop(const std::string& key) {
  Tensor p = (*this)[key];
  unregister(key);
  return p;
}

void ParameterDict::clear() {
  for (const auto& key : keys()) unregister(key);
}

std::string ParameterDict::extra_repr() const { return parameter_lines(local_parameters()); }

}  // namespace ember::nn
