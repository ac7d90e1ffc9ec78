// Upsampling: upsample_nearest{1,2,3}d, _upsample_nearest_exact{1,2,3}d, upsample_linear1d,
// upsample_bilinear2d, upsample_trilinear3d, upsample_bicubic2d and their *_backward ops, with
// PyTorch 1.13's schemas, checks, messages and coordinate maps.
//
// The public ops are composites (argument checks) of two internal ops generic over 1 to 3
// spatial dims: `_upsample` and its adjoint `_upsample_backward`. Both are linear in their
// tensor, so each one's gradient is the other, to any order. The interpolation is separable:
// each axis gets its source indices and weights once per call (1, 2 or 4 taps per output
// coordinate); each (batch, channel) plane is one OpenMP task, which forms every output row
// from the input rows its depth and height taps select.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ember/ops/nn_sample.h"
#include "ops/layout.h"

namespace ember::upsample_detail {
namespace {

using OptD = std::optional<double>;

// The internal ops' `mode` argument. PyTorch 1.13 maps nearest coordinates two ways: its
// kernel for channels-last-contiguous inputs (and its backward) copies rows outright when the
// output is as large as the input or twice as large, whatever the scale factor; its kernel for
// other layouts always maps by the scale. kNearestShortcut is the former.
enum Interp : int64_t { kNearest = 0, kNearestExact = 1, kLinear = 2, kCubic = 3, kNearestShortcut = 4 };

int64_t taps_of(int64_t mode) { return mode == kLinear ? 2 : mode == kCubic ? 4 : 1; }

const char* op_name(int64_t mode, int64_t sd) {
  static const char* const names[4][3] = {
      {"upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d"},
      {"_upsample_nearest_exact1d", "_upsample_nearest_exact2d", "_upsample_nearest_exact3d"},
      {"upsample_linear1d", "upsample_bilinear2d", "upsample_trilinear3d"},
      {"upsample_bicubic1d", "upsample_bicubic2d", "upsample_bicubic3d"}};
  return names[mode == kNearestShortcut ? kNearest : mode][sd - 1];
}

// Source taps of one axis: output coordinate o reads input index idx[o * k + t] with weight
// w[o * k + t]. Axes an op does not have are size 1 with one tap.
template <typename W>
struct Axis {
  int64_t in = 1, out = 1, k = 1;
  std::vector<int64_t> idx{0};
  std::vector<W> w{W(1)};
};

// bfloat16 inputs: PyTorch keeps the linear modes' scale and weights in bfloat16.
template <typename W>
W round_to(W v, bool bf16) {
  return bf16 ? W(float(BFloat16(float(v)))) : v;
}

// PyTorch's area_pixel_compute_scale (a scale <= 0 is no scale).
template <typename W>
W area_scale(int64_t in, int64_t out, bool align_corners, double scale) {
  if (align_corners) return out > 1 ? W(in - 1) / W(out - 1) : W(0);
  return scale > 0 ? W(1.0 / scale) : W(in) / W(out);
}

// Nearest source index, in float as PyTorch computes it (a different rounding would pick a
// different pixel).
// bf16: PyTorch's generic (not channels-last) nearest kernel rounds the scale to bfloat16.
int64_t nearest_src(int64_t o, int64_t in, int64_t out, double scale, bool exact, bool shortcut, bool bf16) {
  if (shortcut && out == in) return o;
  if (shortcut && out == 2 * in) return o >> 1;
  const float s = round_to(scale > 0 ? float(1.0 / scale) : float(in) / float(out), bf16);
  const float f = exact ? std::floor(float((double(o) + 0.5) * double(s))) : std::floor(float(o) * s);
  return std::min(static_cast<int64_t>(f), in - 1);
}

// Keys' cubic convolution weights (a = -0.75) of the four taps around t in [0, 1).
template <typename W>
void cubic_weights(W t, W* c) {
  const W a = W(-0.75);
  auto near = [&](W x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };          // |x| <= 1
  auto far = [&](W x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };     // 1 < |x| < 2
  c[0] = far(t + 1);
  c[1] = near(t);
  c[2] = near(1 - t);
  c[3] = far(2 - t);
}

template <typename W>
Axis<W> make_axis(int64_t mode, int64_t in, int64_t out, bool align_corners, double scale, bool bf16) {
  Axis<W> a;
  a.in = in;
  a.out = out;
  a.k = taps_of(mode);
  a.idx.assign(static_cast<size_t>(out * a.k), 0);
  a.w.assign(static_cast<size_t>(out * a.k), W(0));
  if (mode == kNearest || mode == kNearestExact || mode == kNearestShortcut) {
    for (int64_t o = 0; o < out; ++o) {
      a.idx[o] = nearest_src(o, in, out, scale, mode == kNearestExact, mode == kNearestShortcut,
                             bf16 && mode == kNearest);
      a.w[o] = W(1);
    }
    return a;
  }
  if (mode == kLinear) {
    const W s = round_to(area_scale<W>(in, out, align_corners, scale), bf16);
    for (int64_t o = 0; o < out; ++o) {
      int64_t i0 = o, i1 = o;
      W l1 = 0;
      if (in != out) {
        // The source coordinate in double, as PyTorch's CPU accumulate type (negative: 0).
        const double real = align_corners ? double(s) * o : std::max(double(s) * (o + 0.5) - 0.5, 0.0);
        i0 = static_cast<int64_t>(real);
        i1 = i0 + (i0 < in - 1 ? 1 : 0);
        l1 = round_to(W(real - double(i0)), bf16);
      }
      a.idx[2 * o] = i0;
      a.idx[2 * o + 1] = i1;
      a.w[2 * o] = round_to(W(1) - l1, bf16);
      a.w[2 * o + 1] = l1;
    }
    return a;
  }
  // Cubic: taps at floor(x) - 1 .. floor(x) + 2, clamped to the input (replicated border).
  const W s = area_scale<W>(in, out, align_corners, scale);
  for (int64_t o = 0; o < out; ++o) {
    const W real = align_corners ? s * W(o) : s * (W(o) + W(0.5)) - W(0.5);
    const W f = std::floor(real);
    W c[4];
    cubic_weights(real - f, c);
    for (int64_t t = 0; t < 4; ++t) {
      a.idx[4 * o + t] = std::clamp<int64_t>(static_cast<int64_t>(f) - 1 + t, 0, in - 1);
      a.w[4 * o + t] = c[t];
    }
  }
  return a;
}

using layout::for_planes;

// Calls f(od, oh, rows, row_weights, n) for every output row of a plane: the depth and height
// taps select n input rows (row offsets within the plane) with the products of their weights.
template <typename W, typename F>
void for_rows(const Axis<W>& ad, const Axis<W>& ah, int64_t in_w, const F& f) {
  int64_t rows[16];
  W rw[16];
  for (int64_t od = 0; od < ad.out; ++od)
    for (int64_t oh = 0; oh < ah.out; ++oh) {
      int n = 0;
      for (int64_t td = 0; td < ad.k; ++td)
        for (int64_t th = 0; th < ah.k; ++th) {
          rows[n] = (ad.idx[od * ad.k + td] * ah.in + ah.idx[oh * ah.k + th]) * in_w;
          rw[n++] = ad.w[od * ad.k + td] * ah.w[oh * ah.k + th];
        }
      f(od * ah.out + oh, rows, rw, n);
    }
}

// Copy (nearest): every tap has weight 1, so any dtype works.
template <typename T, typename W, int K, bool Copy>
void forward_kernel(const T* x, T* y, int64_t planes, const Axis<W>* ax) {
  const Axis<W>&ad = ax[0], &ah = ax[1], &aw = ax[2];
  const int64_t in_plane = ad.in * ah.in * aw.in, ow_n = aw.out, out_plane = ad.out * ah.out * ow_n;
  const int64_t* iw = aw.idx.data();
  const W* ww = aw.w.data();
  for_planes(planes, out_plane * K * ad.k * ah.k, [&](int64_t p) {
    const T* xp = x + p * in_plane;
    T* yp = y + p * out_plane;
    for_rows(ad, ah, aw.in, [&](int64_t orow, const int64_t* rows, const W* rw, int n) {
      T* yr = yp + orow * ow_n;
      if constexpr (Copy) {
        const T* r = xp + rows[0];
        for (int64_t o = 0; o < ow_n; ++o) yr[o] = r[iw[o]];
      } else if (n == 2 && K == 2) {
        // bilinear, the common case: two rows of two taps
        const T *r0 = xp + rows[0], *r1 = xp + rows[1];
        const W a0 = rw[0], a1 = rw[1];
        for (int64_t o = 0; o < ow_n; ++o) {
          const int64_t i0 = iw[2 * o], i1 = iw[2 * o + 1];
          const W w0 = ww[2 * o], w1 = ww[2 * o + 1];
          yr[o] = a0 * (w0 * r0[i0] + w1 * r0[i1]) + a1 * (w0 * r1[i0] + w1 * r1[i1]);
        }
      } else {
        for (int64_t o = 0; o < ow_n; ++o) {
          const int64_t* ii = iw + o * K;
          const W* wk = ww + o * K;
          W acc = 0;
          for (int r = 0; r < n; ++r) {
            const T* row = xp + rows[r];
            W s = 0;
            for (int t = 0; t < K; ++t) s += wk[t] * row[ii[t]];
            acc += rw[r] * s;
          }
          yr[o] = acc;
        }
      }
    });
  });
}

// The adjoint: each output gradient is spread over its taps (gx zero-initialized).
template <typename T, int K, bool Copy>
void backward_kernel(const T* gy, T* gx, int64_t planes, const Axis<T>* ax) {
  const Axis<T>&ad = ax[0], &ah = ax[1], &aw = ax[2];
  const int64_t in_plane = ad.in * ah.in * aw.in, ow_n = aw.out, out_plane = ad.out * ah.out * ow_n;
  const int64_t* iw = aw.idx.data();
  const T* ww = aw.w.data();
  for_planes(planes, out_plane * K * ad.k * ah.k, [&](int64_t p) {
    const T* gp = gy + p * out_plane;
    T* xp = gx + p * in_plane;
    for_rows(ad, ah, aw.in, [&](int64_t orow, const int64_t* rows, const T* rw, int n) {
      const T* gr = gp + orow * ow_n;
      for (int r = 0; r < n; ++r) {
        T* row = xp + rows[r];
        const T a = rw[r];
        if constexpr (Copy) {
          for (int64_t o = 0; o < ow_n; ++o) row[iw[o]] += gr[o];
        } else {
          for (int64_t o = 0; o < ow_n; ++o) {
            const T v = a * gr[o];
            for (int t = 0; t < K; ++t) row[iw[o * K + t]] += ww[o * K + t] * v;
          }
        }
      }
    });
  });
}

// The three axes (depth, height, width; missing leading ones of size 1) of an upsampling from
// `in` to `out` (the spatial sizes).
// `scales` holds one entry per axis (depth, height, width); <= 0 is none.
template <typename W>
std::vector<Axis<W>> make_axes(int64_t mode, IntArrayRef in, IntArrayRef out, bool align_corners,
                               const double* scales, bool bf16) {
  const int64_t sd = static_cast<int64_t>(out.size());
  std::vector<Axis<W>> ax(3);
  for (int64_t i = 0; i < sd; ++i)
    ax[3 - sd + i] = make_axis<W>(mode, in[i], out[i], align_corners, scales[3 - sd + i], bf16);
  return ax;
}

// Channels-last 4-D/5-D tensors (PyTorch keeps that layout for most modes' results).
bool channels_last(const Tensor& t) { return layout::is_channels_last(t); }

// Whether PyTorch's is_contiguous(channels_last) holds for a 4-D/5-D tensor (size-1 dims may
// have any stride, so a contiguous tensor with one channel counts too).
bool torch_channels_last_contiguous(const Tensor& t) {
  if (t.dim() != 4 && t.dim() != 5) return false;
  int64_t expected = 1;
  auto next = [&](int64_t d) {
    const bool ok = t.size(d) == 1 || t.stride(d) == expected;
    expected *= t.size(d);
    return ok;
  };
  bool ok = next(1);
  for (int64_t d = t.dim() - 1; d >= 2; --d) ok = ok && next(d);
  return ok && next(0);
}

// A result of `shape` and dtype `dt`, channels-last when `cl`.
Tensor alloc(IntArrayRef shape, ScalarType dt, Device dev, bool cl) {
  if (!cl) return empty(shape, TensorOptions(dt).device(dev));
  DimVector perm{0};
  for (int64_t d = 2; d < static_cast<int64_t>(shape.size()); ++d) perm.push_back(d);
  perm.push_back(1);
  DimVector ps, inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    ps.push_back(shape[perm[i]]);
    inv[perm[i]] = static_cast<int64_t>(i);
  }
  return empty(ps, TensorOptions(dt).device(dev)).permute(inv);
}

// The computed (contiguous, float or double) result in the dtype and layout asked for.
Tensor deliver(const Tensor& computed, ScalarType dt, bool cl) {
  if (computed.dtype() == dt && !cl) return computed;
  Tensor r = alloc(computed.sizes(), dt, computed.device(), cl);
  r.copy_(computed);
  return r;
}

bool is_half(ScalarType dt) { return dt == kBFloat16 || dt == kHalf; }

// ---------------------------------------------------------------- internal ops
// _upsample(self, output_size, mode, align_corners, scales_d, scales_h, scales_w): self
// [N, C, *spatial] with len(output_size) spatial dims, the last ones of (d, h, w); a scale that
// is none or <= 0 maps by the sizes. Checked by the public ops.
Tensor upsample_k(const Tensor& self, IntArrayRef output_size, int64_t mode, bool align_corners, OptD sd_,
                  OptD sh, OptD sw) {
  const double scales[3] = {sd_.value_or(0.0), sh.value_or(0.0), sw.value_or(0.0)};
  const int64_t sd = static_cast<int64_t>(output_size.size());
  EMBER_CHECK(sd >= 1 && sd <= 3 && self.dim() == sd + 2 && mode >= 0 && mode <= 4, RuntimeError,
              "_upsample: bad arguments for an input of sizes ", self.sizes());
  DimVector shape{self.size(0), self.size(1)};
  for (int64_t v : output_size) shape.push_back(v);
  // PyTorch returns channels-last results for channels-last input, except for bicubic.
  const bool cl = mode != kCubic && channels_last(self);
  const ScalarType dt = self.dtype();
  if (self.is_meta()) return alloc(shape, dt, self.device(), cl);
  Tensor y = empty(shape, is_half(dt) ? kFloat : dt);
  if (y.numel() == 0) return deliver(y, dt, cl);
  const Tensor x = is_half(dt) ? self.to(kFloat).contiguous() : self.contiguous();
  const int64_t planes = self.size(0) * self.size(1);
  IntArrayRef in = self.sizes().slice(2, sd);
  auto run = [&](auto t, auto w) {
    using T = decltype(t);
    using W = decltype(w);
    const std::vector<Axis<W>> ax = make_axes<W>(mode, in, output_size, align_corners, scales, dt == kBFloat16);
    const T* xp = static_cast<const T*>(x.data_ptr());
    T* yp = static_cast<T*>(y.data_ptr());
    if (taps_of(mode) == 1) forward_kernel<T, W, 1, true>(xp, yp, planes, ax.data());
    else if (mode == kLinear) forward_kernel<T, W, 2, false>(xp, yp, planes, ax.data());
    else forward_kernel<T, W, 4, false>(xp, yp, planes, ax.data());
  };
  if (y.dtype() == kDouble) run(double{}, double{});
  else if (y.dtype() == kUInt8) run(uint8_t{}, float{});
  else run(float{}, float{});
  return deliver(y, dt, cl);
}

// _upsample_backward(grad_output, input_size, mode, align_corners, scales...): the adjoint of
// _upsample for an input of input_size (the output size is grad_output's).
Tensor upsample_backward_k(const Tensor& grad_output, IntArrayRef input_size, int64_t mode, bool align_corners,
                           OptD sd_, OptD sh, OptD sw) {
  const double scales[3] = {sd_.value_or(0.0), sh.value_or(0.0), sw.value_or(0.0)};
  const int64_t sd = static_cast<int64_t>(input_size.size()) - 2;
  EMBER_CHECK(sd >= 1 && sd <= 3 && grad_output.dim() == sd + 2 && mode >= 0 && mode <= 4, RuntimeError,
              "_upsample_backward: bad arguments for a gradient of sizes ", grad_output.sizes());
  const ScalarType dt = grad_output.dtype();
  if (grad_output.is_meta()) return empty(input_size, TensorOptions(dt).device(grad_output.device()));
  const ScalarType ct = dt == kDouble ? kDouble : kFloat;
  Tensor gx = zeros(input_size, ct);
  if (gx.numel() == 0 || grad_output.numel() == 0) return deliver(gx, dt, false);
  const Tensor gy = grad_output.to(ct).contiguous();
  const int64_t planes = input_size[0] * input_size[1];
  IntArrayRef in = input_size.slice(2, sd), out = grad_output.sizes().slice(2, sd);
  auto run = [&](auto t) {
    using T = decltype(t);
    // (16-bit gradients: weights in float, one rounding at the end.)
    const std::vector<Axis<T>> ax = make_axes<T>(mode, in, out, align_corners, scales, false);
    const T* gp = static_cast<const T*>(gy.data_ptr());
    T* xp = static_cast<T*>(gx.data_ptr());
    if (taps_of(mode) == 1) backward_kernel<T, 1, true>(gp, xp, planes, ax.data());
    else if (mode == kLinear) backward_kernel<T, 2, false>(gp, xp, planes, ax.data());
    else backward_kernel<T, 4, false>(gp, xp, planes, ax.data());
  };
  if (ct == kDouble) run(double{});
  else run(float{});
  return deliver(gx, dt, false);
}

using UpSig = Tensor(const Tensor&, IntArrayRef, int64_t, bool, OptD, OptD, OptD);
// Calls _upsample (or its backward) with the scales of the spatial dims (1 to 3), which are
// the last of (d, h, w).
Tensor call_upsample(bool backward, const Tensor& t, IntArrayRef sizes, int64_t mode, bool ac,
                     const std::vector<OptD>& s) {
  const size_t n = s.size();
  const OptD d = n >= 3 ? s[n - 3] : std::nullopt, h = n >= 2 ? s[n - 2] : std::nullopt, w = s[n - 1];
  static const TypedOp<UpSig> fwd("_upsample"), bwd("_upsample_backward");
  return (backward ? bwd : fwd).call(t, sizes, mode, ac, d, h, w);
}

// ---------------------------------------------------------------- public composites
// "(H: 4, W: 4)": PyTorch's way of printing spatial sizes in messages.
std::string dims_str(IntArrayRef s) {
  static const char* const labels[3] = {"D", "H", "W"};
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i) {
    if (i) r += ", ";
    r += std::string(labels[3 - s.size() + i]) + ": " + std::to_string(s[i]);
  }
  return r + ")";
}

