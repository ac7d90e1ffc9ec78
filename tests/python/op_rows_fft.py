"""Op-table rows of torch.fft (src/ops/fft.cpp, python/ember/fft.py): every transform in its
1-D, 2-D and n-D form, their out= forms, the three primitives, frequencies and shifts.
Accuracy against numpy.fft over the issue's sizes is in test_fft.py."""
import ember

from op_testing import COMPLEX, INTEGRAL, ErrorSample, OpInfo, Sample, T

# Integers and bool compute in the default float dtype; PyTorch 1.13 has no 16-bit FFTs.
ANY_IN = ("bool",) + INTEGRAL + ("float32", "float64") + COMPLEX
REAL_IN = ("bool",) + INTEGRAL + ("float32", "float64")
TOL = {"complex64": (2e-5, 2e-5), "float32": (2e-5, 2e-5), "complex128": (1e-10, 1e-10),
       "float64": (1e-10, 1e-10)}
R = dict(low=-2, high=2)


def _fn(name):
    def run(lib, x, **k):
        return getattr(lib.fft, name)(x, **k)
    return run


def _out(name):
    def run(lib, x, o=None, **k):
        if o is not None:  # error samples: an out tensor of the wrong kind
            return getattr(lib.fft, name)(x, out=o, **k)
        r = getattr(lib.fft, name)(x, **k)
        o = lib.empty((0,), dtype=r.dtype)
        assert getattr(lib.fft, name)(x, out=o, **k) is o
        return o
    return run


def _samples_1d(c2r):
    def samples(dtype):
        s = [Sample([T((8,), **R)], name="8"),
             Sample([T((7,), **R)], name="odd"),
             Sample([T((3, 10), **R)], name="batch"),
             Sample([T((4, 6), **R)], {"dim": 0}, name="dim0"),
             Sample([T((2, 9), **R)], {"n": 12}, name="pad"),
             Sample([T((2, 9), **R)], {"n": 5}, name="trim"),
             Sample([T((3, 8), **R)], {"norm": "ortho"}, name="ortho"),
             Sample([T((3, 8), **R)], {"norm": "forward", "n": 7}, name="forward"),
             Sample([T((3, 8), noncontig=True, **R)], name="noncontig"),
             Sample([T((4, 5, 6), transpose=True, **R)], {"dim": 1}, name="transposed"),
             Sample([T((2, 37), **R)], name="prime-bluestein"),
             Sample([T((0, 4), **R)], name="zero-size"),
             ]
        s.append(Sample([T((3, 2), **R)], {"n": 1} if c2r else {}, name="short"))
        if c2r:
            s.append(Sample([T((2, 6), **R)], {"n": 11}, name="odd-out"))
        return s
    return samples


def _samples_nd(two):
    def samples(dtype):
        s = [Sample([T((4, 6), **R)], name="2d"),
             Sample([T((3, 4, 5), **R)], name="3d"),
             Sample([T((3, 4, 5), **R)], {"s": (6, 4)}, name="s"),
             Sample([T((3, 4, 5), **R)], {"dim": (0, 2)}, name="dims"),
             Sample([T((3, 4, 6), **R)], {"s": (2, -1), "dim": (2, 0), "norm": "ortho"}, name="s-dims"),
             Sample([T((5, 6), noncontig=True, **R)], {"norm": "forward"}, name="noncontig"),
             Sample([T((4, 5, 3), transpose=True, **R)], name="transposed"),
             Sample([T((0, 4, 6), **R)], {"dim": (1, 2)}, name="zero-size"),
             ]
        if not two:
            s.append(Sample([T((3, 4, 5), **R)], {"s": (4, 7, 6)}, name="all-s"))
        return s
    return samples


def _errors(name, real_only, c2r):
    def errors():
        e = [ErrorSample([T((4, 5))], {"dim": 2} if not name.endswith(("2", "n")) else {"dim": (0, 2)},
                         IndexError, "Dimension out of range"),
             ErrorSample([T((4, 5))], {"norm": "bad"}, RuntimeError, 'Invalid normalization mode: "bad"'),
             ErrorSample([T((4, 5), dtype="float16")], {}, RuntimeError, "Unsupported dtype Half")]
        if name.endswith(("2", "n")):
            e += [ErrorSample([T((4, 5))], {"dim": (0, 0)}, RuntimeError, "FFT dims must be unique"),
                  ErrorSample([T((4, 5))], {"s": (3,), "dim": (0, 1)}, RuntimeError,
                              "dim and shape arguments must have the same length"),
                  ErrorSample([T((4, 5))], {"s": (0, 3)}, RuntimeError, r"Invalid number of data points \(0\)")]
            if name.endswith("n"):
                e.append(ErrorSample([T((4, 5))], {"s": (3, 3, 3)}, RuntimeError,
                                     "Got shape with 3 values but input tensor only has 2 dimensions"))
        else:
            e.append(ErrorSample([T((4, 5))], {"n": 0}, RuntimeError, r"Invalid number of data points \(0\)"))
            e.append(ErrorSample([T((4, 5))], {"n": -3}, RuntimeError, r"Invalid number of data points \(-3\)"))
        if real_only:
            e.append(ErrorSample([T((4, 5), dtype="complex64")], {}, RuntimeError,
                                 f"{name} expects a real input tensor, but got ComplexFloat"))
        if c2r and not name.endswith(("2", "n")):
            e.append(ErrorSample([T((4, 1), dtype="complex64")], {}, RuntimeError,
                                 r"Invalid number of data points \(0\)"))
        return e
    return errors


