// Random numbers: the Philox generator, reproducibility (per seed, across thread counts),
// statistics of 1M samples, dtypes and PyTorch's argument errors.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/philox.h"
#include "ember/ops.h"
#include "ember/random.h"

using namespace ember;

namespace {

std::vector<double> values(const Tensor& t) {
  Tensor d = t.to(kDouble).contiguous();
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}

struct Moments {
  double mean = 0, var = 0, min = INFINITY, max = -INFINITY;
};
Moments moments(const std::vector<double>& v) {
  Moments m;
  for (double x : v) {
    m.mean += x;
    m.min = std::min(m.min, x);
    m.max = std::max(m.max, x);
  }
  m.mean /= static_cast<double>(v.size());
  for (double x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= static_cast<double>(v.size() - 1);
  return m;
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.nbytes() == b.nbytes() &&
         std::memcmp(a.contiguous().data_ptr(), b.contiguous().data_ptr(), a.nbytes()) == 0;
}

template <typename E>
void expect_error(const std::function<void()>& f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing: " << part;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

struct Threads {
  int saved;
  explicit Threads(int n) : saved(omp_get_max_threads()) { omp_set_num_threads(n); }
  ~Threads() { omp_set_num_threads(saved); }
};

constexpr int64_t kSamples = 1 << 20;

}  // namespace

TEST(Random, PhiloxKnownAnswers) {
  // Random123's known-answer vectors for philox4x32-10.
  auto b = philox::block(0, 0, 0, 0, 0, 0);
  EXPECT_EQ(b.v[0], 0x6627e8d5u);
  EXPECT_EQ(b.v[3], 0x9b00dbd8u);
  b = philox::block(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu);
  EXPECT_EQ(b.v[0], 0x408f276du);
  EXPECT_EQ(b.v[1], 0x41c83b0eu);
  EXPECT_EQ(b.v[2], 0xa20bc7c6u);
  EXPECT_EQ(b.v[3], 0x6d5451fdu);
  b = philox::block(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u);
  EXPECT_EQ(b.v[0], 0xd16cfe09u);
  EXPECT_EQ(b.v[1], 0x94fdccebu);
  EXPECT_EQ(b.v[2], 0x5001e420u);
  EXPECT_EQ(b.v[3], 0x24126ea1u);
}

TEST(Random, KernelUsesTheDocumentedStream) {
  // Element i of an int32 randint over [0, 2^32) is word i % 4 of block offset + i / 4.
  Generator g(1234);
  g.set_offset(77);
  Tensor t = randint(0, int64_t(1) << 32, {10}, &g);
  for (int64_t i = 0; i < 10; ++i) {
    auto blk = philox::block(1234, 77 + i / 4);
    EXPECT_EQ(t.data_ptr<int64_t>()[i], static_cast<int64_t>(blk.v[i % 4])) << i;
  }
  EXPECT_EQ(g.offset(), 77u + 3u);  // ceil(10 / 4) blocks consumed
}

TEST(Random, SeedsReproduceAndDiffer) {
  manual_seed(42);
  EXPECT_EQ(initial_seed(), 42u);
  Tensor a = rand({1000});
  Tensor b = rand({1000});
  EXPECT_FALSE(same_bits(a, b));  // consecutive calls continue the stream
  manual_seed(42);
  EXPECT_TRUE(same_bits(rand({1000}), a));
  EXPECT_TRUE(same_bits(rand({1000}), b));
  manual_seed(43);
  EXPECT_FALSE(same_bits(rand({1000}), a));

  Generator g1(7), g2(7), g3(8);
  EXPECT_TRUE(same_bits(randn({257}, &g1), randn({257}, &g2)));
  EXPECT_FALSE(same_bits(randn({257}, &g1), randn({257}, &g3)));
  Generator copy = g1;  // copies the state
  EXPECT_TRUE(same_bits(randint(0, 100, {50}, &copy), randint(0, 100, {50}, &g1)));
}

TEST(Random, StateRoundTrip) {
  Generator g(99);
  rand({123}, &g);
  Tensor state = g.get_state();
  EXPECT_EQ(state.dtype(), kUInt8);
  EXPECT_EQ(state.numel(), Generator::kStateSize);
  Tensor x = randn({1000}, &g);
  Generator other;
  other.set_state(state);
  EXPECT_EQ(other.initial_seed(), 99u);
  EXPECT_TRUE(same_bits(randn({1000}, &other), x));
  g.manual_seed(99);
  EXPECT_EQ(g.offset(), 0u);
  expect_error<RuntimeError>([&] { g.set_state(zeros({16}, kFloat)); }, "uint8");
  expect_error<RuntimeError>([&] { g.set_state(zeros({15}, kUInt8)); }, "16 bytes");

  Tensor saved = get_rng_state();
  Tensor r1 = rand({10});
  set_rng_state(saved);
  EXPECT_TRUE(same_bits(rand({10}), r1));
}

TEST(Random, ResultsDoNotDependOnThreadCount) {
  auto draw = [] {
    Generator g(2024);
    Tensor p = full({kSamples}, 0.3, kDouble);
    Tensor c = empty({kSamples / 2}, kComplexFloat);
    normal_(c, 1.0, 2.0, &g);
    return std::vector<Tensor>{rand({kSamples}, &g), rand({kSamples + 3}, &g, kDouble), randn({kSamples + 1}, &g),
                               randn({kSamples}, &g, kDouble), randint(-5, 1000, {kSamples}, &g),
                               randint(0, int64_t(1) << 40, {kSamples}, &g), bernoulli(p, &g),
                               rand({kSamples}, &g, kHalf), c, randperm(100000, &g)};
  };
  std::vector<Tensor> one, two, three;
  {
    Threads t(1);
    one = draw();
  }
  {
    Threads t(2);
    two = draw();
  }
  {
    Threads t(3);
    three = draw();
  }
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_TRUE(same_bits(one[i], two[i])) << "draw " << i;
    EXPECT_TRUE(same_bits(one[i], three[i])) << "draw " << i;
  }
}

TEST(Random, UniformStatistics) {
  Generator g(1);
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    Moments m = moments(values(rand({kSamples}, &g, dt)));
    EXPECT_NEAR(m.mean, 0.5, 0.003) << dtype_name(dt);
    EXPECT_NEAR(m.var, 1.0 / 12, 0.002) << dtype_name(dt);
    EXPECT_GE(m.min, 0.0);
    EXPECT_LT(m.max, 1.0) << dtype_name(dt);  // [0, 1) even after rounding to 16 bits
  }
  Tensor t = empty({kSamples}, kDouble);
  uniform_(t, -2.0, 5.0, &g);
  Moments m = moments(values(t));
  EXPECT_NEAR(m.mean, 1.5, 0.01);
  EXPECT_NEAR(m.var, 49.0 / 12, 0.02);
  EXPECT_GE(m.min, -2.0);
  EXPECT_LT(m.max, 5.0);
  Tensor same = empty({4}, kFloat);
  uniform_(same, 1.0, 1.0, &g);
  EXPECT_EQ(values(same), (std::vector<double>{1, 1, 1, 1}));
}

