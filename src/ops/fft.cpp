// torch.fft: the three primitives (_fft_c2c, _fft_r2c, _fft_c2r) with CPU/Meta kernels, and
// every public transform as a composite of them with PyTorch 1.13's argument rules
// (aten/src/ATen/native/SpectralOps.cpp): dims wrapped and unique, `s`/`n` zero-pad or trim,
// norm strings, dtype promotion. Composites record the primitives for autograd
// (formulas in autograd/formulas_fft.cpp).
//
// A multi-dim transform is a sequence of 1-D passes, the first reading the input in place
// (any strides), the others working in the output; normalization is applied by the last.
#include <algorithm>
#include <cmath>

#include "autograd/out_check.h"
#include "backends/cpu/fft_plan.h"
#include "core/torch_names.h"
#include "ember/dispatch.h"
#include "ember/fft.h"
#include "ember/forward_ad.h"
#include "ember/ops.h"
#include "ember/ops/nn_conv.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/shape.h"

namespace ember {
namespace fft_ops {
namespace {

using Norm = std::optional<std::string_view>;
using OptDims = std::optional<IntArrayRef>;

enum : int64_t { kNormNone = 0, kNormRoot = 1, kNormN = 2 };

int64_t norm_mode(Norm norm, bool forward) {
  if (!norm || *norm == "backward") return forward ? kNormNone : kNormN;
  if (*norm == "forward") return forward ? kNormN : kNormNone;
  if (*norm == "ortho") return kNormRoot;
  EMBER_FAIL(RuntimeError, "Invalid normalization mode: \"", *norm, "\"");
}

double norm_scale(int64_t mode, int64_t n) {
  if (mode == kNormRoot) return 1.0 / std::sqrt(static_cast<double>(n));
  if (mode == kNormN) return 1.0 / static_cast<double>(n);
  return 1.0;
}

DimVector wrap_dims(IntArrayRef dim, int64_t ndim) {
  DimVector d;
  for (int64_t x : dim) d.push_back(wrap_dim(x, ndim));
  DimVector sorted = d;
  std::sort(sorted.begin(), sorted.end());
  EMBER_CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end(), RuntimeError,
              "FFT dims must be unique");
  return d;
}

// ---------------------------------------------------------------- primitive kernels
// One 1-D pass along `d` from `src` into `dst` (both laid out as given).
void pass(cpu::FftKind kind, bool forward, int64_t n, const Tensor& src, Tensor& dst, int64_t d, double scale) {
  if (src.numel() == 0) {  // an empty line transforms to zeros (r2c of length 0 still has a bin)
    dst.zero_();
    return;
  }
  cpu::FftCall c;
  auto plan = cpu::fft_plan(n, kind != cpu::FftKind::C2C);
  c.plan = plan.get();
  c.kind = kind;
  c.forward = forward;
  c.is_double = to_real_type(src.dtype()) == kDouble;
  c.in = src.data_ptr();
  c.out = dst.data_ptr();
  const int64_t in_unit = src.is_complex() ? 2 : 1, out_unit = dst.is_complex() ? 2 : 1;
  c.in_stride = src.stride(d) * in_unit;
  c.out_stride = dst.stride(d) * out_unit;
  c.out_len = dst.size(d);
  for (int64_t i = 0; i < src.dim(); ++i) {
    if (i == d) continue;
    c.batch_sizes.push_back(src.size(i));
    c.in_batch_strides.push_back(src.stride(i) * in_unit);
    c.out_batch_strides.push_back(dst.stride(i) * out_unit);
  }
  c.scale = scale;
  cpu::fft_stub(c);
}

void check_cpu(const char* op, const Tensor& self) {
  EMBER_CHECK(self.is_cpu() || self.is_meta(), NotImplementedError, "Could not run '",
              op, "' with arguments from the '", self.device(), "' backend.");
}

// Transforms `t` (complex, contiguous output) in place along dims, scaling by `scale` last.
void c2c_passes(Tensor& t, IntArrayRef dims, bool forward, double scale) {
  for (size_t i = dims.size(); i-- > 0;)
    pass(cpu::FftKind::C2C, forward, t.size(dims[i]), t, t, dims[i], i == 0 ? scale : 1.0);
}

int64_t prod_sizes(const Tensor& t, IntArrayRef dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= t.size(d);
  return n;
}

Tensor c2c_k(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward) {
  check_cpu("_fft_c2c", self);
  EMBER_CHECK(self.is_complex(), RuntimeError, "Expected self.is_complex() to be true, but got false.");
  const DimVector dims = wrap_dims(dim, self.dim());
  Tensor out = empty(self.sizes(), TensorOptions(self.dtype()).device(self.device()));
  if (self.is_meta() || out.numel() == 0) return out;
  if (dims.empty()) return out.copy_(self);
  const double scale = norm_scale(normalization, prod_sizes(self, dims));
  const int64_t last = dims[dims.size() - 1];
  pass(cpu::FftKind::C2C, forward, self.size(last), self, out, last, dims.size() == 1 ? scale : 1.0);
  DimVector rest(IntArrayRef(dims.data(), dims.size() - 1));
  c2c_passes(out, rest, forward, scale);
  return out;
}

Tensor r2c_k(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided) {
  check_cpu("_fft_r2c", self);
  EMBER_CHECK(is_floating_point(self.dtype()) && (self.dtype() == kFloat || self.dtype() == kDouble), RuntimeError,
              "Expected self.is_floating_point() to be true, but got false.");
  const DimVector dims = wrap_dims(dim, self.dim());
  EMBER_CHECK(!dims.empty(), RuntimeError, "_fft_r2c must transform at least one axis");
  const int64_t last = dims[dims.size() - 1], n = self.size(last);
  DimVector shape(self.sizes());
  if (onesided) shape[last] = n / 2 + 1;
  Tensor out = empty(shape, TensorOptions(to_complex_type(self.dtype())).device(self.device()));
  if (self.is_meta() || out.numel() == 0) return out;
  const double scale = norm_scale(normalization, prod_sizes(self, dims));
  pass(cpu::FftKind::R2C, true, n, self, out, last, dims.size() == 1 ? scale : 1.0);
  DimVector rest(IntArrayRef(dims.data(), dims.size() - 1));
  c2c_passes(out, rest, true, scale);
  return out;
}

Tensor c2r_k(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  check_cpu("_fft_c2r", self);
  EMBER_CHECK(self.is_complex(), RuntimeError, "Expected self.is_complex() to be true, but got false.");
  const DimVector dims = wrap_dims(dim, self.dim());
  EMBER_CHECK(!dims.empty(), RuntimeError, "_fft_c2r must transform at least one axis");
  EMBER_CHECK(last_dim_size >= 1, RuntimeError, "Invalid number of data points (", last_dim_size, ") specified");
  const int64_t last = dims[dims.size() - 1], half = last_dim_size / 2 + 1;
  EMBER_CHECK(self.size(last) >= half, RuntimeError, "_fft_c2r: expected at least ", half,
              " values along dim ", last, " for ", last_dim_size, " outputs, but got ", self.size(last));
  DimVector shape(self.sizes());
  shape[last] = last_dim_size;
  Tensor out = empty(shape, TensorOptions(to_real_type(self.dtype())).device(self.device()));
  if (self.is_meta() || out.numel() == 0) return out;
  const double scale = norm_scale(normalization, prod_sizes(out, dims));
  Tensor src = self.narrow(last, 0, half);
  if (dims.size() > 1) {
    Tensor tmp = empty(src.sizes(), TensorOptions(self.dtype()));
    DimVector rest(IntArrayRef(dims.data(), dims.size() - 1));
    const int64_t d0 = rest.back();
    pass(cpu::FftKind::C2C, false, src.size(d0), src, tmp, d0, 1.0);
    rest.pop_back();
    c2c_passes(tmp, rest, false, 1.0);
    src = tmp;
  }
  pass(cpu::FftKind::C2R, false, last_dim_size, src, out, last, scale);
  return out;
}

using C2CSig = Tensor(const Tensor&, IntArrayRef, int64_t, bool);
using C2RSig = Tensor(const Tensor&, IntArrayRef, int64_t, int64_t);

// ---------------------------------------------------------------- public transforms
enum class Kind { Fft, Ifft, Rfft, Irfft, Hfft, Ihfft };

// Integers compute in the default float dtype; complex is required by the c2c/c2r forms.
Tensor promote(const Tensor& t, bool require_complex) {
  Tensor x = t;
  if (!is_floating_point(x.dtype()) && !x.is_complex()) x = x.to(get_default_dtype());
  const ScalarType r = to_real_type(x.dtype());
  EMBER_CHECK(r == kFloat || r == kDouble, RuntimeError, "Unsupported dtype ", torch_type_name(x.dtype()));
  if (require_complex && !x.is_complex()) x = x.to(to_complex_type(x.dtype()));
  return x;
}

struct ShapeDim {
  DimVector shape, dim;
};

// PyTorch's canonicalize_fft_shape_and_dim_args.
ShapeDim canonicalize(const Tensor& x, OptDims s, OptDims dim) {
  const int64_t ndim = x.dim();
  ShapeDim r;
  if (dim) r.dim = wrap_dims(*dim, ndim);
  if (s) {
    EMBER_CHECK(!dim || dim->size() == s->size(), RuntimeError,
                "When given, dim and shape arguments must have the same length");
    const int64_t k = static_cast<int64_t>(s->size());
    EMBER_CHECK(k <= ndim, RuntimeError, "Got shape with ", k, " values but input tensor only has ", ndim,
                " dimensions.");
    if (!dim)
      for (int64_t i = ndim - k; i < ndim; ++i) r.dim.push_back(i);
    for (int64_t i = 0; i < k; ++i) r.shape.push_back((*s)[i] == -1 ? x.size(r.dim[i]) : (*s)[i]);
  } else {
    if (!dim)
      for (int64_t i = 0; i < ndim; ++i) r.dim.push_back(i);
    for (int64_t d : r.dim) r.shape.push_back(x.size(d));
  }
  for (int64_t v : r.shape) EMBER_CHECK(v > 0, RuntimeError, "Invalid number of data points (", v, ") specified");
  return r;
}

// Zero-pads or trims each of dims to its size in `shape`.
Tensor resize_input(const Tensor& x, IntArrayRef dims, IntArrayRef shape) {
  Tensor r = x;
  std::vector<int64_t> pad(static_cast<size_t>(2 * x.dim()), 0);
  bool need_pad = false;
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t d = dims[i];
    if (shape[i] < r.size(d)) r = r.narrow(d, 0, shape[i]);
    if (shape[i] > x.size(d)) {
      pad[static_cast<size_t>(2 * (x.dim() - 1 - d) + 1)] = shape[i] - x.size(d);
      need_pad = true;
    }
  }
  return need_pad ? constant_pad_nd(r, pad, 0) : r;
}

const char* kind_name(Kind k, int nd) {
  static const char* names[6][3] = {{"fft", "fft2", "fftn"},     {"ifft", "ifft2", "ifftn"},
                                    {"rfft", "rfft2", "rfftn"},   {"irfft", "irfft2", "irfftn"},
                                    {"hfft", "hfft2", "hfftn"},   {"ihfft", "ihfft2", "ihfftn"}};
  return names[static_cast<int>(k)][nd];
}

// Every public transform; `nd`: 0 for the 1-D form, 1 for the 2-D form, 2 for the n-D form.
Tensor transform(Kind k, int nd, const Tensor& self, OptDims s, OptDims dim, Norm norm) {
  const char* fname = kind_name(k, nd);
  if (self.dim() == 0) EMBER_FAIL(RuntimeError, "Invalid number of data points (0) specified");
  const bool c2r = k == Kind::Irfft || k == Kind::Hfft;
  const bool r2c = k == Kind::Rfft || k == Kind::Ihfft;
  const bool forward = k == Kind::Fft || k == Kind::Rfft || k == Kind::Hfft;
  if (r2c)
    EMBER_CHECK(!self.is_complex(), RuntimeError, fname, " expects a real input tensor, but got ",
                torch_type_name(self.dtype()));
  if (c2r) {
    ShapeDim desc = canonicalize(self, s, dim);
    EMBER_CHECK(!desc.shape.empty(), RuntimeError, fname, " must transform at least one axis");
    const int64_t last = desc.dim.back();
    const int64_t n = (!s || s->back() == -1) ? 2 * (self.size(last) - 1) : desc.shape.back();
    EMBER_CHECK(n >= 1, RuntimeError, "Invalid number of data points (", n, ") specified");
    desc.shape.back() = n / 2 + 1;
    Tensor x = resize_input(promote(self, true), desc.dim, desc.shape);
    const int64_t mode = norm_mode(norm, forward);
    if (k == Kind::Hfft) {
      if (desc.dim.size() > 1)
        x = _fft_c2c(x, IntArrayRef(desc.dim.data(), desc.dim.size() - 1), mode, true);
      x = conj(x);
      return _fft_c2r(x, IntArrayRef(&desc.dim.back(), 1), mode, n);
    }
    return _fft_c2r(x, desc.dim, mode, n);
  }
  ShapeDim desc = canonicalize(self, s, dim);
  if (r2c) EMBER_CHECK(!desc.shape.empty(), RuntimeError, fname, " must transform at least one axis");
  const int64_t mode = norm_mode(norm, forward);
  if (!self.is_complex() && !desc.dim.empty()) {
    // Real input: a real-to-complex transform (full length for fft/ifft), conjugated for
    // the inverse directions.
    Tensor x = resize_input(promote(self, false), desc.dim, desc.shape);
    if (k == Kind::Ihfft && desc.dim.size() > 1) {
      Tensor t = conj(_fft_r2c(x, IntArrayRef(&desc.dim.back(), 1), mode, true));
      return _fft_c2c(t, IntArrayRef(desc.dim.data(), desc.dim.size() - 1), mode, false);
    }
    Tensor r = _fft_r2c(x, desc.dim, mode, r2c);
    return forward ? r : conj(r);
  }
  Tensor x = resize_input(promote(self, true), desc.dim, desc.shape);
  return _fft_c2c(x, desc.dim, mode, forward);
}

Tensor& assign_out(Kind k, int nd, Tensor& out, const Tensor& r) {
  const char* fname = kind_name(k, nd);
  EMBER_CHECK(out.defined(), ValueError, fname, "(): got an undefined out tensor");
  if (r.is_complex())
    EMBER_CHECK(out.is_complex(), RuntimeError, fname, " expects a complex output tensor, but got ",
                torch_type_name(out.dtype()));
  else
    EMBER_CHECK(is_floating_point(out.dtype()), RuntimeError, fname,
                " expects a floating point output tensor, but got ", torch_type_name(out.dtype()));
  if (!out.sizes().equals(r.sizes())) resize_(out, r.sizes());
  copy_(out, r);
  return out;
}

// out= forms refuse inputs that require grad, and dual inputs: PyTorch's out= transforms have
// no forward AD (the copy into out would otherwise carry a tangent).
void fft_check_out(Kind k, int nd, const Tensor& self) {
  autograd::check_out_inputs(kind_name(k, nd), {self});
  EMBER_CHECK(!(autograd::forward_ad::is_active() && autograd::forward_ad::unpack_dual(self).tangent.defined()),
              NotImplementedError, "Trying to use forward AD with fft_", kind_name(k, nd),
              "_out that does not support it because it is an out= function");
}

template <Kind K>
Tensor t1(const Tensor& self, std::optional<int64_t> n, int64_t dim, Norm norm) {
  const int64_t nv = n.value_or(0);
  return transform(K, 0, self, n ? OptDims(IntArrayRef(&nv, 1)) : std::nullopt, IntArrayRef(&dim, 1), norm);
}
template <Kind K>
Tensor& t1_out(const Tensor& self, std::optional<int64_t> n, int64_t dim, Norm norm, Tensor& out) {
  fft_check_out(K, 0, self);
  return assign_out(K, 0, out, t1<K>(self, n, dim, norm));
}
template <Kind K>
Tensor t2(const Tensor& self, OptDims s, IntArrayRef dim, Norm norm) { return transform(K, 1, self, s, dim, norm); }
template <Kind K>
Tensor& t2_out(const Tensor& self, OptDims s, IntArrayRef dim, Norm norm, Tensor& out) {
  fft_check_out(K, 1, self);
  return assign_out(K, 1, out, transform(K, 1, self, s, dim, norm));
}
template <Kind K>
Tensor tn(const Tensor& self, OptDims s, OptDims dim, Norm norm) { return transform(K, 2, self, s, dim, norm); }
template <Kind K>
Tensor& tn_out(const Tensor& self, OptDims s, OptDims dim, Norm norm, Tensor& out) {
  fft_check_out(K, 2, self);
  return assign_out(K, 2, out, transform(K, 2, self, s, dim, norm));
}

using T1Sig = Tensor(const Tensor&, std::optional<int64_t>, int64_t, Norm);
using T1OutSig = Tensor&(const Tensor&, std::optional<int64_t>, int64_t, Norm, Tensor&);
using T2Sig = Tensor(const Tensor&, OptDims, IntArrayRef, Norm);
using T2OutSig = Tensor&(const Tensor&, OptDims, IntArrayRef, Norm, Tensor&);
using TnSig = Tensor(const Tensor&, OptDims, OptDims, Norm);
using TnOutSig = Tensor&(const Tensor&, OptDims, OptDims, Norm, Tensor&);

template <Kind K>
void define_kind() {
  const uint32_t fo = static_cast<uint32_t>(Tag::FunctionOnly);
  const std::string b = std::string("fft_") + kind_name(K, 0);
  const std::string b2 = std::string("fft_") + kind_name(K, 1), bn = std::string("fft_") + kind_name(K, 2);
  define_op<T1Sig>(b + "(Tensor self, int? n=None, int dim=-1, str? norm=None) -> Tensor", fo);
  define_op<T1OutSig>(b + ".out(Tensor self, int? n=None, int dim=-1, str? norm=None, *, Tensor(a!) out) -> Tensor(a!)", fo);
  define_op<T2Sig>(b2 + "(Tensor self, int[1]? s=None, int[1] dim=[-2,-1], str? norm=None) -> Tensor", fo);
  define_op<T2OutSig>(b2 + ".out(Tensor self, int[1]? s=None, int[1] dim=[-2,-1], str? norm=None, *, "
                           "Tensor(a!) out) -> Tensor(a!)", fo);
  define_op<TnSig>(bn + "(Tensor self, int[1]? s=None, int[1]? dim=None, str? norm=None) -> Tensor", fo);
  define_op<TnOutSig>(bn + ".out(Tensor self, int[1]? s=None, int[1]? dim=None, str? norm=None, *, "
                           "Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<T1Sig, &t1<K>>(b);
  register_composite<T1OutSig, &t1_out<K>>(b + ".out");
  register_composite<T2Sig, &t2<K>>(b2);
  register_composite<T2OutSig, &t2_out<K>>(b2 + ".out");
  register_composite<TnSig, &tn<K>>(bn);
  register_composite<TnOutSig, &tn_out<K>>(bn + ".out");
}

EMBER_REGISTER(fft_ops) {
  define_op<C2CSig>("_fft_c2c(Tensor self, int[] dim, int normalization, bool forward) -> Tensor");
  define_op<C2CSig>("_fft_r2c(Tensor self, int[] dim, int normalization, bool onesided) -> Tensor");
  define_op<C2RSig>("_fft_c2r(Tensor self, int[] dim, int normalization, int last_dim_size) -> Tensor");
  register_cpu_meta<C2CSig, &c2c_k>("_fft_c2c");
  register_cpu_meta<C2CSig, &r2c_k>("_fft_r2c");
  register_cpu_meta<C2RSig, &c2r_k>("_fft_c2r");
  define_kind<Kind::Fft>();
  define_kind<Kind::Ifft>();
  define_kind<Kind::Rfft>();
  define_kind<Kind::Irfft>();
  define_kind<Kind::Hfft>();
  define_kind<Kind::Ihfft>();
}

}  // namespace
}  // namespace fft_ops