bool dtype_ok(int64_t mode, ScalarType dt, bool backward) {
  if (dt == kFloat || dt == kDouble) return true;
  if (backward) return dt == kBFloat16 || (mode == kCubic && dt == kHalf);
  // PyTorch 1.13: bfloat16 everywhere but nearest-exact, uint8 for the nearest modes.
  return (dt == kBFloat16 && mode != kNearestExact) || (dt == kUInt8 && (mode == kNearest || mode == kNearestExact));
}

// PyTorch's checks of the output size against an input of sizes `in` ([N, C, *spatial]).
void check_sizes(const char* name, int64_t sd, IntArrayRef in, IntArrayRef output_size) {
  EMBER_CHECK(static_cast<int64_t>(output_size.size()) == sd, RuntimeError, "It is expected output_size equals to ",
              sd, ", but got size ", output_size.size());
  EMBER_CHECK(static_cast<int64_t>(in.size()) == sd + 2, RuntimeError, "It is expected input_size equals to ", sd + 2,
              ", but got size ", in.size());
  bool positive = true;
  for (int64_t i = 0; i < sd; ++i) positive = positive && in[2 + i] > 0 && output_size[i] > 0;
  EMBER_CHECK(positive, RuntimeError, "Input and output sizes should be greater than 0, but got input ",
              dims_str(in.slice(2, sd)), sd == 1 ? " and output " : " output ", dims_str(output_size));
}

