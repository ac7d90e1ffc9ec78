// For out= forms written as composites (the functional op, then a copy into out): the copy
// would make out differentiable, where PyTorch's out= forms of differentiable ops refuse
// inputs that require grad (the Autograd fallback does the same for ops it records).
#pragma once

#include <initializer_list>

#include "ember/autograd.h"
#include "ember/error.h"

namespace ember::autograd {
inline void check_out_inputs(const char* op, std::initializer_list<Tensor> inputs) {
  if (!GradMode::is_enabled()) return;
  for (const Tensor& t : inputs)
    EMBER_CHECK(!(t.defined() && requires_grad(t)), RuntimeError, op, "(): functions with out=... arguments don't "
                "support automatic differentiation, but one of the arguments requires grad.");
}
}  // namespace ember::autograd
