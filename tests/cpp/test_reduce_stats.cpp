// Reductions beyond sum/mean/max/min, against naive loops in double: nansum, prod, all/any,
// count_nonzero, norms, var/std (numerical stability far from zero), logsumexp (special
// values), cumulative ops; thread-count independence, the Default-ISA kernels and Meta shapes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "backends/cpu/reduce_stubs.h"
#include "backends/cpu/stubs.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ember/parallel.h"
#include "ops/reduce.h"
#include "test_util.h"

using namespace ember;
using ember::testing::values;
using ember::testing::as_double;
using ember::testing::kInf;
using ember::testing::kNaN;
using ember::testing::Restore;
using ember::testing::uniform;

namespace {





// Rows of a 2-D tensor (reduced along dim 1) as vectors of double.
std::vector<std::vector<double>> rows_of(const Tensor& x) {
  std::vector<double> v = as_double(x);
  const int64_t r = x.sizes()[0], c = x.sizes()[1];
  std::vector<std::vector<double>> out(static_cast<size_t>(r));
  for (int64_t i = 0; i < r; ++i) out[static_cast<size_t>(i)].assign(v.begin() + i * c, v.begin() + (i + 1) * c);
  return out;
}

double ref_var(const std::vector<double>& v, double correction) {
  double m = 0;
  for (double x : v) m += x;
  m /= static_cast<double>(v.size());
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / std::max(0.0, static_cast<double>(v.size()) - correction);
}

void expect_rel(const std::vector<double>& got, const std::vector<double>& want, double rtol, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " at " << i;
    } else if (std::isinf(want[i])) {
      EXPECT_EQ(got[i], want[i]) << what << " at " << i;
    } else {
      EXPECT_NEAR(got[i], want[i], rtol * std::max(1.0, std::abs(want[i]))) << what << " at " << i;
    }
  }
}

}  // namespace

// ---------------------------------------------------------------- sums, products, logical
TEST(ReduceExt, NansumProdAllAny) {
  Tensor x = tensor({1.0f, NAN, 2.0f, NAN, -3.0f, 4.0f}).view({2, 3});
  EXPECT_EQ(nansum(x).item<double>(), 4.0);
  EXPECT_EQ(values<float>(nansum(x, IntArrayRef{1})), std::vector<float>({3.0f, 1.0f}));
  EXPECT_TRUE(std::isnan(sum(x).item<double>()));
  EXPECT_EQ(nanmean(x, IntArrayRef{1}).to(kDouble).data_ptr<double>()[0], 1.5);
  EXPECT_THROW(nansum(zeros({2}, kComplexFloat)), RuntimeError);
  EXPECT_THROW(nanmean(zeros({2}, kInt64)), RuntimeError);

  Tensor p = tensor({1.5, -2.0, 4.0, 0.5}).view({2, 2});
  EXPECT_EQ(prod(p).item<double>(), -6.0);
  EXPECT_EQ(values<double>(prod(p, 0)), std::vector<double>({6.0, -1.0}));
  Tensor i8 = tensor(std::vector<int64_t>{100, 100, 100}).to(kInt8);
  EXPECT_EQ(prod(i8).dtype(), kInt64);
  EXPECT_EQ(prod(i8).item<int64_t>(), 1000000);  // accumulates in int64, not int8
  EXPECT_EQ(prod(empty({0}, kFloat)).item<double>(), 1.0);

  Tensor b = tensor({1.0, 0.0, kNaN, 2.0}).view({2, 2});
  EXPECT_FALSE(all(b).item<bool>());
  EXPECT_TRUE(any(b).item<bool>());
  EXPECT_EQ(values<bool>(all(b, 1)), std::vector<bool>({false, true}));  // NaN is true
  EXPECT_EQ(all(tensor({1, 2}).to(kUInt8)).dtype(), kUInt8);
  EXPECT_TRUE(all(empty({0}, kFloat)).item<bool>());
  EXPECT_FALSE(any(empty({0}, kFloat)).item<bool>());
  EXPECT_EQ(count_nonzero(b).item<int64_t>(), 3);
  EXPECT_EQ(values<int64_t>(count_nonzero(b, IntArrayRef{0})), std::vector<int64_t>({2, 1}));
}

