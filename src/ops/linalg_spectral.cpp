// torch.linalg's spectral decompositions through LAPACK (LAPACKE): the primitives
// _linalg_eigh (syevd/heevd), _linalg_svd (gesdd), linalg_qr (geqrf + orgqr/ungqr),
// linalg_eig (geev), linalg_householder_product (orgqr/ungqr) and linalg_lstsq
// (gelsy/gelsd/gelss/gels), with CPU/Meta kernels. The public functions built on them (eigh, svd, pinv, norms, ...) are
// composites in linalg_spectral_composite.cpp; formulas in autograd/formulas_linalg_spectral.cpp.
//
// Each matrix is copied once into a column-major scratch buffer (a contiguous (..., n, m)
// tensor seen through mT()), which LAPACK overwrites in place; results keep that layout, as
// PyTorch's do. Batches of small matrices run in parallel (OpenBLAS then runs single-threaded
// inside the region); large ones run one after another with OpenBLAS's own threads.
#include "backends/cpu/lapack.h"
#include "core/torch_names.h"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <vector>

#include "ember/dispatch.h"
#include "ember/error.h"
#include "ember/linalg/spectral.h"
#include "ember/ops.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"
#include "ember/parallel.h"

namespace ember {
namespace linalg_detail {

bool is_lapack_type(ScalarType t) {
  return t == kFloat || t == kDouble || t == kComplexFloat || t == kComplexDouble;
}

void check_matrix(const char* fname, const Tensor& A, bool square, const char* arg) {
  EMBER_CHECK(A.dim() >= 2, RuntimeError, fname, ": The input tensor ", arg, " must have at least 2 dimensions.");
  if (square)
    EMBER_CHECK(A.size(-1) == A.size(-2), RuntimeError, fname, ": ", arg,
                " must be batches of square matrices, but they are ", A.size(-2), " by ", A.size(-1), " matrices");
}

void check_float_input(const char* fname, const Tensor& A) {
  const ScalarType t = A.dtype();
  EMBER_CHECK(is_floating_point(t) || is_complex(t), RuntimeError, fname,
              ": Expected a floating point or complex tensor as input. Got ", torch_type_name(t));
}

// "<kernel>" not implemented for 'Half' (PyTorch's dispatch message for the 16-bit types).
void check_kernel_dtype(const char* kernel, const Tensor& A) {
  EMBER_CHECK(is_lapack_type(A.dtype()), RuntimeError, "\"", kernel, "\" not implemented for '",
              torch_type_name(A.dtype()), "'");
}

}  // namespace linalg_detail

namespace linalg_spectral {
namespace {

using namespace linalg_detail;
using c64 = std::complex<float>;
using c128 = std::complex<double>;

template <typename T> struct RealOf { using type = T; };
template <typename T> struct RealOf<std::complex<T>> { using type = T; };
template <typename T> using real_t = typename RealOf<T>::type;

// ---------------------------------------------------------------- LAPACK overloads
// std::complex has the layout of LAPACK's complex types, whichever way lapacke.h defines them
// (a unity build may have included it before this file could choose).
inline float* lc(float* p) { return p; }
inline double* lc(double* p) { return p; }
inline lapack_complex_float* lc(c64* p) { return reinterpret_cast<lapack_complex_float*>(p); }
inline lapack_complex_double* lc(c128* p) { return reinterpret_cast<lapack_complex_double*>(p); }
inline const lapack_complex_float* lc(const c64* p) { return reinterpret_cast<const lapack_complex_float*>(p); }
inline const lapack_complex_double* lc(const c128* p) { return reinterpret_cast<const lapack_complex_double*>(p); }
inline const float* lc(const float* p) { return p; }
inline const double* lc(const double* p) { return p; }
lapack_int heevd(char jobz, char uplo, lapack_int n, float* a, lapack_int lda, float* w) {
  return LAPACKE_ssyevd(LAPACK_COL_MAJOR, jobz, uplo, n, a, lda, w);
}
lapack_int heevd(char jobz, char uplo, lapack_int n, double* a, lapack_int lda, double* w) {
  return LAPACKE_dsyevd(LAPACK_COL_MAJOR, jobz, uplo, n, a, lda, w);
}
lapack_int heevd(char jobz, char uplo, lapack_int n, c64* a, lapack_int lda, float* w) {
  return LAPACKE_cheevd(LAPACK_COL_MAJOR, jobz, uplo, n, lc(a), lda, w);
}
lapack_int heevd(char jobz, char uplo, lapack_int n, c128* a, lapack_int lda, double* w) {
  return LAPACKE_zheevd(LAPACK_COL_MAJOR, jobz, uplo, n, lc(a), lda, w);
}

#define EMBER_GESDD(T, R, f)                                                                              \
  lapack_int gesdd(char jobz, lapack_int m, lapack_int n, T* a, lapack_int lda, R* s, T* u, lapack_int ldu, \
                   T* vt, lapack_int ldvt) {                                                              \
    return f(LAPACK_COL_MAJOR, jobz, m, n, lc(a), lda, s, lc(u), ldu, lc(vt), ldvt);                                  \
  }
EMBER_GESDD(c64, float, LAPACKE_cgesdd)
EMBER_GESDD(c128, double, LAPACKE_zgesdd)
#undef EMBER_GESDD
// The real ones through the _work forms with workspaces from Ember's caching allocator: the
// high-level forms malloc a fresh workspace per matrix (16 MB at 1024 x 1024, page faults and
// all) and scan the input for NaN, which gesdd reports itself (info -4).
static_assert(sizeof(lapack_int) == 4, "iwork below is int32");
#define EMBER_GESDD_WORK(T, f)                                                                              \
  lapack_int gesdd(char jobz, lapack_int m, lapack_int n, T* a, lapack_int lda, T* s, T* u, lapack_int ldu,   \
                   T* vt, lapack_int ldvt) {                                                                \
    Tensor iw = empty({8 * std::max<int64_t>(1, std::min(m, n))}, TensorOptions(kInt32));                   \
    auto* iwork = static_cast<lapack_int*>(iw.data_ptr());                                                  \
    T q{};                                                                                                  \
    lapack_int info = f(LAPACK_COL_MAJOR, jobz, m, n, a, lda, s, u, ldu, vt, ldvt, &q, -1, iwork);          \
    if (info != 0) return info;                                                                             \
    Tensor w = empty({std::max<int64_t>(1, static_cast<int64_t>(q))}, TensorOptions(scalar_type_of<T>));    \
    return f(LAPACK_COL_MAJOR, jobz, m, n, a, lda, s, u, ldu, vt, ldvt, static_cast<T*>(w.data_ptr()),      \
             static_cast<lapack_int>(w.numel()), iwork);                                                    \
  }
EMBER_GESDD_WORK(float, LAPACKE_sgesdd_work)
EMBER_GESDD_WORK(double, LAPACKE_dgesdd_work)
#undef EMBER_GESDD_WORK

// geqrf and orgqr/ungqr through the _work forms (no NaN scan: NaN input gives NaN output),
// with a workspace query first.
#define EMBER_QR(T, fq, fg)                                                                              \
  lapack_int geqrf(lapack_int m, lapack_int n, T* a, lapack_int lda, T* tau) {                          \
    T q;                                                                                                \
    lapack_int info = fq(LAPACK_COL_MAJOR, m, n, lc(a), lda, lc(tau), lc(&q), -1);                                   \
    if (info != 0) return info;                                                                         \
    std::vector<T> work(std::max<size_t>(1, static_cast<size_t>(std::real(q))));                        \
    return fq(LAPACK_COL_MAJOR, m, n, lc(a), lda, lc(tau), lc(work.data()), static_cast<lapack_int>(work.size()));   \
  }                                                                                                     \
  lapack_int orgqr(lapack_int m, lapack_int n, lapack_int k, T* a, lapack_int lda, const T* tau) {       \
    T q;                                                                                                \
    lapack_int info = fg(LAPACK_COL_MAJOR, m, n, k, lc(a), lda, lc(tau), lc(&q), -1);                                \
    if (info != 0) return info;                                                                         \
    std::vector<T> work(std::max<size_t>(1, static_cast<size_t>(std::real(q))));                        \
    return fg(LAPACK_COL_MAJOR, m, n, k, lc(a), lda, lc(tau), lc(work.data()), static_cast<lapack_int>(work.size())); \
  }
EMBER_QR(float, LAPACKE_sgeqrf_work, LAPACKE_sorgqr_work)
EMBER_QR(double, LAPACKE_dgeqrf_work, LAPACKE_dorgqr_work)
EMBER_QR(c64, LAPACKE_cgeqrf_work, LAPACKE_cungqr_work)
EMBER_QR(c128, LAPACKE_zgeqrf_work, LAPACKE_zungqr_work)
#undef EMBER_QR

// geev: right eigenvectors only. Real input gives eigenvalues as (wr, wi) and conjugate pairs
// of eigenvectors packed into two real columns; they are unpacked by the caller.
lapack_int geev(lapack_int n, float* a, lapack_int lda, c64* w, c64* v, bool vectors) {
  std::vector<float> wr(static_cast<size_t>(n)), wi(static_cast<size_t>(n)), vr(vectors ? static_cast<size_t>(n * n) : 1);
  lapack_int info = LAPACKE_sgeev(LAPACK_COL_MAJOR, 'N', vectors ? 'V' : 'N', n, a, lda, wr.data(), wi.data(), nullptr,
                                  1, vr.data(), vectors ? n : 1);
  if (info != 0) return info;
  for (lapack_int j = 0; j < n; ++j) w[j] = c64(wr[static_cast<size_t>(j)], wi[static_cast<size_t>(j)]);
  if (!vectors) return 0;
  for (lapack_int j = 0; j < n; ++j) {
    const float* c = vr.data() + static_cast<size_t>(j) * static_cast<size_t>(n);
    if (wi[static_cast<size_t>(j)] != 0.0f && j + 1 < n) {  // a pair: columns j and j+1 are Re and Im
      for (lapack_int i = 0; i < n; ++i) {
        v[i + j * n] = c64(c[i], c[i + n]);
        v[i + (j + 1) * n] = c64(c[i], -c[i + n]);
      }
      ++j;
    } else {
      for (lapack_int i = 0; i < n; ++i) v[i + j * n] = c64(c[i], 0.0f);
    }
  }
  return 0;
}
lapack_int geev(lapack_int n, double* a, lapack_int lda, c128* w, c128* v, bool vectors) {
  std::vector<double> wr(static_cast<size_t>(n)), wi(static_cast<size_t>(n)), vr(vectors ? static_cast<size_t>(n * n) : 1);
  lapack_int info = LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', vectors ? 'V' : 'N', n, a, lda, wr.data(), wi.data(), nullptr,
                                  1, vr.data(), vectors ? n : 1);
  if (info != 0) return info;
  for (lapack_int j = 0; j < n; ++j) w[j] = c128(wr[static_cast<size_t>(j)], wi[static_cast<size_t>(j)]);
  if (!vectors) return 0;
  for (lapack_int j = 0; j < n; ++j) {
    const double* c = vr.data() + static_cast<size_t>(j) * static_cast<size_t>(n);
    if (wi[static_cast<size_t>(j)] != 0.0 && j + 1 < n) {
      for (lapack_int i = 0; i < n; ++i) {
        v[i + j * n] = c128(c[i], c[i + n]);
        v[i + (j + 1) * n] = c128(c[i], -c[i + n]);
      }
      ++j;
    } else {
      for (lapack_int i = 0; i < n; ++i) v[i + j * n] = c128(c[i], 0.0);
    }
  }
  return 0;
}
lapack_int geev(lapack_int n, c64* a, lapack_int lda, c64* w, c64* v, bool vectors) {
  c64 dummy;
  return LAPACKE_cgeev(LAPACK_COL_MAJOR, 'N', vectors ? 'V' : 'N', n, lc(a), lda, lc(w), nullptr, 1, lc(vectors ? v : &dummy),
                       vectors ? n : 1);
}
lapack_int geev(lapack_int n, c128* a, lapack_int lda, c128* w, c128* v, bool vectors) {
  c128 dummy;
  return LAPACKE_zgeev(LAPACK_COL_MAJOR, 'N', vectors ? 'V' : 'N', n, lc(a), lda, lc(w), nullptr, 1, lc(vectors ? v : &dummy),
                       vectors ? n : 1);
}

// Least squares: gels (QR, full rank), gelsy (complete orthogonal factorization), gelsd
// (SVD, divide and conquer), gelss (SVD). `rank` and `s` are written by the drivers that
// compute them.
enum class Driver { Gels, Gelsy, Gelsd, Gelss };

#define EMBER_LSTSQ(T, R, p)                                                                                  \
  lapack_int lstsq(Driver d, lapack_int m, lapack_int n, lapack_int nrhs, T* a, lapack_int lda, T* b,          \
                   lapack_int ldb, R rcond, lapack_int* rank, R* s) {                                          \
    switch (d) {                                                                                               \
      case Driver::Gels: return LAPACKE_##p##gels(LAPACK_COL_MAJOR, 'N', m, n, nrhs, lc(a), lda, lc(b), ldb);          \
      case Driver::Gelsy: {                                                                                    \
        std::vector<lapack_int> jpvt(static_cast<size_t>(std::max<lapack_int>(1, n)), 0);                       \
        return LAPACKE_##p##gelsy(LAPACK_COL_MAJOR, m, n, nrhs, lc(a), lda, lc(b), ldb, jpvt.data(), rcond, rank);      \
      }                                                                                                        \
      case Driver::Gelsd: return LAPACKE_##p##gelsd(LAPACK_COL_MAJOR, m, n, nrhs, lc(a), lda, lc(b), ldb, s, rcond, rank); \
      case Driver::Gelss: return LAPACKE_##p##gelss(LAPACK_COL_MAJOR, m, n, nrhs, lc(a), lda, lc(b), ldb, s, rcond, rank); \
    }                                                                                                          \
    return -1;                                                                                                 \
  }
EMBER_LSTSQ(float, float, s)
EMBER_LSTSQ(double, double, d)
EMBER_LSTSQ(c64, float, c)
EMBER_LSTSQ(c128, double, z)
#undef EMBER_LSTSQ

// ---------------------------------------------------------------- layout and batching
DimVector batch_shape(const Tensor& A) { return DimVector(A.sizes().slice(0, static_cast<size_t>(A.dim() - 2))); }

int64_t prod(IntArrayRef s) {
  int64_t n = 1;
  for (int64_t v : s) n *= v;
  return n;
}

// A fresh (batch..., rows, cols) tensor whose matrices are column-major.
Tensor col_major_empty(IntArrayRef batch, int64_t rows, int64_t cols, ScalarType dt, Device dev) {
  DimVector s(batch);
  s.push_back(cols);
  s.push_back(rows);
  return empty(s, TensorOptions(dt).device(dev)).mT();
}

// A's values (cast to dt) in a fresh column-major buffer of shape (batch..., rows, cols) with
// rows >= A's rows (the extra rows are zero: LAPACK's least-squares right-hand side).
Tensor col_major_copy(const Tensor& A, ScalarType dt, int64_t rows = -1) {
  const int64_t m = A.size(-2), n = A.size(-1);
  if (rows < 0) rows = m;
  Tensor buf = col_major_empty(batch_shape(A), rows, n, dt, A.device());
  if (buf.is_meta()) return buf;
  if (rows > m) {
    buf.zero_();
    buf.narrow(-2, 0, m).copy_(A);
  } else {
    buf.copy_(A);
  }
  return buf;
}

// Runs f(i) for each of `batch` matrices: in parallel when they are small (LAPACK runs
// single-threaded inside the region), one after another when large.
template <typename F>
void for_each_matrix(int64_t batch, int64_t flops_per_matrix, F&& f) {
  const bool par = batch > 1 && flops_per_matrix < (int64_t{1} << 21) && get_num_threads() > 1;
  if (!par) {
    for (int64_t i = 0; i < batch; ++i) f(i);
    return;
  }
#pragma omp parallel for schedule(dynamic) num_threads(get_num_threads())
  for (int64_t i = 0; i < batch; ++i) f(i);
}

template <typename F>
void dispatch_lapack(ScalarType t, F&& f) {
  switch (t) {
    case kFloat: f(float{}); break;
    case kDouble: f(double{}); break;
    case kComplexFloat: f(c64{}); break;
    case kComplexDouble: f(c128{}); break;
    default: EMBER_FAIL(RuntimeError, "linalg: unsupported dtype ", torch_type_name(t));
  }
}

// The first failing batch element's LAPACK info (0 if none) and its index.
struct Infos {
  std::vector<lapack_int> v;
  explicit Infos(int64_t n) : v(static_cast<size_t>(n), 0) {}
  std::pair<int64_t, lapack_int> first() const {
    for (size_t i = 0; i < v.size(); ++i)
      if (v[i] != 0) return {static_cast<int64_t>(i), v[i]};
    return {-1, 0};
  }
};

std::string batch_prefix(const char* fname, int64_t batch, int64_t index) {
  std::string s = fname;
  if (batch > 1) s += std::string(": (Batch element ") + std::to_string(index) + ")";
  return s;
}

bool all_finite(const Tensor& A) { return A.numel() == 0 || all(isfinite(A)).item<bool>(); }

void check_cpu(const char* op, const Tensor& t) {
  EMBER_CHECK(t.is_cpu() || t.is_meta(), NotImplementedError, "Could not run '", op, "' with arguments from the '",
              t.device(), "' backend.");
}

// ---------------------------------------------------------------- eigh
std::tuple<Tensor, Tensor> eigh_k(const Tensor& A, std::string_view uplo, bool compute_v) {
  check_cpu("_linalg_eigh", A);
  check_matrix("linalg.eigh", A, true, "A");
  check_kernel_dtype("linalg_eigh_cpu", A);
  EMBER_CHECK(uplo == "L" || uplo == "U" || uplo == "l" || uplo == "u", RuntimeError,
              "Expected UPLO argument to be 'L' or 'U', but got ", uplo);
  const int64_t n = A.size(-1);
  const DimVector batch = batch_shape(A);
  DimVector ws(batch);
  ws.push_back(n);
  Tensor w = empty(ws, TensorOptions(to_real_type(A.dtype())).device(A.device()));
  Tensor V = col_major_copy(A, A.dtype());
  if (A.is_meta() || A.numel() == 0) return {w, compute_v ? V : empty({0}, TensorOptions(A.dtype()).device(A.device()))};
  const int64_t nb = prod(batch);
  Infos infos(nb);
  const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(uplo[0])));
  dispatch_lapack(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using R = real_t<T>;
    T* v = static_cast<T*>(V.data_ptr());
    R* wp = static_cast<R*>(w.data_ptr());
    for_each_matrix(nb, n * n * n, [&](int64_t i) {
      infos.v[static_cast<size_t>(i)] = heevd(compute_v ? 'V' : 'N', u, static_cast<lapack_int>(n), v + i * n * n,
                                              static_cast<lapack_int>(std::max<int64_t>(1, n)), wp + i * n);
    });
  });
  auto [bi, info] = infos.first();
  if (info != 0)
    EMBER_FAIL(LinAlgError, batch_prefix("linalg.eigh", nb, bi),
               ": The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
               "repeated eigenvalues (error code: ", info < 0 ? n : info, ").");
  return {w, compute_v ? V : empty({0}, TensorOptions(A.dtype()).device(A.device()))};
}

