// Invariants of the core: dtype promotion, 16-bit float conversions, views and storage
// sharing, version counters, contiguity, the caching CPU allocator, and error classes.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "ember/ops.h"
#include "ember/tensor_data.h"
#include "ops/iter.h"

using namespace ember;

namespace {

constexpr ScalarType b1 = kBool, u1 = kUInt8, i1 = kInt8, i2 = kInt16, i4 = kInt32, i8 = kInt64,
                     f2 = kHalf, bf = kBFloat16, f4 = kFloat, f8 = kDouble, c4 = kComplexFloat,
                     c8 = kComplexDouble;
// float16 with a complex operand is complex32 in PyTorch; Ember has no complex32 and uses
// complex64 (see ARCHITECTURE.md).
constexpr ScalarType C2 = kComplexFloat;
constexpr ScalarType kAll[] = {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8};
constexpr float kInf = std::numeric_limits<float>::infinity();

Tensor arange_f(int64_t n, ScalarType dtype = kFloat) {
  std::vector<float> v(static_cast<size_t>(n));
  std::iota(v.begin(), v.end(), 0.f);
  return tensor(v).to(dtype);
}

std::vector<float> values(const Tensor& t) {
  Tensor c = t.contiguous().to(kFloat);
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

ScalarType iter_dtype(const Tensor& a, const Tensor& b) {
  IterConfig cfg;
  cfg.cast_inputs = false;
  ElementwiseIter it("test", Tensor(), {a, b}, cfg);
  return it.compute_dtype();
}

template <typename E, typename F>
std::string error_message(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception class: " << e.what();
    return "";
  }
  ADD_FAILURE() << "no exception";
  return "";
}

uint16_t half_bits(float f) { return Half::from_float(f); }
uint16_t bf16_bits(float f) { return BFloat16::from_float(f); }

}  // namespace

// ---------------------------------------------------------------- dtype promotion
// Generated with torch.promote_types (PyTorch 1.13), rows and columns in enum order.
TEST(CorePromotion, PromoteTypesMatchesTorch) {
  const ScalarType expected[12][12] = {
      /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* u1 */ {u1, u1, i2, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i1 */ {i1, i2, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i2 */ {i2, i2, i2, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i4 */ {i4, i4, i4, i4, i4, i8, f2, bf, f4, f8, c4, c8},
      /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8, c4, c8},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f4, f4, f8, c4, c8},
      /* bf */ {bf, bf, bf, bf, bf, bf, f4, bf, f4, f8, c4, c8},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f8, c4, c8},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8, c8, c8},
      /* c4 */ {c4, c4, c4, c4, c4, c4, c4, c4, c4, c8, c4, c8},
      /* c8 */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8},
  };
  for (int a = 0; a < 12; ++a)
    for (int b = 0; b < 12; ++b)
      EXPECT_EQ(promote_types(kAll[a], kAll[b]), expected[a][b])
          << dtype_name(kAll[a]) << " with " << dtype_name(kAll[b]);
  EXPECT_THROW(promote_types(kFloat, ScalarType::Undefined), TypeError);
}

