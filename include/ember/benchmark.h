// Benchmarking of C++ callables, modelled on torch.utils.benchmark (PyTorch 1.8) and matching
// ember.utils.benchmark (Python) report for report:
//   - Timer runs a callable in blocks of calls, with a warm-up and a fixed intra-op thread
//     count, and returns a Measurement of per-call times (median, IQR, significant figures, a
//     warning when the spread is large);
//   - Compare lays many Measurements out as tables, character for character as Python's;
//   - Fuzzer draws reproducible random parameters and tensors (UnaryOpFuzzer, ...);
//   - Timer::collect_callgrind counts instructions (FunctionCounts, CallgrindStats) when the
//     program runs under valgrind's callgrind.
// Usage: docs/BENCHMARKING.md.
//
//   ember::benchmark::Timer timer([&] { ember::add(x, y); }, {.label = "add", .sub_label = "1 elem"});
//   ember::benchmark::Measurement m = timer.blocked_autorange();
//   std::string report = m.to_string();   // median, IQR, runs, threads, warnings
//   ember::benchmark::Compare({m, ...}).print();
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "ember/tensor.h"

namespace ember {
class Generator;
}

namespace ember::benchmark::detail {
class FuzzerRng;  // the Fuzzer's own random stream (src/benchmark/fuzzer.cpp)
}

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

// ---------------------------------------------------------------- instruction counts
// Instruction counts of one function, as callgrind_annotate names it:
// "file:function [object]" ("???" for a file without debug information).
struct FunctionCount {
  int64_t count = 0;
  std::string function;
  bool operator==(const FunctionCount&) const = default;
};

// Per-function instruction counts, largest first (as ember.utils.benchmark.FunctionCounts).
// Inclusive counts contain those of the callees (hot spots); exclusive ones only the
// function's own instructions (better for diffs).
class FunctionCounts {
 public:
  FunctionCounts() = default;
  // Sorted by count, then by name, both descending.
  FunctionCounts(std::vector<FunctionCount> counts, bool inclusive);

  bool inclusive() const { return inclusive_; }
  size_t size() const { return data_.size(); }
  bool empty() const { return data_.empty(); }
  const FunctionCount& operator[](size_t i) const { return data_[i]; }
  std::vector<FunctionCount>::const_iterator begin() const { return data_.begin(); }
  std::vector<FunctionCount>::const_iterator end() const { return data_.end(); }

  int64_t sum() const;
  // Per function; `a - b` is the change from b to a. Functions whose counts become 0 are
  // dropped. ValueError when one side is inclusive and the other is not.
  FunctionCounts operator+(const FunctionCounts& other) const;
  FunctionCounts operator-(const FunctionCounts& other) const;
  // Each count times `factor`, truncated toward zero.
  FunctionCounts operator*(double factor) const;
  // The functions for which keep(name) is true.
  FunctionCounts filter(const std::function<bool(const std::string&)>& keep) const;
  // Renames every function; functions that map to one name are summed.
  FunctionCounts transform(const std::function<std::string(const std::string&)>& rename) const;
  // Drops functions whose counts vary between identical runs, and entries below min_count in
  // absolute value. Noise is the OpenMP runtime's waiting for work (with several threads) and,
  // in a Python process (ember.utils.benchmark's denoise), CPython's dict and type lookups,
  // small-object allocator and garbage collector.
  FunctionCounts denoise(int64_t min_count = 0) const;

  // One "  count  function" line each (long names shortened in the middle to fit linewidth;
  // more than 18 rows show the first and last 9), then the total of exclusive counts.
  std::string to_string(int linewidth = 80, bool truncate_rows = true) const;

 private:
  FunctionCounts merge(const FunctionCounts& other, int sign) const;
  std::vector<FunctionCount> data_;
  bool inclusive_ = false;
};

