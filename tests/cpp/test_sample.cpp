// Resampling through the public C++ API (src/ops/upsample.cpp, upsample_aa.cpp,
// grid_sample.cpp): values of simple cases, gradients and double backward against central
// differences, results that do not depend on the thread count, and bad arguments.
#include <gtest/gtest.h>

#include "ember/gradcheck.h"
#include "ember/ops.h"
#include "ember/ops/nn_sample.h"
#include "test_util.h"

namespace ember::sample_test {

using namespace ember::autograd;

Tensor rnd(IntArrayRef sizes, ScalarType dt = kDouble) { return randn(sizes, nullptr, TensorOptions(dt)); }

TEST(Sample, SimpleValues) {
  // [0, 1] upsampled to 4 with align_corners: 0, 1/3, 2/3, 1; nearest repeats.
  Tensor x = arange(2, TensorOptions(kDouble)).view({1, 1, 2});
  const std::vector<int64_t> four{4};
  Tensor lin = upsample_linear1d(x, four, true);
  for (int64_t i = 0; i < 4; ++i) EXPECT_NEAR(lin.view({4}).select(0, i).item<double>(), i / 3.0, 1e-15);
  Tensor near = upsample_nearest1d(x, four);
  EXPECT_EQ(near.view({4}).select(0, 1).item<double>(), 0.0);
  EXPECT_EQ(near.view({4}).select(0, 2).item<double>(), 1.0);
  // The identity affine grid samples the input back (align_corners=False, bilinear).
  Tensor img = rnd({2, 3, 5, 4});
  Tensor theta = zeros({2, 2, 3}, TensorOptions(kDouble));
  theta.select(1, 0).select(1, 0).fill_(1);
  theta.select(1, 1).select(1, 1).fill_(1);
  const std::vector<int64_t> size{2, 3, 5, 4};
  Tensor grid = affine_grid_generator(theta, size, false);
  EXPECT_LT(max(abs(sub(grid_sampler(img, grid, 0, 0, false), img))).item<double>(), 1e-12);
}

TEST(Sample, Gradcheck) {
  manual_seed(7);
  GradcheckOptions o;
  o.fast_mode = true;
  const std::vector<int64_t> out2{7, 4}, out3{4, 5, 3};
  GradcheckFunction up = [&](const std::vector<Tensor>& v) {
    return std::vector<Tensor>{upsample_bilinear2d(v[0], out2, false), upsample_bicubic2d(v[0], out2, true, 1.5, 0.7),
                               _upsample_nearest_exact2d(v[0], out2), upsample_nearest2d(v[0], out2)};
  };
  std::vector<Tensor> x{set_requires_grad(rnd({2, 3, 5, 6}))};
  EXPECT_TRUE(gradcheck(up, x, o));
  EXPECT_TRUE(gradgradcheck(up, x, std::nullopt, o));
  GradcheckFunction tri = [&](const std::vector<Tensor>& v) {
    return std::vector<Tensor>{upsample_trilinear3d(v[0], out3, true)};
  };
  EXPECT_TRUE(gradgradcheck(tri, {set_requires_grad(rnd({1, 2, 3, 4, 5}))}, std::nullopt, o));
  for (int64_t mode : {0, 1, 2})
    for (int64_t pad : {0, 1, 2}) {
      GradcheckFunction gs = [&](const std::vector<Tensor>& v) {
        return std::vector<Tensor>{grid_sampler(v[0], v[1], mode, pad, mode == 1)};
      };
      std::vector<Tensor> in{set_requires_grad(rnd({2, 2, 4, 5})),
                             set_requires_grad(sub(mul(rand({2, 3, 2, 2}, nullptr, TensorOptions(kDouble)), 2.4), 1.2))};
      EXPECT_TRUE(gradcheck(gs, in, o)) << mode << " " << pad;
      EXPECT_TRUE(gradgradcheck(gs, in, std::nullopt, o)) << mode << " " << pad;
    }
  const std::vector<int64_t> size3{2, 1, 3, 2, 4};
  GradcheckFunction ag = [&](const std::vector<Tensor>& v) {
    return std::vector<Tensor>{affine_grid_generator(v[0], size3, true)};
  };
  EXPECT_TRUE(gradgradcheck(ag, {set_requires_grad(rnd({2, 3, 4}))}, std::nullopt, o));
}

TEST(Sample, ResultsDoNotDependOnThreads) {
  manual_seed(8);
  Tensor x = rnd({4, 8, 17, 19}, kFloat), g = sub(mul(rand({4, 23, 21, 2}, nullptr, TensorOptions(kFloat)), 2.2), 1.1);
  set_requires_grad(x);
  set_requires_grad(g);
  auto run = [&] {
    Tensor y = grid_sampler(x, g, 2, 2, false);
    std::vector<Tensor> d = grad({y}, {x, g}, {ones_like(y)});
    return std::vector<Tensor>{y, d[0], d[1], upsample_bilinear2d(x.detach(), std::vector<int64_t>{40, 33}, false),
                               _upsample_bicubic2d_aa(x.detach(), std::vector<int64_t>{5, 7}, false)};
  };
  const testing::Restore restore;
  set_num_threads(1);
  std::vector<Tensor> a = run();
  set_num_threads(std::max(restore.n, 2));
  std::vector<Tensor> b = run();
  for (size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(equal(a[i], b[i])) << i;
}

TEST(Sample, AntialiasValues) {
  // x[h][w] = (5h + w)^2 on a 4x5 plane; the expected values are PyTorch 1.13's.
  Tensor x = arange(20, TensorOptions(kDouble)).view({1, 1, 4, 5});
  x = mul(x, x);
  const std::vector<int64_t> out22{2, 2}, out32{3, 2}, in_size{1, 1, 4, 5};
  Tensor bl = _upsample_bilinear2d_aa(x, out22, false);
  ASSERT_EQ(bl.sizes(), IntArrayRef(std::vector<int64_t>{1, 1, 2, 2}));
  const double bl_ref[4] = {33.87012987012985832, 56.15584415584414302, 167.44155844155841351, 221.15584415584407907};
  for (int64_t i = 0; i < 4; ++i) EXPECT_NEAR(bl.reshape({4}).select(0, i).item<double>(), bl_ref[i], 1e-12) << i;
  Tensor bc = _upsample_bicubic2d_aa(x, out32, false);
  ASSERT_EQ(bc.sizes(), IntArrayRef(std::vector<int64_t>{1, 1, 3, 2}));
  const double bc_ref[6] = {4.65029708351209781,  18.13874659538545586,  72.96669076081241201,
                            116.40912532135719459, 223.60935551310157621, 297.00577512231774335};
  for (int64_t i = 0; i < 6; ++i) EXPECT_NEAR(bc.reshape({6}).select(0, i).item<double>(), bc_ref[i], 1e-12) << i;
  // The gradient of all-ones: each input's total weight (corners 0.13636..., centre 0.25974...).
  Tensor g = _upsample_bilinear2d_aa_backward(ones({1, 1, 2, 2}, TensorOptions(kDouble)), out22, in_size, false);
  ASSERT_EQ(g.sizes(), IntArrayRef(in_size));
  EXPECT_NEAR(g.select(2, 0).select(2, 0).item<double>(), 0.13636363636363633, 1e-14);
  EXPECT_NEAR(g.select(2, 1).select(2, 2).item<double>(), 0.25974025974025972, 1e-14);
  EXPECT_NEAR(sum(g).item<double>(), 4.0, 1e-12);
  // Meta: shapes only.
  Tensor m = _upsample_bicubic2d_aa(empty({2, 3, 8, 9}, TensorOptions(kFloat).device(kMeta)), out32, true);
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.sizes(), IntArrayRef(std::vector<int64_t>{2, 3, 3, 2}));
  // Gradients (and double backward) against central differences, downscaling and upscaling.
  manual_seed(9);
  GradcheckOptions o;
  o.fast_mode = true;
  const std::vector<int64_t> down{3, 2}, up{9, 7};
  GradcheckFunction aa = [&](const std::vector<Tensor>& v) {
    return std::vector<Tensor>{_upsample_bilinear2d_aa(v[0], down, false), _upsample_bicubic2d_aa(v[0], up, true),
                               _upsample_bicubic2d_aa(v[0], down, false, 0.4, 0.3)};
  };
  std::vector<Tensor> xs{set_requires_grad(rnd({2, 2, 7, 6}))};
  EXPECT_TRUE(gradcheck(aa, xs, o));
  EXPECT_TRUE(gradgradcheck(aa, xs, std::nullopt, o));
}

TEST(Sample, BadArgumentsRaise) {
  Tensor x = rnd({2, 3, 4, 4});
  const std::vector<int64_t> one{3}, two{3, 3}, zero{0, 3};
  EXPECT_THROW(upsample_bilinear2d(x, one, false), RuntimeError);
  EXPECT_THROW(upsample_bilinear2d(x, zero, false), RuntimeError);
  EXPECT_THROW(upsample_linear1d(x, one, false), RuntimeError);
  EXPECT_THROW(upsample_bilinear2d(x.to(kInt32), two, false), RuntimeError);
  EXPECT_THROW(grid_sampler(x, rnd({3, 2, 2, 2}), 0, 0, false), RuntimeError);
  EXPECT_THROW(grid_sampler(x, rnd({2, 2, 2, 3}), 0, 0, false), RuntimeError);
  EXPECT_THROW(grid_sampler(rnd({2, 3, 4, 4, 4}), rnd({2, 2, 2, 2, 3}), 2, 0, false), RuntimeError);
  EXPECT_THROW(grid_sampler(x, rnd({2, 2, 2, 2}, kFloat), 0, 0, false), RuntimeError);
  EXPECT_THROW(affine_grid_generator(rnd({2, 2, 3}), one, false), RuntimeError);
  EXPECT_THROW(_upsample_bilinear2d_aa(x, one, false), RuntimeError);
  EXPECT_THROW(_upsample_bicubic2d_aa(x.to(kBFloat16), two, false), RuntimeError);
  EXPECT_THROW(_upsample_bilinear2d_aa_backward(rnd({2, 3, 3, 4}), two, x.sizes(), false), RuntimeError);
}

}  // namespace ember::sample_test