TEST(Random, NormalStatistics) {
  Generator g(2);
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    std::vector<double> v = values(randn({kSamples}, &g, dt));
    Moments m = moments(v);
    EXPECT_NEAR(m.mean, 0.0, 0.005) << dtype_name(dt);
    EXPECT_NEAR(m.var, 1.0, 0.01) << dtype_name(dt);
    // Tails: P(|z| > 2) = 0.0455.
    double tail = 0;
    for (double x : v) tail += std::fabs(x) > 2;
    EXPECT_NEAR(tail / kSamples, 0.0455, 0.002) << dtype_name(dt);
  }
  Tensor t = empty({kSamples}, kFloat);
  normal_(t, 3.0, 2.0, &g);
  Moments m = moments(values(t));
  EXPECT_NEAR(m.mean, 3.0, 0.01);
  EXPECT_NEAR(m.var, 4.0, 0.04);
  // Complex: variance 1 split evenly over the real and imaginary parts, as in torch.
  Tensor c = randn({kSamples}, &g, kComplexFloat).view_as_real();
  Moments re = moments(values(c.select(1, 0))), im = moments(values(c.select(1, 1)));
  EXPECT_NEAR(re.var, 0.5, 0.005);
  EXPECT_NEAR(im.var, 0.5, 0.005);
  EXPECT_NEAR(re.mean, 0.0, 0.005);
  Tensor z = empty({4}, kDouble);
  normal_(z, 1.5, 0.0, &g);
  EXPECT_EQ(values(z), (std::vector<double>{1.5, 1.5, 1.5, 1.5}));
}

