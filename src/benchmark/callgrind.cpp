// Instruction counts with valgrind's callgrind, from inside the measured program: the process
// runs under `valgrind --tool=callgrind --collect-atstart=no --instr-atstart=no`, and
// collect_callgrind switches collection on around the measured loop with client requests
// (no-ops outside valgrind), dumps the counts (callgrind writes the file before the request
// returns), finds the dump by the process id and reads it as callgrind_annotate does, so
// that names and counts match what ember.utils.benchmark reports for the same code.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "benchmark/timer_support.h"
#include "ember/benchmark.h"
#include "ember/error.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>) && defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#include <valgrind/callgrind.h>
#define EMBER_BENCHMARK_HAVE_CALLGRIND 1
#endif
#endif
#ifndef EMBER_BENCHMARK_HAVE_CALLGRIND
#define EMBER_BENCHMARK_HAVE_CALLGRIND 0
#endif

namespace ember::benchmark {

// File-specific names: the ember target is a unity build.
namespace callgrind_impl {
namespace {

namespace fs = std::filesystem;

constexpr const char* kValgrindCommand = "valgrind --tool=callgrind --collect-atstart=no --instr-atstart=no";
constexpr const char* kDumpTrigger = "ember-benchmark";

// ---------------------------------------------------------------- noise

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// CPython internals whose counts vary between identical runs (ember.utils.benchmark's list).
const char* const kPythonNoise[] = {
    "lookdict", "unicodekeys_lookup", "dictkeys_generic_lookup", "dictkeys_stringlookup", "find_name_in_mro",
    "_PyType_Lookup", "_PyObject_Malloc", "_PyObject_Free", "pymalloc_", "_PyObject_GC_", "gc_collect",
    "visit_decref", "visit_reachable", "subtract_refs", "move_unreachable", "update_refs"};

std::string basename_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

size_t skip_chars(const std::string& s, size_t i, const char* chars) {
  size_t j = s.find_first_not_of(chars, i);
  return j == std::string::npos ? s.size() : j;
}

// python3.11, libpython3.11.so.1.0 (the regular expression (lib)?python[0-9.]*(\.so[0-9.]*)?).
bool is_python_object(const std::string& object) {
  size_t i = object.rfind("lib", 0) == 0 ? 3 : 0;
  if (object.compare(i, 6, "python") != 0) return false;
  i = skip_chars(object, i + 6, "0123456789.");
  if (i == object.size()) return true;
  if (object[i - 1] == '.' && object.compare(i, 2, "so") == 0) --i;  // the version's dot was .so's
  return object.compare(i, 3, ".so") == 0 && skip_chars(object, i + 3, "0123456789.") == object.size();
}

// The object of "name [object]", as a file name ("" if none).
std::string object_name(const std::string& function) {
  size_t open = function.rfind(" [");
  if (function.empty() || function.back() != ']' || open == std::string::npos) return "";
  return basename_of(function.substr(open + 2, function.size() - open - 3));
}

// Code known only by its address: "???:0x1234 [object]".
bool is_anonymous(const std::string& function) {
  if (function.rfind("???:0x", 0) != 0) return false;
  size_t end = skip_chars(function, 6, "0123456789abcdefABCDEF");
  return end > 6 && function.compare(end, 2, " [") == 0;
}

bool is_noise(const std::string& function) {
  for (const char* part : kPythonNoise)
    if (contains(function, part)) return true;
  std::string object = object_name(function);
  if (is_anonymous(function) && is_python_object(object)) return true;
  // OpenMP workers spin in a barrier until the next parallel region, for as long as the
  // scheduler makes them: with 2 threads these counts vary by 20% between runs, and nothing
  // else does. Debian's libgomp has no names for the spin loops; other builds call them so.
  if (object.rfind("libgomp", 0) == 0) {
    return is_anonymous(function) || contains(function, "barrier_wait") || contains(function, "do_spin") ||
           contains(function, "do_wait") || contains(function, "futex_wait");
  }
  return false;
}

// ---------------------------------------------------------------- reading callgrind output

struct ParsedCounts {
  FunctionCounts inclusive, exclusive;
};

// callgrind_annotate's reading of the format (version 1): costs per "file:function", the file
// being the one of the latest fl=, fi= or fe= line; call costs count toward the caller's
// inclusive cost, and a called function's inclusive cost is the sum of the calls to it. One
// departure: the cost of a call in progress when collection started (calls=0) is a call cost
// here too, so that exclusive counts add up to the instructions collected.
ParsedCounts parse_callgrind(std::istream& in, const std::string& path) {
  std::string cwd_prefix = fs::current_path().string() + "/";  // callgrind_annotate strips it
  auto strip_cwd = [&](std::string f) { return f.rfind(cwd_prefix, 0) == 0 ? f.substr(cwd_prefix.size()) : f; };
  auto fail = [&](const std::string& why) { EMBER_FAIL(RuntimeError, "read_callgrind_out: ", path, ": ", why); };

  int positions = 1;
  size_t ir = 0;
  bool header_done = false;
  std::string line;
  while (!header_done && std::getline(in, line)) {
    if (line.rfind("positions:", 0) == 0) {
      bool has_line = contains(line, "line"), has_addr = contains(line, "addr") || contains(line, "instr");
      positions = std::max(1, static_cast<int>(has_line) + static_cast<int>(has_addr));
    } else if (line.rfind("events:", 0) == 0) {
      std::istringstream events(line.substr(7));
      std::string e;
      std::vector<std::string> names;
      while (events >> e) names.push_back(e);
      auto it = std::find(names.begin(), names.end(), "Ir");
      if (it == names.end()) fail("no Ir event in '" + line + "' (run callgrind with its default events)");
      ir = static_cast<size_t>(it - names.begin());
      header_done = true;
    }
  }
  if (!header_done) fail("no 'events:' line; this is not callgrind output");

  std::map<std::pair<std::string, std::string>, std::string> names;  // (table, id) -> name
  auto uncompress = [&](const std::string& table, const std::string& spec) -> std::string {
    if (spec.empty() || spec[0] != '(') return spec;
    size_t close = spec.find(')');
    if (close == std::string::npos) return spec;
    std::string id = spec.substr(1, close - 1);
    size_t start = spec.find_first_not_of(" \t", close + 1);
    if (start == std::string::npos) return names[{table, id}];
    return names[{table, id}] = spec.substr(start);
  };

  std::string file, fn, object, name, cfile, cname;
  bool have_name = false;
  bool pending_call = false;
  std::unordered_map<std::string, int64_t> self_cost, inclusive_cost, called_cost;
  std::unordered_map<std::string, std::string> object_of_name;
  int64_t summary = 0, totals = 0;

  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    char c = line[0];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '*') {
      std::istringstream tokens(line);
      std::string token;
      for (int i = 0; i < positions && (tokens >> token); ++i) {
      }
      int64_t cost = 0;
      for (size_t i = 0; i <= ir && (tokens >> token); ++i)
        if (i == ir) cost = std::strtoll(token.c_str(), nullptr, 10);
      if (!have_name) continue;
      if (pending_call) {
        called_cost[cname] += cost;
        inclusive_cost[name] += cost;
        pending_call = false;
      } else {
        self_cost[name] += cost;
        inclusive_cost[name] += cost;
      }
    } else if (line.rfind("fn=", 0) == 0) {
      fn = uncompress("fn", line.substr(3));
      name = file + ":" + fn;
      have_name = true;
      object_of_name[name] = object;
    } else if (line.rfind("ob=", 0) == 0) {
      object = uncompress("ob", line.substr(3));
    } else if (line.rfind("fl=", 0) == 0) {
      file = strip_cwd(uncompress("fl", line.substr(3)));
    } else if (line.rfind("fi=", 0) == 0 || line.rfind("fe=", 0) == 0) {
      file = strip_cwd(uncompress("fl", line.substr(3)));
      name = file + ":" + fn;  // inlined code counts under its own file
    } else if (line.rfind("cob=", 0) == 0) {
      uncompress("ob", line.substr(4));
    } else if (line.rfind("cfi=", 0) == 0 || line.rfind("cfl=", 0) == 0) {
      cfile = uncompress("fl", line.substr(4));
    } else if (line.rfind("cfn=", 0) == 0) {
      cname = (cfile.empty() ? file : cfile) + ":" + uncompress("fn", line.substr(4));
      cfile.clear();
    } else if (line.rfind("calls=", 0) == 0) {
      // calls=0 is a call that was in progress when collection started; callgrind_annotate
      // reads its cost as the caller's own instructions, which counts them twice.
      pending_call = true;
    } else if (line.rfind("jfi=", 0) == 0) {
      uncompress("fl", line.substr(4));
    } else if (line.rfind("jfn=", 0) == 0) {
      uncompress("fn", line.substr(4));
    } else if (line.rfind("summary:", 0) == 0 || line.rfind("totals:", 0) == 0) {
      std::istringstream tokens(line.substr(line.find(':') + 1));
      std::string token;
      int64_t v = 0;
      for (size_t i = 0; i <= ir && (tokens >> token); ++i)
        if (i == ir) v = std::strtoll(token.c_str(), nullptr, 10);
      (line[0] == 's' ? summary : totals) = v;
    }
    // Other lines (jump=, jcnd=, ...) carry nothing callgrind_annotate counts.
  }
  for (const auto& [called, cost] : called_cost) inclusive_cost[called] = cost;
  int64_t program_total = summary ? summary : totals;