std::vector<OptD> scale_list(std::initializer_list<OptD> s) { return std::vector<OptD>(s); }

Tensor up_forward(int64_t mode, const Tensor& self, IntArrayRef output_size, bool ac, const std::vector<OptD>& scales) {
  const int64_t sd = static_cast<int64_t>(scales.size());
  const char* name = op_name(mode, sd);
  EMBER_CHECK(self.defined(), ValueError, name, "(): got an undefined tensor");
  check_sizes(name, sd, self.sizes(), output_size);
  EMBER_CHECK(self.size(1) != 0, RuntimeError, "Non-empty ", sd + 2, "D data tensor expected but got a tensor with sizes ",
              self.sizes());
  EMBER_CHECK(dtype_ok(mode, self.dtype(), false), RuntimeError, "\"", name, "\" not implemented for '", self.dtype(),
              "'");
  // PyTorch's kernel for channels-last-contiguous inputs maps nearest coordinates its own way.
  if (mode == kNearest && torch_channels_last_contiguous(self)) mode = kNearestShortcut;
  return call_upsample(false, self, output_size, mode, ac, scales);
}

Tensor up_backward(int64_t mode, const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size, bool ac,
                   const std::vector<OptD>& scales) {
  const int64_t sd = static_cast<int64_t>(scales.size());
  const std::string name = std::string(op_name(mode, sd)) + "_backward";
  EMBER_CHECK(grad_output.defined(), ValueError, name, "(): got an undefined tensor");
  check_sizes(name.c_str(), sd, input_size, output_size);
  DimVector expect{input_size[0], input_size[1]};
  for (int64_t v : output_size) expect.push_back(v);
  EMBER_CHECK(grad_output.sizes().equals(expect), RuntimeError, name, "(): expected grad_output of sizes ",
              IntArrayRef(expect), " but got ", grad_output.sizes());
  EMBER_CHECK(dtype_ok(mode, grad_output.dtype(), true), RuntimeError, "\"", name, "\" not implemented for '",
              grad_output.dtype(), "'");
  // PyTorch's nearest backward always takes the size shortcuts.
  return call_upsample(true, grad_output, input_size, mode == kNearest ? kNearestShortcut : mode, ac, scales);
}

