// Samplers that draw a varying number of random values per element (poisson) or per row
// (multinomial). Element or row i owns Philox counter (offset + i) and reads its k-th block
// with k in counter word 2, so its values depend only on (seed, offset, i): threads may take
// any share of the elements and results stay the same.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "backends/cpu/loops.h"
#include "backends/cpu/stubs.h"
#include "core/convert.h"
#include "core/dtype_dispatch.h"
#include "core/philox.h"

namespace ember::cpu {
namespace EMBER_ISA_NAMESPACE {
namespace {

// Uniform doubles in [0, 1) of one element's stream, two per Philox block.
class Stream {
 public:
  Stream(uint64_t seed, uint64_t counter) : seed_(seed), counter_(counter) {}
  double uniform() {
    if (lane_ == 2) {
      blk_ = philox::block(static_cast<uint32_t>(counter_), static_cast<uint32_t>(counter_ >> 32),
                           static_cast<uint32_t>(k_), static_cast<uint32_t>(k_ >> 32),
                           static_cast<uint32_t>(seed_), static_cast<uint32_t>(seed_ >> 32));
      ++k_;
      lane_ = 0;
    }
    const double u = philox::to_double01(blk_.v[2 * lane_], blk_.v[2 * lane_ + 1]);
    ++lane_;
    return u;
  }

