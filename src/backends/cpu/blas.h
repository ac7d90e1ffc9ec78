// Matrix products on the CPU: BLAS (OpenBLAS, OpenMP build) and oneDNN glue, plus plain
// loops for the integer dtypes.
#pragma once

#include <complex>
#include <cstdint>

#include "ember/dtype.h"

namespace ember::cpu {

// C[i] = alpha * A[i] @ B[i] + beta * C[i] for i < batch, with A[i] m x k, B[i] k x n,
// C[i] m x n. Strides are in elements (batch stride 0 broadcasts a matrix); with beta == 0
// (the default) C is written, never read. Integer types use the real parts of alpha, beta. Operands with a
// unit stride in either matrix dim go to BLAS as they are (transposed as needed); others are
// packed first. dtype: float32, float64, complex64, complex128 or an integer type.
struct GemmArgs {
  ScalarType dtype = ScalarType::Undefined;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  const void* a = nullptr;
  int64_t a_batch = 0, a_rs = 0, a_cs = 0;
  const void* b = nullptr;
  int64_t b_batch = 0, b_rs = 0, b_cs = 0;
  void* c = nullptr;
  int64_t c_batch = 0, c_rs = 0, c_cs = 0;
  std::complex<double> alpha = 1, beta = 0;
  // Two batch levels, for operands whose batch dims do not fold into one stride (attention's
  // heads read in place from a packed projection): with inner > 0, entry i lies at
  // (i / inner) * x_outer + (i % inner) * x_batch. inner == 0: one level.
  int64_t inner = 0;
  int64_t a_outer = 0, b_outer = 0, c_outer = 0;
  int64_t a_at(int64_t i) const { return inner ? i / inner * a_outer + i % inner * a_batch : i * a_batch; }
  int64_t b_at(int64_t i) const { return inner ? i / inner * b_outer + i % inner * b_batch : i * b_batch; }
  int64_t c_at(int64_t i) const { return inner ? i / inner * c_outer + i % inner * c_batch : i * c_batch; }
};
void gemm(const GemmArgs& args);

// float32, one product, alpha 1, C with unit column stride: C = A @ B + bias, with bias a
// contiguous row of n elements added to every row of C (linear's bias) by oneDNN as it writes
// C. Returns false, having done nothing, where that path does not apply (the caller then
// prefills C with the bias and calls gemm with beta 1). EMBER_ADDMM_BIAS=copy turns it off.
bool gemm_bias(const GemmArgs& args, const void* bias);

// Which float32 GEMM serves an m x n x k product ("openblas" or "onednn"), for tests and
// benchmarks; EMBER_SGEMM=openblas|onednn forces one.
const char* sgemm_backend(int64_t m, int64_t n, int64_t k);

}  // namespace ember::cpu