// torch.result_type(ones(2, dtype=row), ones((), dtype=col)): a 0-dim tensor only counts
// when it is of a higher category (bool < integer < floating < complex).
TEST(CorePromotion, ZeroDimTensorsAreWeakerThanDimensioned) {
  const ScalarType expected[12][12] = {
      /* b1 */ {b1, u1, i1, i2, i4, i8, f2, bf, f4, f8, c4, c8},
      /* u1 */ {u1, u1, u1, u1, u1, u1, f2, bf, f4, f8, c4, c8},
      /* i1 */ {i1, i1, i1, i1, i1, i1, f2, bf, f4, f8, c4, c8},
      /* i2 */ {i2, i2, i2, i2, i2, i2, f2, bf, f4, f8, c4, c8},
      /* i4 */ {i4, i4, i4, i4, i4, i4, f2, bf, f4, f8, c4, c8},
      /* i8 */ {i8, i8, i8, i8, i8, i8, f2, bf, f4, f8, c4, c8},
      /* f2 */ {f2, f2, f2, f2, f2, f2, f2, f2, f2, f2, C2, C2},
      /* bf */ {bf, bf, bf, bf, bf, bf, bf, bf, bf, bf, c4, c4},
      /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f4, f4, f4, c4, c4},
      /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, f8, f8, c8, c8},
      /* c4 */ {c4, c4, c4, c4, c4, c4, c4, c4, c4, c4, c4, c4},
      /* c8 */ {c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8, c8},
  };
  for (int a = 0; a < 12; ++a) {
    Tensor ta = ones({2}, kAll[a]);
    for (int b = 0; b < 12; ++b) {
      Tensor tb = scalar_tensor(1, kAll[b]);
      EXPECT_EQ(iter_dtype(ta, tb), expected[a][b])
          << dtype_name(kAll[a]) << "[2] with " << dtype_name(kAll[b]) << "[]";
      // The order of the operands does not matter.
      EXPECT_EQ(iter_dtype(tb, ta), expected[a][b]);
    }
  }
}

// torch.result_type(tensor, number) for True, 2, 2.5 and 1j, for a 1-dim and a 0-dim tensor
// (the same table: a number is weaker than both).
TEST(CorePromotion, PythonNumbersAreWeakest) {
  const ScalarType expected[12][4] = {
      /* b1 */ {b1, i8, f4, c4}, /* u1 */ {u1, u1, f4, c4}, /* i1 */ {i1, i1, f4, c4},
      /* i2 */ {i2, i2, f4, c4}, /* i4 */ {i4, i4, f4, c4}, /* i8 */ {i8, i8, f4, c4},
      /* f2 */ {f2, f2, f2, C2}, /* bf */ {bf, bf, bf, c4}, /* f4 */ {f4, f4, f4, c4},
      /* f8 */ {f8, f8, f8, c8}, /* c4 */ {c4, c4, c4, c4}, /* c8 */ {c8, c8, c8, c8},
  };
  const Scalar numbers[4] = {Scalar(true), Scalar(int64_t(2)), Scalar(2.5), Scalar(complex128(0, 1))};
  for (int a = 0; a < 12; ++a) {
    for (int k = 0; k < 4; ++k) {
      Tensor w = wrapped_scalar(numbers[k]);
      ASSERT_TRUE(w.impl()->is_wrapped_number());
      EXPECT_EQ(iter_dtype(ones({2}, kAll[a]), w), expected[a][k]) << dtype_name(kAll[a]) << " k=" << k;
      EXPECT_EQ(iter_dtype(w, scalar_tensor(1, kAll[a])), expected[a][k]) << dtype_name(kAll[a]) << "[] k=" << k;
    }
  }
  // The float number follows the default dtype.
  set_default_dtype(kDouble);
  EXPECT_EQ(iter_dtype(ones({2}, kInt32), wrapped_scalar(2.5)), kDouble);
  EXPECT_EQ(iter_dtype(ones({2}, kInt32), wrapped_scalar(complex128(0, 1))), kComplexDouble);
  set_default_dtype(kFloat);
}

TEST(CorePromotion, ArithmeticResultsUseThePromotedDtype) {
  EXPECT_EQ((ones({2}, kInt8) + ones({2}, kUInt8)).dtype(), kInt16);
  EXPECT_EQ((ones({2}, kInt32) + 2.5).dtype(), kFloat);
  EXPECT_EQ((ones({2}, kHalf) * scalar_tensor(2.0, kDouble)).dtype(), kHalf);
  EXPECT_EQ((ones({2}, kInt64) / ones({2}, kInt64)).dtype(), kFloat);
  EXPECT_EQ((ones({2}, kBool) + ones({2}, kBool)).dtype(), kBool);
}

