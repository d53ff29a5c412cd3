"""Pooling as TF's CPU kernels compute it: MaxPool, AvgPool (2-d and 3-d, channels last), their gradient
kernels (MaxPoolGrad, MaxPoolGradGrad, AvgPoolGrad), MaxPoolWithArgmax and MaxPoolGradWithArgmax.

Every kernel works on arrays laid out N, spatial..., C with `ksize` and `strides` given per axis (TF's
attribute form, 1 on the batch and channel axes). A window's elements are visited in row-major order of
the window and the largest is the FIRST one strictly above all before it: TF's argmax helper replaces its
running maximum only on a strictly larger input, so ties route the gradient to the first of them (the
forward value is the same either way). MaxPool starts each window from the dtype's lowest finite value,
as TF's kernel does. Padded positions (SAME, EXPLICIT) never win and AvgPool counts only the window's
positions inside the input.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

from ..errors import InvalidArgumentError, UnimplementedError


def _c_quotient(a: int, b: int) -> int:
    """C's integer division (toward zero), as TF's GetWindowedOutputSize computes."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def check_window(op: str, rank: int, ksize, strides, padding: str, data_format: str) -> None:
    """TF's kernel construction checks for a pool of `rank` dimensions (4 or 5), in TF's order."""
    channels_last = data_format in ("NHWC", "NDHWC", None)  # None: the op's default (max_pool of rank 5 passes it)
    if len(ksize) != rank or len(strides) != rank:
        raise InvalidArgumentError(f"Sliding window ksize field must specify {rank} dimensions [Op:{op}]")
    if not channels_last:
        if rank == 4:
            kind = "MaxPoolingOp" if op.startswith("MaxPool") else "AvgPoolingOp"
            raise InvalidArgumentError(f"Default {kind} only supports NHWC on device type CPU [Op:{op}]")
        raise InvalidArgumentError(f"Default Pooling3dOp only supports NDHWC on device type CPU [Op:{op}]")
    if any(k <= 0 for k in ksize):
        raise InvalidArgumentError(f"Sliding window ksize must be positive. [Op:{op}]")
    if any(s <= 0 for s in strides):
        raise InvalidArgumentError(f"Stride must be > 0, but got {min(strides)} [Op:{op}]")
    if ksize[0] != 1 or strides[0] != 1:
        raise UnimplementedError(f"Pooling is not yet supported on the batch dimension. [Op:{op}]")
    if ksize[-1] != 1 or strides[-1] != 1:
        raise UnimplementedError(f"MaxPooling supports exactly one of pooling across depth or pooling across "
                                 f"width/height. [Op:{op}]")


def _geometry(op: str, size: int, k: int, s: int, padding: str, explicit: tuple) -> tuple[int, int]:
    """(output size, padding before) of one spatial axis."""
    if padding == "VALID":
        out, before = _c_quotient(size - k + s, s), 0
    elif padding == "SAME":
        out = _c_quotient(size + s - 1, s)
        before = max((out - 1) * s + k - size, 0) // 2
    else:  # EXPLICIT
        before, after = explicit
        out = _c_quotient(size + before + after - k + s, s)
    if out < 0:
        raise InvalidArgumentError(f"Computed output size would be negative: {out} [input_size: {size}, "
                                   f"effective_filter_size: {k}, stride: {s}] [Op:{op}]")
    return out, before


def _windows(op: str, shape: tuple, ksize, strides, padding: str, explicit_paddings=()) -> tuple:
    """For an input of `shape` (N, spatial..., C): the output shape, and for each output position and
    window slot the flat spatial index of the input element (-1 where the slot is padding), as an array
    [outputs, slots] over the spatial axes only, slots in row-major order of the window."""
    spatial = shape[1:-1]
    pairs = [tuple(explicit_paddings[2 * a:2 * a + 2]) for a in range(1, len(shape) - 1)] if explicit_paddings else [
        (0, 0)] * len(spatial)
    per_axis, out_sizes = [], []
    for size, k, s, explicit in zip(spatial, ksize[1:-1], strides[1:-1], pairs):
        out, before = _geometry(op, size, k, s, padding, explicit)
        positions = np.arange(out)[:, None] * s - before + np.arange(k)[None, :]  # [out, k]
        positions = np.where((positions >= 0) & (positions < size), positions, -1)
        per_axis.append(positions)
        out_sizes.append(out)
    # Combine the axes: outputs and slots both in row-major order
    flat = np.zeros((1, 1), np.int64)
    valid = np.ones((1, 1), bool)
    for size, positions in zip(spatial, per_axis):
        out, k = positions.shape
        flat = (flat[:, None, :, None] * size + np.maximum(positions, 0)[None, :, None, :]).reshape(
            flat.shape[0] * out, flat.shape[1] * k)
        valid = (valid[:, None, :, None] & (positions >= 0)[None, :, None, :]).reshape(flat.shape)
    return (shape[0], *out_sizes, shape[-1]), np.where(valid, flat, -1)


