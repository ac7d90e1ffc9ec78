// Reduction kernels: sum, mean, nansum, prod, max, min, all, any, count_nonzero and the
// vector norms (values), and max/min with indices along one dim.
//
// A reduction op is a small policy (identity, load, combine, finish; vmap is load's vector
// form, e.g. |x| for the L1 norm); one driver runs every policy over a ReduceLoop in one of
// two layouts:
//  - inner: each output reduces rows that are contiguous (or strided) in the input. Elements
//    go into L lane accumulators (four vectors' worth, GCC vector types so they stay in
//    registers; no reassociation, so no -ffast-math is needed). Floating sums cascade: per
//    lane, level 0 sums 16 elements, level 1 sums 16 level-0 partials, and level-1 blocks
//    are combined pairwise (a binary counter), which keeps the error growth of PyTorch's
//    cascade sum. Long rows are read as two memory streams (two blocks, or two rows half a
//    thread's range apart, at a time), which gives about 1.4x the bandwidth of one stream;
//    the arithmetic per row stays the same as with one stream. The AVX-512 build reads data
//    that is not 64-byte aligned with 32-byte vectors, into the same lanes.
//  - outer: the innermost kept dim is contiguous and the reduced dims are not; a tile of up
//    to 16 KB of adjacent outputs is accumulated across rows (vectorized across the tile),
//    with a fixed four-level cascade across rows.
// Threads split the outputs, or, when there are few outputs and much to reduce, the reduced
// range into chunks whose bounds depend only on the sizes; chunk partials are combined in a
// fixed tree. Results are therefore the same whatever the number of threads.
#include <omp.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>

#include "backends/cpu/kernels/basic_loops.h"
#include "backends/cpu/kernels/reduce_walk.h"
#include "backends/cpu/kernels/unary_loops.h"
#include "backends/cpu/stubs.h"
#include "core/dtype_dispatch.h"

