// JSON form of an ember::fx::Graph (schema "ember.fx.graph", versioned): exact round trips,
// strict reading (malformed or newer-version input is a ValueError naming the problem).
//
//   {"format": "ember.fx.graph", "version": 1, "nodes": [
//     {"name": "x", "op": "placeholder", "target": "x", "args": [], "kwargs": [],
//      "type": "", "shape": null, "dtype": null}, ...]}
//
// Args: null, true/false, integers as JSON integers, floats as {"float": "<repr>"} (so 1.0 and 1
// stay apart and every double reads back bit for bit), strings, {"node": name},
// lists as arrays, {"tuple": [...]}, {"dict": [[key, value], ...]}, {"dtype": "float32"},
// {"device": "cpu"}, and {"opaque": <arg>} for values a codec of the caller encodes.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ember/error.h"
#include "ember/fx.h"

namespace ember::fx {

namespace {
using Json = nlohmann::ordered_json;
constexpr const char* kFormat = "ember.fx.graph";
constexpr int kMaxDepth = 64;

std::string double_text(double v) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

double parse_double(const std::string& s) {
  if (s == "nan") return std::nan("");
  if (s == "-nan") return -std::nan("");
  if (s == "inf") return INFINITY;
  if (s == "-inf") return -INFINITY;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  EMBER_CHECK(!s.empty() && end == s.c_str() + s.size(), ValueError, "fx JSON: '", s, "' is not a float");
  return v;
}

Json encode(const Arg& a, const OpaqueEncoder& enc) {
  switch (a.kind()) {
    case Arg::Kind::None: return nullptr;
    case Arg::Kind::Bool: return a.to_bool();
    case Arg::Kind::Int: return a.to_int();
    case Arg::Kind::Double: return Json{{"float", double_text(a.to_double())}};
    case Arg::Kind::String: return a.to_string();
    case Arg::Kind::Node: return Json{{"node", a.to_node()->name()}};
    case Arg::Kind::Dtype: return Json{{"dtype", std::string(dtype_name(a.to_dtype()))}};
    case Arg::Kind::Device: return Json{{"device", a.to_device().str()}};
    case Arg::Kind::Opaque: {
      EMBER_CHECK(enc, ValueError, "fx JSON: cannot serialize the value ", a.to_opaque()->repr(),
                  " (no encoder for opaque values)");
      Arg e = enc(*a.to_opaque());
      EMBER_CHECK(e.kind() != Arg::Kind::Opaque, ValueError, "fx JSON: the encoder returned an opaque value");
      return Json{{"opaque", encode(e, enc)}};
    }
    case Arg::Kind::List: {
      Json j = Json::array();
      for (const Arg& x : a.items()) j.push_back(encode(x, enc));
      return j;
    }
    case Arg::Kind::Tuple: {
      Json j = Json::array();
      for (const Arg& x : a.items()) j.push_back(encode(x, enc));
      return Json{{"tuple", j}};
    }
    case Arg::Kind::Dict: {
      Json j = Json::array();
      for (size_t i = 0; i < a.items().size(); ++i) j.push_back(Json::array({a.keys()[i], encode(a.items()[i], enc)}));
      return Json{{"dict", j}};
    }
  }
  return nullptr;
}

struct Reader {
  const std::unordered_map<std::string, Node*>& nodes;
  const OpaqueDecoder& dec;