// The instruction counts of number_per_run calls of a statement, and of as many calls of an
// empty one (the baseline: the loop itself), from Timer::collect_callgrind.
struct CallgrindStats {
  TaskSpec task_spec;
  int64_t number_per_run = 0;
  FunctionCounts baseline_inclusive_stats;
  FunctionCounts baseline_exclusive_stats;
  FunctionCounts stmt_inclusive_stats;
  FunctionCounts stmt_exclusive_stats;

  // Per-function counts of the statement's calls.
  const FunctionCounts& stats(bool inclusive = false) const {
    return inclusive ? stmt_inclusive_stats : stmt_exclusive_stats;
  }
  // The total instructions of the measured loop.
  int64_t counts(bool denoise = false) const;
  // Per-function change from `other` (the baseline) to these counts.
  FunctionCounts delta(const CallgrindStats& other, bool inclusive = false) const;
  // Strips directories from source files and objects in function names, so that builds in
  // different directories can be diffed.
  CallgrindStats as_standardized() const;
  // As the Python repr:
  //   <ember::benchmark::CallgrindStats>
  //   add
  //                              All          Noisy symbols removed
  //       Instructions:       212345                     212345
  //       Baseline:             1500                       1500
  //   100 runs per measurement, 1 thread
  std::string to_string() const;
};

// Per-function counts (event Ir) of a callgrind output file, read as
// `callgrind_annotate --inclusive=yes|no` reads it, names included, except that a call in
// progress when collection started is not also counted as the caller's own instructions.
// RuntimeError if the file cannot be read or is not callgrind output.
FunctionCounts read_callgrind_out(const std::string& path, bool inclusive);

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

  // Instruction counts of `number` calls (after setup and a warm-up of min(number, 10) calls)
  // and, with collect_baseline, of `number` calls of an empty callable, with valgrind's
  // callgrind. Unlike times, counts repeat from run to run (within a fraction of a percent).
  // The program itself must run under
  //   valgrind --tool=callgrind --collect-atstart=no --instr-atstart=no <program> [args]
  // with callgrind's default output file name (callgrind.out.<pid> in the directory the
  // program started in, where the dumps of each call are read and removed); elsewhere
  // RuntimeError says so.
  CallgrindStats collect_callgrind(int64_t number = 100, bool collect_baseline = true);

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

// ---------------------------------------------------------------- Fuzzer
// Reproducible random benchmark cases, as ember.utils.benchmark.Fuzzer: parameters drawn from
// distributions, tensors built from them, constraints that reject a draw. The same seed gives
// the same cases (tensor values included) on every run; the draws are not Python's.
//
//   ember::benchmark::Fuzzer fuzzer(
//       {FuzzedParameter("n", 16, 4096, "loguniform"),
//        FuzzedParameter("m", {{ParameterAlias{"n"}, 0.5}, {1, 0.5}})},  // broadcast half the time
//       {FuzzedTensor("x", {"n", "n"}, {.probability_contiguous = 0.75, .max_elements = 1 << 22}),
//        FuzzedTensor("y", {"n", "m"})},
//       {[](const FuzzerParams& p) { return p.integer("n") % 2 == 0; }},
//       /*seed=*/0);
//   for (const FuzzerCase& c : fuzzer.take(10)) ember::add(c.tensors.at("x"), c.tensors.at("y"));

// A parameter's value: an integer (sizes, steps, counts) or a real number.
class ParamValue {
 public:
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  ParamValue(T v) : value_(static_cast<int64_t>(v)) {}  // NOLINT: 3 converts to a value
  template <std::floating_point T>
  ParamValue(T v) : value_(static_cast<double>(v)) {}  // NOLINT

  bool is_integer() const { return std::holds_alternative<int64_t>(value_); }
  // TypeError for a real number: sizes must be integers.
  int64_t to_int() const;
  double to_double() const;
  std::string to_string() const;
  bool operator==(const ParamValue&) const = default;

 private:
  std::variant<int64_t, double> value_;
};

// A choice that takes the value of another parameter, e.g. {{ParameterAlias{"n"}, 0.5}, {1, 0.5}}
// for a size that broadcasts half of the time.
struct ParameterAlias {
  std::string alias_to;
};

