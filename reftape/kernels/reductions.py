"""Reductions and scans as TF's CPU kernels compute them: the axis checks, and the copy TF's reduction
kernels make when the reduced axes hold one element (signed zeros kept); Sum (float16 added in TF's
order and precision by `half_sums.py`), Mean (summed in the tensor's dtype before dividing, so a
float16 sum past 65504 makes it inf), L2Loss (half types rounded after each operation), EuclideanNorm
(squares and sum rounded to the dtype), Max, Min, Prod, Any and All; Cumsum and Cumprod, and
CumulativeLogsumexp as a scan of Eigen's LogSumExp step (std::min and std::max keep the accumulator
against a NaN element).
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dtypes
from .elementwise import _rounded, _typed
from .half_sums import half_sum


def _reduction_axes(x, axis):
    if axis is None:
        return None
    for a in axis:
        if not -max(x.ndim, 1) <= a < max(x.ndim, 1):
            raise ValueError(f"Invalid reduction dimension ({a} for input with {x.ndim} dimension(s)")
    axes = tuple(a % max(x.ndim, 1) for a in axis)
    if len(set(axes)) < len(axes):  # TF's kernels refuse an axis named twice (a copy included), after the ranges
        repeated = next(a for i, a in enumerate(axes) if a in axes[:i])
        raise ValueError(f"Invalid reduction arguments: Axes contains duplicate dimension: {repeated}")
    return axes


def reduces_one_element(shape: tuple, axis_arg) -> bool:
    """Whether the axes (`_reduction_axes`' result; None: all) hold one element in all, none at all included:
    TF's reduction kernels then copy their input (no arithmetic: signed zeros and subnormals kept)."""
    return math.prod(shape[a] for a in (range(len(shape)) if axis_arg is None else axis_arg)) == 1


def _copied_reduction(x, axis_arg, keep_dims):
    """The copy TF's reduction kernels make where `reduces_one_element`, shaped as the reduction's result; else
    None."""
    axes = tuple(range(x.ndim)) if axis_arg is None else axis_arg
    if not reduces_one_element(x.shape, axis_arg):
        return None
    shape = [1 if a in axes else d for a, d in enumerate(x.shape)] if keep_dims else \
        [d for a, d in enumerate(x.shape) if a not in axes]
    return x.reshape(shape).copy()


def _reduce(fn, identity=None):
    def forward(x, axis, keep_dims):
        axis_arg = _reduction_axes(x, axis)
        copied = _copied_reduction(x, axis_arg, keep_dims)
        if copied is not None:
            return copied
        if identity is not None and x.size == 0:
            return fn(x, axis=axis_arg, keepdims=keep_dims, initial=identity(x.dtype))
        return fn(x, axis=axis_arg, keepdims=keep_dims)
    return forward


def _sum(x, axis, keep_dims, T, reads_shape=False):  # reads_shape: for the gradient (ops_table.py)
    """Sum: float16 added as TF's kernel adds it, where half_sums.py models that, else by NumPy."""
    axis_arg = _reduction_axes(x, axis)
    copied = _copied_reduction(x, axis_arg, keep_dims)
    if copied is not None:
        return copied
    if T is _dtypes.float16:
        total = half_sum(x.astype(np.float16), tuple(range(x.ndim)) if axis_arg is None else axis_arg, keep_dims)
        if total is not None:
            return total
    return np.sum(x, axis=axis_arg, keepdims=keep_dims)


def _l2_loss(x, T):
    """TF's L2Loss, (x * x * 0.5).sum() in the input's dtype: half types rounded after each operation
    and added in Eigen's order (half_sums.py; bfloat16 too, unlike the Sum op), so a square past the
    largest value is inf."""
    if T not in (_dtypes.float16, _dtypes.bfloat16):
        return np.sum(np.square(x)) / 2
    half = T.as_numpy_dtype
    with np.errstate(over="ignore"):
        halves = (np.square(x).astype(half).astype(np.float32) * np.float32(0.5)).astype(half)
    total = half_sum(halves, tuple(range(halves.ndim)), False)
    return np.sum(halves.astype(np.float32)) if total is None else total


def _mean(x, axis, keep_dims, T, reads_shape=False):
    axis_arg = _reduction_axes(x, axis)
    copied = _copied_reduction(x, axis_arg, keep_dims)
    if copied is not None:
        return copied
    total = _sum(x, axis, keep_dims, T)
    count = x.size // max(np.size(total), 1)
    if x.dtype.kind in "iu":
        return (np.trunc(total / max(count, 1))).astype(x.dtype)
    if count == 0 and x.dtype.kind == "c":
        return total  # TF's complex mean of nothing is 0 (a real one is 0 / 0, NaN)
    # TF sums in the tensor's dtype before dividing: a float16 sum past 65504 makes the mean inf
    return _rounded(total, T, x) / count


def _euclidean_norm(x, axis, keep_dims, T):
    """sqrt(sum(x * conj(x))), squares and sum rounded to the tensor's dtype as TF computes them:
    float16 squares past 65504 are inf."""
    def norm(x, axis, keepdims):
        squares = _rounded(x * np.conj(x), T, x)
        return np.sqrt(_rounded(np.sum(squares, axis=axis, keepdims=keepdims), T, x))
    return norm(x, _reduction_axes(x, axis), keep_dims)  # never a copy: |x| over no axes, as TF


def _lowest(dtype):
    return -np.inf if dtype.kind in "fc" else np.iinfo(dtype).min


def _highest(dtype):
    return np.inf if dtype.kind in "fc" else np.iinfo(dtype).max


def _scan(fn, identity):
    def forward(x, axis, exclusive, reverse):
        if x.ndim == 0:
            raise ValueError(f"ScanOp: Expected scan axis in the range [0, 0), but got {axis}")
        if reverse:
            x = np.flip(x, axis)
        out = fn(x, axis=axis)
        if exclusive and out.shape[axis]:  # an empty scan axis has nothing to shift
            out = np.concatenate([np.full_like(np.take(out, [0], axis=axis), identity), np.delete(out, -1, axis=axis)], axis=axis)
        return np.flip(out, axis) if reverse else out
    return forward


def _cumulative_logsumexp(x, axis, exclusive, reverse):
    """TF's CumulativeLogsumexp: a scan from -inf whose step is Eigen's LogSumExp of (accumulator,
    element): max + log1p(exp(min - max)), or max where max is -inf. min and max are std::min and
    std::max with the accumulator first, which keep the accumulator against a NaN element."""
    if x.ndim == 0:
        raise ValueError(f"ScanOp: Expected scan axis in the range [0, 0), but got {axis}")
    moved = np.moveaxis(np.flip(x, axis) if reverse else x, axis, 0)
    out = np.empty_like(moved)
    accumulator = np.full(moved.shape[1:], -np.inf, x.dtype)
    lowest = _typed(np.finfo(x.dtype).min, x.dtype)
    for i, element in enumerate(moved):
        if exclusive:
            out[i] = accumulator
        low = np.where(element < accumulator, element, accumulator)
        high = np.where(accumulator < element, element, accumulator)
        accumulator = np.where(high < lowest, high, np.log1p(np.exp(low - high)) + high)
        if not exclusive:
            out[i] = accumulator
    out = np.moveaxis(out, 0, axis)
    return np.flip(out, axis).copy() if reverse else out