// The public ops' signatures: one optional scale per spatial dim, align_corners for the
// interpolating modes.
template <typename... S>
using FwdSig = Tensor(const Tensor&, IntArrayRef, S...);
template <typename... S>
using FwdAcSig = Tensor(const Tensor&, IntArrayRef, bool, S...);
template <typename... S>
using BwdSig = Tensor(const Tensor&, IntArrayRef, IntArrayRef, S...);
template <typename... S>
using BwdAcSig = Tensor(const Tensor&, IntArrayRef, IntArrayRef, bool, S...);

template <int64_t Mode, typename... S>
Tensor fwd_k(const Tensor& self, IntArrayRef output_size, S... s) {
  return up_forward(Mode, self, output_size, false, scale_list({s...}));
}
template <int64_t Mode, typename... S>
Tensor fwd_ac_k(const Tensor& self, IntArrayRef output_size, bool ac, S... s) {
  return up_forward(Mode, self, output_size, ac, scale_list({s...}));
}
template <int64_t Mode, typename... S>
Tensor bwd_k(const Tensor& g, IntArrayRef output_size, IntArrayRef input_size, S... s) {
  return up_backward(Mode, g, output_size, input_size, false, scale_list({s...}));
}
template <int64_t Mode, typename... S>
Tensor bwd_ac_k(const Tensor& g, IntArrayRef output_size, IntArrayRef input_size, bool ac, S... s) {
  return up_backward(Mode, g, output_size, input_size, ac, scale_list({s...}));
}

