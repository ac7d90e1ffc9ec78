// ember::save / ember::load: safe serialization in the safetensors layout (loading runs no
// code, unlike pickle). A file is an 8-byte little-endian header length N, N bytes of JSON
// describing each tensor (dtype, shape, byte range) plus "__metadata__", then the packed
// tensor data. A flat dict of string -> Tensor (a state dict) is stored as plain safetensors;
// any other Value keeps its shape as JSON in the metadata key "ember.structure".
// docs/ARCHITECTURE.md, "Serialization", has the details.
#pragma once

#include <string>
#include <string_view>

#include "ember/nn/module.h"
#include "ember/value.h"

namespace ember {

// Writes obj atomically: to a temporary file in path's directory, fsync'd, then renamed over
// path. On any error (TypeError/ValueError for what cannot be saved, RuntimeError for I/O) the
// previous file at path is untouched and no temporary file is left. Tensors are saved from
// the CPU, contiguous and detached; a tensor object reached several times is stored once.
void save(const Value& obj, const std::string& path);
// The bytes save() would write.
std::string save_to_bytes(const Value& obj);

// Reads a file written by save() or any safetensors file. Every malformed or hostile input
// raises RuntimeError "ember.load: <name>: <what>" before allocating more than the input holds.
Value load(const std::string& path);
// name only labels error messages.
Value load_from_bytes(std::string_view bytes, const std::string& name = "<bytes>");
// Reads from an open file descriptor (from offset 0, leaving the file position alone).
Value load_from_fd(int fd, const std::string& name);

// State dicts. libtorch's torch::save(module, path) / torch::load(module, path).
Value to_value(const nn::StateDict& dict);
// RuntimeError unless v is a dict of string -> Tensor.
nn::StateDict to_state_dict(const Value& v);
void save(const nn::Module& module, const std::string& path);
// Loads the file's state dict into module (nn::Module::load_state_dict with strict).
nn::LoadStateDictResult load(nn::Module& module, const std::string& path, bool strict = true);

}  // namespace ember