// ---------------------------------------------------------------- svd
std::tuple<Tensor, Tensor, Tensor> svd_k(const Tensor& A, bool full_matrices, bool compute_uv,
                                         std::optional<std::string_view> driver) {
  check_cpu("_linalg_svd", A);
  check_matrix("linalg.svd", A, false, "A");
  check_float_input("linalg.svd", A);
  check_kernel_dtype("linalg_svd_cpu", A);
  EMBER_CHECK(!driver, RuntimeError,
              "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend.");
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const DimVector batch = batch_shape(A);
  const int64_t ucols = full_matrices ? m : k, vrows = full_matrices ? n : k;
  DimVector ss(batch);
  ss.push_back(k);
  const TensorOptions o = TensorOptions(A.dtype()).device(A.device());
  Tensor S = empty(ss, TensorOptions(to_real_type(A.dtype())).device(A.device()));
  Tensor U = compute_uv ? col_major_empty(batch, m, ucols, A.dtype(), A.device()) : empty({0}, o);
  Tensor Vh = compute_uv ? col_major_empty(batch, vrows, n, A.dtype(), A.device()) : empty({0}, o);
  if (A.is_meta()) return {U, S, Vh};
  if (A.numel() == 0) {  // no singular values; the orthogonal factors are identities
    if (compute_uv) {
      U.zero_().diagonal(0, -2, -1).fill_(1);
      Vh.zero_().diagonal(0, -2, -1).fill_(1);
    }
    return {U, S, Vh};
  }
  Tensor buf = col_major_copy(A, A.dtype());
  const int64_t nb = prod(batch);
  Infos infos(nb);
  const char jobz = !compute_uv ? 'N' : (full_matrices ? 'A' : 'S');
  dispatch_lapack(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using R = real_t<T>;
    T* a = static_cast<T*>(buf.data_ptr());
    R* s = static_cast<R*>(S.data_ptr());
    T dummy{};
    T* u = compute_uv ? static_cast<T*>(U.data_ptr()) : &dummy;
    T* vt = compute_uv ? static_cast<T*>(Vh.data_ptr()) : &dummy;
    for_each_matrix(nb, m * n * k, [&](int64_t i) {
      infos.v[static_cast<size_t>(i)] =
          gesdd(jobz, static_cast<lapack_int>(m), static_cast<lapack_int>(n), a + i * m * n,
                static_cast<lapack_int>(m), s + i * k, compute_uv ? u + i * m * ucols : u, static_cast<lapack_int>(m),
                compute_uv ? vt + i * vrows * n : vt, static_cast<lapack_int>(std::max<int64_t>(1, vrows)));
    });
  });
  auto [bi, info] = infos.first();
  if (info < 0)
    EMBER_FAIL(LinAlgError, batch_prefix("linalg.svd", nb, bi),
               ": The algorithm failed to converge because the input matrix contained non-finite values.");
  if (info > 0)
    EMBER_FAIL(LinAlgError, batch_prefix("linalg.svd", nb, bi),
               ": The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
               "repeated singular values (error code: ", info, ").");
  return {U, S, Vh};
}

