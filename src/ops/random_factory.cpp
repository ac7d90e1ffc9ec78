// Random factories as dispatcher ops: rand, randn, randint, randperm (each with the
// .generator, .out and .generator_out forms of PyTorch) and rand_like, randn_like,
// randint_like. They are composites: an empty tensor on the requested device filled by the
// in-place samplers (random.cpp), so every backend that has uniform_/normal_/random_ (or the
// CPU fallback) gets them, and Meta tensors get shapes and dtypes. Factories without tensor
// arguments always run their composite (dispatcher "Resolution").
//
// The schemas leave out `Layout? layout` (Ember has strided tensors only; the Python bindings
// accept layout=ember.strided) and `MemoryFormat? memory_format`.
#include <algorithm>
#include <utility>

#include "core/philox.h"
#include "ember/dispatch.h"
#include "ember/ops/random.h"
#include "ops/random_util.h"

namespace ember {

using namespace random_util;

namespace {

using OptDtype = std::optional<ScalarType>;
using OptDevice = std::optional<Device>;
using OptBool = std::optional<bool>;

enum class Kind { Uniform, Normal };

// Checks that a dtype can hold the distribution (before any memory is allocated or resized).
template <Kind K>
void check_dtype(ScalarType dtype) {
  if constexpr (K == Kind::Uniform) check_uniform(dtype, 0.0, 1.0);
  else check_normal(dtype, 1.0);
}

template <Kind K>
Tensor& sample(Tensor& t, Generator* gen) {
  return K == Kind::Uniform ? uniform_(t, 0.0, 1.0, gen) : normal_(t, 0.0, 1.0, gen);
}

// ---------------------------------------------------------------- rand, randn
template <Kind K>
Tensor rand_gen_c(IntArrayRef size, Generator* gen, OptDtype dtype, OptDevice device, OptBool) {
  const TensorOptions opts = options(dtype, device, get_default_dtype());
  check_dtype<K>(*opts.dtype_);
  Tensor t = empty(size, opts);
  return sample<K>(t, gen);
}
template <Kind K>
Tensor rand_c(IntArrayRef size, OptDtype dtype, OptDevice device, OptBool pin) {
  return rand_gen_c<K>(size, nullptr, dtype, device, pin);
}
template <Kind K>
Tensor& rand_gen_out_c(IntArrayRef size, Generator* gen, Tensor& out) {
  check_dtype<K>(out.dtype());
  empty(size, TensorOptions(out.dtype()).device(kMeta));  // rejects negative sizes first
  resize_out(K == Kind::Uniform ? "rand" : "randn", out, size, out.device());
  return sample<K>(out, gen);
}
template <Kind K>
Tensor& rand_out_c(IntArrayRef size, Tensor& out) {
  return rand_gen_out_c<K>(size, nullptr, out);
}

// ---------------------------------------------------------------- randint
Tensor randint_low_gen_c(int64_t low, int64_t high, IntArrayRef size, Generator* gen, OptDtype dtype,
                         OptDevice device, OptBool) {
  const TensorOptions opts = options(dtype, device, kInt64);
  check_random_range(*opts.dtype_, low, high);
  Tensor t = empty(size, opts);
  return random_(t, low, high, gen);
}
Tensor randint_low_c(int64_t low, int64_t high, IntArrayRef size, OptDtype dtype, OptDevice device, OptBool pin) {
  return randint_low_gen_c(low, high, size, nullptr, dtype, device, pin);
}
Tensor randint_gen_c(int64_t high, IntArrayRef size, Generator* gen, OptDtype dtype, OptDevice device, OptBool pin) {
  return randint_low_gen_c(0, high, size, gen, dtype, device, pin);
}
Tensor randint_c(int64_t high, IntArrayRef size, OptDtype dtype, OptDevice device, OptBool pin) {
  return randint_low_gen_c(0, high, size, nullptr, dtype, device, pin);
}
Tensor& randint_low_gen_out_c(int64_t low, int64_t high, IntArrayRef size, Generator* gen, Tensor& out) {
  check_random_range(out.dtype(), low, high);
  empty(size, TensorOptions(out.dtype()).device(kMeta));
  resize_out("randint", out, size, out.device());
  return random_(out, low, high, gen);
}
Tensor& randint_low_out_c(int64_t low, int64_t high, IntArrayRef size, Tensor& out) {
  return randint_low_gen_out_c(low, high, size, nullptr, out);
}
Tensor& randint_gen_out_c(int64_t high, IntArrayRef size, Generator* gen, Tensor& out) {
  return randint_low_gen_out_c(0, high, size, gen, out);
}
Tensor& randint_out_c(int64_t high, IntArrayRef size, Tensor& out) {
  return randint_low_gen_out_c(0, high, size, nullptr, out);
}

// ---------------------------------------------------------------- randperm
// PyTorch's checks of n against the dtype: n - 1 representable, exactly for floats.
void check_randperm(int64_t n, ScalarType dtype) {
  EMBER_CHECK(dtype != kBool && !is_complex(dtype), RuntimeError, "\"randperm\" not implemented for '", dtype, "'");
  double lo, hi;
  dtype_limits(dtype, lo, hi);
  EMBER_CHECK(static_cast<double>(n > 0 ? n - 1 : 0) <= hi, RuntimeError, "value cannot be converted to type ",
              dtype, " without overflow");
  EMBER_CHECK(dtype != kHalf || n <= 2049, RuntimeError, "n cannot be greater than 2049 for Half type.");
  EMBER_CHECK(dtype != kFloat || n <= (int64_t(1) << 24) + 1, RuntimeError,
              "n cannot be greater than 2^24+1 for Float type.");
  EMBER_CHECK(dtype != kDouble || n <= (int64_t(1) << 53) + 1, RuntimeError,
              "n cannot be greater than 2^53+1 for Double type.");
}

// Fisher-Yates into `out` (n elements, any device): draw d (for position i = n - 1 - d) comes
// from block offset + d / vpb, so the permutation depends on the seed alone.
void randperm_fill(Tensor& out, int64_t n, Generator* gen) {
  if (out.is_meta() || n == 0) return;
  const bool wide = static_cast<uint64_t>(n) > (uint64_t(1) << 32);
  const int vpb = wide ? 2 : 4;
  const uint64_t draws = static_cast<uint64_t>(n - 1);
  const PhiloxState s = gen_or_default(gen).advance((draws + vpb - 1) / vpb);
  const bool direct = out.dtype() == kInt64 && out.is_cpu() && out.is_contiguous();
  Tensor perm = direct ? out : empty({n}, kInt64);
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
  if (direct) out.bump_version();
  else out.copy_(perm);
}

Tensor randperm_gen_c(int64_t n, Generator* gen, OptDtype dtype, OptDevice device, OptBool) {
  const TensorOptions opts = options(dtype, device, kInt64);
  Tensor out = empty({n}, opts);  // rejects n < 0
  check_randperm(n, *opts.dtype_);
  randperm_fill(out, n, gen);
  return out;
}
Tensor randperm_c(int64_t n, OptDtype dtype, OptDevice device, OptBool pin) {
  return randperm_gen_c(n, nullptr, dtype, device, pin);
}
Tensor& randperm_gen_out_c(int64_t n, Generator* gen, Tensor& out) {
  EMBER_CHECK(n >= 0, RuntimeError, "n must be non-negative, got", n);
  check_randperm(n, out.dtype());
  resize_out("randperm", out, {n}, out.device());
  randperm_fill(out, n, gen);
  return out;
}
Tensor& randperm_out_c(int64_t n, Tensor& out) { return randperm_gen_out_c(n, nullptr, out); }

// ---------------------------------------------------------------- *_like
TensorOptions like(const Tensor& self, OptDtype dtype, OptDevice device) {
  return TensorOptions(dtype ? *dtype : self.dtype()).device(device ? *device : self.device());
}
template <Kind K>
Tensor rand_like_c(const Tensor& self, OptDtype dtype, OptDevice device, OptBool) {
  const TensorOptions opts = like(self, dtype, device);
  check_dtype<K>(*opts.dtype_);
  Tensor t = empty(self.sizes(), opts);
  return sample<K>(t, nullptr);
}
Tensor randint_like_low_c(const Tensor& self, int64_t low, int64_t high, OptDtype dtype, OptDevice device, OptBool) {
  const TensorOptions opts = like(self, dtype, device);
  check_random_range(*opts.dtype_, low, high);
  Tensor t = empty(self.sizes(), opts);
  return random_(t, low, high, nullptr);
}
Tensor randint_like_c(const Tensor& self, int64_t high, OptDtype dtype, OptDevice device, OptBool pin) {
  return randint_like_low_c(self, 0, high, dtype, device, pin);
}

using FactorySig = Tensor(IntArrayRef, OptDtype, OptDevice, OptBool);
using FactoryGenSig = Tensor(IntArrayRef, Generator*, OptDtype, OptDevice, OptBool);
using FactoryOutSig = Tensor&(IntArrayRef, Tensor&);
using FactoryGenOutSig = Tensor&(IntArrayRef, Generator*, Tensor&);
using RandintSig = Tensor(int64_t, IntArrayRef, OptDtype, OptDevice, OptBool);
using RandintGenSig = Tensor(int64_t, IntArrayRef, Generator*, OptDtype, OptDevice, OptBool);
using RandintLowSig = Tensor(int64_t, int64_t, IntArrayRef, OptDtype, OptDevice, OptBool);
using RandintLowGenSig = Tensor(int64_t, int64_t, IntArrayRef, Generator*, OptDtype, OptDevice, OptBool);
using RandintOutSig = Tensor&(int64_t, IntArrayRef, Tensor&);
using RandintGenOutSig = Tensor&(int64_t, IntArrayRef, Generator*, Tensor&);
using RandintLowOutSig = Tensor&(int64_t, int64_t, IntArrayRef, Tensor&);
using RandintLowGenOutSig = Tensor&(int64_t, int64_t, IntArrayRef, Generator*, Tensor&);
using RandpermSig = Tensor(int64_t, OptDtype, OptDevice, OptBool);
using RandpermGenSig = Tensor(int64_t, Generator*, OptDtype, OptDevice, OptBool);
using RandpermOutSig = Tensor&(int64_t, Tensor&);
using RandpermGenOutSig = Tensor&(int64_t, Generator*, Tensor&);
using LikeSig = Tensor(const Tensor&, OptDtype, OptDevice, OptBool);
using RandintLikeSig = Tensor(const Tensor&, int64_t, OptDtype, OptDevice, OptBool);
using RandintLikeLowSig = Tensor(const Tensor&, int64_t, int64_t, OptDtype, OptDevice, OptBool);

#define EMBER_OPTS "ScalarType? dtype=None, Device? device=None, bool? pin_memory=None"

template <Kind K>
void define_rand(const std::string& name) {
  const uint32_t tags = Tag::Random | Tag::Factory;
  define_op<FactorySig>(name + "(int[] size, *, " EMBER_OPTS ") -> Tensor", tags);
  register_composite<FactorySig, &rand_c<K>>(name);
  define_op<FactoryGenSig>(name + ".generator(int[] size, *, Generator? generator, " EMBER_OPTS ") -> Tensor", tags);
  register_composite<FactoryGenSig, &rand_gen_c<K>>(name + ".generator");
  define_op<FactoryOutSig>(name + ".out(int[] size, *, Tensor(a!) out) -> Tensor(a!)", tags);
  register_composite<FactoryOutSig, &rand_out_c<K>>(name + ".out");
  define_op<FactoryGenOutSig>(name + ".generator_out(int[] size, *, Generator? generator, Tensor(a!) out) -> Tensor(a!)",
                              tags);
  register_composite<FactoryGenOutSig, &rand_gen_out_c<K>>(name + ".generator_out");
  define_op<LikeSig>(name + "_like(Tensor self, *, " EMBER_OPTS ") -> Tensor", tags | Tag::FunctionOnly);
  register_composite<LikeSig, &rand_like_c<K>>(name + "_like");
}

}  // namespace

EMBER_REGISTER(random_factory_ops) {
  const uint32_t tags = Tag::Random | Tag::Factory;
  define_rand<Kind::Uniform>("rand");
  define_rand<Kind::Normal>("randn");

  define_op<RandintSig>("randint(int high, int[] size, *, " EMBER_OPTS ") -> Tensor", tags);
  register_composite<RandintSig, &randint_c>("randint");
  define_op<RandintGenSig>("randint.generator(int high, int[] size, *, Generator? generator, " EMBER_OPTS ") -> Tensor",
                           tags);
  register_composite<RandintGenSig, &randint_gen_c>("randint.generator");
  define_op<RandintLowSig>("randint.low(int low, int high, int[] size, *, " EMBER_OPTS ") -> Tensor", tags);
  register_composite<RandintLowSig, &randint_low_c>("randint.low");
  define_op<RandintLowGenSig>("randint.low_generator(int low, int high, int[] size, *, Generator? generator, "
                              EMBER_OPTS ") -> Tensor", tags);
  register_composite<RandintLowGenSig, &randint_low_gen_c>("randint.low_generator");
  define_op<RandintOutSig>("randint.out(int high, int[] size, *, Tensor(a!) out) -> Tensor(a!)", tags);
  register_composite<RandintOutSig, &randint_out_c>("randint.out");
  define_op<RandintGenOutSig>("randint.generator_out(int high, int[] size, *, Generator? generator, Tensor(a!) out) "
                              "-> Tensor(a!)", tags);
  register_composite<RandintGenOutSig, &randint_gen_out_c>("randint.generator_out");
  define_op<RandintLowOutSig>("randint.low_out(int low, int high, int[] size, *, Tensor(a!) out) -> Tensor(a!)", tags);
  register_composite<RandintLowOutSig, &randint_low_out_c>("randint.low_out");
  define_op<RandintLowGenOutSig>("randint.low_generator_out(int low, int high, int[] size, *, Generator? generator, "
                                 "Tensor(a!) out) -> Tensor(a!)", tags);
  register_composite<RandintLowGenOutSig, &randint_low_gen_out_c>("randint.low_generator_out");
  // torch.*_like have no Tensor methods.
  const uint32_t like_tags = tags | Tag::FunctionOnly;
  define_op<RandintLikeSig>("randint_like(Tensor self, int high, *, " EMBER_OPTS ") -> Tensor", like_tags);
  register_composite<RandintLikeSig, &randint_like_c>("randint_like");
  define_op<RandintLikeLowSig>("randint_like.low_dtype(Tensor self, int low, int high, *, " EMBER_OPTS ") -> Tensor",
                               like_tags);
  register_composite<RandintLikeLowSig, &randint_like_low_c>("randint_like.low_dtype");

  define_op<RandpermSig>("randperm(int n, *, " EMBER_OPTS ") -> Tensor", tags);
  register_composite<RandpermSig, &randperm_c>("randperm");
  define_op<RandpermGenSig>("randperm.generator(int n, *, Generator? generator, " EMBER_OPTS ") -> Tensor", tags);
  register_composite<RandpermGenSig, &randperm_gen_c>("randperm.generator");
  define_op<RandpermOutSig>("randperm.out(int n, *, Tensor(a!) out) -> Tensor(a!)", tags);
  register_composite<RandpermOutSig, &randperm_out_c>("randperm.out");
  define_op<RandpermGenOutSig>("randperm.generator_out(int n, *, Generator? generator, Tensor(a!) out) -> Tensor(a!)",
                               tags);
  register_composite<RandpermGenOutSig, &randperm_gen_out_c>("randperm.generator_out");
}

// ---------------------------------------------------------------- front functions
#define EMBER_RANDOM_OP(Sig, name) static const TypedOp<Sig> op(name)

Tensor rand(IntArrayRef sizes, Generator* gen, TensorOptions opts) {
  EMBER_RANDOM_OP(FactoryGenSig, "rand.generator");
  return op.call(sizes, gen, opts.dtype_, opts.device_, std::nullopt);
}
Tensor randn(IntArrayRef sizes, Generator* gen, TensorOptions opts) {
  EMBER_RANDOM_OP(FactoryGenSig, "randn.generator");
  return op.call(sizes, gen, opts.dtype_, opts.device_, std::nullopt);
}
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, Generator* gen, TensorOptions opts) {
  EMBER_RANDOM_OP(RandintLowGenSig, "randint.low_generator");
  return op.call(low, high, sizes, gen, opts.dtype_, opts.device_, std::nullopt);
}
Tensor randint(int64_t high, IntArrayRef sizes, Generator* gen, TensorOptions opts) {
  return randint(0, high, sizes, gen, opts);
}
Tensor randperm(int64_t n, Generator* gen, TensorOptions opts) {
  EMBER_RANDOM_OP(RandpermGenSig, "randperm.generator");
  return op.call(n, gen, opts.dtype_, opts.device_, std::nullopt);
}
Tensor& rand_out(Tensor& out, IntArrayRef size, Generator* gen) {
  EMBER_RANDOM_OP(FactoryGenOutSig, "rand.generator_out");
  return op.call(size, gen, out);
}
Tensor& randn_out(Tensor& out, IntArrayRef size, Generator* gen) {
  EMBER_RANDOM_OP(FactoryGenOutSig, "randn.generator_out");
  return op.call(size, gen, out);
}
Tensor& randint_out(Tensor& out, int64_t low, int64_t high, IntArrayRef size, Generator* gen) {
  EMBER_RANDOM_OP(RandintLowGenOutSig, "randint.low_generator_out");
  return op.call(low, high, size, gen, out);
}
Tensor& randperm_out(Tensor& out, int64_t n, Generator* gen) {
  EMBER_RANDOM_OP(RandpermGenOutSig, "randperm.generator_out");
  return op.call(n, gen, out);
}

