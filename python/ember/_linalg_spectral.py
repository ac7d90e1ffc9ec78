"""ember.linalg, spectral part (re-exported by ember.linalg): decompositions, least squares,
pseudo-inverse and rank, norms and products. The ops are schema-bound in ember._C
(src/ops/linalg_spectral*.cpp), out= included (their .out overloads); the wrappers below add
it for pinv, matrix_rank and cond (results written into the given tensors, which are returned)."""
from . import _C

__all__ = ["eigh", "eigvalsh", "eig", "eigvals", "svd", "svdvals", "qr", "householder_product", "pinv",
           "matrix_rank", "lstsq", "norm", "vector_norm", "matrix_norm", "multi_dot", "matrix_exp", "cross",
           "vecdot", "vander", "diagonal", "cond"]


def _tensors(args):
    for a in args:
        if isinstance(a, _C.Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from _tensors(a)


def _write(name, results, out):
    """Copies results into out (a tensor, or a tuple for several results) as torch does:
    same dtype required, resized to the result's shape."""
    single = not isinstance(out, (tuple, list))
    outs = (out,) if single else tuple(out)
    res = (results,) if single else tuple(results)
    if len(outs) != len(res):
        raise TypeError(f"{name}(): expected out to be a tuple of {len(res)} tensors, but got {len(outs)}")
    for o, r in zip(outs, res):
        if not isinstance(o, _C.Tensor):
            raise TypeError(f"{name}(): argument 'out' must be a Tensor or a tuple of Tensors")
        if o.dtype != r.dtype:
            raise RuntimeError(f"Expected out tensor to have dtype {r.dtype}, but got {o.dtype} instead")
    for o, r in zip(outs, res):
        if tuple(o.shape) != tuple(r.shape):
            o.resize_(r.shape)
        o.copy_(r)
    if single:
        return out
    try:
        return type(results)(outs)
    except TypeError:
        return tuple(outs)


def _out_form(name, fn):
    def run(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if _C._is_grad_enabled() and any(t.requires_grad for t in _tensors(list(args) + list(kwargs.values()))):
            raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
        return _write(name, fn(*args, **kwargs), out)
    run.__name__ = name.split("_", 1)[-1] if name.startswith("linalg_") else name
    run.__doc__ = getattr(fn, "__doc__", None)
    return run


# out= of these is the dispatcher's .out overload (src/ops/linalg_spectral_composite.cpp)
eigh, eigvalsh, eig, eigvals = _C.linalg_eigh, _C.linalg_eigvalsh, _C.linalg_eig, _C.linalg_eigvals
svd, svdvals, qr = _C.linalg_svd, _C.linalg_svdvals, _C.linalg_qr
householder_product = _C.linalg_householder_product
pinv = _out_form("linalg_pinv", _C.linalg_pinv)
lstsq = _C.linalg_lstsq  # no out= in torch
vector_norm, multi_dot = _C.linalg_vector_norm, _C.linalg_multi_dot
matrix_exp = _C.linalg_matrix_exp  # no out= in torch
cross, vecdot = _C.linalg_cross, _C.linalg_vecdot
vander = _C.linalg_vander
diagonal = _C.linalg_diagonal


def _matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """torch.linalg.matrix_rank: `tol` (deprecated) is atol with rtol 0."""
    if tol is not None:
        if atol is not None or rtol is not None:
            raise RuntimeError("torch.linalg.matrix_rank: tol and atol/rtol cannot be given at the same time")
        return _C.linalg_matrix_rank(A, tol, hermitian)
    return _C.linalg_matrix_rank(A, atol=atol, rtol=rtol, hermitian=hermitian)


matrix_rank = _out_form("linalg_matrix_rank", _matrix_rank)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):  # noqa: A002 - torch's name
    """torch.linalg.matrix_norm (dim may be any sequence)."""
    kw = {} if out is None else {"out": out}
    return _C.linalg_matrix_norm(A, ord, list(dim), keepdim, dtype=dtype, **kw)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A002 - torch's name
    """torch.linalg.norm (dim may be an int or any sequence)."""
    if isinstance(dim, int):
        dim = [dim]
    kw = {} if out is None else {"out": out}
    return _C.linalg_norm(A, ord, None if dim is None else list(dim), keepdim, dtype=dtype, **kw)


cond = _out_form("linalg_cond", _C.linalg_cond)  # src/ops/linalg_cond.cpp


def _orgqr(input, tau):  # noqa: A002 - torch's name
    """torch.orgqr: linalg.householder_product."""
    return _C.linalg_householder_product(input, tau)


def _install():
    """torch.orgqr and Tensor.orgqr (the package is mid-import here: ember._C is complete)."""
    import sys
    sys.modules[__name__.rsplit(".", 1)[0]].orgqr = _orgqr
    _C.Tensor.orgqr = _orgqr


_install()
