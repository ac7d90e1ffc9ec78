// Derivative formulas of the FFT primitives (src/ops/fft.cpp), as PyTorch's
// (FunctionsManual.cpp: fft_r2c_backward, fft_c2r_backward). Each transform is linear, so each
// gradient is another transform (the adjoint) and differentiates again.
//   _fft_c2c: the adjoint of an unnormalized DFT is the unnormalized DFT of the other sign.
//   _fft_r2c: the one-sided gradient zero-padded to full length, transformed back, real part.
//   _fft_c2r: the real-to-complex transform of the gradient, the interior bins doubled
//             (each stands for itself and its conjugate mirror).
#include "autograd/formula_util.h"
#include "ember/dispatch.h"
#include "ember/fft.h"
#include "ember/ops.h"
#include "ember/ops/nn_conv.h"

namespace ember::autograd::fft_formulas {
namespace {

using namespace formula;

EMBER_REGISTER(autograd_formulas_fft) {
  define("_fft_c2c", {}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{_fft_c2c(g[0], c.int_list(1), c.int_arg(2), !c.bool_arg(3))};
  });
  define("_fft_r2c", {}, false, [](const BackwardContext& c, const Grads& g) {
    const std::vector<int64_t> dim = c.int_list(1);
    Tensor grad = g[0];
    if (c.bool_arg(3)) {
      IntArrayRef in = c.input_sizes(0);
      const int64_t last = wrap_dim(dim.back(), static_cast<int64_t>(in.size()));
      const int64_t missing = in[last] - grad.size(last);
      if (missing > 0) {
        std::vector<int64_t> pad(static_cast<size_t>(2 * grad.dim()), 0);
        pad[static_cast<size_t>(2 * (grad.dim() - 1 - last) + 1)] = missing;
        grad = constant_pad_nd(grad, pad, 0);
      }
    }
    return Grads{_fft_c2c(grad, dim, c.int_arg(2), false).real()};
  });
  define("_fft_c2r", {}, false, [](const BackwardContext& c, const Grads& g) {
    const std::vector<int64_t> dim = c.int_list(1);
    const int64_t last = wrap_dim(dim.back(), g[0].dim());
    Tensor gi = _fft_r2c(g[0], dim, c.int_arg(2), true);
    const int64_t len = gi.size(last), doubled = g[0].size(last) - len;
    if (doubled > 0) {
      // weights 1, 2, ..., 2 (and 1 for the middle bin of an even length) along `last`
      std::vector<double> w(static_cast<size_t>(len), 1.0);
      for (int64_t i = 1; i <= doubled; ++i) w[static_cast<size_t>(i)] = 2.0;
      DimVector shape(static_cast<size_t>(gi.dim()), 1);
      shape[last] = len;
      gi = mul(gi, tensor(ArrayRef<double>(w), to_real_type(gi.dtype())).view(shape));
    }
    IntArrayRef in = c.input_sizes(0);
    if (in[last] > len) {  // the primitive read only the first n / 2 + 1 values
      std::vector<int64_t> pad(static_cast<size_t>(2 * gi.dim()), 0);
      pad[static_cast<size_t>(2 * (gi.dim() - 1 - last) + 1)] = in[last] - len;
      gi = constant_pad_nd(gi, pad, 0);
    }
    return Grads{gi};
  });
}

}  // namespace
}  // namespace ember::autograd::fft_formulas
