// Tensor operations as free functions, named and defaulted as in PyTorch (torch.add, ...).
// `*_out` forms write into `out`, resizing it when it is empty or of the wrong shape.
#pragma once

#include <optional>
#include <string_view>
#include <tuple>

#include "ember/tensor.h"

namespace ember {

// ---------------------------------------------------------------- factories
Tensor empty(IntArrayRef sizes, TensorOptions opts = {});
Tensor empty_strided(IntArrayRef sizes, IntArrayRef strides, TensorOptions opts = {});
Tensor zeros(IntArrayRef sizes, TensorOptions opts = {});
Tensor ones(IntArrayRef sizes, TensorOptions opts = {});
// Without a dtype, full() infers it from the value (bool, int64, default float or complex).
Tensor full(IntArrayRef sizes, const Scalar& value, TensorOptions opts = {});
Tensor empty_like(const Tensor& t, TensorOptions opts = {});
Tensor zeros_like(const Tensor& t, TensorOptions opts = {});
Tensor ones_like(const Tensor& t, TensorOptions opts = {});
Tensor full_like(const Tensor& t, const Scalar& value, TensorOptions opts = {});
Tensor arange(const Scalar& end, TensorOptions opts = {});
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1, TensorOptions opts = {});
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps, TensorOptions opts = {});
Tensor logspace(const Scalar& start, const Scalar& end, int64_t steps, double base = 10.0,
                TensorOptions opts = {});
Tensor eye(int64_t n, std::optional<int64_t> m = std::nullopt, TensorOptions opts = {});
// A 0-dim tensor holding a number (dtype from the number unless given).
Tensor scalar_tensor(const Scalar& s, TensorOptions opts = {});
// From values: tensor({1.f, 2.f}), tensor(std::vector<double>{...}).view({...}).
template <typename T>
Tensor tensor(ArrayRef<T> values, TensorOptions opts = {});
template <typename T>
Tensor tensor(std::initializer_list<T> values, TensorOptions opts = {}) {
  return tensor(ArrayRef<T>(values), opts);
}
template <typename T>
Tensor tensor(const std::vector<T>& values, TensorOptions opts = {}) {
  return tensor(ArrayRef<T>(values), opts);
}
// Wraps memory owned elsewhere without copying; `deleter(ctx, data)` runs when the last
// view of it dies (pass none to keep ownership with the caller).
Tensor from_blob(void* data, IntArrayRef sizes, IntArrayRef strides, ScalarType dtype,
                 Device device = kCPU, void (*deleter)(void*, void*) = nullptr, void* ctx = nullptr);
Tensor from_blob(void* data, IntArrayRef sizes, ScalarType dtype);

// ---------------------------------------------------------------- random (ember/random.h: Generator)
class Generator;
void manual_seed(uint64_t seed);
Tensor rand(IntArrayRef sizes, Generator* gen = nullptr, TensorOptions opts = {});
Tensor randn(IntArrayRef sizes, Generator* gen = nullptr, TensorOptions opts = {});
Tensor randint(int64_t low, int64_t high, IntArrayRef sizes, Generator* gen = nullptr,
               TensorOptions opts = {});
Tensor randint(int64_t high, IntArrayRef sizes, Generator* gen = nullptr, TensorOptions opts = {});
Tensor randperm(int64_t n, Generator* gen = nullptr, TensorOptions opts = {});
Tensor rand_like(const Tensor& t, Generator* gen = nullptr);
Tensor randn_like(const Tensor& t, Generator* gen = nullptr);
// 0 or 1 with probability p (elementwise); the result has p's dtype.
Tensor bernoulli(const Tensor& p, Generator* gen = nullptr);
Tensor& uniform_(Tensor& t, double from = 0.0, double to = 1.0, Generator* gen = nullptr);
Tensor& normal_(Tensor& t, double mean = 0.0, double std = 1.0, Generator* gen = nullptr);
// Integers uniform in [from, to).
Tensor& random_(Tensor& t, int64_t from, int64_t to, Generator* gen = nullptr);
Tensor& bernoulli_(Tensor& t, double p = 0.5, Generator* gen = nullptr);
Tensor& bernoulli_(Tensor& t, const Tensor& p, Generator* gen = nullptr);  // p broadcasts to t

// ---------------------------------------------------------------- copies and conversion
Tensor& copy_(Tensor& self, const Tensor& src);
Tensor& fill_(Tensor& self, const Scalar& value);
Tensor to_dtype(const Tensor& self, ScalarType dtype, bool copy = false);
Tensor to_device(const Tensor& self, Device device, bool copy = false);
Tensor clone(const Tensor& self);
// Resizes in place, keeping the data of the elements that remain when the storage suffices.
Tensor& resize_(Tensor& self, IntArrayRef sizes);
Tensor contiguous(const Tensor& self);

// ---------------------------------------------------------------- arithmetic
Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor sub(const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor mul(const Tensor& self, const Tensor& other);
// rounding_mode: none (true division), "trunc" or "floor".
Tensor div(const Tensor& self, const Tensor& other,
           std::optional<std::string_view> rounding_mode = std::nullopt);
Tensor& add_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor& sub_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha = 1);
Tensor& mul_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor& div_out(Tensor& out, const Tensor& self, const Tensor& other,
                std::optional<std::string_view> rounding_mode = std::nullopt);
