// Statistical reductions that need more than one look at the data: variance / standard
// deviation (with the mean) and logsumexp.
//
// Both run block by block: a block (16 KB of a row, or a few rows of a tile of columns) is
// read from memory once and then again from cache, so the pair of passes costs about one
// pass over memory.
//  - var: the first pass takes the block's mean as a shift, the second sums d = x - shift
//    and d^2 (in double); the block's mean and sum of squared deviations then follow exactly
//    (m2 = sum d^2 - (sum d)^2 / n), and blocks combine by Chan's formula. This is the
//    two-pass algorithm per block, numerically stable whatever the data's offset.
//  - logsumexp: a running maximum M; a block with a larger maximum rescales the running sum
//    once, then adds exp(x - M) (SLEEF vector exp). NaN anywhere gives NaN, +inf gives +inf,
//    all -inf (or nothing) gives -inf.
// Layouts: rows (the reduced elements of an output contiguous), columns (the innermost kept
// dim contiguous, the reduced dims outside it: vectorized across a tile of outputs), and any
// other layout or a 16-bit float dtype by gathering a block into a buffer first. Threads
// split outputs, or the reduced range into chunks fixed by its length, combined in order, so
// results do not depend on the thread count.
#include <immintrin.h>
#include <sleef.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "backends/cpu/kernels/basic_loops.h"
#include "backends/cpu/kernels/reduce_walk.h"
#include "backends/cpu/reduce_stubs.h"
#include "core/dtype_dispatch.h"

namespace ember::cpu {
namespace isa_Default {
void stat_reduce_kernel(const ReduceLoop& loop, StatOp op);
}
namespace EMBER_ISA_NAMESPACE {
namespace {

typedef float VF __attribute__((vector_size(kVecBytes)));
typedef double VD __attribute__((vector_size(kVecBytes)));

// exp, and the low/high halves of a float vector widened to double (native-width registers:
// GCC spills a double vector twice the register width to the stack).
#if defined(__AVX512F__)
inline VF vexp(VF v) { return (VF)Sleef_expf16_u10avx512f((__m512)v); }
inline VD vexp(VD v) { return (VD)Sleef_expd8_u10avx512f((__m512d)v); }
// maskz forms: GCC 12 warns about the undefined source operand of the plain ones.
inline VD lo_pd(VF v) {
  return (VD)_mm512_maskz_cvtps_pd(__mmask8(0xff), _mm512_maskz_extractf32x8_ps(__mmask8(0xff), (__m512)v, 0));
}
inline VD hi_pd(VF v) {
  return (VD)_mm512_maskz_cvtps_pd(__mmask8(0xff), _mm512_maskz_extractf32x8_ps(__mmask8(0xff), (__m512)v, 1));
}
#elif defined(__AVX2__)
inline VF vexp(VF v) { return (VF)Sleef_expf8_u10avx2((__m256)v); }
inline VD vexp(VD v) { return (VD)Sleef_expd4_u10avx2((__m256d)v); }
inline VD lo_pd(VF v) { return (VD)_mm256_cvtps_pd(_mm256_castps256_ps128((__m256)v)); }
inline VD hi_pd(VF v) { return (VD)_mm256_cvtps_pd(_mm256_extractf128_ps((__m256)v, 1)); }
#else
inline VF vexp(VF v) { return (VF)Sleef_expf4_u10sse2((__m128)v); }
inline VD vexp(VD v) { return (VD)Sleef_expd2_u10sse2((__m128d)v); }
inline VD lo_pd(VF v) { return (VD)_mm_cvtps_pd((__m128)v); }
inline VD hi_pd(VF v) { return (VD)_mm_cvtps_pd(_mm_movehl_ps((__m128)v, (__m128)v)); }
#endif

template <typename C> struct VecT;
template <> struct VecT<float> {
  using V = VF;
  static constexpr int N = kVecBytes / 4;
};
template <> struct VecT<double> {
  using V = VD;
  static constexpr int N = kVecBytes / 8;
};

template <typename V, typename C>
inline V vld(const C* p) {
  V v;
  std::memcpy(&v, p, sizeof(V));
  return v;
}
template <typename V>
inline double hsum(V v) {
  double s = 0;
  for (size_t j = 0; j < sizeof(V) / sizeof(v[0]); ++j) s += v[j];
  return s;
}
template <typename C>
inline C nan_max(C a, C x) { return (x > a || x != x) ? x : a; }

// Sum of n contiguous elements in vector lanes.
template <typename C>
C block_sum(const C* x, int64_t n) {
  using V = typename VecT<C>::V;
  constexpr int N = VecT<C>::N;
  V a0 = {}, a1 = {}, a2 = {}, a3 = {};
  int64_t i = 0;
  for (; i + 4 * N <= n; i += 4 * N) {
    a0 += vld<V>(x + i);
    a1 += vld<V>(x + i + N);
    a2 += vld<V>(x + i + 2 * N);
    a3 += vld<V>(x + i + 3 * N);
  }
  for (; i + N <= n; i += N) a0 += vld<V>(x + i);
  C s = static_cast<C>(hsum((a0 + a1) + (a2 + a3)));
  for (; i < n; ++i) s += x[i];
  return s;
}

// Maximum of n >= 1 contiguous elements; NaN if any is NaN.
template <typename C>
C block_max(const C* x, int64_t n) {
  using V = typename VecT<C>::V;
  constexpr int N = VecT<C>::N;
  int64_t i = 0;
  C m = -std::numeric_limits<C>::infinity();
  if (n >= 2 * N) {
    V a = vld<V>(x), b = vld<V>(x + N);
    for (i = 2 * N; i + 2 * N <= n; i += 2 * N) {
      const V u = vld<V>(x + i), w = vld<V>(x + i + N);
      a = ((u > a) | (u != u)) ? u : a;
      b = ((w > b) | (w != w)) ? w : b;
    }
    for (int j = 0; j < N; ++j) m = nan_max(nan_max(m, a[j]), b[j]);
  }
  for (; i < n; ++i) m = nan_max(m, x[i]);
  return m;
}

// ---------------------------------------------------------------- variance
template <typename In>
struct VarStat {
  using in_t = In;
  using c_t = opmath_t<In>;
  using C = c_t;
  struct State {
    double n = 0, mean = 0, m2 = 0;
  };
  static constexpr int kColRows = 8;  // rows per block of a column tile

