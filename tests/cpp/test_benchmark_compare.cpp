// ember::benchmark::Compare: the same tables as ember.utils.benchmark.Compare for the same
// measurements (the golden texts of tests/python/test_benchmark_utils.py, and texts Python
// printed for the colour, env and replicate cases), trim_sigfig, and input errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ember/benchmark.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "test_util.h"

using ember::benchmark::Compare;
using ember::benchmark::Measurement;
using ember::benchmark::TaskSpec;

// A named namespace, tests included: ember_tests is a unity build, and other files have
// helpers of these names.
namespace compare_test {

// Python's test helper measurement(): stmt "x + y" unless given.
Measurement measurement(std::vector<double> times, TaskSpec spec, int64_t number = 1) {
  if (spec.stmt.empty()) spec.stmt = "x + y";
  return Measurement(number, std::move(times), std::move(spec));
}

TaskSpec spec(std::string label, std::string sub_label, std::string description, int num_threads = 1,
              std::string env = "") {
  TaskSpec s;
  s.label = std::move(label);
  s.sub_label = std::move(sub_label);
  s.description = std::move(description);
  s.num_threads = num_threads;
  s.env = std::move(env);
  return s;
}

// compare_data() of the Python test: two labels; 1 and 4 threads; a noisy cell; a missing
// cell; units from ns to ms. The arithmetic is Python's, operation for operation.
std::vector<Measurement> compare_data() {
  std::vector<Measurement> ms;
  const std::pair<const char*, double> subs[] = {{"float32", 1e-6}, {"float64", 2.5e-6}, {"int64", 40e-6}};
  const std::pair<const char*, double> descs[] = {{"n=1", 1}, {"n=1024", 3.7}, {"n=1M", 950}};
  for (int threads : {1, 4}) {
    for (auto [sub, base] : subs) {
      for (auto [desc, scale] : descs) {
        if (std::string(sub) == "int64" && std::string(desc) == "n=1M" && threads == 4) continue;
        double t = base * scale / threads;
        double spread = std::string(sub) == "float64" && std::string(desc) == "n=1024" ? 0.3 : 0.02;
        std::vector<double> times;
        for (double f : {-1.0, -0.5, 0.0, 0.25, 0.5, 1.0, 0.1, -0.2}) times.push_back(t * (1 + spread * f));
        ms.push_back(measurement(times, spec("add", sub, desc, threads), 10));
      }
    }
  }
  ms.push_back(measurement({3e-3, 3.1e-3, 2.9e-3}, spec("matmul", "64x64", "n=1")));
  ms.push_back(measurement({1.5, 1.6}, spec("matmul", "2048x2048", "n=1")));
  return ms;
}

const char* const kGoldenPlain =
    "[--------------------- add ----------------------]\n"
    "               |   n=1    |   n=1024  |     n=1M  \n"
    "1 threads: ---------------------------------------\n"
    "      float32  |   100.1  |    370.4  |    95095.0\n"
    "      float64  |   250.3  |    938.9  |   237737.5\n"
    "      int64    |  4004.0  |  14814.8  |  3803800.0\n"
    "4 threads: ---------------------------------------\n"
    "      float32  |    25.0  |     92.6  |    23773.8\n"
    "      float64  |    62.6  |    234.7  |    59434.4\n"
    "      int64    |  1001.0  |   3703.7  |           \n"
    "\n"
    "Times are in nanoseconds (ns).\n"
    "\n"
    "[-------- matmul --------]\n"
    "                 |   n=1  \n"
    "1 threads: ---------------\n"
    "      64x64      |     3.0\n"
    "      2048x2048  |  1550.0\n"
    "\n"
    "Times are in milliseconds (ms).\n";

const char* const kGoldenTrimmedHighlighted =
    "[---------------------- add -----------------------]\n"
    "               |  n=1   |      n=1024     |    n=1M \n"
    "1 threads: -----------------------------------------\n"
    "      float32  |   100  |     400         |    95000\n"
    "      float64  |   300  |    900 (! 17%)  |   240000\n"
    "      int64    |  4000  |   15000         |  3800000\n"
    "4 threads: -----------------------------------------\n"
    "      float32  |    30  |      90         |    24000\n"
    "      float64  |    60  |    200 (! 17%)  |    59000\n"
    "      int64    |  1000  |    3700         |         \n"
    "\n"
    "Times are in nanoseconds (ns).\n"
    "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
    "\n"
    "[------- matmul -------]\n"
    "                 |  n=1 \n"
    "1 threads: -------------\n"
    "      64x64      |     3\n"
    "      2048x2048  |  2000\n"
    "\n"
    "Times are in milliseconds (ms).\n";


TEST(BenchmarkCompare, MatchesPythonGoldenText) {
  EXPECT_EQ(Compare(compare_data()).to_string(), kGoldenPlain);
  Compare c(compare_data());
  c.trim_significant_figures();
  c.highlight_warnings();
  EXPECT_EQ(c.to_string(), kGoldenTrimmedHighlighted);
  // extend_results adds to the same tables.
  std::vector<Measurement> all = compare_data();
  Compare extended(std::vector<Measurement>(all.begin(), all.begin() + 5));
  extended.extend_results(std::vector<Measurement>(all.begin() + 5, all.end()));
  EXPECT_EQ(extended.to_string(), kGoldenPlain);
}

TEST(BenchmarkCompare, ColorsMatchPython) {
  // Every colour class: best (within 1%), good (within 10%), plain, bad (2x), very bad (5x);
  // columnwise bests are per thread-count block.
  std::vector<Measurement> ms;
  const std::pair<const char*, std::vector<double>> rows[] = {{"r1", {1.0, 1.05, 1.5, 3.0, 6.0}},
                                                              {"r2", {2.0, 1.0, 1.2, 1.0, 9.0}}};
  for (int threads : {1, 2}) {
    for (const auto& [sub, times] : rows) {
      for (size_t i = 0; i < times.size(); ++i) {
        double t = times[i] * 1e-3 / threads;
        ms.push_back(measurement({t, t, t}, spec("colors", sub, std::string(1, static_cast<char>('a' + i)), threads)));
      }
    }
  }
  Compare rowwise(ms);
  rowwise.colorize(/*rowwise=*/true);
  EXPECT_EQ(rowwise.to_string(),
    "[--------------------------- colors --------------------------]\n"
    "          |    a     |    b     |    c     |    d     |    e   \n"
    "1 threads: ----------------------------------------------------\n"
    "      r1  |  \033[92m\033[1m1000.0\033[0m\033[0m  |  \033[34m\033[1m1050.0\033[0m\033[0m  |  1500.0  |  \033[2m\033[91m3000.0\033[0m\033[0m  |  \033[31m\033[1m6000.0\033[0m\033[0m\n"
    "      r2  |  \033[2m\033[91m2000.0\033[0m\033[0m  |  \033[92m\033[1m1000.0\033[0m\033[0m  |  1200.0  |  \033[92m\033[1m1000.0\033[0m\033[0m  |  \033[31m\033[1m9000.0\033[0m\033[0m\n"
    "2 threads: ----------------------------------------------------\n"
    "      r1  |  \033[92m\033[1m 500.0\033[0m\033[0m  |  \033[34m\033[1m 525.0\033[0m\033[0m  |   750.0  |  \033[2m\033[91m1500.0\033[0m\033[0m  |  \033[31m\033[1m3000.0\033[0m\033[0m\n"
    "      r2  |  \033[2m\033[91m1000.0\033[0m\033[0m  |  \033[92m\033[1m 500.0\033[0m\033[0m  |   600.0  |  \033[92m\033[1m 500.0\033[0m\033[0m  |  \033[31m\033[1m4500.0\033[0m\033[0m\n"
    "\n"
    "Times are in microseconds (us).\n");
  Compare columnwise(ms);
  columnwise.colorize();
  EXPECT_EQ(columnwise.to_string(),
    "[--------------------------- colors --------------------------]\n"
    "          |    a     |    b     |    c     |    d     |    e   \n"
    "1 threads: ----------------------------------------------------\n"
    "      r1  |  \033[92m\033[1m1000.0\033[0m\033[0m  |  \033[34m\033[1m1050.0\033[0m\033[0m  |  1500.0  |  \033[2m\033[91m3000.0\033[0m\033[0m  |  \033[92m\033[1m6000.0\033[0m\033[0m\n"
    "      r2  |  \033[2m\033[91m2000.0\033[0m\033[0m  |  \033[92m\033[1m1000.0\033[0m\033[0m  |  \033[92m\033[1m1200.0\033[0m\033[0m  |  \033[92m\033[1m1000.0\033[0m\033[0m  |  9000.0\n"
    "2 threads: ----------------------------------------------------\n"
    "      r1  |  \033[92m\033[1m 500.0\033[0m\033[0m  |  \033[34m\033[1m 525.0\033[0m\033[0m  |   750.0  |  \033[2m\033[91m1500.0\033[0m\033[0m  |  \033[92m\033[1m3000.0\033[0m\033[0m\n"
    "      r2  |  \033[2m\033[91m1000.0\033[0m\033[0m  |  \033[92m\033[1m 500.0\033[0m\033[0m  |  \033[92m\033[1m 600.0\033[0m\033[0m  |  \033[92m\033[1m 500.0\033[0m\033[0m  |  4500.0\n"
    "\n"
    "Times are in microseconds (us).\n");
}

TEST(BenchmarkCompare, EnvsReplicatesAndMissingDescriptions) {
  std::vector<Measurement> ms;
  for (const char* env : {"before", "after"}) {
    for (auto [sub, t] : {std::pair<const char*, double>{"a", 1e-3}, {"b", 3e-3}})
      ms.push_back(measurement({t, t * 1.01, t * 0.99, t}, spec("L", sub, "d", 1, env)));
  }
  EXPECT_EQ(Compare(ms).to_string(),
    "[-------- L --------]\n"
    "               |   d \n"
    "1 threads: ----------\n"
    "  (after)   a  |  1.0\n"
    "            b  |  3.0\n"
    "  (before)  a  |  1.0\n"
    "            b  |  3.0\n"
    "\n"
    "Times are in milliseconds (ms).\n");
  // Replicates (equal TaskSpecs) are merged into one cell; without a sub_label the row is
  // the stmt.
  TaskSpec rep = spec("L", "", "d");
  EXPECT_EQ(Compare({measurement({1e-3}, rep), measurement({2e-3}, rep), measurement({3e-3}, rep)}).to_string(),
    "[------- L -------]\n"
    "             |   d \n"
    "1 threads: --------\n"
    "      x + y  |  2.0\n"
    "\n"
    "Times are in milliseconds (ms).\n");
  TaskSpec nodesc = spec("nodesc", "", "");
  nodesc.stmt = "f(x)";
  EXPECT_EQ(Compare({measurement({1e-6, 1e-6, 1e-6}, nodesc)}).to_string(),
    "[---- nodesc ----]\n"
    "            |     \n"
    "1 threads: -------\n"
    "      f(x)  |  1.0\n"
    "\n"
    "Times are in microseconds (us).\n");
  // A callable without a name is "[callable]", as in Measurement reports.
  TaskSpec unnamed = spec("u", "", "d");
  std::string text = Compare({Measurement(1, {1e-6}, unnamed)}).to_string();
  EXPECT_NE(text.find("\n      [callable]  |  1.0\n"), std::string::npos) << text;
}

TEST(BenchmarkCompare, RejectsEmptyInputAndPrints) {
  ember::testing::expect_error<ember::ValueError>([] { Compare(std::vector<Measurement>{}); },
                                                  "Compare needs at least one Measurement, got an empty list");
  Compare c({measurement({1e-6}, spec("p", "", "d"))});
  ::testing::internal::CaptureStdout();
  c.print();
  EXPECT_EQ(::testing::internal::GetCapturedStdout(), c.to_string() + "\n");
}

TEST(BenchmarkCompare, TrimSigfig) {
  EXPECT_DOUBLE_EQ(ember::benchmark::trim_sigfig(3.14159, 2), 3.1);
  EXPECT_DOUBLE_EQ(ember::benchmark::trim_sigfig(123456.0, 3), 123000.0);
  EXPECT_DOUBLE_EQ(ember::benchmark::trim_sigfig(-0.0123456, 2), -0.012);
  EXPECT_EQ(ember::benchmark::trim_sigfig(0.0, 2), 0.0);
  // Halves round to even, as Python's round(): 2.5 -> 2, 3.5 -> 4 (in units of the last figure).
  EXPECT_DOUBLE_EQ(ember::benchmark::trim_sigfig(25.0, 1), 20.0);
  EXPECT_DOUBLE_EQ(ember::benchmark::trim_sigfig(35.0, 1), 40.0);
  EXPECT_THROW(ember::benchmark::trim_sigfig(1.0, 0), ember::ValueError);
}

TEST(BenchmarkCompare, SubNanosecondTimesFormatLikePython) {
  // Below 1 ns select_unit falls back to seconds, and cells get negative leading digits;
  // Python's format spec then reads the width's minus sign as the sign option.
  std::vector<Measurement> ms{measurement({2e-10, 2.1e-10, 1.9e-10}, spec("sub-ns", "a", "d")),
                              measurement({5e-10, 5e-10, 5e-10}, spec("sub-ns", "b", "d"))};
  EXPECT_EQ(Compare(ms).to_string(),
            "[----- sub-ns ----]\n"
            "         |     d   \n"
            "1 threads: --------\n"
            "      a  |      0.0\n"
            "      b  |      0.0\n"
            "\n"
            "Times are in seconds (s).\n");
  Compare trimmed(ms);
  trimmed.trim_significant_figures();
  EXPECT_EQ(trimmed.to_string(),
            "[------- sub-ns -------]\n"
            "         |       d      \n"
            "1 threads: -------------\n"
            "      a  |  0.0000000002\n"
            "      b  |  0.0000000005\n"
            "\n"
            "Times are in seconds (s).\n");
}

TEST(BenchmarkCompare, DocsExample) {
  // The Compare example of docs/BENCHMARKING.md ("## C++").
  std::vector<ember::benchmark::Measurement> results;
  for (int64_t n : {1000, 100000}) {
    ember::Tensor x = ember::randn({n});
    std::string size = "n=" + std::to_string(n);
    results.push_back(ember::benchmark::Timer([&] { ember::exp(x); },
                                              {.label = "unary", .sub_label = "exp", .description = size})
                          .blocked_autorange(0.05));
    results.push_back(ember::benchmark::Timer([&] { ember::sin(x); },
                                              {.label = "unary", .sub_label = "sin", .description = size})
                          .blocked_autorange(0.05));
  }
  ember::benchmark::Compare compare(results);
  compare.trim_significant_figures();
  compare.colorize(/*rowwise=*/true);
  std::string text = compare.to_string();
  EXPECT_EQ(text.rfind("[-", 0), 0u) << text;
  for (const char* part : {" unary ", "n=1000", "n=100000", "1 threads: ", "      exp  |", "      sin  |", "\033[92m"})
    EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
  EXPECT_NE(text.find("\n\nTimes are in "), std::string::npos) << text;
}

}  // namespace compare_test
