"""ember.utils.data.read_idx: the Fashion-MNIST files against a NumPy parse, every element
type, and hostile files written here (each prefix of a valid file, plain and gzip; bad magic,
types and dimension counts; sizes that overflow; trailing bytes)."""
import gzip
import os
import pathlib
import struct

import numpy as np
import pytest

import ember
from ember.utils.data import read_idx

FASHION = pathlib.Path("/usr/share/datasets/fashion-mnist")  # Debian package dataset-fashion-mnist


def numpy_idx(path):
    raw = gzip.open(path).read() if str(path).endswith(".gz") else open(path, "rb").read()
    ndim = raw[3]
    dims = struct.unpack(f">{ndim}I", raw[4:4 + 4 * ndim])
    dtype = {8: ">u1", 9: ">i1", 11: ">i2", 12: ">i4", 13: ">f4", 14: ">f8"}[raw[2]]
    return np.frombuffer(raw, dtype=dtype, offset=4 + 4 * ndim).reshape(dims)


def idx_bytes(code, array):
    dtype = {8: ">u1", 9: ">i1", 11: ">i2", 12: ">i4", 13: ">f4", 14: ">f8"}[code]
    head = bytes([0, 0, code, array.ndim]) + struct.pack(f">{array.ndim}I", *array.shape)
    return head + np.ascontiguousarray(array, dtype=dtype).tobytes()


@pytest.mark.parametrize("name,shape", [("train-images-idx3-ubyte.gz", (60000, 28, 28)),
                                        ("train-labels-idx1-ubyte.gz", (60000,)),
                                        ("t10k-images-idx3-ubyte.gz", (10000, 28, 28)),
                                        ("t10k-labels-idx1-ubyte.gz", (10000,))])
def test_fashion_mnist(name, shape):
    path = FASHION / name
    assert path.exists(), f"{path} is missing: install the Debian package dataset-fashion-mnist"
    t = read_idx(path)
    assert t.dtype == ember.uint8 and tuple(t.shape) == shape
    np.testing.assert_array_equal(t.numpy(), numpy_idx(path))


@pytest.mark.parametrize("code,dtype", [(8, np.uint8), (9, np.int8), (11, np.int16), (12, np.int32),
                                        (13, np.float32), (14, np.float64)])
@pytest.mark.parametrize("compress", [False, True])
def test_every_type(tmp_path, code, dtype, compress):
    rng = np.random.default_rng(code)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, size=(3, 4, 2), endpoint=True).astype(dtype)
    else:
        a = rng.standard_normal((3, 4, 2)).astype(dtype)
    data = idx_bytes(code, a)
    path = tmp_path / ("f.gz" if compress else "f")
    path.write_bytes(gzip.compress(data) if compress else data)
    t = read_idx(str(path))
    assert str(t.dtype) == f"ember.{np.dtype(dtype).name}"
    np.testing.assert_array_equal(t.numpy(), a)


def test_every_prefix_fails(tmp_path):
    data = idx_bytes(11, np.arange(6, dtype=np.int16).reshape(3, 2))
    comp = gzip.compress(data)
    for blob, name in ((data, "plain"), (comp, "gz")):
        path = tmp_path / name
        for n in range(len(blob)):
            path.write_bytes(blob[:n])
            with pytest.raises(RuntimeError, match="read_idx\\(\\): '.*" + name + "'"):
                read_idx(path)
        path.write_bytes(blob)
        assert read_idx(path).tolist() == [[0, 1], [2, 3], [4, 5]]


@pytest.mark.parametrize("blob,msg", [
    (b"\x01\x00\x08\x01\x00\x00\x00\x01x", "not an IDX file"),
    (b"\x89PNG\r\n\x1a\n", "not an IDX file"),
    (b"\x00\x00\x07\x01\x00\x00\x00\x01x", "unknown IDX type code 0x07"),
    (b"\x00\x00\x08\x00", "declares 0 dimensions"),
    (b"\x00\x00\x08\x09" + b"\x00\x00\x00\x01" * 9 + b"x", "declares 9 dimensions"),
    (b"\x00\x00\x0e\x03" + b"\xff\xff\xff\xff" * 3, "overflow"),
    (b"\x00\x00\x08\x02" + b"\x7f\xff\xff\xff" * 2 + b"abc", "truncated data"),
    (b"\x00\x00\x08\x01\x00\x00\x00\x02abc", "1 trailing bytes"),
])
@pytest.mark.parametrize("compress", [False, True])
def test_hostile_headers(tmp_path, blob, msg, compress):
    path = tmp_path / "bad"
    path.write_bytes(gzip.compress(blob) if compress else blob)
    if compress and msg == "1 trailing bytes":
        msg = "trailing bytes"
    with pytest.raises(RuntimeError, match=msg) as info:
        read_idx(path)
    assert str(path) in str(info.value)


def test_corrupt_gzip_and_missing_file(tmp_path):
    comp = bytearray(gzip.compress(idx_bytes(8, np.arange(50, dtype=np.uint8))))
    for i in range(12, len(comp) - 8):
        comp[i] ^= 0xFF
    (tmp_path / "c.gz").write_bytes(bytes(comp))
    with pytest.raises(RuntimeError, match="gzip"):
        read_idx(tmp_path / "c.gz")
    with pytest.raises(FileNotFoundError) as info:
        read_idx(tmp_path / "missing-idx1-ubyte.gz")
    assert "missing-idx1-ubyte.gz" in str(info.value)
    with pytest.raises(RuntimeError, match="not a regular file"):
        read_idx(os.fspath(tmp_path))
    with pytest.raises(TypeError):
        read_idx(3)
