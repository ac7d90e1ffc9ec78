// Checks shared by the reverse-mode formulas (formulas_linalg_spectral.cpp) and the forward-mode
// rules (jvp_linalg_spectral.cpp) of the spectral decompositions, with PyTorch's messages.
#pragma once

#include <string_view>

#include "ember/error.h"
#include "ember/tensor.h"

namespace ember::autograd {

// qr's factors Q, R are differentiable only when Q was computed (mode 'r' leaves it empty, so
// that is checked before its shape is read) and, in complete mode, for square or wide input.
inline void check_qr_differentiable(std::string_view mode, const Tensor& Q, const Tensor& R) {
  EMBER_CHECK(mode != "r", RuntimeError,
              "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
              "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
  EMBER_CHECK(!(mode == "complete" && Q.size(-2) > R.size(-1)), RuntimeError,
              "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
}

}  // namespace ember::autograd