  Arg decode(const Json& j, int depth) const {
    EMBER_CHECK(depth < kMaxDepth, ValueError, "fx JSON: arguments nest deeper than ", kMaxDepth, " levels");
    if (j.is_null()) return Arg();
    if (j.is_boolean()) return Arg(j.get<bool>());
    if (j.is_number_integer()) {
      EMBER_CHECK(j.is_number_unsigned() ? j.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX) : true, ValueError,
                  "fx JSON: integer ", j.dump(), " does not fit in int64");
      return Arg(j.get<int64_t>());
    }
    EMBER_CHECK(!j.is_number_float(), ValueError, "fx JSON: bare float ", j.dump(),
                " (floats are written {\"float\": \"...\"})");
    if (j.is_string()) return Arg(j.get<std::string>());
    if (j.is_array()) {
      std::vector<Arg> items;
      for (const Json& x : j) items.push_back(decode(x, depth + 1));
      return Arg::list(std::move(items));
    }
    EMBER_CHECK(j.is_object() && j.size() == 1, ValueError, "fx JSON: malformed argument ", j.dump().substr(0, 80));
    const std::string& tag = j.begin().key();
    const Json& v = j.begin().value();
    auto want_string = [&] {
      EMBER_CHECK(v.is_string(), ValueError, "fx JSON: {\"", tag, "\": ...} needs a string");
      return v.get<std::string>();
    };
    if (tag == "float") return Arg(parse_double(want_string()));
    if (tag == "node") {
      std::string name = want_string();
      auto it = nodes.find(name);
      EMBER_CHECK(it != nodes.end(), ValueError, "fx JSON: reference to node '", name,
                  "', which is not defined before its use");
      return Arg(it->second);
    }
    if (tag == "dtype") {
      std::string name = want_string();
      ScalarType t = dtype_from_name(name);
      EMBER_CHECK(t != ScalarType::Undefined, ValueError, "fx JSON: unknown dtype '", name, "'");
      return Arg(t);
    }
    if (tag == "device") return Arg(Device(want_string()));
    if (tag == "tuple") {
      EMBER_CHECK(v.is_array(), ValueError, "fx JSON: {\"tuple\": ...} needs an array");
      std::vector<Arg> items;
      for (const Json& x : v) items.push_back(decode(x, depth + 1));
      return Arg::tuple(std::move(items));
    }
    if (tag == "dict") {
      EMBER_CHECK(v.is_array(), ValueError, "fx JSON: {\"dict\": ...} needs an array of [key, value] pairs");
      std::vector<std::pair<std::string, Arg>> entries;
      for (const Json& kv : v) {
        EMBER_CHECK(kv.is_array() && kv.size() == 2 && kv[0].is_string(), ValueError,
                    "fx JSON: dict entries are [string key, value] pairs");
        entries.emplace_back(kv[0].get<std::string>(), decode(kv[1], depth + 1));
      }
      return Arg::dict(std::move(entries));
    }
    if (tag == "opaque") {
      EMBER_CHECK(dec, ValueError, "fx JSON: the graph holds an opaque value and no decoder was given");
      return dec(decode(v, depth + 1));
    }
    EMBER_FAIL(ValueError, "fx JSON: unknown argument tag '", tag, "'");
  }
};

const Json& field(const Json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  EMBER_CHECK(it != obj.end(), ValueError, "fx JSON: ", where, " has no \"", key, "\"");
  return *it;
}

}  // namespace

std::string graph_to_json(const Graph& g, const OpaqueEncoder& enc) {
  Json nodes = Json::array();
  for (const Node* n : g.nodes()) {
    Json j;
    j["name"] = n->name();
    j["op"] = std::string(opcode_name(n->op()));
    j["target"] = n->target();
    if (n->target_object()) {
      EMBER_CHECK(enc, ValueError, "fx JSON: cannot serialize the target of node '", n->name(), "' (",
                  n->target_object()->repr(), "): no encoder for opaque values");
      j["target_object"] = encode(enc(*n->target_object()), enc);
    }
    Json args = Json::array();
    for (const Arg& a : n->args()) args.push_back(encode(a, enc));
    j["args"] = std::move(args);
    Json kw = Json::array();
    for (const auto& [k, v] : n->kwargs()) kw.push_back(Json::array({k, encode(v, enc)}));
    j["kwargs"] = std::move(kw);
    j["type"] = n->type;
    j["shape"] = n->shape ? Json(*n->shape) : Json(nullptr);
    j["dtype"] = n->dtype ? Json(std::string(dtype_name(*n->dtype))) : Json(nullptr);
    nodes.push_back(std::move(j));
  }
  Json root;
  root["format"] = kFormat;
  root["version"] = kGraphJsonVersion;
  root["nodes"] = std::move(nodes);
  return root.dump(1);
}

