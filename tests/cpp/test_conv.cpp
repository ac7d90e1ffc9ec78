// Convolution, pooling and padding (src/ops/conv.cpp, pool.cpp, pad_fold.cpp): the oneDNN
// primitive and weight caches are reused and invalidated by in-place writes; the float32
// oneDNN path agrees with the float64 im2col path; gradients pass gradcheck and gradgradcheck.
#include <gtest/gtest.h>

#include "ember/gradcheck.h"
#include "ember/ops.h"
#include "ember/ops/nn_conv.h"

namespace ember::conv_test {

using namespace ember::autograd;

Tensor rnd(IntArrayRef sizes, ScalarType dt = kDouble) {
  return randn(sizes, nullptr, TensorOptions(dt));
}

double max_diff(const Tensor& a, const Tensor& b) {
  return max(abs(sub(a.to(kDouble), b.to(kDouble)))).item<double>();
}

TEST(Conv, PrimitiveAndWeightCachesAreReused) {
  manual_seed(1);
  Tensor x = rnd({2, 8, 11, 9}, kFloat), w = rnd({16, 8, 3, 3}, kFloat), b = rnd({16}, kFloat);
  const std::vector<int64_t> stride{2, 1}, pad{1, 1};
  Tensor y0 = conv2d(x, w, b, stride, pad);
  auto [hits0, misses0, whits0] = conv_cache_stats();
  Tensor y1 = conv2d(x, w, b, stride, pad);
  auto [hits1, misses1, whits1] = conv_cache_stats();
  EXPECT_EQ(misses1, misses0);  // the same shapes create nothing new
  EXPECT_GT(hits1, hits0);
  EXPECT_GT(whits1, whits0);  // the reordered weight was reused
  EXPECT_EQ(max_diff(y0, y1), 0.0);
  // An in-place write bumps the weight's version: the cached copy is not used.
  w.mul_(2.0);
  Tensor y2 = conv2d(x, w, b, stride, pad);
  Tensor ref = conv2d(x.to(kDouble), w.to(kDouble), b.to(kDouble), stride, pad);
  EXPECT_LT(max_diff(y2, ref), 1e-3);
  // A write without a version bump (as gradcheck perturbs inputs) is seen too.
  static_cast<float*>(w.data_ptr())[5] += 1.0f;
  Tensor y3 = conv2d(x, w, b, stride, pad);
  Tensor ref3 = conv2d(x.to(kDouble), w.to(kDouble), b.to(kDouble), stride, pad);
  EXPECT_LT(max_diff(y3, ref3), 1e-3);
}

TEST(Conv, OneDnnMatchesIm2colPath) {
  manual_seed(2);
  struct Case {
    std::vector<int64_t> x, w;
    int64_t stride, pad, dil, groups;
    bool transposed;
  };
  for (const Case& c : {Case{{2, 6, 9, 8}, {4, 3, 3, 2}, 2, 1, 2, 2, false}, Case{{1, 4, 7, 7}, {4, 1, 3, 3}, 1, 1, 1, 4, false},
                        Case{{2, 4, 5, 6}, {4, 3, 3, 3}, 2, 1, 1, 1, true}, Case{{2, 4, 5, 6, 5}, {6, 4, 2, 2, 2}, 1, 0, 1, 1, false}}) {
    Tensor x = rnd(c.x), w = rnd(c.w), b = rnd({c.transposed ? c.w[1] * c.groups : c.w[0]});
    const int64_t sd = static_cast<int64_t>(c.x.size()) - 2;
    const std::vector<int64_t> s(sd, c.stride), p(sd, c.pad), d(sd, c.dil), op(sd, 0);
    Tensor y64 = convolution(x, w, b, s, p, d, c.transposed, op, c.groups);
    Tensor y32 = convolution(x.to(kFloat), w.to(kFloat), b.to(kFloat), s, p, d, c.transposed, op, c.groups);
    EXPECT_LT(max_diff(y32, y64), 1e-3);
    Tensor g = rnd(y64.sizes());
    const std::vector<int64_t> mask{1, 1, 1};
    auto r64 = convolution_backward(g, x, w, {b.size(0)}, s, p, d, c.transposed, op, c.groups, mask);
    auto r32 = convolution_backward(g.to(kFloat), x.to(kFloat), w.to(kFloat), {b.size(0)}, s, p, d, c.transposed, op,
                                    c.groups, mask);
    EXPECT_LT(max_diff(std::get<0>(r32), std::get<0>(r64)), 1e-3);
    EXPECT_LT(max_diff(std::get<1>(r32), std::get<1>(r64)), 1e-3);
    EXPECT_LT(max_diff(std::get<2>(r32), std::get<2>(r64)), 1e-3);
  }
}

TEST(Conv, ChannelsLastInputGivesChannelsLastOutput) {
  manual_seed(3);
  Tensor x = rnd({2, 8, 6, 5}, kFloat).permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2});
  Tensor y = conv2d(x, rnd({4, 8, 3, 3}, kFloat));
  EXPECT_EQ(y.stride(1), 1);
  EXPECT_EQ(y.stride(3), 4);
}

