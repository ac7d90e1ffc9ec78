// Sorting and selection along rows: sort, topk, kthvalue, median, nanmedian, mode, quantile.
//
// Every element maps to an unsigned key whose integer order is PyTorch's sort order: floats
// flip their sign bit (negatives all bits), -0.0 becomes 0.0 and every NaN one key above +inf;
// signed integers flip the sign bit. Descending order inverts the key, so one ascending
// algorithm serves both, and equal keys keep their positions in either direction.
//  - sort: LSD radix sort on (key, position) pairs, one byte per pass, skipping passes where
//    every key has the same byte; short rows use insertion sort. Both are stable. Values are
//    gathered from the input by position, so -0.0 and NaN payloads survive.
//  - topk / kthvalue: a histogram of the top key bits finds the bucket holding the k-th key;
//    only the elements in that bucket and below are sorted (ties by position).
//  - median / nanmedian / mode / quantile: selection or a sort of the row's keys.
// Threads split the rows.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "backends/cpu/kernels/basic_loops.h"
#include "backends/cpu/kernels/reduce_walk.h"
#include "backends/cpu/sort_stubs.h"
#include "core/dtype_dispatch.h"
#include "core/scratch.h"

namespace ember::cpu {
namespace isa_Default {
void sort_kernel(const SortRows& s, bool descending);
int64_t runs_kernel(const char* data, ScalarType dtype, int64_t n, int64_t m, int64_t* run);
void slice_sort_kernel(const char* data, ScalarType dtype, int64_t n, int64_t m, int64_t* order);
void topk_kernel(const SortRows& s, int64_t k, bool largest);
void select_kernel(const SortRows& s, SelectOp op, int64_t k);
void quantile_kernel(const SortRows& s, const double* q, int64_t nq, Interpolation interp, bool ignore_nan);
}  // namespace isa_Default
namespace EMBER_ISA_NAMESPACE {
namespace {

// ---------------------------------------------------------------- keys
template <size_t N> struct UIntOf;
template <> struct UIntOf<1> { using type = uint8_t; };
template <> struct UIntOf<2> { using type = uint16_t; };
template <> struct UIntOf<4> { using type = uint32_t; };
template <> struct UIntOf<8> { using type = uint64_t; };

template <typename T>
using key_t = typename UIntOf<sizeof(T)>::type;

template <typename T>
inline bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>) return x != x;
  else if constexpr (is_reduced_float_v<T>) return static_cast<float>(x) != static_cast<float>(x);
  else return false;
}

// The ascending sort key of x.
template <typename T>
inline key_t<T> sort_key(T x) {
  using K = key_t<T>;
  constexpr K sign = K(1) << (sizeof(T) * 8 - 1);
  if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, uint8_t>) {
    return static_cast<K>(x);
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<K>(static_cast<K>(x) ^ sign);
  } else {
    if (is_nan(x)) return std::numeric_limits<K>::max();  // above every number's key
    K bits;
    std::memcpy(&bits, &x, sizeof(T));
    if ((bits & ~sign) == 0) bits = 0;  // -0.0 sorts as 0.0
    return (bits & sign) ? static_cast<K>(~bits) : static_cast<K>(bits | sign);
  }
}

template <typename K>
struct Item {
  K key;
  int64_t pos;
};
// By key, then position (a functor, so that the standard algorithms inline it).
struct ItemLess {
  template <typename K>
  bool operator()(const Item<K>& a, const Item<K>& b) const {
    return a.key < b.key || (a.key == b.key && a.pos < b.pos);
  }
};

// The keys of a row (inverted for descending) with their positions.
template <typename T>
void make_items(const T* x, int64_t n, bool invert, Item<key_t<T>>* items) {
  for (int64_t i = 0; i < n; ++i) {
    const key_t<T> k = sort_key(x[i]);
    items[i] = {invert ? static_cast<key_t<T>>(~k) : k, i};
  }
}

