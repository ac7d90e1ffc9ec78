// Matrix products on the CPU. float32/float64/complex go to BLAS (OpenBLAS's OpenMP build,
// so its threads are ours) or, for float32 where it is faster, oneDNN's JIT sgemm; matrices
// with a unit stride in either dim are passed as they are with the matching transpose flag,
// others are packed. Vector cases use gemv/dot. Integer types use a plain loop with
// wrapping arithmetic, as PyTorch's integer matmul wraps.
#include "backends/cpu/blas.h"

#include <cblas.h>
#include <omp.h>
#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <climits>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string_view>
#include <type_traits>
#include <vector>

#include "backends/cpu/loops.h"
#include "ember/error.h"

namespace ember::cpu {

namespace {

// How a rows x cols matrix with element strides (rs, cs) is passed to row-major BLAS: as it
// is (trans = false, leading dim rs) or as the transpose of a row-major cols x rows matrix.
struct Layout {
  bool ok = false;
  bool trans = false;
  int64_t ld = 0;
};

Layout blas_layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  // The stride of a size-1 dim never matters: pick what makes the layout valid.
  const int64_t r1 = std::max<int64_t>(rows, 1), c1 = std::max<int64_t>(cols, 1);
  {
    const int64_t r = rows == 1 ? c1 : rs, c = cols == 1 ? 1 : cs;
    if (c == 1 && r >= c1 && r <= INT_MAX) return {true, false, r};
  }
  {
    const int64_t r = rows == 1 ? 1 : rs, c = cols == 1 ? r1 : cs;
    if (r == 1 && c >= r1 && c <= INT_MAX) return {true, true, c};
  }
  return {};
}

// Element stride usable as a BLAS increment for a vector of n elements (0 when it needs
// packing: BLAS reads a zero or negative increment differently).
int64_t blas_inc(int64_t n, int64_t stride) {
  if (n <= 1) return 1;
  return stride > 0 && stride <= INT_MAX ? stride : 0;
}

template <typename T>
std::vector<T> pack(const T* p, int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  std::vector<T> v(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) v[i * cols + j] = p[i * rs + j * cs];
  return v;
}

bool use_onednn(int64_t m, int64_t n, int64_t k) {
  static const int forced = [] {
    const char* e = std::getenv("EMBER_SGEMM");
    if (!e) return -1;
    std::string_view s(e);
    return s == "onednn" ? 1 : s == "openblas" ? 0 : -1;
  }();
  if (forced >= 0) return forced == 1;
  // Measured on the project's machine (OPENBLAS_CORETYPE=Haswell makes OpenBLAS run AVX2
  // kernels; oneDNN's JIT picks AVX-512): oneDNN is 1.1-1.3x faster on square and wide
  // products from 128^3 up, 1.5-3.5x on short ones (8 or 128 rows, 16 or 10 columns) and
  // on 128-sized blocks of attention. OpenBLAS keeps tiny products (per-call setup), deep
  // ones (k far above m and n) and, when two threads would split it, anything below
  // 128^3, which oneDNN threads poorly.
  const int64_t work = m * n * k;
  if (work < 32 * 32 * 32 || k >= 32 * std::max(m, n)) return false;
  const bool one_thread = omp_in_parallel() || omp_get_max_threads() == 1;
  return one_thread || work >= 128 * 128 * 128;
}

// ---- per-dtype BLAS entry points (row-major): C = alpha * op(A) op(B) + beta * C, where
// beta == 0 means C is only written (BLAS then never reads it, so garbage in C is harmless).
template <typename T> struct Blas;
template <> struct Blas<float> {
  static void gemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
                   int ldb, float beta, float* c, int ldc) {
    if (use_onednn(m, n, k)) {
      dnnl_status_t st = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
      if (st == dnnl_success) return;
    }
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha,
                a, lda, b, ldb, beta, c, ldc);
  }
  static void gemv(bool t, int rows, int cols, float alpha, const float* a, int lda, const float* x, int incx,
                   float beta, float* y, int incy) {
    cblas_sgemv(CblasRowMajor, t ? CblasTrans : CblasNoTrans, rows, cols, alpha, a, lda, x, incx, beta, y, incy);
  }
  static float dot(int n, const float* x, int incx, const float* y, int incy) { return cblas_sdot(n, x, incx, y, incy); }
};
template <> struct Blas<double> {
  static void gemm(bool ta, bool tb, int m, int n, int k, double alpha, const double* a, int lda, const double* b,
                   int ldb, double beta, double* c, int ldc) {
    cblas_dgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, alpha,
                a, lda, b, ldb, beta, c, ldc);
  }
  static void gemv(bool t, int rows, int cols, double alpha, const double* a, int lda, const double* x, int incx,
                   double beta, double* y, int incy) {
    cblas_dgemv(CblasRowMajor, t ? CblasTrans : CblasNoTrans, rows, cols, alpha, a, lda, x, incx, beta, y, incy);
  }
  static double dot(int n, const double* x, int incx, const double* y, int incy) { return cblas_ddot(n, x, incx, y, incy); }
};
template <> struct Blas<complex64> {
  static void gemm(bool ta, bool tb, int m, int n, int k, complex64 alpha, const complex64* a, int lda,
                   const complex64* b, int ldb, complex64 beta, complex64* c, int ldc) {
    cblas_cgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, &alpha,
                a, lda, b, ldb, &beta, c, ldc);
  }
  static void gemv(bool t, int rows, int cols, complex64 alpha, const complex64* a, int lda, const complex64* x,
                   int incx, complex64 beta, complex64* y, int incy) {
    cblas_cgemv(CblasRowMajor, t ? CblasTrans : CblasNoTrans, rows, cols, &alpha, a, lda, x, incx, &beta, y, incy);
  }
  static complex64 dot(int n, const complex64* x, int incx, const complex64* y, int incy) {
    complex64 r;
    cblas_cdotu_sub(n, x, incx, y, incy, &r);
    return r;
  }
};
template <> struct Blas<complex128> {
  static void gemm(bool ta, bool tb, int m, int n, int k, complex128 alpha, const complex128* a, int lda,
                   const complex128* b, int ldb, complex128 beta, complex128* c, int ldc) {
    cblas_zgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, m, n, k, &alpha,
                a, lda, b, ldb, &beta, c, ldc);
  }
  static void gemv(bool t, int rows, int cols, complex128 alpha, const complex128* a, int lda, const complex128* x,
                   int incx, complex128 beta, complex128* y, int incy) {
    cblas_zgemv(CblasRowMajor, t ? CblasTrans : CblasNoTrans, rows, cols, &alpha, a, lda, x, incx, &beta, y, incy);
  }
  static complex128 dot(int n, const complex128* x, int incx, const complex128* y, int incy) {
    complex128 r;
    cblas_zdotu_sub(n, x, incx, y, incy, &r);
    return r;
  }
};

