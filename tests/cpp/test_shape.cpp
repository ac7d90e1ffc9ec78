// Shape ops (ember/ops/shape.h): invariants the Python op table does not reach. Values are
// checked against PyTorch by tests/python/op_rows_shape.py; here: results against naive
// loops on strided and batched inputs, views sharing storage, Meta shapes, in-place forms.
#include <gtest/gtest.h>

#include <vector>

#include "ember/ops.h"

namespace ember {
namespace {

template <typename E, typename F>
void expect_error(const F& f, const std::string& msg) {
  try {
    f();
    FAIL() << "expected an error containing: " << msg;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(msg), std::string::npos) << e.what();
  }
}

// Element (i, j, k) of a [2, 3, 4]-shaped tensor, read through its strides.
double at3(const Tensor& t, int64_t i, int64_t j, int64_t k) {
  Tensor d = t.to(kDouble);
  const double* p = static_cast<const double*>(d.data_ptr());
  return p[i * d.strides()[0] + j * d.strides()[1] + k * d.strides()[2]];
}

std::vector<int64_t> shape(const Tensor& t) { return t.sizes().vec(); }

TEST(Flip, NegativeStrideCopyMatchesLoop) {
  Tensor base = arange(48, kDouble).view({2, 3, 8});
  Tensor x = base.slice(2, 0, 8, 2);  // [2, 3, 4], stride 2 along the last dim
  Tensor f = flip(x, {0, 2});
  EXPECT_TRUE(f.is_contiguous());
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k) ASSERT_EQ(at3(f, i, j, k), at3(x, 1 - i, j, 3 - k));
  // Large and threaded.
  Tensor big = arange(300 * 400, kFloat).view({300, 400});
  Tensor fb = flip(big, {1});
  for (int64_t i = 0; i < 300; i += 37)
    for (int64_t j = 0; j < 400; j += 11)
      ASSERT_EQ(fb.data_ptr<float>()[i * 400 + j], big.data_ptr<float>()[i * 400 + 399 - j]);
  expect_error<RuntimeError>([&] { flip(x, {1, -2}); }, "dim 1 appears multiple times");
}

TEST(Roll, MultiDimMatchesLoop) {
  Tensor x = arange(24, kDouble).view({2, 3, 4}).transpose(1, 2).contiguous().transpose(1, 2);
  Tensor r = roll(x, {1, -5}, {0, 2});
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 3; ++j)
      for (int64_t k = 0; k < 4; ++k) ASSERT_EQ(at3(r, (i + 1) % 2, j, ((k - 5) % 4 + 4) % 4), at3(x, i, j, k));
  Tensor flat = roll(x, {7});
  EXPECT_EQ(shape(flat), shape(x));
  EXPECT_EQ(flat.contiguous().view({-1}).to(kDouble).data_ptr<double>()[7], at3(x, 0, 0, 0));
  expect_error<RuntimeError>([&] { roll(x, {1, 2}, {0}); }, "shifts and dimensions must align");
}

TEST(Repeat, TileAndInterleaveMatchLoops) {
  Tensor x = arange(6, kFloat).view({2, 3}).t();  // [3, 2], not contiguous
  Tensor r = repeat(x, {2, 1, 3});
  EXPECT_EQ(shape(r), (std::vector<int64_t>{2, 3, 6}));
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 6; ++j)
        ASSERT_EQ(at3(r, a, i, j), x.contiguous().data_ptr<float>()[i * 2 + j % 2]);
  EXPECT_EQ(shape(tile(x, {2})), (std::vector<int64_t>{3, 4}));
  Tensor ri = repeat_interleave(x, 2, 0);
  EXPECT_EQ(shape(ri), (std::vector<int64_t>{6, 2}));
  EXPECT_EQ(ri.contiguous().data_ptr<float>()[2 * 2 + 1], x.contiguous().data_ptr<float>()[1 * 2 + 1]);
  Tensor rt = repeat_interleave(x, tensor<int64_t>({0, 2, 1}), 0);
  EXPECT_EQ(shape(rt), (std::vector<int64_t>{3, 2}));
  Tensor idx = repeat_interleave(tensor<int32_t>({2, 0, 1}));
  EXPECT_EQ(idx.dtype(), kInt32);
  EXPECT_EQ(shape(idx), (std::vector<int64_t>{3}));
  EXPECT_EQ(idx.data_ptr<int32_t>()[2], 2);
  expect_error<RuntimeError>([&] { repeat(x, {2}); }, "can not be smaller");
  expect_error<RuntimeError>([&] { repeat_interleave(tensor<int64_t>({1, -1})); }, "can not be negative");
}

