#include "ember/error.h"

#include <atomic>
#include <cstdio>

#include "ember/device.h"
#include "ember/dtype.h"

namespace ember::detail {

Msg& Msg::operator<<(long long v) { s_ += std::to_string(v); return *this; }
Msg& Msg::operator<<(unsigned long long v) { s_ += std::to_string(v); return *this; }
Msg& Msg::operator<<(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  s_ += buf;
  return *this;
}
Msg& Msg::operator<<(IntArrayRef v) {
  s_ += '[';
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s_ += ", ";
    s_ += std::to_string(v[i]);
  }
  s_ += ']';
  return *this;
}
Msg& Msg::operator<<(ScalarType t) { s_ += dtype_name(t); return *this; }
Msg& Msg::operator<<(const Device& d) { s_ += d.str(); return *this; }

}  // namespace ember::detail

namespace ember {
namespace {
std::atomic<WarningHandler> warning_handler{nullptr};
}  // namespace

void set_warning_handler(WarningHandler handler) { warning_handler.store(handler); }

void warn(const std::string& message) {
  if (WarningHandler h = warning_handler.load()) return h(message);
  std::fprintf(stderr, "Warning: %s\n", message.c_str());
}
}  // namespace ember
