"""ember.func, _forward part (re-exported by ember.func)."""
__all__ = []
