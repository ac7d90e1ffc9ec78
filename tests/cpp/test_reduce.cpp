// Reductions: sum, mean, max, min against naive loops in double, over dtypes, dim lists,
// keepdim, layouts (transposed, sliced, expanded), zero-size and 0-dim inputs, out= forms,
// errors, Meta outputs, thread-count independence and the Default-ISA kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <vector>

#include "backends/cpu/stubs.h"
#include "ember/ops.h"
#include "ember/parallel.h"
#include "ops/reduce.h"
#include "test_util.h"

using namespace ember;
using ember::testing::values;
using ember::testing::as_double;
using ember::testing::Restore;
using ember::testing::uniform;

namespace {

// Naive reduction over the dims in `mask`, in double: results in row-major order of the
// kept dims. kind: 0 sum, 1 mean, 2 max, 3 min (NaN propagates).
std::vector<double> ref_reduce(const Tensor& t, DimMask mask, int kind) {
  std::vector<double> v = as_double(t);
  const int64_t nd = t.dim();
  DimVector kept_sizes;
  for (int64_t d = 0; d < nd; ++d)
    if (!(mask >> d & 1)) kept_sizes.push_back(t.sizes()[d]);
  const int64_t nout = compute_numel(kept_sizes);
  const int64_t count = nd == 0 ? 1 : t.numel() / std::max<int64_t>(nout, 1);
  std::vector<double> acc(static_cast<size_t>(nout), kind == 2 ? -INFINITY : kind == 3 ? INFINITY : 0.0);
  std::vector<int64_t> idx(static_cast<size_t>(nd), 0);
  for (int64_t i = 0; i < t.numel(); ++i) {
    int64_t o = 0;
    for (int64_t d = 0; d < nd; ++d)
      if (!(mask >> d & 1)) o = o * t.sizes()[d] + idx[d];
    double x = v[i];
    double& a = acc[o];
    if (kind <= 1) a += x;
    else if (std::isnan(x) || std::isnan(a)) a = NAN;
    else a = kind == 2 ? std::max(a, x) : std::min(a, x);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[d] < t.sizes()[d]) break;
      idx[d] = 0;
    }
  }
  if (kind == 1)
    for (auto& a : acc) a /= static_cast<double>(count);
  return acc;
}

DimMask mask_of(IntArrayRef dims, int64_t nd) { return reduce_mask("test", dims, nd); }

void expect_close(const std::vector<double>& got, const std::vector<double>& want, double rtol,
                  double atol, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " at " << i;
      continue;
    }
    EXPECT_NEAR(got[i], want[i], atol + rtol * std::abs(want[i])) << what << " at " << i;
  }
}

// Views of the same logical values in several memory layouts.
std::vector<std::pair<std::string, Tensor>> layouts(IntArrayRef shape, ScalarType dtype, unsigned seed = 3) {
  std::vector<std::pair<std::string, Tensor>> r;
  Tensor c = uniform(shape, dtype, -2, 2, seed);
  r.emplace_back("contiguous", c);
  if (c.dim() >= 2) {
    // Same values, stored transposed.
    Tensor t = c.transpose(0, c.dim() - 1).contiguous().transpose(0, c.dim() - 1);
    r.emplace_back("transposed", t);
  }
  // Every other element of a bigger tensor.
  DimVector big(shape);
  if (!big.empty()) big.back() *= 2;
  Tensor b = zeros(big, dtype);
  Tensor s = big.empty() ? b : b.slice(b.dim() - 1, 0, std::nullopt, 2);
  s.copy_(c);
  r.emplace_back("sliced", s);
  return r;
}

}  // namespace

// ---------------------------------------------------------------- sum and mean values
TEST(ReduceSum, FullFloatSizes) {
  for (int64_t n : {0, 1, 7, 63, 64, 65, 1000, 4097, 100003, 300001}) {
    Tensor x = uniform({n}, kFloat, -1, 1, static_cast<unsigned>(n));
    Tensor s = sum(x);
    EXPECT_EQ(s.dim(), 0);
    EXPECT_EQ(s.dtype(), kFloat);
    // Rounding error grows with the number of terms, not with the (small) sum: allow
    // 5e-10 per element, still ~100x below a plain float loop's error at n = 300001.
    expect_close(as_double(s), ref_reduce(x, 1, 0), 1e-6, 1e-5 + 5e-10 * static_cast<double>(n),
                 "n=" + std::to_string(n));
    Tensor m = mean(x);
    expect_close(as_double(m), ref_reduce(x, 1, 1), 1e-6, 1e-6, "mean n=" + std::to_string(n));
  }
}