TEST(ReduceExt, ExtremesAndArgs) {
  Tensor x = tensor({3.0, 1.0, 4.0, 1.0, 5.0, 9.0}).view({2, 3});
  EXPECT_EQ(values<double>(amax(x, {1})), std::vector<double>({4.0, 9.0}));
  EXPECT_EQ(values<double>(amin(x, {0})), std::vector<double>({1.0, 1.0, 4.0}));
  auto [lo, hi] = aminmax(x);
  EXPECT_EQ(lo.item<double>(), 1.0);
  EXPECT_EQ(hi.item<double>(), 9.0);
  EXPECT_EQ(argmax(x).item<int64_t>(), 5);
  EXPECT_EQ(argmin(x).item<int64_t>(), 1);  // the first of equal minima
  EXPECT_EQ(values<int64_t>(argmax(x, 1, true)), std::vector<int64_t>({2, 2}));
  Tensor v = empty({0}, kDouble), i = empty({0}, kInt64);
  max_out(v, i, x, 0);
  EXPECT_EQ(values<double>(v), std::vector<double>({3.0, 5.0, 9.0}));
  EXPECT_EQ(values<int64_t>(i), std::vector<int64_t>({0, 1, 1}));
  EXPECT_THROW(amax(empty({0, 3}, kFloat), {0}), IndexError);
  EXPECT_THROW(argmax(empty({0}, kFloat)), IndexError);
  EXPECT_THROW(argmax(zeros({2}, kBool)), RuntimeError);
}

// ---------------------------------------------------------------- norms
TEST(ReduceExt, Norms) {
  Tensor x = uniform({7, 33}, kDouble, -2, 2, 4);
  const auto rows = rows_of(x);
  for (double p : {0.0, 1.0, 2.0, 3.0, 0.5, kInf, -kInf}) {
    std::vector<double> want;
    for (const auto& r : rows) {
      double a = p == -kInf ? kInf : 0;
      for (double v : r) {
        if (p == 0) a += v != 0;
        else if (p == kInf) a = std::max(a, std::abs(v));
        else if (p == -kInf) a = std::min(a, std::abs(v));
        else a += std::pow(std::abs(v), p);
      }
      want.push_back(p == 0 || std::isinf(p) ? a : std::pow(a, 1.0 / p));
    }
    expect_rel(as_double(norm(x, p, {1})), want, 1e-12, "norm");
  }
  Tensor c = tensor(std::vector<complex64>{{3, 4}, {0, 1}});
  EXPECT_EQ(norm(c).dtype(), kFloat);
  EXPECT_NEAR(norm(c).item<double>(), std::sqrt(26.0), 1e-6);
  EXPECT_EQ(norm(x.to(kFloat), 2, {1}, false, kDouble).dtype(), kDouble);
  EXPECT_THROW(norm(zeros({2}, kInt64)), RuntimeError);
}

// ---------------------------------------------------------------- var, std
TEST(ReduceExt, VarianceStableFarFromZero) {
  // Data at 1e4 with unit spread: a naive float sum of squares loses everything; the blocked
  // two-pass kernel keeps float32's precision of the data itself.
  for (auto [shape, dim] : std::vector<std::pair<std::vector<int64_t>, int64_t>>{
           {{100000}, 0}, {{3, 50000}, 1}, {{50000, 3}, 0}, {{600, 500}, 0}, {{500, 600}, 1}}) {
    Tensor base = uniform(shape, kDouble, -1, 1, 5).add(1e4);
    Tensor xf = base.to(kFloat);
    for (int64_t corr : {0, 1}) {
      Tensor v = var(xf, IntArrayRef{dim}, corr);
      Tensor xd = xf.to(kDouble);  // the float data, exactly, in double
      Tensor ref = var(xd.transpose(dim, -1).contiguous(), IntArrayRef{-1}, corr);
      expect_rel(as_double(v), as_double(ref), 1e-5, "float var at 1e4");
      // and the double kernel against a direct two-pass loop
      std::vector<double> want;
      for (const auto& r : rows_of(xd.transpose(dim, -1).contiguous().view({-1, shape[static_cast<size_t>(dim)]})))
        want.push_back(ref_var(r, static_cast<double>(corr)));
      expect_rel(as_double(ref), want, 1e-9, "double var");
    }
  }
  // std, var_mean, std_mean agree with var and mean
  Tensor x = uniform({9, 40}, kFloat, -3, 3, 6);
  auto [v, m] = var_mean(x, IntArrayRef{1});
  expect_rel(as_double(v), as_double(var(x, IntArrayRef{1})), 1e-6, "var_mean var");
  expect_rel(as_double(m), as_double(mean(x, {1})), 1e-6, "var_mean mean");
  auto [s, m2] = std_mean(x, IntArrayRef{0}, 0, true);
  expect_rel(as_double(s), as_double(ember::std(x, IntArrayRef{0}, 0, true)), 1e-6, "std_mean std");
  EXPECT_EQ(m2.sizes().vec(), std::vector<int64_t>({1, 40}));
  // too few elements: 0 / 0
  EXPECT_TRUE(std::isnan(var(tensor({1.0f})).item<double>()));
  EXPECT_THROW(var(zeros({3}, kInt32)), RuntimeError);
}

