// Reductions beyond sum/mean/max/min (declared in ember/ops.h), named and defaulted as in
// PyTorch. A `dim` of std::nullopt reduces every dim; `*_out` forms write into `out`.
#pragma once

#include <optional>
#include <string_view>
#include <tuple>

#include "ember/tensor.h"

namespace ember {

// ---------------------------------------------------------------- sums and products
Tensor nansum(const Tensor& self, std::optional<IntArrayRef> dim = std::nullopt, bool keepdim = false,
              std::optional<ScalarType> dtype = std::nullopt);
Tensor& nansum_out(Tensor& out, const Tensor& self, std::optional<IntArrayRef> dim = std::nullopt,
                   bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor nanmean(const Tensor& self, std::optional<IntArrayRef> dim = std::nullopt, bool keepdim = false,
               std::optional<ScalarType> dtype = std::nullopt);
Tensor& nanmean_out(Tensor& out, const Tensor& self, std::optional<IntArrayRef> dim = std::nullopt,
                    bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor prod(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
Tensor prod(const Tensor& self, int64_t dim, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor& prod_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim = false,
                 std::optional<ScalarType> dtype = std::nullopt);

// ---------------------------------------------------------------- logical
// bool results (uint8 for uint8 inputs).
Tensor all(const Tensor& self);
Tensor all(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor& all_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim = false);
Tensor any(const Tensor& self);
Tensor any(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor& any_out(Tensor& out, const Tensor& self, int64_t dim, bool keepdim = false);
Tensor count_nonzero(const Tensor& self, std::optional<int64_t> dim = std::nullopt);
Tensor count_nonzero(const Tensor& self, IntArrayRef dim);

// ---------------------------------------------------------------- extremes
// An empty `dim` list reduces every dim.
Tensor amax(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false);
Tensor& amax_out(Tensor& out, const Tensor& self, IntArrayRef dim = {}, bool keepdim = false);
Tensor amin(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false);
Tensor& amin_out(Tensor& out, const Tensor& self, IntArrayRef dim = {}, bool keepdim = false);
// (min, max)
std::tuple<Tensor, Tensor> aminmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt,
                                   bool keepdim = false);
Tensor argmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor& argmax_out(Tensor& out, const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor& argmin_out(Tensor& out, const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
// max/min along a dim into (values, indices).
std::tuple<Tensor&, Tensor&> max_out(Tensor& values, Tensor& indices, const Tensor& self, int64_t dim,
                                     bool keepdim = false);
std::tuple<Tensor&, Tensor&> min_out(Tensor& values, Tensor& indices, const Tensor& self, int64_t dim,
                                     bool keepdim = false);

// ---------------------------------------------------------------- statistics
// Variance with `correction` (1: Bessel's correction, as unbiased=true; 0: population).
Tensor var(const Tensor& self, std::optional<IntArrayRef> dim = std::nullopt, std::optional<int64_t> correction = 1,
           bool keepdim = false);
Tensor std(const Tensor& self, std::optional<IntArrayRef> dim = std::nullopt, std::optional<int64_t> correction = 1,
           bool keepdim = false);
Tensor& var_out(Tensor& out, const Tensor& self, std::optional<IntArrayRef> dim = std::nullopt,
                std::optional<int64_t> correction = 1, bool keepdim = false);
Tensor& std_out(Tensor& out, const Tensor& self, std::optional<IntArrayRef> dim = std::nullopt,
                std::optional<int64_t> correction = 1, bool keepdim = false);
// (var, mean) and (std, mean)
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, std::optional<IntArrayRef> dim = std::nullopt,
                                    std::optional<int64_t> correction = 1, bool keepdim = false);
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, std::optional<IntArrayRef> dim = std::nullopt,
                                    std::optional<int64_t> correction = 1, bool keepdim = false);
// Vector p-norm over `dim` (every dim when empty); p may be inf or -inf. The result is real.
Tensor norm(const Tensor& self, const Scalar& p = 2);
Tensor norm(const Tensor& self, std::optional<Scalar> p, IntArrayRef dim, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
Tensor& norm_out(Tensor& out, const Tensor& self, std::optional<Scalar> p, IntArrayRef dim, bool keepdim = false,
                 std::optional<ScalarType> dtype = std::nullopt);
Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim = false);
Tensor& logsumexp_out(Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim = false);

// ---------------------------------------------------------------- cumulative
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor& cumsum_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor& cumprod_out(Tensor& out, const Tensor& self, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
std::tuple<Tensor, Tensor> cummax(const Tensor& self, int64_t dim);
std::tuple<Tensor, Tensor> cummin(const Tensor& self, int64_t dim);
Tensor logcumsumexp(const Tensor& self, int64_t dim);
Tensor& logcumsumexp_out(Tensor& out, const Tensor& self, int64_t dim);

// ---------------------------------------------------------------- order statistics
// The lower median ((n-1)/2-th smallest); NaN when there is one (median) or ignoring NaNs
// (nanmedian). The dim forms return (values, indices).
Tensor median(const Tensor& self);
std::tuple<Tensor, Tensor> median(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor nanmedian(const Tensor& self);
std::tuple<Tensor, Tensor> nanmedian(const Tensor& self, int64_t dim, bool keepdim = false);
// The most frequent value (the smallest of equally frequent ones) and its last index.
std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim = -1, bool keepdim = false);
// q in [0, 1] (a 0-dim or 1-D tensor, or a number); interpolation: linear, lower, higher,
// midpoint or nearest.
Tensor quantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                std::string_view interpolation = "linear");
Tensor quantile(const Tensor& self, double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                std::string_view interpolation = "linear");
Tensor nanquantile(const Tensor& self, const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                   bool keepdim = false, std::string_view interpolation = "linear");
Tensor nanquantile(const Tensor& self, double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                   std::string_view interpolation = "linear");

}  // namespace ember
