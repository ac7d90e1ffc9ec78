// Helpers shared by the derivative formula files (src/autograd/formulas*.cpp).
#pragma once

#include <complex>
#include <string>
#include <utility>
#include <vector>

#include "ember/autograd.h"
#include "ember/ops.h"

namespace ember::autograd::formula {

using Grads = std::vector<Tensor>;

// Conjugates of complex values; real ones pass through untouched (no extra op in the graph).
inline Tensor cj(const Tensor& t) { return t.is_complex() ? conj(t) : t; }
inline Scalar cj(const Scalar& s) { return s.is_complex() ? Scalar(std::conj(s.to<std::complex<double>>())) : s; }
inline bool is_one(const Scalar& s) { return !s.is_complex() && s.to<double>() == 1.0; }
inline Tensor times(const Tensor& g, const Scalar& s) { return is_one(s) ? g : mul(g, s); }

// The gradient of a matrix operand, x @ y, laid out like the operand `like` (batched with bmm
// when 3-D): a column-major operand (a weight used as W.t()) gets (y^T x^T)^T, whose strides
// are its own, so the view's backward is a permute rather than a transposing copy (as
// PyTorch's mm_mat2_backward).
Tensor product_grad_like(const Tensor& x, const Tensor& y, const Tensor& like);

inline void define(const std::string& op, std::vector<size_t> saves, bool saves_result, Formula f) {
  register_derivative(op, Derivative{std::move(f), std::move(saves), saves_result});
}

}  // namespace ember::autograd::formula
