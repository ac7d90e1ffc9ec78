// matmul, mm, bmm, matmul_out against a naive triple loop in double (or wrapping int64 for
// integer types): every rank combination, broadcast batch dims, transposed / sliced /
// expanded operands, zero-size dims, dtypes, errors, Meta outputs, both float32 GEMMs.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "backends/cpu/blas.h"
#include "ember/ops.h"
#include "test_util.h"

using namespace ember;
using ember::testing::uniform;

namespace {

std::vector<complex128> cvalues(const Tensor& t) {
  Tensor c = t.to(kComplexDouble).contiguous();
  const complex128* p = c.data_ptr<complex128>();
  return std::vector<complex128>(p, p + c.numel());
}

// Naive torch.matmul in complex128 (exact enough for every dtype's reference), or with
// wrapping integer arithmetic when `wrap_bits` > 0.
std::vector<complex128> ref_matmul(const Tensor& a, const Tensor& b, std::vector<int64_t>* shape) {
  Tensor A = a.dim() == 1 ? a.unsqueeze(0) : a;
  Tensor B = b.dim() == 1 ? b.unsqueeze(-1) : b;
  std::vector<int64_t> ba(A.sizes().begin(), A.sizes().end() - 2), bb(B.sizes().begin(), B.sizes().end() - 2);
  DimVector batch = broadcast_shapes(ba, bb);
  const int64_t m = A.sizes()[A.dim() - 2], k = A.sizes()[A.dim() - 1], n = B.sizes()[B.dim() - 1];
  DimVector ea(batch), eb(batch);
  ea.push_back(m); ea.push_back(k);
  eb.push_back(k); eb.push_back(n);
  std::vector<complex128> va = cvalues(A.expand(ea)), vb = cvalues(B.expand(eb));
  const int64_t nb = compute_numel(batch);
  std::vector<complex128> r(static_cast<size_t>(nb * m * n));
  for (int64_t q = 0; q < nb; ++q)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        complex128 s = 0;
        for (int64_t p = 0; p < k; ++p) s += va[(q * m + i) * k + p] * vb[(q * k + p) * n + j];
        r[(q * m + i) * n + j] = s;
      }
  shape->assign(batch.begin(), batch.end());
  if (a.dim() > 1) shape->push_back(m);
  if (b.dim() > 1) shape->push_back(n);
  return r;
}

void expect_matmul(const Tensor& a, const Tensor& b, const Tensor& got, const std::string& what) {
  std::vector<int64_t> shape;
  std::vector<complex128> want = ref_matmul(a, b, &shape);
  ASSERT_EQ(got.sizes().vec(), shape) << what;
  ASSERT_EQ(got.dtype(), a.dtype()) << what;
  std::vector<complex128> g = cvalues(got);
  const ScalarType dt = a.dtype();
  const double tol = dt == kFloat || dt == kComplexFloat ? 1e-4 : dt == kBFloat16 ? 5e-2 : 1e-10;
  for (size_t i = 0; i < g.size(); ++i) {
    if (is_integral(dt)) {
      // Integer results wrap modulo 2^bits like PyTorch's.
      const int bits = static_cast<int>(itemsize(dt)) * 8;
      const auto exact = static_cast<int64_t>(want[i].real());
      int64_t w = bits == 64 ? exact : (exact & ((int64_t(1) << bits) - 1));
      if (dt != kUInt8 && bits < 64 && w >= (int64_t(1) << (bits - 1))) w -= int64_t(1) << bits;
      ASSERT_EQ(static_cast<int64_t>(g[i].real()), w) << what << " at " << i;
    } else {
      ASSERT_NEAR(std::abs(g[i] - want[i]), 0.0, tol * (1 + std::abs(want[i]))) << what << " at " << i;
    }
  }
}

}  // namespace

