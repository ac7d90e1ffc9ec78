// Fuzzer: the algorithm of ember.utils.benchmark.fuzzer (draw every parameter, resolve
// aliases, redraw until the constraints and the tensors' limits hold, build the tensors) on a
// random stream of its own: mt19937_64, whose output the C++ standard fixes, with the integer,
// real and permutation draws written here rather than std::*_distribution, whose results
// differ between standard libraries. Same seed, same cases, on any platform.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <set>

#include "ember/benchmark.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "ember/random.h"

namespace ember::benchmark {

namespace detail {

class FuzzerRng {
 public:
  explicit FuzzerRng(uint64_t seed) : engine_(seed) {}

  uint64_t bits() { return engine_(); }
  // Uniform on [0, 1), from the top 53 bits.
  double uniform() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  // Uniform on [lo, hi], without modulo bias.
  int64_t integer(int64_t lo, int64_t hi) {
    uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1;
    if (range == 0) return static_cast<int64_t>(engine_());  // all 2**64 values
    uint64_t limit = UINT64_MAX - UINT64_MAX % range;
    uint64_t r;
    do r = engine_();
    while (r >= limit);
    return static_cast<int64_t>(static_cast<uint64_t>(lo) + r % range);
  }
  // A random order of 0 .. n-1 (Fisher-Yates).
  std::vector<int64_t> permutation(int64_t n) {
    std::vector<int64_t> p(static_cast<size_t>(n));
    std::iota(p.begin(), p.end(), 0);
    for (int64_t i = n - 1; i > 0; --i) std::swap(p[static_cast<size_t>(i)], p[static_cast<size_t>(integer(0, i))]);
    return p;
  }

 private:
  std::mt19937_64 engine_;
};

}  // namespace detail

// File-specific names: the ember target is a unity build.
namespace fuzzer_impl {
namespace {

using detail::FuzzerRng;

// A draw before aliases are resolved: a value, or the name of the parameter it aliases.
struct Draw {
  ParamValue value = 0;
  std::string alias_to;
};

std::string join_names(const std::vector<std::string>& names) {
  std::string s = "[";
  for (size_t i = 0; i < names.size(); ++i) s += (i ? ", " : "") + names[i];
  return s + "]";
}

std::vector<std::string> duplicates(const std::vector<std::string>& names) {
  std::set<std::string> seen, dup;
  for (const auto& n : names)
    if (!seen.insert(n).second) dup.insert(n);
  return {dup.begin(), dup.end()};
}

// a * b, saturating at INT64_MAX: a size past it is over any limit.
int64_t saturating_mul(int64_t a, int64_t b) {
  int64_t out;
  return __builtin_mul_overflow(a, b, &out) ? std::numeric_limits<int64_t>::max() : out;
}

int64_t product(const std::vector<int64_t>& v, int64_t base = 1) {
  for (int64_t x : v) base = saturating_mul(base, x);
  return base;
}

// Sizes and steps of a tensor for these parameters: truncated (or padded with 1s) to the
// dim_parameter's value.
struct Layout {
  std::vector<int64_t> size, steps, allocation;
};

Layout resolve_layout(const std::string& name, const std::vector<FuzzedDim>& size, const FuzzedTensorOptions& options,
                      const FuzzerParams& params) {
  int64_t dim = static_cast<int64_t>(size.size());
  if (!options.dim_parameter.empty()) {
    dim = params.integer(options.dim_parameter);
    EMBER_CHECK(dim >= 0, ValueError, "FuzzedTensor '", name, "': dim_parameter '", options.dim_parameter,
                "' is ", dim, "; a number of dims cannot be negative");
  }
  auto resolve = [&](const std::vector<FuzzedDim>& dims) {
    std::vector<int64_t> out;
    for (size_t i = 0; i < dims.size() && static_cast<int64_t>(i) < dim; ++i)
      out.push_back(dims[i].parameter().empty() ? dims[i].size() : params.integer(dims[i].parameter()));
    out.resize(static_cast<size_t>(dim), 1);
    return out;
  };
  Layout l{resolve(size), resolve(options.steps), {}};
  for (size_t i = 0; i < l.size.size(); ++i) l.allocation.push_back(saturating_mul(l.size[i], l.steps[i]));
  return l;
}

bool within_limits(const Layout& l, const FuzzedTensorOptions& o) {
  int64_t numel = product(l.size);
  if (o.max_elements && numel > *o.max_elements) return false;
  if (o.min_elements && numel < *o.min_elements) return false;
  if (o.max_allocation_bytes &&
      product(l.allocation, static_cast<int64_t>(itemsize(o.dtype))) > *o.max_allocation_bytes)
    return false;
  return true;
}

Tensor default_tensor(IntArrayRef size, ScalarType dtype, Generator& gen) {
  if (is_floating_point(dtype) || is_complex(dtype)) return rand(size, &gen, dtype);
  if (dtype == kBool) return randint(0, 2, size, &gen, dtype);
  return randint(1, 127, size, &gen, dtype);
}

}  // namespace
}  // namespace fuzzer_impl

// ---------------------------------------------------------------- values and parameters

int64_t ParamValue::to_int() const {
  EMBER_CHECK(is_integer(), TypeError, "expected an integer parameter value, got ", to_string());
  return std::get<int64_t>(value_);
}

double ParamValue::to_double() const {
  return is_integer() ? static_cast<double>(std::get<int64_t>(value_)) : std::get<double>(value_);
}

std::string ParamValue::to_string() const {
  if (is_integer()) return std::to_string(std::get<int64_t>(value_));
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, std::get<double>(value_));  // shortest round trip
  return std::string(buf, r.ptr);
}

