// Factories: empty and friends allocate on the requested device's backend; arange, linspace,
// logspace and eye fill on the CPU (other devices get a copy, Meta only the shape).
#include <cfloat>
#include <cmath>

#include "backends/cpu/stubs.h"
#include "core/convert.h"
#include "core/dtype_dispatch.h"
#include "ember/backend.h"
#include "ember/func.h"
#include "ember/ops.h"

namespace ember {

namespace {
void check_sizes(IntArrayRef sizes, const char* op) {
  for (int64_t s : sizes)
    EMBER_CHECK(s >= 0, RuntimeError, op, "(): Trying to create tensor with negative dimension ", s,
                ": ", sizes);
}

// Bytes needed for a strided view, with overflow checks.
size_t storage_bytes(IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, const char* op) {
  int64_t max_offset = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == 0) return 0;
    int64_t span;
    EMBER_CHECK(!__builtin_mul_overflow(sizes[i] - 1, strides[i], &span) &&
                    !__builtin_add_overflow(max_offset, span, &max_offset),
                RuntimeError, op, "(): tensor of shape ", sizes, " is too large");
  }
  int64_t bytes;
  EMBER_CHECK(!__builtin_mul_overflow(max_offset + 1, static_cast<int64_t>(itemsize(dtype)), &bytes),
              RuntimeError, op, "(): tensor of shape ", sizes, " is too large");
  return static_cast<size_t>(bytes);
}
}  // namespace

Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, TensorOptions opts) {
  check_sizes(sizes, "empty_strided");
  EMBER_CHECK(sizes.size() == strides.size(), RuntimeError, "empty_strided(): got ", sizes.size(),
              " sizes but ", strides.size(), " strides");
  ScalarType dtype = opts.dtype_or_default();
  Device device = opts.device_or_default();
  size_t nbytes = storage_bytes(sizes, strides, dtype, "empty_strided");
  Allocator* alloc = backend_for(device.type).allocator();
  auto storage = Storage::make(alloc->allocate(nbytes), nbytes, device, alloc);
  return Tensor(Ref<TensorImpl>::make(std::move(storage), dtype, sizes, strides, 0));
}

Tensor empty(IntArrayRef sizes, TensorOptions opts) {
  check_sizes(sizes, "empty");
  ScalarType dtype = opts.dtype_or_default();
  Device device = opts.device_or_default();
  DimVector strides = contiguous_strides(sizes);
  size_t nbytes = storage_bytes(sizes, strides, dtype, "empty");
  if (device.is_cpu())
    return Tensor(TensorImpl::make_contiguous_cpu(sizes, dtype, compute_numel(sizes), nbytes));
  Allocator* alloc = backend_for(device.type).allocator();
  auto storage = Storage::make(alloc->allocate(nbytes), nbytes, device, alloc);
  return Tensor(Ref<TensorImpl>::make(std::move(storage), dtype, sizes, strides, 0));
}

Tensor zeros(IntArrayRef sizes, TensorOptions opts) {
  Tensor t = empty(sizes, opts);
  t.zero_();
  return t;
}

// Unlike full(), ones() does not infer the dtype from its value: the default float dtype.
Tensor ones(IntArrayRef sizes, TensorOptions opts) {
  return full(sizes, 1, opts.dtype(opts.dtype_or_default()));
}

Tensor full(IntArrayRef sizes, const Scalar& value, TensorOptions opts) {
  if (!opts.dtype_) opts = opts.dtype(value.natural_dtype());
  Tensor t = empty(sizes, opts);
  t.fill_(value);
  return t;
}

static TensorOptions like_options(const Tensor& t, TensorOptions opts) {
  return TensorOptions(opts.dtype_ ? *opts.dtype_ : t.dtype()).device(opts.device_ ? *opts.device_ : t.device());
}
// Inside vmap a *_like tensor is batched like t (func::like_batched).
Tensor empty_like(const Tensor& t, TensorOptions opts) {
  if (func::is_batched(t)) return func::like_batched(t, [&](const Tensor& p) { return empty_like(p, opts); });
  return empty(t.sizes(), like_options(t, opts));
}
Tensor zeros_like(const Tensor& t, TensorOptions opts) {
  if (func::is_batched(t)) return func::like_batched(t, [&](const Tensor& p) { return zeros_like(p, opts); });
  return zeros(t.sizes(), like_options(t, opts));
}
Tensor ones_like(const Tensor& t, TensorOptions opts) {
  if (func::is_batched(t)) return func::like_batched(t, [&](const Tensor& p) { return ones_like(p, opts); });
  return ones(t.sizes(), like_options(t, opts));
}
Tensor full_like(const Tensor& t, const Scalar& value, TensorOptions opts) {
  if (func::is_batched(t)) return func::like_batched(t, [&](const Tensor& p) { return full_like(p, value, opts); });
  return full(t.sizes(), value, like_options(t, opts));
}

