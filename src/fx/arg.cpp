// ember::fx::Arg: the argument trees of graph nodes.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "ember/error.h"
#include "ember/fx.h"

namespace ember::fx {

namespace {
const char* kind_name(Arg::Kind k) {
  static const char* names[] = {"None", "bool", "int", "float", "str", "Node",
                                "list", "tuple", "dict", "dtype", "device", "opaque"};
  return names[static_cast<int>(k)];
}
}  // namespace

Arg Arg::list(std::vector<Arg> items) {
  Arg a;
  a.kind_ = Kind::List;
  a.items_ = std::move(items);
  return a;
}
Arg Arg::tuple(std::vector<Arg> items) {
  Arg a;
  a.kind_ = Kind::Tuple;
  a.items_ = std::move(items);
  return a;
}
Arg Arg::dict(std::vector<std::pair<std::string, Arg>> entries) {
  Arg a;
  a.kind_ = Kind::Dict;
  for (auto& [k, v] : entries) {
    a.keys_.push_back(std::move(k));
    a.items_.push_back(std::move(v));
  }
  return a;
}

#define EMBER_ARG_EXPECT(cond, want) \
  EMBER_CHECK(cond, TypeError, "fx.Arg: expected ", want, ", got ", kind_name(kind_))
bool Arg::to_bool() const {
  EMBER_ARG_EXPECT(kind_ == Kind::Bool, "bool");
  return i_ != 0;
}
int64_t Arg::to_int() const {
  EMBER_ARG_EXPECT(kind_ == Kind::Int || kind_ == Kind::Bool, "int");
  return i_;
}
double Arg::to_double() const {
  if (kind_ == Kind::Int || kind_ == Kind::Bool) return static_cast<double>(i_);
  EMBER_ARG_EXPECT(kind_ == Kind::Double, "float");
  return d_;
}
const std::string& Arg::to_string() const {
  EMBER_ARG_EXPECT(kind_ == Kind::String, "str");
  return s_;
}
Node* Arg::to_node() const {
  EMBER_ARG_EXPECT(kind_ == Kind::Node, "Node");
  return node_;
}
ScalarType Arg::to_dtype() const {
  EMBER_ARG_EXPECT(kind_ == Kind::Dtype, "dtype");
  return static_cast<ScalarType>(i_);
}
Device Arg::to_device() const {
  EMBER_ARG_EXPECT(kind_ == Kind::Device, "device");
  return Device(s_);
}
const std::shared_ptr<Opaque>& Arg::to_opaque() const {
  EMBER_ARG_EXPECT(kind_ == Kind::Opaque, "opaque value");
  return opaque_;
}
#undef EMBER_ARG_EXPECT

void Arg::for_each_node(const std::function<void(Node*)>& fn) const {
  if (kind_ == Kind::Node) fn(node_);
  for (const Arg& a : items_) a.for_each_node(fn);
}

Arg Arg::map_nodes(const std::function<Arg(Node*)>& fn) const {
  if (kind_ == Kind::Node) return fn(node_);
  if (items_.empty()) return *this;
  Arg r = *this;
  for (Arg& a : r.items_) a = a.map_nodes(fn);
  return r;
}

namespace {
std::string quote(const std::string& s) {
  std::string r = "'";
  for (char c : s) {
    if (c == '\'' || c == '\\') r += '\\';
    if (c == '\n') {
      r += "\\n";
      continue;
    }
    r += c;
  }
  return r + "'";
}
std::string float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // The shortest form that reads back exactly, as Python's repr.
  for (int p = 1; p <= 17; ++p) {
    char t[32];
    std::snprintf(t, sizeof t, "%.*g", p, v);
    if (std::strtod(t, nullptr) == v) {
      std::snprintf(buf, sizeof buf, "%s", t);
      break;
    }
  }
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return s;
}
}  // namespace

std::string Arg::str() const {
  switch (kind_) {
    case Kind::None: return "None";
    case Kind::Bool: return i_ ? "True" : "False";
    case Kind::Int: return std::to_string(i_);
    case Kind::Double: return float_repr(d_);
    case Kind::String: return quote(s_);
    case Kind::Node: return "%" + node_->name();
    case Kind::Dtype: return "ember." + std::string(dtype_name(static_cast<ScalarType>(i_)));
    case Kind::Device: return "device(" + quote(s_) + ")";
    case Kind::Opaque: return opaque_->repr();
    case Kind::List:
    case Kind::Tuple: {
      std::string r = kind_ == Kind::List ? "[" : "(";
      for (size_t i = 0; i < items_.size(); ++i) r += (i ? ", " : "") + items_[i].str();
      if (kind_ == Kind::Tuple && items_.size() == 1) r += ",";
      return r + (kind_ == Kind::List ? "]" : ")");
    }
    case Kind::Dict: {
      std::string r = "{";
      for (size_t i = 0; i < items_.size(); ++i) r += (i ? ", " : "") + quote(keys_[i]) + ": " + items_[i].str();
      return r + "}";
    }
  }
  return "?";
}

bool Arg::operator==(const Arg& o) const {
  if (kind_ != o.kind_) return false;
  switch (kind_) {
    case Kind::None: return true;
    case Kind::Bool:
    case Kind::Int:
    case Kind::Dtype: return i_ == o.i_;
    // Bitwise, so that NaN equals NaN and -0.0 differs from 0.0 (exact round trips, CSE).
    case Kind::Double: return std::memcmp(&d_, &o.d_, sizeof d_) == 0;
    case Kind::String:
    case Kind::Device: return s_ == o.s_;
    case Kind::Node: return node_ == o.node_;
    case Kind::Opaque: return opaque_ == o.opaque_ || opaque_->equals(*o.opaque_);
    default: return items_ == o.items_ && keys_ == o.keys_;
  }
}

size_t Arg::hash() const {
  size_t h = std::hash<int>()(static_cast<int>(kind_));
  auto mix = [&](size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
  switch (kind_) {
    case Kind::Bool:
    case Kind::Int:
    case Kind::Dtype: mix(std::hash<int64_t>()(i_)); break;
    case Kind::Double: {
      uint64_t bits;
      std::memcpy(&bits, &d_, sizeof bits);
      mix(std::hash<uint64_t>()(bits));
      break;
    }
    case Kind::String:
    case Kind::Device: mix(std::hash<std::string>()(s_)); break;
    case Kind::Node: mix(std::hash<const void*>()(node_)); break;
    case Kind::Opaque: mix(opaque_->hash()); break;
    default:
      for (const Arg& a : items_) mix(a.hash());
      for (const std::string& k : keys_) mix(std::hash<std::string>()(k));
  }
  return h;
}

}  // namespace ember::fx
