// Compare: the layout of ember.utils.benchmark.compare (itself torch.utils.benchmark's), ported
// step for step so that equal measurements print the same text in C++ and Python: column
// widths, decimals, Python's str.center, the colour thresholds and the footers.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <limits>
#include <optional>
#include <set>
#include <tuple>

#include "ember/benchmark.h"
#include "ember/error.h"

namespace ember::benchmark {

// A file-specific namespace: the ember target is a unity build, and these short names would
// collide with helpers of other files.
namespace compare_impl {
namespace {

const char* const kBest = "\033[92m";
const char* const kGood = "\033[34m";
const char* const kBad = "\033[2m\033[91m";
const char* const kVeryBad = "\033[31m";
const char* const kBold = "\033[1m";
const char* const kTerminate = "\033[0m";

enum class Colors { kNone, kColumnwise, kRowwise };

using Cell = const Measurement*;  // nullptr: no measurement for this row and column

// Python's len(): code points, so that non-ASCII labels pad as in Python.
size_t text_length(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
}

std::string ljust(const std::string& s, size_t width, char fill = ' ') {
  size_t n = text_length(s);
  return n >= width ? s : s + std::string(width - n, fill);
}

// Python's str.center: the odd padding character goes left when the width is odd.
std::string center(const std::string& s, size_t width, char fill = ' ') {
  size_t n = text_length(s);
  if (n >= width) return s;
  size_t margin = width - n;
  size_t left = margin / 2 + (margin & width & 1);
  return std::string(left, fill) + s + std::string(margin - left, fill);
}

std::string printf_string(const char* spec, int width, int precision, double v) {
  char buf[128];
  std::snprintf(buf, sizeof buf, spec, width, precision, v);
  return buf;
}

int leading_digits(double value) { return value > 0 ? static_cast<int>(std::ceil(std::log10(value))) : 1; }

std::string unit_to_english(const std::string& unit) {
  if (unit == "ns") return "nanosecond";
  if (unit == "us") return "microsecond";
  if (unit == "ms") return "millisecond";
  return "second";
}

// Python's Measurement.env: a missing env has a name of its own.
std::string env_name(const Measurement& m) {
  return m.task_spec().env.empty() ? "Unspecified env" : m.task_spec().env;
}

// Python uses "[Unknown]" for a statement without text; a C++ callable has none by default and
// is "[callable]" everywhere in ember::benchmark.
std::string row_name(const Measurement& m) {
  const TaskSpec& t = m.task_spec();
  if (!t.sub_label.empty()) return t.sub_label;
  return t.stmt.empty() ? "[callable]" : t.stmt;
}

// One column's cells, formatted with a common width and number of decimals.
class Column {
 public:
  Column(std::vector<std::vector<Cell>> groups, double time_scale, bool trim, bool highlight)
      : groups_(std::move(groups)), trim_(trim) {
    int unit_digits = std::numeric_limits<int>::min();
    int decimals = trim ? std::numeric_limits<int>::max() : 1;
    bool any_warnings = false;
    for (const auto& group : groups_) {
      for (Cell m : group) {
        if (!m) continue;
        int digits = leading_digits(m->median() / time_scale);
        unit_digits = std::max(unit_digits, digits);
        if (trim) decimals = std::min(decimals, std::max(m->significant_figures() - digits, 0));
        any_warnings = any_warnings || m->has_warnings();
      }
    }
    highlight_ = highlight && any_warnings;
    decimals_ = decimals;
    // Cells far below the table's unit have negative digits; Python then formats with a spec
    // like ">-6.1f", which reads the minus as the sign option: the width is the magnitude.
    width_ = std::abs(unit_digits + decimals + (decimals ? 1 : 0));
    suffix_width_ = highlight_ ? 7 : 0;
  }

  const std::vector<Cell>& group(size_t i) const { return groups_[i]; }

  std::string format(std::optional<double> value, int sigfigs, std::optional<double> spread) const {
    if (!value) return std::string(text_length(format(1.0, sigfigs, std::nullopt)), ' ');
    double v = trim_ ? trim_sigfig(*value, sigfigs) : *value;
    std::string suffix;
    if (highlight_ && spread) suffix = " (! " + printf_string("%*.*f", 0, 0, *spread * 100) + "%)";
    size_t pad = suffix_width_ > suffix.size() ? suffix_width_ - suffix.size() : 0;  // right-aligned
    return printf_string("%*.*f", width_, decimals_, v) + std::string(pad, ' ') + suffix;
  }

 private:
  std::vector<std::vector<Cell>> groups_;  // the column's cells, per thread-count block
  bool trim_;
  bool highlight_ = false;
  int width_ = 0, decimals_ = 0;
  size_t suffix_width_ = 0;
};

class Row {
 public:
  Row(std::vector<Cell> cells, size_t group, bool show_env, size_t env_width, double time_scale, Colors colors,
      std::optional<int> num_threads)
      : cells_(std::move(cells)), group_(group), show_env_(show_env), env_width_(env_width),
        time_scale_(time_scale), colors_(colors), num_threads_(num_threads) {}

