// What the C++ tests checked against generated PyTorch references share
// (tests/cpp/torch_refs.py writes the tables): the generator's deterministic formulas, rebuilt
// here, and the lookup of a named reference tensor in a generated table.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>

#include "ember/autograd.h"
#include "ember/nn.h"

namespace ember::testing {

// f(a i + b) * scale over the flat index i, f = sin (cos with use_cos), in float64.
inline Tensor formula(IntArrayRef shape, double a, double b, double scale = 1.0, bool use_cos = false) {
  const Tensor i = arange(compute_numel(shape), TensorOptions(kDouble));
  const Tensor arg = add(mul(i, a), b);
  return mul(use_cos ? cos(arg) : sin(arg), scale).reshape(shape);
}

// The k-th parameter (named_parameters order) = 0.5 sin(0.7 i + 0.37 k + 0.1).
inline void set_params(nn::Module& m) {
  autograd::NoGradGuard no_grad;
  int k = 0;
  for (const auto& [name, p] : m.named_parameters()) {
    Tensor t = p;
    t.copy_(formula(p.sizes(), 0.7, 0.37 * k++ + 0.1, 0.5));
  }
}

// An input requiring grad: sin(0.61 i + seed).
inline Tensor inp(IntArrayRef shape, double seed) {
  Tensor t = formula(shape, 0.61, seed);
  autograd::set_requires_grad(t);
  return t;
}

// A loss weight: cos(0.29 i + seed).
inline Tensor gw(IntArrayRef shape, double seed) { return formula(shape, 0.29, seed, 1.0, true); }

// The tensor `name` of a generated table (kRefEntries over kValues), or an undefined Tensor
// when the table has none of that name.
template <typename Entry, size_t N>
Tensor find_ref(const Entry (&entries)[N], const double* values, const std::string& name) {
  static const auto index = [&] {
    std::unordered_map<std::string, const Entry*> m;
    for (const auto& e : entries) m[e.name] = &e;
    return m;
  }();
  auto it = index.find(name);
  if (it == index.end()) return Tensor();
  const Entry& e = *it->second;
  std::vector<int64_t> shape;
  for (int d = 0; e.shape[d] >= 0; ++d) shape.push_back(e.shape[d]);
  std::vector<double> v(values + e.offset, values + e.offset + compute_numel(shape));
  return tensor(v).reshape(shape);
}

// f() must raise the error torch raised, `full` = "Type: message" as a generator recorded
// it: the same type and a message that contains torch's. `key` labels failures.
template <class F>
void expect_torch_error(const F& f, const std::string& full, const std::string& key) {
  const size_t colon = full.find(": ");
  std::string type = full.substr(0, colon);
  const std::string msg = full.substr(colon + 2);
  // C++ has no KeyError or AttributeError: its lookup error, IndexError, stands for both.
  if (type == "KeyError" || type == "AttributeError") type = "IndexError";
  try {
    f();
    ADD_FAILURE() << key << ": expected " << full;
  } catch (const Error& e) {
    const std::string got_type = dynamic_cast<const ValueError*>(&e)     ? "ValueError"
                                 : dynamic_cast<const RuntimeError*>(&e) ? "RuntimeError"
                                 : dynamic_cast<const TypeError*>(&e)    ? "TypeError"
                                 : dynamic_cast<const IndexError*>(&e)   ? "IndexError"
                                 : dynamic_cast<const NotImplementedError*>(&e) ? "NotImplementedError"
                                                                                : "Error";
    EXPECT_EQ(got_type, type) << key << ": " << e.what();
    EXPECT_NE(std::string(e.what()).find(msg), std::string::npos) << key << ": " << e.what();
  }
}

}  // namespace ember::testing
