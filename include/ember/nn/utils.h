// torch.nn.utils for C++ modules: packed sequences (torch.nn.utils.rnn), weight_norm and
// spectral_norm.
//
// Packing is built from differentiable ops (index_select, cat, full), so gradients flow from
// PackedSequence::data back to the padded input or the sequences, and from the padded
// result of pad_packed_sequence back to data. RNN, LSTM and GRU take a PackedSequence
// (include/ember/nn/rnn.h).
//
// weight_norm and spectral_norm replace the parameter `name` (any registered parameter of
// any module: Linear's weight, LSTM's weight_hh_l0, a custom module's) by others (name_g
// and name_v; name_orig and the buffers name_u and name_v) and register a forward pre-hook
// that recomputes the tensor `name` before every call through operator() or call() (a bare
// forward() sees the last computed weight, as a Python forward without __call__). The
// tensor goes into the module's plain attribute `name` and so into the typed handle bound
// to it (Module::bind_tensor): every layer binds its handles; a custom C++ module must
// too, or the hooks refuse its parameters (its forward would not see their result).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ember/nn/module.h"

namespace ember::nn {

// Sequences of different lengths, step by step: data holds step 0 of every sequence, then
// step 1 of those long enough, ...; batch_sizes[t] (int64, CPU) says how many rows step t
// has. sorted_indices maps the sorted (longest first) order to the original batch order,
// unsorted_indices back; both are undefined when the input was already sorted.
struct PackedSequence {
  Tensor data, batch_sizes, sorted_indices, unsorted_indices;
};

namespace utils::rnn {

// The permutation q with q[p[i]] = i (undefined for an undefined p).
Tensor invert_permutation(const Tensor& permutation);

// input: (T, B, *) ((B, T, *) with batch_first); lengths: B positive lengths (int64 or int32,
// 1-D), sorted decreasingly unless enforce_sorted is false.
PackedSequence pack_padded_sequence(const Tensor& input, const Tensor& lengths, bool batch_first = false,
                                    bool enforce_sorted = true);
PackedSequence pack_padded_sequence(const Tensor& input, const std::vector<int64_t>& lengths,
                                    bool batch_first = false, bool enforce_sorted = true);

// The inverse: (padded, lengths) in the original batch order; padded is (T, B, *) with
// T = total_length or the longest length.
std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first = false,
                                               double padding_value = 0.0,
                                               std::optional<int64_t> total_length = std::nullopt);

// Stacks sequences (L_i, *) into (max L, B, *) ((B, max L, *) with batch_first), padded.
Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first = false, double padding_value = 0.0);

// pack_padded_sequence(pad_sequence(sequences), their lengths).
PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted = true);

}  // namespace utils::rnn

namespace utils {

// weight = g * v / ||v||, the norm taken over every dim but `dim` (nullopt: over all).
// Parameters name_g (the norms, as keepdim) and name_v (the old weight's values) replace
// `name`. RuntimeError when the parameter already has one; as torch, an IndexError (C++'s
// lookup error, for Python's AttributeError or KeyError) when `name` is not an attribute,
// or not a parameter; ValueError when no typed handle is bound to it.
void weight_norm(Module& module, const std::string& name = "weight", std::optional<int64_t> dim = 0);
template <class M>
std::shared_ptr<M> weight_norm(std::shared_ptr<M> module, const std::string& name = "weight",
                               std::optional<int64_t> dim = 0) {
  weight_norm(static_cast<Module&>(*module), name, dim);
  return module;
}

// Puts back parameter `name` with the current normalized weight; ValueError without one.
void remove_weight_norm(Module& module, const std::string& name = "weight");
template <class M>
std::shared_ptr<M> remove_weight_norm(std::shared_ptr<M> module, const std::string& name = "weight") {
  remove_weight_norm(static_cast<Module&>(*module), name);
  return module;
}

// weight = weight_orig / sigma, sigma = u^T W v estimated by n_power_iterations steps of
// power iteration on the buffers name_u and name_v (updated in place, in training mode
// only); W is weight_orig as a matrix with `dim` first (default 1 for ConvTranspose, else 0).
// u and v start as normalized N(0, 1) draws from the default generator. Errors as
// weight_norm's (IndexError, torch's KeyError, when `name` is not a parameter).
void spectral_norm(Module& module, const std::string& name = "weight", int64_t n_power_iterations = 1,
                   double eps = 1e-12, std::optional<int64_t> dim = std::nullopt);
template <class M>
std::shared_ptr<M> spectral_norm(std::shared_ptr<M> module, const std::string& name = "weight",
                                 int64_t n_power_iterations = 1, double eps = 1e-12,
                                 std::optional<int64_t> dim = std::nullopt) {
  spectral_norm(static_cast<Module&>(*module), name, n_power_iterations, eps, dim);
  return module;
}

void remove_spectral_norm(Module& module, const std::string& name = "weight");
template <class M>
std::shared_ptr<M> remove_spectral_norm(std::shared_ptr<M> module, const std::string& name = "weight") {
  remove_spectral_norm(static_cast<Module&>(*module), name);
  return module;
}

}  // namespace utils
}  // namespace ember::nn
