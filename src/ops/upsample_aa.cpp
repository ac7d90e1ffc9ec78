// Antialiased resampling: _upsample_bilinear2d_aa, _upsample_bicubic2d_aa and their *_backward
// ops (F.interpolate(..., antialias=True)), with PyTorch 1.13's schemas, checks and messages.
//
// PyTorch's (and PIL's) separable filter: along each axis, output o is centred on input
// coordinate c = scale * (o + 0.5) and reads the inputs j within `support` of it, weighted by
// filter((j - c + 0.5) / s) and normalized to sum to 1, where s = max(scale, 1) and support =
// s * (1 for the triangle filter of bilinear, 2 for Keys' cubic with a = -0.5 of bicubic).
// When downscaling the filter thus widens to average every input it covers; when upscaling it
// is plain interpolation (with the border renormalized instead of clamped). align_corners only
// changes the scale, (in - 1) / (out - 1), not the centres.
//
// Each axis gets its windows (first input, count, weights) once per call; each (batch, channel)
// plane is one OpenMP task that filters one axis into a temporary and then the other. Both
// orders give the same values up to rounding: the row pass (a weighted sum of whole rows)
// vectorizes, the column pass (short dot products within a row) does not, so the order that
// leaves the column pass less work is taken. The backward op is the adjoint (transpose) of the
// same two passes, so forward and backward are each other's gradients to any order.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ember/ops/nn_sample.h"
#include "ops/layout.h"

namespace ember::upsample_aa_detail {
namespace {

using OptD = std::optional<double>;

// One axis's windows: output o reads inputs start[o] .. start[o] + count[o] - 1 with weights
// w[o * taps ...] (taps is the widest window).
template <typename W>
struct Windows {
  int64_t in = 0, out = 0, taps = 0;
  std::vector<int64_t> start, count;
  std::vector<W> w;
};

template <typename W>
W triangle(W x) {
  x = std::abs(x);
  return x < W(1) ? W(1) - x : W(0);
}

// Keys' cubic convolution kernel with a = -0.5 (plain bicubic uses -0.75).
template <typename W>
W keys_cubic(W x) {
  const W a = W(-0.5);
  x = std::abs(x);
  if (x < W(1)) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < W(2)) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return W(0);
}

// The windows of one axis, computed in W (the input's dtype) with PyTorch's expressions and
// their mixed float/double arithmetic, so that float32 results round as PyTorch's do.
template <typename W>
Windows<W> make_windows(bool cubic, int64_t in, int64_t out, bool align_corners, OptD opt_scale) {
  W scale;  // PyTorch's area_pixel_compute_scale
  if (align_corners) scale = out > 1 ? W(in - 1) / W(out - 1) : W(0);
  else scale = opt_scale && *opt_scale > 0 ? W(1.0 / *opt_scale) : W(in) / W(out);
  const double half_width = cubic ? 2.0 : 1.0;
  const W support = scale >= W(1) ? W(half_width * scale) : W(half_width);
  const W invscale = scale >= W(1) ? W(1.0 / scale) : W(1);
  Windows<W> win;
  win.in = in;
  win.out = out;
  win.taps = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  win.start.resize(out);
  win.count.resize(out);
  win.w.assign(static_cast<size_t>(out * win.taps), W(0));
  for (int64_t o = 0; o < out; ++o) {
    const W center = W(scale * (o + 0.5));
    // (An explicit scale can centre a window past the input: it is then empty.)
    const int64_t lo = std::clamp(static_cast<int64_t>(center - support + 0.5), int64_t{0}, in);
    const int64_t n = std::max(std::min(static_cast<int64_t>(center + support + 0.5), in) - lo, int64_t{0});
    W* w = win.w.data() + o * win.taps;
    W total = 0;
    for (int64_t j = 0; j < n; ++j) {
      const W x = W((j + lo - center + 0.5) * invscale);
      w[j] = cubic ? keys_cubic(x) : triangle(x);
      total += w[j];
    }
    if (total != W(0))
      for (int64_t j = 0; j < n; ++j) w[j] /= total;
    win.start[o] = lo;
    win.count[o] = n;
  }
  return win;
}

using layout::for_planes;

// ---------------------------------------------------------------- the two passes
// Row pass: y (a.out rows of `width`) = the weighted sums of x's rows (a.in rows of `width`).
// (`omp simd`: this file is built at -O2, whose cost model would leave the loops scalar.)
template <typename T>
void rows_forward(const Windows<T>& a, const T* x, T* y, int64_t width) {
  for (int64_t o = 0; o < a.out; ++o) {
    const T* w = a.w.data() + o * a.taps;
    const T* r = x + a.start[o] * width;
    T* yr = y + o * width;
    if (a.count[o] == 0) {
      std::fill(yr, yr + width, T(0));
      continue;
    }
#pragma omp simd
    for (int64_t i = 0; i < width; ++i) yr[i] = w[0] * r[i];
    for (int64_t t = 1; t < a.count[o]; ++t) {
      const T wt = w[t];
      const T* rt = r + t * width;
#pragma omp simd
      for (int64_t i = 0; i < width; ++i) yr[i] += wt * rt[i];
    }
  }
}

// Column pass: each of `rows` rows of x (a.in long) filtered into a row of y (a.out long).
template <typename T>
void cols_forward(const Windows<T>& a, const T* x, T* y, int64_t rows) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * a.in;
    T* yr = y + r * a.out;
    for (int64_t o = 0; o < a.out; ++o) {
      const T* w = a.w.data() + o * a.taps;
      const T* s = xr + a.start[o];
      T acc = 0;
      for (int64_t t = 0; t < a.count[o]; ++t) acc += w[t] * s[t];
      yr[o] = acc;
    }
  }
}