TEST(ReduceSum, CascadeAccuracyOn16M) {
  // 2^24 values in [0, 1): a plain float loop is off by ~1e-3 relative; the cascade must stay
  // within a few float ulps of the exact sum.
  const int64_t n = int64_t(1) << 24;
  Tensor x = empty({n}, kFloat);
  float* p = x.data_ptr<float>();
  std::mt19937 gen(7);
  std::uniform_real_distribution<float> d(0.f, 1.f);
  double exact = 0;
  for (int64_t i = 0; i < n; ++i) { p[i] = d(gen); exact += p[i]; }
  double got = sum(x).item<double>();
  EXPECT_LT(std::abs(got - exact) / exact, 2e-7) << got << " vs " << exact;
  // Rows of the same data, reduced along the contiguous and the strided dim.
  Tensor rows = x.view({4, n / 4});
  std::vector<double> r = as_double(sum(rows, {1}));
  std::vector<double> want = ref_reduce(rows, 2, 0);
  for (int i = 0; i < 4; ++i) EXPECT_LT(std::abs(r[i] - want[i]) / want[i], 2e-7);
  Tensor cols = x.view({n / 8, 8});
  std::vector<double> c = as_double(sum(cols, {0}));
  std::vector<double> cw = ref_reduce(cols, 1, 0);
  for (int i = 0; i < 8; ++i) EXPECT_LT(std::abs(c[i] - cw[i]) / cw[i], 2e-7);
}

TEST(ReduceSum, DimsKeepdimAndLayouts) {
  const std::vector<std::vector<int64_t>> dim_lists = {{0}, {1}, {2}, {-1}, {0, 2}, {2, 0}, {1, 2}, {0, 1, 2}, {}};
  for (auto& [name, x] : layouts({5, 6, 7}, kDouble)) {
    for (const auto& dims : dim_lists) {
      for (bool keepdim : {false, true}) {
        const DimMask mask = mask_of(dims, 3);
        Tensor s = sum(x, dims, keepdim);
        EXPECT_EQ(s.sizes().vec(), reduce_shape(x.sizes(), mask, keepdim).vec());
        expect_close(as_double(s), ref_reduce(x, mask, 0), 1e-12, 1e-12, name + " sum");
        Tensor m = mean(x, dims, keepdim);
        expect_close(as_double(m), ref_reduce(x, mask, 1), 1e-12, 1e-12, name + " mean");
      }
    }
  }
}

TEST(ReduceSum, OuterAndInnerLayoutsLarge) {
  // Shapes that exercise tiles with a remainder, few tiles with many rows (chunked), many
  // short rows, and reductions mixing contiguous and strided dims.
  struct Case { std::vector<int64_t> shape; std::vector<int64_t> dims; };
  const std::vector<Case> cases = {
      {{1000, 70}, {0}},  {{20000, 3}, {0}},   {{3, 50000}, {1}}, {{50000, 3}, {1}},
      {{7, 300, 33}, {0, 1}}, {{7, 300, 33}, {0, 2}}, {{2, 70000}, {0}}, {{2, 70000}, {1}},
      {{129, 2, 257}, {0, 2}}};
  for (const auto& c : cases) {
    for (auto& [name, x] : layouts(c.shape, kFloat, 11)) {
      const DimMask mask = mask_of(c.dims, static_cast<int64_t>(c.shape.size()));
      expect_close(as_double(sum(x, c.dims)), ref_reduce(x, mask, 0), 1e-5, 1e-3, name + " float");
      Tensor xd = x.to(kDouble);
      expect_close(as_double(sum(xd, c.dims)), ref_reduce(xd, mask, 0), 1e-12, 1e-9, name + " double");
    }
  }
}

TEST(ReduceSum, ExpandedInput) {
  Tensor x = uniform({1, 5}, kFloat).expand({1000, 5});
  expect_close(as_double(sum(x, {0})), ref_reduce(x, 1, 0), 1e-6, 1e-4, "expanded dim 0");
  expect_close(as_double(sum(x, {1})), ref_reduce(x, 2, 0), 1e-6, 1e-5, "expanded dim 1");
  expect_close(as_double(sum(x)), ref_reduce(x, 3, 0), 1e-6, 1e-3, "expanded all");
}

TEST(ReduceSum, IntegerAndBoolAccumulateInInt64) {
  for (ScalarType dt : {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64}) {
    for (auto& [name, x] : layouts({6, 40}, dt, 5)) {
      Tensor s = sum(x);
      EXPECT_EQ(s.dtype(), kInt64) << dtype_name(dt);
      EXPECT_EQ(s.item<int64_t>(), static_cast<int64_t>(ref_reduce(x, 3, 0)[0])) << dtype_name(dt) << " " << name;
      Tensor r = sum(x, {0});
      EXPECT_EQ(r.dtype(), kInt64);
      std::vector<double> want = ref_reduce(x, 1, 0);
      std::vector<int64_t> got = values<int64_t>(r);
      for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], static_cast<int64_t>(want[i]));
    }
  }
  // Large values overflow int32 but not the int64 accumulator.
  Tensor big = full({4}, 2147483647, kInt32);
  EXPECT_EQ(sum(big).item<int64_t>(), 4 * int64_t(2147483647));
  // Bool counts.
  Tensor b = tensor({true, true, false, true, false}).view({5});
  EXPECT_EQ(sum(b).item<int64_t>(), 3);
}