  static State combine(const State& a, const State& b) {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const double n = a.n + b.n, delta = b.mean - a.mean;
    return {n, a.mean + delta * (b.n / n), a.m2 + b.m2 + delta * delta * (a.n * b.n / n)};
  }

  // One block, shifted by its own mean (n >= 1): sum d = x - shift (small, so in C) and d^2
  // (in double).
  static State block(const C* x, int64_t n) {
    using V = typename VecT<C>::V;
    constexpr int N = VecT<C>::N;
    const C shift = block_sum(x, n) / static_cast<C>(n);
    const V sh = V{} + shift;
    V s1a = {}, s1b = {};
    VD q0 = {}, q1 = {}, q2 = {}, q3 = {};
    int64_t i = 0;
    for (; i + 2 * N <= n; i += 2 * N) {
      const V d = vld<V>(x + i) - sh, e = vld<V>(x + i + N) - sh;
      s1a += d;
      s1b += e;
      const V dd = d * d, ee = e * e;
      if constexpr (std::is_same_v<C, float>) {
        q0 += lo_pd(dd);
        q1 += hi_pd(dd);
        q2 += lo_pd(ee);
        q3 += hi_pd(ee);
      } else {
        q0 += dd;
        q1 += ee;
      }
    }
    double s1 = hsum(s1a + s1b), s2 = hsum((q0 + q1) + (q2 + q3));
    for (; i < n; ++i) {
      const C d = x[i] - shift;
      s1 += d;
      s2 += static_cast<double>(d * d);
    }
    const double dn = static_cast<double>(n);
    const double m2 = s2 - s1 * s1 / dn;
    return {dn, static_cast<double>(shift) + s1 / dn, m2 < 0 ? 0.0 : m2};
  }
  static void add_block(State& st, const C* x, int64_t n) { st = combine(st, block(x, n)); }

