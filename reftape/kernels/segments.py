"""Segment reductions as TF's CPU kernels compute them: the sorted ones (SegmentMean, SegmentMin,
SegmentMax, SegmentProd: ids sorted, as many segments as the last id + 1, empty segments 0, or 1 for a
product), the unsorted ones (UnsortedSegmentMin, Max, Prod: `num_segments` rows, negative ids dropped,
empty segments the dtype's lowest or highest finite value, or 1), and the sparse ones (SparseSegmentSum,
Mean, SqrtN, with or without `num_segments`, and their *Grad kernels, which scatter rows back).

Rows fold into their segment in order. A minimum or maximum keeps the running value only where the new
row is strictly below (above) it: a NaN row replaces the value, a later ordered row replaces the NaN
again (TF's kernels on CPU give max([nan, 1]) = 1 and max([1, nan]) = nan).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np


def _check_sorted(data, segment_ids) -> int:
    """SegmentReductionOp's checks, in its order; the number of segments (the last id + 1)."""
    if data.ndim == 0:
        raise ValueError("input must be at least rank 1")
    if segment_ids.ndim != 1:
        raise ValueError("segment_ids should be a vector.")
    if segment_ids.shape[0] != data.shape[0]:
        raise ValueError("segment_ids should be the same size as dimension 0 of input.")
    count = int(segment_ids[-1]) + 1 if segment_ids.size else 0
    if np.any(np.diff(segment_ids) < 0):
        raise ValueError("segment ids are not increasing")
    if segment_ids.size and segment_ids[0] < 0:
        raise ValueError(f"Segment id {segment_ids[0]} out of range [0, {count}), possibly because 'segment_ids' "
                         "input is not sorted.")
    return count


def _fold(kind: str):
    """The step combining a segment's running value with its next row."""
    if kind == "max":
        return lambda acc, row: np.where(row < acc, acc, row)
    if kind == "min":
        return lambda acc, row: np.where(row > acc, acc, row)
    if kind == "prod":
        return lambda acc, row: acc * row
    return lambda acc, row: acc + row


def _extreme(kind: str, dtype: np.dtype):
    """An empty unsorted segment's value: the lowest finite value for a maximum, the highest for a minimum."""
    info = np.iinfo(dtype) if dtype.kind in "iu" else ml_dtypes.finfo(dtype)
    return info.min if kind == "max" else info.max


# Elements of one SIMD packet of TF's CPU build (AVX, whatever the host adds): SegmentMax and SegmentMin copy
# a segment of one row, and reduce a longer one's leading whole packets of each row's elements with the vector max/min, which keeps the running
# value where a row's element is NaN (from -inf/+inf: an all-NaN column gives -inf/+inf), and the remaining
# elements one by one from the first row, where a NaN in a later row wins. Probed on live TF per dtype and
# inner size (tests/suite/test_ops.py's edge snippets).
_PACKET = {"float64": 4, "float32": 8, "float16": 8, "bfloat16": 8}


def _packed_extreme(kind: str, rows: np.ndarray) -> np.ndarray | None:
    """The vector path's result over the leading whole packets of the rows' flattened elements (None: none)."""
    inner = int(np.prod(rows.shape[1:]))
    packet = _PACKET.get(rows.dtype.name)
    columns = 0 if packet is None else inner - inner % packet
    if not columns:
        return None
    flat = rows.reshape(len(rows), inner)[:, :columns]
    acc = np.full(columns, -np.inf if kind == "max" else np.inf, rows.dtype)
    for row in flat:
        acc = np.where(row > acc, row, acc) if kind == "max" else np.where(row < acc, row, acc)
    return acc


def _sorted_segment(kind: str):
    """SegmentMean, SegmentMin, SegmentMax or SegmentProd (`kind`)."""
    def forward(data, segment_ids):
        count = _check_sorted(data, segment_ids)
        step = _fold(kind)
        out = np.full((count,) + data.shape[1:], 1 if kind == "prod" else 0, data.dtype)
        for segment in np.unique(segment_ids):
            rows = data[segment_ids == segment]
            acc = rows[0].copy()
            for row in rows[1:]:
                acc = step(acc, row)
            packed = _packed_extreme(kind, rows) if kind in ("max", "min") and len(rows) > 1 else None
            if packed is not None:
                acc.reshape(-1)[:packed.size] = packed
            out[segment] = acc / np.asarray(len(rows), data.dtype) if kind == "mean" else acc
        return out
    forward.__name__ = f"_segment_{kind}"
    return forward