Tensor scalar_tensor(const Scalar& s, TensorOptions opts) {
  if (!opts.dtype_) opts = opts.dtype(s.natural_dtype());
  Tensor t = empty({}, opts);
  if (t.is_cpu()) {
    EMBER_DISPATCH_ALL(t.dtype(), "scalar_tensor", [&] { *t.data_ptr<scalar_t>() = s.to<scalar_t>(); });
  } else {
    t.fill_(s);
  }
  return t;
}

Tensor wrapped_scalar(const Scalar& s) {
  // Python floats become float64 and ints int64 (their full precision); being "wrapped
  // numbers", they still promote like weak scalars.
  ScalarType dt = s.is_bool() ? kBool : s.is_integral() ? kInt64 : s.is_complex() ? kComplexDouble : kDouble;
  Tensor t = scalar_tensor(s, dt);
  t.impl()->set_wrapped_number(true);
  return t;
}

template <typename T>
Tensor tensor(ArrayRef<T> values, TensorOptions opts) {
  Tensor t = empty({static_cast<int64_t>(values.size())}, TensorOptions(scalar_type_of<T>));
  if (!values.empty()) std::memcpy(t.data_ptr(), values.data(), values.size() * sizeof(T));
  ScalarType want = opts.dtype_ ? *opts.dtype_ : scalar_type_of<T>;
  if (want != t.dtype()) t = t.to(want);
  if (opts.device_ && *opts.device_ != kCPU) t = t.to(*opts.device_);
  return t;
}
template Tensor tensor<bool>(ArrayRef<bool>, TensorOptions);
template Tensor tensor<uint8_t>(ArrayRef<uint8_t>, TensorOptions);
template Tensor tensor<int8_t>(ArrayRef<int8_t>, TensorOptions);
template Tensor tensor<int16_t>(ArrayRef<int16_t>, TensorOptions);
template Tensor tensor<int32_t>(ArrayRef<int32_t>, TensorOptions);
template Tensor tensor<int64_t>(ArrayRef<int64_t>, TensorOptions);
template Tensor tensor<Half>(ArrayRef<Half>, TensorOptions);
template Tensor tensor<BFloat16>(ArrayRef<BFloat16>, TensorOptions);
template Tensor tensor<float>(ArrayRef<float>, TensorOptions);
template Tensor tensor<double>(ArrayRef<double>, TensorOptions);
template Tensor tensor<complex64>(ArrayRef<complex64>, TensorOptions);
template Tensor tensor<complex128>(ArrayRef<complex128>, TensorOptions);

Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, ScalarType dtype, Device device,
                 void (*deleter)(void*, void*), void* ctx) {
  check_sizes(sizes, "from_blob");
  EMBER_CHECK(sizes.size() == strides.size(), ValueError, "from_blob(): got ", sizes.size(),
              " sizes but ", strides.size(), " strides");
  size_t nbytes = storage_bytes(sizes, strides, dtype, "from_blob");
  auto storage = Storage::make(DataPtr(data, ctx, deleter), nbytes, device, nullptr);
  return Tensor(Ref<TensorImpl>::make(std::move(storage), dtype, sizes, strides, 0));
}

Tensor from_blob(void* data, IntArrayRef sizes, ScalarType dtype) {
  return from_blob(data, sizes, contiguous_strides(sizes), dtype);
}

