// ember.linalg factorizations and solvers written as composites of the primitives in
// linalg_factor.cpp (so autograd records the primitives, whose formulas are in
// autograd/formulas_linalg_factor.cpp): the raising forms of the `_ex` ops, lu, lu_unpack,
// cholesky_solve / cholesky_inverse / triangular_solve (through solve_triangular), logdet,
// matrix_power, tensorinv, tensorsolve, every out= form, and the C++ front functions.
#include <algorithm>
#include <limits>

#include "autograd/out_check.h"
#include "ember/autograd.h"
#include "ember/dispatch.h"
#include "ember/func.h"
#include "ember/linalg.h"
#include "ember/ops.h"
#include "ember/ops/indexing.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"
#include "ember/ops/shape.h"
#include "ops/iter.h"
#include "ops/linalg_factor_util.h"

namespace ember::linalg_factor_ops {
namespace {

#define EMBER_CALL(Sig, name, ...)    \
  static const TypedOp<Sig> op(name); \
  return op.call(__VA_ARGS__)

// Typed calls of the primitives (through the dispatcher, so autograd sees them).
Tensors2 cholesky_ex_c(const Tensor& A, bool upper, bool check) { EMBER_CALL(CholeskyExSig, "linalg_cholesky_ex", A, upper, check); }
Tensors2 inv_ex_c(const Tensor& A, bool check) { EMBER_CALL(InvExSig, "linalg_inv_ex", A, check); }
Tensor det_c(const Tensor& A) { EMBER_CALL(UnarySig, "linalg_det", A); }
Tensors2 slogdet_c(const Tensor& A) { EMBER_CALL(Unary2Sig, "linalg_slogdet", A); }
Tensors2 solve_ex_c(const Tensor& A, const Tensor& B, bool left, bool check) {
  EMBER_CALL(SolveExSig, "linalg_solve_ex", A, B, left, check);
}
Tensors3 lu_factor_ex_c(const Tensor& A, bool pivot, bool check) { EMBER_CALL(LuFactorExSig, "linalg_lu_factor_ex", A, pivot, check); }
Tensor lu_solve_c(const Tensor& LU, const Tensor& piv, const Tensor& B, bool left, bool adjoint) {
  EMBER_CALL(LuSolveSig, "linalg_lu_solve", LU, piv, B, left, adjoint);
}
Tensor solve_tri_c(const Tensor& A, const Tensor& B, bool upper, bool left, bool unit) {
  EMBER_CALL(SolveTriSig, "linalg_solve_triangular", A, B, upper, left, unit);
}
Tensors3 ldl_factor_ex_c(const Tensor& A, bool hermitian, bool check) {
  EMBER_CALL(LdlFactorExSig, "linalg_ldl_factor_ex", A, hermitian, check);
}
Tensor ldl_solve_c(const Tensor& LD, const Tensor& piv, const Tensor& B, bool hermitian) {
  EMBER_CALL(LdlSolveSig, "linalg_ldl_solve", LD, piv, B, hermitian);
}

// ---------------------------------------------------------------- out= helpers
// PyTorch's C++ scalar names, as its out= dtype messages print them.
const char* cpp_type_name(ScalarType t) {
  switch (t) {
    case kFloat: return "float";
    case kDouble: return "double";
    case kComplexFloat: return "c10::complex<float>";
    case kComplexDouble: return "c10::complex<double>";
    case kInt32: return "int";
    case kInt64: return "long int";
    default: return "other";
  }
}


// ---------------------------------------------------------------- raising forms
Tensor cholesky_k(const Tensor& A, bool upper) {
  auto [L, info] = cholesky_ex_c(A, upper, false);
  raise_info("linalg.cholesky", info, Failure::Cholesky);
  return L;
}
Tensor cholesky_top_k(const Tensor& A, bool upper) {
  check_square_float("cholesky", A);
  auto [L, info] = cholesky_ex_c(A, upper, false);
  raise_info("cholesky", info, Failure::Cholesky);
  return L;
}
Tensor inv_k(const Tensor& A) {
  auto [X, info] = inv_ex_c(A, false);
  raise_info("linalg.inv", info, Failure::Inverse);
  return X;
}
Tensor solve_k(const Tensor& A, const Tensor& B, bool left) {
  auto [X, info] = solve_ex_c(A, B, left, false);
  raise_info("torch.linalg.solve", info, Failure::Solve);
  return X;
}
Tensors2 lu_factor_k(const Tensor& A, bool pivot) {
  auto [LU, piv, info] = lu_factor_ex_c(A, pivot, false);
  raise_info("torch.linalg.lu_factor", info, Failure::LU);
  return {LU, piv};
}
Tensors2 ldl_factor_k(const Tensor& A, bool hermitian) {
  auto [LD, piv, info] = ldl_factor_ex_c(A, hermitian, false);
  raise_info("torch.linalg.ldl_factor", info, Failure::LDL);
  return {LD, piv};
}

Tensor logdet_k(const Tensor& A) {
  check_square_float("linalg.slogdet", A);
  auto [sign, logabs] = slogdet_c(A);
  if (A.is_complex()) return add(sign.log(), logabs);
  // a negative determinant has no real logarithm
  return where(sign.lt(0), std::numeric_limits<double>::quiet_NaN(), logabs);
}

// ---------------------------------------------------------------- lu, lu_unpack
Tensors3 lu_unpack_k(const Tensor& LU, const Tensor& piv, bool unpack_data, bool unpack_pivots) {
  const char* api = "torch.lu_unpack";
  EMBER_CHECK(LU.dim() >= 2, RuntimeError, api, ": Expected tensor with 2 or more dimensions. Got size: ", LU.sizes(),
              " instead");
  EMBER_CHECK(piv.dtype() == kInt32 && piv.is_contiguous(), RuntimeError, api,
              ": LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
              "Note: this function is intended to be used with the output produced by torch.linalg.lu_factor");
  const int64_t m = LU.size(-2), n = LU.size(-1), k = std::min(m, n);
  const DimVector batch = batch_of(LU, 2);
  EMBER_CHECK(piv.dim() >= 1 && piv.size(-1) == k && batch_of(piv, 1) == batch, RuntimeError, api,
              ": Expected LU_pivots.shape to be ", batch, " + [", k, "], but got ", piv.sizes());
  Tensor P, L, U;
  if (unpack_data) {
    L = add(tril(LU.narrow(-1, 0, k), -1), eye(m, k, TensorOptions(LU.dtype())));
    U = triu(LU.narrow(-2, 0, k));
  } else {
    L = LU.reshape({-1}).narrow(0, 0, 0);  // empty, but still on LU's graph, as PyTorch's
    U = LU.reshape({-1}).narrow(0, 0, 0);
  }
  if (unpack_pivots) {
    DimVector ps(batch);
    ps.push_back(m);
    ps.push_back(m);
    P = zeros(ps, TensorOptions(LU.dtype()));
    const int64_t NB = prod(batch);
    // The permutation is built from the pivots' values: under vmap they are per-sample data.
    func::check_not_batched(piv, "lu_unpack reads the pivots");
    const int32_t* pp = piv.data_ptr<int32_t>();
    std::vector<int64_t> perm(static_cast<size_t>(m));
    Tensor idx = empty({NB * m}, TensorOptions(kInt64));
    int64_t* ix = idx.data_ptr<int64_t>();
    for (int64_t b = 0; b < NB; ++b) {
      for (int64_t i = 0; i < m; ++i) perm[static_cast<size_t>(i)] = i;
      for (int64_t i = 0; i < k; ++i) {
        const int64_t p = pp[b * k + i] - 1;
        EMBER_CHECK(p >= i && p < m, RuntimeError, api, ": pivots out of range: got ", p + 1, " at position ", i + 1,
                    " of a matrix with ", m, " rows");
        std::swap(perm[static_cast<size_t>(i)], perm[static_cast<size_t>(p)]);
      }
      // A = P L U with row i of L U being row perm[i] of A: P[perm[i], i] = 1
      for (int64_t i = 0; i < m; ++i) ix[b * m + i] = (b * m + perm[static_cast<size_t>(i)]) * m + i;
    }
    Tensor flat = P.view({NB * m * m});
    index_fill_(flat, 0, idx, 1);
  } else {
    P = empty({0}, TensorOptions(LU.dtype()));
  }
  return {P, L, U};
}

Tensors3 lu_k(const Tensor& A, bool pivot) {
  auto [LU, piv, info] = lu_factor_ex_c(A, pivot, false);
  return lu_unpack_k(LU, piv, true, true);
}

Tensor lu_solve_top_k(const Tensor& B, const Tensor& LU, const Tensor& piv) { return lu_solve_c(LU, piv, B, true, false); }

// ---------------------------------------------------------------- triangular forms
void check_b_a(const char* api, const char* prefix, const Tensor& B, const Tensor& A, const char* aname) {
  EMBER_CHECK(B.dim() >= 2, RuntimeError, prefix, "b should have at least 2 dimensions, but has ", B.dim(),
              " dimensions instead");
  EMBER_CHECK(A.dim() >= 2, RuntimeError, prefix, aname, " should have at least 2 dimensions, but has ", A.dim(),
              " dimensions instead");
  EMBER_CHECK(B.dtype() == A.dtype(), RuntimeError, "Expected b and A to have the same dtype, but found b of type ",
              torch_type_name(B.dtype()), " and A of type ", torch_type_name(A.dtype()), " instead.");
  EMBER_CHECK(A.size(-1) == A.size(-2), RuntimeError, "A must be batches of square matrices, but they are ", A.size(-2),
              " by ", A.size(-1), " matrices");
  EMBER_CHECK(A.size(-1) == B.size(-2), RuntimeError, "Incompatible matrix sizes for ", api, ": each A matrix is ",
              A.size(-1), " by ", A.size(-1), " but each b matrix is ", B.size(-2), " by ", B.size(-1));
  check_dtype(api, A, "A");
}

Tensor cholesky_solve_k(const Tensor& B, const Tensor& L, bool upper) {
  check_b_a("cholesky_solve", "", B, L, "u");
  // A = L L^H: X = L^-H (L^-1 B); A = U^H U: X = U^-1 (U^-H B)
  if (upper) return solve_tri_c(L, solve_tri_c(conj(L.mT()), B, false, true, false), true, true, false);
  return solve_tri_c(conj(L.mT()), solve_tri_c(L, B, false, true, false), true, true, false);
}

Tensor cholesky_inverse_k(const Tensor& L, bool upper) {
  check_cpu("cholesky_inverse", L);
  check_square("cholesky_inverse", L, "A");
  check_dtype("cholesky_inverse", L, "A");
  // PyTorch's potri reports a zero on the factor's diagonal
  Tensor zero_at = L.diagonal(0, -2, -1).eq(0);
  if (zero_at.numel() && any(zero_at).item<bool>()) {
    Tensor info = zeros(batch_of(L, 2), TensorOptions(kInt32));
    const Tensor z = zero_at.contiguous();
    const bool* zp = z.data_ptr<bool>();
    const int64_t n = L.size(-1);
    int32_t* ip = info.data_ptr<int32_t>();
    for (int64_t b = 0; b < info.numel(); ++b)
      for (int64_t i = 0; i < n; ++i)
        if (zp[b * n + i]) {
          ip[b] = static_cast<int32_t>(i + 1);
          break;
        }
    raise_info("cholesky_inverse", info, Failure::Inverse);
  }
  const int64_t n = L.size(-1);
  return cholesky_solve_k(eye(n, std::nullopt, TensorOptions(L.dtype())).expand(L.sizes()), L, upper);
}

Tensors2 triangular_solve_k(const Tensor& B, const Tensor& A, bool upper, bool transpose, bool unitriangular) {
  const char* api = "torch.triangular_solve";
  EMBER_CHECK(B.dim() >= 2, RuntimeError, api, ": Expected b to have at least 2 dimensions, but it has ", B.dim(),
              " dimensions instead");
  EMBER_CHECK(A.dim() >= 2, RuntimeError, api, ": Expected A to have at least 2 dimensions, but it has ", A.dim(),
              " dimensions instead");
  check_b_a("triangular_solve", "", B, A, "A");
  Tensor X = solve_tri_c(transpose ? A.mT() : A, B, upper != transpose, true, unitriangular);
  DimVector shape = broadcast_pair(batch_of(A, 2), batch_of(B, 2));
  shape.push_back(A.size(-2));
  shape.push_back(A.size(-1));
  Tensor M = A.expand(shape).clone();  // its gradient reaches all of A, as in PyTorch
  return {X, M};
}

// ---------------------------------------------------------------- matrix functions
Tensor matrix_power_k(const Tensor& A, int64_t n) {
  const char* api = "linalg.matrix_power";
  check_square(api, A, "A");
  if (n == 0) {  // identities, still on A's graph (with a zero gradient), as PyTorch's
    Tensor r = A.clone();
    r.copy_(eye(A.size(-1), std::nullopt, TensorOptions(A.dtype())).expand(A.sizes()));
    return r;
  }
  // the products below are matmuls, which PyTorch's CPU lacks for these two dtypes
  EMBER_CHECK(n == 1 || (A.dtype() != kBool && A.dtype() != kHalf), RuntimeError,
              "\"addmm_impl_cpu_\" not implemented for '", torch_type_name(A.dtype()), "'");
  Tensor z = A;
  if (n < 0) {
    z = inv_k(A);
    n = -n;
  }
  if (n == 1) return z.is_alias_of(A) ? A.clone() : z;
  Tensor r;
  while (n) {
    if (n & 1) r = r.defined() ? matmul(r, z) : z;
    n >>= 1;
    if (n) z = matmul(z, z);
  }
  return r;
}

Tensor tensorinv_k(const Tensor& A, int64_t ind) {
  EMBER_CHECK(ind > 0, RuntimeError, "Expected a strictly positive integer for 'ind', but got ", ind);
  EMBER_CHECK(ind <= A.dim(), RuntimeError, "Expected a strictly positive integer for 'ind' of at most ", A.dim(),
              ", but got ", ind);
  const IntArrayRef head = A.sizes().slice(0, static_cast<size_t>(ind)), tail = A.sizes().slice(static_cast<size_t>(ind), static_cast<size_t>(A.dim() - ind));
  const int64_t ph = prod(head), pt = prod(tail);
  EMBER_CHECK(ph == pt, RuntimeError, "Expected self to satisfy the requirement prod(self.shape[ind:]) == "
              "prod(self.shape[:ind]), but got ", pt, " != ", ph);
  DimVector shape(tail);
  for (int64_t s : head) shape.push_back(s);
  return inv_k(A.reshape({ph, ph})).reshape(shape);
}

Tensor tensorsolve_k(const Tensor& A, const Tensor& B, std::optional<IntArrayRef> dims) {
  Tensor a = A;
  if (dims) {  // move `dims` to the end, keeping the others in order
    DimVector order, moved;
    std::vector<bool> is_moved(static_cast<size_t>(A.dim()), false);
    for (int64_t d : *dims) {
      const int64_t w = wrap_dim(d, A.dim());
      moved.push_back(w);
      is_moved[static_cast<size_t>(w)] = true;
    }
    for (int64_t d = 0; d < A.dim(); ++d)
      if (!is_moved[static_cast<size_t>(d)]) order.push_back(d);
    for (int64_t d : moved) order.push_back(d);
    a = A.permute(order);
  }
  EMBER_CHECK(B.dim() <= a.dim(), RuntimeError, "linalg.tensorsolve: other has more dimensions (", B.dim(),
              ") than self (", a.dim(), ")");
  const IntArrayRef rshape = a.sizes().slice(static_cast<size_t>(B.dim()), static_cast<size_t>(a.dim() - B.dim()));
  const int64_t pr = prod(rshape), pl = prod(a.sizes().slice(0, static_cast<size_t>(B.dim())));
  EMBER_CHECK(pr == pl, RuntimeError, "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == "
              "prod(self.shape[:other.ndim]), but got ", pr, " != ", pl);
  return solve_k(a.reshape({pr, pr}), B.reshape({pr}), true).reshape(rshape);
}

// ---------------------------------------------------------------- out= forms
using Out2 = std::tuple<Tensor&, Tensor&>;
using Out3 = std::tuple<Tensor&, Tensor&, Tensor&>;
Out2 set2(Tensor& a, Tensor& b, const Tensors2& r) {
  set_out(a, std::get<0>(r));
  set_out(b, std::get<1>(r));
  return {a, b};
}
Out3 set3(Tensor& a, Tensor& b, Tensor& c, const Tensors3& r) {
  set_out(a, std::get<0>(r));
  set_out(b, std::get<1>(r));
  set_out(c, std::get<2>(r));
  return {a, b, c};
}

Out2 cholesky_ex_out_k(const Tensor& A, bool upper, bool check, Tensor& L, Tensor& info) {
  autograd::check_out_inputs("linalg_cholesky_ex", {A});
  return set2(L, info, cholesky_ex_c(A, upper, check));
}
Out2 inv_ex_out_k(const Tensor& A, bool check, Tensor& X, Tensor& info) {
  autograd::check_out_inputs("linalg_inv_ex", {A});
  return set2(X, info, inv_ex_c(A, check));
}
Out2 slogdet_out_k(const Tensor& A, Tensor& sign, Tensor& logabs) {
  autograd::check_out_inputs("linalg_slogdet", {A});
  return set2(sign, logabs, slogdet_c(A));
}
Out2 solve_ex_out_k(const Tensor& A, const Tensor& B, bool left, bool check, Tensor& X, Tensor& info) {
  autograd::check_out_inputs("linalg_solve_ex", {A, B});
  return set2(X, info, solve_ex_c(A, B, left, check));
}
Out3 lu_factor_ex_out_k(const Tensor& A, bool pivot, bool check, Tensor& LU, Tensor& piv, Tensor& info) {
  autograd::check_out_inputs("linalg_lu_factor_ex", {A});
  return set3(LU, piv, info, lu_factor_ex_c(A, pivot, check));
}
Out2 lu_factor_out_k(const Tensor& A, bool pivot, Tensor& LU, Tensor& piv) {
  autograd::check_out_inputs("linalg_lu_factor", {A});
  return set2(LU, piv, lu_factor_k(A, pivot));
}
Out3 lu_out_k(const Tensor& A, bool pivot, Tensor& P, Tensor& L, Tensor& U) {
  autograd::check_out_inputs("linalg_lu", {A});
  return set3(P, L, U, lu_k(A, pivot));
}
Out3 lu_unpack_out_k(const Tensor& LU, const Tensor& piv, bool ud, bool up, Tensor& P, Tensor& L, Tensor& U) {
  autograd::check_out_inputs("lu_unpack", {LU});
  return set3(P, L, U, lu_unpack_k(LU, piv, ud, up));
}
Out2 triangular_solve_out_k(const Tensor& B, const Tensor& A, bool upper, bool transpose, bool unit, Tensor& X,
                            Tensor& M) {
  autograd::check_out_inputs("triangular_solve", {B, A});
  return set2(X, M, triangular_solve_k(B, A, upper, transpose, unit));
}
Out3 ldl_factor_ex_out_k(const Tensor& A, bool h, bool check, Tensor& LD, Tensor& piv, Tensor& info) {
  autograd::check_out_inputs("linalg_ldl_factor_ex", {A});
  return set3(LD, piv, info, ldl_factor_ex_c(A, h, check));
}
Out2 ldl_factor_out_k(const Tensor& A, bool h, Tensor& LD, Tensor& piv) {
  autograd::check_out_inputs("linalg_ldl_factor", {A});
  return set2(LD, piv, ldl_factor_k(A, h));
}

Tensor& cholesky_out_k(const Tensor& A, bool upper, Tensor& out) {
  autograd::check_out_inputs("linalg_cholesky", {A});
  set_out(out, cholesky_k(A, upper));
  return out;
}
Tensor& cholesky_top_out_k(const Tensor& A, bool upper, Tensor& out) {
  autograd::check_out_inputs("cholesky", {A});
  set_out(out, cholesky_top_k(A, upper));
  return out;
}
Tensor& inv_out_k(const Tensor& A, Tensor& out) {
  autograd::check_out_inputs("linalg_inv", {A});
  set_out(out, inv_k(A));
  return out;
}
Tensor& det_out_k(const Tensor& A, Tensor& out) {
  autograd::check_out_inputs("linalg_det", {A});
  set_out(out, det_c(A));
  return out;
}
Tensor& solve_out_k(const Tensor& A, const Tensor& B, bool left, Tensor& out) {
  autograd::check_out_inputs("linalg_solve", {A, B});
  set_out(out, solve_k(A, B, left));
  return out;
}
Tensor& lu_solve_out_k(const Tensor& LU, const Tensor& piv, const Tensor& B, bool left, bool adjoint, Tensor& out) {
  autograd::check_out_inputs("linalg_lu_solve", {LU, B});
  set_out(out, lu_solve_c(LU, piv, B, left, adjoint));
  return out;
}
Tensor& lu_solve_top_out_k(const Tensor& B, const Tensor& LU, const Tensor& piv, Tensor& out) {
  autograd::check_out_inputs("lu_solve", {LU, B});
  set_out(out, lu_solve_c(LU, piv, B, true, false));
  return out;
}
Tensor& solve_tri_out_k(const Tensor& A, const Tensor& B, bool upper, bool left, bool unit, Tensor& out) {
  autograd::check_out_inputs("linalg_solve_triangular", {A, B});
  set_out(out, solve_tri_c(A, B, upper, left, unit));
  return out;
}
Tensor& ldl_solve_out_k(const Tensor& LD, const Tensor& piv, const Tensor& B, bool h, Tensor& out) {
  autograd::check_out_inputs("linalg_ldl_solve", {LD, B});
  set_out(out, ldl_solve_c(LD, piv, B, h));
  return out;
}
Tensor& cholesky_solve_out_k(const Tensor& B, const Tensor& L, bool upper, Tensor& out) {
  autograd::check_out_inputs("cholesky_solve", {B, L});
  set_out(out, cholesky_solve_k(B, L, upper));
  return out;
}
Tensor& cholesky_inverse_out_k(const Tensor& L, bool upper, Tensor& out) {
  autograd::check_out_inputs("cholesky_inverse", {L});
  set_out(out, cholesky_inverse_k(L, upper));
  return out;
}
Tensor& inverse_out_k(const Tensor& A, Tensor& out) {
  autograd::check_out_inputs("inverse", {A});
  set_out(out, inv_k(A));
  return out;
}
Tensor& tensorinv_out_k(const Tensor& A, int64_t ind, Tensor& out) {
  autograd::check_out_inputs("linalg_tensorinv", {A});
  set_out(out, tensorinv_k(A, ind));
  return out;
}
Tensor& tensorsolve_out_k(const Tensor& A, const Tensor& B, std::optional<IntArrayRef> dims, Tensor& out) {
  autograd::check_out_inputs("linalg_tensorsolve", {A, B});
  set_out(out, tensorsolve_k(A, B, dims));
  return out;
}
Tensor& matrix_power_out_k(const Tensor& A, int64_t n, Tensor& out) {
  autograd::check_out_inputs("linalg_matrix_power", {A});
  set_out(out, matrix_power_k(A, n));
  return out;
}

using BoolSig = Tensor(const Tensor&, bool);
using BoolOutSig = Tensor&(const Tensor&, bool, Tensor&);
using UnaryOutSig = Tensor&(const Tensor&, Tensor&);
using Solve2Sig = Tensor(const Tensor&, const Tensor&, bool);
using SolveOutSig = Tensor&(const Tensor&, const Tensor&, bool, Tensor&);
using CholeskyExOutSig = Out2(const Tensor&, bool, bool, Tensor&, Tensor&);
using InvExOutSig = Out2(const Tensor&, bool, Tensor&, Tensor&);
using SlogdetOutSig = Out2(const Tensor&, Tensor&, Tensor&);
using SolveExOutSig = Out2(const Tensor&, const Tensor&, bool, bool, Tensor&, Tensor&);
using LuFactorExOutSig = Out3(const Tensor&, bool, bool, Tensor&, Tensor&, Tensor&);
using LuFactorSig = Tensors2(const Tensor&, bool);
using LuFactorOutSig = Out2(const Tensor&, bool, Tensor&, Tensor&);
using LuSig = Tensors3(const Tensor&, bool);
using LuOutSig = Out3(const Tensor&, bool, Tensor&, Tensor&, Tensor&);
using LuUnpackSig = Tensors3(const Tensor&, const Tensor&, bool, bool);
using LuUnpackOutSig = Out3(const Tensor&, const Tensor&, bool, bool, Tensor&, Tensor&, Tensor&);
using LuSolveOutSig = Tensor&(const Tensor&, const Tensor&, const Tensor&, bool, bool, Tensor&);
using LuSolveTopSig = Tensor(const Tensor&, const Tensor&, const Tensor&);
using LuSolveTopOutSig = Tensor&(const Tensor&, const Tensor&, const Tensor&, Tensor&);
using SolveTriOutSig = Tensor&(const Tensor&, const Tensor&, bool, bool, bool, Tensor&);
using TriSolveSig = Tensors2(const Tensor&, const Tensor&, bool, bool, bool);
using TriSolveOutSig = Out2(const Tensor&, const Tensor&, bool, bool, bool, Tensor&, Tensor&);
using LdlFactorExOutSig = Out3(const Tensor&, bool, bool, Tensor&, Tensor&, Tensor&);
using LdlFactorSig = Tensors2(const Tensor&, bool);
using LdlFactorOutSig = Out2(const Tensor&, bool, Tensor&, Tensor&);
using LdlSolveOutSig = Tensor&(const Tensor&, const Tensor&, const Tensor&, bool, Tensor&);
using IntSig = Tensor(const Tensor&, int64_t);
using IntOutSig = Tensor&(const Tensor&, int64_t, Tensor&);
using TensorsolveSig = Tensor(const Tensor&, const Tensor&, std::optional<IntArrayRef>);
using TensorsolveOutSig = Tensor&(const Tensor&, const Tensor&, std::optional<IntArrayRef>, Tensor&);

}  // namespace

void set_out(Tensor& out, const Tensor& r) {
  EMBER_CHECK(out.defined(), ValueError, "linalg: got an undefined out tensor");
  EMBER_CHECK(out.dtype() == r.dtype(), RuntimeError, "Expected out tensor to have dtype ", cpp_type_name(r.dtype()),
              ", but got ", cpp_type_name(out.dtype()), " instead");
  if (!out.sizes().equals(r.sizes())) resize_(out, r.sizes());
  copy_(out, r);
}

void set_out_cast(const char* api, const char* what, Tensor& out, const Tensor& r) {
  EMBER_CHECK(out.defined(), ValueError, api, ": got an undefined out tensor");
  EMBER_CHECK(can_cast(r.dtype(), out.dtype()), RuntimeError, api, ": Expected ", what, " to be safely castable from ",
              torch_type_name(r.dtype()), " dtype, but got ", what, " with dtype ", torch_type_name(out.dtype()));
  if (!out.sizes().equals(r.sizes())) resize_(out, r.sizes());
  copy_(out, r);
}

EMBER_REGISTER(linalg_factor_api) {
  const uint32_t fo = static_cast<uint32_t>(Tag::FunctionOnly);
  // out= forms of the primitives
  define_op<CholeskyExOutSig>("linalg_cholesky_ex.L(Tensor self, *, bool upper=False, bool check_errors=False, "
                              "Tensor(a!) L, Tensor(b!) info) -> (Tensor(a!) L, Tensor(b!) info)", fo);
  define_op<InvExOutSig>("linalg_inv_ex.inverse(Tensor A, *, bool check_errors=False, Tensor(a!) inverse, "
                         "Tensor(b!) info) -> (Tensor(a!) inverse, Tensor(b!) info)", fo);
  define_op<UnaryOutSig>("linalg_det.out(Tensor A, *, Tensor(a!) out) -> Tensor(a!)", fo);
  define_op<SlogdetOutSig>("linalg_slogdet.out(Tensor A, *, Tensor(a!) sign, Tensor(b!) logabsdet) -> "
                           "(Tensor(a!) sign, Tensor(b!) logabsdet)", fo);
  define_op<SolveExOutSig>("linalg_solve_ex.out(Tensor A, Tensor B, *, bool left=True, bool check_errors=False, "
                           "Tensor(a!) result, Tensor(b!) info) -> (Tensor(a!) result, Tensor(b!) info)", fo);
  define_op<LuFactorExOutSig>("linalg_lu_factor_ex.out(Tensor A, *, bool pivot=True, bool check_errors=False, "
                              "Tensor(a!) LU, Tensor(b!) pivots, Tensor(c!) info) -> "
                              "(Tensor(a!) LU, Tensor(b!) pivots, Tensor(c!) info)", fo);
  define_op<LuSolveOutSig>("linalg_lu_solve.out(Tensor LU, Tensor pivots, Tensor B, *, bool left=True, "
                           "bool adjoint=False, Tensor(a!) out) -> Tensor(a!)", fo);
  define_op<SolveTriOutSig>("linalg_solve_triangular.out(Tensor self, Tensor B, *, bool upper, bool left=True, "
                            "bool unitriangular=False, Tensor(a!) out) -> Tensor(a!)", fo);
  define_op<LdlFactorExOutSig>("linalg_ldl_factor_ex.out(Tensor self, *, bool hermitian=False, bool check_errors=False, "
                               "Tensor(a!) LD, Tensor(b!) pivots, Tensor(c!) info) -> "
                               "(Tensor(a!) LD, Tensor(b!) pivots, Tensor(c!) info)", fo);
  define_op<LdlSolveOutSig>("linalg_ldl_solve.out(Tensor LD, Tensor pivots, Tensor B, *, bool hermitian=False, "
                            "Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<CholeskyExOutSig, &cholesky_ex_out_k>("linalg_cholesky_ex.L");
  register_composite<InvExOutSig, &inv_ex_out_k>("linalg_inv_ex.inverse");
  register_composite<UnaryOutSig, &det_out_k>("linalg_det.out");
  register_composite<SlogdetOutSig, &slogdet_out_k>("linalg_slogdet.out");
  register_composite<SolveExOutSig, &solve_ex_out_k>("linalg_solve_ex.out");
  register_composite<LuFactorExOutSig, &lu_factor_ex_out_k>("linalg_lu_factor_ex.out");
  register_composite<LuSolveOutSig, &lu_solve_out_k>("linalg_lu_solve.out");
  register_composite<SolveTriOutSig, &solve_tri_out_k>("linalg_solve_triangular.out");
  register_composite<LdlFactorExOutSig, &ldl_factor_ex_out_k>("linalg_ldl_factor_ex.out");
  register_composite<LdlSolveOutSig, &ldl_solve_out_k>("linalg_ldl_solve.out");

  // torch.linalg composites
  define_op<BoolSig>("linalg_cholesky(Tensor self, *, bool upper=False) -> Tensor", fo);
  define_op<BoolOutSig>("linalg_cholesky.out(Tensor self, *, bool upper=False, Tensor(a!) out) -> Tensor(a!)", fo);
  define_op<UnarySig>("linalg_inv(Tensor A) -> Tensor", fo);
  define_op<UnaryOutSig>("linalg_inv.out(Tensor A, *, Tensor(a!) out) -> Tensor(a!)", fo);
  define_op<Solve2Sig>("linalg_solve(Tensor A, Tensor B, *, bool left=True) -> Tensor", fo);
  define_op<SolveOutSig>("linalg_solve.out(Tensor A, Tensor B, *, bool left=True, Tensor(a!) out) -> Tensor(a!)", fo);
  define_op<LuFactorSig>("linalg_lu_factor(Tensor A, *, bool pivot=True) -> (Tensor LU, Tensor pivots)", fo);
  define_op<LuFactorOutSig>("linalg_lu_factor.out(Tensor A, *, bool pivot=True, Tensor(a!) LU, Tensor(b!) pivots) -> "
                            "(Tensor(a!) LU, Tensor(b!) pivots)", fo);
  define_op<LuSig>("linalg_lu(Tensor A, *, bool pivot=True) -> (Tensor P, Tensor L, Tensor U)", fo);
  define_op<LuOutSig>("linalg_lu.out(Tensor A, *, bool pivot=True, Tensor(a!) P, Tensor(b!) L, Tensor(c!) U) -> "
                      "(Tensor(a!) P, Tensor(b!) L, Tensor(c!) U)", fo);
  define_op<LdlFactorSig>("linalg_ldl_factor(Tensor self, *, bool hermitian=False) -> (Tensor LD, Tensor pivots)", fo);
  define_op<LdlFactorOutSig>("linalg_ldl_factor.out(Tensor self, *, bool hermitian=False, Tensor(a!) LD, "
                             "Tensor(b!) pivots) -> (Tensor(a!) LD, Tensor(b!) pivots)", fo);
  define_op<IntSig>("linalg_tensorinv(Tensor self, int ind=2) -> Tensor", fo);
  define_op<IntOutSig>("linalg_tensorinv.out(Tensor self, int ind=2, *, Tensor(a!) out) -> Tensor(a!)", fo);
  define_op<TensorsolveSig>("linalg_tensorsolve(Tensor self, Tensor other, int[]? dims=None) -> Tensor", fo);
  define_op<TensorsolveOutSig>("linalg_tensorsolve.out(Tensor self, Tensor other, int[]? dims=None, *, "
                               "Tensor(a!) out) -> Tensor(a!)", fo);
  define_op<IntSig>("linalg_matrix_power(Tensor self, int n) -> Tensor", fo);
  define_op<IntOutSig>("linalg_matrix_power.out(Tensor self, int n, *, Tensor(a!) out) -> Tensor(a!)", fo);
  register_composite<BoolSig, &cholesky_k>("linalg_cholesky");
  register_composite<BoolOutSig, &cholesky_out_k>("linalg_cholesky.out");
  register_composite<UnarySig, &inv_k>("linalg_inv");
  register_composite<UnaryOutSig, &inv_out_k>("linalg_inv.out");
  register_composite<Solve2Sig, &solve_k>("linalg_solve");
  register_composite<SolveOutSig, &solve_out_k>("linalg_solve.out");
  register_composite<LuFactorSig, &lu_factor_k>("linalg_lu_factor");
  register_composite<LuFactorOutSig, &lu_factor_out_k>("linalg_lu_factor.out");
  register_composite<LuSig, &lu_k>("linalg_lu");
  register_composite<LuOutSig, &lu_out_k>("linalg_lu.out");
  register_composite<LdlFactorSig, &ldl_factor_k>("linalg_ldl_factor");
  register_composite<LdlFactorOutSig, &ldl_factor_out_k>("linalg_ldl_factor.out");
  register_composite<IntSig, &tensorinv_k>("linalg_tensorinv");
  register_composite<IntOutSig, &tensorinv_out_k>("linalg_tensorinv.out");
  register_composite<TensorsolveSig, &tensorsolve_k>("linalg_tensorsolve");
  register_composite<TensorsolveOutSig, &tensorsolve_out_k>("linalg_tensorsolve.out");
  register_composite<IntSig, &matrix_power_k>("linalg_matrix_power");
  register_composite<IntOutSig, &matrix_power_out_k>("linalg_matrix_power.out");

  // top-level forms (also Tensor methods where the first argument is self)
  define_op<UnarySig>("det(Tensor self) -> Tensor");
  define_op<UnarySig>("logdet(Tensor self) -> Tensor");
  define_op<Unary2Sig>("slogdet(Tensor self) -> (Tensor sign, Tensor logabsdet)");
  define_op<SlogdetOutSig>("slogdet.out(Tensor self, *, Tensor(a!) sign, Tensor(b!) logabsdet) -> "
                           "(Tensor(a!) sign, Tensor(b!) logabsdet)");
  define_op<UnarySig>("inverse(Tensor self) -> Tensor");
  define_op<UnaryOutSig>("inverse.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)");
  define_op<BoolSig>("cholesky(Tensor self, bool upper=False) -> Tensor");
  define_op<BoolOutSig>("cholesky.out(Tensor self, bool upper=False, *, Tensor(a!) out) -> Tensor(a!)");
  define_op<Solve2Sig>("cholesky_solve(Tensor self, Tensor input2, bool upper=False) -> Tensor");
  define_op<SolveOutSig>("cholesky_solve.out(Tensor self, Tensor input2, bool upper=False, *, Tensor(a!) out) -> "
                         "Tensor(a!)");
  define_op<BoolSig>("cholesky_inverse(Tensor self, bool upper=False) -> Tensor");
  define_op<BoolOutSig>("cholesky_inverse.out(Tensor self, bool upper=False, *, Tensor(a!) out) -> Tensor(a!)");
  define_op<TriSolveSig>("triangular_solve(Tensor self, Tensor A, bool upper=True, bool transpose=False, "
                         "bool unitriangular=False) -> (Tensor solution, Tensor cloned_coefficient)");
  define_op<TriSolveOutSig>("triangular_solve.X(Tensor self, Tensor A, bool upper=True, bool transpose=False, "
                            "bool unitriangular=False, *, Tensor(a!) X, Tensor(b!) M) -> "
                            "(Tensor(a!) solution, Tensor(b!) cloned_coefficient)");
  define_op<LuSolveTopSig>("lu_solve(Tensor self, Tensor LU_data, Tensor LU_pivots) -> Tensor");
  define_op<LuSolveTopOutSig>("lu_solve.out(Tensor self, Tensor LU_data, Tensor LU_pivots, *, Tensor(a!) out) -> "
                              "Tensor(a!)");
  define_op<LuUnpackSig>("lu_unpack(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, "
                         "bool unpack_pivots=True) -> (Tensor P, Tensor L, Tensor U)", fo);
  define_op<LuUnpackOutSig>("lu_unpack.out(Tensor LU_data, Tensor LU_pivots, bool unpack_data=True, "
                            "bool unpack_pivots=True, *, Tensor(a!) P, Tensor(b!) L, Tensor(c!) U) -> "
                            "(Tensor(a!) P, Tensor(b!) L, Tensor(c!) U)", fo);
  define_op<IntSig>("matrix_power(Tensor self, int n) -> Tensor");
  define_op<IntOutSig>("matrix_power.out(Tensor self, int n, *, Tensor(a!) out) -> Tensor(a!)");
  register_composite<UnarySig, &det_c>("det");
  register_composite<UnarySig, &logdet_k>("logdet");
  register_composite<Unary2Sig, &slogdet_c>("slogdet");
  register_composite<SlogdetOutSig, &slogdet_out_k>("slogdet.out");
  register_composite<UnarySig, &inv_k>("inverse");
  register_composite<UnaryOutSig, &inverse_out_k>("inverse.out");
  register_composite<BoolSig, &cholesky_top_k>("cholesky");
  register_composite<BoolOutSig, &cholesky_top_out_k>("cholesky.out");
  register_composite<Solve2Sig, &cholesky_solve_k>("cholesky_solve");
  register_composite<SolveOutSig, &cholesky_solve_out_k>("cholesky_solve.out");
  register_composite<BoolSig, &cholesky_inverse_k>("cholesky_inverse");
  register_composite<BoolOutSig, &cholesky_inverse_out_k>("cholesky_inverse.out");
  register_composite<TriSolveSig, &triangular_solve_k>("triangular_solve");
  register_composite<TriSolveOutSig, &triangular_solve_out_k>("triangular_solve.X");
  register_composite<LuSolveTopSig, &lu_solve_top_k>("lu_solve");
  register_composite<LuSolveTopOutSig, &lu_solve_top_out_k>("lu_solve.out");
  register_composite<LuUnpackSig, &lu_unpack_k>("lu_unpack");
  register_composite<LuUnpackOutSig, &lu_unpack_out_k>("lu_unpack.out");
  register_composite<IntSig, &matrix_power_k>("matrix_power");
  register_composite<IntOutSig, &matrix_power_out_k>("matrix_power.out");
}

}  // namespace ember::linalg_factor_ops

// ---------------------------------------------------------------- C++ front functions
namespace ember {
namespace linalg {
using namespace linalg_factor_ops;
#define EMBER_FRONT(Sig, name, ...) \
  static const TypedOp<Sig> op(name); \
  return op.call(__VA_ARGS__)

Tensors2 cholesky_ex(const Tensor& A, bool upper, bool check_errors) { return cholesky_ex_c(A, upper, check_errors); }
Tensor cholesky(const Tensor& A, bool upper) { EMBER_FRONT(Tensor(const Tensor&, bool), "linalg_cholesky", A, upper); }
Tensor& cholesky_out(Tensor& out, const Tensor& A, bool upper) {
  EMBER_FRONT(Tensor&(const Tensor&, bool, Tensor&), "linalg_cholesky.out", A, upper, out);
}
Tensors2 inv_ex(const Tensor& A, bool check_errors) { return inv_ex_c(A, check_errors); }
Tensor inv(const Tensor& A) { EMBER_FRONT(Tensor(const Tensor&), "linalg_inv", A); }
Tensor& inv_out(Tensor& out, const Tensor& A) { EMBER_FRONT(Tensor&(const Tensor&, Tensor&), "linalg_inv.out", A, out); }
Tensor det(const Tensor& A) { return det_c(A); }
Tensor& det_out(Tensor& out, const Tensor& A) { EMBER_FRONT(Tensor&(const Tensor&, Tensor&), "linalg_det.out", A, out); }
Tensors2 slogdet(const Tensor& A) { return slogdet_c(A); }
Tensors2 solve_ex(const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  return solve_ex_c(A, B, left, check_errors);
}
Tensor solve(const Tensor& A, const Tensor& B, bool left) {
  EMBER_FRONT(Tensor(const Tensor&, const Tensor&, bool), "linalg_solve", A, B, left);
}
Tensor& solve_out(Tensor& out, const Tensor& A, const Tensor& B, bool left) {
  EMBER_FRONT(Tensor&(const Tensor&, const Tensor&, bool, Tensor&), "linalg_solve.out", A, B, left, out);
}
Tensors3 lu_factor_ex(const Tensor& A, bool pivot, bool check_errors) { return lu_factor_ex_c(A, pivot, check_errors); }
Tensors2 lu_factor(const Tensor& A, bool pivot) { EMBER_FRONT(Tensors2(const Tensor&, bool), "linalg_lu_factor", A, pivot); }
Tensors3 lu(const Tensor& A, bool pivot) { EMBER_FRONT(Tensors3(const Tensor&, bool), "linalg_lu", A, pivot); }
Tensor lu_solve(const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  return lu_solve_c(LU, pivots, B, left, adjoint);
}
Tensor solve_triangular(const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  return solve_tri_c(A, B, upper, left, unitriangular);
}
Tensors3 ldl_factor_ex(const Tensor& A, bool hermitian, bool check_errors) {
  return ldl_factor_ex_c(A, hermitian, check_errors);
}
Tensors2 ldl_factor(const Tensor& A, bool hermitian) {
  EMBER_FRONT(Tensors2(const Tensor&, bool), "linalg_ldl_factor", A, hermitian);
}
Tensor ldl_solve(const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian) {
  return ldl_solve_c(LD, pivots, B, hermitian);
}
Tensor tensorinv(const Tensor& A, int64_t ind) { EMBER_FRONT(Tensor(const Tensor&, int64_t), "linalg_tensorinv", A, ind); }
Tensor tensorsolve(const Tensor& A, const Tensor& B, std::optional<IntArrayRef> dims) {
  EMBER_FRONT(Tensor(const Tensor&, const Tensor&, std::optional<IntArrayRef>), "linalg_tensorsolve", A, B, dims);
}
Tensor matrix_power(const Tensor& A, int64_t n) {
  EMBER_FRONT(Tensor(const Tensor&, int64_t), "linalg_matrix_power", A, n);
}

// out= forms: the dispatcher's .out ops (linalg_factor_api's registrations above)
using T2 = std::tuple<Tensor&, Tensor&>;
using T3 = std::tuple<Tensor&, Tensor&, Tensor&>;
T2 cholesky_ex_out(Tensor& L, Tensor& info, const Tensor& A, bool upper, bool check_errors) {
  EMBER_FRONT(T2(const Tensor&, bool, bool, Tensor&, Tensor&), "linalg_cholesky_ex.L", A, upper, check_errors, L, info);
}
T2 inv_ex_out(Tensor& inverse, Tensor& info, const Tensor& A, bool check_errors) {
  EMBER_FRONT(T2(const Tensor&, bool, Tensor&, Tensor&), "linalg_inv_ex.inverse", A, check_errors, inverse, info);
}
T2 slogdet_out(Tensor& sign, Tensor& logabsdet, const Tensor& A) {
  EMBER_FRONT(T2(const Tensor&, Tensor&, Tensor&), "linalg_slogdet.out", A, sign, logabsdet);
}
T2 solve_ex_out(Tensor& result, Tensor& info, const Tensor& A, const Tensor& B, bool left, bool check_errors) {
  EMBER_FRONT(T2(const Tensor&, const Tensor&, bool, bool, Tensor&, Tensor&), "linalg_solve_ex.out", A, B, left,
              check_errors, result, info);
}
T3 lu_factor_ex_out(Tensor& LU, Tensor& pivots, Tensor& info, const Tensor& A, bool pivot, bool check_errors) {
  EMBER_FRONT(T3(const Tensor&, bool, bool, Tensor&, Tensor&, Tensor&), "linalg_lu_factor_ex.out", A, pivot,
              check_errors, LU, pivots, info);
}
T2 lu_factor_out(Tensor& LU, Tensor& pivots, const Tensor& A, bool pivot) {
  EMBER_FRONT(T2(const Tensor&, bool, Tensor&, Tensor&), "linalg_lu_factor.out", A, pivot, LU, pivots);
}
T3 lu_out(Tensor& P, Tensor& L, Tensor& U, const Tensor& A, bool pivot) {
  EMBER_FRONT(T3(const Tensor&, bool, Tensor&, Tensor&, Tensor&), "linalg_lu.out", A, pivot, P, L, U);
}
Tensor& lu_solve_out(Tensor& out, const Tensor& LU, const Tensor& pivots, const Tensor& B, bool left, bool adjoint) {
  EMBER_FRONT(Tensor&(const Tensor&, const Tensor&, const Tensor&, bool, bool, Tensor&), "linalg_lu_solve.out", LU,
              pivots, B, left, adjoint, out);
}
Tensor& solve_triangular_out(Tensor& out, const Tensor& A, const Tensor& B, bool upper, bool left, bool unitriangular) {
  EMBER_FRONT(Tensor&(const Tensor&, const Tensor&, bool, bool, bool, Tensor&), "linalg_solve_triangular.out", A, B,
              upper, left, unitriangular, out);
}
T3 ldl_factor_ex_out(Tensor& LD, Tensor& pivots, Tensor& info, const Tensor& A, bool hermitian, bool check_errors) {
  EMBER_FRONT(T3(const Tensor&, bool, bool, Tensor&, Tensor&, Tensor&), "linalg_ldl_factor_ex.out", A, hermitian,
              check_errors, LD, pivots, info);
}
T2 ldl_factor_out(Tensor& LD, Tensor& pivots, const Tensor& A, bool hermitian) {
  EMBER_FRONT(T2(const Tensor&, bool, Tensor&, Tensor&), "linalg_ldl_factor.out", A, hermitian, LD, pivots);
}
Tensor& ldl_solve_out(Tensor& out, const Tensor& LD, const Tensor& pivots, const Tensor& B, bool hermitian) {
  EMBER_FRONT(Tensor&(const Tensor&, const Tensor&, const Tensor&, bool, Tensor&), "linalg_ldl_solve.out", LD, pivots,
              B, hermitian, out);
}
Tensor& tensorinv_out(Tensor& out, const Tensor& A, int64_t ind) {
  EMBER_FRONT(Tensor&(const Tensor&, int64_t, Tensor&), "linalg_tensorinv.out", A, ind, out);
}
Tensor& tensorsolve_out(Tensor& out, const Tensor& A, const Tensor& B, std::optional<IntArrayRef> dims) {
  EMBER_FRONT(Tensor&(const Tensor&, const Tensor&, std::optional<IntArrayRef>, Tensor&), "linalg_tensorsolve.out", A,
              B, dims, out);
}
Tensor& matrix_power_out(Tensor& out, const Tensor& A, int64_t n) {
  EMBER_FRONT(Tensor&(const Tensor&, int64_t, Tensor&), "linalg_matrix_power.out", A, n, out);
}
}  // namespace linalg

Tensor det(const Tensor& A) { EMBER_FRONT(Tensor(const Tensor&), "det", A); }
Tensor logdet(const Tensor& A) { EMBER_FRONT(Tensor(const Tensor&), "logdet", A); }
std::tuple<Tensor, Tensor> slogdet(const Tensor& A) {
  EMBER_FRONT(linalg_factor_ops::Tensors2(const Tensor&), "slogdet", A);
}
Tensor inverse(const Tensor& A) { EMBER_FRONT(Tensor(const Tensor&), "inverse", A); }
Tensor cholesky(const Tensor& A, bool upper) { EMBER_FRONT(Tensor(const Tensor&, bool), "cholesky", A, upper); }
Tensor cholesky_solve(const Tensor& B, const Tensor& L, bool upper) {
  EMBER_FRONT(Tensor(const Tensor&, const Tensor&, bool), "cholesky_solve", B, L, upper);
}
Tensor cholesky_inverse(const Tensor& L, bool upper) {
  EMBER_FRONT(Tensor(const Tensor&, bool), "cholesky_inverse", L, upper);
}
std::tuple<Tensor, Tensor> triangular_solve(const Tensor& B, const Tensor& A, bool upper, bool transpose,
                                            bool unitriangular) {
  EMBER_FRONT(linalg_factor_ops::Tensors2(const Tensor&, const Tensor&, bool, bool, bool), "triangular_solve", B, A, upper,
              transpose, unitriangular);
}
Tensor lu_solve(const Tensor& B, const Tensor& LU, const Tensor& pivots) {
  EMBER_FRONT(Tensor(const Tensor&, const Tensor&, const Tensor&), "lu_solve", B, LU, pivots);
}
std::tuple<Tensor, Tensor, Tensor> lu_unpack(const Tensor& LU, const Tensor& pivots, bool unpack_data,
                                             bool unpack_pivots) {
  EMBER_FRONT(linalg_factor_ops::Tensors3(const Tensor&, const Tensor&, bool, bool), "lu_unpack", LU, pivots, unpack_data,
              unpack_pivots);
}
Tensor matrix_power(const Tensor& A, int64_t n) { EMBER_FRONT(Tensor(const Tensor&, int64_t), "matrix_power", A, n); }
std::tuple<Tensor&, Tensor&> slogdet_out(Tensor& sign, Tensor& logabsdet, const Tensor& A) {
  EMBER_FRONT(linalg::T2(const Tensor&, Tensor&, Tensor&), "slogdet.out", A, sign, logabsdet);
}
Tensor& inverse_out(Tensor& out, const Tensor& A) { EMBER_FRONT(Tensor&(const Tensor&, Tensor&), "inverse.out", A, out); }
Tensor& cholesky_out(Tensor& out, const Tensor& A, bool upper) {
  EMBER_FRONT(Tensor&(const Tensor&, bool, Tensor&), "cholesky.out", A, upper, out);
}
Tensor& cholesky_solve_out(Tensor& out, const Tensor& B, const Tensor& L, bool upper) {
  EMBER_FRONT(Tensor&(const Tensor&, const Tensor&, bool, Tensor&), "cholesky_solve.out", B, L, upper, out);
}
Tensor& cholesky_inverse_out(Tensor& out, const Tensor& L, bool upper) {
  EMBER_FRONT(Tensor&(const Tensor&, bool, Tensor&), "cholesky_inverse.out", L, upper, out);
}
std::tuple<Tensor&, Tensor&> triangular_solve_out(Tensor& X, Tensor& M, const Tensor& B, const Tensor& A, bool upper,
                                                  bool transpose, bool unitriangular) {
  EMBER_FRONT(linalg::T2(const Tensor&, const Tensor&, bool, bool, bool, Tensor&, Tensor&), "triangular_solve.X", B, A,
              upper, transpose, unitriangular, X, M);
}
Tensor& lu_solve_out(Tensor& out, const Tensor& B, const Tensor& LU, const Tensor& pivots) {
  EMBER_FRONT(Tensor&(const Tensor&, const Tensor&, const Tensor&, Tensor&), "lu_solve.out", B, LU, pivots, out);
}
std::tuple<Tensor&, Tensor&, Tensor&> lu_unpack_out(Tensor& P, Tensor& L, Tensor& U, const Tensor& LU,
                                                    const Tensor& pivots, bool unpack_data, bool unpack_pivots) {
  EMBER_FRONT(linalg::T3(const Tensor&, const Tensor&, bool, bool, Tensor&, Tensor&, Tensor&), "lu_unpack.out", LU,
              pivots, unpack_data, unpack_pivots, P, L, U);
}
Tensor& matrix_power_out(Tensor& out, const Tensor& A, int64_t n) {
  EMBER_FRONT(Tensor&(const Tensor&, int64_t, Tensor&), "matrix_power.out", A, n, out);
}
#undef EMBER_FRONT
}  // namespace ember
#undef EMBER_CALL
