"""ember.nn: layers, their functional forms, initialisation and utilities (torch.nn)."""
from . import functional  # noqa: F401
from . import init  # noqa: F401
from . import utils  # noqa: F401
from .parameter import Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401
from .modules import *  # noqa: F401,F403