  auto counts = [&](const std::unordered_map<std::string, int64_t>& costs, bool inclusive) {
    std::vector<FunctionCount> out;
    for (const auto& [n, cost] : costs) {
      if (cost == 0) continue;
      auto obj = object_of_name.find(n);
      std::string full = n + (obj != object_of_name.end() && !obj->second.empty() ? " [" + obj->second + "]" : "");
      // With the collection toggled mid-run, callgrind adds top-level entries that repeat the
      // total (ember.utils.benchmark drops them too).
      if (inclusive && cost == program_total && contains(full, "???:0x")) continue;
      out.push_back({cost, std::move(full)});
    }
    return FunctionCounts(std::move(out), inclusive);
  };
  return {counts(inclusive_cost, true), counts(self_cost, false)};
}

ParsedCounts parse_callgrind_file(const std::string& path) {
  std::ifstream in(path);
  EMBER_CHECK(in.good(), RuntimeError, "read_callgrind_out: cannot open ", path);
  return parse_callgrind(in, path);
}

// ---------------------------------------------------------------- the program and its dumps

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    if (!dir.empty() && ::access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// This program's command line, quoted for a shell.
std::string own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string arg, out;
  while (std::getline(in, arg, '\0')) {
    bool plain = !arg.empty() && arg.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                       "0123456789_-+=/.,:@%") == std::string::npos;
    std::string quoted = "'";
    for (char ch : arg) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    out += (out.empty() ? "" : " ") + (plain ? arg : quoted + "'");
  }
  return out.empty() ? "<program> [args]" : out;
}

