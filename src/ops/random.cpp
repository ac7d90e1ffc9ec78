// Random ops: rand, randn, randint, randperm, bernoulli and the in-place uniform_, normal_,
// random_, bernoulli_. Arguments are checked as PyTorch checks them; the CPU kernels fill
// contiguous memory from the Philox stream of the generator (backends/cpu/kernels/random.cpp).
// Meta tensors only get the checks; other devices are filled on the CPU and copied.
//
// These are plain functions rather than dispatcher ops: a Generator* cannot travel in a boxed
// IValue yet.
#include <cfloat>
#include <cmath>
#include <vector>

#include "backends/cpu/stubs.h"
#include "core/dtype_dispatch.h"
#include "core/philox.h"
#include "ember/ops.h"
#include "ember/random.h"

namespace ember {

namespace {

Generator& gen_or_default(Generator* g) { return g ? *g : default_generator(); }

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

// Fills `self` in place (complex tensors through their real view). Strided or non-CPU
// tensors are filled through a contiguous CPU temporary.
Tensor& fill_random(Tensor& self, const cpu::RandomParams& p, Generator* gen) {
  if (self.is_meta() || self.numel() == 0) return self;
  Tensor target = self.is_complex() ? self.view_as_real() : self;
  if (target.is_cpu() && target.is_contiguous()) {
    fill_contiguous(target, p, gen);
    self.bump_version();
  } else {
    Tensor tmp = empty(target.sizes(), target.dtype());
    fill_contiguous(tmp, p, gen);
    target.copy_(tmp);
  }
  return self;
}

bool is_float_or_complex(ScalarType t) { return is_floating_point(t) || is_complex(t); }

// The finite range of a real dtype, as doubles.
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
  EMBER_CHECK(is_float_or_complex(dtype), RuntimeError, "\"normal_kernel_cpu\" not implemented for '", dtype, "'");
  EMBER_CHECK(std >= 0.0, RuntimeError, "normal expects std >= 0.0, but found std ", std);
}

// random_(from, to): [from, to) must be non-empty and representable in the dtype.
void check_random_range(ScalarType dtype, int64_t from, int64_t to) {
  EMBER_CHECK(from < to, RuntimeError, "random_ expects 'from' to be less than 'to', but got from=", from,
              " >= to=", to);
  EMBER_CHECK(!is_complex(dtype), RuntimeError,
              "check_random_bounds handles only integral, floating-point and boolean types");
  double lo, hi;
  dtype_limits(dtype, lo, hi);
  EMBER_CHECK(static_cast<double>(from) >= lo, RuntimeError, "from is out of bounds for ", dtype);
  EMBER_CHECK(static_cast<double>(to - 1) <= hi, RuntimeError, "to - 1 is out of bounds for ", dtype);
}

void check_bernoulli_self(ScalarType dtype, const char* kernel) {
  EMBER_CHECK(!is_complex(dtype) && dtype != kHalf, RuntimeError, "\"", kernel, "\" not implemented for '",
              dtype, "'");
}

// PyTorch's message for a probability tensor with values outside [0, 1] (or NaN).
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

TensorOptions with_default(TensorOptions opts, ScalarType dtype) {
  return opts.dtype_ ? opts : opts.dtype(dtype);
}

}  // namespace

// ---------------------------------------------------------------- in place
Tensor& uniform_(Tensor& t, double from, double to, Generator* gen) {
  check_uniform(t.dtype(), from, to);
  cpu::RandomParams p;
  p.dist = cpu::RandomDist::Uniform;
  p.a = from;
  p.b = to;
  return fill_random(t, p, gen);
}

Tensor& normal_(Tensor& t, double mean, double std, Generator* gen) {
  check_normal(t.dtype(), std);
  cpu::RandomParams p;
  p.dist = cpu::RandomDist::Normal;
  p.a = mean;
  // A complex normal of variance std^2 splits it evenly between the real and imaginary parts.
  p.b = t.is_complex() ? std / std::sqrt(2.0) : std;
  return fill_random(t, p, gen);
}

Tensor& random_(Tensor& t, int64_t from, int64_t to, Generator* gen) {
  check_random_range(t.dtype(), from, to);
  cpu::RandomParams p;
  p.dist = cpu::RandomDist::Randint;
  p.low = from;
  p.range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
  return fill_random(t, p, gen);
}

Tensor& bernoulli_(Tensor& t, double prob, Generator* gen) {
  check_bernoulli_self(t.dtype(), "bernoulli_scalar_cpu_");
  EMBER_CHECK(prob >= 0 && prob <= 1, RuntimeError, "bernoulli_ expects p to be in [0, 1], but got p=", prob);
  cpu::RandomParams p;
  p.dist = cpu::RandomDist::Bernoulli;
  p.a = prob;
  return fill_random(t, p, gen);
}

Tensor& bernoulli_(Tensor& t, const Tensor& prob, Generator* gen) {
  check_bernoulli_self(t.dtype(), "bernoulli_tensor_cpu_self_");
  const ScalarType pt = prob.dtype();
  EMBER_CHECK(pt == kFloat || pt == kDouble || pt == kBFloat16, RuntimeError,
              "\"bernoulli_tensor_cpu_p_\" not implemented for '", pt, "'");
  Tensor pe = prob.expand(t.sizes());  // the error names both shapes
  if (t.is_meta() || prob.is_meta() || t.numel() == 0) return t;
  check_probabilities(pe);
  Tensor pc = pe.is_cpu() ? pe.contiguous() : pe.to(kCPU).contiguous();
  const bool direct = t.is_cpu() && t.is_contiguous();
  Tensor out = direct ? t : empty(t.sizes(), t.dtype());
  const int64_t n = out.numel();
  const PhiloxState s = gen_or_default(gen).advance((static_cast<uint64_t>(n) + 3) / 4);
  cpu::bernoulli_tensor_stub(out.data_ptr(), out.dtype(), pc.data_ptr(), pc.dtype(), n, s.seed, s.offset);
  if (direct) t.bump_version();
  else t.copy_(out);
  return t;
}

