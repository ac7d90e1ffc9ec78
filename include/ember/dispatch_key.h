// Dispatch keys: which layer or backend handles a call. Higher value = higher priority.
#pragma once

#include <cstdint>
#include <string_view>

#include "ember/device.h"

namespace ember {

enum class DispatchKey : uint8_t {
  Undefined = 0,
  // Backends, one per device type.
  CPU,
  Meta,
  CUDA,
  HIP,
  Custom0,
  Custom1,
  Custom2,
  Custom3,
  // Layers: each does its work and redispatches to the keys below it.
  Autograd,
  Vmap,
  Trace,
  // On the tensors of torch.nn's uninitialized (lazy) parameters and buffers: the Python
  // layer's fallback rejects every op but the few that may touch them (python/bindings/autograd.cpp).
  Uninitialized,
  NumKeys,
};
constexpr int kNumDispatchKeys = static_cast<int>(DispatchKey::NumKeys);
constexpr DispatchKey kFirstLayerKey = DispatchKey::Autograd;

constexpr bool is_backend_key(DispatchKey k) {
  return k > DispatchKey::Undefined && k < kFirstLayerKey;
}
std::string_view dispatch_key_name(DispatchKey k);

constexpr DispatchKey backend_key(DeviceType t) {
  return static_cast<DispatchKey>(static_cast<int>(DispatchKey::CPU) + static_cast<int>(t));
}
constexpr DeviceType device_type_of(DispatchKey k) {
  return static_cast<DeviceType>(static_cast<int>(k) - static_cast<int>(DispatchKey::CPU));
}

// A set of keys as a bit mask.
class DispatchKeySet {
 public:
  constexpr DispatchKeySet() = default;
  constexpr explicit DispatchKeySet(DispatchKey k)
      : bits_(k == DispatchKey::Undefined ? 0 : (1u << static_cast<int>(k))) {}
  static constexpr DispatchKeySet from_bits(uint32_t b) { DispatchKeySet s; s.bits_ = b; return s; }
  // Every key strictly below k.
  static constexpr DispatchKeySet below(DispatchKey k) {
    return from_bits((1u << static_cast<int>(k)) - 1u) - DispatchKeySet(DispatchKey::Undefined);
  }
  static constexpr DispatchKeySet all_backends() {
    return below(kFirstLayerKey);
  }

  constexpr bool has(DispatchKey k) const { return (bits_ & DispatchKeySet(k).bits_) != 0; }
  constexpr bool empty() const { return bits_ == 0; }
  constexpr uint32_t bits() const { return bits_; }
  constexpr DispatchKeySet operator|(DispatchKeySet o) const { return from_bits(bits_ | o.bits_); }
  constexpr DispatchKeySet operator&(DispatchKeySet o) const { return from_bits(bits_ & o.bits_); }
  constexpr DispatchKeySet operator-(DispatchKeySet o) const { return from_bits(bits_ & ~o.bits_); }
  constexpr DispatchKeySet add(DispatchKey k) const { return *this | DispatchKeySet(k); }
  constexpr DispatchKeySet remove(DispatchKey k) const { return *this - DispatchKeySet(k); }
  constexpr bool operator==(DispatchKeySet o) const { return bits_ == o.bits_; }
  DispatchKey highest() const {
    return bits_ == 0 ? DispatchKey::Undefined
                      : static_cast<DispatchKey>(31 - __builtin_clz(bits_));
  }
  DispatchKey highest_backend() const { return (*this & all_backends()).highest(); }

 private:
  uint32_t bits_ = 0;
};

// Thread-local keys added to (include) or removed from (exclude) every call's key set.
struct LocalDispatchKeySet {
  DispatchKeySet included;
  DispatchKeySet excluded;
};
LocalDispatchKeySet& tls_local_dispatch_keys();

// RAII: add keys to every call on this thread (e.g. tracing turns on Trace).
class IncludeKeyGuard {
 public:
  explicit IncludeKeyGuard(DispatchKeySet ks);
  explicit IncludeKeyGuard(DispatchKey k) : IncludeKeyGuard(DispatchKeySet(k)) {}
  ~IncludeKeyGuard();
  IncludeKeyGuard(const IncludeKeyGuard&) = delete;
  IncludeKeyGuard& operator=(const IncludeKeyGuard&) = delete;

 private:
  DispatchKeySet prev_;
};

// RAII: skip keys on this thread (a layer excludes itself before redispatching).
class ExcludeKeyGuard {
 public:
  explicit ExcludeKeyGuard(DispatchKeySet ks);
  explicit ExcludeKeyGuard(DispatchKey k) : ExcludeKeyGuard(DispatchKeySet(k)) {}
  ~ExcludeKeyGuard();
  ExcludeKeyGuard(const ExcludeKeyGuard&) = delete;
  ExcludeKeyGuard& operator=(const ExcludeKeyGuard&) = delete;

 private:
  DispatchKeySet prev_;
};

}  // namespace ember
