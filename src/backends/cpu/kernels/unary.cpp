// Elementwise unary math: neg, abs, exp, log, sqrt, sin, cos, tanh, sigmoid, relu.
//
// float and double go through SLEEF's 1-ULP vector functions at this build's vector width
// (SSE2 / AVX2 / AVX-512). Contiguous runs are processed in place; strided runs are gathered
// into a small stack buffer first, and the last partial vector is padded, so every layout
// goes through the same vector code and gives bit-identical results. The 16-bit float types
// compute in float through the same code, one buffer at a time. Complex values use std::.
#include <immintrin.h>
#include <sleef.h>

#include <cmath>
#include <cstring>

#include "backends/cpu/kernels/basic_loops.h"
#include "backends/cpu/stubs.h"
#include "core/dtype_dispatch.h"

namespace ember::cpu {
namespace isa_Default {
void unary_kernel(const ElementwiseIter& it, UnaryOp op);
}
namespace EMBER_ISA_NAMESPACE {
namespace {

// ---------------------------------------------------------------- vectors of this build
template <typename T> struct Vec;

#if defined(__AVX512F__)
template <> struct Vec<float> {
  using V = __m512;
  static constexpr int N = 16;
  static V load(const float* p) { return _mm512_loadu_ps(p); }
  static void store(float* p, V v) { _mm512_storeu_ps(p, v); }
  static void stream(float* p, V v) { _mm512_stream_ps(p, v); }
  static V set1(float x) { return _mm512_set1_ps(x); }
  static V add(V a, V b) { return _mm512_add_ps(a, b); }
  static V sub(V a, V b) { return _mm512_sub_ps(a, b); }
  static V div(V a, V b) { return _mm512_div_ps(a, b); }
  // maskz: GCC 12 warns about the undefined source operand of the plain form.
  static V sqrt(V v) { return _mm512_maskz_sqrt_ps(__mmask16(0xffff), v); }
  static V exp(V v) { return Sleef_expf16_u10avx512f(v); }
  static V log(V v) { return Sleef_logf16_u10avx512f(v); }
  static V sin(V v) { return Sleef_sinf16_u10avx512f(v); }
  static V cos(V v) { return Sleef_cosf16_u10avx512f(v); }
  static V tanh(V v) { return Sleef_tanhf16_u10avx512f(v); }
};
template <> struct Vec<double> {
  using V = __m512d;
  static constexpr int N = 8;
  static V load(const double* p) { return _mm512_loadu_pd(p); }
  static void store(double* p, V v) { _mm512_storeu_pd(p, v); }
  static void stream(double* p, V v) { _mm512_stream_pd(p, v); }
  static V set1(double x) { return _mm512_set1_pd(x); }
  static V add(V a, V b) { return _mm512_add_pd(a, b); }
  static V sub(V a, V b) { return _mm512_sub_pd(a, b); }
  static V div(V a, V b) { return _mm512_div_pd(a, b); }
  static V sqrt(V v) { return _mm512_maskz_sqrt_pd(__mmask8(0xff), v); }
  static V exp(V v) { return Sleef_expd8_u10avx512f(v); }
  static V log(V v) { return Sleef_logd8_u10avx512f(v); }
  static V sin(V v) { return Sleef_sind8_u10avx512f(v); }
  static V cos(V v) { return Sleef_cosd8_u10avx512f(v); }
  static V tanh(V v) { return Sleef_tanhd8_u10avx512f(v); }
};
#elif defined(__AVX2__)
template <> struct Vec<float> {
  using V = __m256;
  static constexpr int N = 8;
  static V load(const float* p) { return _mm256_loadu_ps(p); }
  static void store(float* p, V v) { _mm256_storeu_ps(p, v); }
  static void stream(float* p, V v) { _mm256_stream_ps(p, v); }
  static V set1(float x) { return _mm256_set1_ps(x); }
  static V add(V a, V b) { return _mm256_add_ps(a, b); }
  static V sub(V a, V b) { return _mm256_sub_ps(a, b); }
  static V div(V a, V b) { return _mm256_div_ps(a, b); }
  static V sqrt(V v) { return _mm256_sqrt_ps(v); }
  static V exp(V v) { return Sleef_expf8_u10avx2(v); }
  static V log(V v) { return Sleef_logf8_u10avx2(v); }
  static V sin(V v) { return Sleef_sinf8_u10avx2(v); }
  static V cos(V v) { return Sleef_cosf8_u10avx2(v); }
  static V tanh(V v) { return Sleef_tanhf8_u10avx2(v); }
};
template <> struct Vec<double> {
  using V = __m256d;
  static constexpr int N = 4;
  static V load(const double* p) { return _mm256_loadu_pd(p); }
  static void store(double* p, V v) { _mm256_storeu_pd(p, v); }
  static void stream(double* p, V v) { _mm256_stream_pd(p, v); }
  static V set1(double x) { return _mm256_set1_pd(x); }
  static V add(V a, V b) { return _mm256_add_pd(a, b); }
  static V sub(V a, V b) { return _mm256_sub_pd(a, b); }
  static V div(V a, V b) { return _mm256_div_pd(a, b); }
  static V sqrt(V v) { return _mm256_sqrt_pd(v); }
  static V exp(V v) { return Sleef_expd4_u10avx2(v); }
  static V log(V v) { return Sleef_logd4_u10avx2(v); }
  static V sin(V v) { return Sleef_sind4_u10avx2(v); }
  static V cos(V v) { return Sleef_cosd4_u10avx2(v); }
  static V tanh(V v) { return Sleef_tanhd4_u10avx2(v); }
};
#else
template <> struct Vec<float> {
  using V = __m128;
  static constexpr int N = 4;
  static V load(const float* p) { return _mm_loadu_ps(p); }
  static void store(float* p, V v) { _mm_storeu_ps(p, v); }
  static void stream(float* p, V v) { _mm_stream_ps(p, v); }
  static V set1(float x) { return _mm_set1_ps(x); }
  static V add(V a, V b) { return _mm_add_ps(a, b); }
  static V sub(V a, V b) { return _mm_sub_ps(a, b); }
  static V div(V a, V b) { return _mm_div_ps(a, b); }
  static V sqrt(V v) { return _mm_sqrt_ps(v); }
  static V exp(V v) { return Sleef_expf4_u10sse2(v); }
  static V log(V v) { return Sleef_logf4_u10sse2(v); }
  static V sin(V v) { return Sleef_sinf4_u10sse2(v); }
  static V cos(V v) { return Sleef_cosf4_u10sse2(v); }
  static V tanh(V v) { return Sleef_tanhf4_u10sse2(v); }
};
template <> struct Vec<double> {
  using V = __m128d;
  static constexpr int N = 2;
  static V load(const double* p) { return _mm_loadu_pd(p); }
  static void store(double* p, V v) { _mm_storeu_pd(p, v); }
  static void stream(double* p, V v) { _mm_stream_pd(p, v); }
  static V set1(double x) { return _mm_set1_pd(x); }
  static V add(V a, V b) { return _mm_add_pd(a, b); }
  static V sub(V a, V b) { return _mm_sub_pd(a, b); }
  static V div(V a, V b) { return _mm_div_pd(a, b); }
  static V sqrt(V v) { return _mm_sqrt_pd(v); }
  static V exp(V v) { return Sleef_expd2_u10sse2(v); }
  static V log(V v) { return Sleef_logd2_u10sse2(v); }
  static V sin(V v) { return Sleef_sind2_u10sse2(v); }
  static V cos(V v) { return Sleef_cosd2_u10sse2(v); }
  static V tanh(V v) { return Sleef_tanhd2_u10sse2(v); }
};
#endif

// The ops computed with SLEEF (the rest are cheap enough for the compiler's own vectors).
constexpr bool is_math_op(UnaryOp op) {
  return op == UnaryOp::Exp || op == UnaryOp::Log || op == UnaryOp::Sqrt || op == UnaryOp::Sin ||
         op == UnaryOp::Cos || op == UnaryOp::Tanh || op == UnaryOp::Sigmoid;
}

template <UnaryOp Op, typename T>
inline typename Vec<T>::V vec_op(typename Vec<T>::V x) {
  using VT = Vec<T>;
  if constexpr (Op == UnaryOp::Exp) return VT::exp(x);
  else if constexpr (Op == UnaryOp::Log) return VT::log(x);
  else if constexpr (Op == UnaryOp::Sqrt) return VT::sqrt(x);
  else if constexpr (Op == UnaryOp::Sin) return VT::sin(x);
  else if constexpr (Op == UnaryOp::Cos) return VT::cos(x);
  else if constexpr (Op == UnaryOp::Tanh) return VT::tanh(x);
  else {  // Sigmoid: 1 / (1 + exp(-x)); saturates to 0 and 1 through inf, keeps NaN.
    static_assert(Op == UnaryOp::Sigmoid);
    const auto one = VT::set1(T(1));
    return VT::div(one, VT::add(one, VT::exp(VT::sub(VT::set1(T(0)), x))));
  }
}

// Outputs larger than a last-level cache bypass it: they would not stay cached for the next
// op anyway, and streaming stores save the read-for-ownership of every output line.
constexpr int64_t kStreamBytes = int64_t(32) << 20;

// out[i] = op(in[i]) for contiguous arrays (out may equal in). The last partial vector is
// computed on a padded copy so that it matches the full vectors bit for bit.
template <UnaryOp Op, typename T>
void vec_block(T* out, const T* in, int64_t n, bool stream = false);

// When the output sits just above the input modulo 4 KiB, each store makes the CPU suspect
// a dependency with the loads that follow it ("4K aliasing"), which made exp 3x slower on
// such array pairs. Then compute a block into a stack buffer first and copy it out after,
// so that loads and stores to aliasing addresses are far apart in time.
constexpr int64_t kAliasWindow = 512;  // bytes
constexpr int64_t kBounceBytes = 4096;

template <typename T>
bool aliases_4k(const T* out, const T* in) {
  auto d = static_cast<int64_t>((reinterpret_cast<uintptr_t>(out) - reinterpret_cast<uintptr_t>(in)) & 4095u);
  return out != in && d > 0 && d < kAliasWindow;
}

template <UnaryOp Op, typename T>
void vec_block_bounced(T* out, const T* in, int64_t n, bool stream) {
  constexpr int64_t M = kBounceBytes / static_cast<int64_t>(sizeof(T));
  alignas(64) T buf[M];
  for (int64_t b = 0; b < n; b += M) {
    const int64_t m = std::min(M, n - b);
    vec_block<Op, T>(buf, in + b, m);
    if (stream && m == M && reinterpret_cast<uintptr_t>(out + b) % 64 == 0) {
      using VT = Vec<T>;
      for (int64_t k = 0; k < M; k += VT::N) VT::stream(out + b + k, VT::load(buf + k));
    } else {
      std::memcpy(out + b, buf, static_cast<size_t>(m) * sizeof(T));
    }
  }
  if (stream) _mm_sfence();
}

template <UnaryOp Op, typename T>
void vec_block(T* out, const T* in, int64_t n, bool stream) {
  using VT = Vec<T>;
  constexpr int N = VT::N;
  if (n > kBounceBytes / static_cast<int64_t>(sizeof(T)) && aliases_4k(out, in))
    return vec_block_bounced<Op, T>(out, in, n, stream);
  int64_t i = 0;
  if (stream) {
    // Align the output for streaming stores (the head goes through the padded path below).
    int64_t head = (-(reinterpret_cast<uintptr_t>(out) / sizeof(T))) & (N - 1);
    if (reinterpret_cast<uintptr_t>(out) % sizeof(T) == 0 && head < n) {
      if (head) vec_block<Op, T>(out, in, head);
      i = head;
      for (; i + N <= n; i += N) VT::stream(out + i, vec_op<Op, T>(VT::load(in + i)));
      _mm_sfence();
    }
  }
  for (; i + 2 * N <= n; i += 2 * N) {
    auto a = VT::load(in + i), b = VT::load(in + i + N);
    VT::store(out + i, vec_op<Op, T>(a));
    VT::store(out + i + N, vec_op<Op, T>(b));
  }
  for (; i + N <= n; i += N) VT::store(out + i, vec_op<Op, T>(VT::load(in + i)));
  if (i < n) {
    alignas(64) T buf[N];
    for (int k = 0; k < N; ++k) buf[k] = T(0);
    std::memcpy(buf, in + i, static_cast<size_t>(n - i) * sizeof(T));
    VT::store(buf, vec_op<Op, T>(VT::load(buf)));
    std::memcpy(out + i, buf, static_cast<size_t>(n - i) * sizeof(T));
  }
}

constexpr int64_t kChunk = 256;  // elements gathered per strided or converted block

// A 1-D run of T -> T through vec_block, whatever the strides. When `stream` is set the
// caller decided that the whole output is too large to keep in cache.
template <UnaryOp Op, typename T>
void vec_run(char** d, const int64_t* s, int64_t n, bool stream) {
  if (s[0] == sizeof(T) && s[1] == sizeof(T)) {
    vec_block<Op, T>(reinterpret_cast<T*>(d[0]), reinterpret_cast<const T*>(d[1]), n, stream);
    return;
  }
  if (s[1] == 0) {  // a broadcast input: one value
    T v = load<T>(d[1]);
    vec_block<Op, T>(&v, &v, 1);
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(d[0] + i * s[0]) = v;
    return;
  }
  alignas(64) T buf[kChunk];
  for (int64_t base = 0; base < n; base += kChunk) {
    const int64_t m = std::min(kChunk, n - base);
    const char* in = d[1] + base * s[1];
    char* out = d[0] + base * s[0];
    for (int64_t k = 0; k < m; ++k) buf[k] = load<T>(in + k * s[1]);
    if (s[0] == sizeof(T)) {
      vec_block<Op, T>(reinterpret_cast<T*>(out), buf, m);
    } else {
      vec_block<Op, T>(buf, buf, m);
      for (int64_t k = 0; k < m; ++k) *reinterpret_cast<T*>(out + k * s[0]) = buf[k];
    }
  }
}

// ---------------------------------------------------------------- one element
// -INT_MIN overflows: wrap as two's complement (PyTorch returns INT_MIN for both).
template <typename T>
T negate_wrapping(T a) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(U(0) - static_cast<U>(a));
}

// Everything but the vectorized float/double math: integers, complex, and neg/abs/relu.
template <UnaryOp Op, typename T>
T scalar_op(T x) {
  if constexpr (Op == UnaryOp::Neg) {
    if constexpr (std::is_integral_v<T>) return negate_wrapping(x);
    else return -x;
  } else if constexpr (Op == UnaryOp::Abs) {
    if constexpr (std::is_unsigned_v<T>) return x;
    else if constexpr (std::is_integral_v<T>) return x < 0 ? negate_wrapping(x) : x;
    else return std::abs(x);
  } else if constexpr (Op == UnaryOp::Relu) {
    // clamp_min(x, 0): NaN and -0.0 pass through, as in PyTorch.
    if constexpr (std::is_unsigned_v<T>) return x;
    else return x < T(0) ? T(0) : x;
  } else if constexpr (Op == UnaryOp::Exp) {
    return std::exp(x);
  } else if constexpr (Op == UnaryOp::Log) {
    return std::log(x);
  } else if constexpr (Op == UnaryOp::Sqrt) {
    return std::sqrt(x);
  } else if constexpr (Op == UnaryOp::Sin) {
    return std::sin(x);
  } else if constexpr (Op == UnaryOp::Cos) {
    return std::cos(x);
  } else if constexpr (Op == UnaryOp::Tanh) {
    return std::tanh(x);
  } else {
    static_assert(Op == UnaryOp::Sigmoid);
    return T(1) / (T(1) + std::exp(-x));
  }
}

const char* op_name(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return "neg";
    case UnaryOp::Abs: return "abs";
    case UnaryOp::Exp: return "exp";
    case UnaryOp::Log: return "log";
    case UnaryOp::Sqrt: return "sqrt";
    case UnaryOp::Sin: return "sin";
    case UnaryOp::Cos: return "cos";
    case UnaryOp::Tanh: return "tanh";
    case UnaryOp::Sigmoid: return "sigmoid";
    case UnaryOp::Relu: return "relu";
  }
  return "unary";
}

// Work per element relative to a copy: transcendental ops thread at smaller sizes.
constexpr int64_t grain_for(UnaryOp op) { return is_math_op(op) ? kGrainSize / 4 : kGrainSize; }

template <UnaryOp Op, typename T>
void run_typed(const ElementwiseIter& it) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    if constexpr (is_math_op(Op)) {
      // Stream only when the whole output is far larger than the caches.
      const bool stream = it.numel() * int64_t(sizeof(T)) >= kStreamBytes;
      for_each(it, [stream](char** d, const int64_t* s, int64_t n) { vec_run<Op, T>(d, s, n, stream); },
               grain_for(Op));
      return;
    }
  }
  if constexpr (is_reduced_float_v<T>) {
    // Compute in float a chunk at a time and round once.
    for_each(it, [](char** d, const int64_t* s, int64_t n) {
      alignas(64) float buf[kChunk];
      for (int64_t base = 0; base < n; base += kChunk) {
        const int64_t m = std::min(kChunk, n - base);
        const char* in = d[1] + base * s[1];
        char* out = d[0] + base * s[0];
        for (int64_t k = 0; k < m; ++k) buf[k] = static_cast<float>(load<T>(in + k * s[1]));
        if constexpr (is_math_op(Op)) {
          vec_block<Op, float>(buf, buf, m);
        } else {
          for (int64_t k = 0; k < m; ++k) buf[k] = scalar_op<Op, float>(buf[k]);
        }
        for (int64_t k = 0; k < m; ++k) *reinterpret_cast<T*>(out + k * s[0]) = T(buf[k]);
      }
    }, grain_for(Op));
  } else if constexpr (is_complex_v<T> && Op == UnaryOp::Abs) {
    using R = typename T::value_type;  // |z| is real: the output is the real dtype
    for_each(it, [](char** d, const int64_t* s, int64_t n) {
      unary_loop<R, T>(d, s, n, [](T z) { return std::abs(z); });
    });
  } else {
    for_each(it, [](char** d, const int64_t* s, int64_t n) {
      unary_loop<T, T>(d, s, n, [](T x) { return scalar_op<Op, T>(x); });
    }, grain_for(Op));
  }
}

