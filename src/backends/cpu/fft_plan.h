// FFT plans and the kernel slot that executes them (ops/fft.cpp builds the calls,
// kernels/fft.cpp runs them once per instruction set).
//
// A plan is what depends only on the transform length: the factorization into radices,
// the per-stage twiddle factors and, for lengths with a large prime factor, Bluestein's
// chirp and the transformed convolution kernel (with the plan of the convolution length).
// Plans hold every table in double and float, so one plan serves both precisions; they
// are built once per (length, real/complex) and kept in a process-wide cache. Strides,
// batch shape and dtype belong to the call (FftCall), not to the plan: the kernel gathers
// lines into contiguous split buffers, so a plan never depends on them.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "backends/cpu/capability.h"
#include "ember/array_ref.h"

namespace ember::cpu {

// Split (real, imaginary) tables in both precisions.
struct FftTable {
  std::vector<double> re_d, im_d;
  std::vector<float> re_f, im_f;
  void resize(size_t n) { re_d.resize(n); im_d.resize(n); re_f.resize(n); im_f.resize(n); }
  void set(size_t i, double re, double im) {
    re_d[i] = re; im_d[i] = im; re_f[i] = static_cast<float>(re); im_f[i] = static_cast<float>(im);
  }
  template <typename T> const T* re() const;
  template <typename T> const T* im() const;
};
template <> inline const double* FftTable::re<double>() const { return re_d.data(); }
template <> inline const double* FftTable::im<double>() const { return im_d.data(); }
template <> inline const float* FftTable::re<float>() const { return re_f.data(); }
template <> inline const float* FftTable::im<float>() const { return im_f.data(); }

// A forward complex DFT of length n (inverse transforms swap real and imaginary parts on
// the way in and out: IDFT(x) = swap(DFT(swap(x)))).
struct FftPlan {
  int64_t n = 1;
  // Stockham stages: radix of each stage and the offset of its twiddles in `twiddle`
  // ((radix - 1) * m entries, m = the stage's span / radix, entry (k - 1) * m + p).
  std::vector<int> radices;
  std::vector<int64_t> tw_offset;
  FftTable twiddle;
  // Roots of unity exp(-2 pi i k / r) for the generic odd radices, at roots_offset[stage].
  std::vector<int64_t> roots_offset;
  FftTable roots;
  // Bluestein (radices empty): chirp w_j = exp(-pi i j^2 / n), j < n, and the DFT of the
  // convolution kernel conj(w) wrapped to length m, divided by m.
  int64_t m = 0;
  FftTable chirp, kernel;
  std::shared_ptr<const FftPlan> sub;
  // Real transforms of even n: the plan of n / 2 and exp(-2 pi i k / n), k <= n / 2.
  std::shared_ptr<const FftPlan> half;
  FftTable real_twiddle;
  bool bluestein() const { return m > 0; }
  // Elements of T each transform of a group of `batch` lines needs as scratch.
  int64_t work_elems(int64_t batch) const;
};

// The plan of a complex DFT of length n (real = true: also the tables of the real
// transforms of length n). Built once, then served from the cache.
std::shared_ptr<const FftPlan> fft_plan(int64_t n, bool real);

enum class FftKind : int { C2C, R2C, C2R };

// One 1-D transform along one dim of many lines. Pointers and strides are in units of the
// real scalar (a complex element is two of them, real first); complex data along the dim
// steps by `in_stride`/`out_stride`. Lines are enumerated by the batch dims (sizes and
// strides of input and output). C2C reads and writes n elements; R2C reads n reals and
// writes out_len complex (n / 2 + 1, or n with the conjugate half filled in); C2R reads
// n / 2 + 1 complex and writes n reals, ignoring the imaginary parts of the first element
// (and of the middle one for even n) as a Hermitian input has none. Results are scaled by
// `scale`. Batch strides are in units of the real scalar too. Input and output may be the same memory when strides and lines coincide.
struct FftCall {
  const FftPlan* plan = nullptr;
  FftKind kind = FftKind::C2C;
  bool forward = true;
  bool is_double = false;
  const void* in = nullptr;
  void* out = nullptr;
  int64_t in_stride = 0, out_stride = 0, out_len = 0;
  DimVector batch_sizes, in_batch_strides, out_batch_strides;
  double scale = 1;
};
using FftFn = void (*)(const FftCall&);
extern Stub<FftFn> fft_stub;

}  // namespace ember::cpu
