// Anomaly detection (torch.autograd.detect_anomaly): nodes recorded while it is on keep the
// traceback of their creation, and the engine runs each node through
// apply_with_anomaly_checks, which names the node and that traceback when its backward fails
// or returns NaN.
#include <cxxabi.h>
#include <execinfo.h>

#include <atomic>
#include <cstdlib>

#include "autograd/meta.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember::autograd {

namespace anomaly_detail {

std::atomic<bool> enabled{false};
std::atomic<bool> check_nan{true};

// The caller's native stack, one demangled frame a line (the default capture hook).
std::string native_backtrace() {
  void* frames[48];
  const int n = ::backtrace(frames, 48);
  char** symbols = ::backtrace_symbols(frames, n);
  if (!symbols) return "";
  std::string r;
  for (int i = 4; i < n; ++i) {  // skip this function, its std::function call, capture and Node()
    std::string line = symbols[i];
    // "lib.so(_ZN5ember3mulE...+0x1c) [0x7f...]": demangle the part between '(' and '+'.
    const size_t open = line.find('('), plus = line.find('+', open == std::string::npos ? 0 : open);
    if (open != std::string::npos && plus != std::string::npos && plus > open + 1) {
      int status = 0;
      char* name = abi::__cxa_demangle(line.substr(open + 1, plus - open - 1).c_str(), nullptr, nullptr, &status);
      if (status == 0 && name) line = line.substr(0, open + 1) + name + line.substr(plus);
      std::free(name);
    }
    r += "  " + line + "\n";
  }
  std::free(symbols);
  return r;
}

AnomalyHooks& hooks() {
  static AnomalyHooks h{native_backtrace, nullptr};
  return h;
}

// PyTorch's report: the node's name and the traceback of the forward call that made it.
std::string report(const Node& n) {
  const std::string* trace = n.anomaly_trace();
  if (!trace)
    return "Error detected in " + n.name() + ". No forward pass information available. Enable detect anomaly "
           "during forward pass for more information.";
  return "Error detected in " + n.name() + ". Traceback of forward call that caused the error:\n" + *trace;
}

// Issues the report through the warn hook, or returns it to go into the error's message.
std::string deliver(const Node& n) {
  std::string r = report(n);
  if (!hooks().warn) return "\n" + r;
  hooks().warn(r);
  return "";
}

// The same error class with `extra` appended to the message.
[[noreturn]] void rethrow_with(const Error& e, const std::string& extra) {
  std::string m = e.message() + extra;
  if (dynamic_cast<const IndexError*>(&e)) throw IndexError(std::move(m));
  if (dynamic_cast<const ValueError*>(&e)) throw ValueError(std::move(m));
  if (dynamic_cast<const TypeError*>(&e)) throw TypeError(std::move(m));
  if (dynamic_cast<const NotImplementedError*>(&e)) throw NotImplementedError(std::move(m));
  if (dynamic_cast<const RuntimeError*>(&e)) throw RuntimeError(std::move(m));
  throw Error(std::move(m));
}

bool has_nan(const Tensor& g) {
  if (!g.defined() || g.is_meta() || g.numel() == 0) return false;
  NoGradGuard no_grad;
  return any(isnan(g)).item().to_double() != 0;
}

}  // namespace anomaly_detail

bool AnomalyMode::is_enabled() { return anomaly_detail::enabled.load(std::memory_order_relaxed); }
bool AnomalyMode::should_check_nan() { return anomaly_detail::check_nan.load(std::memory_order_relaxed); }
void AnomalyMode::set_enabled(bool enabled, bool check_nan) {
  anomaly_detail::check_nan.store(check_nan, std::memory_order_relaxed);
  anomaly_detail::enabled.store(enabled, std::memory_order_relaxed);
}

DetectAnomalyGuard::DetectAnomalyGuard(bool check_nan)
    : prev_(AnomalyMode::is_enabled()), prev_check_nan_(AnomalyMode::should_check_nan()) {
  AnomalyMode::set_enabled(true, check_nan);
}
DetectAnomalyGuard::~DetectAnomalyGuard() { AnomalyMode::set_enabled(prev_, prev_check_nan_); }

void set_anomaly_hooks(AnomalyHooks h) {
  if (h.capture) anomaly_detail::hooks().capture = std::move(h.capture);
  if (h.warn) anomaly_detail::hooks().warn = std::move(h.warn);
}

std::string capture_anomaly_trace() { return anomaly_detail::hooks().capture(); }

std::vector<Tensor> apply_with_anomaly_checks(Node& n, std::vector<Tensor> grads) {
  std::vector<Tensor> out;
  try {
    out = n.apply(std::move(grads));
  } catch (const Error& e) {
    const std::string extra = anomaly_detail::deliver(n);
    if (extra.empty()) throw;
    anomaly_detail::rethrow_with(e, extra);
  } catch (...) {  // an error from a Python backward: report it and let it pass unchanged
    anomaly_detail::deliver(n);
    throw;
  }
  if (AnomalyMode::should_check_nan())
    for (size_t i = 0; i < out.size(); ++i)
      if (anomaly_detail::has_nan(out[i]))
        EMBER_FAIL(RuntimeError, "Function '", n.name(), "' returned nan values in its ", i, "th output.",
                   anomaly_detail::deliver(n));
  return out;
}

}  // namespace ember::autograd
