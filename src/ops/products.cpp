// Products written with other ops (composites, so every backend and layer sees the ops they
// decompose into): einsum, tensordot, kron, cross, chain_matmul, trace, diff, trapezoid,
// cumulative_trapezoid, cdist.
#include <algorithm>
#include <array>
#include <string>

#include "ember/dispatch.h"
#include "ember/ops.h"

namespace ember {

namespace {

// ---------------------------------------------------------------- einsum
// An operand during contraction: a tensor whose dims carry labels (letters; ellipsis dims get
// labels past 'z' so that they take part like any other).
struct Labeled {
  Tensor t;
  std::vector<int> labels;
};

constexpr int kEllipsisBase = 128;  // label of ellipsis dim i is kEllipsisBase + i
constexpr int kNumLabels = 256;

int letter_label(char c, const std::string& eq) {
  EMBER_CHECK((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'), RuntimeError,
              "einsum(): invalid subscript given at index ", eq.find(c), " in the equation string, subscripts must be "
              "in [a-zA-Z]");
  return static_cast<unsigned char>(c);
}

// Parses one operand's subscripts into labels for a tensor of `ndim` dims, with the ellipsis
// standing for `ndim - letters` dims, numbered from the right so that they broadcast.
std::vector<int> parse_term(const std::string& term, const std::string& eq, int64_t ndim, int64_t operand,
                            int64_t* max_ellipsis) {
  std::vector<int> labels;
  size_t dots = term.find("...");
  int64_t letters = 0;
  for (char c : term)
    if (c != '.') ++letters;
  if (dots == std::string::npos) {
    EMBER_CHECK(letters == ndim, RuntimeError, "einsum(): the number of subscripts in the equation (", letters,
                ") does not match the number of dimensions (", ndim, ") for operand ", operand,
                " and no ellipsis was given");
  } else {
    EMBER_CHECK(term.find("...", dots + 3) == std::string::npos && std::count(term.begin(), term.end(), '.') == 3,
                RuntimeError, "einsum(): found more than one ellipsis for operand ", operand);
    EMBER_CHECK(letters <= ndim, RuntimeError, "einsum(): the number of subscripts in the equation (", letters,
                ") is more than the number of dimensions (", ndim, ") for operand ", operand);
  }
  const int64_t n_ell = ndim - letters;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term[i] == '.') {
      if (i == dots) {
        for (int64_t e = 0; e < n_ell; ++e) labels.push_back(kEllipsisBase + static_cast<int>(n_ell - 1 - e));
        *max_ellipsis = std::max(*max_ellipsis, n_ell);
      }
      continue;
    }
    labels.push_back(letter_label(term[i], eq));
  }
  return labels;
}

// Takes the diagonal of dims sharing a label ("ii->i").
Labeled diagonalize(Labeled x) {
  for (size_t i = 0; i < x.labels.size(); ++i) {
    for (size_t j = i + 1; j < x.labels.size();) {
      if (x.labels[j] != x.labels[i]) {
        ++j;
        continue;
      }
      EMBER_CHECK(x.t.sizes()[i] == x.t.sizes()[j], RuntimeError, "einsum(): subscript ",
                  static_cast<char>(x.labels[i]), " is repeated for operand but the sizes don't match, ",
                  x.t.sizes()[i], " != ", x.t.sizes()[j]);
      // diagonal() appends the diagonal as the last dim: move it back to position i.
      Tensor d = x.t.diagonal(0, static_cast<int64_t>(i), static_cast<int64_t>(j));
      DimVector perm;
      const int64_t nd = d.dim();
      for (int64_t k = 0; k < nd - 1; ++k) perm.push_back(k);
      perm.insert(i, nd - 1);
      x.t = d.permute(perm);
      x.labels.erase(x.labels.begin() + static_cast<int64_t>(j));
    }
  }
  return x;
}

// Sums out the dims whose labels no later operand or the output needs.
Labeled sum_unneeded(Labeled x, const std::array<int, kNumLabels>& needed) {
  DimVector dims;
  std::vector<int> kept;
  for (size_t i = 0; i < x.labels.size(); ++i) {
    if (needed[x.labels[i]]) kept.push_back(x.labels[i]);
    else dims.push_back(static_cast<int64_t>(i));
  }
  if (!dims.empty()) {
    x.t = x.t.sum(dims);
    x.labels = kept;
  }
  return x;
}

int64_t size_of(const Labeled& x, int label) {
  auto it = std::find(x.labels.begin(), x.labels.end(), label);
  return it == x.labels.end() ? -1 : x.t.sizes()[it - x.labels.begin()];
}

// a * b contracted over the labels they share that nothing later needs, as one bmm:
// [batch, left, k] @ [batch, k, right].
Labeled contract(const Labeled& a, const Labeled& b, const std::array<int, kNumLabels>& needed_later) {
  std::vector<int> batch, left, right, summed;
  for (int l : a.labels) {
    const bool in_b = std::find(b.labels.begin(), b.labels.end(), l) != b.labels.end();
    if (!in_b) left.push_back(l);
    else if (needed_later[l]) batch.push_back(l);
    else summed.push_back(l);
  }
  for (int l : b.labels)
    if (std::find(a.labels.begin(), a.labels.end(), l) == a.labels.end()) right.push_back(l);
  // Sizes of shared labels must agree or broadcast from 1.
  auto size = [&](int l) {
    const int64_t sa = size_of(a, l), sb = size_of(b, l);
    if (sa < 0) return sb;
    if (sb < 0) return sa;
    EMBER_CHECK(sa == sb || sa == 1 || sb == 1, RuntimeError, "einsum(): operands do not broadcast with remapped "
                "shapes (original->remapped): dimension of size ", sa, " against size ", sb);
    return std::max(sa, sb);
  };
  auto arrange = [&](const Labeled& x, const std::vector<int>& g1, const std::vector<int>& g2,
                     const std::vector<int>& g3) {
    // Permutes x to [g1, g2, g3] (expanding broadcast dims) and folds each group.
    DimVector perm, shape;
    Tensor t = x.t;
    std::vector<int> order;
    for (const auto* g : {&g1, &g2, &g3}) order.insert(order.end(), g->begin(), g->end());
    for (int l : order) {
      auto it = std::find(x.labels.begin(), x.labels.end(), l);
      if (it == x.labels.end()) {
        t = t.unsqueeze(t.dim());
        perm.push_back(t.dim() - 1);
      } else {
        perm.push_back(it - x.labels.begin());
      }
    }
    t = t.permute(perm);
    for (int l : order) shape.push_back(size(l));
    t = t.expand(shape);
    int64_t n1 = 1, n2 = 1, n3 = 1;
    for (int l : g1) n1 *= size(l);
    for (int l : g2) n2 *= size(l);
    for (int l : g3) n3 *= size(l);
    return t.reshape({n1, n2, n3});
  };
  Tensor A = arrange(a, batch, left, summed);
  Tensor B = arrange(b, batch, summed, right);
  Tensor r = bmm(A, B);
  Labeled out;
  DimVector shape;
  for (const auto* g : {&batch, &left, &right})
    for (int l : *g) {
      out.labels.push_back(l);
      shape.push_back(size(l));
    }
  out.t = r.view(shape);
  return out;
}

Tensor einsum_composite(std::string_view equation, TensorList tensors) {
  std::string eq;
  for (char c : equation)
    if (c != ' ') eq += c;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  EMBER_CHECK(!tensors.empty(), RuntimeError, "einsum(): must provide at least one operand");
  EMBER_CHECK(terms.size() == tensors.size(), RuntimeError, "einsum(): ",
              terms.size() < tensors.size() ? "fewer" : "more", " operands were provided than specified in the "
              "equation");
  std::vector<Labeled> ops;
  int64_t max_ell = 0;
  std::array<int, kNumLabels> count{};
  for (size_t i = 0; i < terms.size(); ++i) {
    Labeled x{tensors[i], parse_term(terms[i], eq, tensors[i].dim(), static_cast<int64_t>(i), &max_ell)};
    for (int l : x.labels) ++count[l];
    ops.push_back(diagonalize(std::move(x)));
  }
  // The output: as given, or (implicit form) the ellipsis dims then the letters used once,
  // in alphabetical order.
  std::vector<int> out_labels;
  if (arrow != std::string::npos) {
    const std::string rhs = eq.substr(arrow + 2);
    const size_t dots = rhs.find("...");
    for (size_t i = 0; i < rhs.size(); ++i) {
      if (rhs[i] == '.') {
        if (i == dots)
          for (int64_t e = max_ell - 1; e >= 0; --e) out_labels.push_back(kEllipsisBase + static_cast<int>(e));
        continue;
      }
      const int l = letter_label(rhs[i], eq);
      EMBER_CHECK(count[l] > 0, RuntimeError, "einsum(): output subscript ", rhs[i],
                  " does not appear in the equation for any input operand");
      EMBER_CHECK(std::find(out_labels.begin(), out_labels.end(), l) == out_labels.end(), RuntimeError,
                  "einsum(): output subscript ", rhs[i], " appears more than once in the output");
      out_labels.push_back(l);
    }
  } else {
    for (int64_t e = max_ell - 1; e >= 0; --e) out_labels.push_back(kEllipsisBase + static_cast<int>(e));
    for (int l = 0; l < kEllipsisBase; ++l)
      if (count[l] == 1) out_labels.push_back(l);
  }
  std::array<int, kNumLabels> in_output{};
  for (int l : out_labels) in_output[l] = 1;
  // Left to right: labels needed after operand i are those of later operands and the output.
  auto needed_after = [&](size_t i) {
    std::array<int, kNumLabels> need = in_output;
    for (size_t j = i + 1; j < ops.size(); ++j)
      for (int l : ops[j].labels) need[l] = 1;
    return need;
  };
  Labeled acc = sum_unneeded(ops[0], needed_after(0));
  for (size_t i = 1; i < ops.size(); ++i) {
    const auto need = needed_after(i);
    // Dims of the next operand that neither acc nor anything later uses are summed first.
    std::array<int, kNumLabels> need_b = need;
    for (int l : acc.labels) need_b[l] = 1;
    Labeled b = sum_unneeded(ops[i], need_b);
    acc = contract(acc, b, need);
  }
  acc = sum_unneeded(acc, in_output);
  // Ellipsis dims may be missing from acc when no operand had them all; broadcast handled
  // above, so here only permute into the output order.
  DimVector perm;
  for (int l : out_labels) {
    auto it = std::find(acc.labels.begin(), acc.labels.end(), l);
    if (it == acc.labels.end()) {
      acc.t = acc.t.unsqueeze(acc.t.dim());
      acc.labels.push_back(l);
      it = acc.labels.end() - 1;
    }
    perm.push_back(it - acc.labels.begin());
  }
  // Like torch, a pure relabelling ("ij->ji") returns a view.
  return acc.t.permute(perm);
}

// ---------------------------------------------------------------- tensordot, kron, cross
Tensor tensordot_composite(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b) {
  EMBER_CHECK(dims_a.size() == dims_b.size(), RuntimeError, "both dimension lists should have same length");
  std::vector<bool> ca(a.dim(), false), cb(b.dim(), false);
  int64_t k = 1;
  DimVector da, db;
  for (size_t i = 0; i < dims_a.size(); ++i) {
    const int64_t x = wrap_dim(dims_a[i], a.dim()), y = wrap_dim(dims_b[i], b.dim());
    EMBER_CHECK(a.sizes()[x] == b.sizes()[y], RuntimeError, "contracted dimensions need to match, but first has size ",
                a.sizes()[x], " in dim ", x, " and second has size ", b.sizes()[y], " in dim ", y);
    EMBER_CHECK(!ca[x] && !cb[y], RuntimeError, "tensordot(): a dimension appears twice in the dims lists");
    ca[x] = cb[y] = true;
    da.push_back(x);
    db.push_back(y);
    k *= a.sizes()[x];
  }
  DimVector perm_a, perm_b, out_shape;
  int64_t m = 1, n = 1;
  for (int64_t i = 0; i < a.dim(); ++i)
    if (!ca[i]) {
      perm_a.push_back(i);
      out_shape.push_back(a.sizes()[i]);
      m *= a.sizes()[i];
    }
  for (int64_t x : da) perm_a.push_back(x);
  perm_b = db;
  for (int64_t i = 0; i < b.dim(); ++i)
    if (!cb[i]) {
      perm_b.push_back(i);
      out_shape.push_back(b.sizes()[i]);
      n *= b.sizes()[i];
    }
  return mm(a.permute(perm_a).reshape({m, k}), b.permute(perm_b).reshape({k, n})).view(out_shape);
}

// tensordot(a, b, dims=N): the last N dims of a with the first N of b.
Tensor tensordot_int_composite(const Tensor& a, const Tensor& b, int64_t n) {
  EMBER_CHECK(n >= 0, RuntimeError, "tensordot expects dims >= 0, but got dims=", n);
  EMBER_CHECK(n <= a.dim() && n <= b.dim(), RuntimeError, "tensordot expects dims < ndim_a or ndim_b, but got dims=",
              n);
  DimVector da, db;
  for (int64_t i = 0; i < n; ++i) {
    da.push_back(a.dim() - n + i);
    db.push_back(i);
  }
  return tensordot_composite(a, b, da, db);
}

Tensor kron_composite(const Tensor& a, const Tensor& b) {
  const int64_t nd = std::max(a.dim(), b.dim());
  DimVector sa(nd - a.dim(), 1), sb(nd - b.dim(), 1);
  for (int64_t s : a.sizes()) sa.push_back(s);
  for (int64_t s : b.sizes()) sb.push_back(s);
  // a as [a0, 1, a1, 1, ...] times b as [1, b0, 1, b1, ...] interleaves the products.
  DimVector va, vb, out;
  for (int64_t i = 0; i < nd; ++i) {
    va.push_back(sa[i]);
    va.push_back(1);
    vb.push_back(1);
    vb.push_back(sb[i]);
    out.push_back(sa[i] * sb[i]);
  }
  return mul(a.reshape(va), b.reshape(vb)).reshape(out);
}

Tensor cross_composite(const Tensor& a, const Tensor& b, std::optional<int64_t> dim) {
  EMBER_CHECK(a.dim() == b.dim(), RuntimeError, "linalg.cross: inputs must have the same number of dimensions.");
  DimVector shape = broadcast_shapes(a.sizes(), b.sizes());
  int64_t d;
  if (dim) {
    d = wrap_dim(*dim, static_cast<int64_t>(shape.size()));
  } else {
    // torch.cross without dim: the first dim of size 3.
    auto it = std::find(shape.begin(), shape.end(), 3);
    EMBER_CHECK(it != shape.end(), RuntimeError, "no dimension of size 3 in input");
    d = it - shape.begin();
  }
  EMBER_CHECK(shape[d] == 3, RuntimeError, "linalg.cross: inputs dimension ", d, " must have length 3. Got ",
              a.sizes()[d], " and ", b.sizes()[d]);
  Tensor x = a.expand(shape), y = b.expand(shape);
  auto c = [&](const Tensor& t, int64_t i) { return t.narrow(d, i, 1); };
  return cat({sub(mul(c(x, 1), c(y, 2)), mul(c(x, 2), c(y, 1))), sub(mul(c(x, 2), c(y, 0)), mul(c(x, 0), c(y, 2))),
              sub(mul(c(x, 0), c(y, 1)), mul(c(x, 1), c(y, 0)))},
             d);
}

// ---------------------------------------------------------------- chain_matmul, trace
// Multiplies in the order that needs the fewest scalar products (the classic dynamic program).
Tensor chain_matmul_composite(TensorList m) {
  EMBER_CHECK(!m.empty(), RuntimeError, "chain_matmul(): Expected one or more matrices");
  for (size_t i = 0; i < m.size(); ++i)
    EMBER_CHECK(m[i].dim() == 2, RuntimeError, "chain_matmul(): Tensor ", i, " must be 2D, got ", m[i].dim(), "D");
  const size_t n = m.size();
  if (n == 1) return m[0].clone();
  std::vector<int64_t> d(n + 1);
  d[0] = m[0].sizes()[0];
  for (size_t i = 0; i < n; ++i) {
    EMBER_CHECK(m[i].sizes()[0] == d[i], RuntimeError, "chain_matmul(): matrices ", i - 1, " and ", i,
                " cannot be multiplied (", d[i], " columns and ", m[i].sizes()[0], " rows)");
    d[i + 1] = m[i].sizes()[1];
  }
  std::vector<std::vector<int64_t>> cost(n, std::vector<int64_t>(n, 0)), split(n, std::vector<int64_t>(n, 0));
  for (size_t len = 1; len < n; ++len)
    for (size_t i = 0; i + len < n; ++i) {
      const size_t j = i + len;
      cost[i][j] = INT64_MAX;
      for (size_t k = i; k < j; ++k) {
        const int64_t c = cost[i][k] + cost[k + 1][j] + d[i] * d[k + 1] * d[j + 1];
        if (c < cost[i][j]) {
          cost[i][j] = c;
          split[i][j] = static_cast<int64_t>(k);
        }
      }
    }
  auto product = [&](auto&& self, size_t i, size_t j) -> Tensor {
    if (i == j) return m[i];
    const auto k = static_cast<size_t>(split[i][j]);
    return mm(self(self, i, k), self(self, k + 1, j));
  };
  return product(product, 0, n - 1);
}

Tensor trace_composite(const Tensor& self) {
  EMBER_CHECK(self.dim() == 2, RuntimeError, "trace: expected a matrix, but got tensor with dim ", self.dim());
  const ScalarType dt = self.dtype();
  EMBER_CHECK(dt != kBool && dt != kHalf && dt != kBFloat16, RuntimeError, "\"trace\" not implemented for '", dt,
              "'");
  return self.diagonal().sum();
}

// ---------------------------------------------------------------- diff, trapezoid, cdist
Tensor diff_composite(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
                      const std::optional<Tensor>& append) {
  EMBER_CHECK(self.dim() >= 1, RuntimeError, "diff expects input to be at least one-dimensional");
  // n <= 0 returns a copy, as PyTorch 1.13 does.
  const int64_t d = wrap_dim(dim, self.dim());
  Tensor x = self;
  if ((prepend && prepend->defined()) || (append && append->defined())) {
    std::vector<Tensor> parts;
    if (prepend && prepend->defined()) parts.push_back(*prepend);
    parts.push_back(self);
    if (append && append->defined()) parts.push_back(*append);
    x = cat(parts, d);
  }
  for (int64_t i = 0; i < n && x.sizes()[d] > 0; ++i) {
    const int64_t len = x.sizes()[d] - 1;
    const Tensor hi = x.narrow(d, 1, len), lo = x.narrow(d, 0, len);
    x = x.dtype() == kBool ? ne(hi, lo) : sub(hi, lo);
  }
  return x.is_same(self) ? self.clone() : x;
}

// Sum of (y[i] + y[i+1]) / 2 * dx[i] along dim.
Tensor trapezoid_impl(const Tensor& y, const Tensor* x, const Scalar& dx, int64_t dim) {
  EMBER_CHECK(y.dtype() != kBool, RuntimeError, "trapezoid: \"add\" of the samples is not implemented for 'Bool'");
  const int64_t d = wrap_dim(dim, y.dim());
  const int64_t n = y.sizes()[d];
  if (n == 0) {  // no intervals: zeros of y's dtype
    DimVector shape;
    for (int64_t i = 0; i < y.dim(); ++i)
      if (i != d) shape.push_back(y.sizes()[i]);
    return zeros(shape, TensorOptions(y.dtype()).device(y.device()));
  }
  const Tensor pair = add(y.narrow(d, 1, n - 1), y.narrow(d, 0, n - 1));
  if (!x) {
    const Scalar half_dx = dx.is_complex() ? Scalar(dx.to_complex() / 2.0) : Scalar(dx.to_double() / 2.0);
    return mul(sum(pair, DimVector{d}), half_dx);
  }
  Tensor steps;
  if (x->dim() == 1) {
    EMBER_CHECK(x->sizes()[0] == n, RuntimeError, "trapezoid: There must be one `x` value for each sample point");
    DimVector view(y.dim(), 1);
    view[d] = n - 1;
    steps = sub(x->narrow(0, 1, n - 1), x->narrow(0, 0, n - 1)).view(view);
  } else {
    const int64_t xd = wrap_dim(dim, x->dim());
    const int64_t xn = x->sizes()[xd];
    steps = sub(x->narrow(xd, 1, xn - 1), x->narrow(xd, 0, xn - 1));
  }
  return div(sum(mul(steps, pair), DimVector{d}), Scalar(2));
}
// The running integral: the sum of the first k intervals' areas, for k = 1 .. n-1.
Tensor cumulative_trapezoid_impl(const Tensor& y, const Tensor* x, const Scalar& dx, int64_t dim) {
  EMBER_CHECK(y.dtype() != kBool, RuntimeError,
              "cumulative_trapezoid: received a bool input for `y`, but bool is not supported");
  const int64_t d = wrap_dim(dim, y.dim());
  const int64_t n = y.sizes()[d];
  // n - 1 intervals (none for n <= 1: an empty result, still of the formula's dtype).
  const int64_t m = std::max<int64_t>(n - 1, 0), first = n > 0 ? 1 : 0;
  auto intervals = [&](const Tensor& t, int64_t along) {
    return std::pair{t.narrow(along, first, m), t.narrow(along, 0, m)};
  };
  const auto [y_hi, y_lo] = intervals(y, d);
  const Tensor pair = add(y_hi, y_lo);
  if (!x) {
    const Scalar half_dx = dx.is_complex() ? Scalar(dx.to_complex() / 2.0) : Scalar(dx.to_double() / 2.0);
    return cumsum(mul(pair, half_dx), d);
  }
  Tensor steps;
  if (x->dim() == 1) {
    EMBER_CHECK(x->sizes()[0] == n, RuntimeError,
                "cumulative_trapezoid: There must be one `x` value for each sample point");
    DimVector view(y.dim(), 1);
    view[d] = m;
    const auto [x_hi, x_lo] = intervals(*x, 0);
    steps = sub(x_hi, x_lo).view(view);
  } else {
    const auto [x_hi, x_lo] = intervals(*x, wrap_dim(dim, x->dim()));
    steps = sub(x_hi, x_lo);
  }
  return div(cumsum(mul(steps, pair), d), Scalar(2));
}
Tensor trapezoid_x_composite(const Tensor& y, const Tensor& x, int64_t dim) { return trapezoid_impl(y, &x, 1, dim); }
Tensor cumulative_trapezoid_x_composite(const Tensor& y, const Tensor& x, int64_t dim) {
  return cumulative_trapezoid_impl(y, &x, 1, dim);
}
Tensor cumulative_trapezoid_dx_composite(const Tensor& y, const Scalar& dx, int64_t dim) {
  return cumulative_trapezoid_impl(y, nullptr, dx, dim);
}

// Pairwise p-norm distances between the rows of x1 [..., P, M] and x2 [..., R, M] -> [..., P, R]
// (batch dims broadcast). For p = 2 with many rows, |a|^2 - 2 a.b + |b|^2 through one batched
// matmul (compute_mode as in torch.cdist); otherwise the norm of every difference.
Tensor cdist_composite(const Tensor& x1, const Tensor& x2, double p, std::string_view compute_mode) {
  EMBER_CHECK(x1.dim() >= 2, RuntimeError, "cdist only supports at least 2D tensors, X1 got: ", x1.dim(), "D");
  EMBER_CHECK(x2.dim() >= 2, RuntimeError, "cdist only supports at least 2D tensors, X2 got: ", x2.dim(), "D");
  EMBER_CHECK(x1.sizes().back() == x2.sizes().back(), RuntimeError,
              "X1 and X2 must have the same number of columns. X1: ", x1.sizes().back(), " X2: ", x2.sizes().back());
  for (const Tensor* t : {&x1, &x2}) {
    EMBER_CHECK(is_floating_point(t->dtype()), RuntimeError,
                "cdist only supports floating-point dtypes, ", t == &x1 ? "X1" : "X2", " got: ", t->dtype());
    EMBER_CHECK(t->dtype() == kFloat || t->dtype() == kDouble, RuntimeError,
                "\"cdist\" not implemented for '", t->dtype(), "'");
  }
  EMBER_CHECK(x1.dtype() == x2.dtype(), RuntimeError, "cdist: expected X1 and X2 of the same dtype, got ", x1.dtype(),
              " and ", x2.dtype());
  EMBER_CHECK(p >= 0, RuntimeError, "cdist only supports non-negative p values");
  int mode = -1;
  if (compute_mode == "use_mm_for_euclid_dist_if_necessary") mode = 0;
  if (compute_mode == "use_mm_for_euclid_dist") mode = 1;
  if (compute_mode == "donot_use_mm_for_euclid_dist") mode = 2;
  EMBER_CHECK(mode >= 0, ValueError, compute_mode, " is not a valid value for compute_mode");

  const int64_t P = x1.sizes()[x1.dim() - 2], R = x2.sizes()[x2.dim() - 2], M = x1.sizes().back();
  DimVector batch = broadcast_shapes(x1.sizes().slice(0, x1.dim() - 2), x2.sizes().slice(0, x2.dim() - 2));
  DimVector shape1 = batch, shape2 = batch, out_shape = batch;
  for (auto [shape, rows, cols] : {std::tuple{&shape1, P, M}, {&shape2, R, M}, {&out_shape, P, R}}) {
    shape->push_back(rows);
    shape->push_back(cols);
  }
  const Tensor a = x1.expand(shape1), b = x2.expand(shape2);
  // No columns: all distances are zero, through ops so that autograd connects the result.
  if (M == 0) return sum(sub(a.unsqueeze(-2), b.unsqueeze(-3)), DimVector{-1});
  if (p == 2 && (mode == 1 || (mode == 0 && (P > 25 || R > 25)))) {
    const Tensor a_sq = sum(mul(a, a), DimVector{-1}, /*keepdim=*/true);                   // [..., P, 1]
    const Tensor b_sq = sum(mul(b, b), DimVector{-1}, /*keepdim=*/true).transpose(-2, -1);  // [..., 1, R]
    const Tensor cross_term = matmul(a, b.transpose(-2, -1));                             // [..., P, R]
    return sqrt(clamp_min(add(sub(a_sq, cross_term, 2), b_sq), 0));
  }
  const Tensor diffs = sub(a.unsqueeze(-2), b.unsqueeze(-3));  // [..., P, R, M]
  return norm(diffs, Scalar(p), DimVector{-1});
}
Tensor trapezoid_dx_composite(const Tensor& y, const Scalar& dx, int64_t dim) {
  return trapezoid_impl(y, nullptr, dx, dim);
}

using EinsumSig = Tensor(std::string_view, TensorList);
using TensordotSig = Tensor(const Tensor&, const Tensor&, IntArrayRef, IntArrayRef);
using TensordotIntSig = Tensor(const Tensor&, const Tensor&, int64_t);
using BinarySig = Tensor(const Tensor&, const Tensor&);
using CrossSig = Tensor(const Tensor&, const Tensor&, std::optional<int64_t>);
using ListSig = Tensor(TensorList);
using UnarySig = Tensor(const Tensor&);
using DiffSig = Tensor(const Tensor&, int64_t, int64_t, const std::optional<Tensor>&, const std::optional<Tensor>&);
using TrapezoidXSig = Tensor(const Tensor&, const Tensor&, int64_t);
using TrapezoidDxSig = Tensor(const Tensor&, const Scalar&, int64_t);
using CdistSig = Tensor(const Tensor&, const Tensor&, double, std::string_view);

}  // namespace