// ---------------------------------------------------------------- qr
std::tuple<Tensor, Tensor> qr_k(const Tensor& A, std::string_view mode) {
  check_cpu("linalg_qr", A);
  EMBER_CHECK(mode == "reduced" || mode == "r" || mode == "complete", RuntimeError, "qr received unrecognized mode '",
              mode, "' but expected one of 'reduced' (default), 'r', or 'complete'");
  check_matrix("linalg.qr", A, false, "A");
  check_float_input("linalg.qr", A);
  check_kernel_dtype("geqrf_cpu", A);
  const int64_t m = A.size(-2), n = A.size(-1), k = std::min(m, n);
  const bool complete = mode == "complete", want_q = mode != "r";
  const DimVector batch = batch_shape(A);
  const int64_t qcols = complete ? m : k, rrows = complete ? m : k;
  const TensorOptions o = TensorOptions(A.dtype()).device(A.device());
  // geqrf works in a buffer wide enough to become Q: m x max(n, qcols).
  const int64_t wcols = want_q ? std::max(n, qcols) : n;
  Tensor buf = col_major_empty(batch, m, wcols, A.dtype(), A.device());
  Tensor R;
  if (A.is_meta()) {
    DimVector rs(batch);
    rs.push_back(rrows);
    rs.push_back(n);
    return {want_q ? buf.narrow(-1, 0, qcols) : empty({0}, o), empty(rs, o)};
  }
  if (wcols > n) buf.narrow(-1, n, wcols - n).zero_();
  buf.narrow(-1, 0, n).copy_(A);
  const int64_t nb = prod(batch);
  DimVector ts(batch);
  ts.push_back(std::max<int64_t>(k, 1));
  Tensor tau = empty(ts, o);
  if (m > 0 && n > 0) {
    dispatch_lapack(A.dtype(), [&](auto tag) {
      using T = decltype(tag);
      T* a = static_cast<T*>(buf.data_ptr());
      T* t = static_cast<T*>(tau.data_ptr());
      const int64_t tstride = std::max<int64_t>(k, 1);
      for_each_matrix(nb, m * n * k, [&](int64_t i) {
        geqrf(static_cast<lapack_int>(m), static_cast<lapack_int>(n), a + i * m * wcols, static_cast<lapack_int>(m),
              t + i * tstride);
      });
    });
  }
  // R: the upper triangle of the first rrows rows (rows past m, in complete mode with m < n,
  // do not exist: rrows = m there).
  R = triu(buf.narrow(-1, 0, n).narrow(-2, 0, rrows));
  if (!want_q) return {empty({0}, o), R};
  Tensor Q = buf.narrow(-1, 0, qcols);
  if (m == 0 || qcols == 0) return {Q, R};
  if (k == 0) {  // n == 0: Q is the identity (complete) or empty
    Q.zero_().diagonal(0, -2, -1).fill_(1);
    return {Q, R};
  }
  dispatch_lapack(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* a = static_cast<T*>(buf.data_ptr());
    const T* t = static_cast<const T*>(tau.data_ptr());
    for_each_matrix(nb, m * qcols * k, [&](int64_t i) {
      orgqr(static_cast<lapack_int>(m), static_cast<lapack_int>(qcols), static_cast<lapack_int>(k), a + i * m * wcols,
            static_cast<lapack_int>(m), t + i * k);
    });
  });
  return {Q, R};
}