// Stable ascending sort of items by key (positions ascend within equal keys on input).
template <typename K>
void radix_sort(Item<K>* a, Item<K>* tmp, int64_t n) {
  if (n <= 48) {
    for (int64_t i = 1; i < n; ++i) {
      const Item<K> v = a[i];
      int64_t j = i;
      for (; j > 0 && a[j - 1].key > v.key; --j) a[j] = a[j - 1];
      a[j] = v;
    }
    return;
  }
  constexpr int kBytes = sizeof(K);
  std::vector<int64_t> count(static_cast<size_t>(kBytes) * 256, 0);
  for (int64_t i = 0; i < n; ++i)
    for (int b = 0; b < kBytes; ++b) ++count[b * 256 + ((a[i].key >> (8 * b)) & 0xff)];
  Item<K>* src = a;
  Item<K>* dst = tmp;
  for (int b = 0; b < kBytes; ++b) {
    int64_t* c = &count[static_cast<size_t>(b) * 256];
    if (c[(src[0].key >> (8 * b)) & 0xff] == n) continue;  // one bucket: nothing moves
    int64_t sum = 0;
    for (int d = 0; d < 256; ++d) {
      const int64_t t = c[d];
      c[d] = sum;
      sum += t;
    }
    for (int64_t i = 0; i < n; ++i) dst[c[(src[i].key >> (8 * b)) & 0xff]++] = src[i];
    std::swap(src, dst);
  }
  if (src != a) std::memcpy(static_cast<void*>(a), src, static_cast<size_t>(n) * sizeof(Item<K>));
}

// Leaves the k smallest items (by key, then position) sorted in a[0..k). 1 <= k <= n.
template <typename K>
void select_smallest(Item<K>* a, Item<K>* tmp, int64_t n, int64_t k) {
  if (k * 8 >= n || n < 4096) {
    if (k == n || k * 8 >= n) {
      radix_sort(a, tmp, n);
    } else {
      std::nth_element(a, a + k - 1, a + n, ItemLess());
      std::sort(a, a + k, ItemLess());
    }
    return;
  }
  // Histogram of the top 11 key bits: the bucket holding the k-th smallest key, then only
  // that bucket and those below are kept and sorted.
  constexpr int kBits = 11, kShift = sizeof(K) * 8 > kBits ? sizeof(K) * 8 - kBits : 0;
  std::vector<int64_t> hist(size_t(1) << kBits, 0);
  for (int64_t i = 0; i < n; ++i) ++hist[static_cast<size_t>(a[i].key >> kShift)];
  size_t bucket = 0;
  for (int64_t seen = 0;; ++bucket) {
    seen += hist[bucket];
    if (seen >= k) break;
  }
  int64_t m = 0;
  for (int64_t i = 0; i < n; ++i)
    if (static_cast<size_t>(a[i].key >> kShift) <= bucket) tmp[m++] = a[i];
  if (k * 8 >= m) {
    radix_sort(tmp, a, m);
  } else {
    std::nth_element(tmp, tmp + k - 1, tmp + m, ItemLess());
    std::sort(tmp, tmp + k, ItemLess());
  }
  std::memcpy(static_cast<void*>(a), tmp, static_cast<size_t>(k) * sizeof(Item<K>));
}

// Scratch of 2n items per thread, reused across rows.
template <typename K>
struct Scratch {
  ScratchArray<Item<K>> a, b;
  explicit Scratch(int64_t n) : a(n), b(n) {}
};

template <typename F>
void for_rows(const SortRows& s, const F& f) {
  parallel_range(s.rows, s.n * 16, [&](int64_t b, int64_t e) { f(b, e); });
}

// ---------------------------------------------------------------- sort, topk
template <typename T>
void sort_typed(const SortRows& s, bool descending) {
  using K = key_t<T>;
  for_rows(s, [&](int64_t b, int64_t e) {
    Scratch<K> sc(s.n);
    for (int64_t r = b; r < e; ++r) {
      const T* x = reinterpret_cast<const T*>(s.in) + r * s.n;
      make_items(x, s.n, descending, sc.a.get());
      radix_sort(sc.a.get(), sc.b.get(), s.n);
      T* v = reinterpret_cast<T*>(s.values) + r * s.n;
      int64_t* ix = s.indices + r * s.n;
      for (int64_t i = 0; i < s.n; ++i) {
        const int64_t p = sc.a[i].pos;
        v[i] = x[p];
        ix[i] = p;
      }
    }
  });
}