def _unsorted_segment(kind: str):
    """UnsortedSegmentMin, UnsortedSegmentMax or UnsortedSegmentProd (`kind`): rows of a negative id dropped."""
    def forward(values, indices, num_segments):
        initial = 1 if kind == "prod" else _extreme(kind, values.dtype)
        out = np.full((num_segments,) + values.shape[indices.ndim:], initial, values.dtype)
        if not values.size:
            return out
        step = _fold(kind)
        flat_ids = indices.reshape(-1)
        rows = values.reshape((flat_ids.size,) + values.shape[indices.ndim:])
        for segment, row in zip(flat_ids, rows):
            if segment >= 0:
                out[segment] = step(out[segment], row)
        return out
    forward.__name__ = f"_unsorted_segment_{kind}"
    return forward


def _check_sparse(data, indices, segment_ids, num_segments) -> int:
    """SparseSegmentReductionOpBase's checks; the number of output rows."""
    if indices.ndim != 1:
        raise ValueError("indices should be a vector.")
    if segment_ids.ndim != 1:
        raise ValueError("segment_ids should be a vector.")
    if indices.shape[0] != segment_ids.shape[0]:
        raise ValueError("segment_ids and indices should have same size.")
    if data.ndim == 0:
        raise ValueError("Shape must be at least rank 1")
    last = int(segment_ids[-1]) + 1 if segment_ids.size else 0
    count = last if num_segments is None else int(num_segments)
    if num_segments is not None and last > count:
        raise ValueError("segment ids must be < num_segments")
    if np.any(np.diff(segment_ids) < 0) or (segment_ids.size and segment_ids[0] < 0):
        raise ValueError("segment ids are not increasing")
    bad = np.flatnonzero((indices < 0) | (indices >= data.shape[0]))
    if bad.size:
        raise ValueError(f"Bad: indices[{int(bad[0])}] == {int(indices[bad[0]])} out of range [0, {data.shape[0]})")
    return count


def _sparse_weights(kind: str, segment_ids, count: int, dtype) -> np.ndarray:
    """Each segment's divisor: 1 for a sum, its row count for a mean, the count's square root for sqrt_n
    (at least 1: an empty segment stays 0)."""
    counts = np.maximum(np.bincount(segment_ids, minlength=count)[:count], 1).astype(dtype)
    if kind == "mean":
        return counts
    if kind == "sqrtn":
        return np.sqrt(counts)
    return np.ones(count, dtype)


def _sparse_segment(kind: str):
    """SparseSegmentSum, SparseSegmentMean or SparseSegmentSqrtN (`kind`), `num_segments` None without it."""
    def forward(data, indices, segment_ids, num_segments=None):
        count = _check_sparse(data, indices, segment_ids, num_segments)
        out = np.zeros((count,) + data.shape[1:], data.dtype)
        for index, segment in zip(indices, segment_ids):
            out[segment] = out[segment] + data[index]
        if kind == "sum":
            return out
        divisors = _sparse_weights(kind, segment_ids, count, data.dtype)
        return out / divisors.reshape((count,) + (1,) * (data.ndim - 1))
    forward.__name__ = f"_sparse_segment_{kind}"
    return forward


def _sparse_segment_grad(kind: str):
    """SparseSegmentSumGrad, SparseSegmentMeanGrad or SparseSegmentSqrtNGrad: each upstream row, divided by
    its segment's weight, added into the data row it came from (`output_dim0` rows)."""
    def forward(grad, indices, segment_ids, output_dim0):
        out = np.zeros((output_dim0,) + grad.shape[1:], grad.dtype)
        count = grad.shape[0]
        if segment_ids.size and (segment_ids.max() >= count or segment_ids.min() < 0):
            raise ValueError("Invalid number of segments")
        scales = (np.ones((), grad.dtype) / _sparse_weights(kind, segment_ids, count, grad.dtype)).astype(grad.dtype)
        for index, segment in zip(indices, segment_ids):
            if not 0 <= index < output_dim0:
                raise ValueError(f"Index {index} out of range [0, {output_dim0})")
            out[index] = out[index] + grad[segment] * scales[segment]
        return out
    forward.__name__ = f"_sparse_segment_{kind}_grad"
    return forward
