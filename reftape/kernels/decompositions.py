"""Decomposition kernels (the linear-algebra family of issue 24): Qr (Eigen's Householder reflections, computed
here: LAPACK's differ in sign at a pivot of -0.0), and on NumPy's LAPACK SelfAdjointEigV2 (the lower
triangle read, as Eigen's SelfAdjointEigenSolver reads it; eigenvalues ascending, in the input's dtype, complex
for complex inputs), Svd (singular values descending, in the input's dtype; V, not V^H), MatrixSquareRoot (the
principal root through an eigendecomposition), Cross and TridiagonalSolve (Thomas' algorithm, or Gaussian
elimination with partial pivoting, TF's CPU kernel's two paths). Eigenvectors and singular vectors come out
with LAPACK's signs (phases), not Eigen's: see docs/fidelity.md and KNOWN_DIVERGENCES.md.
"""

from __future__ import annotations

import numpy as np

from ..errors import FailedPreconditionError, InvalidArgumentError
from ..errors import _dims_text as dims_text
from .elementwise import _complex, _packet_multiply, _scalar_divide


def _check_rank(x, op: str):  # op: the kernel's name (its messages do not carry it)
    if x.ndim < 2:
        raise ValueError(f"Input tensor 0 must have rank >= 2, got {x.ndim}")


def _check_square(x, op: str):
    _check_rank(x, op)
    if x.shape[-1] != x.shape[-2]:
        raise ValueError("Input matrix must be square.")


def _in_float32(x):
    """Half-precision inputs computed in float32 (NumPy's LAPACK has no half kernels), rounded back after."""
    return x.astype(np.float32) if x.dtype == np.float16 else x


def _qr(x, full_matrices):
    """Eigen's unblocked HouseholderQR (TF's kernel), not LAPACK's: their reflections agree but at a pivot of -0.0,
    where Eigen's beta is -norm (its test is real(c0) >= 0) and LAPACK's +norm (Fortran's SIGN reads the zero's
    sign). Per column: beta = -sign(real(c0)) |x|, v = [1, tail / (c0 - beta)], tau = conj((beta - c0) / beta)
    (no reflection where the tail and c0's imaginary part vanish), H = I - tau v v^H applied to the columns right
    of it; Q the product of the reflections applied to the identity's first columns."""
    _check_rank(x, "Qr")
    a = np.array(_in_float32(x), copy=True)
    m, n = a.shape[-2:]
    steps = min(m, n)
    columns = m if full_matrices else steps
    tiny = np.finfo(a.real.dtype).tiny
    taus = np.zeros(a.shape[:-2] + (steps,), a.dtype)
    for k in range(steps):
        c0, tail = a[..., k, k].copy(), a[..., k + 1:, k].copy()
        tail_norm = np.sum(_abs2(tail), axis=-1)
        trivial = (tail_norm <= tiny) & (np.imag(c0) ** 2 <= tiny)
        beta = np.sqrt(_abs2(c0) + tail_norm)
        beta = np.where(trivial, np.real(c0), np.where(np.real(c0) >= 0, -beta, beta))   # real
        essential = np.where(trivial[..., None], 0, _divided(tail, np.where(trivial, 1, c0 - beta)[..., None]))
        with np.errstate(all="ignore"):   # a complex over a real: each part divided (NumPy's complex division rounds)
            difference = beta - c0
            tau = np.conj(_complex(difference.real / beta, difference.imag / beta)) if a.dtype.kind == "c" else difference / beta
        tau = np.where(trivial, 0, tau).astype(a.dtype)
        a[..., k, k], a[..., k + 1:, k], taus[..., k] = beta, essential, tau
        a[..., k:, k + 1:] = _reflected(a[..., k:, k + 1:], essential, tau)
    q = np.broadcast_to(np.eye(m, columns, dtype=a.dtype), a.shape[:-2] + (m, columns)).copy()
    for k in reversed(range(steps)):
        q[..., k:, :] = _reflected(q[..., k:, :], a[..., k + 1:, k], np.conj(taus[..., k]))
    r = np.triu(a)[..., :m if full_matrices else steps, :]
    return [q.astype(x.dtype), r.astype(x.dtype)]


def _divided(x, y):
    """x / y as Eigen's scalar loop divides: Smith's algorithm for complex types (NumPy's division rounds
    otherwise), which decides the phases at a pivot of rounding noise."""
    if x.dtype.kind != "c":
        return x / y
    with np.errstate(all="ignore"):
        return _scalar_divide(*np.broadcast_arrays(x, y))


def _abs2(z):
    """|z|^2 as Eigen's abs2: the parts squared and added (no fused multiply-add, which NumPy's complex product
    may use)."""
    return z.real * z.real + z.imag * z.imag if z.dtype.kind == "c" else z * z


