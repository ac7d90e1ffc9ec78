// ember.linalg factorizations and solvers: the primitive ops with CPU kernels
// (linalg_cholesky_ex, linalg_inv_ex, linalg_det, linalg_slogdet, linalg_solve_ex,
// linalg_lu_factor_ex, linalg_lu_solve, linalg_solve_triangular, linalg_ldl_factor_ex,
// linalg_ldl_solve). The composites built on them (cholesky, solve, lu, tensorsolve, out= forms,
// the top-level forms) are in linalg_factor_api.cpp; derivatives in
// autograd/formulas_linalg_factor.cpp.
//
// LAPACK works on column-major matrices. A row-major n x n matrix read column-major is its
// transpose, which several kernels use instead of a transposing copy:
//   det/slogdet: det(A^T) = det(A), so getrf runs on a plain copy;
//   solve: getrf of A^T, then getrs with trans='T' solves A X = B;
//   cholesky: potrf 'U' on conj(A) (= A^T for Hermitian A) leaves U' with A = U'^T conj(U'),
//             and U' read row-major is the lower factor L = U'^T, so no transpose or conj.
// inv, lu_factor and ldl_factor return LU-style factors of A itself (the pivots and `info`
// must name A's rows, as PyTorch's do), so they copy into column-major results, as PyTorch.
// Batches of matrices up to 8 x 8 skip LAPACK for det, slogdet, inv and solve (linalg_small.h).
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <vector>

#include "backends/cpu/lapack.h"
#include "ember/dispatch.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/parallel.h"
#include "ops/linalg_factor_util.h"
#include "ops/linalg_small.h"

namespace ember::linalg_factor_ops {

// ---------------------------------------------------------------- checks and helpers
void check_cpu(const char* api, const Tensor& t) {
  EMBER_CHECK(t.is_cpu(), NotImplementedError, api, ": only CPU tensors are supported, got a tensor on ", t.device());
}

void check_dtype(const char* api, const Tensor& A, const char* what) {
  const ScalarType t = A.dtype();
  EMBER_CHECK(is_floating_point(t) || is_complex(t), RuntimeError, api,
              ": Expected a floating point or complex tensor as input. Got ", torch_type_name(t));
  EMBER_CHECK(t != kHalf && t != kBFloat16, RuntimeError, api,
              ": Low precision dtypes not supported. Got ", torch_type_name(t));
  (void)what;
}

void check_matrix(const char* api, const Tensor& A, const char* name) {
  EMBER_CHECK(A.dim() >= 2, RuntimeError, api, ": The input tensor ", name, " must have at least 2 dimensions.");
}

void check_square(const char* api, const Tensor& A, const char* name) {
  check_matrix(api, A, name);
  EMBER_CHECK(A.size(-1) == A.size(-2), RuntimeError, api, ": ", name,
              " must be batches of square matrices, but they are ", A.size(-2), " by ", A.size(-1), " matrices");
}

void check_square_float(const char* api, const Tensor& A) {
  check_cpu(api, A);
  check_square(api, A, "A");
  check_dtype(api, A, "A");
}

DimVector batch_of(const Tensor& t, int64_t mat_dims) {
  return DimVector(t.sizes().slice(0, static_cast<size_t>(t.dim() - mat_dims)));
}

int64_t prod(IntArrayRef s) {
  int64_t n = 1;
  for (int64_t x : s) n *= x;
  return n;
}

DimVector cat_shape(IntArrayRef a, std::initializer_list<int64_t> b) {
  DimVector r(a);
  for (int64_t x : b) r.push_back(x);
  return r;
}

std::vector<int64_t> batch_offsets(const Tensor& t, IntArrayRef batch, int64_t mat_dims) {
  const int64_t nb = t.dim() - mat_dims, B = prod(batch), nd = static_cast<int64_t>(batch.size());
  std::vector<int64_t> st(static_cast<size_t>(nd), 0);
  for (int64_t i = 0; i < nd; ++i) {
    const int64_t td = i - (nd - nb);
    if (td >= 0 && t.size(td) != 1) st[static_cast<size_t>(i)] = t.stride(td);
  }
  std::vector<int64_t> off(static_cast<size_t>(B), 0);
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  int64_t cur = 0;
  for (int64_t b = 0; b < B; ++b) {
    off[static_cast<size_t>(b)] = cur;
    for (int64_t d = nd - 1; d >= 0; --d) {
      const size_t du = static_cast<size_t>(d);
      if (++idx[du] < batch[du]) {
        cur += st[du];
        break;
      }
      cur -= st[du] * (idx[du] - 1);
      idx[du] = 0;
    }
  }
  return off;
}

// The offsets of batch_offsets without the table when t's batch dims (broadcast to `batch`)
// collapse to one stride, as for a contiguous batch or one broadcast matrix: building the
// table cost ~5 ns a matrix, a tenth of a 4 x 4 solve.
class BatchIndex {
 public:
  BatchIndex(const Tensor& t, IntArrayRef batch, int64_t mat_dims) {
    const int64_t nd = static_cast<int64_t>(batch.size()), nb = t.dim() - mat_dims;
    int64_t span = 1;
    bool first = true;
    for (int64_t i = nd - 1; i >= 0; --i) {
      const int64_t size = batch[static_cast<size_t>(i)];
      if (size == 1) continue;
      const int64_t td = i - (nd - nb);
      const int64_t st = td >= 0 && t.size(td) != 1 ? t.stride(td) : 0;
      if (first) {
        step_ = st;
        first = false;
      } else if (st != step_ * span) {
        table_ = batch_offsets(t, batch, mat_dims);
        return;
      }
      span *= size;
    }
  }
  int64_t operator[](int64_t b) const { return table_.empty() ? b * step_ : table_[static_cast<size_t>(b)]; }

