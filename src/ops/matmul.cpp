// Matrix products through BLAS: matmul (torch.matmul's rules: dot, mv, vm, mm and batched
// products with broadcast batch dims), mm, bmm, dot, vdot, mv, outer, and the fused
// beta * self + alpha * (product) family addmm, addmv, addr, baddbmm, addbmm.
//
// Dtype rules follow PyTorch 1.13 on CPU: both operands must share one dtype (no promotion);
// float32/float64/complex go through BLAS (see backends/cpu/blas.cpp), bfloat16 computes in
// float32 and rounds once, integer types wrap; bool and float16 are rejected.
#include <algorithm>

#include "autograd/out_check.h"
#include "backends/cpu/blas.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ember/ops/products.h"
#include "ops/iter.h"

namespace ember {

namespace {

void check_operands(const char* op, const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.defined() && b.defined(), ValueError, op, "(): got an undefined tensor");
  EMBER_CHECK(a.device() == b.device(), RuntimeError,
              "Expected all tensors to be on the same device, but found at least two devices, ", a.device(),
              " and ", b.device(), "! (in ", op, ")");
  EMBER_CHECK(a.is_cpu() || a.is_meta(), NotImplementedError, op, "(): no kernel for device ", a.device());
  EMBER_CHECK(a.dtype() == b.dtype(), RuntimeError, op, "(): expected both arguments to have the same dtype, but got ",
              a.dtype(), " and ", b.dtype());
  const ScalarType dt = a.dtype();
  EMBER_CHECK(dt != kBool && dt != kHalf, RuntimeError, "\"", op, "\" not implemented for '", dt, "'");
}

// A batch of matrices [B, r, c] (strides in elements) read from a tensor whose leading dims
// are batch dims: a view when the batch dims fold into one stride, else a copy.
Tensor as_batch(const Tensor& t, int64_t batch, int64_t r, int64_t c) { return t.reshape({batch, r, c}); }

// out[B, m, n] = alpha * a[B, m, k] @ b[B, k, n] + beta * out (out only read when beta != 0),
// all on the CPU, out contiguous-or-not.
void run_gemm(const Tensor& a, const Tensor& b, const Tensor& out, const Scalar& alpha = 1,
              const Scalar& beta = 0) {
  if (out.numel() == 0) return;
  if (a.dtype() == kBFloat16) {
    // Computed in float32 and rounded once.
    Tensor tmp = beta.to_complex() == complex128(0) ? empty(out.sizes(), kFloat) : out.to(kFloat);
    run_gemm(a.to(kFloat), b.to(kFloat), tmp, alpha, beta);
    Tensor o = out;
    copy_(o, tmp);
    return;
  }
  // An inner dimension of 1 is an outer product per batch entry (the weight gradients of
  // per-sample products): one broadcast multiply instead of a BLAS call per entry, far slower.
  if (a.sizes()[2] == 1 && (a.dtype() == kFloat || a.dtype() == kDouble) && beta.to_complex() == complex128(0) &&
      alpha.to_complex() == complex128(1)) {
    Tensor o = out;
    mul_out(o, a, b);
    return;
  }
  cpu::GemmArgs g;
  g.alpha = alpha.to_complex();
  g.beta = beta.to_complex();
  g.dtype = a.dtype();
  g.batch = out.sizes()[0];
  g.m = out.sizes()[1];
  g.n = out.sizes()[2];
  g.k = a.sizes()[2];
  g.a = a.data_ptr();
  g.a_batch = a.strides()[0];
  g.a_rs = a.strides()[1];
  g.a_cs = a.strides()[2];
  g.b = b.data_ptr();
  g.b_batch = b.strides()[0];
  g.b_rs = b.strides()[1];
  g.b_cs = b.strides()[2];
  g.c = out.data_ptr();
  g.c_batch = out.strides()[0];
  g.c_rs = out.strides()[1];
  g.c_cs = out.strides()[2];
  // A matrix shared by every batch entry (batch stride 0: a weight expanded over vmap's
  // samples) times entries whose rows (or columns) lie evenly spaced: one product over all
  // of them instead of a matrix-vector product per entry.
  const auto folds = [](int64_t batch_stride, int64_t count, int64_t stride) {
    return count == 1 || batch_stride == count * stride;
  };
  if (g.batch > 1 && g.b_batch == 0 && folds(g.a_batch, g.m, g.a_rs) && folds(g.c_batch, g.m, g.c_rs)) {
    if (g.m == 1) g.a_rs = g.a_batch, g.c_rs = g.c_batch;
    g.m *= g.batch;
    g.batch = 1;
  } else if (g.batch > 1 && g.a_batch == 0 && folds(g.b_batch, g.n, g.b_cs) && folds(g.c_batch, g.n, g.c_cs)) {
    if (g.n == 1) g.b_cs = g.b_batch, g.c_cs = g.c_batch;
    g.n *= g.batch;
    g.batch = 1;
  }
  // A size-1 batch never steps.
  if (g.batch == 1) g.a_batch = g.b_batch = g.c_batch = 0;
  cpu::gemm(g);
}

// The stride with which dims [begin, end) step as one flattened dim (0 when all have size
// 1), or -1 when they do not fold into one stride.
int64_t folded_stride(IntArrayRef sizes, IntArrayRef strides, int64_t begin, int64_t end) {
  int64_t stride = 0, next = -1;
  for (int64_t d = end - 1; d >= begin; --d) {
    if (sizes[d] == 1) continue;
    if (next >= 0 && strides[d] != next) return -1;
    if (next < 0) stride = strides[d];
    next = strides[d] * sizes[d];
  }
  return stride;
}

// out (contiguous, [batch..., m, n]) = A [batch..., m, k] @ B [batch..., k, n] without copying
// operands whose batch dims do not fold into one stride but do fold into two (the outer ones,
// and the last): the heads of a packed attention projection, read in place. Returns false
// (nothing done) when that does not apply; the caller then packs.
bool gemm_nested(const Tensor& A, const Tensor& B, const Tensor& out, int64_t nb) {
  if (nb < 2 || A.dtype() == kBFloat16) return false;
  const IntArrayRef as = A.sizes(), at = A.strides(), bs = B.sizes(), bt = B.strides();
  if (folded_stride(as, at, 0, nb) >= 0 && folded_stride(bs, bt, 0, nb) >= 0) return false;  // a view will do
  const int64_t a_outer = folded_stride(as, at, 0, nb - 1), b_outer = folded_stride(bs, bt, 0, nb - 1);
  if (a_outer < 0 || b_outer < 0) return false;
  cpu::GemmArgs g;
  g.dtype = A.dtype();
  g.m = as[nb];
  g.k = as[nb + 1];
  g.n = bs[nb + 1];
  g.inner = as[nb - 1];
  g.batch = compute_numel(as.slice(0, nb));
  g.a = A.data_ptr();
  g.a_outer = a_outer;
  g.a_batch = at[nb - 1];
  g.a_rs = at[nb];
  g.a_cs = at[nb + 1];
  g.b = B.data_ptr();
  g.b_outer = b_outer;
  g.b_batch = bt[nb - 1];
  g.b_rs = bt[nb];
  g.b_cs = bt[nb + 1];
  g.c = out.data_ptr();
  g.c_batch = g.m * g.n;
  g.c_outer = g.inner * g.c_batch;
  g.c_rs = g.n;
  g.c_cs = 1;
  cpu::gemm(g);
  return true;
}

struct Plan {
  DimVector out_shape;   // the result's shape
  DimVector batch;       // broadcast batch dims
  int64_t m = 1, n = 1, k = 1;
  bool a_vec = false, b_vec = false;
};

Plan plan_matmul(const Tensor& a, const Tensor& b) {
  const int64_t da = a.dim(), db = b.dim();
  EMBER_CHECK(da >= 1 && db >= 1, RuntimeError, "both arguments to matmul need to be at least 1D, but they are ",
              da, "D and ", db, "D");
  Plan p;
  p.a_vec = da == 1;
  p.b_vec = db == 1;
  p.m = p.a_vec ? 1 : a.sizes()[da - 2];
  p.k = a.sizes()[da - 1];
  const int64_t kb = p.b_vec ? b.sizes()[0] : b.sizes()[db - 2];
  p.n = p.b_vec ? 1 : b.sizes()[db - 1];
  if (p.a_vec && p.b_vec)
    EMBER_CHECK(p.k == kb, RuntimeError, "inconsistent tensor size, expected tensor [", p.k, "] and src [", kb,
                "] to have the same number of elements, but got ", p.k, " and ", kb, " elements respectively");
  else if (da <= 2 && db <= 2)
    EMBER_CHECK(p.k == kb, RuntimeError, "mat1 and mat2 shapes cannot be multiplied (", p.m, "x", p.k, " and ",
                kb, "x", p.n, ")");
  else
    EMBER_CHECK(p.k == kb, RuntimeError, "matmul(): shapes ", a.sizes(), " and ", b.sizes(),
                " cannot be multiplied (", p.k, " != ", kb, ")");
  IntArrayRef ba = da > 2 ? a.sizes().slice(0, da - 2) : IntArrayRef();
  IntArrayRef bb = db > 2 ? b.sizes().slice(0, db - 2) : IntArrayRef();
  p.batch = broadcast_shapes(ba, bb);
  p.out_shape = p.batch;
  if (!p.a_vec) p.out_shape.push_back(p.m);
  if (!p.b_vec) p.out_shape.push_back(p.n);
  return p;
}

// Writes a @ b (checked by plan_matmul) into `out`, which has p.out_shape.
void matmul_into(const Tensor& a, const Tensor& b, const Plan& p, const Tensor& out) {
  if (out.numel() == 0) return;
  Tensor a2 = p.a_vec ? a.unsqueeze(0) : a;   // [..., m, k]
  Tensor b2 = p.b_vec ? b.unsqueeze(-1) : b;  // [..., k, n]
  const int64_t batch = compute_numel(p.batch);
  Tensor A, B;
  if (b2.dim() == 2 && a2.dim() > 2) {
    // Fold a's batch into its rows: one large product instead of many small ones.
    A = a2.reshape({1, batch * p.m, p.k});
    B = b2.unsqueeze(0);
    Tensor o = out.is_contiguous() ? out.view({1, batch * p.m, p.n}) : Tensor();
    if (o.defined()) return run_gemm(A, B, o);
  }
  DimVector ea(p.batch), eb(p.batch);
  ea.push_back(p.m);
  ea.push_back(p.k);
  eb.push_back(p.k);
  eb.push_back(p.n);
  A = a2.expand(ea);
  B = b2.expand(eb);
  if (out.is_contiguous() && gemm_nested(A, B, out, static_cast<int64_t>(p.batch.size()))) return;
  A = as_batch(A, batch, p.m, p.k);
  B = as_batch(B, batch, p.k, p.n);
  if (out.is_contiguous()) return run_gemm(A, B, out.view({batch, p.m, p.n}));
  Tensor tmp = empty({batch, p.m, p.n}, out.dtype());
  run_gemm(A, B, tmp);
  Tensor o = out;
  copy_(o, tmp.view(out.sizes()));
}

Tensor matmul_k(const Tensor& a, const Tensor& b) {
  check_operands("matmul", a, b);
  Plan p = plan_matmul(a, b);
  Tensor out = empty(p.out_shape, TensorOptions(a.dtype()).device(a.device()));
  if (!a.is_meta()) matmul_into(a, b, p, out);
  return out;
}

Tensor& matmul_out_k(const Tensor& a, const Tensor& b, Tensor& out) {
  check_operands("matmul", a, b);
  EMBER_CHECK(out.defined(), ValueError, "matmul(): got an undefined out tensor");
  EMBER_CHECK(out.device() == a.device(), RuntimeError, "matmul(): Expected out tensor on ", a.device(),
              ", but got it on ", out.device());
  EMBER_CHECK(out.dtype() == a.dtype(), RuntimeError, "matmul(): Expected out tensor to have dtype ", a.dtype(),
              ", but got ", out.dtype(), " instead");
  Plan p = plan_matmul(a, b);
  if (!out.sizes().equals(p.out_shape)) resize_(out, p.out_shape);
  if (a.is_meta()) return out;
  // Results never go straight into memory the inputs are read from.
  if (out.is_alias_of(a) || out.is_alias_of(b)) {
    Tensor tmp = empty(p.out_shape, a.dtype());
    matmul_into(a, b, p, tmp);
    copy_(out, tmp);
  } else {
    matmul_into(a, b, p, out);
  }
  out.bump_version();
  return out;
}

Tensor mm_k(const Tensor& a, const Tensor& b) {
  check_operands("mm", a, b);
  EMBER_CHECK(a.dim() == 2, RuntimeError, "mm(): self must be a matrix, got a ", a.dim(), "-D tensor");
  EMBER_CHECK(b.dim() == 2, RuntimeError, "mm(): mat2 must be a matrix, got a ", b.dim(), "-D tensor");
  EMBER_CHECK(a.sizes()[1] == b.sizes()[0], RuntimeError, "mat1 and mat2 shapes cannot be multiplied (",
              a.sizes()[0], "x", a.sizes()[1], " and ", b.sizes()[0], "x", b.sizes()[1], ")");
  Tensor out = empty({a.sizes()[0], b.sizes()[1]}, TensorOptions(a.dtype()).device(a.device()));
  if (!a.is_meta()) run_gemm(a.unsqueeze(0), b.unsqueeze(0), out.unsqueeze(0));
  return out;
}

Tensor bmm_k(const Tensor& a, const Tensor& b) {
  check_operands("bmm", a, b);
  EMBER_CHECK(a.dim() == 3, RuntimeError, "bmm(): batch1 must be a 3D tensor, got a ", a.dim(), "-D tensor");
  EMBER_CHECK(b.dim() == 3, RuntimeError, "bmm(): batch2 must be a 3D tensor, got a ", b.dim(), "-D tensor");
  EMBER_CHECK(b.sizes()[0] == a.sizes()[0] && b.sizes()[1] == a.sizes()[2], RuntimeError,
              "bmm(): Expected size for first two dimensions of batch2 tensor to be: [", a.sizes()[0], ", ",
              a.sizes()[2], "] but got: [", b.sizes()[0], ", ", b.sizes()[1], "].");
  Tensor out = empty({a.sizes()[0], a.sizes()[1], b.sizes()[2]}, TensorOptions(a.dtype()).device(a.device()));
  if (!a.is_meta()) run_gemm(a, b, out);
  return out;
}

// ---------------------------------------------------------------- fused products
// Complex coefficients need complex operands. (Floating coefficients on integer operands are
// truncated, as PyTorch 1.13's BLAS-backed products do.)
void check_coefficients(const char* op, ScalarType dt, const Scalar& beta, const Scalar& alpha) {
  if (!is_complex(dt))
    EMBER_CHECK(!beta.is_complex() && !alpha.is_complex(), RuntimeError, op,
                "(): complex beta or alpha needs complex operands, got ", dt);
}

void check_same_dtype(const char* op, const Tensor& self, const Tensor& a) {
  EMBER_CHECK(self.defined(), ValueError, op, "(): got an undefined tensor");
  EMBER_CHECK(self.dtype() == a.dtype(), RuntimeError, op, "(): expected self and the matrices to have the same dtype, "
              "but got ", self.dtype(), " and ", a.dtype());
  EMBER_CHECK(self.device() == a.device(), RuntimeError,
              "Expected all tensors to be on the same device, but found at least two devices, ", self.device(),
              " and ", a.device(), "! (in ", op, ")");
}

// linear's case, beta == alpha == 1 and self a row repeated down the rows of one float32
// product: oneDNN adds the row as it writes each tile, instead of result being prefilled.
bool bias_epilogue(const Tensor& self, const Tensor& A, const Tensor& B, const Tensor& result, const Scalar& beta,
                   const Scalar& alpha) {
  if (A.dtype() != kFloat || result.sizes()[0] != 1 || beta.to_complex() != complex128(1) ||
      alpha.to_complex() != complex128(1))
    return false;
  const int64_t m = result.sizes()[1], n = result.sizes()[2];
  if (m < 2 || self.strides()[1] != 0 || (n > 1 && self.strides()[2] != 1)) return false;
  cpu::GemmArgs g;
  g.dtype = kFloat;
  g.m = m;
  g.n = n;
  g.k = A.sizes()[2];
  g.a = A.data_ptr();
  g.a_rs = A.strides()[1];
  g.a_cs = A.strides()[2];
  g.b = B.data_ptr();
  g.b_rs = B.strides()[1];
  g.b_cs = B.strides()[2];
  g.c = result.data_ptr();
  g.c_rs = result.strides()[1];
  g.c_cs = 1;
  return cpu::gemm_bias(g, self.data_ptr());
}

// result = beta * self + alpha * (A @ B), with A [batch, m, k], B [batch, k, n] and `result`
// [batch, m, n] (a view of the caller's output). `self` is already expanded to result's shape
// and may be result itself (the in-place forms). beta == 0 ignores self, NaNs included.
void fused_product(const Tensor& self, const Tensor& A, const Tensor& B, const Tensor& result, const Scalar& beta,
                   const Scalar& alpha) {
  if (result.numel() == 0) return;
  const bool reads_self = beta.to_complex() != complex128(0);
  const bool aliased = result.is_alias_of(A) || result.is_alias_of(B);
  if (!aliased && result.is_contiguous()) {
    if (reads_self && !self.is_same(result)) {
      if (bias_epilogue(self, A, B, result, beta, alpha)) return;
      Tensor r = result;
      copy_(r, self);
    }
    return run_gemm(A, B, result, alpha, reads_self ? beta : Scalar(0));
  }
  Tensor tmp = reads_self ? self.contiguous().clone() : empty(result.sizes(), result.dtype());
  run_gemm(A, B, tmp, alpha, reads_self ? beta : Scalar(0));
  Tensor r = result;
  copy_(r, tmp);
}

// The output of an add* op: `out` resized (or a new tensor), checked like torch's out=.
Tensor& prepare_out(const char* op, Tensor& out, IntArrayRef shape, const Tensor& like) {
  EMBER_CHECK(out.dtype() == like.dtype(), RuntimeError, op, "(): Expected out tensor to have dtype ", like.dtype(),
              ", but got ", out.dtype(), " instead");
  EMBER_CHECK(out.device() == like.device(), RuntimeError, op, "(): Expected out tensor on ", like.device(),
              ", but got it on ", out.device());
  if (!out.sizes().equals(shape)) resize_(out, shape);
  return out;
}

void check_matrix(const char* op, const char* what, const Tensor& t, int64_t dims) {
  EMBER_CHECK(t.dim() == dims, RuntimeError, op, "(): ", what, " must be a ", dims == 1 ? "vector" :
              dims == 2 ? "matrix" : "3D tensor", ", got ", t.dim(), "-D tensor");
}

// Shapes: addmm [m, n]; checks and returns the result's shape.
DimVector addmm_shape(const Tensor& self, const Tensor& m1, const Tensor& m2) {
  check_operands("addmm", m1, m2);
  check_same_dtype("addmm", self, m1);
  check_matrix("addmm", "mat1", m1, 2);
  check_matrix("addmm", "mat2", m2, 2);
  EMBER_CHECK(m1.sizes()[1] == m2.sizes()[0], RuntimeError, "mat1 and mat2 shapes cannot be multiplied (",
              m1.sizes()[0], "x", m1.sizes()[1], " and ", m2.sizes()[0], "x", m2.sizes()[1], ")");
  return DimVector{m1.sizes()[0], m2.sizes()[1]};
}
DimVector baddbmm_shape(const char* op, const Tensor& self, const Tensor& b1, const Tensor& b2) {
  check_operands(op, b1, b2);
  check_same_dtype(op, self, b1);
  check_matrix(op, "batch1", b1, 3);
  check_matrix(op, "batch2", b2, 3);
  EMBER_CHECK(b1.sizes()[0] == b2.sizes()[0] && b1.sizes()[2] == b2.sizes()[1], RuntimeError, op,
              "(): Expected size for first two dimensions of batch2 tensor to be: [", b1.sizes()[0], ", ",
              b1.sizes()[2], "] but got: [", b2.sizes()[0], ", ", b2.sizes()[1], "].");
  return DimVector{b1.sizes()[0], b1.sizes()[1], b2.sizes()[2]};
}
DimVector addmv_shape(const Tensor& self, const Tensor& mat, const Tensor& vec) {
  check_operands("addmv", mat, vec);
  check_same_dtype("addmv", self, mat);
  check_matrix("addmv", "mat", mat, 2);
  check_matrix("addmv", "vec", vec, 1);
  EMBER_CHECK(mat.sizes()[1] == vec.sizes()[0], RuntimeError, "size mismatch, got input (", mat.sizes()[0],
              "), mat (", mat.sizes()[0], "x", mat.sizes()[1], "), vec (", vec.sizes()[0], ")");
  return DimVector{mat.sizes()[0]};
}

// Each add* op reduces to fused_product on [batch, m, k] @ [batch, k, n] views.
enum class Fused { Addmm, Addmv, Baddbmm, Addbmm };

DimVector fused_shape(Fused f, const Tensor& self, const Tensor& a, const Tensor& b) {
  switch (f) {
    case Fused::Addmm: return addmm_shape(self, a, b);
    case Fused::Addmv: return addmv_shape(self, a, b);
    case Fused::Baddbmm: return baddbmm_shape("baddbmm", self, a, b);
    case Fused::Addbmm: {
      DimVector s = baddbmm_shape("addbmm", self, a, b);
      return DimVector{s[1], s[2]};
    }
  }
  return {};
}

constexpr const char* fused_name(Fused f) {
  return f == Fused::Addmm ? "addmm" : f == Fused::Addmv ? "addmv" : f == Fused::Baddbmm ? "baddbmm" : "addbmm";
}

// Writes beta * self + alpha * product into `result` (already of the right shape).
void fused_into(Fused f, const Tensor& self, const Tensor& a, const Tensor& b, const Tensor& result,
                const Scalar& beta, const Scalar& alpha) {
  const Tensor s = self.expand(result.sizes());
  switch (f) {
    case Fused::Addmm:
      return fused_product(s.unsqueeze(0), a.unsqueeze(0), b.unsqueeze(0), result.unsqueeze(0), beta, alpha);
    case Fused::Addmv:
      return fused_product(s.view({1, -1, 1}), a.unsqueeze(0), b.view({1, -1, 1}), result.view({1, -1, 1}), beta,
                           alpha);
    case Fused::Baddbmm: return fused_product(s, a, b, result, beta, alpha);
    case Fused::Addbmm: {
      // sum_i a[i] @ b[i] is one product: [m, batch*k] @ [batch*k, n].
      const int64_t batch = a.sizes()[0], m = a.sizes()[1], k = a.sizes()[2], n = b.sizes()[2];
      Tensor A = a.permute({1, 0, 2}).reshape({1, m, batch * k});
      Tensor B = b.reshape({1, batch * k, n});
      return fused_product(s.unsqueeze(0), A, B, result.unsqueeze(0), beta, alpha);
    }
  }
}

template <Fused F>
Tensor fused_k(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha) {
  DimVector shape = fused_shape(F, self, a, b);
  check_coefficients(fused_name(F), a.dtype(), beta, alpha);
  (void)self.expand(shape);  // raises when self does not broadcast
  Tensor out = empty(shape, TensorOptions(a.dtype()).device(a.device()));
  if (!a.is_meta()) fused_into(F, self, a, b, out, beta, alpha);
  return out;
}

template <Fused F>
Tensor& fused_out_k(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha,
                    Tensor& out) {
  DimVector shape = fused_shape(F, self, a, b);
  check_coefficients(fused_name(F), a.dtype(), beta, alpha);
  (void)self.expand(shape);
  prepare_out(fused_name(F), out, shape, a);
  if (a.is_meta()) return out;
  if (out.is_alias_of(self) && !out.is_same(self)) {
    Tensor tmp = empty(shape, a.dtype());
    fused_into(F, self, a, b, tmp, beta, alpha);
    copy_(out, tmp);
  } else {
    fused_into(F, self, a, b, out, beta, alpha);
  }
  out.bump_version();
  return out;
}

template <Fused F>
Tensor& fused_inplace_k(Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha) {
  DimVector shape = fused_shape(F, self, a, b);
  check_coefficients(fused_name(F), a.dtype(), beta, alpha);
  EMBER_CHECK(self.sizes().equals(shape), RuntimeError, fused_name(F), "_(): self of shape ", self.sizes(),
              " cannot hold the result of shape ", IntArrayRef(shape), " in place");
  if (a.is_meta()) return self;
  fused_into(F, self, a, b, self, beta, alpha);
  self.bump_version();
  return self;
}

// ---------------------------------------------------------------- vector products
Tensor dot_impl(const char* op, const Tensor& a, const Tensor& b) {
  check_operands(op, a, b);
  EMBER_CHECK(a.dim() == 1 && b.dim() == 1, RuntimeError, "1D tensors expected, but got ", a.dim(), "D and ",
              b.dim(), "D tensors");
  EMBER_CHECK(a.sizes()[0] == b.sizes()[0], RuntimeError, "inconsistent tensor size, expected tensor [",
              a.sizes()[0], "] and src [", b.sizes()[0], "] to have the same number of elements, but got ",
              a.sizes()[0], " and ", b.sizes()[0], " elements respectively");
  Tensor out = empty({}, TensorOptions(a.dtype()).device(a.device()));
  if (!a.is_meta()) run_gemm(a.view({1, 1, -1}), b.view({1, -1, 1}), out.view({1, 1, 1}));
  return out;
}
Tensor dot_k(const Tensor& a, const Tensor& b) { return dot_impl("dot", a, b); }
// vdot conjugates its first argument.
Tensor vdot_k(const Tensor& a, const Tensor& b) {
  if (!is_complex(a.dtype()) || a.is_meta()) return dot_impl("vdot", a, b);
  Tensor conj = a.clone();
  conj.imag().neg_();
  return dot_impl("vdot", conj, b);
}

Tensor mv_k(const Tensor& a, const Tensor& v) {
  check_operands("mv", a, v);
  check_matrix("mv", "self", a, 2);
  check_matrix("mv", "vec", v, 1);
  EMBER_CHECK(a.sizes()[1] == v.sizes()[0], RuntimeError, "size mismatch, got input (", a.sizes()[0], "), mat (",
              a.sizes()[0], "x", a.sizes()[1], "), vec (", v.sizes()[0], ")");
  Tensor out = empty({a.sizes()[0]}, TensorOptions(a.dtype()).device(a.device()));
  if (!a.is_meta()) run_gemm(a.unsqueeze(0), v.view({1, -1, 1}), out.view({1, -1, 1}));
  return out;
}

// outer and addr are elementwise in PyTorch: every dtype, with type promotion.
Tensor outer_k(const Tensor& a, const Tensor& b) {
  EMBER_CHECK(a.defined() && b.defined(), ValueError, "outer(): got an undefined tensor");
  check_matrix("outer", "self", a, 1);
  check_matrix("outer", "vec2", b, 1);
  return mul(a.unsqueeze(1), b);
}

Tensor addr_k(const Tensor& self, const Tensor& v1, const Tensor& v2, const Scalar& beta, const Scalar& alpha) {
  EMBER_CHECK(v1.defined() && v2.defined() && self.defined(), ValueError, "addr(): got an undefined tensor");
  EMBER_CHECK(v1.dim() == 1, RuntimeError, "addr: Expected 1-D argument vec1, but got ", v1.dim(), "-D");
  EMBER_CHECK(v2.dim() == 1, RuntimeError, "addr: Expected 1-D argument vec2, but got ", v2.dim(), "-D");
  const Tensor o = mul(v1.unsqueeze(1), v2);
  (void)self.expand(o.sizes());  // raises when self does not broadcast to [n, m]
  const ScalarType dt = promote_types(self.dtype(), o.dtype());
  if (is_integral(dt, /*include_bool=*/true)) {
    EMBER_CHECK(!beta.is_floating_point() && !beta.is_complex(), RuntimeError,
                "For integral input tensors, argument beta must not be a floating point number.");
    EMBER_CHECK(!alpha.is_floating_point() && !alpha.is_complex(), RuntimeError,
                "For integral input tensors, argument alpha must not be a floating point number.");
  }
  // PyTorch's differentiable path does not promote, and refuses bool coefficients for non-bool
  // results.
  if (dt != kBool && autograd::GradMode::is_enabled() &&
      (autograd::requires_grad(self) || autograd::requires_grad(v1) || autograd::requires_grad(v2))) {
    for (const Tensor* t : {&v1, &v2})
      EMBER_CHECK(t->dtype() == self.dtype(), RuntimeError, "expected scalar type ", self.dtype(), " but found ",
                  t->dtype());
    EMBER_CHECK(!beta.is_bool(), RuntimeError, "Boolean beta only supported for Boolean results.");
    EMBER_CHECK(!alpha.is_bool(), RuntimeError, "Boolean alpha only supported for Boolean results.");
  }
  if (dt == kBool) {  // beta and alpha act as switches; + is logical or
    const bool b = beta.to<bool>(), a = alpha.to<bool>();
    const Tensor kept = b ? self.expand(o.sizes()) : zeros(o.sizes(), TensorOptions(kBool).device(o.device()));
    return a ? add(kept, o) : kept.clone();
  }
  if (beta.to_complex() == complex128(0)) return mul(o, alpha);
  return add(mul(self, beta), o, alpha).expand(o.sizes()).contiguous();
}

Tensor& addr_out_k(const Tensor& self, const Tensor& v1, const Tensor& v2, const Scalar& beta, const Scalar& alpha,
                   Tensor& out) {
  autograd::check_out_inputs("addr", {self, v1, v2});
  Tensor r = addr_k(self, v1, v2, beta, alpha);
  EMBER_CHECK(can_cast(r.dtype(), out.dtype()), RuntimeError, "result type ", r.dtype(),
              " can't be cast to the desired output type ", out.dtype());
  if (!out.sizes().equals(r.sizes())) resize_(out, r.sizes());
  return copy_(out, r);
}

Tensor& addr_inplace_k(Tensor& self, const Tensor& v1, const Tensor& v2, const Scalar& beta, const Scalar& alpha) {
  // A copy of self when autograd records: the ops below may save self, which the copy_ overwrites.
  const bool recorded = autograd::GradMode::is_enabled() && autograd::requires_grad(self);
  Tensor r = addr_k(recorded ? self.clone() : self, v1, v2, beta, alpha);
  EMBER_CHECK(self.sizes().equals(r.sizes()), RuntimeError, "addr_(): self of shape ", self.sizes(),
              " cannot hold the result of shape ", r.sizes(), " in place");
  EMBER_CHECK(can_cast(r.dtype(), self.dtype()), RuntimeError, "result type ", r.dtype(),
              " can't be cast to the desired output type ", self.dtype());
  return copy_(self, r);
}

using BinarySig = Tensor(const Tensor&, const Tensor&);
using OutSig = Tensor&(const Tensor&, const Tensor&, Tensor&);
using FusedSig = Tensor(const Tensor&, const Tensor&, const Tensor&, const Scalar&, const Scalar&);
using FusedOutSig = Tensor&(const Tensor&, const Tensor&, const Tensor&, const Scalar&, const Scalar&, Tensor&);
using FusedInplaceSig = Tensor&(Tensor&, const Tensor&, const Tensor&, const Scalar&, const Scalar&);

void define_fused_schemas(const std::string& n, const char* a, const char* b) {
  const std::string args = std::string("Tensor ") + a + ", Tensor " + b + ", *, Scalar beta=1, Scalar alpha=1";
  define_op<FusedSig>(n + "(Tensor self, " + args + ") -> Tensor");
  define_op<FusedOutSig>(n + ".out(Tensor self, " + args + ", Tensor(a!) out) -> Tensor(a!)");
  define_op<FusedInplaceSig>(n + "_(Tensor(a!) self, " + args + ") -> Tensor(a!)", Tag::Inplace);
}

template <Fused F>
void define_fused(const char* a, const char* b) {
  const std::string n = fused_name(F);
  define_fused_schemas(n, a, b);
  register_cpu_meta<FusedSig, &fused_k<F>>(n);
  register_cpu_meta<FusedOutSig, &fused_out_k<F>>(n + ".out");
  register_cpu_meta<FusedInplaceSig, &fused_inplace_k<F>>(n + "_");
}

}  // namespace