TEST(MatmulShapes, RankCombinations) {
  struct Case { std::vector<int64_t> a, b; };
  const std::vector<Case> cases = {
      {{5}, {5}},          {{3, 5}, {5}},          {{5}, {5, 4}},        {{3, 5}, {5, 4}},
      {{2, 3, 5}, {5}},    {{5}, {2, 5, 4}},       {{2, 3, 5}, {5, 4}},  {{3, 5}, {2, 5, 4}},
      {{2, 3, 5}, {2, 5, 4}}, {{2, 1, 3, 5}, {4, 5, 2}}, {{1, 3, 5}, {6, 5, 4}}, {{6, 1, 5}, {6, 5, 1}},
      {{1, 5}, {5, 1}},    {{70, 90}, {90, 65}},   {{4, 33, 17}, {17, 9}}};
  for (ScalarType dt : {kFloat, kDouble, kComplexFloat, kComplexDouble, kInt64, kInt32}) {
    for (const auto& c : cases) {
      Tensor a = uniform(c.a, dt, -3, 3, 1), b = uniform(c.b, dt, -3, 3, 2);
      expect_matmul(a, b, matmul(a, b), std::string(dtype_name(dt)));
      expect_matmul(a, b, a.matmul(b), "method");
    }
  }
}

TEST(MatmulLayouts, TransposedSlicedExpanded) {
  for (ScalarType dt : {kFloat, kDouble, kComplexFloat, kInt32}) {
    Tensor base_a = uniform({40, 30}, dt, -2, 2, 3), base_b = uniform({30, 50}, dt, -2, 2, 4);
    Tensor at = base_a.t().contiguous().t();        // column-major A
    Tensor bt = base_b.t().contiguous().t();        // column-major B
    Tensor as = uniform({40, 60}, dt, -2, 2, 5).slice(1, 0, std::nullopt, 2);  // no unit stride
    Tensor bs = uniform({60, 50}, dt, -2, 2, 6).slice(0, 0, std::nullopt, 2);
    for (const Tensor& a : {base_a, at, as})
      for (const Tensor& b : {base_b, bt, bs}) {
        expect_matmul(a, b, matmul(a, b), "layouts");
        expect_matmul(a, b, mm(a, b), "mm layouts");
      }
    // Vectors with strides, matrices for gemv in both storage orders.
    Tensor v = uniform({60}, dt, -2, 2, 7).slice(0, 0, std::nullopt, 2);
    expect_matmul(at, v, matmul(at, v), "mv transposed");
    expect_matmul(as, v, matmul(as, v), "mv sliced");
    Tensor w = uniform({60}, dt, -2, 2, 8).slice(0, 0, std::nullopt, 2);
    expect_matmul(w, bt, matmul(w, bt), "vm transposed");
    expect_matmul(w, base_b, matmul(w, base_b), "vm");
    expect_matmul(w, bs, matmul(w, bs), "vm sliced");
    expect_matmul(v, v, matmul(v, v), "dot strided");
    // Expanded (stride-0) operands.
    Tensor e = uniform({1, 30}, dt, -2, 2, 9).expand({40, 30});
    expect_matmul(e, base_b, matmul(e, base_b), "expanded rows");
    Tensor ev = uniform({1}, dt, -2, 2, 10).expand({30});
    expect_matmul(base_a, ev, matmul(base_a, ev), "expanded vector");
    expect_matmul(ev, ev, matmul(ev, ev), "expanded dot");
    // Batched with transposed batches and a broadcast matrix.
    Tensor ba = uniform({3, 30, 40}, dt, -2, 2, 11).transpose(1, 2);
    expect_matmul(ba, base_b, matmul(ba, base_b), "batched transposed folded");
    Tensor bb = uniform({3, 50, 30}, dt, -2, 2, 12).transpose(1, 2);
    expect_matmul(ba, bb, bmm(ba, bb), "bmm transposed");
    expect_matmul(base_a, bb, matmul(base_a, bb), "broadcast left matrix");
  }
}