  // Per-column states of a tile (structure of arrays; n is common to the columns).
  struct Cols {
    double n = 0;
    std::unique_ptr<double[]> mean, m2;
    std::unique_ptr<C[]> acc;
    std::unique_ptr<double[]> s1, s2;
    explicit Cols(int w)
        : mean(new double[w]), m2(new double[w]), acc(new C[w]), s1(new double[w]), s2(new double[w]) {}
    State get(int k) const { return {n, mean[k], m2[k]}; }
    // Combines o's columns (a later range of rows) into these.
    void merge(const Cols& o, int w) {
      for (int k = 0; k < w; ++k) {
        const State c = combine(get(k), o.get(k));
        mean[k] = c.mean;
        m2[k] = c.m2;
      }
      n += o.n;  // after the loop: every column combined with the same counts
    }
  };
  // A block of rows (each w contiguous elements) into the column states.
  static void add_cols(Cols& cs, const C* const* rows, int nrows, int w) {
    C* acc = cs.acc.get();
    double* s1 = cs.s1.get();
    double* s2 = cs.s2.get();
    for (int k = 0; k < w; ++k) acc[k] = 0;
    for (int r = 0; r < nrows; ++r) {
      const C* __restrict row = rows[r];
      for (int k = 0; k < w; ++k) acc[k] += row[k];
    }
    const C inv = C(1) / static_cast<C>(nrows);
    for (int k = 0; k < w; ++k) {
      acc[k] *= inv;  // the shift: the block's column mean
      s1[k] = 0;
      s2[k] = 0;
    }
    for (int r = 0; r < nrows; ++r) {
      const C* __restrict row = rows[r];
      for (int k = 0; k < w; ++k) {
        const C d = row[k] - acc[k];
        s1[k] += d;
        s2[k] += static_cast<double>(d * d);
      }
    }
    const double nb = nrows, n = cs.n + nb;
    const double fa = nb / n, fb = cs.n * nb / n;
    double* mean = cs.mean.get();
    double* m2 = cs.m2.get();
    for (int k = 0; k < w; ++k) {
      const double mb = static_cast<double>(acc[k]) + s1[k] / nb;
      double q = s2[k] - s1[k] * s1[k] / nb;
      q = q < 0 ? 0.0 : q;
      if (cs.n == 0) {
        mean[k] = mb;
        m2[k] = q;
      } else {
        const double delta = mb - mean[k];
        mean[k] += delta * fa;
        m2[k] += q + delta * delta * fb;
      }
    }
    cs.n = n;
  }

  static void store(const ReduceLoop& L, const int64_t* off, const State& st, StatOp op) {
    using Real = In;  // real inputs only (complex goes through its real view)
    const double denom = std::max(0.0, st.n - L.param);
    double v = st.m2 / denom;
    if (op == StatOp::Std) v = std::sqrt(v);
    *reinterpret_cast<Real*>(L.out[0] + off[0]) = static_cast<Real>(static_cast<C>(v));
    if (L.nout == 2) {
      const double mean = st.n > 0 ? st.mean : std::numeric_limits<double>::quiet_NaN();
      *reinterpret_cast<In*>(L.out[1] + off[1]) = static_cast<In>(static_cast<C>(mean));
    }
  }
};

// ---------------------------------------------------------------- logsumexp
template <typename In>
struct LseStat {
  using in_t = In;
  using c_t = opmath_t<In>;
  using C = c_t;
  // Running maximum m and sum s of exp(x - shift(m)); shift is m when finite, else 0.
  struct State {
    double m = -std::numeric_limits<double>::infinity(), s = 0;
  };
  static constexpr int kColRows = 16;

  static C shift(double m) { return std::isfinite(m) ? static_cast<C>(m) : C(0); }

