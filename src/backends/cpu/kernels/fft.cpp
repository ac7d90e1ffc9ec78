// FFT execution: Stockham autosort passes over split (real, imaginary) buffers.
//
// Lines are gathered in groups of B into buffers laid out [n][B] (element j of line b at
// j * B + b), so a stage's innermost loop runs over at least B consecutive values and
// vectorizes without shuffles; a group of adjacent columns is read a short contiguous run
// at a time. A stage of radix r over span L (m = L / r, stride s, starting at s = B) maps
//   y[q + s (r p + k)] = w_L^(p k) * DFT_r(x[q + s (p + j m)], j < r)_k,
// which leaves the result in natural order after the last stage. Inverse transforms swap
// real and imaginary parts on the way in and out. Lengths with a prime factor above 31 run
// Bluestein's convolution on a 5-smooth length. Real transforms of even length n run a
// complex transform of n / 2 on the even/odd samples packed as one complex line, and
// split the result with the twiddles exp(-2 pi i k / n).
//
// Threads take groups of lines; a transform too large to share that way (few lines, long
// length) is split inside: every thread runs its part of each stage, with a barrier
// between stages. Each element is computed by the same arithmetic whatever the thread
// count, so results do not depend on it.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "backends/cpu/fft_plan.h"

namespace ember::cpu {
namespace EMBER_ISA_NAMESPACE {
namespace fft_kernels {
namespace {

template <typename T>
struct Buf {
  T* re;
  T* im;
  Buf swapped() const { return {im, re}; }
};

// A loop's share for this thread when the threads of a team split one transform.
struct Split {
  bool coop = false;
  void range(int64_t n, int64_t& lo, int64_t& hi) const {
    if (!coop) { lo = 0; hi = n; return; }
    const int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    lo = n * t / nt;
    hi = n * (t + 1) / nt;
  }
  void sync() const {
    if (coop) {
#pragma omp barrier
    }
  }
};

// ---------------------------------------------------------------- butterflies
// Forward DFT of r values in (ar, ai), in place. Odd radices use the pairing
// y_u, y_{r-u} = a0 + sum_v cos(2 pi u v / r) (a_v + a_{r-v}) -/+ i sum_v sin(...) (a_v - a_{r-v}).
template <typename T>
struct OddTables {
  T c[16][16], s[16][16];  // c[u][v] = cos(2 pi (u+1)(v+1) / r)
};

template <int R, typename V, typename T>
inline void butterfly(V* ar, V* ai, const OddTables<T>& t) {
  if constexpr (R == 2) {
    const V r0 = ar[0] + ar[1], i0 = ai[0] + ai[1];
    ar[1] = ar[0] - ar[1]; ai[1] = ai[0] - ai[1];
    ar[0] = r0; ai[0] = i0;
  } else if constexpr (R == 4) {
    const V t0r = ar[0] + ar[2], t0i = ai[0] + ai[2], t1r = ar[0] - ar[2], t1i = ai[0] - ai[2];
    const V t2r = ar[1] + ar[3], t2i = ai[1] + ai[3], t3r = ar[1] - ar[3], t3i = ai[1] - ai[3];
    ar[0] = t0r + t2r; ai[0] = t0i + t2i;
    ar[2] = t0r - t2r; ai[2] = t0i - t2i;
    ar[1] = t1r + t3i; ai[1] = t1i - t3r;  // t1 - i t3
    ar[3] = t1r - t3i; ai[3] = t1i + t3r;  // t1 + i t3
  } else if constexpr (R == 8) {
    V er[4] = {ar[0], ar[2], ar[4], ar[6]}, ei[4] = {ai[0], ai[2], ai[4], ai[6]};
    V orr[4] = {ar[1], ar[3], ar[5], ar[7]}, oi[4] = {ai[1], ai[3], ai[5], ai[7]};
    butterfly<4>(er, ei, t);
    butterfly<4>(orr, oi, t);
    constexpr T c = static_cast<T>(0.70710678118654752440084436210484904);
    // o_k *= exp(-2 pi i k / 8)
    const V o1r = (orr[1] + oi[1]) * c, o1i = (oi[1] - orr[1]) * c;
    const V o2r = oi[2], o2i = -orr[2];
    const V o3r = (oi[3] - orr[3]) * c, o3i = -(orr[3] + oi[3]) * c;
    ar[0] = er[0] + orr[0]; ai[0] = ei[0] + oi[0]; ar[4] = er[0] - orr[0]; ai[4] = ei[0] - oi[0];
    ar[1] = er[1] + o1r; ai[1] = ei[1] + o1i; ar[5] = er[1] - o1r; ai[5] = ei[1] - o1i;
    ar[2] = er[2] + o2r; ai[2] = ei[2] + o2i; ar[6] = er[2] - o2r; ai[6] = ei[2] - o2i;
    ar[3] = er[3] + o3r; ai[3] = ei[3] + o3i; ar[7] = er[3] - o3r; ai[7] = ei[3] - o3i;
  } else {
    constexpr int H = (R - 1) / 2;
    V sr[H], si[H], dr[H], di[H];
    for (int v = 0; v < H; ++v) {
      sr[v] = ar[v + 1] + ar[R - 1 - v]; si[v] = ai[v + 1] + ai[R - 1 - v];
      dr[v] = ar[v + 1] - ar[R - 1 - v]; di[v] = ai[v + 1] - ai[R - 1 - v];
    }
    V y0r = ar[0], y0i = ai[0];
    for (int v = 0; v < H; ++v) { y0r += sr[v]; y0i += si[v]; }
    for (int u = 0; u < H; ++u) {
      V br = ar[0], bi = ai[0], er{}, ei{};
      for (int v = 0; v < H; ++v) {
        br += t.c[u][v] * sr[v]; bi += t.c[u][v] * si[v];
        er += t.s[u][v] * dr[v]; ei += t.s[u][v] * di[v];
      }
      // y_{u+1} = b - i e, y_{r-1-u} = b + i e
      ar[u + 1] = br + ei; ai[u + 1] = bi - er;
      ar[R - 1 - u] = br - ei; ai[R - 1 - u] = bi + er;
    }
    ar[0] = y0r; ai[0] = y0i;
  }
}

template <typename T>
OddTables<T> odd_tables(int r) {
  OddTables<T> t{};
  for (int u = 0; u < (r - 1) / 2; ++u)
    for (int v = 0; v < (r - 1) / 2; ++v) {
      const int64_t k = static_cast<int64_t>(u + 1) * (v + 1) % r;
      const double a = 2.0 * 3.14159265358979323846 * static_cast<double>(k) / r;
      t.c[u][v] = static_cast<T>(std::cos(a));
      t.s[u][v] = static_cast<T>(std::sin(a));
    }
  return t;
}

// Explicit vectors of 32 bytes (16 in the Default build): 64-byte vectors measured no
// faster on the AMD Zen machines this runs on, and 8 floats match the group sizes below.
#if defined(__AVX2__)
constexpr int kVecBytes = 32;
#else
constexpr int kVecBytes = 16;
#endif
template <typename T> struct VecOf;
template <> struct VecOf<float> { typedef float type __attribute__((vector_size(kVecBytes))); };
template <> struct VecOf<double> { typedef double type __attribute__((vector_size(kVecBytes))); };

template <typename V, typename T>
inline V vload(const T* p) {
  V v;
  std::memcpy(&v, p, sizeof(V));
  return v;
}
template <typename V, typename T>
inline void vstore(T* p, V v) { std::memcpy(p, &v, sizeof(V)); }

// One Stockham stage of a compile-time radix over p in [p0, p1), q in [q0, q1). With
// s >= W vectors run along q (twiddles broadcast); otherwise along the flattened index
// f = q + s p, which is contiguous in x, with per-lane twiddles and a scalar scatter of the
// results (the first stages of a single long transform).
template <int R, typename T>
void stage(const T* __restrict xr, const T* __restrict xi, T* __restrict yr, T* __restrict yi,
           const T* __restrict twr, const T* __restrict twi, int64_t m, int64_t s, int64_t p0, int64_t p1,
           int64_t q0, int64_t q1) {
  using V = typename VecOf<T>::type;
  constexpr int W = sizeof(V) / sizeof(T);
  const OddTables<T> tab = (R & 1) ? odd_tables<T>(R) : OddTables<T>{};
  auto scalar = [&](int64_t p, int64_t q) {
    T ar[R], ai[R];
    for (int j = 0; j < R; ++j) {
      ar[j] = xr[q + s * (p + j * m)];
      ai[j] = xi[q + s * (p + j * m)];
    }
    butterfly<R>(ar, ai, tab);
    T* dr = yr + q + s * R * p;
    T* di = yi + q + s * R * p;
    dr[0] = ar[0]; di[0] = ai[0];
    for (int k = 1; k < R; ++k) {
      const T wr = twr[(k - 1) * m + p], wi = twi[(k - 1) * m + p];
      dr[s * k] = ar[k] * wr - ai[k] * wi;
      di[s * k] = ar[k] * wi + ai[k] * wr;
    }
  };
  if (s >= W) {
    for (int64_t p = p0; p < p1; ++p) {
      T wr[R], wi[R];
      for (int k = 1; k < R; ++k) { wr[k] = twr[(k - 1) * m + p]; wi[k] = twi[(k - 1) * m + p]; }
      int64_t q = q0;
      for (; q + W <= q1; q += W) {
        V ar[R], ai[R];
        for (int j = 0; j < R; ++j) {
          ar[j] = vload<V>(xr + q + s * (p + j * m));
          ai[j] = vload<V>(xi + q + s * (p + j * m));
        }
        butterfly<R>(ar, ai, tab);
        T* dr = yr + q + s * R * p;
        T* di = yi + q + s * R * p;
        vstore(dr, ar[0]);
        vstore(di, ai[0]);
        for (int k = 1; k < R; ++k) {
          vstore(dr + s * k, ar[k] * wr[k] - ai[k] * wi[k]);
          vstore(di + s * k, ar[k] * wi[k] + ai[k] * wr[k]);
        }
      }
      for (; q < q1; ++q) scalar(p, q);
    }
    return;
  }
  // small s: the stage's whole q range for p in [p0, p1)
  const int64_t f1 = s * p1;
  int64_t f = s * p0;
  for (; f + W <= f1; f += W) {
    V ar[R], ai[R];
    for (int j = 0; j < R; ++j) {
      ar[j] = vload<V>(xr + f + s * j * m);
      ai[j] = vload<V>(xi + f + s * j * m);
    }
    butterfly<R>(ar, ai, tab);
    int64_t lp[W], lq[W];
    for (int i = 0; i < W; ++i) { lp[i] = (f + i) / s; lq[i] = (f + i) - lp[i] * s; }
    T outr[R][W], outi[R][W];
    vstore(outr[0], ar[0]);
    vstore(outi[0], ai[0]);
    for (int k = 1; k < R; ++k) {
      T wr[W], wi[W];
      for (int i = 0; i < W; ++i) { wr[i] = twr[(k - 1) * m + lp[i]]; wi[i] = twi[(k - 1) * m + lp[i]]; }
      const V vr = vload<V>(wr), vi = vload<V>(wi);
      vstore(outr[k], ar[k] * vr - ai[k] * vi);
      vstore(outi[k], ar[k] * vi + ai[k] * vr);
    }
    for (int i = 0; i < W; ++i) {
      T* dr = yr + lq[i] + s * R * lp[i];
      T* di = yi + lq[i] + s * R * lp[i];
      for (int k = 0; k < R; ++k) { dr[s * k] = outr[k][i]; di[s * k] = outi[k][i]; }
    }
  }
  for (; f < f1; ++f) scalar(f / s, f % s);
}

// A stage of any odd radix r (the primes 17 to 31): each output accumulates the r inputs
// with the roots exp(-2 pi i j k / r), vectorized along q.
template <typename T>
void stage_generic(int r, const T* __restrict xr, const T* __restrict xi, T* __restrict yr, T* __restrict yi,
                   const T* twr, const T* twi, const T* rr, const T* ri, int64_t m, int64_t s, int64_t p0,
                   int64_t p1, int64_t q0, int64_t q1) {
  for (int64_t p = p0; p < p1; ++p)
    for (int k = 0; k < r; ++k) {
      T* dr = yr + s * (r * p + k);
      T* di = yi + s * (r * p + k);
      for (int64_t q = q0; q < q1; ++q) { dr[q] = 0; di[q] = 0; }
      for (int j = 0; j < r; ++j) {
        const int e = static_cast<int>(static_cast<int64_t>(j) * k % r);
        const T c = rr[e], sn = ri[e];
        const T* src = xr + s * (p + j * m);
        const T* sri = xi + s * (p + j * m);
#pragma omp simd
        for (int64_t q = q0; q < q1; ++q) {
          dr[q] += src[q] * c - sri[q] * sn;
          di[q] += src[q] * sn + sri[q] * c;
        }
      }
      if (k > 0) {
        const T wr = twr[(k - 1) * m + p], wi = twi[(k - 1) * m + p];
#pragma omp simd
        for (int64_t q = q0; q < q1; ++q) {
          const T a = dr[q], b = di[q];
          dr[q] = a * wr - b * wi;
          di[q] = a * wi + b * wr;
        }
      }
    }
}

// The forward DFT of B interleaved lines in x ([n][B]); y is scratch of the same size.
// Returns the buffer holding the result.
template <typename T>
Buf<T> stockham(const FftPlan& P, Buf<T> x, Buf<T> y, int64_t B, const Split& sp) {
  int64_t span = P.n, s = B;
  for (size_t st = 0; st < P.radices.size(); ++st) {
    const int r = P.radices[st];
    const int64_t m = span / r;
    const T* twr = P.twiddle.re<T>() + P.tw_offset[st];
    const T* twi = P.twiddle.im<T>() + P.tw_offset[st];
    int64_t p0 = 0, p1 = m, q0 = 0, q1 = s;
    if (sp.coop) {
      if (m >= 4 * omp_get_num_threads()) sp.range(m, p0, p1);
      else sp.range(s, q0, q1);
    }
    switch (r) {
      case 2: stage<2>(x.re, x.im, y.re, y.im, twr, twi, m, s, p0, p1, q0, q1); break;
      case 3: stage<3>(x.re, x.im, y.re, y.im, twr, twi, m, s, p0, p1, q0, q1); break;
      case 4: stage<4>(x.re, x.im, y.re, y.im, twr, twi, m, s, p0, p1, q0, q1); break;
      case 5: stage<5>(x.re, x.im, y.re, y.im, twr, twi, m, s, p0, p1, q0, q1); break;
      case 7: stage<7>(x.re, x.im, y.re, y.im, twr, twi, m, s, p0, p1, q0, q1); break;
      case 8: stage<8>(x.re, x.im, y.re, y.im, twr, twi, m, s, p0, p1, q0, q1); break;
      case 11: stage<11>(x.re, x.im, y.re, y.im, twr, twi, m, s, p0, p1, q0, q1); break;
      case 13: stage<13>(x.re, x.im, y.re, y.im, twr, twi, m, s, p0, p1, q0, q1); break;
      default: {
        const T* rr = P.roots.re<T>() + P.roots_offset[st];
        const T* ri = P.roots.im<T>() + P.roots_offset[st];
        stage_generic<T>(r, x.re, x.im, y.re, y.im, twr, twi, rr, ri, m, s, p0, p1, q0, q1);
      }
    }
    sp.sync();
    std::swap(x, y);
    span = m;
    s *= r;
  }
  return x;
}

// v[j] *= w[j] for j in [lo, hi) of B interleaved lines; with `swap` the product is stored
// with real and imaginary parts exchanged (the input of an inverse transform).
template <typename T>
void mul_rows(T* re, T* im, const T* __restrict wr, const T* __restrict wi, int64_t lo,
              int64_t hi, int64_t B, bool swap) {
  T* dr = swap ? im : re;  // may alias: each j is read before it is written
  T* di = swap ? re : im;
  if (B == 1) {
#pragma omp simd
    for (int64_t j = lo; j < hi; ++j) {
      const T a = re[j], d = im[j];
      dr[j] = a * wr[j] - d * wi[j];
      di[j] = a * wi[j] + d * wr[j];
    }
    return;
  }
  for (int64_t j = lo; j < hi; ++j) {
    const T c = wr[j], sn = wi[j];
    for (int64_t b = 0; b < B; ++b) {
      const T a = re[j * B + b], d = im[j * B + b];
      dr[j * B + b] = a * c - d * sn;
      di[j * B + b] = a * sn + d * c;
    }
  }
}

// The forward DFT of B lines in x (n * B values; for Bluestein x and y hold m * B).
template <typename T>
Buf<T> run_c2c(const FftPlan& P, Buf<T> x, Buf<T> y, int64_t B, const Split& sp) {
  if (!P.bluestein()) return stockham(P, x, y, B, sp);
  const int64_t n = P.n, m = P.m;
  int64_t lo, hi;
  // a_j = x_j w_j, zero-padded to m
  sp.range(m, lo, hi);
  mul_rows(x.re, x.im, P.chirp.re<T>(), P.chirp.im<T>(), lo, std::min(hi, n), B, false);
  if (hi > n) {
    const int64_t z0 = std::max(lo, n) * B;
    std::fill(x.re + z0, x.re + hi * B, T(0));
    std::fill(x.im + z0, x.im + hi * B, T(0));
  }
  sp.sync();
  Buf<T> f = stockham(*P.sub, x, y, B, sp);
  Buf<T> g = f.re == x.re ? y : x;
  // F * K (K already divided by m), stored swapped for the inverse transform
  sp.range(m, lo, hi);
  mul_rows(f.re, f.im, P.kernel.re<T>(), P.kernel.im<T>(), lo, hi, B, true);
  sp.sync();
  Buf<T> v = stockham(*P.sub, f, g, B, sp).swapped();
  // X_k = w_k * conv_k
  sp.range(n, lo, hi);
  mul_rows(v.re, v.im, P.chirp.re<T>(), P.chirp.im<T>(), lo, hi, B, false);
  sp.sync();
  return v;
}

// ---------------------------------------------------------------- one group of lines
// Visits (j, b), j in [lo, hi), b < B, 16 values of one line at a time: lines a power of two
// apart share cache sets, so each line is read or written a cache line at a time.
template <typename F>
inline void blocked(int64_t lo, int64_t hi, int64_t B, F&& f) {
  for (int64_t jb = lo; jb < hi; jb += 16) {
    const int64_t je = std::min(jb + 16, hi);
    for (int64_t b = 0; b < B; ++b)
      for (int64_t j = jb; j < je; ++j) f(j, b);
  }
}

// ---------------------------------------------------------------- vector gathers and scatters
// Moving lines between memory and the [n][B] buffers is a transpose; these do it with
// register transposes (AVX builds, groups of whole vectors), for the two common layouts:
// each line's values contiguous (rows: pairs p[2j], p[2j+1] become x.re[j], x.im[j]) or the
// group's lines adjacent complex elements (columns). They return false when they do not apply.
#if defined(__AVX2__)
template <typename V>
inline void transpose(V* r) {
  if constexpr (sizeof(V) / sizeof(r[0][0]) == 8) {
    typedef int32_t M __attribute__((vector_size(32)));
    V t[8], u[8];
    for (int i = 0; i < 8; i += 2) {
      t[i] = __builtin_shuffle(r[i], r[i + 1], M{0, 8, 1, 9, 4, 12, 5, 13});
      t[i + 1] = __builtin_shuffle(r[i], r[i + 1], M{2, 10, 3, 11, 6, 14, 7, 15});
    }
    for (int i = 0; i < 8; i += 4) {
      u[i] = __builtin_shuffle(t[i], t[i + 2], M{0, 1, 8, 9, 4, 5, 12, 13});
      u[i + 1] = __builtin_shuffle(t[i], t[i + 2], M{2, 3, 10, 11, 6, 7, 14, 15});
      u[i + 2] = __builtin_shuffle(t[i + 1], t[i + 3], M{0, 1, 8, 9, 4, 5, 12, 13});
      u[i + 3] = __builtin_shuffle(t[i + 1], t[i + 3], M{2, 3, 10, 11, 6, 7, 14, 15});
    }
    for (int i = 0; i < 4; ++i) {
      r[i] = __builtin_shuffle(u[i], u[i + 4], M{0, 1, 2, 3, 8, 9, 10, 11});
      r[i + 4] = __builtin_shuffle(u[i], u[i + 4], M{4, 5, 6, 7, 12, 13, 14, 15});
    }
  } else {
    typedef int64_t M __attribute__((vector_size(32)));
    const V t0 = __builtin_shuffle(r[0], r[1], M{0, 4, 2, 6}), t1 = __builtin_shuffle(r[0], r[1], M{1, 5, 3, 7});
    const V t2 = __builtin_shuffle(r[2], r[3], M{0, 4, 2, 6}), t3 = __builtin_shuffle(r[2], r[3], M{1, 5, 3, 7});
    r[0] = __builtin_shuffle(t0, t2, M{0, 1, 4, 5});
    r[2] = __builtin_shuffle(t0, t2, M{2, 3, 6, 7});
    r[1] = __builtin_shuffle(t1, t3, M{0, 1, 4, 5});
    r[3] = __builtin_shuffle(t1, t3, M{2, 3, 6, 7});
  }
}

// De-interleaves / interleaves (re, im) pairs of two vectors.
template <typename V>
inline void split_pairs(V a, V b, V& re, V& im) {
  if constexpr (sizeof(V) / sizeof(a[0]) == 8) {
    typedef int32_t M __attribute__((vector_size(32)));
    re = __builtin_shuffle(a, b, M{0, 2, 4, 6, 8, 10, 12, 14});
    im = __builtin_shuffle(a, b, M{1, 3, 5, 7, 9, 11, 13, 15});
  } else {
    typedef int64_t M __attribute__((vector_size(32)));
    re = __builtin_shuffle(a, b, M{0, 2, 4, 6});
    im = __builtin_shuffle(a, b, M{1, 3, 5, 7});
  }
}
template <typename V>
inline void join_pairs(V re, V im, V& a, V& b) {
  if constexpr (sizeof(V) / sizeof(re[0]) == 8) {
    typedef int32_t M __attribute__((vector_size(32)));
    a = __builtin_shuffle(re, im, M{0, 8, 1, 9, 2, 10, 3, 11});
    b = __builtin_shuffle(re, im, M{4, 12, 5, 13, 6, 14, 7, 15});
  } else {
    typedef int64_t M __attribute__((vector_size(32)));
    a = __builtin_shuffle(re, im, M{0, 4, 1, 5});
    b = __builtin_shuffle(re, im, M{2, 6, 3, 7});
  }
}
#endif

// dst[j][b] = (p[2j], p[2j+1]) of line b at p = base + off[b], pairs `step` scalars apart
// (step 2: contiguous pairs), j < n.
template <typename T>
bool gather_pairs(const T* base, const int64_t* off, int64_t step, int64_t n, int64_t B, Buf<T> dst) {
#if defined(__AVX2__)
  using V = typename VecOf<T>::type;
  constexpr int W = sizeof(V) / sizeof(T);
  if (B % W != 0) return false;
  if (step == 2) {  // rows: W lines x W / 2 pairs per register transpose
    constexpr int J = W / 2;
    for (int64_t b0 = 0; b0 < B; b0 += W) {
      int64_t j = 0;
      for (; j + J <= n; j += J) {
        V r[W];
        for (int u = 0; u < W; ++u) r[u] = vload<V>(base + off[b0 + u] + 2 * j);
        transpose(r);
        for (int t = 0; t < J; ++t) {
          vstore(dst.re + (j + t) * B + b0, r[2 * t]);
          vstore(dst.im + (j + t) * B + b0, r[2 * t + 1]);
        }
      }
      for (; j < n; ++j)
        for (int64_t b = b0; b < b0 + W; ++b) {
          dst.re[j * B + b] = base[off[b] + 2 * j];
          dst.im[j * B + b] = base[off[b] + 2 * j + 1];
        }
    }
    return true;
  }
  for (int64_t b = 1; b < B; ++b)
    if (off[b] != off[0] + 2 * b) return false;
  for (int64_t j = 0; j < n; ++j) {  // columns: the group's lines are adjacent pairs
    const T* p = base + off[0] + j * step;
    for (int64_t b0 = 0; b0 < B; b0 += W) {
      V re, im;
      split_pairs(vload<V>(p + 2 * b0), vload<V>(p + 2 * b0 + W), re, im);
      vstore(dst.re + j * B + b0, re);
      vstore(dst.im + j * B + b0, im);
    }
  }
  return true;
#else
  return false;
#endif
}

// The inverse of gather_pairs, scaling by `scale`.
template <typename T>
bool scatter_pairs(T* base, const int64_t* off, int64_t step, int64_t n, int64_t B, Buf<T> src, T scale) {
#if defined(__AVX2__)
  using V = typename VecOf<T>::type;
  constexpr int W = sizeof(V) / sizeof(T);
  if (B % W != 0) return false;
  if (step == 2) {
    constexpr int J = W / 2;
    for (int64_t b0 = 0; b0 < B; b0 += W) {
      int64_t j = 0;
      for (; j + J <= n; j += J) {
        V r[W];
        for (int t = 0; t < J; ++t) {
          r[2 * t] = vload<V>(src.re + (j + t) * B + b0) * scale;
          r[2 * t + 1] = vload<V>(src.im + (j + t) * B + b0) * scale;
        }
        transpose(r);
        for (int u = 0; u < W; ++u) vstore(base + off[b0 + u] + 2 * j, r[u]);
      }
      for (; j < n; ++j)
        for (int64_t b = b0; b < b0 + W; ++b) {
          base[off[b] + 2 * j] = src.re[j * B + b] * scale;
          base[off[b] + 2 * j + 1] = src.im[j * B + b] * scale;
        }
    }
    return true;
  }
  for (int64_t b = 1; b < B; ++b)
    if (off[b] != off[0] + 2 * b) return false;
  for (int64_t j = 0; j < n; ++j) {
    T* p = base + off[0] + j * step;
    for (int64_t b0 = 0; b0 < B; b0 += W) {
      V a, c;
      join_pairs(vload<V>(src.re + j * B + b0) * scale, vload<V>(src.im + j * B + b0) * scale, a, c);
      vstore(p + 2 * b0, a);
      vstore(p + 2 * b0 + W, c);
    }
  }
  return true;
#else
  return false;
#endif
}

template <typename T>
struct Group {
  const FftCall& c;
  const T* in;
  T* out;
  const int64_t* ioff;  // per line, in units of T
  const int64_t* ooff;
  int64_t B;
  Buf<T> x, y;
  Split sp;