TEST(ReduceExt, ComplexVariance) {
  Tensor re = uniform({5, 8}, kDouble, -1, 1, 7), im = uniform({5, 8}, kDouble, -1, 1, 8);
  Tensor z = stack({re, im}, -1).view_as_complex();
  Tensor v = var(z, IntArrayRef{1});
  EXPECT_EQ(v.dtype(), kDouble);
  expect_rel(as_double(v), as_double(var(re, IntArrayRef{1}).add(var(im, IntArrayRef{1}))), 1e-12, "complex var");
  auto [vv, mm] = var_mean(z, IntArrayRef{1});
  EXPECT_EQ(mm.dtype(), kComplexDouble);
}

// ---------------------------------------------------------------- logsumexp
TEST(ReduceExt, LogSumExp) {
  Tensor x = uniform({6, 3001}, kDouble, -50, 50, 9);
  std::vector<double> want;
  for (const auto& r : rows_of(x)) {
    double m = -kInf;
    for (double v : r) m = std::max(m, v);
    double s = 0;
    for (double v : r) s += std::exp(v - m);
    want.push_back(std::log(s) + m);
  }
  expect_rel(as_double(logsumexp(x, {1})), want, 1e-12, "double");
  expect_rel(as_double(logsumexp(x.to(kFloat), {1})), want, 1e-6, "float");
  expect_rel(as_double(logsumexp(x.t().contiguous().to(kFloat), {0})), want, 1e-6, "float columns");
  // Values far beyond exp's range stay finite.
  Tensor big = tensor({1000.0f, 1000.0f});
  EXPECT_NEAR(logsumexp(big, {0}).item<double>(), 1000.0 + std::log(2.0), 1e-3);
  Tensor sp = tensor({-kInf, -kInf, 1.0, kInf, kNaN, 2.0, -kInf, 0.0}).view({4, 2});
  std::vector<double> got = as_double(logsumexp(sp, {1}));
  EXPECT_EQ(got[0], -kInf);       // all -inf
  EXPECT_EQ(got[1], kInf);        // +inf wins
  EXPECT_TRUE(std::isnan(got[2]));    // NaN propagates
  EXPECT_EQ(got[3], 0.0);             // -inf adds nothing
  EXPECT_EQ(logsumexp(tensor({1, 2, 3}), {0}).dtype(), get_default_dtype());
  EXPECT_THROW(logsumexp(zeros({2}, kComplexFloat), {0}), RuntimeError);
}

// ---------------------------------------------------------------- cumulative
TEST(ReduceExt, Cumulative) {
  Tensor x = uniform({4, 1000}, kFloat, -1, 1, 10);
  for (int64_t d : {0, 1}) {
    Tensor c = cumsum(x, d);
    Tensor xd = x.to(kDouble);
    // float inputs accumulate in double, as PyTorch's CPU kernel does
    Tensor cd = cumsum(xd, d);
    expect_rel(as_double(c), as_double(cd), 1e-6, "cumsum");
    EXPECT_EQ(as_double(cumsum(x.t(), 1 - d)), as_double(c.t().contiguous()));
  }
  EXPECT_EQ(cumsum(tensor({true, true, false}), 0).dtype(), kInt64);
  EXPECT_EQ(values<int64_t>(cumprod(tensor(std::vector<int64_t>{2, 3, 4}), 0)), std::vector<int64_t>({2, 6, 24}));
  Tensor m = tensor({1.0, 3.0, kNaN, 2.0, 5.0, 5.0});
  auto [v, i] = cummax(m, 0);
  std::vector<double> vv = as_double(v);
  EXPECT_EQ(vv[1], 3.0);
  EXPECT_TRUE(std::isnan(vv[2]) && std::isnan(vv[5]));
  EXPECT_EQ(values<int64_t>(i), std::vector<int64_t>({0, 1, 2, 2, 2, 2}));
  auto [v2, i2] = cummin(tensor({2.0, 1.0, 1.0, 3.0}), 0);
  EXPECT_EQ(values<int64_t>(i2), std::vector<int64_t>({0, 1, 2, 2}));  // the latest of equal minima
  Tensor l = logcumsumexp(tensor({0.0, 0.0, -kInf, 1000.0}), 0);
  std::vector<double> lv = as_double(l);
  EXPECT_NEAR(lv[1], std::log(2.0), 1e-12);
  EXPECT_NEAR(lv[2], std::log(2.0), 1e-12);
  EXPECT_NEAR(lv[3], 1000.0, 1e-9);
  Tensor inplace = tensor({1.0f, 2.0f, 3.0f});
  TypedOp<Tensor&(Tensor&, int64_t, std::optional<ScalarType>)>("cumsum_").call(inplace, 0, std::nullopt);
  EXPECT_EQ(values<float>(inplace), std::vector<float>({1, 3, 6}));
  EXPECT_THROW(cumsum(x, 2), IndexError);
  EXPECT_THROW(logcumsumexp(tensor({1, 2}), 0), RuntimeError);
}