TEST(ReduceSum, DtypeArgument) {
  // Explicit integer dtypes wrap like PyTorch.
  Tensor i8 = full({4}, 100, kInt8);
  Tensor s8 = sum(i8, kInt8);
  EXPECT_EQ(s8.dtype(), kInt8);
  EXPECT_EQ(s8.item<int64_t>(), -112);
  Tensor i32 = full({4}, 2147483647, kInt32);
  EXPECT_EQ(sum(i32, kInt32).item<int64_t>(), -4);
  // Float input summed in double; integers summed as float; bool dtype is "any".
  Tensor f = uniform({1000}, kFloat);
  Tensor sd = sum(f, kDouble);
  EXPECT_EQ(sd.dtype(), kDouble);
  EXPECT_NEAR(sd.item<double>(), ref_reduce(f, 1, 0)[0], 1e-9);
  Tensor si = sum(arange(10, kInt32), kFloat);
  EXPECT_EQ(si.dtype(), kFloat);
  EXPECT_EQ(si.item<double>(), 45.0);
  Tensor sb = sum(tensor({0, 0, 3}), kBool);
  EXPECT_EQ(sb.dtype(), kBool);
  EXPECT_TRUE(sb.item<bool>());
  EXPECT_FALSE(sum(zeros({3}, kInt32), kBool).item<bool>());
  // Complex to real keeps the real part.
  Tensor c = tensor({complex64(1, 5), complex64(2, -1)});
  Tensor cr = sum(c, kFloat);
  EXPECT_EQ(cr.dtype(), kFloat);
  EXPECT_EQ(cr.item<double>(), 3.0);
  // mean with a dtype of an integer input.
  Tensor mi = mean(arange(5), kFloat);
  EXPECT_EQ(mi.dtype(), kFloat);
  EXPECT_EQ(mi.item<double>(), 2.0);
  Tensor md = mean(f, std::vector<int64_t>{0}, false, kDouble);
  EXPECT_EQ(md.dtype(), kDouble);
}

