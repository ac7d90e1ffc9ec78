// ember::fft through the public C++ API (src/ops/fft.cpp, backends/cpu/kernels/fft.cpp):
// transforms against a direct DFT over lengths that reach every pass (radices 2-8, generic odd
// radices, Bluestein), inverse and real round trips, gradients, frequencies, and bad arguments
// raising PyTorch's error types. Values against numpy/torch are in tests/python.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>

#include "ember/fft.h"
#include "ember/autograd.h"
#include "ember/gradcheck.h"
#include "ember/ops.h"

namespace ember::fft_test {

// The DFT of x (complex128, 1-D) summed directly, angles reduced exactly.
Tensor direct_dft(const Tensor& x) {
  const int64_t n = x.size(0);
  std::vector<std::complex<double>> in(static_cast<size_t>(n)), out(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) in[j] = x.select(0, j).item<std::complex<double>>();
  for (int64_t k = 0; k < n; ++k) {
    std::complex<double> s = 0;
    for (int64_t j = 0; j < n; ++j) s += in[j] * std::polar(1.0, -2 * M_PI * static_cast<double>(j * k % n) / n);
    out[k] = s;
  }
  return tensor(ArrayRef<std::complex<double>>(out), TensorOptions(kComplexDouble));
}

double rel_err(const Tensor& a, const Tensor& b) {
  return max(abs(sub(a, b))).item<double>() / std::max(max(abs(b)).item<double>(), 1e-300);
}

TEST(Fft, MatchesDirectDftAtEveryKindOfLength) {
  manual_seed(3);
  for (int64_t n : {1, 2, 3, 4, 5, 7, 8, 11, 13, 16, 17, 31, 37, 60, 97, 128, 210, 243}) {
    Tensor x = randn({n}, nullptr, TensorOptions(kComplexDouble));
    EXPECT_LT(rel_err(fft::fft(x), direct_dft(x)), 1e-13) << n;
    EXPECT_LT(rel_err(fft::ifft(fft::fft(x)), x), 1e-13) << n;
    Tensor r = randn({n}, nullptr, TensorOptions(kDouble));
    EXPECT_LT(rel_err(fft::rfft(r), direct_dft(r.to(kComplexDouble)).narrow(0, 0, n / 2 + 1)), 1e-13) << n;
    EXPECT_LT(rel_err(fft::irfft(fft::rfft(r), n), r), 1e-13) << n;
  }
}

TEST(Fft, NormsBatchesAndOut) {
  manual_seed(4);
  Tensor x = randn({3, 8, 6}, nullptr, TensorOptions(kComplexFloat));
  // ortho is unitary: fftn then ifftn with ortho gives x back; "forward" scales the forward by 1/n
  EXPECT_LT(rel_err(fft::ifftn(fft::fftn(x, std::nullopt, std::nullopt, "ortho"), std::nullopt, std::nullopt,
                               "ortho"), x), 1e-5);
  EXPECT_LT(rel_err(mul(fft::fft(x, std::nullopt, 1, "forward"), 8), fft::fft(x, std::nullopt, 1)), 1e-5);
  // fft2 over dims (0, 2) equals two 1-D passes
  const std::vector<int64_t> dims{0, 2};
  EXPECT_LT(rel_err(fft::fft2(x, std::nullopt, dims), fft::fft(fft::fft(x, std::nullopt, 0), std::nullopt, 2)), 1e-5);
  Tensor out = empty({0}, TensorOptions(kComplexFloat));
  Tensor& r = fft::fft_out(out, x, 10, 1);
  EXPECT_EQ(&r, &out);
  EXPECT_EQ(out.size(1), 10);
}

TEST(Fft, Gradients) {
  manual_seed(5);
  autograd::GradcheckOptions o;
  o.fast_mode = true;
  Tensor x = randn({2, 9}, nullptr, TensorOptions(kDouble));
  autograd::set_requires_grad(x);
  EXPECT_TRUE(autograd::gradcheck([](const std::vector<Tensor>& v) { return std::vector<Tensor>{fft::rfft(v[0])}; },
                                  {x}, o));
  Tensor z = randn({2, 5}, nullptr, TensorOptions(kComplexDouble));
  autograd::set_requires_grad(z);
  auto irfft8 = [](const std::vector<Tensor>& v) { return std::vector<Tensor>{fft::irfft(v[0], 8, -1, "ortho")}; };
  EXPECT_TRUE(autograd::gradcheck(irfft8, {z}, o));
  EXPECT_TRUE(autograd::gradgradcheck(irfft8, {z}, std::nullopt, o));
}

TEST(Fft, FrequenciesAndShifts) {
  Tensor f = fft::fftfreq(5, 0.5, TensorOptions(kDouble));
  const double want[5] = {0, 0.4, 0.8, -0.8, -0.4};
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(f.select(0, i).item<double>(), want[i], 1e-15);
  EXPECT_EQ(fft::rfftfreq(6).size(0), 4);
  Tensor a = arange(5, TensorOptions(kDouble));
  EXPECT_EQ(fft::fftshift(a).select(0, 0).item<double>(), 3.0);
  EXPECT_EQ(max(abs(sub(fft::ifftshift(fft::fftshift(a)), a))).item<double>(), 0.0);
}

TEST(Fft, BadArguments) {
  Tensor x = randn({4, 5});
  EXPECT_THROW(fft::fft(x, 0), RuntimeError);
  EXPECT_THROW(fft::fft(x, std::nullopt, 2), IndexError);
  const std::vector<int64_t> twice{0, 0}, s1{3};
  EXPECT_THROW(fft::fftn(x, std::nullopt, twice), RuntimeError);
  EXPECT_THROW(fft::fftn(x, s1, twice), RuntimeError);
  EXPECT_THROW(fft::fft(x, std::nullopt, -1, "bad"), RuntimeError);
  EXPECT_THROW(fft::rfft(x.to(kComplexFloat)), RuntimeError);
  EXPECT_THROW(fft::fft(x.to(kHalf)), RuntimeError);
}

TEST(Fft, StftRoundTripAndWarnings) {
  manual_seed(6);
  Tensor x = randn({3, 200}, nullptr, TensorOptions(kDouble));
  Tensor hann = add(mul(mul(arange(32, TensorOptions(kDouble)), 2 * M_PI / 32).cos(), -0.5), 0.5);
  Tensor spec = stft(x, 32, 8, std::nullopt, hann, true, "reflect", false, std::nullopt, true);
  EXPECT_EQ(spec.sizes(), IntArrayRef({3, 17, 26}));
  Tensor back = istft(spec, 32, 8, std::nullopt, hann, true, false, std::nullopt, 200);
  EXPECT_LT(max(abs(sub(back, x))).item<double>(), 1e-12);
  // Real output without return_complex warns once per call, through the installed handler.
  static int warnings = 0;
  set_warning_handler([](const std::string&) { ++warnings; });
  EXPECT_EQ(stft(x, 32).dim(), 4);
  set_warning_handler(nullptr);
  EXPECT_EQ(warnings, 1);
  EXPECT_THROW(stft(x, 32, 0), RuntimeError);
  EXPECT_THROW(istft(spec, 32, 8, std::nullopt, zeros({32}, TensorOptions(kDouble))), RuntimeError);
}

}  // namespace ember::fft_test