TEST(MatmulDtypes, IntegersBFloat16AndRejected) {
  for (ScalarType dt : {kUInt8, kInt8, kInt16, kInt32, kInt64}) {
    // Values large enough that the products overflow the narrow types.
    Tensor a = uniform({7, 9}, dt, -120, 120, 1), b = uniform({9, 5}, dt, -120, 120, 2);
    expect_matmul(a, b, matmul(a, b), std::string(dtype_name(dt)));
    Tensor v = uniform({9}, dt, -120, 120, 3);
    expect_matmul(v, v, matmul(v, v), "int dot");
    expect_matmul(a, v, matmul(a, v), "int mv");
    Tensor ba = uniform({3, 7, 9}, dt, -50, 50, 4), bb = uniform({3, 9, 300}, dt, -50, 50, 5);
    expect_matmul(ba, bb, bmm(ba, bb), "int bmm (column blocks)");
  }
  Tensor a = uniform({20, 30}, kBFloat16), b = uniform({30, 10}, kBFloat16, -1, 1, 2);
  expect_matmul(a, b, matmul(a, b), "bfloat16");
  Tensor v = uniform({30}, kBFloat16, -1, 1, 3);
  expect_matmul(v, v, matmul(v, v), "bfloat16 dot");
  for (ScalarType dt : {kBool, kHalf}) {
    EXPECT_THROW(matmul(zeros({2, 3}, dt), zeros({3, 4}, dt)), RuntimeError);
    EXPECT_THROW(matmul(zeros({3}, dt), zeros({3}, dt)), RuntimeError);
    EXPECT_THROW(bmm(zeros({1, 2, 3}, dt), zeros({1, 3, 4}, dt)), RuntimeError);
  }
}

TEST(MatmulShapes, ZeroSize) {
  Tensor r = matmul(zeros({0, 3}), zeros({3, 4}));
  EXPECT_EQ(r.sizes().vec(), std::vector<int64_t>({0, 4}));
  Tensor k0 = matmul(ones({2, 0}), ones({0, 4}));
  EXPECT_EQ(k0.sizes().vec(), std::vector<int64_t>({2, 4}));
  EXPECT_EQ(k0.abs().max().item<double>(), 0.0);
  Tensor d0 = matmul(ones({0}), ones({0}));
  EXPECT_EQ(d0.dim(), 0);
  EXPECT_EQ(d0.item<double>(), 0.0);
  EXPECT_EQ(matmul(ones({0, 2, 3}), ones({3, 4})).sizes().vec(), std::vector<int64_t>({0, 2, 4}));
  EXPECT_EQ(bmm(ones({2, 3, 0}, kInt32), ones({2, 0, 5}, kInt32)).sum().item<int64_t>(), 0);
}

TEST(MatmulErrors, ShapesAndDtypes) {
  EXPECT_THROW(matmul(scalar_tensor(1.0), ones({3})), RuntimeError);
  EXPECT_THROW(matmul(ones({3}), scalar_tensor(1.0)), RuntimeError);
  EXPECT_THROW(matmul(ones({3}), ones({4})), RuntimeError);
  EXPECT_THROW(matmul(ones({2, 3}), ones({4, 5})), RuntimeError);
  EXPECT_THROW(matmul(ones({2, 3}), ones({4})), RuntimeError);
  EXPECT_THROW(matmul(ones({4}), ones({2, 3})), RuntimeError);
  EXPECT_THROW(matmul(ones({2, 2, 3}), ones({3, 3, 4})), RuntimeError);
  EXPECT_THROW(matmul(ones({2, 3}), ones({3, 4}, kDouble)), RuntimeError);
  EXPECT_THROW(matmul(ones({3}), ones({3}, kInt64)), RuntimeError);
  EXPECT_THROW(mm(ones({3}), ones({3, 5})), RuntimeError);
  EXPECT_THROW(mm(ones({2, 3}), ones({3})), RuntimeError);
  EXPECT_THROW(mm(ones({2, 3}), ones({4, 5})), RuntimeError);
  EXPECT_THROW(bmm(ones({2, 3}), ones({3, 4})), RuntimeError);
  EXPECT_THROW(bmm(ones({2, 2, 3}), ones({3, 3, 4})), RuntimeError);
  EXPECT_THROW(bmm(ones({2, 2, 3}), ones({2, 4, 4})), RuntimeError);
  try {
    mm(ones({2, 3}), ones({4, 5}));
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("2x3 and 4x5"), std::string::npos) << e.what();
  }
}

