// Pooling: max_pool1d/2d/3d (with indices), avg_pool1d/2d/3d, adaptive_avg_pool1d/2d/3d,
// adaptive_max_pool1d/2d/3d and max_unpool2d/3d, with PyTorch 1.13's arguments, checks and
// messages. The public ops are composites (argument checks, unbatched inputs, stride
// defaulting to kernel_size); each family computes in one internal op generic over 1 to 3
// spatial dims, whose CPU kernel walks every (batch, channel) plane of a contiguous input in
// parallel. Max pooling computes indices only when they are asked for or a gradient will need
// them (the gradient scatters into the input plane at those indices); average pooling's
// gradient is an op of its own, whose gradient is the pooling again.
#include <omp.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

#include "ember/autograd.h"
#include "ember/dispatch.h"
#include "ember/forward_ad.h"
#include "ember/ops.h"
#include "ember/ops/nn_conv.h"
#include "ops/layout.h"

namespace ember::pool_detail {
namespace {

using OptInt = std::optional<int64_t>;

// A pooling over planes of up to 3 spatial dims; fewer dims are padded in front with size 1.
struct Geom {
  int64_t planes = 1;
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0},
          d[3] = {1, 1, 1};
  int64_t in_numel() const { return in[0] * in[1] * in[2]; }
  int64_t out_numel() const { return out[0] * out[1] * out[2]; }
};

// Runs f(plane) for every plane, in parallel when the work is large enough.
template <typename F>
void for_planes(const Geom& g, int64_t work_per_plane, const F& f) {
  layout::for_planes(g.planes, work_per_plane, f);
}

// One window's maximum and its index, taking v at i: NaN propagates (the last NaN wins), ties
// keep the first, as in PyTorch. Selected with bit masks: GCC turns `take ? v : best` into a
// branch, and random data mispredicts it every few elements (about 60% of the pooling's time).
template <typename T>
inline void take_max(T v, int64_t i, T& best, int64_t& best_i) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  const int64_t m = -static_cast<int64_t>((v > best) | (v != v));  // all ones when taken
  best_i ^= (best_i ^ i) & m;
  const U mu = static_cast<U>(m);
  best = std::bit_cast<T>(static_cast<U>((std::bit_cast<U>(best) & ~mu) | (std::bit_cast<U>(v) & mu)));
}

// 2-D windows with stride 2 and neither padding nor dilation, kernel 2x2 (the usual
// downsampling) or 3x3: every window lies inside the plane, so the loop needs no clipping,
// and the geometry lives in locals (stores through y and idx, an int64_t*, could alias a
// Geom field, which made the generic loop reload it for every element).
template <typename T, bool WithIdx, int K>
void max_pool2d_s2_kernel(const T* x, T* y, int64_t* idx, const Geom& g) {
  const int64_t iw = g.in[2], isz = g.in_numel(), oh_n = g.out[1], ow_n = g.out[2], osz = oh_n * ow_n;
  layout::for_planes(g.planes, osz * K * K, [=](int64_t pl) {
    const T* xp = x + pl * isz;
    T* yp = y + pl * osz;
    int64_t* ip = WithIdx ? idx + pl * osz : nullptr;
    for (int64_t oh = 0; oh < oh_n; ++oh) {
      const int64_t row0 = 2 * oh * iw;
      for (int64_t ow = 0; ow < ow_n; ++ow) {
        const int64_t i0 = row0 + 2 * ow;
        T best = xp[i0];
        if constexpr (WithIdx) {
          int64_t best_i = i0;
#pragma GCC unroll 3
          for (int kh = 0; kh < K; ++kh)
#pragma GCC unroll 3
            for (int kw = 0; kw < K; ++kw)
              if (kh | kw) take_max(xp[i0 + kh * iw + kw], i0 + kh * iw + kw, best, best_i);
          yp[oh * ow_n + ow] = best;
          ip[oh * ow_n + ow] = best_i;
        } else {
          bool any_nan = best != best;
#pragma GCC unroll 3
          for (int kh = 0; kh < K; ++kh)
#pragma GCC unroll 3
            for (int kw = 0; kw < K; ++kw) {
              const T v = xp[i0 + kh * iw + kw];
              best = best < v ? v : best;  // maxss; NaNs are collected apart
              any_nan |= v != v;
            }
          yp[oh * ow_n + ow] = any_nan ? std::numeric_limits<T>::quiet_NaN() : best;
        }
      }
    }
  });
}

template <typename T, bool WithIdx>
void max_pool_kernel(const T* x, T* y, int64_t* idx, const Geom& g) {
  const bool plain_2d = g.in[0] == 1 && g.k[0] == 1 && g.s[1] == 2 && g.s[2] == 2 && g.p[1] == 0 && g.p[2] == 0 &&
                        g.d[1] == 1 && g.d[2] == 1 && g.k[1] == g.k[2];
  // Without padding every window starts inside the plane; ceil_mode may still let the last
  // window run past the edge, which only the generic loop clips.
  if (plain_2d && (g.out[1] - 1) * 2 + g.k[1] <= g.in[1] && (g.out[2] - 1) * 2 + g.k[2] <= g.in[2]) {
    if (g.k[1] == 2) return max_pool2d_s2_kernel<T, WithIdx, 2>(x, y, idx, g);
    if (g.k[1] == 3) return max_pool2d_s2_kernel<T, WithIdx, 3>(x, y, idx, g);
  }
  const int64_t isz = g.in_numel(), osz = g.out_numel(), dw = g.d[2];
  for_planes(g, osz * g.k[0] * g.k[1] * g.k[2], [&](int64_t pl) {
    const T* xp = x + pl * isz;
    T* yp = y + pl * osz;
    int64_t* ip = idx ? idx + pl * osz : nullptr;
    int64_t o = 0;
    for (int64_t od = 0; od < g.out[0]; ++od) {
      int64_t d0 = od * g.s[0] - g.p[0], d1 = std::min(d0 + (g.k[0] - 1) * g.d[0] + 1, g.in[0]);
      while (d0 < 0) d0 += g.d[0];
      for (int64_t oh = 0; oh < g.out[1]; ++oh) {
        int64_t h0 = oh * g.s[1] - g.p[1], h1 = std::min(h0 + (g.k[1] - 1) * g.d[1] + 1, g.in[1]);
        while (h0 < 0) h0 += g.d[1];
        for (int64_t ow = 0; ow < g.out[2]; ++ow, ++o) {
          int64_t w0 = ow * g.s[2] - g.p[2], w1 = std::min(w0 + (g.k[2] - 1) * g.d[2] + 1, g.in[2]);
          while (w0 < 0) w0 += g.d[2];
          int64_t best_i = (d0 * g.in[1] + h0) * g.in[2] + w0;
          T best = -std::numeric_limits<T>::infinity();
          bool any_nan = false;
          for (int64_t id = d0; id < d1; id += g.d[0])
            for (int64_t ih = h0; ih < h1; ih += g.d[1]) {
              const int64_t row = (id * g.in[1] + ih) * g.in[2];
              for (int64_t iw = w0; iw < w1; iw += dw) {
                // Branch-free (random data mispredicts a branch every few elements); NaN
                // propagates, as in PyTorch.
                const T v = xp[row + iw];
                if constexpr (WithIdx) {
                  take_max(v, row + iw, best, best_i);
                } else {
                  best = best < v ? v : best;  // maxss; NaNs are collected apart
                  any_nan |= v != v;
                }
              }
            }
          if constexpr (WithIdx) {
            yp[o] = best;
            ip[o] = best_i;
          } else {
            yp[o] = any_nan ? std::numeric_limits<T>::quiet_NaN() : best;
          }
        }
      }
    }
  });
}

