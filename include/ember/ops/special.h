// torch.special functions that torch.* lacks under another name (special_i1 is torch.special.i1).
#pragma once

#include "ember/tensor.h"

namespace ember {

// Modified Bessel function of the first kind, order 1 (integers and bool compute as float).
Tensor special_i1(const Tensor& self);
Tensor& special_i1_out(Tensor& out, const Tensor& self);

}  // namespace ember