 private:
  int64_t step_ = 0;
  std::vector<int64_t> table_;
};

Tensor colmajor_empty(IntArrayRef batch, int64_t rows, int64_t cols, ScalarType dt) {
  return empty(cat_shape(batch, {cols, rows}), TensorOptions(dt)).mT();
}

void raise_info(const char* api, const Tensor& info, Failure kind) {
  const Tensor ic = info.contiguous();
  const int32_t* p = ic.data_ptr<int32_t>();
  for (int64_t b = 0; b < ic.numel(); ++b) {
    const int32_t v = p[b];
    if (v == 0) continue;
    std::string prefix = std::string(api) + ": ";
    if (info.dim() > 0) prefix += "(Batch element " + std::to_string(b) + "): ";
    switch (kind) {
      case Failure::Inverse:
        EMBER_FAIL(LinAlgError, prefix, "The diagonal element ", v,
                   " is zero, the inversion could not be completed because the input matrix is singular.");
      case Failure::Cholesky:
        EMBER_FAIL(LinAlgError, prefix,
                   "The factorization could not be completed because the input is not positive-definite (the leading "
                   "minor of order ", v, " is not positive-definite).");
      case Failure::Solve:
        EMBER_FAIL(LinAlgError, prefix, "The solver failed because the input matrix is singular.");
      case Failure::LU:  // PyTorch raises a plain RuntimeError for these two
        EMBER_FAIL(RuntimeError, prefix, "U[", v, ",", v,
                   "] is zero and using it on lu_solve would result in a division by zero. If you still want to "
                   "perform the factorization, consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)");
      case Failure::LDL:
        EMBER_FAIL(RuntimeError, prefix, "The factorization could not be completed because the block diagonal matrix "
                   "D is singular (D[", v, ",", v, "] is zero).");
    }
  }
}

namespace {

template <typename F>
void dispatch_float(ScalarType t, F&& f) {
  switch (t) {
    case kFloat: f(float{}); break;
    case kDouble: f(double{}); break;
    case kComplexFloat: f(complex64{}); break;
    case kComplexDouble: f(complex128{}); break;
    default: EMBER_INTERNAL_ASSERT(false, "linalg: unexpected dtype");
  }
}

template <typename T> struct Real { using type = T; };
template <typename R> struct Real<std::complex<R>> { using type = R; };

// Copies a rows x cols matrix between strided layouts, in 16 x 16 tiles with the inner loop
// along the destination's unit stride: a transposing copy that writes with a large stride
// instead (one cache set per 4 KiB row at n = 1024) measured 40-70x slower (51 vs 0.7 ms).
template <typename T>
void copy_mat(const T* src, int64_t srs, int64_t scs, T* dst, int64_t drs, int64_t dcs, int64_t rows, int64_t cols) {
  if (dcs == 1 && scs == 1) {  // row by row, as memcpy
    for (int64_t i = 0; i < rows; ++i) std::copy(src + i * srs, src + i * srs + cols, dst + i * drs);
    return;
  }
  constexpr int64_t kTile = 16;
  const bool rows_inner = dcs != 1 && (drs == 1 || scs != 1);
  for (int64_t i0 = 0; i0 < rows; i0 += kTile)
    for (int64_t j0 = 0; j0 < cols; j0 += kTile) {
      const int64_t i1 = std::min(rows, i0 + kTile), j1 = std::min(cols, j0 + kTile);
      if (rows_inner) {
        for (int64_t j = j0; j < j1; ++j)
          for (int64_t i = i0; i < i1; ++i) dst[i * drs + j * dcs] = src[i * srs + j * scs];
      } else {
        for (int64_t i = i0; i < i1; ++i)
          for (int64_t j = j0; j < j1; ++j) dst[i * drs + j * dcs] = src[i * srs + j * scs];
      }
    }
}

// ---------------------------------------------------------------- LAPACK by type
// LAPACKE's complex types may be C99 _Complex or std::complex (whichever lapacke.h was first
// included with): same layout, so pointers are cast.
template <typename P> auto* Cf(P* p) { return reinterpret_cast<std::conditional_t<std::is_const_v<P>, const lapack_complex_float, lapack_complex_float>*>(p); }
template <typename P> auto* Cd(P* p) { return reinterpret_cast<std::conditional_t<std::is_const_v<P>, const lapack_complex_double, lapack_complex_double>*>(p); }
inline int getrf(int m, int n, float* a, int lda, int* ip) { return LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, m, n, a, lda, ip); }
inline int getrf(int m, int n, double* a, int lda, int* ip) { return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, n, a, lda, ip); }
inline int getrf(int m, int n, complex64* a, int lda, int* ip) { return LAPACKE_cgetrf_work(LAPACK_COL_MAJOR, m, n, Cf(a), lda, ip); }
inline int getrf(int m, int n, complex128* a, int lda, int* ip) { return LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, m, n, Cd(a), lda, ip); }


inline int getrs(char t, int n, int k, const float* a, int lda, const int* ip, float* b, int ldb) { return LAPACKE_sgetrs_work(LAPACK_COL_MAJOR, t, n, k, a, lda, ip, b, ldb); }
inline int getrs(char t, int n, int k, const double* a, int lda, const int* ip, double* b, int ldb) { return LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, t, n, k, a, lda, ip, b, ldb); }
inline int getrs(char t, int n, int k, const complex64* a, int lda, const int* ip, complex64* b, int ldb) { return LAPACKE_cgetrs_work(LAPACK_COL_MAJOR, t, n, k, Cf(a), lda, ip, Cf(b), ldb); }
inline int getrs(char t, int n, int k, const complex128* a, int lda, const int* ip, complex128* b, int ldb) { return LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, t, n, k, Cd(a), lda, ip, Cd(b), ldb); }

inline int getri(int n, float* a, int lda, const int* ip, float* w, int lw) { return LAPACKE_sgetri_work(LAPACK_COL_MAJOR, n, a, lda, ip, w, lw); }
inline int getri(int n, double* a, int lda, const int* ip, double* w, int lw) { return LAPACKE_dgetri_work(LAPACK_COL_MAJOR, n, a, lda, ip, w, lw); }
inline int getri(int n, complex64* a, int lda, const int* ip, complex64* w, int lw) { return LAPACKE_cgetri_work(LAPACK_COL_MAJOR, n, Cf(a), lda, ip, Cf(w), lw); }
inline int getri(int n, complex128* a, int lda, const int* ip, complex128* w, int lw) { return LAPACKE_zgetri_work(LAPACK_COL_MAJOR, n, Cd(a), lda, ip, Cd(w), lw); }

