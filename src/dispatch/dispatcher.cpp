#include "ember/dispatch.h"

#include <map>
#include <memory>
#include <mutex>

namespace ember {

namespace {
std::mutex& registry_mutex() {
  static std::mutex mu;
  return mu;
}
// Ordered so that listings are stable; entries are heap-allocated and never move.
std::map<std::string, std::unique_ptr<OpEntry>, std::less<>>& ops() {
  static auto* m = new std::map<std::string, std::unique_ptr<OpEntry>, std::less<>>();
  return *m;
}
}  // namespace

Dispatcher& Dispatcher::get() {
  static auto* d = new Dispatcher();
  return *d;
}

OpEntry& Dispatcher::entry(std::string_view full_name) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto& m = ops();
  auto it = m.find(full_name);
  if (it == m.end())
    it = m.emplace(std::string(full_name), std::make_unique<OpEntry>(std::string(full_name))).first;
  return *it->second;
}

const OpEntry* Dispatcher::find(std::string_view full_name) const {
  std::lock_guard<std::mutex> lock(registry_mutex());
  auto& m = ops();
  auto it = m.find(full_name);
  return it == m.end() || !it->second->is_defined() ? nullptr : it->second.get();
}

std::vector<const OpEntry*> Dispatcher::all_ops() const {
  std::lock_guard<std::mutex> lock(registry_mutex());
  std::vector<const OpEntry*> out;
  for (auto& [name, e] : ops())
    if (e->is_defined()) out.push_back(e.get());
  return out;
}

namespace detail {
void check_signature(const OpEntry& op, const std::type_info& sig) {
  EMBER_INTERNAL_ASSERT(op.signature() == nullptr || *op.signature() == sig,
                        "kernel for op '", op.name(), "' has a C++ signature that differs from ",
                        "the op's declaration");
}
}  // namespace detail

void Dispatcher::define(std::string_view schema_text, uint32_t tags, const std::type_info& sig) {
  Schema schema = parse_schema(schema_text);
  OpEntry& e = entry(schema.full_name());
  EMBER_INTERNAL_ASSERT(!e.defined_, "op '", e.name(), "' is defined twice");
  detail::check_signature(e, sig);
  std::lock_guard<std::mutex> lock(registry_mutex());
  e.schema_ = std::move(schema);
  e.tags_ = tags;
  e.signature_ = &sig;
  e.defined_ = true;
  static int next_order = 0;
  e.definition_order_ = next_order++;
}

void Dispatcher::set_kernel(std::string_view op, DispatchKey k, KernelFunction kf,
                            const std::type_info& sig) {
  OpEntry& e = entry(op);
  // typeid(void) marks a boxed-only kernel: it fits any signature and must not fix one
  // (it may be registered before the op is defined).
  const bool typed = sig != typeid(void);
  if (typed) detail::check_signature(e, sig);
  std::lock_guard<std::mutex> lock(registry_mutex());
  if (!e.signature_ && typed) e.signature_ = &sig;
  e.kernels_[static_cast<int>(k)] = kf;
}

void Dispatcher::set_composite(std::string_view op, KernelFunction kf, const std::type_info& sig) {
  OpEntry& e = entry(op);
  detail::check_signature(e, sig);
  std::lock_guard<std::mutex> lock(registry_mutex());
  if (!e.signature_) e.signature_ = &sig;
  e.composite_ = kf;
}

void Dispatcher::set_fallback(DispatchKey k, BoxedKernel fallback) {
  std::lock_guard<std::mutex> lock(registry_mutex());
  fallbacks_[static_cast<int>(k)] = KernelFunction{nullptr, fallback};
}

void Dispatcher::clear_kernel(std::string_view op, DispatchKey k) {
  OpEntry& e = entry(op);
  std::lock_guard<std::mutex> lock(registry_mutex());
  e.kernels_[static_cast<int>(k)] = KernelFunction{};
}

void register_boxed_kernel(std::string_view op, DispatchKey k, BoxedKernel kernel) {
  Dispatcher::get().set_kernel(op, k, KernelFunction{nullptr, kernel}, typeid(void));
}

const KernelFunction& OpEntry::resolve(DispatchKeySet ks, DispatchKey* chosen) const {
  const Dispatcher& d = Dispatcher::get();
  while (!ks.empty()) {
    DispatchKey k = ks.highest();
    *chosen = k;
    if (const KernelFunction& kf = kernels_[static_cast<int>(k)]) return kf;
    if (is_backend_key(k)) {
      // A composite works on every backend by calling other ops; only ops without one
      // take the backend's fallback.
      if (composite_) return composite_;
      if (const KernelFunction& fb = d.fallback_kernel(k)) return fb;
      EMBER_FAIL(NotImplementedError, "Could not run '", name_, "' with arguments from the '",
                 dispatch_key_name(k), "' backend: it has no kernel for that backend");
    }
    // A composite decomposes at the autograd and vmap layers, so that each op it calls is
    // differentiated or batched; other layers use their fallback or fall through.
    if (composite_ && (k == DispatchKey::Autograd || k == DispatchKey::Vmap)) return composite_;
    if (const KernelFunction& fb = d.fallback_kernel(k)) return fb;
    ks = ks.remove(k);
  }
  EMBER_CHECK(composite_, NotImplementedError, "Could not run '", name_,
              "': no tensor arguments to pick a backend from and no composite kernel");
  *chosen = DispatchKey::CPU;
  return composite_;
}

void OpEntry::call_boxed(DispatchKeySet ks, Stack& stack) const {
  DispatchKey chosen;
  const KernelFunction& kf = resolve(ks, &chosen);
  EMBER_INTERNAL_ASSERT(kf.has_boxed_form(), "op '", name_, "' has no boxed form at ", dispatch_key_name(chosen));
  kf.call_boxed(*this, ks, stack);
}

}  // namespace ember