// ---------------------------------------------------------------- eig
std::tuple<Tensor, Tensor> eig_impl(const char* fname, const Tensor& A, bool vectors) {
  check_cpu("linalg_eig", A);
  check_matrix(fname, A, true, "A");
  EMBER_CHECK(is_floating_point(A.dtype()) || is_complex(A.dtype()), RuntimeError,
              "Unknown Complex ScalarType for ", torch_type_name(A.dtype()));
  check_kernel_dtype("linalg_eig_out_cpu", A);
  const int64_t n = A.size(-1);
  const DimVector batch = batch_shape(A);
  const ScalarType ct = to_complex_type(A.dtype());
  DimVector ws(batch);
  ws.push_back(n);
  Tensor w = empty(ws, TensorOptions(ct).device(A.device()));
  Tensor V = vectors ? col_major_empty(batch, n, n, ct, A.device()) : empty({0}, TensorOptions(ct).device(A.device()));
  if (A.is_meta() || A.numel() == 0) return {w, V};
  EMBER_CHECK(all_finite(A), RuntimeError, "torch.linalg.eig: input tensor should not contain infs or NaNs.");
  Tensor buf = col_major_copy(A, A.dtype());
  const int64_t nb = prod(batch);
  Infos infos(nb);
  dispatch_lapack(A.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using C = std::complex<real_t<T>>;
    T* a = static_cast<T*>(buf.data_ptr());
    C* wp = static_cast<C*>(w.data_ptr());
    C* vp = vectors ? static_cast<C*>(V.data_ptr()) : nullptr;
    for_each_matrix(nb, 10 * n * n * n, [&](int64_t i) {
      infos.v[static_cast<size_t>(i)] = geev(static_cast<lapack_int>(n), a + i * n * n, static_cast<lapack_int>(n),
                                             wp + i * n, vectors ? vp + i * n * n : nullptr, vectors);
    });
  });
  auto [bi, info] = infos.first();
  if (info != 0)
    EMBER_FAIL(LinAlgError, batch_prefix(fname, nb, bi),
               ": The algorithm failed to converge because the input matrix is ill-conditioned or has too many "
               "repeated eigenvalues (error code: ", info, ").");
  return {w, V};
}
std::tuple<Tensor, Tensor> eig_k(const Tensor& A) { return eig_impl("linalg.eig", A, true); }
Tensor eigvals_k(const Tensor& A) { return std::get<0>(eig_impl("linalg.eigvals", A, false)); }

