"""gradcheck and gradgradcheck (torch.autograd's): analytical gradients against central
differences, for real and complex (conjugate Wirtinger) inputs. Both run in C++
(src/autograd/gradcheck.cpp); these functions adapt torch's Python signatures."""

from .. import _C


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the gradients do not match (unless raise_exception=False)."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _tensor_function(func, inputs):
    """func over the tensors among inputs only (the other arguments stay as given), returning
    the tensors among its results."""
    positions = [i for i, x in enumerate(inputs) if isinstance(x, _C.Tensor)]

    def call(tensors):
        args = list(inputs)
        for p, t in zip(positions, tensors):
            args[p] = t
        return [o for o in _as_tuple(func(*args)) if isinstance(o, _C.Tensor)]

    return call, [inputs[p] for p in positions]


def _check(func, inputs, grad_outputs, second_order, eps, atol, rtol, raise_exception, check_undefined_grad,
           nondet_tol, check_grad_dtypes, fast_mode, gen_non_contig_grad_outputs=False):
    call, tensors = _tensor_function(func, _as_tuple(inputs))
    if grad_outputs is not None:
        grad_outputs = list(_as_tuple(grad_outputs))
    return _C._gradcheck(call, tensors, grad_outputs, second_order, eps, atol, rtol, raise_exception,
                         check_undefined_grad, nondet_tol, check_grad_dtypes, fast_mode, gen_non_contig_grad_outputs)


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, check_sparse_nnz=False,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
              check_batched_forward_grad=False, check_forward_ad=False, check_backward_ad=True, fast_mode=False):
    """Checks the gradients of func at inputs (float64/complex128 recommended) with respect to
    the tensors among them that require grad against central differences: the whole Jacobian,
    or v^T J u for random u, v with fast_mode. Sparse, batched and forward-mode checks are
    not supported (Ember has neither) and must stay off."""
    if check_sparse_nnz or check_batched_grad or check_batched_forward_grad or check_forward_ad:
        raise NotImplementedError("gradcheck: sparse, batched and forward-mode checks are not supported")
    if not check_backward_ad:
        return True
    return _check(func, inputs, None, False, eps, atol, rtol, raise_exception, check_undefined_grad, nondet_tol,
                  check_grad_dtypes, fast_mode)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False):
    """gradcheck of the first derivative: the function (inputs, grad_outputs) -> the input
    gradients computed with create_graph=True. Random grad_outputs (requiring grad) are made
    when none are given."""
    if check_batched_grad or check_fwd_over_rev:
        raise NotImplementedError("gradgradcheck: batched and forward-mode checks are not supported")
    if not check_rev_over_rev:
        return True
    return _check(func, inputs, grad_outputs, True, eps, atol, rtol, raise_exception, check_undefined_grad,
                  nondet_tol, check_grad_dtypes, fast_mode, gen_non_contig_grad_outputs)
