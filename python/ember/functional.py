"""Functions whose Python signatures differ from their ops' schemas (like torch.functional):
varargs and polymorphic arguments are normalised here, then the op runs."""

from . import _C

__all__ = ["einsum", "tensordot", "chain_matmul", "real", "imag"]


def einsum(equation, *operands):
    """einsum(equation, *operands) or einsum(equation, [operands])."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    return _C.einsum(equation, list(operands))


def tensordot(a, b, dims=2, out=None):
    """Contracts the last `dims` dims of a with the first of b, or the dims listed in
    dims = (dims_a, dims_b)."""
    if isinstance(dims, int) or (hasattr(dims, "dim") and dims.dim() == 0):
        result = _C.tensordot(a, b, int(dims))
    else:
        if hasattr(dims, "tolist"):
            dims = dims.tolist()
        if not isinstance(dims, (list, tuple)) or len(dims) != 2:
            raise RuntimeError("tensordot expects dims to be a pair of lists or an int, got " + repr(dims))
        dims_a, dims_b = ([d] if isinstance(d, int) else list(d) for d in dims)
        result = _C.tensordot(a, b, dims_a, dims_b)
    if out is not None:
        out.resize_(result.shape).copy_(result)
        return out
    return result


def chain_matmul(*matrices, out=None):
    """The product of the matrices, multiplied in the cheapest order."""
    if len(matrices) == 1 and isinstance(matrices[0], (list, tuple)):
        matrices = matrices[0]
    result = _C.chain_matmul(list(matrices))
    if out is not None:
        out.resize_(result.shape).copy_(result)
        return out
    return result


def real(input):
    """The real part: a view for complex input, the input itself otherwise (torch.real)."""
    return input.real


def imag(input):
    """The imaginary part of a complex tensor, as a view (torch.imag)."""
    return input.imag
