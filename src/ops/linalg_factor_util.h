// Shared by src/ops/linalg_factor.cpp (kernels) and linalg_factor_api.cpp (composites): the
// op signatures and PyTorch's argument checks and error messages.
#pragma once

#include <tuple>
#include <vector>

#include "core/torch_names.h"
#include "ember/linalg.h"
#include "ember/tensor.h"

namespace ember::linalg_factor_ops {

using Tensors2 = std::tuple<Tensor, Tensor>;
using Tensors3 = std::tuple<Tensor, Tensor, Tensor>;
using CholeskyExSig = Tensors2(const Tensor&, bool, bool);
using InvExSig = Tensors2(const Tensor&, bool);
using UnarySig = Tensor(const Tensor&);
using Unary2Sig = Tensors2(const Tensor&);
using SolveExSig = Tensors2(const Tensor&, const Tensor&, bool, bool);
using LuFactorExSig = Tensors3(const Tensor&, bool, bool);
using LuSolveSig = Tensor(const Tensor&, const Tensor&, const Tensor&, bool, bool);
using SolveTriSig = Tensor(const Tensor&, const Tensor&, bool, bool, bool);
using LdlFactorExSig = Tensors3(const Tensor&, bool, bool);
using LdlSolveSig = Tensor(const Tensor&, const Tensor&, const Tensor&, bool);

enum class Failure { Inverse, Cholesky, Solve, LU, LDL };

void check_cpu(const char* api, const Tensor& t);
// Floating or complex, not 16-bit.
void check_dtype(const char* api, const Tensor& A, const char* what);
void check_matrix(const char* api, const Tensor& A, const char* name);
void check_square(const char* api, const Tensor& A, const char* name);
void check_square_float(const char* api, const Tensor& A);
// Raises LinAlgError for the first nonzero entry of `info` ("(Batch element b): " when batched).
void raise_info(const char* api, const Tensor& info, Failure kind);
DimVector batch_of(const Tensor& t, int64_t mat_dims);
int64_t prod(IntArrayRef s);
// Element offsets of each matrix of t with its batch dims broadcast to `batch`.
std::vector<int64_t> batch_offsets(const Tensor& t, IntArrayRef batch, int64_t mat_dims);
// An out= result: r copied into out (resized), whose dtype must be r's (PyTorch's message).
void set_out(Tensor& out, const Tensor& r);
// The same for pinv, matrix_rank, cond and lstsq, which take (as PyTorch's) any out dtype the
// result casts to safely: float64 into float32 or complex128, not into an integer type.
// `what` names the result in the message ("result", "solution", ...).
void set_out_cast(const char* api, const char* what, Tensor& out, const Tensor& r);

}  // namespace ember::linalg_factor_ops