// The window of output o along dim a for average pooling: [lo, hi) clipped to the input,
// and the element count including padding.
struct Win {
  int64_t lo, hi, padded;
};
inline Win avg_win(const Geom& g, int a, int64_t o) {
  int64_t lo = o * g.s[a] - g.p[a];
  int64_t hi = std::min(lo + g.k[a], g.in[a] + g.p[a]);
  const int64_t padded = hi - lo;
  return {std::max<int64_t>(lo, 0), std::min(hi, g.in[a]), padded};
}

struct AvgOpts {
  bool count_include_pad;
  int64_t divisor;  // 0: none
};

inline int64_t avg_divisor(const AvgOpts& a, const Win& wd, const Win& wh, const Win& ww) {
  if (a.divisor) return a.divisor;
  if (a.count_include_pad) return wd.padded * wh.padded * ww.padded;
  return (wd.hi - wd.lo) * (wh.hi - wh.lo) * (ww.hi - ww.lo);
}

// Calls f(o, wd, wh, ww) for each output o of a plane, in order, with its clamped windows;
// f is not called for windows that lie entirely in the padding.
template <typename F>
void for_avg_windows(const Geom& g, const F& f) {
  int64_t o = 0;
  for (int64_t od = 0; od < g.out[0]; ++od) {
    const Win wd = avg_win(g, 0, od);
    for (int64_t oh = 0; oh < g.out[1]; ++oh) {
      const Win wh = avg_win(g, 1, oh);
      for (int64_t ow = 0; ow < g.out[2]; ++ow, ++o) {
        const Win ww = avg_win(g, 2, ow);
        if (wd.lo < wd.hi && wh.lo < wh.hi && ww.lo < ww.hi) f(o, wd, wh, ww);
      }
    }
  }
}

// Outputs whose window lies entirely in the padding are 0.
template <typename T>
void avg_pool_kernel(const T* x, T* y, const Geom& g, const AvgOpts& a) {
  const int64_t isz = g.in_numel(), osz = g.out_numel();
  for_planes(g, osz * g.k[0] * g.k[1] * g.k[2], [&](int64_t pl) {
    const T* xp = x + pl * isz;
    T* yp = y + pl * osz;
    std::fill(yp, yp + osz, T(0));
    for_avg_windows(g, [&](int64_t o, const Win& wd, const Win& wh, const Win& ww) {
      T sum = 0;
      for (int64_t id = wd.lo; id < wd.hi; ++id)
        for (int64_t ih = wh.lo; ih < wh.hi; ++ih) {
          const T* row = xp + (id * g.in[1] + ih) * g.in[2];
          for (int64_t iw = ww.lo; iw < ww.hi; ++iw) sum += row[iw];
        }
      yp[o] = sum / static_cast<T>(avg_divisor(a, wd, wh, ww));
    });
  });
}

// Spreads each output gradient evenly over its window (gx zero-initialized).
template <typename T>
void avg_pool_backward_kernel(const T* gy, T* gx, const Geom& g, const AvgOpts& a) {
  const int64_t isz = g.in_numel(), osz = g.out_numel();
  for_planes(g, osz * g.k[0] * g.k[1] * g.k[2], [&](int64_t pl) {
    const T* gp = gy + pl * osz;
    T* xp = gx + pl * isz;
    for_avg_windows(g, [&](int64_t o, const Win& wd, const Win& wh, const Win& ww) {
      const T v = gp[o] / static_cast<T>(avg_divisor(a, wd, wh, ww));
      for (int64_t id = wd.lo; id < wd.hi; ++id)
        for (int64_t ih = wh.lo; ih < wh.hi; ++ih) {
          T* row = xp + (id * g.in[1] + ih) * g.in[2];
          for (int64_t iw = ww.lo; iw < ww.hi; ++iw) row[iw] += v;
        }
    });
  });
}

// Adaptive windows: output o of n over an input of size m covers [floor(o m / n), ceil((o+1) m / n)).
inline int64_t ad_lo(int64_t o, int64_t m, int64_t n) { return (o * m) / n; }
inline int64_t ad_hi(int64_t o, int64_t m, int64_t n) { return ((o + 1) * m + n - 1) / n; }

