// The contract a device backend fulfils, and run-time registration of new backends.
//
// A backend provides memory (an Allocator), copies between itself and the CPU, and
// synchronization. Ops without a kernel of its own run through the CPU fallback: tensor
// arguments are copied to the CPU, the CPU kernel runs, and results (and arguments the op
// writes) are copied back.
#pragma once

#include <optional>
#include <string_view>

#include "ember/device.h"
#include "ember/dispatch_key.h"
#include "ember/dtype.h"
#include "ember/storage.h"

namespace ember {

class BackendInterface {
 public:
  virtual ~BackendInterface() = default;
  virtual Allocator* allocator() = 0;
  // Copies nbytes of contiguous memory; one side may be the CPU.
  virtual void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device,
                          size_t nbytes) = 0;
  virtual void synchronize() {}
  // False makes the dispatcher route (op, dtype) through the CPU fallback.
  virtual bool supports(std::string_view op, ScalarType dtype) {
    (void)op; (void)dtype;
    return true;
  }
};

// Takes a free Custom slot, installs the CPU fallback for its dispatch key, and makes `name`
// usable in device strings ("name", "name:0"). RuntimeError if the name is taken or no slot
// is free. The interface must outlive every tensor on the device.
DeviceType register_backend(std::string_view name, BackendInterface* backend);
// Frees the slot again (tests).
void unregister_backend(DeviceType type);

std::optional<DeviceType> custom_backend_by_name(std::string_view name);
std::string_view custom_backend_name(DeviceType type);  // "" if none
// The backend behind a device type; RuntimeError for a device with no backend (CUDA in a CPU
// build, an unregistered custom slot).
BackendInterface& backend_for(DeviceType type);

}  // namespace ember