const ParamValue& FuzzerParams::at(const std::string& name) const {
  auto it = values_.find(name);
  EMBER_CHECK(it != values_.end(), ValueError, "FuzzerParams: no parameter named '", name, "'");
  return it->second;
}

int64_t FuzzerParams::integer(const std::string& name) const {
  const ParamValue& v = at(name);
  EMBER_CHECK(v.is_integer(), TypeError, "parameter '", name, "' is ", v.to_string(),
              ", not an integer (sizes, steps and dims must be integers)");
  return v.to_int();
}

FuzzedParameter::FuzzedParameter(std::string name, ParamValue minval, ParamValue maxval, std::string distribution,
                                 bool strict)
    : name_(std::move(name)), distribution_(std::move(distribution)), minval_(minval), maxval_(maxval),
      strict_(strict) {
  EMBER_CHECK(!name_.empty(), ValueError, "FuzzedParameter: name must be a non-empty string");
  EMBER_CHECK(distribution_ == "uniform" || distribution_ == "loguniform", ValueError, "FuzzedParameter '", name_,
              "': distribution must be 'uniform', 'loguniform' or a list of choices, got '", distribution_, "'");
  EMBER_CHECK(std::isfinite(minval_.to_double()) && std::isfinite(maxval_.to_double()), ValueError,
              "FuzzedParameter '", name_, "': minval and maxval must be finite, got ", minval_.to_string(), " and ",
              maxval_.to_string());
  EMBER_CHECK(minval_.to_double() <= maxval_.to_double(), ValueError, "FuzzedParameter '", name_, "': minval (",
              minval_.to_string(), ") > maxval (", maxval_.to_string(), ")");
  EMBER_CHECK(distribution_ != "loguniform" || minval_.to_double() > 0, ValueError, "FuzzedParameter '", name_,
              "': loguniform needs minval > 0, got ", minval_.to_string());
  EMBER_CHECK(distribution_ != "loguniform" || std::ceil(minval_.to_double()) <= std::floor(maxval_.to_double()),
              ValueError, "FuzzedParameter '", name_, "': loguniform draws integers, and [", minval_.to_string(), ", ",
              maxval_.to_string(), "] holds none");
}

FuzzedParameter::FuzzedParameter(std::string name, std::vector<FuzzedChoice> distribution, bool strict)
    : name_(std::move(name)), distribution_("choices"), choices_(std::move(distribution)), strict_(strict) {
  EMBER_CHECK(!name_.empty(), ValueError, "FuzzedParameter: name must be a non-empty string");
  EMBER_CHECK(!choices_.empty(), ValueError, "FuzzedParameter '", name_, "': the distribution has no choices");
  double total = 0;
  for (const auto& c : choices_) {
    EMBER_CHECK(c.probability >= 0, ValueError, "FuzzedParameter '", name_, "': probabilities cannot be negative, got ",
                c.probability);
    total += c.probability;
  }
  EMBER_CHECK(std::abs(total - 1) <= 1e-5, ValueError, "FuzzedParameter '", name_, "': probabilities sum to ", total,
              ", not 1");
  double cumulative = 0;
  for (const auto& c : choices_) cumulative_.push_back(cumulative += c.probability / total);
}

FuzzedTensor::FuzzedTensor(std::string name, std::vector<FuzzedDim> size, FuzzedTensorOptions options)
    : name_(std::move(name)), size_(std::move(size)), options_(std::move(options)) {
  EMBER_CHECK(!name_.empty(), ValueError, "FuzzedTensor: name must be a non-empty string");
  double p = options_.probability_contiguous;
  EMBER_CHECK(p >= 0 && p <= 1, ValueError, "FuzzedTensor '", name_, "': probability_contiguous must be in [0, 1], got ",
              p);
  EMBER_CHECK(options_.steps.empty() || options_.steps.size() == size_.size(), ValueError, "FuzzedTensor '", name_,
              "': steps (", static_cast<long long>(options_.steps.size()), " entries) and size (",
              static_cast<long long>(size_.size()), " entries) differ in length");
  EMBER_CHECK(!options_.min_elements || !options_.max_elements || *options_.min_elements <= *options_.max_elements,
              ValueError, "FuzzedTensor '", name_, "': min_elements (", options_.min_elements.value_or(0),
              ") > max_elements (", options_.max_elements.value_or(0), ")");
}