// ---------------------------------------------------------------- householder_product
Tensor householder_k(const Tensor& input, const Tensor& tau) {
  check_cpu("linalg_householder_product", input);
  const char* f = "torch.linalg.householder_product";
  EMBER_CHECK(input.dim() >= 2, RuntimeError, f, ": input must have at least 2 dimensions.");
  EMBER_CHECK(input.size(-2) >= input.size(-1), RuntimeError, f,
              ": input.shape[-2] must be greater than or equal to input.shape[-1]");
  EMBER_CHECK(input.size(-1) >= tau.size(-1), RuntimeError, f,
              ": input.shape[-1] must be greater than or equal to tau.shape[-1]");
  EMBER_CHECK(input.dim() - tau.dim() == 1, RuntimeError, f, ": Expected tau to have one dimension less than input, but got tau.ndim equal to ",
              tau.dim(), " and input.ndim is equal to ", input.dim());
  const DimVector batch = batch_shape(input);
  if (input.dim() > 2) {
    DimVector tb(tau.sizes().slice(0, static_cast<size_t>(tau.dim() - 1)));
    EMBER_CHECK(tb == batch, RuntimeError, f, ": Expected batch dimensions of tau to be equal to input.shape[:-2], but got ",
                IntArrayRef(tb));
  }
  EMBER_CHECK(tau.dtype() == input.dtype(), RuntimeError, f, ": tau dtype ", torch_type_name(tau.dtype()),
              " does not match input dtype ", torch_type_name(input.dtype()));
  check_float_input(f, input);
  check_kernel_dtype("orgqr_cpu", input);
  const int64_t m = input.size(-2), n = input.size(-1), k = tau.size(-1);
  Tensor Q = col_major_copy(input, input.dtype());
  if (input.is_meta() || Q.numel() == 0) return Q;
  Tensor t = tau.contiguous();
  const int64_t nb = prod(batch);
  dispatch_lapack(input.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* a = static_cast<T*>(Q.data_ptr());
    const T* tp = static_cast<const T*>(t.data_ptr());
    for_each_matrix(nb, m * n * k, [&](int64_t i) {
      orgqr(static_cast<lapack_int>(m), static_cast<lapack_int>(n), static_cast<lapack_int>(k), a + i * m * n,
            static_cast<lapack_int>(m), tp + i * k);
    });
  });
  return Q;
}