template <typename T>
T coef(std::complex<double> v) {
  if constexpr (std::is_floating_point_v<T>) return static_cast<T>(v.real());
  else return T(static_cast<typename T::value_type>(v.real()), static_cast<typename T::value_type>(v.imag()));
}

// c = alpha * r + beta * c, reading c only when beta != 0.
template <typename T>
void combine(T& c, T r, T alpha, T beta) {
  c = beta == T(0) ? alpha * r : alpha * r + beta * c;
}

// One product C = A @ B through BLAS; k >= 1, m, n >= 1, all <= INT_MAX.
template <typename T>
void blas_matrix(int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t a_rs, int64_t a_cs, const T* b,
                 int64_t b_rs, int64_t b_cs, T beta, T* c, int64_t c_rs, int64_t c_cs) {
  using B = Blas<T>;
  std::vector<T> pa, pb;
  if (m == 1 && n == 1) {  // dot
    int64_t ia = blas_inc(k, a_cs), ib = blas_inc(k, b_rs);
    if (!ia) { pa = pack(a, 1, k, 0, a_cs); a = pa.data(); ia = 1; }
    if (!ib) { pb = pack(b, k, 1, b_rs, 0); b = pb.data(); ib = 1; }
    combine(*c, B::dot(static_cast<int>(k), a, static_cast<int>(ia), b, static_cast<int>(ib)), alpha, beta);
    return;
  }
  if (n == 1 || m == 1) {  // gemv: y = op(M) x
    const bool col = n == 1;
    // Matrix M (rows x cols as multiplied), vector x, output y.
    const int64_t rows = col ? m : n, cols = k;
    const T* mat = col ? a : b;
    // As multiplied, M is A (m x k) or B^T (n x k).
    const int64_t mrs = col ? a_rs : b_cs, mcs = col ? a_cs : b_rs;
    const T* x = col ? b : a;
    int64_t ix = blas_inc(k, col ? b_rs : a_cs);
    const int64_t iy_raw = col ? c_rs : c_cs;
    Layout lm = blas_layout(rows, cols, mrs, mcs);
    if (!lm.ok) {
      pa = pack(mat, rows, cols, mrs, mcs);
      mat = pa.data();
      lm = {true, false, cols};
    }
    if (!ix) { pb = pack(x, k, 1, col ? b_rs : a_cs, 0); x = pb.data(); ix = 1; }
    const int64_t iy = blas_inc(rows, iy_raw);
    std::vector<T> py;
    T* y = c;
    if (!iy) {
      py.resize(static_cast<size_t>(rows));
      y = py.data();
      if (beta != T(0))
        for (int64_t i = 0; i < rows; ++i) py[static_cast<size_t>(i)] = c[i * iy_raw];
    }
    // Stored row-major as M (rows x cols) or as M^T (cols x rows).
    if (!lm.trans) B::gemv(false, static_cast<int>(rows), static_cast<int>(cols), alpha, mat, static_cast<int>(lm.ld),
                           x, static_cast<int>(ix), beta, y, static_cast<int>(iy ? iy : 1));
    else B::gemv(true, static_cast<int>(cols), static_cast<int>(rows), alpha, mat, static_cast<int>(lm.ld), x,
                 static_cast<int>(ix), beta, y, static_cast<int>(iy ? iy : 1));
    if (!iy)
      for (int64_t i = 0; i < rows; ++i) c[i * iy_raw] = py[static_cast<size_t>(i)];
    return;
  }
  Layout la = blas_layout(m, k, a_rs, a_cs), lb = blas_layout(k, n, b_rs, b_cs);
  if (!la.ok) { pa = pack(a, m, k, a_rs, a_cs); a = pa.data(); la = {true, false, k}; }
  if (!lb.ok) { pb = pack(b, k, n, b_rs, b_cs); b = pb.data(); lb = {true, false, n}; }
  Layout lc = blas_layout(m, n, c_rs, c_cs);
  if (lc.ok && !lc.trans) {
    B::gemm(la.trans, lb.trans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), alpha, a,
            static_cast<int>(la.ld), b, static_cast<int>(lb.ld), beta, c, static_cast<int>(lc.ld));
  } else if (lc.ok) {
    // C stored column-major: compute C^T = B^T A^T into it.
    B::gemm(!lb.trans, !la.trans, static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), alpha, b,
            static_cast<int>(lb.ld), a, static_cast<int>(la.ld), beta, c, static_cast<int>(lc.ld));
  } else {
    std::vector<T> pc(static_cast<size_t>(m * n));
    B::gemm(la.trans, lb.trans, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), T(1), a,
            static_cast<int>(la.ld), b, static_cast<int>(lb.ld), T(0), pc.data(), static_cast<int>(n));
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) combine(c[i * c_rs + j * c_cs], pc[static_cast<size_t>(i * n + j)], alpha, beta);
  }
}