[[noreturn]] void fail_not_under_valgrind() {
  std::string msg = std::string("Timer::collect_callgrind: this process is not running under valgrind. Run it as\n  ") +
                    kValgrindCommand + " " + own_command_line();
  if (!on_path("valgrind"))
    msg += "\nvalgrind is not installed: install the Debian package `valgrind` (apt-get install valgrind).";
  EMBER_FAIL(RuntimeError, msg);
}

// The dumps of this process in the working directory (callgrind.out.<pid>.<n>), with what
// identifies a rewrite.
struct DumpState {
  fs::file_time_type mtime;
  uintmax_t size;
};

std::string dump_prefix() { return "callgrind.out." + std::to_string(::getpid()) + "."; }

std::map<std::string, DumpState> list_dumps() {
  std::map<std::string, DumpState> out;
  std::string prefix = dump_prefix();
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::current_path(), ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0 || name.size() == prefix.size() ||
        name.find_first_not_of("0123456789", prefix.size()) != std::string::npos)
      continue;
    out[entry.path().string()] = {entry.last_write_time(ec), entry.file_size(ec)};
  }
  return out;
}

bool has_trigger(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line) && line.rfind("events:", 0) != 0)
    if (line == std::string("desc: Trigger: Client Request: ") + kDumpTrigger) return true;
  return false;
}