// rand_like and randn_like take no generator in PyTorch's schema: with one, the same
// composite runs without the dispatcher entry point.
Tensor rand_like(const Tensor& t, TensorOptions opts) {
  EMBER_RANDOM_OP(LikeSig, "rand_like");
  return op.call(t, opts.dtype_, opts.device_, std::nullopt);
}
Tensor randn_like(const Tensor& t, TensorOptions opts) {
  EMBER_RANDOM_OP(LikeSig, "randn_like");
  return op.call(t, opts.dtype_, opts.device_, std::nullopt);
}
Tensor rand_like(const Tensor& t, Generator* gen) {
  if (!gen) return rand_like(t, TensorOptions());
  return rand(t.sizes(), gen, TensorOptions(t.dtype()).device(t.device()));
}
Tensor randn_like(const Tensor& t, Generator* gen) {
  if (!gen) return randn_like(t, TensorOptions());
  return randn(t.sizes(), gen, TensorOptions(t.dtype()).device(t.device()));
}
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, TensorOptions opts) {
  EMBER_RANDOM_OP(RandintLikeLowSig, "randint_like.low_dtype");
  return op.call(t, low, high, opts.dtype_, opts.device_, std::nullopt);
}
Tensor randint_like(const Tensor& t, int64_t high, TensorOptions opts) {
  EMBER_RANDOM_OP(RandintLikeSig, "randint_like");
  return op.call(t, high, opts.dtype_, opts.device_, std::nullopt);
}

}  // namespace ember