Tensor einsum(std::string_view equation, TensorList tensors) {
  static const TypedOp<EinsumSig> op("einsum");
  return op.call(equation, tensors);
}
Tensor tensordot(const Tensor& a, const Tensor& b, IntArrayRef dims_a, IntArrayRef dims_b) {
  static const TypedOp<TensordotSig> op("tensordot");
  return op.call(a, b, dims_a, dims_b);
}
Tensor tensordot(const Tensor& a, const Tensor& b, int64_t dims) {
  static const TypedOp<TensordotIntSig> op("tensordot.int");
  return op.call(a, b, dims);
}
Tensor kron(const Tensor& a, const Tensor& b) {
  static const TypedOp<BinarySig> op("kron");
  return op.call(a, b);
}
Tensor cross(const Tensor& a, const Tensor& b, std::optional<int64_t> dim) {
  static const TypedOp<CrossSig> op("cross");
  return op.call(a, b, dim);
}
Tensor chain_matmul(TensorList matrices) {
  static const TypedOp<ListSig> op("chain_matmul");
  return op.call(matrices);
}
Tensor trace(const Tensor& self) {
  static const TypedOp<UnarySig> op("trace");
  return op.call(self);
}
Tensor diff(const Tensor& self, int64_t n, int64_t dim, const std::optional<Tensor>& prepend,
            const std::optional<Tensor>& append) {
  static const TypedOp<DiffSig> op("diff");
  return op.call(self, n, dim, prepend, append);
}
Tensor trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  static const TypedOp<TrapezoidXSig> op("trapezoid.x");
  return op.call(y, x, dim);
}
Tensor trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  static const TypedOp<TrapezoidDxSig> op("trapezoid.dx");
  return op.call(y, dx, dim);
}