// A number as the other operand, with Python-scalar (weak) type promotion.
Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
Tensor sub(const Tensor& self, const Scalar& other, const Scalar& alpha = 1);
Tensor mul(const Tensor& self, const Scalar& other);
Tensor div(const Tensor& self, const Scalar& other,
           std::optional<std::string_view> rounding_mode = std::nullopt);
// 0-dim "wrapped number" tensor: takes part in promotion like a Python scalar.
Tensor wrapped_scalar(const Scalar& s);

// ---------------------------------------------------------------- unary
#define EMBER_UNARY_DECL(name)                    \
  Tensor name(const Tensor& self);                \
  Tensor& name##_out(Tensor& out, const Tensor& self);
EMBER_UNARY_DECL(neg)
EMBER_UNARY_DECL(abs)
EMBER_UNARY_DECL(exp)
EMBER_UNARY_DECL(log)
EMBER_UNARY_DECL(sqrt)
EMBER_UNARY_DECL(sin)
EMBER_UNARY_DECL(cos)
EMBER_UNARY_DECL(tanh)
EMBER_UNARY_DECL(sigmoid)
EMBER_UNARY_DECL(relu)
#undef EMBER_UNARY_DECL

// ---------------------------------------------------------------- comparison and selection
#define EMBER_COMPARE_DECL(name)                                          \
  Tensor name(const Tensor& self, const Tensor& other);                   \
  Tensor name(const Tensor& self, const Scalar& other);                   \
  Tensor& name##_out(Tensor& out, const Tensor& self, const Tensor& other);
EMBER_COMPARE_DECL(eq)
EMBER_COMPARE_DECL(ne)
EMBER_COMPARE_DECL(lt)
EMBER_COMPARE_DECL(le)
EMBER_COMPARE_DECL(gt)
EMBER_COMPARE_DECL(ge)
#undef EMBER_COMPARE_DECL
Tensor where(const Tensor& condition, const Tensor& self, const Tensor& other);
Tensor& where_out(Tensor& out, const Tensor& condition, const Tensor& self, const Tensor& other);
// Numbers as the selected values promote like Python scalars (weakly).
Tensor where(const Tensor& condition, const Scalar& self, const Tensor& other);
Tensor where(const Tensor& condition, const Tensor& self, const Scalar& other);
Tensor where(const Tensor& condition, const Scalar& self, const Scalar& other);
Tensor maximum(const Tensor& self, const Tensor& other);
Tensor minimum(const Tensor& self, const Tensor& other);

// ---------------------------------------------------------------- reductions
Tensor sum(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
Tensor sum(const Tensor& self, IntArrayRef dim, bool keepdim = false,
           std::optional<ScalarType> dtype = std::nullopt);
Tensor& sum_out(Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim = false,
                std::optional<ScalarType> dtype = std::nullopt);
Tensor mean(const Tensor& self, std::optional<ScalarType> dtype = std::nullopt);
Tensor mean(const Tensor& self, IntArrayRef dim, bool keepdim = false,
            std::optional<ScalarType> dtype = std::nullopt);
Tensor& mean_out(Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim = false,
                 std::optional<ScalarType> dtype = std::nullopt);
Tensor max(const Tensor& self);
std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim = false);
Tensor min(const Tensor& self);
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim = false);

// ---------------------------------------------------------------- linear algebra
Tensor matmul(const Tensor& self, const Tensor& other);
Tensor& matmul_out(Tensor& out, const Tensor& self, const Tensor& other);
Tensor mm(const Tensor& self, const Tensor& mat2);
Tensor bmm(const Tensor& self, const Tensor& mat2);

// ---------------------------------------------------------------- joining
Tensor cat(TensorList tensors, int64_t dim = 0);
Tensor& cat_out(Tensor& out, TensorList tensors, int64_t dim = 0);
Tensor stack(TensorList tensors, int64_t dim = 0);

// ---------------------------------------------------------------- indexing
// self[indices] where each index is an int64/int32 tensor, a bool/uint8 mask (covering as
// many dims as it has; a 0-dim one inserts a dim of size 1 or 0) or undefined (a full slice).
// The broadcast index dims replace the indexed dims in place when those are adjacent, else
// they go first (NumPy's rule). A 0-dim int tensor is an index tensor here, not a select.
Tensor index(const Tensor& self, ArrayRef<std::optional<Tensor>> indices);
// self[indices] = values: values broadcast to the shape of self[indices] and have self's
// dtype (Python numbers, and one value under a boolean mask, are converted). Repeated positions: the last write wins, or with accumulate they sum, in
// index order either way (deterministic).
Tensor& index_put_(Tensor& self, ArrayRef<std::optional<Tensor>> indices, const Tensor& values,
                   bool accumulate = false);
Tensor masked_select(const Tensor& self, const Tensor& mask);
Tensor nonzero(const Tensor& self);

// Broadcast shapes as PyTorch does; RuntimeError naming both shapes when they clash.
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b);
// The same shape; a mismatch raises with PyTorch's infer_size message ("The size of tensor a ...").
DimVector broadcast_pair(IntArrayRef a, IntArrayRef b);
// The dtype an op on these operands computes in (torch.result_type).
ScalarType result_type(const Tensor& a, const Tensor& b);
ScalarType result_type(TensorList tensors);

}  // namespace ember

// Op families with headers of their own.
#include "ember/ops/products.h"
#include "ember/ops/reduce.h"
#include "ember/ops/sort.h"
#include "ember/ops/indexing.h"
#include "ember/ops/shape.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/random.h"
#include "ember/ops/nn.h"
#include "ember/ops/loss.h"
#include "ember/ops/nn_conv.h"
