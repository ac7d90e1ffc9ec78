// Uniqueness: _unique, _unique2 (what torch.unique calls without dim), unique_dim and
// unique_consecutive, each giving (values, inverse, counts); the inverse and counts are empty
// unless asked for. Values come out sorted (also for sorted=False, where any order is valid).
// Equality is the dtype's ==: NaN equals nothing, -0.0 equals 0.0. The sizes depend on the
// data, so Meta inputs are rejected.
#include <vector>

#include "backends/cpu/sort_stubs.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ops/reduce.h"

namespace ember {
namespace {

void check_unique_input(const char* name, const Tensor& self) {
  reduce_check_device(name, self);
  EMBER_CHECK(!self.is_meta(), NotImplementedError, name,
              "(): the output size depends on the data, so it has no Meta kernel");
}

Tensor int64_tensor(const std::vector<int64_t>& v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, TensorOptions(kInt64));
  if (!v.empty()) std::copy(v.begin(), v.end(), t.data_ptr<int64_t>());
  return t;
}

// Groups equal neighbours of `sorted` ([n, ...] slices, contiguous): the first position of
// each group, the group of each slice, and group sizes.
struct Groups {
  std::vector<int64_t> start, run, count;
};
Groups group_runs(const Tensor& sorted, int64_t n, int64_t m) {
  Groups g;
  g.run.resize(static_cast<size_t>(n));
  if (n == 0) return g;
  const int64_t ng = cpu::runs_stub.get()(static_cast<const char*>(sorted.data_ptr()), sorted.dtype(), n, m, g.run.data());
  g.start.assign(static_cast<size_t>(ng), 0);
  g.count.assign(static_cast<size_t>(ng), 0);
  for (int64_t i = n - 1; i >= 0; --i) {
    g.start[static_cast<size_t>(g.run[static_cast<size_t>(i)])] = i;
    ++g.count[static_cast<size_t>(g.run[static_cast<size_t>(i)])];
  }
  return g;
}

// Slices of `t` (dim 0) at the given positions.
Tensor take_rows(const Tensor& t, const std::vector<int64_t>& pos) {
  return index(t, {std::optional<Tensor>(int64_tensor(pos))});
}

// unique over slices along dim 0 of a contiguous [n, ...] tensor, optionally sorting first.
// inverse_shape: the shape the inverse takes.
std::tuple<Tensor, Tensor, Tensor> unique_rows(const Tensor& t, bool sort_first, bool return_inverse,
                                               bool return_counts, IntArrayRef inverse_shape) {
  const int64_t n = t.dim() == 0 ? 1 : t.sizes()[0];
  const int64_t m = n == 0 ? 0 : t.numel() / n;
  std::vector<int64_t> order(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) order[static_cast<size_t>(i)] = i;
  Tensor sorted = t;
  if (sort_first && n > 1) {
    if (m == 1) {
      Tensor flat = t.reshape({n});
      auto [v, idx] = sort(flat, std::optional<bool>(true), 0, false);
      sorted = v.reshape(t.sizes());
      std::copy(idx.data_ptr<int64_t>(), idx.data_ptr<int64_t>() + n, order.begin());
    } else if (m > 0) {
      cpu::slice_sort_stub.get()(static_cast<const char*>(t.data_ptr()), t.dtype(), n, m, order.data());
      sorted = take_rows(t, order).contiguous();
    }
  }
  Groups g = m == 0 && n > 0 ? Groups{{0}, std::vector<int64_t>(static_cast<size_t>(n), 0), {n}} : group_runs(sorted, n, m);
  Tensor values = take_rows(sorted, g.start);
  Tensor inverse = empty({0}, TensorOptions(kInt64)), counts = empty({0}, TensorOptions(kInt64));
  if (return_inverse) {
    std::vector<int64_t> inv(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) inv[static_cast<size_t>(order[static_cast<size_t>(i)])] = g.run[static_cast<size_t>(i)];
    inverse = int64_tensor(inv).reshape(inverse_shape);
  }
  if (return_counts) counts = int64_tensor(g.count);
  return {values, inverse, counts};
}

std::tuple<Tensor, Tensor, Tensor> unique2_k(const Tensor& self, bool, bool return_inverse, bool return_counts) {
  check_unique_input("unique", self);
  EMBER_CHECK(!self.is_complex(), RuntimeError, "\"unique\" not implemented for '", self.dtype(), "'");
  const Tensor flat = self.reshape({-1}).contiguous();
  return unique_rows(flat, true, return_inverse, return_counts, self.sizes());
}
std::tuple<Tensor, Tensor> unique_k(const Tensor& self, bool sorted, bool return_inverse) {
  auto [v, i, c] = unique2_k(self, sorted, return_inverse, false);
  return {v, i};
}

// self with `d` moved first, contiguous; the unique slices are moved back.
Tensor move_first(const Tensor& self, int64_t d) {
  DimVector perm{d};
  for (int64_t i = 0; i < self.dim(); ++i)
    if (i != d) perm.push_back(i);
  return self.permute(perm).contiguous();
}
Tensor move_back(const Tensor& t, int64_t d) {
  DimVector perm;
  for (int64_t i = 1; i <= d; ++i) perm.push_back(i);
  perm.insert(static_cast<size_t>(d), 0);
  for (int64_t i = d + 1; i < t.dim(); ++i) perm.push_back(i);
  return t.permute(perm).contiguous();
}

std::tuple<Tensor, Tensor, Tensor> unique_dim_impl(const char* name, const Tensor& self, int64_t dim, bool sort_first,
                                                   bool return_inverse, bool return_counts) {
  check_unique_input(name, self);
  EMBER_CHECK(!self.is_complex(), RuntimeError, "\"", name, "\" not implemented for '", self.dtype(), "'");
  const int64_t d = wrap_dim(dim, self.dim());
  if (self.dim() == 0) return unique_rows(self.reshape({1}), sort_first, return_inverse, return_counts, {1});
  const Tensor t = move_first(self, d);
  auto [v, inv, cnt] = unique_rows(t, sort_first, return_inverse, return_counts, {self.sizes()[d]});
  return {move_back(v, d), inv, cnt};
}
std::tuple<Tensor, Tensor, Tensor> unique_dim_k(const Tensor& self, int64_t dim, bool, bool return_inverse,
                                                bool return_counts) {
  return unique_dim_impl("unique_dim", self, dim, true, return_inverse, return_counts);
}
std::tuple<Tensor, Tensor, Tensor> unique_consecutive_k(const Tensor& self, bool return_inverse, bool return_counts,
                                                        std::optional<int64_t> dim) {
  if (dim) return unique_dim_impl("unique_consecutive", self, *dim, false, return_inverse, return_counts);
  check_unique_input("unique_consecutive", self);
  EMBER_CHECK(!self.is_complex(), RuntimeError, "\"unique\" not implemented for '", self.dtype(), "'");
  const Tensor flat = self.reshape({-1}).contiguous();
  return unique_rows(flat, false, return_inverse, return_counts, self.sizes());
}

using Unique2Sig = std::tuple<Tensor, Tensor, Tensor>(const Tensor&, bool, bool, bool);
using UniqueSig = std::tuple<Tensor, Tensor>(const Tensor&, bool, bool);
using UniqueDimSig = std::tuple<Tensor, Tensor, Tensor>(const Tensor&, int64_t, bool, bool, bool);
using UniqueConsecutiveSig = std::tuple<Tensor, Tensor, Tensor>(const Tensor&, bool, bool, std::optional<int64_t>);

}  // namespace

