// Advanced-indexing kernels: index offsets, gather (index), scatter (index_put_), nonzero.
// They move memory rather than compute, so wide vectors do not pay: only the Default build
// defines them and the AVX builds reach it through the stub's fallback, which keeps the
// build small.
#include "backends/cpu/capability.h"

#if EMBER_ISA_DEFAULT
#include <cstring>

#include "backends/cpu/loops.h"
#include "backends/cpu/stubs.h"
#include "core/convert.h"
#include "core/dtype_dispatch.h"
#include "ember/ops.h"

namespace ember::cpu {
namespace EMBER_ISA_NAMESPACE {
namespace {

constexpr int kMaxDims = IndexBlock::kMaxDims;

// Runs fn(begin, end) over [0, n) cut into `chunks` fixed pieces. The cut does not depend
// on how many threads OpenMP grants, so two passes over the same pieces line up.
template <typename F>
void parallel_chunks(int64_t n, int chunks, const F& fn) {
  if (chunks <= 1 || n <= 1) {
    fn(int64_t(0), n);
    return;
  }
  const int64_t step = (n + chunks - 1) / chunks;
#pragma omp parallel for num_threads(chunks) schedule(static, 1)
  for (int c = 0; c < chunks; ++c) {
    int64_t b = std::min<int64_t>(n, c * step), e = std::min<int64_t>(n, b + step);
    if (b < e) fn(b, e);
  }
}

// ---------------------------------------------------------------- offsets

// Offsets for positions [b0, b1); returns false if some index there is out of range.
bool offsets_range(const IndexOffsets& a, int64_t b0, int64_t b1) {
  const int nidx = a.nindex, nd = a.ndim;
  bool ok = true;
  if (nidx == 1 && nd <= 1) {  // one index tensor over a 1-D shape: the common case
    const int64_t* p = a.data[0];
    const int64_t st = nd ? a.strides[0][0] : 0, size = a.dim_size[0], bs = a.dim_stride[0];
    for (int64_t b = b0; b < b1; ++b) {
      int64_t v = p[b * st];
      ok &= (v >= -size) & (v < size);
      a.out[b] = (v < 0 ? v + size : v) * bs;
    }
    return ok;
  }
  int64_t idx[kMaxDims], ptr[kMaxDims];
  int64_t rest = b0;
  for (int d = 0; d < nd; ++d) { idx[d] = rest % a.shape[d]; rest /= a.shape[d]; }
  for (int j = 0; j < nidx; ++j) {
    ptr[j] = 0;
    for (int d = 0; d < nd; ++d) ptr[j] += idx[d] * a.strides[j][d];
  }
  for (int64_t b = b0; b < b1; ++b) {
    int64_t off = 0;
    for (int j = 0; j < nidx; ++j) {
      int64_t v = a.data[j][ptr[j]], size = a.dim_size[j];
      ok &= (v >= -size) & (v < size);
      off += (v < 0 ? v + size : v) * a.dim_stride[j];
    }
    a.out[b] = off;
    for (int d = 0; d < nd; ++d) {
      for (int j = 0; j < nidx; ++j) ptr[j] += a.strides[j][d];
      if (++idx[d] < a.shape[d]) break;
      for (int j = 0; j < nidx; ++j) ptr[j] -= a.strides[j][d] * a.shape[d];
      idx[d] = 0;
    }
  }
  return ok;
}

void index_offsets_kernel(const IndexOffsets& a) {
  const int64_t n = a.numel;
  if (n == 0) return;
  if (a.nindex == 0) {  // no index tensor: a single position at self's origin
    for (int64_t b = 0; b < n; ++b) a.out[b] = 0;
    return;
  }
  const int chunks = threads_for(n * a.nindex);
  SmallVector<char, 64> ok(static_cast<size_t>(std::max(chunks, 1)), 1);
  const int64_t step = (n + std::max(chunks, 1) - 1) / std::max(chunks, 1);
  parallel_chunks(n, chunks, [&](int64_t b, int64_t e) { ok[b / step] = offsets_range(a, b, e); });
  for (char good : ok) {
    if (good) continue;
    // Error path: find the first offending index in order and report it (outside OpenMP).
    int64_t idx[kMaxDims] = {};
    for (int64_t b = 0; b < n; ++b) {
      for (int j = 0; j < a.nindex; ++j) {
        int64_t p = 0;
        for (int d = 0; d < a.ndim; ++d) p += idx[d] * a.strides[j][d];
        int64_t v = a.data[j][p], size = a.dim_size[j];
        EMBER_CHECK(v >= -size && v < size, IndexError, "index ", v, " is out of bounds for dimension ",
                    a.dim[j], " with size ", size);
      }
      for (int d = 0; d < a.ndim; ++d) {
        if (++idx[d] < a.shape[d]) break;
        idx[d] = 0;
      }
    }
  }
}

// ---------------------------------------------------------------- gather and scatter

// Element operations on raw bytes: `apply` for one element, `line` for n elements at byte
// strides, specialized for the contiguous and broadcast-source cases so they vectorize.
template <typename T>
struct Assign {
  static void apply(char* d, const char* s) { *reinterpret_cast<T*>(d) = *reinterpret_cast<const T*>(s); }
  static void line(char* d, int64_t sd, const char* s, int64_t ss, int64_t n) {
    constexpr int64_t w = sizeof(T);
    if (sd == w && ss == w) {
      std::memcpy(d, s, static_cast<size_t>(n * w));
    } else if (sd == w && ss == 0) {
      T* __restrict o = reinterpret_cast<T*>(d);
      const T v = *reinterpret_cast<const T*>(s);
      for (int64_t i = 0; i < n; ++i) o[i] = v;
    } else {
      for (int64_t i = 0; i < n; ++i) apply(d + i * sd, s + i * ss);
    }
  }
};
struct Bytes16 { uint64_t lo, hi; };

template <typename T>
struct Accumulate {
  static T add(T a, T b) {
    if constexpr (std::is_same_v<T, bool>) return a || b;
    else if constexpr (is_reduced_float_v<T>) return T(static_cast<float>(a) + static_cast<float>(b));
    else return static_cast<T>(a + b);
  }
  static void apply(char* d, const char* s) {
    T& a = *reinterpret_cast<T*>(d);
    a = add(a, *reinterpret_cast<const T*>(s));
  }
  static void line(char* d, int64_t sd, const char* s, int64_t ss, int64_t n) {
    constexpr int64_t w = sizeof(T);
    T* __restrict o = reinterpret_cast<T*>(d);
    if (sd == w && ss == w) {
      const T* __restrict x = reinterpret_cast<const T*>(s);
      for (int64_t i = 0; i < n; ++i) o[i] = add(o[i], x[i]);
    } else if (sd == w && ss == 0) {
      const T v = *reinterpret_cast<const T*>(s);
      for (int64_t i = 0; i < n; ++i) o[i] = add(o[i], v);
    } else {
      for (int64_t i = 0; i < n; ++i) apply(d + i * sd, s + i * ss);
    }
  }
};

// Position within a block (an odometer) with the byte offsets of both sides.
struct Cursor {
  int64_t idx[kMaxDims];
  int64_t dst = 0, src = 0;
  void seek(const IndexBlock& b, int64_t pos) {
    dst = src = 0;
    for (int d = 0; d < b.ndim; ++d) {
      idx[d] = pos % b.sizes[d];
      pos /= b.sizes[d];
      dst += idx[d] * b.dst[d];
      src += idx[d] * b.src[d];
    }
  }
  // Moves n steps along dim 0 (without leaving it), then carries into the outer dims.
  void advance(const IndexBlock& b, int64_t n) {
    idx[0] += n;
    dst += n * b.dst[0];
    src += n * b.src[0];
    for (int d = 0; d < b.ndim && idx[d] >= b.sizes[d]; ++d) {
      dst -= idx[d] * b.dst[d];
      src -= idx[d] * b.src[d];
      idx[d] = 0;
      if (d + 1 < b.ndim) {
        ++idx[d + 1];
        dst += b.dst[d + 1];
        src += b.src[d + 1];
      }
    }
  }
};

// Inner elements [begin, end) of one row.
template <typename Op>
inline void inner_run(const IndexBlock& in, char* d, const char* s, int64_t begin, int64_t end) {
  if (in.ndim == 0) {
    Op::apply(d, s);
    return;
  }
  const int64_t sd = in.dst[0], ss = in.src[0];
  if (in.ndim == 1) {
    Op::line(d + begin * sd, sd, s + begin * ss, ss, end - begin);
    return;
  }
  Cursor c;
  c.seek(in, begin);
  for (int64_t pos = begin; pos < end;) {
    int64_t n = std::min(in.sizes[0] - c.idx[0], end - pos);
    Op::line(d + c.dst, sd, s + c.src, ss, n);
    pos += n;
    c.advance(in, n);
  }
}

// Rows [r0, r1) of the (outer, index) space, row r = (outer r / n, index position r % n),
// each over inner elements [i0, i1). Rows go in order, so an element written by several
// index positions sees them in order: the last write (or the sum's order) is fixed.
template <typename Op>
void rows(const IndexLoop& L, int64_t r0, int64_t r1, int64_t i0, int64_t i1) {
  const bool on_dst = L.offsets_on_dst;
  const int64_t* off = L.offsets;
  // Index blocks of at most one dim (the usual case) step linearly, without a cursor.
  const bool flat = L.index.ndim <= 1;
  const int64_t fd = L.index.ndim ? L.index.dst[0] : 0, fs = L.index.ndim ? L.index.src[0] : 0;
  if (flat && L.outer.ndim == 0 && L.inner.ndim == 0) {
    // One element per position (x[idx] on a 1-D tensor, x[mask] over all of x's dims).
    if (on_dst) {
      for (int64_t r = r0; r < r1; ++r) Op::apply(L.dst + off[r], L.src + r * fs);
    } else {
      for (int64_t r = r0; r < r1; ++r) Op::apply(L.dst + r * fd, L.src + off[r]);
    }
    return;
  }
  const int64_t nidx = L.index.numel;
  int64_t b = r0 % nidx;
  Cursor outer, index;
  outer.seek(L.outer, r0 / nidx);
  if (!flat) index.seek(L.index, b);
  // Rows of self picked at random (x[idx] = v / x[idx] += v by rows, x[idx] by rows) miss the
  // cache on every line, in an order the hardware prefetchers cannot guess: the row
  // kAheadRows positions on is prefetched, up to kAheadLines lines of it.
  constexpr int64_t kAheadRows = 16, kAheadLines = 8;
  const int64_t inner_stride = on_dst ? L.inner.dst[0] : L.inner.src[0];
  const int64_t inner_bytes = L.inner.ndim == 1 ? (i1 - i0) * inner_stride : 0;
  const bool contiguous_inner = inner_bytes > 0 && inner_stride == static_cast<int64_t>(itemsize(L.dtype));
  const int64_t ahead_lines = flat && contiguous_inner ? std::min<int64_t>(kAheadLines, (inner_bytes + 63) / 64) : 0;
  const int64_t inner_off = i0 * inner_stride;
  for (int64_t r = r0; r < r1; ++r) {
    const int64_t id = flat ? b * fd : index.dst, is = flat ? b * fs : index.src;
    char* d = L.dst + outer.dst + id + (on_dst ? off[b] : 0);
    const char* s = L.src + outer.src + is + (on_dst ? 0 : off[b]);
    if (ahead_lines && b + kAheadRows < nidx) {
      const int64_t a = b + kAheadRows;
      const char* p = on_dst ? L.dst + outer.dst + a * fd + off[a] : L.src + outer.src + a * fs + off[a];
      for (int64_t k = 0; k < ahead_lines; ++k) __builtin_prefetch(p + inner_off + k * 64);
    }
    inner_run<Op>(L.inner, d, s, i0, i1);
    if (++b == nidx) {
      b = 0;
      if (!flat) index.seek(L.index, 0);
      if (L.outer.ndim) outer.advance(L.outer, 1);
    } else if (!flat) {
      index.advance(L.index, 1);
    }
  }
}

template <typename Op>
void run_loop(const IndexLoop& L) {
  const int64_t nidx = L.index.numel, nrows = L.outer.numel * nidx, ninner = L.inner.numel;
  if (nrows == 0 || ninner == 0) return;
  const int chunks = threads_for(nrows * ninner);
  if (!L.offsets_on_dst || L.unique) {
    // Rows write disjoint memory: split them freely.
    parallel_chunks(nrows, static_cast<int>(std::min<int64_t>(chunks, nrows)),
                    [&](int64_t b, int64_t e) { rows<Op>(L, b, e, 0, ninner); });
  } else if (chunks > 1 && L.outer.numel >= chunks) {
    // Positions may repeat: split what they cannot reach twice, the outer positions ...
    parallel_chunks(L.outer.numel, chunks,
                    [&](int64_t b, int64_t e) { rows<Op>(L, b * nidx, e * nidx, 0, ninner); });
  } else if (chunks > 1 && ninner >= 64 * chunks) {
    // ... or the inner block, in cache-line friendly pieces that each see every position.
    const int64_t step = ((ninner + chunks - 1) / chunks + 63) & ~int64_t(63);
    const int pieces = static_cast<int>((ninner + step - 1) / step);
    parallel_chunks(pieces, pieces, [&](int64_t b, int64_t e) {
      for (int64_t p = b; p < e; ++p) rows<Op>(L, 0, nrows, p * step, std::min(ninner, (p + 1) * step));
    });
  } else {
    rows<Op>(L, 0, nrows, 0, ninner);
  }
}

template <template <typename> class Op>
void run_copy(const IndexLoop& L) {
  switch (itemsize(L.dtype)) {
    case 1: return run_loop<Op<uint8_t>>(L);
    case 2: return run_loop<Op<uint16_t>>(L);
    case 4: return run_loop<Op<uint32_t>>(L);
    case 8: return run_loop<Op<uint64_t>>(L);
    default: return run_loop<Op<Bytes16>>(L);
  }
}

void index_kernel(const IndexLoop& L, bool accumulate) {
  if (!accumulate || !L.offsets_on_dst) return run_copy<Assign>(L);
  EMBER_DISPATCH_ALL(L.dtype, "index_put_", [&] { run_loop<Accumulate<scalar_t>>(L); });
}

// ---------------------------------------------------------------- nonzero

template <typename T>
inline bool is_nonzero(const T& v) {
  return convert<bool>(v);
}

template <typename T>
Tensor nonzero_typed(const Tensor& self) {
  const T* p = static_cast<const T*>(self.data_ptr());
  const int64_t n = self.numel(), nd = self.dim();
  if (n == 0) return empty({0, nd}, kInt64);  // also keeps zero sizes out of the index math
  const int chunks = std::max(threads_for(n), 1);
  const int64_t step = std::max<int64_t>((n + chunks - 1) / chunks, 1);
  SmallVector<int64_t, 64> counts(static_cast<size_t>(chunks) + 1, 0);
  parallel_chunks(n, chunks, [&](int64_t b, int64_t e) {
    int64_t c = 0;
    for (int64_t i = b; i < e; ++i) c += is_nonzero(p[i]) ? 1 : 0;
    counts[b / step + 1] = c;
  });
  for (int c = 0; c < chunks; ++c) counts[c + 1] += counts[c];
  const int64_t total = counts[chunks];
  // Stored as [ndim, n] and returned transposed, as PyTorch does: each dim's indices are
  // contiguous, which is what indexing with the result reads.
  Tensor out = empty({nd, total}, kInt64);
  int64_t* o = out.data_ptr<int64_t>();
  IntArrayRef sizes = self.sizes();
  parallel_chunks(n, chunks, [&](int64_t b, int64_t e) {
    int64_t pos = counts[b / step];
    if (nd == 1) {
      for (int64_t i = b; i < e; ++i)
        if (is_nonzero(p[i])) o[pos++] = i;
      return;
    }
    int64_t idx[kMaxDims];
    int64_t rest = b;
    for (int64_t d = nd; d-- > 0;) { idx[d] = rest % sizes[d]; rest /= sizes[d]; }
    for (int64_t i = b; i < e; ++i) {
      if (is_nonzero(p[i])) {
        for (int64_t d = 0; d < nd; ++d) o[d * total + pos] = idx[d];
        ++pos;
      }
      for (int64_t d = nd; d-- > 0;) {
        if (++idx[d] < sizes[d]) break;
        idx[d] = 0;
      }
    }
  });
  return out.t();
}

Tensor nonzero_kernel(const Tensor& self) {
  EMBER_CHECK(self.dim() <= kMaxDims, ValueError, "nonzero(): at most ", kMaxDims,
              " dimensions are supported, got ", self.dim());
  Tensor s = self.contiguous();
  return EMBER_DISPATCH_ALL(s.dtype(), "nonzero", [&] { return nonzero_typed<scalar_t>(s); });
}

// ---------------------------------------------------------------- masked fill

template <typename T>
void masked_fill_typed(const ElementwiseIter& it, const void* value) {
  const T v = *static_cast<const T*>(value);  // read once: it may live in the written tensor
  for_each(it, [v](char** data, const int64_t* s, int64_t n) {
    if (s[0] == sizeof(T) && s[1] == 1) {
      T* __restrict o = reinterpret_cast<T*>(data[0]);
      const uint8_t* __restrict m = reinterpret_cast<const uint8_t*>(data[1]);
      for (int64_t i = 0; i < n; ++i) o[i] = m[i] ? v : o[i];
    } else {
      for (int64_t i = 0; i < n; ++i)
        if (*reinterpret_cast<const uint8_t*>(data[1] + i * s[1])) *reinterpret_cast<T*>(data[0] + i * s[0]) = v;
    }
  });
}

void masked_fill_kernel(const ElementwiseIter& it, const void* value) {
  switch (itemsize(it.operand(0).dtype())) {
    case 1: return masked_fill_typed<uint8_t>(it, value);
    case 2: return masked_fill_typed<uint16_t>(it, value);
    case 4: return masked_fill_typed<uint32_t>(it, value);
    case 8: return masked_fill_typed<uint64_t>(it, value);
    default: return masked_fill_typed<Bytes16>(it, value);
  }
}

}  // namespace

EMBER_REGISTER_STUB(masked_fill_stub, &masked_fill_kernel);
EMBER_REGISTER_STUB(index_offsets_stub, &index_offsets_kernel);
EMBER_REGISTER_STUB(index_stub, &index_kernel);
EMBER_REGISTER_STUB(nonzero_stub, &nonzero_kernel);
}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
#endif  // EMBER_ISA_DEFAULT
