// Where a tensor's memory lives.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ember {

// Custom0..Custom3 are slots for backends registered at run time by name
// (register_backend in ember/backend.h); their printed name is the registered one.
enum class DeviceType : int8_t { CPU, Meta, CUDA, HIP, Custom0, Custom1, Custom2, Custom3 };
constexpr int kNumDeviceTypes = 8;
constexpr int kNumCustomDeviceTypes = 4;

struct Device {
  DeviceType type = DeviceType::CPU;
  int8_t index = -1;  // -1: "the current one"; CPU and Meta have none

  constexpr Device() = default;
  constexpr Device(DeviceType t, int8_t i = -1) : type(t), index(i) {}  // NOLINT
  // "cpu", "meta", "cuda", "cuda:1", or a registered custom backend's name.
  explicit Device(std::string_view spec);

  constexpr bool is_cpu() const { return type == DeviceType::CPU; }
  constexpr bool is_meta() const { return type == DeviceType::Meta; }
  std::string str() const;
  friend constexpr bool operator==(Device a, Device b) {
    return a.type == b.type && a.index == b.index;
  }
};

constexpr Device kCPU{DeviceType::CPU};
constexpr Device kMeta{DeviceType::Meta};

std::string_view device_type_name(DeviceType t);

}  // namespace ember
