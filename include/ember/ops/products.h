// Matrix and vector products beyond matmul/mm/bmm (ops.h): dot, vdot, mv, outer and the
// fused beta * self + alpha * product family, then products written with other ops.
#pragma once

#include <optional>
#include <string_view>

#include "ember/tensor.h"

namespace ember {

Tensor dot(const Tensor& self, const Tensor& tensor);
Tensor vdot(const Tensor& self, const Tensor& other);  // conjugates self
Tensor mv(const Tensor& self, const Tensor& vec);
Tensor outer(const Tensor& self, const Tensor& vec2);

// beta * self + alpha * (product); beta == 0 ignores self (its NaNs too).
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor addr(const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
               const Scalar& alpha = 1);
// Sums the batch of products: beta * self + alpha * sum_i batch1[i] @ batch2[i].
Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
              const Scalar& alpha = 1);
Tensor& addmm_out(Tensor& out, const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
                  const Scalar& alpha = 1);
Tensor& addmv_out(Tensor& out, const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
                  const Scalar& alpha = 1);
Tensor& addr_out(Tensor& out, const Tensor& self, const Tensor& vec1, const Tensor& vec2, const Scalar& beta = 1,
                 const Scalar& alpha = 1);
Tensor& baddbmm_out(Tensor& out, const Tensor& self, const Tensor& batch1, const Tensor& batch2,
                    const Scalar& beta = 1, const Scalar& alpha = 1);
Tensor& addbmm_out(Tensor& out, const Tensor& self, const Tensor& batch1, const Tensor& batch2,
                   const Scalar& beta = 1, const Scalar& alpha = 1);

}  // namespace ember

namespace ember {

// Written with other ops (src/ops/products.cpp).
Tensor einsum(std::string_view equation, TensorList tensors);
Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims = 2);
Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b);
Tensor kron(const Tensor& a, const Tensor& b);
// dim: the dim of size 3; without it, the first dim of size 3 (torch.cross's default).
Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim = std::nullopt);
// Multiplies in the order that needs the fewest scalar products.
Tensor chain_matmul(TensorList matrices);
Tensor trace(const Tensor& self);
Tensor diff(const Tensor& self, int64_t n = 1, int64_t dim = -1, const std::optional<Tensor>& prepend = std::nullopt,
            const std::optional<Tensor>& append = std::nullopt);
Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim = -1);
Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx = 1, int64_t dim = -1);
// Distances between the rows of x1 [..., P, M] and x2 [..., R, M]; compute_mode as in torch.cdist.
Tensor cdist(const Tensor& x1, const Tensor& x2, double p = 2,
             std::string_view compute_mode = "use_mm_for_euclid_dist_if_necessary");

}  // namespace ember