// ---------------------------------------------------------------- ranges
namespace {

// A 1-D result of n elements filled by the CPU range kernel.
Tensor range_result(int64_t n, TensorOptions opts, cpu::RangeKind kind, const Scalar& a, const Scalar& b,
                    double base) {
  const Device dev = opts.device_or_default();
  if (dev.is_meta()) return empty({n}, opts);
  Tensor out = empty({n}, opts.device(kCPU));
  if (n > 0) cpu::range_stub(out.data_ptr(), out.dtype(), n, kind, a, b, base);
  return dev.is_cpu() ? out : out.to(dev);
}

void check_range_dtype(ScalarType dtype, const char* kernel) {
  EMBER_CHECK(dtype != kBool, RuntimeError, "\"", kernel, "\" not implemented for '", dtype, "'");
}

// Scalar -> the type arange accumulates in, with PyTorch's overflow check.
// PyTorch converts scalar arguments with an overflow check (c10's checked_convert): integers
// may wrap into unsigned types but not beyond; floats must lie in the finite range of the
// type (inf and nan pass for floating types).
void check_fits(const Scalar& s, ScalarType t) {
  if (t == kBool) return;
  bool ok = true;
  auto in_range = [](double v, double lo, double hi) { return v >= lo && v <= hi; };
  const ScalarType real = to_real_type(t);
  double lo = 0, hi = 0;
  switch (real) {
    case kUInt8: lo = 0; hi = 255; break;
    case kInt8: lo = -128; hi = 127; break;
    case kInt16: lo = -32768; hi = 32767; break;
    case kInt32: lo = -2147483648.0; hi = 2147483647.0; break;
    case kInt64: lo = -9223372036854775808.0; hi = 9223372036854775807.0; break;
    case kHalf: lo = -65504; hi = 65504; break;
    case kBFloat16: lo = -3.38953139e38; hi = 3.38953139e38; break;
    case kFloat: lo = -FLT_MAX; hi = FLT_MAX; break;
    default: return;  // double
  }
  if (s.is_integral() || s.is_bool()) {
    const int64_t v = s.to_int();
    ok = real == kUInt8 ? v <= 255 && v >= -255 : real == kInt64 || in_range(static_cast<double>(v), lo, hi);
  } else {
    for (double v : {s.to_complex().real(), s.to_complex().imag()}) {
      if (is_floating_point(real) && (std::isnan(v) || std::isinf(v))) continue;
      ok = ok && in_range(v, lo, hi);
    }
  }
  EMBER_CHECK(ok, RuntimeError, "value cannot be converted to type ", t, " without overflow");
}

int64_t checked_int64(const Scalar& s) {
  if (s.is_floating_point()) {
    const double v = s.to_double();
    EMBER_CHECK(v >= -9223372036854775808.0 && v < 9223372036854775808.0, RuntimeError,
                "value cannot be converted to type int64_t without overflow");
  }
  return s.to_int();
}
double checked_double(const Scalar& s, bool to_float) {
  EMBER_CHECK(!s.is_complex(), RuntimeError, "value cannot be converted to type double without overflow");
  const double v = s.to_double();
  EMBER_CHECK(!to_float || !std::isfinite(v) || std::fabs(v) <= FLT_MAX, RuntimeError,
              "value cannot be converted to type float without overflow");
  return v;
}

}  // namespace

Tensor arange(const Scalar& end, TensorOptions opts) { return arange(0, end, 1, opts); }

Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, TensorOptions opts) {
  if (!opts.dtype_) {
    // All integers (bools count) give int64, any float the default dtype.
    const bool integral = !start.is_floating_point() && !end.is_floating_point() && !step.is_floating_point() &&
                          !start.is_complex() && !end.is_complex() && !step.is_complex();
    opts = opts.dtype(integral ? kInt64 : get_default_dtype());
  }
  const ScalarType dtype = *opts.dtype_;
  check_range_dtype(dtype, "arange_cpu");
  EMBER_CHECK(!is_complex(dtype), RuntimeError, "\"arange_cpu\" not implemented for '", dtype, "'");
  double size_d;
  if (is_integral(dtype)) {
    // Integer results step in int64: a fractional step truncates (and may become zero).
    const int64_t xstart = checked_int64(start), xend = checked_int64(end), xstep = checked_int64(step);
    EMBER_CHECK(xstep != 0, RuntimeError, "step must be nonzero");
    EMBER_CHECK((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart), RuntimeError,
                "upper bound and larger bound inconsistent with step sign");
    if (dtype == kInt64) {
      const auto span = static_cast<int64_t>(static_cast<uint64_t>(xend) - static_cast<uint64_t>(xstart));
      size_d = std::ceil(static_cast<double>(span) / static_cast<double>(xstep));
    } else {
      size_d = std::ceil((checked_double(end, false) - checked_double(start, false)) / checked_double(step, false));
    }
  } else {
    // Floating results accumulate in double (float for the 16-bit types).
    const bool reduced = dtype == kHalf || dtype == kBFloat16;
    double xstart = checked_double(start, reduced), xend = checked_double(end, reduced);
    double xstep = checked_double(step, reduced);
    if (reduced) {
      xstart = static_cast<float>(xstart); xend = static_cast<float>(xend); xstep = static_cast<float>(xstep);
    }
    EMBER_CHECK(xstep > 0 || xstep < 0, RuntimeError, "step must be nonzero");
    EMBER_CHECK(std::isfinite(xstart) && std::isfinite(xend), RuntimeError, "unsupported range: ", xstart,
                " -> ", xend);
    EMBER_CHECK((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart), RuntimeError,
                "upper bound and larger bound inconsistent with step sign");
    size_d = std::ceil((end.to_double() - start.to_double()) / step.to_double());
  }
  EMBER_CHECK(size_d >= 0 && size_d <= 9223372036854775807.0, RuntimeError, "invalid size, possible overflow?");
  return range_result(static_cast<int64_t>(size_d), opts, cpu::RangeKind::Arange, start, step, 0.0);
}

