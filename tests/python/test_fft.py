"""ember.fft beyond the op table (op_rows_fft.py): accuracy against numpy.fft over lengths that
exercise every code path (radices 2-8, generic odd radices, Bluestein for large primes, the
half-length real transforms), round trips, many-dim and strided layouts, and independence of
the thread count."""
import numpy as np
import pytest

import ember

SIZES = [1, 2, 3, 5, 7, 16, 17, 97, 210, 1009, 4096, 10007, 2 ** 20]
# Relative error: largest deviation over the largest reference magnitude.
TOL = {"float64": 1e-12, "complex128": 1e-12, "float32": 1e-5, "complex64": 1e-5}


def _data(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _rel(got, ref):
    got = got.numpy() if isinstance(got, ember.Tensor) else got
    scale = max(np.abs(ref).max(), 1e-300)
    return np.abs(got.astype(np.complex128) - ref).max() / scale


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ["complex128", "complex64"])
def test_c2c_matches_numpy(n, dtype):
    x = _data((n,), dtype)
    t = ember.from_numpy(x)
    ref = np.fft.fft(x.astype(np.complex128))
    assert _rel(ember.fft.fft(t), ref) <= TOL[dtype]
    assert _rel(ember.fft.ifft(t), np.fft.ifft(x.astype(np.complex128))) <= TOL[dtype]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_real_matches_numpy_and_round_trips(n, dtype):
    x = _data((n,), dtype, seed=1)
    t = ember.from_numpy(x)
    xd = x.astype(np.float64)
    r = ember.fft.rfft(t)
    assert r.dtype == (ember.complex128 if dtype == "float64" else ember.complex64)
    assert _rel(r, np.fft.rfft(xd)) <= TOL[dtype]
    assert _rel(ember.fft.fft(t), np.fft.fft(xd)) <= TOL[dtype]
    back = ember.fft.irfft(r, n)
    assert back.shape == (n,)
    assert np.abs(back.numpy() - x).max() <= TOL[dtype] * max(np.abs(x).max(), 1)
    if n > 1:
        assert _rel(ember.fft.hfft(r, n), np.fft.hfft(r.numpy().astype(np.complex128), n)) <= TOL[dtype]
    assert _rel(ember.fft.ihfft(t), np.fft.ihfft(xd)) <= TOL[dtype]


@pytest.mark.parametrize("norm", [None, "backward", "forward", "ortho"])
def test_norms_and_nd_forms_match_numpy(norm):
    x = _data((6, 5, 8), "complex128", seed=2)
    t = ember.from_numpy(x)
    for name, kw in (("fftn", {}), ("ifftn", {"axes": (0, 2)}), ("fft2", {}), ("ifft2", {"axes": (0, 1)})):
        ref = getattr(np.fft, name)(x, norm=norm, **kw)
        dims = {"dim": kw["axes"]} if kw else {}
        assert _rel(getattr(ember.fft, name)(t, norm=norm, **dims), ref) <= 1e-12, name
    xr = x.real.copy()
    tr = ember.from_numpy(xr)
    assert _rel(ember.fft.rfftn(tr, norm=norm), np.fft.rfftn(xr, norm=norm)) <= 1e-12
    assert _rel(ember.fft.rfft2(tr, s=(4, 9), norm=norm), np.fft.rfft2(xr, s=(4, 9), norm=norm)) <= 1e-12
    spec = np.fft.rfftn(xr)
    assert _rel(ember.fft.irfftn(ember.from_numpy(spec), s=xr.shape, norm=norm),
                np.fft.irfftn(spec, s=xr.shape, norm=norm)) <= 1e-12
    assert _rel(ember.fft.irfft2(ember.from_numpy(spec), s=(5, 7), norm=norm),
                np.fft.irfft2(spec, s=(5, 7), norm=norm)) <= 1e-12


def test_strided_and_batched_inputs():
    base = _data((9, 16, 12), "complex64", seed=3)
    t = ember.from_numpy(base)
    views = [t[::2, :, 1::3], t.permute(2, 0, 1), t.transpose(0, 2)[:, 3:, :]]
    for v in views:
        ref = np.fft.fftn(v.numpy().astype(np.complex128), axes=(0, 2))
        assert _rel(ember.fft.fftn(v, dim=(0, 2)), ref) <= 1e-5
        ref1 = np.fft.fft(v.numpy().astype(np.complex128), axis=1)
        assert _rel(ember.fft.fft(v, dim=1), ref1) <= 1e-5
    # a large batch of short transforms and long columns (the grouped and the threaded paths)
    x = _data((4096, 64), "float32", seed=4)
    assert _rel(ember.fft.rfft(ember.from_numpy(x)), np.fft.rfft(x.astype(np.float64))) <= 1e-5
    y = _data((3, 40000), "complex128", seed=5)
    assert _rel(ember.fft.fft(ember.from_numpy(y).t(), dim=0), np.fft.fft(y, axis=1).T) <= 1e-12


