#include "backends/cpu/capability.h"

#include <cstdlib>
#include <cstring>

namespace ember::cpu {

static Capability detect() {
  __builtin_cpu_init();
  Capability c = Capability::Default;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) c = Capability::AVX2;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
    c = Capability::AVX512;
  if (const char* env = std::getenv("EMBER_CPU_CAPABILITY")) {
    Capability want = c;
    if (!std::strcmp(env, "default")) want = Capability::Default;
    else if (!std::strcmp(env, "avx2")) want = Capability::AVX2;
    else if (!std::strcmp(env, "avx512")) want = Capability::AVX512;
    if (want < c) c = want;  // never above what the CPU has
  }
  return c;
}

Capability capability() {
  static const Capability c = detect();
  return c;
}

const char* capability_name(Capability c) {
  switch (c) {
    case Capability::AVX2: return "avx2";
    case Capability::AVX512: return "avx512";
    default: return "default";
  }
}

}  // namespace ember::cpu