// ---------------------------------------------------------------- Fuzzer

Fuzzer::Fuzzer(std::vector<FuzzedParameter> parameters, std::vector<FuzzedTensor> tensors,
               std::vector<Constraint> constraints, std::optional<int64_t> seed)
    : parameters_(std::move(parameters)), tensors_(std::move(tensors)), constraints_(std::move(constraints)) {
  using namespace fuzzer_impl;
  seed_ = seed ? *seed : static_cast<int64_t>(std::random_device{}());
  EMBER_CHECK(seed_ >= 0, ValueError, "Fuzzer: seed must be a non-negative integer, got ", seed_);
  for (const auto& c : constraints_)
    EMBER_CHECK(static_cast<bool>(c), ValueError, "Fuzzer: constraints must be callables, got an empty std::function");

  std::vector<std::string> p_names, t_names;
  for (const auto& p : parameters_) p_names.push_back(p.name());
  for (const auto& t : tensors_) t_names.push_back(t.name());
  auto dup = duplicates(p_names);
  EMBER_CHECK(dup.empty(), ValueError, "Fuzzer: duplicate parameter names: ", join_names(dup));
  dup = duplicates(t_names);
  EMBER_CHECK(dup.empty(), ValueError, "Fuzzer: duplicate tensor names: ", join_names(dup));
  std::vector<std::string> both = p_names;
  both.insert(both.end(), t_names.begin(), t_names.end());
  dup = duplicates(both);
  EMBER_CHECK(dup.empty(), ValueError, "Fuzzer: duplicate names in parameters and tensors: ", join_names(dup));

  // Names that refer to parameters are checked here rather than when a case first draws them.
  std::set<std::string> known(p_names.begin(), p_names.end());
  for (const auto& p : parameters_) {
    for (const auto& c : p.choices_) {
      EMBER_CHECK(c.alias_to.empty() || known.count(c.alias_to), ValueError, "Fuzzer: parameter '", p.name(),
                  "' has a ParameterAlias to '", c.alias_to, "', which is not a parameter");
    }
  }
  for (const auto& t : tensors_) {
    auto check = [&](const std::vector<FuzzedDim>& dims) {
      for (const auto& d : dims)
        EMBER_CHECK(d.parameter().empty() || known.count(d.parameter()), ValueError, "FuzzedTensor '", t.name(),
                    "': no parameter named '", d.parameter(), "'");
    };
    check(t.size_);
    check(t.options_.steps);
    const std::string& dp = t.options_.dim_parameter;
    EMBER_CHECK(dp.empty() || known.count(dp), ValueError, "FuzzedTensor '", t.name(), "': dim_parameter '", dp,
                "' is not a parameter");
  }
}

double Fuzzer::rejection_rate() const {
  return total_generated_ ? static_cast<double>(rejections_) / static_cast<double>(total_generated_) : 0.0;
}

