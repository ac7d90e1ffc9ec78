// A single number of any kind: the type of scalar arguments (alpha, fill values, x + 2).
#pragma once

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>

#include "ember/dtype.h"

namespace ember {

class Scalar {
 public:
  enum class Kind : uint8_t { Bool, Int, Double, Complex };

  Scalar() : Scalar(int64_t(0)) {}
  Scalar(bool v) : kind_(Kind::Bool) { i_ = v; }  // NOLINT: implicit like a number
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  Scalar(T v) : kind_(Kind::Int) { i_ = static_cast<int64_t>(v); }  // NOLINT
  template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
  Scalar(T v) : kind_(Kind::Double) { d_ = static_cast<double>(v); }  // NOLINT
  Scalar(Half v) : Scalar(static_cast<float>(v)) {}  // NOLINT
  Scalar(BFloat16 v) : Scalar(static_cast<float>(v)) {}  // NOLINT
  template <typename T>
  Scalar(std::complex<T> v) : kind_(Kind::Complex) { re_ = v.real(); im_ = v.imag(); }  // NOLINT

  Kind kind() const { return kind_; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_integral() const { return kind_ == Kind::Int; }  // bools excluded, as in PyTorch
  bool is_floating_point() const { return kind_ == Kind::Double; }
  bool is_complex() const { return kind_ == Kind::Complex; }

  // The dtype a Python number of this kind gets on its own: bool, int64, default float,
  // default complex.
  ScalarType natural_dtype() const;

  template <typename T>
  T to() const {
    if constexpr (std::is_same_v<T, bool>) {
      switch (kind_) {
        case Kind::Bool: case Kind::Int: return i_ != 0;
        case Kind::Double: return d_ != 0;
        default: return re_ != 0 || im_ != 0;
      }
    } else if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
      using V = typename T::value_type;
      switch (kind_) {
        case Kind::Bool: case Kind::Int: return T(static_cast<V>(i_), 0);
        case Kind::Double: return T(static_cast<V>(d_), 0);
        default: return T(static_cast<V>(re_), static_cast<V>(im_));
      }
    } else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>) {
      return T(to<float>());
    } else {
      switch (kind_) {
        case Kind::Bool: case Kind::Int: return static_cast<T>(i_);
        case Kind::Double: return static_cast<T>(d_);
        default: return static_cast<T>(re_);
      }
    }
  }
  double to_double() const { return to<double>(); }
  int64_t to_int() const { return to<int64_t>(); }
  complex128 to_complex() const { return to<complex128>(); }

  Scalar operator-() const;
  bool equal(const Scalar& o) const;
  std::string str() const;  // as Python would print the number

 private:
  Kind kind_;
  union {
    int64_t i_;
    double d_;
    struct { double re_, im_; };
  };
};

}  // namespace ember
