// Instruction counts of C++ code with ember::benchmark::Timer::collect_callgrind. Run it under
// callgrind, which collects nothing until collect_callgrind switches it on:
//
//   valgrind --tool=callgrind --collect-atstart=no --instr-atstart=no build/examples/callgrind_example
//
// It counts 100 calls of ember::add on two tensors of 1000 floats (and the empty loop, the
// baseline), then prints the summary, the costliest functions, and a last line
// "instructions: <count> baseline: <count>" for scripts (the C++ test that checks that counts
// repeat from run to run reads it). Without valgrind it prints how to run it and fails.
#include <cstdio>

#include "ember/benchmark.h"
#include "ember/ops.h"

int main() {
  ember::Tensor x = ember::ones({1000}), y = ember::ones({1000});
  ember::benchmark::Timer timer([&] { ember::add(x, y); }, {.label = "add", .description = "n=1000"});
  try {
    ember::benchmark::CallgrindStats stats = timer.collect_callgrind(/*number=*/100);
    std::printf("%s\n\n", stats.to_string().c_str());
    std::printf("%s\n\n", stats.stats(/*inclusive=*/true).to_string(100).c_str());
    std::printf("instructions: %lld baseline: %lld\n", static_cast<long long>(stats.counts()),
                static_cast<long long>(stats.baseline_exclusive_stats.sum()));
  } catch (const ember::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
