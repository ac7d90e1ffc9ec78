#include "ember/scalar.h"

#include <cmath>
#include <cstdio>

namespace ember {

ScalarType Scalar::natural_dtype() const {
  switch (kind_) {
    case Kind::Bool: return kBool;
    case Kind::Int: return kInt64;
    case Kind::Double: return get_default_dtype();
    default: return get_default_complex_dtype();
  }
}

Scalar Scalar::operator-() const {
  switch (kind_) {
    case Kind::Bool: return Scalar(int64_t(-i_));
    case Kind::Int: return Scalar(-i_);
    case Kind::Double: return Scalar(-d_);
    default: return Scalar(complex128(-re_, -im_));
  }
}

bool Scalar::equal(const Scalar& o) const {
  if (is_complex() || o.is_complex()) return to_complex() == o.to_complex();
  if (is_floating_point() || o.is_floating_point()) return to_double() == o.to_double();
  return to_int() == o.to_int();
}

static std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string Scalar::str() const {
  switch (kind_) {
    case Kind::Bool: return i_ ? "True" : "False";
    case Kind::Int: return std::to_string(i_);
    case Kind::Double: return format_double(d_);
    default: return "(" + format_double(re_) + (im_ < 0 ? "" : "+") + format_double(im_) + "j)";
  }
}

}  // namespace ember