TEST(Triangle, BatchedStridedMatchesLoop) {
  Tensor base = arange(2 * 5 * 12, kDouble).view({2, 5, 12});
  Tensor x = base.slice(2, 0, 12, 2).transpose(1, 2);  // [2, 6, 5], strided both ways
  for (int64_t k : {-2, 0, 3}) {
    Tensor lo = tril(x, k), up = triu(x, k);
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t i = 0; i < 6; ++i)
        for (int64_t j = 0; j < 5; ++j) {
          const double v = at3(x, b, i, j);
          ASSERT_EQ(at3(lo, b, i, j), j - i <= k ? v : 0.0);
          ASSERT_EQ(at3(up, b, i, j), j - i >= k ? v : 0.0);
        }
  }
  Tensor y = x.clone();
  const uint32_t version = y.version();
  Tensor& same = tril_(y, 1);
  EXPECT_TRUE(same.is_same(y));
  EXPECT_EQ(y.version(), version + 1);
  EXPECT_EQ(at3(y, 1, 0, 2), 0.0);
  EXPECT_EQ(at3(y, 1, 0, 1), at3(x, 1, 0, 1));
  Tensor out = empty({0}, kDouble);
  triu_out(out, x, 0);
  EXPECT_EQ(shape(out), shape(x));
  expect_error<RuntimeError>([&] { triu_out(out, x.to(kFloat), 0); }, "Expected out tensor to have dtype");
  expect_error<IndexError>([&] { tril(arange(3, kFloat)); }, "Dimension out of range");
}

TEST(Diagonals, DiagEmbedAndFlat) {
  Tensor v = arange(3, kFloat) + 1;
  Tensor d = diag(v, 1);
  EXPECT_EQ(shape(d), (std::vector<int64_t>{4, 4}));
  EXPECT_EQ(d.data_ptr<float>()[1], 1.f);
  EXPECT_EQ(d.data_ptr<float>()[2 * 4 + 3], 3.f);
  EXPECT_EQ(sum(d).item<float>(), 6.f);
  Tensor back = diag(d, 1);
  EXPECT_EQ(shape(back), (std::vector<int64_t>{3}));
  Tensor e = diag_embed(arange(6, kFloat).view({2, 3}), -1, 0, 2);
  EXPECT_EQ(shape(e), (std::vector<int64_t>{4, 2, 4}));
  EXPECT_EQ(shape(diagflat(arange(6, kFloat).view({2, 3}))), (std::vector<int64_t>{6, 6}));
  expect_error<RuntimeError>([&] { diag(zeros({2, 2, 2})); }, "matrix or a vector expected");
}

TEST(Splits, AreViewsOfSelf) {
  Tensor x = arange(24, kFloat).view({2, 3, 4});
  std::vector<Tensor> parts = split(x, 2, 2);
  ASSERT_EQ(parts.size(), 2u);
  parts[1].fill_(-1);
  EXPECT_EQ(x.data_ptr<float>()[3], -1.f);  // written through the view
  EXPECT_EQ(chunk(x, 3, 1).size(), 3u);
  EXPECT_EQ(chunk(zeros({0}), 4).size(), 4u);
  std::vector<Tensor> ts = tensor_split(x, {1, 10}, 2);
  ASSERT_EQ(ts.size(), 3u);
  EXPECT_EQ(shape(ts[1]), (std::vector<int64_t>{2, 3, 3}));
  EXPECT_EQ(shape(ts[2]), (std::vector<int64_t>{2, 3, 0}));
  std::vector<Tensor> sections = tensor_split(x, 3, 2);
  EXPECT_EQ(shape(sections[0]), (std::vector<int64_t>{2, 3, 2}));
  EXPECT_EQ(shape(sections[2]), (std::vector<int64_t>{2, 3, 1}));
  EXPECT_EQ(hsplit(x, 3).size(), 3u);
  EXPECT_EQ(vsplit(x, std::vector<int64_t>{1}).size(), 2u);
  EXPECT_EQ(dsplit(x, 2).size(), 2u);
  std::vector<Tensor> u = unbind(x, 1);
  ASSERT_EQ(u.size(), 3u);
  EXPECT_TRUE(u[2].is_alias_of(x));
  for (const Tensor& p : split_with_sizes(x, {1, 3}, 2)) EXPECT_TRUE(p.is_alias_of(x));
  expect_error<RuntimeError>([&] { split(x, {1, 1}, 2); }, "to sum exactly to 4");
  expect_error<RuntimeError>([&] { hsplit(x, 2); }, "not divisible by the split_size 2");
}

