#include "ember/backend.h"

#include <cstring>
#include <mutex>
#include <string>

#include "ember/error.h"

namespace ember {

void install_cpu_fallback(DispatchKey key);  // dispatch/backend_fallback.cpp
void remove_cpu_fallback(DispatchKey key);

namespace {

class CpuBackend final : public BackendInterface {
 public:
  Allocator* allocator() override { return cpu_allocator(); }
  void copy_bytes(void* dst, Device, const void* src, Device, size_t n) override {
    if (n) std::memcpy(dst, src, n);
  }
};

// Meta tensors have shapes and dtypes but no memory.
class MetaAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t) override { return DataPtr(); }
};
class MetaBackend final : public BackendInterface {
 public:
  Allocator* allocator() override { return &alloc_; }
  void copy_bytes(void*, Device, const void*, Device, size_t) override {}

 private:
  MetaAllocator alloc_;
};

struct Registry {
  std::mutex mu;
  BackendInterface* backends[kNumDeviceTypes] = {};
  std::string names[kNumCustomDeviceTypes];
};
Registry& registry() {
  static auto* r = [] {
    auto* reg = new Registry();
    reg->backends[static_cast<int>(DeviceType::CPU)] = new CpuBackend();
    reg->backends[static_cast<int>(DeviceType::Meta)] = new MetaBackend();
    return reg;
  }();
  return *r;
}
constexpr int kFirstCustom = static_cast<int>(DeviceType::Custom0);

}  // namespace

DeviceType register_backend(std::string_view name, BackendInterface* backend) {
  EMBER_CHECK(backend != nullptr, ValueError, "register_backend: backend is null");
  EMBER_CHECK(!name.empty() && name.find(':') == std::string_view::npos, ValueError,
              "register_backend: invalid backend name '", name, "'");
  for (std::string_view builtin : {"cpu", "meta", "cuda", "hip"})
    EMBER_CHECK(name != builtin, RuntimeError, "register_backend: '", name, "' is a built-in device");
  Registry& r = registry();
  DeviceType type;
  {
    std::lock_guard<std::mutex> lock(r.mu);
    int slot = -1;
    for (int i = 0; i < kNumCustomDeviceTypes; ++i) {
      EMBER_CHECK(r.names[i] != name, RuntimeError, "register_backend: a backend named '", name,
                  "' is already registered");
      if (slot < 0 && r.names[i].empty()) slot = i;
    }
    EMBER_CHECK(slot >= 0, RuntimeError, "register_backend: all ", kNumCustomDeviceTypes,
                " custom backend slots are taken");
    r.names[slot] = std::string(name);
    r.backends[kFirstCustom + slot] = backend;
    type = static_cast<DeviceType>(kFirstCustom + slot);
  }
  install_cpu_fallback(backend_key(type));
  return type;
}

void unregister_backend(DeviceType type) {
  int i = static_cast<int>(type) - kFirstCustom;
  EMBER_CHECK(i >= 0 && i < kNumCustomDeviceTypes, ValueError,
              "unregister_backend: not a custom device type");
  Registry& r = registry();
  remove_cpu_fallback(backend_key(type));
  std::lock_guard<std::mutex> lock(r.mu);
  r.names[i].clear();
  r.backends[static_cast<int>(type)] = nullptr;
}

std::optional<DeviceType> custom_backend_by_name(std::string_view name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (int i = 0; i < kNumCustomDeviceTypes; ++i)
    if (!r.names[i].empty() && r.names[i] == name) return static_cast<DeviceType>(kFirstCustom + i);
  return std::nullopt;
}

std::string_view custom_backend_name(DeviceType type) {
  int i = static_cast<int>(type) - kFirstCustom;
  if (i < 0 || i >= kNumCustomDeviceTypes) return {};
  return registry().names[i];
}

BackendInterface& backend_for(DeviceType type) {
  BackendInterface* b = registry().backends[static_cast<int>(type)];
  EMBER_CHECK(b != nullptr, RuntimeError, "no backend for device type '", device_type_name(type),
              "': this build of Ember has no support for it");
  return *b;
}

}  // namespace ember
