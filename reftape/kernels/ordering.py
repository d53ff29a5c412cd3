"""The TopKV2 and ArgMin/ArgMax kernels (`_top_k`, `_arg_extreme`), and the orders TF's CPU TopKV2 kernel
leaves where no strict weak ordering fixes them.

TopKV2 (and `sort` and `argsort`, which TF builds on it) orders column indices of a row with C++
comparators on the row's values. A NaN compares false with everything, so for rows holding NaNs the
result is whatever the algorithms make of those comparisons; and `sorted=False` returns a heap's
internal order. Both are deterministic: this module runs the same algorithms on the same comparisons,
libstdc++'s introsort and binary heaps (as in GCC's `stl_algo.h` and `stl_heap.h`) and a bounded
heap like TF's `gtl::TopN`. Where the C++ algorithms leave a choice to the build, the choice here was
fitted to TF 2.21's answers (`tests/reftape_only/test_api_surface.py` and `tests/suite/test_ops.py` pin them).

TopKV2's three paths, per row of `values` (a list of Python floats or ints):
- k = 1: Eigen's vectorized maximum (`_kernel_maximum`); the first column equal to it, or column 0
  where none is (a NaN maximum).
- k = n: introsort of the columns by "greater", then each run of equal values sorted by column.
- otherwise: a bounded heap of the k greatest by "greater, then the lower column" (`_bounded_heap`);
  `sorted` sorts the heap, else it is returned in its internal order.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from .. import dtypes as _dtypes
from ..primitives import flush_subnormals
from .subnormal import _PACKET

Less = Callable[[int, int], bool]

_INSERTION_THRESHOLD = 16  # libstdc++'s _S_threshold


def _arg_extreme(x: np.ndarray, axis: int, smallest: bool) -> np.ndarray:
    """TF's ArgMin/ArgMax, a strict comparison against a running best that starts at index 0 with the
    value +inf (-inf for ArgMax): NaN never wins, and where nothing beats the start (all NaN, or only
    NaN and +inf) the answer is 0. NumPy's argmin/argmax would return the first NaN instead."""
    if x.ndim == 0:
        raise ValueError(f"Expected dimension in the range [0, 0), but got {axis}")
    pick = np.argmin if smallest else np.argmax
    if x.dtype.kind not in "fV":  # integers hold no NaN; "V" is bfloat16
        return pick(x, axis=axis)
    values = x.astype(np.float64)
    start = np.inf if smallest else -np.inf
    beats_start = ~np.isnan(values) & (values != start)
    if beats_start.all():
        return pick(x, axis=axis)
    filled = np.where(beats_start, values, start)
    hit = (filled == (np.min if smallest else np.max)(filled, axis=axis, keepdims=True)) & beats_start
    return np.where(hit.any(axis=axis), hit.argmax(axis=axis), 0)


def _top_k_order(x, k, sorted_):
    """The column indices TopKV2 picks per row of the last axis. Sorted, and without NaNs: descending, ties
    (and subnormals, which its comparisons read as zero, and signed zeros) in index order. Rows holding
    NaNs, and the heap's order of sorted=False, as TF's kernel leaves them (`top_k_columns`)."""
    keys = x.astype(np.float32) if x.dtype in (np.float16, _dtypes.bfloat16._numpy_dtype) else x
    if keys.dtype.kind == "f":
        keys = flush_subnormals(keys)
    columns = keys.shape[-1]
    irregular = np.isnan(keys).any(axis=-1) if keys.dtype.kind == "f" else np.zeros(keys.shape[:-1], bool)
    if not sorted_ and 1 < k < columns:
        irregular = np.ones(keys.shape[:-1], bool)
    order = np.argsort(-keys if keys.dtype.kind == "f" else ~keys, axis=-1, kind="stable")[..., :k]  # ~: no overflow
    lanes = _PACKET.get(keys.dtype, 8)
    for row in np.ndindex(irregular.shape):
        if irregular[row]:
            order[row] = top_k_columns(keys[row].tolist(), k, sorted_, lanes)
    return order