TEST(Views, MovedimBroadcastMeshgridAtleast) {
  Tensor x = zeros({2, 3, 4});
  Tensor m = movedim(x, {0, 1}, {2, 0});
  EXPECT_EQ(shape(m), (std::vector<int64_t>{3, 4, 2}));
  EXPECT_TRUE(m.is_alias_of(x));
  EXPECT_EQ(shape(moveaxis(x, -1, 0)), (std::vector<int64_t>{4, 2, 3}));
  EXPECT_EQ(shape(swapaxes(x, 0, 2)), (std::vector<int64_t>{4, 3, 2}));
  expect_error<RuntimeError>([&] { movedim(x, {0, 0}, {1, 2}); }, "repeated dim in `source`");
  std::vector<Tensor> b = broadcast_tensors({zeros({3, 1}), zeros({4})});
  EXPECT_EQ(shape(b[0]), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(b[1].strides()[0], 0);
  EXPECT_EQ(shape(broadcast_to(zeros({3}), {2, 3})), (std::vector<int64_t>{2, 3}));
  std::vector<Tensor> g = meshgrid({arange(3, kFloat), arange(2, kFloat)}, "xy");
  EXPECT_EQ(shape(g[0]), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(g[0].strides()[0], 0);
  expect_error<RuntimeError>([&] { meshgrid({arange(3, kFloat)}, "yx"); }, "indexing must be one of");
  EXPECT_EQ(shape(atleast_3d(arange(3, kFloat))), (std::vector<int64_t>{1, 3, 1}));
  EXPECT_EQ(atleast_2d(std::vector<Tensor>{scalar_tensor(1), zeros({2})}).size(), 2u);
  Tensor r = ravel(x);
  EXPECT_TRUE(r.is_alias_of(x));
  EXPECT_FALSE(ravel(x.transpose(0, 2)).is_alias_of(x));  // a copy when no view exists
}

TEST(Stacks, HstackVstackDstackColumnStack) {
  Tensor a = arange(3, kFloat), b = arange(3, kInt64);
  Tensor h = hstack({a, b});
  EXPECT_EQ(h.dtype(), kFloat);  // promoted as cat does
  EXPECT_EQ(shape(h), (std::vector<int64_t>{6}));
  EXPECT_EQ(shape(vstack({a, a})), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(shape(dstack({a, a})), (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(shape(column_stack({a, a})), (std::vector<int64_t>{3, 2}));
  Tensor out = empty({0});
  vstack_out(out, {a, a});
  EXPECT_EQ(shape(out), (std::vector<int64_t>{2, 3}));
  expect_error<RuntimeError>([&] { hstack({}); }, "hstack expects a non-empty TensorList");
}

TEST(ShapeMeta, Shapes) {
  TensorOptions meta = TensorOptions(kFloat).device(kMeta);
  Tensor m = empty({2, 3, 4}, meta);
  EXPECT_TRUE(flip(m, {0}).is_meta());
  EXPECT_EQ(shape(roll(m, {1}, {2})), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(shape(rot90(m, 1, {1, 2})), (std::vector<int64_t>{2, 4, 3}));
  EXPECT_EQ(shape(repeat(m, {2, 1, 1, 2})), (std::vector<int64_t>{2, 2, 3, 8}));
  EXPECT_EQ(shape(repeat_interleave(m, 3, 1)), (std::vector<int64_t>{2, 9, 4}));
  EXPECT_EQ(shape(tril(m)), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(shape(diag_embed(m)), (std::vector<int64_t>{2, 3, 4, 4}));
  EXPECT_EQ(shape(narrow_copy(m, 2, 1, 2)), (std::vector<int64_t>{2, 3, 2}));
  EXPECT_EQ(shape(hstack({m, m})), (std::vector<int64_t>{2, 6, 4}));
  EXPECT_EQ(split(m, 2, 2).size(), 2u);
  EXPECT_TRUE(split(m, 2, 2)[0].is_meta());
}

}  // namespace
}  // namespace ember
