// Derivative formulas of the ops that move elements around: joining, flipping, rolling,
// repeating, triangles, the index/gather/scatter family, masking, take/put and sorting.
// Views (permute, select, expand, ...) are not ops and need none. Every Tensor argument,
// index and mask tensors included, has a gradient slot.
#include <algorithm>

#include "autograd/formula_util.h"
#include "ember/dispatch.h"
#include "ember/func.h"
#include "ember/ops.h"

// A named namespace: library sources are compiled in unity batches.
namespace ember::autograd::shape_formulas {
namespace {

using namespace formula;

int64_t wrap(int64_t d, int64_t n) { return d < 0 ? d + n : d; }
// Dim d of a tensor with `ndim` dims; a 0-dim tensor indexes as if it had one.
int64_t wrap_dim(int64_t d, size_t ndim) { return wrap(d, std::max<int64_t>(1, static_cast<int64_t>(ndim))); }
int64_t numel_of(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}
// A gradient with the elements of t laid out in `sizes` (0-dim sources, 1-element views).
Tensor shaped(const Tensor& t, IntArrayRef sizes) { return t.sizes() == sizes ? t : t.reshape(sizes); }

// Sorting-like ops: the gradient goes back to where each value came from.
Tensor unpermute(const Tensor& g, int64_t dim, const Tensor& indices, IntArrayRef sizes) {
  if (sizes.empty()) return g.reshape(sizes);
  return scatter(zeros(sizes, g.dtype()), wrap(dim, static_cast<int64_t>(sizes.size())), indices, g);
}

EMBER_REGISTER(autograd_formulas_shape) {
  // ---- joining and rearranging
  define("cat", {}, false, [](const BackwardContext& c, const Grads& g) {
    const int64_t dim = wrap(c.int_arg(1), g[0].dim());
    Grads r(c.num_slots());
    int64_t offset = 0;
    for (size_t k = 0; k < r.size(); ++k) {
      IntArrayRef sizes = c.input_sizes(k);
      // cat skips legacy empty 1-D tensors whatever dim is.
      if (sizes.size() == 1 && sizes[0] == 0 && g[0].dim() != 1) {
        if (c.needs_grad(k)) r[k] = zeros(sizes, g[0].dtype());
        continue;
      }
      if (c.needs_grad(k)) r[k] = g[0].narrow(dim, offset, sizes[dim]);
      offset += sizes[dim];
    }
    return r;
  });
  define("flip", {}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{flip(g[0], c.int_list(1))};
  });
  define("roll", {}, false, [](const BackwardContext& c, const Grads& g) {
    std::vector<int64_t> back = c.int_list(1);
    for (int64_t& s : back) s = -s;
    return Grads{roll(g[0], back, c.int_list(2))};
  });
  // g has shape [r0 * s0, r1 * s1, ...] (sizes padded with leading 1s): sum over the r's.
  define("repeat", {}, false, [](const BackwardContext& c, const Grads& g) {
    IntArrayRef sizes = c.input_sizes(0);
    const std::vector<int64_t> reps = c.int_list(1);
    if (g[0].numel() == 0) return Grads{zeros(sizes, g[0].dtype())};
    const size_t lead = reps.size() - sizes.size();
    std::vector<int64_t> split, tiles;
    for (size_t i = 0; i < reps.size(); ++i) {
      split.push_back(reps[i]);
      split.push_back(i < lead ? 1 : sizes[i - lead]);
      tiles.push_back(static_cast<int64_t>(2 * i));
    }
    return Grads{sum(g[0].reshape(split), tiles).reshape(sizes)};
  });
  define("tril", {}, false, [](const BackwardContext& c, const Grads& g) { return Grads{tril(g[0], c.int_arg(1))}; });
  define("triu", {}, false, [](const BackwardContext& c, const Grads& g) { return Grads{triu(g[0], c.int_arg(1))}; });

