"""Indexing and shape kernels, with TF's checks made in its kernels' order and its error messages:
Reshape's target shape, Squeeze, Unpack, GatherV2 (batch dimensions included), GatherNd, ScatterNd and
the tensor scatters (which accumulate in the dtype, reading and writing flushed, as TF's scatter
kernels do), Slice, StridedSliceGrad, Pad and PadV2, MirrorPad and MirrorPadGrad, ReverseV2, OneHot,
and the sorted and unsorted segment sums (rows of a negative segment id dropped).
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes as _dtypes
from ..errors import UnimplementedError, _dims_text as dims_text
from ..primitives import flush_subnormals
from .segments import _check_sorted


def _squeeze(x, axis):
    if axis is None:
        return np.squeeze(x)
    for a in axis:
        if x.shape[a] != 1:
            raise ValueError(f"Can not squeeze dim[{a % x.ndim}], expected a dimension of 1, got {x.shape[a]}")
    return np.squeeze(x, axis=tuple({a % x.ndim: None for a in axis}))  # an axis named twice is squeezed once


def _gather(params, indices, axis, batch_dims):
    """TF's GatherV2 kernel: `axis` and `batch_dims` as given (negative ones counted from the end of
    params and of indices), checked in the kernel's order; each of the leading `batch_dims` dimensions
    of params pairs with the same dimension of indices."""
    rank = params.ndim
    if rank == 0:
        raise ValueError("params must be at least 1 dimensional")
    least = -axis if axis < 0 else axis + 1
    if rank < least:
        raise ValueError(f"Shape must be at least rank {least} but is rank {rank}")
    axis = axis + rank if axis < 0 else axis
    if batch_dims != 0:
        if not -indices.ndim <= batch_dims <= indices.ndim:
            raise ValueError(f"Expected batch_dims in the range [{-indices.ndim}, {indices.ndim}], but got {batch_dims}")
        batch_dims = batch_dims + indices.ndim if batch_dims < 0 else batch_dims
        if batch_dims >= rank:
            raise ValueError(f"batch_dims ({batch_dims}) must be less than rank(params) ({rank}).")
        if axis < batch_dims:
            raise ValueError(f"batch_dims ({batch_dims}) must be less than or equal to axis ({axis}).")
        for i in range(batch_dims):
            if params.shape[i] != indices.shape[i]:
                raise ValueError(f"params.shape[{i}]: {params.shape[i]} should be equal to indices.shape[{i}]: "
                                 f"{indices.shape[i]}")
    out_shape = params.shape[:axis] + indices.shape[batch_dims:] + params.shape[axis + 1:]
    if not np.prod(params.shape[axis + 1:]):  # slices of no elements: the kernel copies nothing and checks no index
        return np.zeros(out_shape, params.dtype)
    limit = params.shape[axis]
    bad = (indices < 0) | (indices >= limit)
    if np.any(bad):
        where = np.unravel_index(int(np.flatnonzero(bad)[0]), indices.shape)
        position = f"[{','.join(str(int(i)) for i in where)}]" if indices.ndim else ""
        raise ValueError(f"indices{position} = {indices[where]} is not in [0, {limit})")
    if batch_dims == 0:
        return np.take(params, indices, axis=axis)
    count = int(np.prod(params.shape[:batch_dims]))
    flat_params = params.reshape((count,) + params.shape[batch_dims:])
    flat_indices = indices.reshape((count,) + indices.shape[batch_dims:])
    out = np.empty((count,) + out_shape[batch_dims:], params.dtype)
    for k in range(count):
        out[k] = np.take(flat_params[k], flat_indices[k], axis=axis - batch_dims)
    return out.reshape(out_shape)


def _segment_sum(values, indices, num_segments):
    """TF's UnsortedSegmentSum: rows of a negative segment id are dropped."""
    out = np.zeros((num_segments,) + values.shape[indices.ndim:], values.dtype)
    kept = indices >= 0
    if not values.size:  # the kernel returns before reading an id: out-of-range ones pass
        return out
    if kept.all():
        np.add.at(out, indices, values)
    else:
        np.add.at(out, indices[kept], values[kept])
    return out


def _nd_rows(indices, shape: tuple, what: str) -> tuple:
    """The rows of an N-d index (its last axis indexes the leading dimensions of `shape`) as a tuple of
    index arrays, checked as TF's GatherNd and scatter kernels check them."""
    depth = indices.shape[-1]
    if depth > len(shape):
        raise ValueError(f"index innermost dimension length must be <= {what} rank; saw: {depth} vs. {len(shape)}")
    rows = indices.reshape(math.prod(indices.shape[:-1]), depth)
    bad = np.flatnonzero(((rows < 0) | (rows >= np.array(shape[:depth], rows.dtype))).any(axis=1))
    if bad.size:
        index = ", ".join(str(int(i)) for i in rows[bad[0]])
        raise ValueError(f"indices[{int(bad[0])}] = [{index}] does not index into {what} shape {dims_text(shape)}")
    return tuple(rows.T)


