"""ember.save / ember.load (torch.save / torch.load) in the safetensors format: loading a file
runs no code, unlike pickle. See docs/ARCHITECTURE.md, "Serialization"."""

import os

from . import _C

__all__ = ["save", "load"]


def _is_path(f):
    return isinstance(f, (str, os.PathLike))


def save(obj, f):
    """Saves obj (tensors, and dict/list/tuple/int/float/bool/str/None containers of them) to
    f, a path or a binary file object. A path is replaced atomically: on error the previous
    file is kept. Parameters are saved as plain tensors; a tensor object reached several
    times is stored once and comes back as one object. Any other type raises TypeError
    before anything is written."""
    if _is_path(f):
        path = os.fspath(f)
        if not isinstance(path, str):
            path = os.fsdecode(path)
        _C._save(obj, path)
    else:
        f.write(_C._save_to_bytes(obj))


def load(f, map_location=None):
    """Loads what ember.save wrote (or any safetensors file) from a path or a binary file
    object. map_location is accepted for torch compatibility; only the CPU exists here.
    A malformed file raises RuntimeError naming the file and the problem."""
    if map_location is not None and not _is_cpu(map_location):
        raise ValueError(f"ember.load: map_location={map_location!r} is not supported (CPU only)")
    if _is_path(f):
        path = os.fspath(f)
        if not isinstance(path, str):
            path = os.fsdecode(path)
        with open(path, "rb") as fh:  # FileNotFoundError & co. as Python raises them
            return _C._load_fd(fh.fileno(), path)
    name = getattr(f, "name", None)
    return _C._load_bytes(f.read(), name if isinstance(name, str) else "<file object>")


def _is_cpu(location):
    if isinstance(location, str):
        return location.split(":")[0] == "cpu"
    return getattr(location, "type", None) == "cpu"
