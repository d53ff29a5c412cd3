"""Sums of half types in the order and precision TF's CPU kernels add them.

NumPy adds half types in float32 and rounds once (so does TF's Sum op for bfloat16); TF's float16
Sum op, and Eigen's sums inside kernels such as L2Loss for both half types (AVX build), round to the
half type after every addition, so a partial sum can overflow to inf (and meet a -inf: NaN) where
NumPy's cannot. TF first simplifies the input's shape (leading size-1 dimensions dropped, size-1
dimensions joined to the run before them, adjacent dimensions of the same kind merged), then:
- reduced dimensions innermost (one, or after a transpose of the kept ones first, for four or more
  runs): per row, eight lanes each accumulate every eighth element of the whole packets, the
  remaining elements are added one by one, and the row's sum is that remainder plus the lanes'
  float32 sum (lanes 0-3 plus 4-7, then (0 + 2) + (1 + 3)) rounded once;
- otherwise (the innermost dimension kept), each output adds its elements one by one in row-major
  order of the reduced dimensions, except for a first and third of three runs, where the third
  dimension's loop is the outer one.
Checked against TF 2.21 on random arrays near overflow, up to 63 elements per output: from 64 on
Eigen adds in an order not modelled yet, and `half_sum` declines (None): NumPy's sum stands in.
"""

from __future__ import annotations

import math

import numpy as np

LANES = 8  # Eigen's packet of half values under AVX
MODELLED_TERMS = 63  # the longest sum per output whose order is modelled


def half_sum(x: np.ndarray, axes: tuple[int, ...], keep_dims: bool) -> np.ndarray | None:
    """The sum of half-type `x` over `axes` (each named once, counted from 0); None for sums of more
    terms than MODELLED_TERMS."""
    out_shape = [1 if a in axes else d for a, d in enumerate(x.shape)] if keep_dims else \
        [d for a, d in enumerate(x.shape) if a not in axes]
    if x.size == 0:
        return np.zeros(out_shape, x.dtype)
    if math.prod(x.shape[a] for a in axes) > MODELLED_TERMS:
        return None
    sizes, reduced = _runs(x.shape, axes)
    runs = x.reshape(sizes) if sizes else x.reshape(1)
    if not reduced:  # only size-1 dimensions reduced: each element added to zero
        total = _added(np.zeros(runs.shape, x.dtype), runs)
    elif len(sizes) == 1 or len(sizes) == 2 and reduced == [1]:
        total = _innermost(runs.reshape(-1, sizes[-1]))
    elif len(sizes) == 2:
        total = _one_by_one(runs, [0])
    elif len(sizes) == 3 and reduced == [1]:
        total = _one_by_one(runs, [1])
    elif len(sizes) == 3:
        total = _one_by_one(runs, [2, 0])
    else:
        kept = [i for i in range(len(sizes)) if i not in reduced]
        moved = np.transpose(runs, kept + reduced)
        total = _innermost(moved.reshape(math.prod(sizes[i] for i in kept), -1))
    return total.reshape(out_shape)


def _runs(shape: tuple, axes: tuple) -> tuple[list[int], list[int]]:
    """TF's simplified shape: the sizes of its runs and which of them are reduced."""
    start = next((i for i, d in enumerate(shape) if d != 1), len(shape))
    if start == len(shape):
        return [], []
    sizes, flags = [shape[start]], [start in axes]
    for i in range(start + 1, len(shape)):
        flag = flags[-1] if shape[i] == 1 else i in axes
        if flag == flags[-1]:
            sizes[-1] *= shape[i]
        else:
            sizes.append(shape[i])
            flags.append(flag)
    return sizes, [i for i, flag in enumerate(flags) if flag]


def _added(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a + b as a half-type kernel adds: in float32, rounded to the half type."""
    with np.errstate(over="ignore", invalid="ignore"):
        return (a.astype(np.float32) + b.astype(np.float32)).astype(a.dtype)


def _innermost(rows: np.ndarray) -> np.ndarray:
    """Each row's sum as Eigen's innermost-dimension reducer adds it (the module docstring)."""
    count, length = rows.shape
    whole = length // LANES * LANES
    lanes = np.zeros((count, LANES), rows.dtype)
    for start in range(0, whole, LANES):
        lanes = _added(lanes, rows[:, start:start + LANES])
    remainder = np.zeros(count, rows.dtype)
    for column in range(whole, length):
        remainder = _added(remainder, rows[:, column])
    with np.errstate(over="ignore", invalid="ignore"):
        halves = lanes[:, :4].astype(np.float32) + lanes[:, 4:].astype(np.float32)
        packet = ((halves[:, 0] + halves[:, 2]) + (halves[:, 1] + halves[:, 3])).astype(rows.dtype)
    return _added(remainder, packet)


def _one_by_one(runs: np.ndarray, loops: list[int]) -> np.ndarray:
    """Each output's elements added one by one, `loops` the reduced runs from the outer loop in."""
    kept = [i for i in range(runs.ndim) if i not in loops]
    ordered = np.transpose(runs, loops + kept).reshape(-1, *[runs.shape[i] for i in kept])
    total = np.zeros(ordered.shape[1:], runs.dtype)
    for element in ordered:
        total = _added(total, element)
    return total