TEST(ReduceSum, ReducedFloatsAndComplex) {
  for (ScalarType dt : {kHalf, kBFloat16}) {
    Tensor x = uniform({30, 50}, dt, 0, 1);
    Tensor s = sum(x, {1});
    EXPECT_EQ(s.dtype(), dt);
    expect_close(as_double(s), ref_reduce(x, 2, 0), dt == kHalf ? 2e-3 : 1e-2, 1e-2, "reduced sum");
    Tensor m = mean(x);
    EXPECT_EQ(m.dtype(), dt);
    expect_close(as_double(m), ref_reduce(x, 3, 1), dt == kHalf ? 2e-3 : 1e-2, 1e-3, "reduced mean");
  }
  // Half overflows to inf as PyTorch's does (the sum is rounded to half).
  EXPECT_TRUE(std::isinf(sum(full({100}, 10000.0, kHalf)).item<double>()));
  for (ScalarType dt : {kComplexFloat, kComplexDouble}) {
    Tensor re = uniform({40, 30}, kDouble, -1, 1, 1), im = uniform({40, 30}, kDouble, -1, 1, 2);
    std::vector<double> vr = values<double>(re), vi = values<double>(im);
    std::vector<complex128> v(vr.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = complex128(vr[i], vi[i]);
    Tensor x = tensor(v).view({40, 30}).to(dt);
    for (int dim : {0, 1}) {
      Tensor s = sum(x, {dim});
      EXPECT_EQ(s.dtype(), dt);
      Tensor m = mean(x.t(), {1 - dim});
      expect_close(as_double(s.real()), ref_reduce(re, DimMask(1) << dim, 0), 1e-5, 1e-5, "complex re");
      expect_close(as_double(s.imag()), ref_reduce(im, DimMask(1) << dim, 0), 1e-5, 1e-5, "complex im");
      expect_close(as_double(m.real()), ref_reduce(re, DimMask(1) << dim, 1), 1e-5, 1e-6, "complex mean re");
      expect_close(as_double(m.imag()), ref_reduce(im, DimMask(1) << dim, 1), 1e-5, 1e-6, "complex mean im");
    }
  }
}

TEST(ReduceSum, EmptyAndZeroDim) {
  EXPECT_EQ(sum(empty({0})).item<double>(), 0.0);
  EXPECT_TRUE(std::isnan(mean(empty({0})).item<double>()));
  Tensor z = empty({0, 3});
  Tensor s0 = sum(z, {0});
  EXPECT_EQ(s0.sizes().vec(), std::vector<int64_t>({3}));
  EXPECT_EQ(values<float>(s0), std::vector<float>(3, 0.f));
  Tensor m0 = mean(z, {0});
  for (float v : values<float>(m0)) EXPECT_TRUE(std::isnan(v));
  EXPECT_EQ(sum(z, {1}).sizes().vec(), std::vector<int64_t>({0}));
  EXPECT_EQ(sum(z, {1}, true).sizes().vec(), std::vector<int64_t>({0, 1}));
  EXPECT_EQ(sum(empty({0}, kInt32)).dtype(), kInt64);
  // 0-dim: dim 0 and -1 are accepted and reduce nothing.
  Tensor x = scalar_tensor(3.5);
  for (int64_t d : {0, -1}) {
    for (bool keepdim : {false, true}) {
      Tensor s = sum(x, {d}, keepdim);
      EXPECT_EQ(s.dim(), 0);
      EXPECT_EQ(s.item<double>(), 3.5);
    }
  }
  EXPECT_EQ(sum(x).item<double>(), 3.5);
  EXPECT_EQ(mean(x).item<double>(), 3.5);
  // An empty dim list reduces every dim (torch 1.13).
  Tensor y = arange(6, kFloat).view({2, 3});
  EXPECT_EQ(sum(y, std::vector<int64_t>{}).item<double>(), 15.0);
  EXPECT_EQ(sum(y, std::vector<int64_t>{}, true).sizes().vec(), std::vector<int64_t>({1, 1}));
  EXPECT_EQ(mean(y, std::vector<int64_t>{}).item<double>(), 2.5);
}

TEST(ReduceSum, Errors) {
  Tensor x = zeros({2, 3});
  EXPECT_THROW(sum(x, {2}), IndexError);
  EXPECT_THROW(sum(x, {-3}), IndexError);
  EXPECT_THROW(sum(x, {0, 0}), RuntimeError);
  EXPECT_THROW(sum(x, {0, -2}), RuntimeError);
  EXPECT_THROW(sum(scalar_tensor(1.0), {1}), IndexError);
  EXPECT_THROW(mean(zeros({3}, kInt64)), RuntimeError);
  EXPECT_THROW(mean(zeros({3}, kBool), {0}), RuntimeError);
  EXPECT_THROW(mean(zeros({3}), kInt64), RuntimeError);
  try {
    mean(zeros({3}, kInt64));
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("Input dtype must be either a floating point or complex"), std::string::npos);
  }
}

TEST(ReduceSum, OutVariants) {
  Tensor x = arange(6, kFloat).view({2, 3});
  // Without a dtype, sum's out= decides the dtype.
  Tensor o64 = empty({0}, kInt64);
  sum_out(o64, x, {0});
  EXPECT_EQ(values<int64_t>(o64), std::vector<int64_t>({3, 5, 7}));
  Tensor od = empty({7}, kDouble);  // wrong shape: resized
  Tensor& r = sum_out(od, x, {1}, true);
  EXPECT_TRUE(r.is_same(od));
  EXPECT_EQ(od.sizes().vec(), std::vector<int64_t>({2, 1}));
  EXPECT_EQ(values<double>(od), std::vector<double>({3, 12}));
  // With a dtype, out must match it.
  Tensor of = empty({3}, kFloat);
  EXPECT_THROW(sum_out(of, x, {0}, false, kDouble), RuntimeError);
  // Non-contiguous out.
  Tensor base = zeros({3, 2});
  Tensor col = base.select(1, 1);
  sum_out(col, x, {0});
  EXPECT_EQ(values<float>(base), std::vector<float>({0, 3, 0, 5, 0, 7}));
  // mean's out= may be wider, not narrower or integral.
  Tensor md = empty({0}, kDouble);
  mean_out(md, x, {0});
  EXPECT_EQ(values<double>(md), std::vector<double>({1.5, 2.5, 3.5}));
  Tensor mi = empty({0}, kInt64);
  EXPECT_THROW(mean_out(mi, x, {0}), RuntimeError);
  // out aliasing the input is computed through a temporary.
  Tensor y = arange(4, kFloat);
  Tensor alias = y.narrow(0, 0, 1).squeeze(0);
  sum_out(alias, y, {0});
  EXPECT_EQ(values<float>(y), std::vector<float>({6, 1, 2, 3}));
  // Methods forward to the functions.
  EXPECT_EQ(x.sum().item<double>(), 15.0);
  EXPECT_EQ(values<float>(x.sum({1})), std::vector<float>({3, 12}));
  EXPECT_EQ(x.mean().item<double>(), 2.5);
  EXPECT_EQ(values<float>(x.mean({0}, true)), std::vector<float>({1.5, 2.5, 3.5}));
}

