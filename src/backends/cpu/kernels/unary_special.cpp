// Special functions without a vector form: erfinv, digamma, polygamma, i0, i1. Each is computed
// in double and rounded once, so the float types are as accurate as the double results.
#include <cmath>
#include <limits>

#include "backends/cpu/kernels/unary_loops.h"
#include "backends/cpu/stubs.h"
#include "core/dtype_dispatch.h"

namespace ember::cpu {
namespace isa_Default {
void unary_special(const ElementwiseIter& it, UnaryOp op, const UnaryParams& p);
}
namespace EMBER_ISA_NAMESPACE {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kPi = 3.14159265358979323846;

// Inverse error function: Winitzki's closed-form estimate (relative error ~2e-3), then
// Newton steps on erf(x) = y, or on erfc(x) = 1 - y for |y| > 1/2 where 1 - y is exact
// and erf would have lost the digits that matter.
double erfinv(double y) {
  if (!(y >= -1 && y <= 1)) return kNaN;
  if (y == 1) return kInf;
  if (y == -1) return -kInf;
  const double a = std::abs(y);
  constexpr double k = 0.147;
  const double l = std::log((1 - a) * (1 + a));
  const double t = 2 / (kPi * k) + l / 2;
  double x = std::sqrt(std::sqrt(t * t - l / k) - t);
  const double two_over_sqrt_pi = 1.12837916709551257390;
  for (int i = 0; i < 4 && x > 0; ++i) {
    const double d = two_over_sqrt_pi * std::exp(-x * x);
    const double f = a <= 0.5 ? std::erf(x) - a : (1 - a) - std::erfc(x);
    x -= f / d;
  }
  return std::copysign(x, y);
}

// digamma: reflection below 0 (on the fractional part, where tan is accurate), the
// recurrence psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic series
// ln x - 1/(2x) - sum B_2k / (2k x^2k).
double digamma(double x) {
  if (x == 0) return std::copysign(kInf, -x);  // the pole's sign follows the zero's
  if (x < 0) {
    if (x == std::trunc(x)) return kNaN;
    double ipart;
    const double frac = std::modf(x, &ipart);
    return digamma(1 - x) - kPi / std::tan(kPi * frac);
  }
  double result = 0;
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  if (x > 1e17) return result + std::log(x);
  const double z = 1 / (x * x);
  // 1/12, -1/120, 1/252, -1/240, 1/132, -691/32760, 1/12: B_2k / 2k.
  const double series =
      z * (1.0 / 12 + z * (-1.0 / 120 + z * (1.0 / 252 + z * (-1.0 / 240 + z * (1.0 / 132 +
      z * (-691.0 / 32760 + z / 12))))));
  return result + std::log(x) - 0.5 / x - series;
}

// Hurwitz zeta(s, q) = sum_k (q + k)^-s by Euler-Maclaurin summation (as in Cephes): nine
// terms or up to q + k > 9 directly, then the integral, half the last term and Bernoulli
// corrections (A[i] = (2i + 2)! / B_{2i+2}).
double zeta(double s, double q) {
  static const double A[] = {12.0, -720.0, 30240.0, -1209600.0, 47900160.0,
                             -1.8924375803183791606e9, 7.47242496e10, -2.950130727918164224e12,
                             1.1646782814350067249e14, -4.5979787224074726105e15,
                             1.8152105401943546773e17, -7.1661652561756670113e18};
  constexpr double eps = 1.11022302462515654042e-16;
  if (s == 1) return kInf;
  if (s < 1) return kNaN;
  if (q <= 0) {
    if (q == std::floor(q)) return kInf;
    if (s != std::floor(s)) return kNaN;  // q^-s is not real
  }
  double sum = std::pow(q, -s), a = q, b = 0;
  int i = 0;
  while (i < 9 || a <= 9) {
    ++i;
    a += 1;
    b = std::pow(a, -s);
    sum += b;
    if (std::abs(b / sum) < eps) return sum;
  }
  const double w = a;
  sum += b * w / (s - 1) - 0.5 * b;
  double fact = 1, k = 0;
  for (double d : A) {
    fact *= s + k;
    b /= w;
    const double t = fact * b / d;
    sum += t;
    if (std::abs(t / sum) < eps) break;
    k += 1;
    fact *= s + k;
    b /= w;
    k += 1;
  }
  return sum;
}

// polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 1.
double polygamma(int64_t n, double x) {
  if (n == 0) return digamma(x);
  const double sign = n % 2 ? 1.0 : -1.0;
  return sign * std::exp(std::lgamma(static_cast<double>(n) + 1)) * zeta(static_cast<double>(n) + 1, x);
}

// Modified Bessel function of the first kind, order 0: the power series sum (x^2/4)^k / k!^2
// (all terms positive) up to |x| = 30, the asymptotic expansion
// e^x / sqrt(2 pi x) sum ((2k-1)!!)^2 / (k! (8x)^k) beyond.
double i0(double x) {
  x = std::abs(x);
  if (x <= 30) {
    const double q = x * x / 4;
    double term = 1, sum = 1;
    for (int k = 1; k < 200; ++k) {
      term *= q / (static_cast<double>(k) * k);
      sum += term;
      if (term < sum * 1e-17) break;
    }
    return sum;
  }
  if (std::isinf(x) || x != x) return x;
  const double z = 8 * x;
  double term = 1, sum = 1;
  for (int k = 1; k < 60; ++k) {
    const double next = term * (2.0 * k - 1) * (2.0 * k - 1) / (k * z);
    if (next >= term) break;  // the asymptotic series starts diverging
    term = next;
    sum += term;
    if (term < sum * 1e-17) break;
  }
  return std::exp(x) / std::sqrt(2 * kPi * x) * sum;
}

// Order 1, odd: sign(x) times the power series sum (|x|/2)^(2k+1) / (k! (k+1)!) up to
// |x| = 30, beyond it e^|x| / sqrt(2 pi |x|) sum_k prod_{j<=k} ((2j-1)^2 - 4) / (j 8|x|).
double i1(double x) {
  const double a = std::abs(x);
  double r;
  if (a <= 30) {
    const double q = a * a / 4;
    double term = a / 2, sum = term;
    for (int k = 1; k < 200; ++k) {
      term *= q / (static_cast<double>(k) * (k + 1));
      sum += term;
      if (term <= sum * 1e-17) break;
    }
    r = sum;
  } else if (std::isinf(a) || a != a) {
    r = a;
  } else {
    const double z = 8 * a;
    double term = 1, sum = 1;
    for (int k = 1; k < 60; ++k) {
      const double odd = 2.0 * k - 1;
      const double next = term * (odd * odd - 4) / (k * z);
      if (std::abs(next) >= std::abs(term)) break;  // the asymptotic series starts diverging
      term = next;
      sum += term;
      if (std::abs(term) < sum * 1e-17) break;
    }
    r = std::exp(a) / std::sqrt(2 * kPi * a) * sum;
  }
  return x < 0 ? -r : r;
}

template <typename T>
void special_typed(const ElementwiseIter& it, UnaryOp op, const UnaryParams& p) {
  if constexpr (std::is_integral_v<T> || is_complex_v<T>) {
    EMBER_FAIL(RuntimeError, "\"", unary_op_name(op), "\" not implemented for '", scalar_type_of<T>, "'");
  } else {
    using M = opmath_t<T>;
    auto run = [&](auto f) { apply<T>(it, [f](M x) { return static_cast<M>(f(static_cast<double>(x))); }, NoVec{}, kMathGrain); };
    switch (op) {
      case UnaryOp::Erfinv: return run(erfinv);
      case UnaryOp::Digamma: return run(digamma);
      case UnaryOp::I0: return run(i0);
      case UnaryOp::I1: return run(i1);
      case UnaryOp::Polygamma: {
        const int64_t n = p.n;
        return run([n](double x) { return polygamma(n, x); });
      }
      default:
        EMBER_FAIL(RuntimeError, "\"", unary_op_name(op), "\" not implemented for '", scalar_type_of<T>, "'");
    }
  }
}

}  // namespace

void unary_special(const ElementwiseIter& it, UnaryOp op, const UnaryParams& p) {
  const ScalarType dt = it.compute_dtype();
#if !EMBER_ISA_DEFAULT
  if (dt == kBFloat16) return special_typed<BFloat16>(it, op, p);
  if (dt == kHalf) return special_typed<Half>(it, op, p);
#endif
  EMBER_DISPATCH_KERNEL(dt, "unary", unary_special(it, op, p), [&] { special_typed<scalar_t>(it, op, p); });
}

}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
