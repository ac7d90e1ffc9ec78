// PyTorch's C++ names of dtypes ("Float", "ComplexDouble"), which its error messages print
// where Python users see them (fft, linalg), so that Ember's messages match word for word.
#pragma once

#include "ember/dtype.h"

namespace ember {
const char* torch_type_name(ScalarType t);
}  // namespace ember
