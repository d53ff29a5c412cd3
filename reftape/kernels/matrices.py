"""Matrix kernels as TF's Eigen kernels compute them, small matrices in their unblocked algorithms (no
fused multiply-add): MatMul (a product over an inner dimension of 1 computed as TF's contraction adds
it, not as OpenBLAS's rank-1 update skips it) and BatchMatMulV2; LU with partial pivoting for
MatrixDeterminant, LogMatrixDeterminant, MatrixInverse and MatrixSolve; Cholesky (LLT on the lower
triangle; where a pivot fails, that matrix's lower triangle is NaN, zeros for complex types);
MatrixTriangularSolve (batch dimensions broadcast); and the diagonal and band kernels
MatrixDiagPartV3, MatrixDiagV3, MatrixSetDiagV3 and MatrixBandPart, with TF's checks; Einsum (one or two
operands, repeated labels, a broadcasting ellipsis).
"""

from __future__ import annotations

import numpy as np

from ..dispatch import runs_onednn
from ..errors import _dims_text as dims_text
from .elementwise import _packet_multiply
from .libm import complex_abs
from .packet_math import scalar_loop


def _matmul2d(a, b, transpose_a, transpose_b):
    """np.dot: for matrices the product np.matmul computes (the same BLAS call), with half its overhead.
    Not over an inner dimension of 1: OpenBLAS skips the zero factors of that rank-1 update (NaN times 0
    came out 0), where TF's contraction adds each product to +0 (so -1 times 0 is +0)."""
    a, b = a.T if transpose_a else a, b.T if transpose_b else b
    if a.shape[1] == 1 and b.shape[0] == 1 and a.dtype.kind in "fc":  # (other shapes: np.dot's mismatch)
        product = _packet_multiply(*np.broadcast_arrays(a, b)) if a.dtype.kind == "c" else a * b
        # Eigen takes another contraction for a transposed operand, which keeps the products' signed zeros (issue
        # 24: tensordot's gradient, a bfloat16 subnormal times a negative, is -0 in TF); oneDNN's adds to +0 too
        kept = (transpose_a or transpose_b) and not runs_onednn(a.dtype.name)
        return product if kept else product + a.dtype.type(0)
    return np.dot(a, b)


def _adjoint(x):
    return np.conj(np.swapaxes(x, -1, -2))


def _batch_matmul(x, y, adj_x, adj_y):
    return np.matmul(_adjoint(x) if adj_x else x, _adjoint(y) if adj_y else y)


def _check_matrices(x, square: bool = True):
    if x.ndim < 2:
        raise ValueError(f"Input tensor 0 must have rank >= 2, got {x.ndim}")
    if square and x.shape[-1] != x.shape[-2]:
        raise ValueError("Input matrix must be square.")


def _partial_pivot_lu(a):
    """Eigen's unblocked PartialPivLU of each matrix: per column the first row of largest magnitude is the
    pivot (a NaN only where it comes first) (none where the column is zero below the diagonal), the column below it divided by the pivot, the
    rest updated by the rank-1 product. The LU factors in one array, the row order, the permutation's sign."""
    lu = np.array(a, copy=True)
    n = lu.shape[-1]
    rows = np.broadcast_to(np.arange(n), lu.shape[:-1]).copy()
    sign = np.ones(lu.shape[:-2])
    batch = np.indices(lu.shape[:-2])
    for k in range(n):
        column = np.abs(lu[..., k:, k])  # Eigen's maxCoeff: the first entry, then strictly larger ones (NaN never)
        pivot = k + np.where(np.isnan(column[..., 0]), 0, np.argmax(np.where(np.isnan(column), -np.inf, column), axis=-1))
        nonzero = np.abs(lu[(*batch, pivot, np.full_like(pivot, k))]) != 0
        swap = nonzero & (pivot != k)
        target = np.where(swap, pivot, k)
        lu_k, lu_p = lu[..., k, :].copy(), lu[(*batch, target)].copy()
        lu[..., k, :], lu[(*batch, target)] = lu_p, lu_k
        rows_k, rows_p = rows[..., k].copy(), rows[(*batch, target)].copy()
        rows[..., k], rows[(*batch, target)] = rows_p, rows_k
        sign = np.where(swap, -sign, sign)
        divisor = np.where(nonzero, lu[..., k, k], 1)[..., None]
        lu[..., k + 1:, k] = np.where(nonzero[..., None], lu[..., k + 1:, k] / divisor, lu[..., k + 1:, k])
        lu[..., k + 1:, k + 1:] -= lu[..., k + 1:, k, None] * lu[..., k, None, k + 1:]
    return lu, rows, sign


