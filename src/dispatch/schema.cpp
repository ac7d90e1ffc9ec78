// A parser for op schemas: "name.overload(Type name=default, *, ...) -> Returns".
#include <cctype>

#include "ember/dispatch.h"

namespace ember {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Splits on commas that are not inside brackets or parentheses.
std::vector<std::string_view> split_top(std::string_view s) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '(' || c == '[') ++depth;
    else if (c == ')' || c == ']') --depth;
    else if (c == ',' && depth == 0) { parts.push_back(trim(s.substr(start, i - start))); start = i + 1; }
  }
  std::string_view last = trim(s.substr(start));
  if (!last.empty()) parts.push_back(last);
  return parts;
}

[[noreturn]] void bad(std::string_view text, std::string_view why) {
  EMBER_FAIL(ValueError, "invalid schema '", text, "': ", why);
}

// "Tensor(a!) self=None" -> type Tensor, is_write, name self, default None.
Argument parse_argument(std::string_view text, std::string_view whole, bool is_return) {
  Argument a;
  std::string_view s = trim(text);
  size_t eq = s.find('=');
  if (eq != std::string_view::npos) {
    a.default_value = std::string(trim(s.substr(eq + 1)));
    s = trim(s.substr(0, eq));
  }
  size_t sp = s.find_last_of(' ');
  std::string_view type = s;
  if (sp != std::string_view::npos) {
    type = trim(s.substr(0, sp));
    a.name = std::string(trim(s.substr(sp + 1)));
  } else if (!is_return) {
    bad(whole, "argument without a name");
  }
  // Alias annotation: Tensor(a) is a view, Tensor(a!) is written.
  if (size_t p = type.find('('); p != std::string_view::npos) {
    size_t q = type.find(')', p);
    if (q == std::string_view::npos) bad(whole, "unclosed alias annotation");
    std::string_view ann = type.substr(p + 1, q - p - 1);
    a.is_write = !ann.empty() && ann.back() == '!';
    a.type = std::string(type.substr(0, p)) + std::string(type.substr(q + 1));
  } else {
    a.type = std::string(type);
  }
  if (a.type.empty()) bad(whole, "argument without a type");
  return a;
}

}  // namespace

Schema parse_schema(std::string_view text) {
  Schema sc;
  std::string_view s = trim(text);
  size_t open = s.find('(');
  if (open == std::string_view::npos) bad(text, "missing '('");
  std::string_view full = trim(s.substr(0, open));
  if (full.empty()) bad(text, "missing op name");
  if (size_t dot = full.find('.'); dot != std::string_view::npos) {
    sc.name = std::string(full.substr(0, dot));
    sc.overload = std::string(full.substr(dot + 1));
  } else {
    sc.name = std::string(full);
  }
  // Find the parenthesis matching `open`.
  int depth = 0;
  size_t close = std::string_view::npos;
  for (size_t i = open; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    else if (s[i] == ')' && --depth == 0) { close = i; break; }
  }
  if (close == std::string_view::npos) bad(text, "unbalanced parentheses");
  bool kwarg_only = false;
  for (std::string_view part : split_top(s.substr(open + 1, close - open - 1))) {
    if (part == "*") { kwarg_only = true; continue; }
    Argument a = parse_argument(part, text, false);
    a.kwarg_only = kwarg_only;
    sc.arguments.push_back(std::move(a));
  }
  std::string_view rest = trim(s.substr(close + 1));
  if (rest.rfind("->", 0) != 0) bad(text, "missing '->'");
  rest = trim(rest.substr(2));
  if (!rest.empty() && rest.front() == '(') {
    if (rest.back() != ')') bad(text, "unbalanced return tuple");
    rest = rest.substr(1, rest.size() - 2);
  }
  if (!rest.empty() && rest != "()")
    for (std::string_view part : split_top(rest)) sc.returns.push_back(parse_argument(part, text, true));
  return sc;
}

std::string Schema::str() const {
  auto arg_str = [](const Argument& a) {
    std::string t = a.type;
    if (a.is_write) {
      size_t pos = t.find_first_of("?[");
      t.insert(pos == std::string::npos ? t.size() : pos, "(a!)");
    }
    std::string out = t;
    if (!a.name.empty()) out += " " + a.name;
    if (a.default_value) out += "=" + *a.default_value;
    return out;
  };
  std::string out = full_name() + "(";
  bool star = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i) out += ", ";
    if (arguments[i].kwarg_only && !star) { out += "*, "; star = true; }
    out += arg_str(arguments[i]);
  }
  out += ") -> ";
  if (returns.size() == 1) {
    out += arg_str(returns[0]);
  } else {
    out += "(";
    for (size_t i = 0; i < returns.size(); ++i) out += (i ? ", " : "") + arg_str(returns[i]);
    out += ")";
  }
  return out;
}

}  // namespace ember
