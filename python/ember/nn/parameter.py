"""Parameter: a Tensor that a Module registers as one of its parameters."""
__all__ = ["Parameter"]
Parameter = None  # filled in by the nn.Module work