def _lu_solve(lu, rows, b):
    """Solves with LU factors: the right-hand sides permuted, then unit lower and upper substitution."""
    x = np.take_along_axis(b, np.broadcast_to(rows[..., None], rows.shape + b.shape[-1:]), axis=-2).copy()
    n = lu.shape[-1]
    for i in range(n):
        x[..., i, :] -= np.sum(lu[..., i, :i, None] * x[..., :i, :], axis=-2)
    for i in reversed(range(n)):
        x[..., i, :] = (x[..., i, :] - np.sum(lu[..., i, i + 1:, None] * x[..., i + 1:, :], axis=-2)) / lu[..., i, i, None]
    return x


def _invertible_lu(a, message: str):
    """The LU factors of each matrix, TF's InvalidArgumentError where the smallest pivot magnitude is not above
    zero: an exactly zero pivot, or a NaN first pivot (Eigen's minCoeff runs over the diagonal in order with
    std::min, which keeps a NaN it starts from and skips a later one)."""
    lu, rows, _ = _partial_pivot_lu(a)
    pivots = np.abs(np.diagonal(lu, axis1=-2, axis2=-1))
    if pivots.size:
        smallest = pivots[..., 0]
        for i in range(1, pivots.shape[-1]):
            smallest = np.where(pivots[..., i] < smallest, pivots[..., i], smallest)
        if not np.all(smallest > 0):
            raise ValueError(message)
    return lu, rows


def _matrix_inverse(x, adjoint):
    _check_matrices(x)
    a = _adjoint(x) if adjoint else x
    lu, rows = _invertible_lu(a, "Input is not invertible.")
    return _lu_solve(lu, rows, np.broadcast_to(np.eye(x.shape[-1], dtype=x.dtype), x.shape))


def _matrix_solve(matrix, rhs, adjoint):
    if matrix.ndim != rhs.ndim or matrix.shape[:-2] != rhs.shape[:-2]:
        raise ValueError("All input tensors must have the same rank and the same outer dimensions.")
    _check_matrices(matrix)
    if matrix.shape[-2] != rhs.shape[-2]:
        raise ValueError("Input matrix and rhs are incompatible.")
    lu, rows = _invertible_lu(_adjoint(matrix) if adjoint else matrix, "Input matrix is not invertible.")
    return _lu_solve(lu, rows, rhs)


def _signed_log_determinant(x):
    """TF's SLogDet from the LU factors: the permutation's sign times each pivot's phase (0 for a zero
    pivot, so a singular matrix has a signed zero sign), and the sum of the pivots' log magnitudes (a complex
    pivot's, glibc's hypot as std::abs computes it). The logs are the C library's, as Eigen computes them for a
    diagonal shorter than a packet (8 float32, 4 float64: longer ones take Eigen's vectorized log, an ulp away now
    and then)."""
    _check_matrices(x)
    lu, _, permutation_sign = _partial_pivot_lu(x)
    pivots = np.diagonal(lu, axis1=-2, axis2=-1)
    magnitudes = complex_abs(pivots) if pivots.dtype.kind == "c" else np.abs(pivots)
    phases = np.where(magnitudes == 0, 0, pivots / np.where(magnitudes == 0, 1, magnitudes))
    sign = permutation_sign.astype(x.dtype) * np.prod(phases, axis=-1)
    log_magnitude = np.sum(scalar_loop("log", magnitudes), axis=-1)
    return sign.astype(x.dtype), log_magnitude.astype(x.dtype)