// The adjoints: gx (zeroed) += each output gradient spread over its window.
template <typename T>
void rows_backward(const Windows<T>& a, const T* gy, T* gx, int64_t width) {
  for (int64_t o = 0; o < a.out; ++o) {
    const T* w = a.w.data() + o * a.taps;
    const T* g = gy + o * width;
    T* r = gx + a.start[o] * width;
    for (int64_t t = 0; t < a.count[o]; ++t) {
      const T wt = w[t];
      T* rt = r + t * width;
#pragma omp simd
      for (int64_t i = 0; i < width; ++i) rt[i] += wt * g[i];
    }
  }
}

template <typename T>
void cols_backward(const Windows<T>& a, const T* gy, T* gx, int64_t rows) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* g = gy + r * a.out;
    T* xr = gx + r * a.in;
    for (int64_t o = 0; o < a.out; ++o) {
      const T* w = a.w.data() + o * a.taps;
      T* s = xr + a.start[o];
      const T v = g[o];
      for (int64_t t = 0; t < a.count[o]; ++t) s[t] += w[t] * v;
    }
  }
}

// Multiply-adds of filtering the columns first (then the rows) and the other way round; the
// column pass is weighted 4x, being scalar (it only decides the order).
struct Order {
  bool cols_first;
  int64_t work;
};
template <typename T>
Order pick_order(const Windows<T>& h, const Windows<T>& w) {
  // Windows hold at most `taps` inputs; the average is near taps / 2 + 1 when downscaling.
  const int64_t kh = h.taps, kw = w.taps;
  const int64_t cols_first = 4 * h.in * w.out * kw + h.out * kh * w.out;
  const int64_t rows_first = h.out * kh * w.in + 4 * h.out * w.out * kw;
  return {cols_first <= rows_first, std::min(cols_first, rows_first)};
}

// x [planes, h.in, w.in] -> y [planes, h.out, w.out].
template <typename T>
void forward_planes(const T* x, T* y, int64_t planes, const Windows<T>& h, const Windows<T>& w) {
  const Order ord = pick_order(h, w);
  const int64_t in_plane = h.in * w.in, out_plane = h.out * w.out;
  for_planes(planes, ord.work, [&](int64_t p) {
    std::vector<T> tmp(static_cast<size_t>(ord.cols_first ? h.in * w.out : h.out * w.in));
    const T* xp = x + p * in_plane;
    T* yp = y + p * out_plane;
    if (ord.cols_first) {
      cols_forward(w, xp, tmp.data(), h.in);
      rows_forward(h, tmp.data(), yp, w.out);
    } else {
      rows_forward(h, xp, tmp.data(), w.in);
      cols_forward(w, tmp.data(), yp, h.out);
    }
  });
}