std::tuple<Tensor, Tensor, Tensor> unique(const Tensor& self, bool sorted, bool return_inverse, bool return_counts,
                                          std::optional<int64_t> dim) {
  if (dim) {
    static const TypedOp<UniqueDimSig> op("unique_dim");
    return op.call(self, *dim, sorted, return_inverse, return_counts);
  }
  static const TypedOp<Unique2Sig> op("_unique2");
  return op.call(self, sorted, return_inverse, return_counts);
}
std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, bool return_inverse, bool return_counts,
                                                      std::optional<int64_t> dim) {
  static const TypedOp<UniqueConsecutiveSig> op("unique_consecutive");
  return op.call(self, return_inverse, return_counts, dim);
}

EMBER_REGISTER(sort_unique_ops) {
  define_op<UniqueSig>("_unique(Tensor self, bool sorted=True, bool return_inverse=False) -> (Tensor, Tensor)");
  define_op<Unique2Sig>("_unique2(Tensor self, bool sorted=True, bool return_inverse=False, bool return_counts=False) "
                        "-> (Tensor, Tensor, Tensor)");
  define_op<UniqueDimSig>("unique_dim(Tensor self, int dim, bool sorted=True, bool return_inverse=False, "
                          "bool return_counts=False) -> (Tensor, Tensor, Tensor)");
  define_op<UniqueConsecutiveSig>("unique_consecutive(Tensor self, bool return_inverse=False, bool return_counts=False, "
                                  "int? dim=None) -> (Tensor, Tensor, Tensor)");
  register_cpu_meta<UniqueSig, &unique_k>("_unique");
  register_cpu_meta<Unique2Sig, &unique2_k>("_unique2");
  register_cpu_meta<UniqueDimSig, &unique_dim_k>("unique_dim");
  register_cpu_meta<UniqueConsecutiveSig, &unique_consecutive_k>("unique_consecutive");
}

}  // namespace ember
