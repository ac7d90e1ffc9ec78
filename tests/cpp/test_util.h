// Helpers shared by the C++ test suites: element values of a tensor, seeded random tensors,
// guards for the thread count, and a check that an error names what went wrong.
#pragma once

#include <gtest/gtest.h>

#include <complex>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "ember/ops.h"
#include "ember/parallel.h"

namespace ember::testing {

// The elements of t in logical order, as T (t must have T's dtype).
template <typename T>
std::vector<T> values(const Tensor& t) {
  Tensor c = t.contiguous();
  const T* p = c.data_ptr<T>();
  return std::vector<T>(p, p + c.numel());
}
inline std::vector<double> as_double(const Tensor& t) { return values<double>(t.to(kDouble)); }

// Uniform values in [lo, hi) converted to dtype; integers via int64, so that negative values
// wrap into the unsigned types well-defined.
inline Tensor uniform(IntArrayRef shape, ScalarType dtype, double lo = -1, double hi = 1, unsigned seed = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(static_cast<size_t>(compute_numel(shape)));
  for (auto& x : v) x = d(gen);
  Tensor t = tensor(v).view(shape);
  if (is_integral(dtype, true)) return t.to(kInt64).to(dtype);
  if (is_complex(dtype)) {  // imaginary parts drawn after the real ones
    std::vector<std::complex<double>> c(v.size());
    for (size_t i = 0; i < c.size(); ++i) c[i] = {v[i], d(gen)};
    return tensor(c).view(shape).to(dtype);
  }
  return t.to(dtype);
}

// Restores the thread count when a test that changes it ends.
struct Restore {
  int n = get_num_threads();
  ~Restore() { set_num_threads(n); }
};

// Runs with n threads (more than cores is fine, and makes the parallel paths run) until the
// end of the scope.
struct Threads : Restore {
  explicit Threads(int n) { set_num_threads(n); }
};

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

// f() must throw E with msg in its message.
template <typename E, typename F>
void expect_error(const F& f, const std::string& msg) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing: " << msg;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(msg), std::string::npos) << e.what();
  }
}

}  // namespace ember::testing
