// Random fills from Philox4x32-10 (core/philox.h): uniform, normal (Box-Muller), randint,
// bernoulli, and the inverse-transform samplers exponential, geometric, log-normal, cauchy. The work is cut into tiles of kTile consecutive blocks; Philox runs on a whole
// tile at once with one vector per word (AVX2/AVX-512 intrinsics, or loops the compiler
// vectorizes in the default build), and threads take whole tiles. Every element is computed by the same code whatever the split, so results depend
// only on (seed, offset) and not on the number of threads.
#include <sleef.h>

#include <cmath>
#include <limits>

#include "backends/cpu/kernels/basic_loops.h"
#include "backends/cpu/stubs.h"
#include "core/dtype_dispatch.h"
#include "core/philox.h"

// GCC 12 reports its own AVX-512 intrinsics (_mm512_undefined_* inside the shifts) as
// "may be used uninitialized" once they are inlined here.
#if defined(__AVX512F__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace ember::cpu {
namespace isa_Default {
void random_kernel(void* data, ScalarType dtype, int64_t n, const RandomParams& p);
void bernoulli_tensor_kernel(void* out, ScalarType out_dtype, const void* p, ScalarType p_dtype, int64_t n,
                             uint64_t seed, uint64_t offset);
}
namespace EMBER_ISA_NAMESPACE {
namespace {

constexpr int kTile = 16;                   // Philox blocks per tile
constexpr int kTileWords = 4 * kTile;       // 32-bit words per tile
constexpr int64_t kRandomGrain = 16384;     // elements per thread before threading pays

struct Tile {
  alignas(64) uint32_t w[4][kTile];  // w[l][j]: word l of block j
};

#if defined(__AVX2__) || defined(__AVX512F__)
// One Philox round on a vector of blocks per word. The 32x32->64-bit products of the even and
// odd lanes come from two _mul_epu32; blends put the high and low halves back in lane order.
#if defined(__AVX512F__)
using VecU32 = __m512i;
constexpr int kVecLanes = 16;
inline VecU32 vload(const uint32_t* p) { return _mm512_load_si512(p); }
inline void vstore(uint32_t* p, VecU32 v) { _mm512_store_si512(p, v); }
inline VecU32 vset1(uint32_t x) { return _mm512_set1_epi32(static_cast<int>(x)); }
inline VecU32 vxor(VecU32 a, VecU32 b) { return _mm512_xor_si512(a, b); }
inline void mulhilo(VecU32 a, VecU32 m, VecU32& hi, VecU32& lo) {
  const VecU32 even = _mm512_mul_epu32(a, m);
  const VecU32 odd = _mm512_mul_epu32(_mm512_srli_epi64(a, 32), m);
  hi = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(even, 32), odd);
  lo = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
}
#else
using VecU32 = __m256i;
constexpr int kVecLanes = 8;
inline VecU32 vload(const uint32_t* p) { return _mm256_load_si256(reinterpret_cast<const __m256i*>(p)); }
inline void vstore(uint32_t* p, VecU32 v) { _mm256_store_si256(reinterpret_cast<__m256i*>(p), v); }
inline VecU32 vset1(uint32_t x) { return _mm256_set1_epi32(static_cast<int>(x)); }
inline VecU32 vxor(VecU32 a, VecU32 b) { return _mm256_xor_si256(a, b); }
inline void mulhilo(VecU32 a, VecU32 m, VecU32& hi, VecU32& lo) {
  const VecU32 even = _mm256_mul_epu32(a, m);
  const VecU32 odd = _mm256_mul_epu32(_mm256_srli_epi64(a, 32), m);
  hi = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0xAA);
  lo = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
}
#endif
#endif

