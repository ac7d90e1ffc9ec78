"""ember.linalg, spectral part (re-exported by ember.linalg): decompositions, least squares,
pseudo-inverse and rank, norms and products. The ops are schema-bound in ember._C
(src/ops/linalg_spectral*.cpp, linalg_cond.cpp), out= included (their .out overloads, torch's
names); the wrappers below only adapt arguments."""
from . import _C

__all__ = ["eigh", "eigvalsh", "eig", "eigvals", "svd", "svdvals", "qr", "householder_product", "pinv",
           "matrix_rank", "lstsq", "norm", "vector_norm", "matrix_norm", "multi_dot", "matrix_exp", "cross",
           "vecdot", "vander", "diagonal", "cond"]


# out= of these is the dispatcher's .out overload (src/ops/linalg_spectral_composite.cpp)
eigh, eigvalsh, eig, eigvals = _C.linalg_eigh, _C.linalg_eigvalsh, _C.linalg_eig, _C.linalg_eigvals
svd, svdvals, qr = _C.linalg_svd, _C.linalg_svdvals, _C.linalg_qr
householder_product = _C.linalg_householder_product
pinv = _C.linalg_pinv
lstsq = _C.linalg_lstsq
vector_norm, multi_dot = _C.linalg_vector_norm, _C.linalg_multi_dot
matrix_exp = _C.linalg_matrix_exp  # no out= in torch
cross, vecdot = _C.linalg_cross, _C.linalg_vecdot
vander = _C.linalg_vander
diagonal = _C.linalg_diagonal


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    """torch.linalg.matrix_rank: `tol` (deprecated) is atol with rtol 0."""
    kw = {} if out is None else {"out": out}
    if tol is not None:
        if atol is not None or rtol is not None:
            raise RuntimeError("torch.linalg.matrix_rank: tol and atol/rtol cannot be given at the same time")
        return _C.linalg_matrix_rank(A, tol, hermitian, **kw)
    return _C.linalg_matrix_rank(A, atol=atol, rtol=rtol, hermitian=hermitian, **kw)


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


cond = _C.linalg_cond  # src/ops/linalg_cond.cpp


def _orgqr(input, tau):  # noqa: A002 - torch's name
    """torch.orgqr: linalg.householder_product."""
    return _C.linalg_householder_product(input, tau)


def _install():
    """torch.orgqr and Tensor.orgqr (the package is mid-import here: ember._C is complete)."""
    import sys
    sys.modules[__name__.rsplit(".", 1)[0]].orgqr = _orgqr
    _C.Tensor.orgqr = _orgqr


_install()
