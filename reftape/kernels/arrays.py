"""Array kernels of issue 24, with TF's checks in its kernels' order: Roll (shifts along axes, an axis
named twice shifted by the sum), SpaceToDepth and DepthToSpace (NHWC blocks moved between the spatial
dimensions and the depth, in TF's order: the block's row, its column, then the depth)."""

from __future__ import annotations

import numpy as np

from ..errors import _dims_text as dims_text


def _roll(x, shift, axis):
    """Roll: `shift` and `axis` scalars or vectors of one size; each axis in range (negative ones counted
    from the end)."""
    if x.ndim == 0:
        raise ValueError("input must be 1-D or higher")
    if shift.ndim > 1:
        raise ValueError(f"shift must be a scalar or a 1-D vector. Found: {dims_text(shift.shape)}")
    if axis.ndim > 1:
        raise ValueError(f"axis must be a scalar or a 1-D vector. Found: {dims_text(axis.shape)}")
    if shift.shape != axis.shape:
        raise ValueError("shift and axis must have the same size")
    shifts, axes = shift.reshape(-1), axis.reshape(-1)
    total = [0] * x.ndim
    for s, a in zip(shifts, axes):
        canonical = int(a) + x.ndim if a < 0 else int(a)
        if not 0 <= canonical < x.ndim:
            raise ValueError(f"axis {int(a)} is out of range")
        total[canonical] += int(s)
    if not x.size:
        return x.copy()
    return np.roll(x, tuple(total), tuple(range(x.ndim)))


def _check_blocks(x, block_size: int, data_format: str) -> None:
    if block_size < 2:
        raise ValueError(f"Value for attr 'block_size' of {block_size} must be at least minimum 2")
    if x.ndim != 4:
        raise ValueError(f"Input rank should be 4 instead of {x.ndim}")


def _space_to_depth(x, block_size, data_format):
    """SpaceToDepth (NHWC): each block_size x block_size spatial block becomes one position's depth."""
    _check_blocks(x, block_size, data_format)
    batch, height, width, depth = x.shape
    if height % block_size or width % block_size:
        raise ValueError(f"Image width {width} and height {height} should be divisible by block_size: {block_size}")
    blocks = x.reshape(batch, height // block_size, block_size, width // block_size, block_size, depth)
    return blocks.transpose(0, 1, 3, 2, 4, 5).reshape(batch, height // block_size, width // block_size,
                                                      block_size * block_size * depth).copy()


def _depth_to_space(x, block_size, data_format):
    """DepthToSpace (NHWC): each position's depth spread over a block_size x block_size spatial block."""
    _check_blocks(x, block_size, data_format)
    batch, height, width, depth = x.shape
    if depth % (block_size * block_size):
        raise ValueError(f"Input depth dimension {depth} should be divisible by: {block_size * block_size}")
    blocks = x.reshape(batch, height, width, block_size, block_size, depth // (block_size * block_size))
    return blocks.transpose(0, 1, 3, 2, 4, 5).reshape(batch, height * block_size, width * block_size,
                                                      depth // (block_size * block_size)).copy()


def _space_to_batch(x, block_shape, paddings):
    """SpaceToBatchND: the spatial dimensions (after the batch) padded, then each block_shape-th element per
    phase moved into a batch of its own, the phases outermost."""
    n = len(block_shape)
    padded = np.pad(x, [(0, 0)] + [tuple(p) for p in paddings] + [(0, 0)] * (x.ndim - 1 - n))
    batch, rest = padded.shape[0], padded.shape[1 + n:]
    blocks = tuple(padded.shape[1 + i] // b for i, b in enumerate(block_shape))
    split = padded.reshape((batch,) + tuple(d for pair in zip(blocks, block_shape) for d in pair) + rest)
    order = [2 + 2 * i for i in range(n)] + [0] + [1 + 2 * i for i in range(n)] + list(range(1 + 2 * n, split.ndim))
    return split.transpose(order).reshape((int(np.prod(block_shape)) * batch,) + blocks + rest)


def _batch_to_space(x, block_shape, crops):
    """BatchToSpaceND: SpaceToBatchND's inverse, the phases interleaved back and `crops` cut off."""
    n = len(block_shape)
    batch, inner, rest = x.shape[0] // int(np.prod(block_shape)), x.shape[1:1 + n], x.shape[1 + n:]
    merged = x.reshape(tuple(block_shape) + (batch,) + inner + rest)
    order = [n] + [p for i in range(n) for p in (n + 1 + i, i)] + list(range(2 * n + 1, merged.ndim))
    joined = merged.transpose(order).reshape((batch,) + tuple(d * b for d, b in zip(inner, block_shape)) + rest)
    kept = tuple(slice(before, joined.shape[1 + i] - after) for i, (before, after) in enumerate(crops))
    return joined[(slice(None),) + kept].copy()
