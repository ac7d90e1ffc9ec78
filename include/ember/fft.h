// ember::fft: torch.fft's functions (discrete Fourier transforms, frequencies, shifts).
//
// `norm` is "backward" (the default: no scaling forward, 1/n inverse), "forward" (the
// reverse) or "ortho" (1/sqrt(n) both ways). `n`/`s` pad with zeros or trim each transformed
// dim first (-1 in `s`: keep that size). Integer inputs compute in the default float dtype.
#pragma once

#include <optional>
#include <string_view>

#include "ember/tensor.h"

namespace ember::fft {

using Norm = std::optional<std::string_view>;
using OptInt = std::optional<int64_t>;
using OptDims = std::optional<IntArrayRef>;

#define EMBER_FFT_1D(name)                                                                     \
  Tensor name(const Tensor& self, OptInt n = std::nullopt, int64_t dim = -1, Norm norm = std::nullopt); \
  Tensor& name##_out(Tensor& out, const Tensor& self, OptInt n = std::nullopt, int64_t dim = -1,       \
                     Norm norm = std::nullopt);
#define EMBER_FFT_2D(name)                                                                     \
  Tensor name(const Tensor& self, OptDims s = std::nullopt, IntArrayRef dim = {-2, -1}, Norm norm = std::nullopt); \
  Tensor& name##_out(Tensor& out, const Tensor& self, OptDims s = std::nullopt, IntArrayRef dim = {-2, -1},     \
                     Norm norm = std::nullopt);
#define EMBER_FFT_ND(name)                                                                     \
  Tensor name(const Tensor& self, OptDims s = std::nullopt, OptDims dim = std::nullopt, Norm norm = std::nullopt); \
  Tensor& name##_out(Tensor& out, const Tensor& self, OptDims s = std::nullopt, OptDims dim = std::nullopt,     \
                     Norm norm = std::nullopt);

EMBER_FFT_1D(fft) EMBER_FFT_1D(ifft) EMBER_FFT_1D(rfft) EMBER_FFT_1D(irfft) EMBER_FFT_1D(hfft) EMBER_FFT_1D(ihfft)
EMBER_FFT_2D(fft2) EMBER_FFT_2D(ifft2) EMBER_FFT_2D(rfft2) EMBER_FFT_2D(irfft2) EMBER_FFT_2D(hfft2)
EMBER_FFT_2D(ihfft2)
EMBER_FFT_ND(fftn) EMBER_FFT_ND(ifftn) EMBER_FFT_ND(rfftn) EMBER_FFT_ND(irfftn) EMBER_FFT_ND(hfftn)
EMBER_FFT_ND(ihfftn)

#undef EMBER_FFT_1D
#undef EMBER_FFT_2D
#undef EMBER_FFT_ND

// Sample frequencies: fftfreq(n, d) = [0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d n);
// rfftfreq(n, d) = [0, 1, ..., n/2] / (d n). Default dtype unless `opts` names a floating one.
Tensor fftfreq(int64_t n, double d = 1.0, TensorOptions opts = {});
Tensor rfftfreq(int64_t n, double d = 1.0, TensorOptions opts = {});
// Rolls the zero frequency to the middle of each dim in `dim` (all dims by default), and back.
Tensor fftshift(const Tensor& self, OptDims dim = std::nullopt);
Tensor ifftshift(const Tensor& self, OptDims dim = std::nullopt);

}  // namespace ember::fft

namespace ember {
// The primitives the transforms above decompose into (PyTorch's): a complex DFT over `dim`,
// a real-to-complex one (onesided: the last dim keeps n / 2 + 1 values) and its inverse
// (complex-to-real, last_dim_size real values along the last of `dim`). normalization: 0 none,
// 1 by 1/sqrt(n), 2 by 1/n (n: the product of the transformed sizes).
Tensor _fft_c2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool forward);
Tensor _fft_r2c(const Tensor& self, IntArrayRef dim, int64_t normalization, bool onesided);
Tensor _fft_c2r(const Tensor& self, IntArrayRef dim, int64_t normalization, int64_t last_dim_size);

// torch.stft: the DFTs of windowed frames hop_length apart (default n_fft / 4) of a 1-D or (B, L)
// signal, (B?, n_freq, n_frames). center pads n_fft / 2 on both sides by pad_mode ("reflect",
// "constant", "replicate", "circular"); the window (default: ones of win_length = n_fft) is
// centred in n_fft; onesided defaults to true for real input and window. Without return_complex
// a real input gives view_as_real of the result, with PyTorch's deprecation warning.
Tensor stft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length = std::nullopt,
            std::optional<int64_t> win_length = std::nullopt, const std::optional<Tensor>& window = std::nullopt,
            bool center = true, std::string_view pad_mode = "reflect", bool normalized = false,
            std::optional<bool> onesided = std::nullopt, std::optional<bool> return_complex = std::nullopt);
// torch.istft: the signal whose stft is `self` (least squares by windowed overlap-add); `length`
// trims or zero-pads the result. Raises when the squared window overlap-adds to zero somewhere.
Tensor istft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length = std::nullopt,
             std::optional<int64_t> win_length = std::nullopt, const std::optional<Tensor>& window = std::nullopt,
             bool center = true, bool normalized = false, std::optional<bool> onesided = std::nullopt,
             std::optional<int64_t> length = std::nullopt, bool return_complex = false);
}  // namespace ember
