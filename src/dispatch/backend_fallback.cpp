// The CPU fallback of run-time registered backends: an op without a kernel for the device
// runs on CPU copies of its tensor arguments, and its results, plus every argument the
// schema marks as written, are copied back to the device.
#include "ember/backend.h"
#include "ember/dispatch.h"
#include "ember/ops.h"

namespace ember {
namespace {

void cpu_fallback(const OpEntry& op, DispatchKeySet ks, Stack& stack) {
  const DeviceType type = device_type_of(ks.highest_backend());
  const auto& args = op.schema().arguments;
  EMBER_CHECK(args.size() == stack.size(), RuntimeError, "CPU fallback for '", op.name(),
              "': the stack holds ", stack.size(), " values but the schema has ", args.size(),
              " arguments");
  // A copy cannot alias its input, so views need a kernel of the backend's own.
  EMBER_CHECK(!op.has_tag(Tag::View), NotImplementedError, "Could not run '", op.name(),
              "' with arguments from the '", device_type_name(type),
              "' backend: it is a view op, which the CPU fallback cannot emulate");
  // As for any op, tensors must share the device (CPU tensors only as 0-dim scalars);
  // results go to the device of the first tensor on the backend, index included.
  std::optional<Device> device;
  auto check = [&](const Tensor& t) {
    if (!t.defined()) return;
    Device d = t.device();
    if (d.type == type) {
      if (!device) device = d;
      return;
    }
    EMBER_CHECK(d.is_cpu() && t.dim() == 0, RuntimeError,
                "Expected all tensors to be on the same device, but found at least two devices, ",
                device_type_name(type), " and ", d, "! (in ", op.name(), ")");
  };
  for (IValue& v : stack) {
    if (v.is_tensor()) check(v.tensor());
    else if (v.is_tensor_list())
      for (const Tensor& t : v.tensor_list()) check(t);
  }
  // Move device tensors to the CPU, one copy per tensor (an argument passed twice stays one
  // tensor); remember the originals of written arguments.
  std::vector<std::pair<TensorImpl*, Tensor>> copies;
  auto to_cpu = [&](Tensor& t) {
    if (!t.defined() || t.device().type != type) return;
    for (auto& [impl, cpu] : copies)
      if (impl == t.impl()) { t = cpu; return; }
    Tensor cpu = to_device(t, kCPU);
    copies.emplace_back(t.impl(), cpu);
    t = std::move(cpu);
  };
  std::vector<std::pair<size_t, Tensor>> written;
  for (size_t i = 0; i < stack.size(); ++i) {
    IValue& v = stack[i];
    if (v.is_tensor()) {
      if (args[i].is_write) written.emplace_back(i, v.tensor());
      to_cpu(v.tensor());
    } else if (v.is_tensor_list()) {
      for (Tensor& t : v.tensor_list()) to_cpu(t);
    }
  }
  op.call_boxed(DispatchKeySet(DispatchKey::CPU), stack);
  // In-place and out= ops: copy the new contents back into the device tensors.
  for (auto& [i, original] : written) {
    if (i < stack.size() && stack[i].is_tensor()) {
      const Tensor& result = stack[i].tensor();
      if (!original.sizes().equals(result.sizes())) resize_(original, result.sizes());
      copy_(original, result);
      stack[i] = IValue(original);
    }
  }
  if (written.empty()) {
    const Device target = device.value_or(Device(type));
    for (IValue& v : stack) {
      if (v.is_tensor() && v.tensor().defined() && v.tensor().is_cpu()) {
        v.tensor() = to_device(v.tensor(), target);
      } else if (v.is_tensor_list()) {
        for (Tensor& t : v.tensor_list())
          if (t.defined()) t = to_device(t, target);
      }
    }
  }
}

}  // namespace

void install_cpu_fallback(DispatchKey key) { Dispatcher::get().set_fallback(key, &cpu_fallback); }
void remove_cpu_fallback(DispatchKey key) { Dispatcher::get().set_fallback(key, nullptr); }

}  // namespace ember