  static State combine(const State& a, const State& b) {
    if (a.m != a.m || b.m != b.m) return {std::numeric_limits<double>::quiet_NaN(), 0};
    if (a.s == 0 && a.m == -std::numeric_limits<double>::infinity()) return b;
    if (b.s == 0 && b.m == -std::numeric_limits<double>::infinity()) return a;
    const double m = std::max(a.m, b.m);
    if (std::isinf(m)) return {m, 1};
    return {m, a.s * std::exp(a.m - m) + b.s * std::exp(b.m - m)};
  }

  // Raises the running maximum to mb, rescaling the sum once.
  static void raise(double& m, double& s, C mb) {
    if (mb != mb) {
      m = std::numeric_limits<double>::quiet_NaN();
    } else if (mb > m) {
      if (s != 0) s *= std::exp(static_cast<double>(shift(m)) - static_cast<double>(shift(mb)));
      m = mb;
    }
  }

  static C sum_exp(const C* x, int64_t n, C sh) {
    using V = typename VecT<C>::V;
    constexpr int N = VecT<C>::N;
    const V vs = V{} + sh;
    V a0 = {}, a1 = {};
    int64_t i = 0;
    for (; i + 2 * N <= n; i += 2 * N) {
      a0 += vexp(vld<V>(x + i) - vs);
      a1 += vexp(vld<V>(x + i + N) - vs);
    }
    for (; i + N <= n; i += N) a0 += vexp(vld<V>(x + i) - vs);
    C s = static_cast<C>(hsum(a0 + a1));
    for (; i < n; ++i) s += std::exp(x[i] - sh);
    return s;
  }

  static void add_block(State& st, const C* x, int64_t n) {
    if (st.m != st.m) return;  // NaN already
    raise(st.m, st.s, block_max(x, n));
    if (st.m != st.m || st.m == std::numeric_limits<double>::infinity()) return;
    st.s += static_cast<double>(sum_exp(x, n, shift(st.m)));
  }

  struct Cols {
    std::unique_ptr<double[]> m, s;
    std::unique_ptr<C[]> mx, sh, acc;
    explicit Cols(int w) : m(new double[w]), s(new double[w]), mx(new C[w]), sh(new C[w]), acc(new C[w]) {
      for (int k = 0; k < w; ++k) {
        m[k] = -std::numeric_limits<double>::infinity();
        s[k] = 0;
      }
    }
    State get(int k) const { return {m[k], s[k]}; }
    void merge(const Cols& o, int w) {
      for (int k = 0; k < w; ++k) {
        const State c = combine(get(k), o.get(k));
        m[k] = c.m;
        s[k] = c.s;
      }
    }
  };
  static void add_cols(Cols& cs, const C* const* rows, int nrows, int w) {
    C* mx = cs.mx.get();
    C* sh = cs.sh.get();
    C* acc = cs.acc.get();
    for (int k = 0; k < w; ++k) mx[k] = rows[0][k];
    for (int r = 1; r < nrows; ++r) {
      const C* __restrict row = rows[r];
      for (int k = 0; k < w; ++k) mx[k] = (row[k] > mx[k] || row[k] != row[k]) ? row[k] : mx[k];
    }
    for (int k = 0; k < w; ++k) {
      raise(cs.m[k], cs.s[k], mx[k]);
      sh[k] = shift(cs.m[k]);
      acc[k] = 0;
    }
    using V = typename VecT<C>::V;
    constexpr int N = VecT<C>::N;
    for (int r = 0; r < nrows; ++r) {
      const C* __restrict row = rows[r];
      int k = 0;
      for (; k + N <= w; k += N) {
        V a = vld<V>(acc + k) + vexp(vld<V>(row + k) - vld<V>(sh + k));
        std::memcpy(acc + k, &a, sizeof(V));
      }
      for (; k < w; ++k) acc[k] += std::exp(row[k] - sh[k]);
    }
    for (int k = 0; k < w; ++k) cs.s[k] += static_cast<double>(acc[k]);
  }

