// Cumulative ops along one dim: cumsum, cumprod, cummax/cummin (with indices), logcumsumexp.
//
// Sums and products accumulate in PyTorch's CPU accumulation type (double for float, float
// for the 16-bit floats, complex128 for complex64, int64 for integers), rounding each output
// from the running value, so long scans do not drift. cummax/cummin take the latest of equal
// elements and every NaN (as PyTorch does). logcumsumexp adds in log space:
// log(exp(a) + exp(b)) = max + log1p(exp(min - max)).
// Layouts: when the scanned dim is not the innermost but another dim is contiguous, a group of
// adjacent lines is scanned row by row (vectorized across the lines); otherwise line by line.
// Threads split the lines.
#include <cmath>
#include <complex>
#include <limits>

#include "backends/cpu/kernels/basic_loops.h"
#include "backends/cpu/kernels/reduce_walk.h"
#include "backends/cpu/reduce_stubs.h"
#include "core/dtype_dispatch.h"

namespace ember::cpu {
namespace isa_Default {
void scan_kernel(const ScanLoop& loop, ScanOp op);
}
namespace EMBER_ISA_NAMESPACE {
namespace {

template <typename T> struct ScanAcc { using type = T; };
template <> struct ScanAcc<float> { using type = double; };
template <> struct ScanAcc<Half> { using type = float; };
template <> struct ScanAcc<BFloat16> { using type = float; };
template <> struct ScanAcc<complex64> { using type = complex128; };

template <typename In, typename Acc, typename Out, bool IsProd>
struct SumScan {
  using in_t = In;
  using acc_t = Acc;
  using out_t = Out;
  static constexpr bool kIndices = false;
  static Acc identity() { return Acc(IsProd ? 1 : 0); }
  static Acc step(Acc a, In x) {
    const Acc v = convert<Acc>(x);
    if constexpr (std::is_same_v<Acc, int64_t>) {
      // Wraps like PyTorch, without signed overflow.
      return IsProd ? static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(v))
                    : static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(v));
    } else if constexpr (std::is_same_v<Acc, bool>) {
      return IsProd ? (a && v) : (a || v);
    } else {
      return IsProd ? a * v : a + v;
    }
  }
  static Out out(Acc a) { return convert<Out>(a); }
};

template <typename T>
struct LogSumExpScan {
  using in_t = T;
  using acc_t = std::conditional_t<std::is_same_v<T, double>, double, std::conditional_t<std::is_same_v<T, float>, double, float>>;
  using Acc = acc_t;
  using out_t = T;
  static constexpr bool kIndices = false;
  static Acc identity() { return -std::numeric_limits<Acc>::infinity(); }
  static Acc step(Acc a, T xin) {
    const Acc x = static_cast<Acc>(static_cast<opmath_t<T>>(xin));
    if (a != a || x != x) return std::numeric_limits<Acc>::quiet_NaN();
    const Acc lo = std::min(a, x), hi = std::max(a, x);
    if (lo == hi && !std::isfinite(lo)) return hi;  // both inf of the same sign
    return hi + std::log1p(std::exp(lo - hi));
  }
  static T out(Acc a) { return static_cast<T>(static_cast<opmath_t<T>>(a)); }
};

// cummax (IsMax) / cummin: the running extreme and the index where it was last taken.
template <typename T, bool IsMax>
struct ExtremeScan {
  using M = opmath_t<T>;
  static bool take(M x, M cur) {
    if constexpr (std::is_floating_point_v<M>) {
      if (x != x) return true;
      if (cur != cur) return false;
    }
    return IsMax ? x >= cur : x <= cur;
  }
};

template <class Op>
void run_scan(const ScanLoop& L) {
  using In = typename Op::in_t;
  using Acc = typename Op::acc_t;
  using Out = typename Op::out_t;
  const int64_t n = L.size;
  const bool rows = L.nouter > 0 && L.outer_in[0] == static_cast<int64_t>(sizeof(In)) &&
                    L.outer_out[0] == static_cast<int64_t>(sizeof(Out)) && L.in_step != L.outer_in[0];
  if (rows) {
    // Groups of up to G adjacent lines along the contiguous outer dim 0.
    constexpr int64_t G = 512;
    const int64_t K = L.outer_size[0];
    const int64_t groups = (K + G - 1) / G;
    const int64_t units = L.nlines / K * groups;
    parallel_range(units, n * G, [&](int64_t b, int64_t e) {
      Acc acc[G];
      for (int64_t u = b; u < e; ++u) {
        const int64_t g = u % groups;
        Walker w(L.nouter - 1, L.outer_size + 1, L.outer_in + 1, u / groups);
        Walker wo(L.nouter - 1, L.outer_size + 1, L.outer_out + 1, u / groups);
        const int64_t k0 = g * G, kn = std::min(G, K - k0);
        const In* in = reinterpret_cast<const In*>(L.in + w.offset) + k0;
        Out* out = reinterpret_cast<Out*>(L.out + wo.offset) + k0;
        for (int64_t k = 0; k < kn; ++k) acc[k] = Op::identity();
        for (int64_t i = 0; i < n; ++i) {
          const In* __restrict x = reinterpret_cast<const In*>(reinterpret_cast<const char*>(in) + i * L.in_step);
          Out* __restrict o = reinterpret_cast<Out*>(reinterpret_cast<char*>(out) + i * L.out_step);
          for (int64_t k = 0; k < kn; ++k) {
            acc[k] = Op::step(acc[k], x[k]);
            o[k] = Op::out(acc[k]);
          }
        }
      }
    });
    return;
  }
  parallel_range(L.nlines, n, [&](int64_t b, int64_t e) {
    Walker w(L.nouter, L.outer_size, L.outer_in, b);
    Walker wo(L.nouter, L.outer_size, L.outer_out, b);
    for (int64_t l = b; l < e; ++l, w.next(), wo.next()) {
      const char* x = L.in + w.offset;
      char* o = L.out + wo.offset;
      Acc a = Op::identity();
      for (int64_t i = 0; i < n; ++i) {
        a = Op::step(a, load<In>(x + i * L.in_step));
        *reinterpret_cast<Out*>(o + i * L.out_step) = Op::out(a);
      }
    }
  });
}

template <typename T, bool IsMax>
void run_extreme_scan(const ScanLoop& L) {
  using M = opmath_t<T>;
  const int64_t n = L.size;
  parallel_range(L.nlines, n, [&](int64_t b, int64_t e) {
    Walker w(L.nouter, L.outer_size, L.outer_in, b);
    Walker wo(L.nouter, L.outer_size, L.outer_out, b);
    Walker wi(L.nouter, L.outer_size, L.outer_idx, b);
    for (int64_t l = b; l < e; ++l, w.next(), wo.next(), wi.next()) {
      const char* x = L.in + w.offset;
      char* o = L.out + wo.offset;
      char* ix = L.indices + wi.offset;
      M cur = static_cast<M>(load<T>(x));
      int64_t at = 0;
      for (int64_t i = 0; i < n; ++i) {
        const M v = static_cast<M>(load<T>(x + i * L.in_step));
        if (ExtremeScan<T, IsMax>::take(v, cur)) {
          cur = v;
          at = i;
        }
        *reinterpret_cast<T*>(o + i * L.out_step) = static_cast<T>(cur);
        *reinterpret_cast<int64_t*>(ix + i * L.idx_step) = at;
      }
    }
  });
}

template <typename T>
void scan_typed(const ScanLoop& L, ScanOp op) {
  using Acc = typename ScanAcc<T>::type;
  switch (op) {
    case ScanOp::Sum:
    case ScanOp::Prod: {
      const bool prod = op == ScanOp::Prod;
      if (L.out_dtype == L.in_dtype) {
        if (prod) return run_scan<SumScan<T, Acc, T, true>>(L);
        return run_scan<SumScan<T, Acc, T, false>>(L);
      }
      if constexpr (std::is_integral_v<T>) {
        EMBER_INTERNAL_ASSERT(L.out_dtype == kInt64, "cumsum from ", L.in_dtype, " to ", L.out_dtype);
        if (prod) return run_scan<SumScan<T, int64_t, int64_t, true>>(L);
        return run_scan<SumScan<T, int64_t, int64_t, false>>(L);
      }
      EMBER_FAIL(RuntimeError, "cumsum: no kernel from ", L.in_dtype, " to ", L.out_dtype);
    }
    case ScanOp::Max:
    case ScanOp::Min:
      if constexpr (is_complex_v<T>) {
        EMBER_FAIL(RuntimeError, "cummax/cummin: complex inputs are not supported");
      } else {
        if (op == ScanOp::Max) return run_extreme_scan<T, true>(L);
        return run_extreme_scan<T, false>(L);
      }
    case ScanOp::LogSumExp:
      if constexpr (std::is_floating_point_v<opmath_t<T>>) {
        return run_scan<LogSumExpScan<T>>(L);
      } else {
        EMBER_FAIL(RuntimeError, "logcumsumexp: no kernel for ", L.in_dtype);
      }
  }
}

}  // namespace

void scan_kernel(const ScanLoop& loop, ScanOp op) {
  EMBER_DISPATCH_KERNEL(loop.in_dtype, "cumsum", scan_kernel(loop, op), [&] { scan_typed<scalar_t>(loop, op); });
}

EMBER_REGISTER_STUB(scan_stub, &scan_kernel);

}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
