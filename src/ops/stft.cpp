// torch.stft and torch.istft with PyTorch 1.13's argument rules, messages and warnings
// (aten/src/ATen/native/SpectralOps.cpp), as composites: stft frames the (padded) signal
// with a strided view (unfold), windows it and runs one batched FFT primitive; istft runs
// the inverse primitive, windows the frames and overlap-adds them with col2im, dividing by
// the overlap-added squared window. Both are differentiable through their parts.
#include "ember/dispatch.h"
#include "ember/fft.h"
#include "ember/ops.h"
#include "ember/ops/nn_conv.h"
#include "ember/ops/pointwise.h"
#include "ember/ops/reduce.h"

namespace ember {
namespace stft_ops {
namespace {

using OptInt = std::optional<int64_t>;
using OptBool = std::optional<bool>;
using OptTensor = std::optional<Tensor>;
using StftSig = Tensor(const Tensor&, int64_t, OptInt, OptInt, const OptTensor&, bool, std::string_view, bool,
                       OptBool, OptBool);
using IstftSig = Tensor(const Tensor&, int64_t, OptInt, OptInt, const OptTensor&, bool, bool, OptBool, OptInt,
                        bool);

enum : int64_t { kNormNone = 0, kNormRoot = 1, kNormN = 2 };

// The window of length n_fft the frames are multiplied by: `window` (or ones) centred with zeros.
Tensor padded_window(const OptTensor& window, int64_t win_length, int64_t n_fft, ScalarType like, const char* name) {
  Tensor w;
  if (window && window->defined()) {
    w = *window;
    EMBER_CHECK(w.dim() == 1 && w.size(0) == win_length, RuntimeError, name,
                ": expected a 1D window tensor of size equal to win_length=", win_length,
                ", but got window with size ", w.sizes());
  } else {
    w = ones({win_length}, TensorOptions().dtype(like == kDouble || like == kComplexDouble ? kDouble : kFloat));
  }
  if (win_length == n_fft) return w;
  const int64_t left = (n_fft - win_length) / 2;
  return constant_pad_nd(w, {left, n_fft - win_length - left}, 0);
}

// F.pad of the last dim by `pad` on both sides, for stft's center=True.
Tensor pad_signal(const Tensor& x, int64_t pad, std::string_view mode) {
  if (mode == "constant") return constant_pad_nd(x, {pad, pad}, 0);
  if (mode == "reflect") return reflection_pad1d(x, {pad, pad});
  if (mode == "replicate") return replication_pad1d(x, {pad, pad});
  EMBER_CHECK(mode == "circular", NotImplementedError, "Unrecognised padding mode ", mode);
  const int64_t n = x.size(-1);
  EMBER_CHECK(pad <= n, RuntimeError, "circular padding of ", pad, " is larger than the input's size ", n);
  return cat({x.narrow(-1, n - pad, pad), x, x.narrow(-1, 0, pad)}, -1);
}

Tensor stft_k(const Tensor& self, int64_t n_fft, OptInt hop, OptInt win, const OptTensor& window, bool center,
              std::string_view pad_mode, bool normalized, OptBool onesided_arg, OptBool return_complex_arg) {
  Tensor input = self;
  const bool has_window = window && window->defined();
  if (center) {
    // As torch.stft: a (1, B?, L) view, padded along its last dim.
    const int64_t d = input.dim();
    EMBER_CHECK(d == 1 || d == 2, RuntimeError, "stft: expected a 1D or 2D tensor, but got ", d, "D tensor");
    DimVector ext(static_cast<size_t>(3 - d), 1);
    for (int64_t s : input.sizes()) ext.push_back(s);
    input = pad_signal(input.view(ext), n_fft / 2, pad_mode);
    input = input.view(input.sizes().slice(static_cast<size_t>(3 - d), static_cast<size_t>(d)));
  }
  const bool return_complex = return_complex_arg.value_or(input.is_complex() || (has_window && window->is_complex()));
  if (!return_complex_arg && !return_complex)
    warn("stft will soon require the return_complex parameter be given for real inputs, and will further require "
         "that return_complex=True in a future PyTorch release.");
  const int64_t hop_length = hop.value_or(n_fft >> 2), win_length = win.value_or(n_fft);
  EMBER_CHECK(input.dim() == 1 || input.dim() == 2, RuntimeError, "stft: expected a 1D or 2D tensor, but got ",
              input.dim(), "D tensor");
  Tensor x = input.dim() == 1 ? input.unsqueeze(0) : input;
  const int64_t length = x.size(1);
  EMBER_CHECK(n_fft > 0 && n_fft <= length, RuntimeError, "stft: expected 0 < n_fft < ", length,
              ", but got n_fft=", n_fft);
  EMBER_CHECK(hop_length > 0, RuntimeError, "stft: expected hop_length > 0, but got hop_length=", hop_length);
  EMBER_CHECK(win_length > 0 && win_length <= n_fft, RuntimeError,
              "stft: expected 0 < win_length <= n_fft, but got win_length=", win_length);
  if (!is_floating_point(x.dtype()) && !x.is_complex()) x = x.to(get_default_dtype());
  Tensor frames = x.unfold(-1, n_fft, hop_length);  // (B, n_frames, n_fft)
  if (has_window || win_length < n_fft) frames = frames.mul(padded_window(window, win_length, n_fft, x.dtype(), "stft"));
  const bool complex_fft = frames.is_complex();
  const bool onesided = onesided_arg.value_or(!complex_fft);
  EMBER_CHECK(!(complex_fft && onesided), RuntimeError, "Cannot have onesided output if window or input is complex");
  const int64_t norm = normalized ? kNormRoot : kNormNone;
  Tensor out = complex_fft ? _fft_c2c(frames, {2}, norm, true) : _fft_r2c(frames, {2}, norm, onesided);
  out = out.transpose(1, 2);
  if (input.dim() == 1) out = out.squeeze(0);
  return return_complex ? out : out.view_as_real();
}

// Sums (B, n_frames, n_fft) frames hop apart into (B, n_fft + hop (n_frames - 1)); complex
// frames go through col2im as two real channels.
Tensor overlap_add(const Tensor& frames, int64_t hop, int64_t total) {
  const int64_t b = frames.size(0), n_frames = frames.size(1), n_fft = frames.size(2);
  if (frames.is_complex()) {
    Tensor cols = frames.view_as_real().permute({0, 3, 2, 1}).reshape({b, 2 * n_fft, n_frames});
    Tensor y = col2im(cols, {1, total}, {1, n_fft}, {1, 1}, {0, 0}, {1, hop});  // (B, 2, 1, total)
    return y.view({b, 2, total}).transpose(1, 2).contiguous().view_as_complex();
  }
  return col2im(frames.transpose(1, 2), {1, total}, {1, n_fft}, {1, 1}, {0, 0}, {1, hop}).view({b, total});
}

Tensor istft_k(const Tensor& self, int64_t n_fft, OptInt hop, OptInt win, const OptTensor& window, bool center,
               bool normalized, OptBool onesided_arg, OptInt length, bool return_complex) {
  const int64_t hop_length = hop.value_or(n_fft >> 2), win_length = win.value_or(n_fft);
  Tensor input = self;
  if (!input.is_complex()) {  // the older real layout (..., 2), still accepted by PyTorch 1.13
    warn("istft will require a complex-valued input tensor in a future PyTorch release. Matching the output from "
         "stft with return_complex=True. ");
    EMBER_CHECK(input.dim() >= 1 && input.size(-1) == 2, RuntimeError,
                "istft: expected the last dimension to be 2 (corresponding to real and imaginary parts), but got ",
                input.dim() ? input.size(-1) : 0);
    input = input.contiguous().view_as_complex();
  }
  EMBER_CHECK(input.numel() > 0, RuntimeError, "istft input tensor cannot be empty");
  EMBER_CHECK(input.dim() == 2 || input.dim() == 3, RuntimeError,
              "Expected a tensor with 3 or 4 dimensions of complex dtype, but got ", input.dim() + 1);
  Tensor x = input.dim() == 2 ? input.unsqueeze(0) : input;
  const int64_t fft_size = x.size(1), n_frames = x.size(2);
  const int64_t expected_len = n_fft + hop_length * (n_frames - 1);
  const bool onesided = onesided_arg.value_or(fft_size != n_fft);
  if (onesided)
    EMBER_CHECK(n_fft / 2 + 1 == fft_size, RuntimeError,
                "istft expected the frequency dimension (3rd to the last) of the input tensor to match n_fft / 2 + 1 "
                "when onesided=True, but got ", fft_size);
  else
    EMBER_CHECK(n_fft == fft_size, RuntimeError,
                "istft expected the frequency dimension (3rd to the last) of the input tensor to match n_fft when "
                "onesided=False, but got ", fft_size);
  EMBER_CHECK(hop_length > 0 && hop_length <= win_length, RuntimeError, "istft expected 0 < hop_length <= win_length");
  EMBER_CHECK(win_length > 0 && win_length <= n_fft, RuntimeError, "istft expected 0 < win_length <= n_fft");
  const Tensor w = padded_window(window, win_length, n_fft, x.dtype(), "istft");
  x = x.transpose(1, 2);  // (B, n_frames, fft_size)
  const int64_t norm = normalized ? kNormRoot : kNormN;
  Tensor frames;
  if (return_complex) {
    EMBER_CHECK(!onesided, RuntimeError, "Cannot have onesided output if window or input is complex");
    frames = _fft_c2c(x, {2}, norm, false);
  } else {
    EMBER_CHECK(!w.is_complex(), RuntimeError, "Complex windows are incompatible with return_complex=False");
    if (!onesided) x = x.narrow(-1, 0, n_fft / 2 + 1);
    frames = _fft_c2r(x, {2}, norm, n_fft);
  }
  Tensor y = overlap_add(frames.mul(w.view({1, 1, n_fft})), hop_length, expected_len);
  const Tensor w2 = (w.is_complex() ? w.abs().mul(w.abs()) : w.mul(w)).view({1, 1, n_fft});
  Tensor envelope = overlap_add(w2.expand({1, n_frames, n_fft}).contiguous(), hop_length, expected_len);
  const int64_t start = center ? n_fft / 2 : 0;
  const int64_t end = length ? start + *length : (center ? expected_len - n_fft / 2 : expected_len);
  const int64_t stop = std::min(end, expected_len);
  y = y.slice(1, start, stop);
  envelope = envelope.slice(1, start, stop);
  EMBER_CHECK(envelope.numel() == 0 || envelope.abs().min().item<double>() >= 1e-11, RuntimeError,
              "istft: window overlap add min: ", envelope.abs().min().item<double>());
  y = y.div(envelope);
  if (input.dim() == 2) y = y.squeeze(0);
  if (end > expected_len) {
    warn("The length of signal is shorter than the length parameter. Result is being padded with zeros in the tail. "
         "Please check your center and hop_length settings.");
    y = constant_pad_nd(y, {0, end - expected_len}, 0);
  }
  return y;
}

EMBER_REGISTER(stft_ops) {
  define_op<StftSig>("stft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None, "
                     "bool center=True, str pad_mode=\"reflect\", bool normalized=False, bool? onesided=None, "
                     "bool? return_complex=None) -> Tensor");
  define_op<IstftSig>("istft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, Tensor? window=None, "
                      "bool center=True, bool normalized=False, bool? onesided=None, int? length=None, "
                      "bool return_complex=False) -> Tensor");
  register_composite<StftSig, &stft_k>("stft");
  register_composite<IstftSig, &istft_k>("istft");
}

}  // namespace
}  // namespace stft_ops

Tensor stft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length, std::optional<int64_t> win_length,
            const std::optional<Tensor>& window, bool center, std::string_view pad_mode, bool normalized,
            std::optional<bool> onesided, std::optional<bool> return_complex) {
  static const TypedOp<stft_ops::StftSig> op("stft");
  return op.call(self, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided, return_complex);
}

Tensor istft(const Tensor& self, int64_t n_fft, std::optional<int64_t> hop_length, std::optional<int64_t> win_length,
             const std::optional<Tensor>& window, bool center, bool normalized, std::optional<bool> onesided,
             std::optional<int64_t> length, bool return_complex) {
  static const TypedOp<stft_ops::IstftSig> op("istft");
  return op.call(self, n_fft, hop_length, win_length, window, center, normalized, onesided, length, return_complex);
}

}  // namespace ember
