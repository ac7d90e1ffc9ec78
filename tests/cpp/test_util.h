// Helpers shared by the C++ test suites: element values of a tensor, seeded random tensors,
// and a guard that restores the thread count.
#pragma once

#include <random>
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
  return is_integral(dtype, true) ? t.to(kInt64).to(dtype) : t.to(dtype);
}

// Restores the thread count when a test that changes it ends.
struct Restore {
  int n = get_num_threads();
  ~Restore() { set_num_threads(n); }
};

}  // namespace ember::testing
