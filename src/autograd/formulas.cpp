// Derivative formulas of the foundation ops, written with ops so that they differentiate
// again. Complex inputs follow PyTorch's convention: the gradient is the conjugate Wirtinger
// derivative, so a product rule multiplies by the conjugate of the other factor.
#include "autograd/formula_util.h"
#include "ember/dispatch.h"

namespace ember::autograd {
namespace {

using namespace formula;

// The gradient of a reduction over `dims` (all when empty) spread back over the input's shape.
Tensor expand_reduced(const Tensor& g, IntArrayRef sizes, std::vector<int64_t> dims, bool keepdim) {
  if (sizes.empty()) return g.reshape(sizes);  // a 0-dim input: dim 0 or -1 reduces nothing
  Tensor r = g;
  if (!keepdim && !dims.empty()) {
    const int64_t n = static_cast<int64_t>(sizes.size());
    for (int64_t& d : dims) d = d < 0 ? d + n : d;
    std::sort(dims.begin(), dims.end());
    for (int64_t d : dims) r = r.unsqueeze(d);
  } else if (dims.empty() && !keepdim) {
    r = r.reshape(DimVector(sizes.size(), 1));
  }
  return r.expand(sizes);
}
int64_t reduced_count(IntArrayRef sizes, const std::vector<int64_t>& dims) {
  int64_t n = 1;
  if (sizes.empty()) return n;  // a 0-dim input: dim 0 or -1 reduces its one element
  if (dims.empty()) {
    for (int64_t s : sizes) n *= s;
    return n;
  }
  for (int64_t d : dims) n *= sizes[d < 0 ? d + static_cast<int64_t>(sizes.size()) : d];
  return n;
}

// y = f(x) with dy/dx from the saved input (x) or result (y).
void unary_from_input(const char* op, Tensor (*dydx)(const Tensor& x)) {
  define(op, {0}, false, [dydx](const BackwardContext& c, const Grads& g) {
    return Grads{mul(g[0], cj(dydx(c.tensor(0))))};
  });
}
void unary_from_result(const char* op, Tensor (*dydx)(const Tensor& y)) {
  define(op, {}, true, [dydx](const BackwardContext& c, const Grads& g) {
    return Grads{mul(g[0], cj(dydx(c.result())))};
  });
}

EMBER_REGISTER(autograd_formulas) {
  // ---- arithmetic
  define("add.Tensor", {}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{g[0], times(g[0], cj(c.scalar(2)))};
  });
  define("add.Scalar", {}, false, [](const BackwardContext&, const Grads& g) { return Grads{g[0]}; });
  define("sub.Tensor", {}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{g[0], times(neg(g[0]), cj(c.scalar(2)))};
  });
  define("sub.Scalar", {}, false, [](const BackwardContext&, const Grads& g) { return Grads{g[0]}; });
  define("mul.Tensor", {0, 1}, false, [](const BackwardContext& c, const Grads& g) {
    Grads r(2);
    if (c.needs_grad(0)) r[0] = mul(g[0], cj(c.tensor(1)));
    if (c.needs_grad(1)) r[1] = mul(g[0], cj(c.tensor(0)));
    return r;
  });
  define("mul.Scalar", {}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{mul(g[0], cj(c.scalar(1)))};
  });
  define("div.Tensor_mode", {0, 1}, false, [](const BackwardContext& c, const Grads& g) {
    Grads r(2);
    if (c.string_arg(2)) {  // rounding: piecewise constant
      if (c.needs_grad(0)) r[0] = zeros_like(g[0]);
      if (c.needs_grad(1)) r[1] = zeros_like(g[0]);
      return r;
    }
    const Tensor& a = c.tensor(0);
    const Tensor& b = c.tensor(1);
    if (c.needs_grad(0)) r[0] = div(g[0], cj(b));
    if (c.needs_grad(1)) r[1] = mul(neg(g[0]), cj(div(div(a, b), b)));
    return r;
  });
  define("div.Scalar_mode", {}, false, [](const BackwardContext& c, const Grads& g) {
    if (c.string_arg(2)) return Grads{zeros_like(g[0])};
    return Grads{div(g[0], cj(c.scalar(1)))};
  });
  define("neg", {}, false, [](const BackwardContext&, const Grads& g) { return Grads{neg(g[0])}; });

  // ---- pointwise functions
  unary_from_result("exp", [](const Tensor& y) { return y; });
  unary_from_input("log", [](const Tensor& x) { return reciprocal(x); });
  unary_from_result("sqrt", [](const Tensor& y) { return reciprocal(mul(y, 2)); });
  unary_from_input("sin", [](const Tensor& x) { return cos(x); });
  unary_from_input("cos", [](const Tensor& x) { return neg(sin(x)); });
  unary_from_result("tanh", [](const Tensor& y) { return add(neg(mul(y, y)), 1); });
  unary_from_result("sigmoid", [](const Tensor& y) { return mul(y, add(neg(y), 1)); });
  define("abs", {0}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{mul(g[0], sgn(c.tensor(0)))};
  });
  define("relu", {}, true, [](const BackwardContext& c, const Grads& g) {
    return Grads{where(gt(c.result(), 0), g[0], Scalar(0))};  // a broadcast 0: no zero-filled tensor
  });
  define("where.self", {0}, false, [](const BackwardContext& c, const Grads& g) {
    Grads r(3);
    const Tensor& cond = c.tensor(0);
    const Tensor z = zeros_like(g[0]);
    if (c.needs_grad(1)) r[1] = where(cond, g[0], z);
    if (c.needs_grad(2)) r[2] = where(cond, z, g[0]);
    return r;
  });

  // ---- copies and conversions
  define("clone", {}, false, [](const BackwardContext&, const Grads& g) { return Grads{g[0]}; });
  define("to.dtype", {}, false, [](const BackwardContext&, const Grads& g) { return Grads{g[0]}; });
  define("copy_", {}, false, [](const BackwardContext& c, const Grads& g) {
    Grads r(2);
    if (c.needs_grad(0)) r[0] = zeros_like(g[0]);  // overwritten
    if (c.needs_grad(1)) r[1] = g[0];
    return r;
  });
  define("fill_.Scalar", {}, false, [](const BackwardContext&, const Grads& g) { return Grads{zeros_like(g[0])}; });

  // ---- reductions
  define("sum", {}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{expand_reduced(g[0], c.input_sizes(0), {}, false)};
  });
  define("sum.dim_IntList", {}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{expand_reduced(g[0], c.input_sizes(0), c.int_list(1), c.bool_arg(2))};
  });
  define("mean", {}, false, [](const BackwardContext& c, const Grads& g) {
    const int64_t n = reduced_count(c.input_sizes(0), {});
    return Grads{div(expand_reduced(g[0], c.input_sizes(0), {}, false), static_cast<double>(n))};
  });
  define("mean.dim", {}, false, [](const BackwardContext& c, const Grads& g) {
    const auto dims = c.int_list(1);
    const int64_t n = reduced_count(c.input_sizes(0), dims);
    return Grads{div(expand_reduced(g[0], c.input_sizes(0), dims, c.bool_arg(2)), static_cast<double>(n))};
  });

  // ---- products
  define("mm", {0, 1}, false, [](const BackwardContext& c, const Grads& g) {
    Grads r(2);
    if (c.needs_grad(0)) r[0] = product_grad_like(g[0], cj(c.tensor(1)).mT(), c.tensor(0));
    if (c.needs_grad(1)) r[1] = product_grad_like(cj(c.tensor(0)).mT(), g[0], c.tensor(1));
    return r;
  });
  define("bmm", {0, 1}, false, [](const BackwardContext& c, const Grads& g) {
    Grads r(2);
    if (c.needs_grad(0)) r[0] = product_grad_like(g[0], cj(c.tensor(1)).mT(), c.tensor(0));
    if (c.needs_grad(1)) r[1] = product_grad_like(cj(c.tensor(0)).mT(), g[0], c.tensor(1));
    return r;
  });
  define("matmul", {0, 1}, false, [](const BackwardContext& c, const Grads& g) {
    // Through the batched-matrix form: 1-D operands as a row (left) or a column (right).
    const Tensor& a0 = c.tensor(0);
    const Tensor& b0 = c.tensor(1);
    const Tensor a = a0.dim() == 1 ? a0.unsqueeze(0) : a0;
    const Tensor b = b0.dim() == 1 ? b0.unsqueeze(-1) : b0;
    Tensor gm = g[0];
    if (a0.dim() == 1) gm = gm.unsqueeze(b0.dim() == 1 ? 0 : -2);
    if (b0.dim() == 1) gm = gm.unsqueeze(-1);
    Grads r(2);
    if (c.needs_grad(0)) r[0] = sum_to(matmul(gm, cj(b).mT()), a.sizes()).reshape(a0.sizes());
    if (c.needs_grad(1)) r[1] = sum_to(matmul(cj(a).mT(), gm), b.sizes()).reshape(b0.sizes());
    return r;
  });
}

}  // namespace
}  // namespace ember::autograd