  // ---- index, gather, scatter (slots: self 0, index 1, source 2)
  define("index_select", {2}, false, [](const BackwardContext& c, const Grads& g) {
    IntArrayRef sizes = c.input_sizes(0);
    if (sizes.empty()) return Grads{sum(g[0]).reshape(sizes)};
    return Grads{index_add(zeros(sizes, g[0].dtype()), wrap_dim(c.int_arg(1), sizes.size()), c.tensor(2), g[0])};
  });
  define("gather", {2}, false, [](const BackwardContext& c, const Grads& g) {
    IntArrayRef sizes = c.input_sizes(0);
    return Grads{scatter_add(zeros(sizes, g[0].dtype()), wrap_dim(c.int_arg(1), sizes.size()), c.tensor(2), g[0])};
  });
  define("scatter.src", {2}, false, [](const BackwardContext& c, const Grads& g) {
    const int64_t dim = wrap_dim(c.int_arg(1), g[0].dim());
    const Tensor& index = c.tensor(2);
    Grads r(3);
    if (c.needs_grad(0)) r[0] = scatter(g[0], dim, index, Scalar(0));
    if (c.needs_grad(2)) r[2] = gather(g[0], dim, index);
    return r;
  });
  define("scatter.value", {2}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{scatter(g[0], wrap_dim(c.int_arg(1), g[0].dim()), c.tensor(2), Scalar(0))};
  });
  define("scatter_add", {2}, false, [](const BackwardContext& c, const Grads& g) {
    Grads r(3);
    if (c.needs_grad(0)) r[0] = g[0];
    if (c.needs_grad(2)) r[2] = gather(g[0], wrap_dim(c.int_arg(1), g[0].dim()), c.tensor(2));
    return r;
  });
  define("index_add", {2}, false, [](const BackwardContext& c, const Grads& g) {
    Grads r(3);
    if (c.needs_grad(0)) r[0] = g[0];
    if (c.needs_grad(2)) {
      const Tensor sel = index_select(g[0], wrap_dim(c.int_arg(1), g[0].dim()), c.tensor(2));
      r[2] = shaped(sel, c.input_sizes(2)) * cj(c.scalar(4));
    }
    return r;
  });
  define("index_copy", {2}, false, [](const BackwardContext& c, const Grads& g) {
    const int64_t dim = wrap_dim(c.int_arg(1), g[0].dim());
    Grads r(3);
    if (c.needs_grad(0)) r[0] = index_fill(g[0], dim, c.tensor(2), Scalar(0));
    if (c.needs_grad(2)) r[2] = shaped(index_select(g[0], dim, c.tensor(2)), c.input_sizes(2));
    return r;
  });
  define("index_fill.int_Scalar", {2}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{index_fill(g[0], wrap_dim(c.int_arg(1), g[0].dim()), c.tensor(2), Scalar(0))};
  });
  define("index_fill.int_Tensor", {2}, false, [](const BackwardContext& c, const Grads& g) {
    const int64_t dim = wrap_dim(c.int_arg(1), g[0].dim());
    Grads r(3);
    if (c.needs_grad(0)) r[0] = index_fill(g[0], dim, c.tensor(2), Scalar(0));
    // Each filled position once, however often index names it.
    if (c.needs_grad(2)) r[2] = sum(g[0] * index_fill(zeros_like(g[0]), dim, c.tensor(2), Scalar(1)));
    return r;
  });

  // scatter_reduce(self, dim, index, src, reduce, *, include_self): sum, mean, amax, amin
  // (ties share evenly). Positions nothing is scattered to keep self.
  // PyTorch refuses complex outputs of the functional form only (its in-place form differentiates).
  for (const bool inplace : {false, true}) {
    define(inplace ? "scatter_reduce_.two" : "scatter_reduce.two", {0, 2, 3}, true,
           [inplace](const BackwardContext& c, const Grads& g) {
      EMBER_CHECK(inplace || !g[0].is_complex(), RuntimeError,
                  "scatter_reduce does not support automatic differentiation for outputs with complex dtype.");
      const Tensor& self = c.tensor(0);
      const Tensor& index = c.tensor(2);
      const Tensor& src = c.tensor(3);
      const int64_t dim = wrap_dim(c.int_arg(1), self.dim());
      const std::string reduce = c.string_arg(4).value_or("sum");
      const bool include_self = c.bool_arg(5);
      const Tensor z = zeros_like(g[0]);
      const Tensor hit = ne(scatter_add(zeros_like(g[0]), dim, index, ones_like(src, g[0].dtype())), 0);
      const Tensor self_counts = include_self ? ones_like(z) : zeros_like(z);
      Tensor self_w, src_w;  // the share of each self and src element in its output
      if (reduce == "sum" || reduce == "mean") {
        Tensor n = ones_like(z);
        if (reduce == "mean") n = clamp_min(scatter_add(self_counts, dim, index, ones_like(src, g[0].dtype())), 1);
        self_w = reciprocal(n);
        src_w = gather(reciprocal(n), dim, index);
      } else if (reduce == "amax" || reduce == "amin") {
        const Tensor& y = c.result();
        const Tensor self_is = eq(self, y).to(g[0].dtype()) * self_counts;
        const Tensor src_is = eq(src, gather(y, dim, index)).to(g[0].dtype());
        const Tensor n = scatter_add(self_is, dim, index, src_is);
        self_w = self_is / n;
        src_w = src_is / gather(n, dim, index);
      } else if (reduce == "prod" && !g[0].is_complex()) {
        // Each element's share is the product of the others in its output, exact with zeros:
        // the product of the nonzero ones where no other is zero.
        const Tensor one = ones_like(z);
        const Tensor self_in = include_self ? self : one;
        const Tensor self_zero = eq(self_in, 0).to(z.dtype()), src_zero = eq(src, 0).to(z.dtype());
        const Tensor zeros_at = scatter_add(self_zero, dim, index, src_zero);
        const Tensor nz_prod = scatter_reduce(where(eq(self_in, 0), one, self_in), dim, index,
                                              where(eq(src, 0), ones_like(src), src), "prod");
        auto others = [&](const Tensor& x, const Tensor& x_zero, const Tensor& zeros_n, const Tensor& prod_n) {
          return where(eq(zeros_n - x_zero, 0), where(eq(x, 0), prod_n, prod_n / x), zeros_like(prod_n));
        };
        self_w = others(self_in, self_zero, zeros_at, nz_prod) * self_counts;
        src_w = others(src, src_zero, gather(zeros_at, dim, index), gather(nz_prod, dim, index));
      } else {
        EMBER_FAIL(NotImplementedError, "the derivative of scatter_reduce with reduce='", reduce, "' is not implemented.");
      }
      if (!include_self) self_w = where(hit, zeros_like(self_w), ones_like(self_w));
      else if (reduce != "sum") self_w = where(hit, self_w, ones_like(self_w));
      Grads r(3);
      if (c.needs_grad(0)) r[0] = g[0] * self_w;
      if (c.needs_grad(2)) r[2] = gather(g[0], dim, index) * src_w;
      return r;
    });
  }

  // index_put_(self, indices, values, accumulate): slots self 0, one per index, values last.
  // self keeps the gradient except where written (all of it with accumulate); values get
  // the gradient at the positions they were written to.
  define("index_put_", {1}, false, [](const BackwardContext& c, const Grads& g) {
    std::vector<std::optional<Tensor>> idx;
    for (const Tensor& t : c.tensor_list(1)) idx.push_back(t.defined() ? std::optional<Tensor>(t) : std::nullopt);
    Grads r(c.num_slots());
    if (c.needs_grad(0)) {
      r[0] = c.bool_arg(3) ? g[0] : clone(g[0]);
      if (!c.bool_arg(3)) index_put_(r[0], idx, zeros({}, g[0].dtype()));
    }
    if (c.needs_grad(r.size() - 1)) r.back() = index(g[0], idx);
    return r;
  });

  // index(self, indices) (slots: self 0, one per index): the gradient is scattered back,
  // summed where an element was picked more than once. Reached by double backward through
  // the formulas above, which index gradients.
  define("index.Tensor", {1}, false, [](const BackwardContext& c, const Grads& g) {
    std::vector<std::optional<Tensor>> idx;
    for (const Tensor& t : c.tensor_list(1)) idx.push_back(t.defined() ? std::optional<Tensor>(t) : std::nullopt);
    Grads r(c.num_slots());
    if (c.needs_grad(0)) {
      // Batched gradients (vmap over the backward pass: jacrev) go into zeros batched as they
      // are: an in-place write of per-sample values into an unbatched tensor is an error.
      r[0] = func::is_batched(g[0]) ? zeros_like(g[0]).sum().expand(c.input_sizes(0)).contiguous()
                                    : zeros(c.input_sizes(0), g[0].dtype());
      index_put_(r[0], idx, g[0], true);
    }
    return r;
  });

  // ---- masks (slots: self 0, mask 1, value/source 2)
  define("masked_fill.Scalar", {1}, false, [](const BackwardContext& c, const Grads& g) {
    return Grads{masked_fill(g[0], c.tensor(1), Scalar(0))};
  });
  define("masked_fill.Tensor", {1}, false, [](const BackwardContext& c, const Grads& g) {
    const Tensor& mask = c.tensor(1);
    Grads r(3);
    if (c.needs_grad(0)) r[0] = masked_fill(g[0], mask, Scalar(0));
    if (c.needs_grad(2)) r[2] = sum(where(mask, g[0], zeros_like(g[0])));
    return r;
  });
  // The source elements past the masked count are not used: zero gradient.
  define("masked_scatter", {1}, false, [](const BackwardContext& c, const Grads& g) {
    const Tensor& mask = c.tensor(1);
    Grads r(3);
    if (c.needs_grad(0)) r[0] = masked_fill(g[0], mask, Scalar(0));
    if (c.needs_grad(2)) {
      IntArrayRef src = c.input_sizes(2);
      Tensor sel = masked_select(g[0], mask);
      const int64_t missing = numel_of(src) - sel.numel();
      if (missing > 0) sel = cat({sel, zeros({missing}, sel.dtype())});
      r[2] = sel.reshape(src);
    }
    return r;
  });

  // ---- take and put (on the flattened tensor)
  define("take", {1}, false, [](const BackwardContext& c, const Grads& g) {
    IntArrayRef sizes = c.input_sizes(0);
    const Tensor flat = zeros({numel_of(sizes)}, g[0].dtype());
    return Grads{put(flat, c.tensor(1), g[0], /*accumulate=*/true).reshape(sizes)};
  });
  define("put", {1}, false, [](const BackwardContext& c, const Grads& g) {
    const Tensor& index = c.tensor(1);
    Grads r(3);
    if (c.needs_grad(0)) r[0] = c.bool_arg(3) ? g[0] : put(g[0], index, zeros(c.input_sizes(2), g[0].dtype()), false);
    if (c.needs_grad(2)) r[2] = shaped(take(g[0], index), c.input_sizes(2));
    return r;
  });

  // ---- sorting (the values' gradient, through the indices)
  define("sort", {}, true, [](const BackwardContext& c, const Grads& g) {
    return Grads{unpermute(g[0], c.int_arg(1), c.result(1), c.input_sizes(0))};
  });
  define("sort.stable", {}, true, [](const BackwardContext& c, const Grads& g) {
    return Grads{unpermute(g[0], c.int_arg(2), c.result(1), c.input_sizes(0))};
  });
  define("topk", {}, true, [](const BackwardContext& c, const Grads& g) {
    return Grads{unpermute(g[0], c.int_arg(2), c.result(1), c.input_sizes(0))};
  });
  // msort returns no indices: recomputed with the same (stable) order.
  define("msort", {0}, false, [](const BackwardContext& c, const Grads& g) {
    const Tensor& x = c.tensor(0);
    if (x.dim() == 0) return Grads{g[0]};
    return Grads{unpermute(g[0], 0, argsort(x, /*stable=*/true, 0), x.sizes())};
  });
}

}  // namespace
}  // namespace ember::autograd::shape_formulas