// Integer products: one output row per task, 256 columns at a time, accumulated in a wide
// unsigned type so that overflow wraps (modulo 2^bits, as PyTorch's integer matmul does).
template <typename T>
void int_rows(const GemmArgs& g, int64_t row_begin, int64_t row_end) {
  using U = std::conditional_t<sizeof(T) <= 4, uint32_t, uint64_t>;
  constexpr int64_t kCols = 256;
  U acc[kCols];
  const T* A = static_cast<const T*>(g.a);
  const T* Bm = static_cast<const T*>(g.b);
  T* C = static_cast<T*>(g.c);
  const U alpha = static_cast<U>(static_cast<int64_t>(g.alpha.real()));
  const U beta = static_cast<U>(static_cast<int64_t>(g.beta.real()));
  for (int64_t r = row_begin; r < row_end; ++r) {
    const int64_t bi = r / g.m, i = r % g.m;
    const T* a = A + g.a_at(bi) + i * g.a_rs;
    const T* b = Bm + g.b_at(bi);
    T* c = C + g.c_at(bi) + i * g.c_rs;
    for (int64_t j0 = 0; j0 < g.n; j0 += kCols) {
      const int64_t w = std::min(kCols, g.n - j0);
      std::fill(acc, acc + w, U(0));
      for (int64_t p = 0; p < g.k; ++p) {
        const U av = static_cast<U>(a[p * g.a_cs]);
        const T* brow = b + p * g.b_rs + j0 * g.b_cs;
        if (g.b_cs == 1) {
          for (int64_t j = 0; j < w; ++j) acc[j] += av * static_cast<U>(brow[j]);
        } else {
          for (int64_t j = 0; j < w; ++j) acc[j] += av * static_cast<U>(brow[j * g.b_cs]);
        }
      }
      for (int64_t j = 0; j < w; ++j) {
        T& out = c[(j0 + j) * g.c_cs];
        out = static_cast<T>(beta == 0 ? alpha * acc[j] : alpha * acc[j] + beta * static_cast<U>(out));
      }
    }
  }
}

