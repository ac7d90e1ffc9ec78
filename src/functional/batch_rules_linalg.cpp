// Batch rules for linalg's solves, whose operands broadcast their batch dims against each other
// per sample: linalg_solve_ex (with its vector right-hand sides), linalg_lu_solve,
// linalg_ldl_solve, linalg_solve_triangular, _linalg_lstsq, linalg_householder_product and
// linalg_pinv with tensor tolerances.
//
// Operands of different ranks cannot take the batch as one more leading dim as they are: the
// batch dim of one would meet a per-sample batch dim of the other. Each operand is expanded to
// [B, *batch, core dims] instead, batch being the broadcast of the samples' batch shapes, so
// that one call serves all samples (expanding copies nothing).
#include "ember/ops.h"
#include "functional/batched.h"

namespace ember::func::detail {

namespace {

struct Operand {
  Tensor t;      // logical (batched at the level or not)
  int64_t core;  // trailing dims that are not batch dims (2 for a matrix, 1 for pivots)
};

// The broadcast of the operands' per-sample batch shapes; nullopt when they do not broadcast
// or an operand lacks its core dims (the loop then raises the op's own error).
std::optional<DimVector> common_batch(const std::vector<Operand>& ops) {
  DimVector batch;
  for (const Operand& o : ops) {
    if (o.t.dim() < o.core) return std::nullopt;
    IntArrayRef b = o.t.sizes().slice(0, static_cast<size_t>(o.t.dim() - o.core));
    const size_t n = std::max(batch.size(), b.size());
    DimVector out(n, 1);
    for (size_t i = 0; i < n; ++i) {
      const int64_t x = i < n - batch.size() ? 1 : batch[i - (n - batch.size())];
      const int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
      if (x != y && x != 1 && y != 1) return std::nullopt;
      out[i] = x == 1 ? y : x;
    }
    batch = std::move(out);
  }
  return batch;
}

// o as the physical [B, *batch, core dims].
Tensor expand_operand(const Operand& o, const DimVector& batch, int64_t level, int64_t B) {
  Tensor p = physical_or_expanded(o.t, level, B);
  const auto own = o.t.dim() - o.core;
  for (auto k = own; k < static_cast<int64_t>(batch.size()); ++k) p = p.unsqueeze(1);
  DimVector sz{B};
  for (int64_t x : batch) sz.push_back(x);
  for (int64_t d = o.t.dim() - o.core; d < o.t.dim(); ++d) sz.push_back(o.t.size(d));
  return p.expand(sz);
}

// A result that depends on one operand only (linalg_solve_ex's info, one per matrix A): the
// entries of the dims that operand was broadcast along are copies, and only the first is kept.
Tensor unbroadcast(Tensor r, const Operand& o, const DimVector& batch, int64_t B) {
  const auto rb = static_cast<int64_t>(batch.size()), own = o.t.dim() - o.core;
  for (int64_t i = 0; i < rb; ++i) {
    const int64_t oi = i - (rb - own);
    if (oi < 0 || (o.t.size(oi) == 1 && batch[static_cast<size_t>(i)] != 1)) r = r.narrow(1 + i, 0, 1);
  }
  DimVector sz{B};
  for (int64_t d = 0; d < own; ++d) sz.push_back(o.t.size(d));
  return r.reshape(sz);
}

// An empty placeholder result (lstsq's residuals, rank or singular values when the driver does
// not compute them) is the same for every sample.
Tensor with_batch(const Tensor& r, int64_t B) {
  if (r.dim() > 0 && r.size(0) == B) return r;
  DimVector sz{B};
  for (int64_t s : r.sizes()) sz.push_back(s);
  return r.unsqueeze(0).expand(sz);
}

// linalg_solve_ex(A, B, left, check_errors) -> (result, info). B is a vector per sample when it
// is 1-D, or has A's shape without its last dim; it is solved as a one-column (left) or one-row
// matrix, so that the physical call, whose ranks differ from the sample's, sees matrices.
bool solve_ex_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  const Tensor A = stack[0].tensor(), b = stack[1].tensor();
  const bool left = stack[2].get<bool>();
  if (A.dim() < 2 || b.dim() < 1 || A.dtype() != b.dtype()) return false;
  const bool vec = b.dim() == 1 || (b.dim() == A.dim() - 1 && b.sizes().equals(A.sizes().slice(0, A.dim() - 1)));
  const Operand a{A, 2}, m{vec ? b.unsqueeze(left ? -1 : -2) : b, 2};
  const auto batch = common_batch({a, m});
  if (!batch) return false;
  Stack s{IValue(expand_operand(a, *batch, level, B)), IValue(expand_operand(m, *batch, level, B)),
          static_cast<const IValue&>(stack[2]), static_cast<const IValue&>(stack[3])};
  redispatch(op, s);
  Tensor x = s[0].tensor();
  if (vec) x = x.squeeze(left ? -1 : -2);
  const Tensor info = unbroadcast(s[1].tensor(), a, *batch, B);
  stack.clear();
  stack.emplace_back(make_batched(x, level));
  stack.emplace_back(make_batched(info, level));
  return true;
}

// Ops whose leading tensor operands broadcast their batch dims (the cores given per operand),
// with one result of the broadcast batch shape.
template <int C0, int C1, int C2>
bool broadcast_solve_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  constexpr int cores[] = {C0, C1, C2};
  std::vector<Operand> ops;
  for (size_t i = 0; i < 3 && cores[i] > 0; ++i) {
    if (!stack[i].is_tensor() || !stack[i].tensor().defined()) return false;
    ops.push_back({stack[i].tensor(), cores[i]});
  }
  const auto batch = common_batch(ops);
  if (!batch) return false;
  Stack s = stack;
  for (size_t i = 0; i < ops.size(); ++i) s[i] = IValue(expand_operand(ops[i], *batch, level, B));
  redispatch(op, s);
  stack = std::move(s);
  wrap_results(stack, level);
  return true;
}

