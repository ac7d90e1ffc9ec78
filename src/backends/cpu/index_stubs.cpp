#include "backends/cpu/index_stubs.h"

namespace ember::cpu {

Stub<GatherFn> gather_stub;
Stub<ScatterFn> scatter_stub;
Stub<FindOutOfRangeFn> find_out_of_range_stub;
Stub<IndexMinMaxFn> index_min_max_stub;

}  // namespace ember::cpu
