// Unary math, comparisons and where: values against std:: math, result dtypes, layouts
// (non-contiguous, broadcast, out=, in-place), errors, and the Default-ISA kernels against
// the ones this CPU selects.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "backends/cpu/stubs.h"
#include "ember/ops.h"
#include "ops/iter.h"
#include "test_util.h"

using namespace ember;
using ember::testing::values;
using cpu::UnaryOp;

namespace {


template <typename T>
std::vector<T> uniform(int64_t n, double lo, double hi, unsigned seed = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<T> v(static_cast<size_t>(n));
  for (auto& x : v) {
    if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
      using R = typename T::value_type;
      R re = static_cast<R>(d(gen));
      x = T(re, static_cast<R>(d(gen)));
    } else {
      x = static_cast<T>(d(gen));
    }
  }
  return v;
}

// |got - want| within `ulps` units of T's precision at want's magnitude; NaN and inf exact.
template <typename T>
::testing::AssertionResult close(double got, double want, double ulps) {
  if (std::isnan(want)) {
    if (std::isnan(got)) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << ", want nan";
  }
  if (std::isinf(want)) {
    if (got == want) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "got " << got << ", want " << want;
  }
  double eps = std::is_same_v<T, double> ? std::numeric_limits<double>::epsilon()
               : std::is_same_v<T, float> ? std::numeric_limits<float>::epsilon()
                                           : std::ldexp(1.0, -7);  // bfloat16
  double tol = ulps * eps * std::max(std::abs(want), double(std::numeric_limits<float>::min()));
  if (std::abs(got - want) <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << ", want " << want << " (tol " << tol << ")";
}

double ref(UnaryOp op, double x) {
  switch (op) {
    case UnaryOp::Neg: return -x;
    case UnaryOp::Abs: return std::abs(x);
    case UnaryOp::Exp: return std::exp(x);
    case UnaryOp::Log: return std::log(x);
    case UnaryOp::Sqrt: return std::sqrt(x);
    case UnaryOp::Sin: return std::sin(x);
    case UnaryOp::Cos: return std::cos(x);
    case UnaryOp::Tanh: return std::tanh(x);
    case UnaryOp::Sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case UnaryOp::Relu: return x < 0 ? 0.0 : x;
    default: break;
  }
  return 0;
}

template <typename C>
C ref_complex(UnaryOp op, C z) {
  switch (op) {
    case UnaryOp::Neg: return -z;
    case UnaryOp::Exp: return std::exp(z);
    case UnaryOp::Log: return std::log(z);
    case UnaryOp::Sqrt: return std::sqrt(z);
    case UnaryOp::Sin: return std::sin(z);
    case UnaryOp::Cos: return std::cos(z);
    case UnaryOp::Tanh: return std::tanh(z);
    case UnaryOp::Sigmoid: return C(1) / (C(1) + std::exp(-z));
    default: return z;
  }
}

Tensor call(UnaryOp op, const Tensor& x) {
  switch (op) {
    case UnaryOp::Neg: return neg(x);
    case UnaryOp::Abs: return abs(x);
    case UnaryOp::Exp: return exp(x);
    case UnaryOp::Log: return log(x);
    case UnaryOp::Sqrt: return sqrt(x);
    case UnaryOp::Sin: return sin(x);
    case UnaryOp::Cos: return cos(x);
    case UnaryOp::Tanh: return tanh(x);
    case UnaryOp::Sigmoid: return sigmoid(x);
    case UnaryOp::Relu: return relu(x);
    default: break;
  }
  return Tensor();
}
Tensor& call_out(UnaryOp op, Tensor& out, const Tensor& x) {
  switch (op) {
    case UnaryOp::Neg: return neg_out(out, x);
    case UnaryOp::Abs: return abs_out(out, x);
    case UnaryOp::Exp: return exp_out(out, x);
    case UnaryOp::Log: return log_out(out, x);
    case UnaryOp::Sqrt: return sqrt_out(out, x);
    case UnaryOp::Sin: return sin_out(out, x);
    case UnaryOp::Cos: return cos_out(out, x);
    case UnaryOp::Tanh: return tanh_out(out, x);
    case UnaryOp::Sigmoid: return sigmoid_out(out, x);
    case UnaryOp::Relu: return relu_out(out, x);
    default: break;
  }
  return out;
}
Tensor& call_(UnaryOp op, Tensor& x) {
  switch (op) {
    case UnaryOp::Neg: return x.neg_();
    case UnaryOp::Abs: return x.abs_();
    case UnaryOp::Exp: return x.exp_();
    case UnaryOp::Log: return x.log_();
    case UnaryOp::Sqrt: return x.sqrt_();
    case UnaryOp::Sin: return x.sin_();
    case UnaryOp::Cos: return x.cos_();
    case UnaryOp::Tanh: return x.tanh_();
    case UnaryOp::Sigmoid: return x.sigmoid_();
    case UnaryOp::Relu: return x.relu_();
    default: break;
  }
  return x;
}

const UnaryOp kAllOps[] = {UnaryOp::Neg, UnaryOp::Abs, UnaryOp::Exp, UnaryOp::Log, UnaryOp::Sqrt,
                           UnaryOp::Sin, UnaryOp::Cos, UnaryOp::Tanh, UnaryOp::Sigmoid, UnaryOp::Relu};

// An input range where the op is defined and the result is a normal number.
std::pair<double, double> domain(UnaryOp op) {
  switch (op) {
    case UnaryOp::Exp: return {-20, 20};
    case UnaryOp::Log: return {1e-3, 1e3};
    case UnaryOp::Sqrt: return {0, 1e4};
    case UnaryOp::Sigmoid: return {-30, 30};
    default: return {-10, 10};
  }
}
double ulps_for(UnaryOp op) { return op == UnaryOp::Sigmoid ? 4 : 2; }

// Sizes that cover vector tails, the strided buffers and the threaded split.
const int64_t kSizes[] = {1, 3, 17, 255, 1000, 70001};

template <typename T>
void check_real_values() {
  for (UnaryOp op : kAllOps) {
    auto [lo, hi] = domain(op);
    for (int64_t n : kSizes) {
      auto in = uniform<T>(n, lo, hi, static_cast<unsigned>(n));
      Tensor x = tensor(in);
      Tensor y = call(op, x);
      ASSERT_EQ(y.dtype(), scalar_type_of<T>);
      ASSERT_EQ(y.numel(), n);
      auto got = values<T>(y);
      for (int64_t i = 0; i < n; ++i)
        ASSERT_TRUE(close<T>(got[i], ref(op, in[i]), ulps_for(op)))
            << "op " << static_cast<int>(op) << " n " << n << " x " << in[i];
    }
  }
}

}  // namespace

