// Sorting and selection against std::stable_sort in double: stability, NaN and signed-zero
// order, both directions, the radix and insertion paths; topk (heap and selection paths),
// kthvalue, median, mode, quantile; the private unique ops (_unique, _unique2) that Python
// reaches only through ember.unique; searchsorted, histc, bincount; Meta shapes; the
// Default-ISA kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "backends/cpu/sort_stubs.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "test_util.h"

using namespace ember;
using ember::testing::values;
using ember::testing::as_double;
using ember::testing::kInf;
using ember::testing::kNaN;

namespace {



// Integers in [0, range) (many ties) or uniform floats, with NaN and signed zeros mixed in.
Tensor data(int64_t n, ScalarType dt, int range, unsigned seed, bool specials = false) {
  std::mt19937 gen(seed);
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = range > 0 ? static_cast<double>(gen() % static_cast<unsigned>(range)) : std::uniform_real_distribution<double>(-10, 10)(gen);
  if (specials)
    for (size_t i = 0; i < v.size(); i += 7) v[i] = i % 21 == 0 ? kNaN : (i % 14 == 0 ? -0.0 : 0.0);
  return tensor(v).to(dt);
}

// PyTorch's order: NaN after every number; -0.0 equal to 0.0; stable.
std::vector<int64_t> ref_order(const std::vector<double>& v, bool descending) {
  std::vector<int64_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  auto rank = [](double x) { return std::isnan(x) ? std::numeric_limits<double>::infinity() : x; };
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
    const double x = v[static_cast<size_t>(a)], y = v[static_cast<size_t>(b)];
    if (std::isnan(x) || std::isnan(y)) {
      if (std::isnan(x) && std::isnan(y)) return false;
      return descending ? std::isnan(x) : std::isnan(y);
    }
    return descending ? rank(x) > rank(y) : rank(x) < rank(y);
  });
  return idx;
}

}  // namespace

TEST(Sort, StableWithTiesNanAndZeros) {
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kInt8, kInt32, kInt64, kUInt8, kBool}) {
    for (int64_t n : {1, 5, 47, 48, 49, 300, 5000}) {
      const bool fl = is_floating_point(dt);
      Tensor x = data(n, dt, fl && n % 2 ? 0 : 5, static_cast<unsigned>(n), fl);
      const std::vector<double> xv = as_double(x);
      for (bool desc : {false, true}) {
        auto [v, i] = sort(x, std::optional<bool>(true), 0, desc);
        EXPECT_EQ(values<int64_t>(i), ref_order(xv, desc)) << dtype_name(dt) << " n=" << n << " desc=" << desc;
        std::vector<double> vv = as_double(v);
        for (size_t k = 0; k < vv.size(); ++k) {
          const double want = xv[static_cast<size_t>(values<int64_t>(i)[k])];
          EXPECT_TRUE(vv[k] == want || (std::isnan(vv[k]) && std::isnan(want)));
          EXPECT_EQ(std::signbit(vv[k]), std::signbit(want));  // values are the input's own
        }
      }
    }
  }
}

TEST(Sort, AlongEveryDimAndLayout) {
  Tensor x = data(4 * 5 * 6, kFloat, 0, 3).view({4, 5, 6});
  for (int64_t d = 0; d < 3; ++d) {
    for (const Tensor& in : {x, x.transpose(0, 2).contiguous().transpose(0, 2)}) {
      auto [v, i] = sort(in, d);
      Tensor moved = in.transpose(d, 2).contiguous();
      auto [v2, i2] = sort(moved, 2);
      EXPECT_EQ(as_double(v), as_double(v2.transpose(d, 2)));
      EXPECT_EQ(values<int64_t>(i), values<int64_t>(i2.transpose(d, 2)));
      EXPECT_EQ(as_double(msort(in)), as_double(std::get<0>(sort(in, 0))));
      EXPECT_EQ(values<int64_t>(argsort(in, d, true)), values<int64_t>(std::get<1>(sort(in, d, true))));
    }
  }
  EXPECT_THROW(sort(zeros({3}, kComplexFloat)), RuntimeError);
  EXPECT_THROW(sort(x, 3), IndexError);
}

