// Per-op overhead from C++: Ember against libtorch on the same tiny workloads.
// Run through benchmarks/run.py, which pairs the results into ratios.
#include <benchmark/benchmark.h>

#include "ember/autograd.h"
#include "ember/ops.h"
#ifdef EMBER_BENCH_WITH_TORCH
#include <torch/torch.h>
#endif

namespace {

void BM_ember_add_1elem(benchmark::State& state) {
  ember::Tensor a = ember::tensor({1.f}), b = ember::tensor({2.f});
  for (auto _ : state) benchmark::DoNotOptimize(ember::add(a, b));
}

// Ten elementwise ops on 1-element tensors. One source serves both libraries: the calls
// are unqualified, so argument-dependent lookup picks ember:: or at:: by the tensor type.
template <class T>
T chain10(const T& x, const T& y) {
  T t = add(x, y);
  t = mul(t, y);
  t = sub(t, x);
  t = div(t, y);
  t = exp(t);
  t = tanh(t);
  t = sigmoid(t);
  t = relu(t);
  t = neg(t);
  return abs(t);
}

void BM_ember_chain10(benchmark::State& state) {
  ember::Tensor x = ember::tensor({0.5f}), y = ember::tensor({1.5f});
  for (auto _ : state) benchmark::DoNotOptimize(chain10(x, y));
}

// The chain on a tensor that requires grad, then sum and backward.
void BM_ember_chain10_backward(benchmark::State& state) {
  ember::Tensor x = ember::tensor({0.5f}), y = ember::tensor({1.5f});
  ember::autograd::set_requires_grad(x);
  for (auto _ : state) ember::autograd::backward({ember::sum(chain10(x, y))});
}

BENCHMARK(BM_ember_add_1elem);
BENCHMARK(BM_ember_chain10);
BENCHMARK(BM_ember_chain10_backward);

#ifdef EMBER_BENCH_WITH_TORCH
void BM_torch_add_1elem(benchmark::State& state) {
  torch::Tensor a = torch::tensor({1.f}), b = torch::tensor({2.f});
  for (auto _ : state) benchmark::DoNotOptimize(torch::add(a, b));
}

void BM_torch_chain10(benchmark::State& state) {
  torch::Tensor x = torch::tensor({0.5f}), y = torch::tensor({1.5f});
  for (auto _ : state) benchmark::DoNotOptimize(chain10(x, y));
}

void BM_torch_chain10_backward(benchmark::State& state) {
  torch::Tensor x = torch::tensor({0.5f}, torch::requires_grad()), y = torch::tensor({1.5f});
  for (auto _ : state) chain10(x, y).sum().backward();
}
BENCHMARK(BM_torch_add_1elem);
BENCHMARK(BM_torch_chain10);
BENCHMARK(BM_torch_chain10_backward);
#endif

}  // namespace

BENCHMARK_MAIN();
