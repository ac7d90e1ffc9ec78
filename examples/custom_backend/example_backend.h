// An out-of-tree Ember backend, written only against the public headers (include/ember).
//
// The "example" device keeps its memory in host RAM, but hands Ember pointers that the host
// cannot dereference (as a GPU's would be), so any code path that touched device memory
// without going through the backend would crash instead of silently working. The backend
// provides an allocator, byte copies to and from the CPU, and kernels for three ops:
// copy_ (which makes .to() and .cpu() work), add.Tensor and mul.Tensor (float32 only).
// Every other op reaches the device through Ember's CPU fallback.
#pragma once

#include <cstdint>

#include "ember/device.h"

#define EMBER_EXAMPLE_API __attribute__((visibility("default")))

// Registers the backend under the name "example" (idempotent) and returns the DeviceType
// slot it got, as an int so that it can be called through dlopen/ctypes. Loading the library
// already calls it from a static initializer.
extern "C" EMBER_EXAMPLE_API int register_example_backend(void);

namespace ember_example {

struct Stats {
  uint64_t live_bytes = 0;   // allocated on the device and not yet freed
  uint64_t peak_bytes = 0;
  uint64_t allocations = 0;
  uint64_t frees = 0;
  uint64_t copy_calls = 0;      // the backend's own kernels
  uint64_t add_calls = 0;
  uint64_t mul_calls = 0;
  uint64_t fallback_calls = 0;  // ops that ran through the CPU fallback
  uint64_t bytes_to_device = 0;     // through copy_bytes
  uint64_t bytes_from_device = 0;
};

EMBER_EXAMPLE_API Stats stats();
EMBER_EXAMPLE_API ember::DeviceType device_type();  // registers on first use

}  // namespace ember_example