TEST(CoreDtype, NamesAndProperties) {
  EXPECT_EQ(dtype_name(kBFloat16), "bfloat16");
  EXPECT_EQ(dtype_from_name("torch.float64"), kDouble);
  EXPECT_EQ(dtype_from_name("half"), kHalf);
  EXPECT_EQ(dtype_from_name("nope"), ScalarType::Undefined);
  for (ScalarType t : kAll) EXPECT_EQ(dtype_from_name(dtype_name(t)), t);
  EXPECT_EQ(itemsize(kComplexDouble), 16u);
  EXPECT_TRUE(is_integral(kBool, true));
  EXPECT_FALSE(is_integral(kBool));
  EXPECT_EQ(to_complex_type(kDouble), kComplexDouble);
  EXPECT_EQ(to_real_type(kComplexFloat), kFloat);
  EXPECT_THROW(set_default_dtype(kInt32), TypeError);
}

// ---------------------------------------------------------------- 16-bit floats
TEST(CoreHalf, EveryBitPatternRoundTrips) {
  for (uint32_t b = 0; b < 65536; ++b) {
    float f = Half::to_float(static_cast<uint16_t>(b));
    if (std::isnan(f)) {
      ASSERT_TRUE(std::isnan(Half::to_float(half_bits(f)))) << b;
      ASSERT_EQ(half_bits(f) & 0x8000, b & 0x8000);
    } else {
      ASSERT_EQ(half_bits(f), b) << f;
    }
  }
}