// gy [planes, h.out, w.out] -> gx [planes, h.in, w.in] (zeroed): the transposed passes in the
// reverse order.
template <typename T>
void backward_planes(const T* gy, T* gx, int64_t planes, const Windows<T>& h, const Windows<T>& w) {
  const Order ord = pick_order(h, w);
  const int64_t in_plane = h.in * w.in, out_plane = h.out * w.out;
  for_planes(planes, ord.work, [&](int64_t p) {
    std::vector<T> tmp(static_cast<size_t>(ord.cols_first ? h.in * w.out : h.out * w.in), T(0));
    const T* gp = gy + p * out_plane;
    T* xp = gx + p * in_plane;
    if (ord.cols_first) {
      rows_backward(h, gp, tmp.data(), w.out);
      cols_backward(w, tmp.data(), xp, h.in);
    } else {
      cols_backward(w, gp, tmp.data(), h.out);
      rows_backward(h, tmp.data(), xp, w.in);
    }
  });
}

// ---------------------------------------------------------------- checks and kernels
const char* op_name(bool cubic) { return cubic ? "_upsample_bicubic2d_aa" : "_upsample_bilinear2d_aa"; }

// "(H: 4, W: 4)", as PyTorch prints spatial sizes.
std::string hw(int64_t h, int64_t w) { return "(H: " + std::to_string(h) + ", W: " + std::to_string(w) + ")"; }

// PyTorch's upsample_2d_common_check; the result's sizes.
DimVector common_check(IntArrayRef input_size, IntArrayRef output_size) {
  EMBER_CHECK(output_size.size() == 2, RuntimeError, "It is expected output_size equals to 2, but got size ",
              output_size.size());
  EMBER_CHECK(input_size.size() == 4, RuntimeError, "It is expected input_size equals to 4, but got size ",
              input_size.size());
  EMBER_CHECK(input_size[2] > 0 && input_size[3] > 0 && output_size[0] > 0 && output_size[1] > 0, RuntimeError,
              "Input and output sizes should be greater than 0, but got input ", hw(input_size[2], input_size[3]),
              " output ", hw(output_size[0], output_size[1]));
  return DimVector{input_size[0], input_size[1], output_size[0], output_size[1]};
}

// A result of `shape`, channels-last when `cl`.
Tensor alloc(IntArrayRef shape, ScalarType dt, Device dev, bool cl) {
  if (!cl) return empty(shape, TensorOptions(dt).device(dev));
  return empty({shape[0], shape[2], shape[3], shape[1]}, TensorOptions(dt).device(dev)).permute({0, 3, 1, 2});
}

template <bool Cubic>
Tensor forward_k(const Tensor& self, IntArrayRef output_size, bool align_corners, OptD sh, OptD sw) {
  EMBER_CHECK(self.defined(), ValueError, op_name(Cubic), "(): got an undefined tensor");
  const DimVector shape = common_check(self.sizes(), output_size);
  EMBER_CHECK(self.numel() != 0 || self.size(1) != 0, RuntimeError,
              "Non-empty 4D data tensor expected but got a tensor with sizes ", self.sizes());
  // PyTorch keeps channels-last for bilinear, not for bicubic.
  const bool cl = !Cubic && layout::is_channels_last(self);
  const ScalarType dt = self.dtype();
  if (self.is_meta()) return alloc(shape, dt, self.device(), cl);
  EMBER_CHECK(dt == kFloat || dt == kDouble, RuntimeError, "\"compute_indices_weights_aa\" not implemented for '",
              dt, "'");
  Tensor y = alloc(shape, dt, self.device(), false);
  if (y.numel() == 0) return cl ? alloc(shape, dt, self.device(), true) : y;
  const Tensor x = self.contiguous();
  auto run = [&](auto zero) {
    using T = decltype(zero);
    const Windows<T> h = make_windows<T>(Cubic, self.size(2), shape[2], align_corners, sh);
    const Windows<T> w = make_windows<T>(Cubic, self.size(3), shape[3], align_corners, sw);
    forward_planes(static_cast<const T*>(x.data_ptr()), static_cast<T*>(y.data_ptr()), shape[0] * shape[1], h, w);
  };
  if (dt == kDouble) run(double{});
  else run(float{});
  if (!cl) return y;
  Tensor r = alloc(shape, dt, self.device(), true);
  r.copy_(y);
  return r;
}

