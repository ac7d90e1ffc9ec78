// torch.linalg functions built from the spectral primitives (linalg_spectral.cpp) and other
// ops, as composites, so autograd records the primitives and pointwise ops they call: eigh,
// eigvalsh, eigvals, svd, svdvals, pinv, matrix_rank, the norms, multi_dot, matrix_exp, cross,
// vecdot, vander, diagonal, and the top-level svd, qr, pinverse and matrix_exp. Argument rules
// and messages follow PyTorch 1.13 (aten/src/ATen/native/BatchLinearAlgebra.cpp, LinearAlgebra.cpp).
#include <cmath>
#include <functional>
#include <limits>

#include "autograd/out_check.h"
#include "core/torch_names.h"
#include "ember/autograd.h"
#include "ember/dispatch.h"
#include "ember/error.h"
#include "ember/forward_ad.h"
#include "ember/linalg/spectral.h"
#include "ember/ops.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"
#include "ops/linalg_factor_util.h"

namespace ember {
namespace linalg_detail {
void check_matrix(const char* fname, const Tensor& A, bool square, const char* arg);
void check_float_input(const char* fname, const Tensor& A);
void check_kernel_dtype(const char* kernel, const Tensor& A);
}  // namespace linalg_detail

namespace linalg_composite {
namespace {

using namespace linalg_detail;
using OptDims = std::optional<IntArrayRef>;
using OptTensor = std::optional<Tensor>;

// Whether a gradient or a tangent will be asked of `t`: the decompositions then compute the
// vectors that the formulas (and the JVPs derived from them) need even where only values are
// returned.
bool wants_grad(const Tensor& t) {
  if (autograd::GradMode::is_enabled() && autograd::requires_grad(t)) return true;
  return autograd::forward_ad::is_active() && autograd::forward_ad::unpack_dual(t).tangent.defined();
}

Tensor mH(const Tensor& t) { return t.is_complex() ? conj(t).mT() : t.mT(); }

double eps_of(ScalarType t) {
  return to_real_type(t) == kFloat ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
}

// ---------------------------------------------------------------- decompositions
std::tuple<Tensor, Tensor> eigh_c(const Tensor& A, std::string_view uplo) { return _linalg_eigh(A, uplo, true); }
Tensor eigvalsh_c(const Tensor& A, std::string_view uplo) {
  return std::get<0>(_linalg_eigh(A, uplo, wants_grad(A)));
}
Tensor eigvals_c(const Tensor& A) {
  if (wants_grad(A)) return std::get<0>(linalg::eig(A));
  return _linalg_eigvals(A);
}
std::tuple<Tensor, Tensor, Tensor> svd_c(const Tensor& A, bool full_matrices, std::optional<std::string_view> driver) {
  return _linalg_svd(A, full_matrices, true, driver);
}
Tensor svdvals_c(const Tensor& A, std::optional<std::string_view> driver) {
  return std::get<1>(_linalg_svd(A, false, wants_grad(A), driver));
}

std::tuple<Tensor, Tensor, Tensor> svd_old_c(const Tensor& A, bool some, bool compute_uv) {
  check_matrix("linalg.svd", A, false, "A");
  if (compute_uv) {
    auto [U, S, Vh] = _linalg_svd(A, !some, true, std::nullopt);
    return {U, S, mH(Vh)};
  }
  // The vectors are still computed when a gradient will be asked for (svdvals' rule).
  Tensor S = std::get<1>(_linalg_svd(A, false, wants_grad(A), std::nullopt));
  // Zero-filled square factors (m x m and n x n, whatever `some` says), as PyTorch's.
  const int64_t m = A.size(-2), n = A.size(-1);
  DimVector us(A.sizes()), vs(A.sizes());
  us.back() = m;
  vs[vs.size() - 2] = n;
  const TensorOptions o = TensorOptions(A.dtype()).device(A.device());
  return {zeros(us, o), S, zeros(vs, o)};
}

std::tuple<Tensor, Tensor> qr_old_c(const Tensor& A, bool some) { return linalg::qr(A, some ? "reduced" : "complete"); }

// ---------------------------------------------------------------- pinv, matrix_rank
void check_pinv_input(const Tensor& A) {
  const ScalarType t = A.dtype();
  const bool ok = A.dim() >= 2 && (t == kFloat || t == kDouble || t == kComplexFloat || t == kComplexDouble);
  if (!ok) {
    std::string shape = "[";
    for (int64_t i = 0; i < A.dim(); ++i) shape += (i ? ", " : "") + std::to_string(A.size(i));
    EMBER_FAIL(RuntimeError, "linalg.pinv(", torch_type_name(t), "{", shape,
               "]}): expected a tensor with 2 or more dimensions of float, double, cfloat or cdouble types");
  }
}

// The tolerances as real tensors shaped to broadcast against (..., k) values; rtol defaults
// to eps * max(m, n) when neither is given, else to 0.
std::pair<Tensor, Tensor> tolerances(const Tensor& A, const OptTensor& atol, const OptTensor& rtol) {
  const ScalarType rt = to_real_type(A.dtype());
  const TensorOptions o = TensorOptions(rt).device(A.device());
  const double def = (!atol && !rtol) ? eps_of(A.dtype()) * static_cast<double>(std::max(A.size(-1), A.size(-2))) : 0.0;
  Tensor a = atol ? atol->unsqueeze(-1) : zeros({}, o);
  Tensor r = rtol ? rtol->unsqueeze(-1) : full({}, def, o);
  return {a, r};
}

Tensor pinv_t(const Tensor& A, const OptTensor& atol, const OptTensor& rtol, bool hermitian) {
  check_pinv_input(A);
  if (A.numel() == 0) return mul(mH(A), Scalar(0));  // empty, shaped (..., n, m)
  auto [at, rt] = tolerances(A, atol, rtol);
  if (!hermitian) {
    auto [U, S, Vh] = _linalg_svd(A, false, true, std::nullopt);
    Tensor tol = maximum(at, mul(rt, S.narrow(-1, 0, 1)));
    Tensor Sinv = where(gt(S, tol), reciprocal(S), zeros({}, TensorOptions(S.dtype()))).to(A.dtype());
    return matmul(mul(mH(Vh), Sinv.unsqueeze(-2)), mH(U));
  }
  auto [L, V] = _linalg_eigh(A, "L", true);
  Tensor absL = L.abs();
  Tensor tol = maximum(at, mul(rt, amax(absL, {-1}, true)));
  Tensor Linv = where(gt(absL, tol), reciprocal(L), zeros({}, TensorOptions(L.dtype()))).to(A.dtype());
  return matmul(mul(V, Linv.unsqueeze(-2)), mH(V));
}

OptTensor as_tensor(const Tensor& A, std::optional<double> v) {
  if (!v) return std::nullopt;
  return full({}, *v, TensorOptions(to_real_type(A.dtype())).device(A.device()));
}

Tensor pinv_f(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  check_pinv_input(A);
  return linalg::pinv(A, as_tensor(A, atol), as_tensor(A, rtol), hermitian);
}
Tensor pinv_rcond(const Tensor& A, double rcond, bool hermitian) {
  check_pinv_input(A);
  return linalg::pinv(A, full({}, 0.0, TensorOptions(to_real_type(A.dtype()))), as_tensor(A, rcond), hermitian);
}
Tensor pinv_rcond_t(const Tensor& A, const Tensor& rcond, bool hermitian) {
  check_pinv_input(A);
  return linalg::pinv(A, full({}, 0.0, TensorOptions(to_real_type(A.dtype()))), rcond, hermitian);
}
Tensor pinverse_c(const Tensor& A, double rcond) { return pinv_rcond(A, rcond, false); }

Tensor rank_t(const Tensor& A, const OptTensor& atol, const OptTensor& rtol, bool hermitian) {
  check_matrix("torch.linalg.matrix_rank", A, false, "input");
  const ScalarType t = A.dtype();
  EMBER_CHECK(t == kFloat || t == kDouble || t == kComplexFloat || t == kComplexDouble, RuntimeError,
              "This function doesn't handle types other than float and double");
  if (A.numel() == 0) {
    DimVector b(A.sizes().slice(0, static_cast<size_t>(A.dim() - 2)));
    return zeros(b, TensorOptions(kInt64).device(A.device()));
  }
  autograd::NoGradGuard no_grad;  // an integer result: nothing to differentiate
  Tensor S = hermitian ? std::get<0>(_linalg_eigh(A, "L", false)).abs() : std::get<1>(_linalg_svd(A, false, false, std::nullopt));
  auto [at, rt] = tolerances(A, atol, rtol);
  Tensor tol = maximum(at, mul(rt, amax(S, {-1}, true)));
  return sum(gt(S, tol), {-1}, false, kInt64);
}
Tensor rank_f(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  return rank_t(A, as_tensor(A, atol), as_tensor(A, rtol), hermitian);
}
Tensor rank_tol(const Tensor& A, double tol, bool hermitian) {
  return rank_t(A, as_tensor(A, tol), as_tensor(A, 0.0), hermitian);
}
Tensor rank_tol_t(const Tensor& A, const Tensor& tol, bool hermitian) {
  return rank_t(A, tol, as_tensor(A, 0.0), hermitian);
}

// ---------------------------------------------------------------- norms
DimVector all_dims(int64_t n) {
  DimVector d;
  for (int64_t i = 0; i < n; ++i) d.push_back(i);
  return d;
}

Tensor vector_norm_c(const Tensor& x, const Scalar& ord, OptDims dim, bool keepdim, std::optional<ScalarType> dtype) {
  check_float_input("linalg.vector_norm", x);
  if (dtype) {
    EMBER_CHECK(is_floating_point(*dtype) || is_complex(*dtype), RuntimeError,
                "linalg.vector_norm: dtype should be floating point or complex. Got ", torch_type_name(*dtype));
    EMBER_CHECK(is_complex(*dtype) == x.is_complex(), RuntimeError, "linalg.vector_norm: dtype should be ",
                x.is_complex() ? "complex" : "real", " for ", x.is_complex() ? "complex" : "real", " inputs, but got ",
                torch_type_name(*dtype));
  }
  const Tensor in = dtype ? x.to(*dtype) : x;
  DimVector dims = dim && !dim->empty() ? DimVector(*dim) : all_dims(in.dim());
  const double p = ord.to<double>();
  if (in.numel() == 0 && std::isinf(p)) {
    bool bad = in.dim() == 0;
    for (int64_t d : dims) bad = bad || in.size(wrap_dim(d, std::max<int64_t>(in.dim(), 1))) == 0;
    EMBER_CHECK(!bad, RuntimeError, "linalg.vector_norm cannot compute the ", p > 0 ? "inf" : "-inf",
                " norm on an empty tensor because the operation does not have an identity");
  }
  if (in.dim() == 0) return norm(in.reshape({1}), ord, IntArrayRef{0}, false);  // its one element
  return norm(in, ord, dims, keepdim);
}

// ord as a number: 1, -1, 2, -2, inf, -inf; as a string: "fro", "nuc".
Tensor matrix_norm_impl(const Tensor& A, double ord, std::string_view sord, IntArrayRef dim, bool keepdim,
                        std::optional<ScalarType> dtype) {
  check_matrix("linalg.matrix_norm", A, false, "A");
  EMBER_CHECK(dim.size() == 2, RuntimeError, "linalg.matrix_norm: dim must be a 2-tuple. Got ", dim);
  const int64_t d0 = wrap_dim(dim[0], A.dim()), d1 = wrap_dim(dim[1], A.dim());
  EMBER_CHECK(d0 != d1, RuntimeError, "linalg.matrix_norm: dims must be different. Got (", dim[0], ", ", dim[1], ")");
  check_float_input("linalg.matrix_norm", A);
  const Tensor in = dtype ? A.to(*dtype) : A;
  if (sord == "fro") return vector_norm_c(in, 2, IntArrayRef{d0, d1}, keepdim, std::nullopt);
  const double a = std::abs(ord);
  if (!sord.empty() || a == 2) {
    // nuclear and spectral norms from the singular values, with the two dims moved last
    EMBER_CHECK(in.dtype() != kHalf && in.dtype() != kBFloat16, RuntimeError,
                "linalg.matrix_norm: Low precision dtypes not supported. Got ", torch_type_name(in.dtype()));
    Tensor M = movedim(in, IntArrayRef{d0, d1}, IntArrayRef{-2, -1});
    Tensor S = svdvals_c(M, std::nullopt);
    Tensor r = sord == "nuc" ? S.sum({-1}) : (ord > 0 ? amax(S, {-1}) : amin(S, {-1}));
    if (keepdim) {
      const int64_t lo = std::min(d0, d1), hi = std::max(d0, d1);
      r = r.unsqueeze(lo).unsqueeze(hi);
    }
    return r;
  }
  // 1 / -1: the largest / smallest column sum of |A|; inf / -inf: row sums.
  const int64_t sum_dim = a == 1 ? d0 : d1, red_dim = a == 1 ? d1 : d0;
  Tensor s = in.abs().sum({sum_dim}, true);
  Tensor r = ord > 0 ? amax(s, {red_dim}, true) : amin(s, {red_dim}, true);
  if (!keepdim) r = r.squeeze(std::max(d0, d1)).squeeze(std::min(d0, d1));
  return r;
}

Tensor matrix_norm_num(const Tensor& A, const Scalar& ord, IntArrayRef dim, bool keepdim,
                       std::optional<ScalarType> dtype) {
  const double o = ord.to<double>();
  const double a = std::abs(o);
  if (!(a == 1 || a == 2 || std::isinf(a))) {
    std::string s = o == std::floor(o) && std::isfinite(o) ? std::to_string(static_cast<int64_t>(o)) : std::to_string(o);
    EMBER_FAIL(RuntimeError, "linalg.matrix_norm: Order ", s, " not supported.");
  }
  return matrix_norm_impl(A, o, "", dim, keepdim, dtype);
}
Tensor matrix_norm_str(const Tensor& A, std::string_view ord, IntArrayRef dim, bool keepdim,
                       std::optional<ScalarType> dtype) {
  EMBER_CHECK(ord == "fro" || ord == "nuc", RuntimeError, "linalg.matrix_norm: Order ", ord, " not supported.");
  return matrix_norm_impl(A, 0, ord, dim, keepdim, dtype);
}

Tensor norm_num(const Tensor& A, const std::optional<Scalar>& ord, OptDims dim, bool keepdim,
                std::optional<ScalarType> dtype) {
  if (dim) {
    EMBER_CHECK(dim->size() == 1 || dim->size() == 2, RuntimeError,
                "linalg.norm: If dim is specified, it must be of length 1 or 2. Got ", *dim);
  } else if (ord) {
    EMBER_CHECK(A.dim() == 1 || A.dim() == 2, RuntimeError,
                "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got ", A.dim(), "D.");
  }
  const bool matrix = dim ? dim->size() == 2 : (ord && A.dim() == 2);
  if (matrix) {
    static const int64_t last_two[2] = {-2, -1};
    const IntArrayRef d = dim ? *dim : IntArrayRef(last_two, 2);
    if (!ord) return matrix_norm_str(A, "fro", d, keepdim, dtype);
    return matrix_norm_num(A, *ord, d, keepdim, dtype);
  }
  return vector_norm_c(A, ord ? *ord : Scalar(2.0), dim, keepdim, dtype);
}
Tensor norm_str(const Tensor& A, std::string_view ord, OptDims dim, bool keepdim, std::optional<ScalarType> dtype) {
  if (dim) {
    EMBER_CHECK(dim->size() == 2, RuntimeError, "linalg.norm: If dim is specified, it mut be of length 2. Got ", *dim);
  } else {
    EMBER_CHECK(A.dim() == 2, RuntimeError,
                "linalg.norm: If dim is not specified but ord is, the input must be 2D. Got ", A.dim(), "D.");
  }
  return matrix_norm_str(A, ord, dim ? *dim : IntArrayRef{-2, -1}, keepdim, dtype);
}

// ---------------------------------------------------------------- products
std::string shape_str(IntArrayRef s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

Tensor multi_dot_c(TensorList tensors) {
  const size_t n = tensors.size();
  EMBER_CHECK(n >= 2, RuntimeError, "multi_dot(): expected at least 2 tensors but got ", n);
  const int64_t first = tensors[0].dim(), last = tensors[n - 1].dim();
  EMBER_CHECK(first == 1 || first == 2, RuntimeError, "multi_dot(): the first tensor must be 1D or 2D but got ", first,
              "D");
  EMBER_CHECK(last == 1 || last == 2, RuntimeError, "multi_dot(): the last tensor must be 1D or 2D but got ", last, "D");
  for (size_t i = 1; i + 1 < n; ++i)
    EMBER_CHECK(tensors[i].dim() == 2, RuntimeError, "multi_dot(): tensor ", i, " must be 2D but got ", tensors[i].dim(),
                "D");
  for (size_t i = 1; i < n; ++i)
    EMBER_CHECK(tensors[i].dtype() == tensors[0].dtype(), RuntimeError,
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is ",
                torch_type_name(tensors[0].dtype()), " and tensor ", i, " is ", torch_type_name(tensors[i].dtype()));
  std::vector<Tensor> m(tensors.begin(), tensors.end());
  if (first == 1) m[0] = m[0].unsqueeze(0);
  if (last == 1) m[n - 1] = m[n - 1].unsqueeze(-1);
  for (size_t i = 0; i + 1 < n; ++i)
    EMBER_CHECK(m[i].size(-1) == m[i + 1].size(-2), RuntimeError, "multi_dot(): tensors ", i, " and ", i + 1,
                " with shapes ", shape_str(tensors[i].sizes()), " and ", shape_str(tensors[i + 1].sizes()),
                " cannot be multiplied");
  // The cheapest parenthesization (dynamic programming over the chain's dimensions).
  std::vector<int64_t> p(n + 1);
  for (size_t i = 0; i < n; ++i) p[i] = m[i].size(0);
  p[n] = m[n - 1].size(1);
  std::vector<std::vector<int64_t>> cost(n, std::vector<int64_t>(n, 0)), split(n, std::vector<int64_t>(n, 0));
  for (size_t len = 1; len < n; ++len)
    for (size_t i = 0; i + len < n; ++i) {
      const size_t j = i + len;
      cost[i][j] = std::numeric_limits<int64_t>::max();
      for (size_t k = i; k < j; ++k) {
        const int64_t c = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1];
        if (c < cost[i][j]) {
          cost[i][j] = c;
          split[i][j] = static_cast<int64_t>(k);
        }
      }
    }
  std::function<Tensor(size_t, size_t)> chain = [&](size_t i, size_t j) -> Tensor {
    if (i == j) return m[i];
    const size_t k = static_cast<size_t>(split[i][j]);
    return matmul(chain(i, k), chain(k + 1, j));
  };
  Tensor r = chain(0, n - 1);
  if (first == 1 && last == 1) return r.squeeze(0).squeeze(0);
  if (first == 1) return r.squeeze(0);
  if (last == 1) return r.squeeze(-1);
  return r;
}

// exp(A) by scaling and squaring a degree-18 Taylor polynomial, evaluated with
// Paterson-Stockmeyer (7 products). Written with ops, so it differentiates to any order.
Tensor matrix_exp_c(const Tensor& A) {
  check_matrix("linalg.matrix_exp", A, true, "A");
  EMBER_CHECK(is_floating_point(A.dtype()) || is_complex(A.dtype()), RuntimeError,
              "matrix_exp: Expected a floating point or complex tensor as input. Got ", torch_type_name(A.dtype()));
  EMBER_CHECK(A.dtype() != kHalf, RuntimeError, "\"log2_vml_cpu\" not implemented for 'Half'");
  if (A.dtype() == kBFloat16) return matrix_exp_c(A.to(kFloat)).to(kBFloat16);  // computed in float32
  const int64_t n = A.size(-1);
  if (A.numel() == 0) return A.clone();
  if (n == 1) return A.exp();
  double norm1;
  {
    autograd::NoGradGuard g;
    norm1 = amax(A.abs().sum({-2}), {}).item<double>();
  }
  int64_t s = 0;
  if (std::isfinite(norm1) && norm1 > 0.5) s = static_cast<int64_t>(std::ceil(std::log2(norm1 / 0.5)));
  Tensor X = s > 0 ? div(A, Scalar(std::ldexp(1.0, static_cast<int>(s)))) : A;
  const Tensor I = eye(n, std::nullopt, TensorOptions(A.dtype()).device(A.device()));
  const Tensor X2 = matmul(X, X), X3 = matmul(X2, X), X4 = matmul(X3, X);
  double c[19];
  c[0] = 1;
  for (int k = 1; k <= 18; ++k) c[k] = c[k - 1] / k;
  auto block = [&](int j) {  // sum_{i<4} c[4j + i] X^i
    Tensor b = add(mul(I, Scalar(c[4 * j])), X, Scalar(c[4 * j + 1]));
    b = add(b, X2, Scalar(c[4 * j + 2]));
    if (4 * j + 3 <= 18) b = add(b, X3, Scalar(c[4 * j + 3]));
    return b;
  };
  Tensor R = block(4);
  for (int j = 3; j >= 0; --j) R = add(matmul(R, X4), block(j));
  for (int64_t i = 0; i < s; ++i) R = matmul(R, R);
  return R;
}

Tensor cross_c(const Tensor& a, const Tensor& b, int64_t dim) {
  EMBER_CHECK(a.dim() == b.dim(), RuntimeError, "linalg.cross: inputs must have the same number of dimensions.");
  const int64_t d = wrap_dim(dim, a.dim());
  const ScalarType t = promote_types(a.dtype(), b.dtype());
  EMBER_CHECK(t != kHalf && t != kBool, RuntimeError, "\"cross\" not implemented for '", torch_type_name(t), "'");
  EMBER_CHECK(a.size(d) == 3 && b.size(d) == 3, RuntimeError, "linalg.cross: inputs dimension ", dim,
              " must have length 3. Got ", a.size(d), " and ", b.size(d));
  // (a x b)_i = a_{i+1} b_{i+2} - a_{i+2} b_{i+1} (indices mod 3)
  return sub(mul(roll(a, {-1}, {d}), roll(b, {-2}, {d})), mul(roll(a, {-2}, {d}), roll(b, {-1}, {d})));
}

Tensor vecdot_c(const Tensor& x, const Tensor& y, int64_t dim) {
  check_float_input("linalg.vecdot", x);
  EMBER_CHECK(x.dtype() == y.dtype(), RuntimeError, "linalg.vecdot: Expected x and y to have the same dtype, but found x of type ",
              torch_type_name(x.dtype()), " and y of type ", torch_type_name(y.dtype()), " instead");
  return sum(mul(x.is_complex() ? conj(x) : x, y), {dim});
}

Tensor vander_c(const Tensor& x, std::optional<int64_t> N) {
  EMBER_CHECK(x.dim() >= 1, RuntimeError, "N must be greater than 1.");
  const ScalarType t = x.dtype();
  EMBER_CHECK(t != kBool && t != kHalf && t != kBFloat16, RuntimeError,
              "linalg.vander supports floating point, complex, and integer tensors, but got ", torch_type_name(t));
  const int64_t n = N.value_or(x.size(-1));
  EMBER_CHECK(n > 1, RuntimeError, "N must be greater than 1.");
  DimVector shape(x.sizes());
  shape.push_back(n - 1);
  Tensor powers = cumprod(x.unsqueeze(-1).expand(shape), -1);
  shape.back() = 1;
  return cat({ones(shape, TensorOptions(powers.dtype()).device(x.device())), powers}, -1);
}

std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq_c(const Tensor& A, const Tensor& B, std::optional<double> rcond,
                                                   std::optional<std::string_view> driver) {
  auto [sol, res, rank, sv] = _linalg_lstsq(A, B, rcond, driver);
  return {sol, res.detach(), rank, sv.detach()};  // only the solution is differentiable, as in PyTorch
}

Tensor diagonal_c(const Tensor& A, int64_t offset, int64_t dim1, int64_t dim2) { return A.diagonal(offset, dim1, dim2); }

// ---------------------------------------------------------------- out= forms
// The functional op, then a copy into out (linalg_factor_ops::set_out: same dtype required,
// resized); refused when an input requires grad, as PyTorch's out= forms.
using Out1 = Tensor&;
using Out2 = std::tuple<Tensor&, Tensor&>;
using Out3 = std::tuple<Tensor&, Tensor&, Tensor&>;
using Out4 = std::tuple<Tensor&, Tensor&, Tensor&, Tensor&>;
using linalg_factor_ops::set_out;
using linalg_factor_ops::set_out_cast;
Out2 set2(Tensor& a, Tensor& b, const std::tuple<Tensor, Tensor>& r) {
  set_out(a, std::get<0>(r));
  set_out(b, std::get<1>(r));
  return {a, b};
}

Out2 eigh_out_k(const Tensor& A, std::string_view uplo, Tensor& L, Tensor& V) {
  autograd::check_out_inputs("linalg_eigh", {A});
  return set2(L, V, linalg::eigh(A, uplo));
}
Out1 eigvalsh_out_k(const Tensor& A, std::string_view uplo, Tensor& out) {
  autograd::check_out_inputs("linalg_eigvalsh", {A});
  set_out(out, linalg::eigvalsh(A, uplo));
  return out;
}
Out2 eig_out_k(const Tensor& A, Tensor& L, Tensor& V) {
  autograd::check_out_inputs("linalg_eig", {A});
  return set2(L, V, linalg::eig(A));
}
Out1 eigvals_out_k(const Tensor& A, Tensor& out) {
  autograd::check_out_inputs("linalg_eigvals", {A});
  set_out(out, linalg::eigvals(A));
  return out;
}
Out3 svd_out_k(const Tensor& A, bool full, std::optional<std::string_view> driver, Tensor& U, Tensor& S, Tensor& Vh) {
  autograd::check_out_inputs("linalg_svd", {A});
  auto [u, sv, vh] = linalg::svd(A, full, driver);
  set_out(U, u);
  set_out(S, sv);
  set_out(Vh, vh);
  return {U, S, Vh};
}
Out1 svdvals_out_k(const Tensor& A, std::optional<std::string_view> driver, Tensor& out) {
  autograd::check_out_inputs("linalg_svdvals", {A});
  set_out(out, linalg::svdvals(A, driver));
  return out;
}
Out2 qr_out_k(const Tensor& A, std::string_view mode, Tensor& Q, Tensor& R) {
  autograd::check_out_inputs("linalg_qr", {A});
  return set2(Q, R, linalg::qr(A, mode));
}
Out1 householder_out_k(const Tensor& input, const Tensor& tau, Tensor& out) {
  autograd::check_out_inputs("linalg_householder_product", {input, tau});
  set_out(out, linalg::householder_product(input, tau));
  return out;
}
Out1 vector_norm_out_k(const Tensor& x, const Scalar& ord, OptDims dim, bool keepdim, std::optional<ScalarType> dtype,
                       Tensor& out) {
  autograd::check_out_inputs("linalg_vector_norm", {x});
  set_out(out, linalg::vector_norm(x, ord, dim, keepdim, dtype));
  return out;
}
Out1 matrix_norm_out_k(const Tensor& A, const Scalar& ord, IntArrayRef dim, bool keepdim,
                       std::optional<ScalarType> dtype, Tensor& out) {
  autograd::check_out_inputs("linalg_matrix_norm", {A});
  set_out(out, linalg::matrix_norm(A, ord, dim, keepdim, dtype));
  return out;
}
Out1 matrix_norm_str_out_k(const Tensor& A, std::string_view ord, IntArrayRef dim, bool keepdim,
                           std::optional<ScalarType> dtype, Tensor& out) {
  autograd::check_out_inputs("linalg_matrix_norm", {A});
  set_out(out, linalg::matrix_norm(A, ord, dim, keepdim, dtype));
  return out;
}
Out1 norm_out_k(const Tensor& A, const std::optional<Scalar>& ord, OptDims dim, bool keepdim,
                std::optional<ScalarType> dtype, Tensor& out) {
  autograd::check_out_inputs("linalg_norm", {A});
  set_out(out, linalg::norm(A, ord, dim, keepdim, dtype));
  return out;
}
Out1 norm_str_out_k(const Tensor& A, std::string_view ord, OptDims dim, bool keepdim, std::optional<ScalarType> dtype,
                    Tensor& out) {
  autograd::check_out_inputs("linalg_norm", {A});
  set_out(out, linalg::norm(A, ord, dim, keepdim, dtype));
  return out;
}
Out1 multi_dot_out_k(TensorList tensors, Tensor& out) {
  for (const Tensor& t : tensors) autograd::check_out_inputs("linalg_multi_dot", {t});
  set_out(out, linalg::multi_dot(tensors));
  return out;
}
Out1 cross_out_k(const Tensor& a, const Tensor& b, int64_t dim, Tensor& out) {
  autograd::check_out_inputs("linalg_cross", {a, b});
  set_out(out, linalg::cross(a, b, dim));
  return out;
}
Out1 vecdot_out_k(const Tensor& x, const Tensor& y, int64_t dim, Tensor& out) {
  autograd::check_out_inputs("linalg_vecdot", {x, y});
  set_out(out, linalg::vecdot(x, y, dim));
  return out;
}
Out1 pinv_t_out_k(const Tensor& A, const OptTensor& atol, const OptTensor& rtol, bool hermitian, Tensor& out) {
  autograd::check_out_inputs("linalg_pinv", {A, atol.value_or(Tensor()), rtol.value_or(Tensor())});
  set_out_cast("linalg.pinv", "result", out, pinv_t(A, atol, rtol, hermitian));
  return out;
}
Out1 pinv_f_out_k(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian, Tensor& out) {
  autograd::check_out_inputs("linalg_pinv", {A});
  set_out_cast("linalg.pinv", "result", out, pinv_f(A, atol, rtol, hermitian));
  return out;
}
Out1 pinv_rcond_out_k(const Tensor& A, double rcond, bool hermitian, Tensor& out) {
  autograd::check_out_inputs("linalg_pinv", {A});
  set_out_cast("linalg.pinv", "result", out, pinv_rcond(A, rcond, hermitian));
  return out;
}
Out1 pinv_rcond_t_out_k(const Tensor& A, const Tensor& rcond, bool hermitian, Tensor& out) {
  autograd::check_out_inputs("linalg_pinv", {A, rcond});
  set_out_cast("linalg.pinv", "result", out, pinv_rcond_t(A, rcond, hermitian));
  return out;
}
// matrix_rank is integer-valued (never differentiated), so its out= takes inputs that require grad.
Out1 rank_t_out_k(const Tensor& A, const OptTensor& atol, const OptTensor& rtol, bool hermitian, Tensor& out) {
  set_out_cast("torch.linalg.matrix_rank", "result", out, rank_t(A, atol, rtol, hermitian));
  return out;
}
Out1 rank_f_out_k(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian, Tensor& out) {
  set_out_cast("torch.linalg.matrix_rank", "result", out, rank_f(A, atol, rtol, hermitian));
  return out;
}
Out1 rank_tol_out_k(const Tensor& A, double tol, bool hermitian, Tensor& out) {
  set_out_cast("torch.linalg.matrix_rank", "result", out, rank_tol(A, tol, hermitian));
  return out;
}
Out1 rank_tol_t_out_k(const Tensor& A, const Tensor& tol, bool hermitian, Tensor& out) {
  set_out_cast("torch.linalg.matrix_rank", "result", out, rank_tol_t(A, tol, hermitian));
  return out;
}
Out4 lstsq_out_k(const Tensor& A, const Tensor& B, std::optional<double> rcond, std::optional<std::string_view> driver,
                 Tensor& solution, Tensor& residuals, Tensor& rank, Tensor& sv) {
  autograd::check_out_inputs("linalg_lstsq", {A, B});
  auto [x, res, rk, s] = lstsq_c(A, B, rcond, driver);
  const char* api = "torch.linalg.lstsq";
  set_out_cast(api, "solution", solution, x);
  set_out_cast(api, "residuals", residuals, res);
  set_out_cast(api, "rank", rank, rk);
  set_out_cast(api, "singular_values", sv, s);
  return {solution, residuals, rank, sv};
}
// The top-level svd and qr name the linalg ops they call in their out= refusal, as PyTorch's.
Out3 svd_old_out_k(const Tensor& A, bool some, bool compute_uv, Tensor& U, Tensor& S, Tensor& V) {
  autograd::check_out_inputs("_linalg_svd", {A});
  auto [u, sv, v] = svd_old_c(A, some, compute_uv);
  set_out(U, u);
  set_out(S, sv);
  set_out(V, v);
  return {U, S, V};
}
Out2 qr_old_out_k(const Tensor& A, bool some, Tensor& Q, Tensor& R) {
  autograd::check_out_inputs("linalg_qr", {A});
  return set2(Q, R, qr_old_c(A, some));
}

using EighSig = std::tuple<Tensor, Tensor>(const Tensor&, std::string_view);
using StrSig = Tensor(const Tensor&, std::string_view);
using UnarySig = Tensor(const Tensor&);
using SvdSig = std::tuple<Tensor, Tensor, Tensor>(const Tensor&, bool, std::optional<std::string_view>);
using SvdvalsSig = Tensor(const Tensor&, std::optional<std::string_view>);
using SvdOldSig = std::tuple<Tensor, Tensor, Tensor>(const Tensor&, bool, bool);
using QrOldSig = std::tuple<Tensor, Tensor>(const Tensor&, bool);
using TolTSig = Tensor(const Tensor&, const OptTensor&, const OptTensor&, bool);
using TolFSig = Tensor(const Tensor&, std::optional<double>, std::optional<double>, bool);
using RcondSig = Tensor(const Tensor&, double, bool);
using RcondTSig = Tensor(const Tensor&, const Tensor&, bool);
using PinverseSig = Tensor(const Tensor&, double);
using VNormSig = Tensor(const Tensor&, const Scalar&, OptDims, bool, std::optional<ScalarType>);
using MNormSig = Tensor(const Tensor&, const Scalar&, IntArrayRef, bool, std::optional<ScalarType>);
using MNormStrSig = Tensor(const Tensor&, std::string_view, IntArrayRef, bool, std::optional<ScalarType>);
using NormSig = Tensor(const Tensor&, const std::optional<Scalar>&, OptDims, bool, std::optional<ScalarType>);
using NormStrSig = Tensor(const Tensor&, std::string_view, OptDims, bool, std::optional<ScalarType>);
using ListSig = Tensor(TensorList);
using CrossSig = Tensor(const Tensor&, const Tensor&, int64_t);
using VanderSig = Tensor(const Tensor&, std::optional<int64_t>);
using DiagSig = Tensor(const Tensor&, int64_t, int64_t, int64_t);
using EighOutSig = Out2(const Tensor&, std::string_view, Tensor&, Tensor&);
using StrOutSig = Out1(const Tensor&, std::string_view, Tensor&);
using EigOutSig = Out2(const Tensor&, Tensor&, Tensor&);
using UnaryOutSig = Out1(const Tensor&, Tensor&);
using SvdOutSig = Out3(const Tensor&, bool, std::optional<std::string_view>, Tensor&, Tensor&, Tensor&);
using SvdvalsOutSig = Out1(const Tensor&, std::optional<std::string_view>, Tensor&);
using BinaryOutSig = Out1(const Tensor&, const Tensor&, Tensor&);
using VNormOutSig = Out1(const Tensor&, const Scalar&, OptDims, bool, std::optional<ScalarType>, Tensor&);
using MNormOutSig = Out1(const Tensor&, const Scalar&, IntArrayRef, bool, std::optional<ScalarType>, Tensor&);
using MNormStrOutSig = Out1(const Tensor&, std::string_view, IntArrayRef, bool, std::optional<ScalarType>, Tensor&);
using NormOutSig = Out1(const Tensor&, const std::optional<Scalar>&, OptDims, bool, std::optional<ScalarType>, Tensor&);
using NormStrOutSig = Out1(const Tensor&, std::string_view, OptDims, bool, std::optional<ScalarType>, Tensor&);
using ListOutSig = Out1(TensorList, Tensor&);
using CrossOutSig = Out1(const Tensor&, const Tensor&, int64_t, Tensor&);
using LstsqSig = std::tuple<Tensor, Tensor, Tensor, Tensor>(const Tensor&, const Tensor&, std::optional<double>,
                                                            std::optional<std::string_view>);
using TolTOutSig = Out1(const Tensor&, const OptTensor&, const OptTensor&, bool, Tensor&);
using TolFOutSig = Out1(const Tensor&, std::optional<double>, std::optional<double>, bool, Tensor&);
using RcondOutSig = Out1(const Tensor&, double, bool, Tensor&);
using RcondTOutSig = Out1(const Tensor&, const Tensor&, bool, Tensor&);
using LstsqOutSig = Out4(const Tensor&, const Tensor&, std::optional<double>, std::optional<std::string_view>, Tensor&,
                         Tensor&, Tensor&, Tensor&);
using SvdOldOutSig = Out3(const Tensor&, bool, bool, Tensor&, Tensor&, Tensor&);
using QrOldOutSig = Out2(const Tensor&, bool, Tensor&, Tensor&);

EMBER_REGISTER(linalg_composite_ops) {
  const uint32_t fo = static_cast<uint32_t>(Tag::FunctionOnly);
  define_op<EighSig>("linalg_eigh(Tensor self, str UPLO='L') -> (Tensor eigenvalues, Tensor eigenvectors)", fo);
  register_composite<EighSig, &eigh_c>("linalg_eigh");
  define_op<StrSig>("linalg_eigvalsh(Tensor self, str UPLO='L') -> Tensor", fo);
  register_composite<StrSig, &eigvalsh_c>("linalg_eigvalsh");
  define_op<UnarySig>("linalg_eigvals(Tensor self) -> Tensor", fo);
  register_composite<UnarySig, &eigvals_c>("linalg_eigvals");
  define_op<SvdSig>("linalg_svd(Tensor A, bool full_matrices=True, *, str? driver=None) -> (Tensor U, Tensor S, Tensor Vh)", fo);
  register_composite<SvdSig, &svd_c>("linalg_svd");
  define_op<SvdvalsSig>("linalg_svdvals(Tensor A, *, str? driver=None) -> Tensor", fo);
  register_composite<SvdvalsSig, &svdvals_c>("linalg_svdvals");
  define_op<SvdOldSig>("svd(Tensor self, bool some=True, bool compute_uv=True) -> (Tensor U, Tensor S, Tensor V)");
  register_composite<SvdOldSig, &svd_old_c>("svd");
  define_op<QrOldSig>("qr(Tensor self, bool some=True) -> (Tensor Q, Tensor R)");
  register_composite<QrOldSig, &qr_old_c>("qr");

  define_op<TolTSig>("linalg_pinv.atol_rtol_tensor(Tensor self, *, Tensor? atol=None, Tensor? rtol=None, "
                     "bool hermitian=False) -> Tensor", fo);
  // A kernel (the ops it calls are not recorded) with PyTorch's derivative of the
  // pseudo-inverse (autograd/formulas_linalg_spectral.cpp), which assumes the rank does not
  // change; the other overloads are composites over it.
  register_cpu_meta<TolTSig, &pinv_t>("linalg_pinv.atol_rtol_tensor");
  define_op<TolFSig>("linalg_pinv.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, "
                     "bool hermitian=False) -> Tensor", fo);
  register_composite<TolFSig, &pinv_f>("linalg_pinv.atol_rtol_float");
  define_op<RcondSig>("linalg_pinv(Tensor self, float rcond, bool hermitian=False) -> Tensor", fo);
  register_composite<RcondSig, &pinv_rcond>("linalg_pinv");
  define_op<RcondTSig>("linalg_pinv.rcond_tensor(Tensor self, Tensor rcond, bool hermitian=False) -> Tensor", fo);
  register_composite<RcondTSig, &pinv_rcond_t>("linalg_pinv.rcond_tensor");
  define_op<PinverseSig>("pinverse(Tensor self, float rcond=1e-15) -> Tensor");
  register_composite<PinverseSig, &pinverse_c>("pinverse");

  define_op<TolTSig>("linalg_matrix_rank.atol_rtol_tensor(Tensor input, *, Tensor? atol=None, Tensor? rtol=None, "
                     "bool hermitian=False) -> Tensor", fo);
  register_composite<TolTSig, &rank_t>("linalg_matrix_rank.atol_rtol_tensor");
  define_op<TolFSig>("linalg_matrix_rank.atol_rtol_float(Tensor self, *, float? atol=None, float? rtol=None, "
                     "bool hermitian=False) -> Tensor", fo);
  register_composite<TolFSig, &rank_f>("linalg_matrix_rank.atol_rtol_float");
  define_op<RcondSig>("linalg_matrix_rank(Tensor self, float tol, bool hermitian=False) -> Tensor", fo);
  register_composite<RcondSig, &rank_tol>("linalg_matrix_rank");
  define_op<RcondTSig>("linalg_matrix_rank.tol_tensor(Tensor input, Tensor tol, bool hermitian=False) -> Tensor", fo);
  register_composite<RcondTSig, &rank_tol_t>("linalg_matrix_rank.tol_tensor");

  define_op<VNormSig>("linalg_vector_norm(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
                      "ScalarType? dtype=None) -> Tensor", fo);
  register_composite<VNormSig, &vector_norm_c>("linalg_vector_norm");
  define_op<MNormSig>("linalg_matrix_norm(Tensor self, Scalar ord, int[] dim=[-2,-1], bool keepdim=False, *, "
                      "ScalarType? dtype=None) -> Tensor", fo);
  register_composite<MNormSig, &matrix_norm_num>("linalg_matrix_norm");
  define_op<MNormStrSig>("linalg_matrix_norm.str_ord(Tensor self, str ord='fro', int[] dim=[-2,-1], bool keepdim=False, "
                         "*, ScalarType? dtype=None) -> Tensor", fo);
  register_composite<MNormStrSig, &matrix_norm_str>("linalg_matrix_norm.str_ord");
  define_op<NormSig>("linalg_norm(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, "
                     "ScalarType? dtype=None) -> Tensor", fo);
  register_composite<NormSig, &norm_num>("linalg_norm");
  define_op<NormStrSig>("linalg_norm.ord_str(Tensor self, str ord, int[1]? dim=None, bool keepdim=False, *, "
                        "ScalarType? dtype=None) -> Tensor", fo);
  register_composite<NormStrSig, &norm_str>("linalg_norm.ord_str");

  define_op<LstsqSig>("linalg_lstsq(Tensor self, Tensor b, float? rcond=None, *, str? driver=None) -> "
                      "(Tensor solution, Tensor residuals, Tensor rank, Tensor singular_values)", fo);
  register_composite<LstsqSig, &lstsq_c>("linalg_lstsq");
  define_op<ListSig>("linalg_multi_dot(Tensor[] tensors) -> Tensor", fo);
  register_composite<ListSig, &multi_dot_c>("linalg_multi_dot");
  define_op<UnarySig>("linalg_matrix_exp(Tensor self) -> Tensor", fo);
  register_composite<UnarySig, &matrix_exp_c>("linalg_matrix_exp");
  define_op<UnarySig>("matrix_exp(Tensor self) -> Tensor");
  register_composite<UnarySig, &matrix_exp_c>("matrix_exp");
  define_op<CrossSig>("linalg_cross(Tensor self, Tensor other, *, int dim=-1) -> Tensor", fo);
  register_composite<CrossSig, &cross_c>("linalg_cross");
  define_op<CrossSig>("linalg_vecdot(Tensor x, Tensor y, *, int dim=-1) -> Tensor", fo);
  register_composite<CrossSig, &vecdot_c>("linalg_vecdot");
  define_op<VanderSig>("linalg_vander(Tensor x, *, int? N=None) -> Tensor", fo);
  register_composite<VanderSig, &vander_c>("linalg_vander");
  define_op<DiagSig>("linalg_diagonal(Tensor(a) A, *, int offset=0, int dim1=-2, int dim2=-1) -> Tensor(a)",
                    fo | static_cast<uint32_t>(Tag::View));
  register_composite<DiagSig, &diagonal_c>("linalg_diagonal");

  // out= forms (torch's overload names)
  define_op<EighOutSig>("linalg_eigh.eigvals(Tensor self, str UPLO='L', *, Tensor(a!) eigvals, Tensor(b!) eigvecs) -> "
                        "(Tensor(a!) eigenvalues, Tensor(b!) eigenvectors)", fo);
  register_composite<EighOutSig, &eigh_out_k>("linalg_eigh.eigvals");
  define_op<StrOutSig>("linalg_eigvalsh.out(Tensor self, str UPLO='L', *, Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<StrOutSig, &eigvalsh_out_k>("linalg_eigvalsh.out");
  define_op<EigOutSig>("linalg_eig.out(Tensor self, *, Tensor(a!) eigenvalues, Tensor(b!) eigenvectors) -> "
                       "(Tensor(a!) eigenvalues, Tensor(b!) eigenvectors)", fo);
  register_composite<EigOutSig, &eig_out_k>("linalg_eig.out");
  define_op<UnaryOutSig>("linalg_eigvals.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<UnaryOutSig, &eigvals_out_k>("linalg_eigvals.out");
  define_op<SvdOutSig>("linalg_svd.U(Tensor A, bool full_matrices=True, *, str? driver=None, Tensor(a!) U, "
                       "Tensor(b!) S, Tensor(c!) Vh) -> (Tensor(a!) U, Tensor(b!) S, Tensor(c!) Vh)", fo);
  register_composite<SvdOutSig, &svd_out_k>("linalg_svd.U");
  define_op<SvdvalsOutSig>("linalg_svdvals.out(Tensor A, *, str? driver=None, Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<SvdvalsOutSig, &svdvals_out_k>("linalg_svdvals.out");
  define_op<EighOutSig>("linalg_qr.out(Tensor A, str mode='reduced', *, Tensor(a!) Q, Tensor(b!) R) -> "
                        "(Tensor(a!) Q, Tensor(b!) R)", fo);
  register_composite<EighOutSig, &qr_out_k>("linalg_qr.out");
  define_op<BinaryOutSig>("linalg_householder_product.out(Tensor input, Tensor tau, *, Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<BinaryOutSig, &householder_out_k>("linalg_householder_product.out");
  define_op<VNormOutSig>("linalg_vector_norm.out(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *, "
                         "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<VNormOutSig, &vector_norm_out_k>("linalg_vector_norm.out");
  define_op<MNormOutSig>("linalg_matrix_norm.out(Tensor self, Scalar ord, int[] dim=[-2,-1], bool keepdim=False, *, "
                         "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<MNormOutSig, &matrix_norm_out_k>("linalg_matrix_norm.out");
  define_op<MNormStrOutSig>("linalg_matrix_norm.str_ord_out(Tensor self, str ord='fro', int[] dim=[-2,-1], "
                            "bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<MNormStrOutSig, &matrix_norm_str_out_k>("linalg_matrix_norm.str_ord_out");
  define_op<NormOutSig>("linalg_norm.out(Tensor self, Scalar? ord=None, int[1]? dim=None, bool keepdim=False, *, "
                        "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<NormOutSig, &norm_out_k>("linalg_norm.out");
  define_op<NormStrOutSig>("linalg_norm.ord_str_out(Tensor self, str ord, int[1]? dim=None, bool keepdim=False, *, "
                           "ScalarType? dtype=None, Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<NormStrOutSig, &norm_str_out_k>("linalg_norm.ord_str_out");
  define_op<ListOutSig>("linalg_multi_dot.out(Tensor[] tensors, *, Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<ListOutSig, &multi_dot_out_k>("linalg_multi_dot.out");
  define_op<CrossOutSig>("linalg_cross.out(Tensor self, Tensor other, *, int dim=-1, Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<CrossOutSig, &cross_out_k>("linalg_cross.out");
  define_op<CrossOutSig>("linalg_vecdot.out(Tensor x, Tensor y, *, int dim=-1, Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<CrossOutSig, &vecdot_out_k>("linalg_vecdot.out");
  define_op<TolTOutSig>("linalg_pinv.atol_rtol_tensor_out(Tensor self, *, Tensor? atol=None, Tensor? rtol=None, "
                        "bool hermitian=False, Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<TolTOutSig, &pinv_t_out_k>("linalg_pinv.atol_rtol_tensor_out");
  define_op<TolFOutSig>("linalg_pinv.atol_rtol_float_out(Tensor self, *, float? atol=None, float? rtol=None, "
                        "bool hermitian=False, Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<TolFOutSig, &pinv_f_out_k>("linalg_pinv.atol_rtol_float_out");
  define_op<RcondOutSig>("linalg_pinv.out(Tensor self, float rcond, bool hermitian=False, *, Tensor(a!) out) -> "
                         "Tensor(a!)", fo);
  register_composite<RcondOutSig, &pinv_rcond_out_k>("linalg_pinv.out");
  define_op<RcondTOutSig>("linalg_pinv.out_rcond_tensor(Tensor self, Tensor rcond, bool hermitian=False, *, "
                          "Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<RcondTOutSig, &pinv_rcond_t_out_k>("linalg_pinv.out_rcond_tensor");
  define_op<TolTOutSig>("linalg_matrix_rank.atol_rtol_tensor_out(Tensor input, *, Tensor? atol=None, "
                        "Tensor? rtol=None, bool hermitian=False, Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<TolTOutSig, &rank_t_out_k>("linalg_matrix_rank.atol_rtol_tensor_out");
  define_op<TolFOutSig>("linalg_matrix_rank.atol_rtol_float_out(Tensor self, *, float? atol=None, float? rtol=None, "
                        "bool hermitian=False, Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<TolFOutSig, &rank_f_out_k>("linalg_matrix_rank.atol_rtol_float_out");
  define_op<RcondOutSig>("linalg_matrix_rank.out(Tensor self, float tol, bool hermitian=False, *, Tensor(a!) out) -> "
                         "Tensor(a!)", fo);
  register_composite<RcondOutSig, &rank_tol_out_k>("linalg_matrix_rank.out");
  define_op<RcondTOutSig>("linalg_matrix_rank.out_tol_tensor(Tensor input, Tensor tol, bool hermitian=False, *, "
                          "Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<RcondTOutSig, &rank_tol_t_out_k>("linalg_matrix_rank.out_tol_tensor");
  define_op<LstsqOutSig>("linalg_lstsq.out(Tensor self, Tensor b, float? rcond=None, *, str? driver=None, "
                         "Tensor(a!) solution, Tensor(b!) residuals, Tensor(c!) rank, Tensor(d!) singular_values) -> "
                         "(Tensor(a!) solution, Tensor(b!) residuals, Tensor(c!) rank, Tensor(d!) singular_values)",
                         fo);
  register_composite<LstsqOutSig, &lstsq_out_k>("linalg_lstsq.out");
  define_op<SvdOldOutSig>("svd.U(Tensor self, bool some=True, bool compute_uv=True, *, Tensor(a!) U, Tensor(b!) S, "
                          "Tensor(c!) V) -> (Tensor(a!) U, Tensor(b!) S, Tensor(c!) V)");
  register_composite<SvdOldOutSig, &svd_old_out_k>("svd.U");
  define_op<QrOldOutSig>("qr.Q(Tensor self, bool some=True, *, Tensor(a!) Q, Tensor(b!) R) -> "
                         "(Tensor(a!) Q, Tensor(b!) R)");
  register_composite<QrOldOutSig, &qr_old_out_k>("qr.Q");
}

}  // namespace
}  // namespace linalg_composite

#define EMBER_CALL(Sig, name, ...)                       \
  static const TypedOp<linalg_composite::Sig> op(name); \
  return op.call(__VA_ARGS__)

namespace linalg {
std::tuple<Tensor, Tensor> eigh(const Tensor& A, std::string_view UPLO) { EMBER_CALL(EighSig, "linalg_eigh", A, UPLO); }
Tensor eigvalsh(const Tensor& A, std::string_view UPLO) { EMBER_CALL(StrSig, "linalg_eigvalsh", A, UPLO); }
Tensor eigvals(const Tensor& A) { EMBER_CALL(UnarySig, "linalg_eigvals", A); }
std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool full_matrices, std::optional<std::string_view> driver) {
  EMBER_CALL(SvdSig, "linalg_svd", A, full_matrices, driver);
}
Tensor svdvals(const Tensor& A, std::optional<std::string_view> driver) {
  EMBER_CALL(SvdvalsSig, "linalg_svdvals", A, driver);
}
Tensor pinv(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  EMBER_CALL(TolFSig, "linalg_pinv.atol_rtol_float", A, atol, rtol, hermitian);
}
Tensor pinv(const Tensor& A, const std::optional<Tensor>& atol, const std::optional<Tensor>& rtol, bool hermitian) {
  EMBER_CALL(TolTSig, "linalg_pinv.atol_rtol_tensor", A, atol, rtol, hermitian);
}
Tensor matrix_rank(const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  EMBER_CALL(TolFSig, "linalg_matrix_rank.atol_rtol_float", A, atol, rtol, hermitian);
}
Tensor matrix_rank(const Tensor& A, const std::optional<Tensor>& atol, const std::optional<Tensor>& rtol,
                   bool hermitian) {
  EMBER_CALL(TolTSig, "linalg_matrix_rank.atol_rtol_tensor", A, atol, rtol, hermitian);
}
Tensor vector_norm(const Tensor& x, const Scalar& ord, OptDims dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CALL(VNormSig, "linalg_vector_norm", x, ord, dim, keepdim, dtype);
}
Tensor matrix_norm(const Tensor& A, const Scalar& ord, IntArrayRef dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CALL(MNormSig, "linalg_matrix_norm", A, ord, dim, keepdim, dtype);
}
Tensor matrix_norm(const Tensor& A, std::string_view ord, IntArrayRef dim, bool keepdim,
                   std::optional<ScalarType> dtype) {
  EMBER_CALL(MNormStrSig, "linalg_matrix_norm.str_ord", A, ord, dim, keepdim, dtype);
}
Tensor norm(const Tensor& A, const std::optional<Scalar>& ord, OptDims dim, bool keepdim,
            std::optional<ScalarType> dtype) {
  EMBER_CALL(NormSig, "linalg_norm", A, ord, dim, keepdim, dtype);
}
Tensor norm(const Tensor& A, std::string_view ord, OptDims dim, bool keepdim, std::optional<ScalarType> dtype) {
  EMBER_CALL(NormStrSig, "linalg_norm.ord_str", A, ord, dim, keepdim, dtype);
}
Tensor multi_dot(TensorList tensors) { EMBER_CALL(ListSig, "linalg_multi_dot", tensors); }
Tensor matrix_exp(const Tensor& A) { EMBER_CALL(UnarySig, "linalg_matrix_exp", A); }
Tensor cross(const Tensor& a, const Tensor& b, int64_t dim) { EMBER_CALL(CrossSig, "linalg_cross", a, b, dim); }
Tensor vecdot(const Tensor& x, const Tensor& y, int64_t dim) { EMBER_CALL(CrossSig, "linalg_vecdot", x, y, dim); }
Tensor vander(const Tensor& x, std::optional<int64_t> N) { EMBER_CALL(VanderSig, "linalg_vander", x, N); }
Tensor diagonal(const Tensor& A, int64_t offset, int64_t dim1, int64_t dim2) {
  EMBER_CALL(DiagSig, "linalg_diagonal", A, offset, dim1, dim2);
}

std::tuple<Tensor&, Tensor&> eigh_out(Tensor& eigenvalues, Tensor& eigenvectors, const Tensor& A,
                                      std::string_view UPLO) {
  EMBER_CALL(EighOutSig, "linalg_eigh.eigvals", A, UPLO, eigenvalues, eigenvectors);
}
Tensor& eigvalsh_out(Tensor& out, const Tensor& A, std::string_view UPLO) {
  EMBER_CALL(StrOutSig, "linalg_eigvalsh.out", A, UPLO, out);
}
std::tuple<Tensor&, Tensor&> eig_out(Tensor& eigenvalues, Tensor& eigenvectors, const Tensor& A) {
  EMBER_CALL(EigOutSig, "linalg_eig.out", A, eigenvalues, eigenvectors);
}
Tensor& eigvals_out(Tensor& out, const Tensor& A) { EMBER_CALL(UnaryOutSig, "linalg_eigvals.out", A, out); }
std::tuple<Tensor&, Tensor&, Tensor&> svd_out(Tensor& U, Tensor& S, Tensor& Vh, const Tensor& A, bool full_matrices,
                                              std::optional<std::string_view> driver) {
  EMBER_CALL(SvdOutSig, "linalg_svd.U", A, full_matrices, driver, U, S, Vh);
}
Tensor& svdvals_out(Tensor& out, const Tensor& A, std::optional<std::string_view> driver) {
  EMBER_CALL(SvdvalsOutSig, "linalg_svdvals.out", A, driver, out);
}
std::tuple<Tensor&, Tensor&> qr_out(Tensor& Q, Tensor& R, const Tensor& A, std::string_view mode) {
  EMBER_CALL(EighOutSig, "linalg_qr.out", A, mode, Q, R);
}
Tensor& householder_product_out(Tensor& out, const Tensor& input, const Tensor& tau) {
  EMBER_CALL(BinaryOutSig, "linalg_householder_product.out", input, tau, out);
}
Tensor& vector_norm_out(Tensor& out, const Tensor& x, const Scalar& ord, OptDims dim, bool keepdim,
                        std::optional<ScalarType> dtype) {
  EMBER_CALL(VNormOutSig, "linalg_vector_norm.out", x, ord, dim, keepdim, dtype, out);
}
Tensor& matrix_norm_out(Tensor& out, const Tensor& A, const Scalar& ord, IntArrayRef dim, bool keepdim,
                        std::optional<ScalarType> dtype) {
  EMBER_CALL(MNormOutSig, "linalg_matrix_norm.out", A, ord, dim, keepdim, dtype, out);
}
Tensor& matrix_norm_out(Tensor& out, const Tensor& A, std::string_view ord, IntArrayRef dim, bool keepdim,
                        std::optional<ScalarType> dtype) {
  EMBER_CALL(MNormStrOutSig, "linalg_matrix_norm.str_ord_out", A, ord, dim, keepdim, dtype, out);
}
Tensor& norm_out(Tensor& out, const Tensor& A, const std::optional<Scalar>& ord, OptDims dim, bool keepdim,
                 std::optional<ScalarType> dtype) {
  EMBER_CALL(NormOutSig, "linalg_norm.out", A, ord, dim, keepdim, dtype, out);
}
Tensor& norm_out(Tensor& out, const Tensor& A, std::string_view ord, OptDims dim, bool keepdim,
                 std::optional<ScalarType> dtype) {
  EMBER_CALL(NormStrOutSig, "linalg_norm.ord_str_out", A, ord, dim, keepdim, dtype, out);
}
Tensor& multi_dot_out(Tensor& out, TensorList tensors) { EMBER_CALL(ListOutSig, "linalg_multi_dot.out", tensors, out); }
Tensor& cross_out(Tensor& out, const Tensor& a, const Tensor& b, int64_t dim) {
  EMBER_CALL(CrossOutSig, "linalg_cross.out", a, b, dim, out);
}
Tensor& vecdot_out(Tensor& out, const Tensor& x, const Tensor& y, int64_t dim) {
  EMBER_CALL(CrossOutSig, "linalg_vecdot.out", x, y, dim, out);
}
Tensor& pinv_out(Tensor& out, const Tensor& A, std::optional<double> atol, std::optional<double> rtol, bool hermitian) {
  EMBER_CALL(TolFOutSig, "linalg_pinv.atol_rtol_float_out", A, atol, rtol, hermitian, out);
}
Tensor& pinv_out(Tensor& out, const Tensor& A, const std::optional<Tensor>& atol, const std::optional<Tensor>& rtol,
                 bool hermitian) {
  EMBER_CALL(TolTOutSig, "linalg_pinv.atol_rtol_tensor_out", A, atol, rtol, hermitian, out);
}
Tensor& matrix_rank_out(Tensor& out, const Tensor& A, std::optional<double> atol, std::optional<double> rtol,
                        bool hermitian) {
  EMBER_CALL(TolFOutSig, "linalg_matrix_rank.atol_rtol_float_out", A, atol, rtol, hermitian, out);
}
Tensor& matrix_rank_out(Tensor& out, const Tensor& A, const std::optional<Tensor>& atol,
                        const std::optional<Tensor>& rtol, bool hermitian) {
  EMBER_CALL(TolTOutSig, "linalg_matrix_rank.atol_rtol_tensor_out", A, atol, rtol, hermitian, out);
}
std::tuple<Tensor&, Tensor&, Tensor&, Tensor&> lstsq_out(Tensor& solution, Tensor& residuals, Tensor& rank,
                                                         Tensor& singular_values, const Tensor& A, const Tensor& B,
                                                         std::optional<double> rcond,
                                                         std::optional<std::string_view> driver) {
  EMBER_CALL(LstsqOutSig, "linalg_lstsq.out", A, B, rcond, driver, solution, residuals, rank, singular_values);
}
}  // namespace linalg

namespace linalg {
std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq(const Tensor& self, const Tensor& b, std::optional<double> rcond,
                                                 std::optional<std::string_view> driver) {
  EMBER_CALL(LstsqSig, "linalg_lstsq", self, b, rcond, driver);
}
}  // namespace linalg

std::tuple<Tensor, Tensor, Tensor> svd(const Tensor& A, bool some, bool compute_uv) {
  EMBER_CALL(SvdOldSig, "svd", A, some, compute_uv);
}
std::tuple<Tensor, Tensor> qr(const Tensor& A, bool some) { EMBER_CALL(QrOldSig, "qr", A, some); }
std::tuple<Tensor&, Tensor&, Tensor&> svd_out(Tensor& U, Tensor& S, Tensor& V, const Tensor& A, bool some,
                                              bool compute_uv) {
  EMBER_CALL(SvdOldOutSig, "svd.U", A, some, compute_uv, U, S, V);
}
std::tuple<Tensor&, Tensor&> qr_out(Tensor& Q, Tensor& R, const Tensor& A, bool some) {
  EMBER_CALL(QrOldOutSig, "qr.Q", A, some, Q, R);
}
Tensor pinverse(const Tensor& A, double rcond) { EMBER_CALL(PinverseSig, "pinverse", A, rcond); }
Tensor matrix_exp(const Tensor& A) { EMBER_CALL(UnarySig, "matrix_exp", A); }
#undef EMBER_CALL

}  // namespace ember
