// Helpers of the row-wise kernels (softmax, norms): vectors of the compute type (float for
// 16-bit types, else the type itself) loaded from and stored to any floating storage type,
// with zero-padded partial vectors for the tails of rows.
#pragma once

#include <algorithm>
#include <type_traits>

#include "backends/cpu/kernels/vec_math.h"
#include "core/convert.h"

namespace ember::cpu {
namespace EMBER_ISA_NAMESPACE {
namespace vec_rows {

template <typename S> struct Compute { using type = float; };
template <> struct Compute<double> { using type = double; };

// W consecutive elements of storage type S as a vector of the compute type, and back.
template <typename S, typename C = typename Compute<S>::type>
inline vec::Vec<C> vload(const S* p) {
  if constexpr (std::is_same_v<S, C>) {
    return vec::load<vec::Vec<C>>(p);
  } else if constexpr (std::is_same_v<S, BFloat16>) {
    return vec::bf16_to_float(vec::load<vec::vh>(p));
  } else {
    C tmp[vec::width<C>];
    for (int i = 0; i < vec::width<C>; ++i) tmp[i] = convert<C>(p[i]);
    return vec::load<vec::Vec<C>>(tmp);
  }
}
template <typename S, typename C>
inline void vstore(S* p, vec::Vec<C> v) {
  if constexpr (std::is_same_v<S, C>) {
    vec::store(p, v);
  } else if constexpr (std::is_same_v<S, BFloat16>) {
    vec::store(p, vec::float_to_bf16(v));
  } else {
    C tmp[vec::width<C>];
    vec::store(tmp, v);
    for (int i = 0; i < vec::width<C>; ++i) p[i] = convert<S>(tmp[i]);
  }
}

template <typename V>
inline V vmax(V a, V b) { return a > b ? a : b; }

template <typename C, typename V>
inline C hsum(V v) {
  C s = 0;
  for (int i = 0; i < vec::width<C>; ++i) s += v[i];
  return s;
}
template <typename C, typename V>
inline C hmax(V v) {
  C m = v[0];
  for (int i = 1; i < vec::width<C>; ++i) m = std::max(m, v[i]);
  return m;
}

// Runs f(offset, count) over n elements in steps of a vector (count < W only for the tail).
template <typename S, typename F>
inline void for_vectors(int64_t n, const F& f) {
  using C = typename Compute<S>::type;
  constexpr int W = vec::width<C>;
  int64_t i = 0;
  for (; i + W <= n; i += W) f(i, W);
  if (i < n) f(i, static_cast<int>(n - i));
}

// Loads `count` elements (count <= W) from p into a vector whose other lanes are `pad`.
template <typename S, typename C = typename Compute<S>::type>
inline vec::Vec<C> vload_part(const S* p, int count, C pad) {
  constexpr int W = vec::width<C>;
  if (count == W) return vload<S>(p);
  C tmp[W];
  for (int i = 0; i < W; ++i) tmp[i] = i < count ? convert<C>(p[i]) : pad;
  return vec::load<vec::Vec<C>>(tmp);
}
template <typename S, typename C>
inline void vstore_part(S* p, vec::Vec<C> v, int count) {
  constexpr int W = vec::width<C>;
  if (count == W) return vstore<S, C>(p, v);
  C tmp[W];
  vec::store(tmp, v);
  for (int i = 0; i < count; ++i) p[i] = convert<S>(tmp[i]);
}

}  // namespace vec_rows
}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
