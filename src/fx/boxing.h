// Shared by run_graph (trace.cpp) and graph_to_cpp (codegen.cpp): a call_function node's
// Args matched to its op's schema, one per schema argument.
#pragma once

#include <functional>
#include <string>

#include "ember/dispatch.h"
#include "ember/error.h"
#include "ember/fx.h"

namespace ember::fx {

// The schema type without "?" and without an alias annotation: "Tensor", "int[]", "Scalar".
inline std::string base_type(const Argument& a) {
  std::string t = a.type;
  if (auto p = t.find('('); p != std::string::npos) t = t.substr(0, p) + t.substr(t.find(')', p) + 1);
  if (!t.empty() && t.back() == '?') t.pop_back();
  return t;
}

// The node's Args in schema order: positional args first, then kwargs by name.
inline std::vector<const Arg*> schema_args(const OpEntry& op, const Node& n) {
  const auto& sa = op.schema().arguments;
  EMBER_CHECK(n.args().size() <= sa.size(), ValueError, "fx: node '", n.name(), "' passes ", n.args().size(),
              " positional arguments to '", op.name(), "', which takes ", sa.size());
  std::vector<const Arg*> out(sa.size(), nullptr);
  for (size_t i = 0; i < n.args().size(); ++i) out[i] = &n.args()[i];
  for (const auto& [k, v] : n.kwargs()) {
    size_t i = 0;
    while (i < sa.size() && sa[i].name != k) ++i;
    EMBER_CHECK(i < sa.size(), ValueError, "fx: node '", n.name(), "': op '", op.name(), "' has no argument '", k, "'");
    out[i] = &v;
  }
  for (size_t i = 0; i < sa.size(); ++i)
    EMBER_CHECK(out[i], ValueError, "fx: node '", n.name(), "' does not give argument '", sa[i].name, "' of '",
                op.name(), "' (graphs for C++ name every argument)");
  return out;
}

inline IValue box_one(const Argument& s, const Arg& a, const std::function<IValue(Node*)>& value) {
  if (a.is_none()) return IValue(None{});
  const std::string t = base_type(s);
  if (t == "Tensor") return value(a.to_node());
  if (t == "Tensor[]" || t == "Tensor?[]") {
    std::vector<Tensor> l;
    for (const Arg& x : a.items()) l.push_back(x.is_none() ? Tensor() : value(x.to_node()).tensor());
    return IValue(std::move(l));
  }
  if (t == "Scalar") {
    if (a.kind() == Arg::Kind::Bool) return IValue(Scalar(a.to_bool()));
    if (a.kind() == Arg::Kind::Int) return IValue(Scalar(a.to_int()));
    return IValue(Scalar(a.to_double()));
  }
  if (t == "int" || t == "SymInt") return IValue(a.to_int());
  if (t == "float") return IValue(a.to_double());
  if (t == "bool") return IValue(a.to_bool());
  if (t == "str") return IValue(a.to_string());
  if (t == "ScalarType") return IValue(a.to_dtype());
  if (t == "Device") return IValue(a.to_device());
  if (t == "Generator") return IValue(None{});
  if (t.rfind("int[", 0) == 0 || t.rfind("SymInt[", 0) == 0) {
    std::vector<int64_t> l;
    if (a.kind() == Arg::Kind::Int) l.push_back(a.to_int());
    else for (const Arg& x : a.items()) l.push_back(x.to_int());
    return IValue(std::move(l));
  }
  if (t.rfind("float[", 0) == 0) {
    std::vector<double> l;
    for (const Arg& x : a.items()) l.push_back(x.to_double());
    return IValue(std::move(l));
  }
  EMBER_FAIL(ValueError, "fx: argument '", s.name, "' has unsupported type '", s.type, "'");
}

inline Stack box_arguments(const OpEntry& op, const Node& n, const std::function<IValue(Node*)>& value) {
  std::vector<const Arg*> args = schema_args(op, n);
  Stack out;
  for (size_t i = 0; i < args.size(); ++i) out.push_back(box_one(op.schema().arguments[i], *args[i], value));
  return out;
}

}  // namespace ember::fx
