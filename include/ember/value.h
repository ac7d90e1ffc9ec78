// ember::Value: a tree of None, bools, ints, floats, strings, tensors, lists, tuples and
// insertion-ordered dicts. It is the C++ form of what Python keeps in nested containers: a
// state dict, an optimizer's or a scheduler's state, and what ember::save writes and
// ember::load reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "ember/tensor.h"

namespace ember {

class Value {
 public:
  enum class Kind : uint8_t { None, Bool, Int, Double, String, Tensor, List, Tuple, Dict };
  using List = std::vector<Value>;
  // Keys are None, bools, ints, floats or strings (what Python hashes by value); entries keep
  // their insertion order, as Python's dict.
  using Dict = std::vector<std::pair<Value, Value>>;

  Value() = default;  // None
  Value(std::nullptr_t) {}
  Value(bool v) : kind_(Kind::Bool), data_(v) {}
  Value(int v) : kind_(Kind::Int), data_(int64_t{v}) {}
  Value(int64_t v) : kind_(Kind::Int), data_(v) {}
  Value(double v) : kind_(Kind::Double), data_(v) {}
  Value(const char* v) : kind_(Kind::String), data_(std::string(v)) {}
  Value(std::string v) : kind_(Kind::String), data_(std::move(v)) {}
  Value(std::string_view v) : kind_(Kind::String), data_(std::string(v)) {}
  Value(Tensor v) : kind_(Kind::Tensor), data_(std::move(v)) {}

  static Value list(List items = {});
  static Value tuple(List items = {});
  static Value dict(Dict entries = {});

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::None; }
  bool is_bool() const { return kind_ == Kind::Bool; }
  bool is_int() const { return kind_ == Kind::Int; }
  bool is_double() const { return kind_ == Kind::Double; }
  bool is_number() const { return kind_ == Kind::Int || kind_ == Kind::Double; }
  bool is_string() const { return kind_ == Kind::String; }
  bool is_tensor() const { return kind_ == Kind::Tensor; }
  bool is_list() const { return kind_ == Kind::List; }
  bool is_tuple() const { return kind_ == Kind::Tuple; }
  bool is_sequence() const { return kind_ == Kind::List || kind_ == Kind::Tuple; }
  bool is_dict() const { return kind_ == Kind::Dict; }

  // Accessors raise TypeError naming the kind held. to_double() also takes an int, as
  // Python's float() does.
  bool to_bool() const;
  int64_t to_int() const;
  double to_double() const;
  const std::string& to_string() const;
  const Tensor& to_tensor() const;
  const List& items() const;  // a list's or a tuple's elements
  List& items();
  const Dict& entries() const;
  Dict& entries();

  // Dict lookup by key equality (an int key never equals a string key).
  const Value* find(const Value& key) const;
  Value* find(const Value& key);
  bool contains(const Value& key) const { return find(key) != nullptr; }
  const Value& at(const Value& key) const;  // KeyError-like: raises IndexError naming the key
  Value& at(const Value& key);
  Value& operator[](const Value& key);  // inserts None at the end when absent
  void set(Value key, Value value);     // replaces in place or appends

  // Structural equality; tensors are equal when they are the same tensor (as Python's `is`).
  bool operator==(const Value& other) const;

  static const char* kind_name(Kind kind);
  std::string repr() const;  // Python's repr for plain values; tensors print as shape and dtype

 private:
  Kind kind_ = Kind::None;
  std::variant<std::monostate, bool, int64_t, double, std::string, Tensor, List, Dict> data_;
};

}  // namespace ember