TEST(Random, RandintStatisticsAndDtypes) {
  Generator g(3);
  Tensor t = randint(0, 10, {kSamples}, &g);
  EXPECT_EQ(t.dtype(), kInt64);
  std::vector<double> counts(10, 0);
  for (double x : values(t)) {
    ASSERT_GE(x, 0);
    ASSERT_LT(x, 10);
    counts[static_cast<int>(x)] += 1;
  }
  for (double c : counts) EXPECT_NEAR(c / kSamples, 0.1, 0.002);
  Moments wide = moments(values(randint(-(int64_t(1) << 50), int64_t(1) << 50, {kSamples}, &g)));
  EXPECT_NEAR(wide.mean / std::ldexp(1.0, 50), 0.0, 0.005);
  Moments full = moments(values(randint(INT64_MIN, INT64_MAX, {1000}, &g)));
  EXPECT_LT(full.min, -1e18);
  EXPECT_GT(full.max, 1e18);
  EXPECT_EQ(randint(5, {3}).dtype(), kInt64);
  for (ScalarType dt : {kUInt8, kInt8, kInt16, kInt32, kFloat, kDouble, kHalf, kBFloat16}) {
    Moments u = moments(values(randint(0, 100, {10000}, &g, dt)));
    EXPECT_GE(u.min, 0) << dtype_name(dt);
    EXPECT_LE(u.max, 99) << dtype_name(dt);
    EXPECT_NEAR(u.mean, 49.5, 1.5) << dtype_name(dt);
  }
  Moments b = moments(values(randint(0, 2, {10000}, &g, kBool)));
  EXPECT_NEAR(b.mean, 0.5, 0.03);
}

TEST(Random, RandintErrors) {
  expect_error<RuntimeError>([] { randint(5, 5, {3}); },
                             "random_ expects 'from' to be less than 'to', but got from=5 >= to=5");
  expect_error<RuntimeError>([] { randint(6, 5, {3}); }, "but got from=6 >= to=5");
  expect_error<RuntimeError>([] { randint(0, 3, {3}, nullptr, kBool); }, "to - 1 is out of bounds for bool");
  expect_error<RuntimeError>([] { randint(0, 300, {3}, nullptr, kUInt8); }, "to - 1 is out of bounds for uint8");
  expect_error<RuntimeError>([] { randint(-1, 3, {3}, nullptr, kUInt8); }, "from is out of bounds for uint8");
  expect_error<RuntimeError>([] { randint(0, 70000, {3}, nullptr, kHalf); }, "to - 1 is out of bounds for float16");
  expect_error<RuntimeError>([] { randint(0, 5, {3}, nullptr, kComplexFloat); },
                             "check_random_bounds handles only integral, floating-point and boolean types");
  expect_error<RuntimeError>([] { randint(0, 5, {-3}); }, "negative dimension -3");
}