template <typename T, bool Max, bool Backward>
void adaptive_kernel(const T* x, T* y, int64_t* idx, const Geom& g) {
  const int64_t isz = g.in_numel(), osz = g.out_numel();
  for_planes(g, isz + osz, [&](int64_t pl) {
    const T* xp = x + pl * (Backward ? osz : isz);  // backward: x is the output gradient
    T* yp = y + pl * (Backward ? isz : osz);        // backward: y is the input gradient
    int64_t* ip = idx ? idx + pl * osz : nullptr;
    int64_t o = 0;
    for (int64_t od = 0; od < g.out[0]; ++od) {
      const int64_t d0 = ad_lo(od, g.in[0], g.out[0]), d1 = ad_hi(od, g.in[0], g.out[0]);
      for (int64_t oh = 0; oh < g.out[1]; ++oh) {
        const int64_t h0 = ad_lo(oh, g.in[1], g.out[1]), h1 = ad_hi(oh, g.in[1], g.out[1]);
        for (int64_t ow = 0; ow < g.out[2]; ++ow, ++o) {
          const int64_t w0 = ad_lo(ow, g.in[2], g.out[2]), w1 = ad_hi(ow, g.in[2], g.out[2]);
          const int64_t count = (d1 - d0) * (h1 - h0) * (w1 - w0);
          if constexpr (Backward) {
            const T v = xp[o] / static_cast<T>(count);
            for (int64_t id = d0; id < d1; ++id)
              for (int64_t ih = h0; ih < h1; ++ih)
                for (int64_t iw = w0; iw < w1; ++iw) yp[(id * g.in[1] + ih) * g.in[2] + iw] += v;
          } else if constexpr (Max) {
            T best = -std::numeric_limits<T>::infinity();
            int64_t bi = (d0 * g.in[1] + h0) * g.in[2] + w0;
            for (int64_t id = d0; id < d1; ++id)
              for (int64_t ih = h0; ih < h1; ++ih)
                for (int64_t iw = w0; iw < w1; ++iw) {
                  const int64_t i = (id * g.in[1] + ih) * g.in[2] + iw;
                  if (xp[i] > best || std::isnan(xp[i])) {
                    best = xp[i];
                    bi = i;
                  }
                }
            yp[o] = best;
            ip[o] = bi;
          } else {
            T sum = 0;
            for (int64_t id = d0; id < d1; ++id)
              for (int64_t ih = h0; ih < h1; ++ih)
                for (int64_t iw = w0; iw < w1; ++iw) sum += xp[(id * g.in[1] + ih) * g.in[2] + iw];
            yp[o] = sum / static_cast<T>(count);
          }
        }
      }
    }
  });
}

// Global average pooling: the mean of each contiguous plane, with eight partial sums (a
// single running sum would wait on each add's latency).
template <typename T>
void plane_mean_kernel(const T* x, T* y, const Geom& g) {
  const int64_t n = g.in_numel();
  for_planes(g, n, [&](int64_t pl) {
    const T* p = x + pl * n;
    T acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
      for (int k = 0; k < 8; ++k) acc[k] += p[i + k];
    for (; i < n; ++i) acc[i & 7] += p[i];
    y[pl] = ((acc[0] + acc[1]) + (acc[2] + acc[3]) + ((acc[4] + acc[5]) + (acc[6] + acc[7]))) / static_cast<T>(n);
  });
}

// ---------------------------------------------------------------- argument handling
std::string join_x(IntArrayRef v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "x" : "") + std::to_string(v[i]);
  return s;
}

// One value per spatial dim from PyTorch's int-or-tuple argument.
DimVector per_dim(const char* op, const char* what, IntArrayRef v, int64_t sd, bool empty_ok = false) {
  if (empty_ok && v.empty()) return {};
  if (v.size() == 1) return DimVector(static_cast<size_t>(sd), v[0]);
  EMBER_CHECK(static_cast<int64_t>(v.size()) == sd, RuntimeError, op, ": ", what, " must either be ",
              empty_ok ? "omitted, " : "", "a single int, or a tuple of ", sd == 1 ? "one" : sd == 2 ? "two" : "three",
              " ints");
  return DimVector(v);
}

void check_input(const char* op, const Tensor& self, int64_t sd, bool allow_int64 = false) {
  const bool allow_empty_batch = true;
  EMBER_CHECK(self.defined(), ValueError, op, "(): got an undefined tensor");
  EMBER_CHECK(self.is_cpu() || self.is_meta(), NotImplementedError, op, "(): no kernel for device ", self.device());
  const int64_t dim = self.dim();
  EMBER_CHECK(dim == sd + 1 || dim == sd + 2, RuntimeError, op, ": Expected ", sd + 1, "D or ", sd + 2,
              "D (batch mode) tensor with optional 0 dim batch size for input, but got:", self.sizes());
  for (int64_t d = dim - sd - 1 + (dim == sd + 2 && allow_empty_batch ? 1 : 0); d < dim; ++d)
    EMBER_CHECK(self.size(d) != 0, RuntimeError, op, ": Expected ", sd + 1, "D or ", sd + 2,
                "D (batch mode) tensor with optional 0 dim batch size for input, but got:", self.sizes());
  const ScalarType dt = self.dtype();
  EMBER_CHECK(dt == kFloat || dt == kDouble || dt == kBFloat16 || (allow_int64 && dt == kInt64), RuntimeError, "\"",
              op, "\" not implemented for '", dt, "'");
}

int64_t pool_out(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t d, bool ceil_mode) {
  EMBER_CHECK(s != 0, RuntimeError, "stride should not be zero");
  EMBER_CHECK(pad >= 0, RuntimeError, "pad must be non-negative, but got pad: ", pad);
  EMBER_CHECK(pad <= k / 2, RuntimeError, "pad should be at most half of kernel size, but got pad=", pad,
              " and kernel_size=", k);
  const int64_t num = in + 2 * pad - d * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
  int64_t out = (num < 0 ? -((-num + s - 1) / s) : num / s) + 1;  // floor division
  if (ceil_mode && (out - 1) * s >= in + pad) --out;
  return out;
}

