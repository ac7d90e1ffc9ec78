// graph_to_cpp: C++ source for a graph of dispatcher ops (what the C++ tracer records).
#include <cmath>
#include <cstdio>

#include "ember/fx/trace.h"
#include "fx/boxing.h"

namespace ember::fx {

namespace {

std::string var(const Node* n) { return "v_" + n->name(); }

std::string cpp_string(const std::string& s) {
  std::string r = "std::string(\"";
  for (char c : s) {
    if (c == '"' || c == '\\') r += '\\';
    if (c == '\n') {
      r += "\\n";
      continue;
    }
    r += c;
  }
  return r + "\")";
}

std::string cpp_double(double v) {
  if (std::isnan(v)) return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(v)) return v > 0 ? "std::numeric_limits<double>::infinity()" : "-std::numeric_limits<double>::infinity()";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);  // hexadecimal: exact
  return buf;
}

std::string cpp_int(int64_t v) {
  // INT64_MIN has no literal of its own.
  if (v == INT64_MIN) return "std::numeric_limits<int64_t>::min()";
  return "int64_t(" + std::to_string(v) + ")";
}

std::string ivalue_expr(const Argument& s, const Arg& a) {
  if (a.is_none()) return "ember::IValue(ember::None{})";
  const std::string t = base_type(s);
  if (t == "Tensor") return "ember::IValue(" + var(a.to_node()) + ")";
  if (t == "Tensor[]" || t == "Tensor?[]") {
    std::string r = "ember::IValue(std::vector<ember::Tensor>{";
    for (size_t i = 0; i < a.items().size(); ++i)
      r += (i ? ", " : "") + (a.items()[i].is_none() ? std::string("ember::Tensor()") : var(a.items()[i].to_node()));
    return r + "})";
  }
  if (t == "Scalar") {
    if (a.kind() == Arg::Kind::Bool) return std::string("ember::IValue(ember::Scalar(") + (a.to_bool() ? "true" : "false") + "))";
    if (a.kind() == Arg::Kind::Int) return "ember::IValue(ember::Scalar(" + cpp_int(a.to_int()) + "))";
    return "ember::IValue(ember::Scalar(" + cpp_double(a.to_double()) + "))";
  }
  if (t == "int" || t == "SymInt") return "ember::IValue(" + cpp_int(a.to_int()) + ")";
  if (t == "float") return "ember::IValue(double(" + cpp_double(a.to_double()) + "))";
  if (t == "bool") return std::string("ember::IValue(") + (a.to_bool() ? "true" : "false") + ")";
  if (t == "str") return "ember::IValue(" + cpp_string(a.to_string()) + ")";
  if (t == "ScalarType")
    return "ember::IValue(static_cast<ember::ScalarType>(" + std::to_string(static_cast<int>(a.to_dtype())) + "))";
  if (t == "Device") return "ember::IValue(ember::Device(\"" + a.to_device().str() + "\"))";
  if (t == "Generator") return "ember::IValue(ember::None{})";
  if (t.rfind("int[", 0) == 0 || t.rfind("SymInt[", 0) == 0 || t.rfind("float[", 0) == 0) {
    const bool ints = t[0] != 'f';
    std::string r = ints ? "ember::IValue(std::vector<int64_t>{" : "ember::IValue(std::vector<double>{";
    if (a.kind() == Arg::Kind::Int && ints) return r + cpp_int(a.to_int()) + "})";
    for (size_t i = 0; i < a.items().size(); ++i)
      r += (i ? ", " : "") + (ints ? cpp_int(a.items()[i].to_int()) : cpp_double(a.items()[i].to_double()));
    return r + "})";
  }
  EMBER_FAIL(ValueError, "graph_to_cpp(): argument '", s.name, "' has unsupported type '", s.type, "'");
}

std::string int_list(const Arg& a) {
  std::string r = "std::vector<int64_t>{";
  for (size_t i = 0; i < a.items().size(); ++i) r += (i ? ", " : "") + cpp_int(a.items()[i].to_int());
  return r + "}";
}

}  // namespace