def _reflected(rows, essential, tau):
    """Eigen's applyHouseholderOnTheLeft, H = I - tau v v^H with v = [1, essential]: the tail's products summed
    first and the first row added after (tmp = essential^H bottom + row 0), then row 0 - tau tmp and
    bottom - (tau essential) tmp."""
    times = _packet_multiply if rows.dtype.kind == "c" else np.multiply
    first, bottom = rows[..., :1, :], rows[..., 1:, :]
    tmp = first
    if bottom.shape[-2]:
        tmp = np.sum(times(*np.broadcast_arrays(np.conj(essential)[..., :, None], bottom)), axis=-2, keepdims=True) + first
    scaled = times(*np.broadcast_arrays(tau[..., None], essential))
    return np.concatenate([first - times(*np.broadcast_arrays(tau[..., None, None], tmp)),
                           bottom - times(*np.broadcast_arrays(scaled[..., :, None], tmp))], axis=-2)


def _self_adjoint_eig(x, compute_v):
    _check_square(x, "SelfAdjointEigV2")
    if x.size == 0:
        e = np.zeros(x.shape[:-1], x.dtype)
        return [e, np.zeros(x.shape, x.dtype) if compute_v else np.zeros((), x.dtype)]
    if not np.all(np.isfinite(x)):
        raise InvalidArgumentError("Self-adjoint eigen decomposition was not successful. The input might not be valid.")
    hermitian = np.tril(x) + np.conj(np.swapaxes(np.tril(x, -1), -1, -2))
    if compute_v:
        e, v = np.linalg.eigh(hermitian)
        return [e.astype(x.dtype), v.astype(x.dtype)]
    return [np.linalg.eigvalsh(hermitian).astype(x.dtype), np.zeros((), x.dtype)]


def _svd(x, compute_uv, full_matrices):
    _check_rank(x, "Svd")
    m, n = x.shape[-2:]
    k = min(m, n)
    batch = x.shape[:-2]
    if x.size == 0:
        s = np.zeros(batch + (k,), x.dtype)
        if not compute_uv:
            return [s, np.zeros((), x.dtype), np.zeros((), x.dtype)]
        cols_u, cols_v = (m, n) if full_matrices else (k, k)
        return [s, np.broadcast_to(np.eye(m, cols_u, dtype=x.dtype), batch + (m, cols_u)).copy(),
                np.broadcast_to(np.eye(n, cols_v, dtype=x.dtype), batch + (n, cols_v)).copy()]
    finite = np.all(np.isfinite(x), axis=(-2, -1))
    safe = np.where(finite[..., None, None], x, 0)
    if not compute_uv:
        s = np.linalg.svd(safe, compute_uv=False)
        s = np.where(finite[..., None], s, np.nan)
        return [s.astype(x.dtype), np.zeros((), x.dtype), np.zeros((), x.dtype)]
    u, s, vh = np.linalg.svd(safe, full_matrices=bool(full_matrices))
    v = np.conj(np.swapaxes(vh, -1, -2))
    s = np.where(finite[..., None], s, np.nan)
    u = np.where(finite[..., None, None], u, np.nan)
    v = np.where(finite[..., None, None], v, np.nan)
    return [s.astype(x.dtype), u.astype(x.dtype), v.astype(x.dtype)]


def _cross(a, b):
    if a.shape != b.shape:
        raise ValueError(f"Both inputs must be of same shape: {dims_text(a.shape)} vs. {dims_text(b.shape)}")
    if a.ndim < 1 or a.shape[-1] != 3:
        raise FailedPreconditionError("Cross-products are only defined for 3-element vectors.")
    a1, a2, a3 = a[..., 0], a[..., 1], a[..., 2]
    b1, b2, b3 = b[..., 0], b[..., 1], b[..., 2]
    return np.stack([a2 * b3 - a3 * b2, a3 * b1 - a1 * b3, a1 * b2 - a2 * b1], axis=-1).astype(a.dtype)


def _matrix_solve_ls(matrix, rhs, l2_regularizer, fast):
    """MatrixSolveLs (TF's kernel path, which tf.linalg.lstsq takes for fast=False): the minimum-norm least-squares
    solution of each system (Eigen's complete orthogonal decomposition; NumPy's SVD-based solver here), the
    regularized normal equations for fast=True."""
    if matrix.ndim < 2 or matrix.ndim != rhs.ndim or matrix.shape[:-2] != rhs.shape[:-2]:
        raise ValueError("All input tensors must have the same rank and the same outer dimensions.")
    if matrix.shape[-2] != rhs.shape[-2]:
        raise ValueError("Input matrix and rhs are incompatible.")
    m, n = matrix.shape[-2:]
    out = np.zeros(matrix.shape[:-2] + (n, rhs.shape[-1]), matrix.dtype)
    if matrix.size == 0 or rhs.size == 0:
        return out
    a, b = _in_float32(matrix), _in_float32(rhs)
    for index in np.ndindex(*matrix.shape[:-2]):
        if fast:
            gramian = np.conj(a[index]).T @ a[index] + l2_regularizer * np.eye(n)
            out[index] = np.linalg.solve(gramian, np.conj(a[index]).T @ b[index])
        else:
            out[index] = np.linalg.lstsq(a[index], b[index], rcond=None)[0]
    return out


