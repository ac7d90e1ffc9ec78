// cat, cat_out and stack: values against element-by-element references, promotion, the
// legacy skipping of 1-D empty tensors, layouts (memcpy fast path and copy_ path, threaded
// large copies), errors, Meta outputs.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ember/ops.h"
#include "test_util.h"
#include "ember/parallel.h"

using namespace ember;

namespace {

// Values in [-100, 100), so that integer dtypes get distinct values.
Tensor wide_uniform(IntArrayRef shape, ScalarType dtype, unsigned seed = 1) {
  return ember::testing::uniform(shape, dtype, -100, 100, seed);
}

std::vector<double> dv(const Tensor& t) {
  Tensor c = t.to(kDouble).contiguous();
  return std::vector<double>(c.data_ptr<double>(), c.data_ptr<double>() + c.numel());
}

// Reference cat along `dim` of tensors of equal rank (no legacy empties), in double.
std::vector<double> ref_cat(const std::vector<Tensor>& ts, int64_t dim) {
  const int64_t nd = ts[0].dim();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= ts[0].sizes()[d];
  for (int64_t d = dim + 1; d < nd; ++d) inner *= ts[0].sizes()[d];
  std::vector<std::vector<double>> vals;
  for (const Tensor& t : ts) vals.push_back(dv(t));
  std::vector<double> r;
  for (int64_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < ts.size(); ++i) {
      const std::vector<double>& v = vals[i];
      const int64_t chunk = ts[i].sizes()[dim] * inner;
      r.insert(r.end(), v.begin() + o * chunk, v.begin() + (o + 1) * chunk);
    }
  return r;
}

struct Restore {
  int n = get_num_threads();
  ~Restore() { set_num_threads(n); }
};

}  // namespace

TEST(JoinCat, ValuesAlongEachDim) {
  for (ScalarType dt : {kBool, kUInt8, kInt16, kInt64, kHalf, kBFloat16, kFloat, kDouble, kComplexFloat}) {
    for (int64_t dim : {0, 1, 2, -1}) {
      const int64_t wd = dim < 0 ? dim + 3 : dim;
      std::vector<int64_t> s1 = {2, 3, 4}, s2 = {2, 3, 4}, s3 = {2, 3, 4};
      s1[wd] = 1;
      s2[wd] = 5;
      s3[wd] = 2;
      std::vector<Tensor> ts = {wide_uniform(s1, dt, 1), wide_uniform(s2, dt, 2), wide_uniform(s3, dt, 3)};
      Tensor r = cat(ts, dim);
      EXPECT_EQ(r.dtype(), dt);
      std::vector<int64_t> want_shape = {2, 3, 4};
      want_shape[wd] = 8;
      EXPECT_EQ(r.sizes().vec(), want_shape);
      EXPECT_TRUE(r.is_contiguous());
      EXPECT_EQ(dv(r), ref_cat(ts, wd)) << dtype_name(dt) << " dim " << dim;
    }
  }
}

TEST(JoinCat, NonContiguousInputs) {
  Tensor a = wide_uniform({4, 3}, kFloat, 1).t();                                // 3 x 4 transposed
  Tensor b = wide_uniform({3, 10}, kFloat, 2).slice(1, 0, std::nullopt, 2);     // 3 x 5 sliced
  Tensor c = wide_uniform({3, 1}, kFloat, 3).expand({3, 2});                    // expanded
  std::vector<Tensor> ts = {a, b, c};
  EXPECT_EQ(dv(cat(ts, 1)), ref_cat(ts, 1));
  std::vector<Tensor> rows = {a.t(), wide_uniform({5, 3}, kFloat, 4)};
  EXPECT_EQ(dv(cat(rows, 0)), ref_cat(rows, 0));
}

TEST(JoinCat, PromotesAcrossInputs) {
  Tensor f = wide_uniform({2, 3}, kFloat, 1), i = wide_uniform({2, 3}, kInt64, 2);
  Tensor r = cat({f, i});
  EXPECT_EQ(r.dtype(), kFloat);
  EXPECT_EQ(dv(r), ref_cat({f, i.to(kFloat)}, 0));
  EXPECT_EQ(cat({wide_uniform({2}, kInt32), wide_uniform({2}, kInt64)}).dtype(), kInt64);
  EXPECT_EQ(cat({wide_uniform({2}, kBool), wide_uniform({2}, kUInt8)}).dtype(), kUInt8);
  EXPECT_EQ(cat({wide_uniform({2}, kInt8), wide_uniform({2}, kUInt8)}).dtype(), kInt16);
  EXPECT_EQ(cat({wide_uniform({2}, kHalf), wide_uniform({2}, kBFloat16)}).dtype(), kFloat);
  EXPECT_EQ(cat({wide_uniform({2}, kFloat), wide_uniform({2}, kComplexDouble)}).dtype(), kComplexDouble);
}

TEST(JoinCat, LegacyEmptyTensorsAreSkipped) {
  Tensor x = wide_uniform({2, 3}, kFloat, 1);
  Tensor r = cat({x, empty({0})}, 1);
  EXPECT_EQ(r.sizes().vec(), std::vector<int64_t>({2, 3}));
  EXPECT_EQ(dv(r), dv(x));
  EXPECT_EQ(dv(cat({empty({0}), x}, 0)), dv(x));
  // They still take part in promotion.
  EXPECT_EQ(cat({empty({0}, kDouble), x}).dtype(), kDouble);
  // All empty: shape [0] whatever dim says.
  Tensor e = cat({empty({0}), empty({0}, kInt64)}, 5);
  EXPECT_EQ(e.sizes().vec(), std::vector<int64_t>({0}));
  EXPECT_EQ(e.dtype(), kFloat);
  // A 2-D empty tensor is not skipped.
  EXPECT_EQ(cat({empty({0, 3}), x}).sizes().vec(), std::vector<int64_t>({2, 3}));
  EXPECT_THROW(cat({empty({0, 4}), x}), RuntimeError);
}

