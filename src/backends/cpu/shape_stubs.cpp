#include "backends/cpu/shape_stubs.h"

namespace ember::cpu {

Stub<TriangleFn> triangle_stub;

}  // namespace ember::cpu
