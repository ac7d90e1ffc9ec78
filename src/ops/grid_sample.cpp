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

constexpr int64_t kTile = 256;

// ---------------------------------------------------------------- coordinates
// Grid coordinate in [-1, 1] to input coordinate; *d: its derivative. The 2-D forms are those
// of PyTorch's vectorized kernel, the 3-D ones those of its scalar kernel (nearest rounding
// can tell them apart).
template <typename T>
T unnormalize(T c, int64_t size, bool ac, bool vec_form, T* d) {
  if (ac) {
    *d = T(size - 1) / 2;
    return vec_form ? (c + 1) * *d : ((c + 1) / 2) * T(size - 1);
  }
  *d = T(size) / 2;
  return vec_form ? c * *d + (*d - T(0.5)) : ((c + 1) * T(size) - 1) / 2;
}

// Clamped to [0, size - 1]; *d is 0 at and beyond the ends.
template <typename T>
T clip(T c, int64_t size, T* d) {
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
T reflect(T c, int64_t twice_low, int64_t twice_high, T* d) {
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
T pad_coord(T c, int64_t size, int64_t pad, bool ac, T* d) {
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
void cubic(T t, T* w, T* dw) {
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

// The taps of positions [p0, p0 + m) of batch element `b` (grid g, [N, P, sd]): off/w [m * k],
// and with derivs, dw [sd][m * k] (derivative of each weight along grid coordinate a).
template <typename T>
void make_taps(const Geom& G, const T* grid, int64_t b, int64_t p0, int64_t m, int64_t* off, T* w, T* dw) {
  const int64_t sd = G.sd, ka = taps_per_axis(G.mode), k = G.k;
  int64_t stride[3];
  {
    int64_t s = 1;
    for (int64_t a = 0; a < sd; ++a) {  // grid coordinate a indexes spatial dim sd - 1 - a
      stride[a] = s;
      s *= G.in[2 - a];
    }
  }
  for (int64_t i = 0; i < m; ++i) {
    const T* gp = grid + ((b * G.positions) + p0 + i) * sd;
    // Per axis: ka taps with index (-1 if outside), weight and weight derivative.
    int64_t idx[3][4];
    T wa[3][4], da[3][4];
    for (int64_t a = 0; a < sd; ++a) {
      const int64_t size = G.in[2 - a];
      T mult;
      T c = unnormalize(gp[a], size, G.ac, sd == 2, &mult);
      if (G.mode == kBicubic) {
        const T f = std::floor(c);
        cubic(c - f, wa[a], da[a]);
        for (int64_t t = 0; t < 4; ++t) {
          // Each tap is padded on its own (as an integer coordinate).
          T unused = 1;
          const T pc = pad_coord(f - 1 + T(t), size, G.pad, G.ac, &unused);
          idx[a][t] = pc >= T(0) && pc <= T(size - 1) ? static_cast<int64_t>(pc) : -1;
          da[a][t] *= mult;
        }
        continue;
      }
      c = pad_coord(c, size, G.pad, G.ac, &mult);
      if (G.mode == kNearest) {
        const T r = std::nearbyint(c);
        idx[a][0] = r >= T(0) && r <= T(size - 1) ? static_cast<int64_t>(r) : -1;
        wa[a][0] = 1;
        da[a][0] = 0;
      } else {
        const T f = std::floor(c), t = c - f;
        idx[a][0] = f >= T(0) && f <= T(size - 1) ? static_cast<int64_t>(f) : -1;
        idx[a][1] = f + 1 >= T(0) && f + 1 <= T(size - 1) ? static_cast<int64_t>(f) + 1 : -1;
        wa[a][0] = 1 - t;
        wa[a][1] = t;
        da[a][0] = -mult;
        da[a][1] = mult;
      }
    }
    // The cartesian product of the axes' taps (x fastest).
    for (int64_t j = 0; j < k; ++j) {
      int64_t o = 0, rest = j;
      T weight = 1;
      bool inside = true;
      int64_t t[3];
      for (int64_t a = 0; a < sd; ++a) {
        t[a] = rest % ka;
        rest /= ka;
        inside = inside && idx[a][t[a]] >= 0;
        o += idx[a][t[a]] * stride[a];
        weight *= wa[a][t[a]];
      }
      off[i * k + j] = inside ? o : -1;
      w[i * k + j] = weight;
      if (dw)
        for (int64_t a = 0; a < sd; ++a) {
          T d = da[a][t[a]];
          for (int64_t b2 = 0; b2 < sd; ++b2)
            if (b2 != a) d *= wa[b2][t[b2]];
          dw[a * m * k + i * k + j] = d;
        }
    }
  }
}

// ---------------------------------------------------------------- kernels
// x [N, C, *in], grid [N, P, sd] (contiguous), y [N, C, P].
template <typename T>
void forward_kernel(const Geom& G, const T* x, const T* grid, T* y) {
  const int64_t tiles = (G.positions + kTile - 1) / kTile, tasks = G.n * tiles, k = G.k;
  const bool par = !omp_in_parallel() && tasks > 1 && G.n * G.positions * G.c * k > 32768;
#pragma omp parallel if (par)
  {
    std::vector<int64_t> off(static_cast<size_t>(kTile * k));
    std::vector<T> w(static_cast<size_t>(kTile * k));
#pragma omp for schedule(static)
    for (int64_t task = 0; task < tasks; ++task) {
      const int64_t b = task / tiles, p0 = (task % tiles) * kTile, m = std::min(kTile, G.positions - p0);
      make_taps<T>(G, grid, b, p0, m, off.data(), w.data(), nullptr);
      for (int64_t ch = 0; ch < G.c; ++ch) {
        const T* xc = x + (b * G.c + ch) * G.in_numel;
        T* yc = y + (b * G.c + ch) * G.positions + p0;
        if (k == 4) {
          for (int64_t i = 0; i < m; ++i) {
            const int64_t* o = &off[i * 4];
            const T* wi = &w[i * 4];
            T s = 0;
            for (int j = 0; j < 4; ++j) s += o[j] >= 0 ? wi[j] * xc[o[j]] : T(0);
            yc[i] = s;
          }
        } else {
          for (int64_t i = 0; i < m; ++i) {
            T s = 0;
            for (int64_t j = 0; j < k; ++j) {
              const int64_t o = off[i * k + j];
              if (o >= 0) s += w[i * k + j] * xc[o];
            }
            yc[i] = s;
          }
        }
      }
    }
  }
}

// gx [N, C, *in] (zeroed) and ggrid [N, P, sd]; either may be null. One batch element per
// task, so the scatter into gx needs no synchronization.
template <typename T>
void backward_kernel(const Geom& G, const T* gy, const T* x, const T* grid, T* gx, T* ggrid) {
  const int64_t k = G.k, sd = G.sd;
  const bool par = !omp_in_parallel() && G.n > 1 && G.n * G.positions * G.c * k > 32768;
#pragma omp parallel if (par)
  {
    std::vector<int64_t> off(static_cast<size_t>(kTile * k));
    std::vector<T> w(static_cast<size_t>(kTile * k)), dw(ggrid ? static_cast<size_t>(sd * kTile * k) : 0),
        acc(static_cast<size_t>(sd * kTile));
#pragma omp for schedule(static)
    for (int64_t b = 0; b < G.n; ++b)
      for (int64_t p0 = 0; p0 < G.positions; p0 += kTile) {
        const int64_t m = std::min(kTile, G.positions - p0);
        make_taps<T>(G, grid, b, p0, m, off.data(), w.data(), ggrid ? dw.data() : nullptr);
        std::fill(acc.begin(), acc.end(), T(0));
        for (int64_t ch = 0; ch < G.c; ++ch) {
          const T* gc = gy + (b * G.c + ch) * G.positions + p0;
          if (gx) {
            T* xc = gx + (b * G.c + ch) * G.in_numel;
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 0; j < k; ++j) {
                const int64_t o = off[i * k + j];
                if (o >= 0) xc[o] += w[i * k + j] * gc[i];
              }
          }
          if (ggrid) {
            const T* xc = x + (b * G.c + ch) * G.in_numel;
            for (int64_t i = 0; i < m; ++i)
              for (int64_t j = 0; j < k; ++j) {
                const int64_t o = off[i * k + j];
                if (o < 0) continue;
                const T v = xc[o] * gc[i];
                for (int64_t a = 0; a < sd; ++a) acc[a * kTile + i] += dw[a * m * k + i * k + j] * v;
              }
          }
        }
        if (ggrid)
          for (int64_t i = 0; i < m; ++i)
            for (int64_t a = 0; a < sd; ++a) ggrid[(b * G.positions + p0 + i) * sd + a] = acc[a * kTile + i];
      }
  }
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