inline int potrf(char u, int n, float* a, int lda) { return LAPACKE_spotrf_work(LAPACK_COL_MAJOR, u, n, a, lda); }
inline int potrf(char u, int n, double* a, int lda) { return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, u, n, a, lda); }
inline int potrf(char u, int n, complex64* a, int lda) { return LAPACKE_cpotrf_work(LAPACK_COL_MAJOR, u, n, Cf(a), lda); }
inline int potrf(char u, int n, complex128* a, int lda) { return LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, u, n, Cd(a), lda); }

// Bunch-Kaufman: symmetric (sytrf) or, for complex hermitian input, hetrf.
inline int ldl(bool, int n, float* a, int lda, int* ip, float* w, int lw) { return LAPACKE_ssytrf_work(LAPACK_COL_MAJOR, 'L', n, a, lda, ip, w, lw); }
inline int ldl(bool, int n, double* a, int lda, int* ip, double* w, int lw) { return LAPACKE_dsytrf_work(LAPACK_COL_MAJOR, 'L', n, a, lda, ip, w, lw); }
inline int ldl(bool h, int n, complex64* a, int lda, int* ip, complex64* w, int lw) {
  return h ? LAPACKE_chetrf_work(LAPACK_COL_MAJOR, 'L', n, Cf(a), lda, ip, Cf(w), lw) : LAPACKE_csytrf_work(LAPACK_COL_MAJOR, 'L', n, Cf(a), lda, ip, Cf(w), lw);
}
inline int ldl(bool h, int n, complex128* a, int lda, int* ip, complex128* w, int lw) {
  return h ? LAPACKE_zhetrf_work(LAPACK_COL_MAJOR, 'L', n, Cd(a), lda, ip, Cd(w), lw) : LAPACKE_zsytrf_work(LAPACK_COL_MAJOR, 'L', n, Cd(a), lda, ip, Cd(w), lw);
}
inline int ldl_rs(bool, int n, int k, const float* a, int lda, const int* ip, float* b, int ldb) { return LAPACKE_ssytrs_work(LAPACK_COL_MAJOR, 'L', n, k, a, lda, ip, b, ldb); }
inline int ldl_rs(bool, int n, int k, const double* a, int lda, const int* ip, double* b, int ldb) { return LAPACKE_dsytrs_work(LAPACK_COL_MAJOR, 'L', n, k, a, lda, ip, b, ldb); }
inline int ldl_rs(bool h, int n, int k, const complex64* a, int lda, const int* ip, complex64* b, int ldb) {
  return h ? LAPACKE_chetrs_work(LAPACK_COL_MAJOR, 'L', n, k, Cf(a), lda, ip, Cf(b), ldb) : LAPACKE_csytrs_work(LAPACK_COL_MAJOR, 'L', n, k, Cf(a), lda, ip, Cf(b), ldb);
}
inline int ldl_rs(bool h, int n, int k, const complex128* a, int lda, const int* ip, complex128* b, int ldb) {
  return h ? LAPACKE_zhetrs_work(LAPACK_COL_MAJOR, 'L', n, k, Cd(a), lda, ip, Cd(b), ldb) : LAPACKE_zsytrs_work(LAPACK_COL_MAJOR, 'L', n, k, Cd(a), lda, ip, Cd(b), ldb);
}

inline void trsm(CBLAS_SIDE s, CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d, int m, int n, const float* a, int lda, float* b, int ldb) {
  cblas_strsm(CblasRowMajor, s, u, t, d, m, n, 1.0f, a, lda, b, ldb);
}
inline void trsm(CBLAS_SIDE s, CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d, int m, int n, const double* a, int lda, double* b, int ldb) {
  cblas_dtrsm(CblasRowMajor, s, u, t, d, m, n, 1.0, a, lda, b, ldb);
}
inline void trsm(CBLAS_SIDE s, CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d, int m, int n, const complex64* a, int lda, complex64* b, int ldb) {
  const complex64 one(1);
  cblas_ctrsm(CblasRowMajor, s, u, t, d, m, n, &one, a, lda, b, ldb);
}
inline void trsm(CBLAS_SIDE s, CBLAS_UPLO u, CBLAS_TRANSPOSE t, CBLAS_DIAG d, int m, int n, const complex128* a, int lda, complex128* b, int ldb) {
  const complex128 one(1);
  cblas_ztrsm(CblasRowMajor, s, u, t, d, m, n, &one, a, lda, b, ldb);
}

template <typename T>
T nan_value() {
  using R = typename Real<T>::type;
  return T(std::numeric_limits<R>::quiet_NaN());
}

// Threads for a batch of small matrices: only when there is enough work to pay for a
// parallel region (see docs/PERFORMANCE.md).
int small_threads(int64_t batch, int64_t n) {
  const int64_t work = batch * n * n * n;
  return work >= (int64_t{1} << 20) ? std::max(1, get_num_threads()) : 1;
}

// The largest n served by the unrolled small-matrix loops. Complex matrices stop at 4: their
// unrolled code is about four times a real one's (lu_inverse<8> of complex64 alone was 99 KB),
// and n = 5..8 complex made up 40% of this file's compile time; they take LAPACK's path.
template <typename T>
constexpr int kSmallMax = std::is_floating_point_v<T> ? 8 : 4;  // real : complex
int64_t small_max(ScalarType t) { return is_complex(t) ? 4 : 8; }

// Runs f.template operator()<N>() for the runtime n in 1..kSmallMax<T>.
template <typename T, typename F>
void with_small_n(int64_t n, F&& f) {
  constexpr int kMax = kSmallMax<T>;
  switch (n) {
    case 1: f.template operator()<1>(); break;
    case 2: f.template operator()<2>(); break;
    case 3: f.template operator()<3>(); break;
    case 4: f.template operator()<4>(); break;
    case 5: if constexpr (kMax >= 5) f.template operator()<5>(); break;
    case 6: if constexpr (kMax >= 6) f.template operator()<6>(); break;
    case 7: if constexpr (kMax >= 7) f.template operator()<7>(); break;
    case 8: if constexpr (kMax >= 8) f.template operator()<8>(); break;
    default: EMBER_INTERNAL_ASSERT(false);
  }
}

