// Replacing a tensor's data in place (torch's `x.data = y`, Module::to): the TensorImpl
// takes over src's storage, dtype, geometry and backend key and keeps its identity (every
// handle to it sees the change) and its autograd state (requires_grad, grad, hooks).
#pragma once

#include "ember/tensor.h"

namespace ember {

void set_data(const Tensor& self, const Tensor& src);

}  // namespace ember
