"""Derivatives of whole functions (torch.autograd.functional): vjp, jvp, jacobian, hessian,
vhp and hvp.

The computations are C++ (src/autograd/functional.cpp); this module checks the argument
types with PyTorch's messages and passes each Tensor-or-tuple as (is_tuple, tuple).
"""

from .. import _C

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


def _as_tuple(inp, arg_name, fn_name):
    """(whether inp was a tuple, inp as a tuple), checking that it holds Tensors."""
    is_tuple = isinstance(inp, tuple)
    if not is_tuple:
        inp = (inp,)
    for i, el in enumerate(inp):
        if not isinstance(el, _C.Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"the {where} has type {type(el)}.")
    return is_tuple, inp


def _function(func, fn_name):
    """func as the C++ side calls it: returning (is_tuple, outputs)."""
    def call(*args):
        return _as_tuple(func(*args), "outputs of the user-provided function", fn_name)
    return call


def _product(fn_name, func, inputs, v, create_graph, strict):
    """vjp, jvp, vhp or hvp: (func(inputs), the product with v)."""
    is_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    v = None if v is None else _as_tuple(v, "v", fn_name)[1]
    return getattr(_C, "_functional_" + fn_name)(_function(func, fn_name), is_tuple, inputs, v, create_graph, strict)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), the vector-Jacobian product v^T J)."""
    return _product("vjp", func, inputs, v, create_graph, strict)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), the Jacobian-vector product J v), by the double-backward trick."""
    return _product("jvp", func, inputs, v, create_graph, strict)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of func at inputs: a Tensor, a tuple over inputs or outputs, or a tuple
    (over outputs) of tuples (over inputs)."""
    assert strategy in ("forward-mode", "reverse-mode"), (
        'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your function has more outputs '
        'than inputs, "forward-mode" tends to be more performant. Otherwise, prefer to use "reverse-mode".')
    is_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    res = _C._functional_jacobian(_function(func, "jacobian"), is_tuple, inputs, create_graph, strict, vectorize,
                                  strategy)
    return _as_lists(res) if strategy == "forward-mode" and is_tuple else res


def _as_lists(res):
    """PyTorch's forward-mode jacobian (_jacfwd) nests lists, not tuples, where the inputs are a tuple."""
    return [_as_lists(r) for r in res] if isinstance(res, tuple) else res


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a func returning a single-element Tensor, nested over the inputs like
    jacobian's result."""
    is_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    assert outer_jacobian_strategy in ("forward-mode", "reverse-mode"), (
        'Expected strategy to be either "forward-mode" or "reverse-mode".')
    res = _C._functional_hessian(_function(func, "hessian"), is_tuple, inputs, create_graph, strict, vectorize,
                                 outer_jacobian_strategy)
    return _as_lists(res) if outer_jacobian_strategy == "forward-mode" and is_tuple else res


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), the vector-Hessian product v^T H) of a func returning one element."""
    return _product("vhp", func, inputs, v, create_graph, strict)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(inputs), the Hessian-vector product H v), by the double-backward trick."""
    return _product("hvp", func, inputs, v, create_graph, strict)
