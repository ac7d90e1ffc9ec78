// The "example" backend: an allocator, byte copies, and kernels for copy_, add.Tensor and
// mul.Tensor. See example_backend.h for what it demonstrates.
#include "example_backend.h"

#include <array>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "ember/backend.h"
#include "ember/dispatch.h"
#include "ember/ops.h"

namespace ember_example {
namespace {

using namespace ember;

// ---------------------------------------------------------------- device addresses
// A device address is the host address with bit 47 set. On x86-64 that is a non-canonical
// address, so a host load or store through it faults at once; pointer arithmetic inside a
// block (what Ember does with data pointers) stays valid.
#if defined(__x86_64__)
constexpr uintptr_t kDeviceBit = uintptr_t(1) << 47;
#else
constexpr uintptr_t kDeviceBit = 0;
#endif
void* device_address(void* host) {
  return reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(host) + kDeviceBit);
}
char* host_address(const void* dev) {
  return reinterpret_cast<char*>(reinterpret_cast<uintptr_t>(dev) - kDeviceBit);
}

// ---------------------------------------------------------------- state
struct State {
  std::mutex mu;
  Stats stats;
  std::unordered_map<void*, size_t> blocks;  // host address -> size
};
State& state() {
  static auto* s = new State();  // never destroyed: tensors may die during static destruction
  return *s;
}
template <typename F>
void update(F f) {
  std::lock_guard<std::mutex> lock(state().mu);
  f(state().stats);
}

DeviceType g_type = DeviceType::CPU;  // set once registered
bool on_device(const Tensor& t) { return t.device().type == g_type; }

// ---------------------------------------------------------------- allocator and copies
class ExampleAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    size_t size = (std::max<size_t>(nbytes, 1) + 63) & ~size_t(63);
    void* host = std::aligned_alloc(64, size);
    EMBER_CHECK(host != nullptr, RuntimeError, "example device: out of memory allocating ", nbytes,
                " bytes");
    {
      std::lock_guard<std::mutex> lock(state().mu);
      Stats& s = state().stats;
      state().blocks[host] = size;
      s.live_bytes += size;
      s.peak_bytes = std::max(s.peak_bytes, s.live_bytes);
      ++s.allocations;
    }
    return DataPtr(device_address(host), nullptr, &ExampleAllocator::free_block);
  }

 private:
  static void free_block(void*, void* dev) {
    char* host = host_address(dev);
    {
      std::lock_guard<std::mutex> lock(state().mu);
      auto it = state().blocks.find(host);
      if (it == state().blocks.end()) std::abort();  // a block this allocator never gave out
      state().stats.live_bytes -= it->second;
      ++state().stats.frees;
      state().blocks.erase(it);
    }
    std::free(host);
  }
};

class ExampleBackend final : public BackendInterface {
 public:
  Allocator* allocator() override { return &alloc_; }
  void copy_bytes(void* dst, Device dst_device, const void* src, Device src_device,
                  size_t nbytes) override {
    const bool dst_dev = dst_device.type == g_type, src_dev = src_device.type == g_type;
    EMBER_CHECK((dst_dev || dst_device.is_cpu()) && (src_dev || src_device.is_cpu()), RuntimeError,
                "example device: cannot copy from ", src_device, " to ", dst_device);
    if (nbytes == 0) return;
    std::memcpy(dst_dev ? host_address(dst) : dst, src_dev ? host_address(src) : src, nbytes);
    update([&](Stats& s) {
      if (dst_dev && !src_dev) s.bytes_to_device += nbytes;
      if (src_dev && !dst_dev) s.bytes_from_device += nbytes;
    });
  }

 private:
  ExampleAllocator alloc_;
};

BackendInterface& backend() {
  static auto* b = new ExampleBackend();
  return *b;
}

// ---------------------------------------------------------------- device kernels
// Calls f(offsets) for every element of `sizes`, with per-operand offsets in elements.
template <size_t N, typename F>
void for_each_element(IntArrayRef sizes, const std::array<IntArrayRef, N>& strides, F f) {
  const int64_t nd = static_cast<int64_t>(sizes.size());
  const int64_t numel = compute_numel(sizes);
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  std::array<int64_t, N> off{};
  for (int64_t i = 0; i < numel; ++i) {
    f(off);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < sizes[d]) {
        for (size_t k = 0; k < N; ++k) off[k] += strides[k][d];
        break;
      }
      for (size_t k = 0; k < N; ++k) off[k] -= strides[k][d] * (sizes[d] - 1);
      idx[d] = 0;
    }
  }
}

