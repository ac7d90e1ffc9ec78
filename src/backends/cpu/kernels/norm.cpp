// Normalization kernels: layer norm (forward and backward over contiguous rows) and the
// per-channel passes of batch norm (statistics, backward sums, per-channel affine maps).
//
// Row statistics take two passes over a row that stays in cache (mean, then squared
// deviations), so they are as stable as the two-pass formula. Sums accumulate in vector
// lanes of the compute type per block and in double across blocks. Batch norm's channel
// passes split channels across threads; layer norm's weight/bias gradients are summed per
// fixed block of rows and the blocks combined in order, so no result depends on the
// thread count.
#include <cmath>
#include <vector>

#include "backends/cpu/kernels/vec_rows.h"
#include "backends/cpu/loops.h"
#include "backends/cpu/nn_stubs.h"

namespace ember::cpu {
namespace EMBER_ISA_NAMESPACE {
namespace norm_kernels {
namespace {

using namespace vec_rows;

// sum(x) and sum((x - m)^2) of n elements, in vector lanes.
template <typename S, typename C = typename Compute<S>::type>
C row_sum(const S* x, int64_t n) {
  vec::Vec<C> acc0{}, acc1{};
  constexpr int W = vec::width<C>;
  int64_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    acc0 += vload<S>(x + i);
    acc1 += vload<S>(x + i + W);
  }
  for_vectors<S>(n - i, [&](int64_t j, int k) { acc0 += vload_part<S>(x + i + j, k, C(0)); });
  return hsum<C>(acc0 + acc1);
}
template <typename S, typename C = typename Compute<S>::type>
C row_m2(const S* x, int64_t n, C m) {
  const vec::Vec<C> vm = vec::splat<C>(m);
  vec::Vec<C> acc{};
  for_vectors<S>(n, [&](int64_t j, int k) {
    const vec::Vec<C> d = vload_part<S>(x + j, k, m) - vm;  // padded lanes give 0
    acc += d * d;
  });
  return hsum<C>(acc);
}

// ---------------------------------------------------------------- layer norm
template <typename S>
void layer_norm_forward(const LayerNormArgs& a) {
  using C = typename Compute<S>::type;
  using V = vec::Vec<C>;
  const S* X = reinterpret_cast<const S*>(a.x);
  const S* w = reinterpret_cast<const S*>(a.w);
  const S* b = reinterpret_cast<const S*>(a.b);
  S* Y = reinterpret_cast<S*>(a.y);
  S* mean_out = reinterpret_cast<S*>(a.mean);
  S* rstd_out = reinterpret_cast<S*>(a.rstd);
  const int64_t cols = a.cols;
  const int nt = threads_for(a.rows * cols);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
  for (int64_t r = 0; r < a.rows; ++r) {
    const S* x = X + r * cols;
    S* y = Y + r * cols;
    const C m = row_sum<S>(x, cols) / C(cols);
    const C rs = C(1) / std::sqrt(row_m2<S>(x, cols, m) / C(cols) + C(a.eps));
    mean_out[r] = convert<S>(m);
    rstd_out[r] = convert<S>(rs);
    const V vm = vec::splat<C>(m), vr = vec::splat<C>(rs);
    for_vectors<S>(cols, [&](int64_t j, int k) {
      V v = (vload_part<S>(x + j, k, C(0)) - vm) * vr;
      if (w) v *= vload_part<S>(w + j, k, C(0));
      if (b) v += vload_part<S>(b + j, k, C(0));
      vstore_part<S, C>(y + j, v, k);
    });
  }
}

constexpr int64_t kGradBlocks = 64;  // weight/bias gradients are summed in this many row blocks

template <typename S>
void layer_norm_backward(const LayerNormArgs& a) {
  using C = typename Compute<S>::type;
  using V = vec::Vec<C>;
  const S* X = reinterpret_cast<const S*>(a.x);
  const S* DY = reinterpret_cast<const S*>(a.dy);
  const S* w = reinterpret_cast<const S*>(a.w);
  const S* mean = reinterpret_cast<const S*>(a.mean);
  const S* rstd = reinterpret_cast<const S*>(a.rstd);
  S* DX = reinterpret_cast<S*>(a.y);
  const int64_t rows = a.rows, cols = a.cols;
  const bool param_grads = a.dw || a.db;
  const int64_t block = std::max<int64_t>(1, (rows + kGradBlocks - 1) / kGradBlocks);
  const int64_t nblocks = rows == 0 ? 0 : (rows + block - 1) / block;
  // Per block: dw partial sums, then db partial sums (padded to whole vectors).
  const int64_t padded = (cols + vec::width<C> - 1) / vec::width<C> * vec::width<C>;
  std::vector<C> part(param_grads ? static_cast<size_t>(nblocks * 2 * padded) : 0, C(0));
  const int nt = threads_for(rows * cols);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
  for (int64_t blk = 0; blk < nblocks; ++blk) {
    C* pdw = param_grads ? part.data() + blk * 2 * padded : nullptr;
    C* pdb = param_grads ? pdw + padded : nullptr;
    for (int64_t r = blk * block; r < std::min(rows, (blk + 1) * block); ++r) {
      const S* x = X + r * cols;
      const S* dy = DY + r * cols;
      const V vm = vec::splat<C>(convert<C>(mean[r])), vr = vec::splat<C>(convert<C>(rstd[r]));
      // dx = rstd * (dy*w - s1/n - xhat*s2/n) with s1, s2 the row sums of dy*w and dy*w*xhat;
      // the same pass over the cached row adds dy*xhat and dy to the block's dw and db.
      V c1{}, c2{};
      if (DX) {
        V s1{}, s2{};
        for_vectors<S>(cols, [&](int64_t j, int k) {
          V g = vload_part<S>(dy + j, k, C(0));
          if (w) g *= vload_part<S>(w + j, k, C(0));
          s1 += g;
          s2 += g * (vload_part<S>(x + j, k, C(0)) - vm) * vr;
        });
        c1 = vec::splat<C>(hsum<C>(s1) / C(cols));
        c2 = vec::splat<C>(hsum<C>(s2) / C(cols));
      }
      S* dx = DX ? DX + r * cols : nullptr;
      for_vectors<S>(cols, [&](int64_t j, int k) {
        const V g = vload_part<S>(dy + j, k, C(0));
        const V xhat = (vload_part<S>(x + j, k, C(0)) - vm) * vr;
        if (dx) {
          const V gw = w ? g * vload_part<S>(w + j, k, C(0)) : g;
          vstore_part<S, C>(dx + j, vr * (gw - c1 - xhat * c2), k);
        }
        if (param_grads) {
          vec::store(pdw + j, vec::load<V>(pdw + j) + g * xhat);
          vec::store(pdb + j, vec::load<V>(pdb + j) + g);
        }
      });
    }
  }
  if (!param_grads) return;
  S* dw = reinterpret_cast<S*>(a.dw);
  S* db = reinterpret_cast<S*>(a.db);
  for (int64_t j = 0; j < cols; ++j) {
    double sw = 0, sb = 0;
    for (int64_t blk = 0; blk < nblocks; ++blk) {
      sw += part[blk * 2 * padded + j];
      sb += part[blk * 2 * padded + padded + j];
    }
    if (dw) dw[j] = convert<S>(static_cast<C>(sw));
    if (db) db[j] = convert<S>(static_cast<C>(sb));
  }
}

// ---------------------------------------------------------------- batch norm channel passes
template <typename S>
void channel_pass(const ChannelArgs& a, ChannelOp op) {
  using C = typename Compute<S>::type;
  using V = vec::Vec<C>;
  const S* U = reinterpret_cast<const S*>(a.u);
  const S* Vd = reinterpret_cast<const S*>(a.v);
  const int64_t n = a.n, channels = a.channels, sp = a.spatial;
  auto seg = [&](const S* base, int64_t i, int64_t c) { return base + (i * channels + c) * sp; };
  if (op == ChannelOp::Affine) {
    S* Y = reinterpret_cast<S*>(a.y);
    const int nt = threads_for(n * channels * sp);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
    for (int64_t t = 0; t < n * channels; ++t) {
      const int64_t c = t % channels;
      const V va = vec::splat<C>(C(a.a[c])), vd = vec::splat<C>(C(a.d[c]));
      const V vb = vec::splat<C>(Vd ? C(a.b[c]) : C(0));
      const S* u = U + t * sp;
      const S* v = Vd ? Vd + t * sp : nullptr;
      S* y = Y + t * sp;
      for_vectors<S>(sp, [&](int64_t j, int k) {
        V r = va * vload_part<S>(u + j, k, C(0)) + vd;
        if (v) r += vb * vload_part<S>(v + j, k, C(0));
        vstore_part<S, C>(y + j, r, k);
      });
    }
    return;
  }
  const int nt = threads_for(n * channels * sp);
#pragma omp parallel for schedule(static) num_threads(nt) if (nt > 1)
  for (int64_t c = 0; c < channels; ++c) {
    double s0 = 0, s1 = 0;
    if (op == ChannelOp::Stats) {
      for (int64_t i = 0; i < n; ++i) s0 += row_sum<S>(seg(U, i, c), sp);
      const double m = n * sp != 0 ? s0 / static_cast<double>(n * sp) : 0.0;
      for (int64_t i = 0; i < n; ++i) s1 += row_m2<S>(seg(U, i, c), sp, static_cast<C>(m));
      s0 = m;
    } else {  // BackwardSums
      const V ctr = vec::splat<C>(C(a.center[c]));
      for (int64_t i = 0; i < n; ++i) {
        const S* u = seg(U, i, c);
        const S* v = seg(Vd, i, c);
        V acc0{}, acc1{};
        for_vectors<S>(sp, [&](int64_t j, int k) {
          const V g = vload_part<S>(u + j, k, C(0));
          acc0 += g;
          acc1 += g * (vload_part<S>(v + j, k, C(0)) - ctr);
        });
        s0 += hsum<C>(acc0);
        s1 += hsum<C>(acc1);
      }
    }
    a.out0[c] = s0;
    a.out1[c] = s1;
  }
}

template <template <typename> class K, typename... Args>
void by_dtype(ScalarType dt, Args&&... args) {
  switch (dt) {
    case ScalarType::Float: return K<float>::run(args...);
    case ScalarType::Double: return K<double>::run(args...);
    case ScalarType::Half: return K<Half>::run(args...);
    case ScalarType::BFloat16: return K<BFloat16>::run(args...);
    default: return;  // the op checked the dtype
  }
}
template <typename S> struct LnForward { static void run(const LayerNormArgs& a) { layer_norm_forward<S>(a); } };
template <typename S> struct LnBackward { static void run(const LayerNormArgs& a) { layer_norm_backward<S>(a); } };
template <typename S> struct Channel {
  static void run(const ChannelArgs& a, ChannelOp op) { channel_pass<S>(a, op); }
};

void layer_norm_kernel(const LayerNormArgs& a) { by_dtype<LnForward>(a.dtype, a); }
void layer_norm_backward_kernel(const LayerNormArgs& a) { by_dtype<LnBackward>(a.dtype, a); }
void channel_kernel(const ChannelArgs& a, ChannelOp op) { by_dtype<Channel>(a.dtype, a, op); }

}  // namespace
}  // namespace norm_kernels

EMBER_REGISTER_STUB(layer_norm_stub, &norm_kernels::layer_norm_kernel);
EMBER_REGISTER_STUB(layer_norm_backward_stub, &norm_kernels::layer_norm_backward_kernel);
EMBER_REGISTER_STUB(channel_stub, &norm_kernels::channel_kernel);

}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