namespace ember::cpu {
namespace isa_Default {
void reduce_kernel(const ReduceLoop& loop, ReduceOp op);
void arg_reduce_kernel(const ReduceLoop& loop, ReduceOp op);
}  // namespace isa_Default
namespace EMBER_ISA_NAMESPACE {
namespace {

constexpr int kLaneBytes = 4 * kVecBytes;  // four vector accumulators per memory stream
// Width of an outer-reduction tile: whole rows of up to 16 KB stream through memory in order
// (narrow tiles that hop between rows ran 2x slower); its four cascade levels take 64 KB of
// stack.
constexpr int kTileBytes = 16384;

// Reductions smaller than this run as one plain loop per output.
constexpr int64_t kSmallReduce = 64;
// Contiguous rows up to this length run as one short vector loop each (vectorized ops).
constexpr int64_t kShortRow = 256;
// ---------------------------------------------------------------- policies
template <typename T>
constexpr bool is_float_like_v = std::is_floating_point_v<T> || is_complex_v<T>;

template <typename In, typename Acc, typename Out, bool IsMean>
struct SumOp {
  using in_t = In;
  using acc_t = Acc;
  using out_t = Out;
  static constexpr bool kCascade = is_float_like_v<Acc>;
  static constexpr bool kVec = true;
  template <typename V>
  static V vmap(V v) { return v; }
  static Acc identity() { return Acc(0); }
  static Acc load(In x) { return convert<Acc>(x); }
  static Acc combine(Acc a, Acc b) {
    if constexpr (std::is_same_v<Acc, bool>) {
      return a || b;
    } else if constexpr (std::is_integral_v<Acc>) {
      using U = std::make_unsigned_t<Acc>;  // wraps like PyTorch, without signed overflow
      return static_cast<Acc>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      return a + b;
    }
  }
  template <typename V>
  static V vcombine(V a, V b) {
    if constexpr (std::is_integral_v<Acc>) {
      typedef std::make_unsigned_t<Acc> UV __attribute__((vector_size(sizeof(V))));
      return reinterpret_cast<V>(reinterpret_cast<UV>(a) + reinterpret_cast<UV>(b));
    } else {
      return a + b;
    }
  }
  static Out finish(Acc a, int64_t n) {
    Out s = convert<Out>(a);
    if constexpr (IsMean) {
      // PyTorch's mean is the sum in the result dtype divided by the count.
      if constexpr (is_complex_v<Out>) {
        using V = typename Out::value_type;
        return Out(s.real() / static_cast<V>(n), s.imag() / static_cast<V>(n));
      } else {
        using M = opmath_t<Out>;
        return Out(static_cast<M>(s) / static_cast<M>(n));
      }
    }
    return s;
  }
};

template <typename T, bool IsMax>
struct MinMaxOp {
  using M = opmath_t<T>;
  using in_t = T;
  using acc_t = M;
  using out_t = T;
  static constexpr bool kCascade = false;
  static constexpr bool kVec = true;
  template <typename V>
  static V vmap(V v) { return v; }
  static M identity() {
    if constexpr (std::is_same_v<M, bool>) return !IsMax;
    else if constexpr (std::is_floating_point_v<M>)
      return IsMax ? -std::numeric_limits<M>::infinity() : std::numeric_limits<M>::infinity();
    else return IsMax ? std::numeric_limits<M>::lowest() : std::numeric_limits<M>::max();
  }
  static M load(T x) { return static_cast<M>(x); }
  // NaN is sticky: once the accumulator holds one, comparisons with it are false.
  static M combine(M a, M x) {
    if constexpr (std::is_floating_point_v<M>) {
      if constexpr (IsMax) return (x > a || x != x) ? x : a;
      else return (x < a || x != x) ? x : a;
    } else {
      if constexpr (IsMax) return x > a ? x : a;
      else return x < a ? x : a;
    }
  }
  template <typename V>
  static V vcombine(V a, V x) {
    if constexpr (std::is_floating_point_v<M>) {
#if defined(__AVX2__)
      // max_ps(x, a) is exactly `x > a ? x : a`; then NaN x is taken. Written out because GCC
      // turns the generic form into mask compares in the AVX-512 build (k registers: 1.8x
      // slower on AMD Zen in cache, amax(1) of 4096x4096 float32 1.25x slower than the AVX2
      // build), and into one compare more in the AVX2 build.
      if constexpr (sizeof(V) == 32 && std::is_same_v<M, float>) {
        const __m256 X = (__m256)x, A = (__m256)a;
        const __m256 m = IsMax ? _mm256_max_ps(X, A) : _mm256_min_ps(X, A);
        return (V)_mm256_blendv_ps(m, X, _mm256_cmp_ps(X, X, _CMP_UNORD_Q));
      }
      if constexpr (sizeof(V) == 32 && std::is_same_v<M, double>) {
        const __m256d X = (__m256d)x, A = (__m256d)a;
        const __m256d m = IsMax ? _mm256_max_pd(X, A) : _mm256_min_pd(X, A);
        return (V)_mm256_blendv_pd(m, X, _mm256_cmp_pd(X, X, _CMP_UNORD_Q));
      }
#endif
#if defined(__AVX512F__)
      if constexpr (sizeof(V) == 64 && std::is_same_v<M, float>) {
        const __m512 X = (__m512)x, A = (__m512)a;
        const __m512 m = IsMax ? _mm512_maskz_max_ps(0xffff, X, A) : _mm512_maskz_min_ps(0xffff, X, A);  // maskz: GCC 12
        return (V)_mm512_mask_mov_ps(m, _mm512_cmp_ps_mask(X, X, _CMP_UNORD_Q), X);
      }
      if constexpr (sizeof(V) == 64 && std::is_same_v<M, double>) {
        const __m512d X = (__m512d)x, A = (__m512d)a;
        const __m512d m = IsMax ? _mm512_maskz_max_pd(0xff, X, A) : _mm512_maskz_min_pd(0xff, X, A);
        return (V)_mm512_mask_mov_pd(m, _mm512_cmp_pd_mask(X, X, _CMP_UNORD_Q), X);
      }
#endif
      auto take = (IsMax ? x > a : x < a) | (x != x);
      return take ? x : a;
    } else {
      return (IsMax ? x > a : x < a) ? x : a;
    }
  }
  static T finish(M a, int64_t) { return static_cast<T>(a); }
};

// Sum skipping NaN (floating inputs; integers have none and use SumOp).
template <typename T>
struct NanSumOp : SumOp<T, opmath_t<T>, T, false> {
  using Acc = opmath_t<T>;
  static Acc load(T x) {
    const Acc v = static_cast<Acc>(x);
    return v != v ? Acc(0) : v;
  }
  template <typename V>
  static V vmap(V v) {
    const V z = {};
    return v == v ? v : z;
  }
};

template <typename In, typename Acc, typename Out>
struct ProdOp {
  using in_t = In;
  using acc_t = Acc;
  using out_t = Out;
  static constexpr bool kCascade = false;
  static constexpr bool kVec = true;
  template <typename V>
  static V vmap(V v) { return v; }
  static Acc identity() { return Acc(1); }
  static Acc load(In x) { return convert<Acc>(x); }
  static Acc combine(Acc a, Acc b) {
    if constexpr (std::is_same_v<Acc, bool>) {
      return a && b;
    } else if constexpr (std::is_integral_v<Acc>) {
      using U = std::make_unsigned_t<Acc>;  // wraps like PyTorch, without signed overflow
      return static_cast<Acc>(static_cast<U>(a) * static_cast<U>(b));
    } else {
      return a * b;
    }
  }
  template <typename V>
  static V vcombine(V a, V b) {
    if constexpr (std::is_integral_v<Acc>) {
      typedef std::make_unsigned_t<Acc> UV __attribute__((vector_size(sizeof(V))));
      return reinterpret_cast<V>(reinterpret_cast<UV>(a) * reinterpret_cast<UV>(b));
    } else {
      return a * b;
    }
  }
  static Out finish(Acc a, int64_t) { return convert<Out>(a); }
};

// all (IsAnd), any and count_nonzero test each element's bits, so that one instantiation
// serves every dtype of a size: integers and bool are non-zero when any bit is set, floating
// types when any bit but the sign is (-0.0 is zero, NaN is not). ops/reduce.cpp compares the
// other dtypes with zero first.
template <typename U, U Mask>
struct MaskedBits {
  using type = U;
  static bool nonzero(U x) { return (x & Mask) != 0; }
};

// all and any: the truths as 0 or 1 into a bool or a uint8 output (one byte either way). The
// truths are kept as bytes combined with & and | (not bool's && and ||), which GCC vectorizes.
template <typename Bits, bool IsAnd>
struct BoolOp {
  using in_t = typename Bits::type;
  using acc_t = uint8_t;
  using out_t = uint8_t;
  static constexpr bool kCascade = false;
  static constexpr bool kVec = false;
  static uint8_t identity() { return IsAnd ? 1 : 0; }
  static uint8_t load(in_t x) { return Bits::nonzero(x) ? 1 : 0; }
  static uint8_t combine(uint8_t a, uint8_t b) { return IsAnd ? (a & b) : (a | b); }
  template <typename V>
  static V vmap(V v) { return v; }
  template <typename V>
  static V vcombine(V a, V b) { return IsAnd ? (a & b) : (a | b); }
  static uint8_t finish(uint8_t a, int64_t) { return a; }
};
template <typename Bits>
using AllOp = BoolOp<Bits, true>;
template <typename Bits>
using AnyOp = BoolOp<Bits, false>;

template <typename Bits>
struct CountNonzeroOp {
  using in_t = typename Bits::type;
  using acc_t = int64_t;
  using out_t = int64_t;
  static constexpr bool kCascade = false;
  static constexpr bool kVec = false;
  static int64_t identity() { return 0; }
  static int64_t load(in_t x) { return Bits::nonzero(x) ? 1 : 0; }
  static int64_t combine(int64_t a, int64_t b) { return a + b; }
  template <typename V>
  static V vmap(V v) { return v; }
  template <typename V>
  static V vcombine(V a, V b) { return a + b; }
  static int64_t finish(int64_t a, int64_t) { return a; }
};

// Vector norms of real or complex inputs into the real dtype: the sum (L1, L2, P, Zero) or
// extreme (Inf, NegInf) of |x|^p, finished with the 1/p power.
template <typename T> struct RealOf { using type = T; };
template <typename T> struct RealOf<std::complex<T>> { using type = T; };

template <typename In, ReduceOp Kind>
struct NormOp {
  using Real = typename RealOf<In>::type;
  using in_t = In;
  using acc_t = std::conditional_t<Kind == ReduceOp::NormZero, double, opmath_t<Real>>;
  using out_t = Real;
  using Acc = acc_t;
  static constexpr bool kExtreme = Kind == ReduceOp::NormInf || Kind == ReduceOp::NormNegInf;
  static constexpr bool kCascade = !kExtreme;
  // Plain real inputs vectorize |x| and x*x; the others take the scalar lane loop.
  static constexpr bool kVec = !is_complex_v<In> && Kind != ReduceOp::NormP && Kind != ReduceOp::NormZero;
  // NormP's exponent: set by the kernel entry under norm_p_mutex before a run (the lane
  // loops call the policy statically; worker threads read it after the fork).
  static inline double p = 2;
  static Acc mag(In x) {
    if constexpr (is_complex_v<In>) return static_cast<Acc>(std::abs(x));
    else return static_cast<Acc>(std::abs(static_cast<opmath_t<Real>>(x)));
  }
  static Acc identity() {
    if constexpr (Kind == ReduceOp::NormNegInf) return std::numeric_limits<Acc>::infinity();
    else return Acc(0);
  }
  static Acc load(In x) {
    if constexpr (Kind == ReduceOp::NormL2) {
      if constexpr (is_complex_v<In>) return static_cast<Acc>(std::norm(x));
      else { const Acc v = static_cast<Acc>(x); return v * v; }
    } else if constexpr (Kind == ReduceOp::NormP) {
      return static_cast<Acc>(std::pow(mag(x), static_cast<Acc>(p)));
    } else if constexpr (Kind == ReduceOp::NormZero) {
      return convert<bool>(x) ? Acc(1) : Acc(0);
    } else {
      return mag(x);
    }
  }
  template <typename V>
  static V vmap(V v) {
    if constexpr (Kind == ReduceOp::NormL2) {
      return v * v;
    } else {  // clear the sign bit: NaN stays NaN, -0 becomes +0
      using E = std::remove_cvref_t<decltype(v[0])>;
      using I = std::conditional_t<sizeof(E) == 4, int32_t, int64_t>;
      typedef I IV __attribute__((vector_size(sizeof(V))));
      return reinterpret_cast<V>(reinterpret_cast<IV>(v) & std::numeric_limits<I>::max());
    }
  }
  static Acc combine(Acc a, Acc x) {
    if constexpr (Kind == ReduceOp::NormInf) return (x > a || x != x) ? x : a;
    else if constexpr (Kind == ReduceOp::NormNegInf) return (x < a || x != x) ? x : a;
    else return a + x;
  }
  template <typename V>
  static V vcombine(V a, V x) {
    if constexpr (Kind == ReduceOp::NormInf) return ((x > a) | (x != x)) ? x : a;
    else if constexpr (Kind == ReduceOp::NormNegInf) return ((x < a) | (x != x)) ? x : a;
    else return a + x;
  }
  static Real finish(Acc a, int64_t) {
    if constexpr (Kind == ReduceOp::NormL2) return static_cast<Real>(std::sqrt(a));
    else if constexpr (Kind == ReduceOp::NormP) return static_cast<Real>(std::pow(a, static_cast<Acc>(1.0 / p)));
    else return static_cast<Real>(a);
  }
};

// ---------------------------------------------------------------- accumulation helpers
// Partials combined pairwise: a binary counter whose level l holds the combination of 2^l
// consecutive blocks. Each partial is a set of N lanes, combined lane by lane (cheap vector
// adds), so blocks can be short; lanes are reduced pairwise only at the end.
template <class Op, int N>
struct Cascade {
  using Acc = typename Op::acc_t;
  Acc level[64][N];
  uint64_t used = 0;
  void push(const Acc* v) {
    Acc cur[N];
    for (int j = 0; j < N; ++j) cur[j] = v[j];
    int l = 0;
    while (used >> l & 1) {
      for (int j = 0; j < N; ++j) cur[j] = Op::combine(level[l][j], cur[j]);
      used &= ~(uint64_t(1) << l);
      ++l;
    }
    for (int j = 0; j < N; ++j) level[l][j] = cur[j];
    used |= uint64_t(1) << l;
  }
  Acc result() const {
    Acc r[N];
    for (int j = 0; j < N; ++j) r[j] = Op::identity();
    bool first = true;
    for (int l = 0; l < 64; ++l) {
      if (!(used >> l & 1)) continue;
      for (int j = 0; j < N; ++j) r[j] = first ? level[l][j] : Op::combine(level[l][j], r[j]);
      first = false;
    }
    for (int w = N / 2; w >= 1; w /= 2)
      for (int j = 0; j < w; ++j) r[j] = Op::combine(r[j], r[j + w]);
    return r[0];
  }
};

// The lane loops below use GCC vector types for the element types that have them, so that
// the accumulators stay in registers (plain arrays of 2 x 32 floats get spilled); lane j
// still holds the elements j mod L, so both forms give the same result.
// The AVX builds read float16 and bfloat16 into float vectors (F16C, integer shifts) and run
// the float32 lane loops on them, accumulating in float as PyTorch does.
template <typename T>
constexpr bool kWiden16 = !EMBER_ISA_DEFAULT && (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>);

template <class Op>
constexpr bool kVecLanes = Op::kVec &&
                           (std::is_same_v<typename Op::in_t, typename Op::acc_t> ||
                            (kWiden16<typename Op::in_t> && std::is_same_v<typename Op::acc_t, float>)) &&
                           (std::is_same_v<typename Op::acc_t, float> || std::is_same_v<typename Op::acc_t, double> ||
                            std::is_same_v<typename Op::acc_t, int32_t> || std::is_same_v<typename Op::acc_t, int64_t>);

template <typename V, typename T>
inline V vload(const T* p) {
  V v;
  std::memcpy(&v, p, sizeof(V));
  return v;
}

#if !EMBER_ISA_DEFAULT
// One float vector V from sizeof(V) / 4 16-bit floats, rounded exactly as the scalar loads.
template <typename V>
inline V vload(const Half* p) {
  if constexpr (sizeof(V) == 64) {
#if defined(__AVX512F__)  // maskz: GCC 12 warns about the plain form's undefined source
    return (V)_mm512_maskz_cvtph_ps(__mmask16(0xffff), _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
#endif
  } else {
    static_assert(sizeof(V) == 32);
    return (V)_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
}
template <typename V>
inline V vload(const BFloat16* p) {
  if constexpr (sizeof(V) == 64) {
#if defined(__AVX512F__)
    const auto all = __mmask16(0xffff);  // maskz: see the float16 load
    return (V)_mm512_maskz_slli_epi32(
        all, _mm512_maskz_cvtepu16_epi32(all, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))), 16);
#endif
  } else {
    static_assert(sizeof(V) == 32);
    return (V)_mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))), 16);
  }
}
#endif

