#include "ember/device.h"

#include <cstdlib>

#include "ember/backend.h"
#include "ember/error.h"

namespace ember {

std::string_view device_type_name(DeviceType t) {
  switch (t) {
    case DeviceType::CPU: return "cpu";
    case DeviceType::Meta: return "meta";
    case DeviceType::CUDA: return "cuda";
    case DeviceType::HIP: return "hip";
    default: {
      std::string_view n = custom_backend_name(t);
      return n.empty() ? std::string_view("custom") : n;
    }
  }
}

Device::Device(std::string_view spec) {
  std::string_view name = spec;
  int index = -1;
  if (auto colon = spec.find(':'); colon != std::string_view::npos) {
    name = spec.substr(0, colon);
    std::string_view num = spec.substr(colon + 1);
    EMBER_CHECK(!num.empty() && num.size() < 4 &&
                    num.find_first_not_of("0123456789") == std::string_view::npos,
                RuntimeError, "Invalid device string: '", spec, "'");
    index = std::atoi(std::string(num).c_str());
    EMBER_CHECK(index < 128, RuntimeError, "Invalid device string: '", spec, "'");
  }
  if (name == "cpu") type = DeviceType::CPU;
  else if (name == "meta") type = DeviceType::Meta;
  else if (name == "cuda") type = DeviceType::CUDA;
  else if (name == "hip") type = DeviceType::HIP;
  else if (auto t = custom_backend_by_name(name)) type = *t;
  else
    EMBER_FAIL(RuntimeError, "Expected one of cpu, cuda, hip, meta or a registered backend's name "
               "at the start of the device string: ", spec);
  EMBER_CHECK(index == -1 || type != DeviceType::CPU || index == 0, RuntimeError,
              "CPU device index must be -1 or zero, got ", index);
  this->index = static_cast<int8_t>(index);
}

std::string Device::str() const {
  std::string s(device_type_name(type));
  if (index >= 0) s += ":" + std::to_string(index);
  return s;
}

}  // namespace ember
