// Instruction counts: FunctionCounts and CallgrindStats arithmetic on hand-made counts, the
// reading of callgrind output (checked against callgrind_annotate's), collect_callgrind's
// errors outside valgrind, and counts of a fixed workload repeating across two valgrind runs
// of examples/callgrind_example.cpp.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "ember/benchmark.h"
#include "ember/error.h"
#include "test_util.h"

#ifndef EMBER_CALLGRIND_EXAMPLE
#error "CMakeLists.txt defines EMBER_CALLGRIND_EXAMPLE as the path of the callgrind_example program"
#endif

// A named namespace, tests included: ember_tests is a unity build.
namespace callgrind_test {

using ember::benchmark::CallgrindStats;
using ember::benchmark::FunctionCount;
using ember::benchmark::FunctionCounts;
using ember::benchmark::Timer;
using ember::testing::expect_error;
namespace fs = std::filesystem;

FunctionCounts exclusive(std::vector<FunctionCount> counts) { return FunctionCounts(std::move(counts), false); }

std::vector<int64_t> counts_of(const FunctionCounts& c) {
  std::vector<int64_t> out;
  for (const auto& fc : c) out.push_back(fc.count);
  return out;
}

// Sets PATH for a scope.
struct ScopedPath {
  std::string prior = std::getenv("PATH") ? std::getenv("PATH") : "";
  explicit ScopedPath(const std::string& path) { ::setenv("PATH", path.c_str(), 1); }
  ~ScopedPath() { ::setenv("PATH", prior.c_str(), 1); }
};

bool valgrind_installed() { return std::system("command -v valgrind > /dev/null 2>&1") == 0; }

// A fresh directory under the test temp dir.
fs::path make_temp_dir(const std::string& name) {
  fs::path dir = fs::path(::testing::TempDir()) / (name + "." + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(BenchmarkCallgrind, FunctionCountsArithmetic) {
  FunctionCounts a = exclusive({{100, "lib.so:f"}, {30, "lib.so:g"}});
  FunctionCounts b = exclusive({{60, "lib.so:f"}, {30, "lib.so:g"}, {5, "lib.so:h"}});
  FunctionCounts d = a - b;
  EXPECT_EQ(std::vector<FunctionCount>(d.begin(), d.end()),
            (std::vector<FunctionCount>{{40, "lib.so:f"}, {-5, "lib.so:h"}}));  // g's 0 is dropped
  EXPECT_EQ((a + b).sum(), 225);
  EXPECT_EQ((a * 2).sum(), 260);
  EXPECT_EQ((a * 0.5)[1], (FunctionCount{15, "lib.so:g"}));
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0], (FunctionCount{100, "lib.so:f"}));
  EXPECT_EQ(a.filter([](const std::string& fn) { return fn.back() == 'g'; }).sum(), 30);
  FunctionCounts all = a.transform([](const std::string&) { return std::string("all"); });
  EXPECT_EQ(all.size(), 1u);
  EXPECT_EQ(all.sum(), 130);
  expect_error<ember::ValueError>([&] { a - FunctionCounts({}, true); }, "cannot merge inclusive and exclusive");
  // Sorted largest first, ties by name descending (Python sorts the (count, name) pairs).
  FunctionCounts sorted = exclusive({{1, "a"}, {7, "b"}, {7, "c"}, {-3, "d"}});
  EXPECT_EQ(counts_of(sorted), (std::vector<int64_t>{7, 7, 1, -3}));
  EXPECT_EQ(sorted[0].function, "c");
  EXPECT_EQ(d.to_string(), "<ember::benchmark::FunctionCounts>\n  40  lib.so:f\n  -5  lib.so:h\n\nTotal: 35");
}

TEST(BenchmarkCallgrind, FunctionCountsTextShortensNamesAndRows) {
  std::vector<FunctionCount> many;
  for (int i = 0; i < 20; ++i) many.push_back({100 + i, "fn" + std::to_string(i)});
  std::string text = FunctionCounts(many, true).to_string();
  std::vector<std::string> lines;
  for (size_t start = 0, end; start <= text.size(); start = end + 1) {
    end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
  }
  ASSERT_EQ(lines.size(), 1u + 9 + 1 + 9);  // inclusive: no total
  EXPECT_EQ(lines[1], "  119  fn19");
  EXPECT_EQ(lines[10], "  ...");
  EXPECT_EQ(lines[19], "  100  fn0");
  // Names longer than linewidth - count width - 4 (at least 40) keep both ends.
  std::string name = "???:" + std::string(60, 'x') + "(int) [/lib/libember.so]";
  EXPECT_EQ(FunctionCounts({{5, name}}, false).to_string(60),
            "<ember::benchmark::FunctionCounts>\n  5  ???:xxxxxxxxxxxxxxxxxxxxx ... x(int) [/lib/libember.so]\n\nTotal: 5");
}

TEST(BenchmarkCallgrind, DenoiseDropsRuntimeWaitsAndSmallEntries) {
  FunctionCounts noisy = exclusive({
      {500, "???:ember::add(...) [/x/libember.so]"},
      {480, "???:0x000000000001f930 [/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0]"},  // OpenMP spin
      {300, "config/linux/wait.h:do_spin [/usr/lib/libgomp.so.1]"},
      {450, "???:GOMP_parallel [/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0]"},
      {90, "Objects/dictobject.c:lookdict_unicode [/usr/bin/python3.11]"},
      {70, "???:0x00000000005513f0 [/usr/bin/python3.11]"},
      {60, "???:0x0000000000001234 [/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0]"},
      {20, "???:0x0000000000001000 [/x/_C.cpython-311-x86_64-linux-gnu.so]"},
      {3, "???:tiny [/x/libember.so]"},
  });
  EXPECT_EQ(counts_of(noisy.denoise()), (std::vector<int64_t>{500, 450, 20, 3}));
  EXPECT_EQ(counts_of(noisy.denoise(10)), (std::vector<int64_t>{500, 450, 20}));
  EXPECT_EQ(counts_of((noisy * -1).denoise(10)), (std::vector<int64_t>{-20, -450, -500}));  // |count|
}

TEST(BenchmarkCallgrind, CallgrindStatsArithmeticAndText) {
  ember::benchmark::TaskSpec spec;
  spec.label = "add";
  spec.description = "n=1000";
  CallgrindStats before{spec,
                        100,
                        FunctionCounts({{1000, "???:main [/bin/p]"}}, true),
                        exclusive({{1000, "???:main [/bin/p]"}}),
                        FunctionCounts({{9000, "???:main [/bin/p]"}}, true),
                        exclusive({{6000, "/home/dev/ember/src/ops/add.cpp:ember::add() [/build/lib/libember.so]"},
                                   {2500, "???:0x0000000000001f93 [/usr/lib/libgomp.so.1]"},
                                   {500, "???:main [/bin/p]"}})};
  CallgrindStats after = before;
  after.stmt_exclusive_stats = exclusive({{5000, "/home/dev/ember/src/ops/add.cpp:ember::add() [/build/lib/libember.so]"},
                                          {2600, "???:0x0000000000001f93 [/usr/lib/libgomp.so.1]"},
                                          {500, "???:main [/bin/p]"}});
  EXPECT_EQ(before.counts(), 9000);
  EXPECT_EQ(before.counts(/*denoise=*/true), 6500);
  EXPECT_EQ(&before.stats(), &before.stmt_exclusive_stats);
  EXPECT_EQ(&before.stats(true), &before.stmt_inclusive_stats);
  FunctionCounts delta = after.delta(before);
  EXPECT_EQ(delta.sum(), -900);
  EXPECT_EQ(counts_of(delta.denoise()), (std::vector<int64_t>{-1000}));
  EXPECT_EQ(before.to_string(),
            "<ember::benchmark::CallgrindStats>\n"
            "add\n"
            "n=1000\n"
            "                           All          Noisy symbols removed\n"
            "    Instructions:         9000                       6500\n"
            "    Baseline:             1000                       1000\n"
            "100 runs per measurement, 1 thread");
  // Standardized names drop directories, so that two checkouts can be diffed.
  CallgrindStats std_stats = before.as_standardized();
  EXPECT_EQ(std_stats.counts(), 9000);
  EXPECT_EQ(std_stats.stmt_exclusive_stats[0].function, "src/ops/add.cpp:ember::add() [libember.so]");
  EXPECT_EQ(std_stats.stmt_exclusive_stats[1].function, "???:0x0000000000001f93 [libgomp.so.1]");
  EXPECT_EQ(std_stats.stmt_exclusive_stats[2].function, "???:main [p]");
  // The names ember.utils.benchmark's _standardize gives for these.
  CallgrindStats more{spec, 1, FunctionCounts({{3, "/usr/include/c++/12/bits/stl_vector.h:f"},
                                               {2, "./malloc/malloc.c:malloc [/usr/lib/libc.so.6]"},
                                               {1, "nocolon [/a/b]"}},
                                              true),
                      {},
                      {},
                      {}};
  FunctionCounts names = more.as_standardized().baseline_inclusive_stats;
  EXPECT_EQ(names[0].function, "include/c++/12/bits/stl_vector.h:f");
  EXPECT_EQ(names[1].function, "malloc.c:malloc [libc.so.6]");
  EXPECT_EQ(names[2].function, "nocolon [b]");
}

// Compressed names, inlined code (fi/fe), relative line numbers, calls into another object, a
// call in progress when collection started (calls=0) and a top-level entry that repeats the
// total; the expected counts are callgrind_annotate's but for calls=0 (see
// read_callgrind_out).
TEST(BenchmarkCallgrind, ReadsCallgrindOutputAsCallgrindAnnotate) {
  std::string cwd = fs::current_path().string();
  fs::path file = make_temp_dir("ember_callgrind_read") / "callgrind.out.42.1";
  std::ofstream(file) << "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npid: 42\ncmd:  ./prog\npart: 1\n\n"
                         "desc: Trigger: Client Request: ember-benchmark\n\npositions: line\nevents: Ir\nsummary: 1010\n\n"
                         "ob=(1) /build/lib/libember.so\nfl=(1) ???\nfn=(1) ember::add(ember::Tensor const&)\n0 100\n"
                         "cfn=(2) ember::kernel(float*)\ncalls=10 0\n0 500\n+3 20\n"
                         "fi=(2) /usr/include/c++/12/bits/stl_vector.h\n-3 30\nfe=(1)\n* 5\n\n"
                         "fn=(2)\n0 500\n\n"
                         "fl=(4) " + cwd + "/src/ops/x.cpp\nfn=(6) helper()\n12 10\n\n"
                         "ob=(2) /usr/lib/x86_64-linux-gnu/libc.so.6\nfl=(3) ./malloc/malloc.c\nfn=(3) malloc\n0 40\n\n"
                         "ob=(1)\nfl=(1)\nfn=(4) main\n0 5\ncfn=(1)\ncalls=1 0\n0 655\n"
                         "cob=(2)\ncfi=(3)\ncfn=(3)\ncalls=2 0\n0 40\n0 300\ncfl=(4)\ncfn=(6)\ncalls=1 0\n0 10\n\n"
                         "fn=(5) 0x0000000000401000\ncfn=(4)\ncalls=0 0\n0 1010\n\ntotals: 1010\n";
  FunctionCounts exclusive_counts = ember::benchmark::read_callgrind_out(file.string(), false);
  EXPECT_EQ(exclusive_counts.to_string(100),
            "<ember::benchmark::FunctionCounts>\n"
            "  500  ???:ember::kernel(float*) [/build/lib/libember.so]\n"
            "  305  ???:main [/build/lib/libember.so]\n"
            "  125  ???:ember::add(ember::Tensor const&) [/build/lib/libember.so]\n"
            "   40  ./malloc/malloc.c:malloc [/usr/lib/x86_64-linux-gnu/libc.so.6]\n"
            "   30  /usr/include/c++/12/bits/stl_vector.h:ember::add(ember::Tensor const&)\n"
            "   10  src/ops/x.cpp:helper() [/build/lib/libember.so]\n"
            "\n"
            "Total: 1010");
  FunctionCounts inclusive_counts = ember::benchmark::read_callgrind_out(file.string(), true);
  EXPECT_EQ(inclusive_counts.to_string(100),
            "<ember::benchmark::FunctionCounts>\n"
            "  1010  ???:main [/build/lib/libember.so]\n"
            "   655  ???:ember::add(ember::Tensor const&) [/build/lib/libember.so]\n"
            "   500  ???:ember::kernel(float*) [/build/lib/libember.so]\n"
            "    40  ./malloc/malloc.c:malloc [/usr/lib/x86_64-linux-gnu/libc.so.6]\n"
            "    30  /usr/include/c++/12/bits/stl_vector.h:ember::add(ember::Tensor const&)\n"
            "    10  src/ops/x.cpp:helper() [/build/lib/libember.so]\n"
            "    10  " + cwd + "/src/ops/x.cpp:helper()");
  expect_error<ember::RuntimeError>([] { ember::benchmark::read_callgrind_out("/nonexistent/callgrind.out", true); },
                                    "cannot open /nonexistent/callgrind.out");
  std::ofstream(file) << "not callgrind output\n";
  expect_error<ember::RuntimeError>([&] { ember::benchmark::read_callgrind_out(file.string(), true); },
                                    "not callgrind output");
  fs::remove_all(file.parent_path());
}

TEST(BenchmarkCallgrind, OutsideValgrindSaysHowToRun) {
  Timer timer([] {}, {.label = "noop"});
  expect_error<ember::ValueError>([&] { timer.collect_callgrind(0); }, "number must be a positive integer, got 0");
  try {
    timer.collect_callgrind(10);
    FAIL() << "collect_callgrind ran outside valgrind";
  } catch (const ember::RuntimeError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("this process is not running under valgrind. Run it as\n  valgrind --tool=callgrind "
                       "--collect-atstart=no --instr-atstart=no "),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("ember_tests"), std::string::npos) << msg;  // this program's command line
    if (valgrind_installed()) {
      EXPECT_EQ(msg.find("not installed"), std::string::npos) << msg;
    }
  }
  fs::path empty = make_temp_dir("ember_no_valgrind");
  ScopedPath no_valgrind(empty.string());
  expect_error<ember::RuntimeError>([&] { timer.collect_callgrind(10); },
                                    "valgrind is not installed: install the Debian package `valgrind`");
  fs::remove_all(empty);
}