#define EMBER_CALL(Sig, name, ...)    \
  static const TypedOp<Sig> op(name); \
  return op.call(__VA_ARGS__)
Tensor _fft_c2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward) {
  EMBER_CALL(fft_ops::C2CSig, "_fft_c2c", self, dim, normalization, forward);
}
Tensor _fft_r2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided) {
  EMBER_CALL(fft_ops::C2CSig, "_fft_r2c", self, dim, normalization, onesided);
}
Tensor _fft_c2r(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size) {
  EMBER_CALL(fft_ops::C2RSig, "_fft_c2r", self, dim, normalization, last_dim_size);
}

namespace fft {

#define EMBER_FFT_FRONT(name, Sig, OutSig, P1, P2, P3)                                                  \
  Tensor name(const Tensor& self, P1 a, P2 b, Norm norm) { EMBER_CALL(fft_ops::Sig, "fft_" #name, self, a, b, norm); } \
  Tensor& name##_out(Tensor& out, const Tensor& self, P1 a, P2 b, Norm norm) {                         \
    EMBER_CALL(fft_ops::OutSig, "fft_" #name ".out", self, a, b, norm, out);                             \
  }
#define EMBER_FFT_FRONTS(name)                                                              \
  EMBER_FFT_FRONT(name, T1Sig, T1OutSig, OptInt, int64_t, _)                                 \
  EMBER_FFT_FRONT(name##2, T2Sig, T2OutSig, OptDims, IntArrayRef, _)                         \
  EMBER_FFT_FRONT(name##n, TnSig, TnOutSig, OptDims, OptDims, _)
EMBER_FFT_FRONTS(fft)
EMBER_FFT_FRONTS(ifft)
EMBER_FFT_FRONTS(rfft)
EMBER_FFT_FRONTS(irfft)
EMBER_FFT_FRONTS(hfft)
EMBER_FFT_FRONTS(ihfft)
#undef EMBER_FFT_FRONTS
#undef EMBER_FFT_FRONT

Tensor fftfreq(int64_t n, double d, TensorOptions opts) {
  const ScalarType dt = opts.dtype_or_default();
  EMBER_CHECK(is_floating_point(dt) || is_complex(dt), RuntimeError,
              "fftfreq requires a floating point or complex dtype");
  // [0, ..., (n - 1) / 2, -(n / 2), ..., -1] / (d n)
  Tensor r = arange(0, n, 1, opts.dtype(dt));
  if (n > 0) r.narrow(0, (n + 1) / 2, n / 2).sub_(n);
  return r.mul_(1.0 / (static_cast<double>(n) * d));
}

Tensor rfftfreq(int64_t n, double d, TensorOptions opts) {
  const ScalarType dt = opts.dtype_or_default();
  EMBER_CHECK(is_floating_point(dt) || is_complex(dt), RuntimeError,
              "rfftfreq requires a floating point or complex dtype");
  return arange(0, n / 2 + 1, 1, opts.dtype(dt)).mul_(1.0 / (static_cast<double>(n) * d));
}

namespace {
Tensor shift(const Tensor& self, OptDims dim, bool inverse) {
  DimVector dims, shifts;
  if (!dim && self.dim() == 0) return self.clone();
  if (dim) {
    for (int64_t d : *dim) dims.push_back(wrap_dim(d, self.dim()));
  } else {
    for (int64_t d = 0; d < self.dim(); ++d) dims.push_back(d);
  }
  // fftshift rolls by floor(n / 2), ifftshift by ceil(n / 2)
  for (int64_t d : dims) shifts.push_back(inverse ? (self.size(d) + 1) / 2 : self.size(d) / 2);
  return roll(self, shifts, dims);
}
}  // namespace

Tensor fftshift(const Tensor& self, OptDims dim) { return shift(self, dim, false); }
Tensor ifftshift(const Tensor& self, OptDims dim) { return shift(self, dim, true); }

}  // namespace fft
}  // namespace ember
#undef EMBER_CALL
