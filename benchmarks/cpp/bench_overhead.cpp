// Per-op overhead from C++: Ember against libtorch on the same tiny workloads.
// Run through benchmarks/run.py, which pairs the results into ratios.
#include <benchmark/benchmark.h>

#include "ember/ops.h"
#ifdef EMBER_BENCH_WITH_TORCH
#include <torch/torch.h>
#endif

namespace {

void BM_ember_add_1elem(benchmark::State& state) {
  ember::Tensor a = ember::tensor({1.f}), b = ember::tensor({2.f});
  for (auto _ : state) benchmark::DoNotOptimize(ember::add(a, b));
}

// Ten elementwise ops on 1-element tensors.
void BM_ember_chain10(benchmark::State& state) {
  ember::Tensor x = ember::tensor({0.5f}), y = ember::tensor({1.5f});
  for (auto _ : state) {
    ember::Tensor t = ember::add(x, y);
    t = ember::mul(t, y);
    t = ember::sub(t, x);
    t = ember::div(t, y);
    t = ember::exp(t);
    t = ember::tanh(t);
    t = ember::sigmoid(t);
    t = ember::relu(t);
    t = ember::neg(t);
    t = ember::abs(t);
    benchmark::DoNotOptimize(t);
  }
}

BENCHMARK(BM_ember_add_1elem);
BENCHMARK(BM_ember_chain10);

#ifdef EMBER_BENCH_WITH_TORCH
void BM_torch_add_1elem(benchmark::State& state) {
  torch::Tensor a = torch::tensor({1.f}), b = torch::tensor({2.f});
  for (auto _ : state) benchmark::DoNotOptimize(torch::add(a, b));
}

void BM_torch_chain10(benchmark::State& state) {
  torch::Tensor x = torch::tensor({0.5f}), y = torch::tensor({1.5f});
  for (auto _ : state) {
    torch::Tensor t = torch::add(x, y);
    t = torch::mul(t, y);
    t = torch::sub(t, x);
    t = torch::div(t, y);
    t = torch::exp(t);
    t = torch::tanh(t);
    t = torch::sigmoid(t);
    t = torch::relu(t);
    t = torch::neg(t);
    t = torch::abs(t);
    benchmark::DoNotOptimize(t);
  }
}
BENCHMARK(BM_torch_add_1elem);
BENCHMARK(BM_torch_chain10);
#endif

}  // namespace

BENCHMARK_MAIN();
