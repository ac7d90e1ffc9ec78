// Views are made outside the dispatcher (ops/view.cpp, ops/shape.cpp); they report here.
#pragma once

#include "ember/tensor.h"

namespace ember::autograd {
// Gives `view` (just made from `base`) its history when base requires grad and grad mode
// is on; otherwise drops the Autograd key it copied from base.
void record_view(const Tensor& base, const Tensor& view);
}  // namespace ember::autograd
