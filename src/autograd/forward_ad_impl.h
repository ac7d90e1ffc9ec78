// Forward AD's hooks into the Autograd layer (fallback.cpp), views and saved tensors.
#pragma once

#include <vector>

#include "ember/dispatch.h"
#include "ember/forward_ad.h"

namespace ember::autograd::forward_ad::detail {

// The tangent of t at the live level; undefined when it has none (or no level is live).
Tensor get_tangent(const Tensor& t);
// Sets t's tangent at the live level and gives t the Autograd key.
void set_tangent(const Tensor& t, const Tensor& tangent);

// RAII: ops on this thread compute no tangents (while a JVP rule runs).
class SuppressGuard {
 public:
  SuppressGuard();
  ~SuppressGuard();
  SuppressGuard(const SuppressGuard&) = delete;
  SuppressGuard& operator=(const SuppressGuard&) = delete;
};

// An op about to run with some input that has a tangent: its arguments and their tangents,
// kept until its results exist.
struct PendingJvp {
  std::vector<IValue> args;
  std::vector<std::vector<Tensor>> tangents;
  std::vector<size_t> written;
  const JvpRule* rule = nullptr;
  bool from_vjp = false;  // no rule: derive the JVP from the backward formula
  bool unsupported = false;  // neither: raise if a result is differentiable
};
// Fills p and returns true when an input has a tangent; raises (before the op runs) for ops
// that support no forward AD.
bool prepare(const OpEntry& op, const Stack& stack, PendingJvp& p);
// Computes and sets the tangents of the op's results (or updates the written argument's).
void finish(const OpEntry& op, Stack& stack, PendingJvp& p);

// A view was made of base: it gets the matching view of base's tangent. Returns whether the
// view has a tangent.
bool propagate_to_view(const Tensor& base, const Tensor& view);
// Gives `to` the tangent of `from` (a saved output unpacked for a backward formula).
void copy_tangent(const Tensor& from, const Tensor& to);

}  // namespace ember::autograd::forward_ad::detail
