// What Timer's methods share (timer.cpp, callgrind.cpp): the thread-count guard, and errors
// of the timed callable rethrown with the statement's name.
#pragma once

#include <exception>
#include <string>

#include "ember/benchmark.h"
#include "ember/error.h"
#include "ember/parallel.h"

namespace ember::benchmark::detail {

// Sets the intra-op thread count for a scope and restores the previous one.
class ThreadGuard {
 public:
  explicit ThreadGuard(int n) : prior_(get_num_threads()) { set_num_threads(n); }
  ThreadGuard(const ThreadGuard&) = delete;
  ThreadGuard& operator=(const ThreadGuard&) = delete;
  ~ThreadGuard() { set_num_threads(prior_); }

 private:
  int prior_;
};

// Rethrows the exception in flight with the statement's name in the message. Ember errors
// keep their class; other std::exceptions become a RuntimeError with the original nested
// (std::rethrow_if_nested recovers it); anything else passes through unchanged.
[[noreturn]] inline void rethrow_with_context(const TaskSpec& spec, const char* what_ran) {
  std::string prefix = std::string("Timer: ") + what_ran + " of '" + spec.title() + "' raised: ";
  try {
    throw;
  } catch (const IndexError& e) {
    throw IndexError(prefix + e.what());
  } catch (const ValueError& e) {
    throw ValueError(prefix + e.what());
  } catch (const TypeError& e) {
    throw TypeError(prefix + e.what());
  } catch (const NotImplementedError& e) {
    throw NotImplementedError(prefix + e.what());
  } catch (const Error& e) {
    throw RuntimeError(prefix + e.what());
  } catch (const std::exception& e) {
    std::throw_with_nested(RuntimeError(prefix + e.what()));
  }
}

}  // namespace ember::benchmark::detail
