"""torch.stft and torch.istft (PyTorch 1.13's argument rules and messages), composed of
ember ops: frames are a strided view (unfold) of the padded signal, transformed by the FFT
primitives; istft overlap-adds with fold. Everything is differentiable."""
import warnings

from . import _C


def _window(window, win_length, n_fft, like, name):
    if window is None:
        window = _C.ones(win_length, dtype=_C.float64 if like.dtype in (_C.float64, _C.complex128)
                         else _C.float32)
    elif window.dim() != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"{name}: expected a 1D window tensor of size equal to win_length={win_length}, "
                           f"but got window with size {list(window.shape)}")
    if win_length < n_fft:  # centered in n_fft
        left = (n_fft - win_length) // 2
        window = _C.constant_pad_nd(window, [left, n_fft - win_length - left], 0)
    return window


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="reflect",
         normalized=False, onesided=None, return_complex=None):
    """Short-time Fourier transform: (B?, n_freq, n_frames) complex, or its view_as_real."""
    if center:
        from .nn import functional as F
        signal_dim = input.dim()
        pad = n_fft // 2
        extended = [1] * (3 - signal_dim) + list(input.shape)
        input = F.pad(input.view(extended), [pad, pad], pad_mode)
        input = input.view(list(input.shape)[-signal_dim:])
    if return_complex is None:
        return_complex = input.is_complex() or (window is not None and window.is_complex())
        if not return_complex:
            warnings.warn("stft will soon require the return_complex parameter be given for real inputs, and "
                          "will further require that return_complex=True in a future PyTorch release.")
    hop_length = n_fft >> 2 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if input.dim() not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.dim()}D tensor")
    x = input.view(1, -1) if input.dim() == 1 else input
    length = x.shape[1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"stft: expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop_length <= 0:
        raise RuntimeError(f"stft: expected hop_length > 0, but got hop_length={hop_length}")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(f"stft: expected 0 < win_length <= n_fft, but got win_length={win_length}")
    if not x.is_floating_point() and not x.is_complex():
        x = x.to(_C.get_default_dtype())
    frames = x.unfold(-1, n_fft, hop_length)  # (B, n_frames, n_fft)
    if window is not None or win_length < n_fft:
        frames = frames * _window(window, win_length, n_fft, x, "stft")
    complex_fft = frames.is_complex()
    onesided = (not complex_fft) if onesided is None else onesided
    if complex_fft and onesided:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    norm = 1 if normalized else 0
    if complex_fft:
        out = _C._fft_c2c(frames, [2], norm, True)
    else:
        out = _C._fft_r2c(frames, [2], norm, onesided)
    out = out.transpose(1, 2)
    if input.dim() == 1:
        out = out.squeeze(0)
    return out if return_complex else _C.view_as_real(out)


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True, normalized=False,
          onesided=None, length=None, return_complex=False):
    """Inverse of stft by windowed overlap-add."""
    from .nn import functional as F
    hop_length = n_fft >> 2 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if not input.is_complex():  # the older real layout (..., 2), still accepted by PyTorch 1.13
        warnings.warn("istft will require a complex-valued input tensor in a future PyTorch release. Matching "
                      "the output from stft with return_complex=True.")
        if input.dim() < 1 or input.shape[-1] != 2:
            raise RuntimeError("istft: expected the last dimension to be 2 (corresponding to real and imaginary "
                               f"parts), but got {input.shape[-1] if input.dim() else 0}")
        input = _C.view_as_complex(input.contiguous())
    if input.numel() == 0:
        raise RuntimeError("istft input tensor cannot be empty")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected a tensor with 3 or 4 dimensions of complex dtype, but got "
                           f"{input.dim() + 1}")
    x = input.unsqueeze(0) if input.dim() == 2 else input
    fft_size, n_frames = x.shape[1], x.shape[2]
    expected_len = n_fft + hop_length * (n_frames - 1)
    onesided = (fft_size != n_fft) if onesided is None else onesided
    if onesided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError("istft expected the frequency dimension (3rd to the last) of the input tensor to match "
                           f"n_fft / 2 + 1 when onesided=True, but got {fft_size}")
    if not onesided and n_fft != fft_size:
        raise RuntimeError("istft expected the frequency dimension (3rd to the last) of the input tensor to match "
                           f"n_fft when onesided=False, but got {fft_size}")
    if not 0 < hop_length <= win_length:
        raise RuntimeError("istft expected 0 < hop_length <= win_length")
    if not 0 < win_length <= n_fft:
        raise RuntimeError("istft expected 0 < win_length <= n_fft")
    win = _window(window, win_length, n_fft, x, "istft")
    x = x.transpose(1, 2)  # (B, n_frames, fft_size)
    norm = 1 if normalized else 2
    if return_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = _C._fft_c2c(x, [2], norm, False)
    else:
        if win.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not onesided:
            x = x.narrow(-1, 0, n_fft // 2 + 1)
        frames = _C._fft_c2r(x, [2], norm, n_fft)
    frames = frames * win.view(1, 1, n_fft)

    def overlap_add(f):  # (B, n_frames, n_fft) -> (B, expected_len)
        cols = f.transpose(1, 2)
        y = F.fold(cols, output_size=(1, expected_len), kernel_size=(1, n_fft), stride=(1, hop_length))
        return y.view(f.shape[0], expected_len)

    if frames.is_complex():
        y = overlap_add(frames.real.contiguous()) + 1j * overlap_add(frames.imag.contiguous())
    else:
        y = overlap_add(frames)
    w2 = (win.abs() ** 2 if win.is_complex() else win * win).view(1, 1, n_fft).expand(1, n_frames, n_fft)
    envelope = overlap_add(w2.contiguous())
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    else:
        end = expected_len - n_fft // 2 if center else expected_len
    y = y[:, start:min(end, expected_len)]
    envelope = envelope[:, start:min(end, expected_len)]
    if bool((envelope.abs().min() < 1e-11).item()):
        raise RuntimeError("window overlap add min: 1")
    y = y / envelope
    if input.dim() == 2:
        y = y.squeeze(0)
    if end > expected_len:
        warnings.warn("The length of signal is shorter than the length parameter. Result is being padded with "
                      "zeros in the tail. Please check your center and hop_length settings.")
        y = _C.constant_pad_nd(y, [0, end - expected_len], 0)
    return y
