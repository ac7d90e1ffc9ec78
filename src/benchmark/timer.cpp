// Timer for C++ callables: block-size estimation (doubling as warm-up), replicate loops and
// the thread-count guard; the algorithms of ember.utils.benchmark.Timer.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>

#include "benchmark/timer_support.h"
#include "ember/benchmark.h"
#include "ember/error.h"
#include "ember/parallel.h"

namespace ember::benchmark {

namespace {

void check_time(const char* method, const char* name, double v) {
  EMBER_CHECK(std::isfinite(v) && v > 0, ValueError, method, ": ", name,
              " must be a positive number of seconds, got ", v);
}

}  // namespace

Timer::Timer(std::function<void()> stmt, TimerOptions options)
    : stmt_(std::move(stmt)), setup_(std::move(options.setup)) {
  EMBER_CHECK(static_cast<bool>(stmt_), ValueError, "Timer: stmt must be a callable, got an empty std::function");
  EMBER_CHECK(options.num_threads >= 1, ValueError, "Timer: num_threads must be a positive integer, got ",
              options.num_threads);
  task_spec_ = TaskSpec{std::move(options.stmt),        std::move(options.label), std::move(options.sub_label),
                        std::move(options.description), std::move(options.env),  options.num_threads};
}

double Timer::time_block(int64_t number) {
  using clock = std::chrono::steady_clock;
  if (setup_) {
    try {
      setup_();
    } catch (...) {
      detail::rethrow_with_context(task_spec_, "setup");
    }
  }
  clock::time_point t0, t1;
  try {
    t0 = clock::now();
    for (int64_t i = 0; i < number; ++i) stmt_();
    t1 = clock::now();
  } catch (...) {
    detail::rethrow_with_context(task_spec_, "statement");
  }
  // No real statement takes under a nanosecond; this also keeps ratios finite.
  return std::max(std::chrono::duration<double>(t1 - t0).count(), 1e-9);
}

Measurement Timer::timeit(int64_t number) {
  EMBER_CHECK(number >= 1, ValueError, "timeit: number must be a positive integer, got ",
              static_cast<long long>(number));
  detail::ThreadGuard threads(task_spec_.num_threads);
  time_block(std::max<int64_t>(number / 100, 2));  // warm-up
  return Measurement(number, {time_block(number)}, task_spec_);
}

int64_t Timer::estimate_block_size(double min_run_time) {
  std::vector<double> overheads;
  for (int i = 0; i < 5; ++i) overheads.push_back(time_block(0));
  std::nth_element(overheads.begin(), overheads.begin() + 2, overheads.end());
  double overhead = overheads[2];
  int64_t number = 1;
  while (true) {
    double t = time_block(number);
    if (overhead / t <= 1e-4 && t >= min_run_time / 1000) break;
    if (t > min_run_time || number * 10 > (int64_t{1} << 31) - 1) break;
    number *= 10;
  }
  return number;
}

std::vector<double> Timer::measure(int64_t number, double min_run_time, double max_run_time,
                                   const std::function<bool(const std::vector<double>&)>& stop,
                                   const std::function<void(int64_t, double)>& callback) {
  std::vector<double> times;
  double total = 0;
  while (true) {
    double t = time_block(number);
    times.push_back(t);
    total += t;
    if (callback) callback(number, t);
    if (total >= min_run_time && stop(times)) break;
    if (max_run_time > 0 && total > max_run_time) break;
  }
  return times;
}

Measurement Timer::blocked_autorange(double min_run_time, const std::function<void(int64_t, double)>& callback) {
  check_time("blocked_autorange", "min_run_time", min_run_time);
  detail::ThreadGuard threads(task_spec_.num_threads);
  int64_t number = estimate_block_size(min_run_time);
  auto times = measure(number, min_run_time, 0, [](const std::vector<double>&) { return true; }, callback);
  return Measurement(number, std::move(times), task_spec_);
}

Measurement Timer::adaptive_autorange(double threshold, double min_run_time, double max_run_time,
                                      const std::function<void(int64_t, double)>& callback) {
  EMBER_CHECK(std::isfinite(threshold) && threshold > 0, ValueError,
              "adaptive_autorange: threshold must be a positive number, got ", threshold);
  check_time("adaptive_autorange", "min_run_time", min_run_time);
  check_time("adaptive_autorange", "max_run_time", max_run_time);
  EMBER_CHECK(max_run_time >= min_run_time, ValueError, "adaptive_autorange: max_run_time (", max_run_time,
              ") is less than min_run_time (", min_run_time, ")");
  detail::ThreadGuard threads(task_spec_.num_threads);
  int64_t number = estimate_block_size(0.05);
  auto stop = [&](const std::vector<double>& times) {
    return times.size() > 3 && Measurement(number, times, task_spec_).meets_confidence(threshold);
  };
  auto times = measure(number, min_run_time, max_run_time, stop, callback);
  return Measurement(number, std::move(times), task_spec_);
}

}  // namespace ember::benchmark
