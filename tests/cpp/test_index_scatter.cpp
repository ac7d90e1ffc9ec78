// Gather/scatter family (gather, scatter*, index_select, index_add, index_copy, index_fill,
// take, put_, masked_fill, masked_scatter): invariants the Python op table does not reach.
// Values are checked against PyTorch by tests/python/op_rows_indexing.py; here: results
// against naive loops on large inputs (every threading strategy of the kernel), the same
// bits with 1 and several threads, validation before any write, version counters, Meta
// shapes, and boxed calls.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "ember/dispatch.h"
#include "ember/ops.h"
#include "test_util.h"

namespace ember {
namespace {

using testing::expect_error;
using testing::Threads;


Tensor random_floats(int64_t n, uint32_t seed) {
  std::mt19937 g(seed);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  std::vector<float> v(static_cast<size_t>(n));
  for (auto& x : v) x = u(g);
  return tensor(v);
}

Tensor random_index(int64_t n, int64_t high, uint32_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<int64_t> u(0, high - 1);
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (auto& x : v) x = u(g);
  return tensor(v);
}

bool same_bits(const Tensor& a, const Tensor& b) {
  Tensor x = a.contiguous(), y = b.contiguous();
  return x.sizes().equals(y.sizes()) && x.dtype() == y.dtype() &&
         std::memcmp(x.data_ptr(), y.data_ptr(), x.nbytes()) == 0;
}

TensorOptions meta(ScalarType t = kFloat) { return TensorOptions(t).device(kMeta); }

// ---------------------------------------------------------------- against naive loops

TEST(Gather, LargeMatchesLoopOnEveryDim) {
  const int64_t r = 300, c = 400;
  Tensor x = random_floats(r * c, 1).view({r, c});
  for (int64_t dim : {0, 1}) {
    Tensor idx = random_index(r * c, dim == 0 ? r : c, 2 + dim).view({r, c});
    Tensor out = gather(x, dim, idx);
    const float* xp = x.data_ptr<float>();
    const int64_t* ip = idx.data_ptr<int64_t>();
    const float* op = out.data_ptr<float>();
    for (int64_t i = 0; i < r; ++i)
      for (int64_t j = 0; j < c; ++j) {
        const int64_t k = ip[i * c + j];
        ASSERT_EQ(op[i * c + j], dim == 0 ? xp[k * c + j] : xp[i * c + k]) << i << "," << j;
      }
  }
}

// A 1-D scatter_add has no dim to split: each thread applies the updates landing in its own
// range of self. Sums must come out in index order, exactly as a serial loop adds them.
TEST(ScatterAdd, OneDimDuplicatesSumInIndexOrder) {
  const int64_t n = 200000, m = 1000;
  Tensor src = random_floats(n, 3);
  Tensor idx = random_index(n, m, 4);
  std::vector<float> want(m, 0.f);
  const float* s = src.data_ptr<float>();
  const int64_t* ip = idx.data_ptr<int64_t>();
  for (int64_t k = 0; k < n; ++k) want[ip[k]] += s[k];
  for (int threads : {1, 4}) {
    Threads t(threads);
    Tensor out = zeros({m});
    scatter_add_(out, 0, idx, src);
    const float* o = out.data_ptr<float>();
    for (int64_t k = 0; k < m; ++k) ASSERT_EQ(o[k], want[k]) << "threads " << threads << " at " << k;
  }
}

// Scatter along dim 0 of a matrix: threads split the columns, rows keep their order.
TEST(Scatter, TwoDimAssignLastWriteWinsWithAnyThreads) {
  const int64_t r = 500, c = 300;
  Tensor src = random_floats(r * c, 5).view({r, c});
  Tensor idx = random_index(r * c, 50, 6).view({r, c});
  std::vector<float> want(50 * c, 0.f);
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) want[idx.data_ptr<int64_t>()[i * c + j] * c + j] = src.data_ptr<float>()[i * c + j];
  Tensor base;
  for (int threads : {1, 3}) {
    Threads t(threads);
    Tensor out = zeros({50, c});
    scatter_(out, 0, idx, src);
    for (int64_t k = 0; k < 50 * c; ++k) ASSERT_EQ(out.data_ptr<float>()[k], want[k]);
    if (base.defined()) {
      EXPECT_TRUE(same_bits(out, base));
    }
    base = out;
  }
}

// In place along the contiguous dim, the checked index is compressed to uint16 before the
// updates (rows taken in pairs, an odd last row alone): sums in index order on any threads.
TEST(ScatterAdd, InPlaceAlongRowsMatchesLoopWithAnyThreads) {
  const int64_t r = 257, c = 1000;
  Tensor src = random_floats(r * c, 7).view({r, c});
  Tensor idx = random_index(r * c, c, 8).view({r, c});
  Tensor base = random_floats(r * c, 9).view({r, c});
  std::vector<float> want(base.data_ptr<float>(), base.data_ptr<float>() + r * c);
  for (int64_t i = 0; i < r; ++i)
    for (int64_t j = 0; j < c; ++j) want[i * c + idx.data_ptr<int64_t>()[i * c + j]] += src.data_ptr<float>()[i * c + j];
  for (int threads : {1, 2, 4}) {
    Threads t(threads);
    Tensor out = base.clone();
    scatter_add_(out, 1, idx, src);
    for (int64_t k = 0; k < r * c; ++k) ASSERT_EQ(out.data_ptr<float>()[k], want[k]) << threads << " threads at " << k;
  }
}

TEST(IndexSelect, RowsColumnsAndOneDimMatchLoops) {
  Tensor x = random_floats(1000 * 64, 7).view({1000, 64});
  Tensor rows = random_index(3000, 1000, 8);
  Tensor r = index_select(x, 0, rows);
  for (int64_t i = 0; i < 3000; ++i)
    for (int64_t j = 0; j < 64; ++j)
      ASSERT_EQ(r.data_ptr<float>()[i * 64 + j], x.data_ptr<float>()[rows.data_ptr<int64_t>()[i] * 64 + j]);
  Tensor cols = random_index(50, 64, 9).to(kInt32);  // int32 indices are accepted
  Tensor c = index_select(x, 1, cols);
  EXPECT_EQ(c.sizes().vec(), (std::vector<int64_t>{1000, 50}));
  EXPECT_TRUE(same_bits(c, index_select(x.t().contiguous(), 0, cols.to(kInt64)).t()));
  Tensor flat = x.view({-1});
  Tensor idx = random_index(100000, flat.numel(), 10);
  Tensor f = index_select(flat, 0, idx);
  for (int64_t i = 0; i < 100000; ++i)
    ASSERT_EQ(f.data_ptr<float>()[i], flat.data_ptr<float>()[idx.data_ptr<int64_t>()[i]]);
}

TEST(IndexAdd, RowsWithDuplicatesAndAlphaMatchLoop) {
  Tensor self = zeros({100, 32});
  Tensor src = random_floats(2000 * 32, 11).view({2000, 32});
  Tensor idx = random_index(2000, 100, 12);
  index_add_(self, 0, idx, src, 2);
  std::vector<float> want(100 * 32, 0.f);
  for (int64_t i = 0; i < 2000; ++i)
    for (int64_t j = 0; j < 32; ++j)
      want[idx.data_ptr<int64_t>()[i] * 32 + j] += src.data_ptr<float>()[i * 32 + j] * 2.f;
  for (int64_t k = 0; k < 100 * 32; ++k) ASSERT_EQ(self.data_ptr<float>()[k], want[k]);
}

TEST(Put, AccumulateOnNonContiguousSelfWritesBack) {
  Tensor base = zeros({6, 8});
  Tensor self = base.t();  // not contiguous: put_ works on a copy and copies it back
  put_(self, tensor<int64_t>({0, 0, 47, -1}), tensor<float>({1, 2, 3, 4}), /*accumulate=*/true);
  // Flat positions count in self's (logical) order: self[0][0] and self[7][5] = base[5][7].
  EXPECT_EQ(base.data_ptr<float>()[0], 3.f);
  EXPECT_EQ(base.data_ptr<float>()[5 * 8 + 7], 7.f);
  EXPECT_EQ(sum(base).item<float>(), 10.f);
}

// ---------------------------------------------------------------- checks before writes

TEST(ScatterErrors, BadIndexLeavesSelfUnchanged) {
  Tensor self = random_floats(100000, 13);
  Tensor before = self.clone();
  Tensor idx = random_index(100000, 100000, 14);
  idx.data_ptr<int64_t>()[99999] = 100000;  // only the last one is bad
  const uint32_t version = self.version();
  expect_error<RuntimeError>([&] { scatter_add_(self, 0, idx, random_floats(100000, 15)); },
                             "index 100000 is out of bounds for dimension 0 with size 100000");
  expect_error<RuntimeError>([&] { scatter_(self, 0, idx, Scalar(1.0)); }, "out of bounds");
  expect_error<IndexError>([&] { index_add_(self, 0, idx, random_floats(100000, 15)); },
                           "index out of range in self");
  expect_error<IndexError>([&] { index_copy_(self, 0, idx, random_floats(100000, 15)); }, "index_copy_(): index 100000");
  expect_error<IndexError>([&] { index_fill_(self, 0, idx, Scalar(2.0)); }, "index 100000 is out of bounds");
  expect_error<IndexError>([&] { put_(self, idx, random_floats(100000, 15)); }, "tried to access index 100000");
  EXPECT_TRUE(same_bits(self, before));
  EXPECT_EQ(self.version(), version);
}

// In place, a 2-D scatter checks its indices inside its parallel region: every thread checks
// its rows, and none writes before all have checked.
TEST(ScatterErrors, TwoDimBadIndexLeavesSelfUnchangedWithThreads) {
  for (int threads : {1, 2, 4}) {
    Threads t(threads);
    Tensor self = random_floats(400 * 300, 16).view({400, 300});
    Tensor before = self.clone();
    Tensor idx = random_index(400 * 300, 300, 17).view({400, 300});
    idx.data_ptr<int64_t>()[400 * 300 - 1] = -1;  // last row, last column
    expect_error<RuntimeError>([&] { scatter_add_(self, 1, idx, random_floats(400 * 300, 18).view({400, 300})); },
                               "index -1 is out of bounds for dimension 1 with size 300");
    expect_error<RuntimeError>([&] { scatter_reduce_(self, 1, idx, before, "amax", false); }, "index -1");
    EXPECT_TRUE(same_bits(self, before)) << threads << " threads";
    // The functional form checks as it writes, into its own output only.
    expect_error<RuntimeError>([&] { scatter_add(self, 1, idx, before); }, "index -1");
    EXPECT_TRUE(same_bits(self, before));
  }
}

TEST(ScatterErrors, FirstBadIndexIsReported) {
  Tensor x = zeros({4});
  expect_error<RuntimeError>([&] { gather(x, 0, tensor<int64_t>({0, 9, -3})); }, "index 9 is out of bounds");
  expect_error<IndexError>([&] { take(x, tensor<int64_t>({0, -5, 7})); }, "tried to access index -5");
  expect_error<RuntimeError>([&] { index_select(zeros({3, 4}), 1, tensor<int64_t>({1, 4})); },
                             "INDICES element is out of DATA bounds, id=4 axis_dim=4");
}

TEST(ScatterErrors, OverlapsAndExpandedSelf) {
  Tensor x = zeros({4, 3});
  expect_error<RuntimeError>([&] { scatter_(x, 1, zeros({1, 1}, kInt64), x); }, "single memory location");
  Tensor expanded = zeros({3}).expand({2, 3});
  expect_error<RuntimeError>([&] { scatter_add_(expanded, 0, zeros({1, 1}, kInt64), ones({1, 1})); },
                             "more than one element of the written-to tensor");
  // index_fill_ on an expanded tensor is allowed (PyTorch only warns): every alias gets the value.
  Tensor row = zeros({3});
  Tensor e = row.expand({4, 3});
  index_fill_(e, 1, tensor<int64_t>({1}), Scalar(5.0));
  EXPECT_EQ(row.data_ptr<float>()[1], 5.f);
  // A source that merely shares the storage is read before anything is written.
  Tensor y = arange(6, kFloat).view({2, 3});
  scatter_(y, 1, tensor<int64_t>({0, 0}).view({1, 2}), y.narrow(1, 1, 2));
  EXPECT_EQ(y.data_ptr<float>()[0], 2.f);
}

TEST(ScatterVersion, InPlaceAndOutBumpOnce) {
  Tensor x = zeros({5});
  uint32_t v = x.version();
  scatter_(x, 0, tensor<int64_t>({1}), Scalar(2));
  EXPECT_EQ(x.version(), v + 1);
  v = x.version();
  index_fill_(x, 0, tensor<int64_t>({2}), Scalar(1));
  EXPECT_EQ(x.version(), v + 1);
  Tensor out = empty({0});
  v = out.version();
  gather_out(out, x, 0, tensor<int64_t>({1, 2}));
  EXPECT_GT(out.version(), v);
  EXPECT_EQ(out.sizes().vec(), (std::vector<int64_t>{2}));
}

// ---------------------------------------------------------------- Meta, dtypes, dispatch

TEST(ScatterMeta, Shapes) {
  Tensor m = empty({3, 4}, meta());
  Tensor i = empty({2, 4}, meta(kInt64));
  EXPECT_EQ(gather(m, 0, i).sizes().vec(), (std::vector<int64_t>{2, 4}));
  EXPECT_TRUE(gather(m, 0, i).is_meta());
  EXPECT_EQ(scatter(m, 0, i, empty({2, 4}, meta())).sizes().vec(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(scatter_reduce(m, 0, i, empty({2, 4}, meta()), "mean").sizes().vec(), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(index_select(m, 1, empty({7}, meta(kInt64))).sizes().vec(), (std::vector<int64_t>{3, 7}));
  EXPECT_EQ(take(m, empty({2, 5}, meta(kInt64))).sizes().vec(), (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(take_along_dim(m, empty({3, 1}, meta(kInt64)), 1).sizes().vec(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(index_add(m, 0, empty({2}, meta(kInt64)), empty({2, 4}, meta())).sizes().vec(),
            (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(masked_fill(empty({4}, meta()), empty({3, 1}, meta(kBool)), 1).sizes().vec(),
            (std::vector<int64_t>{3, 4}));
  // Shape errors are found on Meta too.
  expect_error<RuntimeError>([&] { gather(m, 0, empty({2}, meta(kInt64))); }, "same number of dimensions");
  expect_error<RuntimeError>([&] { index_add(m, 0, empty({2}, meta(kInt64)), empty({3, 4}, meta())); },
                             "Number of indices");
}

TEST(Scatter, HalfAndBoolReductions) {
  Tensor h = zeros({2}, kHalf);
  scatter_add_(h, 0, tensor<int64_t>({0, 0, 1}), tensor<float>({1.5f, 2.f, -1.f}).to(kHalf));
  EXPECT_EQ(h.to(kFloat).data_ptr<float>()[0], 3.5f);
  Tensor b = tensor<bool>({false, true});
  Tensor r = scatter(b, 0, tensor<int64_t>({0, 1}), tensor<bool>({true, false}), "multiply");
  EXPECT_EQ(r.data_ptr<bool>()[0], false);  // and
  Tensor s = scatter_reduce(b, 0, tensor<int64_t>({0, 0}), tensor<bool>({true, false}), "sum");
  EXPECT_EQ(s.data_ptr<bool>()[0], true);  // or
  expect_error<RuntimeError>([&] { scatter_reduce(b, 0, tensor<int64_t>({0}), tensor<bool>({true}), "mean"); },
                             "not implemented");
  Tensor c = zeros({2}, kComplexFloat);
  expect_error<RuntimeError>([&] { scatter_reduce(c, 0, tensor<int64_t>({0}), ones({1}, kComplexFloat), "amax"); },
                             "not implemented");
}

TEST(ScatterReduce, MeanAndExcludeSelfMatchDefinition) {
  Tensor self = tensor<float>({10, 20, 30});
  Tensor idx = tensor<int64_t>({0, 0, 2});
  Tensor src = tensor<float>({1, 2, 3});
  Tensor mean_in = scatter_reduce(self, 0, idx, src, "mean");
  EXPECT_FLOAT_EQ(mean_in.data_ptr<float>()[0], 13.f / 3.f);
  EXPECT_FLOAT_EQ(mean_in.data_ptr<float>()[1], 20.f);
  EXPECT_FLOAT_EQ(mean_in.data_ptr<float>()[2], 16.5f);
  Tensor mean_ex = scatter_reduce(self, 0, idx, src, "mean", /*include_self=*/false);
  EXPECT_FLOAT_EQ(mean_ex.data_ptr<float>()[0], 1.5f);
  EXPECT_FLOAT_EQ(mean_ex.data_ptr<float>()[1], 20.f);
  Tensor amin_ex = scatter_reduce(self, 0, idx, src, "amin", false);
  EXPECT_EQ(amin_ex.data_ptr<float>()[0], 1.f);
  Tensor li = tensor<int64_t>({0, 0});
  Tensor m = scatter_reduce(zeros({1}, kInt64), 0, li, tensor<int64_t>({-3, -4}), "mean");
  EXPECT_EQ(m.data_ptr<int64_t>()[0], -3);  // floor(-7 / 3)
}

TEST(MaskedOps, FillAndScatter) {
  Tensor x = zeros({2, 3});
  masked_fill_(x, tensor<bool>({true, false, true}), Scalar(4.0));
  EXPECT_EQ(sum(x).item<float>(), 16.f);
  expect_error<RuntimeError>([&] { masked_fill_(x, tensor<bool>({true}), scalar_tensor(1).view({1})); },
                             "0-dimensional value tensor");
  Tensor small = zeros({2}, kInt8);
  expect_error<RuntimeError>([&] { masked_fill_(small, tensor<bool>({true, true}), Scalar(1000)); },
                             "value cannot be converted to type int8_t without overflow");
  Tensor y = zeros({2, 3});
  Tensor before = y.clone();
  expect_error<RuntimeError>([&] { masked_scatter_(y, ones({2, 3}, kBool), arange(5, kFloat)); },
                             "Number of elements of source < number of ones in mask");
  EXPECT_TRUE(same_bits(y, before));
  masked_scatter_(y, tensor<bool>({false, true, true}), arange(10, kFloat));
  EXPECT_EQ(y.data_ptr<float>()[1], 0.f);
  EXPECT_EQ(y.data_ptr<float>()[2], 1.f);
  EXPECT_EQ(y.data_ptr<float>()[5], 3.f);
  std::vector<Tensor> w = where(tensor<bool>({false, true, true}).view({1, 3}));
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[1].data_ptr<int64_t>()[1], 2);
  EXPECT_EQ(argwhere(tensor<int32_t>({0, 5, 7})).sizes().vec(), (std::vector<int64_t>{2, 1}));
}

TEST(ScatterDispatch, BoxedCallsReturnTheWrittenTensor) {
  const OpEntry* op = Dispatcher::get().find("scatter_.value");
  ASSERT_NE(op, nullptr);
  Tensor x = zeros({3});
  Stack s{IValue(x), IValue(int64_t(0)), IValue(tensor<int64_t>({2})), IValue(Scalar(7.0))};
  op->call_boxed(x.key_set(), s);
  ASSERT_EQ(s.size(), 4u);  // the arguments stay: the result is the (a!) one
  EXPECT_TRUE(s[0].tensor().is_same(x));
  EXPECT_EQ(x.data_ptr<float>()[2], 7.f);
}

}  // namespace
}  // namespace ember
