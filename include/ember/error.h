// Ember's exception hierarchy. Every error a user can cause is one of these; the Python
// layer maps each class to the built-in exception of the same name.
#pragma once

#include <cstdint>
#include <exception>
#include <string>
#include <string_view>

#include "ember/array_ref.h"

namespace ember {

class Error : public std::exception {
 public:
  explicit Error(std::string msg) : msg_(std::move(msg)) {}
  const char* what() const noexcept override { return msg_.c_str(); }
  const std::string& message() const { return msg_; }

 private:
  std::string msg_;
};

// Same names as Python's built-ins; RuntimeError is the catch-all.
class RuntimeError : public Error { using Error::Error; };
class IndexError : public Error { using Error::Error; };
class ValueError : public Error { using Error::Error; };
class TypeError : public Error { using Error::Error; };
class NotImplementedError : public Error { using Error::Error; };
// torch.linalg.LinAlgError (a RuntimeError in Python too): singular or non-definite input,
// LAPACK failing to converge.
class LinAlgError : public RuntimeError { using RuntimeError::RuntimeError; };

enum class ScalarType : int8_t;
struct Device;

namespace detail {
// Builds error messages without pulling <sstream> into every header.
class Msg {
 public:
  Msg& operator<<(std::string_view s) { s_.append(s); return *this; }
  Msg& operator<<(const char* s) { s_.append(s); return *this; }
  Msg& operator<<(const std::string& s) { s_.append(s); return *this; }
  Msg& operator<<(char c) { s_.push_back(c); return *this; }
  Msg& operator<<(bool v) { s_.append(v ? "True" : "False"); return *this; }
  Msg& operator<<(int v) { return *this << static_cast<long long>(v); }
  Msg& operator<<(long v) { return *this << static_cast<long long>(v); }
  Msg& operator<<(long long v);
  Msg& operator<<(unsigned v) { return *this << static_cast<unsigned long long>(v); }
  Msg& operator<<(unsigned long v) { return *this << static_cast<unsigned long long>(v); }
  Msg& operator<<(unsigned long long v);
  Msg& operator<<(double v);
  Msg& operator<<(IntArrayRef v);  // printed as [2, 3]
  Msg& operator<<(ScalarType t);   // printed as float32
  Msg& operator<<(const Device& d);
  std::string str() && { return std::move(s_); }

 private:
  std::string s_;
};

// By value, so that string literals decay to const char* and messages that differ only in
// their literals' lengths share one instantiation (half as many in the op files).
template <typename E, typename... Args>
[[noreturn]] void raise(Args... args) {
  Msg m;
  (m << ... << args);
  throw E(std::move(m).str());
}
}  // namespace detail

// Warnings (PyTorch's TORCH_WARN): each goes to the installed handler, which the Python layer
// sets to raise a UserWarning; without one they print to stderr. A handler may throw (a
// warning filter turned into an error), and the throw unwinds the op that warned.
using WarningHandler = void (*)(const std::string& message);
void set_warning_handler(WarningHandler handler);
void warn(const std::string& message);

}  // namespace ember

// EMBER_CHECK(cond, ValueError, "sum(): dim ", d, " out of range for shape ", sizes);
#define EMBER_CHECK(cond, ErrorType, ...)                                   \
  do {                                                                      \
    if (__builtin_expect(!(cond), 0)) ::ember::detail::raise<::ember::ErrorType>(__VA_ARGS__); \
  } while (0)

#define EMBER_FAIL(ErrorType, ...) ::ember::detail::raise<::ember::ErrorType>(__VA_ARGS__)

// Internal invariants: a failure here is a bug in Ember, not in the caller's input.
#define EMBER_INTERNAL_ASSERT(cond, ...)                                           \
  do {                                                                             \
    if (__builtin_expect(!(cond), 0))                                              \
      ::ember::detail::raise<::ember::RuntimeError>("internal assert failed: " #cond " at ", \
                                                    __FILE__, ":", __LINE__, " " __VA_OPT__(, ) __VA_ARGS__); \
  } while (0)