template <bool Cubic>
Tensor backward_k(const Tensor& grad_output, IntArrayRef output_size, IntArrayRef input_size, bool align_corners,
                  OptD sh, OptD sw) {
  const std::string name = std::string(op_name(Cubic)) + "_backward";
  EMBER_CHECK(grad_output.defined(), ValueError, name, "(): got an undefined tensor");
  const DimVector out_shape = common_check(input_size, output_size);
  EMBER_CHECK(grad_output.dim() == 4, RuntimeError,
              "Expected grad_output to be a tensor of dimension 4 but got: dimension ", grad_output.dim());
  for (int64_t i = 0; i < 4; ++i)
    EMBER_CHECK(grad_output.size(i) == out_shape[i], RuntimeError,
                "Expected grad_output to have the same shape as output; output.size(", i, ") = ", out_shape[i],
                " but got grad_output.size(", i, ") = ", grad_output.size(i));
  // PyTorch's gradient keeps the gradient's channels-last layout for bilinear.
  const bool cl = !Cubic && layout::is_channels_last(grad_output);
  const ScalarType dt = grad_output.dtype();
  if (grad_output.is_meta()) return alloc(input_size, dt, grad_output.device(), cl);
  EMBER_CHECK(dt == kFloat || dt == kDouble, RuntimeError, "\"upsample_", Cubic ? "bicubic" : "bilinear",
              "2d_aa_backward_cpu\" not implemented for '", dt, "'");
  Tensor gx = zeros(input_size, TensorOptions(dt).device(grad_output.device()));
  if (gx.numel() != 0) {
    const Tensor gy = grad_output.contiguous();
    auto run = [&](auto zero) {
      using T = decltype(zero);
      const Windows<T> h = make_windows<T>(Cubic, input_size[2], out_shape[2], align_corners, sh);
      const Windows<T> w = make_windows<T>(Cubic, input_size[3], out_shape[3], align_corners, sw);
      backward_planes(static_cast<const T*>(gy.data_ptr()), static_cast<T*>(gx.data_ptr()),
                      input_size[0] * input_size[1], h, w);
    };
    if (dt == kDouble) run(double{});
    else run(float{});
  }
  if (!cl) return gx;
  Tensor r = alloc(input_size, dt, grad_output.device(), true);
  r.copy_(gx);
  return r;
}

using FwdSig = Tensor(const Tensor&, IntArrayRef, bool, OptD, OptD);
using BwdSig = Tensor(const Tensor&, IntArrayRef, IntArrayRef, bool, OptD, OptD);

template <bool Cubic>
void define_aa() {
  const std::string name = op_name(Cubic);
  const std::string sc = "float? scales_h=None, float? scales_w=None) -> Tensor";
  define_op<FwdSig>(name + "(Tensor self, int[2] output_size, bool align_corners, " + sc, Tag::FunctionOnly);
  register_cpu_meta<FwdSig, &forward_k<Cubic>>(name);
  define_op<BwdSig>(name + "_backward(Tensor grad_output, int[2] output_size, int[4] input_size, bool align_corners, " +
                        sc,
                    Tag::FunctionOnly);
  register_cpu_meta<BwdSig, &backward_k<Cubic>>(name + "_backward");
}

}  // namespace
}  // namespace ember::upsample_aa_detail

namespace ember {
namespace uad = upsample_aa_detail;

Tensor _upsample_bilinear2d_aa(const Tensor& self, IntArrayRef os, bool ac, OptScale h, OptScale w) {
  static const TypedOp<uad::FwdSig> op("_upsample_bilinear2d_aa");
  return op.call(self, os, ac, h, w);
}
Tensor _upsample_bicubic2d_aa(const Tensor& self, IntArrayRef os, bool ac, OptScale h, OptScale w) {
  static const TypedOp<uad::FwdSig> op("_upsample_bicubic2d_aa");
  return op.call(self, os, ac, h, w);
}
Tensor _upsample_bilinear2d_aa_backward(const Tensor& grad_output, IntArrayRef os, IntArrayRef is, bool ac, OptScale h,
                                        OptScale w) {
  static const TypedOp<uad::BwdSig> op("_upsample_bilinear2d_aa_backward");
  return op.call(grad_output, os, is, ac, h, w);
}
Tensor _upsample_bicubic2d_aa_backward(const Tensor& grad_output, IntArrayRef os, IntArrayRef is, bool ac, OptScale h,
                                       OptScale w) {
  static const TypedOp<uad::BwdSig> op("_upsample_bicubic2d_aa_backward");
  return op.call(grad_output, os, is, ac, h, w);
}

EMBER_REGISTER(upsample_aa_ops) {
  uad::define_aa<false>();
  uad::define_aa<true>();
}

}  // namespace ember