// Geometry of a (non-adaptive) pooling of `self` with sd spatial dims; checks as PyTorch.
Geom make_geom(const Tensor& self, int64_t sd, const DimVector& k, const DimVector& s, const DimVector& p,
               const DimVector& d, bool ceil_mode) {
  Geom g;
  const int64_t off = 3 - sd, dim = self.dim();
  for (int64_t i = 0; i < sd; ++i) {
    g.in[off + i] = self.size(dim - sd + i);
    g.k[off + i] = k[i];
    g.s[off + i] = s[i];
    g.p[off + i] = p[i];
    g.d[off + i] = d[i];
  }
  for (int64_t i = 0; i < sd; ++i) {
    EMBER_CHECK(k[i] > 0, RuntimeError, "kernel size should be greater than zero, but got ", IntArrayRef(k));
    EMBER_CHECK(s[i] != 0, RuntimeError, "stride should not be zero");
    EMBER_CHECK(s[i] > 0, RuntimeError, "stride should be greater than zero, but got ", IntArrayRef(s));
    EMBER_CHECK(d[i] > 0, RuntimeError, "dilation should be greater than zero, but got ", IntArrayRef(d));
  }
  bool ok = true;
  for (int64_t i = 0; i < sd; ++i) {
    g.out[off + i] = pool_out(g.in[off + i], k[i], p[i], s[i], d[i], ceil_mode);
    ok = ok && g.out[off + i] >= 1;
  }
  const int64_t c = self.size(dim - sd - 1);
  DimVector in_sz{c}, out_sz{c};
  for (int64_t i = 0; i < sd; ++i) {
    in_sz.push_back(g.in[off + i]);
    out_sz.push_back(g.out[off + i]);
  }
  EMBER_CHECK(ok, RuntimeError, "Given input size: (", join_x(in_sz), "). Calculated output size: (", join_x(out_sz),
              "). Output size is too small");
  g.planes = 1;
  for (int64_t i = 0; i < dim - sd; ++i) g.planes *= self.size(i);
  return g;
}

DimVector out_shape(const Tensor& self, const Geom& g, int64_t sd) {
  DimVector s(self.sizes());
  for (int64_t i = 0; i < sd; ++i) s[self.dim() - sd + i] = g.out[3 - sd + i];
  return s;
}

// Channels-last 4-D input (PyTorch 1.13 keeps that layout for 2-D pooling's result; its 3-D
// pooling returns contiguous results even for channels-last-3d input).
bool channels_last(const Tensor& t) { return t.dim() == 4 && layout::is_channels_last(t); }

// Result storage in self's layout family (contiguous, or channels-last for channels-last input).
Tensor alloc_like(const Tensor& self, IntArrayRef shape, ScalarType dt) {
  Tensor r = empty(shape, TensorOptions(dt).device(self.device()));
  if (!channels_last(self)) return r;
  DimVector perm{0};
  for (int64_t d = 2; d < self.dim(); ++d) perm.push_back(d);
  perm.push_back(1);
  DimVector ps;
  for (int64_t d : perm) ps.push_back(shape[d]);
  DimVector inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[perm[i]] = static_cast<int64_t>(i);
  return empty(ps, TensorOptions(dt).device(self.device())).permute(inv);
}

// Runs f(T* x, T* y) on contiguous float/double buffers; bfloat16 computes in float.
template <typename F>
void with_dtype(ScalarType dt, const F& f) {
  if (dt == kDouble) f(double{});
  else if (dt == kInt64) f(int64_t{});  // average pooling only (sums, then divides truncating)
  else f(float{});
}

template <typename F>
void with_float(ScalarType dt, const F& f) {
  if (dt == kDouble) f(double{});
  else f(float{});
}

// 16-bit floats compute in float and round once.
Tensor compute_input(const Tensor& self) {
  return self.dtype() == kBFloat16 || self.dtype() == kHalf ? self.to(kFloat).contiguous() : self.contiguous();
}
ScalarType compute_dtype(ScalarType dt) { return dt == kBFloat16 || dt == kHalf ? kFloat : dt; }

// Copies a computed contiguous result into the result tensor (layout, dtype) when they differ.
Tensor deliver(const Tensor& computed, const Tensor& self, ScalarType dt) {
  if (computed.dtype() == dt && !channels_last(self)) return computed;
  Tensor r = alloc_like(self, computed.sizes(), dt);
  r.copy_(computed);
  return r;
}

// ---------------------------------------------------------------- internal ops
// _max_pool(self, kernel_size, stride, padding, dilation, ceil_mode, return_indices): the
// spatial dims are the last len(kernel_size); indices are undefined unless asked for.
std::tuple<Tensor, Tensor> max_pool_k(const Tensor& self, IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding,
                                      IntArrayRef dilation, bool ceil_mode, bool return_indices) {
  const int64_t sd = static_cast<int64_t>(kernel.size());
  const Geom g = make_geom(self, sd, DimVector(kernel), DimVector(stride), DimVector(padding), DimVector(dilation),
                           ceil_mode);
  const DimVector shape = out_shape(self, g, sd);
  if (self.is_meta())
    return {empty(shape, TensorOptions(self.dtype()).device(self.device())),
            empty(return_indices ? IntArrayRef(shape) : IntArrayRef({0}), TensorOptions(kInt64).device(self.device()))};
  const Tensor x = compute_input(self);
  Tensor y = empty(shape, compute_dtype(self.dtype()));
  // Without indices: an empty placeholder (the Autograd fallback records every result).
  Tensor idx = empty(return_indices ? IntArrayRef(shape) : IntArrayRef({0}), kInt64);
  if (y.numel() > 0)
    with_float(y.dtype(), [&](auto t) {
      using T = decltype(t);
      if (return_indices)
        max_pool_kernel<T, true>(static_cast<const T*>(x.data_ptr()), static_cast<T*>(y.data_ptr()),
                                 idx.data_ptr<int64_t>(), g);
      else
        max_pool_kernel<T, false>(static_cast<const T*>(x.data_ptr()), static_cast<T*>(y.data_ptr()), nullptr, g);
    });
  return {deliver(y, self, self.dtype()), return_indices ? deliver(idx, self, kInt64) : idx};
}

