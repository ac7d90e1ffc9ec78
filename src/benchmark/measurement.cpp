// Measurement statistics and reports; the same formulas as ember.utils.benchmark.common, so
// that C++ and Python reports of equal times agree.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "ember/benchmark.h"
#include "ember/error.h"

namespace ember::benchmark {

namespace {

constexpr int kMaxSignificantFigures = 4;
constexpr double kMinConfidenceInterval = 25e-9;  // a clock cannot resolve less
constexpr double kIqrWarnThreshold = 0.1;
constexpr double kIqrGrossWarnThreshold = 0.25;

double quantile_of(const std::vector<double>& sorted, double q) {
  double pos = q * static_cast<double>(sorted.size() - 1);
  size_t lo = static_cast<size_t>(std::floor(pos));
  size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

std::string format(const char* spec, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, v);
  return buf;
}

}  // namespace

std::string TaskSpec::title() const {
  std::string suffix = sub_label.empty() ? "" : ": " + sub_label;
  if (!label.empty()) return label + suffix;
  return (stmt.empty() ? "[callable]" : stmt) + suffix;
}

std::string TaskSpec::summarize() const {
  return description.empty() ? title() : title() + "\n" + description;
}

std::pair<const char*, double> select_unit(double seconds) {
  int exponent = seconds > 0 ? static_cast<int>(std::floor(std::log10(seconds) / 3)) : 0;
  switch (exponent) {
    case -3: return {"ns", 1e-9};
    case -2: return {"us", 1e-6};
    case -1: return {"ms", 1e-3};
    default: return {"s", 1.0};
  }
}

Measurement::Measurement(int64_t number_per_run, std::vector<double> raw_times, TaskSpec task_spec)
    : number_per_run_(number_per_run), raw_times_(std::move(raw_times)), task_spec_(std::move(task_spec)) {
  EMBER_CHECK(!raw_times_.empty(), ValueError,
              "Measurement needs at least one time in raw_times, got an empty list");
  EMBER_CHECK(number_per_run_ >= 1, ValueError, "Measurement: number_per_run must be >= 1, got ",
              static_cast<long long>(number_per_run_));
  sorted_ = times();
  std::sort(sorted_.begin(), sorted_.end());
  median_ = quantile_of(sorted_, 0.5);
  p25_ = quantile_of(sorted_, 0.25);
  p75_ = quantile_of(sorted_, 0.75);
  mean_ = std::accumulate(sorted_.begin(), sorted_.end(), 0.0) / static_cast<double>(sorted_.size());
  double rel_iqr = median_ > 0 ? (p75_ - p25_) / median_ : 0.0;
  auto warn = [&](const char* why) {
    warnings_.push_back("  WARNING: Interquartile range is " + format("%.1f", rel_iqr * 100) +
                        "% of the median measurement.\n           " + why);
  };
  if (rel_iqr >= kIqrGrossWarnThreshold) {
    warn("This suggests significant environmental influence.");
  } else if (rel_iqr >= kIqrWarnThreshold) {
    warn("This could indicate system fluctuation.");
  }
}

std::vector<double> Measurement::times() const {
  std::vector<double> out(raw_times_.size());
  for (size_t i = 0; i < out.size(); ++i) out[i] = raw_times_[i] / static_cast<double>(number_per_run_);
  return out;
}

double Measurement::quantile(double q) const {
  EMBER_CHECK(q >= 0 && q <= 1, ValueError, "quantile: q must be in [0, 1], got ", q);
  return quantile_of(sorted_, q);
}

int Measurement::significant_figures() const {
  // The interquartile points only, so that the tails do not dominate; z = 1.645 (90%).
  size_t n = sorted_.size();
  size_t lo = n / 4;
  size_t hi = static_cast<size_t>(std::ceil(3.0 * static_cast<double>(n) / 4.0));
  double k = static_cast<double>(hi - lo);
  double mean = std::accumulate(sorted_.begin() + lo, sorted_.begin() + hi, 0.0) / k;
  double var = 0;
  for (size_t i = lo; i < hi; ++i) var += (sorted_[i] - mean) * (sorted_[i] - mean);
  double ci = std::max(1.645 * std::sqrt(var / k) / std::sqrt(k), kMinConfidenceInterval);
  int figures = median_ > 0 ? static_cast<int>(std::floor(std::log10(median_ / ci))) : 1;
  return std::clamp(figures, 1, kMaxSignificantFigures);
}

std::string Measurement::to_string() const {
  size_t n = sorted_.size();
  auto [unit, scale] = select_unit(median_);
  std::string u = std::string(" ") + unit;
  std::string out = "<ember::benchmark::Measurement>\n" + task_spec_.summarize() + "\n";
  out += std::string("  ") + (n > 1 ? "Median: " : "") + format("%.2f", median_ / scale) + u + "\n";
  if (n >= 4) {
    out += "  IQR:    " + format("%.2f", iqr() / scale) + u + " (" + format("%.2f", p25_ / scale) + " to " +
           format("%.2f", p75_ / scale) + ")\n";
  }
  int threads = task_spec_.num_threads;
  out += "  " + std::to_string(n) + (n > 1 ? " measurements, " : " measurement, ") +
         std::to_string(number_per_run_) + (n > 1 ? " runs per measurement, " : " runs , ") +
         std::to_string(threads) + (threads > 1 ? " threads" : " thread");
  for (const auto& w : warnings_) out += "\n" + w;
  return out;
}

std::vector<Measurement> Measurement::merge(const std::vector<Measurement>& measurements) {
  EMBER_CHECK(!measurements.empty(), ValueError,
              "Measurement::merge needs at least one Measurement, got an empty list");
  std::vector<std::pair<TaskSpec, std::vector<double>>> groups;
  for (const auto& m : measurements) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == m.task_spec(); });
    if (it == groups.end()) {
      groups.emplace_back(m.task_spec(), std::vector<double>{});
      it = groups.end() - 1;
    }
    auto t = m.times();
    it->second.insert(it->second.end(), t.begin(), t.end());
  }
  std::vector<Measurement> out;
  out.reserve(groups.size());
  for (auto& [spec, times] : groups) out.emplace_back(1, std::move(times), spec);
  return out;
}

}  // namespace ember::benchmark
