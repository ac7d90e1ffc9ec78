#include "ember/value.h"

#include <cmath>
#include <cstdio>

#include "ember/error.h"

namespace ember {

Value Value::list(List items) {
  Value v;
  v.kind_ = Kind::List;
  v.data_ = std::move(items);
  return v;
}

Value Value::tuple(List items) {
  Value v = list(std::move(items));
  v.kind_ = Kind::Tuple;
  return v;
}

Value Value::dict(Dict entries) {
  Value v;
  v.kind_ = Kind::Dict;
  v.data_ = std::move(entries);
  return v;
}

const char* Value::kind_name(Kind kind) {
  switch (kind) {
    case Kind::None: return "None";
    case Kind::Bool: return "bool";
    case Kind::Int: return "int";
    case Kind::Double: return "float";
    case Kind::String: return "str";
    case Kind::Tensor: return "Tensor";
    case Kind::List: return "list";
    case Kind::Tuple: return "tuple";
    case Kind::Dict: return "dict";
  }
  return "?";
}

namespace {
[[noreturn]] void wrong_kind(Value::Kind held, const char* wanted) {
  EMBER_FAIL(TypeError, "expected a value of type ", wanted, ", got ", Value::kind_name(held));
}
}  // namespace

bool Value::to_bool() const {
  if (kind_ != Kind::Bool) wrong_kind(kind_, "bool");
  return std::get<bool>(data_);
}

int64_t Value::to_int() const {
  if (kind_ != Kind::Int) wrong_kind(kind_, "int");
  return std::get<int64_t>(data_);
}

double Value::to_double() const {
  if (kind_ == Kind::Int) return static_cast<double>(std::get<int64_t>(data_));
  if (kind_ != Kind::Double) wrong_kind(kind_, "float");
  return std::get<double>(data_);
}

const std::string& Value::to_string() const {
  if (kind_ != Kind::String) wrong_kind(kind_, "str");
  return std::get<std::string>(data_);
}

const Tensor& Value::to_tensor() const {
  if (kind_ != Kind::Tensor) wrong_kind(kind_, "Tensor");
  return std::get<Tensor>(data_);
}

const Value::List& Value::items() const {
  if (!is_sequence()) wrong_kind(kind_, "list or tuple");
  return std::get<List>(data_);
}

Value::List& Value::items() {
  if (!is_sequence()) wrong_kind(kind_, "list or tuple");
  return std::get<List>(data_);
}

const Value::Dict& Value::entries() const {
  if (kind_ != Kind::Dict) wrong_kind(kind_, "dict");
  return std::get<Dict>(data_);
}

Value::Dict& Value::entries() {
  if (kind_ != Kind::Dict) wrong_kind(kind_, "dict");
  return std::get<Dict>(data_);
}

const Value* Value::find(const Value& key) const {
  for (const auto& [k, v] : entries())
    if (k == key) return &v;
  return nullptr;
}

Value* Value::find(const Value& key) {
  for (auto& [k, v] : entries())
    if (k == key) return &v;
  return nullptr;
}

const Value& Value::at(const Value& key) const {
  const Value* v = find(key);
  if (!v) EMBER_FAIL(IndexError, "key ", key.repr(), " is not in the dict");
  return *v;
}

Value& Value::at(const Value& key) {
  Value* v = find(key);
  if (!v) EMBER_FAIL(IndexError, "key ", key.repr(), " is not in the dict");
  return *v;
}

Value& Value::operator[](const Value& key) {
  if (Value* v = find(key)) return *v;
  auto& d = entries();
  d.emplace_back(key, Value());
  return d.back().second;
}

void Value::set(Value key, Value value) {
  if (Value* v = find(key)) {
    *v = std::move(value);
    return;
  }
  entries().emplace_back(std::move(key), std::move(value));
}

bool Value::operator==(const Value& other) const {
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case Kind::None: return true;
    case Kind::Bool: return to_bool() == other.to_bool();
    case Kind::Int: return to_int() == other.to_int();
    case Kind::Double: return to_double() == other.to_double();
    case Kind::String: return to_string() == other.to_string();
    case Kind::Tensor: return to_tensor().is_same(other.to_tensor());
    case Kind::List:
    case Kind::Tuple: return items() == other.items();
    case Kind::Dict: return entries() == other.entries();
  }
  return false;
}

std::string Value::repr() const {
  switch (kind_) {
    case Kind::None: return "None";
    case Kind::Bool: return to_bool() ? "True" : "False";
    case Kind::Int: return std::to_string(to_int());
    case Kind::Double: {
      double d = to_double();
      if (std::isnan(d)) return "nan";
      if (std::isinf(d)) return d > 0 ? "inf" : "-inf";
      // The shortest spelling that reads back exactly (17 digits always do), as Python's repr(float).
      char buf[32];
      for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buf, sizeof buf, "%.*g", precision, d);
        if (std::strtod(buf, nullptr) == d) break;
      }
      std::string s = buf;
      if (s.find_first_of(".en") == std::string::npos) s += ".0";
      return s;
    }
    case Kind::String: return "'" + to_string() + "'";
    case Kind::Tensor: {
      const Tensor& t = to_tensor();
      if (!t.defined()) return "Tensor(undefined)";
      std::string s = "Tensor(shape=[";
      for (size_t i = 0; i < t.sizes().size(); ++i) s += (i ? ", " : "") + std::to_string(t.sizes()[i]);
      return s + "], dtype=" + std::string(dtype_name(t.dtype())) + ")";
    }
    case Kind::List:
    case Kind::Tuple: {
      bool tuple = kind_ == Kind::Tuple;
      std::string s = tuple ? "(" : "[";
      const auto& xs = items();
      for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + xs[i].repr();
      if (tuple && xs.size() == 1) s += ",";
      return s + (tuple ? ")" : "]");
    }
    case Kind::Dict: {
      std::string s = "{";
      bool first = true;
      for (const auto& [k, v] : entries()) {
        s += (first ? "" : ", ") + k.repr() + ": " + v.repr();
        first = false;
      }
      return s + "}";
    }
  }
  return "?";
}

}  // namespace ember
