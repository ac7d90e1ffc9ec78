// Searching and counting: searchsorted, bucketize, histc, histogram, bincount.
//  - searchsorted/bucketize: insertion points (left: first position whose element is >= the
//    value, right: > the value) into the innermost dim of the boundaries, which is 1-D or
//    matches the values' leading dims; operands promote to a common dtype.
//  - histc/histogram: equal-width bins (the last closed) over the given range or the data's;
//    histogram also takes explicit edges, weights and density. Floating inputs only.
//  - bincount: counts (or weight sums) of non-negative integers, via accumulating index_put_.
#include <cmath>
#include <limits>
#include <tuple>

#include "backends/cpu/sort_stubs.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ops/reduce.h"

namespace ember {
namespace {

// ---------------------------------------------------------------- searchsorted, bucketize
bool resolve_right(bool right, std::optional<std::string_view> side) {
  if (!side) return right;
  EMBER_CHECK(*side == "left" || *side == "right", RuntimeError,
              "torch.searchsorted(): side can only be 'left' or 'right' but got ", *side);
  EMBER_CHECK(!(*side == "left" && right), RuntimeError,
              "torch.searchsorted(): side and right can't be set to opposites, got side of left while right was True");
  return *side == "right";
}

Tensor searchsorted_impl(const Tensor& seq, const Tensor& values, bool out_int32, bool right,
                         std::optional<std::string_view> side, const std::optional<Tensor>& sorter, const Tensor& out) {
  reduce_check_device("searchsorted", seq);
  reduce_check_device("searchsorted", values);
  const bool r = resolve_right(right, side);
  const ScalarType odt = out_int32 ? kInt32 : kInt64;
  if (out.defined())
    EMBER_CHECK(out.dtype() == odt, RuntimeError,
                "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) "
                "depending on whether out_int32 flag is True, but we got output tensor's dtype ", out.dtype(),
                " and out_int32 flag is ", out_int32 ? "True" : "False");
  if (sorter && sorter->defined()) {
    EMBER_CHECK(sorter->dtype() == kInt64, RuntimeError,
                "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype ", sorter->dtype());
    EMBER_CHECK(sorter->sizes().equals(seq.sizes()), RuntimeError,
                "torch.searchsorted(): boundary and sorter must have the same size, but got boundary tensor ",
                seq.sizes(), " and got sorter tensor ", sorter->sizes());
  }
  EMBER_CHECK(seq.dim() > 0, RuntimeError,
              "torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 dimension");
  bool leading = seq.dim() == 1;
  if (!leading && seq.dim() == values.dim()) {
    leading = true;
    for (int64_t d = 0; d + 1 < seq.dim(); ++d) leading = leading && seq.sizes()[d] == values.sizes()[d];
  }
  EMBER_CHECK(leading, RuntimeError,
              "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
              "tensor and input value tensor must match, but we got boundaries tensor ", seq.sizes(),
              " and input value tensor ", values.sizes());
  const int64_t n = seq.sizes().back();
  if (out_int32)
    EMBER_CHECK(n < std::numeric_limits<int32_t>::max(), RuntimeError,
                "torch.searchsorted(): the size of boundaries' last dimension should be less than ",
                std::numeric_limits<int32_t>::max(), ", but we got ", n);
  const ScalarType dt = result_type(seq, values);
  EMBER_CHECK(!is_complex(dt) && dt != kBool, RuntimeError, "\"searchsorted_out_cpu\" not implemented for '", dt, "'");
  Tensor result = reduce_output("searchsorted", out, values.sizes(), odt, values.device());
  if (values.is_meta() || seq.is_meta() || values.numel() == 0) return result;
  const Tensor s = seq.to(dt).contiguous(), v = values.to(dt).contiguous();
  const Tensor so = sorter && sorter->defined() ? sorter->contiguous() : Tensor();
  if (so.defined()) {
    const int64_t* p = so.data_ptr<int64_t>();
    for (int64_t i = 0; i < so.numel(); ++i)
      EMBER_CHECK(p[i] >= 0 && p[i] < n, RuntimeError, "torch.searchsorted(): sorter index ", p[i],
                  " is out of range for boundaries of size ", n);
  }
  Tensor target = result.is_contiguous() ? result : empty(values.sizes(), TensorOptions(odt));
  cpu::SearchLoop L;
  L.seq = static_cast<const char*>(s.data_ptr());
  L.sorter = so.defined() ? so.data_ptr<int64_t>() : nullptr;
  L.values = static_cast<const char*>(v.data_ptr());
  L.dtype = dt;
  L.n = n;
  L.seq_rows = seq.dim() == 1 ? 1 : seq.numel() / std::max<int64_t>(n, 1);
  L.m = values.dim() == 0 ? 1 : values.sizes().back();
  L.rows = L.m == 0 ? 0 : values.numel() / L.m;
  L.out = target.data_ptr();
  L.out_int32 = out_int32;
  L.right = r;
  cpu::search_stub(L);
  if (!target.is_same(result)) copy_(result, target);
  if (out.defined()) result.bump_version();
  return result;
}

Tensor searchsorted_k(const Tensor& seq, const Tensor& self, bool out_int32, bool right,
                      std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  return searchsorted_impl(seq, self, out_int32, right, side, sorter, Tensor());
}
Tensor& searchsorted_out_k(const Tensor& seq, const Tensor& self, bool out_int32, bool right,
                           std::optional<std::string_view> side, const std::optional<Tensor>& sorter, Tensor& out) {
  EMBER_CHECK(out.defined(), ValueError, "searchsorted(): got an undefined out tensor");
  searchsorted_impl(seq, self, out_int32, right, side, sorter, out);
  return out;
}
Tensor searchsorted_scalar_k(const Tensor& seq, const Scalar& self, bool out_int32, bool right,
                             std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  return searchsorted_impl(seq, scalar_tensor(self, TensorOptions().device(seq.device())), out_int32, right, side,
                           sorter, Tensor());
}
Tensor& searchsorted_scalar_out_k(const Tensor& seq, const Scalar& self, bool out_int32, bool right,
                                  std::optional<std::string_view> side, const std::optional<Tensor>& sorter,
                                  Tensor& out) {
  EMBER_CHECK(out.defined(), ValueError, "searchsorted(): got an undefined out tensor");
  searchsorted_impl(seq, scalar_tensor(self, TensorOptions().device(seq.device())), out_int32, right, side, sorter,
                    out);
  return out;
}

void check_boundaries(const Tensor& boundaries) {
  EMBER_CHECK(boundaries.defined(), ValueError, "bucketize(): got an undefined tensor");
  EMBER_CHECK(boundaries.dim() == 1, RuntimeError, "boundaries tensor must be 1 dimension, but got dim(",
              boundaries.dim(), ")");
}
Tensor bucketize_k(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  check_boundaries(boundaries);
  return searchsorted_impl(boundaries, self, out_int32, right, std::nullopt, std::nullopt, Tensor());
}
Tensor& bucketize_out_k(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right, Tensor& out) {
  check_boundaries(boundaries);
  EMBER_CHECK(out.defined(), ValueError, "bucketize(): got an undefined out tensor");
  searchsorted_impl(boundaries, self, out_int32, right, std::nullopt, std::nullopt, out);
  return out;
}
Tensor bucketize_scalar_k(const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  check_boundaries(boundaries);
  return searchsorted_impl(boundaries, scalar_tensor(self, TensorOptions().device(boundaries.device())), out_int32,
                           right, std::nullopt, std::nullopt, Tensor());
}

// ---------------------------------------------------------------- histc, histogram
void check_hist_input(const char* name, const Tensor& self) {
  reduce_check_device(name, self);
  EMBER_CHECK(self.is_floating_point(), RuntimeError, "\"", name, "\" not implemented for '", self.dtype(), "'");
}

// The data's (min, max), or (0, 0) when it is empty.
std::pair<double, double> data_range(const Tensor& self) {
  if (self.numel() == 0 || self.is_meta()) return {0.0, 0.0};
  auto [lo, hi] = aminmax(self);
  return {lo.item().to_double(), hi.item().to_double()};
}

Tensor histc_impl(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max, const Tensor& out) {
  check_hist_input("histogram_cpu", self);
  EMBER_CHECK(bins > 0, RuntimeError, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  if (out.defined())
    EMBER_CHECK(out.dtype() == self.dtype(), RuntimeError, "torch.histogram: input tensor and hist tensor should have ",
                "the same dtype, but got input ", self.dtype(), " and hist ", out.dtype());
  double lo = min.to_double(), hi = max.to_double();
  if (lo == hi && self.numel() > 0) std::tie(lo, hi) = data_range(self);
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), RuntimeError, "torch.histc: range of [", lo, ", ", hi,
              "] is not finite");
  EMBER_CHECK(lo < hi, RuntimeError, "torch.histc: max must be larger than min");
  Tensor result = reduce_output("histc", out, {bins}, self.dtype(), self.device());
  if (self.is_meta()) return result;
  Tensor h = zeros({bins}, TensorOptions(self.dtype()));
  const Tensor x = self.contiguous();
  cpu::hist_stub(static_cast<const char*>(x.data_ptr()), x.dtype(), x.numel(), nullptr, bins, lo, hi,
                 static_cast<char*>(h.data_ptr()), h.dtype());
  copy_(result, h);
  if (out.defined()) result.bump_version();
  return result;
}
Tensor histc_k(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  return histc_impl(self, bins, min, max, Tensor());
}
Tensor& histc_out_k(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max, Tensor& out) {
  EMBER_CHECK(out.defined(), ValueError, "histc(): got an undefined out tensor");
  histc_impl(self, bins, min, max, out);
  return out;
}

// Counts over `edges` (1-D, the input's dtype), weighted and normalized as asked.
std::tuple<Tensor, Tensor> histogram_edges(const Tensor& self, const Tensor& edges,
                                           const std::optional<Tensor>& weight, bool density, const Tensor& hist_out,
                                           const Tensor& edges_out) {
  const int64_t bins = edges.numel() - 1;
  if (weight && weight->defined()) {
    EMBER_CHECK(weight->sizes().equals(self.sizes()), RuntimeError,
                "torch.histogramdd: if weight tensor is provided it should have the same shape as the input tensor "
                "excluding its innermost dimension, but got input with shape [", self.numel(),
                ", 1] and weight with shape ", weight->sizes());
    EMBER_CHECK(weight->dtype() == self.dtype(), RuntimeError,
                "torch.histogramdd: if weight tensor is provided, it should have the same dtype as the input tensor, "
                "but got input ", self.dtype(), " and weight ", weight->dtype());
  }
  for (const Tensor& o : {hist_out, edges_out})
    if (o.defined())
      EMBER_CHECK(o.dtype() == self.dtype(), RuntimeError, "torch.histogramdd: input tensor and output tensors should ",
                  "have the same dtype, but got input ", self.dtype(), " and output ", o.dtype());
  Tensor hist = reduce_output("histogram", hist_out, {bins}, self.dtype(), self.device());
  Tensor e = reduce_output("histogram", edges_out, {bins + 1}, self.dtype(), self.device());
  if (self.is_meta()) return {hist, e};
  const Tensor x = self.contiguous(), ec = edges.contiguous();
  const Tensor w = weight && weight->defined() ? weight->contiguous() : Tensor();
  Tensor h = zeros({bins}, TensorOptions(self.dtype()));
  cpu::hist_edges_stub(static_cast<const char*>(x.data_ptr()), x.dtype(), x.numel(),
                       w.defined() ? static_cast<const char*>(w.data_ptr()) : nullptr,
                       static_cast<const char*>(ec.data_ptr()), bins, static_cast<char*>(h.data_ptr()), h.dtype());
  if (density) {
    const Tensor widths = sub(ec.narrow(0, 1, bins), ec.narrow(0, 0, bins));
    h = div(div(h, sum(h)), widths);
  }
  copy_(hist, h);
  if (!e.is_same(edges)) copy_(e, ec);
  if (hist_out.defined()) hist.bump_version();
  if (edges_out.defined()) e.bump_version();
  return {hist, e};
}

// histogram with a bin count (unlike histc, or explicit edges) takes float32 and float64 only,
// as in PyTorch 1.13.
void check_histogram_input(const Tensor& self) {
  check_hist_input("histogramdd", self);
  EMBER_CHECK(self.dtype() == kFloat || self.dtype() == kDouble, RuntimeError,
              "\"histogramdd\" not implemented for '", self.dtype(), "'");
}

std::tuple<Tensor, Tensor> histogram_count_impl(const Tensor& self, int64_t bins, std::optional<ArrayRef<double>> range,
                                                const std::optional<Tensor>& weight, bool density,
                                                const Tensor& hist_out, const Tensor& edges_out) {
  check_histogram_input(self);
  EMBER_CHECK(bins > 0, RuntimeError, "torch.histogram(): bins must be > 0, but got ", bins, " for dimension 0");
  double lo = 0, hi = 1;
  if (range) {
    EMBER_CHECK(range->size() == 2, RuntimeError,
                "torch.histogramdd: for a 1-dimensional histogram, range should have 2 elements, but got ",
                range->size());
    lo = (*range)[0];
    hi = (*range)[1];
  } else if (self.numel() > 0) {
    std::tie(lo, hi) = data_range(self);
  }
  EMBER_CHECK(std::isfinite(lo) && std::isfinite(hi), RuntimeError, "torch.histogramdd: dimension 0's range [", lo,
              ", ", hi, "] is not finite");
  EMBER_CHECK(lo <= hi, RuntimeError, "torch.histogramdd: min should not exceed max, but got min ", lo, " max ", hi,
              " for dimension 0");
  if (lo == hi) {  // an empty range widens, as NumPy's does
    lo -= 0.5;
    hi += 0.5;
  }
  const Tensor edges = linspace(lo, hi, bins + 1, TensorOptions(self.dtype()).device(self.device()));
  return histogram_edges(self, edges, weight, density, hist_out, edges_out);
}

std::tuple<Tensor, Tensor> histogram_bins_impl(const Tensor& self, const Tensor& bins,
                                               const std::optional<Tensor>& weight, bool density,
                                               const Tensor& hist_out, const Tensor& edges_out) {
  check_hist_input("histogramdd", self);
  EMBER_CHECK(bins.dim() == 1, RuntimeError, "torch.histogramdd: bins tensor should have one dimension, but got ",
              bins.dim(), " dimensions in the bins tensor for dimension 0");
  EMBER_CHECK(bins.numel() > 0, RuntimeError,
              "torch.histogramdd: bins tensor should have at least 1 element, but got ", bins.numel(),
              " elements in the bins tensor for dimension 0");
  EMBER_CHECK(bins.dtype() == self.dtype(), RuntimeError,
              "torch.histogramdd: input tensor and bins tensors should have the same dtype, but got input ",
              self.dtype(), " and bins ", bins.dtype());
  return histogram_edges(self, bins, weight, density, hist_out, edges_out);
}

std::tuple<Tensor, Tensor> histogram_count_k(const Tensor& self, int64_t bins, std::optional<ArrayRef<double>> range,
                                             const std::optional<Tensor>& weight, bool density) {
  return histogram_count_impl(self, bins, range, weight, density, Tensor(), Tensor());
}
std::tuple<Tensor&, Tensor&> histogram_count_out_k(const Tensor& self, int64_t bins,
                                                   std::optional<ArrayRef<double>> range,
                                                   const std::optional<Tensor>& weight, bool density, Tensor& hist,
                                                   Tensor& bin_edges) {
  histogram_count_impl(self, bins, range, weight, density, hist, bin_edges);
  return {hist, bin_edges};
}
std::tuple<Tensor, Tensor> histogram_bins_k(const Tensor& self, const Tensor& bins, const std::optional<Tensor>& weight,
                                            bool density) {
  return histogram_bins_impl(self, bins, weight, density, Tensor(), Tensor());
}
std::tuple<Tensor&, Tensor&> histogram_bins_out_k(const Tensor& self, const Tensor& bins,
                                                  const std::optional<Tensor>& weight, bool density, Tensor& hist,
                                                  Tensor& bin_edges) {
  histogram_bins_impl(self, bins, weight, density, hist, bin_edges);
  return {hist, bin_edges};
}

// ---------------------------------------------------------------- bincount
Tensor bincount_k(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  reduce_check_device("bincount", self);
  EMBER_CHECK(!self.is_meta(), NotImplementedError,
              "bincount(): the output size depends on the data, so it has no Meta kernel");
  EMBER_CHECK(is_integral(self.dtype()), RuntimeError, "\"bincount_cpu\" not implemented for '", self.dtype(), "'");
  EMBER_CHECK(minlength >= 0, RuntimeError, "minlength should be >= 0");
  EMBER_CHECK(self.dim() == 1, RuntimeError, "bincount only supports 1-d non-negative integral inputs.");
  const bool weighted = weights && weights->defined();
  if (weighted)
    EMBER_CHECK(weights->dim() == 1 && weights->numel() == self.numel(), RuntimeError,
                "weights should be 1-d and have the same length as input");
  const Tensor idx = self.to(kInt64);
  int64_t length = minlength;
  if (self.numel() > 0) {
    EMBER_CHECK(min(idx).item().to<int64_t>() >= 0, RuntimeError,
                "bincount only supports 1-d non-negative integral inputs.");
    length = std::max(length, max(idx).item().to<int64_t>() + 1);
  }
  // PyTorch: float32 weights keep their dtype, any other weights sum in float64.
  const ScalarType dt = !weighted ? kInt64 : weights->dtype() == kFloat ? kFloat : kDouble;
  Tensor out = zeros({length}, TensorOptions(dt));
  if (self.numel() == 0) return out;
  const Tensor w = weighted ? weights->to(dt) : ones({self.numel()}, TensorOptions(kInt64));
  index_put_(out, {std::optional<Tensor>(idx)}, w, /*accumulate=*/true);
  return out;
}

using SearchSig = Tensor(const Tensor&, const Tensor&, bool, bool, std::optional<std::string_view>,
                         const std::optional<Tensor>&);
using SearchOutSig = Tensor&(const Tensor&, const Tensor&, bool, bool, std::optional<std::string_view>,
                             const std::optional<Tensor>&, Tensor&);
using SearchScalarSig = Tensor(const Tensor&, const Scalar&, bool, bool, std::optional<std::string_view>,
                               const std::optional<Tensor>&);
using SearchScalarOutSig = Tensor&(const Tensor&, const Scalar&, bool, bool, std::optional<std::string_view>,
                                   const std::optional<Tensor>&, Tensor&);
using BucketizeSig = Tensor(const Tensor&, const Tensor&, bool, bool);
using BucketizeOutSig = Tensor&(const Tensor&, const Tensor&, bool, bool, Tensor&);
using BucketizeScalarSig = Tensor(const Scalar&, const Tensor&, bool, bool);
using HistcSig = Tensor(const Tensor&, int64_t, const Scalar&, const Scalar&);
using HistcOutSig = Tensor&(const Tensor&, int64_t, const Scalar&, const Scalar&, Tensor&);
using HistCountSig = std::tuple<Tensor, Tensor>(const Tensor&, int64_t, std::optional<ArrayRef<double>>,
                                                const std::optional<Tensor>&, bool);
using HistCountOutSig = std::tuple<Tensor&, Tensor&>(const Tensor&, int64_t, std::optional<ArrayRef<double>>,
                                                     const std::optional<Tensor>&, bool, Tensor&, Tensor&);
using HistBinsSig = std::tuple<Tensor, Tensor>(const Tensor&, const Tensor&, const std::optional<Tensor>&, bool);
using HistBinsOutSig = std::tuple<Tensor&, Tensor&>(const Tensor&, const Tensor&, const std::optional<Tensor>&, bool,
                                                    Tensor&, Tensor&);
using BincountSig = Tensor(const Tensor&, const std::optional<Tensor>&, int64_t);

}  // namespace

