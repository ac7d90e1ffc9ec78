// Grid sampling (grid_sampler, grid_sampler_2d/3d and their backward ops: F.grid_sample) and
// affine_grid_generator (F.affine_grid), with PyTorch 1.13's checks, messages and coordinate
// conventions (unnormalization, border/reflection padding, bicubic taps).
//
// The kernels walk the output positions of each batch element in tiles. The taps of a tile
// (for every position, the input offsets and weights of the 1, 4, 8 or 16 elements it reads,
// and for the backward the weights' derivatives along each grid coordinate) are computed once
// and applied to every channel, so the per-channel loop is loads and multiply-adds. Taps
// outside the input (zeros padding) have offset -1: they read 0 and receive nothing.
//
// _grid_sampler_differentiable is the same sampling written with differentiable ops (gather
// and pointwise math); the formulas use it when gradients must differentiate again.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ember/autograd.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ember/ops/nn_sample.h"

namespace ember::grid_detail {
namespace {

enum Mode : int64_t { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum Pad : int64_t { kZeros = 0, kBorder = 1, kReflection = 2 };

// Taps per tile: 16 K of them, so that a tile's taps stay in the L2 cache while every channel
// walks them (a channel plane of a typical image stays in L1 meanwhile).
constexpr int64_t kTileTaps = 16384;

// ---------------------------------------------------------------- coordinates
// Grid coordinate in [-1, 1] to input coordinate; *d: its derivative. The 2-D forms are those
// of PyTorch's vectorized kernel, the 3-D ones those of its scalar kernel (nearest rounding
// can tell them apart).
template <typename T>
[[gnu::always_inline]] inline T unnormalize(T c, int64_t size, bool ac, bool vec_form, T* d) {
  if (ac) {
    *d = T(size - 1) / 2;
    return vec_form ? (c + 1) * *d : ((c + 1) / 2) * T(size - 1);
  }
  *d = T(size) / 2;
  return vec_form ? c * *d + (*d - T(0.5)) : ((c + 1) * T(size) - 1) / 2;
}

// Clamped to [0, size - 1]; *d is 0 at and beyond the ends.
template <typename T>
[[gnu::always_inline]] inline T clip(T c, int64_t size, T* d) {
  const T hi = T(size - 1);
  if (c <= T(0)) {
    *d = 0;
    return 0;
  }
  if (c >= hi) {
    *d = 0;
    return hi;
  }
  *d = 1;
  return c;
}

// Reflected into [twice_low / 2, twice_high / 2]; *d is the sign the reflection leaves.
template <typename T>
[[gnu::always_inline]] inline T reflect(T c, int64_t twice_low, int64_t twice_high, T* d) {
  if (twice_low == twice_high) {
    *d = 0;
    return 0;
  }
  const T lo = T(twice_low) / 2, span = T(twice_high - twice_low) / 2;
  c -= lo;
  T sign = 1;
  if (c < T(0)) {
    sign = -1;
    c = -c;
  }
  const T extra = std::fmod(c, span);
  const int64_t flips = static_cast<int64_t>(std::floor(c / span));
  if (flips % 2 == 0) {
    *d = sign;
    return extra + lo;
  }
  *d = -sign;
  return span - extra + lo;
}

// Border and reflection padding of an (unnormalized) coordinate; *d multiplied by the chain.
template <typename T>
[[gnu::always_inline]] inline T pad_coord(T c, int64_t size, int64_t pad, bool ac, T* d) {
  if (pad == kZeros) return c;
  T dr = 1, dc;
  if (pad == kReflection) c = ac ? reflect(c, 0, 2 * (size - 1), &dr) : reflect(c, -1, 2 * size - 1, &dr);
  c = clip(c, size, &dc);
  *d *= dr * dc;
  return c;
}

// Keys' cubic convolution weights (a = -0.75) of the taps at floor - 1 .. floor + 2 for the
// fraction t, and their derivatives in t.
template <typename T>
[[gnu::always_inline]] inline void cubic(T t, T* w, T* dw) {
  const T a = T(-0.75);
  auto near = [&](T x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
  auto dnear = [&](T x) { return (3 * (a + 2) * x - 2 * (a + 3)) * x; };
  auto far = [&](T x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };
  auto dfar = [&](T x) { return (3 * a * x - 10 * a) * x + 8 * a; };
  w[0] = far(t + 1);
  w[1] = near(t);
  w[2] = near(1 - t);
  w[3] = far(2 - t);
  dw[0] = dfar(t + 1);
  dw[1] = dnear(t);
  dw[2] = -dnear(1 - t);
  dw[3] = -dfar(2 - t);
}

// ---------------------------------------------------------------- taps
struct Geom {
  int64_t sd, n, c, mode, pad;
  bool ac;
  int64_t in[3];       // input spatial sizes (d, h, w; the last sd are used)
  int64_t in_numel;    // elements per input plane
  int64_t positions;   // output positions per batch element
  int64_t k;           // taps per position
};

int64_t taps_per_axis(int64_t mode) { return mode == kBilinear ? 2 : mode == kBicubic ? 4 : 1; }

// The taps of positions [p0, p0 + m) of batch element `b` (grid [N, P, SD]): off/w [m * K],
// and with dw, the derivative of each weight along each grid coordinate a, dw [SD][m * K].
// KA taps per axis (1 nearest, 2 bilinear, 4 bicubic), K = KA^SD.
template <typename T, int SD, int KA>
void make_taps(const Geom& G, const T* grid, int64_t b, int64_t p0, int64_t m, int64_t* off, T* w, T* dw) {
  constexpr int K = KA == 1 ? 1 : (SD == 2 ? KA * KA : KA * KA * KA);
  int64_t stride[SD], size[SD];
  {
    int64_t s = 1;
    for (int a = 0; a < SD; ++a) {  // grid coordinate a indexes spatial dim SD - 1 - a
      size[a] = G.in[2 - a];
      stride[a] = s;
      s *= size[a];
    }
  }
  const T* gp = grid + (b * G.positions + p0) * SD;
  for (int64_t i = 0; i < m; ++i, gp += SD) {
    // Per axis: KA taps with index (-1 if outside), weight and weight derivative.
    int64_t idx[SD][KA];
    T wa[SD][KA], da[SD][KA];
#pragma GCC unroll 3
    for (int a = 0; a < SD; ++a) {
      const int64_t n = size[a];
      T mult;
      T c = unnormalize(gp[a], n, G.ac, SD == 2, &mult);
      if constexpr (KA == 4) {
        const T f = std::floor(c);
        cubic(c - f, wa[a], da[a]);
#pragma GCC unroll 4
        for (int t = 0; t < 4; ++t) {
          // Each tap is padded on its own (as an integer coordinate).
          T unused = 1;
          const T pc = pad_coord(f - 1 + T(t), n, G.pad, G.ac, &unused);
          idx[a][t] = pc >= T(0) && pc <= T(n - 1) ? static_cast<int64_t>(pc) : -1;
          da[a][t] *= mult;
        }
      } else {
        c = pad_coord(c, n, G.pad, G.ac, &mult);
        // Beyond [-2, n + 1] no tap is inside; clamping there (NaN too) keeps the integer
        // conversions defined, and the index tests below branch-free.
        const T cc = c >= T(-2) ? (c <= T(n + 1) ? c : T(n + 1)) : T(-2);
        if constexpr (KA == 1) {
          const int64_t r = static_cast<int64_t>(std::nearbyint(cc));
          idx[a][0] = static_cast<uint64_t>(r) < static_cast<uint64_t>(n) ? r : -1;
          wa[a][0] = 1;
          da[a][0] = 0;
        } else {
          int64_t fi = static_cast<int64_t>(cc);  // floor: truncation, one less below zero
          fi -= T(fi) > cc;
          const T t = cc - T(fi);
          idx[a][0] = static_cast<uint64_t>(fi) < static_cast<uint64_t>(n) ? fi : -1;
          idx[a][1] = static_cast<uint64_t>(fi + 1) < static_cast<uint64_t>(n) ? fi + 1 : -1;
          wa[a][0] = 1 - t;
          wa[a][1] = t;
          da[a][0] = -mult;
          da[a][1] = mult;
        }
      }
    }
    // The cartesian product of the axes' taps (x fastest).
#pragma GCC unroll 16
    for (int j = 0; j < K; ++j) {
      int64_t o = 0;
      T weight = 1;
      bool inside = true;
      int t[SD];
#pragma GCC unroll 3
      for (int a = 0, rest = j; a < SD; ++a, rest /= KA) {
        t[a] = rest % KA;
        inside = inside && idx[a][t[a]] >= 0;
        o += idx[a][t[a]] * stride[a];
        weight *= wa[a][t[a]];
      }
      off[i * K + j] = inside ? o : -1;
      w[i * K + j] = weight;
      if (dw)
#pragma GCC unroll 3
        for (int a = 0; a < SD; ++a) {
          T d = da[a][t[a]];
          for (int c = 0; c < SD; ++c)
            if (c != a) d *= wa[c][t[c]];
          dw[a * m * K + i * K + j] = d;
        }
    }
  }
}

// Calls f(K, SD, KA) with the taps per position, spatial dims and taps per axis as
// compile-time constants.
template <typename F>
void with_taps(const Geom& G, const F& f) {
  using std::integral_constant;
  using I = int;
  if (G.sd == 2) {
    if (G.k == 1) f(integral_constant<I, 1>{}, integral_constant<I, 2>{}, integral_constant<I, 1>{});
    else if (G.k == 4) f(integral_constant<I, 4>{}, integral_constant<I, 2>{}, integral_constant<I, 2>{});
    else f(integral_constant<I, 16>{}, integral_constant<I, 2>{}, integral_constant<I, 4>{});
  } else {
    if (G.k == 1) f(integral_constant<I, 1>{}, integral_constant<I, 3>{}, integral_constant<I, 1>{});
    else f(integral_constant<I, 8>{}, integral_constant<I, 3>{}, integral_constant<I, 2>{});
  }
}

// ---------------------------------------------------------------- kernels
// One channel of a tile: y[i] = sum of w * x over the taps of position i. Outside taps load
// element 0 and select 0 (no branch, and no 0 * inf). (Blocks of channels sharing one read of
// the taps measured slower: their planes no longer fit in L1 together.)
template <typename T, int K>
void forward_channel(const int64_t* off, const T* w, int64_t m, const T* x, T* y) {
  for (int64_t i = 0; i < m; ++i) {
    T s = 0;
#pragma GCC unroll 16
    for (int j = 0; j < K; ++j) {
      const int64_t o = off[i * K + j];
      const T v = x[o < 0 ? 0 : o];
      s += o >= 0 ? w[i * K + j] * v : T(0);
    }
    y[i] = s;
  }
}

// Per-thread tap buffers from the caching allocator (vectors this large would be mapped and
// page-faulted afresh on every call).
template <typename T>
struct Scratch {
  int64_t vals;
  Tensor offs, values;
  Scratch(bool par, int64_t vals_per_thread)
      : vals(vals_per_thread),
        offs(empty({(par ? omp_get_max_threads() : 1) * kTileTaps}, kInt64)),
        values(empty({(par ? omp_get_max_threads() : 1) * vals_per_thread}, std::is_same_v<T, double> ? kDouble : kFloat)) {}
  int64_t* off() const { return offs.data_ptr<int64_t>() + omp_get_thread_num() * kTileTaps; }
  T* val() const { return values.data_ptr<T>() + omp_get_thread_num() * vals; }
};

// x [N, C, *in], grid [N, P, sd] (contiguous), y [N, C, P]: tasks are (batch element, tile).
template <typename T>
void forward_kernel(const Geom& G, const T* x, const T* grid, T* y) {
  const int64_t tile = kTileTaps / G.k, tiles = (G.positions + tile - 1) / tile, tasks = G.n * tiles;
  const bool par = !omp_in_parallel() && tasks > 1 && G.n * G.positions * G.c * G.k > 32768;
  const Scratch<T> scratch(par, kTileTaps);
  with_taps(G, [&](auto kc, auto sdc, auto kac) {
    constexpr int K = decltype(kc)::value, SD = decltype(sdc)::value, KA = decltype(kac)::value;
#pragma omp parallel if (par)
    {
      int64_t* off = scratch.off();
      T* w = scratch.val();
#pragma omp for schedule(static)
      for (int64_t task = 0; task < tasks; ++task) {
        const int64_t b = task / tiles, p0 = (task % tiles) * tile, m = std::min(tile, G.positions - p0);
        make_taps<T, SD, KA>(G, grid, b, p0, m, off, w, nullptr);
        for (int64_t ch = 0; ch < G.c; ++ch)
          forward_channel<T, K>(off, w, m, x + (b * G.c + ch) * G.in_numel, y + (b * G.c + ch) * G.positions + p0);
      }
    }
  });
}

// One channel of a tile, backward: the output gradient spread over the taps into gx (if GX),
// and acc[a][i] += g * sum over taps of x * dw/dgrid_a (if GG).
template <typename T, int K, int SD, bool GX, bool GG>
void backward_channel(const int64_t* off, const T* w, const T* dw, int64_t m, const T* g, const T* x, T* gx,
                      T* acc) {
  for (int64_t i = 0; i < m; ++i) {
    const T gv = g[i];
    T s[SD] = {};
#pragma GCC unroll 16
    for (int j = 0; j < K; ++j) {
      const int64_t o = off[i * K + j];
      if constexpr (GX) {
        if (o >= 0) gx[o] += w[i * K + j] * gv;
      }
      if constexpr (GG) {
        const T xv = x[o < 0 ? 0 : o];
        const T v = o >= 0 ? xv : T(0);
        for (int a = 0; a < SD; ++a) s[a] += dw[a * m * K + i * K + j] * v;
      }
    }
    if constexpr (GG)
      for (int a = 0; a < SD; ++a) acc[a * m + i] += s[a] * gv;
  }
}

// gx [N, C, *in] (zeroed) and ggrid [N, P, sd]; either may be null. One batch element per
// task, so the scatter into gx needs no synchronization. Nearest sampling is piecewise
// constant in the grid: its grid gradient is 0.
template <typename T>
void backward_kernel(const Geom& G, const T* gy, const T* x, const T* grid, T* gx, T* ggrid) {
  const int64_t sd = G.sd;
  if (ggrid && G.mode == kNearest) {
    std::fill(ggrid, ggrid + G.n * G.positions * sd, T(0));
    ggrid = nullptr;
  }
  if (!gx && !ggrid) return;
  const bool par = !omp_in_parallel() && G.n > 1 && G.n * G.positions * G.c * G.k > 32768;
  with_taps(G, [&](auto kc, auto sdc, auto kac) {
    constexpr int K = decltype(kc)::value, SD = decltype(sdc)::value, KA = decltype(kac)::value;
    auto channel = [&](const int64_t* off, const T* w, const T* dw, int64_t m, int64_t b, int64_t ch, int64_t p0,
                       T* acc) {
      const T* g = gy + (b * G.c + ch) * G.positions + p0;
      const T* xc = x + (b * G.c + ch) * G.in_numel;
      T* gxc = gx ? gx + (b * G.c + ch) * G.in_numel : nullptr;
      if (gx && ggrid) backward_channel<T, K, SD, true, true>(off, w, dw, m, g, xc, gxc, acc);
      else if (gx) backward_channel<T, K, SD, true, false>(off, w, dw, m, g, xc, gxc, acc);
      else backward_channel<T, K, SD, false, true>(off, w, dw, m, g, xc, gxc, acc);
    };
    constexpr int64_t tile = kTileTaps / K;
    const Scratch<T> scratch(par, (1 + SD) * kTileTaps + SD * tile);
#pragma omp parallel if (par)
    {
      int64_t* off = scratch.off();
      T* w = scratch.val();
      T* dw = w + kTileTaps;
      T* acc = dw + SD * kTileTaps;
#pragma omp for schedule(static)
      for (int64_t b = 0; b < G.n; ++b)
        for (int64_t p0 = 0; p0 < G.positions; p0 += tile) {
          const int64_t m = std::min(tile, G.positions - p0);
          make_taps<T, SD, KA>(G, grid, b, p0, m, off, w, ggrid ? dw : nullptr);
          std::fill(acc, acc + SD * tile, T(0));
          for (int64_t ch = 0; ch < G.c; ++ch) channel(off, w, dw, m, b, ch, p0, acc);
          if (ggrid)
            for (int64_t i = 0; i < m; ++i)
              for (int64_t a = 0; a < SD; ++a) ggrid[(b * G.positions + p0 + i) * SD + a] = acc[a * m + i];
        }
    }
  });
}

// ---------------------------------------------------------------- checks
// PyTorch's check_grid_sampler_common and the 2-D/3-D checks, in its order.
void check(const Tensor& input, const Tensor& grid, int64_t mode, int64_t sd) {
  EMBER_CHECK(input.defined(), RuntimeError, "grid_sampler(): expected input to not be undefined");
  EMBER_CHECK(grid.defined(), RuntimeError, "grid_sampler(): expected grid to not be undefined");
  EMBER_CHECK(input.device() == grid.device(), RuntimeError,
              "grid_sampler(): expected input and grid to be on same device, but input is on ", input.device(),
              " and grid is on ", grid.device());
  EMBER_CHECK(input.dim() > 0 && grid.dim() > 0 && input.size(0) == grid.size(0), RuntimeError,
              "grid_sampler(): expected grid and input to have same batch size, but got input with sizes ",
              input.sizes(), " and grid with sizes ", grid.sizes());
  EMBER_CHECK(grid.size(-1) == input.dim() - 2, RuntimeError, "grid_sampler(): expected grid to have size ",
              input.dim() - 2, " in last dimension, but got grid with sizes ", grid.sizes());
  for (int64_t i = 2; i < input.dim(); ++i)
    EMBER_CHECK(input.size(i) > 0, RuntimeError,
                "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes ",
                input.sizes(), " with dimension ", i, " being empty");
  EMBER_CHECK(input.dim() == sd + 2 && grid.dim() == input.dim(), RuntimeError, "grid_sampler(): expected ", sd + 2,
              "D input and grid with same number of dimensions, but got input with sizes ", input.sizes(),
              " and grid with sizes ", grid.sizes());
  EMBER_CHECK(!(sd == 3 && mode == kBicubic), RuntimeError, "grid_sampler(): bicubic interpolation only supports 4D input");
  EMBER_CHECK(mode >= 0 && mode <= 2, RuntimeError, "grid_sampler(): unknown interpolation mode ", mode);
  const ScalarType dt = input.dtype();
  EMBER_CHECK(dt == kFloat || dt == kDouble, RuntimeError, "\"grid_sampler_", sd, "d\" not implemented for '", dt,
              "'");
  EMBER_CHECK(grid.dtype() == dt, RuntimeError, "grid_sampler(): expected grid to have the dtype of input (", dt,
              "), but got grid of dtype ", grid.dtype());
}

Geom make_geom(const Tensor& input, const Tensor& grid, int64_t mode, int64_t pad, bool ac) {
  Geom G{};
  G.sd = input.dim() - 2;
  G.n = input.size(0);
  G.c = input.size(1);
  G.mode = mode;
  G.pad = pad;
  G.ac = ac;
  G.in[0] = G.in[1] = G.in[2] = 1;
  G.in_numel = 1;
  for (int64_t i = 0; i < G.sd; ++i) {
    G.in[3 - G.sd + i] = input.size(2 + i);
    G.in_numel *= input.size(2 + i);
  }
  G.positions = 1;
  for (int64_t i = 1; i <= G.sd; ++i) G.positions *= grid.size(i);
  G.k = 1;
  for (int64_t i = 0; i < G.sd; ++i) G.k *= taps_per_axis(mode);
  return G;
}

DimVector out_shape(const Tensor& input, const Tensor& grid) {
  DimVector s{input.size(0), input.size(1)};
  for (int64_t i = 1; i < grid.dim() - 1; ++i) s.push_back(grid.size(i));
  return s;
}

template <typename F>
void with_float(ScalarType dt, const F& f) {
  if (dt == kDouble) f(double{});
  else f(float{});
}

// ---------------------------------------------------------------- ops
template <int SD>
Tensor grid_sampler_k(const Tensor& input, const Tensor& grid, int64_t mode, int64_t pad, bool ac) {
  check(input, grid, mode, SD);
  const DimVector shape = out_shape(input, grid);
  Tensor y = empty(shape, TensorOptions(input.dtype()).device(input.device()));
  if (input.is_meta() || y.numel() == 0) return y;
  const Geom G = make_geom(input, grid, mode, pad, ac);
  const Tensor x = input.contiguous(), g = grid.contiguous();
  with_float(input.dtype(), [&](auto t) {
    using T = decltype(t);
    forward_kernel<T>(G, x.data_ptr<T>(), g.data_ptr<T>(), y.data_ptr<T>());
  });
  return y;
}

template <int SD>
std::tuple<Tensor, Tensor> grid_sampler_backward_k(const Tensor& grad_output, const Tensor& input, const Tensor& grid,
                                                   int64_t mode, int64_t pad, bool ac, IntArrayRef output_mask) {
  check(input, grid, mode, SD);
  EMBER_CHECK(grad_output.defined() && grad_output.sizes().equals(out_shape(input, grid)), RuntimeError,
              "grid_sampler_", SD, "d_backward(): expected grad_output of sizes ", IntArrayRef(out_shape(input, grid)),
              " but got ", grad_output.defined() ? grad_output.sizes() : IntArrayRef());
  EMBER_CHECK(grad_output.dtype() == input.dtype(), RuntimeError, "grid_sampler_", SD,
              "d_backward(): expected grad_output of dtype ", input.dtype(), " but got ", grad_output.dtype());
  EMBER_CHECK(output_mask.size() == 2, RuntimeError, "grid_sampler_", SD, "d_backward(): output_mask must have 2 entries");
  const bool gi = output_mask[0] != 0, gg = output_mask[1] != 0;
  const TensorOptions o = TensorOptions(input.dtype()).device(input.device());
  if (input.is_meta()) return {empty(gi ? input.sizes() : IntArrayRef({0}), o), empty(gg ? grid.sizes() : IntArrayRef({0}), o)};
  Tensor dx = gi ? zeros(input.sizes(), o) : empty({0}, o);
  Tensor dgrid = gg ? empty(grid.sizes(), o) : empty({0}, o);
  if (gg && dgrid.numel() > 0 && input.size(1) == 0) dgrid.zero_();
  if (grad_output.numel() == 0 || (!gi && !gg)) {
    if (gg) dgrid.zero_();
    return {dx, dgrid};
  }
  const Geom G = make_geom(input, grid, mode, pad, ac);
  const Tensor x = input.contiguous(), g = grid.contiguous(), gy = grad_output.contiguous();
  with_float(input.dtype(), [&](auto t) {
    using T = decltype(t);
    backward_kernel<T>(G, gy.data_ptr<T>(), x.data_ptr<T>(), g.data_ptr<T>(), gi ? dx.data_ptr<T>() : nullptr,
                       gg ? dgrid.data_ptr<T>() : nullptr);
  });
  return {dx, dgrid};
}

using GridSig = Tensor(const Tensor&, const Tensor&, int64_t, int64_t, bool);
using GridBwdSig = std::tuple<Tensor, Tensor>(const Tensor&, const Tensor&, const Tensor&, int64_t, int64_t, bool,
                                              IntArrayRef);

// grid_sampler: 4-D inputs go to grid_sampler_2d, everything else to grid_sampler_3d (whose
// checks then name the problem), as in PyTorch.
Tensor grid_sampler_composite(const Tensor& input, const Tensor& grid, int64_t mode, int64_t pad, bool ac) {
  static const TypedOp<GridSig> op2("grid_sampler_2d"), op3("grid_sampler_3d");
  return (input.defined() && input.dim() == 4 ? op2 : op3).call(input, grid, mode, pad, ac);
}

// ---------------------------------------------------------------- differentiable form
// One axis of the differentiable sampling: the taps' integer coordinates (no gradient) and
// weights (differentiable in the grid).
struct AxisTaps {
  std::vector<Tensor> idx, w;
};

// Padding of coordinates as differentiable ops (the reflection's fold and the clamp).
Tensor pad_coords(const Tensor& c, int64_t size, int64_t pad, bool ac) {
  if (pad == kZeros) return c;
  Tensor r = c;
  if (pad == kReflection) {
    const int64_t tl = ac ? 0 : -1, th = ac ? 2 * (size - 1) : 2 * size - 1;
    if (tl == th) return zeros_like(c);
    const double lo = tl / 2.0, span = (th - tl) / 2.0;
    const Tensor in = abs(sub(r, Scalar(lo)));
    const Tensor extra = fmod(in, Scalar(span));
    const Tensor flips = floor(div(in.detach(), Scalar(span)));
    const Tensor even = eq(remainder(flips, Scalar(2)), Scalar(0));
    r = where(even, add(extra, Scalar(lo)), add(neg(extra), Scalar(span + lo)));
  }
  return clamp(r, Scalar(0), Scalar(size - 1));
}

Tensor grid_sampler_differentiable_k(const Tensor& input, const Tensor& grid, int64_t mode, int64_t pad, bool ac) {
  check(input, grid, mode, input.dim() - 2);
  const int64_t sd = input.dim() - 2, n = input.size(0), ch = input.size(1);
  const DimVector shape = out_shape(input, grid);
  int64_t positions = 1, numel = 1;
  for (int64_t i = 1; i <= sd; ++i) positions *= grid.size(i);
  for (int64_t i = 2; i < input.dim(); ++i) numel *= input.size(i);
  const Tensor g = grid.reshape({n, positions, sd});
  std::vector<AxisTaps> axes(static_cast<size_t>(sd));
  std::vector<int64_t> strides(static_cast<size_t>(sd)), sizes(static_cast<size_t>(sd));
  int64_t stride = 1;
  for (int64_t a = 0; a < sd; ++a) {
    const int64_t size = input.size(input.dim() - 1 - a);
    sizes[a] = size;
    strides[a] = stride;
    stride *= size;
    Tensor c = g.select(2, a);
    c = ac ? mul(add(c, Scalar(1)), Scalar((size - 1) / 2.0)) : div(sub(mul(add(c, Scalar(1)), Scalar(size)), Scalar(1)), Scalar(2));
    AxisTaps& t = axes[a];
    if (mode == kBicubic) {
      const Tensor f = floor(c.detach()), u = sub(c, f);
      auto near = [&](const Tensor& x) {  // ((a + 2) x - (a + 3)) x^2 + 1, a = -0.75
        return add(mul(mul(sub(mul(x, Scalar(1.25)), Scalar(2.25)), x), x), Scalar(1));
      };
      auto far = [&](const Tensor& x) {  // ((a x - 5a) x + 8a) x - 4a
        return sub(mul(add(mul(sub(mul(x, Scalar(-0.75)), Scalar(-3.75)), x), Scalar(-6.0)), x), Scalar(-3.0));
      };
      const Tensor one_minus = add(neg(u), Scalar(1));
      t.w = {far(add(u, Scalar(1))), near(u), near(one_minus), far(add(one_minus, Scalar(1)))};
      for (int64_t k = 0; k < 4; ++k) t.idx.push_back(pad_coords(add(f, Scalar(k - 1)), size, pad, ac));
    } else {
      c = pad_coords(c, size, pad, ac);
      if (mode == kNearest) {
        t.idx = {round(c.detach())};
        t.w = {ones_like(c)};
      } else {
        const Tensor f = floor(c.detach()), u = sub(c, f);
        t.idx = {f, add(f, Scalar(1))};
        t.w = {add(neg(u), Scalar(1)), u};
      }
    }
  }
  const int64_t ka = static_cast<int64_t>(axes[0].idx.size());
  int64_t k = 1;
  for (int64_t a = 0; a < sd; ++a) k *= ka;
  const Tensor xf = input.reshape({n, ch, numel});
  Tensor out;
  for (int64_t j = 0; j < k; ++j) {
    Tensor weight, flat, inside;
    int64_t rest = j;
    for (int64_t a = 0; a < sd; ++a) {
      const int64_t tap = rest % ka;
      rest /= ka;
      const Tensor& ix = axes[a].idx[tap];
      const Tensor ok = logical_and(ge(ix, Scalar(0)), le(ix, Scalar(sizes[a] - 1)));
      const Tensor pos = mul(clamp(ix, Scalar(0), Scalar(sizes[a] - 1)).to(kInt64), Scalar(strides[a]));
      weight = weight.defined() ? mul(weight, axes[a].w[tap]) : axes[a].w[tap];
      flat = flat.defined() ? add(flat, pos) : pos;
      inside = inside.defined() ? logical_and(inside, ok) : ok;
    }
    const Tensor vals = gather(xf, 2, flat.unsqueeze(1).expand({n, ch, positions}));
    const Tensor term = mul(vals, mul(weight, inside.to(weight.dtype())).unsqueeze(1));
    out = out.defined() ? add(out, term) : term;
  }
  return out.reshape(shape);
}

// ---------------------------------------------------------------- affine grids
// PyTorch's linspace_from_neg_one: -1 .. 1 in `steps` points, shrunk by (steps - 1) / steps
// unless align_corners (pixel centres); a single point is 0.
Tensor neg_one_to_one(int64_t steps, bool ac, const TensorOptions& o) {
  if (steps <= 1) return zeros({1}, o);
  Tensor r = linspace(-1, 1, steps, o);
  if (!ac) r = div(mul(r, Scalar(steps - 1)), Scalar(steps));
  return r;
}

Tensor affine_grid_generator_k(const Tensor& theta, IntArrayRef size, bool ac) {
  EMBER_CHECK(theta.defined(), ValueError, "affine_grid_generator(): got an undefined tensor");
  EMBER_CHECK(size.size() == 4 || size.size() == 5, RuntimeError,
              "AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.");
  const int64_t sd = static_cast<int64_t>(size.size()) - 2, n = size[0];
  EMBER_CHECK(theta.dim() == 3 && theta.size(0) == n && theta.size(1) == sd && theta.size(2) == sd + 1, RuntimeError,
              "affine_grid_generator(): expected theta of sizes [", n, ", ", sd, ", ", sd + 1, "] for size ", size,
              ", but got ", theta.sizes());
  EMBER_CHECK(!(theta.is_complex() && autograd::GradMode::is_enabled() && autograd::requires_grad(theta)),
              RuntimeError,
              "affine_grid_generator does not support automatic differentiation for outputs with complex dtype.");
  const TensorOptions o = TensorOptions(theta.dtype()).device(theta.device());
  // base[..., a] is the normalized coordinate along spatial dim sd - 1 - a; the last entry is 1.
  DimVector bshape{n};
  int64_t positions = 1;
  for (int64_t i = 2; i < static_cast<int64_t>(size.size()); ++i) {
    bshape.push_back(size[i]);
    positions *= size[i];
  }
  bshape.push_back(sd + 1);
  Tensor base = empty(bshape, o);
  for (int64_t a = 0; a < sd; ++a) {
    const int64_t len = size[sd + 1 - a];  // coordinate a follows spatial dim sd - 1 - a
    DimVector view(static_cast<size_t>(sd), 1);
    view[sd - 1 - a] = len;
    base.select(-1, a).copy_(neg_one_to_one(len, ac, o).reshape(view));
  }
  base.select(-1, sd).fill_(1);
  DimVector gshape(bshape);
  gshape.back() = sd;
  return bmm(base.view({n, positions, sd + 1}), theta.transpose(1, 2)).view(gshape);
}

using AffineSig = Tensor(const Tensor&, IntArrayRef, bool);

}  // namespace
}  // namespace ember::grid_detail

namespace ember {

Tensor grid_sampler(const Tensor& input, const Tensor& grid, int64_t interpolation_mode, int64_t padding_mode,
                    bool align_corners) {
  static const TypedOp<grid_detail::GridSig> op("grid_sampler");
  return op.call(input, grid, interpolation_mode, padding_mode, align_corners);
}

std::tuple<Tensor, Tensor> grid_sampler_backward(const Tensor& grad_output, const Tensor& input, const Tensor& grid,
                                                 int64_t interpolation_mode, int64_t padding_mode,
                                                 bool align_corners, IntArrayRef output_mask) {
  static const TypedOp<grid_detail::GridBwdSig> op2("grid_sampler_2d_backward"), op3("grid_sampler_3d_backward");
  return (input.defined() && input.dim() == 4 ? op2 : op3)
      .call(grad_output, input, grid, interpolation_mode, padding_mode, align_corners, output_mask);
}

Tensor affine_grid_generator(const Tensor& theta, IntArrayRef size, bool align_corners) {
  static const TypedOp<grid_detail::AffineSig> op("affine_grid_generator");
  return op.call(theta, size, align_corners);
}

EMBER_REGISTER(grid_sample_ops) {
  namespace gd = grid_detail;
  const std::string args = "(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners)";
  define_op<gd::GridSig>("grid_sampler" + args + " -> Tensor", Tag::FunctionOnly);
  register_composite<gd::GridSig, &gd::grid_sampler_composite>("grid_sampler");
  define_op<gd::GridSig>("grid_sampler_2d" + args + " -> Tensor", Tag::FunctionOnly);
  register_cpu_meta<gd::GridSig, &gd::grid_sampler_k<2>>("grid_sampler_2d");
  define_op<gd::GridSig>("grid_sampler_3d" + args + " -> Tensor", Tag::FunctionOnly);
  register_cpu_meta<gd::GridSig, &gd::grid_sampler_k<3>>("grid_sampler_3d");
  const std::string bargs = "(Tensor grad_output, Tensor input, Tensor grid, int interpolation_mode, "
                            "int padding_mode, bool align_corners, int[2] output_mask) -> (Tensor, Tensor)";
  define_op<gd::GridBwdSig>("grid_sampler_2d_backward" + bargs, Tag::FunctionOnly);
  register_cpu_meta<gd::GridBwdSig, &gd::grid_sampler_backward_k<2>>("grid_sampler_2d_backward");
  define_op<gd::GridBwdSig>("grid_sampler_3d_backward" + bargs, Tag::FunctionOnly);
  register_cpu_meta<gd::GridBwdSig, &gd::grid_sampler_backward_k<3>>("grid_sampler_3d_backward");
  define_op<gd::GridSig>("_grid_sampler_differentiable" + args + " -> Tensor", Tag::Internal);
  register_composite<gd::GridSig, &gd::grid_sampler_differentiable_k>("_grid_sampler_differentiable");
  define_op<gd::AffineSig>("affine_grid_generator(Tensor theta, int[] size, bool align_corners) -> Tensor",
                           Tag::FunctionOnly);
  register_composite<gd::AffineSig, &gd::affine_grid_generator_k>("affine_grid_generator");
}

}  // namespace ember
