"""ember.linalg: torch.linalg's functions (src/ops/linalg_*.cpp)."""
from ._C import LinAlgError  # noqa: F401
from ._linalg_factor import *  # noqa: F401,F403
from ._linalg_spectral import *  # noqa: F401,F403