TEST(MatmulOut, ResizesAndChecks) {
  Tensor a = uniform({3, 4}, kFloat), b = uniform({4, 5}, kFloat, -1, 1, 2);
  Tensor out = empty({0}, kFloat);
  Tensor& r = matmul_out(out, a, b);
  EXPECT_TRUE(r.is_same(out));
  expect_matmul(a, b, out, "out resized");
  // Non-contiguous out.
  Tensor o2 = zeros({5, 3}).t();           // 3 x 5, column-major
  matmul_out(o2, a, b);
  expect_matmul(a, b, o2, "out transposed");
  // Wrong dtype.
  Tensor od = empty({3, 5}, kDouble);
  EXPECT_THROW(matmul_out(od, a, b), RuntimeError);
  // Out aliasing an input.
  Tensor sq = uniform({4, 4}, kDouble), sq2 = sq.clone();
  matmul_out(sq, sq, sq);
  expect_matmul(sq2, sq2, sq, "aliased out");
}

TEST(MatmulMeta, Shapes) {
  auto meta = [](IntArrayRef s, ScalarType dt = kFloat) { return empty(s, TensorOptions(dt).device(kMeta)); };
  Tensor r = matmul(meta({2, 1, 3, 5}), meta({4, 5, 7}));
  EXPECT_TRUE(r.is_meta());
  EXPECT_EQ(r.sizes().vec(), std::vector<int64_t>({2, 4, 3, 7}));
  EXPECT_EQ(matmul(meta({5}), meta({5})).dim(), 0);
  EXPECT_EQ(mm(meta({2, 3}, kInt32), meta({3, 4}, kInt32)).dtype(), kInt32);
  EXPECT_EQ(bmm(meta({6, 2, 3}), meta({6, 3, 4})).sizes().vec(), std::vector<int64_t>({6, 2, 4}));
  EXPECT_THROW(matmul(meta({2, 3}), meta({4, 5})), RuntimeError);
  EXPECT_THROW(matmul(meta({2, 3}, kHalf), meta({3, 5}, kHalf)), RuntimeError);
}

TEST(MatmulBackends, OneDnnAndOpenBlasAgree) {
  // Both float32 GEMMs, through the same entry point, on every transpose combination.
  const int64_t m = 600, n = 520, k = 530;
  ASSERT_STREQ(cpu::sgemm_backend(m, n, k), "onednn");
  ASSERT_STREQ(cpu::sgemm_backend(8, 8, k), "openblas");  // deep: k far above m and n
  ASSERT_STREQ(cpu::sgemm_backend(16, 16, 16), "openblas");  // tiny
  Tensor a = uniform({m, k}, kFloat), b = uniform({k, n}, kFloat, -1, 1, 2);
  Tensor ad = a.to(kDouble), bd = b.to(kDouble);
  Tensor want = matmul(ad, bd);
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      Tensor A = ta ? a.t().contiguous().t() : a, B = tb ? b.t().contiguous().t() : b;
      Tensor big = matmul(A, B);  // oneDNN at this size
      Tensor diff = (big.to(kDouble) - want);
      EXPECT_LT(std::max(diff.max().item<double>(), -diff.min().item<double>()), 1e-3);
      // An 8x8 corner of the same product goes to OpenBLAS.
      Tensor slab = matmul(A.narrow(0, 0, 8), B.narrow(1, 0, 8));
      Tensor d2 = slab.to(kDouble) - want.narrow(0, 0, 8).narrow(1, 0, 8);
      EXPECT_LT(std::max(d2.max().item<double>(), -d2.min().item<double>()), 1e-3);
    }
}

TEST(MatmulBatched, ManySmallProducts) {
  // Threaded over the batch (BLAS single-threaded inside).
  Tensor a = uniform({200, 8, 12}, kFloat), b = uniform({200, 12, 6}, kFloat, -1, 1, 2);
  expect_matmul(a, b, bmm(a, b), "small batch");
  Tensor c = uniform({200, 12}, kDouble);
  Tensor m2 = uniform({200, 8, 12}, kDouble, -1, 1, 4);
  expect_matmul(m2, c.unsqueeze(-1), matmul(m2, c.unsqueeze(-1)), "batched mv");
}