// ---------------------------------------------------------------- front functions
#define EMBER_CALL(Sig, name, ...)    \
  static const TypedOp<Sig> op(name); \
  return op.call(__VA_ARGS__)

Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  EMBER_CALL(SearchSig, "searchsorted.Tensor", sorted_sequence, self, out_int32, right, side, sorter);
}
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& self, bool out_int32, bool right,
                    std::optional<std::string_view> side, const std::optional<Tensor>& sorter) {
  EMBER_CALL(SearchScalarSig, "searchsorted.Scalar", sorted_sequence, self, out_int32, right, side, sorter);
}
Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CALL(BucketizeSig, "bucketize.Tensor", self, boundaries, out_int32, right);
}
Tensor bucketize(const Scalar& self, const Tensor& boundaries, bool out_int32, bool right) {
  EMBER_CALL(BucketizeScalarSig, "bucketize.Scalar", self, boundaries, out_int32, right);
}
Tensor histc(const Tensor& self, int64_t bins, const Scalar& min, const Scalar& max) {
  EMBER_CALL(HistcSig, "histc", self, bins, min, max);
}
std::tuple<Tensor, Tensor> histogram(const Tensor& self, int64_t bins, std::optional<ArrayRef<double>> range,
                                     const std::optional<Tensor>& weight, bool density) {
  EMBER_CALL(HistCountSig, "histogram.bin_ct", self, bins, range, weight, density);
}
std::tuple<Tensor, Tensor> histogram(const Tensor& self, const Tensor& bins, const std::optional<Tensor>& weight,
                                     bool density) {
  EMBER_CALL(HistBinsSig, "histogram.bins_tensor", self, bins, weight, density);
}
Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights, int64_t minlength) {
  EMBER_CALL(BincountSig, "bincount", self, weights, minlength);
}
#undef EMBER_CALL