// Blocks counter .. counter + kTile - 1 of the stream of `seed`.
inline void philox_tile(uint64_t seed, uint64_t counter, Tile& t) {
  alignas(64) uint32_t c0[kTile], c1[kTile], c2[kTile], c3[kTile];
  for (int j = 0; j < kTile; ++j) {
    const uint64_t c = counter + static_cast<uint64_t>(j);
    c0[j] = static_cast<uint32_t>(c);
    c1[j] = static_cast<uint32_t>(c >> 32);
    c2[j] = 0;
    c3[j] = 0;
  }
  uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
#if defined(__AVX2__) || defined(__AVX512F__)
  const VecU32 m0 = vset1(philox::kM0), m1 = vset1(philox::kM1);
  for (int v = 0; v < kTile; v += kVecLanes) {
    VecU32 x0 = vload(c0 + v), x1 = vload(c1 + v), x2 = vload(c2 + v), x3 = vload(c3 + v);
    uint32_t a = k0, b = k1;
    for (int r = 0; r < philox::kRounds; ++r) {
      VecU32 hi0, lo0, hi1, lo1;
      mulhilo(x0, m0, hi0, lo0);
      mulhilo(x2, m1, hi1, lo1);
      x0 = vxor(vxor(hi1, x1), vset1(a));
      x1 = lo1;
      x2 = vxor(vxor(hi0, x3), vset1(b));
      x3 = lo0;
      a += philox::kW0;
      b += philox::kW1;
    }
    vstore(t.w[0] + v, x0);
    vstore(t.w[1] + v, x1);
    vstore(t.w[2] + v, x2);
    vstore(t.w[3] + v, x3);
  }
#else
  for (int r = 0; r < philox::kRounds; ++r) {
    // Left rolled so the loop vectorizer (not the weaker SLP pass) turns it into SIMD.
#pragma GCC unroll 1
    for (int j = 0; j < kTile; ++j) {
      const uint64_t p0 = static_cast<uint64_t>(philox::kM0) * c0[j];
      const uint64_t p1 = static_cast<uint64_t>(philox::kM1) * c2[j];
      const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c1[j] ^ k0;
      const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c3[j] ^ k1;
      c1[j] = static_cast<uint32_t>(p1);
      c3[j] = static_cast<uint32_t>(p0);
      c0[j] = n0;
      c2[j] = n2;
    }
    k0 += philox::kW0;
    k1 += philox::kW1;
  }
  for (int j = 0; j < kTile; ++j) {
    t.w[0][j] = c0[j];
    t.w[1][j] = c1[j];
    t.w[2][j] = c2[j];
    t.w[3][j] = c3[j];
  }
#endif
}

// Runs fn(tile, first_element, count) for every tile of an n-element call with `vpb` values
// per block, splitting whole tiles across threads.
template <typename F>
void for_each_tile(int64_t n, int vpb, uint64_t seed, uint64_t offset, const F& fn) {
  const int64_t per_tile = static_cast<int64_t>(vpb) * kTile;
  const int64_t ntiles = (n + per_tile - 1) / per_tile;
  auto run = [&](int64_t t0, int64_t t1) {
    Tile tile;
    for (int64_t t = t0; t < t1; ++t) {
      philox_tile(seed, offset + static_cast<uint64_t>(t) * kTile, tile);
      const int64_t first = t * per_tile;
      fn(tile, first, std::min(per_tile, n - first));
    }
  };
  const int nt = threads_for(n, kRandomGrain);
  if (nt <= 1) {
    run(0, ntiles);
    return;
  }
#pragma omp parallel num_threads(nt)
  {
    const int64_t T = omp_get_num_threads(), th = omp_get_thread_num();
    const int64_t chunk = (ntiles + T - 1) / T;
    const int64_t b = std::min(ntiles, th * chunk), e = std::min(ntiles, b + chunk);
    if (b < e) run(b, e);
  }
}

// ---- uniform [0, 1) values of a tile, in element order
// float: 24 random bits per word, four per block.
inline void uniform_tile(const Tile& t, float* u) {
  for (int l = 0; l < 4; ++l)
    for (int j = 0; j < kTile; ++j) u[4 * j + l] = philox::to_float01(t.w[l][j]);
}
// double: 53 random bits from two words, two per block.
inline void uniform_tile(const Tile& t, double* u) {
  for (int m = 0; m < 2; ++m)
    for (int j = 0; j < kTile; ++j) u[2 * j + m] = philox::to_double01(t.w[2 * m][j], t.w[2 * m + 1][j]);
}

