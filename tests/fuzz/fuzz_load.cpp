// libFuzzer target for ember::load_from_bytes (docs/ARCHITECTURE.md, "Serialization"). Any
// input must either load or raise an ember::Error; what loads must also save and load again.
// Built with clang's -fsanitize=fuzzer,address,undefined by `make fuzz`; the normal build
// links the same function into fuzz_load_replay, which replays tests/fuzz/corpus/load.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ember/serialize.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ember::Value v;
  try {
    v = ember::load_from_bytes(std::string_view(reinterpret_cast<const char*>(data), size), "<fuzz input>");
  } catch (const ember::Error&) {
    return 0;  // refused cleanly
  }
  // Not caught: an error here escapes and aborts, which the fuzzer reports.
  const std::string again = ember::save_to_bytes(v);
  ember::load_from_bytes(again, "<fuzz round trip>");
  return 0;
}
