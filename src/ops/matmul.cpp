// Matrix products: matmul (torch.matmul's rules: dot, mv, vm, mm and batched products with
// broadcast batch dims), mm, bmm, matmul's out= form.
//
// Dtype rules follow PyTorch 1.13 on CPU: both operands must share one dtype (no promotion);
// float32/float64/complex go through BLAS (see backends/cpu/blas.cpp), bfloat16 computes in
// float32 and rounds once, integer types wrap; bool and float16 are rejected.
#include <algorithm>

#include "backends/cpu/blas.h"
#include "ember/dispatch.h"
#include "ember/ops.h"

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

// out[B, m, n] = a[B, m, k] @ b[B, k, n], all on the CPU, out contiguous-or-not.
void run_gemm(const Tensor& a, const Tensor& b, const Tensor& out) {
  if (out.numel() == 0) return;
  if (a.dtype() == kBFloat16) {
    Tensor tmp = empty(out.sizes(), kFloat);
    run_gemm(a.to(kFloat), b.to(kFloat), tmp);
    Tensor o = out;
    copy_(o, tmp);
    return;
  }
  cpu::GemmArgs g;
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
  // A size-1 batch never steps.
  if (g.batch == 1) g.a_batch = g.b_batch = g.c_batch = 0;
  cpu::gemm(g);
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
  A = as_batch(a2.expand(ea), batch, p.m, p.k);
  B = as_batch(b2.expand(eb), batch, p.k, p.n);
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

using BinarySig = Tensor(const Tensor&, const Tensor&);
using OutSig = Tensor&(const Tensor&, const Tensor&, Tensor&);

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

EMBER_REGISTER(matmul_ops) {
  define_op<BinarySig>("matmul(Tensor self, Tensor other) -> Tensor");
  define_op<OutSig>("matmul.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)");
  define_op<BinarySig>("mm(Tensor self, Tensor mat2) -> Tensor");
  define_op<BinarySig>("bmm(Tensor self, Tensor mat2) -> Tensor");
  register_cpu_meta<BinarySig, &matmul_k>("matmul");
  register_cpu_meta<OutSig, &matmul_out_k>("matmul.out");
  register_cpu_meta<BinarySig, &mm_k>("mm");
  register_cpu_meta<BinarySig, &bmm_k>("bmm");
}

}  // namespace ember