def _determinant(x):
    """MatrixDeterminant: the sign times the exponential of the log magnitude (C's exp, a scalar)."""
    sign, log_magnitude = _signed_log_determinant(x)
    return sign * scalar_loop("exp", log_magnitude)


def _cholesky(x):
    """Eigen's unblocked LLT on the lower triangle (the upper one is not read): a pivot at or below zero
    stops it (a NaN one does not: NaNs flow on), and TF then fills that matrix's lower triangle with NaN, with zeros for complex
    types (std::numeric_limits has no complex NaN)."""
    _check_matrices(x)
    n = x.shape[-1]
    lower = np.tril(x)
    failed = np.zeros(x.shape[:-2], bool)
    for k in range(n):
        row = lower[..., k, :k]
        pivot = np.real(lower[..., k, k]) - np.sum(np.real(row * np.conj(row)), axis=-1)
        failed |= pivot <= 0  # a failed matrix goes on with NaN: its values are replaced below
        root = np.sqrt(np.where(pivot <= 0, np.nan, pivot)).astype(x.dtype)
        lower[..., k, k] = root
        below = lower[..., k + 1:, k] - np.sum(lower[..., k + 1:, :k] * np.conj(row)[..., None, :], axis=-1)
        lower[..., k + 1:, k] = below / root[..., None]
    fill = 0 if x.dtype.kind == "c" else np.nan
    return np.where(failed[..., None, None], np.tril(np.full(x.shape, fill, x.dtype)), lower)


def _triangular_solve(matrix, rhs, lower, adjoint):
    """Substitution with the lower (or upper) triangle of each matrix, its adjoint if asked (the other
    triangle is not read: NaNs there pass), batch dimensions broadcast; a zero diagonal divides by zero."""
    if matrix.ndim < 2 or rhs.ndim < 2:
        raise ValueError(f"In[0] and In[1] must have rank >= 2: {dims_text(matrix.shape)} {dims_text(rhs.shape)}")
    try:
        batch = np.broadcast_shapes(matrix.shape[:-2], rhs.shape[:-2])
    except ValueError:
        raise ValueError(f"Incompatible shapes: {dims_text(matrix.shape)} vs. {dims_text(rhs.shape)}") from None
    if matrix.shape[-1] != matrix.shape[-2] or matrix.shape[-1] != rhs.shape[-2]:
        raise ValueError(f"In[0] mismatch In[1] shape: {matrix.shape[-1]} vs. {rhs.shape[-2]}: "
                         f"{dims_text(matrix.shape)} {dims_text(rhs.shape)} 0 0")
    triangle = np.tril(matrix) if lower else np.triu(matrix)
    if adjoint:
        triangle, lower = _adjoint(triangle), not lower
    triangle = np.broadcast_to(triangle, batch + matrix.shape[-2:])
    x = np.broadcast_to(rhs, batch + rhs.shape[-2:]).copy()
    n = matrix.shape[-1]
    order = range(n) if lower else reversed(range(n))
    for i in order:
        known = slice(0, i) if lower else slice(i + 1, n)
        x[..., i, :] = (x[..., i, :] - np.sum(triangle[..., i, known, None] * x[..., known, :], axis=-2)) / triangle[..., i, i, None]
    return x


def _check_diagonal_index(x, k: int) -> None:
    rows, columns = x.shape[-2:]
    if not (-rows < k < columns or (k == 0 and (rows == 0 or columns == 0))):
        raise ValueError(f"lower_diag_index is out of bound: {k}. It must be between {-rows} and {columns}")


def _diagonal(x, k):
    """MatrixDiagPartV3 of one diagonal (k above the main one; below for negative k)."""
    if x.ndim < 2:
        raise ValueError(f"input must be at least 2-dim, received shape: {dims_text(x.shape)}")
    _check_diagonal_index(x, k)
    return np.diagonal(x, offset=k, axis1=-2, axis2=-1).copy()