TEST(Sort, TopkHeapAndSelectionAgreeWithSort) {
  for (ScalarType dt : {kFloat, kDouble, kInt32, kInt16}) {
    for (auto [n, k] : std::vector<std::pair<int64_t, int64_t>>{{1000, 10}, {20000, 100}, {20000, 5000}, {10, 10}, {7, 0}}) {
      Tensor x = data(2 * n, dt, dt == kInt16 ? 50 : 0, 3, false).view({2, n});
      for (bool largest : {true, false}) {
        auto [v, i] = topk(x, k, -1, largest);
        auto [sv, si] = sort(x, std::optional<bool>(true), -1, largest);
        EXPECT_EQ(as_double(v), as_double(sv.narrow(1, 0, k)));
        EXPECT_EQ(values<int64_t>(i), values<int64_t>(si.narrow(1, 0, k)));  // ties by position
      }
    }
  }
  Tensor nan = tensor({1.0, kNaN, 3.0, kNaN});
  EXPECT_EQ(values<int64_t>(std::get<1>(topk(nan, 2))), std::vector<int64_t>({1, 3}));  // NaN is largest
  EXPECT_EQ(values<int64_t>(std::get<1>(topk(nan, 2, -1, false))), std::vector<int64_t>({0, 2}));
  EXPECT_THROW(topk(nan, 5), RuntimeError);
}

TEST(Sort, Selections) {
  Tensor x = data(3 * 101, kDouble, 0, 9).view({3, 101});
  auto [sv, si] = sort(x, 1);
  for (int64_t k : {1, 50, 101}) {
    auto [v, i] = kthvalue(x, k, 1);
    EXPECT_EQ(as_double(v), as_double(sv.select(1, k - 1)));
  }
  auto [mv, mi] = median(x, 1);
  EXPECT_EQ(as_double(mv), as_double(sv.select(1, 50)));
  EXPECT_EQ(median(tensor({4.0, 1.0, 3.0, 2.0})).item<double>(), 2.0);  // the lower median
  EXPECT_TRUE(std::isnan(median(tensor({1.0, kNaN, 2.0})).item<double>()));
  EXPECT_EQ(nanmedian(tensor({1.0, kNaN, 2.0, 5.0})).item<double>(), 2.0);
  auto [md, mdi] = median(tensor({1.0, kNaN, 2.0, kNaN}), 0);
  EXPECT_EQ(mdi.item<int64_t>(), 1);  // the first NaN
  auto [mo, moi] = mode(tensor(std::vector<int64_t>{1, 2, 2, 3, 3, 1}), 0);
  EXPECT_EQ(mo.item<int64_t>(), 1);    // the smallest of equally frequent values
  EXPECT_EQ(moi.item<int64_t>(), 5);   // its last position
  EXPECT_THROW(kthvalue(x, 102, 1), RuntimeError);
  EXPECT_THROW(median(empty({0, 3}, kFloat), 0), IndexError);
}

TEST(Sort, Quantile) {
  Tensor x = tensor({4.0, 1.0, 3.0, 2.0, 5.0});
  EXPECT_EQ(quantile(x, 0.5).item<double>(), 3.0);
  EXPECT_DOUBLE_EQ(quantile(x, 0.3).item<double>(), 2.2);
  EXPECT_EQ(quantile(x, 0.3, std::nullopt, false, "lower").item<double>(), 2.0);
  EXPECT_EQ(quantile(x, 0.3, std::nullopt, false, "higher").item<double>(), 3.0);
  EXPECT_EQ(quantile(x, 0.3, std::nullopt, false, "midpoint").item<double>(), 2.5);
  // nearest rounds half to even, as torch.round: ranks 1.5 and 2.5 both pick index 2
  EXPECT_EQ(quantile(x, 0.375, std::nullopt, false, "nearest").item<double>(), 3.0);
  EXPECT_EQ(quantile(x, 0.625, std::nullopt, false, "nearest").item<double>(), 3.0);
  Tensor q = tensor({0.0, 1.0});
  EXPECT_EQ(as_double(quantile(x.view({1, 5}), q, 1)), std::vector<double>({1.0, 5.0}));
  EXPECT_TRUE(std::isnan(quantile(tensor({1.0, kNaN}), 0.5).item<double>()));
  EXPECT_EQ(nanquantile(tensor({1.0, kNaN, 3.0}), 0.5).item<double>(), 2.0);
  EXPECT_THROW(quantile(x, 1.5), RuntimeError);
  EXPECT_THROW(quantile(tensor({1, 2}), 0.5), RuntimeError);
}

