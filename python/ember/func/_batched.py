"""ember.func, _batched part (re-exported by ember.func)."""
__all__ = []