// ---------------------------------------------------------------- lstsq
std::tuple<Tensor, Tensor, Tensor, Tensor> lstsq_k(const Tensor& self, const Tensor& b, std::optional<double> rcond,
                                                   std::optional<std::string_view> driver_name) {
  check_cpu("_linalg_lstsq", self);
  const char* f = "torch.linalg.lstsq";
  EMBER_CHECK(self.dim() >= 2, RuntimeError, f, ": input must have at least 2 dimensions.");
  EMBER_CHECK(b.dim() >= 1, RuntimeError, f, ": other must have at least 1 dimension.");
  EMBER_CHECK(self.dtype() == b.dtype(), RuntimeError, f,
              ": Expected input and other to have the same dtype, but got input's dtype ", torch_type_name(self.dtype()),
              " and other's dtype ", torch_type_name(b.dtype()));
  check_float_input(f, self);
  check_kernel_dtype("linalg_lstsq_cpu", self);
  const bool vector_case = self.dim() - 1 == b.dim();  // PyTorch's rule for lstsq (not solve's)
  Tensor B = vector_case ? b.unsqueeze(-1) : b;
  EMBER_CHECK(self.size(-2) == B.size(-2), RuntimeError, f,
              vector_case ? ": input.size(-2) should match other.size(-1)" : ": input.size(-2) should match other.size(-2)");
  Driver d = Driver::Gelsy;
  if (driver_name) {
    const std::string_view s = *driver_name;
    if (s == "gels") d = Driver::Gels;
    else if (s == "gelsy") d = Driver::Gelsy;
    else if (s == "gelsd") d = Driver::Gelsd;
    else if (s == "gelss") d = Driver::Gelss;
    else EMBER_FAIL(RuntimeError, f, ": parameter `driver` should be one of (gels, gelsy, gelsd, gelss)");
  }
  const int64_t m = self.size(-2), n = self.size(-1), nrhs = B.size(-1), k = std::min(m, n);
  // batch dims broadcast
  DimVector ba = batch_shape(self), bb = batch_shape(B);
  DimVector batch = broadcast_shapes(ba, bb);
  DimVector as(batch), bs(batch);
  as.push_back(m);
  as.push_back(n);
  bs.push_back(m);
  bs.push_back(nrhs);
  const ScalarType rt = to_real_type(self.dtype());
  Tensor Abuf = col_major_copy(self.expand(as), self.dtype());
  Tensor Bbuf = col_major_copy(B.expand(bs), self.dtype(), std::max(m, n));
  const int64_t nb = prod(batch);
  const bool has_rank = d != Driver::Gels, has_s = d == Driver::Gelsd || d == Driver::Gelss;
  Tensor rank = has_rank ? empty(batch, TensorOptions(kInt64).device(self.device())) : empty({0}, TensorOptions(kInt64).device(self.device()));
  DimVector ss(batch);
  ss.push_back(k);
  Tensor sv = has_s ? empty(ss, TensorOptions(rt).device(self.device())) : empty({0}, TensorOptions(rt).device(self.device()));
  auto finish = [&](bool residuals) {
    Tensor sol = Bbuf.narrow(-2, 0, n);
    Tensor res = empty({0}, TensorOptions(rt).device(self.device()));
    if (residuals && m > n) {
      Tensor r = Bbuf.narrow(-2, n, m - n).abs();
      res = r.mul(r).sum({-2});  // (..., nrhs); one value for a vector b, as PyTorch's
    }
    if (vector_case) sol = sol.squeeze(-1);
    return std::tuple<Tensor, Tensor, Tensor, Tensor>{sol, res, rank, sv};
  };
  if (self.is_meta()) return finish(false);
  if (has_rank) rank.zero_();
  if (has_s) sv.zero_();
  if (m == 0 || n == 0 || nrhs == 0) {
    Bbuf.zero_();
    return finish(false);
  }
  const double eps = rt == kFloat ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
  const double rc = rcond.value_or(eps * static_cast<double>(std::max(m, n)));
  // Non-finite matrices give NaN solutions without calling LAPACK (its iterations are not
  // guaranteed to terminate on them).
  Tensor finite = logical_and(all(isfinite(Abuf).flatten(-2, -1), -1), all(isfinite(Bbuf).flatten(-2, -1), -1)).contiguous();
  const bool* fin = finite.data_ptr<bool>();
  Infos infos(nb);
  dispatch_lapack(self.dtype(), [&](auto tag) {
    using T = decltype(tag);
    using R = real_t<T>;
    T* a = static_cast<T*>(Abuf.data_ptr());
    T* bp = static_cast<T*>(Bbuf.data_ptr());
    int64_t* rk = has_rank ? rank.data_ptr<int64_t>() : nullptr;
    R* s = has_s ? static_cast<R*>(sv.data_ptr()) : nullptr;
    const int64_t ldb = std::max(m, n);
    for_each_matrix(nb, m * n * std::max(n, nrhs), [&](int64_t i) {
      T* bi = bp + i * ldb * nrhs;
      if (!fin[i]) {
        std::fill(bi, bi + ldb * nrhs, T(std::numeric_limits<R>::quiet_NaN()));
        return;
      }
      lapack_int r = 0;
      std::vector<R> sdummy;
      R* si = s ? s + i * k : nullptr;
      if (!si && d != Driver::Gels && d != Driver::Gelsy) {
        sdummy.resize(static_cast<size_t>(k));
        si = sdummy.data();
      }
      infos.v[static_cast<size_t>(i)] = lstsq(d, static_cast<lapack_int>(m), static_cast<lapack_int>(n),
                                              static_cast<lapack_int>(nrhs), a + i * m * n, static_cast<lapack_int>(m), bi,
                                              static_cast<lapack_int>(ldb), static_cast<R>(rc), &r, si);
      if (rk) rk[i] = r;
    });
  });
  auto [bi, info] = infos.first();
  if (info > 0) {
    if (d == Driver::Gels)
      EMBER_FAIL(LinAlgError, batch_prefix(f, nb, bi), ": The least squares solution could not be computed because the input matrix does not have full rank (error code: ", info, ").");
    EMBER_FAIL(LinAlgError, batch_prefix(f, nb, bi), ": The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated singular values (error code: ", info, ").");
  }
  // Residuals exist for m > n with every matrix of full rank (gelsy never computes them).
  bool residuals = d != Driver::Gelsy;
  if (residuals && has_rank) residuals = rank.numel() == 0 || all(rank.eq(Scalar(n))).item<bool>();
  return finish(residuals);
}

