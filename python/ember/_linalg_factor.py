"""ember.linalg, factor part (re-exported by ember.linalg)."""
__all__ = []