 private:
  uint64_t seed_, counter_, k_ = 0;
  philox::Block blk_{};
  int lane_ = 2;
};

// Runs fn(i) for i in [0, n), split across threads in contiguous ranges; `grain` is the
// number of elements worth a thread.
template <typename F>
void parallel_for(int64_t n, int64_t grain, const F& fn) {
  const int nt = threads_for(n, grain);
  if (nt <= 1) {
    for (int64_t i = 0; i < n; ++i) fn(i);
    return;
  }
#pragma omp parallel num_threads(nt)
  {
    const int64_t T = omp_get_num_threads(), th = omp_get_thread_num();
    const int64_t chunk = (n + T - 1) / T;
    const int64_t b = std::min(n, th * chunk), e = std::min(n, b + chunk);
    for (int64_t i = b; i < e; ++i) fn(i);
  }
}

// log Gamma without glibc's global `signgam` (lgamma is not thread-safe); x > 0 here.
inline double log_gamma(double x) {
  int sign = 0;
  return lgamma_r(x, &sign);
}

// One Poisson(rate) sample. Small rates multiply uniforms until the product drops below
// exp(-rate) (about rate + 1 draws); rates from 10 on use Hormann's transformed rejection
// with squeeze (PTRS, "The transformed rejection method for generating Poisson random
// variables", 1993), whose acceptance rate is above 0.89 for every rate.
double sample_poisson(double rate, Stream& s) {
  if (rate == 0) return 0;
  if (std::isinf(rate)) return rate;
  if (rate < 10) {
    const double limit = std::exp(-rate);
    double prod = s.uniform(), k = 0;
    while (prod > limit) {
      prod *= s.uniform();
      k += 1;
    }
    return k;
  }
  const double sq = std::sqrt(rate), log_rate = std::log(rate);
  const double b = 0.931 + 2.53 * sq, a = -0.059 + 0.02483 * b;
  const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), v_r = 0.9277 - 3.6224 / (b - 2);
  for (;;) {
    const double u = s.uniform() - 0.5, v = s.uniform();
    const double us = 0.5 - std::fabs(u);
    const double k = std::floor((2 * a / us + b) * u + rate + 0.43);
    if (us >= 0.07 && v <= v_r) return k;
    if (k < 0 || (us < 0.013 && v > us)) continue;
    if (std::log(v) + std::log(inv_alpha) - std::log(a / (us * us) + b) <= -rate + k * log_rate - log_gamma(k + 1))
      return k;
  }
}

template <typename T>
double as_double(T v) {
  if constexpr (is_reduced_float_v<T>) return static_cast<double>(static_cast<float>(v));
  else return static_cast<double>(v);
}

template <typename T>
void poisson_typed(T* out, const T* rate, int64_t n, uint64_t seed, uint64_t offset) {
  parallel_for(n, 2048, [&](int64_t i) {
    Stream s(seed, offset + static_cast<uint64_t>(i));
    out[i] = convert<T>(sample_poisson(as_double(rate[i]), s));
  });
}

// Row `r` of a multinomial draw. With replacement: each sample inverts the row's cumulative
// weights at a uniform point. Without: each category gets the key E / w with E ~ Exp(1), and
// the `samples` smallest keys win, in increasing order (the same law as drawing one
// category at a time in proportion to the remaining weights); zero weights come last, in
// index order.
template <typename T>
void multinomial_row(int64_t* out, const T* w, int64_t cats, int64_t samples, bool replacement, Stream& s,
                     std::vector<double>& cdf, std::vector<std::pair<double, int64_t>>& keys) {
  if (replacement) {
    cdf.resize(static_cast<size_t>(cats));
    double total = 0;
    int64_t last_positive = 0;
    for (int64_t j = 0; j < cats; ++j) {
      const double x = as_double(w[j]);
      total += x;
      cdf[static_cast<size_t>(j)] = total;
      if (x > 0) last_positive = j;
    }
    for (int64_t k = 0; k < samples; ++k) {
      const double u = s.uniform() * total;
      const auto j = std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin();
      out[k] = j < cats ? j : last_positive;  // u rounded up to the total
    }
    return;
  }
  keys.resize(static_cast<size_t>(cats));
  constexpr double kInf = std::numeric_limits<double>::infinity();
  for (int64_t j = 0; j < cats; ++j) {
    const double e = -std::log(1.0 - s.uniform());  // one draw per category, used or not
    const double x = as_double(w[j]);
    keys[static_cast<size_t>(j)] = {x > 0 ? e / x : kInf, j};
  }
  std::partial_sort(keys.begin(), keys.begin() + samples, keys.end());
  for (int64_t k = 0; k < samples; ++k) out[k] = keys[static_cast<size_t>(k)].second;
}

template <typename T>
void multinomial_typed(int64_t* out, const T* probs, int64_t rows, int64_t cats, int64_t samples,
                       bool replacement, uint64_t seed, uint64_t offset) {
  const int64_t per_row = std::max<int64_t>(cats, samples);
  const int nt = threads_for(rows * per_row, 16384);
  auto run = [&](int64_t r0, int64_t r1) {
    std::vector<double> cdf;
    std::vector<std::pair<double, int64_t>> keys;
    for (int64_t r = r0; r < r1; ++r) {
      Stream s(seed, offset + static_cast<uint64_t>(r));
      multinomial_row(out + r * samples, probs + r * cats, cats, samples, replacement, s, cdf, keys);
    }
  };
  if (nt <= 1 || rows == 1) {
    run(0, rows);
    return;
  }
#pragma omp parallel num_threads(static_cast<int>(std::min<int64_t>(nt, rows)))
  {
    const int64_t T_ = omp_get_num_threads(), th = omp_get_thread_num();
    const int64_t chunk = (rows + T_ - 1) / T_;
    const int64_t b = std::min(rows, th * chunk), e = std::min(rows, b + chunk);
    if (b < e) run(b, e);
  }
}

// Only the dtypes the fronts let through: float, double, bfloat16.
template <typename F>
void floating_switch(ScalarType dtype, const F& fn) {
  switch (dtype) {
    case kFloat: return fn(float{});
    case kDouble: return fn(double{});
    case kBFloat16: return fn(BFloat16{});
    default: EMBER_FAIL(RuntimeError, "random sampler: unsupported dtype ", dtype);  // fronts check first
  }
}

}  // namespace

void poisson_kernel(void* out, const void* rate, ScalarType dtype, int64_t n, uint64_t seed, uint64_t offset) {
  floating_switch(dtype, [&](auto tag) {
    using T = decltype(tag);
    poisson_typed(static_cast<T*>(out), static_cast<const T*>(rate), n, seed, offset);
  });
}

void multinomial_kernel(int64_t* out, const void* probs, ScalarType dtype, int64_t rows, int64_t cats,
                        int64_t samples, bool replacement, uint64_t seed, uint64_t offset) {
  floating_switch(dtype, [&](auto tag) {
    using T = decltype(tag);
    multinomial_typed(out, static_cast<const T*>(probs), rows, cats, samples, replacement, seed, offset);
  });
}

EMBER_REGISTER_STUB(poisson_stub, &poisson_kernel);
EMBER_REGISTER_STUB(multinomial_stub, &multinomial_kernel);
}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