TEST(ReduceSum, SameResultForAnyThreadCount) {
  Restore restore;
  struct Case { std::vector<int64_t> shape; std::vector<int64_t> dims; };
  const std::vector<Case> cases = {{{1 << 20}, {0}}, {{3, 200000}, {1}}, {{200000, 3}, {0}},
                                   {{512, 1024}, {1}}, {{512, 1024}, {0}}, {{100, 100, 50}, {0, 2}}};
  for (const auto& c : cases) {
    Tensor x = uniform(c.shape, kFloat, 0, 1, 21);
    set_num_threads(1);
    std::vector<float> one = values<float>(sum(x, c.dims));
    set_num_threads(2);
    std::vector<float> two = values<float>(sum(x, c.dims));
    set_num_threads(3);
    std::vector<float> three = values<float>(sum(x, c.dims));
    EXPECT_EQ(one, two);
    EXPECT_EQ(one, three);
  }
}

// The AVX-512 kernels read data that is not 64-byte aligned at half width (reduce.cpp); the
// lanes, and so the results, must be the same as for aligned data.
TEST(ReduceSum, SameResultAtAnyAlignment) {
  struct Case { std::vector<int64_t> shape; std::vector<int64_t> dims; };
  const std::vector<Case> cases = {{{300007}, {}}, {{64, 4096}, {1}}, {{5, 70000}, {1}}};
  for (ScalarType dt : {kFloat, kDouble, kInt32, kInt64}) {
    for (const auto& c : cases) {
      int64_t numel = 1;
      for (int64_t s : c.shape) numel *= s;
      Tensor buffer = uniform({numel + 16}, dt, -100, 100, 31);
      for (int64_t offset : {0, 1, 3, 4, 8, 15}) {
        Tensor x = buffer.narrow(0, offset, numel).view(c.shape);
        Tensor aligned = x.clone();
        EXPECT_EQ(as_double(sum(x, c.dims)), as_double(sum(aligned, c.dims))) << dtype_name(dt) << " offset " << offset;
        EXPECT_EQ(as_double(amax(x, c.dims)), as_double(amax(aligned, c.dims))) << dtype_name(dt) << " offset " << offset;
      }
    }
  }
}

// ---------------------------------------------------------------- max and min
TEST(ReduceMaxMin, FullValues) {
  for (ScalarType dt : {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64, kHalf, kBFloat16, kFloat, kDouble}) {
    for (auto& [name, x] : layouts({9, 70}, dt, 9)) {
      Tensor mx = max(x), mn = min(x);
      EXPECT_EQ(mx.dtype(), dt);
      EXPECT_EQ(mx.dim(), 0);
      EXPECT_EQ(mx.item<double>(), ref_reduce(x, 3, 2)[0]) << dtype_name(dt) << " " << name;
      EXPECT_EQ(mn.item<double>(), ref_reduce(x, 3, 3)[0]) << dtype_name(dt) << " " << name;
      EXPECT_EQ(x.max().item<double>(), mx.item<double>());
    }
  }
  Tensor big = uniform({300001}, kFloat, -5, 5, 4);
  EXPECT_EQ(max(big).item<double>(), ref_reduce(big, 1, 2)[0]);
  EXPECT_EQ(min(big).item<double>(), ref_reduce(big, 1, 3)[0]);
  EXPECT_EQ(max(scalar_tensor(2.5)).item<double>(), 2.5);
  EXPECT_EQ(max(full({3}, -INFINITY)).item<double>(), -INFINITY);
  EXPECT_EQ(max(full({3}, std::numeric_limits<int64_t>::min(), kInt64)).item<int64_t>(),
            std::numeric_limits<int64_t>::min());
}

TEST(ReduceMaxMin, NanPropagates) {
  for (int64_t n : {5, 100, 300001}) {
    for (int64_t at : {int64_t(0), n / 2, n - 1}) {
      Tensor x = uniform({n}, kFloat);
      x.data_ptr<float>()[at] = NAN;
      EXPECT_TRUE(std::isnan(max(x).item<double>())) << n << " " << at;
      EXPECT_TRUE(std::isnan(min(x).item<double>())) << n << " " << at;
      auto [v, i] = max(x, 0);
      EXPECT_TRUE(std::isnan(v.item<double>()));
      EXPECT_EQ(i.item<int64_t>(), at);
      auto [v2, i2] = min(x, 0);
      EXPECT_TRUE(std::isnan(v2.item<double>()));
      EXPECT_EQ(i2.item<int64_t>(), at);
    }
  }
  // First NaN wins; rows and columns.
  Tensor y = tensor({1.f, NAN, 3.f, NAN, 5.f, 2.f, 9.f, 0.f}).view({2, 4});
  auto [v, i] = max(y, 1);
  EXPECT_TRUE(std::isnan(values<float>(v)[0]));
  EXPECT_EQ(values<float>(v)[1], 9.f);
  EXPECT_EQ(values<int64_t>(i), std::vector<int64_t>({1, 2}));
  auto [cv, ci] = min(y, 0);
  EXPECT_EQ(values<int64_t>(ci), std::vector<int64_t>({0, 0, 0, 0}));
  EXPECT_EQ(values<float>(cv)[0], 1.f);
  EXPECT_TRUE(std::isnan(values<float>(cv)[1]));
}

