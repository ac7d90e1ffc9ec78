"""What a DataLoader worker thread knows about itself, and how its errors travel."""

import sys
import threading
import traceback

__all__ = ["WorkerInfo", "get_worker_info"]

_local = threading.local()


class WorkerInfo:
    """id, num_workers, seed (the iterator's base seed + id) and dataset of a worker thread.
    Read-only, as in torch."""

    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        fields = ", ".join(f"{k}={getattr(self, k)}" for k in self.__keys)
        return f"{self.__class__.__name__}({fields})"


def get_worker_info():
    """The WorkerInfo of the calling DataLoader worker thread, or None in any other thread."""
    return getattr(_local, "info", None)


def _set_worker_info(info):
    _local.info = info


class _KeyErrorMessage(str):
    # KeyError's str() shows the repr of its argument; this keeps the traceback readable.
    def __repr__(self):
        return self


class ExceptionWrapper:
    """An exception caught in a worker, re-raised in the iterating thread with its type and a
    message naming the worker and holding the original traceback."""

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        elif getattr(self.exc_type, "message", None):
            raise self.exc_type(message=msg)
        try:
            exception = self.exc_type(msg)
        except TypeError:
            # An exception type whose constructor takes other arguments.
            raise RuntimeError(msg) from None
        raise exception
