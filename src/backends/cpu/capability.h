// Run-time selection of the SIMD instruction set. Kernel sources under kernels/ are
// compiled once per capability (CMake adds -DEMBER_ISA=... and the matching -m flags), each
// into its own namespace, and register themselves into Stubs; a call picks the best
// registered version the CPU supports.
#pragma once

#include <cstdint>

namespace ember::cpu {

enum class Capability : int { Default = 0, AVX2 = 1, AVX512 = 2 };
constexpr int kNumCapabilities = 3;

// Detected once; EMBER_CPU_CAPABILITY=default|avx2|avx512 caps it (for tests and comparisons).
Capability capability();
const char* capability_name(Capability c);

// A kernel slot per capability. Constant-initialized, so registration at static-init time
// is safe whatever the order of translation units.
template <typename Fn>
struct Stub {
  Fn table[kNumCapabilities] = {};
  Fn get() const {
    for (int c = static_cast<int>(capability()); c >= 0; --c)
      if (table[c]) return table[c];
    return nullptr;
  }
  template <typename... Args>
  void operator()(Args&&... args) const { get()(static_cast<Args&&>(args)...); }
};

struct StubRegistration {
  template <typename Fn>
  StubRegistration(Stub<Fn>& stub, int isa, Fn fn) { stub.table[isa] = fn; }
};

}  // namespace ember::cpu

// Inside kernels/*.cpp: EMBER_ISA_NAMESPACE wraps definitions, EMBER_REGISTER_STUB fills a slot.
#ifdef EMBER_ISA
#define EMBER_ISA_CAT2(a, b) a##b
#define EMBER_ISA_CAT(a, b) EMBER_ISA_CAT2(a, b)
#define EMBER_ISA_NAMESPACE EMBER_ISA_CAT(isa_, EMBER_ISA)
#define EMBER_REGISTER_STUB(stub, fn)                                                          \
  static ::ember::cpu::StubRegistration EMBER_ISA_CAT(stub##_reg_, __LINE__)(                  \
      stub, static_cast<int>(::ember::cpu::Capability::EMBER_ISA), fn)
#endif

// Dtype dispatch inside a kernel file. The default build instantiates every dtype; the AVX
// builds only those where wide vectors pay (float, double, int32, int64) and hand the rest
// to the default build of the same kernel, which keeps the build fast.
#ifdef EMBER_ISA
#include "core/dtype_dispatch.h"
#if EMBER_ISA_DEFAULT
#define EMBER_DISPATCH_KERNEL(dtype, name, default_call, ...) EMBER_DISPATCH_ALL(dtype, name, __VA_ARGS__)
#else
#define EMBER_DISPATCH_KERNEL(dtype, name, default_call, ...)   \
  [&] {                                                         \
    switch (dtype) {                                            \
      EMBER_DTYPE_CASE(::ember::kFloat, float, __VA_ARGS__)     \
      EMBER_DTYPE_CASE(::ember::kDouble, double, __VA_ARGS__)   \
      EMBER_DTYPE_CASE(::ember::kInt32, int32_t, __VA_ARGS__)   \
      EMBER_DTYPE_CASE(::ember::kInt64, int64_t, __VA_ARGS__)   \
      default: return ::ember::cpu::isa_Default::default_call;  \
    }                                                           \
  }()
#endif
#endif
