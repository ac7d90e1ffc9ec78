// Tensor printing, following PyTorch's torch/_tensor_str.py rule for rule: one formatter per
// tensor (two for complex: real and imaginary parts) picks integer, fixed or scientific
// notation and a common width from the elements that will be shown; rows wrap at linewidth;
// tensors with more than `threshold` elements show `edgeitems` items at each end of every
// dimension around "...". Suffixes (device, dtype, size) follow the tensor's text.
#include "ember/print.h"

#include <cmath>
#include <cstdio>
#include <mutex>
#include <ostream>
#include <vector>

#include "core/convert.h"
#include "core/dtype_dispatch.h"

namespace ember {

namespace {

std::mutex g_options_mu;
PrintOptions g_options;

PrintOptions current_options() {
  std::lock_guard<std::mutex> lock(g_options_mu);
  return g_options;
}

// ---------------------------------------------------------------- number formatting
// Python's "{:.Nf}" / "{:.Ne}" / "{:.0f}" agree with C's printf for finite values (both round
// the exact binary value correctly); nan and inf are spelled as Python spells them.
std::string non_finite(double v) {
  if (std::isnan(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}

std::string printf_double(const char* spec, int precision, double v) {
  if (!std::isfinite(v)) return non_finite(v);
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, spec, precision, v);
  if (n < static_cast<int>(sizeof buf)) return std::string(buf, static_cast<size_t>(n));
  std::string big(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(big.data(), big.size(), spec, precision, v);
  big.resize(static_cast<size_t>(n));
  return big;
}
std::string fixed(double v, int precision) { return printf_double("%.*f", precision, v); }
std::string sci(double v, int precision) { return printf_double("%.*e", precision, v); }

std::string pad_left(std::string s, int width) {
  if (static_cast<int>(s.size()) < width) s.insert(0, static_cast<size_t>(width) - s.size(), ' ');
  return s;
}

// One element read from memory: floating-point (and complex parts) as double, integers as
// int64, bools as bool.
struct Element {
  double re = 0, im = 0;
  int64_t i = 0;
};

enum class ElementKind { Floating, Complex, Integer, Bool };

ElementKind kind_of(ScalarType t) {
  if (is_complex(t)) return ElementKind::Complex;
  if (is_floating_point(t)) return ElementKind::Floating;
  if (t == kBool) return ElementKind::Bool;
  return ElementKind::Integer;
}

template <typename T>
Element read_as(const char* p) {
  Element v;
  const T x = *reinterpret_cast<const T*>(p);
  if constexpr (is_complex_v<T>) {
    v.re = static_cast<double>(x.real());
    v.im = static_cast<double>(x.imag());
  } else if constexpr (std::is_integral_v<T>) {
    v.i = static_cast<int64_t>(x);
  } else {
    v.re = static_cast<double>(static_cast<opmath_t<T>>(x));
  }
  return v;
}

Element read(const char* p, ScalarType t) {
  return EMBER_DISPATCH_ALL(t, "print", [&] { return read_as<scalar_t>(p); });
}

// PyTorch's _Formatter.
class Formatter {
 public:
  // Floating-point values (a real tensor or one part of a complex one).
  static Formatter floating(const std::vector<double>& values, const PrintOptions& o) {
    Formatter f;
    f.floating_ = true;
    f.precision_ = o.precision;
    double lo = INFINITY, hi = 0;
    bool any = false;
    for (double v : values) {
      if (!std::isfinite(v) || v == 0) continue;
      any = true;
      lo = std::min(lo, std::fabs(v));
      hi = std::max(hi, std::fabs(v));
      if (v != std::ceil(v)) f.int_mode_ = false;
    }
    if (!any) return f;  // PyTorch returns before applying sci_mode here
    auto widest = [&](auto&& text) {
      for (double v : values)
        if (std::isfinite(v) && v != 0) f.width_ = std::max(f.width_, static_cast<int>(text(v)));
    };
    if (f.int_mode_) {
      if (hi / lo > 1000.0 || hi > 1.0e8) {
        f.sci_mode_ = true;
        widest([&](double v) { return sci(v, o.precision).size(); });
      } else {
        widest([&](double v) { return fixed(v, 0).size() + 1; });
      }
    } else if (hi / lo > 1000.0 || hi > 1.0e8 || lo < 1.0e-4) {
      f.sci_mode_ = true;
      widest([&](double v) { return sci(v, o.precision).size(); });
    } else {
      widest([&](double v) { return fixed(v, o.precision).size(); });
    }
    if (o.sci_mode) f.sci_mode_ = *o.sci_mode;
    return f;
  }
  // Integers and bools: printed as Python prints them.
  static Formatter plain(const std::vector<std::string>& texts) {
    Formatter f;
    for (const auto& s : texts) f.width_ = std::max(f.width_, static_cast<int>(s.size()));
    return f;
  }

  int width() const { return width_; }

  std::string format(double v) const {
    std::string s;
    if (sci_mode_) {
      s = sci(v, precision_);
    } else if (int_mode_) {
      s = fixed(v, 0);
      if (std::isfinite(v)) s += '.';
    } else {
      s = fixed(v, precision_);
    }
    return pad_left(std::move(s), width_);
  }
  std::string format(const std::string& text) const { return pad_left(text, width_); }

 private:
  bool floating_ = false;
  bool int_mode_ = true;
  bool sci_mode_ = false;
  int width_ = 1;
  int precision_ = 4;
};

std::string int_text(const Element& v, ElementKind k) {
  if (k == ElementKind::Bool) return v.i ? "True" : "False";
  return std::to_string(v.i);
}

// Walks the elements that will be shown and builds the text.
class Printer {
 public:
  Printer(const Tensor& t, const PrintOptions& o) : t_(t), o_(o) {
    data_ = static_cast<const char*>(t.data_ptr());
    dtype_ = t.dtype();
    kind_ = kind_of(dtype_);
    item_ = static_cast<int64_t>(t.element_size());
    summarize_ = static_cast<double>(t.numel()) > o.threshold;
    // Formatters see exactly the elements that are printed (PyTorch's get_summarized_data).
    std::vector<double> re, im;
    std::vector<std::string> texts;
    visit(0, 0, [&](int64_t off) {
      const Element v = read(data_ + off * item_, dtype_);
      switch (kind_) {
        case ElementKind::Floating: re.push_back(v.re); break;
        case ElementKind::Complex: re.push_back(v.re); im.push_back(v.im); break;
        default: texts.push_back(int_text(v, kind_));
      }
    });
    if (kind_ == ElementKind::Floating || kind_ == ElementKind::Complex) {
      f1_ = Formatter::floating(re, o);
      if (kind_ == ElementKind::Complex) f2_ = Formatter::floating(im, o);
    } else {
      f1_ = Formatter::plain(texts);
    }
  }

  std::string str(int64_t indent) const { return tensor_str(0, 0, indent); }

 private:
  // Indices shown along dim d.
  bool elided(int64_t d) const { return summarize_ && t_.size(d) > 2 * o_.edgeitems; }

  template <typename F>
  void visit(int64_t d, int64_t off, const F& f) const {
    if (d == t_.dim()) {
      f(off);
      return;
    }
    const int64_t n = t_.size(d), st = t_.stride(d);
    for (int64_t i = 0; i < n; ++i) {
      if (elided(d) && i == o_.edgeitems) i = n - o_.edgeitems;
      visit(d + 1, off + i * st, f);
    }
  }

  std::string element(int64_t off) const {
    const Element v = read(data_ + off * item_, dtype_);
    switch (kind_) {
      case ElementKind::Floating: return f1_.format(v.re);
      case ElementKind::Complex: {
        std::string real = f1_.format(v.re);
        std::string imag = f2_.format(v.im) + "j";
        imag.erase(0, imag.find_first_not_of(' '));
        if (imag[0] == '+' || imag[0] == '-') return real + imag;
        return real + "+" + imag;
      }
      default: return f1_.format(int_text(v, kind_));
    }
  }

  std::string vector_str(int64_t off, int64_t indent, int64_t d) const {
    int64_t element_length = f1_.width() + 2;
    if (kind_ == ElementKind::Complex) element_length += f2_.width() + 1;
    const int64_t avail = o_.linewidth - indent;
    // Python's floor division, for a negative width too.
    int64_t per_line = avail >= 0 ? avail / element_length : -((-avail + element_length - 1) / element_length);
    per_line = std::max<int64_t>(1, per_line);
    std::vector<std::string> items;
    const int64_t n = t_.size(d), st = t_.stride(d);
    for (int64_t i = 0; i < n; ++i) {
      if (elided(d) && i == o_.edgeitems) {
        items.emplace_back(" ...");
        i = n - o_.edgeitems;
      }
      items.push_back(element(off + i * st));
    }
    std::string out = "[";
    const std::string line_sep = ",\n" + std::string(static_cast<size_t>(indent + 1), ' ');
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out += (static_cast<int64_t>(i) % per_line == 0) ? line_sep : std::string(", ");
      out += items[i];
    }
    return out + "]";
  }

  std::string tensor_str(int64_t d, int64_t off, int64_t indent) const {
    const int64_t rest = t_.dim() - d;
    if (rest == 0) return element(off);
    if (rest == 1) return vector_str(off, indent, d);
    std::vector<std::string> slices;
    const int64_t n = t_.size(d), st = t_.stride(d);
    for (int64_t i = 0; i < n; ++i) {
      if (elided(d) && i == o_.edgeitems) {
        slices.emplace_back("...");
        i = n - o_.edgeitems;
      }
      slices.push_back(tensor_str(d + 1, off + i * st, indent + 1));
    }
    const std::string sep = "," + std::string(static_cast<size_t>(rest - 1), '\n') +
                            std::string(static_cast<size_t>(indent + 1), ' ');
    std::string out = "[";
    for (size_t i = 0; i < slices.size(); ++i) {
      if (i > 0) out += sep;
      out += slices[i];
    }
    return out + "]";
  }

  const Tensor& t_;
  const PrintOptions& o_;
  const char* data_;
  ScalarType dtype_;
  ElementKind kind_;
  int64_t item_;
  bool summarize_;
  Formatter f1_, f2_;
};

// Python's str(tuple(shape)).
std::string size_str(IntArrayRef sizes) {
  std::string s = "(";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(sizes[i]);
  }
  if (sizes.size() == 1) s += ",";
  return s + ")";
}

std::string dtype_str(ScalarType t) { return "ember." + std::string(dtype_name(t)); }

// PyTorch's _add_suffixes: a suffix that would pass linewidth starts a new line.
std::string add_suffixes(std::string text, const std::vector<std::string>& suffixes, int64_t indent,
                         const PrintOptions& o) {
  const size_t nl = text.rfind('\n');
  int64_t last_line_len = static_cast<int64_t>(text.size()) - (nl == std::string::npos ? -1 : static_cast<int64_t>(nl)) + 1;
  for (const auto& suffix : suffixes) {
    const auto len = static_cast<int64_t>(suffix.size());
    if (last_line_len + len + 2 > o.linewidth) {
      text += ",\n" + std::string(static_cast<size_t>(indent), ' ') + suffix;
      last_line_len = indent + len;
    } else {
      text += ", " + suffix;
      last_line_len += len + 2;
    }
  }
  return text + ")";
}

}  // namespace

void set_printoptions(std::optional<int> precision, std::optional<double> threshold, std::optional<int> edgeitems,
                      std::optional<int> linewidth, std::optional<std::string_view> profile,
                      std::optional<bool> sci_mode) {
  std::lock_guard<std::mutex> lock(g_options_mu);
  PrintOptions o = g_options;
  if (profile) {
    if (*profile == "default") {
      o.precision = 4; o.threshold = 1000; o.edgeitems = 3; o.linewidth = 80;
    } else if (*profile == "short") {
      o.precision = 2; o.threshold = 1000; o.edgeitems = 2; o.linewidth = 80;
    } else if (*profile == "full") {
      o.precision = 4; o.threshold = INFINITY; o.edgeitems = 3; o.linewidth = 80;
    } else {
      EMBER_FAIL(ValueError, "set_printoptions(): unknown profile '", *profile,
                 "' (expected 'default', 'short' or 'full')");
    }
  }
  if (precision) {
    EMBER_CHECK(*precision >= 0 && *precision <= 100, ValueError, "set_printoptions(): precision must be in [0, 100], got ",
                *precision);
    o.precision = *precision;
  }
  if (threshold) o.threshold = *threshold;
  if (edgeitems) {
    EMBER_CHECK(*edgeitems >= 0, ValueError, "set_printoptions(): edgeitems must be non-negative, got ", *edgeitems);
    o.edgeitems = *edgeitems;
  }
  if (linewidth) o.linewidth = *linewidth;
  o.sci_mode = sci_mode;
  g_options = o;
}

PrintOptions get_printoptions() { return current_options(); }

std::string Tensor::str() const {
  if (!defined()) return "tensor(undefined)";
  const PrintOptions o = current_options();
  const std::string prefix = "tensor(";
  const auto indent = static_cast<int64_t>(prefix.size());
  const ScalarType def = get_default_dtype();
  const ScalarType dt = dtype();
  std::vector<std::string> suffixes;
  if (!is_cpu()) suffixes.push_back("device='" + device().str() + "'");
  std::string body;
  if (is_meta()) {
    suffixes.push_back("size=" + size_str(sizes()));
    if (dt != def) suffixes.push_back("dtype=" + dtype_str(dt));
    body = "...";
  } else if (numel() == 0) {
    if (dim() != 1) suffixes.push_back("size=" + size_str(sizes()));
    if (dt != def) suffixes.push_back("dtype=" + dtype_str(dt));
    body = "[]";
  } else {
    const bool default_dtype = dt == def || dt == get_default_complex_dtype() || dt == kInt64 || dt == kBool;
    if (!default_dtype) suffixes.push_back("dtype=" + dtype_str(dt));
    const Tensor host = is_cpu() ? *this : to(kCPU);
    body = Printer(host, o).str(indent);
  }
  if (const AutogradMetaBase* m = impl()->autograd_meta()) {
    const std::string s = m->print_suffix();  // several suffixes are separated by '\0'
    for (size_t start = 0; start < s.size();) {
      size_t end = s.find('\0', start);
      if (end == std::string::npos) end = s.size();
      if (end > start) suffixes.push_back(s.substr(start, end - start));
      start = end + 1;
    }
  }
  return add_suffixes(prefix + body, suffixes, indent, o);
}

std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << t.str(); }

}  // namespace ember