def _matrix_with_diagonal(diagonal, k, num_rows, num_cols, padding_value):
    """MatrixDiagV3 of one diagonal: padding_value elsewhere; unset sizes the smallest that hold it."""
    if diagonal.ndim < 1:
        raise ValueError(f"diagonal must be at least 1-dim, received shape: {dims_text(diagonal.shape)}")
    length = diagonal.shape[-1]
    least_rows, least_cols = length - min(k, 0), length + max(k, 0)
    if num_rows == -1 and num_cols == -1:
        num_rows = num_cols = max(least_rows, least_cols)
    elif num_rows == -1:
        num_rows = least_rows
    elif num_cols == -1:
        num_cols = least_cols
    if num_rows < least_rows:
        raise ValueError("The number of rows is too small.")
    if num_cols < least_cols:
        raise ValueError("The number of columns is too small.")
    if num_rows != least_rows and num_cols != least_cols:
        raise ValueError("The number of rows or columns is not consistent with the specified d_lower, d_upper, and diagonal.")
    out = np.full(diagonal.shape[:-1] + (num_rows, num_cols), padding_value, diagonal.dtype)
    index = np.arange(length)
    out[..., index - min(k, 0), index + max(k, 0)] = diagonal
    return out


def _set_diagonal(x, diagonal, k):
    """MatrixSetDiagV3 of one diagonal."""
    out = x.copy()
    index = np.arange(diagonal.shape[-1])
    out[..., index - min(k, 0), index + max(k, 0)] = diagonal
    return out


def _band_part(x, num_lower, num_upper):
    """MatrixBandPart: the elements at most num_lower below and num_upper above the diagonal (negative:
    all of them); zeros elsewhere."""
    if x.ndim < 2:
        raise ValueError(f"input must be at least 2-dim, received shape: {dims_text(x.shape)}")
    rows, columns = x.shape[-2:]
    if num_lower > rows:
        raise ValueError(f"num_lower must be negative or less or equal to number of rows ({rows}) got: {num_lower}")
    if num_upper > columns:
        raise ValueError(f"num_upper must be negative or less or equal to number of columns ({columns}) got: {num_upper}")
    offset = np.arange(columns)[None, :] - np.arange(rows)[:, None]
    keep = ((num_lower < 0) | (-offset <= num_lower)) & ((num_upper < 0) | (offset <= num_upper))
    return np.where(keep, x, np.zeros_like(x))


# ---------------------------------------------------------------------------------------------
# Einsum: TF's kernel takes one or two operands, labels repeated inside an operand (diagonals, traces) and in
# the output (the values placed on a diagonal, zeros elsewhere: its gradients need that), and an ellipsis
# whose dimensions broadcast across operands, size-1 dimensions included.

ELLIPSIS = "..."


def _einsum(*operands, equation: str):
    inputs, output = equation.split("->")
    specs = [_einsum_labels(spec) for spec in inputs.split(",")]
    output_labels = _einsum_labels(output)
    if len(specs) != len(operands):
        raise ValueError(f"Expecting {len(specs)} inputs but got {len(operands)}")
    batch = _einsum_batch_shape(operands, specs)
    if ELLIPSIS not in output_labels and batch:
        raise ValueError(f"Output contains {len(batch)} broadcasting dimension(s) but no ellipsis (...) was found "
                         f"in the output subscripts.")
    sizes = _einsum_label_sizes(operands, specs)
    for label in output_labels:
        if label != ELLIPSIS and label not in sizes:
            raise ValueError(f"Output label {label!r} does not appear in the input subscripts.")
    numbering = {label: n for n, label in enumerate(sorted(sizes))}
    batch_numbers = list(range(len(numbering), len(numbering) + len(batch)))
    arguments = []
    for operand, labels in zip(operands, specs):
        arguments += _einsum_operand(operand, labels, batch, numbering, batch_numbers)
    unique = list(dict.fromkeys(output_labels))
    result = np.einsum(*arguments, _einsum_numbers(unique, numbering, batch_numbers), optimize=False)
    if len(unique) == len(output_labels):
        return result
    return _inflated(result, unique, output_labels, sizes, batch)


