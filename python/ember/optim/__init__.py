"""ember.optim: torch.optim's optimizers (PyTorch 1.13 semantics). The element-wise updates
run in fused multi-tensor ops (ember._C._fused_sgd_, _fused_adam_, ...): one call per
parameter group, one pass over memory per parameter."""
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam  # noqa: F401
from .adamw import AdamW  # noqa: F401
from .rmsprop import RMSprop  # noqa: F401
from .adagrad import Adagrad  # noqa: F401
from .adadelta import Adadelta  # noqa: F401
from .adamax import Adamax  # noqa: F401
from .nadam import NAdam  # noqa: F401
from .radam import RAdam  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401

from . import lr_scheduler  # noqa: F401