// ---------------------------------------------------------------- threads, ISA, Meta
TEST(ReduceExt, SameResultForAnyThreadCount) {
  Restore restore;
  struct Case { std::vector<int64_t> shape; std::vector<int64_t> dims; };
  const std::vector<Case> cases = {{{1 << 20}, {0}}, {{3, 200000}, {1}}, {{200000, 3}, {0}}, {{512, 1024}, {0}}};
  for (const auto& c : cases) {
    Tensor x = uniform(c.shape, kFloat, 0, 1, 21);
    std::vector<std::vector<float>> r;
    for (int t : {1, 2, 3}) {
      set_num_threads(t);
      r.push_back(values<float>(var(x, IntArrayRef(c.dims))));
      r.push_back(values<float>(logsumexp(x, c.dims)));
      r.push_back(values<float>(norm(x, 2, c.dims)));
    }
    for (size_t k = 3; k < r.size(); ++k) EXPECT_EQ(r[k], r[k % 3]);
  }
}

TEST(ReduceExt, DefaultIsaMatchesSelected) {
  ASSERT_NE(cpu::stat_reduce_stub.table[0], nullptr);
  ASSERT_NE(cpu::scan_stub.table[0], nullptr);
  for (ScalarType dt : {kFloat, kDouble}) {
    for (auto [shape, d] : std::vector<std::pair<std::vector<int64_t>, int64_t>>{
             {{100003}, 0}, {{37, 5001}, 1}, {{5001, 37}, 0}}) {
      Tensor x = uniform(shape, dt, -5, 5, 8);
      const DimMask mask = DimMask(1) << d;
      for (auto op : {cpu::StatOp::Var, cpu::StatOp::LogSumExp}) {
        const DimVector out_shape = reduce_shape(x.sizes(), mask, false);
        Tensor a = empty(out_shape, dt), b = empty(out_shape, dt);
        ReduceLoop la = make_reduce_loop(x, mask, {a}), lb = make_reduce_loop(x, mask, {b});
        la.param = lb.param = 1;
        cpu::stat_reduce_stub.table[0](la, op);
        cpu::stat_reduce_stub.get()(lb, op);
        expect_rel(as_double(a), as_double(b), dt == kFloat ? 1e-5 : 1e-12, "isa stat");
      }
      for (auto op : {cpu::ReduceOp::NormL2, cpu::ReduceOp::NanSum, cpu::ReduceOp::Prod}) {
        Tensor y = op == cpu::ReduceOp::Prod ? uniform(shape, dt, 0.999, 1.001, 3) : x;
        const DimVector out_shape = reduce_shape(y.sizes(), mask, false);
        Tensor a = empty(out_shape, dt), b = empty(out_shape, dt);
        cpu::reduce_stub.table[0](make_reduce_loop(y, mask, {a}), op);
        cpu::reduce_stub.get()(make_reduce_loop(y, mask, {b}), op);
        expect_rel(as_double(a), as_double(b), dt == kFloat ? 1e-5 : 1e-12, "isa reduce");
      }
    }
  }
}

TEST(ReduceExt, MetaShapes) {
  const TensorOptions meta = TensorOptions(kFloat).device(kMeta);
  Tensor m = empty({4, 5, 6}, meta);
  EXPECT_EQ(var(m, IntArrayRef{1}).sizes().vec(), std::vector<int64_t>({4, 6}));
  EXPECT_TRUE(var(m).is_meta());
  auto [v, mu] = std_mean(m, IntArrayRef{0, 2}, 1, true);
  EXPECT_EQ(v.sizes().vec(), std::vector<int64_t>({1, 5, 1}));
  EXPECT_EQ(var(empty({3}, TensorOptions(kComplexFloat).device(kMeta))).dtype(), kFloat);
  EXPECT_EQ(norm(m, 2, {2}).sizes().vec(), std::vector<int64_t>({4, 5}));
  EXPECT_EQ(logsumexp(m, {0}, true).sizes().vec(), std::vector<int64_t>({1, 5, 6}));
  EXPECT_EQ(cumsum(empty({4, 5}, TensorOptions(kInt32).device(kMeta)), 1).dtype(), kInt64);
  EXPECT_EQ(std::get<1>(cummax(m, 2)).dtype(), kInt64);
  EXPECT_EQ(prod(m, 1).sizes().vec(), std::vector<int64_t>({4, 6}));
  EXPECT_EQ(all(m, 0).dtype(), kBool);
  EXPECT_EQ(argmax(m, 2, true).sizes().vec(), std::vector<int64_t>({4, 5, 1}));
  EXPECT_EQ(std::get<0>(aminmax(m, 1)).sizes().vec(), std::vector<int64_t>({4, 6}));
  EXPECT_EQ(nanmean(m, IntArrayRef{2}).sizes().vec(), std::vector<int64_t>({4, 5}));
}
