// The in-place samplers: uniform_, normal_, random_ (three overloads), bernoulli_ (number or
// tensor p), exponential_, geometric_, log_normal_, cauchy_. Each is a dispatcher op whose
// CPU kernel checks the arguments as PyTorch does and fills the tensor from the Philox stream
// of the generator (backends/cpu/kernels/random.cpp); on Meta tensors the same function
// stops after the checks. Other devices run them through the CPU fallback.
#include <cfloat>
#include <cmath>
#include <limits>

#include "core/dtype_dispatch.h"
#include "core/philox.h"
#include "ember/dispatch.h"
#include "ember/ops/random.h"
#include "ops/random_util.h"

namespace ember {

namespace random_util {

namespace {

// Fills a contiguous real CPU tensor, advancing the generator past the blocks it uses.
void fill_contiguous(const Tensor& t, cpu::RandomParams p, Generator* gen) {
  const int64_t n = t.numel();
  if (n == 0) return;
  const auto vpb = static_cast<uint64_t>(cpu::random_values_per_block(p, t.dtype()));
  const PhiloxState s = gen_or_default(gen).advance((static_cast<uint64_t>(n) + vpb - 1) / vpb);
  p.seed = s.seed;
  p.offset = s.offset;
  cpu::random_stub(t.data_ptr(), t.dtype(), n, p);
}

bool is_float_or_complex(ScalarType t) { return is_floating_point(t) || is_complex(t); }

}  // namespace

Tensor& fill_random(Tensor& self, const cpu::RandomParams& p, Generator* gen) {
  if (self.is_meta() || self.numel() == 0) return self;
  EMBER_INTERNAL_ASSERT(self.is_cpu(), "random fill of a ", self.device(), " tensor");
  Tensor target = self.is_complex() ? self.view_as_real() : self;
  if (target.is_contiguous()) {
    fill_contiguous(target, p, gen);
    self.bump_version();
  } else {
    Tensor tmp = empty(target.sizes(), target.dtype());
    fill_contiguous(tmp, p, gen);
    target.copy_(tmp);
  }
  return self;
}

void dtype_limits(ScalarType t, double& lo, double& hi) {
  switch (t) {
    case kBool: lo = 0; hi = 1; return;
    case kUInt8: lo = 0; hi = 255; return;
    case kInt8: lo = -128; hi = 127; return;
    case kInt16: lo = -32768; hi = 32767; return;
    case kInt32: lo = -2147483648.0; hi = 2147483647.0; return;
    case kInt64: lo = -9223372036854775808.0; hi = 9223372036854775807.0; return;
    case kHalf: lo = -65504; hi = 65504; return;
    case kBFloat16: lo = -3.3895313892515355e38; hi = 3.3895313892515355e38; return;
    case kFloat: lo = -FLT_MAX; hi = FLT_MAX; return;
    default: lo = -DBL_MAX; hi = DBL_MAX; return;
  }
}

void check_uniform(ScalarType dtype, double from, double to) {
  EMBER_CHECK(is_float_or_complex(dtype), RuntimeError, "\"check_uniform_bounds\" not implemented for '",
              dtype, "'");
  const ScalarType real = to_real_type(dtype);
  double lo, hi;
  dtype_limits(real, lo, hi);
  EMBER_CHECK(from >= lo && from <= hi, RuntimeError, "from is out of bounds for ", real);
  EMBER_CHECK(to >= lo && to <= hi, RuntimeError, "to is out of bounds for ", real);
  EMBER_CHECK(from <= to, RuntimeError, "uniform_ expects to return a [from, to) range, but found from=", from,
              " > to=", to);
  EMBER_CHECK(to - from <= hi, RuntimeError, "uniform_ expects to-from <= std::numeric_limits<", real,
              ">::max(), but found to=", to, " and from=", from, " which result in to-from to exceed the limit");
}

void check_normal(ScalarType dtype, double std) {
  EMBER_CHECK(std >= 0.0, RuntimeError, "normal expects std >= 0.0, but found std ", std);
  EMBER_CHECK(is_float_or_complex(dtype), RuntimeError, "\"normal_kernel_cpu\" not implemented for '", dtype, "'");
}

namespace {

// Mantissa digits of a floating dtype (std::numeric_limits<T>::digits).
int float_digits(ScalarType t) {
  switch (t) {
    case kHalf: return 11;
    case kBFloat16: return 8;
    case kFloat: return 24;
    default: return 53;
  }
}

// x rounded to the floating dtype and back, saturating at the int64 range (where PyTorch's
// cast would be undefined).
int64_t round_trip(int64_t x, ScalarType t) {
  double r = static_cast<double>(x);
  switch (t) {
    case kHalf: r = static_cast<float>(Half(static_cast<float>(r))); break;
    case kBFloat16: r = static_cast<float>(BFloat16(static_cast<float>(r))); break;
    case kFloat: r = static_cast<float>(r); break;
    default: break;
  }
  if (!(r < 9223372036854775808.0)) return std::numeric_limits<int64_t>::max();
  if (r < -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(r);
}

int floor_log2(uint64_t x) {
  int n = 0;
  while (x >>= 1) ++n;
  return n;
}

// PyTorch's update_from / update_to: move the bounds inwards to the nearest integers whose
// rounding to the floating dtype stays inside [from, to).
int64_t update_from(int64_t from, ScalarType t) {
  const int64_t from_plus_1 = round_trip(from + 1, t);
  if (from_plus_1 < from) {
    const int n = floor_log2(static_cast<uint64_t>(std::abs(from + 1)));
    from = from_plus_1 + (int64_t(1) << (n - float_digits(t) + 1));
  }
  return from;
}

int64_t update_to(int64_t to, ScalarType t) {
  const int64_t to_minus_1 = round_trip(to - 1, t);
  if (to_minus_1 >= to) {
    const int n = floor_log2(static_cast<uint64_t>(std::abs(to - 1)));
    to = to_minus_1 - (int64_t(1) << (n - float_digits(t) + 1));
  }
  return to;
}

// from and to_inc (the largest value drawn) representable in the dtype.
void check_from_to_in_range(ScalarType dtype, int64_t from, int64_t to_inc) {
  EMBER_CHECK(!is_complex(dtype), RuntimeError,
              "check_random_bounds handles only integral, floating-point and boolean types");
  double lo, hi;
  dtype_limits(dtype, lo, hi);
  EMBER_CHECK(static_cast<double>(from) >= lo && static_cast<double>(from) <= hi, RuntimeError,
              "from is out of bounds for ", dtype);
  EMBER_CHECK(static_cast<double>(to_inc) >= lo && static_cast<double>(to_inc) <= hi, RuntimeError,
              "to - 1 is out of bounds for ", dtype);
}

// [from, to) as (low, range) for the kernel, after PyTorch's checks.
cpu::RandomParams random_from_to(ScalarType dtype, int64_t from, int64_t to) {
  EMBER_CHECK(from < to, RuntimeError, "random_ expects 'from' to be less than 'to', but got from=", from,
              " >= to=", to);
  if (is_floating_point(dtype)) {
    from = update_from(from, dtype);
    to = update_to(to, dtype);
    EMBER_CHECK(from < to, RuntimeError,
                "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but got from=", from,
                " >= to=", to);
  }
  check_from_to_in_range(dtype, from, to - 1);
  cpu::RandomParams p;
  p.dist = cpu::RandomDist::Randint;
  p.low = from;
  p.range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
  return p;
}

// The top of random_()'s range: 2^digits for floating dtypes, the maximum for integral ones.
int64_t default_to_inc(ScalarType dtype) {
  if (is_floating_point(dtype)) return int64_t(1) << float_digits(dtype);
  double lo, hi;
  dtype_limits(dtype, lo, hi);
  return dtype == kInt64 ? std::numeric_limits<int64_t>::max() : static_cast<int64_t>(hi);
}

}  // namespace

void check_random_range(ScalarType dtype, int64_t from, int64_t to) { random_from_to(dtype, from, to); }

void check_probabilities(const Tensor& p) {
  Tensor pc = p.is_cpu() ? p.contiguous() : p.to(kCPU).contiguous();
  bool ok = true;
  EMBER_DISPATCH_FLOATING(pc.dtype(), "bernoulli", [&] {
    const scalar_t* d = pc.data_ptr<scalar_t>();
    for (int64_t i = 0, n = pc.numel(); i < n && ok; ++i) {
      const float v = static_cast<float>(d[i]);
      ok = v >= 0 && v <= 1;
    }
  });
  EMBER_CHECK(ok, RuntimeError, "Expected p_in >= 0 && p_in <= 1 to be true, but got false.");
}

void resize_out(const char* op, Tensor& out, IntArrayRef shape, Device device) {
  EMBER_CHECK(out.device() == device, RuntimeError, op, "(): Expected out tensor on ", device, ", but got it on ",
              out.device());
  if (!out.sizes().equals(shape)) resize_(out, shape);
}

}  // namespace random_util

using namespace random_util;

namespace {

void check_floating(ScalarType dtype, const char* kernel) {
  EMBER_CHECK(is_floating_point(dtype), RuntimeError, "\"", kernel, "\" not implemented for '", dtype, "'");
}

void check_bernoulli_self(ScalarType dtype, const char* kernel) {
  EMBER_CHECK(!is_complex(dtype) && dtype != kHalf, RuntimeError, "\"", kernel, "\" not implemented for '",
              dtype, "'");
}

// ---------------------------------------------------------------- kernels (CPU and Meta)
Tensor& uniform_k(Tensor& self, double from, double to, Generator* gen) {
  check_uniform(self.dtype(), from, to);
  cpu::RandomParams p;
  p.dist = cpu::RandomDist::Uniform;
  p.a = from;
  p.b = to;
  return fill_random(self, p, gen);
}

Tensor& normal_k(Tensor& self, double mean, double std, Generator* gen) {
  check_normal(self.dtype(), std);
  cpu::RandomParams p;
  p.dist = cpu::RandomDist::Normal;
  p.a = mean;
  // A complex normal of variance std^2 splits it evenly between the real and imaginary parts.
  p.b = self.is_complex() ? std / std::sqrt(2.0) : std;
  return fill_random(self, p, gen);
}

Tensor& random_from_k(Tensor& self, int64_t from, std::optional<int64_t> to, Generator* gen) {
  const ScalarType dtype = self.dtype();
  if (to) return fill_random(self, random_from_to(dtype, from, *to), gen);
  cpu::RandomParams p;
  p.dist = cpu::RandomDist::Randint;
  if (from == std::numeric_limits<int64_t>::lowest()) {
    EMBER_CHECK(!is_complex(dtype), RuntimeError,
                "random_from_to_impl handles only integral, floating-point and boolean types");
    p.low = from;
    p.range = 0;  // all of int64: 2^64 values
    return fill_random(self, p, gen);
  }
  // [from, top of the dtype's range]
  EMBER_CHECK(!is_complex(dtype), RuntimeError,
              "random_from_to_impl handles only integral, floating-point and boolean types");
  const int64_t to_inc = default_to_inc(dtype);
  if (is_floating_point(dtype)) {
    if (from < to_inc) from = update_from(from, dtype);
    EMBER_CHECK(from < to_inc, RuntimeError,
                "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted to dtype, but got "
                "from=", from, " > to_inc=", to_inc);
  }
  check_from_to_in_range(dtype, from, to_inc);
  p.low = from;
  p.range = static_cast<uint64_t>(to_inc) - static_cast<uint64_t>(from) + 1;  // 0 when it wraps to 2^64
  return fill_random(self, p, gen);
}

Tensor& random_to_k(Tensor& self, int64_t to, Generator* gen) { return random_from_k(self, 0, to, gen); }

Tensor& random_k(Tensor& self, Generator* gen) {
  const ScalarType dtype = self.dtype();
  EMBER_CHECK(!is_complex(dtype), RuntimeError, "\"random_kernel_cpu\" not implemented for '", dtype, "'");
  cpu::RandomParams p;
  p.dist = cpu::RandomDist::Randint;
  p.low = 0;
  p.range = static_cast<uint64_t>(default_to_inc(dtype)) + 1;
  return fill_random(self, p, gen);
}

Tensor& bernoulli_float_k(Tensor& self, double prob, Generator* gen) {
  EMBER_CHECK(prob >= 0 && prob <= 1, RuntimeError, "bernoulli_ expects p to be in [0, 1], but got p=", prob);
  check_bernoulli_self(self.dtype(), "bernoulli_scalar_cpu_");
  cpu::RandomParams p;
  p.dist = cpu::RandomDist::Bernoulli;
  p.a = prob;
  return fill_random(self, p, gen);
}

Tensor& bernoulli_tensor_k(Tensor& self, const Tensor& prob, Generator* gen) {
  check_bernoulli_self(self.dtype(), "bernoulli_tensor_cpu_self_");
  const ScalarType pt = prob.dtype();
  EMBER_CHECK(pt == kFloat || pt == kDouble || pt == kBFloat16, RuntimeError,
              "\"bernoulli_tensor_cpu_p_\" not implemented for '", pt, "'");
  Tensor pe = prob.expand(self.sizes());  // the error names both shapes
  if (self.is_meta() || prob.is_meta() || self.numel() == 0) return self;
  check_probabilities(pe);
  Tensor pc = pe.is_cpu() ? pe.contiguous() : pe.to(kCPU).contiguous();
  const bool direct = self.is_contiguous();
  Tensor out = direct ? self : empty(self.sizes(), self.dtype());
  const int64_t n = out.numel();
  const PhiloxState s = gen_or_default(gen).advance((static_cast<uint64_t>(n) + 3) / 4);
  cpu::bernoulli_tensor_stub(out.data_ptr(), out.dtype(), pc.data_ptr(), pc.dtype(), n, s.seed, s.offset);
  if (direct) self.bump_version();
  else self.copy_(out);
  return self;
}

Tensor& exponential_k(Tensor& self, double lambd, Generator* gen) {
  EMBER_CHECK(lambd >= 0.0, RuntimeError, "exponential_ expects lambda >= 0.0, but found lambda=", lambd);
  check_floating(self.dtype(), "exponential_cpu");
  cpu::RandomParams p;
  p.dist = cpu::RandomDist::Exponential;
  p.a = lambd;
  return fill_random(self, p, gen);
}

Tensor& geometric_k(Tensor& self, double prob, Generator* gen) {
  EMBER_CHECK(0 < prob && prob < 1, RuntimeError, "geometric_ expects p to be in (0, 1), but got p=", prob);
  const ScalarType dtype = self.dtype();
  EMBER_CHECK(dtype != kBool && !is_complex(dtype), RuntimeError, "\"geometric_cpu\" not implemented for '", dtype,
              "'");
  cpu::RandomParams p;
  p.dist = cpu::RandomDist::Geometric;
  p.a = prob;
  return fill_random(self, p, gen);
}

Tensor& log_normal_k(Tensor& self, double mean, double std, Generator* gen) {
  EMBER_CHECK(std > 0.0, RuntimeError, "log_normal_ expects std > 0.0, but found std=", std);
  check_floating(self.dtype(), "log_normal_cpu");
  cpu::RandomParams p;
  p.dist = cpu::RandomDist::LogNormal;
  p.a = mean;
  p.b = std;
  return fill_random(self, p, gen);
}

// PyTorch 1.13 accepts any sigma (a negative one gives the same law).
Tensor& cauchy_k(Tensor& self, double median, double sigma, Generator* gen) {
  check_floating(self.dtype(), "cauchy_cpu");
  cpu::RandomParams p;
  p.dist = cpu::RandomDist::Cauchy;
  p.a = median;
  p.b = sigma;
  return fill_random(self, p, gen);
}

using TwoParamSig = Tensor&(Tensor&, double, double, Generator*);
using OneParamSig = Tensor&(Tensor&, double, Generator*);
using RandomSig = Tensor&(Tensor&, Generator*);
using RandomToSig = Tensor&(Tensor&, int64_t, Generator*);
using RandomFromSig = Tensor&(Tensor&, int64_t, std::optional<int64_t>, Generator*);
using BernoulliTensorSig = Tensor&(Tensor&, const Tensor&, Generator*);

}  // namespace

EMBER_REGISTER(random_inplace_ops) {
  const uint32_t tags = Tag::Random | Tag::Inplace;
  define_op<TwoParamSig>("uniform_(Tensor(a!) self, float from=0, float to=1, *, Generator? generator=None) -> Tensor(a!)", tags);
  register_cpu_meta<TwoParamSig, &uniform_k>("uniform_");
  define_op<TwoParamSig>("normal_(Tensor(a!) self, float mean=0, float std=1, *, Generator? generator=None) -> Tensor(a!)", tags);
  register_cpu_meta<TwoParamSig, &normal_k>("normal_");
  define_op<RandomFromSig>("random_.from(Tensor(a!) self, int from, int? to, *, Generator? generator=None) -> Tensor(a!)", tags);
  register_cpu_meta<RandomFromSig, &random_from_k>("random_.from");
  define_op<RandomToSig>("random_.to(Tensor(a!) self, int to, *, Generator? generator=None) -> Tensor(a!)", tags);
  register_cpu_meta<RandomToSig, &random_to_k>("random_.to");
  define_op<RandomSig>("random_(Tensor(a!) self, *, Generator? generator=None) -> Tensor(a!)", tags);
  register_cpu_meta<RandomSig, &random_k>("random_");
  define_op<BernoulliTensorSig>("bernoulli_.Tensor(Tensor(a!) self, Tensor p, *, Generator? generator=None) -> Tensor(a!)", tags);
  register_cpu_meta<BernoulliTensorSig, &bernoulli_tensor_k>("bernoulli_.Tensor");
  define_op<OneParamSig>("bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)", tags);
  register_cpu_meta<OneParamSig, &bernoulli_float_k>("bernoulli_.float");
  define_op<OneParamSig>("exponential_(Tensor(a!) self, float lambd=1, *, Generator? generator=None) -> Tensor(a!)", tags);
  register_cpu_meta<OneParamSig, &exponential_k>("exponential_");
  define_op<OneParamSig>("geometric_(Tensor(a!) self, float p, *, Generator? generator=None) -> Tensor(a!)", tags);
  register_cpu_meta<OneParamSig, &geometric_k>("geometric_");
  define_op<TwoParamSig>("log_normal_(Tensor(a!) self, float mean=1, float std=2, *, Generator? generator=None) -> Tensor(a!)", tags);
  register_cpu_meta<TwoParamSig, &log_normal_k>("log_normal_");
  define_op<TwoParamSig>("cauchy_(Tensor(a!) self, float median=0, float sigma=1, *, Generator? generator=None) -> Tensor(a!)", tags);
  register_cpu_meta<TwoParamSig, &cauchy_k>("cauchy_");
}

// ---------------------------------------------------------------- front functions
#define EMBER_RANDOM_OP(Sig, name) static const TypedOp<Sig> op(name)

Tensor& uniform_(Tensor& t, double from, double to, Generator* gen) {
  EMBER_RANDOM_OP(TwoParamSig, "uniform_");
  return op.call(t, from, to, gen);
}
Tensor& normal_(Tensor& t, double mean, double std, Generator* gen) {
  EMBER_RANDOM_OP(TwoParamSig, "normal_");
  return op.call(t, mean, std, gen);
}
Tensor& random_(Tensor& t, int64_t from, std::optional<int64_t> to, Generator* gen) {
  EMBER_RANDOM_OP(RandomFromSig, "random_.from");
  return op.call(t, from, to, gen);
}
Tensor& random_(Tensor& t, int64_t from, int64_t to, Generator* gen) {
  return random_(t, from, std::optional<int64_t>(to), gen);
}
Tensor& random_(Tensor& t, int64_t to, Generator* gen) {
  EMBER_RANDOM_OP(RandomToSig, "random_.to");
  return op.call(t, to, gen);
}
Tensor& random_(Tensor& t, Generator* gen) {
  EMBER_RANDOM_OP(RandomSig, "random_");
  return op.call(t, gen);
}
Tensor& bernoulli_(Tensor& t, double p, Generator* gen) {
  EMBER_RANDOM_OP(OneParamSig, "bernoulli_.float");
  return op.call(t, p, gen);
}
Tensor& bernoulli_(Tensor& t, const Tensor& p, Generator* gen) {
  EMBER_RANDOM_OP(BernoulliTensorSig, "bernoulli_.Tensor");
  return op.call(t, p, gen);
}
Tensor& exponential_(Tensor& t, double lambd, Generator* gen) {
  EMBER_RANDOM_OP(OneParamSig, "exponential_");
  return op.call(t, lambd, gen);
}
Tensor& geometric_(Tensor& t, double p, Generator* gen) {
  EMBER_RANDOM_OP(OneParamSig, "geometric_");
  return op.call(t, p, gen);
}
Tensor& log_normal_(Tensor& t, double mean, double std, Generator* gen) {
  EMBER_RANDOM_OP(TwoParamSig, "log_normal_");
  return op.call(t, mean, std, gen);
}
Tensor& cauchy_(Tensor& t, double median, double sigma, Generator* gen) {
  EMBER_RANDOM_OP(TwoParamSig, "cauchy_");
  return op.call(t, median, sigma, gen);
}

}  // namespace ember
