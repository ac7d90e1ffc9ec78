// Random numbers: the Philox generator, reproducibility (per seed, across thread counts),
// statistics of 1M samples, dtypes and PyTorch's argument errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/philox.h"
#include "ember/backend.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "test_util.h"
#include "ember/random.h"

using namespace ember;
using ember::testing::as_double;
using ember::testing::Threads;

namespace {

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
    Moments m = moments(as_double(rand({kSamples}, &g, dt)));
    EXPECT_NEAR(m.mean, 0.5, 0.003) << dtype_name(dt);
    EXPECT_NEAR(m.var, 1.0 / 12, 0.002) << dtype_name(dt);
    EXPECT_GE(m.min, 0.0);
    EXPECT_LT(m.max, 1.0) << dtype_name(dt);  // [0, 1) even after rounding to 16 bits
  }
  Tensor t = empty({kSamples}, kDouble);
  uniform_(t, -2.0, 5.0, &g);
  Moments m = moments(as_double(t));
  EXPECT_NEAR(m.mean, 1.5, 0.01);
  EXPECT_NEAR(m.var, 49.0 / 12, 0.02);
  EXPECT_GE(m.min, -2.0);
  EXPECT_LT(m.max, 5.0);
  Tensor same = empty({4}, kFloat);
  uniform_(same, 1.0, 1.0, &g);
  EXPECT_EQ(as_double(same), (std::vector<double>{1, 1, 1, 1}));
}

