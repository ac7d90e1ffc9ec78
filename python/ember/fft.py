"""ember.fft: torch.fft's discrete Fourier transforms (src/ops/fft.cpp), sample frequencies
and shifts."""
from . import _C

fft, ifft, rfft, irfft, hfft, ihfft = (_C.fft_fft, _C.fft_ifft, _C.fft_rfft, _C.fft_irfft, _C.fft_hfft,
                                       _C.fft_ihfft)
fft2, ifft2, rfft2, irfft2, hfft2, ihfft2 = (_C.fft_fft2, _C.fft_ifft2, _C.fft_rfft2, _C.fft_irfft2,
                                             _C.fft_hfft2, _C.fft_ihfft2)
fftn, ifftn, rfftn, irfftn, hfftn, ihfftn = (_C.fft_fftn, _C.fft_ifftn, _C.fft_rfftn, _C.fft_irfftn,
                                             _C.fft_hfftn, _C.fft_ihfftn)


def _freq_dtype(name, dtype):
    dtype = _C.get_default_dtype() if dtype is None else dtype
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{name} requires a floating point or complex dtype")
    return dtype


def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """[0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1] / (d n)"""
    dtype = _freq_dtype("fftfreq", dtype if out is None or dtype is not None else out.dtype)
    r = _C.arange(0, n, dtype=dtype, device=device)
    if n > 0:
        r[(n + 1) // 2:] -= n
    r = r * _inv(n * d)
    return _finish(r, out, requires_grad)


def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """[0, 1, ..., n // 2] / (d n)"""
    dtype = _freq_dtype("rfftfreq", dtype if out is None or dtype is not None else out.dtype)
    r = _C.arange(0, n // 2 + 1, dtype=dtype, device=device) * _inv(n * d)
    return _finish(r, out, requires_grad)


def _inv(x):
    """1 / x, infinite for 0 (as PyTorch's scaling gives NaN for rfftfreq(0))."""
    return 1.0 / x if x != 0 else float("inf")


def _finish(r, out, requires_grad):
    if out is not None:
        out.resize_(r.shape)
        out.copy_(r)
        r = out
    if requires_grad:
        r.requires_grad_(True)
    return r


def _shift(x, dim, inverse):
    if dim is None:
        dim = tuple(range(x.dim()))
        if not dim:
            return x.clone()
    elif isinstance(dim, int):
        dim = (dim,)
    shifts = [(x.shape[d] + 1) // 2 if inverse else x.shape[d] // 2 for d in dim]
    return _C.roll(x, shifts, dim)


def fftshift(input, dim=None):
    """Rolls the zero-frequency term to the middle of each dim in `dim` (all by default)."""
    return _shift(input, dim, False)


def ifftshift(input, dim=None):
    """The inverse of fftshift."""
    return _shift(input, dim, True)
