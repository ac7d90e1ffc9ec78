// ember::linalg, factorizations and solvers: torch.linalg's cholesky, inv, det, slogdet, solve,
// lu_factor, lu, lu_solve, solve_triangular, ldl_factor, ldl_solve, tensorinv, tensorsolve and
// matrix_power, their `_ex` forms (which return LAPACK's `info` instead of raising), and the
// top-level forms PyTorch keeps (det, logdet, slogdet, inverse, cholesky, cholesky_solve,
// cholesky_inverse, triangular_solve, lu_solve, lu_unpack).
//
// Matrices are the last two dims; leading dims are batch dims (broadcast where PyTorch
// broadcasts: solve, lu_solve, solve_triangular, cholesky_solve). float32, float64, complex64
// and complex128. Singular or non-positive-definite input raises ember::LinAlgError naming the
// batch element; pivots are 1-based int32, as LAPACK's.
#pragma once

#include <optional>
#include <tuple>

#include "ember/tensor.h"

namespace ember::linalg {

using Tensors2 = std::tuple<Tensor, Tensor>;
using Tensors3 = std::tuple<Tensor, Tensor, Tensor>;
using Outs2 = std::tuple<Tensor&, Tensor&>;
using Outs3 = std::tuple<Tensor&, Tensor&, Tensor&>;

// Each `_out` form is torch's out=: the results are written into the given tensors (resized;
// their dtypes must be the results'), which are returned; inputs may not require grad.

// (L, info): A = L L^H (upper: A = U^H U).
Tensors2 cholesky_ex(const Tensor& A, bool upper = false, bool check_errors = false);
Tensor cholesky(const Tensor& A, bool upper = false);
Tensor& cholesky_out(Tensor& out, const Tensor& A, bool upper = false);
Outs2 cholesky_ex_out(Tensor& L, Tensor& info, const Tensor& A, bool upper = false, bool check_errors = false);
// (inverse, info)
Tensors2 inv_ex(const Tensor& A, bool check_errors = false);
Tensor inv(const Tensor& A);
Tensor& inv_out(Tensor& out, const Tensor& A);
Outs2 inv_ex_out(Tensor& inverse, Tensor& info, const Tensor& A, bool check_errors = false);
Tensor det(const Tensor& A);
Tensor& det_out(Tensor& out, const Tensor& A);
// (sign, logabsdet): det = sign * exp(logabsdet); sign is 0 and logabsdet -inf when singular.
Tensors2 slogdet(const Tensor& A);
Outs2 slogdet_out(Tensor& sign, Tensor& logabsdet, const Tensor& A);
// AX = B (left) or XA = B; B may be a vector (or a batch of vectors matching A's batch).
Tensors2 solve_ex(const Tensor& A, const Tensor& B, bool left = true, bool check_errors = false);
Tensor solve(const Tensor& A, const Tensor& B, bool left = true);
Tensor& solve_out(Tensor& out, const Tensor& A, const Tensor& B, bool left = true);
Outs2 solve_ex_out(Tensor& result, Tensor& info, const Tensor& A, const Tensor& B, bool left = true,
                   bool check_errors = false);
// (LU, pivots, info); LU holds L's strict lower part (unit diagonal) and U.
Tensors3 lu_factor_ex(const Tensor& A, bool pivot = true, bool check_errors = false);
Tensors2 lu_factor(const Tensor& A, bool pivot = true);
Outs3 lu_factor_ex_out(Tensor& LU, Tensor& pivots, Tensor& info, const Tensor& A, bool pivot = true,
                       bool check_errors = false);
Outs2 lu_factor_out(Tensor& LU, Tensor& pivots, const Tensor& A, bool pivot = true);
// (P, L, U) with A = P L U.
Tensors3 lu(const Tensor& A, bool pivot = true);
Outs3 lu_out(Tensor& P, Tensor& L, Tensor& U, const Tensor& A, bool pivot = true);
// Solves with lu_factor's output; adjoint: A^H X = B.
Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left = true, bool adjoint = false);
Tensor& lu_solve_out(Tensor& out, const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left = true,
                     bool adjoint = false);
Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left = true, bool unitriangular = false);
Tensor& solve_triangular_out(Tensor& out, const Tensor& A, const Tensor& B, bool upper, bool left = true,
                             bool unitriangular = false);