TEST(Random, Bernoulli) {
  Generator g(4);
  Tensor p = full({kSamples}, 0.3, kDouble);
  Tensor s = bernoulli(p, &g);
  EXPECT_EQ(s.dtype(), kDouble);
  Moments m = moments(values(s));
  EXPECT_NEAR(m.mean, 0.3, 0.003);
  EXPECT_TRUE(m.min == 0 && m.max == 1);
  // Probabilities per element: 0 and 1 are exact.
  Tensor edge = bernoulli(tensor({0.f, 1.f, 0.f, 1.f}), &g);
  EXPECT_EQ(values(edge), (std::vector<double>{0, 1, 0, 1}));
  for (ScalarType dt : {kBool, kUInt8, kInt32, kInt64, kBFloat16, kFloat, kDouble}) {
    Tensor t = empty({kSamples}, dt);
    bernoulli_(t, 0.7, &g);
    EXPECT_NEAR(moments(values(t)).mean, 0.7, 0.003) << dtype_name(dt);
  }
  Tensor t = zeros({4, 250000}, kInt32);
  bernoulli_(t, tensor({0.1f, 0.5f, 0.9f, 0.f}).view({4, 1}), &g);  // broadcast over rows
  const double want[] = {0.1, 0.5, 0.9, 0};
  for (int64_t r = 0; r < 4; ++r) EXPECT_NEAR(moments(values(t.select(0, r))).mean, want[r], 0.004);
  Tensor all = empty({1000}, kFloat);
  bernoulli_(all, 1.0, &g);
  EXPECT_EQ(moments(values(all)).min, 1.0);
  bernoulli_(all, 0.0, &g);
  EXPECT_EQ(moments(values(all)).max, 0.0);
}

TEST(Random, BernoulliErrors) {
  const char* msg = "Expected p_in >= 0 && p_in <= 1 to be true, but got false.";
  expect_error<RuntimeError>([] { bernoulli(tensor({0.5f, 1.5f})); }, msg);
  expect_error<RuntimeError>([] { bernoulli(tensor({0.5f, -0.5f})); }, msg);
  expect_error<RuntimeError>([] { bernoulli(tensor({0.5f, NAN})); }, msg);
  expect_error<RuntimeError>([] { bernoulli(tensor({int64_t(1), int64_t(0)})); },
                             "\"bernoulli_tensor_cpu_p_\" not implemented for 'int64'");
  expect_error<RuntimeError>([] { bernoulli(tensor({1.f, 0.f}, kHalf)); },
                             "\"bernoulli_tensor_cpu_self_\" not implemented for 'float16'");
  Tensor z = zeros({3});
  expect_error<RuntimeError>([&] { bernoulli_(z, 1.5); }, "bernoulli_ expects p to be in [0, 1], but got p=1.5");
  expect_error<RuntimeError>([&] { bernoulli_(z, -0.1); }, "but got p=-0.1");
  Tensor zc = zeros({3}, kComplexFloat);
  expect_error<RuntimeError>([&] { bernoulli_(zc, 0.5); }, "\"bernoulli_scalar_cpu_\" not implemented for 'complex64'");
  expect_error<RuntimeError>([&] { bernoulli_(z, full({2}, 0.5)); }, "");  // shapes do not broadcast
}

TEST(Random, FloatErrors) {
  expect_error<RuntimeError>([] { rand({2}, nullptr, kInt64); }, "\"check_uniform_bounds\" not implemented for 'int64'");
  expect_error<RuntimeError>([] { rand({2}, nullptr, kBool); }, "not implemented for 'bool'");
  expect_error<RuntimeError>([] { randn({2}, nullptr, kInt32); }, "\"normal_kernel_cpu\" not implemented for 'int32'");
  expect_error<RuntimeError>([] { rand({-1}); }, "Trying to create tensor with negative dimension -1");
  expect_error<RuntimeError>([] { randn({2, -3}); }, "negative dimension -3");
  Tensor t = zeros({3});
  expect_error<RuntimeError>([&] { uniform_(t, 2, 1); },
                             "uniform_ expects to return a [from, to) range, but found from=2 > to=1");
  expect_error<RuntimeError>([&] { uniform_(t, NAN, 1); }, "from is out of bounds for float32");
  expect_error<RuntimeError>([&] { uniform_(t, 0, INFINITY); }, "to is out of bounds for float32");
  expect_error<RuntimeError>([&] { uniform_(t, -3e38, 3e38); }, "which result in to-from to exceed the limit");
  expect_error<RuntimeError>([&] { normal_(t, 0, -1); }, "normal expects std >= 0.0, but found std -1");
  expect_error<RuntimeError>([&] { normal_(t, 0, NAN); }, "normal expects std >= 0.0");
  Tensor ti = zeros({3}, kInt64);
  expect_error<RuntimeError>([&] { normal_(ti, 0, 1); }, "\"normal_kernel_cpu\" not implemented for 'int64'");
}

