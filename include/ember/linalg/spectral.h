// ember::linalg, spectral part: eigen- and singular value decompositions, QR, least squares,
// pseudo-inverse and rank, norms, and products (torch.linalg's names, defaults and results).
// Batched over leading dims; float32, float64, complex64, complex128. Decompositions return
// their factors column-major per matrix, as PyTorch's (LAPACK's layout).
#pragma once

#include <optional>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "ember/tensor.h"

namespace ember::linalg {

using OptDims = std::optional<IntArrayRef>;

// Hermitian eigendecomposition A = V diag(L) V^H, eigenvalues ascending; UPLO names the
// triangle read ("L" or "U").
std::tuple<Tensor, Tensor> eigh(const Tensor& A, std::string_view UPLO = "L");
Tensor eigvalsh(const Tensor& A, std::string_view UPLO = "L");
// General eigendecomposition A V = V diag(L) (complex results, unit-norm eigenvectors).
std::tuple<Tensor, Tensor> eig(const Tensor& A);
Tensor eigvals(const Tensor& A);
// A = U diag(S) Vh, S descending; full_matrices gives square U and Vh.
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool full_matrices = true,
                                       std::optional<std::string_view> driver = std::nullopt);
Tensor svdvals(const Tensor& A, std::optional<std::string_view> driver = std::nullopt);
// A = Q R; mode "reduced", "complete" or "r" (Q empty).
std::tuple<Tensor, Tensor> qr(const Tensor& A, std::string_view mode = "reduced");
// The first n columns of the product of the Householder reflectors (input, tau) (LAPACK's orgqr).
Tensor householder_product(const Tensor& input, const Tensor& tau);
// Singular values (eigenvalues' magnitudes when hermitian) above max(atol, rtol * largest)
// count; with neither given rtol is eps(dtype) * max(m, n).
Tensor pinv(const Tensor& A, std::optional<double> atol = std::nullopt, std::optional<double> rtol = std::nullopt,
            bool hermitian = false);
Tensor pinv(const Tensor& A, const std::optional<Tensor>& atol, const std::optional<Tensor>& rtol,
            bool hermitian);
Tensor matrix_rank(const Tensor& A, std::optional<double> atol = std::nullopt,
                   std::optional<double> rtol = std::nullopt, bool hermitian = false);
Tensor matrix_rank(const Tensor& A, const std::optional<Tensor>& atol, const std::optional<Tensor>& rtol,
                   bool hermitian);
// (solution, residuals, rank, singular_values); driver "gelsy" (default), "gelsd", "gelss", "gels".
std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq(const Tensor& A, const Tensor& B,
                                                 std::optional<double> rcond = std::nullopt,
                                                 std::optional<std::string_view> driver = std::nullopt);