// ---------------------------------------------------------------- unary values
TEST(PointwiseUnary, FloatMatchesStd) { check_real_values<float>(); }
TEST(PointwiseUnary, DoubleMatchesStd) { check_real_values<double>(); }

TEST(PointwiseUnary, SpecialValues) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  auto v = [](const Tensor& t) { return values<float>(t); };
  auto e = v(exp(tensor({-inf, inf, nan, 0.f, -200.f, 100.f})));
  EXPECT_EQ(e[0], 0.f);
  EXPECT_EQ(e[1], inf);
  EXPECT_TRUE(std::isnan(e[2]));
  EXPECT_EQ(e[3], 1.f);
  EXPECT_EQ(e[4], 0.f);
  EXPECT_EQ(e[5], inf);
  auto l = v(log(tensor({0.f, -1.f, inf, 1.f})));
  EXPECT_EQ(l[0], -inf);
  EXPECT_TRUE(std::isnan(l[1]));
  EXPECT_EQ(l[2], inf);
  EXPECT_EQ(l[3], 0.f);
  EXPECT_TRUE(std::isnan(v(sqrt(tensor({-1.f})))[0]));
  auto s = v(sigmoid(tensor({-100.f, 100.f, 0.f, nan, -inf, inf})));
  // e^-100 is a subnormal float: computed from e^-|x|, it keeps its value (PyTorch gives 0).
  EXPECT_NEAR(s[0], std::exp(-100.0), 3e-45);
  EXPECT_EQ(s[1], 1.f);
  EXPECT_EQ(s[2], 0.5f);
  EXPECT_TRUE(std::isnan(s[3]));
  EXPECT_EQ(s[4], 0.f);
  EXPECT_EQ(s[5], 1.f);
  auto t = v(tanh(tensor({-inf, inf, 50.f})));
  EXPECT_EQ(t[0], -1.f);
  EXPECT_EQ(t[1], 1.f);
  EXPECT_EQ(t[2], 1.f);
  // relu is clamp_min(x, 0): -0.0 and NaN pass through; abs clears the sign of -0.0.
  auto r = v(relu(tensor({-0.f, nan, -1.f, 2.f})));
  EXPECT_TRUE(std::signbit(r[0]));
  EXPECT_TRUE(std::isnan(r[1]));
  EXPECT_EQ(r[2], 0.f);
  EXPECT_EQ(r[3], 2.f);
  auto a = v(abs(tensor({-0.f, -inf, nan})));
  EXPECT_FALSE(std::signbit(a[0]));
  EXPECT_EQ(a[1], inf);
  EXPECT_TRUE(std::isnan(a[2]));
  EXPECT_TRUE(std::signbit(v(neg(tensor({0.f})))[0]));
}

TEST(PointwiseUnary, IntegerKeepsDtypeAndWraps) {
  auto i8 = tensor<int8_t>({-128, -5, 0, 7, 127});
  EXPECT_EQ(values<int8_t>(neg(i8)), (std::vector<int8_t>{-128, 5, 0, -7, -127}));
  EXPECT_EQ(values<int8_t>(abs(i8)), (std::vector<int8_t>{-128, 5, 0, 7, 127}));
  EXPECT_EQ(values<int8_t>(relu(i8)), (std::vector<int8_t>{0, 0, 0, 7, 127}));
  auto u8 = tensor<uint8_t>({0, 5, 255});
  EXPECT_EQ(neg(u8).dtype(), kUInt8);
  EXPECT_EQ(values<uint8_t>(neg(u8)), (std::vector<uint8_t>{0, 251, 1}));
  EXPECT_EQ(values<uint8_t>(relu(u8)), (std::vector<uint8_t>{0, 5, 255}));
  auto i64 = tensor<int64_t>({std::numeric_limits<int64_t>::min(), -3, 4});
  EXPECT_EQ(values<int64_t>(abs(i64)), (std::vector<int64_t>{std::numeric_limits<int64_t>::min(), 3, 4}));
  EXPECT_EQ(values<int16_t>(neg(tensor<int16_t>({3, -4}))), (std::vector<int16_t>{-3, 4}));
  EXPECT_EQ(values<int32_t>(relu(tensor<int32_t>({-3, 4}))), (std::vector<int32_t>{0, 4}));
}