TEST(ReduceMaxMin, DimValuesAndIndices) {
  for (ScalarType dt : {kBool, kUInt8, kInt32, kInt64, kHalf, kFloat, kDouble}) {
    // Few distinct values, so ties are common: the first index must win.
    for (auto& [name, x] : layouts({13, 17, 70}, dt, 13)) {
      Tensor xi = (dt == kBool ? x : x.mul(2)).to(dt);
      for (int64_t d : {0, 1, 2, -1}) {
        for (bool keepdim : {false, true}) {
          for (bool is_max : {true, false}) {
            auto [v, i] = is_max ? max(xi, d, keepdim) : min(xi, d, keepdim);
            const int64_t wd = d < 0 ? d + 3 : d;
            EXPECT_EQ(v.dtype(), dt);
            EXPECT_EQ(i.dtype(), kInt64);
            EXPECT_EQ(v.sizes().vec(), reduce_shape(xi.sizes(), DimMask(1) << wd, keepdim).vec());
            std::vector<double> want = ref_reduce(xi, DimMask(1) << wd, is_max ? 2 : 3);
            EXPECT_EQ(as_double(v), want) << dtype_name(dt) << name << d;
            // Index: the first position holding the extreme value.
            std::vector<double> all = as_double(xi);
            std::vector<int64_t> got = values<int64_t>(i);
            const int64_t sz[3] = {13, 17, 70};
            int64_t o = 0;
            for (int64_t a = 0; a < (wd == 0 ? 1 : 13); ++a)
              for (int64_t b = 0; b < (wd == 1 ? 1 : 17); ++b)
                for (int64_t c = 0; c < (wd == 2 ? 1 : 70); ++c, ++o) {
                  int64_t first = -1;
                  for (int64_t r = 0; r < sz[wd] && first < 0; ++r) {
                    int64_t p[3] = {a, b, c};
                    p[wd] = r;
                    if (all[(p[0] * 17 + p[1]) * 70 + p[2]] == want[o]) first = r;
                  }
                  ASSERT_EQ(got[o], first) << dtype_name(dt) << name << " dim " << d << " out " << o;
                }
          }
        }
      }
    }
  }
}

TEST(ReduceMaxMin, LargeAndSpecialShapes) {
  Tensor x = uniform({200000}, kFloat, -1, 1, 17);
  x.data_ptr<float>()[123457] = 5.f;
  x.data_ptr<float>()[180000] = 5.f;
  auto [v, i] = max(x, 0);
  EXPECT_EQ(v.item<double>(), 5.0);
  EXPECT_EQ(i.item<int64_t>(), 123457);
  // 0-dim input: the value at index 0.
  auto [sv, si] = max(scalar_tensor(4.0), 0);
  EXPECT_EQ(sv.item<double>(), 4.0);
  EXPECT_EQ(si.item<int64_t>(), 0);
  auto [kv, ki] = min(scalar_tensor(4.0), -1, true);
  EXPECT_EQ(kv.dim(), 0);
  // Zero-size kept dims give empty results.
  auto [ev, ei] = max(empty({3, 0}), 0);
  EXPECT_EQ(ev.sizes().vec(), std::vector<int64_t>({0}));
  EXPECT_EQ(ei.numel(), 0);
  // Methods.
  auto [mv, mi] = x.view({400, 500}).min(1);
  EXPECT_EQ(mv.numel(), 400);
  EXPECT_EQ(values<float>(mv), values<float>(std::get<0>(min(x.view({400, 500}), 1))));
}

TEST(ReduceMaxMin, Errors) {
  EXPECT_THROW(max(empty({0})), RuntimeError);
  EXPECT_THROW(min(empty({2, 0})), RuntimeError);
  EXPECT_THROW(max(empty({0, 3}), 0), IndexError);
  EXPECT_THROW(max(zeros({2, 3}), 2), IndexError);
  EXPECT_THROW(min(zeros({2, 3}), -3), IndexError);
  EXPECT_THROW(max(zeros({2}, kComplexFloat)), RuntimeError);
  EXPECT_THROW(max(zeros({2}, kComplexFloat), 0), RuntimeError);
}

