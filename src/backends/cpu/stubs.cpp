#include "backends/cpu/stubs.h"

namespace ember::cpu {

Stub<CopyFn> copy_stub;
Stub<BinaryFn> binary_stub;
Stub<UnaryFn> unary_stub;
Stub<CompareFn> compare_stub;
Stub<WhereFn> where_stub;

}  // namespace ember::cpu