TEST(PointwiseUnary, IntegerAndBoolComputeInDefaultFloat) {
  auto in = std::vector<int32_t>{-3, 0, 1, 2, 9};
  for (UnaryOp op : {UnaryOp::Exp, UnaryOp::Sin, UnaryOp::Cos, UnaryOp::Tanh, UnaryOp::Sigmoid}) {
    Tensor y = call(op, tensor(in));
    ASSERT_EQ(y.dtype(), kFloat);
    auto got = values<float>(y);
    for (size_t i = 0; i < in.size(); ++i) EXPECT_TRUE(close<float>(got[i], ref(op, in[i]), ulps_for(op)));
  }
  auto pos = tensor<int64_t>({1, 4, 100});
  EXPECT_EQ(values<float>(sqrt(pos)), (std::vector<float>{1.f, 2.f, 10.f}));
  EXPECT_EQ(values<float>(log(tensor<uint8_t>({1})))[0], 0.f);
  Tensor b = exp(tensor<bool>({true, false}));
  EXPECT_EQ(b.dtype(), kFloat);
  EXPECT_TRUE(close<float>(values<float>(b)[0], std::exp(1.0), 2));
  EXPECT_EQ(values<float>(b)[1], 1.f);

  set_default_dtype(kDouble);
  Tensor d = exp(tensor<int64_t>({1, 2}));
  set_default_dtype(kFloat);
  EXPECT_EQ(d.dtype(), kDouble);
  EXPECT_TRUE(close<double>(values<double>(d)[1], std::exp(2.0), 2));
}

TEST(PointwiseUnary, ReducedFloats) {
  auto in = uniform<float>(300, -4, 4, 7);
  std::vector<BFloat16> bin(in.begin(), in.end());
  for (UnaryOp op : kAllOps) {
    std::vector<BFloat16> x = bin;
    if (op == UnaryOp::Log || op == UnaryOp::Sqrt)
      for (auto& v : x) v = BFloat16(std::abs(float(v)) + 0.25f);
    Tensor y = call(op, tensor(x));
    ASSERT_EQ(y.dtype(), kBFloat16);
    auto got = values<BFloat16>(y);
    for (size_t i = 0; i < x.size(); ++i)  // computed in float, rounded once
      ASSERT_TRUE(close<BFloat16>(float(got[i]), ref(op, float(x[i])), 1)) << static_cast<int>(op);
  }
  // float16: neg and abs only, as in PyTorch 1.13 on CPU.
  std::vector<Half> h{Half(-1.5f), Half(0.f), Half(2.25f)};
  EXPECT_EQ(neg(tensor(h)).dtype(), kHalf);
  auto hn = values<Half>(neg(tensor(h)));
  auto ha = values<Half>(abs(tensor(h)));
  EXPECT_EQ(float(hn[0]), 1.5f);
  EXPECT_EQ(float(hn[2]), -2.25f);
  EXPECT_EQ(float(ha[0]), 1.5f);
  for (UnaryOp op : {UnaryOp::Exp, UnaryOp::Log, UnaryOp::Sqrt, UnaryOp::Sin, UnaryOp::Cos, UnaryOp::Tanh,
                     UnaryOp::Sigmoid, UnaryOp::Relu})
    EXPECT_THROW(call(op, tensor(h)), RuntimeError) << static_cast<int>(op);
}

template <typename C>
void check_complex() {
  using R = typename C::value_type;
  const double eps = std::numeric_limits<R>::epsilon();
  auto in = uniform<C>(257, -3, 3, 3);
  for (UnaryOp op : {UnaryOp::Neg, UnaryOp::Exp, UnaryOp::Log, UnaryOp::Sqrt, UnaryOp::Sin, UnaryOp::Cos,
                     UnaryOp::Tanh, UnaryOp::Sigmoid}) {
    Tensor y = call(op, tensor(in));
    ASSERT_EQ(y.dtype(), scalar_type_of<C>);
    auto got = values<C>(y);
    for (size_t i = 0; i < in.size(); ++i) {
      auto want = ref_complex(op, std::complex<double>(in[i]));
      ASSERT_LE(std::abs(std::complex<double>(got[i]) - want), 64 * eps * std::max(1.0, std::abs(want)))
          << static_cast<int>(op) << " at " << in[i];
    }
  }
  Tensor a = abs(tensor(in));
  ASSERT_EQ(a.dtype(), to_real_type(scalar_type_of<C>));
  auto got = values<R>(a);
  for (size_t i = 0; i < in.size(); ++i) EXPECT_TRUE(close<R>(got[i], std::abs(std::complex<double>(in[i])), 2));
  Tensor t = tensor(in);
  EXPECT_THROW(t.abs_(), RuntimeError);
  EXPECT_THROW(relu(t), RuntimeError);
}
TEST(PointwiseUnary, Complex64) { check_complex<complex64>(); }
TEST(PointwiseUnary, Complex128) { check_complex<complex128>(); }