TEST(Sort, UniqueOps) {
  Tensor x = tensor(std::vector<int64_t>{3, 1, 2, 1, 3, 3}).view({2, 3});
  auto [u, inv, cnt] = unique(x, true, true, true);
  EXPECT_EQ(values<int64_t>(u), std::vector<int64_t>({1, 2, 3}));
  EXPECT_EQ(values<int64_t>(inv), std::vector<int64_t>({2, 0, 1, 0, 2, 2}));
  EXPECT_EQ(inv.sizes().vec(), std::vector<int64_t>({2, 3}));
  EXPECT_EQ(values<int64_t>(cnt), std::vector<int64_t>({2, 1, 3}));
  // The private ops behind torch.unique: same results through the dispatcher.
  using Unique2Sig = std::tuple<Tensor, Tensor, Tensor>(const Tensor&, bool, bool, bool);
  using UniqueSig = std::tuple<Tensor, Tensor>(const Tensor&, bool, bool);
  auto [u2, inv2, cnt2] = TypedOp<Unique2Sig>("_unique2").call(x, true, true, false);
  EXPECT_EQ(values<int64_t>(u2), values<int64_t>(u));
  EXPECT_EQ(values<int64_t>(inv2), values<int64_t>(inv));
  EXPECT_EQ(cnt2.numel(), 0);  // not asked for
  auto [u1, inv1] = TypedOp<UniqueSig>("_unique").call(x, true, false);
  EXPECT_EQ(values<int64_t>(u1), values<int64_t>(u));
  EXPECT_EQ(inv1.numel(), 0);
  // Along a dim: unique rows, sorted lexicographically.
  Tensor rows = tensor(std::vector<int64_t>{2, 1, 1, 5, 2, 1, 1, 0}).view({4, 2});
  auto [ur, ir, cr] = unique(rows, true, true, true, 0);
  EXPECT_EQ(values<int64_t>(ur), std::vector<int64_t>({1, 0, 1, 5, 2, 1}));
  EXPECT_EQ(values<int64_t>(ir), std::vector<int64_t>({2, 1, 2, 0}));
  EXPECT_EQ(values<int64_t>(cr), std::vector<int64_t>({1, 1, 2}));
  // Consecutive runs; NaN equals nothing, -0.0 equals 0.0.
  auto [uc, ic, cc] = unique_consecutive(tensor({1.0, 1.0, kNaN, kNaN, -0.0, 0.0, 1.0}), true, true);
  EXPECT_EQ(uc.numel(), 5);
  EXPECT_EQ(values<int64_t>(cc), std::vector<int64_t>({2, 1, 1, 2, 1}));
  EXPECT_EQ(values<int64_t>(ic), std::vector<int64_t>({0, 0, 1, 2, 3, 3, 4}));
  EXPECT_THROW(unique(zeros({2}, kComplexFloat)), RuntimeError);
  EXPECT_THROW(unique(empty({2}, TensorOptions(kFloat).device(kMeta))), NotImplementedError);
}