TEST(Random, NormalStatistics) {
  Generator g(2);
  for (ScalarType dt : {kFloat, kDouble, kHalf, kBFloat16}) {
    std::vector<double> v = as_double(randn({kSamples}, &g, dt));
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
  Moments m = moments(as_double(t));
  EXPECT_NEAR(m.mean, 3.0, 0.01);
  EXPECT_NEAR(m.var, 4.0, 0.04);
  // Complex: variance 1 split evenly over the real and imaginary parts, as in torch.
  Tensor c = randn({kSamples}, &g, kComplexFloat).view_as_real();
  Moments re = moments(as_double(c.select(1, 0))), im = moments(as_double(c.select(1, 1)));
  EXPECT_NEAR(re.var, 0.5, 0.005);
  EXPECT_NEAR(im.var, 0.5, 0.005);
  EXPECT_NEAR(re.mean, 0.0, 0.005);
  Tensor z = empty({4}, kDouble);
  normal_(z, 1.5, 0.0, &g);
  EXPECT_EQ(as_double(z), (std::vector<double>{1.5, 1.5, 1.5, 1.5}));
}

TEST(Random, RandintStatisticsAndDtypes) {
  Generator g(3);
  Tensor t = randint(0, 10, {kSamples}, &g);
  EXPECT_EQ(t.dtype(), kInt64);
  std::vector<double> counts(10, 0);
  for (double x : as_double(t)) {
    ASSERT_GE(x, 0);
    ASSERT_LT(x, 10);
    counts[static_cast<int>(x)] += 1;
  }
  for (double c : counts) EXPECT_NEAR(c / kSamples, 0.1, 0.002);
  Moments wide = moments(as_double(randint(-(int64_t(1) << 50), int64_t(1) << 50, {kSamples}, &g)));
  EXPECT_NEAR(wide.mean / std::ldexp(1.0, 50), 0.0, 0.005);
  Moments full = moments(as_double(randint(INT64_MIN, INT64_MAX, {1000}, &g)));
  EXPECT_LT(full.min, -1e18);
  EXPECT_GT(full.max, 1e18);
  EXPECT_EQ(randint(5, {3}).dtype(), kInt64);
  for (ScalarType dt : {kUInt8, kInt8, kInt16, kInt32, kFloat, kDouble, kHalf, kBFloat16}) {
    Moments u = moments(as_double(randint(0, 100, {10000}, &g, dt)));
    EXPECT_GE(u.min, 0) << dtype_name(dt);
    EXPECT_LE(u.max, 99) << dtype_name(dt);
    EXPECT_NEAR(u.mean, 49.5, 1.5) << dtype_name(dt);
  }
  Moments b = moments(as_double(randint(0, 2, {10000}, &g, kBool)));
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
  Moments m = moments(as_double(s));
  EXPECT_NEAR(m.mean, 0.3, 0.003);
  EXPECT_TRUE(m.min == 0 && m.max == 1);
  // Probabilities per element: 0 and 1 are exact.
  Tensor edge = bernoulli(tensor({0.f, 1.f, 0.f, 1.f}), &g);
  EXPECT_EQ(as_double(edge), (std::vector<double>{0, 1, 0, 1}));
  for (ScalarType dt : {kBool, kUInt8, kInt32, kInt64, kBFloat16, kFloat, kDouble}) {
    Tensor t = empty({kSamples}, dt);
    bernoulli_(t, 0.7, &g);
    EXPECT_NEAR(moments(as_double(t)).mean, 0.7, 0.003) << dtype_name(dt);
  }
  Tensor t = zeros({4, 250000}, kInt32);
  bernoulli_(t, tensor({0.1f, 0.5f, 0.9f, 0.f}).view({4, 1}), &g);  // broadcast over rows
  const double want[] = {0.1, 0.5, 0.9, 0};
  for (int64_t r = 0; r < 4; ++r) EXPECT_NEAR(moments(as_double(t.select(0, r))).mean, want[r], 0.004);
  Tensor all = empty({1000}, kFloat);
  bernoulli_(all, 1.0, &g);
  EXPECT_EQ(moments(as_double(all)).min, 1.0);
  bernoulli_(all, 0.0, &g);
  EXPECT_EQ(moments(as_double(all)).max, 0.0);
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
  std::vector<double> v = as_double(p);
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
    std::vector<double> s = as_double(q);
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
  Moments s = moments(as_double(m));
  EXPECT_GE(s.min, 2.0);
  EXPECT_LT(s.max, 3.0);
  Tensor half = zeros({1000});
  Tensor every_other = half.slice(0, 0, std::nullopt, 2);
  normal_(every_other, 5.0, 1.0, &g);
  std::vector<double> hv = as_double(half);
  for (int i = 1; i < 1000; i += 2) ASSERT_EQ(hv[i], 0.0);
  EXPECT_NEAR(moments(as_double(every_other)).mean, 5.0, 0.2);

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

// ---------------------------------------------------------------- dispatcher ops
namespace {

std::vector<std::string>& seen_ops() {
  static std::vector<std::string> v;
  return v;
}
std::vector<Generator*>& seen_generators() {
  static std::vector<Generator*> v;
  return v;
}

// A layer that records each op and the generators in its boxed arguments, then redispatches.
void record_layer(const OpEntry& op, DispatchKeySet ks, Stack& stack) {
  seen_ops().push_back(op.name());
  for (IValue& v : stack)
    if (v.holds<Generator*>()) seen_generators().push_back(v.get<Generator*>());
  ExcludeKeyGuard guard(DispatchKey::Trace);
  op.call_boxed(ks & DispatchKeySet::below(DispatchKey::Trace), stack);
}

class TraceFallback {
 public:
  TraceFallback() : prev_(Dispatcher::get().fallback_kernel(DispatchKey::Trace).boxed) {
    Dispatcher::get().set_fallback(DispatchKey::Trace, &record_layer);
    seen_ops().clear();
    seen_generators().clear();
  }
  ~TraceFallback() { Dispatcher::get().set_fallback(DispatchKey::Trace, prev_); }

 private:
  BoxedKernel prev_;
};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

}  // namespace

TEST(RandomOps, AreDispatcherOpsWithTags) {
  const Dispatcher& d = Dispatcher::get();
  for (const char* name : {"uniform_", "normal_", "random_", "random_.to", "random_.from", "bernoulli_.float",
                           "bernoulli_.Tensor", "exponential_", "geometric_", "log_normal_", "cauchy_"}) {
    const OpEntry* op = d.find(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_TRUE(op->has_tag(Tag::Random) && op->has_tag(Tag::Inplace)) << name;
    EXPECT_TRUE(op->kernel(DispatchKey::CPU).unboxed && op->kernel(DispatchKey::Meta).unboxed) << name;
  }
  for (const char* name : {"rand", "rand.generator", "rand.out", "randn.generator_out", "randint.low_generator",
                           "randperm.generator", "rand_like", "randint_like.low_dtype", "normal.float_float"}) {
    const OpEntry* op = d.find(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_TRUE(op->has_tag(Tag::Random) && op->has_tag(Tag::Factory)) << name;
    EXPECT_TRUE(static_cast<bool>(op->composite())) << name;
  }
  for (const char* name : {"bernoulli", "bernoulli.out", "bernoulli.p", "normal.Tensor_Tensor", "normal.Tensor_float_out",
                           "normal.float_Tensor", "poisson", "multinomial", "multinomial.out"}) {
    const OpEntry* op = d.find(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_TRUE(op->has_tag(Tag::Random)) << name;
    EXPECT_FALSE(op->has_tag(Tag::Inplace)) << name;
  }
  EXPECT_EQ(d.find("random_.from")->schema().str(),
            "random_.from(Tensor(a!) self, int from, int? to, *, Generator? generator=None) -> Tensor(a!)");
}

TEST(RandomOps, GeneratorTravelsThroughABoxedLayer) {
  // The same draws with a recording layer above the backend (boxed calls) and without.
  auto draw = [](Generator& g) {
    Tensor t = empty({300}, kDouble);
    exponential_(t, 2.0, &g);
    return std::vector<Tensor>{rand({100}, &g), t, normal(zeros({50}), ones({50}), &g),
                               multinomial(ones({3, 4}), 2, false, &g), poisson(full({20}, 3.0), &g)};
  };
  Generator plain_gen(77), layered_gen(77);
  std::vector<Tensor> plain = draw(plain_gen), layered;
  {
    TraceFallback layer;
    IncludeKeyGuard g(DispatchKey::Trace);
    layered = draw(layered_gen);
    for (const char* op : {"rand.generator", "exponential_", "normal.Tensor_Tensor", "multinomial", "poisson"})
      EXPECT_TRUE(contains(seen_ops(), op)) << op;
    ASSERT_FALSE(seen_generators().empty());
    for (Generator* gp : seen_generators()) EXPECT_EQ(gp, &layered_gen);
  }
  for (size_t i = 0; i < plain.size(); ++i) EXPECT_TRUE(same_bits(plain[i], layered[i])) << "draw " << i;
  EXPECT_EQ(plain_gen.offset(), layered_gen.offset());
}

TEST(RandomOps, MetaTensorsGetShapesAndDtypesAndDrawNothing) {
  Generator g(9);
  const TensorOptions meta = TensorOptions(kFloat).device(kMeta);
  Tensor mean = empty({3, 1}, meta), std = empty({4}, TensorOptions(kDouble).device(kMeta));
  Tensor n = normal(mean, std, &g);
  EXPECT_TRUE(n.is_meta());
  EXPECT_EQ(n.sizes(), IntArrayRef({3, 4}));
  EXPECT_EQ(n.dtype(), kFloat);
  EXPECT_EQ(normal(1.0, std, &g).dtype(), kDouble);
  EXPECT_EQ(normal(0.0, 1.0, {2, 5}, &g, meta).sizes(), IntArrayRef({2, 5}));
  Tensor m = multinomial(empty({6, 10}, meta), 3, false, &g);
  EXPECT_TRUE(m.is_meta());
  EXPECT_EQ(m.sizes(), IntArrayRef({6, 3}));
  EXPECT_EQ(m.dtype(), kInt64);
  EXPECT_EQ(multinomial(empty({10}, meta), 20, true, &g).sizes(), IntArrayRef({20}));
  EXPECT_EQ(poisson(empty({7}, TensorOptions(kBFloat16).device(kMeta)), &g).dtype(), kBFloat16);
  EXPECT_EQ(bernoulli(empty({2, 2}, meta), 0.3, &g).sizes(), IntArrayRef({2, 2}));
  Tensor e = empty({5}, meta);
  exponential_(e, 1.0, &g);
  geometric_(e, 0.5, &g);
  log_normal_(e, 0.0, 1.0, &g);
  cauchy_(e, 0.0, 1.0, &g);
  random_(e, &g);
  EXPECT_EQ(g.offset(), 0u);
  // The checks still run on Meta.
  expect_error<RuntimeError>([&] { multinomial(empty({2, 2, 2}, meta), 1); }, "prob_dist must be 1 or 2 dim");
  Tensor mi = empty({2}, TensorOptions(kInt64).device(kMeta));
  expect_error<RuntimeError>([&] { exponential_(mi, 1.0); }, "\"exponential_cpu\" not implemented for 'int64'");
}

// ---------------------------------------------------------------- distributions
TEST(RandomDistributions, ExponentialGeometricLogNormalCauchy) {
  Generator g(10);
  for (ScalarType dt : {kFloat, kDouble, kBFloat16, kHalf}) {
    Tensor t = empty({kSamples}, dt);
    Moments e = moments(as_double(exponential_(t, 2.0, &g)));
    EXPECT_NEAR(e.mean, 0.5, 0.005) << dtype_name(dt);
    EXPECT_NEAR(e.var, 0.25, 0.006) << dtype_name(dt);
    EXPECT_GE(e.min, 0.0);
  }
  Tensor inf = empty({4});
  EXPECT_EQ(as_double(exponential_(inf, 0.0, &g)), std::vector<double>(4, INFINITY));
  for (ScalarType dt : {kFloat, kDouble, kInt32, kInt64, kUInt8, kHalf}) {
    Tensor t = empty({kSamples}, dt);
    std::vector<double> v = as_double(geometric_(t, 0.3, &g));
    Moments m = moments(v);
    EXPECT_NEAR(m.mean, 1 / 0.3, 0.02) << dtype_name(dt);
    EXPECT_NEAR(m.var, 0.7 / 0.09, 0.1) << dtype_name(dt);
    EXPECT_EQ(m.min, 1.0) << dtype_name(dt);
    double ones = 0;
    for (double x : v) {
      ASSERT_EQ(x, std::floor(x));
      ones += x == 1;
    }
    EXPECT_NEAR(ones / kSamples, 0.3, 0.003);  // P(X = 1) = p
  }
  Tensor small = empty({10000}, kInt8);
  EXPECT_LE(moments(as_double(geometric_(small, 1e-6, &g))).max, 127.0);  // saturates, no overflow
  Tensor ln = empty({kSamples}, kDouble);
  std::vector<double> lv = as_double(log_normal_(ln, 0.5, 0.4, &g));
  Moments lm = moments(lv);
  EXPECT_NEAR(lm.mean, std::exp(0.5 + 0.08), 0.01);
  EXPECT_GT(lm.min, 0.0);
  std::vector<double> logs(lv.size());
  std::transform(lv.begin(), lv.end(), logs.begin(), [](double x) { return std::log(x); });
  Moments logm = moments(logs);
  EXPECT_NEAR(logm.mean, 0.5, 0.003);
  EXPECT_NEAR(logm.var, 0.16, 0.002);
  Tensor c = empty({kSamples}, kFloat);
  std::vector<double> cv = as_double(cauchy_(c, 1.0, 2.0, &g));
  std::sort(cv.begin(), cv.end());
  // Quartiles of Cauchy(1, 2): 1 - 2 and 1 + 2; the median 1.
  EXPECT_NEAR(cv[kSamples / 2], 1.0, 0.02);
  EXPECT_NEAR(cv[kSamples / 4], -1.0, 0.03);
  EXPECT_NEAR(cv[3 * kSamples / 4], 3.0, 0.03);
}

TEST(RandomDistributions, Poisson) {
  Generator g(11);
  for (double rate : {0.5, 3.0, 9.9, 10.0, 40.0, 1e4}) {
    std::vector<double> v = as_double(poisson(full({kSamples / 4}, rate, kDouble), &g));
    Moments m = moments(v);
    EXPECT_NEAR(m.mean / rate, 1.0, 5.0 / std::sqrt(rate * kSamples / 4)) << rate;
    EXPECT_NEAR(m.var / rate, 1.0, 0.02) << rate;
    for (double x : v) ASSERT_TRUE(x >= 0 && x == std::floor(x)) << rate;
  }
  // P(X = 0) = exp(-rate) for a small rate.
  std::vector<double> v = as_double(poisson(full({kSamples}, 1.0, kFloat), &g));
  EXPECT_NEAR(std::count(v.begin(), v.end(), 0.0) / double(kSamples), std::exp(-1.0), 0.002);
  Tensor rates = tensor({0.0, 2.0, double(INFINITY)}, kDouble);
  std::vector<double> r = as_double(poisson(rates, &g));
  EXPECT_EQ(r[0], 0.0);
  EXPECT_EQ(r[2], INFINITY);
  Tensor strided = full({200, 2}, 5.0).t();
  EXPECT_NEAR(moments(as_double(poisson(strided, &g))).mean, 5.0, 0.3);
  EXPECT_EQ(poisson(full({3}, 2.0, kBFloat16), &g).dtype(), kBFloat16);
  const uint64_t before = g.offset();
  poisson(full({13}, 2.0), &g);
  EXPECT_EQ(g.offset(), before + 13);  // one counter per element
}

TEST(RandomDistributions, Multinomial) {
  Generator g(12);
  Tensor p = tensor({0.1, 0.0, 0.3, 0.6}, kDouble);
  std::vector<double> counts(4, 0);
  for (double x : as_double(multinomial(p, kSamples, true, &g))) counts[static_cast<size_t>(x)] += 1;
  EXPECT_EQ(counts[1], 0);
  for (int j : {0, 2, 3}) EXPECT_NEAR(counts[j] / kSamples, as_double(p)[j], 0.002) << j;
  // Without replacement: distinct indices, zero weights never drawn while a positive one is
  // left, and the first draw follows the weights.
  Tensor rows = tensor({1.f, 0.f, 2.f, 3.f, 4.f}).view({1, 5}).expand({20000, 5}).contiguous();
  Tensor s = multinomial(rows, 4, false, &g);
  EXPECT_EQ(s.sizes(), IntArrayRef({20000, 4}));
  std::vector<double> sv = as_double(s);
  std::vector<double> first(5, 0);
  for (int64_t r = 0; r < 20000; ++r) {
    std::vector<double> row(sv.begin() + r * 4, sv.begin() + r * 4 + 4);
    first[static_cast<size_t>(row[0])] += 1;
    std::sort(row.begin(), row.end());
    ASSERT_EQ(row, (std::vector<double>{0, 2, 3, 4})) << r;
  }
  for (int j : {0, 2, 3, 4}) EXPECT_NEAR(first[j] / 20000, as_double(rows.select(0, 0))[j] / 10.0, 0.012) << j;
  // All categories: the zero-weight one comes last.
  std::vector<double> all = as_double(multinomial(tensor({0.f, 1.f, 1.f}), 3, false, &g));
  EXPECT_EQ(all[2], 0.0);
  // float, bfloat16, 1-D and 2-D, out= and a non-contiguous input.
  EXPECT_EQ(multinomial(tensor({1.f, 1.f}, kBFloat16), 1, false, &g).sizes(), IntArrayRef({1}));
  Tensor out = empty({0}, kInt64);
  multinomial_out(out, ones({4, 3}).t(), 2, true, &g);
  EXPECT_EQ(out.sizes(), IntArrayRef({3, 2}));
  EXPECT_LT(moments(as_double(out)).max, 4.0);
  const uint64_t before = g.offset();
  multinomial(ones({7, 3}), 2, false, &g);
  EXPECT_EQ(g.offset(), before + 7);  // one counter per row
}

TEST(RandomDistributions, NormalWithTensorParameters) {
  Generator g(13);
  // mean (3, 1, 1) and std (2, 100000) broadcast to (3, 2, 100000); the result has mean's dtype.
  const std::vector<double> means{-5, 0, 5}, stds{0.5, 2};
  Tensor mean = tensor({-5.f, 0.f, 5.f}).view({3, 1, 1});
  Tensor std = tensor({0.5, 2.0}, kDouble).view({2, 1}).expand({2, 100000}).contiguous();
  Tensor r = normal(mean, std, &g);
  EXPECT_EQ(r.dtype(), kFloat);
  EXPECT_EQ(r.sizes(), IntArrayRef({3, 2, 100000}));
  for (int64_t i = 0; i < 3; ++i) {
    for (int64_t j = 0; j < 2; ++j) {
      Moments m = moments(as_double(r.select(0, i).select(0, j)));
      EXPECT_NEAR(m.mean, means[i], 0.02);
      EXPECT_NEAR(std::sqrt(m.var), stds[j], 0.01);
    }
  }
  Moments a = moments(as_double(normal(full({kSamples}, 3.0, kDouble), 2.0, &g)));
  EXPECT_NEAR(a.mean, 3.0, 0.01);
  EXPECT_NEAR(a.var, 4.0, 0.04);
  Moments b = moments(as_double(normal(-1.0, full({kSamples}, 0.5), &g)));
  EXPECT_NEAR(b.mean, -1.0, 0.003);
  EXPECT_NEAR(b.var, 0.25, 0.003);
  Moments c = moments(as_double(normal(2.0, 3.0, {kSamples}, &g, kDouble)));
  EXPECT_NEAR(c.mean, 2.0, 0.01);
  EXPECT_NEAR(c.var, 9.0, 0.1);
  EXPECT_EQ(normal(zeros({2, 3}).t(), 1.0, &g).strides(), IntArrayRef({2, 1}));  // contiguous result
  // out= sharing memory with mean: computed through a temporary, mean read before it is overwritten.
  Tensor m = full({kSamples}, 10.0);
  normal_out(m, m, ones({kSamples}), &g);
  EXPECT_NEAR(moments(as_double(m)).mean, 10.0, 0.01);
  Tensor o = empty({0}, kDouble);
  normal_out(o, 0.0, 1.0, {2, 3}, &g);
  EXPECT_EQ(o.sizes(), IntArrayRef({2, 3}));
}

TEST(RandomDistributions, RandomOverloads) {
  Generator g(14);
  struct Case {
    ScalarType dt;
    double lo, hi;
  };
  for (Case c : {Case{kFloat, 0, 16777216}, Case{kHalf, 0, 2048}, Case{kBFloat16, 0, 256}, Case{kInt8, 0, 127},
                 Case{kUInt8, 0, 255}, Case{kInt16, 0, 32767}, Case{kBool, 0, 1}}) {
    Tensor t = empty({kSamples}, c.dt);
    Moments m = moments(as_double(random_(t, &g)));
    EXPECT_GE(m.min, c.lo) << dtype_name(c.dt);
    EXPECT_LE(m.max, c.hi) << dtype_name(c.dt);
    if (c.hi <= 32767) {  // small ranges: both ends are drawn among 1M samples
      EXPECT_EQ(m.min, c.lo) << dtype_name(c.dt);
      EXPECT_EQ(m.max, c.hi) << dtype_name(c.dt);
    }
    EXPECT_NEAR(m.mean / c.hi, 0.5, 0.01) << dtype_name(c.dt);
  }
  Tensor wide = empty({kSamples}, kInt64);
  Moments w = moments(as_double(random_(wide, &g)));
  EXPECT_GE(w.min, 0.0);
  EXPECT_NEAR(w.mean / std::ldexp(1.0, 63), 0.5, 0.005);
  Tensor to = empty({kSamples}, kInt32);
  Moments tm = moments(as_double(random_(to, 7, &g)));
  EXPECT_EQ(tm.min, 0);
  EXPECT_EQ(tm.max, 6);
  Tensor from = empty({kSamples}, kInt8);
  Moments fm = moments(as_double(random_(from, -3, std::nullopt, &g)));
  EXPECT_EQ(fm.min, -3);
  EXPECT_EQ(fm.max, 127);
  Tensor full_range = empty({kSamples}, kInt64);
  Moments f = moments(as_double(random_(full_range, std::numeric_limits<int64_t>::min(), std::nullopt, &g)));
  EXPECT_LT(f.min, -9e18);
  EXPECT_GT(f.max, 9e18);
  // Floating bounds move inwards so that rounding stays in [from, to), as in PyTorch.
  Tensor h = empty({10000}, kHalf);
  EXPECT_LE(moments(as_double(random_(h, 0, 65504, &g))).max, 65472.0);
  expect_error<RuntimeError>([&] { random_(h, 3000, std::nullopt); },
                             "random_ expects 'from' casted to dtype to be less than or equal to 'to_inc'");
  expect_error<RuntimeError>([&] { random_(h, 0, 70000); }, "to - 1 is out of bounds for float16");
  Tensor cpx = empty({3}, kComplexFloat);
  expect_error<RuntimeError>([&] { random_(cpx); }, "\"random_kernel_cpu\" not implemented for 'complex64'");
  expect_error<RuntimeError>([&] { random_(cpx, 1, std::nullopt); },
                             "random_from_to_impl handles only integral, floating-point and boolean types");
  Tensor b = empty({3}, kBool);
  expect_error<RuntimeError>([&] { random_(b, 3); }, "to - 1 is out of bounds for bool");
  expect_error<RuntimeError>([&] { random_(to, int64_t{0}); }, "from=0 >= to=0");
}

TEST(RandomDistributions, NewOpsDoNotDependOnThreadCount) {
  auto draw = [] {
    Generator g(2025);
    Tensor e = empty({kSamples + 5}), ge = empty({kSamples}, kInt32), ln = empty({kSamples}, kDouble),
           c = empty({kSamples}, kBFloat16), r = empty({kSamples}, kInt64);
    exponential_(e, 1.5, &g);
    geometric_(ge, 0.2, &g);
    log_normal_(ln, 0.0, 1.0, &g);
    cauchy_(c, 0.0, 1.0, &g);
    random_(r, std::numeric_limits<int64_t>::min(), std::nullopt, &g);
    Tensor weights = rand({3000, 50}, &g);
    return std::vector<Tensor>{e, ge, ln, c, r, poisson(rand({kSamples / 4}, &g, kDouble).mul_(30.0), &g),
                               multinomial(weights, 10, false, &g), multinomial(weights, 10, true, &g),
                               normal(rand({kSamples}, &g), rand({kSamples}, &g), &g)};
  };
  std::vector<Tensor> one, two;
  {
    Threads t(1);
    one = draw();
  }
  {
    Threads t(2);
    two = draw();
  }
  for (size_t i = 0; i < one.size(); ++i) EXPECT_TRUE(same_bits(one[i], two[i])) << "draw " << i;
}

TEST(RandomDistributions, Errors) {
  Tensor t = zeros({3});
  expect_error<RuntimeError>([&] { exponential_(t, -1.0); }, "exponential_ expects lambda >= 0.0, but found lambda=-1");
  expect_error<RuntimeError>([&] { geometric_(t, 0.0); }, "geometric_ expects p to be in (0, 1), but got p=0");
  expect_error<RuntimeError>([&] { geometric_(t, 1.0); }, "but got p=1");
  expect_error<RuntimeError>([&] { log_normal_(t, 0.0, 0.0); }, "log_normal_ expects std > 0.0, but found std=0");
  Tensor ti = zeros({3}, kInt64);
  expect_error<RuntimeError>([&] { cauchy_(ti); }, "\"cauchy_cpu\" not implemented for 'int64'");
  expect_error<RuntimeError>([&] { log_normal_(ti); }, "\"log_normal_cpu\" not implemented for 'int64'");
  Tensor tb = zeros({3}, kBool);
  expect_error<RuntimeError>([&] { geometric_(tb, 0.5); }, "\"geometric_cpu\" not implemented for 'bool'");
  EXPECT_EQ(as_double(t), (std::vector<double>{0, 0, 0}));  // failed ops wrote nothing

  expect_error<RuntimeError>([] { poisson(tensor({1.f, -1.f})); }, "invalid Poisson rate, expected rate to be non-negative");
  expect_error<RuntimeError>([] { poisson(tensor({NAN})); }, "invalid Poisson rate");
  expect_error<RuntimeError>([] { poisson(ones({2}, kHalf)); }, "\"poisson_cpu\" not implemented for 'float16'");

  expect_error<RuntimeError>([] { normal(zeros({3}), tensor({1.f, -1.f, 1.f})); },
                             "normal expects all elements of std >= 0.0");
  expect_error<RuntimeError>([] { normal(0.0, tensor({NAN})); }, "normal expects all elements of std >= 0.0");
  expect_error<RuntimeError>([] { normal(zeros({3}), -1.0); }, "normal expects std >= 0.0, but found std -1");
  expect_error<RuntimeError>([] { normal(zeros({3}), ones({3}, kComplexFloat)); }, "non-complex");
  expect_error<RuntimeError>([] { normal(zeros({3}), ones({4})); }, "");
  expect_error<RuntimeError>([] { normal(zeros({3}, kInt64), 1.0); }, "\"normal_kernel_cpu\" not implemented for 'int64'");
  Tensor o = full({2}, 7.0);
  expect_error<RuntimeError>([&] { normal_out(o, zeros({3}, kComplexFloat), ones({3})); }, "can't be cast");
  EXPECT_EQ(as_double(o), (std::vector<double>{7, 7}));

  Tensor p = tensor({0.2f, 0.8f});
  expect_error<RuntimeError>([&] { multinomial(p, 0); }, "cannot sample n_sample <= 0 samples");
  expect_error<RuntimeError>([&] { multinomial(p, 3); },
                             "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
  expect_error<RuntimeError>([] { multinomial(ones({2}, kInt64), 1); },
                             "multinomial only supports floating-point dtypes for input");
  expect_error<RuntimeError>([] { multinomial(tensor({1.f, -1.f}), 1); },
                             "probability tensor contains either `inf`, `nan` or element < 0");
  expect_error<RuntimeError>([] { multinomial(tensor({1.f, -1.f}), 1, true); },
                             "invalid multinomial distribution (encountering probability entry < 0)");
  expect_error<RuntimeError>([] { multinomial(tensor({1.f, INFINITY}), 1, true); },
                             "encountering probability entry = infinity or NaN");
  expect_error<RuntimeError>([] { multinomial(tensor({1.f, 1.f, 0.f, 0.f}).view({2, 2}), 1); },
                             "invalid multinomial distribution (sum of probabilities <= 0)");
  expect_error<RuntimeError>([] { multinomial(ones({int64_t(1) << 24 | 1}), 1); },
                             "number of categories cannot exceed 2^24");
  Tensor out = full({5}, int64_t(9), kInt64);
  expect_error<RuntimeError>([&] { multinomial_out(out, tensor({1.f, NAN}), 1); }, "probability tensor");
  EXPECT_EQ(out.sizes(), IntArrayRef({5}));  // neither resized nor written
  EXPECT_EQ(as_double(out), std::vector<double>(5, 9.0));
  Tensor out32 = empty({0}, kInt32);
  expect_error<RuntimeError>([&] { multinomial_out(out32, p, 1); }, "multinomial expects Long tensor out, got: int32");

  Tensor bo = full({4}, 3.0);
  expect_error<RuntimeError>([&] { bernoulli_out(bo, tensor({0.5f, 2.f})); }, "Expected p_in >= 0 && p_in <= 1");
  EXPECT_EQ(bo.sizes(), IntArrayRef({4}));
  expect_error<RuntimeError>([] { bernoulli(zeros({2}), 1.5); }, "bernoulli_ expects p to be in [0, 1], but got p=1.5");
}

TEST(RandomOps, FactoriesWithOutAndLike) {
  Generator g(15), h(15);
  Tensor out = empty({0}, kDouble);
  rand_out(out, {4, 5}, &g);
  EXPECT_EQ(out.sizes(), IntArrayRef({4, 5}));
  EXPECT_TRUE(same_bits(out, rand({4, 5}, &h, kDouble)));  // the same stream as rand()
  Tensor oi = empty({2}, kInt64);
  expect_error<RuntimeError>([&] { rand_out(oi, {3}); }, "\"check_uniform_bounds\" not implemented for 'int64'");
  EXPECT_EQ(oi.sizes(), IntArrayRef({2}));
  randint_out(oi, 5, 9, {100}, &g);
  Moments m = moments(as_double(oi));
  EXPECT_GE(m.min, 5);
  EXPECT_LE(m.max, 8);
  Tensor perm = empty({0}, kFloat);
  randperm_out(perm, 50, &g);
  std::vector<double> pv = as_double(perm);
  std::sort(pv.begin(), pv.end());
  for (int i = 0; i < 50; ++i) EXPECT_EQ(pv[i], i);
  expect_error<RuntimeError>([&] { randperm_out(perm, -1); }, "n must be non-negative");
  Tensor like = rand_like(zeros({3, 2}, kDouble), TensorOptions());
  EXPECT_EQ(like.dtype(), kDouble);
  EXPECT_EQ(randn_like(zeros({3}), TensorOptions(kBFloat16)).dtype(), kBFloat16);
  Tensor ri = randint_like(zeros({1000}, kInt16), -2, 3);
  Moments rm = moments(as_double(ri));
  EXPECT_EQ(ri.dtype(), kInt16);
  EXPECT_EQ(rm.min, -2);
  EXPECT_EQ(rm.max, 2);
  expect_error<RuntimeError>([] { rand_like(zeros({2}, kInt64), TensorOptions()); }, "check_uniform_bounds");
}

// ---------------------------------------------------------------- a custom backend
namespace {

// Host memory behind a custom device type: enough for the CPU fallback (allocator, byte
// copies, copy_), plus a uniform_ kernel of its own that counts its calls.
class HostAllocator final : public Allocator {
 public:
  DataPtr allocate(size_t nbytes) override {
    void* p = std::aligned_alloc(64, (std::max<size_t>(nbytes, 1) + 63) & ~size_t(63));
    return DataPtr(p, nullptr, [](void*, void* data) { std::free(data); });
  }
};
class HostBackend final : public BackendInterface {
 public:
  Allocator* allocator() override { return &alloc_; }
  void copy_bytes(void* dst, Device, const void* src, Device, size_t nbytes) override {
    if (nbytes) std::memcpy(dst, src, nbytes);
  }

 private:
  HostAllocator alloc_;
};

Tensor host_view(const Tensor& t) {
  return t.is_cpu() ? t : from_blob(t.data_ptr(), t.sizes(), t.strides(), t.dtype());
}
Tensor& host_copy(Tensor& self, const Tensor& src) {
  Tensor h = host_view(self);
  h.copy_(host_view(src));
  self.bump_version();
  return self;
}
int& device_uniform_calls() {
  static int n = 0;
  return n;
}
Tensor& device_uniform(Tensor& self, double from, double to, Generator* gen) {
  ++device_uniform_calls();
  Tensor h = host_view(self);
  uniform_(h, from, to, gen);
  return self;
}

}  // namespace

TEST(RandomOps, CustomBackendsSeeTheOps) {
  static HostBackend backend;
  const DeviceType type = register_backend("random_test_device", &backend);
  const DispatchKey key = backend_key(type);
  register_kernel<Tensor&(Tensor&, const Tensor&), &host_copy>("copy_", key);
  register_kernel<Tensor&(Tensor&, double, double, Generator*), &device_uniform>("uniform_", key);
  const Device dev(type);
  {
    // rand's composite reaches the backend's own uniform_ kernel, with the generator.
    Generator g(21), h(21);
    Tensor r = rand({1000}, &g, TensorOptions(kFloat).device(dev));
    EXPECT_EQ(r.device(), dev);
    EXPECT_EQ(device_uniform_calls(), 1);
    EXPECT_TRUE(same_bits(r.to(kCPU), rand({1000}, &h)));
    // Ops without a device kernel run through the CPU fallback and draw the same numbers.
    Tensor n = empty({500}, TensorOptions(kDouble).device(dev));
    normal_(n, 1.0, 2.0, &g);
    Tensor e = randint(0, 7, {300}, &g, TensorOptions(kInt32).device(dev));
    Tensor m = multinomial(ones({4, 6}).to(dev), 3, false, &g);
    Tensor p = poisson(full({50}, 4.0).to(dev), &g);
    Tensor nt = normal(zeros({20}).to(dev), ones({20}).to(dev), &g);
    EXPECT_EQ(m.device(), dev);
    EXPECT_EQ(p.device(), dev);
    EXPECT_EQ(nt.device(), dev);
    Tensor n_cpu = empty({500}, kDouble);
    normal_(n_cpu, 1.0, 2.0, &h);
    EXPECT_TRUE(same_bits(n.to(kCPU), n_cpu));
    EXPECT_TRUE(same_bits(e.to(kCPU), randint(0, 7, {300}, &h, kInt32)));
    EXPECT_TRUE(same_bits(m.to(kCPU), multinomial(ones({4, 6}), 3, false, &h)));
    EXPECT_TRUE(same_bits(p.to(kCPU), poisson(full({50}, 4.0), &h)));
    EXPECT_TRUE(same_bits(nt.to(kCPU), normal(zeros({20}), ones({20}), &h)));
    EXPECT_EQ(g.offset(), h.offset());
  }
  Dispatcher::get().clear_kernel("copy_", key);
  Dispatcher::get().clear_kernel("uniform_", key);
  unregister_backend(type);
}