// The dump written since `before`: the new (or rewritten) file of the highest number.
std::string find_new_dump(const std::map<std::string, DumpState>& before) {
  std::string newest;
  long long newest_n = -1;
  size_t prefix = dump_prefix().size();
  for (const auto& [path, state] : list_dumps()) {
    auto old = before.find(path);
    if (old != before.end() && old->second.mtime == state.mtime && old->second.size == state.size) continue;
    long long n = std::atoll(fs::path(path).filename().string().c_str() + prefix);
    if (n > newest_n) newest_n = n, newest = path;
  }
  EMBER_CHECK(!newest.empty() && has_trigger(newest), RuntimeError,
              "Timer::collect_callgrind: callgrind wrote no ", dump_prefix(), "<n> in ", fs::current_path().string(),
              ". collect_callgrind reads callgrind's default output files (callgrind.out.<pid> in the directory the "
              "program started in): run it without --callgrind-out-file, and do not change directory before "
              "collecting.");
  return newest;
}

// The measured loop; one function for the statement and the baseline, so that the two run the
// same instructions around the calls.
[[gnu::noinline]] void run_calls(const std::function<void()>& f, int64_t n) {
  for (int64_t i = 0; i < n; ++i) f();
}

}  // namespace
}  // namespace callgrind_impl

// ---------------------------------------------------------------- FunctionCounts

FunctionCounts::FunctionCounts(std::vector<FunctionCount> counts, bool inclusive)
    : data_(std::move(counts)), inclusive_(inclusive) {
  std::sort(data_.begin(), data_.end(), [](const FunctionCount& a, const FunctionCount& b) {
    return a.count != b.count ? a.count > b.count : a.function > b.function;
  });
}

int64_t FunctionCounts::sum() const {
  int64_t total = 0;
  for (const auto& fc : data_) total += fc.count;
  return total;
}

FunctionCounts FunctionCounts::merge(const FunctionCounts& other, int sign) const {
  EMBER_CHECK(inclusive_ == other.inclusive_, ValueError,
              "FunctionCounts: cannot merge inclusive and exclusive counts");
  std::map<std::string, int64_t> counts;
  for (const auto& fc : data_) counts[fc.function] += fc.count;
  for (const auto& fc : other.data_) counts[fc.function] += sign * fc.count;
  std::vector<FunctionCount> out;
  for (auto& [function, count] : counts)
    if (count) out.push_back({count, function});
  return FunctionCounts(std::move(out), inclusive_);
}

FunctionCounts FunctionCounts::operator+(const FunctionCounts& other) const { return merge(other, 1); }
FunctionCounts FunctionCounts::operator-(const FunctionCounts& other) const { return merge(other, -1); }

FunctionCounts FunctionCounts::operator*(double factor) const {
  std::vector<FunctionCount> out;
  for (const auto& fc : data_) {
    auto count = static_cast<int64_t>(static_cast<double>(fc.count) * factor);
    if (count) out.push_back({count, fc.function});
  }
  return FunctionCounts(std::move(out), inclusive_);
}

FunctionCounts FunctionCounts::filter(const std::function<bool(const std::string&)>& keep) const {
  std::vector<FunctionCount> out;
  for (const auto& fc : data_)
    if (keep(fc.function)) out.push_back(fc);
  return FunctionCounts(std::move(out), inclusive_);
}

