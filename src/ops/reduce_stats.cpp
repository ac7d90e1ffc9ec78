// Statistical reductions: var, std, var_mean, std_mean (correction, or unbiased as in the
// 1.8-style API), norm (vector p-norms as torch.norm's numeric p) and logsumexp.
//  - var/std take floating and complex inputs and return the real dtype; a complex input's
//    variance is the sum of its real and imaginary parts' variances. The divisor is
//    max(0, n - correction), so too few elements give inf or nan as in PyTorch.
//  - norm takes floating and complex inputs (or converts to `dtype=` first) and returns the
//    real dtype; p = 0 counts non-zeros, inf and -inf take the extreme |x|.
//  - logsumexp converts integer inputs to the default float dtype; complex is rejected.
// The kernels (kernels/reduce_stats.cpp, kernels/reduce.cpp) are single-pass over memory and
// numerically stable: per-block shifts combined exactly.
#include <cmath>
#include <limits>

#include "backends/cpu/reduce_stubs.h"
#include "backends/cpu/stubs.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ops/iter.h"
#include "ops/reduce.h"

namespace ember {
namespace {

using cpu::ReduceOp;
using cpu::StatOp;

// ---------------------------------------------------------------- var, std, var_mean, std_mean
struct VarResult {
  Tensor var, mean;
};

// Runs the moments kernel over a real floating tensor: out[0] variance or std in `in`'s
// dtype (into var_out when given), out[1] the mean when `with_mean`.
VarResult run_moments(const char* name, const Tensor& in, DimMask mask, bool keepdim, double correction, StatOp op,
                      bool with_mean, const Tensor& var_out) {
  const DimVector shape = reduce_shape(in.sizes(), mask, keepdim);
  const TensorOptions opts = TensorOptions(in.dtype()).device(in.device());
  VarResult r;
  r.var = var_out.defined() && var_out.dtype() == in.dtype() && !var_out.is_alias_of(in)
              ? reduce_output(name, var_out, shape, in.dtype(), in.device()) : empty(shape, opts);
  if (with_mean) r.mean = empty(shape, opts);
  if (in.is_meta() || r.var.numel() == 0) return r;
  ReduceLoop loop = with_mean ? make_reduce_loop(in, mask, {r.var, r.mean}) : make_reduce_loop(in, mask, {r.var});
  loop.param = correction;
  cpu::stat_reduce_stub(loop, op);
  return r;
}

VarResult var_impl(const char* name, const Tensor& self, std::optional<IntArrayRef> dim,
                   std::optional<int64_t> correction, bool keepdim, bool take_sqrt, bool with_mean,
                   const Tensor& out) {
  reduce_check_device(name, self);
  EMBER_CHECK(self.is_floating_point() || self.is_complex(), RuntimeError,
              "std and var only support floating point and complex dtypes");
  const DimMask mask = reduce_mask_opt(name, dim, self.dim());
  const double corr = static_cast<double>(correction.value_or(1));
  const ScalarType real = to_real_type(self.dtype());
  if (out.defined())
    EMBER_CHECK(can_cast(real, out.dtype()), RuntimeError, name, "(): result type ", real,
                " can't be cast to the desired output type ", out.dtype());
  // A wider floating out= computes in its precision, as PyTorch does.
  if (out.defined() && is_floating_point(out.dtype()) && out.dtype() != real &&
      promote_types(real, out.dtype()) == out.dtype() && !self.is_meta()) {
    const Tensor wide = to_dtype(self, self.is_complex() ? to_complex_type(out.dtype()) : out.dtype());
    return var_impl(name, wide, dim, correction, keepdim, take_sqrt, with_mean, out);
  }
  VarResult r;
  if (self.is_complex()) {
    // Over the real view [..., 2]: per-component variances summed, means paired again.
    const Tensor parts = self.view_as_real();
    VarResult c = run_moments(name, parts, mask, keepdim, corr, StatOp::Var, with_mean, Tensor());
    r.var = ember::sum(c.var, {-1});
    if (take_sqrt) r.var = r.var.sqrt();
    if (with_mean) r.mean = c.mean.view_as_complex();
  } else {
    r = run_moments(name, self, mask, keepdim, corr, take_sqrt ? StatOp::Std : StatOp::Var, with_mean, out);
  }
  if (out.defined()) {
    if (!r.var.is_same(out)) {
      Tensor o = out;
      if (!o.sizes().equals(r.var.sizes())) resize_(o, r.var.sizes());
      if (!self.is_meta()) copy_(o, r.var);
    }
    out.bump_version();
    r.var = out;
  }
  return r;
}

Tensor var_unbiased_k(const Tensor& self, bool unbiased) {
  return var_impl("var", self, std::nullopt, unbiased ? 1 : 0, false, false, false, Tensor()).var;
}
Tensor var_dim_k(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return var_impl("var", self, dim, unbiased ? 1 : 0, keepdim, false, false, Tensor()).var;
}
Tensor var_correction_k(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> correction,
                        bool keepdim) {
  return var_impl("var", self, dim, correction, keepdim, false, false, Tensor()).var;
}
Tensor& var_out_k(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim, Tensor& out) {
  var_impl("var", self, dim, unbiased ? 1 : 0, keepdim, false, false, out);
  return out;
}
Tensor& var_correction_out_k(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> correction,
                             bool keepdim, Tensor& out) {
  var_impl("var", self, dim, correction, keepdim, false, false, out);
  return out;
}
Tensor std_unbiased_k(const Tensor& self, bool unbiased) {
  return var_impl("std", self, std::nullopt, unbiased ? 1 : 0, false, true, false, Tensor()).var;
}
Tensor std_dim_k(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim) {
  return var_impl("std", self, dim, unbiased ? 1 : 0, keepdim, true, false, Tensor()).var;
}
Tensor std_correction_k(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> correction,
                        bool keepdim) {
  return var_impl("std", self, dim, correction, keepdim, true, false, Tensor()).var;
}
Tensor& std_out_k(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased, bool keepdim, Tensor& out) {
  var_impl("std", self, dim, unbiased ? 1 : 0, keepdim, true, false, out);
  return out;
}
Tensor& std_correction_out_k(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> correction,
                             bool keepdim, Tensor& out) {
  var_impl("std", self, dim, correction, keepdim, true, false, out);
  return out;
}

template <bool Std>
std::tuple<Tensor, Tensor> var_mean_unbiased_k(const Tensor& self, bool unbiased) {
  VarResult r = var_impl(Std ? "std_mean" : "var_mean", self, std::nullopt, unbiased ? 1 : 0, false, Std, true, Tensor());
  return {r.var, r.mean};
}
template <bool Std>
std::tuple<Tensor, Tensor> var_mean_dim_k(const Tensor& self, std::optional<IntArrayRef> dim, bool unbiased,
                                          bool keepdim) {
  VarResult r = var_impl(Std ? "std_mean" : "var_mean", self, dim, unbiased ? 1 : 0, keepdim, Std, true, Tensor());
  return {r.var, r.mean};
}
template <bool Std>
std::tuple<Tensor, Tensor> var_mean_correction_k(const Tensor& self, std::optional<IntArrayRef> dim,
                                                 std::optional<int64_t> correction, bool keepdim) {
  VarResult r = var_impl(Std ? "std_mean" : "var_mean", self, dim, correction, keepdim, Std, true, Tensor());
  return {r.var, r.mean};
}

// ---------------------------------------------------------------- norm
ReduceOp norm_kind(double p) {
  if (p == 2) return ReduceOp::NormL2;
  if (p == 1) return ReduceOp::NormL1;
  if (p == 0) return ReduceOp::NormZero;
  if (p == std::numeric_limits<double>::infinity()) return ReduceOp::NormInf;
  if (p == -std::numeric_limits<double>::infinity()) return ReduceOp::NormNegInf;
  return ReduceOp::NormP;
}

Tensor norm_impl(const Tensor& self, std::optional<Scalar> p, std::optional<IntArrayRef> dim, bool keepdim,
                 std::optional<ScalarType> dtype, const Tensor& out) {
  reduce_check_device("norm", self);
  const double pv = p ? p->to_double() : 2.0;
  EMBER_CHECK(!p || !p->is_complex(), RuntimeError, "norm(): p must be a real number");
  // With dtype= the input is converted first (as PyTorch does), so integers are accepted then.
  if (dtype)
    EMBER_CHECK(is_floating_point(*dtype) || is_complex(*dtype), RuntimeError,
                "norm(): the desired output dtype should be either floating point or complex. Got ", *dtype,
                " instead.");
  Tensor in = dtype && *dtype != self.dtype() ? to_dtype(self, *dtype) : self;
  // A wider floating out= computes in its precision, as PyTorch does.
  if (!dtype && out.defined() && is_floating_point(out.dtype()) && (in.is_floating_point() || in.is_complex()) &&
      to_real_type(in.dtype()) != out.dtype() && promote_types(to_real_type(in.dtype()), out.dtype()) == out.dtype())
    in = to_dtype(in, in.is_complex() ? to_complex_type(out.dtype()) : out.dtype());
  EMBER_CHECK(in.is_floating_point() || in.is_complex(), RuntimeError,
              "norm(): input dtype should be either floating point or complex. Got ", self.dtype(), " instead.");
  const DimMask mask = reduce_mask_opt("norm", dim, self.dim());
  const ScalarType real = to_real_type(in.dtype());
  if (out.defined())
    EMBER_CHECK(can_cast(real, out.dtype()), RuntimeError, "norm(): result type ", real,
                " can't be cast to the desired output type ", out.dtype());
  // The kernels take float and double: complex inputs give their magnitudes, and half types
  // are read as float (their precision of accumulation); a half result is written through out.
  if (in.is_complex()) in = abs(in);
  if (in.dtype() == kHalf || in.dtype() == kBFloat16) {
    const Tensor result = out.defined() ? out : empty({0}, TensorOptions(real).device(in.device()));
    return reduce_into("norm", norm_kind(pv), to_dtype(in, kFloat), mask, keepdim, kFloat, result, true, pv);
  }
  return reduce_into("norm", norm_kind(pv), in, mask, keepdim, real, out, true, pv);
}

Tensor norm_scalar_k(const Tensor& self, const Scalar& p) { return norm_impl(self, p, std::nullopt, false, std::nullopt, Tensor()); }
Tensor& norm_scalar_out_k(const Tensor& self, const Scalar& p, Tensor& out) {
  norm_impl(self, p, std::nullopt, false, std::nullopt, out);
  return out;
}
Tensor norm_dim_k(const Tensor& self, std::optional<Scalar> p, IntArrayRef dim, bool keepdim) {
  return norm_impl(self, p, dim, keepdim, std::nullopt, Tensor());
}
Tensor norm_dim_dtype_k(const Tensor& self, std::optional<Scalar> p, IntArrayRef dim, bool keepdim, ScalarType dtype) {
  return norm_impl(self, p, dim, keepdim, dtype, Tensor());
}
Tensor norm_dtype_k(const Tensor& self, std::optional<Scalar> p, ScalarType dtype) {
  return norm_impl(self, p, std::nullopt, false, dtype, Tensor());
}
Tensor& norm_out_k(const Tensor& self, std::optional<Scalar> p, IntArrayRef dim, bool keepdim, Tensor& out) {
  norm_impl(self, p, dim, keepdim, std::nullopt, out);
  return out;
}
Tensor& norm_dtype_out_k(const Tensor& self, std::optional<Scalar> p, IntArrayRef dim, bool keepdim, ScalarType dtype,
                         Tensor& out) {
  norm_impl(self, p, dim, keepdim, dtype, out);
  return out;
}

// ---------------------------------------------------------------- logsumexp
Tensor logsumexp_impl(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  reduce_check_device("logsumexp", self);
  EMBER_CHECK(!self.is_complex(), RuntimeError, "logsumexp(): Expected floating point type for result tensor, but got: ",
              self.dtype());
  if (out.defined())
    EMBER_CHECK(out.is_floating_point(), RuntimeError,
                "logsumexp(): Expected floating point type for result tensor, but got: ", out.dtype());
  const DimMask mask = reduce_mask("logsumexp", dim, self.dim());
  ScalarType dt = self.is_floating_point() ? self.dtype() : get_default_dtype();
  // A wider floating out= computes in its precision, as PyTorch does.
  if (out.defined() && promote_types(dt, out.dtype()) == out.dtype()) dt = out.dtype();
  const DimVector shape = reduce_shape(self.sizes(), mask, keepdim);
  Tensor result = out.defined() && out.dtype() == dt && !out.is_alias_of(self)
                      ? reduce_output("logsumexp", out, shape, dt, self.device())
                      : empty(shape, TensorOptions(dt).device(self.device()));
  if (!self.is_meta() && result.numel() > 0) {
    const Tensor in = self.dtype() == dt ? self : to_dtype(self, dt);
    ReduceLoop loop = make_reduce_loop(in, mask, {result});
    cpu::stat_reduce_stub(loop, StatOp::LogSumExp);
  }
  if (!out.defined()) return result;
  Tensor o = out;
  if (!result.is_same(o)) {
    if (!o.sizes().equals(shape)) resize_(o, shape);
    if (!self.is_meta()) copy_(o, result);
  }
  o.bump_version();
  return o;
}
Tensor logsumexp_k(const Tensor& self, IntArrayRef dim, bool keepdim) { return logsumexp_impl(self, dim, keepdim, Tensor()); }
Tensor& logsumexp_out_k(const Tensor& self, IntArrayRef dim, bool keepdim, Tensor& out) {
  EMBER_CHECK(out.defined(), ValueError, "logsumexp(): got an undefined out tensor");
  logsumexp_impl(self, dim, keepdim, out);
  return out;
}

using VarUnbiasedSig = Tensor(const Tensor&, bool);
using VarDimSig = Tensor(const Tensor&, std::optional<IntArrayRef>, bool, bool);
using VarCorrSig = Tensor(const Tensor&, std::optional<IntArrayRef>, std::optional<int64_t>, bool);
using VarOutSig = Tensor&(const Tensor&, std::optional<IntArrayRef>, bool, bool, Tensor&);
using VarCorrOutSig = Tensor&(const Tensor&, std::optional<IntArrayRef>, std::optional<int64_t>, bool, Tensor&);
using VarMeanUnbiasedSig = std::tuple<Tensor, Tensor>(const Tensor&, bool);
using VarMeanDimSig = std::tuple<Tensor, Tensor>(const Tensor&, std::optional<IntArrayRef>, bool, bool);
using VarMeanCorrSig = std::tuple<Tensor, Tensor>(const Tensor&, std::optional<IntArrayRef>, std::optional<int64_t>, bool);
using NormScalarSig = Tensor(const Tensor&, const Scalar&);
using NormScalarOutSig = Tensor&(const Tensor&, const Scalar&, Tensor&);
using NormDimSig = Tensor(const Tensor&, std::optional<Scalar>, IntArrayRef, bool);
using NormDimDtypeSig = Tensor(const Tensor&, std::optional<Scalar>, IntArrayRef, bool, ScalarType);
using NormDtypeSig = Tensor(const Tensor&, std::optional<Scalar>, ScalarType);
using NormOutSig = Tensor&(const Tensor&, std::optional<Scalar>, IntArrayRef, bool, Tensor&);
using NormDtypeOutSig = Tensor&(const Tensor&, std::optional<Scalar>, IntArrayRef, bool, ScalarType, Tensor&);
using LseSig = Tensor(const Tensor&, IntArrayRef, bool);
using LseOutSig = Tensor&(const Tensor&, IntArrayRef, bool, Tensor&);

}  // namespace

// ---------------------------------------------------------------- front functions
#define EMBER_CALL(Sig, name, ...)    \
  static const TypedOp<Sig> op(name); \
  return op.call(__VA_ARGS__)

Tensor var(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> correction, bool keepdim) {
  EMBER_CALL(VarCorrSig, "var.correction", self, dim, correction, keepdim);
}
Tensor std(const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> correction, bool keepdim) {
  EMBER_CALL(VarCorrSig, "std.correction", self, dim, correction, keepdim);
}
Tensor& var_out(Tensor& out, const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> correction,
                bool keepdim) {
  EMBER_CALL(VarCorrOutSig, "var.correction_out", self, dim, correction, keepdim, out);
}
Tensor& std_out(Tensor& out, const Tensor& self, std::optional<IntArrayRef> dim, std::optional<int64_t> correction,
                bool keepdim) {
  EMBER_CALL(VarCorrOutSig, "std.correction_out", self, dim, correction, keepdim, out);
}
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, std::optional<IntArrayRef> dim,
                                    std::optional<int64_t> correction, bool keepdim) {
  EMBER_CALL(VarMeanCorrSig, "var_mean.correction", self, dim, correction, keepdim);
}
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, std::optional<IntArrayRef> dim,
                                    std::optional<int64_t> correction, bool keepdim) {
  EMBER_CALL(VarMeanCorrSig, "std_mean.correction", self, dim, correction, keepdim);
}
Tensor norm(const Tensor& self, const Scalar& p) { EMBER_CALL(NormScalarSig, "norm.Scalar", self, p); }
Tensor norm(const Tensor& self, std::optional<Scalar> p, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  if (dtype) {
    EMBER_CALL(NormDimDtypeSig, "norm.ScalarOpt_dim_dtype", self, p, dim, keepdim, *dtype);
  }
  EMBER_CALL(NormDimSig, "norm.ScalarOpt_dim", self, p, dim, keepdim);
}
Tensor& norm_out(Tensor& out, const Tensor& self, std::optional<Scalar> p, IntArrayRef dim, bool keepdim,
                 std::optional<ScalarType> dtype) {
  if (dtype) {
    EMBER_CALL(NormDtypeOutSig, "norm.dtype_out", self, p, dim, keepdim, *dtype, out);
  }
  EMBER_CALL(NormOutSig, "norm.out", self, p, dim, keepdim, out);
}
Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim) { EMBER_CALL(LseSig, "logsumexp", self, dim, keepdim); }
Tensor& logsumexp_out(Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim) {
  EMBER_CALL(LseOutSig, "logsumexp.out", self, dim, keepdim, out);
}
#undef EMBER_CALL