// ---- log and sincos(pi x) over arrays whose length is a multiple of 16 (SLEEF, per ISA; the
// 3.5-ulp versions: plenty for random numbers, and faster)
#if defined(__AVX512F__)
inline void vlog(float* x, int n) {
  for (int i = 0; i < n; i += 16) _mm512_storeu_ps(x + i, Sleef_logf16_u35avx512f(_mm512_loadu_ps(x + i)));
}
inline void vlog(double* x, int n) {
  for (int i = 0; i < n; i += 8) _mm512_storeu_pd(x + i, Sleef_logd8_u35avx512f(_mm512_loadu_pd(x + i)));
}
inline void vsincospi(const float* x, float* s, float* c, int n) {
  for (int i = 0; i < n; i += 16) {
    Sleef___m512_2 r = Sleef_sincospif16_u35avx512f(_mm512_loadu_ps(x + i));
    _mm512_storeu_ps(s + i, r.x);
    _mm512_storeu_ps(c + i, r.y);
  }
}
inline void vsincospi(const double* x, double* s, double* c, int n) {
  for (int i = 0; i < n; i += 8) {
    Sleef___m512d_2 r = Sleef_sincospid8_u35avx512f(_mm512_loadu_pd(x + i));
    _mm512_storeu_pd(s + i, r.x);
    _mm512_storeu_pd(c + i, r.y);
  }
}
#elif defined(__AVX2__)
inline void vlog(float* x, int n) {
  for (int i = 0; i < n; i += 8) _mm256_storeu_ps(x + i, Sleef_logf8_u35avx2(_mm256_loadu_ps(x + i)));
}
inline void vlog(double* x, int n) {
  for (int i = 0; i < n; i += 4) _mm256_storeu_pd(x + i, Sleef_logd4_u35avx2(_mm256_loadu_pd(x + i)));
}
inline void vsincospi(const float* x, float* s, float* c, int n) {
  for (int i = 0; i < n; i += 8) {
    Sleef___m256_2 r = Sleef_sincospif8_u35avx2(_mm256_loadu_ps(x + i));
    _mm256_storeu_ps(s + i, r.x);
    _mm256_storeu_ps(c + i, r.y);
  }
}
inline void vsincospi(const double* x, double* s, double* c, int n) {
  for (int i = 0; i < n; i += 4) {
    Sleef___m256d_2 r = Sleef_sincospid4_u35avx2(_mm256_loadu_pd(x + i));
    _mm256_storeu_pd(s + i, r.x);
    _mm256_storeu_pd(c + i, r.y);
  }
}
#else  // SSE2, part of every x86-64
inline void vlog(float* x, int n) {
  for (int i = 0; i < n; i += 4) _mm_storeu_ps(x + i, Sleef_logf4_u35sse2(_mm_loadu_ps(x + i)));
}
inline void vlog(double* x, int n) {
  for (int i = 0; i < n; i += 2) _mm_storeu_pd(x + i, Sleef_logd2_u35sse2(_mm_loadu_pd(x + i)));
}
inline void vsincospi(const float* x, float* s, float* c, int n) {
  for (int i = 0; i < n; i += 4) {
    Sleef___m128_2 r = Sleef_sincospif4_u35sse2(_mm_loadu_ps(x + i));
    _mm_storeu_ps(s + i, r.x);
    _mm_storeu_ps(c + i, r.y);
  }
}
inline void vsincospi(const double* x, double* s, double* c, int n) {
  for (int i = 0; i < n; i += 2) {
    Sleef___m128d_2 r = Sleef_sincospid2_u35sse2(_mm_loadu_pd(x + i));
    _mm_storeu_pd(s + i, r.x);
    _mm_storeu_pd(c + i, r.y);
  }
}
#endif

// Standard normals of a tile by Box-Muller, in element order: each pair of uniforms (u1, u2)
// gives r cos(2 pi u2) and r sin(2 pi u2), r = sqrt(-2 log u1) with u1 in (0, 1].
inline void normal_tile(const Tile& t, float* z) {
  // Pair m of block j is words (2m, 2m+1) and gives elements 4j + 2m and 4j + 2m + 1. The math
  // runs on one contiguous array per m; only the final store interleaves.
  constexpr int P = kTileWords / 2;
  alignas(64) float u1[P], a[P], s[P], c[P];  // index m * kTile + j
  for (int m = 0; m < 2; ++m)
    for (int j = 0; j < kTile; ++j) {
      u1[m * kTile + j] = 1.0f - philox::to_float01(t.w[2 * m][j]);
      a[m * kTile + j] = 2.0f * philox::to_float01(t.w[2 * m + 1][j]);
    }
  vlog(u1, P);
  vsincospi(a, s, c, P);
  for (int p = 0; p < P; ++p) {
    const float r = std::sqrt(-2.0f * u1[p]);
    c[p] *= r;
    s[p] *= r;
  }
  for (int j = 0; j < kTile; ++j) {
    z[4 * j] = c[j];
    z[4 * j + 1] = s[j];
    z[4 * j + 2] = c[kTile + j];
    z[4 * j + 3] = s[kTile + j];
  }
}
inline void normal_tile(const Tile& t, double* z) {
  constexpr int P = kTile;  // one pair per block: words (0, 1) and (2, 3)
  alignas(64) double u1[P], a[P], s[P], c[P];
  for (int j = 0; j < kTile; ++j) {
    u1[j] = 1.0 - philox::to_double01(t.w[0][j], t.w[1][j]);
    a[j] = 2.0 * philox::to_double01(t.w[2][j], t.w[3][j]);
  }
  vlog(u1, P);
  vsincospi(a, s, c, P);
  for (int p = 0; p < P; ++p) {
    const double r = std::sqrt(-2.0 * u1[p]);
    z[2 * p] = r * c[p];
    z[2 * p + 1] = r * s[p];
  }
}