// ---------------------------------------------------------------- creating
Tensor rand(IntArrayRef sizes, Generator* gen, TensorOptions opts) {
  opts = with_default(opts, get_default_dtype());
  check_uniform(*opts.dtype_, 0.0, 1.0);
  Tensor t = empty(sizes, opts);
  return uniform_(t, 0.0, 1.0, gen);
}

Tensor randn(IntArrayRef sizes, Generator* gen, TensorOptions opts) {
  opts = with_default(opts, get_default_dtype());
  check_normal(*opts.dtype_, 1.0);
  Tensor t = empty(sizes, opts);
  return normal_(t, 0.0, 1.0, gen);
}

Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, Generator* gen, TensorOptions opts) {
  opts = with_default(opts, kInt64);
  check_random_range(*opts.dtype_, low, high);
  Tensor t = empty(sizes, opts);
  return random_(t, low, high, gen);
}

Tensor randint(int64_t high, IntArrayRef sizes, Generator* gen, TensorOptions opts) {
  return randint(0, high, sizes, gen, opts);
}

Tensor rand_like(const Tensor& t, Generator* gen) {
  return rand(t.sizes(), gen, TensorOptions(t.dtype()).device(t.device()));
}

Tensor randn_like(const Tensor& t, Generator* gen) {
  return randn(t.sizes(), gen, TensorOptions(t.dtype()).device(t.device()));
}

Tensor bernoulli(const Tensor& p, Generator* gen) {
  Tensor out = empty(p.sizes(), TensorOptions(p.dtype()).device(p.device()));
  return bernoulli_(out, p, gen);
}

Tensor randperm(int64_t n, Generator* gen, TensorOptions opts) {
  opts = with_default(opts, kInt64);
  const ScalarType dtype = *opts.dtype_;
  Tensor out = empty({n}, opts);  // rejects n < 0
  EMBER_CHECK(dtype != kBool && !is_complex(dtype), RuntimeError, "\"randperm\" not implemented for '", dtype, "'");
  // n - 1 must be representable: exactly for the float types PyTorch checks.
  double lo, hi;
  dtype_limits(dtype, lo, hi);
  EMBER_CHECK(static_cast<double>(n > 0 ? n - 1 : 0) <= hi, RuntimeError, "value cannot be converted to type ",
              dtype, " without overflow");
  EMBER_CHECK(dtype != kHalf || n <= 2049, RuntimeError, "n cannot be greater than 2049 for Half type.");
  EMBER_CHECK(dtype != kFloat || n <= (int64_t(1) << 24) + 1, RuntimeError,
              "n cannot be greater than 2^24+1 for Float type.");
  EMBER_CHECK(dtype != kDouble || n <= (int64_t(1) << 53) + 1, RuntimeError,
              "n cannot be greater than 2^53+1 for Double type.");
  if (out.is_meta() || n == 0) return out;

  // Fisher-Yates: draw d (for position i = n - 1 - d) comes from block offset + d / vpb.
  const bool wide = static_cast<uint64_t>(n) > (uint64_t(1) << 32);
  const int vpb = wide ? 2 : 4;
  const uint64_t draws = static_cast<uint64_t>(n - 1);
  const PhiloxState s = gen_or_default(gen).advance((draws + vpb - 1) / vpb);
  Tensor perm = dtype == kInt64 && out.is_cpu() ? out : empty({n}, kInt64);
  int64_t* v = perm.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) v[i] = i;
  // The swap partners depend only on the random numbers, so a batch of them is drawn first and
  // prefetched: the swaps are random accesses and would otherwise wait on memory one by one.
  constexpr uint64_t kBatch = 64;
  uint64_t js[kBatch];
  philox::Block blk{};
  for (uint64_t d0 = 0; d0 < draws; d0 += kBatch) {
    const uint64_t cnt = std::min(kBatch, draws - d0);
    for (uint64_t k = 0; k < cnt; ++k) {
      const uint64_t d = d0 + k;
      if (d % vpb == 0 || k == 0) blk = philox::block(s.seed, s.offset + d / vpb);
      const uint64_t i = static_cast<uint64_t>(n) - 1 - d;  // v[i] swaps with v[j], j in [0, i]
      if (wide) {
        const int m = static_cast<int>(d % 2);
        const uint64_t x = (static_cast<uint64_t>(blk.v[2 * m]) << 32) | blk.v[2 * m + 1];
        js[k] = static_cast<uint64_t>((static_cast<unsigned __int128>(x) * (i + 1)) >> 64);
      } else {
        js[k] = (static_cast<uint64_t>(blk.v[d % 4]) * (i + 1)) >> 32;
      }
      __builtin_prefetch(v + js[k], 1);
    }
    for (uint64_t k = 0; k < cnt; ++k) std::swap(v[static_cast<uint64_t>(n) - 1 - (d0 + k)], v[js[k]]);
  }
  if (!perm.is_same(out)) out.copy_(perm);
  return out;
}

}  // namespace ember
