// ember::benchmark::Fuzzer: the same cases for a seed, parameters and tensors as specified
// (ranges, aliases, dims, element limits, the share of contiguous layouts, steps, dtypes),
// constraints and their impossible case, specification errors, and the ready-made fuzzers.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "ember/benchmark.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "test_util.h"

// A named namespace, tests included: ember_tests is a unity build.
namespace fuzzer_test {

using namespace ember::benchmark;
using ember::Tensor;
using ember::testing::as_double;
using ember::testing::expect_error;

// The Python test's small_fuzzer: every kind of parameter, an alias, steps, a dim parameter
// and element limits.
Fuzzer small_fuzzer(int64_t seed, std::vector<Fuzzer::Constraint> constraints = {}) {
  return Fuzzer(
      {
          FuzzedParameter("dim", {{1, 0.3}, {2, 0.4}, {3, 0.3}}, /*strict=*/true),
          FuzzedParameter("k0", 2, 64, "loguniform"),
          FuzzedParameter("k1", 2, 64, "loguniform"),
          FuzzedParameter("k2", 2, 64, "loguniform"),
          FuzzedParameter("step", {{1, 0.5}, {2, 0.3}, {3, 0.2}}),
          FuzzedParameter("alpha", -1.0, 1.0, "uniform"),
          FuzzedParameter("n_int", 0, 5, "uniform"),
          FuzzedParameter("y_k0", {{ParameterAlias{"k0"}, 0.5}, {1, 0.5}}),
      },
      {
          FuzzedTensor("x", {"k0", "k1", "k2"},
                       {.steps = {"step", 1, "step"}, .min_elements = 4, .max_elements = 4096, .dim_parameter = "dim"}),
          FuzzedTensor("y", {"y_k0", 3}, {.dtype = ember::kInt64}),
      },
      std::move(constraints), seed);
}

// Everything a case holds, comparable.
struct Snapshot {
  std::map<std::string, ParamValue> params;
  std::vector<std::vector<int64_t>> shapes, strides;
  std::vector<std::vector<double>> values;
  std::vector<std::vector<int64_t>> orders;
  bool operator==(const Snapshot&) const = default;
};

std::vector<Snapshot> snapshot(Fuzzer& fuzzer, int64_t n) {
  std::vector<Snapshot> out;
  for (const FuzzerCase& c : fuzzer.take(n)) {
    Snapshot s{c.params.values(), {}, {}, {}, {}};
    for (const auto& [name, t] : c.tensors) {
      s.shapes.emplace_back(t.sizes().begin(), t.sizes().end());
      s.strides.emplace_back(t.strides().begin(), t.strides().end());
      s.values.push_back(as_double(t));
      s.orders.push_back(c.properties.at(name).order);
    }
    out.push_back(std::move(s));
  }
  return out;
}

TEST(BenchmarkFuzzer, SameSeedSameCases) {
  Fuzzer a = small_fuzzer(123), b = small_fuzzer(123);
  std::vector<Snapshot> first = snapshot(a, 20);
  EXPECT_EQ(snapshot(b, 20), first);
  EXPECT_EQ(snapshot(a, 20), first);  // take starts from the seed again
  Fuzzer other = small_fuzzer(124);
  EXPECT_NE(snapshot(other, 20), first);
  // The callback form gives the same cases, one at a time.
  std::vector<FuzzerParams> params;
  a.take(20, [&](FuzzerCase& c) { params.push_back(c.params); });
  ASSERT_EQ(params.size(), 20u);
  EXPECT_EQ(params[7].values(), first[7].params);
  // Tensor values come from the Fuzzer's own generator: the default one is left alone.
  ember::manual_seed(5);
  Tensor expected = ember::rand({4});
  ember::manual_seed(5);
  a.take(3);
  EXPECT_EQ(as_double(ember::rand({4})), as_double(expected));
  EXPECT_EQ(a.seed(), 123);
  EXPECT_GE(Fuzzer({}, {}).seed(), 0);  // a random seed when none is given
}

TEST(BenchmarkFuzzer, CasesFollowTheirSpecification) {
  std::set<int64_t> seen_dims;
  std::set<bool> seen_contiguous;
  Fuzzer fuzzer = small_fuzzer(7);
  for (const FuzzerCase& c : fuzzer.take(60)) {
    const FuzzerParams& p = c.params;
    const Tensor &x = c.tensors.at("x"), &y = c.tensors.at("y");
    int64_t dim = p.integer("dim");
    seen_dims.insert(dim);
    for (const char* k : {"k0", "k1", "k2"}) {
      EXPECT_GE(p.integer(k), 2);
      EXPECT_LE(p.integer(k), 64);
    }
    EXPECT_FALSE(p.at("alpha").is_integer());
    EXPECT_GE(p.real("alpha"), -1.0);
    EXPECT_LE(p.real("alpha"), 1.0);
    EXPECT_TRUE(p.at("n_int").is_integer());
    EXPECT_GE(p.integer("n_int"), 0);
    EXPECT_LE(p.integer("n_int"), 5);
    EXPECT_TRUE(p.integer("y_k0") == 1 || p.integer("y_k0") == p.integer("k0"));
    std::vector<int64_t> size{p.integer("k0"), p.integer("k1"), p.integer("k2")};
    size.resize(static_cast<size_t>(dim));
    EXPECT_EQ(std::vector<int64_t>(x.sizes().begin(), x.sizes().end()), size);
    EXPECT_GE(x.numel(), 4);
    EXPECT_LE(x.numel(), 4096);
    const FuzzedTensorProperties& props = c.properties.at("x");
    EXPECT_EQ(props.numel, x.numel());
    EXPECT_EQ(x.dtype(), ember::kFloat);
    EXPECT_EQ(props.dtype, ember::kFloat);
    EXPECT_EQ(props.is_contiguous, x.is_contiguous());
    std::vector<int64_t> steps{p.integer("step"), 1, p.integer("step")};
    steps.resize(static_cast<size_t>(dim));
    EXPECT_EQ(props.steps, steps);
    seen_contiguous.insert(x.is_contiguous());
    for (double v : as_double(x)) {
      EXPECT_GE(v, 0);
      EXPECT_LT(v, 1);
    }
    EXPECT_EQ(std::vector<int64_t>(y.sizes().begin(), y.sizes().end()), (std::vector<int64_t>{p.integer("y_k0"), 3}));
    EXPECT_EQ(y.dtype(), ember::kInt64);
    for (double v : as_double(y)) {
      EXPECT_GE(v, 1);
      EXPECT_LT(v, 127);
    }
  }
  EXPECT_EQ(seen_dims, (std::set<int64_t>{1, 2, 3}));
  EXPECT_EQ(seen_contiguous, (std::set<bool>{true, false}));
}

TEST(BenchmarkFuzzer, DistributionsCoverTheirRange) {
  Fuzzer fuzzer({FuzzedParameter("u", 0, 3, "uniform"), FuzzedParameter("log", 1, 1024, "loguniform"),
                 FuzzedParameter("c", {{10, 0.25}, {20, 0.75}})},
                {}, {}, 3);
  std::map<int64_t, int> u, c;
  int log_small = 0;
  for (const FuzzerCase& cs : fuzzer.take(2000)) {
    ++u[cs.params.integer("u")];
    ++c[cs.params.integer("c")];
    int64_t log = cs.params.integer("log");
    ASSERT_GE(log, 1);
    ASSERT_LE(log, 1024);
    log_small += log < 32;  // half of the range in log space: 2^0 to 2^5
  }
  EXPECT_EQ(u.size(), 4u);  // both bounds included
  for (auto [value, n] : u) EXPECT_NEAR(n, 500, 80) << value;
  EXPECT_NEAR(c[10], 500, 80);
  EXPECT_NEAR(c[20], 1500, 80);
  EXPECT_NEAR(log_small, 1000, 100);
}

TEST(BenchmarkFuzzer, ContiguityStepsAndLayouts) {
  std::vector<FuzzedParameter> n8{FuzzedParameter("n", {{8, 1.0}})};
  // probability_contiguous is the share of contiguous cases.
  Fuzzer mostly(n8, {FuzzedTensor("t", {"n", "n", 4}, {.probability_contiguous = 0.75})}, {}, 11);
  int contiguous = 0;
  mostly.take(400, [&](FuzzerCase& c) { contiguous += c.tensors.at("t").is_contiguous(); });
  EXPECT_NEAR(contiguous / 400.0, 0.75, 0.06);
  Fuzzer never(n8, {FuzzedTensor("t", {"n", "n", 4}, {.probability_contiguous = 0.0})}, {}, 1);
  for (const FuzzerCase& c : never.take(5)) {
    const Tensor& t = c.tensors.at("t");
    std::vector<int64_t> order = c.properties.at("t").order;
    EXPECT_FALSE(t.is_contiguous());
    EXPECT_NE(order, (std::vector<int64_t>{0, 1, 2}));
    std::sort(order.begin(), order.end());
    EXPECT_EQ(order, (std::vector<int64_t>{0, 1, 2}));
    EXPECT_EQ(std::vector<int64_t>(t.sizes().begin(), t.sizes().end()), (std::vector<int64_t>{8, 8, 4}));
  }
  Fuzzer always(n8, {FuzzedTensor("t", {"n", 4}, {.probability_contiguous = 1.0})}, {}, 1);
  for (const FuzzerCase& c : always.take(5)) EXPECT_TRUE(c.tensors.at("t").is_contiguous());
  // Steps slice a larger allocation.
  Fuzzer strided(n8, {FuzzedTensor("t", {"n", 4}, {.steps = {2, 3}, .probability_contiguous = 1.0})}, {}, 1);
  FuzzerCase c = strided.take(1)[0];
  EXPECT_EQ(std::vector<int64_t>(c.tensors.at("t").sizes().begin(), c.tensors.at("t").sizes().end()),
            (std::vector<int64_t>{8, 4}));
  EXPECT_EQ(std::vector<int64_t>(c.tensors.at("t").strides().begin(), c.tensors.at("t").strides().end()),
            (std::vector<int64_t>{24, 3}));
  EXPECT_EQ(c.properties.at("t").steps, (std::vector<int64_t>{2, 3}));
  // max_allocation_bytes bounds the allocation before slicing.
  Fuzzer bounded({FuzzedParameter("n", 1, 64, "uniform"), FuzzedParameter("s", {{1, 0.5}, {8, 0.5}})},
                 {FuzzedTensor("t", {"n", "n"}, {.steps = {"s", "s"}, .max_allocation_bytes = 4096 * 4})}, {}, 2);
  for (const FuzzerCase& fc : bounded.take(50)) {
    int64_t n = fc.params.integer("n"), s = fc.params.integer("s");
    EXPECT_LE(n * s * n * s * 4, 4096 * 4);
  }
}

TEST(BenchmarkFuzzer, DtypesAndCustomConstructors) {
  std::vector<FuzzedParameter> n8{FuzzedParameter("n", {{8, 1.0}})};
  for (ember::ScalarType dtype :
       {ember::kDouble, ember::kHalf, ember::kComplexFloat, ember::kInt8, ember::kBool, ember::kUInt8}) {
    Fuzzer f(n8, {FuzzedTensor("t", {"n"}, {.dtype = dtype})}, {}, 0);
    FuzzerCase c = f.take(1)[0];
    EXPECT_EQ(c.tensors.at("t").dtype(), dtype);
    EXPECT_EQ(c.properties.at("t").dtype, dtype);
  }
  auto fill_with_n = [](ember::IntArrayRef size, ember::ScalarType dtype, const FuzzerParams& p, ember::Generator&) {
    return ember::full(size, static_cast<double>(p.integer("n")), dtype);
  };
  Fuzzer custom(n8, {FuzzedTensor("t", {"n"}, {.tensor_constructor = fill_with_n})}, {}, 0);
  EXPECT_EQ(as_double(custom.take(1)[0].tensors.at("t")), std::vector<double>(8, 8.0));
  Fuzzer wrong(n8, {FuzzedTensor("t", {"n"}, {.tensor_constructor = [](auto, auto, auto&, auto&) {
                                                return ember::zeros({3});
                                              }})},
               {}, 0);
  expect_error<ember::ValueError>([&] { wrong.take(1); },
                                  "FuzzedTensor 't': tensor_constructor must return a float32 tensor of size [8], got "
                                  "[3] of float32");
}

TEST(BenchmarkFuzzer, ConstraintsAndTheirImpossibleCase) {
  Fuzzer ordered = small_fuzzer(3, {[](const FuzzerParams& p) { return p.integer("k0") >= p.integer("k1"); }});
  for (const FuzzerCase& c : ordered.take(30)) EXPECT_GE(c.params.integer("k0"), c.params.integer("k1"));
  EXPECT_GT(ordered.rejection_rate(), 0);
  EXPECT_LT(ordered.rejection_rate(), 1);

  Fuzzer impossible = small_fuzzer(3, {[](const FuzzerParams& p) { return p.integer("k0") > 1000; }});
  auto start = std::chrono::steady_clock::now();
  expect_error<ember::ValueError>([&] { impossible.take(1); },
                                  "Fuzzer: no parameters met the constraints in 1000 tries; the constraints may be "
                                  "impossible to satisfy");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10);
  EXPECT_EQ(impossible.rejection_rate(), 1.0);
  // Tensor limits that no size meets fail the same way.
  Fuzzer tiny({FuzzedParameter("n", 10, 20, "uniform")}, {FuzzedTensor("t", {"n"}, {.max_elements = 5})}, {}, 0);
  expect_error<ember::ValueError>([&] { tiny.take(1); }, "no parameters met the constraints in 1000 tries");
  // A constraint's own error passes through.
  Fuzzer real_as_size({FuzzedParameter("a", 0.0, 1.0, "uniform")}, {},
                      {[](const FuzzerParams& p) { return p.integer("a") > 0; }}, 0);
  expect_error<ember::TypeError>([&] { real_as_size.take(1); }, "parameter 'a' is 0.");
}

