"""Utilities mirroring torch.utils."""

from . import dlpack  # noqa: F401


def __getattr__(name):
    # ember.utils.benchmark and .data load on first use, keeping `import ember` fast.
    if name in ("benchmark", "data"):
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