TEST(JoinCat, Errors) {
  EXPECT_THROW(cat(std::vector<Tensor>{}), RuntimeError);
  EXPECT_THROW(cat({ones({2}), scalar_tensor(1.0)}), RuntimeError);
  EXPECT_THROW(cat({ones({2, 3}), ones({2, 4})}), RuntimeError);
  EXPECT_THROW(cat({ones({2, 3}), ones({2, 3, 1})}, 1), RuntimeError);
  EXPECT_THROW(cat({ones({2, 3})}, 2), IndexError);
  EXPECT_THROW(cat({ones({2, 3})}, -3), IndexError);
  try {
    cat({ones({2, 3}), ones({2, 4})});
    FAIL();
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("Expected size 3 but got size 4 for tensor number 1"), std::string::npos)
        << e.what();
  }
}

TEST(JoinCat, OutVariant) {
  Tensor a = wide_uniform({2, 3}, kFloat, 1), b = wide_uniform({1, 3}, kFloat, 2);
  Tensor out = empty({7}, kDouble);
  Tensor& r = cat_out(out, {a, b}, 0);
  EXPECT_TRUE(r.is_same(out));
  EXPECT_EQ(out.sizes().vec(), std::vector<int64_t>({3, 3}));
  EXPECT_EQ(dv(out), ref_cat({a, b}, 0));
  // Strided out goes through copy_.
  Tensor base = zeros({3, 6});
  Tensor so = base.slice(1, 0, std::nullopt, 2);
  cat_out(so, {a, b}, 0);
  EXPECT_EQ(dv(so), ref_cat({a, b}, 0));
  // Unsafe casts and overlap are refused.
  Tensor oi = empty({0}, kInt64);
  EXPECT_THROW(cat_out(oi, {a, b}), RuntimeError);
  Tensor of = empty({0}, kFloat);
  EXPECT_THROW(cat_out(of, {a.to(kComplexFloat), b}), RuntimeError);
  EXPECT_THROW(cat_out(a, {a, b}), RuntimeError);
}

TEST(JoinCat, LargeThreadedCopies) {
  Restore restore;
  set_num_threads(2);
  // Few big chunks (split across threads) and many rows (rows across threads).
  std::vector<Tensor> big = {wide_uniform({600000}, kFloat, 1), wide_uniform({400000}, kFloat, 2)};
  EXPECT_EQ(dv(cat(big)), ref_cat(big, 0));
  std::vector<Tensor> rows = {wide_uniform({5000, 40}, kFloat, 3), wide_uniform({5000, 24}, kFloat, 4)};
  EXPECT_EQ(dv(cat(rows, 1)), ref_cat(rows, 1));
}

TEST(JoinStack, ValuesAndErrors) {
  Tensor a = wide_uniform({2, 3}, kFloat, 1), b = wide_uniform({2, 3}, kFloat, 2).t().contiguous().t();
  for (int64_t dim : {0, 1, 2, -1, -3}) {
    Tensor r = stack({a, b}, dim);
    const int64_t wd = dim < 0 ? dim + 3 : dim;
    EXPECT_EQ(r.sizes().vec(), (wd == 0 ? std::vector<int64_t>{2, 2, 3}
                                : wd == 1 ? std::vector<int64_t>{2, 2, 3} : std::vector<int64_t>{2, 3, 2}));
    EXPECT_EQ(dv(r.select(wd, 0)), dv(a));
    EXPECT_EQ(dv(r.select(wd, 1)), dv(b));
  }
  EXPECT_EQ(stack({scalar_tensor(1.0), scalar_tensor(2.0)}).sizes().vec(), std::vector<int64_t>({2}));
  EXPECT_EQ(stack({empty({0}), empty({0})}).sizes().vec(), std::vector<int64_t>({2, 0}));
  EXPECT_EQ(stack({ones({2}), ones({2}, kInt64)}).dtype(), kFloat);
  EXPECT_THROW(stack(std::vector<Tensor>{}), RuntimeError);
  EXPECT_THROW(stack({ones({2, 3}), ones({3, 2})}), RuntimeError);
  EXPECT_THROW(stack({empty({0}), ones({2})}), RuntimeError);
  EXPECT_THROW(stack({a, a}, 3), IndexError);
  EXPECT_THROW(stack({a, a}, -4), IndexError);
}

TEST(JoinMeta, Shapes) {
  auto meta = [](IntArrayRef s, ScalarType dt = kFloat) { return empty(s, TensorOptions(dt).device(kMeta)); };
  Tensor r = cat({meta({2, 3}), meta({2, 5}, kInt64)}, 1);
  EXPECT_TRUE(r.is_meta());
  EXPECT_EQ(r.sizes().vec(), std::vector<int64_t>({2, 8}));
  EXPECT_EQ(r.dtype(), kFloat);
  Tensor s = stack({meta({2, 3}), meta({2, 3})}, 1);
  EXPECT_TRUE(s.is_meta());
  EXPECT_EQ(s.sizes().vec(), std::vector<int64_t>({2, 2, 3}));
  EXPECT_THROW(cat({meta({2, 3}), meta({3, 4})}), RuntimeError);
}