template <typename T>
void int_gemm(const GemmArgs& g) {
  const int64_t rows = g.batch * g.m;
  const int nt = threads_for(rows * g.n * g.k, kGrainSize);
  if (nt <= 1) return int_rows<T>(g, 0, rows);
#pragma omp parallel num_threads(nt)
  {
    const int64_t t = omp_get_thread_num(), T_ = omp_get_num_threads();
    int_rows<T>(g, rows * t / T_, rows * (t + 1) / T_);
  }
}

template <typename T>
void blas_gemm(const GemmArgs& g) {
  const T* A = static_cast<const T*>(g.a);
  const T* Bm = static_cast<const T*>(g.b);
  T* C = static_cast<T*>(g.c);
  const T alpha = coef<T>(g.alpha), beta = coef<T>(g.beta);
  auto one = [&](int64_t i) {
    blas_matrix<T>(g.m, g.n, g.k, alpha, A + g.a_at(i), g.a_rs, g.a_cs, Bm + g.b_at(i), g.b_rs, g.b_cs, beta,
                   C + g.c_at(i), g.c_rs, g.c_cs);
  };
  // Many products up to 256^3: one per thread, each BLAS call single-threaded (OpenBLAS and
  // oneDNN run serially inside a parallel region; attention's 64 products of 128x64x128 run
  // 6x faster so on two threads than threading each one). Large products: BLAS threads each.
  const int64_t work = g.m * g.n * g.k;
  const int nt = g.batch > 1 && work < 256 * 256 * 256 ? threads_for(g.batch * work, kGrainSize) : 1;
  if (nt <= 1) {
    for (int64_t i = 0; i < g.batch; ++i) one(i);
    return;
  }
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t i = 0; i < g.batch; ++i) one(i);
}

// k == 0: the product is zero, so C = beta * C.
template <typename T>
void scale_c(const GemmArgs& g) {
  T* C = static_cast<T*>(g.c);
  const bool zero = g.beta == std::complex<double>(0);
  for (int64_t bi = 0; bi < g.batch; ++bi)
    for (int64_t i = 0; i < g.m; ++i)
      for (int64_t j = 0; j < g.n; ++j) {
        T& c = C[g.c_at(bi) + i * g.c_rs + j * g.c_cs];
        if constexpr (std::is_integral_v<T>) c = zero ? T(0) : static_cast<T>(c * static_cast<int64_t>(g.beta.real()));
        else c = zero ? T(0) : c * coef<T>(g.beta);
      }
}