std::string graph_to_cpp(const Graph& g, const std::string& function_name) {
  std::string body;
  size_t input = 0;
  std::unordered_map<const Node*, bool> stacks;  // nodes whose results are kept as a Stack
  for (const Node* n : g.nodes()) {
    body += "  // " + n->format() + "\n";
    switch (n->op()) {
      case Opcode::Placeholder:
        body += "  ember::Tensor " + var(n) + " = inputs.at(" + std::to_string(input++) + ");\n";
        break;
      case Opcode::GetAttr:
        body += "  ember::Tensor " + var(n) + " = attrs.at(" + cpp_string(n->target()) + ");\n";
        break;
      case Opcode::CallMethod:
        EMBER_CHECK(n->target() == "as_strided" && n->args().size() == 4, ValueError, "graph_to_cpp(): node '",
                    n->name(), "' calls method '", n->target(), "', which has no C++ form");
        body += "  ember::Tensor " + var(n) + " = " + var(n->args()[0].to_node()) + ".as_strided(" +
                int_list(n->args()[1]) + ", " + int_list(n->args()[2]) + ", " + cpp_int(n->args()[3].to_int()) + ");\n";
        break;
      case Opcode::CallFunction: {
        if (n->target() == "getitem") {
          const Node* src = n->args().at(0).to_node();
          const std::string i = std::to_string(n->args().at(1).to_int());
          EMBER_CHECK(stacks.count(src), ValueError, "graph_to_cpp(): getitem node '", n->name(),
                      "' reads a node with one result");
          body += "  ember::Tensor " + var(n) + " = " + var(src) + "_s.size() == 1 && " + var(src) +
                  "_s[0].is_tensor_list() ? " + var(src) + "_s[0].tensor_list().at(" + i + ") : " + var(src) +
                  "_s.at(" + i + ").tensor();\n";
          break;
        }
        const OpEntry* op = Dispatcher::get().find(n->target());
        EMBER_CHECK(op && op->is_defined(), ValueError, "graph_to_cpp(): node '", n->name(), "' calls '", n->target(),
                    "', which is not an op of the dispatcher");
        std::vector<const Arg*> args = schema_args(*op, *n);
        std::string call = "ember::fx::call_op(\"" + n->target() + "\", {";
        for (size_t i = 0; i < args.size(); ++i)
          call += std::string(i ? ", " : "") + ivalue_expr(op->schema().arguments[i], *args[i]);
        call += "})";
        body += "  ember::Stack " + var(n) + "_s = " + call + ";\n";
        int written = -1;
        const auto& sa = op->schema().arguments;
        for (size_t i = 0; i < sa.size() && written < 0; ++i)
          if (sa[i].is_write) written = static_cast<int>(i);
        bool multi = false;
        for (const Node* u : n->users())
          if (u->op() == Opcode::CallFunction && u->target() == "getitem") multi = true;
        if (multi) stacks[n] = true;
        else body += "  ember::Tensor " + var(n) + " = " + var(n) + "_s.at(" + std::to_string(written < 0 ? 0 : written) +
                     ").tensor();\n";
        break;
      }
      case Opcode::CallModule:
        EMBER_FAIL(ValueError, "graph_to_cpp(): call_module node '", n->name(),
                   "' has no C++ form (trace through the module, or use the C++ tracer)");
      case Opcode::Output: {
        const Arg& a = n->args().at(0);
        std::string r = "  return {";
        auto one = [&](const Arg& x) { return x.is_none() ? std::string("ember::Tensor()") : var(x.to_node()); };
        if (a.is_sequence())
          for (size_t i = 0; i < a.items().size(); ++i) r += (i ? ", " : "") + one(a.items()[i]);
        else
          r += one(a);
        body += r + "};\n";
        break;
      }
    }
  }
  std::string src = "// Generated by ember::fx::graph_to_cpp. Compile against Ember's include/ and link libember.\n"
                    "#include <cstdint>\n#include <limits>\n#include <string>\n#include <vector>\n\n"
                    "#include <ember/fx/trace.h>\n\n";
  src += "std::vector<ember::Tensor> " + function_name +
         "(const std::vector<ember::Tensor>& inputs, const ember::fx::Attributes& attrs) {\n";
  src += "  (void)attrs;\n" + body;
  if (!g.output_node()) src += "  return {};\n";
  return src + "}\n";
}

}  // namespace ember::fx