def _gather_nd(params, indices):
    """GatherNd: the slices of params at each row of `indices`' last axis."""
    if params.ndim == 0:
        raise ValueError("params must be at least a vector")
    if indices.ndim == 0:
        raise ValueError("indices must be at least a vector")
    rows = _nd_rows(indices, params.shape, "param")
    depth, count = indices.shape[-1], math.prod(indices.shape[:-1])
    if count and params.size == 0 and math.prod(params.shape[depth:]):
        raise ValueError("Requested more than 0 entries, but params is empty.")
    out_shape = indices.shape[:-1] + params.shape[depth:]
    if depth == 0:
        return np.broadcast_to(params, (count,) + params.shape).reshape(out_shape).copy()
    return params[rows].reshape(out_shape)


def _scatter_add(a, b):
    """One accumulation of TF's scatter kernels, in the dtype: half types rounded at every add (float32
    arithmetic, bfloat16's subnormals flushed there), float32 and float64 read and written flushed."""
    if a.dtype == np.bool_:
        return a | b
    if a.dtype == _dtypes.bfloat16._numpy_dtype:
        return flush_subnormals(flush_subnormals(a.astype(np.float32)) + flush_subnormals(b.astype(np.float32))).astype(a.dtype)
    if a.dtype == np.float16:
        return (a.astype(np.float32) + b.astype(np.float32)).astype(a.dtype)
    if a.dtype.kind in "fc":
        return flush_subnormals(flush_subnormals(a) + flush_subnormals(b))
    return a + b


def _check_scatter(indices, updates, shape: tuple) -> None:
    if indices.ndim == 0 or indices.shape[-1] > len(shape):
        raise ValueError(f"Index innermost dimension length must be <= output rank; saw: {indices.shape} vs. {shape}")
    if updates.ndim == 0:
        raise ValueError("Updates shape must have rank at least one. Found:[]")
    if updates.shape != indices.shape[:-1] + tuple(shape[indices.shape[-1]:]):
        raise ValueError(f"Dimensions of updates {dims_text(updates.shape)} must match indices "
                         f"{dims_text(indices.shape)} and shape {dims_text(shape)}")
    # TF's kernels refuse any row for an empty output, and for an index depth of 0 (the whole output)
    if math.prod(indices.shape[:-1]) and (math.prod(shape) == 0 or indices.shape[-1] == 0):
        raise ValueError("Indices and updates specified for empty output shape")


def _scatter_into(out, indices, updates, accumulate: bool):
    """Writes (or adds, in order) each slice of `updates` at its row of `indices` in `out`."""
    _check_scatter(indices, updates, out.shape)
    rows = _nd_rows(indices, out.shape, "")
    slices = updates.reshape((math.prod(indices.shape[:-1]),) + out.shape[indices.shape[-1]:])
    if not accumulate:
        out[rows] = slices  # repeated rows: the last one stays, as on TF's CPU
        return out
    for i in range(len(slices)):
        row = tuple(r[i] for r in rows)
        out[row] = _scatter_add(np.asarray(out[row]), slices[i])
    return out


def _scatter_nd(updates, indices, shape):
    """ScatterNd: zeros (empty strings) of `shape` with the updates summed in at their indices."""
    zeros = np.full(shape, b"", object) if updates.dtype == object else np.zeros(shape, updates.dtype)
    return _scatter_into(zeros, indices, updates, accumulate=True)


def _slice(x, begin, size):
    """Slice: `size[i]` elements from `begin[i]` along each axis (sizes already resolved from -1)."""
    return x[tuple(slice(b, b + n) for b, n in zip(begin, size))].copy()


def _check_paddings(x, paddings, most_dims):
    """Pad's and MirrorPad's checks of the paddings (a [rank, 2] integer matrix) and rank, in the kernel's order."""
    if paddings.ndim != 2 or paddings.shape[1] != 2:
        raise ValueError(f"paddings must be a matrix with 2 columns: {dims_text(paddings.shape)}")
    if paddings.shape[0] != x.ndim:
        raise ValueError(f"The first dimension of paddings must be the rank of inputs{dims_text(paddings.shape)} "
                         f"{dims_text(x.shape)}")
    for before, after in paddings:
        if before < 0 or after < 0:
            raise ValueError(f"Paddings must be non-negative: {before} {after}")
    if x.ndim > most_dims:
        raise UnimplementedError(f"inputs rank not in [0,{most_dims}]: {x.ndim}")


def _pad(x, paddings, constant):
    """Pad (`constant` None: zeros, empty strings for strings) and PadV2."""
    _check_paddings(x, paddings, most_dims=8)
    if x.ndim == 0:
        return x.copy()
    if constant is None:
        constant = b"" if x.dtype == object else 0
    return np.pad(x, paddings, constant_values=constant)


# MirrorPad's modes: how far the reflection starts from the edge (REFLECT leaves the edge out)
_MIRROR_OFFSET = {"REFLECT": 1, "SYMMETRIC": 0}