Tensor vector_norm(const Tensor& x, const Scalar& ord = 2, OptDims dim = std::nullopt, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt);
// ord: 1, -1, 2, -2, inf, -inf (as doubles) or "fro", "nuc".
Tensor matrix_norm(const Tensor& A, const Scalar& ord, IntArrayRef dim = {-2, -1}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt);
Tensor matrix_norm(const Tensor& A, std::string_view ord = "fro", IntArrayRef dim = {-2, -1}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt);
Tensor norm(const Tensor& A, const std::optional<Scalar>& ord = std::nullopt, OptDims dim = std::nullopt,
            bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor norm(const Tensor& A, std::string_view ord, OptDims dim = std::nullopt, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
// Chained matrix product in the cheapest order (1-D first/last operands are a row/column).
Tensor multi_dot(TensorList tensors);
Tensor matrix_exp(const Tensor& A);
Tensor cross(const Tensor& a, const Tensor& b, int64_t dim = -1);
Tensor vecdot(const Tensor& x, const Tensor& y, int64_t dim = -1);
// Columns x^0, x^1, ..., x^(N-1) (N defaults to x.size(-1)).
Tensor vander(const Tensor& x, std::optional<int64_t> N = std::nullopt);
Tensor diagonal(const Tensor& A, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);

// out= forms (torch's): results written into the given tensors (resized; their dtypes must be
// the results'), which are returned; inputs may not require grad.
std::tuple<Tensor&, Tensor&> eigh_out(Tensor& eigenvalues, Tensor& eigenvectors, const Tensor& A,
                                      std::string_view UPLO = "L");
Tensor& eigvalsh_out(Tensor& out, const Tensor& A, std::string_view UPLO = "L");
std::tuple<Tensor&, Tensor&> eig_out(Tensor& eigenvalues, Tensor& eigenvectors, const Tensor& A);
Tensor& eigvals_out(Tensor& out, const Tensor& A);
std::tuple<Tensor&, Tensor&, Tensor&> svd_out(Tensor& U, Tensor& S, Tensor& Vh, const Tensor& A, bool full_matrices = true,
                                              std::optional<std::string_view> driver = std::nullopt);
Tensor& svdvals_out(Tensor& out, const Tensor& A, std::optional<std::string_view> driver = std::nullopt);
std::tuple<Tensor&, Tensor&> qr_out(Tensor& Q, Tensor& R, const Tensor& A, std::string_view mode = "reduced");
Tensor& householder_product_out(Tensor& out, const Tensor& input, const Tensor& tau);
Tensor& vector_norm_out(Tensor& out, const Tensor& x, const Scalar& ord = 2, OptDims dim = std::nullopt,
                        bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor& matrix_norm_out(Tensor& out, const Tensor& A, const Scalar& ord, IntArrayRef dim = {-2, -1},
                        bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor& matrix_norm_out(Tensor& out, const Tensor& A, std::string_view ord = "fro", IntArrayRef dim = {-2, -1},
                        bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor& norm_out(Tensor& out, const Tensor& A, const std::optional<Scalar>& ord = std::nullopt,
                 OptDims dim = std::nullopt, bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt);
Tensor& norm_out(Tensor& out, const Tensor& A, std::string_view ord, OptDims dim = std::nullopt, bool keepdim = false,
                 std::optional<ScalarType> dtype = std::nullopt);
Tensor& pinv_out(Tensor& out, const Tensor& A, std::optional<double> atol = std::nullopt,
                 std::optional<double> rtol = std::nullopt, bool hermitian = false);
Tensor& pinv_out(Tensor& out, const Tensor& A, const std::optional<Tensor>& atol, const std::optional<Tensor>& rtol,
                 bool hermitian);
Tensor& matrix_rank_out(Tensor& out, const Tensor& A, std::optional<double> atol = std::nullopt,
                        std::optional<double> rtol = std::nullopt, bool hermitian = false);
Tensor& matrix_rank_out(Tensor& out, const Tensor& A, const std::optional<Tensor>& atol,
                        const std::optional<Tensor>& rtol, bool hermitian);
std::tuple<Tensor&, Tensor&, Tensor&, Tensor&> lstsq_out(Tensor& solution, Tensor& residuals, Tensor& rank,
                                                         Tensor& singular_values, const Tensor& A, const Tensor& B,
                                                         std::optional<double> rcond = std::nullopt,
                                                         std::optional<std::string_view> driver = std::nullopt);
Tensor& multi_dot_out(Tensor& out, TensorList tensors);
Tensor& cross_out(Tensor& out, const Tensor& a, const Tensor& b, int64_t dim = -1);
Tensor& vecdot_out(Tensor& out, const Tensor& x, const Tensor& y, int64_t dim = -1);

// A string literal converts both to string_view and (through bool) to Scalar, and a literal 0
// both to Scalar and (as a null pointer) to string_view: these overloads, exact matches, send
// literals and numbers to the intended form, so matrix_norm(A, "nuc"), norm(A, 0) and
// matrix_norm_out(out, A, "fro") compile and mean what they say.
template <size_t N>
Tensor matrix_norm(const Tensor& A, const char (&ord)[N], IntArrayRef dim = {-2, -1}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt) {
  return matrix_norm(A, std::string_view(ord), dim, keepdim, dtype);
}
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
Tensor matrix_norm(const Tensor& A, T ord, IntArrayRef dim = {-2, -1}, bool keepdim = false,
                   std::optional<ScalarType> dtype = std::nullopt) {
  return matrix_norm(A, Scalar(ord), dim, keepdim, dtype);
}
template <size_t N>
Tensor& matrix_norm_out(Tensor& out, const Tensor& A, const char (&ord)[N], IntArrayRef dim = {-2, -1},
                        bool keepdim = false, std::optional<ScalarType> dtype = std::nullopt) {
  return matrix_norm_out(out, A, std::string_view(ord), dim, keepdim, dtype);
}
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
Tensor& matrix_norm_out(Tensor& out, const Tensor& A, T ord, IntArrayRef dim = {-2, -1}, bool keepdim = false,
                        std::optional<ScalarType> dtype = std::nullopt) {
  return matrix_norm_out(out, A, Scalar(ord), dim, keepdim, dtype);
}
template <size_t N>
Tensor norm(const Tensor& A, const char (&ord)[N], OptDims dim = std::nullopt, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt) {
  return norm(A, std::string_view(ord), dim, keepdim, dtype);
}
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
Tensor norm(const Tensor& A, T ord, OptDims dim = std::nullopt, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt) {
  return norm(A, std::optional<Scalar>(Scalar(ord)), dim, keepdim, dtype);
}
template <size_t N>
Tensor& norm_out(Tensor& out, const Tensor& A, const char (&ord)[N], OptDims dim = std::nullopt, bool keepdim = false,
                 std::optional<ScalarType> dtype = std::nullopt) {
  return norm_out(out, A, std::string_view(ord), dim, keepdim, dtype);
}
template <typename T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
Tensor& norm_out(Tensor& out, const Tensor& A, T ord, OptDims dim = std::nullopt, bool keepdim = false,
                 std::optional<ScalarType> dtype = std::nullopt) {
  return norm_out(out, A, std::optional<Scalar>(Scalar(ord)), dim, keepdim, dtype);
}

}  // namespace ember::linalg

namespace ember {
// The top-level forms PyTorch keeps: svd returns V (not Vh), and zero-filled U, V when
// compute_uv is false; qr's `some` is mode "reduced".
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool some = true, bool compute_uv = true);
std::tuple<Tensor&, Tensor&, Tensor&> svd_out(Tensor& U, Tensor& S, Tensor& V, const Tensor& A, bool some = true,
                                              bool compute_uv = true);
std::tuple<Tensor, Tensor> qr(const Tensor& A, bool some = true);
std::tuple<Tensor&, Tensor&> qr_out(Tensor& Q, Tensor& R, const Tensor& A, bool some = true);
Tensor pinverse(const Tensor& A, double rcond = 1e-15);
Tensor matrix_exp(const Tensor& A);

// Primitives the functions above are built on (PyTorch's): eigenvectors and singular vectors
// are skipped when not asked for.
std::tuple<Tensor, Tensor> _linalg_eigh(const Tensor& A, std::string_view UPLO = "L", bool compute_v = true);
std::tuple<Tensor, Tensor, Tensor> _linalg_svd(const Tensor& A, bool full_matrices = false, bool compute_uv = true,
                                               std::optional<std::string_view> driver = std::nullopt);
Tensor _linalg_eigvals(const Tensor& A);
// linalg.lstsq's kernel: every result differentiable (linalg::lstsq detaches all but the solution).
std::tuple<Tensor, Tensor, Tensor, Tensor> _linalg_lstsq(const Tensor& A, const Tensor& B,
                                                         std::optional<double> rcond = std::nullopt,
                                                         std::optional<std::string_view> driver = std::nullopt);
}  // namespace ember
