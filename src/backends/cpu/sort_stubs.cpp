#include "backends/cpu/sort_stubs.h"

namespace ember::cpu {

Stub<SortFn> sort_stub;
Stub<RunsFn> runs_stub;
Stub<SliceSortFn> slice_sort_stub;
Stub<TopkFn> topk_stub;
Stub<SelectFn> select_stub;
Stub<QuantileFn> quantile_stub;
Stub<SearchFn> search_stub;
Stub<HistFn> hist_stub;
Stub<HistEdgesFn> hist_edges_stub;

}  // namespace ember::cpu