FuzzerParams Fuzzer::draw_params(detail::FuzzerRng& rng) {
  using namespace fuzzer_impl;
  auto sample = [&](const FuzzedParameter& p) -> Draw {
    if (p.distribution_ == "loguniform") {
      double v = std::exp2(rng.uniform(std::log2(p.minval_.to_double()), std::log2(p.maxval_.to_double())));
      double lo = std::ceil(p.minval_.to_double()), hi = std::floor(p.maxval_.to_double());
      return {static_cast<int64_t>(std::clamp(std::floor(v), lo, hi)), ""};
    }
    if (p.distribution_ == "uniform") {
      if (p.minval_.is_integer() && p.maxval_.is_integer()) {
        return {rng.integer(p.minval_.to_int(), p.maxval_.to_int()), ""};
      }
      return {rng.uniform(p.minval_.to_double(), p.maxval_.to_double()), ""};
    }
    double u = rng.uniform();
    size_t i = std::upper_bound(p.cumulative_.begin(), p.cumulative_.end(), u) - p.cumulative_.begin();
    const FuzzedChoice& c = p.choices_[std::min(i, p.choices_.size() - 1)];
    return {c.value, c.alias_to};
  };

  std::map<std::string, Draw> strict;
  for (int attempt = 0; attempt < kMaxTries; ++attempt) {
    std::map<std::string, Draw> draws;
    for (const auto& p : parameters_) {
      auto kept = strict.find(p.name());
      if (p.strict() && kept != strict.end()) {
        draws[p.name()] = kept->second;
      } else {
        draws[p.name()] = sample(p);
        if (p.strict()) strict[p.name()] = draws[p.name()];
      }
    }
    // Resolve aliases (which may point at aliases) until none is left or none moves: a cycle.
    while (true) {
      std::vector<std::string> pending;
      bool progress = false;
      for (auto& [name, d] : draws) {
        if (d.alias_to.empty()) continue;
        const Draw& target = draws.at(d.alias_to);
        if (target.alias_to.empty()) {
          d = Draw{target.value, ""};
          progress = true;
        } else {
          pending.push_back(name);
        }
      }
      if (pending.empty()) break;
      EMBER_CHECK(progress, ValueError, "Fuzzer: ParameterAlias cycle among parameters ", join_names(pending));
    }
    FuzzerParams params;
    for (const auto& [name, d] : draws) params.values_.emplace(name, d.value);

    ++total_generated_;
    bool ok = std::all_of(constraints_.begin(), constraints_.end(), [&](const Constraint& c) { return c(params); });
    for (size_t i = 0; ok && i < tensors_.size(); ++i) {
      const FuzzedTensor& t = tensors_[i];
      ok = within_limits(resolve_layout(t.name(), t.size_, t.options_, params), t.options_);
    }
    if (ok) return params;
    ++rejections_;
  }
  EMBER_FAIL(ValueError, "Fuzzer: no parameters met the constraints in ", kMaxTries,
             " tries; the constraints may be impossible to satisfy (check them, and the tensors' min_elements, "
             "max_elements and max_allocation_bytes, against the parameters' ranges)");
}

std::pair<Tensor, FuzzedTensorProperties> Fuzzer::make_tensor(const FuzzedTensor& spec, const FuzzerParams& params,
                                                              detail::FuzzerRng& rng, Generator& gen) {
  using namespace fuzzer_impl;
  const FuzzedTensorOptions& o = spec.options_;
  Layout l = resolve_layout(spec.name(), spec.size_, o, params);
  Tensor raw = o.tensor_constructor ? o.tensor_constructor(l.allocation, o.dtype, params, gen)
                                    : default_tensor(l.allocation, o.dtype, gen);
  EMBER_CHECK(raw.defined() && raw.sizes() == IntArrayRef(l.allocation) && raw.dtype() == o.dtype, ValueError,
              "FuzzedTensor '", spec.name(), "': tensor_constructor must return a ", o.dtype, " tensor of size ",
              IntArrayRef(l.allocation), ", got ", raw.defined() ? raw.sizes() : IntArrayRef(), " of ",
              raw.defined() ? raw.dtype() : ScalarType::Undefined);
  int64_t dim = static_cast<int64_t>(l.size.size());
  std::vector<int64_t> order(static_cast<size_t>(dim));
  std::iota(order.begin(), order.end(), 0);
  if (rng.uniform() > o.probability_contiguous && dim > 1) {
    // Store the dims in a shuffled order, then view them back in the logical order.
    const std::vector<int64_t> identity = order;
    while (order == identity) order = rng.permutation(dim);
    std::vector<int64_t> inverse(order.size());
    for (size_t i = 0; i < order.size(); ++i) inverse[static_cast<size_t>(order[i])] = static_cast<int64_t>(i);
    raw = raw.permute(order).contiguous().permute(inverse);
  }
  Tensor tensor = raw;
  for (int64_t d = 0; d < dim; ++d) {
    int64_t step = l.steps[static_cast<size_t>(d)];
    if (step != 1) tensor = tensor.slice(d, 0, l.allocation[static_cast<size_t>(d)], step);
  }
  FuzzedTensorProperties props{tensor.numel(), order, l.steps, tensor.is_contiguous(), o.dtype};
  return {tensor, props};
}

std::vector<FuzzerCase> Fuzzer::take(int64_t n) {
  std::vector<FuzzerCase> cases;
  take(n, [&](FuzzerCase& c) { cases.push_back(std::move(c)); });
  return cases;
}

void Fuzzer::take(int64_t n, const std::function<void(FuzzerCase&)>& fn) {
  EMBER_CHECK(n >= 0, ValueError, "Fuzzer::take: n must be a non-negative integer, got ", static_cast<long long>(n));
  detail::FuzzerRng rng(static_cast<uint64_t>(seed_));
  Generator gen(rng.bits());  // tensor values: reproducible, and the default generator untouched
  for (int64_t i = 0; i < n; ++i) {
    FuzzerCase c;
    c.params = draw_params(rng);
    for (const auto& t : tensors_) {
      auto [tensor, props] = make_tensor(t, c.params, rng, gen);
      c.tensors.emplace(t.name(), tensor);
      c.properties.emplace(t.name(), std::move(props));
    }
    fn(c);
  }
}

}  // namespace ember::benchmark