Tensor avg_pool_k(const Tensor& self, IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, OptInt divisor_override) {
  const int64_t sd = static_cast<int64_t>(kernel.size());
  EMBER_CHECK(!divisor_override || *divisor_override != 0, RuntimeError, "divisor must be not zero");
  const Geom g = make_geom(self, sd, DimVector(kernel), DimVector(stride), DimVector(padding), DimVector(sd, 1),
                           ceil_mode);
  const DimVector shape = out_shape(self, g, sd);
  if (self.is_meta()) return empty(shape, TensorOptions(self.dtype()).device(self.device()));
  const Tensor x = compute_input(self);
  Tensor y = empty(shape, compute_dtype(self.dtype()));
  const AvgOpts a{count_include_pad, divisor_override.value_or(0)};
  if (y.numel() > 0)
    with_dtype(y.dtype(), [&](auto t) {
      using T = decltype(t);
      avg_pool_kernel<T>(static_cast<const T*>(x.data_ptr()), static_cast<T*>(y.data_ptr()), g, a);
    });
  return deliver(y, self, self.dtype());
}

Tensor avg_pool_backward_k(const Tensor& grad_output, const Tensor& self, IntArrayRef kernel, IntArrayRef stride,
                           IntArrayRef padding, bool ceil_mode, bool count_include_pad, OptInt divisor_override) {
  const int64_t sd = static_cast<int64_t>(kernel.size());
  const Geom g = make_geom(self, sd, DimVector(kernel), DimVector(stride), DimVector(padding), DimVector(sd, 1),
                           ceil_mode);
  EMBER_CHECK(grad_output.sizes().equals(out_shape(self, g, sd)), RuntimeError,
              "avg_pool backward: grad_output of size ", grad_output.sizes(), " does not match the output");
  if (self.is_meta()) return empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
  const Tensor gy = compute_input(grad_output);
  Tensor gx = zeros(self.sizes(), compute_dtype(self.dtype()));
  const AvgOpts a{count_include_pad, divisor_override.value_or(0)};
  if (gy.numel() > 0)
    with_float(gx.dtype(), [&](auto t) {
      using T = decltype(t);
      avg_pool_backward_kernel<T>(static_cast<const T*>(gy.data_ptr()), static_cast<T*>(gx.data_ptr()), g, a);
    });
  return deliver(gx, self, self.dtype());
}

Geom adaptive_geom(const char* op, const Tensor& self, IntArrayRef output_size) {
  const int64_t sd = static_cast<int64_t>(output_size.size()), dim = self.dim();
  Geom g;
  for (int64_t i = 0; i < sd; ++i) {
    EMBER_CHECK(output_size[i] >= 0, RuntimeError, op, ": elements of output_size must be greater than or equal to 0 ",
                "but received ", output_size);
    g.in[3 - sd + i] = self.size(dim - sd + i);
    g.out[3 - sd + i] = output_size[i];
  }
  for (int64_t i = 0; i < dim - sd; ++i) g.planes *= self.size(i);
  return g;
}

DimVector adaptive_shape(const Tensor& self, IntArrayRef output_size) {
  DimVector s(self.sizes());
  const int64_t sd = static_cast<int64_t>(output_size.size());
  for (int64_t i = 0; i < sd; ++i) s[self.dim() - sd + i] = output_size[i];
  return s;
}

Tensor adaptive_avg_k(const Tensor& self, IntArrayRef output_size) {
  const Geom g = adaptive_geom("adaptive_avg_pool", self, output_size);
  const DimVector shape = adaptive_shape(self, output_size);
  if (self.is_meta()) return empty(shape, TensorOptions(self.dtype()).device(self.device()));
  const Tensor x = compute_input(self);
  Tensor y = empty(shape, compute_dtype(self.dtype()));
  const bool global = g.out_numel() == 1;
  if (y.numel() > 0)
    with_float(y.dtype(), [&](auto t) {
      using T = decltype(t);
      if (global)
        plane_mean_kernel<T>(static_cast<const T*>(x.data_ptr()), static_cast<T*>(y.data_ptr()), g);
      else
        adaptive_kernel<T, false, false>(static_cast<const T*>(x.data_ptr()), static_cast<T*>(y.data_ptr()), nullptr,
                                         g);
    });
  return deliver(y, self, self.dtype());
}

Tensor adaptive_avg_backward_k(const Tensor& grad_output, const Tensor& self) {
  const int64_t sd = grad_output.dim() == self.dim() ? std::min<int64_t>(3, self.dim() - 1) : 0;
  DimVector os;
  for (int64_t i = self.dim() - sd; i < self.dim(); ++i) os.push_back(grad_output.size(i));
  const Geom g = adaptive_geom("adaptive_avg_pool_backward", self, os);
  if (self.is_meta()) return empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
  const Tensor gy = compute_input(grad_output);
  Tensor gx = zeros(self.sizes(), compute_dtype(self.dtype()));
  if (gy.numel() > 0)
    with_float(gx.dtype(), [&](auto t) {
      using T = decltype(t);
      adaptive_kernel<T, false, true>(static_cast<const T*>(gy.data_ptr()), static_cast<T*>(gx.data_ptr()), nullptr, g);
    });
  return deliver(gx, self, self.dtype());
}

std::tuple<Tensor, Tensor> adaptive_max_k(const Tensor& self, IntArrayRef output_size) {
  const Geom g = adaptive_geom("adaptive_max_pool", self, output_size);
  const DimVector shape = adaptive_shape(self, output_size);
  if (self.is_meta())
    return {empty(shape, TensorOptions(self.dtype()).device(self.device())),
            empty(shape, TensorOptions(kInt64).device(self.device()))};
  const Tensor x = compute_input(self);
  Tensor y = empty(shape, compute_dtype(self.dtype()));
  Tensor idx = empty(shape, kInt64);
  if (y.numel() > 0)
    with_float(y.dtype(), [&](auto t) {
      using T = decltype(t);
      adaptive_kernel<T, true, false>(static_cast<const T*>(x.data_ptr()), static_cast<T*>(y.data_ptr()),
                                      idx.data_ptr<int64_t>(), g);
    });
  return {deliver(y, self, self.dtype()), deliver(idx, self, kInt64)};
}