def _einsum_labels(spec: str) -> list[str]:
    """A subscript as a list of labels, an ellipsis one item; more than one ellipsis is refused."""
    before, ellipsis, after = spec.partition(ELLIPSIS)
    if ELLIPSIS in after or "." in before + after:
        raise ValueError(f"Found more than one ellipsis in subscript {spec!r}")
    return list(before) + ([ELLIPSIS] if ellipsis else []) + list(after)


def _einsum_batch_dims(operand, labels: list[str]) -> tuple:
    named = len(labels) - (ELLIPSIS in labels)
    if ELLIPSIS not in labels:
        if operand.ndim != named:
            raise ValueError(f"Expected input to have rank {named} but got: {operand.ndim}")
        return ()
    if operand.ndim < named:
        raise ValueError(f"Expected input to have rank at least {named} but got: {operand.ndim}")
    start = labels.index(ELLIPSIS)
    return operand.shape[start:start + operand.ndim - named]


def _einsum_batch_shape(operands, specs) -> tuple:
    batches = [_einsum_batch_dims(operand, labels) for operand, labels in zip(operands, specs)]
    try:
        return tuple(np.broadcast_shapes(*batches))
    except ValueError:
        raise ValueError("Invalid broadcasting dimensions: " + " vs. ".join(dims_text(b) for b in batches)) from None


def _einsum_named_axes(operand, labels: list[str]) -> list[tuple[str, int]]:
    """Each named label with its dimension in `operand`, in axis order (the ellipsis's dimensions left out)."""
    batch = operand.ndim - (len(labels) - (ELLIPSIS in labels))
    axes, axis = [], 0
    for label in labels:
        if label == ELLIPSIS:
            axis += batch
        else:
            axes.append((label, operand.shape[axis]))
            axis += 1
    return axes


def _einsum_label_sizes(operands, specs) -> dict:
    sizes: dict = {}
    for operand, labels in zip(operands, specs):
        for label, size in _einsum_named_axes(operand, labels):
            if sizes.setdefault(label, size) != size:
                raise ValueError(f"Expected dimension {sizes[label]} for label {label!r} of the input shaped "
                                 f"{dims_text(operand.shape)} but got dimension {size}")
    return sizes


def _einsum_numbers(labels: list[str], numbering: dict, batch_numbers: list[int]) -> list[int]:
    return [n for label in labels for n in (batch_numbers if label == ELLIPSIS else [numbering[label]])]


def _einsum_operand(operand, labels: list[str], batch: tuple, numbering: dict, batch_numbers: list[int]) -> list:
    """The operand and its axis numbers for np.einsum, its ellipsis broadcast to the whole batch shape."""
    if ELLIPSIS in labels:
        start = labels.index(ELLIPSIS)
        own = _einsum_batch_dims(operand, labels)
        head, tail = operand.shape[:start], operand.shape[start + len(own):]
        padded = operand.reshape(head + (1,) * (len(batch) - len(own)) + own + tail)
        operand = np.broadcast_to(padded, head + batch + tail)
    return [operand, _einsum_numbers(labels, numbering, batch_numbers)]


def _inflated(values, unique: list[str], output_labels: list[str], sizes: dict, batch: tuple):
    """`values` (axes labelled `unique`) placed where every repeated output label takes one index: zeros
    elsewhere."""
    extents = [d for label in unique for d in (batch if label == ELLIPSIS else (sizes[label],))]
    grid = np.indices(extents, sparse=True) if extents else []
    starts = {}
    for label in unique:
        starts[label] = sum(len(batch) if l == ELLIPSIS else 1 for l in unique[:unique.index(label)])
    shape, index = [], []
    for label in output_labels:
        count = len(batch) if label == ELLIPSIS else 1
        shape += list(batch) if label == ELLIPSIS else [sizes[label]]
        index += [grid[starts[label] + k] for k in range(count)]
    result = np.zeros(shape, values.dtype)
    result[tuple(index)] = values
    return result
