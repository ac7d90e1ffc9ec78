// Vectors of this build's width (GCC vector extensions) and the math on them that the
// pointwise kernels share.
//
// The float functions written out here (exp, log, tanh, sigmoid, erf, erfc, gelu) are the
// hot ones of neural networks; each is a short branch-free polynomial whose error stays
// within 2 ulp over the whole float range (tests/cpp/test_pointwise_accuracy.cpp checks
// them exhaustively against double precision), several times cheaper than SLEEF's general
// 1-ulp functions. Everything else, and all double math, comes from SLEEF at this build's
// width. The 16-bit float types convert to and from float in registers.
#pragma once

#include <immintrin.h>
#include <sleef.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "backends/cpu/capability.h"

namespace ember::cpu {
namespace EMBER_ISA_NAMESPACE {
namespace vec {

#if defined(__AVX512F__)
constexpr int kBytes = 64;
using NativeF = __m512;
using NativeD = __m512d;
#define EMBER_SLEEF_F(fn, acc) Sleef_##fn##f16_##acc##avx512f
#define EMBER_SLEEF_D(fn, acc) Sleef_##fn##d8_##acc##avx512f
#elif defined(__AVX2__)
constexpr int kBytes = 32;
using NativeF = __m256;
using NativeD = __m256d;
#define EMBER_SLEEF_F(fn, acc) Sleef_##fn##f8_##acc##avx2
#define EMBER_SLEEF_D(fn, acc) Sleef_##fn##d4_##acc##avx2
#else
constexpr int kBytes = 16;
using NativeF = __m128;
using NativeD = __m128d;
#define EMBER_SLEEF_F(fn, acc) Sleef_##fn##f4_##acc##sse2
#define EMBER_SLEEF_D(fn, acc) Sleef_##fn##d2_##acc##sse2
#endif

typedef float vf __attribute__((vector_size(kBytes)));
typedef double vd __attribute__((vector_size(kBytes)));
typedef int32_t vi __attribute__((vector_size(kBytes)));
typedef int64_t vl __attribute__((vector_size(kBytes)));
typedef uint32_t vu __attribute__((vector_size(kBytes)));
// Half-width integer vectors: the 16-bit storage of one float vector.
typedef uint16_t vh __attribute__((vector_size(kBytes / 2)));

template <typename T> struct Traits;
template <> struct Traits<float> { using V = vf; using I = vi; static constexpr int N = kBytes / 4; };
template <> struct Traits<double> { using V = vd; using I = vl; static constexpr int N = kBytes / 8; };
template <typename T> using Vec = typename Traits<T>::V;
template <typename T> constexpr int width = Traits<T>::N;

template <typename V>
inline V load(const void* p) {
  V v;
  std::memcpy(&v, p, sizeof(V));
  return v;
}
template <typename V>
inline void store(void* p, V v) { std::memcpy(p, &v, sizeof(V)); }
template <typename T>
inline Vec<T> splat(T x) { return Vec<T>{} + x; }

// Non-temporal store of one vector; p must be aligned to the vector size.
inline void stream(void* p, vf v) {
#if defined(__AVX512F__)
  _mm512_stream_ps(static_cast<float*>(p), (__m512)v);
#elif defined(__AVX2__)
  _mm256_stream_ps(static_cast<float*>(p), (__m256)v);
#else
  _mm_stream_ps(static_cast<float*>(p), (__m128)v);
#endif
}
inline void stream(void* p, vd v) { stream(p, (vf)v); }

inline vf fma(vf a, vf b, vf c) {
#if defined(__AVX512F__)
  return (vf)_mm512_fmadd_ps((__m512)a, (__m512)b, (__m512)c);
#elif defined(__FMA__)
  return (vf)_mm256_fmadd_ps((__m256)a, (__m256)b, (__m256)c);
#else
  return a * b + c;
#endif
}
inline vd fma(vd a, vd b, vd c) {
#if defined(__AVX512F__)
  return (vd)_mm512_fmadd_pd((__m512d)a, (__m512d)b, (__m512d)c);
#elif defined(__FMA__)
  return (vd)_mm256_fmadd_pd((__m256d)a, (__m256d)b, (__m256d)c);
#else
  return a * b + c;
#endif
}

inline vf sqrt(vf x) {
#if defined(__AVX512F__)
  return (vf)_mm512_maskz_sqrt_ps(__mmask16(0xffff), (__m512)x);  // maskz: GCC 12 warns on the plain form
#elif defined(__AVX2__)
  return (vf)_mm256_sqrt_ps((__m256)x);
#else
  return (vf)_mm_sqrt_ps((__m128)x);
#endif
}
inline vd sqrt(vd x) {
#if defined(__AVX512F__)
  return (vd)_mm512_maskz_sqrt_pd(__mmask8(0xff), (__m512d)x);
#elif defined(__AVX2__)
  return (vd)_mm256_sqrt_pd((__m256d)x);
#else
  return (vd)_mm_sqrt_pd((__m128d)x);
#endif
}

// The element type of a vector.
template <typename V>
using elem_t = std::remove_cv_t<std::remove_reference_t<decltype(std::declval<V>()[0])>>;

inline vi as_int(vf v) { return (vi)v; }
inline vf as_float(vi v) { return (vf)v; }
inline vf abs(vf x) { return as_float(as_int(x) & 0x7fffffff); }
// x with the sign of s
inline vf copysign(vf x, vf s) { return as_float((as_int(x) & 0x7fffffff) | (as_int(s) & int32_t(0x80000000))); }
// Round to nearest even, for |x| < 2^22.
inline vf round_small(vf x) {
  const vf magic = splat(0x1.8p23f);
  return (x + magic) - magic;
}
// 2^n for integral n in [-126, 127] (as floats), through the exponent field.
inline vf pow2i(vf n) { return as_float((__builtin_convertvector(n, vi) + 127) << 23); }

// ---------------------------------------------------------------- exp, log
// True when every lane of a comparison mask is set.
inline bool all_lanes(vi m) {
#if defined(__AVX512F__)
  return _mm512_test_epi32_mask((__m512i)m, (__m512i)m) == 0xffff;
#elif defined(__AVX2__)
  return _mm256_movemask_ps((__m256)m) == 0xff;
#else
  return _mm_movemask_ps((__m128)m) == 0xf;
#endif
}

// e^(a + b), where b may be 0 or a small correction to a large exact a (erfc passes -t^2 in
// two parts): a + b = n ln2 + r with |r| <= ln2/2 (ln2 split in two so that a - n ln2_hi is
// exact) and e^r = 1 + r + r^2 P(r) with a degree-4 minimax P (Estrin's scheme: a short
// dependency chain for the callers whose own chains are long). 2^n goes straight into the
// exponent field; vectors with a lane whose result is not a normal float (or NaN) take the
// careful path, which scales in two halves so that subnormals are rounded once and gives
// inf, 0 and NaN where they belong.
template <bool kTwoParts>
inline vf exp_parts(vf a, vf b) {
  const vf x = kTwoParts ? a + b : a;
  auto poly = [](vf r) {
    const vf r2 = r * r;
    const vf lo = fma(splat(0x1.555492p-3f), r, splat(0x1.fffffcp-2f));
    const vf hi = fma(splat(0x1.1239d2p-7f), r, splat(0x1.5558e8p-5f));
    return fma(fma(fma(splat(0x1.6a2abcp-10f), r2, hi), r2, lo), r2, r) + 1.f;
  };
  auto reduce = [&](vf n, vf xa) {
    vf r = fma(n, splat(-0.693359375f), xa);
    if constexpr (kTwoParts) r = r + b;
    return fma(n, splat(2.12194440e-4f), r);
  };
  const vf n = round_small(x * 1.44269504088896341f);
  const vf p = poly(reduce(n, a));
  // Unsigned add: out-of-range lanes wrap here and are replaced below (signed overflow is UB).
  const vf y = (vf)((vu)p + ((vu)__builtin_convertvector(n, vi) << 23));
  const vi normal = (x >= -87.3f) & (x <= 88.7f);  // false for NaN
  if (__builtin_expect(all_lanes(normal), 1)) return y;
  vf xc = x > 88.8f ? splat(88.8f) : x;  // NaN fails both tests and stays NaN
  xc = xc < -104.f ? splat(-104.f) : xc;
  const vf nc = round_small(xc * 1.44269504088896341f);
  const vf pc = poly(reduce(nc, kTwoParts ? a : xc));
  const vf n1 = round_small(nc * 0.5f);
  vf yc = pc * pow2i(n1) * pow2i(nc - n1);
  yc = x < -104.f ? vf{} : yc;
  yc = x > 88.8f ? splat(__builtin_inff()) : yc;
  return normal ? y : yc;
}
inline vf exp(vf x) { return exp_parts<false>(x, vf{}); }

// log: x = 2^e m with m in [sqrt(1/2), sqrt(2)), log(m) = f - f^2/2 + f^3 P(f) for f = m - 1.
inline vf log(vf x) {
  const vf x0 = x;
  const auto tiny = x < 1.17549435e-38f;  // subnormals: scale into the normal range first
  x = tiny ? x * 8388608.f : x;
  vi bits = as_int(x);
  vf e = __builtin_convertvector(((bits >> 23) & 0xff) - 126, vf) - (tiny ? splat(23.f) : vf{});
  vf m = as_float((bits & 0x007fffff) | 0x3f000000);  // [0.5, 1)
  const auto small = m < 0.707106781186547524f;
  e = small ? e - 1.f : e;
  const vf f = (small ? m + m : m) - 1.f;
  const vf z = f * f;
  vf p = splat(7.0376836292e-2f);
  p = fma(p, f, splat(-1.1514610310e-1f));
  p = fma(p, f, splat(1.1676998740e-1f));
  p = fma(p, f, splat(-1.2420140846e-1f));
  p = fma(p, f, splat(1.4249322787e-1f));
  p = fma(p, f, splat(-1.6668057665e-1f));
  p = fma(p, f, splat(2.0000714765e-1f));
  p = fma(p, f, splat(-2.4999993993e-1f));
  p = fma(p, f, splat(3.3333331174e-1f));
  vf y = p * f * z;
  y = fma(e, splat(-2.12194440e-4f), y);
  y = fma(z, splat(-0.5f), y);
  vf r = fma(e, splat(0.693359375f), f + y);
  const float inf = __builtin_inff();
  r = x0 == 0.f ? splat(-inf) : r;
  r = x0 == inf ? splat(inf) : r;
  r = x0 < 0.f ? splat(__builtin_nanf("")) : r;
  return x0 != x0 ? x0 : r;
}

// ---------------------------------------------------------------- tanh, sigmoid
// tanh: an odd polynomial below |x| = 0.625, else 1 - 2 / (e^{2|x|} + 1).
inline vf tanh(vf x) {
  const vf a = abs(x);
  const vf z = x * x;
  vf p = splat(-5.70498872745e-3f);
  p = fma(p, z, splat(2.06390887954e-2f));
  p = fma(p, z, splat(-5.37397155531e-2f));
  p = fma(p, z, splat(1.33314422036e-1f));
  p = fma(p, z, splat(-3.33332819422e-1f));
  const vf small = fma(p * z, x, x);
  const vf big = copysign(1.f - 2.f / (exp(a + a) + 1.f), x);
  return a < 0.625f ? small : big;
}

// 1 / (1 + e^-x) for x >= 0 and e^x / (1 + e^x) below, from one e^-|x| that cannot
// overflow, so that tiny results keep their relative accuracy down to the subnormals.
inline vf sigmoid(vf x) {
  const vf e = exp(-abs(x));
  const vf r = 1.f / (1.f + e);
  return x < 0.f ? e * r : r;
}

// ---------------------------------------------------------------- erf, erfc, gelu
// erfc(t) for t >= 0, to a relative error of a few 1e-7 wherever it is a normal float:
// u exp(-t^2 + P(u)) with u = 1 / (1 + t/2) (Numerical Recipes' erfcc, whose P is a
// Chebyshev fit good to 1.2e-7), t^2 carried in two parts into the exponential so that the
// large exponent loses nothing.
// 1 / d for d in [1, 8]: the hardware estimate and one Newton step (within 2 ulp), cheaper
// than a division.
inline vf recip(vf d) {
#if defined(__AVX512F__)
  const vf e = (vf)_mm512_maskz_rcp14_ps(__mmask16(0xffff), (__m512)d);  // maskz: see sqrt
#elif defined(__AVX2__)
  const vf e = (vf)_mm256_rcp_ps((__m256)d);
#else
  const vf e = (vf)_mm_rcp_ps((__m128)d);
#endif
  return e * fma(-d, e, splat(2.f));
}

// hi + lo must be t^2 exactly.
inline vf erfc_core(vf t, vf hi, vf lo) {
  const vf u = recip(fma(t, splat(0.5f), splat(1.f)));
  // Estrin's scheme (see exp_parts) for c0 + c1 u + ... + c9 u^9.
  const vf u2 = u * u, u4 = u2 * u2;
  const vf q0 = fma(splat(1.00002368f), u, splat(-1.26551223f));
  const vf q1 = fma(splat(0.09678418f), u, splat(0.37409196f));
  const vf q2 = fma(splat(0.27886807f), u, splat(-0.18628806f));
  const vf q3 = fma(splat(1.48851587f), u, splat(-1.13520398f));
  const vf q4 = fma(splat(0.17087277f), u, splat(-0.82215223f));
  const vf p = fma(fma(q4, u4, fma(q3, u2, q2)), u4, fma(q1, u2, q0));
  return u * exp_parts<true>(-hi, p - lo);
}
// The rounding error of x*x = hi, so that x^2 = hi + lo exactly: one FMA where the ISA has
// it, else Dekker's product on x split into two 12-bit halves.
inline vf square_error(vf x, vf hi) {
#if defined(__FMA__) || defined(__AVX512F__)
  return fma(x, x, -hi);
#else
  const vf c = x * 4097.f;
  const vf xh = c - (c - x), xl = x - xh;
  return ((xh * xh - hi) + 2.f * xh * xl) + xl * xl;
#endif
}
inline vf erfc_pos(vf t) {
  t = t > 10.5f ? splat(10.5f) : t;  // erfc(10.5) rounds to 0; also keeps inf out of t*t
  const vf hi = t * t;
  return erfc_core(t, hi, square_error(t, hi));
}

// erf(x) = x (2/sqrt(pi) + x^2 Q(x^2)) below |x| = 0.9, with a degree-5 fit Q and the
// leading constant in two parts (its rounding alone would cost an ulp near 0).
inline vf erf_small(vf x) {
  const vf s = x * x;
  vf q = splat(0x1.67eb10p-14f);
  q = fma(q, s, splat(-0x1.ad8bfep-11f));
  q = fma(q, s, splat(0x1.552662p-8f));
  q = fma(q, s, splat(-0x1.b81858p-6f));
  q = fma(q, s, splat(0x1.ce2e80p-4f));
  q = fma(q, s, splat(-0x1.812746p-2f));
  q = fma(q, s, splat(-0x1.f7ac92p-25f));
  return fma(x, splat(0x1.20dd76p+0f), x * q);
}
inline vf erf(vf x) {
  const vf a = abs(x);
  const vf big = copysign(1.f - erfc_pos(a), x);
  return a < 0.9f ? erf_small(x) : big;
}
inline vf erfc(vf x) {
  const vf a = abs(x);
  const vf pos = erfc_pos(a);  // x >= 0.9: direct; x <= -0.9: 2 - erfc(-x)
  const vf r = x < 0.f ? 2.f - pos : pos;
  return a < 0.9f ? 1.f - erf_small(x) : r;
}

// gelu(x) = x Phi(x), with h = Phi(-|x|) = erfc(|x|/sqrt2) / 2: Phi = h below 0, 1 - h
// above (no cancellation on either side). erfc(t) = u R(u) e^(-t^2) with u = 1 / (1 + p t)
// (the variable of Abramowitz & Stegun 7.1.26, p = 0.3275911) and R a degree-7 fit of
// relative error 2e-7 over t in [0, 10.5], our own. R and the exponential are independent,
// so they overlap in the pipeline: the loop is bound by latency, not by the op count.
// t^2 = x^2/2 is carried in two parts (hi + lo, exact), its small part as e^(-lo/2) ~ 1 - lo/2.
inline vf gelu(vf x) {
  vf xa = abs(x);
  xa = xa > 14.849242f ? splat(14.849242f) : xa;  // |t| <= 10.5: erfc rounds to 0 beyond
  const vf hi = xa * xa;
  const vf lo = square_error(xa, hi);
  const vf u = 1.f / fma(xa, splat(0.3275911f * 0.707106781186547524f), splat(1.f));
  const vf u2 = u * u, u4 = u2 * u2;
  const vf q0 = fma(splat(0.18110389f), u, splat(0.18502592f));
  const vf q1 = fma(splat(0.031915817f), u, splat(0.20375931f));
  const vf q2 = fma(splat(-0.39425132f), u, splat(0.44182584f));
  const vf q3 = fma(splat(-0.13965902f), u, splat(0.49027973f));
  const vf r = fma(fma(q3, u2, q2), u4, fma(q1, u2, q0));
  const vf h = (u * r) * (exp(hi * -0.5f) * fma(lo, splat(-0.25f), splat(0.5f)));
  return x * (x > 0.f ? 1.f - h : h);
}
// The tanh approximation, written as x sigmoid(2u) = x / (1 + e^{-2u}) (no cancellation).
inline vf gelu_tanh(vf x) {
  const vf u = x * fma(x * x, splat(0.0356774081f), splat(0.797884560802865f));  // sqrt(2/pi)(x + 0.044715x^3)
  return x / (1.f + exp(-(u + u)));
}

// ---------------------------------------------------------------- SLEEF
#define EMBER_VEC_SLEEF1(name, fn, acc)                                                  \
  inline vf name(vf x) { return (vf)EMBER_SLEEF_F(fn, acc)((NativeF)x); }              \
  inline vd name(vd x) { return (vd)EMBER_SLEEF_D(fn, acc)((NativeD)x); }
#define EMBER_VEC_SLEEF2(name, fn, acc)                                                  \
  inline vf name(vf x, vf y) { return (vf)EMBER_SLEEF_F(fn, acc)((NativeF)x, (NativeF)y); } \
  inline vd name(vd x, vd y) { return (vd)EMBER_SLEEF_D(fn, acc)((NativeD)x, (NativeD)y); }
EMBER_VEC_SLEEF1(sin, sin, u10)
EMBER_VEC_SLEEF1(cos, cos, u10)
EMBER_VEC_SLEEF1(tan, tan, u10)
EMBER_VEC_SLEEF1(asin, asin, u10)
EMBER_VEC_SLEEF1(acos, acos, u10)
EMBER_VEC_SLEEF1(atan, atan, u10)
EMBER_VEC_SLEEF1(sinh, sinh, u10)
EMBER_VEC_SLEEF1(cosh, cosh, u10)
EMBER_VEC_SLEEF1(asinh, asinh, u10)
EMBER_VEC_SLEEF1(acosh, acosh, u10)
EMBER_VEC_SLEEF1(atanh, atanh, u10)
EMBER_VEC_SLEEF1(exp2, exp2, u10)
EMBER_VEC_SLEEF1(expm1, expm1, u10)
EMBER_VEC_SLEEF1(log2, log2, u10)
EMBER_VEC_SLEEF1(log10, log10, u10)
EMBER_VEC_SLEEF1(log1p, log1p, u10)
EMBER_VEC_SLEEF1(lgamma, lgamma, u10)
EMBER_VEC_SLEEF2(atan2, atan2, u10)
EMBER_VEC_SLEEF2(hypot, hypot, u05)
EMBER_VEC_SLEEF2(pow, pow, u10)
#undef EMBER_VEC_SLEEF1
#undef EMBER_VEC_SLEEF2
// Double versions of the functions written out above for float.
inline vd exp(vd x) { return (vd)EMBER_SLEEF_D(exp, u10)((NativeD)x); }
inline vd log(vd x) { return (vd)EMBER_SLEEF_D(log, u10)((NativeD)x); }
inline vd tanh(vd x) { return (vd)EMBER_SLEEF_D(tanh, u10)((NativeD)x); }
inline vd erf(vd x) { return (vd)EMBER_SLEEF_D(erf, u10)((NativeD)x); }
inline vd erfc(vd x) { return (vd)EMBER_SLEEF_D(erfc, u15)((NativeD)x); }
inline vd sigmoid(vd x) {
  const vd e = exp((vd)((vl)x | ((vl){} + INT64_MIN)));  // e^-|x|
  const vd r = 1. / (1. + e);
  return x < 0. ? e * r : r;
}

// ---------------------------------------------------------------- 16-bit floats
// bfloat16 <-> float: the same rounding as BFloat16::from_float (nearest even, NaN kept
// and quieted), written on integer lanes so that it stays in registers.
inline vf bf16_to_float(vh h) { return as_float(__builtin_convertvector(h, vi) << 16); }
inline vh float_to_bf16(vf f) {
  const vu u = (vu)f;
  const vu hi = u >> 16;
  const vu rounded = (u + 0x7fffu + (hi & 1u)) >> 16;
  const vu r = f != f ? (hi | 0x40u) : rounded;
  return __builtin_convertvector(r, vh);
}

}  // namespace vec
}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
