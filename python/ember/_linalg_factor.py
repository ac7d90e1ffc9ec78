"""ember.linalg, factor part (re-exported by ember.linalg): factorizations and solvers
(src/ops/linalg_factor.cpp, linalg_factor_api.cpp). Each is the dispatcher op of the same
torch name, so out= and the named-tuple results (ember.return_types.linalg_*) come from the
op schemas."""
from . import _C

__all__ = ["cholesky", "cholesky_ex", "inv", "inv_ex", "det", "slogdet", "solve", "solve_ex", "lu_factor",
           "lu_factor_ex", "lu", "lu_solve", "solve_triangular", "ldl_factor", "ldl_factor_ex", "ldl_solve",
           "tensorinv", "tensorsolve", "matrix_power"]

cholesky, cholesky_ex = _C.linalg_cholesky, _C.linalg_cholesky_ex
inv, inv_ex = _C.linalg_inv, _C.linalg_inv_ex
det, slogdet = _C.linalg_det, _C.linalg_slogdet
solve, solve_ex = _C.linalg_solve, _C.linalg_solve_ex
lu_factor, lu_factor_ex, lu, lu_solve = _C.linalg_lu_factor, _C.linalg_lu_factor_ex, _C.linalg_lu, _C.linalg_lu_solve
solve_triangular = _C.linalg_solve_triangular
ldl_factor, ldl_factor_ex, ldl_solve = _C.linalg_ldl_factor, _C.linalg_ldl_factor_ex, _C.linalg_ldl_solve
tensorinv, tensorsolve = _C.linalg_tensorinv, _C.linalg_tensorsolve
matrix_power = _C.linalg_matrix_power
