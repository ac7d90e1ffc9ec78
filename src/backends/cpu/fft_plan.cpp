// FFT plans: factorization, twiddle tables, Bluestein setup, and the plan cache.
#include "backends/cpu/fft_plan.h"

#include <cmath>
#include <map>
#include <mutex>
#include <utility>

#include "ember/error.h"

namespace ember::cpu {

Stub<FftFn> fft_stub;

namespace {

// Odd primes up to this size get a radix pass of their own; a larger prime factor makes
// the whole length a Bluestein transform (a pass costs about r operations per element,
// Bluestein about 20 log2(n)).
constexpr int kMaxGenericRadix = 31;

// exp(-2 pi i num / den) with the argument reduced exactly in integers first.
std::pair<double, double> root(int64_t num, int64_t den) {
  num %= den;
  if (num < 0) num += den;
  const long double a = -2.0L * 3.14159265358979323846264338327950288L * static_cast<long double>(num) /
                        static_cast<long double>(den);
  return {static_cast<double>(std::cos(a)), static_cast<double>(std::sin(a))};
}

// Radices in the order the Stockham stages run them: 8s and 4s first (fewest passes),
// then 2, then odd radices; empty if a prime factor exceeds kMaxGenericRadix.
std::vector<int> factorize(int64_t n) {
  std::vector<int> r;
  while (n % 8 == 0 && n != 8 * 2) { r.push_back(8); n /= 8; }  // 16 = 4 * 4 rather than 8 * 2
  while (n % 4 == 0) { r.push_back(4); n /= 4; }
  if (n % 2 == 0) { r.push_back(2); n /= 2; }
  for (int p = 3; n > 1 && p <= kMaxGenericRadix; p += 2)
    while (n % p == 0) { r.push_back(p); n /= p; }
  if (n > 1) r.clear();
  return r;
}

// The Bluestein convolution length for n: the smallest power of two >= n, unless a
// 2^a 3^b 5^c at least a quarter shorter exists (radix-8/4 passes cost less per element than
// radix-3/5 ones, and their first passes vectorize better).
int64_t smooth_at_least(int64_t n) {
  int64_t pow2 = 1;
  while (pow2 < n) pow2 *= 2;
  int64_t best = pow2;
  for (int64_t f5 = 1; f5 < pow2; f5 *= 5)
    for (int64_t f35 = f5; f35 < pow2; f35 *= 3) {
      int64_t v = f35;
      while (v < n) v *= 2;
      best = std::min(best, v);
    }
  return best * 4 <= pow2 * 3 ? best : pow2;
}

void build_stockham(FftPlan& p) {
  int64_t span = p.n, tw = 0, rt = 0;
  for (int r : p.radices) {
    const int64_t m = span / r;
    p.tw_offset.push_back(tw);
    p.roots_offset.push_back(rt);
    tw += (r - 1) * m;
    if (r > 8) rt += r;
    span = m;
  }
  p.twiddle.resize(static_cast<size_t>(tw));
  p.roots.resize(static_cast<size_t>(rt));
  span = p.n;
  for (size_t s = 0; s < p.radices.size(); ++s) {
    const int r = p.radices[s];
    const int64_t m = span / r;
    for (int k = 1; k < r; ++k)
      for (int64_t q = 0; q < m; ++q) {
        auto [c, si] = root(q * k, span);
        p.twiddle.set(static_cast<size_t>(p.tw_offset[s] + (k - 1) * m + q), c, si);
      }
    if (r > 8)
      for (int k = 0; k < r; ++k) {
        auto [c, si] = root(k, r);
        p.roots.set(static_cast<size_t>(p.roots_offset[s] + k), c, si);
      }
    span = m;
  }
}

void build_bluestein(FftPlan& p) {
  const int64_t n = p.n;
  p.m = smooth_at_least(2 * n - 1);
  p.sub = fft_plan(p.m, false);
  p.chirp.resize(static_cast<size_t>(n));
  // w_j = exp(-pi i j^2 / n) = exp(-2 pi i (j^2 mod 2n) / 2n)
  for (int64_t j = 0; j < n; ++j) {
    const auto sq = static_cast<int64_t>((static_cast<unsigned __int128>(j) * j) % static_cast<uint64_t>(2 * n));
    auto [c, s] = root(sq, 2 * n);
    p.chirp.set(static_cast<size_t>(j), c, s);
  }
  // The kernel conj(w_|t|) on a circle of m, transformed in double and divided by m.
  std::vector<double> kr(static_cast<size_t>(2 * p.m), 0.0);
  for (int64_t t = 0; t < n; ++t) {
    const double re = p.chirp.re_d[t], im = -p.chirp.im_d[t];
    kr[2 * t] = re;
    kr[2 * t + 1] = im;
    if (t > 0) {
      kr[2 * (p.m - t)] = re;
      kr[2 * (p.m - t) + 1] = im;
    }
  }
  std::vector<double> kf(kr.size());
  FftCall call;
  call.plan = p.sub.get();
  call.is_double = true;
  call.in = kr.data();
  call.out = kf.data();
  call.in_stride = call.out_stride = 2;
  call.out_len = p.m;
  fft_stub(call);
  p.kernel.resize(static_cast<size_t>(p.m));
  const double inv = 1.0 / static_cast<double>(p.m);
  for (int64_t k = 0; k < p.m; ++k) p.kernel.set(static_cast<size_t>(k), kf[2 * k] * inv, kf[2 * k + 1] * inv);
}

std::shared_ptr<const FftPlan> build(int64_t n, bool real) {
  auto p = std::make_shared<FftPlan>();
  p->n = n;
  if (real) {
    p->half = fft_plan(n / 2, false);
    p->real_twiddle.resize(static_cast<size_t>(n / 2 + 1));
    for (int64_t k = 0; k <= n / 2; ++k) {
      auto [c, s] = root(k, n);
      p->real_twiddle.set(static_cast<size_t>(k), c, s);
    }
    return p;
  }
  p->radices = factorize(n);
  if (n > 1 && p->radices.empty()) build_bluestein(*p);
  else build_stockham(*p);
  return p;
}

}  // namespace

int64_t FftPlan::work_elems(int64_t batch) const {
  if (half) return half->work_elems(batch);
  const int64_t len = (bluestein() ? m : n) + 1;  // + 1: a real inverse gathers n / 2 + 1 values
  const int64_t arr = (len * batch + 15) / 16 * 16;  // each of the 4 arrays 64-byte aligned
  return 4 * arr + 16;
}

std::shared_ptr<const FftPlan> fft_plan(int64_t n, bool real) {
  EMBER_INTERNAL_ASSERT(n >= 1, "fft_plan: length ", n);
  real = real && n % 2 == 0;  // odd real lengths run the complex plan
  static std::recursive_mutex mu;  // Bluestein plans build their sub-plan while holding it
  static std::map<std::pair<int64_t, bool>, std::shared_ptr<const FftPlan>> cache;
  std::lock_guard<std::recursive_mutex> lock(mu);
  auto it = cache.find({n, real});
  if (it != cache.end()) return it->second;
  if (cache.size() >= 512) cache.clear();  // plans in use stay alive through their shared_ptr
  auto p = build(n, real);
  cache.emplace(std::make_pair(n, real), p);
  return p;
}

}  // namespace ember::cpu
