// The CPU fallback of run-time registered backends: an op without a kernel for the device
// runs on CPU copies of its tensor arguments, and its results, plus every argument the
// schema marks as written, are copied back to the device.
#include "ember/backend.h"
#include "ember/dispatch.h"
#include "ember/ops.h"

namespace ember {
namespace {

void cpu_fallback(const OpEntry& op, DispatchKeySet ks, Stack& stack) {
  DispatchKey key = ks.highest_backend();
  Device device(device_type_of(key));
  const auto& args = op.schema().arguments;
  EMBER_CHECK(args.size() == stack.size(), RuntimeError, "CPU fallback for '", op.name(),
              "': the stack holds ", stack.size(), " values but the schema has ", args.size(),
              " arguments");
  // Move device tensors to the CPU; remember the originals of written arguments.
  std::vector<std::pair<size_t, Tensor>> written;
  auto to_cpu = [&](Tensor& t) {
    if (t.defined() && t.device().type == device.type) t = to_device(t, kCPU);
  };
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
    for (IValue& v : stack) {
      if (v.is_tensor() && v.tensor().defined() && v.tensor().is_cpu()) v.tensor() = to_device(v.tensor(), device);
      else if (v.is_tensor_list())
        for (Tensor& t : v.tensor_list()) t = to_device(t, device);
    }
  }
}

}  // namespace

void install_cpu_fallback(DispatchKey key) { Dispatcher::get().set_fallback(key, &cpu_fallback); }
void remove_cpu_fallback(DispatchKey key) { Dispatcher::get().set_fallback(key, nullptr); }

}  // namespace ember
