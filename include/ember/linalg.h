// ember::linalg: torch.linalg's functions and the top-level forms PyTorch keeps
// (det, inverse, cholesky_solve, ...). Factorizations and solvers in linalg/factor.h,
// spectral decompositions, norms and products in linalg/spectral.h; cond, which needs both, here.
#pragma once

#include <optional>
#include <string_view>

#include "ember/linalg/factor.h"
#include "ember/linalg/spectral.h"

namespace ember::linalg {
// Condition number in the norm p: None/2/-2 by singular values (any m x n matrix); 1, -1, inf,
// -inf, "fro", "nuc" as ||A|| ||A^-1|| (square matrices; infinite when A is singular).
Tensor cond(const Tensor& A, const std::optional<Scalar>& p = std::nullopt);
Tensor cond(const Tensor& A, std::string_view p);
Tensor& cond_out(Tensor& out, const Tensor& A, const std::optional<Scalar>& p = std::nullopt);
Tensor& cond_out(Tensor& out, const Tensor& A, std::string_view p);
// Literals and numbers as in matrix_norm (linalg/spectral.h): cond(A, "fro"), cond(A, 1).
template <size_t N>
Tensor cond(const Tensor& A, const char (&p)[N]) { return cond(A, std::string_view(p)); }
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
Tensor cond(const Tensor& A, T p) { return cond(A, std::optional<Scalar>(Scalar(p))); }
template <size_t N>
Tensor& cond_out(Tensor& out, const Tensor& A, const char (&p)[N]) { return cond_out(out, A, std::string_view(p)); }
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
Tensor& cond_out(Tensor& out, const Tensor& A, T p) { return cond_out(out, A, std::optional<Scalar>(Scalar(p))); }
}  // namespace ember::linalg