// A 64-byte load that straddles two cache lines costs about twice an aligned one on AMD Zen
// 4/5 (a sum of 16M floats 16 bytes past a line: 75 GB/s with 64-byte loads and adds, 110 GB/s
// with 32-byte ones, 125 GB/s aligned). NumPy's large arrays sit 16 bytes past a line, so the
// AVX-512 build runs the lane loops at 32 bytes (VB) on misaligned data. Lane j holds the
// elements j mod L at any width, so the results do not change.
template <class Op>
constexpr bool kHalfWidth = kVecBytes == 64 && kVecLanes<Op>;

inline bool off_line(const void* p) { return reinterpret_cast<uintptr_t>(p) % 64 != 0; }

// The lane loops keep L lanes in NV vectors of VB bytes, all in registers.
template <class Op, int L, int VB>
struct LaneVecs {
  using Acc = typename Op::acc_t;
  typedef Acc V __attribute__((vector_size(VB)));
  static constexpr int VL = VB / static_cast<int>(sizeof(Acc));
  static constexpr int NV = L / VL;
  static_assert(NV * VL == L);
};

// The lanes of one vector combined into one value, lane j with lane j + n/2 first, as
// RowAccum's pairwise lane reduction does: halves as vectors down to 16 bytes, then shuffles
// (a branchy scalar max over 16-64 lanes cost more than a short row).
template <class Op, typename V>
inline typename Op::acc_t combine_vector(V v) {
  using Acc = typename Op::acc_t;
  if constexpr (sizeof(V) > 16) {
    typedef Acc H __attribute__((vector_size(sizeof(V) / 2)));
    H lo, hi;
    std::memcpy(&lo, &v, sizeof(H));
    std::memcpy(&hi, reinterpret_cast<const char*>(&v) + sizeof(H), sizeof(H));
    return combine_vector<Op>(Op::vcombine(lo, hi));
  } else {
    static_assert(sizeof(V) == 16 && (sizeof(Acc) == 4 || sizeof(Acc) == 8));
    if constexpr (sizeof(Acc) == 4) {
      v = Op::vcombine(v, __builtin_shufflevector(v, v, 2, 3, 0, 1));
      v = Op::vcombine(v, __builtin_shufflevector(v, v, 1, 0, 3, 2));
    } else {
      v = Op::vcombine(v, __builtin_shufflevector(v, v, 1, 0));
    }
    return v[0];
  }
}

// L lanes (kVecLanes ops) combined pairwise, lane j with lane j + L/2 first, as vectors.
template <class Op, int L>
inline typename Op::acc_t combine_lanes(const typename Op::acc_t* lanes) {
  using LV = LaneVecs<Op, L, kVecBytes>;
  typename LV::V v[LV::NV];
  for (int k = 0; k < LV::NV; ++k) std::memcpy(&v[k], lanes + k * LV::VL, sizeof(v[k]));
  for (int n = LV::NV; n > 1; n /= 2)
    for (int k = 0; k < n / 2; ++k) v[k] = Op::vcombine(v[k], v[k + n / 2]);
  return combine_vector<Op>(v[0]);
}

template <class Op, int L, int VB = kVecBytes>
inline void accumulate_lanes(typename Op::acc_t* __restrict acc, const typename Op::in_t* __restrict p,
                             int64_t n) {
  using Acc = typename Op::acc_t;
  if constexpr (kVecLanes<Op>) {
    using LV = LaneVecs<Op, L, VB>;
    using V = typename LV::V;
    constexpr int VL = LV::VL, NV = LV::NV;
    V a[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) a[v] = vload<V>(acc + v * VL);
    for (int64_t i = 0; i + L <= n; i += L) {
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) a[v] = Op::vcombine(a[v], Op::vmap(vload<V>(p + i + v * VL)));
    }
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) std::memcpy(acc + v * VL, &a[v], sizeof(V));
  } else {
    Acc a[L];
    for (int j = 0; j < L; ++j) a[j] = acc[j];
    for (int64_t i = 0; i + L <= n; i += L)
      for (int j = 0; j < L; ++j) a[j] = Op::combine(a[j], Op::load(p[i + j]));
    for (int j = 0; j < L; ++j) acc[j] = a[j];
  }
}

// Two independent runs at once: two memory streams keep more loads in flight than one (about
// 1.4x the bandwidth of a single stream on the project's machine), and twice the accumulators
// hide the add latency.
template <class Op, int L, int VB = kVecBytes>
inline void accumulate_lanes2(typename Op::acc_t* __restrict acc, const typename Op::in_t* __restrict p,
                              typename Op::acc_t* __restrict acc2, const typename Op::in_t* __restrict q,
                              int64_t n) {
  if constexpr (kVecLanes<Op>) {
    using LV = LaneVecs<Op, L, VB>;
    using V = typename LV::V;
    constexpr int VL = LV::VL, NV = LV::NV;
    V a[NV], b[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      a[v] = vload<V>(acc + v * VL);
      b[v] = vload<V>(acc2 + v * VL);
    }
    for (int64_t i = 0; i + L <= n; i += L) {
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        a[v] = Op::vcombine(a[v], Op::vmap(vload<V>(p + i + v * VL)));
        b[v] = Op::vcombine(b[v], Op::vmap(vload<V>(q + i + v * VL)));
      }
    }
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      std::memcpy(acc + v * VL, &a[v], sizeof(V));
      std::memcpy(acc2 + v * VL, &b[v], sizeof(V));
    }
  } else {
    accumulate_lanes<Op, L, VB>(acc, p, n);
    accumulate_lanes<Op, L, VB>(acc2, q, n);
  }
}

