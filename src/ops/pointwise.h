// Helpers for defining pointwise ops: one function per op builds the ElementwiseIter (the
// op's shape and dtype rules) and, unless the tensors are Meta, runs the CPU stub. The same
// function is registered as the CPU and the Meta kernel.
#pragma once

#include "backends/cpu/stubs.h"
#include "ember/dispatch.h"
#include "ops/iter.h"

namespace ember {

// Runs `cpu_fn(iter)` unless the operands are Meta; returns the output.
template <typename F>
Tensor run_pointwise(const char* name, const Tensor& out, std::initializer_list<Tensor> inputs,
                     const IterConfig& cfg, const F& cpu_fn) {
  ElementwiseIter it(name, out, inputs, cfg);
  if (!it.is_meta()) {
    EMBER_CHECK(it.device().is_cpu(), NotImplementedError, name, "(): no kernel for device ",
                it.device());
    cpu_fn(it);
  }
  it.finish();
  return it.output();
}

}  // namespace ember
