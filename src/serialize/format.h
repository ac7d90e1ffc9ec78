// Between the safetensors encoder/decoder (format.cpp, the one file that parses JSON) and the
// byte sinks and sources (io.cpp: memory, files, atomic writes).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ember/value.h"

namespace ember::serialize_detail {

// Limits on what a file may ask of the loader.
constexpr uint64_t kMaxHeaderBytes = 100u << 20;  // the safetensors reference's cap
constexpr int kMaxDepth = 100;                    // containers in ember.structure (and JSON nesting)
constexpr int kMaxDims = 64;

// What save writes: the 8-byte length and the padded JSON header, then each tensor's bytes
// in order (contiguous CPU tensors, packed without gaps).
struct Archive {
  std::string header;
  std::vector<Tensor> tensors;
  uint64_t data_bytes = 0;
};
// TypeError/ValueError for what cannot be saved (undefined or meta tensors, deep nesting,
// strings that are not UTF-8); nothing is written before this returns.
Archive encode(const Value& obj);

// Random access to the bytes being loaded; read() raises RuntimeError on I/O errors.
class Source {
 public:
  virtual ~Source() = default;
  virtual uint64_t size() const = 0;
  virtual void read(uint64_t offset, void* dst, size_t n) const = 0;
};
// Validates the whole header before it allocates any tensor; raises RuntimeError
// "ember.load: <name>: <what>".
Value decode(const Source& src, const std::string& name);

}  // namespace ember::serialize_detail