TEST(PointwiseUnary, NonContiguousAndBroadcastInputs) {
  auto in = uniform<float>(6 * 40, 0.1, 5, 11);
  Tensor base = tensor(in).view({6, 40});
  for (UnaryOp op : kAllOps) {
    // Transposed: the result keeps the input's memory order, as in PyTorch.
    Tensor tr = base.t();
    Tensor y = call(op, tr);
    EXPECT_EQ(y.strides().vec(), (std::vector<int64_t>{1, 40})) << static_cast<int>(op);
    // Every other column, and a broadcast row.
    Tensor sl = base.slice(1, 1, std::nullopt, 2);
    Tensor ys = call(op, sl);
    Tensor br = base.select(0, 2).unsqueeze(0).expand({5, 40});
    Tensor yb = call(op, br);
    ASSERT_TRUE(ys.is_contiguous());
    auto gy = values<float>(y), gs = values<float>(ys), gb = values<float>(yb);
    for (int64_t i = 0; i < 40; ++i)
      for (int64_t j = 0; j < 6; ++j)
        ASSERT_TRUE(close<float>(gy[i * 6 + j], ref(op, in[j * 40 + i]), ulps_for(op)));
    for (int64_t j = 0; j < 6; ++j)
      for (int64_t i = 0; i < 20; ++i)
        ASSERT_TRUE(close<float>(gs[j * 20 + i], ref(op, in[j * 40 + 1 + 2 * i]), ulps_for(op)));
    for (int64_t r = 0; r < 5; ++r)
      for (int64_t i = 0; i < 40; ++i)
        ASSERT_TRUE(close<float>(gb[r * 40 + i], ref(op, in[2 * 40 + i]), ulps_for(op)));
  }
  // Empty inputs give empty results of the right shape and dtype.
  Tensor e = exp(empty({0, 3}, kInt32));
  EXPECT_EQ(e.sizes().vec(), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(e.dtype(), kFloat);
  EXPECT_EQ(lt(empty({0}), 1).numel(), 0);
  EXPECT_EQ(where(empty({0}, kBool), empty({0}), 1.0).numel(), 0);
  // A 0-dim input gives a 0-dim result.
  Tensor z = exp(scalar_tensor(1.0, kDouble));
  EXPECT_EQ(z.dim(), 0);
  EXPECT_TRUE(close<double>(z.item<double>(), std::exp(1.0), 2));
}

TEST(PointwiseUnary, InPlace) {
  for (UnaryOp op : kAllOps) {
    auto in = uniform<double>(50, 0.5, 3, 5);
    Tensor x = tensor(in);
    uint32_t v0 = x.version();
    Tensor& r = call_(op, x);
    EXPECT_TRUE(r.is_same(x));
    EXPECT_GT(x.version(), v0);
    auto got = values<double>(x);
    for (size_t i = 0; i < in.size(); ++i) ASSERT_TRUE(close<double>(got[i], ref(op, in[i]), ulps_for(op)));
  }
  // A strided view is updated in place; the elements between stay as they were.
  Tensor base = tensor(std::vector<float>{1, 2, 3, 4, 5, 6});
  Tensor view = base.slice(0, 0, std::nullopt, 2);
  view.neg_();
  EXPECT_EQ(values<float>(base), (std::vector<float>{-1, 2, -3, 4, -5, 6}));
  // Float ops cannot write back into an integer tensor; nor into overlapping elements.
  Tensor i = tensor<int64_t>({1, 2});
  EXPECT_THROW(i.exp_(), RuntimeError);
  EXPECT_THROW(i.sigmoid_(), RuntimeError);
  Tensor ex = tensor({1.f}).expand({3});
  EXPECT_THROW(ex.exp_(), RuntimeError);
  Tensor b = tensor<bool>({true});
  EXPECT_THROW(b.neg_(), RuntimeError);
  EXPECT_THROW(b.abs_(), RuntimeError);
  EXPECT_THROW(b.relu_(), RuntimeError);
}

TEST(PointwiseUnary, OutForms) {
  Tensor x = tensor({0.5f, 1.f, 2.f});
  // Results cast into any out dtype they may safely reach.
  Tensor o64 = empty({3}, kDouble);
  Tensor& r = exp_out(o64, x);
  EXPECT_TRUE(r.is_same(o64));
  EXPECT_TRUE(close<float>(values<double>(o64)[1], std::exp(1.0), 2));
  Tensor oc = empty({3}, kComplexFloat);
  exp_out(oc, x);
  EXPECT_NEAR(values<complex64>(oc)[2].real(), std::exp(2.0), 1e-5);
  Tensor ofromint = empty({2}, kDouble);
  sqrt_out(ofromint, tensor<int32_t>({4, 9}));
  EXPECT_EQ(values<double>(ofromint), (std::vector<double>{2, 3}));
  Tensor oi = empty({3}, kInt32);
  EXPECT_THROW(exp_out(oi, x), RuntimeError);
  // neg, abs and relu want exactly their input dtype.
  EXPECT_THROW(neg_out(o64, x), RuntimeError);
  Tensor of = empty({2}, kFloat);
  EXPECT_THROW(abs_out(of, tensor<int32_t>({1, 2})), RuntimeError);
  EXPECT_THROW(relu_out(of, tensor<int32_t>({1, 2})), RuntimeError);
  // abs of complex: a real result, castable to a complex or wider out.
  Tensor c = tensor(std::vector<complex64>{{3, 4}, {0, -1}});
  Tensor ac = empty({2}, kComplexFloat);
  abs_out(ac, c);
  EXPECT_EQ(values<complex64>(ac)[0], complex64(5, 0));
  Tensor ad = empty({2}, kDouble);
  abs_out(ad, c);
  EXPECT_EQ(values<double>(ad)[1], 1.0);
  Tensor ai = empty({2}, kInt64);
  EXPECT_THROW(abs_out(ai, c), RuntimeError);
  // A wrongly shaped out is resized; a strided out is written in place.
  Tensor small = empty({5}, kFloat);
  exp_out(small, tensor({0.f, 0.f, 0.f, 0.f, 0.f, 0.f}).view({2, 3}));
  EXPECT_EQ(small.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values<float>(small), std::vector<float>(6, 1.f));
  Tensor big = zeros({6});
  Tensor every_other = big.slice(0, 0, std::nullopt, 2);
  sqrt_out(every_other, tensor({4.f, 9.f, 16.f}));
  EXPECT_EQ(values<float>(big), (std::vector<float>{2, 0, 3, 0, 4, 0}));
  for (UnaryOp op : kAllOps) {  // every op into a strided out of its own dtype
    auto in = uniform<float>(40, 0.5, 4, 13);
    Tensor dst = full({80}, -99.f);
    Tensor view = dst.slice(0, 1, std::nullopt, 2);
    Tensor& res = call_out(op, view, tensor(in));
    EXPECT_TRUE(res.is_same(view));
    auto got = values<float>(dst);
    for (int64_t i = 0; i < 40; ++i) {
      ASSERT_EQ(got[2 * i], -99.f);
      ASSERT_TRUE(close<float>(got[2 * i + 1], ref(op, in[i]), ulps_for(op))) << static_cast<int>(op);
    }
  }
  Tensor overlap = empty({1}).expand({3});
  EXPECT_THROW(exp_out(overlap, x), RuntimeError);
}

TEST(PointwiseUnary, LargeStreamedAndMisaligned) {
  // Large enough for streaming stores; the slice starts one element off the vector boundary.
  const int64_t n = (int64_t(8) << 20) + 13;
  auto in = uniform<float>(n + 1, -10, 10, 21);
  Tensor x = tensor(in).slice(0, 1);
  Tensor out = empty({n + 1}).slice(0, 1);
  exp_out(out, x);
  auto got = values<float>(out);
  // Every element at the ends of the threads' chunks, a sample in between.
  auto checked = [&](int64_t i) { return i < 256 || i % 31 == 0 || (i > n / 2 - 256 && i < n / 2 + 256) || i >= n - 256; };
  for (int64_t i = 0; i < n; ++i) {
    if (!checked(i)) continue;
    ASSERT_TRUE(close<float>(got[i], std::exp(double(in[i + 1])), 2)) << i;
  }
  auto got2 = values<float>(sigmoid(x));
  for (int64_t i = 0; i < n; ++i) {
    if (!checked(i)) continue;
    ASSERT_TRUE(close<float>(got2[i], ref(UnaryOp::Sigmoid, in[i + 1]), 4)) << i;
  }
}

TEST(PointwiseUnary, BoolAndComplexErrors) {
  Tensor b = tensor<bool>({true, false});
  EXPECT_THROW(neg(b), RuntimeError);
  EXPECT_THROW(abs(b), RuntimeError);
  EXPECT_THROW(relu(b), RuntimeError);
  EXPECT_THROW(-b, RuntimeError);
  EXPECT_THROW(relu(tensor(std::vector<complex128>{{1, 1}})), RuntimeError);
  try {
    neg(b);
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("bool"), std::string::npos) << e.what();
  }
}

