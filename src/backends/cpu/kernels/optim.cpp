// Fused optimizer updates: each element's whole update (gradient transforms, state, step) in
// one pass, over the elements of all the list's tensors together. Work is cut into chunks of
// one tensor each, spread statically over the threads. Options that change the loop's shape
// are template parameters, so that every inner loop is straight-line code that vectorizes;
// maximize is a sign (exact), AdamW's decay a factor that is 1 for Adam (exact).
//
// The formulas follow torch.optim's single-tensor updates operation by operation (the same
// products and sums in the same order, scalars in the compute type), so results agree with
// PyTorch's to rounding; 16-bit types compute in float.
#include <omp.h>

#include <cmath>
#include <vector>

#include "backends/cpu/loops.h"
#include "backends/cpu/optim_stubs.h"
#include "core/convert.h"
#include "core/dtype_dispatch.h"

namespace ember::cpu {
namespace isa_Default {
void optim_kernel(const OptimArgs& a);
}
namespace EMBER_ISA_NAMESPACE {
namespace {

// NaN-propagating maximum (torch.maximum, amax).
template <typename C>
inline C nan_max(C a, C b) { return (a > b || a != a) ? a : b; }

template <typename T>
struct Ptrs {
  T* __restrict p;
  const T* __restrict g;
  T* __restrict s0;
  T* __restrict s1;
  T* __restrict s2;
};

template <typename T>
Ptrs<T> ptrs(const OptimTensor& t) {
  return {reinterpret_cast<T*>(t.param), reinterpret_cast<const T*>(t.grad), reinterpret_cast<T*>(t.state[0]),
          reinterpret_cast<T*>(t.state[1]), reinterpret_cast<T*>(t.state[2])};
}

// Each update: elements [b, e) of tensor t. C is the compute type.
template <typename T, typename C, bool WD, bool Mom, bool Nest, bool Fresh>
void sgd_range(const OptimArgs& a, const OptimTensor& t, int64_t b, int64_t e) {
  Ptrs<T> x = ptrs<T>(t);
  const C sign = (a.flags & kOptimMaximize) ? C(-1) : C(1);
  const C neg_lr = static_cast<C>(-a.hyper[0]), mom = static_cast<C>(a.hyper[1]);
  const C damp = static_cast<C>(1.0 - a.hyper[2]), wd = static_cast<C>(a.hyper[7]);
  for (int64_t i = b; i < e; ++i) {
    const C p = static_cast<C>(x.p[i]);
    C d = sign * static_cast<C>(x.g[i]);
    if constexpr (WD) d = d + wd * p;
    if constexpr (Mom) {
      C buf;
      if constexpr (Fresh) buf = d;
      else buf = static_cast<C>(x.s0[i]) * mom + damp * d;
      x.s0[i] = static_cast<T>(buf);
      if constexpr (Nest) d = d + mom * static_cast<C>(static_cast<T>(buf));
      else d = static_cast<C>(static_cast<T>(buf));
    }
    x.p[i] = static_cast<T>(p + neg_lr * d);
  }
}

template <typename T, typename C, bool WD, bool Ams>
void adam_range(const OptimArgs& a, const OptimTensor& t, int64_t b, int64_t e) {
  Ptrs<T> x = ptrs<T>(t);
  const C sign = (a.flags & kOptimMaximize) ? C(-1) : C(1);
  const double lr = a.hyper[0], wd_d = a.hyper[7];
  const C b1 = static_cast<C>(a.hyper[1]), b2 = static_cast<C>(a.hyper[2]), eps = static_cast<C>(a.hyper[3]);
  const C omb1 = static_cast<C>(1.0 - a.hyper[1]), omb2 = static_cast<C>(1.0 - a.hyper[2]);
  const C wd = static_cast<C>(wd_d);
  const C decay = static_cast<C>((a.flags & kOptimDecoupled) ? 1.0 - lr * wd_d : 1.0);
  const C neg_step = static_cast<C>(t.coef[0]), bc2_sqrt = static_cast<C>(t.coef[1]);
  for (int64_t i = b; i < e; ++i) {
    C p = static_cast<C>(x.p[i]) * decay;
    C g = sign * static_cast<C>(x.g[i]);
    if constexpr (WD) g = g + wd * p;
    const C m = static_cast<C>(x.s0[i]) * b1 + omb1 * g;
    C v = static_cast<C>(x.s1[i]) * b2 + omb2 * g * g;
    x.s0[i] = static_cast<T>(m);
    x.s1[i] = static_cast<T>(v);
    if constexpr (Ams) {
      v = nan_max(static_cast<C>(x.s2[i]), static_cast<C>(static_cast<T>(v)));
      x.s2[i] = static_cast<T>(v);
    }
    const C denom = std::sqrt(static_cast<C>(static_cast<T>(v))) / bc2_sqrt + eps;
    x.p[i] = static_cast<T>(p + neg_step * static_cast<C>(static_cast<T>(m)) / denom);
  }
}

template <typename T, typename C, bool WD>
void adagrad_range(const OptimArgs& a, const OptimTensor& t, int64_t b, int64_t e) {
  Ptrs<T> x = ptrs<T>(t);
  const C sign = (a.flags & kOptimMaximize) ? C(-1) : C(1);
  const C eps = static_cast<C>(a.hyper[0]), wd = static_cast<C>(a.hyper[7]), neg_clr = static_cast<C>(t.coef[0]);
  for (int64_t i = b; i < e; ++i) {
    const C p = static_cast<C>(x.p[i]);
    C g = sign * static_cast<C>(x.g[i]);
    if constexpr (WD) g = g + wd * p;
    const T sum = static_cast<T>(static_cast<C>(x.s0[i]) + g * g);
    x.s0[i] = sum;
    const C std_ = std::sqrt(static_cast<C>(sum)) + eps;
    x.p[i] = static_cast<T>(p + neg_clr * g / std_);
  }
}

template <typename T, typename C, bool WD, bool Centered, bool Mom>
void rmsprop_range(const OptimArgs& a, const OptimTensor& t, int64_t b, int64_t e) {
  Ptrs<T> x = ptrs<T>(t);
  const C sign = (a.flags & kOptimMaximize) ? C(-1) : C(1);
  const C neg_lr = static_cast<C>(-a.hyper[0]), alpha = static_cast<C>(a.hyper[1]);
  const C oma = static_cast<C>(1.0 - a.hyper[1]), eps = static_cast<C>(a.hyper[2]);
  const C mom = static_cast<C>(a.hyper[3]), wd = static_cast<C>(a.hyper[7]);
  for (int64_t i = b; i < e; ++i) {
    const C p = static_cast<C>(x.p[i]);
    C g = sign * static_cast<C>(x.g[i]);
    if constexpr (WD) g = g + wd * p;
    const C sq = static_cast<C>(static_cast<T>(static_cast<C>(x.s0[i]) * alpha + oma * g * g));
    x.s0[i] = static_cast<T>(sq);
    C avg;
    if constexpr (Centered) {
      const C ga = static_cast<C>(static_cast<T>(static_cast<C>(x.s1[i]) * alpha + oma * g));
      x.s1[i] = static_cast<T>(ga);
      avg = std::sqrt(static_cast<C>(static_cast<T>(sq + C(-1) * ga * ga)));
    } else {
      avg = std::sqrt(sq);
    }
    avg = static_cast<C>(static_cast<T>(avg)) + eps;
    if constexpr (Mom) {
      const C buf = static_cast<C>(static_cast<T>(static_cast<C>(x.s2[i]) * mom + g / avg));
      x.s2[i] = static_cast<T>(buf);
      x.p[i] = static_cast<T>(p + neg_lr * buf);
    } else {
      x.p[i] = static_cast<T>(p + neg_lr * g / avg);
    }
  }
}

template <typename T, typename C, bool WD>
void adadelta_range(const OptimArgs& a, const OptimTensor& t, int64_t b, int64_t e) {
  Ptrs<T> x = ptrs<T>(t);
  const C sign = (a.flags & kOptimMaximize) ? C(-1) : C(1);
  const C neg_lr = static_cast<C>(-a.hyper[0]), rho = static_cast<C>(a.hyper[1]);
  const C omr = static_cast<C>(1.0 - a.hyper[1]), eps = static_cast<C>(a.hyper[2]), wd = static_cast<C>(a.hyper[7]);
  for (int64_t i = b; i < e; ++i) {
    const C p = static_cast<C>(x.p[i]);
    C g = sign * static_cast<C>(x.g[i]);
    if constexpr (WD) g = g + wd * p;
    const C sq = static_cast<C>(static_cast<T>(static_cast<C>(x.s0[i]) * rho + omr * g * g));
    x.s0[i] = static_cast<T>(sq);
    const C std_ = std::sqrt(sq + eps);
    const C acc = static_cast<C>(x.s1[i]);
    const C delta = static_cast<C>(static_cast<T>(std::sqrt(acc + eps) / std_ * g));
    x.s1[i] = static_cast<T>(acc * rho + omr * delta * delta);
    x.p[i] = static_cast<T>(p + neg_lr * delta);
  }
}

template <typename T, typename C, bool WD>
void adamax_range(const OptimArgs& a, const OptimTensor& t, int64_t b, int64_t e) {
  Ptrs<T> x = ptrs<T>(t);
  const C sign = (a.flags & kOptimMaximize) ? C(-1) : C(1);
  const C b1 = static_cast<C>(a.hyper[0]), omb1 = static_cast<C>(1.0 - a.hyper[0]);
  const C b2 = static_cast<C>(a.hyper[1]), eps = static_cast<C>(a.hyper[2]), wd = static_cast<C>(a.hyper[7]);
  const C neg_clr = static_cast<C>(t.coef[0]);
  for (int64_t i = b; i < e; ++i) {
    const C p = static_cast<C>(x.p[i]);
    C g = sign * static_cast<C>(x.g[i]);
    if constexpr (WD) g = g + wd * p;
    const C m = static_cast<C>(static_cast<T>(static_cast<C>(x.s0[i]) * b1 + omb1 * g));
    x.s0[i] = static_cast<T>(m);
    const C u = nan_max(static_cast<C>(static_cast<T>(static_cast<C>(x.s1[i]) * b2)),
                        static_cast<C>(static_cast<T>(std::abs(g) + eps)));
    x.s1[i] = static_cast<T>(u);
    x.p[i] = static_cast<T>(p + neg_clr * m / u);
  }
}

template <typename T, typename C, bool WD>
void nadam_range(const OptimArgs& a, const OptimTensor& t, int64_t b, int64_t e) {
  Ptrs<T> x = ptrs<T>(t);
  const C b1 = static_cast<C>(a.hyper[0]), omb1 = static_cast<C>(1.0 - a.hyper[0]);
  const C b2 = static_cast<C>(a.hyper[1]), omb2 = static_cast<C>(1.0 - a.hyper[1]);
  const C eps = static_cast<C>(a.hyper[2]), wd = static_cast<C>(a.hyper[7]);
  const C bc2 = static_cast<C>(t.coef[0]), cg = static_cast<C>(t.coef[1]), cm = static_cast<C>(t.coef[2]);
  for (int64_t i = b; i < e; ++i) {
    const C p = static_cast<C>(x.p[i]);
    C g = static_cast<C>(x.g[i]);
    if constexpr (WD) g = g + wd * p;
    const C m = static_cast<C>(static_cast<T>(static_cast<C>(x.s0[i]) * b1 + omb1 * g));
    const C v = static_cast<C>(static_cast<T>(static_cast<C>(x.s1[i]) * b2 + omb2 * g * g));
    x.s0[i] = static_cast<T>(m);
    x.s1[i] = static_cast<T>(v);
    const C denom = static_cast<C>(static_cast<T>(std::sqrt(static_cast<C>(static_cast<T>(v / bc2))))) + eps;
    const C p1 = static_cast<C>(static_cast<T>(p + cg * g / denom));
    x.p[i] = static_cast<T>(p1 + cm * m / denom);
  }
}

template <typename T, typename C, bool WD, bool Rect>
void radam_range(const OptimArgs& a, const OptimTensor& t, int64_t b, int64_t e) {
  Ptrs<T> x = ptrs<T>(t);
  const C lr = static_cast<C>(a.hyper[0]), b1 = static_cast<C>(a.hyper[1]), omb1 = static_cast<C>(1.0 - a.hyper[1]);
  const C b2 = static_cast<C>(a.hyper[2]), omb2 = static_cast<C>(1.0 - a.hyper[2]);
  const C eps = static_cast<C>(a.hyper[3]), wd = static_cast<C>(a.hyper[7]);
  const C bc1 = static_cast<C>(t.coef[0]), bc2_sqrt = static_cast<C>(t.coef[1]), rect = static_cast<C>(t.coef[2]);
  for (int64_t i = b; i < e; ++i) {
    const C p = static_cast<C>(x.p[i]);
    C g = static_cast<C>(x.g[i]);
    if constexpr (WD) g = g + wd * p;
    const C m = static_cast<C>(static_cast<T>(static_cast<C>(x.s0[i]) * b1 + omb1 * g));
    const C v = static_cast<C>(static_cast<T>(static_cast<C>(x.s1[i]) * b2 + omb2 * g * g));
    x.s0[i] = static_cast<T>(m);
    x.s1[i] = static_cast<T>(v);
    const C bcm = static_cast<C>(static_cast<T>(m / bc1));
    if constexpr (Rect) {
      // torch's float / tensor is reciprocal(tensor) * float.
      const C den = static_cast<C>(static_cast<T>(std::sqrt(v) + eps));
      const C adaptive = static_cast<C>(static_cast<T>(C(1) / den)) * bc2_sqrt;
      const C upd = static_cast<C>(static_cast<T>(static_cast<C>(static_cast<T>(bcm * lr)) * adaptive));
      x.p[i] = static_cast<T>(p + C(-1) * static_cast<C>(static_cast<T>(upd * rect)));
    } else {
      x.p[i] = static_cast<T>(p + C(-1) * static_cast<C>(static_cast<T>(bcm * lr)));
    }
  }
}

using RangeFn = void (*)(const OptimArgs&, const OptimTensor&, int64_t, int64_t);

// The loop for this call's options; per-tensor variants (SGD's fresh buffers, RAdam's
// rectification) pick between two.
template <typename T>
void select_ranges(const OptimArgs& a, RangeFn& plain, RangeFn& alt) {
  using C = opmath_t<T>;
  const bool wd = a.flags & kOptimWeightDecay;
  auto pick2 = [&](RangeFn with, RangeFn without) { return wd ? with : without; };
  switch (a.kind) {
    case OptimKind::SGD:
      if (!(a.flags & kOptimMomentum)) {
        plain = alt = pick2(&sgd_range<T, C, true, false, false, false>, &sgd_range<T, C, false, false, false, false>);
      } else if (a.flags & kOptimNesterov) {
        plain = pick2(&sgd_range<T, C, true, true, true, false>, &sgd_range<T, C, false, true, true, false>);
        alt = pick2(&sgd_range<T, C, true, true, true, true>, &sgd_range<T, C, false, true, true, true>);
      } else {
        plain = pick2(&sgd_range<T, C, true, true, false, false>, &sgd_range<T, C, false, true, false, false>);
        alt = pick2(&sgd_range<T, C, true, true, false, true>, &sgd_range<T, C, false, true, false, true>);
      }
      return;
    case OptimKind::Adam:
      plain = alt = (a.flags & kOptimAmsgrad) ? pick2(&adam_range<T, C, true, true>, &adam_range<T, C, false, true>)
                                              : pick2(&adam_range<T, C, true, false>, &adam_range<T, C, false, false>);
      return;
    case OptimKind::Adagrad:
      plain = alt = pick2(&adagrad_range<T, C, true>, &adagrad_range<T, C, false>);
      return;
    case OptimKind::RMSprop: {
      const bool c = a.flags & kOptimCentered, m = a.flags & kOptimMomentum;
      if (c && m) plain = pick2(&rmsprop_range<T, C, true, true, true>, &rmsprop_range<T, C, false, true, true>);
      else if (c) plain = pick2(&rmsprop_range<T, C, true, true, false>, &rmsprop_range<T, C, false, true, false>);
      else if (m) plain = pick2(&rmsprop_range<T, C, true, false, true>, &rmsprop_range<T, C, false, false, true>);
      else plain = pick2(&rmsprop_range<T, C, true, false, false>, &rmsprop_range<T, C, false, false, false>);
      alt = plain;
      return;
    }
    case OptimKind::Adadelta:
      plain = alt = pick2(&adadelta_range<T, C, true>, &adadelta_range<T, C, false>);
      return;
    case OptimKind::Adamax:
      plain = alt = pick2(&adamax_range<T, C, true>, &adamax_range<T, C, false>);
      return;
    case OptimKind::NAdam:
      plain = alt = pick2(&nadam_range<T, C, true>, &nadam_range<T, C, false>);
      return;
    case OptimKind::RAdam:
      plain = pick2(&radam_range<T, C, true, true>, &radam_range<T, C, false, true>);
      alt = pick2(&radam_range<T, C, true, false>, &radam_range<T, C, false, false>);
      return;
  }
}

// Whether tensor t takes the alternative loop.
bool takes_alt(const OptimArgs& a, const OptimTensor& t) {
  if (a.kind == OptimKind::SGD) return t.coef[0] != 0;
  if (a.kind == OptimKind::RAdam) return t.coef[2] == 0;
  return false;
}

constexpr int64_t kOptimChunk = 16384;

template <typename T>
void optim_typed(const OptimArgs& a) {
  RangeFn plain = nullptr, alt = nullptr;
  select_ranges<T>(a, plain, alt);
  int64_t total = 0;
  for (int64_t k = 0; k < a.ntensors; ++k) total += a.tensors[k].numel;
  const int nt = threads_for(total);
  if (nt <= 1) {
    for (int64_t k = 0; k < a.ntensors; ++k) {
      const OptimTensor& t = a.tensors[k];
      (takes_alt(a, t) ? alt : plain)(a, t, 0, t.numel);
    }
    return;
  }
  struct Chunk {
    int64_t tensor, begin, end;
  };
  std::vector<Chunk> chunks;
  chunks.reserve(static_cast<size_t>(total / kOptimChunk + a.ntensors));
  for (int64_t k = 0; k < a.ntensors; ++k)
    for (int64_t b = 0; b < a.tensors[k].numel; b += kOptimChunk)
      chunks.push_back({k, b, std::min(a.tensors[k].numel, b + kOptimChunk)});
  const int64_t nchunks = static_cast<int64_t>(chunks.size());
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t c = 0; c < nchunks; ++c) {
    const OptimTensor& t = a.tensors[chunks[c].tensor];
    (takes_alt(a, t) ? alt : plain)(a, t, chunks[c].begin, chunks[c].end);
  }
}

}  // namespace

void optim_kernel(const OptimArgs& a) {
#if EMBER_ISA_DEFAULT
  switch (a.dtype) {
    case kFloat: return optim_typed<float>(a);
    case kDouble: return optim_typed<double>(a);
    case kHalf: return optim_typed<Half>(a);
    case kBFloat16: return optim_typed<BFloat16>(a);
    default: EMBER_FAIL(RuntimeError, "fused optimizer step not implemented for '", a.dtype, "'");
  }
#else
  switch (a.dtype) {
    case kFloat: return optim_typed<float>(a);
    case kDouble: return optim_typed<double>(a);
    default: return isa_Default::optim_kernel(a);
  }
#endif
}
EMBER_REGISTER_STUB(optim_stub, &optim_kernel);

}  // namespace EMBER_ISA_NAMESPACE
}  // namespace ember::cpu
