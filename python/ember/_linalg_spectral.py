"""ember.linalg, spectral part (re-exported by ember.linalg)."""
__all__ = []