std::shared_ptr<Graph> graph_from_json(std::string_view text, const OpaqueDecoder& dec) {
  Json root;
  try {
    root = Json::parse(text.begin(), text.end());
  } catch (const Json::exception& e) {
    EMBER_FAIL(ValueError, "fx JSON: not valid JSON: ", e.what());
  }
  EMBER_CHECK(root.is_object(), ValueError, "fx JSON: the document is not an object");
  const Json& format = field(root, "format", "the document");
  EMBER_CHECK(format.is_string() && format.get<std::string>() == kFormat, ValueError,
              "fx JSON: format is ", format.dump(), ", expected \"", kFormat, "\"");
  const Json& version = field(root, "version", "the document");
  EMBER_CHECK(version.is_number_integer(), ValueError, "fx JSON: version must be an integer");
  const int64_t v = version.get<int64_t>();
  EMBER_CHECK(v >= 1 && v <= kGraphJsonVersion, ValueError, "fx JSON: schema version ", v,
              " is not supported (this build reads versions 1 to ", kGraphJsonVersion, ")");
  const Json& nodes = field(root, "nodes", "the document");
  EMBER_CHECK(nodes.is_array(), ValueError, "fx JSON: \"nodes\" must be an array");

  auto g = std::make_shared<Graph>();
  std::unordered_map<std::string, Node*> by_name;
  Reader reader{by_name, dec};
  for (const Json& j : nodes) {
    EMBER_CHECK(j.is_object(), ValueError, "fx JSON: a node is not an object");
    const Json& name = field(j, "name", "a node");
    EMBER_CHECK(name.is_string() && !name.get<std::string>().empty(), ValueError, "fx JSON: a node name must be a non-empty string");
    const std::string where = "node '" + name.get<std::string>() + "'";
    const Json& op = field(j, "op", where);
    const Json& target = field(j, "target", where);
    const Json& args = field(j, "args", where);
    const Json& kwargs = field(j, "kwargs", where);
    EMBER_CHECK(op.is_string() && target.is_string() && args.is_array() && kwargs.is_array(), ValueError,
                "fx JSON: ", where, ": op and target must be strings, args and kwargs arrays");
    EMBER_CHECK(!by_name.count(name.get<std::string>()), ValueError, "fx JSON: duplicate node name '",
                name.get<std::string>(), "'");
    std::vector<Arg> a;
    for (const Json& x : args) a.push_back(reader.decode(x, 0));
    Kwargs kw;
    for (const Json& kv : kwargs) {
      EMBER_CHECK(kv.is_array() && kv.size() == 2 && kv[0].is_string(), ValueError, "fx JSON: ", where,
                  ": kwargs are [name, value] pairs");
      kw.emplace_back(kv[0].get<std::string>(), reader.decode(kv[1], 0));
    }
    std::shared_ptr<Opaque> target_object;
    if (auto it = j.find("target_object"); it != j.end()) {
      EMBER_CHECK(dec, ValueError, "fx JSON: ", where, " has a Python target and no decoder was given");
      Arg t = dec(reader.decode(*it, 0));
      EMBER_CHECK(t.kind() == Arg::Kind::Opaque, ValueError, "fx JSON: ", where, ": the decoder did not give a target");
      target_object = t.to_opaque();
    }
    std::string type;
    if (auto it = j.find("type"); it != j.end()) {
      EMBER_CHECK(it->is_string(), ValueError, "fx JSON: ", where, ": type must be a string");
      type = it->get<std::string>();
    }
    Node* n = nullptr;
    try {
      n = g->create_node(opcode_from_name(op.get<std::string>()), target.get<std::string>(), std::move(a),
                         std::move(kw), name.get<std::string>(), std::move(type), std::move(target_object));
    } catch (const RuntimeError& e) {
      EMBER_FAIL(ValueError, "fx JSON: ", where, ": ", e.what());
    }
    EMBER_CHECK(n->name() == name.get<std::string>(), ValueError, "fx JSON: '", name.get<std::string>(),
                "' is not a valid node name");
    if (auto it = j.find("shape"); it != j.end() && !it->is_null()) {
      EMBER_CHECK(it->is_array(), ValueError, "fx JSON: ", where, ": shape must be an array or null");
      std::vector<int64_t> s;
      for (const Json& d : *it) {
        EMBER_CHECK(d.is_number_integer(), ValueError, "fx JSON: ", where, ": shape entries must be integers");
        s.push_back(d.get<int64_t>());
      }
      n->shape = std::move(s);
    }
    if (auto it = j.find("dtype"); it != j.end() && !it->is_null()) {
      EMBER_CHECK(it->is_string() && dtype_from_name(it->get<std::string>()) != ScalarType::Undefined, ValueError,
                  "fx JSON: ", where, ": unknown dtype ", it->dump());
      n->dtype = dtype_from_name(it->get<std::string>());
    }
    by_name[n->name()] = n;
  }
  try {
    g->lint();
  } catch (const RuntimeError& e) {
    EMBER_FAIL(ValueError, "fx JSON: the graph is malformed: ", e.what());
  }
  return g;
}

}  // namespace ember::fx
