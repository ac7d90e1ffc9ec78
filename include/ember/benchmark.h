// Benchmarking of C++ callables, modelled on torch.utils.benchmark (PyTorch 1.8) and matching
// ember.utils.benchmark (Python) report for report:
//   - Timer runs a callable in blocks of calls, with a warm-up and a fixed intra-op thread
//     count, and returns a Measurement of per-call times (median, IQR, significant figures, a
//     warning when the spread is large);
//   - Compare lays many Measurements out as tables, character for character as Python's.
// The Python side adds Fuzzer and instruction counts.
//
//   ember::benchmark::Timer timer([&] { ember::add(x, y); }, {.label = "add", .sub_label = "1 elem"});
//   ember::benchmark::Measurement m = timer.blocked_autorange();
//   std::string report = m.to_string();   // median, IQR, runs, threads, warnings
//   ember::benchmark::Compare({m, ...}).print();
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ember::benchmark {

// What was measured; equal TaskSpecs are replicates, which Measurement::merge combines.
struct TaskSpec {
  std::string stmt;  // a name for the callable, shown when there is no label
  std::string label;
  std::string sub_label;
  std::string description;
  std::string env;
  int num_threads = 1;

  // label (or stmt, or "[callable]") plus ": sub_label".
  std::string title() const;
  // The title, then the description if any.
  std::string summarize() const;
  bool operator==(const TaskSpec&) const = default;
};

class Measurement {
 public:
  // raw_times: seconds per run of number_per_run calls. ValueError if empty or
  // number_per_run < 1.
  Measurement(int64_t number_per_run, std::vector<double> raw_times, TaskSpec task_spec);

  int64_t number_per_run() const { return number_per_run_; }
  const std::vector<double>& raw_times() const { return raw_times_; }
  const TaskSpec& task_spec() const { return task_spec_; }

  // Seconds per call of each run.
  std::vector<double> times() const;
  double median() const { return median_; }
  double mean() const { return mean_; }
  double iqr() const { return p75_ - p25_; }
  // Quantiles interpolate linearly between closest ranks (numpy's and torch's default).
  double quantile(double q) const;
  // Digits of the median that are not noise, 1 to 4, from a 90% confidence interval over the
  // interquartile points.
  int significant_figures() const;
  // True when IQR / median >= 10% (noisy); warnings() says how noisy.
  bool has_warnings() const { return !warnings_.empty(); }
  const std::vector<std::string>& warnings() const { return warnings_; }
  bool meets_confidence(double threshold = 0.1) const { return iqr() / median_ < threshold; }

  // Multi-line report, as the repr of a Python Measurement:
  //   <ember::benchmark::Measurement>
  //   add: 1 elem
  //     Median: 2.31 us
  //     IQR:    0.05 us (2.29 to 2.34)
  //     81 measurements, 10000 runs per measurement, 1 thread
  std::string to_string() const;

  // Combines replicates (equal TaskSpecs) into one Measurement each, in first-seen order, with
  // number_per_run = 1. ValueError on an empty list.
  static std::vector<Measurement> merge(const std::vector<Measurement>& measurements);

 private:
  int64_t number_per_run_;
  std::vector<double> raw_times_;
  TaskSpec task_spec_;
  std::vector<double> sorted_;  // per-call times, ascending
  double median_ = 0, mean_ = 0, p25_ = 0, p75_ = 0;
  std::vector<std::string> warnings_;
};

// The unit ("ns", "us", "ms", "s") in which `seconds` reads as 1 to 999, and its scale.
std::pair<const char*, double> select_unit(double seconds);
// x rounded to n significant figures (3.14159, 2 -> 3.1); ValueError if n < 1.
double trim_sigfig(double x, int n);

// Tables of Measurements, as torch.utils.benchmark.Compare lays them out (and, for equal
// measurements, the same text as ember.utils.benchmark.Compare): one table per label; rows
// are sub_labels (else stmts) in blocks of equal thread count (and env, when measurements
// differ in it); columns are descriptions. Replicates are merged first (Measurement::merge).
//
//   ember::benchmark::Compare compare(measurements);
//   compare.trim_significant_figures();
//   compare.colorize(/*rowwise=*/true);
//   compare.print();
class Compare {
 public:
  // ValueError on an empty list.
  explicit Compare(std::vector<Measurement> results);

  void extend_results(const std::vector<Measurement>& results);
  // Rounds each cell to its measurement's significant figures.
  void trim_significant_figures() { trim_significant_figures_ = true; }
  // Colours cells (ANSI escapes) relative to the fastest of their column within a thread-count
  // block, or of their row.
  void colorize(bool rowwise = false) { colorize_ = rowwise ? Colorize::kRowwise : Colorize::kColumnwise; }
  // Marks noisy cells with (! XX%), the IQR as a percentage of the median.
  void highlight_warnings() { highlight_warnings_ = true; }

  // The tables, separated by blank lines.
  std::string to_string() const;
  // to_string() and a newline, to stdout.
  void print() const;

 private:
  enum class Colorize { kNone, kColumnwise, kRowwise };
  std::vector<Measurement> results_;
  bool trim_significant_figures_ = false;
  bool highlight_warnings_ = false;
  Colorize colorize_ = Colorize::kNone;
};

// Every member has an initializer so that designated initializers may name any subset.
struct TimerOptions {
  std::function<void()> setup = {};  // runs before each timed block, untimed
  std::string stmt = {};             // a name for the callable, for reports
  std::string label = {};
  std::string sub_label = {};
  std::string description = {};
  std::string env = {};
  int num_threads = 1;  // intra-op threads while timing; the previous count is restored
};

class Timer {
 public:
  // ValueError if stmt is empty or num_threads < 1.
  explicit Timer(std::function<void()> stmt, TimerOptions options = {});

  // One run of `number` calls, after a warm-up of max(number / 100, 2) calls.
  Measurement timeit(int64_t number = 1000000);
  // Runs of a fixed number of calls (the smallest power of ten for which reading the clock
  // costs < 0.01% of a run, found during a warm-up) until min_run_time seconds are spent.
  Measurement blocked_autorange(double min_run_time = 0.2,
                                const std::function<void(int64_t, double)>& callback = {});
  // Runs until IQR / median < threshold (with more than 3 runs and min_run_time spent), or
  // until max_run_time seconds are spent.
  Measurement adaptive_autorange(double threshold = 0.1, double min_run_time = 0.01,
                                 double max_run_time = 10.0,
                                 const std::function<void(int64_t, double)>& callback = {});

  const TaskSpec& task_spec() const { return task_spec_; }

 private:
  double time_block(int64_t number);
  int64_t estimate_block_size(double min_run_time);
  std::vector<double> measure(int64_t number, double min_run_time, double max_run_time,
                              const std::function<bool(const std::vector<double>&)>& stop,
                              const std::function<void(int64_t, double)>& callback);

  std::function<void()> stmt_;
  std::function<void()> setup_;
  TaskSpec task_spec_;
};

}  // namespace ember::benchmark