def _flat(a: np.ndarray) -> np.ndarray:
    """N, spatial..., C as N, positions, C."""
    return a.reshape(a.shape[0], int(np.prod(a.shape[1:-1])), a.shape[-1])


def _lowest(dtype: np.dtype):
    return np.iinfo(dtype).min if dtype.kind in "iu" else ml_dtypes.finfo(dtype).min


def _compared(x: np.ndarray) -> np.ndarray:
    """x as TF's CPU compares it: float32, float64 and bfloat16 (float32's range) under denormals-are-zero,
    subnormals as signed zeros; float16 (converted in software) and integers as they are."""
    if x.dtype.kind in "iu" or x.dtype == np.float16:
        return x
    wide = x.astype(np.float32) if x.dtype.itemsize == 2 else x
    tiny = np.finfo(wide.dtype).tiny
    return np.where(np.abs(wide) < tiny, np.copysign(np.zeros_like(wide), wide), wide)


def _argmax_helper(x: np.ndarray, index: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """TF's argmax helper over each window: the first input inside the input is taken, then one strictly
    above the running value replaces it (a NaN never does; a NaN taken first stays). Returns the values
    taken and their flat spatial indices, each [N, outputs, C]."""
    n, c = x.shape[0], x.shape[-1]
    outputs = index.shape[0]
    keys = _flat(_compared(x))
    key = np.zeros((n, outputs, c), keys.dtype)
    value = np.zeros((n, outputs, c), x.dtype)
    chosen = np.zeros((n, outputs, c), np.int64)
    taken = np.zeros((n, outputs, c), bool)
    flat = _flat(x)
    for slot in range(index.shape[1]):
        at = index[:, slot]
        inside = (at >= 0)[None, :, None]
        if not flat.shape[1]:
            break
        candidate = flat[:, np.maximum(at, 0), :]
        candidate_key = keys[:, np.maximum(at, 0), :]
        replace = inside & (~taken | (key < candidate_key))
        value = np.where(replace, candidate, value)
        key = np.where(replace, candidate_key, key)
        chosen = np.where(replace, np.maximum(at, 0)[None, :, None], chosen)
        taken |= inside
    return value, chosen


def _check_explicit(op: str, paddings, ksize) -> None:
    """TF's checks of MaxPool's explicit paddings: nonnegative, none on the batch and depth axes, each side
    below the window."""
    if any(p < 0 for p in paddings):
        raise InvalidArgumentError(f"All elements of explicit_paddings must be nonnegative [Op:{op}]")
    if any(paddings[:2]) or any(paddings[-2:]):
        raise InvalidArgumentError(f"Nonzero explicit padding in the batch or depth dimensions is not supported [Op:{op}]")
    sides = (("Top", "Bottom"), ("Left", "Right"))
    for axis, (before, after) in enumerate(sides):
        for name, p in ((before, paddings[2 + 2 * axis]), (after, paddings[3 + 2 * axis])):
            if p >= ksize[1 + axis]:
                raise InvalidArgumentError(f"{name} padding {p} needs to be smaller than the window size "
                                           f"{ksize[1 + axis]} [Op:{op}]")


def max_pool(x: np.ndarray, ksize, strides, padding: str, data_format: str, explicit_paddings=(), op: str = "MaxPool"):
    """Each window's largest input, NaNs passed over, from the dtype's lowest finite value (TF's kernel)."""
    check_window(op, x.ndim, ksize, strides, padding, data_format)
    if padding == "EXPLICIT":
        _check_explicit(op, explicit_paddings, ksize)
    out_shape, index = _windows(op, x.shape, ksize, strides, padding, explicit_paddings)
    lowest = _lowest(x.dtype)
    result = np.full((x.shape[0], index.shape[0], x.shape[-1]), lowest, x.dtype)
    flat = _flat(x)
    for slot in range(index.shape[1] if flat.shape[1] else 0):
        at = index[:, slot]
        candidate = flat[:, np.maximum(at, 0), :]
        result = np.where((at >= 0)[None, :, None] & (candidate > result), candidate, result)
    return result.reshape(out_shape)


def max_pool_grad(x: np.ndarray, y: np.ndarray, dy: np.ndarray, ksize, strides, padding: str, data_format: str,
                  explicit_paddings=(), T=None, op: str = "MaxPoolGrad"):
    """The upstream of each output added, in the dtype T and in the outputs' order, to the input element TF's
    argmax helper picks in its window."""
    check_window(op, x.ndim, ksize, strides, padding, data_format)
    out_shape, index = _windows(op, x.shape, ksize, strides, padding, explicit_paddings)
    if tuple(dy.shape) != tuple(out_shape):
        raise InvalidArgumentError(f"Expected grad shape to be {list(out_shape)}, but got {list(dy.shape)} [Op:{op}]")
    _, chosen = _argmax_helper(x, index)
    n, c = x.shape[0], x.shape[-1]
    dtype = dy.dtype if T is None else np.dtype(T.as_numpy_dtype)
    dx = np.zeros((n, int(np.prod(x.shape[1:-1])), c), dtype)
    if dx.size and chosen.size:
        batch = np.broadcast_to(np.arange(n)[:, None, None], chosen.shape)
        channel = np.broadcast_to(np.arange(c)[None, None, :], chosen.shape)
        np.add.at(dx, (batch, chosen, channel), dy.reshape(chosen.shape).astype(dtype))  # in order, rounded each time
    return dx.reshape(x.shape).astype(dy.dtype)


def max_pool3d_grad(x: np.ndarray, y: np.ndarray, dy: np.ndarray, ksize, strides, padding: str, data_format: str,
                    T=None, op: str = "MaxPool3DGrad"):
    """TF's MaxPool3DGrad: each output's upstream added to EVERY input of its window equal to the pooled output
    (tied maxima each take all of it), in T, in the outputs' order."""
    check_window(op, x.ndim, ksize, strides, padding, data_format)
    out_shape, index = _windows(op, x.shape, ksize, strides, padding)
    if tuple(dy.shape) != tuple(out_shape):
        raise InvalidArgumentError(f"Expected grad shape to be {list(out_shape)}, but got {list(dy.shape)} [Op:{op}]")
    rounded = _rounding(T)
    flat, pooled = _flat(x), _flat(y)
    upstream = dy.reshape(pooled.shape)
    dx = np.zeros(flat.shape, dy.dtype)
    for slot in reversed(range(index.shape[1] if flat.shape[1] else 0)):  # see avg_pool_grad
        at = index[:, slot]
        inside = at >= 0
        equal = flat[:, at[inside], :] == pooled[:, inside, :]
        dx[:, at[inside], :] = rounded(dx[:, at[inside], :] + np.where(equal, upstream[:, inside, :], 0))
    return dx.reshape(x.shape)


def max_pool_grad_grad(x: np.ndarray, y: np.ndarray, ddx: np.ndarray, ksize, strides, padding: str, data_format: str,
                       explicit_paddings=(), op: str = "MaxPoolGradGrad"):
    """For each output, the input-shaped upstream at the first input of its window equal to the pooled output
    (TF's MaxPoolGradGrad reads the output it is given; 0 where none equals it). TF's MaxPoolGradGrad takes no
    explicit padding: the second order of an explicitly padded MaxPool fails."""
    if padding == "EXPLICIT":
        raise InvalidArgumentError(f'Value for attr \'padding\' of "EXPLICIT" is not in the list of allowed values: '
                                   f'"SAME", "VALID" [Op:{op}]')
    check_window(op, x.ndim, ksize, strides, padding, data_format)
    out_shape, index = _windows(op, x.shape, ksize, strides, padding, explicit_paddings)
    n, c = x.shape[0], x.shape[-1]
    flat, upstream = _flat(x), _flat(ddx)
    pooled = _flat(y)
    result = np.zeros((n, index.shape[0], c), ddx.dtype)
    found = np.zeros(result.shape, bool)
    for slot in range(index.shape[1] if flat.shape[1] else 0):
        at = index[:, slot]
        hit = (at >= 0)[None, :, None] & ~found & (flat[:, np.maximum(at, 0), :] == pooled)
        result = np.where(hit, upstream[:, np.maximum(at, 0), :], result)
        found |= hit
    return result.reshape(out_shape)


def _rounding(T) -> callable:
    """Rounds float32 arrays to T where T is a half type (TF's kernel computes in T), else nothing."""
    if T is None or np.dtype(T.as_numpy_dtype).itemsize > 2:
        return lambda a: a
    half = np.dtype(T.as_numpy_dtype)
    return lambda a: a.astype(half).astype(np.float32)


def avg_pool(x: np.ndarray, ksize, strides, padding: str, data_format: str, T=None, op: str = "AvgPool"):
    """Each window's mean over its positions inside the input: summed in the window's row-major order and
    divided by the count, in the dtype T, as TF's kernel does."""
    check_window(op, x.ndim, ksize, strides, padding, data_format)
    out_shape, index = _windows(op, x.shape, ksize, strides, padding)
    rounded = _rounding(T)
    n, c = x.shape[0], x.shape[-1]
    flat = _flat(x)
    total = np.zeros((n, index.shape[0], c), x.dtype)
    for slot in range(index.shape[1] if flat.shape[1] else 0):
        at = index[:, slot]
        total = np.where((at >= 0)[None, :, None], rounded(total + flat[:, np.maximum(at, 0), :]), total)
    counts = rounded(np.maximum((index >= 0).sum(axis=1), 1).astype(x.dtype))[None, :, None]
    return rounded(total / counts).reshape(out_shape)


def avg_pool_grad(dy: np.ndarray, input_shape, ksize, strides, padding: str, data_format: str, T=None,
                  op: str = "AvgPoolGrad"):
    """Each output's upstream times 1 / its window's count of positions inside the input (a constant of T),
    added to those positions in the outputs' row-major order, in T: TF's kernel."""
    input_shape = tuple(int(d) for d in input_shape)
    check_window(op, len(input_shape), ksize, strides, padding, data_format)
    out_shape, index = _windows(op, input_shape, ksize, strides, padding)
    if tuple(dy.shape) != tuple(out_shape):
        raise InvalidArgumentError(f"Expected grad shape to be {list(out_shape)}, but got {list(dy.shape)} [Op:{op}]")
    rounded = _rounding(T)
    n, c = input_shape[0], input_shape[-1]
    counts = np.maximum((index >= 0).sum(axis=1), 1)
    coefficients = rounded(1.0 / counts).astype(dy.dtype)
    share = rounded(dy.reshape(n, int(np.prod(out_shape[1:-1])), c) * coefficients[None, :, None])
    dx = np.zeros((n, int(np.prod(input_shape[1:-1])), c), dy.dtype)
    # For one input the outputs whose windows hold it come in row-major order exactly as their slots come in
    # reverse row-major order; within one slot every output reaches a different input
    for slot in reversed(range(index.shape[1] if dx.shape[1] else 0)):
        at = index[:, slot]
        inside = at >= 0
        dx[:, at[inside], :] = rounded(dx[:, at[inside], :] + share[:, inside, :])
    return dx.reshape(input_shape)


def max_pool_with_argmax(x: np.ndarray, ksize, strides, padding: str, include_batch_in_index: bool, Targmax):
    """The values TF's argmax helper picks and the flat index of each one's input element: ((b * H + y) * W + x)
    * C + c with the batch, (y * W + x) * C + c without."""
    op = "MaxPoolWithArgmax"
    check_window(op, x.ndim, ksize, strides, padding, "NHWC")
    if x.size == 0:
        raise InvalidArgumentError(f"tensor_in must not be empty [Op:{op}]")
    out_shape, index = _windows(op, x.shape, ksize, strides, padding)
    values, chosen = _argmax_helper(x, index)
    n, c = x.shape[0], x.shape[-1]
    spatial = int(np.prod(x.shape[1:-1]))
    argmax = chosen * c + np.arange(c)[None, None, :]
    if include_batch_in_index:
        argmax = argmax + (np.arange(n) * spatial * c)[:, None, None]
    return values.reshape(out_shape), argmax.astype(Targmax).reshape(out_shape)


def max_pool_grad_with_argmax(x: np.ndarray, dy: np.ndarray, argmax: np.ndarray, ksize, strides, padding: str,
                              include_batch_in_index: bool):
    """Each upstream element added at the input element its argmax names."""
    n = x.shape[0]
    per_batch = int(np.prod(x.shape[1:]))
    flat = np.zeros(x.size, dy.dtype)
    index = np.asarray(argmax, np.int64).reshape(n, int(np.prod(argmax.shape[1:])))
    if not include_batch_in_index:
        index = index + (np.arange(n) * per_batch)[:, None]
    if index.size and (index.min() < 0 or index.max() >= max(x.size, 1)):
        raise InvalidArgumentError("Invalid input argmax [Op:MaxPoolGradWithArgmax]")
    np.add.at(flat, index.reshape(-1), dy.reshape(-1))
    return flat.reshape(x.shape)