// Whether any of the 16 values at p may beat the threshold t (see heap_select); GCC vector
// compares for float and double, which the compiler does not vectorize from the scalar form.
template <bool Largest, typename M>
inline bool block_may_beat(const M* p, M t) {
  typedef M V __attribute__((vector_size(kVecBytes)));
  typedef std::conditional_t<sizeof(M) == 4, int32_t, int64_t> I;
  typedef I VI __attribute__((vector_size(kVecBytes)));
  constexpr int N = kVecBytes / static_cast<int>(sizeof(M));
  static_assert(16 % N == 0);
  const V vt = V{} + t;
  VI acc = {};
  for (int j = 0; j < 16; j += N) {
    V v;
    std::memcpy(&v, p + j, sizeof(V));
    if constexpr (Largest) acc |= (v > vt) | (v != v);
    else acc |= (v < vt) | (vt != vt);
  }
  for (int j = 0; j < N; ++j)
    if (acc[j]) return true;
  return false;
}

// The k best items of a row (largest or smallest values first, ties by position) by one
// scan with a max-heap of the best k so far; left sorted in h[0..k). Blocks of 16 elements are
// first tested against the heap's worst value with plain comparisons (vectorized): for k << n
// almost every block is rejected there, and only the others take the exact key test.
template <bool Largest, typename T>
void heap_select(const T* x, int64_t n, int64_t k, Item<key_t<T>>* h) {
  using K = key_t<T>;
  using M = opmath_t<T>;
  auto key_of = [](T v) {
    const K key = sort_key(v);
    return Largest ? static_cast<K>(~key) : key;
  };
  for (int64_t i = 0; i < k; ++i) h[i] = {key_of(x[i]), i};
  std::make_heap(h, h + k, ItemLess());
  constexpr int64_t kBlock = 16;
  for (int64_t i = k; i < n; i += kBlock) {
    const int64_t end = std::min(n, i + kBlock);
    M t = static_cast<M>(x[h[0].pos]);  // the worst kept value
    // Conservative: NaN counts as largest, so it may pass (the exact key test decides).
    auto may_beat = [&](M v) { return Largest ? (v > t) | (v != v) : (v < t) | (t != t); };
    bool any = false;
    if constexpr (std::is_same_v<T, M> && std::is_floating_point_v<M>) {
      if (end - i == kBlock) any = block_may_beat<Largest>(x + i, t);
      else for (int64_t j = i; j < end; ++j) any |= may_beat(x[j]);
    } else {
      for (int64_t j = i; j < end; ++j) any |= may_beat(static_cast<M>(x[j]));
    }
    if (!any) continue;
    for (int64_t j = i; j < end; ++j) {
      if (!may_beat(static_cast<M>(x[j]))) continue;
      const K key = key_of(x[j]);
      if (key < h[0].key) {
        std::pop_heap(h, h + k, ItemLess());
        h[k - 1] = {key, j};
        std::push_heap(h, h + k, ItemLess());
        t = static_cast<M>(x[h[0].pos]);
      }
    }
  }
  std::sort_heap(h, h + k, ItemLess());
}

template <typename T>
void topk_typed(const SortRows& s, int64_t k, bool largest) {
  using K = key_t<T>;
  if (k == 0) return;
  // Few of many: the heap scan; otherwise a selection over all items.
  const bool heap = k <= 256 && s.n >= 16 * k;
  for_rows(s, [&](int64_t b, int64_t e) {
    Scratch<K> sc(heap ? k : s.n);
    for (int64_t r = b; r < e; ++r) {
      const T* x = reinterpret_cast<const T*>(s.in) + r * s.n;
      if (heap) {
        if (largest) heap_select<true>(x, s.n, k, sc.a.get());
        else heap_select<false>(x, s.n, k, sc.a.get());
      } else {
        make_items(x, s.n, largest, sc.a.get());
        select_smallest(sc.a.get(), sc.b.get(), s.n, k);
      }
      T* v = reinterpret_cast<T*>(s.values) + r * k;
      int64_t* ix = s.indices + r * k;
      for (int64_t i = 0; i < k; ++i) {
        const int64_t p = sc.a[i].pos;
        v[i] = x[p];
        ix[i] = p;
      }
    }
  });
}

