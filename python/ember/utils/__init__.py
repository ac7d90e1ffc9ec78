"""Utilities mirroring torch.utils."""

from . import dlpack  # noqa: F401
