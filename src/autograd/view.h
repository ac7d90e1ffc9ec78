// Views are made outside the dispatcher (ops/view.cpp, ops/shape.cpp); they report here.
#pragma once

#include "ember/tensor.h"

namespace ember::autograd {
// Gives `view` (just made from `base`) its history when base requires grad and grad mode
// is on; otherwise drops the Autograd key it copied from base.
void record_view(const Tensor& base, const Tensor& view);
// The storage of `view` (a view with a history) was written in place since its history was
// set, through its base or another view: its history becomes its geometry replayed on the
// base's current history (PyTorch's AsStridedBackward0).
void regenerate_view_history(const Tensor& view);
}  // namespace ember::autograd
