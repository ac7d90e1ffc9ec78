// Sorting, selection, uniqueness, searching and histograms, named and defaulted as in PyTorch.
// Sorts order NaN after every number (before, descending); equal elements keep their order
// when `stable` is set.
#pragma once

#include <optional>
#include <string_view>
#include <tuple>

#include "ember/tensor.h"

namespace ember {

// ---------------------------------------------------------------- sorting and selection
// (values, indices)
std::tuple<Tensor, Tensor> sort(const Tensor& self, int64_t dim = -1, bool descending = false);
std::tuple<Tensor, Tensor> sort(const Tensor& self, std::optional<bool> stable, int64_t dim = -1,
                                bool descending = false);
std::tuple<Tensor&, Tensor&> sort_out(Tensor& values, Tensor& indices, const Tensor& self,
                                      std::optional<bool> stable, int64_t dim = -1, bool descending = false);
Tensor argsort(const Tensor& self, int64_t dim = -1, bool descending = false);
Tensor argsort(const Tensor& self, bool stable, int64_t dim = -1, bool descending = false);
// Sorted along dim 0.
Tensor msort(const Tensor& self);
// The k largest (or smallest) along dim: (values, indices).
std::tuple<Tensor, Tensor> topk(const Tensor& self, int64_t k, int64_t dim = -1, bool largest = true,
                                bool sorted = true);
std::tuple<Tensor&, Tensor&> topk_out(Tensor& values, Tensor& indices, const Tensor& self, int64_t k,
                                      int64_t dim = -1, bool largest = true, bool sorted = true);
// The k-th smallest (k counts from 1) along dim: (values, indices).
std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, int64_t k, int64_t dim = -1, bool keepdim = false);

// ---------------------------------------------------------------- uniqueness
// (unique values, inverse indices, counts); the inverse and counts are empty unless asked for.
std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& self, bool sorted = true, bool return_inverse = false,
                                          bool return_counts = false, std::optional<int64_t> dim = std::nullopt);
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse = false,
                                                      bool return_counts = false,
                                                      std::optional<int64_t> dim = std::nullopt);

// ---------------------------------------------------------------- searching and counting
// Insertion points of `self` into the innermost dim of `sorted_sequence` (int64, or int32
// with out_int32); `side` ("left"/"right") overrides `right`; `sorter` sorts an unsorted
// sequence.
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32 = false, bool right = false,
                    std::optional<std::string_view> side = std::nullopt,
                    const std::optional<Tensor>& sorter = std::nullopt);
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& self, bool out_int32 = false, bool right = false,
                    std::optional<std::string_view> side = std::nullopt,
                    const std::optional<Tensor>& sorter = std::nullopt);
// The bucket of each element of self among 1-D `boundaries`.
Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32 = false, bool right = false);
Tensor bucketize(const Scalar& self, const Tensor& boundaries, bool out_int32 = false, bool right = false);
// Counts in `bins` equal-width bins over [min, max] (the data's range when both are 0).
Tensor histc(const Tensor& self, int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0);
// (hist, bin_edges)
std::tuple<Tensor, Tensor> histogram(const Tensor& self, int64_t bins = 100,
                                     std::optional<ArrayRef<double>> range = std::nullopt,
                                     const std::optional<Tensor>& weight = std::nullopt, bool density = false);
std::tuple<Tensor, Tensor> histogram(const Tensor& self, const Tensor& bins,
                                     const std::optional<Tensor>& weight = std::nullopt, bool density = false);
// Occurrences of each non-negative integer in a 1-D tensor (weighted sums with weights).
Tensor bincount(const Tensor& self, const std::optional<Tensor>& weights = std::nullopt, int64_t minlength = 0);

}  // namespace ember