// Floating sums, two memory streams at once: `nsub` level-0 blocks of kSub x L elements from
// each of p and q. Per lane, each level-0 block sums kSub elements from zero and is then added
// to the level-1 partials lv_p / lv_q (read and written), all in registers. This is the same
// arithmetic as RowAccum's one-stream path, so results do not depend on which path ran.
template <class Op, int L, int kSub, int VB = kVecBytes>
inline void level0_blocks_pair(const typename Op::in_t* __restrict p, const typename Op::in_t* __restrict q,
                               int64_t nsub, typename Op::acc_t* __restrict lv_p, typename Op::acc_t* __restrict lv_q) {
  using Acc = typename Op::acc_t;
  if constexpr (kVecLanes<Op>) {
    using LV = LaneVecs<Op, L, VB>;
    using V = typename LV::V;
    constexpr int VL = LV::VL, NV = LV::NV;
    const V z = {};  // the identity of a sum
    V sa[NV], sb[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      sa[v] = vload<V>(lv_p + v * VL);
      sb[v] = vload<V>(lv_q + v * VL);
    }
    for (int64_t s = 0; s < nsub; ++s) {
      V a[NV], b[NV];
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) a[v] = b[v] = z;
      // Not unrolled fully: GCC would then schedule one accumulator's 16 adds back to back (a
      // latency-bound chain) instead of interleaving the independent ones.
#pragma GCC unroll 2
      for (int r = 0; r < kSub; ++r, p += L, q += L) {
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) {
          a[v] = Op::vcombine(a[v], Op::vmap(vload<V>(p + v * VL)));
          b[v] = Op::vcombine(b[v], Op::vmap(vload<V>(q + v * VL)));
        }
      }
#pragma GCC unroll 8
      for (int v = 0; v < NV; ++v) {
        sa[v] = Op::vcombine(sa[v], a[v]);
        sb[v] = Op::vcombine(sb[v], b[v]);
      }
    }
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) {
      std::memcpy(lv_p + v * VL, &sa[v], sizeof(V));
      std::memcpy(lv_q + v * VL, &sb[v], sizeof(V));
    }
  } else {
    for (int which = 0; which < 2; ++which) {
      const typename Op::in_t* src = which ? q : p;
      Acc* lv = which ? lv_q : lv_p;
      Acc lv0[L];
      for (int64_t s = 0; s < nsub; ++s) {
        for (int j = 0; j < L; ++j) lv0[j] = Op::identity();
        accumulate_lanes<Op, L>(lv0, src + s * kSub * L, kSub * L);
        for (int j = 0; j < L; ++j) lv[j] = Op::combine(lv[j], lv0[j]);
      }
    }
  }
}

// Accumulates a stream of contiguous or strided runs into one result, in order.
// Floating sums keep per-lane partials at three levels: level 0 sums kSub elements per lane,
// level 1 sums kSub level-0 partials, and full level-1 blocks go into a pairwise cascade:
// error growth like PyTorch's cascade sum (fan-out 16) at the speed of a plain vector loop.
// Exact reductions (integers, max/min) use level 0 only.
template <class Op>
struct RowAccum {
  using In = typename Op::in_t;
  using Acc = typename Op::acc_t;
  static constexpr int L = sizeof(Acc) >= kLaneBytes ? 1 : kLaneBytes / static_cast<int>(sizeof(Acc));
  static constexpr int kSub = 16;
  static constexpr int64_t kLevel0 = Op::kCascade ? int64_t(kSub) * L : std::numeric_limits<int64_t>::max();
  // Elements per cascade block (cascade ops only).
  static constexpr int64_t kBlock = Op::kCascade ? kLevel0 * kSub : std::numeric_limits<int64_t>::max();

  Acc lanes[L];   // level 0
  Acc level1[L];
  int64_t in_level0 = 0;  // elements in level 0
  int in_level1 = 0;      // level-0 partials in level 1
  Cascade<Op, Op::kCascade ? L : 1> cascade;

  RowAccum() {
    reset(lanes);
    reset(level1);
  }
  static void reset(Acc* ln) {
    if constexpr (kVecLanes<Op>) {
      // Vector stores (GCC otherwise emits a slow `rep stos` for these short arrays).
      typedef Acc V __attribute__((vector_size(kVecBytes)));
      constexpr int VL = kVecBytes / static_cast<int>(sizeof(Acc));
      V v;
      for (int j = 0; j < VL; ++j) v[j] = Op::identity();
      for (int j = 0; j < L; j += VL) std::memcpy(ln + j, &v, sizeof(V));
    } else {
      for (int j = 0; j < L; ++j) ln[j] = Op::identity();
    }
  }
  // Level 0 is full: fold it into level 1, and level 1 into the cascade when that is full.
  void carry() {
    for (int j = 0; j < L; ++j) level1[j] = Op::combine(level1[j], lanes[j]);
    reset(lanes);
    in_level0 = 0;
    if (++in_level1 == kSub) {
      cascade.push(level1);
      reset(level1);
      in_level1 = 0;
    }
  }
  void add_contig(const In* p, int64_t n) {
    if constexpr (kHalfWidth<Op>) {
      if (off_line(p)) return add_contig_at<kVecBytes / 2>(p, n);
    }
    add_contig_at<kVecBytes>(p, n);
  }
  // Two accumulators fed with equally long contiguous runs, as two memory streams; each ends
  // as if it had been fed alone.
  static void add_contig_pair(RowAccum& A, const In* p, RowAccum& B, const In* q, int64_t n) {
    if constexpr (kHalfWidth<Op>) {
      if (off_line(p) || off_line(q)) return add_contig_pair_at<kVecBytes / 2>(A, p, B, q, n);
    }
    add_contig_pair_at<kVecBytes>(A, p, B, q, n);
  }
  template <int VB>
  void add_contig_at(const In* p, int64_t n) {
    if constexpr (Op::kCascade) {
      if (in_level0 == 0 && in_level1 == 0 && n >= 2 * kBlock) {
        Acc a[L], b[L];
        do {
          reset(a);
          reset(b);
          level0_blocks_pair<Op, L, kSub, VB>(p, p + kBlock, kSub, a, b);
          cascade.push(a);
          cascade.push(b);
          p += 2 * kBlock;
          n -= 2 * kBlock;
        } while (n >= 2 * kBlock);
      }
    } else if (n >= 8 * L) {
      // Exact reductions: two halves as two memory streams, combined in any order.
      const int64_t half = n / 2 / L * L;
      Acc other[L];
      reset(other);
      accumulate_lanes2<Op, L, VB>(lanes, p, other, p + half, half);
      for (int j = 0; j < L; ++j) lanes[j] = Op::combine(lanes[j], other[j]);
      p += 2 * half;
      n -= 2 * half;
    }
    while (n > 0) {
      const int64_t take = std::min(n, kLevel0 - in_level0);
      const int64_t vec = take / L * L;
      accumulate_lanes<Op, L, VB>(lanes, p, vec);
      int64_t i = vec;
      if constexpr (kVecLanes<Op>) {
        // The rest a vector at a time into the lanes it belongs to (lane j: elements j mod L).
        using V = typename LaneVecs<Op, L, VB>::V;
        constexpr int VL = LaneVecs<Op, L, VB>::VL;
        for (; i + VL <= take; i += VL) {
          V a = vload<V>(lanes + (i - vec));
          a = Op::vcombine(a, Op::vmap(vload<V>(p + i)));
          std::memcpy(lanes + (i - vec), &a, sizeof(V));
        }
      }
      for (; i < take; ++i) lanes[i - vec] = Op::combine(lanes[i - vec], Op::load(p[i]));
      in_level0 += take;
      p += take;
      n -= take;
      if (in_level0 == kLevel0) carry();
    }
  }
  template <int VB>
  static void add_contig_pair_at(RowAccum& A, const In* p, RowAccum& B, const In* q, int64_t n) {
    if constexpr (Op::kCascade) {
      if (A.in_level0 == 0 && B.in_level0 == 0 && A.in_level1 == B.in_level1) {
        while (n >= kLevel0) {
          const int64_t nsub = std::min<int64_t>(n / kLevel0, kSub - A.in_level1);
          level0_blocks_pair<Op, L, kSub, VB>(p, q, nsub, A.level1, B.level1);
          p += nsub * kLevel0;
          q += nsub * kLevel0;
          n -= nsub * kLevel0;
          A.in_level1 += static_cast<int>(nsub);
          B.in_level1 += static_cast<int>(nsub);
          if (A.in_level1 == kSub) {
            A.cascade.push(A.level1);
            B.cascade.push(B.level1);
            reset(A.level1);
            reset(B.level1);
            A.in_level1 = B.in_level1 = 0;
          }
        }
      }
    } else {
      const int64_t vec = n / L * L;
      accumulate_lanes2<Op, L, VB>(A.lanes, p, B.lanes, q, vec);
      p += vec;
      q += vec;
      n -= vec;
    }
    A.add_contig_at<VB>(p, n);
    B.add_contig_at<VB>(q, n);
  }
  void add_strided(const char* p, int64_t stride, int64_t n) {
    while (n > 0) {
      const int64_t take = std::min(n, kLevel0 - in_level0);
      for (int64_t i = 0; i < take; ++i)
        lanes[i % L] = Op::combine(lanes[i % L], Op::load(load<In>(p + i * stride)));
      in_level0 += take;
      p += take * stride;
      n -= take;
      if (in_level0 == kLevel0) carry();
    }
  }
  Acc result() {
    if constexpr (Op::kCascade) {
      if (in_level0 > 0) carry();
      if (cascade.used == 0) {
        // What pushing level 1 into the empty cascade and reading it back gives, directly.
        if constexpr (kVecLanes<Op>) return combine_lanes<Op, L>(level1);
        for (int w = L / 2; w >= 1; w /= 2)
          for (int j = 0; j < w; ++j) level1[j] = Op::combine(level1[j], level1[j + w]);
        return level1[0];
      }
      if (in_level1 > 0) cascade.push(level1);
      return cascade.result();
    } else if constexpr (kVecLanes<Op>) {
      return combine_lanes<Op, L>(lanes);
    } else {
      Acc r = lanes[0];
      for (int j = 1; j < L; ++j) r = Op::combine(r, lanes[j]);
      return r;
    }
  }
};

