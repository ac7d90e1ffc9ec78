"""DLPack exchange, as torch.utils.dlpack: zero-copy tensors shared with other libraries."""

from .._C import from_dlpack, to_dlpack

__all__ = ["from_dlpack", "to_dlpack"]
