// Inner loops shared by the per-ISA kernels. Each loop specializes the common stride
// patterns (all contiguous; one operand a broadcast scalar) so that the compiler vectorizes
// them for the ISA this file is compiled for, and falls back to a strided loop.
#pragma once

#include <cstdint>

#include "backends/cpu/capability.h"
#include "backends/cpu/loops.h"
#include "core/convert.h"

namespace ember::cpu {
namespace EMBER_ISA_NAMESPACE {

template <typename T>
inline T load(const char* p) { return *reinterpret_cast<const T*>(p); }

// out[i] = op(a[i])
template <typename out_t, typename in_t, typename Op>
inline void unary_loop(char** data, const int64_t* s, int64_t n, const Op& op) {
  char* o = data[0];
  const char* a = data[1];
  if (s[0] == sizeof(out_t) && s[1] == sizeof(in_t)) {
    auto* __restrict out = reinterpret_cast<out_t*>(o);
    const auto* __restrict in = reinterpret_cast<const in_t*>(a);
    for (int64_t i = 0; i < n; ++i) out[i] = op(in[i]);
  } else if (s[0] == sizeof(out_t) && s[1] == 0) {
    auto* __restrict out = reinterpret_cast<out_t*>(o);
    out_t v = op(load<in_t>(a));
    for (int64_t i = 0; i < n; ++i) out[i] = v;
  } else {
    for (int64_t i = 0; i < n; ++i)
      *reinterpret_cast<out_t*>(o + i * s[0]) = op(load<in_t>(a + i * s[1]));
  }
}

// out[i] = op(a[i], b[i])
template <typename out_t, typename a_t, typename b_t, typename Op>
inline void binary_loop(char** data, const int64_t* s, int64_t n, const Op& op) {
  char* o = data[0];
  const char* a = data[1];
  const char* b = data[2];
  if (s[0] == sizeof(out_t)) {
    auto* __restrict out = reinterpret_cast<out_t*>(o);
    if (s[1] == sizeof(a_t) && s[2] == sizeof(b_t)) {
      const auto* __restrict x = reinterpret_cast<const a_t*>(a);
      const auto* __restrict y = reinterpret_cast<const b_t*>(b);
      for (int64_t i = 0; i < n; ++i) out[i] = op(x[i], y[i]);
      return;
    }
    if (s[1] == sizeof(a_t) && s[2] == 0) {
      const auto* __restrict x = reinterpret_cast<const a_t*>(a);
      const b_t y = load<b_t>(b);
      for (int64_t i = 0; i < n; ++i) out[i] = op(x[i], y);
      return;
    }
    if (s[1] == 0 && s[2] == sizeof(b_t)) {
      const a_t x = load<a_t>(a);
      const auto* __restrict y = reinterpret_cast<const b_t*>(b);
      for (int64_t i = 0; i < n; ++i) out[i] = op(x, y[i]);
      return;
    }
  }
  for (int64_t i = 0; i < n; ++i)
    *reinterpret_cast<out_t*>(o + i * s[0]) = op(load<a_t>(a + i * s[1]), load<b_t>(b + i * s[2]));
}

// out[i] = op(a[i], b[i], c[i])
template <typename out_t, typename a_t, typename b_t, typename c_t, typename Op>
inline void ternary_loop(char** data, const int64_t* s, int64_t n, const Op& op) {
  if (s[0] == sizeof(out_t) && s[1] == sizeof(a_t) && s[2] == sizeof(b_t) && s[3] == sizeof(c_t)) {
    auto* __restrict out = reinterpret_cast<out_t*>(data[0]);
    const auto* __restrict x = reinterpret_cast<const a_t*>(data[1]);
    const auto* __restrict y = reinterpret_cast<const b_t*>(data[2]);
    const auto* __restrict z = reinterpret_cast<const c_t*>(data[3]);
    for (int64_t i = 0; i < n; ++i) out[i] = op(x[i], y[i], z[i]);
    return;
  }
  for (int64_t i = 0; i < n; ++i)
    *reinterpret_cast<out_t*>(data[0] + i * s[0]) =
        op(load<a_t>(data[1] + i * s[1]), load<b_t>(data[2] + i * s[2]), load<c_t>(data[3] + i * s[3]));
}

}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