// Uniform and normal values per block: 53-bit doubles take two words.
template <typename M>
constexpr int kPerBlock = std::is_same_v<M, double> ? 2 : 4;

// The largest value of T strictly below x (for keeping uniform results below `to`).
template <typename T>
T below(double x) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    T t = static_cast<T>(x);
    return static_cast<double>(t) < x ? t : std::nextafter(t, -std::numeric_limits<T>::infinity());
  } else {  // Half, BFloat16: step the bit pattern
    T t = T(static_cast<float>(x));
    if (static_cast<double>(static_cast<float>(t)) < x) return t;
    const uint16_t b = t.bits;
    if ((b & 0x7fffu) == 0) return T::from_bits(0x8001u);  // +-0: the smallest negative
    return T::from_bits(static_cast<uint16_t>((b & 0x8000u) ? b + 1 : b - 1));
  }
}

template <typename T>
void uniform_fill(T* out, int64_t n, const RandomParams& p) {
  using M = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const M from = static_cast<M>(p.a), span = static_cast<M>(p.b - p.a);
  const T hi = p.a < p.b ? below<T>(p.b) : T(static_cast<M>(p.a));
  const M hi_m = static_cast<M>(hi);
  for_each_tile(n, kPerBlock<M>, p.seed, p.offset, [&](const Tile& t, int64_t first, int64_t cnt) {
    alignas(64) M u[kPerBlock<M> * kTile];
    uniform_tile(t, u);
    T* o = out + first;
    if constexpr (std::is_same_v<T, M>) {
      for (int64_t i = 0; i < cnt; ++i) o[i] = std::min(from + span * u[i], hi_m);  // rounding must not reach `to`
    } else {
      for (int64_t i = 0; i < cnt; ++i) {
        const T v = static_cast<T>(from + span * u[i]);
        o[i] = static_cast<M>(v) < hi_m ? v : hi;
      }
    }
  });
}

template <typename T>
void normal_fill(T* out, int64_t n, const RandomParams& p) {
  using M = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const M mean = static_cast<M>(p.a), sd = static_cast<M>(p.b);
  for_each_tile(n, kPerBlock<M>, p.seed, p.offset, [&](const Tile& t, int64_t first, int64_t cnt) {
    alignas(64) M z[kPerBlock<M> * kTile];
    normal_tile(t, z);
    T* o = out + first;
    for (int64_t i = 0; i < cnt; ++i) o[i] = static_cast<T>(mean + sd * z[i]);
  });
}

// low + r with r uniform in [0, range): Lemire's multiply-shift on 32 or 64 random bits.
template <typename T>
void randint_fill(T* out, int64_t n, const RandomParams& p) {
  const uint64_t low = static_cast<uint64_t>(p.low), range = p.range;
  auto store = [](T* o, uint64_t v) {
    if constexpr (std::is_same_v<T, bool>) *o = v != 0;
    else *o = static_cast<T>(static_cast<int64_t>(v));
  };
  if (range != 0 && range <= (uint64_t(1) << 32)) {
    for_each_tile(n, 4, p.seed, p.offset, [&](const Tile& t, int64_t first, int64_t cnt) {
      alignas(64) uint64_t r[kTileWords];
      for (int l = 0; l < 4; ++l)
        for (int j = 0; j < kTile; ++j) r[4 * j + l] = (static_cast<uint64_t>(t.w[l][j]) * range) >> 32;
      for (int64_t i = 0; i < cnt; ++i) store(out + first + i, low + r[i]);
    });
  } else {
    for_each_tile(n, 2, p.seed, p.offset, [&](const Tile& t, int64_t first, int64_t cnt) {
      for (int64_t i = 0; i < cnt; ++i) {
        const int j = static_cast<int>(i / 2), m = static_cast<int>(i % 2);
        const uint64_t x = (static_cast<uint64_t>(t.w[2 * m][j]) << 32) | t.w[2 * m + 1][j];
        // range 0 is the full 2^64 (random_ from the lowest int64 up).
        const auto r = range == 0 ? x : static_cast<uint64_t>((static_cast<unsigned __int128>(x) * range) >> 64);
        store(out + first + i, low + r);
      }
    });
  }
}