template <class Op, typename Acc>
Acc combine_tree(Acc* partial, int n) {
  for (int w = 1; w < n; w *= 2)
    for (int c = 0; c + w < n; c += 2 * w) partial[c] = Op::combine(partial[c], partial[c + w]);
  return partial[0];
}

// ---------------------------------------------------------------- the driver
template <class Op>
struct Driver {
  using In = typename Op::in_t;
  using Acc = typename Op::acc_t;
  using Out = typename Op::out_t;
  const ReduceLoop& L;
  const int64_t R;
  const bool contiguous_rows;  // one reduced dim, unit stride

  explicit Driver(const ReduceLoop& loop)
      : L(loop), R(loop.reduce_size), contiguous_rows(L.nred == 1 && L.red_in[0] == static_cast<int64_t>(sizeof(In))) {}

  // Reduced positions [b, e) of the output whose input starts at `base`, into acc.
  void reduce_rows(const char* base, int64_t b, int64_t e, RowAccum<Op>& acc) const {
    if (L.nred == 0) {
      acc.add_contig(reinterpret_cast<const In*>(base), 1);
      return;
    }
    const int64_t r0 = L.red_size[0], s0 = L.red_in[0];
    Walker w(L.nred - 1, L.red_size + 1, L.red_in + 1, b / r0);
    int64_t start = b % r0, pos = b;
    while (pos < e) {
      const int64_t n = std::min(r0 - start, e - pos);
      const char* p = base + w.offset + start * s0;
      if (s0 == static_cast<int64_t>(sizeof(In))) acc.add_contig(reinterpret_cast<const In*>(p), n);
      else acc.add_strided(p, s0, n);
      pos += n;
      start = 0;
      w.next();
    }
  }

  Acc reduce_small(const char* base) const {
    Acc a = Op::identity();
    if (L.nred == 0) return Op::combine(a, Op::load(load<In>(base)));
    const int64_t r0 = L.red_size[0], s0 = L.red_in[0];
    Walker w(L.nred - 1, L.red_size + 1, L.red_in + 1, 0);
    for (int64_t pos = 0; pos < R; pos += r0, w.next()) {
      const char* p = base + w.offset;
      for (int64_t i = 0; i < r0; ++i) a = Op::combine(a, Op::load(load<In>(p + i * s0)));
    }
    return a;
  }

  // A short contiguous row (kVecLanes ops) with four vector accumulators: the scalar loop
  // of reduce_small and RowAccum's 64-256 lanes made sum and amax over rows of 32 floats
  // 5-16x slower than PyTorch.
  Acc reduce_row_short(const In* p) const {
    constexpr int VB = kVecBytes < 32 ? kVecBytes : 32;
    using V = typename LaneVecs<Op, VB / static_cast<int>(sizeof(Acc)), VB>::V;
    constexpr int VL = VB / static_cast<int>(sizeof(Acc));
    V a = V{} + Op::identity(), b = a, c = a, d = a;
    int64_t i = 0;
    for (; i + 4 * VL <= R; i += 4 * VL) {
      a = Op::vcombine(a, Op::vmap(vload<V>(p + i)));
      b = Op::vcombine(b, Op::vmap(vload<V>(p + i + VL)));
      c = Op::vcombine(c, Op::vmap(vload<V>(p + i + 2 * VL)));
      d = Op::vcombine(d, Op::vmap(vload<V>(p + i + 3 * VL)));
    }
    for (; i + VL <= R; i += VL) a = Op::vcombine(a, Op::vmap(vload<V>(p + i)));
    Acc r = combine_vector<Op>(Op::vcombine(Op::vcombine(a, c), Op::vcombine(b, d)));
    for (; i < R; ++i) r = Op::combine(r, Op::load(p[i]));
    return r;
  }

  Acc reduce_one(const char* base) const {
    if constexpr (kVecLanes<Op>) {
      if (R <= kShortRow && contiguous_rows) return reduce_row_short(reinterpret_cast<const In*>(base));
    }
    if (R <= kSmallReduce) return reduce_small(base);
    RowAccum<Op> acc;
    reduce_rows(base, 0, R, acc);
    return acc.result();
  }

  void store(int64_t out_off, Acc a) const {
    *reinterpret_cast<Out*>(L.out[0] + out_off) = Op::finish(a, R);
  }

  // ---- inner layout: one output at a time
  void run_inner() const {
    const int64_t O = L.num_outputs;
    if (O < kFewOutputs && R >= 2 * kChunkMin) {
      KeptWalker k(L, 0, 0);
      for (int64_t o = 0; o < O; ++o, k.next()) store(k.out_off[0], reduce_chunked(L.in + k.in_off));
      return;
    }
    parallel_range(O, R, [&](int64_t b, int64_t e) {
      int64_t o = b;
      if (contiguous_rows && R > (kVecLanes<Op> ? kShortRow : kSmallReduce)) {
        // Two rows at a time: two memory streams, each row's arithmetic as if it ran alone.
        // The rows of a pair lie half the range apart, so each stream walks along adjacent
        // rows (pairs of neighbouring rows ran 1.35x slower: the prefetchers restarted at
        // every row).
        const int64_t half = (e - b) / 2;
        KeptWalker ka(L, 0, b), kb(L, 0, b + half);
        for (; o < b + half; ++o, ka.next(), kb.next()) {
          RowAccum<Op> A, B;
          RowAccum<Op>::add_contig_pair(A, reinterpret_cast<const In*>(L.in + ka.in_off), B,
                                        reinterpret_cast<const In*>(L.in + kb.in_off), R);
          store(ka.out_off[0], A.result());
          store(kb.out_off[0], B.result());
        }
        o = b + 2 * half;
      }
      for (KeptWalker k(L, 0, o); o < e; ++o, k.next()) store(k.out_off[0], reduce_one(L.in + k.in_off));
    });
  }

  Acc reduce_chunked(const char* base) const {
    const int64_t len = chunk_length(R, RowAccum<Op>::L);
    const int nchunks = static_cast<int>((R + len - 1) / len);
    Acc partial[kMaxChunks];
    parallel_range(nchunks, len, [&](int64_t b, int64_t e) {
      for (int64_t c = b; c < e; ++c) {
        RowAccum<Op> acc;
        reduce_rows(base, c * len, std::min(R, (c + 1) * len), acc);
        partial[c] = acc.result();
      }
    });
    return combine_tree<Op>(partial, nchunks);
  }

  // ---- outer layout: tiles of W adjacent outputs along the contiguous kept dim
  static constexpr int W = kTileBytes / static_cast<int>(sizeof(Acc)) > 0
                               ? kTileBytes / static_cast<int>(sizeof(Acc)) : 1;