using EighSig = std::tuple<Tensor, Tensor>(const Tensor&, std::string_view, bool);
using SvdSig = std::tuple<Tensor, Tensor, Tensor>(const Tensor&, bool, bool, std::optional<std::string_view>);
using QrSig = std::tuple<Tensor, Tensor>(const Tensor&, std::string_view);
using EigSig = std::tuple<Tensor, Tensor>(const Tensor&);
using UnarySig = Tensor(const Tensor&);
using BinarySig = Tensor(const Tensor&, const Tensor&);
using LstsqSig = std::tuple<Tensor, Tensor, Tensor, Tensor>(const Tensor&, const Tensor&, std::optional<double>,
                                                            std::optional<std::string_view>);

EMBER_REGISTER(linalg_spectral_ops) {
  define_op<EighSig>("_linalg_eigh(Tensor A, str UPLO=\"L\", bool compute_v=True) -> (Tensor eigenvalues, Tensor eigenvectors)");
  register_cpu_meta<EighSig, &eigh_k>("_linalg_eigh");
  define_op<SvdSig>("_linalg_svd(Tensor A, bool full_matrices=False, bool compute_uv=True, *, str? driver=None) -> "
                    "(Tensor U, Tensor S, Tensor Vh)");
  register_cpu_meta<SvdSig, &svd_k>("_linalg_svd");
  define_op<QrSig>("linalg_qr(Tensor A, str mode=\"reduced\") -> (Tensor Q, Tensor R)", Tag::FunctionOnly);
  register_cpu_meta<QrSig, &qr_k>("linalg_qr");
  define_op<EigSig>("linalg_eig(Tensor self) -> (Tensor eigenvalues, Tensor eigenvectors)", Tag::FunctionOnly);
  register_cpu_meta<EigSig, &eig_k>("linalg_eig");
  define_op<UnarySig>("_linalg_eigvals(Tensor self) -> Tensor");
  register_cpu_meta<UnarySig, &eigvals_k>("_linalg_eigvals");
  define_op<BinarySig>("linalg_householder_product(Tensor input, Tensor tau) -> Tensor", Tag::FunctionOnly);
  register_cpu_meta<BinarySig, &householder_k>("linalg_householder_product");
  define_op<LstsqSig>("_linalg_lstsq(Tensor self, Tensor b, float? rcond=None, *, str? driver=None) -> "
                      "(Tensor solution, Tensor residuals, Tensor rank, Tensor singular_values)");
  register_cpu_meta<LstsqSig, &lstsq_k>("_linalg_lstsq");
}

}  // namespace
}  // namespace linalg_spectral