def _check_mirror_sizes(paddings, sizes, mode, grad: bool):
    """MirrorPad (and its gradient, measured against the size it restores) allows paddings below a
    dimension's size for REFLECT, up to its size for SYMMETRIC."""
    what = "the output dimension size" if grad else "the dimension size"
    for (before, after), size in zip(paddings, sizes):
        if _MIRROR_OFFSET[mode] and not (before < size and after < size):
            raise ValueError(f"paddings must be less than {what}: {before}, {after} not less than {size}")
        if not _MIRROR_OFFSET[mode] and not (before <= size and after <= size):
            raise ValueError(f"paddings must be no greater than {what}: {before}, {after} greater than {size}")


def _mirror_pad(x, paddings, mode):
    _check_paddings(x, paddings, most_dims=5)
    _check_mirror_sizes(paddings, x.shape, mode, grad=False)
    return np.pad(x, paddings, mode=mode.lower())


def _mirror_pad_grad(g, paddings, mode):
    """MirrorPadGrad: each padded border folded back (reversed) onto the elements it mirrors, axis by axis."""
    _check_paddings(g, paddings, most_dims=5)
    sizes = [d - before - after for d, (before, after) in zip(g.shape, paddings)]
    _check_mirror_sizes(paddings, sizes, mode, grad=True)
    offset = _MIRROR_OFFSET[mode]
    for axis, ((before, after), size) in enumerate(zip(paddings, sizes)):
        moved = np.moveaxis(g, axis, 0)
        core = moved[before:before + size].copy()
        core[offset:offset + before] += moved[:before][::-1]
        core[size - offset - after:size - offset] += moved[before + size:][::-1]
        g = np.moveaxis(core, 0, axis)
    return np.ascontiguousarray(g)


def _one_hot(on_value, off_value, indices, depth, axis):
    if depth < 0:
        raise ValueError(f"depth must be non-negative, got: {depth}")
    if not -1 <= axis <= indices.ndim:
        raise ValueError(f"Expected axis to be -1 or between [0, {indices.ndim + 1}).  But received: {axis}")
    for name, value in (("on_value", on_value), ("off_value", off_value)):
        if value.ndim:
            raise ValueError(f"{name} must be a scalar, but got: {dims_text(value.shape)}")
    hot = np.expand_dims(indices, -1) == np.arange(depth)  # ids outside [0, depth) are hot nowhere
    return np.moveaxis(np.where(hot, on_value, off_value), -1, axis)


def _sorted_segment_sum(data, segment_ids):
    """SegmentSum: ids sorted and non-negative, as many segments as the last id + 1."""
    return _segment_sum(data, segment_ids, _check_sorted(data, segment_ids))


def _reverse(x, axis):
    """ReverseV2 (of rank 1 or more: scalars never reach the kernel): each axis, negative ones counted from the
    end, at most once; tensors of rank 8 at most."""
    rank = x.ndim
    seen = set()
    for i, a in enumerate(axis):
        canonical = a + rank if a < 0 else a
        if not 0 <= canonical < rank:
            raise ValueError(f"'axis'[{i}] = {a} is out of valid range [0, {rank - 1}")
        if canonical in seen:
            raise ValueError(f"axis {canonical} specified more than once.")
        seen.add(canonical)
    if rank > 8:
        raise UnimplementedError("reverse is not implemented for tensors of rank > 8. [Op:ReverseV2]")
    return np.flip(x, tuple(seen)).copy()


def _strided_slice_grad(dy, shape, key):
    out = np.zeros(shape, dy.dtype)
    view = out[key]
    out[key] = dy.reshape(np.shape(view))
    return out

def _reshape_target(shape: tuple, dims: tuple) -> tuple:
    """The output shape of TF's Reshape: at most one -1, inferred from the other sizes; with a zero
    among them (or no values), from the nonzero sizes of input and output."""
    unknown = [i for i, d in enumerate(dims) if d < 0]
    for i in unknown:
        if dims[i] < -1:
            raise ValueError(f"Size {i} must be non-negative, not {dims[i]}")
    if len(unknown) > 1:
        raise ValueError(f"Only one input size may be -1, not both {unknown[0]} and {unknown[1]}")
    size, known = math.prod(shape), math.prod(d for d in dims if d != -1)
    if not unknown:
        if size != known:
            raise ValueError(f"Input to reshape is a tensor with {size} values, but the requested shape has {known}")
        return dims
    if known == 0:
        if size:
            raise ValueError(f"Input to reshape is a tensor with {size} values, but the requested shape has 0")
        missing = math.prod(d for d in shape if d) // math.prod(d for d in dims if d > 0)
    elif size % known:
        raise ValueError(f"Input to reshape is a tensor with {size} values, but the requested shape requires a "
                         f"multiple of {known}")
    else:
        missing = size // known
    return dims[:unknown[0]] + (missing,) + dims[unknown[0] + 1:]
def _unpack(x, num, axis):
    """Unpack: `num` slices along `axis`, which must be in range and of that size."""
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"axis = {axis} not in [{-x.ndim}, {x.ndim})")
    if x.shape[axis] != num:
        raise ValueError(f"Input shape axis {axis % x.ndim} must equal {num}, got shape {dims_text(x.shape)}")
    return tuple(np.moveaxis(x, axis, 0))