TEST(CoreHalf, RoundsToNearestEven) {
  // Every pair of neighbouring finite halves (subnormals included): the midpoint goes to the
  // even one, anything off the midpoint to the nearer one.
  for (uint16_t h = 0; h < 0x7bff; ++h) {
    float lo = Half::to_float(h), hi = Half::to_float(static_cast<uint16_t>(h + 1));
    float mid = (lo + hi) / 2;  // exact: halves have 11 significant bits
    uint16_t even = (h & 1) ? static_cast<uint16_t>(h + 1) : h;
    ASSERT_EQ(half_bits(mid), even) << mid;
    ASSERT_EQ(half_bits(-mid), even | 0x8000) << -mid;
    ASSERT_EQ(half_bits(std::nextafter(mid, 0.f)), h) << mid;
    ASSERT_EQ(half_bits(std::nextafter(mid, kInf)), h + 1) << mid;
  }
  // Values from torch.tensor(v).to(torch.float16).
  EXPECT_EQ(half_bits(1.f / 3), 0x3555);
  EXPECT_EQ(half_bits(65504.f), 0x7bff);
  EXPECT_EQ(half_bits(65520.f), 0x7c00);  // halfway to 65536 rounds up, to infinity
  EXPECT_EQ(half_bits(65519.99f), 0x7bff);
  EXPECT_EQ(half_bits(5.96e-8f), 0x0001);
  EXPECT_EQ(half_bits(2.98e-8f), 0x0000);
  EXPECT_EQ(half_bits(2.99e-8f), 0x0001);
  EXPECT_EQ(half_bits(1e-5f), 0x00a8);
  EXPECT_EQ(half_bits(1e-40f), 0x0000);
  EXPECT_EQ(half_bits(3e38f), 0x7c00);
  EXPECT_EQ(half_bits(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_EQ(half_bits(0.1f), 0x2e66);
  EXPECT_EQ(half_bits(-2.5f), 0xc100);
}

TEST(CoreBFloat16, EveryBitPatternRoundTrips) {
  for (uint32_t b = 0; b < 65536; ++b) {
    float f = BFloat16::to_float(static_cast<uint16_t>(b));
    if (std::isnan(f)) {
      ASSERT_TRUE(std::isnan(BFloat16::to_float(bf16_bits(f)))) << b;
    } else {
      ASSERT_EQ(bf16_bits(f), b) << f;
    }
  }
}

TEST(CoreBFloat16, RoundsToNearestEven) {
  for (uint16_t h = 0; h < 0x7f7f; ++h) {
    float lo = BFloat16::to_float(h), hi = BFloat16::to_float(static_cast<uint16_t>(h + 1));
    float mid = lo + (hi - lo) / 2;  // exact, and no overflow near FLT_MAX
    uint16_t even = (h & 1) ? static_cast<uint16_t>(h + 1) : h;
    ASSERT_EQ(bf16_bits(mid), even) << mid;
    ASSERT_EQ(bf16_bits(-mid), even | 0x8000) << -mid;
    ASSERT_EQ(bf16_bits(std::nextafter(mid, 0.f)), h) << mid;
    ASSERT_EQ(bf16_bits(std::nextafter(mid, kInf)), h + 1) << mid;
  }
  EXPECT_EQ(bf16_bits(1.f / 3), 0x3eab);
  EXPECT_EQ(bf16_bits(65504.f), 0x4780);
  EXPECT_EQ(bf16_bits(1e-5f), 0x3728);
  EXPECT_EQ(bf16_bits(1e-40f), 0x0001);  // bfloat16 keeps float's subnormals
  EXPECT_EQ(bf16_bits(3e38f), 0x7f62);
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(bf16_bits(0.1f), 0x3dcd);
}

// The copy kernels (vectorized per ISA) convert exactly like the scalar functions.
TEST(CoreHalf, TensorConversionsMatchScalarConversions) {
  std::vector<float> v;
  for (uint32_t h = 0; h < 0x7c00; h += 7) {
    float lo = Half::to_float(static_cast<uint16_t>(h)), hi = Half::to_float(static_cast<uint16_t>(h + 1));
    v.push_back((lo + hi) / 2);
    v.push_back(-lo);
  }
  for (uint32_t h = 0; h < 0x7f80; h += 13) {
    float lo = BFloat16::to_float(static_cast<uint16_t>(h)), hi = BFloat16::to_float(static_cast<uint16_t>(h + 1));
    v.push_back((lo + hi) / 2);
  }
  v.push_back(std::numeric_limits<float>::quiet_NaN());
  v.push_back(std::numeric_limits<float>::infinity());
  Tensor f = tensor(v);
  Tensor h = f.to(kHalf), b = f.to(kBFloat16);
  const Half* hp = h.data_ptr<Half>();
  const BFloat16* bp = b.data_ptr<BFloat16>();
  for (size_t i = 0; i < v.size(); ++i) {
    if (std::isnan(v[i])) {
      EXPECT_TRUE(std::isnan(float(hp[i])));
      EXPECT_TRUE(std::isnan(float(bp[i])));
      continue;
    }
    ASSERT_EQ(hp[i].bits, half_bits(v[i])) << v[i];
    ASSERT_EQ(bp[i].bits, bf16_bits(v[i])) << v[i];
  }
  // And back to float exactly.
  Tensor hf = h.to(kFloat), bff = b.to(kFloat);
  for (size_t i = 0; i < v.size(); ++i) {
    if (std::isnan(v[i])) continue;
    ASSERT_EQ(hf.data_ptr<float>()[i], Half::to_float(hp[i].bits));
    ASSERT_EQ(bff.data_ptr<float>()[i], BFloat16::to_float(bp[i].bits));
  }
}

// ---------------------------------------------------------------- views
TEST(CoreViews, ViewsShareStorageAndWriteThrough) {
  Tensor base = arange_f(12).view({3, 4});
  const float* p = base.data_ptr<float>();

  Tensor v = base.view({4, 3});
  EXPECT_TRUE(v.is_alias_of(base));
  EXPECT_EQ(v.data_ptr(), base.data_ptr());
  v.select(0, 1).fill_(-1);  // elements 3, 4, 5
  EXPECT_EQ(p[3], -1);
  EXPECT_EQ(p[5], -1);
  EXPECT_EQ(p[6], 6);

  Tensor pt = base.permute({1, 0});
  EXPECT_TRUE(pt.is_alias_of(base));
  EXPECT_TRUE(pt.strides().equals({1, 4}));
  pt.select(0, 2).fill_(7);  // column 2
  EXPECT_EQ(p[2], 7);
  EXPECT_EQ(p[6], 7);
  EXPECT_EQ(p[10], 7);

  Tensor sl = base.slice(1, 1, 4, 2);  // columns 1 and 3
  EXPECT_TRUE(sl.sizes().equals({3, 2}));
  EXPECT_EQ(sl.storage_offset(), 1);
  sl.fill_(9);
  EXPECT_EQ(values(base), (std::vector<float>{0, 9, 7, 9, -1, 9, 7, 9, 8, 9, 7, 9}));

  Tensor sel = base.select(0, -1);
  EXPECT_EQ(sel.storage_offset(), 8);
  sel.copy_(tensor({1.f, 2.f, 3.f, 4.f}));
  EXPECT_EQ(values(base.select(0, 2)), (std::vector<float>{1, 2, 3, 4}));
}

TEST(CoreViews, ExpandDiagonalUnfoldRealImag) {
  Tensor col = arange_f(3).view({3, 1});
  Tensor e = col.expand({3, 4});
  EXPECT_TRUE(e.is_alias_of(col));
  EXPECT_TRUE(e.strides().equals({1, 0}));
  col.mul_(scalar_tensor(10.f));
  EXPECT_EQ(values(e.select(1, 3)), (std::vector<float>{0, 10, 20}));
  // Writing into an expanded view is refused, as in PyTorch.
  EXPECT_THROW(e.copy_(ones({3, 4})), RuntimeError);

  Tensor m = zeros({3, 3});
  Tensor d = m.diagonal();
  EXPECT_TRUE(d.strides().equals({4}));
  d.fill_(1);
  EXPECT_EQ(values(m), (std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  m.diagonal(1).fill_(2);
  m.diagonal(-1).fill_(3);
  EXPECT_EQ(values(m), (std::vector<float>{1, 2, 0, 3, 1, 2, 0, 3, 1}));

  Tensor x = arange_f(7);
  Tensor u = x.unfold(0, 3, 2);  // windows [0..2], [2..4], [4..6]
  EXPECT_TRUE(u.sizes().equals({3, 3}));
  EXPECT_TRUE(u.strides().equals({2, 1}));
  EXPECT_EQ(values(u), (std::vector<float>{0, 1, 2, 2, 3, 4, 4, 5, 6}));
  u.select(0, 1).select(0, 0).fill_(-5);  // x[2], shared by two windows
  EXPECT_EQ(x.data_ptr<float>()[2], -5);
  EXPECT_EQ(u.select(0, 0).select(0, 2).item<float>(), -5);

  Tensor c = zeros({2}, kComplexFloat);
  Tensor re = c.real(), im = c.imag();
  EXPECT_EQ(re.dtype(), kFloat);
  EXPECT_TRUE(re.strides().equals({2}));
  EXPECT_TRUE(re.is_alias_of(c) && im.is_alias_of(c));
  re.fill_(1.5);
  im.copy_(tensor({2.f, -3.f}));
  const complex64* cp = c.data_ptr<complex64>();
  EXPECT_EQ(cp[0], complex64(1.5f, 2.f));
  EXPECT_EQ(cp[1], complex64(1.5f, -3.f));
  EXPECT_THROW(ones({2}).imag(), RuntimeError);
  Tensor r = ones({2});
  EXPECT_TRUE(r.real().is_alias_of(r));
}

TEST(CoreViews, ReshapeCopiesOnlyWhenItMust) {
  Tensor x = arange_f(6).view({2, 3});
  EXPECT_TRUE(x.reshape({3, 2}).is_alias_of(x));
  Tensor t = x.t();
  EXPECT_THROW(t.view({6}), RuntimeError);
  Tensor r = t.reshape({6});
  EXPECT_FALSE(r.is_alias_of(x));
  EXPECT_EQ(values(r), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  // A view across a size-1 dim of any stride is still possible.
  Tensor s = arange_f(4).view({4, 1}).expand({4, 1});
  EXPECT_TRUE(s.view({2, 2}).is_alias_of(s));
}

// ---------------------------------------------------------------- version counter
TEST(CoreVersion, InPlaceOpsBumpTheSharedCounter) {
  Tensor x = zeros({2, 3});
  Tensor v = x.view({6});
  const uint32_t v0 = x.version();
  EXPECT_EQ(v.version(), v0);
  x.add_(ones({2, 3}));
  EXPECT_EQ(x.version(), v0 + 1);
  EXPECT_EQ(v.version(), v0 + 1);  // one counter per storage
  v.mul_(scalar_tensor(2.f));
  EXPECT_EQ(x.version(), v0 + 2);
  x.select(0, 1).copy_(ones({3}));
  EXPECT_EQ(v.version(), v0 + 3);
  x.fill_(4);
  EXPECT_EQ(x.version(), v0 + 4);
  Tensor out = empty({2, 3});
  const uint32_t o0 = out.version();
  add_out(out, x, x);
  EXPECT_EQ(out.version(), o0 + 1);
  // Out-of-place ops and views leave it alone.
  Tensor y = x + x;
  (void)x.t();
  EXPECT_EQ(x.version(), v0 + 4);
  EXPECT_EQ(y.version(), 0u);
  // A failed in-place op does not count.
  EXPECT_THROW(x.add_(ones({4})), RuntimeError);
  EXPECT_EQ(x.version(), v0 + 4);
  // clone() gets a counter of its own.
  Tensor c = x.clone();
  c.add_(ones({2, 3}));
  EXPECT_EQ(x.version(), v0 + 4);
}

// ---------------------------------------------------------------- contiguity
TEST(CoreContiguity, Flags) {
  Tensor x = empty({2, 3, 4});
  EXPECT_TRUE(x.is_contiguous());
  EXPECT_TRUE(x.strides().equals({12, 4, 1}));
  EXPECT_FALSE(x.transpose(0, 2).is_contiguous());
  EXPECT_FALSE(x.slice(2, 0, 4, 2).is_contiguous());
  EXPECT_TRUE(x.select(0, 1).is_contiguous());
  EXPECT_TRUE(x.slice(0, 1, 2).is_contiguous());
  EXPECT_FALSE(x.select(2, 0).is_contiguous());
  // Size-1 dims may have any stride; empty tensors are always contiguous.
  EXPECT_TRUE(empty_strided({2, 1, 3}, {3, 100, 1}).is_contiguous());
  EXPECT_TRUE(empty_strided({0, 5}, {1, 7}).is_contiguous());
  EXPECT_TRUE(empty({}).is_contiguous());
  EXPECT_FALSE(ones({3, 1}).expand({3, 2}).is_contiguous());
  // contiguous() returns the tensor itself when it already is, else a packed copy.
  EXPECT_TRUE(x.contiguous().is_same(x));
  Tensor t = arange_f(6).view({2, 3}).t();
  Tensor c = t.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_FALSE(c.is_alias_of(t));
  EXPECT_TRUE(c.strides().equals({2, 1}));
  EXPECT_EQ(values(c), (std::vector<float>{0, 3, 1, 4, 2, 5}));
  // Results follow the memory order of a permuted input.
  Tensor p = empty({2, 3, 4}).permute({2, 0, 1});
  Tensor r = p + p;
  EXPECT_TRUE(r.strides().equals(p.strides()));
}

// ---------------------------------------------------------------- caching allocator
class CoreAllocator : public ::testing::Test {
 protected:
  void SetUp() override {
    was_caching_ = cpu_allocator_caching();
    set_cpu_allocator_caching(true);
    cpu_allocator_empty_cache();
  }
  void TearDown() override { set_cpu_allocator_caching(was_caching_); }
  bool was_caching_ = true;
};

TEST_F(CoreAllocator, FreedBlocksAreReused) {
  const AllocatorStats s0 = cpu_allocator_stats();
  EXPECT_EQ(s0.bytes_cached, 0u);
  void* first;
  uint64_t rounded;
  {
    Tensor t = empty({12345}, kFloat);
    first = t.data_ptr();
    EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % 64, 0u);
    const AllocatorStats s1 = cpu_allocator_stats();
    EXPECT_EQ(s1.allocations, s0.allocations + 1);
    EXPECT_EQ(s1.cache_hits, s0.cache_hits);
    rounded = s1.bytes_in_use - s0.bytes_in_use;
    EXPECT_GE(rounded, 12345u * 4);
    EXPECT_LE(rounded, 12345u * 4 + 12345u * 4 / 8);  // size classes waste at most 12.5%
    EXPECT_GE(s1.peak_bytes_in_use, s1.bytes_in_use);
  }
  const AllocatorStats s2 = cpu_allocator_stats();
  EXPECT_EQ(s2.bytes_in_use, s0.bytes_in_use);
  EXPECT_EQ(s2.bytes_cached, rounded);
  {
    Tensor u = empty({12340}, kFloat);  // same size class
    EXPECT_EQ(u.data_ptr(), first);
    const AllocatorStats s3 = cpu_allocator_stats();
    EXPECT_EQ(s3.cache_hits, s2.cache_hits + 1);
    EXPECT_EQ(s3.bytes_cached, 0u);
    Tensor w = empty({20000}, kFloat);  // another class: from the system
    EXPECT_EQ(cpu_allocator_stats().cache_hits, s3.cache_hits);
  }
  cpu_allocator_empty_cache();
  EXPECT_EQ(cpu_allocator_stats().bytes_cached, 0u);
  const uint64_t hits = cpu_allocator_stats().cache_hits;
  Tensor again = empty({12345}, kFloat);
  EXPECT_EQ(cpu_allocator_stats().cache_hits, hits);
}

TEST_F(CoreAllocator, CachingCanBeTurnedOff) {
  { Tensor t = empty({5000}, kFloat); }
  EXPECT_GT(cpu_allocator_stats().bytes_cached, 0u);
  set_cpu_allocator_caching(false);
  EXPECT_FALSE(cpu_allocator_caching());
  EXPECT_EQ(cpu_allocator_stats().bytes_cached, 0u);  // turning it off frees the cache
  const uint64_t hits = cpu_allocator_stats().cache_hits;
  for (int i = 0; i < 3; ++i) {
    Tensor t = empty({5000}, kFloat);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % 64, 0u);
  }
  EXPECT_EQ(cpu_allocator_stats().cache_hits, hits);
  EXPECT_EQ(cpu_allocator_stats().bytes_cached, 0u);
  set_cpu_allocator_caching(true);
  { Tensor t = empty({5000}, kFloat); }
  { Tensor t = empty({5000}, kFloat); }
  EXPECT_EQ(cpu_allocator_stats().cache_hits, hits + 1);
}

TEST_F(CoreAllocator, ZeroSizedAndExternalMemory) {
  Tensor z = empty({0, 3});
  EXPECT_EQ(z.numel(), 0);
  EXPECT_NE(z.data_ptr(), nullptr);
  // from_blob memory is not the allocator's: it is neither counted nor cached.
  static bool freed = false;
  freed = false;
  std::vector<float> buf(100, 1.f);
  const AllocatorStats s0 = cpu_allocator_stats();
  {
    Tensor b = from_blob(buf.data(), {100}, {1}, kFloat, kCPU, [](void*, void*) { freed = true; });
    EXPECT_EQ(b.data_ptr(), buf.data());
    EXPECT_EQ(cpu_allocator_stats().allocations, s0.allocations);
    Tensor v = b.view({10, 10});
    b = Tensor();
    EXPECT_FALSE(freed);  // a view keeps the memory alive
  }
  EXPECT_TRUE(freed);
  EXPECT_EQ(cpu_allocator_stats().bytes_cached, s0.bytes_cached);
}

// Tiny fresh tensors carry their data inline in the TensorImpl's block (tensor_impl.cpp).
TEST_F(CoreAllocator, TinyTensorsKeepTheirDataInTheirBlock) {
  const AllocatorStats s0 = cpu_allocator_stats();
  Tensor a = full({3}, 2.f), b = full({3}, 5.f);
  Tensor c = add(a, b);  // the iterator's fast path
  Tensor e = empty({TensorImpl::kInlineBytes / 4}, kFloat);
  for (const Tensor& t : {a, b, c, e}) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(t.data_ptr()) % 64, 0u);
    EXPECT_EQ(t.storage()->allocator(), cpu_allocator());
    EXPECT_EQ(t.storage()->data(), t.data_ptr());
  }
  EXPECT_EQ(cpu_allocator_stats().allocations, s0.allocations);  // inline: not the allocator's
  EXPECT_EQ(cpu_allocator_stats().bytes_in_use, s0.bytes_in_use);
  // A view outlives its base: the block stays until the storage is gone too.
  Tensor v = c.view({1, 3});
  const void* data = c.data_ptr();
  c = Tensor();
  EXPECT_EQ(v.data_ptr(), data);
  EXPECT_EQ(v.sum().item().to<float>(), 21.f);
  v.add_(1);  // in-place writes still bump the shared version counter
  EXPECT_EQ(v.impl()->version(), 1u);
  // set_data drops the block's storage before its tensor.
  Tensor f = full({2}, 1.f);
  set_data(f, full({4}, 3.f));
  EXPECT_EQ(f.sum().item().to<float>(), 12.f);
  // Growing past the inline data takes an allocator block, which keeps the values.
  Tensor g = arange(4, kFloat);
  resize_(g, {1000});
  EXPECT_EQ(cpu_allocator_stats().allocations, s0.allocations + 1);
  EXPECT_EQ(g.narrow(0, 0, 4).sum().item().to<float>(), 6.f);
  // Larger data is the allocator's as before; without caching, tiny data is too.
  Tensor big = empty({TensorImpl::kInlineBytes / 4 + 1}, kFloat);
  EXPECT_EQ(cpu_allocator_stats().allocations, s0.allocations + 2);
  set_cpu_allocator_caching(false);
  Tensor tiny = empty({1}, kFloat);
  EXPECT_EQ(cpu_allocator_stats().allocations, s0.allocations + 3);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(tiny.data_ptr()) % 64, 0u);
}