  // Rows [b, e) of the tile at `base` (w <= W columns) into r[0..W). Floating sums use a
  // fixed four-level cascade: level 0 takes 64 rows, each level above 64 flushes of the one
  // below, the top the rest; a fixed structure keeps the buffers on the stack.
  static constexpr int kLevels = Op::kCascade ? 4 : 1;
  template <int FullW>
  void tile_rows(const char* base, int w, int64_t b, int64_t e, Acc* r) const {
    const int cols = FullW > 0 ? FullW : w;
    Acc lv[kLevels][W];
    int64_t count[kLevels] = {};
    for (int l = 0; l < kLevels; ++l)
      for (int k = 0; k < cols; ++k) lv[l][k] = Op::identity();
    Walker wk(L.nred, L.red_size, L.red_in, b);
    for (int64_t pos = b; pos < e;) {
      Acc* a = lv[0];
      int64_t g = 1;  // rows taken in this pass
      if constexpr (FullW == 0 && !(kWiden16<In> && std::is_same_v<In, Half>)) {
        // Up to four rows per pass, within a level-0 block: a[k] is loaded and stored once for
        // them and takes them in the same order. Row by row, each add of a narrow tile waited
        // for the previous row's store of a[k] (sum(x, 0) of 4096x32 float32: 4x PyTorch's time).
        g = std::min<int64_t>({4, e - pos, kLevels > 1 ? 64 - count[0] : 4});
        const In* q[4];
        for (int64_t j = 0; j < g; ++j, wk.next()) q[j] = reinterpret_cast<const In*>(base + wk.offset);
        Acc* __restrict acc = a;
        if (g == 4) {
          const In* __restrict q0 = q[0];
          const In* __restrict q1 = q[1];
          const In* __restrict q2 = q[2];
          const In* __restrict q3 = q[3];
          for (int k = 0; k < w; ++k)
            acc[k] = Op::combine(Op::combine(Op::combine(Op::combine(acc[k], Op::load(q0[k])), Op::load(q1[k])),
                                             Op::load(q2[k])),
                                 Op::load(q3[k]));
        } else {
          for (int64_t j = 0; j < g; ++j) {
            const In* __restrict row = q[j];
            for (int k = 0; k < w; ++k) acc[k] = Op::combine(acc[k], Op::load(row[k]));
          }
        }
      } else {
        const In* row = reinterpret_cast<const In*>(base + wk.offset);
        wk.next();
        if constexpr (kWiden16<In> && std::is_same_v<In, Half> && std::is_same_v<Acc, float>) {
          // float16 (whose scalar conversion does not vectorize): blocks of the row widened
          // with F16C into a buffer that stays in L1, then the float loop, which vectorizes.
          // (bfloat16's conversion is a shift, which GCC vectorizes in the loop below.)
          constexpr int kPiece = 256;
          alignas(64) float f[kPiece];
          for (int k0 = 0; k0 < cols; k0 += kPiece) {
            const int m = std::min(kPiece, cols - k0);
            widen<In>(f, reinterpret_cast<const char*>(row + k0), sizeof(In), m);
            for (int k = 0; k < m; ++k) a[k0 + k] = Op::combine(a[k0 + k], f[k]);
          }
        } else {
          for (int k = 0; k < cols; ++k) a[k] = Op::combine(a[k], Op::load(row[k]));
        }
      }
      pos += g;
      if constexpr (kLevels > 1) {
        count[0] += g;
        for (int l = 0; l + 1 < kLevels && count[l] == 64; ++l) {
          count[l] = 0;
          ++count[l + 1];
          for (int k = 0; k < cols; ++k) {
            lv[l + 1][k] = Op::combine(lv[l + 1][k], lv[l][k]);
            lv[l][k] = Op::identity();
          }
        }
      }
    }
    for (int k = 0; k < cols; ++k) {
      Acc t = lv[kLevels - 1][k];
      for (int l = kLevels - 2; l >= 0; --l) t = Op::combine(t, lv[l][k]);
      r[k] = t;
    }
  }

  void tile_reduce(const char* base, int w, int64_t b, int64_t e, Acc* r) const {
    if (w == W) tile_rows<W>(base, w, b, e, r);
    else tile_rows<0>(base, w, b, e, r);
  }

  void run_outer() const {
    const int64_t K = L.kept_size[0];
    const int64_t tiles = (K + W - 1) / W;
    const int64_t units = L.num_outputs / K * tiles;
    const int64_t isz = static_cast<int64_t>(sizeof(In));
    auto unit_base = [&](int64_t u, int64_t* out_off, int* w) {
      KeptWalker k(L, 1, u / tiles);
      const int64_t t = u % tiles;
      *w = static_cast<int>(std::min<int64_t>(W, K - t * W));
      *out_off = k.out_off[0] + t * W * L.kept_out[0][0];
      return L.in + k.in_off + t * W * isz;
    };
    auto store_tile = [&](int64_t out_off, int w, const Acc* r) {
      for (int k = 0; k < w; ++k) store(out_off + k * L.kept_out[0][0], r[k]);
    };
    if (units < kFewOutputs && R >= 4096) {
      // Few tiles, many rows: chunks of rows per tile, combined in a fixed tree.
      constexpr int kTileChunks = 16;
      const int64_t len = std::max<int64_t>(1024, (R + kTileChunks - 1) / kTileChunks);
      const int nchunks = static_cast<int>((R + len - 1) / len);
      for (int64_t u = 0; u < units; ++u) {
        int64_t out_off;
        int w;
        const char* base = unit_base(u, &out_off, &w);
        // Scratch for the chunk partials, w per chunk: one allocation for a reduction of >= 4096
        // rows (a narrow tile needs only its own width, not W).
        std::unique_ptr<Acc[]> partial(new Acc[static_cast<size_t>(nchunks) * w]);
        parallel_range(nchunks, len * w, [&](int64_t b, int64_t e) {
          for (int64_t c = b; c < e; ++c)
            tile_reduce(base, w, c * len, std::min(R, (c + 1) * len), &partial[static_cast<size_t>(c) * w]);
        });
        for (int s = 1; s < nchunks; s *= 2)
          for (int c = 0; c + s < nchunks; c += 2 * s)
            for (int k = 0; k < w; ++k)
              partial[c * w + k] = Op::combine(partial[c * w + k], partial[(c + s) * w + k]);
        store_tile(out_off, w, partial.get());
      }
      return;
    }
    parallel_range(units, R * W, [&](int64_t b, int64_t e) {
      Acc r[W];
      for (int64_t u = b; u < e; ++u) {
        int64_t out_off;
        int w;
        const char* base = unit_base(u, &out_off, &w);
        tile_reduce(base, w, 0, R, r);
        store_tile(out_off, w, r);
      }
    });
  }

  void run() const {
    const int64_t isz = static_cast<int64_t>(sizeof(In));
    if (L.num_outputs == 0) return;
    if (R == 0) {
      KeptWalker k(L, 0, 0);
      for (int64_t o = 0; o < L.num_outputs; ++o, k.next()) store(k.out_off[0], Op::identity());
      return;
    }
    const bool outer = L.nkept > 0 && L.nred > 0 && L.kept_in[0] == isz && L.red_in[0] != isz;
    if (outer) run_outer();
    else run_inner();
  }
};

template <class Op>
void run_reduce(const ReduceLoop& loop) {
  Driver<Op>(loop).run();
}

template <typename T>
void sum_typed(const ReduceLoop& loop, bool mean) {
  using Acc = opmath_t<T>;
  if (loop.out_dtype == loop.in_dtype) {
    if constexpr (is_float_like_v<Acc>) {
      if (mean) return run_reduce<SumOp<T, Acc, T, true>>(loop);
    }
    EMBER_INTERNAL_ASSERT(!mean, "mean of ", loop.in_dtype);
    return run_reduce<SumOp<T, Acc, T, false>>(loop);
  }
  if constexpr (std::is_integral_v<T>) {
    EMBER_INTERNAL_ASSERT(loop.out_dtype == kInt64 && !mean, "sum from ", loop.in_dtype, " to ", loop.out_dtype);
    return run_reduce<SumOp<T, int64_t, int64_t, false>>(loop);
  }
  EMBER_FAIL(RuntimeError, "sum: no kernel from ", loop.in_dtype, " to ", loop.out_dtype);
}

template <typename T>
void minmax_typed(const ReduceLoop& loop, bool is_max) {
  if constexpr (is_complex_v<T>) {
    EMBER_FAIL(RuntimeError, "\"", is_max ? "max" : "min", "_all\" not implemented for '", loop.in_dtype, "'");
  } else {
    if (is_max) run_reduce<MinMaxOp<T, true>>(loop);
    else run_reduce<MinMaxOp<T, false>>(loop);
  }
}

