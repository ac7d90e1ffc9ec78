// Input checks shared by the layers of src/nn: errors name the layer, what it expected and
// the shape it got.
#pragma once

#include <optional>
#include <string>

#include "ember/nn/module.h"

namespace ember::nn::detail {

inline std::string shape_str(IntArrayRef sizes) {
  ::ember::detail::Msg m;
  m << sizes;
  return std::move(m).str();
}

// An optional parameter for the functional ops: undefined (absent) becomes nullopt.
inline std::optional<Tensor> opt(const Tensor& t) { return t.defined() ? std::optional<Tensor>(t) : std::nullopt; }

// TypeError unless input has the dtype of the layer's parameter (PyTorch raises for a
// float64 input to a float32 layer rather than promoting).
inline void check_same_dtype(const Module& m, const Tensor& input, const Tensor& param, const char* what = "input") {
  EMBER_CHECK(input.dtype() == param.dtype(), TypeError, m.name(), ": expected ", what, " of dtype ", param.dtype(),
              " (the dtype of the layer's parameters), got ", input.dtype());
}

// RuntimeError unless input has between lo and hi dims; `layouts` describes them ("(N, C, L)
// or (C, L)").
inline void check_dims(const Module& m, const Tensor& input, int64_t lo, int64_t hi, const std::string& layouts) {
  EMBER_CHECK(input.dim() >= lo && input.dim() <= hi, RuntimeError, m.name(), ": expected input of shape ", layouts,
              ", got shape ", input.sizes());
}

inline void check_positive(const std::string& layer, const char* what, IntArrayRef v, bool allow_zero = false) {
  for (int64_t x : v) {
    EMBER_CHECK(allow_zero ? x >= 0 : x > 0, ValueError, layer, ": ", what, " must be ",
                allow_zero ? "non-negative" : "positive", ", got ", v);
  }
}

// "(N, C, H, W) or (C, H, W)" for 2 spatial dims.
inline std::string spatial_layouts(int64_t dims) {
  const char* spatial = dims == 1 ? "L" : dims == 2 ? "H, W" : "D, H, W";
  return std::string("(N, C, ") + spatial + ") or (C, " + spatial + ")";
}

}  // namespace ember::nn::detail
