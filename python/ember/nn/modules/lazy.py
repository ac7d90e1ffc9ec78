"""LazyModuleMixin: modules whose parameters' shapes come from their first input
(torch.nn.modules.lazy)."""
import itertools
import warnings

from ...autograd import no_grad
from ..parameter import _replace_materialized_buffers, is_lazy

__all__ = []  # LazyModuleMixin lives in ember.nn.modules.lazy, as in torch.nn


class LazyModuleMixin:
    """A mixin for modules that initialize their parameters lazily ("lazy modules").

    Until their first forward they hold UninitializedParameter s (and UninitializedBuffer s),
    which can change dtype and device but not be used; a forward pre-hook then calls
    initialize_parameters with the first input, which materializes them with the inferred
    shapes, and the module becomes its `cls_to_become` (LazyLinear becomes Linear, ...).
    Their state_dict holds the uninitialized parameters as they are, and loading a state
    with initialized ones materializes them (the module is converted at its next forward)."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters)
        warnings.warn("Lazy modules are a new feature under heavy development so changes to the API or "
                      "functionality can happen at any moment.")

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        # Uninitialized parameters and buffers are saved as they are (not detached).
        for name, param in self._parameters.items():
            if param is not None:
                if not (is_lazy(param) or keep_vars):
                    param = param.detach()
                destination[prefix + name] = param
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                if not (is_lazy(buf) or keep_vars):
                    buf = buf.detach()
                destination[prefix + name] = buf

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                        error_msgs):
        """load_state_dict pre-hook: an uninitialized parameter or buffer that is loaded with an
        initialized value is first materialized with that value's shape."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None:
                input_param = state_dict[key]
                if is_lazy(param) and not is_lazy(input_param):
                    with no_grad():
                        param.materialize(input_param.shape)
        _replace_materialized_buffers(self)

    def initialize_parameters(self, *args, **kwargs):
        """Materializes and initializes the parameters from the first input's properties."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self):
        """Whether any of this module's own parameters or buffers is still uninitialized."""
        for param in itertools.chain(self._parameters.values(), self._buffers.values()):
            if is_lazy(param):
                return True
        return False

    def _infer_parameters(self, module, input):
        """The forward pre-hook: initializes the parameters from the first input, then removes
        itself and turns the module into cls_to_become."""
        module.initialize_parameters(*input)
        _replace_materialized_buffers(module)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with `DataParallel`. Run a dummy "
                           "forward pass to correctly initialize the modules")