// One {value, probability} of an explicit distribution.
struct FuzzedChoice {
  FuzzedChoice(ParamValue value, double probability) : value(value), probability(probability) {}
  FuzzedChoice(ParameterAlias alias, double probability)
      : value(0), alias_to(std::move(alias.alias_to)), probability(probability) {}
  ParamValue value;
  std::string alias_to;  // non-empty: an alias, and `value` is unused
  double probability;
};

class FuzzedParameter {
 public:
  // distribution "uniform": uniform on [minval, maxval], integers when both bounds are;
  // "loguniform": uniform in log space, as an integer (sizes; minval > 0). ValueError otherwise.
  FuzzedParameter(std::string name, ParamValue minval, ParamValue maxval, std::string distribution,
                  bool strict = false);
  // Explicit choices whose probabilities sum to 1 (values or ParameterAlias).
  FuzzedParameter(std::string name, std::vector<FuzzedChoice> distribution, bool strict = false);

  const std::string& name() const { return name_; }
  // A strict parameter is drawn once per case and kept while the others are redrawn to meet
  // the constraints, so that resampling does not skew its distribution.
  bool strict() const { return strict_; }

 private:
  friend class Fuzzer;
  std::string name_;
  std::string distribution_;  // "uniform", "loguniform" or "choices"
  ParamValue minval_ = 0, maxval_ = 0;
  std::vector<FuzzedChoice> choices_;
  std::vector<double> cumulative_;  // of the normalised choice probabilities
  bool strict_;
};

// The drawn parameters of one case, by name.
class FuzzerParams {
 public:
  // ValueError naming the parameter when there is none of that name; integer() raises
  // TypeError for a real number.
  const ParamValue& at(const std::string& name) const;
  int64_t integer(const std::string& name) const;
  double real(const std::string& name) const { return at(name).to_double(); }
  bool contains(const std::string& name) const { return values_.count(name) != 0; }
  const std::map<std::string, ParamValue>& values() const { return values_; }
  bool operator==(const FuzzerParams&) const = default;

 private:
  friend class Fuzzer;
  std::map<std::string, ParamValue> values_;
};

// A size or step of a FuzzedTensor: a constant or the name of a parameter.
class FuzzedDim {
 public:
  template <std::integral T>
    requires(!std::same_as<T, bool>)
  FuzzedDim(T size) : size_(static_cast<int64_t>(size)) {}  // NOLINT
  FuzzedDim(const char* parameter) : parameter_(parameter) {}  // NOLINT
  FuzzedDim(std::string parameter) : parameter_(std::move(parameter)) {}  // NOLINT

  const std::string& parameter() const { return parameter_; }  // empty for a constant
  int64_t size() const { return size_; }

 private:
  int64_t size_ = 0;
  std::string parameter_;
};

// Builds a tensor of `size` and `dtype` for a case (Fuzzer's default: rand for floating and
// complex dtypes, randint(0, 2) for bool, randint(1, 127) for integers), drawing from `gen`.
using FuzzedTensorConstructor =
    std::function<Tensor(IntArrayRef size, ScalarType dtype, const FuzzerParams& params, Generator& gen)>;

// Every member has an initializer so that designated initializers may name any subset.
struct FuzzedTensorOptions {
  // Slice steps per dim (ints or parameter names): a tensor of size * steps is allocated and
  // sliced, which makes it strided. Empty: no steps.
  std::vector<FuzzedDim> steps = {};
  // The chance of a contiguous layout; otherwise the dims are stored in a random order.
  double probability_contiguous = 0.5;
  // Cases outside these limits are redrawn.
  std::optional<int64_t> min_elements = std::nullopt;
  std::optional<int64_t> max_elements = std::nullopt;
  std::optional<int64_t> max_allocation_bytes = std::nullopt;  // before slicing for steps
  // A parameter that truncates (or pads with 1s) size and steps to its value.
  std::string dim_parameter = {};
  ScalarType dtype = kFloat;
  FuzzedTensorConstructor tensor_constructor = {};
};

