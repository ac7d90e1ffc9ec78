#pragma once

#include "ember/tensor.h"

namespace ember::linalg {}  // namespace ember::linalg
