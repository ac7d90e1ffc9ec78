// Stubs of the random samplers that draw a varying number of values per element
// (kernels/random_dist.cpp); the fixed-rate fills live in stubs.cpp.
#include "backends/cpu/stubs.h"

namespace ember::cpu {

Stub<PoissonFn> poisson_stub;
Stub<MultinomialFn> multinomial_stub;

}  // namespace ember::cpu