TEST(PointwiseUnary, MetaTensors) {
  Tensor m = empty({4, 5}, TensorOptions(kInt32).device(kMeta));
  Tensor e = exp(m);
  EXPECT_TRUE(e.is_meta());
  EXPECT_EQ(e.dtype(), kFloat);
  EXPECT_EQ(e.sizes().vec(), (std::vector<int64_t>{4, 5}));
  EXPECT_EQ(neg(m).dtype(), kInt32);
  EXPECT_EQ(abs(empty({2}, TensorOptions(kComplexDouble).device(kMeta))).dtype(), kDouble);
  EXPECT_THROW(neg(empty({2}, TensorOptions(kBool).device(kMeta))), RuntimeError);
  EXPECT_THROW(lt(empty({2}, TensorOptions(kComplexFloat).device(kMeta)), 1), RuntimeError);
}

// The Default build (SSE2 vectors) against the kernels this CPU selects; both run in every
// test process, whatever EMBER_CPU_CAPABILITY says.
TEST(PointwiseUnary, DefaultIsaMatchesSelected) {
  ASSERT_NE(cpu::unary_stub.table[0], nullptr);
  auto run = [](cpu::UnaryFn fn, const Tensor& x, UnaryOp op) {
    IterConfig cfg;
    if (op == UnaryOp::Abs && x.is_complex()) cfg.output_dtype = to_real_type(x.dtype());
    ElementwiseIter it("test", Tensor(), {x}, cfg);
    fn(it, op, cpu::UnaryParams{});
    it.finish();
    return it.output();
  };
  const cpu::UnaryFn selected = cpu::unary_stub.get();
  for (UnaryOp op : kAllOps) {
    auto [lo, hi] = domain(op);
    for (int64_t n : {int64_t(5), int64_t(1003), int64_t(40001)}) {
      Tensor f = tensor(uniform<float>(n, lo, hi, 9));
      Tensor d = tensor(uniform<double>(n, lo, hi, 9));
      Tensor b = f.to(kBFloat16);
      Tensor strided = tensor(uniform<float>(2 * n, lo, hi, 4)).slice(0, 0, std::nullopt, 2);
      for (const Tensor& x : {f, d, b, strided}) {
        Tensor a = run(cpu::unary_stub.table[0], x, op), s = run(selected, x, op);
        ASSERT_EQ(a.dtype(), s.dtype());
        Tensor a64 = a.to(kDouble), s64 = s.to(kDouble);
        auto va = values<double>(a64), vs = values<double>(s64);
        for (int64_t i = 0; i < n; ++i) {
          if (x.dtype() == kDouble) ASSERT_TRUE(close<double>(va[i], vs[i], 4)) << static_cast<int>(op);
          else if (x.dtype() == kFloat) ASSERT_TRUE(close<float>(va[i], vs[i], 4)) << static_cast<int>(op);
          else ASSERT_TRUE(close<BFloat16>(va[i], vs[i], 1)) << static_cast<int>(op);
        }
      }
    }
  }
  // Integer and complex kernels: the AVX builds hand some dtypes to the Default one.
  Tensor i = tensor<int32_t>({-7, 0, 9});
  EXPECT_EQ(values<int32_t>(run(cpu::unary_stub.table[0], i, UnaryOp::Abs)),
            values<int32_t>(run(selected, i, UnaryOp::Abs)));
  Tensor c = tensor(std::vector<complex64>{{1, 2}, {-3, 0.5f}});
  EXPECT_EQ(values<complex64>(run(cpu::unary_stub.table[0], c, UnaryOp::Exp)),
            values<complex64>(run(selected, c, UnaryOp::Exp)));
}

