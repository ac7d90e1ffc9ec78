// Value conversion between element types, with PyTorch's rules: complex to real keeps the
// real part, anything to bool tests for non-zero, half types go through float.
#pragma once

#include <type_traits>
#ifdef __F16C__
#include <immintrin.h>
#endif

#include "ember/dtype.h"

namespace ember {

template <typename T> struct is_complex_t : std::false_type {};
template <typename T> struct is_complex_t<std::complex<T>> : std::true_type {};
template <typename T> constexpr bool is_complex_v = is_complex_t<T>::value;
template <typename T> constexpr bool is_reduced_float_v =
    std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// The type arithmetic on T is carried out in (float for the 16-bit float types).
template <typename T> struct OpMath { using type = T; };
template <> struct OpMath<Half> { using type = float; };
template <> struct OpMath<BFloat16> { using type = float; };
template <typename T> using opmath_t = typename OpMath<T>::type;

// float16 <-> float by F16C where the translation unit is built for it (the AVX kernels).
// These and convert are always inlined: an out-of-line copy from an F16C build must never
// serve a call from the default build, which runs on CPUs without it.
[[gnu::always_inline]] inline float half_to_float(Half h) {
#ifdef __F16C__
  return _cvtsh_ss(h.bits);
#else
  return static_cast<float>(h);
#endif
}
[[gnu::always_inline]] inline Half float_to_half(float f) {
#ifdef __F16C__
  return Half::from_bits(_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#else
  return Half(f);
#endif
}

template <typename To, typename From>
[[gnu::always_inline]] inline To convert(From v) {
  if constexpr (std::is_same_v<To, From>) {
    return v;
  } else if constexpr (std::is_same_v<From, Half>) {
    return convert<To>(half_to_float(v));
  } else if constexpr (std::is_same_v<To, Half>) {
    return float_to_half(convert<float>(v));
  } else if constexpr (std::is_same_v<To, bool>) {
    if constexpr (is_complex_v<From>) return v.real() != 0 || v.imag() != 0;
    else if constexpr (is_reduced_float_v<From>) return static_cast<float>(v) != 0.f;
    else return v != From(0);
  } else if constexpr (is_complex_v<To>) {
    using V = typename To::value_type;
    if constexpr (is_complex_v<From>) return To(static_cast<V>(v.real()), static_cast<V>(v.imag()));
    else if constexpr (is_reduced_float_v<From>) return To(static_cast<V>(static_cast<float>(v)), 0);
    else return To(static_cast<V>(v), 0);
  } else if constexpr (is_complex_v<From>) {
    return convert<To>(v.real());
  } else if constexpr (is_reduced_float_v<To>) {
    return To(static_cast<float>(v));
  } else if constexpr (is_reduced_float_v<From>) {
    return static_cast<To>(static_cast<float>(v));
  } else {
    return static_cast<To>(v);
  }
}

}  // namespace ember
