"""Python-level APIs of torch.functional that differ from their op schemas: norm (string p,
int or None dim), unique and unique_consecutive (a tensor or a tuple, depending on the flags).
They call the schema-bound ops in ember._C, as torch.functional calls _VF."""

from . import _C


def _frobenius(input, dim, keepdim, out):
    if len(dim) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dim)} dimensions instead.")
    if out is None:
        return _C.norm(input, 2, list(dim), keepdim)
    return _C.norm(input, 2, list(dim), keepdim, out=out)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):  # noqa: A002 - torch's names
    """The matrix or vector norm of input over dim (every dim when None), as torch.norm."""
    ndim = input.dim()
    if isinstance(dim, int):
        dim = [dim]
    if isinstance(p, str):
        if p == "fro":
            if dtype is not None:
                raise ValueError("dtype argument is not supported in frobenius norm")
            return _frobenius(input, list(range(ndim)) if dim is None else dim, keepdim, out)
        if p == "nuc":
            if dtype is not None:
                raise ValueError("dtype argument is not supported in nuclear norm")
            if dim is None and ndim != 2:
                raise RuntimeError(f"Expected a tensor with 2 dimensions, but got a {ndim} dimensions tensor instead.")
            r = _C.linalg_matrix_norm(input, "nuc", [-2, -1] if dim is None else list(dim), keepdim)
            if out is None:
                return r
            out.resize_(r.shape)
            return out.copy_(r)
        raise RuntimeError(f"only valid string values are 'fro' and 'nuc', found {p}")
    dims = list(range(ndim)) if dim is None else list(dim)
    kwargs = {"dim": dims, "keepdim": keepdim}
    if dtype is not None:
        kwargs["dtype"] = dtype
    if out is not None:
        kwargs["out"] = out
    return _C.norm(input, p, **kwargs)


def _unique_result(output, inverse, counts, return_inverse, return_counts):
    if return_inverse and return_counts:
        return output, inverse, counts
    if return_inverse:
        return output, inverse
    if return_counts:
        return output, counts
    return output


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """The unique elements (or slices along dim) of input, sorted; optionally the inverse
    indices and the counts, as torch.unique."""
    if dim is not None:
        output, inverse, counts = _C.unique_dim(input, dim, sorted=sorted, return_inverse=return_inverse,
                                                return_counts=return_counts)
    else:
        # _unique2 is not exposed (a private name): unique over dim 0 of the flattened input is
        # the same computation.
        output, inverse, counts = _C.unique_dim(input.reshape(-1), 0, sorted=sorted, return_inverse=return_inverse,
                                                return_counts=return_counts)
        if return_inverse:
            inverse = inverse.reshape(input.shape)
    return _unique_result(output, inverse, counts, return_inverse, return_counts)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):  # noqa: A002
    """input with runs of equal consecutive elements (or slices) collapsed, as
    torch.unique_consecutive."""
    output, inverse, counts = _C.unique_consecutive(input, return_inverse=return_inverse,
                                                    return_counts=return_counts, dim=dim)
    return _unique_result(output, inverse, counts, return_inverse, return_counts)


def install(namespace, tensor_cls):
    """Puts the wrappers in the ember namespace and on Tensor (as torch.Tensor's methods)."""
    namespace.update(norm=norm, unique=unique, unique_consecutive=unique_consecutive)
    tensor_cls.norm = lambda self, p="fro", dim=None, keepdim=False, dtype=None: norm(
        self, p, dim, keepdim, dtype=dtype)
    tensor_cls.unique = lambda self, sorted=True, return_inverse=False, return_counts=False, dim=None: unique(
        self, sorted, return_inverse, return_counts, dim)
    tensor_cls.unique_consecutive = lambda self, return_inverse=False, return_counts=False, dim=None: (
        unique_consecutive(self, return_inverse, return_counts, dim))