// ---------------------------------------------------------------- public composites
using MaxSig = std::tuple<Tensor, Tensor>(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, bool, bool);
using AvgSig = Tensor(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, bool, bool, OptInt);
using AvgBwdSig = Tensor(const Tensor&, const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, bool, bool, OptInt);
using AdSig = Tensor(const Tensor&, IntArrayRef);
using AdBwdSig = Tensor(const Tensor&, const Tensor&);
using AdMaxSig = std::tuple<Tensor, Tensor>(const Tensor&, IntArrayRef);

std::tuple<Tensor, Tensor> call_max(const Tensor& self, IntArrayRef k, IntArrayRef s, IntArrayRef p, IntArrayRef d,
                                    bool ceil_mode, bool idx) {
  static const TypedOp<MaxSig> op("_max_pool");
  return op.call(self, k, s, p, d, ceil_mode, idx);
}
Tensor call_avg(const Tensor& self, IntArrayRef k, IntArrayRef s, IntArrayRef p, bool ceil_mode, bool cip,
                OptInt div) {
  static const TypedOp<AvgSig> op("_avg_pool");
  return op.call(self, k, s, p, ceil_mode, cip, div);
}
Tensor call_adaptive_avg(const Tensor& self, IntArrayRef os) {
  static const TypedOp<AdSig> op("_adaptive_avg_pool");
  return op.call(self, os);
}
std::tuple<Tensor, Tensor> call_adaptive_max(const Tensor& self, IntArrayRef os) {
  static const TypedOp<AdMaxSig> op("_adaptive_max_pool");
  return op.call(self, os);
}

constexpr const char* nd_name(const char* const names[3], int sd) { return names[sd - 1]; }
constexpr const char* kMaxNames[3] = {"max_pool1d", "max_pool2d", "max_pool3d"};
constexpr const char* kAvgNames[3] = {"avg_pool1d", "avg_pool2d", "avg_pool3d"};
constexpr const char* kAdAvgNames[3] = {"adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d"};
constexpr const char* kAdMaxNames[3] = {"adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d"};

// Whether a gradient or a tangent will be asked of t: max pooling then computes the indices its
// derivative (and the JVP derived from it) needs.
bool grad_needed(const Tensor& t) {
  if (autograd::GradMode::is_enabled() && autograd::requires_grad(t)) return true;
  return autograd::forward_ad::is_active() && autograd::forward_ad::unpack_dual(t).tangent.defined();
}

template <int SD>
std::tuple<Tensor, Tensor> max_nd(const Tensor& self, IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding,
                                  IntArrayRef dilation, bool ceil_mode, bool indices) {
  const char* name = nd_name(kMaxNames, SD);
  check_input(name, self, SD);
  const DimVector k = per_dim(name, "kernel_size", kernel, SD);
  DimVector s = per_dim(name, "stride", stride, SD, true);
  if (s.empty()) s = k;
  const DimVector p = per_dim(name, "padding", padding, SD), d = per_dim(name, "dilation", dilation, SD);
  const bool want = indices || grad_needed(self);
  if (SD == 1 && !want && k[0] > 0 && s[0] > 0 && d[0] > 0 &&
      pool_out(self.size(-1), k[0], p[0], s[0], d[0], ceil_mode) == 0) {
    // PyTorch 1.13's max_pool1d (without indices) returns an empty result here.
    DimVector shape(self.sizes());
    shape.back() = 0;
    return {empty(shape, TensorOptions(self.dtype()).device(self.device())), Tensor()};
  }
  return call_max(self, k, s, p, d, ceil_mode, want);
}

template <int SD>
std::tuple<Tensor, Tensor> max_with_indices_k(const Tensor& self, IntArrayRef kernel, IntArrayRef stride,
                                              IntArrayRef padding, IntArrayRef dilation, bool ceil_mode) {
  return max_nd<SD>(self, kernel, stride, padding, dilation, ceil_mode, true);
}
using MaxNdSig = Tensor(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, bool);
using MaxNdIdxSig = std::tuple<Tensor, Tensor>(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, bool);
template <int SD>
Tensor max_nd_k(const Tensor& self, IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                bool ceil_mode) {
  return std::get<0>(max_nd<SD>(self, kernel, stride, padding, dilation, ceil_mode, false));
}

template <int SD>
Tensor avg_nd_k(const Tensor& self, IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                bool count_include_pad, OptInt divisor_override) {
  const char* name = nd_name(kAvgNames, SD);
  check_input(name, self, SD, /*allow_int64=*/true);
  const DimVector k = per_dim(name, "kernel_size", kernel, SD);
  DimVector s = per_dim(name, "stride", stride, SD, true);
  if (s.empty()) s = k;
  const DimVector p = per_dim(name, "padding", padding, SD);
  return call_avg(self, k, s, p, ceil_mode, count_include_pad, divisor_override);
}
using Avg1dSig = Tensor(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, bool, bool);
Tensor avg_1d_k(const Tensor& self, IntArrayRef kernel, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                bool count_include_pad) {
  return avg_nd_k<1>(self, kernel, stride, padding, ceil_mode, count_include_pad, std::nullopt);
}

template <int SD>
DimVector adaptive_size(const char* name, const Tensor& self, IntArrayRef output_size, bool zero_channels_ok = false,
                        bool half_ok = false) {
  EMBER_CHECK(self.defined(), ValueError, name, "(): got an undefined tensor");
  EMBER_CHECK(self.dim() == SD + 1 || self.dim() == SD + 2, RuntimeError, name, "(): Expected ", SD + 1, "D or ",
              SD + 2, "D tensor, but got: ", self.sizes());
  for (int64_t d = self.dim() - SD - (zero_channels_ok ? 0 : 1); d < self.dim(); ++d)
    EMBER_CHECK(self.size(d) > 0, RuntimeError, name, "(): Expected input to have non-zero size for non-batch "
                "dimensions, but input has sizes ", self.sizes(), " with dimension ", d, " being empty");
  const ScalarType dt = self.dtype();
  EMBER_CHECK(dt == kFloat || dt == kDouble || dt == kBFloat16 || (half_ok && dt == kHalf), RuntimeError, "\"", name,
              "\" not implemented for '", dt, "'");
  EMBER_CHECK(static_cast<int64_t>(output_size.size()) == SD || output_size.size() == 1, RuntimeError, name,
              ": output_size must be ", SD);
  return output_size.size() == 1 ? DimVector(SD, output_size[0]) : DimVector(output_size);
}