FunctionCounts FunctionCounts::transform(const std::function<std::string(const std::string&)>& rename) const {
  std::map<std::string, int64_t> counts;
  for (const auto& fc : data_) counts[rename(fc.function)] += fc.count;
  std::vector<FunctionCount> out;
  for (auto& [function, count] : counts)
    if (count) out.push_back({count, function});
  return FunctionCounts(std::move(out), inclusive_);
}

FunctionCounts FunctionCounts::denoise(int64_t min_count) const {
  std::vector<FunctionCount> out;
  for (const auto& fc : data_)
    if (!callgrind_impl::is_noise(fc.function) && std::abs(fc.count) >= min_count) out.push_back(fc);
  return FunctionCounts(std::move(out), inclusive_);
}

std::string FunctionCounts::to_string(int linewidth, bool truncate_rows) const {
  size_t count_len = 1;
  for (const auto& fc : data_) count_len = std::max(count_len, std::to_string(fc.count).size());
  size_t fn_len = static_cast<size_t>(std::max<long long>(linewidth - static_cast<long long>(count_len) - 4, 40));
  std::vector<std::string> lines;
  for (const auto& fc : data_) {
    std::string fn = fc.function;
    if (fn.size() > fn_len) {
      size_t left = (fn_len - 5) / 2;
      fn = fn.substr(0, left) + " ... " + fn.substr(fn.size() - (fn_len - left - 5));
    }
    std::string count = std::to_string(fc.count);
    lines.push_back("  " + std::string(count_len - count.size(), ' ') + count + "  " + fn);
  }
  if (truncate_rows && lines.size() > 18) {
    std::vector<std::string> shown(lines.begin(), lines.begin() + 9);
    shown.push_back(std::string(count_len - 1, ' ') + "...");
    shown.insert(shown.end(), lines.end() - 9, lines.end());
    lines = std::move(shown);
  }
  if (!inclusive_) {
    lines.emplace_back();
    lines.push_back("Total: " + std::to_string(sum()));
  }
  std::string out = "<ember::benchmark::FunctionCounts>";
  for (const auto& l : lines) out += "\n" + l;
  return out;
}

// ---------------------------------------------------------------- CallgrindStats

int64_t CallgrindStats::counts(bool denoise) const {
  return denoise ? stmt_exclusive_stats.denoise().sum() : stmt_exclusive_stats.sum();
}

FunctionCounts CallgrindStats::delta(const CallgrindStats& other, bool inclusive) const {
  return stats(inclusive) - other.stats(inclusive);
}

namespace callgrind_impl {
namespace {

// "/a/b/src/ops/x.cpp:f(int) [/a/b/lib/libember.so]" -> "src/ops/x.cpp:f(int) [libember.so]".
std::string standardize(std::string function) {
  std::string suffix;
  size_t open = function.rfind('[');
  if (!function.empty() && function.back() == ']' && open != std::string::npos && open > 0 &&
      std::isspace(static_cast<unsigned char>(function[open - 1])) &&
      function.find_first_of("[]", open + 1) == function.size() - 1) {
    suffix = " [" + basename_of(function.substr(open + 1, function.size() - open - 2)) + "]";
    function.resize(open - 1);
  }
  size_t colon = function.find(':');
  if (colon != std::string::npos) {
    std::string path = function.substr(0, colon);
    if (path.find('/') != std::string::npos) {
      static const char* const roots[] = {"src",     "include", "python",  "tests",  "benchmarks",
                                          "Python",  "Objects", "Modules", "Include", "Parser"};
      std::string kept = basename_of(path);
      bool found = false;
      for (size_t i = 0; i < path.size() && !found; ++i) {
        if (i != 0 && path[i - 1] != '/') continue;
        for (const char* root : roots) {
          std::string r = std::string(root) + "/";
          if (path.compare(i, r.size(), r) == 0) {
            kept = path.substr(i);
            found = true;
            break;
          }
        }
      }
      function = kept + function.substr(colon);
    }
  }
  return function + suffix;
}

}  // namespace
}  // namespace callgrind_impl

