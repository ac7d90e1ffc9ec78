"""The IDX file format of MNIST and Fashion-MNIST."""

import errno
import os

from ... import _C

__all__ = ["read_idx"]


def read_idx(path):
    """Reads an IDX file, plain or gzip-compressed, into a tensor of its element type (uint8,
    int8, int16, int32, float32 or float64). A malformed file raises RuntimeError naming the
    file and the problem; a missing one FileNotFoundError."""
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not os.path.exists(path):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    return _C._read_idx(path)