  void set_columns(const std::vector<Column>* columns) { columns_ = columns; }

  std::vector<std::string> strings() const {
    Cell first = *std::find_if(cells_.begin(), cells_.end(), [](Cell m) { return m != nullptr; });
    std::string env = show_env_ ? "(" + env_name(*first) + ")" : "";
    std::vector<std::string> out{"  " + ljust(env, env_width_ + 4) + row_name(*first)};
    for (size_t j = 0; j < cells_.size(); ++j) {
      Cell m = cells_[j];
      const Column& col = (*columns_)[j];
      if (!m) {
        out.push_back(col.format(std::nullopt, 1, std::nullopt));
      } else {
        std::optional<double> spread;
        if (m->has_warnings()) spread = m->iqr() / m->median();
        out.push_back(col.format(m->median() / time_scale_, m->significant_figures(), spread));
      }
    }
    return out;
  }

  // The "N threads: ----" line above the first row of a thread-count block.
  std::optional<std::string> separator(size_t width) const {
    if (!num_threads_) return std::nullopt;
    return ljust(std::to_string(*num_threads_) + " threads: ", width, '-');
  }

  std::vector<std::string> finalize(const std::vector<std::string>& strings, const std::vector<size_t>& widths) const {
    std::vector<std::optional<double>> bests(cells_.size());
    if (colors_ == Colors::kRowwise) {
      double best = std::numeric_limits<double>::infinity();
      for (Cell m : cells_)
        if (m) best = std::min(best, m->median());
      std::fill(bests.begin(), bests.end(), best);
    } else if (colors_ == Colors::kColumnwise) {
      for (size_t j = 0; j < cells_.size(); ++j) {
        for (Cell m : (*columns_)[j].group(group_))
          if (m && (!bests[j] || m->median() < *bests[j])) bests[j] = m->median();
      }
    }
    std::vector<std::string> out{ljust(strings[0], widths[0])};
    for (size_t j = 0; j < cells_.size(); ++j) {
      std::string s = center(strings[j + 1], widths[j + 1]);
      if (bests[j] && cells_[j]) s = color(s, cells_[j]->median(), *bests[j]);
      out.push_back(std::move(s));
    }
    return out;
  }

 private:
  static std::string color(const std::string& segment, double value, double best) {
    std::string end = std::string(kTerminate) + kTerminate;
    if (value <= best * 1.01 || value <= best + 100e-9) return kBest + std::string(kBold) + segment + end;
    if (value <= best * 1.1) return kGood + std::string(kBold) + segment + end;
    if (value >= best * 5) return kVeryBad + std::string(kBold) + segment + end;
    if (value >= best * 2) return kBad + segment + end;
    return segment;
  }

  std::vector<Cell> cells_;
  size_t group_;
  bool show_env_;
  size_t env_width_;
  double time_scale_;
  Colors colors_;
  std::optional<int> num_threads_;  // set on the first row of a thread-count block
  const std::vector<Column>* columns_ = nullptr;
};

struct RowKey {
  int num_threads;
  std::string env;
  std::string name;
  bool operator==(const RowKey&) const = default;
};

class Table {
 public:
  Table(const std::vector<Cell>& results, Colors colors, bool trim, bool highlight)
      : results_(results), label_(results[0]->task_spec().label), highlight_(highlight) {
    double fastest = results[0]->median();
    for (Cell m : results) fastest = std::min(fastest, m->median());
    auto [unit, scale] = select_unit(fastest);
    time_unit_ = unit;
    time_scale_ = scale;

    std::vector<RowKey> row_keys;
    for (Cell m : results) {
      RowKey k = row_key(*m);
      if (std::find(row_keys.begin(), row_keys.end(), k) == row_keys.end()) row_keys.push_back(k);
    }
    // Blocks of equal thread count and env; a stable sort keeps the statements' order.
    std::stable_sort(row_keys.begin(), row_keys.end(), [](const RowKey& a, const RowKey& b) {
      return std::tie(a.num_threads, a.env) < std::tie(b.num_threads, b.env);
    });
    for (Cell m : results) {
      const std::string& d = m->task_spec().description;
      if (std::find(column_keys_.begin(), column_keys_.end(), d) == column_keys_.end()) column_keys_.push_back(d);
    }
    std::vector<std::vector<Cell>> grid(row_keys.size(), std::vector<Cell>(column_keys_.size(), nullptr));
    for (Cell m : results) {
      size_t i = std::find(row_keys.begin(), row_keys.end(), row_key(*m)) - row_keys.begin();
      size_t j = std::find(column_keys_.begin(), column_keys_.end(), m->task_spec().description) - column_keys_.begin();
      grid[i][j] = m;
    }

    std::set<std::string> envs;
    for (Cell m : results) envs.insert(env_name(*m));
    bool render_env = envs.size() > 1;
    size_t env_width = 0;
    if (render_env)
      for (const auto& e : envs) env_width = std::max(env_width, text_length(e));

    std::vector<std::vector<std::vector<Cell>>> groups;  // per block, its rows' cells
    std::optional<int> prior_threads;
    std::optional<std::string> prior_env;
    for (size_t i = 0; i < row_keys.size(); ++i) {
      const RowKey& k = row_keys[i];
      bool new_block = k.num_threads != prior_threads;
      if (new_block) {
        prior_threads = k.num_threads;
        prior_env.reset();
        groups.emplace_back();
      }
      rows_.emplace_back(grid[i], groups.size() - 1, render_env && k.env != prior_env, env_width, time_scale_, colors,
                         new_block ? std::optional<int>(k.num_threads) : std::nullopt);
      groups.back().push_back(grid[i]);
      prior_env = k.env;
    }
    for (size_t j = 0; j < column_keys_.size(); ++j) {
      std::vector<std::vector<Cell>> column_groups;
      for (const auto& g : groups) {
        std::vector<Cell> cells;
        for (const auto& row : g) cells.push_back(row[j]);
        column_groups.push_back(std::move(cells));
      }
      columns_.emplace_back(std::move(column_groups), time_scale_, trim, highlight);
    }
    for (auto& r : rows_) r.set_columns(&columns_);
  }