template <typename T>
void prod_typed(const ReduceLoop& loop) {
  using Acc = opmath_t<T>;
  if (loop.out_dtype == loop.in_dtype) return run_reduce<ProdOp<T, Acc, T>>(loop);
  if constexpr (std::is_integral_v<T>) {
    EMBER_INTERNAL_ASSERT(loop.out_dtype == kInt64, "prod from ", loop.in_dtype, " to ", loop.out_dtype);
    return run_reduce<ProdOp<T, int64_t, int64_t>>(loop);
  }
  EMBER_FAIL(RuntimeError, "prod: no kernel from ", loop.in_dtype, " to ", loop.out_dtype);
}

template <typename T>
void nansum_typed(const ReduceLoop& loop) {
  if constexpr (std::is_floating_point_v<opmath_t<T>>) {
    EMBER_INTERNAL_ASSERT(loop.out_dtype == loop.in_dtype, "nansum from ", loop.in_dtype, " to ", loop.out_dtype);
    run_reduce<NanSumOp<T>>(loop);
  } else {
    EMBER_FAIL(RuntimeError, "nansum: no kernel for ", loop.in_dtype);
  }
}

// Runs Op<Bits> (all, any or count_nonzero: `op`) with the bit test of the input's dtype (see
// MaskedBits).
template <template <typename> class Op>
void run_by_bits(const ReduceLoop& loop, ReduceOp op, const char* name) {
  switch (loop.in_dtype) {
    case kBool:
    case kUInt8:
    case kInt8: return run_reduce<Op<MaskedBits<uint8_t, 0xFF>>>(loop);
#if EMBER_ISA_DEFAULT
    case kInt32: return run_reduce<Op<MaskedBits<uint32_t, ~0u>>>(loop);
    case kFloat: return run_reduce<Op<MaskedBits<uint32_t, 0x7FFFFFFFu>>>(loop);
    case kInt64: return run_reduce<Op<MaskedBits<uint64_t, ~uint64_t{0}>>>(loop);
    case kDouble: return run_reduce<Op<MaskedBits<uint64_t, 0x7FFFFFFFFFFFFFFFull>>>(loop);
    default: EMBER_FAIL(RuntimeError, name, ": no kernel for ", loop.in_dtype);
#else
    // Inputs wider than a byte are rarely hot: all of 1M float32 takes 140-160 us in the
    // Default build against 52-59 us here (torch: 570 us), count_nonzero likewise (4.9 ms).
    default: return isa_Default::reduce_kernel(loop, op);
#endif
  }
}

template <typename T>
void norm_typed(const ReduceLoop& loop, ReduceOp kind) {
  // ops/reduce_stats.cpp hands complex and half inputs over as float or double.
  if constexpr (!std::is_same_v<T, float> && !std::is_same_v<T, double>) {
    EMBER_FAIL(RuntimeError, "norm: no kernel for ", loop.in_dtype);
  } else {
    switch (kind) {
      case ReduceOp::NormL1: return run_reduce<NormOp<T, ReduceOp::NormL1>>(loop);
      case ReduceOp::NormL2: return run_reduce<NormOp<T, ReduceOp::NormL2>>(loop);
      case ReduceOp::NormInf: return run_reduce<NormOp<T, ReduceOp::NormInf>>(loop);
#if EMBER_ISA_DEFAULT
      case ReduceOp::NormNegInf: return run_reduce<NormOp<T, ReduceOp::NormNegInf>>(loop);
      case ReduceOp::NormZero: return run_reduce<NormOp<T, ReduceOp::NormZero>>(loop);
      case ReduceOp::NormP: {
        static std::mutex norm_p_mutex;
        std::lock_guard<std::mutex> lock(norm_p_mutex);
        NormOp<T, ReduceOp::NormP>::p = loop.param;
        return run_reduce<NormOp<T, ReduceOp::NormP>>(loop);
      }
      default: EMBER_FAIL(RuntimeError, "norm: unknown kind");
#else
      // The rarer orders (-inf, 0, p) run in the Default build: the 3-norm of 1M float32 keeps
      // its speed there (1.03x torch).
      default: return isa_Default::reduce_kernel(loop, kind);
#endif
    }
  }
}

// ---------------------------------------------------------------- max/min with indices
template <typename T, bool IsMax>
struct ArgDriver {
  using M = opmath_t<T>;
  const ReduceLoop& L;
  const int64_t R;
  const int64_t s;  // byte stride of the reduced dim
  explicit ArgDriver(const ReduceLoop& loop)
      : L(loop), R(loop.reduce_size), s(loop.nred ? loop.red_in[0] : 0) {}

  // x replaces the current best b (seen earlier): strictly better, or the first NaN.
  static bool better(M x, M b) {
    if constexpr (std::is_floating_point_v<M>) {
      if constexpr (IsMax) return x > b || (x != x && b == b);
      else return x < b || (x != x && b == b);
    } else {
      if constexpr (IsMax) return x > b;
      else return x < b;
    }
  }

  void scan(const char* p, int64_t b, int64_t e, M* best, int64_t* at) const {
    M v = static_cast<M>(load<T>(p + b * s));
    int64_t i = b;
    for (int64_t r = b + 1; r < e; ++r) {
      M x = static_cast<M>(load<T>(p + r * s));
      if (better(x, v)) { v = x; i = r; }
    }
    *best = v;
    *at = i;
  }

  // Contiguous rows: L lanes each keep their best value and index (vectorizable: values and
  // indices of one width), then lanes merge with ties going to the lower index.
  void scan_contig(const T* p, int64_t n, M* best, int64_t* at) const {
    if constexpr (kWiden16<T>) return scan_contig_widened(p, n, best, at);
    using I = std::conditional_t<sizeof(M) == 4, int32_t, int64_t>;
    constexpr int L = kLaneBytes / static_cast<int>(sizeof(M)) > 0 ? kLaneBytes / static_cast<int>(sizeof(M)) : 1;
    if constexpr (sizeof(M) != 4 && sizeof(M) != 8) {
      return scan(reinterpret_cast<const char*>(p), 0, n, best, at);
    } else {
      if (n < 4 * L || n > std::numeric_limits<I>::max()) return scan(reinterpret_cast<const char*>(p), 0, n, best, at);
      M bv[L];
      I bi[L];
      for (int j = 0; j < L; ++j) { bv[j] = static_cast<M>(p[j]); bi[j] = static_cast<I>(j); }
      int64_t i = L;
      for (; i + L <= n; i += L) {
        for (int j = 0; j < L; ++j) {
          const M x = static_cast<M>(p[i + j]);
          const bool take = better(x, bv[j]);
          bv[j] = take ? x : bv[j];
          bi[j] = take ? static_cast<I>(i + j) : bi[j];
        }
      }
      M v = bv[0];
      int64_t idx = bi[0];
      for (int j = 1; j < L; ++j)
        if (better(bv[j], v) || (!better(v, bv[j]) && bi[j] < idx)) { v = bv[j]; idx = bi[j]; }
      for (; i < n; ++i) {
        const M x = static_cast<M>(p[i]);
        if (better(x, v)) { v = x; idx = i; }
      }
      *best = v;
      *at = idx;
    }
  }

  // 16-bit floats: blocks widened to float, then the same lanes and merge as scan_contig.
  void scan_contig_widened(const T* p, int64_t n, M* best, int64_t* at) const {
    constexpr int L = kLaneBytes / 4;
    constexpr int64_t kBlk = 2048;  // a multiple of L
    if (n < 4 * L || n > std::numeric_limits<int32_t>::max()) return scan(reinterpret_cast<const char*>(p), 0, n, best, at);
    alignas(64) float buf[kBlk];
    float bv[L];
    int32_t bi[L];
    int64_t m = 0, i = 0;
    for (int64_t base = 0; base < n; base += kBlk) {
      m = std::min(kBlk, n - base);
      widen<T>(buf, reinterpret_cast<const char*>(p + base), sizeof(T), m);
      i = 0;
      if (base == 0) {
        for (int j = 0; j < L; ++j) { bv[j] = buf[j]; bi[j] = j; }
        i = L;
      }
      for (; i + L <= m; i += L) {
        for (int j = 0; j < L; ++j) {
          const float x = buf[i + j];
          const bool take = better(x, bv[j]);
          bv[j] = take ? x : bv[j];
          bi[j] = take ? static_cast<int32_t>(base + i + j) : bi[j];
        }
      }
    }
    M v = bv[0];
    int64_t idx = bi[0];
    for (int j = 1; j < L; ++j)
      if (better(bv[j], v) || (!better(v, bv[j]) && bi[j] < idx)) { v = bv[j]; idx = bi[j]; }
    const int64_t tail = n - m;  // buf holds the last block, starting at element n - m
    for (; i < m; ++i)
      if (better(buf[i], v)) { v = buf[i]; idx = tail + i; }
    *best = v;
    *at = idx;
  }