TEST(Sort, SearchAndCount) {
  Tensor seq = tensor({1.0, 2.0, 2.0, 3.0});
  Tensor v = tensor({0.0, 2.0, 2.5, 4.0, kNaN});
  EXPECT_EQ(values<int64_t>(searchsorted(seq, v)), std::vector<int64_t>({0, 1, 3, 4, 4}));
  EXPECT_EQ(values<int64_t>(searchsorted(seq, v, false, true)), std::vector<int64_t>({0, 3, 3, 4, 4}));
  EXPECT_EQ(searchsorted(seq, v, true).dtype(), kInt32);
  EXPECT_EQ(values<int64_t>(bucketize(v, seq, false, false)), values<int64_t>(searchsorted(seq, v)));
  Tensor unsorted = tensor({3.0, 1.0, 2.0});
  EXPECT_EQ(values<int64_t>(searchsorted(unsorted, tensor({2.5}), false, false, std::nullopt,
                                          std::optional<Tensor>(argsort(unsorted)))), std::vector<int64_t>({2}));
  EXPECT_THROW(searchsorted(unsorted, tensor({1.0}), false, false, std::nullopt,
                            std::optional<Tensor>(tensor(std::vector<int64_t>{0, 1, 7}))), RuntimeError);
  Tensor h = histc(tensor({0.0f, 1.0f, 2.0f, 2.0f, 3.0f, 9.0f}), 3, 0, 3);
  EXPECT_EQ(values<float>(h), std::vector<float>({1, 1, 3}));  // the last bin is closed; 9 is outside
  auto [hist, edges] = histogram(tensor({1.0, 2.0, 3.0}), 2);
  EXPECT_EQ(as_double(hist), std::vector<double>({1, 2}));
  EXPECT_EQ(as_double(edges), std::vector<double>({1, 2, 3}));
  EXPECT_EQ(values<int64_t>(bincount(tensor(std::vector<int64_t>{1, 3, 3}))), std::vector<int64_t>({0, 1, 0, 2}));
  Tensor w = bincount(tensor(std::vector<int64_t>{0, 0}), std::optional<Tensor>(tensor({0.5f, 0.25f})), 3);
  EXPECT_EQ(w.dtype(), kFloat);
  EXPECT_EQ(values<float>(w), std::vector<float>({0.75f, 0, 0}));
  EXPECT_THROW(bincount(tensor(std::vector<int64_t>{-1})), RuntimeError);
  EXPECT_THROW(histc(tensor({1.0f}), 0), RuntimeError);
}

TEST(Sort, MetaShapes) {
  const TensorOptions meta = TensorOptions(kFloat).device(kMeta);
  Tensor m = empty({4, 5}, meta);
  auto [v, i] = sort(m, 0);
  EXPECT_TRUE(v.is_meta() && i.is_meta());
  EXPECT_EQ(i.dtype(), kInt64);
  EXPECT_EQ(std::get<0>(topk(m, 2, 0)).sizes().vec(), std::vector<int64_t>({2, 5}));
  EXPECT_EQ(std::get<0>(kthvalue(m, 2, 1, true)).sizes().vec(), std::vector<int64_t>({4, 1}));
  EXPECT_EQ(std::get<1>(mode(m, 0)).sizes().vec(), std::vector<int64_t>({5}));
  EXPECT_EQ(median(m).dim(), 0);
  EXPECT_EQ(quantile(m, empty({3}, meta), 1).sizes().vec(), std::vector<int64_t>({3, 4}));
  EXPECT_EQ(searchsorted(empty({7}, meta), m).sizes().vec(), std::vector<int64_t>({4, 5}));
  EXPECT_EQ(histc(m, 9).sizes().vec(), std::vector<int64_t>({9}));
}

TEST(Sort, DefaultIsaMatchesSelected) {
  ASSERT_NE(cpu::sort_stub.table[0], nullptr);
  ASSERT_NE(cpu::topk_stub.table[0], nullptr);
  for (ScalarType dt : {kFloat, kDouble, kInt32, kInt64}) {
    Tensor x = data(3 * 5000, dt, 0, 6, is_floating_point(dt)).view({3, 5000}).contiguous();
    const int64_t rows = 3, n = 5000, k = 37;
    Tensor va = empty({rows, n}, dt), vb = empty({rows, n}, dt);
    Tensor ia = empty({rows, n}, kInt64), ib = empty({rows, n}, kInt64);
    cpu::SortRows a{static_cast<const char*>(x.data_ptr()), dt, rows, n, static_cast<char*>(va.data_ptr()), ia.data_ptr<int64_t>()};
    cpu::SortRows b{static_cast<const char*>(x.data_ptr()), dt, rows, n, static_cast<char*>(vb.data_ptr()), ib.data_ptr<int64_t>()};
    cpu::sort_stub.table[0](a, true);
    cpu::sort_stub.get()(b, true);
    EXPECT_EQ(values<int64_t>(ia), values<int64_t>(ib));
    cpu::topk_stub.table[0](a, k, true);
    cpu::topk_stub.get()(b, k, true);
    EXPECT_EQ(values<int64_t>(ia.view({-1}).narrow(0, 0, rows * k)), values<int64_t>(ib.view({-1}).narrow(0, 0, rows * k)));
  }
}
