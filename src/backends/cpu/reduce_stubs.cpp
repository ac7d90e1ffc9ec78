#include "backends/cpu/reduce_stubs.h"

namespace ember::cpu {

Stub<StatReduceFn> stat_reduce_stub;
Stub<ScanFn> scan_stub;

}  // namespace ember::cpu