// ---------------------------------------------------------------- Meta and kernels
TEST(ReduceMeta, ShapesAndDtypes) {
  Tensor m = empty({4, 5, 6}, TensorOptions(kInt32).device(kMeta));
  Tensor s = sum(m, {0, 2}, true);
  EXPECT_TRUE(s.is_meta());
  EXPECT_EQ(s.dtype(), kInt64);
  EXPECT_EQ(s.sizes().vec(), std::vector<int64_t>({1, 5, 1}));
  EXPECT_EQ(sum(m).dim(), 0);
  Tensor mf = empty({4, 5}, TensorOptions(kHalf).device(kMeta));
  EXPECT_EQ(mean(mf, {1}).sizes().vec(), std::vector<int64_t>({4}));
  EXPECT_EQ(mean(mf, {1}).dtype(), kHalf);
  EXPECT_EQ(sum(mf, kDouble).dtype(), kDouble);
  auto [v, i] = max(mf, 1, true);
  EXPECT_TRUE(v.is_meta() && i.is_meta());
  EXPECT_EQ(v.sizes().vec(), std::vector<int64_t>({4, 1}));
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_EQ(min(mf).dtype(), kHalf);
  EXPECT_THROW(mean(m), RuntimeError);
  EXPECT_THROW(sum(m, {3}), IndexError);
  EXPECT_THROW(max(empty({0}, TensorOptions(kFloat).device(kMeta))), RuntimeError);
}

// Contiguous rows of every length around the vector widths and the short-row limit (256),
// in each instruction set this CPU runs: the vector loops, their tails and the lane combines,
// with a NaN at the start, middle or end of a row.
TEST(ReduceKernels, RowsOfEveryLengthInEveryIsa) {
  using cpu::ReduceOp;
  const int top = static_cast<int>(cpu::capability());
  const std::vector<int64_t> lengths = {1,  2,  3,  4,  5,  7,  8,  9,   15,  16,  17,  31,  32,  33, 47,
                                        63, 64, 65, 100, 127, 128, 129, 200, 255, 256, 257, 300, 513};
  for (ScalarType dt : {kFloat, kDouble, kInt32, kInt64, kHalf, kBFloat16}) {
    const bool flt = is_floating_point(dt), half = dt == kHalf || dt == kBFloat16;
    for (int64_t n : lengths) {
      Tensor x = uniform({4, n}, dt, -100, 100, static_cast<unsigned>(n));
      if (flt) {
        x.select(0, 1).select(0, 0).fill_(NAN);
        x.select(0, 2).select(0, n / 2).fill_(NAN);
        x.select(0, 3).select(0, n - 1).fill_(NAN);
      }
      std::vector<double> v = as_double(x), l1(4, 0.0), l2(4, 0.0), linf(4, 0.0);
      for (int64_t r = 0; r < 4; ++r)
        for (int64_t i = 0; i < n; ++i) {
          const double a = std::abs(v[static_cast<size_t>(r * n + i)]);
          l1[r] += a;
          l2[r] += a * a;
          linf[r] = std::isnan(a) || std::isnan(linf[r]) ? NAN : std::max(linf[r], a);
        }
      for (double& s : l2) s = std::sqrt(s);
      std::vector<std::pair<ReduceOp, std::vector<double>>> ops = {
          {ReduceOp::Sum, ref_reduce(x, 2, 0)}, {ReduceOp::Max, ref_reduce(x, 2, 2)}, {ReduceOp::Min, ref_reduce(x, 2, 3)}};
      if (flt) ops.push_back({ReduceOp::Mean, ref_reduce(x, 2, 1)});
      if (dt == kFloat || dt == kDouble) {
        ops.push_back({ReduceOp::NormL1, l1});
        ops.push_back({ReduceOp::NormL2, l2});
        ops.push_back({ReduceOp::NormInf, linf});
      }
      for (int isa = 0; isa <= top; ++isa) {
        if (!cpu::reduce_stub.table[isa]) continue;
        for (const auto& [op, want] : ops) {
          const ScalarType out_dt = op == ReduceOp::Sum && !flt ? kInt64 : dt;
          Tensor out = empty({4}, out_dt);
          cpu::reduce_stub.table[isa](make_reduce_loop(x, 2, {out}), op);
          const std::string what = std::string(dtype_name(dt)) + " n=" + std::to_string(n) + " isa " +
                                   std::to_string(isa) + " op " + std::to_string(static_cast<int>(op));
          if (op == ReduceOp::Max || op == ReduceOp::Min || op == ReduceOp::NormInf || !flt)
            expect_close(as_double(out), want, 0, 0, what);  // exact
          else if (half)
            expect_close(as_double(out), want, 1e-2, 0.02 * static_cast<double>(n), what);
          else
            expect_close(as_double(out), want, 1e-5, 1e-3, what);
        }
      }
    }
  }
}