// _linalg_lstsq(self, b, rcond, driver) -> (solution, residuals, rank, singular_values). b is a
// vector per sample when it has one dim less than self (lstsq's rule).
bool lstsq_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  const Tensor A = stack[0].tensor(), b = stack[1].tensor();
  if (A.dim() < 2 || b.dim() < 1 || A.dtype() != b.dtype()) return false;
  const bool vec = A.dim() - 1 == b.dim();
  const Operand a{A, 2}, m{vec ? b.unsqueeze(-1) : b, 2};
  const auto batch = common_batch({a, m});
  if (!batch || a.t.size(-2) != m.t.size(-2)) return false;
  Stack s = stack;
  s[0] = IValue(expand_operand(a, *batch, level, B));
  s[1] = IValue(expand_operand(m, *batch, level, B));
  redispatch(op, s);
  if (vec) s[0] = IValue(s[0].tensor().squeeze(-1));
  for (IValue& v : s) v = IValue(make_batched(with_batch(v.tensor(), B), level));
  stack = std::move(s);
  return true;
}

// linalg_pinv(self, atol, rtol, hermitian) with tensor tolerances: the tolerances broadcast
// against self's batch dims, per sample.
bool pinv_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  std::vector<Operand> ops{{stack[0].tensor(), 2}};
  for (size_t i = 1; i <= 2; ++i)
    if (stack[i].is_tensor() && stack[i].tensor().defined()) ops.push_back({stack[i].tensor(), 0});
  const auto batch = common_batch(ops);
  if (!batch) return false;
  Stack s = stack;
  s[0] = IValue(expand_operand(ops[0], *batch, level, B));
  for (size_t i = 1, k = 1; i <= 2; ++i)
    if (stack[i].is_tensor() && stack[i].tensor().defined()) s[i] = IValue(expand_operand(ops[k++], *batch, level, B));
  redispatch(op, s);
  stack = std::move(s);
  wrap_results(stack, level);
  return true;
}

}  // namespace

void register_linalg_batch_rules() {
  set_rule("linalg_solve_ex", &solve_ex_rule);
  set_rule("linalg_lu_solve", &broadcast_solve_rule<2, 1, 2>);
  set_rule("linalg_ldl_solve", &broadcast_solve_rule<2, 1, 2>);
  set_rule("linalg_solve_triangular", &broadcast_solve_rule<2, 2, 0>);
  set_rule("linalg_householder_product", &broadcast_solve_rule<2, 1, 0>);
  set_rule("_linalg_lstsq", &lstsq_rule);
  set_rule("linalg_pinv.atol_rtol_tensor", &pinv_rule);
}

}  // namespace ember::func::detail