// 1 with probability p: a 32-bit word below p * 2^32 (exact in double).
template <typename T>
void bernoulli_fill(T* out, int64_t n, const RandomParams& p) {
  const double threshold = p.a * 4294967296.0;
  for_each_tile(n, 4, p.seed, p.offset, [&](const Tile& t, int64_t first, int64_t cnt) {
    alignas(64) uint8_t hit[kTileWords];
    for (int l = 0; l < 4; ++l)
      for (int j = 0; j < kTile; ++j) hit[4 * j + l] = static_cast<double>(t.w[l][j]) < threshold;
    for (int64_t i = 0; i < cnt; ++i) out[first + i] = convert<T>(static_cast<int>(hit[i]));
  });
}

// Exponential(rate): -log(1 - u) / rate, u in [0, 1); rate 0 gives +inf as in PyTorch.
template <typename T>
void exponential_fill(T* out, int64_t n, const RandomParams& p) {
  using M = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const M scale = p.a == 0 ? M(0) : static_cast<M>(1.0 / p.a);
  const bool infinite = p.a == 0;
  for_each_tile(n, kPerBlock<M>, p.seed, p.offset, [&](const Tile& t, int64_t first, int64_t cnt) {
    alignas(64) M v[kPerBlock<M> * kTile];
    uniform_tile(t, v);
    for (int i = 0; i < kPerBlock<M> * kTile; ++i) v[i] = M(1) - v[i];  // (0, 1]: log stays finite
    vlog(v, kPerBlock<M> * kTile);
    T* o = out + first;
    for (int64_t i = 0; i < cnt; ++i)
      o[i] = static_cast<T>(infinite ? std::numeric_limits<M>::infinity() : -v[i] * scale);
  });
}

// Geometric(p) on {1, 2, ...}: floor(log(v) / log(1 - p)) + 1 with v uniform in (0, 1], in
// double for every dtype. Integer results saturate at the dtype's maximum.
template <typename T>
void geometric_fill(T* out, int64_t n, const RandomParams& p) {
  const double inv_log_q = 1.0 / std::log1p(-p.a);
  for_each_tile(n, 2, p.seed, p.offset, [&](const Tile& t, int64_t first, int64_t cnt) {
    alignas(64) double v[2 * kTile];
    uniform_tile(t, v);
    for (int i = 0; i < 2 * kTile; ++i) v[i] = 1.0 - v[i];
    vlog(v, 2 * kTile);
    T* o = out + first;
    for (int64_t i = 0; i < cnt; ++i) {
      const double x = std::floor(v[i] * inv_log_q) + 1.0;
      if constexpr (std::is_floating_point_v<T> || is_reduced_float_v<T>) {
        o[i] = convert<T>(x);
      } else {
        constexpr double kMax = static_cast<double>(std::numeric_limits<T>::max());
        o[i] = x >= kMax ? std::numeric_limits<T>::max() : static_cast<T>(x);
      }
    }
  });
}

// Log-normal: exp of a normal of mean a and std b.
template <typename T>
void log_normal_fill(T* out, int64_t n, const RandomParams& p) {
  using M = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const M mean = static_cast<M>(p.a), sd = static_cast<M>(p.b);
  for_each_tile(n, kPerBlock<M>, p.seed, p.offset, [&](const Tile& t, int64_t first, int64_t cnt) {
    alignas(64) M z[kPerBlock<M> * kTile];
    normal_tile(t, z);
    T* o = out + first;
    for (int64_t i = 0; i < cnt; ++i) o[i] = static_cast<T>(std::exp(mean + sd * z[i]));
  });
}

