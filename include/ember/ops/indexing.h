// Indexing along a dim and by masks, named and defaulted as in PyTorch: gather / scatter,
// index_select / index_add / index_copy / index_fill, take / put, masked_fill /
// masked_scatter, argwhere. (Advanced indexing, index_put_, masked_select and nonzero are
// in ember/ops.h.) `*_out` forms write into `out`, resizing it; `name_` forms work in place.
//
// Indices are int64 (index_select and index_add also take int32). An element written
// several times takes its updates in index order, so results are deterministic. Every
// index is checked before anything is written: a failed call leaves its arguments as they
// were.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// out[i][j] = self[index[i][j]][j] (dim 0); index has self's number of dims and is no
// larger than self outside `dim`. The result has index's shape.
Tensor gather(const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad = false);
Tensor& gather_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, bool sparse_grad = false);

// self[index[i][j]][j] = src[i][j] (dim 0), or = value. reduce: "add" or "multiply".
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce);
Tensor scatter(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce);
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce);
Tensor& scatter_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value, std::string_view reduce);
Tensor& scatter_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor& scatter_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                    std::string_view reduce);
Tensor& scatter_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value,
                    std::string_view reduce);
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor& scatter_add_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
// reduce: "sum", "prod", "mean", "amax" or "amin"; include_self=false ignores self's values
// where something is scattered.
Tensor scatter_reduce(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                      bool include_self = true);
Tensor& scatter_reduce_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& src, std::string_view reduce,
                        bool include_self = true);
Tensor& scatter_reduce_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src,
                           std::string_view reduce, bool include_self = true);
// gather with self and indices broadcast outside `dim`; without a dim, over the flattened
// tensors.
Tensor take_along_dim(const Tensor& self, const Tensor& indices, std::optional<int64_t> dim = std::nullopt);
Tensor& take_along_dim_out(Tensor& out, const Tensor& self, const Tensor& indices,
                           std::optional<int64_t> dim = std::nullopt);

// Slices of self along `dim` picked by a 1-D (or 0-dim) index.
Tensor index_select(const Tensor& self, int64_t dim, const Tensor& index);
Tensor& index_select_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index);
// self.select(dim, index[i]) += alpha * source.select(dim, i)
Tensor index_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1);
Tensor& index_add_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source, const Scalar& alpha = 1);
Tensor& index_add_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source,
                      const Scalar& alpha = 1);
// self.select(dim, index[i]) = source.select(dim, i)
Tensor index_copy(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor& index_copy_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
Tensor& index_copy_out(Tensor& out, const Tensor& self, int64_t dim, const Tensor& index, const Tensor& source);
// self.select(dim, index[i]) = value; negative indices count from the end.
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor index_fill(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& value);
Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Scalar& value);
Tensor& index_fill_(Tensor& self, int64_t dim, const Tensor& index, const Tensor& value);

// self.flatten()[index] (shaped like index); put_ writes source there (accumulate: adds).
Tensor take(const Tensor& self, const Tensor& index);
Tensor& take_out(Tensor& out, const Tensor& self, const Tensor& index);
Tensor put(const Tensor& self, const Tensor& index, const Tensor& source, bool accumulate = false);
Tensor& put_(Tensor& self, const Tensor& index, const Tensor& source, bool accumulate = false);

// value where mask (broadcast to self) is set; a tensor value must be 0-dim.
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Scalar& value);
Tensor masked_fill(const Tensor& self, const Tensor& mask, const Tensor& value);
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Scalar& value);
Tensor& masked_fill_(Tensor& self, const Tensor& mask, const Tensor& value);
// source's leading elements, in order, where mask (broadcast to self) is set.
Tensor masked_scatter(const Tensor& self, const Tensor& mask, const Tensor& source);
Tensor& masked_scatter_(Tensor& self, const Tensor& mask, const Tensor& source);

// nonzero(self): int64 [n, self.dim()].
Tensor argwhere(const Tensor& self);
// where(condition) with one argument: nonzero(condition) as one index tensor per dim.
std::vector<Tensor> where(const Tensor& condition);

}  // namespace ember