template <int SD>
Tensor adaptive_avg_nd_k(const Tensor& self, IntArrayRef output_size) {
  const char* name = nd_name(kAdAvgNames, SD);
  bool ones = SD > 1 && self.defined() && (self.dim() == SD + 1 || self.dim() == SD + 2);
  for (int64_t v : output_size) ones = ones && v == 1;
  const ScalarType dt = self.defined() ? self.dtype() : kFloat;
  if (ones && (dt == kFloat || dt == kDouble || dt == kBFloat16) && self.is_contiguous()) {
    // The plane means directly (faster than the general reduction for small planes).
    bool nonempty = true;
    for (int64_t d = 1; d < self.dim(); ++d) nonempty = nonempty && self.size(d) > 0;
    if (nonempty) return call_adaptive_avg(self, DimVector(SD, 1));
  }
  if (ones) {
    // A mean over the plane, as PyTorch does (so any dtype mean takes), kept channels-last.
    DimVector dims;
    for (int64_t i = 0; i < SD; ++i) dims.push_back(self.dim() - SD + i);
    Tensor m = mean(self, dims, true);
    if (!channels_last(self)) return m;
    Tensor r = alloc_like(self, m.sizes(), m.dtype());
    r.copy_(m);
    return r;
  }
  // (PyTorch 1.13: zero channels pass in 1-D/2-D, float16 in 3-D.)
  const DimVector os = adaptive_size<SD>(name, self, output_size, SD < 3, SD == 3);
  return call_adaptive_avg(self, os);
}

template <int SD>
std::tuple<Tensor, Tensor> adaptive_max_nd_k(const Tensor& self, IntArrayRef output_size) {
  const DimVector os = adaptive_size<SD>(nd_name(kAdMaxNames, SD), self, output_size);
  return call_adaptive_max(self, os);
}

// max_unpool: zeros of the output size with each value written at its index within its plane.
Tensor unpool(const char* name, const Tensor& self, const Tensor& indices, IntArrayRef output_size, int64_t sd) {
  EMBER_CHECK(self.defined() && indices.defined(), ValueError, name, "(): got an undefined tensor");
  EMBER_CHECK(indices.dtype() == kInt64, RuntimeError, "elements in indices should be type int64 but got: ",
              indices.dtype());
  const ScalarType dt = self.dtype();
  EMBER_CHECK(dt == kFloat || dt == kDouble || dt == kBFloat16, RuntimeError, "\"", name, "\" not implemented for '",
              dt, "'");
  EMBER_CHECK(self.sizes().equals(indices.sizes()), RuntimeError,
              "Expected shape of indices to be same as that of the input tensor (", self.sizes(),
              ") but got indices tensor with shape: ", indices.sizes());
  EMBER_CHECK(static_cast<int64_t>(output_size.size()) == sd, RuntimeError, "There should be exactly ", sd,
              " elements (height, width) in output_size, but got ", output_size.size(), " elements.");
  EMBER_CHECK(self.dim() == sd + 1 || self.dim() == sd + 2, RuntimeError, "Input to ", name,
              " should be a ", sd + 1, "d or ", sd + 2, "d Tensor, but got a tensor with ", self.dim(), " dimensions.");
  for (int64_t d = self.dim() - sd - 1; d < self.dim(); ++d)
    EMBER_CHECK(self.size(d) > 0, RuntimeError, name, "(): Expected input to have non-zero size for non-batch "
                "dimensions, but got ", self.sizes());
  int64_t plane = 1;
  for (int64_t v : output_size) plane *= v;
  DimVector lead(self.sizes().slice(0, self.dim() - sd));
  int64_t planes = 1;
  for (int64_t v : lead) planes *= v;
  const Tensor idx = indices.reshape({planes, -1});
  if (idx.numel() > 0 && !self.is_meta()) {
    const Tensor lo = idx.min(), hi = idx.max();
    EMBER_CHECK(lo.item<int64_t>() >= 0 && hi.item<int64_t>() < plane, RuntimeError,
                "Found an invalid max index: ", lo.item<int64_t>() < 0 ? lo.item<int64_t>() : hi.item<int64_t>(),
                " (output volumes are of size ", join_x(output_size), ")");
  }
  Tensor out = zeros({planes, plane}, TensorOptions(self.dtype()).device(self.device()));
  out = scatter(out, 1, idx, self.reshape({planes, -1}));
  DimVector shape(lead);
  for (int64_t v : output_size) shape.push_back(v);
  return out.view(shape);
}

using Unpool2Sig = Tensor(const Tensor&, const Tensor&, IntArrayRef);
using Unpool3Sig = Tensor(const Tensor&, const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef);
Tensor unpool2_k(const Tensor& self, const Tensor& indices, IntArrayRef output_size) {
  return unpool("max_unpool2d", self, indices, output_size, 2);
}
Tensor unpool3_k(const Tensor& self, const Tensor& indices, IntArrayRef output_size, IntArrayRef stride,
                 IntArrayRef padding) {
  return unpool("max_unpool3d", self, indices, output_size, 3);
}