TEST(BenchmarkFuzzer, RejectsBadSpecifications) {
  using ember::ValueError;
  expect_error<ValueError>([] { FuzzedParameter("p", 0, 1, "normal"); },
                           "FuzzedParameter 'p': distribution must be 'uniform', 'loguniform' or a list of choices, "
                           "got 'normal'");
  expect_error<ValueError>([] { FuzzedParameter("p", std::vector<FuzzedChoice>{}); }, "the distribution has no choices");
  expect_error<ValueError>([] { FuzzedParameter("p", {{1, 0.5}, {2, 0.2}}); }, "probabilities sum to 0.7, not 1");
  expect_error<ValueError>([] { FuzzedParameter("p", {{1, 1.5}, {2, -0.5}}); }, "probabilities cannot be negative");
  expect_error<ValueError>([] { FuzzedParameter("p", 5, 1, "uniform"); }, "minval (5) > maxval (1)");
  expect_error<ValueError>([] { FuzzedParameter("p", 0, 10, "loguniform"); }, "loguniform needs minval > 0, got 0");
  expect_error<ValueError>([] { FuzzedParameter("p", 1.2, 1.8, "loguniform"); }, "[1.2, 1.8] holds none");
  expect_error<ValueError>([] { FuzzedParameter("", 0, 1, "uniform"); }, "name must be a non-empty string");
  expect_error<ValueError>([] { FuzzedTensor("t", {2}, {.probability_contiguous = 1.5}); },
                           "probability_contiguous must be in [0, 1], got 1.5");
  expect_error<ValueError>([] { FuzzedTensor("t", {2, 3}, {.steps = {1}}); }, "differ in length");
  expect_error<ValueError>([] { FuzzedTensor("t", {2}, {.min_elements = 10, .max_elements = 5}); },
                           "min_elements (10) > max_elements (5)");
  FuzzedParameter p("p", 1, 4, "uniform");
  expect_error<ValueError>([&] { Fuzzer({p}, {FuzzedTensor("p", {2})}); },
                           "duplicate names in parameters and tensors: [p]");
  expect_error<ValueError>([&] { Fuzzer({p, p}, {}); }, "duplicate parameter names: [p]");
  expect_error<ValueError>([&] { Fuzzer({}, {FuzzedTensor("t", {2}), FuzzedTensor("t", {3})}); },
                           "duplicate tensor names: [t]");
  expect_error<ValueError>([&] { Fuzzer({p}, {}, {}, -1); }, "seed must be a non-negative integer, got -1");
  expect_error<ValueError>([&] { Fuzzer({p}, {}, {Fuzzer::Constraint{}}); }, "constraints must be callables");
  expect_error<ValueError>([&] { Fuzzer({p}, {FuzzedTensor("t", {"m"})}); }, "FuzzedTensor 't': no parameter named 'm'");
  expect_error<ValueError>([&] { Fuzzer({p}, {FuzzedTensor("t", {"p"}, {.steps = {"q"}})}); }, "no parameter named 'q'");
  expect_error<ValueError>([&] { Fuzzer({p}, {FuzzedTensor("t", {"p"}, {.dim_parameter = "d"})}); },
                           "dim_parameter 'd' is not a parameter");
  expect_error<ValueError>([] { Fuzzer({FuzzedParameter("a", {{ParameterAlias{"zz"}, 1.0}})}, {}); },
                           "parameter 'a' has a ParameterAlias to 'zz', which is not a parameter");
  Fuzzer cycle({FuzzedParameter("a", {{ParameterAlias{"b"}, 1.0}}), FuzzedParameter("b", {{ParameterAlias{"a"}, 1.0}})},
               {}, {}, 0);
  expect_error<ValueError>([&] { cycle.take(1); }, "ParameterAlias cycle among parameters [a, b]");
  expect_error<ValueError>([&] { Fuzzer({p}, {}, {}, 0).take(-1); }, "n must be a non-negative integer, got -1");
  expect_error<ValueError>([] { FuzzerParams().at("k"); }, "no parameter named 'k'");
}