def _top_k(x, k, sorted, index_type):
    if x.ndim == 0:
        raise ValueError("input must be >= 1-D, got shape []")
    if k < 0:
        raise ValueError(f"Need k >= 0, got {k}")
    if x.shape[-1] < k:
        raise ValueError(f"input must have at least k columns. Had {x.shape[-1]}, needed {k}")
    order = _top_k_order(x, k, sorted)
    return np.take_along_axis(x, order, axis=-1), order.astype(index_type)


def top_k_columns(values: list, k: int, sorted_: bool, lanes: int) -> list[int]:
    """The columns TF's TopKV2 kernel picks from one row, in its output order (`lanes`: the values in one
    SIMD packet of the row's dtype)."""
    count = len(values)
    if k == 0:
        return []
    if k == 1:
        maximum = _kernel_maximum(values, lanes)
        return [next((column for column, value in enumerate(values) if value == maximum), 0)]
    if k == count:
        return _sorted_with_equal_runs_by_column(values)
    return _bounded_heap(values, k, sorted_)


def _kernel_maximum(values: list, lanes: int) -> float:
    """Eigen's max reduction as TF's build runs it (fitted to TF 2.21 on 1,500 rows with NaNs): the first
    len - len % lanes values in SIMD lanes that keep the greater value (a NaN never enters), the rest in a
    scalar loop that keeps its maximum only where it is greater than the next value (so a NaN enters, and
    leaves again); the lanes' maximum where it is greater than the scalar loop's, else the scalar loop's."""
    vectorized = len(values) - len(values) % lanes
    lane_maximum = scalar_maximum = -math.inf
    for value in values[:vectorized]:
        if value > lane_maximum:
            lane_maximum = value
    for value in values[vectorized:]:
        if not scalar_maximum > value:
            scalar_maximum = value
    return lane_maximum if lane_maximum > scalar_maximum else scalar_maximum


def _sorted_with_equal_runs_by_column(values: list) -> list[int]:
    columns = list(range(len(values)))
    introsort(columns, lambda a, b: values[b] < values[a])
    start = 0
    while start < len(columns) - 1:
        end = start + 1
        if values[columns[start]] == values[columns[end]]:
            while end < len(columns) and values[columns[start]] == values[columns[end]]:
                end += 1
            columns[start:end] = sorted(columns[start:end])
        start = end
    return columns


def _bounded_heap(values: list, k: int, sorted_: bool) -> list[int]:
    """The bounded heap of TF's kernel (the insertion fitted to TF 2.21 on 800 rows), by TF's stable
    comparison: the first k + 1 columns are made a heap whose front is the least, which is popped off;
    each later column greater than the front pops the front to the back, takes its place there and is
    pushed. sorted: the heap sorted."""
    def greater(a: int, b: int) -> bool:
        if values[b] < values[a]:
            return True
        if values[b] > values[a]:
            return False
        return a < b

    heap = list(range(k + 1))
    make_heap(heap, greater)
    pop_heap(heap, k + 1, greater)
    kept = heap[:k]
    for column in range(k + 1, len(values)):
        if greater(column, kept[0]):
            pop_heap(kept, k, greater)
            kept[k - 1] = column
            push_heap(kept, k, greater)
    if sorted_:
        sort_heap(kept, k, greater)
    return kept


# -- libstdc++'s binary heaps over items[0:length], ordered by `less` (the front is the greatest) ----------


def _sift_up(items: list, hole: int, top: int, value: int, less: Less) -> None:
    parent = (hole - 1) // 2
    while hole > top and less(items[parent], value):
        items[hole] = items[parent]
        hole = parent
        parent = (hole - 1) // 2
    items[hole] = value


