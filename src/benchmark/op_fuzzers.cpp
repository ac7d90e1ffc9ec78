// Ready-made Fuzzers for unary, binary and spectral ops, with the parameters of
// ember.utils.benchmark.op_fuzzers (themselves torch.utils.benchmark.op_fuzzers').
#include <algorithm>
#include <string>

#include "ember/benchmark.h"
#include "ember/error.h"

namespace ember::benchmark {

// File-specific names: the ember target is a unity build.
namespace op_fuzzers_impl {
namespace {

constexpr int64_t kMinDimSize = 16;
constexpr int64_t kMaxDimSize = 16 * 1024 * 1024;
constexpr int64_t kMinElements = 4 * 1024;
constexpr int64_t kMaxElements = 32 * 1024 * 1024;
// Unlike torch's, the allocation before slicing for steps is bounded too: steps of 16 in three
// dims could otherwise ask for 4096 times max_elements.
constexpr int64_t kMaxAllocationBytes = int64_t{1} << 30;
constexpr int64_t kSpectralMaxDimSize = 16 * 1024;

std::vector<FuzzedChoice> step_choices() { return {{1, 0.8}, {2, 0.06}, {4, 0.06}, {8, 0.04}, {16, 0.04}}; }

FuzzedParameter dims(const std::string& name) { return FuzzedParameter(name, {{1, 0.3}, {2, 0.4}, {3, 0.3}}, true); }

std::vector<int64_t> powers_of_two() {
  std::vector<int64_t> out;
  for (int64_t n = kMinDimSize; n <= kMaxDimSize; n *= 2) out.push_back(n);
  return out;
}

// Sizes 2^i 3^j 5^k in (lower, upper], ascending: the fast sizes of FFT libraries.
std::vector<int64_t> regular_sizes(int64_t upper, int64_t lower) {
  std::vector<int64_t> out;
  for (int64_t a = 1; a <= upper; a *= 2)
    for (int64_t b = a; b <= upper; b *= 3)
      for (int64_t c = b; c <= upper; c *= 5)
        if (c > lower) out.push_back(c);
  std::sort(out.begin(), out.end());
  return out;
}

void append(std::vector<FuzzedParameter>& to, std::vector<FuzzedParameter> from) {
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

// k0..k2: each an arbitrary (loguniform) size or one of `regular`, with probability
// probability_regular.
std::vector<FuzzedParameter> sizes(const std::vector<int64_t>& regular, double probability_regular, int64_t max_size) {
  std::vector<FuzzedParameter> out;
  for (int i = 0; i < 3; ++i)
    out.emplace_back("k_any_" + std::to_string(i), kMinDimSize, max_size, "loguniform");
  for (int i = 0; i < 3; ++i) {
    std::vector<FuzzedChoice> choices;
    for (int64_t s : regular) choices.emplace_back(s, 1.0 / static_cast<double>(regular.size()));
    out.emplace_back("k_regular_" + std::to_string(i), std::move(choices));
  }
  for (int i = 0; i < 3; ++i) {
    std::string n = std::to_string(i);
    out.emplace_back("k" + n,
                     std::vector<FuzzedChoice>{{ParameterAlias{"k_regular_" + n}, probability_regular},
                                               {ParameterAlias{"k_any_" + n}, 1 - probability_regular}},
                     true);
  }
  return out;
}

std::vector<FuzzedDim> dim_names(const std::string& prefix) { return {prefix + "0", prefix + "1", prefix + "2"}; }

FuzzedTensor op_tensor(const std::string& name, std::vector<FuzzedDim> size, std::vector<FuzzedDim> steps,
                    const std::string& dim_parameter, ScalarType dtype,
                    std::optional<int64_t> min_elements = kMinElements) {
  return FuzzedTensor(name, std::move(size),
                      {.steps = std::move(steps),
                       .probability_contiguous = 0.75,
                       .min_elements = min_elements,
                       .max_elements = kMaxElements,
                       .max_allocation_bytes = kMaxAllocationBytes,
                       .dim_parameter = dim_parameter,
                       .dtype = dtype});
}

FuzzedParameter random_value() { return FuzzedParameter("random_value", 0, (int64_t{1} << 32) - 1, "uniform"); }

std::vector<FuzzedParameter> unary_parameters() {
  std::vector<FuzzedParameter> p{dims("dim")};
  append(p, sizes(powers_of_two(), 0.2, kMaxDimSize));
  for (int i = 0; i < 3; ++i) p.emplace_back("x_step_" + std::to_string(i), step_choices());
  p.push_back(random_value());
  return p;
}

std::vector<FuzzedParameter> binary_parameters() {
  std::vector<FuzzedParameter> p{dims("dim")};
  append(p, sizes(powers_of_two(), 0.2, kMaxDimSize));
  for (int i = 0; i < 3; ++i) {
    std::string n = std::to_string(i);
    p.emplace_back("y_k" + n, std::vector<FuzzedChoice>{{ParameterAlias{"k" + n}, 0.8}, {1, 0.2}}, true);
  }
  for (int i = 0; i < 3; ++i)
    for (const char* name : {"x", "y"}) p.emplace_back(std::string(name) + "_step_" + std::to_string(i), step_choices());
  p.push_back(random_value());
  return p;
}

std::vector<FuzzedParameter> spectral_parameters(double probability_regular) {
  EMBER_CHECK(probability_regular >= 0 && probability_regular <= 1, ValueError,
              "SpectralOpFuzzer: probability_regular must be in [0, 1], got ", probability_regular);
  std::vector<FuzzedParameter> p{dims("ndim")};
  append(p, sizes(regular_sizes(kSpectralMaxDimSize, kMinDimSize), probability_regular, kSpectralMaxDimSize));
  for (int i = 0; i < 3; ++i) p.emplace_back("step_" + std::to_string(i), step_choices());
  return p;
}

std::vector<FuzzedTensor> unary_tensors(ScalarType dtype) {
  return {op_tensor("x", dim_names("k"), dim_names("x_step_"), "dim", dtype)};
}

std::vector<FuzzedTensor> binary_tensors(ScalarType dtype) {
  return {op_tensor("x", dim_names("k"), dim_names("x_step_"), "dim", dtype),
          op_tensor("y", dim_names("y_k"), dim_names("y_step_"), "dim", dtype, std::nullopt)};
}

std::vector<FuzzedTensor> spectral_tensors(ScalarType dtype) {
  return {op_tensor("x", dim_names("k"), dim_names("step_"), "ndim", dtype)};
}

}  // namespace
}  // namespace op_fuzzers_impl

UnaryOpFuzzer::UnaryOpFuzzer(int64_t seed, ScalarType dtype)
    : Fuzzer(op_fuzzers_impl::unary_parameters(), op_fuzzers_impl::unary_tensors(dtype), {}, seed) {}

BinaryOpFuzzer::BinaryOpFuzzer(int64_t seed, ScalarType dtype)
    : Fuzzer(op_fuzzers_impl::binary_parameters(), op_fuzzers_impl::binary_tensors(dtype), {}, seed) {}

SpectralOpFuzzer::SpectralOpFuzzer(int64_t seed, ScalarType dtype, double probability_regular)
    : Fuzzer(op_fuzzers_impl::spectral_parameters(probability_regular), op_fuzzers_impl::spectral_tensors(dtype), {},
             seed) {}

}  // namespace ember::benchmark