// ---------------------------------------------------------------- selections
template <typename T>
void select_typed(const SortRows& s, SelectOp op, int64_t k) {
  using K = key_t<T>;
  for_rows(s, [&](int64_t b, int64_t e) {
    Scratch<K> sc(s.n);
    for (int64_t r = b; r < e; ++r) {
      const T* x = reinterpret_cast<const T*>(s.in) + r * s.n;
      T* v = reinterpret_cast<T*>(s.values) + r;
      int64_t* ix = s.indices + r;
      int64_t nan_at = -1, nans = 0;
      if constexpr (!std::is_integral_v<T>) {
        for (int64_t i = 0; i < s.n; ++i)
          if (is_nan(x[i])) {
            if (nan_at < 0) nan_at = i;
            ++nans;
          }
      }
      if (op == SelectOp::Median && nan_at >= 0) {
        *v = x[nan_at];
        *ix = nan_at;
        continue;
      }
      if (op == SelectOp::NanMedian && nans == s.n) {
        *v = x[nan_at];
        *ix = nan_at;
        continue;
      }
      Item<K>* a = sc.a.get();
      make_items(x, s.n, false, a);
      if (op == SelectOp::Mode) {
        // Runs of equal values in sorted order; NaN equals nothing (as PyTorch counts).
        radix_sort(a, sc.b.get(), s.n);
        int64_t best = 0, best_len = 0;
        for (int64_t i = 0; i < s.n;) {
          int64_t j = i + 1;
          if (!is_nan(x[a[i].pos]))
            while (j < s.n && a[j].key == a[i].key) ++j;
          if (j - i > best_len) {
            best_len = j - i;
            best = j - 1;  // the run's last position in input order
          }
          i = j;
        }
        *v = x[a[best].pos];
        *ix = a[best].pos;
        continue;
      }
      int64_t p;
      if (op == SelectOp::Kth) p = k - 1;
      else if (op == SelectOp::Median) p = (s.n - 1) / 2;
      else p = (s.n - nans - 1) / 2;
      std::nth_element(a, a + p, a + s.n, ItemLess());
      *v = x[a[p].pos];
      *ix = a[p].pos;
    }
  });
}

// ---------------------------------------------------------------- quantile
template <typename T>
void quantile_typed(const SortRows& s, const double* q, int64_t nq, Interpolation interp, bool ignore_nan) {
  if constexpr (!std::is_floating_point_v<T>) {
    EMBER_FAIL(RuntimeError, "quantile() input tensor must be either float or double dtype");
  } else {
    for_rows(s, [&](int64_t b, int64_t e) {
      ScratchArray<T> buf(s.n);
      for (int64_t r = b; r < e; ++r) {
        const T* x = reinterpret_cast<const T*>(s.in) + r * s.n;
        int64_t m = 0;
        bool has_nan = false;
        for (int64_t i = 0; i < s.n; ++i) {
          if (x[i] != x[i]) has_nan = true;
          else buf[static_cast<size_t>(m++)] = x[i];
        }
        std::sort(buf.get(), buf.get() + m);
        T* out = reinterpret_cast<T*>(s.values);
        for (int64_t j = 0; j < nq; ++j) {
          T& o = out[j * s.rows + r];
          if ((has_nan && !ignore_nan) || m == 0) {
            o = std::numeric_limits<T>::quiet_NaN();
            continue;
          }
          // Ranks in the input's dtype, as PyTorch computes them.
          const T rank = static_cast<T>(q[j]) * static_cast<T>(m - 1);
          const int64_t lo = static_cast<int64_t>(std::floor(rank));
          const int64_t hi = static_cast<int64_t>(std::ceil(rank));
          const T a = buf[static_cast<size_t>(lo)], c = buf[static_cast<size_t>(hi)];
          switch (interp) {
            case Interpolation::Lower: o = a; break;
            case Interpolation::Higher: o = c; break;
            case Interpolation::Nearest: o = buf[static_cast<size_t>(std::nearbyint(rank))]; break;
            case Interpolation::Midpoint:
            case Interpolation::Linear: {
              // PyTorch's lerp: from the nearer end, so weights 0 and 1 give the ends exactly.
              const T w = interp == Interpolation::Midpoint ? T(0.5) : rank - static_cast<T>(lo);
              o = w < T(0.5) ? a + w * (c - a) : c - (c - a) * (T(1) - w);
              break;
            }
          }
        }
      }
    });
  }
}