// Runs the example program under callgrind in `dir`; returns its output and exit status.
std::pair<std::string, int> run_under_valgrind(const fs::path& dir) {
  std::string cmd = "cd '" + dir.string() +
                    "' && OMP_NUM_THREADS=1 valgrind --tool=callgrind --collect-atstart=no --instr-atstart=no '" +
                    EMBER_CALLGRIND_EXAMPLE + "' 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  if (!pipe) return {"popen failed", -1};
  std::string out;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  return {out, ::pclose(pipe)};
}

TEST(BenchmarkCallgrind, CountsRepeatAcrossValgrindRuns) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "valgrind cannot run an AddressSanitizer build; the Release suite runs this";
#endif
  if (!valgrind_installed()) GTEST_SKIP() << "valgrind is not installed (Debian package valgrind)";
  fs::path dir = make_temp_dir("ember_callgrind_runs");
  std::vector<long long> counts;
  for (int run = 0; run < 2; ++run) {
    auto [out, status] = run_under_valgrind(dir);
    ASSERT_EQ(status, 0) << out;
    long long instructions = 0, baseline = 0;
    size_t at = out.find("instructions: ");
    ASSERT_TRUE(at != std::string::npos &&
                std::sscanf(out.c_str() + at, "instructions: %lld baseline: %lld", &instructions, &baseline) == 2)
        << out;
    // ember::add on 1000 floats costs far more than the loop around it, and runs in the
    // measured code.
    EXPECT_GT(baseline, 0) << out;
    EXPECT_GT(instructions, 20 * baseline) << out;
    EXPECT_NE(out.find("ember::add("), std::string::npos) << out;
    counts.push_back(instructions);
  }
  std::printf("callgrind ember::add, n=1000, 100 calls: %lld and %lld instructions\n", counts[0], counts[1]);
  EXPECT_NEAR(static_cast<double>(counts[1]), static_cast<double>(counts[0]), 0.01 * static_cast<double>(counts[0]));
  // collect_callgrind removes the dumps it read; valgrind's own final file remains.
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    std::string prefix = "callgrind.out.";
    EXPECT_TRUE(name.rfind(prefix, 0) == 0 && name.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
        << name;
  }
  fs::remove_all(dir);
}

}  // namespace callgrind_test