  void c2c() {
    const FftPlan& P = *c.plan;
    const int64_t n = P.n, is = c.in_stride, os = c.out_stride;
    Buf<T> dst = c.forward ? x : x.swapped();
    int64_t lo, hi;
    sp.range(n, lo, hi);
    if (!sp.coop && gather_pairs(in, ioff, is, n, B, dst)) {
    } else blocked(lo, hi, B, [&](int64_t j, int64_t b) {
        const T* src = in + ioff[b] + j * is;
        dst.re[j * B + b] = src[0];
        dst.im[j * B + b] = src[1];
      });
    sp.sync();
    Buf<T> r = run_c2c(P, x, y, B, sp);
    if (!c.forward) r = r.swapped();
    const T scale = static_cast<T>(c.scale);
    sp.range(n, lo, hi);
    if (!sp.coop && scatter_pairs(out, ooff, os, n, B, r, scale)) return;
    blocked(lo, hi, B, [&](int64_t j, int64_t b) {
        T* d = out + ooff[b] + j * os;
        d[0] = r.re[j * B + b] * scale;
        d[1] = r.im[j * B + b] * scale;
      });
  }

  void r2c() {
    const FftPlan& P = *c.plan;
    const int64_t n = P.n, is = c.in_stride, os = c.out_stride, len = c.out_len;
    const T scale = static_cast<T>(c.scale);
    int64_t lo, hi;
    if (!P.half) {  // odd n: the full complex transform of the real line
      sp.range(n, lo, hi);
      blocked(lo, hi, B, [&](int64_t j, int64_t b) {
          x.re[j * B + b] = in[ioff[b] + j * is];
          x.im[j * B + b] = 0;
        });
      sp.sync();
      Buf<T> r = run_c2c(P, x, y, B, sp);
      sp.range(len, lo, hi);
      blocked(lo, hi, B, [&](int64_t k, int64_t b) {
          T* d = out + ooff[b] + k * os;
          d[0] = r.re[k * B + b] * scale;
          d[1] = r.im[k * B + b] * scale;
        });
      return;
    }
    const int64_t h = n / 2;
    sp.range(h, lo, hi);
    if (!sp.coop && is == 1 && gather_pairs(in, ioff, 2, h, B, x)) {
    } else blocked(lo, hi, B, [&](int64_t j, int64_t b) {
        x.re[j * B + b] = in[ioff[b] + 2 * j * is];
        x.im[j * B + b] = in[ioff[b] + (2 * j + 1) * is];
      });
    sp.sync();
    Buf<T> z = run_c2c(*P.half, x, y, B, sp);
    const T* twr = P.real_twiddle.re<T>();
    const T* twi = P.real_twiddle.im<T>();
    const T half = T(0.5);
    sp.range(h + 1, lo, hi);
    blocked(lo, hi, B, [&](int64_t k, int64_t b) {
      const int64_t kk = k == h ? 0 : k, mk = k == 0 ? 0 : h - k;
      const T wr = twr[k], wi = twi[k];
      {
        const T a = z.re[kk * B + b], bb = z.im[kk * B + b], cc = z.re[mk * B + b], d = z.im[mk * B + b];
        const T er = (a + cc) * half, ei = (bb - d) * half;
        const T orr = (bb + d) * half, oi = (cc - a) * half;
        const T xr = (er + wr * orr - wi * oi) * scale, xi = (ei + wr * oi + wi * orr) * scale;
        T* dd = out + ooff[b] + k * os;
        dd[0] = xr;
        dd[1] = xi;
        if (len == n && k > 0 && k < h) {
          T* e = out + ooff[b] + (n - k) * os;
          e[0] = xr;
          e[1] = -xi;
        }
      }
    });
  }

