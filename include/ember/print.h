// Printing tensors as PyTorch's repr() does. The only difference in the text is the dtype
// prefix: "dtype=ember.float64" where PyTorch prints "dtype=torch.float64".
#pragma once

#include <iosfwd>
#include <optional>
#include <string_view>

#include "ember/tensor.h"

namespace ember {

struct PrintOptions {
  int precision = 4;         // digits after the point
  double threshold = 1000;   // more elements than this are summarized with "..."
  int edgeitems = 3;         // items kept at each end of a summarized dimension
  int linewidth = 80;        // characters per line before wrapping
  std::optional<bool> sci_mode;  // force (or forbid) scientific notation; unset: automatic
};

// torch.set_printoptions: options left unset keep their value, except sci_mode, which is
// always replaced (as in PyTorch). profile is "default", "short" or "full" (ValueError else);
// it is applied first, then the other options.
void set_printoptions(std::optional<int> precision = std::nullopt, std::optional<double> threshold = std::nullopt,
                      std::optional<int> edgeitems = std::nullopt, std::optional<int> linewidth = std::nullopt,
                      std::optional<std::string_view> profile = std::nullopt,
                      std::optional<bool> sci_mode = std::nullopt);
PrintOptions get_printoptions();

std::ostream& operator<<(std::ostream& os, const Tensor& t);

}  // namespace ember