def _adjust(items: list, hole: int, length: int, value: int, less: Less) -> None:
    """Moves the hole down to a leaf along the greater children, then sifts `value` up from there."""
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(items[child], items[child - 1]):
            child -= 1
        items[hole] = items[child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        items[hole] = items[child - 1]
        hole = child - 1
    _sift_up(items, hole, top, value, less)


def make_heap(items: list, less: Less, length: int | None = None) -> None:
    length = len(items) if length is None else length
    if length < 2:
        return
    for parent in range((length - 2) // 2, -1, -1):
        _adjust(items, parent, length, items[parent], less)


def push_heap(items: list, length: int, less: Less) -> None:
    _sift_up(items, length - 1, 0, items[length - 1], less)


def _pop_into(items: list, length: int, result: int, less: Less) -> None:
    value = items[result]
    items[result] = items[0]
    _adjust(items, 0, length, value, less)


def pop_heap(items: list, length: int, less: Less) -> None:
    if length > 1:
        _pop_into(items, length - 1, length - 1, less)


def sort_heap(items: list, length: int, less: Less) -> None:
    while length > 1:
        length -= 1
        _pop_into(items, length, length, less)


# -- libstdc++'s introsort ------------------------------------------------------------------------------


def introsort(items: list, less: Less) -> None:
    """std::sort: quicksort on median-of-three pivots down to runs of 16, a heapsort where recursion runs
    deeper than 2 log2(n), then insertion sort (unguarded past the first 16)."""
    if len(items) > 1:
        _introsort_loop(items, 0, len(items), 2 * (len(items).bit_length() - 1), less)
        _final_insertion_sort(items, less)


def _introsort_loop(items: list, first: int, last: int, depth: int, less: Less) -> None:
    while last - first > _INSERTION_THRESHOLD:
        if depth == 0:
            _heap_sort_range(items, first, last, less)
            return
        depth -= 1
        cut = _partition_around_median(items, first, last, less)
        _introsort_loop(items, cut, last, depth, less)
        last = cut


def _heap_sort_range(items: list, first: int, last: int, less: Less) -> None:
    part = items[first:last]
    make_heap(part, less)
    sort_heap(part, len(part), less)
    items[first:last] = part


def _partition_around_median(items: list, first: int, last: int, less: Less) -> int:
    middle = first + (last - first) // 2
    _median_to_first(items, first, first + 1, middle, last - 1, less)
    return _unguarded_partition(items, first + 1, last, first, less)


def _median_to_first(items: list, result: int, a: int, b: int, c: int, less: Less) -> None:
    if less(items[a], items[b]):
        median = b if less(items[b], items[c]) else c if less(items[a], items[c]) else a
    else:
        median = a if less(items[a], items[c]) else c if less(items[b], items[c]) else b
    items[result], items[median] = items[median], items[result]


def _unguarded_partition(items: list, first: int, last: int, pivot: int, less: Less) -> int:
    """Hoare's partition around items[pivot]. libstdc++'s scans are unguarded: a strict weak ordering stops
    them inside the range, NaNs may not, and the left scan then reads on past it (here: to the end of
    the row, beyond which C++'s behaviour is undefined). The right scan stops at the pivot, which is never
    less than itself."""
    while True:
        while first < len(items) and less(items[first], items[pivot]):
            first += 1
        last -= 1
        while less(items[pivot], items[last]):
            last -= 1
        if not first < last:
            return first
        items[first], items[last] = items[last], items[first]
        first += 1


def _final_insertion_sort(items: list, less: Less) -> None:
    if len(items) > _INSERTION_THRESHOLD:
        _insertion_sort(items, 0, _INSERTION_THRESHOLD, less)
        for i in range(_INSERTION_THRESHOLD, len(items)):
            _linear_insert(items, i, less, guard=0)
    else:
        _insertion_sort(items, 0, len(items), less)


def _insertion_sort(items: list, first: int, last: int, less: Less) -> None:
    for i in range(first + 1, last):
        if less(items[i], items[first]):
            items[first:i + 1] = [items[i]] + items[first:i]
        else:
            _linear_insert(items, i, less, guard=first)


def _linear_insert(items: list, last: int, less: Less, guard: int) -> None:
    """Moves items[last] down past the items it is less than (stopping at `guard`, where libstdc++'s
    unguarded loop relies on a smaller item before it)."""
    value = items[last]
    while last > guard and less(value, items[last - 1]):
        items[last] = items[last - 1]
        last -= 1
    items[last] = value
