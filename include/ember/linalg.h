// ember::linalg: torch.linalg's functions and the top-level forms PyTorch keeps
// (det, inverse, cholesky_solve, ...). Factorizations and solvers in linalg/factor.h,
// spectral decompositions, norms and products in linalg/spectral.h.
#pragma once

#include "ember/linalg/factor.h"
#include "ember/linalg/spectral.h"
