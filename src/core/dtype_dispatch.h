// Switch on a runtime dtype with `scalar_t` bound to the C++ type (for kernels, never in
// public headers).
#pragma once

#include "ember/dtype.h"
#include "ember/error.h"

#define EMBER_DTYPE_CASE(ST, T, ...) \
  case ST: {                         \
    using scalar_t = T;              \
    return __VA_ARGS__();            \
  }

#define EMBER_DTYPE_FAIL(dtype, name) \
  default: EMBER_FAIL(RuntimeError, "\"" name "\" not implemented for '", dtype, "'")

// bool, every integer, float16, bfloat16, float32, float64, complex64, complex128.
#define EMBER_DISPATCH_ALL(dtype, name, ...)                          \
  [&] {                                                               \
    switch (dtype) {                                                  \
      EMBER_DTYPE_CASE(::ember::kBool, bool, __VA_ARGS__)             \
      EMBER_DTYPE_CASE(::ember::kUInt8, uint8_t, __VA_ARGS__)         \
      EMBER_DTYPE_CASE(::ember::kInt8, int8_t, __VA_ARGS__)           \
      EMBER_DTYPE_CASE(::ember::kInt16, int16_t, __VA_ARGS__)         \
      EMBER_DTYPE_CASE(::ember::kInt32, int32_t, __VA_ARGS__)         \
      EMBER_DTYPE_CASE(::ember::kInt64, int64_t, __VA_ARGS__)         \
      EMBER_DTYPE_CASE(::ember::kHalf, ::ember::Half, __VA_ARGS__)    \
      EMBER_DTYPE_CASE(::ember::kBFloat16, ::ember::BFloat16, __VA_ARGS__) \
      EMBER_DTYPE_CASE(::ember::kFloat, float, __VA_ARGS__)           \
      EMBER_DTYPE_CASE(::ember::kDouble, double, __VA_ARGS__)         \
      EMBER_DTYPE_CASE(::ember::kComplexFloat, ::ember::complex64, __VA_ARGS__)  \
      EMBER_DTYPE_CASE(::ember::kComplexDouble, ::ember::complex128, __VA_ARGS__) \
      EMBER_DTYPE_FAIL(dtype, name);                                  \
    }                                                                 \
  }()

// Every dtype except complex.
#define EMBER_DISPATCH_REAL(dtype, name, ...)                         \
  [&] {                                                               \
    switch (dtype) {                                                  \
      EMBER_DTYPE_CASE(::ember::kBool, bool, __VA_ARGS__)             \
      EMBER_DTYPE_CASE(::ember::kUInt8, uint8_t, __VA_ARGS__)         \
      EMBER_DTYPE_CASE(::ember::kInt8, int8_t, __VA_ARGS__)           \
      EMBER_DTYPE_CASE(::ember::kInt16, int16_t, __VA_ARGS__)         \
      EMBER_DTYPE_CASE(::ember::kInt32, int32_t, __VA_ARGS__)         \
      EMBER_DTYPE_CASE(::ember::kInt64, int64_t, __VA_ARGS__)         \
      EMBER_DTYPE_CASE(::ember::kHalf, ::ember::Half, __VA_ARGS__)    \
      EMBER_DTYPE_CASE(::ember::kBFloat16, ::ember::BFloat16, __VA_ARGS__) \
      EMBER_DTYPE_CASE(::ember::kFloat, float, __VA_ARGS__)           \
      EMBER_DTYPE_CASE(::ember::kDouble, double, __VA_ARGS__)         \
      EMBER_DTYPE_FAIL(dtype, name);                                  \
    }                                                                 \
  }()

// float16, bfloat16, float32, float64, complex64, complex128.
#define EMBER_DISPATCH_FLOATING_AND_COMPLEX(dtype, name, ...)         \
  [&] {                                                               \
    switch (dtype) {                                                  \
      EMBER_DTYPE_CASE(::ember::kHalf, ::ember::Half, __VA_ARGS__)    \
      EMBER_DTYPE_CASE(::ember::kBFloat16, ::ember::BFloat16, __VA_ARGS__) \
      EMBER_DTYPE_CASE(::ember::kFloat, float, __VA_ARGS__)           \
      EMBER_DTYPE_CASE(::ember::kDouble, double, __VA_ARGS__)         \
      EMBER_DTYPE_CASE(::ember::kComplexFloat, ::ember::complex64, __VA_ARGS__)  \
      EMBER_DTYPE_CASE(::ember::kComplexDouble, ::ember::complex128, __VA_ARGS__) \
      EMBER_DTYPE_FAIL(dtype, name);                                  \
    }                                                                 \
  }()

// float16, bfloat16, float32, float64.
#define EMBER_DISPATCH_FLOATING(dtype, name, ...)                     \
  [&] {                                                               \
    switch (dtype) {                                                  \
      EMBER_DTYPE_CASE(::ember::kHalf, ::ember::Half, __VA_ARGS__)    \
      EMBER_DTYPE_CASE(::ember::kBFloat16, ::ember::BFloat16, __VA_ARGS__) \
      EMBER_DTYPE_CASE(::ember::kFloat, float, __VA_ARGS__)           \
      EMBER_DTYPE_CASE(::ember::kDouble, double, __VA_ARGS__)         \
      EMBER_DTYPE_FAIL(dtype, name);                                  \
    }                                                                 \
  }()
