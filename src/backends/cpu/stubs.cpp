#include "backends/cpu/stubs.h"

namespace ember::cpu {

Stub<CopyFn> copy_stub;
Stub<BinaryFn> binary_stub;
Stub<UnaryFn> unary_stub;
Stub<CompareFn> compare_stub;
Stub<WhereFn> where_stub;
Stub<ReduceFn> reduce_stub;
Stub<ArgReduceFn> arg_reduce_stub;
Stub<IndexOffsetsFn> index_offsets_stub;
Stub<IndexFn> index_stub;
Stub<NonzeroFn> nonzero_stub;
Stub<MaskedFillFn> masked_fill_stub;

Stub<RangeFn> range_stub;
Stub<RandomFn> random_stub;
Stub<BernoulliTensorFn> bernoulli_tensor_stub;

}  // namespace ember::cpu