// Cauchy: median + scale * tan(pi (u - 1/2)).
template <typename T>
void cauchy_fill(T* out, int64_t n, const RandomParams& p) {
  using M = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const M median = static_cast<M>(p.a), scale = static_cast<M>(p.b);
  const M pi = static_cast<M>(3.14159265358979323846);
  for_each_tile(n, kPerBlock<M>, p.seed, p.offset, [&](const Tile& t, int64_t first, int64_t cnt) {
    alignas(64) M u[kPerBlock<M> * kTile];
    uniform_tile(t, u);
    T* o = out + first;
    for (int64_t i = 0; i < cnt; ++i) o[i] = static_cast<T>(median + scale * std::tan(pi * (u[i] - M(0.5))));
  });
}

template <typename T>
void random_typed(void* data, int64_t n, const RandomParams& p) {
  T* out = static_cast<T*>(data);
  switch (p.dist) {
    case RandomDist::Uniform:
    case RandomDist::Normal:
      if constexpr (std::is_floating_point_v<T> || is_reduced_float_v<T>) {
        return p.dist == RandomDist::Uniform ? uniform_fill(out, n, p) : normal_fill(out, n, p);
      }
      break;
    case RandomDist::Randint:
      if constexpr (!is_complex_v<T>) return randint_fill(out, n, p);
      break;
    case RandomDist::Bernoulli:
      if constexpr (!is_complex_v<T>) return bernoulli_fill(out, n, p);
      break;
    case RandomDist::Exponential:
    case RandomDist::LogNormal:
    case RandomDist::Cauchy:
      if constexpr (std::is_floating_point_v<T> || is_reduced_float_v<T>) {
        if (p.dist == RandomDist::Exponential) return exponential_fill(out, n, p);
        if (p.dist == RandomDist::LogNormal) return log_normal_fill(out, n, p);
        return cauchy_fill(out, n, p);
      }
      break;
    case RandomDist::Geometric:
      if constexpr (!is_complex_v<T> && !std::is_same_v<T, bool>) return geometric_fill(out, n, p);
      break;
  }
  EMBER_FAIL(RuntimeError, "random kernel: unsupported dtype ", scalar_type_of<T>);  // fronts check first
}

template <typename T, typename P>
void bernoulli_tensor_typed(T* out, const P* prob, int64_t n, uint64_t seed, uint64_t offset) {
  for_each_tile(n, 4, seed, offset, [&](const Tile& t, int64_t first, int64_t cnt) {
    alignas(64) double w[kTileWords];
    for (int l = 0; l < 4; ++l)
      for (int j = 0; j < kTile; ++j) w[4 * j + l] = static_cast<double>(t.w[l][j]);
    for (int64_t i = 0; i < cnt; ++i) {
      double pv;
      if constexpr (std::is_same_v<P, double>) pv = prob[first + i];
      else pv = static_cast<float>(prob[first + i]);
      const double threshold = pv * 4294967296.0;
      out[first + i] = convert<T>(static_cast<int>(w[i] < threshold));
    }
  });
}

}  // namespace

void random_kernel(void* data, ScalarType dtype, int64_t n, const RandomParams& p) {
  EMBER_DISPATCH_KERNEL(dtype, "random", random_kernel(data, dtype, n, p),
                        [&] { random_typed<scalar_t>(data, n, p); });
}

void bernoulli_tensor_kernel(void* out, ScalarType out_dtype, const void* p, ScalarType p_dtype, int64_t n,
                             uint64_t seed, uint64_t offset) {
  EMBER_DISPATCH_KERNEL(out_dtype, "bernoulli", bernoulli_tensor_kernel(out, out_dtype, p, p_dtype, n, seed, offset), [&] {
    using out_t = scalar_t;
    if constexpr (is_complex_v<out_t>) {
      EMBER_FAIL(RuntimeError, "bernoulli: complex output");  // the front checks first
    } else {
      switch (p_dtype) {
        case kFloat: return bernoulli_tensor_typed(static_cast<out_t*>(out), static_cast<const float*>(p), n, seed, offset);
        case kDouble: return bernoulli_tensor_typed(static_cast<out_t*>(out), static_cast<const double*>(p), n, seed, offset);
        case kBFloat16: return bernoulli_tensor_typed(static_cast<out_t*>(out), static_cast<const BFloat16*>(p), n, seed, offset);
        default: EMBER_FAIL(RuntimeError, "bernoulli: probabilities of dtype ", p_dtype);
      }
    }
  });
}

EMBER_REGISTER_STUB(random_stub, &random_kernel);
EMBER_REGISTER_STUB(bernoulli_tensor_stub, &bernoulli_tensor_kernel);
}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
