// gradcheck and gradgradcheck, as torch.autograd's: the gradients autograd computes for a
// function against central finite differences, for real and complex (conjugate Wirtinger)
// inputs and outputs. The Python functions of ember.autograd.gradcheck wrap these.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "ember/autograd.h"

namespace ember::autograd {

// A mismatch found by gradcheck (Python: ember.autograd.gradcheck.GradcheckError).
class GradcheckError : public RuntimeError { using RuntimeError::RuntimeError; };

using GradcheckFunction = std::function<std::vector<Tensor>(const std::vector<Tensor>&)>;

struct GradcheckOptions {
  double eps = 1e-6;   // finite-difference step
  double atol = 1e-5;
  double rtol = 1e-3;
  // false: a failed check returns false instead of raising GradcheckError.
  bool raise_exception = true;
  // Also checks that backward treats undefined output gradients as zeros.
  bool check_undefined_grad = true;
  // Tolerance between two evaluations of the analytical gradient (0: must be identical).
  double nondet_tol = 0.0;
  // Gradients must have their input's dtype and shape.
  bool check_grad_dtypes = false;
  // Compares v^T J u for random u, v (one backward pass and two evaluations per input
  // and output) instead of the whole Jacobian.
  bool fast_mode = false;
};

// Differentiates func at `inputs` with respect to those of them that require grad
// (float64/complex128 recommended); the outputs that are floating or complex are checked.
// Returns true, or raises GradcheckError (false when !raise_exception) on a mismatch.
bool gradcheck(const GradcheckFunction& func, const std::vector<Tensor>& inputs, const GradcheckOptions& options = {});

// gradcheck of the first derivative: of (inputs, grad_outputs) -> the gradients of the
// inputs computed with create_graph. Without grad_outputs, random ones (requiring grad) are
// used; gen_non_contig_grad_outputs makes them non-contiguous.
bool gradgradcheck(const GradcheckFunction& func, const std::vector<Tensor>& inputs,
                   std::optional<std::vector<Tensor>> grad_outputs = std::nullopt, const GradcheckOptions& options = {},
                   bool gen_non_contig_grad_outputs = false);

}  // namespace ember::autograd