  void c2r() {
    const FftPlan& P = *c.plan;
    const int64_t n = P.n, is = c.in_stride, os = c.out_stride;
    const T scale = static_cast<T>(c.scale);
    int64_t lo, hi;
    if (!P.half) {  // odd n: rebuild the Hermitian line, inverse complex transform
      const Buf<T> dst = x.swapped();
      const int64_t hh = n / 2;
      sp.range(hh + 1, lo, hi);
      blocked(lo, hi, B, [&](int64_t k, int64_t b) {
          const T* src = in + ioff[b] + k * is;
          const T re = src[0], im = k == 0 ? T(0) : src[1];
          dst.re[k * B + b] = re;
          dst.im[k * B + b] = im;
          if (k > 0) {
            dst.re[(n - k) * B + b] = re;
            dst.im[(n - k) * B + b] = -im;
          }
        });
      sp.sync();
      Buf<T> r = run_c2c(P, x, y, B, sp).swapped();
      sp.range(n, lo, hi);
      blocked(lo, hi, B, [&](int64_t j, int64_t b) { out[ooff[b] + j * os] = r.re[j * B + b] * scale; });
      return;
    }
    const int64_t h = n / 2;
    // X_0 .. X_h into y, then Z'_k = X_k + conj(X_{h-k}) + i (X_k - conj(X_{h-k})) exp(2 pi i k / n)
    // into x, swapped for the inverse transform.
    sp.range(h + 1, lo, hi);
    blocked(lo, hi, B, [&](int64_t k, int64_t b) {
        const T* src = in + ioff[b] + k * is;
        y.re[k * B + b] = src[0];
        y.im[k * B + b] = (k == 0 || k == h) ? T(0) : src[1];
      });
    sp.sync();
    const T* twr = P.real_twiddle.re<T>();
    const T* twi = P.real_twiddle.im<T>();
    const Buf<T> dst = x.swapped();
    sp.range(h, lo, hi);
    for (int64_t k = lo; k < hi; ++k) {
      const T wr = twr[k], wi = twi[k];
      for (int64_t b = 0; b < B; ++b) {
        const T a = y.re[k * B + b], bb = y.im[k * B + b], cc = y.re[(h - k) * B + b], d = y.im[(h - k) * B + b];
        const T sr = a + cc, si = bb - d, dr = a - cc, di = bb + d;
        // D * conj(w) = (dr wr + di wi, di wr - dr wi); i times that = (-(di wr - dr wi), dr wr + di wi)
        dst.re[k * B + b] = sr - (di * wr - dr * wi);
        dst.im[k * B + b] = si + (dr * wr + di * wi);
      }
    }
    sp.sync();
    Buf<T> z = run_c2c(*P.half, x, y, B, sp).swapped();
    sp.range(h, lo, hi);
    if (!sp.coop && os == 1 && scatter_pairs(out, ooff, 2, h, B, z, scale)) return;
    blocked(lo, hi, B, [&](int64_t j, int64_t b) {
        out[ooff[b] + 2 * j * os] = z.re[j * B + b] * scale;
        out[ooff[b] + (2 * j + 1) * os] = z.im[j * B + b] * scale;
      });
  }