// ---------------------------------------------------------------- errors
TEST(CoreErrors, BroadcastMismatchNamesShapesAndDimension) {
  std::string msg = error_message<RuntimeError>([] { return ones({2, 3}) + ones({4}); });
  EXPECT_NE(msg.find("size of tensor a (3)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("size of tensor b (4)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("dimension 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("add"), std::string::npos) << msg;
  msg = error_message<RuntimeError>([] { Tensor x = ones({2, 3}); x.add_(ones({4, 2, 3})); });
  EXPECT_NE(msg.find("output with shape [2, 3] doesn't match the broadcast shape [4, 2, 3]"),
            std::string::npos) << msg;
  msg = error_message<RuntimeError>([] { return ones({2, 3}).expand({3, 3}); });
  EXPECT_NE(msg.find("The expanded size of the tensor (3) must match the existing size (2) at "
                     "non-singleton dimension 0"), std::string::npos) << msg;
}

TEST(CoreErrors, ClassesMatchPython) {
  EXPECT_THROW(ones({2, 3}).select(1, 5), IndexError);
  EXPECT_THROW(ones({2, 3}).size(2), IndexError);
  EXPECT_THROW(ones({2, 3}).t().view({6}), RuntimeError);
  EXPECT_THROW(empty({-1}), RuntimeError);
  EXPECT_THROW(ones({2}).data_ptr<double>(), TypeError);
  EXPECT_THROW(Device("foo"), RuntimeError);
  EXPECT_THROW(Device("cpu:1"), RuntimeError);
  EXPECT_THROW(ones({3}).item(), RuntimeError);
  EXPECT_THROW(ones({2, 3}).permute({0, 0}), RuntimeError);
  std::string msg = error_message<IndexError>([] { return ones({2, 3}).size(5); });
  EXPECT_NE(msg.find("Dimension out of range (expected to be in range of [-2, 1], but got 5)"),
            std::string::npos) << msg;
  // Every class derives from ember::Error and std::exception.
  try {
    ones({2}).select(0, 7);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(dynamic_cast<const IndexError*>(&e), nullptr);
    EXPECT_NE(std::string(e.what()).find("select"), std::string::npos);
  }
}
