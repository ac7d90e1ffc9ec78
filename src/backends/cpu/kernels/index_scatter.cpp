// Gather and scatter along one dim (DimIndexLoop, backends/cpu/index_stubs.h): gather,
// scatter, scatter_add, scatter_reduce, index_select, index_add, index_copy, index_fill,
// take, put_, take_along_dim.
//
// These loops are bound by memory latency (an index sends every element to a different
// place), not by arithmetic: only the Default build defines them, and the AVX builds reach
// it through the stub's fallback. The index check at the end is built for every ISA.
//
// Threads: a gather splits any loop dim. A scatter never splits the indexed dim, so that all
// updates of one element of self come from one thread, in index order.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>

#include "backends/cpu/capability.h"
#include "backends/cpu/index_stubs.h"
#include "backends/cpu/loops.h"
#include "core/convert.h"
#include "core/scratch.h"
#include "core/dtype_dispatch.h"

#if EMBER_ISA_DEFAULT

namespace ember::cpu {
namespace EMBER_ISA_NAMESPACE {
namespace {

using Loop = DimIndexLoop;
constexpr int kMaxDims = Loop::kMaxDims;
struct Bytes16 { uint64_t lo, hi; };

// Calls fn(self, index, other) with the base pointers of every row (dims 1.. of the loop;
// dim 0 is the line a kernel walks), in order.
template <typename F>
void for_rows(const Loop& l, const F& fn) {
  const int nd = l.ndim;
  int64_t rows = 1;
  for (int d = 1; d < nd; ++d) rows *= l.sizes[d];
  if (rows == 0 || (nd > 0 && l.sizes[0] == 0)) return;
  int64_t idx[kMaxDims] = {};
  const char* sp = l.self;
  const char* ip = l.index;
  const char* op = l.other;
  for (int64_t r = 0; r < rows; ++r) {
    fn(const_cast<char*>(sp), ip, const_cast<char*>(op));
    for (int d = 1; d < nd; ++d) {
      sp += l.self_strides[d];
      ip += l.index_strides[d];
      op += l.other_strides[d];
      if (++idx[d] < l.sizes[d]) break;
      sp -= l.self_strides[d] * l.sizes[d];
      ip -= l.index_strides[d] * l.sizes[d];
      op -= l.other_strides[d] * l.sizes[d];
      idx[d] = 0;
    }
  }
}

// Rows whose line walks the index over a small contiguous block of self (a scatter along
// the contiguous dim: each row of self is one block, picked at random). Updates through
// memory wait on earlier stores that may alias them; two rows interleaved give the CPU
// independent work (20% faster in a stand-alone loop). Rows write disjoint blocks, so each
// element still sees its updates in index order.
template <typename T, typename I = int64_t>
bool rows_are_blocks(const Loop& l, int64_t ss, int64_t is, int64_t rs) {
  return l.ndim > 1 && l.indexed == 0 && is == sizeof(I) && ss == 0 && rs == sizeof(T) && l.dim_stride == sizeof(T) &&
         l.dim_size * l.dim_stride <= (64 << 10);
}

// The part [b, e) of loop dim d.
Loop sub_loop(const Loop& l, int d, int64_t b, int64_t e) {
  Loop s = l;
  s.sizes[d] = e - b;
  s.self += b * l.self_strides[d];
  s.index += b * l.index_strides[d];
  s.other += b * l.other_strides[d];
  return s;
}

// The dim to split across threads: the largest one a thread may own (outermost on ties).
int split_dim(const Loop& l, bool allow_indexed) {
  int best = -1;
  for (int d = l.ndim - 1; d >= 0; --d) {
    if (!allow_indexed && d == l.indexed) continue;
    if (best < 0 || l.sizes[d] > l.sizes[best]) best = d;
  }
  return best;
}

// Runs fn(sub_loop) on `nt` pieces of dim d, in parallel.
template <typename F>
void parallel_split(const Loop& l, int d, int nt, const F& fn) {
  const int64_t n = l.sizes[d];
#pragma omp parallel num_threads(nt)
  {
    const int64_t t = omp_get_thread_num(), T = omp_get_num_threads();
    const int64_t b = n * t / T, e = n * (t + 1) / T;
    if (b < e) fn(sub_loop(l, d, b, e));
  }
}

// ---------------------------------------------------------------- gather

// Loads ahead of use hide part of the latency of random accesses (x[idx] over a large x);
// when what the index reaches fits in the L2 cache they only cost instructions.
constexpr int64_t kPrefetch = 64;
bool reaches_far(const Loop& l) { return l.dim_size * (l.dim_stride < 0 ? -l.dim_stride : l.dim_stride) > (1 << 20); }

template <typename T>
bool gather_line(char* out, int64_t os, const char* self, int64_t ss, const char* index, int64_t is, int64_t n,
                 int64_t size, int64_t dstride, bool far) {
  const auto usize = static_cast<uint64_t>(size);
  if (is == 0) {  // one index for the whole line: a row of index_select
    const int64_t v = *reinterpret_cast<const int64_t*>(index);
    if (static_cast<uint64_t>(v) >= usize) return false;
    const char* s = self + v * dstride;
    if (os == sizeof(T) && ss == sizeof(T)) {
      std::memcpy(out, s, static_cast<size_t>(n) * sizeof(T));
    } else {
      for (int64_t k = 0; k < n; ++k)
        *reinterpret_cast<T*>(out + k * os) = *reinterpret_cast<const T*>(s + k * ss);
    }
    return true;
  }
  if (os == sizeof(T) && is == sizeof(int64_t) && ss == 0) {  // the index runs along the line
    T* __restrict o = reinterpret_cast<T*>(out);
    const int64_t* __restrict p = reinterpret_cast<const int64_t*>(index);
    int64_t k = 0;
    if (far) {
      for (; k + kPrefetch < n; ++k) {
        __builtin_prefetch(self + p[k + kPrefetch] * dstride);
        const int64_t v = p[k];
        if (static_cast<uint64_t>(v) >= usize) return false;
        o[k] = *reinterpret_cast<const T*>(self + v * dstride);
      }
    }
    for (; k < n; ++k) {
      const int64_t v = p[k];
      if (static_cast<uint64_t>(v) >= usize) return false;
      o[k] = *reinterpret_cast<const T*>(self + v * dstride);
    }
    return true;
  }
  for (int64_t k = 0; k < n; ++k) {
    const int64_t v = *reinterpret_cast<const int64_t*>(index + k * is);
    if (static_cast<uint64_t>(v) >= usize) return false;
    *reinterpret_cast<T*>(out + k * os) = *reinterpret_cast<const T*>(self + k * ss + v * dstride);
  }
  return true;
}

template <typename T>
bool gather_serial(const Loop& l) {
  bool ok = true;
  const int64_t n = l.ndim ? l.sizes[0] : 1;
  const int64_t ss = l.ndim ? l.self_strides[0] : 0, is = l.ndim ? l.index_strides[0] : 0;
  const int64_t os = l.ndim ? l.other_strides[0] : 0;
  const bool far = reaches_far(l);
  for_rows(l, [&](char* s, const char* i, char* o) {
    if (ok) ok = gather_line<T>(o, os, s, ss, i, is, n, l.dim_size, l.dim_stride, far);
  });
  return ok;
}

template <typename T>
bool gather_typed(const Loop& l) {
  int64_t numel = 1;
  for (int d = 0; d < l.ndim; ++d) numel *= l.sizes[d];
  const int d = split_dim(l, /*allow_indexed=*/true);
  const int nt = d < 0 ? 1 : std::min<int>(threads_for(numel), static_cast<int>(l.sizes[d]));
  if (nt <= 1) return gather_serial<T>(l);
  int bad = 0;
  parallel_split(l, d, nt, [&](const Loop& s) {
    if (!gather_serial<T>(s)) {
#pragma omp atomic write
      bad = 1;
    }
  });
  return bad == 0;
}

bool gather_kernel(const Loop& l) {
  switch (itemsize(l.dtype)) {
    case 1: return gather_typed<uint8_t>(l);
    case 2: return gather_typed<uint16_t>(l);
    case 4: return gather_typed<uint32_t>(l);
    case 8: return gather_typed<uint64_t>(l);
    default: return gather_typed<Bytes16>(l);
  }
}

// ---------------------------------------------------------------- scatter

template <typename T>
struct AssignOp {
  static void apply(T& a, const T& b) { a = b; }
};
// Bool: add is `or`, multiply is `and`; the 16-bit floats compute in float and round
// after every update, as PyTorch does.
template <typename T>
struct AddOp {
  static void apply(T& a, const T& b) {
    if constexpr (std::is_same_v<T, bool>) a = a || b;
    else if constexpr (is_reduced_float_v<T>) a = T(static_cast<float>(a) + static_cast<float>(b));
    else a = static_cast<T>(a + b);
  }
};
template <typename T>
struct MulOp {
  static void apply(T& a, const T& b) {
    if constexpr (std::is_same_v<T, bool>) a = a && b;
    else if constexpr (is_reduced_float_v<T>) a = T(static_cast<float>(a) * static_cast<float>(b));
    else a = static_cast<T>(a * b);
  }
};
template <typename T>
bool is_nan(const T& v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else if constexpr (is_reduced_float_v<T>) return std::isnan(static_cast<float>(v));
  else return false;
}
// NaN wins from either side (PyTorch's amax/amin).
template <typename T>
struct MaxOp {
  static void apply(T& a, const T& b) {
    if (is_nan(b) || (!is_nan(a) && static_cast<opmath_t<T>>(b) > static_cast<opmath_t<T>>(a))) a = b;
  }
};
template <typename T>
struct MinOp {
  static void apply(T& a, const T& b) {
    if (is_nan(b) || (!is_nan(a) && static_cast<opmath_t<T>>(b) < static_cast<opmath_t<T>>(a))) a = b;
  }
};

// Updates of one line, in order. With Check, an index outside [0, size) stops the line
// (returning false): the functional and out= forms check as they write, since only a fresh
// output can be left half written; in-place forms check everything beforehand.
template <typename T, typename Op, bool Check>
bool scatter_line(char* self, int64_t ss, const char* index, int64_t is, const char* src, int64_t rs, int64_t n,
                  int64_t size, int64_t dstride, bool far) {
  const auto usize = static_cast<uint64_t>(size);
  if (is == 0) {  // one index for the whole line: a row of index_add / index_copy
    const int64_t v = *reinterpret_cast<const int64_t*>(index);
    if (Check && static_cast<uint64_t>(v) >= usize) return false;
    char* d = self + v * dstride;
    if constexpr (std::is_same_v<Op, AssignOp<T>>) {
      if (ss == sizeof(T) && rs == sizeof(T)) {
        std::memcpy(d, src, static_cast<size_t>(n) * sizeof(T));
        return true;
      }
    }
    if (ss == sizeof(T) && rs == sizeof(T)) {
      T* __restrict a = reinterpret_cast<T*>(d);
      const T* __restrict b = reinterpret_cast<const T*>(src);
      for (int64_t k = 0; k < n; ++k) Op::apply(a[k], b[k]);
      return true;
    }
    for (int64_t k = 0; k < n; ++k)
      Op::apply(*reinterpret_cast<T*>(d + k * ss), *reinterpret_cast<const T*>(src + k * rs));
    return true;
  }
  if (is == sizeof(int64_t) && ss == 0) {  // the index runs along the line
    const int64_t* p = reinterpret_cast<const int64_t*>(index);
    int64_t k = 0;
    if (far) {
      for (; k + kPrefetch < n; ++k) {
        __builtin_prefetch(self + p[k + kPrefetch] * dstride, 1);
        if (Check && static_cast<uint64_t>(p[k]) >= usize) return false;
        Op::apply(*reinterpret_cast<T*>(self + p[k] * dstride), *reinterpret_cast<const T*>(src + k * rs));
      }
    }
    if (dstride == sizeof(T) && rs == sizeof(T)) {  // contiguous: indexed addressing, no multiply
      T* a = reinterpret_cast<T*>(self);
      const T* b = reinterpret_cast<const T*>(src);
      for (; k < n; ++k) {
        if (Check && static_cast<uint64_t>(p[k]) >= usize) return false;
        Op::apply(a[p[k]], b[k]);
      }
      return true;
    }
    for (; k < n; ++k) {
      if (Check && static_cast<uint64_t>(p[k]) >= usize) return false;
      Op::apply(*reinterpret_cast<T*>(self + p[k] * dstride), *reinterpret_cast<const T*>(src + k * rs));
    }
    return true;
  }
  for (int64_t k = 0; k < n; ++k) {
    const int64_t v = *reinterpret_cast<const int64_t*>(index + k * is);
    if (Check && static_cast<uint64_t>(v) >= usize) return false;
    Op::apply(*reinterpret_cast<T*>(self + k * ss + v * dstride), *reinterpret_cast<const T*>(src + k * rs));
  }
  return true;
}

// I: the index's type, int64 or (a checked index compressed by scatter_compressed) uint16.
template <typename T, typename Op, bool Check, typename I = int64_t>
bool scatter_serial(const Loop& l) {
  const int64_t n = l.ndim ? l.sizes[0] : 1;
  const int64_t ss = l.ndim ? l.self_strides[0] : 0, is = l.ndim ? l.index_strides[0] : 0;
  const int64_t rs = l.ndim ? l.other_strides[0] : 0;
  const bool far = reaches_far(l);
  bool ok = true;
  if (!rows_are_blocks<T, I>(l, ss, is, rs)) {
    if constexpr (std::is_same_v<I, int64_t>) {
      for_rows(l, [&](char* s, const char* i, char* o) {
        if (ok) ok = scatter_line<T, Op, Check>(s, ss, i, is, o, rs, n, l.dim_size, l.dim_stride, far);
      });
      return ok;
    } else {
      EMBER_INTERNAL_ASSERT(false, "compressed scatter index on a loop of other shape");
    }
  }
  const auto usize = static_cast<uint64_t>(l.dim_size);
  // The updates land in random order inside each row, which the hardware prefetchers cannot
  // follow: the next pair of rows is prefetched line by line, in order, while this pair runs.
  const int64_t row_lines = (l.dim_size * static_cast<int64_t>(sizeof(T)) + 63) / 64;
  const int64_t next_rows = l.ndim == 2 ? l.self_strides[1] : 0;  // rows follow one stride
  const int64_t every = std::max<int64_t>(1, n / std::max<int64_t>(row_lines, 1));
  T* pa = nullptr;
  const I* pp = nullptr;
  const T* pb = nullptr;
  for_rows(l, [&](char* s, const char* i, char* o) {
    if (!ok) return;
    if (!pa) {  // the first row of a pair waits for the second
      pa = reinterpret_cast<T*>(s);
      pp = reinterpret_cast<const I*>(i);
      pb = reinterpret_cast<const T*>(o);
      return;
    }
    T* a = reinterpret_cast<T*>(s);
    const I* p = reinterpret_cast<const I*>(i);
    const T* b = reinterpret_cast<const T*>(o);
    const char* next = next_rows ? s + next_rows : nullptr;
    for (int64_t k = 0, line = 0, due = 0; k < n; ++k) {
      if (Check && (static_cast<uint64_t>(pp[k]) >= usize || static_cast<uint64_t>(p[k]) >= usize)) {
        ok = false;
        return;
      }
      if (next && k == due && line < row_lines) {
        __builtin_prefetch(next + line * 64, 1);
        __builtin_prefetch(next + next_rows + line * 64, 1);
        ++line;
        due += every;
      }
      Op::apply(pa[pp[k]], pb[k]);
      Op::apply(a[p[k]], b[k]);
    }
    pa = nullptr;
  });
  if (ok && pa) {
    if constexpr (std::is_same_v<I, int64_t>) {
      ok = scatter_line<T, Op, Check>(reinterpret_cast<char*>(pa), 0, reinterpret_cast<const char*>(pp), 8,
                                      reinterpret_cast<const char*>(pb), rs, n, l.dim_size, l.dim_stride, far);
    } else {
      for (int64_t k = 0; k < n; ++k) Op::apply(pa[pp[k]], pb[k]);
    }
  }
  return ok;
}

// When only the indexed dim is left to split (a 1-D scatter), the updates run on one thread,
// as in PyTorch. (Giving each thread the updates that land in its part of self, with every
// thread walking the whole index, measured 1.5-2.5x slower on 2 cores.)
// Whether every index of (a part of) the loop lies in [0, dim_size).
bool indices_in_range(const Loop& l) {
  const int64_t n = l.sizes[0], is = l.index_strides[0];
  int64_t mn = INT64_MAX, mx = INT64_MIN;
  const auto minmax = index_min_max_stub.get();  // the widest instruction set's version
  for_rows(l, [&](char*, const char* i, char*) {
    const int64_t* p = reinterpret_cast<const int64_t*>(i);
    if (is == 8) {
      minmax(p, n, mn, mx);
    } else {
      for (int64_t k = 0; k < n; ++k) {
        const int64_t v = p[k * (is / 8)];
        mn = std::min(mn, v);
        mx = std::max(mx, v);
      }
    }
  });
  return mn >= 0 && mx < l.dim_size;
}

// An in-place scatter along the contiguous dim of a matrix checks every index before it
// writes anything, which reads the int64 index twice. When self's rows hold at most 65536
// elements, the check also writes the index as uint16 into scratch, and the updates read
// that: 128 + 32 + 32 bytes of index traffic per 16 elements instead of 2 x 128.
constexpr int64_t kCompressMax = int64_t(1) << 16;

template <typename T>
bool compressible(const Loop& l) {
  return l.ndim == 2 && l.dim_size <= kCompressMax &&
         rows_are_blocks<T>(l, l.self_strides[0], l.index_strides[0], l.other_strides[0]);
}

// Checks the index rows of s and writes them as uint16 to out (row r at out + r * n).
bool compress_rows(const Loop& s, uint16_t* out) {
  const int64_t n = s.sizes[0];
  const auto usize = static_cast<uint64_t>(s.dim_size);
  bool bad = false;
  for_rows(s, [&](char*, const char* i, char*) {
    const int64_t* p = reinterpret_cast<const int64_t*>(i);
    for (int64_t k = 0; k < n; ++k) {
      bad |= static_cast<uint64_t>(p[k]) >= usize;
      out[k] = static_cast<uint16_t>(p[k]);
    }
    out += n;
  });
  return !bad;
}

// The loop l reading the compressed index at q instead of its own.
Loop with_index(const Loop& l, const uint16_t* q) {
  Loop c = l;
  c.index = reinterpret_cast<const char*>(q);
  c.index_strides[0] = sizeof(uint16_t);
  c.index_strides[1] = static_cast<int64_t>(sizeof(uint16_t)) * l.sizes[0];
  return c;
}

template <typename T, typename Op, bool Check>
bool scatter_checked(const Loop& l) {
  int64_t numel = 1;
  for (int d = 0; d < l.ndim; ++d) numel *= l.sizes[d];
  const int nt = l.serial ? 1 : threads_for(numel);
  const int d = split_dim(l, /*allow_indexed=*/false);
  const bool parallel = nt > 1 && d >= 0 && l.sizes[d] >= nt;
  const bool compress = l.check_first && compressible<T>(l);
  std::optional<ScratchArray<uint16_t>> packed;  // the compressed index, row after row
  if (compress) packed.emplace(l.sizes[0] * l.sizes[1]);
  if (l.check_first && !parallel) {
    if (compress) {
      if (!compress_rows(l, packed->get())) return false;
      return scatter_serial<T, Op, false, uint16_t>(with_index(l, packed->get()));
    }
    if (!indices_in_range(l)) return false;
    return scatter_serial<T, Op, false>(l);
  }
  if (l.check_first) {
    // Each thread checks the indices of its part, then all wait until every part is checked
    // before any writes: one parallel region instead of a check pass and a scatter pass.
    int bad = 0;
    const int64_t size = l.sizes[d];
#pragma omp parallel num_threads(nt)
    {
      const int64_t t = omp_get_thread_num(), T_ = omp_get_num_threads();
      const int64_t b = size * t / T_, e = size * (t + 1) / T_;
      const Loop s = sub_loop(l, d, b, e);
      // compress: d is the row dim (1), so this part's rows start at row b
      uint16_t* q = compress ? packed->get() + b * l.sizes[0] : nullptr;
      if (b < e && !(compress ? compress_rows(s, q) : indices_in_range(s))) {
#pragma omp atomic write
        bad = 1;
      }
#pragma omp barrier
      int stop;
#pragma omp atomic read
      stop = bad;
      if (!stop && b < e) {
        if (compress) scatter_serial<T, Op, false, uint16_t>(with_index(s, q));
        else scatter_serial<T, Op, false>(s);
      }
    }
    return bad == 0;
  }
  if (parallel) {
    int bad = 0;
    parallel_split(l, d, nt, [&](const Loop& s) {
      if (!scatter_serial<T, Op, Check>(s)) {
#pragma omp atomic write
        bad = 1;
      }
    });
    return bad == 0;
  }
  return scatter_serial<T, Op, Check>(l);
}

template <typename T, typename Op>
bool scatter_typed(const Loop& l) {
  return l.check ? scatter_checked<T, Op, true>(l) : scatter_checked<T, Op, false>(l);
}

template <template <typename> class Op>
bool scatter_bytes(const Loop& l) {
  switch (itemsize(l.dtype)) {
    case 1: return scatter_typed<uint8_t, Op<uint8_t>>(l);
    case 2: return scatter_typed<uint16_t, Op<uint16_t>>(l);
    case 4: return scatter_typed<uint32_t, Op<uint32_t>>(l);
    case 8: return scatter_typed<uint64_t, Op<uint64_t>>(l);
    default: return scatter_typed<Bytes16, Op<Bytes16>>(l);
  }
}

bool scatter_kernel(const Loop& l, ScatterOp op) {
  switch (op) {
    case ScatterOp::Assign: return scatter_bytes<AssignOp>(l);
    case ScatterOp::Add:
      return EMBER_DISPATCH_ALL(l.dtype, "scatter_add", [&] { return scatter_typed<scalar_t, AddOp<scalar_t>>(l); });
    case ScatterOp::Mul:
      return EMBER_DISPATCH_ALL(l.dtype, "scatter_mul", [&] { return scatter_typed<scalar_t, MulOp<scalar_t>>(l); });
    case ScatterOp::Max:
      return EMBER_DISPATCH_REAL(l.dtype, "scatter_amax", [&] { return scatter_typed<scalar_t, MaxOp<scalar_t>>(l); });
    case ScatterOp::Min:
      return EMBER_DISPATCH_REAL(l.dtype, "scatter_amin", [&] { return scatter_typed<scalar_t, MinOp<scalar_t>>(l); });
  }
  return false;
}

}  // namespace

EMBER_REGISTER_STUB(gather_stub, &gather_kernel);
EMBER_REGISTER_STUB(scatter_stub, &scatter_kernel);
}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
#endif  // EMBER_ISA_DEFAULT

// ---------------------------------------------------------------- index checks
// Every scatter reads its whole index once more to check it before writing; that pass is
// bound by memory bandwidth only with wide compares (64-bit min/max), so it is built for
// every instruction set.
namespace ember::cpu {
namespace EMBER_ISA_NAMESPACE {
namespace {

void min_max(const int64_t* p, int64_t n, int64_t& mn, int64_t& mx) {
  int64_t a = mn, b = mx;
  for (int64_t i = 0; i < n; ++i) {
    a = std::min(a, p[i]);
    b = std::max(b, p[i]);
  }
  mn = a;
  mx = b;
}

int64_t find_out_of_range_kernel(const int64_t* p, int64_t n, int64_t lo, int64_t hi) {
  int64_t mn = INT64_MAX, mx = INT64_MIN;
  const int nt = threads_for(n, int64_t(1) << 17);
  if (nt <= 1) {
    min_max(p, n, mn, mx);
  } else {
#pragma omp parallel num_threads(nt)
    {
      const int64_t t = omp_get_thread_num(), T = omp_get_num_threads();
      int64_t a = INT64_MAX, b = INT64_MIN;
      const int64_t begin = n * t / T, end = n * (t + 1) / T;
      min_max(p + begin, end - begin, a, b);
#pragma omp critical(ember_find_out_of_range)
      {
        mn = std::min(mn, a);
        mx = std::max(mx, b);
      }
    }
  }
  if (n == 0 || (mn >= lo && mx < hi)) return -1;
  for (int64_t i = 0; i < n; ++i)  // the first offender, for the message
    if (p[i] < lo || p[i] >= hi) return i;
  return -1;
}

}  // namespace

EMBER_REGISTER_STUB(find_out_of_range_stub, &find_out_of_range_kernel);
EMBER_REGISTER_STUB(index_min_max_stub, &min_max);
}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