  void run() {
    switch (c.kind) {
      case FftKind::C2C: c2c(); break;
      case FftKind::R2C: r2c(); break;
      case FftKind::C2R: c2r(); break;
    }
  }
};

// The buffer a thread keeps for its groups (reused across calls: no page faults after the first).
template <typename T>
T* workspace(int64_t elems) {
  thread_local std::vector<T> buf;
  if (static_cast<int64_t>(buf.size()) < elems) {
    buf.clear();
    buf.shrink_to_fit();
    buf.resize(static_cast<size_t>(elems));
  }
  return buf.data();
}

// The i-th pair of arrays of a workspace block (the block's start rounded up to 64 bytes).
template <typename T>
Buf<T> carve(T* base, int64_t arr, int i) {
  T* p = base + (16 - (reinterpret_cast<uintptr_t>(base) / sizeof(T)) % 16) % 16;
  return {p + 2 * i * arr, p + (2 * i + 1) * arr};
}

// Offsets (units of T) of lines [l0, l0 + count) in input and output.
void line_offsets(const FftCall& c, int64_t l0, int64_t count, int64_t* ioff, int64_t* ooff) {
  const int64_t nd = static_cast<int64_t>(c.batch_sizes.size());
  for (int64_t i = 0; i < count; ++i) {
    int64_t l = l0 + i, io = 0, oo = 0;
    for (int64_t d = nd - 1; d >= 0; --d) {
      const int64_t sz = c.batch_sizes[d];
      const int64_t idx = l % sz;
      l /= sz;
      io += idx * c.in_batch_strides[d];
      oo += idx * c.out_batch_strides[d];
    }
    ioff[i] = io;
    ooff[i] = oo;
  }
}

template <typename T>
void run_call(const FftCall& c) {
  const FftPlan& P = *c.plan;
  int64_t lines = 1;
  for (int64_t s : c.batch_sizes) lines *= s;
  if (lines == 0) return;
  const int64_t len = P.half ? P.half->n : (P.bluestein() ? P.m : P.n);
  constexpr int64_t kMaxB = 64 / sizeof(T) * 2;  // two vectors of the widest build
  const int64_t B = std::clamp<int64_t>(32768 / std::max<int64_t>(len, 1), 1, std::min(kMaxB, lines));
  const int64_t groups = (lines + B - 1) / B;
  const int64_t arr_elems = P.work_elems(B);
  const int64_t arr = (arr_elems - 16) / 4;
  const T* in = static_cast<const T*>(c.in);
  T* out = static_cast<T*>(c.out);
  const int64_t work = lines * P.n * (c.kind == FftKind::C2C ? 2 : 1);
  const int max_threads = omp_in_parallel() ? 1 : omp_get_max_threads();
  int threads = static_cast<int>(std::min<int64_t>(max_threads, work / 16384));
  const bool inside = groups < 2 * threads && P.n >= 16384;  // few long transforms: split each
  if (threads <= 1 || (groups < 2 && !inside)) threads = 1;
  // Each thread's workspace, and room for the line offsets, before any parallel region.
  if (inside || threads == 1) {
    T* w = workspace<T>(arr_elems);
    std::vector<int64_t> off(static_cast<size_t>(2 * B));
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t l0 = g * B, cnt = std::min(B, lines - l0);
      line_offsets(c, l0, cnt, off.data(), off.data() + B);
      if (inside && threads > 1) {
#pragma omp parallel num_threads(threads)
        {
          Group<T> grp{c, in, out, off.data(), off.data() + B, cnt, carve(w, arr, 0), carve(w, arr, 1), Split{true}};
          grp.run();
        }
      } else {
        Group<T> grp{c, in, out, off.data(), off.data() + B, cnt, carve(w, arr, 0), carve(w, arr, 1), Split{}};
        grp.run();
      }
    }
    return;
  }
  // One block per thread, taken before the region (nothing may throw inside it).
  T* all = workspace<T>(threads * arr_elems);
  std::vector<int64_t> offs(static_cast<size_t>(2 * B * threads));
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    T* w = all + t * arr_elems;
    int64_t* io = offs.data() + 2 * B * t;
#pragma omp for schedule(dynamic, 1)
    for (int64_t g = 0; g < groups; ++g) {
      const int64_t l0 = g * B, cnt = std::min(B, lines - l0);
      line_offsets(c, l0, cnt, io, io + B);
      Group<T> grp{c, in, out, io, io + B, cnt, carve(w, arr, 0), carve(w, arr, 1), Split{}};
      grp.run();
    }
  }
}

void fft_kernel(const FftCall& c) {
  if (c.is_double) run_call<double>(c);
  else run_call<float>(c);
}

}  // namespace
}  // namespace fft_kernels

EMBER_REGISTER_STUB(fft_stub, &fft_kernels::fft_kernel);

}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
