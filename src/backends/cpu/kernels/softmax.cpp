// softmax / log_softmax and their backward over the middle dim of [outer, size, inner].
//
// inner == 1 (the common last-dim case) works row by row: a row is read from memory once
// and then from cache (max, exp-sum, scale). Otherwise vectors run across a block of
// inner columns, with the per-column max and sum in small buffers, so every access stays
// contiguous. 16-bit types convert to float vectors on load and round once on store.
// Threads split rows (or outer x column blocks); each element is computed by one thread
// in a fixed order, so results do not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/cpu/kernels/vec_rows.h"
#include "backends/cpu/loops.h"
#include "backends/cpu/nn_stubs.h"

namespace ember::cpu {
namespace EMBER_ISA_NAMESPACE {
namespace softmax_kernels {
namespace {

using namespace vec_rows;

// ---------------------------------------------------------------- last dim
template <typename S>
void forward_row(const S* x, S* y, int64_t n, bool log) {
  using C = typename Compute<S>::type;
  using V = vec::Vec<C>;
  constexpr C kNegInf = -std::numeric_limits<C>::infinity();
  V m = vec::splat<C>(kNegInf);
  for_vectors<S>(n, [&](int64_t i, int k) { m = vmax(m, vload_part<S>(x + i, k, kNegInf)); });
  const V vm = vec::splat<C>(hmax<C>(m));
  V s0{}, s1{};
  if (!log && std::is_same_v<S, C>) {
    // exp(x - max) stored, then scaled: two passes over the cached row.
    int64_t i = 0;
    constexpr int W = vec::width<C>;
    for (; i + 2 * W <= n; i += 2 * W) {
      const V e0 = vec::exp(vload<S>(x + i) - vm), e1 = vec::exp(vload<S>(x + i + W) - vm);
      vstore<S, C>(y + i, e0);
      vstore<S, C>(y + i + W, e1);
      s0 += e0;
      s1 += e1;
    }
    for_vectors<S>(n - i, [&](int64_t j, int k) {
      const V e = vec::exp(vload_part<S>(x + i + j, k, kNegInf) - vm);
      vstore_part<S, C>(y + i + j, e, k);
      s0 += e;
    });
    const V inv = vec::splat<C>(C(1) / hsum<C>(s0 + s1));
    for_vectors<S>(n, [&](int64_t j, int k) { vstore_part<S, C>(y + j, vload_part<S>(y + j, k, C(0)) * inv, k); });
    return;
  }
  for_vectors<S>(n, [&](int64_t i, int k) { s0 += vec::exp(vload_part<S>(x + i, k, kNegInf) - vm); });
  const C sum = hsum<C>(s0);
  if (log) {
    const V shift = vm + vec::splat<C>(std::log(sum));
    for_vectors<S>(n, [&](int64_t i, int k) { vstore_part<S, C>(y + i, vload_part<S>(x + i, k, C(0)) - shift, k); });
  } else {  // 16-bit storage: recompute exp rather than round it twice
    const V inv = vec::splat<C>(C(1) / sum);
    for_vectors<S>(n, [&](int64_t i, int k) {
      vstore_part<S, C>(y + i, vec::exp(vload_part<S>(x + i, k, kNegInf) - vm) * inv, k);
    });
  }
}

template <typename S>
void backward_row(const S* g, const S* y, S* out, int64_t n, bool log) {
  using C = typename Compute<S>::type;
  using V = vec::Vec<C>;
  V acc{};
  if (log) {
    for_vectors<S>(n, [&](int64_t i, int k) { acc += vload_part<S>(g + i, k, C(0)); });
    const V s = vec::splat<C>(hsum<C>(acc));
    for_vectors<S>(n, [&](int64_t i, int k) {
      const V e = vec::exp(vload_part<S>(y + i, k, C(0)));
      vstore_part<S, C>(out + i, vload_part<S>(g + i, k, C(0)) - e * s, k);
    });
  } else {
    for_vectors<S>(n, [&](int64_t i, int k) { acc += vload_part<S>(g + i, k, C(0)) * vload_part<S>(y + i, k, C(0)); });
    const V s = vec::splat<C>(hsum<C>(acc));
    for_vectors<S>(n, [&](int64_t i, int k) {
      const V yv = vload_part<S>(y + i, k, C(0));
      vstore_part<S, C>(out + i, yv * (vload_part<S>(g + i, k, C(0)) - s), k);
    });
  }
}

// ---------------------------------------------------------------- inner columns
constexpr int64_t kColumnBlock = 256;  // columns per block: max and sum buffers stay in L1

// Columns [j0, j0 + nc) of one outer slice; x, y, g point at the slice, `inner` apart per step.
template <typename S>
void forward_columns(const S* x, S* y, int64_t size, int64_t inner, int64_t nc, bool log) {
  using C = typename Compute<S>::type;
  using V = vec::Vec<C>;
  constexpr C kNegInf = -std::numeric_limits<C>::infinity();
  alignas(64) C mx[kColumnBlock], sm[kColumnBlock];
  std::fill(mx, mx + nc, kNegInf);
  std::fill(sm, sm + nc, C(0));
  for (int64_t k = 0; k < size; ++k) {
    const S* row = x + k * inner;
    for_vectors<S>(nc, [&](int64_t j, int c) {
      vec::store(mx + j, vmax(vec::load<V>(mx + j), vload_part<S>(row + j, c, kNegInf)));
    });
  }
  for (int64_t k = 0; k < size; ++k) {
    const S* row = x + k * inner;
    for_vectors<S>(nc, [&](int64_t j, int c) {
      const V e = vec::exp(vload_part<S>(row + j, c, kNegInf) - vec::load<V>(mx + j));
      vec::store(sm + j, vec::load<V>(sm + j) + e);
    });
  }
  // Per column: log_softmax subtracts max + log(sum); softmax scales exp(x - max) by 1/sum.
  for (int64_t j = 0; j < nc; ++j) sm[j] = log ? mx[j] + std::log(sm[j]) : C(1) / sm[j];
  for (int64_t k = 0; k < size; ++k) {
    const S* row = x + k * inner;
    S* orow = y + k * inner;
    for_vectors<S>(nc, [&](int64_t j, int c) {
      const V v = vload_part<S>(row + j, c, C(0));
      const V r = log ? v - vec::load<V>(sm + j) : vec::exp(v - vec::load<V>(mx + j)) * vec::load<V>(sm + j);
      vstore_part<S, C>(orow + j, r, c);
    });
  }
}

template <typename S>
void backward_columns(const S* g, const S* y, S* out, int64_t size, int64_t inner, int64_t nc, bool log) {
  using C = typename Compute<S>::type;
  using V = vec::Vec<C>;
  alignas(64) C sm[kColumnBlock];
  std::fill(sm, sm + nc, C(0));
  for (int64_t k = 0; k < size; ++k) {
    const S* gr = g + k * inner;
    const S* yr = y + k * inner;
    for_vectors<S>(nc, [&](int64_t j, int c) {
      const V gv = vload_part<S>(gr + j, c, C(0));
      vec::store(sm + j, vec::load<V>(sm + j) + (log ? gv : gv * vload_part<S>(yr + j, c, C(0))));
    });
  }
  for (int64_t k = 0; k < size; ++k) {
    const S* gr = g + k * inner;
    const S* yr = y + k * inner;
    S* orow = out + k * inner;
    for_vectors<S>(nc, [&](int64_t j, int c) {
      const V gv = vload_part<S>(gr + j, c, C(0)), yv = vload_part<S>(yr + j, c, C(0)), s = vec::load<V>(sm + j);
      vstore_part<S, C>(orow + j, log ? gv - vec::exp(yv) * s : yv * (gv - s), c);
    });
  }
}

// ---------------------------------------------------------------- drivers
template <typename S, bool kBackward>
void run(const SoftmaxArgs& a) {
  const S* in = reinterpret_cast<const S*>(a.in);
  const S* y = reinterpret_cast<const S*>(a.y);
  S* out = reinterpret_cast<S*>(a.out);
  const int64_t size = a.size, inner = a.inner;
  const int64_t work = a.outer * size * inner;
  if (inner == 1) {
    const int nt = threads_for(work);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
    for (int64_t r = 0; r < a.outer; ++r) {
      if constexpr (kBackward) backward_row(in + r * size, y + r * size, out + r * size, size, a.log);
      else forward_row(in + r * size, out + r * size, size, a.log);
    }
    return;
  }
  const int64_t nblocks = (inner + kColumnBlock - 1) / kColumnBlock;
  const int nt = threads_for(work);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
  for (int64_t t = 0; t < a.outer * nblocks; ++t) {
    const int64_t o = t / nblocks, j0 = (t % nblocks) * kColumnBlock;
    const int64_t nc = std::min(kColumnBlock, inner - j0);
    const int64_t base = o * size * inner + j0;
    if constexpr (kBackward) backward_columns(in + base, y + base, out + base, size, inner, nc, a.log);
    else forward_columns(in + base, out + base, size, inner, nc, a.log);
  }
}

template <bool kBackward>
void kernel(const SoftmaxArgs& a) {
  switch (a.dtype) {
    case ScalarType::Float: return run<float, kBackward>(a);
    case ScalarType::Double: return run<double, kBackward>(a);
    case ScalarType::Half: return run<Half, kBackward>(a);
    case ScalarType::BFloat16: return run<BFloat16, kBackward>(a);
    default: return;  // the op checked the dtype
  }
}

}  // namespace
}  // namespace softmax_kernels

EMBER_REGISTER_STUB(softmax_stub, &softmax_kernels::kernel<false>);
EMBER_REGISTER_STUB(softmax_backward_stub, &softmax_kernels::kernel<true>);

}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