def _matrix_square_root(x):
    """MatrixSquareRoot: the principal square root. Eigen computes it from a (real, for real inputs) Schur form;
    reftape from an eigendecomposition V sqrt(D) V^-1, which agrees to rounding for diagonalizable matrices. As
    Eigen's real arithmetic has it, a real matrix with a negative real eigenvalue, and a matrix with a repeated
    zero eigenvalue (0 / 0 in the Schur form's off-diagonal recurrence), are NaN throughout (a defective matrix
    otherwise: docs/fidelity.md)."""
    _check_square(x, "MatrixSquareRoot")
    if x.size == 0:
        return x.copy()
    a = _in_float32(x)
    out = np.full(x.shape, np.nan, dtype=np.result_type(a.dtype, np.complex64))
    for index in np.ndindex(*x.shape[:-2]):
        matrix = a[index]
        if not np.all(np.isfinite(matrix)):
            continue
        w, v = np.linalg.eig(matrix)
        if x.dtype.kind != "c" and np.any((w.real < 0) & (np.abs(w.imag) <= 1e-7 * np.maximum(np.abs(w.real), 1e-300))):
            continue
        if np.count_nonzero(w == 0) > 1:
            continue
        out[index] = (v * np.sqrt(w.astype(out.dtype))[None, :]) @ np.linalg.inv(v)
    return (out if x.dtype.kind == "c" else out.real).astype(x.dtype)


def _tridiagonal_solve(diagonals, rhs, partial_pivoting, perturb_singular):
    """TridiagonalSolve's CPU kernel: diagonals [..., 3, M] (superdiagonal, main, subdiagonal; the first's last and
    the last's first entries unread), rhs [..., M, K]. With partial pivoting, Gaussian elimination exchanging rows
    i and i+1 where |sub(i+1)| > |u(i)| (LAPACK's gtsv, as TF writes it); without, Thomas' algorithm. A zero pivot
    makes that system's solution NaN (TF logs its warning; perturb_singular's perturbation is not modelled)."""
    if diagonals.ndim < 2 or diagonals.shape[-2] != 3:
        raise ValueError(f"Expected diagonals to be provided as a tensor with shape [..., 3, num_rows], got "
                         f"{dims_text(diagonals.shape)}")
    if rhs.ndim != diagonals.ndim or rhs.shape[:-2] != diagonals.shape[:-2] or rhs.shape[-2] != diagonals.shape[-1]:
        raise ValueError(f"Incompatible shapes of diagonals {dims_text(diagonals.shape)} and rhs {dims_text(rhs.shape)}")
    n = diagonals.shape[-1]
    out = np.array(_in_float32(rhs), copy=True)
    d = _in_float32(diagonals)
    for index in np.ndindex(*diagonals.shape[:-2]):
        sup, main, sub = d[index][0], d[index][1], d[index][2]
        x = out[index]
        if n == 0:
            continue
        if main[0] == 0 and n == 1 or not _solve_one_tridiagonal(sup, main, sub, x, partial_pivoting):
            x[...] = np.nan
    return out.astype(rhs.dtype)


def _solve_one_tridiagonal(sup, main, sub, x, partial_pivoting) -> bool:
    """Solves one system in place in x; False at a zero pivot."""
    n = main.shape[0]
    if n == 1:
        x[0] = x[0] / main[0]
        return True
    if not partial_pivoting:
        if main[0] == 0:
            return False
        u = np.zeros(n, main.dtype)
        u[0] = sup[0] / main[0]
        x[0] = x[0] / main[0]
        for i in range(1, n):
            denominator = main[i] - sub[i] * u[i - 1]
            if denominator == 0:
                return False
            u[i] = sup[i] / denominator
            x[i] = (x[i] - sub[i] * x[i - 1]) / denominator
        for i in range(n - 2, -1, -1):
            x[i] = x[i] - u[i] * x[i + 1]
        return True
    u = np.zeros((n, 3), main.dtype)
    u[0, 0], u[0, 1] = main[0], sup[0]
    for i in range(n - 1):
        if abs(u[i, 0]) >= abs(sub[i + 1]):
            if u[i, 0] == 0:
                return False
            factor = sub[i + 1] / u[i, 0]
            u[i + 1, 0] = main[i + 1] - factor * u[i, 1]
            x[i + 1] = x[i + 1] - factor * x[i]
            u[i + 1, 1] = sup[i + 1]
            u[i, 2] = 0
        else:
            factor = u[i, 0] / sub[i + 1]
            u[i, 0] = sub[i + 1]
            u[i + 1, 0] = u[i, 1] - factor * main[i + 1]
            u[i, 1] = main[i + 1]
            u[i + 1, 1] = -factor * sup[i + 1]
            u[i, 2] = sup[i + 1]
            x[[i, i + 1]] = x[[i + 1, i]]
            x[i + 1] = x[i + 1] - factor * x[i]
    if u[n - 1, 0] == 0:
        return False
    x[n - 1] = x[n - 1] / u[n - 1, 0]
    x[n - 2] = (x[n - 2] - u[n - 2, 1] * x[n - 1]) / u[n - 2, 0]
    for i in range(n - 3, -1, -1):
        x[i] = (x[i] - u[i, 1] * x[i + 1] - u[i, 2] * x[i + 2]) / u[i, 0]
    return True