// dst = src for two device tensors of one dtype and shape (src may be broadcast).
void strided_copy(const Tensor& dst, const Tensor& src) {
  const size_t isz = dst.element_size();
  char* d = host_address(dst.data_ptr());
  const char* s = host_address(src.data_ptr());
  for_each_element<2>(dst.sizes(), {dst.strides(), src.strides()}, [&](const std::array<int64_t, 2>& o) {
    std::memcpy(d + o[0] * static_cast<int64_t>(isz), s + o[1] * static_cast<int64_t>(isz), isz);
  });
}

Tensor device_contiguous(const Tensor& t) {
  Tensor out = empty(t.sizes(), TensorOptions(t.dtype()).device(t.device()));
  strided_copy(out, t);
  return out;
}

// A contiguous CPU copy of a device tensor.
Tensor download(const Tensor& t) {
  Tensor src = t.is_contiguous() ? t : device_contiguous(t);
  Tensor host = empty(t.sizes(), t.dtype());
  backend().copy_bytes(host.data_ptr(), kCPU, src.data_ptr(), src.device(), src.nbytes());
  return host;
}

// Writes `host` (contiguous CPU, dst's dtype and shape) into the device tensor dst.
void upload(const Tensor& dst, const Tensor& host) {
  if (dst.is_contiguous()) {
    backend().copy_bytes(dst.data_ptr(), dst.device(), host.data_ptr(), kCPU, dst.nbytes());
    return;
  }
  Tensor tmp = empty(dst.sizes(), TensorOptions(dst.dtype()).device(dst.device()));
  backend().copy_bytes(tmp.data_ptr(), tmp.device(), host.data_ptr(), kCPU, tmp.nbytes());
  strided_copy(dst, tmp);
}

void check_device(const Tensor& t, const char* op) {
  EMBER_CHECK(on_device(t) || t.is_cpu(), RuntimeError, op, "(): the example backend cannot copy ",
              "to or from ", t.device());
}

// copy_ between the device and the CPU or within the device: any dtypes (converted on the
// CPU), a source that broadcasts to self's shape.
Tensor& copy_kernel(Tensor& self, const Tensor& src) {
  EMBER_CHECK(self.defined() && src.defined(), ValueError, "copy_(): undefined tensor");
  check_device(self, "copy_");
  check_device(src, "copy_");
  update([](Stats& s) { ++s.copy_calls; });
  if (self.is_same(src)) return self;
  Tensor s = src.expand(self.sizes());  // RuntimeError when src does not broadcast
  for (int64_t d = 0; d < self.dim(); ++d)
    EMBER_CHECK(!(self.sizes()[d] > 1 && self.strides()[d] == 0), RuntimeError,
                "unsupported operation: more than one element of the written-to tensor refers to a "
                "single memory location. Please clone() the tensor before performing the operation.");
  if (!on_device(self)) {  // device -> CPU; the CPU copy_ converts and broadcasts
    if (self.dtype() == src.dtype() && self.is_contiguous() && src.is_contiguous() &&
        self.sizes().equals(src.sizes())) {
      backend().copy_bytes(self.data_ptr(), kCPU, src.data_ptr(), src.device(), self.nbytes());
      self.bump_version();
      return self;
    }
    return self.copy_(download(src));
  }
  if (self.numel() > 0) {
    if (on_device(src) && src.dtype() == self.dtype()) {
      // Within the device; a source overlapping self is read completely first.
      strided_copy(self, self.is_alias_of(src) ? device_contiguous(s) : s);
    } else if (!on_device(src) && src.dtype() == self.dtype() && src.is_contiguous() &&
               src.sizes().equals(self.sizes())) {
      upload(self, src);
    } else {
      Tensor host = on_device(src) ? download(src) : src;
      Tensor staged = empty(self.sizes(), self.dtype());
      staged.copy_(host);  // dtype conversion and broadcasting, on the CPU
      upload(self, staged);
    }
  }
  self.bump_version();
  return self;
}

// ---------------------------------------------------------------- arithmetic (float32)
BoxedKernel g_cpu_fallback = nullptr;

// Counts, then runs Ember's CPU fallback (installed by register_backend).
void counting_fallback(const OpEntry& op, DispatchKeySet ks, Stack& stack) {
  update([](Stats& s) { ++s.fallback_calls; });
  g_cpu_fallback(op, ks, stack);
}