// ---- float32 products with a bias row, through oneDNN's matmul primitive, which adds the
// bias as it writes each tile of C instead of C being prefilled with it (a pass over C).
struct BiasKey {
  int64_t m, n, k, a_rs, a_cs, b_rs, b_cs, c_rs;
  int threads;
  bool operator==(const BiasKey&) const = default;
};

struct BiasPlan {
  BiasKey key;
  dnnl_primitive_t prim = nullptr;  // null: oneDNN refused the shape
  dnnl_memory_desc_t a, b, bias, c;
};

dnnl_engine_t dnnl_cpu_engine() {
  static dnnl_engine_t e = [] {
    dnnl_engine_t eng = nullptr;
    return dnnl_engine_create(&eng, dnnl_cpu, 0) == dnnl_success ? eng : nullptr;
  }();
  return e;
}

// Primitives are built once per shape and thread count (a JIT compile each) and kept: a
// model has few distinct linear shapes. Past kMaxBiasPlans shapes (varying batch or sequence
// lengths) new shapes take the prefill path rather than growing the cache without bound.
constexpr size_t kMaxBiasPlans = 128;

const BiasPlan* bias_plan(const BiasKey& key) {
  static std::mutex mu;
  // Kept for the process's lifetime, as the primitives are (never destroyed, so that the plans
  // stay reachable at exit and leak checkers do not report them).
  static auto* plans = new std::vector<BiasPlan*>();
  static const BiasPlan refused{};
  std::lock_guard<std::mutex> lock(mu);
  for (const BiasPlan* p : *plans)
    if (p->key == key) return p;
  if (plans->size() >= kMaxBiasPlans) return &refused;
  auto* p = new BiasPlan();
  p->key = key;
  plans->push_back(p);
  dnnl_engine_t eng = dnnl_cpu_engine();
  if (!eng) return p;
  const dnnl_dims_t ad = {key.m, key.k}, as = {key.a_rs, key.a_cs}, bd = {key.k, key.n}, bs = {key.b_rs, key.b_cs},
                    vd = {1, key.n}, vs = {key.n, 1}, cd = {key.m, key.n}, cs = {key.c_rs, 1};
  dnnl_matmul_desc_t md;
  dnnl_primitive_desc_t pd = nullptr;
  if (dnnl_memory_desc_init_by_strides(&p->a, 2, ad, dnnl_f32, as) != dnnl_success ||
      dnnl_memory_desc_init_by_strides(&p->b, 2, bd, dnnl_f32, bs) != dnnl_success ||
      dnnl_memory_desc_init_by_strides(&p->bias, 2, vd, dnnl_f32, vs) != dnnl_success ||
      dnnl_memory_desc_init_by_strides(&p->c, 2, cd, dnnl_f32, cs) != dnnl_success ||
      dnnl_matmul_desc_init(&md, &p->a, &p->b, &p->bias, &p->c) != dnnl_success ||
      dnnl_primitive_desc_create(&pd, &md, nullptr, eng, nullptr) != dnnl_success)
    return p;
  // Only an optimized implementation beats prefilling C: never oneDNN's reference loops.
  const char* impl = nullptr;
  dnnl_primitive_desc_query(pd, dnnl_query_impl_info_str, 0, &impl);
  dnnl_primitive_t prim = nullptr;
  if (impl && std::string_view(impl).substr(0, 3) != "ref" && dnnl_primitive_create(&prim, pd) == dnnl_success)
    p->prim = prim;
  dnnl_primitive_desc_destroy(pd);
  return p;
}

// EMBER_ADDMM_BIAS=copy keeps the prefilled C (for benchmarks and tests of both paths).
bool bias_epilogue_enabled() {
  static const bool on = [] {
    const char* e = std::getenv("EMBER_ADDMM_BIAS");
    return !(e && std::string_view(e) == "copy");
  }();
  return on;
}

}  // namespace