template <int64_t Mode, typename... S>
void define_mode() {
  constexpr int64_t sd = sizeof...(S);
  const std::string name = op_name(Mode, sd), k = "int[" + std::to_string(sd) + "]",
                    ik = "int[" + std::to_string(sd + 2) + "]";
  const std::string sc = sd == 1   ? "float? scales=None"
                         : sd == 2 ? "float? scales_h=None, float? scales_w=None"
                                   : "float? scales_d=None, float? scales_h=None, float? scales_w=None";
  const std::string ac = Mode == kLinear || Mode == kCubic ? "bool align_corners, " : "";
  const std::string fwd = name + "(Tensor self, " + k + " output_size, " + ac + sc + ") -> Tensor";
  const std::string bwd = name + "_backward(Tensor grad_output, " + k + " output_size, " + ik + " input_size, " + ac +
                          sc + ") -> Tensor";
  if constexpr (Mode == kLinear || Mode == kCubic) {
    define_op<FwdAcSig<S...>>(fwd, Tag::FunctionOnly);
    register_composite<FwdAcSig<S...>, &fwd_ac_k<Mode, S...>>(name);
    define_op<BwdAcSig<S...>>(bwd, Tag::FunctionOnly);
    register_composite<BwdAcSig<S...>, &bwd_ac_k<Mode, S...>>(name + "_backward");
  } else {
    define_op<FwdSig<S...>>(fwd, Tag::FunctionOnly);
    register_composite<FwdSig<S...>, &fwd_k<Mode, S...>>(name);
    define_op<BwdSig<S...>>(bwd, Tag::FunctionOnly);
    register_composite<BwdSig<S...>, &bwd_k<Mode, S...>>(name + "_backward");
  }
}

}  // namespace
}  // namespace ember::upsample_detail

