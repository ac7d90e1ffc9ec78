"""ember.func: composable function transforms under torch.func's (functorch's) names."""
from ._batched import *  # noqa: F401,F403  vmap, grad, grad_and_value, vjp, jacrev, hessian, functional_call
from ._forward import *  # noqa: F401,F403  jvp, jacfwd