Tensor matmul(const Tensor& self, const Tensor& other) {
  static const TypedOp<BinarySig> op("matmul");
  return op.call(self, other);
}
Tensor& matmul_out(Tensor& out, const Tensor& self, const Tensor& other) {
  static const TypedOp<OutSig> op("matmul.out");
  return op.call(self, other, out);
}
Tensor mm(const Tensor& self, const Tensor& mat2) {
  static const TypedOp<BinarySig> op("mm");
  return op.call(self, mat2);
}
Tensor bmm(const Tensor& self, const Tensor& mat2) {
  static const TypedOp<BinarySig> op("bmm");
  return op.call(self, mat2);
}
Tensor Tensor::matmul(const Tensor& other) const { return ember::matmul(*this, other); }

#define EMBER_BINARY_FRONT(name)                      \
  Tensor name(const Tensor& self, const Tensor& other) { \
    static const TypedOp<BinarySig> op(#name);        \
    return op.call(self, other);                      \
  }
EMBER_BINARY_FRONT(dot)
EMBER_BINARY_FRONT(vdot)
EMBER_BINARY_FRONT(mv)
EMBER_BINARY_FRONT(outer)
#undef EMBER_BINARY_FRONT

#define EMBER_FUSED_FRONT(name)                                                                      \
  Tensor name(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta, const Scalar& alpha) { \
    static const TypedOp<FusedSig> op(#name);                                                        \
    return op.call(self, a, b, beta, alpha);                                                         \
  }                                                                                                  \
  Tensor& name##_out(Tensor& out, const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta, \
                     const Scalar& alpha) {                                                          \
    static const TypedOp<FusedOutSig> op(#name ".out");                                              \
    return op.call(self, a, b, beta, alpha, out);                                                    \
  }
EMBER_FUSED_FRONT(addmm)
EMBER_FUSED_FRONT(addmv)
EMBER_FUSED_FRONT(addr)
EMBER_FUSED_FRONT(baddbmm)
EMBER_FUSED_FRONT(addbmm)
#undef EMBER_FUSED_FRONT

EMBER_REGISTER(matmul_ops) {
  define_op<BinarySig>("matmul(Tensor self, Tensor other) -> Tensor");
  define_op<OutSig>("matmul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)");
  define_op<BinarySig>("mm(Tensor self, Tensor mat2) -> Tensor");
  define_op<BinarySig>("bmm(Tensor self, Tensor mat2) -> Tensor");
  register_cpu_meta<BinarySig, &matmul_k>("matmul");
  register_cpu_meta<OutSig, &matmul_out_k>("matmul.out");
  register_cpu_meta<BinarySig, &mm_k>("mm");
  register_cpu_meta<BinarySig, &bmm_k>("bmm");
  define_op<BinarySig>("dot(Tensor self, Tensor tensor) -> Tensor");
  define_op<BinarySig>("vdot(Tensor self, Tensor other) -> Tensor");
  define_op<BinarySig>("mv(Tensor self, Tensor vec) -> Tensor");
  define_op<BinarySig>("outer(Tensor self, Tensor vec2) -> Tensor");
  define_op<BinarySig>("ger(Tensor self, Tensor vec2) -> Tensor");
  register_cpu_meta<BinarySig, &dot_k>("dot");
  register_cpu_meta<BinarySig, &vdot_k>("vdot");
  register_cpu_meta<BinarySig, &mv_k>("mv");
  // outer and addr are composites of mul/add, so every backend and layer sees those.
  register_composite<BinarySig, &outer_k>("outer");
  register_composite<BinarySig, &outer_k>("ger");
  define_fused<Fused::Addmm>("mat1", "mat2");
  define_fused<Fused::Addmv>("mat", "vec");
  define_fused_schemas("addr", "vec1", "vec2");
  register_composite<FusedSig, &addr_k>("addr");
  register_composite<FusedOutSig, &addr_out_k>("addr.out");
  register_composite<FusedInplaceSig, &addr_inplace_k>("addr_");
  define_fused<Fused::Baddbmm>("batch1", "batch2");
  define_fused<Fused::Addbmm>("batch1", "batch2");
}

}  // namespace ember