// (LD, pivots, info): Bunch-Kaufman A = L D L^T (hermitian: L D L^H).
Tensors3 ldl_factor_ex(const Tensor& A, bool hermitian = false, bool check_errors = false);
Tensors2 ldl_factor(const Tensor& A, bool hermitian = false);
Outs3 ldl_factor_ex_out(Tensor& LD, Tensor& pivots, Tensor& info, const Tensor& A, bool hermitian = false,
                        bool check_errors = false);
Outs2 ldl_factor_out(Tensor& LD, Tensor& pivots, const Tensor& A, bool hermitian = false);
Tensor ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian = false);
Tensor& ldl_solve_out(Tensor& out, const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian = false);
Tensor tensorinv(const Tensor& A, int64_t ind = 2);
Tensor& tensorinv_out(Tensor& out, const Tensor& A, int64_t ind = 2);
Tensor tensorsolve(const Tensor& A, const Tensor& B, std::optional<IntArrayRef> dims = std::nullopt);
Tensor& tensorsolve_out(Tensor& out, const Tensor& A, const Tensor& B, std::optional<IntArrayRef> dims = std::nullopt);
Tensor matrix_power(const Tensor& A, int64_t n);
Tensor& matrix_power_out(Tensor& out, const Tensor& A, int64_t n);

}  // namespace ember::linalg

namespace ember {
// Top-level forms (torch.det, torch.inverse, ...).
Tensor det(const Tensor& A);
Tensor logdet(const Tensor& A);
std::tuple<Tensor, Tensor> slogdet(const Tensor& A);
std::tuple<Tensor&, Tensor&> slogdet_out(Tensor& sign, Tensor& logabsdet, const Tensor& A);
Tensor inverse(const Tensor& A);
Tensor& inverse_out(Tensor& out, const Tensor& A);
Tensor cholesky(const Tensor& A, bool upper = false);
Tensor& cholesky_out(Tensor& out, const Tensor& A, bool upper = false);
// Solves A X = B given A's Cholesky factor L (upper: U).
Tensor cholesky_solve(const Tensor& B, const Tensor& L, bool upper = false);
Tensor& cholesky_solve_out(Tensor& out, const Tensor& B, const Tensor& L, bool upper = false);
Tensor cholesky_inverse(const Tensor& L, bool upper = false);
Tensor& cholesky_inverse_out(Tensor& out, const Tensor& L, bool upper = false);
// (solution, cloned_coefficient) of A X = B; transpose: A^T X = B.
std::tuple<Tensor, Tensor> triangular_solve(const Tensor& B, const Tensor& A, bool upper = true,
                                            bool transpose = false, bool unitriangular = false);
std::tuple<Tensor&, Tensor&> triangular_solve_out(Tensor& X, Tensor& M, const Tensor& B, const Tensor& A,
                                                  bool upper = true, bool transpose = false, bool unitriangular = false);
Tensor lu_solve(const Tensor& B, const Tensor& LU, const Tensor& pivots);
Tensor& lu_solve_out(Tensor& out, const Tensor& B, const Tensor& LU, const Tensor& pivots);
// (P, L, U) from lu_factor's (LU, pivots); unpack_data / unpack_pivots false: those come back empty.
std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU, const Tensor& pivots, bool unpack_data = true,
                                             bool unpack_pivots = true);
std::tuple<Tensor&, Tensor&, Tensor&> lu_unpack_out(Tensor& P, Tensor& L, Tensor& U, const Tensor& LU,
                                                    const Tensor& pivots, bool unpack_data = true,
                                                    bool unpack_pivots = true);
Tensor matrix_power(const Tensor& A, int64_t n);
Tensor& matrix_power_out(Tensor& out, const Tensor& A, int64_t n);
}  // namespace ember