  static void store(const ReduceLoop& L, const int64_t* off, const State& st, StatOp) {
    double r;
    if (st.m != st.m || std::isinf(st.m)) r = st.m;
    else r = std::log(st.s) + st.m;
    *reinterpret_cast<In*>(L.out[0] + off[0]) = static_cast<In>(static_cast<C>(r));
  }
};

// ---------------------------------------------------------------- the driver
template <class S>
struct StatDriver {
  using In = typename S::in_t;
  using C = typename S::c_t;
  using State = typename S::State;
  static constexpr int64_t kBlock = 16384 / static_cast<int64_t>(sizeof(C));
  const ReduceLoop& L;
  const StatOp op;
  const int64_t R;

  StatDriver(const ReduceLoop& loop, StatOp o) : L(loop), op(o), R(loop.reduce_size) {}

  // Reduced positions [b, e) of the output whose input starts at `base`, into st.
  void accumulate(const char* base, int64_t b, int64_t e, State& st) const {
    constexpr int64_t isz = static_cast<int64_t>(sizeof(In));
    if constexpr (std::is_same_v<In, C>) {
      if (L.nred == 1 && L.red_in[0] == isz) {
        const C* p = reinterpret_cast<const C*>(base);
        for (int64_t i = b; i < e; i += kBlock) S::add_block(st, p + i, std::min(kBlock, e - i));
        return;
      }
    }
    C buf[kBlock];
    if (L.nred == 0) {  // every reduced dim has size 1
      buf[0] = convert<C>(load<In>(base));
      S::add_block(st, buf, 1);
      return;
    }
    const int64_t r0 = L.red_size[0], s0 = L.red_in[0];
    Walker w(L.nred - 1, L.red_size + 1, L.red_in + 1, b / r0);
    int64_t start = b % r0, pos = b, fill = 0;
    while (pos < e) {
      const int64_t n = std::min({r0 - start, e - pos, kBlock - fill});
      const char* p = base + w.offset + start * s0;
      for (int64_t i = 0; i < n; ++i) buf[fill + i] = convert<C>(load<In>(p + i * s0));
      fill += n;
      pos += n;
      start += n;
      if (start == r0) {
        start = 0;
        w.next();
      }
      if (fill == kBlock || pos == e) {
        S::add_block(st, buf, fill);
        fill = 0;
      }
    }
  }

  void run_inner() const {
    const int64_t O = L.num_outputs;
    if (O < kFewOutputs && R >= 2 * kChunkMin) {
      const int64_t len = chunk_length(R, kBlock);
      const int nchunks = static_cast<int>((R + len - 1) / len);
      KeptWalker k(L, 0, 0);
      for (int64_t o = 0; o < O; ++o, k.next()) {
        State part[kMaxChunks];
        const char* base = L.in + k.in_off;
        parallel_range(nchunks, len, [&](int64_t b, int64_t e) {
          for (int64_t c = b; c < e; ++c) accumulate(base, c * len, std::min(R, (c + 1) * len), part[c]);
        });
        State st;
        for (int c = 0; c < nchunks; ++c) st = S::combine(st, part[c]);
        S::store(L, k.out_off, st, op);
      }
      return;
    }
    parallel_range(O, R, [&](int64_t b, int64_t e) {
      KeptWalker k(L, 0, b);
      for (int64_t o = b; o < e; ++o, k.next()) {
        State st;
        if (R > 0) accumulate(L.in + k.in_off, 0, R, st);
        S::store(L, k.out_off, st, op);
      }
    });
  }

  // ---- columns: tiles of up to W adjacent outputs along the contiguous kept dim
  static constexpr int W = static_cast<int>(8192 / sizeof(C));

  // Rows [b, e) of the tile at `base` (w columns) into cs.
  void tile_rows(const char* base, int w, int64_t b, int64_t e, typename S::Cols& cs) const {
    const C* rows[S::kColRows];
    Walker wk(L.nred, L.red_size, L.red_in, b);
    for (int64_t pos = b; pos < e;) {
      int n = 0;
      for (; n < S::kColRows && pos < e; ++n, ++pos, wk.next()) rows[n] = reinterpret_cast<const C*>(base + wk.offset);
      S::add_cols(cs, rows, n, w);
    }
  }