EMBER_REGISTER(sort_search_ops) {
  define_op<SearchSig>("searchsorted.Tensor(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, "
                       "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor");
  define_op<SearchOutSig>("searchsorted.Tensor_out(Tensor sorted_sequence, Tensor self, *, bool out_int32=False, "
                          "bool right=False, str? side=None, Tensor? sorter=None, Tensor(a!) out) -> Tensor(a!)");
  define_op<SearchScalarSig>("searchsorted.Scalar(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, "
                             "bool right=False, str? side=None, Tensor? sorter=None) -> Tensor");
  define_op<SearchScalarOutSig>("searchsorted.Scalar_out(Tensor sorted_sequence, Scalar self, *, bool out_int32=False, "
                                "bool right=False, str? side=None, Tensor? sorter=None, Tensor(a!) out) -> Tensor(a!)");
  register_cpu_meta<SearchSig, &searchsorted_k>("searchsorted.Tensor");
  register_cpu_meta<SearchOutSig, &searchsorted_out_k>("searchsorted.Tensor_out");
  register_cpu_meta<SearchScalarSig, &searchsorted_scalar_k>("searchsorted.Scalar");
  register_cpu_meta<SearchScalarOutSig, &searchsorted_scalar_out_k>("searchsorted.Scalar_out");
  define_op<BucketizeSig>("bucketize.Tensor(Tensor self, Tensor boundaries, *, bool out_int32=False, "
                          "bool right=False) -> Tensor");
  define_op<BucketizeOutSig>("bucketize.Tensor_out(Tensor self, Tensor boundaries, *, bool out_int32=False, "
                             "bool right=False, Tensor(a!) out) -> Tensor(a!)");
  define_op<BucketizeScalarSig>("bucketize.Scalar(Scalar self, Tensor boundaries, *, bool out_int32=False, "
                                "bool right=False) -> Tensor");
  register_cpu_meta<BucketizeSig, &bucketize_k>("bucketize.Tensor");
  register_cpu_meta<BucketizeOutSig, &bucketize_out_k>("bucketize.Tensor_out");
  register_cpu_meta<BucketizeScalarSig, &bucketize_scalar_k>("bucketize.Scalar");

  define_op<HistcSig>("histc(Tensor self, int bins=100, Scalar min=0, Scalar max=0) -> Tensor");
  define_op<HistcOutSig>("histc.out(Tensor self, int bins=100, Scalar min=0, Scalar max=0, *, Tensor(a!) out) -> "
                         "Tensor(a!)");
  register_cpu_meta<HistcSig, &histc_k>("histc");
  register_cpu_meta<HistcOutSig, &histc_out_k>("histc.out");
  define_op<HistBinsSig>("histogram.bins_tensor(Tensor self, Tensor bins, *, Tensor? weight=None, bool density=False) "
                         "-> (Tensor hist, Tensor bin_edges)");
  define_op<HistBinsOutSig>("histogram.bins_tensor_out(Tensor self, Tensor bins, *, Tensor? weight=None, "
                            "bool density=False, Tensor(a!) hist, Tensor(b!) bin_edges) -> "
                            "(Tensor(a!) hist, Tensor(b!) bin_edges)");
  define_op<HistCountSig>("histogram.bin_ct(Tensor self, int bins=100, *, float[]? range=None, Tensor? weight=None, "
                          "bool density=False) -> (Tensor hist, Tensor bin_edges)");
  define_op<HistCountOutSig>("histogram.bin_ct_out(Tensor self, int bins=100, *, float[]? range=None, "
                             "Tensor? weight=None, bool density=False, Tensor(a!) hist, Tensor(b!) bin_edges) -> "
                             "(Tensor(a!) hist, Tensor(b!) bin_edges)");
  register_cpu_meta<HistBinsSig, &histogram_bins_k>("histogram.bins_tensor");
  register_cpu_meta<HistBinsOutSig, &histogram_bins_out_k>("histogram.bins_tensor_out");
  register_cpu_meta<HistCountSig, &histogram_count_k>("histogram.bin_ct");
  register_cpu_meta<HistCountOutSig, &histogram_count_out_k>("histogram.bin_ct_out");

  define_op<BincountSig>("bincount(Tensor self, Tensor? weights=None, int minlength=0) -> Tensor");
  register_cpu_meta<BincountSig, &bincount_k>("bincount");
}

}  // namespace ember
