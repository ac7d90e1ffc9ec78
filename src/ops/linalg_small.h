// Batches of small square matrices (n <= 8) for det, slogdet, inv and solve, where one LAPACK
// call per matrix costs more than the arithmetic. Each matrix is gathered into a local array,
// factored by an LU with partial pivoting unrolled for a compile-time n, and written back.
// The pivot is the first entry of largest |re| + |im| in its column, as LAPACK's i?amax picks,
// so `info` (the first zero pivot, 1-based) names the same diagonal element as getrf would.
#pragma once

#include <cmath>
#include <complex>
#include <cstdint>
#include <utility>

namespace ember::linalg_small {

template <typename T>
inline double cabs1(const T& x) { return std::abs(x); }
template <typename R>
inline double cabs1(const std::complex<R>& x) { return std::abs(x.real()) + std::abs(x.imag()); }

// a = the N x N matrix at src with row stride rs and column stride cs (in elements).
template <int N, typename T>
inline void load(T (&a)[N][N], const T* src, int64_t rs, int64_t cs) {
#pragma GCC unroll 8
  for (int i = 0; i < N; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < N; ++j) a[i][j] = src[i * rs + j * cs];
}

// In-place LU of the row-major N x N matrix a: P A = L U with L's unit diagonal implied.
// perm[i] is the original row now at row i; returns the first zero pivot (1-based) or 0, and
// adds the number of row swaps to *swaps. rd[k] = 1 / U[k][k] (0 for a zero pivot), so that
// the solves multiply instead of dividing: a chain of divisions, ~15 cycles each, was the
// larger part of a 4 x 4 solve. A zero pivot column is left unscaled, as getf2 does. The
// loops unroll for the compile-time N (-O2 left them rolled: ~600 instructions a 4 x 4 LU).
template <int N, typename T>
inline int lu(T (&a)[N][N], int (&perm)[N], int* swaps, T (&rd)[N]) {
  int info = 0;
  for (int i = 0; i < N; ++i) perm[i] = i;
#pragma GCC unroll 8
  for (int k = 0; k < N; ++k) {
    int p = k;
    double best = cabs1(a[k][k]);
#pragma GCC unroll 8
    for (int i = k + 1; i < N; ++i) {
      const double v = cabs1(a[i][k]);
      if (v > best) best = v, p = i;
    }
    // Rows k and p are exchanged unconditionally (a no-op when p == k): cheaper than a branch
    // that random data mispredicts.
#pragma GCC unroll 8
    for (int j = 0; j < N; ++j) {
      const T t = a[k][j];
      a[k][j] = a[p][j];
      a[p][j] = t;
    }
    std::swap(perm[k], perm[p]);
    *swaps += p != k;
    if (a[k][k] == T(0)) {
      if (!info) info = k + 1;
      rd[k] = T(0);
      continue;
    }
    const T inv = T(1) / a[k][k];
    rd[k] = inv;
#pragma GCC unroll 8
    for (int i = k + 1; i < N; ++i) {
      const T f = a[i][k] * inv;
      a[i][k] = f;
#pragma GCC unroll 8
      for (int j = k + 1; j < N; ++j) a[i][j] -= f * a[k][j];
    }
  }
  return info;
}

// The LU alone (det, slogdet): the reciprocals are dead stores the compiler drops.
template <int N, typename T>
inline int lu(T (&a)[N][N], int (&perm)[N], int* swaps) {
  T rd[N];
  return lu<N>(a, perm, swaps, rd);
}

// Solves L U x = P b for `cols` right-hand sides: b read with strides (rs, cs), x written
// column by column (x[c * ld + i]: row i of column c); perm gives b's rows in pivot order.
// Each row accumulates in a scalar (an array element stored and reloaded every step made a
// store-to-load chain), and the loops unroll for the compile-time N.
template <int N, typename T>
inline void lu_solve_cols(const T (&a)[N][N], const T (&rd)[N], const int (&perm)[N], const T* b, int64_t rs,
                          int64_t cs, T* x, int64_t cols, int64_t ld) {
  for (int64_t c = 0; c < cols; ++c) {
    const T* bc = b + c * cs;
    T y[N];
#pragma GCC unroll 8
    for (int i = 0; i < N; ++i) {
      T s = bc[perm[i] * rs];
#pragma GCC unroll 8
      for (int j = 0; j < i; ++j) s -= a[i][j] * y[j];
      y[i] = s;
    }
#pragma GCC unroll 8
    for (int i = N - 1; i >= 0; --i) {
      T s = y[i];
#pragma GCC unroll 8
      for (int j = i + 1; j < N; ++j) s -= a[i][j] * y[j];
      y[i] = s * rd[i];
    }
    T* col = x + c * ld;
    for (int i = 0; i < N; ++i) col[i] = y[i];
  }
}

// The inverse from the factors: column j solves A x = e_j. Written row-major into out, or
// transposed (the inverse of A^T) when `transposed`.
template <int N, typename T>
inline void lu_inverse(const T (&a)[N][N], const T (&rd)[N], const int (&perm)[N], T* out, bool transposed = false) {
  T cols[N][N];
#pragma GCC unroll 8
  for (int j = 0; j < N; ++j)
#pragma GCC unroll 8
    for (int i = 0; i < N; ++i) cols[j][i] = perm[i] == j ? T(1) : T(0);
  // forward substitution (unit lower), then back substitution, all columns at once
#pragma GCC unroll 8
  for (int i = 1; i < N; ++i)
#pragma GCC unroll 8
    for (int k = 0; k < i; ++k)
#pragma GCC unroll 8
      for (int j = 0; j < N; ++j) cols[j][i] -= a[i][k] * cols[j][k];
#pragma GCC unroll 8
  for (int i = N - 1; i >= 0; --i) {
#pragma GCC unroll 8
    for (int k = i + 1; k < N; ++k)
#pragma GCC unroll 8
      for (int j = 0; j < N; ++j) cols[j][i] -= a[i][k] * cols[j][k];
#pragma GCC unroll 8
    for (int j = 0; j < N; ++j) cols[j][i] *= rd[i];
  }
  if (transposed) {
#pragma GCC unroll 8
    for (int j = 0; j < N; ++j)
#pragma GCC unroll 8
      for (int i = 0; i < N; ++i) out[j * N + i] = cols[j][i];
    return;
  }
#pragma GCC unroll 8
  for (int i = 0; i < N; ++i)
#pragma GCC unroll 8
    for (int j = 0; j < N; ++j) out[i * N + j] = cols[j][i];
}

}  // namespace ember::linalg_small