// The loop around an in-place LAPACK factorization: every matrix of A is copied into its own
// slot of `out` (one contiguous matrix each, column-major or row-major), and `factor(m, b)`
// factors it there and returns LAPACK's info, which goes to info[b].
template <typename F>
void factor_in_place(const Tensor& A, const Tensor& out, bool colmajor, const Tensor& info, F&& factor) {
  if (out.numel() == 0) return;
  const DimVector batch = batch_of(A, 2);
  const int64_t r = A.size(-2), c = A.size(-1), NB = prod(batch);
  const std::vector<int64_t> off = batch_offsets(A, batch, 2);
  int32_t* ip = info.data_ptr<int32_t>();
  dispatch_float(A.dtype(), [&](auto z) {
    using T = decltype(z);
    const T* a = static_cast<const T*>(A.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    for (int64_t b = 0; b < NB; ++b) {
      T* m = o + b * r * c;
      copy_mat(a + off[static_cast<size_t>(b)], A.stride(-2), A.stride(-1), m, colmajor ? 1 : c, colmajor ? r : 1, r, c);
      ip[b] = factor(m, b);
    }
  });
}

// ---------------------------------------------------------------- cholesky
Tensors2 cholesky_ex_k(const Tensor& A, bool upper, bool check_errors) {
  check_square_float("linalg.cholesky", A);
  const DimVector batch = batch_of(A, 2);
  const int64_t n = A.size(-1);
  Tensor L = empty(A.sizes(), TensorOptions(A.dtype()));
  Tensor info = zeros(batch, TensorOptions(kInt32));
  const int ni = static_cast<int>(n);
  factor_in_place(A, L, /*colmajor=*/false, info, [&](auto* m, int64_t) {
    using T = std::remove_pointer_t<decltype(m)>;
    // Row-major lower is column-major upper: potrf 'U' (or 'L' for the upper factor).
    const int r = potrf(upper ? 'L' : 'U', ni, m, ni);
    for (int64_t i = 0; i < n; ++i) {  // clear the triangle LAPACK leaves untouched, a row segment at a time
      T* row = m + i * n;
      if (upper) std::fill(row, row + i, T(0));
      else std::fill(row + i + 1, row + n, T(0));
    }
    return r;
  });
  if (check_errors) raise_info("linalg.cholesky_ex", info, Failure::Cholesky);
  return {L, info};
}

// ---------------------------------------------------------------- inverse
Tensors2 inv_ex_k(const Tensor& A, bool check_errors) {
  check_square_float("linalg.inv", A);
  const DimVector batch = batch_of(A, 2);
  const int64_t n = A.size(-1), B = prod(batch);
  Tensor info = zeros(batch, TensorOptions(kInt32));
  int32_t* ip = info.data_ptr<int32_t>();
  // PyTorch 1.13 inverts a contiguous real A by factoring A^T (linalg_solve_ex on the
  // identity), so its `info`, the first zero pivot, is A^T's: Ember factors the same matrix.
  // A^T read column-major is A's plain copy, so the large path skips the transposing copy and
  // inverts A^T in place, which leaves inv(A) row-major.
  const bool via_transpose = A.is_contiguous() && !A.is_complex();
  if (n <= small_max(A.scalar_type())) {  // row-major result from the unrolled LU of each matrix
    Tensor out = empty(A.sizes(), TensorOptions(A.dtype()));
    if (out.numel() == 0) return {out, info};
    const BatchIndex off(A, batch, 2);
    dispatch_float(A.dtype(), [&](auto z) {
      using T = decltype(z);
      const T* a = static_cast<const T*>(A.data_ptr());
      T* o = static_cast<T*>(out.data_ptr());
      // M = A^T (strides exchanged) or A; inv(A) = inv(A^T)^T is written transposed
      const int64_t rs = via_transpose ? A.stride(-1) : A.stride(-2), cs = via_transpose ? A.stride(-2) : A.stride(-1);
      with_small_n<T>(n, [&]<int N>() {
        const int nt = small_threads(B, N);
#pragma omp parallel for if (nt > 1) num_threads(nt) schedule(static)
        for (int64_t b = 0; b < B; ++b) {
          T m[N][N], rd[N];
          linalg_small::load<N>(m, a + off[b], rs, cs);
          int perm[N], swaps = 0;
          const int inf = linalg_small::lu<N>(m, perm, &swaps, rd);
          ip[b] = inf;
          if (inf) std::fill(o + b * N * N, o + (b + 1) * N * N, nan_value<T>());
          else linalg_small::lu_inverse<N>(m, rd, perm, o + b * N * N, via_transpose);
        }
      });
    });
    if (check_errors) raise_info("linalg.inv_ex", info, Failure::Inverse);
    return {out, info};
  }
  Tensor out = via_transpose ? empty(A.sizes(), TensorOptions(A.dtype())) : colmajor_empty(batch, n, n, A.dtype());
  if (out.numel() == 0) return {out, info};
  const std::vector<int64_t> off = batch_offsets(A, batch, 2);
  // The factor is of A^T (a plain copy) or of A (a transposing copy straight into the
  // column-major result), as PyTorch picks. Large matrices are then inverted in place by getri with the
  // workspace it asks for (fewer flops than a solve on the identity: 4/3 n^3 against 2 n^3);
  // below kGetri getri measured slower than getrs on the identity (PyTorch's path) here.
  constexpr int64_t kGetri = 512;
  dispatch_float(A.dtype(), [&](auto z) {
    using T = decltype(z);
    const T* a = static_cast<const T*>(A.data_ptr());
    T* o = static_cast<T*>(out.data_ptr());
    const int ni = static_cast<int>(n);
    const bool use_getri = n >= kGetri;
    std::vector<int> piv(static_cast<size_t>(n));
    std::vector<T> work;
    Tensor scratch;
    if (use_getri) {
      T wq;
      getri(ni, o, ni, piv.data(), &wq, -1);
      work.resize(static_cast<size_t>(std::max<double>(static_cast<double>(n), std::real(wq))));
    } else {
      scratch = empty({n, n}, TensorOptions(A.dtype()));
    }
    for (int64_t b = 0; b < B; ++b) {
      T* m = o + b * n * n;
      T* lu = use_getri ? m : static_cast<T*>(scratch.data_ptr());
      copy_mat(a + off[static_cast<size_t>(b)], A.stride(-2), A.stride(-1), lu, via_transpose ? n : 1,
               via_transpose ? 1 : n, n, n);
      const int r = getrf(ni, ni, lu, ni, piv.data());
      ip[b] = r;
      if (r) {
        std::fill(m, m + n * n, nan_value<T>());
      } else if (use_getri) {
        getri(ni, m, ni, piv.data(), work.data(), static_cast<int>(work.size()));
      } else {
        std::fill(m, m + n * n, T(0));
        for (int64_t i = 0; i < n; ++i) m[i * (n + 1)] = T(1);
        getrs('N', ni, ni, lu, ni, piv.data(), m, ni);
      }
    }
  });
  if (check_errors) raise_info("linalg.inv_ex", info, Failure::Inverse);
  return {out, info};
}

// ---------------------------------------------------------------- det, slogdet
// Calls f(b, diag_product_pieces...) through `visit(b, diag, n, swaps)` for every matrix: the
// diagonal of U and the parity of the row exchanges.
template <typename T, typename Visit>
void lu_diagonals(const Tensor& A, Visit&& visit) {
  const DimVector batch = batch_of(A, 2);
  const int64_t n = A.size(-1), B = prod(batch);
  if (B == 0) return;
  const BatchIndex off(A, batch, 2);
  const T* a = static_cast<const T*>(A.data_ptr());
  const int64_t rs = A.stride(-2), cs = A.stride(-1);
  if (n <= kSmallMax<T>) {
    if (n == 0) {
      for (int64_t b = 0; b < B; ++b) visit(b, static_cast<const T*>(nullptr), int64_t{0}, int64_t{1}, 0);
      return;
    }
    with_small_n<T>(n, [&]<int N>() {
        const int nt = small_threads(B, N);
#pragma omp parallel for if (nt > 1) num_threads(nt) schedule(static)
      for (int64_t b = 0; b < B; ++b) {
        T m[N][N];
        linalg_small::load<N>(m, a + off[b], rs, cs);
        int perm[N], swaps = 0;
        linalg_small::lu<N>(m, perm, &swaps);
        visit(b, &m[0][0], int64_t{N}, int64_t{N + 1}, swaps);
      }
    });
    return;
  }
  Tensor scratch = empty({n, n}, TensorOptions(A.dtype()));
  T* m = static_cast<T*>(scratch.data_ptr());
  std::vector<int> piv(static_cast<size_t>(n));
  for (int64_t b = 0; b < B; ++b) {
    // a plain copy: the column-major reading is A^T, whose determinant is A's
    copy_mat(a + off[b], rs, cs, m, n, 1, n, n);
    getrf(static_cast<int>(n), static_cast<int>(n), m, static_cast<int>(n), piv.data());
    int swaps = 0;
    for (int64_t i = 0; i < n; ++i) swaps += piv[static_cast<size_t>(i)] != i + 1;
    visit(b, m, n, n + 1, swaps);
  }
}

Tensor det_k(const Tensor& A) {
  check_square_float("linalg.det", A);
  Tensor out = empty(batch_of(A, 2), TensorOptions(A.dtype()));
  dispatch_float(A.dtype(), [&](auto z) {
    using T = decltype(z);
    T* o = out.numel() ? static_cast<T*>(out.data_ptr()) : nullptr;
    lu_diagonals<T>(A, [&](int64_t b, const T* d, int64_t n, int64_t step, int swaps) {
      T p = (swaps & 1) ? T(-1) : T(1);
      for (int64_t i = 0; i < n; ++i) p *= d[i * step];
      o[b] = p;
    });
  });
  return out;
}

Tensors2 slogdet_k(const Tensor& A) {
  check_square_float("linalg.slogdet", A);
  const DimVector batch = batch_of(A, 2);
  Tensor sign = empty(batch, TensorOptions(A.dtype()));
  Tensor logabs = empty(batch, TensorOptions(to_real_type(A.dtype())));
  dispatch_float(A.dtype(), [&](auto z) {
    using T = decltype(z);
    using R = typename Real<T>::type;
    T* s = sign.numel() ? static_cast<T*>(sign.data_ptr()) : nullptr;
    R* l = logabs.numel() ? static_cast<R*>(logabs.data_ptr()) : nullptr;
    lu_diagonals<T>(A, [&](int64_t b, const T* d, int64_t n, int64_t step, int swaps) {
      T sg = (swaps & 1) ? T(-1) : T(1);
      R la = 0;
      for (int64_t i = 0; i < n; ++i) {
        const T v = d[i * step];
        const R av = std::abs(v);
        if (av == R(0)) {
          sg = T(0);
          la = -std::numeric_limits<R>::infinity();
          break;
        }
        sg *= v / av;
        la += std::log(av);
      }
      s[b] = sg;
      l[b] = la;
    });
  });
  return {sign, logabs};
}

// ---------------------------------------------------------------- solve
bool solve_vector_case(const Tensor& A, const Tensor& B) {
  return B.dim() == 1 || (B.dim() == A.dim() - 1 && B.sizes().equals(A.sizes().slice(0, static_cast<size_t>(A.dim() - 1))));
}

Tensors2 solve_ex_k(const Tensor& A, const Tensor& Bt, bool left, bool check_errors) {
  const char* api = "linalg.solve";
  check_square_float(api, A);
  check_cpu(api, Bt);
  EMBER_CHECK(A.dtype() == Bt.dtype(), RuntimeError, api, ": Expected A and B to have the same dtype, but found A of type ",
              torch_type_name(A.dtype()), " and B of type ", torch_type_name(Bt.dtype()), " instead");
  const bool vec = solve_vector_case(A, Bt);
  const int64_t n = A.size(-1);
  // As matrices: Bm is n x k with the equation A X = B; X A = B is A^T X^T = B^T.
  Tensor Bm = vec ? Bt.unsqueeze(-1) : (left ? Bt : Bt.mT());
  EMBER_CHECK(Bm.size(-2) == n, RuntimeError, api, ": Incompatible shapes of A and B for the equation ",
              left ? "AX = B" : "XA = B", " (", A.size(-2), "x", A.size(-1), " and ",
              vec ? Bt.size(-1) : Bt.size(-2), "x", vec ? int64_t{1} : Bt.size(-1), ")");
  const DimVector abatch = batch_of(A, 2), batch = broadcast_pair(abatch, batch_of(Bm, 2));
  const int64_t k = Bm.size(-1), NB = prod(batch);
  Tensor info = zeros(abatch, TensorOptions(kInt32));  // one per A, as PyTorch's
  Tensor X = colmajor_empty(batch, n, k, A.dtype());  // n x k, column-major
  if (X.numel() != 0) {
    const BatchIndex aoff(A, batch, 2), boff(Bm, batch, 2);
    // which of A's matrices each broadcast batch element uses (for info)
    const bool same = abatch == batch;
    const std::vector<int64_t> aidx = same ? std::vector<int64_t>() :
        batch_offsets(arange(0, prod(abatch), 1, TensorOptions(kInt64)).view(cat_shape(abatch, {1, 1})), batch, 2);
    auto a_index = [&](int64_t b) { return same ? b : aidx[static_cast<size_t>(b)]; };
    int32_t* ip = info.data_ptr<int32_t>();
    dispatch_float(A.dtype(), [&](auto z) {
      using T = decltype(z);
      const T* a = static_cast<const T*>(A.data_ptr());
      const T* bb = static_cast<const T*>(Bm.data_ptr());
      T* x = static_cast<T*>(X.data_ptr());
      const int64_t ars = A.stride(-2), acs = A.stride(-1), brs = Bm.stride(-2), bcs = Bm.stride(-1);
      // The transposed equation A^T X = B' for X A = B: swap A's strides.
      const int64_t ar = left ? ars : acs, ac = left ? acs : ars;
      if (n <= kSmallMax<T>) {
        with_small_n<T>(n, [&]<int N>() {
          const int nt = small_threads(NB, N + k);
#pragma omp parallel for if (nt > 1) num_threads(nt) schedule(static)
          for (int64_t b = 0; b < NB; ++b) {
            T m[N][N], rd[N];
            linalg_small::load<N>(m, a + aoff[b], ar, ac);
            int perm[N], swaps = 0;
            T* xb = x + b * N * k;
            const int inf = linalg_small::lu<N>(m, perm, &swaps, rd);
            ip[a_index(b)] = inf;
            if (inf) std::fill(xb, xb + N * k, nan_value<T>());
            else linalg_small::lu_solve_cols<N>(m, rd, perm, bb + boff[b], brs, bcs, xb, k, N);
          }
        });
        return;
      }
      Tensor scratch = empty({n, n}, TensorOptions(A.dtype()));
      T* m = static_cast<T*>(scratch.data_ptr());
      std::vector<int> piv(static_cast<size_t>(n));
      int64_t factored = -1;
      int last = 0;
      for (int64_t b = 0; b < NB; ++b) {
        const int64_t ao = aoff[b];
        if (ao != factored || b == 0) {  // a broadcast A is factored once
          copy_mat(a + ao, ar, ac, m, n, 1, n, n);  // column-major reading: A^T
          last = getrf(static_cast<int>(n), static_cast<int>(n), m, static_cast<int>(n), piv.data());
          factored = ao;
        }
        T* xb = x + b * n * k;
        copy_mat(bb + boff[b], brs, bcs, xb, 1, n, n, k);
        ip[a_index(b)] = last;
        if (last) std::fill(xb, xb + n * k, nan_value<T>());
        else getrs('T', static_cast<int>(n), static_cast<int>(k), m, static_cast<int>(n), piv.data(), xb, static_cast<int>(n));
      }
    });
  }
  if (check_errors) raise_info("torch.linalg.solve_ex", info, Failure::Solve);
  if (vec) return {X.squeeze(-1), info};
  return {left ? X : X.mT(), info};
}

// ---------------------------------------------------------------- LU
Tensors3 lu_factor_ex_k(const Tensor& A, bool pivot, bool check_errors) {
  check_cpu("torch.lu_factor", A);
  EMBER_CHECK(A.dim() >= 2, RuntimeError, "torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: ",
              A.sizes(), " instead");
  EMBER_CHECK(A.dtype() == kFloat || A.dtype() == kDouble || A.dtype() == kComplexFloat || A.dtype() == kComplexDouble,
              RuntimeError, "\"lu_cpu\" not implemented for '", torch_type_name(A.dtype()), "'");
  EMBER_CHECK(pivot, RuntimeError, "linalg.lu_factor: LU without pivoting is not implemented on the CPU");
  const DimVector batch = batch_of(A, 2);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  Tensor LU = colmajor_empty(batch, m, n, A.dtype());
  Tensor piv = empty(cat_shape(batch, {k}), TensorOptions(kInt32));
  Tensor info = zeros(batch, TensorOptions(kInt32));
  int32_t* pp = piv.data_ptr<int32_t>();
  factor_in_place(A, LU, /*colmajor=*/true, info, [&](auto* mb, int64_t b) {
    return getrf(static_cast<int>(m), static_cast<int>(n), mb, static_cast<int>(std::max<int64_t>(1, m)), pp + b * k);
  });
  if (check_errors) raise_info("torch.linalg.lu_factor_ex", info, Failure::LU);
  return {LU, piv, info};
}

void check_factor_rhs(const char* api, const Tensor& F, const Tensor& piv, const Tensor& B, bool left, bool lu) {
  check_cpu(api, F);
  check_square(api, F, lu ? "LU" : "LD");
  check_matrix(api, B, "B");
  check_dtype(api, F, "A");
  EMBER_CHECK(piv.dtype() == kInt32, RuntimeError, api, ": pivots should be a Tensor of scalar type torch.int32");
  EMBER_CHECK(piv.dim() == F.dim() - 1 && piv.sizes().equals(F.sizes().slice(0, static_cast<size_t>(F.dim() - 1))),
              RuntimeError, api, ": Expected ", lu ? "LU" : "LD", ".shape[:-1] and pivots.shape to be the same, but got pivots with shape ",
              piv.sizes(), " instead");
  EMBER_CHECK(F.dtype() == B.dtype(), RuntimeError, api, ": Expected ", lu ? "LU" : "LD",
              " and B to have the same dtype, but found ", lu ? "LU" : "LD", " of type ", torch_type_name(F.dtype()),
              " and B of type ", torch_type_name(B.dtype()), " instead");
  const int64_t n = F.size(-1);
  EMBER_CHECK(left ? B.size(-2) == n : B.size(-1) == n, RuntimeError, api,
              ": Incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B", " (", n, "x", n,
              " and ", B.size(-2), "x", B.size(-1), ")");
}

// Solves with column-major factors: `rs(trans, n, k, factor, piv, x)` per matrix, x holding B.
template <typename Solve>
Tensor factor_solve(const Tensor& F, const Tensor& piv, const Tensor& Bm, Solve&& rs) {
  const DimVector batch = broadcast_pair(batch_of(F, 2), batch_of(Bm, 2));
  const int64_t n = F.size(-1), k = Bm.size(-1), NB = prod(batch);
  Tensor X = colmajor_empty(batch, n, k, F.dtype());
  if (X.numel() == 0) return X;
  const std::vector<int64_t> foff = batch_offsets(F, batch, 2), poff = batch_offsets(piv.unsqueeze(-1), batch, 2),
                             boff = batch_offsets(Bm, batch, 2);
  dispatch_float(F.dtype(), [&](auto z) {
    using T = decltype(z);
    const T* f = static_cast<const T*>(F.data_ptr());
    const T* bb = static_cast<const T*>(Bm.data_ptr());
    const int32_t* pv = piv.data_ptr<int32_t>();
    T* x = static_cast<T*>(X.data_ptr());
    const bool colmajor = F.stride(-2) == 1 && F.stride(-1) == n;
    Tensor scratch = colmajor ? Tensor() : empty({n, n}, TensorOptions(F.dtype()));
    std::vector<int> pc(static_cast<size_t>(n));
    for (int64_t b = 0; b < NB; ++b) {
      const T* fm = f + foff[static_cast<size_t>(b)];
      if (!colmajor) {
        T* s = static_cast<T*>(scratch.data_ptr());
        copy_mat(fm, F.stride(-2), F.stride(-1), s, 1, n, n, n);
        fm = s;
      }
      const int32_t* pb = pv + poff[static_cast<size_t>(b)];
      for (int64_t i = 0; i < n; ++i) pc[static_cast<size_t>(i)] = pb[i * piv.stride(-1)];
      T* xb = x + b * n * k;
      copy_mat(bb + boff[static_cast<size_t>(b)], Bm.stride(-2), Bm.stride(-1), xb, 1, n, n, k);
      rs(static_cast<int>(n), static_cast<int>(k), fm, pc.data(), xb);
    }
  });
  return X;
}

Tensor lu_solve_k(const Tensor& LU, const Tensor& piv, const Tensor& B, bool left, bool adjoint) {
  const char* api = "linalg.lu_solve";
  check_cpu(api, B);
  check_factor_rhs(api, LU, piv, B, left, true);
  // X A = B  <=>  A^H X^H = B^H (and X A^H = B <=> A X^H = B^H)
  const Tensor Bm = left ? B : conj(B.mT());
  const bool adj = left ? adjoint : !adjoint;
  const char trans = adj ? (LU.is_complex() ? 'C' : 'T') : 'N';
  Tensor X;
  dispatch_float(LU.dtype(), [&](auto z) {
    using T = decltype(z);
    X = factor_solve(LU, piv, Bm, [&](int n, int k, const void* f, const int* p, void* x) {
      getrs(trans, n, k, static_cast<const T*>(f), n, p, static_cast<T*>(x), n);
    });
  });
  return left ? X : conj(X.mT());
}

// ---------------------------------------------------------------- solve_triangular
Tensor solve_triangular_k(const Tensor& A_, const Tensor& B_, bool upper, bool left, bool unitriangular) {
  const char* api = "linalg.solve_triangular";
  check_cpu(api, A_);
  check_cpu(api, B_);
  check_matrix(api, A_, "A");
  check_matrix(api, B_, "B");
  check_square(api, A_, "A");
  check_dtype(api, A_, "A");
  check_dtype(api, B_, "B");
  const ScalarType dt = promote_types(A_.dtype(), B_.dtype());
  const Tensor A = A_.dtype() == dt ? A_ : A_.to(dt), Bt = B_.dtype() == dt ? B_ : B_.to(dt);
  const int64_t n = A.size(-1);
  EMBER_CHECK(left ? Bt.size(-2) == n : Bt.size(-1) == n, RuntimeError, api,
              ": Incompatible shapes of A and B for the equation ", left ? "AX = B" : "XA = B", " (", n, "x", n, " and ",
              Bt.size(-2), "x", Bt.size(-1), ")");
  const DimVector batch = broadcast_pair(batch_of(A, 2), batch_of(Bt, 2));
  const int64_t r = Bt.size(-2), c = Bt.size(-1), NB = prod(batch);
  Tensor X = empty(cat_shape(batch, {r, c}), TensorOptions(dt));
  if (X.numel() == 0) return X;
  X.copy_(Bt.expand(X.sizes()));
  if (n == 0) return X;
  // A with a unit stride in either dim goes to BLAS as it is (a transposed view flips uplo).
  Tensor Ac = A;
  bool trans = false;
  int64_t lda;
  if (A.stride(-1) == 1 && A.stride(-2) >= n) {
    lda = A.stride(-2);
  } else if (A.stride(-2) == 1 && A.stride(-1) >= n) {
    trans = true;
    lda = A.stride(-1);
  } else {
    Ac = A.contiguous();
    lda = n;
  }
  const std::vector<int64_t> aoff = batch_offsets(Ac, batch, 2);
  const CBLAS_UPLO uplo = (upper != trans) ? CblasUpper : CblasLower;
  dispatch_float(dt, [&](auto z) {
    using T = decltype(z);
    const T* a = static_cast<const T*>(Ac.data_ptr());
    T* x = static_cast<T*>(X.data_ptr());
    for (int64_t b = 0; b < NB; ++b)
      trsm(left ? CblasLeft : CblasRight, uplo, trans ? CblasTrans : CblasNoTrans, unitriangular ? CblasUnit : CblasNonUnit,
           static_cast<int>(r), static_cast<int>(c), a + aoff[static_cast<size_t>(b)], static_cast<int>(lda),
           x + b * r * c, static_cast<int>(c));
  });
  return X;
}

// ---------------------------------------------------------------- LDL
Tensors3 ldl_factor_ex_k(const Tensor& A, bool hermitian, bool check_errors) {
  const char* api = "torch.linalg.ldl_factor_ex";
  check_square_float(api, A);
  const DimVector batch = batch_of(A, 2);
  const int64_t n = A.size(-1);
  Tensor LD = colmajor_empty(batch, n, n, A.dtype());
  Tensor piv = empty(cat_shape(batch, {n}), TensorOptions(kInt32));
  Tensor info = zeros(batch, TensorOptions(kInt32));
  int32_t* pp = piv.data_ptr<int32_t>();
  const int ni = static_cast<int>(n);
  std::vector<char> work;  // sized by sytrf/hetrf's query on the first matrix
  factor_in_place(A, LD, /*colmajor=*/true, info, [&](auto* mb, int64_t b) {
    using T = std::remove_pointer_t<decltype(mb)>;
    if (work.empty()) {
      T wq;
      ldl(hermitian, ni, mb, ni, pp, &wq, -1);
      work.resize(sizeof(T) * static_cast<size_t>(std::max<double>(1.0, std::real(wq))));
    }
    const int r = ldl(hermitian, ni, mb, ni, pp + b * n, reinterpret_cast<T*>(work.data()),
                      static_cast<int>(work.size() / sizeof(T)));
    for (int64_t j = 1; j < n; ++j)  // the strict upper part (column-major) is not part of the result
      for (int64_t i = 0; i < j; ++i) mb[i + j * n] = T(0);
    return r;
  });
  if (check_errors) raise_info(api, info, Failure::LDL);
  return {LD, piv, info};
}

Tensor ldl_solve_k(const Tensor& LD, const Tensor& piv, const Tensor& B, bool hermitian) {
  const char* api = "torch.linalg.ldl_solve";
  check_cpu(api, B);
  check_factor_rhs(api, LD, piv, B, true, false);
  Tensor X;
  dispatch_float(LD.dtype(), [&](auto z) {
    using T = decltype(z);
    X = factor_solve(LD, piv, B, [&](int n, int k, const void* f, const int* p, void* x) {
      ldl_rs(hermitian, n, k, static_cast<const T*>(f), n, p, static_cast<T*>(x), n);
    });
  });
  return X;
}

}  // namespace