Tensor cumulative_trapezoid(const Tensor& y, const Tensor& x, int64_t dim) {
  static const TypedOp<TrapezoidXSig> op("cumulative_trapezoid.x");
  return op.call(y, x, dim);
}
Tensor cumulative_trapezoid(const Tensor& y, const Scalar& dx, int64_t dim) {
  static const TypedOp<TrapezoidDxSig> op("cumulative_trapezoid.dx");
  return op.call(y, dx, dim);
}
Tensor cdist(const Tensor& x1, const Tensor& x2, double p, std::string_view compute_mode) {
  static const TypedOp<CdistSig> op("cdist");
  return op.call(x1, x2, p, compute_mode);
}

EMBER_REGISTER(product_ops) {
  define_op<EinsumSig>("einsum(str equation, Tensor[] tensors) -> Tensor");
  register_composite<EinsumSig, &einsum_composite>("einsum");
  define_op<TensordotIntSig>("tensordot.int(Tensor self, Tensor other, int dims=2) -> Tensor", Tag::FunctionOnly);
  register_composite<TensordotIntSig, &tensordot_int_composite>("tensordot.int");
  define_op<TensordotSig>("tensordot(Tensor self, Tensor other, int[] dims_self, int[] dims_other) -> Tensor",
                          Tag::FunctionOnly);
  register_composite<TensordotSig, &tensordot_composite>("tensordot");
  define_op<BinarySig>("kron(Tensor self, Tensor other) -> Tensor");
  register_composite<BinarySig, &kron_composite>("kron");
  define_op<CrossSig>("cross(Tensor self, Tensor other, int? dim=None) -> Tensor");
  register_composite<CrossSig, &cross_composite>("cross");
  define_op<ListSig>("chain_matmul(Tensor[] matrices) -> Tensor");
  register_composite<ListSig, &chain_matmul_composite>("chain_matmul");
  define_op<UnarySig>("trace(Tensor self) -> Tensor");
  register_composite<UnarySig, &trace_composite>("trace");
  define_op<DiffSig>("diff(Tensor self, int n=1, int dim=-1, Tensor? prepend=None, Tensor? append=None) -> Tensor");
  register_composite<DiffSig, &diff_composite>("diff");
  define_op<TrapezoidXSig>("trapezoid.x(Tensor y, Tensor x, *, int dim=-1) -> Tensor");
  register_composite<TrapezoidXSig, &trapezoid_x_composite>("trapezoid.x");
  define_op<TrapezoidDxSig>("trapezoid.dx(Tensor y, *, Scalar dx=1, int dim=-1) -> Tensor");
  register_composite<TrapezoidDxSig, &trapezoid_dx_composite>("trapezoid.dx");
  define_op<TrapezoidXSig>("cumulative_trapezoid.x(Tensor y, Tensor x, *, int dim=-1) -> Tensor");
  register_composite<TrapezoidXSig, &cumulative_trapezoid_x_composite>("cumulative_trapezoid.x");
  define_op<TrapezoidDxSig>("cumulative_trapezoid.dx(Tensor y, *, Scalar dx=1, int dim=-1) -> Tensor");
  register_composite<TrapezoidDxSig, &cumulative_trapezoid_dx_composite>("cumulative_trapezoid.dx");
  define_op<CdistSig>("cdist(Tensor x1, Tensor x2, float p=2, "
                      "str compute_mode='use_mm_for_euclid_dist_if_necessary') -> Tensor", Tag::FunctionOnly);
  register_composite<CdistSig, &cdist_composite>("cdist");
}

}  // namespace ember