  std::string render() const {
    std::vector<std::string> header{""};
    header.insert(header.end(), column_keys_.begin(), column_keys_.end());
    std::vector<std::vector<std::string>> body;
    for (const auto& r : rows_) body.push_back(r.strings());
    std::vector<size_t> widths(header.size());
    for (size_t j = 0; j < header.size(); ++j) {
      widths[j] = text_length(header[j]);
      for (const auto& strings : body) widths[j] = std::max(widths[j], text_length(strings[j]));
    }
    auto join = [](const std::vector<std::string>& parts) {
      std::string s;
      for (size_t j = 0; j < parts.size(); ++j) s += (j ? "  |  " : "") + parts[j];
      return s;
    };
    std::vector<std::string> centered;
    for (size_t j = 0; j < header.size(); ++j) centered.push_back(center(header[j], widths[j]));
    std::vector<std::string> lines{join(centered)};
    size_t width = text_length(lines[0]);
    for (size_t i = 0; i < rows_.size(); ++i) {
      if (auto sep = rows_[i].separator(width)) lines.push_back(*sep);
      lines.push_back(join(rows_[i].finalize(body[i], widths)));
    }
    std::string text = "[" + center(" " + label_ + " ", width - 2, '-') + "]\n";
    for (size_t i = 0; i < lines.size(); ++i) text += (i ? "\n" : "") + lines[i];
    text += "\n\nTimes are in " + unit_to_english(time_unit_) + "s (" + time_unit_ + ").\n";
    bool any_warnings = std::any_of(results_.begin(), results_.end(), [](Cell m) { return m->has_warnings(); });
    if (highlight_ && any_warnings)
      text += "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n";
    return text;
  }

 private:
  static RowKey row_key(const Measurement& m) { return {m.task_spec().num_threads, env_name(m), row_name(m)}; }

  std::vector<Cell> results_;
  std::string label_;
  bool highlight_;
  std::string time_unit_;
  double time_scale_ = 1;
  std::vector<std::string> column_keys_;
  std::vector<Row> rows_;
  std::vector<Column> columns_;
};

}  // namespace
}  // namespace compare_impl

double trim_sigfig(double x, int n) {
  EMBER_CHECK(n >= 1, ValueError, "trim_sigfig: n must be a positive integer, got ", n);
  if (x == 0 || !std::isfinite(x)) return x;
  double magnitude = std::ceil(std::log10(std::abs(x)));
  double scale = std::pow(10.0, magnitude - n);
  // nearbyint rounds half to even, as Python's round().
  return std::nearbyint(x / scale) * scale;
}

Compare::Compare(std::vector<Measurement> results) {
  EMBER_CHECK(!results.empty(), ValueError, "Compare needs at least one Measurement, got an empty list");
  extend_results(results);
}

void Compare::extend_results(const std::vector<Measurement>& results) {
  results_.insert(results_.end(), results.begin(), results.end());
}

std::string Compare::to_string() const {
  using namespace compare_impl;
  std::vector<Measurement> merged = Measurement::merge(results_);
  std::vector<std::pair<std::string, std::vector<Cell>>> by_label;  // first-seen order
  for (const Measurement& m : merged) {
    const std::string& label = m.task_spec().label;
    auto it = std::find_if(by_label.begin(), by_label.end(), [&](const auto& g) { return g.first == label; });
    if (it == by_label.end()) {
      by_label.emplace_back(label, std::vector<Cell>{});
      it = by_label.end() - 1;
    }
    it->second.push_back(&m);
  }
  Colors colors = colorize_ == Colorize::kRowwise      ? Colors::kRowwise
                  : colorize_ == Colorize::kColumnwise ? Colors::kColumnwise
                                                       : Colors::kNone;
  std::string out;
  for (size_t i = 0; i < by_label.size(); ++i) {
    out += (i ? "\n" : "") + Table(by_label[i].second, colors, trim_significant_figures_, highlight_warnings_).render();
  }
  return out;
}

void Compare::print() const { std::cout << to_string() << "\n"; }

}  // namespace ember::benchmark