  void scan_row(const char* p, M* best, int64_t* at) const {
    if (s == static_cast<int64_t>(sizeof(T))) scan_contig(reinterpret_cast<const T*>(p), R, best, at);
    else scan(p, 0, R, best, at);
  }

  void store(const int64_t* out_off, M v, int64_t i) const {
    *reinterpret_cast<T*>(L.out[0] + out_off[0]) = static_cast<T>(v);
    *reinterpret_cast<int64_t*>(L.out[1] + out_off[1]) = i;
  }

  void run_inner() const {
    const int64_t O = L.num_outputs;
    if (O < kFewOutputs && R >= 2 * kChunkMin) {
      // Chunk results merged in order: a later chunk wins only when strictly better.
      const int64_t len = chunk_length(R, 64);
      const int nchunks = static_cast<int>((R + len - 1) / len);
      KeptWalker k(L, 0, 0);
      for (int64_t o = 0; o < O; ++o, k.next()) {
        M best[kMaxChunks];
        int64_t at[kMaxChunks];
        const char* p = L.in + k.in_off;
        parallel_range(nchunks, len, [&](int64_t b, int64_t e) {
          for (int64_t c = b; c < e; ++c) {
            const int64_t lo = c * len, hi = std::min(R, (c + 1) * len);
            if (s == static_cast<int64_t>(sizeof(T))) {
              scan_contig(reinterpret_cast<const T*>(p) + lo, hi - lo, &best[c], &at[c]);
              at[c] += lo;
            } else {
              scan(p, lo, hi, &best[c], &at[c]);
            }
          }
        });
        for (int c = 1; c < nchunks; ++c)
          if (better(best[c], best[0])) { best[0] = best[c]; at[0] = at[c]; }
        store(k.out_off, best[0], at[0]);
      }
      return;
    }
    parallel_range(O, R, [&](int64_t b, int64_t e) {
      KeptWalker k(L, 0, b);
      for (int64_t o = b; o < e; ++o, k.next()) {
        M v;
        int64_t i;
        scan_row(L.in + k.in_off, &v, &i);
        store(k.out_off, v, i);
      }
    });
  }

  static constexpr int W = 64;
  void run_outer() const {
    const int64_t K = L.kept_size[0];
    const int64_t tiles = (K + W - 1) / W;
    const int64_t units = L.num_outputs / K * tiles;
    parallel_range(units, R * W, [&](int64_t b, int64_t e) {
      M best[W];
      int64_t at[W];
      for (int64_t u = b; u < e; ++u) {
        KeptWalker k(L, 1, u / tiles);
        const int64_t t = u % tiles;
        const int w = static_cast<int>(std::min<int64_t>(W, K - t * W));
        const T* base = reinterpret_cast<const T*>(L.in + k.in_off) + t * W;
        for (int j = 0; j < w; ++j) { best[j] = static_cast<M>(base[j]); at[j] = 0; }
        for (int64_t r = 1; r < R; ++r) {
          const T* row = reinterpret_cast<const T*>(reinterpret_cast<const char*>(base) + r * s);
          [[maybe_unused]] alignas(64) float f[W];
          if constexpr (kWiden16<T>) widen<T>(f, reinterpret_cast<const char*>(row), sizeof(T), w);
          for (int j = 0; j < w; ++j) {
            M x;
            if constexpr (kWiden16<T>) x = f[j];
            else x = static_cast<M>(row[j]);
            const bool take = better(x, best[j]);
            best[j] = take ? x : best[j];
            at[j] = take ? r : at[j];
          }
        }
        int64_t off[ReduceLoop::kMaxOutputs];
        for (int j = 0; j < w; ++j) {
          for (int q = 0; q < 2; ++q) off[q] = k.out_off[q] + (t * W + j) * L.kept_out[q][0];
          store(off, best[j], at[j]);
        }
      }
    });
  }

  void run() const {
    if (L.num_outputs == 0 || R == 0) return;
    const bool outer = L.nkept > 0 && L.nred > 0 && L.kept_in[0] == static_cast<int64_t>(sizeof(T)) &&
                       s != static_cast<int64_t>(sizeof(T));
    if (outer) run_outer();
    else run_inner();
  }
};

}  // namespace

void reduce_kernel(const ReduceLoop& loop, ReduceOp op) {
#if !EMBER_ISA_DEFAULT
  // The 16-bit floats' sums and extremes read through this build's float vectors.
  if (loop.in_dtype == kHalf || loop.in_dtype == kBFloat16) {
    const bool half = loop.in_dtype == kHalf;
    switch (op) {
      case ReduceOp::Sum:
      case ReduceOp::Mean:
        return half ? sum_typed<Half>(loop, op == ReduceOp::Mean) : sum_typed<BFloat16>(loop, op == ReduceOp::Mean);
      case ReduceOp::Max:
      case ReduceOp::Min:
        return half ? minmax_typed<Half>(loop, op == ReduceOp::Max) : minmax_typed<BFloat16>(loop, op == ReduceOp::Max);
      default: break;
    }
  }
#endif
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Mean:
      return EMBER_DISPATCH_KERNEL(loop.in_dtype, "sum", reduce_kernel(loop, op),
                                   [&] { sum_typed<scalar_t>(loop, op == ReduceOp::Mean); });
    case ReduceOp::Max:
    case ReduceOp::Min:
      return EMBER_DISPATCH_KERNEL(loop.in_dtype, "max", reduce_kernel(loop, op),
                                   [&] { minmax_typed<scalar_t>(loop, op == ReduceOp::Max); });
    case ReduceOp::Prod:
#if EMBER_ISA_DEFAULT
      return EMBER_DISPATCH_KERNEL(loop.in_dtype, "prod", reduce_kernel(loop, op), [&] { prod_typed<scalar_t>(loop); });
#else
      // Rarely hot, and as fast in the Default build (1M float32: 1.02x torch).
      return isa_Default::reduce_kernel(loop, op);
#endif
    case ReduceOp::NanSum:
      return EMBER_DISPATCH_KERNEL(loop.in_dtype, "nansum", reduce_kernel(loop, op), [&] { nansum_typed<scalar_t>(loop); });
    case ReduceOp::And:
    case ReduceOp::Or:
      EMBER_INTERNAL_ASSERT(loop.out_dtype == kBool || loop.out_dtype == kUInt8, "all/any into ", loop.out_dtype);
      return op == ReduceOp::And ? run_by_bits<AllOp>(loop, op, "all") : run_by_bits<AnyOp>(loop, op, "any");
    case ReduceOp::CountNonzero:
      return run_by_bits<CountNonzeroOp>(loop, op, "count_nonzero");
    default:
      return EMBER_DISPATCH_KERNEL(loop.in_dtype, "norm", reduce_kernel(loop, op), [&] { norm_typed<scalar_t>(loop, op); });
  }
}

void arg_reduce_kernel(const ReduceLoop& loop, ReduceOp op) {
#if !EMBER_ISA_DEFAULT
  if (loop.in_dtype == kHalf) {
    return op == ReduceOp::Max ? ArgDriver<Half, true>(loop).run() : ArgDriver<Half, false>(loop).run();
  }
  if (loop.in_dtype == kBFloat16) {
    return op == ReduceOp::Max ? ArgDriver<BFloat16, true>(loop).run() : ArgDriver<BFloat16, false>(loop).run();
  }
#endif
  EMBER_DISPATCH_KERNEL(loop.in_dtype, "max", arg_reduce_kernel(loop, op), [&] {
    if constexpr (is_complex_v<scalar_t>) {
      EMBER_FAIL(RuntimeError, op == ReduceOp::Max ? "max" : "min", "(): does not support complex input");
    } else {
      if (op == ReduceOp::Max) ArgDriver<scalar_t, true>(loop).run();
      else ArgDriver<scalar_t, false>(loop).run();
    }
  });
}

EMBER_REGISTER_STUB(reduce_stub, &reduce_kernel);
EMBER_REGISTER_STUB(arg_reduce_stub, &arg_reduce_kernel);

}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
