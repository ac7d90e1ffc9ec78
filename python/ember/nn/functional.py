"""ember.nn.functional: the functional forms of the layers (torch.nn.functional).

Most entries are ops declared once in C++ (and so also ember.<name>); this module gives
them torch.nn.functional's Python signatures where those differ (inplace= flags, reduction
strings, optional arguments)."""
from .. import _C
from ._functional_conv import *  # noqa: F401,F403
from ._functional_loss import *  # noqa: F401,F403