CallgrindStats CallgrindStats::as_standardized() const {
  auto strip = [](const FunctionCounts& c) { return c.transform(callgrind_impl::standardize); };
  return {task_spec,
          number_per_run,
          strip(baseline_inclusive_stats),
          strip(baseline_exclusive_stats),
          strip(stmt_inclusive_stats),
          strip(stmt_exclusive_stats)};
}

std::string CallgrindStats::to_string() const {
  auto right = [](int64_t v, size_t width) {
    std::string s = std::to_string(v);
    return std::string(width > s.size() ? width - s.size() : 0, ' ') + s;
  };
  const FunctionCounts& base = baseline_exclusive_stats;
  int threads = task_spec.num_threads;
  return "<ember::benchmark::CallgrindStats>\n" + task_spec.summarize() + "\n" + std::string(27, ' ') + "All" +
         std::string(10, ' ') + "Noisy symbols removed\n" + "    Instructions: " + right(counts(false), 12) +
         std::string(15, ' ') + right(counts(true), 12) + "\n" + "    Baseline:     " + right(base.sum(), 12) +
         std::string(15, ' ') + right(base.denoise().sum(), 12) + "\n" + std::to_string(number_per_run) +
         " runs per measurement, " + std::to_string(threads) + (threads > 1 ? " threads" : " thread");
}

FunctionCounts read_callgrind_out(const std::string& path, bool inclusive) {
  auto parsed = callgrind_impl::parse_callgrind_file(path);
  return inclusive ? parsed.inclusive : parsed.exclusive;
}

// ---------------------------------------------------------------- Timer::collect_callgrind

CallgrindStats Timer::collect_callgrind(int64_t number, bool collect_baseline) {
  using namespace callgrind_impl;
  EMBER_CHECK(number >= 1, ValueError, "collect_callgrind: number must be a positive integer, got ",
              static_cast<long long>(number));
#if !EMBER_BENCHMARK_HAVE_CALLGRIND
  EMBER_FAIL(RuntimeError,
             "Timer::collect_callgrind: ember was built without valgrind/callgrind.h (or not for Linux on x86-64 or "
             "AArch64); install the Debian package `valgrind` and rebuild ember.");
#else
  if (!RUNNING_ON_VALGRIND) fail_not_under_valgrind();
  detail::ThreadGuard threads(task_spec_.num_threads);
  if (setup_) {
    try {
      setup_();
    } catch (...) {
      detail::rethrow_with_context(task_spec_, "setup");
    }
  }
  struct Instrumentation {
    Instrumentation() { CALLGRIND_START_INSTRUMENTATION; }
    ~Instrumentation() { CALLGRIND_STOP_INSTRUMENTATION; }
  } instrumentation;
  try {
    run_calls(stmt_, std::min<int64_t>(number, 10));  // warm-up: lazy binding, first-touch, caches
  } catch (...) {
    detail::rethrow_with_context(task_spec_, "statement");
  }
  // Counts only `number` calls of f, then writes them to the next callgrind.out.<pid>.<n>.
  auto collect = [&](const std::function<void()>& f) {
    auto before = list_dumps();
    CALLGRIND_ZERO_STATS;
    CALLGRIND_TOGGLE_COLLECT;
    try {
      run_calls(f, number);
    } catch (...) {
      CALLGRIND_TOGGLE_COLLECT;
      detail::rethrow_with_context(task_spec_, "statement");
    }
    CALLGRIND_TOGGLE_COLLECT;
    CALLGRIND_DUMP_STATS_AT(kDumpTrigger);
    std::string path = find_new_dump(before);
    ParsedCounts counts = parse_callgrind_file(path);
    std::error_code ec;
    fs::remove(path, ec);
    return counts;
  };
  ParsedCounts stmt = collect(stmt_);
  ParsedCounts baseline{FunctionCounts({}, true), FunctionCounts({}, false)};
  if (collect_baseline) baseline = collect([] {});
  return {task_spec_, number, baseline.inclusive, baseline.exclusive, stmt.inclusive, stmt.exclusive};
#endif
}

}  // namespace ember::benchmark