namespace {
// linspace/logspace: the default dtype, complex when an end point is complex.
ScalarType space_dtype(const char* op, const Scalar& start, const Scalar& end, TensorOptions opts) {
  const bool cplx = start.is_complex() || end.is_complex();
  const ScalarType inferred = cplx ? get_default_complex_dtype() : get_default_dtype();
  if (!opts.dtype_) return inferred;
  EMBER_CHECK(!cplx || is_complex(*opts.dtype_), RuntimeError, op, "(): inferred dtype ", inferred,
              " can't be safely cast to passed dtype ", *opts.dtype_);
  return *opts.dtype_;
}
}  // namespace

Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, TensorOptions opts) {
  EMBER_CHECK(steps >= 0, RuntimeError, "number of steps must be non-negative");
  opts = opts.dtype(space_dtype("torch.linspace", start, end, opts));
  check_range_dtype(*opts.dtype_, "linspace_cpu");
  check_fits(start, *opts.dtype_);
  check_fits(end, *opts.dtype_);
  if (steps == 1) return full({1}, start, opts);
  return range_result(steps, opts, cpu::RangeKind::Linspace, start, end, 0.0);
}

Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base, TensorOptions opts) {
  EMBER_CHECK(steps >= 0, RuntimeError, "number of steps must be non-negative");
  opts = opts.dtype(space_dtype("torch.logspace", start, end, opts));
  check_range_dtype(*opts.dtype_, "logspace_cpu");
  // PyTorch 1.13 has no float16 logspace kernel (bfloat16 it has).
  EMBER_CHECK(*opts.dtype_ != kHalf || steps <= 1, RuntimeError, "\"logspace_cpu\" not implemented for '",
              *opts.dtype_, "'");
  if (steps > 1) {
    check_fits(start, *opts.dtype_);
    check_fits(end, *opts.dtype_);
  }
  if (steps == 1) {
    if (start.is_complex() || is_complex(*opts.dtype_))
      return full({1}, std::pow(complex128(base, 0), start.to_complex()), opts);
    return full({1}, std::pow(base, start.to_double()), opts);
  }
  return range_result(steps, opts, cpu::RangeKind::Logspace, start, end, base);
}

Tensor eye(int64_t n, std::optional<int64_t> m_opt, TensorOptions opts) {
  EMBER_CHECK(n >= 0, RuntimeError, "n must be greater or equal to 0, got ", n);
  const int64_t m = m_opt ? *m_opt : n;
  EMBER_CHECK(m >= 0, RuntimeError, "m must be greater or equal to 0, got ", m);
  const Device dev = opts.device_or_default();
  if (dev.is_meta()) return empty({n, m}, opts);
  Tensor out = zeros({n, m}, opts.device(kCPU));
  const int64_t d = std::min(n, m);
  if (d > 0) {
    EMBER_DISPATCH_ALL(out.dtype(), "eye", [&] {
      auto* p = out.data_ptr<scalar_t>();
      const scalar_t one = convert<scalar_t>(1);
      for (int64_t i = 0; i < d; ++i) p[i * (m + 1)] = one;
    });
  }
  return dev.is_cpu() ? out : out.to(dev);
}

}  // namespace ember
