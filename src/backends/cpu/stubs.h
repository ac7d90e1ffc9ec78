// The CPU kernel slots, one per kernel family; kernels/*.cpp fill them per ISA.
#pragma once

#include "backends/cpu/capability.h"
#include "ember/scalar.h"
#include "ops/iter.h"
#include "ops/reduce.h"
// UnaryOp, BinaryOp, CompareOp and their kernel signatures.
#include "backends/cpu/pointwise_stubs.h"

namespace ember::cpu {

// Operand 0 receives operand 1 converted to its dtype.
using CopyFn = void (*)(const ElementwiseIter&);
// out = cond ? a : b; cond is bool (or uint8, read as bytes), a and b share out's dtype.
using WhereFn = void (*)(const ElementwiseIter&);

extern Stub<CopyFn> copy_stub;
extern Stub<BinaryFn> binary_stub;
extern Stub<UnaryFn> unary_stub;
extern Stub<CompareFn> compare_stub;
extern Stub<WhereFn> where_stub;

// ---- reductions (ops/reduce*.cpp). Sum, Mean and Prod read in_dtype equal to out_dtype, or
// any integral/bool in_dtype into int64; NanSum floating only, same dtype; Max and Min keep
// the dtype and propagate NaN; And/Or (all/any) read bool, 8-bit, 32-bit and 64-bit real
// dtypes into bool or uint8; CountNonzero those dtypes into int64. The norms read floating or complex into the real dtype:
// sum |x| (L1), sqrt(sum |x|^2) (L2), (sum |x|^p)^(1/p) (P, p = ReduceLoop::param), max |x|
// (Inf), min |x| (NegInf), the count of non-zeros (Zero).
enum class ReduceOp : int {
  Sum, Mean, Max, Min, Prod, NanSum, And, Or, CountNonzero,
  NormL1, NormL2, NormP, NormInf, NormNegInf, NormZero,
};
using ReduceFn = void (*)(const ReduceLoop&, ReduceOp);
// Max or Min over the one reduced dim (in logical order): out[0] values, out[1] int64 index
// of the first extreme element (of the first NaN when there is one).
using ArgReduceFn = void (*)(const ReduceLoop&, ReduceOp);
extern Stub<ReduceFn> reduce_stub;
extern Stub<ArgReduceFn> arg_reduce_stub;

// ---- advanced indexing (ops/index.cpp). A result is laid out [outer, index, inner]: `outer`
// and `inner` are dims of self kept as they are, `index` the broadcast shape of the index
// tensors. Blocks list dims innermost first, with byte strides of the written (dst) and the
// read (src) tensor; self's side of the index block comes from per-position byte offsets.
struct IndexBlock {
  static constexpr int kMaxDims = ElementwiseIter::kMaxDims;
  int ndim = 0;
  int64_t numel = 1;
  int64_t sizes[kMaxDims] = {};
  int64_t dst[kMaxDims] = {};
  int64_t src[kMaxDims] = {};
};
struct IndexLoop {
  char* dst = nullptr;
  const char* src = nullptr;
  ScalarType dtype = ScalarType::Undefined;
  IndexBlock outer, index, inner;
  const int64_t* offsets = nullptr;  // bytes into self, one per index position
  bool offsets_on_dst = false;       // index_put_ (self is dst) rather than index (self is src)
  bool unique = false;               // index positions address distinct elements of self
};
// Byte offsets of each index position into self; IndexError for an out-of-range index.
struct IndexOffsets {
  static constexpr int kMaxDims = ElementwiseIter::kMaxDims;
  int nindex = 0;                            // int64 index tensors, one per indexed dim
  int ndim = 0;                              // dims of their broadcast shape, innermost first
  int64_t numel = 0;
  int64_t shape[kMaxDims] = {};
  const int64_t* data[kMaxDims] = {};
  int64_t strides[kMaxDims][kMaxDims] = {};  // [index][dim] in elements (0 where broadcast)
  int64_t dim_size[kMaxDims] = {};           // the indexed dim of self: size, byte stride,
  int64_t dim_stride[kMaxDims] = {};         // and number (for the error message)
  int64_t dim[kMaxDims] = {};
  int64_t* out = nullptr;
};
using IndexOffsetsFn = void (*)(const IndexOffsets&);
// Gather (dst[i] = src[i]); for index_put_, writes in index order per element (deterministic).
using IndexFn = void (*)(const IndexLoop&, bool accumulate);
// int64 [n, self.dim()] indices of the non-zero elements in row-major order.
using NonzeroFn = Tensor (*)(const Tensor& self);
// Operand 0 (written) takes the element at `value` (its dtype) where operand 1 (a bool or
// uint8 mask) is non-zero.
using MaskedFillFn = void (*)(const ElementwiseIter&, const void* value);

extern Stub<IndexOffsetsFn> index_offsets_stub;
extern Stub<IndexFn> index_stub;
extern Stub<NonzeroFn> nonzero_stub;
extern Stub<MaskedFillFn> masked_fill_stub;

// ---- factories and random numbers (ops/factory.cpp, ops/random.cpp). Both fill n contiguous
// elements from the element index alone, so threads may split the work anywhere.
enum class RangeKind : int { Arange, Linspace, Logspace };
// Arange: a = start, b = step. Linspace and logspace: a = start, b = end (base for logspace).
using RangeFn = void (*)(void* data, ScalarType dtype, int64_t n, RangeKind kind, const Scalar& a,
                         const Scalar& b, double base);

// Element i of a call comes from Philox block (offset + i / values_per_block), lane
// i % values_per_block (core/philox.h).
enum class RandomDist : int { Uniform, Normal, Randint, Bernoulli, Exponential, Geometric, LogNormal, Cauchy };
struct RandomParams {
  RandomDist dist = RandomDist::Uniform;
  // uniform [a, b); normal and log-normal: mean a, std b; bernoulli, geometric: p = a;
  // exponential: rate a; cauchy: median a, scale b
  double a = 0, b = 1;
  int64_t low = 0;      // randint: low + [0, range); range 0 stands for 2^64
  uint64_t range = 0;
  uint64_t seed = 0, offset = 0;
};
inline int random_values_per_block(const RandomParams& p, ScalarType dtype) {
  if (p.dist == RandomDist::Randint) return p.range == 0 || p.range > (uint64_t(1) << 32) ? 2 : 4;
  if (p.dist == RandomDist::Bernoulli) return 4;
  if (p.dist == RandomDist::Geometric) return 2;  // 53-bit uniforms whatever the dtype
  return dtype == ScalarType::Double ? 2 : 4;  // 53-bit doubles take two words
}
// Real dtypes only (complex tensors are filled through their real view).
using RandomFn = void (*)(void* data, ScalarType dtype, int64_t n, const RandomParams& p);
// out[i] = uniform < p[i]; p is float32 or float64, both contiguous; 4 values per block.
using BernoulliTensorFn = void (*)(void* out, ScalarType out_dtype, const void* p, ScalarType p_dtype,
                                   int64_t n, uint64_t seed, uint64_t offset);
// Samplers that draw a varying number of values per element or row: element (or row) i
// owns Philox counter offset + i and takes its k-th block from counter word 2 = k, so its
// values do not depend on the others' (kernels/random_dist.cpp).
// poisson: out[i] ~ Poisson(rate[i]); both contiguous, float, double or bfloat16, rates
// checked (finite or +inf, >= 0) by the caller.
using PoissonFn = void (*)(void* out, const void* rate, ScalarType dtype, int64_t n, uint64_t seed,
                           uint64_t offset);
// multinomial: `rows` rows of `cats` non-negative weights (contiguous; float, double or
// bfloat16; each row with a positive sum, checked by the caller) -> `samples` int64
// category indices per row, drawn with or without replacement.
using MultinomialFn = void (*)(int64_t* out, const void* probs, ScalarType dtype, int64_t rows, int64_t cats,
                               int64_t samples, bool replacement, uint64_t seed, uint64_t offset);

extern Stub<RangeFn> range_stub;
extern Stub<RandomFn> random_stub;
extern Stub<BernoulliTensorFn> bernoulli_tensor_stub;
extern Stub<PoissonFn> poisson_stub;  // defined in random_stubs.cpp
extern Stub<MultinomialFn> multinomial_stub;

}  // namespace ember::cpu