// Cases the float32 kernels do not cover (other dtypes, CPU scalars, mixed devices) take the
// same path as ops without a kernel.
Tensor run_fallback(const char* op, Stack stack) {
  const OpEntry* entry = Dispatcher::get().find(op);
  EMBER_CHECK(entry != nullptr, RuntimeError, "example backend: op '", op, "' is not defined");
  DispatchKeySet ks(backend_key(g_type));
  for (const IValue& v : stack)
    if (v.is_tensor() && v.tensor().defined()) ks = ks | v.tensor().key_set();
  counting_fallback(*entry, ks, stack);
  return stack[0].tensor();
}

bool float32_on_device(const Tensor& a, const Tensor& b) {
  return on_device(a) && on_device(b) && a.device() == b.device() && a.dtype() == kFloat &&
         b.dtype() == kFloat;
}

DimVector broadcast(IntArrayRef a, IntArrayRef b, const char* op) {
  size_t n = std::max(a.size(), b.size());
  DimVector r(n);
  for (size_t k = 0; k < n; ++k) {
    int64_t x = k < n - a.size() ? 1 : a[k - (n - a.size())];
    int64_t y = k < n - b.size() ? 1 : b[k - (n - b.size())];
    EMBER_CHECK(x == y || x == 1 || y == 1, RuntimeError, op, "(): the size of tensor a (", x,
                ") must match the size of tensor b (", y, ") at non-singleton dimension ", k);
    r[k] = x == 1 ? y : x;
  }
  return r;
}

template <typename F>
Tensor binary_float(const Tensor& a, const Tensor& b, const char* op, F f) {
  DimVector shape = broadcast(a.sizes(), b.sizes(), op);
  Tensor out = empty(shape, TensorOptions(kFloat).device(a.device()));
  Tensor ea = a.expand(shape), eb = b.expand(shape);
  float* o = reinterpret_cast<float*>(host_address(out.data_ptr()));
  const float* pa = reinterpret_cast<const float*>(host_address(ea.data_ptr()));
  const float* pb = reinterpret_cast<const float*>(host_address(eb.data_ptr()));
  for_each_element<3>(shape, {out.strides(), ea.strides(), eb.strides()},
                      [&](const std::array<int64_t, 3>& i) { o[i[0]] = f(pa[i[1]], pb[i[2]]); });
  return out;
}

Tensor add_kernel(const Tensor& a, const Tensor& b, const Scalar& alpha) {
  if (!float32_on_device(a, b) || alpha.is_bool() || alpha.is_complex())
    return run_fallback("add.Tensor", {a, b, alpha});
  update([](Stats& s) { ++s.add_calls; });
  const float al = alpha.to<float>();
  if (al == 1.0f) return binary_float(a, b, "add", [](float x, float y) { return x + y; });
  return binary_float(a, b, "add", [al](float x, float y) { return x + al * y; });
}

Tensor mul_kernel(const Tensor& a, const Tensor& b) {
  if (!float32_on_device(a, b)) return run_fallback("mul.Tensor", {a, b});
  update([](Stats& s) { ++s.mul_calls; });
  return binary_float(a, b, "mul", [](float x, float y) { return x * y; });
}

using CopySig = Tensor&(Tensor&, const Tensor&);
using AddSig = Tensor(const Tensor&, const Tensor&, const Scalar&);
using MulSig = Tensor(const Tensor&, const Tensor&);

int do_register() {
  g_type = register_backend("example", &backend());
  const DispatchKey key = backend_key(g_type);
  Dispatcher& d = Dispatcher::get();
  g_cpu_fallback = d.fallback_kernel(key).boxed;
  d.set_fallback(key, &counting_fallback);
  register_kernel<CopySig, &copy_kernel>("copy_", key);
  register_kernel<AddSig, &add_kernel>("add.Tensor", key);
  register_kernel<MulSig, &mul_kernel>("mul.Tensor", key);
  return static_cast<int>(g_type);
}

}  // namespace

Stats stats() {
  std::lock_guard<std::mutex> lock(state().mu);
  return state().stats;
}

DeviceType device_type() { return static_cast<DeviceType>(register_example_backend()); }

}  // namespace ember_example

extern "C" int register_example_backend(void) {
  static const int type = ember_example::do_register();
  return type;
}

// Loading the library registers the backend; a failure (e.g. the name is taken) is left for
// an explicit register_example_backend() call to report.
namespace {
[[maybe_unused]] const bool g_registered = [] {
  try {
    register_example_backend();
    return true;
  } catch (const ember::Error&) {
    return false;
  }
}();
}  // namespace
