// Shape ops, named and defaulted as in PyTorch. Those returning several tensors return them
// as a vector. split/chunk/unbind/movedim/broadcast_to/meshgrid/atleast_* return views of
// their input; flip, roll, repeat, tril and the others copy. (Views with a Tensor method of
// their own, such as permute or narrow, are in ember/tensor.h.)
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "ember/tensor.h"

namespace ember {

// ---------------------------------------------------------------- copies
Tensor flip(const Tensor& self, IntArrayRef dims);
Tensor fliplr(const Tensor& self);  // flip(self, {1}), self at least 2-D
Tensor flipud(const Tensor& self);  // flip(self, {0}), self at least 1-D
// Element i moves to (i + shift) mod size along each dim; no dims: over the flattened tensor.
Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims = {});
Tensor rot90(const Tensor& self, int64_t k = 1, IntArrayRef dims = {0, 1});
// Tensor.repeat: self tiled repeats[i] times along dim i (len(repeats) >= self.dim()).
Tensor repeat(const Tensor& self, IntArrayRef repeats);
// repeat with dims padded with leading 1s to self.dim().
Tensor tile(const Tensor& self, IntArrayRef dims);
// Each element (no dim: of the flattened tensor) or slice along dim repeated.
Tensor repeat_interleave(const Tensor& self, int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
Tensor repeat_interleave(const Tensor& self, const Tensor& repeats, std::optional<int64_t> dim = std::nullopt,
                         std::optional<int64_t> output_size = std::nullopt);
// [0] * repeats[0] + [1] * repeats[1] + ... (repeats: 1-D int32/int64).
Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> output_size = std::nullopt);
// Lower / upper triangle of the last two dims (element (i, j) kept when j - i <= / >= diagonal).
Tensor tril(const Tensor& self, int64_t diagonal = 0);
Tensor triu(const Tensor& self, int64_t diagonal = 0);
Tensor& tril_(Tensor& self, int64_t diagonal = 0);
Tensor& triu_(Tensor& self, int64_t diagonal = 0);
Tensor& tril_out(Tensor& out, const Tensor& self, int64_t diagonal = 0);
Tensor& triu_out(Tensor& out, const Tensor& self, int64_t diagonal = 0);
// 1-D: a square matrix with self on a diagonal; 2-D: that diagonal of self.
Tensor diag(const Tensor& self, int64_t diagonal = 0);
Tensor& diag_out(Tensor& out, const Tensor& self, int64_t diagonal = 0);
// Matrices (in dims dim1, dim2 of the result) with self's last dim on a diagonal.
Tensor diag_embed(const Tensor& self, int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1);
Tensor diagflat(const Tensor& self, int64_t offset = 0);
Tensor narrow_copy(const Tensor& self, int64_t dim, int64_t start, int64_t length);
Tensor& narrow_copy_out(Tensor& out, const Tensor& self, int64_t dim, int64_t start, int64_t length);

// ---------------------------------------------------------------- joining (cat of raised inputs)
Tensor hstack(TensorList tensors);
Tensor vstack(TensorList tensors);
Tensor row_stack(TensorList tensors);
Tensor dstack(TensorList tensors);
Tensor column_stack(TensorList tensors);
Tensor& hstack_out(Tensor& out, TensorList tensors);
Tensor& vstack_out(Tensor& out, TensorList tensors);
Tensor& row_stack_out(Tensor& out, TensorList tensors);
Tensor& dstack_out(Tensor& out, TensorList tensors);
Tensor& column_stack_out(Tensor& out, TensorList tensors);

// ---------------------------------------------------------------- views
std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim = 0);
std::vector<Tensor> split(const Tensor& self, IntArrayRef split_sizes, int64_t dim = 0);
std::vector<Tensor> split_with_sizes(const Tensor& self, IntArrayRef split_sizes, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& self, int64_t chunks, int64_t dim = 0);
std::vector<Tensor> tensor_split(const Tensor& self, int64_t sections, int64_t dim = 0);
std::vector<Tensor> tensor_split(const Tensor& self, IntArrayRef indices, int64_t dim = 0);
std::vector<Tensor> tensor_split(const Tensor& self, const Tensor& tensor_indices_or_sections, int64_t dim = 0);
std::vector<Tensor> hsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> hsplit(const Tensor& self, IntArrayRef indices);
std::vector<Tensor> vsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> vsplit(const Tensor& self, IntArrayRef indices);
std::vector<Tensor> dsplit(const Tensor& self, int64_t sections);
std::vector<Tensor> dsplit(const Tensor& self, IntArrayRef indices);
std::vector<Tensor> unbind(const Tensor& self, int64_t dim = 0);
Tensor movedim(const Tensor& self, IntArrayRef source, IntArrayRef destination);
Tensor movedim(const Tensor& self, int64_t source, int64_t destination);
Tensor moveaxis(const Tensor& self, IntArrayRef source, IntArrayRef destination);
Tensor moveaxis(const Tensor& self, int64_t source, int64_t destination);
Tensor swapaxes(const Tensor& self, int64_t axis0, int64_t axis1);
Tensor swapdims(const Tensor& self, int64_t dim0, int64_t dim1);
Tensor broadcast_to(const Tensor& self, IntArrayRef size);
std::vector<Tensor> broadcast_tensors(TensorList tensors);
// indexing: "ij" (matrix) or "xy" (Cartesian: the first two dims swapped).
std::vector<Tensor> meshgrid(TensorList tensors, std::string_view indexing = "ij");
Tensor atleast_1d(const Tensor& self);
Tensor atleast_2d(const Tensor& self);
Tensor atleast_3d(const Tensor& self);
std::vector<Tensor> atleast_1d(TensorList tensors);
std::vector<Tensor> atleast_2d(TensorList tensors);
std::vector<Tensor> atleast_3d(TensorList tensors);
// A 1-D view when self's layout allows it, else a copy.
Tensor ravel(const Tensor& self);

}  // namespace ember
