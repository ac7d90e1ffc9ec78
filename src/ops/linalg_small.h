// Batches of small square matrices (n <= 8) for det, slogdet, inv and solve, where one LAPACK
// call per matrix costs more than the arithmetic. Each matrix is gathered into a local array,
// factored by an LU with partial pivoting unrolled for a compile-time n, and written back.
// The pivot is the first entry of largest |re| + |im| in its column, as LAPACK's i?amax picks,
// so `info` (the first zero pivot, 1-based) names the same diagonal element as getrf would.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>

namespace ember::linalg_small {

template <typename T>
inline double cabs1(const T& x) { return std::abs(x); }
template <typename R>
inline double cabs1(const std::complex<R>& x) { return std::abs(x.real()) + std::abs(x.imag()); }

// In-place LU of the row-major N x N matrix a: P A = L U with L's unit diagonal implied.
// perm[i] is the original row now at row i; returns the first zero pivot (1-based) or 0, and
// flips *sign once per row swap. A zero pivot column is left unscaled, as getf2 does.
// a = the N x N matrix at src with row stride rs and column stride cs (in elements).
template <int N, typename T>
inline void load(T (&a)[N][N], const T* src, int64_t rs, int64_t cs) {
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) a[i][j] = src[i * rs + j * cs];
}

template <int N, typename T>
inline int lu(T (&a)[N][N], int (&perm)[N], int* swaps) {
  int info = 0;
  for (int i = 0; i < N; ++i) perm[i] = i;
  for (int k = 0; k < N; ++k) {
    int p = k;
    double best = cabs1(a[k][k]);
    for (int i = k + 1; i < N; ++i) {
      const double v = cabs1(a[i][k]);
      if (v > best) best = v, p = i;
    }
    if (p != k) {
      for (int j = 0; j < N; ++j) std::swap(a[k][j], a[p][j]);
      std::swap(perm[k], perm[p]);
      ++*swaps;
    }
    if (a[k][k] == T(0)) {
      if (!info) info = k + 1;
      continue;
    }
    const T inv = T(1) / a[k][k];
    for (int i = k + 1; i < N; ++i) {
      const T f = a[i][k] * inv;
      a[i][k] = f;
      for (int j = k + 1; j < N; ++j) a[i][j] -= f * a[k][j];
    }
  }
  return info;
}

// Solves L U x = P b for `cols` right-hand sides: b read with strides (rs, cs), x written
// column by column (x[c * ld + i]: row i of column c); perm gives b's rows in pivot order.
template <int N, typename T>
inline void lu_solve_cols(const T (&a)[N][N], const int (&perm)[N], const T* b, int64_t rs, int64_t cs, T* x,
                          int64_t cols, int64_t ld) {
  for (int64_t c = 0; c < cols; ++c) {
    T* col = x + c * ld;
    T y[N];
    for (int i = 0; i < N; ++i) y[i] = b[perm[i] * rs + c * cs];
    for (int i = 1; i < N; ++i)
      for (int j = 0; j < i; ++j) y[i] -= a[i][j] * y[j];
    for (int i = N - 1; i >= 0; --i) {
      for (int j = i + 1; j < N; ++j) y[i] -= a[i][j] * y[j];
      y[i] /= a[i][i];
    }
    for (int i = 0; i < N; ++i) col[i] = y[i];
  }
}

// The inverse from the factors: column j solves A x = e_j. Written row-major into out.
template <int N, typename T>
inline void lu_inverse(const T (&a)[N][N], const int (&perm)[N], T* out) {
  T cols[N][N];
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < N; ++i) cols[j][i] = perm[i] == j ? T(1) : T(0);
  // forward substitution (unit lower), then back substitution, all columns at once
  for (int i = 1; i < N; ++i)
    for (int k = 0; k < i; ++k)
      for (int j = 0; j < N; ++j) cols[j][i] -= a[i][k] * cols[j][k];
  for (int i = N - 1; i >= 0; --i) {
    for (int k = i + 1; k < N; ++k)
      for (int j = 0; j < N; ++j) cols[j][i] -= a[i][k] * cols[j][k];
    const T d = T(1) / a[i][i];
    for (int j = 0; j < N; ++j) cols[j][i] *= d;
  }
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) out[i * N + j] = cols[j][i];
}

}  // namespace ember::linalg_small