TEST(Conv, Gradcheck) {
  manual_seed(4);
  GradcheckOptions o;
  o.fast_mode = true;
  auto leaf = [](IntArrayRef s) { return set_requires_grad(rnd(s)); };
  const std::vector<int64_t> s2{2, 1}, p1{1}, d2{1, 2}, one{1}, op{1, 0};
  GradcheckFunction conv = [&](const std::vector<Tensor>& v) {
    return std::vector<Tensor>{conv2d(v[0], v[1], v[2], s2, p1, d2, 2)};
  };
  std::vector<Tensor> in{leaf({2, 4, 6, 7}), leaf({6, 2, 3, 2}), leaf({6})};
  EXPECT_TRUE(gradcheck(conv, in, o));
  EXPECT_TRUE(gradgradcheck(conv, in, std::nullopt, o));
  GradcheckFunction conv_t = [&](const std::vector<Tensor>& v) {
    return std::vector<Tensor>{conv_transpose2d(v[0], v[1], v[2], s2, p1, op, 1, one)};
  };
  std::vector<Tensor> in_t{leaf({2, 4, 4, 5}), leaf({4, 3, 3, 3}), leaf({3})};
  EXPECT_TRUE(gradcheck(conv_t, in_t, o));
  EXPECT_TRUE(gradgradcheck(conv_t, in_t, std::nullopt, o));
  const std::vector<int64_t> pad{1, -1, 2, 0};
  GradcheckFunction padf = [&](const std::vector<Tensor>& v) {
    return std::vector<Tensor>{constant_pad_nd(v[0], pad, 1.5)};
  };
  EXPECT_TRUE(gradgradcheck(padf, {leaf({2, 3, 4})}, std::nullopt, o));
}

TEST(Conv, PoolingGradcheck) {
  manual_seed(5);
  GradcheckOptions o;
  o.fast_mode = true;
  Tensor x = set_requires_grad(rnd({2, 3, 7, 6}));
  const std::vector<int64_t> k{3}, s{2}, p{1}, one{1}, out{2, 3};
  GradcheckFunction f = [&](const std::vector<Tensor>& v) {
    return std::vector<Tensor>{max_pool2d(v[0], k, s, p), avg_pool2d(v[0], k, s, p, true, false),
                               adaptive_avg_pool2d(v[0], out), std::get<0>(adaptive_max_pool2d(v[0], out)),
                               im2col(v[0], k, one, p, s)};
  };
  EXPECT_TRUE(gradcheck(f, {x}, o));
  EXPECT_TRUE(gradgradcheck(f, {x}, std::nullopt, o));
  auto [y, idx] = max_pool2d_with_indices(x.detach(), k, s, p);
  EXPECT_EQ(idx.dtype(), kInt64);
  EXPECT_EQ(pixel_unshuffle(pixel_shuffle(rnd({1, 8, 2, 3}), 2), 2).size(1), 8);
}

TEST(Conv, BadArgumentsRaise) {
  Tensor x = rnd({2, 4, 5, 5}), w = rnd({6, 4, 3, 3});
  const std::vector<int64_t> one{1}, zero{0}, neg{-1}, two{2};
  EXPECT_THROW(conv2d(x, w, std::nullopt, one, neg), RuntimeError);
  EXPECT_THROW(conv2d(x, w, std::nullopt, zero), RuntimeError);
  EXPECT_THROW(conv2d(x, rnd({6, 2, 3, 3}), std::nullopt, one, zero, one, 4), RuntimeError);
  EXPECT_THROW(conv2d(rnd({2, 4, 2, 2}), w), RuntimeError);
  EXPECT_THROW(conv2d(x, w, std::nullopt, two, std::string_view("same")), RuntimeError);
}

}  // namespace ember::conv_test