def _out_errors(c2r):
    bad = "complex64" if c2r else "float32"
    msg = "expects a floating point output tensor" if c2r else "expects a complex output tensor"
    return lambda: [ErrorSample([T((4, 6)), T((0,), dtype=bad)], {}, RuntimeError, msg)]


ROWS = []
for _base, _real_only, _c2r in (("fft", False, False), ("ifft", False, False), ("rfft", True, False),
                                ("irfft", False, True), ("hfft", False, True), ("ihfft", True, False)):
    _dtypes = REAL_IN if _real_only else ANY_IN
    for _suffix in ("", "2", "n"):
        _name = _base + _suffix
        _samples = _samples_1d(_c2r) if not _suffix else _samples_nd(_suffix == "2")
        ROWS.append(OpInfo(f"fft_{_name}", _fn(_name), _dtypes, _samples, _errors(_name, _real_only, _c2r), tol=TOL))
        ROWS.append(OpInfo(f"fft_{_name}_out", _out(_name), _dtypes, lambda d, s=_samples: s(d)[:3],
                           _out_errors(_c2r), tol=TOL))


def _prim(name, *args):
    def run(lib, x, **k):
        mod = ember._C if lib is ember else lib
        return getattr(mod, name)(x, *args, **k)
    return run


ROWS += [
    OpInfo("_fft_c2c", _prim("_fft_c2c", [0, 1], 1, False), COMPLEX,
           lambda d: [Sample([T((3, 5), **R)]), Sample([T((4, 6), noncontig=True, **R)])],
           lambda: [ErrorSample([T((3, 4))], {}, RuntimeError, "Expected self.is_complex")], tol=TOL),
    OpInfo("_fft_r2c", _prim("_fft_r2c", [1], 2, True), ("float32", "float64"),
           lambda d: [Sample([T((3, 6), **R)]), Sample([T((3, 7), **R)])],
           lambda: [ErrorSample([T((3, 4), dtype="complex64")], {}, RuntimeError,
                                "Expected self.is_floating_point")], tol=TOL),
    OpInfo("_fft_c2r", _prim("_fft_c2r", [0, 1], 0, 7), COMPLEX,
           lambda d: [Sample([T((3, 4), **R)]), Sample([T((2, 4), noncontig=True, **R)])],
           lambda: [ErrorSample([T((3, 4))], {}, RuntimeError, "Expected self.is_complex")], tol=TOL),
]


def _freq(name):
    def run(lib, n, dt, **k):
        return getattr(lib.fft, name)(n, dtype=getattr(lib, dt), **k)
    return run


ROWS += [
    *[OpInfo(f"fft_{n}", _freq(n), ("float16", "bfloat16", "float32", "float64"),
             lambda d: [Sample([5, d]), Sample([6, d], {"d": 0.25}), Sample([1, d]), Sample([0, d])],
             lambda: [ErrorSample([5, "int64"], {}, RuntimeError, "requires a floating point or complex dtype")])
      for n in ("fftfreq", "rfftfreq")],
    *[OpInfo(f"fft_{n}", _fn(n), ANY_IN + ("float16", "bfloat16"),
             lambda d: [Sample([T((5,))]), Sample([T((4, 5))]), Sample([T((4, 5, 6))], {"dim": (0, -1)}),
                        Sample([T((4, 7))], {"dim": 1})])
      for n in ("fftshift", "ifftshift")],
]


def _stft(lib, x, w=None, **k):
    return lib.stft(x, window=w, return_complex=True, **k)


def _istft(lib, x, w=None, **k):
    return lib.istft(x, window=w, **k)


ROWS += [
    OpInfo("stft", _stft, ("float32", "float64") + COMPLEX,
           lambda d: [Sample([T((2, 64), **R)], {"n_fft": 16}),
                      Sample([T((40,), **R), T((10,), 0.1, 1, dtype="float64" if d in ("float64", "complex128")
                                              else "float32")],
                             {"n_fft": 12, "hop_length": 5, "win_length": 10}, name="window"),
                      Sample([T((2, 30), **R)], {"n_fft": 8, "center": False, "normalized": True}, name="plain"),
                      Sample([T((33,), **R)], {"n_fft": 9, "hop_length": 2, "pad_mode": "constant"}, name="odd")],
           lambda: [ErrorSample([T((2, 6))], {"n_fft": 8, "center": False}, RuntimeError, "n_fft"),
                    ErrorSample([T((2, 30))], {"n_fft": 8, "hop_length": 0}, RuntimeError, "hop_length > 0")],
           tol=TOL),
    OpInfo("istft", _istft, COMPLEX,
           lambda d: [Sample([T((9, 13), **R)], {"n_fft": 16}),
                      Sample([T((2, 7, 20), **R)], {"n_fft": 12, "hop_length": 3, "length": 60}, name="length"),
                      Sample([T((8, 11), **R), T((8,), 0.5, 1, dtype="float64" if d == "complex128" else "float32")],
                             {"n_fft": 8, "hop_length": 2, "onesided": False, "return_complex": True,
                              "center": False}, name="two-sided")],
           lambda: [ErrorSample([T((2, 9, 13))], {"n_fft": 16}, RuntimeError, "expected the last dimension to be 2"),
                    ErrorSample([T((8, 13), dtype="complex64")], {"n_fft": 16}, RuntimeError,
                                "match n_fft / 2 \\+ 1")],
           tol=TOL),
]
