"""`tf.linalg`."""

from .functions import (adjoint, band_part, cholesky, det, diag, diag_part, einsum, eye, global_norm, inv, l2_normalize,
                        logdet, matmul, matrix_transpose, matvec, norm, slogdet, solve, trace, triangular_solve)
# Decompositions (issue 24)
from .functions import cross, eigh, eigvalsh, expm, lstsq, normalize, qr, sqrtm, svd, tridiagonal_solve

__all__ = [name for name in dir() if not name.startswith("_")]