TEST(Random, Randperm) {
  Generator g(5);
  Tensor p = randperm(100000, &g);
  EXPECT_EQ(p.dtype(), kInt64);
  std::vector<double> v = values(p);
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  for (int64_t i = 0; i < 100000; ++i) ASSERT_EQ(sorted[i], static_cast<double>(i));
  int64_t fixed_points = 0;
  for (int64_t i = 0; i < 100000; ++i) fixed_points += v[i] == static_cast<double>(i);
  EXPECT_LT(fixed_points, 10);  // a random permutation has ~1 on average
  // The first element is uniform over n.
  std::vector<int> first(4, 0);
  for (int r = 0; r < 4000; ++r) first[randperm(4, &g).data_ptr<int64_t>()[0]] += 1;
  for (int c : first) EXPECT_NEAR(c / 4000.0, 0.25, 0.03);
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16, kInt8, kInt32}) {
    Tensor q = randperm(100, &g, dt);
    EXPECT_EQ(q.dtype(), dt);
    std::vector<double> s = values(q);
    std::sort(s.begin(), s.end());
    for (int i = 0; i < 100; ++i) EXPECT_EQ(s[i], i) << dtype_name(dt);
  }
  EXPECT_EQ(randperm(0).numel(), 0);
  EXPECT_EQ(randperm(128, nullptr, kInt8).numel(), 128);
  expect_error<RuntimeError>([] { randperm(-1); }, "negative dimension -1");
  expect_error<RuntimeError>([] { randperm(129, nullptr, kInt8); }, "value cannot be converted to type int8 without overflow");
  expect_error<RuntimeError>([] { randperm(2050, nullptr, kHalf); }, "n cannot be greater than 2049 for Half type.");
  expect_error<RuntimeError>([] { randperm(5, nullptr, kBool); }, "\"randperm\" not implemented for 'bool'");
  expect_error<RuntimeError>([] { randperm(5, nullptr, kComplexFloat); }, "not implemented for 'complex64'");
}

TEST(Random, StridedAndMetaTensors) {
  Generator g(6);
  Tensor m = zeros({300, 200});
  Tensor view = m.t();  // not contiguous
  const uint32_t v0 = m.version();
  uniform_(view, 2.0, 3.0, &g);
  EXPECT_GT(m.version(), v0);
  Moments s = moments(values(m));
  EXPECT_GE(s.min, 2.0);
  EXPECT_LT(s.max, 3.0);
  Tensor half = zeros({1000});
  Tensor every_other = half.slice(0, 0, std::nullopt, 2);
  normal_(every_other, 5.0, 1.0, &g);
  std::vector<double> hv = values(half);
  for (int i = 1; i < 1000; i += 2) ASSERT_EQ(hv[i], 0.0);
  EXPECT_NEAR(moments(values(every_other)).mean, 5.0, 0.2);

  Tensor meta = rand({3, 4}, &g, kMeta);
  EXPECT_TRUE(meta.is_meta());
  EXPECT_EQ(meta.sizes(), IntArrayRef({3, 4}));
  const uint64_t before = g.offset();
  normal_(meta, 0, 1, &g);
  bernoulli(empty({5}, kMeta), &g);
  EXPECT_EQ(g.offset(), before);  // nothing drawn for meta tensors
  EXPECT_EQ(randperm(7, &g, kMeta).sizes(), IntArrayRef({7}));
  Tensor mi = empty({2}, TensorOptions(kInt64).device(kMeta));
  expect_error<RuntimeError>([&] { normal_(mi, 0, 1); }, "not implemented for 'int64'");
}

TEST(Random, OffsetAdvancesByBlocksUsed) {
  Generator g(8);
  rand({10}, &g);  // 4 floats per block
  EXPECT_EQ(g.offset(), 3u);
  rand({10}, &g, kDouble);  // 2 doubles per block
  EXPECT_EQ(g.offset(), 8u);
  randn({0}, &g);
  EXPECT_EQ(g.offset(), 8u);
}