  void run_outer() const {
    const int64_t K = L.kept_size[0];
    const int64_t tiles = (K + W - 1) / W;
    const int64_t units = L.num_outputs / K * tiles;
    constexpr int64_t isz = static_cast<int64_t>(sizeof(C));
    auto unit_base = [&](int64_t u, int64_t* off, int* w) {
      KeptWalker k(L, 1, u / tiles);
      const int64_t t = u % tiles;
      *w = static_cast<int>(std::min<int64_t>(W, K - t * W));
      for (int j = 0; j < L.nout; ++j) off[j] = k.out_off[j] + t * W * L.kept_out[j][0];
      return L.in + k.in_off + t * W * isz;
    };
    auto store_tile = [&](const int64_t* off, int w, const typename S::Cols& cs) {
      int64_t o[ReduceLoop::kMaxOutputs];
      for (int k = 0; k < w; ++k) {
        for (int j = 0; j < L.nout; ++j) o[j] = off[j] + k * L.kept_out[j][0];
        S::store(L, o, cs.get(k), op);
      }
    };
    if (units < kFewOutputs && R >= 2048) {
      // Few tiles, many rows: chunks of rows per tile, combined in order.
      constexpr int kTileChunks = 16;
      const int64_t len = std::max<int64_t>(512, (R + kTileChunks - 1) / kTileChunks);
      const int nchunks = static_cast<int>((R + len - 1) / len);
      for (int64_t u = 0; u < units; ++u) {
        int64_t off[ReduceLoop::kMaxOutputs];
        int w;
        const char* base = unit_base(u, off, &w);
        std::vector<std::unique_ptr<typename S::Cols>> part(static_cast<size_t>(nchunks));
        for (auto& p : part) p = std::make_unique<typename S::Cols>(w);
        parallel_range(nchunks, len * w, [&](int64_t b, int64_t e) {
          for (int64_t c = b; c < e; ++c) tile_rows(base, w, c * len, std::min(R, (c + 1) * len), *part[c]);
        });
        for (int c = 1; c < nchunks; ++c) part[0]->merge(*part[c], w);
        store_tile(off, w, *part[0]);
      }
      return;
    }
    parallel_range(units, R * W, [&](int64_t b, int64_t e) {
      for (int64_t u = b; u < e; ++u) {
        int64_t off[ReduceLoop::kMaxOutputs];
        int w;
        const char* base = unit_base(u, off, &w);
        typename S::Cols cs(w);
        tile_rows(base, w, 0, R, cs);
        store_tile(off, w, cs);
      }
    });
  }

  void run() const {
    if (L.num_outputs == 0) return;
    constexpr int64_t isz = static_cast<int64_t>(sizeof(In));
    if constexpr (std::is_same_v<In, C>) {
      const bool outer = L.nkept > 0 && L.nred > 0 && L.kept_in[0] == isz && L.red_in[0] != isz && R > 0;
      if (outer) return run_outer();
    }
    run_inner();
  }
};

template <typename T>
void stat_typed(const ReduceLoop& loop, StatOp op) {
  if constexpr (!std::is_floating_point_v<opmath_t<T>>) {
    EMBER_FAIL(RuntimeError, "no statistical reduction kernel for ", loop.in_dtype);
  } else if (op == StatOp::LogSumExp) {
    StatDriver<LseStat<T>>(loop, op).run();
  } else {
    StatDriver<VarStat<T>>(loop, op).run();
  }
}

}  // namespace

void stat_reduce_kernel(const ReduceLoop& loop, StatOp op) {
  EMBER_DISPATCH_KERNEL(loop.in_dtype, "std_var", stat_reduce_kernel(loop, op), [&] { stat_typed<scalar_t>(loop, op); });
}

EMBER_REGISTER_STUB(stat_reduce_stub, &stat_reduce_kernel);

}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