EMBER_REGISTER(reduce_stats_ops) {
  const uint32_t red = static_cast<uint32_t>(Tag::Reduction);
  for (const char* n : {"var", "std"}) {
    const std::string s(n);
    define_op<VarUnbiasedSig>(s + "(Tensor self, bool unbiased=True) -> Tensor", red);
    define_op<VarDimSig>(s + ".dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> Tensor", red);
    define_op<VarCorrSig>(s + ".correction(Tensor self, int[1]? dim, *, int? correction, bool keepdim=False) -> Tensor", red);
    define_op<VarOutSig>(s + ".out(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False, *, "
                             "Tensor(a!) out) -> Tensor(a!)", red);
    define_op<VarCorrOutSig>(s + ".correction_out(Tensor self, int[1]? dim, *, int? correction, bool keepdim=False, "
                                 "Tensor(a!) out) -> Tensor(a!)", red);
  }
  register_cpu_meta<VarUnbiasedSig, &var_unbiased_k>("var");
  register_cpu_meta<VarDimSig, &var_dim_k>("var.dim");
  register_cpu_meta<VarCorrSig, &var_correction_k>("var.correction");
  register_cpu_meta<VarOutSig, &var_out_k>("var.out");
  register_cpu_meta<VarCorrOutSig, &var_correction_out_k>("var.correction_out");
  register_cpu_meta<VarUnbiasedSig, &std_unbiased_k>("std");
  register_cpu_meta<VarDimSig, &std_dim_k>("std.dim");
  register_cpu_meta<VarCorrSig, &std_correction_k>("std.correction");
  register_cpu_meta<VarOutSig, &std_out_k>("std.out");
  register_cpu_meta<VarCorrOutSig, &std_correction_out_k>("std.correction_out");
  for (const char* n : {"var_mean", "std_mean"}) {
    const std::string s(n);
    define_op<VarMeanUnbiasedSig>(s + "(Tensor self, bool unbiased=True) -> (Tensor, Tensor)", red);
    define_op<VarMeanDimSig>(s + ".dim(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False) -> (Tensor, Tensor)", red);
    define_op<VarMeanCorrSig>(s + ".correction(Tensor self, int[1]? dim, *, int? correction, bool keepdim=False) -> "
                                  "(Tensor, Tensor)", red);
  }
  register_cpu_meta<VarMeanUnbiasedSig, &var_mean_unbiased_k<false>>("var_mean");
  register_cpu_meta<VarMeanDimSig, &var_mean_dim_k<false>>("var_mean.dim");
  register_cpu_meta<VarMeanCorrSig, &var_mean_correction_k<false>>("var_mean.correction");
  register_cpu_meta<VarMeanUnbiasedSig, &var_mean_unbiased_k<true>>("std_mean");
  register_cpu_meta<VarMeanDimSig, &var_mean_dim_k<true>>("std_mean.dim");
  register_cpu_meta<VarMeanCorrSig, &var_mean_correction_k<true>>("std_mean.correction");

  define_op<NormScalarSig>("norm.Scalar(Tensor self, Scalar p=2) -> Tensor", red);
  define_op<NormDimSig>("norm.ScalarOpt_dim(Tensor self, Scalar? p, int[1] dim, bool keepdim=False) -> Tensor", red);
  define_op<NormDimDtypeSig>("norm.ScalarOpt_dim_dtype(Tensor self, Scalar? p, int[1] dim, bool keepdim, *, "
                             "ScalarType dtype) -> Tensor", red);
  define_op<NormDtypeSig>("norm.ScalarOpt_dtype(Tensor self, Scalar? p, *, ScalarType dtype) -> Tensor", red);
  define_op<NormScalarOutSig>("norm.Scalar_out(Tensor self, Scalar p=2, *, Tensor(a!) out) -> Tensor(a!)", red);
  define_op<NormOutSig>("norm.out(Tensor self, Scalar? p, int[1] dim, bool keepdim=False, *, Tensor(a!) out) -> "
                        "Tensor(a!)", red);
  define_op<NormDtypeOutSig>("norm.dtype_out(Tensor self, Scalar? p, int[1] dim, bool keepdim, *, ScalarType dtype, "
                             "Tensor(a!) out) -> Tensor(a!)", red);
  register_cpu_meta<NormScalarSig, &norm_scalar_k>("norm.Scalar");
  register_cpu_meta<NormDimSig, &norm_dim_k>("norm.ScalarOpt_dim");
  register_cpu_meta<NormDimDtypeSig, &norm_dim_dtype_k>("norm.ScalarOpt_dim_dtype");
  register_cpu_meta<NormDtypeSig, &norm_dtype_k>("norm.ScalarOpt_dtype");
  register_cpu_meta<NormScalarOutSig, &norm_scalar_out_k>("norm.Scalar_out");
  register_cpu_meta<NormOutSig, &norm_out_k>("norm.out");
  register_cpu_meta<NormDtypeOutSig, &norm_dtype_out_k>("norm.dtype_out");

  define_op<LseSig>("logsumexp(Tensor self, int[1] dim, bool keepdim=False) -> Tensor", red);
  define_op<LseOutSig>("logsumexp.out(Tensor self, int[1] dim, bool keepdim=False, *, Tensor(a!) out) -> Tensor(a!)", red);
  register_cpu_meta<LseSig, &logsumexp_k>("logsumexp");
  register_cpu_meta<LseOutSig, &logsumexp_out_k>("logsumexp.out");
}

}  // namespace ember
