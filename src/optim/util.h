// What the C++ optimizers share: reading a group's options, the state entries they keep, and
// torch's argument checks (messages spell numbers as Python does).
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <utility>

#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/ops.h"
#include "ember/optim/optimizer.h"

namespace ember::optim::detail {

inline bool flag(const ParamGroup& g, std::string_view name) { return g.options.at(Value(name)).to_bool(); }

inline std::pair<double, double> betas(const ParamGroup& g) {
  const Value& b = g.options.at(Value("betas"));
  EMBER_CHECK(b.is_sequence() && b.items().size() == 2, TypeError, "betas must be a pair of numbers");
  return {b.items()[0].to_double(), b.items()[1].to_double()};
}

inline Value pair_value(std::pair<double, double> p) { return Value::tuple({Value(p.first), Value(p.second)}); }

// ValueError("Invalid <what>: <value>") unless ok.
inline void check_arg(bool ok, const char* what, double value) {
  EMBER_CHECK(ok, ValueError, "Invalid ", what, ": ", Value(value).repr());
}
inline void check_betas(std::pair<double, double> b) {
  check_arg(0.0 <= b.first && b.first < 1.0, "beta parameter at index 0", b.first);
  check_arg(0.0 <= b.second && b.second < 1.0, "beta parameter at index 1", b.second);
}

// The closure's loss, computed with grad mode on.
inline Tensor call_closure(const std::function<Tensor()>& closure) {
  if (!closure) return Tensor();
  autograd::EnableGradGuard grad;
  return closure();
}

// Complex tensors are updated as pairs of reals (torch's view_as_real).
inline Tensor real_view(const Tensor& t) { return t.is_complex() ? t.view_as_real() : t; }

// A state entry that is a tensor, or an undefined Tensor.
inline Tensor state_tensor(const Value& state, std::string_view key) {
  const Value* v = state.find(Value(key));
  return v && v->is_tensor() ? v->to_tensor() : Tensor();
}

// torch's state["step"] = torch.tensor(0.): a float32 counter.
inline Tensor step_counter() { return zeros({}, TensorOptions(kFloat)); }

}  // namespace ember::optim::detail