// ---------------------------------------------------------------- registration
EMBER_REGISTER(linalg_factor_ops) {
  const uint32_t fo = static_cast<uint32_t>(Tag::FunctionOnly);
  define_op<CholeskyExSig>("linalg_cholesky_ex(Tensor self, *, bool upper=False, bool check_errors=False) -> "
                           "(Tensor L, Tensor info)", fo);
  define_op<InvExSig>("linalg_inv_ex(Tensor A, *, bool check_errors=False) -> (Tensor inverse, Tensor info)", fo);
  define_op<UnarySig>("linalg_det(Tensor A) -> Tensor", fo);
  define_op<Unary2Sig>("linalg_slogdet(Tensor A) -> (Tensor sign, Tensor logabsdet)", fo);
  define_op<SolveExSig>("linalg_solve_ex(Tensor A, Tensor B, *, bool left=True, bool check_errors=False) -> "
                        "(Tensor result, Tensor info)", fo);
  define_op<LuFactorExSig>("linalg_lu_factor_ex(Tensor A, *, bool pivot=True, bool check_errors=False) -> "
                           "(Tensor LU, Tensor pivots, Tensor info)", fo);
  define_op<LuSolveSig>("linalg_lu_solve(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, bool adjoint=False) -> "
                        "Tensor", fo);
  define_op<SolveTriSig>("linalg_solve_triangular(Tensor self, Tensor B, *, bool upper, bool left=True, "
                         "bool unitriangular=False) -> Tensor", fo);
  define_op<LdlFactorExSig>("linalg_ldl_factor_ex(Tensor self, *, bool hermitian=False, bool check_errors=False) -> "
                            "(Tensor LD, Tensor pivots, Tensor info)", fo);
  define_op<LdlSolveSig>("linalg_ldl_solve(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False) -> Tensor", fo);
  register_kernel<CholeskyExSig, &cholesky_ex_k>("linalg_cholesky_ex", DispatchKey::CPU);
  register_kernel<InvExSig, &inv_ex_k>("linalg_inv_ex", DispatchKey::CPU);
  register_kernel<UnarySig, &det_k>("linalg_det", DispatchKey::CPU);
  register_kernel<Unary2Sig, &slogdet_k>("linalg_slogdet", DispatchKey::CPU);
  register_kernel<SolveExSig, &solve_ex_k>("linalg_solve_ex", DispatchKey::CPU);
  register_kernel<LuFactorExSig, &lu_factor_ex_k>("linalg_lu_factor_ex", DispatchKey::CPU);
  register_kernel<LuSolveSig, &lu_solve_k>("linalg_lu_solve", DispatchKey::CPU);
  register_kernel<SolveTriSig, &solve_triangular_k>("linalg_solve_triangular", DispatchKey::CPU);
  register_kernel<LdlFactorExSig, &ldl_factor_ex_k>("linalg_ldl_factor_ex", DispatchKey::CPU);
  register_kernel<LdlSolveSig, &ldl_solve_k>("linalg_ldl_solve", DispatchKey::CPU);
}

}  // namespace ember::linalg_factor_ops