template <int SD>
void define_nd() {
  const std::string k = "int[" + std::to_string(SD) + "]";
  const std::string mx = kMaxNames[SD - 1], av = kAvgNames[SD - 1];
  const std::string margs = "(Tensor self, " + k + " kernel_size, " + k + " stride=[], " + k + " padding=0, " + k +
                            " dilation=1, bool ceil_mode=False)";
  define_op<MaxNdSig>(mx + margs + " -> Tensor");
  register_composite<MaxNdSig, &max_nd_k<SD>>(mx);
  define_op<MaxNdIdxSig>(mx + "_with_indices" + margs + " -> (Tensor, Tensor)");
  register_composite<MaxNdIdxSig, &max_with_indices_k<SD>>(mx + "_with_indices");
  if constexpr (SD == 1) {
    define_op<Avg1dSig>(av + "(Tensor self, " + k + " kernel_size, " + k + " stride=[], " + k +
                        " padding=0, bool ceil_mode=False, bool count_include_pad=True) -> Tensor");
    register_composite<Avg1dSig, &avg_1d_k>(av);
  } else {
    define_op<AvgSig>(av + "(Tensor self, " + k + " kernel_size, " + k + " stride=[], " + k +
                      " padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) "
                      "-> Tensor");
    register_composite<AvgSig, &avg_nd_k<SD>>(av);
  }
  const std::string aa = kAdAvgNames[SD - 1], am = kAdMaxNames[SD - 1];
  define_op<AdSig>(aa + "(Tensor self, " + k + " output_size) -> Tensor");
  register_composite<AdSig, &adaptive_avg_nd_k<SD>>(aa);
  define_op<AdMaxSig>(am + "(Tensor self, " + k + " output_size) -> (Tensor, Tensor)");
  register_composite<AdMaxSig, &adaptive_max_nd_k<SD>>(am);
}

}  // namespace
}  // namespace ember::pool_detail

namespace ember {
using namespace pool_detail;

#define EMBER_POOL_FRONT(n)                                                                                       \
  Tensor max_pool##n##d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding,     \
                        IntArrayRef dilation, bool ceil_mode) {                                                   \
    static const TypedOp<MaxNdSig> op("max_pool" #n "d");                                                        \
    return op.call(self, kernel_size, stride, padding, dilation, ceil_mode);                                      \
  }                                                                                                               \
  std::tuple<Tensor, Tensor> max_pool##n##d_with_indices(const Tensor& self, IntArrayRef kernel_size,             \
                                                         IntArrayRef stride, IntArrayRef padding,                 \
                                                         IntArrayRef dilation, bool ceil_mode) {                  \
    static const TypedOp<MaxNdIdxSig> op("max_pool" #n "d_with_indices");                                        \
    return op.call(self, kernel_size, stride, padding, dilation, ceil_mode);                                      \
  }                                                                                                               \
  Tensor adaptive_avg_pool##n##d(const Tensor& self, IntArrayRef output_size) {                                   \
    static const TypedOp<AdSig> op("adaptive_avg_pool" #n "d");                                                   \
    return op.call(self, output_size);                                                                            \
  }                                                                                                               \
  std::tuple<Tensor, Tensor> adaptive_max_pool##n##d(const Tensor& self, IntArrayRef output_size) {               \
    static const TypedOp<AdMaxSig> op("adaptive_max_pool" #n "d");                                                \
    return op.call(self, output_size);                                                                            \
  }
EMBER_POOL_FRONT(1)
EMBER_POOL_FRONT(2)
EMBER_POOL_FRONT(3)
#undef EMBER_POOL_FRONT

Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad) {
  static const TypedOp<Avg1dSig> op("avg_pool1d");
  return op.call(self, kernel_size, stride, padding, ceil_mode, count_include_pad);
}
Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  static const TypedOp<AvgSig> op("avg_pool2d");
  return op.call(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override);
}
Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride, IntArrayRef padding, bool ceil_mode,
                  bool count_include_pad, std::optional<int64_t> divisor_override) {
  static const TypedOp<AvgSig> op("avg_pool3d");
  return op.call(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override);
}
Tensor max_unpool2d(const Tensor& self, const Tensor& indices, IntArrayRef output_size) {
  static const TypedOp<Unpool2Sig> op("max_unpool2d");
  return op.call(self, indices, output_size);
}
Tensor max_unpool3d(const Tensor& self, const Tensor& indices, IntArrayRef output_size, IntArrayRef stride,
                    IntArrayRef padding) {
  static const TypedOp<Unpool3Sig> op("max_unpool3d");
  return op.call(self, indices, output_size, stride, padding);
}

EMBER_REGISTER(pool_ops) {
  define_op<MaxSig>("_max_pool(Tensor self, int[] kernel_size, int[] stride, int[] padding, int[] dilation, "
                    "bool ceil_mode, bool return_indices) -> (Tensor, Tensor)", Tag::Internal);
  register_cpu_meta<MaxSig, &max_pool_k>("_max_pool");
  define_op<AvgSig>("_avg_pool(Tensor self, int[] kernel_size, int[] stride, int[] padding, bool ceil_mode, "
                    "bool count_include_pad, int? divisor_override) -> Tensor", Tag::Internal);
  register_cpu_meta<AvgSig, &avg_pool_k>("_avg_pool");
  define_op<AvgBwdSig>("_avg_pool_backward(Tensor grad_output, Tensor self, int[] kernel_size, int[] stride, "
                       "int[] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor",
                       Tag::Internal);
  register_cpu_meta<AvgBwdSig, &avg_pool_backward_k>("_avg_pool_backward");
  define_op<AdSig>("_adaptive_avg_pool(Tensor self, int[] output_size) -> Tensor", Tag::Internal);
  register_cpu_meta<AdSig, &adaptive_avg_k>("_adaptive_avg_pool");
  define_op<AdBwdSig>("_adaptive_avg_pool_backward(Tensor grad_output, Tensor self) -> Tensor", Tag::Internal);
  register_cpu_meta<AdBwdSig, &adaptive_avg_backward_k>("_adaptive_avg_pool_backward");
  define_op<AdMaxSig>("_adaptive_max_pool(Tensor self, int[] output_size) -> (Tensor, Tensor)", Tag::Internal);
  register_cpu_meta<AdMaxSig, &adaptive_max_k>("_adaptive_max_pool");
  define_nd<1>();
  define_nd<2>();
  define_nd<3>();
  define_op<Unpool2Sig>("max_unpool2d(Tensor self, Tensor indices, int[2] output_size) -> Tensor");
  register_composite<Unpool2Sig, &unpool2_k>("max_unpool2d");
  define_op<Unpool3Sig>("max_unpool3d(Tensor self, Tensor indices, int[3] output_size, int[3] stride, "
                        "int[3] padding) -> Tensor");
  register_composite<Unpool3Sig, &unpool3_k>("max_unpool3d");
}

}  // namespace ember