TEST(BenchmarkFuzzer, ParamValues) {
  ParamValue i = 3, r = 0.25;
  EXPECT_TRUE(i.is_integer());
  EXPECT_FALSE(r.is_integer());
  EXPECT_EQ(i.to_int(), 3);
  EXPECT_EQ(r.to_double(), 0.25);
  EXPECT_EQ(i.to_double(), 3.0);
  EXPECT_EQ(r.to_string(), "0.25");
  EXPECT_EQ(ParamValue(int64_t{1} << 40).to_string(), "1099511627776");
  EXPECT_NE(ParamValue(3), ParamValue(3.0));  // an integer and a real are different draws
  expect_error<ember::TypeError>([&] { r.to_int(); }, "expected an integer parameter value, got 0.25");
}

bool is_regular(int64_t n) {
  for (int64_t f : {2, 3, 5})
    while (n % f == 0) n /= f;
  return n == 1;
}

std::vector<int64_t> shape_of(const Tensor& t) { return {t.sizes().begin(), t.sizes().end()}; }

TEST(BenchmarkFuzzer, ReadyMadeFuzzers) {
  for (int64_t seed : {0, 1}) {
    std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> first;
    UnaryOpFuzzer(seed).take(2, [&](FuzzerCase& c) {
      const Tensor& x = c.tensors.at("x");
      EXPECT_GE(x.numel(), 4 * 1024);
      EXPECT_LE(x.numel(), 32 * 1024 * 1024);
      EXPECT_EQ(x.dim(), c.params.integer("dim"));
      EXPECT_EQ(x.dtype(), ember::kFloat);
      first.emplace_back(shape_of(x), std::vector<int64_t>(x.strides().begin(), x.strides().end()));
    });
    std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> again;
    UnaryOpFuzzer(seed).take(2, [&](FuzzerCase& c) {
      const Tensor& x = c.tensors.at("x");
      again.emplace_back(shape_of(x), std::vector<int64_t>(x.strides().begin(), x.strides().end()));
    });
    EXPECT_EQ(again, first);

    BinaryOpFuzzer(seed).take(2, [&](FuzzerCase& c) {
      const Tensor &x = c.tensors.at("x"), &y = c.tensors.at("y");
      EXPECT_EQ(y.dtype(), ember::kFloat);
      ASSERT_EQ(x.dim(), y.dim());
      for (int64_t d = 0; d < x.dim(); ++d) EXPECT_TRUE(y.size(d) == x.size(d) || y.size(d) == 1);
      EXPECT_EQ(shape_of(ember::add(x, y)), shape_of(x));  // y broadcasts against x
    });

    SpectralOpFuzzer(seed).take(2, [&](FuzzerCase& c) {
      const Tensor& x = c.tensors.at("x");
      EXPECT_EQ(x.dtype(), ember::kDouble);
      EXPECT_EQ(x.dim(), c.params.integer("ndim"));
      for (int64_t n : shape_of(x)) EXPECT_TRUE(is_regular(n) && n > 16 && n <= 16 * 1024) << n;
    });
  }
  EXPECT_EQ(UnaryOpFuzzer(0, ember::kDouble).take(1)[0].tensors.at("x").dtype(), ember::kDouble);
  // Arbitrary sizes only: some are not products of 2, 3 and 5.
  bool irregular = false;
  SpectralOpFuzzer(0, ember::kFloat, 0.0).take(4, [&](FuzzerCase& c) {
    for (int64_t n : shape_of(c.tensors.at("x"))) irregular = irregular || !is_regular(n);
  });
  EXPECT_TRUE(irregular);
  expect_error<ember::ValueError>([] { SpectralOpFuzzer(0, ember::kDouble, 1.5); },
                                  "probability_regular must be in [0, 1], got 1.5");
}