template <typename T>
void unary_typed(const ElementwiseIter& it, UnaryOp op) {
  // What the op front ends reject never reaches here; a direct caller gets an error before
  // any loop runs.
  constexpr bool is_bool = std::is_same_v<T, bool>;
  constexpr bool is_int = std::is_integral_v<T>;
  const bool bad = (is_bool && (op == UnaryOp::Neg || op == UnaryOp::Abs)) ||
                   (is_int && is_math_op(op)) || ((is_bool || is_complex_v<T>) && op == UnaryOp::Relu);
  EMBER_CHECK(!bad, RuntimeError, "\"", op_name(op), "\" not implemented for '", scalar_type_of<T>, "'");
  if constexpr (is_bool) {
    return;  // unreachable: every op is rejected above
  } else {
    switch (op) {
      case UnaryOp::Neg: return run_typed<UnaryOp::Neg, T>(it);
      case UnaryOp::Abs: return run_typed<UnaryOp::Abs, T>(it);
      case UnaryOp::Relu:
        if constexpr (!is_complex_v<T>) return run_typed<UnaryOp::Relu, T>(it);
        return;
      default: break;
    }
    if constexpr (!is_int) {
      switch (op) {
        case UnaryOp::Exp: return run_typed<UnaryOp::Exp, T>(it);
        case UnaryOp::Log: return run_typed<UnaryOp::Log, T>(it);
        case UnaryOp::Sqrt: return run_typed<UnaryOp::Sqrt, T>(it);
        case UnaryOp::Sin: return run_typed<UnaryOp::Sin, T>(it);
        case UnaryOp::Cos: return run_typed<UnaryOp::Cos, T>(it);
        case UnaryOp::Tanh: return run_typed<UnaryOp::Tanh, T>(it);
        case UnaryOp::Sigmoid: return run_typed<UnaryOp::Sigmoid, T>(it);
        default: break;
      }
    }
  }
}

}  // namespace

void unary_kernel(const ElementwiseIter& it, UnaryOp op) {
  const ScalarType dt = it.compute_dtype();
#if !EMBER_ISA_DEFAULT
  // bfloat16 and half compute through the float vectors of this build.
  if (dt == kBFloat16) return unary_typed<BFloat16>(it, op);
  if (dt == kHalf) return unary_typed<Half>(it, op);
#endif
  EMBER_DISPATCH_KERNEL(dt, "unary", unary_kernel(it, op), [&] { unary_typed<scalar_t>(it, op); });
}
EMBER_REGISTER_STUB(unary_stub, &unary_kernel);
}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
