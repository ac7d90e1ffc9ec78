// Sampling ops with tensor parameters: normal (mean and/or std as tensors, or a size),
// bernoulli (functional and out=), poisson and multinomial. normal and bernoulli are
// composites of the in-place samplers and pointwise ops, so every backend and Meta get them;
// poisson and multinomial have CPU kernels (backends/cpu/kernels/random_dist.cpp) whose
// Meta form computes shapes and dtypes only.
#include <cmath>

#include "autograd/out_check.h"
#include "core/convert.h"
#include "core/dtype_dispatch.h"
#include "ember/dispatch.h"
#include "ember/ops/random.h"
#include "ops/iter.h"
#include "ops/random_util.h"

namespace ember {

using namespace random_util;

namespace {

using OptDtype = std::optional<ScalarType>;
using OptDevice = std::optional<Device>;
using OptBool = std::optional<bool>;

// A CPU copy of t (contiguous), for reading values of a tensor on any device.
Tensor cpu_contiguous(const Tensor& t) { return t.is_cpu() ? t.contiguous() : t.to(kCPU).contiguous(); }

// ---------------------------------------------------------------- normal
void check_std_scalar(double std) {
  EMBER_CHECK(std >= 0.0, RuntimeError, "normal expects std >= 0.0, but found std ", std);
}

// Every element >= 0 (NaN fails); values are not read on Meta.
void check_std_tensor(const Tensor& std) {
  EMBER_CHECK(!std.is_complex(), RuntimeError, "normal expects standard deviation to be non-complex");
  if (std.is_meta() || std.numel() == 0) return;
  Tensor d = cpu_contiguous(std).to(kDouble);
  const double* v = d.data_ptr<double>();
  bool ok = true;
  for (int64_t i = 0, n = d.numel(); i < n && ok; ++i) ok = v[i] >= 0.0;
  EMBER_CHECK(ok, RuntimeError, "normal expects all elements of std >= 0.0");
}

// out (resized to `shape`) = mean + std * z with z standard normal; a null mean or std tensor
// stands for the number given instead. Everything that can fail is checked before `out` is
// touched; an `out` that shares memory with mean or std is computed through a temporary.
Tensor& normal_into(Tensor& out, const Tensor* mean_t, double mean, const Tensor* std_t, double std,
                    IntArrayRef shape, Generator* gen) {
  check_normal(out.dtype(), std_t ? 1.0 : std);
  for (const Tensor* t : {mean_t, std_t}) {
    if (!t) continue;
    const ScalarType r = promote_types(out.dtype(), t->dtype());
    EMBER_CHECK(can_cast(r, out.dtype()), RuntimeError, "result type ", r, " can't be cast to the desired output type ",
                out.dtype());
  }
  resize_out("normal", out, shape, out.device());
  const bool overlaps = (mean_t && out.is_alias_of(*mean_t)) || (std_t && out.is_alias_of(*std_t));
  Tensor target = overlaps ? empty(shape, TensorOptions(out.dtype()).device(out.device())) : out;
  normal_(target, 0.0, std_t ? 1.0 : std, gen);
  if (std_t) target.mul_(*std_t);
  if (mean_t) target.add_(*mean_t);
  else if (mean != 0.0) target.add_(Scalar(mean));
  if (overlaps) out.copy_(target);
  return out;
}

TensorOptions like(const Tensor& t) { return TensorOptions(t.dtype()).device(t.device()); }

Tensor normal_tf_c(const Tensor& mean, double std, Generator* gen) {
  check_std_scalar(std);
  // As PyTorch: no autograd for complex normal.
  EMBER_CHECK(!(mean.is_complex() && autograd::GradMode::is_enabled() && autograd::requires_grad(mean)), RuntimeError,
              "normal does not support automatic differentiation for outputs with complex dtype.");
  Tensor out = empty(mean.sizes(), like(mean));
  return normal_into(out, &mean, 0.0, nullptr, std, mean.sizes(), gen);
}
// As PyTorch 1.13: the result's shape broadcasts mean with out's current shape.
Tensor& normal_tf_out_c(const Tensor& mean, double std, Generator* gen, Tensor& out) {
  check_std_scalar(std);
  const DimVector shape = broadcast_shapes(mean.sizes(), out.sizes());
  return normal_into(out, &mean, 0.0, nullptr, std, shape, gen);
}
Tensor normal_ft_c(double mean, const Tensor& std, Generator* gen) {
  check_std_tensor(std);
  Tensor out = empty(std.sizes(), like(std));
  return normal_into(out, nullptr, mean, &std, 1.0, std.sizes(), gen);
}
Tensor& normal_ft_out_c(double mean, const Tensor& std, Generator* gen, Tensor& out) {
  check_std_tensor(std);
  return normal_into(out, nullptr, mean, &std, 1.0, std.sizes(), gen);
}
Tensor normal_tt_c(const Tensor& mean, const Tensor& std, Generator* gen) {
  check_std_tensor(std);
  const DimVector shape = broadcast_shapes(mean.sizes(), std.sizes());
  Tensor out = empty(shape, like(mean));
  return normal_into(out, &mean, 0.0, &std, 1.0, shape, gen);
}
Tensor& normal_tt_out_c(const Tensor& mean, const Tensor& std, Generator* gen, Tensor& out) {
  autograd::check_out_inputs("normal", {mean, std});
  check_std_tensor(std);
  const DimVector shape = broadcast_shapes(mean.sizes(), std.sizes());
  return normal_into(out, &mean, 0.0, &std, 1.0, shape, gen);
}
Tensor normal_ff_c(double mean, double std, IntArrayRef size, Generator* gen, OptDtype dtype, OptDevice device,
                   OptBool) {
  Tensor out = empty(size, options(dtype, device, get_default_dtype()));
  return normal_(out, mean, std, gen);
}
Tensor& normal_ff_out_c(double mean, double std, IntArrayRef size, Generator* gen, Tensor& out) {
  check_normal(out.dtype(), std);
  empty(size, TensorOptions(out.dtype()).device(kMeta));  // rejects negative sizes first
  resize_out("normal", out, size, out.device());
  return normal_(out, mean, std, gen);
}

// ---------------------------------------------------------------- bernoulli
void check_bernoulli_tensor_dtypes(ScalarType self, ScalarType p) {
  EMBER_CHECK(!is_complex(self) && self != kHalf, RuntimeError, "\"bernoulli_tensor_cpu_self_\" not implemented for '",
              self, "'");
  EMBER_CHECK(p == kFloat || p == kDouble || p == kBFloat16, RuntimeError,
              "\"bernoulli_tensor_cpu_p_\" not implemented for '", p, "'");
}

Tensor bernoulli_c(const Tensor& self, Generator* gen) {
  Tensor out = empty(self.sizes(), like(self));
  return bernoulli_(out, self, gen);
}
Tensor& bernoulli_out_c(const Tensor& self, Generator* gen, Tensor& out) {
  autograd::check_out_inputs("bernoulli", {self});
  check_bernoulli_tensor_dtypes(out.dtype(), self.dtype());
  if (!self.is_meta() && self.numel() > 0) check_probabilities(self);
  resize_out("bernoulli", out, self.sizes(), self.device());
  return bernoulli_(out, self, gen);
}
Tensor bernoulli_p_c(const Tensor& self, double p, Generator* gen) {
  Tensor out = empty(self.sizes(), like(self));
  return bernoulli_(out, p, gen);
}

// ---------------------------------------------------------------- poisson
template <typename T>
double as_double(T v) {
  return static_cast<double>(static_cast<opmath_t<T>>(v));
}

Tensor poisson_k(const Tensor& self, Generator* gen) {
  const ScalarType dtype = self.dtype();
  EMBER_CHECK(dtype == kFloat || dtype == kDouble || dtype == kBFloat16, RuntimeError,
              "\"poisson_cpu\" not implemented for '", dtype, "'");
  Tensor out = empty(self.sizes(), like(self));
  if (self.is_meta() || self.numel() == 0) return out;
  Tensor rates = self.contiguous();
  bool ok = true;
  EMBER_DISPATCH_FLOATING(dtype, "poisson", [&] {
    const scalar_t* r = rates.data_ptr<scalar_t>();
    for (int64_t i = 0, n = rates.numel(); i < n && ok; ++i) ok = as_double(r[i]) >= 0.0;  // NaN fails
  });
  EMBER_CHECK(ok, RuntimeError, "invalid Poisson rate, expected rate to be non-negative");
  const int64_t n = out.numel();
  const PhiloxState s = gen_or_default(gen).advance(static_cast<uint64_t>(n));  // one counter per element
  cpu::poisson_stub(out.data_ptr(), rates.data_ptr(), dtype, n, s.seed, s.offset);
  return out;
}

// ---------------------------------------------------------------- multinomial
constexpr int64_t kMaxCategories = int64_t(1) << 24;  // PyTorch's limit (float index precision)

void check_prob_dist(const Tensor& self) {
  EMBER_CHECK(self.dim() > 0 && self.dim() <= 2, RuntimeError, "prob_dist must be 1 or 2 dim");
  EMBER_CHECK(is_floating_point(self.dtype()), RuntimeError,
              "multinomial only supports floating-point dtypes for input, got: ", self.dtype());
}

void check_samples(const Tensor& self, int64_t n_sample, bool replacement) {
  EMBER_CHECK(n_sample > 0, RuntimeError, "cannot sample n_sample <= 0 samples");
  const int64_t cats = self.size(-1);
  EMBER_CHECK(replacement || n_sample <= cats, RuntimeError,
              "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  EMBER_CHECK(cats <= kMaxCategories, RuntimeError, "number of categories cannot exceed 2^24");
  EMBER_CHECK(self.dtype() != kHalf, RuntimeError, "multinomial is not implemented for half on CPU");
}

int64_t rows_of(const Tensor& self) { return self.dim() == 2 ? self.size(0) : 1; }

// The weights as a contiguous CPU tensor after checking each row: finite, >= 0, with a
// positive sum (PyTorch words the errors differently with and without replacement).
// Undefined when there is nothing to draw (Meta, no rows).
Tensor checked_weights(const Tensor& self, bool replacement) {
  const int64_t rows = rows_of(self), cats = self.size(-1);
  if (self.is_meta() || rows == 0) return Tensor();
  Tensor w = cpu_contiguous(self);
  enum Problem { kNone, kNegative, kNonFinite, kZeroSum } problem = kNone;
  EMBER_DISPATCH_FLOATING(w.dtype(), "multinomial", [&] {
    const scalar_t* p = w.data_ptr<scalar_t>();
    for (int64_t r = 0; r < rows && problem == kNone; ++r) {
      double sum = 0;
      for (int64_t j = 0; j < cats; ++j) {
        const double x = as_double(p[r * cats + j]);
        if (!(x >= 0)) { problem = kNegative; break; }
        if (!std::isfinite(x)) { problem = kNonFinite; break; }
        sum += x;
      }
      if (problem == kNone && !(sum > 0)) problem = kZeroSum;
    }
  });
  if (problem == kNone) return w;
  EMBER_CHECK(problem == kZeroSum, RuntimeError,
              !replacement ? "probability tensor contains either `inf`, `nan` or element < 0"
              : problem == kNegative ? "invalid multinomial distribution (encountering probability entry < 0)"
                                     : "invalid multinomial distribution (encountering probability entry = infinity or NaN)");
  EMBER_FAIL(RuntimeError, "invalid multinomial distribution (sum of probabilities <= 0)");
}

DimVector multinomial_shape(const Tensor& self, int64_t n_sample) {
  if (self.dim() == 1) return {n_sample};
  return {self.size(0), n_sample};
}

// Draws into `out` (of the result's shape, int64) from the checked weights `w`.
void multinomial_draw(Tensor& out, const Tensor& w, int64_t n_sample, bool replacement, Generator* gen) {
  if (!w.defined()) return;
  const int64_t rows = rows_of(w), cats = w.size(-1);
  const bool direct = out.is_cpu() && out.is_contiguous();
  Tensor target = direct ? out : empty(out.sizes(), kInt64);
  const PhiloxState s = gen_or_default(gen).advance(static_cast<uint64_t>(rows));  // one counter per row
  cpu::multinomial_stub(target.data_ptr<int64_t>(), w.data_ptr(), w.dtype(), rows, cats, n_sample, replacement,
                        s.seed, s.offset);
  if (direct) out.bump_version();
  else out.copy_(target);
}

Tensor multinomial_k(const Tensor& self, int64_t n_sample, bool replacement, Generator* gen) {
  check_prob_dist(self);
  check_samples(self, n_sample, replacement);
  const Tensor w = checked_weights(self, replacement);
  Tensor out = empty(multinomial_shape(self, n_sample), TensorOptions(kInt64).device(self.device()));
  multinomial_draw(out, w, n_sample, replacement, gen);
  return out;
}

Tensor& multinomial_out_k(const Tensor& self, int64_t n_sample, bool replacement, Generator* gen, Tensor& out) {
  EMBER_CHECK(out.device() == self.device(), RuntimeError, "multinomial arguments must have the same device");
  check_prob_dist(self);
  EMBER_CHECK(out.dtype() == kInt64, RuntimeError, "multinomial expects Long tensor out, got: ", out.dtype());
  check_samples(self, n_sample, replacement);
  const Tensor w = checked_weights(self, replacement);
  resize_out("multinomial", out, multinomial_shape(self, n_sample), self.device());
  multinomial_draw(out, w, n_sample, replacement, gen);
  return out;
}

using NormalTFSig = Tensor(const Tensor&, double, Generator*);
using NormalTFOutSig = Tensor&(const Tensor&, double, Generator*, Tensor&);
using NormalFTSig = Tensor(double, const Tensor&, Generator*);
using NormalFTOutSig = Tensor&(double, const Tensor&, Generator*, Tensor&);
using NormalTTSig = Tensor(const Tensor&, const Tensor&, Generator*);
using NormalTTOutSig = Tensor&(const Tensor&, const Tensor&, Generator*, Tensor&);
using NormalFFSig = Tensor(double, double, IntArrayRef, Generator*, OptDtype, OptDevice, OptBool);
using NormalFFOutSig = Tensor&(double, double, IntArrayRef, Generator*, Tensor&);
using BernoulliSig = Tensor(const Tensor&, Generator*);
using BernoulliOutSig = Tensor&(const Tensor&, Generator*, Tensor&);
using BernoulliPSig = Tensor(const Tensor&, double, Generator*);
using PoissonSig = Tensor(const Tensor&, Generator*);
using MultinomialSig = Tensor(const Tensor&, int64_t, bool, Generator*);
using MultinomialOutSig = Tensor&(const Tensor&, int64_t, bool, Generator*, Tensor&);

}  // namespace

EMBER_REGISTER(random_dist_ops) {
  const uint32_t tags = static_cast<uint32_t>(Tag::Random);
  // Overloads are tried in this order from Python: tensors bind only to Tensor parameters.
  define_op<NormalTFSig>("normal.Tensor_float(Tensor mean, float std=1, *, Generator? generator=None) -> Tensor", tags);
  register_composite<NormalTFSig, &normal_tf_c>("normal.Tensor_float");
  define_op<NormalTFOutSig>("normal.Tensor_float_out(Tensor mean, float std=1, *, Generator? generator=None, "
                            "Tensor(a!) out) -> Tensor(a!)", tags);
  register_composite<NormalTFOutSig, &normal_tf_out_c>("normal.Tensor_float_out");
  define_op<NormalFTSig>("normal.float_Tensor(float mean, Tensor std, *, Generator? generator=None) -> Tensor", tags);
  register_composite<NormalFTSig, &normal_ft_c>("normal.float_Tensor");
  define_op<NormalFTOutSig>("normal.float_Tensor_out(float mean, Tensor std, *, Generator? generator=None, "
                            "Tensor(a!) out) -> Tensor(a!)", tags);
  register_composite<NormalFTOutSig, &normal_ft_out_c>("normal.float_Tensor_out");
  define_op<NormalTTSig>("normal.Tensor_Tensor(Tensor mean, Tensor std, *, Generator? generator=None) -> Tensor", tags);
  register_composite<NormalTTSig, &normal_tt_c>("normal.Tensor_Tensor");
  define_op<NormalTTOutSig>("normal.Tensor_Tensor_out(Tensor mean, Tensor std, *, Generator? generator=None, "
                            "Tensor(a!) out) -> Tensor(a!)", tags);
  register_composite<NormalTTOutSig, &normal_tt_out_c>("normal.Tensor_Tensor_out");
  define_op<NormalFFSig>("normal.float_float(float mean, float std, int[] size, *, Generator? generator=None, "
                         "ScalarType? dtype=None, Device? device=None, bool? pin_memory=None) -> Tensor",
                         tags | Tag::Factory);
  register_composite<NormalFFSig, &normal_ff_c>("normal.float_float");
  define_op<NormalFFOutSig>("normal.float_float_out(float mean, float std, int[] size, *, Generator? generator=None, "
                            "Tensor(a!) out) -> Tensor(a!)", tags | Tag::Factory);
  register_composite<NormalFFOutSig, &normal_ff_out_c>("normal.float_float_out");

  define_op<BernoulliSig>("bernoulli(Tensor self, *, Generator? generator=None) -> Tensor", tags);
  register_composite<BernoulliSig, &bernoulli_c>("bernoulli");
  define_op<BernoulliOutSig>("bernoulli.out(Tensor self, *, Generator? generator=None, Tensor(a!) out) -> Tensor(a!)",
                             tags);
  register_composite<BernoulliOutSig, &bernoulli_out_c>("bernoulli.out");
  define_op<BernoulliPSig>("bernoulli.p(Tensor self, float p, *, Generator? generator=None) -> Tensor", tags);
  register_composite<BernoulliPSig, &bernoulli_p_c>("bernoulli.p");

  // torch.poisson has no Tensor method.
  define_op<PoissonSig>("poisson(Tensor self, Generator? generator=None) -> Tensor", tags | Tag::FunctionOnly);
  register_cpu_meta<PoissonSig, &poisson_k>("poisson");
  define_op<MultinomialSig>("multinomial(Tensor self, int num_samples, bool replacement=False, *, "
                            "Generator? generator=None) -> Tensor", tags);
  register_cpu_meta<MultinomialSig, &multinomial_k>("multinomial");
  define_op<MultinomialOutSig>("multinomial.out(Tensor self, int num_samples, bool replacement=False, *, "
                               "Generator? generator=None, Tensor(a!) out) -> Tensor(a!)", tags);
  register_cpu_meta<MultinomialOutSig, &multinomial_out_k>("multinomial.out");
}

// ---------------------------------------------------------------- front functions
#define EMBER_RANDOM_OP(Sig, name) static const TypedOp<Sig> op(name)

Tensor normal(const Tensor& mean, double std, Generator* gen) {
  EMBER_RANDOM_OP(NormalTFSig, "normal.Tensor_float");
  return op.call(mean, std, gen);
}
Tensor normal(double mean, const Tensor& std, Generator* gen) {
  EMBER_RANDOM_OP(NormalFTSig, "normal.float_Tensor");
  return op.call(mean, std, gen);
}
Tensor normal(const Tensor& mean, const Tensor& std, Generator* gen) {
  EMBER_RANDOM_OP(NormalTTSig, "normal.Tensor_Tensor");
  return op.call(mean, std, gen);
}
Tensor normal(double mean, double std, IntArrayRef size, Generator* gen, TensorOptions opts) {
  EMBER_RANDOM_OP(NormalFFSig, "normal.float_float");
  return op.call(mean, std, size, gen, opts.dtype_, opts.device_, std::nullopt);
}
Tensor& normal_out(Tensor& out, const Tensor& mean, double std, Generator* gen) {
  EMBER_RANDOM_OP(NormalTFOutSig, "normal.Tensor_float_out");
  return op.call(mean, std, gen, out);
}
Tensor& normal_out(Tensor& out, double mean, const Tensor& std, Generator* gen) {
  EMBER_RANDOM_OP(NormalFTOutSig, "normal.float_Tensor_out");
  return op.call(mean, std, gen, out);
}
Tensor& normal_out(Tensor& out, const Tensor& mean, const Tensor& std, Generator* gen) {
  EMBER_RANDOM_OP(NormalTTOutSig, "normal.Tensor_Tensor_out");
  return op.call(mean, std, gen, out);
}
Tensor& normal_out(Tensor& out, double mean, double std, IntArrayRef size, Generator* gen) {
  EMBER_RANDOM_OP(NormalFFOutSig, "normal.float_float_out");
  return op.call(mean, std, size, gen, out);
}
Tensor bernoulli(const Tensor& p, Generator* gen) {
  EMBER_RANDOM_OP(BernoulliSig, "bernoulli");
  return op.call(p, gen);
}
Tensor& bernoulli_out(Tensor& out, const Tensor& p, Generator* gen) {
  EMBER_RANDOM_OP(BernoulliOutSig, "bernoulli.out");
  return op.call(p, gen, out);
}
Tensor bernoulli(const Tensor& self, double p, Generator* gen) {
  EMBER_RANDOM_OP(BernoulliPSig, "bernoulli.p");
  return op.call(self, p, gen);
}
Tensor poisson(const Tensor& rates, Generator* gen) {
  EMBER_RANDOM_OP(PoissonSig, "poisson");
  return op.call(rates, gen);
}
Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement, Generator* gen) {
  EMBER_RANDOM_OP(MultinomialSig, "multinomial");
  return op.call(self, num_samples, replacement, gen);
}
Tensor& multinomial_out(Tensor& out, const Tensor& self, int64_t num_samples, bool replacement, Generator* gen) {
  EMBER_RANDOM_OP(MultinomialOutSig, "multinomial.out");
  return op.call(self, num_samples, replacement, gen, out);
}

}  // namespace ember