// ---------------------------------------------------------------- comparisons
namespace {
// std::vector<bool> has no data(): bools go through a plain array.
template <typename T>
Tensor make(const std::vector<T>& v) {
  if constexpr (std::is_same_v<T, bool>) {
    std::unique_ptr<bool[]> p(new bool[v.size()]);
    std::copy(v.begin(), v.end(), p.get());
    return tensor(ArrayRef<bool>(p.get(), v.size()));
  } else {
    return tensor(v);
  }
}

template <typename T>
void check_compare_dtype(const std::vector<T>& a, const std::vector<T>& b) {
  Tensor x = make(a), y = make(b);
  auto check = [&](const Tensor& r, auto pred) {
    ASSERT_EQ(r.dtype(), kBool);
    auto got = values<bool>(r);
    for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(got[i], pred(a[i], b[i])) << i;
  };
  check(eq(x, y), [](T p, T q) { return p == q; });
  check(ne(x, y), [](T p, T q) { return p != q; });
  if constexpr (!std::is_same_v<T, complex64> && !std::is_same_v<T, complex128>) {
    check(lt(x, y), [](T p, T q) { return p < q; });
    check(le(x, y), [](T p, T q) { return p <= q; });
    check(gt(x, y), [](T p, T q) { return p > q; });
    check(ge(x, y), [](T p, T q) { return p >= q; });
  } else {
    for (auto* f : {static_cast<Tensor (*)(const Tensor&, const Tensor&)>(&lt),
                    static_cast<Tensor (*)(const Tensor&, const Tensor&)>(&le),
                    static_cast<Tensor (*)(const Tensor&, const Tensor&)>(&gt),
                    static_cast<Tensor (*)(const Tensor&, const Tensor&)>(&ge)})
      EXPECT_THROW(f(x, y), RuntimeError);
  }
}
}  // namespace

TEST(PointwiseCompare, ValuesPerDtype) {
  const float nan = std::nanf("");
  check_compare_dtype<float>({1, 2, nan, 3, -0.f, 5}, {1, 3, nan, 2, 0.f, nan});
  check_compare_dtype<double>({1, 2, 3, 4}, {4, 2, 1, 4});
  check_compare_dtype<int32_t>({-1, 2, 7}, {-1, 3, 6});
  check_compare_dtype<int64_t>({int64_t(1) << 60, 2}, {(int64_t(1) << 60) + 1, 2});
  check_compare_dtype<uint8_t>({0, 200, 5}, {1, 200, 4});
  check_compare_dtype<int8_t>({-1, 2}, {1, 2});
  check_compare_dtype<int16_t>({-1, 2}, {1, 2});
  check_compare_dtype<bool>({true, false, true}, {true, true, false});
  check_compare_dtype<complex64>({{1, 2}, {1, 0}}, {{1, 2}, {1, 1}});
  check_compare_dtype<complex128>({{1, 2}, {1, 0}}, {{1, 3}, {1, 0}});
  // 16-bit floats compare by value.
  Tensor h = tensor(std::vector<Half>{Half(1.5f), Half(2.f)});
  Tensor bf = tensor(std::vector<BFloat16>{BFloat16(1.5f), BFloat16(3.f)});
  EXPECT_EQ(values<bool>(eq(h, bf)), (std::vector<bool>{true, false}));
  EXPECT_EQ(values<bool>(lt(bf, h.to(kBFloat16))), (std::vector<bool>{false, false}));
  EXPECT_EQ(values<bool>(gt(h, 1.75)), (std::vector<bool>{false, true}));
}

