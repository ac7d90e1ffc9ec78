"""Experimental ember.fx passes (torch.fx.experimental)."""
from .optimization import PackedConv2d, optimize_for_inference  # noqa: F401

__all__ = ["optimize_for_inference", "PackedConv2d"]
