// Derivative formulas of the products beyond mm/bmm/matmul (formulas.cpp): dot, vdot, mv
// and the fused addmm/addmv/baddbmm/addbmm, plus take_along_dim. Complex operands enter
// conjugated, as for mm: d(A B) gives dA = G B^H and dB = A^H G.
#include "autograd/formula_util.h"
#include "ember/dispatch.h"
#include "ember/ops.h"

namespace ember::autograd::formula {

Tensor product_grad_like(const Tensor& x, const Tensor& y, const Tensor& like) {
  const auto product = [&](const Tensor& a, const Tensor& b) { return like.dim() == 3 ? bmm(a, b) : mm(a, b); };
  const int64_t r = like.dim() - 2;
  const bool column_major = like.size(r) > 1 && like.size(r + 1) > 1 && like.stride(r) == 1 &&
                            like.stride(r + 1) == like.size(r);
  return column_major ? product(y.mT(), x.mT()).mT() : product(x, y);
}

}  // namespace ember::autograd::formula

// A named namespace: library sources are compiled in unity batches.
namespace ember::autograd::product_formulas {
namespace {

using namespace formula;

Tensor times_conj(const Tensor& g, const Scalar& s) { return is_one(s) ? g : g * cj(s); }

// g (n) times the conjugate of v (m), as an n x m matrix.
Tensor outer_grad(const Tensor& g, const Tensor& v) { return g.unsqueeze(1) * cj(v).unsqueeze(0); }

// addmm(self, mat1, mat2, *, beta, alpha) and its relatives: self gets beta g, the factors
// alpha times the product's gradient.
using ProductGrads = std::pair<Tensor, Tensor> (*)(const Tensor& g, const Tensor& a, const Tensor& b, bool, bool);
void define_fused(const char* op, ProductGrads pg) {
  define(op, {1, 2}, false, [pg](const BackwardContext& c, const Grads& g) {
    Grads r(3);
    const Scalar beta = c.scalar(3), alpha = c.scalar(4);
    if (c.needs_grad(0)) r[0] = times_conj(g[0], beta);
    if (c.needs_grad(1) || c.needs_grad(2)) {
      auto [ga, gb] = pg(times_conj(g[0], alpha), c.tensor(1), c.tensor(2), c.needs_grad(1), c.needs_grad(2));
      r[1] = ga;
      r[2] = gb;
    }
    return r;
  });
}

EMBER_REGISTER(autograd_formulas_products) {
  define("dot", {0, 1}, false, [](const BackwardContext& c, const Grads& g) {
    Grads r(2);
    if (c.needs_grad(0)) r[0] = g[0] * cj(c.tensor(1));
    if (c.needs_grad(1)) r[1] = g[0] * cj(c.tensor(0));
    return r;
  });
  // vdot(a, b) = sum(conj(a) b): antiholomorphic in a.
  define("vdot", {0, 1}, false, [](const BackwardContext& c, const Grads& g) {
    Grads r(2);
    if (c.needs_grad(0)) r[0] = cj(g[0]) * c.tensor(1);
    if (c.needs_grad(1)) r[1] = g[0] * c.tensor(0);
    return r;
  });
  define("mv", {0, 1}, false, [](const BackwardContext& c, const Grads& g) {
    Grads r(2);
    if (c.needs_grad(0)) r[0] = outer_grad(g[0], c.tensor(1));
    if (c.needs_grad(1)) r[1] = mv(cj(c.tensor(0)).mT(), g[0]);
    return r;
  });
  define_fused("addmm", [](const Tensor& g, const Tensor& a, const Tensor& b, bool na, bool nb) {
    return std::pair<Tensor, Tensor>(na ? product_grad_like(g, cj(b).mT(), a) : Tensor(),
                                     nb ? product_grad_like(cj(a).mT(), g, b) : Tensor());
  });
  define_fused("addmv", [](const Tensor& g, const Tensor& a, const Tensor& b, bool na, bool nb) {
    return std::pair<Tensor, Tensor>(na ? outer_grad(g, b) : Tensor(), nb ? mv(cj(a).mT(), g) : Tensor());
  });
  define_fused("baddbmm", [](const Tensor& g, const Tensor& a, const Tensor& b, bool na, bool nb) {
    return std::pair<Tensor, Tensor>(na ? product_grad_like(g, cj(b).mT(), a) : Tensor(),
                                     nb ? product_grad_like(cj(a).mT(), g, b) : Tensor());
  });
  // addbmm sums the batch of products: every batch gets the same g.
  define_fused("addbmm", [](const Tensor& g, const Tensor& a, const Tensor& b, bool na, bool nb) {
    const Tensor gb = g.unsqueeze(0).expand({a.size(0), g.size(0), g.size(1)});
    return std::pair<Tensor, Tensor>(na ? bmm(gb, cj(b).mT()) : Tensor(), nb ? bmm(cj(a).mT(), gb) : Tensor());
  });

  // take_along_dim(self, indices, dim): a gather on the broadcast operands; the node sums the
  // gradient back over the dims where self was broadcast.
  define("take_along_dim", {1}, false, [](const BackwardContext& c, const Grads& g) {
    IntArrayRef sizes = c.input_sizes(0);
    const Tensor& index = c.tensor(1);
    if (c.is_none(2)) {
      int64_t n = 1;
      for (int64_t s : sizes) n *= s;
      return Grads{index_add(zeros({n}, g[0].dtype()), 0, index.reshape({-1}), g[0].reshape({-1})).reshape(sizes)};
    }
    const int64_t dim = c.int_arg(2) < 0 ? c.int_arg(2) + g[0].dim() : c.int_arg(2);
    DimVector shape(g[0].sizes());
    shape[dim] = sizes[dim];
    return Grads{scatter_add(zeros(shape, g[0].dtype()), dim, index.expand(g[0].sizes()), g[0])};
  });
}

}  // namespace
}  // namespace ember::autograd::product_formulas