namespace ember {
namespace ud = upsample_detail;

using ud::OptD;
using Fwd1 = ud::FwdSig<OptD>;
using Fwd2 = ud::FwdSig<OptD, OptD>;
using Fwd3 = ud::FwdSig<OptD, OptD, OptD>;
using FwdAc1 = ud::FwdAcSig<OptD>;
using FwdAc2 = ud::FwdAcSig<OptD, OptD>;
using FwdAc3 = ud::FwdAcSig<OptD, OptD, OptD>;

Tensor upsample_nearest1d(const Tensor& self, IntArrayRef os, OptScale s) {
  static const TypedOp<Fwd1> op("upsample_nearest1d");
  return op.call(self, os, s);
}
Tensor upsample_nearest2d(const Tensor& self, IntArrayRef os, OptScale h, OptScale w) {
  static const TypedOp<Fwd2> op("upsample_nearest2d");
  return op.call(self, os, h, w);
}
Tensor upsample_nearest3d(const Tensor& self, IntArrayRef os, OptScale d, OptScale h, OptScale w) {
  static const TypedOp<Fwd3> op("upsample_nearest3d");
  return op.call(self, os, d, h, w);
}
Tensor _upsample_nearest_exact1d(const Tensor& self, IntArrayRef os, OptScale s) {
  static const TypedOp<Fwd1> op("_upsample_nearest_exact1d");
  return op.call(self, os, s);
}
Tensor _upsample_nearest_exact2d(const Tensor& self, IntArrayRef os, OptScale h, OptScale w) {
  static const TypedOp<Fwd2> op("_upsample_nearest_exact2d");
  return op.call(self, os, h, w);
}
Tensor _upsample_nearest_exact3d(const Tensor& self, IntArrayRef os, OptScale d, OptScale h, OptScale w) {
  static const TypedOp<Fwd3> op("_upsample_nearest_exact3d");
  return op.call(self, os, d, h, w);
}
Tensor upsample_linear1d(const Tensor& self, IntArrayRef os, bool ac, OptScale s) {
  static const TypedOp<FwdAc1> op("upsample_linear1d");
  return op.call(self, os, ac, s);
}
Tensor upsample_bilinear2d(const Tensor& self, IntArrayRef os, bool ac, OptScale h, OptScale w) {
  static const TypedOp<FwdAc2> op("upsample_bilinear2d");
  return op.call(self, os, ac, h, w);
}
Tensor upsample_bicubic2d(const Tensor& self, IntArrayRef os, bool ac, OptScale h, OptScale w) {
  static const TypedOp<FwdAc2> op("upsample_bicubic2d");
  return op.call(self, os, ac, h, w);
}
Tensor upsample_trilinear3d(const Tensor& self, IntArrayRef os, bool ac, OptScale d, OptScale h, OptScale w) {
  static const TypedOp<FwdAc3> op("upsample_trilinear3d");
  return op.call(self, os, ac, d, h, w);
}

EMBER_REGISTER(upsample_ops) {
  using namespace ud;
  const std::string scales = "float? scales_d, float? scales_h, float? scales_w) -> Tensor";
  define_op<UpSig>("_upsample(Tensor self, int[] output_size, int mode, bool align_corners, " + scales, Tag::Internal);
  register_cpu_meta<UpSig, &upsample_k>("_upsample");
  define_op<UpSig>("_upsample_backward(Tensor grad_output, int[] input_size, int mode, bool align_corners, " + scales,
                   Tag::Internal);
  register_cpu_meta<UpSig, &upsample_backward_k>("_upsample_backward");
  define_mode<kNearest, OptD>();
  define_mode<kNearest, OptD, OptD>();
  define_mode<kNearest, OptD, OptD, OptD>();
  define_mode<kNearestExact, OptD>();
  define_mode<kNearestExact, OptD, OptD>();
  define_mode<kNearestExact, OptD, OptD, OptD>();
  define_mode<kLinear, OptD>();
  define_mode<kLinear, OptD, OptD>();
  define_mode<kLinear, OptD, OptD, OptD>();
  define_mode<kCubic, OptD, OptD>();
}

}  // namespace ember