#define EMBER_CALL(Sig, name, ...)                     \
  static const TypedOp<linalg_spectral::Sig> op(name); \
  return op.call(__VA_ARGS__)

std::tuple<Tensor, Tensor> _linalg_eigh(const Tensor& A, std::string_view UPLO, bool compute_v) {
  EMBER_CALL(EighSig, "_linalg_eigh", A, UPLO, compute_v);
}
std::tuple<Tensor, Tensor, Tensor> _linalg_svd(const Tensor& A, bool full_matrices, bool compute_uv,
                                               std::optional<std::string_view> driver) {
  EMBER_CALL(SvdSig, "_linalg_svd", A, full_matrices, compute_uv, driver);
}
std::tuple<Tensor, Tensor, Tensor, Tensor> _linalg_lstsq(const Tensor& self, const Tensor& b, std::optional<double> rcond,
                                                  std::optional<std::string_view> driver) {
  EMBER_CALL(LstsqSig, "_linalg_lstsq", self, b, rcond, driver);
}
Tensor _linalg_eigvals(const Tensor& A) { EMBER_CALL(UnarySig, "_linalg_eigvals", A); }

namespace linalg {
std::tuple<Tensor, Tensor> qr(const Tensor& A, std::string_view mode) { EMBER_CALL(QrSig, "linalg_qr", A, mode); }
std::tuple<Tensor, Tensor> eig(const Tensor& A) { EMBER_CALL(EigSig, "linalg_eig", A); }
Tensor householder_product(const Tensor& input, const Tensor& tau) {
  EMBER_CALL(BinarySig, "linalg_householder_product", input, tau);
}
}  // namespace linalg
#undef EMBER_CALL

}  // namespace ember