bool gemm_bias(const GemmArgs& g, const void* bias) {
  if (g.dtype != kFloat || g.batch != 1 || g.c_cs != 1 || g.alpha != std::complex<double>(1) ||
      !bias_epilogue_enabled() || !use_onednn(g.m, g.n, g.k) || g.k == 0)
    return false;
  // Row and column strides of size-1 dims are arbitrary; oneDNN wants them consistent.
  const BiasKey key{g.m, g.n, g.k, g.m == 1 ? g.k : g.a_rs, g.k == 1 ? 1 : g.a_cs, g.k == 1 ? g.n : g.b_rs,
                    g.n == 1 ? 1 : g.b_cs, g.m == 1 ? g.n : g.c_rs, omp_in_parallel() ? 1 : omp_get_max_threads()};
  const BiasPlan* p = bias_plan(key);
  if (!p->prim) return false;
  thread_local dnnl_stream_t stream = [] {
    dnnl_stream_t s = nullptr;
    return dnnl_stream_create(&s, dnnl_cpu_engine(), dnnl_stream_default_flags) == dnnl_success ? s : nullptr;
  }();
  if (!stream) return false;
  dnnl_engine_t eng = dnnl_cpu_engine();
  dnnl_memory_t mem[4] = {};
  const dnnl_memory_desc_t* mds[4] = {&p->a, &p->b, &p->bias, &p->c};
  void* ptrs[4] = {const_cast<void*>(g.a), const_cast<void*>(g.b), const_cast<void*>(bias), g.c};
  bool ok = true;
  for (int i = 0; i < 4 && ok; ++i) ok = dnnl_memory_create(&mem[i], mds[i], eng, ptrs[i]) == dnnl_success;
  if (ok) {
    const dnnl_exec_arg_t args[4] = {{DNNL_ARG_SRC, mem[0]}, {DNNL_ARG_WEIGHTS, mem[1]}, {DNNL_ARG_BIAS, mem[2]},
                                     {DNNL_ARG_DST, mem[3]}};
    ok = dnnl_primitive_execute(p->prim, stream, 4, args) == dnnl_success && dnnl_stream_wait(stream) == dnnl_success;
  }
  for (dnnl_memory_t m : mem)
    if (m) dnnl_memory_destroy(m);
  return ok;
}

const char* sgemm_backend(int64_t m, int64_t n, int64_t k) {
  return use_onednn(m, n, k) ? "onednn" : "openblas";
}

void gemm(const GemmArgs& g) {
  if (g.batch == 0 || g.m == 0 || g.n == 0) return;
  const bool empty_k = g.k == 0;
  switch (g.dtype) {
    case kUInt8: return empty_k ? scale_c<uint8_t>(g) : int_gemm<uint8_t>(g);
    case kInt8: return empty_k ? scale_c<int8_t>(g) : int_gemm<int8_t>(g);
    case kInt16: return empty_k ? scale_c<int16_t>(g) : int_gemm<int16_t>(g);
    case kInt32: return empty_k ? scale_c<int32_t>(g) : int_gemm<int32_t>(g);
    case kInt64: return empty_k ? scale_c<int64_t>(g) : int_gemm<int64_t>(g);
    case kFloat: if (empty_k) return scale_c<float>(g); break;
    case kDouble: if (empty_k) return scale_c<double>(g); break;
    case kComplexFloat: if (empty_k) return scale_c<complex64>(g); break;
    case kComplexDouble: if (empty_k) return scale_c<complex128>(g); break;
    default: break;
  }
  EMBER_CHECK(g.m <= INT_MAX && g.n <= INT_MAX && g.k <= INT_MAX, RuntimeError,
              "matmul: matrix dims above 2^31-1 are not supported (", g.m, "x", g.k, " @ ", g.k, "x", g.n, ")");
  switch (g.dtype) {
    case kFloat: return blas_gemm<float>(g);
    case kDouble: return blas_gemm<double>(g);
    case kComplexFloat: return blas_gemm<complex64>(g);
    case kComplexDouble: return blas_gemm<complex128>(g);
    default: EMBER_FAIL(RuntimeError, "\"matmul\" not implemented for '", g.dtype, "'");
  }
}

}  // namespace ember::cpu
