#include "ember/dispatch_key.h"

namespace ember {

std::string_view dispatch_key_name(DispatchKey k) {
  static constexpr std::string_view names[] = {
      "Undefined", "CPU", "Meta", "CUDA", "HIP", "Custom0", "Custom1", "Custom2",
      "Custom3", "Autograd", "Vmap", "Trace", "Uninitialized"};
  int i = static_cast<int>(k);
  return i < kNumDispatchKeys ? names[i] : "Invalid";
}

LocalDispatchKeySet& tls_local_dispatch_keys() {
  static thread_local LocalDispatchKeySet keys;
  return keys;
}

IncludeKeyGuard::IncludeKeyGuard(DispatchKeySet ks) {
  auto& local = tls_local_dispatch_keys();
  prev_ = local.included;
  local.included = local.included | ks;
}
IncludeKeyGuard::~IncludeKeyGuard() { tls_local_dispatch_keys().included = prev_; }

ExcludeKeyGuard::ExcludeKeyGuard(DispatchKeySet ks) {
  auto& local = tls_local_dispatch_keys();
  prev_ = local.excluded;
  local.excluded = local.excluded | ks;
}
ExcludeKeyGuard::~ExcludeKeyGuard() { tls_local_dispatch_keys().excluded = prev_; }

}  // namespace ember
