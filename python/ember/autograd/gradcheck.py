"""gradcheck and gradgradcheck (torch.autograd's): analytical gradients against central
differences, for real and complex (conjugate Wirtinger) inputs."""

import numpy as np

from .. import _C


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the gradients do not match (unless raise_exception=False)."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(func, inputs):
    return [o for o in _as_tuple(func(*inputs)) if isinstance(o, _C.Tensor) and (o.is_floating_point() or o.is_complex())]


def _numerical_jacobian(func, inputs, k, eps):
    """d outputs / d inputs[k] by central differences: per output, an array (numel_out, numel_in),
    complex entries df/dRe + i df/dIm... kept as the two real parts."""
    x = inputs[k]
    flat = x.detach().reshape(-1)  # a view when x is contiguous; otherwise written back below
    parts = [(1.0, "re")] + ([(1j, "im")] if x.is_complex() else [])
    result = []
    for step, _ in parts:
        cols = []
        for i in range(x.numel()):
            vals = []
            for sign in (1, -1):
                orig = flat[i].item()
                _set(x, flat, i, orig + sign * eps * step)
                # Evaluated with grad mode on: gradgradcheck's function differentiates inside.
                outs = [o.detach().clone() for o in _outputs(func, inputs)]
                _set(x, flat, i, orig)
                vals.append(outs)
            cols.append([(p.numpy() - m.numpy()).reshape(-1) / (2 * eps) for p, m in zip(*vals)])
        result.append(cols)
    return result


def _set(x, flat, i, value):
    """Writes element i of x (through its flattened copy when x is not contiguous)."""
    with _NoGrad():
        flat[i] = value
        if not x.is_contiguous():
            x.detach().copy_(flat.reshape(x.shape))


class _NoGrad:
    def __enter__(self):
        self.prev = _C._is_grad_enabled()
        _C._set_grad_enabled(False)

    def __exit__(self, *exc):
        _C._set_grad_enabled(self.prev)


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True, **unused):
    """Checks the gradients of func at inputs (float64/complex128 recommended) against central
    differences: for every output element o and input element x, the analytical
    d o / d x (from autograd.grad with a one-hot grad_output) must match."""
    from . import grad as autograd_grad
    inputs = _as_tuple(inputs)
    diff = [k for k, x in enumerate(inputs) if isinstance(x, _C.Tensor) and x.requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient")
    outs = _outputs(func, inputs)
    for k in diff:
        num = _numerical_jacobian(func, inputs, k, eps)
        x = inputs[k]
        for j, o in enumerate(outs):
            for e in range(o.numel()):
                # The gradient for grad_output = one-hot(e) (and i * one-hot for complex outputs).
                for gscale, gname in ([(1.0, "re")] + ([(1j, "im")] if o.is_complex() else [])):
                    g = _C.zeros(o.shape, dtype=o.dtype)
                    g.reshape(-1)[e] = gscale
                    outs_now = _outputs(func, inputs)
                    (a,) = autograd_grad([outs_now[j]], [x], [g], allow_unused=True)
                    a = np.zeros(x.shape, dtype=np.complex128 if x.is_complex() else np.float64).reshape(-1) \
                        if a is None else a.detach().numpy().reshape(-1)
                    # Expected: conj-Wirtinger gradient of Re(conj(g) * o): dRe/dx_re + i dRe/dx_im.
                    d_re = np.array([np.real(np.conj(gscale) * col[j][e]) for col in num[0]])
                    want = d_re.astype(np.complex128) if x.is_complex() else d_re
                    if x.is_complex():
                        want = want + 1j * np.array([np.real(np.conj(gscale) * col[j][e]) for col in num[1]])
                    if not np.allclose(a, want, rtol=rtol, atol=atol):
                        msg = (f"Jacobian mismatch for output {j} ({gname} part of element {e}) with respect to "
                               f"input {k},\nnumerical:{want}\nanalytical:{a}\n")
                        if raise_exception:
                            raise GradcheckError(msg)
                        return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
                  **unused):
    """gradcheck of the first derivative: the function (inputs, grad_outputs) -> the input
    gradients computed with create_graph=True."""
    from . import grad as autograd_grad
    inputs = _as_tuple(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = []
        for o in outs:
            v = rng.standard_normal(tuple(o.shape))
            if o.is_complex():
                v = v + 1j * rng.standard_normal(tuple(o.shape))
            grad_outputs.append(_C.tensor(v, dtype=o.dtype).requires_grad_())
    grad_outputs = list(_as_tuple(grad_outputs))
    n = len(inputs)
    diff = [k for k, x in enumerate(inputs) if isinstance(x, _C.Tensor) and x.requires_grad]

    def first(*args):
        xs, gs = args[:n], args[n:]
        r = autograd_grad(_outputs(func, xs), [xs[k] for k in diff], list(gs), create_graph=True, allow_unused=True)
        return tuple(t for t in r if t is not None)

    return gradcheck(first, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