class FuzzedTensor {
 public:
  // ValueError for a probability outside [0, 1], steps and size of different lengths, or
  // min_elements > max_elements.
  FuzzedTensor(std::string name, std::vector<FuzzedDim> size, FuzzedTensorOptions options = {});
  const std::string& name() const { return name_; }

 private:
  friend class Fuzzer;
  std::string name_;
  std::vector<FuzzedDim> size_;
  FuzzedTensorOptions options_;
};

// How a case's tensor was laid out.
struct FuzzedTensorProperties {
  int64_t numel = 0;
  std::vector<int64_t> order;  // the order in which the dims are stored; 0, 1, ... when contiguous
  std::vector<int64_t> steps;
  bool is_contiguous = true;
  ScalarType dtype = kFloat;
};

struct FuzzerCase {
  std::map<std::string, Tensor> tensors;
  std::map<std::string, FuzzedTensorProperties> properties;
  FuzzerParams params;
};

class Fuzzer {
 public:
  using Constraint = std::function<bool(const FuzzerParams&)>;
  // Parameter sets drawn per case before the constraints are deemed impossible.
  static constexpr int kMaxTries = 1000;

  // ValueError for duplicate names (among parameters, among tensors, or between the two),
  // aliases, sizes, steps or dim_parameters that name no parameter, or a negative seed. No seed:
  // a random one (see seed()).
  Fuzzer(std::vector<FuzzedParameter> parameters, std::vector<FuzzedTensor> tensors,
         std::vector<Constraint> constraints = {}, std::optional<int64_t> seed = std::nullopt);

  // The first n cases of the seed (each take starts from the seed again). ValueError if n < 0,
  // or when kMaxTries draws for a case all break a constraint or a tensor's limits.
  std::vector<FuzzerCase> take(int64_t n);
  // The same cases, one at a time, so that only one case's tensors are alive at once.
  void take(int64_t n, const std::function<void(FuzzerCase&)>& fn);

  int64_t seed() const { return seed_; }
  // Rejected draws / all draws so far.
  double rejection_rate() const;

 private:
  // A draw of every parameter, aliases resolved, that meets the constraints and limits.
  FuzzerParams draw_params(detail::FuzzerRng& rng);
  static std::pair<Tensor, FuzzedTensorProperties> make_tensor(const FuzzedTensor& spec, const FuzzerParams& params,
                                                               detail::FuzzerRng& rng, Generator& gen);

  std::vector<FuzzedParameter> parameters_;
  std::vector<FuzzedTensor> tensors_;
  std::vector<Constraint> constraints_;
  int64_t seed_;
  int64_t rejections_ = 0;
  int64_t total_generated_ = 0;
};

// Ready-made fuzzers (torch.utils.benchmark.op_fuzzers): each case is a 1- to 3-d tensor x of
// 4 Ki to 32 Mi elements, with sizes that are arbitrary or powers of two, sometimes strided
// or not contiguous; at most 1 GiB is allocated per tensor.
class UnaryOpFuzzer : public Fuzzer {
 public:
  explicit UnaryOpFuzzer(int64_t seed, ScalarType dtype = kFloat);
};

// x and y, where each dim of y is x's or 1 (so that some cases broadcast).
class BinaryOpFuzzer : public Fuzzer {
 public:
  explicit BinaryOpFuzzer(int64_t seed, ScalarType dtype = kFloat);
};

// x with sizes that are products of 2, 3 and 5 (FFT-friendly, 16 < n <= 16 Ki) with
// probability probability_regular; the dims parameter is "ndim".
class SpectralOpFuzzer : public Fuzzer {
 public:
  explicit SpectralOpFuzzer(int64_t seed, ScalarType dtype = kDouble, double probability_regular = 1.0);
};

}  // namespace ember::benchmark