// Reductions across rows (dim 0) of narrow tiles, which take up to four rows per pass within
// each block of the cascade: row counts around the block size (64) and the chunked path
// (4096), in each instruction set this CPU runs; a NaN in one column.
TEST(ReduceKernels, NarrowColumnsInEveryIsa) {
  using cpu::ReduceOp;
  const int top = static_cast<int>(cpu::capability());
  for (ScalarType dt : {kFloat, kDouble, kInt32, kInt64, kBFloat16}) {
    const bool flt = is_floating_point(dt);
    for (int64_t rows : {1, 2, 3, 5, 63, 64, 65, 67, 130, 4097, 5003}) {
      for (int64_t cols : {1, 3, 32, 33}) {
        Tensor x = uniform({rows, cols}, dt, -100, 100, static_cast<unsigned>(rows * 7 + cols));
        if (flt) x.select(0, rows / 2).select(0, cols - 1).fill_(NAN);
        for (int isa = 0; isa <= top; ++isa) {
          if (!cpu::reduce_stub.table[isa]) continue;
          for (auto [op, kind] : {std::pair{ReduceOp::Sum, 0}, std::pair{ReduceOp::Max, 2}, std::pair{ReduceOp::Min, 3}}) {
            const ScalarType out_dt = op == ReduceOp::Sum && !flt ? kInt64 : dt;
            Tensor out = empty({cols}, out_dt);
            cpu::reduce_stub.table[isa](make_reduce_loop(x, 1, {out}), op);
            const std::string what = std::string(dtype_name(dt)) + " " + std::to_string(rows) + "x" +
                                     std::to_string(cols) + " isa " + std::to_string(isa) + " op " +
                                     std::to_string(static_cast<int>(op));
            const double rtol = !flt || op != ReduceOp::Sum ? 0 : dt == kBFloat16 ? 1e-2 : 1e-5;
            const double atol = rtol == 0 ? 0 : dt == kBFloat16 ? 0.05 * static_cast<double>(rows) : 1e-3;
            expect_close(as_double(out), ref_reduce(x, 1, kind), rtol, atol, what);
          }
        }
      }
    }
  }
}

// The Default-ISA kernels agree with the ones this CPU selects.
TEST(ReduceKernels, DefaultIsaMatchesSelected) {
  ASSERT_NE(cpu::reduce_stub.table[0], nullptr);
  ASSERT_NE(cpu::arg_reduce_stub.table[0], nullptr);
  struct Case { std::vector<int64_t> shape; std::vector<int64_t> dims; };
  const std::vector<Case> cases = {{{100003}, {0}}, {{37, 501}, {1}}, {{501, 37}, {0}}, {{6, 7, 300}, {0, 2}}};
  for (ScalarType dt : {kFloat, kDouble, kInt32, kInt64}) {
    for (const auto& c : cases) {
      Tensor x = uniform(c.shape, dt, -100, 100, 8);
      const DimMask mask = mask_of(c.dims, x.dim());
      for (auto op : {cpu::ReduceOp::Sum, cpu::ReduceOp::Max, cpu::ReduceOp::Min}) {
        ScalarType out_dt = op == cpu::ReduceOp::Sum && is_integral(dt) ? kInt64 : dt;
        Tensor a = empty(reduce_shape(x.sizes(), mask, false), out_dt);
        Tensor b = empty(reduce_shape(x.sizes(), mask, false), out_dt);
        cpu::reduce_stub.table[0](make_reduce_loop(x, mask, {a}), op);
        cpu::reduce_stub.get()(make_reduce_loop(x, mask, {b}), op);
        expect_close(as_double(a), as_double(b), 1e-5, 1e-3, "isa");
      }
    }
    Tensor x = uniform({300, 70}, dt, -100, 100, 9);
    for (int64_t d : {0, 1}) {
      const DimMask mask = DimMask(1) << d;
      DimVector shape = reduce_shape(x.sizes(), mask, false);
      Tensor va = empty(shape, dt), ia = empty(shape, kInt64), vb = empty(shape, dt), ib = empty(shape, kInt64);
      cpu::arg_reduce_stub.table[0](make_reduce_loop(x, mask, {va, ia}, true), cpu::ReduceOp::Max);
      cpu::arg_reduce_stub.get()(make_reduce_loop(x, mask, {vb, ib}, true), cpu::ReduceOp::Max);
      EXPECT_EQ(as_double(va), as_double(vb));
      EXPECT_EQ(values<int64_t>(ia), values<int64_t>(ib));
    }
  }
}