TEST(PointwiseCompare, PromotionAndScalars) {
  Tensor i = tensor<int64_t>({1, 2});
  // Computed in the promoted dtype: an int tensor against 1.5 compares as float.
  EXPECT_EQ(values<bool>(eq(i, 1.5)), (std::vector<bool>{false, false}));
  EXPECT_EQ(values<bool>(lt(i, 1.5)), (std::vector<bool>{true, false}));
  EXPECT_EQ(values<bool>(ge(i, tensor({1.5}).to(kDouble))), (std::vector<bool>{false, true}));
  // A Python-style int keeps the tensor's dtype: -1 becomes 255 for uint8, as in PyTorch.
  EXPECT_EQ(values<bool>(gt(tensor<uint8_t>({3}), -1)), (std::vector<bool>{false}));
  EXPECT_EQ(values<bool>(eq(tensor({1.f, 2.f}), complex128(1, 0))), (std::vector<bool>{true, false}));
  EXPECT_EQ(values<bool>(lt(tensor<bool>({true, false}), 0.5)), (std::vector<bool>{false, true}));
  EXPECT_EQ(values<bool>(ne(tensor({1.f}), std::nan(""))), (std::vector<bool>{true}));
  EXPECT_THROW(lt(tensor({1.f}), complex128(1, 1)), RuntimeError);
  EXPECT_THROW(gt(tensor(std::vector<complex64>{{1, 0}}), tensor({1.f})), RuntimeError);
  // Methods.
  Tensor f = tensor({1.f, 2.f, 3.f});
  EXPECT_EQ(values<bool>(f.le(2)), (std::vector<bool>{true, true, false}));
  EXPECT_EQ(values<bool>(f.gt(tensor({0.f, 2.f, 2.f}))), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(values<bool>(f.eq(2)), (std::vector<bool>{false, true, false}));
  EXPECT_EQ(values<bool>(f.ne(2.0)), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(values<bool>(f.lt(f)), (std::vector<bool>{false, false, false}));
  EXPECT_EQ(values<bool>(f.ge(3)), (std::vector<bool>{false, false, true}));
}

TEST(PointwiseCompare, BroadcastLayoutsAndOut) {
  Tensor col = tensor({1.f, 2.f}).view({2, 1});
  Tensor row = tensor({0.f, 1.f, 2.f});
  Tensor r = lt(col, row);
  EXPECT_EQ(r.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values<bool>(r), (std::vector<bool>{false, false, true, false, false, false}));
  // A transposed input: the result follows its memory order.
  Tensor t = tensor(uniform<float>(6, -1, 1, 2)).view({2, 3}).t();
  Tensor rt = gt(t, 0);
  EXPECT_EQ(rt.strides().vec(), (std::vector<int64_t>{1, 3}));
  auto tv = values<float>(t);
  auto rv = values<bool>(rt);
  for (size_t i = 0; i < tv.size(); ++i) EXPECT_EQ(rv[i], tv[i] > 0);
  // Larger and strided, across the threaded split.
  const int64_t n = 100000;
  auto a = uniform<double>(2 * n, -1, 1, 5);
  Tensor xs = tensor(a).slice(0, 0, std::nullopt, 2);
  auto rs = values<bool>(le(xs, 0.25));
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(rs[i], a[2 * i] <= 0.25) << i;
  EXPECT_THROW(eq(tensor({1.f, 2.f}), tensor({1.f, 2.f, 3.f})), RuntimeError);
  // out= of any dtype receives the bool result.
  Tensor of = empty({2}, kFloat);
  Tensor& ret = eq_out(of, tensor({1.f, 2.f}), tensor<int64_t>({1, 3}));
  EXPECT_TRUE(ret.is_same(of));
  EXPECT_EQ(values<float>(of), (std::vector<float>{1.f, 0.f}));
  Tensor oi = empty({2}, kInt32);
  ge_out(oi, tensor<int32_t>({1, 2}), tensor<int32_t>({2, 2}));
  EXPECT_EQ(values<int32_t>(oi), (std::vector<int32_t>{0, 1}));
  Tensor ob = empty({0}, kBool);
  ne_out(ob, col, row);
  EXPECT_EQ(ob.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values<bool>(ob), (std::vector<bool>{true, false, true, true, true, false}));
}

// ---------------------------------------------------------------- where
TEST(PointwiseWhere, ValuesAndBroadcast) {
  Tensor c = tensor<bool>({true, false}).view({2, 1});
  Tensor x = tensor({1.f, 2.f, 3.f});
  Tensor y = tensor({-1.f, -2.f, -3.f, -4.f}).view({4, 1, 1});
  Tensor r = where(c, x, y);
  ASSERT_EQ(r.sizes().vec(), (std::vector<int64_t>{4, 2, 3}));
  auto v = values<float>(r);
  for (int64_t k = 0; k < 4; ++k)
    for (int64_t i = 0; i < 2; ++i)
      for (int64_t j = 0; j < 3; ++j) ASSERT_EQ(v[(k * 2 + i) * 3 + j], i == 0 ? float(j + 1) : -float(k + 1));
  EXPECT_THROW(where(tensor<bool>({true, false}), x, x), RuntimeError);
  // Large, with one side a scalar, across the threaded split.
  const int64_t n = 100003;
  auto cv = uniform<float>(n, -1, 1, 8);
  auto av = uniform<double>(n, -1, 1, 9);
  Tensor cond = gt(tensor(cv), 0);
  Tensor a = tensor(av);
  auto w1 = values<double>(where(cond, a, 7.0));
  auto w2 = values<double>(where(cond, -7.0, a));
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_EQ(w1[i], cv[i] > 0 ? av[i] : 7.0);
    ASSERT_EQ(w2[i], cv[i] > 0 ? -7.0 : av[i]);
  }
}

TEST(PointwiseWhere, Promotion) {
  Tensor b = tensor<bool>({true, false});
  Tensor f = tensor({1.f, 2.f});
  Tensor i = tensor<int64_t>({1, 2});
  Tensor r = where(b, f, i);
  EXPECT_EQ(r.dtype(), kFloat);
  EXPECT_EQ(values<float>(r), (std::vector<float>{1.f, 2.f}));
  EXPECT_EQ(where(b, i, 2.5).dtype(), kFloat);
  EXPECT_EQ(values<float>(where(b, 2.5, i)), (std::vector<float>{2.5f, 2.f}));
  EXPECT_EQ(where(b, tensor<int32_t>({1, 2}), 2).dtype(), kInt32);
  EXPECT_EQ(where(b, 1, 2).dtype(), kInt64);
  EXPECT_EQ(where(b, 1.0, 2).dtype(), kFloat);
  EXPECT_EQ(where(b, true, false).dtype(), kBool);
  EXPECT_EQ(where(b, complex128(0, 1), 2).dtype(), kComplexFloat);
  // A 0-dim tensor outranks a number but not a dimensioned tensor of the same category.
  EXPECT_EQ(where(b, scalar_tensor(1.5, kDouble), i).dtype(), kDouble);
  EXPECT_EQ(where(b, scalar_tensor(1.5, kDouble), f).dtype(), kFloat);
  EXPECT_EQ(where(b, scalar_tensor(1.5, kDouble), 2).dtype(), kDouble);
  // 2- and 16-byte elements.
  Tensor h = tensor(std::vector<Half>{Half(1.f), Half(2.f)});
  auto hv = values<Half>(where(b, h, 2.5));
  EXPECT_EQ(float(hv[1]), 2.5f);
  Tensor z = tensor(std::vector<complex128>{{1, 1}, {2, 2}});
  auto zv = values<complex128>(where(b, z, tensor(std::vector<complex128>{{5, 5}, {6, 6}})));
  EXPECT_EQ(zv, (std::vector<complex128>{{1, 1}, {6, 6}}));
}

TEST(PointwiseWhere, ConditionDtypesAndOut) {
  Tensor f = tensor({1.f, 2.f, 3.f});
  Tensor g = tensor({-1.f, -2.f, -3.f});
  // uint8 conditions are still accepted (deprecated in PyTorch 1.13): non-zero selects self.
  EXPECT_EQ(values<float>(where(tensor<uint8_t>({0, 2, 255}), f, g)), (std::vector<float>{-1, 2, 3}));
  EXPECT_THROW(where(tensor<int64_t>({0, 1, 1}), f, g), RuntimeError);
  EXPECT_THROW(where(tensor({0.f, 1.f, 1.f}), f, g), RuntimeError);
  Tensor c = tensor<bool>({false, true, false});
  Tensor o = empty({3}, kDouble);
  Tensor& ret = where_out(o, c, f, g);
  EXPECT_TRUE(ret.is_same(o));
  EXPECT_EQ(values<double>(o), (std::vector<double>{-1, 2, -3}));
  Tensor oi = empty({3}, kInt64);
  EXPECT_THROW(where_out(oi, c, f, g), RuntimeError);
  // A 0-dim condition broadcasts; a transposed input sets the output's memory order.
  Tensor m = tensor(uniform<float>(6, -1, 1, 3)).view({2, 3}).t();
  Tensor w = where(scalar_tensor(true), m, zeros({3, 2}));
  EXPECT_EQ(w.strides().vec(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(values<float>(w), values<float>(m));
}

TEST(PointwiseCompare, DefaultIsaMatchesSelected) {
  ASSERT_NE(cpu::compare_stub.table[0], nullptr);
  ASSERT_NE(cpu::where_stub.table[0], nullptr);
  auto a = uniform<float>(5001, -2, 2, 1), b = uniform<float>(5001, -2, 2, 2);
  for (int k = 0; k < 5001; k += 7) b[k] = a[k];
  Tensor x = tensor(a), y = tensor(b);
  for (const Tensor& xx : {x, x.to(kDouble), x.to(kInt32), x.to(kBFloat16)}) {
    for (int op = 0; op < 6; ++op) {
      auto run = [&](cpu::CompareFn fn) {
        IterConfig cfg;
        cfg.output_dtype = kBool;
        ElementwiseIter it("test", Tensor(), {xx, y.to(xx.dtype())}, cfg);
        fn(it, static_cast<cpu::CompareOp>(op));
        it.finish();
        return values<bool>(it.output());
      };
      ASSERT_EQ(run(cpu::compare_stub.table[0]), run(cpu::compare_stub.get())) << op;
    }
  }
  Tensor cond = lt(x, y);
  for (const Tensor& xx : {x, x.to(kDouble), x.to(kInt8), x.to(kHalf)}) {
    auto run = [&](cpu::WhereFn fn) {
      IterConfig cfg;
      cfg.skip_promotion = 1;
      ElementwiseIter it("test", Tensor(), {cond, xx, y.to(xx.dtype())}, cfg);
      fn(it);
      it.finish();
      return it.output().to(kDouble);
    };
    ASSERT_EQ(values<double>(run(cpu::where_stub.table[0])), values<double>(run(cpu::where_stub.get())));
  }
}

// Output 48 bytes past the input modulo 4 KiB takes the bounce-buffer path of the unary
// kernels (4K aliasing); values must not change.
TEST(PointwiseUnary, OutputAliasingInputModulo4KiB) {
  const int64_t n = (int64_t(1) << 16) + 5;
  std::vector<float> mem(static_cast<size_t>(2 * n + 2048));  // room for the 4 KiB shift
  float* in = mem.data();
  float* out = mem.data() + n + 12 + (4096 - (n * 4) % 4096) / 4;
  ASSERT_EQ((reinterpret_cast<uintptr_t>(out) - reinterpret_cast<uintptr_t>(in)) % 4096, 48u);
  for (int64_t i = 0; i < n; ++i) in[i] = static_cast<float>(i % 97) * 0.05f - 2.f;
  ember::Tensor x = ember::from_blob(in, {n}, ember::kFloat);
  ember::Tensor y = ember::from_blob(out, {n}, ember::kFloat);
  ember::exp_out(y, x);
  for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(out[i], std::exp(in[i]), 2e-6f * std::exp(in[i])) << i;
}