TEST(BenchmarkFuzzer, DocsExample) {
  // The Fuzzer example of docs/BENCHMARKING.md ("## C++").
  Fuzzer fuzzer(
      {FuzzedParameter("n", 16, 4096, "loguniform"),
       FuzzedParameter("m", {{ParameterAlias{"n"}, 0.5}, {1, 0.5}})},  // broadcast half the time
      {FuzzedTensor("x", {"n", "n"}, {.probability_contiguous = 0.75, .max_elements = 1 << 22}),
       FuzzedTensor("y", {"n", "m"})},
      {[](const FuzzerParams& p) { return p.integer("n") % 2 == 0; }},
      /*seed=*/0);
  int cases = 0;
  fuzzer.take(10, [&](FuzzerCase& c) {  // one case at a time; take(10) returns all ten
    Tensor sum = ember::add(c.tensors.at("x"), c.tensors.at("y"));
    int64_t n = c.params.integer("n");
    EXPECT_EQ(n % 2, 0);
    EXPECT_LE(n * n, 1 << 22);
    EXPECT_TRUE(c.params.integer("m") == n || c.params.integer("m") == 1);
    EXPECT_EQ(shape_of(sum), (std::vector<int64_t>{n, n}));
    ++cases;
  });
  EXPECT_EQ(cases, 10);
}

}  // namespace fuzzer_test