// ---------------------------------------------------------------- uniqueness
template <typename T>
inline bool same(T a, T b) {
  if constexpr (is_complex_v<T>) return a == b;
  else if constexpr (is_reduced_float_v<T>) return static_cast<float>(a) == static_cast<float>(b);
  else return a == b;  // NaN equals nothing, -0.0 equals 0.0
}

template <typename T>
int64_t runs_typed(const char* data, int64_t n, int64_t m, int64_t* run) {
  const T* x = reinterpret_cast<const T*>(data);
  int64_t g = -1;
  for (int64_t i = 0; i < n; ++i) {
    bool eq = i > 0;
    for (int64_t j = 0; j < m && eq; ++j) eq = same(x[i * m + j], x[(i - 1) * m + j]);
    if (!eq) ++g;
    run[i] = g;
  }
  return g + 1;
}

template <typename T>
void slice_sort_typed(const char* data, int64_t n, int64_t m, int64_t* order) {
  const T* x = reinterpret_cast<const T*>(data);
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order, order + n, [&](int64_t a, int64_t b) {
    for (int64_t j = 0; j < m; ++j) {
      const auto ka = sort_key(x[a * m + j]), kb = sort_key(x[b * m + j]);
      if (ka != kb) return ka < kb;
    }
    return false;
  });
}

template <typename T>
constexpr bool kOrdered = !is_complex_v<T>;

}  // namespace

void sort_kernel(const SortRows& s, bool descending) {
  EMBER_DISPATCH_KERNEL(s.dtype, "sort", sort_kernel(s, descending), [&] {
    if constexpr (kOrdered<scalar_t>) sort_typed<scalar_t>(s, descending);
    else EMBER_FAIL(RuntimeError, "sort(): complex inputs are not ordered");
  });
}
int64_t runs_kernel(const char* data, ScalarType dtype, int64_t n, int64_t m, int64_t* run) {
  return EMBER_DISPATCH_KERNEL(dtype, "unique", runs_kernel(data, dtype, n, m, run),
                               [&] { return runs_typed<scalar_t>(data, n, m, run); });
}
void slice_sort_kernel(const char* data, ScalarType dtype, int64_t n, int64_t m, int64_t* order) {
  EMBER_DISPATCH_KERNEL(dtype, "unique", slice_sort_kernel(data, dtype, n, m, order), [&] {
    if constexpr (kOrdered<scalar_t>) slice_sort_typed<scalar_t>(data, n, m, order);
    else EMBER_FAIL(RuntimeError, "unique(): complex inputs are not ordered");
  });
}
void topk_kernel(const SortRows& s, int64_t k, bool largest) {
  EMBER_DISPATCH_KERNEL(s.dtype, "topk", topk_kernel(s, k, largest), [&] {
    if constexpr (kOrdered<scalar_t>) topk_typed<scalar_t>(s, k, largest);
    else EMBER_FAIL(RuntimeError, "topk(): complex inputs are not ordered");
  });
}
void select_kernel(const SortRows& s, SelectOp op, int64_t k) {
  EMBER_DISPATCH_KERNEL(s.dtype, "kthvalue", select_kernel(s, op, k), [&] {
    if constexpr (kOrdered<scalar_t>) select_typed<scalar_t>(s, op, k);
    else EMBER_FAIL(RuntimeError, "complex inputs are not ordered");
  });
}
void quantile_kernel(const SortRows& s, const double* q, int64_t nq, Interpolation interp, bool ignore_nan) {
  EMBER_DISPATCH_KERNEL(s.dtype, "quantile", quantile_kernel(s, q, nq, interp, ignore_nan),
                        [&] { quantile_typed<scalar_t>(s, q, nq, interp, ignore_nan); });
}

EMBER_REGISTER_STUB(sort_stub, &sort_kernel);
EMBER_REGISTER_STUB(runs_stub, &runs_kernel);
EMBER_REGISTER_STUB(slice_sort_stub, &slice_sort_kernel);
EMBER_REGISTER_STUB(topk_stub, &topk_kernel);
EMBER_REGISTER_STUB(select_stub, &select_kernel);
EMBER_REGISTER_STUB(quantile_stub, &quantile_kernel);

}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
