// Ops that exist only to test the schema-driven Python binding (python/bindings/generic.cpp):
// loaded by test_generic_binding.py through ember.load_library. Each kernel encodes the
// arguments it received in its result, so the test can see how the call was bound.
#include "ember/dispatch.h"
#include "ember/ops.h"

namespace ember {
namespace {

// Result = self + len(size) + 100*keepdim + 1000*dim + 7*(generator given); indices = 2*self.
using ProbeSig = std::tuple<Tensor, Tensor>(const Tensor&, IntArrayRef, bool, std::optional<int64_t>, Generator*);
std::tuple<Tensor, Tensor> probe(const Tensor& a, IntArrayRef size, bool keepdim, std::optional<int64_t> dim,
                                 Generator* g) {
  const int64_t code = static_cast<int64_t>(size.size()) + (keepdim ? 100 : 0) + (dim ? *dim * 1000 : 0) + (g ? 7 : 0);
  return {a.add(Scalar(code)), a.mul(Scalar(2))};
}
// self + other + f + len(mode) + 10*len(fl)
using ProbeScalarSig = Tensor(const Tensor&, const Scalar&, double, std::string_view, ArrayRef<double>);
Tensor probe_scalar(const Tensor& a, const Scalar& s, double f, std::string_view mode, ArrayRef<double> fl) {
  return a.add(s).add(Scalar(f + static_cast<double>(mode.size() + fl.size() * 10)));
}
using ProbeTensorSig = Tensor(const Tensor&, const Tensor&);
Tensor probe_tensor(const Tensor& a, const Tensor& b) { return a.sub(b); }
using ProbeOutSig = std::tuple<Tensor&, Tensor&>(const Tensor&, Tensor&, Tensor&);
std::tuple<Tensor&, Tensor&> probe_out(const Tensor& a, Tensor& values, Tensor& indices) {
  values.copy_(a);
  indices.fill_(Scalar(3));
  return {values, indices};
}
using ProbeInplaceSig = Tensor&(Tensor&, const Scalar&);
Tensor& probe_inplace(Tensor& a, const Scalar& s) { return a.add_(s); }
using RepeatSig = std::vector<Tensor>(const Tensor&, int64_t);
std::vector<Tensor> repeat_list(const Tensor& a, int64_t n) { return std::vector<Tensor>(n, a); }
using MethodSig = Tensor(const Tensor&);
Tensor method_only(const Tensor& a) { return a.neg(); }

}  // namespace

EMBER_REGISTER(binding_test_ops) {
  define_op<ProbeSig>("probe(Tensor self, int[2] size=1, bool keepdim=False, *, int? dim=None, "
                      "Generator? generator=None) -> (Tensor values, Tensor indices)");
  register_composite<ProbeSig, &probe>("probe");
  define_op<ProbeScalarSig>(
      "probe.Scalar(Tensor self, Scalar other, float f=0.5, str mode=\"ab\", float[] fl=[]) -> Tensor");
  register_composite<ProbeScalarSig, &probe_scalar>("probe.Scalar");
  define_op<ProbeTensorSig>("probe.Tensor(Tensor self, Tensor other) -> Tensor");
  register_composite<ProbeTensorSig, &probe_tensor>("probe.Tensor");
  define_op<ProbeOutSig>("probe.out(Tensor self, *, Tensor(a!) values, Tensor(b!) indices) -> "
                         "(Tensor(a!) values, Tensor(b!) indices)");
  register_composite<ProbeOutSig, &probe_out>("probe.out");
  define_op<ProbeInplaceSig>("probe_(Tensor(a!) self, Scalar other) -> Tensor(a!)");
  register_composite<ProbeInplaceSig, &probe_inplace>("probe_");
  define_op<RepeatSig>("repeat_list(Tensor self, int n) -> Tensor[]");
  register_composite<RepeatSig, &repeat_list>("repeat_list");
  define_op<MethodSig>("probe_method(Tensor self) -> Tensor", Tag::MethodOnly);
  register_composite<MethodSig, &method_only>("probe_method");
}

}  // namespace ember