def test_results_do_not_depend_on_thread_count():
    cases = [_data((2 ** 16,), "complex64", seed=6), _data((256, 256), "complex64", seed=7),
             _data((2, 10007), "complex128", seed=8)]
    prev = ember.get_num_threads()
    try:
        outs = []
        for threads in (1, 2):
            ember.set_num_threads(threads)
            outs.append([ember.fft.fft2(ember.from_numpy(c)).numpy() if c.ndim == 2 else
                         ember.fft.fft(ember.from_numpy(c)).numpy() for c in cases])
    finally:
        ember.set_num_threads(prev)
    for a, b in zip(*outs):
        np.testing.assert_array_equal(a, b)


def test_frequencies_and_shifts_match_numpy():
    for n in (1, 4, 7):
        for d in (1.0, 0.3):
            np.testing.assert_allclose(ember.fft.fftfreq(n, d, dtype=ember.float64).numpy(), np.fft.fftfreq(n, d))
            np.testing.assert_allclose(ember.fft.rfftfreq(n, d, dtype=ember.float64).numpy(), np.fft.rfftfreq(n, d))
    x = np.arange(30.0).reshape(5, 6)
    t = ember.from_numpy(x)
    np.testing.assert_array_equal(ember.fft.fftshift(t).numpy(), np.fft.fftshift(x))
    np.testing.assert_array_equal(ember.fft.ifftshift(t, dim=1).numpy(), np.fft.ifftshift(x, axes=1))
    np.testing.assert_array_equal(ember.fft.ifftshift(ember.fft.fftshift(t)).numpy(), x)


def test_gradients_of_long_and_prime_transforms():
    # the op table's gradchecks use short lines; these reach Bluestein and the radix-8 passes
    for n in (37, 64):
        x = ember.from_numpy(_data((n,), "float64", seed=n)).requires_grad_()
        assert ember.autograd.gradcheck(lambda v: ember.fft.rfft(v, norm="ortho"), (x,), fast_mode=True)
        z = ember.from_numpy(_data((2, n), "complex128", seed=n + 1)).requires_grad_()
        assert ember.autograd.gradcheck(lambda v: ember.fft.irfft(v, dim=1), (z,), fast_mode=True)
        assert ember.autograd.gradgradcheck(lambda v: ember.fft.fft(v, n=n + 3), (z,), fast_mode=True)


def test_vector_paths_in_double_and_every_instruction_set():
    """Row and column groups take register transposes in the AVX builds; the Default build
    (EMBER_CPU_CAPABILITY=default) runs the scalar copies: all agree with numpy."""
    import os
    import subprocess
    import sys
    code = (
        "import numpy as np, ember\n"
        "rng = np.random.default_rng(9)\n"
        "for dt, tol in (('complex128', 1e-12), ('complex64', 1e-5)):\n"
        "    x = (rng.standard_normal((48, 64)) + 1j * rng.standard_normal((48, 64))).astype(dt)\n"
        "    t = ember.from_numpy(x)\n"
        "    for got, ref in ((ember.fft.fft(t), np.fft.fft(x.astype(complex))),\n"
        "                     (ember.fft.ifft(t, dim=0), np.fft.ifft(x.astype(complex), axis=0)),\n"
        "                     (ember.fft.fft2(t, s=(40, 66)), np.fft.fft2(x.astype(complex), s=(40, 66))),\n"
        "                     (ember.fft.rfft(t.real.contiguous()), np.fft.rfft(x.real.astype(float))),\n"
        "                     (ember.fft.irfft(t, 126), np.fft.irfft(x.astype(complex), 126))):\n"
        "        err = np.abs(got.numpy() - ref).max() / np.abs(ref).max()\n"
        "        assert err <= tol, (dt, err)\n"
        "print('ok')\n")
    for cap in ("default", "avx2", "avx512"):
        env = dict(os.environ, EMBER_CPU_CAPABILITY=cap)
        r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
        assert r.returncode == 0 and r.stdout.strip() == "ok", (cap, r.stderr[-2000:])


def test_stft_istft_round_trip():
    x = ember.from_numpy(_data((3, 1000), "float64", seed=10))
    hann = ember.from_numpy(0.5 - 0.5 * np.cos(2 * np.pi * np.arange(64) / 64))
    spec = ember.stft(x, 64, hop_length=16, window=hann, return_complex=True)
    assert tuple(spec.shape) == (3, 33, 63)
    back = ember.istft(spec, 64, hop_length=16, window=hann, length=1000)
    np.testing.assert_allclose(back.numpy(), x.numpy(), atol=1e-12)
    assert x.stft(64, return_complex=True).shape == spec.shape
